# Cython declarations for the compiled build (setup.py, SCHESS_ENGINE_COMPILE=1); the .py file stays plain Python.
cimport cython

from engine.movecodes cimport move_piece

# Constants the module imports for itself alone, as C values.
cdef int CASTLE, CASTLE_ROOK_GATE, DROP, EN_PASSANT, ELEPHANT, HAWK


@cython.locals(h="long long", z="long long", low="unsigned long long")
cpdef long long mask_hash(unsigned long long mask, list keys)

cdef int _LOW_BIT_SQUARE[67]


cdef int _UNDO_WORDS


cdef class PositionState:
    cdef public str variant
    cdef public bint chess960
    cdef public int entry_rule
    cdef public list placed
    cdef public int squares[64]
    cdef public int side
    cdef public int king_sq[2]
    cdef public list hand
    cdef public unsigned long long gates
    cdef public unsigned long long castling
    cdef public int ep
    cdef public bint drops
    cdef public unsigned long long promoted
    cdef public int first_gate
    cdef public int halfmove
    cdef public object start_ply
    cdef public int ply
    cdef public long long hash
    cdef public unsigned long long changed_squares
    cdef public bint hand_changed
    cdef public object undo_buffer
    cdef public object undo_mask_buffer
    cdef long long[::1] undo
    cdef unsigned long long[::1] undo_masks
    cdef public int undo_len
    cdef unsigned long long pin_line[64]
    cdef public dict _castle_info
    cdef public list _castle_clear

    @cython.locals(n=int)
    cpdef copy_state_to(self, PositionState other)

    @cython.locals(n=int, promoted="unsigned long long", hand=list)
    cdef _undo_drop_game(self, int code, int to, int flag, int side, int captured)

    cpdef bint _keeps_gates(self, int sign)

    cpdef clear_undo(self)

    cpdef _grow_undo(self)

    cpdef long long undo_code(self, int i)

    cpdef long long undo_captured(self, int i)

    cpdef long long undo_hash(self, int i)

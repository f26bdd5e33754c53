# Cython declarations for the compiled build (setup.py, SCHESS_ENGINE_COMPILE=1); the .py file stays plain Python.
cimport cython

from engine.movegen cimport MoveGenerator
from engine.movecodes cimport gated_piece, move_from, move_kind, move_piece, move_to
from engine.state cimport PositionState, mask_hash

# Names the module imports for itself alone (the ones it re-exports stay Python objects).
cdef int ELEPHANT, HAWK, KING
cdef int CASTLE_ROOK_GATE, DOUBLE_PUSH, DROP, EN_PASSANT, PROMOTION, UNDO_WORDS, UNDO_MASKS, HAND_SLOTS
cdef int PLACE, _PLACEMENT
cdef list ZOBRIST_CASTLING, ZOBRIST_EP, ZOBRIST_POCKET, ZOBRIST_PIECE
cdef long long _ZOBRIST_AT[1088]
cdef long long _ZOBRIST_HAND_AT[1088]
cdef long long _ZOBRIST_EP[64]
cdef long long _ZOBRIST_PLACED_AT[1088]
cdef long long ZOBRIST_SIDE
cdef unsigned long long _ONE, _RANK_1, _RANK_8


cdef class MoveObserver:
    cpdef push(self, PositionState pos)

    cpdef pop(self)


cdef class Position(MoveGenerator):
    cdef public MoveObserver accumulator

    @cython.locals(squares="int *", frm=int, to=int, flag=int, side=int, h="long long", ep=int, piece=int,
                   captured=int, target=int, f=int, new_piece=int, victim_sq=int, king_to=int, rook_to=int,
                   rook=int, p=int, z="long long", dropped=int, hand=list, count=int)
    cpdef make(self, int code)

    @cython.locals(bit="unsigned long long", gained=int, hand=list, count=int, h="long long", z="long long")
    cdef long long _capture_to_hand(self, int captured, int sq, int side)

    @cython.locals(squares="int *", h="long long", gate_type=int, gated=int, gate_sq=int, hand=list, count=int,
                   z="long long", castling="unsigned long long", keep="unsigned long long",
                   new_castling="unsigned long long", gates="unsigned long long")
    cpdef _update_back_rank(self, int code, int frm, int to, int flag, int side)

    @cython.locals(n=int, i=int)
    cdef _push_undo(self, int code, int captured)

    @cython.locals(code=int, captured=int, ep=int, h="long long", squares="int *", frm=int, to=int, flag=int,
                   side=int, gate_type=int, piece=int, king_to=int, rook_to=int, king=int, rook=int, n=int, i=int,
                   halfmove="long long",
                   castling="unsigned long long", gates="unsigned long long")
    cpdef int unmake(self) except? -1

    @cython.locals(h="long long", z="long long")
    cpdef make_null(self)

    @cython.locals(n=int)
    cpdef unmake_null(self)


@cython.locals(sq=int, piece_type=int, z="long long")
cpdef _make_placement(Position pos, int code, long long h)

@cython.locals(placed=int, hand=list, count=int, z="long long")
cpdef long long _forfeit_placed(Position pos, int sq, int owner, long long h)

# Cython declarations for the compiled build (setup.py, SCHESS_ENGINE_COMPILE=1); the .py file stays plain Python.
# The array sizes follow nnue.py: N_FEATURES * MAX_HIDDEN = 1168 * 256, STACK_PLIES = 192 (values: one more slot), _SQUARES_MAX = 8,
# 2 * _CHANGES_MAX = 640.
cimport cython

from engine.state cimport PositionState
from engine.position cimport MoveObserver
from engine cimport _nnue_kernels as kern

cdef short _W1[299008]
cdef short _B1[256]
cdef short _W2[512]
cdef int _CHANGES_MAX, _SQUARES_MAX, _SLOT_CHANGES_MAX
cdef int _LOW_BIT_SQUARE[67]
cdef long long _W2_OFFSET
cdef int _B2, _HIDDEN, _ADDED, _W2_FITS_INT, _QA, _DIV, _SCALE, _LIMIT, _SLOT, _MAXH, _STACK, _HAND_BASE, _HAND_STEPS, _GATE_BASE
cdef int _PIECE_WHITE[1088]
cdef int _PIECE_BLACK[1088]


cdef class Accumulator(MoveObserver):
    cdef short values[98816]
    cdef char filled[192]
    cdef int board[64]
    cdef int hands[16]
    cdef unsigned long long gates
    cdef int square_count[192]
    cdef int square_at[1536]
    cdef int square_old[1536]
    cdef int square_new[1536]
    cdef int hand_count[192]
    cdef int hand_at[3072]
    cdef int hand_old[3072]
    cdef int hand_new[3072]
    cdef unsigned long long gates_old[192]
    cdef unsigned long long gates_new[192]
    cdef int added[640]
    cdef int removed[640]
    cdef int n_add, n_sub
    cdef public int top
    cdef public int overflow
    cdef public bint stale

    @cython.locals(squares="int *", sq=int, hand=list, slot=int, t=int)
    cpdef refresh(self, PositionState pos)

    @cython.locals(h=int, at=int, i=int, squares="int *", sq=int, hand=list, slot_=int, t=int)
    cdef _fill(self, PositionState pos, int slot)

    cdef void _list_square(self, int sq, int old, int new) noexcept

    @cython.locals(row_white=int, row_black=int, k=int)
    cdef void _list_hand(self, int slot, int old, int new) noexcept

    @cython.locals(changed="unsigned long long", f=int, sq=int, g=int, row_white=int, row_black=int)
    cdef void _list_gates(self, unsigned long long old, unsigned long long new) noexcept

    cdef void _apply_lists(self, int src, int dst) noexcept

    @cython.locals(top=int, squares="int *", base=int, n=int, changed="unsigned long long",
                   low="unsigned long long", sq=int, new=int, old=int, hand=list, slot=int, t=int)
    cpdef push(self, PositionState pos)

    @cython.locals(top=int, base=int, i=int)
    cpdef pop(self)

    @cython.locals(at_src=int, at_dst=int, slot=int, base=int, i=int)
    cdef void _update(self, int src, int dst) noexcept

    @cython.locals(i=int, j=int, feature=int)
    cdef void _cancel(self) noexcept

    cpdef bint adds_hand_made(self)

    @cython.locals(h="Py_ssize_t", values="short *", us="Py_ssize_t", them="Py_ssize_t", total="long long", top=int,
                   src=int, qa=int,
                   i="Py_ssize_t", v="long long",
                   score="long long")
    cpdef int evaluate(self, PositionState pos) except? -32767

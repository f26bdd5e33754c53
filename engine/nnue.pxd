# Cython declarations for the compiled build (setup.py, SCHESS_ENGINE_COMPILE=1); the .py file stays plain Python.
# The array sizes follow nnue.py: N_FEATURES * MAX_HIDDEN = 1168 * 256, STACK_PLIES = 192, 2 * _CHANGES_MAX = 416.
cimport cython

from engine.movecodes cimport PositionState
from engine.position cimport MoveObserver

cdef short _W1[299008]
cdef short _B1[256]
cdef short _W2[512]
cdef int _CHANGES_MAX
cdef int _B2, _HIDDEN, _ADDED, _W2_FITS_INT, _QA, _DIV, _SCALE, _LIMIT, _SLOT, _MAXH, _STACK, _HAND_BASE, _HAND_STEPS, _GATE_BASE
cdef int _PIECE_WHITE[1088]
cdef int _PIECE_BLACK[1088]


cdef class Accumulator(MoveObserver):
    cdef int values[98304]
    cdef int board[12288]
    cdef int hands[3072]
    cdef unsigned long long gate_masks[192]
    cdef char filled[192]
    cdef int added[416]
    cdef int removed[416]
    cdef public int top
    cdef public int overflow
    cdef public bint stale

    @cython.locals(h=int, i=int)
    cpdef refresh(self, PositionState pos)

    @cython.locals(top=int)
    cpdef push(self, PositionState pos)

    cpdef pop(self)

    cpdef bint adds_hand_made(self)

    @cython.locals(added="int *", removed="int *", n_add=int, n_sub=int, squares="int *", old_board=int,
                   new_board=int, sq=int, new=int, old=int, hand=list, slot=int, t=int, row_white=int,
                   row_black=int, k=int, gates="unsigned long long", changed="unsigned long long", f=int)
    cdef _advance(self, PositionState pos, int src, int dst)

    @cython.locals(h="Py_ssize_t", values="int *", us="Py_ssize_t", them="Py_ssize_t", total="long long", top=int,
                   src=int, qa=int, c=int, half_us=int, half_them=int,
                   i="Py_ssize_t", v="long long",
                   score="long long")
    cpdef int evaluate(self, PositionState pos) except? -32767


# Indexes as Py_ssize_t: with -fwrapv (Python's own CFLAGS) a C int index blocks gcc's vectorizer.
@cython.locals(j=int, k=int, plus="Py_ssize_t", minus="Py_ssize_t", i="Py_ssize_t")
cdef void _apply(int *values, Py_ssize_t a, Py_ssize_t b, int *added, int n_add, int *removed, int n_sub,
                 int perspective, Py_ssize_t h) noexcept

@cython.locals(row="Py_ssize_t", i="Py_ssize_t")
cdef void _add_row(int *values, Py_ssize_t at, Py_ssize_t feature, Py_ssize_t h) noexcept

@cython.locals(row="Py_ssize_t", i="Py_ssize_t")
cdef void _sub_row(int *values, Py_ssize_t at, Py_ssize_t feature, Py_ssize_t h) noexcept

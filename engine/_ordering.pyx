# cython: language_level=3, boundscheck=False, wraparound=False
"""The compiled build's version of engine/ordering.py (see its docstrings): the same keys and order, computed
into C arrays and insertion-sorted there (move lists are tens of moves long). Each key carries the index of its
move, so the result holds the move list's own int objects instead of new ones. Only compiled builds have this
module; the compiled search and captures call it through engine/_ordering.pxd."""

from cpython.list cimport PyList_GET_ITEM, PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF
from libc.stdlib cimport free, malloc

from engine.attacks cimport see
from engine.movecodes cimport from_to, move_from, move_kind, move_piece, move_to
from engine.position cimport Position

from engine import ordering as _keys  # the keys of the rules: one table, engine/ordering.py
from engine.movecodes import DROP as _DROP_PY
from engine.movecodes import EN_PASSANT as _EN_PASSANT_PY
from engine.movecodes import PROMOTION as _PROMOTION_PY

cdef long long HASH_MOVE_KEY = _keys.HASH_MOVE_KEY
cdef long long EN_PASSANT_KEY = _keys.EN_PASSANT_KEY
cdef long long BAD_CAPTURE_DROP = _keys.BAD_CAPTURE_DROP
cdef int SEE_VALUE[17]  # by signed piece code, negative codes wrapped (_signed)
for _piece in range(17):
    SEE_VALUE[_piece] = _keys.SEE_VALUE[_piece]
cdef long long FIRST_KILLER_KEY = _keys.FIRST_KILLER_KEY
cdef long long SECOND_KILLER_KEY = _keys.SECOND_KILLER_KEY
cdef long long COUNTERMOVE_KEY = _keys.COUNTERMOVE_KEY
cdef long long PROMOTION_KEYS[16]
for _piece in range(16):
    PROMOTION_KEYS[_piece] = _keys.PROMOTION_KEYS[_piece]
cdef int EN_PASSANT = _EN_PASSANT_PY
cdef int DROP = _DROP_PY
cdef long long DROP_NEAR_KEY = _keys.DROP_NEAR_KEY
cdef long long DROP_FAR_KEY = _keys.DROP_FAR_KEY
cdef char DROP_NEAR[4096]
for _i in range(4096):
    DROP_NEAR[_i] = _keys.DROP_NEAR[_i]
cdef int PROMOTION = _PROMOTION_PY

cdef enum:
    STACK_KEYS = 256  # keys sorted on the C stack; longer lists get malloc'ed arrays


cdef inline Py_ssize_t _signed(int code) noexcept:
    """A signed piece code as the index of a 17-slot list (negative codes wrap, as Python indexes do)."""
    return code + 17 if code < 0 else code


cdef void _sort_index(long long *keys, Py_ssize_t *index, Py_ssize_t n) noexcept:
    """Insertion sort of keys[0:n], highest first, moving index[] along."""
    cdef Py_ssize_t i, j, ix
    cdef long long k
    for i in range(1, n):
        k = keys[i]
        ix = index[i]
        j = i - 1
        while j >= 0 and keys[j] < k:
            keys[j + 1] = keys[j]
            index[j + 1] = index[j]
            j -= 1
        keys[j + 1] = k
        index[j + 1] = ix


cdef list _reordered(list items, Py_ssize_t *index, Py_ssize_t n):
    """A new list of items[index[0]], ..., items[index[n - 1]], made at its final size (a comprehension would
    grow it, reallocating it several times over for tens of moves)."""
    cdef list out = PyList_New(n)
    cdef object item
    cdef Py_ssize_t i
    for i in range(n):
        item = <object> PyList_GET_ITEM(items, index[i])
        Py_INCREF(item)  # PyList_SET_ITEM takes over one reference
        PyList_SET_ITEM(out, i, item)
    return out


cdef class _Buffers:
    """Two C arrays of n entries: on the stack of the caller when n is small, else malloc'ed here."""
    cdef long long *keys
    cdef Py_ssize_t *index

    def __cinit__(self, Py_ssize_t n):
        self.keys = <long long *> malloc(n * sizeof(long long))
        self.index = <Py_ssize_t *> malloc(n * sizeof(Py_ssize_t))
        if self.keys == NULL or self.index == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.keys)
        free(self.index)


cpdef int piece_to(Position pos, int m) noexcept:
    """The piece-to index of the move m in pos (engine/ordering.py, piece_to)."""
    if move_kind(m) == DROP:
        return (move_piece(m) * pos.side + 8) * 64 + move_to(m)
    return (pos.squares[move_from(m)] + 8) * 64 + move_to(m)


cdef inline long long _key(Position pos, int m, int *squares, int side, list capture_keys, short *history,
                           int killer1, int killer2, int counter, int hash_move, int near, int own, short *cont,
                           int row1, int row2, int row4, bint bad_last, short *caphist):
    """The ordering key of move m (engine/ordering.py, keyed_moves), without its move; ``history`` is the side
    to move's half of the table, ``caphist`` the capture history."""
    cdef int victim, flag, piece, pt, attacker
    cdef long long key
    if m == hash_move:
        return HASH_MOVE_KEY
    victim = squares[move_to(m)]
    flag = move_kind(m)
    piece = move_piece(m)
    if victim * side < 0:
        attacker = squares[move_from(m)]
        key = (<long long> (<list> capture_keys[_signed(victim)])[_signed(attacker)] + piece
               + caphist[((attacker + 8) * 64 + move_to(m)) * 8 - victim * side - 1])
        if bad_last and SEE_VALUE[_signed(attacker)] > SEE_VALUE[_signed(victim)] and see(pos, m) < 0:
            key -= BAD_CAPTURE_DROP
        return key
    if flag == PROMOTION:
        return PROMOTION_KEYS[piece]
    if flag == EN_PASSANT:
        return EN_PASSANT_KEY
    if m == killer1:
        return FIRST_KILLER_KEY
    if m == killer2:
        return SECOND_KILLER_KEY
    if m == counter:
        return COUNTERMOVE_KEY
    if flag == DROP:
        pt = (piece * side + 8) * 64 + move_to(m)
    else:
        pt = (squares[move_from(m)] + 8) * 64 + move_to(m)
    key = (<long long> history[from_to(m)] + 2 * (<long long> cont[row1 + pt] + cont[row2 + pt] + cont[row4 + pt])
           + piece)
    if flag == DROP:
        if DROP_NEAR[near + move_to(m)]:
            key += DROP_NEAR_KEY
        elif not DROP_NEAR[own + move_to(m)]:
            key -= DROP_FAR_KEY
    return key


cpdef list order_moves(list moves, Position pos, list capture_keys, short[::1] history, int killer1, int killer2,
                       int counter, int hash_move, short[::1] cont, int row1, int row2, int row4, bint bad_last,
                       short[::1] capture_history):
    cdef Py_ssize_t n = len(moves)
    cdef long long stack_keys[STACK_KEYS]
    cdef Py_ssize_t stack_index[STACK_KEYS]
    cdef long long *keys = stack_keys
    cdef Py_ssize_t *index = stack_index
    cdef _Buffers buffers
    cdef Py_ssize_t i
    cdef int m
    cdef int *squares = pos.squares
    cdef int side = pos.side
    cdef int near = pos.king_sq[1 if side == 1 else 0] * 64  # the enemy king's row of DROP_NEAR
    cdef int own = pos.king_sq[0 if side == 1 else 1] * 64  # our king's row
    cdef short *hist = &history[0 if side == 1 else 4096]  # the side to move's half
    cdef short *cont_p = &cont[0]
    cdef short *caphist_p = &capture_history[0]
    if n > STACK_KEYS:
        buffers = _Buffers(n)
        keys = buffers.keys
        index = buffers.index
    for i in range(n):
        m = moves[i]
        keys[i] = _key(pos, m, squares, side, capture_keys, hist, killer1, killer2, counter, hash_move, near,
                       own, cont_p, row1, row2, row4, bad_last, caphist_p) << 20 | m
        index[i] = i
    _sort_index(keys, index, n)
    return _reordered(moves, index, n)


cpdef Py_ssize_t order_into(list moves, Position pos, list capture_keys, short[::1] history, int killer1,
                            int killer2, int counter, int hash_move, short[::1] cont, int row1, int row2, int row4,
                            long long[::1] out, Py_ssize_t start, bint bad_last,
                            short[::1] capture_history) except -1:
    """The keyed moves written to out[start:], highest first (engine/ordering.py, order_into); how many."""
    cdef Py_ssize_t n = len(moves)
    cdef Py_ssize_t i
    cdef int m
    cdef int *squares = pos.squares
    cdef int side = pos.side
    cdef int near = pos.king_sq[1 if side == 1 else 0] * 64  # the enemy king's row of DROP_NEAR
    cdef int own = pos.king_sq[0 if side == 1 else 1] * 64  # our king's row
    cdef short *hist = &history[0 if side == 1 else 4096]  # the side to move's half
    cdef short *cont_p = &cont[0]
    cdef short *caphist_p = &capture_history[0]
    cdef long long *base
    if start < 0 or start + n > out.shape[0]:
        raise IndexError(f"move buffer full: {n} moves at {start} of {out.shape[0]}")
    base = &out[start]
    for i in range(n):
        m = moves[i]
        base[i] = _key(pos, m, squares, side, capture_keys, hist, killer1, killer2, counter, hash_move, near,
                       own, cont_p, row1, row2, row4, bad_last, caphist_p) << 20 | m
    sort_desc_range(out, start, n)
    return n


cpdef void sort_desc_range(long long[::1] keys, Py_ssize_t start, Py_ssize_t n) noexcept:
    """Insertion sort of keys[start:start + n], highest first, in place (the buffer's own words)."""
    cdef long long *base = &keys[start]
    cdef Py_ssize_t i, j
    cdef long long k
    for i in range(1, n):
        k = base[i]
        j = i - 1
        while j >= 0 and base[j] < k:
            base[j + 1] = base[j]
            j -= 1
        base[j + 1] = k

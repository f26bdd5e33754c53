# cython: language_level=3, boundscheck=False, wraparound=False
"""The compiled half of engine/keysort.py (its docstring says what these do): the same functions, with the
keys copied into C arrays and insertion-sorted there (move lists are short: tens of moves), carrying the index
of each key so that the result reuses the list's int objects."""

from libc.stdlib cimport free, malloc

cdef enum:
    STACK_KEYS = 256  # keys sorted on the C stack; longer lists get malloc'ed arrays


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


cdef list _by_key(list items, list keyed):
    cdef Py_ssize_t n = len(keyed)
    cdef long long stack_keys[STACK_KEYS]
    cdef Py_ssize_t stack_index[STACK_KEYS]
    cdef long long *keys = stack_keys
    cdef Py_ssize_t *index = stack_index
    cdef Py_ssize_t i
    cdef list out
    if n > STACK_KEYS:
        keys = <long long *> malloc(n * sizeof(long long))
        index = <Py_ssize_t *> malloc(n * sizeof(Py_ssize_t))
        if keys == NULL or index == NULL:
            free(keys)
            free(index)
            raise MemoryError()
    try:
        for i in range(n):
            keys[i] = keyed[i]
            index[i] = i
        _sort_index(keys, index, n)
        out = [items[index[i]] for i in range(n)]
    finally:
        if n > STACK_KEYS:
            free(keys)
            free(index)
    return out


cpdef list sorted_desc(list keyed):
    return _by_key(keyed, keyed)


cpdef list codes_by_key(list moves, list keyed):
    if len(moves) != len(keyed):
        raise ValueError("codes_by_key: one key per move")
    return _by_key(moves, keyed)

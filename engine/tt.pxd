# Cython declarations for the compiled build (setup.py, SCHESS_ENGINE_COMPILE=1); the .py file stays plain Python.
cimport cython

cdef list GATE_KEYS_WHITE, GATE_KEYS_BLACK
cdef int _EXACT, _OFFSET, _SCORE_SHIFT, _BOUND_SHIFT, _DEPTH_SHIFT, _DEPTH_MAX, _AGE_SHIFT, _AGE_MASK
cdef long long _MOVE_MASK


@cython.locals(white="long long", black="long long")
cpdef long long tt_key(long long position_hash, unsigned long long gates)

cpdef long long pack(long long depth, long long bound, long long score, long long move, long long age)


cdef class TranspositionTable:
    cdef public object buffer
    cdef long long[::1] words
    cdef public object shared
    cdef public long long slots
    cdef public long long bucket_mask
    cdef public int age
    cdef public int megabytes

    @cython.locals(i="long long", end="long long", data="long long")
    cpdef long long probe(self, long long key)

    @cython.locals(age=int, i="long long", end="long long", target="long long", worst=int, data="long long",
                   value=int)
    cpdef store(self, long long key, int depth, int bound, int score, int move)

# Cython declarations for the compiled build (setup.py, SCHESS_ENGINE_COMPILE=1); the .py file stays plain Python.
cimport cython

cdef list GATE_KEYS_WHITE, GATE_KEYS_BLACK


@cython.locals(white="long long", black="long long")
cpdef long long tt_key(long long position_hash, unsigned long long gates)


cdef class TranspositionTable:
    cdef public object table
    cdef public object shared
    cdef public long capacity

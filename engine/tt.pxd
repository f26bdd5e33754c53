# Cython declarations for the compiled build (engine/_build.py); the .py file stays plain Python.
cpdef long long tt_key(long long position_hash, object gates)


cdef class TranspositionTable:
    cdef public dict table
    cdef public long capacity

# Cython declarations for the compiled build (engine/_build.py); the .py file stays plain Python.
from engine.movegen cimport MoveGenerator


cdef class FenCodec(MoveGenerator):
    pass

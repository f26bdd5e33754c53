# Cython declarations for the compiled build (setup.py, SCHESS_ENGINE_COMPILE=1); the .py file stays plain Python.
from engine.state cimport mask_hash
from engine.movegen cimport MoveGenerator


cdef class FenCodec(MoveGenerator):
    pass

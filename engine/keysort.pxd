# Cython declarations for the compiled build (setup.py, SCHESS_ENGINE_COMPILE=1): keysort.pyx implements them.
cpdef list sorted_desc(list keyed)

cpdef list codes_by_key(list moves, list keyed)

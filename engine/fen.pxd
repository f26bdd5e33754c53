# Cython declarations for the compiled build (setup.py, SCHESS_ENGINE_COMPILE=1); the .py file stays plain Python.
# The position is typed (its fields are read as C fields); the other arguments and the locals stay Python objects,
# so square masks such as 1 << sq stay Python ints. (A cpdef function holds no generator expression: Cython
# cannot compile a closure in one.)
from engine.movegen cimport MoveGenerator
from engine.state cimport mask_hash


cpdef read_fen(MoveGenerator pos, fen)

cpdef _parse_castling(MoveGenerator pos, fen, text)

cpdef _add_castling_right(MoveGenerator pos, rook_sq)

cpdef zobrist_hash(MoveGenerator pos)

cpdef write_fen(MoveGenerator pos)

cpdef _castling_fen(MoveGenerator pos)

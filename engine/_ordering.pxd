# The compiled half of engine/ordering.py (engine/_ordering.pyx); the compiled search and attacks cimport these.
from engine.position cimport Position

cpdef list order_moves(list moves, Position pos, list capture_keys, list history, int killer1, int killer2,
                       int counter, int hash_move)

cpdef list sorted_desc(list keyed)

# The compiled half of engine/ordering.py (engine/_ordering.pyx); the compiled search and attacks cimport these.
from engine.position cimport Position

cpdef int piece_to(Position pos, int m) noexcept

cpdef list order_moves(list moves, Position pos, list capture_keys, short[::1] history, int killer1, int killer2,
                       int counter, int hash_move, short[::1] cont, int row1, int row2, int row4,
                       bint bad_last, short[::1] capture_history)

cpdef Py_ssize_t order_into(list moves, Position pos, list capture_keys, short[::1] history, int killer1,
                            int killer2, int counter, int hash_move, short[::1] cont, int row1, int row2, int row4,
                            long long[::1] out, Py_ssize_t start, bint bad_last,
                            short[::1] capture_history) except -1

cpdef void sort_desc_range(long long[::1] keys, Py_ssize_t start, Py_ssize_t n) noexcept

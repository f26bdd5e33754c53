# The move word for the compiled build (setup.py, SCHESS_ENGINE_COMPILE=1): engine/movecodes.py's functions, the
# same bodies, as cpdef inline functions that the compiled modules cimport (the C of the shifts written out, while
# the module's Python name stays engine/movecodes.py's function). engine/movecodes.py itself is not compiled: a
# module cannot define what its own .pxd already defines. tests/engine/test_movecodes.py compares the two.

cdef enum:
    NORMAL = 0
    DOUBLE_PUSH = 1
    PROMOTION = 5
    MOVE_MASK = 0xFFFFF


cpdef inline int encode(int frm, int to, int piece=0, int flag=NORMAL) noexcept:
    return frm | to << 6 | piece << 12 | flag << 16


cpdef inline int move_from(int m) noexcept:
    return m & 63


cpdef inline int move_to(int m) noexcept:
    return m >> 6 & 63


cpdef inline int move_piece(int m) noexcept:
    return m >> 12 & 15


cpdef inline int move_kind(int m) noexcept:
    return m >> 16


cpdef inline int from_to(int m) noexcept:
    return m & 4095


cpdef inline int gated_piece(int m) noexcept:
    return move_piece(m) if move_kind(m) < PROMOTION else 0


cpdef inline bint is_plain(int m) noexcept:
    return move_kind(m) == NORMAL and not move_piece(m)


cpdef inline bint is_simple_move(int m) noexcept:
    return move_kind(m) <= DOUBLE_PUSH and not move_piece(m)


cpdef inline int keyed_move(long long word) noexcept:
    return word & MOVE_MASK

# Cython declarations for the compiled build (setup.py, SCHESS_ENGINE_COMPILE=1); the .py file stays plain Python.
cimport cython

from engine.movecodes cimport encode, move_from, move_kind, move_to
from engine.state cimport PositionState

# Constants the module imports or defines for itself alone, as C values (not importable from the compiled module).
cdef int CASTLE, CASTLE_ROOK_GATE, DOUBLE_PUSH, DROP, EN_PASSANT, NORMAL, PROMOTION
cdef int BISHOP, ELEPHANT, HAWK, KING, KNIGHT, PAWN, QUEEN, ROOK
cdef tuple BETWEEN, PAWN_ATTACKERS_BLACK, PAWN_ATTACKERS_WHITE
cdef tuple SQUARE_BITS, GATE_TYPES
cdef tuple _RANK_BITS, _RANK_BITS_8, PLAIN_MOVES, GATED_MOVES, DROP_MOVES
cdef list DOUBLE_PUSHES
cdef dict _PROMOTIONS


# The flat geometry and flag tables as C arrays (copied from the lists at import).
cdef int _RAY_SQUARES[4096]
cdef int _RAY_LENGTH[512]
cdef int _LEAP_SQUARES[2048]
cdef int _LEAP_COUNT[256]
cdef int _ORTHO_AT[34]
cdef int _DIAG_AT[34]
cdef int _LEAP_AT[34]
cdef int _KNIGHT_LEAPER[9]
cdef int _RAYS_FROM[9]
cdef int _RAYS_TO[9]
cdef int _PROMOTION_ORDER[6]
cdef unsigned long long _LINE_TO[4096]
cdef unsigned long long _ONE, _ALL_SQUARES


cdef class MoveGenerator(PositionState):
    @cython.locals(squares="int *", flags=int, leaps=int, i=int, d=int, k=int, q=int, pawn=int, king=int)
    cpdef bint is_attacked(self, int sq, int by_side)

    cpdef bint in_check(self)

    @cython.locals(squares="int *", side=int, us=int, ksq=int, moves=list, checkers=int, blocker=int, t=int, q=int,
                   flags=int, d=int, i=int, k=int,
                   hand=list, up=int, start_rank=int, promo_rank=int, frm=int, piece=int, p=int, rank=int,
                   one=int, m=int, g=int, king=int, start=int, promotions=int, orthogonal=bint, gate_types=int,
                   captures_at=int, j=int, end=int,
                   ortho_enemy=list, diag_enemy=list, leap_enemy=list, row=list,
                   gates="unsigned long long", gate_here=bint, check_mask="unsigned long long",
                   pinned="unsigned long long", line="unsigned long long", to=int,
                   pin_line="unsigned long long *", first_gate=int)
    cpdef list generate_legal(self)

    @cython.locals(squares="int *", king=int, start=int, end=int, row=list, t=int, i=int, m=int, g=int)
    cpdef _king_moves(self, int side, int ksq, int checkers, unsigned long long gates, int gate_types, list moves)

    @cython.locals(hand=list, kinds=int, p=int, squares="int *", row=list, first=int, last=int, sq=int)
    cpdef _drop_moves(self, int side, unsigned long long target, list moves)

    @cython.locals(ep=int, squares="int *", victim=int, frm=int, legal=bint)
    cpdef _en_passant_moves(self, int side, int ksq, list moves)

    @cython.locals(squares="int *", rook_sq=int, king_to=int, rook_to=int, sq=int, blocked=bint, king=int, rook=int,
                   safe=bint, base=int, g=int)
    cpdef _castling_moves(self, int side, int ksq, unsigned long long gates, int gate_types, list moves)

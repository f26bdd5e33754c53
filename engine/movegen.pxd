# Cython declarations for the compiled build (setup.py, SCHESS_ENGINE_COMPILE=1); the .py file stays plain Python.
cimport cython

from engine.movecodes cimport PositionState

# Constants the module imports or defines for itself alone, as C values (not importable from the compiled module).
cdef int CASTLE, CASTLE_ROOK_GATE, DOUBLE_PUSH, EN_PASSANT, NORMAL, PROMOTION
cdef int BISHOP, ELEPHANT, HAWK, KING, KNIGHT, PAWN, QUEEN, ROOK
cdef tuple _ORTHO_ENEMY, _DIAG_ENEMY, _LEAP_ENEMY, _PAWN_ATTACK_FROM, _LEAPS_BY_TYPE, _RAYS_BY_TYPE
cdef tuple BETWEEN, BISHOP_RAYS, KING_TARGETS, KNIGHT_TARGETS, PAWN_ATTACKERS_BLACK, PAWN_ATTACKERS_WHITE
cdef tuple PAWN_CAPTURES_BLACK, PAWN_CAPTURES_WHITE, QUEEN_RAYS, ROOK_RAYS, SQUARE_BITS, TAGGED_RAYS, GATE_TYPES
cdef tuple _RANK_BITS, _RANK_BITS_8, PLAIN_MOVES, GATED_MOVES
cdef list DOUBLE_PUSHES
cdef dict _PROMOTIONS


cdef class MoveGenerator(PositionState):
    @cython.locals(squares="int *", enemy_index=int, t=int, q=int, pawn=int, king=int, leap=list, ortho=list, diag=list)
    cpdef bint is_attacked(self, int sq, int by_side)

    cpdef bint in_check(self)

    @cython.locals(squares="int *", side=int, us=int, ksq=int, moves=list, checkers=int, blocker=int, t=int, q=int,
                   hand=list, up=int, start_rank=int, promo_rank=int, frm=int, piece=int, p=int, rank=int,
                   one=int, m=int, g=int, king=int, start=int, promo=int, orthogonal=bint,
                   ortho_enemy=list, diag_enemy=list, leap_enemy=list, row=list,
                   gates="unsigned long long", gate_here=bint)
    cpdef list generate_legal(self)

    @cython.locals(ep=int, squares="int *", victim=int, frm=int, legal=bint)
    cpdef _en_passant_moves(self, int side, int ksq, object append)

    @cython.locals(squares="int *", rook_sq=int, king_to=int, rook_to=int, sq=int, blocked=bint, king=int, rook=int,
                   safe=bint, base=int, g=int)
    cpdef _castling_moves(self, int side, int ksq, unsigned long long gates, object gate_types, object append)

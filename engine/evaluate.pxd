# Cython declarations for the compiled build (setup.py, SCHESS_ENGINE_COMPILE=1); the .py file stays plain Python.
cimport cython

from engine.position cimport Position

# Constants the module imports or defines for itself alone, as C values (not importable from the compiled module).
cdef int CASTLE, CASTLE_ROOK_GATE, EN_PASSANT, PROMOTION, ELEPHANT, HAWK, BISHOP, KNIGHT, PAWN, QUEEN, ROOK
cdef tuple BISHOP_RAYS, KING_TARGETS, KNIGHT_TARGETS, QUEEN_RAYS, ROOK_RAYS, _LEAPS, _RAYS, _WEIGHTED
cdef int _KING_ATTACK, _PASSED, _N_ACTIVITY
cdef bint _ATTACK, _PAWNS, _MOBILITY_ON
cdef list _ACTIVE


cdef int _MG[1088]
cdef int _EG[1088]
cdef int _PHASE_AT[17]
cdef int _MOBILITY_MG[9]
cdef int _MOBILITY_EG[9]
cdef int _MOBILE[9]
cdef int _M_RAY_SQUARES[4096]
cdef int _M_RAY_LENGTH[512]
cdef int _M_LEAP_SQUARES[2048]
cdef int _M_LEAP_COUNT[256]
cdef int _M_KNIGHT_LEAPER[9]
cdef int _M_RAYS_FROM[9]
cdef int _M_RAYS_TO[9]


@cython.locals(squares="int *", frm=int, to=int, flag=int, piece=int, p=int, c=int, g=int, r=int, captured=int,
               dmg=int, deg=int, dphase=int, gate=int, new=int, victim=int, king_to=int, rook_to=int)
cpdef (int, int, int) move_delta(Position pos, int code)

@cython.locals(key="long long", white_hawks="long long", white_elephants="long long", black_hawks="long long",
               black_elephants="long long")
cpdef int hand_score(list hand, unsigned long long gates) except? -32767

@cython.locals(f=int, r=int, score=int, df=int, ff=int, near=int, far=int)
cdef int _shield(int *squares, int king, int sign)

@cython.locals(white_king=int, black_king=int)
cpdef int king_safety(Position pos)

@cython.locals(counts=list, squares="int *", white_zone=list, black_zone=list, zone=list, white_pawns=list,
               black_pawns=list, sq=int, piece=int, t=int, sign=int, mobility=int, attack=int, to=int, q=int,
               leaps=tuple, rays=tuple, ray=tuple, black_top=list, white_low=list, f=int, r=int)
cpdef list activity(Position pos, bint walk=*, bint pawns=*)

@cython.locals(squares="int *", mg=int, eg=int, sq=int, piece=int, t=int, sign=int, n=int, to=int, q=int, d=int)
cpdef (int, int) mobility(Position pos)

@cython.locals(dmg=int, deg=int, p=int, score=int, counts=list, weights_mg=tuple, weights_eg=tuple, i=int, c=int, phase_max=int,
               tempo=int)
cpdef int evaluate(Position pos, int mg, int eg, int phase)

# Cython declarations for the compiled build (setup.py, SCHESS_ENGINE_COMPILE=1); the .py file stays plain Python.
cimport cython

from engine cimport _bitops as bits
from engine.movecodes cimport move_from, move_kind, move_piece, move_to
from engine.nnue cimport Accumulator
from engine.position cimport Position

# Constants the module imports or defines for itself alone, as C values (not importable from the compiled module).
cdef int CASTLE, CASTLE_ROOK_GATE, DROP, EN_PASSANT, PLACE, PROMOTION, _PLACEMENT, ELEPHANT, HAWK, BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK
cdef tuple BISHOP_RAYS, KING_TARGETS, KNIGHT_TARGETS, QUEEN_RAYS, ROOK_RAYS, _LEAPS, _RAYS, _PAWN_CAPTURE_LEAPS
cdef tuple PAWN_CAPTURES_BLACK, PAWN_CAPTURES_WHITE
cdef int _KING_ATTACK, _PASSED, _PAWN_THREAT, _PIECE_THREAT, _OPEN_FILE, _HALF_OPEN_FILE, _N_ACTIVITY
cdef bint _ATTACK_ON, _PASSED_ON, _PAWN_THREAT_ON, _PIECE_THREAT_ON, _FILES_ON, _WALK_ON, _POSITIONAL_ON
cdef list _ACTIVE
cdef int _TEMPO, _PHASE_MAX, _HAND_HAWK, _HAND_ELEPHANT, _SHIELD_NEAR, _SHIELD_FAR, _OPEN_KING_FILE, _CENTRAL_KING
cdef int _POPCOUNT8[256]
cdef int _DROP_HAND_VALUE[9]
cdef unsigned long long _ALL_GATES
cdef int _SHORTAGE_AT[9]


cdef int _MG[1088]
cdef int _EG[1088]
cdef int _PHASE_AT[17]
cdef int _W_MG[62]
cdef int _W_EG[62]
cdef int _THREAT_RANK[9]
cdef unsigned long long _ZONE_MASK[64]
cdef unsigned long long _SQ_BIT[64]
cdef unsigned long long _RAY_MASK[512]
cdef int _RAY_UP[8]
cdef unsigned long long _KNIGHT_MASK[64]
cdef unsigned long long _FILE_MASK[8]
cdef unsigned long long _NOT_FILE_A, _NOT_FILE_H
cdef unsigned long long _PASSED_WHITE[64]
cdef unsigned long long _PASSED_BLACK[64]
cdef int _M_RAY_SQUARES[4096]
cdef int _M_RAY_LENGTH[512]
cdef int _M_LEAP_SQUARES[2048]
cdef int _M_LEAP_COUNT[256]
cdef int _M_KNIGHT_LEAPER[9]
cdef int _M_RAYS_FROM[9]
cdef int _M_RAYS_TO[9]


@cython.locals(squares="int *", frm=int, to=int, flag=int, piece=int, p=int, c=int, g=int, r=int, captured=int,
               dmg=int, deg=int, dphase=int, gate=int, new=int, victim=int, king_to=int, rook_to=int, d=int)
cpdef (int, int, int) move_delta(Position pos, int code)

cdef int _captured_phase(Position pos, int captured, int to)

cdef int _DROP_BOARD_VALUE[9]
cdef int _DROP_TEMPO

@cython.locals(hand=list, value=int, t=int, squares="int *", white="int[64]", black="int[64]", sq=int, p=int)
cpdef int drop_score(Position pos)

cdef int _KD_ATTACK, _KD_WEAK, _KD_DROP_SQUARE, _KD_KNIGHT_CHECK, _KD_SLIDER_CHECK, _KD_HAND_PIECE, _KD_HAND_QUEEN
cdef int _KD_SHELTER, _KD_DIVISOR, _KD_CAP
cdef int _KNIGHT_LIKE_AT[17]
cdef int _ORTHO_AT[17]
cdef int _DIAG_AT[17]

@cython.locals(sq=int, p=int, t=int, k=int, i=int, d=int, z=int, ortho=int, diag=int, counts="int *")
cdef void _attack_counts(int *squares, int *white, int *black) noexcept

@cython.locals(df=int, dr=int)
cdef int _guards(int *own, int king, int z) noexcept

@cython.locals(pieces=int, units=int, droppable=int, i=int, z=int, a=int, ortho=int, diag=int, d=int,
               r=int, f=int, ff=int, score=int)
cdef int _king_danger(int *squares, int king, int side, int pawns, int knights, int bishops, int rooks,
                      int queens, int hawks, int elephants, int *attacks, int *own) noexcept

cpdef int hand_score(list hand, unsigned long long gates) except? -32767

@cython.locals(count=int, usable=int, take=int, value=int, spare=int)
cdef int _hand_value(int hawks, int elephants, int gate_count) noexcept

@cython.locals(f=int, r=int, score=int, ff=int, near=int, far=int)
cdef int _shield(int *squares, int king, int sign)

@cython.locals(white_king=int, black_king=int)
cpdef int king_safety(Position pos)

@cython.locals(to=int)
cdef (int, int) _pawn_threats(int *squares, unsigned long long hits, int mg, int eg, int sign) noexcept

@cython.locals(squares="int *", mg=int, eg=int, sq=int, piece=int, t=int, sign=int, n=int, attack=int, to=int, q=int,
               d=int, rank=int, white_zone="unsigned long long", black_zone="unsigned long long",
               zone="unsigned long long", white="unsigned long long", black="unsigned long long",
               white_pawns="unsigned long long", black_pawns="unsigned long long", pieces="unsigned long long",
               occupied="unsigned long long", targets="unsigned long long", hits="unsigned long long",
               rest="unsigned long long", own="unsigned long long", own_pawns="unsigned long long",
               enemy_pawns="unsigned long long", attacked="unsigned long long", ray="unsigned long long",
               blockers="unsigned long long")
cpdef (int, int) positional(Position pos)

@cython.locals(dmg=int, deg=int, p=int, score=int, phase_max=int, tempo=int, accumulator=Accumulator, net=int)
cpdef int evaluate(Position pos, int mg, int eg, int phase)

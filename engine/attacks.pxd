# Cython declarations for the compiled build (setup.py, SCHESS_ENGINE_COMPILE=1); the .py file stays plain Python.
cimport cython

from engine.movecodes cimport encode, move_from, move_kind, move_piece, move_to
from engine.position cimport Position

# Constants the module imports or defines for itself alone, as C values (not importable from the compiled module).
cdef int BISHOP, ELEPHANT, HAWK, KING, KNIGHT, PAWN, QUEEN, ROOK, DROP, EN_PASSANT, PROMOTION
cdef list _ALIGNED, _ORTHO_SLIDER, _DIAG_SLIDER, _LEAPER
cdef tuple QUEEN_RAYS
cdef tuple ORDER_VALUE


@cython.locals(squares="int *", side=int, frm=int, to=int, piece=int, enemy_king=int, t=int, q=int, k=int, i=int,
               d=int, drop=bint)
cpdef bint gives_check_quiet(Position pos, int m)

cdef int _ORTHO_SLIDER_AT[17]
cdef int _DIAG_SLIDER_AT[17]
cdef int _KNIGHT_LIKE_AT[17]
cdef int _SEE_VALUE_AT[17]
cdef int _MVV_AT[17]
cdef int _ATTACKER_RANK_AT[17]
cdef int _ALIGNED_AT[4096]
cdef int _RAY_SQUARES[4096]
cdef int _RAY_LENGTH[512]
cdef int _LEAP_SQUARES[2048]
cdef int _LEAP_COUNT[256]
cdef int _KNIGHT_LEAPER[9]
cdef int _RAYS_FROM[9]
cdef int _RAYS_TO[9]
cdef int _DIRECTION_TO[4096]
cdef int _CAPTURES_MAX


@cython.locals(best_sq=int, best_value=int, k=int, i=int, d=int, t=int, q=int, v=int, king=int)
cdef int _least_attacker(int *squares, int sq, int side)

@cython.locals(squares="int *", frm=int, to=int, piece=int, victim=int, gains="int[64]", emptied="int[64]",
               pieces="int[64]", on_square=int, side=int, sq=int, q=int, n=int, i=int, drop=bint)
cpdef int see(Position pos, int m)

@cython.locals(squares="int *", side=int, us=int, ksq=int, aligned=int, gate_types=int, hand=list, frm=int, p=int,
               targets="int[16]", count=int, one=int, f=int, promo=bint, t=int, q=int, rank=int, key="long long",
               victim_value=int, g=int, ep=int, victim=int, legal=bint, piece=int, gates="unsigned long long",
               gated=bint, d=int, n=int, end=int, i=int, k=int, first_gate=int)
cpdef int captures_into(Position pos, long long[::1] out, int start) except -1

cpdef list captures(Position pos)

@cython.locals(squares="int *", piece=int, captured=int, safe=bint)
cpdef bint _legal_after(Position pos, int frm, int to, int ksq, int side)

@cython.locals(squares="int *", piece=int, captured=int, safe=bint)
cpdef bint _king_safe_after(Position pos, int frm, int to, int side)

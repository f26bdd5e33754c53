# Cython declarations for the compiled build (engine/_build.py); the .py file stays plain Python.
cimport cython

from engine.movecodes cimport PositionState


cdef class MoveGenerator(PositionState):
    @cython.locals(squares=list, enemy_index=int, t=int, q=int, pawn=int, king=int)
    cpdef bint is_attacked(self, int sq, int by_side)

    cpdef bint in_check(self)

    @cython.locals(squares=list, side=int, us=int, ksq=int, moves=list, checkers=int, blocker=int, t=int, q=int,
                   hand=list, up=int, start_rank=int, promo_rank=int, frm=int, piece=int, p=int, rank=int,
                   one=int, m=int, g=int, king=int, start=int, promo=int, orthogonal=bint)
    cpdef list generate_legal(self)

    @cython.locals(ep=int, squares=list, victim=int, frm=int, legal=bint)
    cpdef _en_passant_moves(self, int side, int ksq, object append)

    @cython.locals(squares=list, rook_sq=int, king_to=int, rook_to=int, sq=int, blocked=bint, king=int, rook=int,
                   safe=bint, base=int, g=int)
    cpdef _castling_moves(self, int side, int ksq, object gates, object gate_types, object append)

# Cython declarations for the compiled build (engine/_build.py); the .py file stays plain Python.
cimport cython

from engine.position cimport Position


@cython.locals(squares=list, frm=int, to=int, flag=int, piece=int, pmg=list, peg=list, captured=int, dmg=int,
               deg=int, dphase=int, gate=int, gated=int, new=int, victim=int, king_to=int, rook_to=int, rook=int,
               gate_sq=int)
cpdef tuple move_delta(Position pos, int code)

@cython.locals(f=int, r=int, score=int, df=int, ff=int, near=int, far=int)
cpdef int _shield(list squares, int king, int sign)

@cython.locals(white_king=int, black_king=int)
cpdef int king_safety(Position pos)

@cython.locals(p=int, score=int)
cpdef int evaluate(Position pos, int mg, int eg, int phase)

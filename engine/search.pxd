# Cython declarations for the compiled build (setup.py, SCHESS_ENGINE_COMPILE=1); the .py file stays plain Python.
cimport cython

from engine._ordering cimport order_into, order_moves, sort_desc_range
from engine.attacks cimport captures_into, gives_check_quiet, see
from engine.evaluate cimport evaluate, move_delta
from engine.position cimport Position
from engine.tt cimport TranspositionTable, tt_key

# Constants the module imports or defines for itself alone, as C values (not importable from the compiled module).
cdef int CASTLE, CASTLE_ROOK_GATE, DROP, EN_PASSANT, PROMOTION, KING, ROOK, EXACT, LOWER, UPPER, SCORE_OFFSET
cdef int INFINITE, MATE, MAX_PLY, MOVES_MAX, HISTORY_MAX, REVERSE_FUTILITY_MARGIN, CAPTURES_MAX
cdef int REVERSE_FUTILITY_DEPTH, FUTILITY_BASE, FUTILITY_MARGIN, FUTILITY_DEPTH, LATE_MOVE_DEPTH
cdef int SEE_QUIET_MARGIN, SEE_QUIET_DEPTH
cdef list LATE_MOVE_COUNT, LATE_MOVE_COUNT_IMPROVING
cdef list _LMR, _CAPTURE_ORDER


@cython.locals(squares="int *", side=int, frm=int, to=int, flag=int, victim=int, gate=int, piece=int)
cpdef bint _plausible(Position pos, int m)

@cython.locals(p=int)
cpdef bint _has_pieces(Position pos, int side)


cdef class SearchControl:
    cdef public TranspositionTable tt
    cdef public long long nodes
    cdef public int seldepth
    cdef public bint stop_flag
    cdef public double start_time
    cdef public object hard_deadline
    cdef public object node_limit
    cdef public object stop_signal

    cpdef check(self)


cdef class MoveOrderer:
    cdef public list history
    cdef public list countermoves
    cdef public list killers

    @cython.locals(killers=list)
    cpdef list order(self, Position pos, list moves, int hash_move, int ply, int counter=*)

    @cython.locals(killers=list)
    cpdef int order_into(self, Position pos, list moves, int hash_move, int ply, int counter, long long[::1] out,
                         int start) except -1

    @cython.locals(killers=list, history=list, bonus=int, i=int, q=int)
    cpdef record_cutoff(self, int m, int ply, int depth, int counter_index, long long[::1] quiets, int start,
                        int count)


cdef class QuiescenceSearch:
    cdef public SearchControl control
    cdef public MoveOrderer orderer
    cdef public Position pos
    cdef public object key_buffer
    cdef long long[::1] keys

    @cython.locals(control=SearchControl, pos=Position, moves=list, best=int, m="long long", dmg=int, deg=int,
                   dph=int, score=int, stand=int, squares="int *", to=int, victim=int, gain=int, check=bint,
                   keys="long long[::1]", start=int, end=int, i=int, gain_factor=int)
    cpdef int qsearch(self, int alpha, int beta, int ply, int mg, int eg, int phase, bint in_check) except? -32767


cdef class AlphaBetaSearch:
    cdef public TranspositionTable tt
    cdef public SearchControl control
    cdef public MoveOrderer orderer
    cdef public QuiescenceSearch quiescence
    cdef public Position pos
    cdef public object move_buffer
    cdef public object quiet_buffer
    cdef long long[::1] moves
    cdef long long[::1] quiets
    cdef public object eval_buffer
    cdef int[::1] evals

    @cython.locals(halfmove=int, key="long long", n=int, low=int, i=int, window=int)
    cpdef bint is_draw(self, Position pos)

    @cython.locals(control=SearchControl, orderer=MoveOrderer, pos=Position, pv_node=bint, tt=TranspositionTable,
                   key="long long", data="long long", hash_move=int, e_depth=int, bound=int, e_score=int, side=int,
                   static_eval=int, reduction=int, score=int, counter_index=int, counter=int, prev=int,
                   prev_to=int, staged=bint, buffer="long long[::1]", quiets="long long[::1]", start=int, end=int, tried=int, moves=list, squares="int *", best=int, best_move=int,
                   original_alpha=int, prunable=bint, prune=bint, bad_capture=bint, extend=bint, improving=bint, lmr_depth=int,
                   evals="int[::1]", late_limit=int, searched=int, lmr_row=list,
                   index=int, m=int, to=int, victim=int, flag=int, quiet=bint, gives_check=bint, dmg=int, deg=int,
                   dph=int, new_depth=int, killers=list, stored=int)
    cpdef int pvs(self, int depth, int alpha, int beta, int ply, int mg, int eg, int phase, bint null_ok,
                  bint in_check) except? -32767


cdef class Searcher:
    cdef public TranspositionTable tt
    cdef public SearchControl control
    cdef public MoveOrderer orderer
    cdef public AlphaBetaSearch tree
    cdef public int skill_level
    cdef public object rng
    cdef public int start_depth
    cdef public object stop_signal
    cdef public int partial_move
    cdef public int partial_score
    cdef public bint partial_exact

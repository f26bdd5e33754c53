# Cython declarations for the compiled build (setup.py, SCHESS_ENGINE_COMPILE=1); the .py file stays plain Python.
cimport cython

from engine._ordering cimport order_into, order_moves, piece_to, sort_desc_range
from engine.attacks cimport captures_into, gives_check_quiet, see
from engine.evaluate cimport evaluate, move_delta
from engine.movecodes cimport (from_to, is_plain, is_simple_move, keyed_move, move_from, move_kind, move_piece,
                              move_to)
from engine.nnue cimport Accumulator
from engine.position cimport Position
from engine.tt cimport TranspositionTable, tt_key

# Constants the module imports or defines for itself alone, as C values (not importable from the compiled module).
cdef int CASTLE, CASTLE_ROOK_GATE, DROP, EN_PASSANT, PROMOTION, KING, ROOK
cdef int EXACT, LOWER, UPPER, SCORE_OFFSET, SCORE_SHIFT, SCORE_MASK, BOUND_SHIFT, BOUND_MASK, DEPTH_SHIFT, DEPTH_MAX
cdef long long MOVE_MASK, DEFERRED, LOST
cdef int EVAL_CACHE_SLOTS
cdef int INFINITE, MATE, _MATE_BOUND, NO_SCORE, MAX_PLY, MOVES_MAX, HISTORY_MAX, REVERSE_FUTILITY_MARGIN, CAPTURES_MAX
cdef int CONT_MAX, PIECE_TO, CONT_NONE
cdef int CORRECTION_BITS, CORRECTION_SIZE, CORRECTION_MAX, CORRECTION_GRAIN, PAWN
cdef unsigned long long _MASK64, _PAWN_MIX_WHITE, _PAWN_MIX_BLACK
cdef int REVERSE_FUTILITY_DEPTH, FUTILITY_BASE, FUTILITY_MARGIN, FUTILITY_DEPTH, LATE_MOVE_DEPTH
cdef int SEE_QUIET_MARGIN, SEE_QUIET_DEPTH, CHECK_SEE_MARGIN
cdef int PROBCUT_DEPTH, PROBCUT_MARGIN, PROBCUT_IMPROVING, PROBCUT_REDUCTION, PROBCUT_TRIES
cdef int NULL_MARGIN, NULL_MARGIN_DEPTH, NULL_MARGIN_IMPROVING, NULL_BASE, NULL_DEPTH
cdef int SINGULAR_DEPTH, SINGULAR_DEPTH_SLACK, SINGULAR_MARGIN
cdef list LATE_MOVE_COUNT, LATE_MOVE_COUNT_IMPROVING
cdef list _CAPTURE_ORDER
cdef int[::1] _LMR


# The fields of what a table slot stored: static C functions, which the C compiler inlines (the same code as
# the shifts written out; Cython warns against "inline" on a declaration). A move's fields are cimported above.
cdef int stored_move(long long data) noexcept
cdef int stored_depth(long long data) noexcept
cdef int stored_bound(long long data) noexcept
cdef int stored_score(long long data) noexcept
cdef int score_to_table(int score, int ply) noexcept
cdef int score_from_table(int score, int ply) noexcept
cdef bint bound_cuts(int bound, int score, int alpha, int beta) noexcept

cdef int bound_of(int best, int original_alpha, int beta) noexcept

@cython.locals(prev=int, prev_to=int)
cdef int _counter_slot(Position pos) except? -2

cdef int _lmr(int depth, int searched) noexcept

cpdef int stat_bonus(int depth) noexcept

cdef int _gravity(int h, int bonus, int limit)

cdef int _late_move_limit(int depth, bint improving) noexcept

@cython.locals(reduction=int)
cdef int _late_move_reduction(int depth, int searched, int new_depth, bint pv_node, bint improving,
                                     bint killer, bint check) noexcept

@cython.locals(squares="int *", side=int, frm=int, to=int, flag=int, victim=int, gate=int, piece=int)
cpdef bint _plausible(Position pos, int m)

@cython.locals(check=bint)
cdef bint _make_checked(Position pos, int m) except -1

@cython.locals(squares="int *", white="unsigned long long", black="unsigned long long", one="unsigned long long",
               sq=int, p=int, mixed="unsigned long long")
cpdef int _pawn_slot(Position pos)

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

    cdef int visit(self, int ply) except -1


cdef class MoveOrderer:
    cdef public object history_table
    cdef public object cont_table
    cdef short[::1] history
    cdef short[::1] cont
    cdef public object capture_table
    cdef short[::1] capture_history
    cdef public list countermoves
    cdef public list killers

    @cython.locals(history="short[::1]", i=int)
    cpdef new_search(self)

    @cython.locals(killers=list)
    cpdef list order(self, Position pos, list moves, int hash_move, int ply, int counter=*)

    @cython.locals(killers=list)
    cpdef int order_into(self, Position pos, list moves, int hash_move, int ply, int counter, int row1, int row2,
                         int row4, long long[::1] out, int start) except -1

    @cython.locals(killers=list, bonus=int, i=int, q=int)
    cpdef record_cutoff(self, Position pos, int m, int ply, int depth, int counter_index, int row1, int row2,
                        int row4, long long[::1] quiets, int start, int count)

    cpdef record_fail_low(self, Position pos, int m, int depth, int row1, int row2, int row4)

    @cython.locals(history="short[::1]", cont="short[::1]", h=int, pt=int)
    cdef void update_quiet(self, Position pos, int q, int bonus, int row1, int row2, int row4)

    @cython.locals(table="short[::1]", side=int, squares="int *", bonus=int, i=int, c=int, h=int)
    cpdef record_captures(self, Position pos, int m, int depth, long long[::1] moves, int start, int count)


cdef class QuiescenceSearch:
    cdef public SearchControl control
    cdef public TranspositionTable tt
    cdef public MoveOrderer orderer
    cdef public Position pos
    cdef public object key_buffer
    cdef long long[::1] keys
    cdef long long eval_keys[32768]
    cdef int eval_values[32768]
    cdef int eval_slots[32768]
    cdef public object correction_table
    cdef short[::1] correction
    cdef public int slot

    @cython.locals(i=int)
    cpdef clear_evals(self)

    cpdef clear_corrections(self)

    @cython.locals(i=int, value=int, slot=int, correction=int)
    cdef int static_eval(self, long long key, int mg, int eg, int phase) except? -32767

    @cython.locals(bonus=int, limit=int)
    cpdef correct(self, int slot, int error, int depth)

    @cython.locals(control=SearchControl, pos=Position, moves=list, best=int, m="long long", dmg=int, deg=int,
                   dph=int, score=int, stand=int, squares="int *", to=int, victim=int, gain=int, check=bint,
                   keys="long long[::1]", start=int, end=int, i=int, gain_factor=int, key="long long",
                   data="long long", tt_score=int, original_alpha=int, best_move=int)
    cpdef int qsearch(self, int alpha, int beta, int ply, int mg, int eg, int phase, bint in_check) except? -32767

    cdef _store(self, long long key, int ply, int best, int best_move, int original_alpha, int beta)


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
    cdef public object capture_buffer
    cdef long long[::1] capture_moves
    cdef public object eval_buffer
    cdef int[::1] evals
    cdef public object row_buffer
    cdef int[::1] rows

    @cython.locals(halfmove=int, key="long long", n=int, low=int, i=int, window=int)
    cpdef bint is_draw(self, Position pos)

    @cython.locals(control=SearchControl, orderer=MoveOrderer, pos=Position, pv_node=bint, tt=TranspositionTable,
                   key="long long", data="long long", hash_move=int, score=int, static_eval=int, improving=bint,
                   evals="int[::1]", counter_index=int, counter=int, buffer="long long[::1]", start=int, end=int,
                   staged=bint, moves=list, best=int, best_move=int, original_alpha=int,
                   prunable=bint, late_limit=int, quiets="long long[::1]", tried=int, searched=int, index=int,
                   m=int, victim=int, kind=int, quiet=bint, prune=bint, rows="int[::1]", row1=int, row2=int,
                   row4=int, word="long long", deferred=int, second_pass=bint, exchange=int,
                   caps="long long[::1]", tried_captures=int, slot=int, best_quiet=bint, singular=bint)
    cpdef int pvs(self, int depth, int alpha, int beta, int ply, int mg, int eg, int phase, bint null_ok,
                  bint in_check, int excluded=*) except? -32767

    @cython.locals(tt_score=int, hash_move=int, singular_beta=int, score=int)
    cdef int _singular(self, long long data, int depth, int beta, int ply, int mg, int eg, int phase,
                       bint in_check) except? -32767

    @cython.locals(pos=Position, victim=int, kind=int, rows="int[::1]", quiets="long long[::1]", start=int)
    cdef _table_cut_stats(self, int m, int ply, int depth, bint cut)

    @cython.locals(pos=Position, reduction=int, score=int)
    cdef int _cut_before_moves(self, int depth, int beta, int ply, int mg, int eg, int phase, bint null_ok,
                               int static_eval, bint improving) except? -32767

    @cython.locals(pos=Position, quiescence=QuiescenceSearch, keys="long long[::1]", start=int, end=int,
                   raised=int, hash_move=int, threshold=int, tries=int, i=int, m=int, dmg=int, deg=int, dph=int,
                   check=bint, score=int, word="long long", j=int)
    cdef int _probcut(self, int depth, int beta, int ply, int mg, int eg, int phase, int static_eval,
                      bint improving, long long data) except? -32767

    @cython.locals(lmr_depth=int)
    cdef bint _prune_quiet(self, int m, int depth, int alpha, int static_eval, int searched, int tried,
                           int late_limit) except -1

    @cython.locals(pos=Position, gives_check=bint, extend=bint, dmg=int, deg=int, dph=int, new_depth=int,
                   reduction=int, score=int, killers=list, kind=int, exchange=int, row=int)
    cdef int _search_move(self, int m, int depth, int alpha, int beta, int ply, int mg, int eg, int phase,
                          bint in_check, bint pv_node, bint improving, bint quiet, bint prune,
                          int searched, bint singular) except? -32767

    @cython.locals(bound=int)
    cdef _store(self, long long key, int depth, int ply, int best, int best_move, int hash_move,
                int original_alpha, int beta)


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
    cdef public Accumulator accumulator

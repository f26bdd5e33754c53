"""The UCI front end: ``schess-engine`` or ``python -m engine`` (both through :mod:`engine.__main__`).

Reads commands from stdin, answers on stdout. :class:`UciFrontEnd` reads the commands and keeps the options
and the position; the search runs in its own thread (:class:`SearchThread`, with the Lazy SMP helpers) so that
``stop``, ``quit``, ``isready`` and ``ponderhit`` are answered at once. Bad input is reported as
``info string error: ...`` and never stops the engine; ``bestmove`` is always a legal move of the current
position, or ``(none)``.
"""

from __future__ import annotations

import random
import sys
import threading
import time
from typing import Any, Callable, Dict, Optional, TextIO

from . import __version__
from .board import Board
from .book import Book, BookError, open_book
from .buildinfo import BuildKind, build_kind, build_name
from .nnue import NetError, NetInfo, builtin_net
from .nnue import kernels as nnue_kernels
from .nnue import load as load_net
from .options import EVAL_FILE_BUILT_IN, OPTIONS, OptionValues
from .perft import perft_divide
from .search import MATE_BOUND, Searcher, SearchLimits
from .smp import HelperPool
from .timeman import plan_time
from .variants import START_FENS, has_chess960_form

BUILD = build_name()  # "compiled (Cython)" or "pure Python"
ENGINE_NAME = f"S-chess Python engine {__version__}, {BUILD}"
ENGINE_AUTHOR = "the schess-bot authors"

BENCH_POSITIONS = (
    ("seirawan", START_FENS["seirawan"]),
    ("seirawan", "reb1k2r/ppppqppp/2nb1n2/4p3/4P3/N1P2N2/PB1PQPPP/RE2KBHR[h] b KQkqc - 3 7"),
    ("seirawan", "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R[EHeh] w KQBCDkqbcdf - 4 4"),
    ("seirawan", "r1bQkb1r/ppp1pppp/2P5/2n2q2/8/2N2N2/PPP2PPP/R1BEKB1R[Hh] b KQCFkqcf - 0 8"),
    ("seirawan", "2kr3r/pph2ppp/2n1b3/4e3/3P4/2P1BN2/PP2HPPP/R3K2R[] w KQ - 2 16"),
    ("seirawan", "6k1/5ppp/8/3e4/8/8/3H1PPP/6K1[] w - - 0 40"),
    ("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ("chess", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
)
BENCH_DEPTH = 6
# ``Use NNUE auto`` evaluates with the built-in net of the variants where it measurably beats the hand-made
# evaluation at a fixed time in this build (docs/nnue.md): S-House in both builds; S-chess (and S-chess960) and
# chess (and Chess960, with the S-chess net: an SPRT at 10+0.1 accepted it, docs/results.md) in the compiled
# build only; the pure build evaluates the net at a third of its hand-made evaluation's speed and gained
# nothing from it at 30+0.3.
NET_BY_DEFAULT_COMPILED = frozenset({"seirawan", "shouse", "chess"})
NET_BY_DEFAULT_PURE = frozenset({"shouse"})
NET_BY_DEFAULT = NET_BY_DEFAULT_COMPILED if build_kind() is BuildKind.COMPILED else NET_BY_DEFAULT_PURE

Writer = Callable[[str], None]


def net_wanted(options: OptionValues, variant: str) -> bool:
    """Whether ``Use NNUE`` asks for the net in ``variant``."""
    return options.use_nnue == "true" or (options.use_nnue == "auto" and variant in NET_BY_DEFAULT)


class SearchThread:
    """The search of ``go`` in a thread of its own, and what goes with it: the ``info`` and ``bestmove`` lines,
    ``stop`` and ``ponderhit`` while it runs, and the Lazy SMP helper processes of ``Threads`` (``pool``)."""

    def __init__(self, searcher: Searcher, send: Writer, error: Writer) -> None:
        self.searcher = searcher
        self._send = send
        self._error = error
        self.pool: Optional[HelperPool] = None  # Lazy SMP helpers while Threads > 1
        self._thread: Optional[threading.Thread] = None
        self._release = threading.Event()  # set on stop/ponderhit: an infinite/ponder search may report
        self._pondering = False
        self._limits: Optional[SearchLimits] = None
        self._go_args: dict[str, int] = {}
        self.net_path: Optional[str] = None  # the net file the search evaluates with (for the helpers)

    def start(self, board: Board, limits: SearchLimits, go_args: dict[str, int], pondering: bool,
              root: tuple[str, bool, Optional[str], list[str]]) -> None:
        """Search ``board`` within ``limits`` in a new thread (the last one must have been stopped). ``go_args``
        are the ``go`` numbers (the clock for ``ponderhit``); ``root`` is (variant, chess960, FEN or None,
        moves) for the helpers, which join unless the Skill Level weakens the search. An infinite or ponder
        search holds its bestmove back until ``stop`` or ``ponderhit``."""
        self._go_args = go_args
        self._limits = limits
        self._pondering = pondering
        self._release.clear()
        pool = self.pool
        if pool is not None and self.searcher.skill_level == 20:  # a weakened search keeps to one thread
            variant, chess960, fen, moves = root
            net = self.net_path if self.searcher.accumulator is not None else None
            pool.start(variant, chess960, fen, moves, 20, net)
        wait_for_release = limits.infinite
        self._thread = threading.Thread(target=self._run, args=(board, limits, wait_for_release), daemon=True)
        self._thread.start()

    def _run(self, board: Board, limits: SearchLimits, wait_for_release: bool) -> None:
        """The thread: search, then (after ``stop`` or ``ponderhit`` when ``wait_for_release``) send
        ``bestmove``, even when the search failed."""
        try:
            result = self.searcher.search(board, limits, lambda info: self._send_info(board, info))
            best, ponder = result.best, result.ponder
        except Exception as exc:  # never leave the GUI without a bestmove
            self._error(f"search failed: {exc!r}")
            moves = board.generate_legal()
            best, ponder = (moves[0] if moves else 0), 0
        finally:
            if self.pool is not None:
                self.pool.stop()  # the helpers leave the root before the next position
        if wait_for_release:
            self._release.wait()
        if not best:
            self._send("bestmove (none)")
            return
        text = f"bestmove {board.move_of(best).uci()}"
        if ponder:
            text += f" ponder {board.move_of(ponder).uci()}"
        self._send(text)

    def _send_info(self, board: Board, info: Dict[str, Any]) -> None:
        mate = info["mate"]
        score = f"mate {mate}" if mate is not None else f"cp {info['score']}"
        pv = " ".join(board.move_of(m).uci() for m in info["pv"])
        self._send(
            f"info depth {info['depth']} seldepth {info['seldepth']} multipv 1 score {score} nodes {info['nodes']}"
            f" nps {info['nps']} hashfull {info['hashfull']} time {info['time_ms']} pv {pv}"
        )

    def ponderhit(self, board: Board, move_overhead: int) -> None:
        """The pondered move was played: a ``go ponder`` search becomes a timed one on the clock it was sent
        with, and will report. Ignored when no ponder search runs."""
        limits = self._limits
        if self._thread is None or not self._thread.is_alive() or not self._pondering or limits is None:
            return
        self._pondering = False
        params = self._go_args
        white = board.side == 1
        soft, hard = plan_time(params.get("wtime" if white else "btime"), params.get("winc" if white else "binc", 0),
                               params.get("movestogo"), params.get("movetime"), move_overhead,
                               len(board.move_stack))
        searcher = self.searcher
        elapsed = searcher.elapsed()
        if hard is not None:
            searcher.set_deadline(hard)
            limits.soft_time = elapsed + (soft or hard)
        limits.infinite = False
        self._release.set()

    def stop(self) -> None:
        """Stop the search (if any) and wait until it has sent its bestmove."""
        thread = self._thread
        if thread is None:
            return
        self.searcher.stop_now()
        self._release.set()
        thread.join()
        self._thread = None

    def wait(self) -> None:
        """Block until the current search (if any) has sent its bestmove (for tests and bench)."""
        thread = self._thread
        if thread is not None:
            thread.join()

    def configure_threads(self, threads: int, hash_mb: int) -> None:
        """Start (or stop) the helper processes for ``Threads``, with a shared table of ``hash_mb`` MB."""
        self.close_helpers()
        if threads > 1:
            self.pool = HelperPool(threads, hash_mb)
            self.searcher.use_shared_table(self.pool.table)

    def close_helpers(self) -> None:
        """End the helper processes (if any); the search goes back to its own table."""
        pool = self.pool
        if pool is None:
            return
        self.pool = None
        self.searcher.use_shared_table(None)
        pool.close()


class UciFrontEnd:
    """One UCI session: reads the commands (``handle(line)``; False after ``quit``), keeps the options and the
    position, and starts the searches of ``go`` on its :class:`SearchThread`."""

    def __init__(self, write: Writer) -> None:
        self._write_raw = write
        self._write_lock = threading.Lock()
        self.options = OptionValues()
        self.searcher = Searcher(self.options.hash_mb)
        self.board = Board()
        self._position_key: tuple[str, str, bool, Optional[str]] = ("seirawan", "", False, None)
        self._moves: list[str] = []
        self.search_thread = SearchThread(self.searcher, self.send, self.error)
        self._book: Optional[Book] = None
        self._book_failed: Optional[str] = None  # the BookFile that could not be opened (reported once)
        self._book_rng = random.Random()
        self.net: Optional[NetInfo] = None  # the net loaded for ``Use NNUE``
        self._net_key: Optional[tuple[str, str]] = None  # (EvalFile, built-in file name) of that net
        # The default net loads at start, silently: nothing may precede the answer to ``uci``, which names it.
        self.configure_net(announce=False)

    # ------------------------------------------------------------------ output

    def send(self, line: str) -> None:
        with self._write_lock:
            self._write_raw(line)

    def error(self, message: str) -> None:
        self.send(f"info string error: {message}")

    # ------------------------------------------------------------------ dispatch

    def handle(self, line: str) -> bool:
        tokens = line.strip().split()
        if not tokens:
            return True
        command, args = tokens[0], tokens[1:]
        try:
            if command == "quit":
                self.stop_search()
                return False
            handler = self._handlers().get(command)
            if handler is None:
                self.error(f"unknown command: {line.strip()!r}")
            else:
                handler(args)
        except Exception as exc:  # bad input must never kill the engine
            self.error(f"{command}: {exc}")
        return True

    def _handlers(self) -> dict[str, Callable[[list[str]], None]]:
        return {
            "uci": self.cmd_uci,
            "isready": lambda args: self.send("readyok"),
            "ucinewgame": self.cmd_ucinewgame,
            "setoption": self.cmd_setoption,
            "position": self.cmd_position,
            "go": self.cmd_go,
            "stop": lambda args: self.stop_search(),
            "ponderhit": self.cmd_ponderhit,
            "bench": self.cmd_bench,
            "d": lambda args: self.send(f"info string fen {self.board.fen()}"),
            "debug": lambda args: None,
            "register": lambda args: None,
        }

    # ------------------------------------------------------------------ commands

    def cmd_uci(self, args: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {ENGINE_AUTHOR}")
        for option in OPTIONS:
            self.send(option.declaration())
        if self.net is not None and self.searcher.accumulator is not None:
            self._announce_net()
        self.send("uciok")

    def cmd_ucinewgame(self, args: list[str]) -> None:
        self.stop_search()
        self.searcher.new_game()
        self._set_position(None, [])

    def cmd_setoption(self, args: list[str]) -> None:
        if not args or args[0] != "name":
            raise ValueError("expected 'setoption name <name> [value <value>]'")
        if "value" in args:
            at = args.index("value")
            name = " ".join(args[1:at])
            value = " ".join(args[at + 1:])
        else:
            name, value = " ".join(args[1:]), ""
        self.stop_search()
        searched = self._searched()
        option = self.options.set(name, value)  # ValueError for an unknown option or a refused value
        if option.on_change is not None:
            option.on_change(self)
        if self._searched() != searched:
            self.searcher.new_game()  # the table's scores and the history are of other rules or another evaluation

    # ------------------------------------------------------------------ what a change of an option does

    def new_rules(self) -> None:
        self._set_position(None, [])
        self.configure_net()

    def new_position(self) -> None:
        self._set_position(None, [])

    def resize_table(self) -> None:
        self.searcher.tt.resize(self.options.hash_mb)
        if self.search_thread.pool is not None:
            self.search_thread.configure_threads(self.options.threads, self.options.hash_mb)

    def restart_helpers(self) -> None:
        self.search_thread.configure_threads(self.options.threads, self.options.hash_mb)

    def clear_table(self) -> None:
        self.searcher.new_game()

    def close_book(self) -> None:
        if self._book is not None:
            self._book.close()
        self._book = None
        self._book_failed = None

    def reload_net(self) -> None:
        self._net_key = None
        self.configure_net()

    def _searched(self) -> tuple[object, ...]:
        """What the table's scores depend on: the rules (variant, 960 castling) and the evaluation (the net in
        use, or none)."""
        opts = self.options
        return opts.variant, opts.chess960, self.searcher.accumulator is not None, self._net_key

    def configure_net(self, announce: bool = True) -> None:
        """Evaluate as ``Use NNUE`` and ``EvalFile`` say for the variant being played: load its net when
        needed (``EvalFile``, else the variant's built-in net); a net that cannot be read is reported
        (``info string error``) and the built-in net is used instead, or the hand-made evaluation when even that
        one cannot be read."""
        opts = self.options
        if not net_wanted(opts, opts.variant):
            self.searcher.use_net(False)
            return
        self.searcher.use_net(self._load_net(opts.variant, announce))

    def _load_net(self, variant: str, announce: bool = True) -> bool:
        """Make the net of ``EvalFile`` (or ``variant``'s built-in one) the loaded net unless it already is,
        saying which (``info string NNUE evaluation using ...``) when ``announce``; False, after an
        ``info string error``, when no net could be loaded."""
        explicit = self.options.eval_file != EVAL_FILE_BUILT_IN
        key = (self.options.eval_file, "") if explicit else (EVAL_FILE_BUILT_IN, builtin_net(variant))
        # an EvalFile that could not be read stands in as this variant's built-in net: keyed by both
        fallback = (self.options.eval_file, builtin_net(variant))
        if self.net is not None and self._net_key in (key, fallback if explicit else key):
            return True
        self.net = None
        self._net_key = None
        try:
            if explicit:
                try:
                    self.net = load_net(self.options.eval_file)
                except NetError as problem:
                    self.error(f"EvalFile: {problem}; using the built-in net {builtin_net(variant)}")
                    self.net = load_net(None, variant)
                    key = fallback
            else:
                self.net = load_net(None, variant)
        except NetError as problem:
            self.error(f"EvalFile: {problem}; using the hand-made evaluation")
            return False
        self._net_key = key
        self.search_thread.net_path = self.net.path
        if announce:
            self._announce_net()
        return True

    def _announce_net(self) -> None:
        assert self.net is not None
        self.send(f"info string NNUE evaluation using {self.net.path} (hidden {self.net.hidden}, "
                  f"sha256 {self.net.sha256[:16]})")

    def cmd_position(self, args: list[str]) -> None:
        self.stop_search()
        if not args:
            raise ValueError("expected 'position startpos|fen <fen> [moves ...]'")
        if "moves" in args:
            at = args.index("moves")
            spec, moves = args[:at], args[at + 1:]
        else:
            spec, moves = args, []
        if spec[0] == "startpos":
            if len(spec) != 1:
                raise ValueError(f"unexpected text after startpos: {' '.join(spec[1:])!r}")
            fen = None
        elif spec[0] == "fen":
            if len(spec) < 2:
                raise ValueError("missing FEN after 'position fen'")
            fen = " ".join(spec[1:])
        else:
            raise ValueError(f"expected startpos or fen, got {spec[0]!r}")
        self._set_position(fen, moves)

    def _set_position(self, fen: Optional[str], moves: list[str]) -> None:
        """Set up the position; when only moves were appended to the previous one, play just those."""
        opts = self.options
        # UCI_Chess960 leaves the variants without a Chess960 form (the alternative S-chess rules) as they are.
        chess960 = opts.chess960 and has_chess960_form(opts.variant)
        key = (opts.variant, fen or "", chess960, None)
        board = self.board
        if key == self._position_key and moves[: len(self._moves)] == self._moves and \
                len(board.move_stack) == len(self._moves):
            new_moves = moves[len(self._moves):]
        else:
            try:
                board = Board(fen, variant=opts.variant, chess960=chess960)
            except ValueError:
                # keep a usable position: the variant's start
                self.board = Board(variant=opts.variant, chess960=chess960)
                self._position_key = (opts.variant, "", chess960, None)
                self._moves = []
                raise
            self.board = board
            self._position_key = key
            self._moves = []
            new_moves = moves
        for text in new_moves:
            try:
                board.push_uci(text)
            except ValueError:
                raise ValueError(f"illegal move {text!r} in {board.fen()} (position kept before it)") from None
            self._moves.append(text)

    def cmd_go(self, args: list[str]) -> None:
        self.stop_search()
        params: dict[str, int] = {}
        flags = set()
        i = 0
        int_params = ("wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes", "mate",
                      "perft")
        while i < len(args):
            token = args[i]
            if token in ("infinite", "ponder"):
                flags.add(token)
                i += 1
            elif token in int_params:
                if i + 1 >= len(args):
                    raise ValueError(f"go: missing value after {token}")
                try:
                    params[token] = int(args[i + 1])
                except ValueError:
                    raise ValueError(f"go: {token} expects an integer, got {args[i + 1]!r}") from None
                i += 2
            elif token == "searchmoves":
                i = len(args)  # not supported: search all moves
            else:
                raise ValueError(f"go: unknown parameter {token!r}")
        if "perft" in params:
            self._perft(params["perft"])
            return
        if not flags and self._play_book_move():
            return
        white = self.board.side == 1
        time_left = params.get("wtime" if white else "btime")
        if time_left is None:  # a clock was sent for the other side only: better that than no limit at all
            time_left = params.get("btime" if white else "wtime")
        increment = params.get("winc" if white else "binc", 0)
        soft, hard = plan_time(time_left, increment, params.get("movestogo"), params.get("movetime"),
                               self.options.move_overhead, len(self.board.move_stack))
        depth = params.get("depth")
        if "mate" in params and depth is None:
            depth = 2 * params["mate"] + 1
        pondering = "ponder" in flags
        infinite = "infinite" in flags or pondering
        limits = SearchLimits(depth=depth, nodes=params.get("nodes"), soft_time=None if infinite else soft,
                              hard_time=None if infinite else hard, infinite=infinite)
        self.searcher.skill_level = self.options.effective_skill()
        variant, fen, chess960, _ = self._position_key
        self.search_thread.start(self.board, limits, params, pondering, (variant, chess960, fen or None, self._moves))

    def _play_book_move(self) -> bool:
        """With OwnBook on, answer at once with a book move when the position is in the book."""
        path = self.options.book_file
        if not self.options.own_book or not path or path == self._book_failed:
            return False
        try:
            if self._book is None or self._book.path != path:
                self.close_book()
                self._book = open_book(path)
            move = self._book.choose(self.board, rng=self._book_rng)
        except BookError as exc:
            self._book_failed = path
            self.error(f"{exc}; searching without the book")
            return False
        if move is None:
            return False
        self.send(f"info string book move {move}")
        self.send(f"bestmove {move}")
        return True

    def cmd_ponderhit(self, args: list[str]) -> None:
        self.search_thread.ponderhit(self.board, self.options.move_overhead)

    def stop_search(self) -> None:
        """Stop the search (if any); returns once it has sent its bestmove."""
        self.search_thread.stop()

    def wait(self) -> None:
        """Block until the current search (if any) has sent its bestmove (for tests and bench)."""
        self.search_thread.wait()

    def close_helpers(self) -> None:
        """End the Lazy SMP helper processes (if any)."""
        self.search_thread.close_helpers()

    def _perft(self, depth: int) -> None:
        perft_report(self.board, depth, self.send)

    def cmd_bench(self, args: list[str]) -> None:
        """``bench [DEPTH] [nnue|classical]``: the net (``EvalFile`` or the S-chess built-in net) unless
        ``Use NNUE`` is false or ``classical`` is named. Under ``auto`` that is the compiled build's S-chess
        default in both builds, so that the two search the same tree and their node counts compare."""
        self.stop_search()
        if len(args) > 1 and args[1] not in ("nnue", "classical"):
            raise ValueError(f"bench: expected nnue or classical after the depth, got {args[1]!r}")
        use_net = args[1] == "nnue" if len(args) > 1 else self.options.use_nnue != "false"
        if use_net:
            use_net = self._load_net("seirawan")
        bench_report(int(args[0]) if args else BENCH_DEPTH, self.send, use_net)
        self.configure_net()  # the net of the variant being played again


def perft_report(board: Board, depth: int, send: Writer) -> None:
    """``go perft N``: the count under every legal move, the total, and the time."""
    if depth < 1:
        raise ValueError("go perft: depth must be at least 1")
    start = time.perf_counter()
    total = 0
    for move, count in perft_divide(board, depth).items():
        send(f"{move}: {count}")
        total += count
    elapsed = time.perf_counter() - start
    send("")
    send(f"Nodes searched: {total}")
    send(f"info string perft {depth} time {int(elapsed * 1000)} ms")


def bench_report(depth: int, send: Writer, use_net: bool = False) -> None:
    """``bench``: the fixed positions searched to ``depth`` (with the loaded net when ``use_net``); the node
    count is the same on every run."""
    total_nodes = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    bench_searcher = Searcher(16)
    bench_searcher.use_net(use_net)
    for variant, fen in BENCH_POSITIONS:
        board = Board(fen, variant=variant)
        result = bench_searcher.search(board, SearchLimits(depth=depth))
        bench_searcher.new_game()
        total_nodes += result.nodes
        why = ""
        if not result.best:  # nothing to search: say why rather than leave "nodes 0" unexplained
            why = " (checkmate: no legal move)" if board.is_checkmate() else (
                " (stalemate: no legal move)" if board.is_stalemate() else " (no move found)")
        send(f"info string bench {variant} depth {depth} nodes {result.nodes} "
             f"bestmove {board.move_of(result.best).uci() if result.best else '(none)'}{why}")
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    send("")
    send(f"Build: {BUILD}")
    send(f"Evaluation: {'NNUE' if use_net else 'hand-made'}")
    if use_net:
        send(f"Net kernels: {nnue_kernels()}")  # the loops the net runs: python, portable or avx2
    send(f"Total time (ms) : {int(elapsed * 1000)}")
    # CPU time tells the engine's speed even when other processes share the cores.
    send(f"CPU time (ms)   : {int(cpu * 1000)}")
    send(f"Nodes/CPU second: {int(total_nodes / cpu) if cpu > 0 else 0}")
    send(f"Nodes searched  : {total_nodes}")
    send(f"Nodes/second    : {int(total_nodes / elapsed) if elapsed > 0 else 0}")


def run(stdin: TextIO, stdout: TextIO) -> int:
    def write(line: str) -> None:
        stdout.write(line + "\n")
        stdout.flush()

    engine = UciFrontEnd(write)
    while True:
        line = stdin.readline()
        if not line:
            engine.stop_search()
            engine.close_helpers()
            return 0
        if not engine.handle(line):
            engine.close_helpers()
            return 0


USAGE = """usage: schess-engine [COMMAND ...]    (or: python -m engine [COMMAND ...])

The S-chess engine. Without arguments it speaks UCI on stdin/stdout (give it to a GUI or to schess-bot).
With arguments it runs one command and exits:
  schess-engine bench [DEPTH]          the fixed benchmark positions (node count, speed, build)
  schess-engine perft DEPTH [--fen FEN] [--variant NAME] [--divide]
                                       move-generation counts (schess-engine perft --help)
  schess-engine bench-perft            move generation through the Board API, python-chess beside it
  schess-engine svg [FEN]              an SVG diagram of a position (schess-engine svg --help)
  schess-engine UCI-COMMAND            any other UCI command, e.g. d (the start position's FEN)
Options: --help (this text), --version (version, build, Python)."""


def version_line() -> str:
    """``--version``: the engine's version, its build (pure or compiled) and the Python running it."""
    import platform

    return (f"schess-engine {__version__} ({BUILD}; python: {platform.python_implementation()} "
            f"{platform.python_version()})")


def main(argv: Optional[list[str]] = None) -> int:
    """The UCI engine of ``schess-engine`` and ``python -m engine`` (through :mod:`engine.__main__`): UCI on
    stdin/stdout. Arguments (if any) are run as one command instead, e.g. ``schess-engine bench`` runs the
    benchmark and exits (2 when the command failed: an ``info string error`` line); ``--help`` and
    ``--version`` print and exit, any other option is refused (exit 2)."""
    args = sys.argv[1:] if argv is None else argv
    if args and ("-h" in args or "--help" in args):  # also after a command: ``schess-engine bench --help``
        print(USAGE)
        return 0
    if args and args[0] in ("-V", "--version"):
        print(version_line())
        return 0
    if args and args[0].startswith("-"):
        print(f"schess-engine: unknown option {args[0]!r} (options: --help, --version)", file=sys.stderr)
        return 2
    if args:
        errors: list[str] = []

        def send(line: str) -> None:
            if line.startswith("info string error"):
                errors.append(line)
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

        engine = UciFrontEnd(send)
        engine.handle(" ".join(args))
        engine.wait()
        return 2 if errors else 0
    return run(sys.stdin, sys.stdout)


__all__ = ["MATE_BOUND", "SearchThread", "UciFrontEnd", "main", "run"]

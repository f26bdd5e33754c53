"""The match: workers that each own an engine pair, the running tally, progress lines, the final table."""

from __future__ import annotations

import os
import queue
import statistics
import sys
import threading
import traceback
from dataclasses import dataclass, field
from typing import IO, Dict, List, Optional, Tuple

from bot.engines import EngineStartError, UciEngine
from engine.variants import START_FENS
from tools.match.game import FAULTS, BoardFactory, GameAborted, MatchRecord, engine_board, play_game
from tools.match.openings import GameJob, Opening, load_openings, schedule
from tools.match.pgn import game_to_pgn
from tools.match.settings import EngineSpec, MatchSettings
from tools.match.sprt import Pentanomial, Sprt, normalized_elo, pentanomial_elo
from tools.match.state import MatchState
from tools.match.stats import elo_estimate, likelihood_of_superiority, score_fraction


@dataclass
class EngineTally:
    """One engine's record over the match: W/D/L and the games it lost by its own fault, by kind."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: Dict[str, int] = field(default_factory=lambda: {fault: 0 for fault in FAULTS})
    moves: int = 0
    thinking_ms: float = 0.0
    # The depth of every move whose score was not a mate: a found mate ends the search at the mate's own depth
    # (Fairy-Stockfish reports depth 245 for one), which says nothing about how deep the search reaches.
    depths: List[int] = field(default_factory=list)
    mate_moves: int = 0

    def depth_text(self) -> str:
        """``, depth mean 14.2, median 14 (3 moves with a mate score left out)``; empty without depths."""
        if not self.depths:
            return ""
        plural = "" if self.mate_moves == 1 else "s"
        left_out = f" ({self.mate_moves} move{plural} with a mate score left out)" if self.mate_moves else ""
        return (
            f", depth mean {statistics.fmean(self.depths):.1f}, median {statistics.median(self.depths):g}{left_out}"
        )

    @property
    def games(self) -> int:
        """Games counted."""
        return self.wins + self.draws + self.losses


@dataclass
class MatchResult:
    """The finished (or interrupted) match. ``error`` says why it stopped early, if it did."""

    names: Tuple[str, str]
    records: List[MatchRecord] = field(default_factory=list)
    tallies: Tuple[EngineTally, EngineTally] = field(default_factory=lambda: (EngineTally(), EngineTally()))
    white_wins: int = 0
    black_wins: int = 0
    draws: int = 0
    interrupted: bool = False
    error: Optional[str] = None
    # engine 1's points in the first finished game of each pair whose other game is still running
    open_pairs: Dict[int, float] = field(default_factory=dict)
    pentanomial: Pentanomial = field(default_factory=Pentanomial)
    sprt_verdict: Optional[str] = None
    resumed: int = 0

    def add(self, record: MatchRecord) -> bool:
        """Count a finished game for both engines; True when it completed its colour-swapped pair."""
        self.records.append(record)
        first, second = self.tallies
        points = record.engine1_points()
        if points == 1.0:
            first.wins += 1
            second.losses += 1
        elif points == 0.0:
            first.losses += 1
            second.wins += 1
        else:
            first.draws += 1
            second.draws += 1
        white_tally, black_tally = self.tallies if record.job.engine1_is_white else self.tallies[::-1]
        white_to_move = record.start_fen.split()[1:2] != ["b"]
        for move in record.moves:
            tally = white_tally if white_to_move else black_tally
            tally.moves += 1
            tally.thinking_ms += move.elapsed_ms
            score = move.search.score
            if score is not None and score.mate is not None:
                tally.mate_moves += 1
            elif move.depth is not None:
                tally.depths.append(move.depth)
            white_to_move = not white_to_move
        if record.fault is not None and record.faulty_engine in (1, 2):
            self.tallies[record.faulty_engine - 1].faults[record.fault] += 1
        if record.result == "1-0":
            self.white_wins += 1
        elif record.result == "0-1":
            self.black_wins += 1
        else:
            self.draws += 1
        pair = (record.job.number - 1) // 2
        if pair not in self.open_pairs:
            self.open_pairs[pair] = points
            return False
        self.pentanomial = self.pentanomial.add(self.open_pairs.pop(pair), points)
        return True


def display_names(spec1: EngineSpec, id1: str, spec2: EngineSpec, id2: str) -> Tuple[str, str]:
    """Names for the table and the PGN: the given name, else the engine's ``id name``, else the program.

    Two engines with the same name (Fairy-Stockfish against itself) are told apart by their options, or by
    ``#1``/``#2`` when the options are the same too.
    """
    first = spec1.name or id1 or os.path.basename(spec1.command[0])
    second = spec2.name or id2 or os.path.basename(spec2.command[0])
    if first == second:
        if spec1.options != spec2.options and not (spec1.name or spec2.name):
            first += " (" + ", ".join(f"{name}={value}" for name, value in spec1.options) + ")"
            second += " (" + ", ".join(f"{name}={value}" for name, value in spec2.options) + ")"
            first, second = first.replace(" ()", ""), second.replace(" ()", "")
        if first == second:
            first, second = first + " #1", second + " #2"
    return first, second


def format_table(result: MatchResult, sprt: Optional[Sprt] = None) -> str:
    """The final table: per engine W/D/L, score, fault counts; then Elo, LOS, the pairs, the SPRT's state and
    verdict when one ran, depths and the colour balance."""
    width = max(len("Engine"), *(len(name) for name in result.names))
    header = f"{'Engine':<{width}}  Games     W     D     L   Score  Illegal  Time forfeit  Crash  Hang"
    lines = [header, "-" * len(header)]
    for name, tally in zip(result.names, result.tallies, strict=True):
        score = score_fraction(tally.wins, tally.draws, tally.losses)
        score_text = f"{score * 100:5.1f}%" if tally.games else "    - "
        lines.append(
            f"{name:<{width}}  {tally.games:5d} {tally.wins:5d} {tally.draws:5d} {tally.losses:5d}"
            f"  {score_text}"
            f"  {tally.faults['illegal move']:7d}  {tally.faults['time forfeit']:12d}"
            f"  {tally.faults['crash']:5d}  {tally.faults['hang']:4d}"
        )
    first = result.tallies[0]
    estimate = elo_estimate(first.wins, first.draws, first.losses)
    los = likelihood_of_superiority(first.wins, first.losses)
    los_text = f"{los * 100:.1f}%" if los == los else "n/a"
    lines.append("")
    lines.append(f"Elo difference ({result.names[0]} - {result.names[1]}): {estimate.text()} (95%), LOS {los_text}")
    pentanomial = result.pentanomial
    if pentanomial.pairs:
        nelo = normalized_elo(pentanomial)
        nelo_text = "" if nelo != nelo else f", nElo {nelo:+.1f}"
        lines.append(
            f"Pairs: {pentanomial.pairs} ({pentanomial.text()}), pentanomial Elo "
            f"{pentanomial_elo(pentanomial).text()}{nelo_text}"
        )
    if sprt is not None:
        lines.append(sprt.status_line(pentanomial))
        verdict = result.sprt_verdict or f"no verdict after {len(result.records)} games"
        lines.append(f"SPRT {sprt.bounds_text()}: {verdict}")
    for name, tally in zip(result.names, result.tallies, strict=True):
        if tally.moves:
            seconds = tally.thinking_ms / tally.moves / 1000
            lines.append(f"{name}: {tally.moves} moves, {seconds:.3f} s/move{tally.depth_text()}")
    games = first.games
    if games:
        white_score = (result.white_wins + 0.5 * result.draws) / games
        lines.append(
            f"White scored {white_score * 100:.1f}% (white wins {result.white_wins}, "
            f"draws {result.draws}, black wins {result.black_wins})"
        )
    return "\n".join(lines)


def progress_line(record: MatchRecord, total_games: int, result: MatchResult) -> str:
    """One line per finished game: number, players, result, why, and engine 1's running score.

    ``game  3/40  A - B  1-0  White mates (61 plies)  |  engine 1: +2 =0 -1  66.7%``
    """
    first = result.tallies[0]
    score = score_fraction(first.wins, first.draws, first.losses)
    return (
        f"game {record.job.number:>{len(str(total_games))}}/{total_games}  {record.white} - {record.black}  "
        f"{record.result}  {record.reason} ({len(record.moves)} plies)  |  engine 1: "
        f"+{first.wins} ={first.draws} -{first.losses}  {score * 100:.1f}%"
    )


def _worker(
    jobs: queue.Queue[GameJob],
    events: queue.Queue[Tuple[str, object]],
    settings: MatchSettings,
    names: Tuple[str, str],
    board_factory: BoardFactory,
    stop: threading.Event,
    registry: List[UciEngine],
    registry_lock: threading.Lock,
    index: int,
) -> None:
    """Play jobs from the queue with one engine pair until the queue is empty or the match stops."""
    engine1 = _engine(settings, settings.engine1, f"engine1[w{index}]")
    engine2 = _engine(settings, settings.engine2, f"engine2[w{index}]")
    with registry_lock:
        registry.extend([engine1, engine2])
    try:
        engine1.start()
        engine2.start()
        while not stop.is_set():
            try:
                job = jobs.get_nowait()
            except queue.Empty:
                break
            record = play_game(job, engine1, engine2, names, settings, board_factory, stop)
            events.put(("game", record))
    except GameAborted:
        pass
    except EngineStartError as error:
        if not stop.is_set():
            events.put(("error", str(error)))
        stop.set()
    except Exception:  # a bug or a Board failure must not hang the match: report it and stop
        events.put(("error", traceback.format_exc()))
        stop.set()
    finally:
        engine1.close()
        engine2.close()
        events.put(("done", index))


def _kill_all(registry: List[UciEngine], registry_lock: threading.Lock) -> None:
    with registry_lock:
        for engine in registry:
            engine.kill()


def _engine(settings: MatchSettings, spec: EngineSpec, label: str) -> UciEngine:
    """The project's UCI client, strict: an option or variant the engine lacks stops the match at start."""
    engine = UciEngine(
        spec.command,
        dict(spec.options),
        label=label,
        startup_timeout_s=settings.startup_timeout_s,
        strict=True,
        cwd=spec.working_directory,
        own_session=True,  # Ctrl-C reaches the runner only, which then kills the engines itself
        echo=settings.debug,
    )
    engine.set_variant(settings.variant, settings.chess960)
    return engine


def _probe_names(settings: MatchSettings) -> Tuple[str, str]:
    """Start each engine once to learn its ``id name`` and check its options before any game starts."""
    ids = []
    for spec, label in ((settings.engine1, "engine1"), (settings.engine2, "engine2")):
        engine = _engine(settings, spec, label)
        try:
            engine.start()
            # the client names an engine without ``id name`` by its command; the table then shows the file name
            ids.append("" if engine.id_name == engine.command[0] else engine.id_name)
        finally:
            engine.close()
    return display_names(settings.engine1, ids[0], settings.engine2, ids[1])


def match_openings(settings: MatchSettings, board_factory: BoardFactory) -> List[Opening]:
    """The openings of the match, each checked by the arbiter Board (ValueError names the bad line)."""
    if settings.openings_file is None:
        return [Opening(START_FENS[settings.variant], "start")]
    openings = load_openings(settings.openings_file)
    used = {job.opening_index for job in schedule(settings.games, openings, settings.shuffle_openings, settings.seed)}
    for index in sorted(used):
        try:
            board_factory(openings[index].fen, settings.variant, settings.chess960)
        except ValueError as error:
            raise ValueError(f"bad opening at {openings[index].source}: {error}") from error
    return openings


def run_match(
    settings: MatchSettings,
    board_factory: BoardFactory = engine_board,
    out: IO[str] = sys.stdout,
) -> MatchResult:
    """Play the match: print a line per game and the final table to ``out``, write the PGN if asked.

    Ctrl-C stops the match: the engines are killed, unfinished games are dropped, and the table of the
    finished games is printed. Raises EngineStartError or ValueError for a bad setup before any game.
    """
    openings = match_openings(settings, board_factory)
    jobs_list = schedule(settings.games, openings, settings.shuffle_openings, settings.seed)
    names = _probe_names(settings)
    result = MatchResult(names)
    state = MatchState(settings.state_file, settings) if settings.state_file else None
    if state is not None:
        for record in state.load({job.number: job for job in jobs_list}, names):
            result.add(record)
        result.resumed = len(result.records)
    sprt = settings.sprt
    if sprt is not None and result.resumed:
        result.sprt_verdict = sprt.verdict(sprt.llr(result.pentanomial))
    finished = {record.job.number for record in result.records}
    jobs: queue.Queue[GameJob] = queue.Queue()
    for job in jobs_list:
        if job.number not in finished and result.sprt_verdict is None:
            jobs.put(job)
    events: queue.Queue[Tuple[str, object]] = queue.Queue()
    stop = threading.Event()
    registry: List[UciEngine] = []
    registry_lock = threading.Lock()
    worker_count = min(settings.concurrency, jobs.qsize())
    # a resumed match adds its new games to the PGN of the earlier runs
    pgn = open(settings.pgn_file, "a" if result.resumed else "w", encoding="utf-8") if settings.pgn_file else None
    _say(
        out,
        settings,
        f"{names[0]} vs {names[1]}: {settings.games} games of {settings.variant}"
        f"{'960' if settings.chess960 else ''}, {settings.time_control.pgn_tag()}, "
        f"{worker_count} at a time, openings from {settings.openings_file or 'the start position'}; "
        f"engine 1 is {names[0]}",
    )
    if sprt is not None:
        _say(out, settings, f"SPRT {sprt.bounds_text()}: LLR bounds ({sprt.lower_bound:.2f}, {sprt.upper_bound:.2f})")
    if result.resumed:
        _say(out, settings, f"resumed from {settings.state_file}: {result.resumed} games already played")
        if sprt is not None:
            _say(out, settings, sprt.status_line(result.pentanomial))
    threads = [
        threading.Thread(
            target=_worker,
            args=(jobs, events, settings, names, board_factory, stop, registry, registry_lock, index),
            name=f"match-worker-{index}",
            daemon=True,
        )
        for index in range(worker_count)
    ]
    for thread in threads:
        thread.start()
    running = worker_count
    try:
        while running:
            try:
                kind, payload = events.get(timeout=0.2)
            except queue.Empty:
                continue
            if kind == "done":
                running -= 1
            elif kind == "error":
                result.error = result.error or str(payload)
            elif kind == "game" and isinstance(payload, MatchRecord):
                if result.sprt_verdict is not None:
                    continue  # a game that ended after the verdict: the test is over, it does not count
                completed_pair = result.add(payload)
                if state is not None:
                    state.save(payload)
                _say(out, settings, progress_line(payload, settings.games, result))
                if pgn is not None:
                    pgn.write(game_to_pgn(payload, event=settings.event, time_control=settings.time_control.pgn_tag()))
                    pgn.flush()
                if sprt is not None and completed_pair:
                    _say(out, settings, sprt.status_line(result.pentanomial))
                    result.sprt_verdict = sprt.verdict(sprt.llr(result.pentanomial))
                    if result.sprt_verdict is not None:
                        stop.set()  # the workers start no new move; games in progress do not count
    except KeyboardInterrupt:
        result.interrupted = True
        stop.set()
        _kill_all(registry, registry_lock)
        for thread in threads:
            thread.join(timeout=5)
        _kill_all(registry, registry_lock)  # one a worker was starting while the first kill ran
    finally:
        if pgn is not None:
            pgn.close()
    print("", file=out)
    print(format_table(result, sprt), file=out)
    if result.interrupted:
        print(f"Match interrupted after {len(result.records)} of {settings.games} games.", file=out)
    if result.error:
        print(f"Match stopped after {len(result.records)} of {settings.games} games: {result.error}", file=out)
    if settings.pgn_file:
        print(f"PGN: {settings.pgn_file}", file=out)
    out.flush()
    return result


def _say(out: IO[str], settings: MatchSettings, line: str) -> None:
    if not settings.quiet:
        print(line, file=out, flush=True)

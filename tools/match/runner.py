"""The match: workers that each own an engine pair, the running tally, progress lines, the final table."""

from __future__ import annotations

import os
import queue
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
    depth_total: int = 0
    depth_count: int = 0

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

    def add(self, record: MatchRecord) -> None:
        """Count a finished game for both engines."""
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
            if move.depth is not None:
                tally.depth_total += move.depth
                tally.depth_count += 1
            white_to_move = not white_to_move
        if record.fault is not None and record.faulty_engine in (1, 2):
            self.tallies[record.faulty_engine - 1].faults[record.fault] += 1
        if record.result == "1-0":
            self.white_wins += 1
        elif record.result == "0-1":
            self.black_wins += 1
        else:
            self.draws += 1


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


def format_table(result: MatchResult) -> str:
    """The final table: per engine W/D/L, score, fault counts; then Elo, LOS and the colour balance."""
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
    for name, tally in zip(result.names, result.tallies, strict=True):
        if tally.moves:
            depth = f", average depth {tally.depth_total / tally.depth_count:.1f}" if tally.depth_count else ""
            lines.append(f"{name}: {tally.moves} moves, {tally.thinking_ms / tally.moves / 1000:.3f} s/move{depth}")
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
    jobs: queue.Queue[GameJob] = queue.Queue()
    for job in jobs_list:
        jobs.put(job)
    events: queue.Queue[Tuple[str, object]] = queue.Queue()
    stop = threading.Event()
    registry: List[UciEngine] = []
    registry_lock = threading.Lock()
    worker_count = min(settings.concurrency, settings.games)
    pgn = open(settings.pgn_file, "w", encoding="utf-8") if settings.pgn_file else None
    _say(
        out,
        settings,
        f"{names[0]} vs {names[1]}: {settings.games} games of {settings.variant}"
        f"{'960' if settings.chess960 else ''}, {settings.time_control.pgn_tag()}, "
        f"{worker_count} at a time, openings from {settings.openings_file or 'the start position'}; "
        f"engine 1 is {names[0]}",
    )
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
                result.add(payload)
                _say(out, settings, progress_line(payload, settings.games, result))
                if pgn is not None:
                    pgn.write(game_to_pgn(payload, event=settings.event, time_control=settings.time_control.pgn_tag()))
                    pgn.flush()
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
    print(format_table(result), file=out)
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

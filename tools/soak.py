"""``python -m tools.soak``: the real bot against a faulty loopback server for a while; one summary per dialect.

For ``--minutes`` the ``schess-bot`` process (``python -m bot``, the bundled engine playing by the clock) plays
on a loopback server (``bot.loopback``) of each ``--dialect``, both at once by default, whose opponent (random
legal moves) challenges it again as soon as a game ends (``--clock``, 1+1 by default). Meanwhile faults come at
random times drawn from ``--seed`` (the same seed, the same schedule; on average one every ``--every`` seconds):
HTTP 5xx on the bot's moves (the move made and its answer lost, or the move never made), the game record
refused (Lichess's export, pychess's game page; Lichess's export of a running game is always delayed, as on
lichess.org), streams dropped or gone silent, 429s on moves and accepts, server restarts and long outages.

At the end it prints, per dialect: games played, results, games lost on time (each one inside or outside a
fault window that could flag the bot: an outage at least as long as the bot's clock), illegal moves, moves sent
twice into a new position, bot crashes (the process gone, a traceback in its log, a non-zero exit), and
whether each game's PGN was written with the server's result. The exit status is 0 only when no game was lost
on time outside such a window and there was no illegal move, no move sent twice and no crash.
"""

from __future__ import annotations

import argparse
import random
import re
import secrets
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, cast

from bot import SERVER_KINDS, ServerKind
from bot.config import PRODUCTION_TIMING
from bot.loopback import Game, LoopbackServer, RandomMoves
from bot.loopback.__main__ import parse_minutes_clock, settled
from bot.loopback.harness import BotProcess, MoveRequest, bot_config, record_move_requests, sent_into_a_new_position

TOKEN = "soak-token"
#: what a fault kind does, with how often it comes (relative weight) and its size in seconds (low, high)
KINDS: dict[str, tuple[str, int, tuple[float, float]]] = {
    "move-answer-lost": ("a move made, then its answer lost", 3, (0, 0)),
    "move-5xx": ("HTTP 5xx on a move, the move not made", 3, (0, 0)),
    "record-refused": ("the game record refused (HTTP 404) for N s", 2, (20, 60)),
    "streams-dropped": ("every stream cut", 2, (0, 0)),
    "game-stream-silent": ("the game stream silent", 1, (0, 0)),
    "429-move": ("HTTP 429 on a move, Retry-After N s (the bot waits at least a minute)", 1, (1, 5)),
    "429-accept": ("HTTP 429 on an accept, Retry-After N s", 1, (1, 5)),
    "restart": ("a server restart, down for N s", 2, (0.5, 4)),
    "outage": ("connections refused for N s", 1, (15, 30)),
}
#: seconds after a fault within which a loss on time may be the fault's doing (reconnection back-off etc.)
SLACK_S = 3.0
STREAM_TIMEOUT_S = 5.0
PGN_WAIT_S = 10.0


@dataclass(frozen=True)
class Fault:
    """One fault of the schedule: when (seconds into the soak), which kind, and its size in seconds."""

    at_s: float
    kind: str
    size_s: float

    def outage_s(self) -> float:
        """How long the bot cannot move because of it."""
        if self.kind == "429-move":
            return max(self.size_s, PRODUCTION_TIMING.rate_limit_pause_s)  # as the bot waits out a 429
        if self.kind in ("restart", "outage"):
            return self.size_s
        return STREAM_TIMEOUT_S if self.kind == "game-stream-silent" else 0.0


def schedule(seed: int, dialect: str, seconds: float, every_s: float,
             kinds: Sequence[str] = tuple(KINDS)) -> list[Fault]:
    """The faults (of ``kinds``) of one dialect's soak, reproducible from ``seed``."""
    rng = random.Random(f"{seed}:{dialect}")
    names = list(kinds)
    faults: list[Fault] = []
    at = 0.0
    while True:
        at += rng.expovariate(1 / every_s)
        if at >= seconds:
            return faults
        kind = rng.choices(names, [KINDS[name][1] for name in names])[0]
        low, high = KINDS[kind][2]
        faults.append(Fault(round(at, 1), kind, round(rng.uniform(low, high), 1)))


@dataclass
class Injected:
    """A fault as it was injected: the wall time, the game then running and the bot's clock in it."""

    fault: Fault
    at: float
    game_id: Optional[str]
    bot_clock_s: Optional[float]

    def clock_s(self, game: Game) -> float:
        """The bot's clock in ``game`` when the fault came (a fault that came between games, and hit the
        next one: its full clock)."""
        return self.bot_clock_s if self.bot_clock_s is not None else float(game.challenge.time_control.limit_s or 0)

    def could_flag(self, game: Game) -> bool:
        """Whether the bot's loss on time in ``game`` falls in this fault's window and the window was as long
        as the bot's clock: the outage (doubled, for the reconnection back-off) and a slack."""
        window_s = 2 * self.fault.outage_s() + SLACK_S
        return (self.game_id in (None, game.id) and self.clock_s(game) <= window_s
                and game.ended_at is not None and self.at <= game.ended_at <= self.at + window_s)


@dataclass
class Summary:
    """What one dialect's soak found; :meth:`lines` prints it."""

    dialect: str
    minutes: float
    games: list[Game]
    injected: list[Injected]
    move_requests: int
    failed_moves: Counter[str]
    sent_twice: list[MoveRequest]
    crashes: list[str]
    pgn_missing: list[str] = field(default_factory=list)
    pgn_differs: list[str] = field(default_factory=list)

    @property
    def lost_on_time(self) -> list[Game]:
        return [g for g in self.games if g.status == "outoftime" and g.winner is not None
                and g.winner != g.bot_color]

    def flag_fault(self, game: Game) -> Optional[Injected]:
        """The fault whose window could have flagged the bot in ``game``, if any."""
        return next((f for f in self.injected if f.could_flag(game)), None)

    @property
    def illegal_moves(self) -> int:
        return sum(1 for g in self.games for r in g.move_log if r.by == "bot" and not r.legal)

    @property
    def ok(self) -> bool:
        unexplained = [g for g in self.lost_on_time if self.flag_fault(g) is None]
        return not (unexplained or self.illegal_moves or self.sent_twice or self.crashes)

    def results(self) -> str:
        def tally(games: list[Game], what: str) -> str:
            counts = Counter(g.status for g in games)
            return f"{len(games)} {what}" + (f" ({', '.join(f'{n} {s}' for s, n in sorted(counts.items()))})"
                                             if games and what != "aborted" else "")
        won = [g for g in self.games if g.winner is not None and g.winner == g.bot_color]
        lost = [g for g in self.games if g.winner is not None and g.winner != g.bot_color]
        aborted = [g for g in self.games if g.status == "aborted"]
        drawn = [g for g in self.games if g.winner is None and g.status != "aborted"]
        return ", ".join((tally(won, "won"), tally(lost, "lost"), tally(drawn, "drawn"), tally(aborted, "aborted")))

    def lines(self) -> list[str]:
        kinds = Counter(i.fault.kind for i in self.injected)
        lost = []
        for game in self.lost_on_time:
            fault = self.flag_fault(game)
            lost.append(f"{game.id} " + (
                f"(inside a flag-inducing fault window: {fault.fault.kind}, the bot unable to move for "
                f"{fault.fault.outage_s():g} s, {fault.clock_s(game):.1f} s on its clock)" if fault
                else "(OUTSIDE any flag-inducing fault window)"))
        expected = [g for g in self.games if g.moves]
        pgns = len(expected) - len(self.pgn_missing)
        return [
            f"{self.dialect}: {len(self.games)} games in {self.minutes:.1f} min; {len(self.injected)} faults: "
            + ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items())),
            f"  results: {self.results()}",
            f"  lost on time: {len(lost)}" + (f": {'; '.join(lost)}" if lost else ""),
            f"  illegal moves: {self.illegal_moves}",
            f"  moves sent twice into a new position: {len(self.sent_twice)}"
            + (f": {', '.join(f'{r.game_id} {r.uci}' for r in self.sent_twice)}" if self.sent_twice else ""),
            f"  bot crashes: {len(self.crashes)}" + (f": {'; '.join(self.crashes)}" if self.crashes else ""),
            f"  PGNs written: {pgns} of {len(expected)} (games with a move)"
            + (f" (missing: {', '.join(self.pgn_missing)})" if self.pgn_missing else "")
            + (f"; result differs from the server's: {', '.join(self.pgn_differs)}" if self.pgn_differs else ""),
            f"  move requests: {self.move_requests}, failed: "
            + (", ".join(f"{n} {what}" for what, n in sorted(self.failed_moves.items())) or "none"),
            f"  verdict: {'OK' if self.ok else 'FAIL'}",
        ]


class DialectSoak:
    """One dialect's soak: its loopback server, the bot process, the challenges and the faults."""

    def __init__(self, dialect: str, args: argparse.Namespace, workdir: Path) -> None:
        self.dialect = dialect
        self.args = args
        self.workdir = workdir
        self.pgn_directory = workdir / "games"
        self.pgn_directory.mkdir(parents=True, exist_ok=True)
        self.server = LoopbackServer(dialect=cast(ServerKind, dialect), token=TOKEN, seed=args.seed, keepalive_s=1.0,
                                     abort_unplayed_after_s=60.0)
        self.faults = schedule(args.seed, dialect, args.minutes * 60, args.every, args.faults)
        self.injected: list[Injected] = []
        self.crashes: list[str] = []
        self.game_ids: list[str] = []
        self.current: Optional[str] = None
        self.stopping = threading.Event()
        self.started = 0.0
        self.bot: Optional[BotProcess] = None
        self.summary: Optional[Summary] = None

    def say(self, line: str) -> None:
        print(f"{self.dialect}: {line}", flush=True)

    def run(self) -> Summary:
        """Play until the time is up (or ``--games`` games), then stop the bot and sum up."""
        with self.server:
            moves = record_move_requests(self.server)
            limits = {"depth": self.args.depth} if self.args.depth else None
            config = bot_config(self.server, self.pgn_directory, engine_limits=limits, time={"move_overhead_ms": 300},
                                server={"stream_timeout_s": STREAM_TIMEOUT_S})
            self.bot = BotProcess(config, self.workdir, token=TOKEN, patience_s=30.0).start()
            self.started = time.monotonic()
            injector = threading.Thread(target=self.inject_faults, name=f"soak-faults-{self.dialect}", daemon=True)
            injector.start()
            try:
                self.play()
            finally:
                self.stopping.set()
                injector.join()
                self.wait_for_pgns()
                code = self.bot.stop()
                if code == -9:
                    self.crashes.append(f"no exit within {self.bot.patience_s:g} s of SIGTERM (killed)")
                elif code not in (0, None):
                    self.crashes.append(f"exit code {code} after SIGTERM")
            self.summary = self.sum_up(moves)
            return self.summary

    def play(self) -> None:
        deadline = self.started + self.args.minutes * 60
        clock = parse_minutes_clock(self.args.clock)
        while time.monotonic() < deadline and (self.args.games is None or len(self.game_ids) < self.args.games):
            number = len(self.game_ids)
            challenge_id = self.server.challenge(challenger="Soaker", clock=clock,
                                                 opponent=RandomMoves(self.args.seed + number))
            self.current = challenge_id
            while True:
                try:
                    self.server.wait_for(lambda: settled(self.server, challenge_id), 1.0)  # noqa: B023
                    break
                except TimeoutError:
                    self.check_bot()
            answer = self.server.answer(challenge_id)
            if answer is not None and answer.accepted:
                self.game_ids.append(challenge_id)
                self.say(f"game {self.server.game(challenge_id).describe()}")
            else:
                time.sleep(1.0)  # declined (for later, or while a 429 pause lasts): offered again

    def check_bot(self) -> None:
        """A bot process that is gone is a crash: counted, and started again."""
        assert self.bot is not None and self.bot.process is not None
        code = self.bot.process.poll()
        if code is not None:
            self.crashes.append(f"the bot process exited with code {code} (log bot-{self.bot.runs}.log)")
            self.say(f"the bot process exited with code {code}; starting it again")
            self.bot.start()

    def inject_faults(self) -> None:
        rng = random.Random(f"{self.args.seed}:{self.dialect}:status")
        for fault in self.faults:
            if self.stopping.wait(max(0.0, self.started + fault.at_s - time.monotonic())):
                return
            with self.server.lock:
                game = self.server.games.get(self.current or "")
                running = game is not None and not game.over
                bot_clock_s = (game.clock.remaining_ms(game.bot_color) / 1000
                               if running and game is not None and game.clock is not None else None)
            self.injected.append(Injected(fault, time.time(), game.id if running and game else None, bot_clock_s))
            faults = self.server.faults
            if fault.kind == "move-answer-lost":
                faults.lose_answers("move")
            elif fault.kind == "move-5xx":
                faults.fail("move", rng.choice((500, 502, 503)))
            elif fault.kind == "record-refused":
                faults.refuse_game_record(for_seconds=fault.size_s)
            elif fault.kind == "streams-dropped":
                faults.drop_streams("any")
            elif fault.kind == "game-stream-silent":
                faults.silence_streams("game")
            elif fault.kind in ("429-move", "429-accept"):
                faults.fail(fault.kind[4:], 429, retry_after_s=fault.size_s)
            elif fault.kind == "restart":
                faults.restart_server(fault.size_s)
            elif fault.kind == "outage":
                faults.refuse_connections(fault.size_s)

    def wait_for_pgns(self) -> None:
        deadline = time.monotonic() + PGN_WAIT_S
        while time.monotonic() < deadline and not all(
                (self.pgn_directory / f"{game_id}.pgn").exists() for game_id in self.game_ids
                if self.server.games[game_id].moves):
            time.sleep(0.2)

    def sum_up(self, moves: list[MoveRequest]) -> Summary:
        with self.server.lock:
            games = [self.server.games[game_id] for game_id in self.game_ids]
            requests = self.server.requests_to("move")
        failed = Counter("answers lost" if r.status == 0 else f"HTTP {r.status}" for r in requests
                         if r.status == 0 or r.status >= 400)
        crashes = list(self.crashes)
        assert self.bot is not None
        tracebacks = self.bot.logs().count("Traceback (most recent call last)")
        if tracebacks:
            crashes.append(f"{tracebacks} traceback(s) in the bot's log")
        summary = Summary(self.dialect, (time.monotonic() - self.started) / 60, games, list(self.injected),
                          len(requests), failed, sent_into_a_new_position(moves), crashes)
        for game in games:  # a game aborted before any move has no PGN, by design (the state file notes it)
            path = self.pgn_directory / f"{game.id}.pgn"
            if not game.moves and not path.exists():
                continue
            if not path.exists():
                summary.pgn_missing.append(game.id)
            elif re.search(rf'^\[Result "{re.escape(game.result())}"\]$', path.read_text(), re.M) is None:
                summary.pgn_differs.append(game.id)
        return summary


def fault_kinds(text: str) -> tuple[str, ...]:
    """``--faults move-5xx,restart`` -> the kinds, each one of :data:`KINDS`."""
    kinds = tuple(kind.strip() for kind in text.split(",") if kind.strip())
    unknown = [kind for kind in kinds if kind not in KINDS]
    if unknown or not kinds:
        raise argparse.ArgumentTypeError(f"unknown fault kind {', '.join(unknown)}; use some of {', '.join(KINDS)}")
    return kinds


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tools.soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=15.0, help="how long to offer games (default: %(default)s)")
    parser.add_argument("--dialect", choices=(*SERVER_KINDS, "both"), default="both",
                        help="which server to imitate; both run at once (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the fault schedule, game ids and opponents "
                        "(default: a fresh one, printed)")
    parser.add_argument("--clock", default="1+1", help="minutes+seconds of each game (default: %(default)s)")
    parser.add_argument("--every", type=float, default=15.0,
                        help="mean seconds between two faults (default: %(default)s)")
    parser.add_argument("--faults", type=fault_kinds, default=tuple(KINDS), metavar="KIND,...",
                        help=f"the kinds of fault to inject (default: all: {', '.join(KINDS)})")
    parser.add_argument("--games", type=int, default=None, help="stop offering after this many games per dialect")
    parser.add_argument("--depth", type=int, default=None,
                        help="the bot's engine searches to this depth instead of by the clock (quick runs)")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="where the bot's logs and PGNs go (default: a new temporary folder, kept)")
    return parser


def soak(args: argparse.Namespace) -> list[Summary]:
    """Run the soak of each dialect (in parallel) and return their summaries."""
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="schess-soak-"))
    dialects = list(SERVER_KINDS) if args.dialect == "both" else [args.dialect]
    soaks = [DialectSoak(dialect, args, workdir / dialect) for dialect in dialects]
    print(f"soak: {', '.join(dialects)} for {args.minutes:g} min, seed {args.seed}, clock {args.clock}; "
          f"logs and PGNs in {workdir}", flush=True)
    threads = [threading.Thread(target=s.run, name=f"soak-{s.dialect}") for s in soaks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    missing = [s.dialect for s in soaks if s.summary is None]
    if missing:
        raise RuntimeError(f"the soak of {', '.join(missing)} failed (see above)")
    return [s.summary for s in soaks if s.summary is not None]


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    if args.seed is None:
        args.seed = secrets.randbits(32)
    summaries = soak(args)
    for summary in summaries:
        print("\n".join(summary.lines()), flush=True)
    return 0 if all(s.ok for s in summaries) else 1


if __name__ == "__main__":
    sys.exit(main())

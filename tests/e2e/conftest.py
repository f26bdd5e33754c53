"""Run the real bot against the loopback server: in-process (``bot.app.run.run_bot`` in a thread) or as a
``python -m bot`` subprocess (for restarts). Engine: the bundled one if it can run, else Fairy-Stockfish,
with tiny limits so a game takes seconds; ``SCHESS_E2E_ENGINE`` overrides the command."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional

import pytest

from bot.config import PRODUCTION_TIMING, Timing
from bot.loopback import Game, LoopbackServer, harness
from tests.match.pyffish_board import pyffish_board
from tests.timing import PATIENCE_S, wait_until

REPO = Path(__file__).resolve().parents[2]
TOKEN = "e2e-token-do-not-log"
KEEPALIVE_S = 0.5


def engine_command() -> str:
    """The engine the bot plays with in these tests: the bundled one, or ``SCHESS_E2E_ENGINE``."""
    return os.environ.get("SCHESS_E2E_ENGINE") or "builtin"


ENGINE = engine_command()


#: the game worker's waits for a silent server (bot.game.watch), shortened from minutes to about a second: the
#: page checks, the flag grace, the server's flag delay, the switch to the game page (``BotThread(timing=...)``)
QUICK_WATCH = Timing(quiet_first_check_s=1.0, quiet_page_check_s=1.0, page_check_interval_s=0.5, flag_grace_s=1.0,
                     server_flag_delay_s=1.0, stream_trouble_s=1.0, page_poll_s=0.3)
#: :data:`QUICK_WATCH` with the streams' reconnect back-off from 1 s to 0.1 s: for a server that restarts
QUICK_RESTARTS = replace(QUICK_WATCH, reconnect_base_s=0.1)


def bot_config(loopback: LoopbackServer, pgn_directory: Path, **overrides: Any) -> dict[str, Any]:
    """A config for the bot against ``loopback``: depth-1 engine, fast stream watchdog, PGNs in a temp dir."""
    return harness.bot_config(loopback, pgn_directory, ENGINE, {"depth": 1}, **overrides)


class BotThread:
    """The bot running in this process (``run_bot`` in a daemon thread); ``timing``: its fixed waits (production's
    unless a test shortens them, e.g. :data:`QUICK_WATCH`)."""

    def __init__(self, config: dict[str, Any], max_games: Optional[int] = None,
                 timing: Timing = PRODUCTION_TIMING) -> None:
        from bot.config import settings_from_dict

        self.settings = settings_from_dict(config)
        self.max_games = max_games
        self.timing = timing
        self.exit_code: Optional[int] = None
        self.lobby: Any = None
        self._lobby_ready = threading.Event()
        self.thread = threading.Thread(target=self._run, name="e2e-bot", daemon=True)

    def _run(self) -> None:
        from bot.app.run import run_bot

        def keep(lobby: Any) -> None:
            self.lobby = lobby
            self._lobby_ready.set()

        self.exit_code = run_bot(self.settings, TOKEN, max_games=self.max_games, on_lobby=keep, timing=self.timing)

    def start(self) -> BotThread:
        self.thread.start()
        return self

    def join(self, timeout: float) -> Optional[int]:
        """Wait for the bot to stop by itself (``max_games``); returns its exit code."""
        self.thread.join(timeout)
        assert not self.thread.is_alive(), f"the bot did not stop within {timeout} s"
        return self.exit_code

    def stop(self, timeout: float = 15.0) -> Optional[int]:
        """Ask the lobby to stop (aborting running games) and wait. A clean-up: nothing is asserted, and a bot
        that is not done within these literal waits is left to its daemon thread."""
        if self.thread.is_alive() and self._lobby_ready.wait(5):
            self.lobby.request_stop("abort")
        self.thread.join(timeout)
        return self.exit_code


class BotProcess(harness.BotProcess):
    """The bot as users run it: ``python -m bot --config FILE`` with the e2e token in the environment."""

    def __init__(self, config: dict[str, Any], workdir: Path, *extra_args: str) -> None:
        super().__init__(config, workdir, *extra_args, token=TOKEN, patience_s=PATIENCE_S)


def refereed_server(dialect: str, **options: Any) -> LoopbackServer:
    """A loopback server whose referee is pyffish (Fairy-Stockfish's rules, as on pychess.org), not the
    ``engine.Board`` the bot itself uses: a rules bug the two share cannot pass unnoticed."""
    options.setdefault("board_factory", pyffish_board)
    options.setdefault("token", TOKEN)
    return LoopbackServer(dialect=dialect, **options)  # type: ignore[arg-type]


@pytest.fixture(params=["pychess", "lichess"])
def dialect(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def server(dialect: str) -> Iterator[LoopbackServer]:
    with refereed_server(dialect, keepalive_s=KEEPALIVE_S) as srv:
        yield srv


@pytest.fixture
def pychess_server() -> Iterator[LoopbackServer]:
    with refereed_server("pychess", keepalive_s=KEEPALIVE_S) as srv:
        yield srv


@pytest.fixture
def lichess_server() -> Iterator[LoopbackServer]:
    with refereed_server("lichess", keepalive_s=KEEPALIVE_S) as srv:
        yield srv


@pytest.fixture
def bots() -> Iterator[list[Any]]:
    """Bots started by a test; all are stopped afterwards."""
    started: list[Any] = []
    yield started
    for bot in started:
        bot.stop()


def assert_clean_game(game: Game) -> None:
    """Every move the bot sent was legal and on its turn; the game reached an end."""
    assert game.over, f"game {game.id} still running"
    illegal = [r.uci for r in game.move_log if not r.legal]
    assert not illegal, f"the bot sent illegal moves {illegal} in {game.id}"
    assert not [r for r in game.rejected if r[1] == "illegal"], game.rejected
    assert game.stream_refusals == 0, "the bot opened a second stream for a game it was already streaming"


def replay_pgn(path: Path, variant: str = "seirawan", chess960: bool = False) -> list[str]:
    """Read a PGN the bot saved and replay its SAN moves with engine.Board; returns the moves (UCI)."""
    from engine import Board

    text = path.read_text()
    headers = dict(line[1:-1].split(" ", 1) for line in text.splitlines() if line.startswith("["))
    fen = headers.get("FEN", "").strip('"') or None
    board = Board(fen, variant=variant, chess960=chess960)
    body = " ".join(line for line in text.splitlines() if line and not line.startswith("["))
    body = re.sub(r"\{[^}]*\}", " ", body)  # comments: evaluations, clocks, stand-in notes
    moves = []
    for token in body.split():
        if token[0].isdigit() and ("." in token or token in ("1-0", "0-1", "1/2-1/2")):
            continue
        if token in ("*",):
            continue
        moves.append(str(board.push_san(token)))
    return moves


#: a position where the side to move has lost (the bot resigns it)
HOPELESS = "qr4k1/8/8/8/8/8/8/7K[] w - - 0 1"

#: the challenger :func:`settled` sends: :func:`calm_config` blocks it
MARKER = "MarkerBot"


def calm_config(port: int) -> dict[str, Any]:
    """The config overrides :func:`settled` needs: :data:`MARKER` blocked, the status page on ``port``."""
    return {"challenge": {"block_list": [MARKER.lower()]}, "status": {"listen": f"127.0.0.1:{port}"}}


def settled(server: LoopbackServer, port: int, timeout: float) -> None:
    """Wait until the bot (configured with :func:`calm_config`) has handled every event its event stream
    brought so far, and every game worker it started has ended.

    The lobby handles its events in order, so its answer to a challenge sent now (from :data:`MARKER`, which it
    declines) comes after it handled the earlier ones (a ``gameStart`` among them, which starts a worker); its
    status page then lists the workers still running, until each has ended and been reaped. Proves what a
    sleep only hoped: nothing the bot was going to do about those events is still to come."""
    import json
    import urllib.request

    challenge_id = server.challenge(challenger=MARKER)
    answer = server.wait_for_answer(challenge_id, timeout)
    assert not answer.accepted, answer
    running: list[Any] = []

    def none_running() -> bool:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=timeout) as reply:
            running[:] = json.loads(reply.read())["games"]
        return not running

    wait_until(none_running, lambda: f"no game running (still running: {running})", timeout)

#: what Lichess's PGN exports write for each final status (docs/bot.md)
TERMINATION = {"mate": "Normal", "resign": "Normal", "stalemate": "Normal", "draw": "Normal",
               "outoftime": "Time forfeit", "aborted": "Abandoned"}


def pgn_of(path: Path) -> tuple[dict[str, str], list[str]]:
    """The saved PGN's tags and its SAN moves (comments such as ``{[%clk 0:00:58]}`` left out)."""
    text = path.read_text()
    tags = dict(re.findall(r'^\[(\w+) "(.*)"\]$', text, re.M))
    body = re.sub(r"\{[^}]*\}", " ", text.split("\n\n", 1)[1])
    sans = [t for t in body.split() if not re.match(r"^(\d+\.+|1-0|0-1|1/2-1/2|\*)$", t)]
    return tags, sans


def assert_pgn_matches_server(game: Game, pgn_directory: Path, termination: str | None = None) -> dict[str, str]:
    """The bot's PGN has the server's result, the Termination for its status, and exactly its plies."""
    path = pgn_directory / f"{game.id}.pgn"
    assert path.exists(), f"no PGN for {game.describe()}"
    tags, sans = pgn_of(path)
    assert tags["Result"] == game.result(), (tags, game.describe())
    assert tags["Termination"] == (termination or TERMINATION[game.status]), (tags, game.describe())
    assert sans == game.sans, f"PGN plies {sans} != server's {game.sans}"
    return tags

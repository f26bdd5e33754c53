"""What the status page shows, read from the running bot without ever holding it up.

The page's threads only read: the lobby's plain attributes and the game workers' :class:`GameContext`, whose
``full`` and ``state`` are replaced whole, never changed in place. A live board is rebuilt here from the
server's move list (one :class:`GameBoard` per game, kept between requests), never read off the worker's own
board, so the page cannot see one half-way through a move. Nothing here writes to the bot.

No token, token file or config value beyond what the page shows (the server's address, the account, the
engine's name) is ever put in a snapshot; the error lines are redacted of the token.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

from bot.game import GameWorker
from bot.game.position import GameBoard, ServerMoveError
from bot.lobby.loop import Lobby
from bot.wire.links import game_url
from engine import __version__, svg

from .history import History, eval_graph, score_pawns, totals

log = logging.getLogger(__name__)

#: error lines kept for the page
MAX_ERRORS = 20
#: finished games in /api/status (all of them count in the totals)
FINISHED_SHOWN = 30


class RecentErrors(logging.Handler):
    """The last WARNING and ERROR lines of the ``bot`` loggers, with ``secret`` (the token) blanked out."""

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(logging.WARNING)
        self.secrets = tuple(secret for secret in secrets if secret)
        self.lines: collections.deque[dict[str, Any]] = collections.deque(maxlen=MAX_ERRORS)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad log call must not break logging
            message = str(record.msg)
        for secret in self.secrets:
            message = message.replace(secret, "[token]")
        self.lines.append({"at": record.created, "level": record.levelname, "logger": record.name,
                           "message": message[:500]})

    def recent(self) -> list[dict[str, Any]]:
        return list(reversed(self.lines))


@dataclass(frozen=True)
class BotFacts:
    """What does not change while the bot runs."""

    server_url: str
    dialect: str
    account: str
    engine: str
    build: str
    started_at: float


class StatusSource:
    """Builds the JSON of ``/api/status`` and ``/api/finished``."""

    def __init__(self, lobby: Lobby, facts: BotFacts, errors: RecentErrors) -> None:
        self.lobby = lobby
        self.facts = facts
        self.errors = errors
        self.history = History(lobby.settings.pgn_directory, facts.account)
        self._boards: dict[str, tuple[GameBoard, str, tuple[str, ...]]] = {}
        self._lock = threading.Lock()

    # ---- now ----

    def status(self) -> dict[str, Any]:
        lobby = self.lobby
        settings = lobby.settings
        workers = list(lobby.workers.items())
        live = [game for game in (self._game(game_id, worker) for game_id, worker in workers) if game is not None]
        with self._lock:
            for game_id in set(self._boards) - {game_id for game_id, _ in workers}:
                del self._boards[game_id]
        used = lobby.games.realtime_workers() + len(lobby.games.accepted) + lobby.matchmaker.waiting
        concurrency = settings.challenge.concurrency
        line_at = lobby.last_line_at
        health = lobby.engine_health.health_text()
        last_line_s = None if line_at is None else round(time.monotonic() - line_at, 1)
        finished = self.history.games()
        return {
            "version": __version__,
            "now": time.time(),
            "bot": {"server": self.facts.server_url, "dialect": self.facts.dialect, "account": self.facts.account,
                    "engine": self.facts.engine, "build": self.facts.build, "started_at": self.facts.started_at},
            "connection": {"connected": lobby.connected, "since": lobby.connection_changed_at,
                           "last_line_s": last_line_s, "note": lobby.connection_note},
            "health": {"ok": not health.startswith("unhealthy"), "text": health},
            "healthy": lobby.connected and not health.startswith("unhealthy"),
            "slots": {"concurrency": concurrency, "used": min(used, concurrency),
                      "free": max(0, concurrency - used)},
            "queue": {"waiting": lobby.challenges_waiting(), "queued": [
                {"id": challenge.id, "from": challenge.challenger.name, "variant": challenge.variant.config_name}
                for challenge, _at in list(lobby.answers.queued.values())]},
            "errors": self.errors.recent(),
            "games": live,
            "finished": [game.summary() for game in finished[:FINISHED_SHOWN]],
            "finished_version": self.history.version,
            "finished_this_run": lobby.games_finished,
            "totals": totals(finished),
        }

    def _game(self, game_id: str, worker: GameWorker) -> dict[str, Any] | None:
        game = worker.game
        full, state, we_are_white = game.full, game.state, game.we_are_white
        out: dict[str, Any] = {"id": game_id, "url": game_url(self.facts.server_url, game_id),
                               "phase": game.phase.value, "opponent": game.opponent_name}
        if full is None or state is None or we_are_white is None:
            return out
        opponent = full.black if we_are_white else full.white
        out.update({"variant": full.variant.config_name, "color": "white" if we_are_white else "black",
                    "rated": full.rated, "opponent_rating": opponent.rating, "opponent_title": opponent.title})
        try:
            board_svg, turn, ply = self._board(game_id, full.initial_fen, full.variant, state.moves, we_are_white)
        except ValueError:  # a variant the rules do not know: no diagram
            board_svg, turn, ply = "", "white" if len(state.moves) % 2 == 0 else "black", len(state.moves)
        out.update({"svg": board_svg, "ply": ply, "turn": turn})
        clock: dict[str, Any] = {"kind": full.clock.kind}
        if full.clock.kind == "clock":
            elapsed_ms = max(0, int((time.monotonic() - game.state_received_at) * 1000))
            white_ms, black_ms = state.wtime_ms, state.btime_ms
            running = turn if ply >= 2 and not state.is_final and not game.over else None
            if running == "white":
                white_ms = max(0, white_ms - elapsed_ms)
            elif running == "black":
                black_ms = max(0, black_ms - elapsed_ms)
            clock.update({"white_ms": white_ms, "black_ms": black_ms, "running": running,
                          "increment_ms": full.clock.increment_ms})
        out["clock"] = clock
        result = game.last_result
        if result is not None:
            out["eval"] = {"text": "book" if result.book else result.describe_score(),
                           "cp": result.score.cp if result.score else None,
                           "mate": result.score.mate if result.score else None, "depth": result.depth}
        evals = []
        for index, note in sorted(dict(game.move_notes).items()):
            if note.result is not None and note.result.score is not None:
                score = note.result.score
                evals.append((index + 1, score_pawns(score.cp, score.mate)))
        out["graph"] = eval_graph(evals, max(ply, 2))
        return out

    def _board(self, game_id: str, initial_fen: str | None, variant: Any, moves: tuple[str, ...],
               we_are_white: bool) -> tuple[str, str, int]:
        """The live diagram (SVG), the side to move and the ply, from the server's moves (cached per game)."""
        with self._lock:
            cached = self._boards.get(game_id)
            if cached is not None and cached[2] == moves:
                position = cached[0]
                return cached[1], "white" if position.board.turn else "black", position.ply
            position = cached[0] if cached is not None else GameBoard(initial_fen, variant)
            try:
                position.update(moves)
            except ServerMoveError:
                position = GameBoard(initial_fen, variant)
            board = position.board
            text = svg.board(board, orientation=we_are_white, lastmove=board.peek() if board.move_stack else None,
                             check=svg.check_square(board))
            self._boards[game_id] = (position, text, moves)
            return text, "white" if board.turn else "black", position.ply

    # ---- finished ----

    def finished(self, limit: int = FINISHED_SHOWN) -> dict[str, Any]:
        games = self.history.games()[:limit]
        return {"finished_version": self.history.version,
                "games": [{**game.summary(), "graph": game.graph_svg(), "final": game.final_svg()}
                          for game in games]}

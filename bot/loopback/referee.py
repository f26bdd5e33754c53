"""The loopback server's state machine: challenges, games, streams, and the answers to the bot's requests.

Everything here runs under one lock (``self._cond``); HTTP handler threads call the ``api_*`` methods, tests
call the public methods of ``LoopbackServer`` (a subclass). Opponents think in their own threads without the
lock, so a slow engine never blocks the server.
"""

from __future__ import annotations

import random
import string
import threading
import time
from typing import Any, Callable, Optional

import bot.loopback.wire as wire
from bot import SERVER_KINDS, ServerKind
from bot.loopback.account import AccountDesk
from bot.loopback.answers import OK, OpponentFactory, Reply, ScriptedBot
from bot.loopback.desk import GameDesk
from bot.loopback.faults import Faults
from bot.loopback.games import BoardFactory, Game, default_board_factory
from bot.loopback.lobby import ChallengeDesk
from bot.loopback.model import LoopbackChallenge, MoveRecord, RequestRecord, User
from bot.loopback.opponents import Opponent, RandomMoves
from bot.loopback.stream_desk import CAPABILITIES_HEADER, StreamDesk
from bot.loopback.streams import Stream
from bot.loopback.tournaments import LoopbackTournament, TournamentDesk

DECLINE_REASONS = (
    "generic",
    "later",
    "tooFast",
    "tooSlow",
    "timeControl",
    "rated",
    "casual",
    "standard",
    "variant",
    "noBot",
    "onlyBot",
)

__all__ = ["CAPABILITIES_HEADER", "OK", "OpponentFactory", "Referee", "Reply", "ScriptedBot"]


class Referee(AccountDesk, StreamDesk, ChallengeDesk, GameDesk, TournamentDesk):
    """Game logic shared by the HTTP layer and the test API."""

    def __init__(
        self,
        dialect: ServerKind,
        token: str,
        bot_name: str,
        bot_title: Optional[str] = "BOT",
        keepalive_s: Optional[float] = None,
        seed: int = 0,
        board_factory: Optional[BoardFactory] = None,
        opponent_factory: Optional[OpponentFactory] = None,
        opponent_delay_s: float = 0.0,
        float_clocks: bool = False,
        king_takes_rook: bool = False,
        clock_starts_at_ply: int = 2,
        abort_unplayed_after_s: Optional[float] = None,
        second_game_stream_breaks: bool = True,
        on_move: Optional[Callable[[Game, MoveRecord], None]] = None,
        on_game_end: Optional[Callable[[Game], None]] = None,
    ) -> None:
        if dialect not in SERVER_KINDS:
            raise ValueError(f"unknown dialect {dialect!r}: use one of {', '.join(SERVER_KINDS)}")
        self.dialect: ServerKind = dialect
        self.token = token
        self.bot = User(bot_name, 2000, bot_title)
        self.bot_title = bot_title
        self.keepalive_s = keepalive_s if keepalive_s is not None else (6.0 if dialect == "pychess" else 7.0)
        self.board_factory = board_factory
        self.opponent_factory = opponent_factory or (lambda: RandomMoves(seed))
        self.opponent_delay_s = opponent_delay_s
        self.float_clocks = float_clocks
        self.king_takes_rook = king_takes_rook
        self.clock_starts_at_ply = clock_starts_at_ply
        self.abort_unplayed_after_s = abort_unplayed_after_s
        self.second_game_stream_breaks = second_game_stream_breaks
        self.on_move = on_move
        self.on_game_end = on_game_end
        self.base_url = "http://127.0.0.1"
        self._rng = random.Random(seed)
        self._cond = threading.Condition(threading.RLock())
        self.stopping = threading.Event()
        self.challenges: dict[str, LoopbackChallenge] = {}
        self.games: dict[str, Game] = {}
        self.online_bots: dict[str, ScriptedBot] = {}
        self.tournaments: dict[str, LoopbackTournament] = {}
        self.event_streams: list[Stream] = []
        self.event_stream_connections = 0
        self.requests: list[RequestRecord] = []
        self.capabilities: Optional[dict[str, Any]] = None
        self._challenge_opponents: dict[str, Opponent] = {}
        self._threads: list[threading.Thread] = []
        self._in_flight: dict[str, int] = {}
        self.restarted_at = 0.0
        self.faults: Faults  # set by LoopbackServer, which has the listener the faults switch off
        self.stream_encoding = "chunked"

    @property
    def lock(self) -> threading.Condition:
        """The server's one lock (a condition: tests wait on it for changes)."""
        return self._cond

    # --- helpers ---
    def _new_id(self) -> str:
        alphabet = string.ascii_letters + string.digits
        while True:
            candidate = "".join(self._rng.choice(alphabet) for _ in range(8))
            if candidate not in self.challenges:
                return candidate

    def _spawn(self, target: Callable[..., None], *args: Any, name: str) -> None:
        thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _emit_event(self, line: str) -> None:
        for stream in list(self.event_streams):
            if stream.finished.is_set():
                self.event_streams.remove(stream)
            elif not stream.silent:
                stream.send(line)

    def _emit_game(self, game: Game, line: str) -> None:
        live = [s for s in game.streams if not s.finished.is_set() and not s.silent]
        game.streams = live
        if not live and self.dialect == "pychess":
            game.backlog.append(line)
        for stream in live:
            stream.send(line)

    def _state_line(self, game: Game, moves: Optional[list[str]] = None) -> str:
        return wire.game_state_line(game, self.dialect, moves, self.float_clocks)

    def _offered_to_bot(self, challenge: LoopbackChallenge) -> bool:
        if self.dialect != "pychess":
            return True
        # as the real server checks it: S-chess960 needs "seirawan960" in the header, "seirawan" is not enough
        variants = (self.capabilities or {}).get("variants") or []
        return challenge.variant + ("960" if challenge.chess960 else "") in variants

    # --- games ---
    def _start_game(self, challenge: LoopbackChallenge, opponent_player: User, opponent: Opponent) -> Game:
        factory = self.board_factory or default_board_factory()
        game = Game(challenge, self.bot, opponent_player, opponent, factory, self.clock_starts_at_ply)
        self.games[game.id] = game
        self._emit_event(wire.game_start_event(game, self.dialect))
        self._spawn(self._opponent_loop, game, name=f"loopback-opponent-{game.id}")
        self._cond.notify_all()
        return game

    def _push(self, game: Game, uci: str, by: str) -> None:
        now = time.monotonic()
        game.push(uci, by, now, self.king_takes_rook and self.dialect == "lichess")
        record = game.move_log[-1]
        ending = game.outcome_status()
        # before the move goes out on the streams: a test may cut the stream so that the bot never sees it
        if self.on_move is not None:
            self.on_move(game, record)
        # lichess: the final state (with status) comes from _finish; pychess never sends the state of the
        # move that ended the game, only a bare gameEnd (docs/server-api.md)
        if ending is None:
            self._emit_game(game, self._state_line(game))
        if ending is not None:
            self._finish(game, *ending)
        self._cond.notify_all()

    def _finish(
        self, game: Game, status: str, winner: Optional[bool], termination: str, end_event: bool = True
    ) -> None:
        if game.over:
            return
        game.finish(status, winner, termination)
        if self.dialect == "lichess":
            self._emit_game(game, self._state_line(game))
            for stream in game.streams:
                stream.close()
            self._emit_event(wire.game_start_event(game, self.dialect, "gameFinish"))
        elif end_event:
            self._emit_game(game, wire.game_end_line(game))
        if self.on_game_end is not None:
            self.on_game_end(game)
        self._tournament_game_ended(game)
        self._cond.notify_all()

    def _opponent_loop(self, game: Game) -> None:
        asked_version = -1
        opponent_color = not game.bot_color
        try:
            while True:
                with self._cond:
                    seen = asked_version
                    self._cond.wait_for(
                        lambda: (
                            self.stopping.is_set()
                            or game.over
                            or (game.board.turn == opponent_color and game.version != seen)  # noqa: B023
                        ),
                        timeout=1.0,
                    )
                    if self.stopping.is_set() or game.over:
                        return
                    if game.board.turn != opponent_color or game.version == asked_version:
                        continue
                    asked_version = game.version
                    position = game.position_for(opponent_color)
                action = game.opponent.choose(position)
                if self.opponent_delay_s > 0:
                    time.sleep(self.opponent_delay_s)
                with self._cond:
                    if game.over or game.version != asked_version or action is None:
                        continue
                    self._opponent_action(game, action)
        finally:
            game.opponent.close()

    def _opponent_action(self, game: Game, action: str, announce: bool = True) -> None:
        color = not game.bot_color
        if action == "resign":
            self._finish(game, "resign", game.bot_color, f"{game.opponent_player.name} resigned",
                         end_event=announce)
        elif action == "abort":
            self._finish(game, "aborted", None, f"{game.opponent_player.name} aborted")
        elif action == "offer-draw":
            game.draw_offer[color] = True
            game.version += 1
            self._emit_game(game, self._state_line(game))
        elif game.canonical_move(action, lichess=False) is not None:
            self._push(game, action, "opponent")
        self._cond.notify_all()

    def restore_bot_resignations(self) -> list[str]:
        """pychess after a restart: games a BOT resigned are running again (the server keeps a BOT's
        resignation in memory only), clocks included. Returns their ids. Our bot's resignation brings its
        opponent back to the board; an opponent BOT that resigned has left the game, so its clock (on move)
        runs out and the server records a loss on time, as seen on the real server (docs/server-api.md)."""
        with self._cond:
            restored = []
            for game in self.games.values():
                ours = game.termination == "bot resigned"
                theirs = game.opponent_player.title == "BOT" \
                    and game.termination == f"{game.opponent_player.name} resigned"
                if game.status == "resign" and (ours or theirs):
                    game.status, game.winner, game.termination, game.ended_at = "started", None, "", None
                    if game.clock is not None:
                        game.clock.restart(bool(game.board.turn), len(game.moves), time.monotonic())
                    game.version += 1
                    if ours:
                        self._spawn(self._opponent_loop, game, name=f"loopback-opponent-{game.id}")
                    restored.append(game.id)
            self._cond.notify_all()
            return restored

    def reset_casual_clocks(self) -> None:
        """pychess after a restart: a casual game keeps no clock history (only rated and tournament games do),
        so both clocks of every running casual game start again from the initial time, the side to move's
        from now on (pychess-variants 37b7a729 on loopback, 2026-12-03: 188.3 s and 183.7 s before a restart,
        180000 and 180000 after it in a 3+2 game). A rated game keeps its clocks."""
        with self._cond:
            now = time.monotonic()
            for game in self.games.values():
                tc = game.challenge.time_control
                if game.over or game.clock is None or game.challenge.rated:
                    continue
                game.clock.stop(now)
                initial = float((tc.limit_s or tc.increment_s or 0) * 1000)  # 0+N: N seconds, as pychess
                game.clock.remaining = {True: initial, False: initial}
                game.clock.restart(bool(game.board.turn), len(game.moves), now)
                game.version += 1
            self._cond.notify_all()

    def announced_after_restart(self, game: Game) -> bool:
        """Whether a game that was running at the last restart is offered to our bot (``gameStart``) again.
        pychess's restore re-queues one bot per game, ``game.wplayer if game.wplayer.bot else game.bplayer``:
        in a game between two BOTs only White hears of it again; the Black one never does."""
        if self.dialect != "pychess" or game.created_at >= self.restarted_at:
            return True
        return game.bot_color or game.opponent_player.title != "BOT"

    def check_clocks(self) -> None:
        """Flag games whose side to move has run out of time, abort games the bot never started."""
        with self._cond:
            now = time.monotonic()
            for game in self.games.values():
                if game.over:
                    continue
                flagged = game.clock.flagged(now) if game.clock is not None else None
                if flagged is not None:
                    loser = "bot" if flagged == game.bot_color else game.opponent_player.name
                    self._finish(game, "outoftime", not flagged, f"{loser} lost on time")
                elif (
                    self.abort_unplayed_after_s is not None
                    and not game.bot_moves()
                    and game.is_bot_turn()
                    and now - game.started_monotonic > self.abort_unplayed_after_s
                ):
                    self._finish(game, "aborted", None, "bot never moved")

    # --- what the bot can ask (HTTP layer) -----------------------------------------------------------------
    def request_started(self, endpoint: str) -> int:
        """Count a request being served; returns how many to ``endpoint`` are in flight now."""
        with self._cond:
            self._in_flight[endpoint] = self._in_flight.get(endpoint, 0) + 1
            return self._in_flight[endpoint]

    def record(self, entry: RequestRecord, finished: Optional[str] = None) -> None:
        """Keep a request for the tests' assertions; ``finished`` names the counted endpoint whose request this
        answers, which stops being in flight in the same step (so a wait for a game's end, which also waits for
        the requests in flight, never sees the game ended by a request that is not recorded yet)."""
        with self._cond:
            self.requests.append(entry)
            if finished is not None:
                self._in_flight[finished] -= 1
            self._cond.notify_all()

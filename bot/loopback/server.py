"""``LoopbackServer``: a Lichess-compatible BOT API server on 127.0.0.1 (or ``host``) for tests and the sandbox.

with LoopbackServer(dialect="pychess", token="t") as srv:
    challenge_id = srv.challenge(challenger="Alice", clock=(60, 1), opponent=RandomMoves(seed=3))
    ... start the bot with server.url = srv.url and token "t" ...
    assert srv.wait_for_answer(challenge_id, 10).accepted
    game = srv.wait_for_game_end(challenge_id, 60)
    print(game.pgn())
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, Optional, TypeVar

import bot.loopback.wire as wire
from bot import ServerKind
from bot.loopback.answers import OpponentFactory, ScriptedBot
from bot.loopback.faults import Faults
from bot.loopback.games import Game, default_board_factory
from bot.loopback.http import LoopbackHTTPServer
from bot.loopback.model import ChatRecord, ColorName, LoopbackChallenge, LoopbackTimeControl, User
from bot.loopback.observe import Observers
from bot.loopback.opponents import Opponent
from bot.loopback.positions import start_fen
from bot.loopback.referee import Referee
from bot.loopback.tournaments import LoopbackTournament, TournamentKind
from engine.variants import NAMES, VARIANTS

T = TypeVar("T")
HOST = "127.0.0.1"
EVERY_INTERFACE = ("0.0.0.0", "")  # bound to these, the server is reached on this machine as 127.0.0.1


class LoopbackServer(Referee, Observers):
    """A BOT API server in one dialect, bound to 127.0.0.1 (port 0 = any free port; see ``port``/``url``).

    ``host`` binds another IPv4 address instead, e.g. ``0.0.0.0`` or a Docker bridge's gateway so that
    containers reach the server; ``url`` then names that address (127.0.0.1 for ``0.0.0.0``).

    Keyword arguments beyond those below are ``Referee`` options: ``bot_title``, ``keepalive_s``, ``seed``,
    ``board_factory``, ``opponent_factory`` (default: seeded random moves), ``opponent_delay_s``,
    ``float_clocks`` (pychess float clocks), ``king_takes_rook`` (Lichess castling as e1h1),
    ``clock_starts_at_ply``, ``abort_unplayed_after_s``, ``second_game_stream_breaks``, ``on_move``,
    ``on_game_end``.
    """

    def __init__(
        self,
        dialect: ServerKind = "pychess",
        token: str = "loopback-token",
        bot_name: Optional[str] = None,
        port: int = 0,
        stream_encoding: str = "chunked",
        host: str = HOST,
        **options: Any,
    ) -> None:
        if stream_encoding not in ("chunked", "close"):
            raise ValueError("stream_encoding must be 'chunked' or 'close'")
        super().__init__(
            dialect, token, bot_name or ("SeirawanBot" if dialect == "pychess" else "SchessBot"), **options
        )
        self.stream_encoding = stream_encoding
        self.host = host
        self.port = port
        self.faults = Faults(self)
        self._httpd: Optional[LoopbackHTTPServer] = None
        self._serve_thread: Optional[threading.Thread] = None
        self._clock_thread: Optional[threading.Thread] = None
        self._listener_lock = threading.Lock()

    # --- lifecycle ---
    @property
    def url(self) -> str:
        """The base URL to give the bot, e.g. ``http://127.0.0.1:54321``."""
        return f"http://{HOST if self.host in EVERY_INTERFACE else self.host}:{self.port}"

    def start(self) -> LoopbackServer:
        """Bind and serve in background threads; returns ``self``."""
        self.open_listener()
        self.base_url = self.url
        self._clock_thread = threading.Thread(target=self._clock_loop, name="loopback-clocks", daemon=True)
        self._clock_thread.start()
        return self

    def stop(self) -> None:
        """End every stream (pychess: ``{"type":"terminated"}`` first), stop serving, close the socket."""
        with self._cond:
            for stream in self.event_streams:
                if self.dialect == "pychess":
                    stream.send(wire.PYCHESS_TERMINATED)
                stream.close()
            for game in self.games.values():
                for stream in game.streams:
                    stream.close()
            streams = self.open_streams("any")
        deadline = time.monotonic() + 1.0
        for stream in streams:
            stream.finished.wait(max(0.0, deadline - time.monotonic()))
        self.stopping.set()
        with self._cond:
            self._cond.notify_all()
        self.close_listener()
        for thread in self._threads:
            thread.join(timeout=2)

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(
        self,
        kind: Optional[type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self.stop()

    def open_listener(self) -> None:
        """Bind (again) to ``host`` (127.0.0.1 by default) on ``port`` and serve."""
        with self._listener_lock:
            if self._httpd is not None:
                return
            self._httpd = LoopbackHTTPServer((self.host, self.port), self)
            self.port = self._httpd.server_address[1]
            self._serve_thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.05},
                name="loopback-http",
                daemon=True,
            )
            self._serve_thread.start()

    def close_listener(self) -> None:
        """Stop accepting connections (new ones are refused); open streams are not touched, the other open
        connections (a client's idle keep-alive ones) are cut."""
        with self._listener_lock:
            httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
            streams = {stream.connection for stream in self.open_streams("any")}
            httpd.cut_connections(keep=streams)

    def _clock_loop(self) -> None:
        while not self.stopping.wait(0.02):
            self.check_clocks()

    # --- driving the server from a test ---
    def challenge(
        self,
        challenger: str = "Alice",
        variant: str = "seirawan",
        chess960: bool = False,
        clock: Optional[tuple[int, int]] = (180, 2),
        days: Optional[int] = None,
        rated: bool = False,
        color: str = "random",
        rating: int = 1500,
        title: Optional[str] = None,
        initial_fen: Optional[str] = None,
        opponent: Optional[Opponent] = None,
    ) -> str:
        """Challenge the bot; returns the challenge id (which becomes the game id). ``color`` is the
        challenger's. ``clock=None`` with ``days`` is correspondence, with neither unlimited."""
        with self._cond:
            time_control = LoopbackTimeControl(clock[0], clock[1]) if clock else LoopbackTimeControl(days=days)
            final: ColorName = (
                "white" if color == "white" else "black" if color == "black" else self._rng.choice(("white", "black"))
            )
            if variant not in VARIANTS or (chess960 and (variant, True) not in NAMES):
                raise ValueError(f"unknown variant {variant!r}{' with chess960' if chess960 else ''}: use one of "
                                 f"{', '.join(VARIANTS)}")
            if chess960 and initial_fen is None:
                initial_fen = start_fen(variant, True, self._rng)
            if initial_fen is not None:
                # fail here, in the test, rather than later in the server thread that accepts the challenge
                factory = self.board_factory or default_board_factory()
                factory(initial_fen, variant=variant, chess960=chess960)
            challenge = LoopbackChallenge(
                id=self._new_id(),
                challenger=User(challenger, rating, title),
                dest=self.bot,
                variant=variant,
                chess960=chess960,
                time_control=time_control,
                rated=rated,
                color=color,
                final_color=final,
                direction="in",
                initial_fen=initial_fen,
            )
            self.challenges[challenge.id] = challenge
            if opponent is not None:
                self._challenge_opponents[challenge.id] = opponent
            challenge.offered = self._offered_to_bot(challenge)
            if challenge.offered:
                self._emit_event(
                    wire.challenge_event(challenge, self.dialect, self.base_url, bot_account=self.bot_title == "BOT")
                )
            self._cond.notify_all()
            return challenge.id

    def flood_challenges(self, count: int, **kwargs: Any) -> list[str]:
        """``count`` challenges in a row (challengers ``Flood0``, ``Flood1``, ...)."""
        return [self.challenge(challenger=f"Flood{i}", **kwargs) for i in range(count)]

    def cancel_challenge(self, challenge_id: str) -> None:
        """The challenger withdraws (Lichess sends ``challengeCanceled``)."""
        with self._cond:
            challenge = self.challenges[challenge_id]
            if challenge.status == "created":
                challenge.status = "canceled"
                if self.dialect == "lichess":
                    self._emit_event(wire.challenge_event(challenge, self.dialect, self.base_url, "challengeCanceled"))
            self._cond.notify_all()

    def create_tournament(
        self,
        kind: TournamentKind = "arena",
        name: str = "Loopback Bot Arena",
        clock: tuple[int, int] = (60, 1),
        variant: str = "chess",
        rated: bool = False,
        pairings: int = 3,
        opponent: Optional[Callable[[int], Opponent]] = None,
        password: Optional[str] = None,
        team: Optional[str] = None,
        bots_allowed: bool = True,
        min_rating: Optional[int] = None,
        max_rating: Optional[int] = None,
        started: bool = True,
    ) -> str:
        """A Lichess arena (or ``kind="swiss"``) the bot may join: it pairs the bot ``pairings`` times, one game
        after the other, while the bot stays in (``opponent(n)``: the n-th pairing's opponent, default
        random moves); ``password``, ``team`` (a team battle), ``bots_allowed`` and the rating range are its
        conditions. Returns its id; ``tournaments[id]`` records the joins, withdrawals and games."""
        if self.dialect != "lichess":
            raise ValueError("tournaments are a Lichess dialect feature: pychess.org lets no BOT in")
        with self._cond:
            tournament_id = self._new_id()
            self.tournaments[tournament_id] = LoopbackTournament(
                tournament_id, kind, name, clock, variant, rated, pairings,
                opponent or (lambda number: self.opponent_factory()), password=password, team=team,
                bots_allowed=bots_allowed, min_rating=min_rating, max_rating=max_rating,
                status="started" if started else "created")
            return tournament_id

    def add_online_bot(
        self,
        name: str,
        rating: int = 1500,
        answer: str = "accept",
        decline_reason: str = "generic",
        answer_delay_s: float = 0.05,
        opponent: Optional[OpponentFactory] = None,
    ) -> User:
        """List a bot in ``/api/bot/online`` that answers the bot's challenges: ``accept``, ``decline`` (with
        ``decline_reason``) or ``ignore``."""
        player = User(name, rating, "BOT")
        with self._cond:
            self.online_bots[player.id] = ScriptedBot(player, answer, decline_reason, answer_delay_s, opponent)
        return player

    def game(self, game_id: str) -> Game:
        """The game with this id (KeyError if it never started)."""
        with self._cond:
            return self.games[game_id]

    def play_opponent_move(self, game_id: str, uci: str) -> None:
        """Play ``uci`` for the opponent now (ValueError if it is not the opponent's legal move)."""
        with self._cond:
            game = self.games[game_id]
            if game.over or game.is_bot_turn() or game.canonical_move(uci, lichess=False) is None:
                raise ValueError(f"{uci} is not a legal opponent move in game {game_id}")
            self._push(game, uci, "opponent")

    def set_opponent(self, game_id: str, opponent: Opponent) -> None:
        """Hand the rest of the game to another opponent (asked at once if it is the opponent's turn)."""
        with self._cond:
            game = self.games[game_id]
            previous, game.opponent = game.opponent, opponent
            game.version += 1
            self._cond.notify_all()
        if previous is not opponent:
            previous.close()  # e.g. quit the engine process of an EngineOpponent

    def opponent_resign(self, game_id: str, announce: bool = True) -> None:
        """The opponent resigns. ``announce=False`` (pychess): as a BOT's resignation on the real server, no
        ``gameEnd`` reaches the bot; only the game page tells."""
        with self._cond:
            self._opponent_action(self.games[game_id], "resign", announce)

    def abort_game(self, game_id: str) -> None:
        """The opponent (or the server) aborts the game."""
        with self._cond:
            self._opponent_action(self.games[game_id], "abort")

    def offer_draw(self, game_id: str) -> None:
        """The opponent offers a draw (``wdraw``/``bdraw`` in the next state)."""
        with self._cond:
            self._opponent_action(self.games[game_id], "offer-draw")

    def offer_takeback(self, game_id: str) -> None:
        """Lichess: the opponent asks for a takeback (``wtakeback``/``btakeback``); the bot answers."""
        with self._cond:
            game = self.games[game_id]
            game.takeback_offer[not game.bot_color] = True
            game.version += 1
            self._emit_game(game, self._state_line(game))
            self._cond.notify_all()

    def takeback(self, game_id: str, plies: int = 2) -> int:
        """Take back ``plies`` half-moves at once, without asking the bot (as a human's takeback on pychess):
        the next ``gameState`` has a shorter move list. Returns how many were undone."""
        with self._cond:
            game = self.games[game_id]
            undone = game.take_back(plies, time.monotonic())
            self._emit_game(game, self._state_line(game))
            self._cond.notify_all()
            return undone

    def set_clock(self, game_id: str, color: bool, ms: float) -> None:
        """Put ``ms`` on one side's clock (clock-pressure tests)."""
        with self._cond:
            game = self.games[game_id]
            if game.clock is not None:
                game.clock.set_remaining(color, ms)
                game.version += 1
                self._emit_game(game, self._state_line(game))

    def send_chat(self, game_id: str, text: str, room: str = "player") -> None:
        """The opponent writes in the game chat."""
        with self._cond:
            game = self.games[game_id]
            game.chat.append(ChatRecord(room, text, game.opponent_player.name, time.time()))
            self._emit_game(game, wire.chat_line(room, game.opponent_player.name, text, self.dialect))

    def opponent_gone(self, game_id: str, gone: bool = True, claim_win_in_s: int = 0) -> None:
        """Lichess: the opponent left (``opponentGone``); the bot may then claim victory."""
        with self._cond:
            game = self.games[game_id]
            game.opponent_gone = gone
            game.claim_allowed_at = time.monotonic() + claim_win_in_s
            if self.dialect == "lichess":
                self._emit_game(game, wire.opponent_gone_line(gone, claim_win_in_s))

    def inject_event_line(self, line: str) -> None:
        """Send a raw line (malformed JSON, unknown types...) on the open event streams."""
        with self._cond:
            self._emit_event(line)

    def inject_game_line(self, game_id: str, line: str) -> None:
        """Send a raw line on the game's stream (kept for the next connection on pychess if none is open)."""
        with self._cond:
            self._emit_game(self.games[game_id], line)

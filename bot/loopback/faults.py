"""Fault injection for the loopback server: HTTP errors per endpoint, dropped and silent streams, refused
connections, network delay. Every fault is switched on by a test and applies from then on."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Literal, Optional, Protocol

from bot import ServerKind
from bot.loopback.answers import Reply
from bot.loopback.streams import Stream
from bot.loopback.wire import PYCHESS_TERMINATED

StreamSelector = Literal["event", "game", "any"]


class FaultTarget(Protocol):
    """What the fault switches need of the server (``LoopbackServer`` has it); a protocol, so that this module
    does not import the server that imports it."""

    dialect: ServerKind
    restarted_at: float
    stopping: threading.Event

    @property
    def lock(self) -> threading.Condition: ...
    def restore_bot_resignations(self) -> list[str]: ...
    def reset_casual_clocks(self) -> None: ...
    def open_streams(self, kind: StreamSelector = "any", game_id: Optional[str] = None) -> list[Stream]: ...
    def open_listener(self) -> None: ...
    def close_listener(self) -> None: ...


ENDPOINTS = (
    "account",
    "upgrade",
    "stream_event",
    "stream_game",
    "game_page",
    "game_export",
    "move",
    "chat",
    "abort",
    "resign",
    "draw",
    "takeback",
    "claim_victory",
    "claim_draw",
    "accept",
    "decline",
    "challenge_cancel",
    "online",
    "challenge_create",
)
_STATUS_TEXT = {
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


@dataclass
class HttpFault:
    """Answer ``status`` to the next ``times`` requests to ``endpoint`` (for ``target`` only, if given)."""

    endpoint: str
    status: int
    times: Optional[int]
    target: Optional[str] = None
    retry_after_s: Optional[float] = None
    until: Optional[float] = None
    hits: int = 0

    def reply(self) -> Reply:
        """The error answer, shaped like the real servers' ones."""
        headers = {}
        if self.retry_after_s is not None:
            headers["Retry-After"] = str(int(self.retry_after_s))
        if self.status == 429:
            return Reply(429, {"error": "Too many requests. Try again later."}, headers)
        if self.status >= 500:
            text = _STATUS_TEXT.get(self.status, "Server Error")
            return Reply(self.status, f"<html><body><h1>{self.status} {text}</h1></body></html>", headers)
        return Reply(self.status, {"error": f"injected HTTP {self.status}"}, headers)


class Faults:
    """The fault switches of one ``LoopbackServer`` (``server.faults``)."""

    def __init__(self, server: FaultTarget) -> None:
        self._server = server
        self._lock = threading.Lock()
        self._http: list[HttpFault] = []
        self.delay_s = 0.0
        self.refusing = False
        #: game ids whose stream a restart did not restore -> requests for it since
        self._lost_game_streams: dict[str, int] = {}
        #: requests carried out and then left unanswered (the connection closed): endpoint, target, times
        self._lost_answers: list[HttpFault] = []

    # --- HTTP errors ---
    def fail(
        self,
        endpoint: str,
        status: int = 500,
        times: Optional[int] = 1,
        target: Optional[str] = None,
        retry_after_s: Optional[float] = None,
        for_seconds: Optional[float] = None,
    ) -> HttpFault:
        """Answer ``status`` to the next ``times`` requests to ``endpoint`` (``None`` = until ``clear``/
        ``for_seconds``). ``target`` restricts it to one game or challenge id; 429 may carry Retry-After."""
        if endpoint not in ENDPOINTS:
            raise ValueError(f"unknown endpoint {endpoint!r}; one of {', '.join(ENDPOINTS)}")
        fault = HttpFault(
            endpoint,
            status,
            times,
            target,
            retry_after_s,
            time.monotonic() + for_seconds if for_seconds is not None else None,
        )
        with self._lock:
            self._http.append(fault)
        return fault

    def take(self, endpoint: str, target: Optional[str]) -> Optional[Reply]:
        """Called per request: the injected error for it, if any (consumes one ``times``)."""
        with self._lock:
            now = time.monotonic()
            for fault in list(self._http):
                if fault.until is not None and now > fault.until:
                    self._http.remove(fault)
                    continue
                if fault.endpoint != endpoint or (fault.target is not None and fault.target != target):
                    continue
                fault.hits += 1
                if fault.times is not None:
                    fault.times -= 1
                    if fault.times <= 0:
                        self._http.remove(fault)
                return fault.reply()
        return None

    def refuse_game_record(self, game_id: Optional[str] = None, status: int = 404,
                           for_seconds: Optional[float] = None) -> HttpFault:
        """The server's record of a game (Lichess's export, pychess's game page) answers ``status`` from now on
        (for ``game_id`` only, if given; for ``for_seconds``, if given), as a Lichess-compatible server
        answered the export with 404."""
        endpoint = "game_page" if self._server.dialect == "pychess" else "game_export"
        return self.fail(endpoint, status, times=None, target=game_id, for_seconds=for_seconds)

    def lose_answers(self, endpoint: str, times: int = 1, target: Optional[str] = None) -> None:
        """Carry out the next ``times`` requests to ``endpoint`` (for ``target`` only, if given), then close
        the connection without an answer, as a server going down between doing a move and answering it."""
        if endpoint not in ENDPOINTS:
            raise ValueError(f"unknown endpoint {endpoint!r}; one of {', '.join(ENDPOINTS)}")
        with self._lock:
            self._lost_answers.append(HttpFault(endpoint, 0, times, target))

    def answer_lost(self, endpoint: str, target: Optional[str]) -> bool:
        """Called per request after it was carried out: whether its answer is to be lost."""
        with self._lock:
            for fault in self._lost_answers:
                if fault.endpoint == endpoint and fault.target in (None, target):
                    fault.hits += 1
                    fault.times = (fault.times or 1) - 1
                    if fault.times <= 0:
                        self._lost_answers.remove(fault)
                    return True
        return False

    def clear(self) -> None:
        """Remove every HTTP fault, lost answer and the network delay."""
        with self._lock:
            self._http.clear()
            self._lost_answers.clear()
            self.delay_s = 0.0

    # --- game streams a restart did not restore ---
    def lose_game_stream(self, game_id: str) -> None:
        """As pychess after a restart that did not restore a BOT's game stream: the open stream is cut, the
        next request for it gets HTTP 200 headers and then a broken body, every later one 409 "Duplicate BOT
        game_stream", for good. The game page and the move endpoint keep working."""
        with self._lock:
            self._lost_game_streams[game_id] = 0
        self.drop_streams("game", game_id)

    def lost_game_stream(self, game_id: Optional[str]) -> Optional[str]:
        """Called per game-stream request: ``"broken"`` (200, then the body breaks), ``"409"``, or None."""
        with self._lock:
            if game_id is None or game_id not in self._lost_game_streams:
                return None
            self._lost_game_streams[game_id] += 1
            return "broken" if self._lost_game_streams[game_id] == 1 else "409"

    # --- streams ---
    def drop_streams(self, kind: StreamSelector = "any", game_id: Optional[str] = None, clean: bool = False) -> int:
        """Cut the open streams (``clean``: end the response properly instead); returns how many."""
        count = 0
        for stream in self._server.open_streams(kind, game_id):
            if clean:
                stream.close()
            else:
                stream.drop()
            count += 1
        return count

    def silence_streams(self, kind: StreamSelector = "any", game_id: Optional[str] = None) -> int:
        """Make the open streams go silent (no lines, no keep-alives) without closing them; returns how many.

        A silent stream no longer counts as the game's stream, so the bot's reconnection gets a fresh one."""
        count = 0
        for stream in self._server.open_streams(kind, game_id):
            stream.silence()
            count += 1
        return count

    # --- the whole server ---
    def restart_server(self, down_s: float = 1.0, *, terminated: bool = True, clean: bool = True,
                       lose_game_streams: tuple[str, ...] = ()) -> list[str]:
        """A server restart: every stream ends, connections are refused for ``down_s``, and afterwards
        pychess's ``gameFull`` of the games that were running shows ``initialFen: "None"``. Games, clocks and
        challenges survive, but pychess puts both clocks of a casual game back to the initial time.
        ``terminated``: pychess first says ``{"type":"terminated"}`` on the event streams (the real server's
        connections just dropped in five restarts: pass False and ``clean=False``).
        pychess also forgets BOT resignations (ours and an opponent BOT's: they were never stored): those
        games are running again. The event stream offers a restored game with ``gameStart`` only to the bot
        pychess re-queues: against a person, our bot; between two BOTs, White only (our bot as Black never
        hears of it again). ``lose_game_streams``: games whose stream is not
        restored (:meth:`lose_game_stream`). Returns the ids of the games brought back. Returns at once."""
        server = self._server
        with server.lock:
            for stream in server.open_streams("event"):
                if server.dialect == "pychess" and terminated:
                    stream.send(PYCHESS_TERMINATED)
            server.restarted_at = time.time()
            restored = server.restore_bot_resignations() if server.dialect == "pychess" else []
            if server.dialect == "pychess":
                server.reset_casual_clocks()
        for game_id in lose_game_streams:
            self.lose_game_stream(game_id)
        self.drop_streams("any", clean=clean)
        self.refuse_connections(down_s, drop_streams=False)
        return restored

    def refuse_connections(self, seconds: float, drop_streams: bool = True) -> None:
        """Close the listening socket for ``seconds`` (connection refused), then listen on the same port.

        Returns at once; ``drop_streams`` also cuts the open streams, as a server restart would."""
        self.refusing = True
        self._server.close_listener()
        if drop_streams:
            self.drop_streams("any")

        def reopen() -> None:
            if not self._server.stopping.is_set():  # a stopped server stays closed
                self._server.open_listener()
            self.refusing = False

        timer = threading.Timer(seconds, reopen)
        timer.daemon = True
        timer.start()

"""The only code that speaks HTTP: berserk 0.14 plus ``requests`` where berserk is wrong for pychess.

- Every request has a timeout; connection errors and 5xx are retried with back-off.
- HTTP 429 blocks that endpoint for 60 s (or ``Retry-After`` if longer); while it is blocked, at most one
  request to it is in flight (the first one after the pause is a probe; the others queue behind it).
- Streams (``/api/stream/event`` and game streams) run in a reader thread each, turn every line into events
  with :mod:`bot.events`, reconnect with back-off, and are closed by a watchdog after ``stream_timeout_s``
  without a line (a stream can stall without closing).
- pychess quirks: the capabilities header on the event stream, form bodies for chat and decline, no draw or
  takeback routes (those calls become no-ops).
- Calls that can simply be skipped (chat replies, matchmaking: online bots, creating and cancelling our own
  challenges) raise :class:`RateLimited` instead of waiting out a 429 pause.
"""

from __future__ import annotations

import json
import logging
import queue
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, Union
from urllib.parse import quote, urlparse

import berserk
import requests

from bot.config import ServerSettings
from bot.events import (
    Account,
    Dialect,
    GameEnd,
    GameEvent,
    LobbyEvent,
    MalformedLine,
    OnlineBot,
    normalise_game_line,
    normalise_lobby_line,
    parse_account,
    parse_online_bot,
)
from bot.gamepage import GamePage, GamePageError, parse_game_page

log = logging.getLogger(__name__)

RATE_LIMIT_PAUSE_S = 60.0
MAX_BACKOFF_S = 60.0
#: first retry delay of a failed request (doubled per attempt) and of a stream reconnection
RETRY_BASE_S = 1.0
RECONNECT_BASE_S = 1.0
#: at start-up, how long ``fetch_account`` keeps retrying an unreachable server (refused connections, 5xx)
STARTUP_RETRY_S = 300.0
#: the longest pause between two start-up attempts
STARTUP_MAX_DELAY_S = 15.0
CAPABILITIES_HEADER = "X-PyChess-Bot-Capabilities"
#: stream answers worth another try besides 5xx and 429: pychess answers 409 "Duplicate BOT game_stream"
#: after a restart, sometimes for good (the game worker's bounded wait decides when to give up)
RETRYABLE_STREAM_STATUSES = (409,)
#: endpoints a running game needs: their waits (429 pause, back-off) go on after a stop request, for the games
#: being finished; every other wait ends at once when the bot is asked to stop
GAME_ENDPOINTS = frozenset({"move", "chat", "abort", "resign", "game page", "game export", "draw", "claim",
                            "takeback", "stream game"})

T = TypeVar("T")


class ServerError(RuntimeError):
    """A request failed for good. ``status`` is the HTTP status when there was one."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class TokenRejected(ServerError):
    """The server refused the token: HTTP 401 (Lichess) or 403 (pychess) on ``/api/account``."""


class RateLimited(ServerError):
    """HTTP 429 (or the endpoint is still paused after one) for a call that must not wait."""

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message, 429)
        self.retry_after_s = retry_after_s


class ServerStopped(ServerError):
    """The server object was closed while a call was waiting."""


# ---- stream pseudo-events (what the reader thread reports besides normalised lines) -----------------------


@dataclass(frozen=True)
class StreamConnected:
    pass


@dataclass(frozen=True)
class StreamLost:
    reason: str


@dataclass(frozen=True)
class StreamFailed:
    """The stream cannot be opened and retrying will not help (401, 404, 400...)."""

    reason: str
    status: int | None = None


StreamNotice = Union[StreamConnected, StreamLost, StreamFailed]


def pychess_variant_names(config_variants: tuple[str, ...]) -> list[str]:
    """``challenge.variants`` -> the capability names pychess checks before it offers a challenge.

    pychess offers a challenge only when the header lists ``variant + "960"`` for a 960 game and the base
    name otherwise (``seirawan``, ``seirawan960``, ``chess``, ``chess960``): the config names, exactly."""
    names: list[str] = []
    for name in config_variants:
        if name not in names:
            names.append(name)
    return names


def detect_dialect(url: str, account_data: dict[str, Any]) -> Dialect:
    """``auto``: lichess.org is lichess; otherwise a Lichess-style account (perfs, createdAt) is lichess,
    pychess's sparse ``{"id","username","title"}`` is pychess."""
    host = (urlparse(url).hostname or "").lower()
    if host == "lichess.org" or host.endswith(".lichess.org") or host.endswith("lichess.dev"):
        return "lichess"
    if "pychess" in host:
        return "pychess"
    if any(key in account_data for key in ("perfs", "createdAt", "url", "seenAt")):
        return "lichess"
    return "pychess"


def retry_after_s(response: requests.Response | None) -> float:
    """How long a 429 asks us to wait: 60 s, or ``Retry-After`` seconds when that is longer."""
    if response is None:
        return RATE_LIMIT_PAUSE_S
    try:
        asked = float(response.headers.get("Retry-After", "0"))
    except ValueError:
        asked = 0.0
    return max(RATE_LIMIT_PAUSE_S, asked)


def backoff_s(attempt: int, base: float = 1.0, cap: float = MAX_BACKOFF_S) -> float:
    """1, 2, 4, ... seconds, capped."""
    return float(min(cap, base * (2 ** max(0, attempt))))


class _TimeoutSession(berserk.TokenSession):
    """berserk's token session with a default timeout (berserk sets none)."""

    def __init__(self, token: str, timeout_s: float) -> None:
        super().__init__(token)
        self.default_timeout_s = timeout_s

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", self.default_timeout_s)
        return super().request(method, url, *args, **kwargs)


class EndpointLimits:
    """Per-endpoint 429 pauses."""

    def __init__(self, monotonic: Callable[[], float]) -> None:
        self.monotonic = monotonic
        self._blocked_until: dict[str, float] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def block(self, endpoint: str, seconds: float) -> None:
        with self._guard:
            until = self.monotonic() + seconds
            self._blocked_until[endpoint] = max(until, self._blocked_until.get(endpoint, 0.0))

    def remaining_s(self, endpoint: str) -> float:
        with self._guard:
            return max(0.0, self._blocked_until.get(endpoint, 0.0) - self.monotonic())

    def lock(self, endpoint: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(endpoint, threading.Lock())

    def call(self, endpoint: str, function: Callable[[], T], wait: Callable[[float], bool]) -> T:
        """Run ``function``; while the endpoint is paused, ``wait`` (True: stop waiting, raise
        :class:`ServerStopped`), and let only one caller through at a time."""
        if self.remaining_s(endpoint) <= 0:
            return function()
        with self.lock(endpoint):
            while (remaining := self.remaining_s(endpoint)) > 0:
                log.info("%s is rate limited; waiting %.0f s", endpoint, remaining)
                if wait(remaining):
                    raise ServerStopped(f"{endpoint}: stopped while rate limited")
            return function()


class Server:
    """One account on one server. Thread-safe: game workers share it."""

    def __init__(self, settings: ServerSettings, token: str, *, dialect: Dialect | None = None,
                 variants: tuple[str, ...] = ("seirawan",), session: requests.Session | None = None,
                 monotonic: Callable[[], float] = time.monotonic,
                 wait: Callable[[float], bool] | None = None) -> None:
        self.settings = settings
        self.url = settings.url.rstrip("/")
        self._token = token
        self.session = session or _TimeoutSession(token, settings.request_timeout_s)
        self.client = berserk.Client(session=self.session, base_url=self.url)
        self.dialect: Dialect | None = dialect if dialect is not None else (
            None if settings.dialect == "auto" else settings.dialect)  # type: ignore[assignment]
        self.variants = variants
        self.monotonic = monotonic
        self._closed = threading.Event()
        #: set by :meth:`stop_waiting` (and :meth:`close`): the waits of calls no game needs end at once
        self._stopping = threading.Event()
        self._injected_wait = wait
        self.wait = wait or self._closed.wait
        self.limits = EndpointLimits(monotonic)
        self.account: Account | None = None

    # ---- request plumbing ----

    def close(self) -> None:
        self._stopping.set()
        self._closed.set()

    def stop_waiting(self) -> None:
        """The bot is stopping: every wait of a call that no running game needs (a 429 pause or back-off on
        accept, decline, the event stream ...) ends now and the call raises :class:`ServerStopped`. The games'
        own calls (move, resign, their streams) still wait, so that the games being finished can be."""
        self._stopping.set()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    def wait_for(self, endpoint: str, seconds: float) -> bool:
        """Sleep ``seconds`` before another call to ``endpoint``; True when the wait was cut short because the
        server object was closed, or (for an endpoint no game needs) the bot is stopping."""
        game_call = endpoint in GAME_ENDPOINTS
        if self.closed or (not game_call and self.stopping):
            return True
        if self._injected_wait is not None:
            return self._injected_wait(seconds) or self.closed or (not game_call and self.stopping)
        return (self._closed if game_call else self._stopping).wait(seconds)

    def _call(self, endpoint: str, function: Callable[[], T], *, attempts: int = 4,
              retry_base_s: float | None = None, wait_when_limited: bool = True) -> T:
        """Call with the endpoint's 429 pause, retrying connection errors and 5xx with back-off.

        ``wait_when_limited=False``: raise :class:`RateLimited` instead of waiting out a 429 pause (for
        calls that can simply be skipped: chat replies, matchmaking)."""
        failures = 0
        rate_limited = 0
        detail = ""
        while True:
            if self.closed:
                raise ServerStopped(f"{endpoint}: the bot is stopping")
            if not wait_when_limited and (paused := self.limits.remaining_s(endpoint)) > 0:
                raise RateLimited(f"{endpoint}: rate limited for another {paused:.0f} s", paused)
            try:
                return self.limits.call(endpoint, function, lambda seconds: self.wait_for(endpoint, seconds))
            except berserk.exceptions.ResponseError as error:
                status, response = error.status_code, error.response
            except requests.HTTPError as error:
                response = error.response
                status = response.status_code if response is not None else 0
            except (berserk.exceptions.ApiError, requests.RequestException) as error:
                status, response = 0, None
                detail = type(getattr(error, "error", error)).__name__
            if status == 429:
                rate_limited += 1
                pause = retry_after_s(response)
                log.warning("%s: HTTP 429, pausing this endpoint for %.0f s", endpoint, pause)
                self.limits.block(endpoint, pause)
                if not wait_when_limited:
                    raise RateLimited(f"{endpoint}: HTTP 429, paused for {pause:.0f} s", pause)
                if rate_limited > 3:
                    raise ServerError(f"{endpoint}: still rate limited after {rate_limited} pauses", 429)
                continue
            if status == 401 or (status == 403 and endpoint == "account"):
                # Lichess answers 401 for a bad token, pychess 403; elsewhere a 403 is that call's problem
                raise TokenRejected(f"{endpoint}: the server rejected the token (HTTP {status})", status)
            if status and status < 500:
                body = _short_body(response)
                raise ServerError(f"{endpoint}: HTTP {status}{': ' + body if body else ''}", status)
            failures += 1
            reason = f"HTTP {status}" if status else f"connection error ({detail})"
            if failures >= attempts:
                raise ServerError(f"{endpoint}: {reason}, gave up after {failures} attempts", status or None)
            delay = backoff_s(failures - 1, RETRY_BASE_S if retry_base_s is None else retry_base_s)
            log.warning("%s: %s; retrying in %.1f s", endpoint, reason, delay)
            if self.wait_for(endpoint, delay):
                raise ServerStopped(f"{endpoint}: the bot is stopping")

    def _post_form(self, path: str, data: dict[str, str] | None = None,
                   params: dict[str, str] | None = None) -> None:
        """A POST with a form body (pychess refuses JSON bodies for chat and decline)."""
        response = self.session.post(self.url + path, data=data, params=params,
                                     timeout=self.settings.request_timeout_s)
        response.raise_for_status()

    # ---- account ----

    def fetch_account(self, retry_for_s: float = 0.0) -> Account:
        """``GET /api/account``; settles the dialect when it is ``auto``. Raises :class:`TokenRejected`.

        ``retry_for_s``: keep retrying a server that cannot be reached (refused connections, timeouts, 5xx)
        for this long (a bot started before its server, or during an outage); other errors fail at once."""
        started = self.monotonic()
        attempt = 0
        while True:
            try:
                return self._fetch_account_once()
            except ServerStopped:
                raise
            except ServerError as error:
                unreachable = error.status is None or error.status >= 500
                if not unreachable or self.monotonic() - started >= retry_for_s:
                    raise
                delay = min(STARTUP_MAX_DELAY_S, backoff_s(attempt, RETRY_BASE_S))
                attempt += 1
                log.warning("cannot reach %s yet (%s); trying again in %.0f s", self.url, error, delay)
                if self.wait_for("account", delay):
                    raise ServerStopped("account: stopped while waiting for the server") from None

    def _fetch_account_once(self) -> Account:
        """One ``GET /api/account`` (with the usual retries of :meth:`_call`)."""

        def get() -> dict[str, Any]:
            response = self.session.get(self.url + "/api/account", timeout=self.settings.request_timeout_s)
            response.raise_for_status()
            data = response.json()
            if not isinstance(data, dict):
                raise ServerError("/api/account did not return an object")
            return data

        try:
            data = self._call("account", get)
        except ValueError as error:  # invalid JSON
            raise ServerError(f"account: unreadable answer ({error})") from None
        try:
            self.account = parse_account(data)
        except MalformedLine as error:
            raise ServerError(f"account: {error}") from None
        if self.dialect is None:
            self.dialect = detect_dialect(self.url, data)
        return self.account

    def upgrade_to_bot(self) -> None:
        self._call("upgrade", self.client.account.upgrade_to_bot)

    # ---- challenges ----

    def accept_challenge(self, challenge_id: str) -> None:
        self._call("accept", lambda: self.client.bots.accept_challenge(challenge_id))

    def decline_challenge(self, challenge_id: str, reason: str) -> None:
        path = f"/api/challenge/{quote(challenge_id, safe='')}/decline"
        self._call("decline", lambda: self._post_form(path, {"reason": reason}))

    def online_bots(self, limit: int = 100) -> list[OnlineBot]:
        """Lichess ``GET /api/bot/online`` (ndjson). Raises :class:`RateLimited` instead of waiting."""

        def get() -> list[OnlineBot]:
            response = self.session.get(self.url + "/api/bot/online", params={"nb": str(limit)},
                                        timeout=self.settings.request_timeout_s)
            response.raise_for_status()
            bots = []
            for line in response.text.splitlines():
                if not line.strip():
                    continue
                try:
                    data = json.loads(line)
                    if isinstance(data, dict):
                        bots.append(parse_online_bot(data))
                except (ValueError, MalformedLine) as error:
                    log.debug("online bots: skipped a line (%s)", error)
            return bots

        return self._call("online", get, attempts=2, wait_when_limited=False)

    def create_challenge(self, username: str, *, variant: str, rated: bool, base_s: int | None = None,
                         increment_s: int = 0, days: int | None = None, color: str = "random") -> str:
        """Lichess ``POST /api/challenge/{username}``; returns the challenge id. pychess answers 403.
        Raises :class:`RateLimited` instead of waiting out a 429 (the daily bot-challenge limit)."""
        form = {"rated": "true" if rated else "false", "color": color, "variant": variant}
        if days is not None:
            form["days"] = str(days)
        else:
            form["clock.limit"] = str(base_s or 0)
            form["clock.increment"] = str(increment_s)

        def post() -> str:
            response = self.session.post(self.url + f"/api/challenge/{quote(username, safe='')}", data=form,
                                         timeout=self.settings.request_timeout_s)
            response.raise_for_status()
            data = response.json()
            if isinstance(data, dict) and isinstance(data.get("challenge"), dict):
                data = data["challenge"]  # some Lichess versions wrap the challenge
            challenge_id = data.get("id") if isinstance(data, dict) else None
            if not isinstance(challenge_id, str) or not challenge_id:
                raise ServerError("challenge: the answer has no challenge id")
            return challenge_id

        try:
            return self._call("challenge", post, attempts=2, wait_when_limited=False)
        except ValueError as error:  # invalid JSON
            raise ServerError(f"challenge: unreadable answer ({error})") from None

    def cancel_challenge(self, challenge_id: str) -> None:
        """Withdraw one of our own challenges."""
        path = f"/api/challenge/{quote(challenge_id, safe='')}/cancel"
        self._call("cancel", lambda: self._post_form(path), attempts=2, wait_when_limited=False)

    # ---- games ----

    def make_move(self, game_id: str, uci: str, *, offer_draw: bool = False) -> None:
        """Send a move. Connection errors and 5xx are retried quickly (the clock is running); sending the
        same move twice is harmless on both servers. Draw offers are never sent to pychess."""
        if offer_draw and self.dialect == "lichess":
            path = f"/api/bot/game/{quote(game_id, safe='')}/move/{quote(uci, safe='')}"
            self._call("move", lambda: self._post_form(path, params={"offeringDraw": "true"}),
                       attempts=5, retry_base_s=RETRY_BASE_S / 4)
            return
        self._call("move", lambda: self.client.bots.make_move(game_id, uci), attempts=5,
                   retry_base_s=RETRY_BASE_S / 4)

    def chat(self, game_id: str, text: str, room: str = "player", *, wait: bool = True) -> None:
        """Write in the game chat. ``wait=False``: raise :class:`RateLimited` rather than wait out a 429."""
        path = f"/api/bot/game/{quote(game_id, safe='')}/chat"
        self._call("chat", lambda: self._post_form(path, {"room": room, "text": text}), attempts=2,
                   wait_when_limited=wait)

    def abort_game(self, game_id: str) -> None:
        self._call("abort", lambda: self.client.bots.abort_game(game_id), attempts=3)

    def resign_game(self, game_id: str) -> None:
        self._call("resign", lambda: self.client.bots.resign_game(game_id), attempts=3)

    def fetch_game_page(self, game_id: str) -> GamePage:
        """pychess: the game's public page ``GET /{gameId}`` (result, status, every ply). Two attempts with
        the request timeout; raises :class:`ServerError` when the page cannot be had or read."""

        def get() -> GamePage:
            response = self.session.get(f"{self.url}/{quote(game_id, safe='')}",
                                        timeout=self.settings.request_timeout_s)
            response.raise_for_status()
            try:
                return parse_game_page(response.text)
            except GamePageError as error:
                raise ServerError(f"game page {game_id}: {error}") from None

        return self._call("game page", get, attempts=2, wait_when_limited=False)

    def answer_draw(self, game_id: str, accept: bool) -> bool:
        """Accept/decline a draw offer (lichess). pychess has no such route: returns False, sends nothing."""
        if self.dialect != "lichess":
            return False
        path = f"/api/bot/game/{quote(game_id, safe='')}/draw/{'yes' if accept else 'no'}"
        self._call("draw", lambda: self._post_form(path), attempts=2)
        return True

    def claim_victory(self, game_id: str) -> bool:
        """Lichess: claim the win when the opponent has left (``opponentGone`` said when). pychess has no
        such route: returns False, sends nothing."""
        if self.dialect != "lichess":
            return False
        path = f"/api/bot/game/{quote(game_id, safe='')}/claim-victory"
        self._call("claim", lambda: self._post_form(path), attempts=2)
        return True

    def answer_takeback(self, game_id: str, accept: bool) -> bool:
        if self.dialect != "lichess":
            return False
        path = f"/api/bot/game/{quote(game_id, safe='')}/takeback/{'yes' if accept else 'no'}"
        self._call("takeback", lambda: self._post_form(path), attempts=2)
        return True

    # ---- streams ----

    def capabilities_header(self) -> dict[str, str]:
        if self.dialect != "pychess":
            return {}
        value = json.dumps({"version": 1, "variants": pychess_variant_names(self.variants)},
                           separators=(",", ":"))
        return {CAPABILITIES_HEADER: value}

    def open_event_stream(self, on_line: Callable[[], None] | None = None) -> Stream[LobbyEvent]:
        dialect = self._require_dialect()
        stream: Stream[LobbyEvent] = Stream(
            self, "/api/stream/event", "event stream", lambda line: [normalise_lobby_line(line, dialect)],
            headers=self.capabilities_header(), on_line=on_line,
        )
        stream.start()
        return stream

    def open_game_stream(self, game_id: str) -> Stream[GameEvent]:
        dialect = self._require_dialect()
        stream: Stream[GameEvent] = Stream(
            self, f"/api/bot/game/stream/{quote(game_id, safe='')}", f"game {game_id} stream",
            lambda line: normalise_game_line(line, dialect), final=lambda event: isinstance(event, GameEnd),
        )
        stream.start()
        return stream

    def _require_dialect(self) -> Dialect:
        if self.dialect is None:
            raise ServerError("dialect unknown: call fetch_account() first or set server.dialect")
        return self.dialect


def _short_body(response: requests.Response | None) -> str:
    if response is None:
        return ""
    try:
        return " ".join(response.text.split())[:200]
    except Exception:  # noqa: BLE001 - a body we cannot read is just not shown
        return ""


class Stream(Generic[T]):
    """A reconnecting ndjson stream read in its own thread; the consumer calls :meth:`get`.

    Items are the normalised events plus :class:`StreamConnected` / :class:`StreamLost` /
    :class:`StreamFailed` notices. After an event for which ``final`` is true, or :meth:`close`, the stream
    stops for good.
    """

    def __init__(self, server: Server, path: str, label: str,
                 normalise: Callable[[str], list[T]], *, headers: dict[str, str] | None = None,
                 on_line: Callable[[], None] | None = None,
                 final: Callable[[T], bool] = lambda event: False) -> None:
        self.server = server
        self.path = path
        self.label = label
        self.normalise = normalise
        self.headers = dict(headers or {})
        self.on_line = on_line
        self.final = final
        self.items: queue.Queue[T | StreamNotice] = queue.Queue()
        self._closed = threading.Event()
        self._response: requests.Response | None = None
        self._last_line = server.monotonic()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=label, daemon=True)
        self.reconnects = 0

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._closed.set()
        self._drop_response()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def get(self, timeout: float | None = None) -> T | StreamNotice | None:
        """The next item, or None after ``timeout`` seconds without one."""
        try:
            return self.items.get(timeout=timeout)
        except queue.Empty:
            return None

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def _drop_response(self) -> None:
        with self._lock:
            response, self._response = self._response, None
        if response is None:
            return
        # Shut the socket down first: close() alone neither wakes a reader blocked in recv() nor returns
        # before it (the buffered reader's lock), which would stall shutdowns by up to stream_timeout_s.
        sock = _socket_of(response)
        if sock is None:
            # urllib3 does not expose the connection of every response (e.g. a close-delimited HTTP/1.0
            # body): close it in a thread of its own, so the caller never waits for the blocked reader
            threading.Thread(target=_close_quietly, args=(response,), daemon=True, name=self.label + " close").start()
            return
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        _close_quietly(response)

    @property
    def endpoint(self) -> str:
        return "stream " + ("event" if self.path == "/api/stream/event" else "game")

    def _wait(self, seconds: float) -> bool:
        """Sleep unless closed; True when the stream or the server was closed (or, for the event stream, the
        bot is stopping: no game needs it)."""
        if self._closed.wait(0) or self.server.wait_for(self.endpoint, 0):
            return True
        return self.server.wait_for(self.endpoint, seconds) or self._closed.is_set()

    def _run(self) -> None:
        attempt = 0
        while not self.closed and not self.server.wait_for(self.endpoint, 0):
            delivered, failure = self._connect_and_read()
            if self.closed or self.server.wait_for(self.endpoint, 0):
                return
            if isinstance(failure, StreamFailed):
                self.items.put(failure)
                return
            attempt = 0 if delivered else attempt + 1
            delay = backoff_s(attempt, RECONNECT_BASE_S)
            log.warning("%s: %s; reconnecting in %.0f s", self.label, failure.reason if failure else "closed",
                        delay)
            self.items.put(failure or StreamLost("closed by the server"))
            self.reconnects += 1
            if self._wait(delay):
                return

    def _connect_and_read(self) -> tuple[bool, StreamLost | StreamFailed | None]:
        """One connection. Returns (whether any line arrived, why it ended)."""
        server = self.server
        endpoint = self.endpoint
        remaining = server.limits.remaining_s(endpoint)
        if remaining > 0 and self._wait(remaining):
            return False, None
        timeout = (server.settings.request_timeout_s, server.settings.stream_timeout_s)
        try:
            response = server.session.get(server.url + self.path, stream=True, timeout=timeout,
                                          headers={"Accept": "application/x-ndjson", **self.headers})
        except requests.RequestException as error:
            return False, StreamLost(f"cannot connect ({type(error).__name__})")
        if response.status_code == 429:
            server.limits.block(endpoint, retry_after_s(response))
            response.close()
            return False, StreamLost("HTTP 429")
        if response.status_code >= 500 or response.status_code in RETRYABLE_STREAM_STATUSES:
            response.close()
            return False, StreamLost(f"HTTP {response.status_code}")
        if response.status_code >= 400:
            body = _short_body(response)
            response.close()
            return False, StreamFailed(f"HTTP {response.status_code}{': ' + body if body else ''}",
                                       response.status_code)
        with self._lock:
            self._response = response
        if self.closed:
            self._drop_response()
            return False, None
        self.items.put(StreamConnected())
        self._last_line = server.monotonic()
        watchdog = threading.Thread(target=self._watchdog, args=(response,), daemon=True,
                                    name=self.label + " watchdog")
        watchdog.start()
        delivered = False
        try:
            for line in _iter_lines(response):
                self._last_line = server.monotonic()
                delivered = True
                if self.on_line is not None:
                    self.on_line()
                try:
                    events = self.normalise(line)
                except MalformedLine as error:
                    log.warning("%s: skipped a malformed line (%s): %.200s", self.label, error, line)
                    continue
                except Exception:  # noqa: BLE001 - a normaliser bug must cost one line, not the connection
                    log.exception("%s: skipped a line the normaliser failed on: %.200s", self.label, line)
                    continue
                for event in events:
                    self.items.put(event)
                    if self.final(event):
                        self._closed.set()
                        return True, None
                if self.closed:
                    return True, None
            return delivered, StreamLost("closed by the server")
        except Exception as error:  # noqa: BLE001 - any read failure means the connection is gone
            silent = server.monotonic() - self._last_line
            if silent >= server.settings.stream_timeout_s:
                return delivered, StreamLost(f"silent for {silent:.0f} s")
            return delivered, StreamLost(f"connection lost ({type(error).__name__})")
        finally:
            self._drop_response()

    def _watchdog(self, response: requests.Response) -> None:
        """Close the connection when no line arrived for ``stream_timeout_s`` (a stalled stream)."""
        limit = self.server.settings.stream_timeout_s
        while True:
            with self._lock:
                if self._response is not response:
                    return
            silent = self.server.monotonic() - self._last_line
            if silent >= limit:
                log.warning("%s: no line for %.0f s; dropping the connection", self.label, silent)
                self._drop_response()
                return
            time.sleep(min(1.0, max(0.05, limit - silent)))


def _close_quietly(response: requests.Response) -> None:
    try:
        response.close()
    except Exception:  # noqa: BLE001 - closing a broken connection may raise anything
        pass


def _socket_of(response: requests.Response) -> socket.socket | None:
    """The socket under a streamed response, through public attributes only: urllib3's
    ``HTTPResponse.connection`` (urllib3 2) and the ``sock`` of the ``http.client.HTTPConnection`` it is."""
    connection = getattr(response.raw, "connection", None)
    sock = getattr(connection, "sock", None)
    return sock if isinstance(sock, socket.socket) else None


def _iter_lines(response: requests.Response) -> Iterator[str]:
    """Lines as soon as they arrive (``iter_lines`` would wait for 512 bytes on unchunked bodies)."""
    raw = response.raw
    read = getattr(raw, "read1", None)
    if read is None:  # pragma: no cover - urllib3 < 2
        for line in response.iter_lines(chunk_size=1):
            yield line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line
        return
    buffer = b""
    while True:
        chunk = read(65536, decode_content=True)
        if not chunk:
            if buffer.strip():
                yield buffer.decode("utf-8", errors="replace")
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield line.rstrip(b"\r").decode("utf-8", errors="replace")

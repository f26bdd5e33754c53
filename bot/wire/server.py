"""The bot's one HTTP client: one :class:`Server` on one ``requests`` connection pool for every call.

- The HTTP client (:class:`BotSession`, a berserk ``TokenSession``) sends the token, ``User-Agent:
  schess-bot/<version>`` and a timeout on every request. berserk 0.14 makes the calls it has that both servers
  take as it sends them (accept, move, abort, resign, cancel, upgrade); the rest go through a berserk
  ``Requestor`` on that client, so every failure arrives as one exception family
  (``berserk.exceptions.ApiError``) to :meth:`Server._call`.
- Every path comes from :data:`ENDPOINTS`, its parts quoted in one place (:func:`endpoint_path`).
- Connection errors and 5xx are retried with back-off; HTTP 429 pauses that endpoint (:mod:`bot.wire.ratelimit`,
  shared with the streams).
- Streams (``/api/stream/event`` and game streams) are :class:`bot.wire.streams.ServerStream` readers.
- pychess quirks: the capabilities header on the event stream, form bodies for chat and decline (berserk
  sends JSON, which pychess refuses), no draw or takeback routes (those calls become no-ops).
- Calls that can simply be skipped (chat replies, matchmaking: online bots, creating and cancelling our own
  challenges) raise :class:`RateLimited` instead of waiting out a 429 pause.
"""

from __future__ import annotations

import http.cookiejar
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast
from urllib.parse import quote, urlparse

import berserk
import berserk.formats
import berserk.session
import requests

from bot import metrics
from bot.config import PRODUCTION_TIMING, ServerSettings, Timing
from bot.wire.advice import connection_cause
from bot.wire.dialect import Dialect, dialect_named, guess_dialect
from bot.wire.errors import (
    GameExportError,
    GamePageError,
    MalformedLine,
    RateLimited,
    ServerError,
    ServerStopped,
    TokenRejected,
)
from bot.wire.events import Account, GameEnd, GameEvent, GameFull, GameState, LobbyEvent, OnlineBot
from bot.wire.gameexport import GameExport, parse_game_export
from bot.wire.gamepage import GamePage, parse_game_page
from bot.wire.movefate import (
    Evidence,
    Fate,
    Resend,
    ResendVerdict,
    StreamStates,
    decide_resend,
    record_evidence,
    stream_evidence,
)
from bot.wire.normalise import normalise_game_line, normalise_lobby_line, parse_account, parse_online_bot
from bot.wire.ratelimit import EndpointLimits, backoff_s, short_body
from bot.wire.streams import ServerStream, Sink, StreamConnected, StreamFailed, StreamLost, StreamNotice
from bot.wire.tournaments import TournamentInfo, TournamentKind, join_error, parse_tournament
from engine import __version__

#: the errors and stream notices callers get from the client live in bot.wire.ratelimit and bot.wire.streams
__all__ = ["CAPABILITIES_HEADER", "ENDPOINTS", "USER_AGENT", "BotSession", "RateLimited", "Server", "ServerError",
           "ServerStopped", "ServerStream", "StreamConnected", "StreamFailed", "StreamLost", "StreamNotice",
           "TokenRejected", "Transport", "detect_dialect", "endpoint_path", "pychess_variant_names"]

log = logging.getLogger(__name__)

#: the connection errors (as :func:`connection_cause` words them) where the request surely never left
NOT_SENT_CAUSES = ("connection refused", "DNS lookup failed")
CAPABILITIES_HEADER = "X-PyChess-Bot-Capabilities"
USER_AGENT = f"schess-bot/{__version__}"

#: every route the bot calls: endpoint name (its 429 pause and its log name) -> (method, path template)
ENDPOINTS: dict[str, tuple[str, str]] = {
    "account": ("GET", "/api/account"),
    "upgrade": ("POST", "/api/bot/account/upgrade"),
    "accept": ("POST", "/api/challenge/{challenge_id}/accept"),
    "decline": ("POST", "/api/challenge/{challenge_id}/decline"),
    "online": ("GET", "/api/bot/online"),
    "challenge": ("POST", "/api/challenge/{username}"),
    "cancel": ("POST", "/api/challenge/{challenge_id}/cancel"),
    "move": ("POST", "/api/bot/game/{game_id}/move/{move}"),
    "chat": ("POST", "/api/bot/game/{game_id}/chat"),
    "abort": ("POST", "/api/bot/game/{game_id}/abort"),
    "resign": ("POST", "/api/bot/game/{game_id}/resign"),
    "draw": ("POST", "/api/bot/game/{game_id}/draw/{answer}"),
    "claim": ("POST", "/api/bot/game/{game_id}/claim-victory"),
    "takeback": ("POST", "/api/bot/game/{game_id}/takeback/{answer}"),
    "game page": ("GET", "/{game_id}"),  # pychess's public game page
    "game export": ("GET", "/game/export/{game_id}"),  # Lichess: one game, JSON with Accept: application/json
    "stream event": ("GET", "/api/stream/event"),
    "stream game": ("GET", "/api/bot/game/stream/{game_id}"),
    # Lichess tournaments that let bots in: an arena, or a Swiss (bot.wire.tournaments reads the answers)
    "arena": ("GET", "/api/tournament/{tournament_id}"),
    "arena join": ("POST", "/api/tournament/{tournament_id}/join"),
    "arena withdraw": ("POST", "/api/tournament/{tournament_id}/withdraw"),
    "swiss": ("GET", "/api/swiss/{tournament_id}"),
    "swiss join": ("POST", "/api/swiss/{tournament_id}/join"),
    "swiss withdraw": ("POST", "/api/swiss/{tournament_id}/withdraw"),
}

#: endpoints a running game (or the stop itself: leaving tournaments) needs: their waits (429 pause, back-off)
#: go on after a stop request, for the games being finished; every other wait ends at once when the bot is
#: asked to stop
GAME_ENDPOINTS = frozenset({"move", "chat", "abort", "resign", "game page", "game export", "draw", "claim",
                            "takeback", "stream game", "arena withdraw", "swiss withdraw"})

T = TypeVar("T")


def endpoint_path(endpoint: str, **parts: str) -> str:
    """The path of ``endpoint`` with every part quoted (an id can never add a path segment)."""
    return ENDPOINTS[endpoint][1].format(**{name: quote(value, safe="") for name, value in parts.items()})


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
    """``server.dialect: auto``: the dialect the URL's host and the account's shape say (see
    :func:`bot.wire.dialect.guess_dialect`)."""
    return guess_dialect(urlparse(url).hostname or "", set(account_data))


class BotSession(berserk.TokenSession):
    """berserk's token session with our User-Agent and a default timeout (berserk sets none)."""

    def __init__(self, token: str, timeout_s: float) -> None:
        super().__init__(token)
        self.headers["User-Agent"] = USER_AGENT
        self.default_timeout_s = timeout_s
        # The token is the only credential. A cookie picked up from an HTML page (pychess sets its web session
        # cookie even on a 404) would be sent back with every API call, and a server that cannot read it back
        # answers 500 to all of them; so no cookie is ever kept.
        self.cookies.set_policy(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", self.default_timeout_s)
        return super().request(method, url, *args, **kwargs)


class _Response(berserk.formats.FormatHandler[requests.Response]):
    """A berserk format that hands back the response itself (the caller reads JSON, ndjson or HTML)."""

    def __init__(self, mime_type: str = "*/*") -> None:
        super().__init__(mime_type=mime_type)

    def parse(self, response: requests.Response) -> requests.Response:
        return response


class Transport:
    """The request plumbing under :class:`Server`: the one session (berserk's client and a ``Requestor`` on
    it), the endpoint's 429 pauses, retries with back-off, and the waits that stopping cuts short. ``timing``:
    how long those pauses and back-offs are (:class:`~bot.config.Timing`)."""

    def __init__(self, settings: ServerSettings, token: str, *, session: requests.Session | None,
                 monotonic: Callable[[], float], wait: Callable[[float], bool] | None,
                 timing: Timing = PRODUCTION_TIMING) -> None:
        self.settings = settings
        self.timing = timing
        self.url = settings.url.rstrip("/")
        self.session = session or BotSession(token, settings.request_timeout_s)
        self.client = berserk.Client(session=self.session, base_url=self.url)
        self._requestor = berserk.session.Requestor(self.session, self.url, _Response())
        self.monotonic = monotonic
        self._closed = threading.Event()
        #: the HTTP status with which the server refused our token, once it has (the caller prints the fix)
        self.token_refused: int | None = None
        #: set by :meth:`stop_waiting` (and :meth:`close`): the waits of calls no game needs end at once
        self._stopping = threading.Event()
        self._injected_wait = wait
        self.wait = wait or self._closed.wait
        self.limits = EndpointLimits(monotonic, self.wait, timing.rate_limit_pause_s)

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

    def _request(self, endpoint: str, *, data: Mapping[str, str] | None = None,
                 params: Mapping[str, str] | None = None, **parts: str) -> requests.Response:
        """One request to ``endpoint`` on the shared session (form bodies: pychess refuses JSON for chat and
        decline). Failures raise berserk's exceptions, as berserk's own calls do."""
        method = ENDPOINTS[endpoint][0]
        response = self._requestor.request(method, endpoint_path(endpoint, **parts), data=data, params=params,
                                           timeout=self.settings.request_timeout_s)
        assert isinstance(response, requests.Response)  # _Response hands back the response itself
        return response

    def _call(self, endpoint: str, function: Callable[[], T], *, attempts: int = 4,
              retry_base_s: float | None = None, wait_when_limited: bool = True, what: str = "",
              landed: Callable[[float], bool | None] | None = None, unsure_since: float | None = None,
              refused_means_landed: bool = False) -> T:
        """Call with the endpoint's 429 pause, retrying connection errors and 5xx with back-off.

        ``wait_when_limited=False``: raise :class:`RateLimited` instead of waiting out a 429 pause (for
        calls that can simply be skipped: chat replies, matchmaking). ``what``: the call as the log names it
        (``game abc123: move Nf3 (g1f3)``), the endpoint by default.

        ``landed``: for a call that must not take effect twice (a move). Once an attempt may have reached the
        server (a 5xx, a connection dropped or timed out after the request went out; not a refused
        connection), or from the start when an earlier call's did (``unsure_since``), every later attempt
        first asks ``landed(when the last such attempt ended)``: True, the request took effect, or need not
        (the call returns None); False, send it again; None, not now (this attempt is not sent, and counts as
        failed). ``refused_means_landed``: HTTP 400 to an attempt sent after one that may have landed says
        that one did (Lichess refuses a move out of turn); the call returns None."""
        what = what or endpoint
        failures = 0
        rate_limited = 0
        detail = ""
        unsure_at = unsure_since  # when the last attempt that may have taken effect ended
        while True:
            if self.closed:
                raise ServerStopped(f"{endpoint}: the bot is stopping")
            if not wait_when_limited and (paused := self.limits.remaining_s(endpoint)) > 0:
                raise RateLimited(f"{endpoint}: rate limited for another {paused:.0f} s", paused)
            response: requests.Response | None = None
            checked = unsure_at is not None and landed is not None
            verdict = landed(unsure_at) if landed is not None and unsure_at is not None else False
            if verdict:
                return cast(T, None)
            unsettled = verdict is None  # this attempt is not sent
            status = 0
            if not unsettled:
                try:
                    return self.limits.call(endpoint, function, lambda seconds: self.wait_for(endpoint, seconds),
                                            what)
                except berserk.exceptions.ResponseError as error:
                    status, response = error.status_code, error.response
                    if status >= 500:
                        unsure_at = self.monotonic()
                except berserk.exceptions.ApiError as error:
                    detail = connection_cause(error)
                    if not detail.startswith(NOT_SENT_CAUSES):
                        unsure_at = self.monotonic()
            if checked and refused_means_landed and status == 400:
                log.info("%s: HTTP %d to the attempt sent again: the server refuses a move out of turn, so the "
                         "earlier attempt took effect", what, status)
                return cast(T, None)
            if status != 429 and not unsettled:
                metrics.HTTP_ERRORS.labels(endpoint=endpoint).inc()
            if status == 429:
                rate_limited += 1
                pause = self.limits.rate_limited(endpoint, response, what)
                if not wait_when_limited:
                    raise RateLimited(f"{endpoint}: HTTP 429, paused for {pause:.0f} s", pause)
                if rate_limited > 3:
                    raise ServerError(f"{endpoint}: still rate limited after {rate_limited} pauses", 429)
                continue
            if status == 401 or (status == 403 and endpoint == "account"):
                # Lichess answers 401 for a bad token, pychess 403; elsewhere a 403 is that call's problem
                self.token_refused = status
                raise TokenRejected(f"{endpoint}: the server rejected the token (HTTP {status})", status)
            if status and status < 500:
                body = short_body(response)
                raise ServerError(f"{endpoint}: HTTP {status}{': ' + body if body else ''}", status)
            failures += 1
            reason = ("not sent: it is unknown whether the last attempt took effect" if unsettled
                      else f"HTTP {status}" if status else f"connection error ({detail})")
            if failures >= attempts:
                raise ServerError(f"{endpoint}: {reason}, gave up after {failures} attempts", status or None)
            delay = backoff_s(failures - 1, self.timing.retry_base_s if retry_base_s is None else retry_base_s)
            # an attempt not sent was logged by ``landed`` with what it waits for
            log.log(logging.DEBUG if unsettled else logging.WARNING, "%s: %s; retrying in %.1f s (attempt %d of %d)",
                    what, reason, delay, failures + 1, attempts)
            if self.wait_for(endpoint, delay):
                raise ServerStopped(f"{endpoint}: the bot is stopping")


class Server(Transport):
    """One account on one server: the BOT API calls. Thread-safe: game workers share it."""

    def __init__(self, settings: ServerSettings, token: str, *, dialect: Dialect | None = None,
                 variants: tuple[str, ...] = ("seirawan",), session: requests.Session | None = None,
                 monotonic: Callable[[], float] = time.monotonic,
                 wait: Callable[[float], bool] | None = None, timing: Timing = PRODUCTION_TIMING) -> None:
        super().__init__(settings, token, session=session, monotonic=monotonic, wait=wait, timing=timing)
        self.dialect: Dialect | None = dialect if dialect is not None else (
            None if settings.dialect == "auto" else dialect_named(settings.dialect))
        self.variants = variants
        self.account: Account | None = None
        #: each game stream's latest state, for a move whose answer was lost (bot.wire.movefate)
        self.stream_states = StreamStates()
        self._waits_told: dict[str, float | None] = {}  # game id -> the send_by of the wait the log announced

    def refuses_token(self, status: int | None) -> bool:
        """Whether a request that needs the token and was answered with ``status`` (the event stream's, say)
        says the token is refused (401; 403 where the dialect answers so); remembered in :attr:`token_refused`."""
        refused = status == 401 or (self.dialect is not None and self.dialect.refuses_token(status))
        if refused:
            self.token_refused = status
        return refused

    # ---- account ----

    def fetch_account(self, retry_for_s: float = 0.0, *, attempts: int = 4) -> Account:
        """``GET /api/account``; settles the dialect when it is ``auto``. Raises :class:`TokenRejected`.

        ``retry_for_s``: keep retrying a server that cannot be reached (refused connections, timeouts, 5xx)
        for this long (a bot started before its server, or during an outage); other errors fail at once.
        ``attempts``: tries of each request (1: fail at the first error, as ``schess-bot --check`` does)."""
        started = self.monotonic()
        attempt = 0
        while True:
            try:
                return self._fetch_account_once(attempts)
            except ServerStopped:
                raise
            except ServerError as error:
                unreachable = error.status is None or error.status >= 500
                if not unreachable or self.monotonic() - started >= retry_for_s:
                    raise
                delay = min(self.timing.startup_max_delay_s, backoff_s(attempt, self.timing.retry_base_s))
                attempt += 1
                log.warning("cannot reach %s yet (%s); trying again in %.0f s", self.url, error, delay)
                if self.wait_for("account", delay):
                    raise ServerStopped("account: stopped while waiting for the server") from None

    def _fetch_account_once(self, attempts: int = 4) -> Account:
        """One ``GET /api/account`` (with the usual retries of :meth:`_call`). Read raw, not with berserk's
        ``account.get``, whose converter rewrites the timestamps the dialect check and the parser read."""

        def get() -> dict[str, Any]:
            data = self._request("account").json()
            if not isinstance(data, dict):
                raise ServerError("/api/account did not return an object")
            return data

        try:
            data = self._call("account", get, attempts=attempts)
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
        self._call("decline", lambda: self._request("decline", data={"reason": reason}, challenge_id=challenge_id))

    def online_bots(self, limit: int = 100) -> list[OnlineBot]:
        """Lichess ``GET /api/bot/online`` (ndjson; a bad line is skipped, where berserk's reader would stop).
        Raises :class:`RateLimited` instead of waiting."""

        def get() -> list[OnlineBot]:
            response = self._request("online", params={"nb": str(limit)})
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
        Raises :class:`RateLimited` instead of waiting out a 429 (the daily bot-challenge limit). A form body,
        not berserk's ``challenges.create`` (a JSON body with nulls for the unused clock fields)."""
        form = {"rated": "true" if rated else "false", "color": color, "variant": variant}
        if days is not None:
            form["days"] = str(days)
        else:
            form["clock.limit"] = str(base_s or 0)
            form["clock.increment"] = str(increment_s)

        def post() -> str:
            data = self._request("challenge", data=form, username=username).json()
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
        self._call("cancel", lambda: self.client.challenges.cancel(challenge_id), attempts=2,
                   wait_when_limited=False)

    # ---- games ----

    def make_move(self, game_id: str, uci: str, *, offer_draw: bool = False, san: str = "",
                  plies: int | None = None, unsure_since: float | None = None,
                  send_by: float | None = None) -> None:
        """Send a move. Connection errors and 5xx are retried quickly (the clock is running). Draw offers go
        only to a server that has them. ``san``: the move as the log names it besides its UCI (each retry's
        line names game, move and attempt).

        ``plies``: how many plies the position the move answers has. With it, a move is never sent again
        blindly once an attempt may have reached the server: the freshest record of the game says first
        whether it landed (:mod:`bot.wire.movefate`: the game stream's latest state, then the server's record
        where it is current), and where nothing says, the dialect decides: sent again where a move out of
        turn is refused without harm (Lichess), else (pychess: a wrong move loses) not before ``send_by``
        (monotonic; None: never unchecked), the moment the game sets from its clock. ``unsure_since``: an
        earlier call's attempt at this move may have landed, and ended then; check first."""
        what = f"game {game_id}: move {san} ({uci})" if san else f"game {game_id}: move {uci}"
        dialect = self._require_dialect()

        def landed(since: float) -> bool | None:
            assert plies is not None
            action = self._resend_verdict(game_id, plies, what, since, send_by).action
            return None if action is Resend.WAIT else action is Resend.SKIP

        send: Callable[[], object] = lambda: self.client.bots.make_move(game_id, uci)  # noqa: E731
        if offer_draw and dialect.draw_offers:
            send = lambda: self._request("move", params={"offeringDraw": "true"},  # noqa: E731
                                         game_id=game_id, move=uci)
        self._call("move", send, attempts=5, retry_base_s=self.timing.retry_base_s / 4, what=what,
                   landed=None if plies is None else landed, unsure_since=unsure_since,
                   refused_means_landed=dialect.refuses_moves_out_of_turn)

    def _resend_verdict(self, game_id: str, plies: int, what: str, unsure_since: float,
                        send_by: float | None) -> ResendVerdict:
        """Whether a move sent into the position after ``plies`` plies, whose last attempt that may have
        landed ended at ``unsure_since``, is sent again: the game stream's latest state first, then the
        dialect's live record; one log line says what was decided and why."""
        dialect = self._require_dialect()
        evidence = stream_evidence(self.stream_states.latest(game_id), plies, unsure_since,
                                   trusts_turn=not dialect.replays_on_reconnect)
        if evidence.fate is Fate.UNKNOWN and dialect.live_record is not None:
            evidence = self._record_evidence(game_id, plies, dialect.live_record, evidence.why)
        verdict = decide_resend(evidence, refuses_out_of_turn=dialect.refuses_moves_out_of_turn,
                                now=self.monotonic(), send_by=send_by)
        if verdict.action is not Resend.WAIT:
            self._waits_told.pop(game_id, None)
        if verdict.action is Resend.SKIP:
            log.info("%s: %s (%s); not sending it again",
                     what, "the server has it" if evidence.fate is Fate.LANDED else "no longer due", verdict.why)
        elif evidence.fate is Fate.NOT_LANDED:
            log.info("%s: the server does not have it (%s); sending it again", what, verdict.why)
        elif verdict.action is Resend.SEND:
            log.warning("%s: unknown whether the last attempt took effect (%s); sending it again", what,
                        verdict.why)
        elif game_id not in self._waits_told or self._waits_told[game_id] != send_by:  # once per wait
            self._waits_told[game_id] = send_by
            log.warning("%s: unknown whether the last attempt took effect (%s)", what, verdict.why)
        else:
            log.debug("%s: still unknown whether the last attempt took effect (%s)", what, verdict.why)
        return verdict

    def _record_evidence(self, game_id: str, plies: int, record: str, stream_why: str) -> Evidence:
        """What the server's current record (``game page`` or ``game export``) says of the move; UNKNOWN, with
        what the game stream said and why the record failed, when it cannot be had."""
        try:
            if record == "game page":
                page = self.fetch_game_page(game_id)
                on_record, finished = len(page.moves), page.finished
            else:
                export = self.fetch_game_export(game_id)
                on_record, finished = len(export.sans), export.finished
        except ServerStopped:
            raise
        except ServerError as error:
            return Evidence(Fate.UNKNOWN, f"{stream_why}; {error}")
        return record_evidence(on_record, finished, plies, record)

    def chat(self, game_id: str, text: str, room: str = "player", *, wait: bool = True) -> None:
        """Write in the game chat. ``wait=False``: raise :class:`RateLimited` rather than wait out a 429."""
        self._call("chat", lambda: self._request("chat", data={"room": room, "text": text}, game_id=game_id),
                   attempts=2, wait_when_limited=wait, what=f"game {game_id}: chat")

    def abort_game(self, game_id: str) -> None:
        self._call("abort", lambda: self.client.bots.abort_game(game_id), attempts=3, what=f"game {game_id}: abort")

    def resign_game(self, game_id: str) -> None:
        self._call("resign", lambda: self.client.bots.resign_game(game_id), attempts=3,
                   what=f"game {game_id}: resign")

    def fetch_game_page(self, game_id: str) -> GamePage:
        """pychess: the game's public page ``GET /{gameId}`` (result, status, every ply). Two attempts with
        the request timeout; raises :class:`ServerError` when the page cannot be had or read."""

        def get() -> GamePage:
            try:
                return parse_game_page(self._request("game page", game_id=game_id).text)
            except GamePageError as error:
                raise ServerError(f"game page {game_id}: {error}") from None

        return self._call("game page", get, attempts=2, wait_when_limited=False, what=f"game {game_id}: game page")

    def fetch_game_export(self, game_id: str) -> GameExport:
        """Lichess: the game's export ``GET /game/export/{gameId}`` as JSON (status, winner, every move in SAN).
        Two attempts; raises :class:`ServerError` when it cannot be had or read."""

        def get() -> GameExport:
            method, _ = ENDPOINTS["game export"]
            response = self._requestor.request(method, endpoint_path("game export", game_id=game_id),
                                               params={"moves": "true", "clocks": "false", "evals": "false"},
                                               fmt=_Response("application/json"),
                                               timeout=self.settings.request_timeout_s)
            assert isinstance(response, requests.Response)
            try:
                return parse_game_export(response.text)
            except GameExportError as error:
                raise ServerError(f"game export {game_id}: {error}") from None

        return self._call("game export", get, attempts=2, wait_when_limited=False,
                          what=f"game {game_id}: game export")

    def answer_draw(self, game_id: str, accept: bool) -> bool:
        """Accept/decline a draw offer where the server has them (Lichess); else returns False, sends nothing."""
        return self._if_offered("draw", game_id, "yes" if accept else "no")

    def claim_victory(self, game_id: str) -> bool:
        """Claim the win when the opponent has left (``opponentGone`` said when), where the server has the
        route (Lichess); else returns False, sends nothing."""
        return self._if_offered("claim", game_id)

    def answer_takeback(self, game_id: str, accept: bool) -> bool:
        return self._if_offered("takeback", game_id, "yes" if accept else "no")

    def _if_offered(self, endpoint: str, game_id: str, answer: str | None = None) -> bool:
        """Call a route only some dialects have (draw, claim, takeback); False when this server lacks it."""
        dialect = self.dialect
        offered = dialect is not None and {"draw": dialect.draw_offers, "claim": dialect.claim_victory,
                                           "takeback": dialect.takebacks}[endpoint]
        if not offered:
            return False
        what = f"game {game_id}: {endpoint}"
        if answer is None:
            self._call(endpoint, lambda: self._request(endpoint, game_id=game_id), attempts=2, what=what)
        else:
            self._call(endpoint, lambda: self._request(endpoint, game_id=game_id, answer=answer), attempts=2,
                       what=what)
        return True

    # ---- tournaments (Lichess) ----

    def tournament_info(self, kind: TournamentKind, tournament_id: str) -> TournamentInfo:
        """``GET /api/tournament/{id}`` (arena) or ``/api/swiss/{id}``, with the token, so that its verdicts
        are the bot's. Raises :class:`ServerError` (``status`` 404: no such tournament of that kind)."""

        def get() -> TournamentInfo:
            try:
                return parse_tournament(self._request(kind, tournament_id=tournament_id).json(), kind)
            except (ValueError, MalformedLine) as error:
                raise ServerError(f"{kind} {tournament_id}: unreadable answer ({error})") from None

        return self._call(kind, get, attempts=2, what=f"tournament {tournament_id}")

    def join_tournament(self, kind: TournamentKind, tournament_id: str, *, team: str | None = None,
                        password: str | None = None) -> str | None:
        """Join (form fields ``team`` and ``password`` where given); None when joined, else the server's reason
        for refusing (``Missing team``, ``Tournament restrictions`` ...: :mod:`bot.wire.tournaments`)."""
        form = {name: value for name, value in (("team", team), ("password", password)) if value}
        endpoint = f"{kind} join"

        def post() -> str | None:
            try:
                self._request(endpoint, data=form, tournament_id=tournament_id)
            except berserk.exceptions.ResponseError as error:
                if error.status_code not in (400, 403):
                    raise
                try:
                    return join_error(error.response.json() if error.response is not None else None)
                except ValueError:
                    return short_body(error.response)
            return None

        return self._call(endpoint, post, attempts=2, what=f"tournament {tournament_id}: join")

    def withdraw_tournament(self, kind: TournamentKind, tournament_id: str) -> None:
        """Leave it (an arena: a pause; the bot is paired no more)."""
        self._call(f"{kind} withdraw", lambda: self._request(f"{kind} withdraw", tournament_id=tournament_id),
                   attempts=2, what=f"tournament {tournament_id}: withdraw")

    # ---- streams ----

    def capabilities_header(self) -> dict[str, str]:
        if self.dialect is None or not self.dialect.capabilities_header:
            return {}
        value = json.dumps({"version": 1, "variants": pychess_variant_names(self.variants)},
                           separators=(",", ":"))
        return {CAPABILITIES_HEADER: value}

    def open_event_stream(self, on_line: Callable[[], None] | None = None) -> ServerStream[LobbyEvent]:
        self._require_dialect()  # the capabilities header depends on it
        stream: ServerStream[LobbyEvent] = ServerStream(
            self, "stream event", endpoint_path("stream event"), "event stream",
            lambda line: [normalise_lobby_line(line)], headers=self.capabilities_header(), on_line=on_line,
        )
        stream.start()
        return stream

    def open_game_stream(self, game_id: str, sink: Sink[GameEvent | StreamNotice] | None = None) \
            -> ServerStream[GameEvent]:
        """The game's stream, its reader started; with a ``sink`` (the game worker's inbox) it puts its items
        there."""
        dialect = self._require_dialect()
        self.stream_states.forget(game_id)

        def note_state(event: GameEvent) -> None:
            state = event.state if isinstance(event, GameFull) else event
            if isinstance(state, GameState):
                self.stream_states.saw(game_id, len(state.moves), self.monotonic())

        stream: ServerStream[GameEvent] = ServerStream(
            self, "stream game", endpoint_path("stream game", game_id=game_id), f"game {game_id}: game stream",
            lambda line: normalise_game_line(line, dialect), final=lambda event: isinstance(event, GameEnd),
            sink=sink, on_event=note_state,
        )
        stream.start()
        return stream

    def _require_dialect(self) -> Dialect:
        if self.dialect is None:
            raise ServerError("dialect unknown: call fetch_account() first or set server.dialect")
        return self.dialect

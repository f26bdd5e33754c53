"""The server's ndjson streams (``/api/stream/event`` and game streams), each read in a thread of its own.

Every line becomes events through a normaliser of :mod:`bot.wire.normalise`; a lost connection is reopened with
back-off; a watchdog closes a stream after ``stream_timeout_s`` without a line (a stream can stall without
closing). The log has one line when a stream is lost and one when it delivers again (with how long it was
down), written by the reader thread as it happens: the attempts in between are DEBUG lines. HTTP 429 pauses
the stream's endpoint through the same :class:`bot.wire.ratelimit.EndpointLimits` as every request.
"""

from __future__ import annotations

import logging
import queue
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar, Union

import requests

from bot import metrics
from bot.config import ServerSettings, Timing
from bot.wire.advice import connection_cause
from bot.wire.errors import MalformedLine
from bot.wire.ratelimit import EndpointLimits, backoff_s, short_body

log = logging.getLogger(__name__)

#: stream answers worth another try besides 5xx and 429: pychess answers 409 "Duplicate BOT game_stream"
#: after a restart, sometimes for good (the game worker's bounded wait decides when to give up)
RETRYABLE_STREAM_STATUSES = (409,)

T = TypeVar("T")
T_contra = TypeVar("T_contra", contravariant=True)


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


#: what the reader thread reports besides normalised lines
StreamNotice = Union[StreamConnected, StreamLost, StreamFailed]


class Sink(Protocol[T_contra]):
    """Where a stream's reader puts what it reads, instead of its own queue (a game worker's inbox)."""

    def put(self, item: T_contra) -> None: ...


class StreamSource(Protocol):
    """What a stream needs of its server (:class:`bot.wire.server.Server`)."""

    settings: ServerSettings
    timing: Timing  # its reconnect back-off
    url: str
    session: requests.Session
    limits: EndpointLimits
    monotonic: Callable[[], float]
    wait: Callable[[float], bool]

    @property
    def closed(self) -> bool: ...
    def wait_for(self, endpoint: str, seconds: float) -> bool: ...


class ServerStream(Generic[T]):
    """A reconnecting ndjson stream read in its own thread; the consumer calls :meth:`get`.

    Items are the normalised events plus :class:`StreamConnected` / :class:`StreamLost` /
    :class:`StreamFailed` notices. After an event for which ``final`` is true, or :meth:`close`, the stream
    stops for good. With a ``sink`` the items go there instead (and :meth:`get` has none): one queue for the
    consumer's other senders too. ``on_event`` sees each event in the reader's thread as it arrives, before
    the consumer does (the server keeps a game stream's latest state so).
    """

    def __init__(self, server: StreamSource, endpoint: str, path: str, label: str,
                 normalise: Callable[[str], list[T]], *, headers: dict[str, str] | None = None,
                 on_line: Callable[[], None] | None = None,
                 final: Callable[[T], bool] = lambda event: False,
                 sink: Sink[T | StreamNotice] | None = None,
                 on_event: Callable[[T], None] | None = None) -> None:
        self.server = server
        self.endpoint = endpoint
        self.path = path
        self.label = label
        self.normalise = normalise
        self.headers = dict(headers or {})
        self.on_line = on_line
        self.final = final
        self.on_event = on_event
        self.items: queue.Queue[T | StreamNotice] = queue.Queue()
        self._put: Callable[[T | StreamNotice], None] = sink.put if sink is not None else self.items.put
        self._closed = threading.Event()
        self._response: requests.Response | None = None
        self._last_line = server.monotonic()
        #: when the stream was lost (monotonic; None while it delivers), whether it ever delivered, and the
        #: connection attempts since it was lost
        self._down_since: float | None = None
        self._ever_delivered = False
        self._attempts_down = 0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=label, daemon=True)

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

    def _ended(self) -> bool:
        """Closed, or the server was closed (or, for the event stream, which no game needs, is stopping)."""
        return self._closed.is_set() or self.server.wait_for(self.endpoint, 0)

    def _wait(self, seconds: float) -> bool:
        """Sleep unless ended; True when the stream should end (see :meth:`_ended`)."""
        if self._ended():
            return True
        return self.server.wait_for(self.endpoint, seconds) or self._closed.is_set()

    def _run(self) -> None:
        attempt = 0
        while not self._ended():
            delivered, failure = self._connect_and_read()
            if self._ended():
                return
            if isinstance(failure, StreamFailed):
                self._put(failure)
                return
            attempt = 0 if delivered else attempt + 1
            metrics.STREAM_RECONNECTS.labels(stream=self.endpoint.removeprefix("stream ")).inc()
            delay = backoff_s(attempt, self.server.timing.reconnect_base_s)
            lost = failure or StreamLost("closed by the server")
            self._log_down(lost.reason, delay)
            self._put(lost)
            if self._wait(delay):
                return

    def _log_down(self, reason: str, delay: float) -> None:
        """The first failure of an outage is a WARNING (the stream is lost, or cannot be had yet); the
        attempts after it, until it delivers again, are DEBUG lines."""
        self._attempts_down += 1
        if self._down_since is not None:
            log.debug("%s still down (%s); attempt %d failed, next in %.0f s", self.label, reason,
                      self._attempts_down, delay)
            return
        self._down_since = self.server.monotonic()
        log.warning("%s %s (%s); reconnecting", self.label, "lost" if self._ever_delivered else "unavailable",
                    reason)

    def _log_delivering(self) -> None:
        """The first line after an outage: one line with how long the stream was down."""
        self._ever_delivered = True
        if self._down_since is None:
            return
        down_s = self.server.monotonic() - self._down_since
        log.warning("%s back after %.1f s down (%d failed attempt%s)", self.label, down_s, self._attempts_down,
                    "" if self._attempts_down == 1 else "s")
        self._down_since, self._attempts_down = None, 0

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
            metrics.HTTP_ERRORS.labels(endpoint=endpoint).inc()
            return False, StreamLost(f"cannot connect ({connection_cause(error)})")
        if response.status_code == 429:
            server.limits.rate_limited(endpoint, response)
            response.close()
            return False, StreamLost("HTTP 429")
        if response.status_code >= 400:
            metrics.HTTP_ERRORS.labels(endpoint=endpoint).inc()
        if response.status_code >= 500 or response.status_code in RETRYABLE_STREAM_STATUSES:
            response.close()
            return False, StreamLost(f"HTTP {response.status_code}")
        if response.status_code >= 400:
            body = short_body(response)
            response.close()
            return False, StreamFailed(f"HTTP {response.status_code}{': ' + body if body else ''}",
                                       response.status_code)
        with self._lock:
            self._response = response
        if self.closed:
            self._drop_response()
            return False, None
        self._put(StreamConnected())
        self._last_line = server.monotonic()
        watchdog = threading.Thread(target=self._watchdog, args=(response,), daemon=True,
                                    name=self.label + " watchdog")
        watchdog.start()
        delivered = False
        try:
            for line in _iter_lines(response):
                self._last_line = server.monotonic()
                if not delivered:
                    self._log_delivering()
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
                    if self.on_event is not None:
                        self.on_event(event)
                    self._put(event)
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
                log.debug("%s: no line for %.0f s; dropping the connection", self.label, silent)
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

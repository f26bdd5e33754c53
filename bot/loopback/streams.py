"""Long-lived ndjson responses: one ``Stream`` per open ``/api/stream/event`` or game stream.

Producers (the referee) call ``send``; the HTTP handler thread that owns the connection runs ``pump``,
which writes lines, keep-alives at the dialect's interval, and ends the response cleanly, abruptly (a dropped
connection) or never (a silent, stalled stream) as the faults ask.
"""

from __future__ import annotations

import queue
import select
import socket
import threading
import time
from typing import Callable, Literal, Optional

StreamKind = Literal["event", "game"]

_CLOSE = object()
_DROP = object()


def peer_closed(connection: socket.socket) -> bool:
    """True when the client has closed its end (readable and EOF), without consuming any data."""
    try:
        readable, _, _ = select.select([connection], [], [], 0)
        if not readable:
            return False
        return connection.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


class Stream:
    """One open streaming response."""

    def __init__(self, kind: StreamKind, game_id: Optional[str], keepalive_line: str, keepalive_s: float) -> None:
        self.kind = kind
        self.game_id = game_id
        self.keepalive_line = keepalive_line
        self.keepalive_s = keepalive_s
        self.lines_sent: list[str] = []
        self.silent = False
        self.finished = threading.Event()
        self._queue: queue.Queue[object] = queue.Queue()
        self.connection: Optional[socket.socket] = None

    def send(self, line: str) -> None:
        """Queue one ndjson line (without the newline)."""
        self._queue.put(line)

    def close(self) -> None:
        """End the response cleanly after the queued lines."""
        self._queue.put(_CLOSE)

    def drop(self) -> None:
        """Cut the connection without ending the response (the client sees a broken stream)."""
        self._queue.put(_DROP)

    def silence(self) -> None:
        """Stop writing anything at all, keep-alives included, but keep the connection open."""
        self.silent = True
        self._queue.put(None)

    def alive(self) -> bool:
        """Still attached to a client that has not gone away."""
        if self.finished.is_set() or self.silent:
            return False
        return self.connection is None or not peer_closed(self.connection)

    def pump(
        self,
        write: Callable[[bytes], None],
        finish: Callable[[], None],
        abort: Callable[[], None],
        stopping: threading.Event,
        delay_s: Callable[[], float],
    ) -> None:
        """Write queued lines until closed, dropped, the client leaves or the server stops.

        ``write`` sends one body fragment, ``finish`` ends the response properly, ``abort`` cuts the
        connection. Runs in the handler thread of the connection.
        """
        next_keepalive = time.monotonic() + self.keepalive_s
        try:
            while not stopping.is_set():
                timeout = max(0.0, min(0.2, next_keepalive - time.monotonic()))
                try:
                    item = self._queue.get(timeout=timeout)
                except queue.Empty:
                    item = None
                if self.connection is not None and peer_closed(self.connection):
                    return
                if self.silent:
                    next_keepalive = time.monotonic() + self.keepalive_s
                    continue
                if item is _CLOSE:
                    finish()
                    return
                if item is _DROP:
                    abort()
                    return
                if isinstance(item, str):
                    if delay_s() > 0:
                        time.sleep(delay_s())
                    write((item + "\n").encode())
                    self.lines_sent.append(item)
                    next_keepalive = time.monotonic() + self.keepalive_s
                elif time.monotonic() >= next_keepalive:
                    write((self.keepalive_line + "\n").encode())
                    next_keepalive = time.monotonic() + self.keepalive_s
            abort()
        except OSError:
            return
        finally:
            self.finished.set()

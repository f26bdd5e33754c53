"""A small HTTP/1.0 server on the standard library's sockets, hardened so that no client can hurt the bot.

- One accepting thread, which never reads from a client; a fixed pool of :data:`WORKERS` threads answers the
  connections it queues (at most :data:`QUEUE` waiting; beyond that a connection gets a 503 at once and is
  closed): many connections cost a bounded number of threads and file descriptors.
- Each connection has one deadline (:data:`DEADLINE_S` from its acceptance) for reading the request and
  writing the answer: every ``recv``/``send`` waits at most what is left, so a slowloris (a byte now and
  then) is cut off at the deadline, as is a client that does not read.
- The request head may hold :data:`MAX_REQUEST_BYTES` (request line and headers; 431 beyond); no body is
  read: only ``GET`` and ``HEAD`` are served (405 otherwise, 413 for a request announcing a body).
- One answer per connection (``Connection: close``), so no idle keep-alive holds a worker.
- Any failure is one connection's, logged at DEBUG; a bug in a handler answers 500.

The games never wait for any of this: the server's threads only read what the bot publishes.
"""

from __future__ import annotations

import logging
import queue
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote, urlsplit

log = logging.getLogger(__name__)

WORKERS = 4
QUEUE = 32
DEADLINE_S = 5.0
MAX_REQUEST_BYTES = 8192
REASONS = {200: "OK", 204: "No Content", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
           413: "Payload Too Large", 431: "Request Header Fields Too Large", 500: "Internal Server Error",
           503: "Service Unavailable"}
#: every answer's security headers: nothing may be framed, sniffed or loaded from elsewhere
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                                "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'"),
}


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, list[str]]


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes = b""
    content_type: str = "text/plain; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)


def text(status: int, message: str) -> Response:
    return Response(status, (message + "\n").encode())


class ClientError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


Handler = Callable[[Request], Response]


class BoundedHTTPServer:
    """Serves ``handler`` on ``(host, port)`` (port 0: any free one, see :attr:`address`) until :meth:`close`."""

    def __init__(self, address: tuple[str, int], handler: Handler, *, workers: int = WORKERS,
                 queue_size: int = QUEUE, deadline_s: float = DEADLINE_S,
                 max_request_bytes: int = MAX_REQUEST_BYTES) -> None:
        self.handler = handler
        self.deadline_s = deadline_s
        self.max_request_bytes = max_request_bytes
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.socket.bind(address)
            self.socket.listen(64)
        except OSError:
            self.socket.close()
            raise
        self.socket.settimeout(0.5)
        self.address: tuple[str, int] = self.socket.getsockname()[:2]
        self._queue: queue.Queue[tuple[socket.socket, float]] = queue.Queue(queue_size)
        self._closed = threading.Event()
        self._threads = [threading.Thread(target=self._accept_loop, name="status accept", daemon=True)]
        self._threads += [threading.Thread(target=self._work, name=f"status worker {n + 1}", daemon=True)
                          for n in range(workers)]
        self.refused = 0  # connections turned away because the queue was full

    def start(self) -> BoundedHTTPServer:
        for thread in self._threads:
            thread.start()
        return self

    def close(self) -> None:
        self._closed.set()
        try:
            self.socket.close()
        except OSError:
            pass
        for thread in self._threads:
            thread.join(timeout=self.deadline_s + 1)
        while True:
            try:
                connection, _ = self._queue.get_nowait()
            except queue.Empty:
                break
            connection.close()

    # ---- threads ----

    def _accept_loop(self) -> None:
        while not self._closed.is_set():
            try:
                connection, _peer = self.socket.accept()
            except TimeoutError:
                continue
            except OSError:
                if self._closed.is_set():
                    return
                time.sleep(0.05)  # out of file descriptors, say: try again, never spin
                continue
            try:
                self._queue.put_nowait((connection, time.monotonic()))
            except queue.Full:
                self.refused += 1
                self._refuse(connection)

    @staticmethod
    def _refuse(connection: socket.socket) -> None:
        try:
            connection.setblocking(False)
            connection.send(b"HTTP/1.0 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
        except OSError:
            pass
        finally:
            connection.close()

    def _work(self) -> None:
        while not self._closed.is_set():
            try:
                connection, accepted_at = self._queue.get(timeout=0.5)
            except queue.Empty:
                continue
            try:
                self._serve(connection, accepted_at + self.deadline_s)
            except Exception:  # noqa: BLE001 - one connection's failure, never the server's
                log.debug("status page: a connection failed", exc_info=True)
            finally:
                try:
                    connection.close()
                except OSError:
                    pass

    # ---- one connection ----

    def _serve(self, connection: socket.socket, deadline: float) -> None:
        try:
            head = self._read_head(connection, deadline)
            request = self._parse(head)
        except ClientError as error:
            self._send(connection, text(error.status, str(error)), deadline, head_only=False)
            return
        except (OSError, TimeoutError):
            return  # the client went away, or was too slow
        try:
            response = self.handler(request)
        except Exception:  # noqa: BLE001 - a bug answers 500, the server goes on
            log.warning("status page: %s %s failed", request.method, request.path, exc_info=True)
            response = text(500, "internal error")
        self._send(connection, response, deadline, head_only=request.method == "HEAD")

    def _read_head(self, connection: socket.socket, deadline: float) -> bytes:
        data = b""
        while b"\r\n\r\n" not in data and b"\n\n" not in data:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("request not complete by the deadline")
            connection.settimeout(remaining)
            chunk = connection.recv(4096)
            if not chunk:
                raise ConnectionError("closed before the request was complete")
            data += chunk
            if len(data) > self.max_request_bytes:
                raise ClientError(431, "request too large")
        return data

    def _parse(self, head: bytes) -> Request:
        lines = head.split(b"\n")
        try:
            method, target, version = lines[0].decode("ascii").strip().split(" ")
        except (UnicodeDecodeError, ValueError):
            raise ClientError(400, "bad request line") from None
        if not version.startswith("HTTP/"):
            raise ClientError(400, "bad request line")
        for line in lines[1:]:
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length" and value.strip() not in ("", "0"):
                raise ClientError(413, "no request body is read here")
            if name.strip().lower() == "transfer-encoding":
                raise ClientError(413, "no request body is read here")
        if method not in ("GET", "HEAD"):
            raise ClientError(405, "read-only: GET and HEAD only")
        parts = urlsplit(target)
        return Request(method, unquote(parts.path) or "/", parse_qs(parts.query, max_num_fields=10))

    def _send(self, connection: socket.socket, response: Response, deadline: float, *, head_only: bool) -> None:
        headers = {"Content-Type": response.content_type, "Content-Length": str(len(response.body)),
                   "Cache-Control": "no-store", "Connection": "close", **SECURITY_HEADERS, **response.headers}
        if response.status == 405:
            headers["Allow"] = "GET, HEAD"
        head = f"HTTP/1.0 {response.status} {REASONS.get(response.status, 'Unknown')}\r\n"
        head += "".join(f"{name}: {value}\r\n" for name, value in headers.items()) + "\r\n"
        data = memoryview(head.encode("latin-1") + (b"" if head_only else response.body))
        while data:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return  # a client that does not read loses its answer, not our worker
            connection.settimeout(remaining)
            try:
                sent = connection.send(data)
            except (OSError, TimeoutError):
                return
            data = data[sent:]
        try:
            connection.shutdown(socket.SHUT_WR)
        except OSError:
            pass

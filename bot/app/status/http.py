"""A small HTTP/1.0 server on the standard library's ``asyncio``, hardened so that no client can hurt the bot.

- One thread runs an event loop for every connection: an idle connection costs a few kilobytes (a transport,
  a stream reader and a task) and no thread. At most :attr:`BoundedHTTPServer.max_connections` are open at
  once (:func:`connection_cap`: far above a thousand, and below the process's open-file limit by
  :data:`FD_RESERVE`, so that the bot keeps descriptors for its engine, its PGNs and its server); beyond it a
  connection gets a 503 at once and is closed.
- Each connection has one deadline (:data:`DEADLINE_S` from its acceptance) for reading the request and
  writing the answer: a slowloris (a byte now and then), a client that sends nothing or does not read is cut
  off at the deadline.
- The request head may hold :data:`MAX_REQUEST_BYTES` (request line and headers; 431 beyond); no body is
  read: only ``GET`` and ``HEAD`` are served (405 otherwise, 413 for a request announcing a body). After such
  an answer the rest of what the client sends is read and dropped until the deadline, so that it reads the
  answer instead of a connection reset.
- One answer per connection (``Connection: close``), so no keep-alive holds anything.
- The handler runs in a small pool of threads (:data:`HANDLER_THREADS`), never on the event loop: a slow
  answer (the first read of a PGN folder) delays other answers, not the accepting and the deadlines. A bug in
  it answers 500; any other failure is one connection's, logged at DEBUG.

The games never wait for any of this: the server's threads only read what the bot publishes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import resource
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote, urlsplit

log = logging.getLogger(__name__)

DEADLINE_S = 5.0
MAX_REQUEST_BYTES = 8192
#: open connections at most, wherever the open-file limit allows it (each idle one: a few kilobytes)
MAX_CONNECTIONS = 8192
#: file descriptors the cap leaves to the rest of the bot (engine pipes, PGN and log files, its HTTP client)
FD_RESERVE = 256
HANDLER_THREADS = 2
#: pending connections the kernel keeps for us (capped by net.core.somaxconn)
BACKLOG = 1024
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
REFUSED = b"HTTP/1.0 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"


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


def raise_open_file_limit() -> int:
    """Raise this process's soft limit of open files to its hard limit, as servers do; returns the soft limit
    now in force (unchanged where the system does not allow more)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def connection_cap() -> int:
    """:data:`MAX_CONNECTIONS`, or fewer where the open-file limit leaves less than that and the reserve."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(16, min(MAX_CONNECTIONS, soft - FD_RESERVE))


def parse_head(head: bytes) -> Request:
    """The request of a complete head (what follows its blank line is not read); :class:`ClientError` for a bad
    one, a body or a method that writes."""
    lines = head.replace(b"\r\n", b"\n").split(b"\n\n", 1)[0].split(b"\n")
    try:
        method, target, version = lines[0].decode("ascii").strip().split(" ")
    except (UnicodeDecodeError, ValueError):
        raise ClientError(400, "bad request line") from None
    if not version.startswith("HTTP/"):
        raise ClientError(400, "bad request line")
    for line in lines[1:]:
        name, _, value = line.decode("latin-1").partition(":")
        name = name.strip().lower()
        if (name == "content-length" and value.strip() not in ("", "0")) or name == "transfer-encoding":
            raise ClientError(413, "no request body is read here")
    if method not in ("GET", "HEAD"):
        raise ClientError(405, "read-only: GET and HEAD only")
    parts = urlsplit(target)
    return Request(method, unquote(parts.path) or "/", parse_qs(parts.query, max_num_fields=10))


def encode(response: Response, *, head_only: bool) -> bytes:
    headers = {"Content-Type": response.content_type, "Content-Length": str(len(response.body)),
               "Cache-Control": "no-store", "Connection": "close", **SECURITY_HEADERS, **response.headers}
    if response.status == 405:
        headers["Allow"] = "GET, HEAD"
    head = f"HTTP/1.0 {response.status} {REASONS.get(response.status, 'Unknown')}\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in headers.items()) + "\r\n"
    return head.encode("latin-1") + (b"" if head_only else response.body)


class BoundedHTTPServer:
    """Serves ``handler`` on ``(host, port)`` (port 0: any free one, see :attr:`address`) from :meth:`start`
    until :meth:`close`. The address is bound in the constructor: OSError there when it cannot be had."""

    def __init__(self, address: tuple[str, int], handler: Handler, *, deadline_s: float = DEADLINE_S,
                 max_request_bytes: int = MAX_REQUEST_BYTES, max_connections: int | None = None,
                 handler_threads: int = HANDLER_THREADS) -> None:
        self.handler = handler
        self.deadline_s = deadline_s
        self.max_request_bytes = max_request_bytes
        self.max_connections = connection_cap() if max_connections is None else max_connections
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.socket.bind(address)
            self.socket.listen(BACKLOG)
        except OSError:
            self.socket.close()
            raise
        self.socket.setblocking(False)
        self.address: tuple[str, int] = self.socket.getsockname()[:2]
        self.open_connections = 0
        self.refused = 0  # connections turned away at the cap
        self.cut = 0  # connections cut off at their deadline
        self._loop = asyncio.new_event_loop()
        self._handlers = concurrent.futures.ThreadPoolExecutor(handler_threads, thread_name_prefix="status handler")
        self._thread = threading.Thread(target=self._run, name="status page", daemon=True)
        self._started = threading.Event()
        self._start_error: BaseException | None = None

    def start(self) -> BoundedHTTPServer:
        self._thread.start()
        self._started.wait()
        if self._start_error is not None:
            raise self._start_error
        return self

    def close(self) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=self.deadline_s + 1)
        else:
            self.socket.close()
        self._handlers.shutdown(wait=False, cancel_futures=True)

    # ---- the event loop's thread ----

    def _run(self) -> None:
        loop = self._loop
        asyncio.set_event_loop(loop)
        # backlog again: asyncio listens on the socket anew with it (100 by default), and accepts that many
        # connections at a time
        try:
            server = loop.run_until_complete(asyncio.start_server(self._connection, sock=self.socket,
                                                                  backlog=BACKLOG, limit=self.max_request_bytes))
        except BaseException as error:  # noqa: BLE001 - handed to start(), in the caller's thread
            self._start_error = error
            self.socket.close()
            loop.close()
            return
        finally:
            self._started.set()
        try:
            loop.run_forever()
        finally:
            server.close()
            tasks = asyncio.all_tasks(loop)
            for task in tasks:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            loop.run_until_complete(server.wait_closed())
            loop.close()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.open_connections >= self.max_connections:
            self.refused += 1
            writer.write(REFUSED)
            writer.close()
            return
        self.open_connections += 1
        writer.transport.set_write_buffer_limits(high=0)  # drain() returns once all is handed to the kernel
        task = asyncio.current_task()
        assert task is not None
        timer = self._loop.call_later(self.deadline_s, task.cancel)
        try:
            await self._serve(reader, writer)
        except asyncio.CancelledError:
            self.cut += 1  # the deadline (or the server closing)
        except Exception:  # noqa: BLE001 - one connection's failure, never the server's
            log.debug("status page: a connection failed", exc_info=True)
        finally:
            timer.cancel()
            self.open_connections -= 1
            if not writer.is_closing():
                writer.transport.abort()  # cut off: nothing more is sent

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = parse_head(await self._read_head(reader))
        except ClientError as error:
            writer.write(encode(text(error.status, str(error)), head_only=False))
            await writer.drain()
            writer.write_eof()
            while await reader.read(65536):
                pass  # dropped until the client is done or the deadline: it reads our answer, not a reset
            writer.close()
            return
        except ConnectionError:
            return
        response = await self._loop.run_in_executor(self._handlers, self._answer, request)
        writer.write(encode(response, head_only=request.method == "HEAD"))
        await writer.drain()
        writer.close()

    async def _read_head(self, reader: asyncio.StreamReader) -> bytes:
        data = b""
        while True:
            ends = [index for index in (data.find(b"\r\n\r\n"), data.find(b"\n\n")) if index >= 0]
            if ends and min(ends) <= self.max_request_bytes:
                return data  # the head and perhaps the start of a body, which parse_head refuses
            if len(data) > self.max_request_bytes:
                raise ClientError(431, "request too large")
            chunk = await reader.read(4096)
            if not chunk:
                raise ConnectionError("closed before the request was complete")
            data += chunk

    def _answer(self, request: Request) -> Response:
        try:
            return self.handler(request)
        except Exception:  # noqa: BLE001 - a bug answers 500, the server goes on
            log.warning("status page: %s %s failed", request.method, request.path, exc_info=True)
            return text(500, "internal error")

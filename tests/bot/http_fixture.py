"""A scriptable local HTTP server for the bot's HTTP-layer tests (127.0.0.1 only)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from tests.timing import PATIENCE_S, wait_until


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes


@dataclass
class Reply:
    status: int = 200
    body: str = '{"ok":true}'
    headers: dict[str, str] = field(default_factory=dict)
    lines: list[str] | None = None  # a stream: these lines, then ...
    stall_s: float = 0.0  # ... silence for this long before closing
    line_delay_s: float = 0.0  # pause before each line after the first
    #: line index -> (method, path): that line is sent only once such a request has come (as a real server
    #: sends a game's next state only after the move), so the script follows the client however slow it is
    after: dict[int, tuple[str, str]] = field(default_factory=dict)


Route = Callable[[Request], Reply]


class ScriptedServer:
    """``routes[(method, path)]`` is a list of replies used in turn (the last one repeats)."""

    def __init__(self) -> None:
        self.routes: dict[tuple[str, str], list[Reply]] = {}
        self.requests: list[Request] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                parsed = urlparse(self.path)
                request = Request(self.command, parsed.path, parse_qs(parsed.query),
                                  {k: v for k, v in self.headers.items()}, self.rfile.read(length))
                outer.requests.append(request)
                missing = [Reply(404, '{"error":"no route"}')]
                replies = outer.routes.get((self.command, parsed.path)) or missing
                reply = replies.pop(0) if len(replies) > 1 else replies[0]
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                if reply.lines is None:
                    data = reply.body.encode()
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                try:
                    for index, line in enumerate(reply.lines):
                        if index:
                            time.sleep(reply.line_delay_s)
                        if index in reply.after:
                            outer.wait_for_hit(*reply.after[index])
                        self.wfile.write((line + "\n").encode())
                        self.wfile.flush()
                    time.sleep(reply.stall_s)
                except OSError:
                    pass

            do_GET = _handle
            do_POST = _handle

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)

    def route(self, method: str, path: str, *replies: Reply) -> None:
        self.routes[(method, path)] = list(replies)

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def hits(self, method: str, path: str) -> list[Request]:
        return [r for r in self.requests if r.method == method and r.path == path]

    def wait_for_hit(self, method: str, path: str, timeout_s: float = PATIENCE_S) -> list[Request]:
        """The requests to ``method path`` once there is one; AssertionError after ``timeout_s`` without."""
        return wait_until(lambda: self.hits(method, path), f"a {method} {path} request", timeout_s, poll_s=0.02)

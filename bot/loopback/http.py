"""The HTTP side of the loopback server: routing, auth, fault injection, request records, ndjson streaming."""

from __future__ import annotations

import contextlib
import json
import logging
import re
import socket
import threading
import time
from collections.abc import Collection
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional
from urllib.parse import parse_qs, unquote

from bot.loopback.answers import Reply
from bot.loopback.model import RequestRecord
from bot.loopback.referee import CAPABILITIES_HEADER, Referee
from bot.loopback.streams import Stream
from bot.loopback.tournaments import TOURNAMENT_KINDS, TournamentKind

log = logging.getLogger(__name__)
_ID = r"(?P<id>[^/?]+)"
ROUTES: list[tuple[str, re.Pattern[str], str]] = [
    (method, re.compile(pattern), endpoint)
    for method, pattern, endpoint in (
        ("GET", r"^/api/account$", "account"),
        ("GET", r"^/api/account/playing$", "playing"),
        ("POST", r"^/api/token/test$", "token_test"),
        ("POST", r"^/api/bot/account/upgrade$", "upgrade"),
        ("GET", r"^/api/stream/event$", "stream_event"),
        ("GET", rf"^/api/bot/game/stream/{_ID}$", "stream_game"),
        ("POST", rf"^/api/bot/game/{_ID}/move/(?P<uci>[^/]+)$", "move"),
        ("POST", rf"^/api/bot/game/{_ID}/chat$", "chat"),
        ("POST", rf"^/api/bot/game/{_ID}/abort$", "abort"),
        ("POST", rf"^/api/bot/game/{_ID}/resign$", "resign"),
        ("POST", rf"^/api/bot/game/{_ID}/draw/(?P<answer>yes|no)$", "draw"),
        ("POST", rf"^/api/bot/game/{_ID}/takeback/(?P<answer>yes|no)$", "takeback"),
        ("POST", rf"^/api/bot/game/{_ID}/claim-victory$", "claim_victory"),
        ("POST", rf"^/api/bot/game/{_ID}/claim-draw$", "claim_draw"),
        ("POST", rf"^/api/challenge/{_ID}/accept$", "accept"),
        ("POST", rf"^/api/challenge/{_ID}/decline$", "decline"),
        ("POST", rf"^/api/challenge/{_ID}/cancel$", "challenge_cancel"),
        ("GET", r"^/api/bot/online$", "online"),
        ("POST", rf"^/api/challenge/{_ID}$", "challenge_create"),
        ("GET", r"^/(?P<id>[A-Za-z0-9]{8})$", "game_page"),
        ("GET", rf"^/game/export/{_ID}$", "game_export"),
        ("GET", rf"^/api/tournament/{_ID}$", "arena"),
        ("POST", rf"^/api/tournament/{_ID}/join$", "arena_join"),
        ("POST", rf"^/api/tournament/{_ID}/withdraw$", "arena_withdraw"),
        ("GET", rf"^/api/swiss/{_ID}$", "swiss"),
        ("POST", rf"^/api/swiss/{_ID}/join$", "swiss_join"),
        ("POST", rf"^/api/swiss/{_ID}/withdraw$", "swiss_withdraw"),
    )
]
#: the tournament routes (Lichess): endpoint -> (the tournament's kind, what is asked)
TOURNAMENT_ENDPOINTS: dict[str, tuple[TournamentKind, str]] = {
    f"{kind}{action}": (kind, action or "info") for kind in TOURNAMENT_KINDS for action in ("", "_join", "_withdraw")
}
LICHESS_ONLY = {"draw", "takeback", "claim_victory", "claim_draw", "online", "game_export", *TOURNAMENT_ENDPOINTS}
PYCHESS_ONLY = {"game_page"}
FORM_ONLY_ON_PYCHESS = {"chat", "decline"}


def classify(method: str, path: str) -> tuple[str, dict[str, str]]:
    """The endpoint name of a request (see ``ROUTES``) and its path parameters; ``unknown`` if none."""
    for route_method, pattern, endpoint in ROUTES:
        match = pattern.match(path)
        if match and route_method == method:
            return endpoint, {k: unquote(v) for k, v in match.groupdict().items()}
    return "unknown", {}


class LoopbackHTTPServer(ThreadingHTTPServer):
    """``ThreadingHTTPServer`` that knows its ``Referee``, and the connections it holds open (keep-alive ones
    included), so that a server going down can take them with it (:meth:`cut_connections`)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], loopback: Referee) -> None:
        self.loopback = loopback
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        super().__init__(address, LoopbackHandler)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._open_lock:
                self._open.discard(request)

    def cut_connections(self, keep: Collection[Any] = ()) -> None:
        """Cut every connection still open but those in ``keep`` (streams, which the faults cut their own
        way), as a process that exits does: a client's idle keep-alive connection must not reach a server
        that is down."""
        with self._open_lock:
            connections = [connection for connection in self._open if connection not in keep]
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class LoopbackHandler(BaseHTTPRequestHandler):
    """One HTTP request from the bot."""

    protocol_version = "HTTP/1.1"
    raw_body = ""  # the request body as text (set per request)
    server: LoopbackHTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        """Silence the default stderr access log (requests are recorded instead)."""

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        """Handle a GET."""
        self._handle("GET")

    def do_POST(self) -> None:  # noqa: N802
        """Handle a POST."""
        self._handle("POST")

    def setup(self) -> None:
        """Send small writes at once (TCP_NODELAY), as real servers do: without it each answer to a client
        that waits for it can sit ~40 ms in the delayed-acknowledgement timer."""
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _read_body(self) -> tuple[dict[str, str], Any, bool]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        self.raw_body = raw.decode(errors="replace")
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if not raw:
            return {}, None, False
        if content_type == "application/json":
            try:
                return {}, json.loads(raw), True
            except ValueError:
                return {}, raw.decode(errors="replace"), True
        form = {k: v[-1] for k, v in parse_qs(raw.decode(errors="replace"), keep_blank_values=True).items()}
        return form, None, False

    def _handle(self, method: str) -> None:
        loopback = self.server.loopback
        path, _, query = self.path.partition("?")
        params = {k: v[-1] for k, v in parse_qs(query).items()}
        endpoint, path_params = classify(method, path)
        target = path_params.get("id")
        form, json_body, is_json = self._read_body()
        started_at = time.time()
        counted = not endpoint.startswith("stream_")
        in_flight = loopback.request_started(endpoint) if counted else 1
        try:
            if loopback.faults.delay_s > 0:
                time.sleep(loopback.faults.delay_s)
            reply = self._reply_for(endpoint, path_params, params, form, json_body, is_json)
        except Exception:  # noqa: BLE001 - a bug in the test server must show up as a 500, not a dead socket
            log.exception("loopback server: %s %s failed", method, path)
            reply = Reply(500, "500 Internal Server Error (loopback server bug, see the log)\n")
        lost = isinstance(reply, Reply) and loopback.faults.answer_lost(endpoint, target)
        status = 0 if lost else reply.status if isinstance(reply, Reply) else 200
        headers = {}
        if endpoint == "stream_event" and self.headers.get(CAPABILITIES_HEADER) is not None:
            headers[CAPABILITIES_HEADER] = self.headers.get(CAPABILITIES_HEADER, "")
        loopback.record(
            RequestRecord(
                at=time.time(),
                method=method,
                path=self.path,
                endpoint=endpoint,
                target=target,
                form=form,
                json_body=json_body,
                status=status,
                headers=headers,
                started_at=started_at,
                in_flight=in_flight,
            ),
            finished=endpoint if counted else None,
        )
        if lost:  # carried out, never answered
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
        elif isinstance(reply, Stream):
            self._stream(reply)
        elif isinstance(reply, list):
            self._send(Reply(200, "".join(json.dumps(item) + "\n" for item in reply)), "application/x-ndjson")
        else:
            self._send(reply)

    def _reply_for(
        self,
        endpoint: str,
        path_params: dict[str, str],
        params: dict[str, str],
        form: dict[str, str],
        json_body: Any,
        is_json: bool,
    ) -> Any:
        loopback = self.server.loopback
        fault = loopback.faults.take(endpoint, path_params.get("id"))
        if fault is not None:
            return fault
        lost = loopback.faults.lost_game_stream(path_params.get("id")) if endpoint == "stream_game" else None
        if lost == "broken":  # HTTP 200 headers, then the body breaks
            broken = Stream("game", path_params.get("id"), "", 60.0)
            broken.drop()
            return broken
        if lost == "409":
            return Reply(409, "Duplicate BOT game_stream")
        pychess = loopback.dialect == "pychess"
        if endpoint == "game_page" and pychess:  # public: no token needed
            return loopback.api_game_page(path_params["id"])
        if endpoint == "game_export" and not pychess:  # public as well
            return loopback.api_game_export(path_params["id"])
        if endpoint == "token_test":  # public: the tokens to test are the body
            return loopback.api_token_test(self.raw_body.strip())
        if self.headers.get("Authorization") != f"Bearer {loopback.token}":
            # pychess answers a bad token with 403 Forbidden, Lichess with 401
            return Reply(403, "403: Forbidden") if pychess else Reply(401, {"error": "No such token"})
        other_dialect = LICHESS_ONLY if pychess else PYCHESS_ONLY
        if endpoint == "unknown" or endpoint in other_dialect:
            return Reply(404, {"error": "Not found"})
        if pychess and is_json and endpoint in FORM_ONLY_ON_PYCHESS:
            return Reply(500, "500 Internal Server Error\n\nServer got itself in trouble")
        fields = dict(form)
        if is_json and isinstance(json_body, dict):
            fields.update({k: str(v) for k, v in json_body.items()})
        game_id = path_params.get("id", "")
        if endpoint == "account":
            return loopback.api_account()
        if endpoint == "playing":
            return loopback.api_playing(int(params.get("nb", "9") or 9))
        if endpoint == "upgrade":
            return loopback.api_upgrade()
        if endpoint == "stream_event":
            return loopback.api_open_event_stream({k.lower(): v for k, v in self.headers.items()})
        if endpoint == "stream_game":
            return loopback.api_open_game_stream(game_id)
        if endpoint == "move":
            return loopback.api_move(game_id, path_params["uci"], params.get("offeringDraw") == "true")
        if endpoint == "chat":
            return loopback.api_chat(game_id, fields.get("room", "player"), fields.get("text", ""))
        if endpoint == "abort":
            return loopback.api_abort(game_id)
        if endpoint == "resign":
            return loopback.api_resign(game_id)
        if endpoint == "draw":
            return loopback.api_draw(game_id, path_params["answer"] == "yes")
        if endpoint == "takeback":
            return loopback.api_takeback(game_id, path_params["answer"] == "yes")
        if endpoint in ("claim_victory", "claim_draw"):
            return loopback.api_claim(game_id, endpoint == "claim_victory")
        if endpoint in ("accept", "decline"):
            return loopback.api_answer_challenge(game_id, endpoint == "accept", fields.get("reason"))
        if endpoint == "challenge_cancel":
            return loopback.api_cancel_challenge(game_id)
        if endpoint == "online":
            return loopback.api_online_bots(int(params.get("nb", "50") or 50))
        if endpoint in TOURNAMENT_ENDPOINTS:
            kind, action = TOURNAMENT_ENDPOINTS[endpoint]
            if action == "_join":
                return loopback.api_join_tournament(kind, game_id, fields)
            if action == "_withdraw":
                return loopback.api_withdraw_tournament(kind, game_id)
            return loopback.api_tournament(kind, game_id)
        return loopback.api_create_challenge(game_id, fields)

    def _send(self, reply: Reply, content_type: Optional[str] = None) -> None:
        if isinstance(reply.body, str):
            data = reply.body.encode()
            content_type = content_type or "text/plain; charset=utf-8"
        else:
            data = json.dumps(reply.body).encode()
            content_type = content_type or "application/json"
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if reply.status == 200 and isinstance(reply.body, str) and self.path.startswith("/api/bot/game/stream"):
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            self.close_connection = True

    def _stream(self, stream: Stream) -> None:
        loopback = self.server.loopback
        chunked = loopback.stream_encoding == "chunked"
        stream.connection = self.connection
        self.close_connection = True
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            if chunked:
                self.send_header("Transfer-Encoding", "chunked")
            else:
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.flush()
        except OSError:
            stream.finished.set()
            return

        def write(data: bytes) -> None:
            self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data) if chunked else data)
            self.wfile.flush()

        def finish() -> None:
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

        def abort() -> None:
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        stream.pump(write, finish, abort, loopback.stopping, lambda: loopback.faults.delay_s)

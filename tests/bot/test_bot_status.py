"""The status page's parts without a bot: the hardened HTTP server, the finished games read back from PGNs,
the eval graph, the error lines, status.listen, the health check through the page, and the layers."""

from __future__ import annotations

import json
import logging
import resource
import select
import socket
import threading
import time
import urllib.error
import urllib.request
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest

from bot.app import health
from bot.app.status import public_url
from bot.app.status.history import History, eval_graph, finished_game, parse_eval, totals
from bot.app.status.http import FD_RESERVE, BoundedHTTPServer, Request, Response, connection_cap, raise_open_file_limit
from bot.app.status.render import render_page
from bot.app.status.snapshot import RecentErrors
from bot.config import ConfigError, settings_from_dict
from bot.wire.links import game_url
from tests.timing import PATIENCE_S, wait_until

REPO = Path(__file__).resolve().parents[2]
PGN = """[Event "Casual seirawan game"]
[Site "http://127.0.0.1:1/AbCd1234"]
[White "SeirawanBot"]
[Black "Alice"]
[Result "1-0"]
[UTCDate "2026.12.01"]
[UTCTime "19:00:00"]
[Variant "Seirawan"]
[Termination "Normal"]

1. e4 {[%eval 0.30,5] [%clk 0:04:59]} e5 {[%clk 0:04:58]} 2. Nf3/H {[%eval 0.50,6]} Nc6 3. Bc4 {[%eval #3,9]}
Nf6 1-0
"""


def hello(request: Request) -> Response:
    return Response(200, f"hello {request.path}".encode())


@pytest.fixture
def server() -> Any:
    page = BoundedHTTPServer(("127.0.0.1", 0), hello, deadline_s=1.0, max_request_bytes=1024,
                             max_connections=64).start()
    yield page
    page.close()


def raw(address: tuple[str, int], data: bytes, timeout: float = PATIENCE_S) -> bytes:
    with socket.create_connection(address, timeout=timeout) as connection:
        connection.sendall(data)
        answer = b""
        while chunk := connection.recv(4096):
            answer += chunk
        return answer


def fetch(address: tuple[str, int], path: str = "/") -> str:
    with urllib.request.urlopen(f"http://{address[0]}:{address[1]}{path}", timeout=PATIENCE_S) as answer:  # noqa: S310
        return str(answer.read().decode())


def closed_after(connection: socket.socket, give_up_s: float, send: bytes = b"") -> float | None:
    """Seconds until the server closes ``connection`` (sending ``send`` every 0.1 s meanwhile, a slowloris),
    or None if it is still open after ``give_up_s``."""
    started = time.monotonic()
    while time.monotonic() - started < give_up_s:
        try:
            if send:
                connection.send(send)
            readable, _, _ = select.select([connection], [], [], 0.1)
            if readable and connection.recv(4096) == b"":
                return time.monotonic() - started
        except OSError:
            return time.monotonic() - started
    return None


def test_get_and_head_are_answered_with_the_security_headers(server: BoundedHTTPServer) -> None:
    assert fetch(server.address, "/x") == "hello /x"
    head = raw(server.address, b"HEAD /x HTTP/1.1\r\nHost: a\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 200") and head.endswith(b"\r\n\r\n")
    answer = raw(server.address, b"GET / HTTP/1.0\r\n\r\n")
    for header in (b"Connection: close", b"Content-Security-Policy: default-src 'none'", b"X-Frame-Options: DENY",
                   b"X-Content-Type-Options: nosniff", b"Referrer-Policy: no-referrer", b"Cache-Control: no-store"):
        assert header + b"\r\n" in answer or header + b";" in answer, header
    assert raw(server.address, b"nonsense\r\n\r\n").startswith(b"HTTP/1.0 400")
    pipelined = raw(server.address, b"GET /x HTTP/1.1\r\n\r\nPOST /y HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello")
    assert pipelined.startswith(b"HTTP/1.0 200") and pipelined.count(b"HTTP/1.0") == 1, "one answer, to the first"


def test_a_method_that_writes_is_a_405(server: BoundedHTTPServer) -> None:
    for method in (b"POST", b"PUT", b"DELETE", b"OPTIONS"):
        answer = raw(server.address, method + b" /x HTTP/1.1\r\n\r\n")
        assert answer.startswith(b"HTTP/1.0 405") and b"Allow: GET, HEAD" in answer, answer[:80]


def test_a_request_with_a_body_is_a_413_even_a_megabyte_sent_at_once(server: BoundedHTTPServer) -> None:
    assert raw(server.address, b"GET /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello").startswith(b"HTTP/1.0 413")
    assert raw(server.address, b"GET /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").startswith(b"HTTP/1.0 413")
    body = b"x" * 1_000_000
    answer = raw(server.address, b"POST /x HTTP/1.1\r\nContent-Length: 1000000\r\n\r\n" + body)
    assert answer.startswith(b"HTTP/1.0 413"), "the client reads the answer, not a reset"
    assert fetch(server.address) == "hello /"


def test_a_request_head_beyond_the_limit_is_a_431_and_one_within_it_is_served(server: BoundedHTTPServer) -> None:
    assert fetch(server.address, "/" + "a" * 900) == "hello /" + "a" * 900
    with socket.create_connection(server.address, timeout=PATIENCE_S) as connection:
        try:
            connection.sendall(b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\n\r\n")
        except OSError:
            pass
        assert connection.recv(100).startswith(b"HTTP/1.0 431")
    assert fetch(server.address) == "hello /"


def test_a_slowloris_is_cut_off_at_the_deadline(server: BoundedHTTPServer) -> None:
    with socket.create_connection(server.address, timeout=PATIENCE_S) as slow:
        lasted = closed_after(slow, give_up_s=server.deadline_s + PATIENCE_S, send=b"G")
    assert lasted is not None, "the slowloris was never cut off"
    assert lasted >= server.deadline_s - 0.05, f"cut after {lasted:.2f} s, before its deadline"
    assert server.cut >= 1
    assert fetch(server.address) == "hello /"


def test_a_silent_connection_is_closed_at_the_deadline(server: BoundedHTTPServer) -> None:
    with socket.create_connection(server.address, timeout=PATIENCE_S) as silent:
        lasted = closed_after(silent, give_up_s=server.deadline_s + PATIENCE_S)
    assert lasted is not None and lasted >= server.deadline_s - 0.05


def test_beyond_the_connection_cap_a_connection_gets_a_503_at_once(server: BoundedHTTPServer) -> None:
    idle = [socket.create_connection(server.address, timeout=PATIENCE_S) for _ in range(server.max_connections)]
    try:
        wait_until(lambda: server.open_connections == server.max_connections, "the idle connections accepted")
        with socket.create_connection(server.address, timeout=PATIENCE_S) as one_more:
            assert one_more.recv(100).startswith(b"HTTP/1.0 503"), "answered before it asks, and closed"
        assert server.refused == 1
    finally:
        for connection in idle:
            connection.close()
    wait_until(lambda: server.open_connections == 0, "the idle connections gone")
    assert fetch(server.address) == "hello /"


def test_a_thousand_idle_connections_cost_no_thread_and_the_page_still_answers() -> None:
    raise_open_file_limit()  # as the bot does at start: 1,000 sockets on each side in this one process
    page = BoundedHTTPServer(("127.0.0.1", 0), hello, deadline_s=60.0).start()
    threads = threading.active_count()
    idle: list[socket.socket] = []
    try:
        assert page.max_connections > 1000
        idle = [socket.create_connection(page.address, timeout=PATIENCE_S) for _ in range(1000)]
        for connection in idle[:500]:
            connection.sendall(b"GET / HTTP/1.1\r\n")  # half a request, then nothing
        wait_until(lambda: page.open_connections == 1000, "the thousand connections accepted")
        assert threading.active_count() <= threads, "no thread per connection"
        started = time.monotonic()
        assert fetch(page.address, "/api/status") == "hello /api/status"
        assert time.monotonic() - started < PATIENCE_S
        assert page.refused == 0
    finally:
        for connection in idle:
            connection.close()
        page.close()


def test_the_open_file_limit_is_raised_to_the_hard_limit_and_bounds_the_cap() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 600:
        pytest.skip(f"a hard limit of {hard} open files")
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (500, hard))
        assert connection_cap() == 500 - FD_RESERVE, "descriptors are left to the bot"
        assert raise_open_file_limit() == resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == (hard if hard != resource.RLIM_INFINITY else 1 << 20)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_handler_bug_is_a_500_and_not_the_end() -> None:
    def broken(request: Request) -> Response:
        if request.path == "/bad":
            raise RuntimeError("bug")
        return Response(200, b"fine")

    page = BoundedHTTPServer(("127.0.0.1", 0), broken).start()
    try:
        assert raw(page.address, b"GET /bad HTTP/1.0\r\n\r\n").startswith(b"HTTP/1.0 500")
        assert fetch(page.address, "/") == "fine"
    finally:
        page.close()


def test_a_pgn_reads_back_with_our_evals_from_our_side() -> None:
    game = finished_game(PGN, "seirawanbot", "AbCd1234")
    assert (game.result, game.outcome, game.opponent, game.variant, game.plies) == ("1-0", "win", "Alice",
                                                                                   "seirawan", 6)
    assert game.evals == ((1, 0.3), (3, 0.5), (5, 100.0))  # a mate: +100 pawns on the one scale
    swapped = PGN.replace('"SeirawanBot"', '"X"').replace('"Alice"', '"SeirawanBot"')
    as_black = finished_game(swapped, "SeirawanBot", "g")
    assert as_black.outcome == "loss" and as_black.evals == () and as_black.opponent == "X"
    assert game.final_fen is not None and game.final_fen.startswith("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/")
    ElementTree.fromstring(game.final_svg() or "")
    assert parse_eval("{[%eval #-2,4]}") == -100.0 and parse_eval("{[%clk 0:01:00]}") is None


def test_the_eval_graph_is_valid_svg_with_a_point_per_eval() -> None:
    root = ElementTree.fromstring(eval_graph([(1, 0.3), (3, -1.0), (5, 20.0)], 6))
    line = root.find("{http://www.w3.org/2000/svg}polyline")
    assert line is not None and len(line.get("points", "").split()) == 3
    assert "id=" not in eval_graph([(1, 0.3)], 2)
    ElementTree.fromstring(eval_graph([], 0))


def test_history_reads_the_folder_and_the_state_file_and_serves_only_its_pgns(tmp_path: Path) -> None:
    (tmp_path / "AbCd1234.pgn").write_text(PGN)
    state = {"version": 1, "games": [{"id": "Zz999999", "action": "aborted", "result": "*",
                                      "termination": "Abandoned", "at": time.time()}]}
    (tmp_path / ".schess-bot-state.json").write_text(json.dumps(state))
    history = History(str(tmp_path), "SeirawanBot")
    games = history.games()
    assert [game.game_id for game in games] == ["Zz999999", "AbCd1234"]
    assert games[0].outcome == "aborted" and not games[0].has_pgn
    assert totals(games)["seirawan"] == {"win": 1, "draw": 0, "loss": 0, "aborted": 0, "unknown": 0, "games": 1}
    assert history.games() == games and history.version == 1, "read once while nothing changed"
    assert history.pgn_file("AbCd1234.pgn") == tmp_path / "AbCd1234.pgn"
    (tmp_path.parent / "secret.pgn").write_text("no")
    for name in ("../secret.pgn", ".schess-bot-state.json", "AbCd1234.pgn/../x.pgn", "nope.pgn"):
        assert history.pgn_file(name) is None


def test_error_lines_never_hold_the_token() -> None:
    errors = RecentErrors(("tok-123",))
    logger = logging.getLogger("bot.test.status")
    logger.addHandler(errors)
    try:
        logger.warning("a request with %s failed", "tok-123")
        logger.info("not kept")
    finally:
        logger.removeHandler(errors)
    assert [line["message"] for line in errors.recent()] == ["a request with [token] failed"]


def test_status_listen_is_host_and_port_and_off_by_default() -> None:
    assert settings_from_dict({}).status.address is None
    assert settings_from_dict({"status": {"listen": "0.0.0.0:8080"}}).status.address == ("0.0.0.0", 8080)
    assert settings_from_dict({"status": {"listen": "[::1]:81"}}).status.address == ("::1", 81)
    for bad in ("8080", "host:", "host:99999", ":80"):
        with pytest.raises(ConfigError, match="status.listen must be HOST:PORT"):
            settings_from_dict({"status": {"listen": bad}})


def test_the_health_check_reads_the_page(tmp_path: Path) -> None:
    answers = {"status": {"connection": {"connected": True, "last_line_s": 3.0, "note": ""},
                          "health": {"text": "ok"}}}

    def page(request: Request) -> Response:
        return Response(200, json.dumps(answers["status"]).encode(), "application/json")

    server = BoundedHTTPServer(("127.0.0.1", 0), page).start()
    url = f"http://127.0.0.1:{server.address[1]}"
    try:
        assert health.main([url, "60"]) == 0
        answers["status"]["connection"]["last_line_s"] = 120.0
        assert health.main([url, "60"]) == 1
        answers["status"]["connection"] = {"connected": False, "note": "HTTP 502"}
        assert health.main([url]) == 1
        answers["status"] = {"connection": {"connected": True, "last_line_s": 1.0},
                             "health": {"text": "unhealthy: the engine failed for good"}}
        assert health.main([url]) == 1
    finally:
        server.close()
    assert health.main([url]) == 1, "no page, no health"


def test_game_links_and_the_server_address_shown() -> None:
    assert game_url("https://www.pychess.org/", "AbC/d") == "https://www.pychess.org/AbC%2Fd"
    assert public_url("https://me:secret@example.org:8443/x/?q=1") == "https://example.org:8443/x"



def test_the_first_answer_draws_the_snapshot_with_names_escaped() -> None:
    now = time.time()
    status = {
        "version": "0.1.0", "now": now,
        "bot": {"server": "https://x.org", "account": "Bot", "engine": "e", "build": "b", "started_at": now - 120},
        "connection": {"connected": False, "since": now, "note": "HTTP 502"},
        "health": {"ok": True, "text": "ok"}, "slots": {"used": 1, "concurrency": 2, "free": 1},
        "queue": {"waiting": 0, "queued": []}, "errors": [{"at": now, "level": "ERROR", "message": "<b>bad</b>"}],
        "games": [{"id": "g1", "url": "https://x.org/g1", "phase": "our turn", "opponent": "<script>x</script>",
                   "variant": "seirawan", "color": "black", "rated": True, "opponent_rating": 1500,
                   "opponent_title": None, "svg": "<svg><desc>FEN</desc></svg>", "ply": 3, "turn": "black",
                   "clock": {"kind": "clock", "white_ms": 3_723_000, "black_ms": 59_999, "running": "black"},
                   "eval": {"text": "+0.30", "depth": 7}, "graph": "<svg class='evalgraph'></svg>"}],
        "finished_this_run": 4, "totals": {},
    }
    page = render_page(status, {"games": []})
    assert "<script>x</script>" not in page and "vs &lt;script&gt;x&lt;/script&gt; (1500)" in page
    assert '<div class="game" data-id="g1" data-ply="3"><div class="board"><svg><desc>FEN</desc></svg>' in page
    assert ('<div class="clock us running" data-side="black"><span>us (black)</span><span class="t">0:59</span>'
            in page)
    assert '<span class="t">1:02:03</span>' in page and "our eval, depth 7" in page
    assert '<span class="pill bad" id="conn">disconnected since' in page and "(HTTP 502)" in page
    assert "&lt;b&gt;bad&lt;/b&gt;" in page and "up 2 min" in page and "No finished game yet." in page
    assert "<!--" not in page.split("<script>")[0], "every part of the template filled"


def test_a_server_that_cannot_start_serving_says_so_instead_of_waiting() -> None:
    page = BoundedHTTPServer(("127.0.0.1", 0), hello)
    page.socket.close()  # as if the descriptor were lost between bind and start
    with pytest.raises(OSError):
        page.start()
    page.close()

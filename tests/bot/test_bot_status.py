"""The status page's parts without a bot: the hardened HTTP server, the finished games read back from PGNs,
the eval graph, the error lines, status.listen, the health check through the page, and the layers."""

from __future__ import annotations

import json
import logging
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
from bot.app.status.history import History, eval_graph, parse_eval, read_pgn, totals
from bot.app.status.http import BoundedHTTPServer, Request, Response
from bot.app.status.snapshot import RecentErrors
from bot.config import ConfigError, settings_from_dict
from bot.wire.links import game_url

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
    page = BoundedHTTPServer(("127.0.0.1", 0), hello, workers=2, queue_size=4, deadline_s=1.0,
                             max_request_bytes=1024).start()
    yield page
    page.close()


def raw(address: tuple[str, int], data: bytes, timeout: float = 5.0) -> bytes:
    with socket.create_connection(address, timeout=timeout) as connection:
        connection.sendall(data)
        answer = b""
        while chunk := connection.recv(4096):
            answer += chunk
        return answer


def fetch(address: tuple[str, int], path: str = "/") -> str:
    with urllib.request.urlopen(f"http://{address[0]}:{address[1]}{path}", timeout=5) as answer:  # noqa: S310
        return str(answer.read().decode())


def test_the_server_answers_get_and_head_only(server: BoundedHTTPServer) -> None:
    assert fetch(server.address, "/x") == "hello /x"
    head = raw(server.address, b"HEAD /x HTTP/1.1\r\nHost: a\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 200") and head.endswith(b"\r\n\r\n")
    assert raw(server.address, b"POST /x HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.0 405")
    assert raw(server.address, b"GET /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello").startswith(b"HTTP/1.0 413")
    assert raw(server.address, b"nonsense\r\n\r\n").startswith(b"HTTP/1.0 400")
    assert b"Content-Security-Policy" in raw(server.address, b"GET / HTTP/1.0\r\n\r\n")


def test_a_huge_request_is_refused_and_the_server_goes_on(server: BoundedHTTPServer) -> None:
    with socket.create_connection(server.address, timeout=5) as connection:
        try:
            connection.sendall(b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\n\r\n")
        except OSError:
            pass
        assert connection.recv(100).startswith(b"HTTP/1.0 431")
    assert fetch(server.address) == "hello /"


def test_a_slowloris_is_cut_off_at_the_deadline(server: BoundedHTTPServer) -> None:
    with socket.create_connection(server.address, timeout=10) as slow:
        started = time.monotonic()
        cut = False
        try:
            while time.monotonic() - started < 8:
                slow.send(b"G")
                time.sleep(0.1)
                if slow.recv(1, socket.MSG_DONTWAIT | socket.MSG_PEEK) == b"":
                    cut = True
                    break
        except BlockingIOError:
            pass
        except OSError:
            cut = True
        if not cut:
            slow.settimeout(5)
            cut = slow.recv(100) == b""
        assert cut and time.monotonic() - started < 8, "the connection was closed at its deadline"
    assert fetch(server.address) == "hello /"


def test_many_connections_cost_bounded_threads_and_are_served_again_after(server: BoundedHTTPServer) -> None:
    before = threading.active_count()
    idle = [socket.create_connection(server.address, timeout=5) for _ in range(40)]
    time.sleep(0.3)
    assert threading.active_count() == before, "no thread per connection"
    refused = server.refused
    assert refused > 0, "beyond the queue, connections are turned away at once"
    for connection in idle:
        connection.close()
    deadline = time.monotonic() + 10
    while True:
        try:
            assert fetch(server.address) == "hello /"
            break
        except (OSError, urllib.error.URLError):
            assert time.monotonic() < deadline
            time.sleep(0.2)


def test_a_handler_bug_is_a_500_and_not_the_end() -> None:
    def broken(request: Request) -> Response:
        if request.path == "/bad":
            raise RuntimeError("bug")
        return Response(200, b"fine")

    page = BoundedHTTPServer(("127.0.0.1", 0), broken, workers=1).start()
    try:
        assert raw(page.address, b"GET /bad HTTP/1.0\r\n\r\n").startswith(b"HTTP/1.0 500")
        assert fetch(page.address, "/") == "fine"
    finally:
        page.close()


def test_a_pgn_reads_back_with_our_evals_from_our_side() -> None:
    game = read_pgn(PGN, "seirawanbot", "AbCd1234")
    assert (game.result, game.outcome, game.opponent, game.variant, game.plies) == ("1-0", "win", "Alice",
                                                                                   "seirawan", 6)
    assert game.evals == ((1, 0.3), (3, 0.5), (5, 100.0))  # a mate: +100 pawns on the one scale
    as_black = read_pgn(PGN.replace('"SeirawanBot"', '"X"').replace('"Alice"', '"SeirawanBot"'), "SeirawanBot", "g")
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


"""The HTTP layer against a scripted local server: dialect quirks, 429 pauses, retries, streams."""

from __future__ import annotations

import html
import json
import logging
import time
from urllib.parse import parse_qs

import pytest

from bot.config import ServerSettings
from bot.wire.dialect import LICHESS, PYCHESS
from bot.wire.events import ChallengeEvent, GameEnd, GameFull, KeepAlive
from bot.wire.server import (
    CAPABILITIES_HEADER,
    USER_AGENT,
    Server,
    ServerError,
    StreamConnected,
    StreamFailed,
    StreamLost,
    TokenRejected,
    detect_dialect,
    endpoint_path,
    pychess_variant_names,
)
from engine import __version__
from tests.bot.conftest import (
    PYCHESS_ACCOUNT,
    PYCHESS_CHALLENGE,
    PYCHESS_GAME_END,
    PYCHESS_GAME_FULL,
    PYCHESS_PING,
)
from tests.bot.http_fixture import Reply, ScriptedServer
from tests.timing import PATIENCE_S, wait_until

TOKEN = "lip_TESTTOKEN123"


class FakeTime:
    """A monotonic clock that only moves when the code under test waits."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.waits: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def wait(self, seconds: float) -> bool:
        self.waits.append(seconds)
        self.now += seconds
        return False


def make_server(url: str, dialect: str = "pychess", fake: FakeTime | None = None,
                **settings: float) -> Server:
    kwargs = {}
    if fake is not None:
        kwargs = {"monotonic": fake.monotonic, "wait": fake.wait}
    return Server(ServerSettings(url=url, dialect=dialect, **settings), TOKEN,  # type: ignore[arg-type]
                  variants=("seirawan", "seirawan960", "chess"), **kwargs)


def drain(stream, count: int, timeout: float = PATIENCE_S) -> list[object]:
    """The stream's first ``count`` items; AssertionError (with those read) when they do not come in time."""
    items: list[object] = []

    def read_one() -> bool:
        item = stream.get(timeout=0.1)  # one poll; wait_until bounds them
        if item is not None:
            items.append(item)
        return len(items) >= count

    wait_until(read_one, lambda: f"{count} stream items (got {items})", timeout, poll_s=0)
    return items


def test_capabilities_list_960_names_as_pychess_checks_them():
    # the real server offers an S-chess960 challenge only to a bot that lists "seirawan960"
    assert pychess_variant_names(("seirawan", "seirawan960", "chess")) == ["seirawan", "seirawan960", "chess"]
    assert pychess_variant_names(("seirawan960", "chess960", "seirawan960")) == ["seirawan960", "chess960"]


def test_dialect_detection_by_host_and_account_shape():
    assert detect_dialect("https://lichess.org", {}) is LICHESS
    assert detect_dialect("https://www.pychess.org", {}) is PYCHESS
    assert detect_dialect("http://127.0.0.1:9", json.loads(PYCHESS_ACCOUNT)) is PYCHESS
    assert detect_dialect("http://127.0.0.1:9", {"id": "bot", "username": "Bot", "perfs": {}}) is LICHESS


def test_account_sends_the_bearer_token_and_settles_an_auto_dialect():
    with ScriptedServer() as http:
        http.route("GET", "/api/account", Reply(body=PYCHESS_ACCOUNT))
        server = make_server(http.url, dialect="auto")
        account = server.fetch_account()
        assert account.username == "SeirawanBot" and server.dialect is PYCHESS
        assert http.requests[0].headers["Authorization"] == f"Bearer {TOKEN}"


def test_every_call_sends_our_user_agent_on_one_session():
    with ScriptedServer() as http:
        http.route("GET", "/api/account", Reply(body=PYCHESS_ACCOUNT))
        http.route("POST", "/api/challenge/abc/accept", Reply())  # a berserk call
        http.route("POST", "/api/challenge/abc/decline", Reply())  # one of ours
        server = make_server(http.url)
        server.fetch_account()
        server.accept_challenge("abc")
        server.decline_challenge("abc", "generic")
        assert [request.headers["User-Agent"] for request in http.requests] == [USER_AGENT] * 3
        assert USER_AGENT == f"schess-bot/{__version__}"
        assert server.client.bots._r.session is server.session


def test_a_cookie_from_the_server_is_never_sent_back():
    """pychess sets its web-session cookie even on an HTML 404; sent back, it can make every API call fail."""
    with ScriptedServer() as http:
        http.route("GET", "/api/account", Reply(body=PYCHESS_ACCOUNT,
                                                headers={"Set-Cookie": "AIOHTTP_SESSION=abc; Path=/"}))
        http.route("POST", "/api/challenge/abc/accept", Reply(headers={"Set-Cookie": "other=1; Path=/"}))
        server = make_server(http.url)
        server.fetch_account()
        server.accept_challenge("abc")
        server.fetch_account()
        assert [request.headers.get("Cookie") for request in http.requests] == [None, None, None]
        assert len(server.session.cookies) == 0


def test_ids_are_quoted_so_they_cannot_add_a_path_segment():
    assert endpoint_path("chat", game_id="a/../b") == "/api/bot/game/a%2F..%2Fb/chat"
    assert endpoint_path("move", game_id="g1", move="e7e8q") == "/api/bot/game/g1/move/e7e8q"


def test_rejected_token_raises_token_rejected():
    with ScriptedServer() as http:
        http.route("GET", "/api/account", Reply(401, '{"error":"No such token"}'))
        with pytest.raises(TokenRejected):
            make_server(http.url).fetch_account()


def test_decline_and_chat_send_form_bodies_as_pychess_requires():
    with ScriptedServer() as http:
        http.route("POST", "/api/challenge/abc/decline", Reply())
        http.route("POST", "/api/bot/game/g1/chat", Reply())
        server = make_server(http.url)
        server.decline_challenge("abc", "tooFast")
        server.chat("g1", "Good game!")
        decline, chat = http.requests
        assert decline.headers["Content-Type"] == "application/x-www-form-urlencoded"
        assert parse_qs(decline.body.decode()) == {"reason": ["tooFast"]}
        assert parse_qs(chat.body.decode()) == {"room": ["player"], "text": ["Good game!"]}


def test_draw_offers_are_sent_to_lichess_but_never_to_pychess():
    with ScriptedServer() as http:
        http.route("POST", "/api/bot/game/g1/move/e2e4", Reply())
        http.route("POST", "/api/bot/game/g1/draw/yes", Reply())
        make_server(http.url, dialect="pychess").make_move("g1", "e2e4", offer_draw=True)
        assert http.requests[-1].query == {}
        assert make_server(http.url, dialect="pychess").answer_draw("g1", True) is False
        lichess = make_server(http.url, dialect="lichess")
        lichess.make_move("g1", "e2e4", offer_draw=True)
        assert http.requests[-1].query == {"offeringDraw": ["true"]}
        assert lichess.answer_draw("g1", True) is True
        assert http.requests[-1].path == "/api/bot/game/g1/draw/yes"


def test_429_pauses_the_endpoint_for_retry_after_then_retries():
    fake = FakeTime()
    with ScriptedServer() as http:
        http.route("POST", "/api/bot/game/g1/move/e2e4", Reply(429, '{"error":"slow down"}',
                                                                headers={"Retry-After": "90"}), Reply())
        server = make_server(http.url, fake=fake)
        server.make_move("g1", "e2e4")
        assert len(http.hits("POST", "/api/bot/game/g1/move/e2e4")) == 2
        assert fake.waits == [90.0]


def game_page(*plies: str, status: int = -1) -> str:
    """A pychess game page with these plies (status -1: the game runs)."""
    steps = [{"fen": "", "san": None}] + [{"fen": "", "move": uci, "san": uci} for uci in plies]
    board = html.escape(json.dumps({"status": status, "result": "*", "steps": steps}), quote=True)
    return f'<body id="pychess-variants" data-gameid="g1" data-status="{status}" data-board="{board}"></body>'


MOVE_PATH = "/api/bot/game/g1/move/d4e5"


@pytest.mark.parametrize(("page", "sends", "why"), [
    (game_page("d2d4", "e7e5", "d4e5", "b8c6"), 1, "the server has it (the game page is at ply 4)"),
    (game_page("d2d4", "e7e5", "d4e5", status=1), 1, "no longer due (the game page has the game over)"),
    (game_page("d2d4", "e7e5"), 2, "the server does not have it (the game page is still at ply 2)"),
])
def test_a_move_whose_answer_was_lost_is_sent_again_only_when_the_server_does_not_have_it(page, sends, why, caplog):
    """pychess takes an illegal move as a lost game: a move that landed, sent again after the opponent's reply,
    would lose. After a 502 (the server may have carried the move out) the game page says whether it did."""
    caplog.set_level(logging.INFO, logger="bot.wire.server")
    fake = FakeTime()
    with ScriptedServer() as http:
        http.route("POST", MOVE_PATH, Reply(502, "Bad Gateway"), Reply())
        http.route("GET", "/g1", Reply(body=page))
        make_server(http.url, fake=fake).make_move("g1", "d4e5", san="dxe5", plies=2)
        assert [r.path for r in http.requests] == [MOVE_PATH, "/g1", MOVE_PATH][:sends + 1]
    assert any(why in record.getMessage() for record in caplog.records), caplog.text


def test_a_move_is_not_sent_again_while_the_servers_record_cannot_be_read():
    fake = FakeTime()
    with ScriptedServer() as http:
        http.route("POST", MOVE_PATH, Reply(503), Reply(503), Reply())
        http.route("GET", "/g1", Reply(502), Reply(502), Reply(body=game_page("d2d4", "e7e5")))
        make_server(http.url, fake=fake).make_move("g1", "d4e5", plies=2)
        # the page fails twice (one check): that attempt is not sent; every later attempt asks first
        assert [r.path for r in http.requests] == [MOVE_PATH, "/g1", "/g1", "/g1", MOVE_PATH, "/g1", MOVE_PATH]


def test_a_move_that_failed_in_an_earlier_call_is_checked_before_it_is_sent_again():
    fake = FakeTime()
    with ScriptedServer() as http:
        http.route("POST", MOVE_PATH, Reply())
        http.route("GET", "/g1", Reply(body=game_page("d2d4", "e7e5", "d4e5")))
        make_server(http.url, fake=fake).make_move("g1", "d4e5", plies=2, unsure_since=fake.now - 1)
        assert [r.path for r in http.requests] == ["/g1"]


def test_a_move_that_failed_before_is_not_sent_without_a_clock_to_send_it_by_while_the_record_is_unreadable():
    fake = FakeTime()
    with ScriptedServer() as http:
        http.route("POST", MOVE_PATH, Reply())
        http.route("GET", "/g1", Reply(502))
        with pytest.raises(ServerError, match="not sent") as raised:
            make_server(http.url, fake=fake).make_move("g1", "d4e5", plies=2, unsure_since=fake.now - 1)
        assert raised.value.status is None  # the mover tries again in 1 s
        assert {r.path for r in http.requests} == {"/g1"}


def test_pychess_waits_for_news_of_a_move_of_unknown_fate_until_its_clock_says_send_it(caplog):
    """The game page is refused and the game stream has nothing since the failed attempt: the move is held
    back (a move that landed and went out again could lose the game) until ``send_by``, the share of its
    clock the game allows, and then sent all the same; the log says so once when it starts waiting and once
    when it sends."""
    caplog.set_level(logging.INFO, logger="bot.wire.server")
    fake = FakeTime()
    with ScriptedServer() as http:
        http.route("POST", MOVE_PATH, Reply(503), Reply())
        http.route("GET", "/g1", Reply(404, '{"error":"Not Found"}'))
        server = make_server(http.url, fake=fake)
        server.stream_states.saw("g1", 2, fake.now)  # our turn, before the move went out
        server.make_move("g1", "d4e5", san="dxe5", plies=2, send_by=fake.now + 3)
        moves = [index for index, r in enumerate(http.requests) if r.path == MOVE_PATH]
        assert len(moves) == 2 and fake.now >= 1003, "sent again once the clock's share was waited out"
        assert {r.path for r in http.requests[moves[0] + 1:moves[1]]} == {"/g1"}, "the page asked meanwhile"
    lines = [r.getMessage() for r in caplog.records if "unknown whether the last attempt took effect" in r.getMessage()]
    assert len(lines) == 2, lines
    assert "waiting up to" in lines[0] and "game page: HTTP 404" in lines[0]
    assert lines[1].endswith("waiting longer would lose the game on time); sending it again"), lines[1]


@pytest.mark.parametrize("dialect", ["pychess", "lichess"])
def test_a_game_stream_past_the_moves_position_says_it_landed_without_asking_the_record(dialect, caplog):
    caplog.set_level(logging.INFO, logger="bot.wire.server")
    fake = FakeTime()
    with ScriptedServer() as http:
        http.route("POST", MOVE_PATH, Reply(502, "Bad Gateway"), Reply())
        server = make_server(http.url, dialect=dialect, fake=fake)
        server.stream_states.saw("g1", 3, fake.now)  # the state with our move came before the 502
        server.make_move("g1", "d4e5", san="dxe5", plies=2)
        assert [r.path for r in http.requests] == [MOVE_PATH]
    assert "the server has it (the game stream is at ply 3); not sending it again" in caplog.text


def test_lichess_sends_a_move_of_unknown_fate_again_without_reading_its_delayed_export(caplog):
    """Lichess's export of an ongoing game lags the game by 3 to 60 s, and Lichess refuses a move out of turn
    with HTTP 400 and no harm: with no news on the game stream the move simply goes out again."""
    caplog.set_level(logging.INFO, logger="bot.wire.server")
    fake = FakeTime()
    with ScriptedServer() as http:
        http.route("POST", MOVE_PATH, Reply(500, "{}"), Reply())
        http.route("GET", "/game/export/g1", Reply(body=json.dumps({"id": "g1", "status": "started", "moves": ""})))
        server = make_server(http.url, dialect="lichess", fake=fake)
        server.make_move("g1", "d4e5", plies=2)
        assert [r.path for r in http.requests] == [MOVE_PATH, MOVE_PATH]
    assert "the server refuses a move out of turn without harm); sending it again" in caplog.text


def test_lichess_takes_a_400_to_a_move_sent_again_as_the_first_attempt_having_landed(caplog):
    caplog.set_level(logging.INFO, logger="bot.wire.server")
    with ScriptedServer() as http:
        http.route("POST", MOVE_PATH, Reply(502, "Bad Gateway"),
                   Reply(400, '{"error":"Not your turn, or game already over"}'))
        make_server(http.url, dialect="lichess", fake=FakeTime()).make_move("g1", "d4e5", plies=2)
        assert [r.path for r in http.requests] == [MOVE_PATH, MOVE_PATH]
    assert "HTTP 400 to the attempt sent again: the server refuses a move out of turn" in caplog.text


def test_lichess_refuses_a_move_with_400_when_nothing_said_it_might_have_landed():
    with ScriptedServer() as http:
        http.route("POST", MOVE_PATH, Reply(400, '{"error":"Piece cannot move"}'))
        with pytest.raises(ServerError) as raised:
            make_server(http.url, dialect="lichess", fake=FakeTime()).make_move("g1", "d4e5", plies=2)
        assert raised.value.status == 400


def test_429_without_retry_after_waits_a_full_minute_and_only_that_endpoint():
    fake = FakeTime()
    with ScriptedServer() as http:
        http.route("POST", "/api/challenge/c1/accept", Reply(429, "{}"), Reply())
        http.route("POST", "/api/bot/game/g1/chat", Reply())
        server = make_server(http.url, fake=fake)
        server.accept_challenge("c1")
        assert fake.waits == [60.0]
        server.chat("g1", "hello")
        assert fake.waits == [60.0]


def test_server_errors_are_retried_with_backoff_and_then_give_up():
    fake = FakeTime()
    with ScriptedServer() as http:
        http.route("POST", "/api/bot/game/g1/resign", Reply(502, "bad gateway"), Reply())
        server = make_server(http.url, fake=fake)
        server.resign_game("g1")
        assert len(http.hits("POST", "/api/bot/game/g1/resign")) == 2 and fake.waits == [1.0]
        http.route("POST", "/api/bot/game/g2/abort", Reply(503, "down"))
        with pytest.raises(ServerError, match="gave up"):
            server.abort_game("g2")


def test_client_errors_are_not_retried():
    with ScriptedServer() as http:
        http.route("POST", "/api/challenge/c1/accept", Reply(404, '{"error":"Not found"}'))
        with pytest.raises(ServerError) as error:
            make_server(http.url).accept_challenge("c1")
        assert error.value.status == 404 and len(http.requests) == 1


def test_event_stream_sends_capabilities_and_touches_the_heartbeat_per_line():
    beats: list[int] = []
    with ScriptedServer() as http:
        http.route("GET", "/api/stream/event", Reply(lines=[PYCHESS_CHALLENGE, PYCHESS_PING], stall_s=0.3))
        server = make_server(http.url)
        stream = server.open_event_stream(on_line=lambda: beats.append(1))
        items = drain(stream, 3)
        stream.close()
        server.close()
        assert isinstance(items[0], StreamConnected)
        assert isinstance(items[1], ChallengeEvent) and isinstance(items[2], KeepAlive)
        header = json.loads(http.requests[0].headers[CAPABILITIES_HEADER])
        assert header == {"version": 1, "variants": ["seirawan", "seirawan960", "chess"]}
        assert len(beats) == 2


def test_a_silent_stream_is_dropped_by_the_watchdog_and_reconnected():
    with ScriptedServer() as http:
        http.route("GET", "/api/bot/game/stream/g1",
                   Reply(lines=[PYCHESS_GAME_FULL], stall_s=3.0),
                   Reply(lines=[PYCHESS_GAME_FULL, PYCHESS_GAME_END]))
        server = make_server(http.url, stream_timeout_s=0.4)  # the watchdog the test lets expire
        stream = server.open_game_stream("g1")
        started = time.monotonic()
        items = drain(stream, 6, timeout=PATIENCE_S)
        server.close()
        kinds = [type(item) for item in items]
        assert kinds[:3] == [StreamConnected, GameFull, StreamLost]
        assert "silent" in items[2].reason  # type: ignore[union-attr]
        assert kinds[3:] == [StreamConnected, GameFull, GameEnd]
        assert time.monotonic() - started < PATIENCE_S
        assert stream.closed  # the game ended: no further reconnects


def test_a_refused_game_stream_reports_failure_without_retrying():
    with ScriptedServer() as http:
        http.route("GET", "/api/bot/game/stream/gone", Reply(404, '{"error":"Not found"}'))
        server = make_server(http.url)
        stream = server.open_game_stream("gone")
        [item] = drain(stream, 1)
        assert isinstance(item, StreamFailed) and item.status == 404


def test_the_socket_under_a_streamed_response_is_found_through_public_attributes():
    """Closing a stream shuts its socket down first (a blocked reader wakes at once); if urllib3 stopped
    exposing ``HTTPResponse.connection`` the bot's shutdowns would stall by up to stream_timeout_s."""
    import socket

    import requests

    from bot.loopback import LoopbackServer
    from bot.wire.streams import _socket_of

    with LoopbackServer(dialect="lichess", token="t") as loopback:
        response = requests.get(loopback.url + "/api/stream/event", headers={"Authorization": "Bearer t"},
                                stream=True, timeout=PATIENCE_S)
        try:
            assert isinstance(_socket_of(response), socket.socket)
        finally:
            response.close()

"""Fault 2: HTTP 429 on accept, move and chat; 500/502/503 on every endpoint the bot calls; connection refused
at start-up and mid-game -> the bot waits as the server asks (Retry-After), retries, and never has more than one
request to an endpoint in flight while it is limited. Both dialects."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import requests

from bot.config import PRODUCTION_TIMING, ServerSettings
from bot.loopback import LoopbackServer, Scripted
from bot.wire.errors import ServerError
from bot.wire.server import Server
from tests.reliability.conftest import (
    BotThread,
    PauseLog,
    ResignAfter,
    WorkerWatch,
    assert_clean_game,
    bot_config,
)
from tests.timing import GAME_S, PATIENCE_S, STARTUP_S

RETRY_AFTER_S = 2


def assert_waited_out(server: LoopbackServer, pauses: PauseLog, endpoint: str) -> None:
    """Each 429 to ``endpoint`` paused it for Retry-After seconds; the bot let no request through during the
    pause and retried after it, with exactly one request (the probe) in flight at the server."""
    limited = [r for r in server.requests_to(endpoint) if r.status == 429]
    assert limited, f"no 429 was injected on {endpoint}"
    started = [seconds for name, _, seconds in pauses.pauses if name == endpoint]
    assert len(started) == len(limited) and all(seconds >= RETRY_AFTER_S for seconds in started), started
    during = pauses.admitted_during_pauses(endpoint)
    assert not during, f"{endpoint}: {len(during)} request(s) let through during the Retry-After pause"
    assert pauses.admitted_after_pauses(endpoint), f"{endpoint}: never retried after the pause"
    answered = server.requests_to(endpoint)
    probe = answered[answered.index(limited[-1]) + 1:]
    assert probe and probe[0].in_flight == 1, f"{endpoint}: the probe after a pause was not alone"


def test_429_on_accept_move_and_chat_is_waited_out_with_one_request_in_flight(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread], pauses: PauseLog
) -> None:
    # two games at once, so two game threads compete for the move endpoint while it is paused
    ids = [server.challenge(challenger=name, color="white", clock=(120, 1),
                            opponent=Scripted(["e2e4", "g1f3", "d2d4", "b1c3"], then="resign"))
           for name in ("Alice", "Bob")]
    server.faults.fail("accept", 429, times=1, retry_after_s=RETRY_AFTER_S)
    server.faults.fail("chat", 429, times=1, retry_after_s=RETRY_AFTER_S)
    config = bot_config(server, tmp_path, challenge={"concurrency": 2},
                        greeting={"hello": "Hello {opponent}", "goodbye": "Thanks"})
    bots.append(BotThread(config, max_games=2).start())
    # generous waits: on a busy machine the two games and their engines share what CPU is left
    server.wait_for_plies(ids[0], 2, GAME_S)
    server.wait_for_plies(ids[1], 2, GAME_S)
    server.faults.fail("move", 429, times=1, retry_after_s=RETRY_AFTER_S)
    games = [server.wait_for_game_end(game_id, 180) for game_id in ids]  # above GAME_S: two games at once
    for game in games:
        assert_clean_game(game)
        assert game.status == "resign", "no one lost on time while the move endpoint was paused"
    for endpoint in ("accept", "move"):
        assert_waited_out(server, pauses, endpoint)
    # chat replies are skipped rather than waited for (the game must not stop playing for a greeting)
    assert [r.status for r in server.requests_to("chat")].count(429) == 1
    assert [name for name, _, _ in pauses.pauses].count("chat") == 1
    # (Outside a pause the two games may chat at the same moment: only the pause holds chat lines back.)
    assert not pauses.admitted_during_pauses("chat"), "a chat line was sent while chat was paused"
    assert bots[0].join(GAME_S) == 0


# per endpoint, the failures injected in a row: each retried call sees them, then the real answer
FIVE_XX: dict[str, list[int]] = {
    "account": [500, 502, 503],
    "stream_event": [500, 502, 503],
    "accept": [500, 502, 503],
    "decline": [503, 502, 500],
    "stream_game": [500, 502, 503],
    "move": [502, 503, 500],
    "chat": [500, 502, 503],  # one per call (hello, !help reply, goodbye; chat tries twice): injected later
    "resign": [502, 503],
}


def test_500_502_503_on_every_endpoint_are_retried_until_the_game_is_played(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread], workers: WorkerWatch
) -> None:
    faults: list[Any] = []
    for endpoint, statuses in FIVE_XX.items():
        for status in statuses[:1] if endpoint == "chat" else statuses:
            faults.append(server.faults.fail(endpoint, status, times=1))
    game_id = server.challenge(color="white", clock=(120, 1), opponent=Scripted(["e2e4", "g1f3", "wait"]))
    config = bot_config(server, tmp_path, greeting={"hello": "hi", "goodbye": "bye"})
    bots.append(BotThread(config).start())
    server.wait_for_plies(game_id, 4, GAME_S)
    faults.append(server.faults.fail("chat", 502, times=1))
    server.send_chat(game_id, "!help")
    server.wait_for(lambda: [c for c in server.game(game_id).chat if c.by == "bot" and "!eval" in c.text] or None,
                    PATIENCE_S, "the !help reply")
    faults.append(server.faults.fail("chat", 503, times=1))  # for the goodbye
    declined = server.challenge(challenger="Late", clock=(60, 0))  # busy: declined 'later'
    assert server.wait_for_answer(declined, STARTUP_S).reason == "later"
    assert bots[0].stop(GAME_S) == 0  # abort: too late for it (4 plies), so the bot resigns without trying
    game = server.game(game_id)
    assert game.over and game.status == "resign" and game.winner is not game.bot_color
    assert not server.requests_to("abort"), "a game with moves is never aborted (pychess would play on)"
    for fault in faults:
        assert fault.hits == 1, f"{fault.endpoint} {fault.status} was never hit"
    for endpoint, statuses in FIVE_XX.items():
        answered = [r.status for r in server.requests_to(endpoint)]
        position = 0
        for status in statuses:  # the injected errors came in order, each followed by a retry
            position = answered.index(status, position) + 1
        final = 400 if endpoint == "abort" else 200  # the server's real answer after the injected errors
        assert final in answered[position:], f"{endpoint}: no retry got the real answer: {answered}"
    assert (tmp_path / f"{game_id}.pgn").exists()


def test_connection_refused_at_start_up_and_mid_game(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread], workers: WorkerWatch
) -> None:
    server.faults.refuse_connections(3)
    started = time.monotonic()
    bots.append(BotThread(bot_config(server, tmp_path), max_games=1).start())
    server.wait_for(lambda: server.event_stream_connections or None, STARTUP_S, "the bot to connect")
    assert time.monotonic() - started >= 2.5, "the bot got through while the server refused connections"
    game_id = server.challenge(color="white", clock=(120, 1), opponent=Scripted(["e2e4", "g1f3", "wait"]))
    server.wait_for_plies(game_id, 4, GAME_S)
    connections = server.game(game_id).stream_connections
    server.faults.refuse_connections(3)  # as a restarting server: streams cut, new connections refused
    server.set_opponent(game_id, ResignAfter(8, seed=3))
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert game.status == "resign" and game.stream_connections > connections
    assert bots[0].join(GAME_S) == 0


def test_thirty_seconds_of_refused_connections_at_start_up_are_waited_out_with_default_settings() -> None:
    """Injected time: the production settings (back-off 1 s doubling to 15 s, 300 s window) ride out a 30 s
    outage; a token the server rejects still fails at once."""
    now = [0.0]

    class Refusing(requests.Session):
        def request(self, method: Any, url: Any, *args: Any, **kwargs: Any) -> requests.Response:
            if now[0] < 30.0:
                raise requests.ConnectionError("connection refused")
            response = requests.Response()
            response.status_code = 200
            response._content = b'{"id": "bot", "username": "Bot", "title": "BOT"}'
            return response

    def wait(seconds: float) -> bool:
        now[0] += seconds
        return False

    server = Server(ServerSettings(url="http://127.0.0.1:9", dialect="pychess"), "t", session=Refusing(),
                    monotonic=lambda: now[0], wait=wait)  # production's waits: no timing given
    account = server.fetch_account(retry_for_s=PRODUCTION_TIMING.startup_retry_s)
    assert account.username == "Bot" and 30.0 <= now[0] <= 50.0
    now[0] = 0.0
    with pytest.raises(ServerError):
        server.fetch_account(retry_for_s=10.0)  # shorter than the outage: gives up, exit code 1
    assert 10.0 <= now[0] < 30.0

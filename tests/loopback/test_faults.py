"""Fault injection: HTTP errors per endpoint, dropped and silent streams, refused connections, delay."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
import requests

from bot.loopback import LoopbackServer, Manual
from bot.loopback.model import RequestRecord
from tests.loopback.conftest import Client, LineReader, start_game
from tests.timing import PATIENCE_S, wait_until


def test_http_errors_hit_only_the_chosen_endpoint_and_run_out(pychess: LoopbackServer, pychess_client: Client) -> None:
    game_id, _ = start_game(pychess, pychess_client, color="black", opponent=Manual())
    pychess.faults.fail("move", 429, times=1, retry_after_s=7)
    pychess.faults.fail("chat", 503, times=2)
    limited = pychess_client.move(game_id, "e2e4")
    assert limited.status_code == 429 and limited.headers["Retry-After"] == "7"
    assert pychess.game(game_id).moves == [], "a refused move is not played"
    assert pychess_client.get("/api/account").status_code == 200
    assert pychess_client.move(game_id, "e2e4").status_code == 200
    chat = [
        pychess_client.post(f"/api/bot/game/{game_id}/chat", data={"room": "player", "text": "x"}).status_code
        for _ in range(3)
    ]
    assert chat == [503, 503, 200]
    assert [r.status for r in pychess.requests_to("move", game_id)] == [429, 200]


def test_http_errors_for_one_game_only(pychess: LoopbackServer, pychess_client: Client) -> None:
    first, _ = start_game(pychess, pychess_client, color="black", opponent=Manual())
    second, _ = start_game(pychess, pychess_client, color="black", opponent=Manual())
    pychess.faults.fail("move", 502, times=None, target=first)
    assert pychess_client.move(first, "e2e4").status_code == 502
    assert pychess_client.move(second, "e2e4").status_code == 200
    pychess.faults.clear()
    assert pychess_client.move(first, "e2e4").status_code == 200


def test_unknown_endpoint_names_are_rejected(pychess: LoopbackServer) -> None:
    with pytest.raises(ValueError, match="unknown endpoint"):
        pychess.faults.fail("moves", 429)


def test_dropped_stream_breaks_for_the_client_and_can_reconnect(
    pychess: LoopbackServer, pychess_client: Client
) -> None:
    game_id, game = start_game(pychess, pychess_client, opponent=Manual())
    assert pychess.faults.drop_streams("game", game_id) == 1
    assert game.ended.wait(PATIENCE_S)
    assert game.error is not None, "an abrupt drop is an error for the client, not a clean end"
    again = pychess_client.game(game_id)
    assert again.next_json()["type"] == "gameFull"
    assert pychess.game(game_id).stream_connections == 2


def test_clean_close_ends_the_response(lichess: LoopbackServer, lichess_client: Client) -> None:
    events = lichess_client.events()
    lichess.wait_for(lambda: lichess.open_streams("event"), PATIENCE_S, "the event stream")
    assert lichess.faults.drop_streams("event", clean=True) == 1
    assert events.ended.wait(PATIENCE_S) and events.error is None


def keepalives(reader: LineReader, count: int) -> None:
    """Read ``reader`` until it has brought ``count`` keep-alives (other lines are skipped)."""
    while count:
        if reader.next_line(skip_keepalives=False) in ("", '{"type":"ping"}'):
            count -= 1


def test_silent_stream_sends_nothing_and_a_new_stream_works(pychess: LoopbackServer, pychess_client: Client) -> None:
    game_id, game = start_game(pychess, pychess_client, opponent=Manual())
    game.next_line(skip_keepalives=False)
    assert pychess.faults.silence_streams("game", game_id) == 1
    # the event stream, opened after the silence, times the wait: the server sends a keep-alive on a stream
    # after keepalive_s (0.3 s) without a line, so while it sends three the game stream, had it kept talking,
    # would have sent two. A line the game stream was writing as it went silent has arrived by the first one.
    clock = pychess_client.events()
    keepalives(clock, 1)
    while not game.lines.empty():
        game.lines.get()
    keepalives(clock, 3)
    assert game.lines.empty(), "no keep-alive from a silent stream"
    assert not game.ended.is_set()
    again = pychess_client.game(game_id)
    assert again.next_json()["type"] == "gameFull"


#: how long the server refuses connections: the test's next request must come within it, which holds on a
#: busy machine (it comes a few milliseconds later on an idle one)
REFUSAL_S = 2.0


def wait_until_answering(client: Client) -> requests.Response:
    """The first answer of the server once it listens again (a refusal ends by itself)."""
    def answer() -> list[requests.Response]:  # in a list: a response is false when its status is an error
        try:
            return [client.get("/api/account")]
        except requests.ConnectionError:
            return []

    return wait_until(answer, "the server to listen again", REFUSAL_S + PATIENCE_S)[0]


def test_refused_connections_then_back_on_the_same_port(lichess: LoopbackServer, lichess_client: Client) -> None:
    port = lichess.port
    events = lichess_client.events()
    lichess.wait_for(lambda: lichess.open_streams("event"), PATIENCE_S, "the event stream")
    lichess.faults.refuse_connections(REFUSAL_S)
    with pytest.raises(requests.ConnectionError):
        lichess_client.get("/api/account")
    assert events.ended.wait(PATIENCE_S)
    assert wait_until_answering(lichess_client).status_code == 200  # then the same port answers again
    assert lichess.port == port


def test_network_delay_applies_to_every_request(lichess: LoopbackServer, lichess_client: Client) -> None:
    lichess.faults.delay_s = 0.3
    started = time.monotonic()
    lichess_client.get("/api/account")
    assert time.monotonic() - started >= 0.3


def test_challenge_flood(lichess: LoopbackServer, lichess_client: Client) -> None:
    events = lichess_client.events()
    ids = lichess.flood_challenges(50, clock=(60, 0))
    seen = [events.next_json()["challenge"]["id"] for _ in ids]
    assert seen == ids and len(set(ids)) == 50


def test_raw_lines_can_be_injected_into_streams(pychess: LoopbackServer, pychess_client: Client) -> None:
    game_id, game = start_game(pychess, pychess_client, opponent=Manual())
    events = pychess_client.events()
    assert events.next_json()["type"] == "gameStart"
    pychess.inject_event_line('{"type": "surprise"')
    pychess.inject_game_line(game_id, '{"type": "gameState", "moves": "e2e5"}')
    assert events.next_line() == '{"type": "surprise"'
    assert game.next_line() == '{"type": "gameState", "moves": "e2e5"}'


def test_requests_in_flight_are_counted_per_endpoint(lichess: LoopbackServer, lichess_client: Client) -> None:
    import threading

    lichess.faults.delay_s = 0.3
    threads = [threading.Thread(target=lichess_client.get, args=("/api/account",)) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    records = lichess.requests_to("account")
    assert sorted(r.in_flight for r in records) == [1, 2, 3]
    assert all(r.at - r.started_at >= 0.3 for r in records)


def test_server_restart_ends_streams_and_pychess_then_reports_initial_fen_none(
    pychess: LoopbackServer, pychess_client: Client
) -> None:
    game_id, game = start_game(pychess, pychess_client, color="black", opponent=Manual())
    events = pychess_client.events()
    assert events.next_json()["type"] == "gameStart"
    pychess.faults.restart_server(down_s=REFUSAL_S)
    assert events.next_json() == {"type": "terminated"}
    assert events.ended.wait(PATIENCE_S) and game.ended.wait(PATIENCE_S)
    with pytest.raises(requests.ConnectionError):
        pychess_client.get("/api/account")
    wait_until_answering(pychess_client)
    full = pychess_client.game(game_id).next_json()
    assert full["type"] == "gameFull" and full["initialFen"] == "None"
    assert pychess_client.move(game_id, "e2e4").status_code == 200, "the game survived the restart"


def _events_after_restart(pychess: LoopbackServer, client: Client) -> list[dict[str, Any]]:
    """The lines a new event stream starts with after a restart (until its first ping)."""
    wait_until_answering(client)
    events = client.events()
    lines = []
    while (line := json.loads(events.next_line(skip_keepalives=False)))["type"] != "ping":
        lines.append(line)
    return lines


@pytest.mark.parametrize(("our_color", "opponent_title", "announced"), [
    ("black", "BOT", False), ("white", "BOT", True), ("black", None, True)])
def test_pychess_restore_announces_a_bot_vs_bot_game_to_white_only(
    pychess: LoopbackServer, pychess_client: Client, our_color: str, opponent_title: str | None, announced: bool
) -> None:
    """pychess's restore: ``bot_player = game.wplayer if game.wplayer.bot else game.bplayer``."""
    game_id, _ = start_game(pychess, pychess_client, color="white" if our_color == "black" else "black",
                            title=opponent_title, opponent=Manual())
    pychess.faults.restart_server(down_s=REFUSAL_S, terminated=False, clean=False)
    starts = [line["game"]["id"] for line in _events_after_restart(pychess, pychess_client)
              if line["type"] == "gameStart"]
    assert (game_id in starts) is announced
    assert not pychess.game(game_id).over, "the game itself is restored either way"


def test_pychess_restart_forgets_an_opponent_bots_resignation_and_it_then_loses_on_time(
    pychess: LoopbackServer, pychess_client: Client
) -> None:
    game_id, _ = start_game(pychess, pychess_client, color="white", title="BOT", opponent=Manual(),
                            clock=(60, 0))
    pychess.play_opponent_move(game_id, "e2e4")
    assert pychess_client.move(game_id, "e7e5").status_code == 200
    pychess.opponent_resign(game_id, announce=False)
    assert (pychess.game(game_id).status, pychess.game(game_id).result()) == ("resign", "0-1")
    assert pychess.faults.restart_server(down_s=REFUSAL_S, terminated=False, clean=False) == [game_id]
    game = pychess.game(game_id)
    assert not game.over, "a BOT's resignation lived in memory only"
    pychess.set_clock(game_id, True, 200)  # White, who resigned and left, is to move
    game = pychess.wait_for_game_end(game_id, PATIENCE_S)
    assert (game.status, game.result(), game.moves) == ("outoftime", "0-1", ["e2e4", "e7e5"])


def test_a_persons_resignation_survives_a_pychess_restart(pychess: LoopbackServer, pychess_client: Client) -> None:
    game_id, _ = start_game(pychess, pychess_client, color="white", opponent=Manual())
    pychess.opponent_resign(game_id)
    assert pychess.faults.restart_server(down_s=REFUSAL_S, terminated=False, clean=False) == []
    assert pychess.game(game_id).status == "resign"


@pytest.mark.parametrize("rated", [False, True])
def test_pychess_restart_puts_a_casual_games_clocks_back_to_the_initial_time(
    pychess: LoopbackServer, pychess_client: Client, rated: bool
) -> None:
    """pychess-variants 37b7a729 on loopback (2026-12-03): a casual game keeps no clock history, so after a
    restart both clocks start again from the initial time (3+2: 188.3 s and 183.7 s before, 180000 and 180000
    in the restored ``gameFull``); a rated game keeps what its clocks had."""
    game_id, _ = start_game(pychess, pychess_client, color="white", title="BOT", opponent=Manual(),
                            clock=(60, 2), rated=rated)
    pychess.play_opponent_move(game_id, "e2e4")
    assert pychess_client.move(game_id, "e7e5").status_code == 200
    pychess.set_clock(game_id, True, 20_000)
    pychess.set_clock(game_id, False, 30_000)
    pychess.faults.restart_server(down_s=REFUSAL_S, terminated=False, clean=False)
    wait_until_answering(pychess_client)
    state = pychess_client.game(game_id).next_json()["state"]
    if rated:
        assert state["wtime"] <= 20_000 and 29_000 <= state["btime"] <= 30_000, state
    else:
        # White's clock (to move) runs again from the restart on; Black's waits at the full minute
        assert 60_000 - (REFUSAL_S + PATIENCE_S) * 1000 <= state["wtime"] <= 60_000 == state["btime"], state


def test_a_games_end_is_seen_once_the_request_that_ended_it_is_recorded(
    pychess: LoopbackServer, pychess_client: Client
) -> None:
    """The server records a request after answering it: a wait for the game's end also waits for the
    requests in flight, so a test that reads ``requests_to`` then finds the one that ended the game."""
    game_id, _ = start_game(pychess, pychess_client, color="black", opponent=Manual())
    pychess.request_started("abort")  # the bot's abort is being answered...
    pychess.abort_game(game_id)  # ...and answering it ended the game
    with pytest.raises(TimeoutError):  # nothing changes until the record: no wall time is asserted
        pychess.wait_for_game_end(game_id, 0.2)
    now = time.time()
    pychess.record(RequestRecord(at=now, method="POST", path=f"/api/bot/game/{game_id}/abort", endpoint="abort",
                                 target=game_id, form={}, json_body=None, status=200, started_at=now),
                   finished="abort")
    assert pychess.wait_for_game_end(game_id, PATIENCE_S).status == "aborted"
    assert [r.status for r in pychess.requests_to("abort", game_id)] == [200]

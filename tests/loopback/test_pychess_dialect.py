"""The pychess dialect of the loopback server, byte for byte where the recorded server lines allow."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bot.loopback import LoopbackServer, Manual, Scripted
from bot.wire.gamepage import parse_game_page
from tests.loopback.conftest import Client, start_game
from tests.timing import PATIENCE_S

RECORDING = Path(__file__).resolve().parents[1] / "data" / "pychess-seirawan-game.txt"  # copy of shared/data


def recorded(prefix: str, contains: str) -> str:
    for line in RECORDING.read_text().splitlines():
        if line.startswith(prefix + " ") and contains in line:
            return line.split(" ", 1)[1]
    raise AssertionError(f"no {prefix} line with {contains!r} in the recording")


def test_event_stream_without_capabilities_header_is_refused(pychess_client: Client) -> None:
    response = pychess_client.get("/api/stream/event")
    assert response.status_code == 400
    oversized = json.dumps({"version": 1, "variants": ["seirawan"] * 1000})
    assert pychess_client.get("/api/stream/event", headers={"X-PyChess-Bot-Capabilities": oversized}).status_code == 400
    assert pychess_client.get("/api/stream/event", headers={"X-PyChess-Bot-Capabilities": "{nope"}).status_code == 400


def test_wrong_token_is_403_as_on_the_real_server(pychess: LoopbackServer) -> None:
    answer = Client(pychess, token="wrong").get("/api/account")
    assert (answer.status_code, answer.text) == (403, "403: Forbidden")


def test_account_challenge_and_game_lines_match_the_recorded_server(
    pychess: LoopbackServer, pychess_client: Client
) -> None:
    assert pychess_client.get("/api/account").text == recorded("ACCOUNT", "SeirawanBot")
    events = pychess_client.events()
    challenge_id = pychess.challenge(challenger="Alice", clock=(300, 3), color="black", opponent=Manual())
    expected_challenge = recorded("EVENT", '"type":"challenge"').replace("RpxjQkJ5", challenge_id)
    assert events.next_line() == expected_challenge
    assert pychess_client.post(f"/api/challenge/{challenge_id}/accept").json() == {"ok": True}
    assert events.next_line() == recorded("EVENT", "gameStart").replace("RpxjQkJ5", challenge_id)
    game = pychess_client.game(challenge_id)
    full = game.next_line()
    created_at = json.loads(full)["createdAt"]
    expected_full = recorded("GAME:RpxjQkJ5", "gameFull").replace("RpxjQkJ5", challenge_id)
    assert full == re.sub(r'"createdAt": \d+', f'"createdAt": {created_at}', expected_full)
    assert game.next_line(skip_keepalives=False) == '{"type":"ping"}', "a ping follows gameFull at once"
    assert pychess_client.move(challenge_id, "g1h3e").json() == {"ok": True}
    state = game.next_line()
    assert state == recorded("GAME:RpxjQkJ5", '"moves": "g1h3e"')


def test_challenges_for_variants_missing_from_the_capabilities_are_never_offered(
    pychess: LoopbackServer, pychess_client: Client
) -> None:
    events = pychess_client.events()
    hidden = pychess.challenge(variant="chess")
    shown = pychess.challenge(variant="seirawan", chess960=True)
    line = events.next_json()
    assert line["challenge"]["id"] == shown and line["challenge"]["chess960"] is True
    assert not pychess.challenges[hidden].offered


def test_illegal_move_is_answered_ok_and_loses_the_game(pychess: LoopbackServer, pychess_client: Client) -> None:
    game_id, game = start_game(pychess, pychess_client, color="black", opponent=Manual())
    response = pychess_client.move(game_id, "e2e5")
    assert response.status_code == 200 and response.json() == {"ok": True}
    assert game.next_json() == {"type": "gameEnd", "game": {"id": game_id}}
    record = pychess.game(game_id)
    assert record.over and record.winner is False and record.result() == "0-1"
    assert game.next_line(skip_keepalives=False) == '{"type":"ping"}', "the stream stays open after gameEnd"


def test_same_move_twice_and_moves_out_of_turn_are_ignored(pychess: LoopbackServer, pychess_client: Client) -> None:
    game_id, _ = start_game(pychess, pychess_client, color="black", opponent=Manual())
    assert pychess_client.move(game_id, "e2e4").status_code == 200
    assert pychess_client.move(game_id, "e2e4").status_code == 200
    record = pychess.game(game_id)
    assert record.moves == ["e2e4"] and not record.over
    assert record.rejected == [("e2e4", "not your turn")]


def test_chat_and_decline_take_form_bodies_only(pychess: LoopbackServer, pychess_client: Client) -> None:
    game_id, _ = start_game(pychess, pychess_client, opponent=Manual())
    assert (
        pychess_client.post(f"/api/bot/game/{game_id}/chat", json={"room": "player", "text": "hi"}).status_code == 500
    )
    assert (
        pychess_client.post(f"/api/bot/game/{game_id}/chat", data={"room": "player", "text": "hi"}).status_code == 200
    )
    assert [(c.room, c.text) for c in pychess.game(game_id).chat] == [("player", "hi")]
    challenge_id = pychess.challenge()
    assert pychess_client.post(f"/api/challenge/{challenge_id}/decline", json={"reason": "later"}).status_code == 500
    assert pychess_client.post(f"/api/challenge/{challenge_id}/decline", data={"reason": "tooFast"}).status_code == 200
    answer = pychess.answer(challenge_id)
    assert answer is not None and not answer.accepted and answer.reason == "tooFast"


def test_no_draw_takeback_online_routes_and_no_bot_challenges(pychess: LoopbackServer, pychess_client: Client) -> None:
    game_id, _ = start_game(pychess, pychess_client, opponent=Manual())
    assert pychess_client.post(f"/api/bot/game/{game_id}/draw/yes").status_code == 404
    assert pychess_client.post(f"/api/bot/game/{game_id}/takeback/yes").status_code == 404
    assert pychess_client.get("/api/bot/online").status_code == 404
    assert pychess_client.post("/api/challenge/Alice", data={"clock.limit": "60"}).status_code == 403


def test_takeback_shrinks_the_move_list(pychess: LoopbackServer, pychess_client: Client) -> None:
    game_id, game = start_game(pychess, pychess_client, color="black", opponent=Scripted(["e7e5", "g8f6"]))
    pychess_client.move(game_id, "e2e4")
    assert json.loads(game.next_line())["moves"] == "e2e4"
    assert json.loads(game.next_line())["moves"] == "e2e4 e7e5"
    assert pychess.takeback(game_id, plies=2) == 2
    assert json.loads(game.next_line())["moves"] == ""
    pychess_client.move(game_id, "d2d4")
    assert json.loads(game.next_line())["moves"] == "d2d4"
    assert json.loads(game.next_line())["moves"] == "d2d4 e7e5", "the script replays from the right move"


def test_resign_sends_no_end_event(pychess: LoopbackServer, pychess_client: Client) -> None:
    game_id, game = start_game(pychess, pychess_client, opponent=Manual())
    assert pychess_client.post(f"/api/bot/game/{game_id}/resign").status_code == 200
    assert pychess.game(game_id).status == "resign"
    assert game.next_line(skip_keepalives=False) == '{"type":"ping"}'


def test_mate_sends_only_a_bare_game_end_and_the_page_has_the_result(
    pychess: LoopbackServer, pychess_client: Client
) -> None:
    game_id, game = start_game(pychess, pychess_client, color="black", opponent=Scripted(["e7e5", "d8h4"]))
    pychess_client.move(game_id, "f2f3")
    lines = [game.next_json(), game.next_json()]  # ours, then the opponent's reply: now it is our turn
    pychess_client.move(game_id, "g2g4")  # (out of turn, pychess would take it as an illegal move: lost)
    lines += [game.next_json(), game.next_json()]
    # the state of the mating move never comes: the mated side only learns that the game ended
    assert lines[2]["moves"] == "f2f3 e7e5 g2g4" and lines[2]["status"] == "started"
    assert lines[3] == {"type": "gameEnd", "game": {"id": game_id}}
    assert pychess.game(game_id).status == "mate" and pychess.game(game_id).winner is False
    page = parse_game_page(Client(pychess, token="no token needed").get(f"/{game_id}").text)
    assert (page.status, page.result, page.moves) == (1, "0-1", ("f2f3", "e7e5", "g2g4", "d8h4"))


def test_the_game_page_is_not_a_lichess_route(lichess: LoopbackServer, pychess: LoopbackServer) -> None:
    # the same running game is a page on pychess and nothing on Lichess
    for server, status in ((pychess, 200), (lichess, 404)):
        game_id, reader = start_game(server, Client(server), opponent=Manual())
        reader.close()
        assert Client(server).get(f"/{game_id}").status_code == status


def test_reconnecting_game_stream_gets_missed_lines_before_game_full(
    pychess: LoopbackServer, pychess_client: Client
) -> None:
    game_id, game = start_game(pychess, pychess_client, color="black", opponent=Manual())
    game.close()
    pychess.wait_for(lambda: not pychess.open_streams("game", game_id), PATIENCE_S, "the stream to close")
    pychess_client.move(game_id, "e2e4")
    again = pychess_client.game(game_id)
    first = again.next_json()
    assert first["type"] == "gameState" and first["moves"] == "e2e4"
    assert again.next_json()["type"] == "gameFull"


def test_a_second_stream_for_one_game_breaks(pychess: LoopbackServer, pychess_client: Client) -> None:
    game_id, _ = start_game(pychess, pychess_client, opponent=Manual())
    second = pychess_client.get(f"/api/bot/game/stream/{game_id}")
    assert second.status_code == 200 and second.text.startswith("Error")
    assert pychess.game(game_id).stream_refusals == 1


def test_event_stream_reconnect_resends_unfinished_games_and_shutdown_says_terminated() -> None:
    with LoopbackServer(dialect="pychess", token="t", keepalive_s=0.3) as server:
        client = Client(server, token="t")
        game_id, _ = start_game(server, client, opponent=Manual())
        events = client.events()
        assert events.next_json()["type"] == "gameStart"
        server.stop()
        assert events.next_json() == {"type": "terminated"}
        client.close()
        assert game_id in server.games

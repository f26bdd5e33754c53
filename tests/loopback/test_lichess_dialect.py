"""The lichess dialect of the loopback server."""

from __future__ import annotations

import json

from bot.loopback import LoopbackServer, Manual, Scripted
from tests.loopback.conftest import Client, start_game
from tests.timing import PATIENCE_S


def test_challenge_and_game_full_use_lichess_shapes_and_milliseconds(
    lichess: LoopbackServer, lichess_client: Client
) -> None:
    events = lichess_client.events()
    assert lichess_client.get("/api/account").json()["id"] == "schessbot"
    challenge_id = lichess.challenge(challenger="Bob", clock=(180, 2), color="white", rated=True, title="BOT")
    event = events.next_json()
    challenge = event["challenge"]
    assert event["type"] == "challenge" and challenge["destUser"]["name"] == "SchessBot"
    assert challenge["timeControl"] == {"type": "clock", "limit": 180, "increment": 2, "show": "3+2"}
    assert challenge["challenger"]["title"] == "BOT" and challenge["speed"] == "blitz"
    assert challenge["variant"]["key"] == "seirawan" and challenge["direction"] == "in"
    assert event["compat"] == {"bot": True, "board": True}, "compat sits beside the challenge, as the spec shows"
    lichess_client.post(f"/api/challenge/{challenge_id}/accept")
    start = events.next_json()
    assert start["type"] == "gameStart" and start["game"]["color"] == "black"
    assert start["game"]["opponent"]["username"] == "Bob"
    full = lichess_client.game(challenge_id).next_json()
    assert full["clock"] == {"initial": 180000, "increment": 2000}
    assert full["initialFen"] == "startpos" and full["createdAt"] > 10**12
    assert full["white"]["id"] == "bob" and full["black"]["name"] == "SchessBot"
    assert full["state"]["winc"] == 2000 and full["state"]["status"] == "started"


def test_compat_says_a_bot_cannot_play_ultrabullet_and_only_a_bot_account_can_play_at_all(
    lichess: LoopbackServer, lichess_client: Client
) -> None:
    events = lichess_client.events()
    lichess.challenge(clock=(15, 0))
    assert events.next_json()["compat"] == {"bot": False, "board": False}
    lichess.challenge(clock=(60, 0))
    assert events.next_json()["compat"] == {"bot": True, "board": False}
    lichess.bot_title = None  # an account that was never upgraded to BOT
    lichess.challenge(clock=(600, 0))
    assert events.next_json()["compat"] == {"bot": False, "board": True}


def test_keepalives_are_empty_lines(lichess: LoopbackServer, lichess_client: Client) -> None:
    events = lichess_client.events()
    assert events.next_line(skip_keepalives=False) == ""


def test_illegal_move_is_400_and_the_game_goes_on(lichess: LoopbackServer, lichess_client: Client) -> None:
    game_id, _ = start_game(lichess, lichess_client, color="black", opponent=Manual())
    assert lichess_client.move(game_id, "e2e5").status_code == 400
    assert not lichess.game(game_id).over
    assert lichess_client.move(game_id, "e2e4").status_code == 200
    assert lichess_client.move(game_id, "d2d4").status_code == 400, "not our turn"


def test_mate_ends_with_a_final_state_and_the_stream_closes(lichess: LoopbackServer, lichess_client: Client) -> None:
    game_id, game = start_game(lichess, lichess_client, color="black", opponent=Scripted(["e7e5", "d8h4"]))
    events = lichess_client.events()
    lichess_client.move(game_id, "f2f3")
    states = [game.next_json(), game.next_json()]  # ours, then the opponent's reply: now it is our turn
    lichess_client.move(game_id, "g2g4")
    states += [game.next_json(), game.next_json()]
    assert states[-1]["moves"] == "f2f3 e7e5 g2g4 d8h4"
    assert states[-1]["status"] == "mate" and states[-1]["winner"] == "black"
    assert game.ended.wait(PATIENCE_S), "lichess closes the game stream after the final state"
    kinds = [events.next_json()["type"] for _ in range(2)]
    assert kinds == ["gameStart", "gameFinish"]


def test_draw_offers_and_answers(lichess: LoopbackServer, lichess_client: Client) -> None:
    game_id, game = start_game(lichess, lichess_client, color="black", opponent=Manual(accept_draws=False))
    lichess_client.move(game_id, "e2e4", offeringDraw="true")
    assert game.next_json()["moves"] == "e2e4"
    assert game.next_json().get("wdraw") is True
    assert lichess.game(game_id).bot_draw_offers == 1 and not lichess.game(game_id).over
    lichess.play_opponent_move(game_id, "e7e5")
    assert "wdraw" not in game.next_json(), "a move declines the pending offer"
    lichess.offer_draw(game_id)
    assert game.next_json().get("bdraw") is True
    assert lichess_client.post(f"/api/bot/game/{game_id}/draw/yes").status_code == 200
    final = game.next_json()
    assert final["status"] == "draw" and "winner" not in final


def test_takeback_requests_from_the_opponent(lichess: LoopbackServer, lichess_client: Client) -> None:
    game_id, game = start_game(lichess, lichess_client, color="black", opponent=Manual())
    lichess_client.move(game_id, "e2e4")
    lichess.play_opponent_move(game_id, "e7e5")
    lichess_client.move(game_id, "g1f3")
    for _ in range(3):
        game.next_json()
    lichess.offer_takeback(game_id)
    assert game.next_json().get("btakeback") is True
    lichess_client.post(f"/api/bot/game/{game_id}/takeback/yes")
    assert game.next_json()["moves"] == "e2e4", "the opponent's last move and ours are taken back"


def test_king_takes_rook_castling_is_accepted_and_can_be_sent(lichess: LoopbackServer, lichess_client: Client) -> None:
    lichess.king_takes_rook = True
    fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
    game_id, game = start_game(
        lichess, lichess_client, variant="chess", color="black", initial_fen=fen, opponent=Scripted(["e8g8"])
    )
    assert lichess_client.move(game_id, "e1h1").status_code == 200
    assert lichess.game(game_id).moves[0] == "e1g1"
    assert game.next_json()["moves"] == "e1h1"
    assert game.next_json()["moves"] == "e1h1 e8h8"


def test_bot_created_challenges_online_bots_accept_decline_cancel(
    lichess: LoopbackServer, lichess_client: Client
) -> None:
    lichess.add_online_bot("Friendly", rating=1800, answer="accept", opponent=Manual)
    lichess.add_online_bot("Grumpy", answer="decline", decline_reason="tooFast")
    lichess.add_online_bot("Sleepy", answer="ignore")
    online = [json.loads(line) for line in lichess_client.get("/api/bot/online").text.splitlines()]
    assert [bot["username"] for bot in online] == ["Friendly", "Grumpy", "Sleepy"]
    events = lichess_client.events()
    created = lichess_client.post(
        "/api/challenge/Friendly",
        data={
            "clock.limit": "60",
            "clock.increment": "1",
            "rated": "false",
            "variant": "seirawan",
            "color": "white",
        },
    )
    assert created.status_code == 200 and created.json()["direction"] == "out"
    assert events.next_json()["type"] == "challenge"
    start = events.next_json()
    assert start["type"] == "gameStart" and start["game"]["color"] == "white"
    declined_id = lichess_client.post("/api/challenge/Grumpy", data={"clock.limit": "60"}).json()["id"]
    assert events.next_json()["type"] == "challenge"
    declined = events.next_json()
    # the Lichess API spec: declineReasonKey in lower case (the decline endpoint itself takes "tooFast")
    assert declined["type"] == "challengeDeclined" and declined["challenge"]["declineReasonKey"] == "toofast"
    assert lichess.answer(declined_id) is not None
    sleepy_id = lichess_client.post("/api/challenge/Sleepy", data={"days": "2"}).json()["id"]
    assert lichess_client.post(f"/api/challenge/{sleepy_id}/cancel").status_code == 200
    assert lichess.challenges[sleepy_id].status == "canceled"
    assert lichess_client.post("/api/challenge/Nobody", data={"clock.limit": "60"}).status_code == 404


def test_a_new_event_stream_closes_the_old_one_and_resends_challenges(
    lichess: LoopbackServer, lichess_client: Client
) -> None:
    first = lichess_client.events()
    challenge_id = lichess.challenge()
    assert first.next_json()["challenge"]["id"] == challenge_id
    second = lichess_client.events()
    assert second.next_json()["challenge"]["id"] == challenge_id
    assert first.ended.wait(PATIENCE_S)

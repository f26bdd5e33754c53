"""Lichess tournaments on the loopback server: the join, withdraw and read routes as the Lichess API answers
them, pairings that name their tournament, and no such routes on pychess."""

from __future__ import annotations

from bot.loopback import LoopbackServer, Scripted
from tests.loopback.conftest import Client


def test_an_arena_is_read_joined_and_left_as_lichess_answers(lichess: LoopbackServer, lichess_client: Client) -> None:
    events = lichess_client.events()
    arena = lichess.create_tournament(clock=(180, 2), pairings=2, opponent=lambda n: Scripted([], then="wait"))
    info = lichess_client.get(f"/api/tournament/{arena}").json()
    assert info["system"] == "arena" and info["clock"] == {"limit": 180, "increment": 2}
    assert info["isStarted"] is True and info["isFinished"] is False and info["variant"] == "standard"
    assert info["verdicts"] == {"list": [{"condition": "Bot players are allowed", "verdict": "ok"}],
                                "accepted": True}
    assert lichess_client.post(f"/api/tournament/{arena}/join").json() == {"ok": True}
    start = events.next_json()
    game_id = start["game"]["gameId"]
    assert start["type"] == "gameStart" and start["game"]["source"] == "arena"
    assert start["game"]["tournamentId"] == arena
    assert lichess_client.game(game_id).next_json()["tournamentId"] == arena
    assert lichess_client.post(f"/api/tournament/{arena}/withdraw").json() == {"ok": True}
    lichess.opponent_resign(game_id)
    assert lichess.tournaments[arena].games == [game_id], "no pairing after the withdrawal"


def test_a_join_is_refused_with_lichess_reasons_and_a_swiss_is_not_an_arena(
    lichess: LoopbackServer, lichess_client: Client
) -> None:
    private = lichess.create_tournament(password="code")
    battle = lichess.create_tournament(team="team-a")
    strict = lichess.create_tournament(bots_allowed=False, min_rating=2200)
    swiss = lichess.create_tournament(kind="swiss")
    answer = lichess_client.post(f"/api/tournament/{private}/join", data={"password": "nope"})
    assert answer.status_code == 400 and answer.json() == {"error": "Wrong entry code"}
    assert lichess_client.post(f"/api/tournament/{battle}/join").json() == {"error": "Missing team"}
    assert lichess_client.post(f"/api/tournament/{strict}/join").json() == {"error": "Tournament restrictions"}
    verdicts = lichess_client.get(f"/api/tournament/{strict}").json()["verdicts"]
    assert verdicts == {"list": [{"condition": "Bot players are not allowed", "verdict": "Bot players are not allowed"},
                                 {"condition": "Rated ≥ 2200 in Bullet",
                                  "verdict": "Your Bullet rating (2000) is too low"}], "accepted": False}
    assert lichess_client.get(f"/api/tournament/{swiss}").status_code == 404
    assert lichess_client.get(f"/api/swiss/{swiss}").json()["status"] == "started"
    assert lichess_client.post(f"/api/swiss/{swiss}/join").json() == {"ok": True}


def test_pychess_has_no_tournament_routes(pychess: LoopbackServer, pychess_client: Client) -> None:
    assert pychess_client.post("/api/tournament/abcd1234/join").status_code == 404
    assert pychess_client.get("/api/swiss/abcd1234").status_code == 404

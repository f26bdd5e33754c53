"""``/api/token/test`` and ``/api/account/playing`` in both dialects, as the real servers answer them
(docs/server-api.md), and TCP_NODELAY on the loopback's sockets."""

from __future__ import annotations

import socket

import pytest
import requests

from bot.loopback import LoopbackServer, Manual
from bot.loopback.http import LoopbackHandler
from tests.loopback.conftest import TOKEN, Client, start_game
from tests.timing import PATIENCE_S


@pytest.mark.parametrize("dialect", ["lichess", "pychess"])
def test_token_test_names_the_owner_of_a_known_token_and_null_for_others(dialect: str) -> None:
    with LoopbackServer(dialect=dialect, token=TOKEN) as server:  # type: ignore[arg-type]
        # no Authorization header: the tokens to test are the body, comma-separated
        answer = requests.post(server.url + "/api/token/test", data=f"{TOKEN},lip_unknown", timeout=PATIENCE_S)
        assert answer.status_code == 200
        known = answer.json()[TOKEN]
        assert answer.json()["lip_unknown"] is None
        assert "bot:play" in known["scopes"].split(",")
        if dialect == "lichess":
            assert known["userId"] == "schessbot" and known["expires"] is None
        else:
            assert known["userId"] == "SeirawanBot" and isinstance(known["expires"], int)


def test_lichess_playing_lists_the_running_games_until_they_end(lichess: LoopbackServer,
                                                                 lichess_client: Client) -> None:
    assert lichess_client.get("/api/account/playing").json() == {"nowPlaying": []}
    game_id, _ = start_game(lichess, lichess_client, color="black", opponent=Manual())  # the bot has White
    playing = lichess_client.get("/api/account/playing").json()["nowPlaying"]
    assert [game["gameId"] for game in playing] == [game_id]
    assert playing[0]["color"] == "white" and playing[0]["isMyTurn"] is True
    assert playing[0]["variant"]["key"] == "seirawan"
    assert lichess_client.post(f"/api/bot/game/{game_id}/resign").status_code == 200
    assert lichess_client.get("/api/account/playing").json() == {"nowPlaying": []}
    assert requests.get(lichess.url + "/api/account/playing", timeout=PATIENCE_S).status_code == 401


def test_pychess_playing_is_always_empty(pychess: LoopbackServer, pychess_client: Client) -> None:
    start_game(pychess, pychess_client, color="white", opponent=Manual())
    assert pychess_client.get("/api/account/playing").json() == {"nowPlaying": []}
    assert requests.get(pychess.url + "/api/account/playing", timeout=PATIENCE_S).status_code == 403


def test_the_servers_sockets_send_small_writes_at_once(monkeypatch: pytest.MonkeyPatch,
                                                       lichess: LoopbackServer, lichess_client: Client) -> None:
    seen: list[int] = []
    setup = LoopbackHandler.setup

    def spy(handler: LoopbackHandler) -> None:
        setup(handler)
        seen.append(handler.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    monkeypatch.setattr(LoopbackHandler, "setup", spy)
    assert lichess_client.get("/api/account").status_code == 200
    assert seen and all(seen), "every accepted connection has TCP_NODELAY"

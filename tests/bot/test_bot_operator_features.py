"""Takebacks, chat commands and correspondence visits in one game worker (fake server, scripted engine), plus
the pure pieces they use: takeback and challenge decisions, config keys, clockless games."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from bot.config import ConfigError, Settings, TakebackSettings, settings_from_dict
from bot.game import GameRecord, GameWorker
from bot.game.decisions import should_accept_takeback
from bot.lobby.challenges import Accept, Decline, LobbyState, decide_challenge
from bot.wire.dialect import PYCHESS
from bot.wire.events import Challenge, Player, TimeControl, Variant
from bot.wire.normalise import normalise_game_line
from tests.bot.fakes import LICHESS_ME_ID, FakeServer, LichessServer, ScriptedEngine, lichess_full, lichess_state, run
from tests.timing import PATIENCE_S, wait_until


def push_state(server: FakeServer, moves: str, **extra: Any) -> None:
    server.push(json.dumps(lichess_state(moves, **extra)))


def quiet(**overrides: Any) -> Settings:
    return settings_from_dict({"greeting": {"hello": "", "goodbye": ""}, "pgn_directory": None, **overrides})


def test_takebacks_are_granted_up_to_max_takebacks_then_declined() -> None:
    server = LichessServer()
    replies = iter([
        ["e2e4 e7e5 g1f3", "e2e4 e7e5 g1f3 takeback", "e2e4 e7e5"],
        ["e2e4 e7e5 g1f3", "e2e4 e7e5 g1f3 takeback", "e2e4 e7e5 g1f3 resign"],
    ])

    def reply(uci: str) -> None:
        for line in next(replies):
            moves = line.replace(" takeback", "").replace(" resign", "")
            if line.endswith("takeback"):
                push_state(server, moves, btakeback=True)
            elif line.endswith("resign"):
                push_state(server, moves, status="resign", winner="white")
            else:
                push_state(server, moves)

    server.on_move = reply
    server.push(lichess_full("e2e4 e7e5"))
    run(server, ScriptedEngine("g1f3"), quiet(takeback={"max_takebacks": 1}))
    assert [call for call in server.calls if call[0] in ("move", "takeback")] == [
        ("move", "g1f3", ""), ("takeback", "yes"), ("move", "g1f3", ""), ("takeback", "no")]


class PushingEngine(ScriptedEngine):
    """Pushes lines into the game stream while 'thinking' (they arrive during the search)."""

    def __init__(self, server: FakeServer, lines: list[str], *answers: Any) -> None:
        super().__init__(*answers)
        self.server, self.lines = server, lines

    def search(self, fen: str, moves: Any, limits: Any) -> Any:
        if self.lines:
            self.server.push(self.lines.pop(0))
        return super().search(fen, moves, limits)


def test_a_takeback_request_overtaken_by_our_move_is_not_answered() -> None:
    server = LichessServer()
    stale = json.dumps(lichess_state("e2e4 e7e5", btakeback=True))
    server.on_move = lambda uci: push_state(server, "e2e4 e7e5 g1f3", status="resign", winner="white")
    server.push(lichess_full("e2e4 e7e5"))
    run(server, PushingEngine(server, [stale], "g1f3"), quiet(takeback={"max_takebacks": 5}))
    assert ("takeback", "yes") not in server.calls and ("takeback", "no") not in server.calls


def test_chat_commands_are_answered_in_their_room_without_waiting_and_our_own_lines_ignored() -> None:
    server = LichessServer()
    lines = [json.dumps({"type": "chatLine", "room": room, "username": user, "text": text})
             for room, user, text in (("player", "SchessBot", "!help"), ("spectator", "carol", "!eval"),
                                      ("player", "Alice", "!queue"), ("player", "Alice", "gg !name"))]

    def reply(uci: str) -> None:
        server.push(*lines)
        push_state(server, "e2e4 e7e5 g1f3", status="resign", winner="white")

    server.on_move = reply
    server.push(lichess_full("e2e4 e7e5"))
    run(server, ScriptedEngine("g1f3"), quiet(chat={"cooldown_s": 0}), queue=3)
    chats = [call[1:] for call in server.calls if call[0] == "chat"]
    assert chats == [("Evaluation +0.42 at depth 7 (my point of view).", "spectator", "False"),
                     ("3 challenges waiting.", "player", "False")]


def test_a_correspondence_game_is_parked_after_our_move(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    server = LichessServer()
    server.on_move = lambda uci: push_state(server, "e2e4 e7e5 g1f3", days=3)
    server.push(lichess_full("e2e4 e7e5", days=3))
    engine = ScriptedEngine("g1f3")
    record, worker = run(server, engine, quiet(correspondence={"disconnect_after_s": 0.2},
                                               time={"correspondence_move_s": 5}))
    assert record.parked and record.result == "*"
    assert server.moves() == ["g1f3"] and engine.closed
    assert not [call for call in server.calls if call[0] in ("chat", "abort", "resign")]
    assert "playing chess as white vs Alice (3 days per move)" in caplog.text
    assert "game g1: Alice to move; parked until the next check (correspondence)" in caplog.text


def test_a_check_visit_with_the_opponent_to_move_parks_at_once_without_an_engine() -> None:
    server = LichessServer()
    server.push(lichess_full("e2e4", days=3))
    engine = ScriptedEngine("g1f3")
    record, _ = run(server, engine, quiet(), revisit=True)
    assert record.parked and server.calls == [] and engine.searches == []
    assert not hasattr(engine, "variant"), "the engine is not even set up for a visit with nothing to do"


def test_stopping_with_abort_parks_a_correspondence_game_instead_of_resigning_it() -> None:
    server = LichessServer()
    server.push(lichess_full("e2e4", days=3))
    from bot.wire.events import Account

    records: list[GameRecord] = []
    worker = GameWorker("g1", server, quiet(), Account(id=LICHESS_ME_ID, username="SchessBot"),  # type: ignore[arg-type]
                        ScriptedEngine("g1f3"), on_done=records.append)
    worker.start()
    wait_until(lambda: worker.game.correspondence, "the game to be known as correspondence")
    assert worker.thread.is_alive()
    worker.request_stop("abort")
    worker.thread.join(PATIENCE_S)
    assert records and records[0].parked
    assert not [call for call in server.calls if call[0] in ("abort", "resign")]


def test_clockless_pychess_games_count_as_correspondence() -> None:
    line = json.dumps({"type": "gameFull", "id": "x", "variant": {"name": "seirawan"}, "white": {"name": "A"},
                       "black": {"name": "B"}, "initialFen": "", "createdAt": 1795962595,
                       "state": {"type": "gameState", "moves": "", "wtime": 2147483647, "btime": 2147483647,
                                 "winc": 0, "binc": 0, "status": "started"}})
    [full] = normalise_game_line(line, PYCHESS)
    assert full.clock == TimeControl("correspondence")  # type: ignore[union-attr]


def test_should_accept_takeback() -> None:
    assert not should_accept_takeback(0, TakebackSettings())
    assert should_accept_takeback(1, TakebackSettings(max_takebacks=2))
    assert not should_accept_takeback(2, TakebackSettings(max_takebacks=2))


def challenge(control: TimeControl, speed: str) -> Challenge:
    return Challenge("c", Player("Alice", rating=1500), Variant("chess"), control, False, speed)


def test_correspondence_challenges_have_their_own_limit() -> None:
    settings = settings_from_dict({"challenge": {"variants": ["chess"], "concurrency": 1}}).challenge
    days = challenge(TimeControl("correspondence", days=3), "correspondence")
    blitz = challenge(TimeControl("clock", 180000, 2000), "blitz")
    busy = LobbyState(active_games=1, correspondence_games=4)
    assert decide_challenge(days, settings, busy, max_correspondence_games=5) == Accept()
    assert decide_challenge(days, settings, busy, max_correspondence_games=4) == Decline(
        "later", "already playing 4 of 4 correspondence games")
    assert decide_challenge(blitz, settings, busy).reason == "later"  # type: ignore[union-attr]
    assert decide_challenge(blitz, settings, LobbyState(correspondence_games=99)) == Accept()


@pytest.mark.parametrize("data, message", [
    ({"takeback": {"max_takebacks": "2"}}, "takeback.max_takebacks must be a non-negative integer, got '2'"),
    ({"chat": {"eval_rooms": ["lobby"]}}, "chat.eval_rooms must be a list of player, spectator, got 'lobby'"),
    ({"chat": {"cooldown_s": -1}}, "chat.cooldown_s must be a number >= 0 (seconds), got -1"),
    ({"chat": {"commandz": True}}, "unknown key chat.commandz"),
    ({"correspondence": {"check_interval_s": 0}}, "correspondence.check_interval_s must be a number >= 1"),
    ({"correspondence": {"max_games": 0}}, "correspondence.max_games must be a positive integer, got 0"),
])
def test_new_config_keys_are_validated_with_the_key_in_the_message(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as error:
        settings_from_dict(data)
    assert message in str(error.value)


def test_the_shipped_config_file_matches_the_defaults() -> None:
    from pathlib import Path

    from bot.config import load_settings

    assert load_settings(Path(__file__).resolve().parents[2] / "config.yml") == Settings()


MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1[] w - - 0 1"


def pychess_full(initial_fen: str, moves: str = "") -> str:
    return json.dumps({"type": "gameFull", "id": "g1", "variant": {"name": "seirawan"},
                       "white": {"name": "SchessBot"}, "black": {"name": "Alice"}, "initialFen": initial_fen,
                       "createdAt": 1795962595,
                       "state": {"type": "gameState", "moves": moves, "wtime": 60000, "btime": 60000,
                                 "winc": 1, "binc": 1, "status": "started"}})


def test_a_final_move_pychess_never_sends_is_taken_from_what_we_sent(tmp_path: Any) -> None:
    server = FakeServer("pychess")
    server.on_move = lambda uci: server.push('{"type": "gameEnd", "game": {"id": "g1"}}')
    server.push(pychess_full(MATE_IN_ONE))
    settings = settings_from_dict({"pgn_directory": str(tmp_path)})
    record, _ = run(server, ScriptedEngine("a1a8"), settings)
    assert record.result == "1-0" and record.pgn_path is not None
    assert "1. Ra8#" in record.pgn_path.read_text()


def test_a_game_ended_by_the_opponent_after_our_quiet_move_does_not_get_that_move(tmp_path: Any) -> None:
    server = FakeServer("pychess")
    server.on_move = lambda uci: server.push('{"type": "gameEnd", "game": {"id": "g1"}}')
    server.push(pychess_full(MATE_IN_ONE))
    record, _ = run(server, ScriptedEngine("a1b1"), settings_from_dict({"pgn_directory": str(tmp_path)}))
    assert record.result == "*" and record.pgn_path is None, "a move that does not end the game is not assumed"


def test_the_chess960_flag_of_a_pychess_game_start_reaches_the_board() -> None:
    from bot.wire.events import GameStart
    from bot.wire.normalise import normalise_lobby_line

    line = '{"type": "gameStart", "game": {"id": "g1", "skill_level": "6", "chess960": "True"}}'
    assert normalise_lobby_line(line) == GameStart("g1", None, chess960=True)
    fen = "bqnrkrnb/pppppppp/8/8/8/8/PPPPPPPP/BQNRKRNB[EHeh] w KQBCDFGkqbcdfg - 0 1"
    server = FakeServer("pychess")
    server.push(pychess_full(fen), '{"type": "gameEnd", "game": {"id": "g1"}}')
    from bot.wire.events import Account

    records: list[GameRecord] = []
    worker = GameWorker("g1", server, quiet(), Account(id="SchessBot", username="SchessBot"),  # type: ignore[arg-type]
                        ScriptedEngine("e2e4"), on_done=records.append, chess960=True)
    worker.start()
    worker.thread.join(PATIENCE_S)
    assert worker.game.full is not None and worker.game.full.variant == Variant("seirawan", True)
    assert worker.game.position is not None and worker.game.position.board.chess960


def test_stopping_with_finish_parks_a_waiting_correspondence_game_at_once() -> None:
    from bot.wire.events import Account

    server = LichessServer()
    server.push(lichess_full("e2e4", days=3))
    records: list[GameRecord] = []
    worker = GameWorker("g1", server, quiet(), Account(id=LICHESS_ME_ID, username="SchessBot"),  # type: ignore[arg-type]
                        ScriptedEngine("g1f3"), on_done=records.append)  # waits 120 s for a reply by default
    worker.start()
    wait_until(lambda: worker.game.correspondence, "the game to be known as correspondence")
    assert worker.thread.is_alive()
    worker.request_stop("finish")
    worker.thread.join(PATIENCE_S)  # "at once": the worker's wait for the opponent (120 s) is cut short
    assert records and records[0].parked

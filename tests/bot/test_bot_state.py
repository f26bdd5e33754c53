"""The state file: what the limits remember survives a restart; it is written atomically and an unreadable one
is logged and ignored."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from bot.config import MatchmakingTimeControl, settings_from_dict
from bot.game import GameNote
from bot.game.record import GameRecord
from bot.lobby.challenges import DAY_S, AcceptedBotChallenge
from bot.lobby.loop import Lobby
from bot.lobby.matchmaking import DeclineNote
from bot.lobby.state import (
    STATE_FILE_NAME,
    BotMemory,
    ClockReading,
    forget_old,
    load_memory,
    memory_from_json,
    memory_to_json,
    save_memory,
    state_path,
)
from bot.wire.events import ChallengeEvent, GameStart
from bot.wire.normalise import normalise_lobby_line
from tests.bot.conftest import PYCHESS_CHALLENGE
from tests.bot.fakes import ME, LobbyServer

BLITZ = MatchmakingTimeControl(base_s=180, increment_s=2)
MEMORY = BotMemory(
    accepted_from_bots=(AcceptedBotChallenge(1_700_000_000.0, "robot"),),
    matchmaking_sent=(1_700_000_100.5, 1_700_000_200.0),
    matchmaking_declines=(DeclineNote("picky", "tooFast", 1_700_000_150.0, "chess", BLITZ),
                          DeclineNote("slowpoke", "later", 1_700_000_160.0, "chess960",
                                      MatchmakingTimeControl(days=2))),
    games=(GameNote("RpxjQkJ5", "resigned", "0-1", "Normal", 1_700_000_300.0),
           GameNote("AbortMe1", "aborted", "*", "Abandoned", 1_700_000_310.0)),
)


def test_memory_round_trips_through_json_and_the_file(tmp_path: Path) -> None:
    assert memory_from_json(json.loads(json.dumps(memory_to_json(MEMORY)))) == MEMORY
    path = tmp_path / "games" / STATE_FILE_NAME
    assert save_memory(path, MEMORY), "the folder is created when missing"
    assert load_memory(path) == MEMORY
    assert [p.name for p in path.parent.iterdir()] == [STATE_FILE_NAME], "no temporary file is left behind"


def test_the_state_file_sits_next_to_the_pgns_or_nowhere() -> None:
    assert state_path("games") == Path("games") / ".schess-bot-state.json"
    assert state_path(None) is None


def test_a_failed_write_keeps_the_old_file_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / STATE_FILE_NAME
    save_memory(path, MEMORY)
    before = path.read_bytes()

    def broken_rename(source: str, target: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_rename)
    with caplog.at_level(logging.WARNING):
        assert not save_memory(path, BotMemory())
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [STATE_FILE_NAME], "the temporary file is removed"
    assert "cannot write the state file" in caplog.text and "No space left" in caplog.text


@pytest.mark.parametrize(("content", "why"), [
    ("{not json", "Expecting property name"),
    ("[]", "not a JSON object"),
    ('{"version": 99}', "unknown version 99"),
    ('{"version": 1, "accepted_from_bots": [{"at": "noon", "name": "robot"}]}', "accepted_from_bots.at"),
    ('{"version": 1, "matchmaking": {"declines": [{"opponent": "x"}]}}', "time_control is not an object"),
    ('{"version": 1, "matchmaking": {"sent": "yesterday"}}', "matchmaking.sent is not a list"),
])
def test_an_unreadable_file_is_logged_and_the_bot_starts_fresh(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                                content: str, why: str) -> None:
    path = tmp_path / STATE_FILE_NAME
    path.write_text(content)
    with caplog.at_level(logging.WARNING):
        assert load_memory(path) == BotMemory()
    assert f"state file {path} is unreadable" in caplog.text and why in caplog.text
    assert "starting fresh" in caplog.text


def test_a_missing_file_or_a_folder_in_its_place_never_stops_the_bot(tmp_path: Path,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert load_memory(tmp_path / STATE_FILE_NAME) == BotMemory()
    assert caplog.text == "", "no file yet is normal: nothing to warn about"
    (tmp_path / STATE_FILE_NAME).mkdir()
    with caplog.at_level(logging.WARNING):
        assert load_memory(tmp_path / STATE_FILE_NAME) == BotMemory()
        assert not save_memory(tmp_path / STATE_FILE_NAME, MEMORY)
    assert "is unreadable" in caplog.text and "cannot write" in caplog.text


def test_times_move_between_the_monotonic_and_the_wall_clock_and_old_entries_are_dropped() -> None:
    clocks = ClockReading(monotonic=500.0, wall=1_700_000_500.0)
    on_monotonic = clocks.to_monotonic(MEMORY)
    assert on_monotonic.accepted_from_bots[0].at == 0.0
    assert clocks.to_wall(on_monotonic) == MEMORY
    later = forget_old(MEMORY, now=1_700_000_000.0 + DAY_S, decline_cooldown_s=3600)
    assert later.accepted_from_bots == () and later.matchmaking_declines == ()
    assert later.matchmaking_sent == (1_700_000_100.5, 1_700_000_200.0), "sent less than a day ago"


def bot_challenge(challenge_id: str) -> ChallengeEvent:
    data = json.loads(PYCHESS_CHALLENGE)
    data["challenge"]["id"] = challenge_id
    data["challenge"]["challenger"] = {"name": "Robot", "rating": 1500, "title": "BOT"}
    event = normalise_lobby_line(json.dumps(data))
    assert isinstance(event, ChallengeEvent)
    return event


def test_the_daily_bot_limit_and_matchmaking_declines_survive_a_restart(tmp_path: Path) -> None:
    """A new lobby (a new process: another monotonic clock) reads what the last one wrote."""
    settings = settings_from_dict({"pgn_directory": str(tmp_path), "matchmaking": {"decline_cooldown_s": 7200},
                                   "challenge": {"concurrency": 3, "max_bot_challenges_per_day": 1,
                                                 "decline_message": ""}})
    wall = [1_700_000_000.0]
    server = LobbyServer()
    first = Lobby(server, settings, ME, lambda label: None,  # type: ignore[arg-type]
                  monotonic=lambda: 50.0, wall_clock=lambda: wall[0])
    first._handle(bot_challenge("c1"))
    first.matchmaker.notes.append(DeclineNote("picky", "tooFast", 40.0, "chess", BLITZ))
    first.save_memory_if_changed()
    saved = json.loads((tmp_path / STATE_FILE_NAME).read_text())
    assert saved["accepted_from_bots"] == [{"at": wall[0], "name": "robot"}]
    assert saved["matchmaking"]["declines"][0]["at"] == wall[0] - 10

    wall[0] += 3600  # an hour later, after a reboot: the monotonic clock starts again near 0
    second = Lobby(server, settings, ME, lambda label: None,  # type: ignore[arg-type]
                   monotonic=lambda: 7.0, wall_clock=lambda: wall[0])
    second._handle(bot_challenge("c2"))
    assert server.calls == [("accept", "c1"), ("decline", "c2", "later")]
    assert second.games.accepted_from_bots == [AcceptedBotChallenge(7.0 - 3600, "robot")]
    assert second.matchmaker.notes == [DeclineNote("picky", "tooFast", 7.0 - 3610, "chess", BLITZ)]

    wall[0] += DAY_S
    third = Lobby(server, settings, ME, lambda label: None,  # type: ignore[arg-type]
                  monotonic=lambda: 9.0, wall_clock=lambda: wall[0])
    assert third.games.accepted_from_bots == [] and third.matchmaker.notes == [], "a day later all is forgotten"
    third._handle(bot_challenge("c3"))
    assert server.calls[-1] == ("accept", "c3")


def test_an_unknown_game_action_in_the_file_is_a_clear_error() -> None:
    data = memory_to_json(MEMORY)
    data["games"][0]["action"] = "won"
    with pytest.raises(ValueError, match="games.action is not one of resigned, aborted, ended"):
        memory_from_json(data)


def test_a_resignation_survives_the_bot_and_a_game_offered_again_gets_a_worker_that_plays_nothing(
        tmp_path: Path) -> None:
    """A worker's note is on disk at once; a new lobby (a new process) that gets gameStart for that game starts
    a worker that knows the game is over for us, and does not count it as a game played."""
    settings = settings_from_dict({"pgn_directory": str(tmp_path)})
    first = Lobby(LobbyServer(), settings, ME, lambda label: None,  # type: ignore[arg-type]
                  monotonic=lambda: 10.0, wall_clock=lambda: 1_700_000_000.0)
    first.remember_game(GameNote("RpxjQkJ5", "resigned", "0-1", "Normal", 10.0))
    started: list[tuple[str, object]] = []
    second = Lobby(LobbyServer(), settings, ME, lambda label: None,  # type: ignore[arg-type]
                   monotonic=lambda: 99.0, wall_clock=lambda: 1_700_000_050.0)
    second._start_worker = lambda game_id, revisit, remembered=None: started.append(  # type: ignore[method-assign]
        (game_id, remembered))
    second._handle(GameStart("RpxjQkJ5"))
    assert started == [("RpxjQkJ5", GameNote("RpxjQkJ5", "resigned", "0-1", "Normal", 99.0 - 50.0))]
    second._done.put(GameRecord("RpxjQkJ5", "0-1", "over for us", remembered=True))
    second._reap()
    assert second.games_finished == 0


def test_a_game_note_has_one_serializer_that_round_trips_and_names_a_bad_field() -> None:
    import dataclasses

    import pytest

    from bot.game.record import GameNote

    note = GameNote("hC36PJW1", "resigned", "1-0", "Normal", 1_700_000_000.5, "5f0c2a9e")
    data = note.to_json()
    assert data == {"id": "hC36PJW1", "action": "resigned", "result": "1-0", "termination": "Normal",
                    "at": 1_700_000_000.5, "run": "5f0c2a9e"}
    assert len(data) == len(dataclasses.fields(GameNote))  # every field is written, by the one serializer
    assert GameNote.from_json(data) == note
    assert GameNote.from_json({key: value for key, value in data.items() if key != "termination"}).termination == ""
    assert GameNote.from_json({key: value for key, value in data.items() if key != "run"}).run == "", \
        "a file from before runs were named"
    assert note.shifted(-0.5).at == 1_700_000_000.0
    with pytest.raises(ValueError, match=r"games\.action is not one of resigned, aborted, ended: 'won'"):
        GameNote.from_json({**data, "action": "won"})
    with pytest.raises(ValueError, match=r"games\.at is not a number"):
        GameNote.from_json({**data, "at": "soon"})


def test_a_game_we_just_accepted_is_played_whatever_an_earlier_runs_note_on_its_id_says(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 51: a test server restarted with the same ids offered a game under an id the state file said had
    ended in an earlier run; the bot accepted it and then played nothing. A game accepted after a note was
    written is a new game: the note is dropped (in memory and on disk) and the game is played; the note a game
    played in this run gets names this run, so a later gameStart of the same game is still over for us."""
    caplog.set_level(logging.INFO)
    settings = settings_from_dict({"pgn_directory": str(tmp_path), "challenge": {"variants": ["seirawan"]}})
    first = Lobby(LobbyServer(), settings, ME, lambda label: None,  # type: ignore[arg-type]
                  monotonic=lambda: 10.0, wall_clock=lambda: 1_700_000_000.0)
    first.played_here.add("RpxjQkJ5")
    first.remember_game(GameNote("RpxjQkJ5", "ended", "1-0", "Normal", 10.0))
    assert first.game_notes["RpxjQkJ5"].run == first.run_id
    clock = [99.0]
    second = Lobby(LobbyServer(), settings, ME, lambda label: None,  # type: ignore[arg-type]
                   monotonic=lambda: clock[0], wall_clock=lambda: 1_700_000_050.0)
    assert second.run_id != first.run_id
    started: list[tuple[str, object]] = []
    second._start_worker = lambda game_id, revisit, remembered=None: started.append(  # type: ignore[method-assign]
        (game_id, remembered))
    event = normalise_lobby_line(PYCHESS_CHALLENGE)
    assert isinstance(event, ChallengeEvent)
    second._handle(event)
    assert second.games.accepted_at == {"RpxjQkJ5": 99.0}
    clock[0] = 100.0
    second._handle(GameStart("RpxjQkJ5"))
    assert started == [("RpxjQkJ5", None)], "played as a new game"
    assert "RpxjQkJ5" not in second.game_notes
    assert not load_memory(tmp_path / STATE_FILE_NAME).games, "the old note is gone from the file too"
    assert "game RpxjQkJ5: a new game under an id an earlier run played (we ended, 1-0); the old note is dropped " \
           "and this game is played" in [r.getMessage() for r in caplog.records]
    second.played_here.add("RpxjQkJ5")  # what the real _start_worker does
    clock[0] = 400.0
    second.remember_game(GameNote("RpxjQkJ5", "resigned", "0-1", "Normal", 400.0))
    assert second.game_notes["RpxjQkJ5"].run == second.run_id
    started.clear()
    second._handle(GameStart("RpxjQkJ5"))  # the server restored the game we resigned: over for us
    assert started == [("RpxjQkJ5", second.game_notes["RpxjQkJ5"])]

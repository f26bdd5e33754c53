"""Lichess tournaments, the pure parts: the ``tournaments`` key and ``--tournament``, what the server says about
a tournament, the one line for a refused join, and the pairing's tournament in a ``gameStart``."""

from __future__ import annotations

import pytest

from bot.app.logsetup import configuration_block
from bot.app.preflight import load_run_settings
from bot.config import ConfigError, TournamentEntry, settings_from_dict
from bot.wire.dialect import LICHESS, PYCHESS
from bot.wire.events import GameStart
from bot.wire.normalise import normalise_lobby_line
from bot.wire.tournaments import parse_tournament, refusal_line, refusal_passes, tournaments_unsupported


def test_tournaments_are_ids_addresses_or_mappings_with_team_and_entry_code() -> None:
    settings = settings_from_dict({"tournaments": [
        "abcd1234", "https://lichess.org/tournament/EFGH5678", "https://lichess.org/swiss/ijkl9012/",
        {"id": "mnop3456", "team": "my-team", "password": "code"}, "abcd1234"]})
    assert settings.tournaments == (
        TournamentEntry("abcd1234"), TournamentEntry("EFGH5678", kind="arena"),
        TournamentEntry("ijkl9012", kind="swiss"), TournamentEntry("mnop3456", team="my-team", password="code"))
    assert "code" not in repr(settings.tournaments[3]), "the entry code stays out of reprs"


@pytest.mark.parametrize(("value", "message"), [
    (["abc"], "config error: tournaments[0].id must be a tournament's 8-character id (the end of its address, "
              "lichess.org/tournament/ID or lichess.org/swiss/ID) or that address, got 'abc'"),
    ("abcd1234", "config error: tournaments must be a list of tournament ids, or of {id, team, password} "
                 "mappings, got 'abcd1234'"),
    ([{"team": "t"}], "config error: tournaments[0].id is missing: the tournament's 8-character id"),
    ([{"id": "abcd1234", "passwd": "x"}], "config error: unknown key tournaments[0].passwd; did you mean "
                                          "tournaments[0].password?"),
])
def test_a_wrong_tournament_entry_names_its_place(value: object, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        settings_from_dict({"tournaments": value})
    assert str(error.value) == message


def test_the_command_line_adds_tournaments_to_the_configs(tmp_path) -> None:  # type: ignore[no-untyped-def]
    config = tmp_path / "config.yml"
    config.write_text("tournaments: [abcd1234]\n")
    settings = load_run_settings(str(config), tournaments=["abcd1234", "https://lichess.org/swiss/wxyz0000"])
    assert [(entry.id, entry.kind) for entry in settings.tournaments] == [("abcd1234", "auto"), ("wxyz0000", "swiss")]
    with pytest.raises(ConfigError, match=r"^config error: --tournament must be a tournament's 8-character id"):
        load_run_settings(str(config), tournaments=["x"])


def test_the_effective_configuration_hides_an_entry_code() -> None:
    block = configuration_block(settings_from_dict({"tournaments": [{"id": "abcd1234", "password": "s3cret"}]}))
    assert "s3cret" not in block and "password: '[hidden]'" in block


def test_a_tournament_is_read_from_lichess_answers() -> None:
    arena = parse_tournament({"id": "abcd1234", "fullName": "Bot Arena", "clock": {"limit": 180, "increment": 2},
                              "variant": "standard", "rated": True, "isStarted": True, "secondsToFinish": 600,
                              "verdicts": {"list": [{"condition": "Bot players are allowed", "verdict": "ok"},
                                                    {"condition": "Rated ≥ 1800 in Blitz",
                                                     "verdict": "Your Blitz rating (1500) is too low"}],
                                           "accepted": False}}, "arena")
    assert arena.describe() == "arena 'Bot Arena' (3+2 standard, rated, running)"
    assert arena.refusals == ("Your Blitz rating (1500) is too low (Rated ≥ 1800 in Blitz)",)
    swiss = parse_tournament({"id": "wxyz0000", "name": "Weekly", "clock": {"limit": 30, "increment": 0},
                              "variant": {"key": "chess960"}, "status": "finished"}, "swiss")
    assert swiss.over and swiss.describe() == "swiss 'Weekly' (0.5+0 chess960, casual, finished)"


def test_a_refused_join_is_one_line_with_the_fix() -> None:
    restricted = parse_tournament({"id": "abcd1234", "verdicts": {"list": [
        {"condition": "Bot players are not allowed", "verdict": "Bot players are not allowed"}]}}, "arena")
    battle = parse_tournament({"id": "abcd1234", "teamBattle": {"teams": {}}}, "arena")
    assert refusal_line("Tournament restrictions", restricted) == "Bot players are not allowed"
    assert refusal_line("Missing team", None).startswith("a team battle: name the bot's team (team: in tournaments)")
    assert refusal_line("Tournament restrictions", battle).startswith("a team battle")
    assert refusal_line("Wrong entry code", None).startswith("a private tournament: its entry code is")
    assert refusal_line("You are not allowed to join arenas", None) == "You are not allowed to join arenas"
    assert refusal_passes("Your pause is not over yet") and not refusal_passes("Missing team")


def test_pychess_refuses_tournaments_and_lichess_takes_them() -> None:
    assert tournaments_unsupported(LICHESS, "https://lichess.org") is None
    assert tournaments_unsupported(PYCHESS, "https://www.pychess.org/") == (
        "tournaments: https://www.pychess.org (pychess dialect) lets no BOT into its tournaments; remove the "
        "tournaments key (and --tournament) for this server")


def test_a_pairings_game_start_names_its_tournament() -> None:
    arena = normalise_lobby_line('{"type":"gameStart","game":{"gameId":"g1","source":"arena","tournamentId":'
                                 '"abcd1234","color":"white"}}')
    swiss = normalise_lobby_line('{"type":"gameStart","game":{"gameId":"g2","source":"swiss","swissId":"wxyz0000"}}')
    plain = normalise_lobby_line('{"type":"gameStart","game":{"gameId":"g3","source":"friend"}}')
    assert isinstance(arena, GameStart) and arena.tournament_id == "abcd1234"
    assert isinstance(swiss, GameStart) and swiss.tournament_id == "wxyz0000"
    assert isinstance(plain, GameStart) and plain.tournament_id is None


def test_the_sandbox_refuses_tournament_as_it_refuses_games(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.app.cli import main

    assert main(["--sandbox", "--tournament", "abcd1234"]) == 2
    assert capsys.readouterr().err.strip() == ("error: --tournament cannot be used with --sandbox (it checks the "
                                               "config itself, then plays one game)")


def test_the_sandbox_plays_without_the_configs_tournaments() -> None:
    """The sandbox's server speaks the pychess dialect, which refuses the key: a config with Lichess
    tournaments must still play its sandbox game."""
    from bot.app.sandbox import sandbox_settings

    settings = settings_from_dict({"tournaments": ["abcd1234"]})
    assert sandbox_settings(settings, "http://127.0.0.1:1", "games")[0].tournaments == ()

"""Command-line parsing and settings validation of the match runner."""

from __future__ import annotations

import pytest

from tools.match.cli import build_parser, settings_from_args
from tools.match.settings import SearchBudget, is_start_position, parse_clock, parse_option


@pytest.mark.parametrize(
    "text, expected",
    [("30+0.3", (30000, 300)), ("60", (60000, 0)), ("0.5+0.01", (500, 10)), (" 10 + 1 ", (10000, 1000))],
)
def test_parse_clock(text: str, expected: tuple) -> None:
    assert parse_clock(text) == expected


@pytest.mark.parametrize("text", ["", "40/60", "30+", "+1", "abc", "0+1", "-5+1"])
def test_parse_clock_rejects_bad_input(text: str) -> None:
    with pytest.raises(ValueError):
        parse_clock(text)


def test_parse_option_keeps_spaces_in_names() -> None:
    assert parse_option("Skill Level=3") == ("Skill Level", "3")
    assert parse_option("UCI_Variant = seirawan") == ("UCI_Variant", "seirawan")
    with pytest.raises(ValueError, match="Name=Value"):
        parse_option("Skill Level 3")


def test_time_control_needs_a_limit_and_no_conflicts() -> None:
    with pytest.raises(ValueError, match="needs"):
        SearchBudget()
    with pytest.raises(ValueError, match="exclude"):
        SearchBudget(base_ms=1000, movetime_ms=100)
    assert SearchBudget(30000, 300).pgn_tag() == "30+0.3"
    assert SearchBudget(movetime_ms=500, depth=3).pgn_tag() == "0.5/move, depth 3"


def test_start_position_ignores_hand_order() -> None:
    assert is_start_position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] w KQBCDFGkqbcdfg - 0 1", "seirawan")
    assert not is_start_position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Hhe] w KQBCDFGkqbcdfg - 0 1", "seirawan")


def test_command_line_builds_settings() -> None:
    args = build_parser().parse_args(
        [
            "--engine1",
            "/usr/games/fairy-stockfish",
            "--engine1-option",
            "Skill Level=3",
            "--engine2",
            "python -m engine",
            "--option",
            "Hash=16",
            "--games",
            "40",
            "--tc",
            "30+0.3",
            "--concurrency",
            "2",
            "--openings",
            "book.epd",
            "--shuffle",
            "--seed",
            "5",
            "--max-plies",
            "300",
        ]
    )
    settings = settings_from_args(args)
    assert settings.engine1.command == ("/usr/games/fairy-stockfish",)
    assert settings.engine1.options == (("Hash", "16"), ("Skill Level", "3"))
    assert settings.engine2.command == ("python", "-m", "engine")
    assert settings.time_control == SearchBudget(30000, 300)
    assert (settings.games, settings.concurrency, settings.seed, settings.shuffle_openings) == (
        40,
        2,
        5,
        True,
    )
    assert settings.adjudication.max_plies == 300 and settings.adjudication.resign_score is None


def test_command_line_rejects_a_match_without_time_control(capsys: pytest.CaptureFixture[str]) -> None:
    from tools.match.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--engine1", "a", "--engine2", "b"])
    assert exit_info.value.code == 2
    assert "time control needs" in capsys.readouterr().err

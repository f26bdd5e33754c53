"""Config loading: the shipped file, errors that name the key, and the token's sources."""

from __future__ import annotations

import dataclasses
import logging
import os
import typing
from pathlib import Path

import pytest
import yaml

from bot.config import (
    ConfigError,
    Settings,
    TokenError,
    config_key,
    load_settings,
    resolve_token,
    settings_from_dict,
)
from engine import variants
from engine.variants import VARIANT_NAMES

REPO = Path(__file__).resolve().parents[2]


def test_shipped_config_loads_and_equals_the_defaults():
    assert load_settings(REPO / "config.yml") == Settings()


def test_an_empty_file_gives_the_defaults():
    assert settings_from_dict({}) == Settings()
    assert settings_from_dict(None) == Settings()


def setting_keys(cls: type = Settings, prefix: str = "") -> set[str]:
    """Every key path the settings dataclasses read (sub-sections are walked, not listed themselves)."""
    keys: set[str] = set()
    hints = typing.get_type_hints(cls)
    for item in dataclasses.fields(cls):
        path = prefix + config_key(item)
        if dataclasses.is_dataclass(hints[item.name]):
            keys |= setting_keys(hints[item.name], path + ".")
        else:
            keys.add(path)
    return keys


def yaml_keys(data: dict, prefix: str = "") -> set[str]:
    """Key paths in a YAML mapping; a mapping that is itself a setting's value (engine options, book files)
    counts as one key."""
    keys: set[str] = set()
    for name, value in data.items():
        path = prefix + str(name)
        if isinstance(value, dict) and path not in ("engine.options", "engine.polyglot.book"):
            keys |= yaml_keys(value, path + ".")
        else:
            keys.add(path)
    return keys


def test_shipped_config_has_every_key_and_nothing_else():
    shipped = yaml_keys(yaml.safe_load((REPO / "config.yml").read_text()))
    expected = setting_keys()
    assert not expected - shipped, f"keys missing from config.yml: {sorted(expected - shipped)}"
    assert not shipped - expected, f"config.yml keys the bot does not read: {sorted(shipped - expected)}"


def test_the_variant_choices_are_the_engines_variants_and_standard_means_chess():
    assert VARIANT_NAMES is variants.VARIANT_NAMES  # one table: the engine's
    settings = settings_from_dict({"challenge": {"variants": ["standard", "seirawan960", "chess"]}})
    assert settings.challenge.variants == ("chess", "seirawan960")
    with pytest.raises(ConfigError, match=r"challenge\.variants must be a list of seirawan, seirawan960, shouse, "
                                          r"chess, chess960, seirawan-placement, seirawan-forced-entry "
                                          r"\(or standard\), got 'crazyhouse'"):
        settings_from_dict({"challenge": {"variants": ["crazyhouse"]}})


def test_shipped_config_comments_every_key():
    """Each key has an inline comment or sits in a block (no blank line) that a comment opens."""
    covered = False
    for line in (REPO / "config.yml").read_text().splitlines():
        stripped = line.strip()
        if not stripped:
            covered = False
        elif stripped.startswith("#"):
            covered = True
        else:
            assert covered or "#" in line or stripped.endswith(":"), f"undocumented key: {stripped}"


def test_values_are_read_into_typed_settings():
    settings = settings_from_dict({
        "server": {"url": "http://127.0.0.1:8080/", "dialect": "pychess"},
        "engine": {"command": "/usr/games/fairy-stockfish", "options": {"Hash": 16, "Threads": 1}},
        "challenge": {"concurrency": 2, "variants": ["seirawan"], "block_list": ["Mallory"]},
        "draw": {"enabled": False},
        "pgn_directory": None,
    })
    assert settings.server.url == "http://127.0.0.1:8080"
    assert settings.engine.command_line() == ["/usr/games/fairy-stockfish"]
    assert settings.challenge.concurrency == 2 and settings.challenge.block_list == ("mallory",)
    assert settings.draw.enabled is False and settings.pgn_directory is None
    assert settings_from_dict({"greeting": {"hello": None}}).greeting.hello == ""
    assert settings_from_dict({"engine": {"command": ["/usr/games/fairy-stockfish", "--x"]}}).engine.command == (
        "/usr/games/fairy-stockfish --x")


def test_challenger_filters_are_read_and_off_by_default():
    assert Settings().challenge.max_rating_diff is None and Settings().challenge.reserve_for_humans == 0
    settings = settings_from_dict({"challenge": {
        "concurrency": 3, "min_rating": 1200, "max_rating": 2400, "max_rating_diff": 400, "reserve_for_humans": 1,
        "max_games_per_user": 2, "max_challenges_per_bot_per_hour": 3, "max_bot_challenges_per_day": 50,
        "bullet_requires_increment": True}}).challenge
    assert (settings.min_rating, settings.max_rating, settings.max_rating_diff) == (1200, 2400, 400)
    assert (settings.reserve_for_humans, settings.max_games_per_user) == (1, 2)
    assert (settings.max_challenges_per_bot_per_hour, settings.max_bot_challenges_per_day) == (3, 50)
    assert settings.bullet_requires_increment is True
    assert settings_from_dict({"challenge": {"max_games_per_user": None}}).challenge.max_games_per_user is None


def test_builtin_engine_runs_under_the_configured_interpreter():
    settings = settings_from_dict({"engine": {"interpreter": "pypy3"}})
    assert settings.engine.command_line() == ["pypy3", "-m", "engine"]


@pytest.mark.parametrize(("data", "message"), [
    ({"challenge": {"concurrency": "x"}},
     "config error: challenge.concurrency must be a positive integer, got 'x'"),
    ({"challenge": {"concurrency": 0}},
     "config error: challenge.concurrency must be a positive integer, got 0"),
    ({"challenge": {"variants": ["seirawan", "crazyhouse"]}},
     "config error: challenge.variants must be a list"),
    ({"challenge": {"speedz": []}}, "config error: unknown key challenge.speedz"),
    ({"server": {"url": "www.pychess.org"}},
     "config error: server.url must be an http:// or https:// origin"),
    ({"server": {"dialect": "fics"}}, "config error: server.dialect must be one of auto, lichess, pychess"),
    ({"engine": {"limits": {"depth": -1}}}, "config error: engine.limits.depth must be a positive integer"),
    ({"draw": {"enabled": "yes"}}, "config error: draw.enabled must be true or false, got 'yes'"),
    ({"shutdown": {"on_signal": "panic"}}, "config error: shutdown.on_signal must be one of finish, abort"),
    ({"challenge": {"min_base_s": 60, "max_base_s": 30}},
     "config error: challenge.min_base_s must be at most challenge.max_base_s (30), got 60"),
    ({"server": []}, "config error: server must be a mapping"),
    ({"challenge": {"min_rating": -1}}, "config error: challenge.min_rating must be a non-negative integer, got -1"),
    ({"challenge": {"min_rating": 2000, "max_rating": 1500}},
     "config error: challenge.min_rating must be at most challenge.max_rating (1500), got 2000"),
    ({"challenge": {"max_rating_diff": -5}},
     "config error: challenge.max_rating_diff must be a non-negative integer or null, got -5"),
    ({"challenge": {"reserve_for_humans": 2}},
     "config error: challenge.reserve_for_humans must be at most challenge.concurrency (1), got 2"),
    ({"challenge": {"reserve_for_humans": "1"}},
     "config error: challenge.reserve_for_humans must be a non-negative integer, got '1'"),
    ({"challenge": {"max_games_per_user": 0}},
     "config error: challenge.max_games_per_user must be a positive integer or null, got 0"),
    ({"challenge": {"max_challenges_per_bot_per_hour": 1.5}},
     "config error: challenge.max_challenges_per_bot_per_hour must be a positive integer or null, got 1.5"),
    ({"challenge": {"max_bot_challenges_per_day": True}},
     "config error: challenge.max_bot_challenges_per_day must be a positive integer or null, got True"),
    ({"challenge": {"speeds": "blitz"}}, "config error: challenge.speeds must be a list of strings, got 'blitz'"),
    ({"server": {"request_timeout_s": 0}},
     "config error: server.request_timeout_s must be a number >= 0.1 (seconds), got 0"),
    ({"resign": {"score_cp": "lots"}},
     "config error: resign.score_cp must be an integer (centipawns, negative), got 'lots'"),
    ({"pgn_directory": 3}, "config error: pgn_directory must be a string or null, got 3"),
    ({"matchmaking": {"variants": []}},
     "config error: matchmaking.variants must be a non-empty list of seirawan, seirawan960, shouse, chess, chess960"),
    ({"matchmaking": {"time_controls": []}},
     "config error: matchmaking.time_controls must be a non-empty list of {base_s, increment_s} or {days}"),
    ({"takebackz": {}}, "config error: unknown key takebackz"),
    ([], "config error: the file must be a mapping"),
    ({"challenge": {"bullet_requires_increment": "yes"}},
     "config error: challenge.bullet_requires_increment must be true or false, got 'yes'"),
])
def test_invalid_values_name_the_key(data, message):
    with pytest.raises(ConfigError) as error:
        settings_from_dict(data)
    assert str(error.value).startswith(message)


def test_invalid_yaml_is_a_one_line_config_error(tmp_path):
    path = tmp_path / "bad.yml"
    path.write_text("server:\n  url: [unclosed\n")
    with pytest.raises(ConfigError, match=r"^config error: .*bad.yml is not valid YAML"):
        load_settings(path)


def test_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_settings(tmp_path / "nope.yml")


def test_token_comes_from_the_environment_first(tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text("file-token\n")
    os.chmod(token_file, 0o600)
    settings = settings_from_dict({"token_file": str(token_file)})
    assert resolve_token(settings, {"SCHESS_BOT_TOKEN": "env-token"}) == "env-token"
    assert resolve_token(settings, {}) == "file-token"


def test_token_file_readable_by_others_warns(tmp_path, caplog):
    token_file = tmp_path / "token"
    token_file.write_text("lip_secret")
    os.chmod(token_file, 0o644)
    with caplog.at_level(logging.WARNING):
        assert resolve_token(settings_from_dict({"token_file": str(token_file)}), {}) == "lip_secret"
    assert "chmod 600" in caplog.text and "lip_secret" not in caplog.text


def test_missing_token_is_a_token_error():
    with pytest.raises(TokenError, match="SCHESS_BOT_TOKEN"):
        resolve_token(Settings(), {})

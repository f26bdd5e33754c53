"""Issue 62, a newcomer's path without traps: the start-up fits on a screen, a bad token against a test server
is told where its token comes from, a clock written where a mapping belongs gets the mapping it means, the
config's problems come in the file's order, and the sandbox is quiet from its first instant."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from bot.app.cli import main
from bot.app.logsetup import changed_keys, configuration_block, configuration_summary
from bot.config import ConfigError, Settings, settings_from_dict
from bot.wire.dialect import LICHESS, PYCHESS


def problems(data: Any) -> list[str]:
    with pytest.raises(ConfigError) as error:
        settings_from_dict(data)
    return list(error.value.problems)


def test_the_configuration_summary_names_the_keys_that_differ_from_the_defaults_in_order() -> None:
    settings = settings_from_dict({"server": {"url": "http://127.0.0.1:8765"},
                                   "challenge": {"concurrency": 2, "variants": ["seirawan"]},
                                   "engine": {"limits": {"depth": 3}}})
    assert changed_keys(settings) == ["server.url", "engine.limits.depth", "challenge.concurrency",
                                      "challenge.variants"]
    summary = configuration_summary(settings)
    assert summary == ("configuration: accepts seirawan, 2 games at a time; matchmaking off; 4 keys differ from the "
                       "defaults (server.url, engine.limits.depth, challenge.concurrency, challenge.variants); the "
                       "effective configuration is logged at DEBUG")
    assert "\n" not in summary
    assert "every key at its default" in configuration_summary(Settings())


def test_the_configuration_summary_stops_naming_keys_after_eight() -> None:
    settings = settings_from_dict({"server": {"url": "http://x", "request_timeout_s": 3, "stream_timeout_s": 4},
                                   "greeting": {"hello": "hi", "goodbye": "bye"}, "time": {"move_overhead_ms": 50},
                                   "pgn_directory": "elsewhere", "heartbeat_file": "hb", "token_file": "tok"})
    assert len(changed_keys(settings)) == 9
    assert "(server.url, " in configuration_summary(settings)
    assert " and 1 more)" in configuration_summary(settings)


def test_the_effective_configuration_is_the_whole_settings_as_yaml() -> None:
    settings = settings_from_dict({"engine": {"limits": {"depth": 3}}})
    block = configuration_block(settings)
    assert block.startswith("effective configuration:\n  server:\n")
    assert yaml.safe_load(block.split("\n", 1)[1])["engine"]["limits"]["depth"] == 3


def test_a_bad_token_against_a_server_on_this_machine_is_told_the_token_it_was_started_with() -> None:
    for dialect in (PYCHESS, LICHESS):
        for url in ("http://127.0.0.1:8765", "http://localhost:8765/", "http://[::1]:8765"):
            hint = dialect.token_help(url)
            assert "the token it was started with" in hint and "python -m bot.loopback" in hint, (dialect, url)
            assert "/account" not in hint
    assert PYCHESS.token_help("https://www.pychess.org/").endswith(
        "create one at https://www.pychess.org/account/bot (a Lichess token is not accepted)")
    assert "https://lichess.org/account/oauth/token" in LICHESS.token_help("https://lichess.org")
    assert "10.0.0.5:8080/account/bot" in PYCHESS.token_help("http://10.0.0.5:8080"), "a server of one's own"


def test_a_clock_written_as_text_in_time_controls_gets_the_mapping_it_means() -> None:
    assert problems({"matchmaking": {"time_controls": ["3+2", {"base_s": 60}]}}) == [
        "config error: matchmaking.time_controls[0] must be a mapping {base_s, increment_s} or {days}, got '3+2'; "
        "3+2 is {base_s: 180, increment_s: 2}"]
    assert problems({"matchmaking": {"overrides": {"chess": {"time_controls": ["x"]}}}}) == [
        "config error: matchmaking.overrides.chess.time_controls[0] must be a mapping {base_s, increment_s} or "
        "{days}, got 'x'"]


def test_config_problems_are_listed_in_the_order_of_the_file() -> None:
    data = {"challengez": {}, "server": {"url": 3, "dialectt": "pychess", "request_timeout_s": "x"},
            "challenge": {"concurrency": 0, "queue_sise": 1, "modes": ["rated"]}, "resign": {"enabled": "yes"}}
    assert [line.split(" must ")[0].split(";")[0] for line in problems(data)] == [
        "config error: unknown key challengez",
        "config error: server.url",
        "config error: unknown key server.dialectt",
        "config error: server.request_timeout_s",
        "config error: challenge.concurrency",
        "config error: unknown key challenge.queue_sise",
        "config error: resign.enabled",
    ]


@pytest.fixture
def root_level() -> Iterator[None]:
    root = logging.getLogger()
    level = root.level
    yield
    root.setLevel(level)


@pytest.mark.usefixtures("root_level")
@pytest.mark.parametrize(("arguments", "info_shown"), [([], False), (["--log-level", "debug"], True)])
def test_the_sandbox_shows_warnings_only_from_its_first_instant(monkeypatch: pytest.MonkeyPatch,
                                                               arguments: list[str], info_shown: bool) -> None:
    """A signal during the sandbox's checks logs ``received SIGTERM`` at INFO: the terminal must be at WARNING
    before the checks run, not only once the game starts."""
    import bot.app.sandbox as sandbox

    seen: list[bool] = []

    def fake_sandbox(args: Any, stop: Any = None) -> int:
        seen.append(logging.getLogger("bot").isEnabledFor(logging.INFO))
        return 0

    monkeypatch.setattr(sandbox, "run_sandbox", fake_sandbox)
    assert main(["--sandbox", *arguments]) == 0
    assert seen == [info_shown]

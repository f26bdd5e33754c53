"""``engine.protocol: homemade``: a Python class behind the bot's engine interface, with the same deadlines,
crash handling and start-up check as an engine process."""

from __future__ import annotations

import pytest

from bot.config import ConfigError, settings_from_dict
from bot.engines import EngineCrashed, EngineStartError, EngineTimeout
from bot.engines.check import EngineCheckFailed
from bot.engines.homemade import Clocks, HomemadeClient, load_engine_class
from bot.engines.homemade_example import MaterialGreedy, material
from bot.engines.limits import GoLimits
from engine import Board
from engine.variants import START_FENS
from tests.bot import homemade_fixtures

LIMITS = GoLimits(wtime_ms=60_000, btime_ms=55_000, winc_ms=1000, binc_ms=1000, deadline_ms=5_000)


def test_a_class_is_named_as_package_module_colon_class_and_must_be_a_homemade_engine() -> None:
    assert load_engine_class("tests.bot.homemade_fixtures:FirstMove") is homemade_fixtures.FirstMove
    with pytest.raises(EngineStartError, match="package.module:ClassName"):
        load_engine_class("tests.bot.homemade_fixtures")
    with pytest.raises(EngineStartError, match="cannot import 'no.such'"):
        load_engine_class("no.such:Engine")
    with pytest.raises(EngineStartError, match="not a subclass"):
        load_engine_class("tests.bot.homemade_fixtures:NotAnEngine")


def test_the_config_wants_a_class_for_the_homemade_protocol() -> None:
    settings = settings_from_dict({"engine": {"protocol": "homemade", "command": "my.pkg:Engine"}})
    assert settings.engine.protocol == "homemade"
    with pytest.raises(ConfigError, match="engine.command must be package.module:ClassName"):
        settings_from_dict({"engine": {"protocol": "homemade"}})


def test_the_engine_gets_the_position_and_both_clocks_and_its_move_comes_back_as_uci() -> None:
    seen: list[tuple[str, Clocks]] = []

    class Recorder(homemade_fixtures.FirstMove):
        def choose_move(self, board: Board, clocks: Clocks) -> str:
            seen.append((board.fen(), clocks))
            return super().choose_move(board, clocks)

    homemade_fixtures.Recorder = Recorder  # type: ignore[attr-defined]
    client = HomemadeClient("tests.bot.homemade_fixtures:Recorder")
    client.set_variant("seirawan", False)
    client.new_game()
    reply = client.search(START_FENS["seirawan"], ["g1f3h"], LIMITS)
    fen, clocks = seen[0]
    after = Board(variant="seirawan")
    after.push_uci("g1f3h")
    assert fen == after.fen()
    assert clocks.ours(False) == 55_000 and clocks.white_ms == 60_000 and clocks.black_increment_ms == 1000
    assert reply.bestmove == min(move.uci() for move in after.legal_moves)


def test_an_exception_is_a_crash_and_a_late_answer_a_timeout() -> None:
    client = HomemadeClient("tests.bot.homemade_fixtures:Breaks")
    homemade_fixtures.Breaks.calls = 2
    with pytest.raises(EngineCrashed, match="RuntimeError: my engine has a bug"):
        client.search(START_FENS["chess"], [], LIMITS)
    homemade_fixtures.RELEASE.clear()
    sleeper = HomemadeClient("tests.bot.homemade_fixtures:Sleeper")
    try:
        with pytest.raises(EngineTimeout, match="did not answer within 50 ms"):
            sleeper.search(START_FENS["chess"], [], GoLimits(deadline_ms=50))
        assert sleeper.restarts == 1, "a fresh instance for the next move"
    finally:
        homemade_fixtures.RELEASE.set()


def test_the_start_up_check_loads_the_class_and_refuses_one_that_does_not_load() -> None:
    from bot.app.run import check_configured_engine

    good = settings_from_dict({"engine": {"protocol": "homemade",
                                          "command": "bot.engines.homemade_example:MaterialGreedy"}})
    _settings, found = check_configured_engine(good)
    assert found.id_name == MaterialGreedy.name and "seirawan960" in found.playable
    bad = settings_from_dict({"engine": {"protocol": "homemade", "command": "no.such:Engine"}})
    with pytest.raises(EngineCheckFailed, match="'no.such:Engine'.*cannot import 'no.such'"):
        check_configured_engine(bad)


def test_the_example_mates_in_one_and_takes_the_queen() -> None:
    engine = MaterialGreedy()
    clocks = Clocks(60_000, 60_000, 0, 0, None, None, 5_000)
    mate = Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", variant="chess")
    assert engine.choose_move(mate, clocks).move.uci() == "a1a8"
    queen = Board("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1", variant="chess")
    answer = engine.choose_move(queen, clocks)
    assert answer.move.uci() == "e4d5" and answer.score_cp == material(queen, True) + 900 == 100

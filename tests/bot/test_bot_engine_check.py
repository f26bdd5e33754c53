"""What the start-up engine check reads off an engine's handshake."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bot.engines import UciEngine, parse_option
from bot.engines.check import EngineCheckFailed, check_engine, uci_playable, xboard_playable
from tests.timing import STARTUP_S

FAKE = str(Path(__file__).with_name("fake_uci.py"))
FAIRY_STOCKFISH_VARIANT = ("option name UCI_Variant type combo default chess var 3check var capablanca var chess "
                           "var crazyhouse var seirawan var shouse")


def advertised(*lines: str) -> dict[str, object]:
    options = [parse_option(line) for line in lines]
    return {option.name.lower(): option for option in options if option is not None}


def test_fairy_stockfish_plays_every_variant_with_uci_chess960() -> None:
    found = uci_playable(advertised(FAIRY_STOCKFISH_VARIANT, "option name UCI_Chess960 type check default false"))
    assert found == {"seirawan", "seirawan960", "shouse", "chess", "chess960"}


def test_a_960_variant_needs_uci_chess960() -> None:
    assert uci_playable(advertised(FAIRY_STOCKFISH_VARIANT)) == {"seirawan", "shouse", "chess"}


def test_a_plain_uci_engine_plays_chess_and_with_uci_chess960_chess960_only() -> None:
    assert uci_playable(advertised("option name Hash type spin default 16 min 1 max 64")) == {"chess"}
    assert uci_playable(advertised("option name UCI_Chess960 type check default false")) == {"chess", "chess960"}


def test_xboard_variants_map_to_the_bots_names_and_s_chess960_has_none() -> None:
    assert xboard_playable(["normal", "seirawan", "fischerandom", "crazyhouse"]) == {"seirawan", "chess",
                                                                                   "chess960"}
    assert xboard_playable(["normal"]) == {"chess"}


def make_fake(mode: str) -> object:
    return lambda label: UciEngine([sys.executable, FAKE, mode], {}, label=label, startup_timeout_s=STARTUP_S)


def test_the_check_refuses_a_variant_the_engine_lacks_and_names_the_fix() -> None:
    with pytest.raises(EngineCheckFailed) as caught:
        check_engine("fake plain", "uci", make_fake("plain"), ("seirawan", "chess"), drop_unplayable=False,
                     startup_timeout_s=STARTUP_S)
    message = str(caught.value)
    assert "'fake plain'" in message and "cannot play seirawan:" in message and "UCI_Variant" in message
    assert "drop_unplayable_variants" in message and "\n" not in message


def test_dropping_keeps_the_playable_variants_and_refuses_when_none_is_left() -> None:
    found = check_engine("fake plain", "uci", make_fake("plain"), ("seirawan", "chess"), drop_unplayable=True,
                         startup_timeout_s=STARTUP_S)
    assert found.accepted == ("chess",) and found.dropped == ("seirawan",) and found.id_name == "FakeUCI plain"
    with pytest.raises(EngineCheckFailed, match="cannot play seirawan, seirawan960"):
        check_engine("fake plain", "uci", make_fake("plain"), ("seirawan", "seirawan960"), drop_unplayable=True,
                     startup_timeout_s=STARTUP_S)


def test_the_default_hash_is_not_an_error_for_an_engine_without_it_but_a_set_option_is() -> None:
    from bot.engines.check import option_problems
    from bot.engines.uci import parse_option

    advertised = {option.name.lower(): option for option in (
        parse_option("option name UCI_Variant type combo default chess var chess var seirawan"),)}
    defaults = {"Hash": 64}
    assert option_problems({"Hash": 64}, advertised, defaults=defaults) == []  # the shipped default, not asked for
    assert option_problems({"Hash": 128}, advertised, defaults=defaults) == [
        ("engine.options.Hash", "the engine has no option 'Hash'; its options: UCI_Variant")]
    # An engine that has the option: the default is checked against its range like any value.
    hashed = {"hash": parse_option("option name Hash type spin default 16 min 1 max 32")}
    assert option_problems({"Hash": 64}, hashed, defaults=defaults) == [
        ("engine.options.Hash", "must be from 1 to 32 (the engine's range for Hash), got 64")]
    assert option_problems({"Hash": 16}, hashed, defaults=defaults) == []

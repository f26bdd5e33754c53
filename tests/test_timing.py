"""The suite's waits: ``tests.timing.wait_until`` fails loudly on its deadline, on an injected clock; the bot's
fixed waits come in a ``Timing`` the tests hand over, never by changing a module's constant."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.config import PRODUCTION_TIMING, Timing
from tests.timing import wait_until

TESTS = Path(__file__).resolve().parent


class FakeClock:
    """``monotonic`` and ``sleep`` on a clock only the test moves (sleeping moves it)."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_wait_until_returns_the_conditions_value_once_it_holds() -> None:
    clock = FakeClock()
    answers = iter([None, 0, [], "ready"])
    value = wait_until(lambda: next(answers), "the answer", 10.0, poll_s=1.0, clock=clock.monotonic,
                       sleep=clock.sleep)
    assert value == "ready"
    assert clock.sleeps == [1.0, 1.0, 1.0], "polled three times before the value came"


def test_wait_until_does_not_sleep_when_the_condition_holds_at_once() -> None:
    clock = FakeClock()
    assert wait_until(lambda: True, "nothing", 10.0, clock=clock.monotonic, sleep=clock.sleep) is True
    assert clock.sleeps == []


def test_wait_until_raises_naming_what_it_waited_for_once_the_deadline_passes() -> None:
    clock = FakeClock()
    with pytest.raises(AssertionError, match=r"timed out after 5 s waiting for the bot's greeting"):
        wait_until(lambda: False, "the bot's greeting", 5.0, poll_s=1.0, clock=clock.monotonic, sleep=clock.sleep)
    assert clock.now == pytest.approx(105.0), "it waited out the whole deadline, and no longer"


def test_wait_until_asks_a_callable_what_at_the_deadline_for_what_it_saw() -> None:
    clock = FakeClock()
    seen: list[int] = []

    def condition() -> bool:
        seen.append(len(seen))
        return False

    with pytest.raises(AssertionError, match=r"waiting for 3 items \(got \[0, 1, 2\]\)"):
        wait_until(condition, lambda: f"3 items (got {seen})", 2.0, poll_s=1.0, clock=clock.monotonic,
                   sleep=clock.sleep)


def test_production_timing_is_the_defaults() -> None:
    assert PRODUCTION_TIMING == Timing()
    assert (PRODUCTION_TIMING.rate_limit_pause_s, PRODUCTION_TIMING.startup_retry_s,
            PRODUCTION_TIMING.quiet_page_check_s) == (60.0, 300.0, 60.0)


def test_a_timing_refuses_a_negative_wait_and_a_first_quiet_check_after_the_longest() -> None:
    with pytest.raises(ValueError, match="flag_grace_s"):
        Timing(flag_grace_s=-1.0)
    with pytest.raises(ValueError, match="quiet_first_check_s"):
        Timing(quiet_page_check_s=1.0)  # the first quiet check (10 s) would come after the longest gap


#: ``monkeypatch.setattr(module, "NAME", ...)`` or ``monkeypatch.setattr("package.module.NAME", ...)``
CONSTANT_PATCH = re.compile(r"""setattr\(\s*(?:[\w.]+\s*,\s*["'][A-Z][A-Z0-9_]*["']|["'][\w.]+\.[A-Z][A-Z0-9_]*["'])""")


def test_no_test_changes_a_modules_constant() -> None:
    """A wait the tests shorten is a field of the ``Timing`` they hand the bot, not a module constant a test
    patches and the code must then read at call time."""
    found = [f"{path.relative_to(TESTS.parent)}:{number}: {line.strip()}"
             for path in sorted(TESTS.rglob("*.py")) if path != Path(__file__)
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if CONSTANT_PATCH.search(line)]
    assert not found, "\n".join(found)


def test_the_constant_patch_scan_sees_both_forms() -> None:
    assert CONSTANT_PATCH.search('monkeypatch.setattr("bot.wire.ratelimit.RATE_LIMIT_PAUSE_S", 0.5)')
    assert CONSTANT_PATCH.search('monkeypatch.setattr(watch, "FLAG_GRACE_S", 1.0)')
    assert not CONSTANT_PATCH.search('monkeypatch.setattr(bot.lobby.loop, "GameWorker", WatchedWorker)')
    assert not CONSTANT_PATCH.search('monkeypatch.setattr(EndpointLimits, "block", logged_block)')

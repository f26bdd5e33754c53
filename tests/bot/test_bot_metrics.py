"""bot.metrics: the counters' text format (read back with prometheus_client's parser) and their rules."""

from __future__ import annotations

import threading

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot import metrics
from bot.metrics import Registry, our_result


def families(text: str) -> dict[str, object]:
    return {family.name: family for family in text_string_to_metric_families(text)}


def test_a_registry_renders_counters_gauges_and_histograms_that_parse() -> None:
    registry = Registry()
    games = registry.counter("t_games_total", "Games.", ("variant", "result"))
    gauge = registry.gauge("t_current", "Now.")
    latency = registry.histogram("t_latency_seconds", "Latency.", (0.1, 1.0))
    games.inc(variant="seirawan", result="win")
    games.inc(2, variant="chess", result='odd "quoted"\nname')
    gauge.set(3)
    for value in (0.05, 0.5, 5.0):
        latency.observe(value)
    parsed = {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
              for family in text_string_to_metric_families(registry.render()) for sample in family.samples}
    assert parsed[("t_games_total", (("result", "win"), ("variant", "seirawan")))] == 1
    assert parsed[("t_games_total", (("result", 'odd "quoted"\nname'), ("variant", "chess")))] == 2
    assert parsed[("t_current", ())] == 3
    assert parsed[("t_latency_seconds_bucket", (("le", "0.1"),))] == 1
    assert parsed[("t_latency_seconds_bucket", (("le", "1.0"),))] == 2
    assert parsed[("t_latency_seconds_bucket", (("le", "+Inf"),))] == 3
    assert parsed[("t_latency_seconds_count", ())] == 3


def test_the_bot_registry_parses_and_names_every_series_of_the_issue() -> None:
    names = set(families(metrics.REGISTRY.render()))
    assert {"schess_bot_games_started", "schess_bot_games_finished", "schess_bot_challenges",
            "schess_bot_moves_played", "schess_bot_move_latency_seconds", "schess_bot_engine_restarts",
            "schess_bot_stand_in_moves", "schess_bot_stream_reconnects", "schess_bot_http_429",
            "schess_bot_http_errors", "schess_bot_current_games", "schess_bot_queue_length"} <= names


def test_counters_check_their_labels_and_only_go_up() -> None:
    registry = Registry()
    counter = registry.counter("t_total", "T.", ("kind",))
    with pytest.raises(ValueError):
        counter.inc(kind="a", extra="b")
    with pytest.raises(ValueError):
        counter.inc(-1, kind="a")
    with pytest.raises(ValueError):
        registry.counter("t_total", "again")


def test_counting_from_many_threads_loses_nothing() -> None:
    registry = Registry()
    counter = registry.counter("t_total", "T.", ("kind",))

    def count() -> None:
        for _ in range(2000):
            counter.inc(kind="x")

    threads = [threading.Thread(target=count) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counter.value(kind="x") == 16000


@pytest.mark.parametrize("result, white, termination, expected", [
    ("1-0", True, "Normal", "win"), ("1-0", False, "Normal", "loss"), ("0-1", False, "", "win"),
    ("1/2-1/2", None, "", "draw"), ("*", True, "Abandoned", "aborted"), ("*", True, "Unknown", "unknown"),
])
def test_our_result(result: str, white: bool | None, termination: str, expected: str) -> None:
    assert our_result(result, white, termination) == expected

"""bot.metrics: the series of /metrics, written by prometheus_client and read back with its parser, one registry
per bot with its gauges and the process collector."""

from __future__ import annotations

import prometheus_client
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot import metrics
from bot.metrics import our_result

SERIES = {"schess_bot_games_started", "schess_bot_games_finished", "schess_bot_challenges",
          "schess_bot_moves_played", "schess_bot_move_latency_seconds", "schess_bot_engine_restarts",
          "schess_bot_stand_in_moves", "schess_bot_stream_reconnects", "schess_bot_http_429",
          "schess_bot_http_errors", "schess_bot_current_games", "schess_bot_queue_length"}


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def test_a_bot_registry_holds_every_series_its_gauges_and_the_process_ones_and_parses() -> None:
    registry = metrics.bot_registry(lambda: 2, lambda: 5)
    text = metrics.render(registry).decode()
    names = {family.name for family in text_string_to_metric_families(text)}
    assert SERIES <= names
    assert {"process_cpu_seconds", "process_resident_memory_bytes", "process_open_fds",
            "process_start_time_seconds"} <= names
    assert not [name for name in names if name.endswith("_created")], "the series of old, no more"
    found = samples(text)
    assert found[("schess_bot_current_games", ())] == 2 and found[("schess_bot_queue_length", ())] == 5
    assert "# TYPE schess_bot_games_started_total counter" in text, "the names a scraper knew stay"


def test_two_bots_each_have_a_registry_and_none_is_the_global_one() -> None:
    first = metrics.bot_registry(lambda: 1, lambda: 0)
    second = metrics.bot_registry(lambda: 3, lambda: 0)
    assert samples(metrics.render(first).decode())[("schess_bot_current_games", ())] == 1
    assert samples(metrics.render(second).decode())[("schess_bot_current_games", ())] == 3
    assert "schess_bot" not in prometheus_client.generate_latest().decode()


def test_counts_show_in_every_bot_registry_with_their_labels() -> None:
    registry = metrics.bot_registry(lambda: 0, lambda: 0)
    before = samples(metrics.render(registry).decode())
    metrics.GAMES_FINISHED.labels(variant="seirawan", result="win").inc()
    metrics.MOVE_LATENCY.observe(0.05)
    after = samples(metrics.render(registry).decode())
    key = ("schess_bot_games_finished_total", (("result", "win"), ("variant", "seirawan")))
    assert after[key] - before.get(key, 0.0) == 1
    bucket = ("schess_bot_move_latency_seconds_bucket", (("le", "0.05"),))
    assert after[bucket] - before.get(bucket, 0.0) == 1
    assert metrics.total(metrics.GAMES_FINISHED) >= 1


@pytest.mark.parametrize("result, white, termination, expected", [
    ("1-0", True, "Normal", "win"), ("1-0", False, "Normal", "loss"), ("0-1", False, "", "win"),
    ("1/2-1/2", None, "", "draw"), ("*", True, "Abandoned", "aborted"), ("*", True, "Unknown", "unknown"),
])
def test_our_result(result: str, white: bool | None, termination: str, expected: str) -> None:
    assert our_result(result, white, termination) == expected

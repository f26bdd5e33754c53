"""The bot's counters, for ``GET /metrics`` on the status page (:mod:`bot.app.status`), kept and written by
``prometheus_client`` in the Prometheus text format (version 0.0.4). The bottom of the bot: every layer may
count here, and this package imports nothing from ``bot``.

The series below count for the whole process (one bot per process, a container: one set of counts, from its
start). They are in no registry of their own, and in particular not in ``prometheus_client``'s global one:
each bot's page makes its own with :func:`bot_registry`, which adds that bot's gauges and the process
collector (``process_cpu_seconds_total``, ``process_resident_memory_bytes``, ``process_open_fds``, ...), so
that any number of bots (the tests start many) can each serve theirs. Every operation is thread-safe (game
workers, the stream readers and the lobby count from their own threads). No series ever holds a token or a
config value: labels are variants, results, reasons, endpoint names and move kinds.

- :data:`GAMES_STARTED` (variant), :data:`GAMES_FINISHED` (variant, result: ``win``/``loss``/``draw`` from our
  side, ``aborted``, ``unknown``);
- :data:`CHALLENGES` (decision ``accepted``/``declined``, reason: the decline key, ``accepted`` otherwise);
- :data:`MOVES_PLAYED` (kind: ``engine``, ``book``, ``stand-in``), :data:`STAND_IN_MOVES`,
  :data:`MOVE_LATENCY` (from the server's state with our turn to our move sent, minus the engine's thinking);
- :data:`ENGINE_RESTARTS`, :data:`STREAM_RECONNECTS` (stream: ``event``/``game``), :data:`HTTP_429` and
  :data:`HTTP_ERRORS` (endpoint: a name of ``bot.wire.server.ENDPOINTS``);
- per bot, read when scraped: ``schess_bot_current_games`` and ``schess_bot_queue_length``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import prometheus_client
from prometheus_client import CollectorRegistry, Counter, Histogram, ProcessCollector
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

__all__ = ["CHALLENGES", "CONTENT_TYPE", "ENGINE_RESTARTS", "GAMES_FINISHED", "GAMES_STARTED", "HTTP_429",
           "HTTP_ERRORS", "MOVES_PLAYED", "MOVE_LATENCY", "STAND_IN_MOVES", "STREAM_RECONNECTS", "bot_registry",
           "our_result", "render", "total"]

#: what ``/metrics`` answers with: the classic text format, which every Prometheus reads
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

# The series are the ones the page has always shown: no ``*_created`` companion series.
prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]


def our_result(result: str, we_are_white: bool | None, termination: str = "") -> str:
    """A PGN result seen from our side: ``win``, ``loss``, ``draw``, ``aborted`` (a game without a result
    that was abandoned or aborted) or ``unknown``."""
    if result == "1/2-1/2":
        return "draw"
    if result in ("1-0", "0-1") and we_are_white is not None:
        return "win" if (result == "1-0") == we_are_white else "loss"
    if termination.lower() in ("abandoned", "aborted"):
        return "aborted"
    return "unknown"


GAMES_STARTED = Counter("schess_bot_games_started_total", "Games the bot started playing.", ("variant",),
                        registry=None)
GAMES_FINISHED = Counter("schess_bot_games_finished_total",
                         "Games that ended, by variant and result from the bot's side.", ("variant", "result"),
                         registry=None)
CHALLENGES = Counter("schess_bot_challenges_total", "Challenges answered, by decision and reason.",
                     ("decision", "reason"), registry=None)
MOVES_PLAYED = Counter("schess_bot_moves_played_total", "Moves the bot sent, by how they were chosen.", ("kind",),
                       registry=None)
STAND_IN_MOVES = Counter("schess_bot_stand_in_moves_total",
                         "Legal stand-in moves sent because the engine gave no usable move.", registry=None)
MOVE_LATENCY = Histogram("schess_bot_move_latency_seconds",
                         "From the state with our turn to our move sent, minus the engine's thinking time.",
                         buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0), registry=None)
ENGINE_RESTARTS = Counter("schess_bot_engine_restarts_total", "Engine processes restarted.", registry=None)
STREAM_RECONNECTS = Counter("schess_bot_stream_reconnects_total",
                            "Stream connections lost and reconnected, by stream.", ("stream",), registry=None)
HTTP_429 = Counter("schess_bot_http_429_total", "HTTP 429 answers, by endpoint.", ("endpoint",), registry=None)
HTTP_ERRORS = Counter("schess_bot_http_errors_total",
                      "Failed requests (HTTP errors other than 429, connection errors), by endpoint.", ("endpoint",),
                      registry=None)
PROCESS_SERIES: tuple[Collector, ...] = (GAMES_STARTED, GAMES_FINISHED, CHALLENGES, MOVES_PLAYED, STAND_IN_MOVES,
                                         MOVE_LATENCY, ENGINE_RESTARTS, STREAM_RECONNECTS, HTTP_429, HTTP_ERRORS)


class BotGauges(Collector):
    """One bot's gauges, read from it when scraped."""

    def __init__(self, current_games: Callable[[], int], queue_length: Callable[[], int]) -> None:
        self.current_games = current_games
        self.queue_length = queue_length

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily("schess_bot_current_games", "Games running now.", value=self.current_games())
        yield GaugeMetricFamily("schess_bot_queue_length",
                                "Challenges waiting: queued, accepted but not started, our own in flight.",
                                value=self.queue_length())


def bot_registry(current_games: Callable[[], int], queue_length: Callable[[], int]) -> CollectorRegistry:
    """A registry of its own for one bot: the process's series, the bot's gauges and the process collector."""
    registry = CollectorRegistry(auto_describe=True)
    for series in PROCESS_SERIES:
        registry.register(series)
    registry.register(BotGauges(current_games, queue_length))
    ProcessCollector(registry=registry)
    return registry


def render(registry: CollectorRegistry) -> bytes:
    """The registry in the Prometheus text format (:data:`CONTENT_TYPE`)."""
    return prometheus_client.generate_latest(registry)


def total(series: Counter) -> float:
    """A counter's sum over all its label values (for tests and tools)."""
    return sum(sample.value for metric in series.collect() for sample in metric.samples
               if sample.name.endswith("_total"))

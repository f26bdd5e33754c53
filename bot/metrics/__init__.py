"""The bot's counters, for ``GET /metrics`` on the status page (:mod:`bot.app.status`), in the Prometheus text
format (version 0.0.4). The bottom of the bot: every layer may count here, and this package imports nothing
from ``bot``.

The series live in one registry per process (:data:`REGISTRY`), as Prometheus client libraries keep theirs:
one bot per process (a container), so one set of counts. Every operation is thread-safe (game workers, the
stream readers and the lobby count from their own threads). No series ever holds a token or a config value:
labels are variants, results, reasons, endpoint names and move kinds.

- :data:`GAMES_STARTED` (variant), :data:`GAMES_FINISHED` (variant, result: ``win``/``loss``/``draw`` from our
  side, ``aborted``, ``unknown``);
- :data:`CHALLENGES` (decision ``accepted``/``declined``, reason: the decline key, ``accepted`` otherwise);
- :data:`MOVES_PLAYED` (kind: ``engine``, ``book``, ``stand-in``), :data:`STAND_IN_MOVES`,
  :data:`MOVE_LATENCY` (from the server's state with our turn to our move sent, minus the engine's thinking);
- :data:`ENGINE_RESTARTS`, :data:`STREAM_RECONNECTS` (stream: ``event``/``game``), :data:`HTTP_429` and
  :data:`HTTP_ERRORS` (endpoint: a name of ``bot.wire.server.ENDPOINTS``);
- the gauges :data:`CURRENT_GAMES` and :data:`QUEUE_LENGTH`, set by the status page before each scrape.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable

__all__ = ["CHALLENGES", "CURRENT_GAMES", "ENGINE_RESTARTS", "GAMES_FINISHED", "GAMES_STARTED", "HTTP_429",
           "HTTP_ERRORS", "MOVES_PLAYED", "MOVE_LATENCY", "QUEUE_LENGTH", "REGISTRY", "STAND_IN_MOVES",
           "STREAM_RECONNECTS", "Counter", "Gauge", "Histogram", "Registry", "our_result"]

LabelValues = tuple[str, ...]


def _escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(names: tuple[str, ...], values: LabelValues, extra: str = "") -> str:
    parts = [f'{name}="{_escape_label(value)}"' for name, value in zip(names, values, strict=False)]
    if extra:
        parts.append(extra)
    return "{" + ",".join(parts) + "}" if parts else ""


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


class _Series:
    kind = ""

    def __init__(self, name: str, help_text: str, labelnames: tuple[str, ...] = ()) -> None:
        self.name = name
        self.help = help_text
        self.labelnames = labelnames
        self._lock = threading.Lock()

    def _key(self, labels: dict[str, str]) -> LabelValues:
        if set(labels) != set(self.labelnames):
            raise ValueError(f"{self.name} takes the labels {self.labelnames}, got {sorted(labels)}")
        return tuple(str(labels[name]) for name in self.labelnames)

    def header(self) -> list[str]:
        return [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} {self.kind}"]

    def lines(self) -> list[str]:
        raise NotImplementedError

    def reset(self) -> None:
        raise NotImplementedError


class Counter(_Series):
    """A count that only goes up, per combination of label values."""

    kind = "counter"

    def __init__(self, name: str, help_text: str, labelnames: tuple[str, ...] = ()) -> None:
        super().__init__(name, help_text, labelnames)
        self._values: dict[LabelValues, float] = {}

    def inc(self, amount: float = 1.0, **labels: str) -> None:
        if amount < 0:
            raise ValueError("a counter only goes up")
        key = self._key(labels)
        with self._lock:
            self._values[key] = self._values.get(key, 0.0) + amount

    def value(self, **labels: str) -> float:
        with self._lock:
            return self._values.get(self._key(labels), 0.0)

    def total(self) -> float:
        with self._lock:
            return sum(self._values.values())

    def lines(self) -> list[str]:
        with self._lock:
            items = sorted(self._values.items())
        if not items and not self.labelnames:
            items = [((), 0.0)]
        return [f"{self.name}{_labels(self.labelnames, key)} {_number(value)}" for key, value in items]

    def reset(self) -> None:
        with self._lock:
            self._values.clear()


class Gauge(_Series):
    """A value that goes up and down (no labels)."""

    kind = "gauge"

    def __init__(self, name: str, help_text: str) -> None:
        super().__init__(name, help_text)
        self._value = 0.0

    def set(self, value: float) -> None:
        with self._lock:
            self._value = float(value)

    def value(self) -> float:
        with self._lock:
            return self._value

    def lines(self) -> list[str]:
        return [f"{self.name} {_number(self.value())}"]

    def reset(self) -> None:
        self.set(0.0)


class Histogram(_Series):
    """Observations counted into cumulative buckets (``le``), with their sum and count (no labels)."""

    kind = "histogram"

    def __init__(self, name: str, help_text: str, buckets: Iterable[float]) -> None:
        super().__init__(name, help_text)
        self.buckets = tuple(sorted(buckets)) + (math.inf,)
        self._counts = [0] * len(self.buckets)
        self._sum = 0.0

    def observe(self, value: float) -> None:
        with self._lock:
            self._sum += value
            for index, bound in enumerate(self.buckets):
                if value <= bound:
                    self._counts[index] += 1
                    break

    @property
    def count(self) -> int:
        with self._lock:
            return sum(self._counts)

    def lines(self) -> list[str]:
        with self._lock:
            counts, total = list(self._counts), self._sum
        out, running = [], 0
        for bound, count in zip(self.buckets, counts, strict=False):
            running += count
            bound_text = "+Inf" if math.isinf(bound) else repr(float(bound))
            out.append(f'{self.name}_bucket{{le="{bound_text}"}} {running}')
        out.append(f"{self.name}_sum {_number(total)}")
        out.append(f"{self.name}_count {running}")
        return out

    def reset(self) -> None:
        with self._lock:
            self._counts = [0] * len(self.buckets)
            self._sum = 0.0


class Registry:
    """The series of one process, rendered in registration order."""

    def __init__(self) -> None:
        self._series: list[_Series] = []
        self._names: set[str] = set()
        self._lock = threading.Lock()

    def add(self, series: _Series) -> None:
        with self._lock:
            if series.name in self._names:
                raise ValueError(f"{series.name} is registered already")
            self._names.add(series.name)
            self._series.append(series)

    def counter(self, name: str, help_text: str, labelnames: tuple[str, ...] = ()) -> Counter:
        series = Counter(name, help_text, labelnames)
        self.add(series)
        return series

    def gauge(self, name: str, help_text: str) -> Gauge:
        series = Gauge(name, help_text)
        self.add(series)
        return series

    def histogram(self, name: str, help_text: str, buckets: Iterable[float]) -> Histogram:
        series = Histogram(name, help_text, buckets)
        self.add(series)
        return series

    def render(self) -> str:
        """Every series in the Prometheus text format, ending in a newline."""
        with self._lock:
            series = list(self._series)
        lines: list[str] = []
        for item in series:
            lines.extend(item.header())
            lines.extend(item.lines())
        return "\n".join(lines) + "\n"

    def reset(self) -> None:
        """Every count back to zero (for tests)."""
        with self._lock:
            series = list(self._series)
        for item in series:
            item.reset()


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


REGISTRY = Registry()
GAMES_STARTED = REGISTRY.counter("schess_bot_games_started_total", "Games the bot started playing.", ("variant",))
GAMES_FINISHED = REGISTRY.counter("schess_bot_games_finished_total",
                                  "Games that ended, by variant and result from the bot's side.",
                                  ("variant", "result"))
CHALLENGES = REGISTRY.counter("schess_bot_challenges_total", "Challenges answered, by decision and reason.",
                              ("decision", "reason"))
MOVES_PLAYED = REGISTRY.counter("schess_bot_moves_played_total", "Moves the bot sent, by how they were chosen.",
                                ("kind",))
STAND_IN_MOVES = REGISTRY.counter("schess_bot_stand_in_moves_total",
                                  "Legal stand-in moves sent because the engine gave no usable move.")
MOVE_LATENCY = REGISTRY.histogram(
    "schess_bot_move_latency_seconds",
    "From the state with our turn to our move sent, minus the engine's thinking time.",
    (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0))
ENGINE_RESTARTS = REGISTRY.counter("schess_bot_engine_restarts_total", "Engine processes restarted.")
STREAM_RECONNECTS = REGISTRY.counter("schess_bot_stream_reconnects_total",
                                     "Stream connections lost and reconnected, by stream.", ("stream",))
HTTP_429 = REGISTRY.counter("schess_bot_http_429_total", "HTTP 429 answers, by endpoint.", ("endpoint",))
HTTP_ERRORS = REGISTRY.counter("schess_bot_http_errors_total",
                               "Failed requests (HTTP errors other than 429, connection errors), by endpoint.",
                               ("endpoint",))
CURRENT_GAMES = REGISTRY.gauge("schess_bot_current_games", "Games running now.")
QUEUE_LENGTH = REGISTRY.gauge("schess_bot_queue_length",
                              "Challenges waiting: queued, accepted but not started, our own in flight.")

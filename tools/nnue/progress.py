"""A one-line progress bar on stderr for the long steps (no dependency): done/total, rate, time left."""

from __future__ import annotations

import sys
import time
from typing import Optional, TextIO


class Progress:
    """``update(n)`` adds ``n`` done; redraws at most twice a second; ``close()`` ends the line."""

    def __init__(self, label: str, total: Optional[int] = None, unit: str = "", stream: TextIO = sys.stderr,
                 done: int = 0) -> None:
        self.label = label
        self.total = total
        self.unit = unit
        self.stream = stream
        self.start_done = done
        self.done = done
        self.start = time.monotonic()
        self.last_draw = 0.0
        self.extra = ""

    def update(self, n: int = 1, extra: str = "") -> None:
        self.done += n
        if extra:
            self.extra = extra
        now = time.monotonic()
        if now - self.last_draw >= 0.5 or (self.total is not None and self.done >= self.total):
            self.last_draw = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        elapsed = max(now - self.start, 1e-9)
        rate = (self.done - self.start_done) / elapsed
        text = f"\r{self.label}: {self.done:,}"
        if self.total:
            share = min(self.done / self.total, 1.0)
            filled = int(share * 24)
            left = (self.total - self.done) / rate if rate > 0 else 0.0
            text += f"/{self.total:,} [{'#' * filled}{'.' * (24 - filled)}] {left / 60:.1f} min left"
        text += f" {self.unit} {rate * 3600:,.0f}/h"
        if self.extra:
            text += f" {self.extra}"
        if self.stream.isatty():
            self.stream.write(text + " " * 4)
        else:  # a log file: one line per redraw, at most every 30 s
            if now - getattr(self, "_last_line", 0.0) < 30 and not (self.total and self.done >= self.total):
                return
            self._last_line = now
            self.stream.write(text.strip() + "\n")
        self.stream.flush()

    def close(self) -> None:
        self._draw(time.monotonic())
        if self.stream.isatty():
            self.stream.write("\n")
        self.stream.flush()

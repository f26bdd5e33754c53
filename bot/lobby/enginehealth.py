"""Whether an engine works: after a game's engine failed for good (:mod:`bot.game.moves`, failure policy) the
bot accepts no challenge and its health check fails until an engine starts again; a probe tries every
``Timing.engine_probe_s`` seconds (30), in a thread of its own."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from bot.config import PRODUCTION_TIMING
from bot.game import Engine

log = logging.getLogger("bot.lobby")

class EngineHealth:
    """``problem``: why no engine works (None while one does). ``on_change`` is called (from any thread)
    whenever that changes, e.g. to rewrite the heartbeat file. ``probe_s``: how often an engine start is tried
    again while none works."""

    def __init__(self, engine_factory: Callable[[str], Engine], *, on_change: Callable[[], None] = lambda: None,
                 monotonic: Callable[[], float] = time.monotonic,
                 probe_s: float = PRODUCTION_TIMING.engine_probe_s) -> None:
        self.engine_factory = engine_factory
        self.probe_s = probe_s
        self.on_change = on_change
        self.monotonic = monotonic
        self.problem: str | None = None
        self._next_probe_at = 0.0
        self._probe: threading.Thread | None = None
        self._lock = threading.Lock()

    def health_text(self) -> str:
        """``ok``, or ``unhealthy: ...`` while no engine works (the heartbeat file's text)."""
        problem = self.problem
        if problem is None:
            return "ok"
        return f"unhealthy: the engine failed for good ({problem}); no challenges are accepted"

    def lost(self, game_id: str, reason: str) -> None:
        """A game's engine failed for good (called from its worker thread)."""
        with self._lock:
            first = self.problem is None
            self.problem = f"game {game_id}: {reason}"
            self._next_probe_at = self.monotonic() + self.probe_s
        if first:
            log.error("the engine failed for good (game %s: %s); declining challenges until an engine starts "
                      "again (tried every %g s)", game_id, reason, self.probe_s)
        self.on_change()

    def probe_if_due(self) -> None:
        """While no engine works, start a probe every ``probe_s`` (returns at once)."""
        with self._lock:
            due = (self.problem is not None and self.monotonic() >= self._next_probe_at
                   and (self._probe is None or not self._probe.is_alive()))
            if not due:
                return
            self._probe = threading.Thread(target=self._try_engine, name="engine-probe", daemon=True)
        self._probe.start()

    def _try_engine(self) -> None:
        engine: Engine | None = None
        try:
            engine = self.engine_factory("engine probe")
            engine.new_game()
            problem = None
        except Exception as error:  # noqa: BLE001 - whatever the engine does, the bot goes on
            problem = str(error) or type(error).__name__
        finally:
            if engine is not None:
                try:
                    engine.close()
                except Exception:  # noqa: BLE001
                    log.debug("engine probe: close failed", exc_info=True)
        with self._lock:
            if problem is None:
                self.problem = None
            else:
                self._next_probe_at = self.monotonic() + self.probe_s
        if problem is None:
            log.info("the engine starts again; accepting challenges")
        else:
            log.warning("the engine still does not start (%s); trying again in %g s", problem, self.probe_s)
        self.on_change()

"""What the UCI client (:mod:`bot.engines.uci`) and the XBoard client (:mod:`bot.engines.xboard`) share: one
engine process that is started with a handshake, restarted on the next call after a crash, and waited for
under deadlines (interrupted at the deadline, killed after a grace period).

A protocol client fills in :meth:`EngineClient._open` (handshake and configuration), :meth:`EngineClient.ping`
(a round trip) and, if it keeps per-process state, :meth:`EngineClient._forget_session`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence

from bot import metrics
from bot.engines.process import EngineCrashed, EngineError, EngineProcess, EngineStartError, EngineTimeout

log = logging.getLogger(__name__)

OptionValue = str | int | float | bool


class EngineClient:
    """One engine program and the bookkeeping every protocol needs. Not thread-safe: one owner drives it.

    ``options`` are sent after the handshake. ``strict``: an option or a variant the engine does not advertise
    is an :class:`EngineStartError` (the match runner); otherwise it is sent anyway or warned about (the bot,
    which must play on)."""

    def __init__(self, command: Sequence[str], options: Mapping[str, OptionValue] | None = None, *,
                 label: str = "engine", startup_timeout_s: float = 20.0, strict: bool = False,
                 cwd: str | None = None, own_session: bool = False, echo: bool = False,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.process = EngineProcess(command, label=label, cwd=cwd, own_session=own_session, echo=echo,
                                     monotonic=monotonic)
        self.command = self.process.command
        self.options = dict(options or {})
        self.label = label
        self.startup_timeout_s = startup_timeout_s
        self.strict = strict
        self.monotonic = monotonic
        self.variant = "chess"
        self.chess960 = False
        self.id_name = self.command[0]
        self.restarts = 0
        self._failed = ""  # why the last process was given up (it is restarted on the next call)

    # ---- to be filled in by a protocol ----

    def _open(self) -> None:
        """Handshake and configuration of a freshly started process."""
        raise NotImplementedError

    def ping(self, timeout_s: float) -> None:
        """A round trip that also discards what is left over from an earlier search."""
        raise NotImplementedError

    def _forget_session(self) -> None:
        """Drop what was known about the process (it is being killed or replaced)."""

    def _apply_variant(self) -> None:
        """Tell a running engine :attr:`variant` and :attr:`chess960`."""

    # ---- process management ----

    @property
    def alive(self) -> bool:
        return self.process.alive

    def start(self) -> None:
        """Start the process and run :meth:`_open`. Raises :class:`EngineError` (:class:`EngineStartError`
        for a configuration problem and in strict mode)."""
        self._forget_session()
        self.process.start()
        try:
            self._open()
        except EngineError as error:
            self.process.kill()
            self._failed = str(error)
            if isinstance(error, EngineStartError) or self.strict:
                raise EngineStartError(f"{self.label}: {' '.join(self.command)!r} failed to start: {error}") \
                    from None
            raise
        log.debug("%s: started %s", self.label, self.id_name)

    def restart(self) -> None:
        """Replace the process by a fresh one with the same configuration."""
        self.kill()
        self.restarts += 1
        self.start()

    def kill(self) -> None:
        self._forget_session()
        self.process.kill()

    def ensure_running(self) -> None:
        """Start the engine, or restart it after a crash (logged with the reason)."""
        if self.alive:
            return
        if self.process.started or self._failed:
            self.restarts += 1
            metrics.ENGINE_RESTARTS.inc()
            log.warning("%s: restarting the engine (%s)", self.label, self._failed or self.process.death_message())
        self.start()
        self._failed = ""

    def set_variant(self, variant: str, chess960: bool) -> None:
        """The variant of the next games, told to the engine now if it runs."""
        self.variant, self.chess960 = variant, chess960
        if self.alive:
            self._apply_variant()

    # ---- waiting ----

    def _sync(self, timeout_s: float) -> None:
        try:
            self.ping(timeout_s)
        except EngineCrashed as error:
            self._note_crash(error)
            raise

    def _note_crash(self, error: EngineCrashed) -> None:
        """A dead process: restarted on the next call."""
        self._failed = str(error)
        self.kill()

    def _await_answer(self, started: float, deadline_s: float, stop_grace_s: float, *, interrupt: str,
                      waiting_for: str, answer: Callable[[str], bool],
                      interrupt_at_s: float | None = None) -> tuple[float, str, bool]:
        """Read lines until ``answer(line)`` is true; returns that line, when it arrived and whether it came
        only after the deadline (``late``).

        At ``started + deadline_s`` the engine is sent ``interrupt`` (``stop``, ``?``); without an answer
        ``stop_grace_s`` after that it is killed (restarted by the next call) and :class:`EngineTimeout`
        raised. ``interrupt_at_s``: send ``interrupt`` already then, as the end of a fixed move time that the
        protocol cannot express exactly (not late). A dead engine raises :class:`EngineCrashed`."""
        deadline = started + deadline_s
        early = started + interrupt_at_s if interrupt_at_s is not None and interrupt_at_s < deadline_s else None
        interrupted = late = False
        while True:
            early_pending = early is not None and not interrupted
            try:
                arrival, line = self.process.read_line(early if early is not None and early_pending else deadline,
                                                       waiting_for)
            except EngineTimeout:
                if early_pending:
                    self.process.send_quietly(interrupt)
                    interrupted = True
                    continue
                if late:
                    self.kill()
                    self._failed = "it hung"
                    raise EngineTimeout(f"no {waiting_for} {(self.monotonic() - started):.1f} s after go; "
                                        "engine killed") from None
                log.warning("%s: engine passed its deadline (%d ms); sending %s", self.label,
                            round(deadline_s * 1000), interrupt)
                self.process.send_quietly(interrupt)
                interrupted = late = True
                deadline = self.monotonic() + stop_grace_s
                continue
            except EngineCrashed as error:
                self._note_crash(error)
                raise
            if answer(line):
                return arrival, line, late

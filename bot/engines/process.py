"""An engine process and its pipes: start, send a line, read lines with deadlines, kill. Shared by the UCI
client (:mod:`bot.engines.uci`) and the XBoard client (:mod:`bot.engines.xboard`).

A reader thread timestamps every line the engine prints as it arrives, so the time an engine used is measured
from the moment a command was written to the moment its answer was read, however busy this process is. Every
wait has a deadline; a process that dies shows up as :class:`EngineCrashed` with its exit code and its last
line on stderr.
"""

from __future__ import annotations

import collections
import logging
import os
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bot import TOKEN_ENV

log = logging.getLogger(__name__)
#: every line to (``<``) and from (``>``) an engine started with ``echo`` (``engine.debug: true``), at INFO:
#: a logger of its own, so that it can go to a file of its own (``logging.engine_file``)
io_log = logging.getLogger("bot.engine.io")

STDERR_LINES_KEPT = 20
_EOF = None  # what the reader thread queues when the engine closes its output


class EngineError(RuntimeError):
    """The engine could not do what was asked (crashed, hung, refused to start)."""


class EngineStartError(EngineError):
    """The engine could not be started or configured (bad command, no handshake, unknown option)."""


class EngineCrashed(EngineError):
    """The engine process exited or closed its pipes."""


class EngineTimeout(EngineError):
    """The engine did not answer in time."""


def is_bundled_engine(command: Sequence[str]) -> bool:
    """Whether ``command`` runs the bundled engine (``<interpreter> -m engine``)."""
    return len(command) >= 3 and list(command[-2:]) == ["-m", "engine"]


def bundled_engine_root() -> str:
    """The folder holding the ``engine`` package this bot imported: the installed one (site-packages, or the
    source tree of an editable install)."""
    import engine

    return str(Path(engine.__file__).resolve().parent.parent)


def engine_environment(command: Sequence[str]) -> dict[str, str]:
    """The environment for an engine process: ours without the API token (an engine never needs it, and a
    third-party engine should not see it). For the bundled engine (``<interpreter> -m engine``) the folder
    holding the ``engine`` package goes first on PYTHONPATH, so another interpreter such as pypy3, which does
    not see this installation's site-packages, still finds it."""
    env = {name: value for name, value in os.environ.items() if name != TOKEN_ENV}
    if not is_bundled_engine(command):
        return env
    root = bundled_engine_root()
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def engine_folder(command: Sequence[str], cwd: str | None) -> str | None:
    """Where the engine process starts: ``cwd`` when given; for the bundled engine the folder of the installed
    package, because ``python -m`` puts the working folder first on the path, and a bot started inside a
    checkout (where the README has the operator edit ``config.yml``) would run the checkout's pure-Python
    source instead of the installed, compiled engine."""
    if cwd is not None or not is_bundled_engine(command):
        return cwd
    return bundled_engine_root()


class EngineProcess:
    """One running engine program. Not thread-safe: one owner drives it.

    ``label`` names it in logs and errors. ``cwd``: the working directory (the match runner runs each engine
    in its own). ``own_session``: start it in a session of its own, so that Ctrl-C in a terminal reaches only
    the parent, which then stops the engine itself. ``echo``: log every line sent and received (logger
    ``bot.engine.io``, as it is sent or arrives).
    """

    def __init__(self, command: Sequence[str], *, label: str = "engine", cwd: str | None = None,
                 own_session: bool = False, echo: bool = False,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        if not command:
            raise EngineStartError(f"{label}: empty engine command")
        self.command = list(command)
        self.label = label
        self.cwd = engine_folder(self.command, cwd)
        self.own_session = own_session
        self.echo = echo
        self.monotonic = monotonic
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[tuple[float, str | None]] = queue.Queue()
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_LINES_KEPT)

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def started(self) -> bool:
        """Whether a process was started and not killed since (it may have died on its own)."""
        return self._process is not None

    def start(self) -> None:
        """Start the program. Raises :class:`EngineStartError` when it cannot be run."""
        self.kill()
        self._lines = queue.Queue()
        self.stderr_tail = collections.deque(maxlen=STDERR_LINES_KEPT)
        try:
            process = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, bufsize=1, cwd=self.cwd, env=engine_environment(self.command),
                start_new_session=self.own_session,
            )
        except OSError as error:
            raise EngineStartError(f"{self.label}: cannot start {' '.join(self.command)!r}: "
                                   f"{error.strerror or error}") from None
        self._process = process
        threading.Thread(target=self._read_stdout, args=(process, self._lines, self.label if self.echo else None),
                         daemon=True,
                         name=f"{self.label}-stdout").start()
        threading.Thread(target=self._read_stderr, args=(process, self.stderr_tail), daemon=True,
                         name=f"{self.label}-stderr").start()

    def kill(self) -> None:
        """Kill the process at once and reap it (nothing happens when none runs)."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.kill()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process that survives SIGKILL
            log.warning("%s: engine process %s did not exit", self.label, process.pid)
        for stream in (process.stdin, process.stdout, process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    def quit(self, command: str, wait_s: float = 2.0) -> None:
        """Send ``command`` (``quit``), give the program ``wait_s`` to exit, then make sure it is gone."""
        process = self._process
        if process is not None and process.poll() is None:
            try:
                self.send(command)
                process.wait(timeout=wait_s)
            except (EngineError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def send(self, command: str) -> None:
        """Write one command line. Raises :class:`EngineCrashed` when the process is gone."""
        process = self._process
        if process is None or process.stdin is None:
            raise EngineCrashed(f"{self.label}: engine is not running")
        if self.echo:
            io_log.info("%s < %s", self.label, command)
        try:
            process.stdin.write(command + "\n")
            process.stdin.flush()
        except (OSError, ValueError):
            raise EngineCrashed(self.death_message()) from None

    def send_quietly(self, command: str) -> None:
        try:
            self.send(command)
        except EngineError:
            pass

    def read_line(self, deadline: float, waiting_for: str) -> tuple[float, str]:
        """The next line and when it arrived (monotonic seconds), by ``deadline``.

        Raises :class:`EngineTimeout` at the deadline and :class:`EngineCrashed` when the output ends."""
        while True:
            remaining = deadline - self.monotonic()
            if remaining <= 0:
                raise EngineTimeout(f"{self.label}: no {waiting_for}")
            try:
                arrival, line = self._lines.get(timeout=min(remaining, 0.5))
            except queue.Empty:
                if self._process is not None and self._process.poll() is not None and self._lines.empty():
                    raise EngineCrashed(self.death_message()) from None
                continue
            if line is _EOF:
                self._lines.put((arrival, _EOF))  # stays at the end for any later reader
                raise EngineCrashed(self.death_message(waiting_for))
            return arrival, line

    def read_until(self, predicate: Callable[[str], bool], timeout_s: float, waiting_for: str) -> list[str]:
        """Read lines until one satisfies ``predicate``; returns all of them (that one last)."""
        deadline = self.monotonic() + timeout_s
        collected: list[str] = []
        while True:
            _arrival, line = self.read_line(deadline, waiting_for)
            collected.append(line)
            if predicate(line):
                return collected

    def drain(self) -> list[str]:
        """Drop output left over from earlier commands (a late answer, stray info lines); returns it."""
        dropped: list[str] = []
        while True:
            try:
                arrival, line = self._lines.get_nowait()
            except queue.Empty:
                return dropped
            if line is _EOF:
                self._lines.put((arrival, _EOF))
                return dropped
            dropped.append(line)

    def death_message(self, waiting_for: str = "") -> str:
        """``engine process exited (code -9) while waiting for bestmove; its last stderr line: ...``."""
        process = self._process
        code = None
        if process is not None:
            try:  # its output ended: give the OS a moment to report how it died (``-9`` = killed)
                code = process.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                code = process.poll()
        time.sleep(0.05)  # let the stderr thread read what the dying process wrote
        words = [line for line in list(self.stderr_tail) if line.strip()]
        last = f"; its last stderr line: {words[-1].strip()[:300]}" if words else ""
        waiting = f" while waiting for {waiting_for}" if waiting_for else ""
        return f"engine process exited (code {code}){waiting}{last}"

    @staticmethod
    def _read_stdout(process: subprocess.Popen[str], lines: queue.Queue[tuple[float, str | None]],
                     echo_label: str | None) -> None:
        assert process.stdout is not None
        try:
            for raw in process.stdout:
                line = raw.rstrip("\r\n")
                lines.put((time.monotonic(), line))
                if echo_label is not None:
                    io_log.info("%s > %s", echo_label, line)
        except (OSError, ValueError):
            pass
        lines.put((time.monotonic(), _EOF))

    def _read_stderr(self, process: subprocess.Popen[str], tail: collections.deque[str]) -> None:
        assert process.stderr is not None
        try:
            for raw in process.stderr:
                line = raw.rstrip("\r\n")
                tail.append(line)
                if line.strip():
                    log.warning("%s: engine stderr: %s", self.label, line[:500])
        except (OSError, ValueError):
            pass

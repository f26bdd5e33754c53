"""One UCI engine process as seen by the match runner: start, configure, search with a deadline, restart.

A reader thread timestamps every line the engine prints as it arrives, so the time an engine used is
measured from the moment ``go`` was written to the moment ``bestmove`` was read, independent of how busy
the runner itself is.
"""

from __future__ import annotations

import collections
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import IO, Deque, Dict, List, Optional, Tuple

from tools.match.settings import EngineSpec


class EngineError(Exception):
    """Base class of the failures of an engine process."""


class EngineStartError(EngineError):
    """The engine could not be started or configured (bad command, no ``uciok``, unknown option)."""


class EngineCrashed(EngineError):
    """The engine process exited or closed its output."""


class EngineTimeout(EngineError):
    """The engine did not answer within the deadline.

    ``late_result`` is the ``bestmove`` that came after ``stop`` (the engine is alive and in sync), or None
    when nothing came (the engine hangs).
    """

    def __init__(self, message: str, late_result: Optional[SearchResult] = None):
        super().__init__(message)
        self.late_result = late_result


@dataclass(frozen=True)
class Score:
    """An engine's evaluation from the side to move: centipawns, or moves to mate (negative: being mated)."""

    centipawns: Optional[int] = None
    mate: Optional[int] = None

    def as_centipawns(self) -> int:
        """The score on one scale, mates as +-(100000 - distance), for adjudication thresholds."""
        if self.mate is not None:
            return 100000 - abs(self.mate) if self.mate > 0 else -100000 + abs(self.mate)
        return self.centipawns or 0

    def text(self) -> str:
        """Pawns as in PGN comments: ``+0.35``, ``-1.20``, ``+M3``, ``-M2``."""
        if self.mate is not None:
            return f"+M{self.mate}" if self.mate > 0 else f"-M{abs(self.mate)}"
        return f"{(self.centipawns or 0) / 100:+.2f}"


@dataclass
class SearchResult:
    """What one ``go`` produced: the move text, the time it took and the last reported score and depth."""

    bestmove: str
    elapsed_ms: float
    score: Optional[Score] = None
    depth: Optional[int] = None


@dataclass
class UciOption:
    """An option advertised by the engine (``option name X type combo ... var a var b``)."""

    name: str
    kind: str
    choices: List[str] = field(default_factory=list)


def parse_option_line(line: str) -> Optional[UciOption]:
    """Parse an ``option name ... type ...`` line; option names may contain spaces."""
    if not line.startswith("option name "):
        return None
    rest = line[len("option name ") :]
    name, separator, after = rest.partition(" type ")
    if not separator:
        return None
    words = after.split()
    kind = words[0] if words else ""
    choices = [words[i + 1] for i, word in enumerate(words[:-1]) if word == "var"]
    return UciOption(name.strip(), kind, choices)


def parse_info_line(line: str) -> Tuple[Optional[Score], Optional[int]]:
    """The score and depth of an ``info`` line (None where absent; bound scores are taken as they are)."""
    words = line.split()
    if words[1:2] == ["string"]:  # free text, whatever words it contains
        return None, None
    score: Optional[Score] = None
    depth: Optional[int] = None
    for index, word in enumerate(words[:-1]):
        following = words[index + 1]
        try:
            if word == "depth":
                depth = int(following)
            elif word == "score" and index + 2 < len(words):
                if following == "cp":
                    score = Score(centipawns=int(words[index + 2]))
                elif following == "mate":
                    score = Score(mate=int(words[index + 2]))
        except ValueError:
            continue
    return score, depth


STDERR_LINES_KEPT = 20

_EOF = None  # what the reader thread queues when the engine closes its output


class UciEngine:
    """A running UCI engine. Not thread-safe: one worker drives it.

    ``label`` names the engine in errors and debug logs (``engine1``). ``variant`` and ``chess960``, when
    given, are set right after the handshake, before the engine's own options. Call :meth:`start` before
    use and :meth:`close` when done; :meth:`restart` replaces a crashed or hung process.
    """

    def __init__(
        self,
        spec: EngineSpec,
        label: str,
        startup_timeout_s: float = 15.0,
        debug: bool = False,
        variant: Optional[str] = None,
        chess960: bool = False,
    ):
        self.spec = spec
        self.variant = variant
        self.chess960 = chess960
        self.label = label
        self.startup_timeout_s = startup_timeout_s
        self.debug = debug
        self.id_name = ""
        self.options: Dict[str, UciOption] = {}
        self.restarts = 0
        self._process: Optional[subprocess.Popen[str]] = None
        self._lines: queue.Queue[Tuple[float, Optional[str]]] = queue.Queue()
        self._reader: Optional[threading.Thread] = None
        self._stderr_tail: Deque[str] = collections.deque(maxlen=STDERR_LINES_KEPT)

    # -- process ------------------------------------------------------------------------------------
    @property
    def alive(self) -> bool:
        """True while the process runs."""
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Start the process, run the ``uci`` handshake, set the variant and send the configured options.

        Raises EngineStartError with the reason when anything fails; the process is then killed.
        """
        try:
            self._process = subprocess.Popen(
                list(self.spec.command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.spec.working_directory,
                text=True,
                bufsize=1,
                # Own session: Ctrl-C in the terminal reaches the runner only, which then kills the engines;
                # otherwise an engine could die first and its game be scored as a crash.
                start_new_session=True,
            )
        except OSError as error:
            raise EngineStartError(f"{self.label}: cannot start {' '.join(self.spec.command)!r}: {error}") from error
        self._lines = queue.Queue()
        assert self._process.stdout is not None
        self._reader = threading.Thread(
            target=_read_lines,
            args=(self._process.stdout, self._lines),
            name=f"{self.label}-reader",
            daemon=True,
        )
        self._reader.start()
        self._stderr_tail = collections.deque(maxlen=STDERR_LINES_KEPT)
        assert self._process.stderr is not None
        threading.Thread(
            target=_keep_stderr,
            args=(self._process.stderr, self._stderr_tail, self.label if self.debug else None),
            name=f"{self.label}-stderr",
            daemon=True,
        ).start()
        try:
            self._handshake()
            if self.variant is not None:
                self.configure_variant(self.variant, self.chess960)
            for name, value in self.spec.options:
                self.set_option(name, value)
            self.ping(self.startup_timeout_s)
        except EngineError as error:
            self.kill()
            if isinstance(error, EngineStartError):
                raise
            raise EngineStartError(f"{self.label}: {' '.join(self.spec.command)!r} failed to start: {error}") from error

    def _handshake(self) -> None:
        self.options = {}
        self.send("uci")
        deadline = time.monotonic() + self.startup_timeout_s
        while True:
            _, line = self._read_line(deadline, "uciok")
            if line.startswith("id name "):
                self.id_name = line[len("id name ") :].strip()
            option = parse_option_line(line)
            if option is not None:
                self.options[option.name.lower()] = option
            if line.strip() == "uciok":
                return

    def restart(self) -> None:
        """Kill the process (if any) and start a fresh one with the same configuration."""
        self.kill()
        self.restarts += 1
        self.start()

    def kill(self) -> None:
        """Kill the process at once and reap it."""
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            process.kill()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for stream in (process.stdin, process.stdout, process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        self._process = None

    def close(self) -> None:
        """Ask the engine to quit, then kill it if it has not exited within a second."""
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            try:
                self.send("quit")
                process.wait(timeout=1)
            except (EngineError, subprocess.TimeoutExpired):
                pass
        self.kill()

    # -- protocol -----------------------------------------------------------------------------------
    def send(self, command: str) -> None:
        """Write one command line. Raises EngineCrashed when the process is gone."""
        process = self._process
        if process is None or process.stdin is None:
            raise EngineCrashed(f"{self.label} is not running")
        if self.debug:
            print(f"{self.label} < {command}", file=sys.stderr, flush=True)
        try:
            process.stdin.write(command + "\n")
            process.stdin.flush()
        except (OSError, ValueError) as error:
            raise EngineCrashed(f"{self.label} closed its input ({error})") from error

    def _read_line(self, deadline: float, waiting_for: str) -> Tuple[float, str]:
        remaining = deadline - time.monotonic()
        try:
            arrival, line = self._lines.get(timeout=max(0.0, remaining))
        except queue.Empty:
            raise EngineTimeout(f"{self.label} sent no {waiting_for}") from None
        if line is None:
            self._lines.put((arrival, _EOF))  # stays at the end of the stream for any later reader
            status = self._exit_status()
            raise EngineCrashed(f"{self.label} exited ({status}) while we waited for {waiting_for}{self._last_words()}")
        if self.debug:
            print(f"{self.label} > {line}", file=sys.stderr, flush=True)
        return arrival, line

    def _exit_status(self) -> str:
        """``exit code 1`` once the process is gone (it may take a moment after closing its output)."""
        if self._process is None:
            return "not running"
        try:
            return f"exit code {self._process.wait(timeout=0.5)}"
        except subprocess.TimeoutExpired:
            return "output closed, process still running"

    def _last_words(self) -> str:
        """The engine's last stderr line (a traceback's last line says what went wrong), or nothing."""
        time.sleep(0.05)  # let the stderr thread read what the dying process wrote
        lines = [line for line in list(self._stderr_tail) if line.strip()]
        return f"; its last stderr line: {lines[-1].strip()}" if lines else ""

    def supports(self, option_name: str) -> bool:
        """True when the engine advertised the option (names compare without case, as UCI says)."""
        return option_name.lower() in self.options

    def set_option(self, name: str, value: str) -> None:
        """Send ``setoption``; raises EngineStartError when the engine does not have the option."""
        if not self.supports(name):
            known = ", ".join(sorted(option.name for option in self.options.values())) or "none"
            raise EngineStartError(
                f"{self.label} ({self.id_name or 'unnamed'}) has no option {name!r}; its options: {known}"
            )
        self.send(f"setoption name {self.options[name.lower()].name} value {value}")

    def configure_variant(self, variant: str, chess960: bool) -> None:
        """Send ``UCI_Variant`` and ``UCI_Chess960`` when the engine advertises them.

        Raises EngineStartError when the engine lists variants and the one asked for is not among them.
        """
        variant_option = self.options.get("uci_variant")
        if variant_option is not None:
            if variant_option.choices and variant not in variant_option.choices:
                raise EngineStartError(f"{self.label} ({self.id_name}) does not play {variant!r}")
            self.send(f"setoption name {variant_option.name} value {variant}")
        chess960_option = self.options.get("uci_chess960")
        if chess960_option is not None:
            self.send(f"setoption name {chess960_option.name} value {'true' if chess960 else 'false'}")

    def ping(self, timeout_s: float) -> None:
        """``isready`` and wait for ``readyok``; EngineTimeout or EngineCrashed otherwise."""
        self.send("isready")
        deadline = time.monotonic() + timeout_s
        while self._read_line(deadline, "readyok")[1].strip() != "readyok":
            pass

    def new_game(self, timeout_s: float) -> None:
        """``ucinewgame`` followed by a ``readyok`` round trip."""
        self.send("ucinewgame")
        self.ping(timeout_s)

    def search(self, position: str, go: str, deadline_s: float, stop_grace_s: float) -> SearchResult:
        """Send ``position`` and ``go``, and wait for ``bestmove`` up to ``deadline_s`` seconds.

        On time-out, sends ``stop`` and waits ``stop_grace_s`` for the late ``bestmove`` so the engine is in
        a known state: raises EngineTimeout either way, with ``late_result`` set when the move did come.
        Raises EngineCrashed when the process dies.
        """
        self._drain()
        self.send(position)
        self.send(go)
        started = time.monotonic()
        deadline = started + deadline_s
        score: Optional[Score] = None
        depth: Optional[int] = None
        while True:
            try:
                arrival, line = self._read_line(deadline, "bestmove")
            except EngineTimeout:
                late = self._stop_and_wait(started, stop_grace_s, score, depth)
                raise EngineTimeout(f"{self.label} sent no bestmove within {deadline_s:.3f} s", late) from None
            if line.startswith("info "):
                new_score, new_depth = parse_info_line(line)
                score = new_score or score
                depth = new_depth or depth
            elif line.startswith("bestmove"):
                words = line.split()
                return SearchResult(words[1] if len(words) > 1 else "", (arrival - started) * 1000, score, depth)

    def _stop_and_wait(
        self, started: float, grace_s: float, score: Optional[Score], depth: Optional[int]
    ) -> Optional[SearchResult]:
        try:
            self.send("stop")
            deadline = time.monotonic() + grace_s
            while True:
                arrival, line = self._read_line(deadline, "bestmove after stop")
                if line.startswith("bestmove"):
                    words = line.split()
                    return SearchResult(words[1] if len(words) > 1 else "", (arrival - started) * 1000, score, depth)
        except EngineError:
            return None

    def _drain(self) -> None:
        """Drop output left over from earlier commands (a late bestmove, stray info lines)."""
        while True:
            try:
                _, line = self._lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self._lines.put((time.monotonic(), _EOF))
                return


def _keep_stderr(stream: IO[str], tail: Deque[str], echo_label: Optional[str]) -> None:
    """Stderr thread: keep the last lines (for crash reports) and echo them when debugging."""
    try:
        for raw in stream:
            line = raw.rstrip("\r\n")
            tail.append(line)
            if echo_label is not None:
                print(f"{echo_label} stderr: {line}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _read_lines(stream: IO[str], lines: queue.Queue[Tuple[float, Optional[str]]]) -> None:
    """Reader thread: put (arrival time, line) for every line, then (time, _EOF) when the stream ends."""
    try:
        for raw in stream:
            lines.put((time.monotonic(), raw.rstrip("\r\n")))
    except (OSError, ValueError):
        pass
    lines.put((time.monotonic(), _EOF))

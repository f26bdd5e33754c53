"""A UCI engine in its own process: the bundled engine (``python -m engine``) or any UCI engine.

The bot never trusts the engine to be alive or quick: every wait has a deadline, a process that dies is
restarted on the next call, and a search that overruns its deadline is stopped (``stop``) and, if the engine
still does not answer, killed. The caller (the game worker) then plays a fallback move; one bad engine costs
one move's quality, never the game.

Pondering: :meth:`UciEngine.ponder` starts ``go ponder`` on the position after the predicted reply and returns
at once; when the reply comes, :meth:`UciEngine.ponderhit` turns it into a normal search (whose ``bestmove`` is
then awaited under the usual deadline), and any other move or event calls :meth:`UciEngine.stop_ponder`.
"""

from __future__ import annotations

import logging
import os
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.config import TOKEN_ENV
from bot.timecontrol import SearchLimits

log = logging.getLogger(__name__)

_EOF = None


class EngineError(RuntimeError):
    """The engine could not produce a move (crashed, hung, refused to start)."""


class EngineCrashed(EngineError):
    pass


class EngineTimeout(EngineError):
    pass


@dataclass
class SearchResult:
    bestmove: str | None
    ponder: str | None = None
    score_cp: int | None = None
    mate: int | None = None
    depth: int | None = None
    nodes: int | None = None
    elapsed_s: float = 0.0
    pv: list[str] = field(default_factory=list)
    pondered_s: float | None = None  # thinking done on the opponent's time before a ponderhit

    def describe_score(self) -> str:
        """``+0.42``, ``#3``, ``#-2`` or ``?``, from the side to move's view."""
        if self.mate is not None:
            return f"#{self.mate}"
        if self.score_cp is not None:
            return f"{self.score_cp / 100:+.2f}"
        return "?"

    def score_for_decisions(self) -> int | None:
        """Centipawns, with mates as +-100000 (for draw and resign decisions)."""
        if self.mate is not None:
            return 100_000 if self.mate > 0 else -100_000
        return self.score_cp


def parse_info(line: str, result: SearchResult) -> None:
    """Fold one ``info ...`` line into ``result`` (depth, score, nodes, pv). Bounds are ignored."""
    tokens = line.split()
    index = 1
    while index < len(tokens):
        token = tokens[index]
        try:
            if token == "depth":
                result.depth = int(tokens[index + 1])
                index += 2
            elif token == "nodes":
                result.nodes = int(tokens[index + 1])
                index += 2
            elif token == "score":
                kind, value = tokens[index + 1], int(tokens[index + 2])
                bound = index + 3 < len(tokens) and tokens[index + 3] in ("lowerbound", "upperbound")
                if not bound:
                    if kind == "cp":
                        result.score_cp, result.mate = value, None
                    elif kind == "mate":
                        result.mate, result.score_cp = value, None
                index += 3
            elif token == "pv":
                result.pv = tokens[index + 1:]
                break
            elif token == "string":
                break
            else:
                index += 1
        except (IndexError, ValueError):
            index += 1


@dataclass
class UciOption:
    name: str
    type: str
    vars: list[str] = field(default_factory=list)


def parse_option(line: str) -> UciOption | None:
    """``option name UCI_Variant type combo default chess var chess var seirawan`` -> UciOption."""
    tokens = line.split()
    if len(tokens) < 5 or tokens[1] != "name" or "type" not in tokens:
        return None
    type_index = tokens.index("type")
    option = UciOption(" ".join(tokens[2:type_index]), tokens[type_index + 1] if type_index + 1 < len(tokens)
                       else "")
    option.vars = [tokens[i + 1] for i, token in enumerate(tokens[:-1]) if token == "var"]
    return option


def format_option_value(value: str | int | float | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def engine_environment(command: Sequence[str]) -> dict[str, str]:
    """The environment for an engine process: ours without the API token (an engine never needs it, and a
    third-party engine should not see it). For the bundled engine (``<interpreter> -m engine``) the folder
    holding the ``engine`` package goes first on PYTHONPATH, so another interpreter such as pypy3, which does
    not see this installation's site-packages, still finds it."""
    env = {name: value for name, value in os.environ.items() if name != TOKEN_ENV}
    if len(command) < 3 or list(command[-2:]) != ["-m", "engine"]:
        return env
    import engine

    root = str(Path(engine.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


class UciEngine:
    """One engine process. Not thread-safe: one game worker owns it."""

    def __init__(self, command: Sequence[str], options: Mapping[str, str | int | float | bool] | None = None,
                 *, label: str = "engine", startup_timeout_s: float = 20.0, ponder: bool = False,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.command = list(command)
        self.ponder_enabled = ponder
        self.options = dict(options or {})
        self.label = label
        self.startup_timeout_s = startup_timeout_s
        self.monotonic = monotonic
        self.variant = "chess"
        self.chess960 = False
        self.id_name = self.command[0] if self.command else "engine"
        self.advertised: dict[str, UciOption] = {}
        self.restarts = 0
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._failed = ""  # why the last process was given up (it is restarted on the next call)
        self._ponder_started: float | None = None  # set while a ``go ponder`` runs

    # ---- process management ----

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Start the process and run the UCI handshake. Raises :class:`EngineError`."""
        self.kill()
        self._lines = queue.Queue()
        try:
            self._process = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, bufsize=1, env=engine_environment(self.command),
            )
        except OSError as error:
            raise EngineError(f"cannot start engine {self.command[0]!r}: {error.strerror or error}") from None
        process = self._process
        threading.Thread(target=self._read_stdout, args=(process, self._lines), daemon=True,
                         name=f"{self.label}-stdout").start()
        threading.Thread(target=self._read_stderr, args=(process,), daemon=True,
                         name=f"{self.label}-stderr").start()
        self.advertised = {}
        self._send("uci")
        for line in self._lines_until("uciok", self.startup_timeout_s):
            if line.startswith("id name "):
                self.id_name = line[len("id name "):].strip()
            elif line.startswith("option "):
                option = parse_option(line)
                if option is not None:
                    self.advertised[option.name.lower()] = option
        for name, value in self.options.items():
            self._send(f"setoption name {name} value {format_option_value(value)}")
        if self.ponder_enabled and "ponder" in self.advertised and "ponder" not in {
                name.lower() for name in self.options}:
            self._send("setoption name Ponder value true")  # UCI: tell the engine it may be asked to ponder
        self._apply_variant()
        self._sync(self.startup_timeout_s)
        log.debug("%s: started %s", self.label, self.id_name)

    def kill(self) -> None:
        self._ponder_started = None
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

    def close(self) -> None:
        """Ask the engine to quit, then make sure it is gone."""
        if self.pondering:
            self.stop_ponder(grace_s=0.5)
        if self.alive and self._process is not None:
            try:
                self._send("quit")
                self._process.wait(timeout=2)
            except (EngineError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def ensure_running(self) -> None:
        if not self.alive:
            if self._process is not None or self._failed:
                self.restarts += 1
                why = self._failed or self._death_message()
                log.warning("%s: restarting the engine (%s)", self.label, why)
            self.start()
            self._failed = ""

    # ---- game setup ----

    def set_variant(self, variant: str, chess960: bool) -> None:
        self.variant, self.chess960 = variant, chess960
        if self.alive:
            self._apply_variant()

    def _apply_variant(self) -> None:
        variant_option = self.advertised.get("uci_variant")
        if variant_option is not None:
            if variant_option.vars and self.variant not in variant_option.vars:
                log.warning("%s: engine %s does not list variant %s", self.label, self.id_name, self.variant)
            self._send(f"setoption name UCI_Variant value {self.variant}")
        if "uci_chess960" in self.advertised:
            self._send(f"setoption name UCI_Chess960 value {format_option_value(self.chess960)}")

    def new_game(self) -> None:
        self.stop_ponder()
        self.ensure_running()
        self._send("ucinewgame")
        self._sync(self.startup_timeout_s)

    # ---- searching ----

    def search(self, fen: str, moves: Sequence[str], limits: SearchLimits) -> SearchResult:
        """Search ``fen`` + ``moves`` within ``limits``.

        Raises :class:`EngineCrashed` or :class:`EngineTimeout`.

        After ``limits.deadline_ms`` the engine is told to stop; after a further ``stop_grace_ms`` without
        ``bestmove`` it is killed (and restarted by the next call).
        """
        self.stop_ponder()
        started = self._go(fen, moves, limits.go_command(), max(2.0, limits.deadline_ms / 1000))
        return self._await_bestmove(started, limits, SearchResult(bestmove=None))

    @property
    def pondering(self) -> bool:
        return self._ponder_started is not None

    def ponder(self, fen: str, moves: Sequence[str], limits: SearchLimits) -> None:
        """Start ``go ponder`` on ``fen`` + ``moves`` (the last move is the predicted reply); returns at once.

        Raises :class:`EngineError` when the engine cannot start pondering."""
        self.stop_ponder()
        self._ponder_started = self._go(fen, moves, limits.go_command(ponder=True), self.startup_timeout_s)

    def ponderhit(self, limits: SearchLimits) -> SearchResult:
        """The predicted move was played: ``ponderhit``, then wait for ``bestmove`` within ``limits``.

        ``elapsed_s`` of the result counts from the ponderhit (our clock), ``pondered_s`` the time before it.
        Raises :class:`EngineError` (also when no ponder search is running)."""
        started = self._ponder_started
        if started is None:
            raise EngineError("ponderhit without a ponder search")
        self._ponder_started = None
        hit = self.monotonic()
        self._send("ponderhit")
        result = self._await_bestmove(hit, limits, SearchResult(bestmove=None))
        result.pondered_s = hit - started
        return result

    def stop_ponder(self, grace_s: float = 2.0) -> None:
        """End a ponder search (the prediction was wrong, or the game moved on) and discard its answer.
        An engine that does not answer ``stop`` within ``grace_s`` is killed (restarted on the next call)."""
        if self._ponder_started is None:
            return
        self._ponder_started = None
        if not self.alive:
            return
        try:
            self._send("stop")
            self._lines_until_prefix("bestmove", grace_s)
        except EngineError as error:
            log.warning("%s: engine did not stop pondering (%s)", self.label, error)
            self.kill()
            self._failed = "it did not stop pondering"

    def _go(self, fen: str, moves: Sequence[str], go_command: str, sync_timeout_s: float) -> float:
        """Send the position and ``go ...``; returns when it was sent (monotonic seconds)."""
        self.ensure_running()
        self._sync(sync_timeout_s)
        position = f"position fen {fen}" + (" moves " + " ".join(moves) if moves else "")
        self._send(position)
        started = self.monotonic()
        self._send(go_command)
        return started

    def _await_bestmove(self, started: float, limits: SearchLimits, result: SearchResult) -> SearchResult:
        """Read ``info`` lines into ``result`` until ``bestmove``; stop, then kill, at the deadlines."""
        deadline = started + limits.deadline_ms / 1000
        stop_sent = False
        while True:
            remaining = deadline - self.monotonic()
            if remaining <= 0:
                if stop_sent:
                    self.kill()
                    self._failed = "it hung"
                    raise EngineTimeout(f"no bestmove {(self.monotonic() - started):.1f} s after go; "
                                        "engine killed")
                log.warning("%s: engine passed its deadline (%d ms); sending stop", self.label,
                            limits.deadline_ms)
                self._send_quietly("stop")
                stop_sent = True
                deadline = self.monotonic() + limits.stop_grace_ms / 1000
                continue
            try:
                line = self._lines.get(timeout=min(remaining, 0.5))
            except queue.Empty:
                if not self.alive:
                    raise self._crashed() from None
                continue
            if line is _EOF:
                raise self._crashed()
            if line.startswith("info "):
                parse_info(line, result)
            elif line.startswith("bestmove"):
                tokens = line.split()
                has_move = len(tokens) > 1 and tokens[1] not in ("(none)", "0000")
                result.bestmove = tokens[1] if has_move else None
                if len(tokens) > 3 and tokens[2] == "ponder":
                    result.ponder = tokens[3]
                result.elapsed_s = self.monotonic() - started
                return result

    # ---- plumbing ----

    def _crashed(self) -> EngineCrashed:
        """Note a dead process (restarted on the next call) and build the error to raise."""
        message = self._death_message()
        self._failed = message
        self.kill()
        return EngineCrashed(message)

    def _death_message(self) -> str:
        process = self._process
        code = None
        if process is not None:
            try:  # its output ended: give the OS a moment to report how it died (``-9`` = killed)
                code = process.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                code = process.poll()
        return f"engine process exited (code {code})"

    def _send(self, command: str) -> None:
        process = self._process
        if process is None or process.stdin is None:
            raise EngineCrashed("engine is not running")
        try:
            process.stdin.write(command + "\n")
            process.stdin.flush()
        except (OSError, ValueError):
            raise EngineCrashed(self._death_message()) from None

    def _send_quietly(self, command: str) -> None:
        try:
            self._send(command)
        except EngineError:
            pass

    def _lines_until(self, token: str, timeout_s: float) -> list[str]:
        """Collect lines until one equals ``token``. Raises on EOF and on timeout (killing the process)."""
        collected: list[str] = []
        deadline = self.monotonic() + timeout_s
        while True:
            remaining = deadline - self.monotonic()
            if remaining <= 0:
                self.kill()
                self._failed = f"no '{token}' within {timeout_s:g} s"
                raise EngineTimeout(f"engine did not answer '{token}' within {timeout_s:g} s")
            try:
                line = self._lines.get(timeout=min(remaining, 0.5))
            except queue.Empty:
                continue
            if line is _EOF:
                raise self._crashed()
            if line.strip() == token:
                return collected
            collected.append(line)

    def _lines_until_prefix(self, prefix: str, timeout_s: float) -> str:
        """Skip lines until one starts with ``prefix``; return it. Raises on EOF and timeout (no kill)."""
        deadline = self.monotonic() + timeout_s
        while True:
            remaining = deadline - self.monotonic()
            if remaining <= 0:
                raise EngineTimeout(f"no '{prefix}' within {timeout_s:g} s")
            try:
                line = self._lines.get(timeout=min(remaining, 0.5))
            except queue.Empty:
                continue
            if line is _EOF:
                raise self._crashed()
            if line.startswith(prefix):
                return line

    def _sync(self, timeout_s: float) -> None:
        """``isready`` / ``readyok``, discarding anything left over from an earlier search."""
        self._send("isready")
        self._lines_until("readyok", timeout_s)

    @staticmethod
    def _read_stdout(process: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
        assert process.stdout is not None
        try:
            for line in process.stdout:
                lines.put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        lines.put(_EOF)

    def _read_stderr(self, process: subprocess.Popen[str]) -> None:
        assert process.stderr is not None
        try:
            for line in process.stderr:
                if line.strip():
                    log.warning("%s: engine stderr: %s", self.label, line.rstrip()[:500])
        except (OSError, ValueError):
            pass

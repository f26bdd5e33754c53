"""The UCI client: one engine process spoken to in UCI, used by the bot (the bundled engine, Fairy-Stockfish or
any UCI engine), the match runner (``tools/match``) and the loopback server's engine opponent.

Nothing trusts the engine to be alive or quick: every wait has a deadline, a process that dies is restarted
on the next call, and a search that overruns its deadline is stopped (``stop``) and, if the engine still does
not answer, killed. The bot then plays a fallback move; one bad engine costs one move's quality, never the
game.

Pondering: :meth:`UciEngine.ponder` starts ``go ponder`` on the position after the predicted reply and returns
at once; when the reply comes, :meth:`UciEngine.ponderhit` turns it into a normal search (whose ``bestmove`` is
then awaited under the usual deadline), and any other move or event calls :meth:`UciEngine.stop_ponder`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from bot.engines.client import EngineClient, OptionValue
from bot.engines.limits import GoLimits
from bot.engines.process import EngineCrashed, EngineError, EngineStartError, EngineTimeout
from bot.engines.result import EngineReply, parse_info

log = logging.getLogger(__name__)

@dataclass
class UciOption:
    """An option the engine advertised: ``option name UCI_Variant type combo default chess var chess ...``;
    a ``spin`` has its ``minimum`` and ``maximum``."""

    name: str
    type: str
    vars: list[str] = field(default_factory=list)
    minimum: int | None = None
    maximum: int | None = None


def _integer_after(words: list[str], keyword: str) -> int | None:
    for index, word in enumerate(words[:-1]):
        if word == keyword:
            try:
                return int(words[index + 1])
            except ValueError:
                return None
    return None


def parse_option(line: str) -> UciOption | None:
    """An ``option name ... type ...`` line -> :class:`UciOption` (option names may contain spaces)."""
    if not line.startswith("option name "):
        return None
    name, separator, after = line[len("option name "):].partition(" type ")
    if not separator or not name.strip():
        return None
    words = after.split()
    kind = words[0] if words else ""
    return UciOption(name.strip(), kind, [words[i + 1] for i, word in enumerate(words[:-1]) if word == "var"],
                     _integer_after(words, "min") if kind == "spin" else None,
                     _integer_after(words, "max") if kind == "spin" else None)


def format_option_value(value: OptionValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class UciEngine(EngineClient):
    """One UCI engine (see :class:`~bot.engines.client.EngineClient` for ``options`` and ``strict``).
    ``ponder``: tell the engine it may be asked to ponder."""

    def __init__(self, command: Sequence[str], options: Mapping[str, OptionValue] | None = None, *,
                 label: str = "engine", startup_timeout_s: float = 20.0, ponder: bool = False,
                 strict: bool = False, cwd: str | None = None, own_session: bool = False, echo: bool = False,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        super().__init__(command, options, label=label, startup_timeout_s=startup_timeout_s, strict=strict,
                         cwd=cwd, own_session=own_session, echo=echo, monotonic=monotonic)
        self.ponder_enabled = ponder
        self.advertised: dict[str, UciOption] = {}
        self._ponder_started: float | None = None  # set while a ``go ponder`` runs

    # ---- process management ----

    def _forget_session(self) -> None:
        self._ponder_started = None

    def _open(self) -> None:
        """The handshake, the options and the variant, then ``readyok``."""
        self._handshake()
        for name, value in self.options.items():
            self.set_option(name, value)
        if self.ponder_enabled and self.supports("Ponder") and "ponder" not in {
                name.lower() for name in self.options}:
            self.process.send("setoption name Ponder value true")  # UCI: it may be asked to ponder
        self._apply_variant()
        self.ping(self.startup_timeout_s)

    def _handshake(self) -> None:
        self.advertised = {}
        self.process.send("uci")
        for line in self.process.read_until(lambda text: text.strip() == "uciok", self.startup_timeout_s,
                                            "uciok"):
            if line.startswith("id name "):
                self.id_name = line[len("id name "):].strip()
            option = parse_option(line)
            if option is not None:
                self.advertised[option.name.lower()] = option

    def close(self) -> None:
        """Ask the engine to quit, then make sure it is gone."""
        if self.pondering:
            self.stop_ponder(grace_s=0.5)
        self.process.quit("quit")

    # ---- configuration ----

    def supports(self, option_name: str) -> bool:
        """Whether the engine advertised the option (names compare without case, as UCI says)."""
        return option_name.lower() in self.advertised

    def set_option(self, name: str, value: OptionValue) -> None:
        """``setoption``; in strict mode an option the engine does not have is an :class:`EngineStartError`."""
        option = self.advertised.get(name.lower())
        if option is None and self.strict:
            known = ", ".join(sorted(o.name for o in self.advertised.values())) or "none"
            raise EngineStartError(f"{self.label} ({self.id_name or 'unnamed'}) has no option {name!r}; "
                                   f"its options: {known}")
        self.process.send(f"setoption name {option.name if option else name} value {format_option_value(value)}")

    def _apply_variant(self) -> None:
        variant_option = self.advertised.get("uci_variant")
        if variant_option is not None:
            if variant_option.vars and self.variant not in variant_option.vars:
                if self.strict:
                    raise EngineStartError(f"{self.label} ({self.id_name}) does not play {self.variant!r}")
                log.warning("%s: engine %s does not list variant %s", self.label, self.id_name, self.variant)
            self.process.send(f"setoption name {variant_option.name} value {self.variant}")
        chess960_option = self.advertised.get("uci_chess960")
        if chess960_option is not None:
            self.process.send(f"setoption name {chess960_option.name} value {format_option_value(self.chess960)}")

    def ping(self, timeout_s: float) -> None:
        """``isready`` / ``readyok``, discarding anything left over from an earlier search."""
        self.process.send("isready")
        try:
            self.process.read_until(lambda text: text.strip() == "readyok", timeout_s, "readyok")
        except EngineTimeout:
            self.process.kill()
            self._failed = f"no 'readyok' within {timeout_s:g} s"
            raise EngineTimeout(f"engine did not answer 'isready' within {timeout_s:g} s") from None

    def new_game(self) -> None:
        self.stop_ponder()
        self.ensure_running()
        self.process.send("ucinewgame")
        self.ping(self.startup_timeout_s)

    # ---- searching ----

    def go(self, position: str, go: str, deadline_s: float, stop_grace_s: float,
           on_info: Callable[[str], None] | None = None) -> EngineReply:
        """Send ``position`` and ``go`` and wait for ``bestmove``, reading ``info`` lines on the way.

        At ``deadline_s`` the engine is told to ``stop``; a ``bestmove`` within ``stop_grace_s`` after that is
        returned with ``late=True``. Without one the engine is killed (restarted by the next call) and
        :class:`EngineTimeout` raised. A dead engine raises :class:`EngineCrashed`. ``elapsed_s`` runs from
        writing ``go`` to the arrival of ``bestmove``. ``on_info`` also gets every ``info`` line as it came
        (a tool that wants each iteration, not only the last)."""
        self.process.drain()
        self.process.send(position)
        started = self.monotonic()
        self.process.send(go)
        return self._await_bestmove(started, deadline_s, stop_grace_s, EngineReply(bestmove=None), on_info)

    def search(self, fen: str, moves: Sequence[str], limits: GoLimits) -> EngineReply:
        """Search ``fen`` + ``moves`` within the bot's ``limits`` (the engine restarted first if it died)."""
        self.stop_ponder()
        self.ensure_running()
        self._sync(max(2.0, limits.deadline_ms / 1000))
        return self.go(position_command(fen, moves), limits.go_command(), limits.deadline_ms / 1000,
                       limits.stop_grace_ms / 1000)

    @property
    def pondering(self) -> bool:
        return self._ponder_started is not None

    def ponder(self, fen: str, moves: Sequence[str], limits: GoLimits) -> None:
        """Start ``go ponder`` on ``fen`` + ``moves`` (the last move is the predicted reply); returns at once.
        Raises :class:`EngineError` when the engine cannot start pondering."""
        self.stop_ponder()
        self.ensure_running()
        self._sync(self.startup_timeout_s)
        self.process.send(position_command(fen, moves))
        self._ponder_started = self.monotonic()
        self.process.send(limits.go_command(ponder=True))

    def ponderhit(self, limits: GoLimits) -> EngineReply:
        """The predicted move was played: ``ponderhit``, then wait for ``bestmove`` within ``limits``.

        ``elapsed_s`` of the result counts from the ponderhit (our clock), ``pondered_s`` the time before it.
        Raises :class:`EngineError` (also when no ponder search is running)."""
        started = self._ponder_started
        if started is None:
            raise EngineError("ponderhit without a ponder search")
        self._ponder_started = None
        hit = self.monotonic()
        self.process.send("ponderhit")
        result = self._await_bestmove(hit, limits.deadline_ms / 1000, limits.stop_grace_ms / 1000,
                                      EngineReply(bestmove=None))
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
            self.process.send("stop")
            self.process.read_until(lambda text: text.startswith("bestmove"), grace_s, "bestmove after stop")
        except EngineError as error:
            log.warning("%s: engine did not stop pondering (%s)", self.label, error)
            self.process.kill()
            self._failed = "it did not stop pondering"

    def _await_bestmove(self, started: float, deadline_s: float, stop_grace_s: float,
                        result: EngineReply, on_info: Callable[[str], None] | None = None) -> EngineReply:
        """Read ``info`` lines into ``result`` (and ``on_info``) until ``bestmove``; stop, then kill, at the
        deadlines."""

        def answer(line: str) -> bool:
            if line.startswith("info "):
                parse_info(line, result)
                if on_info is not None:
                    on_info(line)
            return line.startswith("bestmove")

        arrival, line, late = self._await_answer(started, deadline_s, stop_grace_s, interrupt="stop",
                                                 waiting_for="bestmove", answer=answer)
        tokens = line.split()
        has_move = len(tokens) > 1 and tokens[1] not in ("(none)", "0000")
        result.bestmove = tokens[1] if has_move else None
        if len(tokens) > 3 and tokens[2] == "ponder":
            result.ponder = tokens[3]
        result.elapsed_s = arrival - started
        result.late = late
        return result


def position_command(fen: str, moves: Sequence[str]) -> str:
    """``position fen FEN [moves ...]``."""
    return f"position fen {fen}" + (" moves " + " ".join(moves) if moves else "")


__all__ = ["EngineCrashed", "EngineError", "EngineStartError", "EngineTimeout", "EngineReply", "UciEngine",
           "UciOption", "format_option_value", "parse_option", "position_command"]

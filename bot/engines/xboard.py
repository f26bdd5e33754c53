"""The XBoard (CECP, protocol version 2) client: for S-chess engines that do not speak UCI, such as Sjaak II
(``sjaakii``) and Fairy-Max (``fairymax``). Same process layer, deadlines and restarts as the UCI client
(:class:`~bot.engines.client.EngineClient`); only the conversation differs.

The conversation, as the bot holds it:

- start: ``xboard``, ``protover 2``; every ``feature`` is answered ``accepted NAME`` or ``rejected NAME`` until
  ``done=1`` (``done=0`` means: wait longer, up to the start-up timeout). An engine that sends no feature within
  :data:`FEATURE_WAIT_S` is taken for a protocol-1 engine (no ``setboard``, no ``ping``). Then ``easy`` (no
  pondering: the bot ponders with UCI engines only), ``post`` (thinking output, for the score), ``memory``,
  ``cores`` and ``option NAME=VALUE`` from ``engine.options``.
- position: ``force``, ``new``, ``variant seirawan``, ``setboard FEN`` (S-chess FEN with the hand in brackets and
  the gates in the castling field, as Fairy-Stockfish writes it), then the moves (``usermove MOVE`` when the engine
  asked for ``usermove=1``). When the game only grew since the engine's last move, just the new moves are sent.
  An engine without ``setboard`` (Fairy-Max) can only start from the variant's start position.
- search: ``sd N`` (depth), ``st N`` (a fixed move time, whole seconds) or ``level 0 M:SS INC`` with
  ``time``/``otim`` (our and their clock in centiseconds), then ``go``; the answer is ``move MOVE``. At the
  deadline ``?`` (move now); without a move after the grace the engine is killed and restarted on the next call.
- end: ``quit``.

Move notation, checked against Sjaak II 1.4.1 and Fairy-Max 5.0b: both read and write moves as Fairy-Stockfish's
UCI does: a gate is a suffix letter (``g1f3h``), castling with a gate on the king's square is ``e1g1h`` and on the
rook's square rook-to-king ``h1e1h``. Sjaak II's thinking output is SAN (``Nf3/H``, ``O-O/Eh1``). Every move an
engine prints is read with :class:`engine.Board`: coordinates first, then SAN (``O-O``, ``O-O/He1``); a move that
is neither is returned as printed, and the game worker rejects it like any illegal engine move. In Chess960
(``variant fischerandom``) castling is sent as ``O-O``/``O-O-O``, as XBoard does.
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.engines.client import EngineClient, OptionValue
from bot.engines.limits import GoLimits
from bot.engines.process import EngineCrashed, EngineError, EngineStartError, EngineTimeout
from bot.engines.result import MATE_CP, EngineReply, Score

log = logging.getLogger(__name__)

#: How long a protocol-2 engine has to send its first features (the CECP spec's two seconds, with room for a
#: busy machine); ``done=0`` extends the wait to the start-up timeout.
FEATURE_WAIT_S = 5.0

#: Features this client understands. Any other is answered ``rejected``, and so is ``san=1`` (moves are sent and
#: read in coordinates; the engine then keeps to them).
KNOWN_FEATURES = frozenset({
    "ping", "setboard", "playother", "san", "usermove", "time", "draw", "sigint", "sigterm", "reuse", "analyze",
    "myname", "myversion", "variants", "colors", "ics", "name", "pause", "nps", "debug", "memory", "smp", "egt",
    "option", "exclude", "setscore", "highlight", "done",
})

#: Defaults of the CECP spec for features an engine does not mention.
DEFAULT_FEATURES = {"ping": "0", "setboard": "0", "usermove": "0", "time": "1", "reuse": "1", "san": "0",
                    "memory": "0", "smp": "0", "sigint": "1", "sigterm": "1"}

_FEATURE = re.compile(r'([A-Za-z_]+)=(?:"([^"]*)"|(\S+))')
_THINKING = re.compile(r"^\s*(\d+)[.&]?\s+(-?\d+)\s+(\d+)\s+(\d+)(?:\s+(.*))?$")
_RESULT = re.compile(r"^(1-0|0-1|1/2-1/2|\*)(\s|$)")
_MOVE_NUMBER = re.compile(r"^\d+\.+$")
#: XBoard mate scores: +-(100000 + moves to mate)
XBOARD_MATE = 100_000


@dataclass
class XBoardOption:
    """``feature option="Resign Threshold -spin 800 200 1200"`` -> name ``Resign Threshold``, type ``spin``,
    ``minimum`` 200, ``maximum`` 1200; a ``combo``'s choices in ``vars``."""

    name: str
    type: str
    vars: list[str] = field(default_factory=list)
    minimum: int | None = None
    maximum: int | None = None


def parse_features(line: str) -> list[tuple[str, str]]:
    """``feature ping=1 myname="Sjaak II 1.4.1" done=1`` -> ``[("ping", "1"), ("myname", "Sjaak II 1.4.1"), ...]``."""
    if not line.startswith("feature "):
        return []
    return [(match[1], match[2] if match[2] is not None else match[3])
            for match in _FEATURE.finditer(line[len("feature "):])]


def parse_xboard_option(text: str) -> XBoardOption | None:
    """The value of a ``feature option="..."``: ``NAME -TYPE ...`` (``-spin DEFAULT MIN MAX``,
    ``-combo A /// *B /// C``)."""
    name, separator, rest = text.partition(" -")
    if not separator or not name.strip():
        return None
    words = rest.split()
    kind = words[0] if words else ""
    option = XBoardOption(name.strip(), kind)
    if kind in ("spin", "slider") and len(words) >= 4:
        try:
            option.minimum, option.maximum = int(words[2]), int(words[3])
        except ValueError:
            pass
    elif kind == "combo":
        option.vars = [choice.strip().lstrip("*") for choice in rest[len(kind):].split("///") if choice.strip()]
    return option


def xboard_variant(variant: str, chess960: bool) -> str:
    """The CECP variant name of one of the bot's variants. S-chess960 has none (neither Sjaak II nor Fairy-Max
    plays it): :class:`EngineStartError`."""
    if variant == "seirawan" and not chess960:
        return "seirawan"
    if variant == "chess":
        return "fischerandom" if chess960 else "normal"
    raise EngineStartError(f"XBoard engines have no variant for {variant}{'960' if chess960 else ''}; "
                           "play it with a UCI engine (Fairy-Stockfish)")


def parse_thinking(line: str, result: EngineReply) -> list[str] | None:
    """Fold a ``post`` line (``ply score time nodes pv``; score in centipawns, mates as +-(100000 + n)) into
    ``result``; returns the PV as printed, or None when the line is not thinking output."""
    match = _THINKING.match(line)
    if match is None:
        return None
    depth, score, nodes = int(match[1]), int(match[2]), int(match[4])
    result.depth, result.nodes = depth, nodes
    if abs(score) >= XBOARD_MATE:
        moves = abs(score) - XBOARD_MATE
        result.score = Score(mate=moves if score > 0 else -moves)
    else:
        result.score = Score(cp=max(-MATE_CP + 1, min(MATE_CP - 1, score)))
    return (match[5] or "").split()


def engine_move(board: Any, text: str) -> Any | None:
    """The legal move an engine's text names in ``board``: coordinates (``g1f3h``, ``h1e1h``, also the other
    castling spelling) or SAN (``Nf3/H``, ``O-O/Eh1``, ``Ke1-f1/E``); None when it names none."""
    from bot.engines.notation import parse_move  # engine.Board: imported late

    move = parse_move(board, text)
    if move is not None:
        return move
    try:
        move = board.parse_san(text)
    except ValueError:
        return None
    return move if move in board.legal_moves else None


def translate_pv(board: Any, tokens: Sequence[str]) -> list[str]:
    """An engine's PV (coordinates or SAN with move numbers) -> UCI moves, as far as they are legal."""
    replay = board.copy()
    pv: list[str] = []
    for token in tokens:
        if _MOVE_NUMBER.match(token) or token.strip(".") == "":
            continue
        move = engine_move(replay, token)
        if move is None:
            break
        pv.append(move.uci())
        replay.push(move)
    return pv


def refuses(line: str, sent: Sequence[str]) -> bool:
    """Whether ``line`` refuses one of the moves ``sent`` (Fairy-Max: ``Illegal move:e1h1h``, Sjaak II:
    ``Error (Illegal move or unknown command): e1h1h``); an unknown command is not a refused move."""
    return "illegal move" in line.lower() and any(text in line for text in sent)


def to_engine(board: Any, move: Any, chess960: bool) -> str:
    """Our move in the engine's notation: Fairy-Stockfish's UCI, which Sjaak II and Fairy-Max read; in Chess960
    castling is ``O-O``/``O-O-O``."""
    if chess960:
        san = board.san(move)
        if san.startswith("O-O"):
            return "O-O-O" if san.startswith("O-O-O") else "O-O"
    return str(move.uci())


def clock_text(ms: int) -> str:
    """Milliseconds -> ``level``'s ``M:SS`` (at least one second)."""
    seconds = max(1, ms // 1000)
    return f"{seconds // 60}:{seconds % 60:02d}"


class XBoardEngine(EngineClient):
    """One XBoard engine (see the module text). ``options``: ``memory``/``hash`` (MB) and ``cores``/``threads``
    become the ``memory`` and ``cores`` commands; any other name is sent as ``option NAME=VALUE`` when the
    engine announced it (``feature option``), else warned about (an error in strict mode). ``ponder`` is
    accepted for symmetry with :class:`~bot.engines.uci.UciEngine` and ignored: this client sends ``easy``."""

    def __init__(self, command: Sequence[str], options: Mapping[str, OptionValue] | None = None, *,
                 label: str = "engine", startup_timeout_s: float = 20.0, ponder: bool = False,
                 strict: bool = False, cwd: str | None = None, own_session: bool = False, echo: bool = False,
                 monotonic: Callable[[], float] = time.monotonic, feature_timeout_s: float = FEATURE_WAIT_S) -> None:
        super().__init__(command, options, label=label, startup_timeout_s=startup_timeout_s, strict=strict,
                         cwd=cwd, own_session=own_session, echo=echo, monotonic=monotonic)
        self.feature_timeout_s = feature_timeout_s
        self.features: dict[str, str] = {}
        self.xoptions: dict[str, XBoardOption] = {}
        self._known: tuple[str, list[str]] | None = None  # (FEN, moves) on the engine's board
        self._pings = 0
        self._games = 0
        #: the last board replayed: ((FEN, variant, chess960), moves, board, moves as sent to the engine)
        self._replayed: tuple[tuple[str, str, bool], list[str], Any, list[str]] | None = None

    # ---- process management ----

    def feature(self, name: str) -> str:
        """A feature as the engine announced it, or the spec's default."""
        return self.features.get(name, DEFAULT_FEATURES.get(name, ""))

    @property
    def variants(self) -> list[str]:
        """The variants the engine announced (``normal`` when it announced none)."""
        return [name.strip() for name in self.feature("variants").split(",") if name.strip()] or ["normal"]

    def _forget_session(self) -> None:
        self._known = None

    def _open(self) -> None:
        self._handshake()
        self.process.send("easy")
        self.process.send("post")
        for name, value in self.options.items():
            self.set_option(name, value)
        self.ping(self.startup_timeout_s)

    def _handshake(self) -> None:
        """``xboard``, ``protover 2`` and the features until ``done=1``."""
        self.features, self.xoptions = {}, {}
        self.process.send("xboard")
        self.process.send("protover 2")
        opened = self.monotonic()
        deadline = opened + min(self.feature_timeout_s, self.startup_timeout_s)
        waiting = False  # done=0 seen
        while True:
            try:
                _arrival, line = self.process.read_line(deadline, "feature done=1")
            except EngineTimeout:
                if waiting:
                    raise EngineStartError(f"no 'feature done=1' within {self.startup_timeout_s:g} s") from None
                log.info("%s: no features from the engine; taking it for a protocol-1 engine", self.label)
                break
            done = None
            for name, value in parse_features(line):
                self._take_feature(name, value)
                if name == "done":
                    done = value
            if done == "0":
                waiting, deadline = True, opened + self.startup_timeout_s
            elif done == "1":
                break
        self.id_name = self.features.get("myname") or self.id_name

    def _take_feature(self, name: str, value: str) -> None:
        accepted = name in KNOWN_FEATURES and not (name == "san" and value == "1")
        self.process.send(f"{'accepted' if accepted else 'rejected'} {name}")
        if not accepted:
            return
        if name == "option":
            option = parse_xboard_option(value)
            if option is not None:
                self.xoptions[option.name.lower()] = option
        elif name != "done":
            self.features[name] = value

    def close(self) -> None:
        """``quit``, then make sure the engine is gone."""
        self.process.quit("quit")

    # ---- configuration ----

    def set_option(self, name: str, value: OptionValue) -> None:
        """``memory N``, ``cores N`` or ``option NAME=VALUE`` (see the class text)."""
        key = name.lower()
        if key in ("memory", "hash") and self.feature("memory") == "1":
            self.process.send(f"memory {value}")
            return
        if key in ("cores", "threads") and self.feature("smp") == "1":
            self.process.send(f"cores {value}")
            return
        option = self.xoptions.get(key)
        if option is None:
            known = ", ".join(sorted(o.name for o in self.xoptions.values())) or "none"
            message = f"{self.label} ({self.id_name}) has no option {name!r}; its options: {known}"
            if self.strict:
                raise EngineStartError(message)
            log.warning("%s; not sent", message)
            return
        if option.type == "button":
            self.process.send(f"option {option.name}")
        else:
            text = ("1" if value else "0") if isinstance(value, bool) else str(value)
            self.process.send(f"option {option.name}={text}")

    def ping(self, timeout_s: float) -> None:
        """``ping N`` / ``pong N``, discarding what came before the ``pong``."""
        self._round_trip(timeout_s)

    def _round_trip(self, timeout_s: float) -> list[str]:
        """``ping N`` and the lines up to ``pong N`` (none with an engine without ``ping=1``: then the lines
        already there)."""
        if self.feature("ping") != "1":
            return self.process.drain()
        self._pings += 1
        token = f"pong {self._pings}"
        self.process.send(f"ping {self._pings}")
        try:
            return self.process.read_until(lambda text: text.strip() == token, timeout_s, token)
        except EngineTimeout:
            self.kill()
            self._failed = f"no '{token}' within {timeout_s:g} s"
            raise EngineTimeout(f"engine did not answer 'ping' within {timeout_s:g} s") from None
        except EngineCrashed as error:
            self._note_crash(error)
            raise

    def new_game(self) -> None:
        self.ensure_running()
        if self.feature("reuse") == "0" and self._games:
            self.restart()  # the engine asked for a fresh process per game
        self._games += 1
        self._known = None
        self._sync(self.startup_timeout_s)
        self._engine_variant()  # refused now, before the first move, if the engine cannot play it

    def _engine_variant(self) -> str:
        """The CECP name of this game's variant; :class:`EngineStartError` if the engine does not list it."""
        variant = xboard_variant(self.variant, self.chess960)
        if variant not in self.variants:
            raise EngineStartError(f"{self.id_name} does not play variant {variant!r} (it lists "
                                   f"{', '.join(self.variants)})")
        return variant

    # ---- searching ----

    def _replay(self, fen: str, moves: Sequence[str]) -> tuple[Any, list[str]]:
        """The board after ``fen`` + ``moves`` and the moves in the engine's notation."""
        from bot.engines.notation import parse_move
        from engine import Board

        cached = self._replayed
        if (cached is not None and cached[0] == (fen, self.variant, self.chess960)
                and list(moves[:len(cached[1])]) == cached[1]):
            board, spelled, first = cached[2].copy(), list(cached[3]), len(cached[1])
        else:
            board, spelled, first = Board(fen, variant=self.variant, chess960=self.chess960), [], 0
        for uci in moves[first:]:
            move = parse_move(board, uci)
            if move is None:
                raise EngineError(f"move {uci!r} is illegal in {board.fen()}")
            spelled.append(to_engine(board, move, self.chess960))
            board.push(move)
        self._replayed = ((fen, self.variant, self.chess960), list(moves), board.copy(), list(spelled))
        return board, spelled

    def _set_position(self, fen: str, moves: Sequence[str], spelled: Sequence[str]) -> Sequence[str]:
        """Bring the engine's board to ``fen`` + ``moves`` in force mode (only the new moves when it can);
        returns the moves sent."""
        self.process.send("force")
        known, self._known = self._known, None
        if known is not None and known[0] == fen and list(moves[:len(known[1])]) == known[1]:
            first = len(known[1])
        else:
            variant = self._engine_variant()
            self.process.send("new")
            if variant != "normal":
                self.process.send(f"variant {variant}")
            self.process.send("force")
            if self.feature("setboard") == "1":
                self.process.send(f"setboard {fen}")
            elif self._start_fen(fen) != self._start_fen():
                raise EngineError(f"{self.id_name} cannot set up a position (no setboard): {fen}")
            first = 0
        prefix = "usermove " if self.feature("usermove") == "1" else ""
        sent = spelled[first:]
        for text in sent:
            self.process.send(prefix + text)
        refused = [line.strip() for line in self._round_trip(self.startup_timeout_s) if refuses(line, sent)]
        if refused:
            raise EngineError(f"the engine refused a move: {refused[0]}")
        self._known = (fen, list(moves))
        return sent

    def _start_fen(self, fen: str | None = None) -> str:
        """``fen`` as the board writes it, or the variant's start position."""
        from engine import Board

        return str(Board(fen, variant=self.variant, chess960=self.chess960 and fen is not None).fen())

    def limit_commands(self, limits: GoLimits, white_to_move: bool) -> list[str]:
        """``sd``, then ``st`` or ``level`` + ``time``/``otim`` (centiseconds) for ``limits``."""
        commands = []
        if limits.depth is not None:
            commands.append(f"sd {limits.depth}")
        if limits.movetime_ms is not None:
            commands.append(f"st {max(1, math.ceil(limits.movetime_ms / 1000))}")
        elif limits.wtime_ms is not None and limits.btime_ms is not None:
            ours, theirs = (limits.wtime_ms, limits.btime_ms) if white_to_move else (limits.btime_ms,
                                                                                    limits.wtime_ms)
            increment = (limits.winc_ms if white_to_move else limits.binc_ms) or 0
            commands.append(f"level 0 {clock_text(ours)} {increment / 1000:g}")
            if self.feature("time") != "0":
                commands += [f"time {max(1, ours // 10)}", f"otim {max(1, theirs // 10)}"]
        return commands

    def search(self, fen: str, moves: Sequence[str], limits: GoLimits) -> EngineReply:
        """Search ``fen`` + ``moves`` within the bot's ``limits`` (the engine restarted first if it died).

        ``bestmove`` is the engine's move in UCI as :class:`engine.Board` spells it, or the engine's text when
        it names no legal move (the game worker rejects it), or None when the engine resigned or claimed a
        result instead of moving."""
        self.ensure_running()
        board, spelled = self._replay(fen, moves)
        sent = self._set_position(fen, moves, spelled)
        for command in self.limit_commands(limits, bool(board.turn)):
            self.process.send(command)
        result = EngineReply(bestmove=None)
        pv: list[str] = []

        def answer(line: str) -> bool:
            nonlocal pv
            thinking = parse_thinking(line, result)
            if thinking is not None:
                pv = thinking
                return False
            text = line.strip()
            return (text.startswith("move ") or text == "resign" or _RESULT.match(text) is not None
                    or refuses(text, sent))

        movetime = limits.movetime_ms
        started = self.monotonic()
        self.process.send("go")
        arrival, line, late = self._await_answer(
            started, limits.deadline_ms / 1000, limits.stop_grace_ms / 1000, interrupt="?", waiting_for="move",
            answer=answer, interrupt_at_s=movetime / 1000 if movetime is not None and movetime % 1000 else None)
        result.elapsed_s, result.late = arrival - started, late
        text = line.strip()
        if not text.startswith("move "):
            self._known = None
            if refuses(text, sent):
                raise EngineError(f"the engine refused a move: {text}")
            log.info("%s: the engine answered %r instead of a move", self.label, text)
            return result
        said = text.split()[1] if len(text.split()) > 1 else ""
        move = engine_move(board, said)
        if move is None:
            self._known = None
            result.bestmove = said
            return result
        result.bestmove = move.uci()
        self._known = (fen, [*moves, result.bestmove])
        result.pv = translate_pv(board, pv)
        if result.pv[:1] != [result.bestmove]:  # Fairy-Max prints g1f3 in the PV for its move g1f3h
            result.pv = [result.bestmove]
        result.ponder = result.pv[1] if len(result.pv) > 1 else None
        return result


__all__ = ["XBoardEngine", "XBoardOption", "clock_text", "engine_move", "parse_features", "parse_thinking",
           "parse_xboard_option", "refuses", "to_engine", "translate_pv", "xboard_variant"]

"""The engine's UCI options, each declared once: :data:`OPTIONS`.

Each :class:`Option` carries its name, type, default, bounds or choices, what it means and what a change does
(python-chess's ``Option``, Stockfish's ``OptionsMap``). The ``uci`` answer (:meth:`Option.declaration`),
the checks of ``setoption`` (:meth:`Option.parse`), the engine's starting values (:class:`OptionValues`) and
the option table of ``docs/engine.md`` (:func:`markdown_table`) are all read from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Protocol, Union

from .book import DEFAULT_BOOK
from .timeman import MOVE_OVERHEAD_MAX_MS, MOVE_OVERHEAD_MS
from .variants import VARIANT_NAMES, split_variant_name

Value = Union[bool, int, str, None]

#: ``EvalFile``'s default: the built-in net of the variant being played (engine.nnue.builtin_net).
EVAL_FILE_BUILT_IN = "<built-in>"
#: What a GUI sends for an empty string option (Cute Chess, Stockfish's convention).
EMPTY = "<empty>"
MAX_THREADS = 64
_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")
_PACKAGE = Path(__file__).resolve().parent


class OptionListener(Protocol):
    """What a change of an option asks of the engine (:class:`engine.uci.UciFrontEnd`)."""

    def new_rules(self) -> None:
        """The variant changed: its start position and its evaluation."""

    def new_position(self) -> None:
        """The castling rules changed: the variant's start position."""

    def resize_table(self) -> None:
        """``Hash`` changed."""

    def restart_helpers(self) -> None:
        """``Threads`` changed."""

    def clear_table(self) -> None:
        """``Clear Hash``: empty the table and the history."""

    def close_book(self) -> None:
        """``BookFile`` changed: open the new one at the next ``go``."""

    def configure_net(self) -> None:
        """``Use NNUE`` changed: evaluate with a net or without, as it says."""

    def reload_net(self) -> None:
        """``EvalFile`` changed: load the net again, even from the same path."""


OnChange = Callable[[OptionListener], None]


@dataclass(frozen=True)
class Option:
    """One UCI option. ``field`` names its value in :class:`OptionValues` (none for a button);
    ``on_change`` is what the engine does after ``setoption`` set it; ``meaning`` is the docs' text; a string
    option's empty value (or ``<empty>``) stands for ``empty``."""

    name: str
    type: str  # check, spin, combo, button or string
    meaning: str
    default: Value = None
    min: Optional[int] = None
    max: Optional[int] = None
    var: tuple[str, ...] = ()
    field: str = ""
    on_change: Optional[OnChange] = None
    empty: str = ""

    def declaration(self) -> str:
        """The line of the ``uci`` answer: ``option name Hash type spin default 16 min 1 max 1024``."""
        text = f"option name {self.name} type {self.type}"
        if self.type != "button":
            text += f" default {self.shown(self.default)}"
        if self.type == "spin":
            text += f" min {self.min} max {self.max}"
        for choice in self.var:
            text += f" var {choice}"
        return text

    @staticmethod
    def shown(value: Value) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        return EMPTY if value == "" else str(value)

    def parse(self, text: str) -> Value:
        """The value ``setoption ... value TEXT`` sets; ValueError, naming the option, when it is out of bounds,
        not one of the choices or not of the option's type."""
        value = text.strip()
        if self.type == "check":
            if value.lower() in _TRUE:
                return True
            if value.lower() in _FALSE:
                return False
            raise ValueError(f"option {self.name}: expected true or false, got {text!r}")
        if self.type == "spin":
            assert self.min is not None and self.max is not None
            try:
                number = int(value)
            except ValueError:
                raise ValueError(f"option {self.name}: expected an integer, got {text!r}") from None
            if not self.min <= number <= self.max:
                raise ValueError(f"option {self.name}: {number} is outside {self.min}..{self.max}")
            return number
        if self.type == "combo":
            if value.lower() in self.var:
                return value.lower()
            choices = ", ".join(self.var[:-1]) + f" or {self.var[-1]}"
            raise ValueError(f"option {self.name}: expected {choices}, got {text!r}")
        if self.type == "string":
            return self.empty if value in ("", EMPTY) else value
        return None  # a button


OPTIONS: tuple[Option, ...] = (
    Option("UCI_Variant", "combo", "the rules ([variants.md](variants.md)); `seirawan960` and `chess960` are "
           "`seirawan` and `chess` with `UCI_Chess960` on. A change sets up the variant's start position",
           default="seirawan", var=VARIANT_NAMES, field="variant_name",
           on_change=lambda engine: engine.new_rules()),
    Option("UCI_Chess960", "check", "Chess960 castling (S-chess960 with `seirawan`); the variants without a "
           "Chess960 form ignore it. A change sets up the variant's start position",
           default=False, field="chess960_on", on_change=lambda engine: engine.new_position()),
    Option("Hash", "spin", "transposition table size in MB", default=16, min=1, max=1024, field="hash_mb",
           on_change=lambda engine: engine.resize_table()),
    Option("Threads", "spin", "search processes: above 1, Lazy SMP with `Threads - 1` helper processes "
           "(below)", default=1, min=1, max=MAX_THREADS, field="threads",
           on_change=lambda engine: engine.restart_helpers()),
    Option("Clear Hash", "button", "empty the table (and the move history)",
           on_change=lambda engine: engine.clear_table()),
    Option("Move Overhead", "spin", "ms kept back from every move for process and pipe latency",
           default=MOVE_OVERHEAD_MS, min=0, max=MOVE_OVERHEAD_MAX_MS, field="move_overhead"),
    Option("Skill Level", "spin", "below 20 plays weaker (\"Search\")", default=20, min=0, max=20,
           field="skill_level"),
    Option("UCI_LimitStrength", "check", "when on, `UCI_Elo` is mapped to a skill level", default=False,
           field="limit_strength"),
    Option("UCI_Elo", "spin", "the strength `UCI_LimitStrength` asks for", default=2850, min=1350, max=2850,
           field="elo"),
    Option("Ponder", "check", "lets the GUI send `go ponder`; the search itself ponders on whatever position it "
           "is given", default=False, field="ponder"),
    Option("OwnBook", "check", "answer `go` from the opening book when the position is in it "
           "(`info string book move ...`)", default=False, field="own_book"),
    Option("BookFile", "string", "the book: an S-chess `.book` or a Polyglot `.bin` ([book.md](book.md)); "
           "`<empty>` for none", default=DEFAULT_BOOK, field="book_file",
           on_change=lambda engine: engine.close_book()),
    Option("Use NNUE", "combo", "`auto`: the learned net in the variants where it beats the hand-made "
           "evaluation at a fixed time in this build (S-House; S-chess, S-chess960, chess and Chess960 in the "
           "compiled build), the "
           "hand-made evaluation elsewhere; `true`: the net in every variant; `false`: the hand-made evaluation "
           "everywhere. The built-in nets are of version 2 (the hand-made evaluation plus the net; "
           "[nnue.md](nnue.md))", default="auto", var=("auto", "true", "false"), field="use_nnue",
           on_change=lambda engine: engine.configure_net()),
    Option("EvalFile", "string", "the net for `Use NNUE`: `<built-in>` (or empty) is the variant's own in "
           "`engine/data/` (`shouse-nnue.bin` for S-House, `schess-nnue.bin` for the others), a path is the net "
           "of every variant; one that cannot be read gives `info string error: EvalFile: ...` and the built-in "
           "net (or the hand-made evaluation)", default=EVAL_FILE_BUILT_IN, field="eval_file",
           empty=EVAL_FILE_BUILT_IN, on_change=lambda engine: engine.reload_net()),
)
BY_NAME = {option.name.lower(): option for option in OPTIONS}  # UCI option names compare without case


def find(name: str) -> Option:
    """The option called ``name`` (any case); ValueError for an unknown one."""
    option = BY_NAME.get(name.strip().lower())
    if option is None:
        raise ValueError(f"unknown option {name!r}")
    return option


class OptionValues:
    """The current value of every option, starting at its default; ``set`` checks a new one."""

    variant_name: str
    chess960_on: bool
    hash_mb: int
    threads: int
    move_overhead: int
    skill_level: int
    limit_strength: bool
    elo: int
    ponder: bool
    own_book: bool
    book_file: str
    use_nnue: str  # auto, true or false
    eval_file: str  # EVAL_FILE_BUILT_IN (the variant's built-in net in engine/data/) or a path

    def __init__(self) -> None:
        for option in OPTIONS:
            if option.field:
                setattr(self, option.field, option.default)

    def set(self, name: str, text: str) -> Option:
        """``setoption name NAME value TEXT``: check and store the value (nothing changes when it is refused),
        and return the option, whose ``on_change`` the caller runs."""
        option = find(name)
        value = option.parse(text)
        if option.field:
            setattr(self, option.field, value)
        return option

    @property
    def variant(self) -> str:
        """The rules of ``UCI_Variant``: ``seirawan`` for ``seirawan960``."""
        return split_variant_name(self.variant_name)[0]

    @property
    def chess960(self) -> bool:
        """Chess960 castling: ``UCI_Chess960``, or a 960 name in ``UCI_Variant``."""
        return self.chess960_on or split_variant_name(self.variant_name)[1]

    def effective_skill(self) -> int:
        """The Skill Level the search plays at: ``UCI_Elo`` mapped onto it under ``UCI_LimitStrength``."""
        if not self.limit_strength:
            return self.skill_level
        elo, skill = BY_NAME["uci_elo"], BY_NAME["skill level"]
        assert elo.min is not None and elo.max is not None and skill.max is not None
        return max(0, min(skill.max, (self.elo - elo.min) * skill.max // (elo.max - elo.min)))


def markdown_table() -> str:
    """The option table of ``docs/engine.md``'s UCI section."""
    rows = ["| option | type | default | values | meaning |", "|---|---|---|---|---|"]
    for option in OPTIONS:
        default = option.default
        if isinstance(default, str) and Path(default).is_absolute():
            default = Path(default).relative_to(_PACKAGE.parent).as_posix()  # a file of the package
        shown = "" if option.type == "button" else f"`{Option.shown(default)}`"
        if option.type == "spin":
            values = f"{option.min}..{option.max}"
        elif option.var:
            values = ", ".join(f"`{choice}`" for choice in option.var)
        elif option.type == "check":
            values = "`true`, `false`"
        else:
            values = ""
        rows.append(f"| `{option.name}` | {option.type} | {shown} | {values} | {option.meaning} |")
    return "\n".join(rows)

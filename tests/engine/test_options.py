"""The UCI options: what the ``uci`` answer advertises is what ``setoption`` accepts (each option at its bounds
and each choice of a combo taken, a value outside them refused and changing nothing), and ``UCI_Variant``'s
960 names."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pytest

from engine.options import OPTIONS, find
from engine.uci import UciFrontEnd


class QuietEngine(UciFrontEnd):
    """A front end that records a ``Hash`` or ``Threads`` change instead of allocating the table or starting
    helper processes (1024 MB and 63 processes at the bounds)."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.changes: list[str] = []
        super().__init__(self.out.append)

    def resize_table(self) -> None:
        self.changes.append("resize_table")

    def restart_helpers(self) -> None:
        self.changes.append("restart_helpers")

    def errors(self) -> list[str]:
        found = [line for line in self.out if line.startswith("info string error")]
        self.out.clear()
        return found


@dataclass
class Advertised:
    """An option as the ``uci`` answer states it."""

    name: str
    type: str
    fields: dict[str, str] = field(default_factory=dict)  # default, min, max
    var: list[str] = field(default_factory=list)


def advertised() -> list[Advertised]:
    """The options of the ``uci`` answer, read from its lines alone."""
    engine = QuietEngine()
    engine.handle("uci")
    engine.stop_search()
    options = []
    for line in engine.out:
        if not line.startswith("option name "):
            continue
        parts = re.split(r" (type|default|min|max|var) ", line[len("option name "):])
        option = Advertised(parts[0], parts[2])
        for key, value in zip(parts[3::2], parts[4::2], strict=True):
            if key == "var":
                option.var.append(value)
            else:
                option.fields[key] = value
        options.append(option)
    return options


ADVERTISED = advertised()


def accepted_and_refused(option: Advertised) -> tuple[list[str], list[str]]:
    """Values ``setoption`` must take for an advertised option, and values it must refuse."""
    if option.type == "spin":
        low, high = int(option.fields["min"]), int(option.fields["max"])
        return [str(low), str(high), option.fields["default"]], [str(low - 1), str(high + 1), "many"]
    if option.type == "combo":
        return option.var, ["no-such-value"]
    if option.type == "check":
        return ["true", "false"], ["maybe"]
    return [], []


def test_the_uci_answer_advertises_every_option_of_the_table_once() -> None:
    assert [option.name for option in ADVERTISED] == [option.name for option in OPTIONS]


@pytest.mark.parametrize("option", [option for option in ADVERTISED if option.type in ("spin", "combo", "check")],
                         ids=lambda option: option.name)
def test_setoption_takes_every_advertised_value_and_refuses_the_others(option: Advertised) -> None:
    engine = QuietEngine()
    name = option.name
    field = find(name).field
    accepted, refused = accepted_and_refused(option)
    for value in accepted:
        engine.handle(f"setoption name {name} value {value}")
        assert engine.errors() == [], f"{name} {value}"
        stored = getattr(engine.options, field)
        assert str(stored).lower() == value.lower(), f"{name} {value}: stored {stored!r}"
    before = getattr(engine.options, field)
    for value in refused:
        engine.handle(f"setoption name {name} value {value}")
        errors = engine.errors()
        assert len(errors) == 1 and f"option {name}: " in errors[0], f"{name} {value}: {errors}"
        assert getattr(engine.options, field) == before, f"{name} {value} changed the value"
    engine.stop_search()


def test_the_advertised_defaults_are_the_starting_values() -> None:
    engine = QuietEngine()
    for option in ADVERTISED:
        if option.type == "button":
            assert option.fields == {} and option.var == [], option.name
            continue
        value = getattr(engine.options, find(option.name).field)
        shown = ("true" if value else "false") if isinstance(value, bool) else str(value) or "<empty>"
        assert shown == option.fields["default"], option.name
    engine.stop_search()


def test_a_change_of_hash_or_threads_reaches_the_table_and_the_helpers() -> None:
    engine = QuietEngine()
    engine.handle("setoption name Hash value 1024")
    engine.handle("setoption name threads value 64")  # option names compare without case
    engine.handle("setoption name Hash value 0")
    assert engine.changes == ["resize_table", "restart_helpers"]
    assert (engine.options.hash_mb, engine.options.threads) == (1024, 64)


def test_string_options_take_empty_for_their_empty_meaning() -> None:
    engine = QuietEngine()
    engine.handle("setoption name BookFile value <empty>")
    engine.handle("setoption name EvalFile value")
    assert engine.errors() == []
    assert (engine.options.book_file, engine.options.eval_file) == ("", "<built-in>")


def test_uci_variant_seirawan960_is_s_chess_with_chess960_castling() -> None:
    fen = "qbbrnkrn/pppppppp/8/8/8/8/PPPPPPPP/QBBRNKRN[HEhe] w ABCDEFGHabcdefgh - 0 1"
    engine = QuietEngine()
    engine.handle("setoption name UCI_Variant value seirawan960")
    engine.handle(f"position fen {fen} moves g2g3 g7g6")
    assert engine.errors() == []
    assert (engine.board.variant, engine.board.chess960) == ("seirawan", True)
    engine.handle("setoption name UCI_Variant value seirawan")  # UCI_Chess960 is off: S-chess again
    assert (engine.board.variant, engine.board.chess960) == ("seirawan", False)
    engine.handle("setoption name UCI_Variant value chess960")
    assert (engine.board.variant, engine.board.chess960) == ("chess", True)
    engine.handle("setoption name UCI_Variant value shouse")
    engine.handle("setoption name UCI_Chess960 value true")  # S-House has no 960 form: ignored
    engine.handle("position startpos")
    assert (engine.board.variant, engine.board.chess960) == ("shouse", False)
    assert engine.errors() == []


@pytest.mark.parametrize("elo, skill", [(1350, 0), (2100, 10), (2850, 20)])
def test_uci_elo_maps_onto_the_skill_levels(elo: int, skill: int) -> None:
    engine = QuietEngine()
    engine.handle("setoption name UCI_LimitStrength value true")
    engine.handle(f"setoption name UCI_Elo value {elo}")
    assert engine.options.effective_skill() == skill

"""House rules of the source tree (issues 19, 47 and 61): no two classes with one name; a game's context written
by its worker alone, and no part of the worker holding another.

Two classes with one name make every reader ask which one is meant; checked over the shipped packages
(``bot/``, ``engine/``, ``tools/``), tests exempt. A class's length is not capped here: a number invites code
that stops one line short of it and moves the rest into module functions (issue 47), so whether a class holds
two jobs is a question for review, not for a line count.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "engine", "tools")


def _classes() -> list[tuple[str, str, int]]:
    """(name, "path:line", lines from the ``class`` line to its last line) of every class in the packages,
    nested classes included."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    end = node.end_lineno if node.end_lineno is not None else node.lineno
                    where = f"{path.relative_to(ROOT)}:{node.lineno}"
                    found.append((node.name, where, end - node.lineno + 1))
    return found


def test_the_scan_sees_the_packages() -> None:
    names = {name for name, _, _ in _classes()}
    assert {"Searcher", "UciFrontEnd", "Board"} <= names


def test_no_two_classes_share_a_name() -> None:
    places: dict[str, list[str]] = defaultdict(list)
    for name, where, _ in _classes():
        places[name].append(where)
    shared = [f"{name} ({', '.join(wheres)})" for name, wheres in sorted(places.items()) if len(wheres) > 1]
    assert not shared, "class names used more than once: " + "; ".join(shared)


# ---- issue 61: the game worker is the only writer of a game's state ----

#: the one module that may write a game's :class:`~bot.game.context.GameContext`
WRITER = "bot/game/worker.py"
#: methods that change the object they are called on (lists, dicts, sets, a GameBoard's update, a board's push)
MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem",
                      "add", "discard", "sort", "reverse", "push", "push_san", "pop_move"})


def _is_context_annotation(annotation: ast.expr | None) -> bool:
    return annotation is not None and "GameContext" in ast.unparse(annotation)


def _derived(node: ast.expr | None, roots: set[str]) -> bool:
    """``node`` is a game's context or reached from it: a name in ``roots``, any ``<x>.game``, an attribute or
    item of one."""
    if isinstance(node, ast.Name):
        return node.id in roots
    if isinstance(node, ast.Attribute):
        return node.attr == "game" or _derived(node.value, roots)
    if isinstance(node, (ast.Subscript, ast.Starred)):
        return _derived(node.value, roots)
    if isinstance(node, ast.IfExp):
        return _derived(node.body, roots) or _derived(node.orelse, roots)
    return False


def _bind(target: ast.expr, value: ast.expr | None, roots: set[str]) -> bool:
    """Add ``target`` to ``roots`` when ``value`` is the context or reached from it; True when it is new."""
    if isinstance(target, ast.Name) and target.id not in roots and _derived(value, roots):
        roots.add(target.id)
        return True
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
            and len(target.elts) == len(value.elts):
        return any([_bind(name, part, roots) for name, part in zip(target.elts, value.elts, strict=True)])
    return False


def _written(target: ast.expr, roots: set[str]) -> bool:
    """An assignment to ``target`` writes into the context."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_written(part, roots) for part in target.elts)
    if isinstance(target, ast.Starred):
        return _written(target.value, roots)
    return isinstance(target, (ast.Attribute, ast.Subscript)) and _derived(target.value, roots)


def _function_writes(function: ast.FunctionDef | ast.AsyncFunctionDef, self_is_context: bool) -> list[tuple[int, str]]:
    """The context writes in one function (see :func:`_context_writes`)."""
    arguments = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
    roots = {argument.arg for argument in arguments if _is_context_annotation(argument.annotation)}
    if self_is_context and arguments:
        roots.add(arguments[0].arg)
    changed = True
    while changed:  # names bound from names bound from the context, in any order
        changed = False
        for node in ast.walk(function):
            if isinstance(node, ast.Assign):
                changed = any([_bind(target, node.value, roots) for target in node.targets]) or changed
            elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)):
                changed = _bind(node.target, node.value, roots) or changed
    writes = []
    for node in ast.walk(function):
        targets: list[ast.expr] = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Call):
            call = node.func
            if isinstance(call, ast.Attribute) and call.attr in MUTATORS and _derived(call.value, roots) \
                    or isinstance(call, ast.Name) and call.id in ("setattr", "delattr") and node.args \
                    and _derived(node.args[0], roots):
                writes.append((node.lineno, ast.unparse(node)))
        if isinstance(node, ast.stmt) and any(_written(target, roots) for target in targets):
            writes.append((node.lineno, ast.unparse(node).splitlines()[0]))
    return writes


def _context_writes(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, code) of every write to a game's context in ``tree``: an assignment (plain, augmented, ``del``,
    ``setattr``) to an attribute or item of the context or of anything reached from it (``game.clocks[1] = ``,
    ``game.position.server_moves = ``), or a call of a changing method on it (``game.scores.append``,
    ``game.position.update``). The context is any ``<x>.game`` (the worker's and every part's name for it), a
    parameter annotated ``GameContext``, ``self`` in ``GameContext``'s own methods, and a local name bound to
    one of these or to something reached from one (``position = game.position``)."""
    in_context: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "GameContext":
            in_context |= {id(item) for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
    writes = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            writes += _function_writes(node, id(node) in in_context)
    return sorted(set(writes))


def _context_writes_in_bot() -> dict[str, list[tuple[int, str]]]:
    found = {}
    for path in sorted((ROOT / "bot").rglob("*.py")):
        writes = _context_writes(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        if writes:
            found[path.relative_to(ROOT).as_posix()] = writes
    return found


def test_only_the_worker_writes_a_games_context() -> None:
    """Issue 61: a game's context (phase, state, position, outcome, scores, notes, clocks...) has one writer,
    ``bot/game/worker.py``; every part (``watch``, ``leaving``, ``moves``, ``ponder``, ``talk``, ``ending``...)
    reads it and returns verdicts (``bot/game/verdicts.py``) that the worker carries out. Fails on a part, a
    helper or another layer that writes it, or on a method of ``GameContext`` that changes it."""
    found = _context_writes_in_bot()
    assert WRITER in found, "the scan must see the worker's own writes (game.phase = ...)"
    others = [f"{path}:{line}: {code}" for path, writes in found.items() if path != WRITER for line, code in writes]
    assert not others, "only bot/game/worker.py may write a game's context (return a verdict instead):\n" + \
        "\n".join(others)


@pytest.mark.parametrize("source", [
    "def f(game: GameContext):\n    game.outcome = None",
    "def f(game: GameContext | None):\n    game.end_reason += 'x'",
    "class P:\n    def m(self):\n        self.game.scores.append(1)",
    "class P:\n    def m(self):\n        game = self.game\n        game.clocks[1] = 2",
    "class P:\n    def m(self):\n        game, note = self.game, self.note\n        game.we_resigned = True",
    "class P:\n    def m(self):\n        position = self.game.position\n        position.update([])",
    "class P:\n    def m(self):\n        self.game.position.board.push(move)",
    "class P:\n    def m(self):\n        setattr(self.game, 'phase', None)",
    "def f(worker):\n    worker.game.phase = None",
    "def f(worker):\n    del worker.game.move_notes[0]",
    "class GameContext:\n    def end(self, reason):\n        self.phase = reason",
])
def test_the_context_scan_finds_a_write(source: str) -> None:
    assert _context_writes(ast.parse(source)), source


@pytest.mark.parametrize("source", [
    "class P:\n    def __init__(self, game: GameContext):\n        self.game = game\n        self.seen = game.state",
    "class P:\n    def m(self):\n        board = self.game.position.board.copy()\n        board.push(move)",
    "class P:\n    def m(self):\n        times = []\n        times.append(self.game.state_received_at)",
    "class P:\n    def m(self):\n        self.game.server.resign_game(self.game.game_id)",
])
def test_the_context_scan_lets_reads_pass(source: str) -> None:
    assert not _context_writes(ast.parse(source)), source


def _parts() -> dict[str, ast.ClassDef]:
    """The game worker's parts: the classes of ``bot/game`` (the worker aside) built on a game's context."""
    parts = {}
    for path in sorted((ROOT / "bot" / "game").glob("*.py")):
        if path.relative_to(ROOT).as_posix() == WRITER:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.ClassDef):
                init = next((item for item in node.body if isinstance(item, ast.FunctionDef)
                             and item.name == "__init__"), None)
                if init is not None and any(_is_context_annotation(argument.annotation)
                                            for argument in [*init.args.args, *init.args.kwonlyargs]):
                    parts[node.name] = node
    return parts


def test_no_part_of_a_game_holds_a_sibling() -> None:
    """Issue 61: the parts take values and return verdicts; none holds (or is handed) another part, so what
    one part needs of another goes through the worker, and each part can be read, and tested, on its own."""
    parts = _parts()
    assert {"ServerWatch", "Leaving", "Ending", "MoveMaker", "Ponderer", "Talk"} <= set(parts)
    held = []
    for name, part in parts.items():
        annotations = [node.annotation for node in ast.walk(part) if isinstance(node, (ast.arg, ast.AnnAssign))]
        mentioned = {node.id for node in ast.walk(part) if isinstance(node, ast.Name)} \
            | {node.attr for node in ast.walk(part) if isinstance(node, ast.Attribute)} \
            | {word for annotation in annotations if annotation is not None  # "Talk" in quotes too
               for word in re.findall(r"\w+", ast.unparse(annotation))}
        held += [f"{name} names {other}" for other in sorted(mentioned & set(parts) - {name})]
    worker = ast.parse((ROOT / WRITER).read_text(encoding="utf-8"))
    built = [node for node in ast.walk(worker) if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
             and isinstance(node.value.func, ast.Name) and node.value.func.id in parts]
    holders = {target.attr for node in built for target in node.targets if isinstance(target, ast.Attribute)}
    assert {"watch", "leaving", "ending", "mover", "ponderer", "talk"} <= holders
    for node in built:
        call = node.value
        assert isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
        for argument in [*call.args, *(keyword.value for keyword in call.keywords)]:
            handed = {item.attr for item in ast.walk(argument) if isinstance(item, ast.Attribute)} & holders
            held += [f"{WRITER}:{node.lineno}: {call.func.id} is handed {other}" for other in sorted(handed)]
    assert not held, "a part of the game worker holds a sibling (let the worker pass values instead):\n" + \
        "\n".join(held)


def test_only_a_builds_skip_passes_fail_on_skip() -> None:
    """tests/conftest.py: under --fail-on-skip (CI) a skip fails the run unless the engine build explains it."""
    from types import SimpleNamespace

    from tests.conftest import unexpected_skips

    def skipped(reason: str) -> SimpleNamespace:
        return SimpleNamespace(nodeid="tests/x.py::test_x", longrepr=("tests/x.py", 3, f"Skipped: {reason}"))

    assert unexpected_skips([skipped("pure-Python build: no compiled move ordering"),
                             skipped("compiled build: the fields are C functions")]) == []
    assert unexpected_skips([skipped("Fairy-Stockfish is not installed")]) == [
        "tests/x.py::test_x: Skipped: Fairy-Stockfish is not installed"]

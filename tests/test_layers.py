"""The layers contract (issue 29): the folder tree is the architecture, and imports run one way.

``bot/`` is a stack of packages; each may import only the packages listed for it in :data:`BOT_LAYERS` (the
root ``bot`` package, which holds only the version and the token's variable name, is open to all and imports
no layer; no ``bot`` module imports ``tools``). ``engine`` imports nothing from ``bot`` or ``tools``, and its
modules import only what :data:`ENGINE_IMPORTS` lists for each (the rules nothing of the evaluation or the search,
the search in a line tt <- search <- smp <- uci). A ``tools`` package imports ``engine``, ``bot.engines`` and
``bot.records`` only (the benchmark of the running bot and the soak, all of ``bot``), and no other tool. No
import cycle exists among the modules of ``bot``, ``engine`` and ``tools``: an import inside a function counts,
and so does one under ``if TYPE_CHECKING:`` (a type is a dependency too; a cycle hidden there is still two
modules that need each other).

The checker is plain ``ast``; Cython files (``.pyx``, and the ``.pxd`` declarations beside a module) count too,
by their import and ``cimport`` lines. It is tested below on planted trees, so a broken checker cannot pass
silently.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "engine", "tools")

#: what each bot package may import from the rest of bot (itself always; the root ``bot`` always)
BOT_LAYERS: Mapping[str, frozenset[str]] = {
    "app": frozenset({"lobby", "game", "wire", "engines", "records", "config", "loopback", "metrics"}),
    "lobby": frozenset({"game", "wire", "engines", "records", "config", "metrics"}),
    "game": frozenset({"wire", "engines", "records", "config", "metrics"}),
    "wire": frozenset({"records", "config", "metrics"}),
    "loopback": frozenset({"engines", "records"}),
    "engines": frozenset({"metrics"}),
    "records": frozenset(),
    "config": frozenset(),
    # the process's counters, which every layer may count into; it imports nothing else of bot
    "metrics": frozenset(),
    # the entry points: ``python -m bot`` and ``python -m bot.health``
    "__main__": frozenset({"app"}),
    "health": frozenset({"app"}),
}
#: what each engine module may import from the engine (itself always). The rules know the board and the moves,
#: never the evaluation or the search; the search runs in a line, tt <- search <- smp <- uci; the front ends
#: sit on top. A new module gets a line here.
_RULES = {
    "tables": set(), "variants": set(), "buildinfo": set(), "polyglot_random": set(),
    "movecodes": set(),  # the move word
    "state": {"movecodes", "tables"},  # the fields of a position
    # placement and forced entry, filters on S-chess's moves
    "entry_rules": {"movecodes", "state", "tables", "variants"},
    "movegen": {"entry_rules", "movecodes", "state", "tables"},
    "fen": {"entry_rules", "movegen", "state", "tables", "variants"},
    "position": {"entry_rules", "fen", "movecodes", "movegen", "state", "tables", "variants"},
    "attacks": {"entry_rules", "movecodes", "position", "tables"},
    "san": {"movecodes", "position", "tables"},
    "board": {"movecodes", "position", "san", "tables", "variants"},
    "perft": {"position"},
}
_SEARCH = {
    "eval_weights": set(),
    "bitops": set(),  # bit scans of square masks in plain Python
    "_bitops": set(),  # their C versions (a .pxd of bitops.h's functions)
    "nnue_kernels": set(),  # the net's two hot loops in plain Python
    "_nnue_kernels": set(),  # their C versions (a .pxd of nnue_kernels.h's functions)
    # the learned evaluation: its accumulator follows make/unmake
    "nnue": {"_nnue_kernels", "nnue_kernels", "position", "state"},
    "evaluate": {"_bitops", "bitops", "eval_weights", "movecodes", "nnue", "position", "tables", "variants"},
    "ordering": {"attacks", "movecodes", "position", "tables"},  # attacks: SEE puts bad captures last
    "_ordering": {"attacks", "ordering", "movecodes", "position"},  # the compiled twin of ordering (a .pyx)
    "tt": set(),
    "timeman": set(),
    "search": {"_ordering", "attacks", "evaluate", "movecodes", "nnue", "ordering", "position", "tables", "timeman",
               "tt"},
    "sharedtable": {"tt"},
    "smp": {"board", "nnue", "search", "sharedtable"},
    "book": {"board", "polyglot_random", "position", "tables"},
}
_FRONT_ENDS = {
    "engine": {"board", "perft", "tables"},  # the package's own names
    "__main__": {"perftcli", "svg", "uci"},
    "uci": {"engine", "board", "book", "buildinfo", "nnue", "options", "perft", "search", "smp", "timeman",
            "variants"},
    "options": {"book", "timeman", "variants"},  # the UCI options, declared once
    "perftcli": {"board", "perft", "variants"},
    "svg": {"board", "svg_pieces", "tables", "variants"},
    "svg_pieces": set(),
}
ENGINE_IMPORTS: Mapping[str, frozenset[str]] = {
    name: frozenset(allowed) for group in (_RULES, _SEARCH, _FRONT_ENDS) for name, allowed in group.items()}
TOOLS_MAY_IMPORT = ("engine", "bot", "bot.engines", "bot.records")
#: tools that drive the whole bot (a benchmark of the running bot, the soak) may import all of it
WHOLE_BOT_TOOLS = frozenset({"tools.status_bench", "tools.soak"})


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(tree: ast.AST, package: str) -> Iterable[tuple[str, list[str]]]:
    """(module, names) of every import statement, with relative imports made absolute."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            yield base, [alias.name for alias in node.names]


#: an import line of a Cython file (``cimport`` too; a parenthesised list may span lines)
_CYTHON_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+c?import[ \t]+(?:\([^)]*\)|[^\n#]*)|c?import[ \t]+[^\n#]*)", re.MULTILINE)


def source_tree(path: Path) -> ast.AST:
    """The syntax tree of a module: a ``.py`` file whole; of a Cython file (``.pyx``, ``.pxd``) its import and
    ``cimport`` lines, read as imports."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        text = "\n".join(re.sub(r"\bcimport\b", "import", found.group(0).strip())
                         for found in _CYTHON_IMPORT.finditer(text))
    return ast.parse(text, filename=str(path))


def import_graph(root: Path, packages: Iterable[str] = PACKAGES) -> dict[str, set[str]]:
    """Module -> the modules of ``packages`` it imports (a ``.pxd`` file's imports count for its module).
    ``from pkg import name`` points at ``pkg.name`` when that is a module, else at ``pkg``."""
    paths: dict[str, list[Path]] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*")):
            if path.suffix in (".py", ".pyx", ".pxd") and path.is_file():
                paths.setdefault(module_name(root, path), []).append(path)
    graph: dict[str, set[str]] = {}
    for name, files in paths.items():
        targets = set()
        for path in files:
            package = name if path.stem == "__init__" else name.rpartition(".")[0]
            for module, names in _imports(source_tree(path), package):
                if module.split(".")[0] not in packages:
                    continue
                submodules = [f"{module}.{item}" for item in names if f"{module}.{item}" in paths]
                if submodules:
                    targets.update(submodules)
                if len(submodules) < len(names) or not names:
                    targets.add(module)
        graph[name] = {target for target in targets if target in paths and target != name}
    return graph


def layer_violations(graph: Mapping[str, set[str]]) -> list[str]:
    found = []
    for source, targets in sorted(graph.items()):
        top, *rest = source.split(".")
        if top == "engine" and (rest[0] if rest else "engine") not in ENGINE_IMPORTS:
            found.append(f"{source}: {source} is not listed in ENGINE_IMPORTS (say what it may import)")
            continue
        for target in sorted(targets):
            target_top, *target_rest = target.split(".")
            if top == "bot" and target_top == "tools":
                found.append(f"{source} imports {target}: bot imports nothing from tools (tools sit above it)")
            elif top == "bot" and not rest and target_top == "bot" and target_rest:
                found.append(f"{source} imports {target}: the root bot package, open to every layer, imports none")
            elif top == "bot" and rest and target_top == "bot" and target_rest:
                layer, target_layer = rest[0], target_rest[0]
                allowed = BOT_LAYERS.get(layer)
                if allowed is None:
                    found.append(f"{source}: bot.{layer} is not a known layer (add it to BOT_LAYERS)")
                elif target_layer != layer and target_layer not in allowed:
                    found.append(f"{source} imports {target}: bot.{layer} may not import bot.{target_layer}")
            elif top == "engine" and target_top != "engine":
                found.append(f"{source} imports {target}: engine imports nothing from {target_top}")
            elif top == "engine":
                own = rest[0] if rest else "engine"
                allowed = ENGINE_IMPORTS[own]
                imported = target_rest[0] if target_rest else "engine"
                if imported != own and imported not in allowed:
                    found.append(f"{source} imports {target}: engine.{own} may import "
                                 + (f"only {', '.join(sorted(allowed))}" if allowed else "nothing of the engine"))
            elif top == "tools" and rest:
                own = f"tools.{rest[0]}"
                if own in WHOLE_BOT_TOOLS and (target_top in ("bot", "engine") or target.startswith(own)):
                    continue
                if target != own and not target.startswith(own + ".") and not any(
                        target == allowed or target.startswith(allowed + ".") for allowed in TOOLS_MAY_IMPORT
                        if allowed != "bot") and target != "bot":
                    found.append(f"{source} imports {target}: {own} imports engine, bot.engines and bot.records only")
    return found


def import_cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    cycles: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(cycles)


# The contract on the shipped tree.

def test_the_scan_sees_every_layer() -> None:
    graph = import_graph(ROOT)
    layers = {name.split(".")[1] for name in graph if name.startswith("bot.")}
    assert layers == set(BOT_LAYERS)
    assert "bot.engines.limits" in graph["bot.game.timecontrol"]


def test_imports_run_down_the_layers() -> None:
    violations = layer_violations(import_graph(ROOT))
    assert not violations, "imports against the layers:\n" + "\n".join(violations)


def test_no_import_cycle() -> None:
    cycles = import_cycles(import_graph(ROOT))
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(cycle) for cycle in cycles)


# The checker itself, on planted trees.

def _plant(root: Path, files: Mapping[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_a_planted_upward_import_is_caught(tmp_path: Path) -> None:
    root = _plant(tmp_path, {
        "bot/__init__.py": "", "bot/wire/__init__.py": "", "bot/game/__init__.py": "",
        "bot/game/worker.py": "from bot.wire.server import Server\n",
        "bot/wire/server.py": "def reply():\n    from bot.game.worker import GameWorker\n",
    })
    assert layer_violations(import_graph(root, ["bot"])) == [
        "bot.wire.server imports bot.game.worker: bot.wire may not import bot.game"]


def test_the_bot_importing_a_tool_or_its_root_importing_a_layer_is_caught(tmp_path: Path) -> None:
    root = _plant(tmp_path, {
        "bot/__init__.py": "from bot.game import GameWorker\n", "bot/game/__init__.py": "",
        "bot/engines/__init__.py": "", "bot/engines/uci.py": "import tools.match.stats\n",
        "tools/__init__.py": "", "tools/match/__init__.py": "", "tools/match/stats.py": "",
    })
    assert layer_violations(import_graph(root, ["bot", "tools"])) == [
        "bot imports bot.game: the root bot package, open to every layer, imports none",
        "bot.engines.uci imports tools.match.stats: bot imports nothing from tools (tools sit above it)"]


def test_a_planted_cycle_is_caught(tmp_path: Path) -> None:
    root = _plant(tmp_path, {
        "engine/__init__.py": "", "engine/search.py": "from engine import smp\n",
        "engine/smp.py": "from engine.search import Searcher\n", "engine/tt.py": "import engine.search\n",
    })
    assert import_cycles(import_graph(root, ["engine"])) == [["engine.search", "engine.smp"]]


def test_a_cycle_through_type_checking_and_relative_imports_is_caught(tmp_path: Path) -> None:
    root = _plant(tmp_path, {
        "bot/__init__.py": "", "bot/game/__init__.py": "",
        "bot/game/a.py": "from . import b\n",
        "bot/game/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import A\n",
        "bot/game/c.py": "from .b import B\n",
    })
    assert import_cycles(import_graph(root, ["bot"])) == [["bot.game.a", "bot.game.b"]]


def test_engine_importing_the_bot_or_off_its_list_is_caught(tmp_path: Path) -> None:
    root = _plant(tmp_path, {
        "engine/__init__.py": "", "engine/attacks.py": "from engine.evaluate import evaluate\n",
        "engine/evaluate.py": "", "engine/uci.py": "import bot.config\n",
        "engine/search.py": "", "engine/tt.py": "from .search import Searcher\n",
        "engine/newcomer.py": "",
        "bot/__init__.py": "", "bot/config/__init__.py": "",
    })
    assert layer_violations(import_graph(root, ["engine", "bot"])) == [
        "engine.attacks imports engine.evaluate: engine.attacks may import only entry_rules, movecodes, position, "
        "tables",
        "engine.newcomer: engine.newcomer is not listed in ENGINE_IMPORTS (say what it may import)",
        "engine.tt imports engine.search: engine.tt may import nothing of the engine",
        "engine.uci imports bot.config: engine imports nothing from bot"]


def test_the_imports_of_cython_files_count(tmp_path: Path) -> None:
    """A ``.pyx`` module and a ``.pxd`` beside a ``.py`` one are read by their import and ``cimport`` lines."""
    root = _plant(tmp_path, {
        "engine/__init__.py": "", "engine/search.py": "", "engine/position.py": "", "engine/ordering.py": "",
        "engine/_ordering.pyx": "# cython: language_level=3\ncimport cython\nfrom engine.search cimport (\n"
                                "    Searcher,\n)\nfrom engine import ordering as _keys\ncdef int x = 1\n",
        "engine/position.pxd": "from engine.search cimport Searcher  # upward\ncdef class Position:\n    pass\n",
    })
    graph = import_graph(root, ["engine"])
    assert graph["engine._ordering"] == {"engine.search", "engine.ordering"}
    assert layer_violations(graph) == [
        "engine._ordering imports engine.search: engine._ordering may import only attacks, movecodes, ordering, "
        "position",
        "engine.position imports engine.search: engine.position may import only entry_rules, fen, movecodes, movegen, "
        "state, tables, variants"]


def test_every_wire_error_has_the_one_root() -> None:
    """bot/wire/errors.py draws the tree: a caller catching WireError catches everything the layer raises."""
    import importlib
    import inspect

    import bot.wire.errors as errors

    raised = set()
    for path in sorted((ROOT / "bot" / "wire").glob("*.py")):
        module = importlib.import_module("bot.wire" if path.stem == "__init__" else f"bot.wire.{path.stem}")
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, Exception) and value.__module__.startswith("bot.wire"):
                raised.add(value)
    assert len(raised) >= 7 and all(issubclass(error, errors.WireError) for error in raised), raised
    assert all(error.__module__ == "bot.wire.errors" for error in raised), "errors live in bot/wire/errors.py"


#: where a server kind may be named: the wire layer's Dialect objects, the config key that picks one, and the
#: loopback, which is the servers' model rather than the client's (it must not share the client's Dialect, or
#: a wrong belief about a server would pass its tests on both sides at once)
DIALECT_NAMERS = ("bot.wire", "bot.config", "bot.loopback")


def dialect_names(root: Path) -> dict[str, list[int]]:
    """Module -> the lines where a string is exactly a server kind's name (``"lichess"``, ``"pychess"``)."""
    found: dict[str, list[int]] = {}
    for path in sorted((root / "bot").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        lines = sorted({node.lineno for node in ast.walk(tree)
                        if isinstance(node, ast.Constant) and node.value in ("lichess", "pychess")})
        if lines:
            found[module_name(root, path)] = lines
    return found


def test_only_the_wire_and_the_config_name_a_server_kind() -> None:
    """Issue 29: the rest of the bot reads a capability of ``server.dialect``, never compares names."""
    found = dialect_names(ROOT)
    assert "bot.wire.dialect" in found, "the scan sees the names where they belong"
    # The root package defines the names once (bot.ServerKind, bot.SERVER_KINDS) for every layer to read.
    outside = {module: lines for module, lines in found.items() if module != "bot"
               and not any(module == allowed or module.startswith(allowed + ".") for allowed in DIALECT_NAMERS)}
    assert not outside, f"server kinds compared by name outside bot/wire: {outside}"

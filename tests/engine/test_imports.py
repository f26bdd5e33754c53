"""The engine's imports run one way (issue 29): no cycle among engine/'s modules, the rules code under the
search imports no search code, and the table modules import neither the search nor each other's drivers."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"

# What the search stands on: the rules and their tables. attacks.py answers rules questions for the search.
RULES = {"tables", "movecodes", "movegen", "fen", "position", "board", "variants", "san", "perft", "polyglot_random"}


def _imports() -> dict[str, set[str]]:
    """Module -> the engine modules it imports (relative imports, ``TYPE_CHECKING`` blocks included)."""
    graph: dict[str, set[str]] = {}
    for path in ENGINE.glob("*.py"):
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    deps.add(node.module.split(".")[0])
                else:
                    deps.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("engine."):
                deps.add((node.module or "").split(".")[1])
        graph[path.stem] = deps - {path.stem}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of ``graph`` (the modules on it), or [] when there is none."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                return stack[stack.index(dep):] + [dep]
            if dep not in state and (found := visit(dep)):
                return found
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_no_import_cycle_in_the_engine() -> None:
    assert _cycle(_imports()) == []


def test_the_cycle_check_finds_a_planted_cycle() -> None:
    graph = _imports()
    graph["tt"] = graph["tt"] | {"smp"}
    assert _cycle(graph)


def test_attacks_imports_only_rules_modules() -> None:
    assert _imports()["attacks"] <= RULES


def test_tables_search_and_helpers_in_a_straight_line() -> None:
    graph = _imports()
    assert not graph["tt"] & {"search", "smp", "sharedtable", "uci"}
    assert not graph["sharedtable"] & {"search", "smp", "uci"}
    assert not graph["search"] & {"smp", "sharedtable", "uci"}
    assert not graph["smp"] & {"uci"}

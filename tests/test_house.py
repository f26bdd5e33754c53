"""House rules of the source tree (docs/style.md, issue 19): no class over 300 lines, no two classes with one name.

A class past ~300 lines usually holds two jobs, and two classes with one name make every reader ask which one
is meant. Both are checked over the shipped packages (``bot/``, ``engine/``, ``tools/``); tests are exempt.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "engine", "tools")
MAX_CLASS_LINES = 300


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


def test_no_class_is_over_300_lines() -> None:
    too_long = [f"{name} ({where}): {lines} lines" for name, where, lines in _classes() if lines > MAX_CLASS_LINES]
    assert not too_long, f"classes over {MAX_CLASS_LINES} lines: " + "; ".join(too_long)


def test_no_two_classes_share_a_name() -> None:
    places: dict[str, list[str]] = defaultdict(list)
    for name, where, _ in _classes():
        places[name].append(where)
    shared = [f"{name} ({', '.join(wheres)})" for name, wheres in sorted(places.items()) if len(wheres) > 1]
    assert not shared, "class names used more than once: " + "; ".join(shared)

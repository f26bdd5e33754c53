"""Which build of the engine is running: the pure-Python package or the compiled one.

The compiled build (``SCHESS_ENGINE_COMPILE=1 pip install .``, see ``docs/engine.md``) turns the modules
listed in :data:`COMPILED_MODULES` into C extensions with Cython, from the same ``.py`` files plus the type
declarations in the ``.pxd`` files next to them. ``setup.py`` reads the list from here.
"""

from __future__ import annotations

import enum
import importlib
from importlib.machinery import EXTENSION_SUFFIXES

#: The engine's hot path, compiled together (the classes of a Position inherit from each other across them).
#: Each is compiled from its ``.py`` file, except ``_ordering``: a ``.pyx`` file, the compiled version of
#: ``engine/ordering.py``, which only compiled builds have.
COMPILED_MODULES = (
    "state", "movegen", "fen", "nnue", "position", "attacks", "evaluate", "tt", "search", "_ordering",
)
COMPILER = "Cython"


def compiled_modules() -> list[str]:
    """The modules of :data:`COMPILED_MODULES` that were loaded from a C extension."""
    out = []
    for name in COMPILED_MODULES:
        try:
            module = importlib.import_module(f"{__package__}.{name}")
        except ImportError:  # _ordering, in a pure-Python install
            continue
        path = getattr(module, "__file__", None) or ""
        if any(path.endswith(suffix) for suffix in EXTENSION_SUFFIXES):
            out.append(name)
    return out


class BuildKind(enum.Enum):
    """Which build runs, as a value to decide by (``build_name()`` is the text shown to people)."""

    PURE = "pure"  # every module of COMPILED_MODULES from its .py file
    COMPILED = "compiled"  # all of them C extensions
    PARTLY_COMPILED = "partly compiled"  # some of them: a mixed tree, which a normal install never produces


def build_kind() -> BuildKind:
    """The :class:`BuildKind` of the running engine."""
    found = compiled_modules()
    if not found:
        return BuildKind.PURE
    return BuildKind.COMPILED if len(found) == len(COMPILED_MODULES) else BuildKind.PARTLY_COMPILED


def build_name() -> str:
    """``compiled (Cython)`` when the search and the rules under it run compiled, else ``pure Python``
    (``partly compiled (Cython: ...)`` for a mixed tree)."""
    kind = build_kind()
    if kind is BuildKind.PURE:
        return "pure Python"
    if kind is BuildKind.COMPILED:
        return f"compiled ({COMPILER})"
    return f"partly compiled ({COMPILER}: {', '.join(compiled_modules())})"

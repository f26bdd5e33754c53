"""Build script: the metadata lives in pyproject.toml; this file only adds the compiled engine.

It compiles when it finds ``SCHESS_ENGINE_COMPILE=1``: the in-tree build backend (``build_backend/
schess_build.py``) sets that for a wheel when a C compiler and Python's headers are present (or the user set
it), and falls back to the pure-Python wheel when the compilation fails (unless the user asked for ``=1``).
Cython compiles the modules of ``engine.buildinfo.COMPILED_MODULES`` (their ``.py`` source plus the ``.pxd``
declarations next to them) and a C compiler builds them. Without the variable nothing is compiled.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
COMPILE = os.environ.get("SCHESS_ENGINE_COMPILE", "").strip() == "1"


def _compiled_modules() -> tuple[str, ...]:
    """The list from engine/buildinfo.py, read without importing the engine package."""
    spec = importlib.util.spec_from_file_location("_schess_buildinfo", ROOT / "engine" / "buildinfo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return tuple(module.COMPILED_MODULES)


def _extensions() -> list:  # type: ignore[type-arg]
    if not COMPILE:
        return []
    from Cython.Build import cythonize  # the build backend added Cython to the build requirements

    # A module with a .pyx file (_ordering, the compiled version of ordering.py) is compiled from it.
    paths = [
        f"engine/{name}.pyx" if (ROOT / "engine" / f"{name}.pyx").exists() else f"engine/{name}.py"
        for name in _compiled_modules()
    ]
    extensions = cythonize(
        paths,
        build_dir="build/cython",
        nthreads=os.cpu_count() or 1,
        compiler_directives={
            "language_level": 3,
            # Only the .pxd declarations give C types; the .py annotations stay plain Python (mypy's).
            "annotation_typing": False,
            # The engine's list and tuple indexes are in range (perft and the oracle tests check the rules in
            # this build); negative indexes stay (signed piece codes index 17-slot tables from the end).
            "boundscheck": False,
        },
    )
    for extension in extensions:  # the C headers next to the modules (nnue_kernels.h)
        extension.include_dirs.append(str(ROOT / "engine"))
    return extensions  # type: ignore[no-any-return]


class BuildPyWithSampleConfig(build_py):
    """The packages, plus the repository's commented ``config.yml`` as ``bot/config/config.yml`` (package data:
    ``schess-bot init`` writes it). One file is the source of both; a build without it fails."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's own config.yml (bot/config/sample.py)
        source = ROOT / "config.yml"
        if not source.is_file():
            raise SystemExit(f"{source} is missing: the wheel ships it as the sample config (schess-bot init)")
        target = os.path.join(self.build_lib, "bot", "config")
        self.mkpath(target)
        self.copy_file(str(source), os.path.join(target, "config.yml"))


setup(
    cmdclass={"build_py": BuildPyWithSampleConfig},
    ext_modules=_extensions(),
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
)

"""The in-tree build backend (pyproject.toml ``backend-path``): setuptools, plus Cython as a build requirement
only when ``SCHESS_ENGINE_COMPILE=1`` asks for the compiled engine (``setup.py`` then compiles it).

A plain ``pip install .`` therefore downloads no compiler tools and builds the pure-Python wheel as before.
"""

from __future__ import annotations

import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403  (every hook that is not overridden below)

CYTHON_REQUIREMENT = "Cython>=3.0,<4"


def _compile_requested() -> bool:
    return os.environ.get("SCHESS_ENGINE_COMPILE", "").strip() == "1"


def _requires(hook, config_settings):  # type: ignore[no-untyped-def]
    """setuptools' requirements plus Cython when compiling. setuptools runs setup.py to find its own: that run
    must not compile yet (Cython is not installed until pip has read this answer)."""
    compile_requested = _compile_requested()
    saved = os.environ.pop("SCHESS_ENGINE_COMPILE", None)
    try:
        requires = list(hook(config_settings))
    finally:
        if saved is not None:
            os.environ["SCHESS_ENGINE_COMPILE"] = saved
    return requires + ([CYTHON_REQUIREMENT] if compile_requested else [])


def get_requires_for_build_wheel(config_settings=None):  # type: ignore[no-untyped-def]
    return _requires(_setuptools.get_requires_for_build_wheel, config_settings)


def get_requires_for_build_editable(config_settings=None):  # type: ignore[no-untyped-def]
    return _requires(_setuptools.get_requires_for_build_editable, config_settings)

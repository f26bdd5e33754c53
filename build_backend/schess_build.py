"""The in-tree build backend (pyproject.toml ``backend-path``): setuptools, plus the compiled engine when it can
be built.

``SCHESS_ENGINE_COMPILE`` chooses:

- unset (or empty, or ``auto``): a wheel builds the compiled engine when a C compiler and Python's headers are
  present (Cython is then added to the build requirements, so pip fetches it), and falls back to the pure-Python
  engine when they are not or the compilation fails;
- ``1``: the compiled engine or an error (pip stops with the compiler's message; nothing falls back);
- ``0``: the pure-Python engine, no Cython, no compiler.

Either way the build prints one line saying which build it made (and, for a fallback, why), on standard
error (``pip install -v`` shows it) and, since pip hides a backend's output otherwise, on the terminal when
there is one and appended to ``build/schess-bot-build.log`` in the tree pip builds (the checkout, for
``pip install .``), so that a log of an install without a terminal keeps it too.
Editable installs (``pip install -e``, the test command's) stay pure unless ``SCHESS_ENGINE_COMPILE=1``.
``setup.py`` compiles only when it finds ``SCHESS_ENGINE_COMPILE=1``; this backend sets it for the attempt.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
import sysconfig
import time
from typing import Optional

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403  (every hook that is not overridden below)

CYTHON_REQUIREMENT = "Cython>=3.0,<4"
_VARIABLE = "SCHESS_ENGINE_COMPILE"


def _mode() -> str:
    """``compile`` (=1), ``pure`` (=0) or ``auto`` (anything else, unset included)."""
    value = os.environ.get(_VARIABLE, "").strip().lower()
    if value == "1":
        return "compile"
    if value == "0":
        return "pure"
    return "auto"


def _missing_toolchain() -> Optional[str]:
    """Why the compiled engine cannot be built here (no C compiler, no Python headers), or None."""
    command = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    words = shlex.split(command)
    if not words or shutil.which(words[0]) is None:
        return f"no C compiler: {words[0] + ' not found' if words else 'CC is empty'}"
    include = sysconfig.get_paths().get("include") or ""
    if not os.path.exists(os.path.join(include, "Python.h")):
        return f"no Python headers: {os.path.join(include, 'Python.h')} missing, Debian's are in python3-dev"
    return None


def _cython_available() -> bool:
    """Cython is importable (pip installs it for the build when :func:`get_requires_for_build_wheel` asks)."""
    try:
        import Cython  # noqa: F401
    except ImportError:
        return False
    return True


#: where each build's line is kept, relative to the tree pip builds (its ``build`` folder, ignored by git)
BUILD_LOG = os.path.join("build", "schess-bot-build.log")


def _say(line: str) -> None:
    """One line for the user: on standard error (pip shows it with -v or when the build fails), on the
    terminal if there is one (pip hides a backend's output otherwise), and appended to :data:`BUILD_LOG`."""
    line = f"schess-bot: {line}"
    print(line, file=sys.stderr, flush=True)
    try:
        with open("/dev/tty", "w", encoding="utf-8") as tty:
            tty.write(line + "\n")
    except OSError:
        pass
    try:
        os.makedirs(os.path.dirname(BUILD_LOG), exist_ok=True)
        with open(BUILD_LOG, "a", encoding="utf-8") as log:
            log.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}\n")
    except OSError:
        pass


def _without_compile(hook, *args):  # type: ignore[no-untyped-def]
    """Run a setuptools hook with ``SCHESS_ENGINE_COMPILE`` unset, so that setup.py compiles nothing."""
    saved = os.environ.pop(_VARIABLE, None)
    try:
        return hook(*args)
    finally:
        if saved is not None:
            os.environ[_VARIABLE] = saved


def _requires(hook, config_settings, editable: bool):  # type: ignore[no-untyped-def]
    """setuptools' requirements plus Cython when a compiled build will be tried. setuptools runs setup.py to
    find its own: that run must not compile yet (Cython is not installed until pip has read this answer)."""
    requires = list(_without_compile(hook, config_settings))
    mode = _mode()
    wants = mode == "compile" or (mode == "auto" and not editable and _missing_toolchain() is None)
    return requires + ([CYTHON_REQUIREMENT] if wants else [])


def get_requires_for_build_wheel(config_settings=None):  # type: ignore[no-untyped-def]
    return _requires(_setuptools.get_requires_for_build_wheel, config_settings, editable=False)


def get_requires_for_build_editable(config_settings=None):  # type: ignore[no-untyped-def]
    return _requires(_setuptools.get_requires_for_build_editable, config_settings, editable=True)


def _pure_wheel(wheel_directory, config_settings, metadata_directory, reason: str) -> str:  # type: ignore[no-untyped-def]
    name = _without_compile(_setuptools.build_wheel, wheel_directory, config_settings, metadata_directory)
    _say(f"built the pure-Python engine ({reason})")
    return name  # type: ignore[no-any-return]


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):  # type: ignore[no-untyped-def]
    mode = _mode()
    if mode == "pure":
        return _pure_wheel(wheel_directory, config_settings, metadata_directory, f"{_VARIABLE}=0")
    if mode == "compile":
        name = _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
        _say("built the compiled engine (Cython)")
        return name
    missing = _missing_toolchain()
    if missing is not None:
        return _pure_wheel(wheel_directory, config_settings, metadata_directory,
                           f"{missing}; the compiled one is about 5x as fast")
    if not _cython_available():
        return _pure_wheel(wheel_directory, config_settings, metadata_directory, "Cython is not installed")
    os.environ[_VARIABLE] = "1"
    try:
        name = _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    except (Exception, SystemExit) as error:  # setuptools reports a failed compiler run as SystemExit
        lines = str(error).strip().splitlines()
        reason = lines[-1] if lines else type(error).__name__
        command = re.search(r"Command '\['([^']*)'", reason)  # setuptools quotes the whole command line
        if command:
            reason = f"the C compiler {command.group(1)!r} failed"
        # What the failed attempt left (compiled modules, the Cython output) must not reach the pure wheel.
        shutil.rmtree("build", ignore_errors=True)
        return _pure_wheel(wheel_directory, config_settings, metadata_directory,
                           f"the compiled build failed: {reason[:160]}")
    finally:
        os.environ.pop(_VARIABLE, None)
    _say("built the compiled engine (Cython)")
    return name


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):  # type: ignore[no-untyped-def]
    """``pip install -e``: the source tree as it is (pure Python), compiled in place with ``=1`` only; the
    line says so, since an editable install replaces a compiled one in the same environment."""
    name = _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
    if _mode() == "compile":
        _say("editable install: the compiled engine (Cython), built in place")
    else:
        _say("editable install: the pure-Python engine (the source tree; pip install . in an environment of its "
             "own gives the compiled one)")
    return name

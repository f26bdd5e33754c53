"""What the Dockerfile, pyproject and README promise, checked without a Docker engine.

No Docker daemon runs on the build machines, so these tests read the Dockerfile and check each promise that
can be checked statically; .ci/run installs the package the way the Dockerfile does (``pip install .`` with
no extras, in a fresh virtual environment) and runs the installed console scripts.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import time
from pathlib import Path

import pytest
import tomllib

from bot import health
from bot.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def instructions(name: str) -> list[str]:
    """The arguments of every Dockerfile instruction called ``name`` (continuation lines joined)."""
    text = re.sub(r"\\\n", " ", DOCKERFILE)
    return [line.split(None, 1)[1] for line in text.splitlines() if line.strip().upper().startswith(name + " ")]


def test_image_runs_as_a_non_root_user() -> None:
    users = instructions("USER")
    assert users, "the image must switch to a non-root USER"
    assert users[-1].strip() not in ("root", "0", "0:0")


def test_no_secret_is_baked_into_the_image() -> None:
    for line in instructions("ENV") + instructions("ARG"):
        assert "TOKEN" not in line.upper(), f"a token must never be set in the image: {line}"
    assert not re.search(r"lip_[A-Za-z0-9]{10,}", DOCKERFILE), "something that looks like a Lichess token"
    dockerignore = (ROOT / ".dockerignore").read_text().split()
    for pattern in (".git", ".env", "*.token", "tests"):
        assert pattern in dockerignore


def test_entry_point_is_the_installed_console_script_with_existing_options() -> None:
    entry = instructions("ENTRYPOINT")[-1]
    argv = [part.strip().strip('"') for part in entry.strip()[1:-1].split(",")]
    assert argv[0] == "schess-bot"
    assert PYPROJECT["project"]["scripts"]["schess-bot"] == "bot.cli:main"
    # Every option the entry point passes must exist in the bot's parser.
    args = build_parser().parse_args(argv[1:])
    assert args.config == "/config/config.yml"
    assert args.heartbeat_file and args.pgn_directory == "/games"


def test_paths_the_dockerfile_copies_exist_in_the_repository() -> None:
    for line in instructions("COPY"):
        sources = shlex.split(line)[:-1]
        for source in sources:
            assert (ROOT / source).exists(), f"COPY {source}: no such path"
    assert "/games" in " ".join(instructions("VOLUME"))


def test_healthcheck_and_stop_signal() -> None:
    check = instructions("HEALTHCHECK")[-1]
    assert "bot.health" in check
    heartbeat = re.search(r"--heartbeat-file\", \"([^\"]+)\"", DOCKERFILE)
    assert heartbeat and heartbeat.group(1) in check, "the health check must read the file the bot touches"
    assert instructions("STOPSIGNAL")[-1].strip() == "SIGTERM"


def test_base_image_is_slim_python_with_a_pypy_option() -> None:
    assert re.search(r"ARG BASE_IMAGE=python:3\.\d+-slim", DOCKERFILE)
    assert "pypy" in DOCKERFILE
    runs = " ".join(instructions("RUN"))
    assert "pip install ." in runs and "[test" not in runs and "[dev" not in runs


def test_runtime_dependencies_are_only_berserk_requests_pyyaml() -> None:
    names = {re.split(r"[<>=!~\[ ]", dep)[0].lower() for dep in PYPROJECT["project"]["dependencies"]}
    assert names == {"berserk", "requests", "pyyaml"}
    assert set(PYPROJECT["project"]["scripts"]) == {"schess-bot", "schess-engine"}


def test_health_check_tells_a_live_stream_from_a_dead_one(tmp_path: Path) -> None:
    beat = tmp_path / "heartbeat"
    assert health.main([str(beat)]) == 1  # no heartbeat yet
    beat.touch()
    assert health.main([str(beat), "60"]) == 0
    old = time.time() - 120
    os.utime(beat, (old, old))
    assert health.main([str(beat), "60"]) == 1
    assert health.main([]) == 2


@pytest.mark.skipif(sys.platform == "win32", reason="shell script")
def test_ci_script_installs_fresh_and_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    readme = (ROOT / "README.md").read_text()
    assert "python3 -m venv" in ci and re.search(r"pip install (-q )?-e '\.\[test", ci)
    assert "python -m pytest" in ci and "python -m pytest" in readme
    assert "pip install -e '.[test]'" in readme and "schess-bot --sandbox" in readme

"""What the Dockerfile, pyproject and README promise, checked without a Docker engine.

No Docker daemon runs on the CI machines, so these tests read the Dockerfile and check each promise that can
be checked statically; .ci/run installs the package the way the Dockerfile does (``pip install`` with no
extras, in a fresh virtual environment) and runs the installed console scripts. docs/results.md ("The Docker
image, as checked") lists the checks made against a real Docker daemon (sandbox game, docker stop timings,
volume ownership, PyPy build).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
import time
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser as a package
    import tomli as tomllib  # type: ignore[no-redef]

from bot.app import health
from bot.app.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
README = (ROOT / "README.md").read_text()
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def instructions(name: str) -> list[str]:
    """The arguments of every Dockerfile instruction called ``name`` (continuation lines joined)."""
    text = re.sub(r"\\\n", " ", DOCKERFILE)
    return [line.split(None, 1)[1] for line in text.splitlines() if line.strip().upper().startswith(name + " ")]


def test_image_runs_as_a_non_root_uid_that_owns_the_games_volume() -> None:
    users = instructions("USER")
    assert users, "the image must switch to a non-root USER"
    uid = users[-1].strip().split(":")[0]
    assert uid.isdigit() and uid != "0", "a numeric non-root uid (runAsNonRoot can only verify numbers)"
    runs = " ".join(instructions("RUN"))
    assert f"--uid {uid}" in runs, "the user the image creates must be the one it runs as"
    # A named volume starts as a copy of the image's /games, owner included: uid must be able to write there.
    assert re.search(rf"chown {uid}(:\d+)? /games", runs)
    assert "/games" in " ".join(instructions("VOLUME"))


def test_no_secret_is_baked_into_the_image() -> None:
    for line in instructions("ENV") + instructions("ARG"):
        assert "TOKEN" not in line.upper(), f"a token must never be set in the image: {line}"
    assert not re.search(r"lip_[A-Za-z0-9]{10,}", DOCKERFILE), "something that looks like a Lichess token"
    dockerignore = (ROOT / ".dockerignore").read_text().split()
    for pattern in (".git", ".env", "*.token", "tests"):
        assert pattern in dockerignore


def entry_point() -> list[str]:
    entry = instructions("ENTRYPOINT")[-1].strip()
    assert entry.startswith("["), "exec form: no shell between docker stop's SIGTERM and the bot"
    argv: list[str] = json.loads(entry)
    return argv


def test_entry_point_is_tini_then_the_installed_console_script_with_existing_options() -> None:
    argv = entry_point()
    # tini (PID 1) passes SIGTERM to the bot alone; -g would also stop the engine processes of the games
    # the bot is finishing. It is installed from Debian in the image.
    assert argv[:3] == ["tini", "--", "schess-bot"]
    assert re.search(r"apt-get install [^&]*\btini\b", " ".join(instructions("RUN")))
    assert PYPROJECT["project"]["scripts"]["schess-bot"] == "bot.app.cli:main"
    # Every option the entry point passes must exist in the bot's parser.
    args = build_parser().parse_args(argv[3:])
    assert args.config == "/config/config.yml"
    assert args.heartbeat_file and args.pgn_directory == "/games"


def stages() -> list[str]:
    """The Dockerfile's build stages, each from its FROM line on (continuation lines joined)."""
    text = re.sub(r"\\\n", " ", DOCKERFILE)
    return re.split(r"(?m)^(?=FROM )", text)[1:]


def test_paths_the_dockerfile_copies_exist_and_are_not_dockerignored() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    for line in instructions("COPY"):
        if line.startswith("--from="):
            continue  # from the builder stage, not from the context
        sources = shlex.split(line)[:-1]
        for source in sources:
            assert (ROOT / source).exists(), f"COPY {source}: no such path"
            assert source not in ignored, f"COPY {source}, but .dockerignore leaves it out of the context"


def test_the_package_is_built_from_a_copy_that_the_same_layer_deletes() -> None:
    """No source tree, compiler, build/ or *.egg-info in the image: the builder stage builds a wheel from a
    throw-away copy of the sources, the image gets only that wheel, and the RUN that installs it removes it
    (a later RUN could not make the layer smaller)."""
    builder, image = stages()
    assert builder.startswith("FROM ${BASE_IMAGE} AS builder") and image.startswith("FROM ${BASE_IMAGE}\n")
    sources = [shlex.split(line)[-1] for line in re.findall(r"(?m)^COPY (?!--from)(.*)$", builder)]
    assert len(sources) >= 4, "pyproject.toml, setup.py, the build backend and the two packages"
    source = os.path.commonpath(sources)
    assert source.startswith("/tmp/"), f"the package sources go to one throw-away folder, not {source}"
    wheel = re.search(r"pip wheel --no-deps --wheel-dir (\S+) " + re.escape(source), builder)
    assert wheel, "the builder makes a wheel of the copied sources"
    assert "gcc" in builder and "gcc" not in image, "the compiler stays in the builder stage"
    copies = re.findall(r"(?m)^COPY (.*)$", image)
    assert f"--from=builder {wheel.group(1)} {wheel.group(1)}" in copies
    assert all(line.startswith("--from=builder") or line.endswith("/config/config.yml") for line in copies)
    install = [run for run in re.findall(r"(?m)^RUN (.*)$", image) if "pip install" in run]
    assert len(install) == 1
    assert f"pip install {wheel.group(1)}/*.whl" in install[0] and f"rm -rf {wheel.group(1)}" in install[0]
    assert "[test" not in install[0] and "[dev" not in install[0]


def test_healthcheck_and_stop_signal() -> None:
    check = instructions("HEALTHCHECK")[-1]
    assert "bot.health" in check
    heartbeat = re.search(r"--heartbeat-file\", \"([^\"]+)\"", DOCKERFILE)
    assert heartbeat and heartbeat.group(1) in check, "the health check must read the file the bot touches"
    assert instructions("STOPSIGNAL")[-1].strip() == "SIGTERM"


def test_base_image_is_a_slim_debian_python_the_project_supports() -> None:
    base = re.search(r"ARG BASE_IMAGE=python:3\.(\d+)-slim-(\w+)", DOCKERFILE)
    assert base, "the default base is an official slim Python image on a named Debian release"
    minimum = re.fullmatch(r">=3\.(\d+)", PYPROJECT["project"]["requires-python"])
    assert minimum and int(base.group(1)) >= int(minimum.group(1))
    # Debian's python3 has no "python" (PyPy images neither): call python3 everywhere.
    runs_and_checks = " ".join(instructions("RUN") + instructions("HEALTHCHECK"))
    assert not re.search(r"(?<![\w/-])python (-m|-c)", runs_and_checks)
    assert not re.search(r'"python"', runs_and_checks)


def test_the_image_ships_the_compiled_engine_and_pypy_on_request() -> None:
    # Compiled CPython beat the image's former PyPy default (docs/results.md): it is the default now.
    builder, image = stages()
    assert re.search(r"^ARG COMPILED=1$", builder, re.MULTILINE) and re.search(r"^ARG COMPILED=1$", image,
                                                                              re.MULTILINE)
    assert 'SCHESS_ENGINE_COMPILE="$COMPILED" python3 -m pip wheel' in builder
    # The image's build fails unless the installed engine is the build that was asked for.
    assert "b.build_kind() is not (b.BuildKind.COMPILED if '$COMPILED' == '1' else b.BuildKind.PURE)" in image
    assert re.search(r"^ARG WITH_PYPY=0$", image, re.MULTILINE)
    runs = " ".join(instructions("RUN"))
    assert re.search(r"apt-get install .*WITH_PYPY.*pypy3", runs)
    # With WITH_PYPY=1 the sed must match a line of the shipped config (else the image would quietly stay on
    # CPython), the build checks that it did, and checks that pypy3 -m engine answers a search.
    sed = re.search(r"sed -i 's/(\^[^/]+)/([^/]+)/'", runs)
    assert sed, "WITH_PYPY switches engine.interpreter in /config/config.yml"
    config_lines = (ROOT / "config.yml").read_text().splitlines()
    assert sed.group(1)[1:] in config_lines
    assert sed.group(2) == "  interpreter: pypy3"
    assert "grep -q '^  interpreter: pypy3' /config/config.yml" in runs
    assert "pypy3 -m engine | grep -q '^bestmove '" in runs
    assert "pypy:3" not in DOCKERFILE and "pypy:3" not in README, "the PyPy base images were never tested"


def test_build_args_in_the_docs_are_declared_in_the_dockerfile() -> None:
    declared = set(re.findall(r"^ARG (\w+)", DOCKERFILE, re.MULTILINE))
    docs = README + DOCKERFILE + (ROOT / "docs" / "docker.md").read_text()
    used = set(re.findall(r"--build-arg (\w+)=", docs))
    assert used and used <= declared, f"undeclared build args: {used - declared}"


def test_readme_docker_run_keeps_the_pgns() -> None:
    """A bind mount of a folder Docker creates is root-owned, and uid 10001 cannot write to it: the README's
    command must use the named volume (initialised from the image's /games with its owner)."""
    section = README.split("## Docker", 1)[1].split("\n## ", 1)[0]
    run = re.search(r"docker run -d [^`]*", section)
    assert run
    assert re.search(r"-v schess-games:/games\b", run.group(0))
    assert '"$PWD/games:/games"' not in run.group(0)
    assert "docker cp schess-bot:/games" in section, "say how to get the PGNs out of the volume"


def test_runtime_dependencies_are_only_berserk_requests_pyyaml_prometheus_client() -> None:
    names = {re.split(r"[<>=!~\[ ]", dep)[0].lower() for dep in PYPROJECT["project"]["dependencies"]}
    assert names == {"berserk", "requests", "pyyaml", "prometheus_client"}
    assert set(PYPROJECT["project"]["scripts"]) == {"schess-bot", "schess-engine"}


def test_both_packages_ship_their_type_information() -> None:
    package_data = PYPROJECT["tool"]["setuptools"]["package-data"]
    for package in ("bot", "engine"):
        assert (ROOT / package / "py.typed").is_file() and "py.typed" in package_data[package]


def test_the_bot_package_docstring_names_every_module() -> None:
    import pkgutil

    import bot

    modules = {module.name for module in pkgutil.iter_modules(bot.__path__)} - {"__main__"}
    assert {name for name in modules if f"``{name}``" not in (bot.__doc__ or "")} == set()


def test_the_code_map_in_docs_lists_every_module_of_the_bot() -> None:
    text = (ROOT / "docs" / "bot.md").read_text(encoding="utf-8")
    code_map = text[text.index("## Code map"):]
    modules = [path.relative_to(ROOT).as_posix() for path in sorted((ROOT / "bot").rglob("*.py"))
               if "loopback" not in path.parts and path.name not in ("__init__.py", "__main__.py")
               and path.as_posix() != (ROOT / "bot" / "health.py").as_posix()]
    assert [module for module in modules if f"`{module}`" not in code_map] == []


@pytest.mark.parametrize("layer", ["app", "lobby", "wire", "records"])
def test_each_layer_docstring_names_its_modules(layer: str) -> None:
    import importlib
    import pkgutil

    package = importlib.import_module(f"bot.{layer}")
    modules = {module.name for module in pkgutil.iter_modules(package.__path__)} - {"__main__"}
    missing = {name for name in modules if f"bot.{layer}.{name}`" not in (package.__doc__ or "")}
    assert missing == set()


def test_mypy_is_pinned() -> None:
    assert any(re.fullmatch(r"mypy==[0-9.]+", dep.split("#")[0].strip())
               for dep in PYPROJECT["project"]["optional-dependencies"]["dev"])


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


def test_the_build_backend_asks_for_cython_only_when_it_will_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    """``pip install .`` fetches Cython when a C compiler and Python's headers are there (the compiled build),
    not when they are missing, not with SCHESS_ENGINE_COMPILE=0, not for an editable install; =1 always."""
    assert PYPROJECT["build-system"]["build-backend"] == "schess_build"
    assert PYPROJECT["build-system"]["backend-path"] == ["build_backend"]
    assert not any("cython" in req.lower() for req in PYPROJECT["build-system"]["requires"])
    monkeypatch.syspath_prepend(str(ROOT / "build_backend"))
    import schess_build

    # setuptools' own hook runs setup.py, which must not compile then (Cython is not installed yet): it has
    # to run without the variable. A stand-in records what it saw (the venv's setuptools may be older than
    # the one pip's isolated build installs).
    seen: list[str | None] = []

    def setuptools_hook(config_settings: object = None) -> list[str]:
        seen.append(os.environ.get("SCHESS_ENGINE_COMPILE"))
        return ["wheel"]

    cython = ["wheel", schess_build.CYTHON_REQUIREMENT]
    monkeypatch.setattr(schess_build._setuptools, "get_requires_for_build_wheel", setuptools_hook)
    monkeypatch.setattr(schess_build._setuptools, "get_requires_for_build_editable", setuptools_hook)
    monkeypatch.delenv("SCHESS_ENGINE_COMPILE", raising=False)
    monkeypatch.setattr(schess_build, "_missing_toolchain", lambda: None)
    assert schess_build.get_requires_for_build_wheel() == cython
    assert schess_build.get_requires_for_build_editable() == ["wheel"]
    monkeypatch.setattr(schess_build, "_missing_toolchain", lambda: "no C compiler: cc not found")
    assert schess_build.get_requires_for_build_wheel() == ["wheel"]
    monkeypatch.setenv("SCHESS_ENGINE_COMPILE", "0")
    monkeypatch.setattr(schess_build, "_missing_toolchain", lambda: None)
    assert schess_build.get_requires_for_build_wheel() == ["wheel"]
    monkeypatch.setenv("SCHESS_ENGINE_COMPILE", "1")
    monkeypatch.setattr(schess_build, "_missing_toolchain", lambda: "no C compiler: cc not found")
    assert schess_build.get_requires_for_build_wheel() == cython
    assert schess_build.get_requires_for_build_editable() == cython
    assert seen == [None] * 6
    assert os.environ["SCHESS_ENGINE_COMPILE"] == "1", "the variable is back for the build that follows"


def test_the_build_backend_falls_back_to_pure_python_unless_compiling_was_asked_for(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A failed compilation gives the pure wheel and one line saying why; with SCHESS_ENGINE_COMPILE=1 the
    failure stops the build. (CI's step 1a runs the real thing: pip install . with a missing compiler.)"""
    monkeypatch.syspath_prepend(str(ROOT / "build_backend"))
    import schess_build

    builds: list[str | None] = []
    said: list[str] = []

    def setuptools_build(wheel_directory: str, config_settings: object = None, metadata: object = None) -> str:
        builds.append(os.environ.get("SCHESS_ENGINE_COMPILE"))
        if os.environ.get("SCHESS_ENGINE_COMPILE") == "1":
            raise SystemExit("error: Command '['gcc', '-O3', 'engine/search.c']' failed with exit code 1")
        return "schess_bot-0.1.0-py3-none-any.whl"

    monkeypatch.setattr(schess_build._setuptools, "build_wheel", setuptools_build)
    monkeypatch.setattr(schess_build, "_say", said.append)
    monkeypatch.setattr(schess_build, "_missing_toolchain", lambda: None)
    monkeypatch.chdir(tmp_path)  # the fallback removes ./build
    monkeypatch.delenv("SCHESS_ENGINE_COMPILE", raising=False)
    monkeypatch.setattr(schess_build, "_cython_available", lambda: True)
    assert schess_build.build_wheel(str(tmp_path)) == "schess_bot-0.1.0-py3-none-any.whl"
    assert builds == ["1", None]
    assert said == ["built the pure-Python engine (the compiled build failed: the C compiler 'gcc' failed)"]
    assert "SCHESS_ENGINE_COMPILE" not in os.environ
    monkeypatch.setattr(schess_build, "_missing_toolchain", lambda: "no C compiler: cc not found")
    schess_build.build_wheel(str(tmp_path))
    assert builds[-1] is None and said[-1].startswith("built the pure-Python engine (no C compiler: cc not found")
    monkeypatch.setenv("SCHESS_ENGINE_COMPILE", "1")
    with pytest.raises(SystemExit):
        schess_build.build_wheel(str(tmp_path))


def test_setup_compiles_exactly_the_modules_buildinfo_names_and_each_has_its_declarations() -> None:
    from engine import buildinfo

    setup_text = (ROOT / "setup.py").read_text()
    assert "COMPILED_MODULES" in setup_text and 'os.environ.get("SCHESS_ENGINE_COMPILE"' in setup_text
    for name in buildinfo.COMPILED_MODULES:
        source = [ROOT / "engine" / f"{name}.{ext}" for ext in ("py", "pyx")]
        assert any(path.exists() for path in source) and (ROOT / "engine" / f"{name}.pxd").exists(), name
    kind = buildinfo.BuildKind
    assert (buildinfo.build_kind(), buildinfo.build_name()) in ((kind.PURE, "pure Python"),
                                                                (kind.COMPILED, "compiled (Cython)"))


#: the Debian package of each program a test looks for (a test without its program is skipped)
PACKAGE_OF = {"fairy-stockfish": "fairy-stockfish", "sjaakii": "sjaakii", "fairymax": "fairymax", "pypy3": "pypy3",
              "chromium": "chromium", "chromedriver": "chromium-driver", "docker": "docker-compose",
              "docker-compose": "docker-compose"}


def test_the_readme_names_the_system_package_of_every_program_the_tests_skip_without() -> None:
    programs = set()
    for path in (ROOT / "tests").rglob("*.py"):
        programs |= {name.rsplit("/", 1)[-1] for name in re.findall(r'shutil\.which\("([^"]+)"\)', path.read_text())}
    assert programs <= set(PACKAGE_OF), f"a program the README does not name yet: {programs - set(PACKAGE_OF)}"
    line = re.search(r"sudo apt-get install ([a-z0-9 -]+)\n", README)
    assert line, "the README's apt-get line for the full suite"
    named = set(line.group(1).split())
    assert {PACKAGE_OF[program] for program in programs} | {"python3-venv"} == named
    skipped = README.split(line.group(0), 1)[1].split("\n\n")[1]
    assert all(f"`{package}`" in skipped for package in named - {"python3-venv"}), "what each one's absence skips"


def test_the_build_line_is_kept_in_a_log_and_an_editable_install_says_it_is_pure(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """pip hides a backend's output without ``-v`` (and the terminal is not a log): each build's line is also
    appended to build/schess-bot-build.log in the tree pip builds; ``pip install -e`` says that it is pure."""
    monkeypatch.syspath_prepend(str(ROOT / "build_backend"))
    import schess_build

    monkeypatch.setattr(schess_build._setuptools, "build_wheel",
                        lambda *args: "schess_bot-0.1.0-cp311-cp311-linux_x86_64.whl")
    monkeypatch.setattr(schess_build._setuptools, "build_editable",
                        lambda *args: "schess_bot-0.1.0-0.editable-py3-none-any.whl")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCHESS_ENGINE_COMPILE", "1")
    schess_build.build_wheel(str(tmp_path))
    monkeypatch.delenv("SCHESS_ENGINE_COMPILE")
    schess_build.build_editable(str(tmp_path))
    lines = (tmp_path / "build" / "schess-bot-build.log").read_text().splitlines()
    assert [line.split(" ", 2)[2] for line in lines] == [
        "schess-bot: built the compiled engine (Cython)",
        "schess-bot: editable install: the pure-Python engine (the source tree; pip install . in an environment "
        "of its own gives the compiled one)"]


def sh_blocks(text: str) -> list[str]:
    return re.findall(r"```sh\n(.*?)```", text, re.S)


def test_the_readmes_test_command_does_not_install_over_the_compiled_engine_of_the_first() -> None:
    """The README's two commands run in order in one folder must leave `.venv` compiled: an editable install
    (pure Python) into the same environment replaced the compiled engine (issue 62)."""
    first, second = sh_blocks(README.split("## The two commands", 1)[1])[:2]
    first_venv = re.search(r"python3 -m venv (\S+)", first)
    second_venv = re.search(r"python3 -m venv (\S+)", second)
    assert first_venv and second_venv and "pip install ." in first and "pip install -e" in second
    assert first_venv.group(1) != second_venv.group(1), "the editable install would replace the compiled engine"
    assert f". {second_venv.group(1)}/bin/activate" not in second, "the shell stays in the first environment"

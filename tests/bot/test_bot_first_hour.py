"""Issue 27, "an operator's first hour": each mistake a new operator makes gets one clear line and the right
exit code, from the command line as they meet it (``main([...])``, its exit code and its output).

The modules issue 27 added are imported inside the tests that need them, so that on the code before it
each test fails on its own assertion rather than the whole file on an import."""

from __future__ import annotations

import logging
import os
import platform
import socket
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import requests
import yaml

import engine
from bot.app.cli import main
from bot.app.logsetup import apply_logging, remove_handlers
from bot.config import ConfigError, LoggingSettings, Settings, load_settings, settings_from_dict
from bot.engines.uci import parse_option
from bot.engines.xboard import parse_xboard_option
from engine.buildinfo import build_name
from tests.bot.http_fixture import Reply, ScriptedServer
from tests.timing import BUILD_S, PATIENCE_S

REPO = Path(__file__).resolve().parents[2]
FAKE = str(Path(__file__).with_name("fake_uci.py"))
TOKEN = "lip_FIRSTHOURSECRET"


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def write(tmp_path: Path, data: object, name: str = "config.yml") -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data) if not isinstance(data, str) else data)
    return str(path)


def fake_engine(**extra: object) -> dict[str, object]:
    return {"command": f"{sys.executable} {FAKE} move e2e4", "options": {}, **extra}


def check_lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().out.strip().splitlines()


# ---- --check -----------------------------------------------------------------------------------------------


def test_check_fails_on_an_option_of_the_wrong_type_naming_the_key(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    config = write(tmp_path, {"server": {"url": f"http://127.0.0.1:{free_port()}"},
                              "engine": fake_engine(options={"Hash": "lots"}),
                              "challenge": {"variants": ["seirawan", "chess"]},
                              "pgn_directory": str(tmp_path / "games")})
    assert main(["--config", config, "--check"]) == 2
    lines = check_lines(capsys)
    hash_line = [line for line in lines if line.startswith("FAIL engine.options.Hash:")]
    assert hash_line == ["FAIL engine.options.Hash: must be an integer from 1 to 1024 (the engine's Hash is a "
                         "spin), got 'lots'"]
    assert lines[-1] == f"check: {sum(line.startswith('FAIL') for line in lines)} failed (exit 2)"
    assert all(line.startswith(("OK   ", "FAIL ", "check: ")) for line in lines)
    assert TOKEN not in "\n".join(lines)


def test_check_with_no_server_says_unreachable_and_why(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    port = free_port()
    config = write(tmp_path, {"server": {"url": f"http://127.0.0.1:{port}"}, "engine": fake_engine(),
                              "challenge": {"variants": ["seirawan", "chess"]},
                              "pgn_directory": str(tmp_path / "games")})
    assert main(["--config", config, "--check"]) == 2
    lines = check_lines(capsys)
    subjects = [line.split(":")[0] for line in lines]
    assert subjects[:2] == ["OK   config", "OK   pgn_directory"]
    assert "OK   engine" in subjects and "OK   token" in subjects
    account = [line for line in lines if line.startswith("FAIL account:")]
    assert account == [f"FAIL account: http://127.0.0.1:{port} is unreachable: connection refused by 127.0.0.1 "
                       "(nothing listens on that port); fix: check the network and server.url (the bot would "
                       "retry for 5 minutes, then exit 1)"]
    assert not (tmp_path / "games").exists(), "--check creates nothing"


def test_check_passes_with_a_server_that_knows_the_token(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    with ScriptedServer() as http:
        http.route("GET", "/api/account", Reply(200, '{"id":"mybot","username":"MyBot","title":"BOT"}'))
        config = write(tmp_path, {"server": {"url": http.url, "dialect": "pychess"}, "engine": fake_engine(),
                                  "challenge": {"variants": ["seirawan", "chess"]},
                                  "pgn_directory": str(tmp_path / "games")})
        assert main(["--config", config, "--check"]) == 0
    lines = check_lines(capsys)
    assert lines[-1] == "check: all passed (exit 0)"
    assert f"OK   account: MyBot on {http.url} (pychess dialect, a BOT account)" in lines


def test_check_reports_a_rejected_token_with_where_to_get_one(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    with ScriptedServer() as http:
        http.route("GET", "/api/account", Reply(401, '{"error":"No such token"}'))
        config = write(tmp_path, {"server": {"url": http.url, "dialect": "lichess"}, "engine": fake_engine(),
                                  "challenge": {"variants": ["chess"]}, "pgn_directory": str(tmp_path / "g")})
        assert main(["--config", config, "--check"]) == 2
    account = [line for line in check_lines(capsys) if "account:" in line]
    assert account[0].startswith("FAIL account: the server rejected the token (HTTP 401, lichess dialect); "
                                 "a server on this machine takes the token it was started with")


def test_check_without_a_token_says_how_to_get_one(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("SCHESS_BOT_TOKEN", raising=False)
    config = write(tmp_path, {"engine": fake_engine(), "challenge": {"variants": ["seirawan"]},
                              "pgn_directory": str(tmp_path / "g")})
    assert main(["--config", config, "--check"]) == 2
    token = [line for line in check_lines(capsys) if "token:" in line]
    assert token == ["FAIL token: no API token: set SCHESS_BOT_TOKEN or token_file in the config; fix: pychess.org "
                     "issues its own BOT tokens: sign in with the bot's account and create one at "
                     "https://www.pychess.org/account/bot (a Lichess token is not accepted)"]


def test_check_names_an_unwritable_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    config = write(tmp_path, {"engine": fake_engine(), "challenge": {"variants": ["seirawan"]},
                              "pgn_directory": str(blocker / "games"),
                              "logging": {"file": str(tmp_path / "logs" / "bot.log")},
                              "server": {"url": f"http://127.0.0.1:{free_port()}"}})
    assert main(["--config", config, "--check"]) == 2
    lines = check_lines(capsys)
    assert [line for line in lines if "pgn_directory" in line][0].startswith(
        f"FAIL pgn_directory: '{blocker / 'games'}' cannot be written: {blocker} is not a folder; fix: ")
    assert [line for line in lines if "logging.file" in line][0].startswith("OK   logging.file:")


def test_check_says_whether_the_status_page_can_listen(tmp_path, monkeypatch, capsys):
    """The real run exits 2 when ``status.listen`` cannot be had (a port in use), after logging in; --check,
    "every check a real run makes", did not look at it and passed."""
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    data = {"server": {"url": f"http://127.0.0.1:{free_port()}"}, "engine": fake_engine(),
            "challenge": {"variants": ["seirawan"]}, "pgn_directory": str(tmp_path / "games")}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        config = write(tmp_path, {**data, "status": {"listen": f"127.0.0.1:{port}"}})
        assert main(["--config", config, "--check"]) == 2
        lines = [line for line in check_lines(capsys) if "status.listen" in line]
    assert len(lines) == 1 and lines[0].startswith(
        f"FAIL status.listen: 127.0.0.1:{port} cannot be had: ") and "in use" in lines[0]
    free = free_port()
    config = write(tmp_path, {**data, "status": {"listen": f"127.0.0.1:{free}"}})
    main(["--config", config, "--check"])
    assert [line for line in check_lines(capsys) if "status.listen" in line] == [
        f"OK   status.listen: 127.0.0.1:{free} is free (the page will be http://127.0.0.1:{free}/)"]


SKIPPED_WITHOUT_CONFIG = ("SKIP folders, books, engine, status page, token, account: not checked: the config must be "
                          "read first")


@pytest.mark.parametrize("data, line", [
    ({"challenge": {"concurency": 2}},
     "FAIL config: unknown key challenge.concurency; did you mean challenge.concurrency?"),
    ({"pgn_dir": "games"}, "FAIL config: unknown key pgn_dir; did you mean pgn_directory?"),
    ("server:\n  url: [unclosed\nengine:\n  command: builtin\n",
     "FAIL config: {path} is not valid YAML: expected ',' or ']', but got ':' at line 3, column 7 (while parsing "
     "a flow sequence at line 2)"),
])
def test_check_stops_at_a_config_the_run_refuses(tmp_path, capsys, data, line):
    config = write(tmp_path, data)
    assert main(["--config", config, "--check"]) == 2
    assert check_lines(capsys) == [line.format(path=config), SKIPPED_WITHOUT_CONFIG,
                                   "check: 1 failed, 1 skipped (exit 2)"]


# ---- the real run's one-line errors ------------------------------------------------------------------------


def test_a_missing_config_file_points_to_init(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main([]) == 2
    assert capsys.readouterr().err.strip() == (
        "config error: cannot read config.yml: no such file; `schess-bot init config.yml` writes a commented "
        "one with every key at its default")


def test_a_wrong_option_stops_the_real_run_with_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    config = write(tmp_path, {"server": {"url": f"http://127.0.0.1:{free_port()}"},
                              "engine": fake_engine(options={"Threds": 2}), "challenge": {"variants": ["seirawan"]},
                              "pgn_directory": str(tmp_path / "games")})
    assert main(["--config", config]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("error: engine ")
    assert "engine.options.Threds: the engine has no option 'Threds'; its options: Hash, Ponder" in err


@pytest.mark.parametrize("data, message", [
    ({"server": {"url": "https://www.pychess.org/api"}},
     "config error: server.url must be the server's origin without a path (https://www.pychess.org), got "
     "'https://www.pychess.org/api'"),
    ({"challenge": {"variants": []}},
     "config error: challenge.variants must be a non-empty list of seirawan, seirawan960, shouse, chess, chess960, "
     "seirawan-placement, seirawan-forced-entry, got []"),
    ({"logging": {"level": "loud"}},
     "config error: logging.level must be one of DEBUG, INFO, WARNING, ERROR (in any case), got 'loud'"),
])
def test_mistakes_that_used_to_pass_are_refused_by_the_run(tmp_path, monkeypatch, capsys, data, message):
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    assert main(["--config", write(tmp_path, data)]) == 2
    assert capsys.readouterr().err.strip() == message


def test_log_levels_are_read_in_any_case():
    settings = settings_from_dict({"logging": {"level": "debug", "file_level": "Warning"}})
    assert (settings.logging.level, settings.logging.file_level) == ("DEBUG", "WARNING")


def test_log_level_on_the_command_line_in_any_case(tmp_path, capsys):
    assert main(["--log-level", "debug", "--config", write(tmp_path, {"challenge": {"concurency": 1}})]) == 2
    assert capsys.readouterr().err.strip() == ("config error: unknown key challenge.concurency; did you mean "
                                                   "challenge.concurrency?")


def test_a_missing_log_folder_is_created_like_the_pgn_folder(tmp_path):
    target = tmp_path / "logs" / "deep" / "bot.log"
    handlers = apply_logging(LoggingSettings(file=str(target), engine_file=str(tmp_path / "e" / "engine.log")))
    try:
        logging.getLogger("bot").warning("a line")
    finally:
        remove_handlers(handlers)
    assert "a line" in target.read_text()
    assert (tmp_path / "e").is_dir()


def test_the_log_file_names_the_thread_once(tmp_path):
    """A game worker's thread is called ``game abc123`` and its lines already say so: the file shows the name
    once (it once read ``game abc123: game abc123: played ...``); other threads' lines keep their name."""
    import threading

    target = tmp_path / "bot.log"
    handlers = apply_logging(LoggingSettings(file=str(target)))
    log = logging.getLogger("bot.game")
    try:
        worker = threading.Thread(target=log.warning, args=("game abc123: played Nf3/H",), name="game abc123")
        worker.start()
        worker.join()
        other = threading.Thread(target=log.warning, args=("looked up 1 game",), name="reconcile")
        other.start()
        other.join()
    finally:
        remove_handlers(handlers)
    lines = target.read_text().splitlines()
    assert lines[0].endswith(" bot.game game abc123: played Nf3/H")
    assert lines[1].endswith(" bot.game reconcile: looked up 1 game")


def test_an_unopenable_log_file_is_one_line_naming_the_key(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    config = write(tmp_path, {"logging": {"file": str(blocker / "bot.log")}})
    assert main(["--config", config]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: logging.file '{blocker / 'bot.log'}' cannot be opened: ") and "\n" not in err


def test_games_with_sandbox_is_refused_not_ignored(capsys):
    assert main(["--sandbox", "--games", "2"]) == 2
    assert capsys.readouterr().err.strip() == (
        "error: --games cannot be used with --sandbox (it checks the config itself, then plays one game)")


def test_version_names_the_bot_the_engine_build_and_python(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    line = capsys.readouterr().out.strip()
    assert line == (f"schess-bot {engine.__version__} (engine: {build_name()}; "
                    f"python: {platform.python_implementation()} {platform.python_version()})")


# ---- init --------------------------------------------------------------------------------------------------


def test_init_writes_the_commented_sample_and_refuses_to_overwrite(tmp_path, capsys):
    target = tmp_path / "bot" / "config.yml"
    assert main(["init", str(target)]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {target} for https://www.pychess.org; next: edit it")
    assert target.read_text() == (REPO / "config.yml").read_text()
    assert load_settings(target) == Settings()
    target.write_text("# mine\n")
    assert main(["init", str(target)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: {target} exists; init never overwrites a config: edit it, or name another file "
        "(schess-bot init other.yml)")
    assert target.read_text() == "# mine\n"


def test_init_in_a_fresh_clone_finds_the_sample_already_there(tmp_path, monkeypatch, capsys):
    """The README's first step, run where it is run: a clone already holds the unedited sample as
    ``config.yml``, and init used to refuse it as "exists" (exit 2) as if the operator had a config of theirs."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yml").write_text((REPO / "config.yml").read_text())
    assert main(["init"]) == 0
    assert capsys.readouterr().out.startswith(
        "config.yml is already the unedited commented sample for https://www.pychess.org; nothing written; "
        "next: edit it")
    assert main(["init", "--server", "lichess"]) == 2
    assert capsys.readouterr().err.strip() == (
        "error: config.yml exists (the unedited sample for https://www.pychess.org); init never overwrites a "
        "config: delete it first to write the lichess one there, or name another file "
        "(schess-bot init --server lichess other.yml)")
    assert (tmp_path / "config.yml").read_text() == (REPO / "config.yml").read_text()


def test_init_for_lichess_sets_its_url_and_variants_and_keeps_every_comment(tmp_path, capsys):
    target = tmp_path / "lichess.yml"
    assert main(["init", str(target), "--server", "lichess"]) == 0
    settings = load_settings(target)
    assert settings.server.url == "https://lichess.org"
    assert settings.challenge.variants == ("chess", "chess960")
    assert settings.matchmaking == Settings().matchmaking
    assert target.read_text().count("#") == (REPO / "config.yml").read_text().count("#")


@pytest.mark.slow
def test_the_wheel_ships_the_sample_config(tmp_path):
    """setup.py's build_py copies config.yml into bot/config/ (package data), so init works when installed
    from the wheel (about 20 s: pip builds the wheel in an isolated environment). The wheel is the pure-Python
    build (SCHESS_ENGINE_COMPILE=0): the sample config ships the same in both builds, and compiling the engine
    here took over 300 s on a loaded CI machine."""
    env = {**os.environ, "SCHESS_ENGINE_COMPILE": "0"}
    completed = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--wheel-dir",
                                str(tmp_path), str(REPO)], capture_output=True, text=True, timeout=BUILD_S, env=env)
    assert completed.returncode == 0, completed.stderr[-2000:]
    (wheel,) = tmp_path.glob("schess_bot-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("bot/config/config.yml").decode() == (REPO / "config.yml").read_text()
    assert "include config.yml" in (REPO / "MANIFEST.in").read_text()


# ---- engine options, messages that blame the right thing ---------------------------------------------------


def test_options_are_checked_against_what_the_engine_advertises():
    from bot.engines.check import option_problems

    advertised = {option.name.lower(): option for option in (
        parse_option("option name Hash type spin default 16 min 1 max 1024"),
        parse_option("option name Threads type spin default 1 min 1 max 64"),
        parse_option("option name Ponder type check default false"),
        parse_option("option name Style type combo default Normal var Solid var Normal var Risky"),
        parse_option("option name BookFile type string default <empty>"),
    ) if option is not None}
    options = {"Hash": "lots", "Threds": 2, "Threads": 128, "Ponder": "maybe", "Style": "wild",
               "BookFile": "x.bin", "hash": 64}
    assert option_problems(options, advertised) == [
        ("engine.options.Hash", "must be an integer from 1 to 1024 (the engine's Hash is a spin), got 'lots'"),
        ("engine.options.Threds", "the engine has no option 'Threds'; did you mean Threads? its options: BookFile, "
                                  "Hash, Ponder, Style, Threads"),
        ("engine.options.Threads", "must be from 1 to 64 (the engine's range for Threads), got 128"),
        ("engine.options.Ponder", "must be true or false (the engine's Ponder is a check), got 'maybe'"),
        ("engine.options.Style", "must be one of Solid, Normal, Risky (the engine's Style), got 'wild'"),
    ]


def test_xboard_options_are_checked_too():
    from bot.engines.check import option_problems

    option = parse_xboard_option("Resign Threshold -spin 800 200 1200")
    assert option is not None and (option.minimum, option.maximum) == (200, 1200)
    advertised = {"resign threshold": option}
    assert option_problems({"Resign Threshold": 5000, "memory": 64}, advertised, also_known=["memory"]) == [
        ("engine.options.Resign Threshold", "must be from 200 to 1200 (the engine's range for Resign Threshold), "
                                            "got 5000")]


@pytest.mark.parametrize("engine, line", [
    ({"interpreter": "pypy-not-installed"},
     "FAIL engine.interpreter: engine 'builtin' did not start: cannot start 'pypy-not-installed -m engine': No such "
     "file or directory; fix: engine.interpreter 'pypy-not-installed' must name a Python that is installed"),
    ({"command": "bot.engines.homemade_example:MaterialGreedy"},
     "FAIL engine.protocol: engine 'bot.engines.homemade_example:MaterialGreedy' did not start: cannot start "
     "'bot.engines.homemade_example:MaterialGreedy': No such file or directory; fix: "
     "'bot.engines.homemade_example:MaterialGreedy' looks like a Python class (package.module:ClassName): set "
     "engine.protocol: homemade"),
    ({"command": "bot.engines.homemade_example:Nope", "protocol": "homemade"},
     "FAIL engine.command: 'bot.engines.homemade_example:Nope' cannot be loaded: module "
     "'bot.engines.homemade_example' has no 'Nope'; its engine classes: MaterialGreedy; fix: engine.command must "
     "name an engine class Python can import here, as package.module:ClassName"),
])
def test_engine_messages_blame_the_key_that_is_wrong(tmp_path, monkeypatch, capsys, engine, line):
    monkeypatch.delenv("SCHESS_BOT_TOKEN", raising=False)
    config = write(tmp_path, {"engine": engine, "pgn_directory": str(tmp_path / "g")})
    assert main(["--config", config, "--check"]) == 2
    assert any(found.startswith(line) for found in check_lines(capsys)), line


def test_a_homemade_class_that_cannot_be_loaded_stops_the_run_with_the_fix_form(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHESS_BOT_TOKEN", "a-token")
    config = write(tmp_path, {"engine": {"command": "bot.engines.homemade_example:Nope", "protocol": "homemade"},
                              "pgn_directory": str(tmp_path / "g")})
    assert main(["--config", config]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "error: engine 'bot.engines.homemade_example:Nope' (engine.command, engine.protocol: homemade) cannot be "
        "loaded: module 'bot.engines.homemade_example' has no 'Nope'; its engine classes: MaterialGreedy; fix: "
        "engine.command must name an engine class Python can import here, as package.module:ClassName")


# ---- connection causes -------------------------------------------------------------------------------------


def test_a_refused_connection_is_named_as_such():
    from bot.wire.advice import connection_cause

    with pytest.raises(requests.ConnectionError) as error:
        requests.get(f"http://127.0.0.1:{free_port()}/api/account", timeout=PATIENCE_S)
    assert connection_cause(error.value) == "connection refused by 127.0.0.1 (nothing listens on that port)"


def test_dns_tls_and_timeout_causes_are_named():
    from bot.wire.advice import connection_cause

    dns = requests.ConnectionError(OSError("Failed to resolve 'www.pychess.org'"))
    dns.__context__ = socket.gaierror(-2, "Name or service not known")
    dns.request = requests.Request("GET", "https://www.pychess.org/api/account").prepare()
    assert connection_cause(dns) == "DNS lookup failed for www.pychess.org (no such host, or no network)"
    tls = requests.exceptions.SSLError("certificate verify failed")
    assert connection_cause(tls).startswith("TLS error with")
    assert connection_cause(requests.exceptions.ReadTimeout("read timed out")) == "timed out talking to the server"


def test_the_retry_log_line_names_the_cause_once(tmp_path, monkeypatch, caplog):
    from bot.config import ServerSettings
    from bot.wire.server import Server, ServerError

    port = free_port()
    server = Server(ServerSettings(url=f"http://127.0.0.1:{port}", dialect="pychess"), TOKEN,
                    wait=lambda seconds: False)
    with caplog.at_level(logging.WARNING, logger="bot"), pytest.raises(ServerError) as error:
        server.fetch_account(attempts=2)
    server.close()
    retry = [record.getMessage() for record in caplog.records if "retrying" in record.getMessage()]
    assert retry == ["account: connection error (connection refused by 127.0.0.1 (nothing listens on that port)); "
                     "retrying in 1.0 s (attempt 2 of 2)"]
    assert str(error.value).count("connection refused") == 1


def test_a_yaml_error_says_what_the_parser_found_and_where(tmp_path):
    path = tmp_path / "bad.yml"
    path.write_text("engine:\n  command builtin\n   protocol: uci\n")
    with pytest.raises(ConfigError) as error:
        load_settings(path)
    assert str(error.value) == (f"config error: {path} is not valid YAML: mapping values are not allowed here at "
                                "line 3, column 12")

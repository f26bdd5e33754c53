"""The command line: exit codes, one-line errors, a whole in-process run, and a token that never leaks."""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import types
from pathlib import Path

import pytest
import yaml

from bot.app.cli import RedactingFilter, main
from tests.bot.conftest import (
    PYCHESS_ACCOUNT,
    PYCHESS_CHALLENGE,
    PYCHESS_GAME_END,
    PYCHESS_GAME_FULL,
    PYCHESS_STATE_1,
)
from tests.bot.http_fixture import Reply, ScriptedServer
from tests.timing import PATIENCE_S, STARTUP_S, wait_until

FAKE = str(Path(__file__).with_name("fake_uci.py"))
TOKEN = "lip_SECRETTOKEN42"


def write_config(tmp_path: Path, url: str, **extra: object) -> Path:
    data = {
        "server": {"url": url, "dialect": "pychess", "stream_timeout_s": 5},
        "engine": {"command": f"{sys.executable} {FAKE} move e2e4", "options": {}},
        "pgn_directory": str(tmp_path / "games"),
        "heartbeat_file": str(tmp_path / "heartbeat"),
    }
    data.update(extra)
    path = tmp_path / "config.yml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_missing_token_is_one_line_and_exit_code_2(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("SCHESS_BOT_TOKEN", raising=False)
    assert main(["--config", str(write_config(tmp_path, "http://127.0.0.1:9"))]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: no API token") and "\n" not in err


def test_config_error_names_the_key_and_exits_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    path = write_config(tmp_path, "http://127.0.0.1:9", challenge={"concurrency": "x"})
    assert main(["--config", str(path)]) == 2
    assert capsys.readouterr().err.strip() == (
        "config error: challenge.concurrency must be a positive integer, got 'x'")


def test_rejected_token_exits_2_without_a_traceback(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    with ScriptedServer() as http:
        http.route("GET", "/api/account", Reply(401, '{"error":"No such token"}'))
        assert main(["--config", str(write_config(tmp_path, http.url))]) == 2
    err = capsys.readouterr().err
    assert "rejected the token" in err and "Traceback" not in err and TOKEN not in err


def test_sandbox_option_hands_over_to_the_sandbox_module(monkeypatch):
    """main runs the sandbox module once with the parsed options and exits with what it returns (17: a code
    nothing else in main returns)."""
    seen = []
    module = types.ModuleType("bot.app.sandbox")
    module.run_sandbox = lambda args, stop=None: seen.append(args) or 17  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bot.app.sandbox", module)
    assert main(["--sandbox"]) == 17
    assert len(seen) == 1 and seen[0].sandbox is True


def test_sigterm_while_the_sandbox_module_loads_exits_143(monkeypatch, capsys):
    """Issue 50: a signal between the handler's install and the sandbox's own handling (while its module is
    imported) ended as the real run does before it plays: 'stopped before the bot started playing', exit 0."""

    class Loading(types.ModuleType):
        def __getattr__(self, name):
            if name != "run_sandbox":
                raise AttributeError(name)
            os.kill(os.getpid(), signal.SIGTERM)  # the handler main installed raises in this thread
            raise AssertionError("the handler did not run")

    monkeypatch.setitem(sys.modules, "bot.app.sandbox", Loading("bot.app.sandbox"))
    assert main(["--sandbox"]) == 143
    assert capsys.readouterr().err.strip().splitlines()[-1] == "sandbox: interrupted (SIGTERM)"


def test_redacting_filter_hides_the_token_in_messages_and_arguments():
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "header %s", (f"Bearer {TOKEN}",), None)
    RedactingFilter(TOKEN).filter(record)
    assert TOKEN not in record.getMessage() and "[redacted]" in record.getMessage()


def test_a_whole_pychess_game_in_process(tmp_path, monkeypatch, caplog):
    """Accept the recorded challenge, play the game, write the PGN, stop after --games 1, exit 0."""
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    game_start = json.dumps({"type": "gameStart", "game": {"id": "RpxjQkJ5", "skill_level": "6",
                                                            "chess960": "False"}})
    with ScriptedServer() as http:
        http.route("GET", "/api/account", Reply(body=PYCHESS_ACCOUNT))
        http.route("GET", "/api/stream/event", Reply(lines=[PYCHESS_CHALLENGE, game_start], stall_s=10))
        http.route("POST", "/api/challenge/RpxjQkJ5/accept", Reply())
        http.route("POST", "/api/bot/game/RpxjQkJ5/move/e2e4", Reply())
        http.route("POST", "/api/bot/game/RpxjQkJ5/chat", Reply())
        http.route("GET", "/api/bot/game/stream/RpxjQkJ5",
                   Reply(lines=[PYCHESS_GAME_FULL, '{"type":"ping"}',
                                PYCHESS_STATE_1.replace("g1h3e", "e2e4"), PYCHESS_GAME_END],
                         line_delay_s=0.3, stall_s=5, after={2: ("POST", "/api/bot/game/RpxjQkJ5/move/e2e4")}))
        with caplog.at_level(logging.DEBUG):
            code = main(["--config", str(write_config(tmp_path, http.url)), "--games", "1",
                         "--log-level", "DEBUG"])
        assert code == 0
        assert http.hits("POST", "/api/challenge/RpxjQkJ5/accept")
        assert http.hits("POST", "/api/bot/game/RpxjQkJ5/move/e2e4")
        stream_request = http.hits("GET", "/api/stream/event")[0]
        assert "X-PyChess-Bot-Capabilities" in stream_request.headers
    assert "challenge RpxjQkJ5: accepted 5+3 seirawan casual from Alice (1500)" in caplog.text
    assert "game RpxjQkJ5: played e4" in caplog.text
    assert (tmp_path / "games" / "RpxjQkJ5.pgn").read_text().count("1. e4") == 1
    assert (tmp_path / "heartbeat").exists()
    assert TOKEN not in caplog.text


def test_a_challenge_outside_the_config_is_declined_with_its_reason(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    with ScriptedServer() as http:
        http.route("GET", "/api/account", Reply(body=PYCHESS_ACCOUNT))
        http.route("GET", "/api/stream/event", Reply(lines=[PYCHESS_CHALLENGE], stall_s=10))
        http.route("POST", "/api/challenge/RpxjQkJ5/decline", Reply())
        from bot.app.run import run_bot
        from bot.config import load_settings

        settings = load_settings(write_config(tmp_path, http.url, challenge={"min_base_s": 600}))
        lobbies = []
        import threading

        def stop_when_declined() -> None:
            for _ in range(100):
                if http.hits("POST", "/api/challenge/RpxjQkJ5/decline"):
                    break
                threading.Event().wait(0.05)
            lobbies[0].request_stop()

        with caplog.at_level(logging.INFO):
            threading.Thread(target=stop_when_declined, daemon=True).start()
            assert run_bot(settings, TOKEN, on_lobby=lobbies.append) == 0
        [decline] = http.hits("POST", "/api/challenge/RpxjQkJ5/decline")
        # pychess.org: the reason as free text for the person (challenge.decline_message)
        assert decline.body.startswith(b"reason=This+time+control+is+too+fast+for+me.+I+accept+S-chess")
    assert "challenge RpxjQkJ5: declined 5+3 seirawan casual from Alice (1500) (tooFast" in caplog.text


@pytest.fixture(autouse=True)
def _restore_root_logging():
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_a_pgn_directory_that_cannot_be_written_stops_the_bot_before_it_plays(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    path = write_config(tmp_path, "http://127.0.0.1:9", pgn_directory=str(blocker / "games"))
    assert main(["--config", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: pgn_directory") and "not writable" in err and "\n" not in err


def test_sigterm_during_start_up_retries_exits_0_at_once(tmp_path):
    import os
    import signal
    import socket
    import subprocess

    with socket.socket() as probe:  # a port nobody listens on: the bot retries its start-up for minutes
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    path = write_config(tmp_path, f"http://127.0.0.1:{port}")
    env = dict(os.environ, SCHESS_BOT_TOKEN=TOKEN,
               PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    process = subprocess.Popen([sys.executable, "-m", "bot", "--config", str(path)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        output = [""]
        stdout = process.stdout
        assert stdout is not None

        def retrying() -> bool:
            output[0] += stdout.readline()
            return "cannot reach" in output[0]

        wait_until(retrying, lambda: f"the start-up retry's line; the bot wrote:\n{output[0]}", STARTUP_S)
        process.send_signal(signal.SIGTERM)
        assert process.wait(PATIENCE_S) == 0  # the start-up retries would otherwise go on for 5 minutes
        rest = process.stdout.read()
        assert "stopped before the bot started playing" in rest and "Traceback" not in rest
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_403_on_the_account_is_a_rejected_token_with_pychess_advice(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    with ScriptedServer() as http:
        http.route("GET", "/api/account", Reply(403, "403: Forbidden"))
        path = write_config(tmp_path, http.url)
        assert main(["--config", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "rejected the token (HTTP 403, pychess dialect)" in err
    assert "a server on this machine takes the token it was started with" in err, "not a page it does not have"
    assert "/account/bot" not in err

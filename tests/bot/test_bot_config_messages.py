"""Issue 51, the config's last rough messages, each met as the operator meets it: ``schess-bot`` (the run) or
``schess-bot --check``, its exit code and its line. A token pasted into the file, a clock written as ``3+2``,
several mistakes at once, a typo in a key, a token file others may read, a check that cannot be made."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.app.cli import main
from tests.bot.http_fixture import Reply, ScriptedServer
from tests.bot.test_bot_first_hour import SKIPPED_WITHOUT_CONFIG, TOKEN, fake_engine, free_port, write

PASTED = "lip_PASTEDINTOTHEFILE"
TOKEN_LINE = ("config error: token does not belong in the config file (anyone who reads the file has it); remove "
              "it and set SCHESS_BOT_TOKEN, or put the token alone in a file named by token_file (chmod 600 it)")
CLOCK_LINE = ("config error: challenge.min_base_s must be a non-negative integer (seconds), got '3+2'; the "
              "increment is its own key: min_base_s: 180 and min_increment_s: 2")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, (captured.err + captured.out).strip().splitlines()


def test_a_token_pasted_into_the_config_says_where_the_token_goes(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    config = write(tmp_path, {"token": PASTED})
    assert run(["--config", config], capsys) == (2, [TOKEN_LINE])
    code, lines = run(["--config", config, "--check"], capsys)
    assert code == 2
    assert lines == [TOKEN_LINE.replace("config error: ", "FAIL config: "), SKIPPED_WITHOUT_CONFIG,
                     "check: 1 failed, 1 skipped (exit 2)"]
    assert PASTED not in "\n".join(lines)


def test_a_clock_in_the_base_time_key_says_the_unit_and_the_increment_key(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    config = write(tmp_path, {"challenge": {"min_base_s": "3+2"}})
    assert run(["--config", config], capsys) == (2, [CLOCK_LINE])


def test_every_config_error_is_reported_in_one_pass(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    config = write(tmp_path, {"challenge": {"min_base_s": "3+2", "concurency": 2},
                              "time": {"move_overhead_ms": "fast"}, "token": PASTED})
    code, lines = run(["--config", config], capsys)
    assert code == 2
    assert lines == [  # in the file's order (safe_dump writes the keys sorted)
        "config error: unknown key challenge.concurency; did you mean challenge.concurrency?",
        CLOCK_LINE,
        "config error: time.move_overhead_ms must be a non-negative integer (milliseconds), got 'fast'",
        TOKEN_LINE,
    ]
    code, checked = run(["--config", config, "--check"], capsys)
    assert code == 2
    assert checked[:4] == [line.replace("config error: ", "FAIL config: ") for line in lines]
    assert checked[-1] == "check: 4 failed, 1 skipped (exit 2)"


def test_an_unknown_key_in_a_section_gets_the_key_it_most_likely_meant(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHESS_BOT_TOKEN", TOKEN)
    config = write(tmp_path, {"shutdown": {"on_sigterm": "abort"}, "matchmaking": {"idle": 60}})
    assert run(["--config", config], capsys) == (2, [  # in the file's order (safe_dump sorts the keys)
        "config error: unknown key matchmaking.idle; did you mean matchmaking.idle_s?",
        "config error: unknown key shutdown.on_sigterm; did you mean shutdown.on_signal?",
    ])
    assert run(["--config", write(tmp_path, {"xyzzy": 1})], capsys) == (2, ["config error: unknown key xyzzy"])


def test_check_warns_about_a_token_file_others_can_read_as_the_run_does(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("SCHESS_BOT_TOKEN", raising=False)
    token_file = tmp_path / "tok.txt"
    token_file.write_text(TOKEN + "\n")
    os.chmod(token_file, 0o644)
    with ScriptedServer() as http:
        http.route("GET", "/api/account", Reply(200, '{"id":"mybot","username":"MyBot","title":"BOT"}'))
        config = write(tmp_path, {"server": {"url": http.url, "dialect": "pychess"}, "engine": fake_engine(),
                                  "challenge": {"variants": ["seirawan"]}, "token_file": str(token_file),
                                  "pgn_directory": str(tmp_path / "games")})
        code, lines = run(["--config", config, "--check"], capsys)
        assert code == 0
        warning = f"token_file {token_file} is readable by others (mode 644); chmod 600 it"
        assert f"WARN token: present (token_file {token_file}; not shown), but {warning}" in lines
        assert lines[-1] == "check: all passed, 1 with a warning (exit 0)"
        os.chmod(token_file, 0o600)
        code, lines = run(["--config", config, "--check"], capsys)
    assert code == 0
    assert f"OK   token: present (token_file {token_file}; not shown)" in lines
    assert lines[-1] == "check: all passed (exit 0)"


def test_check_without_a_token_lists_the_account_check_as_skipped_and_why(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("SCHESS_BOT_TOKEN", raising=False)
    config = write(tmp_path, {"server": {"url": f"http://127.0.0.1:{free_port()}"}, "engine": fake_engine(),
                              "challenge": {"variants": ["seirawan"]}, "pgn_directory": str(tmp_path / "g")})
    code, lines = run(["--config", config, "--check"], capsys)
    assert code == 2
    token = [line for line in lines if line.startswith("FAIL token:")]
    assert len(token) == 1 and lines[lines.index(token[0]) + 1] == (
        "SKIP account: not checked: it needs a token (see the token line)")
    assert lines[-1] == "check: 1 failed, 1 skipped (exit 2)"


def test_a_token_file_the_run_reads_is_warned_about_once_at_start(tmp_path: Path, monkeypatch, capsys, caplog):
    from bot.config import resolve_token, settings_from_dict

    monkeypatch.delenv("SCHESS_BOT_TOKEN", raising=False)
    token_file = tmp_path / "tok.txt"
    token_file.write_text(TOKEN)
    os.chmod(token_file, 0o640)
    assert resolve_token(settings_from_dict({"token_file": str(token_file)})) == TOKEN
    assert [r.getMessage() for r in caplog.records] == [
        f"token_file {token_file} is readable by others (mode 640); chmod 600 it"]

"""Lichess tournaments (issue 62): the bot joins the arenas and Swiss tournaments it is given, plays their
pairings as ordinary games within its concurrency, withdraws when it stops, says in one line why a join was
refused, and refuses the key on pychess.org, which lets no BOT into its tournaments."""

from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from bot.config import ChallengeSettings
from bot.lobby.challenges import Accept, Decline, LobbyState, decide_challenge
from bot.lobby.tournaments import slots_kept
from bot.loopback import LoopbackServer
from tests.bot.test_bot_challenges import challenge
from tests.e2e.conftest import REPO, TOKEN, BotProcess, BotThread, bot_config
from tests.reliability.conftest import ResignAfter
from tests.timing import GAME_S, PATIENCE_S, STARTUP_S, wait_until


def resigning(number: int) -> ResignAfter:
    """The n-th pairing's opponent: random moves, then it resigns (games end in seconds)."""
    return ResignAfter(3, seed=number)


def test_a_bot_given_an_arena_plays_its_pairings_and_withdraws_on_sigterm(
    lichess_server: LoopbackServer, tmp_path: Path
) -> None:
    server = lichess_server
    arena = server.create_tournament(pairings=20, opponent=resigning)
    bot = BotProcess(bot_config(server, tmp_path / "games"), tmp_path, "--tournament", arena).start()
    try:
        server.wait_for(lambda: sum(server.games[game_id].over for game_id in server.tournaments[arena].games) >= 3,
                        3 * GAME_S, "three pairings played")
        assert bot.process is not None
        bot.process.send_signal(signal.SIGTERM)
        assert bot.wait(GAME_S) == 0
    finally:
        bot.stop()
    tournament = server.tournaments[arena]
    assert tournament.joins == [{}], "joined once, with neither team nor password"
    assert tournament.withdrawals == 1 and tournament.withdrawn
    assert len(tournament.games) >= 3 and all(server.games[game_id].over for game_id in tournament.games), \
        "every pairing played to its end (shutdown.on_signal: finish)"
    assert all(any(record.by == "bot" for record in server.games[game_id].move_log)
               for game_id in tournament.games), "the bot played its pairings"
    logs = bot.logs()
    assert f"tournament {arena}: joined arena 'Loopback Bot Arena' (1+1 standard, casual, running)" in logs
    assert f"game {tournament.games[0]}: pairing 1 of arena {arena}" in logs
    withdrew = re.search(rf"tournament {arena}: withdrew \((\d+) pairings played\)", logs)
    # a pairing whose gameStart the bot had not read yet when it withdrew is played, but not counted there
    assert withdrew and 3 <= int(withdrew.group(1)) <= len(tournament.games), logs[-3000:]
    withdrawn_at = next(record.at for record in server.requests_to("arena_withdraw"))
    assert not [game_id for game_id in tournament.games if server.games[game_id].created_at > withdrawn_at], \
        "no pairing after the withdrawal"


def test_a_team_battle_and_a_private_swiss_are_joined_with_the_team_and_the_entry_code(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    server = lichess_server
    battle = server.create_tournament(team="loopback-team", pairings=1, opponent=resigning)
    swiss = server.create_tournament(kind="swiss", name="Bot Swiss", password="s3cret", pairings=1,
                                     opponent=resigning)
    config = bot_config(server, tmp_path, challenge={"concurrency": 2},
                        tournaments=[{"id": battle, "team": "loopback-team"},
                                     {"id": f"https://lichess.org/swiss/{swiss}", "password": "s3cret"}])
    bots.append(BotThread(config).start())
    for tournament_id in (battle, swiss):
        server.wait_for(lambda t=tournament_id: server.tournaments[t].games  # type: ignore[misc]
                        and server.games[server.tournaments[t].games[0]].over, GAME_S, f"{tournament_id}'s game")
    assert server.tournaments[battle].joins == [{"team": "loopback-team"}]
    assert server.tournaments[swiss].joins == [{"password": "s3cret"}]
    assert not server.requests_to("arena", swiss), "the address said Swiss: no arena was asked for"


def test_a_refused_join_says_why_in_one_line(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    server = lichess_server
    no_bots = server.create_tournament(bots_allowed=False)
    too_strong = server.create_tournament(max_rating=1800)  # the loopback's bot is rated 2000
    battle = server.create_tournament(team="their-team")
    private = server.create_tournament(password="right")
    config = bot_config(server, tmp_path, tournaments=[no_bots, too_strong, battle, {"id": private,
                                                                                     "password": "pw-7Qk2"}])
    caplog.set_level(logging.INFO, logger="bot")
    bots.append(BotThread(config).start())
    server.wait_for(lambda: all(server.tournaments[t].joins for t in (no_bots, too_strong, battle, private)),
                    STARTUP_S, "four joins")
    wait_until(lambda: sum("join refused" in record.getMessage() for record in caplog.records) == 4,
               "four refusals logged", STARTUP_S)
    refused = sorted(record.getMessage() for record in caplog.records if "join refused" in record.getMessage())
    assert refused == sorted([
        f"tournament {no_bots}: join refused: Bot players are not allowed",
        f"tournament {too_strong}: join refused: Your top weekly Bullet rating (2000) is too high "
        "(Rated ≤ 1800 in Bullet)",
        f"tournament {battle}: join refused: a team battle: name the bot's team (team: in tournaments), one the "
        "bot is a member of",
        f"tournament {private}: join refused: a private tournament: its entry code is the tournament's "
        "password: in tournaments",
    ])
    assert "pw-7Qk2" not in caplog.text, "the entry code is never logged"
    assert not any(server.tournaments[t].games for t in (no_bots, too_strong, battle, private))


def test_tournaments_on_pychess_stop_the_run_with_one_line(
    pychess_server: LoopbackServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = bot_config(pychess_server, tmp_path, tournaments=["abcd1234"])
    bot = BotThread(config).start()
    assert bot.join(STARTUP_S) == 2
    assert capsys.readouterr().err.strip().endswith(
        f"error: tournaments: {pychess_server.url} (pychess dialect) lets no BOT into its tournaments; remove the "
        "tournaments key (and --tournament) for this server")
    assert not pychess_server.requests_to("stream_event"), "stopped before playing"


def test_a_running_tournament_keeps_a_slot_for_its_next_pairing() -> None:
    assert slots_kept(running_tournaments=1, tournament_games_running=0) == 1
    assert slots_kept(running_tournaments=1, tournament_games_running=1) == 0, "its game takes its slot"
    assert slots_kept(running_tournaments=0, tournament_games_running=1) == 0
    settings = ChallengeSettings(concurrency=2)
    assert isinstance(decide_challenge(challenge(), settings, LobbyState(active_games=1)), Accept)
    declined = decide_challenge(challenge(), settings, LobbyState(active_games=1, tournament_slots=1))
    assert isinstance(declined, Decline) and declined.reason == "later" and declined.busy
    assert declined.detail == "already playing 1 of 2 games (1 kept for tournament pairings)"


def test_the_loopback_command_creates_an_arena_the_bot_joins_by_its_id(
    tmp_path: Path, bots: list[BotThread]
) -> None:
    """``python -m bot.loopback --dialect lichess --arena 3 --challenges 0``, and a bot given the id it prints:
    three pairings played, as an operator would try it by hand."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    command = [sys.executable, "-m", "bot.loopback", "--dialect", "lichess", "--arena", "3", "--challenges", "0",
               "--clock", "1+1", "--variant", "chess", "--token", TOKEN]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env, cwd=REPO)
    watchdog = threading.Timer(3 * GAME_S, process.kill)  # a hung run ends the output, and so the loop below
    watchdog.start()
    over = 0
    try:
        assert process.stdout is not None
        url = re.search(r"on (http://\S+) as", process.stdout.readline())
        arena = re.match(r"arena (\w+) created: it pairs the bot 3 times", process.stdout.readline())
        assert url and arena
        address = cast(LoopbackServer, SimpleNamespace(url=url.group(1), dialect="lichess"))
        bots.append(BotThread(bot_config(address, tmp_path, tournaments=[arena.group(1)])).start())
        for line in iter(process.stdout.readline, ""):
            over += line.startswith("game over: ")
            if over == 3:
                break
    finally:
        watchdog.cancel()
        process.kill()
        process.wait(PATIENCE_S)
    assert over == 3
    assert subprocess.run([*command[:3], "--arena", "3"], capture_output=True, text=True, env=env, cwd=REPO,
                          timeout=STARTUP_S).stderr.startswith("error: --arena needs --dialect lichess")


def test_check_says_pychess_lets_no_bot_into_tournaments(pychess_server: LoopbackServer, tmp_path: Path) -> None:
    import yaml

    from bot.app.preflight import run_checks

    path = tmp_path / "config.yml"
    path.write_text(yaml.safe_dump(bot_config(pychess_server, tmp_path / "games", tournaments=["abcd1234"])))
    report = run_checks(str(path), environ={"SCHESS_BOT_TOKEN": TOKEN})
    lines = [finding.line() for finding in report.findings]
    assert f"FAIL tournaments: {pychess_server.url} (pychess dialect) lets no BOT into its tournaments; remove the " \
           "tournaments key (and --tournament) for this server" in lines, lines
    assert not report.ok

"""Issue 51: a game the bot accepts is a game it plays, and one stop request is obeyed in bounded time.

Met as a new user met them: a loopback server restarted with the same seed offers game ids an earlier run
played, into the same ``pgn_directory`` (the state file remembers those ids); the server has no record of a
game the state file wants to look up (HTTP 404); a SIGTERM arrives while a game is stuck (the opponent never
moves again) with ``shutdown.on_signal: finish``."""

from __future__ import annotations

import logging
import signal
import time
from pathlib import Path

import pytest

from bot.config import Timing
from bot.lobby import reconcile
from bot.loopback import Scripted
from tests.e2e.conftest import (
    KEEPALIVE_S,
    BotProcess,
    BotThread,
    assert_clean_game,
    assert_pgn_matches_server,
    bot_config,
    pgn_of,
    refereed_server,
)
from tests.reliability.conftest import ResignAfter
from tests.timing import GAME_S, wait_until

SEED = 51
#: shutdown.finish_idle_s in these tests, and what leaving a game may add to it (a page read, a resignation,
#: the PGN: requests to a server on this machine)
FINISH_IDLE_S = 2
LEAVING_S = 8.0


def messages(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records]


def test_a_server_restarted_with_the_same_seed_gets_the_reused_ids_new_game_played_to_the_end(
    tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    """The first run plays two games; the server restarts with the same seed and offers the first id again.
    The second run, with the same PGN folder, plays that new game to the end (its PGN is the new game's), and
    gives up looking up the second game, which the restarted server has no record of (HTTP 404)."""
    caplog.set_level(logging.INFO)
    quick_looks = Timing(failed_recheck_s=0.3, check_spacing_s=0.1)  # the reconciler's, for the 404 record
    with refereed_server("pychess", keepalive_s=KEEPALIVE_S, seed=SEED) as first_server:
        first = first_server.challenge(color="black", clock=(120, 2), opponent=ResignAfter(4, seed=1))
        config = bot_config(first_server, tmp_path)
        bots.append(BotThread(config, max_games=2, timing=quick_looks).start())
        first_server.wait_for_game_end(first, GAME_S)
        # its slot is free: the next challenge is not declined
        wait_until(lambda: bots[-1].lobby is not None and bots[-1].lobby.games_finished >= 1,
                   "the first game to finish for the bot", GAME_S)
        second = first_server.challenge(color="black", clock=(120, 2), opponent=ResignAfter(4, seed=2))
        assert bots[-1].join(GAME_S) == 0
        first_game = first_server.game(first)
    old_sans = pgn_of(tmp_path / f"{first}.pgn")[1]
    assert old_sans == first_game.sans

    with refereed_server("pychess", keepalive_s=KEEPALIVE_S, seed=SEED) as restarted:
        reused = restarted.challenge(color="white", clock=(120, 2), opponent=ResignAfter(6, seed=3))
        assert reused == first, "the same seed gives the same first id"
        bots.append(BotThread(bot_config(restarted, tmp_path), timing=quick_looks).start())
        game = restarted.wait_for_game_end(reused, GAME_S)
        wait_until(lambda: [m for m in messages(caplog) if m.startswith(f"game {second}: the server has no record")]
                   and bots[-1].lobby.games_finished >= 1,
                   "the 404 record to be given up and the reused id's game to finish", GAME_S, poll_s=0.1)
        assert bots[-1].lobby.games_finished == 1, "the reused id's game counts as a game played"
        assert bots[-1].stop() == 0
        assert_clean_game(game)
        assert len(game.move_log) >= 6 and game.status == "resign" and game.winner is game.bot_color
        assert_pgn_matches_server(game, tmp_path)
        assert pgn_of(tmp_path / f"{first}.pgn")[1] != old_sans, "the PGN is the new game's"
    lines = messages(caplog)
    assert f"game {first}: a new game under an id an earlier run played (we ended, 1-0); the old note is " \
           "dropped and this game is played" in lines, [m for m in lines if first in m]
    missing = [m for m in lines if m.startswith(f"game {second}: the server has no record")]
    assert missing == [f"game {second}: the server has no record of this game (HTTP 404, "
                       f"{reconcile.MISSING_RECORD_TRIES} tries); no longer looked up, our PGN stays as it is"]
    assert not [m for m in lines if second in m and "cannot read the server's record" in m]


def test_sigterm_with_a_stuck_game_exits_within_the_bound_with_exit_0_and_the_pgn_written(tmp_path: Path) -> None:
    """With on_signal: finish, the opponent never moves again: one SIGTERM, and the bot leaves the game
    ``shutdown.finish_idle_s`` after the signal (as abort does: resigned, both sides having moved), writes the
    PGN with the server's result and exits 0, within finish_idle_s + a few seconds."""
    with refereed_server("pychess", keepalive_s=KEEPALIVE_S) as server:
        game_id = server.challenge(color="black", clock=(300, 2), opponent=Scripted(["e7e5"], then="wait"))
        config = bot_config(server, tmp_path, shutdown={"on_signal": "finish", "finish_idle_s": FINISH_IDLE_S})
        bot = BotProcess(config, tmp_path).start()
        try:
            server.wait_for_plies(game_id, 3, GAME_S)
            assert bot.process is not None
            signalled = time.monotonic()
            bot.process.send_signal(signal.SIGTERM)
            assert bot.wait(FINISH_IDLE_S + LEAVING_S) == 0, bot.logs()
            took = time.monotonic() - signalled
        finally:
            bot.stop()
        game = server.game(game_id)
    assert took >= FINISH_IDLE_S, "a game is given finish_idle_s to make news"
    assert (game.status, game.winner, len(game.moves)) == ("resign", not game.bot_color, 3), game.describe()
    assert_pgn_matches_server(game, tmp_path)
    logs = bot.logs()
    assert f"game {game_id}: no news from the server for {FINISH_IDLE_S} s while the bot stops; leaving the game " \
           "as on_signal: abort does" in logs, logs
    assert "stopped after 1 finished game" in logs

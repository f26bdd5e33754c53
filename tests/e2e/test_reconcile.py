"""The server's word is the record (issue 26), as pychess restores games after a restart: a BOT's resignation
lives in memory only, so the game is live again, and only the White bot of a game between two BOTs hears of
it (``gameStart``). Our bot plays Black against a BOT here, so it never does: it must look its ended games up
itself, at start-up and after a restart it notices, resign again where the game is live, and write the
server's result when the server recorded another one.

Waits are generous and nothing is timed: the tests pass beside CPU burners."""

from __future__ import annotations

import logging
import signal
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot.loopback import Game, LoopbackServer, Manual, Scripted
from bot.loopback.model import MoveRecord
from tests.e2e.conftest import (
    KEEPALIVE_S,
    QUICK_RESTARTS,
    BotProcess,
    BotThread,
    assert_pgn_matches_server,
    bot_config,
    pgn_of,
    refereed_server,
)
from tests.reliability.conftest import ResignAfter
from tests.timing import GAME_S, wait_until

#: Black to move and lost (a lone king against queen and rook): the bot resigns at its first move
BLACK_IS_LOST = "7k/8/8/8/8/8/8/QR4K1[] b - - 0 1"


@pytest.fixture
def pychess() -> Iterator[LoopbackServer]:
    with refereed_server("pychess", keepalive_s=KEEPALIVE_S) as srv:
        yield srv


def sent_after(server: LoopbackServer, game_id: str, moment: float, endpoint: str) -> list[Any]:
    return [r for r in server.requests_to(endpoint, game_id) if r.started_at > moment]


def wait_for_text(read: Any, text: str, timeout: float = GAME_S) -> str:
    """Wait until ``read()`` (a log) holds ``text``; returns what it read."""
    found = [""]

    def logged() -> bool:
        found[0] = str(read())
        return text in found[0]

    wait_until(logged, lambda: f"{text!r} in the log:\n{found[0][-3000:]}", timeout, poll_s=0.2)
    return found[0]


def resign_as_black_at_a_shutdown(pychess: LoopbackServer, tmp_path: Path) -> tuple[str, BotProcess]:
    """Our bot, Black against a BOT, is stopped (``shutdown.on_signal: abort``) with White to move at ply 4:
    too late to abort, it resigns (1-0) and exits. Then the server restarts and forgets the resignation."""
    game_id = pychess.challenge(challenger="OppBot", title="BOT", color="white", clock=(300, 2), opponent=Manual())
    config = bot_config(pychess, tmp_path, shutdown={"on_signal": "abort"})
    first = BotProcess(config, tmp_path).start()
    try:
        pychess.wait_for_game_start(game_id, GAME_S)
        pychess.wait_for_request("stream_game", timeout=GAME_S)
        for ply, move in ((1, "e2e4"), (3, "g1f3")):
            pychess.play_opponent_move(game_id, move)
            pychess.wait_for_plies(game_id, ply + 1, GAME_S)
        assert first.process is not None
        first.process.send_signal(signal.SIGTERM)
        assert first.wait(GAME_S) == 0, first.logs()
    finally:
        first.stop()
    game = pychess.game(game_id)
    assert (game.status, game.result(), len(game.moves)) == ("resign", "1-0", 4), game.describe()
    assert "too late to abort (4 plies on the board); resigning" in first.logs()
    assert_pgn_matches_server(game, tmp_path)
    assert pychess.faults.restart_server(0.5, terminated=False, clean=False) == [game_id]
    assert not pychess.game(game_id).over, "the restart forgot our resignation"
    return game_id, BotProcess(config, tmp_path)


def test_as_black_against_a_bot_the_restarted_bot_resigns_again_a_game_the_server_brought_back(
        pychess: LoopbackServer, tmp_path: Path) -> None:
    game_id, second = resign_as_black_at_a_shutdown(pychess, tmp_path)
    restarted = time.time()
    second.start()
    try:
        game = pychess.wait_for_game_end(game_id, GAME_S)
        wait_for_text(second.logs, "resigned again without a gameStart")
    finally:
        second.stop()
    assert (game.status, game.result()) == ("resign", "1-0"), game.describe()
    assert len(sent_after(pychess, game_id, restarted, "resign")) == 1
    assert not sent_after(pychess, game_id, restarted, "move"), "no move in a game we resigned"
    assert not sent_after(pychess, game_id, restarted, "stream_game"), "no gameStart came for it, as on pychess"
    assert_pgn_matches_server(game, tmp_path)


def test_as_black_against_a_bot_the_pgn_takes_the_servers_result_when_the_opponents_clock_ran_out(
        pychess: LoopbackServer, tmp_path: Path) -> None:
    """hC36PJW1: after the restart White's clock ran out and the server recorded 0-1 on time; our PGN said 1-0."""
    game_id, second = resign_as_black_at_a_shutdown(pychess, tmp_path)
    pychess.set_clock(game_id, True, 300)  # White (the BOT, to move) runs out while our bot is down
    game = pychess.wait_for_game_end(game_id, GAME_S)
    assert (game.status, game.result()) == ("outoftime", "0-1"), game.describe()
    restarted = time.time()
    second.start()
    try:
        logs = wait_for_text(second.logs, "PGN rewritten with the server's record")
    finally:
        second.stop()
    assert "0-1 (flag): result 1-0 -> 0-1, Termination Normal -> Time forfeit; why: the server did not keep our " \
        "resignation" in logs
    assert not sent_after(pychess, game_id, restarted, "resign"), "nothing to resign: the game is over"
    tags = assert_pgn_matches_server(game, tmp_path)
    assert (tags["Result"], tags["Termination"]) == ("0-1", "Time forfeit")


def rewrite_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The lines saying a PGN was rewritten; waited for, since the PGN is written a moment before its line."""
    def lines() -> list[str]:
        return [r.getMessage() for r in list(caplog.records) if "PGN rewritten" in r.getMessage()]

    return wait_until(lines, "a line saying the PGN was rewritten", GAME_S, poll_s=0.1)


#: a bot in this process: its game page checks, reconnects and the reconciler's looks shortened
QUICK_LOOKS = replace(QUICK_RESTARTS, live_recheck_s=0.5, resent_recheck_s=0.5)


@pytest.fixture
def quick_watch(caplog: pytest.LogCaptureFixture) -> None:
    """INFO logs kept (the test's bot runs with :data:`QUICK_LOOKS`)."""
    caplog.set_level(logging.INFO)


def test_a_running_bot_resigns_again_after_a_server_restart_it_noticed(
        pychess: LoopbackServer, tmp_path: Path, bots: list[BotThread], quick_watch: None,
        caplog: pytest.LogCaptureFixture) -> None:
    game_id = pychess.challenge(challenger="OppBot", title="BOT", color="white", clock=(300, 2),
                                initial_fen=BLACK_IS_LOST, opponent=Manual())
    config = bot_config(pychess, tmp_path, resign={"enabled": True, "score_cp": -500, "moves": 1})
    bots.append(BotThread(config, timing=QUICK_LOOKS).start())
    game = pychess.wait_for_game_end(game_id, GAME_S)
    assert (game.status, game.result()) == ("resign", "1-0"), game.describe()
    wait_until((tmp_path / f"{game_id}.pgn").exists, "our PGN", GAME_S)
    assert pychess.faults.restart_server(0.5, terminated=False, clean=False) == [game_id]
    restarted = time.time()
    game = pychess.wait_for_game_end(game_id, GAME_S)
    assert (game.status, game.result()) == ("resign", "1-0"), "resigned again"
    assert len(sent_after(pychess, game_id, restarted, "resign")) == 1
    messages = [r.getMessage() for r in caplog.records]
    assert any("the server is back: looking up" in m for m in messages), messages
    assert_pgn_matches_server(game, tmp_path)


def test_an_opponent_bots_resignation_the_server_forgot_ends_our_pgn_as_the_server_records(
        pychess: LoopbackServer, tmp_path: Path, bots: list[BotThread], quick_watch: None,
        caplog: pytest.LogCaptureFixture) -> None:
    """aHDVbPjx: the opponent BOT resigned (our PGN: Normal); the restart forgot it, the resigned BOT never came
    back, its clock ran out, and the server recorded a loss on time: our PGN must say Time forfeit."""
    game_id = pychess.challenge(challenger="OppBot", title="BOT", color="white", clock=(300, 2),
                                opponent=ResignAfter(3, seed=5))
    bots.append(BotThread(bot_config(pychess, tmp_path), timing=QUICK_LOOKS).start())
    game = pychess.wait_for_game_end(game_id, GAME_S)
    assert (game.status, game.result()) == ("resign", "0-1"), game.describe()
    path = tmp_path / f"{game_id}.pgn"
    wait_until(path.exists, "our PGN", GAME_S)
    assert pgn_of(path)[0]["Termination"] == "Normal"
    assert pychess.faults.restart_server(0.5, terminated=False, clean=False) == [game_id]
    pychess.set_clock(game_id, True, 1500)
    game = pychess.wait_for_game_end(game_id, GAME_S)
    assert (game.status, game.result()) == ("outoftime", "0-1"), game.describe()
    lines = rewrite_lines(caplog)
    assert len(lines) == 1 and "Termination Normal -> Time forfeit" in lines[0], lines
    assert_pgn_matches_server(game, tmp_path)


def test_a_given_up_game_gets_the_servers_result_once_the_game_page_answers_again(
        tmp_path: Path, bots: list[BotThread], quick_watch: None, caplog: pytest.LogCaptureFixture) -> None:
    """The stream and the page go dark after our third move, so the bot gives up and writes ``*`` (Unknown).
    The opponent's clock then runs out; once the page answers again, the PGN says the server's 1-0 on time."""
    def cut_off_after_our_third_move(game: Game, record: MoveRecord) -> None:
        if record.by == "bot" and record.ply == 5:
            server.faults.lose_game_stream(game.id)
            server.faults.fail("game_page", 502, times=None, target=game.id)

    with refereed_server("pychess", keepalive_s=KEEPALIVE_S, on_move=cut_off_after_our_third_move) as server:
        game_id = server.challenge(color="black", clock=(10, 0), opponent=Scripted(["e7e5", "b8c6"], then="wait"))
        config = bot_config(server, tmp_path, time={"give_up_after_s": 1},
                            challenge={"speeds": ["ultraBullet", "bullet"]})
        bots.append(BotThread(config, timing=QUICK_LOOKS).start())
        path = tmp_path / f"{game_id}.pgn"
        wait_until(path.exists, "the given-up game's PGN", GAME_S)
        assert (pgn_of(path)[0]["Result"], pgn_of(path)[0]["Termination"]) == ("*", "Unknown")
        game = server.wait_for_game_end(game_id, GAME_S)
        assert (game.status, game.result()) == ("outoftime", "1-0"), game.describe()
        server.faults.clear()  # the page answers again
        lines = rewrite_lines(caplog)
        assert_pgn_matches_server(game, tmp_path)
    assert len(lines) == 1 and "result * -> 1-0, Termination Unknown -> Time forfeit" in lines[0], lines

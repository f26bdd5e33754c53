"""Faults 5-7: SIGTERM during games (finish them, or leave them per config: abort a game without moves, resign one
with moves; PGNs written, exit 0); clock pressure (1 s + 0
and 0.3 s + 0.1 s left, with network delay) never loses on time; a flood of 200 challenges is decided in order,
never beyond the concurrency, and every declined challenge is answered. Both dialects."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest

from bot.loopback import LoopbackServer, Scripted
from tests.reliability.conftest import (
    BotProcess,
    BotThread,
    ResignAfter,
    WorkerWatch,
    assert_clean_game,
    bot_config,
)
from tests.timing import GAME_S, STARTUP_S, wait_until


@pytest.mark.parametrize(("mode", "signum"), [("finish", signal.SIGTERM), ("abort", signal.SIGTERM),
                                             ("abort", signal.SIGINT)],
                         ids=["finish", "abort-too-late-resigns", "abort-too-late-resigns-ctrl-c"])
def test_sigterm_during_games_with_moves_finishes_or_resigns_them_writes_the_pgns_and_exits_0(
    server: LoopbackServer, tmp_path: Path, mode: str, signum: signal.Signals
) -> None:
    """SIGTERM (docker stop) and SIGINT (Ctrl-C in a terminal) stop the bot the same way. With moves on the
    board an abort is too late (pychess plays on): ``on_signal: abort`` resigns; the abort itself is the next
    test's."""
    ids = [server.challenge(challenger=name, color="white", clock=(120, 1),
                            opponent=Scripted(["e2e4", "g1f3", "wait"])) for name in ("Alice", "Bob")]
    config = bot_config(server, tmp_path, challenge={"concurrency": 2}, shutdown={"on_signal": mode})
    bot = BotProcess(config, tmp_path).start()
    try:
        for game_id in ids:
            server.wait_for_plies(game_id, 4, GAME_S)
        assert bot.process is not None
        bot.process.send_signal(signum)
        late = server.challenge(challenger="Late", clock=(60, 0))
        assert server.wait_for_answer(late, STARTUP_S).reason == "later", "no new games once stopping"
        if mode == "finish":
            for game_id in ids:
                server.set_opponent(game_id, ResignAfter(6, seed=6))
        assert bot.wait(GAME_S) == 0, bot.logs()
    finally:
        bot.stop()
    for game_id in ids:
        game = server.game(game_id)
        assert game.over
        if mode == "finish":
            assert_clean_game(game)
            assert game.status == "resign" and game.winner is game.bot_color, "played to the end and won"
        else:
            assert game.status == "resign" and game.winner is not game.bot_color, "too late to abort: resigned"
            # pychess answers an abort of a game with moves with 200 and plays on: never sent
            assert not server.requests_to("abort", game_id)
        pgn = (tmp_path / f"{game_id}.pgn").read_text()
        # the bot is black: the PGN has the server's result (game page, game export), never '*'
        assert f'[Result "{game.result()}"]' in pgn and game.result() in ("0-1", "1-0"), pgn
    assert f"received {signum.name}" in bot.logs()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
def test_a_signal_with_on_signal_abort_aborts_a_game_without_moves_and_exits_0(
    server: LoopbackServer, tmp_path: Path, signum: signal.Signals
) -> None:
    """The opponent (White) never moves: the bot, told to abort its games on a signal, aborts this one."""
    game_id = server.challenge(color="white", clock=(120, 1), opponent=Scripted(["wait"]))
    bot = BotProcess(bot_config(server, tmp_path, shutdown={"on_signal": "abort"}), tmp_path).start()
    try:
        server.wait_for_game_start(game_id, STARTUP_S)
        server.wait_for_request("stream_game", timeout=STARTUP_S)
        assert bot.process is not None
        bot.process.send_signal(signum)
        assert bot.wait(GAME_S) == 0, bot.logs()
    finally:
        bot.stop()
    game = server.game(game_id)
    assert (game.status, game.moves) == ("aborted", []), game.describe()
    assert len(server.requests_to("abort", game_id)) == 1 and not server.requests_to("resign", game_id)
    assert f"received {signum.name}" in bot.logs()


@pytest.mark.wall_clock
def test_sigterm_during_a_60_s_429_pause_ends_the_pause_and_exits_0(server: LoopbackServer, tmp_path: Path) -> None:
    """The bot (production waits: a subprocess) is told to wait 60 s before accepting again; a SIGTERM with no
    game to finish ends that pause at once, and the accept is not retried. Timed on the real clock (a process
    and its signal): under 45 s tells "ended the pause" from "waited it out" (60 s) even on a loaded machine."""
    server.faults.fail("accept", 429, times=None, retry_after_s=60)
    bot = BotProcess(bot_config(server, tmp_path), tmp_path).start()
    try:
        server.challenge(clock=(60, 0))
        server.wait_for_request("accept", timeout=STARTUP_S)
        wait_until(lambda: "pausing this endpoint for 60 s" in bot.logs(),
                   lambda: f"the 429 pause in the log:\n{bot.logs()}", STARTUP_S)
        assert bot.process is not None
        signalled = time.monotonic()
        bot.process.send_signal(signal.SIGTERM)
        assert bot.wait(45) == 0, bot.logs()
        waited_s = time.monotonic() - signalled
    finally:
        bot.stop()
    # well under the 60 s pause (the bound is loose: the machine may be loaded); the accept was never retried
    assert waited_s < 45
    assert len(server.requests_to("accept")) == 1
    assert "received SIGTERM" in bot.logs()


@pytest.mark.wall_clock
@pytest.mark.parametrize(("clock", "left_ms", "short_clock_moves"), [((60, 0), 1000, 2), ((60, 0.1), 300, 1)],
                         ids=["1+0", "0.3+0.1"])
def test_the_bot_never_loses_on_time_under_clock_pressure_with_network_delay(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread], clock: Any, left_ms: int, short_clock_moves: int
) -> None:
    """This needs wall time: the clock is the server's, and the bot's time management is what is tested.

    With its clock cut, the bot must move within what it has: a bot that planned its move on the clock it had
    before (60 s) would think for seconds. Each move costs the bot the 40 ms of network delay plus what a busy
    machine adds: beside two CPU burners and other test processes that was 100-250 ms a move, more than the
    0.1 s increment. So the bot plays two moves on 1 s + 0 (at most about 500 ms of the 1000) and one move
    with 0.3 s left (at most about 250 ms of the 300), then the opponent resigns. More moves would measure
    the machine, not the bot."""
    server.faults.delay_s = 0.02  # before every answer and every streamed line
    game_id = server.challenge(color="white", clock=clock, opponent=Scripted(["e2e4", "g1f3", "wait"]))
    # the shipped time settings (300 ms move overhead) and an engine with no depth limit: time management only
    config = bot_config(server, tmp_path, engine={"limits": {"depth": None}}, time={"move_overhead_ms": 300})
    bots.append(BotThread(config, max_games=1).start())
    game = server.wait_for_plies(game_id, 4, GAME_S)
    server.set_clock(game_id, game.bot_color, left_ms)
    server.set_opponent(game_id, ResignAfter(2 + short_clock_moves, seed=7))  # it has made 2 moves
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert game.status != "outoftime", game.termination
    assert game.status in ("resign", "mate", "stalemate", "draw"), f"{game.status}: {game.termination}"
    assert game.status != "resign" or len(game.bot_moves()) == 2 + short_clock_moves, "moves on the short clock"
    flagged = [r for r in game.move_log if r.by == "bot" and r.remaining_ms is not None and r.remaining_ms <= 0]
    assert not flagged
    assert bots[0].join(GAME_S) == 0


def test_a_flood_of_200_challenges_is_decided_in_order_within_the_concurrency(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread], workers: WorkerWatch
) -> None:
    config = bot_config(server, tmp_path, challenge={"concurrency": 2})
    bots.append(BotThread(config).start())
    server.wait_for(lambda: server.event_stream_connections or None, STARTUP_S, "the bot to connect")
    server.faults.fail("decline", 429, times=1, retry_after_s=1)  # a rate limit in the middle of it
    ids = server.flood_challenges(200, clock=(60, 1), opponent=ResignAfter(3, seed=8))
    answers = [server.wait_for_answer(challenge_id, STARTUP_S) for challenge_id in ids]
    accepted = [challenge_id for challenge_id, answer in zip(ids, answers, strict=True) if answer.accepted]
    assert accepted == ids[:2], "the first two are accepted, the rest find no room"
    assert all(answer.reason == "later" for answer in answers[2:]), "every declined one got its answer"
    times = [answer.at for answer in answers]
    assert times == sorted(times), "decided in the order they came"
    assert all(r.in_flight == 1 for r in server.requests_to("decline")), "one decline in flight at a time"
    assert len([r for r in server.requests_to("decline") if r.status == 429]) == 1
    for game_id in accepted:
        assert_clean_game(server.wait_for_game_end(game_id, GAME_S))
    assert sorted(set(workers.started)) == sorted(accepted), "no game beyond the concurrency"
    assert bots[0].stop(GAME_S) == 0

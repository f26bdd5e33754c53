"""What the log says is what happened (issue 49), asserted where the operator meets each line: the shutdown
line names what is done to each game, a server restart gives one "lost" and one "back" line per stream with
the game's id (the "lost" one written while the server is down), a move retried during the restart names
its game, move and attempt, a game resigned again after a restart counts as finished with no "playing"
line, the opponent's rating and title reach ``/api/status``, and an S-chess960 PGN carries the server's
initial FEN verbatim (and replays in pyffish from it).

Waits are generous and nothing is timed to the tenth: the tests pass beside CPU burners."""

from __future__ import annotations

import json
import logging
import re
import signal
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.config import Timing
from bot.loopback import Game, LoopbackServer, Manual, Scripted
from bot.loopback.answers import Reply
from tests.e2e.conftest import (
    KEEPALIVE_S,
    BotProcess,
    BotThread,
    assert_pgn_matches_server,
    bot_config,
    calm_config,
    pgn_of,
    refereed_server,
    settled,
)
from tests.e2e.test_reconcile import wait_for_text
from tests.e2e.test_status_page import free_port
from tests.match.pyffish_board import PyffishBoard
from tests.reliability.conftest import ResignAfter
from tests.timing import GAME_S, PATIENCE_S, wait_until

#: how long the restarted server refuses connections
DOWN_S = 1.5


@pytest.fixture
def pychess() -> Iterator[LoopbackServer]:
    with refereed_server("pychess", keepalive_s=KEEPALIVE_S) as srv:
        yield srv


def lines_with(messages: list[str], *parts: str) -> list[str]:
    return [message for message in messages if all(part in message for part in parts)]


def play_to_ply_four(server: LoopbackServer, game_id: str) -> None:
    """The opponent (White, a :class:`Manual`) plays two moves, the bot answers each: White to move at ply 4."""
    server.wait_for_game_start(game_id, GAME_S)
    server.wait_for_request("stream_game", target=game_id, timeout=GAME_S)
    for ply, move in ((1, "e2e4"), (3, "g1f3")):
        server.play_opponent_move(game_id, move)
        server.wait_for_plies(game_id, ply + 1, GAME_S)


def test_the_shutdown_line_names_each_game_resigned_too_late_to_abort_or_aborted(
        server: LoopbackServer, tmp_path: Path) -> None:
    """SIGTERM with ``shutdown.on_signal: abort`` and two games: one at ply 4 (too late to abort: resigned),
    one whose opponent never moved (aborted). The shutdown line says so, before either happens."""
    config = bot_config(server, tmp_path, shutdown={"on_signal": "abort"}, challenge={"concurrency": 2})
    bot = BotProcess(config, tmp_path).start()
    try:
        late = server.challenge(challenger="Alice", color="white", clock=(300, 2), opponent=Manual())
        play_to_ply_four(server, late)
        early = server.challenge(challenger="Bob", color="white", clock=(300, 2), opponent=Manual())
        server.wait_for_game_start(early, GAME_S)
        server.wait_for_request("stream_game", target=early, timeout=GAME_S)
        assert bot.process is not None
        bot.process.send_signal(signal.SIGTERM)
        assert bot.wait(GAME_S) == 0, bot.logs()
    finally:
        bot.stop()
    log = bot.logs()
    shutdown = [line for line in log.splitlines() if "stopping: no new challenges;" in line]
    assert len(shutdown) == 1, log
    assert "2 running games:" in shutdown[0], shutdown
    assert f"game {late} will be resigned (too late to abort: 4 plies on the board)" in shutdown[0], shutdown
    assert f"game {early} will be aborted" in shutdown[0], shutdown
    assert "aborting" not in shutdown[0], "no promise of an abort for a game that is resigned"
    assert f"game {late}: too late to abort (4 plies on the board); resigning" in log
    assert f"game {early}: aborted (the bot is shutting down)" in log
    assert (server.game(late).status, server.game(late).result()) == ("resign", "1-0")
    assert server.game(early).status == "aborted"
    assert_pgn_matches_server(server.game(late), tmp_path)


def test_a_server_restart_with_two_games_logs_one_lost_and_one_back_line_each_and_the_retried_move(
        server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture) -> None:
    """Two games; the server goes down as our move in the first one arrives (that connection cut, then
    connections refused for DOWN_S). Each game stream's loss is logged once, while the server is down, and
    its return once, with how long it was down; every retry of the move names the game, the move and the
    attempt. The status page carries the opponents' ratings and titles, which pychess's gameFull leaves
    out."""
    caplog.set_level(logging.INFO)
    port = free_port()
    config = bot_config(server, tmp_path, challenge={"concurrency": 2},
                        status={"listen": f"127.0.0.1:{port}"})
    bots.append(BotThread(config, timing=Timing(reconnect_base_s=0.2)).start())
    first = server.challenge(challenger="Alice", rating=1612, color="white", clock=(300, 2), opponent=Manual())
    server.wait_for_game_start(first, GAME_S)
    server.wait_for_request("stream_game", target=first, timeout=GAME_S)
    second = server.challenge(challenger="OppBot", title="BOT", rating=1733, color="white", clock=(300, 2),
                              opponent=Scripted(["e2e4"], then="wait"))
    server.wait_for_plies(second, 2, GAME_S)

    def running_games() -> dict[str, Any] | None:
        status = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=PATIENCE_S).read())
        games = {game["id"]: game for game in status["games"] if "opponent_rating" in game}  # set up
        return games if {first, second} <= set(games) else None

    games = wait_until(running_games, "both games on the status page", GAME_S, poll_s=0.1)
    assert (games[first]["opponent_rating"], games[first]["opponent_title"]) == (1612, None), games[first]
    assert (games[second]["opponent_rating"], games[second]["opponent_title"]) == (1733, "BOT"), games[second]

    went_down: dict[str, float] = {}
    real_move = server.api_move

    def go_down_as_our_move_arrives(game_id: str, uci: str, offering_draw: bool) -> Any:
        if game_id == first and not went_down:
            went_down["at"] = time.time()
            server.faults.restart_server(DOWN_S, terminated=False, clean=False)
            return Reply(503, "<html><body><h1>503 Service Unavailable</h1></body></html>")
        return real_move(game_id, uci, offering_draw)

    server.api_move = go_down_as_our_move_arrives  # type: ignore[method-assign]
    server.play_opponent_move(first, "e2e4")
    server.wait_for_plies(first, 2, GAME_S)
    assert went_down, "the server went down as our move arrived"
    up_at = went_down["at"] + DOWN_S

    for stream in (f"game {first}: game stream", f"game {second}: game stream", "event stream"):
        wait_until(lambda stream=stream: lines_with(messages(caplog), f"{stream} back after "),
                   f"the back line of the {stream}", GAME_S)
    records = [r for r in caplog.records if r.name.startswith("bot")]
    for game_id in (first, second):
        lost = [r for r in records if r.getMessage().startswith(f"game {game_id}: game stream lost (")]
        back = [r for r in records if r.getMessage().startswith(f"game {game_id}: game stream back after ")]
        assert len(lost) == 1 and len(back) == 1, [r.getMessage() for r in lost + back]
        assert lost[0].created < up_at, "the loss is logged while the server is down, not once it is back"
        assert "; reconnecting" in lost[0].getMessage()
        down_s = float(re.search(r"back after ([0-9.]+) s down", back[0].getMessage()).group(1))  # type: ignore[union-attr]
        assert down_s >= DOWN_S / 2, back[0].getMessage()
    assert len(lines_with(messages(caplog), "event stream lost (")) == 1
    assert len(lines_with(messages(caplog), "event stream back after ")) == 1

    move = server.game(first).moves[1]
    retries = [m for m in messages(caplog) if m.startswith(f"game {first}: move ") and f"({move})" in m
               and "; retrying in " in m]
    # the server going down cuts the connection of the move itself (or answers 503), then refuses connections:
    # the move may have landed and the game stream is down too. pychess's game page is asked before the move is
    # sent again, and it cannot be had yet; Lichess refuses a move out of turn without harm, so the move goes
    # out again at once, with one line saying why (its export would be seconds behind the game anyway)
    assert retries and "(attempt 2 of 5)" in retries[0], retries
    if server.dialect == "pychess":
        assert any(m.startswith(f"game {first}: game page: connection error (connection refused")
                   for m in messages(caplog)), "the game page asked while the server is down"
    else:
        assert any(m.startswith(f"game {first}: move ") and m.endswith(
            "the server refuses a move out of turn without harm); sending it again") for m in messages(caplog))
        assert not server.requests_to("game_export", first), "the delayed export is not asked"
    assert not [m for m in messages(caplog) if m.startswith("move: ")], "no retry line without its game"
    assert not [m for m in messages(caplog) if "game stream" in m and "game " not in m.split(":")[0]]

    for game_id in (first, second):
        server.opponent_resign(game_id)
        server.wait_for_game_end(game_id, GAME_S)


def messages(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name.startswith("bot")]


def test_a_game_resigned_again_after_a_server_restart_counts_as_finished_with_no_playing_line(
        pychess: LoopbackServer, tmp_path: Path) -> None:
    """The first run resigns at its shutdown (too late to abort); the restarted server forgets that and has the
    game live again. The next run resigns it again: that run finished one game, and never says it plays it."""
    game_id = pychess.challenge(challenger="Alice", color="white", clock=(300, 2), opponent=Manual())
    port = free_port()
    config = bot_config(pychess, tmp_path, shutdown={"on_signal": "abort"}, **calm_config(port))
    first = BotProcess(config, tmp_path).start()
    try:
        play_to_ply_four(pychess, game_id)
        assert first.process is not None
        first.process.send_signal(signal.SIGTERM)
        assert first.wait(GAME_S) == 0, first.logs()
    finally:
        first.stop()
    assert (pychess.game(game_id).status, pychess.game(game_id).result()) == ("resign", "1-0")
    assert "stopped after 1 finished game" in first.logs()
    assert pychess.faults.restart_server(0.5, terminated=False, clean=False) == [game_id]
    assert not pychess.game(game_id).over
    second = BotProcess(config, tmp_path).start()
    try:
        game = pychess.wait_for_game_end(game_id, GAME_S)
        wait_for_text(second.logs, f"game {game_id}: ")
        settled(pychess, port, PATIENCE_S)  # the worker a gameStart started (if any) has ended its game
        assert second.process is not None
        second.process.send_signal(signal.SIGTERM)
        assert second.wait(GAME_S) == 0, second.logs()
    finally:
        second.stop()
    assert (game.status, game.result()) == ("resign", "1-0"), "resigned again"
    second_log = second.logs()  # each BotProcess writes bot-1.log: the second run's log only
    assert f"game {game_id}: playing" not in second_log, second_log
    assert "stopped after 1 finished game" in second_log, second_log[-2000:]
    assert re.search(rf"game {game_id}: .*(resigned again|finished 1-0 again)", second_log), second_log
    assert_pgn_matches_server(game, tmp_path)


@pytest.mark.parametrize(("dialect", "variant", "config_variant"),
                         [("pychess", "seirawan", "seirawan960"), ("lichess", "chess", "chess960")])
def test_a_960_pgn_keeps_the_servers_initial_fen_verbatim_and_replays_in_pyffish(
        tmp_path: Path, bots: list[BotThread], dialect: str, variant: str, config_variant: str) -> None:
    with refereed_server(dialect, keepalive_s=KEEPALIVE_S) as server:
        config = bot_config(server, tmp_path, challenge={"variants": [config_variant]})
        bots.append(BotThread(config, max_games=1).start())
        game_id = server.challenge(challenger="Alice", variant=variant, chess960=True, clock=(300, 2),
                                   opponent=ResignAfter(6, seed=11))
        game: Game = server.wait_for_game_end(game_id, GAME_S)
        assert bots[0].join(GAME_S) == 0
    if dialect == "pychess":  # pychess's own form: [HEhe], KQ and the gating files (docs/server-api.md)
        assert re.search(r"\[HEhe\] w KQ[A-H]{5}kq[a-h]{5} - 0 1$", game.initial_fen), game.initial_fen
    tags = assert_pgn_matches_server(game, tmp_path)
    assert tags["FEN"] == game.initial_fen, "the server's initial FEN, verbatim"
    assert tags["SetUp"] == "1"
    board = PyffishBoard(tags["FEN"], variant, True)
    for san in pgn_of(tmp_path / f"{game_id}.pgn")[1]:
        board.push(board.parse_san(san))
    assert board.move_stack == game.moves, "pyffish replays the PGN from its FEN tag to the server's moves"

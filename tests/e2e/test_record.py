"""The game worker's part of the record (issue 26), against the loopback in the dialect where each happens: the
move in flight at a SIGTERM is in the PGN and the ply count (both dialects); a replayed old state does not
throw away a finished search (pychess); an opponent BOT's silent resignation frees the slot within 15 s, and
moves learned from the game page carry their clocks in the PGN (pychess)."""

from __future__ import annotations

import logging
import re
import signal
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

from bot.config import PRODUCTION_TIMING
from bot.loopback import Game, LoopbackServer, Scripted, wire
from bot.loopback.model import MoveRecord
from tests.e2e.conftest import (
    KEEPALIVE_S,
    QUICK_RESTARTS,
    BotProcess,
    BotThread,
    assert_pgn_matches_server,
    bot_config,
    refereed_server,
)
from tests.reliability.conftest import ResignAfter
from tests.timing import GAME_S


@pytest.fixture
def pychess() -> Iterator[LoopbackServer]:
    with refereed_server("pychess", keepalive_s=KEEPALIVE_S) as srv:
        yield srv


def messages(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records]


def test_our_move_in_flight_at_a_sigterm_is_in_the_pgn_and_the_ply_count(server: LoopbackServer,
                                                                          tmp_path: Path) -> None:
    """Our fourth-ply move reaches the server, and in that instant the game stream goes silent (no echo) and
    the server's record (game page, game export) stops answering; then SIGTERM (``on_signal: abort``): too
    late to abort, the bot resigns, counting the move it sent, and its PGN has every ply the server has."""
    record_endpoint = "game_page" if server.dialect == "pychess" else "game_export"

    def no_echo_of_our_second_move(game: Game, record: MoveRecord) -> None:
        if record.by == "bot" and record.ply == 4:
            server.faults.silence_streams("game", game.id)
            server.faults.fail(record_endpoint, 502, times=None, target=game.id)

    server.on_move = no_echo_of_our_second_move
    game_id = server.challenge(color="white", clock=(300, 2), opponent=Scripted(["e2e4", "g1f3"], then="wait"))
    config = bot_config(server, tmp_path, shutdown={"on_signal": "abort"})
    bot = BotProcess(config, tmp_path).start()
    try:
        server.wait_for_plies(game_id, 4, GAME_S)
        assert bot.process is not None
        bot.process.send_signal(signal.SIGTERM)
        assert bot.wait(GAME_S) == 0, bot.logs()
    finally:
        bot.stop()
    game = server.game(game_id)
    assert (game.status, game.winner, len(game.moves)) == ("resign", not game.bot_color, 4), game.describe()
    assert_pgn_matches_server(game, tmp_path)
    logs = bot.logs()
    assert "too late to abort (4 plies on the board)" in logs, logs
    assert "finished 1-0 (we resigned; Normal, 4 plies)" in logs, logs


def test_a_replayed_old_state_does_not_cancel_a_finished_search(
    pychess: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture,
) -> None:
    """While the bot thinks on ply 4 (1.5 s a move), its game stream drops and the new one replays the states
    at 1 and 2 plies before the current ``gameFull``, as pychess does after a reconnect. The search's move is
    sent; nothing is searched again."""
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.DEBUG, logger="bot.game")  # the replayed states skipped are DEBUG lines
    replayed_at: dict[str, float] = {}

    def replay_old_states(game: Game) -> None:
        with pychess.lock:
            game.backlog = [wire.game_state_line(game, "pychess", list(game.moves[:plies])) for plies in (1, 2)]
        pychess.faults.drop_streams("game", game.id)
        replayed_at["at"] = time.time()

    def while_the_bot_thinks_on_ply_4(game: Game, record: MoveRecord) -> None:
        if record.by == "opponent" and record.ply == 3:
            threading.Timer(0.3, replay_old_states, args=(game,)).start()

    pychess.on_move = while_the_bot_thinks_on_ply_4
    game_id = pychess.challenge(color="white", clock=(300, 2), opponent=Scripted(["e2e4", "g1f3", "resign"]))
    config = bot_config(pychess, tmp_path, engine={"limits": {"depth": None, "movetime_ms": 1500}})
    bots.append(BotThread(config, max_games=1, timing=replace(PRODUCTION_TIMING, reconnect_base_s=0.1)).start())
    assert bots[0].join(GAME_S) == 0
    game = pychess.game(game_id)
    assert (game.status, len(game.moves)) == ("resign", 4), game.describe()
    ply_4 = next(r for r in game.move_log if r.ply == 4)
    reconnects = [r.started_at for r in pychess.requests_to("stream_game", game_id)][1:]
    assert reconnects and replayed_at["at"] < reconnects[0] < ply_4.at, "the replay came while the bot thought"
    logs = messages(caplog)
    assert any("skipped a replayed state (1 plies; we are at 3)" in m for m in logs), logs
    assert not [m for m in logs if "the position changed while thinking" in m]
    assert len([m for m in logs if f"game {game_id}: played" in m]) == 2, "one search per move of ours"
    assert_pgn_matches_server(game, tmp_path)



@pytest.mark.wall_clock
def test_an_opponent_bots_silent_resignation_frees_the_slot_within_15_s(
    pychess: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    """pychess tells the other bot nothing of a BOT's resignation: with the game watch's own timings (the
    page read after 10 s without news) the bot learns it from the game page and is done within 15 s. Timed on
    the real clock, as the watch's own timings are what is tested: 10 s of silence, then a page read that takes
    well under a second, leave 5 s for a loaded machine."""
    caplog.set_level(logging.INFO)
    game_id = pychess.challenge(color="white", clock=(600, 0), opponent=Scripted(["e2e4"], then="wait"))
    bots.append(BotThread(bot_config(pychess, tmp_path), max_games=1).start())
    pychess.wait_for_plies(game_id, 2, GAME_S)
    resigned_at = time.monotonic()
    pychess.opponent_resign(game_id, announce=False)
    assert bots[0].join(15) == 0, "the slot stayed busy"  # wall_clock: the 15 s is the watch timing under test
    assert time.monotonic() - resigned_at < 15
    game = pychess.game(game_id)
    assert (game.status, game.winner) == ("resign", game.bot_color)
    assert_pgn_matches_server(game, tmp_path)
    assert any(f"game {game_id}: the game page says 0-1 (resignation)" in m for m in messages(caplog))


def test_moves_learned_from_the_game_page_carry_their_clocks_in_the_pgn(
    pychess: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture,
) -> None:
    """The game stream is lost for good after ply 4 (a restart that did not restore it): the bot plays on from
    the game page, and every ply of its PGN, those it learned from the page included, has a [%clk]."""
    caplog.set_level(logging.INFO)
    game_id = pychess.challenge(color="black", clock=(300, 2), opponent=ResignAfter(8, seed=4))
    bots.append(BotThread(bot_config(pychess, tmp_path), max_games=1, timing=QUICK_RESTARTS).start())
    pychess.wait_for_plies(game_id, 4, GAME_S)
    pychess.faults.lose_game_stream(game_id)
    assert bots[0].join(GAME_S) == 0
    game = pychess.game(game_id)
    assert_pgn_matches_server(game, tmp_path)
    assert any("the game stream is down; the game page is at ply" in m for m in messages(caplog))
    text = (tmp_path / f"{game_id}.pgn").read_text()
    movetext = text.split("\n\n", 1)[1]
    comments = re.findall(r"\{([^}]*)\}", movetext)
    assert len(comments) == len(game.moves), movetext
    assert all("[%clk " in comment for comment in comments), movetext

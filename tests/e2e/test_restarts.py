"""Server restarts as the real pychess server does them (docs/server-api.md, "pychess.org across restarts"): a
BOT's resignation is not stored, so the restarted server offers the game again as live; a game stream may not
come back (HTTP 200 and a broken body, then 409 for good) while the game page keeps showing the game; the
connections just drop. The bot must stay resigned, play from the page, and write every ply it knows of."""

from __future__ import annotations

import logging
import signal
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from bot.loopback import Game, LoopbackServer, Manual, Scripted
from bot.loopback.model import MoveRecord
from tests.e2e.conftest import (
    HOPELESS,
    KEEPALIVE_S,
    QUICK_RESTARTS,
    BotProcess,
    BotThread,
    assert_clean_game,
    assert_pgn_matches_server,
    bot_config,
    calm_config,
    pgn_of,
    refereed_server,
    settled,
)
from tests.e2e.test_status_page import free_port
from tests.reliability.conftest import ResignAfter
from tests.timing import GAME_S, PATIENCE_S, STARTUP_S


@pytest.fixture(autouse=True)
def info_logs(caplog: pytest.LogCaptureFixture) -> None:
    """INFO logs kept (the bots here run with :data:`QUICK_RESTARTS`: their waits for a failing stream
    shortened from seconds to a fraction)."""
    caplog.set_level(logging.INFO)


@pytest.fixture
def pychess() -> Iterator[LoopbackServer]:
    with refereed_server("pychess", keepalive_s=KEEPALIVE_S) as srv:
        yield srv


def bot_moves_after(game: Game, moment: float) -> list[str]:
    return [r.uci for r in game.move_log if r.by == "bot" and r.at > moment]


def sends_after(server: LoopbackServer, game_id: str, moment: float, endpoints: tuple[str, ...]) -> list[Any]:
    return [r for endpoint in endpoints for r in server.requests_to(endpoint, game_id) if r.started_at > moment]


def test_a_bot_whose_game_stream_is_not_restored_plays_from_the_game_page_to_the_end(
    pychess: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    game_id = pychess.challenge(color="black", clock=(300, 2), opponent=ResignAfter(8, seed=4))
    bots.append(BotThread(bot_config(pychess, tmp_path), max_games=1, timing=QUICK_RESTARTS).start())
    pychess.wait_for_plies(game_id, 4, GAME_S)
    restarted = time.time()
    # as on the real server: no "terminated", the connections drop, and this game's stream never comes back
    pychess.faults.restart_server(0.5, terminated=False, clean=False, lose_game_streams=(game_id,))
    assert bots[0].join(GAME_S) == 0
    game = pychess.game(game_id)
    assert_clean_game(game)
    assert game.status in ("resign", "mate") and game.winner is game.bot_color, game.describe()
    assert len(bot_moves_after(game, restarted)) >= 3, "the bot played its moves from the game page"
    streams = [r.status for r in pychess.requests_to("stream_game", game_id) if r.started_at > restarted]
    assert streams[:1] == [200] and set(streams[1:]) <= {409}, "the stream never came back"
    assert_pgn_matches_server(game, tmp_path)
    assert any("the game stream is down; the game page is at ply" in r.getMessage() for r in caplog.records)


def test_a_given_up_game_has_every_ply_in_its_pgn_including_our_unconfirmed_move(
    tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    """The stream and the page go silent right after our third move (the stream never echoes it): the bot
    waits until the clocks could have run out, gives up, and its PGN has all five plies."""
    cut: dict[str, float] = {}

    def cut_off_after_our_third_move(game: Game, record: MoveRecord) -> None:
        if record.by == "bot" and record.ply == 5:
            cut["at"] = time.time()
            server.faults.lose_game_stream(game.id)
            server.faults.fail("game_page", 502, times=None, target=game.id)

    with refereed_server("pychess", keepalive_s=KEEPALIVE_S, on_move=cut_off_after_our_third_move) as server:
        game_id = server.challenge(color="black", clock=(10, 0), opponent=Scripted(["e7e5", "b8c6"], then="wait"))
        config = bot_config(server, tmp_path, time={"give_up_after_s": 1},
                            challenge={"speeds": ["ultraBullet", "bullet"]})
        bots.append(BotThread(config, max_games=1, timing=QUICK_RESTARTS).start())
        # the bound is the point: given up after 1 s once the 10 s clocks could have run out, well under GAME_S
        assert bots[0].join(40) == 0, "the given-up game frees the bot (--games 1 counts it)"
        game = server.game(game_id)
        assert len(game.moves) == 5
        assert not sends_after(server, game_id, cut["at"] + 0.5, ("move", "resign", "abort")), \
            "nothing is sent to a game we cannot see"
    tags, sans = pgn_of(tmp_path / f"{game_id}.pgn")
    assert (tags["Result"], tags["Termination"]) == ("*", "Unknown")
    assert sans == game.sans, "every ply we know of, our accepted but unconfirmed move included"
    messages = [r.getMessage() for r in caplog.records]
    assert any("giving up on the game: neither the game stream nor the game page answered" in m for m in messages)
    assert any("was accepted but never confirmed; it is in the PGN" in m for m in messages)


def test_our_move_into_a_game_that_ended_silently_is_noticed_and_not_counted(
    pychess: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    """Seen on the real server: the opponent BOT resigned while our reply was on its way; pychess answered our
    move with 200, ignored it, and said nothing more. The bot waited for the echo forever (its own turn on
    its board). Now it looks at the game page, ends the game as the server has it, and says the move did not
    count."""
    game_id = pychess.challenge(color="white", clock=(300, 2), opponent=Scripted(["e2e4", "g1f3"], then="wait"))
    real_move = pychess.api_move

    def resign_first_at_our_second_move(gid: str, uci: str, offering_draw: bool) -> Any:
        if len(pychess.game(gid).moves) == 3:
            pychess.opponent_resign(gid, announce=False)  # as a BOT's resignation: no gameEnd for us
        return real_move(gid, uci, offering_draw)

    pychess.api_move = resign_first_at_our_second_move  # type: ignore[method-assign]
    bots.append(BotThread(bot_config(pychess, tmp_path), max_games=1, timing=QUICK_RESTARTS).start())
    # the bound is the point: the bot must read the game page rather than wait for the echo, well under GAME_S
    assert bots[0].join(40) == 0, "the bot must not wait for the echo of a move the server ignored"
    game = pychess.game(game_id)
    assert (game.status, game.winner, len(game.moves)) == ("resign", game.bot_color, 3)
    ignored = [uci for uci, why in game.rejected if why == "game over"]
    assert len(ignored) == 1, game.rejected
    assert_pgn_matches_server(game, tmp_path)
    assert any(f"our move {ignored[0]} did not count" in r.getMessage() for r in caplog.records)


def test_a_fresh_bot_process_resigns_again_a_game_the_restarted_server_restored_and_plays_no_move(
    pychess: LoopbackServer, tmp_path: Path
) -> None:
    game_id = pychess.challenge(initial_fen=HOPELESS, color="black", clock=(300, 2), opponent=Manual())
    port = free_port()
    config = bot_config(pychess, tmp_path, resign={"enabled": True, "score_cp": -500, "moves": 1},
                        **calm_config(port))
    first = BotProcess(config, tmp_path, "--games", "1").start()
    try:
        assert first.wait(GAME_S) == 0, first.logs()
    finally:
        first.stop()
    game = pychess.game(game_id)
    assert (game.status, game.winner) == ("resign", False)
    pgn_path = tmp_path / f"{game_id}.pgn"
    written = pgn_path.read_text()
    assert '[Result "0-1"]' in written
    # the restart forgets the resignation: the game is live again and the event stream offers it
    assert pychess.faults.restart_server(0.5, terminated=False, clean=False) == [game_id]
    assert not pychess.game(game_id).over
    restarted = time.time()
    second = BotProcess(config, tmp_path).start()
    try:
        game = pychess.wait_for_game_end(game_id, GAME_S)
        pychess.wait_for_request("stream_event", count=2, timeout=STARTUP_S)
        assert second.process is not None
        # the gameStart the event stream offered is handled, and the worker it started (if any) has ended:
        # a move, had the bot decided to play one, has been sent
        settled(pychess, port, PATIENCE_S)
        second.process.send_signal(signal.SIGTERM)
        assert second.wait(GAME_S) == 0, second.logs()
    finally:
        second.stop()
    assert (game.status, game.winner) == ("resign", False), "resigned again, as the earlier run did"
    assert not sends_after(pychess, game_id, restarted, ("move",)), "no move in a game we resigned"
    assert len(sends_after(pychess, game_id, restarted, ("resign",))) == 1
    assert pgn_path.read_text() == written, "the PGN we wrote stays"
    # the worker a gameStart starts, or the look-up of our ended games at start-up, whichever is first
    assert "our record says we resigned this game; resigned again and played nothing" in second.logs() \
        or "our record says we resigned it, but the server has it live again" in second.logs()

"""The bot plays S-chess with Sjaak II, an XBoard engine (``engine.protocol: xboard``), on the loopback server
in the pychess dialect: a whole game from the start position, castling with a gate on both squares, and gating
moves in both directions (the opponent's sent to the engine with ``usermove``, the engine's read back)."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import Any

import pytest

from bot.loopback import LoopbackServer, Manual, RandomMoves, Scripted
from tests.e2e.conftest import BotThread, assert_clean_game, bot_config, replay_pgn
from tests.timing import GAME_S, STARTUP_S

SJAAK = shutil.which("sjaakii") or shutil.which("/usr/games/sjaakii")
pytestmark = pytest.mark.skipif(SJAAK is None, reason="Sjaak II is not installed (apt-get install sjaakii)")

CASTLE_GATE_MATE = "8/8/8/8/6p1/6k1/8/4K2R[E] w K - 0 1"  # only O-O with the Elephant on h1 mates: h1e1e
ITALIAN = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R[EHeh] w KQBCDkqcdg - 4 4"  # White may castle


@pytest.fixture(autouse=True)
def info_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)


def sjaak_config(server: LoopbackServer, tmp_path: Path, debug: bool = False) -> dict[str, Any]:
    """``debug``: log every line to and from Sjaak II (logger ``bot.engine.io``)."""
    # no XBoard engine plays S-chess960: the start-up check would refuse the default challenge.variants
    return bot_config(server, tmp_path, engine={"command": SJAAK, "protocol": "xboard", "limits": {"depth": 3},
                                                "options": {"Hash": 16}, "debug": debug},
                      challenge={"variants": ["seirawan", "chess", "chess960"]})


def is_gating(uci: str) -> bool:
    return len(uci) == 5 and uci[4] in "he"


def assert_engine_moves_only(caplog: pytest.LogCaptureFixture) -> None:
    """Every move the bot played came from Sjaak II: no engine error, no fallback move."""
    problems = [r.getMessage() for r in caplog.records if "fallback" in r.getMessage()
                or "engine failed" in r.getMessage()]
    assert not problems, problems
    assert [r for r in caplog.records if r.getMessage().startswith("game ") and ": played " in r.getMessage()]


def test_sjaak_plays_a_complete_s_chess_game_from_the_start_position(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    game_id = pychess_server.challenge(color="black", clock=(120, 2), opponent=RandomMoves(seed=5))
    bots.append(BotThread(sjaak_config(pychess_server, tmp_path), max_games=1).start())
    assert pychess_server.wait_for_answer(game_id, STARTUP_S).accepted
    game = pychess_server.wait_for_game_end(game_id, 180)  # above GAME_S: a whole 2+2 game against Sjaak II over xboard
    assert_clean_game(game)
    assert game.status in ("mate", "draw", "stalemate"), game.describe()
    assert len(game.bot_moves()) >= 2
    assert bots[0].join(GAME_S) == 0
    assert_engine_moves_only(caplog)
    assert replay_pgn(tmp_path / f"{game_id}.pgn") == game.moves


def test_sjaak_mates_by_castling_with_a_gate_on_the_rook_square(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    game_id = pychess_server.challenge(initial_fen=CASTLE_GATE_MATE, color="black", opponent=Manual())
    bots.append(BotThread(sjaak_config(pychess_server, tmp_path), max_games=1).start())
    game = pychess_server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert (game.status, game.winner, game.moves) == ("mate", True, ["h1e1e"]), game.describe()
    assert bots[0].join(GAME_S) == 0
    assert_engine_moves_only(caplog)


def test_the_opponents_gating_and_castling_with_a_gate_reach_sjaak(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    """White castles with the Hawk on the rook's square (h1e1h), then gates the Elephant (b1c3e); the bot (Black,
    Sjaak II) must take both and answer legally to the end of the game."""
    opponent = Scripted(["h1e1h", "b1c3e"], then="random", seed=3)
    game_id = pychess_server.challenge(initial_fen=ITALIAN, color="white", clock=(120, 2), opponent=opponent)
    bots.append(BotThread(sjaak_config(pychess_server, tmp_path, debug=True), max_games=1).start())
    game = pychess_server.wait_for_game_end(game_id, 180)  # above GAME_S: a whole 2+2 game against Sjaak II over xboard
    assert_clean_game(game)
    assert game.moves[0] == "h1e1h" and game.moves[2] == "b1c3e", game.describe()
    assert len(game.moves) >= 4, "the bot answered the gated Elephant too"
    assert game.status in ("mate", "draw", "stalemate", "resign"), game.describe()
    # Both gating moves of the opponent reached the engine (the lines the bot wrote to Sjaak II; the scripted
    # opponent's own moves in game.moves would prove nothing about that).
    sent = [r.getMessage().split(" < ", 1)[1].removeprefix("usermove ") for r in caplog.records
            if r.name == "bot.engine.io" and " < " in r.getMessage()]
    assert "h1e1h" in sent and "b1c3e" in sent, sent
    assert bots[0].join(GAME_S) == 0
    assert_engine_moves_only(caplog)

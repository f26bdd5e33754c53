"""Clocks, time forfeits, opponents (scripted, random, UCI engine) and start positions."""

from __future__ import annotations

import shutil

import pytest

from bot.loopback import Clock, EngineOpponent, LoopbackServer, Manual, RandomMoves, Scripted, start_fen
from bot.loopback.opponents import OpponentView
from tests.loopback.conftest import Client, start_game
from tests.timing import GAME_S, PATIENCE_S, STARTUP_S

FAIRY_STOCKFISH = shutil.which("fairy-stockfish") or "/usr/games/fairy-stockfish"


def test_clock_starts_after_both_sides_moved_and_adds_increments() -> None:
    clock = Clock(1000, 500)
    clock.moved(True, 1, now=0.0)
    assert clock.running is None and clock.remaining_ms(True) == 1000
    clock.moved(False, 2, now=10.0)
    assert clock.running is True
    assert clock.remaining_ms(True, now=10.4) == pytest.approx(600)
    clock.moved(True, 3, now=10.4)
    assert clock.remaining_ms(True) == pytest.approx(1100)
    assert clock.flagged(now=12.0) is False, "black ran out"


def test_the_bot_loses_on_time(pychess: LoopbackServer, pychess_client: Client) -> None:
    game_id, _ = start_game(pychess, pychess_client, color="black", clock=(60, 0), opponent=Scripted(["e7e5"]))
    pychess_client.move(game_id, "e2e4")
    pychess.wait_for_plies(game_id, 2, PATIENCE_S)
    pychess.set_clock(game_id, True, 200)
    game = pychess.wait_for_game_end(game_id, PATIENCE_S)
    assert game.status == "outoftime" and game.winner is False


def test_opponent_resign_and_abort(lichess: LoopbackServer, lichess_client: Client) -> None:
    game_id, game = start_game(lichess, lichess_client, opponent=Manual())
    lichess.opponent_resign(game_id)
    final = game.next_json()
    assert final["status"] == "resign" and final["winner"] == ("white" if lichess.game(game_id).bot_color else "black")
    other, _ = start_game(lichess, lichess_client, opponent=Scripted(["abort"]), color="white")
    assert lichess.wait_for_game_end(other, PATIENCE_S).status == "aborted"


def test_random_moves_depend_only_on_the_seed_and_the_position() -> None:
    from engine import Board

    board = Board()
    position = OpponentView("g", "seirawan", False, board.fen(), (), True, board)
    choices = {RandomMoves(seed=5).choose(position) for _ in range(5)}
    assert len(choices) == 1 and choices.pop() in position.legal_ucis()


def test_scripted_opponent_falls_back_when_its_move_is_illegal() -> None:
    from engine import Board

    board = Board()
    position = OpponentView("g", "seirawan", False, board.fen(), (), True, board)
    assert Scripted(["e2e5"], then="resign").choose(position) == "resign"
    assert Scripted(["e2e5"], then="wait").choose(position) is None
    assert Scripted(["offer-draw", "e2e4"]).choose(position) == "offer-draw"


@pytest.mark.skipif(not shutil.which(FAIRY_STOCKFISH), reason="Fairy-Stockfish not installed")
def test_uci_engine_opponent_plays_legal_s_chess_moves(pychess: LoopbackServer, pychess_client: Client) -> None:
    engine = EngineOpponent([FAIRY_STOCKFISH], movetime_ms=20)
    game_id, _ = start_game(pychess, pychess_client, color="white", opponent=engine)
    game = pychess.wait_for_plies(game_id, 1, STARTUP_S)  # Fairy-Stockfish starts, then 20 ms
    assert len(game.moves) == 1 and game.move_log[0].by == "opponent"
    assert engine.fallbacks == 0


@pytest.mark.parametrize("variant", ["seirawan", "chess"])
def test_960_start_positions_are_accepted_by_the_board(variant: str) -> None:
    import random

    from engine import Board

    rng = random.Random(3)
    for _ in range(20):
        fen = start_fen(variant, True, rng)
        board = Board(fen, variant=variant, chess960=True)
        assert len(list(board.legal_moves)) >= 18


def test_a_bad_start_position_is_refused_when_the_challenge_is_made(pychess: LoopbackServer) -> None:
    with pytest.raises(ValueError, match="in check"):
        pychess.challenge(initial_fen="qr4k1/8/8/8/8/8/8/7K[] b - - 0 30")
    with pytest.raises(ValueError, match="unknown variant"):
        pychess.challenge(variant="crazyhouse")


def test_the_bundled_engine_can_be_the_opponent(pychess: LoopbackServer, pychess_client: Client) -> None:
    opponent = EngineOpponent(depth=1, movetime_ms=None)
    game_id, _ = start_game(pychess, pychess_client, color="white", opponent=opponent)
    game = pychess.wait_for_plies(game_id, 1, GAME_S)
    assert len(game.moves) == 1 and game.move_log[0].by == "opponent"
    assert opponent.fallbacks == 0, "the move came from the engine, not the random fallback"

"""The bot's PGNs: evaluation, depth and clocks per move in the comment forms PGN tools read, stand-in and
book moves marked, ratings and titles. python-chess (lichess-bot's PGN reader) is the independent reader."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import chess
import chess.pgn

from bot.config import settings_from_dict
from bot.engines import EngineCrashed, EngineReply
from bot.engines.result import Score
from bot.records.pgn import clock_command, eval_command
from bot.wire.dialect import LICHESS
from tests.bot.fakes import LichessServer, ScriptedEngine, lichess_full, lichess_state, run


def test_eval_and_clock_commands_have_lichess_syntax() -> None:
    assert eval_command(42, None, 7) == "[%eval 0.42,7]"
    assert eval_command(-120, None, None) == "[%eval -1.20]"
    assert eval_command(None, -3, 12) == "[%eval #-3,12]"
    assert eval_command(None, None, 5) is None
    assert clock_command(58_900) == "[%clk 0:00:58]" and clock_command(3_725_000) == "[%clk 1:02:05]"


def play_lichess_game(tmp_path: Path, engine: ScriptedEngine, replies: list[tuple[str, int, int]]) -> str:
    """The bot (White, 3+2) against scripted replies (their move, our clock after our move, theirs after
    theirs), one state per ply as Lichess sends them; the opponent resigns when the replies run out."""
    server = LichessServer()
    steps = iter(replies)
    moves: list[str] = []
    clocks = {"wtime": 180_000, "btime": 180_000}

    def reply(uci: str) -> None:
        moves.append(uci)
        step = next(steps, None)
        if step is None:
            server.push(json.dumps(lichess_state(" ".join(moves), status="resign", winner="white", **clocks)))
            return
        theirs, ours_ms, theirs_ms = step
        clocks["wtime"] = ours_ms
        server.push(json.dumps(lichess_state(" ".join(moves), **clocks)))
        moves.append(theirs)
        clocks["btime"] = theirs_ms
        server.push(json.dumps(lichess_state(" ".join(moves), **clocks)))

    server.on_move = reply
    server.push(lichess_full())
    settings = settings_from_dict({"greeting": {"hello": "", "goodbye": ""}, "pgn_directory": str(tmp_path)})
    record, _worker = run(server, engine, settings)
    assert record.pgn_path is not None
    return record.pgn_path.read_text()


def test_a_lichess_pgn_carries_evals_depths_clocks_ratings_and_titles_python_chess_reads(tmp_path: Path) -> None:
    engine = ScriptedEngine(EngineReply("e2e4", score=Score(cp=42), depth=7),
                            EngineReply("g1f3", score=Score(mate=3), depth=9))
    text = play_lichess_game(tmp_path, engine, [("e7e5", 178_000, 175_500), ("b8c6", 176_000, 170_200)])
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors
    assert game.headers["WhiteElo"] == "2000" and game.headers["BlackElo"] == "1500"
    assert game.headers["WhiteTitle"] == "BOT" and "BlackTitle" not in game.headers
    nodes = list(game.mainline())
    assert [node.san() for node in nodes][:4] == ["e4", "e5", "Nf3", "Nc6"]
    assert nodes[0].eval() == chess.engine.PovScore(chess.engine.Cp(42), chess.WHITE)
    assert nodes[0].eval_depth() == 7
    assert nodes[2].eval() == chess.engine.PovScore(chess.engine.Mate(3), chess.WHITE)
    assert nodes[1].eval() is None, "no evaluation for the opponent's moves"
    assert [node.clock() for node in nodes][:4] == [178.0, 175.0, 176.0, 170.0]


def test_black_s_evaluation_is_written_from_white_s_point_of_view() -> None:
    from bot.game.context import GameContext, MoveNote
    from bot.game.record import move_comments
    from bot.wire.normalise import normalise_game_line

    [full] = normalise_game_line(lichess_full("e2e4"), LICHESS)
    game = GameContext("g1", LichessServer(), settings_from_dict({}), Any)  # type: ignore[arg-type]
    game.full = full  # type: ignore[assignment]
    game.move_notes[1] = MoveNote("engine", EngineReply("e7e5", score=Score(cp=30), depth=4))
    assert move_comments(game, 2, True)[1] == "[%eval -0.30,4]"


def test_stand_in_and_book_moves_are_marked_in_the_pgn(tmp_path: Path) -> None:
    crash = EngineCrashed("engine process exited (code -9)")
    engine = ScriptedEngine(EngineReply("e2e4", book=True), crash, crash,
                            EngineReply("d2d4", score=Score(cp=10), depth=3))
    text = play_lichess_game(tmp_path, engine, [("e7e5", 178_000, 175_500), ("b8c6", 176_000, 170_200)])
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors
    nodes = list(game.mainline())
    assert nodes[0].comment.startswith("book")
    assert nodes[2].comment.startswith("stand-in move: engine crashed: engine process exited (code -9)")
    assert nodes[2].clock() == 176.0
    assert nodes[4].san() == "d4" and nodes[4].eval_depth() == 3, "the engine's next move ends the stand-in run"

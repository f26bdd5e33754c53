"""The UCI engine process: handshake, search, and the failures that must never cost a game."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot import metrics
from bot.engines import (
    EngineCrashed,
    EngineReply,
    EngineTimeout,
    Score,
    UciEngine,
    parse_info,
    parse_option,
    position_command,
    process,
)
from bot.engines.limits import GoLimits
from engine import Board
from tests.timing import PATIENCE_S, STARTUP_S

FAKE = str(Path(__file__).with_name("fake_uci.py"))
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] w KQBCDFGkqbcdfg - 0 1"
QUICK = GoLimits(movetime_ms=50, deadline_ms=1500, stop_grace_ms=300)


def fake(mode: str, move: str = "e2e4") -> UciEngine:
    return UciEngine([sys.executable, FAKE, mode, move], {"Hash": 16}, label="test", startup_timeout_s=STARTUP_S)


def test_parse_info_reads_depth_score_nodes_and_pv_and_skips_bounds():
    result = EngineReply(bestmove=None)
    parse_info("info depth 9 seldepth 12 multipv 1 score cp -35 nodes 5000 nps 1 pv g1f3h d7d5", result)
    assert (result.depth, result.score, result.nodes, result.pv) == (9, Score(cp=-35), 5000, ["g1f3h", "d7d5"])
    parse_info("info depth 10 score cp 500 lowerbound nodes 6000", result)
    assert result.score == Score(cp=-35) and result.depth == 10
    parse_info("info depth 11 score mate -3", result)
    assert result.describe_score() == "#-3" and result.centipawns() == -100_000 + 3


def test_parse_option_reads_combo_values():
    option = parse_option("option name UCI_Variant type combo default chess var chess var seirawan")
    assert option is not None and option.name == "UCI_Variant" and option.vars == ["chess", "seirawan"]


def test_a_sane_engine_answers_with_its_move_and_score():
    engine = fake("move", "g1f3h")
    try:
        engine.set_variant("seirawan", False)
        engine.new_game()
        result = engine.search(START, [], QUICK)
        assert result.bestmove == "g1f3h" and result.score == Score(cp=42) and result.depth == 7
        assert engine.id_name == "FakeUCI move"
    finally:
        engine.close()
    assert not engine.alive


def test_a_crash_is_reported_and_the_engine_restarts_on_the_next_search(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_UCI_MARK", str(tmp_path / "crashed"))
    engine = fake("crash_once")
    counted = metrics.total(metrics.ENGINE_RESTARTS)
    try:
        engine.new_game()
        with pytest.raises(EngineCrashed):
            engine.search(START, [], QUICK)
        assert engine.search(START, [], QUICK).bestmove == "e2e4"
        assert engine.restarts == 1
        assert metrics.total(metrics.ENGINE_RESTARTS) == counted + 1, "/metrics counts the restart"
    finally:
        engine.close()


def test_a_hung_engine_is_stopped_then_killed_within_deadline_plus_grace():
    engine = fake("hang")
    try:
        engine.new_game()
        started = time.monotonic()
        with pytest.raises(EngineTimeout):
            engine.search(START, [], GoLimits(movetime_ms=50, deadline_ms=300, stop_grace_ms=200))
        assert time.monotonic() - started < PATIENCE_S
        assert not engine.alive
    finally:
        engine.close()


def test_an_engine_that_needs_stop_still_gives_its_move():
    engine = fake("stoppable", "d2d4")
    try:
        engine.new_game()
        result = engine.search(START, [], GoLimits(movetime_ms=50, deadline_ms=200, stop_grace_ms=1000))
        assert result.bestmove == "d2d4" and result.score == Score(mate=2)
    finally:
        engine.close()


def test_bestmove_none_means_no_move():
    engine = fake("none")
    try:
        engine.new_game()
        assert engine.search(START, [], QUICK).bestmove is None
    finally:
        engine.close()


def test_a_missing_engine_binary_is_an_engine_error():
    engine = UciEngine(["/nonexistent/engine"], label="test")
    with pytest.raises(Exception, match="cannot start ./nonexistent/engine.: No such file"):
        engine.start()


FAIRY = shutil.which("fairy-stockfish") or ("/usr/games/fairy-stockfish"
                                            if Path("/usr/games/fairy-stockfish").exists() else None)


@pytest.mark.skipif(FAIRY is None, reason="Fairy-Stockfish is not installed")
def test_fairy_stockfish_reads_gating_moves_and_answers_with_one():
    """A gating move in the move list reaches Fairy-Stockfish as S-chess, and a reply restricted to gating
    moves comes back legal and gating: the UCI client speaks S-chess notation both ways."""
    assert FAIRY is not None
    engine = UciEngine([FAIRY], {"Hash": 16}, label="fsf")
    board = Board(START)
    board.push_uci("g1f3h")
    gating = sorted(move.uci() for move in board.legal_moves if move.gate)
    try:
        engine.set_variant("seirawan", False)
        engine.new_game()
        engine.process.send(position_command(START, ["g1f3h"]))
        engine.process.send("go depth 4 searchmoves " + " ".join(gating))
        reply = engine.process.read_until(lambda line: line.startswith("bestmove"), 10.0, "bestmove")
        bestmove = reply[-1].split()[1]
        assert bestmove in gating
        assert board.parse_uci(bestmove) in board.legal_moves
    finally:
        engine.close()


PYPY = shutil.which("pypy3")


@pytest.mark.skipif(PYPY is None, reason="pypy3 is not installed (.ci/run installs it from Debian)")
def test_builtin_engine_runs_under_pypy_from_the_interpreter_setting(monkeypatch, tmp_path):
    """engine.interpreter: pypy3 must work although pypy3 does not see this installation's site-packages.
    The engine starts in a folder without the source tree, so only the PYTHONPATH the bot sets can find it
    (the second half shows that without it, pypy3 finds no engine there)."""
    assert PYPY is not None
    monkeypatch.delenv("PYTHONPATH", raising=False)
    bare = subprocess.run([PYPY, "-c", "import engine"], cwd=tmp_path, capture_output=True, text=True,
                          env=process.engine_environment([PYPY, "-c"]), check=False)
    assert bare.returncode != 0 and "No module named 'engine'" in bare.stderr
    engine = UciEngine([PYPY, "-m", "engine"], {"Hash": 16}, label="pypy", startup_timeout_s=STARTUP_S,
                       cwd=str(tmp_path))
    try:
        engine.set_variant("seirawan", False)
        engine.new_game()
        result = engine.search(START, ["g1f3h"], GoLimits(depth=2, deadline_ms=20000))
        assert result.bestmove is not None
        board = Board(START)
        board.push_uci("g1f3h")
        assert board.parse_uci(result.bestmove) in board.legal_moves
    finally:
        engine.close()


def test_a_score_is_centipawns_or_a_mate_and_prints_one_way():
    assert [str(score) for score in (Score(cp=42), Score(cp=-120), Score(mate=3), Score(mate=-2))] == [
        "+0.42", "-1.20", "#3", "#-2"]
    # one scale: a nearer mate is better, any mate beats any centipawn score
    assert Score(mate=1).centipawns() > Score(mate=5).centipawns() > Score(cp=5000).centipawns()
    assert Score(mate=-1).centipawns() < Score(mate=-5).centipawns() < Score(cp=-5000).centipawns()
    assert Score(mate=2).centipawns(mate_cp=30000) == 29998
    with pytest.raises(ValueError):
        Score(cp=1, mate=1)
    with pytest.raises(ValueError):
        Score()


def test_the_bundled_engine_is_the_installed_one_whatever_the_working_folder(monkeypatch, tmp_path):
    """A bot started inside a folder holding another ``engine`` package (a checkout's pure-Python source
    beside an installed compiled build) still runs the engine it imported itself."""
    decoy = tmp_path / "engine"
    decoy.mkdir()
    (decoy / "__init__.py").write_text("")
    (decoy / "__main__.py").write_text("print('id name decoy engine'); print('uciok')\n")
    monkeypatch.chdir(tmp_path)
    import engine.uci

    uci = UciEngine([sys.executable, "-m", "engine"], label="bundled")
    try:
        uci.start()
        assert uci.id_name == engine.uci.ENGINE_NAME  # the name says the build: pure Python or compiled
    finally:
        uci.close()

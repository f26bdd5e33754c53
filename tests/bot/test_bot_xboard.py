"""The XBoard (CECP) client: handshake, position, clocks, moves in the engines' notation, and the failures that
must never cost a game; against a scripted fake and, when installed, against Sjaak II and Fairy-Max."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bot.app.run import default_engine_factory
from bot.config import ConfigError, settings_from_dict
from bot.engines import EngineCrashed, EngineError, EngineReply, EngineStartError, EngineTimeout, Score, XBoardEngine
from bot.engines.limits import GoLimits
from bot.engines.xboard import (
    clock_text,
    engine_move,
    parse_features,
    parse_thinking,
    parse_xboard_option,
    refuses,
    translate_pv,
    xboard_variant,
)
from bot.game import PonderingEngine
from engine import Board
from tests.timing import PATIENCE_S, STARTUP_S

FAKE = str(Path(__file__).with_name("fake_xboard.py"))
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] w KQBCDFGkqbcdfg - 0 1"
QUICK = GoLimits(movetime_ms=1000, deadline_ms=3000, stop_grace_ms=500)
CASTLE_GATE_MATE = "8/8/8/8/6p1/6k1/8/4K2R[E] w K - 0 1"  # the only mate: O-O with the Elephant on h1 (h1e1e)


def fake(mode: str, move: str = "g1f3h", **kwargs: object) -> XBoardEngine:
    engine = XBoardEngine([sys.executable, FAKE, mode, move], {"Hash": 16, "Style": "Risky"}, label="test",
                          startup_timeout_s=STARTUP_S, **kwargs)  # type: ignore[arg-type]
    engine.set_variant("seirawan", False)
    return engine


@contextmanager
def started(mode: str, move: str = "g1f3h", **kwargs: object) -> Iterator[XBoardEngine]:
    """A fake engine after ``new_game``, closed afterwards."""
    engine = fake(mode, move, **kwargs)
    try:
        engine.new_game()
        yield engine
    finally:
        engine.close()


def sent(log: Path) -> list[str]:
    return log.read_text().splitlines()


def test_parsers():
    assert parse_features('feature ping=1 myname="Sjaak II 1.4.1" done=0') == [
        ("ping", "1"), ("myname", "Sjaak II 1.4.1"), ("done", "0")]
    option = parse_xboard_option("Resign Threshold -spin 800 200 1200")
    assert option is not None and (option.name, option.type) == ("Resign Threshold", "spin")
    result = EngineReply(bestmove=None)
    assert parse_thinking("  5    27     57     18963  1. Nc3  d5 2.  d4", result) == ["1.", "Nc3", "d5", "2.", "d4"]
    assert (result.depth, result.score, result.nodes) == (5, Score(cp=27), 18963)
    parse_thinking(" 3 -100004 5 99 e1g1", result)
    assert result.score == Score(mate=-4)
    assert parse_thinking("move e2e4", result) is None and parse_thinking("1-0 {White mates}", result) is None
    assert clock_text(65_400) == "1:05" and clock_text(300) == "0:01"
    assert [xboard_variant("seirawan", False), xboard_variant("chess", False), xboard_variant("chess", True)] == [
        "seirawan", "normal", "fischerandom"]
    with pytest.raises(EngineStartError, match="no variant for seirawan960"):
        xboard_variant("seirawan", True)
    assert refuses("Error (Illegal move or unknown command): e1h1h", ["e1h1h"])  # Sjaak II
    assert refuses("Illegal move:e1h1h", ["d2d4", "e1h1h"])  # Fairy-Max
    assert not refuses("Error (Illegal move or unknown command): level", ["e2e4"])
    assert not refuses("Error (unknown command): O-O", ["O-O"])


def test_the_engines_notation_is_read_with_the_board():
    """What Sjaak II and Fairy-Max print (checked against them, see docs/bot.md) -> Fairy-Stockfish's UCI."""
    board = Board(CASTLE_GATE_MATE, variant="seirawan")
    for text, uci in (("h1e1e", "h1e1e"), ("O-O/Eh1", "h1e1e"), ("e1g1e", "e1g1e"), ("O-O/Ee1", "e1g1e"),
                      ("O-O", "e1g1"), ("e1h1", "e1g1"), ("Ke1-f1/E", "e1f1e"), ("e1f1e", "e1f1e")):
        move = engine_move(board, text)
        assert move is not None and move.uci() == uci, text
    assert engine_move(board, "e2e5") is None and engine_move(board, "Qd8E") is None
    start = Board(START, variant="seirawan")
    assert translate_pv(start, ["1.", "Nc3", "d5", "2.", "d4", "Nf6/H", "3.", "zz"]) == [
        "b1c3", "d7d5", "d2d4", "g8f6h"]


def test_handshake_waits_past_done_0_answers_features_and_sends_the_options(tmp_path, monkeypatch):
    log = tmp_path / "xb.log"
    monkeypatch.setenv("FAKE_XB_LOG", str(log))
    monkeypatch.setenv("FAKE_XB_PAUSE", "2.0")  # longer than the feature timeout: done=0 must extend it
    with started("move", feature_timeout_s=1.5) as engine:  # shorter than the pause: the behaviour under test
        assert engine.id_name == "FakeXB move"
        assert engine.feature("usermove") == "1" and "seirawan" in engine.variants
    lines = sent(log)
    assert lines[:2] == ["xboard", "protover 2"]
    assert {"accepted done", "accepted usermove", "accepted setboard", "accepted ping", "accepted option",
            "rejected san", "rejected frobnicate"} <= set(lines)
    assert "easy" in lines and "post" in lines  # no pondering; thinking output for the score
    assert "memory 16" in lines and "option Style=Risky" in lines
    assert lines[-1] == "quit"


def test_a_search_sets_the_position_sends_clocks_in_centiseconds_and_reads_a_gating_move(tmp_path, monkeypatch):
    log = tmp_path / "xb.log"
    monkeypatch.setenv("FAKE_XB_LOG", str(log))
    limits = GoLimits(wtime_ms=61_230, btime_ms=45_670, winc_ms=2000, binc_ms=2000, depth=9,
                          deadline_ms=3000, stop_grace_ms=500)
    with started("move", "b8c6e") as engine:
        result = engine.search(START, ["g1f3h"], limits)
        assert (result.bestmove, result.score, result.depth, result.nodes) == ("b8c6e", Score(cp=42), 7, 1234)
        assert result.pv == ["b8c6e"] and not result.late
        first = sent(log)
        go = first.index("go")
        # black to move: "time" is black's clock, "otim" white's, both in centiseconds
        assert first[go - 4:go + 1] == ["sd 9", "level 0 0:45 2", "time 4567", "otim 6123", "go"]
        setup = first[first.index("new"):go]
        assert setup[:4] == ["new", "variant seirawan", "force", f"setboard {START}"]
        assert "usermove g1f3h" in setup
        # the game grew by the engine's move and a reply: only the reply is sent
        engine.search(START, ["g1f3h", "b8c6e", "d2d4"], limits)
        second = sent(log)[len(first):]
        assert "new" not in second and [line for line in second if line.startswith("usermove")] == [
            "usermove d2d4"]
        # another position: set up again
        engine.search(START, ["e2e4"], limits)
        third = sent(log)[len(first) + len(second):]
        assert "new" in third and "usermove e2e4" in third


def test_move_now_at_the_deadline(tmp_path, monkeypatch):
    log = tmp_path / "xb.log"
    monkeypatch.setenv("FAKE_XB_LOG", str(log))
    with started("movenow", "d2d4") as engine:
        begun = time.monotonic()
        result = engine.search(START, [], GoLimits(wtime_ms=10_000, btime_ms=10_000, deadline_ms=400,
                                                       stop_grace_ms=2000))
        assert result.bestmove == "d2d4" and result.late and result.score == Score(mate=2)
        assert 0.35 < time.monotonic() - begun < PATIENCE_S
        assert "?" in sent(log)


def test_a_move_time_st_cannot_express_ends_with_move_now_and_is_not_late():
    with started("movenow", "d2d4") as engine:
        result = engine.search(START, [], GoLimits(movetime_ms=200, deadline_ms=3000, stop_grace_ms=500))
        assert result.bestmove == "d2d4" and not result.late  # not late: before the 3 s deadline


def test_a_hung_engine_is_killed_after_the_grace():
    with started("hang") as engine:
        begun = time.monotonic()
        with pytest.raises(EngineTimeout, match="engine killed"):
            engine.search(START, [], GoLimits(movetime_ms=1000, deadline_ms=300, stop_grace_ms=200))
        assert time.monotonic() - begun < PATIENCE_S and not engine.alive


def test_a_crash_is_reported_and_the_engine_restarts_on_the_next_search(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_XB_MARK", str(tmp_path / "crashed"))
    with started("crash_once") as engine:
        with pytest.raises(EngineCrashed):
            engine.search(START, [], QUICK)
        assert engine.search(START, [], QUICK).bestmove == "g1f3h"
        assert engine.restarts == 1


def test_an_illegal_engine_move_is_returned_as_said_for_the_worker_to_reject():
    with started("move", "e2e5") as engine:
        assert engine.search(START, [], QUICK).bestmove == "e2e5"


def test_san_castling_with_a_gate_is_translated():
    with started("move", "O-O/Eh1") as engine:
        assert engine.search(CASTLE_GATE_MATE, [], QUICK).bestmove == "h1e1e"


def test_a_refused_move_and_a_resignation():
    with started("refuse") as engine:
        with pytest.raises(EngineError, match="refused a move: Illegal move: e2e4"):
            engine.search(START, ["e2e4"], QUICK)
    with started("resign") as engine:
        assert engine.search(START, [], QUICK).bestmove is None


def test_a_variant_the_engine_does_not_list_is_refused():
    with started("move") as engine:
        engine.set_variant("seirawan", True)
        with pytest.raises(EngineStartError, match="no variant for seirawan960"):
            engine.new_game()
        with pytest.raises(EngineStartError, match="seirawan960"):
            engine.search(START, [], QUICK)


def test_a_protocol_1_engine_without_setboard_plays_from_the_start_only():
    engine = fake("silent", "e2e4", feature_timeout_s=0.3)  # waited out: a protocol 1 engine sends no features
    try:
        with pytest.raises(EngineStartError, match="does not play variant 'seirawan'"):
            engine.new_game()
        assert engine.id_name == sys.executable and engine.alive
        with pytest.raises(EngineStartError, match="does not play variant 'seirawan'"):
            engine.search(START, [], QUICK)
        engine.set_variant("chess", False)
        engine.new_game()
        chess = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        assert engine.search(chess, ["d2d4"], QUICK).bestmove == "e2e4"
        with pytest.raises(EngineError, match="no setboard"):
            engine.search("4k3/8/8/8/8/8/8/4K3 w - - 0 1", [], QUICK)
    finally:
        engine.close()


def test_the_xboard_client_does_not_ponder():
    assert not isinstance(XBoardEngine(["x"]), PonderingEngine)


def test_engine_protocol_config_picks_the_client(caplog):
    settings = settings_from_dict({"engine": {"command": "/usr/games/sjaakii", "protocol": "xboard",
                                              "ponder": True}})
    assert settings.engine.protocol == "xboard"
    assert isinstance(default_engine_factory(settings)("g1"), XBoardEngine)
    assert "engine.ponder is ignored with engine.protocol: xboard" in caplog.text
    assert settings_from_dict({}).engine.protocol == "uci"
    with pytest.raises(ConfigError, match="engine.protocol must be one of uci, xboard, homemade, got 'cecp'"):
        settings_from_dict({"engine": {"command": "x", "protocol": "cecp"}})
    with pytest.raises(ConfigError, match="engine.protocol must be uci for the builtin engine"):
        settings_from_dict({"engine": {"protocol": "xboard"}})


SJAAK = shutil.which("sjaakii") or shutil.which("/usr/games/sjaakii")
FAIRYMAX = shutil.which("fairymax") or shutil.which("/usr/games/fairymax")


def real(command: str) -> XBoardEngine:
    engine = XBoardEngine([command], {"Hash": 16}, label="real", startup_timeout_s=STARTUP_S)
    engine.set_variant("seirawan", False)
    engine.new_game()
    return engine


@pytest.mark.skipif(SJAAK is None, reason="Sjaak II is not installed (apt-get install sjaakii)")
def test_sjaak_castles_with_gates_in_fairy_stockfish_notation():
    assert SJAAK is not None
    engine = real(SJAAK)
    try:
        assert engine.id_name.startswith("Sjaak II")
        assert engine.search(CASTLE_GATE_MATE, [], GoLimits(depth=3, deadline_ms=5000)).bestmove == "h1e1e"
        mate_on_e1 = "8/8/8/8/2pp4/3k4/8/1N2K2R[E] w K - 0 1"  # O-O/Ee1 mates (so do Kd1/E, Kf1/E, Kf2/E)
        result = engine.search(mate_on_e1, [], GoLimits(depth=3, deadline_ms=5000))
        assert result.bestmove in ("e1g1e", "e1d1e", "e1f1e", "e1f2e")
        # our castling with a gate on the rook's square, sent as h1e1h, is read as such: Sjaak answers legally
        line = ["e2e4", "e7e5", "g1f3", "g8f6", "f1c4", "f8c5", "h1e1h"]
        result = engine.search(START, line, GoLimits(depth=2, deadline_ms=5000))
        board = Board(START, variant="seirawan")
        for uci in line:
            board.push_uci(uci)
        assert board.parse_uci(result.bestmove) in board.legal_moves
        assert board.fen().startswith("rnbqk2r/pppp1ppp/5n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RKH[")
    finally:
        engine.close()


@pytest.mark.skipif(FAIRYMAX is None, reason="Fairy-Max is not installed")
def test_fairy_max_plays_seirawan_from_the_start_position():
    assert FAIRYMAX is not None
    engine = real(FAIRYMAX)
    try:
        assert engine.id_name.startswith("Fairy-Max") and engine.feature("setboard") == "0"
        board = Board(START, variant="seirawan")
        line: list[str] = []
        for _ in range(6):
            result = engine.search(START, line, GoLimits(depth=3, deadline_ms=5000))
            assert result.bestmove is not None
            move = board.parse_uci(result.bestmove)
            assert move in board.legal_moves
            board.push(move)
            line.append(result.bestmove)
    finally:
        engine.close()

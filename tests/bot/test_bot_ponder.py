"""UciEngine pondering with real engine processes: the builtin engine, Fairy-Stockfish, and a fake that
ignores ``stop``."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.config import EngineSettings
from bot.engines import EngineError, UciEngine
from bot.engines.limits import GoLimits
from tests.timing import PATIENCE_S

FAKE = str(Path(__file__).with_name("fake_uci.py"))
FAIRY = shutil.which("fairy-stockfish") or shutil.which("/usr/games/fairy-stockfish")
CHESS_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
CLOCK = GoLimits(wtime_ms=30_000, btime_ms=30_000, winc_ms=0, binc_ms=0, depth=3, deadline_ms=5_000)


def engine_commands() -> list[list[str]]:
    commands = [EngineSettings().command_line()]
    if FAIRY is not None:
        commands.append([FAIRY])
    return commands


@pytest.fixture(params=engine_commands(), ids=lambda command: Path(command[-1]).name)
def engine(request: pytest.FixtureRequest) -> Iterator[UciEngine]:
    uci = UciEngine(request.param, {"Hash": 16}, label="test", ponder=True)
    uci.set_variant("chess", False)
    uci.new_game()
    yield uci
    uci.close()


def test_ponderhit_answers_with_a_legal_move_and_reports_the_time_pondered(engine: UciEngine) -> None:
    from engine import Board

    engine.ponder(CHESS_START, ["e2e4", "e7e5"], CLOCK)
    assert engine.pondering
    time.sleep(0.3)  # the time pondered, which the result must report: the behaviour under test, not a guess
    result = engine.ponderhit(CLOCK)
    board = Board(CHESS_START, variant="chess")
    for move in ("e2e4", "e7e5"):
        board.push_uci(move)
    assert result.bestmove is not None and board.parse_uci(result.bestmove) in board.legal_moves
    assert result.pondered_s is not None and result.pondered_s >= 0.3
    assert result.elapsed_s < result.pondered_s + PATIENCE_S
    assert not engine.pondering


def test_a_stopped_ponder_search_does_not_leak_into_the_next_search(engine: UciEngine) -> None:
    from engine import Board

    engine.ponder(CHESS_START, ["e2e4", "e7e5"], CLOCK)  # white to move in the pondered position
    # the ponder search is under way: it has reported on its search (its bestmove is what must not leak)
    engine.process.read_until(lambda line: line.startswith("info "), PATIENCE_S, "the ponder search's info")
    engine.stop_ponder()
    result = engine.search(CHESS_START, ["e2e4"], CLOCK)  # black to move here
    board = Board(CHESS_START, variant="chess")
    board.push_uci("e2e4")
    assert result.bestmove is not None and board.parse_uci(result.bestmove) in board.legal_moves
    assert result.pondered_s is None


def test_ponderhit_without_a_ponder_search_is_an_error() -> None:
    uci = UciEngine([sys.executable, FAKE, "move"], label="test", ponder=True)
    try:
        with pytest.raises(EngineError, match="without a ponder search"):
            uci.ponderhit(CLOCK)
    finally:
        uci.close()


def test_an_engine_that_ignores_stop_while_pondering_is_killed_and_restarted() -> None:
    uci = UciEngine([sys.executable, FAKE, "hang"], label="test", ponder=True)
    try:
        uci.ponder(CHESS_START, ["e2e4"], CLOCK)
        started = time.monotonic()
        uci.stop_ponder(grace_s=0.3)
        assert time.monotonic() - started < PATIENCE_S
        assert not uci.alive and not uci.pondering
        uci.new_game()  # restarts the process
        assert uci.alive and uci.restarts == 1
    finally:
        uci.close()


def test_the_ponder_option_is_set_only_when_pondering_is_on(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    for ponder in (True, False):
        log = tmp_path / f"uci-{ponder}.log"
        monkeypatch.setenv("FAKE_UCI_LOG", str(log))
        uci = UciEngine([sys.executable, FAKE, "move"], label="test", ponder=ponder)
        uci.new_game()
        uci.close()
        assert ("setoption name Ponder value true" in log.read_text()) is ponder

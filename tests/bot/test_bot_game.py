"""One game worker against a fake server and a scripted engine: moves, checks, fallbacks, endings, PGN."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from bot import metrics
from bot.config import DrawSettings, ResignSettings, Settings, TimeSettings, settings_from_dict
from bot.engines import EngineCrashed, EngineReply, EngineTimeout, Score
from bot.game import GameNote, GameRecord, GameWorker
from bot.wire.dialect import PYCHESS
from bot.wire.events import GameEnd, GameFull, GameState
from bot.wire.gamepage import GamePage
from bot.wire.normalise import normalise_game_line
from bot.wire.server import StreamConnected
from tests.bot.conftest import PYCHESS_GAME_END, PYCHESS_GAME_FULL
from tests.bot.fakes import ME, FakeServer, ScriptedEngine
from tests.timing import PATIENCE_S, wait_until


def state_line(moves: str, status: str = "started", **extra: Any) -> str:
    data = {"type": "gameState", "moves": moves, "wtime": 300000, "btime": 300000, "winc": 3, "binc": 3,
            "wdraw": False, "bdraw": False, "wtakeback": False, "btakeback": False, "status": status}
    data.update(extra)
    return json.dumps(data)


def run_worker(server: FakeServer, engine: ScriptedEngine, tmp_path, settings: Settings | None = None,
               timeout: float = 10.0, **options: Any) -> GameRecord:
    settings = settings or Settings(pgn_directory=str(tmp_path / "games"))
    records: list[GameRecord] = []
    worker = GameWorker("RpxjQkJ5", server, settings, ME, engine, on_done=records.append,  # type: ignore[arg-type]
                        **options)
    worker.start()
    worker.thread.join(timeout)
    assert not worker.thread.is_alive(), "the game worker did not finish"
    assert records and worker.record == records[0]
    return records[0]


def test_plays_the_engine_move_logs_it_and_writes_the_pgn_on_game_end(tmp_path, caplog):
    server = FakeServer()
    replies = iter([
        lambda: server.push(state_line("g1h3e"), state_line("g1h3e b8c6e")),
        lambda: server.push(PYCHESS_GAME_END),
    ])
    server.on_move = lambda uci: next(replies)()
    server.push(PYCHESS_GAME_FULL, '{"type":"ping"}')
    engine = ScriptedEngine("g1h3e", "b1a3h")
    with caplog.at_level(logging.INFO):
        record = run_worker(server, engine, tmp_path)
    assert server.moves() == ["g1h3e", "b1a3h"]
    assert "game RpxjQkJ5: played Nh3/E (eval +0.42 for us, depth 7, 1.2 s)" in caplog.text
    assert server.calls[1] == ("chat", "Hi, I'm SeirawanBot. Good luck!")  # after the first move
    assert ("chat", "Good game!") in server.calls
    assert engine.variant == ("seirawan", False) and engine.closed
    assert engine.searches[1][1] == ["g1h3e", "b8c6e"]
    assert record.result == "*" and record.pgn_path is not None
    pgn = record.pgn_path.read_text()
    assert "1. Nh3/E {[%eval 0.42,7] [%clk 0:05:00]} Nc6/E {[%clk 0:05:00]} *" in pgn
    assert '[White "SeirawanBot"]' in pgn


def test_an_illegal_engine_move_is_retried_once_then_replaced_by_a_legal_stand_in(tmp_path, caplog):
    server = FakeServer()
    replies = iter([lambda uci: server.push(state_line("g1h3e b8c6e")),
                    lambda uci: server.push(state_line(f"g1h3e b8c6e {uci}"), PYCHESS_GAME_END)])
    server.on_move = lambda uci: next(replies)(uci)
    server.push(PYCHESS_GAME_FULL)
    engine = ScriptedEngine("g1h3e", "e2e5")
    stand_ins, moves = metrics.total(metrics.STAND_IN_MOVES), metrics.total(metrics.MOVES_PLAYED)
    with caplog.at_level(logging.WARNING):
        record = run_worker(server, engine, tmp_path)
    assert len(engine.searches) == 3
    assert (metrics.total(metrics.STAND_IN_MOVES) - stand_ins, metrics.total(metrics.MOVES_PLAYED) - moves) == (1, 2)
    [_, sent] = server.moves()
    assert sent != "e2e5"
    assert "illegal" in caplog.text and "fallback " + sent in caplog.text
    assert record.pgn_path is not None and "stand-in" in record.pgn_path.read_text()


def test_an_engine_that_fails_on_the_first_move_gets_the_game_aborted_not_a_stand_in(tmp_path, caplog):
    server = FakeServer()
    lost: list[str] = []
    server.push(PYCHESS_GAME_FULL)
    with caplog.at_level(logging.ERROR):
        run_worker(server, ScriptedEngine(EngineCrashed("exit code -9")), tmp_path, on_engine_lost=lost.append)
    assert server.moves() == [] and ("abort",) in server.calls and ("resign",) not in server.calls
    assert lost and "engine crashed" in lost[0]
    assert "aborting the game" in caplog.text


def test_a_second_stand_in_in_a_row_is_a_resignation_instead(tmp_path, caplog):
    server = FakeServer()
    lost: list[str] = []
    replies = iter([lambda uci: server.push(state_line("g1h3e b8c6e")),
                    lambda uci: server.push(state_line(f"g1h3e b8c6e {uci}"), state_line(f"g1h3e b8c6e {uci} g8h6h"))])
    server.on_move = lambda uci: next(replies)(uci)
    server.push(PYCHESS_GAME_FULL)
    with caplog.at_level(logging.ERROR):
        record = run_worker(server, ScriptedEngine("g1h3e", EngineCrashed("exit code -9")), tmp_path,
                            on_engine_lost=lost.append)
    assert len(server.moves()) == 2, "one engine move, one stand-in"
    assert ("resign",) in server.calls and ("abort",) not in server.calls and len(lost) == 1
    assert record.result == "0-1"
    assert record.pgn_path is not None and "stand-in" in record.pgn_path.read_text()


def test_timeouts_on_a_short_clock_are_time_trouble_not_a_broken_engine(tmp_path):
    """A deadline under two seconds that runs out: the stand-in saves the clock and the game goes on."""
    server = FakeServer()
    lost: list[str] = []
    short = {"wtime": 1500, "btime": 1500}
    replies = iter([lambda uci: server.push(state_line(f"{uci} b8c6e", **short)),
                    lambda uci: server.push(state_line(f"{server.moves()[0]} b8c6e {uci} g8h6h", **short)),
                    lambda uci: server.push(PYCHESS_GAME_END)])
    server.on_move = lambda uci: next(replies)(uci)
    server.push(PYCHESS_GAME_FULL.replace('"wtime": 300000', '"wtime": 1500'))
    run_worker(server, ScriptedEngine(EngineTimeout("no bestmove")), tmp_path, on_engine_lost=lost.append)
    assert len(server.moves()) == 3 and not lost and ("resign",) not in server.calls


def test_an_illegal_move_then_a_legal_one_plays_the_legal_one(tmp_path):
    server = FakeServer()
    server.on_move = lambda uci: server.push(PYCHESS_GAME_END)
    server.push(PYCHESS_GAME_FULL)
    run_worker(server, ScriptedEngine("e2e5", "d2d4"), tmp_path)
    assert server.moves() == ["d2d4"]


def test_an_engine_crash_costs_one_attempt_not_the_move(tmp_path):
    server = FakeServer()
    server.on_move = lambda uci: server.push(PYCHESS_GAME_END)
    server.push(PYCHESS_GAME_FULL)
    run_worker(server, ScriptedEngine(EngineCrashed("exit code -9"), "e2e4"), tmp_path)
    assert server.moves() == ["e2e4"]


def test_pychess_takeback_shrinks_the_move_list_and_the_bot_moves_again(tmp_path):
    server = FakeServer()
    replies = iter([
        lambda: server.push(state_line("e2e4"), state_line("e2e4 e7e5")),
        lambda: server.push(state_line("e2e4 e7e5 g1f3"), state_line("e2e4"), state_line("")),
        lambda: server.push(state_line("d2d4"), PYCHESS_GAME_END),
    ])
    server.on_move = lambda uci: next(replies)()
    server.push(PYCHESS_GAME_FULL)
    engine = ScriptedEngine("e2e4", "g1f3", "d2d4")
    run_worker(server, engine, tmp_path)
    assert server.moves() == ["e2e4", "g1f3", "d2d4"]
    assert engine.searches[2][1] == []


def test_a_newer_position_arriving_while_thinking_cancels_the_stale_move(tmp_path):
    server = FakeServer()
    server.push(PYCHESS_GAME_FULL)
    engine = ScriptedEngine("e2e4")
    original = engine.search

    def search_and_get_overtaken(fen: str, moves: Sequence[str], limits: Any) -> EngineReply:
        if not moves and len(engine.searches) == 0:
            server.push(PYCHESS_GAME_END)
        return original(fen, moves, limits)

    engine.search = search_and_get_overtaken  # type: ignore[method-assign]
    run_worker(server, engine, tmp_path)
    assert server.moves() == []


def test_pychess_never_gets_a_draw_offer_and_lichess_does(tmp_path):
    settings = Settings(pgn_directory=None, draw=DrawSettings(offer_after_move=1, max_score_cp=50, moves=1))
    for dialect, expected in (("pychess", ""), ("lichess", "draw")):
        server = FakeServer(dialect)
        server.on_move = lambda uci, server=server: server.stream.items.put(GameEnd("draw", None))
        full = json.loads(PYCHESS_GAME_FULL)
        server.stream.items.put(normalise_game_line(json.dumps(full), PYCHESS)[0])
        run_worker(server, ScriptedEngine("e2e4"), tmp_path, settings)
        assert [call for call in server.calls if call[0] == "move"] == [("move", "e2e4", expected)], dialect


def test_lichess_final_game_state_ends_the_game_with_its_result(tmp_path):
    server = FakeServer("lichess")
    server.on_move = lambda uci: server.push(state_line("f2f3 e7e5 g2g4 d8h4", "mate", winner="black"))
    full = normalise_game_line(PYCHESS_GAME_FULL, PYCHESS)[0]
    assert isinstance(full, GameFull)
    server.stream.items.put(replace(full, state=replace(full.state, moves=("f2f3", "e7e5"))))
    record = run_worker(server, ScriptedEngine("g2g4"), tmp_path)
    assert record.result == "0-1" and record.reason == "mate"
    assert "0-1" in (record.pgn_path.read_text() if record.pgn_path else "")


def test_lichess_draw_offer_by_the_opponent_is_answered_once(tmp_path):
    server = FakeServer("lichess")
    offered = state_line("e2e4 e7e5", bdraw=True)
    server.on_move = lambda uci: server.push(offered, offered,
                                             '{"type":"gameState","moves":"e2e4 e7e5","wtime":1,"btime":1,'
                                             '"winc":0,"binc":0,"status":"draw"}')
    full = normalise_game_line(PYCHESS_GAME_FULL, PYCHESS)[0]
    assert isinstance(full, GameFull)
    server.stream.items.put(full)
    run_worker(server, ScriptedEngine("e2e4"), tmp_path, Settings(pgn_directory=None))
    assert [call for call in server.calls if call[0] == "draw"] == [("draw", "no")]


def test_resigns_when_the_score_stays_hopeless(tmp_path):
    server = FakeServer()
    hopeless = EngineReply(bestmove="e2e4", score=Score(cp=-2000), depth=5)
    server.push(PYCHESS_GAME_FULL)
    settings = Settings(pgn_directory=None, resign=ResignSettings(score_cp=-800, moves=1))
    record = run_worker(server, ScriptedEngine(hopeless), tmp_path, settings)
    assert ("resign",) in server.calls and server.moves() == []
    assert record.result == "0-1"


def test_a_resignation_is_remembered_and_a_game_offered_again_is_resigned_again_without_a_move(tmp_path, caplog):
    server = FakeServer()
    server.push(PYCHESS_GAME_FULL)
    settings = Settings(pgn_directory=str(tmp_path), resign=ResignSettings(score_cp=-800, moves=1))
    notes: list[GameNote] = []
    first = run_worker(server, ScriptedEngine(EngineReply(bestmove="e2e4", score=Score(cp=-2000), depth=5)), tmp_path,
                       settings, on_note=notes.append)
    assert first.result == "0-1" and first.pgn_path is not None
    assert [(n.action, n.result, n.termination) for n in notes] == [("resigned", "0-1", "Normal")] * 2
    written = first.pgn_path.read_text()
    # a server restart restores the game as live; a new process (or this one) gets gameStart and gameFull again
    again = FakeServer()
    again.push(PYCHESS_GAME_FULL, state_line("e2e4 e7e5"))
    engine = ScriptedEngine("d2d4")
    with caplog.at_level(logging.INFO):
        record = run_worker(again, engine, tmp_path, settings, remembered=notes[-1], on_note=notes.append)
    assert ("resign",) in again.calls and again.moves() == [] and engine.searches == []
    assert not [call for call in again.calls if call[0] == "chat"]
    assert record.remembered and record.result == "0-1"
    assert first.pgn_path.read_text() == written, "the PGN we wrote stays"
    assert "our record says we resigned this game; resigned again and played nothing" in caplog.text


def test_a_remembered_game_the_server_scored_otherwise_gets_the_servers_result(tmp_path, caplog):
    settings = Settings(pgn_directory=str(tmp_path))
    note = GameNote("RpxjQkJ5", "resigned", "0-1", "Normal", 0.0)
    (tmp_path / "RpxjQkJ5.pgn").write_text('[Result "0-1"]\n\n0-1\n')
    server = FakeServer()
    server.page = GamePage("RpxjQkJ5", 6, "1-0", ("e2e4", "e7e5"))  # flagged on the server: 1-0
    server.push(PYCHESS_GAME_FULL, state_line("e2e4 e7e5"))
    with caplog.at_level(logging.INFO):
        record = run_worker(server, ScriptedEngine("d2d4"), tmp_path, settings, remembered=note)
    assert ("resign",) not in server.calls and server.moves() == [], "nothing is sent into a finished game"
    text = (tmp_path / "RpxjQkJ5.pgn").read_text()
    assert '[Result "1-0"]' in text and '[Termination "Time forfeit"]' in text and "1. e4 e5" in text
    assert record.result == "1-0"
    assert "the server's result 1-0 (flag, Time forfeit) differs from the 0-1 we wrote earlier" in caplog.text


@pytest.mark.parametrize("replay", ["old gameFull first", "old state before the new gameFull"])
def test_a_reconnected_stream_replaying_old_states_is_not_taken_for_a_takeback(tmp_path, caplog, replay):
    """pychess, after a restart: the new game stream replays the game from long ago (seen on the real server:
    a gameFull as old as the restart, then every state since, up to now): a state that is a beginning of the
    moves we know is not a takeback, and no move is searched or played for it."""
    server = FakeServer()
    full = json.loads(PYCHESS_GAME_FULL)
    full["state"]["moves"] = "e2e4 e7e5"

    def game_full(moves: str) -> str:
        line = json.loads(json.dumps(full))
        line["state"]["moves"] = moves
        return json.dumps(line)

    def answer(uci: str) -> None:
        if uci == "d2d4":
            server.push(state_line("e2e4 e7e5 d2d4 d7d5"))
        elif uci == "c2c4":  # the stream breaks; the new one starts from long ago
            server.stream.items.put(StreamConnected())
            if replay == "old gameFull first":
                server.push(game_full("e2e4 e7e5"), state_line("e2e4 e7e5 d2d4"), state_line("e2e4 e7e5 d2d4 d7d5"),
                            state_line("e2e4 e7e5 d2d4 d7d5 c2c4"), state_line("e2e4 e7e5 d2d4 d7d5 c2c4 g8f6"))
            else:
                server.push(state_line("e2e4 e7e5"), game_full("e2e4 e7e5 d2d4 d7d5 c2c4 g8f6"))
        else:
            server.push(PYCHESS_GAME_END)

    server.on_move = answer
    server.push(json.dumps(full))
    engine = ScriptedEngine("d2d4", "c2c4", "b1c3")
    with caplog.at_level(logging.INFO):
        run_worker(server, engine, tmp_path)
    assert server.moves() == ["d2d4", "c2c4", "b1c3"]
    assert [len(moves) for _fen, moves in engine.searches] == [2, 4, 6], "no search for a replayed state"
    assert "takeback" not in caplog.text


def test_a_failed_move_request_is_retried(tmp_path, caplog):
    server = FakeServer()
    server.fail_moves = 1
    server.on_move = lambda uci: server.push(PYCHESS_GAME_END)
    server.push(PYCHESS_GAME_FULL)
    with caplog.at_level(logging.INFO):
        run_worker(server, ScriptedEngine("e2e4"), tmp_path)
    assert server.moves() == ["e2e4"]
    # the move is tried again, so the failure is a warning that says so, not an ERROR (seen in server restarts)
    assert "game RpxjQkJ5: could not send e4 (move: HTTP 503, gave up); trying it again in 1 s" in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_failed_move_is_sent_again_with_when_it_failed_and_the_moment_its_first_try_set_to_send_it_by(
        tmp_path):
    """The server checks the game stream (and pychess's game page) before it sends a move whose first call
    failed perhaps after landing: the retry says when that call ended, and keeps the moment, set from the
    clock on the first try, after which the move goes out unchecked rather than lose on time."""
    server = FakeServer()
    server.fail_moves = 1
    calls: list[dict[str, Any]] = []
    send = server.make_move

    def make_move(game_id: str, uci: str, **options: Any) -> None:
        calls.append(options)
        send(game_id, uci, **options)

    server.make_move = make_move  # type: ignore[method-assign]
    server.on_move = lambda uci: server.push(PYCHESS_GAME_END)
    server.push(PYCHESS_GAME_FULL)
    run_worker(server, ScriptedEngine("e2e4"), tmp_path)
    first, second = calls
    assert (first["plies"], first["unsure_since"]) == (0, None)
    assert second["plies"] == 0 and second["unsure_since"] is not None
    assert second["send_by"] == first["send_by"] <= second["unsure_since"] + 10


def test_an_error_while_ending_the_game_still_reports_it_to_the_lobby(tmp_path, monkeypatch, caplog):
    # an exception in the ending (a metrics call, seen on the real server) left the lobby without a record: the
    # slot stayed taken and a SIGTERM waited for the game for ever
    from bot.game import ending

    def broken(*_args: Any, **_kwargs: Any) -> str:
        raise RuntimeError("broken metrics")
    monkeypatch.setattr(ending.metrics, "our_result", broken)
    server = FakeServer()
    server.on_move = lambda uci: server.push(PYCHESS_GAME_END)
    server.push(PYCHESS_GAME_FULL)
    engine = ScriptedEngine("e2e4")
    with caplog.at_level(logging.INFO):
        record = run_worker(server, engine, tmp_path)
    assert record.game_id == "RpxjQkJ5"
    assert "game RpxjQkJ5: unexpected error while ending the game; the game is left as it is" in caplog.text
    assert "RuntimeError: broken metrics" in caplog.text


def test_abort_when_the_opponent_never_moves(tmp_path):
    server = FakeServer()
    full = json.loads(PYCHESS_GAME_FULL)
    full["white"], full["black"] = full["black"], full["white"]  # we are black; white never moves
    server.push(json.dumps(full))
    settings = Settings(pgn_directory=None, time=TimeSettings(abort_unstarted_after_s=1))
    record = run_worker(server, ScriptedEngine("e7e5"), tmp_path, settings)
    assert ("abort",) in server.calls and record.reason.startswith("aborted")
    assert ("chat", "Good game!") not in server.calls


def test_a_game_that_is_not_ours_is_left_alone(tmp_path):
    server = FakeServer()
    full = json.loads(PYCHESS_GAME_FULL)
    full["white"] = {"name": "Somebody"}
    server.push(json.dumps(full))
    record = run_worker(server, ScriptedEngine("e2e4"), tmp_path)
    assert server.calls == [] and record.reason == "not our game"


def test_an_illegal_move_from_the_server_aborts_cleanly(tmp_path):
    server = FakeServer()
    server.push(PYCHESS_GAME_FULL, state_line("e2e5"))
    record = run_worker(server, ScriptedEngine("e2e4"), tmp_path)
    assert ("abort",) in server.calls and "illegal move" in record.reason


BAD_FEN_GAME_FULL = PYCHESS_GAME_FULL.replace('"initialFen": ""', '"initialFen": "not a fen"')


@pytest.mark.parametrize(("lines", "replies", "call", "action", "result"), [
    ([PYCHESS_GAME_FULL, state_line("e2e5")], [], "abort", "aborted", "*"),
    ([BAD_FEN_GAME_FULL], [], "abort", "aborted", "*"),
    # too late to abort: our e2e4 and Black's e7e5 are on the board when the server sends an illegal ply
    ([PYCHESS_GAME_FULL], [state_line("e2e4 e7e5"), state_line("e2e4 e7e5 g1f3 e8e6")], "resign", "resigned", "0-1"),
], ids=["illegal-server-move-abort", "bad-initial-fen-abort", "illegal-server-move-resign"])
def test_a_game_left_over_a_bad_server_position_is_remembered_at_once(tmp_path, lines, replies, call, action, result):
    """Issue 29: when the server's position cannot be set up or replayed, the abort (resignation) reaches the
    state file as soon as it is sent, as every other abort or resignation does, so a server restart that
    brings the game back finds it in our record (the verdict was dropped after the parts stopped calling back)."""
    server = FakeServer()
    pending = iter(replies)
    server.on_move = lambda uci: server.push(next(pending))
    server.push(*lines)
    notes: list[GameNote] = []
    record = run_worker(server, ScriptedEngine("e2e4", "g1f3"), tmp_path, Settings(pgn_directory=None),
                        on_note=notes.append)
    assert (call,) in server.calls and server.moves() == ["e2e4", "g1f3"][:len(replies)]
    assert notes and (notes[0].action, notes[0].result) == (action, result), notes
    assert record.result == result


def test_state_before_full_is_ignored():
    state = GameState(moves=(), wtime_ms=1, btime_ms=1, winc_ms=0, binc_ms=0)
    worker = GameWorker("x", FakeServer(), Settings(), ME, ScriptedEngine("e2e4"))  # type: ignore[arg-type]
    worker._on_state(state)
    assert worker.game.state is None


class PonderingScriptedEngine(ScriptedEngine):
    """A :class:`ScriptedEngine` that ponders; its ponder search finishes with ``ponderhit_answer``."""

    def __init__(self, *answers: Any, ponderhit_answer: str) -> None:
        super().__init__(*answers)
        self.ponderhit_answer = ponderhit_answer
        self.pondered: list[list[str]] = []
        self._pondering = False

    @property
    def pondering(self) -> bool:
        return self._pondering

    def ponder(self, fen: str, moves: Sequence[str], limits: Any) -> None:
        self.pondered.append(list(moves))
        self._pondering = True

    def ponderhit(self, limits: Any) -> EngineReply:
        self._pondering = False
        return EngineReply(bestmove=self.ponderhit_answer, score=Score(cp=10), depth=5, elapsed_s=0.5)

    def stop_ponder(self) -> None:
        self._pondering = False


def test_an_illegal_move_from_a_ponder_hit_is_never_sent_the_engine_searches_again(tmp_path, caplog):
    server = FakeServer()
    replies = iter([lambda: server.push(state_line("g1h3e b8c6e")),  # the predicted reply: a ponder hit
                    lambda: server.push(PYCHESS_GAME_END)])
    server.on_move = lambda uci: next(replies)()
    server.push(PYCHESS_GAME_FULL)
    engine = PonderingScriptedEngine(EngineReply(bestmove="g1h3e", ponder="b8c6e", score=Score(cp=20), depth=6),
                                     "b1a3h", ponderhit_answer="e2e5")
    settings = Settings(pgn_directory=str(tmp_path / "games"),
                        engine=replace(Settings().engine, ponder=True))
    with caplog.at_level(logging.WARNING):
        run_worker(server, engine, tmp_path, settings)
    assert engine.pondered == [["g1h3e", "b8c6e"]], "pondered on the predicted reply"
    assert server.moves() == ["g1h3e", "b1a3h"], "the illegal e2e5 was never sent"
    assert engine.searches[-1][1] == ["g1h3e", "b8c6e"], "searched the position again"
    assert "the ponder search gave 'e2e5'; searching again" in caplog.text


def test_an_illegal_book_move_is_never_sent_the_engine_plays_instead(tmp_path, monkeypatch):
    import bot.game.moves

    asked: list[str] = []

    def broken_book(settings: Any, variant_name: str, board: Any, rng: Any = None) -> str:
        asked.append(board.fen())
        return "e2e5"  # a corrupt book entry: not a legal move here

    monkeypatch.setattr(bot.game.moves, "book_move", broken_book)
    server = FakeServer()
    server.on_move = lambda uci: server.push(state_line(uci), PYCHESS_GAME_END)
    server.push(PYCHESS_GAME_FULL)
    engine = ScriptedEngine("g1h3e")
    run_worker(server, engine, tmp_path)
    assert asked, "the book was asked first"
    assert server.moves() == ["g1h3e"] and len(engine.searches) == 1


def test_a_replayed_old_state_waiting_after_a_search_is_no_change_but_a_takeback_is():
    """``moved_on``: what waits in the inbox when the search ends. After a reconnect on pychess, states that
    are a beginning of the moves we know are the replay, which the inbox leaves out (no change); a state that
    is not ends the replay; without a reconnect (or on Lichess, which does not replay) a shorter move list is
    a takeback."""
    from bot.game.inbox import Inbox, ReplayFilter
    from bot.game.worker import moved_on

    known = ["e2e4", "e7e5", "g1f3"]

    def at(*moves: str) -> GameState:
        return GameState(moves=moves, wtime_ms=1, btime_ms=1, winc_ms=0, binc_ms=0)

    def waiting(items: list, *, replays: bool = True, replaying: bool = False) -> list:
        inbox: Inbox[object] = Inbox(replays=ReplayFilter(lambda: replays, lambda: known, "game g"))
        if replaying:  # the reconnection was read before the search
            inbox.post(StreamConnected())
            assert isinstance(inbox.next(None), StreamConnected)
        for item in items:
            inbox.post(item)
        return inbox.waiting()

    now = at(*known)
    replay = [StreamConnected(), at("e2e4"), at("e2e4", "e7e5"), now]
    assert waiting(replay) == [StreamConnected(), now], "the inbox shows no replayed state"
    assert not moved_on(waiting(replay), now)
    assert not moved_on(waiting(replay[1:], replaying=True), now), "a replay under way"
    assert moved_on(waiting(replay, replays=False), now), "Lichess: a takeback"
    assert moved_on(waiting(replay[1:]), now), "no reconnect: a takeback"
    assert moved_on(waiting([StreamConnected(), at("e2e4"), at("e2e4", "d7d5")]), now), \
        "not a beginning of our moves: the replay is over, and this is news"
    assert moved_on(waiting([GameEnd()]), now)


def test_lichess_our_move_accepted_just_before_the_stream_failed_is_in_the_pgn(tmp_path, caplog):
    """Lichess answers a move into a finished game with 400, so a 200 means the move is in the game: when
    the stream then fails for good and the game export cannot be read, the PGN still has our move."""
    from bot.wire.server import ServerError, StreamFailed
    from tests.bot.fakes import LichessServer, lichess_full, run

    server = LichessServer()

    def export(game_id: str) -> Any:
        raise ServerError("game export: HTTP 502, gave up after 2 attempts", 502)

    server.fetch_game_export = export  # type: ignore[attr-defined]
    server.on_move = lambda uci: server.stream.items.put(StreamFailed("HTTP 404", 404))
    server.push(lichess_full())
    with caplog.at_level(logging.INFO):
        record, _ = run(server, ScriptedEngine("e2e4"), Settings(pgn_directory=str(tmp_path)))
    assert record.pgn_path is not None and "1. e4" in record.pgn_path.read_text()
    assert "our last move e2e4 was accepted but not echoed; it is in the PGN" in caplog.text


def test_pychess_our_unechoed_move_is_not_counted_when_the_server_cannot_say(tmp_path):
    """pychess answers a move into a finished game with 200 and ignores it: when the stream fails right after
    our move and the game page cannot be read, the move is not claimed for the record."""
    from bot.wire.server import StreamFailed

    server = FakeServer()
    server.page = None
    server.on_move = lambda uci: server.stream.items.put(StreamFailed("HTTP 404", 404))
    server.push(PYCHESS_GAME_FULL)
    record = run_worker(server, ScriptedEngine("g1h3e"), tmp_path)
    assert server.moves() == ["g1h3e"] and record.pgn_path is None, "no ply, no result: nothing to write"


def test_a_game_over_for_us_since_an_earlier_run_is_left_at_once_when_the_bot_stops(tmp_path, caplog):
    """Issue 51: a worker for a game our record says ended watched the live game, playing nothing, and held a
    finish-stop up for 9 minutes. On a stop request it leaves at once (the next run looks the game up)."""
    settings = Settings(pgn_directory=str(tmp_path))
    server = FakeServer()
    server.push(PYCHESS_GAME_FULL, state_line("e2e4 e7e5"))
    note = GameNote("RpxjQkJ5", "ended", "1-0", "Normal", 0.0)
    records: list[GameRecord] = []
    worker = GameWorker("RpxjQkJ5", server, settings, ME, ScriptedEngine("d2d4"),  # type: ignore[arg-type]
                        on_done=records.append, remembered=note)
    worker.start()
    wait_until(lambda: worker.game.position is not None and worker.game.position.ply == 2,
               "the worker to read the game's lines")
    assert worker.thread.is_alive(), "the game is live on the server: watched, nothing played"
    started = time.monotonic()
    worker.request_stop("finish")
    worker.thread.join(PATIENCE_S)
    # far less than shutdown.finish_idle_s (60 s), which a finish-stop would otherwise wait
    assert not worker.thread.is_alive() and time.monotonic() - started < PATIENCE_S
    assert records[0].remembered and records[0].reason.startswith("left: the bot is stopping")
    assert server.moves() == [] and ("resign",) not in server.calls


def test_a_game_we_resigned_before_is_resigned_again_at_once_when_the_bot_stops(tmp_path):
    """The same, for a game our record says we resigned, whose gameFull has not come yet: the resignation is
    sent again now, not after the stream's timeout, and the worker leaves."""
    server = FakeServer()
    note = GameNote("RpxjQkJ5", "resigned", "0-1", "Normal", 0.0)
    records: list[GameRecord] = []
    worker = GameWorker("RpxjQkJ5", server, Settings(pgn_directory=str(tmp_path)), ME,  # type: ignore[arg-type]
                        ScriptedEngine("d2d4"), on_done=records.append, remembered=note)
    worker.start()
    worker.request_stop("finish")
    worker.thread.join(PATIENCE_S)
    assert not worker.thread.is_alive()
    assert ("resign",) in server.calls and records[0].remembered


class SlowEngine(ScriptedEngine):
    """Thinks ``think_s`` for every move."""

    def __init__(self, think_s: float, *answers: Any) -> None:
        super().__init__(*answers)
        self.think_s = think_s

    def search(self, fen: str, moves: Sequence[str], limits: Any) -> EngineReply:
        time.sleep(self.think_s)
        return super().search(fen, moves, limits)


def test_a_search_longer_than_finish_idle_s_is_no_stall_while_the_bot_finishes_its_games(tmp_path):
    """shutdown.finish_idle_s counts from our last move too: a game whose news stopped while we thought (our
    turn) is not left the moment our move goes out; the opponent's reply keeps it going to its end."""
    import threading

    server = FakeServer()
    replies = iter([
        lambda: threading.Timer(0.5, server.push, (state_line("g1h3e b8c6e"),)).start(),
        lambda: server.push(PYCHESS_GAME_END),
    ])
    server.on_move = lambda uci: next(replies)()
    server.push(PYCHESS_GAME_FULL)
    settings = settings_from_dict({"pgn_directory": str(tmp_path), "shutdown": {"finish_idle_s": 1}})
    records: list[GameRecord] = []
    worker = GameWorker("RpxjQkJ5", server, settings, ME, SlowEngine(1.5, "g1h3e", "b1a3h"),  # type: ignore[arg-type]
                        on_done=records.append)
    worker.request_stop("finish")  # before the game's first line: the stop is the oldest item
    worker.start()
    worker.thread.join(5 + PATIENCE_S)  # two 1.5 s searches and the reply's 0.5 s come first
    assert not worker.thread.is_alive()
    assert server.moves() == ["g1h3e", "b1a3h"]
    assert not [call for call in server.calls if call[0] in ("abort", "resign")]

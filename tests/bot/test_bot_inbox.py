"""The game worker's inbox and its deadlines, on an injected clock: items and deadlines in time order, one
wait per deadline (no polling tick), a passed deadline looked at again only after news; and a whole worker
whose only wait is until its next deadline."""

from __future__ import annotations

import json
import threading

import pytest

from bot.config import Settings, TimeSettings
from bot.game import GameRecord, GameWorker
from bot.game.inbox import Deadlines, Inbox, ReplayFilter, StopRequested
from bot.wire.events import GameState
from bot.wire.streams import StreamConnected
from tests.bot.conftest import PYCHESS_GAME_FULL
from tests.bot.fakes import ME, FakeServer, ScriptedEngine
from tests.timing import PATIENCE_S


class FakeClock:
    """A monotonic clock that moves only when the inbox waits: each wait lasts its whole timeout (nothing
    arrives meanwhile), or ``step`` at most (a wait that ends early)."""

    def __init__(self, step: float | None = None) -> None:
        self.now = 0.0
        self.step = step
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    def wait(self, condition: threading.Condition, timeout: float | None) -> None:
        assert timeout is not None, "the inbox would wait forever: no deadline and no item"
        self.waits.append(timeout)
        self.now += timeout if self.step is None else min(timeout, self.step)


def test_an_item_posted_before_the_deadline_comes_first_then_the_deadline_after_one_wait():
    clock = FakeClock()
    inbox: Inbox[str] = Inbox(clock, clock.wait)
    clock.now = 1.0
    inbox.post("state")
    assert inbox.next(deadline=3.0) == "state"
    assert inbox.next(deadline=3.0) is None
    assert clock.now == 3.0 and clock.waits == [2.0], "one wait, exactly until the deadline"


def test_a_deadline_passes_before_an_item_posted_after_it():
    clock = FakeClock()
    inbox: Inbox[str] = Inbox(clock, clock.wait)
    inbox.post("before")
    clock.now = 5.0  # the reader was busy (a search) while the deadline at 3 passed and a line came at 5
    inbox.post("after")
    assert inbox.waiting() == ["before", "after"]
    assert [inbox.next(3.0), inbox.next(3.0), inbox.next(None)] == ["before", None, "after"]
    assert clock.waits == [], "nothing to wait for: everything was due"


def test_a_wait_that_ends_early_waits_again_for_the_rest():
    clock = FakeClock(step=4.0)
    inbox: Inbox[str] = Inbox(clock, clock.wait)
    assert inbox.next(deadline=10.0) is None
    assert clock.waits == [10.0, 6.0, 2.0] and clock.now == 10.0


def test_an_item_from_another_thread_wakes_a_reader_without_a_deadline():
    inbox: Inbox[str] = Inbox()
    poster = threading.Timer(0.05, inbox.post, args=("gameFinish",))
    poster.start()
    assert inbox.next(deadline=None) == "gameFinish"
    poster.join()


def test_after_a_reconnection_the_inbox_hands_out_no_replayed_state_and_the_first_new_one_ends_the_replay():
    """The replay rule's one home (issue 61): after ``StreamConnected`` on a dialect that replays, a state that is
    a strict beginning of the moves we know is left out; the first state that is not ends the replay, and a
    shorter state after it is a takeback again."""
    def at(*moves: str) -> GameState:
        return GameState(moves=moves, wtime_ms=1, btime_ms=1, winc_ms=0, binc_ms=0)

    known = ["e2e4", "e7e5", "g1f3"]
    clock = FakeClock()
    inbox: Inbox[object] = Inbox(clock, clock.wait, ReplayFilter(lambda: True, lambda: known, "game g"))
    old, new, takeback = at("e2e4"), at(*known, "b8c6"), at("e2e4")
    for item in (at("e2e4"), StreamConnected(), old, at("e2e4", "e7e5"), new, takeback):
        inbox.post(item)
    assert inbox.waiting() == [at("e2e4"), StreamConnected(), new, takeback]
    assert [inbox.next(None) for _ in range(4)] == [at("e2e4"), StreamConnected(), new, takeback]
    assert inbox.waiting() == []


def test_a_passed_deadline_is_not_waited_for_again_until_news_and_then_after_the_lines_read():
    deadlines = Deadlines()
    assert deadlines.next_at([]) is None
    assert deadlines.next_at([5.0, 9.0]) == 5.0
    deadlines.ran(5.0)
    assert deadlines.next_at([5.0, 9.0]) == 9.0, "the deadline at 5 was looked at: not again"
    deadlines.news(6.0)
    deadlines.news(7.0)  # a second line: the checks still come after what waited at the first
    assert deadlines.next_at([5.0, 9.0]) == 6.0
    deadlines.ran(6.0)
    assert deadlines.next_at([5.0, 9.0]) == 9.0
    assert deadlines.next_at([9.0]) == 9.0, "news with no passed deadline changes nothing"


def black_game_white_never_moves() -> str:
    full = json.loads(PYCHESS_GAME_FULL)
    full["white"], full["black"] = full["black"], full["white"]
    return json.dumps(full)


def run_on_clock(server: FakeServer, clock: FakeClock, settings: Settings,
                 engine: ScriptedEngine | None = None) -> GameRecord:
    records: list[GameRecord] = []
    worker = GameWorker("RpxjQkJ5", server, settings, ME, engine or ScriptedEngine("e7e5"),  # type: ignore[arg-type]
                        on_done=records.append, monotonic=clock, wait=clock.wait)
    worker.start()
    worker.thread.join(PATIENCE_S)
    assert not worker.thread.is_alive() and records
    return records[0]


@pytest.mark.parametrize("abort_after_s", [30, 45])
def test_the_worker_sleeps_until_its_next_deadline_not_on_a_tick(abort_after_s):
    """We are Black and White never moves: the worker's waits end only at its deadlines (the flag grace
    at 10 s, the abort at ``abort_after_s``), and the abort comes exactly then, on the fake clock."""
    server = FakeServer()
    server.push(black_game_white_never_moves())
    aborted_at: list[float] = []
    clock = FakeClock()
    server.abort_game = lambda game_id: aborted_at.append(clock.now)  # type: ignore[method-assign]
    settings = Settings(pgn_directory=None, time=TimeSettings(abort_unstarted_after_s=abort_after_s))
    record = run_on_clock(server, clock, settings)
    assert aborted_at == [float(abort_after_s)] and record.reason.startswith("aborted")
    assert len(clock.waits) <= 3, f"woke up {len(clock.waits)} times: a polling tick"
    assert sum(clock.waits) == abort_after_s


def test_a_stop_request_is_handled_in_its_turn_among_the_lines():
    """The lobby's stop, posted after the game's set-up reached the inbox, is handled after it and at once
    (no deadline waited for): the game, set up and without a move, is aborted; a later request is never read."""
    server = FakeServer()
    server.push(black_game_white_never_moves())
    clock = FakeClock()
    records: list[GameRecord] = []
    worker = GameWorker("RpxjQkJ5", server, Settings(pgn_directory=None), ME, ScriptedEngine("e7e5"),  # type: ignore[arg-type]
                        on_done=records.append, monotonic=clock, wait=clock.wait)
    server.stream.items.put(StopRequested("abort"))  # the stream's items and the stop share one queue
    server.stream.items.put(StopRequested("finish"))
    worker.start()
    worker.thread.join(PATIENCE_S)
    assert records and records[0].reason == "aborted: the bot is shutting down"
    assert worker.game.full is not None and worker.game.we_are_white is False, "the set-up came first"
    assert ("abort",) in server.calls and clock.waits == []


def test_a_silent_opponent_is_looked_up_on_the_game_page_after_10_s_then_at_doubling_intervals():
    """pychess: we moved, the echo came, then nothing but silence (a BOT's resignation never reaches us).
    The page is read 10 s after the last news, then 20 s and 40 s later; the read that finds the game over
    ends it (the slot is free) and the PGN-side outcome is the page's."""
    from bot.wire.gamepage import GamePage
    from tests.bot.test_bot_game import state_line

    server = FakeServer()
    clock = FakeClock()
    server.on_move = lambda uci: server.push(state_line(uci))
    server.push(PYCHESS_GAME_FULL)
    reads: list[float] = []

    def page(game_id: str) -> GamePage:
        reads.append(clock.now)
        if clock.now >= 70:  # the opponent resigned somewhere after 30 s
            return GamePage(game_id, 2, "1-0", ("e2e4",))
        return GamePage(game_id, -1, "*", ("e2e4",))

    server.fetch_game_page = page  # type: ignore[method-assign]
    settings = Settings(pgn_directory=None, time=TimeSettings(abort_unstarted_after_s=600))  # no abort meanwhile
    record = run_on_clock(server, clock, settings, engine=ScriptedEngine("e2e4"))
    assert reads == [10.0, 30.0, 70.0]
    assert record.result == "1-0" and record.reason == "over on the server"

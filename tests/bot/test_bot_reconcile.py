"""The server's word is the record (issue 26): the games we ended lately are looked up on the server at
start-up and after a restart; what the server still has live is resigned (aborted) again, and a PGN whose
result, Termination or plies differ from the server's record says the server's. Pure decisions first, then
the :class:`Reconciler` against a fake server, with the real pages of tests/data/pychess-game-pages.html."""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any

import pytest

from bot.config import PRODUCTION_TIMING, settings_from_dict
from bot.game.record import GameNote, GameRecord
from bot.lobby import reconcile
from bot.lobby.reconcile import (
    Reconciler,
    RestartNotice,
    ServerRecord,
    Step,
    next_step,
    page_record,
    pgn_change,
    unconfirmed_note,
    worth_checking,
)
from bot.records.pgn import game_pgn, read_pgn
from bot.records.results import GameOutcome
from bot.wire.gameexport import GameExport
from bot.wire.gamepage import GamePage, parse_game_page
from bot.wire.server import ServerError
from tests.bot.fakes import FakeServer
from tests.bot.test_bot_results import recorded_pages
from tests.timing import PATIENCE_S

DAY = 24 * 3600.0
NOW = 10 * DAY
RUNNING = ServerRecord(False, GameOutcome("*", "Unterminated", "still running"), ("e4", "e5", "Nf3"), 3)
FLAGGED = ServerRecord(True, GameOutcome("0-1", "Time forfeit", "flag"), ("e4", "e5", "Nf3"), 3)


def note(action: str = "resigned", result: str = "1-0", termination: str = "Normal", age_s: float = 60.0,
         game_id: str = "FjC1JPiO") -> GameNote:
    return GameNote(game_id, action, result, termination, NOW - age_s)


# ---- which games, and what to do ---------------------------------------------------------------------------


@pytest.mark.parametrize(("action", "result", "termination", "keeps", "checked"), [
    ("resigned", "1-0", "Normal", True, True),
    ("aborted", "*", "Abandoned", True, True),
    ("ended", "*", "Unknown", True, True),  # we wrote a result the server never confirmed
    ("ended", "1-0", "Normal", True, False),  # Lichess keeps what it said
    ("ended", "1-0", "Normal", False, True),  # pychess: maybe an opponent BOT's resignation it forgets
])
def test_the_games_looked_up_are_the_ones_we_ended_whose_record_may_change(
        action: str, result: str, termination: str, keeps: bool, checked: bool) -> None:
    assert worth_checking(note(action, result, termination), NOW, keeps) is checked


def test_a_game_we_ended_more_than_a_day_ago_is_not_looked_up() -> None:
    assert not worth_checking(note(age_s=DAY + 1), NOW, keeps_bot_resignations=False)


def test_a_live_game_is_resigned_again_aborted_again_while_it_can_be_or_watched() -> None:
    assert next_step(note("resigned"), RUNNING) is Step.RESIGN
    assert next_step(note("aborted"), dataclasses.replace(RUNNING, plies=1)) is Step.ABORT
    assert next_step(note("aborted"), RUNNING) is Step.RESIGN, "pychess ignores an abort after two plies"
    assert next_step(note("ended"), RUNNING) is Step.WATCH
    assert next_step(note("resigned"), FLAGGED) is Step.SETTLE


def pgn_text(result: str = "1-0", termination: str = "Normal", sans: tuple[str, ...] = ("e4", "e5", "Nf3"))\
        -> str:
    headers = {"Event": "Casual S-chess game", "Site": "x", "White": "Opp", "Black": "us", "Result": "*",
               "Termination": termination}
    return game_pgn(headers, sans, result, comments=["[%clk 0:02:59]", None, None])


def test_a_pgn_that_agrees_with_the_server_is_left_alone() -> None:
    assert pgn_change(read_pgn(pgn_text("0-1", "Time forfeit")), FLAGGED.outcome, FLAGGED.sans) is None


def test_a_pgn_with_another_result_gets_the_servers_result_and_termination() -> None:
    change = pgn_change(read_pgn(pgn_text()), FLAGGED.outcome, FLAGGED.sans)
    assert change is not None
    assert change.changed == "result 1-0 -> 0-1, Termination Normal -> Time forfeit"
    written = read_pgn(change.text)
    assert (written.result, written.termination) == ("0-1", "Time forfeit")
    assert written.comments[0] == "[%clk 0:02:59]", "our clocks and evaluations stay"


def test_a_pgn_missing_the_servers_last_ply_gets_it() -> None:
    change = pgn_change(read_pgn(pgn_text("0-1", "Time forfeit", ("e4", "e5"))), FLAGGED.outcome, FLAGGED.sans)
    assert change is not None and change.changed == "plies 2 -> 3"
    assert read_pgn(change.text).sans == ("e4", "e5", "Nf3")


def test_the_plies_stay_when_the_server_has_none_to_compare() -> None:
    change = pgn_change(read_pgn(pgn_text()), FLAGGED.outcome, None)
    assert change is not None and read_pgn(change.text).sans == ("e4", "e5", "Nf3")


def test_the_real_flag_page_turns_into_the_record_of_every_ply_in_san() -> None:
    record = page_record(parse_game_page(recorded_pages()["FjC1JPiO"]))
    assert record.finished and (record.outcome.result, record.outcome.termination) == ("1-0", "Time forfeit")
    assert record.sans is not None and len(record.sans) == record.plies == 153
    assert record.sans[0][0].isalpha()


def test_a_page_whose_moves_do_not_replay_still_gives_its_result() -> None:
    record = page_record(GamePage("g", 6, "1-0", ("e2e4", "e2e4"), variant="seirawan"))
    assert record.sans is None and record.plies == 2 and record.outcome.result == "1-0"


def test_a_restart_is_a_reconnect_after_the_server_went_away_not_a_dropped_line() -> None:
    notice = RestartNotice()
    notice.lost()
    assert not notice.connected(), "a connection that came back at the first attempt"
    notice.lost()
    notice.lost()  # the next attempt could not connect
    assert notice.connected()
    notice.terminated()
    assert notice.connected(), "pychess said it was shutting down"
    assert not notice.connected()


# ---- the Reconciler against a fake server --------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


class ReconcileServer(FakeServer):
    """The fake server with a game page (or, for Lichess, an export) that a test changes."""

    def __init__(self, dialect: str = "pychess") -> None:
        super().__init__(dialect)
        self.export: GameExport | None = None
        self.fail_resign = 0

    def fetch_game_export(self, game_id: str) -> GameExport:
        self.calls.append(("export",))
        if self.export is None:
            raise ServerError("game export: HTTP 502", 502)
        return self.export

    def resign_game(self, game_id: str) -> None:
        if self.fail_resign:
            self.fail_resign -= 1
            raise ServerError("resign: HTTP 503, gave up", 503)
        super().resign_game(game_id)


def reconciler(server: ReconcileServer, tmp_path: Path, notes: list[GameNote], clock: Clock,
               busy: tuple[str, ...] = ()) -> tuple[Reconciler, list[GameNote]]:
    remembered: list[GameNote] = []
    settings = settings_from_dict({"pgn_directory": str(tmp_path)})
    found = Reconciler(server, settings, notes=lambda: list(notes), busy=lambda game_id: game_id in busy,  # type: ignore[arg-type]
                       remember=remembered.append, monotonic=clock)
    return found, remembered


def real_page(game_id: str, **changes: Any) -> GamePage:
    return dataclasses.replace(parse_game_page(recorded_pages()[game_id]), **changes)


def write_ours(tmp_path: Path, page: GamePage, result: str, termination: str) -> Path:
    """Our PGN of the recorded game: its plies, our result."""
    sans = page_record(page).sans
    assert sans is not None
    path = tmp_path / f"{page.game_id}.pgn"
    path.write_text(game_pgn({"Event": "e", "White": page.white, "Black": page.black, "Result": "*",
                              "Termination": termination}, sans, result))
    return path


def test_a_game_the_server_has_live_again_is_resigned_again_and_then_settled(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """hC36PJW1 as it should have gone: we resigned as Black, the restart brought the game back."""
    caplog.set_level(logging.INFO)
    clock, server = Clock(), ReconcileServer()
    flagged = real_page("FjC1JPiO")
    ours = write_ours(tmp_path, flagged, "1-0", "Normal")
    server.page = dataclasses.replace(flagged, status=-1, result="*")
    found, remembered = reconciler(server, tmp_path, [note("resigned", "1-0")], clock)
    assert found.schedule_all("start-up") == 1
    found.run_due()
    assert server.calls == [("page",), ("resign",)]
    assert "our record says we resigned it, but the server has it live again (153 plies); resigned again" \
        in caplog.text
    assert found.run_due() == pytest.approx(PRODUCTION_TIMING.resent_recheck_s), "looked at again soon"
    server.page = dataclasses.replace(flagged, status=2, result="1-0")  # our resignation, as the server has it
    clock.now += PRODUCTION_TIMING.resent_recheck_s
    assert found.run_due() is None, "done: the server agrees with our PGN"
    assert read_pgn(ours.read_text()).result == "1-0" and not remembered


def test_a_game_that_ended_otherwise_on_the_server_gets_the_servers_result_in_its_pgn(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The restarted server let the clock run out: the page says 1-0 on time, our PGN said 0-1 resigned."""
    clock, server = Clock(), ReconcileServer()
    server.page = real_page("FjC1JPiO")
    ours = write_ours(tmp_path, server.page, "0-1", "Normal")
    found, remembered = reconciler(server, tmp_path, [note("resigned", "0-1")], clock)
    found.schedule_all("start-up")
    assert found.run_due() is None
    assert ("resign",) not in server.calls
    written = read_pgn(ours.read_text())
    assert (written.result, written.termination, len(written.sans)) == ("1-0", "Time forfeit", 153)
    assert [(item.result, item.termination, item.action) for item in remembered] == \
        [("1-0", "Time forfeit", "resigned")]
    lines = [r.getMessage() for r in caplog.records if "PGN rewritten" in r.getMessage()]
    assert lines == ["game FjC1JPiO: PGN rewritten with the server's record, 1-0 (flag): result 0-1 -> 1-0, "
                     "Termination Normal -> Time forfeit; why: " + reconcile.WHY["resigned"]]


def test_an_opponent_bots_forgotten_resignation_is_watched_until_the_server_ends_the_game(tmp_path: Path) -> None:
    """aHDVbPjx: the opponent resigned, we wrote 1-0 Normal; after the restart the game is live until the
    opponent's clock runs out. Nothing is sent; the page is read once a minute; then the PGN says the flag."""
    clock, server = Clock(), ReconcileServer()
    flagged = real_page("FjC1JPiO")
    ours = write_ours(tmp_path, flagged, "1-0", "Normal")
    server.page = dataclasses.replace(flagged, status=-1, result="*")
    found, _ = reconciler(server, tmp_path, [note("ended", "1-0")], clock)
    found.schedule_all("the server is back")
    found.run_due()
    assert found.run_due() == pytest.approx(PRODUCTION_TIMING.live_recheck_s)
    clock.now += PRODUCTION_TIMING.live_recheck_s
    server.page = flagged
    assert found.run_due() is None
    assert server.calls == [("page",), ("page",)], "nothing sent to a game we did not resign"
    assert read_pgn(ours.read_text()).termination == "Time forfeit"


def test_a_game_still_live_a_day_after_we_ended_it_is_no_longer_watched(tmp_path: Path) -> None:
    clock, server = Clock(), ReconcileServer()
    found, _ = reconciler(server, tmp_path, [note("ended", "1-0", age_s=DAY - 30)], clock)
    found.schedule_all("start-up")
    found.run_due()
    clock.now += PRODUCTION_TIMING.live_recheck_s
    assert found.run_due() is None
    assert server.calls == [("page",)]


def test_a_refused_resignation_and_an_unreadable_page_are_tried_again(tmp_path: Path) -> None:
    clock, server = Clock(), ReconcileServer()
    server.page, server.fail_resign = None, 1
    found, _ = reconciler(server, tmp_path, [note()], clock)
    found.schedule_all("start-up")
    assert found.run_due() == pytest.approx(PRODUCTION_TIMING.failed_recheck_s)
    server.page = GamePage("FjC1JPiO", -1, "*", ("e2e4", "e7e5"), variant="seirawan")
    clock.now += PRODUCTION_TIMING.failed_recheck_s
    assert found.run_due() == pytest.approx(PRODUCTION_TIMING.resent_recheck_s)
    clock.now += PRODUCTION_TIMING.resent_recheck_s
    found.run_due()
    assert server.calls.count(("resign",)) == 1


class NoRecordServer(ReconcileServer):
    """A server that has never heard of the game (restarted without it): HTTP 404 for its page."""

    def fetch_game_page(self, game_id: str) -> GamePage:
        self.calls.append(("page",))
        raise ServerError(f"game page {game_id}: HTTP 404, Not Found", 404)


def test_a_game_the_server_has_no_record_of_is_given_up_after_a_few_tries_said_once_at_info(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 51: a game from before a test server's restart was looked up once a minute for a day, a WARNING
    each time."""
    caplog.set_level(logging.DEBUG, logger="bot.lobby.reconcile")
    clock, server = Clock(), NoRecordServer()
    found, _ = reconciler(server, tmp_path, [note(action="ended", result="1-0")], clock)
    found.schedule_all("start-up")
    waits = []
    for _ in range(reconcile.MISSING_RECORD_TRIES):
        waits.append(found.run_due())
        clock.now += PRODUCTION_TIMING.failed_recheck_s
    assert waits == [PRODUCTION_TIMING.failed_recheck_s] * (reconcile.MISSING_RECORD_TRIES - 1) + [None]
    assert found.run_due() is None and found.due == {}
    assert server.calls == [("page",)] * reconcile.MISSING_RECORD_TRIES
    loud = [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO and "FjC1JPiO" in r.getMessage()]
    assert loud == [f"game FjC1JPiO: the server has no record of this game (HTTP 404, "
                    f"{reconcile.MISSING_RECORD_TRIES} tries); no longer looked up, our PGN stays as it is"]


def test_a_game_a_worker_has_is_left_to_it_and_looked_at_later(tmp_path: Path) -> None:
    clock, server = Clock(), ReconcileServer()
    found, _ = reconciler(server, tmp_path, [note()], clock, busy=("FjC1JPiO",))
    found.schedule_all("start-up")
    assert found.run_due() == pytest.approx(PRODUCTION_TIMING.live_recheck_s)
    assert server.calls == []


def test_lichess_reads_the_game_export(tmp_path: Path) -> None:
    clock, server = Clock(), ReconcileServer("lichess")
    path = tmp_path / "FjC1JPiO.pgn"
    path.write_text(pgn_text("1-0", "Unknown"))
    server.export = GameExport("FjC1JPiO", "outoftime", "black", ("e4", "e5", "Nf3"))
    found, _ = reconciler(server, tmp_path, [note("ended", "1-0", "Unknown")], clock)
    assert found.schedule_all("start-up") == 1
    found.run_due()
    assert server.calls == [("export",)]
    assert (read_pgn(path.read_text()).result, read_pgn(path.read_text()).termination) == ("0-1", "Time forfeit")


def test_the_thread_sleeps_until_games_are_scheduled_and_then_reads_them(tmp_path: Path) -> None:
    import threading

    clock, server = Clock(), ReconcileServer()
    server.page = GamePage("FjC1JPiO", -1, "*", ("e2e4", "e7e5"), variant="seirawan")
    notes: list[GameNote] = []
    resigned = threading.Event()
    server.resign_game = lambda game_id: (server.calls.append(("resign",)), resigned.set())  # type: ignore[method-assign]
    found, _ = reconciler(server, tmp_path, notes, clock)
    found.start()
    try:
        assert found.schedule_all("start-up") == 0
        notes.append(note())
        assert found.schedule_all("the server is back") == 1
        assert resigned.wait(PATIENCE_S), "woken by schedule_all, not by a timer"
    finally:
        found.stop()
    assert server.calls == [("page",), ("resign",)]


def test_a_game_our_pgn_leaves_at_a_star_gets_a_note_so_its_record_is_looked_up() -> None:
    given_up = GameRecord("g1", "*", "gave up", pgn_path=Path("g1.pgn"), termination="Unknown", gave_up=True)
    assert unconfirmed_note(given_up, None, NOW) == GameNote("g1", "ended", "*", "Unknown", NOW)
    assert unconfirmed_note(given_up, note(game_id="g1"), NOW) is None, "a note we have stays"
    assert unconfirmed_note(dataclasses.replace(given_up, result="1-0"), None, NOW) is None
    assert unconfirmed_note(dataclasses.replace(given_up, pgn_path=None), None, NOW) is None, "no PGN to correct"
    assert unconfirmed_note(dataclasses.replace(given_up, parked=True), None, NOW) is None

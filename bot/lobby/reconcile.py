"""The server's word is the record (issue 26): after the bot starts, and after every server restart it notices,
it looks up the games it ended lately and makes its PGNs agree with what the server records.

pychess keeps a BOT's resignation in memory only: after a restart the game is live again, and its restore
announces it (``gameStart``) only to the White bot of a game between two BOTs. As Black we would never hear
of it again while the server lets a clock run out and records another result than ours. So for each game the
state file says we resigned, aborted or saw end in the last day, the bot reads the server's record itself
(pychess: the game page; Lichess: the game export), resigns (aborts) again a game the server has live, and
when the server's final result, Termination or plies differ from our PGN, writes the PGN again with the
server's and logs one line saying what changed and why. A live game it can do nothing about is looked at
again every minute (``Timing.live_recheck_s``) until the server says it is over or a day has passed.

A game that ends here with a ``*`` PGN (the bot gave up waiting, or never learnt the end) gets a note too
(:func:`unconfirmed_note`) and is looked up a minute later, and again until the server says how it ended.
A game whose record the server answers HTTP 404 for is given up after :data:`MISSING_RECORD_TRIES` reads.

The decisions are pure functions (:func:`worth_checking`, :func:`next_step`, :func:`pgn_change`,
:func:`unconfirmed_note`, :class:`RestartNotice`); :class:`Reconciler` is the thin I/O around them, in a
thread of its own so that a slow server never holds up the event loop.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path

from bot.config import PRODUCTION_TIMING, Settings, Timing
from bot.game.position import GameBoard
from bot.game.record import GameNote, GameRecord
from bot.lobby.challenges import DAY_S
from bot.records.pgn import PgnReadError, SavedPgn, read_pgn, safe_file_id, write_pgn
from bot.records.results import UNKNOWN, UNTERMINATED, GameOutcome
from bot.wire.gamepage import GamePage
from bot.wire.normalise import parse_variant
from bot.wire.server import Server, ServerError

log = logging.getLogger(__name__)

#: how long after we ended a game its record is still looked up (pychess may restore it as live)
RECONCILE_WINDOW_S = DAY_S
#: a game the server answers 404 for (a server restarted without it, a test server): given up after this many
#: reads in a row, with one INFO line; our PGN stays as it is
MISSING_RECORD_TRIES = 3


@dataclass(frozen=True)
class ServerRecord:
    """A game as the server records it: over or not, how it ended (``*`` while running), its plies in SAN
    (None when they could not be read) and how many there are."""

    finished: bool
    outcome: GameOutcome
    sans: tuple[str, ...] | None
    plies: int


class Step(Enum):
    """What to do about one game after reading the server's record."""

    RESIGN = "resign again"
    ABORT = "abort again"
    WATCH = "watch"  # live on the server, nothing for us to send: look again later
    SETTLE = "settle"  # over on the server: make the PGN say what the server says


def worth_checking(note: GameNote, now: float, keeps_bot_resignations: bool) -> bool:
    """Whether a game's record is looked up at start-up or after a restart: one we ended in the last day by
    resigning or aborting, or whose end we wrote without the server's word (``*``, ``Unknown``). Where the
    server forgets a BOT's resignation (pychess), every game that ended in the last day: the opponent BOT's
    resignation that our PGN says may have become a loss on time."""
    if now - note.at > RECONCILE_WINDOW_S:
        return False
    if note.action in ("resigned", "aborted") or not keeps_bot_resignations:
        return True
    return note.result == "*" or note.termination in (UNKNOWN, UNTERMINATED, "")


def next_step(note: GameNote, record: ServerRecord) -> Step:
    """Over on the server: settle. Live: resign again what we resigned; abort again what we aborted while the
    game can still be aborted (before both sides moved), else resign it; a game that ended for us otherwise
    is watched."""
    if record.finished:
        return Step.SETTLE
    if note.action == "aborted":
        return Step.ABORT if record.plies < 2 else Step.RESIGN
    if note.action == "resigned":
        return Step.RESIGN
    return Step.WATCH


@dataclass(frozen=True)
class PgnChange:
    """The PGN text with the server's record, and what changed, in words."""

    text: str
    changed: str


def pgn_change(pgn: SavedPgn, server: GameOutcome, server_sans: tuple[str, ...] | None) -> PgnChange | None:
    """The PGN rewritten with the server's result, Termination and plies, when any of them differs from ours;
    None when they agree. ``server_sans`` None: the server's plies are unknown, ours stay."""
    differences = []
    if server.result != pgn.result:
        differences.append(f"result {pgn.result} -> {server.result}")
    if server.termination != pgn.termination:
        differences.append(f"Termination {pgn.termination or '(none)'} -> {server.termination}")
    plies = server_sans if server_sans is not None and server_sans != pgn.sans else None
    if plies is not None:
        differences.append(f"plies {len(pgn.sans)} -> {len(plies)}")
    if not differences:
        return None
    return PgnChange(pgn.with_outcome(server.result, server.termination, plies), ", ".join(differences))


def unconfirmed_note(record: GameRecord, known: GameNote | None, now: float) -> GameNote | None:
    """The note a game gets when its PGN says ``*`` (the worker gave up, or never learnt how it ended) and the
    state file has nothing on it, so that the server's record is looked up later; None otherwise."""
    if known is not None or record.parked or record.remembered or record.pgn_path is None or record.result != "*":
        return None
    return GameNote(record.game_id, "ended", "*", record.termination or UNKNOWN, now)


class RestartNotice:
    """Notices a server restart on the event stream: a reconnect after the server went away (it said
    ``terminated``, or a connection attempt after the loss failed too), not a mere dropped connection that
    came back at the first attempt."""

    def __init__(self) -> None:
        self._losses = 0
        self._terminated = False

    def terminated(self) -> None:
        self._terminated = True

    def lost(self) -> None:
        self._losses += 1

    def connected(self) -> bool:
        """The stream is connected again: True when the server had gone away before."""
        went_away = self._terminated or self._losses >= 2
        self._losses, self._terminated = 0, False
        return went_away


def page_record(page: GamePage) -> ServerRecord:
    """The game page as a :class:`ServerRecord`: its UCI plies turned into SAN from its variant and start."""
    sans: tuple[str, ...] | None
    try:
        fen = page.initial_fen if page.initial_fen not in ("", "None") else None
        board = GameBoard(fen, parse_variant(page.variant, page.chess960))
        board.update(page.moves)
        sans = tuple(board.san_moves())
    except ValueError:  # an unknown variant, a FEN or a move the board refuses: compare the result only
        sans = None
    return ServerRecord(page.finished, page.outcome, sans, len(page.moves))


def read_record(server: Server, game_id: str) -> ServerRecord | None:
    """The server's record of a game (pychess: the game page; Lichess: the game export); None when the
    server has neither. Raises :class:`ServerError`."""
    dialect = server.dialect
    if dialect is not None and dialect.has_game_page:
        return page_record(server.fetch_game_page(game_id))
    if dialect is not None and dialect.has_game_export:
        export = server.fetch_game_export(game_id)
        return ServerRecord(export.finished, export.outcome, export.sans, len(export.sans))
    return None


#: why a PGN can differ from the server's record, by what we did to the game
WHY = {
    "resigned": "the server did not keep our resignation (a restart, or the server dropping the finished game "
                "before storing it, brought the game back) and it ended anew",
    "aborted": "the server did not keep our abort and the game ended anew",
    "ended": "the server's record of the end changed after we wrote ours (a BOT's resignation it did not keep?)",
}


class Reconciler:
    """Looks up the games the state file says we ended lately, in a thread of its own: one read of the server
    every ``timing.check_spacing_s`` at most (its other waits: ``timing``'s ``*_recheck_s``). ``notes()``: the
    current game notes (lobby clock); ``busy(id)``: a game worker has the game (it does its own reconciling);
    ``remember(note)``: the state file learns the result the PGN now says; ``ended_again(note)``: our
    resignation (abort) sent again ended the game now."""

    def __init__(self, server: Server, settings: Settings, *, notes: Callable[[], list[GameNote]],
                 busy: Callable[[str], bool], remember: Callable[[GameNote], None],
                 monotonic: Callable[[], float], ended_again: Callable[[GameNote], None] = lambda note: None,
                 timing: Timing = PRODUCTION_TIMING) -> None:
        self.server = server
        self.settings = settings
        self.timing = timing
        self.notes = notes
        self.busy = busy
        self.remember = remember
        self.ended_again = ended_again
        self.monotonic = monotonic
        self.due: dict[str, float] = {}  # game id -> when to read its record next
        self.missing: dict[str, int] = {}  # game id -> HTTP 404s in a row for its record
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ---- control (any thread) ----

    def schedule_all(self, why: str) -> int:
        """Look up every game worth checking, starting now (at start-up, after a restart). Returns how many."""
        dialect = self.server.dialect
        keeps = dialect.keeps_bot_resignations if dialect is not None else True
        now = self.monotonic()
        chosen = [note for note in self.notes() if worth_checking(note, now, keeps)]
        with self._lock:
            for note in chosen:
                self.due[note.game_id] = now
        if chosen:
            log.info("%s: looking up %d game%s we ended in the last day, for the server's record", why,
                     len(chosen), "" if len(chosen) == 1 else "s")
        self._wake.set()
        return len(chosen)

    def watch(self, game_id: str, after_s: float) -> None:
        """Look up one game's record ``after_s`` from now (a game that ended here without the server's word)."""
        with self._lock:
            self.due[game_id] = self.monotonic() + after_s
        self._wake.set()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="reconcile", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                wait_s = self.run_due()
            except Exception:  # noqa: BLE001 - a bug here must not end the reconciling for good
                log.exception("reconciling games with the server failed")
                wait_s = self.timing.failed_recheck_s
            # nothing due: sleep until schedule_all (or stop) wakes us; else not sooner than the spacing
            self._wake.wait(timeout=None if wait_s is None else max(self.timing.check_spacing_s, wait_s))
            self._wake.clear()

    # ---- one check (the thread; tests call it directly) ----

    def run_due(self) -> float | None:
        """Check the game that is due first, if any. Returns seconds until the next one is due (None: none)."""
        now = self.monotonic()
        with self._lock:
            if not self.due:
                return None
            game_id, at = min(self.due.items(), key=lambda item: item[1])
            if at > now:
                return at - now
        note = next((item for item in self.notes() if item.game_id == game_id), None)
        again = None if note is None else self.check(note, now)
        with self._lock:
            if again is None:
                self.due.pop(game_id, None)
                self.missing.pop(game_id, None)
            else:
                self.due[game_id] = now + again
            return max(0.0, min(self.due.values()) - now) if self.due else None

    def check(self, note: GameNote, now: float) -> float | None:
        """Read one game's record and act on it. Returns when to look again (seconds), None when done."""
        label = f"game {note.game_id}"
        if now - note.at > RECONCILE_WINDOW_S:
            log.info("%s: still not over on the server a day after we %s it; no longer watched", label,
                     note.action)
            return None
        if self.busy(note.game_id):
            # a game worker has it (a gameStart came): after it, what is left to settle
            return self.timing.live_recheck_s
        try:
            record = read_record(self.server, note.game_id)
        except ServerError as error:
            if error.status == 404:
                return self.missing_record(note, error)
            log.warning("%s: cannot read the server's record (%s); trying again in %.0f s", label, error,
                        self.timing.failed_recheck_s)
            return self.timing.failed_recheck_s
        self.missing.pop(note.game_id, None)
        if record is None:
            return None
        step = next_step(note, record)
        if step is Step.SETTLE:
            self.settle(note, record)
            return None
        if step is Step.WATCH:
            log.debug("%s: live on the server; looking again in %.0f s", label, self.timing.live_recheck_s)
            return self.timing.live_recheck_s
        if self.busy(note.game_id):
            # a gameStart came while we read: the worker resigns again, not both of us
            return self.timing.live_recheck_s
        try:
            if step is Step.ABORT:
                self.server.abort_game(note.game_id)
            else:
                self.server.resign_game(note.game_id)
        except ServerError as error:
            log.warning("%s: the server has it live again, but we could not %s (%s); trying again in %.0f s",
                        label, step.value, error, self.timing.resent_recheck_s)
            return self.timing.resent_recheck_s
        log.info("%s: our record says we %s it, but the server has it live again (%d plies); %s without a "
                 "gameStart", label, note.action, record.plies, "aborted it again" if step is Step.ABORT
                 else "resigned again")
        self.ended_again(note)
        return self.timing.resent_recheck_s

    def missing_record(self, note: GameNote, error: ServerError) -> float | None:
        """The server has no record of the game (HTTP 404): looked up again, and given up after
        :data:`MISSING_RECORD_TRIES` answers in a row, said once at INFO. Returns when to look again."""
        tries = self.missing.get(note.game_id, 0) + 1
        if tries < MISSING_RECORD_TRIES:
            self.missing[note.game_id] = tries
            log.debug("game %s: no record on the server (%s); trying again in %.0f s", note.game_id, error,
                      self.timing.failed_recheck_s)
            return self.timing.failed_recheck_s
        self.missing.pop(note.game_id, None)
        log.info("game %s: the server has no record of this game (HTTP 404, %d tries); no longer looked up, our "
                 "PGN stays as it is", note.game_id, tries)
        return None

    def settle(self, note: GameNote, record: ServerRecord) -> None:
        """The game is over on the server: our PGN says what the server records."""
        label = f"game {note.game_id}"
        directory = self.settings.pgn_directory
        path = Path(directory) / f"{safe_file_id(note.game_id)}.pgn" if directory else None
        if path is None or not path.exists():
            if record.outcome.result != note.result:
                log.info("%s: the server records %s (%s), we noted %s; no PGN to correct", label,
                         record.outcome.result, record.outcome.reason, note.result)
            return
        try:
            pgn = read_pgn(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, PgnReadError) as error:
            log.warning("%s: cannot read our PGN %s (%s); left as it is", label, path, error)
            return
        change = pgn_change(pgn, record.outcome, record.sans)
        if change is None:
            log.debug("%s: our PGN agrees with the server (%s)", label, pgn.result)
            return
        try:
            write_pgn(path.parent, note.game_id, change.text)
        except OSError as error:
            log.error("%s: cannot rewrite the PGN %s (%s)", label, path, error)
            return
        outcome = record.outcome
        log.warning("%s: PGN rewritten with the server's record, %s (%s): %s; why: %s", label, outcome.result,
                    outcome.reason, change.changed, WHY.get(note.action, WHY["ended"]))
        self.remember(replace(note, result=outcome.result, termination=outcome.termination))

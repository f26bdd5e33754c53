"""What the bot remembers across restarts: challenges accepted from bots (for the per-hour and per-day caps),
matchmaking's challenges sent and the declines it avoids, and what it did to its games (a resignation, an
abort, the result it wrote: :class:`~bot.game.record.GameNote`), because pychess.org does not store a BOT's
resignation and restores such a game as live after a restart.

It lives in a small JSON file next to the PGNs (``<pgn_directory>/.schess-bot-state.json``), written whenever
it changes: to a temporary file in the same folder, then renamed over the old one, so a crash leaves either
the old or the new file, never half of one. An unreadable file is logged and ignored (the bot starts fresh);
it never stops the bot.

Times are wall-clock seconds (``time.time()``) in the file and the lobby's monotonic clock in memory;
:class:`ClockReading` converts between the two.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.config import MatchmakingTimeControl
from bot.game.record import GameNote
from bot.lobby.challenges import DAY_S, AcceptedBotChallenge
from bot.lobby.matchmaking import DeclineNote

log = logging.getLogger(__name__)

STATE_FILE_NAME = ".schess-bot-state.json"
FORMAT_VERSION = 1
#: how long a game's note is kept: far longer than any restart, short enough to keep the file small
GAME_NOTE_KEEP_S = 14 * DAY_S
#: and at most this many notes (the newest)
MAX_GAME_NOTES = 500


@dataclass(frozen=True)
class BotMemory:
    """Everything the state file holds; times on one clock (wall clock in the file, monotonic in memory)."""

    accepted_from_bots: tuple[AcceptedBotChallenge, ...] = ()
    matchmaking_sent: tuple[float, ...] = ()
    matchmaking_declines: tuple[DeclineNote, ...] = ()
    games: tuple[GameNote, ...] = ()


@dataclass(frozen=True)
class ClockReading:
    """The same instant on the monotonic clock and the wall clock, to move times from one to the other."""

    monotonic: float
    wall: float

    def to_wall(self, memory: BotMemory) -> BotMemory:
        return _shift(memory, self.wall - self.monotonic)

    def to_monotonic(self, memory: BotMemory) -> BotMemory:
        return _shift(memory, self.monotonic - self.wall)


def _shift(memory: BotMemory, offset: float) -> BotMemory:
    return BotMemory(
        accepted_from_bots=tuple(AcceptedBotChallenge(item.at + offset, item.name)
                                 for item in memory.accepted_from_bots),
        matchmaking_sent=tuple(at + offset for at in memory.matchmaking_sent),
        matchmaking_declines=tuple(DeclineNote(note.opponent, note.reason, note.at + offset, note.variant,
                                               note.time_control) for note in memory.matchmaking_declines),
        games=tuple(note.shifted(offset) for note in memory.games),
    )


def forget_old(memory: BotMemory, now: float, decline_cooldown_s: float) -> BotMemory:
    """Drop what no limit looks at any more: challenges older than a day, declines past their cooldown, game
    notes older than :data:`GAME_NOTE_KEEP_S` (and beyond the newest :data:`MAX_GAME_NOTES`)."""
    games = sorted((note for note in memory.games if now - note.at < GAME_NOTE_KEEP_S), key=lambda note: note.at)
    return BotMemory(
        accepted_from_bots=tuple(item for item in memory.accepted_from_bots if now - item.at < DAY_S),
        matchmaking_sent=tuple(at for at in memory.matchmaking_sent if now - at < DAY_S),
        matchmaking_declines=tuple(note for note in memory.matchmaking_declines
                                   if now - note.at < decline_cooldown_s),
        games=tuple(games[-MAX_GAME_NOTES:]),
    )


def state_path(pgn_directory: str | None) -> Path | None:
    """Where the state file lives: next to the PGNs; None when PGNs are not written (nothing is kept)."""
    return Path(pgn_directory) / STATE_FILE_NAME if pgn_directory else None


# ---- JSON <-> BotMemory (pure) ---------------------------------------------------------------------------


def memory_to_json(memory: BotMemory) -> dict[str, Any]:
    return {
        "version": FORMAT_VERSION,
        "accepted_from_bots": [{"at": item.at, "name": item.name} for item in memory.accepted_from_bots],
        "matchmaking": {
            "sent": list(memory.matchmaking_sent),
            "declines": [{"opponent": note.opponent, "reason": note.reason, "at": note.at, "variant": note.variant,
                          "time_control": {"base_s": note.time_control.base_s,
                                           "increment_s": note.time_control.increment_s,
                                           "days": note.time_control.days}}
                         for note in memory.matchmaking_declines],
        },
        "games": [note.to_json() for note in memory.games],
    }


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ValueError(f"{what} is not a number: {value!r:.40}")
    return float(value)


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{what} is not a string: {value!r:.40}")
    return value


def _optional_int(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} is not an integer: {value!r:.40}")
    return value


def memory_from_json(data: Any) -> BotMemory:
    """The inverse of :func:`memory_to_json`. Raises ``ValueError`` saying what is wrong."""
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    if data.get("version") != FORMAT_VERSION:
        raise ValueError(f"unknown version {data.get('version')!r:.20}")
    accepted = tuple(AcceptedBotChallenge(_number(item.get("at"), "accepted_from_bots.at"),
                                          _text(item.get("name"), "accepted_from_bots.name"))
                     for item in _objects(data.get("accepted_from_bots", []), "accepted_from_bots"))
    matchmaking = data.get("matchmaking", {})
    if not isinstance(matchmaking, dict):
        raise ValueError("matchmaking is not an object")
    sent = tuple(_number(at, "matchmaking.sent") for at in _list(matchmaking.get("sent", []), "matchmaking.sent"))
    declines = []
    for note in _objects(matchmaking.get("declines", []), "matchmaking.declines"):
        control = note.get("time_control")
        if not isinstance(control, dict):
            raise ValueError("matchmaking.declines.time_control is not an object")
        declines.append(DeclineNote(
            opponent=_text(note.get("opponent"), "matchmaking.declines.opponent"),
            reason=_text(note.get("reason"), "matchmaking.declines.reason"),
            at=_number(note.get("at"), "matchmaking.declines.at"),
            variant=_text(note.get("variant"), "matchmaking.declines.variant"),
            time_control=MatchmakingTimeControl(
                base_s=_optional_int(control.get("base_s"), "time_control.base_s"),
                increment_s=_optional_int(control.get("increment_s"), "time_control.increment_s") or 0,
                days=_optional_int(control.get("days"), "time_control.days")),
        ))
    games = tuple(GameNote.from_json(note) for note in _objects(data.get("games", []), "games"))
    return BotMemory(accepted, sent, tuple(declines), games)


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"{what} is not a list")
    return value


def _objects(value: Any, what: str) -> list[dict[str, Any]]:
    items = _list(value, what)
    if not all(isinstance(item, dict) for item in items):
        raise ValueError(f"{what} holds something that is not an object")
    return items


class StateFile:
    """The state file of one run: reads it at start and writes it when the memory changes. The lobby hands
    over and gets back memory on its monotonic clock; the file holds wall-clock times."""

    def __init__(self, path: Path | None, monotonic: Callable[[], float], wall_clock: Callable[[], float]) -> None:
        self.path = path
        self.monotonic = monotonic
        self.wall_clock = wall_clock
        self._saved = BotMemory()

    def _clocks(self) -> ClockReading:
        return ClockReading(monotonic=self.monotonic(), wall=self.wall_clock())

    def load(self, decline_cooldown_s: float) -> BotMemory:
        """What an earlier run remembered and still matters, on the monotonic clock (empty without a file)."""
        if self.path is None:
            return BotMemory()
        clocks = self._clocks()
        self._saved = forget_old(clocks.to_monotonic(load_memory(self.path)), clocks.monotonic,
                                 decline_cooldown_s)
        return self._saved

    def save_if_changed(self, memory: BotMemory) -> None:
        """Write ``memory`` (monotonic clock) when it differs from what was last read or written."""
        if self.path is None or memory == self._saved:
            return
        self._saved = memory
        save_memory(self.path, self._clocks().to_wall(memory))


# ---- the file ----------------------------------------------------------------------------------------------


def load_memory(path: Path) -> BotMemory:
    """The saved memory (wall-clock times); an empty one when there is no file or it cannot be used."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        log.debug("no state file %s; starting fresh", path)
        return BotMemory()
    except (OSError, UnicodeDecodeError) as error:
        log.warning("state file %s is unreadable (%s); starting fresh", path, error)
        return BotMemory()
    try:
        memory = memory_from_json(json.loads(text))
    except (ValueError, RecursionError) as error:
        log.warning("state file %s is unreadable (%s); starting fresh", path, error)
        return BotMemory()
    log.info("state file %s: %d challenges from bots, %d matchmaking challenges and %d declines remembered, and "
             "what we did in %d games", path, len(memory.accepted_from_bots), len(memory.matchmaking_sent),
             len(memory.matchmaking_declines), len(memory.games))
    return memory


def save_memory(path: Path, memory: BotMemory) -> bool:
    """Write the memory (wall-clock times) atomically: a temporary file in the same folder, then a rename.
    Returns False (after one warning line) when it cannot be written."""
    temporary: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(memory_to_json(memory), file, separators=(",", ":"))
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
        return True
    except OSError as error:
        log.warning("cannot write the state file %s (%s); the limits will start fresh after a restart", path,
                    error)
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass
        return False

"""The Lichess tournaments the bot is in (``tournaments``, ``--tournament``): joined at start, their state looked
up now and then, left at a stop. Their pairings arrive as ordinary ``gameStart`` events, and the lobby plays
them as it plays any game; while a tournament runs, one slot of ``challenge.concurrency`` is kept for its next
pairing (:func:`slots_kept`).

Each join says what came of it in one line: ``tournament abcd1234: joined arena 'Bot Arena' (3+2 standard,
casual, running)``, or why it was refused (``tournament abcd1234: join refused: Bot players are not allowed``,
the rating range, the team of a team battle, the entry code); an arena's pause after a withdrawal is asked
about again a minute later.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from bot.config import TournamentEntry
from bot.wire.errors import ServerError, ServerStopped
from bot.wire.server import Server
from bot.wire.tournaments import (
    TOURNAMENT_KINDS,
    TournamentInfo,
    TournamentKind,
    refusal_line,
    refusal_passes,
)

log = logging.getLogger(__name__)

#: how often a joined tournament's state is looked up (started, finished), and a passing refusal retried
LOOK_AGAIN_S = 60.0


@dataclass
class Joined:
    """A tournament the bot is in."""

    entry: TournamentEntry
    info: TournamentInfo
    games: int = 0  # pairings played (started) in this run


def slots_kept(running_tournaments: int, tournament_games_running: int) -> int:
    """How many slots of ``challenge.concurrency`` wait for a pairing: one per running tournament the bot is
    in, less those whose game is being played (that game takes its slot as any game does)."""
    return max(0, running_tournaments - tournament_games_running)


class Tournaments:
    """The lobby's tournaments; all I/O on the lobby's thread."""

    def __init__(self, server: Server, entries: Iterable[TournamentEntry], *,
                 monotonic: Callable[[], float]) -> None:
        self.server = server
        self.monotonic = monotonic
        #: tournaments to join, and when to try (again)
        self.waiting: dict[str, tuple[TournamentEntry, float]] = {entry.id: (entry, 0.0) for entry in entries}
        self.joined: dict[str, Joined] = {}
        #: game id -> the tournament it is a pairing of
        self.games: dict[str, str] = {}
        self._looked_at = 0.0

    def tick(self, *, stopping: bool) -> None:
        """Join what is due; look up the state of the joined ones every :data:`LOOK_AGAIN_S`."""
        if stopping:
            return
        now = self.monotonic()
        for tournament_id, (entry, due) in list(self.waiting.items()):
            if due <= now:
                del self.waiting[tournament_id]
                self._join(entry)
        if self.joined and now - self._looked_at >= LOOK_AGAIN_S:
            self._looked_at = now
            for joined in list(self.joined.values()):
                self._look_up(joined)

    def running(self) -> int:
        """Tournaments the bot is in that have started and not finished."""
        return sum(1 for joined in self.joined.values() if joined.info.status == "started")

    def on_game_start(self, game_id: str, tournament_id: str | None) -> None:
        """A game started: a pairing of one of our tournaments when the server says so."""
        joined = self.joined.get(tournament_id or "")
        if joined is None or game_id in self.games:
            return
        self.games[game_id] = joined.info.id
        joined.games += 1
        if joined.info.status == "created":  # its first pairing: it has started
            joined.info = replace(joined.info, status="started")
        log.info("game %s: pairing %d of %s %s", game_id, joined.games, joined.info.kind, joined.info.id)

    def withdraw_all(self) -> None:
        """Leave every tournament the bot is in (a stop); one line each."""
        self.waiting.clear()
        for tournament_id, joined in list(self.joined.items()):
            del self.joined[tournament_id]
            if joined.info.over:
                continue
            try:
                self.server.withdraw_tournament(joined.info.kind, tournament_id)
            except ServerError as error:
                log.warning("tournament %s: could not withdraw (%s)", tournament_id, error)
                continue
            log.info("tournament %s: withdrew (%d pairing%s played)", tournament_id, joined.games,
                     "" if joined.games == 1 else "s")

    # ---- one tournament ----

    def _info(self, entry: TournamentEntry) -> TournamentInfo | None:
        """The tournament as the server describes it: of the entry's kind, or (``auto``) an arena, else a Swiss."""
        kinds: tuple[TournamentKind, ...] = TOURNAMENT_KINDS if entry.kind == "auto" else (entry.kind,)
        for kind in kinds:
            try:
                return self.server.tournament_info(kind, entry.id)
            except ServerStopped:
                raise
            except ServerError as error:
                if error.status != 404:
                    self._again(entry, f"cannot look it up ({error})")
                    return None
        log.warning("tournament %s: join refused: no %s with this id on %s", entry.id,
                    " or ".join("Swiss" if kind == "swiss" else kind for kind in kinds), self.server.url)
        return None

    def _join(self, entry: TournamentEntry) -> None:
        try:
            info = self._info(entry)
            if info is None:
                return
            if info.over:
                log.warning("tournament %s: join refused: %s has finished", entry.id, info.describe())
                return
            refused = self.server.join_tournament(info.kind, entry.id, team=entry.team, password=entry.password)
        except ServerStopped:
            return
        except ServerError as error:
            self._again(entry, f"could not join ({error})")
            return
        if refused is None:
            self.joined[entry.id] = Joined(entry, info)
            log.info("tournament %s: joined %s", entry.id, info.describe())
            return
        if refusal_passes(refused):
            self._again(entry, refused)
            return
        # the verdicts of the answer before the join say which condition failed (bots, the rating range)
        log.warning("tournament %s: join refused: %s", entry.id, refusal_line(refused, info))

    def _again(self, entry: TournamentEntry, why: str) -> None:
        self.waiting[entry.id] = (entry, self.monotonic() + LOOK_AGAIN_S)
        log.warning("tournament %s: %s; trying again in %.0f s", entry.id, why, LOOK_AGAIN_S)

    def _look_up(self, joined: Joined) -> None:
        try:
            info = self.server.tournament_info(joined.info.kind, joined.info.id)
        except ServerError as error:
            log.debug("tournament %s: not looked up (%s)", joined.info.id, error)
            return
        if info.status == "started" and joined.info.status == "created":
            log.info("tournament %s: started", info.id)
        joined.info = info
        if info.over:
            del self.joined[info.id]
            log.info("tournament %s: finished (%d pairing%s played)", info.id, joined.games,
                     "" if joined.games == 1 else "s")

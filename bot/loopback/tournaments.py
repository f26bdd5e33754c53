"""Lichess tournaments on the loopback server (Lichess dialect): an arena or a Swiss that lets the bot join
(``POST /api/tournament/{id}/join``, ``/api/swiss/{id}/join``), pairs it a few times (each pairing an ordinary
``gameStart`` whose game names the tournament), and lets it withdraw; ``GET /api/tournament/{id}`` and
``/api/swiss/{id}`` describe it, with the verdicts of its conditions for the bot (docs/server-api.md). A mixin
of ``Referee``, which provides the state and helpers."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Optional

from bot import ServerKind
from bot.loopback.answers import OK, Reply
from bot.loopback.model import LoopbackChallenge, LoopbackTimeControl, User
from bot.loopback.opponents import Opponent
from engine.variants import LICHESS_KEYS

if TYPE_CHECKING:
    from bot.loopback.games import Game

TournamentKind = Literal["arena", "swiss"]
TOURNAMENT_KINDS: tuple[TournamentKind, ...] = ("arena", "swiss")
#: Lichess's join refusals (lila's ``JoinResult``) that the loopback server gives
WRONG_ENTRY_CODE = "Wrong entry code"
MISSING_TEAM = "Missing team"
RESTRICTIONS = "Tournament restrictions"


@dataclass
class LoopbackTournament:
    """An arena or a Swiss: its conditions, and what the bot did in it."""

    id: str
    kind: TournamentKind
    name: str
    clock: tuple[int, int]
    variant: str
    rated: bool
    pairings: int  # games the bot is paired in, one after the other, while it stays in
    opponent: Callable[[int], Opponent]  # the n-th pairing's opponent (from 0)
    password: Optional[str] = None
    team: Optional[str] = None  # a team battle's team the bot belongs to
    bots_allowed: bool = True
    min_rating: Optional[int] = None
    max_rating: Optional[int] = None
    status: Literal["created", "started", "finished"] = "started"
    joined: bool = False
    withdrawn: bool = False
    joins: list[dict[str, str]] = field(default_factory=list)  # every join's form (the password included)
    withdrawals: int = 0
    games: list[str] = field(default_factory=list)

    def verdicts(self, bot: User) -> list[tuple[str, str]]:
        """(condition, verdict) for the bot, as Lichess writes them: ``ok`` or why not."""
        found = [("Bot players are allowed", "ok") if self.bots_allowed
                 else ("Bot players are not allowed", "Bot players are not allowed")]
        speed = LoopbackTimeControl(*self.clock, None).speed.capitalize()
        if self.min_rating is not None:
            found.append((f"Rated ≥ {self.min_rating} in {speed}", "ok" if bot.rating >= self.min_rating
                          else f"Your {speed} rating ({bot.rating}) is too low"))
        if self.max_rating is not None:
            found.append((f"Rated ≤ {self.max_rating} in {speed}", "ok" if bot.rating <= self.max_rating
                          else f"Your top weekly {speed} rating ({bot.rating}) is too high"))
        return found


class TournamentDesk:
    """The ``api_*`` methods about tournaments (run under the referee's lock)."""

    dialect: ServerKind
    bot: User
    tournaments: dict[str, LoopbackTournament]
    challenges: dict[str, LoopbackChallenge]
    games: dict[str, Game]
    _cond: threading.Condition

    if TYPE_CHECKING:

        def _new_id(self) -> str: ...

        def _start_game(self, challenge: LoopbackChallenge, opponent_player: User, opponent: Opponent) -> Game: ...

    def api_tournament(self, kind: TournamentKind, tournament_id: str) -> Reply:
        """``GET /api/tournament/{id}`` (an arena) or ``/api/swiss/{id}``, as the bot's account sees it."""
        with self._cond:
            tournament = self.tournaments.get(tournament_id)
            if tournament is None or tournament.kind != kind:
                return Reply(404, {"error": "Not found"})
            return Reply(200, self._tournament_json(tournament))

    def api_join_tournament(self, kind: TournamentKind, tournament_id: str, form: dict[str, str]) -> Reply:
        """``POST /api/tournament/{id}/join`` (form ``password``, ``team``, ``pairMeAsap``) or
        ``/api/swiss/{id}/join`` (``password``): ``{"ok": true}`` or 400 with Lichess's reason."""
        with self._cond:
            tournament = self.tournaments.get(tournament_id)
            if tournament is None or tournament.kind != kind:
                return Reply(404, {"error": "Not found"})
            tournament.joins.append(dict(form))
            if tournament.status == "finished":
                return Reply(400, {"error": "This tournament no longer exists"})
            if tournament.password is not None and form.get("password") != tournament.password:
                return Reply(400, {"error": WRONG_ENTRY_CODE})
            if tournament.team is not None and form.get("team") != tournament.team:
                return Reply(400, {"error": MISSING_TEAM})
            if any(verdict != "ok" for _, verdict in tournament.verdicts(self.bot)):
                return Reply(400, {"error": RESTRICTIONS})
            tournament.joined, tournament.withdrawn = True, False
            self._pair_next(tournament)
            self._cond.notify_all()
            return OK

    def api_withdraw_tournament(self, kind: TournamentKind, tournament_id: str) -> Reply:
        """``POST /api/tournament/{id}/withdraw`` or ``/api/swiss/{id}/withdraw``: no more pairings."""
        with self._cond:
            tournament = self.tournaments.get(tournament_id)
            if tournament is None or tournament.kind != kind:
                return Reply(404, {"error": "Not found"})
            tournament.withdrawals += 1
            tournament.withdrawn = True
            self._cond.notify_all()
            return OK

    def _tournament_game_ended(self, game: Game) -> None:
        """A game ended: a tournament's next pairing, if it was one of its games."""
        pairing = game.challenge.pairing_of
        tournament = self.tournaments.get(pairing[1]) if pairing is not None else None
        if tournament is not None:
            self._pair_next(tournament)

    def _pair_next(self, tournament: LoopbackTournament) -> None:
        """Pair the bot when it is in the tournament and has no game of it running; the tournament is over
        after its last pairing."""
        if not tournament.joined or tournament.withdrawn or tournament.status != "started":
            return
        if any(not self.games[game_id].over for game_id in tournament.games):
            return
        number = len(tournament.games)
        if number >= tournament.pairings:
            tournament.status = "finished"
            return
        opponent_player = User(f"Player{number + 1}", 1500 + 10 * number)
        limit, increment = tournament.clock
        pairing = LoopbackChallenge(
            id=self._new_id(), challenger=opponent_player, dest=self.bot, variant=tournament.variant,
            chess960=False, time_control=LoopbackTimeControl(limit, increment, None), rated=tournament.rated,
            color="random", final_color="white" if number % 2 else "black", direction="in", status="accepted",
            created_at=time.time(), offered=False, pairing_of=(tournament.kind, tournament.id),
        )
        self.challenges[pairing.id] = pairing
        tournament.games.append(pairing.id)
        self._start_game(pairing, opponent_player, tournament.opponent(number))

    def _tournament_json(self, tournament: LoopbackTournament) -> dict[str, Any]:
        limit, increment = tournament.clock
        verdicts = tournament.verdicts(self.bot)
        data: dict[str, Any] = {
            "id": tournament.id,
            "clock": {"limit": limit, "increment": increment},
            "variant": LICHESS_KEYS.get((tournament.variant, False), tournament.variant),
            "rated": tournament.rated,
            "nbPlayers": 2 + int(tournament.joined and not tournament.withdrawn),
            "verdicts": {"list": [{"condition": condition, "verdict": verdict} for condition, verdict in verdicts],
                         "accepted": all(verdict == "ok" for _, verdict in verdicts)},
        }
        if tournament.kind == "swiss":
            data.update({"name": tournament.name, "status": tournament.status, "nbRounds": tournament.pairings,
                         "round": len(tournament.games)})
            return data
        data.update({"fullName": tournament.name, "system": "arena", "minutes": 60,
                     "isStarted": tournament.status == "started", "isFinished": tournament.status == "finished"})
        if tournament.status == "created":
            data["secondsToStart"] = 300
        elif tournament.status == "started":
            data["secondsToFinish"] = 3600
        if tournament.password is not None:
            data["private"] = True
        if tournament.team is not None:
            data["teamBattle"] = {"teams": {tournament.team: tournament.team}, "nbLeaders": 5}
        return data

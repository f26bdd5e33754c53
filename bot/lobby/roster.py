"""The lobby's book of games: accepted challenges, running game workers, parked correspondence games, and
who each game is against; from it, the :class:`bot.lobby.challenges.LobbyState` a challenge is decided on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.config import Settings
from bot.game import GameWorker
from bot.lobby.challenges import DAY_S, AcceptedBotChallenge, LobbyState
from bot.lobby.matchmaking import Matchmaker

#: An accepted challenge holds a concurrency slot until its gameStart arrives, or this many seconds.
ACCEPTED_SLOT_S = 30.0


@dataclass(frozen=True)
class KnownOpponent:
    """Who a game is against: name in lower case; ``is_bot`` None until the server has told us."""

    name: str
    is_bot: bool | None = None


class Roster:
    """Every game the lobby knows of, by game (or challenge) id. Used by the lobby's thread only."""

    def __init__(self, settings: Settings, monotonic: Callable[[], float]) -> None:
        self.settings = settings
        self.monotonic = monotonic
        self.workers: dict[str, GameWorker] = {}
        #: accepted challenges whose gameStart has not come: id -> when accepted (monotonic)
        self.accepted: dict[str, float] = {}
        #: every game this run accepted (a challenge, or our own challenge accepted): id -> when (monotonic);
        #: a note the state file wrote before that is about an older game under the same id
        self.accepted_at: dict[str, float] = {}
        #: ids of accepted challenges and running games known to have days per move
        self.correspondence_ids: set[str] = set()
        #: correspondence games waiting for the opponent: game id -> when to look again (monotonic)
        self.parked: dict[str, float] = {}
        #: games whose gameStart said chess960 (pychess's gameFull does not say it)
        self.chess960_games: set[str] = set()
        #: the opponent of each game running, parked or about to start
        self.opponents: dict[str, KnownOpponent] = {}
        #: challenges from bots accepted in the last 24 hours (max_challenges_per_bot_per_hour / _per_day)
        self.accepted_from_bots: list[AcceptedBotChallenge] = []

    def is_correspondence(self, game_id: str, worker: GameWorker) -> bool:
        return game_id in self.correspondence_ids or worker.game.correspondence

    def realtime_workers(self) -> int:
        return sum(1 for game_id, worker in list(self.workers.items())
                   if not self.is_correspondence(game_id, worker))

    def correspondence_games(self) -> int:
        visiting = {game_id for game_id, worker in list(self.workers.items())
                    if self.is_correspondence(game_id, worker)}
        return len(visiting | set(self.parked) | self.correspondence_ids)

    def opponent(self, game_id: str, *, pychess: bool) -> KnownOpponent | None:
        """The opponent of a game: from its challenge or gameStart, else from its worker's gameFull."""
        known = self.opponents.get(game_id)
        if known is not None and known.is_bot is not None:
            return known
        worker = self.workers.get(game_id)
        full = worker.game.full if worker is not None else None
        if worker is not None and full is not None and worker.game.we_are_white is not None:
            player = full.black if worker.game.we_are_white else full.white
            # pychess's gameFull has names only: no title does not prove a human
            is_bot = True if player.is_bot else (None if pychess else False)
            known = KnownOpponent(player.name.lower(), is_bot)
            self.opponents[game_id] = known
        return known

    def game_ids(self) -> set[str]:
        return set(self.workers) | set(self.parked) | set(self.accepted)

    def forget(self, game_id: str) -> None:
        """Forget the opponent of a game the lobby no longer has in any form."""
        if game_id not in self.game_ids():
            self.opponents.pop(game_id, None)

    def drop_challenge(self, challenge_id: str) -> None:
        """An accepted challenge that will not become a game (gone, unanswered, expired)."""
        self.accepted.pop(challenge_id, None)
        self.correspondence_ids.discard(challenge_id)
        self.forget(challenge_id)

    def expire_accepted(self) -> None:
        now = self.monotonic()
        for challenge_id, accepted_at in list(self.accepted.items()):
            if now - accepted_at > ACCEPTED_SLOT_S:
                self.drop_challenge(challenge_id)

    def bot_slots(self) -> int:
        return self.settings.challenge.concurrency - self.settings.challenge.reserve_for_humans

    def state(self, matchmaker: Matchmaker, *, stopping: bool, pychess: bool) -> LobbyState:
        """What :func:`bot.lobby.challenges.decide_challenge` needs to know about the games we have."""
        realtime_accepted = set(self.accepted) - self.correspondence_ids
        realtime_ids = realtime_accepted | {game_id for game_id, worker in list(self.workers.items())
                                            if not self.is_correspondence(game_id, worker)}
        opponents = {game_id: self.opponent(game_id, pychess=pychess) for game_id in self.game_ids()}
        bot_games = sum(1 for game_id in realtime_ids
                        if (opponent := opponents.get(game_id)) is not None and opponent.is_bot)
        names = [opponent.name for opponent in opponents.values() if opponent is not None]
        pending = matchmaker.pending
        if pending is not None:
            names.append(pending.offer.opponent.lower())
        now = self.monotonic()
        self.accepted_from_bots = [item for item in self.accepted_from_bots if now - item.at < DAY_S]
        return LobbyState(active_games=self.realtime_workers() + len(realtime_accepted) + matchmaker.waiting,
                          shutting_down=stopping,
                          correspondence_games=self.correspondence_games(),
                          bot_games=bot_games + matchmaker.waiting, opponents=tuple(names),
                          accepted_from_bots=tuple(self.accepted_from_bots), now=now)

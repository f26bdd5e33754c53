"""What tests read off the loopback server: open streams, recorded requests, answers, and waits for a game to
reach a state. A mixin of ``LoopbackServer``."""

from __future__ import annotations

import threading
import time
from typing import Callable, Optional, TypeVar

from bot.loopback.faults import StreamSelector
from bot.loopback.games import Game
from bot.loopback.model import ChallengeAnswer, LoopbackChallenge, RequestRecord
from bot.loopback.streams import Stream

T = TypeVar("T")


class Observers:
    """Read-only views and waits, under the server's lock."""

    games: dict[str, Game]
    challenges: dict[str, LoopbackChallenge]
    requests: list[RequestRecord]
    event_streams: list[Stream]
    _in_flight: dict[str, int]
    _cond: threading.Condition

    # --- looking at what happened ---
    def open_streams(self, kind: StreamSelector = "any", game_id: Optional[str] = None) -> list[Stream]:
        """The streams currently open and not silenced."""
        with self._cond:
            streams: list[Stream] = []
            if kind in ("event", "any") and game_id is None:
                streams += self.event_streams
            if kind in ("game", "any"):
                for game in self.games.values():
                    if game_id is None or game.id == game_id:
                        streams += game.streams
            return [s for s in streams if not s.finished.is_set() and not s.silent]

    def requests_to(self, endpoint: str, target: Optional[str] = None) -> list[RequestRecord]:
        """The recorded requests to ``endpoint`` (for one game or challenge id, if given)."""
        with self._cond:
            return [r for r in self.requests if r.endpoint == endpoint and (target is None or r.target == target)]

    def answer(self, challenge_id: str) -> Optional[ChallengeAnswer]:
        """How the bot (or an online bot) answered the challenge, if it has."""
        with self._cond:
            return self.challenges[challenge_id].answer

    def wait_for(self, predicate: Callable[[], Optional[T]], timeout: float, what: str = "condition") -> T:
        """Wait until ``predicate()`` (run under the server lock) is truthy; return it, else TimeoutError."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                value = predicate()
                if value:
                    return value
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"loopback server: timed out after {timeout:g} s waiting for {what}")
                self._cond.wait(min(remaining, 0.1))

    def wait_for_answer(self, challenge_id: str, timeout: float = 10.0) -> ChallengeAnswer:
        """Wait for the answer to a challenge."""
        return self.wait_for(
            lambda: self.challenges[challenge_id].answer, timeout, f"an answer to challenge {challenge_id}"
        )

    def wait_for_game_start(self, game_id: str, timeout: float = 10.0) -> Game:
        """Wait until the game exists (the challenge was accepted)."""
        return self.wait_for(lambda: self.games.get(game_id), timeout, f"game {game_id} to start")

    def wait_for_plies(self, game_id: str, plies: int, timeout: float = 30.0) -> Game:
        """Wait until the game's current move list has at least ``plies`` half-moves (or the game ended)."""

        def reached() -> Optional[Game]:
            game = self.games.get(game_id)
            return game if game is not None and (len(game.moves) >= plies or game.over) else None

        return self.wait_for(reached, timeout, f"{plies} plies in game {game_id}")

    def wait_for_game_end(self, game_id: str, timeout: float = 60.0) -> Game:
        """Wait until the game is over and no request is being answered (the one that ended the game is then in
        ``requests``); returns the game (``status``, ``winner``, ``moves``, ``pgn()``...)."""

        def ended() -> Optional[Game]:
            game = self.games.get(game_id)
            settled = not any(self._in_flight.values())
            return game if game is not None and game.over and settled else None

        return self.wait_for(ended, timeout, f"game {game_id} to end")

    def wait_for_request(
        self, endpoint: str, target: Optional[str] = None, count: int = 1, timeout: float = 10.0
    ) -> list[RequestRecord]:
        """Wait until the bot has made ``count`` requests to ``endpoint``."""
        return self.wait_for(
            lambda: (lambda found: found if len(found) >= count else None)(
                [r for r in self.requests if r.endpoint == endpoint and (target is None or r.target == target)]
            ),
            timeout,
            f"{count} request(s) to {endpoint}",
        )

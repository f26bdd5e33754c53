"""The fakes the bot's unit tests share: a server that records calls, its game stream, a scripted engine, our
account. Test modules import them from here (not from each other)."""

from __future__ import annotations

import json
import queue
from collections.abc import Sequence
from typing import Any

from bot.config import Settings
from bot.engines import EngineReply, Score
from bot.game import GameRecord, GameWorker
from bot.wire.dialect import LICHESS, dialect_named
from bot.wire.errors import ServerError
from bot.wire.events import Account
from bot.wire.gamepage import GamePage
from bot.wire.normalise import normalise_game_line, parse_online_bot
from tests.timing import PATIENCE_S

ME = Account(id="SeirawanBot", username="SeirawanBot", title="BOT")


class ForwardingQueue(queue.Queue):  # type: ignore[type-arg]
    """A queue whose items go to the game worker's inbox once the worker has opened the stream with it."""

    def __init__(self) -> None:
        super().__init__()
        self.sink: Any = None

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        if self.sink is not None:
            self.sink.put(item)
        else:
            super().put(item, block, timeout)

    def forward_to(self, sink: Any) -> None:
        """From now on into ``sink``; what was pushed before goes there first."""
        while not self.empty():
            sink.put(self.get_nowait())
        self.sink = sink


class FakeStream:
    def __init__(self) -> None:
        self.items = ForwardingQueue()
        self.closed = False

    def get(self, timeout: float | None = None) -> Any:
        try:
            return self.items.get(timeout=timeout) if timeout else self.items.get_nowait()
        except queue.Empty:
            return None

    def close(self) -> None:
        self.closed = True


class FakeServer:
    """Records calls; ``on_move`` may push the opponent's reply into the stream."""

    url = "https://www.pychess.org"

    def __init__(self, dialect: str = "pychess") -> None:
        self.dialect = dialect_named(dialect)
        self.stream = FakeStream()
        self.calls: list[tuple[str, ...]] = []
        self.on_move: Any = None
        self.fail_moves = 0
        # the pychess game page: running unless a test says otherwise; None = cannot be read
        self.page: GamePage | None = GamePage("g1", -1, "*", ())

    def fetch_game_page(self, game_id: str) -> GamePage:
        self.calls.append(("page",))
        if self.page is None:
            raise ServerError("game page: HTTP 502, gave up after 2 attempts", 502)
        return self.page

    def open_game_stream(self, game_id: str, sink: Any = None) -> FakeStream:
        if sink is not None:
            self.stream.items.forward_to(sink)
        return self.stream

    def push(self, *lines: str) -> None:
        for line in lines:
            for event in normalise_game_line(line, self.dialect):  # type: ignore[arg-type]
                self.stream.items.put(event)

    def make_move(self, game_id: str, uci: str, *, offer_draw: bool = False, san: str = "",
                  plies: int | None = None, unsure_since: float | None = None,
                  send_by: float | None = None) -> None:
        if self.fail_moves:
            self.fail_moves -= 1
            raise ServerError("move: HTTP 503, gave up", 503)
        self.calls.append(("move", uci, "draw" if offer_draw else ""))
        if self.on_move is not None:
            self.on_move(uci)

    def chat(self, game_id: str, text: str, room: str = "player", wait: bool = True) -> None:
        self.calls.append(("chat", text))

    def abort_game(self, game_id: str) -> None:
        self.calls.append(("abort",))

    def resign_game(self, game_id: str) -> None:
        self.calls.append(("resign",))

    def stop_waiting(self) -> None:
        self.calls.append(("stop waiting",))

    def answer_draw(self, game_id: str, accept: bool) -> bool:
        self.calls.append(("draw", "yes" if accept else "no"))
        return True

    def moves(self) -> list[str]:
        return [call[1] for call in self.calls if call[0] == "move"]


class ScriptedEngine:
    """Answers from a list: a UCI string, an EngineReply, or an exception to raise; the last one repeats."""

    id_name = "Scripted"

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.searches: list[tuple[str, list[str]]] = []
        self.closed = False

    def set_variant(self, variant: str, chess960: bool) -> None:
        self.variant = (variant, chess960)

    def new_game(self) -> None:
        pass

    def search(self, fen: str, moves: Sequence[str], limits: Any) -> EngineReply:
        self.searches.append((fen, list(moves)))
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        if isinstance(answer, EngineReply):
            return answer
        return EngineReply(bestmove=answer, score=Score(cp=42), depth=7, elapsed_s=1.2)

    def close(self) -> None:
        self.closed = True


class LobbyServer(FakeServer):
    """A :class:`FakeServer` that also answers challenges (records accept and decline)."""

    def accept_challenge(self, challenge_id: str) -> None:
        self.calls.append(("accept", challenge_id))

    def decline_challenge(self, challenge_id: str, reason: str) -> None:
        self.calls.append(("decline", challenge_id, reason))


LICHESS_ME_ID = "schessbot"


class LichessServer(FakeServer):
    """A :class:`FakeServer` in the Lichess dialect that also answers takebacks; chat records the room."""

    url = "https://lichess.org"

    def __init__(self) -> None:
        super().__init__("lichess")

    def chat(self, game_id: str, text: str, room: str = "player", **options: Any) -> None:
        self.calls.append(("chat", text, room, str(options.get("wait", True))))

    def answer_takeback(self, game_id: str, accept: bool) -> bool:
        self.calls.append(("takeback", "yes" if accept else "no"))
        return True


def lichess_full(moves: str = "", days: int | None = None, **state: Any) -> str:
    data: dict[str, Any] = {
        "type": "gameFull", "id": "g1", "rated": False, "variant": {"key": "standard", "name": "Standard"},
        "speed": "blitz", "createdAt": 1700000000000, "initialFen": "startpos",
        "white": {"id": LICHESS_ME_ID, "name": "SchessBot", "title": "BOT", "rating": 2000},
        "black": {"id": "alice", "name": "Alice", "title": None, "rating": 1500},
        "state": lichess_state(moves, days=days, **state),
    }
    if days is None:
        data["clock"] = {"initial": 180000, "increment": 2000}
    else:
        data["daysPerTurn"] = days
    return json.dumps(data)


def lichess_state(moves: str, days: int | None = None, **extra: Any) -> dict[str, Any]:
    clock = 2147483647 if days is not None else 180000
    state = {"type": "gameState", "moves": moves, "wtime": clock, "btime": clock, "winc": 0, "binc": 0,
             "status": "started"}
    state.update(extra)
    return state


def run(server: FakeServer, engine: ScriptedEngine, settings: Settings, *, revisit: bool = False,
        queue: int = 0) -> tuple[GameRecord, GameWorker]:
    me = Account(id=LICHESS_ME_ID, username="SchessBot", title="BOT")
    records: list[GameRecord] = []
    worker = GameWorker("g1", server, settings, me, engine, on_done=records.append,  # type: ignore[arg-type]
                        challenges_waiting=lambda: queue, revisit=revisit)
    worker.start()
    worker.thread.join(PATIENCE_S)
    assert not worker.thread.is_alive() and records
    return records[0], worker


def online(name: str, **ratings: int) -> Any:
    return parse_online_bot({"id": name.lower(), "username": name, "title": "BOT",
                             "perfs": {perf: {"rating": rating, "games": 10} for perf, rating in ratings.items()}})


class FakeChallengeServer:
    """Matchmaking's side of a Lichess server: online bots, created and cancelled challenges."""

    dialect = LICHESS

    def __init__(self) -> None:
        self.bots = [online("Partner", blitz=1800, bullet=1800)]
        self.created: list[dict[str, Any]] = []
        self.cancelled: list[str] = []
        self.fail: Exception | None = None

    def online_bots(self, limit: int = 100) -> list[Any]:
        return self.bots

    def create_challenge(self, username: str, **form: Any) -> str:
        if self.fail is not None:
            raise self.fail
        self.created.append(dict(form, username=username))
        return f"c{len(self.created)}"

    def cancel_challenge(self, challenge_id: str) -> None:
        self.cancelled.append(challenge_id)

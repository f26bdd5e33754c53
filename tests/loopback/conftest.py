"""Helpers to drive the loopback server with plain ``requests``, the way a bot would."""

from __future__ import annotations

import json
import queue
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any, Optional

import pytest
import requests

from bot.loopback import LoopbackServer
from tests.timing import PATIENCE_S

TOKEN = "test-token"
CAPABILITIES = json.dumps({"version": 1, "variants": ["seirawan", "seirawan960"]})


class LineReader:
    """Reads an ndjson stream in a background thread; ``next_line`` gives raw lines (``""``: keep-alive)."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self.response = requests.get(url, headers=headers, stream=True, timeout=PATIENCE_S)
        self.lines: queue.Queue[str] = queue.Queue()
        self.ended = threading.Event()
        self.error: Optional[BaseException] = None
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for raw in self.response.iter_lines(chunk_size=1):
                self.lines.put(raw.decode())
        except Exception as error:  # noqa: BLE001 - recorded for the test to inspect
            self.error = error
        finally:
            self.ended.set()

    def next_line(self, timeout: float = PATIENCE_S, skip_keepalives: bool = True) -> str:
        """The next line within ``timeout`` seconds in all (keep-alives do not extend it); keep-alives (empty
        lines, pings) are skipped unless asked for."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no line within {timeout} s") from None
            if skip_keepalives and (line == "" or line == '{"type":"ping"}'):
                continue
            return line

    def next_json(self, timeout: float = PATIENCE_S) -> dict[str, Any]:
        """The next non-keep-alive line, parsed."""
        data: dict[str, Any] = json.loads(self.next_line(timeout))
        return data

    def close(self) -> None:
        """Close the connection from the client side (shut the socket first: the reader thread is blocked)."""
        connection = getattr(self.response.raw, "connection", None)
        sock = getattr(connection, "sock", None)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.ended.wait(PATIENCE_S)
        self.response.close()


class Client:
    """A minimal bot-side client for the loopback server."""

    def __init__(self, server: LoopbackServer, token: str = TOKEN) -> None:
        self.server = server
        self.headers = {"Authorization": f"Bearer {token}"}
        self.readers: list[LineReader] = []

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return requests.get(
            self.server.url + path,
            headers={**self.headers, **kwargs.pop("headers", {})},
            timeout=PATIENCE_S,
            **kwargs,
        )

    def post(self, path: str, **kwargs: Any) -> requests.Response:
        return requests.post(
            self.server.url + path,
            headers={**self.headers, **kwargs.pop("headers", {})},
            timeout=PATIENCE_S,
            **kwargs,
        )

    def stream(self, path: str, capabilities: Optional[str] = CAPABILITIES) -> LineReader:
        headers = dict(self.headers)
        if capabilities is not None and self.server.dialect == "pychess":
            headers["X-PyChess-Bot-Capabilities"] = capabilities
        reader = LineReader(self.server.url + path, headers)
        self.readers.append(reader)
        return reader

    def events(self) -> LineReader:
        return self.stream("/api/stream/event")

    def game(self, game_id: str) -> LineReader:
        return self.stream(f"/api/bot/game/stream/{game_id}")

    def move(self, game_id: str, uci: str, **params: str) -> requests.Response:
        return self.post(f"/api/bot/game/{game_id}/move/{uci}", params=params)

    def close(self) -> None:
        for reader in self.readers:
            reader.close()


def start_game(server: LoopbackServer, client: Client, **challenge: Any) -> tuple[str, LineReader]:
    """Challenge, accept through HTTP, open the game stream and read past ``gameFull``."""
    challenge_id = server.challenge(**challenge)
    assert client.post(f"/api/challenge/{challenge_id}/accept").status_code == 200
    reader = client.game(challenge_id)
    full = reader.next_json()
    assert full["type"] == "gameFull"
    return challenge_id, reader


@pytest.fixture
def pychess() -> Iterator[LoopbackServer]:
    with LoopbackServer(dialect="pychess", token=TOKEN, keepalive_s=0.3) as server:
        yield server


@pytest.fixture
def lichess() -> Iterator[LoopbackServer]:
    with LoopbackServer(dialect="lichess", token=TOKEN, keepalive_s=0.3) as server:
        yield server


@pytest.fixture
def pychess_client(pychess: LoopbackServer) -> Iterator[Client]:
    client = Client(pychess)
    yield client
    client.close()


@pytest.fixture
def lichess_client(lichess: LoopbackServer) -> Iterator[Client]:
    client = Client(lichess)
    yield client
    client.close()

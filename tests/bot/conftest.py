"""Shared helpers for the bot's unit tests: the recorded pychess game and small fakes."""

from __future__ import annotations

import json
from pathlib import Path

# A copy of ../shared/data/pychess-seirawan-game.txt, kept in the repository so CI has it.
DATA = Path(__file__).resolve().parents[1] / "data" / "pychess-seirawan-game.txt"

# Lines copied verbatim from that recording, so the key tests do not depend on the file being there.
PYCHESS_CHALLENGE = (
    '{"type":"challenge","challenge":{"id":"RpxjQkJ5","challenger":{"name":"Alice","rating":1500,"title":""},'
    '"variant":{"key":"seirawan"},"rated":false,"timeControl":{"type":"clock","limit":300,"increment":3},'
    '"color":"black","finalColor":"black","speed":"blitz","perf":{"name":"seirawan"},"level":6,'
    '"chess960":false}}'
)
PYCHESS_GAME_START = (
    '{"type": "gameStart", "game": {"id": "RpxjQkJ5", "skill_level": "6", "chess960": "False"}}'
)
PYCHESS_GAME_FULL = (
    '{"type": "gameFull", "id": "RpxjQkJ5", "variant": {"name": "seirawan"}, '
    '"white": {"name": "SeirawanBot"}, '
    '"black": {"name": "Alice"}, "initialFen": "", "createdAt": 1795962595, "state": {"type": "gameState", '
    '"moves": "", "wtime": 300000, "btime": 300000, "winc": 3, "binc": 3, "wdraw": false, "bdraw": false, '
    '"wtakeback": false, "btakeback": false, "status": "started"}}'
)
PYCHESS_STATE_1 = (
    '{"type": "gameState", "moves": "g1h3e", "wtime": 300000, "btime": 300000, "winc": 3, "binc": 3, '
    '"wdraw": false, "bdraw": false, "wtakeback": false, "btakeback": false, "status": "started"}'
)
PYCHESS_PING = '{"type":"ping"}'
PYCHESS_GAME_END = '{"type": "gameEnd", "game": {"id": "RpxjQkJ5"}}'
PYCHESS_ACCOUNT = '{"id": "SeirawanBot", "username": "SeirawanBot", "title": "BOT"}'


def recorded_lines() -> list[tuple[str, str]]:
    """(prefix, payload) for every line of the recorded pychess game."""
    lines = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or line.startswith("..."):
            continue
        prefix, _, payload = line.partition(" ")
        lines.append((prefix, payload))
    return lines


def recorded(prefix: str, type_: str | None = None) -> list[str]:
    """Payloads with the given prefix (and JSON ``type``)."""
    found = []
    for line_prefix, payload in recorded_lines():
        if line_prefix != prefix:
            continue
        if type_ is not None:
            try:
                if json.loads(payload).get("type") != type_:
                    continue
            except ValueError:
                continue
        found.append(payload)
    return found

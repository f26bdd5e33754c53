"""A minimal PGN reader for the tests: tags and SAN moves, comments dropped."""

from __future__ import annotations

import re
from typing import Dict, List, Tuple

_TAG = re.compile(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$')
_MOVE_NUMBER = re.compile(r"^\d+\.+$")
_RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}


def read_games(text: str) -> List[Tuple[Dict[str, str], List[str]]]:
    """Every game of a PGN text as (tags, SAN moves)."""
    games: List[Tuple[Dict[str, str], List[str]]] = []
    for chunk in re.split(r"\n\s*\n(?=\[)", text.strip()):
        tags: Dict[str, str] = {}
        body: List[str] = []
        for line in chunk.splitlines():
            found = _TAG.match(line.strip())
            if found:
                tags[found.group(1)] = found.group(2)
            else:
                body.append(line)
        movetext = re.sub(r"\{[^}]*\}", " ", "\n".join(body))
        moves = [token for token in movetext.split() if not _MOVE_NUMBER.match(token) and token not in _RESULTS]
        games.append((tags, moves))
    return games

"""Links to a game on its server, for people (the status page). Both servers show a game at ``/{gameId}``
(pychess.org: ``https://www.pychess.org/AbCdEfGh``; Lichess: ``https://lichess.org/AbCdEfGh``), as the PGN's
``Site`` tag also says; this is the one place that knows it."""

from __future__ import annotations

from urllib.parse import quote


def game_url(server_url: str, game_id: str) -> str:
    """The game's page on the server (the id quoted: it can never add a path segment)."""
    return f"{server_url.rstrip('/')}/{quote(game_id, safe='')}"

"""The online client: plays S-chess (and chess) on pychess.org and Lichess with a UCI or XBoard engine.

The folders are the layers, top to bottom; each imports only the ones below it (``tests/test_layers.py``
checks, and finds no import cycle):

- ``app``: the ``schess-bot`` command, the bot assembled, logging, the health check, the sandbox;
- ``lobby``: one account's event loop: challenges, the queue, matchmaking, the state file;
- ``game``: one game in a thread: position, time control, moves, pondering, chat, books, the record;
- ``wire``: the server: the HTTP client, streams, rate limits, the event model, normalisers, dialects;
- ``engines``: the UCI, XBoard and homemade engine clients and their search limits;
- ``records``: the PGN writer and how a game ended;
- ``config``: ``config.yml`` -> ``Settings``, and ``Timing``, the bot's fixed waits;
- ``metrics``: the process's counters for ``/metrics`` (games, challenges, moves, latency, restarts, HTTP), which
  every layer may update; it imports nothing from ``bot``.

``engines``, ``records`` and ``config`` import nothing else from ``bot`` (but ``metrics``). ``loopback`` is a
BOT API server in both dialects for the tests and the sandbox (it uses ``engines`` and ``records``); ``health``
is the ``python -m bot.health`` entry point of the Docker health check. docs/architecture.md draws the data flow.
The root package itself holds what every layer may read: the version, the token's variable name, the server
kinds and :func:`closest_name`.
"""

import difflib
from collections.abc import Iterable
from typing import Literal, get_args

from engine import __version__  # one version for the whole project

#: the environment variable holding the API token: config reads it, engine processes never see it
TOKEN_ENV = "SCHESS_BOT_TOKEN"

#: the kinds of server the bot speaks to: the wire's ``Dialect`` of each, the configuration's
#: ``server.dialect``, the loopback server's two dialects
ServerKind = Literal["lichess", "pychess"]
SERVER_KINDS: tuple[ServerKind, ...] = get_args(ServerKind)


def closest_name(name: str, names: Iterable[str]) -> str | None:
    """The one of ``names`` that ``name`` is most likely a typo of, None when none is close: the "did you
    mean" of every message about an unknown name (a config key, an engine option)."""
    found = difflib.get_close_matches(name, list(names), n=1)
    return found[0] if found else None


__all__ = ["SERVER_KINDS", "TOKEN_ENV", "ServerKind", "__version__", "closest_name"]

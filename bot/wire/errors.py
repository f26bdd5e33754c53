"""Every error the wire layer raises, under one root, :class:`WireError`::

    WireError
    +-- ServerError (RuntimeError)     a request failed for good; ``status`` is the HTTP status, if any
    |   +-- ServerStopped              the server object was closed while a call waited
    |   +-- TokenRejected              the server refused the token (401 Lichess, 403 pychess)
    |   +-- RateLimited                HTTP 429, for a call that must not wait; ``retry_after_s``
    +-- MalformedLine (ValueError)     a server line that is not JSON or lacks what its type needs
    +-- GamePageError (ValueError)     not a pychess game page
    +-- GameExportError (ValueError)   not a Lichess game export

Catch :class:`ServerError` around a call to the server; the parse errors are raised by the pure readers
(:mod:`bot.wire.normalise`, :mod:`bot.wire.gamepage`, :mod:`bot.wire.gameexport`), and the client turns the
last two into a :class:`ServerError` naming the game.
"""

from __future__ import annotations


class WireError(Exception):
    """The root of the wire layer's errors."""


class ServerError(WireError, RuntimeError):
    """A request failed for good. ``status`` is the HTTP status when there was one."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class ServerStopped(ServerError):
    """The server object was closed while a call was waiting."""


class TokenRejected(ServerError):
    """The server refused the token: HTTP 401 (Lichess) or 403 (pychess) on ``/api/account``."""


class RateLimited(ServerError):
    """HTTP 429 (or the endpoint is still paused after one) for a call that must not wait."""

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message, 429)
        self.retry_after_s = retry_after_s


class MalformedLine(WireError, ValueError):
    """A server line that is not valid JSON or lacks what its type needs."""


class GamePageError(WireError, ValueError):
    """The page does not have the game attributes (not a pychess game page, or a game that does not exist)."""


class GameExportError(WireError, ValueError):
    """The answer is not a game export (not JSON, not an object, no status)."""

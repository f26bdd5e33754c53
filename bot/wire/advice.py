"""What to tell an operator about a server: why a connection failed (DNS, refused, TLS, timeout) in a few
words, where each server kind issues its tokens, and the address of each server an operator can name.

The per-server facts live here, in the wire layer, so that nothing above it compares server names.
"""

from __future__ import annotations

import socket
import ssl
from urllib.parse import urlsplit

import requests

from bot import TOKEN_ENV
from bot.wire.dialect import DIALECTS, LICHESS, PYCHESS, Dialect, dialect_for_rejection

#: the servers ``schess-bot init --server`` knows: name -> origin
SERVER_URLS: dict[str, str] = {dialect.name: dialect.home_url for dialect in DIALECTS.values()}
#: the variants each of those servers offers the bot (Lichess has no S-chess)
SERVER_VARIANTS: dict[str, tuple[str, ...]] = {dialect.name: dialect.bot_variants for dialect in DIALECTS.values()}


def _chain(error: BaseException) -> list[BaseException]:
    """The error and everything it wraps (``__cause__``, ``__context__``, urllib3's ``reason``, berserk's
    ``error``, exceptions among the arguments), each once, outermost first."""
    seen: list[BaseException] = []
    pending: list[BaseException] = [error]
    while pending:
        current = pending.pop(0)
        if any(current is known for known in seen) or len(seen) > 20:
            continue
        seen.append(current)
        for inner in (getattr(current, "error", None), getattr(current, "reason", None), current.__cause__,
                      current.__context__, *current.args):
            if isinstance(inner, BaseException):
                pending.append(inner)
    return seen


def _host(error: BaseException) -> str:
    for link in _chain(error):
        request = getattr(link, "request", None)
        url = getattr(request, "url", None)
        if isinstance(url, str) and url:
            return urlsplit(url).hostname or ""
        host = getattr(getattr(link, "pool", None), "host", None) or getattr(link, "host", None)
        if isinstance(host, str) and host:
            return host
    return ""


def connection_cause(error: BaseException) -> str:
    """A failed connection in a few words, e.g. ``DNS lookup failed for www.pychess.org``, ``connection
    refused by 127.0.0.1``, ``TLS error: certificate verify failed``, ``timed out``; else the innermost
    error's class and text."""
    chain = _chain(error)
    host = _host(error)
    at = f" {host}" if host else ""
    for link in chain:
        name = type(link).__name__
        if isinstance(link, socket.gaierror) or name == "NameResolutionError":
            return f"DNS lookup failed for{at or ' the host'} (no such host, or no network)"
    for link in chain:
        if isinstance(link, ConnectionRefusedError) or "Connection refused" in str(link):
            return f"connection refused by{at or ' the server'} (nothing listens on that port)"
    tls = [link for link in chain if isinstance(link, (ssl.SSLError, requests.exceptions.SSLError))]
    if tls:
        inner = next((link for link in tls if isinstance(link, ssl.SSLError)), tls[-1])
        detail = getattr(inner, "verify_message", None) or getattr(inner, "reason", None)
        return f"TLS error with{at or ' the server'}" + (f": {detail}" if isinstance(detail, str) else "")
    for link in chain:
        if isinstance(link, (TimeoutError, socket.timeout, requests.exceptions.Timeout)) or "timed out" in str(link):
            return f"timed out talking to{at or ' the server'}"
    innermost = chain[-1]
    text = " ".join(str(innermost).split())
    return f"{type(innermost).__name__}: {text[:200]}" if text else type(innermost).__name__


def rejected_token_advice(url: str, dialect: Dialect | None, status: int | None) -> str:
    """The line for a token the server refused: the status, the dialect (from the refusal when the server
    has not said: pychess answers 403, Lichess 401) and where a good token comes from."""
    dialect = dialect or dialect_for_rejection(status or 0)
    return (f"the server rejected the token (HTTP {status}, {dialect} dialect); {dialect.token_help(url)}; "
            f"then set {TOKEN_ENV}")


def dialect_for_url(url: str) -> Dialect:
    """The dialect a server most likely speaks, from its address alone (for advice before the server has
    answered): pychess for a pychess host, Lichess for everything else."""
    return PYCHESS if "pychess" in (urlsplit(url).hostname or "") else LICHESS


__all__ = ["SERVER_URLS", "SERVER_VARIANTS", "connection_cause", "dialect_for_url", "rejected_token_advice"]

"""The status page, served by the bot itself (``status.listen``, off by default; docs/status.md): the standard
library only, read-only, never the token or a config secret.

Routes: ``/`` (the page, :mod:`~bot.app.status.page`), ``/api/status`` (JSON: connection, server and account,
engine, health, slots, queue, last errors, the running games with their boards, the finished ones and the
totals; :mod:`~bot.app.status.snapshot`), ``/api/finished`` (the finished games with their eval graphs and
final positions; :mod:`~bot.app.status.history`), ``/games/<id>.pgn`` (a PGN to download) and ``/metrics``
(Prometheus text from ``prometheus_client``, :mod:`bot.metrics`). The server (:mod:`~bot.app.status.http`) is
one event loop in its own thread, with a connection cap, deadlines and a size limit on requests: no client can
stall the games or take the bot down.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from bot import metrics
from bot.lobby.loop import Lobby

from .http import BoundedHTTPServer, Request, Response, raise_open_file_limit, text
from .render import render_page
from .snapshot import BotFacts, RecentErrors, StatusSource

__all__ = ["BotFacts", "StatusPage", "start_status_page"]

log = logging.getLogger(__name__)


def _json(data: Any) -> Response:
    return Response(200, json.dumps(data, separators=(",", ":")).encode(), "application/json")


class StatusPage:
    """The page's routes over a :class:`StatusSource`, on a :class:`BoundedHTTPServer` once started."""

    def __init__(self, source: StatusSource) -> None:
        self.source = source
        lobby = source.lobby
        self.metrics = metrics.bot_registry(lambda: len(lobby.workers), lobby.challenges_waiting)
        self.server: BoundedHTTPServer | None = None

    def handle(self, request: Request) -> Response:
        path = request.path
        if path in ("/", "/index.html"):
            return Response(200, render_page(self.source.status(), self.source.finished()).encode(),
                            "text/html; charset=utf-8")
        if path == "/api/status":
            return _json(self.source.status())
        if path == "/api/finished":
            return _json(self.source.finished())
        if path == "/metrics":
            return Response(200, metrics.render(self.metrics), metrics.CONTENT_TYPE)
        if path.startswith("/games/") and path.count("/") == 2:
            pgn = self.source.history.pgn_file(path[len("/games/"):])
            if pgn is not None:
                return Response(200, pgn.read_bytes(), "application/x-chess-pgn; charset=utf-8",
                                {"Content-Disposition": f'attachment; filename="{pgn.name}"'})
        return text(404, "not found")

    def start(self, address: tuple[str, int]) -> StatusPage:
        self.server = BoundedHTTPServer(address, self.handle).start()
        return self

    def close(self) -> None:
        if self.server is not None:
            self.server.close()


def public_url(url: str) -> str:
    """The server's address without any ``user:password@`` in it."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def start_status_page(lobby: Lobby, *, engine: str, build: str, token: str) -> tuple[StatusPage, RecentErrors]:
    """Serve the page for ``lobby`` on ``status.listen``; the caller closes it (and removes the error handler
    from the ``bot`` logger). Raises OSError when the address cannot be had."""
    address = lobby.settings.status.address
    assert address is not None
    open_files = raise_open_file_limit()
    errors = RecentErrors((token,))
    facts = BotFacts(public_url(lobby.settings.server.url), str(lobby.server.dialect), lobby.account.username,
                     engine, build, time.time())
    page = StatusPage(StatusSource(lobby, facts, errors)).start(address)
    logging.getLogger("bot").addHandler(errors)
    host, port = page.server.address if page.server else address
    log.info("status page on http://%s:%d/", f"[{host}]" if ":" in host else host, port)
    log.debug("status page: up to %d connections (open-file limit %d)",
              page.server.max_connections if page.server else 0, open_files)
    return page, errors

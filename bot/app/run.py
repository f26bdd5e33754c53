"""The bot assembled: log in, then run the lobby until it stops. Used by the command line (:mod:`bot.app.cli`)
and the sandbox (:mod:`bot.app.sandbox`), which both import it (neither imports the other).

Exit codes of :func:`run_bot`: 0 after a normal stop (signal, ``max_games``), 1 when the server refuses the
bot for good, 2 for a token or PGN-folder problem (one line on stderr, never a traceback).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from bot.app.logsetup import configuration_block, configuration_summary, startup_block
from bot.app.status import start_status_page
from bot.config import PRODUCTION_TIMING, EngineSettings, Settings, Timing
from bot.engines import UciEngine, XBoardEngine
from bot.engines.check import EngineCheck, EngineCheckFailed, check_engine
from bot.engines.homemade import homemade_factory
from bot.game import Engine
from bot.game.books import check_books
from bot.lobby.loop import Lobby
from bot.wire.advice import rejected_token_advice
from bot.wire.errors import ServerError, ServerStopped, TokenRejected
from bot.wire.server import Server
from bot.wire.tournaments import tournaments_unsupported
from engine.book import BookError

log = logging.getLogger("bot")


def default_engine_factory(settings: Settings) -> Callable[[str], Engine]:
    """Engines for the games: the UCI client, the XBoard client with ``engine.protocol: xboard``, or a Python
    class with ``engine.protocol: homemade``."""
    if settings.engine.protocol == "homemade":
        return homemade_factory(settings.engine.command)
    client = XBoardEngine if settings.engine.protocol == "xboard" else UciEngine
    if client is XBoardEngine and settings.engine.ponder:
        log.warning("engine.ponder is ignored with engine.protocol: xboard (pondering is UCI-only)")

    def make(label: str) -> Engine:
        return client(settings.engine.command_line(), settings.engine.options, label=label,
                      startup_timeout_s=settings.engine.startup_timeout_s, ponder=settings.engine.ponder,
                      echo=settings.engine.debug)

    return make


class ShutdownSignals:
    """SIGTERM/SIGINT from the first instant of the process (in a container the bot is PID 1, and a PID 1
    without a handler ignores SIGTERM, so ``docker stop`` would wait its whole timeout).

    Before the lobby runs, a signal ends the start-up at once (logging in, start-up retries); afterwards it
    asks the lobby for a graceful stop (a second one aborts the games)."""

    def __init__(self) -> None:
        self.requested = threading.Event()
        self.signum: int | None = None  # the first signal received
        self._lock = threading.Lock()
        self._action: Callable[[], None] | None = None
        self._starting = True

    def handle(self, signum: int, frame: FrameType | None) -> None:
        log.info("received %s", signal.Signals(signum).name)
        if self.signum is None:
            self.signum = signum
        self.requested.set()
        with self._lock:
            action, starting = self._action, self._starting
        if action is not None:
            action()
        if starting and threading.current_thread() is threading.main_thread():
            raise StopDuringStartup()

    def started(self, action: Callable[[], None]) -> None:
        """The lobby runs: from now on a signal calls ``action`` (a graceful stop); call it at once if a
        signal already came."""
        with self._lock:
            self._action, self._starting = action, False
        if self.requested.is_set():
            action()

    def during_startup(self, action: Callable[[], None]) -> None:
        """What a signal during start-up does besides ending it (closing the server wakes its waits)."""
        with self._lock:
            self._action = action

    def install(self) -> Callable[[], None]:
        """Install the handlers (main thread only; elsewhere nothing happens). Returns the undo."""
        if threading.current_thread() is not threading.main_thread():
            return lambda: None
        previous = {signum: signal.signal(signum, self.handle) for signum in (signal.SIGTERM, signal.SIGINT)}

        def restore() -> None:
            for signum, handler in previous.items():
                signal.signal(signum, handler)

        return restore


class StopDuringStartup(BaseException):
    """Raised by the signal handler to leave a blocking start-up call (no game is running yet)."""


def signal_name(stop: ShutdownSignals | None) -> str:
    """``SIGTERM``, ``SIGINT``: the signal ``stop`` received (``SIGINT`` for a KeyboardInterrupt)."""
    return signal.Signals(stop.signum if stop is not None and stop.signum is not None else signal.SIGINT).name


def interrupted_exit_code(stop: ShutdownSignals | None) -> int:
    """What a shell reports for a program killed by the signal ``stop`` received: 128 + its number (130
    after Ctrl-C, 143 after ``SIGTERM``); 130 for a KeyboardInterrupt without a handler."""
    return 128 + (stop.signum if stop is not None and stop.signum is not None else signal.SIGINT)


def check_pgn_directory(directory: str | None) -> str | None:
    """None when PGNs can be written to ``directory`` (created if missing), else the reason they cannot.
    Checked before logging in: a bot that cannot keep its games must not play them."""
    if not directory:
        return None
    folder = Path(directory)
    probe = folder / f".schess-bot-write-test-{os.getpid()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe.write_text("ok", encoding="utf-8")
        probe.unlink()
    except OSError as error:
        return f"{error.strerror or error} ({error.filename or directory})"
    return None


def check_configured_engine(settings: Settings) -> tuple[Settings, EngineCheck]:
    """Run the start-up engine check (:mod:`bot.engines.check`) on the configured engine; returns the
    settings with unplayable variants dropped (``engine.drop_unplayable_variants``) and what was found.
    Raises :class:`EngineCheckFailed`."""
    engine = settings.engine
    found = check_engine(engine.command, engine.protocol, default_engine_factory(settings),
                         settings.challenge.variants, drop_unplayable=engine.drop_unplayable_variants,
                         startup_timeout_s=engine.startup_timeout_s, interpreter=engine.interpreter,
                         options=engine.options, default_options=EngineSettings().options)
    if found.dropped:
        accepted = tuple(name for name in settings.challenge.variants if name in found.accepted)
        challenge = dataclasses.replace(settings.challenge, variants=accepted)
        settings = dataclasses.replace(settings, challenge=challenge)
    return settings, found


def run_bot(settings: Settings, token: str, *, max_games: int | None = None, upgrade: bool = False,
            engine_factory: Callable[[str], Engine] | None = None,
            on_lobby: Callable[[Lobby], None] | None = None, stop: ShutdownSignals | None = None,
            engine_check: EngineCheck | None = None, timing: Timing = PRODUCTION_TIMING) -> int:
    """Log in and play. ``stop``: the process's signal handling (``main`` installs it first thing).
    The configured engine is checked first (exit 2 when it cannot play), unless ``engine_check`` says it
    was already checked or ``engine_factory`` replaces it. For tests: ``on_lobby`` receives the lobby (to
    call ``request_stop``), ``timing`` shortens the bot's fixed waits (:class:`~bot.config.Timing`)."""
    stop = stop or ShutdownSignals()
    problem = check_pgn_directory(settings.pgn_directory)
    if problem is not None:
        print(f"error: pgn_directory {settings.pgn_directory!r} is not writable: {problem}; every game's "
              "PGN would be lost (in Docker, use a named volume or a folder owned by uid 10001)", file=sys.stderr)
        return 2
    try:
        check_books(settings.engine.polyglot)
    except BookError as error:
        print(f"error: engine.polyglot: {error}", file=sys.stderr)
        return 2
    checked_here = engine_check is None and engine_factory is None
    if checked_here:
        try:
            settings, engine_check = check_configured_engine(settings)
        except EngineCheckFailed as error:
            print(str(error), file=sys.stderr)
            return 2
        except StopDuringStartup:
            print("stopped before the bot started playing", file=sys.stderr)
            return 0
    # the version first, once the checks that stop a start with one line have passed
    log.info("%s", startup_block())
    if checked_here and engine_check is not None:
        log.info("engine check: %s (%s, %s) plays %s", engine_check.id_name, settings.engine.command,
                 settings.engine.protocol, ", ".join(engine_check.playable))
    server = Server(settings.server, token, variants=settings.challenge.variants, timing=timing)
    stop.during_startup(server.close)
    try:
        account = server.fetch_account(retry_for_s=timing.startup_retry_s)
        if upgrade and not account.is_bot:
            server.upgrade_to_bot()
            log.info("upgraded %s to a BOT account", account.username)
            account = dataclasses.replace(account, title="BOT")
    except (StopDuringStartup, ServerStopped):
        print("stopped before the bot started playing", file=sys.stderr)
        server.close()
        return 0
    except TokenRejected as error:
        print(f"error: {rejected_token_advice(settings.server.url, server.dialect, error.status)}", file=sys.stderr)
        return 2
    except ServerError as error:
        action = "upgrade the account" if server.account is not None else f"reach {settings.server.url}"
        print(f"error: could not {action}: {error}", file=sys.stderr)
        return 1
    missing = (server.dialect.variants_missing(settings.challenge.variants + settings.matchmaking.variants)
               if server.dialect is not None else [])
    if missing:
        print(f"error: challenge.variants or matchmaking.variants lists {', '.join(dict.fromkeys(missing))}, which "
              f"{settings.server.url} ({server.dialect} dialect) has no games in; remove it from the config",
              file=sys.stderr)
        server.close()
        return 2
    unsupported = (tournaments_unsupported(server.dialect, settings.server.url)
                   if settings.tournaments and server.dialect is not None else None)
    if unsupported is not None:
        print(f"error: {unsupported}", file=sys.stderr)
        server.close()
        return 2
    log.info("logged in to %s as %s (%s dialect)", settings.server.url, account.username, server.dialect)
    log.info("%s", configuration_summary(settings))
    log.debug("%s", configuration_block(settings))
    if not account.is_bot:
        log.warning("%s is not a BOT account (title %r); run with --upgrade to make it one",
                    account.username, account.title)
    lobby = Lobby(server, settings, account, engine_factory or default_engine_factory(settings),
                  max_games=max_games, timing=timing)
    page = None
    if settings.status.listen is not None:
        try:
            page = start_status_page(lobby, engine=engine_check.id_name if engine_check else "supplied by the caller",
                                     build=engine_build(settings), token=token)
        except OSError as error:
            print(f"error: status.listen {settings.status.listen!r}: {error.strerror or error}", file=sys.stderr)
            server.close()
            return 2
    if on_lobby is not None:
        on_lobby(lobby)
    stop.started(lobby.request_stop)
    try:
        code = lobby.run()
    except TokenRejected:
        code = 2
    finally:
        if page is not None:
            logging.getLogger("bot").removeHandler(page[1])
            page[0].close()
        server.close()
    if server.token_refused is not None:  # revoked while the bot ran: the same line, and fix, as at start-up
        print(f"error: {rejected_token_advice(settings.server.url, server.dialect, server.token_refused)}",
              file=sys.stderr)
    return code


def engine_build(settings: Settings) -> str:
    """The build of the bundled engine (pure Python or compiled) when the bot plays with it; else the protocol."""
    if settings.engine.command == "builtin" and settings.engine.protocol == "uci":
        from engine.buildinfo import build_name

        return build_name()
    return f"{settings.engine.protocol} engine"

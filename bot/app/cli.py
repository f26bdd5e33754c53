"""``schess-bot`` / ``python -m bot``: load the config, log in, run the lobby until stopped.

Exit codes: 0 after a normal stop (signal, ``--games N``), 1 when the server refuses the bot for good,
2 for a configuration or token problem (one line on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
from collections.abc import Sequence

from bot.app.logsetup import LogFileError, apply_logging, configure_logging, remove_handlers
from bot.app.run import StopDuringStartup, StopSignal, run_bot
from bot.config import ConfigError, TokenError, load_settings, resolve_token

log = logging.getLogger("bot")


class RedactingFilter(logging.Filter):
    """Replaces the token wherever it appears in a log record (a safety net: the code never logs it)."""

    def __init__(self, secret: str) -> None:
        super().__init__()
        self.secret = secret

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secret:
            return True
        message = record.getMessage()
        if self.secret in message:
            record.msg = message.replace(self.secret, "[redacted]")
            record.args = None
        if record.exc_info and record.exc_info[1] is not None and self.secret in str(record.exc_info[1]):
            record.exc_text = None
            record.exc_info = None
            record.msg = str(record.msg) + " [exception details redacted]"
        return True


def install_redaction(secret: str) -> RedactingFilter:
    """Attach the filter to every handler of the root logger (handlers see records of all loggers) and of the
    engine's own logger (``logging.engine_file``)."""
    redactor = RedactingFilter(secret)
    for handler in [*logging.getLogger().handlers, *logging.getLogger("bot.engine.io").handlers]:
        handler.addFilter(redactor)
    return redactor


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="schess-bot",
                                     description="Play S-chess (and chess) on pychess.org or Lichess.")
    parser.add_argument("--config", default="config.yml",
                        help="YAML configuration file (default: %(default)s)")
    parser.add_argument("--log-level", default=None, choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                        help="log verbosity on stderr (default: logging.level of the config, INFO)")
    parser.add_argument("--games", type=int, default=None, metavar="N",
                        help="quit after N finished games")
    parser.add_argument("--upgrade", action="store_true", help="upgrade the account to a BOT account first")
    parser.add_argument("--heartbeat-file", default=None, metavar="PATH",
                        help="file touched on every event-stream line (overrides heartbeat_file; "
                             "the Docker HEALTHCHECK reads it)")
    parser.add_argument("--pgn-directory", default=None, metavar="DIR",
                        help="folder for the PGN of every finished game (overrides pgn_directory)")
    parser.add_argument("--sandbox", action="store_true",
                        help="play one game against the engine on a local loopback server "
                             "(no account needed)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``schess-bot`` and ``python -m bot``; returns the exit code."""
    stop = StopSignal()
    restore = stop.install()  # first thing: a stop request must work during start-up too
    try:
        return _main(argv, stop)
    except StopDuringStartup:
        print("stopped before the bot started playing", file=sys.stderr)
        return 0
    finally:
        restore()


def _main(argv: Sequence[str] | None, stop: StopSignal) -> int:
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    configure_logging(args.log_level or "INFO")
    if args.sandbox:
        from bot.app.sandbox import run_sandbox  # imported only when asked for: it brings the loopback server

        return int(run_sandbox(args))
    if args.games is not None and args.games < 1:
        print("error: --games must be a positive number", file=sys.stderr)
        return 2
    try:
        settings = load_settings(args.config)
        if args.heartbeat_file:
            settings = dataclasses.replace(settings, heartbeat_file=args.heartbeat_file)
        if args.pgn_directory:
            settings = dataclasses.replace(settings, pgn_directory=args.pgn_directory)
        token = resolve_token(settings)
    except ConfigError as error:
        print(str(error), file=sys.stderr)
        return 2
    except TokenError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        log_handlers = apply_logging(settings.logging, args.log_level)
    except LogFileError as error:
        print(str(error), file=sys.stderr)
        return 2
    redactor = install_redaction(token)
    try:
        return run_bot(settings, token, max_games=args.games, upgrade=args.upgrade, stop=stop)
    finally:
        for handler in [*logging.getLogger().handlers, *logging.getLogger("bot.engine.io").handlers]:
            handler.removeFilter(redactor)
        remove_handlers(log_handlers)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

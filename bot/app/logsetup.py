"""Where the bot's log goes (stderr, a size-rotated file, the engine's own lines to a file of their own) and
the start-up records: the versions first, then one line of configuration at INFO and the whole effective
configuration at DEBUG (never the token)."""

from __future__ import annotations

import dataclasses
import logging
import logging.handlers
import platform
import sys
from pathlib import Path
from typing import Any

import yaml

from bot import __version__
from bot.config import LoggingSettings, Settings
from engine.buildinfo import build_name

LOG_FORMAT = "%(asctime)s %(levelname)-7s %(message)s"
FILE_FORMAT = "%(asctime)s %(levelname)-7s %(name)s %(thread_label)s%(message)s"
#: the logger of every line to and from an engine (``engine.debug: true``; :mod:`bot.engines.process`)
ENGINE_IO_LOGGER = "bot.engine.io"


class FileFormatter(logging.Formatter):
    """The log file's format: the thread's name before each message, except where the message already starts
    with it (a game worker's thread is called ``game abc123``, and its lines say ``game abc123: ...``; a game
    stream's reader is ``game abc123: game stream``, and its lines say ``game abc123: game stream lost ...``)."""

    def __init__(self) -> None:
        super().__init__(FILE_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        thread = record.threadName or ""
        message = record.getMessage()
        named = message.startswith(thread + ":") or message.startswith(thread + " ")
        record.thread_label = "" if not thread or named else thread + ": "
        return super().format(record)


class LogFileError(OSError):
    """A log file cannot be opened; ``str()`` is the one line shown to the operator."""


def _ours(handler: logging.Handler) -> bool:
    return bool(getattr(handler, "schess_console", False))


def configure_logging(level: str) -> None:
    """stderr at ``level`` (before the configuration is read; :func:`apply_logging` refines it)."""
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(LOG_FORMAT))
        handler.schess_console = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    root.setLevel(level)
    _quiet_urllib3(logging.getLevelName(level))


def sandbox_console_level(requested: str | None) -> str:
    """The sandbox's terminal shows warnings only (its own lines say what happens), unless ``--log-level
    DEBUG`` asks for the bot's lines too; from the first instant, so a signal during its checks is quiet."""
    return "DEBUG" if requested == "DEBUG" else "WARNING"


def _quiet_urllib3(level: int) -> None:
    # urllib3 logs every connection at DEBUG; keep it quieter unless asked
    logging.getLogger("urllib3").setLevel(max(level, logging.INFO))


def apply_logging(settings: LoggingSettings, console_level: str | None = None) -> list[logging.Handler]:
    """The ``logging`` section: the stderr level (``console_level``, from ``--log-level``, wins), the
    rotating log file, the engine's own file. Returns the handlers added (to remove and close at the end).
    Raises :class:`LogFileError` when a file cannot be opened."""
    root = logging.getLogger()
    console = logging.getLevelName(console_level or settings.level)
    for handler in root.handlers:
        if _ours(handler):
            handler.setLevel(console)
    levels = [console]
    added: list[logging.Handler] = []
    if settings.file:
        handler = _rotating(settings.file, settings, "logging.file")
        handler.setLevel(settings.file_level)
        root.addHandler(handler)
        added.append(handler)
        levels.append(logging.getLevelName(settings.file_level))
    root.setLevel(min(levels))
    _quiet_urllib3(min(levels))
    engine_io = logging.getLogger(ENGINE_IO_LOGGER)
    if settings.engine_file:
        handler = _rotating(settings.engine_file, settings, "logging.engine_file")
        engine_io.addHandler(handler)
        engine_io.propagate = False
        engine_io.setLevel(logging.INFO)
        added.append(handler)
    return added


def _rotating(path: str, settings: LoggingSettings, key: str) -> logging.Handler:
    """The file's handler; a missing folder is created, as ``pgn_directory`` is."""
    try:
        Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(path, maxBytes=settings.max_bytes,
                                                       backupCount=settings.backup_count, encoding="utf-8")
    except OSError as error:
        raise LogFileError(f"error: {key} {path!r} cannot be opened: {error.strerror or error} "
                           f"({error.filename or path})") from None
    handler.setFormatter(FileFormatter())
    return handler


def remove_handlers(handlers: list[logging.Handler]) -> None:
    """Undo :func:`apply_logging` (tests run the bot many times in one process)."""
    engine_io = logging.getLogger(ENGINE_IO_LOGGER)
    for handler in handlers:
        logging.getLogger().removeHandler(handler)
        if handler in engine_io.handlers:
            engine_io.removeHandler(handler)
            engine_io.propagate = True
        handler.close()


def plain(value: Any) -> Any:
    """Settings as plain YAML data (tuples as lists)."""
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def version_text() -> str:
    """``--version``: the bot's version, the engine build and the Python running them."""
    return (f"schess-bot {__version__} (engine: {build_name()}; python: {platform.python_implementation()} "
            f"{platform.python_version()})")


def startup_block() -> str:
    """The first record of a run, for bug reports: the bot's version, the Python and the OS."""
    return "\n".join([
        f"schess-bot {__version__} starting",
        f"  python: {platform.python_implementation()} {platform.python_version()} ({sys.executable})",
        f"  os: {platform.platform()}",
    ])


def flat_settings(value: Any, prefix: str = "") -> dict[str, Any]:
    """Settings (or a section) as ``{"server.url": ..., "engine.limits.depth": ...}``; lists are values."""
    if not isinstance(value, dict):
        return {prefix: value}
    flat: dict[str, Any] = {}
    for key, item in value.items():
        flat.update(flat_settings(item, f"{prefix}.{key}" if prefix else str(key)))
    return flat


#: how many changed keys the summary names before it says "and N more"
SUMMARY_KEYS = 8


def changed_keys(settings: Settings) -> list[str]:
    """The keys whose effective value differs from the default, in the configuration's order."""
    defaults = flat_settings(plain(dataclasses.asdict(Settings())))
    return [key for key, value in flat_settings(plain(dataclasses.asdict(settings))).items()
            if defaults.get(key, object()) != value]


def configuration_summary(settings: Settings) -> str:
    """The configuration in one line at INFO: what the bot accepts, matchmaking, and which keys differ from
    the defaults (names only); the whole of it is :func:`configuration_block`, logged at DEBUG."""
    challenge = settings.challenge
    changed = changed_keys(settings)
    named = ", ".join(changed[:SUMMARY_KEYS]) + (f" and {len(changed) - SUMMARY_KEYS} more"
                                                  if len(changed) > SUMMARY_KEYS else "")
    plural = "key differs" if len(changed) == 1 else "keys differ"
    games = f"{challenge.concurrency} game{'s' if challenge.concurrency != 1 else ''} at a time"
    return (f"configuration: accepts {', '.join(challenge.variants)}, {games}; matchmaking "
            f"{'on' if settings.matchmaking.enabled else 'off'}; "
            f"{f'{len(changed)} {plural} from the defaults ({named})' if changed else 'every key at its default'}"
            "; the effective configuration is logged at DEBUG")


def configuration_block(settings: Settings) -> str:
    """The effective configuration as YAML, for the log at DEBUG (the token is never in :class:`Settings`)."""
    data = plain(dataclasses.asdict(settings))
    for entry in data["tournaments"]:  # an entry code is a secret, as the token is
        if entry.get("password"):
            entry["password"] = "[hidden]"
    configuration = yaml.safe_dump(data, sort_keys=False, width=110)
    return "\n".join(["effective configuration:", *("  " + line for line in configuration.rstrip().splitlines())])

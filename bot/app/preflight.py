"""``schess-bot --check``: every check a real run makes before it plays, without playing, one line each.

The checks, in order: the config (read exactly as a run reads it, ``--pgn-directory`` and ``--heartbeat-file``
applied), the folders the bot writes to (``pgn_directory``, ``logging.file``, ``logging.engine_file``,
``heartbeat_file``: each must exist or be creatable, and be writable), the opening books, the engine (started
and asked what it plays and which options it has: ``challenge.variants`` and ``engine.options`` are checked
against that), the status page's address (``status.listen``, when set: can it be bound now), the token (present
in ``SCHESS_BOT_TOKEN`` or ``token_file``) and the account
(``GET /api/account`` once: is the token accepted, is the server reachable and if not why). Each prints as
``OK   subject: what was found``, ``WARN subject: what was found, but what the run warns about; fix ...``,
``FAIL subject: what is wrong; fix: ...`` or ``SKIP subject: not checked: why``; the exit code is 0 when no
check failed and 2 otherwise. The sandbox (:mod:`bot.app.sandbox`) runs the same checks but the last three
(it serves no page).
Nothing is created or changed: a folder that does not exist yet is reported as "will be created".
"""

from __future__ import annotations

import dataclasses
import os
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot import TOKEN_ENV
from bot.app.run import check_configured_engine
from bot.config import (
    ConfigError,
    Settings,
    TokenError,
    load_settings,
    parse_tournament_entry,
    resolve_token,
    settings_from_dict,
    token_file_warning,
)
from bot.engines.check import EngineCheck, EngineCheckFailed
from bot.game.books import check_books
from bot.wire.advice import connection_cause, dialect_for_url, rejected_token_advice
from bot.wire.server import Server, ServerError, TokenRejected
from bot.wire.tournaments import tournaments_unsupported
from engine.book import BookError

#: the longest the account check waits for the server (the configured timeout, if it is shorter)
ACCOUNT_TIMEOUT_S = 10.0


#: how a check came out, as its line starts: passed, passed with something to fix (the run warns too),
#: failed (exit 2), or not made (the line says why)
OK, WARN, FAIL, SKIP = "OK", "WARN", "FAIL", "SKIP"


@dataclass(frozen=True)
class Finding:
    """One check's outcome (``kind``: :data:`OK`, :data:`WARN`, :data:`FAIL` or :data:`SKIP`); :meth:`line`
    is what is printed."""

    ok: bool
    subject: str
    text: str
    kind: str = ""

    @property
    def outcome(self) -> str:
        return self.kind or (OK if self.ok else FAIL)

    def line(self) -> str:
        return f"{self.outcome:<4} {self.subject}: {self.text}"


@dataclass
class Preflight:
    """Everything the checks found: the settings (None when the config could not be read), one
    :class:`Finding` per check, and the engine check (to hand to :func:`bot.app.run.run_bot`)."""

    settings: Settings | None = None
    findings: list[Finding] = field(default_factory=list)
    engine_check: EngineCheck | None = None

    @property
    def ok(self) -> bool:
        return all(finding.ok for finding in self.findings)

    def add(self, ok: bool, subject: str, text: str) -> None:
        self.findings.append(Finding(ok, subject, text))

    def warn(self, subject: str, text: str) -> None:
        """A check that passed with something the run warns about too (exit 0)."""
        self.findings.append(Finding(True, subject, text, WARN))

    def skip(self, subject: str, why: str) -> None:
        """A check not made, and why (it does not count as failed: the failure that stopped it does)."""
        self.findings.append(Finding(True, subject, f"not checked: {why}", SKIP))

    def summary(self) -> str:
        """The last line: ``check: all passed (exit 0)``, ``check: 1 failed, 1 skipped (exit 2)``."""
        counts = {kind: sum(finding.outcome == kind for finding in self.findings) for kind in (FAIL, WARN, SKIP)}
        words = [f"{counts[kind]} {word}" for kind, word in ((FAIL, "failed"), (WARN, "with a warning"),
                                                             (SKIP, "skipped")) if counts[kind]]
        if not counts[FAIL]:
            words.insert(0, "all passed")
        return f"check: {', '.join(words)} (exit {0 if self.ok else 2})"


def load_run_settings(config_path: str | None, *, pgn_directory: str | None = None,
                      heartbeat_file: str | None = None, tournaments: Sequence[str] = ()) -> Settings:
    """The settings exactly as a real run uses them: the file (None: no file, every key at its default; the
    sandbox's case), then the command line's overrides (``--tournament`` adds to ``tournaments``). Raises
    :class:`ConfigError`."""
    settings = load_settings(config_path) if config_path is not None else settings_from_dict({})
    if tournaments:
        problems: list[str] = []
        added = [parse_tournament_entry(text, "--tournament", problems) for text in tournaments]
        if problems:
            raise ConfigError(*(problem.replace("--tournament.id", "--tournament") for problem in problems))
        known = {entry.id for entry in settings.tournaments}
        settings = dataclasses.replace(settings, tournaments=settings.tournaments + tuple(
            entry for entry in added if entry.id not in known))
    if heartbeat_file:
        settings = dataclasses.replace(settings, heartbeat_file=heartbeat_file)
    if pgn_directory:
        settings = dataclasses.replace(settings, pgn_directory=pgn_directory)
    return settings


def folder_problem(path: Path) -> str | None:
    """Why files cannot be written in the folder ``path`` (None when they can, or it can be created), without
    creating anything."""
    existing = path
    while not existing.exists():
        if existing.parent == existing:
            break
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"{existing} is not writable by this user (uid {os.getuid()})" if hasattr(os, "getuid") else \
            f"{existing} is not writable"
    return None


def check_folders(settings: Settings, report: Preflight) -> None:
    """``pgn_directory`` and the parents of the log and heartbeat files."""
    places: list[tuple[str, str | None, bool]] = [
        ("pgn_directory", settings.pgn_directory, True),
        ("logging.file", settings.logging.file, False),
        ("logging.engine_file", settings.logging.engine_file, False),
        ("heartbeat_file", settings.heartbeat_file, False),
    ]
    for key, value, is_folder in places:
        if not value:
            if key == "pgn_directory":
                report.add(True, key, "null: no PGN is kept")
            continue
        target = Path(value).expanduser()
        folder = target if is_folder else target.parent
        problem = folder_problem(folder)
        if problem is None and not is_folder and target.exists() and not os.access(target, os.W_OK):
            problem = f"{target} is not writable"
        if problem is not None:
            report.add(False, key, f"{value!r} cannot be written: {problem}; fix: choose a folder this user may "
                                   "write to (in Docker: a named volume or a folder owned by uid 10001)")
        else:
            state = "exists" if folder.is_dir() else "will be created"
            report.add(True, key, f"{value} (folder {folder} {state}, writable)")


def check_engine_setup(settings: Settings, report: Preflight) -> Settings:
    """The books and the engine; returns the settings with unplayable variants dropped (if asked for)."""
    try:
        check_books(settings.engine.polyglot)
        if settings.engine.polyglot.enabled:
            report.add(True, "engine.polyglot", "every book opens")
    except BookError as error:
        report.add(False, "engine.polyglot", f"{error}; fix: name an existing book file or set enabled: false")
    try:
        settings, found = check_configured_engine(settings)
    except EngineCheckFailed as error:
        for key, text in error.problems or (("engine", str(error).removeprefix("error: ")),):
            report.add(False, key, text)
        return settings
    report.engine_check = found
    engine = settings.engine
    report.add(True, "engine", f"{found.id_name} ({engine.command}, {engine.protocol}) plays "
                               f"{', '.join(found.playable)}")
    if engine.options:
        report.add(True, "engine.options", ", ".join(f"{name}={value}" for name, value in engine.options.items())
                   + (" (a homemade engine takes none; ignored)" if engine.protocol == "homemade" else ""))
    report.add(True, "challenge.variants", ", ".join(settings.challenge.variants)
               + (f" (dropped: {', '.join(found.dropped)})" if found.dropped else ""))
    return settings


def check_status_listen(settings: Settings, report: Preflight) -> None:
    """``status.listen``: the address can be bound now (the real run exits 2 when it cannot, after logging in).
    Bound and released at once, as the page's server binds it (``SO_REUSEADDR``)."""
    address = settings.status.address
    if address is None or settings.status.listen is None:
        return
    listen = settings.status.listen.strip()
    family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except OSError as error:
        report.add(False, "status.listen", f"{listen} cannot be had: {error.strerror or error}; fix: choose another "
                                           "HOST:PORT, or stop what listens there (another schess-bot?)")
        return
    report.add(True, "status.listen", f"{listen} is free (the page will be http://{listen}/)")


def check_token_and_account(settings: Settings, report: Preflight, environ: Mapping[str, str] | None) -> None:
    """The token's presence, then one ``GET /api/account`` with it."""
    url = settings.server.url
    try:
        token = resolve_token(settings, environ)
    except TokenError as error:
        report.add(False, "token", f"{error}; fix: {dialect_for_url(url).token_help(url)}")
        report.skip("account", "it needs a token (see the token line)")
        return
    from_environment = bool((environ if environ is not None else os.environ).get(TOKEN_ENV, "").strip())
    source = TOKEN_ENV if from_environment else f"token_file {settings.token_file}"
    unsafe = None if from_environment or not settings.token_file else token_file_warning(settings.token_file)
    if unsafe is None:
        report.add(True, "token", f"present ({source}; not shown)")
    else:
        report.warn("token", f"present ({source}; not shown), but {unsafe}")
    server_settings = dataclasses.replace(settings.server, request_timeout_s=min(
        settings.server.request_timeout_s, ACCOUNT_TIMEOUT_S))
    server = Server(server_settings, token, variants=settings.challenge.variants)
    try:
        account = server.fetch_account(attempts=1)
    except TokenRejected as error:
        report.add(False, "account", rejected_token_advice(url, server.dialect, error.status))
        return
    except ServerError as error:
        if error.status is None:
            report.add(False, "account", f"{url} is unreachable: {reason_of(error)}; fix: check the network "
                                         "and server.url (the bot would retry for 5 minutes, then exit 1)")
        else:
            report.add(False, "account", f"{url} answered {error}; fix: check server.url, or try again later")
        return
    finally:
        server.close()
    bot_note = "a BOT account" if account.is_bot else "not a BOT account yet: run once with --upgrade"
    report.add(True, "account", f"{account.username} on {url} ({server.dialect} dialect, {bot_note})")
    if settings.tournaments and server.dialect is not None:
        unsupported = tournaments_unsupported(server.dialect, url)
        if unsupported is not None:
            report.add(False, "tournaments", unsupported.removeprefix("tournaments: "))
        else:
            report.add(True, "tournaments", f"{', '.join(entry.id for entry in settings.tournaments)} (joined at "
                                            "start; whether each lets the bot in is said then)")


def reason_of(error: ServerError) -> str:
    """The cause inside a :class:`ServerError` message (``account: connection error (CAUSE), gave up ...``)."""
    text = str(error)
    if "connection error (" in text:
        return text.split("connection error (", 1)[1].rsplit("), gave up", 1)[0]
    return connection_cause(error)


def run_checks(config_path: str | None, *, pgn_directory: str | None = None, heartbeat_file: str | None = None,
               account: bool = True, environ: Mapping[str, str] | None = None,
               tournaments: Sequence[str] = ()) -> Preflight:
    """Every check, in order; ``account=False`` leaves out the status page's address, the token and the
    account (the sandbox needs none of them). A config that cannot be read gives the only findings, one per
    problem in it (nothing else can be checked without it)."""
    report = Preflight()
    try:
        settings = load_run_settings(config_path, pgn_directory=pgn_directory, heartbeat_file=heartbeat_file,
                                     tournaments=tournaments)
    except ConfigError as error:
        for problem in error.problems:
            report.add(False, "config", problem.removeprefix("config error: "))
        report.skip("folders, books, engine" + (", status page, token, account" if account else ""),
                    "the config must be read first")
        return report
    report.add(True, "config", f"{config_path} read, every key valid" if config_path is not None
               else "no config file: every key at its default")
    check_folders(settings, report)
    settings = check_engine_setup(settings, report)
    report.settings = settings
    if account:
        check_status_listen(settings, report)
        check_token_and_account(settings, report, environ)
    return report


__all__ = ["Finding", "Preflight", "check_folders", "check_status_listen", "folder_problem", "load_run_settings",
           "run_checks"]

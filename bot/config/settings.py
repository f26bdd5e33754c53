"""YAML configuration -> typed, validated :class:`Settings`; the token from the environment or a file.

Every error names the key: ``config error: challenge.concurrency must be a positive integer, got 'x'``.
Unknown keys are errors too (a typo must not silently fall back to a default), with the key most like it
(``did you mean challenge.concurrency?``); a ``token`` key says where the token goes instead. The whole file is
read in one pass: :class:`ConfigError` holds every problem, one line each.

The dataclasses below are the one table of settings: a field's type, its default and its metadata (bound,
"null means", a per-field parser) are written once, and :func:`settings_from_dict` walks them generically.

**Adding a key** is one line in the section's dataclass plus its documented line in ``config.yml``::

    retry_after_s: float = setting(5.0, minimum=1.0)   # a number >= 1; int fields say "a positive integer"

The type decides how the value is read and what the error says: ``bool``, ``int``, ``float``, ``str``,
``X | None`` (null allowed), a ``Literal[...]`` (one of its values), ``tuple[str, ...]`` or
``tuple[Literal[...], ...]`` (a list), a nested settings dataclass (a sub-section). A field needs
``setting(...)`` only for metadata; a plain default is enough otherwise. Rules between fields go in the
dataclass's ``check`` method. ``tests/bot/test_bot_config.py`` fails until ``config.yml`` has the key.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import shlex
import stat
import sys
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

import yaml

from bot import TOKEN_ENV, ServerKind, closest_name
from engine.variants import VARIANT_NAMES

log = logging.getLogger(__name__)


Speed = Literal["ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence"]
Mode = Literal["casual", "rated"]
DialectSetting = Literal["auto", ServerKind]
ShutdownMode = Literal["finish", "abort"]
#: how the bot talks to its engine: UCI (the bundled engine, Fairy-Stockfish) or XBoard/CECP (Sjaak II, Fairy-Max)
EngineProtocol = Literal["uci", "xboard", "homemade"]
BookSelection = Literal["weighted_random", "best_move", "uniform_random"]
ChatRoom = Literal["player", "spectator"]
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]

SPEED_NAMES: tuple[str, ...] = get_args(Speed)
#: ``engine.polyglot.book: {seirawan: builtin}`` means the S-chess book shipped with the engine.
BUILTIN_BOOK = "builtin"

_T = TypeVar("_T")


class ConfigError(ValueError):
    """Configuration problems, one line each (``problems``); ``str()`` is what the operator is shown: every
    problem the file has, one per line, found in one pass."""

    def __init__(self, *problems: str) -> None:
        super().__init__(*problems)
        self.problems: tuple[str, ...] = problems

    def __str__(self) -> str:
        return "\n".join(self.problems)


class TokenError(RuntimeError):
    """No usable token."""


def setting(default: Any = dataclasses.MISSING, *, factory: Callable[[], Any] | None = None,
            minimum: float | None = None, what: str | None = None, null: Any = dataclasses.MISSING,
            at_most: str | None = None, lower: bool = False, non_empty: bool = False, key: str | None = None,
            parse: Callable[[Any, _Section, str], Any] | None = None, item: str | None = None) -> Any:
    """A settings field with its reading rules in the metadata.

    ``minimum``: the least value (ints: 0 reads "a non-negative integer", 1 "a positive integer"); ``what``:
    the expectation in messages, when the type's own wording does not fit; ``null``: what a YAML null means
    for a field whose type does not allow None; ``at_most``: the name of a sibling field this one may not
    exceed; ``lower``: lower-case every string of a list; ``non_empty``: a list must have an item; ``key``:
    the YAML key when it differs from the field name; ``parse(value, section, key)``: a reader of its own for
    values the type does not describe (it returns the field's value or raises ``section.fail(...)``); ``item``:
    the expectation for one entry of a list of mappings.
    """
    metadata = {name: value for name, value in (
        ("minimum", minimum), ("what", what), ("at_most", at_most), ("key", key), ("parse", parse), ("item", item)
    ) if value is not None}
    if null is not dataclasses.MISSING:
        metadata["null"] = null
    if lower:
        metadata["lower"] = True
    if non_empty:
        metadata["non_empty"] = True
    if factory is not None:
        return field(default_factory=factory, metadata=metadata)
    return field(default=default, metadata=metadata)


# ---- readers for values the types do not describe ---------------------------------------------------------


def _origin(value: Any, section: _Section, name: str) -> str:
    if not isinstance(value, str):
        raise section.fail(name, "a string", value)
    if not value.startswith(("http://", "https://")):
        raise section.fail(name, "an http:// or https:// origin", value)
    scheme, _, rest = value.partition("://")
    host, slash, path = rest.partition("/")
    if not host:
        raise section.fail(name, "an http:// or https:// origin with a host name", value)
    if path.strip("/") or "?" in host or "#" in host:  # the bot adds /api/...: a path here would be lost
        raise section.fail(name, f"the server's origin without a path ({scheme}://{host.split('?')[0]})", value)
    return f"{scheme}://{host}"


def _log_level(value: Any, section: _Section, name: str) -> str:
    choices: tuple[str, ...] = get_args(LogLevel)
    if not isinstance(value, str) or value.upper() not in choices:
        raise section.fail(name, "one of " + ", ".join(choices) + " (in any case)", value)
    return value.upper()


def _command(value: Any, section: _Section, name: str) -> str:
    if isinstance(value, list) and value and all(isinstance(part, str) for part in value):
        value = shlex.join(value)
    if not isinstance(value, str) or not value.strip():
        raise section.fail(name, "'builtin' or an engine command line", value)
    try:
        shlex.split(value)
    except ValueError as error:
        raise section.fail(name, f"a valid command line ({error})", value) from None
    return value.strip()


def _options(value: Any, section: _Section, name: str) -> dict[str, str | int | float | bool]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(item, (str, int, float, bool)) for item in value.values()):
        raise section.fail(name, "a mapping of engine option names to values", value)
    return {str(option): item for option, item in value.items()}


def _variant(section: _Section, name: str, key: Any, wanted: str = "variant names from") -> str:
    """One of the engine's variant names (``engine.variants.VARIANT_NAMES``); ``standard``, lichess-bot's name
    for chess, reads as ``chess``."""
    variant = "chess" if key == "standard" else key
    if variant not in VARIANT_NAMES:
        raise section.fail(name, f"{wanted} {', '.join(VARIANT_NAMES)} (or standard)", key)
    return str(variant)


def _variants(value: Any, section: _Section, name: str) -> tuple[str, ...]:
    """A list of variant names (see :func:`_variant`), without repeats."""
    if not isinstance(value, list):
        raise section.fail(name, f"a list of {', '.join(VARIANT_NAMES)}", value)
    return tuple(dict.fromkeys(_variant(section, name, entry, "a list of") for entry in value))


def _non_empty_variants(value: Any, section: _Section, name: str) -> tuple[str, ...]:
    variants = _variants(value, section, name)
    if not variants:
        raise section.fail(name, f"a non-empty list of {', '.join(VARIANT_NAMES)}", value)
    return variants


def _books(value: Any, section: _Section, name: str) -> dict[str, tuple[str, ...]]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise section.fail(name, "a mapping of variant names to book files", value)
    books: dict[str, tuple[str, ...]] = {}
    for variant_key, files in value.items():
        variant = _variant(section, name, variant_key)
        paths = [files] if isinstance(files, str) else files
        if not isinstance(paths, list) or not all(isinstance(path, str) and path for path in paths):
            raise ConfigError(f"config error: {section.key(name)}.{variant_key} must be a book file or a list of "
                              f"them, got {files!r}")
        for path in paths:
            if path != BUILTIN_BOOK and not Path(path).is_file():
                raise ConfigError(f"config error: {section.key(name)}.{variant_key}: no such book file {path!r}")
        books[variant] = tuple(paths)
    return books


# ---- the settings ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ServerSettings:
    url: str = setting("https://www.pychess.org", parse=_origin)
    dialect: DialectSetting = "auto"
    request_timeout_s: float = setting(15.0, minimum=0.1)
    stream_timeout_s: float = setting(20.0, minimum=0.1)


@dataclass(frozen=True)
class EngineLimits:
    depth: int | None = setting(None, minimum=1)
    nodes: int | None = setting(None, minimum=1)
    movetime_ms: int | None = setting(None, minimum=1)


@dataclass(frozen=True)
class BookSettings:
    """Opening books, as lichess-bot's ``engine.polyglot`` section: per variant name a list of book files
    (S-chess books ``*.book``, Polyglot ``*.bin`` for chess and Chess960; ``builtin`` = the shipped S-chess
    book), how to pick a move, up to which ply, and the least weight an entry needs."""

    enabled: bool = False
    books: dict[str, tuple[str, ...]] = setting(factory=lambda: {"seirawan": (BUILTIN_BOOK,)}, key="book",
                                                parse=_books)
    selection: BookSelection = "weighted_random"
    max_depth: int = setting(20, minimum=1)
    min_weight: int = setting(1, minimum=0)


@dataclass(frozen=True)
class EngineSettings:
    command: str = setting("builtin", parse=_command)
    protocol: EngineProtocol = "uci"
    interpreter: str | None = None
    options: dict[str, str | int | float | bool] = setting(factory=lambda: {"Hash": 64}, parse=_options)
    ponder: bool = False
    limits: EngineLimits = field(default_factory=EngineLimits)
    startup_timeout_s: float = setting(20.0, minimum=0.1)
    polyglot: BookSettings = field(default_factory=BookSettings)
    #: a variant of challenge.variants the engine cannot play: dropped with a warning (else exit 2 at start)
    drop_unplayable_variants: bool = False
    #: log every line to and from the engine (logger ``bot.engine.io``)
    debug: bool = False

    def check(self, section: _Section) -> EngineSettings:
        if self.protocol == "xboard" and self.command == "builtin":
            raise section.fail("protocol", "uci for the builtin engine (it speaks UCI only)", self.protocol)
        if self.protocol == "homemade" and (self.command == "builtin" or ":" not in self.command
                                            or " " in self.command.strip()):
            raise section.fail("command", "package.module:ClassName with engine.protocol: homemade", self.command)
        return self

    def command_line(self) -> list[str]:
        """``builtin`` -> the bundled engine under this or the configured interpreter; else split the line."""
        if self.command == "builtin":
            return [self.interpreter or sys.executable, "-m", "engine"]
        return shlex.split(self.command)


@dataclass(frozen=True)
class TimeSettings:
    move_overhead_ms: int = setting(300, minimum=0)
    correspondence_move_s: int = setting(60, minimum=1)
    abort_unstarted_after_s: int = setting(60, minimum=1)
    give_up_after_s: int = setting(300, minimum=1)


@dataclass(frozen=True)
class ChallengeSettings:
    concurrency: int = setting(1, minimum=1)
    variants: tuple[str, ...] = setting(("seirawan", "seirawan960", "chess"), parse=_non_empty_variants)
    speeds: tuple[Speed, ...] = ("bullet", "blitz", "rapid", "classical", "correspondence")
    min_base_s: int = setting(0, minimum=0, at_most="max_base_s")
    max_base_s: int = setting(10800, minimum=0)
    min_increment_s: int = setting(0, minimum=0, at_most="max_increment_s")
    max_increment_s: int = setting(180, minimum=0)
    min_days: int = setting(1, minimum=0, at_most="max_days")
    max_days: int = setting(14, minimum=0)
    modes: tuple[Mode, ...] = ("casual", "rated")
    accept_bots: bool = True
    only_bots: bool = False
    block_list: tuple[str, ...] = setting((), lower=True)
    allow_list: tuple[str, ...] = setting((), lower=True)
    #: the challenger's rating (for the game's category) must lie in [min_rating, max_rating] ...
    min_rating: int = setting(0, minimum=0, at_most="max_rating")
    max_rating: int = setting(4000, minimum=0)
    #: ... and within this many points of ours, when the server tells us our rating (None = no such check)
    max_rating_diff: int | None = setting(None, minimum=0)
    #: real-time slots (out of ``concurrency``) that bots may not take
    reserve_for_humans: int = setting(0, minimum=0, at_most="concurrency")
    #: games (real-time and correspondence) at once against one user (None = no limit)
    max_games_per_user: int | None = setting(None, minimum=1)
    #: pychess.org: the decline reason as free text for the person (Lichess gets the reason key); "" = key
    decline_message: str = "{reason}. I accept {variants}, {clock}."
    #: challenges kept unanswered while every slot is busy, accepted when a game ends (0 = decline later)
    queue_size: int = setting(0, minimum=0)
    #: a queued challenge not started within this many seconds is declined (later)
    queue_timeout_s: float = setting(300.0, minimum=1.0)
    #: challenges accepted from one bot in the last hour (None = no limit)
    max_challenges_per_bot_per_hour: int | None = setting(None, minimum=1)
    #: challenges accepted from all bots together in the last 24 hours (None = no limit)
    max_bot_challenges_per_day: int | None = setting(None, minimum=1)
    #: decline bullet and ultraBullet games without increment (1+0, 2+0, ...)
    bullet_requires_increment: bool = False


@dataclass(frozen=True)
class DrawSettings:
    enabled: bool = True
    offer_after_move: int = setting(40, minimum=1)
    max_score_cp: int = setting(15, minimum=0)
    moves: int = setting(6, minimum=1)


@dataclass(frozen=True)
class ResignSettings:
    enabled: bool = True
    score_cp: int = setting(-800, what="an integer (centipawns, negative)")
    moves: int = setting(5, minimum=1)


@dataclass(frozen=True)
class GreetingSettings:
    hello: str = setting("Hi, I'm {me}. Good luck!", null="")
    goodbye: str = setting("Good game!", null="")


@dataclass(frozen=True)
class ShutdownSettings:
    on_signal: ShutdownMode = "finish"
    #: with finish: a game without news from the server (no move, no state) for this long, counted from the
    #: signal at the earliest, is left as abort leaves it: the stop never waits on a stuck game for ever
    finish_idle_s: float = setting(60.0, minimum=1.0)


@dataclass(frozen=True)
class TakebackSettings:
    """Lichess takeback requests from the opponent: grant at most ``max_takebacks`` per game (0 = never)."""

    max_takebacks: int = setting(0, minimum=0)


@dataclass(frozen=True)
class ChatSettings:
    """Game-chat commands (``!help``, ``!name``, ``!eval``, ``!queue``)."""

    commands: bool = True
    #: rooms where !eval is answered; null = per server: pychess.org the player room (a BOT's chat reaches only
    #: the opponent's page, which drops spectator lines), Lichess the spectator room
    eval_rooms: tuple[ChatRoom, ...] | None = None
    cooldown_s: float = setting(5.0, minimum=0.0)


@dataclass(frozen=True)
class CorrespondenceSettings:
    """Games with days per move: played in short visits instead of a worker held open for days."""

    check_interval_s: float = setting(600.0, minimum=1.0)
    disconnect_after_s: float = setting(120.0, minimum=0.0)
    max_games: int = setting(20, minimum=1)


@dataclass(frozen=True)
class MatchmakingTimeControl:
    """One time control the bot offers: a clock (``base_s`` + ``increment_s``) or ``days`` per move."""

    base_s: int | None = setting(None, minimum=0)
    increment_s: int = setting(0, minimum=0)
    days: int | None = setting(None, minimum=1)

    def check(self, section: _Section) -> MatchmakingTimeControl:
        where = section.key("")
        if (self.base_s is None) == (self.days is None):
            raise ConfigError(f"config error: {where} must have either base_s (with increment_s) or days, "
                              f"got {dict(section.data)!r}")
        if self.base_s == 0 and self.increment_s == 0:
            raise ConfigError(f"config error: {where} must not be a clock of 0+0")
        return self if self.base_s is not None else dataclasses.replace(self, increment_s=0)

    def describe(self) -> str:
        if self.days is not None:
            return f"{self.days} day" + ("s" if self.days != 1 else "")
        return f"{(self.base_s or 0) / 60:g}+{self.increment_s}"


@dataclass(frozen=True)
class MatchmakingOverride:
    """What matchmaking does differently for one variant (``matchmaking.overrides.<variant>``); a key left out
    keeps the section's value."""

    time_controls: tuple[MatchmakingTimeControl, ...] | None = setting(
        None, non_empty=True, what="a non-empty list of {base_s, increment_s} or {days} mappings",
        item="a mapping {base_s, increment_s} or {days}")
    rated: bool | None = None
    min_rating: int | None = setting(None, minimum=0)
    max_rating: int | None = setting(None, minimum=0)
    rating_difference: int | None = setting(None, minimum=0)


def _overrides(value: Any, section: _Section, name: str) -> dict[str, MatchmakingOverride]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise section.fail(name, "a mapping of variant names to settings", value)
    overrides: dict[str, MatchmakingOverride] = {}
    for variant_key, entry in value.items():
        variant = _variant(section, name, variant_key)
        overrides[variant] = _read_section(MatchmakingOverride, entry, f"{section.key(name)}.{variant_key}",
                                           section.problems)
    return overrides


@dataclass(frozen=True)
class MatchmakingSettings:
    """Challenging online bots when idle (Lichess only: pychess.org does not let bots challenge)."""

    enabled: bool = False
    idle_s: float = setting(300.0, minimum=0.0)
    variants: tuple[str, ...] = setting(("chess",), parse=_non_empty_variants)
    time_controls: tuple[MatchmakingTimeControl, ...] = setting(
        (MatchmakingTimeControl(base_s=180, increment_s=2), MatchmakingTimeControl(base_s=300, increment_s=3)),
        non_empty=True, what="a non-empty list of {base_s, increment_s} or {days} mappings",
        item="a mapping {base_s, increment_s} or {days}")
    rated: bool = False
    min_rating: int = setting(0, minimum=0, at_most="max_rating")
    max_rating: int = setting(4000, minimum=0)
    block_list: tuple[str, ...] = setting((), lower=True)
    challenge_timeout_s: float = setting(30.0, minimum=1.0)
    decline_cooldown_s: float = setting(3600.0, minimum=0.0)
    daily_limit: int = setting(100, minimum=1)
    #: the opponent's rating at most this far from ours in the game's category (None = no such check)
    rating_difference: int | None = setting(None, minimum=0)
    #: also challenge while games run, as long as a slot (challenge.concurrency) is free
    allow_during_games: bool = False
    #: URLs of text files with one bot name per line, never challenged (fetched without our token)
    online_block_list: tuple[str, ...] = ()
    #: per variant name: other time controls, rated, rating range or rating_difference
    overrides: dict[str, MatchmakingOverride] = setting(factory=dict, parse=_overrides)

    def for_variant(self, variant: str) -> MatchmakingSettings:
        """These settings with ``overrides[variant]`` applied."""
        override = self.overrides.get(variant)
        if override is None:
            return self
        changes = {name: value for name, value in dataclasses.asdict(override).items() if value is not None}
        if override.time_controls is not None:
            changes["time_controls"] = override.time_controls  # asdict made plain dicts of them
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class LoggingSettings:
    """Where the log goes: stderr at ``level`` (``--log-level`` overrides it), and with ``file`` also a file
    rotated by size (``max_bytes``, ``backup_count`` old files kept) at ``file_level``. ``engine_file``: the
    engine's own lines (``engine.debug``, logger ``bot.engine.io``) go to this file instead of the others."""

    level: LogLevel = setting("INFO", parse=_log_level)
    file: str | None = None
    file_level: LogLevel = setting("DEBUG", parse=_log_level)
    max_bytes: int = setting(10_000_000, minimum=1)
    backup_count: int = setting(5, minimum=0)
    engine_file: str | None = None


@dataclass(frozen=True)
class StatusSettings:
    """The status page (docs/status.md): ``listen`` is ``HOST:PORT`` (``127.0.0.1:8080``; in Docker
    ``0.0.0.0:8080`` plus ``-p``), null = no page. Read-only; it never shows the token or the config."""

    listen: str | None = None

    def check(self, section: _Section) -> StatusSettings:
        if self.listen is not None:
            parse_listen(self.listen, section.key("listen"))
        return self

    @property
    def address(self) -> tuple[str, int] | None:
        """(host, port) to listen on, or None when the page is off."""
        return None if self.listen is None else parse_listen(self.listen, "status.listen")


TournamentKindSetting = Literal["auto", "arena", "swiss"]
#: a Lichess tournament id: 8 letters and digits, the end of its address
TOURNAMENT_ID = re.compile(r"^[A-Za-z0-9]{8}$")
#: an arena's or a Swiss's address, which names its kind: https://lichess.org/tournament/ID, .../swiss/ID
TOURNAMENT_URL = re.compile(r"^https?://[^/]+/(?P<kind>tournament|swiss)/(?P<id>[A-Za-z0-9]{8})/?$")


def _tournament_id(value: Any, section: _Section, name: str) -> str:
    """An id, or the tournament's address (``https://lichess.org/tournament/ID``): the id."""
    text = value.strip() if isinstance(value, str) else value
    found = TOURNAMENT_URL.match(text) if isinstance(text, str) else None
    if found:
        return found.group("id")
    if not isinstance(text, str) or not TOURNAMENT_ID.match(text):
        raise section.fail(name, "a tournament's 8-character id (the end of its address, lichess.org/tournament/"
                                 "ID or lichess.org/swiss/ID) or that address", value)
    return text


@dataclass(frozen=True)
class TournamentEntry:
    """One Lichess tournament the bot joins (``tournaments``): its ``id`` (or address), ``team`` for a team
    battle, ``password`` for a private one (its entry code; never logged), and its ``kind`` (``auto``: asked of
    the server, an arena first; an address says it)."""

    id: str = setting("", parse=_tournament_id)
    team: str | None = None
    password: str | None = field(default=None, repr=False)
    kind: TournamentKindSetting = "auto"

    def check(self, section: _Section) -> TournamentEntry:
        if not self.id:
            raise ConfigError(f"config error: {section.key('id')} is missing: the tournament's 8-character id")
        found = TOURNAMENT_URL.match(str(section.data.get("id", "")))
        if found and self.kind == "auto":
            return dataclasses.replace(self, kind="arena" if found.group("kind") == "tournament" else "swiss")
        return self


def parse_tournament_entry(value: Any, key: str, problems: list[str] | None = None) -> TournamentEntry:
    """One entry of ``tournaments``: an id or an address, or a mapping {id, team, password, kind}."""
    if isinstance(value, Mapping):
        return _read_section(TournamentEntry, value, key, problems)
    return _read_section(TournamentEntry, {"id": value}, key, problems)


def _tournaments(value: Any, section: _Section, name: str) -> tuple[TournamentEntry, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise section.fail(name, "a list of tournament ids, or of {id, team, password} mappings", value)
    entries = [parse_tournament_entry(entry, f"{section.key(name)}[{index}]", section.problems)
               for index, entry in enumerate(value)]
    return tuple(dict((entry.id, entry) for entry in entries).values())  # each tournament once


def parse_listen(text: str, key: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8080`` for IPv6) -> (host, port). Raises :class:`ConfigError` naming ``key``."""
    host, colon, port = text.strip().rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"config error: {key} must be HOST:PORT (such as 127.0.0.1:8080), got {text!r}")
    return host, int(port)


@dataclass(frozen=True)
class Settings:
    server: ServerSettings = field(default_factory=ServerSettings)
    engine: EngineSettings = field(default_factory=EngineSettings)
    time: TimeSettings = field(default_factory=TimeSettings)
    challenge: ChallengeSettings = field(default_factory=ChallengeSettings)
    draw: DrawSettings = field(default_factory=DrawSettings)
    resign: ResignSettings = field(default_factory=ResignSettings)
    greeting: GreetingSettings = field(default_factory=GreetingSettings)
    shutdown: ShutdownSettings = field(default_factory=ShutdownSettings)
    takeback: TakebackSettings = field(default_factory=TakebackSettings)
    chat: ChatSettings = field(default_factory=ChatSettings)
    correspondence: CorrespondenceSettings = field(default_factory=CorrespondenceSettings)
    matchmaking: MatchmakingSettings = field(default_factory=MatchmakingSettings)
    logging: LoggingSettings = field(default_factory=LoggingSettings)
    status: StatusSettings = field(default_factory=StatusSettings)
    #: Lichess arenas and Swiss tournaments to join at start (and leave at stop); pychess.org has none for BOTs
    tournaments: tuple[TournamentEntry, ...] = setting((), parse=_tournaments)
    pgn_directory: str | None = "games"
    heartbeat_file: str | None = None
    token_file: str | None = None


# ---- the reader --------------------------------------------------------------------------------------------


class _Section:
    """One mapping of the YAML file and its key path, for messages; ``problems``: where the whole file's
    problems are collected (one list for the file, shared by its sections)."""

    def __init__(self, data: Any, path: str, problems: list[str] | None = None) -> None:
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise ConfigError(f"config error: {path or 'the file'} must be a mapping, got {data!r}")
        self.data: Mapping[str, Any] = data
        self.path = path
        self.problems: list[str] = [] if problems is None else problems
        self.known: list[str] = []  # the section's keys (for "did you mean")

    def key(self, name: str) -> str:
        """The full key path of ``name`` in this section (``""`` = the section itself)."""
        if not name:
            return self.path
        return f"{self.path}.{name}" if self.path else name

    def fail(self, name: str, what: str, value: Any) -> ConfigError:
        return ConfigError(f"config error: {self.key(name)} must be {what}, got {value!r}")


def _optional(hint: Any) -> tuple[Any, bool]:
    """``X | None`` -> (X, True); anything else -> (hint, False)."""
    if get_origin(hint) in (Union, types.UnionType):
        args = [arg for arg in get_args(hint) if arg is not type(None)]
        if len(args) == 1 and len(args) < len(get_args(hint)):
            return args[0], True
    return hint, False


def _integer_words(minimum: float | None) -> str:
    if minimum is None:
        return "an integer"
    return {0: "a non-negative integer", 1: "a positive integer"}.get(int(minimum), f"an integer >= {minimum:g}")


#: the unit a key's name ends in, said in its messages
UNITS = {"_ms": "milliseconds", "_s": "seconds"}
#: where a token pasted into the config goes instead (the value is never repeated)
TOKEN_KEY_MESSAGE = (f"does not belong in the config file (anyone who reads the file has it); remove it and set "
                     f"{TOKEN_ENV}, or put the token alone in a file named by token_file (chmod 600 it)")


def _unit(name: str) -> str:
    """`` (seconds)`` for a key ending in ``_s``, `` (milliseconds)`` for ``_ms``, else nothing."""
    return next((f" ({unit})" for suffix, unit in UNITS.items() if name.endswith(suffix)), "")


def _clock_hint(section: _Section, name: str, value: Any) -> str:
    """A clock written as ``3+2`` in a key for the base time: say that the increment is its own key, and the two
    values (``; the increment is its own key: min_base_s: 180 and min_increment_s: 2``)."""
    increment_key = name.replace("base", "increment")
    if "base" not in name or increment_key not in section.known or not isinstance(value, str) or "+" not in value:
        return ""
    minutes, _, seconds = value.partition("+")
    try:
        base_s, increment_s = round(float(minutes) * 60), int(seconds)
    except ValueError:
        return f"; the increment is its own key: {increment_key}"
    return f"; the increment is its own key: {name}: {base_s} and {increment_key}: {increment_s}"


def _clock_entry_hint(item: type, value: Any) -> str:
    """A clock written as ``3+2`` where a list wants ``{base_s, increment_s}`` mappings: the mapping it means
    (``; 3+2 is {base_s: 180, increment_s: 2}``)."""
    names = {entry.name for entry in dataclasses.fields(item)}
    if not {"base_s", "increment_s"} <= names or not isinstance(value, str) or "+" not in value:
        return ""
    minutes, _, seconds = value.partition("+")
    try:
        base_s, increment_s = round(float(minutes) * 60), int(seconds)
    except ValueError:
        return ""
    return f"; {value} is {{base_s: {base_s}, increment_s: {increment_s}}}"


def _read_value(section: _Section, name: str, hint: Any, meta: Mapping[str, Any], value: Any) -> Any:
    parse = meta.get("parse")
    if parse is not None:
        return parse(value, section, name)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _read_section(hint, value, section.key(name), section.problems)
    hint, nullable = _optional(hint)
    if value is None:
        if nullable:
            return None
        if "null" in meta:
            return meta["null"]
        if get_origin(hint) is tuple:
            value = []
    or_null = " or null" if nullable else ""
    minimum = meta.get("minimum")
    what = meta.get("what")
    if hint is bool:
        if not isinstance(value, bool):
            raise section.fail(name, what or "true or false", value)
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int) or (minimum is not None and value < minimum):
            error = section.fail(name, what or _integer_words(minimum) + _unit(name) + or_null, value)
            raise ConfigError(str(error) + _clock_hint(section, name, value))
        return value
    if hint is float:
        least = 0.0 if minimum is None else minimum
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < least:
            error = section.fail(name, what or f"a number >= {least:g}" + _unit(name) + or_null, value)
            raise ConfigError(str(error) + _clock_hint(section, name, value))
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise section.fail(name, what or "a string" + or_null, value)
        return value
    if get_origin(hint) is Literal:
        choices = get_args(hint)
        if value not in choices:
            raise section.fail(name, what or "one of " + ", ".join(choices), value)
        return value
    if get_origin(hint) is tuple:
        return _read_list(section, name, get_args(hint)[0], meta, value)
    raise TypeError(f"bot.config cannot read a {hint!r} ({section.key(name)}): give the field a parse function")


def _read_list(section: _Section, name: str, item: Any, meta: Mapping[str, Any], value: Any) -> tuple[Any, ...]:
    if isinstance(item, type) and dataclasses.is_dataclass(item):
        if not isinstance(value, list) or (meta.get("non_empty") and not value):
            raise section.fail(name, meta.get("what", "a list of mappings"), value)
        for index, entry in enumerate(value):
            if entry is not None and not isinstance(entry, Mapping):
                raise ConfigError(f"config error: {section.key(name)}[{index}] must be "
                                  f"{meta.get('item', 'a mapping')}, got {entry!r}{_clock_entry_hint(item, entry)}")
        return tuple(_read_section(item, entry, f"{section.key(name)}[{index}]", section.problems)
                     for index, entry in enumerate(value))
    if not isinstance(value, list) or not all(isinstance(entry, str) for entry in value):
        raise section.fail(name, "a list of strings", value)
    if get_origin(item) is Literal:
        choices = ", ".join(get_args(item))
        for entry in value:
            if entry not in get_args(item):
                raise section.fail(name, "a list of " + choices, entry)
        if meta.get("non_empty") and not value:
            raise section.fail(name, "a non-empty list of " + choices, value)
    elif meta.get("non_empty") and not value:
        raise section.fail(name, "a non-empty list of strings", value)
    return tuple(entry.lower() for entry in value) if meta.get("lower") else tuple(value)


def config_key(item: dataclasses.Field[Any]) -> str:
    """The YAML key of a settings field (its name unless ``setting(key=...)`` says otherwise)."""
    return str(item.metadata.get("key", item.name))


def _default(item: dataclasses.Field[Any]) -> Any:
    return item.default_factory() if item.default_factory is not dataclasses.MISSING else item.default


def _unknown_key(section: _Section, name: str) -> str:
    """The message for a key the section does not have: where a token goes, or the key most like it."""
    if name.lower() == "token":
        return f"config error: {section.key(name)} {TOKEN_KEY_MESSAGE}"
    close = closest_name(name, section.known)
    return f"config error: unknown key {section.key(name)}" + (f"; did you mean {section.key(close)}?" if close
                                                              else "")


def _read_section(cls: type[_T], data: Any, path: str, problems: list[str] | None = None) -> _T:
    """Read one section into the dataclass ``cls``: every key in the file's order by its field's type and
    metadata (an unknown key is an error in its place), then the rules between fields (``at_most``, the
    class's ``check``). A field that cannot be read adds its problem to ``problems`` and takes its default, so
    that one pass finds every problem (the caller raises them all; without ``problems`` they are raised here)."""
    own = problems is None
    section = _Section(data, path, problems)
    hints = typing.get_type_hints(cls)
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    section.known = [config_key(item) for item in fields]
    before = len(section.problems)
    values: dict[str, Any] = {item.name: _default(item) for item in fields}
    failed: set[str] = set()
    by_key = {config_key(item): item for item in fields}
    # in the file's order, so that the problems are listed in the order the file has them
    for raw_key, value in section.data.items():
        name = str(raw_key)
        item = by_key.get(name)
        if item is None:
            section.problems.append(_unknown_key(section, name))
            continue
        try:
            values[item.name] = _read_value(section, name, hints[item.name], item.metadata, value)
        except ConfigError as error:
            section.problems.extend(error.problems)
            failed.add(item.name)
    by_name = {item.name: item for item in fields}
    for item in fields:
        high = item.metadata.get("at_most")
        if high is not None and not {item.name, high} & failed and values[item.name] > values[high]:
            limit = f"at most {section.key(config_key(by_name[high]))} ({values[high]})"
            section.problems.append(str(section.fail(config_key(item), limit, values[item.name])))
    settings = cls(**values)
    check = getattr(settings, "check", None)
    if check is not None and len(section.problems) == before:
        try:
            settings = check(section)
        except ConfigError as error:
            section.problems.extend(error.problems)
    if own and section.problems:
        raise ConfigError(*section.problems)
    return settings


def settings_from_dict(data: Any) -> Settings:
    """Validate a parsed YAML document (or a dict built by tests) into :class:`Settings`. Raises
    :class:`ConfigError` with every problem found."""
    return _read_section(Settings, data, "")


def load_settings(path: str | os.PathLike[str]) -> Settings:
    """Read and validate a YAML config file. Raises :class:`ConfigError` with a one-line message."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config error: cannot read {path}: no such file; `schess-bot init {path}` writes a "
                          "commented one with every key at its default") from None
    except OSError as error:
        raise ConfigError(f"config error: cannot read {path}: {error.strerror}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ConfigError(f"config error: {path} is not valid YAML: {yaml_problem(error)}") from None
    return settings_from_dict(data)


def yaml_problem(error: yaml.YAMLError) -> str:
    """PyYAML's error on one line: what the parser found, where, and where the construct it was reading began
    (the mistake is often there: an unclosed bracket or quote, a missing colon)."""
    problem = getattr(error, "problem", None)
    mark = getattr(error, "problem_mark", None)
    context = getattr(error, "context", None)
    context_mark = getattr(error, "context_mark", None)
    if problem is None:
        return " ".join(str(error).split())
    text = f"{problem} at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else str(problem)
    if context and context_mark is not None and (mark is None or context_mark.line != mark.line):
        text += f" ({context} at line {context_mark.line + 1})"
    elif context:
        text += f" ({context})"
    return text


def token_file_warning(token_file: str) -> str | None:
    """What the run warns about a token file others may read or write (``token_file tok.txt is readable by
    others (mode 644); chmod 600 it``); None when only its owner may, or it cannot be looked at."""
    path = Path(token_file).expanduser()
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        return f"token_file {path} is readable by others (mode {mode & 0o777:o}); chmod 600 it"
    return None


def resolve_token(settings: Settings, environ: Mapping[str, str] | None = None) -> str:
    """The API token: ``SCHESS_BOT_TOKEN`` first, then ``token_file``. Raises :class:`TokenError`."""
    environ = os.environ if environ is None else environ
    token = environ.get(TOKEN_ENV, "").strip()
    if token:
        return token
    if settings.token_file:
        path = Path(settings.token_file).expanduser()
        try:
            token = path.read_text(encoding="utf-8").strip()
        except OSError as error:
            raise TokenError(f"cannot read token_file {path}: {error.strerror}") from None
        unsafe = token_file_warning(settings.token_file)
        if unsafe is not None:
            log.warning("%s", unsafe)
        if token:
            return token
        raise TokenError(f"token_file {path} is empty")
    raise TokenError(f"no API token: set {TOKEN_ENV} or token_file in the config")

"""YAML configuration -> typed, validated :class:`Settings`; the token from the environment or a file.

Every error names the key: ``config error: challenge.concurrency must be a positive integer, got 'x'``.
Unknown keys are errors too (a typo must not silently fall back to a default).
"""

from __future__ import annotations

import logging
import os
import shlex
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from engine import variants as engine_variants

log = logging.getLogger(__name__)

TOKEN_ENV = "SCHESS_BOT_TOKEN"
VARIANT_NAMES = engine_variants.VARIANT_NAMES
SPEED_NAMES = ("ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence")
MODE_NAMES = ("casual", "rated")
DIALECTS = ("auto", "lichess", "pychess")
SHUTDOWN_MODES = ("finish", "abort")
#: how the bot talks to its engine: UCI (the bundled engine, Fairy-Stockfish) or XBoard/CECP (Sjaak II, Fairy-Max)
ENGINE_PROTOCOLS = ("uci", "xboard")


class ConfigError(ValueError):
    """A configuration problem; ``str()`` is the one-line message shown to the operator."""


class TokenError(RuntimeError):
    """No usable token."""


@dataclass(frozen=True)
class ServerSettings:
    url: str = "https://www.pychess.org"
    dialect: str = "auto"
    request_timeout_s: float = 15.0
    stream_timeout_s: float = 20.0


@dataclass(frozen=True)
class EngineLimits:
    depth: int | None = None
    nodes: int | None = None
    movetime_ms: int | None = None


BOOK_SELECTIONS = ("weighted_random", "best_move", "uniform_random")
#: ``engine.polyglot.book: {seirawan: builtin}`` means the S-chess book shipped with the engine.
BUILTIN_BOOK = "builtin"


@dataclass(frozen=True)
class BookSettings:
    """Opening books, as lichess-bot's ``engine.polyglot`` section: per variant name a list of book files
    (S-chess books ``*.book``, Polyglot ``*.bin`` for chess and Chess960; ``builtin`` = the shipped S-chess
    book), how to pick a move, up to which ply, and the least weight an entry needs."""

    enabled: bool = False
    books: dict[str, tuple[str, ...]] = field(default_factory=lambda: {"seirawan": (BUILTIN_BOOK,)})
    selection: str = "weighted_random"
    max_depth: int = 20
    min_weight: int = 1


@dataclass(frozen=True)
class EngineSettings:
    command: str = "builtin"
    protocol: str = "uci"
    interpreter: str | None = None
    options: dict[str, str | int | float | bool] = field(default_factory=lambda: {"Hash": 64})
    ponder: bool = False
    limits: EngineLimits = field(default_factory=EngineLimits)
    startup_timeout_s: float = 20.0
    polyglot: BookSettings = field(default_factory=lambda: BookSettings())
    #: a variant of challenge.variants the engine cannot play: dropped with a warning (else exit 2 at start)
    drop_unplayable_variants: bool = False
    #: log every line to and from the engine (logger ``bot.engine.io``)
    debug: bool = False

    def command_line(self) -> list[str]:
        """``builtin`` -> the bundled engine under this or the configured interpreter; else split the line."""
        if self.command == "builtin":
            return [self.interpreter or sys.executable, "-m", "engine"]
        return shlex.split(self.command)


@dataclass(frozen=True)
class TimeSettings:
    move_overhead_ms: int = 300
    correspondence_move_s: int = 60
    abort_unstarted_after_s: int = 60
    give_up_after_s: int = 300


@dataclass(frozen=True)
class ChallengeSettings:
    concurrency: int = 1
    variants: tuple[str, ...] = ("seirawan", "seirawan960", "chess")
    speeds: tuple[str, ...] = ("bullet", "blitz", "rapid", "classical", "correspondence")
    min_base_s: int = 0
    max_base_s: int = 10800
    min_increment_s: int = 0
    max_increment_s: int = 180
    min_days: int = 1
    max_days: int = 14
    modes: tuple[str, ...] = ("casual", "rated")
    accept_bots: bool = True
    only_bots: bool = False
    block_list: tuple[str, ...] = ()
    allow_list: tuple[str, ...] = ()
    #: the challenger's rating (for the game's category) must lie in [min_rating, max_rating] ...
    min_rating: int = 0
    max_rating: int = 4000
    #: ... and within this many points of ours, when the server tells us our rating (None = no such check)
    max_rating_diff: int | None = None
    #: real-time slots (out of ``concurrency``) that bots may not take
    reserve_for_humans: int = 0
    #: games (real-time and correspondence) at once against one user (None = no limit)
    max_games_per_user: int | None = None
    #: challenges accepted from one bot in the last hour (None = no limit)
    max_challenges_per_bot_per_hour: int | None = None
    #: challenges accepted from all bots together in the last 24 hours (None = no limit)
    max_bot_challenges_per_day: int | None = None
    #: decline bullet and ultraBullet games without increment (1+0, 2+0, ...)
    bullet_requires_increment: bool = False


@dataclass(frozen=True)
class DrawSettings:
    enabled: bool = True
    offer_after_move: int = 40
    max_score_cp: int = 15
    moves: int = 6


@dataclass(frozen=True)
class ResignSettings:
    enabled: bool = True
    score_cp: int = -800
    moves: int = 5


@dataclass(frozen=True)
class GreetingSettings:
    hello: str = "Hi, I'm {me}. Good luck!"
    goodbye: str = "Good game!"


@dataclass(frozen=True)
class ShutdownSettings:
    on_signal: str = "finish"


@dataclass(frozen=True)
class TakebackSettings:
    """Lichess takeback requests from the opponent: grant at most ``max_takebacks`` per game (0 = never)."""

    max_takebacks: int = 0


@dataclass(frozen=True)
class ChatSettings:
    """Game-chat commands (``!help``, ``!name``, ``!eval``, ``!queue``)."""

    commands: bool = True
    eval_rooms: tuple[str, ...] = ("spectator",)
    cooldown_s: float = 5.0


@dataclass(frozen=True)
class CorrespondenceSettings:
    """Games with days per move: played in short visits instead of a worker held open for days."""

    check_interval_s: float = 600.0
    disconnect_after_s: float = 120.0
    max_games: int = 20


@dataclass(frozen=True)
class MatchmakingTimeControl:
    """One time control the bot offers: a clock (``base_s`` + ``increment_s``) or ``days`` per move."""

    base_s: int | None = None
    increment_s: int = 0
    days: int | None = None

    def describe(self) -> str:
        if self.days is not None:
            return f"{self.days} day" + ("s" if self.days != 1 else "")
        return f"{(self.base_s or 0) / 60:g}+{self.increment_s}"


@dataclass(frozen=True)
class MatchmakingSettings:
    """Challenging online bots when idle (Lichess only: pychess.org does not let bots challenge)."""

    enabled: bool = False
    idle_s: float = 300.0
    variants: tuple[str, ...] = ("chess",)
    time_controls: tuple[MatchmakingTimeControl, ...] = (
        MatchmakingTimeControl(base_s=180, increment_s=2), MatchmakingTimeControl(base_s=300, increment_s=3))
    rated: bool = False
    min_rating: int = 0
    max_rating: int = 4000
    block_list: tuple[str, ...] = ()
    challenge_timeout_s: float = 30.0
    decline_cooldown_s: float = 3600.0
    daily_limit: int = 100


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
    pgn_directory: str | None = "games"
    heartbeat_file: str | None = None
    token_file: str | None = None


# ---- validation helpers ------------------------------------------------------------------------------------


class _Section:
    """Reads one mapping of the YAML file, remembering the key path for messages."""

    def __init__(self, data: Any, path: str) -> None:
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise ConfigError(f"config error: {path or 'the file'} must be a mapping, got {data!r}")
        self.data: Mapping[str, Any] = data
        self.path = path
        self.used: set[str] = set()

    def key(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name

    def raw(self, name: str, default: Any) -> Any:
        self.used.add(name)
        return self.data.get(name, default)

    def section(self, name: str) -> _Section:
        return _Section(self.raw(name, {}), self.key(name))

    def fail(self, name: str, what: str, value: Any) -> ConfigError:
        return ConfigError(f"config error: {self.key(name)} must be {what}, got {value!r}")

    def integer(self, name: str, default: int | None, *, minimum: int | None = None,
                what: str = "an integer", nullable: bool = False) -> Any:
        value = self.raw(name, default)
        if value is None and nullable:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or (minimum is not None and value < minimum):
            raise self.fail(name, what, value)
        return value

    def number(self, name: str, default: float, *, minimum: float = 0.0) -> float:
        value = self.raw(name, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < minimum:
            raise self.fail(name, f"a number >= {minimum:g}", value)
        return float(value)

    def boolean(self, name: str, default: bool) -> bool:
        value = self.raw(name, default)
        if not isinstance(value, bool):
            raise self.fail(name, "true or false", value)
        return value

    def string(self, name: str, default: str | None, *, nullable: bool = False) -> Any:
        value = self.raw(name, default)
        if value is None and nullable:
            return None
        if not isinstance(value, str):
            raise self.fail(name, "a string", value)
        return value

    def choice(self, name: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.raw(name, default)
        if value not in choices:
            raise self.fail(name, "one of " + ", ".join(choices), value)
        return str(value)

    def string_list(self, name: str, default: tuple[str, ...], choices: tuple[str, ...] | None = None
                    ) -> tuple[str, ...]:
        value = self.raw(name, list(default))
        if value is None:
            value = []
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise self.fail(name, "a list of strings", value)
        if choices is not None:
            for item in value:
                if item not in choices:
                    raise self.fail(name, "a list of " + ", ".join(choices), item)
        return tuple(value)

    def finish(self) -> None:
        unknown = sorted(set(map(str, self.data)) - self.used)
        if unknown:
            raise ConfigError(f"config error: unknown key {self.key(unknown[0])}")


def _server(section: _Section) -> ServerSettings:
    url = section.string("url", ServerSettings.url)
    if not url.startswith(("http://", "https://")):
        raise section.fail("url", "an http:// or https:// origin", url)
    settings = ServerSettings(
        url=url.rstrip("/"),
        dialect=section.choice("dialect", "auto", DIALECTS),
        request_timeout_s=section.number("request_timeout_s", 15.0, minimum=0.1),
        stream_timeout_s=section.number("stream_timeout_s", 20.0, minimum=0.1),
    )
    section.finish()
    return settings


def _engine(section: _Section) -> EngineSettings:
    command = section.raw("command", "builtin")
    if isinstance(command, list) and command and all(isinstance(part, str) for part in command):
        command = shlex.join(command)
    if not isinstance(command, str) or not command.strip():
        raise section.fail("command", "'builtin' or an engine command line", command)
    try:
        shlex.split(command)
    except ValueError as error:
        raise section.fail("command", f"a valid command line ({error})", command) from None
    options = section.raw("options", {"Hash": 64})
    if options is None:
        options = {}
    if not isinstance(options, Mapping) or not all(
        isinstance(value, (str, int, float, bool)) for value in options.values()
    ):
        raise section.fail("options", "a mapping of engine option names to values", options)
    limits = section.section("limits")
    engine_limits = EngineLimits(
        depth=limits.integer("depth", None, minimum=1, what="a positive integer or null", nullable=True),
        nodes=limits.integer("nodes", None, minimum=1, what="a positive integer or null", nullable=True),
        movetime_ms=limits.integer("movetime_ms", None, minimum=1, what="a positive integer or null",
                                   nullable=True),
    )
    limits.finish()
    protocol = section.choice("protocol", "uci", ENGINE_PROTOCOLS)
    if protocol == "xboard" and command.strip() == "builtin":
        raise section.fail("protocol", "uci for the builtin engine (it speaks UCI only)", protocol)
    settings = EngineSettings(
        command=command.strip(),
        protocol=protocol,
        interpreter=section.string("interpreter", None, nullable=True),
        options={str(name): value for name, value in options.items()},
        ponder=section.boolean("ponder", False),
        limits=engine_limits,
        startup_timeout_s=section.number("startup_timeout_s", 20.0, minimum=0.1),
        polyglot=_books(section.section("polyglot")),
        drop_unplayable_variants=section.boolean("drop_unplayable_variants", False),
        debug=section.boolean("debug", False),
    )
    section.finish()
    return settings


def _books(section: _Section) -> BookSettings:
    raw = section.raw("book", {"seirawan": BUILTIN_BOOK})
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise section.fail("book", "a mapping of variant names to book files", raw)
    books: dict[str, tuple[str, ...]] = {}
    for name, files in raw.items():
        variant = "chess" if name == "standard" else str(name)  # lichess-bot's name for chess
        if variant not in VARIANT_NAMES:
            raise section.fail("book", f"variant names from {', '.join(VARIANT_NAMES)} (or standard)", name)
        paths = [files] if isinstance(files, str) else files
        if not isinstance(paths, list) or not all(isinstance(path, str) and path for path in paths):
            raise ConfigError(f"config error: {section.key('book')}.{name} must be a book file or a list of "
                              f"them, got {files!r}")
        for path in paths:
            if path != BUILTIN_BOOK and not Path(path).is_file():
                raise ConfigError(f"config error: {section.key('book')}.{name}: no such book file {path!r}")
        books[variant] = tuple(paths)
    settings = BookSettings(
        enabled=section.boolean("enabled", False),
        books=books,
        selection=section.choice("selection", "weighted_random", BOOK_SELECTIONS),
        max_depth=int(section.integer("max_depth", 20, minimum=1, what="a positive integer")),
        min_weight=int(section.integer("min_weight", 1, minimum=0, what="a non-negative integer")),
    )
    section.finish()
    return settings


def _challenge(section: _Section) -> ChallengeSettings:
    def non_negative(name: str, default: int) -> int:
        return int(section.integer(name, default, minimum=0, what="a non-negative integer"))

    def positive_or_null(name: str) -> int | None:
        value = section.integer(name, None, minimum=1, what="a positive integer or null", nullable=True)
        return None if value is None else int(value)

    settings = ChallengeSettings(
        concurrency=section.integer("concurrency", 1, minimum=1, what="a positive integer"),
        variants=section.string_list("variants", ChallengeSettings.variants, VARIANT_NAMES),
        speeds=section.string_list("speeds", ChallengeSettings.speeds, SPEED_NAMES),
        min_base_s=non_negative("min_base_s", 0),
        max_base_s=non_negative("max_base_s", 10800),
        min_increment_s=non_negative("min_increment_s", 0),
        max_increment_s=non_negative("max_increment_s", 180),
        min_days=non_negative("min_days", 1),
        max_days=non_negative("max_days", 14),
        modes=section.string_list("modes", ChallengeSettings.modes, MODE_NAMES),
        accept_bots=section.boolean("accept_bots", True),
        only_bots=section.boolean("only_bots", False),
        block_list=tuple(name.lower() for name in section.string_list("block_list", ())),
        allow_list=tuple(name.lower() for name in section.string_list("allow_list", ())),
        min_rating=non_negative("min_rating", 0),
        max_rating=non_negative("max_rating", 4000),
        max_rating_diff=section.integer("max_rating_diff", None, minimum=0,
                                        what="a non-negative integer or null", nullable=True),
        reserve_for_humans=non_negative("reserve_for_humans", 0),
        max_games_per_user=positive_or_null("max_games_per_user"),
        max_challenges_per_bot_per_hour=positive_or_null("max_challenges_per_bot_per_hour"),
        max_bot_challenges_per_day=positive_or_null("max_bot_challenges_per_day"),
        bullet_requires_increment=section.boolean("bullet_requires_increment", False),
    )
    for low, high in (("min_base_s", "max_base_s"), ("min_increment_s", "max_increment_s"),
                      ("min_days", "max_days"), ("min_rating", "max_rating"),
                      ("reserve_for_humans", "concurrency")):
        if getattr(settings, low) > getattr(settings, high):
            raise section.fail(low, f"at most {section.key(high)} ({getattr(settings, high)})",
                               getattr(settings, low))
    section.finish()
    return settings


def _draw(section: _Section) -> DrawSettings:
    settings = DrawSettings(
        enabled=section.boolean("enabled", True),
        offer_after_move=section.integer("offer_after_move", 40, minimum=1, what="a positive integer"),
        max_score_cp=section.integer("max_score_cp", 15, minimum=0, what="a non-negative integer"),
        moves=section.integer("moves", 6, minimum=1, what="a positive integer"),
    )
    section.finish()
    return settings


def _resign(section: _Section) -> ResignSettings:
    settings = ResignSettings(
        enabled=section.boolean("enabled", True),
        score_cp=section.integer("score_cp", -800, what="an integer (centipawns, negative)"),
        moves=section.integer("moves", 5, minimum=1, what="a positive integer"),
    )
    section.finish()
    return settings


CHAT_ROOMS = ("player", "spectator")


def _chat(section: _Section) -> ChatSettings:
    settings = ChatSettings(
        commands=section.boolean("commands", True),
        eval_rooms=section.string_list("eval_rooms", ChatSettings.eval_rooms, CHAT_ROOMS),
        cooldown_s=section.number("cooldown_s", 5.0),
    )
    section.finish()
    return settings


def _correspondence(section: _Section) -> CorrespondenceSettings:
    settings = CorrespondenceSettings(
        check_interval_s=section.number("check_interval_s", 600.0, minimum=1.0),
        disconnect_after_s=section.number("disconnect_after_s", 120.0),
        max_games=section.integer("max_games", 20, minimum=1, what="a positive integer"),
    )
    section.finish()
    return settings


def _time_control_entry(value: Any, path: str) -> MatchmakingTimeControl:
    entry = _Section(value, path)
    base = entry.integer("base_s", None, minimum=0, what="a non-negative integer or null", nullable=True)
    increment = entry.integer("increment_s", 0, minimum=0, what="a non-negative integer")
    days = entry.integer("days", None, minimum=1, what="a positive integer or null", nullable=True)
    entry.finish()
    if (base is None) == (days is None):
        raise ConfigError(f"config error: {path} must have either base_s (with increment_s) or days, "
                          f"got {value!r}")
    if base is not None and base == 0 and increment == 0:
        raise ConfigError(f"config error: {path} must not be a clock of 0+0")
    return MatchmakingTimeControl(base_s=base, increment_s=increment if base is not None else 0, days=days)


def _matchmaking(section: _Section) -> MatchmakingSettings:
    raw_controls = section.raw("time_controls", None)
    if raw_controls is None:
        controls = MatchmakingSettings.time_controls
    elif isinstance(raw_controls, list) and raw_controls:
        controls = tuple(_time_control_entry(item, f"{section.key('time_controls')}[{index}]")
                         for index, item in enumerate(raw_controls))
    else:
        raise section.fail("time_controls", "a non-empty list of {base_s, increment_s} or {days} mappings",
                           raw_controls)
    variants = section.string_list("variants", MatchmakingSettings.variants, VARIANT_NAMES)
    if not variants:
        raise section.fail("variants", "a non-empty list of " + ", ".join(VARIANT_NAMES), [])
    settings = MatchmakingSettings(
        enabled=section.boolean("enabled", False),
        idle_s=section.number("idle_s", 300.0),
        variants=variants,
        time_controls=controls,
        rated=section.boolean("rated", False),
        min_rating=section.integer("min_rating", 0, minimum=0, what="a non-negative integer"),
        max_rating=section.integer("max_rating", 4000, minimum=0, what="a non-negative integer"),
        block_list=tuple(name.lower() for name in section.string_list("block_list", ())),
        challenge_timeout_s=section.number("challenge_timeout_s", 30.0, minimum=1.0),
        decline_cooldown_s=section.number("decline_cooldown_s", 3600.0),
        daily_limit=section.integer("daily_limit", 100, minimum=1, what="a positive integer"),
    )
    if settings.min_rating > settings.max_rating:
        raise section.fail("min_rating", f"at most {section.key('max_rating')} ({settings.max_rating})",
                           settings.min_rating)
    section.finish()
    return settings


def settings_from_dict(data: Any) -> Settings:
    """Validate a parsed YAML document (or a dict built by tests) into :class:`Settings`."""
    root = _Section(data, "")
    server = _server(root.section("server"))
    engine = _engine(root.section("engine"))
    time_section = root.section("time")
    time = TimeSettings(
        move_overhead_ms=time_section.integer("move_overhead_ms", 300, minimum=0,
                                              what="a non-negative integer"),
        correspondence_move_s=time_section.integer("correspondence_move_s", 60, minimum=1,
                                                   what="a positive integer"),
        abort_unstarted_after_s=time_section.integer("abort_unstarted_after_s", 60, minimum=1,
                                                     what="a positive integer"),
        give_up_after_s=time_section.integer("give_up_after_s", 300, minimum=1, what="a positive integer"),
    )
    time_section.finish()
    challenge = _challenge(root.section("challenge"))
    draw = _draw(root.section("draw"))
    resign = _resign(root.section("resign"))
    greeting_section = root.section("greeting")
    greeting = GreetingSettings(
        hello=greeting_section.string("hello", GreetingSettings.hello, nullable=True) or "",
        goodbye=greeting_section.string("goodbye", GreetingSettings.goodbye, nullable=True) or "",
    )
    greeting_section.finish()
    shutdown_section = root.section("shutdown")
    shutdown = ShutdownSettings(on_signal=shutdown_section.choice("on_signal", "finish", SHUTDOWN_MODES))
    shutdown_section.finish()
    takeback_section = root.section("takeback")
    takeback = TakebackSettings(max_takebacks=takeback_section.integer(
        "max_takebacks", 0, minimum=0, what="a non-negative integer"))
    takeback_section.finish()
    settings = Settings(
        server=server, engine=engine, time=time, challenge=challenge, draw=draw, resign=resign,
        greeting=greeting, shutdown=shutdown, takeback=takeback, chat=_chat(root.section("chat")),
        correspondence=_correspondence(root.section("correspondence")),
        matchmaking=_matchmaking(root.section("matchmaking")),
        pgn_directory=root.string("pgn_directory", "games", nullable=True),
        heartbeat_file=root.string("heartbeat_file", None, nullable=True),
        token_file=root.string("token_file", None, nullable=True),
    )
    root.finish()
    return settings


def load_settings(path: str | os.PathLike[str]) -> Settings:
    """Read and validate a YAML config file. Raises :class:`ConfigError` with a one-line message."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"config error: cannot read {path}: {error.strerror}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ConfigError(f"config error: {path} is not valid YAML{where}") from None
    return settings_from_dict(data)


def resolve_token(settings: Settings, environ: Mapping[str, str] | None = None) -> str:
    """The API token: ``SCHESS_BOT_TOKEN`` first, then ``token_file``. Raises :class:`TokenError`."""
    environ = os.environ if environ is None else environ
    token = environ.get(TOKEN_ENV, "").strip()
    if token:
        return token
    if settings.token_file:
        path = Path(settings.token_file).expanduser()
        try:
            mode = path.stat().st_mode
            token = path.read_text(encoding="utf-8").strip()
        except OSError as error:
            raise TokenError(f"cannot read token_file {path}: {error.strerror}") from None
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            log.warning("token_file %s is readable by others (mode %o); chmod 600 it", path, mode & 0o777)
        if token:
            return token
        raise TokenError(f"token_file {path} is empty")
    raise TokenError(f"no API token: set {TOKEN_ENV} or token_file in the config")

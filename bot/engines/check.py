"""The engine check at start-up, before logging in: the configured engine must start, complete its handshake
(UCI ``uciok``, XBoard ``feature done=1``) and offer every variant the bot accepts. A bot whose engine cannot
play must not accept a game: the stand-in move exists to save one move on the clock, not to play games.

:func:`check_engine` starts the engine the games will use (:func:`bot.engines.make_engine`), reads what it
offers and closes it. What it can play, by protocol:

- UCI: the ``UCI_Variant`` combo's ``var`` values (``seirawan``, ``chess``); a 960 variant also needs
  ``UCI_Chess960``. A UCI engine without ``UCI_Variant`` plays chess only (and Chess960 with ``UCI_Chess960``).
- XBoard: ``feature variants`` (``seirawan``, ``normal``, ``fischerandom``); no XBoard name exists for
  S-chess960.
- homemade (a Python class, :mod:`bot.engines.homemade`): every variant (the rules are ``engine.Board``'s).

``engine.options`` are checked against the options the engine advertised (:func:`option_problems`): a name it
does not have, a value of the wrong type (a ``spin`` wants an integer, a ``check`` true or false, a ``combo``
one of its values) or out of its range fails the check, each problem naming ``engine.options.NAME``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from bot import closest_name
from bot.engines.process import EngineError, EngineStartError
from bot.engines.uci import UciEngine, UciOption
from bot.engines.xboard import XBoardEngine, xboard_variant
from engine.variants import VARIANT_NAMES, split_variant_name

log = logging.getLogger(__name__)

CHECK_LABEL = "engine"
#: the CECP names of the bot's variants (:func:`bot.engines.xboard.xboard_variant`)
XBOARD_NAMES = ("seirawan", "normal", "fischerandom")


class EngineCheckFailed(RuntimeError):
    """The engine failed its start-up check; ``str()`` is the one line shown to the operator. ``problems``:
    one ``(key, text)`` per mistake found (``engine.options.Hash``, ``engine.command``, ...), for
    ``schess-bot --check``, which prints each on a line of its own."""

    def __init__(self, message: str, problems: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


class AdvertisedOption(Protocol):
    """What :func:`option_problems` reads of an advertised option (UCI's and XBoard's have these fields)."""

    name: str
    type: str
    vars: list[str]
    minimum: int | None
    maximum: int | None


#: the option names the XBoard client turns into commands of their own (``memory``, ``cores``)
XBOARD_COMMAND_OPTIONS = {"memory": "memory", "hash": "memory", "cores": "smp", "threads": "smp"}


#: the fix for a homemade engine's class that cannot be loaded
LOAD_FIX = "engine.command must name an engine class Python can import here, as package.module:ClassName"

def option_problem(value: object, option: AdvertisedOption) -> str | None:
    """Why ``value`` does not fit the advertised ``option`` (None when it does), e.g. ``must be an integer
    from 1 to 1024 (the engine's Hash is a spin), got 'lots'``."""
    kind = option.type
    if kind in ("spin", "slider"):
        number: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
            number = int(value)
        span = (f" from {option.minimum} to {option.maximum}" if option.minimum is not None
                and option.maximum is not None else "")
        if number is None:
            return f"must be an integer{span} (the engine's {option.name} is a spin), got {value!r}"
        if (option.minimum is not None and number < option.minimum) or (
                option.maximum is not None and number > option.maximum):
            return f"must be{span or ' in range'} (the engine's range for {option.name}), got {value!r}"
    elif kind == "check":
        if not isinstance(value, bool) and str(value).lower() not in ("true", "false", "0", "1"):
            return f"must be true or false (the engine's {option.name} is a check), got {value!r}"
    elif kind == "combo" and option.vars:
        if str(value).lower() not in {choice.lower() for choice in option.vars}:
            return f"must be one of {', '.join(option.vars)} (the engine's {option.name}), got {value!r}"
    return None


def option_problems(options: Mapping[str, object], advertised: Mapping[str, AdvertisedOption], *,
                    also_known: Iterable[str] = (), defaults: Mapping[str, object] | None = None
                    ) -> list[tuple[str, str]]:
    """``engine.options`` checked against the options the engine advertised (keys in lower case, as UCI
    compares names): one ``(key, text)`` per option it does not have or whose value does not fit.
    ``also_known``: names the client handles itself (XBoard ``memory``/``cores``). ``defaults``: options the
    configuration sets when the operator does not (``Hash: 64``); one the engine lacks is left out, not an
    error, as the operator never asked for it (an engine that has it still gets its value checked)."""
    known = {name.lower() for name in also_known}
    known |= {name.lower() for name, value in (defaults or {}).items() if options.get(name) == value}
    names = sorted({option.name for option in advertised.values()})
    problems: list[tuple[str, str]] = []
    for name, value in options.items():
        key = f"engine.options.{name}"
        option = advertised.get(name.lower())
        if option is None:
            if name.lower() in known:
                continue
            close = closest_name(name, names)
            hint = f"did you mean {close}? " if close else ""
            problems.append((key, f"the engine has no option {name!r}; {hint}its options: "
                                  f"{', '.join(names) or 'none'}"))
            continue
        problem = option_problem(value, option)
        if problem is not None:
            problems.append((key, problem))
    return problems


def client_option_problems(client: object, options: Mapping[str, object],
                           defaults: Mapping[str, object] | None = None) -> list[tuple[str, str]]:
    """:func:`option_problems` for a started client (a homemade engine takes no options)."""
    if isinstance(client, UciEngine):
        return option_problems(options, client.advertised, defaults=defaults)
    if isinstance(client, XBoardEngine):
        handled = [name for name, feature in XBOARD_COMMAND_OPTIONS.items() if client.feature(feature) == "1"]
        return option_problems(options, client.xoptions, also_known=handled, defaults=defaults)
    return []  # a homemade engine takes no options (the shipped default Hash: 64 must not stop it)


@dataclass(frozen=True)
class EngineCheck:
    """What the check found: the engine's name, the variants it can play (of ``VARIANT_NAMES``) and the
    variants the bot will accept (after dropping unplayable ones, if the operator asked for that)."""

    id_name: str
    protocol: str
    playable: tuple[str, ...]
    accepted: tuple[str, ...]
    dropped: tuple[str, ...] = ()


def uci_playable(advertised: dict[str, UciOption]) -> set[str]:
    """The bot's variant names a UCI engine can play, from the options it advertised (names in lower case)."""
    variant_option = advertised.get("uci_variant")
    if variant_option is None:
        rules = {"chess"}
    elif variant_option.vars:
        rules = set(variant_option.vars)
    else:  # a UCI_Variant without a list of values: nothing to check against, take it at its word
        rules = {"seirawan", "chess"}
    has_960 = "uci_chess960" in advertised
    return {name for name in VARIANT_NAMES
            for variant, chess960 in [split_variant_name(name)]
            if variant in rules and (has_960 or not chess960)}


def xboard_playable(variants: Iterable[str]) -> set[str]:
    """The bot's variant names an XBoard engine can play, from its ``feature variants``."""
    offered = set(variants)
    playable = set()
    for name in VARIANT_NAMES:
        try:
            if xboard_variant(*split_variant_name(name)) in offered:
                playable.add(name)
        except EngineStartError:
            continue  # no XBoard name for it (S-chess960)
    return playable


def describe_offer(client: object) -> str:
    """What the engine said it plays, for the error message."""
    if isinstance(client, UciEngine):
        option = client.advertised.get("uci_variant")
        if option is None:
            return "it has no UCI_Variant option, so it plays chess only"
        chess960 = "with" if "uci_chess960" in client.advertised else "without"
        return f"its UCI_Variant lists {', '.join(option.vars) or 'nothing'}, {chess960} UCI_Chess960"
    if isinstance(client, XBoardEngine):
        known = [name for name in XBOARD_NAMES if name in client.variants]
        return (f"of the XBoard variants {', '.join(XBOARD_NAMES)} its feature variants lists "
                f"{', '.join(known) or 'none'} (S-chess960 has no XBoard name)")
    return "it plays every variant"


def check_engine(command: str, protocol: str, make: Callable[[str], object], wanted: Sequence[str], *,
                 drop_unplayable: bool, startup_timeout_s: float, interpreter: str | None = None,
                 options: Mapping[str, object] | None = None,
                 default_options: Mapping[str, object] | None = None) -> EngineCheck:
    """Start the engine (``make(label)`` builds the client the games use), check it offers ``wanted`` and
    takes ``options`` (``engine.options``; ``default_options``: the ones the configuration sets by itself, see
    :func:`option_problems`), close it. Raises :class:`EngineCheckFailed` with one line naming
    the command, what failed and the fix; with ``drop_unplayable`` a variant it cannot play is dropped with a
    warning instead (unless none is left). ``interpreter``: ``engine.interpreter``, named when it is the
    program that cannot be run."""
    where = f"engine {command!r} (engine.command, engine.protocol: {protocol})"
    try:
        client = make(CHECK_LABEL)
    except EngineError as error:
        raise EngineCheckFailed(f"error: {where} cannot be loaded: {reason(error)}; fix: {LOAD_FIX}",
                                [("engine.command", f"{command!r} cannot be loaded: {reason(error)}; "
                                                    f"fix: {LOAD_FIX}")]) from None
    try:
        start = getattr(client, "start", None)
        if start is not None:
            start()
    except EngineError as error:
        close_quietly(client)
        text = reason(error)
        key, fix = "engine.command", start_hint(protocol, startup_timeout_s)
        if text.startswith("cannot start"):  # the program itself could not be run
            key, fix = cannot_run_hint(command, protocol, interpreter)
        raise EngineCheckFailed(f"error: {where} did not start: {text}; fix: {fix}",
                                [(key, f"engine {command!r} did not start: {text}; fix: {fix}")]) from None
    except BaseException:  # a stop signal during the start: leave no engine process behind
        close_quietly(client)
        raise
    try:
        if isinstance(client, UciEngine):
            playable = uci_playable(client.advertised)
        elif isinstance(client, XBoardEngine):
            playable = xboard_playable(client.variants)
        else:
            playable = set(VARIANT_NAMES)
        id_name = str(getattr(client, "id_name", command))
        offer = describe_offer(client)
        wrong_options = client_option_problems(client, options or {}, default_options)
    finally:
        close_quietly(client)
    if wrong_options:
        raise EngineCheckFailed(f"error: {where} ({id_name}): " + "; ".join(f"{key} {text}" if text.startswith(
            "must") else f"{key}: {text}" for key, text in wrong_options), wrong_options)
    missing = [name for name in wanted if name not in playable]
    accepted = tuple(name for name in wanted if name in playable)
    ordered = tuple(name for name in VARIANT_NAMES if name in playable)
    if missing and (not drop_unplayable or not accepted):
        fix = ("give it an engine that plays them" if not accepted else
               f"remove {', '.join(missing)} from challenge.variants, or set "
               "engine.drop_unplayable_variants: true to drop them with a warning")
        raise EngineCheckFailed(f"error: {where} ({id_name}) cannot play {', '.join(missing)}: {offer}; "
                                f"fix: {fix}", [("challenge.variants", f"engine {command!r} ({id_name}) cannot play "
                                                 f"{', '.join(missing)}: {offer}; fix: {fix}")])
    if missing:
        log.warning("engine %s cannot play %s (%s); not accepting %s (engine.drop_unplayable_variants)",
                    id_name, ", ".join(missing), offer, "it" if len(missing) == 1 else "them")
    return EngineCheck(id_name, protocol, ordered, accepted, tuple(missing))


def cannot_run_hint(command: str, protocol: str, interpreter: str | None) -> tuple[str, str]:
    """The key to blame and the fix when the engine's program could not be run at all."""
    if command == "builtin" and interpreter:
        return "engine.interpreter", (f"engine.interpreter {interpreter!r} must name a Python that is installed "
                                      "(install it, e.g. apt install pypy3, or set engine.interpreter: null)")
    first = command.split()[0] if command.split() else command
    if protocol != "homemade" and ":" in first and "/" not in first and "\\" not in first:
        return "engine.protocol", (f"{command!r} looks like a Python class (package.module:ClassName): set "
                                   "engine.protocol: homemade")
    return "engine.command", "engine.command must name a program that exists and may be executed"


def start_hint(protocol: str, startup_timeout_s: float) -> str:
    """What to do about an engine that ran but did not complete its handshake."""
    if protocol == "homemade":
        return "engine.command must name a class as package.module:ClassName"
    other = "xboard" if protocol == "uci" else "uci"
    return (f"engine.command must start a {'UCI' if protocol == 'uci' else 'XBoard'} engine (run it by hand "
            f"to see; or set engine.protocol: {other}), or raise engine.startup_timeout_s "
            f"({startup_timeout_s:g} s) if it is only slow")


def reason(error: Exception) -> str:
    """The error on one line, without the label the engine layer puts in front."""
    text = " ".join(str(error).split())
    while text.startswith(f"{CHECK_LABEL}: "):
        text = text[len(CHECK_LABEL) + 2:]
    return text


def close_quietly(client: object) -> None:
    close = getattr(client, "close", None)
    if close is None:
        return
    try:
        close()
    except Exception:  # noqa: BLE001 - the check is over either way
        log.debug("engine check: close failed", exc_info=True)

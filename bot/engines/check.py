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
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from bot.engines.process import EngineError, EngineStartError
from bot.engines.uci import UciEngine, UciOption
from bot.engines.xboard import XBoardEngine, xboard_variant
from engine.variants import VARIANT_NAMES, split_variant_name

log = logging.getLogger(__name__)

CHECK_LABEL = "engine"
#: the CECP names of the bot's variants (:func:`bot.engines.xboard.xboard_variant`)
XBOARD_NAMES = ("seirawan", "normal", "fischerandom")


class EngineCheckFailed(RuntimeError):
    """The engine failed its start-up check; ``str()`` is the one line shown to the operator."""


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
                 drop_unplayable: bool, startup_timeout_s: float) -> EngineCheck:
    """Start the engine (``make(label)`` builds the client the games use), check it offers ``wanted``, close
    it. Raises :class:`EngineCheckFailed` with one line naming the command, what failed and the fix; with
    ``drop_unplayable`` a variant it cannot play is dropped with a warning instead (unless none is left)."""
    where = f"engine {command!r} (engine.command, engine.protocol: {protocol})"
    try:
        client = make(CHECK_LABEL)
    except EngineError as error:
        raise EngineCheckFailed(f"error: {where} cannot be loaded: {reason(error)}; fix engine.command") \
            from None
    try:
        start = getattr(client, "start", None)
        if start is not None:
            start()
    except EngineError as error:
        close_quietly(client)
        text = reason(error)
        if text.startswith("cannot start"):  # the program itself could not be run
            fix = "engine.command must name a program that exists and may be executed"
        else:
            fix = start_hint(protocol, startup_timeout_s)
        raise EngineCheckFailed(f"error: {where} did not start: {text}; fix: {fix}") from None
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
    finally:
        close_quietly(client)
    missing = [name for name in wanted if name not in playable]
    accepted = tuple(name for name in wanted if name in playable)
    ordered = tuple(name for name in VARIANT_NAMES if name in playable)
    if missing and (not drop_unplayable or not accepted):
        fix = ("give it an engine that plays them" if not accepted else
               f"remove {', '.join(missing)} from challenge.variants, or set "
               "engine.drop_unplayable_variants: true to drop them with a warning")
        raise EngineCheckFailed(f"error: {where} ({id_name}) cannot play {', '.join(missing)}: {offer}; "
                                f"fix: {fix}")
    if missing:
        log.warning("engine %s cannot play %s (%s); not accepting %s (engine.drop_unplayable_variants)",
                    id_name, ", ".join(missing), offer, "it" if len(missing) == 1 else "them")
    return EngineCheck(id_name, protocol, ordered, accepted, tuple(missing))


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

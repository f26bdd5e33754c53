"""Lichess tournaments for a BOT account, as data: what ``GET /api/tournament/{id}`` (an arena) and
``GET /api/swiss/{id}`` say about one, and why a join was refused, in one line (docs/server-api.md,
"Lichess tournaments for bots"). The calls themselves are :class:`bot.wire.server.Server`'s.

A join answers ``{"ok": true}`` or HTTP 400 with ``{"error": ...}``: ``Wrong entry code``, ``Missing team``,
``Your pause is not over yet``, or ``Tournament restrictions``, whose reasons (bots not allowed, a rating
range, a number of rated games) are the tournament's ``verdicts`` for the account that asks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from bot.wire.dialect import Dialect
from bot.wire.errors import MalformedLine

TournamentKind = Literal["arena", "swiss"]
TournamentStatus = Literal["created", "started", "finished"]
TOURNAMENT_KINDS: tuple[TournamentKind, ...] = ("arena", "swiss")

#: the join refusal that passes: an arena's pause after a withdrawal (try again a minute later)
PAUSE_NOT_OVER = "Your pause is not over yet"
#: a refusal whose reasons are the tournament's verdicts for the bot's account
RESTRICTIONS = "Tournament restrictions"
#: what each of Lichess's other join refusals means to the operator, and the fix
REFUSAL_TEXTS = {
    "Wrong entry code": "a private tournament: its entry code is the tournament's password: in tournaments",
    "Missing team": "a team battle: name the bot's team (team: in tournaments), one the bot is a member of",
}


@dataclass(frozen=True)
class TournamentInfo:
    """One arena or Swiss tournament as the bot's account sees it."""

    id: str
    kind: TournamentKind
    name: str
    status: TournamentStatus
    clock: str  # "3+2" (minutes+seconds), "" when the answer has no clock
    variant: str  # Lichess's key: standard, chess960, ...
    rated: bool
    #: the conditions the bot's account does not meet, as Lichess words them ("Bot players are not allowed",
    #: "Your Blitz rating (1400) is too low"), from the answer's ``verdicts``
    refusals: tuple[str, ...] = ()
    team_battle: bool = False

    @property
    def over(self) -> bool:
        return self.status == "finished"

    def describe(self) -> str:
        """``arena 'Bot Arena' (3+2 standard, rated, running)``."""
        when = {"created": "not started yet", "started": "running", "finished": "finished"}[self.status]
        clock = f"{self.clock} " if self.clock else ""
        return f"{self.kind} {self.name!r} ({clock}{self.variant}, {'rated' if self.rated else 'casual'}, {when})"


def _clock_text(clock: Any) -> str:
    if not isinstance(clock, dict) or not isinstance(clock.get("limit"), (int, float)):
        return ""
    return f"{clock['limit'] / 60:g}+{int(clock.get('increment') or 0)}"


def _variant_key(variant: Any) -> str:
    if isinstance(variant, dict):
        variant = variant.get("key")
    return variant if isinstance(variant, str) and variant else "standard"


def _status(data: dict[str, Any], kind: TournamentKind) -> TournamentStatus:
    if kind == "swiss":
        status = data.get("status")
        return status if status in ("created", "started", "finished") else "created"
    if data.get("isFinished") is True or data.get("status") == 30:
        return "finished"
    if data.get("isStarted") is True or data.get("status") == 20 or isinstance(data.get("secondsToFinish"), int):
        return "started"
    return "created"


def _refusals(verdicts: Any) -> tuple[str, ...]:
    if not isinstance(verdicts, dict) or not isinstance(verdicts.get("list"), list):
        return ()
    refused = []
    for item in verdicts["list"]:
        if not isinstance(item, dict) or item.get("verdict") in (None, "ok"):
            continue
        verdict, condition = str(item.get("verdict")), str(item.get("condition") or "")
        refused.append(verdict if not condition or verdict == condition else f"{verdict} ({condition})")
    return tuple(refused)


def parse_tournament(data: Any, kind: TournamentKind) -> TournamentInfo:
    """``GET /api/tournament/{id}`` (arena) or ``GET /api/swiss/{id}`` as :class:`TournamentInfo`; raises
    :class:`MalformedLine` for an answer without an id."""
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        raise MalformedLine(f"not a {kind} tournament (no id)")
    name = data.get("fullName") or data.get("name") or data["id"]
    return TournamentInfo(
        id=data["id"], kind=kind, name=str(name), status=_status(data, kind), clock=_clock_text(data.get("clock")),
        variant=_variant_key(data.get("variant")), rated=data.get("rated") is True,
        refusals=_refusals(data.get("verdicts")), team_battle=isinstance(data.get("teamBattle"), dict),
    )


def join_error(data: Any) -> str:
    """The reason in a refused join's answer (``{"error": "Missing team"}``); the body itself otherwise."""
    if isinstance(data, dict) and isinstance(data.get("error"), str):
        return str(data["error"])
    return str(data)[:200]


def refusal_line(error: str, info: TournamentInfo | None) -> str:
    """Why a join was refused, in one line, with the fix where there is one: the verdicts the bot's account
    failed (bots not allowed, a rating range) for ``Tournament restrictions``, what ``Wrong entry code`` and
    ``Missing team`` ask for, Lichess's own words otherwise."""
    if error in REFUSAL_TEXTS:
        return REFUSAL_TEXTS[error]
    if info is not None and info.refusals:
        return "; ".join(info.refusals)
    if info is not None and info.team_battle:
        return REFUSAL_TEXTS["Missing team"]
    return error or "no reason given"


def refusal_passes(error: str) -> bool:
    """A refusal worth asking again about later (an arena's pause after a withdrawal)."""
    return error == PAUSE_NOT_OVER


def tournaments_unsupported(dialect: Dialect, url: str) -> str | None:
    """The line that refuses a config with ``tournaments`` for a server whose BOTs cannot join any; None when
    they can."""
    if dialect.bot_tournaments:
        return None
    return (f"tournaments: {url.rstrip('/')} ({dialect} dialect) lets no BOT into its tournaments; remove the "
            "tournaments key (and --tournament) for this server")


__all__ = ["PAUSE_NOT_OVER", "RESTRICTIONS", "TOURNAMENT_KINDS", "TournamentInfo", "TournamentKind", "join_error",
           "parse_tournament", "refusal_line", "refusal_passes", "tournaments_unsupported"]

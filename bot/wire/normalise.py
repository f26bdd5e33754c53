"""The normalisers: server lines (both dialects) -> the event model of :mod:`bot.wire.events`.

Every dialect quirk documented in ``docs/server-api.md`` is handled here, in pure functions that tests feed
with real server lines. A line that cannot be understood raises :class:`bot.wire.errors.MalformedLine` (a
``ValueError``) with the reason; the caller logs it and goes on.
"""

from __future__ import annotations

import json
from typing import Any

from bot.wire.dialect import Dialect
from bot.wire.errors import MalformedLine
from bot.wire.events import (
    Account,
    Challenge,
    ChallengeEvent,
    ChallengeGone,
    ChatLine,
    GameEnd,
    GameEvent,
    GameFinish,
    GameFull,
    GameStart,
    GameState,
    KeepAlive,
    LobbyEvent,
    OnlineBot,
    OpponentGone,
    Player,
    ServerTerminated,
    TimeControl,
    UnknownEvent,
    Variant,
    decline_reason_from_key,
)
from engine.variants import from_server_key

#: Clocks this large (2^31 - 1 ms, about 25 days) are what the servers send for games without a clock.
NO_CLOCK_MS = 2_147_483_647
#: Numbers beyond this (timestamps in ms are about 1.7e12) are nonsense from a broken server; they could
#: overflow when converted to milliseconds, so the line is malformed.
MAX_NUMBER = 1e15


def _loads(line: str | bytes) -> dict[str, Any] | None:
    if isinstance(line, bytes):
        line = line.decode("utf-8", errors="replace")
    if not line.strip():
        return None
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise MalformedLine(f"not JSON: {error.msg}") from None
    except (ValueError, RecursionError) as error:  # an integer too long to convert; nesting too deep
        raise MalformedLine(f"not usable JSON: {type(error).__name__}") from None
    if not isinstance(data, dict):
        raise MalformedLine("not a JSON object")
    return data


def as_bool(value: Any) -> bool:
    """pychess sends some flags as the strings "True"/"False"."""
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes")
    return bool(value)


def _number(value: Any, what: str) -> float:
    """A JSON number (or a numeric string) within +-MAX_NUMBER; raises :class:`MalformedLine` otherwise."""
    if isinstance(value, bool) or value is None:
        raise MalformedLine(f"{what} is not a number: {value!r:.40}")
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise MalformedLine(f"{what} is not a number: {value!r:.40}") from None
    if number != number or abs(number) > MAX_NUMBER:
        raise MalformedLine(f"{what} is not a finite number in range: {value!r:.40}")
    return number


def _dict(data: dict[str, Any], key: str, default: dict[str, Any] | None = None) -> dict[str, Any]:
    value = data.get(key, default)
    if not isinstance(value, dict):
        raise MalformedLine(f"{key} is missing or not an object")
    return value


def _str(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise MalformedLine(f"{key} is missing or not a string")
    return value


def _optional_int(value: Any) -> int | None:
    """An integer for optional fields (ratings, days, createdAt); None when absent or unusable."""
    try:
        number = None if value is None or isinstance(value, bool) else float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if number is None or number != number or abs(number) > MAX_NUMBER:
        return None
    return int(number)


def parse_variant(key: Any, chess960_flag: Any = False) -> Variant:
    """Map any server's variant name plus chess960 flag to a :class:`Variant`."""
    raw = str(key or "standard").strip()
    known = from_server_key(raw, as_bool(chess960_flag))
    if known is not None:  # fromPosition is plain chess: its start comes as an initialFen
        return Variant(*known)
    return Variant(raw, as_bool(chess960_flag))


def parse_initial_fen(value: Any) -> str | None:
    """``startpos`` (lichess), ``""`` and ``"None"`` (pychess) all mean the start position."""
    if value is None or not isinstance(value, str):
        return None
    text = value.strip()
    if text in ("", "None", "null", "startpos"):
        return None
    return text


def parse_player(data: Any) -> Player:
    if not isinstance(data, dict):
        return Player(name="?")
    name = data.get("name") or data.get("username") or data.get("id") or "?"
    title = data.get("title")
    return Player(
        name=str(name),
        id=str(data["id"]) if data.get("id") else None,
        title=str(title) if title else None,
        rating=_optional_int(data.get("rating")),
    )


def parse_time_control(data: Any) -> TimeControl:
    """A challenge's ``timeControl`` (seconds in both dialects) -> :class:`TimeControl` in ms."""
    if not isinstance(data, dict):
        return TimeControl("unlimited")
    kind = data.get("type")
    if kind == "clock":
        limit = _number(data.get("limit", 0), "timeControl.limit")
        increment = _number(data.get("increment", 0), "timeControl.increment")
        return TimeControl("clock", int(limit * 1000), int(increment * 1000))
    if kind == "correspondence":
        days = _optional_int(data.get("daysPerTurn"))
        return TimeControl("correspondence", days=days or 1)
    return TimeControl("unlimited")


def _speed_from_time_control(time_control: TimeControl) -> str:
    if time_control.kind != "clock":
        return "correspondence"
    estimate_s = (time_control.limit_ms + 40 * time_control.increment_ms) / 1000
    for limit, name in ((29, "ultraBullet"), (179, "bullet"), (479, "blitz"), (1499, "rapid")):
        if estimate_s <= limit:
            return name
    return "classical"


def _variant_key(variant_data: Any) -> Any:
    """lichess sends ``{"key": ...}``; pychess's gameFull only ``{"name": ...}``."""
    if not isinstance(variant_data, dict):
        return variant_data if isinstance(variant_data, str) else None
    return variant_data.get("key") or variant_data.get("name")


def parse_challenge(data: dict[str, Any], compat: Any = None) -> Challenge:
    """A challenge object; ``compat`` is the event's ``compat`` object (Lichess puts it beside the
    challenge, not inside it)."""
    challenge_id = _str(data, "id")
    if not isinstance(compat, dict):
        compat = data.get("compat")
    bot_compatible = compat.get("bot") if isinstance(compat, dict) else None
    variant_data = data.get("variant")
    variant_key = _variant_key(variant_data)
    time_control = parse_time_control(data.get("timeControl"))
    speed = data.get("speed")
    return Challenge(
        id=challenge_id,
        challenger=parse_player(data.get("challenger")),
        variant=parse_variant(variant_key, data.get("chess960", False)),
        time_control=time_control,
        rated=as_bool(data.get("rated", False)),
        speed=speed if isinstance(speed, str) and speed else _speed_from_time_control(time_control),
        color=str(data.get("color") or "random"),
        initial_fen=parse_initial_fen(data.get("initialFen")),
        dest=parse_player(data["destUser"]) if isinstance(data.get("destUser"), dict) else None,
        bot_compatible=as_bool(bot_compatible) if bot_compatible is not None else None,
    )


def normalise_lobby_line(line: str | bytes) -> LobbyEvent:
    """One line of ``/api/stream/event`` -> one event, the same in both dialects (their event lines differ
    only in fields both forms of which are read here). Raises :class:`MalformedLine`."""
    data = _loads(line)
    if data is None:
        return KeepAlive()
    kind = data.get("type")
    if kind == "ping":
        return KeepAlive()
    if kind == "terminated":
        return ServerTerminated()
    if kind == "challenge":
        return ChallengeEvent(parse_challenge(_dict(data, "challenge"), data.get("compat")))
    if kind in ("challengeCanceled", "challengeDeclined"):
        challenge = _dict(data, "challenge")
        reason = challenge.get("declineReasonKey")
        return ChallengeGone(
            _str(challenge, "id"), declined=kind == "challengeDeclined",
            reason=decline_reason_from_key(reason) if isinstance(reason, str) and reason else None,
            challenger=parse_player(challenge.get("challenger")).name if challenge.get("challenger") else None,
            dest=parse_player(challenge.get("destUser")).name if challenge.get("destUser") else None,
        )
    if kind in ("gameStart", "gameFinish"):
        game = _dict(data, "game")
        game_id = game.get("gameId") or game.get("id")
        if not isinstance(game_id, str) or not game_id:
            raise MalformedLine(f"{kind} without a game id")
        if kind == "gameFinish":
            return GameFinish(game_id)
        color = game.get("color")
        opponent = game.get("opponent")
        opponent_name = opponent.get("username") if isinstance(opponent, dict) else None
        tournament = game.get("tournamentId") or game.get("swissId")
        return GameStart(game_id, color if color in ("white", "black") else None,
                         chess960=as_bool(game.get("chess960", False)),
                         opponent=opponent_name if isinstance(opponent_name, str) and opponent_name else None,
                         tournament_id=tournament if isinstance(tournament, str) and tournament else None)
    return UnknownEvent(str(kind))


def parse_game_state(data: dict[str, Any], dialect: Dialect) -> GameState:
    """A ``gameState`` object. Clocks in ms in both dialects; increments in seconds on pychess."""
    moves = data.get("moves")
    if not isinstance(moves, str):  # a missing list must not read as "no moves" (a takeback to the start)
        raise MalformedLine("gameState.moves is missing or not a string")
    increment_scale = dialect.increment_unit_ms
    winner = data.get("winner")
    return GameState(
        moves=tuple(moves.split()),
        wtime_ms=int(_number(data.get("wtime", 0), "wtime")),
        btime_ms=int(_number(data.get("btime", 0), "btime")),
        winc_ms=int(_number(data.get("winc", 0), "winc") * increment_scale),
        binc_ms=int(_number(data.get("binc", 0), "binc") * increment_scale),
        status=str(data.get("status") or "started"),
        winner=winner if winner in ("white", "black") else None,
        wdraw=as_bool(data.get("wdraw", False)),
        bdraw=as_bool(data.get("bdraw", False)),
        wtakeback=as_bool(data.get("wtakeback", False)),
        btakeback=as_bool(data.get("btakeback", False)),
    )


def _game_clock(data: dict[str, Any], state: GameState) -> TimeControl:
    clock = data.get("clock")
    if isinstance(clock, dict):  # lichess: ms
        return TimeControl(
            "clock",
            int(_number(clock.get("initial", 0), "clock.initial")),
            int(_number(clock.get("increment", 0), "clock.increment")),
        )
    if data.get("daysPerTurn") is not None:
        return TimeControl("correspondence", days=_optional_int(data.get("daysPerTurn")) or 1)
    if min(state.wtime_ms, state.btime_ms) >= NO_CLOCK_MS:  # pychess correspondence: no clock, no days
        return TimeControl("correspondence")
    if state.wtime_ms > 0 or state.btime_ms > 0:  # pychess sends no clock: infer it from the first state
        return TimeControl("clock", max(state.wtime_ms, state.btime_ms), state.winc_ms)
    return TimeControl("unlimited")


def parse_game_full(data: dict[str, Any], dialect: Dialect) -> GameFull:
    game_id = _str(data, "id")
    variant_data = data.get("variant")
    variant_key = _variant_key(variant_data)
    state = parse_game_state(_dict(data, "state"), dialect)
    created_at = _optional_int(data.get("createdAt"))
    if created_at is not None:
        created_at *= dialect.created_at_unit_ms
    speed = data.get("speed")
    return GameFull(
        game_id=game_id,
        variant=parse_variant(variant_key, data.get("chess960", False)),
        white=parse_player(data.get("white")),
        black=parse_player(data.get("black")),
        initial_fen=parse_initial_fen(data.get("initialFen")),
        state=state,
        clock=_game_clock(data, state),
        created_at_ms=created_at,
        rated=as_bool(data.get("rated", False)),
        speed=speed if isinstance(speed, str) else "",
    )


def normalise_game_line(line: str | bytes, dialect: Dialect) -> list[GameEvent]:
    """One line of a game stream -> its events (a final lichess ``gameState`` also yields a ``GameEnd``)."""
    data = _loads(line)
    if data is None:
        return [KeepAlive()]
    kind = data.get("type")
    if kind == "ping":
        return [KeepAlive()]
    if kind == "gameFull":
        full = parse_game_full(data, dialect)
        if dialect.final_state_ends_game and full.state.is_final:
            return [full, GameEnd(full.state.status, full.state.winner)]
        return [full]
    if kind == "gameState":
        state = parse_game_state(data, dialect)
        if dialect.final_state_ends_game and state.is_final:
            return [state, GameEnd(state.status, state.winner)]
        return [state]
    if kind == "gameEnd":
        game = data.get("game") if isinstance(data.get("game"), dict) else data
        assert isinstance(game, dict)
        status = game.get("status") or data.get("status")
        winner = game.get("winner") or data.get("winner")
        return [GameEnd(str(status) if status else None, winner if winner in ("white", "black") else None)]
    if kind == "chatLine":
        return [ChatLine(str(data.get("room", "")), str(data.get("username", "")), str(data.get("text", "")))]
    if kind == "opponentGone":
        return [OpponentGone(as_bool(data.get("gone", False)), _optional_int(data.get("claimWinInSeconds")))]
    return [UnknownEvent(str(kind))]


def parse_online_bot(data: dict[str, Any]) -> OnlineBot:
    """One line of ``/api/bot/online``. Raises :class:`MalformedLine` without a name."""
    name = data.get("username") or data.get("id")
    if not isinstance(name, str) or not name:
        raise MalformedLine("online bot without a username")
    return OnlineBot(name=name, id=str(data.get("id") or name.lower()), ratings=parse_ratings(data.get("perfs")))


def parse_ratings(perfs: Any) -> dict[str, int]:
    """A Lichess ``perfs`` object (``{"blitz": {"rating": 1500, ...}, ...}``) -> ``{"blitz": 1500, ...}``."""
    ratings: dict[str, int] = {}
    if isinstance(perfs, dict):
        for perf, values in perfs.items():
            rating = _optional_int(values.get("rating")) if isinstance(values, dict) else None
            if rating is not None:
                ratings[str(perf)] = rating
    return ratings


def parse_account(data: dict[str, Any]) -> Account:
    username = str(data.get("username") or data.get("id") or "")
    if not username:
        raise MalformedLine("account without id or username")
    title = data.get("title")
    return Account(id=str(data.get("id") or username), username=username, title=str(title) if title else None,
                   ratings=parse_ratings(data.get("perfs")))

"""The JSON the loopback server sends, in the exact shape (and spacing) of each dialect.

Lichess writes compact JSON; pychess writes Python's default ``json.dumps`` spacing for game lines and
``gameStart`` but compact JSON for challenges and pings (see ``shared/data/pychess-seirawan-game.txt``).
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Any, Optional

from bot import ServerKind
from bot.loopback.model import LoopbackChallenge, LoopbackTimeControl, User, color_name
from engine.variants import LICHESS_KEYS

if TYPE_CHECKING:
    from bot.loopback.games import Game

PYCHESS_PING = '{"type":"ping"}'
PYCHESS_TERMINATED = '{"type":"terminated"}'
LICHESS_KEEPALIVE = ""
CORRESPONDENCE_CLOCK_MS = 2147483647

#: Lichess ``variant`` objects: the key from the one variant table, the display names Lichess shows.
_LICHESS_DISPLAY = {
    ("chess", False): ("Standard", "Std"),
    ("chess", True): ("Chess960", "960"),
    ("seirawan", False): ("S-chess", "S"),
    ("seirawan", True): ("S-chess960", "S960"),
    ("shouse", False): ("S-House", "SH"),
    ("seirawan-placement", False): ("S-chess placement", "SP"),
    ("seirawan-forced-entry", False): ("S-chess forced entry", "SF"),
}
_LICHESS_VARIANTS = {
    combination: {"key": LICHESS_KEYS[combination], "name": name, "short": short}
    for combination, (name, short) in _LICHESS_DISPLAY.items()
}
_LICHESS_STATUS_IDS = {
    "created": 10,
    "started": 20,
    "aborted": 25,
    "mate": 30,
    "resign": 31,
    "stalemate": 32,
    "timeout": 33,
    "draw": 34,
    "outoftime": 35,
    "cheat": 36,
    "noStart": 37,
    "variantEnd": 60,
}


def compact(data: Any) -> str:
    """Lichess style: no spaces."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def spaced(data: Any) -> str:
    """pychess (Python ``json.dumps``) style: ``", "`` and ``": "``."""
    return json.dumps(data)


def lichess_variant(variant: str, chess960: bool, custom_fen: bool = False) -> dict[str, str]:
    """Lichess ``variant`` object; a standard-chess game from a set-up position is ``fromPosition``."""
    if variant == "chess" and custom_fen and not chess960:
        return {"key": "fromPosition", "name": "From Position", "short": "FEN"}
    return dict(_LICHESS_VARIANTS[(variant, chess960)])


def game_variant(game: Game) -> dict[str, str]:
    """The Lichess ``variant`` object of a game."""
    return lichess_variant(game.variant, game.chess960, not game.initial_fen_is_standard)


def _lichess_user(player: User) -> dict[str, Any]:
    return {
        "id": player.id,
        "name": player.name,
        "rating": player.rating,
        "title": player.title,
        "provisional": False,
        "online": True,
    }


def _time_control(challenge: LoopbackChallenge, dialect: ServerKind) -> dict[str, Any]:
    tc = challenge.time_control
    if tc.kind == "clock":
        data: dict[str, Any] = {"type": "clock", "limit": tc.limit_s, "increment": tc.increment_s or 0}
        if dialect == "lichess":
            data["show"] = tc.show()
        return data
    if tc.kind == "correspondence":
        return {"type": "correspondence", "daysPerTurn": tc.days}
    return {"type": "unlimited"}


def challenge_json(challenge: LoopbackChallenge, dialect: ServerKind, base_url: str) -> dict[str, Any]:
    """The challenge object of a ``challenge`` event (and of the challenge-creation answer on Lichess)."""
    if dialect == "pychess":
        return {
            "id": challenge.id,
            "challenger": {
                "name": challenge.challenger.name,
                "rating": challenge.challenger.rating,
                "title": challenge.challenger.title or "",
            },
            "variant": {"key": challenge.variant},
            "rated": challenge.rated,
            "timeControl": _time_control(challenge, dialect),
            "color": challenge.color,
            "finalColor": challenge.final_color,
            "speed": challenge.time_control.speed,
            "perf": {"name": challenge.variant},
            "level": 6,
            "chess960": challenge.chess960,
        }
    variant = lichess_variant(challenge.variant, challenge.chess960, challenge.initial_fen is not None)
    data: dict[str, Any] = {
        "id": challenge.id,
        "url": f"{base_url}/{challenge.id}",
        "status": challenge.status,
        "challenger": _lichess_user(challenge.challenger),
        "destUser": _lichess_user(challenge.dest),
        "variant": variant,
        "rated": challenge.rated,
        "speed": challenge.time_control.speed,
        "timeControl": _time_control(challenge, dialect),
        "color": challenge.color,
        "finalColor": challenge.final_color,
        "perf": {
            "icon": "",
            "name": variant["name"] if variant["key"] != "standard" else challenge.time_control.speed.capitalize(),
        },
        "direction": challenge.direction,
    }
    if challenge.initial_fen is not None:
        data["initialFen"] = challenge.initial_fen
    if challenge.answer is not None and not challenge.answer.accepted:
        data["declineReason"] = f"declined: {challenge.answer.reason}"
        # Lichess writes the key in lower case (``toofast``), while the decline endpoint takes ``tooFast``
        data["declineReasonKey"] = (challenge.answer.reason or "generic").lower()
    return data


def challenge_compat(challenge: LoopbackChallenge, bot_account: bool) -> dict[str, bool]:
    """Lichess's ``compat`` of a challenge event, as lila computes it: a BOT may play bullet and slower
    (and only a BOT account uses the BOT API), the Board API blitz and slower."""
    speed = challenge.time_control.speed
    return {"bot": bot_account and speed != "ultraBullet", "board": speed not in ("ultraBullet", "bullet")}


def challenge_event(
    challenge: LoopbackChallenge, dialect: ServerKind, base_url: str, kind: str = "challenge", bot_account: bool = True
) -> str:
    """An event line about a challenge (``challenge``, ``challengeCanceled``, ``challengeDeclined``). Lichess
    puts ``compat`` beside the challenge object of a ``challenge`` event (``bot_account``: the stream's owner
    is a BOT account)."""
    data: dict[str, Any] = {"type": kind, "challenge": challenge_json(challenge, dialect, base_url)}
    if dialect == "lichess" and kind == "challenge":
        data["compat"] = challenge_compat(challenge, bot_account)
    return compact(data)


def now_playing_json(game: Game) -> dict[str, Any]:
    """Lichess's summary of one of the bot's games (``gameStart``/``gameFinish`` and ``nowPlaying``)."""
    opponent = game.opponent_player
    tc = game.challenge.time_control
    if game.clock is not None:
        seconds_left = int(game.clock.remaining_ms(game.bot_color) // 1000)
    else:
        seconds_left = (tc.days or 14) * 86400
    data: dict[str, Any] = {
        "gameId": game.id,
        "fullId": game.id + "Bot1",
        "color": color_name(game.bot_color),
        "fen": game.board.fen(),
        "hasMoved": any(record.by == "bot" for record in game.move_log),
        "isMyTurn": game.is_bot_turn() and game.status == "started",
        "lastMove": game.moves[-1] if game.moves else "",
        "opponent": {"id": opponent.id, "username": opponent.name, "rating": opponent.rating},
        "perf": tc.speed,
        "rated": game.challenge.rated,
        "secondsLeft": seconds_left,
        "source": "friend",
        "status": {"id": _LICHESS_STATUS_IDS.get(game.status, 20), "name": game.status},
        "speed": tc.speed,
        "variant": {k: v for k, v in game_variant(game).items() if k != "short"},
    }
    if game.winner is not None:
        data["winner"] = color_name(game.winner)
    data.update(tournament_fields(game))
    return data


def tournament_fields(game: Game) -> dict[str, str]:
    """A tournament pairing's game names its tournament: ``source`` and ``tournamentId`` (an arena) or
    ``swissId``; nothing for a challenge's game."""
    if game.challenge.pairing_of is None:
        return {}
    kind, tournament_id = game.challenge.pairing_of
    return {"source": kind, "tournamentId" if kind == "arena" else "swissId": tournament_id}


def game_start_event(game: Game, dialect: ServerKind, kind: str = "gameStart") -> str:
    """``gameStart`` (or Lichess ``gameFinish``) for the event stream."""
    if dialect == "pychess":
        return spaced({"type": kind, "game": {"id": game.id, "skill_level": "6", "chess960": str(game.chess960)}})
    data = now_playing_json(game)
    data.update({"compat": {"bot": True, "board": True}, "id": game.id})
    return compact({"type": kind, "game": data})


def _clock_value(ms: float, dialect: ServerKind, floats: bool) -> Any:
    if dialect == "pychess" and floats:
        return round(ms, 3)
    return int(ms)


def game_state(
    game: Game, dialect: ServerKind, moves: Optional[list[str]] = None, floats: bool = False
) -> dict[str, Any]:
    """The ``gameState`` object (``moves`` overrides the move list, e.g. to withhold a final move)."""
    if game.clock is not None:
        wtime = _clock_value(game.clock.remaining_ms(True), dialect, floats)
        btime = _clock_value(game.clock.remaining_ms(False), dialect, floats)
        inc_s = game.challenge.time_control.increment_s or 0
    else:
        wtime = btime = CORRESPONDENCE_CLOCK_MS
        inc_s = 0
    move_list = game.wire_moves if moves is None else moves
    state: dict[str, Any] = {
        "type": "gameState",
        "moves": " ".join(move_list),
        "wtime": wtime,
        "btime": btime,
    }
    if dialect == "pychess":
        state.update(
            {
                "winc": inc_s,
                "binc": inc_s,
                "wdraw": game.draw_offer[True],
                "bdraw": game.draw_offer[False],
                "wtakeback": game.takeback_offer[True],
                "btakeback": game.takeback_offer[False],
                "status": "started",
            }
        )
        return state
    state.update({"winc": inc_s * 1000, "binc": inc_s * 1000, "status": game.status})
    if game.winner is not None:
        state["winner"] = color_name(game.winner)
    for key, offers in (("draw", game.draw_offer), ("takeback", game.takeback_offer)):
        for color, prefix in ((True, "w"), (False, "b")):
            if offers[color]:
                state[prefix + key] = True
    return state


def game_state_line(game: Game, dialect: ServerKind, moves: Optional[list[str]] = None, floats: bool = False) -> str:
    """A ``gameState`` line in the dialect's spacing."""
    state = game_state(game, dialect, moves, floats)
    return spaced(state) if dialect == "pychess" else compact(state)


def game_full_line(game: Game, dialect: ServerKind, floats: bool = False, restarted: bool = False) -> str:
    """The ``gameFull`` line that opens every game stream (pychess writes ``"None"`` for the standard start
    position of a game that was running when the server restarted)."""
    state = game_state(game, dialect, floats=floats)
    if dialect == "pychess":
        fen = ("None" if restarted else "") if game.initial_fen_is_standard else game.initial_fen
        return spaced(
            {
                "type": "gameFull",
                "id": game.id,
                "variant": {"name": game.variant},
                "white": {"name": game.white.name},
                "black": {"name": game.black.name},
                "initialFen": fen,
                "createdAt": int(game.created_at),
                "state": state,
            }
        )
    tc = game.challenge.time_control
    data: dict[str, Any] = {
        "type": "gameFull",
        "id": game.id,
        "rated": game.challenge.rated,
        "variant": game_variant(game),
    }
    if tc.kind == "clock":
        data["clock"] = {"initial": (tc.limit_s or 0) * 1000, "increment": (tc.increment_s or 0) * 1000}
    elif tc.kind == "correspondence":
        data["daysPerTurn"] = tc.days
    data.update(
        {
            "speed": tc.speed,
            "perf": {"name": tc.speed.capitalize()},
            "createdAt": int(game.created_at * 1000),
            "white": {
                "id": game.white.id,
                "name": game.white.name,
                "title": game.white.title,
                "rating": game.white.rating,
            },
            "black": {
                "id": game.black.id,
                "name": game.black.name,
                "title": game.black.title,
                "rating": game.black.rating,
            },
            "initialFen": "startpos" if game.initial_fen_is_standard else game.initial_fen,
            "state": state,
        }
    )
    data.update({key: value for key, value in tournament_fields(game).items() if key != "source"})
    return compact(data)


def game_end_line(game: Game) -> str:
    """pychess's end-of-game line."""
    return spaced({"type": "gameEnd", "game": {"id": game.id}})


def chat_line(room: str, username: str, text: str, dialect: ServerKind) -> str:
    """A ``chatLine`` on the game stream."""
    data = {"type": "chatLine", "room": room, "username": username, "text": text}
    return spaced(data) if dialect == "pychess" else compact(data)


def opponent_gone_line(gone: bool, claim_win_in_s: int) -> str:
    """Lichess ``opponentGone`` line."""
    data: dict[str, Any] = {"type": "opponentGone", "gone": gone}
    if gone:
        data["claimWinInSeconds"] = claim_win_in_s
    return compact(data)


def account_json(player: User, dialect: ServerKind, title: Optional[str]) -> dict[str, Any]:
    """``GET /api/account``."""
    if dialect == "pychess":
        return {"id": player.name, "username": player.name, "title": title or ""}
    return {"id": player.id, "username": player.name, "title": title, "perfs": {}, "createdAt": 1700000000000}


def online_bot_json(player: User) -> dict[str, Any]:
    """One line of Lichess ``GET /api/bot/online``."""
    return {
        "id": player.id,
        "username": player.name,
        "title": "BOT",
        "perfs": {
            "blitz": {"rating": player.rating, "games": 100, "prog": 0},
            "rapid": {"rating": player.rating, "games": 100, "prog": 0},
        },
    }


#: pychess's game status numbers (``data-status`` of the game page) for the loopback's status names.
PYCHESS_STATUS_NUMBERS = {
    "created": -2,
    "started": -1,
    "aborted": 0,
    "mate": 1,
    "resign": 2,
    "stalemate": 3,
    "timeout": 4,
    "draw": 5,
    "outoftime": 6,
}


#: the shortest and longest delay of an ongoing game's export (Lichess API, "Export one game": "Ongoing games
#: are delayed by a few seconds ranging from 3 to 60 depending on the time control")
EXPORT_DELAY_RANGE_S = (3.0, 60.0)


def lichess_export_delay_s(time_control: LoopbackTimeControl) -> float:
    """How far behind the game Lichess's export of an ongoing game is: the estimated game length (the base
    time and 40 increments) over 60, within 3 and 60 s, as lila delays a running game's moves for watchers;
    60 s for a game without a clock."""
    low, high = EXPORT_DELAY_RANGE_S
    if time_control.kind != "clock":
        return high
    estimated_s = (time_control.limit_s or 0) + 40 * (time_control.increment_s or 0)
    return min(high, max(low, estimated_s / 60))


def game_export_json(game: Game, now: Optional[float] = None, delay_s: Optional[float] = None) -> dict[str, Any]:
    """Lichess's ``GET /game/export/{gameId}`` with ``Accept: application/json``, as the API documents it: the
    game's status name (``started`` while it runs), ``winner`` when there is one, every move in SAN. While
    the game runs, the moves are those played ``delay_s`` (default: :func:`lichess_export_delay_s`) before
    ``now`` (``time.monotonic``); a finished game's are all there."""
    tc = game.challenge.time_control
    sans = list(game.sans)
    if not game.over and now is not None:
        cutoff = now - (lichess_export_delay_s(tc) if delay_s is None else delay_s)
        sans = [san for san, at in zip(game.sans, game.played_at, strict=True) if at <= cutoff]
    data: dict[str, Any] = {
        "id": game.id,
        "rated": game.challenge.rated,
        "variant": lichess_variant(game.variant, game.chess960, not game.initial_fen_is_standard)["key"],
        "speed": tc.speed,
        "perf": tc.speed,
        "createdAt": int(game.created_at * 1000),
        "lastMoveAt": int((game.move_log[-1].at if game.move_log else game.created_at) * 1000),
        "status": game.status,
        "players": {color_name(color): {"user": {"name": player.name, "id": player.id}, "rating": player.rating}
                    for color, player in ((True, game.white), (False, game.black))},
        "moves": " ".join(sans),
    }
    if game.winner is not None:
        data["winner"] = color_name(game.winner)
    if not game.initial_fen_is_standard or game.chess960:
        data["initialFen"] = game.initial_fen
    if tc.kind == "clock":
        data["clock"] = {"initial": tc.limit_s, "increment": tc.increment_s or 0,
                         "totalTime": (tc.limit_s or 0) + 40 * (tc.increment_s or 0)}
    return data


def game_page_html(game: Game, board_factory: Any) -> str:
    """pychess's public game page ``GET /{gameId}``, reduced to what the real one carries for a bot: the
    ``<body>`` attributes ``data-gameid``, ``data-fen``, ``data-result``, ``data-status`` (a number),
    ``data-board`` (JSON with ``result``, ``status``, ``clocks`` [white ms, black ms] and one ``steps`` entry per
    ply: ``fen``, ``move``, ``san``), players, variant and time control (``data-base`` minutes, ``data-inc``
    seconds), HTML-escaped as the real server writes them."""
    board = board_factory(game.initial_fen, variant=game.variant, chess960=game.chess960)
    steps: list[dict[str, Any]] = [{"fen": board.fen(), "san": None, "turnColor": color_name(board.turn)}]
    for uci, wire_uci, san in zip(game.moves, game.wire_moves, game.sans, strict=True):
        board.push_uci(uci)
        steps.append({"fen": board.fen(), "move": wire_uci, "san": san, "turnColor": color_name(board.turn),
                      "check": board.is_check()})
    status = PYCHESS_STATUS_NUMBERS.get(game.status, 11)
    data_board: dict[str, Any] = {
        "type": "board", "gameId": game.id, "variant": game.variant, "status": status, "result": game.result(),
        "fen": board.fen(), "lastMove": game.wire_moves[-1] if game.moves else "", "steps": steps,
        "ply": len(game.moves),
    }
    tc = game.challenge.time_control
    if game.clock is not None:  # as the real page: the side to move's clock already counts its thinking time
        data_board["clocks"] = [int(game.clock.remaining_ms(True)), int(game.clock.remaining_ms(False))]
    attributes = {
        "data-gameid": game.id,
        "data-fen": board.fen(),
        "data-base": f"{(tc.limit_s or 0) / 60:g}",
        "data-inc": str(tc.increment_s or 0),
        "data-initialfen": "None" if game.initial_fen_is_standard else game.initial_fen,
        "data-board": compact(data_board),
        "data-result": game.result(),
        "data-status": str(status),
        "data-variant": game.variant,
        "data-chess960": str(game.chess960),
        "data-wplayer": game.white.name,
        "data-bplayer": game.black.name,
    }
    body = "\n      ".join(f'{name}="{html.escape(value, quote=True)}"' for name, value in attributes.items())
    head = f"<!DOCTYPE html>\n<html><head><title>{game.id}</title></head>\n"
    return f'{head}<body id="pychess-variants"\n      {body}>\n</body></html>\n'

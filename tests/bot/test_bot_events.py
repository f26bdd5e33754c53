"""Server lines of both dialects -> the internal event model (real pychess lines from the recording)."""

from __future__ import annotations

import json

import pytest

from bot.wire.dialect import LICHESS, PYCHESS
from bot.wire.errors import MalformedLine
from bot.wire.events import (
    ChallengeEvent,
    ChallengeGone,
    ChatLine,
    GameEnd,
    GameFinish,
    GameFull,
    GameStart,
    GameState,
    KeepAlive,
    OpponentGone,
    ServerTerminated,
    UnknownEvent,
    Variant,
)
from bot.wire.normalise import normalise_game_line, normalise_lobby_line, parse_account
from tests.bot.conftest import (
    PYCHESS_ACCOUNT,
    PYCHESS_CHALLENGE,
    PYCHESS_GAME_END,
    PYCHESS_GAME_FULL,
    PYCHESS_GAME_START,
    PYCHESS_PING,
    PYCHESS_STATE_1,
    recorded,
)

LICHESS_CHALLENGE = json.dumps({
    "type": "challenge",
    "challenge": {
        "id": "7pGLxJ4F", "url": "https://lichess.org/7pGLxJ4F", "status": "created",
        "challenger": {"id": "bobby", "name": "Bobby", "title": "BOT", "rating": 1635},
        "destUser": {"id": "schessbot", "name": "SchessBot", "title": "BOT"},
        "variant": {"key": "chess960", "name": "Chess960", "short": "960"}, "rated": True, "speed": "rapid",
        "timeControl": {"type": "clock", "limit": 600, "increment": 5, "show": "10+5"},
        "color": "random", "perf": {"icon": "'", "name": "Chess960"},
        "initialFen": "bnrqkbrn/pppppppp/8/8/8/8/PPPPPPPP/BNRQKBRN w KQkq - 0 1",
    },
})
LICHESS_GAME_FULL = json.dumps({
    "type": "gameFull", "id": "5IrD6Gzz", "rated": True, "variant": {"key": "standard", "name": "Standard"},
    "clock": {"initial": 180000, "increment": 2000}, "speed": "blitz",
    "white": {"id": "schessbot", "name": "SchessBot", "title": "BOT", "rating": 1789},
    "black": {"id": "alice", "name": "Alice", "title": None, "rating": 1500},
    "initialFen": "startpos", "createdAt": 1700000000123,
    "state": {"type": "gameState", "moves": "e2e4 c7c5", "wtime": 178000, "btime": 179500, "winc": 2000,
              "binc": 2000, "status": "started"},
})


# ---- the event stream ----


def test_pychess_challenge_keeps_seconds_as_milliseconds_and_reads_the_variant_key():
    event = normalise_lobby_line(PYCHESS_CHALLENGE)
    assert isinstance(event, ChallengeEvent)
    challenge = event.challenge
    assert challenge.id == "RpxjQkJ5"
    assert challenge.variant == Variant("seirawan", False)
    assert challenge.time_control.limit_ms == 300_000 and challenge.time_control.increment_ms == 3_000
    assert challenge.speed == "blitz" and challenge.rated is False
    assert challenge.challenger.name == "Alice" and not challenge.challenger.is_bot


def test_pychess_chess960_flag_on_a_challenge_makes_seirawan960():
    data = json.loads(PYCHESS_CHALLENGE)
    data["challenge"]["chess960"] = True
    event = normalise_lobby_line(json.dumps(data))
    assert isinstance(event, ChallengeEvent)
    assert event.challenge.variant.config_name == "seirawan960"


def test_lichess_chess960_challenge_is_chess_with_the_960_flag_and_its_fen():
    event = normalise_lobby_line(LICHESS_CHALLENGE)
    assert isinstance(event, ChallengeEvent)
    assert event.challenge.variant == Variant("chess", True)
    assert event.challenge.challenger.is_bot
    assert event.challenge.initial_fen is not None and event.challenge.initial_fen.startswith("bnrqkbrn")


def test_unknown_variant_is_kept_by_name_and_marked_unsupported():
    data = json.loads(PYCHESS_CHALLENGE)
    data["challenge"]["variant"] = {"key": "crazyhouse"}
    event = normalise_lobby_line(json.dumps(data))
    assert isinstance(event, ChallengeEvent)
    assert event.challenge.variant.name == "crazyhouse" and not event.challenge.variant.supported


def test_pychess_game_start_with_string_chess960_flag():
    assert normalise_lobby_line(PYCHESS_GAME_START) == GameStart("RpxjQkJ5", None)


def test_lichess_game_start_uses_game_id_and_colour():
    line = '{"type":"gameStart","game":{"gameId":"5IrD6Gzz","fullId":"5IrD6GzzAbCd","color":"white"}}'
    assert normalise_lobby_line(line) == GameStart("5IrD6Gzz", "white")


def test_keep_alives_of_both_dialects():
    assert normalise_lobby_line("") == KeepAlive()
    assert normalise_lobby_line(b"\n") == KeepAlive()
    assert normalise_lobby_line(PYCHESS_PING) == KeepAlive()
    assert normalise_lobby_line('{"type":"terminated"}') == ServerTerminated()


def test_lichess_lobby_lines_for_finished_games_and_withdrawn_challenges():
    finish = '{"type":"gameFinish","game":{"gameId":"abc"}}'
    assert normalise_lobby_line(finish) == GameFinish("abc")
    line = '{"type":"challengeCanceled","challenge":{"id":"xyz"}}'
    assert normalise_lobby_line(line) == ChallengeGone("xyz")
    assert normalise_lobby_line('{"type":"newThing"}') == UnknownEvent("newThing")


@pytest.mark.parametrize("line", ["{not json", "[1, 2]", '{"type":"challenge"}',
                                  '{"type":"gameStart","game":{}}',
                                  '{"type":"challenge","challenge":{"id":"a","timeControl":'
                                  '{"type":"clock","limit":"x"}}}'])
def test_malformed_lobby_lines_raise_malformed_line(line):
    with pytest.raises(MalformedLine):
        normalise_lobby_line(line)


# ---- game streams ----


def test_pychess_game_full_is_sparse_but_complete_after_normalising():
    [full] = normalise_game_line(PYCHESS_GAME_FULL, PYCHESS)
    assert isinstance(full, GameFull)
    assert full.variant == Variant("seirawan", False)
    assert full.initial_fen is None
    assert full.white.name == "SeirawanBot" and full.white.id is None
    assert full.created_at_ms == 1795962595000
    assert full.state.winc_ms == 3000 and full.state.wtime_ms == 300_000
    assert full.clock.kind == "clock" and full.clock.limit_ms == 300_000 and full.clock.increment_ms == 3000


def test_pychess_initial_fen_none_string_means_start_position():
    data = json.loads(PYCHESS_GAME_FULL)
    data["initialFen"] = "None"
    [full] = normalise_game_line(json.dumps(data), PYCHESS)
    assert isinstance(full, GameFull) and full.initial_fen is None


def test_pychess_increments_are_seconds_and_clocks_may_be_floats():
    data = json.loads(PYCHESS_STATE_1)
    data.update(wtime=512977.6, binc=3)
    [state] = normalise_game_line(json.dumps(data), PYCHESS)
    assert isinstance(state, GameState)
    assert state.moves == ("g1h3e",)
    assert state.wtime_ms == 512977 and state.binc_ms == 3000


def test_lichess_increments_are_already_milliseconds():
    [full] = normalise_game_line(LICHESS_GAME_FULL, LICHESS)
    assert isinstance(full, GameFull)
    assert full.state.winc_ms == 2000 and full.clock.increment_ms == 2000 and full.clock.limit_ms == 180000
    assert full.created_at_ms == 1700000000123
    assert full.white.is_user("schessbot", "SchessBot")
    assert full.variant == Variant("chess", False) and full.initial_fen is None


def test_pychess_status_started_never_ends_the_game_but_game_end_does():
    assert normalise_game_line(PYCHESS_STATE_1, PYCHESS)[0].is_final is False  # type: ignore[union-attr]
    assert normalise_game_line(PYCHESS_GAME_END, PYCHESS) == [GameEnd(None, None)]
    assert normalise_game_line(PYCHESS_PING, PYCHESS) == [KeepAlive()]


def test_lichess_final_game_state_also_yields_game_end():
    line = ('{"type":"gameState","moves":"f2f3 e7e5 g2g4 d8h4","wtime":170000,"btime":175000,'
            '"winc":2000,"binc":2000,"status":"mate","winner":"black"}')
    events = normalise_game_line(line, LICHESS)
    assert isinstance(events[0], GameState) and events[0].moves[-1] == "d8h4"
    assert events[1] == GameEnd("mate", "black")


def test_lichess_chat_and_opponent_gone_lines():
    assert normalise_game_line('{"type":"chatLine","room":"player","username":"alice","text":"hi"}',
                               LICHESS) == [ChatLine("player", "alice", "hi")]
    assert normalise_game_line('{"type":"opponentGone","gone":true,"claimWinInSeconds":8}',
                               LICHESS) == [OpponentGone(True, 8)]


def test_every_recorded_pychess_game_line_normalises():
    lines = recorded("GAME:RpxjQkJ5")
    assert len(lines) >= 5
    kinds = [type(normalise_game_line(line, PYCHESS)[0]).__name__ for line in lines]
    assert kinds[0] == "GameFull" and kinds[-1] == "GameEnd" and "KeepAlive" in kinds
    final = normalise_game_line(lines[-2], PYCHESS)[0]
    assert isinstance(final, GameState) and len(final.moves) == 147 and final.wtime_ms == 512977


def test_pychess_account_parses():
    account = parse_account(json.loads(PYCHESS_ACCOUNT))
    assert account.username == "SeirawanBot" and account.is_bot


# ---- decline reasons, compat, destUser, our ratings ----


@pytest.mark.parametrize(("key", "reason"), [
    ("toofast", "tooFast"), ("tooslow", "tooSlow"), ("timecontrol", "timeControl"), ("nobot", "noBot"),
    ("onlybot", "onlyBot"), ("generic", "generic"), ("tooFast", "tooFast"), ("timeControl", "timeControl"),
    ("somethingNew", "somethingNew"),
])
def test_a_decline_reason_key_reads_the_same_in_lower_case_and_camel_case(key, reason):
    # the Lichess API spec writes declineReasonKey in lower case; pychess and older servers in camelCase
    line = json.dumps({"type": "challengeDeclined", "challenge": {
        "id": "c1", "status": "declined", "declineReason": "This time control is too fast for me.",
        "declineReasonKey": key}})
    assert normalise_lobby_line(line) == ChallengeGone("c1", declined=True, reason=reason)


def test_lichess_compat_beside_the_challenge_and_our_rating_in_dest_user():
    data = json.loads(LICHESS_CHALLENGE)
    data["challenge"]["destUser"]["rating"] = 1720
    data["compat"] = {"bot": False, "board": True}
    event = normalise_lobby_line(json.dumps(data))
    assert isinstance(event, ChallengeEvent)
    assert event.challenge.bot_compatible is False
    assert event.challenge.dest is not None and event.challenge.dest.rating == 1720
    assert event.challenge.dest.name == "SchessBot"
    plain = normalise_lobby_line(PYCHESS_CHALLENGE)
    assert isinstance(plain, ChallengeEvent)
    assert plain.challenge.bot_compatible is None and plain.challenge.dest is None, "pychess says neither"


def test_lichess_game_start_names_the_opponent():
    line = json.dumps({"type": "gameStart", "game": {"gameId": "g1", "color": "black",
                                                     "opponent": {"id": "alice", "username": "Alice",
                                                                  "rating": 1500}}})
    assert normalise_lobby_line(line) == GameStart("g1", "black", opponent="Alice")


def test_account_ratings_come_from_lichess_perfs_and_pychess_has_none():
    account = parse_account({"id": "schessbot", "username": "SchessBot", "title": "BOT",
                             "perfs": {"blitz": {"rating": 1790, "games": 12, "rd": 60},
                                       "chess960": {"rating": 1650}, "storm": {"runs": 3, "score": 20}}})
    assert account.ratings == {"blitz": 1790, "chess960": 1650}
    assert parse_account(json.loads(PYCHESS_ACCOUNT)).ratings == {}

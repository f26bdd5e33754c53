"""Fuzzing the event normaliser (``bot.wire.events``) with hypothesis: any line from either server either becomes
events or raises the documented :class:`~bot.wire.errors.MalformedLine` (a ``ValueError``); nothing else escapes
(an escaping exception would look like a dropped connection to the stream reader) and nothing hangs.

Lines are built three ways: arbitrary text and bytes; arbitrary JSON values; and JSON objects shaped like the
real events (every key the normaliser reads, with values of every JSON type, huge and non-finite numbers,
strings where numbers belong and deep nesting).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.wire.dialect import LICHESS, PYCHESS
from bot.wire.errors import MalformedLine
from bot.wire.events import GameEnd, GameFull, GameState, KeepAlive
from bot.wire.normalise import normalise_game_line, normalise_lobby_line
from tests.bot.conftest import PYCHESS_CHALLENGE, PYCHESS_GAME_FULL, PYCHESS_GAME_START, PYCHESS_STATE_1

DIALECTS = st.sampled_from([LICHESS, PYCHESS])

numbers = st.one_of(
    st.integers(), st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([2**31 - 1, 1e308, -0.0, 1e-320]),
)
scalars = st.one_of(
    st.none(), st.booleans(), numbers, st.text(max_size=20),
    st.sampled_from(["", "True", "False", "None", "startpos", "white", "black", "seirawan", "chess960", "1e999",
                     "NaN", "-1", "e2e4 e7e5", "e2e5", "clock", "correspondence", "started", "mate"]),
)
json_values = st.recursive(
    scalars, lambda children: st.one_of(st.lists(children, max_size=4),
                                        st.dictionaries(st.text(max_size=8), children, max_size=4)),
    max_leaves=20,
)
#: every key the normaliser looks at, so the generated objects reach deep into it
KEYS = ["type", "challenge", "game", "id", "gameId", "color", "chess960", "challenger", "destUser", "variant",
        "key", "name", "rated", "speed", "timeControl", "limit", "increment", "daysPerTurn", "initialFen",
        "declineReasonKey", "state", "moves", "wtime", "btime", "winc", "binc", "status", "winner", "wdraw",
        "bdraw", "wtakeback", "btakeback", "white", "black", "clock", "initial", "createdAt", "room", "username",
        "text", "gone", "claimWinInSeconds", "rating", "title"]
TYPES = ["challenge", "challengeCanceled", "challengeDeclined", "gameStart", "gameFinish", "ping", "terminated",
         "gameFull", "gameState", "gameEnd", "chatLine", "opponentGone", "surprise"]


#: keys whose value is an object in the real lines
CONTAINERS = {"challenge", "game", "challenger", "destUser", "variant", "timeControl", "state", "white", "black",
              "clock"}


def event_like(depth: int = 2) -> st.SearchStrategy[dict[str, Any]]:
    """A JSON object with the real events' keys (scalars of any type; objects of the same shape nested)."""
    nested: st.SearchStrategy[Any] = json_values if depth == 0 else st.one_of(scalars, event_like(depth - 1))
    return st.fixed_dictionaries(
        {"type": st.sampled_from(TYPES)},
        optional={key: nested if key in CONTAINERS else scalars for key in KEYS if key != "type"},
    )


lines = st.one_of(
    st.text(max_size=200),
    st.binary(max_size=200),
    json_values.map(json.dumps),
    event_like().map(lambda data: json.dumps(data, allow_nan=True)),
    # a real line with one character replaced, dropped or added
    st.tuples(st.sampled_from([PYCHESS_CHALLENGE, PYCHESS_GAME_START, PYCHESS_GAME_FULL, PYCHESS_STATE_1]),
              st.integers(0, 400), st.characters(), st.sampled_from(["replace", "drop", "add"]))
    .map(lambda t: t[0][: t[1]] + ("" if t[3] == "drop" else t[2]) + t[0][t[1] + (0 if t[3] == "add" else 1):]),
)

HOSTILE_LINES = [
    "[" * 100_000,  # deep nesting: RecursionError inside json
    '{"a":' * 50_000 + "1" + "}" * 50_000,
    '{"type":"gameState","moves":"","wtime":' + "1" * 5000 + "}",  # int longer than Python converts
    '{"type":"gameState","moves":"","wtime":1' + "0" * 400 + "}",  # too large for a float
    '{"type":"gameState","moves":"","wtime":1e999}',  # json reads it as infinity
    '{"type":"challenge","challenge":{"id":"x","timeControl":{"type":"clock","limit":1e308,"increment":0}}}',
    '{"type":"challenge","challenge":{"id":"x","challenger":{"rating":1e999}}}',
    '{"type":"challenge","challenge":{"id":"x","timeControl":{"type":"correspondence","daysPerTurn":1e999}}}',
    '{"type":"gameFull","id":"x","state":{"moves":""},"createdAt":1e999}',
    '{"type":"gameFull","id":"x","state":{"moves":""},"daysPerTurn":"1e999"}',
    '{"type":"gameStart","game":{"id":"x","chess960":[]}}',
    '{"type":"gameEnd","game":[1,2]}',
    '{"type":"chatLine","room":{"a":1},"text":null}',
    "\x00\xff\ud800",
]


def check(normalise: Any, line: str | bytes, dialect: str | None = None) -> list[Any] | None:
    """Normalise ``line`` (in ``dialect`` for game lines): events, or None for the documented error. Fails on
    anything else; a hang is caught by the suite's timeout (no wall-time check: the machine may be busy)."""
    try:
        result = normalise(line) if dialect is None else normalise(line, dialect)
    except MalformedLine as error:
        assert isinstance(error, ValueError) and str(error), "MalformedLine says what is wrong"
        return None
    return result if isinstance(result, list) else [result]


def check_times(events: list[Any]) -> None:
    """What comes out is usable: clocks are int milliseconds (finite, no floats)."""
    for event in events:
        states = [event.state] if isinstance(event, GameFull) else [event] if isinstance(event, GameState) else []
        for state in states:
            for value in (state.wtime_ms, state.btime_ms, state.winc_ms, state.binc_ms):
                assert isinstance(value, int)
            assert all(isinstance(move, str) and move for move in state.moves)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(line=lines)
@example(line=HOSTILE_LINES[0])
def test_any_event_stream_line_is_an_event_or_a_malformed_line(line: str | bytes) -> None:
    check(normalise_lobby_line, line)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(line=lines, dialect=DIALECTS)
@example(line=HOSTILE_LINES[0], dialect=PYCHESS)
def test_any_game_stream_line_is_events_or_a_malformed_line(line: str | bytes, dialect: str) -> None:
    events = check(normalise_game_line, line, dialect)
    if events is not None:
        check_times(events)


def test_hostile_lines_raise_only_malformed_line() -> None:
    for line in HOSTILE_LINES:
        check(normalise_lobby_line, line)
        for dialect in (LICHESS, PYCHESS):
            events = check(normalise_game_line, line, dialect)
            if events is not None:
                check_times(events)


def test_huge_clock_values_are_rejected_not_overflowed() -> None:
    for value in ("1" + "0" * 400, "1e999", "1" * 5000):
        line = '{"type":"gameState","moves":"","wtime":' + value + ',"btime":1000}'
        assert check(normalise_game_line, line, LICHESS) is None, value


def test_empty_and_ping_lines_are_keep_alives_and_the_real_lines_still_parse() -> None:
    assert normalise_game_line("", LICHESS) == [KeepAlive()]
    assert normalise_lobby_line('{"type":"ping"}') == KeepAlive()
    events = normalise_game_line('{"type":"gameState","moves":"e2e4","wtime":1000.5,"btime":2000,'
                                 '"winc":0,"binc":0,"status":"mate","winner":"white"}', LICHESS)
    assert isinstance(events[0], GameState) and events[0].wtime_ms == 1000
    assert events[1] == GameEnd("mate", "white")

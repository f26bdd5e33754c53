"""A move whose answer was lost: what the evidence says (bot.wire.movefate), what the bot does about it, and how
long it may wait (bot.game.timecontrol), decided without a network."""

from __future__ import annotations

import pytest

from bot.game.timecontrol import MAX_UNSURE_MOVE_WAIT_MS, unsure_move_wait_ms
from bot.wire.dialect import LICHESS, PYCHESS
from bot.wire.movefate import (
    Evidence,
    Fate,
    Resend,
    SeenState,
    StreamStates,
    decide_resend,
    record_evidence,
    stream_evidence,
)

FAILED_AT = 100.0


@pytest.mark.parametrize(("seen", "trusts_turn", "fate"), [
    (None, True, Fate.UNKNOWN),
    (SeenState(5, FAILED_AT - 1), True, Fate.LANDED),  # the state with our move came before the 5xx
    (SeenState(5, FAILED_AT + 1), False, Fate.LANDED),
    (SeenState(3, FAILED_AT + 1), True, Fate.MOOT),  # a takeback
    (SeenState(4, FAILED_AT + 1), True, Fate.NOT_LANDED),  # Lichess: a gameFull after a reconnect, our turn
    (SeenState(4, FAILED_AT + 1), False, Fate.UNKNOWN),  # pychess may replay an old state after a reconnect
    (SeenState(4, FAILED_AT - 1), True, Fate.UNKNOWN),  # our turn, but from before the move went out
])
def test_the_game_streams_latest_state_says_whether_a_move_into_ply_4_landed(seen, trusts_turn, fate):
    assert stream_evidence(seen, 4, FAILED_AT, trusts_turn=trusts_turn).fate is fate


def test_the_stream_states_keep_the_latest_per_game_until_a_new_stream_forgets_them():
    states = StreamStates()
    states.saw("g1", 4, 1.0)
    states.saw("g1", 5, 2.0)
    states.saw("g2", 1, 3.0)
    assert states.latest("g1") == SeenState(5, 2.0)
    states.forget("g1")
    assert states.latest("g1") is None and states.latest("g2") == SeenState(1, 3.0)


@pytest.mark.parametrize(("on_record", "finished", "fate"), [
    (5, False, Fate.LANDED), (4, False, Fate.NOT_LANDED), (3, False, Fate.MOOT), (4, True, Fate.MOOT),
])
def test_a_current_game_page_says_whether_a_move_into_ply_4_landed(on_record, finished, fate):
    assert record_evidence(on_record, finished, 4, "game page").fate is fate


UNKNOWN = Evidence(Fate.UNKNOWN, "no news on the game stream since the failed attempt")


@pytest.mark.parametrize(("evidence", "refuses_out_of_turn", "send_by", "action"), [
    (Evidence(Fate.LANDED, "the game stream is at ply 5"), True, None, Resend.SKIP),
    (Evidence(Fate.MOOT, "the game page has the game over"), False, 200.0, Resend.SKIP),
    (Evidence(Fate.NOT_LANDED, "the game page is still at ply 4"), False, 200.0, Resend.SEND),
    (UNKNOWN, True, None, Resend.SEND),  # Lichess: a move out of turn is refused without harm
    (UNKNOWN, False, 200.0, Resend.WAIT),  # pychess: a move that lands twice can lose; the clock allows a wait
    (UNKNOWN, False, 150.0, Resend.SEND),  # ... until waiting longer would lose on time
    (UNKNOWN, False, None, Resend.WAIT),  # no clock to lose on
])
def test_a_move_of_unknown_fate_is_sent_again_where_that_is_harmless_or_when_the_clock_says(
        evidence, refuses_out_of_turn, send_by, action):
    verdict = decide_resend(evidence, refuses_out_of_turn=refuses_out_of_turn, now=150.0, send_by=send_by)
    assert verdict.action is action
    assert verdict.why.startswith(evidence.why)


def test_the_dialects_say_which_record_is_current_and_whether_a_move_out_of_turn_is_harmless():
    assert (LICHESS.live_record, LICHESS.refuses_moves_out_of_turn) == (None, True)  # its export lags
    assert (PYCHESS.live_record, PYCHESS.refuses_moves_out_of_turn) == ("game page", False)


@pytest.mark.parametrize(("clock_ms", "wait_ms"), [
    (300_000, MAX_UNSURE_MOVE_WAIT_MS), (20_300, 5_000), (1_300, 250), (200, 0),
])
def test_a_move_of_unknown_fate_waits_a_quarter_of_the_clock_beyond_the_overhead_at_most(clock_ms, wait_ms):
    assert unsure_move_wait_ms(clock_ms, 300) == wait_ms

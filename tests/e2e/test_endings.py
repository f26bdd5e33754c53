"""Every way a game ends, as the real pychess server ends it (a bare ``gameEnd``, no final state, the result
only on the game page; docs/server-api.md) and as Lichess does (a final ``gameState``): the bot's PGN must
carry the server's result, the PGN Termination tag and every ply the server recorded, and its log line says
so. Also: S-chess960 challenges from people, a rejected token, and game streams that fail for good."""

from __future__ import annotations

import logging
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

import pytest

from bot.loopback import LoopbackServer, Manual, Scripted
from tests.e2e.conftest import (
    HOPELESS,
    KEEPALIVE_S,
    QUICK_WATCH,
    TOKEN,
    BotProcess,
    BotThread,
    assert_pgn_matches_server,
    bot_config,
    pgn_of,
    refereed_server,
)
from tests.timing import GAME_S, STARTUP_S, wait_until

FAKE_UCI = str(Path(__file__).resolve().parents[1] / "bot" / "fake_uci.py")
FAULTY_UCI = str(Path(__file__).resolve().parents[1] / "reliability" / "faulty_uci.py")
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1[] w - - 0 1"
FIFTY_MOVES_NEAR = "8/8/4k3/8/8/8/4K3/7R[] w - - 99 80"
@pytest.fixture(autouse=True)
def info_logs(caplog: pytest.LogCaptureFixture) -> None:
    """INFO logs kept (every bot here runs with :data:`QUICK_WATCH`: its waits for a silent server shortened
    from minutes to about a second)."""
    caplog.set_level(logging.INFO)


@pytest.fixture
def running_clock_server(dialect: str) -> Iterator[LoopbackServer]:
    """Clocks that run from the first move on, so that a flag can happen at ply 1."""
    with refereed_server(dialect, keepalive_s=KEEPALIVE_S,
                        clock_starts_at_ply=1) as srv:
        yield srv


def scripted_engine(monkeypatch: pytest.MonkeyPatch, moves: str) -> str:
    """An engine command that plays ``moves`` (both sides' moves, in order) whatever the position."""
    monkeypatch.setenv("FAKE_UCI_SCRIPT", moves)
    return f"{sys.executable} {FAKE_UCI} script"


def finished_line(caplog: pytest.LogCaptureFixture, game_id: str) -> str:
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith(f"game {game_id}: finished")]
    assert len(lines) == 1, lines
    return lines[0]


def test_we_mate(server: LoopbackServer, tmp_path: Path, bots: list[BotThread],
                 caplog: pytest.LogCaptureFixture) -> None:
    game_id = server.challenge(initial_fen=MATE_IN_ONE, color="black", opponent=Manual())
    bots.append(BotThread(bot_config(server, tmp_path), max_games=1, timing=QUICK_WATCH).start())
    game = server.wait_for_game_end(game_id, GAME_S)
    assert bots[0].join(GAME_S) == 0
    assert (game.status, game.moves) == ("mate", ["a1a8"])
    assert_pgn_matches_server(game, tmp_path)
    assert "finished 1-0 (mate; Normal, 1 ply)" in finished_line(caplog, game_id)


def test_we_are_mated_and_never_see_the_mating_move_on_pychess(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread], monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    engine = scripted_engine(monkeypatch, "f2f3 e7e5 g2g4 d8h4")
    game_id = server.challenge(color="black", opponent=Scripted(["e7e5", "d8h4"]))
    bots.append(BotThread(bot_config(server, tmp_path, engine={"command": engine}), max_games=1,
                          timing=QUICK_WATCH).start())
    game = server.wait_for_game_end(game_id, GAME_S)
    assert bots[0].join(GAME_S) == 0
    assert (game.status, game.winner, len(game.moves)) == ("mate", False, 4)
    assert_pgn_matches_server(game, tmp_path)
    line = finished_line(caplog, game_id)
    assert "finished 0-1 (mate; Normal, 4 plies)" in line
    if server.dialect == "pychess":
        assert server.requests_to("game_page", game_id), "the result comes from the game page"


def test_we_resign(server: LoopbackServer, tmp_path: Path, bots: list[BotThread]) -> None:
    game_id = server.challenge(initial_fen=HOPELESS, color="black", opponent=Manual())
    config = bot_config(server, tmp_path, resign={"enabled": True, "score_cp": -500, "moves": 1})
    bots.append(BotThread(config, max_games=1, timing=QUICK_WATCH).start())
    game = server.wait_for_game_end(game_id, GAME_S)
    assert bots[0].join(GAME_S) == 0
    assert (game.status, game.winner) == ("resign", False)
    assert_pgn_matches_server(game, tmp_path)


def test_they_resign(server: LoopbackServer, tmp_path: Path, bots: list[BotThread]) -> None:
    game_id = server.challenge(color="black", opponent=Scripted(["e7e5", "g8f6", "resign"]))
    bots.append(BotThread(bot_config(server, tmp_path), max_games=1, timing=QUICK_WATCH).start())
    game = server.wait_for_game_end(game_id, GAME_S)
    assert bots[0].join(GAME_S) == 0
    assert (game.status, game.winner, len(game.moves)) == ("resign", True, 5)
    assert_pgn_matches_server(game, tmp_path)


def test_a_bot_resignation_that_never_reaches_us_is_read_from_the_game_page(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    game_id = pychess_server.challenge(color="black", clock=(600, 0), opponent=Scripted(["e7e5"], then="wait"))
    bots.append(BotThread(bot_config(pychess_server, tmp_path), max_games=1, timing=QUICK_WATCH).start())
    pychess_server.wait_for_plies(game_id, 3, GAME_S)
    pychess_server.opponent_resign(game_id, announce=False)  # as a BOT's resignation on the real server
    # the bound is the point: the bot must leave without a gameEnd, well under GAME_S
    assert bots[0].join(30) == 0, "the bot must not wait for a gameEnd that never comes"
    game = pychess_server.game(game_id)
    assert (game.status, game.winner, len(game.moves)) == ("resign", True, 3)
    assert_pgn_matches_server(game, tmp_path)
    assert "finished 1-0 (resignation; Normal, 3 plies)" in finished_line(caplog, game_id)


def test_we_flag(running_clock_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]) -> None:
    """Our engine hangs on its second search (past the abort window: on the first one the failure policy
    would abort the game instead) while our clock runs out."""
    server = running_clock_server
    engine = f"{sys.executable} {FAULTY_UCI} --hang-on=2 --counter={tmp_path / 'searches'}"
    # 30 s: the hung search is given up a quarter of it later (7.5 s), long after the 1 s left runs out
    game_id = server.challenge(color="white", clock=(30, 0), opponent=Scripted(["e2e4", "d2d4"]))
    bots.append(BotThread(bot_config(server, tmp_path, engine={"command": engine}), max_games=1,
                          timing=QUICK_WATCH).start())
    server.wait_for_plies(game_id, 3, GAME_S)
    server.set_clock(game_id, False, 1)
    game = server.wait_for_game_end(game_id, GAME_S)
    assert bots[0].join(GAME_S) == 0
    assert (game.status, game.winner, len(game.moves)) == ("outoftime", True, 3)
    assert_pgn_matches_server(game, tmp_path)


def test_they_flag(running_clock_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]) -> None:
    server = running_clock_server
    game_id = server.challenge(color="black", clock=(60, 0), opponent=Manual())
    bots.append(BotThread(bot_config(server, tmp_path), max_games=1, timing=QUICK_WATCH).start())
    server.wait_for_plies(game_id, 1, GAME_S)
    server.set_clock(game_id, False, 1)
    game = server.wait_for_game_end(game_id, GAME_S)
    assert bots[0].join(GAME_S) == 0
    assert (game.status, game.winner, len(game.moves)) == ("outoftime", True, 1)
    assert_pgn_matches_server(game, tmp_path)


def test_draw_by_the_fifty_move_rule(server: LoopbackServer, tmp_path: Path, bots: list[BotThread]) -> None:
    game_id = server.challenge(initial_fen=FIFTY_MOVES_NEAR, color="black", opponent=Manual())
    bots.append(BotThread(bot_config(server, tmp_path), max_games=1, timing=QUICK_WATCH).start())
    game = server.wait_for_game_end(game_id, GAME_S)
    assert bots[0].join(GAME_S) == 0
    assert (game.status, game.winner, len(game.moves)) == ("draw", None, 1)
    assert_pgn_matches_server(game, tmp_path)


def test_abort_when_the_opponent_never_moves(server: LoopbackServer, tmp_path: Path, bots: list[BotThread]) -> None:
    game_id = server.challenge(color="black", opponent=Manual())  # the bot is white and moves first
    bots.append(BotThread(bot_config(server, tmp_path, time={"abort_unstarted_after_s": 1}), max_games=1,
                          timing=QUICK_WATCH).start())
    game = server.wait_for_game_end(game_id, GAME_S)
    assert bots[0].join(GAME_S) == 0
    assert (game.status, len(game.moves)) == ("aborted", 1)
    tags = assert_pgn_matches_server(game, tmp_path)
    assert tags["Result"] == "*"


def test_an_s_chess960_challenge_from_a_person(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    config = bot_config(pychess_server, tmp_path, challenge={"variants": ["seirawan960"]})
    bots.append(BotThread(config, max_games=1, timing=QUICK_WATCH).start())
    pychess_server.wait_for(lambda: pychess_server.capabilities, STARTUP_S, "the capability header")
    assert pychess_server.capabilities == {"version": 1, "variants": ["seirawan960"]}
    plain = pychess_server.challenge(challenger="Bob", chess960=False)
    game_id = pychess_server.challenge(challenger="Alice", chess960=True, opponent=Scripted(["wait"]))
    game = pychess_server.wait_for_game_start(game_id, STARTUP_S)
    assert not pychess_server.challenges[plain].offered, "S-chess was not advertised, so it is not offered"
    pychess_server.wait_for_plies(game_id, 1 if game.bot_color else 0, GAME_S)
    pychess_server.opponent_resign(game_id)
    assert bots[0].join(GAME_S) == 0
    tags = assert_pgn_matches_server(game, tmp_path)
    from engine import Board

    assert tags["Variant"] == "Seirawan960"
    def normal(fen: str) -> str:
        return str(Board(fen, variant="seirawan", chess960=True).fen())

    assert normal(tags["FEN"]) == normal(game.initial_fen), (tags["FEN"], game.initial_fen)


def test_an_s_chess960_challenge_is_not_offered_without_the_960_name(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    bots.append(BotThread(bot_config(pychess_server, tmp_path, challenge={"variants": ["seirawan"]}),
                          timing=QUICK_WATCH).start())
    pychess_server.wait_for(lambda: pychess_server.capabilities, STARTUP_S, "the capability header")
    challenge_id = pychess_server.challenge(challenger="Alice", chess960=True)
    assert not pychess_server.challenges[challenge_id].offered


@pytest.mark.parametrize("dialect", ["pychess", "lichess"])
def test_a_wrong_token_exits_2_and_says_token(dialect: str, tmp_path: Path) -> None:
    with refereed_server(dialect, token="the-right-token") as server:
        process = BotProcess(bot_config(server, tmp_path / "games"), tmp_path).start()
        assert process.wait(STARTUP_S) == 2
    output = process.logs()
    assert "rejected the token" in output and f"{dialect} dialect" in output, output
    assert ("HTTP 403" if dialect == "pychess" else "HTTP 401") in output
    assert TOKEN not in output


@pytest.mark.parametrize("dialect, refused_by", [("pychess", "the event stream"), ("lichess", "the event stream"),
                                                ("pychess", "an answer"), ("lichess", "an answer")])
def test_a_token_revoked_while_the_bot_runs_exits_2_with_one_line_and_its_fix(
    dialect: str, refused_by: str, tmp_path: Path
) -> None:
    with refereed_server(dialect, token=TOKEN) as server:
        config = bot_config(server, tmp_path / "games", challenge={"block_list": ["bob"]})
        process = BotProcess(config, tmp_path).start()
        first = server.challenge(challenger="Bob", variant="chess")  # declined: the bot is listening
        server.wait_for(lambda: server.answer(first), STARTUP_S, "the bot's first answer")
        server.token = "revoked"
        if refused_by == "the event stream":
            server.faults.drop_streams("event")  # it connects again, and is refused
        else:
            server.challenge(challenger="Alice")  # the bot's accept is refused
        assert process.wait(STARTUP_S) == 2
    output = process.logs()
    last = output.strip().splitlines()[-1]
    status = "HTTP 403" if dialect == "pychess" else "HTTP 401"
    assert last.startswith(f"error: the server rejected the token ({status}, {dialect} dialect); "), output[-2000:]
    assert last.endswith("then set SCHESS_BOT_TOKEN"), last
    assert output.count("rejected the token") == 1, output[-2000:]
    assert TOKEN not in output


def _game_sends(server: LoopbackServer, game_id: str, after: float) -> list[Any]:
    return [r for endpoint in ("move", "resign", "abort")
            for r in server.requests_to(endpoint, game_id) if r.started_at > after]


def test_a_stream_failing_with_409_ends_the_game_from_the_game_page(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    game_id = pychess_server.challenge(color="black", clock=(600, 0), opponent=Scripted(["e7e5"], then="wait"))
    bots.append(BotThread(bot_config(pychess_server, tmp_path), max_games=1, timing=QUICK_WATCH).start())
    pychess_server.wait_for_plies(game_id, 3, GAME_S)
    pychess_server.faults.fail("stream_game", 409, times=None, target=game_id)  # "Duplicate BOT game_stream"
    pychess_server.faults.drop_streams("game", game_id)
    pychess_server.opponent_resign(game_id, announce=False)
    assert bots[0].join(GAME_S) == 0
    game = pychess_server.game(game_id)
    assert_pgn_matches_server(game, tmp_path)


def test_a_stream_failing_with_409_forever_without_a_game_page_is_given_up_and_left_alone(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    """Neither the stream nor the page answers: the bot gives up, but not before the clocks could have run out
    (10 s here), and sends nothing more."""

    game_id = pychess_server.challenge(color="black", clock=(10, 0), opponent=Scripted(["e7e5"], then="wait"))
    config = bot_config(pychess_server, tmp_path, time={"give_up_after_s": 2},
                        challenge={"speeds": ["ultraBullet"]})
    bots.append(BotThread(config, max_games=1, timing=QUICK_WATCH).start())
    pychess_server.wait_for_plies(game_id, 3, GAME_S)
    pychess_server.faults.fail("stream_game", 409, times=None, target=game_id)
    pychess_server.faults.fail("game_page", 502, times=None, target=game_id)
    pychess_server.faults.drop_streams("game", game_id)
    failing_since = time.time()
    # the bound is the point: given up after 2 s once the 10 s clocks could have run out, well under GAME_S
    assert bots[0].join(40) == 0, "the given-up game frees the bot (--games 1 counts it)"
    game = pychess_server.game(game_id)
    assert not _game_sends(pychess_server, game_id, failing_since), "nothing is sent to a given-up game"
    tags, sans = pgn_of(tmp_path / f"{game_id}.pgn")
    assert (tags["Result"], tags["Termination"], sans) == ("*", "Unknown", game.sans)
    assert any("giving up on the game" in r.getMessage() for r in caplog.records)
    given_up = next(r for r in caplog.records if "giving up on the game" in r.getMessage())
    assert game.ended_at is not None and given_up.created >= game.ended_at, \
        "not given up before the opponent's clock could run out (the server flagged it first)"


def test_a_lichess_game_whose_stream_never_says_how_it_ended_gets_the_exports_result(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    """The game stream goes silent before the end; only the event stream's gameFinish arrives: the result,
    termination and plies come from ``/game/export/{id}``, not ``*``."""
    game_id = lichess_server.challenge(color="black", clock=(600, 0), opponent=Scripted(["e7e5"], then="wait"))
    bots.append(BotThread(bot_config(lichess_server, tmp_path, server={"stream_timeout_s": 30}),
                          max_games=1, timing=replace(QUICK_WATCH, finish_grace_s=0.5)).start())
    lichess_server.wait_for_plies(game_id, 3, GAME_S)
    lichess_server.faults.silence_streams("game", game_id)
    lichess_server.opponent_resign(game_id)
    assert bots[0].join(GAME_S) == 0
    game = lichess_server.game(game_id)
    assert lichess_server.requests_to("game_export", game_id), "the result comes from the game export"
    assert_pgn_matches_server(game, tmp_path)
    assert "finished 1-0 (resignation; Normal, 3 plies)" in finished_line(caplog, game_id)
    assert any("the game export says 1-0" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("dialect", ["pychess", "lichess"])
def test_upgrade_makes_the_account_a_bot_account(dialect: str, tmp_path: Path) -> None:
    with refereed_server(dialect, bot_title=None) as server:
        process = BotProcess(bot_config(server, tmp_path / "games"), tmp_path, "--upgrade").start()
        try:
            server.wait_for(lambda: server.requests_to("upgrade"), STARTUP_S, "the upgrade request")
            server.wait_for(lambda: server.event_stream_connections, STARTUP_S, "the event stream")
            assert server.bot_title == "BOT"
        finally:
            process.stop()
    assert "upgraded" in process.logs()


def test_an_opponent_who_left_is_claimed_against_when_lichess_allows_it(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    game_id = lichess_server.challenge(color="black", opponent=Manual())  # the bot is white
    bots.append(BotThread(bot_config(lichess_server, tmp_path), max_games=1, timing=QUICK_WATCH).start())
    lichess_server.wait_for_plies(game_id, 1, STARTUP_S)
    gone_at = time.time()
    lichess_server.opponent_gone(game_id, True, claim_win_in_s=2)
    game = lichess_server.wait_for_game_end(game_id, GAME_S)
    assert bots[0].join(GAME_S) == 0
    claims = lichess_server.requests_to("claim_victory", game_id)
    assert [r.status for r in claims] == [200], "one claim, once it was allowed"
    assert claims[0].started_at >= gone_at + 2
    assert (game.status, game.winner) == ("timeout", True)
    assert_pgn_matches_server(game, tmp_path, termination="Time forfeit")


def test_no_claim_when_the_opponent_comes_back(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    game_id = lichess_server.challenge(color="black", opponent=Manual())
    bots.append(BotThread(bot_config(lichess_server, tmp_path), timing=QUICK_WATCH).start())
    lichess_server.wait_for_plies(game_id, 1, STARTUP_S)
    lichess_server.opponent_gone(game_id, True, claim_win_in_s=2)
    lichess_server.opponent_gone(game_id, False)
    lichess_server.play_opponent_move(game_id, "e7e5")
    lichess_server.wait_for_plies(game_id, 3, GAME_S)
    # the bot logs the claim's delay as it reads opponentGone, so its claim would be due 2 s after that line;
    # a move the opponent plays after that waits in the bot's inbox until its due checks (the claim among them)
    # have run, so once the bot has answered that move, a claim it had kept would have been sent
    left = next(record for record in caplog.records if "claiming the win in 2 s" in record.getMessage())
    wait_until(lambda: time.time() > left.created + 2, "the moment the bot would have claimed")
    with lichess_server.lock:
        reply = str(next(iter(lichess_server.game(game_id).board.legal_moves)))
    lichess_server.play_opponent_move(game_id, reply)
    lichess_server.wait_for_plies(game_id, 5, GAME_S)
    assert not lichess_server.requests_to("claim_victory", game_id)

"""The decisions behind the lines an operator reads (issue 49): what a stop does to each game, the opponent the
challenge described where pychess's ``gameFull`` names players only, and pychess's S-chess960 start FEN."""

from __future__ import annotations

import html
import random
import re
from pathlib import Path

import pyffish as sf

from bot.game.leaving import stop_plan
from bot.game.worker import with_opponent_known
from bot.loopback.positions import s_chess960_castling, start_fen
from bot.wire.dialect import PYCHESS
from bot.wire.events import GameFull, Player
from bot.wire.normalise import normalise_game_line

PAGES = Path(__file__).resolve().parents[1] / "data" / "pychess-game-pages.html"


def test_a_stop_with_abort_resigns_a_game_past_its_second_ply_and_says_so() -> None:
    assert stop_plan("abort", ply=12, correspondence=False, over_for_us=False) == \
        "will be resigned (too late to abort: 12 plies on the board)"
    assert stop_plan("abort", ply=1, correspondence=False, over_for_us=False) == "will be aborted"
    assert stop_plan("finish", ply=12, correspondence=False, over_for_us=False) == "will be finished"
    assert stop_plan("abort", ply=12, correspondence=True, over_for_us=False) == \
        "will be left parked (correspondence)"
    assert stop_plan("abort", ply=12, correspondence=False, over_for_us=True).startswith("is over for us")


def pychess_full() -> GameFull:
    line = ('{"type":"gameFull","id":"K4cFT3gD","variant":{"name":"seirawan"},"white":{"name":"Alice"},'
            '"black":{"name":"SchessBot"},"initialFen":"","createdAt":1764800000,'
            '"state":{"type":"gameState","moves":"","wtime":120000,"btime":120000,"winc":1,"binc":1,'
            '"status":"started"}}')
    (full,) = normalise_game_line(line, PYCHESS)
    assert isinstance(full, GameFull)
    return full


def test_the_opponents_rating_and_title_come_from_the_challenge_when_pychess_names_players_only() -> None:
    full = pychess_full()
    assert full.white.rating is None
    filled = with_opponent_known(full, False, Player("alice", title="GM", rating=1500))
    assert (filled.white.name, filled.white.rating, filled.white.title) == ("Alice", 1500, "GM")
    assert filled.black == full.black, "our own side is left as the server wrote it"
    assert with_opponent_known(full, False, Player("Bob", rating=1500)) == full, "another name: not this game"
    assert with_opponent_known(full, False, None) == full


def test_the_loopback_writes_s_chess960_starts_as_pychess_does() -> None:
    recorded = [html.unescape(fen) for fen in re.findall(r'data-initialfen="([^"]*)"', PAGES.read_text())]
    chess960 = [fen for fen in recorded if fen != "None"]
    assert chess960 == ["nbbqrnkr/pppppppp/8/8/8/8/PPPPPPPP/NBBQRNKR[HEhe] w KQBCDAFkqbcdaf - 0 1"]
    assert s_chess960_castling("NBBQRNKR") == "KQBCDAFkqbcdaf"
    rng = random.Random(5)
    for _ in range(50):
        fen = start_fen("seirawan", True, rng)
        back = fen.split("/")[7].split("[")[0]
        assert fen == f"{back.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{back}[HEhe] w {s_chess960_castling(back)} - 0 1"
        assert sf.validate_fen(fen, "seirawan", True) == sf.FEN_OK


def test_the_log_file_names_a_thread_once_when_the_line_starts_with_it() -> None:
    import logging

    from bot.app.logsetup import FileFormatter

    def line(thread: str, message: str) -> str:
        record = logging.LogRecord("bot.wire.streams", logging.WARNING, __file__, 1, message, None, None)
        record.threadName = thread
        return FileFormatter().format(record).split("bot.wire.streams ", 1)[1]

    assert line("game K4cFT3gD: game stream", "game K4cFT3gD: game stream back after 31.0 s down (5 failed "
                "attempts)") == "game K4cFT3gD: game stream back after 31.0 s down (5 failed attempts)"
    assert line("event stream", "event stream lost (connection lost); reconnecting") == \
        "event stream lost (connection lost); reconnecting"
    assert line("game K4cFT3gD", "game K4cFT3gD: played Nf3") == "game K4cFT3gD: played Nf3"
    assert line("MainThread", "stopped after 1 finished game") == "MainThread: stopped after 1 finished game"

"""How a game ended: Lichess statuses, pychess game-page statuses, and the real game pages recorded from a
pychess-variants server (tests/data/pychess-game-pages.html)."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine
from bot.records.results import (
    LICHESS_STATUSES,
    PYCHESS_STATUSES,
    lichess_outcome,
    pychess_outcome,
)
from bot.wire.errors import GameExportError, GamePageError
from bot.wire.gameexport import parse_game_export
from bot.wire.gamepage import parse_game_page

PAGES = Path(__file__).resolve().parents[1] / "data" / "pychess-game-pages.html"


def recorded_pages() -> dict[str, str]:
    """The four recorded <body> tags, one per game id, as single HTML snippets."""
    text = PAGES.read_text()
    chunks = text.split('<body id="pychess-variants"\n')[1:]
    return {chunk.split('data-gameid="')[1].split('"')[0]: '<body id="pychess-variants"\n' + chunk
            for chunk in chunks}


@pytest.mark.parametrize(("game_id", "result", "termination", "reason", "plies"), [
    ("81FH6d4t", "0-1", "Normal", "mate", 114),
    ("FjC1JPiO", "1-0", "Time forfeit", "flag", 153),
    ("7BbuR1UI", "0-1", "Normal", "resignation", 74),
    ("T6L7TOC4", "1/2-1/2", "Normal", "draw", 301),
])
def test_recorded_game_pages_give_result_termination_and_every_ply(game_id, result, termination, reason, plies):
    page = parse_game_page(recorded_pages()[game_id])
    assert page.game_id == game_id and page.finished
    assert (page.outcome.result, page.outcome.termination, page.outcome.reason) == (result, termination, reason)
    assert len(page.moves) == plies


def test_the_mating_move_the_loser_never_saw_is_on_the_page_and_replays():
    page = parse_game_page(recorded_pages()["81FH6d4t"])
    assert page.chess960 and page.variant == "seirawan" and page.moves[-1] == "c4c1"
    board = engine.Board("nbbqrnkr/pppppppp/8/8/8/8/PPPPPPPP/NBBQRNKR[HEhe] w KQBCDAFkqbcdaf - 0 1",
                         variant="seirawan", chess960=True)
    for uci in page.moves:
        board.push_uci(uci)
    assert board.is_checkmate()


def test_a_recorded_page_gives_the_clocks_and_time_control_to_play_from():
    page = parse_game_page(recorded_pages()["7BbuR1UI"])
    assert (page.clocks_ms, page.base_min, page.increment_s) == ((60000, 60000), 1.0, 1.0)
    full = page.game_full()
    assert (full.white.name, full.black.name, full.variant.name, full.variant.chess960) == (
        "SBotB", "SBotA", "seirawan", False)
    assert (full.clock.kind, full.clock.limit_ms, full.clock.increment_ms) == ("clock", 60000, 1000)
    assert full.state.moves == page.moves and (full.state.wtime_ms, full.state.winc_ms) == (60000, 1000)
    s960 = parse_game_page(recorded_pages()["81FH6d4t"]).game_full()
    assert s960.variant.chess960 and s960.initial_fen is not None and s960.initial_fen.startswith("nbbqrnkr")


def test_a_page_without_clocks_cannot_be_played_from():
    page = parse_game_page('<body data-status="-1" data-result="*" data-board="{&#34;clocks&#34;: [1, true]}">')
    assert page.clocks_ms is None
    with pytest.raises(GamePageError, match="no clocks"):
        page.state()


def test_a_lichess_game_export_gives_status_winner_and_moves():
    # the shape of GET /game/export/{id} with Accept: application/json (Lichess API, "Export one game")
    text = ('{"id":"q7ZvsdUF","rated":true,"variant":"standard","speed":"blitz","perf":"blitz",'
            '"createdAt":1514505150384,"lastMoveAt":1514505592843,"status":"outoftime","players":{"white":'
            '{"user":{"name":"Lance5500","id":"lance5500"},"rating":2389},"black":{"user":{"name":"TryingHard87",'
            '"id":"tryinghard87"},"rating":2498}},"winner":"black","moves":"d4 d5 c4 c6",'
            '"clock":{"initial":300,"increment":3,"totalTime":420}}')
    export = parse_game_export(text)
    assert export.finished and export.sans == ("d4", "d5", "c4", "c6")
    assert (export.outcome.result, export.outcome.termination) == ("0-1", "Time forfeit")
    running = parse_game_export('{"id":"x","status":"started","moves":"e4"}')
    assert not running.finished and running.outcome.result == "*"
    draw = parse_game_export('{"id":"x","status":{"id":34,"name":"draw"},"moves":""}')
    assert draw.outcome.result == "1/2-1/2"
    for bad, reason in (("[]", "not a JSON object"), ("{", "not JSON"), ('{"moves":""}', "no status")):
        with pytest.raises(GameExportError, match=reason):
            parse_game_export(bad)


def test_a_page_without_game_data_is_an_error():
    with pytest.raises(GamePageError, match="no game data"):
        parse_game_page("<html><body><h1>404</h1></body></html>")
    with pytest.raises(GamePageError, match="not a number"):
        parse_game_page('<body data-status="x" data-result="*">')
    with pytest.raises(GamePageError, match="not JSON"):
        parse_game_page('<body data-status="1" data-result="1-0" data-board="{oops">')


def test_a_running_game_on_the_page_is_unterminated():
    page = parse_game_page('<body data-status="-1" data-result="*" data-board="{}">')
    assert not page.finished and page.outcome.result == "*" and page.outcome.termination == "Unterminated"


def test_every_lichess_status_maps_to_a_pgn_termination():
    expected = {"mate": "Normal", "resign": "Normal", "stalemate": "Normal", "draw": "Normal",
                "outoftime": "Time forfeit", "timeout": "Time forfeit", "aborted": "Abandoned",
                "noStart": "Abandoned", "cheat": "Rules infraction", "variantEnd": "Normal",
                "insufficientMaterialClaim": "Normal", "unknownFinish": "Unknown", "started": "Unterminated",
                "created": "Unterminated"}
    assert {status: lichess_outcome(status, None).termination for status in LICHESS_STATUSES} == expected


@pytest.mark.parametrize(("status", "winner", "result"), [
    ("mate", "white", "1-0"), ("resign", "black", "0-1"), ("outoftime", None, "1/2-1/2"),
    ("insufficientMaterialClaim", None, "1/2-1/2"), ("stalemate", None, "1/2-1/2"), ("aborted", None, "*"),
    ("noStart", None, "*"), ("cheat", "white", "1-0"), ("started", None, "*"), ("somethingNew", None, "*"),
])
def test_lichess_results(status, winner, result):
    assert lichess_outcome(status, winner).result == result


def test_pychess_statuses_cover_the_servers_numbers():
    assert set(PYCHESS_STATUSES) == set(range(-2, 14))
    assert pychess_outcome(6, "1-0").termination == "Time forfeit"
    assert pychess_outcome(7, "0-1").termination == "Abandoned"
    assert pychess_outcome(10, "1-0").termination == "Rules infraction"
    assert pychess_outcome(0, "*").termination == "Abandoned"
    assert pychess_outcome(1, "garbage").result == "*"

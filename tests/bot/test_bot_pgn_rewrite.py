"""Reading back a PGN the bot wrote and writing it again with the server's result (issue 26)."""

from __future__ import annotations

import pytest

from bot.records.pgn import PgnReadError, game_pgn, read_pgn

HEADERS = {"Event": "Casual S-chess game", "Site": "http://127.0.0.1/abc", "White": "Opp \"the\" Bot",
           "Black": "us", "Result": "*", "Variant": "Seirawan", "Termination": "Normal"}
SANS = ["e4", "e5", "Nf3/H", "Nc6/E", "Bc4", "Nf6"]
COMMENTS = ["[%clk 0:02:59]", "[%eval 0.12,7] [%clk 0:02:58]", None, "book", None, "stand-in move: it {broke}"]


def written() -> str:
    return game_pgn(HEADERS, SANS, "1-0", comments=COMMENTS)


def test_a_written_pgn_reads_back_as_written() -> None:
    game = read_pgn(written())
    assert game.sans == tuple(SANS)
    assert game.result == "1-0" and game.termination == "Normal"
    assert game.headers["White"] == 'Opp "the" Bot'
    assert game.comments == ("[%clk 0:02:59]", "[%eval 0.12,7] [%clk 0:02:58]", None, "book", None,
                             "stand-in move: it {broke)")
    assert game.with_outcome("1-0", "Normal") == written(), "nothing changed, nothing differs"


def test_the_servers_result_replaces_ours_and_the_moves_keep_their_comments() -> None:
    text = read_pgn(written()).with_outcome("0-1", "Time forfeit")
    again = read_pgn(text)
    assert (again.result, again.termination, again.headers["Result"]) == ("0-1", "Time forfeit", "0-1")
    assert again.sans == tuple(SANS) and again.comments == read_pgn(written()).comments
    assert text.rstrip().endswith("0-1")


def test_the_servers_plies_replace_ours_and_only_shared_moves_keep_comments() -> None:
    longer = [*SANS, "O-O/H"]
    again = read_pgn(read_pgn(written()).with_outcome("0-1", "Normal", longer))
    assert again.sans == tuple(longer)
    assert again.comments[:6] == read_pgn(written()).comments and again.comments[6] is None
    shorter = read_pgn(read_pgn(written()).with_outcome("*", "Abandoned", SANS[:3]))
    assert shorter.sans == tuple(SANS[:3]) and shorter.result == "*"


def test_a_game_from_a_position_with_black_to_move_keeps_its_numbering() -> None:
    fen = "qr4k1/8/8/8/8/8/8/7K[] b - - 0 30"
    text = game_pgn(HEADERS, ["Qa1+", "Kh2"], "0-1", start_fen=fen)
    again = read_pgn(read_pgn(text).with_outcome("1-0", "Time forfeit"))
    assert again.headers["FEN"] == fen and again.sans == ("Qa1+", "Kh2")
    assert "30... Qa1+ 31. Kh2 1-0" in read_pgn(text).with_outcome("1-0", "Time forfeit")


@pytest.mark.parametrize(("text", "why"), [
    ("", "no blank line"),
    ('[Event "x"]\nnot a tag\n\n1. e4 *', "not a tag"),
    ('[Event "x"]\n\n1. e4 e5', "no result"),
    ('[Event "x"]\n\n1. e4 * e5', "text after the result"),
    ('[Event "x"]\n\n{early} 1. e4 *', "before the first move"),
])
def test_what_is_not_a_pgn_we_wrote_is_refused_saying_why(text: str, why: str) -> None:
    with pytest.raises(PgnReadError, match=why):
        read_pgn(text)

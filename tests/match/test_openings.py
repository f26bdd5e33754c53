"""EPD reading and the colour-swapped schedule of the match runner."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.match.openings import Opening, epd_to_fen, load_openings, schedule

# the S-chess book shipped with the engine package (a copy of ../shared/data/seirawan.epd)
BOOK = Path(__file__).resolve().parents[2] / "engine" / "data" / "seirawan.epd"


def test_epd_line_with_four_fields_gets_move_counters() -> None:
    line = "r1bqkbnr/pppppppp/2n5/1B6/4P3/8/PPPP1PPP/RNBQK1NR[HEhe] b KQBCDGkqcdfg -"
    assert epd_to_fen(line) == line + " 0 1"


def test_epd_operations_set_the_counters_and_are_dropped() -> None:
    line = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[HEhe] b KQBCDFGkqbcdfg e3 hmvc 0; fmvn 1; id "e4";'
    assert epd_to_fen(line) == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[HEhe] b KQBCDFGkqbcdfg e3 0 1"
    line = "8/8/8/8/8/8/8/K6k[] w - - hmvc 12; fmvn 40;"
    assert epd_to_fen(line) == "8/8/8/8/8/8/8/K6k[] w - - 12 40"


def test_full_fen_lines_are_kept() -> None:
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] w KQBCDFGkqbcdfg - 3 9"
    assert epd_to_fen(fen) == fen


@pytest.mark.parametrize("line", ["", "   ", "# a comment", "only three fields", "board x castling -"])
def test_lines_without_a_position_are_skipped(line: str) -> None:
    assert epd_to_fen(line) is None


def test_load_openings_names_file_and_line(tmp_path: Path) -> None:
    epd = tmp_path / "o.epd"
    epd.write_text(
        "# header\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[HEhe] b KQBCDFGkqbcdfg -\n\n"
        "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR[HEhe] b KQBCDFGkqbcdfg -\n"
    )
    openings = load_openings(str(epd))
    assert [opening.source for opening in openings] == [f"{epd}:2", f"{epd}:4"]


def test_load_openings_rejects_a_file_without_positions(tmp_path: Path) -> None:
    epd = tmp_path / "empty.epd"
    epd.write_text("# nothing\n")
    with pytest.raises(ValueError, match="no EPD positions"):
        load_openings(str(epd))


def test_packaged_seirawan_book_loads_completely() -> None:
    openings = load_openings(str(BOOK))
    assert len(openings) == 7609
    assert all(opening.fen.endswith(" 0 1") and "[" in opening.fen for opening in openings)


OPENINGS = [Opening(f"fen{index}", f"src{index}") for index in range(5)]


def test_each_opening_is_played_twice_with_colours_swapped() -> None:
    jobs = schedule(6, OPENINGS)
    assert [job.number for job in jobs] == [1, 2, 3, 4, 5, 6]
    assert [job.opening.fen for job in jobs] == ["fen0", "fen0", "fen1", "fen1", "fen2", "fen2"]
    assert [job.engine1_is_white for job in jobs] == [True, False] * 3


def test_openings_are_reused_when_the_match_is_longer() -> None:
    jobs = schedule(12, OPENINGS)
    assert [job.opening_index for job in jobs][10:] == [0, 0]


def test_shuffle_is_repeatable_with_a_seed_and_keeps_pairs() -> None:
    first = [job.opening_index for job in schedule(10, OPENINGS, shuffle=True, seed=7)]
    second = [job.opening_index for job in schedule(10, OPENINGS, shuffle=True, seed=7)]
    assert first == second
    assert sorted(first) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert all(first[index] == first[index + 1] for index in range(0, 10, 2))
    orders = {tuple(job.opening_index for job in schedule(10, OPENINGS, True, seed)) for seed in range(10)}
    assert len(orders) > 1

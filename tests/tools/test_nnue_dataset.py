"""The training data sets of tools/nnue (tools/nnue/dataset.py): positions that round-trip exactly (hands, gates,
S-House pockets and promoted pieces, Chess960), a reader that refuses other format versions, merges without
duplicates, and generation that resumes and appends without a duplicate game, even after a kill mid-write."""

from __future__ import annotations

import random
import struct
from pathlib import Path

import numpy as np
import pytest

from engine import Board, nnue
from tools.nnue import dataset
from tools.nnue.__main__ import main
from tools.nnue.generate import write_games
from tools.nnue.train import featurize, read_positions

OPENINGS = Path(__file__).resolve().parents[2] / "engine" / "data" / "seirawan.epd"
S_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w KQBCDFGkqbcdfg - 0 1"
STARTS = [
    ("seirawan", False, S_START),
    ("shouse", False, S_START),
    ("chess", False, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("seirawan", True, "nbbqrnkr/pppppppp/8/8/8/8/PPPPPPPP/NBBQRNKR[HEhe] w KQBCDAFkqbcdaf - 0 1"),
    ("chess", True, "nbbqrnkr/pppppppp/8/8/8/8/PPPPPPPP/NBBQRNKR w KQkq - 0 1"),
]
FIXED = [
    # S-House: sixteen pawns in one hand, a promoted queen (~), black to move, large move counters
    ("shouse", "4k3/8/8/8/8/8/8/Q~3K3[PPPPPPPPPPPPPPPPpp] b - - 37 140"),
    # an en passant square, S-chess gates of both sides
    ("seirawan", "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR[EHeh] b KQBCDFGkqbcdfg e3 0 3"),
    # one side's hand empty (its gates gone), the other's Elephant left
    ("seirawan", "r1bqk2r/ppp2ppp/2n2n2/3pp3/1b1PP3/2N2N2/PPP2PPP/R1BQKB1R[e] w KQkq - 2 6"),
]


def random_boards(seed: int, games: int = 6, plies: int = 120) -> list[Board]:
    """Boards along random games of every stored variant (captures fill S-House's pockets, pawns promote)."""
    rng = random.Random(seed)
    out = []
    for variant, chess960, fen in STARTS:
        for _ in range(games):
            board = Board(fen, variant=variant, chess960=chess960)
            for _ in range(plies):
                moves = board.legal_moves_codes()
                if not moves or board.outcome(claim_draw=True):
                    break
                board.make(rng.choice(moves))
                out.append(board.copy())
    out += [Board(fen, variant=variant) for variant, fen in FIXED]
    return out


def test_positions_round_trip_with_hands_gates_and_s_house_pockets() -> None:
    boards = random_boards(1)
    shouse = [b for b in boards if b.variant == "shouse"]
    assert any(b.promoted for b in shouse) and any(b.hand[1] or b.hand[-1] for b in shouse)
    assert any(b.gates for b in boards) and any(b.hand[7] + b.hand[8] for b in boards)
    packed = [dataset.pack_board(b, i % 700 - 350, (i % 3) / 2, i, i % 5) for i, b in enumerate(boards)]
    assert all(len(p) == dataset.RECORD_SIZE for p in packed)
    records = np.frombuffer(b"".join(packed), dtype=dataset.RECORD)
    inputs = dataset.decode(records)
    for i, (board, record) in enumerate(zip(boards, packed, strict=True)):
        fields = dataset.record_position(record)
        assert fields["fen"] == board.fen()  # the FEN back exactly as the engine writes it
        again = Board(fields["fen"], variant=fields["variant"], chess960=fields["chess960"])
        assert (again.castling, again.gates, again.promoted, again.hand) == (board.castling, board.gates,
                                                                             board.promoted, board.hand)
        assert (fields["variant"], fields["chess960"]) == (board.variant, board.chess960)
        assert (fields["score"], fields["result"], fields["game"], fields["source"]) == (i % 700 - 350, (i % 3) / 2,
                                                                                         i, i % 5)
        # what the net reads, vectorized, is the board's own
        assert inputs["squares"][i].tolist() == list(board.squares)
        assert inputs["hand"][i].tolist() == list(board.hand)
        assert (int(inputs["gates"][i]), int(inputs["side"][i])) == (board.gates, board.side)
        assert nnue.features(inputs["squares"][i].tolist(), inputs["hand"][i].tolist(), int(inputs["gates"][i]),
                             board.side) == nnue.features(list(board.squares), board.hand, board.gates, board.side)
    with pytest.raises(ValueError, match="not stored"):
        dataset.pack_board(Board(S_START, variant="seirawan-forced-entry"), 0, 0.5, 0)


def test_a_data_set_of_another_version_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "old.pos"
    with dataset.Writer(path, {"kind": "test"}) as writer:
        writer.add_fen(S_START, "seirawan", 20, 1.0, 0)
        writer.commit(1)
    assert len(dataset.read(path).records) == 1
    raw = bytearray(path.read_bytes())
    raw[8:12] = struct.pack("<I", dataset.VERSION + 1)
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=rf"old\.pos: data set format version {dataset.VERSION + 1}"):
        dataset.read(path)
    with pytest.raises(ValueError, match="old.pos"):
        dataset.Writer(path, {"kind": "test"})
    text = tmp_path / "lines.pos"
    text.write_text(f"{S_START};0;0.5;0\n")
    with pytest.raises(ValueError, match="lines.pos: not a training data set"):
        dataset.read(text)


def test_merge_keeps_each_position_once(tmp_path: Path) -> None:
    boards = random_boards(2, games=1, plies=40)[:60]
    a, b, out = tmp_path / "a.pos", tmp_path / "b.pos", tmp_path / "ab.pos"
    with dataset.Writer(a, {"kind": "test", "seed": 1}) as writer:
        for i, board in enumerate(boards[:40]):
            writer.add_board(board, 100, 1.0, i)
        writer.add_board(boards[0], 555, 0.0, 99)  # the same position again in one file
        writer.commit(40)
    with dataset.Writer(b, {"kind": "test", "seed": 2}) as writer:
        for i, board in enumerate(boards[20:]):  # 20 positions that a holds too
            writer.add_board(board, -100, 0.0, i)
        writer.commit(40)
    assert main(["merge", str(a), str(b), "--out", str(out)]) == 0
    merged = dataset.read(out)
    assert len(merged.records) == len(dataset.first_of_each(merged.records)) == 60
    assert merged.meta["duplicates_removed"] == 21
    assert [s["seed"] for s in merged.sources] == [1, 2]
    assert (merged.records["score"][:40] == 100).all()  # the first of each position is kept
    assert [dataset.record_fen(r.tobytes()) for r in merged.records] == [board.fen() for board in boards]
    with pytest.raises(ValueError, match="exists"):
        dataset.merge([a], b)  # b is not an input: not overwritten
    assert main(["merge", str(out), str(a), "--out", str(out)]) == 0  # adding to a set: nothing new
    again = dataset.read(out)
    assert len(again.records) == 60 and again.meta["duplicates_removed"] == 21 + 41
    report = dataset.info(out)
    assert "60 positions" in report and "removed by merges so far: 62" in report and "seirawan" in report


def quick_play(opening: str, rng: random.Random) -> list[tuple[str, int, float]] | None:
    """A stand-in for a self-play game: a few positions of a random line, deterministic in ``rng``."""
    board = Board(opening)
    out = []
    for _ in range(rng.randint(0, 6)):
        board.make(rng.choice(board.legal_moves_codes()))
        out.append((board.fen(), rng.randint(-500, 500), 0.5))
    return out or None  # a dropped game now and then


def test_generation_resumes_and_appends_without_duplicates(tmp_path: Path) -> None:
    source = {"kind": "test", "seed": 7}
    whole = tmp_path / "whole.pos"
    write_games(whole, 12, OPENINGS, 7, None, quick_play, source)
    reference = dataset.read(whole).records

    resumed = tmp_path / "resumed.pos"
    write_games(resumed, 5, OPENINGS, 7, None, quick_play, source)
    # Killed after writing game 5's records but before committing them: the records are past the committed count.
    with dataset.Writer(resumed, source) as writer:
        assert writer.done == 5
    tail = dataset.read(resumed).records[-3:].tobytes()
    with resumed.open("ab") as f:
        f.write(tail + b"torn")
    assert len(dataset.read(resumed).records) == len(reference[reference["game"] < 5])
    write_games(resumed, 12, OPENINGS, 7, None, quick_play, source)
    assert dataset.read(resumed).records.tobytes() == reference.tobytes()
    assert resumed.stat().st_size == whole.stat().st_size

    # Another run appends under its own source; the first resumes where it was.
    write_games(resumed, 3, OPENINGS, 8, None, quick_play, {"kind": "test", "seed": 8})
    data = dataset.read(resumed)
    assert [(s["seed"], s["done"]) for s in data.sources] == [(7, 12), (8, 3)]
    assert write_games(resumed, 12, OPENINGS, 7, None, quick_play, source) == 0
    assert len(data.records) == len(dataset.read(resumed).records)

    with dataset.Writer(resumed, source), pytest.raises(RuntimeError, match="another process"):
        dataset.Writer(resumed, source)  # one writer a file


def test_a_header_that_outgrows_its_block_moves_the_records(tmp_path: Path) -> None:
    path = tmp_path / "big.pos"
    write_games(path, 4, OPENINGS, 1, None, quick_play, {"kind": "test", "seed": 1})
    before = dataset.read(path).records.tobytes()
    with dataset.Writer(path, {"kind": "test", "seed": 2, "note": "x" * 9000}) as writer:
        writer.add_fen(S_START, "seirawan", 5, 0.5, 0)
        writer.commit(1)
    data = dataset.read(path)
    assert data.records[:-1].tobytes() == before and len(data.sources) == 2
    assert dataset.record_fen(data.records[-1].tobytes()) == Board(S_START).fen()


def test_engine_self_play_into_a_data_set_trains_like_the_text_format(tmp_path: Path) -> None:
    data = tmp_path / "selfplay.pos"
    args = ["generate", "--out", str(data), "--nodes", "150", "--openings", str(OPENINGS), "--seed", "3"]
    assert main(args + ["--games", "1"]) == 0
    assert main(args + ["--games", "2"]) == 0  # resumes after game 0
    records = dataset.read(data).records
    assert set(records["game"].tolist()) == {0, 1} and dataset.read(data).sources[0]["done"] == 2

    text = tmp_path / "selfplay.txt"
    assert main(["convert", str(data), "--out", str(text)]) == 0
    assert read_positions(text) == read_positions(data)
    back = tmp_path / "back.pos"
    assert main(["convert", str(text), "--out", str(back), "--kind", "generate", "--nodes", "150"]) == 0
    assert read_positions(back) == read_positions(data)
    from_set, from_text = featurize(data), featurize(text)
    assert all(np.array_equal(from_set[key], from_text[key]) for key in from_text)
    assert all(np.array_equal(featurize(data)[key], from_set[key]) for key in from_set)  # from the cache

    walks = tmp_path / "walks.pos"
    assert main(["expand", str(data), "--out", str(walks), "--per-position", "1"]) == 0
    assert set(dataset.read(walks).records["game"].tolist()) <= {0, 1}
    net = tmp_path / "tiny.nnue"
    assert main(["train", str(walks), str(data), "--out", str(net), "--hidden", "8", "--epochs", "1", "--batch",
                 "64"]) == 0
    assert nnue.load(str(net)).hidden == 8
    assert main(["train", str(data), "--variant", "shouse", "--out", str(tmp_path / "x.nnue"), "--hidden", "8",
                 "--epochs", "1"]) == 2  # S-chess positions are not S-House training data
    assert main(["info", str(data), str(text)]) == 0

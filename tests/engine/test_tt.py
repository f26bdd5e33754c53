"""The transposition table (engine/tt.py): fixed slots in buckets of four, replacement by depth and age, mate
scores and moves round-trip, never emptied by a search, and the number of slots a Hash size buys."""

from __future__ import annotations

from array import array

from engine import Board
from engine.search import Searcher, SearchLimits
from engine.tt import BUCKET_SLOTS, EXACT, LOWER, SLOT_BYTES, UPPER, TranspositionTable, pack, slots_for, tt_key, unpack


def _same_bucket(table: TranspositionTable, key: int, count: int) -> list[int]:
    """``count`` keys of the bucket of ``key``, ``key`` first."""
    step = (table.bucket_mask + 1)
    return [key + i * step for i in range(count)]


def test_data_words_round_trip_with_extreme_values() -> None:
    for fields in [(0, EXACT, 0, 0), (127, UPPER, 31000, 0xFFFFF), (12, LOWER, -31000, 0x5ABCD), (1, EXACT, -1, 1)]:
        for age in (0, 1, 63):
            data = pack(*fields, age)
            assert data > 0 and unpack(data) == fields
    assert unpack(pack(200, EXACT, 5, 9, 0))[0] == 127 and unpack(pack(-3, EXACT, 5, 9, 0))[0] == 0


def test_a_hash_size_buys_16_bytes_a_slot() -> None:
    assert SLOT_BYTES == 16 and BUCKET_SLOTS == 4
    assert slots_for(16) == 1 << 20 and slots_for(1) == 1 << 16 and slots_for(3) == 1 << 17
    table = TranspositionTable(16)
    assert table.slots == 1 << 20 and len(table.buffer) == 2 * table.slots
    assert table.buffer.itemsize * len(table.buffer) == 16 * 1024 * 1024


def test_a_bucket_holds_four_keys_then_replaces_the_shallowest() -> None:
    table = TranspositionTable(1)
    keys = _same_bucket(table, 0x1234567, 5)
    for depth, key in zip((5, 9, 2, 7), keys, strict=False):
        table.store(key, depth, EXACT, depth * 10, depth)
    assert [table.stored(k) for k in keys[:4]] == [(d, EXACT, d * 10, d) for d in (5, 9, 2, 7)]
    table.store(keys[4], 1, LOWER, 0, 11)  # the bucket is full: the depth-2 slot goes
    assert table.stored(keys[2]) is None and table.stored(keys[4]) == (1, LOWER, 0, 11)
    assert all(table.stored(k) is not None for k in (keys[0], keys[1], keys[3]))


def test_what_older_searches_stored_goes_first() -> None:
    table = TranspositionTable(1)
    keys = _same_bucket(table, 0x2345, 6)
    for key in keys[:4]:
        table.store(key, 10, EXACT, 0, 1)
    table.new_search()  # the four slots are a search old now
    table.store(keys[0], 10, EXACT, 0, 1)  # refreshed in this search
    table.store(keys[4], 3, EXACT, 0, 2)  # replaces an old depth-10 slot, not the fresh one
    assert table.stored(keys[0]) is not None and table.stored(keys[4]) is not None
    assert sum(table.stored(k) is None for k in keys[1:4]) == 1


def test_the_same_key_keeps_much_deeper_data_of_this_search_and_its_move() -> None:
    table = TranspositionTable(1)
    table.store(77, 12, LOWER, 50, 321)
    table.store(77, 4, UPPER, -10, 0)  # shallower and not exact: the deep one stays
    assert table.stored(77) == (12, LOWER, 50, 321)
    table.store(77, 4, EXACT, 15, 0)  # exact replaces, and keeps the old move when it has none
    assert table.stored(77) == (4, EXACT, 15, 321)
    table.new_search()
    table.store(77, 1, UPPER, 3, 0)  # of an older search: replaced
    assert table.stored(77) == (1, UPPER, 3, 321)


def test_clear_empties_and_hashfull_counts_this_search() -> None:
    table = TranspositionTable(1)
    for key in range(0, 4000 * 4, 4):
        table.store(key, 3, EXACT, 0, 1)
    assert table.permille() > 0
    table.new_search()
    assert table.permille() == 0
    table.store(0, 3, EXACT, 0, 1)
    table.clear()
    assert table.stored(0) is None


def test_a_search_in_a_tiny_table_never_empties_it_and_finds_what_it_stored() -> None:
    """Far more nodes than slots: the table fills and replaces, and what the root stored is there afterwards."""
    searcher = Searcher(1)
    searcher.tt._set_words(array("q", bytes(1024 * SLOT_BYTES)), 1024)
    board = Board()
    result = searcher.search(board, SearchLimits(depth=7))
    assert result.nodes > 4 * searcher.tt.slots
    assert result.best in board.generate_legal()
    words = searcher.tt.buffer
    assert sum(1 for i in range(0, len(words), 2) if words[i]) > 0.7 * searcher.tt.slots  # filled, never emptied
    assert searcher.tt.permille() > 700
    board.push(board.move_of(result.best))
    assert searcher.tt.stored(tt_key(board.hash, board.gates)) is not None  # the root's child, stored at ply 1

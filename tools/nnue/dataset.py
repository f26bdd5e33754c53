"""Data sets of training positions: a compact, versioned binary file that generation appends to and resumes, and
that ``merge`` joins without duplicates (docs/nnue.md, "Data sets").

**File**: a header block, then records of 64 bytes. The header (little-endian): ``MAGIC`` (8 bytes), u32 format
version, u32 record size, u32 header size (the bytes before the first record, a multiple of 4096), u64 committed
records, u32 length of the JSON text that follows (utf-8, padded with spaces to the header size):
``{"sources": [...], "duplicates_removed": n, "merged_from": [...]}``. Records past the committed count are a
writer's unfinished step: readers ignore them and the next writer cuts them off, so a generator killed at any
moment resumes without a duplicate.

**Sources**: one JSON object per run that made positions (``kind``: generate, fsfplay, expand, label, convert;
``nodes``, ``seed``, ``openings``, ``variant``, ``label``: what scored the positions, ...), with ``done`` (the games,
or input positions, finished: where a rerun resumes), ``engine_id``, ``commit`` and ``created`` (for the record
only). A writer resumes the source whose fields other than those four equal its own, or adds a new one.

**Record** (``RECORD``): the position (pieces on the board as an occupancy mask and one nibble per piece,
colour << 3 | type - 1, in square order a1 = 0 .. h8 = 63, up to 36 pieces; pieces in hand; S-House's promoted
pieces; castling rights and gates as rank-1 / rank-8 file masks; side to move, variant, Chess960; en passant
square; move counters), then the label: the score in centipawns and the game's result, both from the side to
move's view (the result in ten-thousandths of a point: expand's fractional results too), the game's number in
its run and the source's index. The first ``KEY_BYTES`` bytes (everything up to the move counters) are the
position's key: records with equal keys are the same position to the net and to the rules, and ``merge`` keeps
the first. ``record_fen`` gives the FEN back exactly as the engine writes it.
"""

from __future__ import annotations

import datetime
import fcntl
import json
import math
import os
import struct
import subprocess
from pathlib import Path
from typing import Any, Iterator, NamedTuple, Optional

import numpy as np

from engine import Board
from engine.fen import board_field
from engine.tables import BISHOP, ELEPHANT, HAWK, KING, KNIGHT, PAWN, QUEEN, ROOK
from engine.variants import DROP_VARIANTS, GATING_VARIANTS

MAGIC = b"SCHESSDS"
VERSION = 1
RECORD_SIZE = 64
KEY_BYTES = 48
HEADER_BLOCK = 4096
_HEAD = struct.Struct("<8sIIIQI")  # magic, version, record size, header size, committed records, JSON length

RECORD = np.dtype([
    ("occupied", "<u8"),     # 0: the squares with a piece
    ("pieces", "u1", 18),    # 8: one nibble a piece in square order, low nibble first
    ("pawns", "u1", 2),      # 26: pawns in hand, white's then black's
    ("hand", "u1", 6),       # 28: nibbles: white's knights, bishops, rooks, queens, Hawks, Elephants in hand, black's
    ("promoted", "<u8"),     # 34: S-House: the squares of promoted pieces
    ("castling", "<u2"),     # 42: the rooks with a castling right, by file: bits 0-7 rank 1, 8-15 rank 8
    ("gates", "<u2"),        # 44: the back-rank squares that may still gate, the same layout
    ("flags", "u1"),         # 46: bit 0 black to move, bits 1-2 the variant (VARIANTS), bit 3 Chess960
    ("ep", "u1"),            # 47: the en passant square, 255 none
    ("halfmove", "<u2"),     # 48
    ("fullmove", "<u2"),     # 50
    ("score", "<i2"),        # 52: centipawns, side to move
    ("result", "<u2"),       # 54: the game's result for the side to move, in 1/10000 of a point
    ("game", "<u4"),         # 56: the game's number in its run (the validation split goes by it)
    ("source", "<u2"),       # 60: index into the header's sources
    ("reserved", "<u2"),     # 62: 0
])
assert RECORD.itemsize == RECORD_SIZE
_PACK = struct.Struct("<Q18s2s6sQHHBBHHhHIHH")
assert _PACK.size == RECORD_SIZE

VARIANTS = ("seirawan", "shouse", "chess")
HAND_TYPES = (KNIGHT, BISHOP, ROOK, QUEEN, HAWK, ELEPHANT)
MAX_PIECES = 36
RESULT_UNIT = 10000
#: source fields that do not tell runs apart: a rerun resumes the source whose other fields match
INFO_FIELDS = frozenset({"done", "engine_id", "commit", "created"})


class DataSet(NamedTuple):
    path: Path
    meta: dict[str, Any]  # the header's JSON: "sources" and the merge history
    records: np.ndarray   # RECORD, the committed ones

    @property
    def sources(self) -> list[dict[str, Any]]:
        return list(self.meta.get("sources", []))


# -- one position ---------------------------------------------------------------------------------------------

def _rank_bits(mask: int, what: str) -> int:
    if mask & ~0xFF000000000000FF:
        raise ValueError(f"{what} off the back ranks: {mask:#x}")
    return (mask & 0xFF) | (mask >> 56 & 0xFF) << 8


def _mask_of(bits: int) -> int:
    return (bits & 0xFF) | (bits >> 8 & 0xFF) << 56


def pack_board(board: Board, score: int, result: float, game: int, source: int = 0) -> bytes:
    """The 64-byte record of ``board`` with its label: ``score`` (centipawns) and ``result`` (1, 0.5, 0 or a
    fraction) from the side to move's view. ValueError for what the format cannot hold (another variant, more
    than 36 pieces on the board, a hand of more than 15 of a piece other than a pawn)."""
    if board.variant not in VARIANTS:
        raise ValueError(f"variant {board.variant!r} is not stored in data sets (only {', '.join(VARIANTS)})")
    squares = board.squares
    occupied = 0
    nibbles = []
    for sq in range(64):
        p = squares[sq]
        if p:
            occupied |= 1 << sq
            nibbles.append((8 if p < 0 else 0) | (abs(p) - 1))
    if len(nibbles) > MAX_PIECES:
        raise ValueError(f"{len(nibbles)} pieces on the board, at most {MAX_PIECES} are stored")
    nibbles += [0] * (MAX_PIECES - len(nibbles))
    hand = board.hand
    counts = [hand[t] for t in HAND_TYPES] + [hand[-t] for t in HAND_TYPES]
    if max(counts) > 15 or max(hand[PAWN], hand[-PAWN]) > 255:
        raise ValueError(f"a hand too large to store: {board.fen()}")
    flags = ((board.side == -1) | VARIANTS.index(board.variant) << 1 | (8 if board.chess960 else 0))
    fullmove = board.fullmove_number
    if not (0 <= board.halfmove < 65536 and 0 <= fullmove < 65536):
        raise ValueError(f"move counters too large to store: {board.fen()}")
    if not -32768 <= score <= 32767:
        raise ValueError(f"score {score} out of range")
    if not 0.0 <= result <= 1.0:
        raise ValueError(f"result {result} out of range")
    return _PACK.pack(
        occupied,
        bytes(nibbles[i] | nibbles[i + 1] << 4 for i in range(0, MAX_PIECES, 2)),
        bytes((hand[PAWN], hand[-PAWN])),
        bytes(counts[i] | counts[i + 1] << 4 for i in range(0, 12, 2)),
        board.promoted,
        _rank_bits(board.castling, "castling rights"),
        _rank_bits(board.gates, "gates"),
        flags,
        board.ep if board.ep >= 0 else 255,
        board.halfmove,
        fullmove,
        score,
        round(result * RESULT_UNIT),
        game,
        source,
        0,
    )


def pack_fen(fen: str, variant: str, white_score: int, white_result: float, game: int, source: int = 0,
             chess960: bool = False) -> bytes:
    """The record of a FEN labelled from white's view (the text format's lines)."""
    board = Board(fen, variant=variant, chess960=chess960)
    side = board.side
    return pack_board(board, white_score * side, white_result if side == 1 else 1.0 - white_result, game, source)


def _unpack_squares(occupied: int, pieces: bytes) -> list[int]:
    squares = [0] * 64
    k = 0
    for sq in range(64):
        if occupied >> sq & 1:
            nibble = pieces[k >> 1] >> (4 * (k & 1)) & 15
            squares[sq] = -((nibble & 7) + 1) if nibble & 8 else (nibble & 7) + 1
            k += 1
    return squares


def _castling_field(squares: list[int], castling: int, gates: int, hand: list[int], chess960: bool,
                    drops: bool) -> str:
    """The FEN castling field as the engine writes it (``engine.fen._castling_fen``): castling rights, then gate
    file letters while that side's gates are live."""
    out = ""
    for color, sign in ((0, 1), (1, -1)):
        base = 0 if color == 0 else 56
        letters = "ABCDEFGH" if color == 0 else "abcdefgh"
        rights = [base + f for f in range(8) if castling >> (8 * color + f) & 1]
        king_sq = squares.index(KING * sign)
        rook_files = set()
        wings = (([sq for sq in rights if sq > king_sq], "K"), ([sq for sq in rights if sq < king_sq], "Q"))
        for rooks, letter in wings:
            for sq in rooks:
                rook_files.add(sq - base)
                out += letters[sq - base] if chess960 else (letter if color == 0 else letter.lower())
        live = drops or hand[HAWK * sign] + hand[ELEPHANT * sign] > 0
        if live:
            for f in range(8):
                if not gates >> (8 * color + f) & 1 or f in rook_files:
                    continue
                if not chess960 and rights and base + f == king_sq:
                    continue
                out += letters[f]
    return out or "-"


def record_position(record: bytes) -> dict[str, Any]:
    """The fields of a record: ``squares`` (the engine's codes), ``hand`` (17 counts, indexed as the engine's),
    ``gates`` (a 64-bit mask), ``side``, ``variant``, ``chess960``, ``fen``, ``score`` and ``result`` (side to
    move), ``game``, ``source``."""
    (occupied, pieces, pawns, hand_bytes, promoted, castling, gates, flags, ep, halfmove, fullmove, score,
     result, game, source, _) = _PACK.unpack(bytes(record))
    squares = _unpack_squares(occupied, pieces)
    hand = [0] * 17
    hand[PAWN], hand[-PAWN] = pawns[0], pawns[1]
    for i in range(12):
        count = hand_bytes[i >> 1] >> (4 * (i & 1)) & 15
        t = HAND_TYPES[i % 6]
        hand[t if i < 6 else -t] = count
    code = flags >> 1 & 3
    if code >= len(VARIANTS):
        raise ValueError(f"a record of an unknown variant (flags {flags:#x})")
    variant = VARIANTS[code]
    chess960 = bool(flags & 8)
    side = -1 if flags & 1 else 1
    text = board_field(squares, promoted, hand, variant in GATING_VARIANTS)
    castling_text = _castling_field(squares, castling, gates, hand, chess960, variant in DROP_VARIANTS)
    ep_text = "-" if ep == 255 else "abcdefgh"[ep & 7] + str((ep >> 3) + 1)
    fen = f"{text} {'w' if side == 1 else 'b'} {castling_text} {ep_text} {halfmove} {fullmove}"
    return {"squares": squares, "hand": hand, "gates": _mask_of(gates), "side": side, "variant": variant,
            "chess960": chess960, "fen": fen, "score": score, "result": result / RESULT_UNIT, "game": game,
            "source": source}


def record_fen(record: bytes) -> str:
    """The FEN of a record, exactly as the engine writes it."""
    return str(record_position(record)["fen"])


def record_board(record: bytes) -> Board:
    fields = record_position(record)
    return Board(fields["fen"], variant=fields["variant"], chess960=fields["chess960"])


# -- many positions at once (the trainer) -----------------------------------------------------------------------

def decode(records: np.ndarray) -> dict[str, np.ndarray]:
    """The net's inputs of many records, vectorized: ``squares`` (N x 64, the engine's codes), ``hand`` (N x 17,
    indexed as the engine's), ``gates`` (N, 64-bit masks), ``side`` (N, 1 or -1)."""
    n = len(records)
    occupied = np.ascontiguousarray(records["occupied"]).astype("<u8")
    bits = np.unpackbits(occupied.view(np.uint8).reshape(n, 8), axis=1, bitorder="little").astype(bool)
    pieces = np.asarray(records["pieces"])
    nibbles = np.empty((n, 2 * pieces.shape[1]), dtype=np.int16)
    nibbles[:, 0::2] = pieces & 15
    nibbles[:, 1::2] = pieces >> 4
    index = np.clip(np.cumsum(bits, axis=1) - 1, 0, MAX_PIECES - 1)
    values = np.take_along_axis(nibbles, index, axis=1)
    codes = ((values & 7) + 1) * np.where(values & 8, -1, 1)
    squares = np.where(bits, codes, 0).astype(np.int8)
    hand = np.zeros((n, 17), dtype=np.int16)
    pawns = np.asarray(records["pawns"]).astype(np.int16)
    hand[:, PAWN], hand[:, 17 - PAWN] = pawns[:, 0], pawns[:, 1]
    hand_bytes = np.asarray(records["hand"]).astype(np.int16)
    for i in range(12):
        count = (hand_bytes[:, i >> 1] >> (4 * (i & 1))) & 15
        t = HAND_TYPES[i % 6]
        hand[:, t if i < 6 else 17 - t] = count
    gate_bits = np.asarray(records["gates"]).astype(np.uint64)
    gates = (gate_bits & np.uint64(0xFF)) | ((gate_bits >> np.uint64(8)) << np.uint64(56))
    side = np.where(np.asarray(records["flags"]) & 1, -1, 1).astype(np.int8)
    return {"squares": squares, "hand": hand, "gates": gates, "side": side}


def keys(records: np.ndarray) -> np.ndarray:
    """The positions' keys (the first ``KEY_BYTES`` bytes of each record) as one comparable value a record."""
    raw = np.ascontiguousarray(records).view(np.uint8).reshape(len(records), RECORD_SIZE)[:, :KEY_BYTES]
    return np.ascontiguousarray(raw).view(f"V{KEY_BYTES}").ravel()


def first_of_each(records: np.ndarray) -> np.ndarray:
    """The indices of the first record of each position, in order."""
    if len(records) == 0:
        return np.zeros(0, dtype=np.int64)
    _, first = np.unique(keys(records), return_index=True)
    return np.sort(first)


def white_results(records: np.ndarray) -> np.ndarray:
    """The games' results from white's view (0 .. 1)."""
    result = np.asarray(records["result"]).astype(np.float64) / RESULT_UNIT
    return np.where(np.asarray(records["flags"]) & 1, 1.0 - result, result)


def variant_names(records: np.ndarray) -> list[str]:
    """``variant`` or ``variant960`` of every record."""
    flags = np.asarray(records["flags"])
    return [VARIANTS[(f >> 1) & 3] + ("960" if f & 8 else "") for f in flags.tolist()]


# -- files --------------------------------------------------------------------------------------------------------

def is_dataset(path: Path) -> bool:
    """Whether ``path`` is a data set file (it starts with ``MAGIC``)."""
    try:
        with open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def writes_text(path: Path) -> bool:
    """Whether a tool writing ``path`` writes the old line format (``fen;score;result;game``): an existing file
    that is not a data set, or a new one named ``*.txt``. Any other new file becomes a data set."""
    if path.exists() and path.stat().st_size > 0:
        return not is_dataset(path)
    return path.suffix == ".txt"


def _read_head(f: Any, path: Path) -> tuple[int, int, dict[str, Any]]:
    """(header size, committed records, JSON) of an open data set; ValueError naming the file otherwise."""
    f.seek(0)
    raw = f.read(_HEAD.size)
    if len(raw) < _HEAD.size or raw[:len(MAGIC)] != MAGIC:
        raise ValueError(f"{path}: not a training data set (it does not start with {MAGIC.decode()})")
    _, version, record_size, header_size, records, json_len = _HEAD.unpack(raw)
    if version != VERSION:
        raise ValueError(f"{path}: data set format version {version}; this build reads version {VERSION} only "
                         f"(docs/nnue.md, 'Data sets')")
    if record_size != RECORD_SIZE or header_size < _HEAD.size + json_len:
        raise ValueError(f"{path}: a damaged data set header (record size {record_size}, header {header_size})")
    meta = json.loads(f.read(json_len).decode("utf-8"))
    size = os.fstat(f.fileno()).st_size
    if size < header_size + records * RECORD_SIZE:
        raise ValueError(f"{path}: truncated: {records} records committed, room for "
                         f"{max(size - header_size, 0) // RECORD_SIZE}")
    return header_size, records, meta


def _header_bytes(meta: dict[str, Any], records: int, header_size: int = 0) -> bytes:
    text = json.dumps(meta, sort_keys=True).encode("utf-8")
    need = _HEAD.size + len(text)
    if header_size < need:
        header_size = HEADER_BLOCK * math.ceil((need + 1024) / HEADER_BLOCK)
    head = _HEAD.pack(MAGIC, VERSION, RECORD_SIZE, header_size, records, len(text)) + text
    return head + b" " * (header_size - len(head))


def read(path: Path) -> DataSet:
    """A data set's committed records and header; ValueError naming the file for anything else (another
    format version, not a data set, truncated)."""
    with open(path, "rb") as f:
        header_size, count, meta = _read_head(f, path)
    records = (np.fromfile(path, dtype=RECORD, count=count, offset=header_size) if count
               else np.zeros(0, dtype=RECORD))
    return DataSet(path, meta, records)


def write(path: Path, meta: dict[str, Any], records: np.ndarray) -> None:
    """Write a whole data set (to a temporary file, then renamed over ``path``)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(_header_bytes(meta, len(records)))
        f.write(np.ascontiguousarray(records, dtype=RECORD).tobytes())
    tmp.replace(path)


def identity(source: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in source.items() if k not in INFO_FIELDS}, sort_keys=True)


def tools_commit() -> Optional[str]:
    """The commit of the tree these tools run from (None outside a git checkout)."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).resolve().parent,
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


class Writer:
    """Appends the positions of one source to a data set (a new file or an existing one), resumably: ``done``
    is where the source stopped; ``add`` buffers records, ``commit(done)`` writes them and then the header
    (committed count, the source's ``done``). A process killed between the two leaves records past the committed
    count, which the next writer cuts off: the step is redone, never duplicated. One writer a file at a time
    (an exclusive lock; a second one gets RuntimeError)."""

    def __init__(self, path: Path, source: dict[str, Any]) -> None:
        self.path = path
        if not path.exists() or path.stat().st_size == 0:
            path.write_bytes(_header_bytes({"sources": []}, 0))
        self.file = open(path, "r+b")
        try:
            fcntl.flock(self.file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.file.close()
            raise RuntimeError(f"{path} is being written by another process") from None
        try:
            self.header_size, self.count, self.meta = _read_head(self.file, path)
        except ValueError:
            self.file.close()
            raise
        self.file.truncate(self.header_size + self.count * RECORD_SIZE)  # an unfinished step of a killed writer
        sources = self.meta.setdefault("sources", [])
        wanted = identity(source)
        for index, known in enumerate(sources):
            if identity(known) == wanted:
                self.index = index
                break
        else:
            self.index = len(sources)
            if self.index >= 65536:
                raise ValueError(f"{path}: too many sources")
            sources.append({**source, "done": 0, "commit": tools_commit(),
                            "created": datetime.date.today().isoformat()})
            self._write_header()
        self.pending: list[bytes] = []

    @property
    def source(self) -> dict[str, Any]:
        return dict(self.meta["sources"][self.index])

    @property
    def done(self) -> int:
        return int(self.meta["sources"][self.index]["done"])

    def add_board(self, board: Board, score: int, result: float, game: int) -> None:
        """A position with its label from the side to move's view."""
        self.pending.append(pack_board(board, score, result, game, self.index))

    def add_fen(self, fen: str, variant: str, white_score: int, white_result: float, game: int,
                chess960: bool = False) -> None:
        """A position with its label from white's view (as the text format writes it)."""
        self.pending.append(pack_fen(fen, variant, white_score, white_result, game, self.index, chess960))

    def commit(self, done: int) -> None:
        if self.pending:
            self.file.seek(self.header_size + self.count * RECORD_SIZE)
            self.file.write(b"".join(self.pending))
            self.file.flush()
            self.count += len(self.pending)
            self.pending = []
        self.meta["sources"][self.index]["done"] = done
        self._write_header()

    def _write_header(self) -> None:
        head = _header_bytes(self.meta, self.count, self.header_size)
        if len(head) != self.header_size:  # the JSON outgrew the header: move the records behind a larger one
            self.file.seek(self.header_size)
            body = self.file.read(self.count * RECORD_SIZE)
            self.file.seek(0)
            self.file.write(head + body)
            self.file.truncate(len(head) + len(body))
            self.header_size = len(head)
        else:
            self.file.seek(0)
            self.file.write(head)
        self.file.flush()

    def close(self) -> None:
        self.pending = []  # uncommitted: the step is redone on resume
        self.file.close()

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- the old text format ---------------------------------------------------------------------------------------

def text_rows(path: Path) -> Iterator[tuple[int, str, int, float, int]]:
    """(line number, fen, white's score, white's result, game) of every position line of a text file (marker
    lines ``;;;game`` skipped, their numbers counted)."""
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            fields = line.rstrip("\n").split(";")
            if len(fields) != 4 or not fields[0]:
                continue
            yield number, fields[0], int(fields[1]), float(fields[2]), int(fields[3])


def from_text(path: Path, variant: str = "seirawan", source: Optional[dict[str, Any]] = None) -> DataSet:
    """A text file's positions as an in-memory data set of one source (``kind`` text)."""
    from .progress import Progress

    rows = list(text_rows(path))
    bar = Progress(f"reading {path.name}", len(rows), "positions")
    packed = []
    for _, fen, score, result, game in rows:
        packed.append(pack_fen(fen, variant, score, result, game))
        bar.update()
    bar.close()
    records = np.frombuffer(b"".join(packed), dtype=RECORD) if packed else np.zeros(0, dtype=RECORD)
    games = int(records["game"].max()) + 1 if len(records) else 0
    meta = {"sources": [source or {"kind": "text", "from": path.name, "variant": variant, "done": games}]}
    return DataSet(path, meta, records.copy())


def load(path: Path, variant: str = "seirawan") -> DataSet:
    """A data set, or a text file read as one (its positions in ``variant``)."""
    return read(path) if is_dataset(path) else from_text(path, variant)


def positions(path: Path) -> list[tuple[str, int, float, int]]:
    """(fen, white's score, white's result, game) of every committed position of a data set."""
    data = read(path)
    out = []
    for record in data.records:
        fields = record_position(record.tobytes())
        side = fields["side"]
        out.append((fields["fen"], fields["score"] * side, fields["result"] if side == 1 else 1.0 - fields["result"],
                    fields["game"]))
    return out


# -- merge, info, convert --------------------------------------------------------------------------------------

def merge(inputs: list[Path], out: Path, variant: str = "seirawan") -> dict[str, int]:
    """Join data sets (or text files, read in ``variant``) into ``out``, keeping the first record of each
    position: {"positions", "read", "duplicates"}. Sources of the same run (equal identity) become one, with the
    larger ``done``. ``out`` may be one of the inputs (add to it); another existing file is refused."""
    if out.exists() and not any(out.resolve() == p.resolve() for p in inputs):
        raise ValueError(f"{out} exists and is not one of the inputs: name it among them to add to it")
    sets = [load(p, variant) for p in inputs]
    sources: list[dict[str, Any]] = []
    by_identity: dict[str, int] = {}
    parts = []
    removed_before = 0
    merged_from: list[str] = []
    for data in sets:
        remap = np.zeros(max(len(data.sources), 1), dtype=np.uint16)
        for i, source in enumerate(data.sources):
            key = identity(source)
            if key in by_identity:
                j = by_identity[key]
                sources[j]["done"] = max(int(sources[j].get("done", 0)), int(source.get("done", 0)))
            else:
                j = len(sources)
                by_identity[key] = j
                sources.append(dict(source))
            remap[i] = j
        records = data.records.copy()
        if len(records):
            records["source"] = remap[records["source"]]
        parts.append(records)
        removed_before += int(data.meta.get("duplicates_removed", 0))
        merged_from += data.meta.get("merged_from", []) or [data.path.name]
    records = np.concatenate(parts) if parts else np.zeros(0, dtype=RECORD)
    keep = first_of_each(records)
    meta = {"sources": sources, "merged_from": merged_from,
            "duplicates_removed": removed_before + len(records) - len(keep)}
    if out.exists() and is_dataset(out):  # not while a generator is appending to it
        with open(out, "rb") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise RuntimeError(f"{out} is being written by another process") from None
            write(out, meta, records[keep])
    else:
        write(out, meta, records[keep])
    return {"positions": len(keep), "read": len(records), "duplicates": len(records) - len(keep)}


def describe_source(source: dict[str, Any]) -> str:
    """``kind key=value ...``, what tells runs apart first, then where and when it was made."""
    what = [f"{k}={v}" for k, v in sorted(source.items()) if k not in INFO_FIELDS and k != "kind" and v is not None]
    made = [f"{k}={source[k]}" for k in ("engine_id", "commit", "created") if source.get(k) is not None]
    return " ".join([str(source.get("kind", "?"))] + what + (["(" + ", ".join(made) + ")"] if made else []))


def info(path: Path, variant: str = "seirawan") -> str:
    """What a data set (or a text file) holds: count, by source, by variant, by result, scores, duplicates."""
    data = load(path, variant)
    records = data.records
    n = len(records)
    lines = [f"{path}: {n:,} positions"
             + (f" (format version {VERSION}, {RECORD_SIZE} bytes a position, {path.stat().st_size / 1e6:.1f} MB)"
                if is_dataset(path) else " (text file)")]
    if not n:
        return "\n".join(lines)
    names, counts = np.unique(np.array(variant_names(records)), return_counts=True)
    lines.append("variants: " + ", ".join(f"{name} {count:,}" for name, count in zip(names, counts, strict=True)))
    lines.append("sources:")
    per_source = np.bincount(records["source"], minlength=len(data.sources))
    for index, source in enumerate(data.sources):
        games = np.unique(records["game"][records["source"] == index]).size
        lines.append(f"  [{index}] {describe_source(source)}: {per_source[index]:,} positions from {games:,} games"
                     f" (done: {source.get('done', '?')})")
    white = white_results(records)
    wins, draws, losses = (white == 1.0).sum(), (white == 0.5).sum(), (white == 0.0).sum()
    other = n - wins - draws - losses
    lines.append(f"results (white's view): 1-0 {wins:,} ({wins / n:.1%}), 1/2 {draws:,} ({draws / n:.1%}), "
                 f"0-1 {losses:,} ({losses / n:.1%})" + (f", fractional (expand) {other:,}" if other else ""))
    score = np.asarray(records["score"]).astype(np.float64)
    q = np.percentile(score, [1, 10, 50, 90, 99])
    lines.append(f"scores (side to move, cp): mean {score.mean():+.0f}, sd {score.std():.0f}, "
                 f"percentiles 1/10/50/90/99: {' / '.join(f'{v:+.0f}' for v in q)}, |score| median "
                 f"{np.median(np.abs(score)):.0f}")
    edges = [-np.inf, -1000, -300, -100, 100, 300, 1000, np.inf]
    hist, _ = np.histogram(score, bins=edges)
    labels = ["< -1000", "-1000..-300", "-300..-100", "-100..100", "100..300", "300..1000", "> 1000"]
    lines.append("  " + ", ".join(f"{label}: {count / n:.1%}" for label, count in zip(labels, hist, strict=True)))
    unique = len(first_of_each(records))
    lines.append(f"duplicates: {n - unique:,} positions repeat an earlier one (merge drops them); "
                 f"removed by merges so far: {int(data.meta.get('duplicates_removed', 0)):,}")
    if data.meta.get("merged_from"):
        lines.append(f"merged from: {', '.join(data.meta['merged_from'])}")
    return "\n".join(lines)


def convert(source: Path, out: Path, variant: str = "seirawan", fields: Optional[dict[str, Any]] = None) -> int:
    """A text file into a data set (a new one or appended to an existing one, resumable by line), or a data set
    into a text file; the number of positions written. ``fields``: what the source entry says of the text
    file's positions (kind, nodes, seed, label ...)."""
    from .progress import Progress

    if is_dataset(source):
        if not writes_text(out):
            raise ValueError(f"{out}: converting a data set writes a text file (name it *.txt); merge joins data sets")
        written = 0
        with out.open("w", encoding="utf-8") as sink:
            for fen, score, result, game in positions(source):
                sink.write(f"{fen};{score};{result};{game}\n")
                written += 1
        return written
    if writes_text(out):
        raise ValueError(f"{out}: converting a text file writes a data set (a new file not named *.txt)")
    entry = {"kind": "convert", "from": source.name, "variant": variant, **(fields or {})}
    rows = list(text_rows(source))
    written = 0
    with Writer(out, entry) as writer:
        start = writer.done
        bar = Progress("convert", len(rows), "positions", done=start)
        for i, (_, fen, score, result, game) in enumerate(rows[start:], start):
            writer.add_fen(fen, variant, score, result, game)
            written += 1
            if (i + 1) % 10000 == 0:
                writer.commit(i + 1)
            bar.update()
        writer.commit(len(rows))
        bar.close()
    return written

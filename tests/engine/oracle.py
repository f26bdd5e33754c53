"""Compare engine.Board with pyffish (Fairy-Stockfish, the server's judge) along random games.

Used by the oracle tests; also runnable by hand for long soak runs:
``python -m tests.engine.oracle --plies 100000 --seed 7``.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pyffish as sf

from engine import Board


@dataclass
class Report:
    plies: int = 0
    positions: int = 0
    mismatches: list[str] = field(default_factory=list)
    # Fairy-Stockfish's documented SAN bug: '+' for a discovered check that the gated piece blocks.
    known_fsf_check_bug: int = 0
    # pyffish's insufficient-material verdicts by (variant, material_key): see insufficient_material
    insufficient: dict[tuple[str, str], tuple[bool, bool]] = field(default_factory=dict)


FILES = "abcdefgh"


def board_of(fen: str) -> dict[str, str]:
    """Square name -> piece letter of a FEN's board."""
    out = {}
    rows = fen.split()[0].split("[")[0].split("/")
    for i, row in enumerate(rows[:8]):
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
            elif ch != "~":
                out[FILES[file] + str(8 - i)] = ch
                file += 1
    return out


def hand_of(fen: str) -> str:
    """The letters of a FEN's pieces in hand ('' without brackets)."""
    first = fen.split()[0]
    return first[first.index("[") + 1:-1] if "[" in first else ""


# Every pyffish call costs about 2 ms whatever it asks (a profile shows it rebuilding its piece tables each time),
# so the verdicts that only change with the material or with a repeated position are asked only when they can
# have changed; the engine's own verdict is still computed and compared at every ply.

def material_key(fen: str) -> str:
    """All that Fairy-Stockfish's insufficient-material verdict reads of a position (``has_insufficient_material``
    in its apiutil.h): the pieces on the board and in hand, and the square colour of each bishop."""
    pieces = [p + ("dl"[(FILES.index(sq[0]) + int(sq[1]) - 1) % 2] if p in "Bb" else "")  # a1 dark
              for sq, p in board_of(fen).items()]
    return " ".join(sorted(pieces)) + " [" + "".join(sorted(hand_of(fen))) + "]"


def insufficient_material(variant: str, fen: str, known: dict[tuple[str, str], tuple[bool, bool]],
                          start_fen: str = "", moves: list[str] | None = None,
                          chess960: bool = False) -> tuple[bool, bool]:
    """pyffish's (white, black) insufficient-material verdict of ``fen`` (reached as ``start_fen`` + ``moves``
    when given), asked once per material (``known``: the verdicts asked so far, by variant and material_key)."""
    key = (variant, material_key(fen))
    if key not in known:
        known[key] = tuple(sf.has_insufficient_material(  # type: ignore[assignment]
            variant, start_fen or fen, moves or [], chess960))
    return known[key]


def repetition_key(fen: str) -> str:
    """The placement with the hand and the side to move: a position can only repeat one with the same key."""
    return " ".join(fen.split()[:2])


def claim_possible(fen: str, seen: Counter[str]) -> bool:
    """Whether a fifty-move or repetition claim can be open in ``fen``: false while its repetition key was not
    seen earlier in the game (``seen``) and the halfmove clock is below 96 (100 ends the game), so that pyffish
    need not be asked."""
    return seen[repetition_key(fen)] > 0 or int(fen.split()[4]) >= 96


def _fsf_variant(board: Board) -> str:
    return board.variant  # the rules' names are Fairy-Stockfish's: seirawan, shouse, chess


def compare_position(board: Board, start_fen: str, moves: list[str], report: Report, all_san: bool = True,
                     seen: Counter[str] | None = None, ask_check: bool = True) -> None:
    """Compare one position (given to pyffish as start FEN + move list) in every respect the server uses.

    ``all_san``: also compare the SAN of every legal move (one pyffish call per move, the slow part).
    ``seen``: the repetition keys of the game's earlier positions (without it, the claims are always asked).
    ``ask_check``: false where the caller judges check from pyffish's SAN of the move that led here."""
    variant = _fsf_variant(board)
    c960 = board.chess960
    where = f"{start_fen} moves {' '.join(moves)}"
    report.positions += 1
    fsf_fen = sf.get_fen(variant, start_fen, moves, c960)
    if board.fen() != fsf_fen:
        report.mismatches.append(f"fen: ours {board.fen()} fsf {fsf_fen} at {where}")
    fsf_moves = sorted(sf.legal_moves(variant, start_fen, moves, c960))
    ours = sorted(m.uci() for m in board.legal_moves)
    if ours != fsf_moves:
        extra = sorted(set(ours) - set(fsf_moves))
        missing = sorted(set(fsf_moves) - set(ours))
        report.mismatches.append(f"moves: extra {extra} missing {missing} at {where}")
        return
    fen = board.fen()
    for move in board.legal_moves if all_san else []:
        ours_san = board.san(move)
        fsf_san = sf.get_san(variant, fen, move.uci(), c960)
        if ours_san != fsf_san:
            if _is_fsf_gate_check_bug(board, move, ours_san, fsf_san):
                report.known_fsf_check_bug += 1
            else:
                report.mismatches.append(f"san {move.uci()}: ours {ours_san} fsf {fsf_san} at {where}")
    in_check = board.is_check()
    if ask_check and in_check != sf.gives_check(variant, start_fen, moves, c960):
        report.mismatches.append(f"check: ours {in_check} at {where}")
    if seen is None or claim_possible(fen, seen):
        fsf_end, _ = sf.is_optional_game_end(variant, start_fen, moves, c960)
    else:
        fsf_end = False
    ours_end = board.is_fifty_moves() or board.can_claim_threefold_repetition()
    if board.is_checkmate():
        ours_end = False  # FSF reports mate through game_result, not as an optional end
    if bool(fsf_end) != ours_end and fsf_moves:
        report.mismatches.append(f"optional end: ours {ours_end} fsf {fsf_end} at {where}")
    insufficient = insufficient_material(variant, fen, report.insufficient, start_fen, moves, c960)
    ours_insufficient = (board.has_insufficient_material(1), board.has_insufficient_material(-1))
    if tuple(insufficient) != ours_insufficient:
        report.mismatches.append(f"insufficient: ours {ours_insufficient} fsf {insufficient} at {where}")
    if not fsf_moves:
        result = sf.game_result(variant, start_fen, moves, c960)
        ours_mate = board.is_checkmate()
        if ours_mate != (result != 0):
            report.mismatches.append(f"game end: ours mate={ours_mate} fsf result {result} at {where}")


def _is_fsf_gate_check_bug(board: Board, move, ours: str, theirs: str) -> bool:  # type: ignore[no-untyped-def]
    """True when the only difference is FSF's '+'/'#' for a check that the gated piece actually blocks."""
    if not move.gate or ours.rstrip("+#") != theirs.rstrip("+#") or ours.endswith(("+", "#")):
        return False
    # Without the gate the move would give check: the gated piece is what blocks it.
    plain = next((m for m in board.legal_moves if m.uci() == move.uci()[:4]), None)
    if plain is None:  # castling with a gate on the rook's square has no plain twin with that text
        return False
    board.push(plain)
    try:
        return board.is_check()
    finally:
        board.pop()


def random_game(board: Board, rng: random.Random, plies: int, report: Report, san_every: int = 1) -> None:
    """Play random legal moves, comparing every position with pyffish; the SAN of all legal moves is compared
    every ``san_every`` plies, and the SAN of the moves actually played is compared for the whole game.

    Check is judged from pyffish's SAN of the move played (its ``+`` or ``#``), one call for the whole game,
    except at the start and after a gating move, where its SAN can be wrong (see ``Board.san``) and pyffish is
    asked for the position's check itself."""
    start_fen = board.fen()
    moves: list[str] = []
    sans: list[str] = []
    checks: list[bool] = []  # whether our side to move is in check after each move played
    gated: list[bool] = []
    seen: Counter[str] = Counter()
    for ply in range(plies):
        compare_position(board, start_fen, moves, report, all_san=ply % san_every == 0, seen=seen,
                         ask_check=not gated or gated[-1])
        seen[repetition_key(board.fen())] += 1
        legal = list(board.legal_moves)
        if not legal or board.is_repetition(3) or board.is_fifty_moves():
            break
        move = rng.choice(legal)
        sans.append(board.san(move))
        board.push(move)
        moves.append(move.uci())
        checks.append(board.is_check())
        gated.append(bool(move.gate))
        report.plies += 1
    if moves:
        variant = _fsf_variant(board)
        fsf_sans = sf.get_san_moves(variant, start_fen, moves, board.chess960)
        replay = Board(start_fen, variant=board.variant, chess960=board.chess960)
        for uci, ours, theirs, check, gate in zip(moves, sans, fsf_sans, checks, gated, strict=True):
            move = replay.parse_uci(uci)
            if ours != theirs:
                if _is_fsf_gate_check_bug(replay, move, ours, theirs):
                    report.known_fsf_check_bug += 1
                else:
                    report.mismatches.append(f"played san {uci}: ours {ours} fsf {theirs} at {replay.fen()}")
            if not gate and check != theirs.endswith(("+", "#")):
                report.mismatches.append(f"check after {uci}: ours {check} fsf {theirs} at {replay.fen()}")
            replay.push(move)


def random_960_fen(rng: random.Random, hand: bool) -> str:
    """A random Chess960 start position (bishops on opposite colours, king between the rooks)."""
    while True:
        files = list("RNBQKBNR")
        rng.shuffle(files)
        b = [i for i, p in enumerate(files) if p == "B"]
        r = [i for i, p in enumerate(files) if p == "R"]
        k = files.index("K")
        if (b[0] + b[1]) % 2 == 1 and r[0] < k < r[1]:
            break
    row = "".join(files)
    pocket = "[HEhe]" if hand else ""
    castling = "ABCDEFGHabcdefgh" if hand else row_rook_files(row)
    return f"{row.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{row}{pocket} w {castling} - 0 1"


def row_rook_files(row: str) -> str:
    files = "".join("ABCDEFGH"[i] for i, p in enumerate(row) if p == "R")
    return files + files.lower()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--plies", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--san-every", type=int, default=1, help="compare all SANs every N plies")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    report = Report()
    epd = [line.split()[:4] for line in open(Path(__file__).resolve().parents[2] / "engine" / "data" / "seirawan.epd")]
    while report.plies < args.plies:
        kind = rng.randrange(5)
        if kind == 4:
            board = Board(variant="shouse")
        elif kind == 0:
            board = Board()
        elif kind == 1:
            board = Board(" ".join(rng.choice(epd)) + " 0 1")
        elif kind == 2:
            board = Board(random_960_fen(rng, True), chess960=True)
        else:
            board = Board(variant="chess", chess960=rng.random() < 0.3)
            if board.chess960:
                board = Board(random_960_fen(rng, False), variant="chess", chess960=True)
        random_game(board, rng, 200, report, args.san_every)
        for m in report.mismatches[:5]:
            print(m)
        if report.mismatches:
            break
    print(f"plies {report.plies} positions {report.positions} mismatches {len(report.mismatches)} "
          f"fsf-gate-check-bug {report.known_fsf_check_bug}")


if __name__ == "__main__":
    main()

"""A referee for the two alternative S-chess rules (placement, forced entry) built on pyffish's S-chess, and a
comparison of engine.Board with it along random games.

pyffish does not play these rules, but both are S-chess with fewer moves, so the referee takes Fairy-Stockfish's
S-chess moves and keeps the ones the rule allows, reading the rule from docs/variants.md and the position from
Fairy-Stockfish's own FEN (nothing here imports the engine's rules: ``Board`` is only the side under test):

* **Forced entry**: the game is an S-chess game. While the side to move has a piece in hand and a bishop, knight
  or queen on a gate (a gate letter of the FEN's castling field naming such a piece), its allowed moves are its
  pawn moves and the moves of a bishop, knight or queen that gate the Hawk (the Elephant once the Hawk is in);
  when none is legal, every move without a gate. With no bishop, knight or queen on a gate: moves without a gate.
* **Placement**: the four placements (white, black, white, black; one piece per file, never the king's file
  and a rook's file both) come first and are judged here alone. The rest of the game is a "mirror" S-chess game
  from the start position with the placed pieces in hand: a move from a square whose placed piece is still
  waiting must gate exactly that piece (castling: the king's square's piece, else the rook's), every other move
  must gate nothing. A placed piece waits until a move leaves or lands on its square. The FEN, the hand (the
  waiting pieces) and the insufficient-material verdict are rebuilt from the mirror's FEN and the waiting pieces.

SAN: Fairy-Stockfish's SAN of the mirror's move, with the disambiguation worked out again among the allowed
moves (Fairy-Stockfish's looks at S-chess's moves, some of which the rule forbids).

By hand: ``python -m tests.engine.entry_oracle --variant seirawan-placement --plies 20000``.
"""

from __future__ import annotations

import argparse
import random
import re
from collections import Counter
from dataclasses import dataclass, field

import pyffish as sf

from engine import Board

from .oracle import FILES, board_of, claim_possible, hand_of, insufficient_material, repetition_key

S_CHESS_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] w KQBCDFGkqbcdfg - 0 1"
PLACEMENT = "seirawan-placement"
FORCED_ENTRY = "seirawan-forced-entry"


@dataclass
class Report:
    plies: int = 0
    positions: int = 0
    mismatches: list[str] = field(default_factory=list)
    known_fsf_check_bug: int = 0  # Fairy-Stockfish's '+' for a check that the gated piece blocks
    fallbacks: int = 0  # forced entry: positions where no move obeyed the rule and any move without a gate was allowed
    forfeits: int = 0  # placement: placed pieces lost by a capture on their square
    # pyffish's insufficient-material verdicts (oracle.insufficient_material)
    insufficient: dict[tuple[str, str], tuple[bool, bool]] = field(default_factory=dict)


class Referee:
    """The allowed moves, FEN and verdicts of one game of ``variant``, judged from pyffish's S-chess."""

    def __init__(self, variant: str, start_fen: str | None = None) -> None:
        """``start_fen``: forced entry may start from any S-chess position; placement starts from the start."""
        self.variant = variant
        self.placements: list[str] = []  # placement: the placement moves made (H@b1, ...)
        self.waiting: dict[str, str] = {}  # placement: square -> letter of the placed piece still waiting there
        self.start = (start_fen or S_CHESS_START) if variant == FORCED_ENTRY else ""
        self._mirror_fen = ""
        self.moves: list[str] = []  # the mirror S-chess game's moves
        self.fallback = False  # forced entry: whether the last allowed() fell back to any move without a gate

    # ---------------------------------------------------------------- placement phase

    def placing(self) -> bool:
        return self.variant == PLACEMENT and len(self.placements) < 4

    def placement_moves(self) -> list[str]:
        white = len(self.placements) % 2 == 0
        rank = "1" if white else "8"
        mine = [m for m in self.placements if m[-1] == rank]
        left = [p for p in "HE" if not any(m[0] == p for m in mine)]
        taken = {m[2] for m in mine}
        files = []
        for f in FILES:
            if f in taken:
                continue
            if f == "e" and taken & {"a", "h"}:
                continue  # behind the king while a piece waits behind a rook (or the other way round)
            if f in "ah" and "e" in taken:
                continue
            files.append(f)
        return [p + "@" + f + rank for p in left for f in files]

    def place(self, move: str) -> None:
        self.placements.append(move)
        self._mirror_fen = ""
        sq = move[2:]
        self.waiting[sq] = move[0] if sq[1] == "1" else move[0].lower()
        if len(self.placements) == 4:
            hand = "".join(sorted(self.waiting.values(), key=lambda p: (p.islower(), p)))
            self.start = f"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[{hand}] w KQBCDFGkqbcdfg - 4 3"

    # ---------------------------------------------------------------- the game

    def mirror_fen(self) -> str:
        if not self._mirror_fen:
            self._mirror_fen = sf.get_fen("seirawan", self.start or S_CHESS_START, self.moves, False)
        return self._mirror_fen

    def allowed(self) -> list[str]:
        if self.placing():
            return self.placement_moves()
        legal = sf.legal_moves("seirawan", self.start, self.moves, False)
        fen = self.mirror_fen()
        if self.variant == PLACEMENT:
            return [m for m in legal if self._placement_allows(m, fen)]
        return self._forced_entry_allows(legal, fen)

    def _forced_entry_allows(self, legal: list[str], fen: str) -> list[str]:
        board = board_of(fen)
        white = fen.split()[1] == "w"
        hand = [p for p in hand_of(fen) if p.isupper() == white]
        plain = [m for m in legal if not _gates(m, board)]
        if not hand:
            return legal
        rank = "1" if white else "8"
        gate_files = [ch.lower() for ch in fen.split()[2] if ch.lower() in FILES and ch.isupper() == white]
        entering = [f for f in gate_files if board.get(f + rank, " ").upper() in "NBQ"]
        if not entering:
            return plain
        required = "h" if ("H" if white else "h") in hand else "e"
        kept = [m for m in legal if board[m[:2]].upper() == "P"
                or (_gates(m, board) == required and board[m[:2]].upper() in "NBQ")]
        if kept:
            return kept
        self.fallback = True
        return plain

    def _placement_allows(self, move: str, fen: str) -> bool:
        board = board_of(fen)
        frm = move[:2]
        gate = _gates(move, board)
        castle = _castling(move, board)
        if castle:
            king, rook = castle
            if king in self.waiting:
                wanted = king + _king_target(king, rook) + self.waiting[king].lower()
            elif rook in self.waiting:
                wanted = rook + king + self.waiting[rook].lower()
            else:
                wanted = king + _king_target(king, rook)
            return move == wanted
        if frm in self.waiting:
            return gate == self.waiting[frm].lower()
        return not gate

    def push(self, move: str) -> None:
        if self.placing():
            self.place(move)
            return
        board = board_of(self.mirror_fen())
        touched = {move[:2], move[2:4]}
        castle = _castling(move, board)
        if castle:
            touched |= set(castle)
        for sq in touched:
            self.waiting.pop(sq, None)
        self.moves.append(move)
        self._mirror_fen = ""

    def fen(self) -> str:
        """The FEN the engine must write (docs/variants.md): forced entry is S-chess's; placement rebuilds the
        hand and the castling field from the waiting pieces."""
        if self.variant == FORCED_ENTRY:
            return self.mirror_fen()
        mirror = self.mirror_fen()
        first, side, castling, ep, halfmove, fullmove = mirror.split()
        waiting = self.waiting
        unplaced = {"1": [p for p in "HE" if not any(m[0] == p and m[-1] == "1" for m in self.placements)],
                    "8": [p.lower() for p in "HE" if not any(m[0] == p and m[-1] == "8" for m in self.placements)]}
        if self.start:
            unplaced = {"1": [], "8": []}
        else:  # still placing: the board is the start, the counters count the placements
            side = "w" if len(self.placements) % 2 == 0 else "b"
            halfmove = str(len(self.placements))
            fullmove = str(len(self.placements) // 2 + 1)
        pieces = list(waiting.values()) + unplaced["1"] + unplaced["8"]
        hand = "".join(sorted(pieces, key=lambda p: (p.islower(), p.lower() != "e")))
        field_text = ""
        for rank, letters in (("1", "KQ"), ("8", "kq")):
            field_text += "".join(ch for ch in castling if ch in letters)
            for sq in sorted(s for s in waiting if s[1] == rank):
                pair = sq[0] + waiting[sq].lower()
                field_text += pair.upper() if rank == "1" else pair
        board = first.split("[")[0]
        return f"{board}[{hand}] {side} {field_text or '-'} {ep} {halfmove} {fullmove}"

    def insufficient(self, known: dict[tuple[str, str], tuple[bool, bool]]) -> tuple[bool, bool]:
        """pyffish's verdict, asked once per material (``known``: the verdicts asked so far)."""
        fen = self.fen()
        if self.variant == PLACEMENT:  # pyffish's S-chess reads the hand, not the placement field
            parts = fen.split()
            fen = " ".join([parts[0], parts[1], "-"] + parts[3:])
        return insufficient_material("seirawan", fen, known)

    def san(self, move: str, allowed: list[str]) -> str:
        """The SAN of an allowed move: Fairy-Stockfish's of the mirror's move, disambiguated among ``allowed``."""
        if "@" in move:
            return move
        fen = self.mirror_fen()
        return disambiguated(sf.get_san("seirawan", fen, move, False), move, allowed, fen)


def disambiguated(san: str, move: str, allowed: list[str], fen: str) -> str:
    """Fairy-Stockfish's SAN ``san`` of the mirror's ``move`` in the mirror position ``fen``, its
    disambiguation worked out again among the ``allowed`` moves (Fairy-Stockfish's looks at all S-chess moves)."""
    found = re.match(r"^([NBRQKHE])([a-h]?[1-8]?)(x?[a-h][1-8])(.*)$", san)
    if not found or "/" in san:
        return san
    letter, _, rest, tail = found.groups()
    board = board_of(fen)
    frm, to = move[:2], move[2:4]
    others = [m[:2] for m in allowed if m[2:4] == to and m[:2] != frm and len(m) == 4
              and board.get(m[:2]) == board[frm] and not _castling(m, board)]
    if not others:
        return letter + rest + tail
    if all(o[0] != frm[0] for o in others):
        return letter + frm[0] + rest + tail
    if all(o[1] != frm[1] for o in others):
        return letter + frm[1] + rest + tail
    return letter + frm + rest + tail


def _gates(move: str, board: dict[str, str]) -> str:
    """The letter of the piece a mirror move gates ('' for none; a pawn's fifth letter is a promotion)."""
    if len(move) == 5 and board[move[:2]].upper() != "P":
        return move[4]
    return ""


def _castling(move: str, board: dict[str, str]) -> tuple[str, str] | None:
    """(king square, rook square) of a castling move in pyffish's notation (e1g1, e1c1h, h1e1h), else None."""
    frm, to = move[:2], move[2:4]
    piece = board.get(frm, "")
    if piece.upper() == "K" and abs(FILES.index(frm[0]) - FILES.index(to[0])) == 2:
        return frm, ("h" if to[0] == "g" else "a") + frm[1]
    if piece.upper() == "R" and board.get(to, "").upper() == "K" and board[to].isupper() == piece.isupper():
        return to, frm
    return None


def _king_target(king: str, rook: str) -> str:
    return ("g" if rook[0] > king[0] else "c") + king[1]


def compare(board: Board, referee: Referee, report: Report, all_san: bool, seen: Counter[str],
            ask_check: bool = True) -> list[str]:
    """Compare one position; returns the allowed moves (empty on a mismatch of the moves, to stop the game).
    ``seen``: the repetition keys of the game's earlier positions (the claims are asked only when possible);
    ``ask_check``: false where the caller judges check from pyffish's SAN of the move that led here."""
    report.positions += 1
    where = f"{board.variant} after {' '.join(m.uci() for m in board.move_stack)}"
    referee.fallback = False
    allowed = sorted(referee.allowed())
    report.fallbacks += referee.fallback
    ours = sorted(m.uci() for m in board.legal_moves)
    if ours != allowed:
        report.mismatches.append(f"moves: extra {sorted(set(ours) - set(allowed))} "
                                 f"missing {sorted(set(allowed) - set(ours))} at {where}")
        return []
    expected_fen = referee.fen()
    if board.fen() != expected_fen:
        report.mismatches.append(f"fen: ours {board.fen()} referee {expected_fen} at {where}")
    if referee.placing():
        if board.is_check():
            report.mismatches.append(f"check during the placement at {where}")
        return allowed
    mirror = (referee.start, referee.moves)
    if ask_check and board.is_check() != sf.gives_check("seirawan", *mirror, False):
        report.mismatches.append(f"check: ours {board.is_check()} at {where}")
    insufficient = referee.insufficient(report.insufficient)
    ours_insufficient = (board.has_insufficient_material(1), board.has_insufficient_material(-1))
    if insufficient != ours_insufficient:
        report.mismatches.append(f"insufficient: ours {ours_insufficient} referee {insufficient} at {where}")
    fsf_end = claim_possible(expected_fen, seen) and sf.is_optional_game_end("seirawan", *mirror, False)[0]
    ours_end = board.is_fifty_moves() or board.can_claim_threefold_repetition()
    if allowed and bool(fsf_end) != ours_end:
        report.mismatches.append(f"optional end: ours {ours_end} fsf {fsf_end} at {where}")
    if not allowed:
        mate = sf.game_result("seirawan", *mirror, False) != 0
        if board.is_checkmate() != mate:
            report.mismatches.append(f"game end: ours mate={board.is_checkmate()} at {where}")
    for move in board.legal_moves if all_san else []:
        _compare_san(board, referee, move, allowed, report, where)
    return allowed


def _compare_san(board: Board, referee: Referee, move, allowed: list[str], report: Report,  # type: ignore[no-untyped-def]
                 where: str) -> None:
    _judge_san(board.san(move), referee.san(move.uci(), allowed), move.uci(), bool(move.gate), report, where)


def _judge_san(ours: str, expected: str, uci: str, gated: bool, report: Report, where: str) -> None:
    if ours == expected:
        return
    if gated and ours.rstrip("+#") == expected.rstrip("+#") and not ours.endswith(("+", "#")):
        report.known_fsf_check_bug += 1
        return
    report.mismatches.append(f"san {uci}: ours {ours} referee {expected} at {where}")


def random_game(variant: str, rng: random.Random, plies: int, report: Report, san_every: int = 5,
                start_fen: str | None = None) -> None:
    """One random game of ``variant`` from its start (forced entry: or ``start_fen``), compared with the referee
    at every ply (the SAN of every allowed move every ``san_every`` plies, the SAN of the move played at every
    ply). Check is judged from pyffish's SAN of the mirror's moves, one call for the whole game, except at the
    mirror game's start and after a gating move, where pyffish is asked for the position's check itself (its
    SAN can be wrong there: see ``Board.san``)."""
    board = Board(start_fen, variant=variant)
    referee = Referee(variant, start_fen)
    seen: Counter[str] = Counter()
    # The moves played whose SAN is judged at the end of the game, from one pyffish call for the whole mirror
    # game: (index in the mirror's moves, ours, the allowed moves and the mirror's FEN before it, gated, where).
    played: list[tuple[int, str, list[str], str, bool, str]] = []
    checks: list[tuple[bool, bool, str]] = []  # after each mirror move: (ours in check, it gated, where)
    for ply in range(plies):
        allowed = compare(board, referee, report, all_san=ply % san_every == 0, seen=seen,
                          ask_check=not checks or checks[-1][1])
        seen[repetition_key(board.fen())] += 1
        if not allowed or board.is_repetition(3) or board.is_fifty_moves():
            break
        # Captures a third of the time when there are any: they are what forfeits a placed piece and opens the
        # king to the checks that only a king or rook move answers.
        captures = [m for m in allowed if "@" not in m and board.piece_at(FILES.index(m[2]) + 8 * (int(m[3]) - 1))]
        uci = rng.choice(captures if captures and rng.random() < 1 / 3 else allowed)
        move = board.parse_uci(uci)
        if ply % san_every:
            where = f"{variant} after {' '.join(m.uci() for m in board.move_stack)}"
            if "@" in uci:  # a placement: its SAN is the move itself
                _compare_san(board, referee, move, allowed, report, where)
            else:
                played.append((len(referee.moves), board.san(move), allowed, referee.mirror_fen(), bool(move.gate),
                               where))
        landed = referee.waiting.get(uci[2:4], "")
        if landed and landed.isupper() != board.turn:
            report.forfeits += 1
        board.push(move)
        referee.push(uci)
        report.plies += 1
        if "@" not in uci:
            checks.append((board.is_check(), bool(move.gate), f"{variant} after {uci}"))
    if referee.moves:
        fsf = sf.get_san_moves("seirawan", referee.start, referee.moves, False)
        for (check, gated, where), theirs in zip(checks, fsf, strict=True):
            if not gated and check != theirs.endswith(("+", "#")):
                report.mismatches.append(f"check: ours {check}, pyffish's SAN {theirs} at {where}")
        for index, ours, allowed, fen, gated, where in played:
            uci = referee.moves[index]
            _judge_san(ours, disambiguated(fsf[index], uci, allowed, fen), uci, gated, report, where)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", choices=(PLACEMENT, FORCED_ENTRY), default=PLACEMENT)
    parser.add_argument("--plies", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--san-every", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    report = Report()
    while report.plies < args.plies and not report.mismatches:
        random_game(args.variant, rng, 200, report, args.san_every)
    for line in report.mismatches[:5]:
        print(line)
    print(f"{args.variant}: plies {report.plies} positions {report.positions} mismatches {len(report.mismatches)} "
          f"fallbacks {report.fallbacks} forfeits {report.forfeits} fsf-gate-check-bug {report.known_fsf_check_bug}")


if __name__ == "__main__":
    main()

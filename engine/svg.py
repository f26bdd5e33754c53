"""SVG diagrams of S-chess, S-House and chess positions, in the manner of python-chess's ``chess.svg``.

>>> from engine import Board, svg
>>> board = Board()
>>> board.push_uci("g1f3h")
Move.from_uci('g1f3h')
>>> text = svg.board(board, lastmove=board.peek(), size=400)
>>> text.startswith("<svg")
True

An S-chess diagram shows, beside the board, the pieces each side still holds in hand (with their counts, the
side at the top of the board at the top) and marks the open gates: the back-rank squares whose original piece
has not moved yet while its side still has a piece to gate. An S-House hand can hold every piece type: its
tray shows them smaller, in two columns. In placement S-chess (``variant="seirawan-placement"``) a placed
piece is drawn small behind its file, on the rim side of its back-rank square, and the tray holds only the
pieces not placed yet. A standard chess board (``variant="chess"``) is drawn without hand or
gates. The pieces are the project's own glyphs (:mod:`engine.svg_pieces`).

Every diagram is self-contained (no ``<defs>``, no ids, no fonts to fetch beyond the viewer's sans-serif), so
several can sit inline in one HTML page. Elements carry classes for styling and tests: ``square light a1``
(plus ``lastmove``), ``check``, ``gate e1``, ``piece white hawk e1``, ``hand white`` holding
``piece white hawk`` and ``count`` with ``data-count``, ``coord``, ``placed white hawk b1``.
"""

from __future__ import annotations

from typing import Dict, List, Optional

from .board import WHITE, Board, Move
from .svg_pieces import PIECE_NAMES, glyph_svg
from .tables import FILE_NAMES, PIECE_SYMBOLS, RANK_NAMES, SQUARE_NAMES
from .variants import DROP_VARIANTS, GATING_VARIANTS, PLACEMENT, VARIANT_NAMES, split_variant_name

PLACED_SCALE = 0.5  # a placed piece's size against a square's

SQUARE_SIZE = 45
MARGIN = 18  # room for the coordinates; without them the board keeps a thin frame
FRAME = 4
HAND_GAP = 10
HAND_WIDTH = 54

# The default colours; ``board(colors=...)`` overrides any of them (the keys python-chess also has mean the same).
COLORS = {
    "square light": "#ede0c8",
    "square dark": "#a9835f",
    "square light lastmove": "#d9d77a",
    "square dark lastmove": "#aaa23f",
    "margin": "#3d3329",
    "coord": "#e6dccb",
    "check": "#e8402e",
    "gate": "#1f6fb8",
    "hand": "#d8ccb6",
    "hand border": "#3d3329",
    "count": "#1f6fb8",
}

HAND_ORDER = ("e", "h")  # the order Fairy-Stockfish writes the hand in
DROP_HAND_ORDER = ("e", "h", "q", "r", "b", "n", "p")  # the same in S-House, where any piece can be in hand


def check_square(board: Board) -> Optional[int]:
    """The square of the king of the side to move when it is in check, else None: what to pass as ``check``
    (``svg.board(b, check=svg.check_square(b))``)."""
    if not board.is_check():
        return None
    king = "K" if board.turn == WHITE else "k"
    return next((sq for sq in range(64) if board.piece_at(sq) == king), None)


def gate_squares(board: Board) -> List[int]:
    """The open gates of a position, both colours, in square order: back-rank squares whose original piece has
    not moved while its side still holds a piece in hand. Always empty in standard chess."""
    if board.variant not in GATING_VARIANTS:
        return []
    return [sq for sq in range(64) if board.gates >> sq & 1]


def placed_pieces(board: Board) -> Dict[int, str]:
    """Placement S-chess: the pieces placed behind back-rank squares and still waiting there, as square ->
    FEN letter (``{6: "H"}``: a white Hawk behind g1); empty in any other variant."""
    if board.entry_rule != PLACEMENT:
        return {}
    out = {}
    for sq in gate_squares(board):
        letter = PIECE_SYMBOLS[board.placed[sq]]
        out[sq] = letter.upper() if sq < 8 else letter
    return out


def piece(symbol: str, size: Optional[int] = None) -> str:
    """One piece as a standalone SVG (``piece("E")`` is a white Elephant), like ``chess.svg.piece``."""
    dims = f' width="{size}" height="{size}"' if size else ""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {SQUARE_SIZE} {SQUARE_SIZE}"{dims}>'
        f"{_piece_group(symbol, 0, 0, '')}</svg>"
    )


def board(
    board: Board,
    *,
    orientation: bool = WHITE,
    flipped: bool = False,
    lastmove: Optional[Move] = None,
    check: Optional[int] = None,
    coordinates: bool = True,
    size: Optional[int] = None,
    colors: Optional[Dict[str, str]] = None,
) -> str:
    """The position as an SVG document (a string).

    ``orientation``: the side at the bottom (``WHITE`` or ``BLACK``); ``flipped=True`` turns that around
    (python-chess's names). ``lastmove``: a Move whose from and to squares are highlighted. ``check``: a square
    to mark in red, normally :func:`check_square`. ``coordinates``: file and rank letters in the margin.
    ``size``: the width in pixels (the height follows); None leaves the size to the viewer (viewBox only).
    ``colors``: replacements for entries of :data:`COLORS`, e.g. ``{"square dark": "#7a9a5a"}``.
    """
    palette = dict(COLORS, **(colors or {}))
    white_at_bottom = bool(orientation) != bool(flipped)
    has_hand = board.variant in GATING_VARIANTS
    margin = MARGIN if coordinates else FRAME
    board_px = 8 * SQUARE_SIZE
    width = 2 * margin + board_px + (HAND_GAP + HAND_WIDTH + FRAME if has_hand else 0)
    height = 2 * margin + board_px
    dims = f' width="{size}" height="{round(size * height / width)}"' if size else ""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 {width} {height}"{dims}>',
        f"<desc>{_escape(board.fen())}</desc>",
        f'<rect class="margin" x="0" y="0" width="{2 * margin + board_px}" height="{height}" rx="3" '
        f'fill="{palette["margin"]}"/>',
    ]

    def origin(sq: int) -> tuple[int, int]:
        file, rank = sq & 7, sq >> 3
        col = file if white_at_bottom else 7 - file
        row = 7 - rank if white_at_bottom else rank
        return margin + col * SQUARE_SIZE, margin + row * SQUARE_SIZE

    highlighted = {lastmove.from_square, lastmove.to_square} if lastmove is not None else set()
    for sq in range(64):
        x, y = origin(sq)
        shade = "light" if (sq & 7) % 2 != (sq >> 3) % 2 else "dark"
        classes = f"square {shade} {SQUARE_NAMES[sq]}"
        fill = palette["square " + shade]
        if sq in highlighted:
            classes += " lastmove"
            fill = palette[f"square {shade} lastmove"]
        out.append(f'<rect class="{classes}" x="{x}" y="{y}" width="{SQUARE_SIZE}" height="{SQUARE_SIZE}" '
                   f'fill="{fill}"/>')
    if check is not None:
        x, y = origin(check)
        c = SQUARE_SIZE / 2
        out.append(f'<circle class="check {SQUARE_NAMES[check]}" cx="{x + c:g}" cy="{y + c:g}" r="{c - 1:g}" '
                   f'fill="{palette["check"]}" fill-opacity=".75"/>')
    for sq in gate_squares(board):
        out.append(_gate_mark(sq, *origin(sq), white_at_bottom, palette["gate"]))
    for sq in range(64):
        symbol = board.piece_at(sq)
        if symbol:
            out.append(_piece_group(symbol, *origin(sq), SQUARE_NAMES[sq]))
    placed = placed_pieces(board)
    for sq, symbol in placed.items():
        out.append(_placed_group(sq, symbol, *origin(sq), white_at_bottom))
    if coordinates:
        out.extend(_coordinates(margin, white_at_bottom, palette["coord"]))
    if has_hand:
        x = 2 * margin + board_px + HAND_GAP
        pockets = board.pockets()
        for symbol in placed.values():  # the tray holds the pieces not placed yet
            pockets[symbol.isupper()][symbol.upper()] -= 1
        top, bottom = (not WHITE, WHITE) if white_at_bottom else (WHITE, not WHITE)
        drops = board.variant in DROP_VARIANTS
        out.append(_hand(pockets[top], top, x, margin, palette, from_top=True, to_move=board.turn == top,
                         drops=drops))
        out.append(_hand(pockets[bottom], bottom, x, margin, palette, from_top=False, to_move=board.turn == bottom,
                         drops=drops))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _piece_group(symbol: str, x: float, y: float, square_name: str, scale: float = 1) -> str:
    colour = "white" if symbol.isupper() else "black"
    classes = f"piece {colour} {PIECE_NAMES[symbol.lower()]}" + (f" {square_name}" if square_name else "")
    zoom = f" scale({scale:g})" if scale != 1 else ""
    return (f'<g class="{classes}" transform="translate({x:g},{y:g}){zoom}" stroke-width="1.5" '
            f'stroke-linejoin="round" stroke-linecap="round">{glyph_svg(symbol)}</g>')


def _placed_group(sq: int, symbol: str, x: int, y: int, white_at_bottom: bool) -> str:
    """A placed piece, small, behind its file: in the corner of its back-rank square, across the board's rim."""
    small = SQUARE_SIZE * PLACED_SCALE
    at_bottom = (sq >> 3 == 0) == white_at_bottom
    px = x + SQUARE_SIZE - small + 1
    py = y + SQUARE_SIZE - small / 2 if at_bottom else y - small / 2
    colour = "white" if symbol.isupper() else "black"
    return (f'<g class="placed {colour} {PIECE_NAMES[symbol.lower()]} {SQUARE_NAMES[sq]}" '
            f'transform="translate({px:g},{py:g}) scale({PLACED_SCALE:g})" stroke-width="1.5" '
            f'stroke-linejoin="round" stroke-linecap="round">{glyph_svg(symbol)}</g>')


def _gate_mark(sq: int, x: int, y: int, white_at_bottom: bool, color: str) -> str:
    """A bar along the square's edge on the board's rim (the gate the hand piece would enter by)."""
    at_bottom = (sq >> 3 == 0) == white_at_bottom
    bar_y = y + SQUARE_SIZE - 5 if at_bottom else y
    return (f'<rect class="gate {SQUARE_NAMES[sq]}" x="{x + 3}" y="{bar_y}" width="{SQUARE_SIZE - 6}" '
            f'height="5" rx="1.5" fill="{color}"/>')


def _coordinates(margin: int, white_at_bottom: bool, color: str) -> List[str]:
    out = []
    style = f'font-family="sans-serif" font-size="12" font-weight="bold" fill="{color}"'
    files = FILE_NAMES if white_at_bottom else FILE_NAMES[::-1]
    ranks = RANK_NAMES[::-1] if white_at_bottom else RANK_NAMES
    bottom = margin + 8 * SQUARE_SIZE
    for i, name in enumerate(files):
        x = margin + i * SQUARE_SIZE + SQUARE_SIZE / 2
        out.append(f'<text class="coord" x="{x:g}" y="{bottom + margin / 2 + 4:g}" text-anchor="middle" '
                   f"{style}>{name}</text>")
    for i, name in enumerate(ranks):
        y = margin + i * SQUARE_SIZE + SQUARE_SIZE / 2 + 4
        out.append(f'<text class="coord" x="{margin / 2:g}" y="{y:g}" text-anchor="middle" {style}>{name}</text>')
    return out


def _hand(pocket: Dict[str, int], colour: bool, x: int, margin: int, palette: Dict[str, str], *, from_top: bool,
          to_move: bool, drops: bool = False) -> str:
    """One side's pieces in hand: a tray of piece glyphs with counts, filled from the board's edge inward (in
    S-House up to seven types, smaller and in two columns)."""
    name = "white" if colour == WHITE else "black"
    columns, scale, order = (2, 0.6, DROP_HAND_ORDER) if drops else (1, 1.0, HAND_ORDER)
    glyph = SQUARE_SIZE * scale
    rows = (len(order) + columns - 1) // columns
    tray_height = round(rows * glyph + (rows - 1) * 4 + 10)
    tray_y = margin if from_top else margin + 8 * SQUARE_SIZE - tray_height
    parts = [f'<g class="hand {name}">',
             f'<rect class="tray" x="{x}" y="{tray_y}" width="{HAND_WIDTH}" height="{tray_height}" rx="6" '
             f'fill="{palette["hand"]}" stroke="{palette["hand border"]}" stroke-width="1.5"/>']
    slot = 0
    for letter in order:
        count = pocket.get(letter.upper(), 0)
        if not count:
            continue
        symbol = letter.upper() if colour == WHITE else letter
        row, column = divmod(slot, columns)
        px = x + (HAND_WIDTH - columns * glyph) / 2 + column * glyph
        py = tray_y + 5 + row * (glyph + 4) if from_top else tray_y + tray_height - 5 - (row + 1) * glyph - row * 4
        parts.append(_piece_group(symbol, px, py, "", scale))
        radius = 7.5 * scale if drops else 7.5
        cx, cy = px + glyph - 4 * scale, py + glyph - 6 * scale
        parts.append(f'<circle cx="{cx:g}" cy="{cy:g}" r="{radius:g}" fill="{palette["count"]}" stroke="#fff" '
                     f'stroke-width="1.5"/>'
                     f'<text class="count" data-count="{count}" x="{cx:g}" y="{cy + 4 * scale:g}" '
                     f'text-anchor="middle" font-family="sans-serif" font-size="{11 * scale:g}" font-weight="bold" '
                     f'fill="#fff">{count}</text>')
        slot += 1
    if to_move:
        dot_y = tray_y + tray_height + 10 if from_top else tray_y - 10
        fill, stroke = ("#fff", "#000") if colour == WHITE else ("#1b1b1b", "#fff")
        parts.append(f'<circle class="to-move" cx="{x + HAND_WIDTH / 2:g}" cy="{dot_y}" r="6" fill="{fill}" '
                     f'stroke="{stroke}" stroke-width="1.5"/>')
    parts.append("</g>")
    return "".join(parts)


def main(argv: Optional[List[str]] = None) -> int:
    """``schess-engine svg [FEN] [--flip] [--lastmove UCI] ...`` (or ``python -m engine svg``): the diagram on
    standard output (or ``-o``).
    Exit code 2 with one line on standard error for a bad FEN or move."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(
        prog="schess-engine svg",
        description="Draw a position as an SVG diagram: pieces in hand beside the board, open gates marked, "
                    "the king in check in red.",
    )
    parser.add_argument("fen", nargs="?", default=None, help="the position (default: the variant's start)")
    parser.add_argument("--variant", choices=VARIANT_NAMES, default="seirawan",
                        help="the rules (seirawan960 and chess960: with --chess960)")
    parser.add_argument("--chess960", action="store_true", help="read the FEN as (S-)chess960")
    parser.add_argument("--flip", action="store_true", help="Black at the bottom")
    parser.add_argument("--lastmove", metavar="UCI", help="highlight this move's squares, e.g. e2e4 or g1f3h")
    parser.add_argument("--size", type=int, metavar="PX", help="width in pixels (default: none, viewBox only)")
    parser.add_argument("--no-coordinates", action="store_true", help="leave out the file and rank letters")
    parser.add_argument("-o", "--output", metavar="FILE", help="write here instead of standard output")
    args = parser.parse_args(sys.argv[2:] if argv is None else argv[1:])
    try:
        variant, chess960 = split_variant_name(args.variant)
        position = Board(args.fen, variant=variant, chess960=chess960 or args.chess960)
        lastmove = Move.from_uci(args.lastmove) if args.lastmove else None
    except ValueError as error:  # a bad FEN, or IllegalMoveError (a ValueError) for --lastmove
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    text = board(position, flipped=args.flip, lastmove=lastmove, check=check_square(position),
                 coordinates=not args.no_coordinates, size=args.size)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0

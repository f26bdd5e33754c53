"""The project's own piece glyphs for :mod:`engine.svg`, drawn here as SVG paths on a 45 x 45 grid.

Every glyph is a list of shapes, each a role and a path. ``body`` shapes are filled with the piece's colour and
outlined in black; ``line`` shapes are strokes in the contrast colour (black on a white piece, white on a black
one); ``seam`` strokes are drawn on black pieces only, in white, where parts meet (a white piece's
outlines already show them); ``mark`` shapes are small areas filled with the contrast colour (eyes, nostrils);
``ivory`` shapes are white on both colours (the Elephant's tusk).
The Hawk is a bird of prey's head with a hooked beak, the Elephant an elephant's head with trunk, ear and tusk.
"""

from __future__ import annotations

from functools import cache
from typing import Dict, List, Tuple

Shape = Tuple[str, str]  # (role, SVG path data)

BODY, LINE, SEAM, MARK, IVORY = "body", "line", "seam", "mark", "ivory"


def _circle(cx: float, cy: float, r: float) -> str:
    return f"M{cx - r:g} {cy:g}a{r:g} {r:g} 0 1 0 {2 * r:g} 0a{r:g} {r:g} 0 1 0 {-2 * r:g} 0Z"


def _rect(x: float, y: float, w: float, h: float) -> str:
    return f"M{x:g} {y:g}h{w:g}v{h:g}h{-w:g}Z"


# The pedestal most pieces stand on, and the line that separates it from the piece above.
_BASE: List[Shape] = [
    (BODY, "M10.5 39.5h24v-2.5c0-1.6-1-2.5-2.5-2.5h-19c-1.5 0-2.5 .9-2.5 2.5Z"),
    (SEAM, "M13 36.8h19"),
]

PAWN: List[Shape] = [
    (BODY, "M19.6 21.5C19.6 26.5 16.5 30.5 14.5 35H30.5C28.5 30.5 25.4 26.5 25.4 21.5Z"),
    (BODY, "M17 20.8c0-1.1.6-1.8 1.8-1.8h7.4c1.2 0 1.8.7 1.8 1.8s-.6 1.8-1.8 1.8h-7.4c-1.2 0-1.8-.7-1.8-1.8Z"),
    (BODY, _circle(22.5, 13.5, 5.2)),
    (SEAM, "M19 21.8h7"),
    *_BASE,
]

ROOK: List[Shape] = [
    (BODY, "M15.5 17.5H29.5L30.5 31.5H14.5Z"),
    (BODY, "M11.5 8.5H16.5V12H20V8.5H25V12H28.5V8.5H33.5V15L30 18H15L11.5 15Z"),
    (BODY, _rect(12.5, 31.5, 20, 3.5)),
    (LINE, "M13 15H32"),
    (SEAM, "M15.5 31.5H29.5"),
    *_BASE,
]

BISHOP: List[Shape] = [
    (BODY, "M18.5 30.5C18 32.5 15.5 34 13 35H32C29.5 34 27 32.5 26.5 30.5Z"),
    (BODY, "M22.5 10C16.5 14.5 13.5 19.5 15 24.5C16 27.5 18.5 28.5 18.5 28.5H26.5C26.5 28.5 29 27.5 30 24.5"
           "C31.5 19.5 28.5 14.5 22.5 10Z"),
    (BODY, "M16.5 29.5c0-1 .7-1.6 1.8-1.6h8.4c1.1 0 1.8.6 1.8 1.6s-.7 1.6-1.8 1.6h-8.4c-1.1 0-1.8-.6-1.8-1.6Z"),
    (BODY, _circle(22.5, 7.8, 2.6)),
    (LINE, "M26.5 15L21.5 21"),
    (SEAM, "M18.8 29.5h7.4"),
    *_BASE,
]

KNIGHT: List[Shape] = [
    (BODY, "M23.5 8.5L25.5 4.5L28 9.5C33.5 11 36 18 35.5 25.5L34.5 35H15C14.5 30.5 18 27.5 21.5 25"
           "C22.8 24 22.3 22.3 20.8 22.8C18.5 24 16.5 25.8 14 26.5C11.5 27.2 9.5 26.4 9.3 24.3"
           "C9.1 22.4 10 21.3 11.5 19.8C14 17 16 13.5 18.5 11.3C20 10 21.8 9.2 23.5 8.5Z"),
    (LINE, "M28.5 11C32.5 15 33.5 21.5 32.5 33"),
    (MARK, _circle(20.5, 14.8, 1.4)),
    (MARK, _circle(12.2, 23.6, 1)),
    *_BASE,
]

QUEEN: List[Shape] = [
    (BODY, "M15 28H30L31 32H14Z"),
    (BODY, "M10 13L15 28H30L35 13L29.5 22L29 10L25.5 21L22.5 9L19.5 21L16 10L15.5 22Z"),
    (BODY, _circle(10, 12.5, 2.2)),
    (BODY, _circle(16, 9.5, 2.2)),
    (BODY, _circle(22.5, 8.3, 2.2)),
    (BODY, _circle(29, 9.5, 2.2)),
    (BODY, _circle(35, 12.5, 2.2)),
    (BODY, _rect(13, 32, 19, 3)),
    (SEAM, "M16 28.5H29M15 32.2H30"),
    *_BASE,
]

KING: List[Shape] = [
    (BODY, "M21 3.5H24V6.5H27V9.5H24V13H21V9.5H18V6.5H21Z"),
    (BODY, "M22.5 15C20 11 11 12 11.8 19.5C12.3 23.5 14.8 26 15.5 28.5H29.5C30.2 26 32.7 23.5 33.2 19.5"
           "C34 12 25 11 22.5 15Z"),
    (BODY, "M15.5 28.5H29.5L30.5 32H14.5Z"),
    (BODY, _rect(13, 32, 19, 3)),
    (LINE, "M22.5 15V28"),
    (SEAM, "M16.5 28.8H28.5M15 32.2H30"),
    *_BASE,
]

# The Hawk (bishop + knight): a bird of prey's head in profile, hooked beak to the left.
HAWK: List[Shape] = [
    (BODY, "M15.5 11.5C19 7.5 27 6.5 31 10C34.8 13.2 35.5 20 33.5 26.5L32.5 35H14C14 30.5 16 26.5 18 23.5"
           "C16.5 23 15 22.3 13.7 21.3C12.5 22.7 11.6 24.2 10.3 25.2C8 23 7.5 18.2 9.8 14.8"
           "C11.3 12.8 13.3 11.8 15.5 11.5Z"),
    (LINE, "M13.7 21.3C15 19.8 16.8 19.4 18.5 19.8"),
    (LINE, "M22.5 11.5C25 10.8 27.5 11.2 29 12.5"),
    (LINE, "M20 27.5C23 29.5 27 29.5 30 27.5M17.5 31.5C21.5 33.5 26.5 33.5 31 31.5"),
    (MARK, _circle(23.5, 15.5, 1.9)),
    *_BASE,
]

# The Elephant (rook + knight): an elephant's head in profile, trunk hanging to the left, ear behind.
ELEPHANT: List[Shape] = [
    (BODY, "M12.5 13C14.5 7.5 25.5 5.5 31 9C35.2 11.8 36 19.5 34.3 26.5L33.5 35H20C20 31.5 19.2 29 18 27"
           "C17 29.5 16.5 32.5 14.5 34C12.5 35.3 10 34.8 9 33C8.3 31.5 9.3 30.3 10.8 30.8C11.8 31.2 12.3 31 12.5 29.5"
           "C12.8 25 9.5 18 12.5 13Z"),
    (BODY, "M24 12C30.5 9.5 34 14 33.3 20.5C32.8 25.5 28.5 28.5 24.5 26C26 21.5 26 16.5 24 12Z"),
    (SEAM, "M24 12C30.5 9.5 34 14 33.3 20.5C32.8 25.5 28.5 28.5 24.5 26"),
    (IVORY, "M16.5 23.5C17 27.5 20 29.5 23.5 28.5C21 27.5 19.5 25.8 19 23Z"),
    (MARK, _circle(18.5, 16, 1.4)),
    *_BASE,
]

GLYPHS: Dict[str, List[Shape]] = {
    "p": PAWN, "n": KNIGHT, "b": BISHOP, "r": ROOK, "q": QUEEN, "k": KING, "h": HAWK, "e": ELEPHANT,
}

PIECE_NAMES: Dict[str, str] = {
    "p": "pawn", "n": "knight", "b": "bishop", "r": "rook", "q": "queen", "k": "king", "h": "hawk",
    "e": "elephant",
}

# (body fill, outline, contrast) per colour.
_COLOURS = {True: ("#fff", "#000", "#000"), False: ("#1b1b1b", "#000", "#fff")}


@cache
def glyph_svg(symbol: str) -> str:
    """The SVG elements (no ``<svg>`` wrapper) of one piece on a 45 x 45 grid at the origin, for a FEN letter
    (uppercase white): ``glyph_svg("H")`` is a white Hawk. KeyError for a letter that is not a piece."""
    white = symbol.isupper()
    shapes = GLYPHS[symbol.lower()]
    fill, outline, contrast = _COLOURS[white]
    parts = []
    for role, d in shapes:
        if role == BODY:
            parts.append(f'<path d="{d}" fill="{fill}" stroke="{outline}"/>')
        elif role == LINE:
            parts.append(f'<path d="{d}" fill="none" stroke="{contrast}"/>')
        elif role == SEAM:
            if not white:
                parts.append(f'<path d="{d}" fill="none" stroke="{contrast}"/>')
        elif role == MARK:
            parts.append(f'<path d="{d}" fill="{contrast}" stroke="none"/>')
        else:
            parts.append(f'<path d="{d}" fill="#fff" stroke="{outline}"/>')
    return "".join(parts)

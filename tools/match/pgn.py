"""PGN export of finished games, with the SAN the arbiter Board produced (``Nf3/H``, ``O-O/Hh1``)."""

from __future__ import annotations

import datetime
import textwrap
from typing import List, Optional, Tuple

from tools.match.game import GameRecord
from tools.match.settings import is_start_position

_VARIANT_TAGS = {
    ("seirawan", False): "Seirawan",
    ("seirawan", True): "Seirawan960",
    ("chess", False): None,
    ("chess", True): "Chess960",
}


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def move_comment(seconds: float, score_text: Optional[str], depth: Optional[int]) -> str:
    """The per-move comment in cutechess style: ``+0.35/7 0.120s`` (score from the mover's side)."""
    if score_text is None:
        return f"{seconds:.3f}s"
    return f"{score_text}/{depth or 0} {seconds:.3f}s"


def game_to_pgn(
    record: GameRecord,
    event: str = "Engine match",
    site: str = "?",
    date: Optional[datetime.date] = None,
    time_control: str = "",
    comments: bool = True,
) -> str:
    """The PGN text of one game, ending in a blank line.

    Tags: the seven-tag roster plus ``Variant`` (``Seirawan``), ``FEN``/``SetUp`` when the game did not
    start from the variant's start position, ``TimeControl``, ``PlyCount``, ``Termination``, and the
    opening's source. The last comment gives the reason the game ended.
    """
    date = date or datetime.date.today()
    tags: List[Tuple[str, str]] = [
        ("Event", event),
        ("Site", site),
        ("Date", date.strftime("%Y.%m.%d")),
        ("Round", str(record.job.number)),
        ("White", record.white),
        ("Black", record.black),
        ("Result", record.result),
    ]
    variant_tag = _VARIANT_TAGS.get((record.variant, record.chess960))
    if variant_tag:
        tags.append(("Variant", variant_tag))
    if not is_start_position(record.start_fen, record.variant) or record.chess960:
        tags += [("FEN", record.start_fen), ("SetUp", "1")]
    if time_control:
        tags.append(("TimeControl", time_control))
    tags += [
        ("PlyCount", str(len(record.moves))),
        ("Termination", record.termination),
        ("Opening", record.job.opening.source),
    ]
    lines = [f'[{name} "{_quote(value)}"]' for name, value in tags]
    return "\n".join(lines) + "\n\n" + movetext(record, comments) + "\n\n"


def movetext(record: GameRecord, comments: bool = True) -> str:
    """The numbered moves, optional per-move comments, the reason comment and the result, wrapped at 80."""
    fields = record.start_fen.split()
    white_to_move = len(fields) < 2 or fields[1] == "w"
    number = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1
    tokens: List[str] = []
    for index, move in enumerate(record.moves):
        if white_to_move:
            tokens.append(f"{number}.")
        elif index == 0:
            tokens.append(f"{number}...")
        tokens.append(move.san)
        if comments:
            score_text = move.score.text() if move.score is not None else None
            tokens.append("{" + move_comment(move.elapsed_ms / 1000, score_text, move.depth) + "}")
        if not white_to_move:
            number += 1
        white_to_move = not white_to_move
    if record.reason:
        tokens.append("{" + record.reason.replace("}", ")") + "}")
    tokens.append(record.result)
    return "\n".join(textwrap.wrap(" ".join(tokens), width=80, break_long_words=False, break_on_hyphens=False))

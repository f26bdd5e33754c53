"""The PGN of a finished match game: the runner's tags around the project's one PGN writer (:mod:`bot.records.pgn`)."""

from __future__ import annotations

import datetime
from typing import Dict, Optional

from bot.records.pgn import game_pgn, move_comment
from engine.variants import pgn_needs_start_fen, pgn_variant_tag
from tools.match.game import MatchRecord
from tools.match.settings import is_start_position


def game_to_pgn(
    record: MatchRecord,
    event: str = "Engine match",
    site: str = "?",
    date: Optional[datetime.date] = None,
    time_control: str = "",
    comments: bool = True,
) -> str:
    """The PGN text of one game, ending in a blank line (so that games written one after another stay apart).

    Tags: the seven-tag roster plus ``Variant`` (``Seirawan``), ``FEN``/``SetUp`` when the game did not
    start from the variant's start position, ``SearchBudget``, ``PlyCount``, ``Termination``, and the
    opening's source. Each move carries ``{score/depth time}`` (``comments``); the last comment gives the
    reason the game ended.
    """
    date = date or datetime.date.today()
    headers: Dict[str, str] = {
        "Event": event,
        "Site": site,
        "Date": date.strftime("%Y.%m.%d"),
        "Round": str(record.job.number),
        "White": record.white,
        "Black": record.black,
        "Result": record.result,
    }
    variant_tag = pgn_variant_tag(record.variant, record.chess960)
    if variant_tag:
        headers["Variant"] = variant_tag
    from_fen = (record.chess960 or not is_start_position(record.start_fen, record.variant)
                or pgn_needs_start_fen(record.variant))
    if from_fen:
        headers.update(FEN=record.start_fen, SetUp="1")  # here, in this order; game_pgn fills in the same values
    if time_control:
        headers["TimeControl"] = time_control
    headers.update(PlyCount=str(len(record.moves)), Termination=record.termination, Opening=record.job.opening.source)
    move_comments = (
        [
            move_comment(move.search.elapsed_s, str(move.search.score) if move.search.score else None, move.depth)
            for move in record.moves
        ]
        if comments
        else None
    )
    text = game_pgn(
        headers,
        [move.san for move in record.moves],
        record.result,
        start_fen=record.start_fen if from_fen else None,
        comments=move_comments,
        final_comment=record.reason or None,
    )
    return text + "\n"

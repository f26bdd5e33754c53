"""The project's one PGN writer (the bot's game records, the match runner's games, the sandbox): SAN moves
(``Nf3/H``), optional per-move comments, the result, the variant tag and start FEN; safe file names."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Protocol

from engine.variants import pgn_variant_tag


class VariantFacts(Protocol):
    """What the PGN writer reads of a variant (:class:`bot.wire.events.Variant` has it)."""

    @property
    def name(self) -> str: ...
    @property
    def chess960(self) -> bool: ...
    @property
    def supported(self) -> bool: ...


class ClockFacts(Protocol):
    """What the PGN writer reads of a clock (:class:`bot.wire.events.TimeControl` has it)."""

    @property
    def kind(self) -> str: ...
    @property
    def limit_ms(self) -> int: ...
    @property
    def increment_ms(self) -> int: ...
    @property
    def days(self) -> Optional[int]: ...


_SAFE_ID = re.compile(r"[^A-Za-z0-9_-]+")


def safe_file_id(game_id: str) -> str:
    """A game id usable as a file name: letters, digits, ``_`` and ``-`` only, at most 64 characters."""
    cleaned = _SAFE_ID.sub("_", game_id).strip("_")[:64]
    return cleaned or "game"


def pgn_variant_name(variant: VariantFacts) -> str | None:
    """The ``[Variant]`` tag (as pychess writes it); None for standard chess."""
    if not variant.supported:
        return variant.name
    return pgn_variant_tag(variant.name, variant.chess960)


def pgn_time_control(clock: ClockFacts) -> str:
    if clock.kind == "clock":
        return f"{clock.limit_ms // 1000}+{clock.increment_ms // 1000}"
    if clock.kind == "correspondence":
        return f"1/{(clock.days or 1) * 86400}"
    return "-"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _comment(text: str) -> str:
    return "{" + text.replace("}", ")") + "}"


def movetext(sans: Sequence[str], result: str, *, white_to_move_first: bool = True,
             first_move_number: int = 1, width: int = 80, comments: Sequence[str | None] | None = None,
             final_comment: str | None = None) -> str:
    """``1. Nf3/H {+0.35/7 0.120s} d5 2. ...`` wrapped at ``width``, ending in the result. ``comments``: one
    per move (None for none); ``final_comment``: before the result (why the game ended)."""
    tokens: list[str] = []
    number = first_move_number
    white = white_to_move_first
    for index, san in enumerate(sans):
        if white:
            tokens.append(f"{number}.")
        elif index == 0:
            tokens.append(f"{number}...")
        tokens.append(san)
        if comments is not None and index < len(comments) and comments[index]:
            tokens.append(_comment(str(comments[index])))
        if not white:
            number += 1
        white = not white
    if final_comment:
        tokens.append(_comment(final_comment))
    tokens.append(result)
    lines: list[str] = []
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > width:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    lines.append(line)
    return "\n".join(lines)


def game_pgn(headers: Mapping[str, str], sans: Sequence[str], result: str, *, start_fen: str | None = None,
             white_to_move_first: bool | None = None, first_move_number: int | None = None,
             comments: Sequence[str | None] | None = None, final_comment: str | None = None) -> str:
    """A complete PGN game. ``headers`` come first in the given order; Result/FEN/SetUp are set here. The side
    to move first and the first move number come from ``start_fen`` unless given."""
    tags = dict(headers)
    tags["Result"] = result
    if start_fen is not None:
        tags["FEN"] = start_fen
        tags["SetUp"] = "1"
    fields = (start_fen or "").split()
    if white_to_move_first is None:
        white_to_move_first = len(fields) < 2 or fields[1] == "w"
    if first_move_number is None:
        first_move_number = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1
    header_text = "\n".join(f'[{name} "{_escape(str(value))}"]' for name, value in tags.items())
    body = movetext(sans, result, white_to_move_first=white_to_move_first,
                    first_move_number=first_move_number, comments=comments, final_comment=final_comment)
    return f"{header_text}\n\n{body}\n"


def move_comment(seconds: float, score_text: str | None, depth: int | None) -> str:
    """The per-move comment in cutechess style: ``+0.35/7 0.120s`` (score from the mover's side)."""
    if score_text is None:
        return f"{seconds:.3f}s"
    return f"{score_text}/{depth or 0} {seconds:.3f}s"


def eval_command(score_cp: int | None, mate: int | None, depth: int | None) -> str | None:
    """``[%eval 0.42,7]`` / ``[%eval #-3,12]``: a score from White's point of view in pawns (mate in moves),
    with the search depth, as Lichess writes it and python-chess reads it; None without a score."""
    if mate is not None:
        value = f"#{mate}"
    elif score_cp is not None:
        value = f"{score_cp / 100:.2f}"
    else:
        return None
    return f"[%eval {value}{f',{depth}' if depth is not None else ''}]"


def clock_command(ms: int) -> str:
    """``[%clk 0:00:58]``: the mover's clock after the move, whole seconds (as Lichess exports it)."""
    seconds = max(0, int(ms) // 1000)
    return f"[%clk {seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}]"


def standard_headers(*, event: str, site: str, white: str, black: str, variant: VariantFacts, clock: ClockFacts,
                     started_at: float | None = None) -> dict[str, str]:
    when = time.gmtime(started_at if started_at is not None else time.time())
    headers = {
        "Event": event,
        "Site": site,
        "Date": time.strftime("%Y.%m.%d", when),
        "Round": "-",
        "White": white,
        "Black": black,
        "Result": "*",
        "UTCDate": time.strftime("%Y.%m.%d", when),
        "UTCTime": time.strftime("%H:%M:%S", when),
        "TimeControl": pgn_time_control(clock),
    }
    variant_name = pgn_variant_name(variant)
    if variant_name is not None:
        headers["Variant"] = variant_name
    return headers


def write_pgn(directory: str | Path, game_id: str, text: str) -> Path:
    """Write (overwrite) ``<directory>/<safe id>.pgn`` and return its path."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{safe_file_id(game_id)}.pgn"
    temporary = path.with_suffix(".pgn.tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)
    return path


# ---- reading back a PGN this module wrote ----------------------------------------------------------------

_TAG = re.compile(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]\s*$')
_MOVE_NUMBER = re.compile(r"^\d+\.(\.\.)?$")
_TOKEN = re.compile(r"\{[^}]*\}|[^\s{]+")


class PgnReadError(ValueError):
    """The text is not a PGN game as :func:`game_pgn` writes them."""


@dataclass(frozen=True)
class SavedPgn:
    """A game read back from its PGN: the tags in their order, the SAN moves, one comment (or None) per move,
    and the result."""

    headers: dict[str, str]
    sans: tuple[str, ...]
    comments: tuple[str | None, ...]
    result: str

    @property
    def termination(self) -> str:
        return self.headers.get("Termination", "")

    def with_outcome(self, result: str, termination: str, sans: Sequence[str] | None = None) -> str:
        """The PGN text again, with another result and ``Termination`` and, when given, other moves (the
        comments of the moves both lists share stay; the rest have none)."""
        headers = dict(self.headers)
        headers["Termination"] = termination
        comments: list[str | None] = list(self.comments)
        if sans is not None and tuple(sans) != self.sans:
            shared = 0
            while shared < min(len(sans), len(self.sans)) and sans[shared] == self.sans[shared]:
                shared += 1
            comments = comments[:shared] + [None] * (len(sans) - shared)
        else:
            sans = self.sans
        return game_pgn(headers, sans, result, start_fen=headers.get("FEN"), comments=comments)


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def read_pgn(text: str) -> SavedPgn:
    """Read one game written by :func:`game_pgn` (tags, SAN moves with ``{comments}``, the result). Raises
    :class:`PgnReadError` saying what is wrong."""
    head, separator, body = text.strip().partition("\n\n")
    if not separator:
        raise PgnReadError("no blank line between the tags and the moves")
    headers: dict[str, str] = {}
    for line in head.splitlines():
        match = _TAG.match(line.strip())
        if match is None:
            raise PgnReadError(f"not a tag: {line[:60]!r}")
        headers[match.group(1)] = _unescape(match.group(2))
    sans: list[str] = []
    comments: list[str | None] = []
    result: str | None = None
    for token in _TOKEN.findall(body):
        if result is not None:
            raise PgnReadError(f"text after the result: {token[:40]!r}")
        if token.startswith("{"):
            if not sans:
                raise PgnReadError("a comment before the first move")
            comments[-1] = f"{comments[-1]} {token[1:-1]}" if comments[-1] else token[1:-1]
        elif token in ("1-0", "0-1", "1/2-1/2", "*"):
            result = token
        elif not _MOVE_NUMBER.match(token):
            sans.append(token)
            comments.append(None)
    if result is None:
        raise PgnReadError("no result at the end of the moves")
    return SavedPgn(headers, tuple(sans), tuple(comments), result)

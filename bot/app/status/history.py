"""The finished games for the status page: read back from the PGN folder (every game the bot wrote, across
restarts) and the state file (what it did to games that have no PGN, such as an abort before the first move),
with our ``%eval`` over the moves drawn as a small SVG graph, and totals by variant and result.

A PGN is read once and kept while its size and modification time stay the same; only the newest
:data:`MAX_FILES` files are read.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.lobby.state import load_memory, state_path
from bot.metrics import our_result
from bot.records.pgn import read_pgn, safe_file_id
from engine import Board, svg
from engine.variants import PGN_NAMES

log = logging.getLogger(__name__)

MAX_FILES = 1000
#: the graph's vertical range in pawns; mates and bigger scores sit on its edge
GRAPH_PAWNS = 6.0
#: one scale for every evaluation in pawns (``evals`` in ``/api/status``): a mate is this many pawns (+ we
#: mate, - we are mated) and any other score is held below it, so a mate always ranks beyond every score
MATE_PAWNS = 100.0
SCORE_PAWNS_LIMIT = 99.0
_EVAL = re.compile(r"\[%eval\s+(#?)([+-]?[0-9.]+)(?:,(\d+))?\]")
_VARIANTS = {(tag or "").lower(): key for key, tag in PGN_NAMES.items()}


@dataclass(frozen=True)
class FinishedGame:
    """One finished game. ``evals``: (ply, our score in pawns, :func:`score_pawns`) for each of our moves with an
    eval;
    ``outcome``: the result from our side (``win``, ``loss``, ``draw``, ``aborted``, ``unknown``)."""

    game_id: str
    result: str
    outcome: str
    opponent: str
    variant: str
    plies: int
    when: str
    termination: str
    evals: tuple[tuple[int, float], ...] = ()
    final_fen: str | None = None
    we_are_white: bool | None = None
    has_pgn: bool = True
    note: str = ""
    sort_key: float = 0.0
    cache: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def summary(self) -> dict[str, Any]:
        return {"id": self.game_id, "result": self.result, "outcome": self.outcome, "opponent": self.opponent,
                "variant": self.variant, "plies": self.plies, "moves": (self.plies + 1) // 2, "when": self.when,
                "termination": self.termination, "note": self.note,
                "pgn": f"/games/{safe_file_id(self.game_id)}.pgn" if self.has_pgn else None,
                "evals": [[ply, round(value, 2)] for ply, value in self.evals]}

    def final_svg(self) -> str | None:
        if self.final_fen is None:
            return None
        if "final" not in self.cache:
            chess960 = self.variant.endswith("960")
            variant = self.variant[:-3] if chess960 else self.variant
            try:
                board = Board(self.final_fen, variant=variant, chess960=chess960)
                self.cache["final"] = svg.board(board, orientation=self.we_are_white is not False,
                                                check=svg.check_square(board), coordinates=False)
            except ValueError:
                self.cache["final"] = ""
        return self.cache["final"] or None

    def graph_svg(self) -> str:
        if "graph" not in self.cache:
            self.cache["graph"] = eval_graph(self.evals, self.plies)
        return self.cache["graph"]


def eval_graph(evals: tuple[tuple[int, float], ...] | list[tuple[int, float]], plies: int, *,
               width: int = 320, height: int = 96) -> str:
    """Our evaluation over the game as a self-contained SVG (no ids): above the middle line we stood better,
    and the axis says so (the PGN's ``%eval`` is from White's side, this graph from ours).
    ``evals``: (ply, pawns from our side)."""
    pad = 4
    span = max(plies, 2)
    middle = height / 2

    def x(ply: int) -> float:
        return pad + (width - 2 * pad) * ply / span

    def y(value: float) -> float:
        value = max(-GRAPH_PAWNS, min(GRAPH_PAWNS, value))
        return middle - (middle - pad) * value / GRAPH_PAWNS

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="evalgraph" viewBox="0 0 {width} {height}" '
             f'preserveAspectRatio="none" role="img" aria-label="evaluation graph, from our side: above the line we '
             f'stand better">',
             f'<rect x="0" y="0" width="{width}" height="{height}" rx="4" fill="#f7f3ea"/>',
             f'<rect x="0" y="{middle:.1f}" width="{width}" height="{middle:.1f}" fill="#ece4d4"/>']
    for pawns in (-3, 3):
        parts.append(f'<line class="grid" x1="{pad}" x2="{width - pad}" y1="{y(pawns):.1f}" y2="{y(pawns):.1f}" '
                     f'stroke="#d8ccb6" stroke-width="0.6" stroke-dasharray="3 3"/>')
    parts.append(f'<line class="zero" x1="{pad}" x2="{width - pad}" y1="{middle:.1f}" y2="{middle:.1f}" '
                 f'stroke="#a9835f" stroke-width="1"/>')
    for label, baseline in (("+ we stand better", pad + 9), ("\u2212 they do", height - pad - 2)):
        parts.append(f'<text class="axis" x="{pad + 2}" y="{baseline}" font-family="sans-serif" font-size="9" '
                     f'fill="#8a7a66">{label}</text>')
    if evals:
        points = " ".join(f"{x(ply):.1f},{y(value):.1f}" for ply, value in evals)
        first, last = x(evals[0][0]), x(evals[-1][0])
        parts.append(f'<polygon class="area" points="{first:.1f},{middle:.1f} {points} {last:.1f},{middle:.1f}" '
                     f'fill="#1f6fb8" fill-opacity="0.18"/>')
        parts.append(f'<polyline class="eval" points="{points}" fill="none" stroke="#1f6fb8" stroke-width="1.6" '
                     f'stroke-linejoin="round"/>')
        ply, value = evals[-1]
        parts.append(f'<circle class="last" cx="{x(ply):.1f}" cy="{y(value):.1f}" r="2.5" fill="#1f6fb8"/>')
    else:
        parts.append(f'<text x="{width / 2}" y="{middle - 6:.1f}" text-anchor="middle" font-family="sans-serif" '
                     f'font-size="11" fill="#8a7a66">no evaluations</text>')
    parts.append("</svg>")
    return "".join(parts)


def score_pawns(cp: int | float | None, mate: int | None) -> float:
    """An evaluation on the one scale of ``evals``: centipawns as pawns, held within
    ±:data:`SCORE_PAWNS_LIMIT`; a mate ±:data:`MATE_PAWNS` (+ for the side that mates)."""
    if mate is not None:
        return MATE_PAWNS if mate > 0 else -MATE_PAWNS
    return max(-SCORE_PAWNS_LIMIT, min(SCORE_PAWNS_LIMIT, (cp or 0) / 100))


def parse_eval(text: str) -> float | None:
    """``[%eval 0.42,7]`` -> 0.42; ``[%eval #-3]`` -> -:data:`MATE_PAWNS` (see :func:`score_pawns`); None
    without one."""
    found = _EVAL.search(text)
    if found is None:
        return None
    if found.group(1):
        return score_pawns(None, -1 if found.group(2).startswith("-") else 1)
    return score_pawns(float(found.group(2)) * 100, None)


def finished_game(text: str, account: str, game_id: str) -> FinishedGame:
    """One PGN the bot wrote (read by :func:`bot.records.pgn.read_pgn`, whose PgnReadError is a ValueError) ->
    a :class:`FinishedGame` (``account``: our name, to tell our side)."""
    saved = read_pgn(text)
    headers = saved.headers
    white, black = headers.get("White", "?"), headers.get("Black", "?")
    we_are_white = True if white.lower() == account.lower() else False if black.lower() == account.lower() else None
    variant, chess960 = _VARIANTS.get(headers.get("Variant", "").lower(), ("seirawan", False))
    board: Board | None
    try:
        board = Board(headers["FEN"], variant=variant, chess960=chess960) if "FEN" in headers \
            else Board(variant=variant, chess960=chess960)
    except ValueError:
        board = None
    white_first = board.turn if board is not None else True
    evals: list[tuple[int, float]] = []
    for ply, (san, comment) in enumerate(zip(saved.sans, saved.comments, strict=True), start=1):
        value = parse_eval(comment) if comment else None
        mover_is_white = ((ply - 1) % 2 == 0) == white_first
        if value is not None and we_are_white is not None and mover_is_white == we_are_white:
            evals.append((ply, value if we_are_white else -value))
        if board is not None:
            try:
                board.push_san(san)
            except ValueError:
                board = None
    plies = len(saved.sans)
    result = headers.get("Result", "*")
    termination = headers.get("Termination", "")
    name = variant + ("960" if chess960 else "")
    return FinishedGame(game_id, result, our_result(result, we_are_white, termination),
                        black if we_are_white else white if we_are_white is False else f"{white} - {black}",
                        name, plies, f"{headers.get('UTCDate', headers.get('Date', '?'))} "
                        f"{headers.get('UTCTime', '')}".strip(), termination, tuple(evals),
                        board.fen() if board is not None else None, we_are_white)


class History:
    """The finished games of ``pgn_directory`` and its state file, newest first (thread-safe)."""

    def __init__(self, pgn_directory: str | None, account: str) -> None:
        self.folder = Path(pgn_directory) if pgn_directory else None
        self.account = account
        self._cache: dict[str, tuple[int, int, FinishedGame]] = {}
        self._lock = threading.Lock()
        self._games: list[FinishedGame] = []
        self._seen: tuple[Any, ...] = ()
        #: goes up whenever the list changes (the page then fetches the finished games again)
        self.version = 0

    def games(self) -> list[FinishedGame]:
        """Every finished game, newest first (the PGNs, then games the state file knows without one)."""
        if self.folder is None:
            return []
        with self._lock:
            try:
                entries = [entry for entry in os.scandir(self.folder)
                           if entry.name.endswith(".pgn") and entry.is_file()]
            except OSError:
                return list(self._games)
            stats = sorted(((entry.stat(), entry) for entry in entries),
                           key=lambda item: -item[0].st_mtime)[:MAX_FILES]
            state = state_path(str(self.folder))
            try:
                state_stat = os.stat(state) if state is not None else None
                state_key: tuple[Any, ...] = (state_stat.st_mtime_ns, state_stat.st_size) if state_stat else ()
            except OSError:
                state_key = ()
            seen = (tuple((entry.name, stat.st_mtime_ns, stat.st_size) for stat, entry in stats), state_key)
            if seen == self._seen:
                return list(self._games)
            games: list[FinishedGame] = []
            names = set()
            for stat, entry in stats:
                game_id = entry.name[:-4]
                names.add(game_id)
                cached = self._cache.get(entry.name)
                if cached is not None and cached[:2] == (stat.st_mtime_ns, stat.st_size):
                    games.append(cached[2])
                    continue
                try:
                    text = Path(entry.path).read_text(encoding="utf-8", errors="replace")
                    game = finished_game(text, self.account, game_id)
                except (OSError, ValueError) as error:
                    log.debug("status page: cannot read %s (%s)", entry.path, error)
                    continue
                game = FinishedGame(**{**game.__dict__, "sort_key": stat.st_mtime, "cache": {}})
                self._cache[entry.name] = (stat.st_mtime_ns, stat.st_size, game)
                games.append(game)
            games += self._noted_games(names)
            games.sort(key=lambda game: -game.sort_key)
            self._games, self._seen = games, seen
            self.version += 1
            return list(games)

    def _noted_games(self, with_pgn: set[str]) -> list[FinishedGame]:
        """Games the state file has a note of and no PGN: an abort or a resignation before any move."""
        path = state_path(str(self.folder))
        if path is None or not path.exists():
            return []
        try:
            memory = load_memory(path)
        except (OSError, ValueError, json.JSONDecodeError):
            return []
        out = []
        for note in memory.games:
            if safe_file_id(note.game_id) in with_pgn:
                continue
            when = time.strftime("%Y.%m.%d %H:%M:%S", time.gmtime(note.at))
            out.append(FinishedGame(note.game_id, note.result, "aborted" if note.action == "aborted" else
                                    our_result(note.result, None, note.termination), "?", "?", 0, when,
                                    note.termination, has_pgn=False, note=f"we {note.action}",
                                    sort_key=note.at))
        return out

    def find(self, game_id: str) -> FinishedGame | None:
        return next((game for game in self.games() if game.game_id == game_id), None)

    def pgn_file(self, name: str) -> Path | None:
        """The PGN ``name`` (``<safe id>.pgn``) inside the folder, or None: nothing outside it is ever served."""
        if self.folder is None or not name.endswith(".pgn") or safe_file_id(name[:-4]) != name[:-4]:
            return None
        path = self.folder / name
        return path if path.is_file() else None


def totals(games: list[FinishedGame]) -> dict[str, dict[str, int]]:
    """Counts by variant and our result (``win``, ``draw``, ``loss``, ``aborted``, ``unknown``), plus ``all``."""
    out: dict[str, dict[str, int]] = {}
    for game in games:
        for key in (game.variant, "all"):
            row = out.setdefault(key, {"win": 0, "draw": 0, "loss": 0, "aborted": 0, "unknown": 0, "games": 0})
            row[game.outcome] = row.get(game.outcome, 0) + 1
            row["games"] += 1
    return out

"""Match runner: play games between two UCI engines with ``engine.Board`` as the arbiter.

Run it as ``python -m tools.match`` (see docs/match.md). The pieces are usable on their own:
:func:`run_match` with :class:`MatchSettings`, :func:`play_game` for one game, :func:`elo_estimate` for the
statistics, :func:`game_to_pgn` for export.
"""

from __future__ import annotations

from tools.match.game import MatchRecord, play_game
from tools.match.openings import Opening, load_openings, schedule
from tools.match.pgn import game_to_pgn
from tools.match.runner import MatchResult, run_match
from tools.match.settings import Adjudication, EngineSpec, MatchSettings, SearchBudget
from tools.match.stats import elo_estimate, likelihood_of_superiority

__all__ = [
    "Adjudication",
    "EngineSpec",
    "MatchRecord",
    "MatchResult",
    "MatchSettings",
    "Opening",
    "SearchBudget",
    "elo_estimate",
    "game_to_pgn",
    "likelihood_of_superiority",
    "load_openings",
    "play_game",
    "run_match",
    "schedule",
]

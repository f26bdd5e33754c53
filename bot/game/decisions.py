"""In-game decisions as pure functions: draws and resignation from the engine's recent scores (centipawns, our
point of view), takebacks from how many were granted."""

from __future__ import annotations

from collections.abc import Sequence

from bot.config import DrawSettings, ResignSettings, TakebackSettings


def _recent(scores: Sequence[int | None], count: int) -> list[int] | None:
    """The last ``count`` scores, or None when there are fewer or one of them is unknown."""
    if len(scores) < count:
        return None
    recent = list(scores[-count:])
    if any(score is None for score in recent):
        return None
    return [score for score in recent if score is not None]


def should_resign(scores: Sequence[int | None], settings: ResignSettings) -> bool:
    """Resign when the last ``moves`` evaluations were all at or below ``score_cp``."""
    if not settings.enabled:
        return False
    recent = _recent(scores, settings.moves)
    return recent is not None and all(score <= settings.score_cp for score in recent)


def should_offer_draw(scores: Sequence[int | None], fullmove_number: int, settings: DrawSettings) -> bool:
    """Offer a draw (lichess only) from move ``offer_after_move`` on, after ``moves`` level evaluations."""
    if not settings.enabled or fullmove_number < settings.offer_after_move:
        return False
    recent = _recent(scores, settings.moves)
    return recent is not None and all(abs(score) <= settings.max_score_cp for score in recent)


def should_accept_draw(scores: Sequence[int | None], fullmove_number: int, settings: DrawSettings) -> bool:
    """Accept an offered draw when we would offer one, or when we are clearly worse (a draw is a gift)."""
    if not settings.enabled:
        return False
    if should_offer_draw(scores, fullmove_number, settings):
        return True
    last = scores[-1] if scores else None
    return last is not None and last < -max(200, 4 * settings.max_score_cp)


def should_accept_takeback(granted_so_far: int, settings: TakebackSettings) -> bool:
    """Grant the opponent's takeback request while fewer than ``max_takebacks`` were granted this game."""
    return granted_so_far < settings.max_takebacks

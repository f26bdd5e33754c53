"""A loopback Lichess-compatible BOT API server (lichess and pychess dialects) for end-to-end tests
and ``schess-bot --sandbox``. Standard library only, plus ``engine.Board`` to judge the moves."""

from bot.loopback.faults import Faults, HttpFault
from bot.loopback.games import Game
from bot.loopback.model import (
    Challenge,
    ChallengeAnswer,
    ChatRecord,
    Clock,
    MoveRecord,
    Player,
    RequestRecord,
    TimeControl,
)
from bot.loopback.opponents import EngineOpponent, Manual, Opponent, Position, RandomMoves, Scripted
from bot.loopback.positions import CHESS_START_FEN, S_CHESS_START_FEN, start_fen
from bot.loopback.server import LoopbackServer

__all__ = [
    "CHESS_START_FEN",
    "S_CHESS_START_FEN",
    "Challenge",
    "ChallengeAnswer",
    "ChatRecord",
    "Clock",
    "Faults",
    "Game",
    "HttpFault",
    "LoopbackServer",
    "Manual",
    "MoveRecord",
    "Opponent",
    "Player",
    "Position",
    "RandomMoves",
    "RequestRecord",
    "Scripted",
    "TimeControl",
    "EngineOpponent",
    "start_fen",
]

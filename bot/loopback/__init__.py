"""A loopback Lichess-compatible BOT API server (lichess and pychess dialects) for end-to-end tests
and ``schess-bot --sandbox``. Standard library only, plus ``engine.Board`` to judge the moves."""

from bot.loopback.faults import Faults, HttpFault
from bot.loopback.games import Game
from bot.loopback.model import (
    ChallengeAnswer,
    ChatRecord,
    Clock,
    LoopbackChallenge,
    LoopbackTimeControl,
    MoveRecord,
    RequestRecord,
    User,
)
from bot.loopback.opponents import EngineOpponent, Manual, Opponent, OpponentView, RandomMoves, Scripted
from bot.loopback.positions import CHESS_START_FEN, S_CHESS_START_FEN, start_fen
from bot.loopback.server import LoopbackServer

__all__ = [
    "CHESS_START_FEN",
    "S_CHESS_START_FEN",
    "LoopbackChallenge",
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
    "User",
    "OpponentView",
    "RandomMoves",
    "RequestRecord",
    "Scripted",
    "LoopbackTimeControl",
    "EngineOpponent",
    "start_fen",
]

"""Engines the bot plays with, each in its own process: the UCI client (the bundled engine, Fairy-Stockfish,
any UCI engine) and the XBoard client (Sjaak II, Fairy-Max), on one client base (:mod:`bot.engines.client`)
and one process layer (:mod:`bot.engines.process`)."""

from bot.engines.process import (
    EngineCrashed,
    EngineError,
    EngineProcess,
    EngineStartError,
    EngineTimeout,
    engine_environment,
)
from bot.engines.result import EngineReply, Score, parse_info
from bot.engines.uci import UciEngine, UciOption, format_option_value, parse_option, position_command
from bot.engines.xboard import XBoardEngine

__all__ = ["EngineCrashed", "EngineError", "EngineProcess", "EngineStartError", "EngineTimeout", "EngineReply", "Score",
           "UciEngine", "UciOption", "XBoardEngine", "engine_environment", "format_option_value", "parse_info",
           "parse_option", "position_command"]

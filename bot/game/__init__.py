"""One game, played by a :class:`GameWorker` in a thread of its own (see :mod:`bot.game.worker`)."""

from bot.game.context import GameContext, Phase
from bot.game.protocols import Engine, GameServer, GameStream, PonderingEngine
from bot.game.record import GameNote, GameRecord, final_outcome
from bot.game.worker import GameWorker

__all__ = ["Engine", "GameContext", "GameNote", "GameRecord", "GameServer", "GameStream", "GameWorker", "Phase",
           "PonderingEngine", "final_outcome"]

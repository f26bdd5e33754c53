"""The online client: plays S-chess (and chess) on pychess.org and Lichess with a UCI engine.

Modules: ``config`` (YAML -> settings), ``events`` (server lines -> typed events), ``server`` (HTTP),
``lobby`` (event loop), ``challenges`` (accept/decline), ``game`` (one game), ``position`` (moves -> board),
``engines`` (UCI process, pondering), ``timecontrol`` (clock -> search limits), ``decisions``
(draw/resign/takeback), ``chat`` (chat commands), ``matchmaking`` (challenging online bots), ``pgn`` (game
records), ``cli`` (the ``schess-bot`` command).
"""

from engine import __version__  # one version for the whole project

__all__ = ["__version__"]

"""The online client: plays S-chess (and chess) on pychess.org and Lichess with a UCI or XBoard engine.

Start-up and settings: ``cli`` (the ``schess-bot`` command), ``app`` (the bot assembled: signals, login, the
lobby), ``config`` (YAML -> settings), ``state`` (what the limits remember across restarts), ``health``
(the Docker health check), ``logsetup`` (log destinations and the start-up block), ``sandbox`` (one game on
a loopback server, ``--sandbox``).
Talking to the server: ``server`` (the HTTP client), ``streams`` (the event and game stream readers),
``ratelimit`` (429 pauses and back-off), ``events`` (the event model), ``normalise`` (server lines ->
events), ``gamepage`` (pychess's public game page), ``gameexport`` (Lichess's game export).
Deciding: ``lobby`` (the event loop) with ``roster`` (its games) and ``answering`` (its challenge answers and
queue), ``challenges`` (accept or decline), ``matchmaking`` (challenging online bots), ``decisions`` (draw,
resign, takeback), ``chat`` (chat commands).
Playing: ``game`` (one game in a thread), ``position`` (moves -> board), ``timecontrol`` (clock -> ``go``
limits), ``engines`` (UCI and XBoard processes, pondering, the start-up check, homemade Python engines),
``enginehealth`` (after an engine failed for good), ``books`` (opening books), ``results`` (how a
game ended), ``pgn`` (game records). ``loopback`` is a BOT API server in both dialects for tests and the
sandbox.
"""

from engine import __version__  # one version for the whole project

__all__ = ["__version__"]

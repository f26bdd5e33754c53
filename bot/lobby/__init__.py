"""The lobby layer: the event loop of one account (:mod:`~bot.lobby.loop`), its running games
(:mod:`~bot.lobby.roster`), challenge answers and the queue (:mod:`~bot.lobby.answering`), the accept/decline
decision (:mod:`~bot.lobby.challenges`), challenging online bots (:mod:`~bot.lobby.matchmaking`), the Lichess
tournaments it is in (:mod:`~bot.lobby.tournaments`), what happens
after an engine failed for good (:mod:`~bot.lobby.enginehealth`), what the lobby remembers across restarts
(:mod:`~bot.lobby.state`) and how the games it ended lately are squared with the server's record after one
(:mod:`~bot.lobby.reconcile`). It drives :mod:`bot.game` workers and talks to the server through :mod:`bot.wire`."""

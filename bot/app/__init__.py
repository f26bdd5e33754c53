"""The top layer: the ``schess-bot`` command (:mod:`~bot.app.cli`), the bot assembled from its parts
(:mod:`~bot.app.run`: signals, the engine check, login, the lobby), log destinations and the start-up block
(:mod:`~bot.app.logsetup`), the Docker health check (:mod:`~bot.app.health`), the status page with its
``/api/status`` and ``/metrics`` (:mod:`~bot.app.status`), the start-up checks of ``--check``
(:mod:`~bot.app.preflight`), ``schess-bot init`` (:mod:`~bot.app.init`) and the sandbox (:mod:`~bot.app.sandbox`:
the checks, then one game on a loopback server). Nothing below imports from here."""

"""Game records, shared by the bot, the loopback server and :mod:`tools.match`: the one PGN writer
(:mod:`~bot.records.pgn`) and how a game ended (:mod:`~bot.records.results`). Imports nothing else from ``bot``."""

"""The wire layer: everything that knows how a server speaks. The one HTTP client (:mod:`~bot.wire.server`),
the stream readers (:mod:`~bot.wire.streams`), 429 pauses and back-off (:mod:`~bot.wire.ratelimit`), the event
model (:mod:`~bot.wire.events`) and the normaliser from server lines to it (:mod:`~bot.wire.normalise`),
pychess's game page (:mod:`~bot.wire.gamepage`), Lichess's game export (:mod:`~bot.wire.gameexport`) and what
each server kind can do (:mod:`~bot.wire.dialect`); every error it raises has one root (:mod:`~bot.wire.errors`).
Above this layer no module compares server names."""

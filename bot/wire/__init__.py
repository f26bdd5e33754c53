"""The wire layer: everything that knows how a server speaks. The one HTTP client (:mod:`~bot.wire.server`),
the stream readers (:mod:`~bot.wire.streams`), 429 pauses and back-off (:mod:`~bot.wire.ratelimit`), the event
model (:mod:`~bot.wire.events`) and the normaliser from server lines to it (:mod:`~bot.wire.normalise`),
pychess's game page (:mod:`~bot.wire.gamepage`), Lichess's game export (:mod:`~bot.wire.gameexport`) and its
tournaments (:mod:`~bot.wire.tournaments`), a game's link for people (:mod:`~bot.wire.links`), whether a move
whose answer was lost landed and is sent again (:mod:`~bot.wire.movefate`) and what each server kind can do
(:mod:`~bot.wire.dialect`); what to tell an operator about a server: a failed connection's cause, where tokens
come from (:mod:`~bot.wire.advice`); every error the layer raises, under one root (:mod:`~bot.wire.errors`).
Above this layer no module compares server names."""

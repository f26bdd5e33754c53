"""Texel-style tuning of the evaluation weights in :mod:`engine.evaluate`.

Three steps (see ``python -m tools.tune --help`` and docs/engine.md, "Tuning"):

1. ``extract``: quiet positions from PGN files written by ``python -m tools.match`` (self-play or games
   against Fairy-Stockfish), each labelled with the game's result (1, 0.5, 0 from white's view).
2. ``label`` (optional): add Fairy-Stockfish's score of each position from a fixed-depth search.
3. ``fit``: minimise the mean squared error between the label and ``sigmoid(K * eval / 400)`` over the chosen
   evaluation parameters by coordinate descent (the classic Texel method), and print the fitted values.
"""

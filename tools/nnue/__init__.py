"""The training pipeline of the engine's learned evaluation (:mod:`engine.nnue`); see docs/nnue.md.

``python -m tools.nnue generate|train|export|check ...``: positions from the engine's own self-play at a fixed
node count (labelled with the search score and the game's result), a numpy trainer, the quantized export to
the engine's net format, and a check that the engine's evaluation of the exported net matches the trainer's.
Every long step shows a progress bar and resumes from what it already wrote. numpy is needed here only,
never by the engine.
"""

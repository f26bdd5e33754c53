"""Development tools, not installed with the package: the match runner (``python -m tools.match``), the
opening-book builder (``python -m tools.book``), the evaluation tuner (``python -m tools.tune``), the net
trainer (``python -m tools.nnue``), the example diagrams in docs/images (``python -m tools.diagrams``). They
sit above the product: they import ``bot`` and ``engine``, which never import them."""

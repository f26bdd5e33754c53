"""Development tools, not installed with the package: the match runner (``python -m tools.match``), the
opening-book builder (``python -m tools.book``), the evaluation tuner (``python -m tools.tune``). They sit above
the product: they import ``bot`` and ``engine``, which never import them."""

"""Development tools: the match runner (``python -m tools.match``); not installed with the package."""

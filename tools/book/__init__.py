"""Build and inspect S-chess opening books (the format is in ``docs/book.md``; the reader is
:mod:`engine.book`). Run as ``python -m tools.book build ...`` / ``python -m tools.book dump FILE``."""

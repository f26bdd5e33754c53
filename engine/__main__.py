"""``schess-engine`` and ``python -m engine``: one command line. ``perft`` and ``bench-perft`` for the rules
(:mod:`engine.perftcli`), ``svg FEN`` for a diagram (:mod:`engine.svg`); anything else, or nothing, goes to
the UCI engine (:func:`engine.uci.main`: ``bench``, one UCI command, or UCI on stdin/stdout)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """The entry point of both: ``pyproject.toml``'s ``schess-engine`` script and ``python -m engine``."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "svg":
        from .svg import main as svg_main

        return svg_main(args)
    if args and args[0] in ("perft", "bench-perft"):
        from .perftcli import main as perft_main

        return perft_main(args)
    from .uci import main as uci_main

    return uci_main(args)


if __name__ == "__main__":
    sys.exit(main())

"""``python -m engine``: the UCI engine; ``python -m engine perft ...`` and ``bench-perft`` for the rules;
``python -m engine svg FEN`` for a diagram (:mod:`engine.svg`)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("perft", "bench-perft"):
        from .perftcli import main as perft_main

        return perft_main(args)
    if args and args[0] == "svg":
        from .svg import main as svg_main

        return svg_main(args)
    from .uci import main as uci_main

    return uci_main(args)


if __name__ == "__main__":
    sys.exit(main())

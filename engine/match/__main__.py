"""``python -m engine.match``: play a match between two UCI engines (see docs/match.md)."""

from __future__ import annotations

import sys

from engine.match.cli import main

if __name__ == "__main__":
    sys.exit(main())

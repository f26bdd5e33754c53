"""``python -m tools.match``: play a match between two UCI engines (see docs/match.md)."""

from __future__ import annotations

import sys

from tools.match.cli import main

if __name__ == "__main__":
    sys.exit(main())

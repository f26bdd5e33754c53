"""``python -m bot``: the same as the ``schess-bot`` command."""

import sys

from bot.app.cli import main

sys.exit(main())

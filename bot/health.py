"""``python -m bot.health HEARTBEAT|http://HOST:PORT [MAX_AGE_S]``: the Docker health check (it lives in
:mod:`bot.app.health`)."""

import sys

from bot.app.health import main

if __name__ == "__main__":
    sys.exit(main())

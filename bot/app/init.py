"""``schess-bot init [PATH] [--server pychess|lichess]``: write the commented sample config for a server.

It never overwrites: an existing file is left as it is (exit 2, naming it). The sample is the shipped
``config.yml`` (:mod:`bot.config.sample`) with ``server.url`` and ``challenge.variants`` set for the server.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from bot.config.sample import SampleMissing, sample_for_server
from bot.wire.advice import SERVER_URLS, SERVER_VARIANTS
from bot.wire.dialect import PYCHESS, dialect_named


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="schess-bot init",
                                     description="Write the commented sample config (every key at its default).")
    parser.add_argument("path", nargs="?", default="config.yml", help="where to write it (default: %(default)s)")
    parser.add_argument("--server", choices=sorted(SERVER_URLS), default=PYCHESS.name,
                        help="the server the bot plays on (default: %(default)s)")
    return parser


def main(argv: Sequence[str], out: TextIO | None = None) -> int:
    """Write the sample; 0 when written, 2 when the file exists or cannot be written."""
    args = build_parser().parse_args(list(argv))
    path = Path(args.path)
    try:
        text = sample_for_server(SERVER_URLS[args.server], SERVER_VARIANTS[args.server])
    except SampleMissing as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8") as handle:  # "x": never overwrite
            handle.write(text)
    except FileExistsError:
        print(f"error: {path} exists; init never overwrites a config: edit it, or name another file "
              f"(schess-bot init other.yml)", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: cannot write {path}: {error.strerror or error}", file=sys.stderr)
        return 2
    url = SERVER_URLS[args.server]
    hint = dialect_named(args.server).token_help(url)
    print(f"wrote {path} for {url}; next: edit it, get a token ({hint}), "
          f"export SCHESS_BOT_TOKEN=..., then schess-bot --config {path} --check", file=out or sys.stdout)
    return 0

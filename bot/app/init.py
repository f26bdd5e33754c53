"""``schess-bot init [PATH] [--server pychess|lichess]``: write the commented sample config for a server.

It never overwrites: an existing file is left as it is (exit 2, naming it), except that the very sample it
would write (a clone's own ``config.yml``) is reported as already there (exit 0). The sample is the shipped
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
        return _existing(path, text, args.server, out)
    except OSError as error:
        print(f"error: cannot write {path}: {error.strerror or error}", file=sys.stderr)
        return 2
    print(f"wrote {path} for {SERVER_URLS[args.server]}; {_next_steps(path, args.server)}", file=out or sys.stdout)
    return 0


def _next_steps(path: Path, server: str) -> str:
    url = SERVER_URLS[server]
    hint = dialect_named(server).token_help(url)
    return (f"next: edit it, get a token ({hint}), export SCHESS_BOT_TOKEN=..., then "
            f"schess-bot --config {path} --check")


def _existing(path: Path, sample: str, server: str, out: TextIO | None) -> int:
    """``path`` exists. A git clone holds the unedited sample as ``config.yml``, where the README runs init:
    that is the file init would write (0, nothing written), or another server's sample (2, saying so); any
    other file is the operator's own config (2)."""
    try:
        found = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        found = None
    if found == sample:
        print(f"{path} is already the unedited commented sample for {SERVER_URLS[server]}; nothing written; "
              f"{_next_steps(path, server)}", file=out or sys.stdout)
        return 0
    others = [name for name in sorted(SERVER_URLS) if name != server and found is not None
              and found == sample_for_server(SERVER_URLS[name], SERVER_VARIANTS[name])]
    if others:
        print(f"error: {path} exists (the unedited sample for {SERVER_URLS[others[0]]}); init never overwrites a "
              f"config: delete it first to write the {server} one there, or name another file "
              f"(schess-bot init --server {server} other.yml)", file=sys.stderr)
        return 2
    print(f"error: {path} exists; init never overwrites a config: edit it, or name another file "
          f"(schess-bot init other.yml)", file=sys.stderr)
    return 2

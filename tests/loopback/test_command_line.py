"""``python -m bot.loopback`` as an operator starts it: a fresh seed (so fresh game ids) on every start, the same
ids again only when ``--seed`` asks for them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.timing import PATIENCE_S

REPO = Path(__file__).resolve().parents[2]


def first_challenge(*args: str) -> tuple[str, str]:
    """Start the server, read its banner and its first challenge's id, stop it: (banner, game id)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    process = subprocess.Popen([sys.executable, "-m", "bot.loopback", "--challenges", "1", *args],
                               stdout=subprocess.PIPE, text=True, env=env, cwd=REPO)
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        offered = process.stdout.readline()
    finally:
        process.kill()
        process.wait(PATIENCE_S)
    found = re.match(r"challenge (\w+) offered", offered)
    assert found, offered
    return banner, found.group(1)


def test_the_loopback_server_offers_fresh_game_ids_on_each_start_unless_a_seed_is_given() -> None:
    (banner, first), (_, second) = first_challenge(), first_challenge()
    assert first != second, "two starts without --seed offered the same game id"
    seed = re.search(r"seed (\d+) \(--seed \1 gives the same game ids and moves\)", banner)
    assert seed, banner
    assert first_challenge("--seed", seed.group(1))[1] == first, "--seed repeats the ids of the start it printed"
    assert first_challenge("--seed", "7")[1] == first_challenge("--seed", "7")[1]

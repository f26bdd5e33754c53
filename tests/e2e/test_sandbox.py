"""``schess-bot --sandbox``: one whole game on a loopback server, printed, with no account and no network."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.e2e.conftest import REPO


def test_sandbox_plays_one_game_and_prints_moves_and_pgn(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key != "SCHESS_BOT_TOKEN"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "bot", "--sandbox", "--config", str(tmp_path / "none.yml")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr[-2000:]
    out = result.stdout
    assert "127.0.0.1" in out and "S-chess 1+1" in out
    assert "  1.    " in out and "  1...  " in out, "moves are printed as they happen"
    assert '[Variant "Seirawan"]' in out and '[Result "' in out
    result_tag = out.split('[Result "', 1)[1].split('"', 1)[0]
    assert result_tag in ("1-0", "0-1", "1/2-1/2")
    assert out.rstrip().endswith(result_tag), "the PGN movetext ends with the result"
    assert "[%eval " in out and "[%clk " in out, "the bot's PGN with its evaluations and clocks"
    assert elapsed < 60, f"the sandbox took {elapsed:.0f} s"
    assert not list(tmp_path.glob("games")), "the sandbox leaves no PGN folder behind"

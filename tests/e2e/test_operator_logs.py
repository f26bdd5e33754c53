"""Logs an operator can send in a bug report: the log file with its start-up block (never the token), a level
per destination, and the engine's own lines with ``engine.debug`` (on a file of their own if asked)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot import __version__
from bot.loopback import LoopbackServer, RandomMoves
from tests.e2e.conftest import TOKEN, BotProcess, bot_config
from tests.timing import GAME_S


def play_one_game(server: LoopbackServer, config: dict[str, Any], workdir: Path, seed: int) -> tuple[str, BotProcess]:
    """``python -m bot --games 1`` plays one game against random moves and exits 0: (the game id, the bot)."""
    game_id = server.challenge(color="black", clock=(60, 1), opponent=RandomMoves(seed=seed))
    bot = BotProcess(config, workdir, "--games", "1").start()
    try:
        server.wait_for_game_end(game_id, GAME_S)
        assert bot.wait(GAME_S) == 0
    finally:
        bot.stop()
    return game_id, bot


def test_a_run_with_a_log_file_keeps_the_start_up_block_engine_lines_and_no_token(
    pychess_server: LoopbackServer, tmp_path: Path
) -> None:
    log_file, engine_file = tmp_path / "bot.log", tmp_path / "engine.log"
    config = bot_config(pychess_server, tmp_path / "games",
                        engine={"debug": True},
                        logging={"level": "WARNING", "file": str(log_file), "file_level": "DEBUG",
                                 "max_bytes": 5_000_000, "backup_count": 2, "engine_file": str(engine_file)})
    game_id, bot = play_one_game(pychess_server, config, tmp_path, seed=2)
    text = log_file.read_text()
    assert "schess-bot " in text and "  python: " in text and "  os: " in text
    assert f"logged in to {pychess_server.url} as SeirawanBot (pychess dialect)" in text
    assert "engine check: " in text and "plays seirawan" in text
    assert "effective configuration:" in text and "  engine:" in text and "debug: true" in text, "DEBUG in the file"
    assert "played " in text, "INFO lines reach the file (file_level DEBUG)"
    engine_lines = engine_file.read_text()
    assert " < go " in engine_lines and " > bestmove " in engine_lines and " > uciok" in engine_lines
    assert " > bestmove " not in text, "engine lines go to their own file"
    stderr = bot.logs()
    assert "played " not in stderr and "effective configuration" not in stderr, "stderr keeps WARNING and up"
    for path in (log_file, engine_file, tmp_path / "games" / f"{game_id}.pgn"):
        assert TOKEN not in path.read_text()


def test_the_start_up_at_info_fits_on_a_screen_in_the_order_it_happens(
    pychess_server: LoopbackServer, tmp_path: Path
) -> None:
    config = bot_config(pychess_server, tmp_path / "games", logging={"level": "INFO"})
    game_id, bot = play_one_game(pychess_server, config, tmp_path, seed=3)
    lines = bot.logs().splitlines()
    start_up = lines[:next(n for n, line in enumerate(lines) if f"challenge {game_id}:" in line)]
    assert len(start_up) <= 12, "\n".join(start_up)
    order = [f"schess-bot {__version__} starting", "engine check: ", "logged in to ", "configuration: accepts "]
    found = [next(n for n, line in enumerate(start_up) if marker in line) for marker in order]
    assert found == sorted(found), "\n".join(start_up)
    assert "keys differ from the defaults (server.url, " in "\n".join(start_up)
    assert "effective configuration" not in bot.logs().replace("effective configuration is logged at DEBUG", "")

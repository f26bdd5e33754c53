"""The real bot plays S-House (``shouse``) on the loopback server in the pychess dialect, judged by pyffish, and
refuses to start on a Lichess-dialect server with S-House in its config."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyffish as sf

from bot.loopback import LoopbackServer, RandomMoves
from tests.e2e.conftest import BotThread, assert_clean_game, bot_config
from tests.match.pyffish_board import PyffishBoard
from tests.timing import GAME_S, STARTUP_S


def replay_pgn_with_pyffish(path: Path) -> tuple[dict[str, str], list[str], PyffishBoard]:
    """The saved PGN's tags, its moves replayed by Fairy-Stockfish's rules (UCI), and the final board."""
    text = path.read_text()
    headers = dict(re.findall(r'^\[(\w+) "(.*)"\]$', text, re.MULTILINE))
    board = PyffishBoard(headers.get("FEN") or sf.start_fen("shouse"), "shouse")
    body = re.sub(r"\{[^}]*\}", " ", " ".join(line for line in text.splitlines() if not line.startswith("[")))
    for token in body.split():
        if re.fullmatch(r"\d+\.(\.\.)?|1-0|0-1|1/2-1/2|\*", token):
            continue
        board.push(board.parse_san(token))
    return headers, list(board.move_stack), board


def test_a_complete_s_house_game_on_pychess(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    server = pychess_server
    game_id = server.challenge(challenger="Alice", variant="shouse", clock=(120, 2), opponent=RandomMoves(seed=46))
    config = bot_config(server, tmp_path, challenge={"variants": ["seirawan", "shouse"]})
    bots.append(BotThread(config, max_games=1).start())
    assert server.wait_for_answer(game_id, STARTUP_S).accepted
    game = server.wait_for_game_end(game_id, 240)  # a longer game than GAME_S covers: S-House, 2+2 clocks, to mate
    assert_clean_game(game)
    assert game.status in ("mate", "draw", "stalemate"), game.describe()
    assert any("@" in move for move in game.moves), "an S-House game without a drop"
    assert bots[0].join(GAME_S) == 0
    caps = json.loads(server.requests_to("stream_event")[0].headers["X-PyChess-Bot-Capabilities"])
    assert "shouse" in caps["variants"]
    headers, moves, board = replay_pgn_with_pyffish(tmp_path / f"{game_id}.pgn")
    assert headers["Variant"] == "Shouse"
    assert moves == game.moves, "the bot's PGN replays in pyffish to the server's move list"
    outcome = board.outcome(claim_draw=True)
    assert outcome is not None and outcome.result() == game.result() == headers["Result"]


def test_a_lichess_config_with_s_house_is_refused_at_start_up(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    config = bot_config(lichess_server, tmp_path, challenge={"variants": ["chess", "shouse"]})
    bot = BotThread(config, max_games=1).start()
    bots.append(bot)
    assert bot.join(STARTUP_S) == 2
    assert not lichess_server.requests_to("stream_event"), "the bot must not listen for games"

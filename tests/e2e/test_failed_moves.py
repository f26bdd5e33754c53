"""A move whose answer is an HTTP 5xx is resolved without costing the game: the bot learns from the freshest
record the server keeps (the game stream, pychess's game page) whether it landed, sends it again where the
server refuses a move out of turn without harm (Lichess), and never sends it into a new position.

Each game runs on a 30 s clock (bullet), so a bot that never sends its move again loses on time within the test; the
server's record of the game is either as the real server keeps it (pychess's game page current, Lichess's
export of an ongoing game delayed by its time control) or refused outright (HTTP 404, as a
Lichess-compatible server answered it)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import pytest

from bot.loopback import Game, LoopbackServer, MoveRecord, OpponentView, RandomMoves
from bot.loopback.harness import record_move_requests, sent_into_a_new_position
from tests.e2e.conftest import BotThread, assert_clean_game, bot_config, replay_pgn
from tests.timing import GAME_S

#: the bot's move that fails: its second (ply 4: the bot plays Black), once both clocks run
FAILING_PLY = 4


class RandomThenResign(RandomMoves):
    """Random legal moves; resigns instead of its ``moves + 1``-th move."""

    def __init__(self, moves: int, seed: int = 0) -> None:
        super().__init__(seed)
        self.moves = moves

    def choose(self, position: OpponentView) -> Optional[str]:
        return "resign" if position.own_moves >= self.moves else super().choose(position)


@pytest.mark.parametrize("record", ["as the server keeps it", "refused"])
@pytest.mark.parametrize("failure", ["answer lost after the move was made", "move never made"])
def test_a_move_answered_with_a_5xx_is_resolved_without_losing_on_time_or_sending_it_twice(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread], failure: str, record: str
) -> None:
    game_id = server.challenge(color="white", clock=(30, 0), opponent=RandomThenResign(3, seed=11))
    if record == "refused":
        server.faults.refuse_game_record(game_id)

    def fail_our_next_move(game: Game, move: MoveRecord) -> None:
        if move.by == "opponent" and move.ply == FAILING_PLY - 1:
            if failure == "move never made":
                server.faults.fail("move", 500, times=1, target=game.id)
            else:
                server.faults.lose_answers("move", times=1, target=game.id)

    server.on_move = fail_our_next_move
    requests = record_move_requests(server, game_id)
    bots.append(BotThread(bot_config(server, tmp_path), max_games=1).start())
    assert server.wait_for_answer(game_id, GAME_S).accepted
    game = server.wait_for_game_end(game_id, GAME_S)

    assert (game.status, game.winner) == ("resign", game.bot_color), game.describe()  # not lost on time
    assert_clean_game(game)  # no illegal move
    failed = [r for r in server.requests_to("move", game_id) if r.status in (0, 500)]
    assert len(failed) == 1, "the fault hit one move"
    assert not sent_into_a_new_position(requests), requests
    assert [r.plies for r in requests if r.uci == game.moves[FAILING_PLY - 1]][0] == FAILING_PLY - 1
    assert bots[0].join(GAME_S) == 0
    assert replay_pgn(tmp_path / f"{game_id}.pgn", variant=game.variant) == game.moves

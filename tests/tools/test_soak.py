"""``python -m tools.soak`` run briefly: two quick games in one dialect under the failed-move and stream faults,
and its summary's counts are the loopback server's own record of them."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tools.soak import KINDS, DialectSoak, Fault, Injected, build_parser, schedule

QUICK_FAULTS = "move-answer-lost,move-5xx,record-refused,streams-dropped,restart"


def test_the_fault_schedule_is_reproducible_from_the_seed() -> None:
    first = schedule(63, "lichess", 900, 15.0)
    assert first == schedule(63, "lichess", 900, 15.0)
    assert first != schedule(64, "lichess", 900, 15.0) and first != schedule(63, "pychess", 900, 15.0)
    assert all(0 < f.at_s < 900 and f.kind in KINDS for f in first)
    assert {f.kind for f in schedule(63, "lichess", 900, 15.0, ("move-5xx",))} == {"move-5xx"}


def test_a_loss_on_time_is_put_down_to_a_fault_only_when_the_fault_could_use_up_the_bots_clock() -> None:
    game: Any = SimpleNamespace(id="g", ended_at=1050.0, challenge=SimpleNamespace(
        time_control=SimpleNamespace(limit_s=60)))
    assert Injected(Fault(10, "outage", 25), 1000.0, "g", 20.0).could_flag(game)  # window 2 x 25 + 3 s
    assert not Injected(Fault(10, "outage", 25), 1000.0, "g", 58.0).could_flag(game), "more clock than window"
    assert not Injected(Fault(10, "outage", 25), 1000.0, "other", 20.0).could_flag(game), "another game"
    assert not Injected(Fault(10, "outage", 10), 1000.0, "g", 20.0).could_flag(game), "over before the loss"
    assert not Injected(Fault(10, "move-5xx", 0), 1000.0, "g", 20.0).could_flag(game), "no outage"
    # a 429 on a move costs a minute (the bot's pause), armed between games: the next game's full clock
    assert Injected(Fault(10, "429-move", 2), 1000.0, None, None).could_flag(game)


def test_a_short_soak_counts_what_the_loopback_server_recorded(tmp_path: Path) -> None:
    args = build_parser().parse_args(["--dialect", "lichess", "--seed", "5", "--games", "2", "--depth", "1",
                                      "--every", "1", "--faults", QUICK_FAULTS, "--workdir", str(tmp_path)])
    soak = DialectSoak("lichess", args, tmp_path / "lichess")
    summary = soak.run()
    server = soak.server

    assert [g.id for g in summary.games] == list(server.games) and len(summary.games) == 2
    assert all(g.over for g in summary.games)
    won, lost, drawn, aborted = (int(part.split()[0]) for part in summary.results().split(", "))
    assert won + lost + drawn + aborted == 2
    assert won == sum(g.winner == g.bot_color for g in server.games.values())
    assert summary.lost_on_time == [g for g in server.games.values()
                                    if g.status == "outoftime" and g.winner == (not g.bot_color)]
    assert summary.illegal_moves == sum(reason == "illegal" for g in server.games.values() for _, reason in g.rejected)
    moves = server.requests_to("move")
    assert summary.move_requests == len(moves)
    assert sum(summary.failed_moves.values()) == sum(r.status == 0 or r.status >= 400 for r in moves)
    assert [i.fault for i in summary.injected] == soak.faults[:len(summary.injected)]
    written = sorted(p.stem for p in (tmp_path / "lichess" / "games").glob("*.pgn"))
    assert sorted(set(g.id for g in server.games.values() if g.moves) - set(summary.pgn_missing)) == written
    assert summary.lines()[0].startswith("lichess: 2 games in ")
    assert summary.lines()[-1] == ("  verdict: OK" if summary.ok else "  verdict: FAIL")
    assert summary.ok, "\n".join(summary.lines())

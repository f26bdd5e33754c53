"""tools.depth reads finished iterations from real engines' info lines (ours and Fairy-Stockfish's shapes)."""

from __future__ import annotations

from tools.depth import depth_gap, read_iteration, read_search

OURS = [
    "info depth 9 seldepth 21 multipv 1 score cp 31 nodes 180000 nps 160000 hashfull 40 time 1125 pv e2e4 e7e5",
    "info depth 10 seldepth 24 multipv 1 score cp 25 nodes 420000 nps 161000 hashfull 90 time 2609 pv e2e4",
    "info string book move none",
    "bestmove e2e4 ponder e7e5",
]
FAIRY = [
    "info depth 15 seldepth 20 multipv 1 score cp 40 nodes 900000 nps 300000 tbhits 0 time 3000 pv d2d4",
    "info depth 16 seldepth 22 multipv 1 score cp 60 lowerbound nodes 950000 nps 300000 time 3100 pv d2d4",
    "info depth 16 currmove d2d4 currmovenumber 1",
    "info depth 16 seldepth 22 multipv 1 score cp 44 nodes 1200000 nps 301000 time 3990 pv d2d4",
    "info depth 16 seldepth 22 multipv 1 score cp 44 nodes 1210000 nps 301000 time 4000 pv d2d4",
    "bestmove d2d4 ponder d7d5",
]


def test_finished_iterations_only() -> None:
    assert read_iteration(FAIRY[1]) is None  # an aspiration bound
    assert read_iteration(FAIRY[2]) is None  # currmove: no score
    assert read_iteration(OURS[2]) is None
    assert read_iteration("info depth x score cp 1 nodes 2 time 3") is None
    iteration = read_iteration(OURS[0])
    assert iteration is not None and (iteration.depth, iteration.nodes, iteration.time_ms) == (9, 180000, 1125)


def test_a_search_report_gives_depth_speed_and_time_to_depth() -> None:
    report = read_search(OURS + ["info depth 11 score cp 1 nodes 5 time 6"])  # after bestmove: not read
    assert (report.depth, report.nodes, report.bestmove) == (10, 420000, "e2e4")
    assert round(report.nps) == round(420000 * 1000 / 2609)
    hit = report.reached(10)
    assert hit is not None and hit.time_ms == 2609
    assert report.reached(11) is None
    fairy = read_search(FAIRY)
    assert [i.depth for i in fairy.iterations] == [15, 16]  # the repeated depth-16 line replaces its twin
    first_past_12 = fairy.reached(12)
    assert fairy.nodes == 1210000 and first_past_12 is not None and first_past_12.depth == 15


# Fairy-Stockfish 11.1 at `go movetime 3000` (S-chess, the fourth position of tools.depth): depth 18 finished at
# 1948 ms, and the clock stopped it inside depth 19, which it still prints (with the partial pv).
FAIRY_STOPPED = [
    "info depth 17 seldepth 29 multipv 1 score cp 671 nodes 538210 nps 392567 hashfull 293 tbhits 0 time 1371 pv e4f3",
    "info depth 18 seldepth 35 multipv 1 score cp 687 nodes 745355 nps 382625 hashfull 399 tbhits 0 time 1948 pv e4f3",
    "info depth 19 seldepth 29 multipv 1 score cp 662 nodes 1193240 nps 397481 hashfull 624 tbhits 0 time 3002 "
    "pv e4f3 e2f3",
    "bestmove e4f3 ponder e2f3",
]


def test_the_line_the_clock_cut_is_not_a_finished_iteration() -> None:
    fairy = read_search(FAIRY_STOPPED, movetime_ms=3000)
    assert (fairy.depth, fairy.reported_depth) == (18, 19)  # compared with ours on finished iterations
    assert fairy.nodes == 1193240  # the nodes of the whole search still count
    assert fairy.reached(19) is None
    hit = fairy.reached(18)
    assert hit is not None and hit.time_ms == 1948
    ours = read_search(OURS, movetime_ms=3000)  # the last line at 2609 ms: a finished iteration
    assert (ours.depth, ours.reported_depth) == (10, 10)
    # Our engine stops at the movetime less its 50 ms overhead, and reports the cut depth once its best move
    # has an exact score there.
    cut = OURS[:2] + ["info depth 11 seldepth 25 multipv 1 score cp 30 nodes 480000 nps 162000 time 2950 pv e2e4"]
    ours = read_search(cut + OURS[2:], movetime_ms=3000)
    assert (ours.depth, ours.reported_depth, ours.nodes) == (10, 11, 480000)
    # Fairy-Stockfish's cut line of the last finished depth (its first move not yet searched again) is that
    # depth, still finished.
    twin = FAIRY_STOPPED[:2] + [FAIRY_STOPPED[1].replace("time 1948", "time 3001")] + FAIRY_STOPPED[3:]
    assert read_search(twin, movetime_ms=3000).depth == 18
    # Without a movetime every line counts, as before.
    assert read_search(FAIRY_STOPPED).depth == 19


def test_the_depth_gap_says_which_way() -> None:
    fairy = read_search(FAIRY_STOPPED, movetime_ms=3000)  # 18 finished, 19 by its last line
    ours = read_search(OURS, movetime_ms=3000)  # 10 and 10
    assert depth_gap([ours], [fairy], "depth") == "8.00 plies shallower"
    assert depth_gap([ours], [fairy], "reported_depth") == "9.00 plies shallower"
    assert depth_gap([fairy, fairy], [ours, fairy], "depth") == "4.00 plies deeper"

"""``python -m tools.depth``: how deep and how fast UCI engines search the same S-chess middlegames (a benchmark
for docs/engine.md, not a test).

Each engine searches each position once with ``go movetime`` (3 s by default), one engine after the other, a
new engine process for every search (an empty hash table; the bot's UCI client), ``Hash`` 16 and one thread.
From the ``info`` lines with a score that is not a bound it takes the depth reached, the nodes and the nodes
per second at the end, and the time and nodes at which each of ``--depths`` (10, 12, 14) was first completed.
The positions are four S-chess middlegames (:data:`POSITIONS`).

The last line may not be a finished iteration. When the clock stops Fairy-Stockfish (as Stockfish) it prints
one more line with the depth of the iteration it was in the middle of ("info depth 19 ... time 3002 pv e4f3
e2f3" after depth 18 finished at 1948 ms), and so does our engine once that iteration has given its best move
an exact score (at ``movetime`` less its 50 ms move overhead). So a last line of a new depth sent in the last
:data:`STOP_MARGIN_MS` of the ``movetime`` counts as an iteration the clock cut, whichever engine sent it
(a finished iteration that happens to end there is counted as cut too, alike for every engine). The table
shows both: the depth finished (compared) and the depth of the last line.

    python -m tools.depth --engine "ours=schess-engine" --engine "fsf=/usr/games/fairy-stockfish"

Run it on an idle machine: the engines take turns, so load shifts the figures of whichever runs at the time.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Optional

from bot.engines import UciEngine
from engine.uci import BENCH_POSITIONS

# Three S-chess middlegames of the engine's bench (its fourth is a forced king move) and one from a match
# against Fairy-Stockfish (move 14, an Elephant still in hand).
POSITIONS = tuple(BENCH_POSITIONS[i][1] for i in (1, 2, 4)) + (
    "r3k2r/ppp1bppp/4h1n1/3q4/3Pp1b1/2P1QP1N/PPH1P2P/2KR1BER[e] b kq - 0 14",
)
DEFAULT_DEPTHS = (10, 12, 14)
# A last line sent this close to the movetime (or after it) is the line of an iteration the clock cut.
STOP_MARGIN_MS = 100


@dataclass
class Iteration:
    """One iteration as an engine reported it: finished, or cut by the clock (the stop line)."""

    depth: int
    nodes: int
    time_ms: int
    finished: bool = True


@dataclass
class SearchReport:
    """What one search of one position showed."""

    iterations: list[Iteration] = field(default_factory=list)
    bestmove: str = ""

    @property
    def depth(self) -> int:
        """The deepest finished iteration."""
        return max((i.depth for i in self.iterations if i.finished), default=0)

    @property
    def reported_depth(self) -> int:
        """The depth of the last line, finished or cut by the clock."""
        return self.iterations[-1].depth if self.iterations else 0

    @property
    def nodes(self) -> int:
        return max((i.nodes for i in self.iterations), default=0)

    @property
    def nps(self) -> float:
        last = max(self.iterations, key=lambda i: i.nodes, default=None)
        return last.nodes * 1000.0 / last.time_ms if last and last.time_ms else 0.0

    def reached(self, depth: int) -> Optional[Iteration]:
        """The first finished iteration of at least ``depth``, or None."""
        return next((i for i in self.iterations if i.finished and i.depth >= depth), None)


def read_iteration(line: str) -> Optional[Iteration]:
    """The iteration an ``info`` line reports, or None for lines that report none (no score, a bound, no nodes
    or time: ``currmove`` lines, strings, aspiration fails)."""
    words = line.split()
    if not words or words[0] != "info" or "score" not in words or "string" in words:
        return None
    if "lowerbound" in words or "upperbound" in words:
        return None
    values: dict[str, int] = {}
    for key in ("depth", "nodes", "time"):
        if key not in words:
            return None
        try:
            values[key] = int(words[words.index(key) + 1])
        except (IndexError, ValueError):
            return None
    return Iteration(values["depth"], values["nodes"], values["time"])


def read_search(lines: Iterable[str], movetime_ms: Optional[int] = None) -> SearchReport:
    """The report of one search from the engine's output after ``go``, up to and including ``bestmove``; with
    ``movetime_ms``, a last line of a new depth sent within :data:`STOP_MARGIN_MS` of it is an iteration the
    clock cut, not a finished one."""
    report = SearchReport()
    last_is_new_depth = False
    for line in lines:
        if line.startswith("bestmove"):
            parts = line.split()
            report.bestmove = parts[1] if len(parts) > 1 else ""
            break
        iteration = read_iteration(line)
        if iteration is None:
            continue
        last_is_new_depth = not report.iterations or report.iterations[-1].depth != iteration.depth
        if last_is_new_depth:
            report.iterations.append(iteration)
        else:
            report.iterations[-1] = iteration  # the same depth again (a final line after stop)
    if movetime_ms is not None and last_is_new_depth:
        last = report.iterations[-1]
        last.finished = last.time_ms < movetime_ms - STOP_MARGIN_MS
    return report


def search_once(command: Sequence[str], fen: str, movetime_ms: int, options: Sequence[tuple[str, str]]) -> SearchReport:
    """Start ``command`` (the bot's UCI client, :class:`bot.engines.UciEngine`), search ``fen`` for
    ``movetime_ms`` and quit it."""
    engine = UciEngine(command, {"Hash": 16, "Threads": 1, **dict(options)}, label=command[0], strict=True)
    engine.set_variant("seirawan", False)
    lines: list[str] = []
    try:
        engine.new_game()
        reply = engine.go(f"position fen {fen}", f"go movetime {movetime_ms}", movetime_ms / 1000 + 10, 5.0,
                          on_info=lines.append)
    finally:
        engine.close()
    return read_search(lines + [f"bestmove {reply.bestmove or '(none)'}"], movetime_ms)


def format_reports(name: str, reports: Sequence[SearchReport], depths: Sequence[int]) -> list[str]:
    """Markdown rows for one engine: one per position, then the averages."""
    rows = []
    for index, report in enumerate(reports, 1):
        cells = [name, str(index), str(report.depth), str(report.reported_depth), f"{report.nodes:,}",
                 f"{report.nps / 1000:.0f}k"]
        for depth in depths:
            hit = report.reached(depth)
            cells.append("-" if hit is None else f"{hit.time_ms / 1000:.2f} s, {hit.nodes:,}")
        rows.append("| " + " | ".join(cells) + " |")
    mean_depth = sum(r.depth for r in reports) / len(reports)
    mean_reported = sum(r.reported_depth for r in reports) / len(reports)
    mean_nps = sum(r.nps for r in reports) / len(reports)
    rows.append(f"| {name} | mean | {mean_depth:.2f} | {mean_reported:.2f} | | {mean_nps / 1000:.0f}k |"
                + " |" * len(depths))
    return rows


def depth_gap(base: Sequence[SearchReport], other: Sequence[SearchReport], attribute: str) -> str:
    """How much shallower (or deeper) ``base`` is than ``other`` on average, by a depth ``attribute`` of the
    reports ("depth" or "reported_depth")."""
    gap = sum(getattr(r, attribute) - getattr(b, attribute) for b, r in zip(base, other, strict=True)) / len(base)
    return f"{abs(gap):.2f} plies {'shallower' if gap > 0 else 'deeper'}"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.depth", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", action="append", required=True, metavar="NAME=COMMAND",
                        help="an engine to measure (repeatable; the command is split like a shell would)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a UCI option for every engine (repeatable)")
    parser.add_argument("--movetime", type=int, default=3000, help="ms per search (default: %(default)s)")
    parser.add_argument("--depths", default=",".join(map(str, DEFAULT_DEPTHS)),
                        help="depths whose time and nodes to show (default: %(default)s)")
    args = parser.parse_args(argv)
    engines = []
    for spec in args.engine:
        name, sep, command = spec.partition("=")
        if not sep or not name or not command.strip():
            parser.error(f"--engine {spec!r}: expected NAME=COMMAND")
        engines.append((name, shlex.split(command)))
    options = []
    for spec in args.option:
        name, sep, value = spec.partition("=")
        if not sep or not name:
            parser.error(f"--option {spec!r}: expected NAME=VALUE")
        options.append((name, value))
    try:
        depths = [int(d) for d in args.depths.split(",") if d]
    except ValueError:
        parser.error(f"--depths {args.depths!r}: expected numbers separated by commas")
    reports: dict[str, list[SearchReport]] = {name: [] for name, _ in engines}
    started = time.perf_counter()
    for fen in POSITIONS:
        for name, command in engines:
            report = search_once(command, fen, args.movetime, options)
            reports[name].append(report)
            print(f"# {name}: depth {report.depth} finished, {report.reported_depth} last line, {report.nodes} "
                  f"nodes, bestmove {report.bestmove}: {fen}",
                  file=sys.stderr, flush=True)
    header = ["engine", "position", "depth finished", "last line", "nodes", "nodes/s"]
    header += [f"to depth {d} (time, nodes)" for d in depths]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name, _ in engines:
        print("\n".join(format_reports(name, reports[name], depths)))
    if len(engines) > 1:
        first = engines[0][0]
        base = reports[first]
        for name, _ in engines[1:]:
            other = reports[name]
            nps_ratio = sum(r.nps for r in base) / max(1.0, sum(r.nps for r in other))
            print(f"\n{first} against {name}: {nps_ratio:.2f}x the nodes per second, on average "
                  f"{depth_gap(base, other, 'depth')} in finished iterations "
                  f"({depth_gap(base, other, 'reported_depth')} by the last lines)")
    print(f"\n({len(POSITIONS)} positions, {args.movetime} ms each, {time.perf_counter() - started:.0f} s in all)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

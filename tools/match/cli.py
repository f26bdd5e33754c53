"""Command line of the match runner: ``python -m tools.match --engine1 CMD --engine2 CMD --games N ...``."""

from __future__ import annotations

import argparse
import logging
import shlex
import signal
import sys
import threading
from types import FrameType
from typing import Callable, List, Optional, Sequence

from bot.engines import EngineStartError
from engine.variants import VARIANTS
from tools.match.game import BoardFactory, engine_board
from tools.match.runner import run_match
from tools.match.settings import (
    Adjudication,
    EngineSpec,
    MatchSettings,
    SearchBudget,
    parse_clock,
    parse_option,
)
from tools.match.sprt import MODELS, Sprt, parse_bounds

DESCRIPTION = """\
Play a match between two UCI engines, with engine.Board as the arbiter, and print W/D/L, score and the Elo
difference with its 95% error margin. Each opening is played twice with colours swapped.

example:
  python -m tools.match --engine1 /usr/games/fairy-stockfish --engine1-option "Skill Level=0" \\
      --engine2 "python -m engine" --games 40 --tc 30+0.3 --concurrency 2 \\
      --openings engine/data/seirawan.epd --shuffle --seed 1 --pgn match.pgn
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; every option is documented in its help text and in docs/match.md."""
    parser = argparse.ArgumentParser(
        prog="python -m tools.match",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for number in (1, 2):
        group = parser.add_argument_group(f"engine {number}")
        group.add_argument(
            f"--engine{number}",
            required=True,
            metavar="COMMAND",
            help="command line that starts the engine (split like a shell would)",
        )
        group.add_argument(
            f"--engine{number}-option",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="UCI option sent with setoption, e.g. 'Skill Level=3'; repeatable",
        )
        group.add_argument(
            f"--engine{number}-name",
            default="",
            metavar="NAME",
            help="name in the table and the PGN (default: the engine's 'id name')",
        )
        group.add_argument(
            f"--engine{number}-dir",
            default=None,
            metavar="DIR",
            help="working directory of the engine process",
        )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="UCI option for both engines (sent before the per-engine options); repeatable",
    )

    games = parser.add_argument_group("games and openings")
    games.add_argument(
        "--games", type=int, default=2, metavar="N", help="number of games (default 2; even keeps pairs whole)"
    )
    games.add_argument("--variant", choices=VARIANTS, default="seirawan", help="rules (default seirawan)")
    games.add_argument("--chess960", action="store_true", help="960 castling rules (UCI_Chess960)")
    games.add_argument(
        "--openings",
        metavar="EPD",
        help="EPD file of start positions (4 FEN fields per line); default: the start position",
    )
    games.add_argument("--shuffle", action="store_true", help="take the openings in a random order")
    games.add_argument("--seed", type=int, default=None, help="seed of --shuffle, for a repeatable match")
    games.add_argument(
        "--concurrency",
        type=int,
        default=1,
        metavar="N",
        help="games played at the same time, each with its own pair of engine processes",
    )
    games.add_argument("--pgn", metavar="FILE", help="write the games to this PGN file (overwritten)")
    games.add_argument("--event", default="Engine match", help="PGN Event tag")

    clock = parser.add_argument_group("time control (at least one)")
    clock.add_argument("--tc", metavar="BASE+INC", help="clock in seconds, e.g. 30+0.3 or 60")
    clock.add_argument("--movetime", type=int, metavar="MS", help="fixed time per move in milliseconds")
    clock.add_argument("--depth", type=int, help="search depth limit")
    clock.add_argument("--nodes", type=int, help="node limit per move")
    clock.add_argument(
        "--time-margin",
        type=int,
        default=100,
        metavar="MS",
        help="how far past its clock an engine may go before it loses on time (default 100)",
    )
    clock.add_argument(
        "--hang-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="without a clock: seconds to wait for a bestmove before the engine is declared hung (default 60)",
    )

    adjudication = parser.add_argument_group("adjudication (off unless set)")
    adjudication.add_argument(
        "--max-plies", type=int, default=0, metavar="N", help="draw after N plies (default 0: no cap)"
    )
    adjudication.add_argument(
        "--resign-score",
        type=int,
        metavar="CP",
        help="resign when one engine reports <= -CP and the other >= CP ...",
    )
    adjudication.add_argument(
        "--resign-moves",
        type=int,
        default=3,
        metavar="N",
        help="... for N consecutive moves each (default 3)",
    )
    adjudication.add_argument(
        "--draw-score", type=int, metavar="CP", help="draw when both engines report |score| <= CP ..."
    )
    adjudication.add_argument(
        "--draw-moves",
        type=int,
        default=8,
        metavar="N",
        help="... for N consecutive moves each (default 8) ...",
    )
    adjudication.add_argument(
        "--draw-after",
        type=int,
        default=40,
        metavar="MOVE",
        help="... once the game is past this move number (default 40)",
    )

    test = parser.add_argument_group(
        "sequential probability ratio test (docs/match.md, 'SPRT'); --games is then the cap"
    )
    test.add_argument(
        "--sprt",
        metavar="ELO0,ELO1",
        help="stop when the SPRT of engine 1 against engine 2 accepts H0 (Elo = ELO0) or H1 (Elo = ELO1), "
        "e.g. 0,10 for a gain or =-10,0 (with the equals sign) for a simplification; games are scored in "
        "colour-swapped pairs",
    )
    test.add_argument("--sprt-alpha", type=float, default=0.05, metavar="P", help="false positive rate (0.05)")
    test.add_argument("--sprt-beta", type=float, default=0.05, metavar="P", help="false negative rate (0.05)")
    test.add_argument(
        "--sprt-model",
        choices=MODELS,
        default="normalized",
        help="the Elo of the bounds: normalized (default; fishtest's and fastchess's) or logistic",
    )
    test.add_argument(
        "--state",
        metavar="FILE",
        help="record each finished game in FILE and, when FILE exists, resume that match: its games count and "
        "only the others are played (same engines, clock, openings and seed; --games may grow)",
    )

    output = parser.add_argument_group("output")
    output.add_argument("--quiet", action="store_true", help="print only the final table")
    output.add_argument("--debug", action="store_true", help="log all UCI traffic and engine stderr to stderr")
    return parser


def _engine_spec(
    command: str, options: Sequence[str], shared: Sequence[str], name: str, directory: Optional[str]
) -> EngineSpec:
    argv = shlex.split(command)
    if not argv:
        raise ValueError("an engine command is empty")
    parsed = tuple(parse_option(text) for text in list(shared) + list(options))
    return EngineSpec(tuple(argv), parsed, name, directory)


def settings_from_args(args: argparse.Namespace) -> MatchSettings:
    """Turn parsed arguments into MatchSettings; ValueError with a readable message when they are wrong."""
    base_ms: Optional[int] = None
    increment_ms = 0
    if args.tc:
        base_ms, increment_ms = parse_clock(args.tc)
    time_control = SearchBudget(base_ms, increment_ms, args.movetime, args.depth, args.nodes)
    adjudication = Adjudication(
        args.resign_score,
        args.resign_moves,
        args.draw_score,
        args.draw_moves,
        args.draw_after,
        args.max_plies,
    )
    if args.seed is not None and not args.shuffle:
        raise ValueError("--seed only makes sense with --shuffle")
    sprt = None
    if args.sprt is not None:
        sprt = Sprt(*parse_bounds(args.sprt), alpha=args.sprt_alpha, beta=args.sprt_beta, model=args.sprt_model)
        if args.games % 2:
            raise ValueError(
                f"--games is the cap of an SPRT, which counts whole pairs: give an even number, not {args.games}"
            )
    return MatchSettings(
        engine1=_engine_spec(args.engine1, args.engine1_option, args.option, args.engine1_name, args.engine1_dir),
        engine2=_engine_spec(args.engine2, args.engine2_option, args.option, args.engine2_name, args.engine2_dir),
        time_control=time_control,
        games=args.games,
        variant=args.variant,
        chess960=args.chess960,
        openings_file=args.openings,
        shuffle_openings=args.shuffle,
        seed=args.seed,
        concurrency=args.concurrency,
        pgn_file=args.pgn,
        event=args.event,
        adjudication=adjudication,
        time_margin_ms=args.time_margin,
        hang_timeout_s=args.hang_timeout,
        debug=args.debug,
        quiet=args.quiet,
        sprt=sprt,
        state_file=args.state,
    )


def main(argv: Optional[List[str]] = None, board_factory: BoardFactory = engine_board) -> int:
    """Run the match; returns the exit status (0 done, 1 stopped by an error, 2 bad setup, 130 Ctrl-C or
    ``SIGTERM``)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        settings = settings_from_args(args)
    except ValueError as error:
        parser.error(str(error))
    _configure_logging(settings.debug)
    restore = _stop_on_signals()
    try:
        result = run_match(settings, board_factory)
    except (EngineStartError, ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        restore()
    if result.interrupted:
        return 130
    return 1 if result.error else 0


def _interrupt(signum: int, frame: Optional[FrameType]) -> None:
    raise KeyboardInterrupt


def _stop_on_signals() -> Callable[[], None]:
    """Make ``SIGTERM`` (``kill PID``) and ``SIGINT`` stop the match as Ctrl-C does: the games so far tabled,
    the engines killed, a state file ready to resume. A process started in the background of a script
    inherits an ignored SIGINT, and Python then leaves it ignored; ``kill -INT`` works here all the same.
    Returns the function that puts the previous handlers back (a no-op off the main thread, where no
    handler can be set)."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = {number: signal.signal(number, _interrupt) for number in (signal.SIGTERM, signal.SIGINT)}

    def restore() -> None:
        for number, handler in previous.items():
            signal.signal(number, handler)

    return restore


def _configure_logging(debug: bool) -> None:
    """The engine client logs the UCI traffic (DEBUG) and each line an engine writes to stderr (WARNING).

    ``--debug`` shows all of it on stderr; otherwise nothing, as the runner reports every engine failure in
    its own words (a crash's last stderr line is part of the reason in the progress line and the PGN).
    """
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.ERROR,
        format="%(message)s",
        stream=sys.stderr,
    )

"""``python -m bot.loopback``: run the loopback server on its own, e.g. to point any BOT API client at it.

    python -m bot.loopback --dialect pychess --port 8765 --token secret --challenges 3

It prints the URL, challenges the bot again each time a game ends (``--challenges`` games in all; a challenge
declined for later, with the key or a pychess sentence saying "later", is offered again), prints each game's
PGN, and serves until Ctrl-C.
"""

from __future__ import annotations

import argparse
import functools
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from typing import Optional

from bot import SERVER_KINDS
from bot.loopback import Game, LoopbackServer, RandomMoves
from engine.variants import VARIANTS


def build_parser() -> argparse.ArgumentParser:
    """Command-line options."""
    parser = argparse.ArgumentParser(
        prog="python -m bot.loopback",
        description="Run the loopback BOT API server on 127.0.0.1 (or --host) on its own, to point any BOT API "
                    "client at it. It prints the URL, challenges the bot again each time a game ends "
                    "(--challenges games in all; a challenge declined for later is offered again), prints "
                    "each game's PGN, and serves until Ctrl-C.",
        epilog="example: python -m bot.loopback --dialect pychess --port 8765 --token secret --challenges 3")
    parser.add_argument("--dialect", choices=SERVER_KINDS, default="pychess",
                        help="which server to imitate (default: %(default)s)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="the IPv4 address to listen on, e.g. 0.0.0.0 or a Docker bridge's gateway for "
                             "bots in containers (default: %(default)s)")
    parser.add_argument("--port", type=int, default=0, help="port on --host (default: any free port)")
    parser.add_argument("--token", default="loopback-token",
                        help="the Bearer token clients must send (default: %(default)s)")
    parser.add_argument("--bot-name", default=None,
                        help="the account name the server reports (default: SeirawanBot on pychess, SchessBot "
                             "on lichess)")
    parser.add_argument("--challenges", type=int, default=1,
                        help="games to offer one after the other, 0: none (default: %(default)s)")
    parser.add_argument("--variant", choices=VARIANTS, default="seirawan",
                        help="the variant of the games offered (default: %(default)s)")
    parser.add_argument("--chess960", action="store_true", help="offer the 960 version of the variant")
    parser.add_argument("--clock", default="3+2", help="minutes+seconds, e.g. 3+2 (default: %(default)s)")
    parser.add_argument("--arena", type=int, default=0, metavar="PAIRINGS",
                        help="lichess dialect: also create an arena (of --variant and --clock) that pairs the bot "
                             "PAIRINGS times once it joins (schess-bot --tournament ID), and print its id "
                             "(default: none)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the game ids and the random opponent: the same seed gives the same ids and "
                             "moves on every start (default: a fresh seed each start, printed)")
    return parser


def parse_minutes_clock(text: str) -> tuple[int, int]:
    """A Lichess clock in minutes+seconds, ``"3+2"`` -> ``(180, 2)`` in seconds; ValueError otherwise."""
    minutes, _, increment = text.partition("+")
    return int(float(minutes) * 60), int(increment or 0)


def settled(server: LoopbackServer, game_id: str) -> bool:
    """The challenge was declined or cancelled, or its game has ended."""
    status = server.challenges[game_id].status
    return status != "created" and (status != "accepted" or server.games[game_id].over)


def offer_in_turn(server: LoopbackServer, count: int, offer: Callable[[int], str], *,
                  retry_after_s: float = 1.0, say: Callable[[str], None] = print) -> None:
    """Offer ``count`` challenges one after the other: ``offer(n)`` makes the n-th (from 0) and returns its id,
    and each is settled (declined, cancelled, or its game over) before the next. One declined for later (the
    key on Lichess, a sentence saying "later" on pychess.org) is offered again after ``retry_after_s``: the bot
    is still busy with the last game."""
    offered = 0
    while offered < count:
        game_id = offer(offered)
        say(f"challenge {game_id} offered ({offered + 1} of {count})")
        server.wait_for(functools.partial(settled, server, game_id), 10**9, f"game {game_id}")
        answer = server.answer(game_id)
        if answer is not None and answer.asks_to_come_back:
            say(f"challenge {game_id} declined for later ({answer.reason}): offered again in {retry_after_s:g} s")
            time.sleep(retry_after_s)
            continue
        offered += 1


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the server until Ctrl-C or until all offered games have ended."""
    args = build_parser().parse_args(argv)
    if args.arena > 0 and args.dialect != "lichess":
        print("error: --arena needs --dialect lichess (pychess.org lets no BOT into tournaments)", file=sys.stderr)
        return 2
    try:
        clock = parse_minutes_clock(args.clock)
    except ValueError:
        print(f"error: --clock {args.clock!r} is not minutes+seconds", file=sys.stderr)
        return 2

    # a fresh seed by default: the same ids on every start would be games a bot's state file says are over
    seed = args.seed if args.seed is not None else secrets.randbits(32)

    def finished(game: Game) -> None:
        print(f"game over: {game.describe()}\n{game.pgn()}", flush=True)

    def say(line: str) -> None:
        print(line, flush=True)

    with LoopbackServer(
        dialect=args.dialect, token=args.token, bot_name=args.bot_name, host=args.host, port=args.port,
        on_game_end=finished, seed=seed,
    ) as server:
        print(f"loopback {args.dialect} server on {server.url} as {server.bot.name}, token {args.token!r}, "
              f"seed {seed} (--seed {seed} gives the same game ids and moves)", flush=True)
        if args.arena > 0:
            arena = server.create_tournament(clock=clock, variant=args.variant, pairings=args.arena,
                                             opponent=lambda number: RandomMoves(seed + 1000 + number))
            print(f"arena {arena} created: it pairs the bot {args.arena} times once it joins "
                  f"(schess-bot --tournament {arena})", flush=True)
        try:
            offer_in_turn(server, args.challenges, lambda n: server.challenge(
                variant=args.variant, chess960=args.chess960, clock=clock, opponent=RandomMoves(seed + n)), say=say)
            print("all challenges answered; serving until Ctrl-C", flush=True)
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print("stopped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What each kind of server does, as data: one frozen :class:`Dialect` per server kind.

The rest of the bot reads a capability (``server.dialect.draw_offers``) instead of comparing server names, so
a third server, or a change on one, is one object here (docs/server-api.md says where each fact comes from).
The names ``"lichess"`` and ``"pychess"`` are ``bot.ServerKind`` (the root package, which every layer reads);
they appear only there, in this package, in the configuration's ``server.dialect`` key and in the loopback
server.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from bot import ServerKind


@dataclass(frozen=True)
class Dialect:
    """One server kind's behaviour, field by field."""

    name: ServerKind
    #: where the final result of a game is read when its stream did not say: Lichess's game export
    #: (``GET /game/export/{id}``) or pychess's public game page (``GET /{id}``)
    result_source: Literal["game export", "game page"]
    #: a final ``gameState`` on the game stream is the end of the game (Lichess); pychess sends ``gameEnd``
    final_state_ends_game: bool
    #: after a reconnect the game stream replays states we have seen (pychess), so an older state is news of
    #: nothing and a ``gameState`` that says "started" may still be stale
    replays_on_reconnect: bool
    #: a move can carry a draw offer, and draw offers can be answered (Lichess ``offeringDraw``, ``/draw``)
    draw_offers: bool
    #: takeback offers exist and can be answered (``/takeback``)
    takebacks: bool
    #: a victory can be claimed when the opponent left (``/claim-victory``)
    claim_victory: bool
    #: the bot can challenge online bots (``GET /api/bot/online``, ``POST /api/challenge/{user}``)
    challenges_bots: bool
    #: a BOT account can join arenas and Swiss tournaments that allow bots (Lichess since 2025; pychess.org
    #: lets no BOT into its tournaments)
    bot_tournaments: bool
    #: a decline's reason is shown to the challenger as free text (pychess), not as one of the API's keys
    decline_as_free_text: bool
    #: the chat rooms people read (pychess shows the player room to everyone; Lichess's bots speak to
    #: spectators when the player room is the opponent's)
    chat_rooms: tuple[Literal["player", "spectator"], ...]
    #: milliseconds in one unit of a ``gameState``'s ``winc``/``binc`` (pychess: seconds; Lichess: ms)
    increment_unit_ms: int
    #: milliseconds in one unit of ``gameFull.createdAt`` (pychess: seconds; Lichess: ms)
    created_at_unit_ms: int
    #: players are known by name only (pychess has no user ids in its game lines)
    players_by_name: bool
    #: the event stream takes our variants in a capabilities header (pychess)
    capabilities_header: bool
    #: the server answers an unknown token with 403 rather than 401 (pychess)
    rejects_token_with_403: bool
    #: the server may flag us without a word on the stream, and answers a move into a finished game with 200
    #: and ignores it (pychess): the bot counts our clock down itself
    flags_silently: bool
    #: a BOT's resignation (ours or the opponent's) survives a server restart; pychess keeps it in memory only
    #: and restores the game as live, so every game a BOT ended lately is looked up again after a restart
    keeps_bot_resignations: bool
    #: the server's record of a running game that it keeps current, read to learn whether a move whose answer
    #: was lost landed (pychess's game page); None where the record lags (Lichess delays its export of an
    #: ongoing game by 3 to 60 s): there only the game stream can say
    live_record: Literal["game page", "game export"] | None
    #: a move sent out of turn or into a finished game is refused (Lichess: HTTP 400) and does no harm, so a
    #: move whose first send may have landed is simply sent again; pychess answers 200 and plays it, so a move
    #: sent again after the opponent's reply lands in the new position, and an illegal one loses the game
    refuses_moves_out_of_turn: bool
    #: where an operator gets a token this server accepts; ``{url}`` is the configured server URL
    token_hint: str
    #: the public server of this kind (``schess-bot init --server``)
    home_url: str
    #: the variants that server offers a bot, in our names (Lichess has no S-chess)
    bot_variants: tuple[str, ...]
    #: variants the server has no games in at all, so a config listing one is a mistake refused at start-up
    #: (Lichess has no S-House; its S-chess names are still accepted, for the loopback server's Lichess dialect)
    missing_variants: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.name

    @property
    def has_game_page(self) -> bool:
        """The game's public page (``GET /{id}``) holds its result, status and every ply (pychess)."""
        return self.result_source == "game page"

    @property
    def has_game_export(self) -> bool:
        """The game export (``GET /game/export/{id}``) holds its result and moves (Lichess)."""
        return self.result_source == "game export"

    def token_help(self, url: str) -> str:
        """Where a token for the server at ``url`` comes from; a server on this machine is a test server
        (the loopback server), whose token is the one it was started with."""
        if is_local(url):
            return LOCAL_TOKEN_HINT
        return self.token_hint.format(url=url.rstrip("/"))

    def refuses_token(self, status: int | None) -> bool:
        """An answer with ``status`` to a request that needs the token says the token is refused."""
        return status == 401 or (status == 403 and self.rejects_token_with_403)

    def variants_missing(self, names: tuple[str, ...]) -> list[str]:
        """The names in ``names`` (our variant names) that this server has no games in, in their order."""
        return [name for name in names if name in self.missing_variants]


#: where the token of a server on this machine comes from (``python -m bot.loopback`` prints its own)
LOCAL_TOKEN_HINT = ("a server on this machine takes the token it was started with (python -m bot.loopback prints "
                    "it in its first line, --token sets it)")


def is_local(url: str) -> bool:
    """``url`` names this machine: ``localhost`` or a loopback address (127.0.0.1, ::1)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


LICHESS = Dialect(
    name="lichess", result_source="game export", final_state_ends_game=True, replays_on_reconnect=False,
    draw_offers=True, takebacks=True, claim_victory=True, challenges_bots=True, bot_tournaments=True,
    decline_as_free_text=False,
    chat_rooms=("spectator",), increment_unit_ms=1, created_at_unit_ms=1, players_by_name=False,
    capabilities_header=False, rejects_token_with_403=False, flags_silently=False, keeps_bot_resignations=True,
    live_record=None, refuses_moves_out_of_turn=True,
    token_hint="create a personal token with the scope bot:play at https://lichess.org/account/oauth/token",
    home_url="https://lichess.org", bot_variants=("chess", "chess960"), missing_variants=("shouse",),
)
PYCHESS = Dialect(
    name="pychess", result_source="game page", final_state_ends_game=False, replays_on_reconnect=True,
    draw_offers=False, takebacks=False, claim_victory=False, challenges_bots=False, bot_tournaments=False,
    decline_as_free_text=True,
    chat_rooms=("player",), increment_unit_ms=1000, created_at_unit_ms=1000, players_by_name=True,
    capabilities_header=True, rejects_token_with_403=True, flags_silently=True, keeps_bot_resignations=False,
    live_record="game page", refuses_moves_out_of_turn=False,
    token_hint=("pychess.org issues its own BOT tokens: sign in with the bot's account and create one at "
                "{url}/account/bot (a Lichess token is not accepted)"),
    home_url="https://www.pychess.org", bot_variants=("seirawan", "seirawan960", "chess"),
)
DIALECTS: dict[str, Dialect] = {dialect.name: dialect for dialect in (LICHESS, PYCHESS)}


def dialect_named(name: str) -> Dialect:
    """The dialect called ``name`` (``lichess`` or ``pychess``); ValueError naming the choices otherwise."""
    try:
        return DIALECTS[name]
    except KeyError:
        raise ValueError(f"unknown server dialect {name!r}: expected one of {', '.join(DIALECTS)}") from None


def dialect_for_rejection(status: int) -> Dialect:
    """The dialect a token rejection's status suggests when the account was never read (403: pychess)."""
    return next((dialect for dialect in DIALECTS.values() if dialect.rejects_token_with_403 == (status == 403)),
                LICHESS)


def guess_dialect(host: str, account_keys: set[str]) -> Dialect:
    """``server.dialect: auto``: lichess.org is Lichess, a host with pychess in its name is pychess; otherwise
    a Lichess-style account (perfs, createdAt, url, seenAt) is Lichess, pychess's sparse one is pychess."""
    host = host.lower()
    if host == "lichess.org" or host.endswith(".lichess.org") or host.endswith("lichess.dev"):
        return LICHESS
    if "pychess" in host:
        return PYCHESS
    if account_keys & {"perfs", "createdAt", "url", "seenAt"}:
        return LICHESS
    return PYCHESS

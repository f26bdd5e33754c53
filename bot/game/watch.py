"""Bounded waits: a game the server stops telling us about. pychess may end a game without a word (a BOT's
resignation), a game stream may fail for good after a restart (HTTP 200 and a broken body, then 409), and the
result of a pychess game is only on its public page. This part reads the page when needed, hands the worker
the page's position to play from while the stream is down, and decides when to stop waiting: only when
neither the stream nor the page answers, and never before the clocks could have run out. What it learns (the
server's record, the game's end) comes back to the worker as verdicts."""

from __future__ import annotations

import logging
from typing import Literal

from bot.config import PRODUCTION_TIMING, Timing
from bot.engines.notation import parse_move
from bot.game.context import GameContext, Phase
from bot.game.verdicts import End, PlayFromPage, ServerEnded, Verdicts
from bot.wire.errors import ServerError
from bot.wire.gameexport import GameExport
from bot.wire.gamepage import GamePage

log = logging.getLogger("bot.game")


class ServerWatch:
    """Watches one game for silence and reads pychess's game page; ``timing``: how long it waits for what
    (:class:`~bot.config.Timing`). pychess: while the opponent is to move and the stream brings nothing but pings,
    the game page is read (a BOT's resignation never reaches us as an event): a silent resignation right after
    our move frees the slot in about 10 s; an opponent who thinks long costs a page read a minute."""

    def __init__(self, game: GameContext, timing: Timing = PRODUCTION_TIMING) -> None:
        self.game = game
        self.timing = timing
        self.trouble_since: float | None = None  # the game stream has been failing since
        self.trouble = ""
        self.stalled_since: float | None = None
        self.next_page_check_at = 0.0
        self.last_news_at = game.monotonic()
        self.quiet_check_at = game.monotonic()  # the last page read while quiet
        self.quiet_gap_s = timing.quiet_first_check_s  # and the wait after it before the next one
        self.claim_at: float | None = None  # when we may claim the win over an opponent who left
        self.page_alive_at: float | None = None  # the game page last answered

    # ---- what the stream says ----

    def news(self) -> None:
        """A game line (``gameFull``/``gameState``) arrived: the stream works."""
        self.trouble_since = None
        self.last_news_at = self.game.monotonic()
        self.quiet_gap_s = self.timing.quiet_first_check_s

    def stream_lost(self, reason: str) -> None:
        if self.trouble_since is None:
            self.trouble_since = self.game.monotonic()
        self.trouble = reason

    # ---- an opponent who left (Lichess ``opponentGone``) ----

    def opponent_gone(self, gone: bool, claim_in_s: int | None) -> None:
        """Lichess says the opponent left (and in how many seconds we may claim the win), or came back."""
        game = self.game
        if not gone:
            if self.claim_at is not None:
                log.info("%s: the opponent is back; no claim", game.label)
            self.claim_at = None
            return
        self.claim_at = game.monotonic() + max(0, claim_in_s or 0)
        log.info("%s: the opponent left the game; claiming the win in %s s unless they come back", game.label,
                 claim_in_s if claim_in_s is not None else 0)

    def claim_if_due(self, now: float) -> None:
        """Claim the win once the server allows it, as a player would; not when we are mating anyway."""
        game = self.game
        if self.claim_at is None or now < self.claim_at or game.over:
            return
        self.claim_at = None
        last = game.last_result
        mate = last.score.mate if last is not None and last.score is not None else None
        if mate is not None and mate > 0 and game.our_turn():
            log.info("%s: the opponent left, but we mate in %d: no claim needed", game.label, mate)
            return
        try:
            if game.server.claim_victory(game.game_id):
                log.info("%s: the opponent left; claimed the win", game.label)
        except ServerError as error:
            log.warning("%s: could not claim the win (%s)", game.label, error)

    # ---- stalls ----

    def stall_reason(self, now: float) -> str | None:
        """Why the game looks stuck (None when it does not): the game stream has been failing for longer
        than ``stream_timeout_s``, the opponent's clock ran out a while ago and nothing came, or the position
        is final and the server has not ended the game."""
        game = self.game
        if self.stream_failing(now):
            return f"the game stream is failing ({self.trouble})"
        if game.position is None or game.state is None or game.full is None or game.correspondence:
            return None
        quiet_s = now - game.state_received_at
        if game.position.board.is_game_over(claim_draw=True) and quiet_s >= self.timing.flag_grace_s:
            return "the position is final but the game has not ended"
        if game.full.clock.kind != "clock" or game.position.ply < 2 or game.our_turn():
            return None  # before both first moves, the clocks do not run (the worker aborts such games)
        their_ms = game.state.btime_ms if game.we_are_white else game.state.wtime_ms
        overdue_s = quiet_s - their_ms / 1000
        if overdue_s >= self.timing.flag_grace_s:
            return f"{game.opponent_name}'s clock ran out {overdue_s:.0f} s ago and no news came"
        return None

    def stream_failing(self, now: float) -> bool:
        """The game stream has been failing for longer than ``timing.stream_trouble_s`` (or
        ``stream_timeout_s``)."""
        limit = min(self.timing.stream_trouble_s, self.game.settings.server.stream_timeout_s)
        return self.trouble_since is not None and now - self.trouble_since >= limit

    def clocks_run_out_at(self) -> float | None:
        """When both clocks could have run out (and the server flagged), on the monotonic clock: before that,
        a game is never given up. None for a game without a running clock."""
        game = self.game
        if game.full is None or game.full.clock.kind != "clock" or game.state is None or game.position is None \
                or game.position.ply < 2:
            return None
        longest_ms = max(game.state.wtime_ms, game.state.btime_ms)
        return game.state_received_at + longest_ms / 1000 + self.timing.server_flag_delay_s

    def deadlines(self) -> list[float]:
        """When :meth:`check` or :meth:`claim_if_due` next has something to decide (some may have passed:
        the worker looks again at those only after news)."""
        game = self.game
        times: list[float] = []
        if self.claim_at is not None:
            times.append(self.claim_at)
        if self.trouble_since is not None:
            times.append(self.trouble_since
                         + min(self.timing.stream_trouble_s, game.settings.server.stream_timeout_s))
        if self.stalled_since is not None:
            if game.dialect.has_game_page:
                times.append(self.next_page_check_at)
            alive_at = max(self.stalled_since, self.page_alive_at or self.stalled_since)
            times.append(max(alive_at + game.settings.time.give_up_after_s, self.clocks_run_out_at() or 0.0))
        if game.position is None or game.state is None or game.full is None or game.correspondence:
            return times
        # a final position the server has not ended
        times.append(game.state_received_at + self.timing.flag_grace_s)
        if game.full.clock.kind == "clock" and not game.our_turn():
            their_ms = game.state.btime_ms if game.we_are_white else game.state.wtime_ms
            times.append(game.state_received_at + their_ms / 1000 + self.timing.flag_grace_s)
        if game.dialect.has_game_page:
            times.append(self.quiet_check_due_at())
        return times

    def quiet_check_due_at(self) -> float:
        """When the game page is next read while the game is quiet (see ``timing.quiet_first_check_s``)."""
        return max(self.last_news_at + self.timing.quiet_first_check_s, self.quiet_check_at + self.quiet_gap_s)

    def check(self, now: float, answered: tuple[str, ...] | None) -> Verdicts:
        """A stuck game is looked up on the game page (pychess) every ``timing.page_check_interval_s`` (every
        ``timing.page_poll_s`` while the game stream is failing: the worker then plays from the page) and ended
        when the page says it ended. The worker gives up on it only when neither the stream nor the page has
        answered for ``time.give_up_after_s`` and the clocks could have run out. While the opponent thinks and
        only pings come, the page is also read (``timing.quiet_first_check_s`` after the last news, then at
        doubling intervals up to ``timing.quiet_page_check_s``). ``answered``: the move list our
        last move answered (our move sent, not yet in the stream). Returns the page to play from, if any, or
        the game's end."""
        game = self.game
        reason = self.stall_reason(now)
        if reason is None:
            if self.stalled_since is not None:
                log.info("%s: the game is moving again", game.label)
            self.stalled_since = None
            return self._peek_while_quiet(now, answered)
        if self.stalled_since is None:
            self.stalled_since = now
            self.next_page_check_at = now
            log.info("%s: %s; %s", game.label, reason,
                     "checking the game page" if game.dialect.has_game_page else "waiting for news")
        verdicts: Verdicts = ()
        if game.dialect.has_game_page and now >= self.next_page_check_at:
            from_page = self.stream_failing(now)
            self.next_page_check_at = now + (self.timing.page_poll_s if from_page
                                             else self.timing.page_check_interval_s)
            page = self.read_page()
            if page is not None and page.finished:
                return page_record(page), End(f"over on the server ({reason})")
            if page is not None and from_page:
                verdicts = (PlayFromPage(page),)
        limit = game.settings.time.give_up_after_s
        alive_at = max(self.stalled_since, self.page_alive_at or self.stalled_since)
        clocks_out_at = self.clocks_run_out_at()
        if now - alive_at >= limit and (clocks_out_at is None or now >= clocks_out_at):
            log.warning("%s: giving up on the game: neither the game stream nor the game page answered for %.0f s "
                        "(%s); it gets no more moves, resignation or abort from us", game.label, now - alive_at,
                        reason)
            return (End(f"gave up: {reason}", Phase.GAVE_UP),)
        return verdicts

    def _peek_while_quiet(self, now: float, answered: tuple[str, ...] | None) -> Verdicts:
        """pychess, while we wait for the server (the opponent to move, or the echo of our move: a move sent
        into a game that ended meanwhile, e.g. by a BOT's resignation, is answered 200 and never echoed)."""
        game = self.game
        if not game.dialect.has_game_page or game.position is None or game.state is None or game.correspondence:
            return ()
        if game.our_turn() and answered != game.state.moves:
            return ()
        if now < self.quiet_check_due_at():
            return ()
        self.quiet_check_at = now
        self.quiet_gap_s = min(2 * self.quiet_gap_s, self.timing.quiet_page_check_s)
        record = self.record_from_page()
        return (record, End("over on the server")) if record else ()

    # ---- the game page ----

    def read_page(self) -> GamePage | None:
        """pychess: the game page, or None when it cannot be read (or on Lichess). An answer is a sign of life."""
        game = self.game
        if not game.dialect.has_game_page:
            return None
        try:
            page = game.server.fetch_game_page(game.game_id)
        except ServerError as error:
            log.warning("%s: could not read the game page (%s)", game.label, error)
            return None
        self.page_alive_at = game.monotonic()
        return page

    def record_from_page(self) -> ServerEnded | Literal[False] | None:
        """pychess: read the game page. Its record when it says the game is over (the outcome and any plies we
        missed), False when the game is still running, None when it cannot be read."""
        page = self.read_page()
        if page is None:
            return None
        if not page.finished:
            return False
        return page_record(page)

    def record_from_server(self) -> ServerEnded | Literal[False] | None:
        """The server's own account of how the game ended: pychess's game page, Lichess's game export. Its
        record when it says the game is over (outcome and missing plies), False when it is running, None when it
        cannot be had."""
        if self.game.dialect.has_game_page:
            return self.record_from_page()
        if self.game.dialect.has_game_export:
            return self.record_from_export()
        return None

    def record_from_export(self) -> ServerEnded | Literal[False] | None:
        """Lichess: read the game's export (``/game/export/{id}``), as :meth:`record_from_page` reads the page."""
        game = self.game
        try:
            export = game.server.fetch_game_export(game.game_id)
        except ServerError as error:
            log.warning("%s: could not read the game export (%s)", game.label, error)
            return None
        if not export.finished:
            return False
        moves = export_moves(game, export)
        return ServerEnded("game export", export.outcome, moves, export.sans[-1] if moves else "")

    def already_over_on_server(self) -> Verdicts:
        """pychess, before a resignation or an abort: is the game already over there? A BOT's resignation
        or a server restart can end a game without telling us, and a late resignation would change its
        result. When the page cannot be read and the stream is failing too, nothing is sent. Returns the game's
        end (nothing: the resignation or abort may go out)."""
        game = self.game
        record = self.record_from_page()
        if record:
            log.info("%s: the game is already over on the server; sending nothing", game.label)
            return record, End("over on the server")
        if record is None and game.dialect.has_game_page and self.trouble_since is not None:
            log.warning("%s: the game page cannot be read and the stream is failing; sending nothing", game.label)
            return (End("left: the game's state is unknown"),)
        return ()


def page_record(page: GamePage) -> ServerEnded:
    """A finished game's page: its outcome, and every ply (the move that ended the game may be one the stream
    never brought)."""
    return ServerEnded("game page", page.outcome, page.moves, page.moves[-1] if page.moves else "")


def export_moves(game: GameContext, export: GameExport) -> tuple[str, ...] | None:
    """The export lists every move in SAN: the server's move list with the ones the stream never brought
    (None: it has none, or they do not fit the stream's)."""
    position = game.position
    if position is None or len(export.sans) <= position.ply:
        return None
    board = position.start.copy()
    moves: list[str] = []
    try:
        for san in export.sans:
            moves.append(board.push_san(san).uci())
    except ValueError as error:
        log.warning("%s: the game export's moves do not replay (%s); keeping the stream's", game.label,
                    error)
        return None
    if moves[:position.ply] != position.engine_moves():
        log.warning("%s: the game export's moves differ from the stream's; keeping the stream's",
                    game.label)
        return None
    return (*position.server_moves, *moves[position.ply:])


def withheld_final_move(game: GameContext, sent: tuple[tuple[str, ...], str] | None) -> list[str] | None:
    """pychess may end a game without sending the move that ended it: when the game ends right after our
    move (``sent``: the moves before it and our move) and that move ends the game on our board (mate,
    stalemate, a draw by rule), it was the last one: the moves with it (None when it was not). Used when the
    game page cannot tell."""
    if game.position is None or sent is None or game.state is None:
        return None
    before, uci = sent
    if tuple(game.position.server_moves) != before or game.state.moves != before:
        return None
    board = game.position.board.copy()
    move = parse_move(board, uci)
    if move is None:
        return None
    board.push(move)
    if not board.is_game_over(claim_draw=True):
        return None
    return [*before, uci]


"""Bounded waits: a game the server stops telling us about. pychess may end a game without a word (a BOT's
resignation), a game stream may fail for good after a restart (HTTP 200 and a broken body, then 409), and the
result of a pychess game is only on its public page. This part reads the page when needed, hands the worker
the page's position to play from while the stream is down, and decides when to stop waiting: only when
neither the stream nor the page answers, and never before the clocks could have run out."""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.engines.notation import parse_move
from bot.game.context import GameContext, Phase
from bot.game.position import ServerMoveError
from bot.wire.errors import ServerError
from bot.wire.gameexport import GameExport
from bot.wire.gamepage import GamePage

log = logging.getLogger("bot.game")

#: How often a stalled game (stream failing, opponent's clock long gone) is looked up on the game page.
PAGE_CHECK_INTERVAL_S = 20.0
#: pychess: while the opponent is to move and the stream brings nothing but pings, look at the game page
#: this often (a BOT's resignation may never reach us as an event).
QUIET_PAGE_CHECK_S = 60.0
#: An opponent whose clock ran out this long ago, with no news, means the stream has stopped telling us.
FLAG_GRACE_S = 10.0
#: pychess: a game stream failing this long (or ``server.stream_timeout_s`` if shorter) is replaced by the game
#: page: its position is played from, and the page is read every ``PAGE_POLL_S`` until the stream is back.
STREAM_TROUBLE_S = 5.0
PAGE_POLL_S = 2.0
#: The server flags a player some time after the clock runs out (pychess.org: about 20 s); a game is never
#: given up before the longer clock plus this could have run out.
SERVER_FLAG_DELAY_S = 30.0


class ServerWatch:
    """Watches one game for silence and reads pychess's game page."""

    def __init__(self, game: GameContext) -> None:
        self.game = game
        self.trouble_since: float | None = None  # the game stream has been failing since
        self.trouble = ""
        self.stalled_since: float | None = None
        self.next_page_check_at = 0.0
        self.last_news_at = game.monotonic()
        self.quiet_check_at = game.monotonic()
        self.claim_at: float | None = None  # when we may claim the win over an opponent who left
        self.page_alive_at: float | None = None  # the game page last answered
        #: the worker's handler for a running game's page while the stream is failing (to play from it)
        self.play_from: Callable[[GamePage], None] | None = None
        #: the move list our last move answered (the worker's): our move sent, not yet in the stream
        self.answered: Callable[[], tuple[str, ...] | None] = lambda: None

    # ---- what the stream says ----

    def news(self) -> None:
        """A game line (``gameFull``/``gameState``) arrived: the stream works."""
        self.trouble_since = None
        self.last_news_at = self.game.monotonic()

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
        if game.position.board.is_game_over(claim_draw=True) and quiet_s > FLAG_GRACE_S:
            return "the position is final but the game has not ended"
        if game.full.clock.kind != "clock" or game.position.ply < 2 or game.our_turn():
            return None  # before both first moves, the clocks do not run (the worker aborts such games)
        their_ms = game.state.btime_ms if game.we_are_white else game.state.wtime_ms
        overdue_s = quiet_s - their_ms / 1000
        if overdue_s > FLAG_GRACE_S:
            return f"{game.opponent_name}'s clock ran out {overdue_s:.0f} s ago and no news came"
        return None

    def stream_failing(self, now: float) -> bool:
        """The game stream has been failing for longer than ``STREAM_TROUBLE_S`` (or ``stream_timeout_s``)."""
        limit = min(STREAM_TROUBLE_S, self.game.settings.server.stream_timeout_s)
        return self.trouble_since is not None and now - self.trouble_since >= limit

    def clocks_run_out_at(self) -> float | None:
        """When both clocks could have run out (and the server flagged), on the monotonic clock: before that,
        a game is never given up. None for a game without a running clock."""
        game = self.game
        if game.full is None or game.full.clock.kind != "clock" or game.state is None or game.position is None \
                or game.position.ply < 2:
            return None
        longest_ms = max(game.state.wtime_ms, game.state.btime_ms)
        return game.state_received_at + longest_ms / 1000 + SERVER_FLAG_DELAY_S

    def check(self, now: float) -> None:
        """A stuck game is looked up on the game page (pychess) every ``PAGE_CHECK_INTERVAL_S`` (every
        ``PAGE_POLL_S`` while the game stream is failing: the worker then plays from the page) and ended when
        the page says it ended. The worker gives up on it only when neither the stream nor the page has
        answered for ``time.give_up_after_s`` and the clocks could have run out. While the opponent thinks and
        only pings come, the page is also read every ``QUIET_PAGE_CHECK_S``."""
        game = self.game
        reason = self.stall_reason(now)
        if reason is None:
            if self.stalled_since is not None:
                log.info("%s: the game is moving again", game.label)
            self.stalled_since = None
            self._peek_while_quiet(now)
            return
        if self.stalled_since is None:
            self.stalled_since = now
            self.next_page_check_at = now
            log.info("%s: %s; %s", game.label, reason,
                     "checking the game page" if game.dialect.has_game_page else "waiting for news")
        if game.dialect.has_game_page and now >= self.next_page_check_at:
            from_page = self.stream_failing(now) and self.play_from is not None
            self.next_page_check_at = now + (PAGE_POLL_S if from_page else PAGE_CHECK_INTERVAL_S)
            page = self.read_page()
            if page is not None and page.finished:
                self.settle(page)
                game.end_game(f"over on the server ({reason})")
                return
            if page is not None and from_page and self.play_from is not None:
                self.play_from(page)
                if game.over:
                    return
        limit = game.settings.time.give_up_after_s
        alive_at = max(self.stalled_since, self.page_alive_at or self.stalled_since)
        clocks_out_at = self.clocks_run_out_at()
        if now - alive_at >= limit and (clocks_out_at is None or now >= clocks_out_at):
            log.warning("%s: giving up on the game: neither the game stream nor the game page answered for %.0f s "
                        "(%s); it gets no more moves, resignation or abort from us", game.label, now - alive_at,
                        reason)
            game.end_game(f"gave up: {reason}", Phase.GAVE_UP)

    def _peek_while_quiet(self, now: float) -> None:
        """pychess, while we wait for the server (the opponent to move, or the echo of our move: a move sent
        into a game that ended meanwhile, e.g. by a BOT's resignation, is answered 200 and never echoed)."""
        game = self.game
        if not game.dialect.has_game_page or game.position is None or game.state is None or game.correspondence:
            return
        if game.our_turn() and self.answered() != game.state.moves:
            return
        if now - self.last_news_at < QUIET_PAGE_CHECK_S or now - self.quiet_check_at < QUIET_PAGE_CHECK_S:
            return
        self.quiet_check_at = now
        if self.settle_from_page():
            game.end_game("over on the server")

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

    def settle(self, page: GamePage) -> None:
        """A finished game's page: its outcome, and any plies we missed."""
        game = self.game
        self._take_page_moves(page)
        game.outcome = page.outcome
        log.info("%s: the game page says %s (%s)", game.label, page.outcome.result, page.outcome.reason)

    def settle_from_page(self) -> bool | None:
        """pychess: read the game page. True when it says the game is over (the outcome and any plies we
        missed are then taken from it), False when the game is still running, None when it cannot be read."""
        page = self.read_page()
        if page is None:
            return None
        if not page.finished:
            return False
        self.settle(page)
        return True

    def settle_from_server(self) -> bool | None:
        """The server's own account of how the game ended: pychess's game page, Lichess's game export. True
        when it says the game is over (outcome and missing plies taken), False when it is running, None when
        it cannot be had."""
        if self.game.dialect.has_game_page:
            return self.settle_from_page()
        if self.game.dialect.has_game_export:
            return self.settle_from_export()
        return None

    def settle_from_export(self) -> bool | None:
        """Lichess: read the game's export (``/game/export/{id}``), as :meth:`settle_from_page` reads the page."""
        game = self.game
        try:
            export = game.server.fetch_game_export(game.game_id)
        except ServerError as error:
            log.warning("%s: could not read the game export (%s)", game.label, error)
            return None
        if not export.finished:
            return False
        self._take_export_moves(export)
        game.outcome = export.outcome
        log.info("%s: the game export says %s (%s)", game.label, export.outcome.result, export.outcome.reason)
        return True

    def _take_export_moves(self, export: GameExport) -> None:
        """The export lists every move in SAN: add the ones the stream never brought."""
        position = self.game.position
        if position is None or len(export.sans) <= position.ply:
            return
        board = position.start.copy()
        moves: list[str] = []
        try:
            for san in export.sans:
                moves.append(board.push_san(san).uci())
        except ValueError as error:
            log.warning("%s: the game export's moves do not replay (%s); keeping the stream's", self.game.label,
                        error)
            return
        if moves[:position.ply] != position.engine_moves():
            log.warning("%s: the game export's moves differ from the stream's; keeping the stream's",
                        self.game.label)
            return
        missing = len(moves) - position.ply
        try:
            position.update([*position.server_moves, *moves[position.ply:]])
        except ServerMoveError:
            return
        log.info("%s: the game export has %d more pl%s (last %s)", self.game.label, missing,
                 "y" if missing == 1 else "ies", export.sans[-1])

    def _take_page_moves(self, page: GamePage) -> None:
        """The page lists every ply: add the ones the stream never brought (the move that ended the game)."""
        position = self.game.position
        if position is None or tuple(position.server_moves) == page.moves:
            return
        missing = len(page.moves) - len(position.server_moves)
        try:
            position.update(list(page.moves))
        except ServerMoveError as error:
            log.warning("%s: the game page's moves do not replay (%s); keeping the stream's", self.game.label,
                        error)
            return
        if missing > 0:
            log.info("%s: the game page has %d more pl%s (last %s)", self.game.label, missing,
                     "y" if missing == 1 else "ies", page.moves[-1])

    def apply_withheld_final_move(self, sent: tuple[tuple[str, ...], str] | None) -> None:
        """pychess may end a game without sending the move that ended it: when the game ends right after our
        move (``sent``: the moves before it and our move) and that move ends the game on our board (mate,
        stalemate, a draw by rule), it was the last one. Used when the game page cannot tell."""
        game = self.game
        if game.position is None or sent is None or game.state is None:
            return
        before, uci = sent
        if tuple(game.position.server_moves) != before or game.state.moves != before:
            return
        board = game.position.board.copy()
        move = parse_move(board, uci)
        if move is None:
            return
        board.push(move)
        if not board.is_game_over(claim_draw=True):
            return
        try:
            game.position.update(list(before) + [uci])
        except ServerMoveError:
            return
        log.info("%s: the server ended the game without our last move %s; it ended the game", game.label, uci)

    def already_over_on_server(self) -> bool:
        """pychess, before a resignation or an abort: is the game already over there? A BOT's resignation
        or a server restart can end a game without telling us, and a late resignation would change its
        result. When the page cannot be read and the stream is failing too, nothing is sent."""
        game = self.game
        settled = self.settle_from_page()
        if settled:
            log.info("%s: the game is already over on the server; sending nothing", game.label)
            game.end_game("over on the server")
            return True
        if settled is None and game.dialect.has_game_page and self.trouble_since is not None:
            log.warning("%s: the game page cannot be read and the stream is failing; sending nothing", game.label)
            game.end_game("left: the game's state is unknown")
            return True
        return False

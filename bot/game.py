"""One game: stream it, rebuild the position, ask the engine, check the move, send it; chat commands, draw
and takeback answers, resign, abort, pondering, PGN. Runs in its own thread; the lobby starts one
:class:`GameWorker` per game id.

Correspondence (and unlimited) games are played in visits: the worker plays when it is our turn, waits
``correspondence.disconnect_after_s`` for a quick reply, then *parks* the game (closes the stream and the
engine) and reports ``GameRecord(parked=True)``; the lobby visits it again every
``correspondence.check_interval_s`` (and at once on ``gameStart``/``gameFinish``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from bot import __version__
from bot.chat import ChatContext, ChatLimiter, command_reply, parse_command
from bot.config import Settings
from bot.decisions import should_accept_draw, should_accept_takeback, should_offer_draw, should_resign
from bot.engines import EngineCrashed, EngineError, EngineTimeout, SearchResult
from bot.events import (
    Account,
    ChatLine,
    GameEnd,
    GameFull,
    GameState,
    KeepAlive,
    OpponentGone,
    UnknownEvent,
    Variant,
)
from bot.gamepage import GamePage
from bot.pgn import game_pgn, standard_headers, write_pgn
from bot.position import Position, ServerMoveError, fallback_move, parse_move
from bot.results import ABANDONED, Outcome, board_outcome, lichess_outcome, resignation, unknown
from bot.results import UNKNOWN as UNKNOWN_TERMINATION
from bot.server import Server, ServerError, StreamConnected, StreamFailed, StreamLost
from bot.timecontrol import SearchLimits, search_limits

log = logging.getLogger(__name__)

#: After the lobby hears gameFinish, how long to wait for the game stream's own end signal.
FINISH_GRACE_S = 10.0
#: How often a stalled game (stream failing, opponent's clock long gone) is looked up on the game page.
PAGE_CHECK_INTERVAL_S = 20.0
#: pychess: while the opponent is to move and the stream brings nothing but pings, look at the game page
#: this often (a BOT's resignation may never reach us as an event).
QUIET_PAGE_CHECK_S = 60.0
#: An opponent whose clock ran out this long ago, with no news, means the stream has stopped telling us.
FLAG_GRACE_S = 10.0


class Engine(Protocol):
    id_name: str

    def set_variant(self, variant: str, chess960: bool) -> None: ...
    def new_game(self) -> None: ...
    def search(self, fen: str, moves: Sequence[str], limits: Any) -> SearchResult: ...
    def close(self) -> None: ...


@runtime_checkable
class PonderingEngine(Protocol):
    """An engine that can think on the opponent's time (see :mod:`bot.engines`)."""

    @property
    def pondering(self) -> bool: ...
    def ponder(self, fen: str, moves: Sequence[str], limits: Any) -> None: ...
    def ponderhit(self, limits: Any) -> SearchResult: ...
    def stop_ponder(self) -> None: ...


@dataclass(frozen=True)
class GameRecord:
    """What the lobby learns when a game worker is done. ``parked``: a correspondence game left for now."""

    game_id: str
    result: str
    reason: str
    opponent: str = "?"
    pgn_path: Path | None = None
    parked: bool = False
    termination: str = ""
    gave_up: bool = False  # the worker stopped waiting for a game the server no longer told it about


def final_outcome(known: Outcome | None, end: GameEnd | None, board: Any, we_are_white: bool | None,
                  we_resigned: bool) -> Outcome:
    """How the game ended, from what we know for sure, in this order: an outcome already settled (the game
    page, or our own resignation), the server's final word (Lichess ``status``/``winner``), the final
    position itself (mate, stalemate, a draw by rule). Anything else is ``*``: never a guess."""
    if known is not None:
        return known
    if end is not None and end.status:
        return lichess_outcome(end.status, end.winner)
    if we_resigned and we_are_white is not None:
        return resignation(we_are_white)
    if board is not None:
        on_board = board_outcome(board)
        if on_board is not None:
            return on_board
    if end is not None and end.winner is not None:
        return Outcome("1-0" if end.winner == "white" else "0-1", UNKNOWN_TERMINATION, "game over")
    return unknown("the server did not say how the game ended")


class GameWorker:
    """Plays one game to its end in a thread of its own."""

    def __init__(self, game_id: str, server: Server, settings: Settings, account: Account, engine: Engine,
                 *, on_done: Callable[[GameRecord], None] | None = None,
                 monotonic: Callable[[], float] = time.monotonic,
                 challenges_waiting: Callable[[], int] = lambda: 0, revisit: bool = False,
                 chess960: bool = False) -> None:
        self.game_id = game_id
        self.server = server
        self.settings = settings
        self.account = account
        self.engine = engine
        self.on_done = on_done
        self.monotonic = monotonic
        self.label = f"game {game_id}"
        self.thread = threading.Thread(target=self.run, name=self.label, daemon=True)
        self.full: GameFull | None = None
        self.position: Position | None = None
        self.we_are_white: bool | None = None
        self.state: GameState | None = None
        self.state_received_at = 0.0
        self.answered: tuple[str, ...] | None = None
        self.scores: list[int | None] = []
        self.end: GameEnd | None = None
        self.end_reason = ""
        self.outcome: Outcome | None = None  # how the game ended, once known for sure
        # bounded waits: a failing game stream, an opponent whose clock ran out with no news
        self.stream_trouble_since: float | None = None
        self.stream_trouble = ""
        self.stalled_since: float | None = None
        self.next_page_check_at = 0.0
        self.last_news_at = monotonic()
        self.quiet_page_check_at = monotonic()
        self.gave_up = False
        self.over = False
        self.we_resigned = False
        self.greeted = False
        self.engine_ready = False
        self.position_changed_at = monotonic()
        self.draw_answered_at_ply = -1
        self.retry_play_at: float | None = None
        self.pending: deque[Any] = deque()
        self._stop_mode: str | None = None
        self._finished_by_server_at: float | None = None
        self._stream: Any = None
        self.record: GameRecord | None = None
        self.challenges_waiting = challenges_waiting
        self.chat_limiter = ChatLimiter(settings.chat.cooldown_s, monotonic)
        self.last_result: SearchResult | None = None
        self.takebacks_granted = 0
        self.takeback_answered: tuple[str, ...] | None = None
        self.ponder_line: list[str] | None = None  # engine moves the running ponder search assumed
        self.ponder_note = ""
        # correspondence: a revisit (the lobby's periodic check) parks at once when it is not our turn
        self.revisit = revisit
        self.park_at: float | None = None
        self.parked = False
        self.moved_this_visit = False
        self.park_soon = False  # the bot is stopping: no waiting for a quick reply
        self.chess960_hint = chess960  # from gameStart: pychess's gameFull has no chess960 flag
        self.sent: tuple[tuple[str, ...], str] | None = None  # (moves before, our move) last sent

    # ---- control from the lobby ----

    def start(self) -> None:
        self.thread.start()

    def request_stop(self, mode: str) -> None:
        """``abort``: abort the game (resign when it can no longer be aborted). ``finish``: play on.
        Either way a correspondence game is parked as soon as the opponent is to move."""
        if mode == "abort":
            self._stop_mode = "abort"
        self.park_soon = True

    def server_finished(self) -> None:
        """The event stream said gameFinish; end soon even if the game stream stays silent."""
        if self._finished_by_server_at is None:
            self._finished_by_server_at = self.monotonic()

    @property
    def opponent_name(self) -> str:
        if self.full is None or self.we_are_white is None:
            return "?"
        return (self.full.black if self.we_are_white else self.full.white).name

    # ---- the loop ----

    def run(self) -> None:
        try:
            self._stream = self.server.open_game_stream(self.game_id)
            while not self.over:
                if self._stop_mode == "abort":
                    if self.correspondence:  # days per move: leave it for the next run, never resign it
                        self.parked, self.end_reason = True, "parked"
                    else:
                        self._abort_or_resign("the bot is shutting down")
                    break
                item = self.pending.popleft() if self.pending else self._stream.get(timeout=0.5)
                if item is None:
                    self._on_idle()
                    continue
                self._handle(item)
        except Exception:  # noqa: BLE001 - a bug in one game must not take the bot down
            log.exception("%s: unexpected error; leaving the game", self.label)
            self.end_reason = self.end_reason or "internal error"
        finally:
            if self._stream is not None:
                self._stream.close()
            self._finish()

    def _handle(self, item: Any) -> None:
        if isinstance(item, (GameFull, GameState)):
            self.stream_trouble_since = None
            self.last_news_at = self.monotonic()
        if isinstance(item, GameFull):
            self._on_game_full(item)
        elif isinstance(item, GameState):
            self._on_state(item)
        elif isinstance(item, GameEnd):
            self.end = item
            self.over = True
            self.end_reason = item.status or ""
            if not item.status and self.server.dialect == "pychess":
                # pychess's bare gameEnd: the result (and maybe the last move) is only on the game page
                if not self._settle_from_page():
                    self._apply_withheld_final_move()
        elif isinstance(item, ChatLine):
            self._on_chat(item)
        elif isinstance(item, OpponentGone):
            if item.gone:
                log.info("%s: opponent left the game (claim in %s s)", self.label, item.claim_win_in_s)
        elif isinstance(item, StreamLost):
            log.info("%s: game stream lost (%s); resuming", self.label, item.reason)
            if self.stream_trouble_since is None:
                self.stream_trouble_since = self.monotonic()
            self.stream_trouble = item.reason
        elif isinstance(item, StreamFailed):
            log.warning("%s: game stream unavailable (%s); leaving the game", self.label, item.reason)
            self._settle_from_page()
            self.over = True
            self.end_reason = f"stream unavailable ({item.reason})"
        elif isinstance(item, UnknownEvent):
            log.debug("%s: ignored a %r line", self.label, item.type)
        elif isinstance(item, (KeepAlive, StreamConnected)):
            pass

    def _on_idle(self) -> None:
        now = self.monotonic()
        if self._finished_by_server_at is not None and now - self._finished_by_server_at > FINISH_GRACE_S:
            self.over = True
            self.end_reason = "finished (event stream)"
            return
        self._maybe_abort_unstarted(now)
        self._maybe_park(now)
        if not self.over:
            self._watch_for_stall(now)
        if not self.over:
            self._peek_while_quiet(now)
        if self.over:
            return
        if (self.retry_play_at is not None and now >= self.retry_play_at and self.state is not None
                and not self.state.is_final and self.answered != self.state.moves and self._our_turn()):
            log.info("%s: retrying our move", self.label)
            self._play()

    # ---- bounded waits: when the server stops telling us about the game ----

    def _stall_reason(self, now: float) -> str | None:
        """Why the game looks stuck (None when it does not): the game stream has been failing for longer
        than ``stream_timeout_s``, the opponent's clock ran out a while ago and nothing came, or the position
        is final and the server has not ended the game."""
        if (self.stream_trouble_since is not None
                and now - self.stream_trouble_since >= self.settings.server.stream_timeout_s):
            return f"the game stream is failing ({self.stream_trouble})"
        if self.position is None or self.state is None or self.full is None or self.correspondence:
            return None
        quiet_s = now - self.state_received_at
        if self.position.board.is_game_over(claim_draw=True) and quiet_s > FLAG_GRACE_S:
            return "the position is final but the game has not ended"
        if self.full.clock.kind != "clock" or self.position.ply < 2 or self._our_turn():
            return None  # before both first moves, the clocks do not run (see _maybe_abort_unstarted)
        their_ms = self.state.btime_ms if self.we_are_white else self.state.wtime_ms
        overdue_s = quiet_s - their_ms / 1000
        if overdue_s > FLAG_GRACE_S:
            return f"{self.opponent_name}'s clock ran out {overdue_s:.0f} s ago and no news came"
        return None

    def _watch_for_stall(self, now: float) -> None:
        """A stuck game is looked up on the game page (pychess) every ``PAGE_CHECK_INTERVAL_S`` and ended
        when the page says it ended; after ``time.give_up_after_s`` the worker gives up on it."""
        reason = self._stall_reason(now)
        if reason is None:
            if self.stalled_since is not None:
                log.info("%s: the game is moving again", self.label)
            self.stalled_since = None
            return
        if self.stalled_since is None:
            self.stalled_since = now
            self.next_page_check_at = now
            log.info("%s: %s; %s", self.label, reason,
                     "checking the game page" if self.server.dialect == "pychess" else "waiting for news")
        if self.server.dialect == "pychess" and now >= self.next_page_check_at:
            self.next_page_check_at = now + PAGE_CHECK_INTERVAL_S
            if self._settle_from_page():
                self.over = True
                self.end_reason = f"over on the server ({reason})"
                return
        limit = self.settings.time.give_up_after_s
        if now - self.stalled_since >= limit:
            log.warning("%s: giving up on the game after %.0f s (%s); it gets no more moves, resignation or "
                        "abort from us", self.label, limit, reason)
            self.gave_up = True
            self.over = True
            self.end_reason = f"gave up: {reason}"

    def _peek_while_quiet(self, now: float) -> None:
        """pychess: while the opponent is to move and only pings arrive, look at the game page once in a
        while, since a BOT's resignation may end the game without any event reaching us."""
        if (self.server.dialect != "pychess" or self.position is None or self.state is None
                or self.correspondence or self._our_turn() or self.stalled_since is not None):
            return
        if now - self.last_news_at < QUIET_PAGE_CHECK_S or now - self.quiet_page_check_at < QUIET_PAGE_CHECK_S:
            return
        self.quiet_page_check_at = now
        if self._settle_from_page():
            self.over = True
            self.end_reason = "over on the server"

    def _settle_from_page(self) -> bool | None:
        """pychess: read the game page. True when it says the game is over (the outcome and any plies we
        missed are then taken from it), False when the game is still running, None when it cannot be read."""
        if self.server.dialect != "pychess":
            return None
        try:
            page = self.server.fetch_game_page(self.game_id)
        except ServerError as error:
            log.warning("%s: could not read the game page (%s)", self.label, error)
            return None
        if not page.finished:
            return False
        self._take_page_moves(page)
        self.outcome = page.outcome
        log.info("%s: the game page says %s (%s)", self.label, page.outcome.result, page.outcome.reason)
        return True

    def _take_page_moves(self, page: GamePage) -> None:
        """The page lists every ply: add the ones the stream never brought (the move that ended the game)."""
        if self.position is None or tuple(self.position.server_moves) == page.moves:
            return
        missing = len(page.moves) - len(self.position.server_moves)
        try:
            self.position.update(list(page.moves))
        except ServerMoveError as error:
            log.warning("%s: the game page's moves do not replay (%s); keeping the stream's", self.label, error)
            return
        if missing > 0:
            log.info("%s: the game page has %d more pl%s (last %s)", self.label, missing,
                     "y" if missing == 1 else "ies", page.moves[-1])

    def _already_over_on_server(self) -> bool:
        """pychess, before a resignation or an abort: is the game already over there? A BOT's resignation
        or a server restart can end a game without telling us, and a late resignation would change its
        result. When the page cannot be read and the stream is failing too, nothing is sent."""
        settled = self._settle_from_page()
        if settled:
            log.info("%s: the game is already over on the server; sending nothing", self.label)
            self.over = True
            self.end_reason = "over on the server"
            return True
        if settled is None and self.server.dialect == "pychess" and self.stream_trouble_since is not None:
            log.warning("%s: the game page cannot be read and the stream is failing; sending nothing",
                        self.label)
            self.over = True
            self.end_reason = "left: the game's state is unknown"
            return True
        return False

    # ---- game setup ----

    def _on_game_full(self, full: GameFull) -> None:
        if self.chess960_hint and full.variant.supported and not full.variant.chess960:
            full = replace(full, variant=Variant(full.variant.name, True))
        first = self.full is None
        self.full = full
        if full.white.is_user(self.account.id, self.account.username):
            self.we_are_white = True
        elif full.black.is_user(self.account.id, self.account.username):
            self.we_are_white = False
        else:
            log.error("%s: we (%s) are neither white (%s) nor black (%s); leaving the game", self.label,
                      self.account.username, full.white.name, full.black.name)
            self.over, self.end_reason = True, "not our game"
            return
        if first and self.correspondence:
            wait = 0.0 if self.revisit else self.settings.correspondence.disconnect_after_s
            self.park_at = self.monotonic() + wait
        if first or self.position is None:
            try:
                self.position = Position(full.initial_fen, full.variant)
            except ValueError as error:
                log.error("%s: cannot set up the position (%s); aborting", self.label, error)
                self._abort_or_resign(f"cannot set up the position: {error}")
                return
            if first:
                colour = "white" if self.we_are_white else "black"
                log.info("%s: playing %s as %s vs %s (%s)", self.label, full.variant.config_name, colour,
                         self.opponent_name, _describe_clock(full))
        if not self.correspondence:  # a correspondence visit starts the engine only when it must move
            self._prepare_engine()
        self._on_state(full.state)
        opening = self.position is not None and self.position.ply < 2
        if opening and not self.revisit and not self.greeted and not self.over:
            self.greeted = True
            self._chat(self.settings.greeting.hello)

    def _prepare_engine(self) -> None:
        if self.engine_ready or self.full is None:
            return
        try:
            self.engine.set_variant(self.full.variant.name, self.full.variant.chess960)
            self.engine.new_game()
            self.engine_ready = True
        except EngineError as error:
            log.error("%s: engine failed to start (%s); will retry on our move", self.label, error)

    # ---- positions and moves ----

    def _on_state(self, state: GameState) -> None:
        if self.position is None or self.we_are_white is None:
            return
        previous = self.state
        self.state = state
        self.state_received_at = self.monotonic()
        try:
            before = self.position.ply
            self.position.update(state.moves)
        except ServerMoveError as error:
            log.error("%s: %s; aborting", self.label, error)
            self._abort_or_resign(str(error))
            return
        if previous is None or previous.moves != state.moves:
            self.position_changed_at = self.monotonic()
            if self.answered is not None and self.answered != state.moves:
                self.answered = None
            if previous is not None and len(state.moves) < before:
                log.info("%s: takeback, back to ply %d", self.label, len(state.moves))
            self._check_ponder_prediction()
        if state.is_final:
            self._stop_pondering()
            return  # the GameEnd that follows ends the loop
        self._answer_draw_offer(state)
        self._answer_takeback_offer(state)
        if self._our_turn() and self.answered != state.moves:
            self._play()

    @property
    def correspondence(self) -> bool:
        """Days per move (or no clock at all): played in visits, never pondered."""
        return self.full is not None and self.full.clock.kind != "clock"

    def _our_turn(self) -> bool:
        assert self.position is not None
        board = self.position.board
        if board.turn != self.we_are_white:
            return False
        return not board.is_game_over(claim_draw=True)

    def _play(self) -> None:
        assert self.position is not None and self.state is not None and self.full is not None
        state = self.state
        board = self.position.board
        move, result, note = self._choose_move()
        if move is None:
            log.error("%s: no legal move to play", self.label)
            return
        if self._position_moved_on(state):
            log.info("%s: the position changed while thinking; not sending %s", self.label, move.uci())
            return
        score = result.score_for_decisions() if result is not None else None
        self.scores.append(score)
        if should_resign(self.scores, self.settings.resign):
            log.info("%s: resigning (eval %s for %d moves)", self.label,
                     result.describe_score() if result else "?", self.settings.resign.moves)
            self._resign()
            return
        offer = self.server.dialect == "lichess" and should_offer_draw(
            self.scores, board.fullmove_number, self.settings.draw)
        san = board.san(move)
        try:
            self.server.make_move(self.game_id, move.uci(), offer_draw=offer)
        except ServerError as error:
            log.error("%s: could not send %s (%s)", self.label, san, error)
            if error.status is None or error.status >= 429:  # worth another try; a 4xx waits for news
                self.retry_play_at = self.monotonic() + 1.0
            return
        self.retry_play_at = None
        self.answered = state.moves
        self.sent = (state.moves, move.uci())
        if result is not None:
            self.last_result = result
        ponder_note, self.ponder_note = self.ponder_note, ""
        note = "; ".join(part for part in (ponder_note, note) if part)
        log.info("%s: played %s (%s)%s%s", self.label, san, _describe_search(result),
                 " offering a draw" if offer else "", f" [{note}]" if note else "")
        self.moved_this_visit = True
        if self.correspondence:
            self.park_at = self.monotonic() + self.settings.correspondence.disconnect_after_s
        else:
            self._start_pondering(move, result, state)

    def _apply_withheld_final_move(self) -> None:
        """pychess may end a game without sending the move that ended it: when the game ends right after our
        move and that move ends the game on our board (mate, stalemate, a draw by rule), it was the last one."""
        if self.position is None or self.sent is None or self.state is None:
            return
        before, uci = self.sent
        if tuple(self.position.server_moves) != before or self.state.moves != before:
            return
        board = self.position.board.copy()
        move = parse_move(board, uci)
        if move is None:
            return
        board.push(move)
        if not board.is_game_over(claim_draw=True):
            return
        try:
            self.position.update(list(before) + [uci])
        except ServerMoveError:
            return
        log.info("%s: the server ended the game without our last move %s; it ended the game", self.label, uci)

    def _position_moved_on(self, state: GameState) -> bool:
        """Whether newer lines (a takeback, the game's end) arrived while the engine was thinking."""
        assert self._stream is not None
        while True:
            item = self._stream.get(timeout=0)
            if item is None:
                break
            self.pending.append(item)
        return any(isinstance(item, GameEnd) or (isinstance(item, GameState) and item.moves != state.moves)
                   for item in self.pending)

    def _choose_move(self) -> tuple[Any | None, SearchResult | None, str]:
        """The engine's move, checked with the board; one retry, then a legal fallback."""
        assert self.position is not None and self.state is not None and self.full is not None
        board = self.position.board
        problems: list[str] = []
        if self.ponder_line is not None:
            hit = self._ponderhit()
            if hit is not None:
                return hit
        for _attempt in range(2):
            limits = self._limits_now()
            try:
                self._prepare_engine()
                result = self.engine.search(self.position.start_fen, self.position.engine_moves(), limits)
            except EngineTimeout as error:
                problems.append(f"engine timed out: {error}")
                break  # no time left for a second attempt
            except EngineCrashed as error:
                problems.append(f"engine crashed: {error}")
                self.engine_ready = False
                continue
            except EngineError as error:
                problems.append(f"engine error: {error}")
                self.engine_ready = False
                continue
            if result.bestmove is None:
                problems.append("engine gave no move")
                continue
            move = parse_move(board, result.bestmove)
            if move is not None:
                return move, result, "; ".join(problems)
            problems.append(f"engine move {result.bestmove!r} is illegal")
        move = fallback_move(board)
        note = "; ".join(problems) + (f"; fallback {move.uci()}" if move is not None else "")
        log.warning("%s: %s", self.label, note)
        return move, None, note

    def _limits_now(self) -> SearchLimits:
        """Search limits for our move, with the time since the state arrived taken off our clock."""
        assert self.state is not None and self.full is not None
        elapsed_ms = int((self.monotonic() - self.state_received_at) * 1000)
        return search_limits(_minus_elapsed(self.state, self.we_are_white is True, elapsed_ms),
                             self.we_are_white is True, self.full.clock, self.settings.time,
                             self.settings.engine.limits)

    # ---- pondering ----

    def _start_pondering(self, move: Any, result: SearchResult | None, state: GameState) -> None:
        """After our move: think on the opponent's time about the reply the engine expects."""
        engine = self.engine
        if (not self.settings.engine.ponder or not isinstance(engine, PonderingEngine) or result is None
                or result.ponder is None or self.position is None or self.full is None):
            return
        board = self.position.board.copy()
        board.push(move)
        predicted = parse_move(board, result.ponder)
        if predicted is None or board.is_game_over(claim_draw=True):
            return
        line = self.position.engine_moves() + [move.uci(), predicted.uci()]
        # our clock after this move: what the state said, minus our thinking, plus the increment
        we_are_white = self.we_are_white is True
        elapsed_ms = int((self.monotonic() - self.state_received_at) * 1000)
        after = _minus_elapsed(state, we_are_white, elapsed_ms)
        if we_are_white:
            after = replace(after, wtime_ms=after.wtime_ms + after.winc_ms)
        else:
            after = replace(after, btime_ms=after.btime_ms + after.binc_ms)
        limits = search_limits(after, we_are_white, self.full.clock, self.settings.time,
                               self.settings.engine.limits)
        try:
            engine.ponder(self.position.start_fen, line, limits)
        except EngineError as error:
            log.warning("%s: could not start pondering (%s)", self.label, error)
            self.engine_ready = False
            return
        self.ponder_line = line
        log.debug("%s: pondering on %s", self.label, predicted.uci())

    def _check_ponder_prediction(self) -> None:
        """The position changed: keep the ponder search only if it is the position it assumed."""
        if self.ponder_line is None or self.position is None:
            return
        current, line = self.position.engine_moves(), self.ponder_line
        # on track: our own move came back (one short of the line) or the predicted reply was played
        if len(current) >= len(line) - 1 and line[:len(current)] == current:
            return
        self._stop_pondering()
        self.ponder_note = f"ponder miss: expected {line[-1]}"

    def _stop_pondering(self) -> None:
        if self.ponder_line is None:
            return
        self.ponder_line = None
        if isinstance(self.engine, PonderingEngine):
            try:
                self.engine.stop_ponder()
            except EngineError as error:
                log.warning("%s: stopping the ponder search failed (%s)", self.label, error)
                self.engine_ready = False

    def _ponderhit(self) -> tuple[Any, SearchResult, str] | None:
        """The opponent played the predicted move: finish the ponder search. None when it cannot be used."""
        assert self.position is not None
        line, self.ponder_line = self.ponder_line, None
        engine = self.engine
        if (line != self.position.engine_moves() or not isinstance(engine, PonderingEngine)
                or not engine.pondering):
            self._stop_pondering()
            return None
        try:
            result = engine.ponderhit(self._limits_now())
        except EngineError as error:
            log.warning("%s: ponderhit failed (%s); searching again", self.label, error)
            self.engine_ready = False
            return None
        move = parse_move(self.position.board, result.bestmove) if result.bestmove else None
        if move is None:
            log.warning("%s: the ponder search gave %r; searching again", self.label, result.bestmove)
            return None
        return move, result, ""

    # ---- draws, takebacks, resignation, aborts, chat ----

    def _answer_takeback_offer(self, state: GameState) -> None:
        """Lichess: grant or decline the opponent's takeback request (``takeback.max_takebacks``)."""
        if self.server.dialect != "lichess" or self.position is None:
            return
        offered = state.btakeback if self.we_are_white else state.wtakeback
        if not offered:
            self.takeback_answered = None  # the request is gone: a later one gets its own answer
            return
        # a request we answered, or one our own move has already cancelled, needs no answer
        if self.takeback_answered == state.moves or self.answered == state.moves:
            return
        self.takeback_answered = state.moves
        accept = should_accept_takeback(self.takebacks_granted, self.settings.takeback)
        try:
            self.server.answer_takeback(self.game_id, accept)
        except ServerError as error:
            log.warning("%s: could not answer the takeback request (%s)", self.label, error)
            return
        if accept:
            self.takebacks_granted += 1
            self._stop_pondering()
        log.info("%s: %s the takeback request (%d of %d granted)", self.label,
                 "granted" if accept else "declined", self.takebacks_granted,
                 self.settings.takeback.max_takebacks)

    def _on_chat(self, line: ChatLine) -> None:
        """Answer ``!help``/``!name``/``!eval``/``!queue``; everything else in the chat is only logged."""
        log.debug("%s: chat %s/%s: %.200s", self.label, line.room, line.username, line.text)
        if not self.settings.chat.commands:
            return
        if line.username.lower() in (self.account.username.lower(), self.account.id.lower()):
            return  # our own lines echoed back
        command = parse_command(line.text)
        if command is None:
            return
        room = line.room if line.room in ("player", "spectator") else "player"
        if not self.chat_limiter.allow(room):
            log.debug("%s: %s from %s not answered (rate limit)", self.label, command, line.username)
            return
        last = self.last_result
        context = ChatContext(
            engine_name=self.engine.id_name, bot_version=__version__,
            last_score=last.describe_score() if last is not None else None,
            last_depth=last.depth if last is not None else None,
            challenges_waiting=self.challenges_waiting(),
        )
        reply = command_reply(command, room, context, self.settings.chat)
        if reply is None:
            return
        try:
            self.server.chat(self.game_id, reply, room=room, wait=False)
            log.info("%s: answered %s from %s in the %s chat", self.label, command, line.username, room)
        except ServerError as error:
            log.info("%s: chat reply not sent (%s)", self.label, error)

    def _maybe_park(self, now: float) -> None:
        """Correspondence: leave the game when the opponent is to move and the visit has lasted long enough."""
        due = self.park_at is not None and (now >= self.park_at or self.park_soon)
        if (not self.correspondence or not due or self.over
                or self.position is None or self.pending or self._our_turn()):
            return
        self._stop_pondering()
        self.parked = True
        self.over = True
        self.end_reason = "parked"

    def _answer_draw_offer(self, state: GameState) -> None:
        if self.server.dialect != "lichess" or self.position is None:
            return
        offered = state.bdraw if self.we_are_white else state.wdraw
        if not offered or self.draw_answered_at_ply == len(state.moves):
            return
        self.draw_answered_at_ply = len(state.moves)
        accept = should_accept_draw(self.scores, self.position.board.fullmove_number, self.settings.draw)
        try:
            self.server.answer_draw(self.game_id, accept)
            log.info("%s: %s the draw offer", self.label, "accepted" if accept else "declined")
        except ServerError as error:
            log.warning("%s: could not answer the draw offer (%s)", self.label, error)

    def _maybe_abort_unstarted(self, now: float) -> None:
        """Abort when the opponent has not made their first move in time."""
        if self.position is None or self.over or self.we_are_white is None:
            return
        opponent_moved = self.position.ply >= (1 if self.we_are_white is False else 2)
        if opponent_moved or self._our_turn() or self.correspondence:
            return  # Lichess aborts unstarted correspondence games itself, days later
        if now - self.position_changed_at > self.settings.time.abort_unstarted_after_s:
            log.info("%s: the opponent never moved; aborting", self.label)
            self._abort_or_resign("opponent never moved", resign=False)

    def _abort_or_resign(self, reason: str, *, resign: bool = True) -> None:
        if self._already_over_on_server():
            return
        try:
            self.server.abort_game(self.game_id)
            log.info("%s: aborted (%s)", self.label, reason)
            self.end_reason = f"aborted: {reason}"
            self.outcome = Outcome("*", ABANDONED, "aborted")
        except ServerError as error:
            if not resign:
                log.warning("%s: could not abort (%s)", self.label, error)
                self.position_changed_at = self.monotonic()  # try again later
                return
            log.info("%s: cannot abort (%s); resigning", self.label, error)
            self._resign()
            self.end_reason = f"resigned: {reason}"
        self.over = True

    def _resign(self) -> None:
        if self.over or self._already_over_on_server():
            return
        try:
            self.server.resign_game(self.game_id)
            self.we_resigned = True
        except ServerError as error:
            log.error("%s: could not resign (%s)", self.label, error)
            return
        # pychess sends no end event after a resignation
        self.over = True
        self.end_reason = self.end_reason or "resigned"

    def _chat(self, template: str) -> None:
        if not template:
            return
        text = template.replace("{me}", self.account.username).replace("{opponent}", self.opponent_name)
        try:
            # never wait out a 429 pause for a greeting: the game thread would stop playing meanwhile
            self.server.chat(self.game_id, text, wait=False)
        except ServerError as error:
            log.info("%s: chat failed (%s)", self.label, error)

    # ---- the end ----

    def _finish(self) -> None:
        if self.parked:
            self._close_engine()
            # a check that found nothing to do is not worth an INFO line (there is one per game and interval)
            level = logging.INFO if self.moved_this_visit or not self.revisit else logging.DEBUG
            log.log(level, "%s: %s to move; parked until the next check (correspondence)", self.label,
                    self.opponent_name)
            self.record = GameRecord(self.game_id, "*", "parked", self.opponent_name, parked=True)
            if self.on_done is not None:
                self.on_done(self.record)
            return
        board = self.position.board if self.position is not None else None
        if self.gave_up and self.outcome is None:
            self.outcome = unknown(self.end_reason)
        outcome = final_outcome(self.outcome, self.end, board, self.we_are_white, self.we_resigned)
        result = outcome.result
        plies = self.position.ply if self.position is not None else 0
        pgn_path = None
        # a game that ended before its first move (a resignation, a flag) is still a game with a result
        if self.full is not None and self.position is not None and (plies > 0 or result != "*"):
            if outcome.termination != ABANDONED and not self.gave_up:
                self._chat(self.settings.greeting.goodbye)
            pgn_path = self._write_pgn(outcome)
        self._close_engine()
        reason = self.end_reason or outcome.reason
        log.info("%s: finished %s (%s; %s, %d plies) vs %s%s", self.label, result, outcome.reason,
                 outcome.termination, plies, self.opponent_name, f", PGN {pgn_path}" if pgn_path else "")
        self.record = GameRecord(self.game_id, result, reason, self.opponent_name, pgn_path,
                                 termination=outcome.termination, gave_up=self.gave_up)
        if self.on_done is not None:
            self.on_done(self.record)

    def _close_engine(self) -> None:
        try:
            self.engine.close()
        except Exception:  # noqa: BLE001 - closing a broken engine must not hide the result
            log.debug("%s: engine close failed", self.label, exc_info=True)

    def _write_pgn(self, outcome: Outcome) -> Path | None:
        directory = self.settings.pgn_directory
        if not directory or self.full is None or self.position is None:
            return None
        full = self.full
        try:
            headers = standard_headers(
                event=f"{'Rated' if full.rated else 'Casual'} {full.variant.config_name} game",
                site=f"{self.server.url}/{self.game_id}", white=full.white.name, black=full.black.name,
                variant=full.variant, clock=full.clock,
                started_at=full.created_at_ms / 1000 if full.created_at_ms else None,
            )
            headers["Termination"] = outcome.termination
            start = self.position.start
            text = game_pgn(headers, self.position.san_moves(), outcome.result,
                            start_fen=self.position.start_fen if full.initial_fen is not None else None,
                            white_to_move_first=bool(start.turn), first_move_number=start.fullmove_number)
            return write_pgn(directory, self.game_id, text)
        except Exception as error:  # noqa: BLE001 - a PGN problem is logged, never fatal
            log.error("%s: could not write the PGN (%s)", self.label, error)
            return None


def _minus_elapsed(state: GameState, we_are_white: bool, elapsed_ms: int) -> GameState:
    """The state with our clock reduced by the time since it arrived (a retry thinks with what is left)."""
    if elapsed_ms <= 0:
        return state
    if we_are_white:
        return replace(state, wtime_ms=max(0, state.wtime_ms - elapsed_ms))
    return replace(state, btime_ms=max(0, state.btime_ms - elapsed_ms))


def _describe_clock(full: GameFull) -> str:
    clock = full.clock
    if clock.kind == "clock":
        return f"{clock.limit_ms / 60000:g}+{clock.increment_ms / 1000:g}"
    if clock.kind == "correspondence":
        return f"{clock.days} days per move" if clock.days else "correspondence"
    return "unlimited"


def _describe_search(result: SearchResult | None) -> str:
    if result is None:
        return "fallback move"
    depth = f"depth {result.depth}" if result.depth is not None else "depth ?"
    text = f"eval {result.describe_score()}, {depth}, {result.elapsed_s:.1f} s"
    if result.pondered_s is not None:
        text += f", ponderhit: {result.pondered_s:.1f} s gained"
    return text

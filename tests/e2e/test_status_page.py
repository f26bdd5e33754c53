"""The status page of the real bot, in a real browser (Debian's headless Chromium through selenium): the live
board changes as moves are played, a finished game shows its eval graph, nothing goes to the console;
``/metrics`` parses and counts the games of the test; no answer holds the token. And a thousand half-open
connections with a megabyte POST held open neither stall the page nor the game."""

from __future__ import annotations

import json
import os
import selectors
import shutil
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.loopback import LoopbackServer, Manual, RandomMoves
from engine import Board
from tests.e2e.conftest import TOKEN, BotThread, assert_clean_game, bot_config
from tests.timing import GAME_S, PATIENCE_S, STARTUP_S, wait_until
from tools.status_bench import half_open_connections

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
CHROMEDRIVER = shutil.which("chromedriver") or (
    "/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
#: set to a path to keep a screenshot of the page during the game (docs/images/status-page.png is one)
SCREENSHOT = os.environ.get("SCHESS_STATUS_SCREENSHOT")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def get(url: str, timeout: float = PATIENCE_S) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as answer:  # noqa: S310 - our own loopback page
        return bytes(answer.read())


def metric_samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    from prometheus_client.parser import text_string_to_metric_families

    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def plies(server: LoopbackServer, game_id: str) -> int:
    """The game's plies so far (-1 before it starts)."""
    return len(server.game(game_id).moves) if game_id in server.games else -1


def opponent_move(moves: list[str], variant: str = "seirawan") -> str:
    """A legal move for the side to move after ``moves`` (the first in sorted order: reproducible)."""
    board = Board(variant=variant)
    for uci in moves:
        board.push_uci(uci)
    return sorted(str(move) for move in board.legal_moves)[0]


@pytest.fixture
def browser() -> Iterator[Any]:
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip("no headless Chromium here: install Debian's chromium and chromium-driver "
                    "(/usr/bin/chromium, /usr/bin/chromedriver)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is in the test extra")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,1100", "--hide-scrollbars"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def page_config(server: LoopbackServer, tmp_path: Path, port: int, **overrides: Any) -> dict[str, Any]:
    return bot_config(server, tmp_path, status={"listen": f"127.0.0.1:{port}"}, **overrides)


def board_fen(driver: Any) -> str | None:
    """The position the page's live board shows (each diagram carries its FEN in ``<desc>``)."""
    found = driver.execute_script(
        "const d = document.querySelector('.game .board svg desc'); return d ? d.textContent : null;")
    return str(found) if found else None


def console_errors(driver: Any) -> list[dict[str, Any]]:
    return [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]


def test_the_page_in_chromium_follows_a_game_and_shows_its_eval_graph(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], browser: Any
) -> None:
    from bot import metrics

    server = pychess_server
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    before = metric_samples(metrics.render(metrics.bot_registry(lambda: 0, lambda: 0)).decode())
    game_id = server.challenge(challenger="Alice", color="black", clock=(300, 3), opponent=Manual())
    bot = BotThread(page_config(server, tmp_path, port)).start()  # stopped once the browser has left
    bots.append(bot)
    wait_until(lambda: plies(server, game_id) == 1, "the bot's first move", GAME_S)

    marker = f'<div class="game" data-id="{game_id}" data-ply="1">'  # once the bot has seen its move echoed

    def page_with_the_first_move() -> str | None:  # as a client without script sees it
        html = get(base + "/").decode()
        return html if marker in html else None

    # the page follows the bot within a second; 15 s, above PATIENCE_S, is the bound these page waits always had
    first_answer = wait_until(page_with_the_first_move, "the page to draw the bot's first move", 15)
    card = first_answer.split(marker, 1)[1]
    board = Board(variant="seirawan")
    board.push_uci(server.game(game_id).moves[0])
    assert f"<desc>{board.fen()}</desc>" in card.split('<div class="info">')[0], "the live board as SVG"
    assert "vs Alice" in card and '<span class="t">5:00</span>' in card, "the opponent and a clock"
    assert '<span class="pill ok" id="conn">connected since' in first_answer
    assert '<div class="value" id="slots">1 / 1</div>' in first_answer

    browser.get(base + "/")
    first = wait_until(lambda: board_fen(browser), "the live board on the page", STARTUP_S)  # Chromium's first load
    seen = [first]
    for _ in range(5):
        moves = list(server.game(game_id).moves)
        server.play_opponent_move(game_id, opponent_move(moves))
        answered = len(moves) + 2
        wait_until(lambda: plies(server, game_id) == answered, "the bot's answer", GAME_S)  # noqa: B023
        seen.append(wait_until(lambda: (fen := board_fen(browser)) not in seen and fen,
                               "the page's board to follow the game", 15))  # as the first move's
    assert len(set(seen)) == len(seen) == 6, "the live board changed with every pair of moves"
    text = browser.find_element("css selector", ".game").text
    assert "Alice" in text and "our eval, depth" in text
    assert browser.find_element("css selector", ".game a").get_attribute("href") == f"{server.url}/{game_id}"
    if SCREENSHOT:
        browser.save_screenshot(SCREENSHOT)

    server.opponent_resign(game_id)
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    # the page redraws within a second: 15 s as for the moves above
    wait_until(lambda: browser.execute_script("return document.querySelectorAll('.game').length") == 0,
               "the running game to leave the page", 15)
    wait_until(lambda: browser.execute_script(
        "return document.querySelectorAll('.done .evalgraph polyline.eval').length") == 1,
               "the finished game's eval graph", 15)
    finished = browser.find_element("css selector", ".done")
    assert "Alice" in finished.text and "1-0" in finished.text
    points = browser.execute_script("return document.querySelector('.done polyline.eval').getAttribute('points')")
    assert len(points.split()) == len(game.bot_moves()), "one point per move of ours with an eval"
    pgn_link = browser.find_element("css selector", ".done a").get_attribute("href")
    assert pgn_link == f"{base}/games/{game_id}.pgn"
    assert get(pgn_link) == (tmp_path / f"{game_id}.pgn").read_bytes()
    assert console_errors(browser) == []

    after = metric_samples(get(base + "/metrics").decode())

    def delta(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    assert delta("schess_bot_games_started_total", variant="seirawan") == 1
    assert delta("schess_bot_games_finished_total", variant="seirawan", result="win") == 1
    assert delta("schess_bot_challenges_total", decision="accepted", reason="accepted") == 1
    assert delta("schess_bot_moves_played_total", kind="engine") == len(game.bot_moves())
    assert delta("schess_bot_move_latency_seconds_count") == len(game.bot_moves())
    assert after[("schess_bot_current_games", ())] == 0
    assert after[("process_resident_memory_bytes", ())] > 0 and after[("process_open_fds", ())] > 0

    status = json.loads(get(base + "/api/status"))
    assert status["finished"][0]["id"] == game_id and status["totals"]["seirawan"]["win"] >= 1
    assert status["connection"]["connected"] and status["healthy"]
    for path in ("/", "/api/status", "/api/finished", "/metrics", f"/games/{game_id}.pgn"):
        assert TOKEN.encode() not in get(base + path), f"{path} shows the token"
    browser.get("about:blank")  # before the bot and its page go away
    assert bot.stop() == 0


def held_by_page(port: int) -> int:
    """Connections open on the page's side (local port ``port``, established), as the kernel lists them."""
    lines = [line for table in ("/proc/net/tcp", "/proc/net/tcp6") if Path(table).exists()
             for line in Path(table).read_text().splitlines()[1:]]
    return sum(1 for line in lines
               if line.split()[1].endswith(f":{port:04X}") and line.split()[3] == "01")


class HalfOpenConnections:
    """``count`` connections that each send ``GET / HTTP/1.1`` and nothing more, opened again as the server cuts
    them at their deadline, plus one POST announcing a megabyte and sending it all, held open; until
    :meth:`stop`."""

    def __init__(self, address: tuple[str, int], count: int) -> None:
        self.address = address
        self.count = count
        self.selector = selectors.DefaultSelector()
        self.stopping = threading.Event()
        self.cut = 0
        self.post_answer = b""
        self.lock = threading.Lock()  # a cut connection is replaced under it
        self.thread = threading.Thread(target=self._hold, name="half-open connections", daemon=True)

    def _open(self, count: int) -> None:
        for connection in half_open_connections(self.address[1], count):  # at once, not one by one
            self.selector.register(connection, selectors.EVENT_READ)

    def open_all(self) -> HalfOpenConnections:
        self._open(self.count)
        self.post = socket.create_connection(self.address, timeout=PATIENCE_S)
        self.post.sendall(b"POST /api/status HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
        threading.Thread(target=self._send_post_body, daemon=True).start()
        self.thread.start()
        return self

    def _send_post_body(self) -> None:
        try:
            self.post.sendall(b"x" * 1_000_000)
            self.post_answer = self.post.recv(100)
        except OSError:
            pass

    def _hold(self) -> None:
        while not self.stopping.is_set():
            cut = self.selector.select(0.2)
            with self.lock:
                for key, _ in cut:
                    self.selector.unregister(key.fileobj)
                    key.fileobj.close()  # type: ignore[union-attr]
                self.cut += len(cut)
                if cut and not self.stopping.is_set():
                    self._open(len(cut))

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(10)  # clean-up only: nothing is asserted on it
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        self.selector.close()
        self.post.close()


def test_a_thousand_half_open_connections_and_a_megabyte_post_stall_neither_page_nor_game(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    server = lichess_server
    port = free_port()
    game_id = server.challenge(challenger="Mallory", clock=(120, 2), opponent=RandomMoves(seed=5))
    bot = BotThread(page_config(server, tmp_path, port))  # stopped at the end: the page must stay up till then
    bots.append(bot.start())
    wait_until(lambda: plies(server, game_id) >= 2, "the game to start", GAME_S)
    attack = HalfOpenConnections(("127.0.0.1", port), 1000).open_all()
    try:
        answered = []
        for _ in range(5):
            wait_until(lambda: held_by_page(port) >= 1000, "the page to hold the thousand connections", PATIENCE_S)
            played = plies(server, game_id)
            started = time.monotonic()
            status = json.loads(get(f"http://127.0.0.1:{port}/api/status"))
            answered.append(time.monotonic() - started)
            assert answered[-1] < PATIENCE_S, f"/api/status took {answered[-1]:.1f} s"
            if game_id in server.games and server.game(game_id).status == "started":
                assert [game["id"] for game in status["games"]] == [game_id]
                wait_until(lambda: plies(server, game_id) > played or server.game(game_id).status != "started",  # noqa: B023
                           "the game to go on", GAME_S)
        assert attack.post_answer.startswith(b"HTTP/1.0 413"), attack.post_answer
        game = server.wait_for_game_end(game_id, GAME_S)
        assert_clean_game(game)
        assert game.status in ("mate", "draw", "stalemate"), game.describe()
        # the page lists the game once the bot has filed it: well under GAME_S, a literal above PATIENCE_S
        wait_until(lambda: game_id in _finished_ids(port), "the page to show the finished game", 30)
    finally:
        attack.stop()
    assert bot.stop() == 0


def _finished_ids(port: int) -> list[str]:
    body = _try_get(f"http://127.0.0.1:{port}/api/status")
    return [game["id"] for game in json.loads(body)["finished"]] if body else []


def _try_get(url: str) -> bytes | None:
    try:
        return get(url, timeout=PATIENCE_S)
    except OSError:
        return None

"""The page's first answer, drawn on the server: the template of :mod:`~bot.app.status.page` filled from the same
snapshot as ``/api/status`` (and ``/api/finished``), so that the boards, clocks and numbers are there before any
script runs, or without one. The script then keeps it current: the markup here is the markup it draws
(the same classes, ``data-id`` and ``data-ply``), so it updates these nodes instead of drawing new ones.

Every name and message is escaped; only the SVG drawn by the bot (``engine.svg`` and the eval graphs) goes in
as markup, as in the script.
"""

from __future__ import annotations

import time
from html import escape
from typing import Any

from .page import PAGE

__all__ = ["ago", "clock_text", "render_page"]


def clock_text(ms: int) -> str:
    """``4:59``, ``1:02:03``: a clock as the page shows it (the script's ``clockText``)."""
    seconds = max(0, ms // 1000)
    hours, minutes, rest = seconds // 3600, seconds // 60 % 60, seconds % 60
    return (f"{hours}:{minutes:02d}" if hours else f"{minutes}") + f":{rest:02d}"


def ago(seconds: float) -> str:
    """``42 s``, ``12 min``, ``2.5 h`` (the script's ``ago``)."""
    if seconds < 90:
        return f"{round(seconds)} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def _time_of(epoch: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(epoch))


def _tag(tag: str, cls: str | None, content: str = "", **attributes: str) -> str:
    """An element with escaped ``content`` (pass markup through :func:`_raw`)."""
    attrs = (f' class="{escape(cls)}"' if cls else "") + "".join(
        f' {name.replace("_", "-")}="{escape(value)}"' for name, value in attributes.items())
    return f"<{tag}{attrs}>{content}</{tag}>"


def _text(value: object) -> str:
    return escape("" if value is None else str(value))


def _pill(node_id: str, ok: bool, text: str) -> str:
    return _tag("span", f"pill {'ok' if ok else 'bad'}", _text(text), id=node_id)


def _game(game: dict[str, Any]) -> str:
    title = (f"{game['opponent_title']} " if game.get("opponent_title") else "") + str(game.get("opponent") or "")
    if game.get("opponent_rating"):
        title += f" ({game['opponent_rating']})"
    meta = " \u00b7 ".join(part for part in (game.get("variant"), "rated" if game.get("rated") else "casual",
                                              f"we play {game.get('color') or '?'}", f"ply {game.get('ply') or 0}",
                                              game.get("phase")) if part)
    ours = "black" if game.get("color") == "black" else "white"
    theirs = "black" if ours == "white" else "white"
    clock = game.get("clock") or {}
    clocks = []
    for cls, side, who in (("them", theirs, game.get("opponent")), ("us", ours, "us")):
        shown = clock_text(clock[f"{side}_ms"]) if clock.get("kind") == "clock" else (clock.get("kind") or "-")
        running = " running" if clock.get("running") == side else ""
        clocks.append(_tag("div", f"clock {cls}{running}", _tag("span", None, _text(f"{who} ({side})"))
                           + _tag("span", "t", _text(shown)), data_side=side))
    result = game.get("eval")
    if result:
        depth = result.get("depth")
        what = f"our eval, depth {depth}" if depth is not None else "our last move"
        score = result["text"]
    else:
        what, score = "no move of ours yet", "\u2013"
    info = (_tag("div", "opp", _text(f"vs {title}")) + _tag("div", "meta", _text(meta)) + "".join(clocks)
            + _tag("div", "eval", _tag("span", "score", _text(score)) + _tag("span", "meta", _text(what)))
            + _tag("div", "graph", game.get("graph") or "")
            + _tag("a", None, "watch on the server \u2197", href=str(game.get("url") or ""), target="_blank",
                   rel="noopener"))
    extra = {"data_ply": str(game["ply"])} if "svg" in game else {}
    return _tag("div", "game", _tag("div", "board", game.get("svg") or "") + _tag("div", "info", info),
                data_id=str(game["id"]), **extra)


def _finished(game: dict[str, Any]) -> str:
    head = (_tag("span", f"badge {game.get('outcome') or ''}", _text(game.get("result"))) + " vs "
            + _tag("strong", None, _text(game.get("opponent"))))
    meta = " \u00b7 ".join(str(part) for part in (game.get("variant"), f"{game.get('moves')} moves",
                                                   game.get("termination"), game.get("note")) if part)
    text = _tag("div", None, head) + _tag("div", "meta", _text(meta)) + _tag("div", "meta", _text(game.get("when")))
    if game.get("pgn"):
        text += _tag("a", None, "PGN \u2193", href=str(game["pgn"]), download="")
    top = _tag("div", "top", _tag("div", "board", game.get("final") or "") + _tag("div", None, text))
    return _tag("div", "done", top + _tag("div", "graph", game.get("graph") or ""), data_id=str(game["id"]))


def _totals(totals: dict[str, Any]) -> str:
    rows = [(variant, row) for variant, row in totals.items() if variant != "all"]
    if not rows:
        return _tag("div", "empty", "Nothing yet.")
    head = "".join(_tag("th", None, name) for name in ("variant", "games", "wins", "draws", "losses", "aborted",
                                                         "unknown"))
    body = "".join(_tag("tr", None, "".join(_tag("td", None, _text(value)) for value in (
        variant, row["games"], row["win"], row["draw"], row["loss"], row["aborted"], row["unknown"])))
        for variant, row in rows + [("all", totals["all"])])
    return _tag("table", None, _tag("tr", None, head) + body)


def _errors(errors: list[dict[str, Any]]) -> str:
    if not errors:
        return _tag("li", "empty", "No warnings or errors.")
    return "".join(_tag("li", None, _tag("span", "meta", _text(_time_of(line["at"]) + " "))
                        + _tag("span", f"lvl {line['level']}", _text(line["level"]))
                        + _tag("span", None, _text(line["message"]))) for line in errors)


def render_page(status: dict[str, Any], finished: dict[str, Any]) -> str:
    """The page with what ``status`` (the answer of ``/api/status``) and ``finished`` (of ``/api/finished``)
    say, drawn in."""
    bot, connection, health = status["bot"], status["connection"], status["health"]
    build = "" if bot["build"] in bot["engine"] else f" \u00b7 {bot['build']}"
    state = "connected since " if connection["connected"] else "disconnected since "
    note = "" if connection["connected"] or not connection["note"] else f" ({connection['note']})"
    record = status["totals"].get("all") or {"win": 0, "draw": 0, "loss": 0}
    queued = ", ".join(f"{q['from']} ({q['variant']})" for q in status["queue"]["queued"]) or "nothing waiting"
    games = "".join(_game(game) for game in status["games"]) or _tag("div", "empty", "No game running.")
    done = "".join(_finished(game) for game in finished["games"]) or _tag("div", "empty", "No finished game yet.")
    fills = {
        "who": _text(f"{bot['account']} on {bot['server']}"),
        "engine": _text(f"{bot['engine']}{build} \u00b7 v{status['version']}"),
        "conn": _pill("conn", connection["connected"], state + _time_of(connection["since"]) + note),
        "health": _pill("health", health["ok"], "engine healthy" if health["ok"] else health["text"]),
        "slots": _text(f"{status['slots']['used']} / {status['slots']['concurrency']}"),
        "slots-sub": _text(f"{status['slots']['free']} free"),
        "queue": _text(status["queue"]["waiting"]),
        "queue-sub": _text(queued),
        "run": _text(status["finished_this_run"]),
        "uptime": _text(f"up {ago(status['now'] - bot['started_at'])}"),
        "record": _text(f"{record['win']} / {record['draw']} / {record['loss']}"),
        "games": games,
        "finished": done,
        "totals": _totals(status["totals"]),
        "errors": _errors(status["errors"]),
    }
    page = PAGE
    for name, markup in fills.items():
        marker = f"<!--{name}-->"
        assert marker in page, marker
        page = page.replace(marker, markup, 1)
    return page

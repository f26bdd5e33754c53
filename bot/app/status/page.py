"""The status page itself: one HTML document with its style and a small script that polls ``/api/status``
(every second) and ``/api/finished`` (when the finished games change) and keeps it current. The first answer is
this template with every ``<!--name-->`` filled on the server (:mod:`~bot.app.status.render`) from the same
snapshot. Names and messages go in as text (``textContent``), never as markup; only the SVG drawn by the bot goes
in as markup."""

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>schess-bot status</title>
<link rel="icon" href="data:,">
<style>
:root { --ink:#2b241d; --muted:#7a6b5a; --card:#fffdf8; --line:#e4dac8; --bg:#f3eee4; --accent:#1f6fb8;
        --win:#2e7d32; --loss:#c62828; --draw:#6d6d6d; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--ink);
       background:var(--bg); }
header { display:flex; flex-wrap:wrap; align-items:center; gap:12px; padding:14px 22px; background:#3d3329;
         color:#f3ead9; }
header h1 { font-size:18px; margin:0 8px 0 0; font-weight:600; letter-spacing:.2px; }
header .who { color:#d8ccb6; } header #engine { font-size:12.5px; }
.pill { display:inline-flex; align-items:center; gap:6px; padding:3px 10px; border-radius:999px; font-size:12.5px;
        background:#56493c; color:#f3ead9; }
.pill::before { content:""; width:8px; height:8px; border-radius:50%; background:#aaa; }
.pill.ok::before { background:#5fd068; } .pill.bad::before { background:#ff6b5b; }
header .spacer { flex:1; }
main { padding:18px 22px 40px; max-width:1280px; margin:0 auto; }
.tiles { display:grid; grid-template-columns:repeat(auto-fit, minmax(150px, 1fr)); gap:12px; margin-bottom:18px; }
.tile { background:var(--card); border:1px solid var(--line); border-radius:10px; padding:10px 14px; }
.tile .label { color:var(--muted); font-size:12px; text-transform:uppercase; letter-spacing:.6px; }
.tile .value { font-size:22px; font-weight:600; margin-top:2px; }
.tile .sub { color:var(--muted); font-size:12px; }
h2 { font-size:15px; margin:22px 0 10px; text-transform:uppercase; letter-spacing:.8px; color:var(--muted); }
.empty { color:var(--muted); font-style:italic; padding:8px 0; }
.games { display:grid; grid-template-columns:repeat(auto-fill, minmax(600px, 1fr)); gap:14px; }
.game { display:flex; gap:16px; background:var(--card); border:1px solid var(--line); border-radius:12px;
        padding:14px; }
.game .board { width:340px; flex:none; }
.game .board svg, .done .board svg { width:100%; height:auto; display:block; }
.game .info { flex:1; min-width:0; display:flex; flex-direction:column; gap:8px; }
.opp { font-size:16px; font-weight:600; }
.meta { color:var(--muted); font-size:12.5px; }
.clock { display:flex; justify-content:space-between; align-items:center; padding:6px 10px; border-radius:8px;
         background:#f1eadc; font-variant-numeric:tabular-nums; }
.clock .t { font-size:20px; font-weight:600; }
.clock.running { background:#3d3329; color:#fff; }
.eval { display:flex; gap:10px; align-items:baseline; }
.eval .score { font-size:20px; font-weight:600; font-variant-numeric:tabular-nums; }
.evalgraph { width:100%; height:64px; display:block; border-radius:6px; }
a { color:var(--accent); text-decoration:none; } a:hover { text-decoration:underline; }
.finished { display:grid; grid-template-columns:repeat(auto-fill, minmax(360px, 1fr)); gap:12px; }
.done { background:var(--card); border:1px solid var(--line); border-radius:12px; padding:12px; display:flex;
        flex-direction:column; gap:8px; }
.done .top { display:flex; gap:12px; }
.done .board { width:140px; flex:none; }
.badge { display:inline-block; padding:1px 8px; border-radius:6px; color:#fff; font-weight:600; font-size:12px;
         background:var(--draw); }
.badge.win { background:var(--win); } .badge.loss { background:var(--loss); }
table { border-collapse:collapse; background:var(--card); border:1px solid var(--line); border-radius:10px;
        overflow:hidden; }
th, td { padding:6px 14px; text-align:right; border-bottom:1px solid var(--line); }
th:first-child, td:first-child { text-align:left; }
th { color:var(--muted); font-weight:600; font-size:12px; text-transform:uppercase; }
.errors { list-style:none; padding:0; margin:0; background:var(--card); border:1px solid var(--line);
          border-radius:10px; }
.errors li { padding:6px 12px; border-bottom:1px solid var(--line); font-family:ui-monospace, monospace;
             font-size:12.5px; overflow-wrap:anywhere; }
.errors .lvl { font-weight:600; margin-right:6px; } .errors .ERROR { color:var(--loss); }
.errors .WARNING { color:#b26a00; }
#offline { display:none; background:#c62828; color:#fff; padding:6px 22px; }
</style>
</head>
<body>
<header>
  <h1>schess-bot</h1><span class="who" id="who"><!--who--></span>
  <!--conn--><!--health-->
  <span class="spacer"></span><span class="who" id="engine"><!--engine--></span>
</header>
<div id="offline">The bot does not answer; showing what it said last.</div>
<main>
  <div class="tiles">
    <div class="tile"><div class="label">Slots</div><div class="value" id="slots"><!--slots--></div>
      <div class="sub" id="slots-sub"><!--slots-sub--></div></div>
    <div class="tile"><div class="label">Queue</div><div class="value" id="queue"><!--queue--></div>
      <div class="sub" id="queue-sub"><!--queue-sub--></div></div>
    <div class="tile"><div class="label">Finished this run</div><div class="value" id="run"><!--run--></div>
      <div class="sub" id="uptime"><!--uptime--></div></div>
    <div class="tile"><div class="label">All games</div><div class="value" id="record"><!--record--></div>
      <div class="sub">wins / draws / losses</div></div>
  </div>
  <h2>Playing now</h2>
  <div class="games" id="games"><!--games--></div>
  <h2>Finished games</h2>
  <div class="finished" id="finished"><!--finished--></div>
  <h2>Totals by variant</h2>
  <div id="totals"><!--totals--></div>
  <h2>Last errors</h2>
  <ul class="errors" id="errors"><!--errors--></ul>
</main>
<noscript><p>Drawn when the page was asked for; a small script keeps it current. /api/status has the same facts
as JSON.</p></noscript>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
let finishedVersion = null, last = null, lastAt = 0;
function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
function clockText(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, sec = s % 60;
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return (h ? h + ":" : "") + mm + ":" + String(sec).padStart(2, "0");
}
function ago(seconds) {
  if (seconds < 90) return Math.round(seconds) + " s";
  if (seconds < 5400) return Math.round(seconds / 60) + " min";
  return (seconds / 3600).toFixed(1) + " h";
}
function timeOf(epoch) { return new Date(epoch * 1000).toLocaleTimeString(); }
function setPill(node, ok, text) { node.className = "pill " + (ok ? "ok" : "bad"); node.textContent = text; }
function renderHeader(s) {
  $("who").textContent = s.bot.account + " on " + s.bot.server;
  const build = s.bot.engine.includes(s.bot.build) ? "" : " \\u00b7 " + s.bot.build;
  $("engine").textContent = s.bot.engine + build + " \\u00b7 v" + s.version;
  const c = s.connection;
  setPill($("conn"), c.connected, (c.connected ? "connected since " : "disconnected since ") + timeOf(c.since)
          + (c.connected || !c.note ? "" : " (" + c.note + ")"));
  setPill($("health"), s.health.ok, s.health.ok ? "engine healthy" : s.health.text);
  $("slots").textContent = s.slots.used + " / " + s.slots.concurrency;
  $("slots-sub").textContent = s.slots.free + " free";
  $("queue").textContent = s.queue.waiting;
  $("queue-sub").textContent = s.queue.queued.map((q) => q.from + " (" + q.variant + ")").join(", ")
    || "nothing waiting";
  $("run").textContent = s.finished_this_run;
  $("uptime").textContent = "up " + ago(s.now - s.bot.started_at);
  const all = s.totals.all || {win: 0, draw: 0, loss: 0};
  $("record").textContent = all.win + " / " + all.draw + " / " + all.loss;
}
function gameCard(g) {
  const card = el("div", "game");
  card.dataset.id = g.id;
  const board = el("div", "board");
  const info = el("div", "info");
  card.append(board, info);
  const opp = el("div", "opp");
  info.append(opp, el("div", "meta"), el("div", "clock them"), el("div", "clock us"), el("div", "eval"),
              el("div", "graph"));
  const link = el("a", null, "watch on the server \\u2197");
  link.target = "_blank"; link.rel = "noopener";
  info.append(link);
  return card;
}
function updateGame(card, g) {
  const info = card.querySelector(".info");
  const title = (g.opponent_title ? g.opponent_title + " " : "") + g.opponent
    + (g.opponent_rating ? " (" + g.opponent_rating + ")" : "");
  info.querySelector(".opp").textContent = "vs " + title;
  info.querySelector(".meta").textContent = [g.variant, g.rated ? "rated" : "casual", "we play " + (g.color || "?"),
    "ply " + (g.ply || 0), g.phase].filter(Boolean).join(" \\u00b7 ");
  if (g.svg !== undefined && card.dataset.ply !== String(g.ply)) {
    card.querySelector(".board").innerHTML = g.svg;
    card.dataset.ply = String(g.ply);
    info.querySelector(".graph").innerHTML = g.graph || "";
  }
  const clocks = g.clock || {};
  const ours = g.color === "black" ? "black" : "white", theirs = ours === "white" ? "black" : "white";
  for (const [cls, side, who] of [["them", theirs, g.opponent], ["us", ours, "us"]]) {
    const node = info.querySelector(".clock." + cls);
    node.replaceChildren(el("span", null, who + " (" + side + ")"), el("span", "t",
      clocks.kind === "clock" ? clockText(clocks[side + "_ms"]) : clocks.kind || "-"));
    node.classList.toggle("running", clocks.running === side);
    node.dataset.side = side;
  }
  const ev = info.querySelector(".eval");
  ev.replaceChildren(el("span", "score", g.eval ? g.eval.text : "\\u2013"),
    el("span", "meta", g.eval ? (g.eval.depth !== null && g.eval.depth !== undefined ? "our eval, depth "
      + g.eval.depth : "our last move") : "no move of ours yet"));
  info.querySelector("a").href = g.url;
}
function renderGames(s) {
  const box = $("games");
  const cards = new Map([...box.querySelectorAll(".game")].map((c) => [c.dataset.id, c]));
  for (const g of s.games) {
    let card = cards.get(g.id);
    if (!card) { card = gameCard(g); box.append(card); }
    cards.delete(g.id);
    updateGame(card, g);
  }
  for (const card of cards.values()) card.remove();
  const none = box.querySelector(".empty");
  if (!s.games.length && !none) box.append(el("div", "empty", "No game running."));
  if (s.games.length && none) none.remove();
}
function tickClocks() {
  if (!last) return;
  const spent = Date.now() - lastAt;
  for (const card of document.querySelectorAll(".game")) {
    const g = last.games.find((x) => x.id === card.dataset.id);
    if (!g || !g.clock || g.clock.kind !== "clock" || !g.clock.running) continue;
    const node = card.querySelector(".clock.running .t");
    if (node) node.textContent = clockText(g.clock[g.clock.running + "_ms"] - spent);
  }
}
function renderFinished(data) {
  const box = $("finished");
  box.replaceChildren();
  if (!data.games.length) { box.append(el("div", "empty", "No finished game yet.")); return; }
  for (const g of data.games) {
    const card = el("div", "done");
    card.dataset.id = g.id;
    const top = el("div", "top");
    const board = el("div", "board");
    if (g.final) board.innerHTML = g.final;
    const text = el("div");
    const head = el("div");
    head.append(el("span", "badge " + g.outcome, g.result), document.createTextNode(" vs "),
                el("strong", null, g.opponent));
    text.append(head, el("div", "meta", [g.variant, g.moves + " moves", g.termination, g.note].filter(Boolean)
      .join(" \\u00b7 ")), el("div", "meta", g.when));
    if (g.pgn) { const a = el("a", null, "PGN \\u2193"); a.href = g.pgn; a.download = ""; text.append(a); }
    top.append(board, text);
    const graph = el("div", "graph");
    graph.innerHTML = g.graph;
    card.append(top, graph);
    box.append(card);
  }
}
function renderTotals(s) {
  const rows = Object.entries(s.totals).filter(([k]) => k !== "all");
  const box = $("totals");
  if (!rows.length) { box.replaceChildren(el("div", "empty", "Nothing yet.")); return; }
  const table = el("table");
  const head = el("tr");
  for (const h of ["variant", "games", "wins", "draws", "losses", "aborted", "unknown"]) head.append(el("th", null, h));
  table.append(head);
  for (const [variant, r] of rows.concat([["all", s.totals.all]])) {
    const tr = el("tr");
    for (const v of [variant, r.games, r.win, r.draw, r.loss, r.aborted, r.unknown]) tr.append(el("td", null, v));
    table.append(tr);
  }
  box.replaceChildren(table);
}
function renderErrors(s) {
  const box = $("errors");
  box.replaceChildren();
  if (!s.errors.length) { box.append(el("li", "empty", "No warnings or errors.")); return; }
  for (const e of s.errors) {
    const li = el("li");
    li.append(el("span", "meta", timeOf(e.at) + " "), el("span", "lvl " + e.level, e.level),
              el("span", null, e.message));
    box.append(li);
  }
}
async function loadFinished() {
  const answer = await fetch("/api/finished", {cache: "no-store"});
  if (answer.ok) renderFinished(await answer.json());
}
async function poll() {
  try {
    const answer = await fetch("/api/status", {cache: "no-store"});
    if (!answer.ok) throw new Error("HTTP " + answer.status);
    const s = await answer.json();
    last = s; lastAt = Date.now();
    $("offline").style.display = "none";
    renderHeader(s); renderGames(s); renderTotals(s); renderErrors(s);
    if (s.finished_version !== finishedVersion) { finishedVersion = s.finished_version; await loadFinished(); }
    document.body.dataset.updated = String(lastAt);
  } catch (error) {
    $("offline").style.display = "block";
  }
  setTimeout(poll, 1000);
}
setInterval(tickClocks, 250);
poll();
</script>
</body>
</html>
"""

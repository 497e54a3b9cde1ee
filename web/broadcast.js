// The broadcast pages, for everyone outside the hall: `/broadcasts`, every broadcast;
// `/broadcasts/<slug>`, every board at a glance (a small board, the names, the scores, a bar of
// each side's chance to win), the tournament's standings, and one board opened large with its
// moves, the racks when the broadcast reveals them and the engine's line on each move;
// `/broadcasts/<slug>/games/<id>/overlay`, one board made to be a streaming program's browser
// source (a transparent page that fills the source, whatever its size, and never scrolls). Everything comes from WatchBroadcast, which
// the server holds back by the broadcast's delay: these pages never see a move sooner.

import { call, stream } from "/web/grpc.js";
import { renderBoard, tileElement } from "/web/board.js";
import { t } from "/web/i18n.js";
import { h, rules, splitTiles, clock, seatName, eventText, eventPoints, DIRECTOR_EVENTS } from "/web/ui.js";

export async function broadcastsPage(app) {
  document.title = `dawgref — ${t("broadcasts")}`;
  const r = await call("BroadcastsService", "ListBroadcasts", {});
  const on = r.broadcasts.filter((b) => !Number(b.ended_unix_ms || 0));
  app.replaceChildren(
    h("section", { class: "hero" }, h("h1", { text: t("Broadcasts") })),
    h("section", { class: "panel" }, on.length === 0
      ? h("p", { class: "meta", id: "no-broadcasts", text: t("No broadcasts on now.") })
      : h("ul", { class: "tournament-list", id: "broadcast-list" }, on.map((b) => h("li", {},
        h("a", { href: `/broadcasts/${encodeURIComponent(b.slug)}`, text: b.name }),
        h("span", { class: "meta", text: ` · ${delayText(b.delay_seconds || 0)}` }))))));
}

function delayText(seconds) {
  return seconds ? t("{n} s behind the hall", { n: seconds }) : t("live");
}

// A game as the broadcast has shown it so far.
function gameState(view) {
  return {
    view,
    rows: view.board.rows.map((r) => splitTiles(r)),
    racks: [],
    win: null,
    moves: [],
    analyses: new Map(),
    recent: new Set(),
  };
}

// What an event changes on the board and the scores.
// The racks are those the message shows (none once the broadcast stops revealing them).
function apply(g, e, racks) {
  g.racks = racks || [];
  if (e.kind === "play" && e.play) {
    g.recent = new Set();
    for (const x of e.play.tiles) {
      g.rows[x.row][x.col] = x.blank ? x.letter.toLowerCase() : x.letter;
      g.recent.add(`${x.row},${x.col}`);
    }
  }
  if (e.kind === "phony_withdrawn" && e.play) {
    for (const x of e.play.tiles) g.rows[x.row][x.col] = ".";
    g.recent = new Set();
  }
  const seat = g.view.seats[e.seat];
  if (seat && (e.points || e.kind === "play")) seat.score = e.cumulative || 0;
  if (e.kind === "game_over") g.view.over = true;
  g.moves.push(e);
}

function rowsText(g) {
  return g.rows.map((cells) => cells.map((c) => (c.length > 1 ? `[${c}]` : c)).join(""));
}

function winBar(g) {
  const bar = h("div", { class: "win-bar", role: "img" });
  if (!g.win || g.win.length !== 2) {
    bar.classList.add("unknown");
    bar.setAttribute("aria-label", t("no estimate yet"));
    return bar;
  }
  const first = Math.round(g.win[0]);
  bar.setAttribute("aria-label", t("chance to win: {a}% – {b}%", { a: first, b: 100 - first }));
  // Sized through CSSOM: the page's content security policy refuses style attributes.
  const part = h("span", { class: "win-first" });
  part.style.width = `${first}%`;
  bar.append(part, h("span", { class: "win-second" }));
  return bar;
}

function seatsLine(g, big) {
  return h("div", { class: big ? "bc-seats big" : "bc-seats" }, g.view.seats.map((s, i) => h("div", { class: "bc-seat" },
    h("span", { class: "bc-name", text: s.name }),
    h("span", { class: "bc-score", text: String(s.score || 0) }),
    g.racks[i] ? h("span", { class: "bc-rack", "aria-label": t("rack"), text: g.racks[i] }) : "")));
}

// A line of the move list: who (not for the end or the director's events), what, the points.
function moveText(g, e) {
  const points = eventPoints(e);
  const what = `${eventText(g.view, e)}${points !== null ? ` ${points}` : ""}`;
  return e.kind === "game_over" || DIRECTOR_EVENTS.has(e.kind) ? what : `${seatName(g.view, e.seat)}: ${what}`;
}

function analysisText(a) {
  const r = a.review;
  if (!r) return "";
  const parts = [];
  if (r.best) {
    const best = r.best.play ? r.best.play.notation : r.best.exchange ? t("exchange {tiles}", { tiles: r.best.exchange }) : t("pass");
    parts.push(t("best: {play} ({score})", { play: best, score: r.best.score || 0 }));
  }
  if (r.win_lost > 0.05) parts.push(t("lost {n}%", { n: r.win_lost.toFixed(1) }));
  if (r.phony) parts.push(t("phony"));
  if (r.bingo_missed) parts.push(t("missed a bingo"));
  return parts.join(" · ");
}

// The moves before the position a game was first shown at: one who joins late is sent each game
// as it stands, not every move since its start, so the open board reads them once from
// WatchGame (held back by the same delay), then `onRead()`.
async function readEarlierMoves(id, g, onRead) {
  const upTo = Number(g.view.events || 0);
  if (!upTo || g.earlier) return;
  g.earlier = [];
  const controller = new AbortController();
  const earlier = [];
  try {
    await stream("GamesService", "WatchGame", { game_id: id, from_event: 0 }, undefined, (e) => {
      if (Number(e.number) < upTo) earlier.push(e);
      if (Number(e.number) >= upTo - 1) controller.abort();
    }, controller.signal);
  } catch { /* read to the position (the stream aborted there), or refused: the moves since only */ }
  g.earlier = earlier;
  onRead();
}

// One board, large: the board, the names and scores, the racks, the bar, and the moves with the
// engine's line.
function bigBoard(el, g, all) {
  const rulesOf = all[g.view.ruleset_name] || all.english;
  const board = h("div", { class: "bc-big-board" });
  renderBoard(board, { rules: rulesOf, rows: rowsText(g), recent: g.recent });
  const moves = h("ol", { class: "bc-moves", id: "bc-moves" }, (g.earlier || []).concat(g.moves).map((e) => {
    const a = g.analyses.get(Number(e.number));
    return h("li", {}, h("span", { text: moveText(g, e) }), a ? h("span", { class: "meta bc-analysis", text: ` ${analysisText(a)}` }) : "");
  }));
  el.replaceChildren(seatsLine(g, true), winBar(g), h("div", { class: "bc-large" }, board, moves));
}

// Follow a broadcast (or one game of it): `onChange(game id)` after each message.
async function follow(slug, gameId, games, onChange, onEnd) {
  const handle = (m) => {
    const id = m.game_id;
    if (m.game) games.set(id, gameState(m.game));
    const g = games.get(id);
    if (!g) return;
    if (m.game) g.racks = m.racks || [];
    if (m.event) apply(g, m.event, m.racks);
    if (m.analysis) {
      g.analyses.set(Number(m.analysis.event), m.analysis);
      if (m.analysis.win_percent && m.analysis.win_percent.length === 2) g.win = m.analysis.win_percent;
    }
    onChange(id, m);
  };
  try {
    await stream("BroadcastsService", "WatchBroadcast", { slug, game_id: gameId || "" }, undefined, handle);
  } finally {
    onEnd();
  }
}

export async function broadcastPage(app, slug) {
  document.title = `dawgref — ${t("broadcast")}`;
  const [all, got] = await Promise.all([rules(), call("BroadcastsService", "GetBroadcast", { slug })]);
  const b = got.broadcast;
  document.title = `dawgref — ${b.name}`;
  const games = new Map();
  let open = null;
  const grid = h("div", { class: "bc-grid", id: "bc-grid" });
  const big = h("section", { class: "panel bc-open", id: "bc-open", hidden: true });
  const standings = h("section", { class: "panel", id: "bc-standings", hidden: true });
  const status = h("p", { class: "meta", id: "bc-status", text: delayText(b.delay_seconds || 0) });
  app.replaceChildren(h("section", { class: "hero" }, h("h1", { id: "bc-name", text: b.name }), status), big, h("section", { class: "panel" }, grid), standings);

  const tournament = (b.labels || {}).tournament;
  const loadStandings = async () => {
    if (!tournament) return;
    try {
      const r = await call("TournamentsService", "GetTournament", { slug: tournament });
      standings.hidden = false;
      standings.replaceChildren(h("h2", {}, h("a", { href: `/tournaments/${encodeURIComponent(tournament)}`, text: r.tournament.name })),
        ...r.tournament.divisions.map((d) => h("table", { class: "standings bc-standings", "data-division": d.name },
          h("caption", { text: t("Division {name}", { name: d.name }) }),
          h("thead", {}, h("tr", {}, ...[t("Player"), t("Wins"), t("Spread")].map((x) => h("th", { text: x })))),
          h("tbody", {}, ...(d.standings || []).map((s) => h("tr", {},
            h("td", { text: (d.players[s.player - 1] || {}).name || `#${s.player}` }),
            h("td", { text: String(s.wins) }), h("td", { text: s.spread > 0 ? `+${s.spread}` : String(s.spread) })))))));
    } catch { /* no such tournament: no standings */ }
  };

  const drawCard = (id) => {
    const g = games.get(id);
    let card = grid.querySelector(`[data-game="${id}"]`);
    if (!card) {
      card = h("button", { type: "button", class: "bc-card", "data-game": id, onclick: () => { open = id; drawOpen(); } });
      grid.append(card);
    }
    const board = h("div", {});
    renderBoard(board, { rules: all[g.view.ruleset_name] || all.english, rows: rowsText(g), small: true, recent: g.recent });
    card.replaceChildren(board, seatsLine(g, false), winBar(g));
  };
  const drawOpen = () => {
    if (!open || !games.has(open)) return;
    big.hidden = false;
    const id = open;
    readEarlierMoves(id, games.get(id), () => { if (id === open) drawOpen(); });
    bigBoard(big, games.get(open), all);
    big.prepend(h("p", { class: "meta" }, h("a", { href: `/broadcasts/${encodeURIComponent(slug)}/games/${open}/overlay`, id: "bc-overlay-link", text: t("Overlay for streaming") })));
  };
  await loadStandings();
  follow(slug, "", games, (id, m) => {
    drawCard(id);
    if (id === open) drawOpen();
    // The standings as spectators see them once a game's result is in for them.
    if (m.standings) loadStandings();
  }, () => { status.textContent = t("The broadcast has ended."); });
}

// The overlay: the board as large as the source is high (at most three fifths of its width),
// and beside it, each scaled to the source's size (style.css), every seat (name, score, clock,
// the rack when the broadcast reveals it), the engine's bar with its percentages, the last move
// with the engine's line, and how far behind the hall it all is.
function drawOverlay(el, g, all, delaySeconds, clocks) {
  const rulesOf = all[g.view.ruleset_name] || all.english;
  const board = h("div", { class: "bc-ov-board" });
  renderBoard(board, { rules: rulesOf, rows: rowsText(g), recent: g.recent });
  const toMove = clocks && !g.view.over ? clocks.view.to_move : null;
  const seats = g.view.seats.map((s, i) => {
    const time = clocks && clocks.view.seats[i] ? clocks.view.seats[i].time_left_ms : undefined;
    const rack = g.racks[i] ? splitTiles(g.racks[i]) : null;
    return h("div", { class: `bc-ov-seat${i === toMove ? " to-move" : ""}`, "data-seat": String(i) },
      h("span", { class: "bc-name", text: seatName(g.view, i) }),
      h("span", { class: "bc-score", text: String(s.score || 0) }),
      time !== undefined ? h("span", { class: "bc-clock", text: clock(Number(time)) }) : null,
      rack ? h("div", { class: "bc-rack bc-ov-rack", "aria-label": t("rack") },
        rack.map((l) => tileElement(l, rulesOf.values[l] ?? 0, l === "?"))) : null);
  });
  const last = [...(g.earlier || []), ...g.moves].reverse().find((e) => !DIRECTOR_EVENTS.has(e.kind));
  const judged = last && g.analyses.get(Number(last.number));
  const line = judged ? analysisText(judged) : "";
  el.replaceChildren(board, h("div", { class: "bc-ov-info" },
    h("div", { class: "bc-ov-seats" }, seats),
    h("div", { class: "bc-ov-win" }, winLabels(g), winBar(g)),
    last ? h("p", { class: "bc-ov-last", id: "bc-ov-last" }, h("span", { text: moveText(g, last) }),
      line ? h("span", { class: "bc-analysis", text: ` · ${line}` }) : null) : null,
    h("p", { class: "bc-ov-delay", id: "bc-ov-delay", text: delayText(delaySeconds) })));
}

// The bar's two figures, over its two ends.
function winLabels(g) {
  if (!g.win || g.win.length !== 2) return h("div", { class: "win-labels" }, h("span", { text: t("no estimate yet") }));
  const first = Math.round(g.win[0]);
  return h("div", { class: "win-labels" }, h("span", { class: "win-a", text: `${first}%` }), h("span", { class: "win-b", text: `${100 - first}%` }));
}

export async function overlayPage(app, slug, gameId) {
  document.body.classList.add("overlay");
  document.documentElement.classList.add("overlay");
  document.title = `dawgref — ${t("overlay")}`;
  const [all, got] = await Promise.all([rules(), call("BroadcastsService", "GetBroadcast", { slug })]);
  const delay = got.broadcast.delay_seconds || 0;
  const games = new Map();
  const el = h("div", { class: "bc-overlay", id: "bc-overlay" });
  app.replaceChildren(el);
  // The clocks: the game as the broadcast lets a spectator see it now (GetGame holds it back by
  // the same delay), asked again after each of its messages and every few seconds, the seat to
  // move counted down in between.
  let clocks = null;
  let asked = null;
  const draw = () => {
    if (!games.has(gameId)) return;
    // (A game joined at a position after its last move: that move read, for its line.)
    readEarlierMoves(gameId, games.get(gameId), draw);
    drawOverlay(el, games.get(gameId), all, delay, clocks);
  };
  const ask = () => {
    clearTimeout(asked);
    asked = setTimeout(async () => {
      try {
        const { view } = await call("GamesService", "GetGame", { game_id: gameId });
        clocks = { view, at: performance.now() };
        draw();
      } catch { /* no clocks shown until it answers */ }
    }, 200);
  };
  setInterval(ask, 5000);
  setInterval(() => {
    if (!clocks || clocks.view.over || clocks.view.paused) return;
    const seat = clocks.view.seats[clocks.view.to_move];
    const shown = el.querySelector(`.bc-ov-seat[data-seat="${clocks.view.to_move}"] .bc-clock`);
    if (seat && shown && seat.time_left_ms !== undefined) shown.textContent = clock(Number(seat.time_left_ms) - (performance.now() - clocks.at));
  }, 250);
  follow(slug, gameId, games, () => { draw(); ask(); }, () => {});
}

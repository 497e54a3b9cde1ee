// The broadcast pages, for everyone outside the hall: `/broadcasts`, every broadcast;
// `/broadcasts/<slug>`, every board at a glance (a small board, the names, the scores, a bar of
// each side's chance to win), the tournament's standings, and one board opened large with its
// moves, the racks when the broadcast reveals them and the engine's line on each move;
// `/broadcasts/<slug>/games/<id>/overlay`, one board made to be a streaming program's browser
// source (a transparent page that fills the source, whatever its size, and never scrolls; opened
// before its game is out, it waits and comes alive when the game is). Everything comes from
// WatchBroadcast, which the server holds back by the broadcast's delay: these pages never see a
// move sooner.

import { call, stream } from "/web/grpc.js";
import { renderBoard, tileElement } from "/web/board.js";
import { t } from "/web/i18n.js";
import { h, rules, splitTiles, clock, seatName, eventText, eventPoints, explain, DIRECTOR_EVENTS, botMark } from "/web/ui.js";

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
    turns: Number(view.turn || 0),
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
  if (e.kind === "game_over") {
    g.view.over = true;
    g.view.end_reason = e.end_reason || "";
  }
  if (TURNS.has(e.kind)) g.turns += 1;
  g.moves.push(e);
}

// The events that take a turn: a game with none of them was not played on the server.
const TURNS = new Set(["play", "pass", "exchange", "phony_withdrawn", "challenged", "turn_lost", "resign"]);

// Who won a game that is over, by seat, as the server decides it: the best score, except a seat
// that forfeited (resigned, ran out of time, lost a challenge, a director's forfeit); none for a
// game voided.
function winners(g) {
  const reason = g.view.end_reason || "";
  if (reason === "void (director)") return [];
  const m = reason.match(/^seat (\d+) (resigned|ran out of time|lost the challenge|forfeited \(director\))$/);
  const out = m ? Number(m[1]) : -1;
  const scores = g.view.seats.map((s) => Number(s.score || 0));
  const candidates = scores.map((_, i) => i).filter((i) => i !== out);
  const best = Math.max(...candidates.map((i) => scores[i]));
  return candidates.filter((i) => scores[i] === best);
}

// What a game over came to, in words: who won and the final score (the winner's first), a tie,
// or a game voided.
function resultText(g) {
  const scores = g.view.seats.map((s) => Number(s.score || 0));
  const won = winners(g);
  if (g.view.end_reason === "void (director)") return t("game void");
  if (won.length !== 1) return t("tie, {a} – {b}", { a: scores[0], b: scores[1] ?? 0 });
  const w = won[0];
  const other = scores.map((_, i) => i).find((i) => i !== w) ?? w;
  return t("{name} won, {a} – {b}", { name: seatName(g.view, w), a: scores[w], b: scores[other] });
}

// A result entered by hand: a game the director ended with a result (adjudicated) before any
// turn was taken on the server, played over the board.
function byHand(g) {
  return Boolean(g.view.over) && g.view.end_reason === "adjudicated (director)" && !g.turns;
}

// "Ann 412 – Bo 388": a result by the names and scores.
function namedScores(a, sa, b, sb) {
  return `${a} ${sa} – ${b} ${sb}`;
}

function handText(g) {
  const [a, b] = g.view.seats;
  return t("result entered by hand: {result}", {
    result: namedScores(seatName(g.view, 0), (a && a.score) || 0, seatName(g.view, 1), (b && b.score) || 0),
  });
}

// In place of the board of a game with a result entered by hand: the result.
function handResult(g, cls) {
  return h("div", { class: `bc-hand-result ${cls || ""}`.trim() }, h("p", { class: "bc-hand-text", text: handText(g) }));
}

function rowsText(g) {
  return g.rows.map((cells) => cells.map((c) => (c.length > 1 ? `[${c}]` : c)).join(""));
}

function winBar(g) {
  const bar = h("div", { class: "win-bar", role: "img" });
  if (g.view.over && g.view.seats.length === 2) {
    // Over: the result, not the last estimate; the bar all the winner's (half each for a tie,
    // empty for a game voided).
    const won = winners(g);
    bar.classList.add("over");
    bar.setAttribute("aria-label", resultText(g));
    const part = h("span", { class: "win-first" });
    part.style.width = `${won.length === 0 ? 0 : won.length === 2 ? 50 : won[0] === 0 ? 100 : 0}%`;
    bar.append(part, h("span", { class: won.length === 0 ? "win-none" : "win-second" }));
    return h("div", { class: "bc-result" }, h("p", { class: "bc-result-text", text: resultText(g) }), bar);
  }
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
  const hand = byHand(g);
  return h("div", { class: big ? "bc-seats big" : "bc-seats" }, g.view.seats.map((s, i) => h("div", { class: "bc-seat" },
    h("span", { class: "bc-name" }, s.name, ...botMark(s)),
    h("span", { class: "bc-score", text: String(s.score || 0) }),
    g.racks[i] && !hand ? h("span", { class: "bc-rack", "aria-label": t("rack"), text: g.racks[i] }) : "")));
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
  el.replaceChildren(seatsLine(g, true), winBar(g), h("div", { class: "bc-large" }, byHand(g) ? handResult(g, "big") : board, moves));
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
  // The results entered by hand of pairings that have no game on the server (played over the
  // board, entered before the round started).
  const hand = h("ul", { class: "bc-hand-list", id: "bc-hand", hidden: true });
  app.replaceChildren(h("section", { class: "hero" }, h("h1", { id: "bc-name", text: b.name }), status), big, h("section", { class: "panel" }, grid, hand), standings);

  const labels = b.labels || {};
  const tournament = labels.tournament;
  // The tournament as a spectator sees it: GetTournament holds back each result the broadcast's
  // delay holds back, and what came in after it.
  let events = 0;
  let asked = 0;
  const loadStandings = async () => {
    if (!tournament) return;
    const mine = ++asked;
    try {
      const r = await call("TournamentsService", "GetTournament", { slug: tournament });
      // An answer overtaken by a later question's is not drawn.
      if (mine !== asked) return;
      events = Math.max(events, Number(r.tournament.events || 0));
      drawHand(r.tournament);
      standings.hidden = false;
      standings.replaceChildren(h("h2", {}, h("a", { href: `/tournaments/${encodeURIComponent(tournament)}`, text: r.tournament.name })),
        ...r.tournament.divisions.map((d) => h("table", { class: "standings bc-standings", "data-division": d.name },
          h("caption", { text: t("Division {name}", { name: d.name }) }),
          h("thead", {}, h("tr", {}, ...[t("Player"), t("Wins"), t("Spread")].map((x) => h("th", { text: x })))),
          h("tbody", {}, ...(d.standings || []).map((s) => h("tr", {},
            h("td", {}, (d.players[s.player - 1] || {}).name || `#${s.player}`, ...botMark(d.players[s.player - 1])),
            h("td", { text: String(s.wins) }), h("td", { text: s.spread > 0 ? `+${s.spread}` : String(s.spread) })))))));
    } catch { /* no such tournament: no standings */ }
  };
  // Each pairing of the games the broadcast covers (its division and round labels, when it has
  // them) whose result was entered with no game on the server, latest round first.
  const drawHand = (tr) => {
    const items = [];
    for (const d of tr.divisions) {
      if (labels.division && labels.division !== d.name) continue;
      const name = (n) => (d.players[n - 1] || {}).name || `#${n}`;
      for (const r of [...d.rounds].reverse()) {
        if (labels.round && labels.round !== String(r.number)) continue;
        for (const p of r.pairings) {
          if (!p.done || p.game_id || !p.second) continue;
          const result = p.forfeited_by ? t("{name} forfeited", { name: name(p.forfeited_by) })
            : namedScores(name(p.first), p.scores[0] ?? 0, name(p.second), p.scores[1] ?? 0);
          const where = tr.divisions.length > 1 ? `${t("Division {name}", { name: d.name })}, ${t("Round {n}", { n: r.number })}` : t("Round {n}", { n: r.number });
          items.push(h("li", { class: "bc-hand-item", "data-pairing": `${d.name}/${r.number}/${p.number}` },
            h("span", { class: "meta", text: `${where} · ` }), h("span", { class: "bc-hand-text", text: t("result entered by hand: {result}", { result }) })));
        }
      }
    }
    hand.hidden = items.length === 0;
    hand.replaceChildren(...items);
  };
  // Follow the tournament as a spectator (WatchTournament with no token sends each event no
  // sooner than GetTournament shows it): read again after each burst of its events, so that a
  // result entered by hand, or one whose delay has passed, is in the standings as it comes due.
  const followTournament = () => {
    if (!tournament) return;
    let timer = null;
    const controller = new AbortController();
    const here = location.pathname;
    const run = () => stream("TournamentsService", "WatchTournament", { slug: tournament, from_event: events }, undefined, (e) => {
      events = Math.max(events, Number(e.number) + 1);
      clearTimeout(timer);
      timer = setTimeout(() => loadStandings(), 150);
    }, controller.signal).catch(() => {})
      .finally(() => { if (!controller.signal.aborted && location.pathname === here) setTimeout(run, 2000); });
    run();
    addEventListener("popstate", () => controller.abort(), { once: true });
  };

  const drawCard = (id) => {
    const g = games.get(id);
    let card = grid.querySelector(`[data-game="${id}"]`);
    if (!card) {
      card = h("button", { type: "button", class: "bc-card", "data-game": id, onclick: () => { open = id; drawOpen(); } });
      grid.append(card);
    }
    let board = h("div", {});
    if (byHand(g)) board = handResult(g);
    else renderBoard(board, { rules: all[g.view.ruleset_name] || all.english, rows: rowsText(g), small: true, recent: g.recent });
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
  followTournament();
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
  const hand = byHand(g);
  const board = h("div", { class: "bc-ov-board" });
  if (hand) board.append(handResult(g, "bc-ov-hand"));
  else renderBoard(board, { rules: rulesOf, rows: rowsText(g), recent: g.recent });
  const toMove = clocks && !g.view.over ? clocks.view.to_move : null;
  const seats = g.view.seats.map((s, i) => {
    const time = clocks && clocks.view.seats[i] ? clocks.view.seats[i].time_left_ms : undefined;
    const rack = g.racks[i] && !hand ? splitTiles(g.racks[i]) : null;
    return h("div", { class: `bc-ov-seat${i === toMove ? " to-move" : ""}`, "data-seat": String(i) },
      h("span", { class: "bc-name" }, seatName(g.view, i), ...botMark(g.view.seats[i])),
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
  if (g.view.over && g.view.seats.length === 2) return null;
  if (!g.win || g.win.length !== 2) return h("div", { class: "win-labels" }, h("span", { text: t("no estimate yet") }));
  const first = Math.round(g.win[0]);
  return h("div", { class: "win-labels" }, h("span", { class: "win-a", text: `${first}%` }), h("span", { class: "win-b", text: `${100 - first}%` }));
}

// How long the overlay waits before it asks again, after `tries` answers in a row that showed no
// game: 2 s, then a second more each time up to 5 s, give or take a tenth (so that the overlays of
// a hall, opened together, do not ask together).
function backoff(tries) {
  return Math.min(5000, 2000 + 1000 * tries) * (0.9 + 0.2 * Math.random());
}

export async function overlayPage(app, slug, gameId) {
  document.body.classList.add("overlay");
  document.documentElement.classList.add("overlay");
  document.title = `dawgref — ${t("overlay")}`;
  const all = await rules();
  const games = new Map();
  const el = h("div", { class: "bc-overlay", id: "bc-overlay" });
  app.replaceChildren(el);
  // What the overlay says while it has no board to show (a panel of its own, in the source's
  // corner), and whether it has shown the board yet.
  const say = (title, ...lines) => el.replaceChildren(h("div", { class: "bc-ov-waiting", id: "bc-ov-waiting", role: "status" },
    h("p", { class: "bc-ov-waiting-title", id: "bc-ov-waiting-title", text: title }),
    ...lines.map((line) => h("p", { class: "bc-ov-waiting-line", text: line }))));
  let alive = false;
  let ended = false;
  let delay = 0;
  // The clocks: the game as the broadcast lets a spectator see it now (GetGame holds it back by
  // the same delay), asked again after each of its messages and every few seconds, the seat to
  // move counted down in between; the delay asked with them (a director may change it).
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
    if (!alive || ended) return;
    asked = setTimeout(async () => {
      try {
        const [{ view }, { broadcast }] = await Promise.all([call("GamesService", "GetGame", { game_id: gameId }),
          call("BroadcastsService", "GetBroadcast", { slug })]);
        if (ended) return;
        clocks = { view, at: performance.now() };
        delay = broadcast.delay_seconds || 0;
        draw();
      } catch { /* no clocks shown until it answers */ }
    }, 200);
  };
  setInterval(ask, 5000);
  setInterval(() => {
    if (!clocks || ended || clocks.view.over || clocks.view.paused) return;
    const seat = clocks.view.seats[clocks.view.to_move];
    const shown = el.querySelector(`.bc-ov-seat[data-seat="${clocks.view.to_move}"] .bc-clock`);
    if (seat && shown && seat.time_left_ms !== undefined) shown.textContent = clock(Number(seat.time_left_ms) - (performance.now() - clocks.at));
  }, 250);

  // Follow the game until the broadcast ends. Until the broadcast shows it (WatchBroadcast's
  // NOT_FOUND: a game it covers that is not out yet, and one it does not cover or that does not
  // exist, alike; or no broadcast of the slug yet), the overlay says so, in the same words for
  // every case, and asks again every few seconds: it comes alive when the game is out, with no
  // reload. A stream cut short (the network, a server going away) is opened again the same way,
  // the board kept as it was meanwhile.
  const waiting = () => say(t("Not shown yet"), t("The board appears here as soon as the broadcast shows this game: the overlay asks every few seconds."));
  waiting();
  for (let tries = 0; ; tries++) {
    try {
      const { broadcast } = await call("BroadcastsService", "GetBroadcast", { slug });
      delay = broadcast.delay_seconds || 0;
      if (Number(broadcast.ended_unix_ms || 0)) {
        // Ended: its streams are over. A board shown stays as it was last shown, its clocks
        // stopped, and says so where the delay was.
        ended = true;
        clearTimeout(asked);
        if (!alive) say(t("The broadcast has ended."));
        else {
          const shown = el.querySelector("#bc-ov-delay");
          if (shown) shown.textContent = t("The broadcast has ended.");
        }
        return;
      }
      await follow(slug, gameId, games, () => {
        if (!alive) {
          alive = true;
          tries = 0;
        }
        draw();
        ask();
      }, () => {});
    } catch (e) {
      if (e.codeName === "INVALID_ARGUMENT") {
        say(t("This address names no game."), explain(e));
        return;
      }
      if (!alive) {
        if (e.codeName === "NOT_FOUND") waiting();
        else say(t("The server does not answer: the overlay asks again every few seconds."), explain(e));
      }
    }
    await new Promise((r) => setTimeout(r, backoff(tries)));
  }
}

// The review page (`/games/<id>/review`): a finished game's every turn judged by the server
// (AnalysisService.AnalyzeGame, streamed: the table and the graph fill in as turns arrive), the board
// before any turn with the play made or the best play on it, each seat's win probability over
// the game, and the puzzles: turns whose best play stands out, shown with the answer hidden
// until asked for. Each mistake is marked by its size (small, medium, large: the server's grade,
// MAGPIE's thresholds) in the table, the caption and the graph, and each player's count of each
// with the mistake index in the summary.

import { call, stream } from "/web/grpc.js";
import { renderBoard, tileElement } from "/web/board.js";
import { t, count, lang } from "/web/i18n.js";
import { h, svg, explain, rules, tokenFor, splitTiles } from "/web/ui.js";

const CLASSES = {
  TURN_CLASS_BEST: "best", TURN_CLASS_GOOD: "good", TURN_CLASS_INACCURACY: "inaccuracy",
  TURN_CLASS_MISTAKE: "mistake", TURN_CLASS_BLUNDER: "blunder",
};

/** A turn's mistake size ("none" for none, or a turn not judged). */
const GRADES = { MISTAKE_GRADE_SMALL: "small", MISTAKE_GRADE_MEDIUM: "medium", MISTAKE_GRADE_LARGE: "large" };
const gradeOf = (turn) => (turn.analysable && GRADES[turn.grade]) || "none";
const GRADE_NAMES = { small: "small mistake", medium: "medium mistake", large: "large mistake" };

/** The board rows of a CGP line ("." for an empty square), as GameView.board.rows has them. */
export function cgpRows(cgp) {
  return cgp.split(" ")[0].split("/").map((row) => {
    let out = "";
    for (const m of row.matchAll(/(\d+)|(\D)/gu)) out += m[1] ? ".".repeat(Number(m[1])) : m[2];
    return out;
  });
}

function percent(x) {
  return `${x.toLocaleString(lang, { maximumFractionDigits: 1, minimumFractionDigits: 1 })}%`;
}

function moveText(m) {
  if (!m) return "—";
  if (m.play) return m.play.notation;
  if (m.exchange) return t("exchange {tiles}", { tiles: m.exchange });
  return t("pass");
}

function seconds(ms) {
  const s = Math.round(ms / 1000);
  return s < 60 ? t("{n} s", { n: s }) : t("{m} min {s} s", { m: Math.floor(s / 60), s: s % 60 });
}

export async function reviewPage(app, id) {
  document.title = `dawgref — ${t("review")}`;
  const all = await rules();
  const { view } = await call("GamesService", "GetGame", { game_id: id }, tokenFor(id)).catch(() => call("GamesService", "GetGame", { game_id: id }));
  const r = {
    id, view, rules: all[view.ruleset_name] || all.english, turns: new Map(), seats: [], at: null,
    showBest: false, revealed: new Set(), done: false,
  };
  const names = view.seats.map((s, i) => s.name || t("seat {n}", { n: i + 1 }));
  r.names = names;
  r.progress = h("div", { class: "panel review-progress", id: "review-progress", role: "status" });
  r.board = h("div", { class: "board-wrap", id: "review-board" });
  r.rack = h("div", { id: "review-rack" });
  r.caption = h("div", { class: "review-caption", id: "review-caption" });
  r.graph = h("div", { class: "panel win-graph-panel" });
  r.summary = h("div", { id: "review-summary" });
  r.table = h("div", { class: "panel review-table-panel" });
  r.puzzles = h("div", { id: "review-puzzles" });
  const nav = h("div", { class: "row-controls review-nav" },
    h("button", { type: "button", id: "review-first", onclick: () => go(r, 0), "aria-label": t("first turn") }, "«"),
    h("button", { type: "button", id: "review-prev", onclick: () => step(r, -1), "aria-label": t("previous turn") }, "←"),
    h("button", { type: "button", id: "review-next", onclick: () => step(r, 1), "aria-label": t("next turn") }, "→"),
    h("button", { type: "button", id: "review-last", onclick: () => go(r, order(r).length - 1), "aria-label": t("last turn") }, "»"),
    h("button", { type: "button", id: "review-toggle", onclick: () => { r.showBest = !r.showBest; revealCurrent(r); draw(r); } }, t("Show the best play")));
  r.toggle = nav.lastChild;
  app.replaceChildren(
    h("section", { class: "hero" }, h("h1", { text: t("Game review") }),
      h("p", { class: "sub" }, `${names.join(" v ")} · ${view.seats.map((s) => s.score).join(" – ")} · `,
        h("a", { href: `/games/${id}`, text: t("the game") }))),
    r.progress,
    h("div", { class: "review" },
      h("div", { class: "left" }, r.board, r.rack, nav, r.caption, r.puzzles),
      h("div", { class: "side review-side" }, r.summary, r.graph, r.table)));
  document.addEventListener("keydown", (e) => {
    const target = e.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
    const moves = { ArrowLeft: () => step(r, -1), ArrowRight: () => step(r, 1), Home: () => go(r, 0), End: () => go(r, order(r).length - 1) };
    if (moves[e.key]) { moves[e.key](); e.preventDefault(); }
  });
  if (!view.over) {
    r.progress.replaceChildren(h("p", { class: "bad", id: "review-state", text: t("The game is still in play: its review opens once it is over.") }));
    return;
  }
  const ms = Number(new URLSearchParams(location.search).get("ms")) || 1000;
  showProgress(r, { turns_done: 0, turns: 0, eta_ms: 0, queue_position: 0 });
  try {
    await stream("AnalysisService", "AnalyzeGame", { game_id: id, ms_per_turn: ms }, null, (u) => {
      if (u.turn) {
        r.turns.set(u.turn.turn, u.turn);
        // Turns arrive in any order: until the visitor moves, the first turn known is shown.
        if (!r.moved) r.at = order(r)[0];
      }
      if (u.done) {
        r.done = true;
        r.seats = u.seats;
        r.fromStore = u.from_store;
      }
      showProgress(r, u);
      schedule(r);
    });
  } catch (e) {
    r.progress.replaceChildren(h("p", { class: "bad", id: "review-state", text: explain(e) }));
  }
}

/** The turns known so far, in the game's order. */
function order(r) {
  return [...r.turns.keys()].sort((a, b) => a - b);
}

function go(r, index) {
  const turns = order(r);
  if (turns.length === 0) return;
  r.at = turns[Math.max(0, Math.min(turns.length - 1, index))];
  r.moved = true;
  r.showBest = false;
  draw(r);
}

function step(r, by) {
  go(r, order(r).indexOf(r.at) + by);
}

function revealCurrent(r) {
  if (r.showBest) r.revealed.add(r.at);
}

function showProgress(r, u) {
  const parts = [];
  if (r.done) {
    parts.push(h("p", { id: "review-state", class: "ok", text: `${t("Analysed: {turns}.", { turns: count(r.turns.size, "turn") })}${r.fromStore ? ` ${t("(kept from an earlier review)")}` : ""}` }));
  } else if (u.queue_position > 0) {
    parts.push(h("p", { id: "review-state", text: t("Waiting for a place: {n} in line.", { n: u.queue_position }) }));
  } else {
    const total = u.turns || 0;
    parts.push(h("p", { id: "review-state", text: total
      ? t("Analysing: {done} of {total} turns, about {left} left.", { done: u.turns_done, total, left: seconds(u.eta_ms) })
      : t("Starting the analysis…") }));
    parts.push(h("progress", { max: String(Math.max(1, total)), value: String(u.turns_done || 0) }));
  }
  r.progress.replaceChildren(...parts);
}

function schedule(r) {
  if (r.drawing) return;
  r.drawing = true;
  requestAnimationFrame(() => { r.drawing = false; draw(r); });
}

function draw(r) {
  drawBoard(r);
  drawGraph(r);
  drawTable(r);
  drawSummary(r);
  drawPuzzles(r);
}

function tilesOf(move, cls, label) {
  return move && move.play ? move.play.tiles.map((x) => ({ row: x.row, col: x.col, letter: x.letter, blank: x.blank, cls, label })) : [];
}

function drawBoard(r) {
  const turn = r.turns.get(r.at);
  if (!turn) {
    renderBoard(r.board, { rules: r.rules, rows: r.view.board.rows });
    return;
  }
  const hidden = turn.puzzle && !r.revealed.has(turn.turn);
  const showBest = r.showBest && turn.best && !hidden;
  const pending = showBest ? tilesOf(turn.best, "best", t("best play:")) : hidden ? [] : tilesOf(turn.played, "played", t("played:"));
  renderBoard(r.board, { rules: r.rules, rows: cgpRows(turn.position), pending });
  r.rack.replaceChildren(turn.rack
    ? h("div", { class: "rack small-rack", id: "review-rack-tiles", "aria-label": t("the rack") },
      splitTiles(turn.rack).map((ch) => tileElement(ch, r.rules.values[ch] ?? 0, ch === "?")))
    : h("p", { class: "meta", text: t("The record does not show this rack.") }));
  r.toggle.textContent = showBest ? t("Show the play made") : hidden ? t("Show the answer") : t("Show the best play");
  r.toggle.disabled = !turn.analysable;
  const who = r.names[turn.seat] || t("seat {n}", { n: turn.seat + 1 });
  const cls = CLASSES[turn.class];
  const lines = [h("h3", { text: t("Turn {n}: {who}", { n: turn.turn + 1, who }) })];
  if (hidden) {
    lines.push(h("p", { class: "puzzle-note", id: "puzzle-note", text: t("A puzzle: one play is far ahead of every other. Find it, then show the answer.") }));
  } else {
    lines.push(h("p", {}, h("span", { class: "label", text: `${t("Played")}: ` }), h("strong", { id: "caption-played", text: moveText(turn.played) }),
      ` (${count(turn.played.score, "point")}${turn.analysable && r.names.length === 2 ? `, ${t("win")} ${percent(turn.played.win_percent)}` : ""})`));
    if (turn.analysable) {
      lines.push(h("p", {}, h("span", { class: "label", text: `${t("Best")}: ` }), h("strong", { id: "caption-best", text: moveText(turn.best) }),
        ` (${count(turn.best.score, "point")}${r.names.length === 2 ? `, ${t("win")} ${percent(turn.best.win_percent)}` : ""})`));
      const grade = gradeOf(turn);
      lines.push(h("p", { class: `verdict cls-${cls}` }, h("span", { class: "class-name", text: t(cls) }),
        grade !== "none" ? [" · ", h("span", { class: `grade grade-${grade}`, id: "caption-grade", text: t(GRADE_NAMES[grade]) })] : "",
        turn.win_lost > 0 ? ` · ${t("{x} lost", { x: r.names.length === 2 ? percent(turn.win_lost) : t("{n} equity", { n: turn.win_lost.toFixed(1) }) })}` : "",
        ` · ${t(turn.method)}${turn.exact ? ` (${t("exact")})` : ""}`));
    } else {
      lines.push(h("p", { class: "meta", text: t("Not analysable: the record does not show the rack.") }));
    }
    const flags = flagsOf(turn);
    if (flags.length) lines.push(h("p", { class: "flags" }, flags.map((f) => h("span", { class: "flag", text: f }))));
  }
  r.caption.replaceChildren(...lines);
}

function flagsOf(turn) {
  const f = [];
  if (turn.phony) f.push(turn.challenged ? t("phony, challenged off") : t("phony, not challenged"));
  if (turn.valid_challenged_off) f.push(t("valid, challenged off"));
  if (turn.bingo) f.push(t("bingo"));
  if (turn.bingo_missed) f.push(t("bingo missed"));
  if (turn.pass_or_exchange_beaten) f.push(t("a play was better"));
  if (turn.play_beaten_by_exchange) f.push(t("an exchange was better"));
  if (turn.puzzle) f.push(t("puzzle"));
  return f;
}

// Each seat's win probability after each analysed turn: the mover's as judged, the other's the
// rest. One point per analysed turn, on the mover's line; hovering it names the turn.
function drawGraph(r) {
  if (r.names.length !== 2) {
    r.graph.replaceChildren(h("h3", { text: t("Win probability") }),
      h("p", { class: "meta", text: t("Win probabilities are for two players: this game is judged by equity.") }));
    return;
  }
  const judged = order(r).map((k) => r.turns.get(k)).filter((x) => x.analysable);
  const W = 560, H = 180, pad = 28;
  const x = (i) => pad + (judged.length <= 1 ? 0 : (i * (W - 2 * pad)) / (judged.length - 1));
  const y = (p) => H - pad / 2 - (p / 100) * (H - pad);
  const seatWin = (turn, seat) => (turn.seat === seat ? turn.played.win_percent : 100 - turn.played.win_percent);
  const chart = svg("svg", { id: "win-graph", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": t("each seat's win probability, turn by turn") },
    svg("line", { x1: pad, x2: W - pad, y1: y(50), y2: y(50), class: "mid" }),
    svg("text", { x: 2, y: y(100) + 4, class: "axis-label" }, document.createTextNode("100%")),
    svg("text", { x: 2, y: y(50) + 4, class: "axis-label" }, document.createTextNode("50%")),
    svg("text", { x: 2, y: y(0) + 4, class: "axis-label" }, document.createTextNode("0%")),
    [0, 1].map((seat) => svg("polyline", {
      class: `seat-line seat-${seat}`, fill: "none",
      points: judged.map((turn, i) => `${x(i).toFixed(1)},${y(seatWin(turn, seat)).toFixed(1)}`).join(" "),
    })),
    judged.map((turn, i) => {
      const c = svg("circle", {
        class: `point seat-${turn.seat} cls-${CLASSES[turn.class]} grade-${gradeOf(turn)}${turn.turn === r.at ? " current" : ""}`,
        cx: x(i).toFixed(1), cy: y(seatWin(turn, turn.seat)).toFixed(1), r: turn.turn === r.at ? 6 : 4, "data-turn": turn.turn,
        tabindex: "0",
      }, svg("title", {}, document.createTextNode(
        `${t("Turn {n}: {who}", { n: turn.turn + 1, who: r.names[turn.seat] })} · ${moveText(turn.played)} · ${percent(turn.played.win_percent)}`)));
      c.addEventListener("click", () => { r.at = turn.turn; r.moved = true; r.showBest = false; draw(r); });
      return c;
    }));
  const legend = h("p", { class: "legend" }, r.names.map((n, i) => h("span", { class: `key seat-${i}`, text: n })));
  r.graph.replaceChildren(h("h3", { text: t("Win probability") }), chart, legend);
}

function drawTable(r) {
  const two = r.names.length === 2;
  const rows = order(r).map((k) => {
    const turn = r.turns.get(k);
    const cls = turn.analysable ? CLASSES[turn.class] : "none";
    const hidden = turn.puzzle && !r.revealed.has(turn.turn);
    const row = h("tr", { class: `cls-${cls}${turn.turn === r.at ? " current" : ""}`, "data-turn": turn.turn },
      h("td", { text: String(turn.turn + 1) }),
      h("td", { text: r.names[turn.seat] || "" }),
      h("td", { class: "rack-cell", text: turn.rack || "—" }),
      h("td", { text: `${moveText(turn.played)} ${turn.played.score}` }),
      h("td", { text: !turn.analysable ? "—" : hidden ? "?" : `${moveText(turn.best)} ${turn.best.score}` }),
      h("td", { class: "num", text: !turn.analysable ? "—" : two ? percent(turn.win_lost) : turn.win_lost.toFixed(1) }),
      h("td", { class: "class-cell", text: turn.analysable ? t(cls) : t("no rack") }),
      h("td", { class: `grade-cell grade-${gradeOf(turn)}`, text: gradeOf(turn) === "none" ? "" : t(gradeOf(turn)) }));
    row.addEventListener("click", () => { r.at = turn.turn; r.moved = true; r.showBest = false; draw(r); });
    return row;
  });
  r.table.replaceChildren(h("h3", { text: t("Turns") }), h("table", { class: "review-table", id: "review-table" },
    h("thead", {}, h("tr", {}, ["#", t("player"), t("rack"), t("played"), t("best"), two ? t("win lost") : t("equity lost"), t("class"), t("mistake size")].map((x) => h("th", { text: x })))),
    h("tbody", {}, rows)));
  const current = r.table.querySelector("tr.current");
  if (current && current.scrollIntoView && r.done) current.scrollIntoView({ block: "nearest" });
}

function drawSummary(r) {
  if (!r.seats.length) {
    r.summary.replaceChildren();
    return;
  }
  const head = [t("player"), t("accuracy"), t("turns"), t("best"), t("good"), t("inaccuracy"), t("mistake"), t("blunder"),
    t("small"), t("medium"), t("large"), t("mistake index"), t("bingos"), t("missed"), t("phonies"), t("let go")];
  const num = (n, cls = "num") => h("td", { class: cls, text: String(n) });
  const row = (s) => h("tr", { "data-seat": s.seat },
    h("td", { text: s.name || r.names[s.seat] }),
    h("td", { class: "accuracy", text: s.accuracy.toFixed(1) }),
    [s.turns, s.best, s.good, s.inaccuracies, s.mistakes, s.blunders].map((n) => num(n)),
    num(s.small_mistakes || 0, "num grade-small"), num(s.medium_mistakes || 0, "num grade-medium"), num(s.large_mistakes || 0, "num grade-large"),
    h("td", { class: "num mistake-index", text: (s.mistake_index || 0).toFixed(1) }),
    [s.bingos, s.bingos_missed, s.phonies, s.phonies_let_go || 0].map((n) => num(n)));
  const table = h("table", { class: "summary-table", id: "summary-table" },
    h("thead", {}, h("tr", {}, head.map((x) => h("th", { text: x })))),
    h("tbody", {}, r.seats.map(row)));
  r.summary.replaceChildren(h("div", { class: "panel review-summary" }, h("h3", { text: t("Summary") }), table,
    h("p", { class: "meta", text: t("Accuracy is 100 · e^(−mean loss ÷ 10), the loss in points of win probability a turn: best play every turn is 100.") }),
    h("p", { class: "meta", text: t("A mistake is small from 0.5 points of win probability lost, medium from 3, large from 7 (an endgame's from 1, 7 and 15 points of spread, and large whenever it lets a won game go); the mistake index counts each 0.2, 0.5 and 1. “Let go”: the opponent's phonies left unchallenged.") })));
}

function drawPuzzles(r) {
  const puzzles = order(r).map((k) => r.turns.get(k)).filter((x) => x.puzzle);
  r.puzzles.replaceChildren(...(puzzles.length ? [h("h3", { text: t("Puzzles from this game") }),
    h("div", { class: "row-controls" }, puzzles.map((p) => h("button", {
      type: "button", class: `puzzle${r.revealed.has(p.turn) ? " solved" : ""}`, "data-turn": p.turn,
      onclick: () => { r.at = p.turn; r.moved = true; r.showBest = false; draw(r); },
    }, t("turn {n}", { n: p.turn + 1 }))))] : []));
}

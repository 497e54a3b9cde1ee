// The page: one module that routes itself by path. `/` is the lobby, `/games/<id>` a game (to
// play with the seat's token, to watch without), `/director` the director's overview. Seat
// tokens are kept in this browser's localStorage (ui.js: tokenFor) or arrive in the URL's
// fragment, which browsers never send; nothing here writes them anywhere else.

import { call, stream } from "/web/grpc.js";
import { renderBoard, tileElement, boardSize } from "/web/board.js";
import { t, count, lang, setLang } from "/web/i18n.js";
import {
  h, toast, explain, requestId, clock, tokenFor, keepToken, forgetToken, seatLink, rules, rulesetName, challengeNames, splitTiles, writeTiles,
  DIRECTOR_EVENTS, seatName, endReason, eventText, eventPoints, botMark,
} from "/web/ui.js";
import { reviewPage } from "/web/review.js";
import { tournamentPage, tournamentsPage } from "/web/tournament.js";
import { broadcastPage, broadcastsPage, overlayPage } from "/web/broadcast.js";
import { hallPage } from "/web/hall.js";
import { printPage } from "/web/print.js";
import { botsPage } from "/web/bots.js";

const app = document.getElementById("app");

// The frame around every page: its links and the language switch, in the page's language.
function frame() {
  document.documentElement.lang = lang;
  const nav = document.querySelector(".top nav");
  nav.replaceChildren(h("a", { href: "/", text: t("Lobby") }), h("a", { href: "/tournaments", text: t("Tournaments") }),
    h("a", { href: "/broadcasts", text: t("Broadcasts") }), h("a", { href: "/bots", text: t("Bots") }),
    h("a", { href: "/director", text: t("Director") }),
    h("span", { class: "lang-switch", role: "group", "aria-label": t("Language") },
      ...[["en", "English"], ["ru", "Русский"]].map(([code, name]) => h("button", {
        type: "button", class: `link${code === lang ? " current" : ""}`, id: `lang-${code}`, lang: code,
        "aria-pressed": code === lang ? "true" : "false", onclick: () => setLang(code),
      }, name))));
}

// ---- routing ----

async function route() {
  frame();
  const path = location.pathname;
  try {
    const review = path.match(/^\/games\/([^/]+)\/review\/?$/);
    const overlay = path.match(/^\/broadcasts\/([^/]+)\/games\/([^/]+)\/overlay\/?$/);
    const hall = path.match(/^\/tournaments\/([^/]+)\/hall\/?$/);
    const print = path.match(/^\/tournaments\/([^/]+)\/print\/?$/);
    if (path === "/" || path === "") await lobby();
    else if (review) await reviewPage(app, decodeURIComponent(review[1]));
    else if (path.startsWith("/games/")) await gamePage(decodeURIComponent(path.slice(7)));
    else if (path === "/tournaments" || path === "/tournaments/") await tournamentsPage(app);
    else if (hall) await hallPage(app, decodeURIComponent(hall[1]), new URLSearchParams(location.search));
    else if (print) await printPage(app, decodeURIComponent(print[1]), new URLSearchParams(location.search));
    else if (path.startsWith("/tournaments/")) await tournamentPage(app, decodeURIComponent(path.slice(13).replace(/\/$/, "")));
    else if (path === "/broadcasts" || path === "/broadcasts/") await broadcastsPage(app);
    else if (overlay) await overlayPage(app, decodeURIComponent(overlay[1]), decodeURIComponent(overlay[2]));
    else if (path.startsWith("/broadcasts/")) await broadcastPage(app, decodeURIComponent(path.slice(12).replace(/\/$/, "")));
    else if (path === "/bots" || path === "/bots/") await botsPage(app);
    else if (path.startsWith("/director")) await director();
    else app.replaceChildren(h("p", { text: t("No such page.") }));
  } catch (e) {
    app.replaceChildren(h("section", { class: "panel" }, h("h2", { text: t("Something went wrong") }), h("p", { text: explain(e) })));
  }
}

// ---- lobby ----

async function lobby() {
  document.title = `dawgref — ${t("lobby")}`;
  const [all, lexicons] = await Promise.all([rules(), call("LexiconsService", "ListLexicons", {}).catch(() => ({ lexicons: [] }))]);
  // A ruleset is offered when it has a lexicon of its own or the server holds one of its
  // alphabet; the lexicons offered are those it can be played with.
  const playsIn = (k) => lexicons.lexicons.filter((l) => (l.rulesets || []).includes(k));
  const ruleset = h("select", { id: "ruleset", name: "ruleset" },
    Object.keys(all).filter((k) => all[k].lexicon || playsIn(k).length)
      .map((k) => h("option", { value: k, text: rulesetName(k) })));
  ruleset.value = "english";
  const lexicon = h("select", { id: "lexicon" });
  const lexiconsFor = () => lexicon.replaceChildren(
    ...(all[ruleset.value].lexicon ? [h("option", { value: "", text: t("the ruleset's own") })] : []),
    ...playsIn(ruleset.value).map((l) => h("option", { value: l.name, text: `${l.name} (${count(l.words, "word")})` })));
  lexiconsFor();
  ruleset.addEventListener("change", lexiconsFor);
  const challenge = h("select", { id: "challenge" },
    Object.entries(challengeNames()).map(([k, v]) => h("option", { value: k, text: v })));
  const minutes = h("input", { id: "minutes", type: "number", min: "0", max: "600", value: "0" });
  const increment = h("input", { id: "increment", type: "number", min: "0", max: "600", value: "0" });
  const name = h("input", { id: "name", value: sessionStorage.getItem("dawgref:name") || "", placeholder: t("your name"), maxlength: "40" });
  const seats = h("div", { class: "seats" });
  const seatRow = (value) => {
    const select = h("select", { class: "seat-kind" },
      h("option", { value: "bot:BOT_LEVEL_CHAMPION", text: t("Computer — champion (thinks ~1 s)") }),
      h("option", { value: "bot:BOT_LEVEL_STRONG", text: t("Computer — strong") }),
      h("option", { value: "bot:BOT_LEVEL_GREEDY", text: t("Computer — greedy") }),
      h("option", { value: "bot:BOT_LEVEL_WEAK", text: t("Computer — weak") }),
      h("option", { value: "open", text: t("A friend (join link)") }));
    select.value = value;
    const row = h("div", { class: "seat-row" }, h("span", { class: "seat-no" }), select,
      h("button", { type: "button", class: "link", "aria-label": t("remove seat"), onclick: () => { row.remove(); number(); } }, "✕"));
    return row;
  };
  const number = () => [...seats.querySelectorAll(".seat-no")].forEach((s, i) => { s.textContent = t("Seat {n}", { n: i + 2 }); });
  seats.append(seatRow("bot:BOT_LEVEL_STRONG"));
  number();
  const addSeat = h("button", { type: "button", class: "link", onclick: () => {
    if (seats.children.length < 3) { seats.append(seatRow("bot:BOT_LEVEL_STRONG")); number(); }
  } }, t("+ another seat"));

  const create = async (e) => {
    e.preventDefault();
    sessionStorage.setItem("dawgref:name", name.value);
    const spec = [{ human: { name: name.value || t("Player"), open: false } }];
    for (const s of seats.querySelectorAll(".seat-kind")) {
      spec.push(s.value === "open" ? { human: { name: "", open: true } } : { bot: s.value.slice(4) });
    }
    const req = { ruleset_name: ruleset.value, lexicon: lexicon.value, challenge_rule: challenge.value, seats: spec };
    // `/?seed=N` deals a reproducible bag (for demonstrations and the page's own tests).
    const seed = new URLSearchParams(location.search).get("seed");
    if (seed && /^\d+$/.test(seed)) req.seed = Number(seed);
    const m = Number(minutes.value);
    if (m > 0) req.clock = { initial_ms: m * 60000, increment_ms: Number(increment.value) * 1000, max_overtime_ms: 10 * 60000 };
    try {
      const r = await call("GamesService", "CreateGame", req);
      keepToken(r.game_id, r.seat_tokens[0]);
      location.assign(`/games/${r.game_id}`);
    } catch (err) {
      toast(explain(err));
    }
  };
  const joinInput = h("input", { id: "join-link", placeholder: t("a game link or id") });
  const join = (e) => {
    e.preventDefault();
    const text = joinInput.value.trim();
    const id = text.includes("/games/") ? text.split("/games/")[1].split(/[#?/]/)[0] : text;
    if (id) location.assign(`/games/${id}`);
  };
  app.replaceChildren(
    h("section", { class: "hero" },
      h("h1", { text: t("Play a game") }),
      h("p", { class: "sub", text: t("{rulesets}, English Scrabble, Скрэббл and Эрудит among them, refereed to the letter.",
        { rulesets: count(ruleset.options.length, "ruleset") }) })),
    h("div", { class: "lobby" },
      h("form", { class: "panel", id: "create-form", onsubmit: create },
        h("h2", { text: t("New game") }),
        h("label", {}, t("Ruleset"), ruleset),
        h("label", {}, t("Lexicon"), lexicon),
        h("label", {}, t("Challenge rule"), challenge),
        h("div", { class: "pair" }, h("label", {}, t("Clock (minutes, 0: none)"), minutes), h("label", {}, t("Increment (s)"), increment)),
        h("label", {}, t("Seat 1: you"), name),
        seats, addSeat,
        h("button", { id: "create", class: "primary", type: "submit" }, t("Create game"))),
      h("div", {},
        h("form", { class: "panel", onsubmit: join },
          h("h2", { text: t("Join or watch") }),
          h("p", { text: t("Paste the link a friend sent you, or a game id to watch.") }),
          joinInput,
          h("button", { type: "submit" }, t("Open"))),
        wordStudy(lexicons.lexicons))));
}

// ---- word study ----

// A probability as people read it: "1 in 6,000".
function chance(p) {
  if (!(p > 0)) return "—";
  const n = 1 / p;
  return t("1 in {n}", { n: n < 10 ? n.toFixed(1) : Math.round(n).toLocaleString(lang) });
}

function wordStudy(lexicons) {
  const lexicon = h("select", { id: "study-lexicon" }, lexicons.map((l) => h("option", { value: l.name, text: l.name })));
  const kind = h("select", { id: "study-kind" }, h("option", { value: "anagram", text: t("anagrams of") }),
    h("option", { value: "pattern", text: t("words like") }), h("option", { value: "hooks", text: t("hooks of") }));
  const text = h("input", { id: "study-text", placeholder: t("a rack (? blank), a pattern (? * [ab]) or a word"), maxlength: "40" });
  const shorter = h("input", { id: "study-shorter", type: "checkbox" });
  const order = h("select", { id: "study-order" }, h("option", { value: "WORD_ORDER_LENGTH", text: t("longest first") }),
    h("option", { value: "WORD_ORDER_PROBABILITY", text: t("likeliest first") }), h("option", { value: "WORD_ORDER_ALPHABET", text: t("alphabetical") }));
  const out = h("div", { id: "study-result" });
  const run = async (e) => {
    e.preventDefault();
    const request = { lexicon: lexicon.value, order: order.value, limit: 200, [kind.value]: text.value.trim() };
    if (kind.value === "anagram" && shorter.checked) request.min_length = 2;
    const words = [];
    let summary = null;
    try {
      await stream("LexiconsService", "FindWords", request, null, (u) => { words.push(...u.words); if (u.done) summary = u; });
      out.replaceChildren(
        h("p", { class: "meta", id: "study-count", text: `${count(summary ? summary.total : words.length, "word")}${summary && !summary.complete ? "+" : ""}${words.length < (summary ? summary.total : 0) ? t(", the first {n} shown", { n: words.length }) : ""}` }),
        h("ol", { class: "study-words", id: "study-words" }, words.map((w) => h("li", {},
          h("span", { class: "word", text: w.hook ? `${w.word} (${t(w.hook)} ${w.hook_letter})` : w.with_blanks }),
          h("span", { class: "prob", text: chance(w.probability) })))));
    } catch (err) {
      out.replaceChildren(h("p", { class: "bad", id: "study-count", text: explain(err) }));
    }
  };
  return h("form", { class: "panel study", id: "study", onsubmit: run },
    h("h2", { text: t("Word study") }),
    h("div", { class: "pair" }, kind, lexicon), text,
    h("label", { class: "check" }, h("span", {}, shorter, " ", t("shorter words too"))),
    h("div", { class: "pair" }, order, h("button", { type: "submit", id: "study-go", class: "primary" }, t("Find"))),
    out);
}

// ---- the game ----

async function gamePage(id) {
  document.title = `dawgref — ${t("game")}`;
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("token")) {
    keepToken(id, fragment.get("token"));
    history.replaceState(null, "", location.pathname + location.search);
  }
  const all = await rules();
  const g = {
    id, token: tokenFor(id), view: null, fetchedAt: 0, events: [], pending: [],
    cursor: null, exchange: new Set(), exchanging: false, preview: null,
    previewSeq: 0, rules: null, alive: true, selected: null,
  };
  let view;
  try {
    view = (await call("GamesService", "GetGame", { game_id: id }, g.token)).view;
  } catch (e) {
    if (e.codeName === "UNAUTHENTICATED" && g.token) {
      forgetToken(id);
      toast(t("This browser's token for the game is no seat's: watching."));
      g.token = null;
      view = (await call("GamesService", "GetGame", { game_id: id })).view;
    } else throw e;
  }
  g.rules = all[view.ruleset_name] || all.english;
  // The cursor starts on the start square.
  g.cursor = { row: g.rules.start[0], col: g.rules.start[1], across: true };
  setView(g, view);

  // Letters arrive through a field kept out of sight but focused while one plays: a keyboard
  // layout, an input method or a phone's keyboard all deliver text there, not always as keys.
  const typing = h("input", {
    id: "board-input", class: "board-input", autocomplete: "off", autocapitalize: "characters", spellcheck: "false",
    "aria-label": t("type letters to place tiles at the cursor"),
  });
  const board = h("div", { id: "board", class: "board-wrap" });
  g.typing = typing;
  const side = h("aside", { class: "side" });
  app.replaceChildren(h("div", { class: "game" }, h("div", { class: "left" }, typing, board, h("div", { id: "rack-area" })), side));
  typing.addEventListener("input", () => {
    const line = [...typing.value];
    typing.value = "";
    for (const ch of line) typeLetter(g, ch);
    // Letters that come at once (pasted, or a word from an input method) are a whole word.
    if (line.length > 1) settleTyped(g);
  });
  // A click anywhere but on the board (whose squares settle it themselves) ends the word typed.
  document.addEventListener("click", (e) => {
    if (g.typed && e.target !== typing && !(e.target.closest && e.target.closest(".sq"))) settleTyped(g);
  }, true);
  g.boardEl = board;
  g.sideEl = side;
  g.rackEl = document.getElementById("rack-area");
  render(g);

  document.addEventListener("keydown", (e) => onKey(g, e));
  setInterval(() => tickClocks(g), 250);
  // Taking an open seat is no event of the game's history: while a seat is open, ask.
  setInterval(() => { if (!g.view.over && g.view.seats.some((s) => s.open)) refresh(g); }, 1500);
  watch(g);
}

function setView(g, view) {
  // A tile picked on the rack is let go when the rack changes under it.
  if (g.view && view.my_rack !== g.view.my_rack) g.selected = null;
  g.view = view;
  g.fetchedAt = performance.now();
  document.title = `dawgref — ${view.seats.map((s) => s.name || (s.bot ? t("bot") : t("open seat"))).join(" v ")}`;
}

async function refresh(g) {
  try {
    setView(g, (await call("GamesService", "GetGame", { game_id: g.id }, g.token)).view);
    // Tiles placed on squares the board now holds go back to the rack.
    const rows = g.view.board.rows;
    g.pending = g.pending.filter((p) => splitTiles(rows[p.row])[p.col] === ".");
    render(g);
    schedulePreview(g);
  } catch (e) {
    toast(explain(e));
  }
}

async function watch(g) {
  let from = 0;
  for (;;) {
    try {
      await stream("GamesService", "WatchGame", { game_id: g.id, from_event: from }, g.token, (event) => {
        if (event.kind === "turn_undone") {
          // The director took the last turn back: the game's events from `undone_from` on count
          // no more (the director's own stay).
          for (const e of g.events) if (e.number >= event.undone_from && !DIRECTOR_EVENTS.has(e.kind)) e.undone = true;
        }
        g.events.push(event);
        from = event.number + 1;
        clearTimeout(g.refreshTimer);
        g.refreshTimer = setTimeout(() => refresh(g), 30);
      });
      await refresh(g);
      return; // the game is over: its stream closed with OK
    } catch (e) {
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
}

function mySeat(g) {
  return g.view.my_seat === undefined ? null : g.view.my_seat;
}

function rackLetters(g) {
  return splitTiles(g.view.my_rack || "");
}

function occupied(g, r, c) {
  return splitTiles(g.view.board.rows[r])[c] !== "." || g.pending.some((p) => p.row === r && p.col === c);
}

function advance(g) {
  const n = boardSize(g.rules);
  let { row, col } = g.cursor;
  do {
    if (g.cursor.across) col++;
    else row++;
  } while (row < n && col < n && splitTiles(g.view.board.rows[row])[col] !== ".");
  if (row < n && col < n) g.cursor = { ...g.cursor, row, col };
}

function place(g, letter, rackIndex, r = g.cursor.row, c = g.cursor.col, blankLetter = null) {
  if (occupied(g, r, c)) return false;
  const rack = rackLetters(g);
  const blank = rack[rackIndex] === "?";
  g.pending.push({ row: r, col: c, letter: blank ? blankLetter || letter : rack[rackIndex], blank, rackIndex });
  return true;
}

// Which letter the blank at rack `index` stands for, asked (null: the tile is no blank;
// undefined: no letter of the ruleset was given).
function blankAs(g, index) {
  if (rackLetters(g)[index] !== "?") return null;
  const asked = (prompt(t("Which letter does the blank stand for?")) || "").trim().replace(/^\[(.*)\]$/, "$1").toUpperCase();
  const letter = g.rules.aliases[asked] || asked;
  return g.rules.letters.includes(letter) ? letter : undefined;
}

// The tile picked on the rack (a tap), placed on square (r, c), as a drag would place it: a tile
// placed there before goes back to the rack, a blank asks for its letter, and the cursor goes on
// past the square, so that typing carries the word on. A square the board holds keeps the pick.
function placeSelected(g, r, c) {
  if (splitTiles(g.view.board.rows[r])[c] !== ".") return;
  const index = g.selected;
  g.selected = null;
  const blankLetter = blankAs(g, index);
  if (blankLetter === undefined) {
    renderRack(g);
    return;
  }
  g.pending = g.pending.filter((p) => p.row !== r || p.col !== c);
  place(g, blankLetter, index, r, c, blankLetter);
  g.cursor = { ...g.cursor, row: r, col: c };
  advance(g);
  changed(g);
}

function freeIndex(g, ch) {
  const used = new Set(g.pending.map((p) => p.rackIndex));
  return rackLetters(g).findIndex((x, i) => x === ch && !used.has(i));
}

function typeLetter(g, key) {
  // A key is a tile's label, or one of the other spellings the ruleset gives (Catalan's W for L·L,
  // FISE's 1 for CH). Letters toward a tile of several (Spanish C then H, R then R) wait while
  // a tile on the rack could still be spelled, then place the tile they spell: typing a tile's
  // letters places that tile when the rack holds it. What ends the word settles a waiting letter
  // as the tile of that letter (settleTyped).
  const letter = g.rules.aliases[key.toUpperCase()] || key.toUpperCase();
  const labels = g.rules.letters;
  const held = g.typed || "";
  const text = held + letter;
  if (spelledFrom(g, text).length) {
    g.typed = text;
    render(g);
    return true;
  }
  g.typed = "";
  if (labels.includes(text)) return placeTile(g, text) || true;
  if (held) {
    // The waiting letters and this one spell no tile: the waiting ones are a tile of their own.
    placeTile(g, held);
    return typeLetter(g, key);
  }
  return false;
}

// The tiles on the rack, not yet placed, whose labels begin with `text` and are longer.
function spelledFrom(g, text) {
  return g.rules.letters.filter((l) => l.length > text.length && l.startsWith(text) && freeIndex(g, l) >= 0);
}

// The word's end (Enter, a click, a move of the cursor, the end of a pasted line): a letter
// still waiting for the second letter of a longer tile is placed as the tile of that letter.
// False when it could not be (the toast says why).
function settleTyped(g) {
  const held = g.typed;
  if (!held) return true;
  g.typed = "";
  return placeTile(g, held);
}

// Place the tile `letter` at the cursor (a blank when the rack has no such tile): false, and a
// toast saying so, when neither is on the rack.
function placeTile(g, letter) {
  if (splitTiles(g.view.board.rows[g.cursor.row])[g.cursor.col] !== ".") advance(g);
  let index = freeIndex(g, letter);
  let blankLetter = null;
  if (index < 0) {
    index = freeIndex(g, "?");
    blankLetter = letter;
  }
  if (index < 0 || !g.rules.letters.includes(letter)) {
    const [longer] = spelledFrom(g, letter);
    toast(longer
      ? t("{letter} is not on your rack: {keys} places your {tile}", { letter, tile: longer, keys: [...longer].join(" ") })
      : t("{letter} is not on your rack", { letter }));
    changed(g);
    return false;
  }
  if (place(g, letter, index, g.cursor.row, g.cursor.col, blankLetter)) advance(g);
  changed(g);
  return true;
}

function onKey(g, e) {
  const target = e.target;
  const inBoard = target === g.typing;
  if (!inBoard && target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT")) return;
  if (e.ctrlKey || e.metaKey || e.altKey || mySeat(g) === null || g.view.over) return;
  const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
  if (moves[e.key]) {
    settleTyped(g);
    const [dr, dc] = moves[e.key];
    const last = boardSize(g.rules) - 1;
    g.cursor = { ...g.cursor, row: Math.max(0, Math.min(last, g.cursor.row + dr)), col: Math.max(0, Math.min(last, g.cursor.col + dc)) };
    render(g);
  } else if (e.key === " ") {
    settleTyped(g);
    g.cursor = { ...g.cursor, across: !g.cursor.across };
    render(g);
  } else if (e.key === "Backspace") {
    // A waiting letter is taken back first, then the tiles placed, the last first.
    if (g.typed) g.typed = "";
    else {
      const last = g.pending.pop();
      if (last) g.cursor = { ...g.cursor, row: last.row, col: last.col };
    }
    changed(g);
  } else if (e.key === "Escape") {
    g.typed = "";
    g.pending = [];
    g.selected = null;
    changed(g);
  } else if (e.key === "Enter") {
    submitPlay(g);
  } else if (!inBoard && e.key.length === 1 && typeLetter(g, e.key)) {
    // placed (in the board's field, the input event places it)
  } else return;
  e.preventDefault();
}

function changed(g) {
  render(g);
  schedulePreview(g);
}

function schedulePreview(g) {
  clearTimeout(g.previewTimer);
  g.previewTimer = setTimeout(() => preview(g), 120);
}

function tilesOf(g) {
  return g.pending.map((p) => ({ row: p.row, col: p.col, letter: p.letter, blank: p.blank }));
}

async function preview(g) {
  const seq = ++g.previewSeq;
  if (g.pending.length === 0) {
    g.preview = null;
    renderSide(g);
    return;
  }
  try {
    const r = await call("AnalysisService", "ValidatePlay", {
      position: { game_id: g.id }, play: { tiles: tilesOf(g) },
    }, g.token);
    if (seq === g.previewSeq) g.preview = r;
  } catch (e) {
    if (seq === g.previewSeq) g.preview = { valid: false, problems: [{ message: explain(e) }] };
  }
  if (seq === g.previewSeq) renderSide(g);
}

async function submit(g, action, what) {
  try {
    const r = await call("GamesService", "SubmitTurn", {
      game_id: g.id, expected_turn: g.view.turn, request_id: requestId(), ...action,
    }, g.token);
    g.pending = [];
    g.exchange.clear();
    g.exchanging = false;
    g.preview = null;
    setView(g, r.view);
    render(g);
    toast(what(r), "ok");
  } catch (e) {
    toast(explain(e));
  }
}

function submitPlay(g) {
  if (!settleTyped(g) || g.pending.length === 0) return;
  submit(g, { play: { tiles: tilesOf(g) } }, (r) => `${r.play.notation}: ${count(r.points, "point")}`);
}

function render(g) {
  // The first board drawn from the server's view: what BENCHMARKS.md times ("first render").
  if (!g.drawn) {
    g.drawn = true;
    requestAnimationFrame(() => performance.mark("dawgref:board"));
  }
  const last = [...g.events].reverse().find((e) => e.kind === "play");
  const recent = new Set((last && last.play ? last.play.tiles : []).map((x) => `${x.row},${x.col}`));
  const playing = mySeat(g) !== null && !g.view.over;
  // A letter waiting for the second letter of a longer tile shows on the cursor's square.
  const waiting = playing && g.typed
    ? [{ row: g.cursor.row, col: g.cursor.col, letter: g.typed, blank: false, cls: "waiting", label: t("waiting for the next letter:") }] : [];
  renderBoard(g.boardEl, {
    rules: g.rules, rows: g.view.board.rows, pending: [...g.pending, ...waiting], recent,
    cursor: playing ? g.cursor : null,
    onSquare: playing ? (r, c) => {
      // A tile picked on the rack (a tap, as on a phone) goes to the square tapped next.
      if (g.selected !== null && !g.exchanging) {
        settleTyped(g);
        placeSelected(g, r, c);
        return;
      }
      // A click on the square a letter waits on places it there; anywhere else it places it
      // first, then does what a click does.
      const waitingHere = g.typed && g.cursor.row === r && g.cursor.col === c;
      settleTyped(g);
      const at = g.pending.findIndex((p) => p.row === r && p.col === c);
      if (waitingHere) { /* placed */ } else if (at >= 0) g.pending.splice(at, 1);
      else if (g.cursor.row === r && g.cursor.col === c) g.cursor = { ...g.cursor, across: !g.cursor.across };
      if (!waitingHere) g.cursor = { ...g.cursor, row: r, col: c };
      g.typing.focus();
      changed(g);
    } : null,
    onDrop: playing ? (r, c, data) => {
      const index = Number(data);
      if (!Number.isInteger(index) || g.pending.some((p) => p.rackIndex === index)) return;
      const blankLetter = blankAs(g, index);
      if (blankLetter === undefined) return;
      place(g, blankLetter, index, r, c, blankLetter);
      changed(g);
    } : null,
  });
  // Assistive technology follows the cursor square while letters are typed into the board.
  g.typing.setAttribute("aria-activedescendant", `sq-${g.cursor.row}-${g.cursor.col}`);
  renderRack(g);
  renderSide(g);
}

function renderRack(g) {
  const seat = mySeat(g);
  if (seat === null) {
    const open = g.view.seats.some((s) => s.open) && !g.view.over;
    // The form stays as it is while the game moves on: what the visitor typed is kept.
    if (open && g.rackEl.querySelector("form.join")) return;
    g.rackEl.replaceChildren(open ? joinForm(g) : h("p", { class: "watching", text: t("Watching: racks stay hidden.") }));
    return;
  }
  const used = new Set(g.pending.map((p) => p.rackIndex));
  const tiles = rackLetters(g).map((ch, i) => {
    const tile = tileElement(ch, g.rules.values[ch] ?? 0, ch === "?");
    tile.classList.add("rack-tile");
    if (used.has(i)) tile.classList.add("used");
    if (g.exchange.has(i)) tile.classList.add("marked");
    tile.draggable = !used.has(i);
    tile.dataset.index = i;
    tile.setAttribute("role", "listitem");
    tile.setAttribute("aria-label", ch === "?" ? t("blank") : `${ch}, ${count(g.rules.values[ch] ?? 0, "point")}`);
    tile.addEventListener("dragstart", (e) => e.dataTransfer.setData("text/plain", String(i)));
    if (g.selected === i) {
      tile.classList.add("selected");
      tile.setAttribute("aria-current", "true");
    }
    tile.addEventListener("click", () => {
      if (g.exchanging) {
        if (g.exchange.has(i)) g.exchange.delete(i);
        else g.exchange.add(i);
        renderRack(g);
        renderSide(g);
        return;
      }
      if (g.view.over) return;
      // A tap picks the tile (again: lets it go) for the square tapped next; a tile already on
      // the board comes back to the rack.
      const at = g.pending.findIndex((p) => p.rackIndex === i);
      if (at >= 0) {
        g.pending.splice(at, 1);
        g.selected = null;
        changed(g);
        return;
      }
      g.selected = g.selected === i ? null : i;
      renderRack(g);
    });
    return tile;
  });
  const rack = h("div", { class: "rack", id: "rack", role: "list", "aria-label": t("your rack") }, tiles);
  const hint = h("p", { class: "hint", text: g.exchanging
    ? t("Click the tiles to exchange, then Exchange.")
    : t("Click a square and type letters (arrows move, Space turns, Backspace takes back, Enter submits), drag tiles, or click a tile then a square. A letter you lack uses a blank.") });
  if (g.view.over) g.rackEl.replaceChildren(rack);
  else g.rackEl.replaceChildren(rack, hint);
}

function joinForm(g) {
  const name = h("input", { id: "join-name", placeholder: t("your name"), maxlength: "40" });
  return h("form", { class: "join", onsubmit: async (e) => {
    e.preventDefault();
    try {
      const r = await call("GamesService", "JoinGame", { game_id: g.id, name: name.value });
      keepToken(g.id, r.token);
      location.reload();
    } catch (err) {
      toast(explain(err));
    }
  } }, h("span", { text: t("A seat is open in this game.") }), name, h("button", { class: "primary", type: "submit" }, t("Take the seat")));
}

function tickClocks(g) {
  if (!g.view || g.view.over) return;
  const el = document.querySelector(`.seat[data-seat="${g.view.to_move}"] .clock`);
  const seat = g.view.seats[g.view.to_move];
  if (el && seat && seat.time_left_ms !== undefined) {
    const left = seat.time_left_ms - (performance.now() - g.fetchedAt);
    el.textContent = clock(left);
    el.classList.toggle("low", left < 60000);
  }
}

function eventLine(g, e) {
  const points = eventPoints(e);
  return h("li", { class: `ev ${e.kind}${e.undone ? " undone" : ""}` }, h("span", { class: "who", text: seatName(g.view, e.seat) }), h("span", { class: "what", text: eventText(g.view, e) }),
    points !== null ? h("span", { class: "pts", text: points }) : null,
    points !== null ? h("span", { class: "cum", text: String(e.cumulative) }) : null);
}

function renderSide(g) {
  const v = g.view;
  const seat = mySeat(g);
  const seats = v.seats.map((s) => h("div", {
    class: `seat${s.seat === v.to_move && !v.over ? " to-move" : ""}${s.seat === seat ? " me" : ""}${v.winners.includes(s.seat) && v.over ? " winner" : ""}`,
    "data-seat": s.seat,
  },
  h("span", { class: "name" }, s.name || (s.open ? t("open seat") : s.bot ? t("computer") : t("seat {n}", { n: s.seat + 1 })), ...botMark(s)),
  h("span", { class: "score", id: `score-${s.seat}`, text: String(s.score) }),
  s.time_left_ms !== undefined ? h("span", { class: "clock", text: clock(s.time_left_ms) }) : null,
  h("span", { class: "racksize", text: count(s.rack_size, "tile") })));

  // A tournament's game (its labels name the tournament, division and round, however the page
  // was opened): the way back to its round on the tournament's page.
  const { tournament, division, round } = v.labels || {};
  const back = tournament ? h("p", { class: "back" }, h("a", { id: "back-to-tournament",
    href: `/tournaments/${encodeURIComponent(tournament)}${division && round ? `#${encodeURIComponent(`round-${division}-${round}`)}` : ""}`,
    text: `← ${round ? t("{tournament}, round {n}", { tournament, n: round }) : tournament}` })) : null;
  const parts = [back, v.paused ? h("p", { class: "paused", id: "paused", text: t("Paused by the director: turns wait.") }) : null,
    h("div", { class: "scores" }, seats),
    h("p", { class: "meta" }, `${rulesetName(v.ruleset_name)} · ${v.lexicon} · ${t("{rule} challenge", { rule: challengeNames()[v.challenge_rule] || t("Single") })} · ${t("bag")} `,
      h("strong", { id: "bag", text: String(v.bag) }), ` · ${t("turn {n}", { n: v.turn })}`)];

  if (v.over) {
    const names = v.winners.map((w) => seatName(v, w));
    const racks = g.events.filter((e) => e.kind === "end_rack_points" || e.kind === "rack_penalty")
      .map((e) => h("li", { text: `${seatName(v, e.seat)}: ${e.tiles || "—"} (${eventPoints(e)})` }));
    parts.push(h("div", { class: "panel over", id: "game-over" }, h("h3", { text: t("Game over") }),
      h("p", { text: `${endReason(v, v.end_reason)}. ${names.length > 1 ? t("Tie: ") : t("Winner: ")}${names.join(", ")}` }),
      racks.length ? h("ul", { class: "racks" }, racks) : null,
      h("p", {}, h("a", { class: "review-link", id: "review-link", href: `/games/${g.id}/review`, text: t("Review this game: every turn analysed") }))));
  } else if (seat !== null) {
    if (v.seats.some((s) => s.open)) {
      const link = h("input", { id: "invite-link", readonly: true, value: `${location.origin}/games/${g.id}` });
      parts.push(h("div", { class: "invite" }, h("label", {}, t("Send this link to a friend: it opens the free seat"), link)));
    }
    parts.push(previewPanel(g), controls(g));
    // On a phone the rack's hint gives way to this one, under the buttons (style.css).
    parts.push(h("p", { class: "touch-hint", id: "touch-hint", text: g.exchanging ? t("Tap the tiles to exchange, then Exchange.")
      : t("Tap a tile, then a square: it goes there. Tap a placed tile on the rack to take it back.") }));
  } else {
    parts.push(h("p", { class: "to-move-note", text: v.seats[v.to_move] ? t("{who} to move.", { who: seatName(v, v.to_move) }) : "" }));
  }
  if (seat !== null) parts.push(seatPanel(g));
  parts.push(h("h3", { text: t("Moves") }), h("ol", { class: "moves", id: "moves" }, g.events.filter((e) => e.kind !== "game_over").map((e) => eventLine(g, e))));
  parts.push(h("p", { class: "downloads" }, h("button", { type: "button", class: "link", id: "gcg", onclick: () => downloadGcg(g) }, t("Download GCG"))));
  g.sideEl.replaceChildren(...parts.filter(Boolean));
}

// The way back to this seat from another tab, browser or device, and the way to leave it here.
// Folded, and kept as the visitor left it while the panel is drawn again.
function seatPanel(g) {
  const link = h("input", { id: "seat-link", readonly: true, value: seatLink(g.id, g.token) });
  link.addEventListener("focus", () => link.select());
  const panel = h("details", { class: "seat-panel", id: "seat-panel", open: Boolean(g.seatPanelOpen) },
    h("summary", { text: t("Your seat on another device") }),
    h("label", {}, t("This link takes your seat in any browser: keep it to yourself."), link),
    h("p", { class: "meta", text: t("This browser remembers your seat: a reload or another tab comes back to it.") }),
    h("button", { type: "button", id: "leave-seat", class: "danger", onclick: () => {
      if (!confirm(t("Leave your seat on this browser? Only the seat's link brings you back to it."))) return;
      forgetToken(g.id);
      location.reload();
    } }, t("Leave the seat on this browser")));
  panel.addEventListener("toggle", () => { g.seatPanelOpen = panel.open; });
  return panel;
}

function previewPanel(g) {
  const waiting = g.typed ? h("p", { class: "waiting-note", id: "typed-waiting", text: t("{letter} waits for a second letter ({tiles}); Enter or a click places {letter}.",
    { letter: g.typed, tiles: spelledFrom(g, g.typed).join(", ") }) }) : null;
  return h("div", { class: "preview-area" }, scorePreview(g), waiting);
}

function scorePreview(g) {
  const p = g.preview;
  if (!p) return h("div", { class: "preview", id: "preview" }, h("span", { class: "quiet", text: g.pending.length ? "…" : t("Place tiles to see the score.") }));
  if (p.valid) {
    const e = p.evaluation;
    return h("div", { class: "preview valid", id: "preview" },
      h("span", { class: "total", id: "preview-score", text: String(e.total) }), h("span", { text: ` ${t("points")} · ` }),
      h("span", { class: "words", text: e.words.map((w) => `${w.word} ${w.score}`).join(", ") + (e.bonus ? ` · ${t("bonus {n}", { n: e.bonus })}` : "") }));
  }
  return h("div", { class: "preview invalid", id: "preview" }, h("ul", {}, p.problems.map((x) => h("li", { text: x.message }))));
}

function controls(g) {
  const v = g.view;
  const mine = v.to_move === mySeat(g);
  const lastPlay = [...g.events].reverse().find((e) => e.kind === "play");
  const canChallenge = v.challengeable && lastPlay && lastPlay.seat !== mySeat(g);
  const b = (id, label, onclick, enabled = true, cls = "") => h("button", { id, type: "button", class: cls, disabled: !enabled, onclick }, label);
  return h("div", { class: "controls" },
    b("submit", t("Submit"), () => submitPlay(g), mine && (g.pending.length > 0 || Boolean(g.typed)), "primary"),
    b("recall", t("Recall"), () => { g.typed = ""; g.pending = []; g.selected = null; changed(g); }, g.pending.length > 0 || Boolean(g.typed)),
    b("direction", g.cursor.across ? t("→ across") : t("↓ down"), () => { g.cursor = { ...g.cursor, across: !g.cursor.across }; render(g); }),
    g.exchanging
      ? b("exchange", t("Exchange {n}", { n: g.exchange.size }), () => {
        const rack = rackLetters(g);
        const tiles = writeTiles([...g.exchange].map((i) => rack[i]), [...g.rules.letters, ...Object.keys(g.rules.aliases)]);
        const n = g.exchange.size;
        if (!tiles) { g.exchanging = false; render(g); return; }
        submit(g, { exchange: tiles }, () => t("exchanged {n}", { n }));
      }, mine)
      : b("exchange", t("Exchange…"), () => { g.typed = ""; g.pending = []; g.selected = null; g.exchanging = true; render(g); }, mine && v.bag >= 7),
    b("pass", v.awaiting_final_challenge ? t("Accept (pass)") : t("Pass"), () => submit(g, { pass: {} }, () => t("passed")), mine),
    b("challenge", t("Challenge"), async () => {
      try {
        const r = await call("GamesService", "Challenge", { game_id: g.id, request_id: requestId() }, g.token);
        setView(g, r.view);
        render(g);
        toast(r.acceptable ? t("The play stands.") : `${t("The play comes off")}${r.invalid_words.length ? ": " + r.invalid_words.join(", ") : ""}.`, "ok");
      } catch (e) { toast(explain(e)); }
    }, canChallenge),
    b("resign", t("Resign"), () => { if (confirm(t("Resign this game?"))) submit(g, { resign: {} }, () => t("resigned")); }, true, "danger"));
}

async function downloadGcg(g) {
  try {
    const r = await call("GamesService", "ExportGcg", { game_id: g.id }, g.token);
    const a = h("a", { href: URL.createObjectURL(new Blob([r.gcg], { type: "text/plain" })), download: `${g.id}.gcg` });
    document.body.append(a);
    a.click();
    a.remove();
  } catch (e) {
    toast(explain(e));
  }
}

// ---- the director ----

async function director() {
  document.title = `dawgref — ${t("director")}`;
  const all = await rules();
  const tokenInput = h("input", { id: "director-token", type: "password", placeholder: t("director token"), value: sessionStorage.getItem("dawgref:director") || "" });
  const query = h("input", { id: "query", type: "search", placeholder: t("game id or player") });
  const list = h("div", { class: "tables", id: "tables" });
  const info = h("p", { class: "meta", id: "list-info" });
  const pages = [""];
  let page = 0;
  const nav = h("div", { class: "paging" });
  const load = async () => {
    const token = tokenInput.value.trim();
    if (!token) { info.textContent = t("Enter a director token: the server's, or a director key's."); return; }
    sessionStorage.setItem("dawgref:director", token);
    try {
      const r = await call("GamesService", "ListGames", { page_size: 24, page_token: pages[page], query: query.value.trim() }, token);
      info.textContent = count(r.total, "live game");
      list.replaceChildren(...r.games.map((v) => h("div", { class: "table-slot" }, table(all, v),
        h("button", { type: "button", class: "link manage", "data-manage": v.game_id, onclick: () => manage(token, v) }, t("Manage…")))));
      pages.length = page + 1;
      if (r.next_page_token) pages.push(r.next_page_token);
      nav.replaceChildren(
        h("button", { type: "button", disabled: page === 0, onclick: () => { page--; load(); } }, t("← previous")),
        h("span", { text: ` ${t("page {n}", { n: page + 1 })} ` }),
        h("button", { type: "button", disabled: !r.next_page_token, onclick: () => { page++; load(); } }, t("next →")));
    } catch (e) {
      info.textContent = explain(e);
      list.replaceChildren();
    }
  };
  tokenInput.addEventListener("change", () => { page = 0; load(); });
  const go = h("button", { id: "director-go", type: "button", class: "primary", onclick: () => { page = 0; load(); } }, t("Show games"));
  query.addEventListener("input", () => { page = 0; pages.length = 1; load(); });
  app.replaceChildren(
    h("section", { class: "hero" }, h("h1", { text: t("Tournament director") }),
      h("p", { class: "sub" }, h("a", { href: "/tournaments", id: "to-tournaments", text: t("Tournaments: pairings, rounds and standings →") }))),
    h("div", { class: "panel director-bar" }, tokenInput, go, query, info, nav),
    h("div", { id: "manage-panel" }),
    list,
    importPanel(all));
  await load();
  setInterval(load, 2000);
}

// A game's director controls: each action asks for its reason (or a confirmation) before it goes.
function manage(token, v) {
  const panel = document.getElementById("manage-panel");
  const out = h("p", { class: "meta", id: "manage-result" });
  const act = async (method, request, what) => {
    try {
      const r = await call("DirectorsService", method, { game_id: v.game_id, request_id: requestId(), ...request }, token);
      v = r.view;
      out.textContent = `${what}: ${t("done")}. ${t("Scores")} ${v.seats.map((s) => s.score).join(" – ")}${v.paused ? ` · ${t("paused")}` : ""}${v.over ? ` · ${t("over")}` : ""}.`;
      out.className = "ok";
    } catch (e) {
      out.textContent = explain(e);
      out.className = "bad";
    }
  };
  const seatSelect = (id) => h("select", { id }, v.seats.map((s) => h("option", { value: String(s.seat), text: s.name || t("seat {n}", { n: s.seat + 1 }) })));
  const reason = (id) => h("input", { id, placeholder: t("reason"), maxlength: "200" });
  // Two steps: the first click asks, the second does.
  const confirmed = (id, label, run) => {
    const b = h("button", { type: "button", id, class: "danger" }, label);
    b.addEventListener("click", () => {
      if (b.dataset.armed) { delete b.dataset.armed; b.textContent = label; run(); }
      else { b.dataset.armed = "1"; b.textContent = t("{action}: sure?", { action: label }); }
    });
    return b;
  };
  const scoreSeat = seatSelect("adjust-seat"), points = h("input", { id: "adjust-points", type: "number", value: "0" }), scoreWhy = reason("adjust-reason");
  const clockSeat = seatSelect("clock-seat"), seconds = h("input", { id: "clock-seconds", type: "number", value: "0" }), clockWhy = reason("clock-reason");
  const resultKind = h("select", { id: "result-kind" }, h("option", { value: "forfeit", text: t("forfeit by") }),
    h("option", { value: "adjudicated", text: t("adjudicated scores") }), h("option", { value: "void", text: t("void") }));
  const forfeitSeat = seatSelect("forfeit-seat");
  const scores = h("input", { id: "result-scores", placeholder: t("scores in seat order, e.g. 350 320") });
  const resultWhy = reason("result-reason");
  const note = h("input", { id: "note-text", placeholder: t("a note for the record"), maxlength: "1000" });
  panel.replaceChildren(h("div", { class: "panel manage", id: "manage", "data-game": v.game_id },
    h("h2", { text: `${t("Game {id}", { id: v.game_id.slice(0, 8) })}: ${v.seats.map((s) => s.name).join(" v ")}${v.paused ? ` (${t("paused")})` : ""}` }),
    h("div", { class: "row-controls" },
      h("button", { type: "button", id: "pause", onclick: () => act("PauseGame", {}, t("paused")) }, t("Pause")),
      h("button", { type: "button", id: "resume", onclick: () => act("ResumeGame", {}, t("resumed")) }, t("Resume")),
      confirmed("undo", t("Undo the last turn"), () => act("UndoTurn", {}, t("last turn undone")))),
    h("div", { class: "row-controls" }, h("span", { text: t("Score") }), scoreSeat, points, scoreWhy,
      h("button", { type: "button", id: "adjust", onclick: () => act("AdjustScore", { seat: Number(scoreSeat.value), points: Number(points.value), reason: scoreWhy.value }, t("score adjusted")) }, t("Adjust"))),
    h("div", { class: "row-controls" }, h("span", { text: t("Clock (s)") }), clockSeat, seconds, clockWhy,
      h("button", { type: "button", id: "adjust-clock", onclick: () => act("AdjustClock", { seat: Number(clockSeat.value), delta_ms: String(Number(seconds.value) * 1000), reason: clockWhy.value }, t("clock adjusted")) }, t("Adjust"))),
    h("div", { class: "row-controls" }, h("span", { text: t("Result") }), resultKind, forfeitSeat, scores, resultWhy,
      confirmed("set-result", t("End the game"), () => {
        const r = { reason: resultWhy.value };
        if (resultKind.value === "forfeit") r.forfeit = Number(forfeitSeat.value);
        else if (resultKind.value === "adjudicated") r.adjudicated = { scores: scores.value.trim().split(/[\s,]+/).filter(Boolean).map(Number) };
        else r.void = {};
        act("SetResult", r, t("result set"));
      })),
    h("div", { class: "row-controls" }, h("span", { text: t("Note") }), note,
      h("button", { type: "button", id: "add-note", onclick: () => act("AddNote", { text: note.value }, t("note added")) }, t("Add"))),
    out));
}

function table(all, v) {
  const rules = all[v.ruleset_name] || all.english;
  const mini = h("div", { class: "mini" });
  renderBoard(mini, { rules, rows: v.board.rows, small: true });
  return h("a", { class: "table-card", href: `/games/${v.game_id}`, "data-game": v.game_id },
    mini,
    h("div", { class: "table-info" },
      v.seats.map((s) => h("div", { class: `line${s.seat === v.to_move ? " to-move" : ""}` },
        h("span", { class: "name" }, s.name || (s.bot ? t("computer") : t("open seat")), ...botMark(s)),
        h("span", { class: "score", text: String(s.score) }),
        s.time_left_ms !== undefined ? h("span", { class: "clock", text: clock(s.time_left_ms) }) : null)),
      h("div", { class: "meta", text: `${rulesetName(v.ruleset_name)} · ${t("turn {n}", { n: v.turn })} · ${t("bag")} ${v.bag}${v.paused ? ` · ${t("paused")}` : ""}` }),
      h("code", { class: "id", text: v.game_id.slice(0, 8) })));
}

function importPanel(all) {
  const text = h("textarea", { id: "gcg-text", rows: "8", placeholder: "#player1 …\n#player2 …\n>…" });
  const file = h("input", { id: "gcg-file", type: "file", accept: ".gcg,text/plain" });
  file.addEventListener("change", async () => { if (file.files[0]) text.value = await file.files[0].text(); });
  const ruleset = h("select", { id: "gcg-ruleset" }, h("option", { value: "", text: t("from the record") }),
    Object.keys(all).map((k) => h("option", { value: k, text: rulesetName(k) })));
  const out = h("div", { id: "import-result" });
  const run = async (e) => {
    e.preventDefault();
    try {
      const r = await call("GamesService", "ImportGcg", { gcg: text.value, ruleset_name: ruleset.value }, null);
      const rows = r.mismatches.map((m) => h("tr", {},
        h("td", { text: String(m.line) }), h("td", {}, h("code", { text: m.text })),
        h("td", { text: `${m.recorded_score} / ${m.recorded_total}` }),
        h("td", { text: `${m.recomputed_score} / ${m.recomputed_total}` }), h("td", { text: m.note })));
      const n = r.mismatches.length;
      out.replaceChildren(...[
        h("p", { class: r.ok ? "ok" : "bad", id: "import-verdict", text: r.ok ? t("Every score in the record matches.") : n === 1 ? t("1 line differs from the replay.") : t("{lines} differ from the replay.", { lines: count(n, "line") }) }),
        h("p", {}, `${r.players.join(" v ")}: ${r.final_scores.join(" – ")} · `, h("a", { href: `/games/${r.game_id}`, text: t("open the game") }),
          r.game_id ? " · " : null, r.game_id ? h("a", { href: `/games/${r.game_id}/review`, text: t("review it") }) : null),
        rows.length ? h("table", { class: "mismatches", id: "mismatches" },
          h("thead", {}, h("tr", {}, [t("line"), t("record"), t("recorded score / total"), t("replayed"), t("note")].map((x) => h("th", { text: x })))),
          h("tbody", {}, rows)) : null,
        r.unknown_words.length ? h("p", { text: t("Not in the lexicon: {words}", { words: r.unknown_words.join(", ") }) }) : null,
      ].filter(Boolean));
    } catch (err) {
      out.replaceChildren(h("p", { class: "bad", id: "import-verdict", text: explain(err) }));
    }
  };
  return h("form", { class: "panel import", onsubmit: run },
    h("h2", { text: t("Check a record") }), h("p", { text: t("Upload or paste a GCG file: every score is replayed and each line that differs is shown.") }),
    h("div", { class: "pair" }, file, ruleset), text, h("button", { class: "primary", type: "submit", id: "import" }, t("Replay the record")), out);
}

route();

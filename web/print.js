// The print page (`/tournaments/<slug>/print`): what a director prints for the playing hall,
// division by division. A scorecard for each player (not withdrawn), each on a page of its own:
// the tournament, the division, the player's name, number and rating, then a row a round of the
// division: the opponent (name and number, "bye", or blank while the round is not paired),
// first or second, the table, and boxes for the player's score, the opponent's, the game's
// spread and the running record (won–lost and the total spread), filled in for the results in
// and left empty for the player to write in. Then each paired round's pairing sheet: every player
// by name (the page's language's order, as the hall display's), with their table, opponent and
// first or second, each sheet starting a page (a long one runs on to the next).
//
// `?division=<name>`: that division only (else every division, each one's cards then its
// sheets); `?paper=a4|letter` (A4 unless given); `?what=cards|sheets|both` (both unless given).
// On screen the pages are shown as paper under a toolbar (paper, what, Print); printed, only
// the pages are: no frame, no toolbar, and no header or footer of the page's own.

import { call } from "/web/grpc.js";
import { t, lang } from "/web/i18n.js";
import { h, explain, nameCollator, isBot, botLabel, botMark } from "/web/ui.js";

/** The papers printed on: the CSS `@page` size of each, and its margins. */
export const PAPERS = {
  a4: { size: "A4 portrait", margin: "12mm", name: "A4" },
  letter: { size: "letter portrait", margin: "0.5in", name: "US Letter" },
};

const WHAT = ["both", "cards", "sheets"];

export async function printPage(app, slug, params) {
  document.body.classList.add("print-view");
  document.title = `${t("Scorecards and pairing sheets")} — ${slug}`;
  const only = params.get("division");
  let paper = PAPERS[params.get("paper")] ? params.get("paper") : "a4";
  let what = WHAT.includes(params.get("what")) ? params.get("what") : "both";

  // The paper's size as the browser prints it (a style of its own, changed with the choice).
  const pageRule = document.getElementById("print-paper") || document.head.appendChild(h("style", { id: "print-paper" }));
  const pages = h("div", { class: "print-pages", id: "print-pages", lang });
  const paperSelect = h("select", { id: "print-paper-choice" },
    Object.entries(PAPERS).map(([k, p]) => h("option", { value: k, text: p.name })));
  const whatSelect = h("select", { id: "print-what" },
    [["both", t("Scorecards and sheets")], ["cards", t("Scorecards")], ["sheets", t("Pairing sheets")]]
      .map(([k, text]) => h("option", { value: k, text })));
  const bar = h("div", { class: "print-bar", id: "print-bar" },
    h("label", {}, t("Paper"), paperSelect), h("label", {}, t("What to print"), whatSelect),
    h("button", { type: "button", class: "primary", id: "print-button", onclick: () => window.print() }, t("Print")));
  app.replaceChildren(bar, pages);

  let tournament = null;
  // The choices into the URL (a reload or a bookmark prints the same), the page drawn again.
  const choose = () => {
    const q = new URLSearchParams(location.search);
    q.set("paper", paper);
    q.set("what", what);
    history.replaceState(null, "", `${location.pathname}?${q}`);
    draw();
  };
  paperSelect.value = paper;
  whatSelect.value = what;
  paperSelect.addEventListener("change", () => { paper = paperSelect.value; choose(); });
  whatSelect.addEventListener("change", () => { what = whatSelect.value; choose(); });

  const draw = () => {
    const p = PAPERS[paper];
    pageRule.textContent = `@page { size: ${p.size}; margin: ${p.margin}; }`;
    document.body.dataset.paper = paper;
    const divisions = tournament.divisions.filter((d) => !only || d.name === only);
    const out = [];
    for (const d of divisions) {
      if (what !== "sheets") {
        for (const pl of d.players) if (!pl.withdrawn) out.push(scorecard(tournament, d, pl));
      }
      if (what !== "cards") {
        for (const r of d.rounds) if (r.paired) out.push(pairingSheet(tournament, d, r));
      }
    }
    if (out.length === 0) {
      const why = only && divisions.length === 0 ? t("This tournament has no division {name}.", { name: only })
        : what === "sheets" ? t("Nothing to print: no round is paired yet.") : t("No players yet.");
      pages.replaceChildren(h("p", { class: "print-note", id: "print-note", text: why }));
      pages.dataset.ready = "true";
      return;
    }
    pages.replaceChildren(...out);
    pages.dataset.ready = "true";
  };

  try {
    tournament = (await call("TournamentsService", "GetTournament", { slug })).tournament;
  } catch (e) {
    pages.replaceChildren(h("p", { class: "print-note", id: "print-note", text: explain(e) }));
    pages.dataset.ready = "true";
    return;
  }
  document.title = `${t("Scorecards and pairing sheets")} — ${tournament.name}`;
  draw();
}

// A number with its sign, as spreads are written ("+31", "-12", "0").
const signed = (n) => (n > 0 ? `+${n}` : String(n));

// The head of every page: the tournament and the division, then what the page is.
function pageHead(tournament, d, ...title) {
  return h("header", { class: "print-head" },
    h("div", { class: "print-event" }, h("span", { class: "print-tournament", text: tournament.name }), " · ",
      h("span", { class: "print-division", text: t("Division {name}", { name: d.name }) })),
    h("h2", { class: "print-title" }, ...title));
}

// A player as a card or a line names them: their name and number.
const named = (d, n) => `${(d.players[n - 1] || {}).name || ""} (${t("#")}${n})`;

// The spread a pairing's result counts for the player of `seat` (0: first, 1: second), as the
// standings count it: a game's capped by the division's spread cap, a forfeit's the division's
// forfeit spread; null while no result is in.
function counted(d, p, seat) {
  if (!p.second) return Number(p.bye_spread || 0);
  if (!p.done) return null;
  const me = seat === 0 ? p.first : p.second;
  if (p.forfeited_by) {
    const s = Number((d.controls || {}).forfeit_spread ?? 50);
    return p.forfeited_by === me ? -s : s;
  }
  const [a, b] = seat === 0 ? p.scores : [...p.scores].reverse();
  const cap = Number((d.controls || {}).spread_cap || 0);
  const s = Number(a ?? 0) - Number(b ?? 0);
  return cap ? Math.max(-cap, Math.min(cap, s)) : s;
}

// A player's scorecard: a row a round, the results in filled, the running record kept while
// every round before is in.
function scorecard(tournament, d, pl) {
  let wins = 0, losses = 0, spread = 0, known = true;
  const rows = d.rounds.map((r) => {
    const cells = { opponent: "", move: "", table: "", mine: "", theirs: "", spread: "", record: "", total: "" };
    const p = r.paired ? r.pairings.find((x) => x.first === pl.number || x.second === pl.number) : null;
    let s = null;
    if (r.paired && !p) {
      cells.opponent = t("not paired");
    } else if (p && !p.second) {
      cells.opponent = p.bye_spread >= 0 ? t("bye") : t("absent");
      s = counted(d, p, 0);
    } else if (p) {
      const seat = p.first === pl.number ? 0 : 1;
      cells.opponent = named(d, seat === 0 ? p.second : p.first);
      cells.move = seat === 0 ? t("first") : t("second");
      cells.table = Number(p.table || 0) ? String(p.table) : "";
      s = counted(d, p, seat);
      if (p.done && p.forfeited_by) {
        cells.mine = p.forfeited_by === pl.number ? t("lost by forfeit") : t("won by forfeit");
      } else if (p.done) {
        const [a, b] = seat === 0 ? p.scores : [...p.scores].reverse();
        cells.mine = String(a ?? 0);
        cells.theirs = String(b ?? 0);
      }
    }
    if (s === null) known = false;
    else {
      cells.spread = signed(s);
      if (known) {
        if (s > 0) wins += 1; else if (s < 0) losses += 1; else wins += 0.5;
        spread += s;
        cells.record = `${wins}–${losses}`;
        cells.total = signed(spread);
      }
    }
    const forfeit = p && p.done && p.forfeited_by;
    return h("tr", { "data-round": String(r.number) },
      h("td", { class: "print-round", text: String(r.number) }),
      h("td", { class: "print-opponent", text: cells.opponent }),
      h("td", { class: "print-move", text: cells.move }),
      h("td", { class: "print-table", text: cells.table }),
      forfeit ? h("td", { class: "print-box print-mine print-forfeit", colspan: "2", text: cells.mine })
        : [h("td", { class: "print-box print-mine", text: cells.mine }), h("td", { class: "print-box print-theirs", text: cells.theirs })],
      h("td", { class: "print-box print-spread", text: cells.spread }),
      h("td", { class: "print-box print-record", text: cells.record }),
      h("td", { class: "print-box print-total", text: cells.total }));
  });
  return h("section", { class: "print-sheet print-card", "data-division": d.name, "data-player": String(pl.number),
    style: `--rounds: ${Math.max(d.rounds.length, 1)}` },
  pageHead(tournament, d,
    h("span", { class: "print-name" }, pl.name, ...botMark(pl)), " ",
    h("span", { class: "print-number", text: `${t("#")}${pl.number}` }),
    pl.rating ? [" ", h("span", { class: "print-rating", text: t("Rating {n}", { n: pl.rating }) })] : ""),
  h("table", { class: "print-rounds" },
    h("colgroup", {}, ["round", "opponent", "move", "table", "mine", "theirs", "spread", "record", "total"]
      .map((c) => h("col", { class: `print-col-${c}` }))),
    h("thead", {}, h("tr", {}, [t("Round"), t("Opponent"), t("Plays"), t("Table"), t("My score"), t("Opponent's score"),
      t("Spread"), t("Won–lost"), t("Total spread")].map((x) => h("th", { text: x })))),
    h("tbody", {}, rows)));
}

// A round's pairing sheet: each player of the round by name, their table, opponent and first or
// second, or their bye; an active player the round leaves out (a late entry) as not paired.
function pairingSheet(tournament, d, round) {
  const collator = nameCollator();
  const name = (n) => (d.players[n - 1] || {}).name || `${t("#")}${n}`;
  const rows = [];
  const paired = new Set();
  for (const p of round.pairings) {
    const table = Number(p.table || 0) ? String(p.table) : "";
    const sides = p.second ? [[p.first, p.second, 0], [p.second, p.first, 1]] : [[p.first, 0, 0]];
    for (const [me, them, seat] of sides) {
      paired.add(me);
      rows.push({ player: me, name: name(me), bot: isBot(d.players[me - 1]), table,
        opponent: them ? name(them) : p.bye_spread >= 0 ? t("bye") : t("absent"),
        move: them ? (seat === 0 ? t("first") : t("second")) : "" });
    }
  }
  for (const pl of d.players) {
    if (!pl.withdrawn && !paired.has(pl.number)) {
      rows.push({ player: pl.number, name: pl.name, table: "", opponent: t("not paired"), move: "" });
    }
  }
  rows.sort((a, b) => collator.compare(a.name, b.name) || a.player - b.player);
  return h("section", { class: "print-sheet print-pairings", "data-division": d.name, "data-round": String(round.number) },
    pageHead(tournament, d, t("Round {n}", { n: round.number }), " · ", t("Pairings by name")),
    h("table", { class: "print-list" },
      h("colgroup", {}, ["name", "table", "opponent", "move"].map((c) => h("col", { class: `print-col-${c}` }))),
      h("thead", {}, h("tr", {}, [t("Player"), t("Table"), t("Opponent"), t("Plays")].map((x) => h("th", { text: x })))),
      h("tbody", {}, rows.map((r) => h("tr", { "data-player": String(r.player) },
        h("td", { class: "print-name" }, r.name, ...(r.bot ? [" ", botLabel()] : [])),
        h("td", { class: "print-table", text: r.table }),
        h("td", { class: "print-opponent", text: r.opponent }),
        h("td", { class: "print-move", text: r.move }))))));
}

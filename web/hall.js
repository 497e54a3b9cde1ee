// The hall display (`/tournaments/<slug>/hall`): a page for a projector or a TV in the playing
// hall, full screen, no frame, its type sized from the screen. It cycles on its own through each
// division's screens: the current round (the last one paired) as alpha pairings, TSH's way (every
// player of the round by name, in the page's language's alphabetical order, with their table,
// their opponent, whether they move first or second, or their bye, and the result once it is in),
// then the standings as the server ranks them (place, name, wins–losses, spread), then, once
// every round of the division is paired and every result of it is in, its prizes as
// GetDivisionPrizes awards them (each prize as the server names it, its value, who takes it and
// by what: their record and spread, or the game's score; or nobody, and why). A list longer than
// the screen is cut into pages that take their turns ("page 2 of 5"): as many rows as fit the
// screen once laid out, so that nothing ever scrolls, whatever the screen and the number of
// players. WatchTournament keeps it current: each change redraws the screen shown, in place,
// without restarting the cycle; a division's prizes are read again on each change of that
// division only (and on a stream opened again, which may have missed some).
//
// It times itself: each drawing of a screen, and each planning of the screens (every list laid
// out and measured to cut it), is one figure in milliseconds, the last RENDERS_KEPT of them on
// `window.__hallRenderMs`, for the measuring test of a 1,000-player division (BENCHMARKS.md).
//
// `?division=<name>`: that division only (else every division in turn); `?seconds=N`: each
// screen's time, 1 to 600 seconds (SECONDS unless given).

import { call, stream } from "/web/grpc.js";
import { t, lang } from "/web/i18n.js";
import { h, explain, nameCollator, isBot, botLabel } from "/web/ui.js";

/** How long a screen stays up, in seconds, unless `?seconds=` says otherwise. */
export const SECONDS = 12;

/** How many render times `window.__hallRenderMs` keeps (the newest last). */
export const RENDERS_KEPT = 500;

export async function hallPage(app, slug, params) {
  document.body.classList.add("hall");
  document.documentElement.classList.add("hall");
  document.title = `${t("Hall display")} — ${slug}`;
  const asked = Number(params.get("seconds"));
  const seconds = Number.isFinite(asked) && asked >= 1 ? Math.min(asked, 600) : SECONDS;
  const only = params.get("division");
  const collator = nameCollator();

  const title = h("div", { class: "hall-title", id: "hall-title", text: slug });
  const what = h("div", { class: "hall-what", id: "hall-what" });
  const pageNo = h("div", { class: "hall-page", id: "hall-page" });
  const body = h("div", { class: "hall-body", id: "hall-body" });
  const progress = h("span", {});
  const root = h("div", { class: "hall-screen", id: "hall", lang },
    h("header", { class: "hall-head" }, title, what, pageNo), body,
    h("div", { class: "hall-progress", "aria-hidden": "true" }, progress));
  app.replaceChildren(root);

  // The tournament as last read; its screens, each {key, division, kind, rows, page, pages,
  // round}; the one shown. Each division's prizes as last read (GetDivisionPrizes's answer), for
  // a division whose results are all in.
  let tournament = null;
  let screens = [];
  let at = 0;
  const prizes = new Map();

  // Each outermost drawing timed (a screen drawn within a planning is the planning's figure).
  const renders = (window.__hallRenderMs = []);
  let timing = false;
  const timed = (draw) => () => {
    if (timing) return draw();
    timing = true;
    const started = performance.now();
    try {
      return draw();
    } finally {
      timing = false;
      renders.push(Math.round((performance.now() - started) * 100) / 100);
      if (renders.length > RENDERS_KEPT) renders.splice(0, renders.length - RENDERS_KEPT);
    }
  };

  const divisions = () => (tournament ? tournament.divisions.filter((d) => !only || d.name === only) : []);

  // Every screen of every division shown, its lists cut to the screen as it is laid out now.
  const plan = () => {
    const out = [];
    for (const d of divisions()) {
      const round = [...d.rounds].reverse().find((r) => r.paired);
      const lists = [];
      if (round) lists.push({ kind: "pairings", round: round.number, rows: alphaPairings(d, round, collator) });
      lists.push({ kind: "standings", round: 0, rows: standings(d) });
      const won = prizes.get(d.name);
      if (won && won.prizes.length && complete(d)) lists.push({ kind: "prizes", round: 0, rows: prizeRows(d, won) });
      for (const list of lists) {
        const pages = cut(list.kind, list.rows);
        pages.forEach((rows, i) => out.push({
          key: `${d.name}|${list.kind}|${i}`, division: d.name, kind: list.kind, round: list.round,
          rows, page: i + 1, pages: pages.length,
        }));
      }
    }
    return out;
  };

  // The rows of a list in pages: each page as many rows as the body holds. Every row is one line
  // (its cells never wrap), so a row of each look the list has (the first; a bye, a withdrawn
  // player, a prize nobody takes or shared) is laid out in the list's own table (within this task:
  // nothing of it is painted), and the tallest is every row's height: a 1,000-player list is
  // cut by arithmetic, not by laying out a thousand rows at each change.
  const cut = (kind, rows) => {
    if (rows.length === 0) return [[]];
    const looks = new Map();
    for (const r of rows) {
      const look = `${!!r.bye}|${!!r.withdrawn}|${!r.player}|${!!r.shared}`;
      if (!looks.has(look)) looks.set(look, r);
    }
    const table = listTable(kind, [...looks.values()]);
    body.replaceChildren(table);
    const room = body.getBoundingClientRect().bottom;
    const trs = [...table.tBodies[0].rows].map((tr) => tr.getBoundingClientRect());
    const tallest = Math.max(...trs.map((r) => r.height));
    // A pixel spare: rows laid out at fractions of a pixel must not add up past the bottom.
    const fit = Math.max(1, Math.floor((room - trs[0].top - 1) / tallest));
    const pages = [];
    for (let start = 0; start < rows.length; start += fit) pages.push(rows.slice(start, start + fit));
    return pages;
  };

  // The screen `at`, drawn from the rows it holds now.
  const show = timed(() => {
    const s = screens[at];
    title.textContent = tournament ? tournament.name : slug;
    if (!s) {
      what.textContent = "";
      pageNo.textContent = "";
      root.dataset.screen = "none";
      body.replaceChildren(h("p", { class: "hall-note", id: "hall-note",
        text: only ? t("This tournament has no division {name}.", { name: only }) : t("No players yet.") }));
      return;
    }
    const parts = [];
    if (tournament.divisions.length > 1) parts.push(t("Division {name}", { name: s.division }));
    if (s.kind === "pairings") parts.push(t("Round {n}", { n: s.round }), t("Pairings by name"));
    else if (s.kind === "prizes") parts.push(t("Prizes"));
    else parts.push(t("Standings"));
    what.textContent = parts.join(" · ");
    pageNo.textContent = s.pages > 1 ? t("page {n} of {m}", { n: s.page, m: s.pages }) : "";
    Object.assign(root.dataset, { screen: s.kind, division: s.division, page: String(s.page), pages: String(s.pages) });
    body.replaceChildren(s.rows.length
      ? listTable(s.kind, s.rows)
      : h("p", { class: "hall-note", id: "hall-note", text: t("No players yet.") }));
    // A page cut for another layout than this one (the heading's lines, the window): cut again.
    const rows = body.querySelectorAll("tbody tr");
    if (!again && rows.length > 1 && rows[rows.length - 1].getBoundingClientRect().bottom > body.getBoundingClientRect().bottom + 0.5) {
      again = true;
      replan();
      again = false;
    }
  });
  let again = false;

  // The screens again (the tournament changed, or the screen did), the one shown kept: the same
  // page of the same list if it is still there, else that list's last page, else the same place.
  const replan = timed(() => {
    const was = screens[at];
    screens = plan();
    if (was) {
      const same = screens.findIndex((s) => s.key === was.key);
      const list = screens.map((s, i) => [s, i]).filter(([s]) => s.division === was.division && s.kind === was.kind);
      at = same >= 0 ? same : list.length ? list[list.length - 1][1] : Math.min(at, Math.max(0, screens.length - 1));
    } else at = 0;
    show();
  });

  // The cycle: a screen each `seconds`, the bar along the bottom showing the time left.
  const restartBar = () => {
    progress.classList.remove("running");
    progress.style.animationDuration = `${seconds}s`;
    void progress.offsetWidth;
    progress.classList.add("running");
  };
  const next = () => {
    if (screens.length) at = (at + 1) % screens.length;
    show();
    restartBar();
    setTimeout(next, seconds * 1000);
  };

  // The tournament read again, and the prizes of each division shown whose results are all in:
  // read again when `changed` names it (or is null: anything may have changed), else kept.
  const load = async (changed = null) => {
    const r = await call("TournamentsService", "GetTournament", { slug });
    const reads = [];
    for (const d of r.tournament.divisions.filter((x) => !only || x.name === only)) {
      if (!complete(d)) prizes.delete(d.name);
      else if (!changed || changed.has(d.name) || !prizes.has(d.name)) {
        reads.push(call("TournamentsService", "GetDivisionPrizes", { slug, division: d.name })
          .then((p) => prizes.set(d.name, p), () => prizes.delete(d.name)));
      }
    }
    await Promise.all(reads);
    tournament = r.tournament;
    document.title = `${t("Hall display")} — ${tournament.name}`;
    replan();
  };
  try {
    await load();
  } catch (e) {
    title.textContent = slug;
    body.replaceChildren(h("p", { class: "hall-note", id: "hall-note", text: explain(e) }));
    return;
  }
  restartBar();
  setTimeout(next, seconds * 1000);
  // A new screen size: the lists cut again.
  let resized = null;
  addEventListener("resize", () => { clearTimeout(resized); resized = setTimeout(replan, 200); });
  follow(slug, Number(tournament.events || 0), load);
}

// Whether division `d`'s results are all in: every round paired, every line of each done.
function complete(d) {
  return d.rounds.length > 0 && d.rounds.every((r) => r.paired && r.pairings.every((p) => p.done));
}

// Division `d`'s prizes as `won` (GetDivisionPrizes's answer) awards them, a row an award: the
// prize as the server names it, its value, who takes it (a shared prize: each taker) and by
// what, or that nobody does and why (the server's words, in English).
function prizeRows(d, won) {
  return won.awards.map((a) => ({
    prize: a.prize, player: a.player || 0, what: a.description, value: a.value,
    who: a.player ? (d.players[a.player - 1] || {}).name || `#${a.player}` : "",
    shared: Boolean(a.shared), how: a.achievement, note: a.note,
  }));
}

// Each player of round `round` of division `d` by name (the collator's order): their table, their
// opponent, whether they move first or second, the result once in; a bye as a bye. An active
// player the round does not pair (a late entry) is listed as not paired.
function alphaPairings(d, round, collator) {
  const name = (n) => (d.players[n - 1] || {}).name || `#${n}`;
  const rows = [];
  const paired = new Set();
  for (const p of round.pairings) {
    const table = Number(p.table || 0);
    const sides = p.second ? [[p.first, p.second, 0], [p.second, p.first, 1]] : [[p.first, 0, 0]];
    for (const [me, them, seat] of sides) {
      paired.add(me);
      rows.push({
        player: me, name: name(me), bot: isBot(d.players[me - 1]), table: table ? String(table) : "—",
        opponent: them ? name(them) : p.bye_spread >= 0 ? t("bye") : t("absent"), opponentBot: Boolean(them) && isBot(d.players[them - 1]),
        bye: !them,
        move: them ? (seat === 0 ? t("first") : t("second")) : "",
        result: result(p, seat),
      });
    }
  }
  for (const pl of d.players) {
    if (!pl.withdrawn && !paired.has(pl.number)) {
      rows.push({ player: pl.number, name: pl.name, bot: isBot(pl), table: "—", opponent: t("not paired"), bye: true, move: "", result: "" });
    }
  }
  return rows.sort((a, b) => collator.compare(a.name, b.name) || a.player - b.player);
}

// A pairing's result as the player of `seat` (0: first, 1: second) sees it: their score first.
function result(p, seat) {
  if (!p.second) return p.bye_spread > 0 ? `+${p.bye_spread}` : String(p.bye_spread);
  if (!p.done) return "";
  if (p.forfeited_by) return p.forfeited_by === (seat === 0 ? p.first : p.second) ? t("lost by forfeit") : t("won by forfeit");
  const [a, b] = seat === 0 ? p.scores : [...p.scores].reverse();
  return `${a ?? 0} – ${b ?? 0}`;
}

// The division's standings as the server ranks them.
function standings(d) {
  return d.standings.map((st) => {
    const p = d.players[st.player - 1] || {};
    return {
      player: st.player, place: String(st.rank), name: p.name || `#${st.player}`, bot: isBot(p), withdrawn: Boolean(p.withdrawn),
      record: `${st.wins}–${st.losses}`,
      spread: Number(st.spread) > 0 ? `+${st.spread}` : String(st.spread),
    };
  });
}

// A list's table: its columns fixed (their widths the same on every page of it).
function listTable(kind, rows) {
  if (kind === "pairings") {
    return h("table", { class: "hall-list hall-pairings", id: "hall-list" },
      h("colgroup", {}, ["name", "table", "opponent", "move", "result"].map((c) => h("col", { class: `hall-col-${c}` }))),
      h("thead", {}, h("tr", {}, [t("Player"), t("Table"), t("Opponent"), t("Plays"), t("Result")].map((x) => h("th", { text: x })))),
      h("tbody", {}, rows.map((r) => h("tr", { "data-player": String(r.player), class: r.bye ? "bye" : "" },
        h("td", { class: "hall-name" }, r.name, ...(r.bot ? [" ", botLabel()] : [])),
        h("td", { class: "hall-table-no", text: r.table }),
        h("td", { class: "hall-opponent" }, r.opponent, ...(r.opponentBot ? [" ", botLabel()] : [])),
        h("td", { class: "hall-move", text: r.move }),
        h("td", { class: "hall-result", text: r.result })))));
  }
  if (kind === "prizes") {
    return h("table", { class: "hall-list hall-prizes", id: "hall-list" },
      h("colgroup", {}, ["prize", "value", "who", "how"].map((c) => h("col", { class: `hall-col-${c}` }))),
      h("thead", {}, h("tr", {}, [t("Prize"), t("Value"), t("Taken by"), t("Achievement")].map((x) => h("th", { text: x })))),
      h("tbody", {}, rows.map((r) => h("tr", { "data-prize": String(r.prize), "data-player": String(r.player), class: r.player ? "" : "nobody" },
        h("td", { class: "hall-prize", lang: "en", text: r.what }),
        h("td", { class: "hall-value", text: r.value }),
        ...(r.player
          ? [h("td", { class: "hall-name" }, r.who, r.shared ? h("span", { class: "hall-shared", text: ` (${t("shared")})` }) : ""),
            h("td", { class: "hall-how", lang: "en", text: r.how })]
          : [h("td", { class: "hall-note-cell", colspan: "2" }, `${t("nobody:")} `, h("span", { lang: "en", text: r.note }))])))));
  }
  return h("table", { class: "hall-list hall-standings", id: "hall-list" },
    h("colgroup", {}, ["place", "name", "record", "spread"].map((c) => h("col", { class: `hall-col-${c}` }))),
    h("thead", {}, h("tr", {}, [t("#"), t("Player"), t("Won–lost"), t("Spread")].map((x) => h("th", { text: x })))),
    h("tbody", {}, rows.map((r) => h("tr", { "data-player": String(r.player), class: r.withdrawn ? "withdrawn" : "" },
      h("td", { class: "hall-place", text: r.place }),
      h("td", { class: "hall-name" }, r.name, ...(r.bot ? [" ", botLabel()] : []), r.withdrawn ? h("span", { class: "hall-withdrawn", text: ` (${t("withdrawn")})` }) : ""),
      h("td", { class: "hall-record", text: r.record }),
      h("td", { class: "hall-spread", text: r.spread })))));
}

// Read the tournament again on each event its stream brings (a burst: once), the stream opened
// again a second after it drops, for as long as the page is the hall display.
// The divisions the burst's events name are handed to `load` (an event of none: all of them).
function follow(slug, from, load) {
  let timer = null;
  let changed = new Set();
  let all = false;
  const onMessage = (e) => {
    from = Number(e.number) + 1;
    if (e.division) changed.add(e.division); else all = true;
    clearTimeout(timer);
    timer = setTimeout(() => {
      const these = all ? null : changed;
      changed = new Set();
      all = false;
      load(these).catch(() => {});
    }, 150);
  };
  const run = () => stream("TournamentsService", "WatchTournament", { slug, from_event: from }, undefined, onMessage)
    .catch(() => {})
    .finally(() => {
      if (!location.pathname.endsWith("/hall") && !location.pathname.endsWith("/hall/")) return;
      // Whatever the stream missed while it was down is read at once, then followed.
      load().catch(() => {});
      setTimeout(run, 1000);
    });
  run();
}

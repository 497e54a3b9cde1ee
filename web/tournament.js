// The tournament pages: `/tournaments`, every tournament; `/tournaments/<slug>`, one: each
// division's standings and each round's pairings with their scores (live games linked to watch),
// kept current by WatchTournament. With a player's token the page names the player and opens
// their game ("my game"); with a director's it pairs and starts rounds, enters results,
// withdraws players and changes the plan (plan.js: rounds added and taken off, a round unpaired,
// late entries, re-entries). The token stays in this tab's sessionStorage (or arrives in the URL's
// fragment, which browsers never send); a player's is kept in the browser too (ui.js), as a seat's. A round's games link back here by their labels (app.js).
// Each division's statistics, and the director's log, are `tournament_report.js`'s; the reviews
// of the event's games, for its directors, `reviews.js`'s.
// Each pairing shows its table; where a division takes its players' reports, a player reports
// their own result and the director sees the reports (plan.js); a division's prizes are shown
// under its standings (tournament_report.js). Before round 1 is paired, players check in and the
// director withdraws the absent (checkin.js).

import { call, stream } from "/web/grpc.js";
import { t, count } from "/web/i18n.js";
import { h, explain, rules, rulesetName, challengeNames, tournamentTokenFor, keepPlayerToken, forgetTournamentToken, tournamentLink, linkToCopy, botMark, offerRegisteredBots, accountChosen } from "/web/ui.js";
import { checkInPanel, checkInBox } from "/web/checkin.js";
import { planControls, lateEntry, reenter, pairingDesk, handButtons, handEditor, reissueButton, reserveControl, seatLinks, reportsNote, reportsMode, reportsSeen, reportRow } from "/web/plan.js";
import { logPanel, statisticsSection, prizesSection, download } from "/web/tournament_report.js";
import { reviewsPanel } from "/web/reviews.js";

const KEY = (slug) => `dawgref:tournament:${slug}`;

export async function tournamentsPage(app) {
  document.title = `dawgref — ${t("tournaments")}`;
  const [r, all] = await Promise.all([call("TournamentsService", "ListTournaments", {}), rules()]);
  const list = h("section", { class: "panel", id: "tournaments" });
  const showList = (tournaments) => list.replaceChildren(tournaments.length === 0
    ? h("p", { class: "meta", id: "no-tournaments", text: t("No tournaments yet.") })
    : h("ul", { class: "tournament-list", id: "tournament-list" }, tournaments.map((x) => h("li", {},
      h("a", { href: `/tournaments/${encodeURIComponent(x.slug)}`, text: x.name }),
      h("span", { class: "meta", text: ` · ${x.divisions.join(", ")}` })))));
  showList(r.tournaments);
  // The director's desk: a tournament made, a division imported from TSH. The token is the one
  // the director's page keeps (this tab's sessionStorage), and once a tournament is made, the
  // one its page opens with.
  const token = h("input", { id: "desk-token", type: "password", autocomplete: "off", value: sessionStorage.getItem("dawgref:director") || "" });
  token.addEventListener("change", () => sessionStorage.setItem("dawgref:director", token.value.trim()));
  const imported = importDivision(token, r.tournaments);
  const made = async () => {
    const now = await call("TournamentsService", "ListTournaments", {});
    showList(now.tournaments);
    imported.offer(now.tournaments);
  };
  app.replaceChildren(
    h("section", { class: "hero" }, h("h1", { text: t("Tournaments") })),
    list,
    h("section", { class: "panel desk", id: "desk" },
      h("h2", { text: t("Run a tournament") }),
      h("p", { class: "meta", text: t("A director's token makes tournaments: the server's, or a director key's for the tournament.") }),
      field(t("Director token"), token),
      newTournament(token, all, made), imported.element));
}

// A box with its label above it.
const field = (label, input, extra = {}) => h("span", { class: "field", ...extra }, h("label", { for: input.id, text: label }), input);
const box = (id, attrs = {}) => h("input", { id, autocomplete: "off", ...attrs });
const whole = (id, attrs = {}) => box(id, { type: "number", step: "1", ...attrs });

// The pairing methods a round may have; factor and initial Fontes ask for their number.
const METHOD_CHOICES = [
  ["PAIRING_METHOD_SWISS", "Swiss"], ["PAIRING_METHOD_KING_OF_THE_HILL", "King of the Hill"], ["PAIRING_METHOD_ROUND_ROBIN", "round robin"],
  ["PAIRING_METHOD_FACTOR", "factor"], ["PAIRING_METHOD_INITIAL_FONTES", "initial Fontes"], ["PAIRING_METHOD_RANDOM", "random"],
  ["PAIRING_METHOD_MANUAL", "by hand"],
];
const RATING_SYSTEMS = [
  ["RATING_SYSTEM_UNSPECIFIED", "none"], ["RATING_SYSTEM_NSA2008", "NASPA (nsa2008)"], ["RATING_SYSTEM_NASPA2024", "NASPA 2024"],
  ["RATING_SYSTEM_NASPA_CLUB", "NASPA club"], ["RATING_SYSTEM_ABSP", "ABSP"],
];
const BOTS = [["", "a person"], ["BOT_LEVEL_WEAK", "the server's bot: weak"], ["BOT_LEVEL_GREEDY", "the server's bot: greedy"],
  ["BOT_LEVEL_STRONG", "the server's bot: strong"], ["BOT_LEVEL_CHAMPION", "the server's bot: champion"]];
const options = (choices) => choices.map(([value, label]) => h("option", { value, text: t(label) }));
const SLUG = /^[a-z0-9_.-]{1,40}$/;
const slugOk = (v) => SLUG.test(v) && !/^\.+$/.test(v);

// A fault found before sending: the box marked and focused, the words said; nothing is sent.
class Fault extends Error {
  constructor(input, text) { super(text); this.input = input; }
}
const check = (ok, input, text) => { if (!ok) throw new Fault(input, text); };
// A whole number in a box (empty: `empty`), within [min, max].
function wholeIn(input, { min = -Infinity, max = Infinity, empty = null } = {}, text) {
  const v = input.value.trim();
  if (v === "" && !input.validity.badInput) {
    check(empty !== undefined && empty !== "required", input, text);
    return empty;
  }
  check(!input.validity.badInput && /^-?\d+$/.test(v) && Number(v) >= min && Number(v) <= max, input, text);
  return Number(v);
}

// The rounds of a division: how many, and each one's method (a factor's f, initial Fontes's
// rounds in groups asked beside it). `prefix` names the boxes: `prefix` the count, `prefix-k` a
// round's method, `prefix-k-factor` and `prefix-k-fontes` their numbers.
function roundsEditor(prefix, count, min, label = t("Rounds")) {
  const number = whole(prefix, { min: String(min), max: "100", value: String(count) });
  const list = h("ol", { class: "round-methods", id: `${prefix}-list` });
  const row = (k, method) => {
    const select = h("select", { id: `${prefix}-${k}` }, options(METHOD_CHOICES));
    select.value = method;
    const factor = whole(`${prefix}-${k}-factor`, { min: "1", value: "1" });
    const fontes = whole(`${prefix}-${k}-fontes`, { min: "1", step: "2", value: "3" });
    const factorField = field(t("Factor"), factor);
    const fontesField = field(t("Rounds in groups (odd)"), fontes);
    const show = () => {
      factorField.hidden = select.value !== "PAIRING_METHOD_FACTOR";
      fontesField.hidden = select.value !== "PAIRING_METHOD_INITIAL_FONTES";
    };
    select.addEventListener("change", show);
    show();
    return h("li", { "data-round": String(k) }, field(t("Round {n}", { n: k }), select), factorField, fontesField);
  };
  const fit = () => {
    const n = Number(number.value);
    if (!Number.isInteger(n) || n < 0 || n > 100) return;
    while (list.children.length > n) list.lastChild.remove();
    while (list.children.length < n) {
      const before = list.lastChild && list.lastChild.querySelector("select");
      list.append(row(list.children.length + 1, before ? before.value : "PAIRING_METHOD_SWISS"));
    }
  };
  number.addEventListener("input", fit);
  fit();
  // The rounds as RoundSpecs, checked.
  const specs = (where) => {
    const n = wholeIn(number, { min, max: 100, empty: "required" }, t("{where}: {min} to 100 rounds.", { where, min }));
    fit();
    return [...list.children].slice(0, n).map((li, i) => {
      const k = i + 1;
      const method = li.querySelector("select").value;
      const spec = { method };
      if (method === "PAIRING_METHOD_FACTOR") {
        spec.factor = wholeIn(li.querySelector(`[id$="-factor"]`), { min: 1, max: 2500, empty: "required" },
          t("{where}, round {n}: the factor is a whole number, 1 to 2,500.", { where, n: k }));
      }
      if (method === "PAIRING_METHOD_INITIAL_FONTES") {
        const box = li.querySelector(`[id$="-fontes"]`);
        spec.fontes_rounds = wholeIn(box, { min: 1, max: 99, empty: "required" },
          t("{where}, round {n}: the rounds in groups are an odd number, 1 to 99.", { where, n: k }));
        check(spec.fontes_rounds % 2 === 1, box, t("{where}, round {n}: the rounds in groups are an odd number, 1 to 99.", { where, n: k }));
      }
      return spec;
    });
  };
  return { element: h("div", { class: "rounds-editor" }, field(label, number), list), specs, number };
}

// A player a line, as a club's list or a spreadsheet gives them: "Name, rating, lifetime games"
// (commas, tabs or semicolons between), or "Name 1800 120" (TSH's way: the numbers after the
// name). Empty lines are skipped.
export function parsePlayers(text) {
  return text.split(/\r?\n/).map((line) => line.trim()).filter(Boolean).map((line) => {
    const parts = /[\t,;]/.test(line) ? line.split(/\s*[\t,;]\s*/) : (() => {
      const words = line.split(/\s+/);
      let at = words.length;
      while (at > 1 && /^\d+$/.test(words[at - 1]) && words.length - at < 2) at--;
      return [words.slice(0, at).join(" "), ...words.slice(at)];
    })();
    return { name: parts[0] || "", rating: parts[1] || "", lifetime: parts[2] || "" };
  });
}

// The players' tokens, shown once: a table (division, number, name, token, and the player's link
// with its "Copy link" button) and a CSV of it.
function tokensShown(prefix, slug, tokens, nameOf) {
  const rows = tokens.map((x) => [x.division, x.player, nameOf(x.division, x.player), x.token]);
  const csv = ["division,player,name,token", ...rows.map((row) => row.map((v) => {
    const text = String(v);
    return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  }).join(","))].join("\n") + "\n";
  return [
    h("p", { class: "meta", text: t("Each person's token is shown here once: it is their seat in every game of theirs. Give each player theirs.") }),
    h("p", { class: "meta", text: t("Each player's link opens the tournament's page as theirs, in any browser: copy it and send it to them.") }),
    h("table", { class: "pairings tokens", id: `${prefix}-tokens` },
      h("thead", {}, h("tr", {}, [t("Division"), t("#"), t("Player"), t("Token"), t("Link")].map((x) => h("th", { text: x })))),
      h("tbody", {}, rows.map(([division, n, name, token]) => h("tr", { "data-player": `${division}/${n}` },
        h("td", { text: division }), h("td", { text: String(n) }), h("td", { text: name }), h("td", {}, h("code", { text: token })),
        h("td", { class: "link-cell" }, linkToCopy(tournamentLink(slug, token), `${prefix}-link-${division}-${n}`)))))),
    h("button", { type: "button", class: "link", id: `${prefix}-tokens-csv`, onclick: () => download(csv, `${slug}-tokens.csv`, "text/csv") }, t("Download the tokens (CSV)")),
  ];
}

// Where the server's refusal names a field (`divisions[0].players[2].name: …`), the box it names
// is marked (each box carries its field in `data-field` as the request is made).
function markField(form, text) {
  const m = text.match(/^[A-Z_]+: ([a-z_]+(?:\[\d+\])?(?:\.[a-z_]+(?:\[\d+\])?)*)/);
  if (!m) return;
  const parts = m[1].split(".");
  for (let n = parts.length; n > 0; n--) {
    const input = form.querySelector(`[data-field="${CSS.escape(parts.slice(0, n).join("."))}"]`);
    if (input) {
      input.setAttribute("aria-invalid", "true");
      input.focus();
      return;
    }
  }
}

// Sending a form: its button held while the call is out (one request a click), a fault found
// before sending or the server's refusal said beside it in words, nothing sent for the first.
async function submit(form, button, refusal, build, send) {
  for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
  refusal.textContent = "";
  let request;
  try {
    request = build();
  } catch (e) {
    if (!(e instanceof Fault)) throw e;
    refusal.textContent = `${e.message} ${t("Nothing was sent.")}`;
    if (e.input) { e.input.setAttribute("aria-invalid", "true"); e.input.focus(); }
    return;
  }
  button.disabled = true;
  try {
    await send(request);
  } catch (e) {
    refusal.textContent = explain(e);
    markField(form, explain(e));
  } finally {
    button.disabled = false;
  }
}

// A new tournament: its name and slug, its games' settings, and each division with its rating
// system, rounds and players.
function newTournament(token, all, made) {
  let divisionsMade = 0;
  const name = box("new-name", { maxlength: "200" });
  const slug = box("new-slug", { maxlength: "40", placeholder: "spring-open" });
  // The slug follows the name until the director writes one.
  let slugWritten = false;
  name.addEventListener("input", () => {
    if (!slugWritten) slug.value = name.value.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40);
  });
  slug.addEventListener("input", () => { slugWritten = slug.value !== ""; });
  const seed = whole("new-seed", { min: "0", placeholder: t("empty: random") });
  const ruleset = h("select", { id: "new-ruleset" }, Object.keys(all).filter((k) => all[k].lexicon).map((k) => h("option", { value: k, text: rulesetName(k) })));
  ruleset.value = "english";
  const challenge = h("select", { id: "new-challenge" }, Object.entries(challengeNames()).map(([k, v]) => h("option", { value: k, text: v })));
  const minutes = whole("new-minutes", { min: "0", max: "600", value: "25" });
  const increment = whole("new-increment", { min: "0", max: "600", value: "0" });
  const sameNames = h("input", { id: "new-same-names", type: "checkbox" });
  const divisions = h("div", { id: "new-divisions" });
  const forms = [];
  const addDivision = () => {
    const i = divisionsMade++;
    const form = divisionForm(i, () => {
      forms.splice(forms.indexOf(form), 1);
      form.element.remove();
    });
    forms.push(form);
    divisions.append(form.element);
  };
  addDivision();
  const refusal = h("p", { class: "bad refusal", id: "new-refusal", role: "alert" });
  const result = h("div", { id: "new-made" });
  const build = () => {
    check(name.value.trim() !== "", name, t("The tournament needs a name."));
    check(slugOk(slug.value), slug, t("The slug is 1 to 40 of a–z, 0–9, _, - and . (not only dots)."));
    check(token.value.trim() !== "", token, t("A director's token is needed."));
    const request = { name: name.value.trim(), slug: slug.value, allow_same_names: sameNames.checked };
    const s = wholeIn(seed, { min: 0, max: Number.MAX_SAFE_INTEGER, empty: null }, t("The seed is a whole number, 0 or more, or empty for a random one."));
    if (s !== null) request.seed = s;
    const m = wholeIn(minutes, { min: 0, max: 600, empty: 0 }, t("The clock is 0 to 600 minutes (0: none)."));
    const inc = wholeIn(increment, { min: 0, max: 600, empty: 0 }, t("The increment is 0 to 600 seconds."));
    request.game = { ruleset_name: ruleset.value, challenge_rule: challenge.value };
    if (m > 0) request.game.clock = { initial_ms: m * 60000, increment_ms: inc * 1000, max_overtime_ms: 10 * 60000 };
    check(forms.length > 0, null, t("A tournament has a division at least."));
    request.divisions = forms.map((f, i) => f.spec(i));
    const names = request.divisions.map((d) => d.name);
    names.forEach((n, i) => check(names.indexOf(n) === i, forms[i].nameBox, t("Two divisions are called {name}.", { name: n })));
    return request;
  };
  const create = h("button", { type: "button", class: "primary", id: "new-create", onclick: () => submit(form, create, refusal, build, async (request) => {
    const r = await call("TournamentsService", "CreateTournament", request, token.value.trim());
    const made_ = r.tournament;
    // The tournament's page opens directing it, with this token.
    sessionStorage.setItem(KEY(made_.slug), token.value.trim());
    sessionStorage.setItem("dawgref:director", token.value.trim());
    const nameOf = (division, n) => ((made_.divisions.find((d) => d.name === division) || { players: [] }).players[n - 1] || {}).name || "";
    result.replaceChildren(
      h("p", { class: "ok", id: "new-done" }, t("{name} is made: ", { name: made_.name }),
        h("a", { id: "new-open", href: `/tournaments/${encodeURIComponent(made_.slug)}`, text: t("its page") })),
      ...(r.player_tokens.length ? tokensShown("new", made_.slug, r.player_tokens, nameOf) : []));
    await made();
  }) }, t("Make the tournament"));
  const form = h("details", { class: "desk-form", id: "new-tournament" },
    h("summary", { text: t("A new tournament") }),
    h("div", { class: "desk-fields" }, field(t("Name"), name), field(t("Slug (its address)"), slug), field(t("Seed"), seed)),
    h("div", { class: "desk-fields" }, field(t("Ruleset"), ruleset), field(t("Challenge rule"), challenge),
      field(t("Clock (minutes, 0: none)"), minutes), field(t("Increment (s)"), increment)),
    h("p", { class: "check" }, sameNames, h("label", { for: sameNames.id, text: t("Two players of a division may have one name") })),
    divisions,
    h("button", { type: "button", class: "link", id: "new-add-division", onclick: addDivision }, t("+ a division")),
    h("div", { class: "row-controls" }, create), refusal, result);
  // A box marked wrong is unmarked as it is written again.
  form.addEventListener("input", (e) => e.target.removeAttribute("aria-invalid"));
  return form;
}

// One division of a new tournament: its name, rating system, spreads, rounds and players. Its
// boxes are numbered by `i`; its players' by row (`new-player-i-j-name`, …).
function divisionForm(i, remove) {
  const id = (what) => `new-${what}-${i}`;
  const nameBox = box(id("division-name"), { maxlength: "40", value: String.fromCharCode(97 + (i % 26)) });
  const rating = h("select", { id: id("rating") }, options(RATING_SYSTEMS));
  const cap = whole(id("cap"), { min: "0", placeholder: t("none") });
  const bye = whole(id("bye"), { placeholder: "50" });
  const forfeit = whole(id("forfeit"), { placeholder: "50" });
  const rounds = roundsEditor(id("rounds"), 7, 1);
  // An arena: only bots entered (a registered one by its account, or the server's).
  const botsOnly = h("input", { type: "checkbox", id: id("bots-only") });
  const rows = h("tbody", {});
  let rowsMade = 0;
  const addRow = (p = { name: "", rating: "", lifetime: "" }) => {
    const j = ++rowsMade;
    const at = (what) => `new-player-${i}-${j}-${what}`;
    const label = (what) => t("Player {n}: {what}", { n: j, what });
    const cells = [
      box(at("name"), { maxlength: "64", value: p.name, "aria-label": label(t("name")) }),
      whole(at("rating"), { min: "0", value: p.rating, placeholder: "0", "aria-label": label(t("rating")) }),
      whole(at("lifetime"), { min: "0", value: p.lifetime, placeholder: t("not known"), "aria-label": label(t("lifetime games")) }),
      h("select", { id: at("bot"), "aria-label": label(t("played by")) }, options(BOTS)),
    ];
    offerRegisteredBots(cells[3]);
    rows.append(h("tr", { "data-row": String(j) }, h("td", { text: String(j) }), cells.map((c) => h("td", {}, c))));
  };
  for (let k = 0; k < 4; k++) addRow();
  const paste = h("textarea", { id: id("paste"), rows: "4", placeholder: "Ann Archer, 1800, 120\nBo Baker, 1650" });
  const fromPaste = h("button", { type: "button", class: "link", id: id("paste-add"), onclick: () => {
    const players = parsePlayers(paste.value);
    // Empty rows are filled first, then rows added.
    const empty = [...rows.children].filter((tr) => [...tr.querySelectorAll("input")].every((x) => x.value === ""));
    for (const p of players) {
      const tr = empty.shift();
      if (tr) {
        const [n, r, l] = tr.querySelectorAll("input");
        n.value = p.name; r.value = p.rating; l.value = p.lifetime;
      } else addRow(p);
    }
    paste.value = "";
  } }, t("Add these players"));
  const element = h("fieldset", { class: "new-division", id: id("division") },
    h("legend", { text: t("Division") }),
    h("div", { class: "desk-fields" }, field(t("Name"), nameBox), field(t("Rating system"), rating),
      field(t("Spread cap"), cap), field(t("A bye's spread"), bye), field(t("A forfeit's spread"), forfeit),
      h("span", { class: "field" }, botsOnly, h("label", { for: botsOnly.id, text: t("Only bots (an arena)") }))),
    rounds.element,
    h("table", { class: "pairings players-in", id: id("players") },
      h("thead", {}, h("tr", {}, [t("#"), t("Name"), t("Rating"), t("Lifetime games"), t("Played by")].map((x) => h("th", { text: x })))),
      rows),
    h("button", { type: "button", class: "link", id: id("add-player"), onclick: () => addRow() }, t("+ a player")),
    field(t("Or paste a list: a player a line (name, rating, lifetime games)"), paste), fromPaste,
    i > 0 ? h("button", { type: "button", class: "link danger", id: id("remove-division"), onclick: remove }, t("Remove this division")) : null);
  // The division as a DivisionSpec (the `index`-th of the request), checked; each box given the
  // field it is, for the server's refusal to name.
  const spec = (index) => {
    const field_ = (el, path) => el.setAttribute("data-field", `divisions[${index}].${path}`);
    const name = nameBox.value.trim();
    check(slugOk(name), nameBox, t("A division's name is 1 to 40 of a–z, 0–9, _, - and . (not only dots)."));
    field_(nameBox, "name");
    const where = t("Division {name}", { name });
    const controls = { rating_system: rating.value };
    const spread = (input, key, text) => {
      const v = wholeIn(input, { min: -1000, max: 1000, empty: null }, text);
      if (v !== null) controls[key] = v;
    };
    const c = wholeIn(cap, { min: 0, max: 100000, empty: 0 }, t("{where}: the spread cap is a whole number, 0 or more (0 or empty: none).", { where }));
    if (c) controls.spread_cap = c;
    spread(bye, "bye_spread", t("{where}: a bye's spread is -1000 to 1000 (empty: 50).", { where }));
    spread(forfeit, "forfeit_spread", t("{where}: a forfeit's spread is -1000 to 1000 (empty: 50).", { where }));
    const players = [];
    for (const tr of rows.children) {
      const j = tr.dataset.row;
      const [n, r, l] = tr.querySelectorAll("input");
      const bot = tr.querySelector("select");
      // A registered bot plays under its own name: its box may stay empty.
      const account = accountChosen(bot.value);
      if (!account && n.value.trim() === "" && r.value.trim() === "" && l.value.trim() === "") continue;
      const who = t("{where}, player {n}", { where, n: j });
      check(account || n.value.trim() !== "", n, t("{who}: the name is missing.", { who }));
      const player = { name: n.value.trim().replace(/\s+/g, " "), rating: wholeIn(r, { min: 0, max: 4000, empty: 0 }, t("{who}: the rating is a whole number, 0 or more (0: unrated).", { who })) };
      const games = wholeIn(l, { min: 0, max: 1000000, empty: null }, t("{who}: lifetime games are a whole number, 0 or more, or empty when not known.", { who }));
      if (games !== null) player.lifetime_games = games;
      if (account) player.bot_account = account;
      else if (bot.value) player.bot = bot.value;
      field_(n, `players[${players.length}].name`);
      players.push(player);
    }
    check(players.length >= 2, rows.querySelector("input"), t("{where}: a division has 2 players at least.", { where }));
    return { name, players, rounds: rounds.specs(where), controls, ...(botsOnly.checked ? { bots_only: true } : {}) };
  };
  return { element, spec, nameBox };
}

// A division added to a tournament from TSH's `.t` file (chosen from the computer, or pasted),
// with its rounds to come and its rating system.
function importDivision(token, tournaments) {
  const slug = h("select", { id: "import-slug" });
  const offer = (all) => {
    const chosen = slug.value;
    slug.replaceChildren(h("option", { value: "", text: "—" }), ...all.map((x) => h("option", { value: x.slug, text: `${x.name} (${x.slug})` })));
    slug.value = all.some((x) => x.slug === chosen) ? chosen : "";
  };
  offer(tournaments);
  const division = box("import-division", { maxlength: "40" });
  const text = h("textarea", { id: "import-text", rows: "6", spellcheck: "false" });
  const file = h("input", { id: "import-file", type: "file", accept: ".t,text/plain" });
  file.addEventListener("change", async () => {
    const f = file.files[0];
    if (!f) return;
    text.value = await f.text();
    if (!division.value) division.value = f.name.replace(/\.t$/i, "").toLowerCase().replace(/[^a-z0-9_.-]+/g, "-").slice(0, 40);
  });
  const rating = h("select", { id: "import-rating" }, options(RATING_SYSTEMS));
  const rounds = roundsEditor("import-rounds", 0, 0, t("Rounds to come"));
  const refusal = h("p", { class: "bad refusal", id: "import-refusal", role: "alert" });
  const result = h("div", { id: "import-made" });
  const build = () => {
    check(slug.value !== "", slug, t("Choose the tournament the division joins."));
    check(slugOk(division.value.trim()), division, t("A division's name is 1 to 40 of a–z, 0–9, _, - and . (not only dots)."));
    check(text.value.trim() !== "", text, t("The .t file is empty: choose one, or paste it."));
    check(new TextEncoder().encode(text.value).length <= 1 << 20, text, t("The .t file is larger than 1 MiB."));
    check(token.value.trim() !== "", token, t("A director's token is needed."));
    text.setAttribute("data-field", "text");
    division.setAttribute("data-field", "division");
    return { slug: slug.value, division: division.value.trim(), text: text.value,
      rounds_to_come: rounds.specs(t("Rounds to come")), controls: { rating_system: rating.value } };
  };
  const go = h("button", { type: "button", class: "primary", id: "import-go", onclick: () => submit(element, go, refusal, build, async (request) => {
    const r = await call("TournamentsService", "ImportTsh", request, token.value.trim());
    sessionStorage.setItem(KEY(request.slug), token.value.trim());
    const d = r.division;
    const nameOf = (_, n) => (d.players[n - 1] || {}).name || "";
    const played = d.rounds.length - request.rounds_to_come.length;
    result.replaceChildren(
      h("p", { class: "ok", id: "import-done" }, t("Division {division} is in: {players}, {rounds} played. ", {
        division: d.name, players: count(d.players.length, "player"), rounds: count(played, "round") }),
      h("a", { id: "import-open", href: `/tournaments/${encodeURIComponent(request.slug)}#division-${d.name}`, text: t("its page") })),
      ...(r.player_tokens.length ? tokensShown("import", request.slug, r.player_tokens, nameOf) : []));
  }) }, t("Import the division"));
  const element = h("details", { class: "desk-form", id: "import-tsh" },
    h("summary", { text: t("A division from a TSH .t file") }),
    h("div", { class: "desk-fields" }, field(t("Tournament"), slug), field(t("The new division's name"), division), field(t("Rating system"), rating)),
    h("div", { class: "desk-fields" }, field(t("The .t file"), file)),
    field(t("Or paste it here"), text, { class: "field wide" }),
    h("p", { class: "meta", text: t("The rounds in the file are kept as played (paired by hand); the rounds to come are added after them.") }),
    rounds.element,
    h("div", { class: "row-controls" }, go), refusal, result);
  element.addEventListener("input", (e) => e.target.removeAttribute("aria-invalid"));
  return { element, offer };
}

export async function tournamentPage(app, slug) {
  document.title = `dawgref — ${t("tournament")}`;
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("token")) {
    sessionStorage.setItem(KEY(slug), fragment.get("token"));
    history.replaceState(null, "", location.pathname);
  }
  // `desk`: what the director has typed or opened, kept across redraws (plan.js).
  const s = { slug, token: tournamentTokenFor(slug), director: false, you: null, tournament: null,
    desk: { drafts: new Map(), fixing: new Map(), hand: new Map(), ids: new Map(), refusals: new Map(), seats: new Map() } };
  const tokenInput = h("input", { id: "tournament-token", type: "password", placeholder: t("player or director token"), value: s.token });
  const out = h("p", { class: "meta", id: "tournament-result", role: "status" });
  const who = h("p", { class: "meta", id: "who" });
  const body = h("div", { id: "tournament-body" });
  const title = h("h1", { id: "tournament-name", text: slug });
  const useToken = h("button", { id: "use-token", type: "button", class: "primary", onclick: async () => {
    s.token = tokenInput.value.trim();
    if (s.token) sessionStorage.setItem(KEY(slug), s.token); else forgetTournamentToken(slug);
    await load();
  } }, t("Use"));
  app.replaceChildren(
    h("section", { class: "hero" }, title,
      h("p", { class: "sub" }, h("a", { id: "hall-link", href: `/tournaments/${encodeURIComponent(slug)}/hall`, text: t("Hall display") }),
        " · ", h("a", { id: "print-link", href: `/tournaments/${encodeURIComponent(slug)}/print`, text: t("Scorecards and pairing sheets") }))),
    h("div", { class: "panel tournament-bar" }, tokenInput, useToken, who, out),
    body);

  // A director's action, then what it did, said as a sentence (or made from the answer). Refused,
  // the server's reason is said in the bar and handed to `opts.refused` (to say beside the control
  // too). `opts.button` is disabled while the call is out: one request a click.
  const act = async (method, request, done, opts = {}) => {
    if (opts.button) opts.button.disabled = true;
    let answer;
    try {
      answer = await call("TournamentsService", method, { slug, ...request }, s.token);
    } catch (e) {
      out.textContent = explain(e);
      out.className = "bad";
      if (opts.button) opts.button.disabled = false;
      if (opts.refused) await opts.refused(explain(e));
      return false;
    }
    out.textContent = typeof done === "function" ? done(answer) : done;
    out.className = "ok";
    s.desk.refusals.clear();
    if (opts.sent) opts.sent(answer);
    await load().catch((e) => { out.textContent = explain(e); out.className = "bad"; });
    return true;
  };

  const load = async () => {
    let r;
    try {
      r = await call("TournamentsService", "GetTournament", { slug }, s.token || undefined);
    } catch (e) {
      if (e.codeName === "UNAUTHENTICATED" && s.token) {
        out.textContent = explain(e);
        out.className = "bad";
        r = await call("TournamentsService", "GetTournament", { slug });
        s.token = "";
        forgetTournamentToken(slug);
      } else throw e;
    }
    s.tournament = r.tournament;
    s.you = r.tournament.you || null;
    // A token that names no player but was accepted is a director's.
    s.director = Boolean(s.token) && !s.you;
    if (s.you) keepPlayerToken(slug, s.token);
    title.textContent = r.tournament.name;
    document.title = `dawgref — ${r.tournament.name}`;
    who.replaceChildren(...whoAmI(s));
    draw(true);
    log.element.hidden = !s.director;
    reviews.refresh();
    if (s.director) await log.refresh();
    await showBroadcast();
  };
  // The divisions drawn from `s.tournament` (with their statistics fetched afresh, or kept as they
  // are when only the page's own state changed); the box that had the focus has it again.
  const draw = (fresh = false) => {
    const focused = document.activeElement && body.contains(document.activeElement) ? document.activeElement.id : "";
    const kept = new Map(fresh ? [] : s.tournament.divisions.map((d) => [d.name, document.getElementById(`statistics-${d.name}`)]));
    // The prizes, under the standings: fetched afresh with the statistics, else kept.
    const prizes = new Map(fresh ? [] : s.tournament.divisions.map((d) => [d.name, document.getElementById(`prizes-${d.name}`)]));
    body.replaceChildren(...s.tournament.divisions.map((d) => division(s, d, act)));
    for (const d of s.tournament.divisions) document.getElementById(`division-${d.name}`).append(kept.get(d.name) || statisticsSection(s, d));
    for (const d of s.tournament.divisions) document.getElementById(`prizes-place-${d.name}`).replaceWith(prizes.get(d.name) || prizesSection(s, d));
    const again = focused && document.getElementById(focused);
    if (again) again.focus();
  };
  s.draw = () => draw(false);
  s.load = () => load();
  s.pairing = (division, round, pairing) => {
    const d = s.tournament.divisions.find((x) => x.name === division);
    const r = d && d.rounds.find((x) => x.number === round);
    return r && r.pairings.find((x) => x.number === pairing);
  };
  // The tournament's broadcast, linked; a director without one makes one in a click (the delay
  // asked, a quarter of an hour unless changed; racks shown, the engine's line on each move),
  // changes its delay and ends it. The server's refusal is said in words.
  const broadcastBar = h("p", { class: "meta", id: "tournament-broadcast-bar" });
  const delayBox = (minutes) => h("input", { id: "broadcast-delay", type: "number", min: "0", max: "60", step: "1", value: String(minutes) });
  const delayField = (box) => h("span", { class: "field" }, h("label", { for: box.id, text: t("Delay (minutes)") }), box);
  const broadcastCall = (method, request) => async () => {
    try {
      await call("BroadcastsService", method, request(), s.token);
      await showBroadcast();
    } catch (e) {
      out.textContent = explain(e);
      out.className = "bad";
    }
  };
  const showBroadcast = async () => {
    const all = await call("BroadcastsService", "ListBroadcasts", {}).catch(() => ({ broadcasts: [] }));
    const mine = all.broadcasts.find((b) => (b.labels || {}).tournament === slug && !Number(b.ended_unix_ms || 0));
    if (mine) {
      const link = h("a", { id: "tournament-broadcast", href: `/broadcasts/${encodeURIComponent(mine.slug)}`, text: mine.name });
      if (!s.director) return broadcastBar.replaceChildren(t("Broadcast: "), link);
      const box = delayBox(Math.round(Number(mine.delay_seconds || 0) / 60));
      const change = h("button", { type: "button", id: "broadcast-delay-change",
        onclick: broadcastCall("UpdateBroadcast", () => ({ slug: mine.slug, delay_seconds: Math.round(Number(box.value) * 60) })) }, t("Change the delay"));
      const end = h("button", { type: "button", id: "broadcast-end", onclick: broadcastCall("EndBroadcast", () => ({ slug: mine.slug })) }, t("End the broadcast"));
      broadcastBar.replaceChildren(t("Broadcast: "), link, " ", delayField(box), change, end);
    } else if (s.director) {
      const box = delayBox(15);
      // A broadcast ended keeps its slug: a new one after it is numbered.
      const before = all.broadcasts.filter((b) => (b.labels || {}).tournament === slug).length;
      const live = before ? `${slug.slice(0, 32)}-live-${before + 1}` : `${slug.slice(0, 35)}-live`;
      const create = h("button", { type: "button", id: "broadcast-tournament", onclick: broadcastCall("CreateBroadcast", () => ({
        slug: live, name: `${s.tournament.name} — ${t("live")}`, labels: { tournament: slug },
        delay_seconds: Math.round(Number(box.value) * 60), reveal_racks: true, analysis: true,
      })) }, t("Broadcast this tournament"));
      broadcastBar.replaceChildren(delayField(box), create);
    } else broadcastBar.replaceChildren();
  };
  app.querySelector(".tournament-bar").append(broadcastBar);
  // The reviews and the director's log, below the divisions (the log's filters kept across
  // reloads).
  const reviews = reviewsPanel(s);
  const log = logPanel(s);
  app.append(reviews.element, log.element);
  await load();
  // A game's page links back to its round (`#round-<division>-<n>`): shown once drawn.
  const anchor = location.hash.length > 1 && document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (anchor) anchor.scrollIntoView();
  follow(s, load);
}

// Who the token makes the visitor, and their game (whose page links back here by its labels).
function whoAmI(s) {
  if (s.you) {
    const d = s.tournament.divisions.find((x) => x.name === s.you.division);
    const me = d && d.players[s.you.player - 1];
    const parts = [t("You are {name}, player {n} in division {division}.", { name: me ? me.name : "?", n: s.you.player, division: s.you.division })];
    // The table of their last round paired (none for a bye).
    const last = d && [...d.rounds].reverse().find((r) => r.paired);
    const mine = last && last.pairings.find((p) => p.second && p.table && [p.first, p.second].includes(s.you.player));
    if (mine) {
      const other = d.players[(mine.first === s.you.player ? mine.second : mine.first) - 1];
      parts.push(" ", h("span", { id: "my-table", text: t("Round {n}: table {table}, against {name}.", { n: last.number, table: mine.table, name: other ? other.name : "?" }) }));
    }
    if (s.you.current_game_id) {
      return [...parts, " ", h("a", { id: "my-game", class: "button primary", href: `/games/${s.you.current_game_id}#token=${encodeURIComponent(s.token)}`, text: t("My game") })];
    }
    return [...parts, " ", t("No game of yours is in play.")];
  }
  if (s.director) return [t("Directing this tournament.")];
  return [t("Watching. A player's or a director's token shows more.")];
}

function division(s, d, act) {
  const name = (n) => (n ? (d.players[n - 1] || {}).name || `#${n}` : t("bye"));
  const over = d.rounds.every((r) => r.paired && r.pairings.every((p) => p.done));
  const rates = Boolean(d.controls && d.controls.rating_system && d.controls.rating_system !== "RATING_SYSTEM_UNSPECIFIED");
  const heads = [t("#"), t("Player"), t("Wins"), t("Losses"), t("Spread"), ...(rates ? [t("Rating")] : []), ""];
  const standings = h("table", { class: "standings", id: `standings-${d.name}` },
    h("thead", {}, h("tr", {}, heads.map((x) => h("th", { text: x })))),
    h("tbody", {}, d.standings.map((st) => {
      const p = d.players[st.player - 1];
      const withdraw = s.director && !p.withdrawn && !over
        ? h("button", { type: "button", class: "link", "data-withdraw": String(st.player), onclick: () => act("WithdrawPlayer", { division: d.name, player: st.player }, t("{name} is withdrawn.", { name: p.name })) }, t("Withdraw"))
        : (p.withdrawn ? h("span", { class: "meta", text: t("withdrawn") }, s.director ? [" ", reenter(d, st.player, p, act)] : []) : "");
      const mine = s.you && s.you.division === d.name && s.you.player === st.player;
      // The director's: a new token for a player who lost theirs (plan.js).
      const reissue = s.director ? reissueButton(s, d, p) : "";
      return h("tr", { class: mine ? "mine" : "", "data-player": String(st.player) }, h("td", { text: String(st.rank) }), h("td", {}, p.name, ...botMark(p)),
        h("td", { text: String(st.wins) }), h("td", { text: String(st.losses) }),
        h("td", { text: st.spread > 0 ? `+${st.spread}` : String(st.spread) }),
        ...(rates ? [h("td", { class: "rating", text: ratingShown(st) })] : []), h("td", { class: "player-actions" }, checkInBox(s, d, st.player, p, act), withdraw, reissue ? " " : "", reissue, s.director ? reserveControl(d, p, act) : ""));
    })));
  // The next round to pair, offered as the server would take it, or shown with why not yet.
  // A manual round is paired by hand only ("Pair round n by hand", plan.js).
  const next = d.rounds.find((r) => !r.paired);
  const byHand = next && next.spec && next.spec.method === "PAIRING_METHOD_MANUAL";
  const notYet = next && !byHand ? whyNotPaired(d, next) : null;
  // A round to start has a game to make: one whose results are all in (entered by hand, with no
  // game on the server) has none.
  const toStart = d.rounds.find((r) => r.paired && !r.started && !allIn(r));
  const leader = d.standings.length ? d.players[d.standings[0].player - 1] : null;
  const controls = s.director && !over ? h("div", { class: "row-controls" },
    next && !byHand ? h("button", { type: "button", id: `pair-${d.name}`, disabled: Boolean(notYet), title: notYet, onclick: () => act("PairRound", { division: d.name, round: next.number }, t("Round {n} is paired.", { n: next.number })) }, t("Pair round {n}", { n: next.number })) : "",
    notYet ? h("span", { class: "meta why-not", id: `pair-why-${d.name}`, text: notYet }) : "",
    toStart ? h("button", { type: "button", class: "primary", id: `start-${d.name}`, onclick: () => act("StartRound", { division: d.name, round: toStart.number }, t("Round {n} is started.", { n: toStart.number })) }, t("Start round {n}", { n: toStart.number })) : "",
    ...handButtons(s, d)) : "";
  const toCome = d.rounds.filter((r) => !r.paired).map((r) => h("li", { "data-round": String(r.number),
    text: `${t("Round {n}", { n: r.number })} · ${methodName(r.spec)}` }));
  const mine = (p) => Boolean(s.you) && s.you.division === d.name && [p.first, p.second].includes(s.you.player);
  const rounds = d.rounds.filter((r) => r.paired).reverse().map((r) => h("div", { class: "round", id: `round-${d.name}-${r.number}` },
    h("h3", { text: `${t("Round {n}", { n: r.number })}${r.started || allIn(r) ? "" : ` · ${t("not started")}`}` }),
    h("table", { class: "pairings" }, h("tbody", {}, r.pairings.flatMap((p) => [h("tr", { "data-pairing": String(p.number), class: mine(p) ? "mine" : null },
      h("td", { class: "table-no", text: p.second && p.table ? t("Table {n}", { n: p.table }) : "" }),
      h("td", {}, name(p.first), ...botMark(d.players[p.first - 1])),
      h("td", { class: "score", text: score(p, name) }),
      h("td", {}, ...(p.second ? [name(p.second), ...botMark(d.players[p.second - 1])] : [])),
      h("td", {}, p.game_id ? (!p.done && s.you && s.you.division === d.name && [p.first, p.second].includes(s.you.player)
        ? h("a", { class: "play", href: `/games/${p.game_id}#token=${encodeURIComponent(s.token)}`, text: t("play") })
        : h("a", { href: `/games/${p.game_id}`, text: p.done ? t("game") : t("watch") })) : ""),
      h("td", {}, s.director ? [reportsSeen(d, r, p, name), pairingDesk(s, d, r, p, act, name)] : "")),
    reportRow(s, d, r, p, name, 6)])))));
  return h("section", { class: "panel division", id: `division-${d.name}` },
    h("h2", { text: t("Division {name}", { name: d.name }) }),
    over ? h("p", { class: "over", id: `over-${d.name}`, text: t("The division is over: {name} wins.", { name: leader ? leader.name : "" }) }) : null,
    s.director ? reportsMode(s, d, act) : reportsNote(d),
    checkInPanel(s, d, act),
    controls, s.director && !over ? handEditor(s, d, act) : null, s.director ? planControls(d, act, s) : null, s.director ? lateEntry(d, act, s) : null, standings, s.director ? seatLinks(s, d, act) : null,
    h("div", { id: `prizes-place-${d.name}` }),
    toCome.length ? h("div", { class: "to-come", id: `to-come-${d.name}` }, h("h3", { text: t("Rounds to come") }), h("ul", {}, toCome)) : null,
    ...rounds);
}

// Why the server would not pair round `r` of division `d` by its method now (Division::pair's
// rules: a method that reads the standings waits for every earlier result), or null when it
// would. (A manual round is set by hand: plan.js.)
function whyNotPaired(d, r) {
  const spec = r.spec || {};
  const method = spec.method || "PAIRING_METHOD_SWISS";
  const byStandings = ["PAIRING_METHOD_SWISS", "PAIRING_METHOD_UNSPECIFIED", "PAIRING_METHOD_KING_OF_THE_HILL", "PAIRING_METHOD_FACTOR"].includes(method)
    || (method === "PAIRING_METHOD_INITIAL_FONTES" && r.number > (spec.fontes_rounds || 0));
  const unfinished = byStandings && d.rounds.find((x) => x.number < r.number && !x.pairings.every((p) => p.done));
  return unfinished ? t("Round {n} is paired by the standings: round {k} has results to come.", { n: r.number, k: unfinished.number }) : null;
}

// A round's pairing method, as directors name it.
// A player's rating going in and the estimate from the results so far: "1500 → 1518 (+18)";
// a newcomer's "→ 1300"; no estimate yet: the rating alone, or a dash.
function ratingShown(st) {
  const rating = st.rating || 0;
  if (st.estimate === undefined || st.estimate === null) return rating ? String(rating) : "—";
  if (!rating) return `→ ${st.estimate}`;
  const change = st.estimate - rating;
  return `${rating} → ${st.estimate} (${change >= 0 ? "+" : "−"}${Math.abs(change)})`;
}

function methodName(spec) {
  const m = (spec && spec.method) || "PAIRING_METHOD_SWISS";
  const names = {
    PAIRING_METHOD_SWISS: t("Swiss"), PAIRING_METHOD_UNSPECIFIED: t("Swiss"), PAIRING_METHOD_ROUND_ROBIN: t("round robin"),
    PAIRING_METHOD_KING_OF_THE_HILL: t("King of the Hill"), PAIRING_METHOD_FACTOR: t("factor {n}", { n: (spec && spec.factor) || 0 }),
    PAIRING_METHOD_INITIAL_FONTES: t("initial Fontes"), PAIRING_METHOD_RANDOM: t("random"), PAIRING_METHOD_MANUAL: t("by hand"),
  };
  return names[m] || m;
}

// Whether every result of round `r` is in (a bye's is in from its pairing).
function allIn(r) {
  return r.pairings.length > 0 && r.pairings.every((p) => p.done || !p.second);
}

// A pairing's result as the round's table says it: the scores, who forfeited, a bye's spread.
function score(p, name) {
  if (!p.second) return p.bye_spread >= 0 ? t("bye (+{n})", { n: p.bye_spread }) : t("absent ({n})", { n: p.bye_spread });
  if (!p.done) return p.game_id ? t("playing") : "–";
  if (p.forfeited_by) return t("{name} forfeited", { name: name(p.forfeited_by) });
  return `${p.scores[0]} – ${p.scores[1]}`;
}

// Reload on every event the tournament's stream brings (a burst of results: once).
function follow(s, load) {
  let from = Number(s.tournament.events || 0);
  let timer = null;
  const controller = new AbortController();
  const onMessage = (e) => {
    from = Number(e.number) + 1;
    clearTimeout(timer);
    // Drawn again only if the page does not show this event yet (an action's own reload may
    // have): a redraw under the visitor's pointer would lose a click.
    timer = setTimeout(() => { if (from > Number(s.tournament.events || 0)) load().catch(() => {}); }, 150);
  };
  // With the visitor's token: a director is told of the players' reports, a player of their own
  // (a token refused: followed as a spectator).
  let refused = "";
  const run = () => stream("TournamentsService", "WatchTournament", { slug: s.slug, from_event: from }, s.token && s.token !== refused ? s.token : undefined, onMessage, controller.signal)
    .catch((e) => { if (["UNAUTHENTICATED", "PERMISSION_DENIED"].includes(e && e.codeName)) refused = s.token; })
    .finally(() => { if (!controller.signal.aborted && location.pathname.startsWith("/tournaments/")) setTimeout(run, 1000); });
  run();
  addEventListener("popstate", () => controller.abort(), { once: true });
}

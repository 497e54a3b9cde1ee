// A director's changes to a division's plan after its start (the tournament page's): a round
// added with its method, the last round taken off while it is unpaired, the last round paired
// taken back before it starts, a late entry (absent from the rounds already paired, or a bye of
// a spread in each) and a withdrawn player entered again. Each is a TournamentsService call made
// through the page's `act`, which shows what it did or the server's reason for refusing it.

import { t } from "/web/i18n.js";
import { call } from "/web/grpc.js";
import { h, requestId, explain, tournamentLink, linkToCopy, isBot, offerRegisteredBots, accountChosen } from "/web/ui.js";

// The methods a round added may take (factor and initial Fontes need a number: by the API).
const METHODS = [
  ["PAIRING_METHOD_SWISS", "Swiss"], ["PAIRING_METHOD_KING_OF_THE_HILL", "King of the Hill"],
  ["PAIRING_METHOD_ROUND_ROBIN", "round robin"], ["PAIRING_METHOD_RANDOM", "random"], ["PAIRING_METHOD_MANUAL", "by hand"],
];

// The division's round controls: add a round, take the last off, unpair the last paired (one
// request id for each round meant to be unpaired; refused, the server's reason beside it).
export function planControls(d, act, s) {
  const last = d.rounds[d.rounds.length - 1];
  const lastPaired = [...d.rounds].reverse().find((r) => r.paired);
  const method = h("select", { id: `add-round-method-${d.name}`, "aria-label": t("Pairing method") },
    METHODS.map(([value, label]) => h("option", { value, text: t(label) })));
  const next = d.rounds.length + 1;
  const add = h("button", { type: "button", id: `add-round-${d.name}`, onclick: () =>
    act("AddRound", { division: d.name, rounds: [{ method: method.value }] }, t("Round {n} is added.", { n: next })) }, t("Add a round"));
  const remove = last && !last.paired && d.rounds.length > 1
    ? h("button", { type: "button", id: `remove-round-${d.name}`, onclick: () =>
      act("RemoveRounds", { division: d.name, count: 1 }, t("Round {n} is taken off.", { n: last.number })) }, t("Take off round {n}", { n: last.number }))
    : "";
  // Taken back only before it starts and while no game of it has a result (a bye's is no result).
  const unpairable = lastPaired && !lastPaired.started && lastPaired.pairings.every((p) => !p.second || !p.done);
  const meant = lastPaired && `unpair/${d.name}/${lastPaired.number}`;
  const refused = s.desk.refusals.get(`unpair/${d.name}`) || "";
  const refusal = h("span", { class: "bad refusal", id: `unpair-refusal-${d.name}`, role: "alert", text: refused });
  const unpair = unpairable
    ? h("button", { type: "button", id: `unpair-${d.name}`, onclick: (e) => {
      if (!s.desk.ids.has(meant)) s.desk.ids.set(meant, requestId());
      s.desk.refusals.delete(`unpair/${d.name}`);
      refusal.textContent = "";
      act("UnpairRound", { division: d.name, round: lastPaired.number, request_id: s.desk.ids.get(meant) }, t("Round {n}'s pairings are taken back.", { n: lastPaired.number }), {
        button: e.currentTarget,
        sent: () => s.desk.ids.delete(meant),
        refused: async (text) => {
          s.desk.refusals.set(`unpair/${d.name}`, text);
          refusal.textContent = text;
          await s.load();
        },
      });
    } }, t("Unpair round {n}", { n: lastPaired.number }))
    : "";
  return h("div", { class: "row-controls plan-controls", id: `plan-${d.name}` }, method, add, remove, unpair, refusal);
}

// A late entry: name, rating, lifetime games, and how the rounds already paired count for them:
// absent from them, or a bye in each (then, and only then, of the spread asked for). Each box has
// its label. Their token (shown once) is said with what was done. One request id for each player
// meant: a double click (or a retry) asks the server twice for the same player, who is added once
// and whose token both answers carry; a new id once the boxes change or the player is added.
export function lateEntry(d, act, s) {
  const paired = d.rounds.filter((r) => r.paired).length;
  const id = (what) => `late-${what}-${d.name}`;
  const field = (label, input) => h("span", { class: "field" }, h("label", { for: input.id, text: label }), input);
  const name = h("input", { id: id("name"), autocomplete: "off" });
  const rating = h("input", { id: id("rating"), type: "number", min: "0", step: "1", value: "0" });
  // Rated games before this event (NASPA's multiplier): left empty, not known.
  const lifetime = h("input", { id: id("lifetime"), type: "number", min: "0", step: "1", placeholder: t("not known") });
  const missed = h("select", { id: id("missed") },
    h("option", { value: "absent", text: paired === 1 ? t("absent from round 1") : t("absent from rounds 1 to {n}", { n: paired }) }),
    h("option", { value: "byes", text: paired === 1 ? t("a bye in round 1") : t("a bye in each of rounds 1 to {n}", { n: paired }) }));
  const spread = h("input", { id: id("spread"), type: "number", step: "1", value: "-50" });
  // Who plays: a person, or a bot registered in the lobby by its account (under its own name).
  const playedBy = h("select", { id: id("played-by") }, h("option", { value: "", text: t("a person") }));
  offerRegisteredBots(playedBy);
  // The director's say that a name a player of the division has is meant (else refused).
  const sameName = h("input", { id: id("same-name"), type: "checkbox" });
  const spreadField = field(t("Spread of each bye"), spread);
  const showSpread = () => { spreadField.hidden = missed.value !== "byes"; };
  missed.addEventListener("change", showSpread);
  showSpread();
  const refusal = h("span", { class: "bad refusal", id: id("refusal"), role: "alert" });
  let meant = requestId();
  for (const box of [name, rating, lifetime, missed, spread, sameName, playedBy]) box.addEventListener("input", () => { meant = requestId(); });
  const add = h("button", { type: "button", id: id("add"), onclick: () => {
    const player = { name: name.value.trim(), rating: Number(rating.value) || 0 };
    const games = lifetime.value.trim();
    if (lifetime.validity.badInput || (games !== "" && !/^\d+$/.test(games))) {
      refusal.textContent = t("Lifetime games: a whole number, 0 or more, or empty when not known.");
      lifetime.setAttribute("aria-invalid", "true");
      lifetime.focus();
      return;
    }
    if (games !== "") player.lifetime_games = Number(games);
    const account = accountChosen(playedBy.value);
    if (account) player.bot_account = account;
    const request = { division: d.name, player, request_id: meant, allow_same_name: sameName.checked };
    if (paired && missed.value === "byes") request.missed_round_spread = Number(spread.value);
    act("AddPlayer", request, (r) => {
      meant = requestId();
      // Their link, to give them, shown under the standings (seatLinks).
      if (r.token) s.desk.seats.set(`${d.name}/${r.player.number}`, { token: r.token });
      if (r.player.bot_account) return t("{name} is player {n}: a registered bot, it plays with its own token.", { name: r.player.name, n: r.player.number });
      return t("{name} is player {n}. Their token (shown once): {token}", { name: r.player.name, n: r.player.number, token: r.token });
    });
  } }, t("Add a player"));
  return h("div", { class: "row-controls late-entry", id: `late-${d.name}` },
    field(t("Name"), name), field(t("Rating"), rating), field(t("Lifetime games"), lifetime), field(t("Played by"), playedBy),
    h("span", { class: "field" }, sameName, h("label", { for: sameName.id, text: t("Though the division has a player of that name") })),
    ...(paired ? [field(t("Rounds already paired"), missed), spreadField] : []), add, refusal);
}

// ---- Seat links (issue 82, item 11) ----
//
// A player's link (their tournament page, their token in the fragment) can be shown only when the
// page has just been answered their token: the server keeps only its hash. A late entry's is
// shown, and a token made anew for a player who lost theirs. `s.desk.seats` holds, by
// `division/number`, what is shown for them under the division's standings (kept through
// redraws): the director's confirmation asked for a new token (`asking`, with the request id of
// that one reissue meant: a double click or a retry makes one), or the link made (`token`).

const seatKey = (d, n) => `${d.name}/${n}`;

// "New token" beside a human player (a bot has no token): its confirmation opened under the
// standings.
export function reissueButton(s, d, p) {
  if (isBot(p)) return "";
  return h("button", { type: "button", class: "link", id: `reissue-${d.name}-${p.number}`, "data-reissue": String(p.number), onclick: () => {
    s.desk.seats.set(seatKey(d, p.number), { asking: true, id: requestId(), refusal: "" });
    s.draw();
    const go = document.getElementById(`reissue-go-${d.name}-${p.number}`);
    if (go) go.focus();
  } }, t("New token"));
}

// The division's seat links, under its standings: for each player in `s.desk.seats`, the
// confirmation of a new token, or their link to give.
export function seatLinks(s, d, act) {
  const items = d.players.filter((p) => s.desk.seats.has(seatKey(d, p.number))).map((p) => seatItem(s, d, p, act));
  return items.length ? h("ul", { class: "seat-links", id: `seat-links-${d.name}` }, items) : null;
}

function seatItem(s, d, p, act) {
  const key = seatKey(d, p.number);
  const state = s.desk.seats.get(key);
  const at = `${d.name}-${p.number}`;
  const item = (...children) => h("li", { "data-player": String(p.number), id: `seat-item-${at}` }, children);
  if (!state.asking) {
    return item(h("span", { text: t("{name}'s link, to give them:", { name: p.name }) }), " ",
      linkToCopy(tournamentLink(s.slug, state.token), `seat-link-${at}`), " ",
      h("button", { type: "button", class: "link", id: `seat-hide-${at}`, onclick: () => { s.desk.seats.delete(key); s.draw(); } }, t("Hide the link")));
  }
  const refusal = h("span", { class: "bad refusal", id: `reissue-refusal-${at}`, role: "alert", text: state.refusal });
  const go = h("button", { type: "button", class: "primary", id: `reissue-go-${at}`, onclick: (e) => {
    state.refusal = "";
    refusal.textContent = "";
    act("ReissuePlayerToken", { division: d.name, player: p.number, request_id: state.id },
      t("{name} has a new token: the old one no longer works.", { name: p.name }), {
        button: e.currentTarget,
        sent: (r) => s.desk.seats.set(key, { token: r.token }),
        refused: async (text) => { state.refusal = text; refusal.textContent = text; },
      });
  } }, t("Make a new token"));
  const cancel = h("button", { type: "button", class: "link", id: `reissue-cancel-${at}`, onclick: () => { s.desk.seats.delete(key); s.draw(); } }, t("Cancel"));
  return item(h("p", { class: "ask", id: `reissue-ask-${at}`,
    text: t("A new token for {name}? Their old token stops working at once: their page and their game in play refuse it. Their new link is shown here, to give them.", { name: p.name }) }),
  h("div", { class: "row-controls" }, go, cancel, refusal));
}

// A player's reserved table (TSH's `reserved`: the table they keep in every round paired from
// now on), as the director's list shows it, and its box: a table from 1 sets it, empty or 0
// clears it. What is typed survives the page's redraws until it is sent.
const reserveTyped = new Map();
export function reserveControl(d, p, act) {
  const at = `${d.name}-${p.number}`;
  const fault = h("span", { class: "bad refusal", id: `reserve-fault-${at}`, role: "alert" });
  const box = h("input", { type: "number", min: "0", max: "5000", step: "1", id: `reserve-${at}`, "aria-label": t("Reserved table of {name}", { name: p.name }),
    value: reserveTyped.has(at) ? reserveTyped.get(at) : p.reserved_table ? String(p.reserved_table) : "" });
  box.addEventListener("input", () => reserveTyped.set(at, box.value));
  const go = h("button", { type: "button", class: "link", id: `reserve-go-${at}`, "data-reserve": String(p.number), onclick: (e) => {
    const typed = box.value.trim();
    // A whole number is sent as it is (the server refuses one past its bounds, saying why); empty
    // or 0 is none; anything else is said here and not sent.
    fault.textContent = "";
    box.removeAttribute("aria-invalid");
    if (box.validity.badInput || (typed !== "" && !/^\d+$/.test(typed))) {
      fault.textContent = t("{what} is not a whole number: nothing was sent.", { what: t("Reserved table of {name}", { name: p.name }) });
      box.setAttribute("aria-invalid", "true");
      box.focus();
      return;
    }
    const table = typed === "" || Number(typed) === 0 ? undefined : Number(typed);
    act("SetReservedTable", { division: d.name, player: p.number, table },
      table ? t("{name} keeps table {n}.", { name: p.name, n: table }) : t("{name} has no reserved table.", { name: p.name }),
      { button: e.currentTarget, sent: () => reserveTyped.delete(at) });
  } }, t("Reserve table"));
  const shown = p.reserved_table ? h("span", { class: "reserved-table", id: `reserved-${at}`, text: t("Table {n}", { n: p.reserved_table }) }) : "";
  return h("span", { class: "reserve" }, shown, box, go, fault);
}

// A withdrawn player's way back: paired again from the next round paired.
export function reenter(d, number, player, act) {
  return h("button", { type: "button", class: "link", "data-reenter": String(number), onclick: () =>
    act("ReenterPlayer", { division: d.name, player: number }, t("{name} enters again.", { name: player.name })) }, t("Re-enter"));
}

// ---- The director's desk (issue 82, items 8 and 9) ----
//
// The page's state for it lives in `s.desk` (tournament.js), so that a redraw (every event of
// the tournament draws the page again) loses nothing typed: `drafts`, a result form's boxes and
// its request id by pairing; `fixing`, the pairings whose correction form is open; `hand`, a
// division's pairings being set by hand. A request id stands for one result, one set of
// pairings or one unpairing meant: a double click (or a retry) asks the server twice for the
// same change, made once; the id changes with the boxes, and is dropped once the change is made.

const pairingKey = (d, r, p) => `${d.name}/${r.number}/${p.number}`;

// What is wrong with a score box (null: a whole number).
const scoreFault = (input) => (input.validity.badInput || (input.value.trim() !== "" && !/^-?\d+$/.test(input.value.trim()))
  ? "whole" : input.value.trim() === "" ? "missing" : null);

// A pairing's director cell: the result of a pairing still to play entered (its scores, or a
// forfeit naming who forfeited); a result in corrected ("Correct", then the same form filled with
// the result in, sent as a correction). A bye has none.
export function pairingDesk(s, d, r, p, act, name) {
  if (!p.second) return "";
  const key = pairingKey(d, r, p);
  if (!p.done) return resultForm(s, d, r, p, act, name, false);
  if (s.desk.fixing.has(key)) return resultForm(s, d, r, p, act, name, true);
  return h("button", { type: "button", class: "link", id: `correct-${d.name}-${r.number}-${p.number}`, onclick: () => {
    s.desk.fixing.set(key, true);
    s.draw();
    const box = document.getElementById(`fix-score-${d.name}-${r.number}-${p.number}-a`);
    if (box) box.focus();
  } }, t("Correct"));
}

// A result's form: two score boxes and "Enter" (or, correcting, "Replace the result"), and a
// forfeit: who forfeited, chosen by name. Each box says whose score it is: its placeholder by the
// player's first name, shown whole (the box sized to it by `field-sizing`, or where a browser
// lacks it, through CSSOM: the page's CSP refuses style attributes); its title and its label for
// a screen reader by the whole name. Both boxes must hold a whole number, and a forfeit must name
// its player, before anything is sent (an empty box is no score of 0): else the refusal is said
// next to the boxes, the boxes at fault marked, and nothing is sent. The server's refusal is said
// there too; a result refused because one came in meanwhile opens the correction, filled with
// what the director typed: one click replaces the result in.
function resultForm(s, d, r, p, act, name, fixing) {
  const key = pairingKey(d, r, p);
  const at = `${d.name}-${r.number}-${p.number}`;
  const pre = fixing ? "fix-" : "";
  const draftKey = `${pre}${key}`;
  if (!s.desk.drafts.has(draftKey)) {
    const scores = fixing && p.scores.length === 2 ? p.scores.map(String) : ["", ""];
    s.desk.drafts.set(draftKey, { a: scores[0], b: scores[1], by: fixing && p.forfeited_by ? String(p.forfeited_by) : "", id: requestId(), refusal: "" });
  }
  const draft = s.desk.drafts.get(draftKey);
  const refusal = h("span", { class: "bad refusal", id: `${pre}refusal-${at}`, role: "alert", text: draft.refusal });
  const changed = () => {
    draft.a = a.value;
    draft.b = b.value;
    draft.by = by.value;
    draft.id = requestId();
  };
  const box = (n, side) => {
    const first = name(n).split(/\s+/)[0];
    const shown = t("{name}'s score", { name: [...first].length > 12 ? `${[...first].slice(0, 11).join("")}…` : first });
    const label = t("{name}'s score", { name: name(n) });
    const input = h("input", { type: "number", step: "1", class: "score-in", placeholder: shown, title: label, "aria-label": label, id: `${pre}score-${at}-${side}`,
      oninput: changed, onkeydown: (e) => { if (e.key === "Enter") { e.preventDefault(); enter(); } } });
    input.value = side === "a" ? draft.a : draft.b;
    if (!CSS.supports("field-sizing", "content")) input.style.width = `calc(${Math.ceil([...shown].length * 1.2)}ch + 20px)`;
    return input;
  };
  const a = box(p.first, "a");
  const b = box(p.second, "b");
  const by = h("select", { id: `${pre}forfeit-${at}`, onchange: changed },
    h("option", { value: "", text: "—" }), [p.first, p.second].map((n) => h("option", { value: String(n), text: name(n) })));
  by.value = draft.by;
  const say = (text) => { draft.refusal = text; refusal.textContent = text; };
  const mark = (input, wrong) => { if (wrong) input.setAttribute("aria-invalid", "true"); else input.removeAttribute("aria-invalid"); };
  // The result in, as this form would send it: what a correction to the same is refused for.
  const same = (result) => (result.scores ? p.scores.length === 2 && p.scores[0] === result.scores.first && p.scores[1] === result.scores.second
    : p.forfeited_by === result.forfeited_by);
  const send = (result, said, button) => {
    if (fixing && same(result)) {
      say(t("That is the result in already: nothing was sent."));
      return;
    }
    say("");
    const request = { division: d.name, round: r.number, pairing: p.number, ...result, correct: fixing, request_id: draft.id };
    act("RecordResult", request, said, {
      button,
      sent: () => { s.desk.drafts.delete(draftKey); s.desk.fixing.delete(key); },
      refused: async (text) => {
        draft.refusal = text;
        await s.load();
        // A result came in meanwhile: the correction, filled with what was typed, and why.
        const now = s.pairing(d.name, r.number, p.number);
        if (!fixing && now && now.done) {
          s.desk.drafts.delete(draftKey);
          s.desk.drafts.set(`fix-${key}`, { ...draft, id: requestId() });
          s.desk.fixing.set(key, true);
          s.draw();
        }
      },
    });
  };
  const enter = () => {
    const faults = [[a, p.first, scoreFault(a)], [b, p.second, scoreFault(b)]];
    for (const [input, , why] of faults) mark(input, why);
    mark(by, false);
    const wrong = faults.filter(([, , why]) => why);
    if (wrong.length) {
      const [input, n, why] = wrong[0];
      say(wrong.length === 2 && wrong.every(([, , w]) => w === "missing")
        ? t("Both scores are missing: nothing was sent.")
        : why === "missing" ? t("{name}'s score is missing: nothing was sent.", { name: name(n) })
          : t("{name}'s score is not a whole number: nothing was sent.", { name: name(n) }));
      input.focus();
      return;
    }
    const [x, y] = [Number(a.value), Number(b.value)];
    const words = { first: name(p.first), second: name(p.second), a: x, b: y };
    send({ scores: { first: x, second: y } },
      fixing ? t("Result corrected: {first} {a} – {b} {second}.", words) : t("Result entered: {first} {a} – {b} {second}.", words), go);
  };
  const forfeit = () => {
    mark(a, false);
    mark(b, false);
    if (!by.value) {
      mark(by, true);
      say(t("Choose who forfeited: nothing was sent."));
      by.focus();
      return;
    }
    mark(by, false);
    const n = Number(by.value);
    const words = { name: name(n), winner: name(n === p.first ? p.second : p.first) };
    send({ forfeited_by: n }, fixing ? t("Result corrected: {name} forfeits to {winner}.", words) : t("Forfeit entered: {name} forfeits to {winner}.", words), forfeitGo);
  };
  const go = h("button", { type: "button", id: `${pre}enter-${at}`, class: fixing ? "primary" : null, onclick: enter }, fixing ? t("Replace the result") : t("Enter"));
  const forfeitGo = h("button", { type: "button", id: `${pre}forfeit-enter-${at}`, onclick: forfeit }, fixing ? t("Replace with the forfeit") : t("Enter the forfeit"));
  const cancel = fixing ? h("button", { type: "button", class: "link", id: `fix-cancel-${at}`, onclick: () => {
    s.desk.fixing.delete(key);
    s.desk.drafts.delete(draftKey);
    s.draw();
  } }, t("Cancel")) : null;
  return h("span", { class: `result-form${fixing ? " fixing" : ""}` }, a, b, go,
    h("span", { class: "forfeit-by" }, h("label", { for: by.id, text: t("Forfeited by") }), by, forfeitGo), cancel, refusal);
}

// The buttons that open the pairings by hand: the next round to pair ("Pair round n by hand"),
// and the last round paired while it can be paired again (not started, no result in: "Change
// round n's pairings").
export function handButtons(s, d) {
  const next = d.rounds.find((r) => !r.paired);
  const last = [...d.rounds].reverse().find((r) => r.paired);
  const open = (r) => () => {
    const active = d.players.filter((p) => !p.withdrawn);
    const rows = r.paired
      ? r.pairings.map((p) => [String(p.first), String(p.second)])
      : Array.from({ length: Math.ceil(active.length / 2) }, () => ["", ""]);
    s.desk.hand.set(d.name, { round: r.number, rows, id: requestId(), refusal: "" });
    s.draw();
    const first = document.getElementById(`hand-${d.name}-1-first`);
    if (first) first.focus();
  };
  const again = last && !last.started && last.pairings.every((p) => !p.second || !p.done);
  return [
    next ? h("button", { type: "button", id: `hand-${d.name}`, class: next.spec && next.spec.method === "PAIRING_METHOD_MANUAL" ? "primary" : null, onclick: open(next) },
      t("Pair round {n} by hand", { n: next.number })) : "",
    again ? h("button", { type: "button", id: `rehand-${d.name}`, onclick: open(last) }, t("Change round {n}'s pairings", { n: last.number })) : "",
  ];
}

// The pairings of a round set by hand: a row a pairing, who moves first and who second (or a
// bye), chosen among the players not withdrawn; who is not paired yet is said as the rows
// fill. Checked before anything is sent: a row half filled, a player in two pairings, a
// player in none are refused in words and nothing is sent; the server's refusal is said there.
export function handEditor(s, d, act) {
  const state = s.desk.hand.get(d.name);
  if (!state) return null;
  const active = d.players.filter((p) => !p.withdrawn);
  // A player withdrawn since a choice was made is offered no more: that choice is undone.
  const offered = new Set(active.map((p) => String(p.number)));
  state.rows = state.rows.map(([f, x]) => [offered.has(f) ? f : "", x === "0" || offered.has(x) ? x : ""]);
  const who = (n) => (d.players[n - 1] || {}).name || `#${n}`;
  const id = (what) => `hand-${what}-${d.name}`;
  const left = h("p", { class: "meta", id: id("left") });
  const refusal = h("p", { class: "bad refusal", id: id("refusal"), role: "alert", text: state.refusal });
  const say = (text) => { state.refusal = text; refusal.textContent = text; };
  const rows = h("tbody", {});
  const chosen = () => state.rows.flatMap(([f, x]) => [f, x]).filter((v) => v && v !== "0").map(Number);
  const sayLeft = () => {
    const paired = new Set(chosen());
    const out = active.filter((p) => !paired.has(p.number)).map((p) => p.name);
    left.textContent = out.length ? t("Not paired yet: {names}", { names: out.join(", ") }) : t("Everyone is paired.");
  };
  const select = (i, side) => {
    const label = side === 0 ? t("Pairing {k}: moves first", { k: i + 1 }) : t("Pairing {k}: second player, or a bye", { k: i + 1 });
    const el = h("select", { id: `hand-${d.name}-${i + 1}-${side === 0 ? "first" : "second"}`, "aria-label": label, title: label,
      onchange: () => { state.rows[i][side] = el.value; state.id = requestId(); el.removeAttribute("aria-invalid"); sayLeft(); } },
      h("option", { value: "", text: "—" }),
      side === 1 ? h("option", { value: "0", text: t("bye") }) : null,
      active.map((p) => h("option", { value: String(p.number), text: p.name })));
    el.value = state.rows[i][side];
    return el;
  };
  const drawRows = () => rows.replaceChildren(...state.rows.map((_, i) => h("tr", { "data-row": String(i + 1) },
    h("td", { text: String(i + 1) }), h("td", {}, select(i, 0)), h("td", {}, select(i, 1)))));
  drawRows();
  sayLeft();
  const more = h("button", { type: "button", class: "link", id: id("more"), onclick: () => { state.rows.push(["", ""]); drawRows(); } }, t("+ a pairing"));
  const setIt = h("button", { type: "button", class: "primary", id: id("set"), onclick: () => {
    const selects = [...rows.querySelectorAll("select")];
    for (const el of selects) el.removeAttribute("aria-invalid");
    const fail = (text, el) => { say(text); if (el) { el.setAttribute("aria-invalid", "true"); el.focus(); } };
    const seen = new Map();
    const lines = [];
    for (const [i, [f, x]] of state.rows.entries()) {
      if (!f && !x) continue;
      if (!f || !x) return fail(t("Pairing {k}: choose both players, or a bye: nothing was sent.", { k: i + 1 }), document.getElementById(`hand-${d.name}-${i + 1}-${f ? "second" : "first"}`));
      for (const [n, side] of [[f, "first"], [x, "second"]]) {
        if (n === "0") continue;
        if (seen.has(n)) return fail(t("{name} is in two pairings: nothing was sent.", { name: who(Number(n)) }), document.getElementById(`hand-${d.name}-${i + 1}-${side}`));
        seen.set(n, i);
      }
      lines.push({ first: Number(f), second: Number(x) });
    }
    const missing = active.filter((p) => !seen.has(String(p.number)));
    if (missing.length) return fail(t("In no pairing: {names}. Nothing was sent.", { names: missing.map((p) => p.name).join(", ") }), null);
    say("");
    act("SetPairings", { division: d.name, round: state.round, pairings: lines, request_id: state.id },
      t("Round {n} is paired by hand.", { n: state.round }), {
        button: setIt,
        sent: () => { s.desk.hand.delete(d.name); },
        refused: async (text) => { say(text); await s.load(); },
      });
  } }, t("Set the pairings"));
  const cancel = h("button", { type: "button", class: "link", id: id("cancel"), onclick: () => { s.desk.hand.delete(d.name); s.draw(); } }, t("Cancel"));
  return h("div", { class: "hand-pairings", id: id("form") },
    h("h3", { text: t("Round {n}'s pairings, by hand", { n: state.round }) }),
    h("table", { class: "pairings hand" },
      h("thead", {}, h("tr", {}, h("th", { text: "#" }), h("th", { text: t("Moves first") }), h("th", { text: t("Second player, or a bye") }))),
      rows),
    left, h("div", { class: "row-controls" }, more, setIt, cancel), refusal);
}

// ---- Players' reports of their results ----
//
// In a division that takes them (SetResultReports), a player reports their own pairing's result
// from their page: their score, their opponent's and whether it was a win, a loss or a tie for
// them (chosen from the scores until the player chooses it themself; the server checks it
// against the scores). `s.desk.reports` keeps, by `division/round`, what the player typed, the
// request id of the one report meant (a double click or a retry reports once; a new id once the
// boxes change) and what the answer said, through the page's redraws. The
// director sees the pairings' reports beside the result form (two that differ: disputed), and
// chooses the division's way with reports.

const TAKES = ["RESULT_REPORTS_BOTH_AGREE", "RESULT_REPORTS_ONE_SUFFICES"];
const OUTCOMES = [["REPORTED_OUTCOME_WIN", "Win"], ["REPORTED_OUTCOME_LOSS", "Loss"], ["REPORTED_OUTCOME_TIE", "Tie"]];
const outcomeOf = (mine, theirs) => (mine > theirs ? "REPORTED_OUTCOME_WIN" : mine < theirs ? "REPORTED_OUTCOME_LOSS" : "REPORTED_OUTCOME_TIE");
const outcomeWords = (outcome) => ({ REPORTED_OUTCOME_WIN: t("a win"), REPORTED_OUTCOME_LOSS: t("a loss"), REPORTED_OUTCOME_TIE: t("a tie") })[outcome] || "";
const reportsOf = (s) => { if (!s.desk.reports) s.desk.reports = new Map(); return s.desk.reports; };

// The division's way with reports, said to everyone (the director chooses it: reportsMode).
export function reportsNote(d) {
  if (!TAKES.includes(d.result_reports)) return null;
  return h("p", { class: "meta reports-note", id: `reports-note-${d.name}`, text: d.result_reports === "RESULT_REPORTS_BOTH_AGREE"
    ? t("Players report their results here: a result is entered when both players' reports agree.")
    : t("Players report their results here: one player's report enters the result.") });
}

// The director's choice of how the division takes its players' reports, its way now chosen.
// One request id for each way meant.
export function reportsMode(s, d, act) {
  const id = `reports-mode-${d.name}`;
  const modes = [["RESULT_REPORTS_OFF", t("off")], ["RESULT_REPORTS_BOTH_AGREE", t("both must agree")], ["RESULT_REPORTS_ONE_SUFFICES", t("one report suffices")]];
  const refusal = h("span", { class: "bad refusal", id: `reports-mode-refusal-${d.name}`, role: "alert", text: s.desk.refusals.get(`reports/${d.name}`) || "" });
  const select = h("select", { id, onchange: () => {
    const mode = select.value;
    const meant = `reports/${d.name}/${mode}`;
    if (!s.desk.ids.has(meant)) s.desk.ids.set(meant, requestId());
    s.desk.refusals.delete(`reports/${d.name}`);
    refusal.textContent = "";
    const said = modes.find(([value]) => value === mode)[1];
    act("SetResultReports", { division: d.name, result_reports: mode, request_id: s.desk.ids.get(meant) },
      t("Division {name}: players report results: {mode}.", { name: d.name, mode: said }), {
        button: select,
        sent: () => s.desk.ids.delete(meant),
        refused: async (text) => {
          s.desk.refusals.set(`reports/${d.name}`, text);
          refusal.textContent = text;
          select.value = d.result_reports;
        },
      });
  } }, modes.map(([value, text]) => h("option", { value, text })));
  select.value = TAKES.includes(d.result_reports) ? d.result_reports : "RESULT_REPORTS_OFF";
  return h("div", { class: "row-controls reports-mode" },
    h("label", { for: id, text: t("Players report results:") }), select, refusal);
}

// The reports a pairing whose result is not in has, as the director sees them: each in the
// pairing's order ("Ann reported 402–371"), and two that differ marked disputed.
export function reportsSeen(d, r, p, name) {
  const reports = p.reports || [];
  if (p.done || !reports.length) return null;
  const [x, y] = reports;
  const disputed = Boolean(y) && (x.scores[0] !== y.scores[0] || x.scores[1] !== y.scores[1]);
  return h("div", { class: `reports-seen${disputed ? " disputed" : ""}`, id: `reports-${d.name}-${r.number}-${p.number}` },
    reports.map((rep) => h("span", { class: "report", "data-player": String(rep.player),
      text: t("{name} reported {a}–{b}", { name: name(rep.player), a: rep.scores[0], b: rep.scores[1] }) })),
    disputed ? h("span", { class: "disputed-mark", text: t("disputed") }) : null);
}

// Whether the visitor, a player, reports pairing `p` of round `r`: theirs, in a division that
// takes reports, not a bye, its result not in, and no game of it on the server.
export function reportable(s, d, r, p) {
  return Boolean(s.you) && s.you.division === d.name && TAKES.includes(d.result_reports) && r.paired
    && Boolean(p.second) && !p.done && !p.game_id && [p.first, p.second].includes(s.you.player);
}

// The player's report of pairing `p` (a row under it), or what the answer to it said once the
// result is in; null where there is neither.
export function reportRow(s, d, r, p, name, columns) {
  const key = `${d.name}/${r.number}`;
  const state = reportsOf(s).get(key);
  const mayReport = reportable(s, d, r, p);
  // Once the result is in, only the answer that entered it (or a refusal) is still said.
  if (!mayReport && !(state && (state.entered || state.bad) && state.said && s.you && [p.first, p.second].includes(s.you.player) && s.you.division === d.name)) return null;
  const at = `${d.name}-${r.number}`;
  const said = h("p", { class: `report-said ${state && state.bad ? "bad" : "ok"}`, id: `report-said-${at}`, role: "status", text: state ? state.said || "" : "" });
  const row = (...children) => h("tr", { class: "report-row", "data-report": String(p.number) }, h("td", { colspan: String(columns) }, children));
  if (!mayReport) return row(said);
  const me = s.you.player;
  const first = p.first === me;
  const opponent = first ? p.second : p.first;
  // The player's own report in, turned their way round.
  const own = (p.reports || []).find((x) => x.player === me);
  const ownScores = own ? (first ? [own.scores[0], own.scores[1]] : [own.scores[1], own.scores[0]]) : null;
  if (!state) {
    reportsOf(s).set(key, { mine: ownScores ? String(ownScores[0]) : "", theirs: ownScores ? String(ownScores[1]) : "",
      outcome: ownScores ? outcomeOf(...ownScores) : "", picked: false, id: requestId(), said: "", bad: false, entered: false });
  }
  const st = reportsOf(s).get(key);
  const box = (which, label) => h("input", { type: "number", step: "1", class: "score-in", id: `report-${which}-${at}`, title: label, value: st[which],
    oninput: (e) => { st[which] = e.target.value; st.id = requestId(); e.target.removeAttribute("aria-invalid"); guess(); },
    onkeydown: (e) => { if (e.key === "Enter") { e.preventDefault(); go.click(); } } });
  const mine = box("mine", t("Your score"));
  const theirs = box("theirs", t("Opponent's score"));
  const outcome = h("select", { id: `report-outcome-${at}`, onchange: () => {
    st.outcome = outcome.value;
    st.picked = outcome.value !== "";
    st.id = requestId();
    outcome.removeAttribute("aria-invalid");
  } }, h("option", { value: "", text: "—" }), OUTCOMES.map(([value, text]) => h("option", { value, text: t(text) })));
  outcome.value = st.outcome;
  // The outcome the scores give, chosen for the player until they choose one.
  const whole = (v) => /^-?\d+$/.test(v.trim());
  const guess = () => {
    if (st.picked) return;
    st.outcome = whole(mine.value) && whole(theirs.value) ? outcomeOf(Number(mine.value), Number(theirs.value)) : "";
    outcome.value = st.outcome;
  };
  const say = (text, bad) => { st.said = text; st.bad = bad; said.textContent = text; said.className = `report-said ${bad ? "bad" : "ok"}`; };
  const fault = (input, text) => { input.setAttribute("aria-invalid", "true"); input.focus(); say(text, true); };
  const go = h("button", { type: "button", class: "primary", id: `report-go-${at}`, onclick: async () => {
    for (const el of [mine, theirs, outcome]) el.removeAttribute("aria-invalid");
    for (const [input, whose] of [[mine, t("Your score")], [theirs, t("Opponent's score")]]) {
      if (input.validity.badInput || (input.value.trim() !== "" && !whole(input.value))) return fault(input, t("{what} is not a whole number: nothing was sent.", { what: whose }));
      if (input.value.trim() === "") return fault(input, t("{what} is missing: nothing was sent.", { what: whose }));
    }
    if (!outcome.value) return fault(outcome, t("Choose a win, a loss or a tie: nothing was sent."));
    const [x, y] = [Number(mine.value), Number(theirs.value)];
    go.disabled = true;
    const request = { slug: s.slug, round: r.number, pairing: p.number, my_score: x, opponent_score: y, outcome: outcome.value, request_id: st.id };
    try {
      const answer = await call("TournamentsService", "ReportResult", request, s.token);
      const now = answer.pairing || p;
      if (answer.state === "REPORT_STATE_ENTERED") {
        const [a, b] = now.scores.length === 2 ? now.scores : first ? [x, y] : [y, x];
        say(t("Result entered: {first} {a} – {second} {b}.", { first: name(p.first), second: name(p.second), a, b }), false);
        st.entered = true;
      } else if (answer.state === "REPORT_STATE_DISPUTED") {
        say(t("Your reports differ: the director will settle it. You may report again."), false);
      } else {
        say(t("Reported: waiting for {name}'s report.", { name: name(opponent) }), false);
      }
    } catch (e) {
      say(explain(e), true);
    }
    // The id stays while the boxes do: a second click of a double click asks the same report
    // again, answered as the first. The button waits for the page drawn again.
    await s.load().catch(() => {});
    go.disabled = false;
  } }, t("Report"));
  const field = (label, input) => h("span", { class: "field" }, h("label", { for: input.id, text: label }), input);
  return row(h("div", { class: "report-form", id: `report-${at}` },
    h("p", { class: "report-title", text: t("Your result of round {n}, against {name}:", { n: r.number, name: name(opponent) }) }),
    ownScores ? h("p", { class: "meta report-own", id: `report-own-${at}`,
      text: t("Your report: {a}–{b}, {outcome}. You may change it until the result is in.", { a: ownScores[0], b: ownScores[1], outcome: outcomeWords(outcomeOf(...ownScores)) }) }) : null,
    h("div", { class: "report-fields" }, field(t("Your score"), mine), field(t("Opponent's score"), theirs), field(t("Win / Loss / Tie"), outcome), go),
    said));
}

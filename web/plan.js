// A director's changes to a division's plan after its start (the tournament page's): a round
// added with its method, the last round taken off while it is unpaired, the last round paired
// taken back before it starts, a late entry (absent from the rounds already paired, or a bye of
// a spread in each) and a withdrawn player entered again. Each is a TournamentsService call made
// through the page's `act`, which shows what it did or the server's reason for refusing it.

import { t } from "/web/i18n.js";
import { h, requestId } from "/web/ui.js";

// The methods a round added may take (factor and initial Fontes need a number: by the API).
const METHODS = [
  ["PAIRING_METHOD_SWISS", "Swiss"], ["PAIRING_METHOD_KING_OF_THE_HILL", "King of the Hill"],
  ["PAIRING_METHOD_ROUND_ROBIN", "round robin"], ["PAIRING_METHOD_RANDOM", "random"], ["PAIRING_METHOD_MANUAL", "by hand"],
];

// The division's round controls: add a round, take the last off, unpair the last paired.
export function planControls(d, act) {
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
  const unpair = unpairable
    ? h("button", { type: "button", id: `unpair-${d.name}`, onclick: () =>
      act("UnpairRound", { division: d.name, round: lastPaired.number }, t("Round {n}'s pairings are taken back.", { n: lastPaired.number })) }, t("Unpair round {n}", { n: lastPaired.number }))
    : "";
  return h("div", { class: "row-controls plan-controls", id: `plan-${d.name}` }, method, add, remove, unpair);
}

// A late entry: name, rating, lifetime games, and how the rounds already paired count for them:
// absent from them, or a bye in each (then, and only then, of the spread asked for). Each box has
// its label. Their token (shown once) is said with what was done. One request id for each player
// meant: a double click (or a retry) asks the server twice for the same player, who is added once
// and whose token both answers carry; a new id once the boxes change or the player is added.
export function lateEntry(d, act) {
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
  // The director's say that a name a player of the division has is meant (else refused).
  const sameName = h("input", { id: id("same-name"), type: "checkbox" });
  const spreadField = field(t("Spread of each bye"), spread);
  const showSpread = () => { spreadField.hidden = missed.value !== "byes"; };
  missed.addEventListener("change", showSpread);
  showSpread();
  const refusal = h("span", { class: "bad refusal", id: id("refusal"), role: "alert" });
  let meant = requestId();
  for (const box of [name, rating, lifetime, missed, spread, sameName]) box.addEventListener("input", () => { meant = requestId(); });
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
    const request = { division: d.name, player, request_id: meant, allow_same_name: sameName.checked };
    if (paired && missed.value === "byes") request.missed_round_spread = Number(spread.value);
    act("AddPlayer", request, (r) => {
      meant = requestId();
      return t("{name} is player {n}. Their token (shown once): {token}", { name: r.player.name, n: r.player.number, token: r.token });
    });
  } }, t("Add a player"));
  return h("div", { class: "row-controls late-entry", id: `late-${d.name}` },
    field(t("Name"), name), field(t("Rating"), rating), field(t("Lifetime games"), lifetime),
    h("span", { class: "field" }, sameName, h("label", { for: sameName.id, text: t("Though the division has a player of that name") })),
    ...(paired ? [field(t("Rounds already paired"), missed), spreadField] : []), add, refusal);
}

// A withdrawn player's way back: paired again from the next round paired.
export function reenter(d, number, player, act) {
  return h("button", { type: "button", class: "link", "data-reenter": String(number), onclick: () =>
    act("ReenterPlayer", { division: d.name, player: number }, t("{name} enters again.", { name: player.name })) }, t("Re-enter"));
}

// A director's changes to a division's plan after its start (the tournament page's): a round
// added with its method, the last round taken off while it is unpaired, the last round paired
// taken back before it starts, a late entry (absent from the rounds already paired, or a bye of
// a spread in each) and a withdrawn player entered again. Each is a TournamentsService call made
// through the page's `act`, which shows what it did or the server's reason for refusing it.

import { t } from "/web/i18n.js";
import { h } from "/web/ui.js";

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

// A late entry: name, rating, and how the rounds already paired count for them. Their token
// (shown once) is said with what was done.
export function lateEntry(d, act) {
  const paired = d.rounds.filter((r) => r.paired).length;
  const name = h("input", { id: `late-name-${d.name}`, placeholder: t("name"), "aria-label": t("name") });
  const rating = h("input", { id: `late-rating-${d.name}`, type: "number", min: "0", value: "0", "aria-label": t("Rating") });
  const missed = h("select", { id: `late-missed-${d.name}`, "aria-label": t("Rounds already paired") },
    h("option", { value: "absent", text: t("absent from rounds 1 to {n}", { n: paired }) }),
    h("option", { value: "byes", text: t("a bye in each of rounds 1 to {n}, spread:", { n: paired }) }));
  const spread = h("input", { id: `late-spread-${d.name}`, type: "number", value: "-50", "aria-label": t("the byes' spread") });
  const add = h("button", { type: "button", id: `late-add-${d.name}`, onclick: () => {
    const request = { division: d.name, player: { name: name.value.trim(), rating: Number(rating.value) || 0 } };
    if (paired && missed.value === "byes") request.missed_round_spread = Number(spread.value);
    act("AddPlayer", request, (r) => t("{name} is player {n}. Their token (shown once): {token}", { name: r.player.name, n: r.player.number, token: r.token }));
  } }, t("Add a player"));
  return h("div", { class: "row-controls late-entry", id: `late-${d.name}` }, name, rating, ...(paired ? [missed, spread] : []), add);
}

// A withdrawn player's way back: paired again from the next round paired.
export function reenter(d, number, player, act) {
  return h("button", { type: "button", class: "link", "data-reenter": String(number), onclick: () =>
    act("ReenterPlayer", { division: d.name, player: number }, t("{name} enters again.", { name: player.name })) }, t("Re-enter"));
}

// Check-in before round 1, on the tournament page while a division's round 1 is unpaired: a
// player says they are here from their own page ("I'm here", or takes it back); everyone sees how
// many have; a director sees who has not, checks a player in or out by the box beside their
// name, and withdraws everyone absent in one step before pairing (WithdrawAbsent). Each change is
// a CheckIn or WithdrawAbsent call made through the page's `act`, which shows what it did or the
// server's reason for refusing it.

import { t } from "/web/i18n.js";
import { h, requestId } from "/web/ui.js";

// Check-in is open until round 1 is paired (the server's rule: UnpairRound reopens it).
const open = (d) => !d.rounds.some((r) => r.paired);

// The division's check-in, as the visitor may act on it: null once it is over.
export function checkInPanel(s, d, act) {
  if (!open(d)) return null;
  const active = d.players.filter((p) => !p.withdrawn);
  const here = active.filter((p) => p.checked_in);
  const absent = active.filter((p) => !p.checked_in);
  const count = h("span", { class: "meta", id: `check-in-count-${d.name}`, text: t("{here} of {all} checked in.", { here: here.length, all: active.length }) });
  const me = s.you && s.you.division === d.name ? d.players[s.you.player - 1] : null;
  if (me && !me.withdrawn) {
    const done = me.checked_in ? t("Your check-in is taken back.") : t("You are checked in.");
    return h("div", { class: "check-in", id: `check-in-${d.name}` },
      h("strong", { id: "my-check-in", text: me.checked_in ? t("You are checked in.") : t("Check in when you arrive.") }), " ",
      h("button", { type: "button", id: "check-in-me", class: me.checked_in ? "link" : "primary",
        onclick: (e) => act("CheckIn", { present: !me.checked_in, request_id: requestId() }, done, { button: e.currentTarget }) },
      me.checked_in ? t("Take back my check-in") : t("I'm here")), " ", count);
  }
  if (!s.director) return h("p", { class: "check-in", id: `check-in-${d.name}` }, count);
  const withdrawn = (a) => t("Withdrawn as absent: {n}.", { n: (a.withdrawn || []).length });
  return h("div", { class: "check-in", id: `check-in-${d.name}` },
    h("h3", { text: t("Check-in") }), count,
    absent.length ? h("p", { id: `absent-${d.name}` }, `${t("Not here yet:")} `, absent.map((p) => p.name).join(", ")) : null,
    h("button", { type: "button", id: `withdraw-absent-${d.name}`, disabled: !here.length || !absent.length,
      title: here.length ? null : t("No one has checked in yet."),
      onclick: (e) => act("WithdrawAbsent", { division: d.name, request_id: requestId() }, withdrawn, { button: e.currentTarget }) },
    t("Withdraw the absent ({n})", { n: absent.length })));
}

// A director's box beside player `p` (number `n`): checked in or not, while check-in is open.
export function checkInBox(s, d, n, p, act) {
  if (!s.director || !open(d) || p.withdrawn) return "";
  const said = (present) => t(present ? "{name} is checked in." : "{name}'s check-in is taken back.", { name: p.name });
  return h("label", { class: "check-in-box" },
    h("input", { type: "checkbox", "data-check-in": String(n), checked: Boolean(p.checked_in),
      onchange: (e) => act("CheckIn", { division: d.name, player: n, present: e.currentTarget.checked }, said(e.currentTarget.checked)) }),
    ` ${t("here")}`);
}

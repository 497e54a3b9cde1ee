// The tournament pages: `/tournaments`, every tournament; `/tournaments/<slug>`, one: each
// division's standings and each round's pairings with their scores (live games linked to watch),
// kept current by WatchTournament. With a player's token the page names the player and opens
// their game ("my game"); with a director's it pairs and starts rounds, enters results,
// withdraws players and changes the plan (plan.js: rounds added and taken off, a round unpaired,
// late entries, re-entries). The token stays in this tab's sessionStorage (or arrives in the URL's
// fragment, which browsers never send). A round's games link back here by their labels (app.js).
// Each division's statistics, and the director's log, are `tournament_report.js`'s.

import { call, stream } from "/web/grpc.js";
import { t } from "/web/i18n.js";
import { h, explain } from "/web/ui.js";
import { planControls, lateEntry, reenter } from "/web/plan.js";
import { logPanel, statisticsSection } from "/web/tournament_report.js";

const KEY = (slug) => `dawgref:tournament:${slug}`;

export async function tournamentsPage(app) {
  document.title = `dawgref — ${t("tournaments")}`;
  const r = await call("TournamentsService", "ListTournaments", {});
  app.replaceChildren(
    h("section", { class: "hero" }, h("h1", { text: t("Tournaments") })),
    h("section", { class: "panel" }, r.tournaments.length === 0
      ? h("p", { class: "meta", id: "no-tournaments", text: t("No tournaments yet.") })
      : h("ul", { class: "tournament-list", id: "tournament-list" }, r.tournaments.map((x) => h("li", {},
        h("a", { href: `/tournaments/${encodeURIComponent(x.slug)}`, text: x.name }),
        h("span", { class: "meta", text: ` · ${x.divisions.join(", ")}` }))))));
}

export async function tournamentPage(app, slug) {
  document.title = `dawgref — ${t("tournament")}`;
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("token")) {
    sessionStorage.setItem(KEY(slug), fragment.get("token"));
    history.replaceState(null, "", location.pathname);
  }
  const s = { slug, token: sessionStorage.getItem(KEY(slug)) || "", director: false, you: null, tournament: null };
  const tokenInput = h("input", { id: "tournament-token", type: "password", placeholder: t("player or director token"), value: s.token });
  const out = h("p", { class: "meta", id: "tournament-result", role: "status" });
  const who = h("p", { class: "meta", id: "who" });
  const body = h("div", { id: "tournament-body" });
  const title = h("h1", { id: "tournament-name", text: slug });
  const useToken = h("button", { id: "use-token", type: "button", class: "primary", onclick: async () => {
    s.token = tokenInput.value.trim();
    if (s.token) sessionStorage.setItem(KEY(slug), s.token); else sessionStorage.removeItem(KEY(slug));
    await load();
  } }, t("Use"));
  app.replaceChildren(
    h("section", { class: "hero" }, title),
    h("div", { class: "panel tournament-bar" }, tokenInput, useToken, who, out),
    body);

  // A director's action, then what it did, said as a sentence (or made from the answer).
  const act = async (method, request, done) => {
    try {
      const answer = await call("TournamentsService", method, { slug, ...request }, s.token);
      out.textContent = typeof done === "function" ? done(answer) : done;
      out.className = "ok";
      await load();
    } catch (e) {
      out.textContent = explain(e);
      out.className = "bad";
    }
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
      } else throw e;
    }
    s.tournament = r.tournament;
    s.you = r.tournament.you || null;
    // A token that names no player but was accepted is a director's.
    s.director = Boolean(s.token) && !s.you;
    title.textContent = r.tournament.name;
    document.title = `dawgref — ${r.tournament.name}`;
    who.replaceChildren(...whoAmI(s));
    body.replaceChildren(...r.tournament.divisions.map((d) => division(s, d, act)));
    for (const d of r.tournament.divisions) document.getElementById(`division-${d.name}`).append(statisticsSection(s, d));
    log.element.hidden = !s.director;
    if (s.director) await log.refresh();
    await showBroadcast();
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
  // The director's log, below the divisions (its filters kept across reloads).
  const log = logPanel(s);
  app.append(log.element);
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
      return h("tr", { class: mine ? "mine" : "" }, h("td", { text: String(st.rank) }), h("td", { text: p.name }),
        h("td", { text: String(st.wins) }), h("td", { text: String(st.losses) }),
        h("td", { text: st.spread > 0 ? `+${st.spread}` : String(st.spread) }),
        ...(rates ? [h("td", { class: "rating", text: ratingShown(st) })] : []), h("td", {}, withdraw));
    })));
  // The next round to pair, offered as the server would take it, or shown with why not yet.
  const next = d.rounds.find((r) => !r.paired);
  const notYet = next ? whyNotPaired(d, next) : null;
  // A round to start has a game to make: one whose results are all in (entered by hand, with no
  // game on the server) has none.
  const toStart = d.rounds.find((r) => r.paired && !r.started && !allIn(r));
  const leader = d.standings.length ? d.players[d.standings[0].player - 1] : null;
  const controls = s.director && !over ? h("div", { class: "row-controls" },
    next ? h("button", { type: "button", id: `pair-${d.name}`, disabled: Boolean(notYet), title: notYet, onclick: () => act("PairRound", { division: d.name, round: next.number }, t("Round {n} is paired.", { n: next.number })) }, t("Pair round {n}", { n: next.number })) : "",
    notYet ? h("span", { class: "meta why-not", id: `pair-why-${d.name}`, text: notYet }) : "",
    toStart ? h("button", { type: "button", class: "primary", id: `start-${d.name}`, onclick: () => act("StartRound", { division: d.name, round: toStart.number }, t("Round {n} is started.", { n: toStart.number })) }, t("Start round {n}", { n: toStart.number })) : "") : "";
  const toCome = d.rounds.filter((r) => !r.paired).map((r) => h("li", { "data-round": String(r.number),
    text: `${t("Round {n}", { n: r.number })} · ${methodName(r.spec)}` }));
  const rounds = d.rounds.filter((r) => r.paired).reverse().map((r) => h("div", { class: "round", id: `round-${d.name}-${r.number}` },
    h("h3", { text: `${t("Round {n}", { n: r.number })}${r.started || allIn(r) ? "" : ` · ${t("not started")}`}` }),
    h("table", { class: "pairings" }, h("tbody", {}, r.pairings.map((p) => h("tr", { "data-pairing": String(p.number) },
      h("td", { text: name(p.first) }),
      h("td", { class: "score", text: score(p, name) }),
      h("td", { text: p.second ? name(p.second) : "" }),
      h("td", {}, p.game_id ? h("a", { href: `/games/${p.game_id}`, text: p.done ? t("game") : t("watch") }) : ""),
      h("td", {}, s.director && p.second && !p.done ? resultForm(d, r, p, act, name) : "")))))));
  return h("section", { class: "panel division", id: `division-${d.name}` },
    h("h2", { text: t("Division {name}", { name: d.name }) }),
    over ? h("p", { class: "over", id: `over-${d.name}`, text: t("The division is over: {name} wins.", { name: leader ? leader.name : "" }) }) : null,
    controls, s.director ? planControls(d, act) : null, s.director ? lateEntry(d, act) : null, standings,
    toCome.length ? h("div", { class: "to-come", id: `to-come-${d.name}` }, h("h3", { text: t("Rounds to come") }), h("ul", {}, toCome)) : null,
    ...rounds);
}

// Why the server would not pair round `r` of division `d` now (Division::pair's rules: a manual
// round is set by hand; a method that reads the standings waits for every earlier result), or
// null when it would.
function whyNotPaired(d, r) {
  const spec = r.spec || {};
  const method = spec.method || "PAIRING_METHOD_SWISS";
  if (method === "PAIRING_METHOD_MANUAL") return t("Round {n} is paired by hand (SetPairings).", { n: r.number });
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

// A director's result entry for a game played over the board (or one to settle by hand). Both
// boxes must hold a whole number before anything is sent (an empty box is no score of 0): else
// the refusal is said next to the boxes, the boxes at fault marked, and nothing is sent.
function resultForm(d, r, p, act, name) {
  // Each box says whose score it is: its placeholder by the player's first name, shown whole (the
  // box sized to it by `field-sizing`, or where a browser lacks it, through CSSOM: the page's CSP
  // refuses style attributes); its title and its label for a screen reader by the whole name.
  const box = (n, side) => {
    const first = name(n).split(/\s+/)[0];
    const shown = t("{name}'s score", { name: [...first].length > 12 ? `${[...first].slice(0, 11).join("")}…` : first });
    const label = t("{name}'s score", { name: name(n) });
    const input = h("input", { type: "number", step: "1", class: "score-in", placeholder: shown, title: label, "aria-label": label, id: `score-${d.name}-${r.number}-${p.number}-${side}`,
      onkeydown: (e) => { if (e.key === "Enter") { e.preventDefault(); enter(); } } });
    if (!CSS.supports("field-sizing", "content")) input.style.width = `calc(${Math.ceil([...shown].length * 1.2)}ch + 20px)`;
    return input;
  };
  const a = box(p.first, "a");
  const b = box(p.second, "b");
  const refusal = h("span", { class: "bad refusal", id: `refusal-${d.name}-${r.number}-${p.number}`, role: "alert" });
  // What is wrong with a box (null: a whole number), and the boxes as scores.
  const fault = (input) => (input.validity.badInput || (input.value.trim() !== "" && !/^-?\d+$/.test(input.value.trim()))
    ? "whole" : input.value.trim() === "" ? "missing" : null);
  const enter = () => {
    const faults = [[a, p.first, fault(a)], [b, p.second, fault(b)]];
    for (const [input, , why] of faults) {
      if (why) input.setAttribute("aria-invalid", "true"); else input.removeAttribute("aria-invalid");
    }
    const wrong = faults.filter(([, , why]) => why);
    if (wrong.length) {
      const [input, n, why] = wrong[0];
      refusal.textContent = wrong.length === 2 && wrong.every(([, , w]) => w === "missing")
        ? t("Both scores are missing: nothing was sent.")
        : why === "missing" ? t("{name}'s score is missing: nothing was sent.", { name: name(n) })
          : t("{name}'s score is not a whole number: nothing was sent.", { name: name(n) });
      input.focus();
      return;
    }
    refusal.textContent = "";
    const [x, y] = [Number(a.value), Number(b.value)];
    act("RecordResult", { division: d.name, round: r.number, pairing: p.number, scores: { first: x, second: y } },
      t("Result entered: {first} {a} – {b} {second}.", { first: name(p.first), second: name(p.second), a: x, b: y }));
  };
  return h("span", { class: "result-form" }, a, b, h("button", { type: "button", id: `enter-${d.name}-${r.number}-${p.number}`, onclick: enter }, t("Enter")), refusal);
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
  const run = () => stream("TournamentsService", "WatchTournament", { slug: s.slug, from_event: from }, undefined, onMessage, controller.signal)
    .catch(() => {})
    .finally(() => { if (!controller.signal.aborted && location.pathname.startsWith("/tournaments/")) setTimeout(run, 1000); });
  run();
  addEventListener("popstate", () => controller.abort(), { once: true });
}

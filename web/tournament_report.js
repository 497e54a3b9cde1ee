// A tournament's page's statistics and log: each division's statistics (its records and one row
// a player, for everyone: as the server lets the visitor see the results; CSV to download, with
// the division's TSH `.t` file and, for a rated division, the rating body's two CSV files), and
// the director's log (every event with who did it, said in words in the page's language, filtered
// by division, round, player and kind; JSON lines or CSV to download), and each division's prizes
// (who takes each now; CSV to download).

import { call } from "/web/grpc.js";
import { t, lang, count } from "/web/i18n.js";
import { h, explain } from "/web/ui.js";

const KINDS = ["created", "player_added", "player_withdrawn", "pairings_made", "round_started", "result", "result_corrected", "division_imported", "rounds_changed", "player_reentered", "round_unpaired", "token_reissued", "reports_set", "result_reported", "table_reserved", "prizes_set", "checked_in", "reviews_asked", "reviews_set"];

// Offer `text` as a file called `name`.
export function download(text, name, type) {
  const a = h("a", { href: URL.createObjectURL(new Blob([text], { type })), download: name });
  document.body.append(a);
  a.click();
  a.remove();
}

// Division `d`'s statistics, filled in once the server answers.
export function statisticsSection(s, d) {
  const section = h("div", { class: "statistics", id: `statistics-${d.name}` }, h("h3", { text: t("Statistics") }));
  const token = s.director ? s.token : undefined;
  const request = { slug: s.slug, division: d.name };
  call("TournamentsService", "GetDivisionStatistics", request, token).then((r) => {
    const st = r.statistics;
    const name = (n) => (d.players[n - 1] || {}).name || `#${n}`;
    const record = (label, id, x) => (x ? h("li", { id: `${id}-${d.name}`,
      text: `${label}: ${name(x.player)} ${x.score || 0} – ${x.opponent_score || 0} ${name(x.opponent)} (${t("round {n}", { n: x.round })})` }) : null);
    const records = h("ul", { class: "records" },
      record(t("High game"), "high-game", st.high_game), record(t("High loss"), "high-loss", st.high_loss),
      record(t("High combined"), "high-combined", st.high_combined), record(t("Biggest win"), "biggest-win", st.biggest_win));
    const heads = [t("Player"), t("Games"), t("Average for"), t("Average against"), t("High game"), t("Firsts"), t("Performance"), t("Bingos")];
    const table = h("table", { class: "standings", id: `statistics-table-${d.name}` },
      h("thead", {}, h("tr", {}, heads.map((x) => h("th", { text: x })))),
      h("tbody", {}, st.players.map((p) => h("tr", { "data-player": String(p.player) },
        h("td", { text: p.name }), h("td", { text: String(p.games || 0) }),
        h("td", { text: Number(p.average_for || 0).toFixed(2) }), h("td", { text: Number(p.average_against || 0).toFixed(2) }),
        h("td", { text: p.high_game === undefined ? "" : String(p.high_game) }), h("td", { text: String(p.firsts || 0) }),
        h("td", { text: p.performance_rating === undefined ? "" : String(p.performance_rating) }),
        h("td", { text: t("{n} in {games} games", { n: p.bingos || 0, games: p.bingo_games || 0 }) })))));
    const csv = h("button", { type: "button", class: "link", id: `statistics-csv-${d.name}`, onclick: async () => {
      const x = await call("TournamentsService", "ExportDivisionStatistics", request, token);
      download(x.players_csv, `${s.slug}-${d.name}-players.csv`, "text/csv");
      download(x.records_csv, `${s.slug}-${d.name}-records.csv`, "text/csv");
    } }, t("Download CSV"));
    // The division as TSH and the rating bodies read it, as the visitor may see it.
    const file = (id, label, fetchText, name, type) => h("button", { type: "button", class: "link", id: `${id}-${d.name}`, onclick: async () => {
      try {
        download(await fetchText(), name, type);
      } catch (e) {
        section.append(h("p", { class: "bad", text: explain(e) }));
      }
    } }, label);
    const tsh = file("tsh", t("Download the .t file"),
      async () => (await call("TournamentsService", "ExportTsh", request, token)).text, `${s.slug}-${d.name}.t`, "text/plain");
    const ratings = (which, label) => file(`ratings-${which}`, label,
      async () => (await call("TournamentsService", "ExportRatings", { ...request, file: `RATINGS_FILE_${which.toUpperCase()}` }, token)).text,
      `${s.slug}-${d.name}-ratings-${which}.csv`, "text/csv");
    const rated = d.controls && d.controls.rating_system && d.controls.rating_system !== "RATING_SYSTEM_UNSPECIFIED";
    const files = [csv, " ", tsh, ...(rated ? [" ", ratings("games", t("Download the rated games")), " ", ratings("players", t("Download the ratings"))] : [])];
    section.append(records, table, h("p", { class: "downloads" }, ...files));
  }).catch((e) => section.append(h("p", { class: "bad", text: explain(e) })));
  return section;
}

// ---- A division's prizes ----

// An ordinal as the server writes one ("1st", "22nd"): its number.
const ORDINAL = "(\\d+)(?:st|nd|rd|th)";

// The server's words for a prize, its taker's achievement or why nobody takes it (English) in the
// page's language where the page knows their form; else as they are, marked English.
function prizeWords(text, forms) {
  for (const [re, say] of forms) {
    const m = text.match(re);
    if (m) return say(m);
  }
  return h("span", { lang: "en", text });
}
const descriptionWords = (text) => prizeWords(text, [
  [new RegExp(`^${ORDINAL} place$`), (m) => t("{ordinal} place", { ordinal: text.split(" ")[0], n: m[1] })],
  [new RegExp(`^(.+): ${ORDINAL} place$`), (m) => t("{class}: {ordinal} place", { class: m[1], ordinal: text.slice(m[1].length + 2).split(" ")[0], n: m[2] })],
  [/^High game$/, () => t("High game")], [/^High loss$/, () => t("High loss")], [/^Most bingos$/, () => t("Most bingos")],
]);
const achievementWords = (text) => prizeWords(text, [
  [/^(\d+(?:\.5)?-\d+(?:\.5)? [+-]\d+)$/, (m) => m[1]],
  [/^round (\d+): (-?\d+)-(-?\d+) v (.+)$/, (m) => t("round {n}: {a}-{b} v {name}", { n: m[1], a: m[2], b: m[3], name: m[4] })],
  [/^(\d+) bingos?$/, (m) => t("{n} bingos", { n: m[1] })],
]);
const noteWords = (text) => prizeWords(text, [
  [/^no player it is open to has a game with scores$/, () => t("no player it is open to has a game with scores")],
  [/^no game with scores has been lost$/, () => t("no game with scores has been lost")],
  [/^no player has a bingo$/, () => t("no player has a bingo")],
  [new RegExp(`^no player is placed (${ORDINAL}) or below$`), (m) => t("no player is placed {ordinal} or below", { ordinal: m[1], n: m[2] })],
  [/^everyone in line for it has taken a prize of exclusive group (.+)$/, (m) => t("everyone in line for it has taken a prize of exclusive group {group}", { group: m[1] })],
  [/^bingo counts are not known \(the games were not played on the server\)$/, () => t("bingo counts are not known (the games were not played on the server)")],
]);

// Division `d`'s prizes, under its standings, once the server answers: who takes each now (as
// the visitor may see the results), provisional until every result is in; the list as CSV to
// download. Nothing is shown for a division without prizes.
export function prizesSection(s, d) {
  const section = h("div", { class: "prizes", id: `prizes-${d.name}`, hidden: true });
  const token = s.director ? s.token : undefined;
  const request = { slug: s.slug, division: d.name };
  call("TournamentsService", "GetDivisionPrizes", request, token).then((r) => {
    if (!r.prizes.length) return;
    const name = (n) => (d.players[n - 1] || {}).name || `#${n}`;
    const heads = [t("Prize"), t("Value"), t("Taken by"), t("Achievement")];
    const rows = r.awards.map((a) => h("tr", { "data-prize": String(a.prize), "data-player": String(a.player || 0) },
      h("td", { class: "prize-what" }, descriptionWords(a.description)), h("td", { class: "prize-value", text: a.value }),
      ...(a.player
        ? [h("td", { class: "prize-who" }, name(a.player), a.shared ? [" ", h("span", { class: "shared", text: t("shared") })] : null),
          h("td", { class: "prize-how" }, achievementWords(a.achievement))]
        : [h("td", { class: "prize-note", colspan: "2" }, h("span", { class: "nobody", text: t("nobody:") }), " ", noteWords(a.note))])));
    const csv = h("button", { type: "button", class: "link", id: `prizes-csv-${d.name}`, onclick: async () => {
      try {
        const x = await call("TournamentsService", "ExportDivisionPrizes", request, token);
        download(x.csv, `${s.slug}-${d.name}-prizes.csv`, "text/csv");
      } catch (e) {
        section.append(h("p", { class: "bad", text: explain(e) }));
      }
    } }, t("Download the prizes (CSV)"));
    section.append(
      h("h3", { id: `prizes-title-${d.name}`, text: r.final ? t("Prizes") : t("Prizes (provisional)") }),
      h("table", { class: "standings prize-table", id: `prize-table-${d.name}` },
        h("thead", {}, h("tr", {}, heads.map((x) => h("th", { text: x })))), h("tbody", {}, rows)),
      h("p", { class: "downloads" }, csv));
    section.hidden = false;
  }).catch((e) => { section.hidden = false; section.append(h("p", { class: "bad", text: explain(e) })); });
  return section;
}

// An event's kind in words.
export function kindName(kind) {
  const names = {
    created: t("tournament created"), player_added: t("player added"), player_withdrawn: t("player withdrawn"),
    pairings_made: t("pairings made"), round_started: t("round started"), result: t("result"),
    result_corrected: t("result corrected"), division_imported: t("division imported"), rounds_changed: t("rounds changed"),
    player_reentered: t("player re-entered"), round_unpaired: t("pairings taken back"), token_reissued: t("token made anew"),
    reports_set: t("players' reports set"), result_reported: t("result reported"), table_reserved: t("table reserved"),
    prizes_set: t("prizes set"), checked_in: t("checked in"), reviews_asked: t("reviews asked"),
    reviews_set: t("reviews as games end"),
  };
  return names[kind] || kind;
}

const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// What an event says happened, in the page's language, or null where the page cannot say it
// (then the server's own text, in English, is shown as it is). Who and which round come from the
// event's fields (its kind, round, players by number, named from the tournament; the tournament's
// name); the figures only the server's text holds (scores, a forfeit's loser, a bye's spread, how
// many games or rounds, what a correction replaced, how a late entry's missed rounds count) are
// read from it in the forms the server writes them, and a text in no such form is not guessed at.
export function eventSentence(e, tournament) {
  const d = tournament.divisions.find((x) => x.name === e.division);
  const players = e.players || [];
  const name = (n) => (d && d.players[n - 1] ? d.players[n - 1].name : null);
  const detail = e.detail || "";
  const who = name(players[0]);
  switch (e.kind) {
    case "created": return tournament.name;
    case "player_withdrawn": {
      if (!who) return null;
      if (detail === `${who} withdraws: absent at check-in`) return t("{name} withdraws: absent at check-in", { name: who });
      return t("{name} withdraws", { name: who });
    }
    case "checked_in": {
      const forms = {
        [`${who} checks in`]: "{name} checks in",
        [`${who} is checked in by the director`]: "{name} is checked in by the director",
        [`${who} takes back their check-in`]: "{name} takes back their check-in",
        [`${who}'s check-in is taken back by the director`]: "{name}'s check-in is taken back by the director",
      };
      return who && forms[detail] ? t(forms[detail], { name: who }) : null;
    }
    case "reviews_asked": {
      const m = detail.match(/^(\d+) games at (\d+) ms a turn$/);
      return m && t("{games} asked to be reviewed at {ms} ms a turn", { games: count(Number(m[1]), "game"), ms: m[2] });
    }
    case "reviews_set": {
      if (detail === "games are not reviewed as they end") return t("The games of {division} are not reviewed as they end", { division: e.division });
      const m = detail.match(/^each game is reviewed as it ends, at (\d+) ms a turn$/);
      return m && t("{division}: each game reviewed as it ends, at {ms} ms a turn", { division: e.division, ms: m[1] });
    }
    case "player_reentered": return who && t("{name} enters again as player {n}", { name: who, n: players[0] });
    case "round_unpaired": return e.round ? t("Round {n}'s pairings taken back", { n: e.round }) : null;
    case "token_reissued": return who && detail === `${who}'s token made anew` ? t("{name}'s token made anew", { name: who }) : null;
    case "pairings_made": {
      if (detail === `round ${e.round} paired`) return t("Round {n} paired", { n: e.round });
      if (detail === `round ${e.round} paired by the director`) return t("Round {n} paired by hand", { n: e.round });
      return null;
    }
    case "round_started": {
      const m = detail.match(new RegExp(`^round ${e.round}: (\\d+) games$`));
      return m && t("Round {n} started: {games}", { n: e.round, games: count(Number(m[1]), "game") });
    }
    case "division_imported": {
      const m = detail.match(/^(\d+) players, (\d+) rounds played$/);
      return m && t("Division {division} imported: {players}, {rounds} played",
        { division: e.division, players: count(Number(m[1]), "player"), rounds: count(Number(m[2]), "round") });
    }
    case "rounds_changed": {
      const m = detail.match(/^(?:round (\d+)|rounds (\d+) to (\d+)) (added|taken off): (\d+) rounds$/);
      if (!m) return null;
      const what = m[1]
        ? t(m[4] === "added" ? "Round {n} added" : "Round {n} taken off", { n: m[1] })
        : t(m[4] === "added" ? "Rounds {a} to {b} added" : "Rounds {a} to {b} taken off", { a: m[2], b: m[3] });
      return t("{what}: {rounds} in all", { what, rounds: count(Number(m[5]), "round") });
    }
    case "player_added": {
      if (!who) return null;
      const m = detail.match(new RegExp(`^${escaped(who)} joins as player ${players[0]}(.*)$`));
      if (!m) return null;
      const joins = t("{name} joins as player {n}", { name: who, n: players[0] });
      const missed = [
        [/^$/, () => null],
        [/^, absent from round 1$/, () => t("absent from round 1")],
        [/^, absent from rounds 1 to (\d+)$/, (x) => t("absent from rounds 1 to {n}", { n: x[1] })],
        [/^, a bye \(([+-]\d+)\) for round 1$/, (x) => t("a bye ({spread}) for round 1", { spread: x[1] })],
        [/^, a bye \(([+-]\d+)\) for each of rounds 1 to (\d+)$/, (x) => t("a bye ({spread}) for each of rounds 1 to {n}", { spread: x[1], n: x[2] })],
      ].map(([re, say]) => { const x = m[1].match(re); return x ? [say(x)] : null; }).find(Boolean);
      if (!missed) return null;
      return missed[0] ? `${joins}, ${missed[0]}` : joins;
    }
    case "result":
    case "result_corrected": {
      // A pairing's line as the server writes it, between the event's players: [said, the rest].
      const [a, b] = players.map(name);
      if (!a || (players.length > 1 && !b)) return null;
      const line = (text) => {
        const forms = b ? [
          [`${escaped(a)} (-?\\d+) – ${escaped(b)} (-?\\d+)`, (x) => `${a} ${x[1]} – ${b} ${x[2]}`],
          [`${escaped(a)} forfeits to ${escaped(b)}`, () => t("{loser} forfeits to {winner}", { loser: a, winner: b })],
          [`${escaped(b)} forfeits to ${escaped(a)}`, () => t("{loser} forfeits to {winner}", { loser: b, winner: a })],
          [`${escaped(a)} – ${escaped(b)}`, () => `${a} – ${b}`],
        ] : [[`${escaped(a)}: a bye \\(([+-]\\d+)\\)`, (x) => t("{name}: a bye ({spread})", { name: a, spread: x[1] })]];
        for (const [form, say] of forms) {
          const x = text.match(new RegExp(`^${form}`));
          if (x) return [say(x), text.slice(x[0].length)];
        }
        return null;
      };
      const said = line(detail);
      if (!said) return null;
      let [sentence, rest] = said;
      if (rest.startsWith(" (withdrawn)")) {
        sentence = t("{result} (withdrawn)", { result: sentence });
        rest = rest.slice(" (withdrawn)".length);
      }
      if (rest.startsWith(" (was ") && rest.endsWith(")")) {
        const was = line(rest.slice(" (was ".length, -1));
        if (!was || was[1] !== "") return null;
        sentence = t("{result} (was {old})", { result: sentence, old: was[0] });
        rest = "";
      }
      return rest === "" ? sentence : null;
    }
    default: return null;
  }
}

// Who did it, as the log names them: the root director, a game's end, or a key by its name.
const byName = (by) => (by === "director" || by === "game" ? t(by) : by || "");

// The director's log: built once, shown again with its filters on every refresh. A player is
// chosen by name (the filter's division then is theirs); the choices follow the tournament.
export function logPanel(s) {
  const division = h("select", { id: "log-division", "aria-label": t("Division") });
  const round = h("input", { id: "log-round", type: "number", min: "0", placeholder: t("round"), "aria-label": t("round"), class: "score-in" });
  const player = h("select", { id: "log-player", "aria-label": t("Player") });
  const kind = h("select", { id: "log-kind", "aria-label": t("Kind of event") },
    h("option", { value: "", text: t("every kind") }), KINDS.map((k) => h("option", { value: k, text: kindName(k) })));
  const rows = h("tbody", {});
  const out = h("p", { class: "meta", id: "log-status", role: "status" });
  // A select's options made again only when they change, the choice kept while it is there.
  const offer = (select, options) => {
    const key = JSON.stringify(options);
    if (select.dataset.offered === key) return;
    const chosen = select.value;
    select.replaceChildren(...options.map(([value, text]) => h("option", { value, text })));
    select.dataset.offered = key;
    select.value = options.some(([value]) => value === chosen) ? chosen : "";
  };
  const offerPlayers = () => {
    const all = s.tournament.divisions;
    const shown = all.filter((x) => !division.value || x.name === division.value);
    const named = all.length > 1 && !division.value;
    offer(player, [["", t("every player")], ...shown.flatMap((x) => x.players.map((p) =>
      [`${x.name}/${p.number}`, named ? `${p.name} (${x.name})` : p.name]))]);
  };
  division.addEventListener("change", offerPlayers);
  const filter = () => {
    const [of, number] = player.value ? player.value.split("/") : ["", "0"];
    return {
      division: division.value || of, round: Number(round.value || 0), player: Number(number),
      kinds: kind.value ? [kind.value] : [],
    };
  };
  const refresh = async () => {
    offer(division, [["", t("every division")], ...s.tournament.divisions.map((x) => [x.name, x.name])]);
    offerPlayers();
    try {
      const r = await call("TournamentsService", "GetTournamentLog", { slug: s.slug, filter: filter(), page_size: 1000 }, s.token);
      rows.replaceChildren(...r.events.map((e) => {
        const said = eventSentence(e, s.tournament);
        return h("tr", { "data-event": String(e.number || 0) },
          h("td", { text: String(e.number || 0) }), h("td", { text: new Date(Number(e.unix_ms || 0)).toLocaleString(lang) }),
          h("td", { class: "kind", text: kindName(e.kind) }),
          h("td", { text: [e.division, e.round ? t("round {n}", { n: e.round }) : ""].filter(Boolean).join(" · ") }),
          h("td", { class: "by", text: byName(e.by) }),
          // The server's own text where the page cannot say it: in English, and marked so.
          h("td", { class: "detail" }, said === null || said === undefined ? h("span", { lang: "en", text: e.detail }) : said));
      }));
      out.textContent = t("{n} events", { n: r.events.length });
      out.className = "meta";
    } catch (e) {
      out.textContent = explain(e);
      out.className = "bad";
    }
  };
  const exported = (format, ext, type) => h("button", { type: "button", class: "link", id: `log-${ext}`, onclick: async () => {
    try {
      const r = await call("TournamentsService", "ExportTournamentLog", { slug: s.slug, filter: filter(), format }, s.token);
      download(r.text, `${s.slug}-log.${ext}`, type);
    } catch (e) {
      out.textContent = explain(e);
      out.className = "bad";
    }
  } }, ext === "csv" ? t("Download CSV") : t("Download JSON lines"));
  const element = h("section", { class: "panel tournament-log", id: "tournament-log" },
    h("h2", { text: t("Log") }),
    h("div", { class: "row-controls" }, division, round, player, kind,
      h("button", { type: "button", id: "log-show", onclick: refresh }, t("Show"))),
    out,
    h("table", { class: "pairings", id: "log-table" }, h("tbody", {}, rows)),
    h("p", { class: "downloads" }, exported("LOG_FORMAT_JSON_LINES", "jsonl", "application/jsonl"), " ", exported("LOG_FORMAT_CSV", "csv", "text/csv")));
  return { element, refresh };
}

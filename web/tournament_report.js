// A tournament's page's statistics and log: each division's statistics (its records and one row
// a player, for everyone: as the server lets the visitor see the results; CSV to download), and
// the director's log (every event with who did it, filtered by division, round, player and kind;
// JSON lines or CSV to download).

import { call } from "/web/grpc.js";
import { t } from "/web/i18n.js";
import { h, explain } from "/web/ui.js";

const KINDS = ["created", "player_added", "player_withdrawn", "pairings_made", "round_started", "result", "result_corrected", "division_imported", "rounds_changed", "player_reentered", "round_unpaired"];

// Offer `text` as a file called `name`.
function download(text, name, type) {
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
    section.append(records, table, h("p", { class: "downloads" }, csv));
  }).catch((e) => section.append(h("p", { class: "bad", text: explain(e) })));
  return section;
}

// The director's log: built once, shown again with its filters on every refresh.
export function logPanel(s) {
  const field = (id, placeholder) => h("input", { id, type: "number", min: "0", placeholder, class: "score-in" });
  const division = h("select", { id: "log-division" });
  const round = field("log-round", t("round"));
  const player = field("log-player", t("player"));
  const kind = h("select", { id: "log-kind" }, h("option", { value: "", text: t("every kind") }), KINDS.map((k) => h("option", { value: k, text: k })));
  const rows = h("tbody", {});
  const out = h("p", { class: "meta", id: "log-status", role: "status" });
  const filter = () => ({
    division: division.value, round: Number(round.value || 0), player: Number(player.value || 0),
    kinds: kind.value ? [kind.value] : [],
  });
  const refresh = async () => {
    const divisions = s.tournament.divisions.map((x) => x.name);
    if (division.options.length !== divisions.length + 1) {
      const chosen = division.value;
      division.replaceChildren(h("option", { value: "", text: t("every division") }), divisions.map((x) => h("option", { value: x, text: x })));
      division.value = chosen;
    }
    try {
      const r = await call("TournamentsService", "GetTournamentLog", { slug: s.slug, filter: filter(), page_size: 1000 }, s.token);
      rows.replaceChildren(...r.events.map((e) => h("tr", { "data-event": String(e.number || 0) },
        h("td", { text: String(e.number || 0) }), h("td", { text: new Date(Number(e.unix_ms || 0)).toLocaleString() }),
        h("td", { text: e.kind }), h("td", { text: [e.division, e.round ? t("round {n}", { n: e.round }) : ""].filter(Boolean).join(" · ") }),
        h("td", { class: "by", text: e.by || "" }), h("td", { text: e.detail }))));
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

// A tournament page's reviews, for its directors: the games of the tournament, a division or a
// round asked to be reviewed (ReviewGames) at a time a turn, a division's games reviewed as they
// end (SetDivisionReviews), and where the review jobs stand (WatchReviews): a bar of the games
// reviewed with the estimate of the time left, and each job's game linked to its review.

import { call, stream } from "/web/grpc.js";
import { t, count } from "/web/i18n.js";
import { h, explain } from "/web/ui.js";

const STATES = {
  REVIEW_JOB_STATE_QUEUED: "queued", REVIEW_JOB_STATE_RUNNING: "being reviewed", REVIEW_JOB_STATE_DONE: "reviewed",
  REVIEW_JOB_STATE_WAITING: "waiting for its end", REVIEW_JOB_STATE_FAILED: "failed",
};

// Seconds as the bar says them.
function left(ms) {
  const s = Math.max(1, Math.round(ms / 1000));
  return s < 90 ? t("about {n} s left", { n: s }) : t("about {n} min left", { n: Math.round(s / 60) });
}

// The panel, hidden until the page knows its visitor directs the tournament (`refresh`).
export function reviewsPanel(s) {
  const division = h("select", { id: "reviews-division", "aria-label": t("Division") });
  const round = h("input", { id: "reviews-round", type: "number", min: "0", placeholder: t("every round"), "aria-label": t("round"), class: "score-in" });
  const ms = h("input", { id: "reviews-ms", type: "number", min: "50", max: "60000", step: "50", value: "1000", "aria-label": t("ms a turn"), class: "score-in" });
  const out = h("p", { class: "meta", id: "reviews-status", role: "status" });
  const bar = h("progress", { id: "reviews-bar", max: "1", value: "0" });
  const said = h("p", { class: "meta", id: "reviews-progress" });
  const rows = h("tbody", {});
  const setting = h("p", { class: "meta", id: "reviews-setting" });
  const ask = async (button, method, request, done) => {
    button.disabled = true;
    try {
      const answer = await call("TournamentsService", method, { slug: s.slug, ...request }, s.token);
      out.textContent = done(answer);
      out.className = "ok";
      if (method === "SetDivisionReviews") await s.load();
    } catch (e) {
      out.textContent = explain(e);
      out.className = "bad";
    }
    button.disabled = false;
  };
  const review = h("button", { type: "button", id: "reviews-ask", class: "primary", onclick: () => ask(review, "ReviewGames",
    { division: division.value, round: Number(round.value || 0), ms_per_turn: Number(ms.value || 0) },
    (a) => t("{games} asked to be reviewed at {ms} ms a turn", { games: count(a.games, "game"), ms: a.ms_per_turn })) }, t("Review the games"));
  const asTheyEnd = h("button", { type: "button", id: "reviews-as-they-end", onclick: () => {
    if (!division.value) { out.textContent = t("Choose a division."); out.className = "bad"; return; }
    ask(asTheyEnd, "SetDivisionReviews", { division: division.value, ms_per_turn: Number(ms.value || 0) },
      () => t("Each game of {division} is reviewed as it ends", { division: division.value }));
  } }, t("Review each game as it ends"));
  const stop = h("button", { type: "button", id: "reviews-stop", onclick: () => {
    if (!division.value) { out.textContent = t("Choose a division."); out.className = "bad"; return; }
    ask(stop, "SetDivisionReviews", { division: division.value, ms_per_turn: 0 },
      () => t("The games of {division} are not reviewed as they end", { division: division.value }));
  } }, t("Stop reviewing as they end"));
  const element = h("section", { class: "panel", id: "reviews", hidden: true },
    h("h2", { text: t("Reviews") }),
    h("p", { class: "meta", text: t("Every game reviewed by the engine, on the server's spare time: the jobs are kept, so a restart loses none.") }),
    h("div", { class: "row-controls" }, division, round, ms, review, asTheyEnd, stop),
    setting, out,
    h("div", { class: "reviews-progress" }, bar, said),
    h("table", { class: "reviews-jobs", id: "reviews-jobs" },
      h("thead", {}, h("tr", {}, [t("Division"), t("round"), t("game"), t("state")].map((x) => h("th", { text: x })))),
      rows));

  const show = (m) => {
    const total = m.total || 0;
    bar.max = String(Math.max(total, 1));
    bar.value = String(m.done || 0);
    const parts = [t("{done} of {total} reviewed", { done: m.done || 0, total: count(total, "game") })];
    if (m.failed) parts.push(t("{n} failed", { n: m.failed }));
    const waiting = m.jobs.filter((j) => j.state === "REVIEW_JOB_STATE_WAITING").length;
    if (waiting) parts.push(t("{n} waiting for their end", { n: waiting }));
    if (m.eta_ms) parts.push(left(Number(m.eta_ms)));
    said.textContent = total ? parts.join(" · ") : t("No game asked to be reviewed yet.");
    rows.replaceChildren(...m.jobs.map((j) => h("tr", { class: `job-${STATES[j.state] === "reviewed" ? "done" : "open"}` },
      h("td", { text: j.division }), h("td", { text: String(j.round) }),
      h("td", {}, h("a", { href: `/games/${j.game_id}${j.state === "REVIEW_JOB_STATE_DONE" ? `/review?ms=${j.ms_per_turn}` : ""}`, text: j.game_id.slice(0, 8) })),
      h("td", { class: "job-state", title: j.error || "", text: t(STATES[j.state] || "queued") }))));
  };
  let watching = null;
  const refresh = () => {
    element.hidden = !s.director;
    if (!s.director) {
      if (watching) { watching.abort(); watching = null; }
      return;
    }
    const names = s.tournament.divisions.map((d) => d.name);
    const key = JSON.stringify(names);
    if (division.dataset.offered !== key) {
      const chosen = division.value;
      division.replaceChildren(h("option", { value: "", text: t("every division") }), ...names.map((n) => h("option", { value: n, text: n })));
      division.dataset.offered = key;
      division.value = names.includes(chosen) ? chosen : "";
    }
    const reviewed = s.tournament.divisions.filter((d) => d.review_ms_per_turn);
    setting.textContent = reviewed.map((d) => t("{division}: each game reviewed as it ends, at {ms} ms a turn", { division: d.name, ms: d.review_ms_per_turn })).join(" · ");
    if (watching) return;
    watching = new AbortController();
    const signal = watching.signal;
    stream("TournamentsService", "WatchReviews", { slug: s.slug }, s.token, show, signal).catch((e) => {
      if (signal.aborted) return;
      said.textContent = explain(e);
      watching = null;
    });
  };
  return { element, refresh };
}

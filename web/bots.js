// The bots' page, `/bots`: every bot account the server knows (who runs it, whether it is
// online, what it plays, its ratings), a challenge to one that is online (the challenger's name,
// the clock, rated or not; the page waits for the bot's answer and, once it accepts, opens the
// game with the seat's token, kept in this browser as any seat's), and the leaderboard of rated
// games. A rated challenge carries this browser's own secret (localStorage), the key its
// player's name is rated under.

import { call } from "/web/grpc.js";
import { t } from "/web/i18n.js";
import { h, botLabel, explain, keepToken, rulesetName } from "/web/ui.js";

const CLASSES = [["TIME_CLASS_ULTRABLITZ", "ultrablitz"], ["TIME_CLASS_BLITZ", "blitz"], ["TIME_CLASS_RAPID", "rapid"],
  ["TIME_CLASS_REGULAR", "regular"], ["TIME_CLASS_CORRESPONDENCE", "correspondence"], ["TIME_CLASS_UNTIMED", "untimed"]];
const className = (c) => t((CLASSES.find(([k]) => k === c) || [c, c])[1]);

const REASONS = {
  DECLINE_REASON_GENERIC: "no reason given", DECLINE_REASON_LATER: "later, please", DECLINE_REASON_TOO_FAST: "too fast",
  DECLINE_REASON_TOO_SLOW: "too slow", DECLINE_REASON_RATED: "it wants a casual game", DECLINE_REASON_CASUAL: "it wants a rated game",
  DECLINE_REASON_VARIANT: "not this game", DECLINE_REASON_NO_BOTS: "no bots", DECLINE_REASON_ONLY_BOTS: "bots only",
};

/** This browser's secret, the key a player's name is rated under (made the first time). */
function ratingKey() {
  const KEY = "dawgref:rating-key";
  let key = localStorage.getItem(KEY);
  if (!key) {
    key = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
    localStorage.setItem(KEY, key);
  }
  return key;
}

const rating = (r) => `${Math.round(r.rating)} ± ${Math.round(r.deviation)}`;

export async function botsPage(app) {
  document.title = `dawgref — ${t("bots")}`;
  const [bots, board] = await Promise.all([call("BotsService", "ListBots", {}), call("BotsService", "ListRatings", {})]);
  const challengeArea = h("div", { id: "challenge-area" });
  const rows = bots.bots.map((b) => {
    const accepts = b.accepts || {};
    const plays = (accepts.rulesets || []).map(rulesetName).join(", ") || t("any ruleset");
    const state = b.suspended ? t("suspended") : b.online ? t("online") : t("offline");
    const open = b.online && !b.suspended && accepts.people;
    return h("tr", { id: `bot-${b.name}` },
      h("td", {}, h("span", { class: "bot-name", text: b.name }), " ", botLabel()),
      h("td", { text: b.owner }),
      h("td", { class: `bot-state ${b.online ? "online" : ""}`, text: state }),
      h("td", { text: plays }),
      h("td", { class: "bot-ratings", text: (b.ratings || []).map((r) => `${className(r.time_class)} ${rating(r)}`).join(" · ") || "—" }),
      h("td", {}, open ? h("button", { type: "button", class: "link", id: `challenge-${b.name}`,
        onclick: () => challengeArea.replaceChildren(challengeForm(b)) }, t("Challenge it")) : ""));
  });
  const classes = h("select", { id: "leaderboard-class" }, h("option", { value: "", text: t("every time class") }),
    ...CLASSES.map(([k, v]) => h("option", { value: k, text: t(v) })));
  const leaderboard = h("div", { id: "leaderboard" });
  const showBoard = (list) => leaderboard.replaceChildren(list.length === 0
    ? h("p", { class: "meta", id: "no-ratings", text: t("No rated game yet.") })
    : h("table", { class: "standings", id: "leaderboard-table" },
      h("thead", {}, h("tr", {}, ...["#", "Player", "Ruleset", "Time class", "Rating", "Games"].map((c) => h("th", { text: t(c) })))),
      h("tbody", {}, list.map((r, i) => h("tr", {},
        h("td", { text: String(i + 1) }),
        h("td", {}, h("span", { class: "rated-name", text: r.name }), ...(r.bot ? [" ", botLabel()] : [])),
        h("td", { text: rulesetName(r.rating.ruleset_name) }), h("td", { text: className(r.rating.time_class) }),
        h("td", { class: "rated-value", text: rating(r.rating) }), h("td", { text: String(r.rating.games) }))))));
  showBoard(board.ratings);
  classes.addEventListener("change", async () => {
    const r = await call("BotsService", "ListRatings", { time_class: classes.value || "TIME_CLASS_UNSPECIFIED" });
    showBoard(r.ratings);
  });
  app.replaceChildren(
    h("section", { class: "hero" }, h("h1", { text: t("Bots") }), h("p", { text: t("Bot accounts play anyone who challenges them: challenge one that is online.") })),
    h("section", { class: "panel" }, bots.bots.length === 0
      ? h("p", { class: "meta", id: "no-bots", text: t("No bot is registered yet.") })
      : h("table", { class: "pairings", id: "bot-list" },
        h("thead", {}, h("tr", {}, ...["Bot", "Run by", "Now", "Plays in", "Ratings", ""].map((c) => h("th", { text: c && t(c) })))),
        h("tbody", {}, rows)),
    challengeArea),
    h("section", { class: "panel" }, h("h2", { text: t("Leaderboard") }), classes, leaderboard));
}

function challengeForm(bot) {
  const name = h("input", { id: "challenger-name", value: sessionStorage.getItem("dawgref:name") || "", placeholder: t("your name"), maxlength: "64", required: "" });
  const minutes = h("input", { id: "challenge-minutes", type: "number", min: "1", max: "600", value: "5" });
  const increment = h("input", { id: "challenge-increment", type: "number", min: "0", max: "600", value: "0" });
  const rated = h("input", { id: "challenge-rated", type: "checkbox" });
  if (!bot.accepts.casual) rated.checked = true;
  const status = h("p", { class: "meta", id: "challenge-status", role: "status" });
  const send = async (e) => {
    e.preventDefault();
    sessionStorage.setItem("dawgref:name", name.value);
    const request = {
      bot: bot.name, name: name.value, rated: rated.checked,
      game: { clock: { initial_ms: Number(minutes.value) * 60000, increment_ms: Number(increment.value) * 1000 } },
    };
    try {
      const sent = await call("BotsService", "CreateChallenge", request, rated.checked ? ratingKey() : undefined);
      await waitForAnswer(bot, sent.challenge.id, sent.token, status);
    } catch (err) {
      status.className = "bad";
      status.textContent = explain(err);
    }
  };
  return h("form", { class: "challenge-form", id: "challenge-form", onsubmit: send },
    h("h3", { text: t("Challenge {bot}", { bot: bot.name }) }),
    h("label", {}, t("Your name"), name),
    h("div", { class: "pair" }, h("label", {}, t("Clock (minutes)"), minutes), h("label", {}, t("Increment (s)"), increment)),
    h("label", { class: "check" }, rated, " ", t("Rated")),
    h("button", { class: "primary", type: "submit", id: "send-challenge" }, t("Send the challenge")), status);
}

async function waitForAnswer(bot, id, token, status) {
  status.className = "meta";
  status.textContent = t("Waiting for {bot} to answer…", { bot: bot.name });
  for (;;) {
    await new Promise((r) => setTimeout(r, 300));
    const c = (await call("BotsService", "GetChallenge", { id })).challenge;
    if (c.state === "CHALLENGE_STATE_ACCEPTED") {
      keepToken(c.game_id, token);
      location.assign(`/games/${c.game_id}`);
      return;
    }
    if (c.state === "CHALLENGE_STATE_DECLINED") {
      status.className = "bad";
      const why = t(REASONS[c.decline_reason] || "no reason given");
      status.textContent = t("{bot} declined: {why}.", { bot: bot.name, why }) + (c.decline_text ? ` “${c.decline_text}”` : "");
      return;
    }
    if (c.state === "CHALLENGE_STATE_EXPIRED" || c.state === "CHALLENGE_STATE_WITHDRAWN") {
      status.className = "bad";
      status.textContent = t("{bot} did not answer in time.", { bot: bot.name });
      return;
    }
  }
}

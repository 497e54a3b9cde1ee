// What every page shares: building elements, the toast, error and clock texts, the rules of
// every ruleset (fetched once) and their names, and how notation splits into tiles.

import { GrpcError, call } from "/web/grpc.js";
import { t, lang } from "/web/i18n.js";

let rulesets = null;

// A ruleset's name for people: by its name (GameView's ruleset_name, rules.json's keys).
export function rulesetName(k) {
  const named = {
    english: t("English"), russian: t("Скрэббл (Russian)"), erudit: "Эрудит", catalan: t("Catalan"),
    dutch: t("Dutch"), french: t("French"), german: t("German"), norwegian: t("Norwegian"),
    polish: t("Polish"), spanish: t("Spanish"), swedish: t("Swedish"),
    "super-english": t("Super Scrabble (English, 21×21)"),
  }[k];
  return named || (k ? k.split("-").map((w) => w[0].toUpperCase() + w.slice(1)).join(" ") : k);
}

// Notation as tiles: a character each, and a tile of several letters in brackets ("[CH]",
// "[l·l]") as one, without its brackets. Board rows and racks are written this way.
export function splitTiles(text) {
  const out = [];
  for (let i = 0; i < (text || "").length;) {
    if (text[i] === "[") {
      const end = text.indexOf("]", i);
      if (end > i) { out.push(text.slice(i + 1, end)); i = end + 1; continue; }
    }
    const ch = String.fromCodePoint(text.codePointAt(i));
    out.push(ch);
    i += ch.length;
  }
  return out;
}

// A tile as notation writes it: in brackets when it is more than one letter.
export function tileNotation(label) {
  return [...label].length > 1 ? `[${label}]` : label;
}

// Tiles as notation that reads back as the same tiles, as the server writes them: a tile of one
// letter is bracketed where it and the text after it would read as a longer tile (Spanish [R]R,
// [C]H). `spellings`: every label and other spelling of the ruleset.
export function writeTiles(labels, spellings) {
  const long = spellings.filter((k) => [...k].length > 1).map((k) => k.toUpperCase());
  let out = "";
  for (let i = labels.length - 1; i >= 0; i--) {
    const label = labels[i];
    const joined = (label + out).toUpperCase();
    const merges = [...label].length === 1 && label !== "?" && long.some((k) => joined.startsWith(k));
    out = (merges ? `[${label}]` : tileNotation(label)) + out;
  }
  return out;
}

// Players' names in the page's language's alphabetical order, as a person reads a list of names:
// case and accents aside, numbers by their value (the hall display's and the print page's
// pairings by name, ordered alike).
export function nameCollator() {
  return new Intl.Collator(lang, { sensitivity: "base", numeric: true });
}

// Events the director makes: an undo never takes them back.
export const DIRECTOR_EVENTS = new Set(["paused", "resumed", "score_adjusted", "clock_adjusted", "turn_undone", "note"]);

/** Whether a player or a seat is a bot's: the server's (`bot`: a level, or true on a seat), or a
 * registered bot's by its account (`bot_account`). */
export function isBot(p) {
  return Boolean(p && (p.bot_account || (p.bot !== undefined && p.bot !== null && p.bot !== false)));
}

/** The label every bot wears wherever it is shown. */
export function botLabel() {
  return h("span", { class: "bot-label", text: t("bot") });
}

/** The bots registered in the lobby, by name (asked once a page): a director enters one in a
 * tournament by its account. */
let registered = null;
export function registeredBots() {
  registered = registered || call("BotsService", "ListBots", {}).then((r) => (r.bots || []).map((b) => b.name)).catch(() => []);
  return registered;
}

/** A "played by" choice for each registered bot (`account:<name>`), added to `select` once the
 * bots are known. */
export function offerRegisteredBots(select) {
  registeredBots().then((names) => select.append(...names.map((name) =>
    h("option", { value: `account:${name}`, text: t("the bot {name} (registered)", { name }) }))));
}

/** A "played by" choice's registered bot's name, or "". */
export function accountChosen(value) {
  return value.startsWith("account:") ? value.slice("account:".length) : "";
}

/** What follows a player's name where it is shown: a bot's label, or nothing. */
export function botMark(p) {
  return isBot(p) ? [" ", botLabel()] : [];
}

/** A seat as people name it: its player's name, else "seat 1" (the server counts from 0). */
export function seatName(view, seat) {
  const s = view.seats[seat];
  return (s && s.name) || t("seat {n}", { n: seat + 1 });
}

/** Why a game ended (GameView's `end_reason`, "seat 0 went out"), in the page's language, the
 * seat named. */
export function endReason(view, text) {
  const m = (text || "").match(/^seat (\d+) (.+)$/);
  return m ? t(`{who} ${m[2]}`, { who: seatName(view, Number(m[1])) }) : t(text || "");
}

/** What an event did, as the move lists write it (the game's page and the broadcasts'), in the
 * page's language; the seat that took it is the caller's to name. */
export function eventText(view, e) {
  let what;
  switch (e.kind) {
    case "play": what = `${e.play.notation}${e.words && e.words.length ? ` · ${e.words.join(", ")}` : ""}`; break;
    case "pass": what = t("pass"); break;
    case "exchange": what = t("exchange {tiles}", { tiles: e.tiles || e.tile_count }); break;
    case "phony_withdrawn": what = t("{play} withdrawn", { play: e.play ? e.play.notation : "" }); break;
    case "challenged": {
      const words = (e.verdicts || []).map((w) => `${w.word} ${w.valid ? "✓" : "✗"}`).join(", ");
      what = (e.acceptable ? t("challenge: the play stands") : t("challenge: the play is off")) + (words ? ` (${words})` : "");
      break;
    }
    case "paused": what = t("director: game paused"); break;
    case "resumed": what = t("director: game resumed"); break;
    case "score_adjusted": what = t("director: score adjusted ({why})", { why: e.text }); break;
    case "clock_adjusted": what = t("director: clock {delta} ({why})", { delta: `${e.delta_ms > 0 ? "+" : "−"}${clock(Math.abs(e.delta_ms))}`, why: e.text }); break;
    case "turn_undone": what = t("director: the last turn was taken back"); break;
    case "note": what = t("director: {text}", { text: e.text }); break;
    case "challenge_bonus": what = t("challenge bonus"); break;
    case "turn_lost": what = t("loses the turn"); break;
    case "end_rack_points": what = t("went out: {tiles} left on another rack", { tiles: e.tiles || "—" }); break;
    case "rack_penalty": what = t("{tiles} left on the rack", { tiles: e.tiles || "—" }); break;
    case "time_penalty": what = t("overtime"); break;
    case "resign": what = t("resigns"); break;
    case "out_of_time": what = t("out of time"); break;
    case "game_over": what = t("game over: {why}", { why: endReason(view, e.end_reason) }); break;
    default: what = e.kind;
  }
  // A director key's action names the key (the root director's names nobody).
  return e.director ? `${what} · ${e.director}` : what;
}

/** An event's points as a move list shows them ("+12", "-3", "0"), or null for an event that
 * counts none (the end, a resignation, the director's own but an adjustment). */
export function eventPoints(e) {
  const counted = !["game_over", "resign", "out_of_time", "paused", "resumed", "clock_adjusted", "turn_undone", "note"].includes(e.kind);
  return counted ? (e.points > 0 ? `+${e.points}` : String(e.points || 0)) : null;
}

export function challengeNames() {
  return {
    CHALLENGE_RULE_SINGLE: t("Single"), CHALLENGE_RULE_DOUBLE: t("Double"), CHALLENGE_RULE_VOID: t("Void"),
    CHALLENGE_RULE_FIVE_POINT: t("5 points"), CHALLENGE_RULE_TEN_POINT: t("10 points"), CHALLENGE_RULE_TRIPLE: t("Triple"),
  };
}

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/** An SVG element (the review's graph). */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children.flat()) if (c) el.append(c);
  return el;
}

export function toast(message, kind = "error") {
  const el = document.getElementById("toast");
  el.textContent = message;
  el.className = kind;
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.hidden = true; }, 6000);
}

/** An error as the page shows it: the gRPC code and the server's message (in English). */
export function explain(e) {
  return e instanceof GrpcError ? `${e.codeName}: ${e.message}` : String(e.message || e);
}

export function requestId() {
  const b = crypto.getRandomValues(new Uint8Array(12));
  return [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
}

export function clock(ms) {
  const neg = ms < 0;
  const s = Math.floor(Math.abs(ms) / 1000);
  return `${neg ? "−" : ""}${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// A seat's token is kept in this browser (localStorage), so that a reload, another tab or a
// later visit comes back to the seat; the seat's link (`seatLink`) carries it in the URL's
// fragment, which browsers never send to a server or in a referrer. Leaving the seat forgets it.
const seatKey = (id) => `dawgref:token:${id}`;

/** The token this browser keeps for game `id`'s seat, or null. */
export function tokenFor(id) {
  try {
    const kept = localStorage.getItem(seatKey(id));
    if (kept) return kept;
    // A tab of an earlier page kept it in its sessionStorage: kept from now on.
    const tab = sessionStorage.getItem(seatKey(id));
    if (tab) {
      keepToken(id, tab);
      sessionStorage.removeItem(seatKey(id));
    }
    return tab;
  } catch {
    return null; // storage refused: a watcher
  }
}

export function keepToken(id, token) {
  try { localStorage.setItem(seatKey(id), token); } catch { toast(t("This browser keeps nothing: keep the seat's link to come back.")); }
}

export function forgetToken(id) {
  try {
    localStorage.removeItem(seatKey(id));
    sessionStorage.removeItem(seatKey(id));
  } catch { /* nothing kept */ }
}

/** The address that takes game `id`'s seat in any browser: its token in the fragment. */
export function seatLink(id, token) {
  return `${location.origin}/games/${encodeURIComponent(id)}#token=${encodeURIComponent(token)}`;
}

/** The address of tournament `slug`'s page as the player whose token is `token` opens it (the
 * token in the fragment: players.md, "Your tournament's page"). */
export function tournamentLink(slug, token) {
  return `${location.origin}/tournaments/${encodeURIComponent(slug)}#token=${encodeURIComponent(token)}`;
}

/** A link to hand over, shown as text (not followed: it would make this tab the player's) with
 * its "Copy link" button: copied to the clipboard and "Copied" said; where the clipboard is not
 * to be had (or refuses), the link in a read-only box, selected, to copy by hand. `id` names the
 * whole (`id`-copy the button, `id`-copied what is said). */
export function linkToCopy(link, id) {
  const shown = h("code", { class: "seat-link", text: link });
  const said = h("span", { class: "copied", id: `${id}-copied`, role: "status" });
  let box = null;
  const byHand = () => {
    if (!box) {
      box = h("input", { type: "text", class: "seat-link-box", readonly: true, value: link, "aria-label": t("The link"), id: `${id}-box` });
      shown.replaceWith(box);
    }
    box.focus();
    box.select();
    said.textContent = t("Copy it from the box: it is selected.");
  };
  const copy = h("button", { type: "button", class: "link copy-link", id: `${id}-copy`, onclick: async () => {
    said.textContent = "";
    try {
      if (!(navigator.clipboard && navigator.clipboard.writeText)) throw new Error("no clipboard here");
      await navigator.clipboard.writeText(link);
      said.textContent = t("Copied");
    } catch {
      byHand();
    }
  } }, t("Copy link"));
  const open = qrOpen.get(id);
  const qr = h("button", { type: "button", class: "link show-qr", id: `${id}-qr`, "aria-expanded": open && open.link === link ? "true" : "false",
    onclick: (e) => toggleQr(e.currentTarget, link, id) }, open && open.link === link ? t("Hide the QR code") : t("QR code"));
  const whole = h("span", { class: "link-copy", id, "data-link": link }, shown, " ", copy, " ", qr, " ", said);
  if (open && open.link === link) whole.append(qrFigure(open));
  return whole;
}

// The QR codes shown, by their link's id, so that a redraw of the page (every event of a
// tournament draws it again) keeps one open and does not ask for it again: `{ link, src }`, `src`
// empty while it is drawn.
const qrOpen = new Map();

function qrFigure(open) {
  return open.src
    ? h("span", { class: "qr-code" }, h("img", { src: open.src, width: 256, height: 256, alt: t("QR code of the link") }))
    : h("span", { class: open.failed ? "qr-code bad" : "qr-code", role: "status" }, open.failed || t("Drawing the QR code…"));
}

// A link's QR code, for a player to scan off the screen, shown under its link and hidden by the
// same button. The server draws it (POST /web/qr.svg): the link, a seat token in it, goes in the
// request's body, never in a URL.
async function toggleQr(button, link, id) {
  const whole = button.closest(".link-copy");
  if (qrOpen.get(id)?.link === link) {
    qrOpen.delete(id);
    for (const f of whole.querySelectorAll(".qr-code")) f.remove();
    button.setAttribute("aria-expanded", "false");
    button.textContent = t("QR code");
    return;
  }
  const open = { link, src: "", failed: "" };
  qrOpen.set(id, open);
  whole.append(qrFigure(open));
  button.setAttribute("aria-expanded", "true");
  button.textContent = t("Hide the QR code");
  try {
    const answer = await fetch("/web/qr.svg", { method: "POST", body: link, headers: { "content-type": "text/plain; charset=utf-8" } });
    if (!answer.ok) throw new Error((await answer.text()).trim() || `HTTP ${answer.status}`);
    // A data: URL, as the page's content policy allows images (img-src 'self' data:); the
    // server's SVG is ASCII.
    open.src = `data:image/svg+xml;base64,${btoa(await answer.text())}`;
  } catch (e) {
    open.failed = t("The QR code could not be drawn: {why}", { why: e.message });
  }
  if (qrOpen.get(id) !== open) return;
  // The page may have been drawn again meanwhile: the link's element of now is found by its id.
  const now = document.getElementById(id);
  if (now) for (const f of now.querySelectorAll(".qr-code")) f.replaceWith(qrFigure(open));
}

// A tournament's token on its page (`/tournaments/<slug>`): the tab's (sessionStorage) first, a
// director's or a player's, then the player's this browser keeps (localStorage, as a seat's is
// kept), so that another tab or a later visit is the player's page again. A director's token
// stays in its tab. Forgotten on both when the visitor clears it or the server knows it not.
const tournamentKey = (slug) => `dawgref:tournament:${slug}`;

/** The token for tournament `slug`'s page in this tab: the tab's own, else the player's this
 * browser keeps, else "". */
export function tournamentTokenFor(slug) {
  try {
    return sessionStorage.getItem(tournamentKey(slug)) || localStorage.getItem(tournamentKey(slug)) || "";
  } catch {
    return "";
  }
}

/** Keep a player's tournament token in this browser (every tab, and later visits). */
export function keepPlayerToken(slug, token) {
  try { localStorage.setItem(tournamentKey(slug), token); } catch { /* kept in the tab only */ }
}

/** Forget tournament `slug`'s token in this tab and this browser. */
export function forgetTournamentToken(slug) {
  try {
    sessionStorage.removeItem(tournamentKey(slug));
    localStorage.removeItem(tournamentKey(slug));
  } catch { /* nothing kept */ }
}

export async function rules() {
  if (!rulesets) rulesets = await (await fetch("/web/rules.json")).json();
  return rulesets;
}

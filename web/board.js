// The board and tiles as the page draws them: premium squares, tile values, the cursor, tiles
// being placed. Every square is a gridcell labelled with its coordinate, its content and its
// premium, so the board can be read by assistive technology and driven from the keyboard.

import { t } from "/web/i18n.js";
import { splitTiles } from "/web/ui.js";

/** The board's side: 15, or up to 21 (Super Scrabble), as many as its ruleset's rows. */
export function boardSize(rules) {
  return rules.premiums.length;
}

/** Whether (row, col) is the ruleset's start square (rules.json's `start`). */
export function isStart(rules, row, col) {
  return rules.start[0] === row && rules.start[1] === col;
}

const PREMIUMS = {
  Q: { cls: "qw", name: t("quadruple word"), short: t("QW") },
  q: { cls: "ql", name: t("quadruple letter"), short: t("QL") },
  T: { cls: "tw", name: t("triple word"), short: t("TW") },
  D: { cls: "dw", name: t("double word"), short: t("DW") },
  t: { cls: "tl", name: t("triple letter"), short: t("TL") },
  d: { cls: "dl", name: t("double letter"), short: t("DL") },
  ".": { cls: "", name: "", short: "" },
};

/** Column letter (A–O, A–U on a 21×21 board) of a 0-based column. */
export function colName(col) {
  return String.fromCharCode(65 + col);
}

/** A square's name as players say it: column then row, "H8". */
export function squareName(row, col) {
  return `${colName(col)}${row + 1}`;
}

/** A tile element: the letter and its value (a blank shows its letter and no value). */
export function tileElement(letter, value, blank) {
  const tile = document.createElement("span");
  tile.className = "tile" + (blank ? " blank" : "");
  const l = document.createElement("span");
  l.className = [...letter].length > 1 ? "letter long" : "letter";
  l.textContent = letter === "?" ? "" : letter;
  tile.append(l);
  if (!blank && letter !== "?") {
    const v = document.createElement("span");
    v.className = "value";
    v.textContent = String(value);
    tile.append(v);
  }
  return tile;
}

/**
 * Draw a board into `el`.
 * opts: rules (from rules.json), rows (GameView.board.rows), pending ([{row, col, letter, blank}],
 * each optionally with `cls`, its tile's class in place of "pending", and `label`, what it is),
 * cursor ({row, col, across}), small (a mini-board: no labels, no events), recent (Set of
 * "row,col" placed by the last play), onSquare(row, col), onDrop(row, col, data).
 */
export function renderBoard(el, opts) {
  const { rules, rows, pending = [], cursor = null, small = false, recent = new Set() } = opts;
  const placed = new Map(pending.map((p) => [`${p.row},${p.col}`, p]));
  const SIZE = boardSize(rules);
  const grid = document.createElement("div");
  grid.className = "board" + (small ? " small" : "") + (SIZE > 15 ? " large" : "");
  grid.setAttribute("role", "grid");
  grid.setAttribute("aria-label", small ? t("board") : t("board, {n} by {n}: columns A to {last}, rows 1 to {n}", { n: SIZE, last: colName(SIZE - 1) }));
  if (!small) {
    const head = document.createElement("div");
    head.className = "axis-row";
    head.setAttribute("aria-hidden", "true");
    head.append(document.createElement("span"));
    for (let c = 0; c < SIZE; c++) {
      const s = document.createElement("span");
      s.textContent = colName(c);
      head.append(s);
    }
    grid.append(head);
  }
  for (let r = 0; r < SIZE; r++) {
    const row = document.createElement("div");
    row.className = "row";
    row.setAttribute("role", "row");
    if (!small) {
      const n = document.createElement("span");
      n.className = "axis";
      n.setAttribute("aria-hidden", "true");
      n.textContent = String(r + 1);
      row.append(n);
    }
    for (let c = 0; c < SIZE; c++) {
      const premium = PREMIUMS[rules.premiums[r][c]] || PREMIUMS["."];
      const sq = document.createElement("div");
      sq.className = `sq ${premium.cls}`;
      sq.setAttribute("role", "gridcell");
      sq.dataset.row = r;
      sq.dataset.col = c;
      const onBoard = rows && rows[r] ? splitTiles(rows[r])[c] : ".";
      const mine = placed.get(`${r},${c}`);
      let content = t("empty");
      if (onBoard && onBoard !== ".") {
        const blank = onBoard !== onBoard.toUpperCase();
        const letter = onBoard.toUpperCase();
        sq.append(tileElement(letter, rules.values[letter] ?? 0, blank));
        if (recent.has(`${r},${c}`)) sq.classList.add("recent");
        content = blank ? t("blank as {letter}", { letter }) : letter;
      } else if (mine) {
        const tile = tileElement(mine.letter, rules.values[mine.letter] ?? 0, mine.blank);
        tile.classList.add(mine.cls || "pending");
        sq.append(tile);
        if (mine.label) content = `${mine.label} ${mine.blank ? t("blank as {letter}", { letter: mine.letter }) : mine.letter}`;
        else content = mine.blank ? t("your blank as {letter}", { letter: mine.letter }) : t("your {letter}", { letter: mine.letter });
      } else if (!small) {
        if (isStart(rules, r, c)) {
          sq.classList.add("centre");
          sq.append(Object.assign(document.createElement("span"), { className: "mark", textContent: "★" }));
        } else if (premium.short) {
          sq.append(Object.assign(document.createElement("span"), { className: "mark", textContent: premium.short }));
        }
      }
      const label = [`${squareName(r, c)}: ${content}`];
      if (premium.name) label.push(premium.name);
      if (isStart(rules, r, c)) label.push(t("centre"));
      sq.setAttribute("aria-label", label.join(", "));
      if (cursor && cursor.row === r && cursor.col === c) {
        sq.classList.add("cursor", cursor.across ? "across" : "down");
        sq.setAttribute("aria-selected", "true");
      }
      if (!small) {
        sq.id = `sq-${r}-${c}`;
        if (opts.onSquare) sq.addEventListener("click", () => opts.onSquare(r, c));
        if (opts.onDrop) {
          sq.addEventListener("dragover", (e) => e.preventDefault());
          sq.addEventListener("drop", (e) => {
            e.preventDefault();
            opts.onDrop(r, c, e.dataTransfer.getData("text/plain"));
          });
        }
      }
      row.append(sq);
    }
    grid.append(row);
  }
  el.replaceChildren(grid);
  return grid;
}

//! CGP positions (a FEN-like line): `BOARD RACKS SCORES ZEROS [opcode value;]…`.
//!
//! The board is its ruleset's rows (15, or up to 21 on a larger board) joined by `/`; digits
//! are runs of empty squares, upper-case letters tiles, lower-case letters blanks. Racks and
//! scores are `/`-separated, the player to move first; `?` is a blank on a rack. Known opcodes:
//! `lex`, `ld` (letter distribution: a ruleset's name, e.g. english, catalan, super-english),
//! `cr` (challenge rule), `bb` (bingo bonus), `etl` (exchange limit), `mcnz` (scoreless turns
//! that end the game). Others are kept verbatim.

use super::tiles_read;
use crate::alphabet::{Alphabet, EMPTY, Tile, tile};
use crate::board::Board;
use crate::lexicon::Dawg;
use crate::rack::Rack;
use crate::rules::{Ruleset, RulesetKind, ScorelessLimit};
use crate::script::guess_alphabet;
use crate::text::clip;
use std::sync::Arc;

/// A parsed CGP position, before a lexicon turns it into a [`Board`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cgp {
    pub ruleset: RulesetKind,
    /// Row-major tile bytes, [`Cgp::size`] squared of them.
    pub grid: Vec<Tile>,
    /// Racks, the player to move first.
    pub racks: Vec<Rack>,
    pub scores: Vec<i32>,
    /// Consecutive scoreless turns so far.
    pub zeros: u32,
    pub ops: Ops,
}

/// The opcodes of a CGP line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ops {
    pub lex: Option<String>,
    pub ld: Option<String>,
    pub cr: Option<String>,
    pub bb: Option<i32>,
    pub etl: Option<u32>,
    pub mcnz: Option<u32>,
    /// Unknown opcodes, in order, kept for a faithful round trip.
    pub other: Vec<(String, String)>,
}

/// Where and why a CGP line is malformed. `field` is 1-based (1 board, 2 racks, 3 scores,
/// 4 zeros, 5+ opcodes); `at` is the character offset of the problem in the whole line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("CGP field {field} at character {at}: {kind}")]
pub struct CgpError {
    pub field: usize,
    pub at: usize,
    pub kind: CgpErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CgpErrorKind {
    #[error("missing field")]
    Missing,
    #[error("the board has {rows} rows, expected {size}")]
    Rows { rows: usize, size: usize },
    #[error("row {row} has {len} squares, expected {size}")]
    RowLength { row: usize, len: usize, size: usize },
    #[error("character {0:?} is not a letter of the position's alphabet")]
    Foreign(char),
    #[error("not a number: {0:?}")]
    Number(String),
    #[error("{racks} racks but {scores} scores")]
    PlayerCount { racks: usize, scores: usize },
    #[error("{0} players; a game has 2 to 4")]
    Players(usize),
    #[error("unknown letter distribution {0:?} (expected english, russian or erudit)")]
    UnknownDistribution(String),
    #[error("opcode {0:?} has no value or no closing ';'")]
    Opcode(String),
    #[error("rack {0:?} has more tiles than a rack holds")]
    RackTooLong(String),
}

fn err(field: usize, at: usize, kind: CgpErrorKind) -> CgpError {
    CgpError { field, at, kind }
}

/// Whitespace-separated tokens with their character offsets.
fn tokens(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    let mut start_char = 0;
    for (char_at, (byte, ch)) in text.char_indices().enumerate() {
        if ch.is_whitespace() {
            if let Some(s) = start.take() {
                out.push((start_char, &text[s..byte]));
            }
        } else if start.is_none() {
            start = Some(byte);
            start_char = char_at;
        }
    }
    if let Some(s) = start {
        out.push((start_char, &text[s..]));
    }
    out
}

fn number<T: std::str::FromStr>(s: &str, field: usize, at: usize) -> Result<T, CgpError> {
    s.parse().map_err(|_| err(field, at, CgpErrorKind::Number(clip(s))))
}

/// Parse a CGP line. The ruleset comes from `ld` when present, else `default`, else Cyrillic
/// letters on the board or racks mean Russian and anything else English.
pub fn parse(text: &str, default: Option<RulesetKind>) -> Result<Cgp, CgpError> {
    let toks = tokens(text);
    let field =
        |i: usize| toks.get(i).copied().ok_or(err(i + 1, text.chars().count(), CgpErrorKind::Missing));
    let (board_at, board_text) = field(0)?;
    let (racks_at, racks_text) = field(1)?;
    let (scores_at, scores_text) = field(2)?;
    let (zeros_at, zeros_text) = field(3)?;
    let ops = match toks.get(4) {
        Some(&(rest_at, _)) => parse_ops(text, rest_at)?,
        None => Ops::default(),
    };
    let ruleset = ruleset_of(text, &ops, default, board_text, racks_text)?;
    let alphabet = ruleset.alphabet();
    let grid = parse_board(board_text, board_at, ruleset.definition().size, alphabet)?;
    let racks = parse_racks(racks_text, racks_at, alphabet)?;
    let scores = parse_scores(scores_text, scores_at)?;
    if scores.len() != racks.len() {
        return Err(err(
            3,
            scores_at,
            CgpErrorKind::PlayerCount { racks: racks.len(), scores: scores.len() },
        ));
    }
    if !(2..=4).contains(&racks.len()) {
        return Err(err(2, racks_at, CgpErrorKind::Players(racks.len())));
    }
    let zeros = number(zeros_text, 4, zeros_at)?;
    Ok(Cgp { ruleset, grid, racks, scores, zeros, ops })
}

/// The opcodes: the rest of the line from character `rest_at`, `name value…;` items.
fn parse_ops(text: &str, rest_at: usize) -> Result<Ops, CgpError> {
    let mut ops = Ops::default();
    let rest: String = text.chars().skip(rest_at).collect();
    let mut offset = rest_at;
    for item in rest.split_inclusive(';') {
        let len = item.chars().count();
        let body = item.trim();
        if body.is_empty() {
            offset += len;
            continue;
        }
        let Some(body) = body.strip_suffix(';') else {
            return Err(err(5, offset, CgpErrorKind::Opcode(clip(body))));
        };
        let mut kv = body.trim().splitn(2, char::is_whitespace);
        let name = kv.next().unwrap_or("").to_string();
        let value = kv.next().unwrap_or("").trim().to_string();
        if name.is_empty() || value.is_empty() {
            return Err(err(5, offset, CgpErrorKind::Opcode(clip(body))));
        }
        match name.as_str() {
            "lex" => ops.lex = Some(value),
            "ld" => ops.ld = Some(value),
            "cr" => ops.cr = Some(value),
            "bb" => {
                let bb: i32 = number(&value, 5, offset)?;
                // A bonus beyond any real game's keeps scores far from overflow.
                if !(0..=1000).contains(&bb) {
                    return Err(err(5, offset, CgpErrorKind::Number(clip(&value))));
                }
                ops.bb = Some(bb);
            }
            "etl" => ops.etl = Some(number(&value, 5, offset)?),
            "mcnz" => ops.mcnz = Some(number(&value, 5, offset)?),
            _ => ops.other.push((name, value)),
        }
        offset += len;
    }
    Ok(ops)
}

/// The position's ruleset: `ld`'s when present, else `default`, else guessed from the board's
/// and racks' letters.
fn ruleset_of(
    text: &str,
    ops: &Ops,
    default: Option<RulesetKind>,
    board_text: &str,
    racks_text: &str,
) -> Result<RulesetKind, CgpError> {
    let ruleset = match &ops.ld {
        Some(ld) => match RulesetKind::by_name(ld) {
            Some(kind) => kind,
            None => {
                let at = text.find("ld ").map_or(0, |b| text[..b].chars().count());
                return Err(err(5, at, CgpErrorKind::UnknownDistribution(clip(ld))));
            }
        },
        None => default.unwrap_or_else(|| {
            // The board's runs of tiles (digits count empty squares) and the racks; letters no
            // alphabet reads are left to the board's reading, which names where they are.
            let runs = board_text.split(|c: char| c == '/' || c.is_ascii_digit()).filter(|r| !r.is_empty());
            let racks = racks_text.split('/').filter(|r| !r.is_empty());
            let spelled: Vec<(bool, &str)> =
                runs.map(|r| (true, r)).chain(racks.map(|r| (false, r))).collect();
            let alphabet = guess_alphabet(
                &spelled,
                |&(_, text)| text,
                |alphabet, &(run, text)| tiles_read(alphabet, run, text),
            );
            RulesetKind::for_alphabet(alphabet.unwrap_or(Alphabet::english()))
        }),
    };
    Ok(ruleset)
}

/// The board field (starting at character `board_at`): `size` rows joined by `/`, as grid bytes.
fn parse_board(
    board_text: &str,
    board_at: usize,
    size: usize,
    alphabet: Alphabet,
) -> Result<Vec<Tile>, CgpError> {
    let rows: Vec<&str> = board_text.split('/').collect();
    if rows.len() != size {
        return Err(err(1, board_at, CgpErrorKind::Rows { rows: rows.len(), size }));
    }
    let mut grid = vec![EMPTY; size * size];
    let mut at = board_at;
    for (r, row) in rows.iter().enumerate() {
        let mut col = 0usize;
        let mut run = 0usize;
        let row_at = at;
        // `i` counts characters (positions are reported in characters), `rest` is unread.
        let (mut rest, mut i) = (*row, 0usize);
        while let Some(ch) = rest.chars().next() {
            if let Some(d) = ch.to_digit(10) {
                run = run * 10 + d as usize;
                if run > size {
                    return Err(err(1, row_at, CgpErrorKind::RowLength { row: r + 1, len: col + run, size }));
                }
                rest = &rest[1..];
                i += 1;
                continue;
            }
            col += run;
            run = 0;
            // A tile of several letters is bracketed (`[CH]`), as MAGPIE and macondo write it.
            let (letter, blank, used) =
                alphabet.next_tile(rest).map_err(|_| err(1, row_at + i, CgpErrorKind::Foreign(ch)))?;
            if col >= size {
                return Err(err(1, row_at, CgpErrorKind::RowLength { row: r + 1, len: col + 1, size }));
            }
            grid[r * size + col] = tile(letter, blank);
            col += 1;
            i += rest[..used].chars().count();
            rest = &rest[used..];
        }
        col += run;
        if col != size {
            return Err(err(1, row_at, CgpErrorKind::RowLength { row: r + 1, len: col, size }));
        }
        at += row.chars().count() + 1;
    }

    Ok(grid)
}

/// The racks field (starting at character `racks_at`), `/`-separated.
fn parse_racks(racks_text: &str, racks_at: usize, alphabet: Alphabet) -> Result<Vec<Rack>, CgpError> {
    let mut racks = Vec::new();
    let mut at = racks_at;
    for rack in racks_text.split('/') {
        let r = Rack::parse(rack, alphabet).map_err(|e| match e {
            crate::alphabet::AlphabetError::Foreign { ch, .. } => {
                let i = rack.chars().position(|c| c == ch).unwrap_or(0);
                err(2, at + i, CgpErrorKind::Foreign(ch))
            }
            _ => err(2, at, CgpErrorKind::Foreign('[')),
        })?;
        if r.len() > 7 {
            return Err(err(2, at, CgpErrorKind::RackTooLong(clip(rack))));
        }
        racks.push(r);
        at += rack.chars().count() + 1;
    }

    Ok(racks)
}

/// The scores field (starting at character `scores_at`), `/`-separated.
fn parse_scores(scores_text: &str, scores_at: usize) -> Result<Vec<i32>, CgpError> {
    let mut scores = Vec::new();
    let mut at = scores_at;
    for s in scores_text.split('/') {
        scores.push(number::<i32>(s, 3, at)?);
        at += s.chars().count() + 1;
    }
    Ok(scores)
}

impl Cgp {
    /// Board side: the ruleset's.
    pub fn size(&self) -> usize {
        self.ruleset.definition().size
    }

    /// The ruleset with the position's `bb`, `etl` and `mcnz` applied.
    pub fn rules(&self) -> Ruleset {
        let mut r = Ruleset::new(self.ruleset);
        if let Some(bb) = self.ops.bb {
            r.bingo_bonus = bb;
        }
        if let Some(etl) = self.ops.etl {
            r.options.exchange_limit = etl;
        }
        if let Some(n) = self.ops.mcnz {
            r.options.scoreless_turn_limit = ScorelessLimit::Turns(n);
        }
        r
    }

    /// The board, its cross-sets computed with `dawg`.
    pub fn board(&self, rules: Arc<Ruleset>, dawg: &Dawg) -> Board {
        let mut board = Board::new(rules);
        let n = self.size();
        let placements: Vec<(usize, usize, Tile)> =
            (0..n * n).filter(|&i| self.grid[i] != EMPTY).map(|i| (i / n, i % n, self.grid[i])).collect();
        board.place(&placements, dawg);
        board
    }
}

/// Write a position as a CGP line.
pub fn write(cgp: &Cgp) -> String {
    let alphabet: Alphabet = cgp.ruleset.alphabet();
    let n = cgp.size();
    let mut rows = Vec::with_capacity(n);
    for r in 0..n {
        // Runs of empty squares as their counts, runs of tiles written to read back as themselves.
        let mut s = String::new();
        let row = &cgp.grid[r * n..(r + 1) * n];
        for run in row.chunk_by(|a, b| (*a == EMPTY) == (*b == EMPTY)) {
            if run[0] == EMPTY {
                s.push_str(&run.len().to_string());
            } else {
                s.push_str(&alphabet.write_tiles(run.iter().copied()));
            }
        }
        rows.push(s);
    }
    let racks: Vec<String> = cgp.racks.iter().map(|r| r.to_string(alphabet)).collect();
    let scores: Vec<String> = cgp.scores.iter().map(|s| s.to_string()).collect();
    let mut out = format!("{} {} {} {}", rows.join("/"), racks.join("/"), scores.join("/"), cgp.zeros);
    let o = &cgp.ops;
    let mut op = |name: &str, value: &str| {
        out.push_str(&format!(" {name} {value};"));
    };
    if let Some(v) = &o.lex {
        op("lex", v);
    }
    match &o.ld {
        Some(v) => op("ld", v),
        // Without `ld` a reader guesses the ruleset from the letters: say which.
        None if cgp.ruleset != RulesetKind::english() => op("ld", cgp.ruleset.name()),
        None => {}
    }
    if let Some(v) = &o.cr {
        op("cr", v);
    }
    if let Some(v) = o.bb {
        op("bb", &v.to_string());
    }
    if let Some(v) = o.etl {
        op("etl", &v.to_string());
    }
    if let Some(v) = o.mcnz {
        op("mcnz", &v.to_string());
    }
    for (k, v) in &o.other {
        op(k, v);
    }
    out
}

/// A CGP line for a board and racks (the player to move first).
pub fn from_board(board: &Board, racks: &[Rack], scores: &[i32], zeros: u32, ops: Ops) -> Cgp {
    Cgp {
        ruleset: board.rules().kind,
        grid: board.grid().to_vec(),
        racks: racks.to_vec(),
        scores: scores.to_vec(),
        zeros,
        ops,
    }
}

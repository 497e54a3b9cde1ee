//! The ruleset file format (`data/rulesets/*.ruleset`, documented in `docs/rulesets.md`): its
//! header keys, the tiles and board sections, and the files it names, each refusal by line.

use super::builder::Builder;
use super::{BlankValue, Definition, Premium, RulebookError, SHIPPED_NAMED, ScorelessLimit};
use crate::alphabet::TileSpec;
use std::path::Path;

/// Where the files a ruleset names are read from.
#[derive(Clone, Copy)]
pub(super) enum Named<'a> {
    /// It may name none.
    Nowhere,
    /// Relative to this directory.
    Dir(&'a Path),
    /// From the shipped data built in ([`SHIPPED_NAMED`]).
    Shipped,
}

impl Named<'_> {
    /// The text of the file a `key` line names `rest`, and how to name it in an error.
    fn read(self, key: &str, rest: &str) -> Result<(String, String), String> {
        match self {
            Named::Nowhere => Err(format!("{key} names a file, and this ruleset is not read from one")),
            Named::Dir(dir) => {
                let path = dir.join(rest);
                let named = path.display().to_string();
                let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {named}: {e}"))?;
                Ok((text, named))
            }
            Named::Shipped => SHIPPED_NAMED
                .iter()
                .find(|(name, _)| *name == rest)
                .map(|(name, text)| (text.to_string(), name.to_string()))
                .ok_or_else(|| format!("{key} names {rest:?}, which is not shipped")),
        }
    }
}

pub(super) fn parse_in(text: &str, file: &str, named: Named) -> Result<Definition, RulebookError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut b = Builder::new(file);
    let mut section = Section::Header;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.split('#').next().unwrap_or("").trim_end();
        if section == Section::Board && !line.trim().is_empty() {
            b.board_row(line.trim(), n)?;
            continue;
        }
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let (key, rest) = line.split_once(char::is_whitespace).map_or((line, ""), |(k, r)| (k, r.trim()));
        if section == Section::Tiles && !KEYS.contains(&key) {
            b.tile_line(line, n)?;
            continue;
        }
        if let Some(opened) = key_line(&mut b, key, rest, n, named)? {
            section = opened;
        }
    }
    b.finish()
}

/// A header line, `key rest`, on line `n`; the section it opens, if it is `tiles` or `board`.
fn key_line(
    b: &mut Builder,
    key: &str,
    rest: &str,
    n: usize,
    named: Named,
) -> Result<Option<Section>, RulebookError> {
    let err = |message: String| RulebookError { file: b.file.clone(), line: Some(n), message };
    let shown = crate::text::clip(rest);
    let number = |what: &str, range: std::ops::RangeInclusive<u32>| -> Result<u32, RulebookError> {
        let n: u32 =
            rest.parse().map_err(|_| err(format!("{what} must be a whole number, not {shown:?}")))?;
        if !range.contains(&n) {
            return Err(err(format!("{what} {n}: {} to {}", range.start(), range.end())));
        }
        Ok(n)
    };
    // A value given twice is refused: the second line would silently replace the first.
    if let Some(&once) = KEYS.iter().find(|k| **k == key)
        && !matches!(once, "tiles" | "board" | "tiles-file" | "layout-file")
    {
        if let Some(first) = b.line_of(once) {
            return Err(err(format!("a second {once} line (the first is line {first})")));
        }
        b.seen.push((once, n));
    }
    let word = |what: &str, w: &str| -> Result<String, RulebookError> {
        if w.is_empty() || w.chars().count() > MAX_NAME_CHARS || w.chars().any(char::is_control) {
            return Err(err(format!(
                "{what} {:?}: 1 to {MAX_NAME_CHARS} characters, no control characters",
                crate::text::clip(w)
            )));
        }
        Ok(w.to_string())
    };
    match key {
        "name" => b.name = Some(word("name", rest)?.to_lowercase()),
        "also" => {
            let also: Vec<&str> = rest.split_whitespace().collect();
            if also.len() > MAX_RULESET_ALIASES {
                return Err(err(format!("{} other names: at most {MAX_RULESET_ALIASES}", also.len())));
            }
            for a in also {
                b.aliases.push(word("also", a)?.to_lowercase());
            }
        }
        "alphabet" => b.alphabet_name = Some(word("alphabet", rest)?),
        "lexicon" => b.lexicon = word("lexicon", rest)?,
        "rack" => b.rack = number("rack", 1..=7)? as usize,
        "bingo" => b.bingo = number("bingo", 0..=MAX_BINGO)? as i32,
        "blanks" => b.blanks = Some(number("blanks", 0..=MAX_BLANKS)? as u8),
        "exchange-minimum" => {
            b.options.exchange_limit = number("exchange-minimum", 0..=MAX_EXCHANGE_MINIMUM)?
        }
        "scoreless-turns" => {
            b.options.scoreless_turn_limit = match rest {
                "twice-per-player" => ScorelessLimit::TwicePerPlayer,
                _ => ScorelessLimit::Turns(number("scoreless-turns", 1..=MAX_SCORELESS_TURNS)?),
            }
        }
        "blank-value" => {
            b.options.blank_value = match rest {
                "zero" => BlankValue::Zero,
                "letter" => BlankValue::LetterValue,
                _ => return Err(err(format!("blank-value is zero or letter, not {shown:?}"))),
            }
        }
        "repeated-words" => {
            b.options.no_repeated_words = match rest {
                "allowed" => false,
                "refused" => true,
                _ => return Err(err(format!("repeated-words is allowed or refused, not {shown:?}"))),
            }
        }
        "start" => {
            b.start = Some(
                parse_square(rest).ok_or_else(|| err(format!("start {shown:?} is not a square like 8H")))?,
            )
        }
        "tiles" => return Ok(Some(Section::Tiles)),
        "board" => {
            b.board_not_named(n)?;
            return Ok(Some(Section::Board));
        }
        "layout" => b.named_layout(rest, n)?,
        "tiles-file" | "layout-file" | "leaves-file" | "winprob-file" => {
            let (text, named) = named.read(key, rest).map_err(err)?;
            match key {
                "tiles-file" => b.read_distribution(&text, &named)?,
                "layout-file" => {
                    b.board_not_named(n)?;
                    b.read_layout(&text, &named)?
                }
                "leaves-file" => b.leaves = Some(text),
                _ => b.winprob = Some(text),
            }
        }
        _ => {
            return Err(err(format!(
                "unknown line {:?} (expected one of: {})",
                crate::text::clip(key),
                KEYS.join(", ")
            )));
        }
    }
    Ok(None)
}

const KEYS: &[&str] = &[
    "name",
    "also",
    "alphabet",
    "lexicon",
    "rack",
    "bingo",
    "blanks",
    "exchange-minimum",
    "scoreless-turns",
    "blank-value",
    "repeated-words",
    "start",
    "tiles",
    "board",
    "layout",
    "tiles-file",
    "layout-file",
    "leaves-file",
    "winprob-file",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Header,
    Tiles,
    Board,
}

/// `8H` (row 8, column H) or `H8`: row and column from 0.
fn parse_square(s: &str) -> Option<(usize, usize)> {
    let s = s.trim().to_ascii_uppercase();
    let (digits, letter): (String, String) = s.chars().partition(|c| c.is_ascii_digit());
    let mut letters = letter.chars();
    let (Some(c), None) = (letters.next(), letters.next()) else { return None };
    let row: usize = digits.parse().ok()?;
    (c.is_ascii_uppercase() && row >= 1).then(|| (row - 1, (c as u8 - b'A') as usize))
}

/// A premium by its board character (`Q q T t D d`, anything else none).
fn board_symbol(ch: char) -> Premium {
    match ch {
        'd' => Premium::DoubleLetter,
        't' => Premium::TripleLetter,
        'q' => Premium::QuadrupleLetter,
        'D' => Premium::DoubleWord,
        'T' => Premium::TripleWord,
        'Q' => Premium::QuadrupleWord,
        _ => Premium::None,
    }
}

/// Bounds of a ruleset file's values: every value is bounded, and every refusal names its line.
pub(super) const MAX_BLANKS: u32 = 20;
const MAX_BINGO: u32 = 1000;
const MAX_EXCHANGE_MINIMUM: u32 = 100;
const MAX_SCORELESS_TURNS: u32 = 1000;
/// Other names a ruleset may go by, and each one's length in characters.
const MAX_RULESET_ALIASES: usize = 16;
const MAX_NAME_CHARS: usize = 40;

impl Builder {
    /// A board given on line `n` (drawn, or a `layout-file`), refused when a layout is named.
    fn board_not_named(&self, n: usize) -> Result<(), RulebookError> {
        match self.line_of("layout") {
            Some(first) => Err(self.err(
                Some(n),
                format!("a board given and a layout named (line {first}): a ruleset gives one board"),
            )),
            None => Ok(()),
        }
    }

    /// `LABEL COUNT VALUE [vowel] [blank-only] [aka SPELLING…]`.
    pub(super) fn tile_line(&mut self, line: &str, n: usize) -> Result<(), RulebookError> {
        let mut words = line.split_whitespace();
        let written = words.next().unwrap_or_default();
        // As messages show it: a NUL or another control character escaped.
        let label = crate::text::clip_printable(written);
        let mut number = |what: &str| -> Result<i64, RulebookError> {
            let w = words.next().ok_or_else(|| self.err(Some(n), format!("tile {label}: no {what}")))?;
            w.parse()
                .map_err(|_| self.err(Some(n), format!("tile {label}: {what} {w:?} is not a whole number")))
        };
        let count = number("count")?;
        let value = number("value")?;
        let (mut vowel, mut blank_only, mut aliases, mut in_aliases) = (false, false, Vec::new(), false);
        for w in words {
            match w {
                _ if in_aliases => aliases.push(w.to_string()),
                "vowel" => vowel = true,
                "blank-only" => blank_only = true,
                "aka" => in_aliases = true,
                _ => {
                    return Err(self.err(
                        Some(n),
                        format!("tile {label}: unknown word {w:?} (vowel, blank-only, aka …)"),
                    ));
                }
            }
        }
        if count == 0 && !blank_only {
            return Err(self.err(
                Some(n),
                format!(
                    "tile {label} has a count of 0 (write blank-only when only a blank may stand for it)"
                ),
            ));
        }
        if count != 0 && blank_only {
            return Err(self.err(Some(n), format!("tile {label} is blank-only and has a count of {count}")));
        }
        if written == "?" {
            return Err(self.err(Some(n), "the blank is given by a blanks line, not as a tile".into()));
        }
        let spec = TileSpec { label: written.to_string(), blank_label: None, aliases, vowel };
        self.tile(spec, count, value, n).map_err(|m| self.err(Some(n), m))
    }

    /// A board row: `Q q T t D d .`, and `*` (the start square, a double word) or `+` (the start
    /// square, plain).
    pub(super) fn board_row(&mut self, line: &str, n: usize) -> Result<(), RulebookError> {
        let row = self.rows.len();
        let mut out = Vec::with_capacity(line.len());
        for (col, ch) in line.chars().enumerate() {
            out.push(match ch {
                '.' | 'd' | 't' | 'q' | 'D' | 'T' | 'Q' => board_symbol(ch),
                '*' | '+' => {
                    if self.marked_start.is_some() {
                        return Err(self.err(Some(n), "a second start square".into()));
                    }
                    self.marked_start = Some((row, col));
                    if ch == '*' { Premium::DoubleWord } else { Premium::None }
                }
                _ => {
                    return Err(self.err(Some(n), format!("square {ch:?} is not one of . d t q D T Q * +")));
                }
            });
        }
        self.rows.push((out, n));
        Ok(())
    }
}

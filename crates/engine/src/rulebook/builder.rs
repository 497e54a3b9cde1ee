//! A definition as it is read, by any of the formats: each reader adds what its lines say, and
//! `finish` checks the whole and makes the [`Definition`].

use super::{
    BlankValue, Definition, MAX_SIZE, MIN_SIZE, Premium, RuleOptions, RulebookError, STANDARD_SIZE,
    ScorelessLimit,
};
use crate::alphabet::{Alphabet, MAX_LETTERS, TileSpec};

/// A definition as it is read, line by line.
pub(super) struct Builder {
    pub(super) file: String,
    pub(super) name: Option<String>,
    pub(super) aliases: Vec<String>,
    pub(super) alphabet_name: Option<String>,
    pub(super) lexicon: String,
    pub(super) rack: usize,
    pub(super) bingo: i32,
    pub(super) blanks: Option<u8>,
    pub(super) options: RuleOptions,
    pub(super) start: Option<(usize, usize)>,
    /// Each tile, with its count, value and the line it was given on.
    pub(super) tiles: Vec<(TileSpec, u8, i32, usize)>,
    pub(super) rows: Vec<(Vec<Premium>, usize)>,
    /// A start square marked on the board (`*` or `+`).
    pub(super) marked_start: Option<(usize, usize)>,
    pub(super) layout_given: bool,
    pub(super) leaves: Option<String>,
    pub(super) winprob: Option<String>,
    /// The line each header key was given on (each is given once).
    pub(super) seen: Vec<(&'static str, usize)>,
}

impl Builder {
    /// The line `key` was first given on, if it was.
    pub(super) fn line_of(&self, key: &str) -> Option<usize> {
        self.seen.iter().find(|(k, _)| *k == key).map(|&(_, n)| n)
    }

    pub(super) fn new(file: &str) -> Builder {
        Builder {
            file: file.to_string(),
            name: None,
            aliases: Vec::new(),
            alphabet_name: None,
            lexicon: String::new(),
            rack: 7,
            bingo: 50,
            blanks: None,
            options: RuleOptions {
                blank_value: BlankValue::Zero,
                no_repeated_words: false,
                scoreless_turn_limit: ScorelessLimit::Turns(6),
                exchange_limit: 7,
            },
            start: None,
            tiles: Vec::new(),
            rows: Vec::new(),
            marked_start: None,
            layout_given: false,
            leaves: None,
            winprob: None,
            seen: Vec::new(),
        }
    }

    pub(super) fn err(&self, line: Option<usize>, message: String) -> RulebookError {
        RulebookError { file: self.file.clone(), line, message }
    }

    /// Add a tile; an error is the message for its line.
    pub(super) fn tile(&mut self, spec: TileSpec, count: i64, value: i64, n: usize) -> Result<(), String> {
        let label = crate::text::clip_printable(&spec.label);
        if !(0..=255).contains(&count) || !(0..=1000).contains(&value) {
            return Err(format!("tile {label}: count {count} or value {value} out of range"));
        }
        // What the alphabet would refuse, refused here, where the line is known.
        for s in std::iter::once(&spec.label).chain(&spec.aliases).chain(&spec.blank_label) {
            if s.is_empty()
                || s.chars().count() > crate::alphabet::MAX_LABEL
                || s.chars().any(|c| c.is_control() || c.is_whitespace() || "[]?*.()".contains(c))
            {
                return Err(format!(
                    "tile {label}: {:?} is not a spelling (1 to {} characters, no control characters, none of [ ] ? * . ( ))",
                    crate::text::clip(s),
                    crate::alphabet::MAX_LABEL
                ));
            }
        }
        let upper: String = spec.label.to_uppercase();
        if let Some((_, _, _, first)) = self.tiles.iter().find(|(s, ..)| s.label.to_uppercase() == upper) {
            return Err(format!("duplicate label {label} (first on line {first})"));
        }
        for s in std::iter::once(&spec.label).chain(&spec.aliases) {
            let key = s.to_uppercase();
            let taken = self
                .tiles
                .iter()
                .find(|(t, ..)| std::iter::once(&t.label).chain(&t.aliases).any(|o| o.to_uppercase() == key));
            if let Some((t, _, _, first)) = taken {
                let s = crate::text::clip_printable(s);
                return Err(format!("{s} spells two tiles, {} (line {first}) and {label}", t.label));
            }
        }
        if self.tiles.len() == MAX_LETTERS {
            return Err(format!("more than {MAX_LETTERS} tiles"));
        }
        self.tiles.push((spec, count as u8, value as i32, n));
        Ok(())
    }

    pub(super) fn finish(self) -> Result<Definition, RulebookError> {
        let whole = |message: String| RulebookError { file: self.file.clone(), line: None, message };
        let name = self.name.clone().ok_or_else(|| whole("no name line".into()))?;
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_') {
            return Err(whole(format!("name {name:?} is not a word of letters, digits and -")));
        }
        if self.tiles.is_empty() {
            return Err(whole("no tiles".into()));
        }
        let size = if self.rows.is_empty() { STANDARD_SIZE } else { self.rows.len() };
        let last_line = self.rows.last().map(|r| r.1);
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(RulebookError {
                file: self.file.clone(),
                line: last_line,
                message: format!(
                    "a board of {size} rows: boards are {MIN_SIZE}×{MIN_SIZE} to {MAX_SIZE}×{MAX_SIZE}"
                ),
            });
        }
        let premiums = if self.rows.is_empty() {
            standard_premiums()
        } else {
            let mut p = Vec::with_capacity(size * size);
            for (row, n) in &self.rows {
                if row.len() != size {
                    return Err(self
                        .err(Some(*n), format!("a row of {} squares on a board of {size} rows", row.len())));
                }
                p.extend_from_slice(row);
            }
            p
        };
        let start = match (self.marked_start, self.start) {
            (Some(_), Some(_)) if !self.layout_given => {
                return Err(self.err(
                    self.line_of("start"),
                    "the start square is given twice: by a start line and on the board".into(),
                ));
            }
            (Some(s), _) | (None, Some(s)) => s,
            (None, None) if self.rows.is_empty() => (size / 2, size / 2),
            (None, None) => {
                return Err(whole(
                    "no start square: mark it * or + on the board, or give a start line".into(),
                ));
            }
        };
        if let Some(message) = off_board(start, size) {
            return Err(self.err(self.line_of("start"), message));
        }
        // (A rack line is bounded where it is read: 1 to 7.)
        let specs: Vec<TileSpec> = self.tiles.iter().map(|t| t.0.clone()).collect();
        let alphabet_name = self.alphabet_name.clone().unwrap_or_else(|| name.clone());
        let alphabet = Alphabet::new(&alphabet_name, specs).map_err(|e| whole(e.to_string()))?;
        let blanks = self.blanks.unwrap_or(0);
        let total: u32 = self.tiles.iter().map(|t| t.1 as u32).sum::<u32>() + blanks as u32;
        if total < 2 * self.rack as u32 {
            return Err(whole(format!("{total} tiles, too few to deal two racks of {}", self.rack)));
        }
        let mut counts = vec![0; alphabet.len()];
        let mut values = vec![0; alphabet.len()];
        for (i, t) in self.tiles.iter().enumerate() {
            counts[i] = t.1;
            values[i] = t.2;
        }
        Ok(Definition {
            name,
            aliases: self.aliases,
            alphabet,
            counts,
            values,
            blanks,
            rack_size: self.rack,
            bingo_bonus: self.bingo,
            size,
            premiums,
            start,
            default_lexicon: self.lexicon,
            options: self.options,
            source: self.file,
            leaves: self.leaves,
            winprob: self.winprob,
        })
    }
}

/// Why a start square (row and column from 0) is not on a board of side `size`, if it is not.
fn off_board(start: (usize, usize), size: usize) -> Option<String> {
    (start.0 >= size || start.1 >= size).then(|| {
        format!(
            "the start square (row {}, column {}) is off the {size}×{size} board",
            start.0 + 1,
            start.1 + 1
        )
    })
}

/// The standard board's premiums: the board of a file that draws and names none.
pub(super) fn standard_premiums() -> Vec<Premium> {
    let mut b = Builder::new("standard15");
    b.named_layout("standard15", 1).unwrap_or_else(|e| panic!("the shipped standard15 layout: {e}"));
    b.rows.into_iter().flat_map(|(row, _)| row).collect()
}

impl Builder {
    /// A shipped layout named on line `n` (`layout standard15`): its rows, as if the file drew
    /// them there, the start square marked on them.
    pub(super) fn named_layout(&mut self, name: &str, n: usize) -> Result<(), RulebookError> {
        let Some((_, text)) = super::layout::SHIPPED_LAYOUTS.iter().find(|(known, _)| *known == name) else {
            let known: Vec<&str> = super::layout::SHIPPED_LAYOUTS.iter().map(|(known, _)| *known).collect();
            let message =
                format!("unknown layout {:?} (known: {})", crate::text::clip(name), known.join(", "));
            return Err(self.err(Some(n), message));
        };
        if !self.rows.is_empty() {
            return Err(
                self.err(Some(n), "a layout named and a board given: a ruleset gives one board".into())
            );
        }
        for line in text.lines() {
            let row = line.split('#').next().unwrap_or("").trim();
            if !row.is_empty() {
                self.board_row(row, n)?;
            }
        }
        Ok(())
    }

    /// A MAGPIE layout: `row, col` of the start square, then the rows (`~` quadruple word, `=`
    /// triple word, `-` double word, `^` quadruple letter, `"` triple letter, `'` double letter).
    pub(super) fn read_layout(&mut self, text: &str, file: &str) -> Result<(), RulebookError> {
        let err = |line: usize, message: String| RulebookError {
            file: file.to_string(),
            line: Some(line),
            message,
        };
        let mut lines = text.lines().enumerate();
        let (_, first) = lines.next().ok_or_else(|| err(1, "empty layout".into()))?;
        let coords: Vec<Option<usize>> = first.split(',').map(|s| s.trim().parse().ok()).collect();
        let [Some(row), Some(col)] = coords[..] else {
            return Err(err(1, format!("the first line is the start square as `row, col`, not {first:?}")));
        };
        // A row of spaces is a row of plain squares; only empty lines at the end are no rows.
        let mut rows: Vec<(usize, &str)> = lines.map(|(i, l)| (i + 1, l)).collect();
        while rows.last().is_some_and(|(_, l)| l.is_empty()) {
            rows.pop();
        }
        let size = rows.len();
        for (n, l) in rows {
            if l.chars().count() > size {
                return Err(err(
                    n,
                    format!("a row of {} squares on a board of {size} rows", l.chars().count()),
                ));
            }
            let mut out = Vec::with_capacity(size);
            for ch in l.chars().chain(std::iter::repeat(' ')).take(size) {
                out.push(match ch {
                    ' ' => Premium::None,
                    '\'' => Premium::DoubleLetter,
                    '"' => Premium::TripleLetter,
                    '^' => Premium::QuadrupleLetter,
                    '-' => Premium::DoubleWord,
                    '=' => Premium::TripleWord,
                    '~' => Premium::QuadrupleWord,
                    _ => return Err(err(n, format!("square {ch:?} is not a premium this engine plays"))),
                });
            }
            self.rows.push((out, n));
        }
        if let Some(message) = off_board((row, col), size) {
            return Err(err(1, message));
        }
        self.start = Some((row, col));
        self.layout_given = true;
        Ok(())
    }
}

//! Boards a ruleset file names rather than draws: the shipped layouts (`layout standard15`,
//! drawn as a ruleset file's board) and MAGPIE's layout files (the start square, then a row of
//! premium characters a line).

use super::builder::Builder;
use super::{Premium, RulebookError};

/// The shipped layouts, by the name a `layout` line gives.
const SHIPPED_LAYOUTS: &[(&str, &str)] = &[("standard15", include_str!("../../data/layouts/standard15.txt"))];

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
        let Some((_, text)) = SHIPPED_LAYOUTS.iter().find(|(known, _)| *known == name) else {
            let known: Vec<&str> = SHIPPED_LAYOUTS.iter().map(|(known, _)| *known).collect();
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
        self.start = Some((row, col));
        self.layout_given = true;
        Ok(())
    }
}

//! The grid, its transpose, and per-direction cross-sets, cross-sums and anchors, all kept up to
//! date incrementally as tiles are placed.
//!
//! Everything is stored twice, once per [`Direction`]: orientation `Across` is the grid as it is,
//! orientation `Down` its transpose, so a down play is an across play on the transpose (AJ88
//! §3.1) and the move generator only ever walks rows. In orientation `d`, square `(line, pos)`
//! has index `line * size + pos`; for `Across` that is `(row, col)`, for `Down` `(col, row)`.
//!
//! The side is the ruleset's, 15 to 21, chosen once per game: the planes are allocated at that
//! size, so a 15×15 board holds what it always held, and scratch buffers elsewhere are
//! [`MAX_SIZE`] long.
//!
//! For an empty square in orientation `d`:
//! - the **cross-set** is the set of letters that form a word with the tiles directly above and
//!   below it in that orientation (all letters if there are none; AJ88 §3.1.1);
//! - the **cross-sum** is the value of those perpendicular tiles ([`NO_CROSS`] if there are
//!   none), so a move is scored in one dimension (AJ88 §3.5);
//! - it is an **anchor** when a tile is orthogonally adjacent (on an empty board: the start
//!   square).
//!
//! Invariant: after every [`Board::place`] these equal a from-scratch [`Board::recompute_all`].
//! Placing a tile changes only the squares at the two ends of the perpendicular runs through it,
//! and its four neighbours' anchor bits; only those are recomputed.

use crate::alphabet::{EMPTY, Letter, Tile, tile_letter};
use crate::lexicon::Dawg;
use crate::rules::{MAX_SIZE, Ruleset};
use std::fmt;
use std::sync::Arc;

/// A play's direction, and the board orientation it is generated in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    Across = 0,
    Down = 1,
}

impl Direction {
    pub const BOTH: [Direction; 2] = [Direction::Across, Direction::Down];

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The other direction.
    #[inline]
    pub const fn flip(self) -> Direction {
        match self {
            Direction::Across => Direction::Down,
            Direction::Down => Direction::Across,
        }
    }

    /// `(row, col)` of square `(line, pos)` in this orientation.
    #[inline]
    pub const fn to_board(self, line: usize, pos: usize) -> (usize, usize) {
        match self {
            Direction::Across => (line, pos),
            Direction::Down => (pos, line),
        }
    }

    /// `(line, pos)` in this orientation of board square `(row, col)`.
    #[inline]
    pub const fn from_board(self, row: usize, col: usize) -> (usize, usize) {
        self.to_board(row, col)
    }
}

/// Cross-sum of a square with no perpendicular tiles.
pub const NO_CROSS: i16 = -1;

/// A square's cross-set and cross-sum in one word: the set in the low 48 bits (an alphabet has
/// at most 33 letters), the sum in the high 16. One plane of these is one allocation, close to
/// the allocator's size classes (3,600 bytes on 15×15, where two planes wasted a seventh).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Cross(u64);

impl Cross {
    const SET: u64 = (1 << 48) - 1;

    #[inline]
    const fn new(set: u64, sum: i16) -> Cross {
        Cross(set & Cross::SET | (sum as u16 as u64) << 48)
    }

    /// The letters that may go on the square (0 on a filled square).
    #[inline]
    pub const fn set(self) -> u64 {
        self.0 & Cross::SET
    }

    /// The value of the perpendicular tiles, or [`NO_CROSS`].
    #[inline]
    pub const fn sum(self) -> i16 {
        (self.0 >> 48) as u16 as i16
    }
}

impl fmt::Debug for Cross {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cross({:#x}, {})", self.set(), self.sum())
    }
}

/// The board with its derived per-square data.
#[derive(Clone, PartialEq, Eq)]
pub struct Board {
    rules: Arc<Ruleset>,
    /// The side, the ruleset's (kept here: every index is computed from it).
    size: usize,
    /// Per orientation, `size * size` squares each: orientation `d`'s plane starts at
    /// `d.index() * size * size`.
    grid: Box<[Tile]>,
    crosses: Box<[Cross]>,
    /// Bit `pos` of `anchors[d][line]`.
    anchors: [[u32; MAX_SIZE]; 2],
    tile_count: u16,
}

impl Board {
    /// An empty board: every cross-set is every letter, the only anchor is the start square.
    pub fn new(rules: Arc<Ruleset>) -> Board {
        let all = rules.alphabet.all_letters();
        let size = rules.size();
        let planes = 2 * size * size;
        let (row, col) = rules.start();
        let mut b = Board {
            rules,
            size,
            grid: vec![EMPTY; planes].into_boxed_slice(),
            crosses: vec![Cross::new(all, NO_CROSS); planes].into_boxed_slice(),
            anchors: [[0; MAX_SIZE]; 2],
            tile_count: 0,
        };
        b.anchors[0][row] = 1 << col;
        b.anchors[1][col] = 1 << row;
        b
    }

    /// The side: 15 on the standard board, up to 21.
    #[inline]
    pub fn size(&self) -> usize {
        self.size
    }

    /// Index of `(line, pos)` of orientation `d` in the planes.
    #[inline]
    fn index(&self, d: Direction, line: usize, pos: usize) -> usize {
        debug_assert!(line < self.size && pos < self.size);
        (d.index() * self.size + line) * self.size + pos
    }

    /// The squares of `line` of orientation `d` in the planes.
    #[inline]
    fn line_range(&self, d: Direction, line: usize) -> std::ops::Range<usize> {
        let start = self.index(d, line, 0);
        start..start + self.size
    }

    pub fn rules(&self) -> &Arc<Ruleset> {
        &self.rules
    }

    /// Tile at `(row, col)`, `EMPTY` if none.
    #[inline]
    pub fn get(&self, row: usize, col: usize) -> Tile {
        self.grid[self.index(Direction::Across, row, col)]
    }

    /// Tile at `(line, pos)` of orientation `d`.
    #[inline]
    pub fn at(&self, d: Direction, line: usize, pos: usize) -> Tile {
        self.grid[self.index(d, line, pos)]
    }

    /// Every square's tile, row by row (`EMPTY` for an empty square): orientation `Across`'s
    /// plane, `size * size` tiles.
    #[inline]
    pub fn grid(&self) -> &[Tile] {
        &self.grid[..self.size * self.size]
    }

    /// Row `line` of orientation `d` (a column of the board for `Down`): [`Board::size`] tiles.
    #[inline]
    pub fn line(&self, d: Direction, line: usize) -> &[Tile] {
        &self.grid[self.line_range(d, line)]
    }

    /// Cross-set of `(line, pos)` in orientation `d` (meaningless on a filled square: 0).
    #[inline]
    pub fn cross_set(&self, d: Direction, line: usize, pos: usize) -> u64 {
        self.crosses[self.index(d, line, pos)].set()
    }

    /// Cross-sum of `(line, pos)` in orientation `d`, or [`NO_CROSS`].
    #[inline]
    pub fn cross_sum(&self, d: Direction, line: usize, pos: usize) -> i16 {
        self.crosses[self.index(d, line, pos)].sum()
    }

    /// The cross-sets and cross-sums of `line` in orientation `d`.
    #[inline]
    pub fn cross_line(&self, d: Direction, line: usize) -> &[Cross] {
        &self.crosses[self.line_range(d, line)]
    }

    /// Anchor bits of `line` in orientation `d` (bit `pos`).
    #[inline]
    pub fn anchor_bits(&self, d: Direction, line: usize) -> u32 {
        self.anchors[d.index()][line]
    }

    #[inline]
    pub fn is_anchor(&self, d: Direction, line: usize, pos: usize) -> bool {
        self.anchors[d.index()][line] >> pos & 1 != 0
    }

    /// Tiles on the board.
    pub fn tile_count(&self) -> usize {
        self.tile_count as usize
    }

    pub fn is_empty(&self) -> bool {
        self.tile_count == 0
    }

    /// Whether `(row, col)` has a tile orthogonally adjacent.
    pub fn has_neighbour(&self, row: usize, col: usize) -> bool {
        (row > 0 && self.get(row - 1, col) != EMPTY)
            || (row + 1 < self.size && self.get(row + 1, col) != EMPTY)
            || (col > 0 && self.get(row, col - 1) != EMPTY)
            || (col + 1 < self.size && self.get(row, col + 1) != EMPTY)
    }

    /// Place tiles on empty squares and bring the derived data up to date, recomputing only the
    /// squares whose neighbourhood changed. Squares must be on the board and empty (the
    /// validation layer guarantees it; a violation is a bug and panics).
    pub fn place(&mut self, placements: &[(usize, usize, Tile)], dawg: &Dawg) {
        let was_empty = self.is_empty();
        for &(row, col, t) in placements {
            let n = self.size;
            assert!(row < n && col < n && t != EMPTY, "placement ({row},{col}) off board or empty");
            assert_eq!(self.get(row, col), EMPTY, "square ({row},{col}) already taken");
            let (across, down) =
                (self.index(Direction::Across, row, col), self.index(Direction::Down, col, row));
            self.grid[across] = t;
            self.grid[down] = t;
            self.tile_count += 1;
        }
        // The squares closing the perpendicular runs through the new tiles, each once: tiles of
        // one play share the run along the play, so its two ends would otherwise be redone per tile.
        let mut dirty: Vec<(Direction, usize, usize)> = Vec::with_capacity(4 * placements.len());
        for &(row, col, _) in placements {
            for d in Direction::BOTH {
                let (line, pos) = d.from_board(row, col);
                let i = self.index(d, line, pos);
                self.crosses[i] = Cross::new(0, NO_CROSS);
                let mut up = line;
                while up > 0 && self.at(d, up - 1, pos) != EMPTY {
                    up -= 1;
                }
                if up > 0 && !dirty.contains(&(d, up - 1, pos)) {
                    dirty.push((d, up - 1, pos));
                }
                let mut down = line;
                while down + 1 < self.size && self.at(d, down + 1, pos) != EMPTY {
                    down += 1;
                }
                if down + 1 < self.size && !dirty.contains(&(d, down + 1, pos)) {
                    dirty.push((d, down + 1, pos));
                }
            }
            self.compute_anchor(row, col);
            if row > 0 {
                self.compute_anchor(row - 1, col);
            }
            if row + 1 < self.size {
                self.compute_anchor(row + 1, col);
            }
            if col > 0 {
                self.compute_anchor(row, col - 1);
            }
            if col + 1 < self.size {
                self.compute_anchor(row, col + 1);
            }
        }
        for (d, line, pos) in dirty {
            self.compute_cross(d, line, pos, dawg);
        }
        if was_empty {
            let (row, col) = self.rules.start();
            self.compute_anchor(row, col);
        }
    }

    /// Take tiles off the board (a withdrawn play) and recompute everything. Rare, so simple.
    pub fn remove(&mut self, squares: &[(usize, usize)], dawg: &Dawg) {
        for &(row, col) in squares {
            if row < self.size && col < self.size && self.get(row, col) != EMPTY {
                let (across, down) =
                    (self.index(Direction::Across, row, col), self.index(Direction::Down, col, row));
                self.grid[across] = EMPTY;
                self.grid[down] = EMPTY;
                self.tile_count -= 1;
            }
        }
        self.recompute_all(dawg);
    }

    /// Recompute every cross-set, cross-sum and anchor from the tiles alone.
    pub fn recompute_all(&mut self, dawg: &Dawg) {
        for d in Direction::BOTH {
            for line in 0..self.size {
                for pos in 0..self.size {
                    self.compute_cross(d, line, pos, dawg);
                }
            }
        }
        for row in 0..self.size {
            for col in 0..self.size {
                self.compute_anchor(row, col);
            }
        }
    }

    /// The tiles of the perpendicular run touching `(line, pos)` from above (top to bottom),
    /// and from below, in orientation `d`, as half-open `line` ranges.
    fn perpendicular_runs(&self, d: Direction, line: usize, pos: usize) -> (usize, usize) {
        let mut top = line;
        while top > 0 && self.at(d, top - 1, pos) != EMPTY {
            top -= 1;
        }
        let mut bottom = line + 1;
        while bottom < self.size && self.at(d, bottom, pos) != EMPTY {
            bottom += 1;
        }
        (top, bottom)
    }

    fn compute_cross(&mut self, d: Direction, line: usize, pos: usize, dawg: &Dawg) {
        let i = self.index(d, line, pos);
        if self.grid[i] != EMPTY {
            self.crosses[i] = Cross::new(0, NO_CROSS);
            return;
        }
        let (top, bottom) = self.perpendicular_runs(d, line, pos);
        if top == line && bottom == line + 1 {
            self.crosses[i] = Cross::new(self.rules.alphabet.all_letters(), NO_CROSS);
            return;
        }
        let mut sum = 0i32;
        let mut above: [Letter; MAX_SIZE] = [0; MAX_SIZE];
        let mut below: [Letter; MAX_SIZE] = [0; MAX_SIZE];
        for (k, l) in (top..line).enumerate() {
            let t = self.at(d, l, pos);
            above[k] = tile_letter(t);
            sum += self.rules.tile_value(t);
        }
        for (k, l) in (line + 1..bottom).enumerate() {
            let t = self.at(d, l, pos);
            below[k] = tile_letter(t);
            sum += self.rules.tile_value(t);
        }
        let above = &above[..line - top];
        let below = &below[..bottom - line - 1];
        let node = if above.is_empty() {
            Some(dawg.root())
        } else {
            dawg.walk(dawg.root(), above).map(|e| e.target)
        };
        let mut set = 0u64;
        if let Some(node) = node {
            for e in dawg.edges(node) {
                let ok = if below.is_empty() {
                    e.terminal
                } else {
                    dawg.walk(e.target, below).is_some_and(|last| last.terminal)
                };
                if ok {
                    set |= 1 << e.letter;
                }
            }
        }
        self.crosses[i] = Cross::new(set, sum as i16);
    }

    fn compute_anchor(&mut self, row: usize, col: usize) {
        let anchor = self.get(row, col) == EMPTY
            && (self.has_neighbour(row, col) || (self.is_empty() && (row, col) == self.rules.start()));
        let set = |bits: &mut u32, pos: usize| {
            if anchor {
                *bits |= 1 << pos;
            } else {
                *bits &= !(1 << pos);
            }
        };
        set(&mut self.anchors[0][row], col);
        set(&mut self.anchors[1][col], row);
    }

    /// The same position transposed: every down play becomes an across play.
    pub fn transposed(&self) -> Board {
        let half = self.size * self.size;
        fn swap<T: Copy>(planes: &[T], half: usize) -> Box<[T]> {
            [&planes[half..], &planes[..half]].concat().into_boxed_slice()
        }
        Board {
            rules: self.rules.clone(),
            size: self.size,
            grid: swap(&self.grid, half),
            crosses: swap(&self.crosses, half),
            anchors: [self.anchors[1], self.anchors[0]],
            tile_count: self.tile_count,
        }
    }

    /// Every word of two letters or more on the board (both directions), as letter strings.
    pub fn words_on_board(&self) -> Vec<Vec<Letter>> {
        let mut out = Vec::new();
        for d in Direction::BOTH {
            for line in 0..self.size {
                let row = self.line(d, line);
                let mut pos = 0;
                while pos < self.size {
                    if row[pos] == EMPTY {
                        pos += 1;
                        continue;
                    }
                    let start = pos;
                    while pos < self.size && row[pos] != EMPTY {
                        pos += 1;
                    }
                    if pos - start >= 2 {
                        out.push(row[start..pos].iter().map(|&t| tile_letter(t)).collect());
                    }
                }
            }
        }
        out
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Board {
    /// The grid as [`Board::size`] lines: letters, lower case for blanks, `.` for empty squares.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = self.rules.alphabet;
        for row in 0..self.size {
            let line: String = (0..self.size).map(|col| a.tile_text(self.get(row, col))).collect();
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

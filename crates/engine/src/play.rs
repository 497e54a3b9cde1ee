//! A play (tiles in one line from a start square) and its geometry against a board.
//!
//! [`Play`] is a small `Copy` value: direction, start square and up to [`MAX_SIZE`] (21) tile
//! bytes, a line of the largest board, where `0`
//! marks a square already holding a tile (played through; `.` in notation). The move generator
//! emits plays without allocating; validation, scoring and notation all speak this type.
//! [`Problem`] is every reason a play can be refused, shared by geometry, rack and dictionary
//! checks, so a client always gets the complete, typed list.

use crate::alphabet::{Alphabet, EMPTY, Tile, tile_letter};
use crate::board::{Board, Direction};
use crate::rules::MAX_SIZE;
use std::fmt;

/// A play: tiles from `(row, col)` in `dir`; tile `0` = a tile already on the board.
///
/// Plays order by direction, start square, then tiles: the stable tie-break for equal scores.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Play {
    pub dir: Direction,
    pub row: u8,
    pub col: u8,
    len: u8,
    tiles: [Tile; MAX_SIZE],
}

/// A newly placed tile on a board square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Placement {
    pub row: usize,
    pub col: usize,
    pub tile: Tile,
}

impl Play {
    /// A play of `tiles` (`0` = played through) from `(row, col)`, fitting the largest board
    /// ([`MAX_SIZE`]); whether it fits a game's board is [`Play::normalized`]'s question.
    pub fn new(dir: Direction, row: usize, col: usize, tiles: &[Tile]) -> Result<Play, Problem> {
        if tiles.is_empty() {
            return Err(Problem::NoTiles);
        }
        if row >= MAX_SIZE || col >= MAX_SIZE || tiles.len() > MAX_SIZE {
            return Err(Problem::OffBoard { row, col });
        }
        let mut t = [EMPTY; MAX_SIZE];
        t[..tiles.len()].copy_from_slice(tiles);
        Ok(Play { dir, row: row as u8, col: col as u8, len: tiles.len() as u8, tiles: t })
    }

    /// A play from the move generator: `tiles` start at `(line, start)` of orientation `dir`,
    /// already known to fit on the board.
    #[inline]
    pub(crate) fn from_line(dir: Direction, line: usize, start: usize, tiles: &[Tile]) -> Play {
        let (row, col) = dir.to_board(line, start);
        let mut t = [EMPTY; MAX_SIZE];
        t[..tiles.len()].copy_from_slice(tiles);
        Play { dir, row: row as u8, col: col as u8, len: tiles.len() as u8, tiles: t }
    }

    /// Build a play from placements in one line; squares between them must hold tiles, and the
    /// tiles next to either end are played through.
    pub fn from_placements(board: &Board, placements: &[Placement]) -> Result<Play, Vec<Problem>> {
        let mut ps = placements.to_vec();
        if ps.is_empty() {
            return Err(vec![Problem::NoTiles]);
        }
        let mut problems = Vec::new();
        for p in &ps {
            if !board.rules().on_board(p.row, p.col) {
                problems.push(Problem::OffBoard { row: p.row, col: p.col });
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        ps.sort();
        let same_row = ps.iter().all(|p| p.row == ps[0].row);
        let same_col = ps.iter().all(|p| p.col == ps[0].col);
        let dir = match (same_row, same_col) {
            // One tile: call it across if it has a horizontal neighbour, else down.
            (true, true) => {
                let (r, c) = (ps[0].row, ps[0].col);
                let horizontal = (c > 0 && board.get(r, c - 1) != EMPTY)
                    || (c + 1 < board.size() && board.get(r, c + 1) != EMPTY);
                if horizontal || board.is_empty() { Direction::Across } else { Direction::Down }
            }
            (true, false) => Direction::Across,
            (false, true) => Direction::Down,
            (false, false) => return Err(vec![Problem::NotInLine]),
        };
        for w in ps.windows(2) {
            let square = (w[1].row, w[1].col);
            if (w[0].row, w[0].col) == square
                && !problems.contains(&Problem::DuplicateSquare { row: square.0, col: square.1 })
            {
                problems.push(Problem::DuplicateSquare { row: square.0, col: square.1 });
            }
        }
        // The play is its whole word: tiles already on the board right before the first new one
        // and right after the last are played through, as the move generator and notation write
        // a play ("F8 .OJI", not "F9 OJI").
        let (line, mut first) = dir.from_board(ps[0].row, ps[0].col);
        let mut last = dir.from_board(ps[ps.len() - 1].row, ps[ps.len() - 1].col).1;
        let taken = |pos: usize| {
            let (r, c) = dir.to_board(line, pos);
            board.get(r, c) != EMPTY
        };
        while first > 0 && taken(first - 1) {
            first -= 1;
        }
        while last + 1 < board.size() && taken(last + 1) {
            last += 1;
        }
        let mut tiles = Vec::with_capacity(last - first + 1);
        let mut next = ps.iter().peekable();
        for pos in first..=last {
            let (r, c) = dir.to_board(line, pos);
            if next.peek().is_some_and(|p| (p.row, p.col) == (r, c)) {
                let p = next.next().expect("peeked");
                tiles.push(p.tile);
                while next.peek().is_some_and(|q| (q.row, q.col) == (r, c)) {
                    next.next();
                }
            } else if board.get(r, c) != EMPTY {
                tiles.push(EMPTY);
            } else {
                problems.push(Problem::Gap { row: r, col: c });
                tiles.push(EMPTY);
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let (row, col) = dir.to_board(line, first);
        Play::new(dir, row, col, &tiles).map_err(|p| vec![p])
    }

    /// The tile bytes (`0` = played through).
    #[inline]
    pub fn tiles(&self) -> &[Tile] {
        &self.tiles[..self.len as usize]
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Board square of the `i`-th tile of the play.
    #[inline]
    pub fn square(&self, i: usize) -> (usize, usize) {
        match self.dir {
            Direction::Across => (self.row as usize, self.col as usize + i),
            Direction::Down => (self.row as usize + i, self.col as usize),
        }
    }

    /// The newly placed tiles with their squares.
    pub fn placements(&self) -> impl Iterator<Item = Placement> + '_ {
        self.tiles().iter().enumerate().filter(|&(_, &t)| t != EMPTY).map(|(i, &t)| {
            let (row, col) = self.square(i);
            Placement { row, col, tile: t }
        })
    }

    /// Number of newly placed tiles.
    pub fn tiles_placed(&self) -> usize {
        self.tiles().iter().filter(|&&t| t != EMPTY).count()
    }

    /// The same play on the transposed board.
    pub fn transposed(&self) -> Play {
        Play { dir: self.dir.flip(), row: self.col, col: self.row, ..*self }
    }

    /// `(line, pos)` of the play's start in its own orientation.
    #[inline]
    pub fn line_start(&self) -> (usize, usize) {
        self.dir.from_board(self.row as usize, self.col as usize)
    }

    /// Normalize against a board: a letter given on an occupied square that holds the same
    /// letter becomes "played through". Checks the play lies on the board, covers no occupied
    /// square with another letter, leaves no empty `.` square, and places at least one tile.
    /// Connectivity and first-move rules are [`check_connection`].
    pub fn normalized(&self, board: &Board) -> Result<Play, Vec<Problem>> {
        let mut problems = Vec::new();
        let (line, start) = self.line_start();
        let size = board.size();
        if line >= size || start >= size {
            problems.push(Problem::OffBoard { row: self.row as usize, col: self.col as usize });
            return Err(problems);
        }
        if start + self.len() > size {
            let (row, col) = self.dir.to_board(line, size);
            problems.push(Problem::OffBoard { row, col });
            return Err(problems);
        }
        let mut out = *self;
        for (i, &t) in self.tiles().iter().enumerate() {
            let (row, col) = self.square(i);
            let on_board = board.get(row, col);
            match (t, on_board) {
                (EMPTY, EMPTY) => problems.push(Problem::Gap { row, col }),
                (EMPTY, _) => {}
                (t, EMPTY) => {
                    if tile_letter(t) as usize >= board.rules().alphabet.len() {
                        problems.push(Problem::BadTile { row, col });
                    }
                }
                // The same letter, however written (blank or not), is the tile already there.
                (t, b) if tile_letter(t) == tile_letter(b) => {
                    out.tiles[i] = EMPTY;
                }
                _ => problems.push(Problem::SquareTaken { row, col }),
            }
        }
        if problems.is_empty() && out.tiles_placed() == 0 {
            problems.push(Problem::NoTiles);
        }
        if problems.is_empty() { Ok(out) } else { Err(problems) }
    }

    /// Connectivity: on an empty board the play covers the ruleset's start square with at least
    /// two tiles; on any other it touches a tile already there. `self` must be normalized.
    pub fn check_connection(&self, board: &Board) -> Vec<Problem> {
        let mut problems = Vec::new();
        if board.is_empty() {
            let start = board.rules().start();
            if !self.placements().any(|p| (p.row, p.col) == start) {
                problems.push(Problem::FirstPlayNotOnStart { row: start.0, col: start.1 });
            }
            if self.tiles_placed() < 2 {
                problems.push(Problem::FirstPlayOneTile);
            }
            return problems;
        }
        let through = self.tiles().contains(&EMPTY);
        if !through && !self.placements().any(|p| board.has_neighbour(p.row, p.col)) {
            problems.push(Problem::NotConnected);
        }
        problems
    }
}

impl fmt::Debug for Play {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Play({:?} r{} c{} {:?})", self.dir, self.row, self.col, self.tiles())
    }
}

/// Every reason a play can be refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    #[error("the play runs off the board at row {} column {}", row + 1, col + 1)]
    OffBoard { row: usize, col: usize },
    #[error("no tile is placed")]
    NoTiles,
    #[error("the tiles are not in one row or one column")]
    NotInLine,
    #[error("gap at {}: the tiles are not contiguous", square_name(*row, *col))]
    Gap { row: usize, col: usize },
    #[error("square {} is already taken", square_name(*row, *col))]
    SquareTaken { row: usize, col: usize },
    #[error("square {} is given more than one tile in this play", square_name(*row, *col))]
    DuplicateSquare { row: usize, col: usize },
    #[error("tile at {} is not a letter of the ruleset's alphabet", square_name(*row, *col))]
    BadTile { row: usize, col: usize },
    #[error("the play does not touch any tile on the board")]
    NotConnected,
    /// The square is the ruleset's start square: the centre on every shipped board, but a
    /// ruleset file may put it anywhere.
    #[error("the first play must cover the start square, {}", square_name(*row, *col))]
    FirstPlayNotOnStart { row: usize, col: usize },
    #[error("the first play must place at least two tiles")]
    FirstPlayOneTile,
    #[error("tiles not on the rack: {missing}")]
    NotOnRack { missing: String },
    #[error("a blank must be given the letter it stands for")]
    BlankNotDesignated,
    #[error("not in the lexicon: {}", words.join(", "))]
    WordsNotInLexicon { words: Vec<String> },
    #[error("already on the board: {}", words.join(", "))]
    RepeatedWords { words: Vec<String> },
}

/// `8H`-style name of a square (row number, column letter).
pub fn square_name(row: usize, col: usize) -> String {
    format!("{}{}", row + 1, (b'A' + col as u8) as char)
}

/// Render a play's tiles as notation letters (`.` for played-through).
pub fn tiles_text(alphabet: Alphabet, tiles: &[Tile]) -> String {
    alphabet.write_tiles(tiles.iter().copied())
}

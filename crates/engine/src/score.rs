//! Evaluate: the score of a play with its full breakdown, read straight off the grid.
//!
//! This is the reference scorer: it scans the main word and every cross-word on the board as it
//! would be after the play, without the cross-sums the move generator uses, so the two can be
//! checked against each other. Premiums count only under newly placed tiles; word premiums
//! multiply; a blank scores per the ruleset; the all-tiles bonus is added when a full rack is
//! played.

use crate::alphabet::{EMPTY, Tile};
use crate::board::{Board, Direction};
use crate::play::{Play, Problem};

/// One word formed by a play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WordScore {
    pub dir: Direction,
    /// First square of the word.
    pub row: usize,
    pub col: usize,
    /// Its tiles, blanks flagged.
    pub tiles: Vec<Tile>,
    /// Sum of tile values, letter premiums under new tiles applied.
    pub base: i32,
    /// Product of the word premiums under new tiles.
    pub word_multiplier: i32,
    /// `base × word_multiplier`.
    pub score: i32,
}

/// One tile of the main word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileScore {
    pub row: usize,
    pub col: usize,
    pub tile: Tile,
    /// Placed by this play (else played through).
    pub new: bool,
    /// Value before premiums (0 for a blank unless the ruleset says otherwise).
    pub face: i32,
    /// Letter premium applied to this tile (1 when none or when played through).
    pub letter_multiplier: i32,
}

/// The full score of a play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evaluation {
    /// The main word first (when it has two letters or more), then each cross-word in play order.
    pub words: Vec<WordScore>,
    /// Every tile of the main word (or of the single tile's run), in order.
    pub tiles: Vec<TileScore>,
    /// The all-tiles bonus, or 0.
    pub bonus: i32,
    pub total: i32,
}

/// Score a play on a board. The play is normalized first; geometry problems (off the board, a
/// taken square, a gap, nothing placed) are returned, but not connectivity, rack or words:
/// those are [`crate::validate`]'s.
pub fn evaluate(board: &Board, play: &Play) -> Result<Evaluation, Vec<Problem>> {
    let play = play.normalized(board)?;
    Ok(evaluate_normalized(board, &play))
}

/// Score a play already normalized against `board`.
pub fn evaluate_normalized(board: &Board, play: &Play) -> Evaluation {
    let rules = board.rules();
    let d = play.dir;
    let (line, start) = play.line_start();
    let new_at = |pos: usize| -> Tile {
        if pos >= start && pos < start + play.len() { play.tiles()[pos - start] } else { EMPTY }
    };
    let tile_at = |pos: usize| -> Tile {
        let t = new_at(pos);
        if t != EMPTY { t } else { board.at(d, line, pos) }
    };
    // Extend the main run over tiles touching either end.
    let mut first = start;
    while first > 0 && board.at(d, line, first - 1) != EMPTY {
        first -= 1;
    }
    let mut last = start + play.len() - 1;
    while last + 1 < board.size() && board.at(d, line, last + 1) != EMPTY {
        last += 1;
    }

    let mut tiles = Vec::with_capacity(last - first + 1);
    let mut base = 0;
    let mut word_multiplier = 1;
    for pos in first..=last {
        let (row, col) = d.to_board(line, pos);
        let t = tile_at(pos);
        let new = new_at(pos) != EMPTY;
        let face = rules.tile_value(t);
        let premium = rules.premium(row, col);
        let letter_multiplier = if new { premium.letter_multiplier() } else { 1 };
        if new {
            word_multiplier *= premium.word_multiplier();
        }
        base += face * letter_multiplier;
        tiles.push(TileScore { row, col, tile: t, new, face, letter_multiplier });
    }

    let mut words = Vec::new();
    if last > first {
        let (row, col) = d.to_board(line, first);
        words.push(WordScore {
            dir: d,
            row,
            col,
            tiles: tiles.iter().map(|t| t.tile).collect(),
            base,
            word_multiplier,
            score: base * word_multiplier,
        });
    }

    // Cross-words: the perpendicular run through each new tile.
    let cross = d.flip();
    for p in play.placements() {
        let (cline, cpos) = cross.from_board(p.row, p.col);
        let mut top = cpos;
        while top > 0 && board.at(cross, cline, top - 1) != EMPTY {
            top -= 1;
        }
        let mut bottom = cpos;
        while bottom + 1 < board.size() && board.at(cross, cline, bottom + 1) != EMPTY {
            bottom += 1;
        }
        if bottom == top {
            continue;
        }
        let premium = rules.premium(p.row, p.col);
        let mut wtiles = Vec::with_capacity(bottom - top + 1);
        let mut wbase = 0;
        for pos in top..=bottom {
            if pos == cpos {
                wtiles.push(p.tile);
                wbase += rules.tile_value(p.tile) * premium.letter_multiplier();
            } else {
                let t = board.at(cross, cline, pos);
                wtiles.push(t);
                wbase += rules.tile_value(t);
            }
        }
        let (row, col) = cross.to_board(cline, top);
        let wm = premium.word_multiplier();
        words.push(WordScore {
            dir: cross,
            row,
            col,
            tiles: wtiles,
            base: wbase,
            word_multiplier: wm,
            score: wbase * wm,
        });
    }

    let bonus = if play.tiles_placed() == rules.rack_size { rules.bingo_bonus } else { 0 };
    let total = words.iter().map(|w| w.score).sum::<i32>() + bonus;
    Evaluation { words, tiles, bonus, total }
}

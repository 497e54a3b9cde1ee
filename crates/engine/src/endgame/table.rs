//! The transposition table: its entries (a value, how it bounds the true one, the depth it
//! holds at, the best move as the table keeps it), kept in buckets of two, and the Zobrist keys
//! that hash a position to its bucket.

use super::Move;
use crate::alphabet::{BLANK_BIT, EMPTY, Letter, Tile, tile_is_blank};
use crate::bag::SplitMix64;
use crate::board::{Board, Direction};
use crate::play::Play;
use crate::rack::Rack;
use crate::rules::MAX_SQUARES;
use std::sync::OnceLock;

/// The depth stored for a value that no horizon cut: good at any depth.
pub(super) const PROVEN: u8 = u8::MAX;

/// How a stored value bounds the true one.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum Bound {
    #[default]
    Exact,
    Lower,
    Upper,
}

impl Bound {
    /// How `value`, the best found by a search within `(alpha, beta)`, bounds the true one.
    #[inline]
    pub(super) fn of(value: i32, alpha: i32, beta: i32) -> Bound {
        if value <= alpha {
            Bound::Upper
        } else if value >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        }
    }
}

// The table's memory is its entries: 32 bytes each (2^22 of them, 128 MiB, for a 5 s solve).
// A best move is kept by the tiles it places, not as a `Play` (a line of the largest board,
// 21 tiles), which made an entry 48 bytes.
const _: () = assert!(std::mem::size_of::<Entry>() == 32);

#[derive(Clone, Copy, Default)]
pub(super) struct Entry {
    pub(super) key: u64,
    pub(super) value: i32,
    pub(super) depth: u8,
    pub(super) bound: Bound,
    /// The best move found here.
    pub(super) best: TableMove,
}

impl Entry {
    /// What the entry says of its position searched to `depth` within `(alpha, beta)`: the
    /// value, and whether it is proven, when that settles the search; else `None`, the window
    /// narrowed by the entry's bound when it holds at that depth.
    #[inline]
    pub(super) fn cutoff(&self, depth: u32, alpha: &mut i32, beta: &mut i32) -> Option<(i32, bool)> {
        if self.depth != PROVEN && u32::from(self.depth) < depth {
            return None;
        }
        let proven = self.depth == PROVEN;
        match self.bound {
            Bound::Exact => return Some((self.value, proven)),
            Bound::Lower => *alpha = (*alpha).max(self.value),
            Bound::Upper => *beta = (*beta).min(self.value),
        }
        (*alpha >= *beta).then_some((self.value, proven))
    }
}

/// Most tiles a play places: a rack's (the rulebook refuses racks of more than 7).
const MOST_PLACED: usize = 7;

/// A move as the table keeps it: a play by its start, length and the tiles it places, the
/// squares it plays through read back from the position's board ([`TableMove::on`]).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct TableMove {
    /// 0 no move, 1 a pass, else 2 + the play's direction, row and column (5 bits each).
    at: u16,
    len: u8,
    placed: [Tile; MOST_PLACED],
    score: i32,
}

impl TableMove {
    pub(super) fn of(mv: Option<Move>) -> TableMove {
        match mv {
            None => TableMove::default(),
            Some(Move::Pass) => TableMove { at: 1, ..TableMove::default() },
            Some(Move::Play { play, score }) => {
                let mut placed = [0; MOST_PLACED];
                for (n, p) in play.placements().enumerate() {
                    let Some(slot) = placed.get_mut(n) else { return TableMove::default() };
                    *slot = p.tile;
                }
                let at =
                    2 + ((play.dir.index() as u16) << 10 | u16::from(play.row) << 5 | u16::from(play.col));
                TableMove { at, len: play.len() as u8, placed, score }
            }
        }
    }

    /// The move on `board`, the position it was stored for: its placed tiles on the empty
    /// squares from its start, the filled ones played through. None when it does not fit (a
    /// position whose key collided); the search's `replayed` checks the rest.
    pub(super) fn on(self, board: &Board) -> Option<Move> {
        let (dir, row, col) = match self.at {
            0 => return None,
            1 => return Some(Move::Pass),
            at => {
                let at = at - 2;
                let dir = if at >> 10 & 1 == 0 { Direction::Across } else { Direction::Down };
                (dir, usize::from(at >> 5 & 31), usize::from(at & 31))
            }
        };
        let (line, start) = dir.from_board(row, col);
        let len = usize::from(self.len);
        if line >= board.size() || start + len > board.size() {
            return None;
        }
        let mut tiles = [EMPTY; crate::rules::MAX_SIZE];
        let mut placed = self.placed.iter().take_while(|&&t| t != EMPTY);
        for (i, t) in tiles[..len].iter_mut().enumerate() {
            if board.at(dir, line, start + i) == EMPTY {
                *t = *placed.next()?;
            }
        }
        if placed.next().is_some() {
            return None;
        }
        let play = Play::new(dir, row, col, &tiles[..len]).ok()?;
        Some(Move::Play { play, score: self.score })
    }
}

/// The depth an entry holds at: [`PROVEN`] when no line below was cut by the horizon, else the
/// depth searched.
#[inline]
pub(super) fn stored_depth(depth: u32, proven: bool) -> u8 {
    if proven { PROVEN } else { depth.min(PROVEN as u32 - 1) as u8 }
}

/// The entry of `table` for `hash`, if it holds one: a pair of slots per bucket.
#[inline]
pub(super) fn probe(table: &[Entry], hash: u64) -> Option<Entry> {
    let slot = (hash as usize) & (table.len() - 2);
    table[slot..slot + 2].iter().find(|e| e.key == hash).copied()
}

/// Keep `entry` in `table`: over an entry of the same position, else over the shallower of the
/// bucket's two (a proven value is the deepest), so that entries which cost a large search
/// outlive the many small ones.
#[inline]
pub(super) fn store(table: &mut [Entry], entry: Entry) {
    let slot = (entry.key as usize) & (table.len() - 2);
    let pair = &mut table[slot..slot + 2];
    let at = if pair[0].key == entry.key {
        0
    } else if pair[1].key == entry.key {
        1
    } else if pair[0].depth <= pair[1].depth {
        0
    } else {
        1
    };
    pair[at] = entry;
}

/// Random keys for the transposition table's hash.
pub(super) struct Zobrist {
    squares: Vec<u64>,
    /// `[seat relative to the mover][tile kind][copy]`: the keys of the first `copy` tiles of a
    /// kind held, xored (blanks are kind 0, letter `l` kind `l + 1`).
    copies: Vec<u64>,
    zeros: [u64; 16],
    /// By the bag's size.
    pub(super) bag: [u64; 16],
}

/// Tile kinds on a square: letters (1..=33) and blanks standing for them.
const KINDS: usize = 68;
const COPIES: usize = 16;

impl Zobrist {
    fn new() -> Zobrist {
        let mut rng = SplitMix64::new(0x5eed_e11d_9a3e_0001);
        Zobrist {
            squares: (0..MAX_SQUARES * KINDS).map(|_| rng.next_u64()).collect(),
            copies: {
                let keys: Vec<u64> = (0..2 * KINDS * COPIES).map(|_| rng.next_u64()).collect();
                let mut copies = vec![0; keys.len()];
                for i in 0..keys.len() {
                    if i % COPIES != 0 {
                        copies[i] = copies[i - 1] ^ keys[i];
                    }
                }
                copies
            },
            zeros: std::array::from_fn(|_| rng.next_u64()),
            bag: std::array::from_fn(|_| rng.next_u64()),
        }
    }

    /// The key of a count of scoreless turns: a ruleset's limit has no upper bound, so a count
    /// past the table's gets a key of its own drawn from it (never shared with another count).
    pub(super) fn zeros_key(&self, zeros: u32) -> u64 {
        match self.zeros.get(zeros as usize) {
            Some(&key) => key,
            None => SplitMix64::new(self.zeros[0] ^ u64::from(zeros).rotate_left(32)).next_u64(),
        }
    }

    fn kind(t: Tile) -> usize {
        (t & !BLANK_BIT) as usize % 34 + if tile_is_blank(t) { 34 } else { 0 }
    }

    pub(super) fn square(&self, sq: usize, t: Tile) -> u64 {
        self.squares[sq * KINDS + Self::kind(t)]
    }

    /// The key of `rack` for `seat`: the xor of one key per tile, the `n`-th copy of a kind
    /// having a key of its own, so equal racks hash alike whatever their order. Read as one
    /// running xor per kind and count.
    pub(super) fn rack(&self, seat: usize, rack: &Rack) -> u64 {
        let base = seat * KINDS * COPIES;
        let mut h = self.copies[base + usize::from(rack.blanks()).min(COPIES - 1)];
        for l in 0..crate::alphabet::MAX_LETTERS {
            let n = rack.count(l as Letter);
            if n > 0 {
                h ^= self.copies[base + (l + 1) * COPIES + usize::from(n).min(COPIES - 1)];
            }
        }
        h
    }

    pub(super) fn position(&self, board: &Board, racks: &[Rack; 2], zeros: u32, bag_len: usize) -> u64 {
        let mut h = self.rack(0, &racks[0])
            ^ self.rack(1, &racks[1])
            ^ self.zeros_key(zeros)
            ^ self.bag[bag_len.min(15)];
        for (sq, &t) in board.grid().iter().enumerate() {
            if t != EMPTY {
                h ^= self.square(sq, t);
            }
        }
        h
    }
}

pub(super) fn zobrist() -> &'static Zobrist {
    static Z: OnceLock<Zobrist> = OnceLock::new();
    Z.get_or_init(Zobrist::new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_play;
    use crate::rules::{Ruleset, RulesetKind};
    use std::sync::Arc;

    /// A table move is the play it was made from, on the board it was stored for: through the
    /// board's tiles, with blanks, on both boards' sides; and nothing where it does not fit.
    #[test]
    fn a_table_move_is_read_back_on_its_board() {
        for kind in [RulesetKind::english(), RulesetKind::by_name("super-english").unwrap()] {
            let lexicon =
                crate::lexicon::Lexicon::compile("t", "cat\ncats\nscat\n", kind.alphabet()).unwrap().0;
            let mut board = Board::new(Arc::new(Ruleset::new(kind)));
            let a = kind.alphabet();
            let (row, col) = board.rules().start();
            let cat = parse_play(&format!("{}{} CAT", row + 1, (b'A' + col as u8) as char), a).unwrap();
            let placements: Vec<_> = cat.placements().map(|p| (p.row, p.col, p.tile)).collect();
            board.place(&placements, lexicon.dawg());
            // sCAT. across through CAT, with a blank S, then the S of CATS as a play of one tile.
            let through = Play::new(
                Direction::Across,
                row,
                col - 1,
                &[crate::alphabet::tile(a.index_of('S').unwrap(), true), EMPTY, EMPTY, EMPTY],
            )
            .unwrap();
            for mv in [Move::Play { play: through, score: 5 }, Move::Pass] {
                assert_eq!(TableMove::of(Some(mv)).on(&board), Some(mv));
            }
            assert_eq!(TableMove::of(None).on(&board), None);
            // On another board (a key that collided), the same tiles do not fit.
            let empty = Board::new(board.rules().clone());
            assert_eq!(TableMove::of(Some(Move::Play { play: through, score: 5 })).on(&empty), None);
        }
    }

    /// Scoreless-turn counts each have their own key, past 15 too (a ruleset's limit is
    /// unbounded): positions that differ only there never share a table entry.
    #[test]
    fn every_count_of_scoreless_turns_has_its_own_key() {
        let z = zobrist();
        let keys: std::collections::HashSet<u64> = (0..1000).map(|n| z.zeros_key(n)).collect();
        assert_eq!(keys.len(), 1000);
    }
}

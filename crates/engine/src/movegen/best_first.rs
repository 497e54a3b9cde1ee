//! The best play without generating every play: anchors searched in the order of an upper bound
//! on the equity (score plus the value of the tiles kept) of any play they can make, stopping
//! when the next bound is below the best play found.
//!
//! A play is generated at exactly one anchor (its leftmost, with the left-part limit), with one
//! length of left part, so a bound per anchor and length that holds for every play generated
//! there makes the search exact: a play never reached has equity at most its task's bound, below
//! the best found, so below the winner's. Ties keep full generation's order (higher score, then
//! [`Play`] order) because every task whose bound reaches the best equity is searched.
//!
//! The bound of an anchor is the best over the spans its plays can cover (each start its left
//! part allows, each end to the right while rack tiles remain and fit the cross-sets) of:
//! - the main word: the span's board tiles plus the rack's highest values on its best letter
//!   premiums, times every word premium in the span;
//! - each cross-word: its tiles plus the rack's highest value on that square's premiums;
//! - the bingo bonus when the span takes the whole rack;
//! - the best value of any tiles kept when that many tiles are played.
//!
//! A span that takes the whole rack is ruled out when no word of the lexicon is made of exactly
//! the rack's tiles and the span's board letters ([`crate::lexicon::Anagrams`], one lookup per
//! distinct set of board letters). Without this test the bingo bonus made nearly every open
//! anchor's bound the highest, and most of them were searched for bingos no rack could make.
//! With one blank on the rack every letter is tried for it; a rack with two skips the test.
//!
//! The spans to the right of the anchor are walked once, and each start's left part is joined to
//! them, so the bound of an anchor costs a few dozen additions. The same walk gives a bound per
//! length of left part, and each length is a task of its own, ordered with every other: the
//! short left parts of an open anchor are searched early, its long ones only if their bound is
//! still above the best found by then. (A play's left part has one length, so the tasks of an
//! anchor still generate each of its plays once.)
//!
//! Every leave of the rack is valued once, before the search ([`Leaves`]): the bounds take the
//! best leave per number of tiles kept from it, and the sink reads a play's leave from it
//! instead of calling the leave function per play. When the leave function is a
//! [`LeaveTable`]'s ([`LeaveValue::table`]), each leave's key is its parent's plus one tile
//! rather than recomputed from a rack.

use super::{
    Direction, Gen, MAX_LEFT, Mode, NO_CROSS, PlaySink, ScoredPlay, left_limit, line_anchors, repeats_a_word,
};
use crate::alphabet::{EMPTY, Letter, MAX_LETTERS, Tile, tile, tile_is_blank, tile_letter};
use crate::board::Board;
use crate::leaves::{self, LeaveTable, LeaveValue, MAX_TILES};
use crate::lexicon::{Anagrams, Dawg, MIN_INDEXED, key_of, letter_code};
use crate::play::Play;
use crate::rack::Rack;
use crate::rules::MAX_SIZE;
use std::collections::HashSet;

/// The play with the highest `score + leave(tiles kept)`, ties to full generation's first
/// (higher score, then play order), found best-first; `None` when there is no play.
pub fn best_by_equity(
    board: &Board,
    rack: &Rack,
    dawg: &Dawg,
    mode: Mode,
    leave: impl LeaveValue,
) -> Option<(f32, ScoredPlay)> {
    best_by_equity_above(board, rack, dawg, mode, leave, f32::NEG_INFINITY)
}

/// [`best_by_equity`] among the plays whose equity is above `floor` (None when no play is):
/// the question "does any play beat this much?" that rack inference asks for every rack it
/// considers. The floor cuts the search as a play found of that equity would: only tasks whose
/// bound exceeds it are searched, so a high floor answers in a fraction of the full search.
pub fn best_by_equity_above(
    board: &Board,
    rack: &Rack,
    dawg: &Dawg,
    mode: Mode,
    leave: impl LeaveValue,
    floor: f32,
) -> Option<(f32, ScoredPlay)> {
    if rack.is_empty() {
        return None;
    }
    if rack.len() > MOST_TILES {
        // No game deals such a rack; the leaves below index at most `MOST_TILES` tiles.
        return best_by_equity_full(board, rack, dawg, mode, leave).filter(|(e, _)| *e > floor);
    }
    let leaves = Leaves::new(rack, &leave);
    let mut bounds = Bounds::new(board, rack, &leaves, dawg.anagrams());
    // One task per anchor with a board tile before it (its left part is fixed), and one per
    // length of left part from the rack at the others: searching a length as its own task lets
    // the best found rise before the long left parts of the first anchors are reached.
    let mut tasks = Vec::with_capacity(256);
    for &dir in mode.directions() {
        for line in 0..board.size() {
            for (anchor, searched_from) in line_anchors(board.anchor_bits(dir, line)) {
                let task =
                    |bound, rack_left| Task { bound, dir, line: line as u8, anchor: anchor as u8, rack_left };
                match bounds.anchor(board, dir, line, anchor, searched_from) {
                    None => {}
                    Some(AnchorBound::BoardLeft(bound)) => tasks.push(task(bound, None)),
                    Some(AnchorBound::RackLeft(by_length)) => tasks.extend(
                        (0..=MAX_LEFT)
                            .filter(|&k| by_length[k] > f32::NEG_INFINITY)
                            .map(|k| task(by_length[k], Some(k as u8))),
                    ),
                }
            }
        }
    }
    // Highest bound first.
    tasks.sort_unstable_by(|a, b| b.bound.total_cmp(&a.bound));
    let existing = (board.rules().options.no_repeated_words && !board.is_empty())
        .then(|| board.words_on_board().into_iter().collect::<HashSet<Vec<Letter>>>())
        .filter(|words| !words.is_empty());
    let mut sink = BestSink { board, leaves: &leaves, existing, floor, best: None };
    let mut g = Gen::new(board, rack, dawg, &mut sink);
    let mut loaded: Option<(Direction, u8)> = None;
    for task in tasks {
        if task.bound <= floor || g.sink.best.is_some_and(|(e, _)| task.bound < e) {
            break;
        }
        if loaded != Some((task.dir, task.line)) {
            g.dir = task.dir;
            g.skip_double_singles = mode == Mode::Both && task.dir == Direction::Down;
            g.load_line(board, task.dir, task.line as usize);
            loaded = Some((task.dir, task.line));
        }
        match task.rack_left {
            None => g.board_left_part(task.anchor as usize),
            Some(length) => g.left_level_at_anchor(task.anchor as usize, length as usize),
        }
    }
    sink.best
}

/// [`best_by_equity`] by full generation: every play ranked. The reference best-first search
/// is held to, and what it is measured against.
pub fn best_by_equity_full(
    board: &Board,
    rack: &Rack,
    dawg: &Dawg,
    mode: Mode,
    leave: impl LeaveValue,
) -> Option<(f32, ScoredPlay)> {
    let mut sink = FullSink { rack: *rack, leave: &leave, best: None };
    super::generate(board, rack, dawg, mode, &mut sink);
    sink.best
}

/// The plays of one anchor with one length of left part from the rack, or every play of an
/// anchor whose left part is the board's tiles before it; and a bound on their equity.
#[derive(Clone, Copy)]
struct Task {
    bound: f32,
    dir: Direction,
    line: u8,
    anchor: u8,
    /// The number of rack tiles before the anchor; `None` when the board's tiles are there.
    rack_left: Option<u8>,
}

/// The bound of an anchor's plays.
enum AnchorBound {
    /// Its left part is the board's tiles before it.
    BoardLeft(f32),
    /// Its left part comes from the rack: the bound by the number of tiles in it.
    RackLeft([f32; MAX_LEFT + 1]),
}

/// Whether `(equity, play)` goes before the best so far: higher equity, then full generation's
/// order (higher score, then play order).
#[inline]
fn better(best: &Option<(f32, ScoredPlay)>, equity: f32, play: &ScoredPlay) -> bool {
    best.is_none_or(|(e, b)| equity > e || (equity == e && *play < b))
}

/// Keeps the best play by equity, as the strong bot compares them: every play, every leave
/// valued by the leave function. The reference.
struct FullSink<'a, L: LeaveValue> {
    rack: Rack,
    leave: &'a L,
    best: Option<(f32, ScoredPlay)>,
}

impl<L: LeaveValue> PlaySink for FullSink<'_, L> {
    fn accept(&mut self, play: &Play, score: i32) {
        let mut left = self.rack;
        for p in play.placements() {
            left.take_tile(p.tile);
        }
        let equity = score as f32 + self.leave.value(&left);
        let sp = ScoredPlay { play: *play, score };
        if better(&self.best, equity, &sp) {
            self.best = Some((equity, sp));
        }
    }
}

/// Keeps the best play by equity for the best-first search, leaves read from [`Leaves`].
struct BestSink<'a> {
    board: &'a Board,
    leaves: &'a Leaves,
    /// Words already on the board, under the no-repeated-words option.
    existing: Option<HashSet<Vec<Letter>>>,
    /// Plays of this equity or less are not wanted.
    floor: f32,
    best: Option<(f32, ScoredPlay)>,
}

impl PlaySink for BestSink<'_> {
    #[inline]
    fn accept(&mut self, play: &Play, score: i32) {
        let equity = score as f32 + self.leaves.after(play);
        let sp = ScoredPlay { play: *play, score };
        if equity <= self.floor || !better(&self.best, equity, &sp) {
            return;
        }
        // Only a play that would be the best is checked: the check costs an evaluation.
        if self.existing.as_ref().is_some_and(|existing| repeats_a_word(self.board, existing, play)) {
            return;
        }
        self.best = Some((equity, sp));
    }
}

/// What [`Leaves::fill`] walks with: the rack's distinct tiles and how a leave is valued.
struct Fill<'a, L> {
    /// Distinct tiles with their counts, in key order; `None` is the blank.
    kinds: &'a [(Option<Letter>, u8)],
    leave: &'a L,
    /// The leave function's table, when it is one's: each leave is then read by its key.
    table: Option<&'a LeaveTable>,
    /// The leave so far, for `leave` (kept only without a table).
    kept: Rack,
}

/// The most tiles [`Leaves`] indexes: its index is a `u16`, and 15 distinct tiles make 2^15
/// leaves. A longer rack (no game deals one) is searched in full.
const MOST_TILES: usize = 15;

/// The value of every sub-multiset of the rack, computed once: a leave is indexed in mixed
/// radix by how many of each of the rack's distinct tiles it keeps, so the leave of a play is
/// the whole rack's index less each placed tile's weight. At most 2^n entries for n tiles (128
/// for a full rack, fewer with duplicates), each valued once by the caller's leave function.
struct Leaves {
    /// Index weight of each letter on the rack (0 for the others).
    weight: [u16; MAX_LETTERS],
    blank_weight: u16,
    whole: u16,
    values: Vec<f32>,
    /// `keep[n]`: the best value of any `n` of the rack's tiles.
    keep: [f32; MAX_SIZE + 1],
}

impl Leaves {
    fn new(rack: &Rack, leave: &impl LeaveValue) -> Leaves {
        let kinds: Vec<_> = rack.kinds().collect();
        let mut weight = [0u16; MAX_LETTERS];
        let mut blank_weight = 0;
        let mut radix = 1u16;
        let mut whole = 0u16;
        for &(k, n) in &kinds {
            match k {
                Some(l) => weight[l as usize] = radix,
                None => blank_weight = radix,
            }
            whole += radix * u16::from(n);
            radix *= u16::from(n) + 1;
        }
        let mut leaves = Leaves {
            weight,
            blank_weight,
            whole,
            values: vec![0.0; usize::from(radix)],
            keep: [f32::NEG_INFINITY; MAX_SIZE + 1],
        };
        // Keys are built one tile at a time while they fit one (a rack of more than seven
        // tiles, which no game deals, is valued leave by leave).
        let table = leave.table().filter(|_| rack.len() <= MAX_TILES);
        let mut fill = Fill { kinds: &kinds, leave, table, kept: Rack::new() };
        leaves.fill(&mut fill, 0, 0, 0, 0);
        leaves
    }

    /// Value every leave that keeps some of the kinds before `i` (`size` tiles, index `index`
    /// and key `key` so far) and any number of the rest: one tile added or taken back at each
    /// step.
    fn fill<L: LeaveValue>(&mut self, f: &mut Fill<'_, L>, i: usize, size: usize, index: u16, key: u64) {
        let Some(&(kind, n)) = f.kinds.get(i) else {
            let value = match f.table {
                Some(table) => table.value_of_key(key),
                None => f.leave.value(&f.kept),
            };
            self.values[usize::from(index)] = value;
            let size = size.min(MAX_SIZE);
            self.keep[size] = self.keep[size].max(value);
            return;
        };
        let weight = match kind {
            Some(l) => self.weight[l as usize],
            None => self.blank_weight,
        };
        let mut key = key;
        for d in 0..=usize::from(n) {
            if d > 0 {
                match (f.table, kind) {
                    // The kinds come in key order.
                    (Some(_), _) => key = leaves::key_with(key, size + d - 1, kind),
                    (None, Some(l)) => f.kept.add(l),
                    (None, None) => f.kept.add_blank(),
                }
            }
            self.fill(f, i + 1, size + d, index + d as u16 * weight, key);
        }
        if f.table.is_none() {
            for _ in 0..n {
                match kind {
                    Some(l) => f.kept.take(l),
                    None => f.kept.take_blank(),
                };
            }
        }
    }

    /// The value of the tiles `play` leaves on the rack.
    #[inline]
    fn after(&self, play: &Play) -> f32 {
        let mut index = self.whole;
        for p in play.placements() {
            index -= if tile_is_blank(p.tile) {
                self.blank_weight
            } else {
                self.weight[tile_letter(p.tile) as usize]
            };
        }
        self.values[usize::from(index)]
    }
}

/// What an anchor's bound needs of the rack.
struct Bounds<'a> {
    /// `prefix[k]`: the sum of the rack's `k` highest tile values.
    prefix: [i32; MAX_SIZE + 1],
    /// The rack's letters with their values, highest first.
    letters: Vec<(Letter, i32)>,
    /// What a blank on the rack may score (`None`: no blank).
    blank: Option<i32>,
    /// Letters the rack can place (every letter while it holds a blank).
    available: u64,
    rack_len: usize,
    rack_size: usize,
    bingo: i32,
    /// `keep[n]`: the best leave value of any `n` of the rack's tiles.
    keep: [f32; MAX_SIZE + 1],
    anagrams: &'a Anagrams,
    /// The multiset key ([`key_of`]) of the rack's letters; `None` with more than one blank.
    rack_key: Option<u64>,
    /// With one blank, its letter is open: every letter of the alphabet is tried.
    blank_letters: Option<usize>,
    /// What [`Bounds::may_use_all`] found, by the board letters' key (direct-mapped).
    spelled: [Option<(u64, bool)>; 64],
}

impl<'a> Bounds<'a> {
    fn new(board: &Board, rack: &Rack, leaves: &Leaves, anagrams: &'a Anagrams) -> Bounds<'a> {
        let rules = board.rules();
        let letters = rules.alphabet.len();
        let blank_value = (0..letters).map(|l| rules.tile_value(tile(l as Letter, true))).max().unwrap_or(0);
        let tiles: Vec<Option<Letter>> = rack.tiles().collect();
        let mut values: Vec<i32> = tiles
            .iter()
            .map(|t| match t {
                Some(l) => rules.tile_value(tile(*l, false)),
                None => blank_value,
            })
            .collect();
        values.sort_unstable_by(|a, b| b.cmp(a));
        let mut prefix = [0; MAX_SIZE + 1];
        for k in 1..=MAX_SIZE {
            prefix[k] = prefix[k - 1] + values.get(k - 1).copied().unwrap_or(0);
        }
        let mut by_value: Vec<(Letter, i32)> = Vec::new();
        for t in tiles.iter().flatten() {
            if !by_value.iter().any(|(l, _)| l == t) {
                by_value.push((*t, rules.tile_value(tile(*t, false))));
            }
        }
        by_value.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        Bounds {
            prefix,
            letters: by_value,
            blank: (rack.blanks() > 0).then_some(blank_value),
            available: if rack.blanks() > 0 { rules.alphabet.all_letters() } else { rack.letter_set() },
            rack_len: tiles.len(),
            rack_size: rules.rack_size,
            bingo: rules.bingo_bonus,
            keep: leaves.keep,
            anagrams,
            rack_key: (rack.blanks() <= 1).then(|| key_of(tiles.iter().flatten().copied())),
            blank_letters: (rack.blanks() == 1).then_some(letters),
            spelled: [None; 64],
        }
    }

    /// Whether a play may take every rack tile on span `s`: its word is then the rack's tiles
    /// and the span's board letters, so some word must have that multiset. Remembered per
    /// position by the board letters, most spans having none or the same few.
    fn may_use_all(&mut self, s: &Span) -> bool {
        let Some(rack_key) = self.rack_key else {
            return true;
        };
        let len = s.placed + s.board_tiles;
        if len < MIN_INDEXED {
            return true;
        }
        // Above `MIN_INDEXED` the answer depends only on the key, so the memo is keyed by it
        // exactly: it answers what the index would.
        let slot = (s.letters >> 58) as usize;
        if let Some((letters, may)) = self.spelled[slot]
            && letters == s.letters
        {
            return may;
        }
        let key = rack_key.wrapping_add(s.letters);
        let may = match self.blank_letters {
            None => self.anagrams.may_spell(key, len),
            Some(n) => {
                (0..n).any(|l| self.anagrams.may_spell(key.wrapping_add(letter_code(l as Letter)), len))
            }
        };
        self.spelled[slot] = Some((s.letters, may));
        may
    }

    /// The most a rack tile may score on a square whose cross-set is `cross_set`.
    fn top(&self, cross_set: u64) -> i32 {
        let letter = self.letters.iter().find(|(l, _)| cross_set >> l & 1 == 1).map_or(0, |(_, v)| *v);
        match self.blank {
            Some(b) if cross_set != 0 => letter.max(b),
            _ => letter,
        }
    }

    /// Letter premiums (4, 3, 2, 1 counts) of `k` placed tiles, filled with the highest values.
    fn placed_value(&self, s: &Span, k: usize) -> i32 {
        let q = s.quadruple.min(k);
        let t = (s.quadruple + s.triple).min(k);
        let d = (s.quadruple + s.triple + s.double).min(k);
        let p = &self.prefix;
        4 * p[q] + 3 * (p[t] - p[q]) + 2 * (p[d] - p[t]) + (p[k] - p[d])
    }

    /// The bound of the plays generated at `anchor` of `line` (by length of left part when it
    /// comes from the rack); `None` when the generator would skip the anchor (no rack letter
    /// fits it).
    fn anchor(
        &mut self,
        board: &Board,
        dir: Direction,
        line: usize,
        anchor: usize,
        searched_from: usize,
    ) -> Option<AnchorBound> {
        let tiles = board.line(dir, line);
        let crosses = board.cross_line(dir, line);
        if crosses[anchor].set() & self.available == 0 {
            return None;
        }
        let rules = board.rules();
        let premium = |pos: usize| {
            let (row, col) = dir.to_board(line, pos);
            rules.premium(row, col)
        };
        let value = |t| rules.tile_value(t);
        // Starts: the board's tiles before the anchor, or up to `limit` rack tiles.
        let (first, last, fixed) = if anchor > 0 && tiles[anchor - 1] != EMPTY {
            let mut s = anchor;
            while s > 0 && tiles[s - 1] != EMPTY {
                s -= 1;
            }
            (s, s, true)
        } else {
            let limit = left_limit(tiles, anchor, searched_from, self.rack_len);
            (anchor - limit, anchor, false)
        };
        // The spans from the anchor rightwards that may end a word, walked once; each start
        // then joins them to its left part.
        let size = tiles.len();
        let mut ends = [Span::default(); MAX_SIZE];
        let mut n_ends = 0;
        let mut right = Span::default();
        for pos in anchor..size {
            if tiles[pos] != EMPTY {
                right.board_tile(value(tiles[pos]), tiles[pos]);
            } else {
                if right.placed == self.rack_len || crosses[pos].set() & self.available == 0 {
                    break;
                }
                right.place(premium(pos), crosses[pos].sum(), self.top(crosses[pos].set()));
            }
            // A word may end here when the next square is empty or the edge.
            if pos + 1 == size || tiles[pos + 1] == EMPTY {
                ends[n_ends] = right;
                n_ends += 1;
            }
        }
        // By rack tiles before the anchor (none when the board's tiles are there: one start).
        let mut by_left = [f32::NEG_INFINITY; MAX_LEFT + 1];
        // From the anchor leftwards, each start adds one placed square.
        let mut left = Span::default();
        if fixed {
            for &t in &tiles[first..anchor] {
                left.board_tile(value(t), t);
            }
        }
        for start in (first..=last).rev() {
            if !fixed && start < anchor {
                // A rack tile on `start`, which must take some letter the rack has.
                if crosses[start].set() & self.available == 0 {
                    break;
                }
                left.place(premium(start), crosses[start].sum(), self.top(crosses[start].set()));
            }
            let mut from_start = f32::NEG_INFINITY;
            for end in &ends[..n_ends] {
                if left.placed + end.placed > self.rack_len {
                    break;
                }
                from_start = from_start.max(self.span_bound(&left.join(end)));
            }
            by_left[if fixed { 0 } else { anchor - start }] = from_start;
        }
        Some(if fixed { AnchorBound::BoardLeft(by_left[0]) } else { AnchorBound::RackLeft(by_left) })
    }

    fn span_bound(&mut self, s: &Span) -> f32 {
        // Every rack tile placed: the span's letters are known, and must spell a word.
        if s.placed == self.rack_len && !self.may_use_all(s) {
            return f32::NEG_INFINITY;
        }
        // Two bounds on the placed tiles' letter points: the rack's best values on the best
        // premiums, and each square's best fitting value; both hold, so the smaller does.
        let placed = self.placed_value(s, s.placed).min(s.fitting);
        let main = s.word_mult * (s.board + placed);
        let bingo = if s.placed == self.rack_size { self.bingo } else { 0 };
        (main + s.cross + bingo) as f32 + self.keep[self.rack_len - s.placed]
    }
}

/// The running sums of a span's squares.
#[derive(Clone, Copy)]
struct Span {
    board: i32,
    /// How many board tiles, and the sum of their letters' codes ([`letter_code`]).
    board_tiles: usize,
    letters: u64,
    placed: usize,
    /// Placed squares by letter premium: a quadruple letter is on Super Scrabble's board.
    quadruple: usize,
    triple: usize,
    double: usize,
    word_mult: i32,
    /// Bounds of the cross-words formed.
    cross: i32,
    /// Each placed square's best fitting value times its letter premium.
    fitting: i32,
}

impl Default for Span {
    fn default() -> Span {
        Span {
            board: 0,
            board_tiles: 0,
            letters: 0,
            placed: 0,
            quadruple: 0,
            triple: 0,
            double: 0,
            word_mult: 1,
            cross: 0,
            fitting: 0,
        }
    }
}

impl Span {
    /// This span followed by `right` (which starts where this one ends).
    #[inline]
    fn join(&self, right: &Span) -> Span {
        Span {
            board: self.board + right.board,
            board_tiles: self.board_tiles + right.board_tiles,
            letters: self.letters.wrapping_add(right.letters),
            placed: self.placed + right.placed,
            quadruple: self.quadruple + right.quadruple,
            triple: self.triple + right.triple,
            double: self.double + right.double,
            word_mult: self.word_mult * right.word_mult,
            cross: self.cross + right.cross,
            fitting: self.fitting + right.fitting,
        }
    }

    fn board_tile(&mut self, value: i32, t: Tile) {
        self.board += value;
        self.board_tiles += 1;
        self.letters = self.letters.wrapping_add(letter_code(tile_letter(t)));
    }

    fn place(&mut self, premium: crate::rules::Premium, cross_sum: i16, top: i32) {
        self.placed += 1;
        let lm = premium.letter_multiplier();
        match lm {
            4 => self.quadruple += 1,
            3 => self.triple += 1,
            2 => self.double += 1,
            _ => {}
        }
        let wm = premium.word_multiplier();
        self.word_mult *= wm;
        self.fitting += top * lm;
        if cross_sum != NO_CROSS {
            self.cross += (i32::from(cross_sum) + top * lm) * wm;
        }
    }
}

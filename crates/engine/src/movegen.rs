//! The move generator: Appel & Jacobson's LeftPart / ExtendRight backtracker over the DAWG.
//!
//! Generation runs one orientation at a time (a down play is an across play on the transpose,
//! see [`crate::board`]), anchor by anchor. A left part is either the tiles already left of the
//! anchor, or rack tiles on the empty non-anchor squares before it, at most `limit` of them
//! (AJ88 §3.3); this limit makes each play appear exactly once per orientation. ExtendRight then
//! walks right from the anchor through placed and board tiles.
//!
//! What keeps it fast:
//! - at each square the candidate letters are one AND of three bitsets: the DAWG node's letters,
//!   the square's cross-set, and the rack's letters (all letters while a blank is left); a child
//!   edge is then a popcount away, so no edge is walked in vain;
//! - an anchor whose cross-set shares no letter with the rack is skipped before any left part is
//!   built (AJ88 §7.2);
//! - the score is accumulated on the way down from the board's cross-sums and the premiums
//!   (AJ88 §3.5), so recording a play is a few additions; it equals [`crate::score::evaluate`];
//! - the recursion uses fixed arrays on the stack: nothing is allocated per visited node.
//!
//! In [`Mode::Both`] a one-tile play that forms words in both directions would be found in both
//! orientations; it is reported once, as across.

use crate::alphabet::{EMPTY, Letter, MAX_LETTERS, Tile, tile, tile_letter};
use crate::board::{Board, Direction, NO_CROSS};
use crate::lexicon::{Dawg, Node};
use crate::play::Play;
use crate::rack::Rack;
use crate::rules::MAX_SIZE;
use crate::score::evaluate_normalized;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};

mod best_first;
pub use best_first::{best_by_equity, best_by_equity_above, best_by_equity_full};

/// Which plays to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Across plays only (rows of the board).
    Across,
    /// Down plays only (rows of the transpose).
    Down,
    /// Both, with one-tile plays that form words both ways reported once (as across).
    Both,
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "across" | "horizontal" => Ok(Mode::Across),
            "down" | "vertical" => Ok(Mode::Down),
            "both" => Ok(Mode::Both),
            _ => Err(format!("unknown mode {s:?} (expected across, down or both)")),
        }
    }
}

/// A play with its score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScoredPlay {
    pub play: Play,
    pub score: i32,
}

impl Ord for ScoredPlay {
    /// Best first: higher score, then the play's own order (a stable tie-break).
    fn cmp(&self, other: &Self) -> Ordering {
        other.score.cmp(&self.score).then_with(|| self.play.cmp(&other.play))
    }
}

impl PartialOrd for ScoredPlay {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Where generated plays go. Implemented for closures `FnMut(&Play, i32)`.
pub trait PlaySink {
    fn accept(&mut self, play: &Play, score: i32);
}

impl<F: FnMut(&Play, i32)> PlaySink for F {
    #[inline]
    fn accept(&mut self, play: &Play, score: i32) {
        self(play, score)
    }
}

/// Collects every play.
#[derive(Default)]
pub struct CollectAll(pub Vec<ScoredPlay>);

impl PlaySink for CollectAll {
    #[inline]
    fn accept(&mut self, play: &Play, score: i32) {
        self.0.push(ScoredPlay { play: *play, score });
    }
}

impl CollectAll {
    /// The plays, best first.
    pub fn sorted(mut self) -> Vec<ScoredPlay> {
        self.0.sort_unstable();
        self.0
    }
}

/// Keeps the `n` best plays (ties broken by play order, so the result is deterministic).
pub struct TopN {
    n: usize,
    /// A max-heap under `ScoredPlay`'s best-first order: the top is the worst kept play.
    heap: BinaryHeap<ScoredPlay>,
}

impl TopN {
    pub fn new(n: usize) -> TopN {
        TopN { n, heap: BinaryHeap::with_capacity(n.min(4096) + 1) }
    }

    /// The kept plays, best first.
    pub fn into_sorted(self) -> Vec<ScoredPlay> {
        self.heap.into_sorted_vec()
    }
}

impl PlaySink for TopN {
    #[inline]
    fn accept(&mut self, play: &Play, score: i32) {
        if self.n == 0 {
            return;
        }
        let sp = ScoredPlay { play: *play, score };
        if self.heap.len() < self.n {
            self.heap.push(sp);
        } else if let Some(worst) = self.heap.peek()
            && sp < *worst
        {
            self.heap.pop();
            self.heap.push(sp);
        }
    }
}

/// Keeps only the best play.
#[derive(Default)]
pub struct Best(pub Option<ScoredPlay>);

impl PlaySink for Best {
    #[inline]
    fn accept(&mut self, play: &Play, score: i32) {
        let sp = ScoredPlay { play: *play, score };
        if self.0.is_none_or(|b| sp < b) {
            self.0 = Some(sp);
        }
    }
}

/// Counters of one generation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Plays handed to the sink.
    pub plays: u64,
    /// DAWG edges followed.
    pub arcs: u64,
    /// Anchors searched (after the cross-set test).
    pub anchors: u64,
}

/// Generate every legal play for `rack` on `board` into `sink`.
///
/// Under the no-repeated-words option (Эрудит) a play forming a word already on the board is
/// not legal; such plays are filtered here, by rebuilding the words of each play (the option
/// costs an evaluation per play, and nothing when it is off).
pub fn generate(board: &Board, rack: &Rack, dawg: &Dawg, mode: Mode, sink: &mut impl PlaySink) -> Stats {
    if board.rules().options.no_repeated_words && !board.is_empty() {
        let existing: HashSet<Vec<Letter>> = board.words_on_board().into_iter().collect();
        if !existing.is_empty() {
            let mut filter = NoRepeats { board, existing, inner: sink, plays: 0 };
            let mut stats = generate_unfiltered(board, rack, dawg, mode, &mut filter);
            stats.plays = filter.plays;
            return stats;
        }
    }
    generate_unfiltered(board, rack, dawg, mode, sink)
}

/// Drops plays that form a word already on the board.
struct NoRepeats<'a, S: PlaySink> {
    board: &'a Board,
    existing: HashSet<Vec<Letter>>,
    inner: &'a mut S,
    plays: u64,
}

impl<S: PlaySink> PlaySink for NoRepeats<'_, S> {
    fn accept(&mut self, play: &Play, score: i32) {
        if !repeats_a_word(self.board, &self.existing, play) {
            self.plays += 1;
            self.inner.accept(play, score);
        }
    }
}

/// Whether `play` forms a word of `existing` (the words already on `board`).
fn repeats_a_word(board: &Board, existing: &HashSet<Vec<Letter>>, play: &Play) -> bool {
    let e = evaluate_normalized(board, play);
    e.words.iter().any(|w| {
        let letters: Vec<Letter> = w.tiles.iter().map(|&t| tile_letter(t)).collect();
        existing.contains(&letters)
    })
}

fn generate_unfiltered(
    board: &Board,
    rack: &Rack,
    dawg: &Dawg,
    mode: Mode,
    sink: &mut impl PlaySink,
) -> Stats {
    let mut g = Gen::new(board, rack, dawg, sink);
    if g.rack_len == 0 {
        return g.stats;
    }
    for &dir in mode.directions() {
        g.dir = dir;
        g.skip_double_singles = mode == Mode::Both && dir == Direction::Down;
        for line in 0..board.size() {
            let anchors = board.anchor_bits(dir, line);
            if anchors == 0 {
                continue;
            }
            g.load_line(board, dir, line);
            g.line_anchors(anchors);
        }
    }
    g.stats
}

impl Mode {
    /// The orientations generated, in generation order.
    fn directions(self) -> &'static [Direction] {
        match self {
            Mode::Across => &[Direction::Across],
            Mode::Down => &[Direction::Down],
            Mode::Both => &[Direction::Across, Direction::Down],
        }
    }
}

/// Generate all plays, best first.
pub fn all_plays(board: &Board, rack: &Rack, dawg: &Dawg, mode: Mode) -> Vec<ScoredPlay> {
    let mut sink = CollectAll::default();
    generate(board, rack, dawg, mode, &mut sink);
    sink.sorted()
}

/// The `n` best plays, best first.
pub fn top_plays(board: &Board, rack: &Rack, dawg: &Dawg, mode: Mode, n: usize) -> Vec<ScoredPlay> {
    let mut sink = TopN::new(n);
    generate(board, rack, dawg, mode, &mut sink);
    sink.into_sorted()
}

/// The best play, if any.
pub fn best_play(board: &Board, rack: &Rack, dawg: &Dawg, mode: Mode) -> Option<ScoredPlay> {
    let mut sink = Best::default();
    generate(board, rack, dawg, mode, &mut sink);
    sink.0
}

/// Longest left part: a full rack less the tile on the anchor.
const MAX_LEFT: usize = 7;

/// The anchors of a line (`anchors`, one bit per square), left to right, each with the square
/// after the line's previous anchor: left parts do not reach back past it, so that each play is
/// generated at one anchor only.
fn line_anchors(mut anchors: u32) -> impl Iterator<Item = (usize, usize)> {
    let mut searched_from = 0;
    std::iter::from_fn(move || {
        if anchors == 0 {
            return None;
        }
        let anchor = anchors.trailing_zeros() as usize;
        anchors &= anchors - 1;
        let from = searched_from;
        searched_from = anchor + 1;
        Some((anchor, from))
    })
}

/// Most rack tiles a left part may put on the empty squares before `anchor` of `tiles` (the
/// square before it being empty): not past `searched_from`, not over a tile, at most the rack
/// less the tile on the anchor.
fn left_limit(tiles: &[Tile], anchor: usize, searched_from: usize, rack_len: usize) -> usize {
    let mut free_start = anchor;
    while free_start > 0 && tiles[free_start - 1] == EMPTY {
        free_start -= 1;
    }
    let free = anchor - searched_from.max(free_start);
    free.min(rack_len.saturating_sub(1)).min(MAX_LEFT)
}

/// A left part: rack tiles spelling a DAWG prefix, to be placed just before an anchor.
#[derive(Clone, Copy)]
struct LeftPart {
    node: Node,
    /// Letters of `node`.
    set: u64,
    /// Letters the rack can still supply once this part is placed.
    avail: u64,
    len: u8,
    tiles: [Tile; MAX_LEFT],
}

struct Gen<'a, S: PlaySink> {
    dawg: &'a Dawg,
    values: [i32; MAX_LETTERS],
    blank_values: [i32; MAX_LETTERS],
    all: u64,
    rack: [u8; MAX_LETTERS],
    blanks: u8,
    /// Letters with a count above zero.
    rack_set: u64,
    rack_len: u32,
    rack_size: u32,
    bingo: i32,
    dir: Direction,
    line: usize,
    /// The board's side: the line buffers below are [`MAX_SIZE`] long, and only their first
    /// `size` squares are the line.
    size: usize,
    // The current line in the current orientation.
    tiles: [Tile; MAX_SIZE],
    cross_sets: [u64; MAX_SIZE],
    cross_sums: [i16; MAX_SIZE],
    letter_mult: [i32; MAX_SIZE],
    word_mult: [i32; MAX_SIZE],
    /// The play being built, by position (`EMPTY` = a board tile played through).
    word: [Tile; MAX_SIZE],
    /// Every left part the rack can make, by level (`left_levels[k]` = range of `k`-tile parts).
    left_parts: Vec<LeftPart>,
    left_levels: Vec<(usize, usize)>,
    anchor: usize,
    /// First square of the word being extended (fixed once its left part is placed).
    start: usize,
    placed: u32,
    skip_double_singles: bool,
    sink: &'a mut S,
    stats: Stats,
}

impl<'a, S: PlaySink> Gen<'a, S> {
    fn new(board: &Board, rack: &Rack, dawg: &'a Dawg, sink: &'a mut S) -> Gen<'a, S> {
        let rules = board.rules();
        let mut values = [0i32; MAX_LETTERS];
        let mut blank_values = [0i32; MAX_LETTERS];
        let letters = rules.alphabet.len();
        for l in 0..letters {
            values[l] = rules.tile_value(tile(l as Letter, false));
            blank_values[l] = rules.tile_value(tile(l as Letter, true));
        }
        let mut counts = [0u8; MAX_LETTERS];
        for (l, c) in counts.iter_mut().enumerate().take(letters) {
            *c = rack.count(l as Letter);
        }
        Gen {
            dawg,
            values,
            blank_values,
            all: rules.alphabet.all_letters(),
            rack: counts,
            blanks: rack.blanks(),
            rack_set: rack.letter_set(),
            rack_len: rack.len() as u32,
            rack_size: rules.rack_size as u32,
            bingo: rules.bingo_bonus,
            dir: Direction::Across,
            line: 0,
            size: board.size(),
            tiles: [EMPTY; MAX_SIZE],
            cross_sets: [0; MAX_SIZE],
            cross_sums: [NO_CROSS; MAX_SIZE],
            letter_mult: [1; MAX_SIZE],
            word_mult: [1; MAX_SIZE],
            word: [EMPTY; MAX_SIZE],
            left_parts: Vec::new(),
            left_levels: Vec::new(),
            anchor: 0,
            start: 0,
            placed: 0,
            skip_double_singles: false,
            sink,
            stats: Stats::default(),
        }
    }

    fn load_line(&mut self, board: &Board, dir: Direction, line: usize) {
        let rules = board.rules();
        self.line = line;
        let n = self.size;
        self.tiles[..n].copy_from_slice(board.line(dir, line));
        for (pos, cross) in board.cross_line(dir, line).iter().enumerate() {
            self.cross_sets[pos] = cross.set();
            self.cross_sums[pos] = cross.sum();
        }
        for pos in 0..n {
            let (row, col) = dir.to_board(line, pos);
            let p = rules.premium(row, col);
            self.letter_mult[pos] = p.letter_multiplier();
            self.word_mult[pos] = p.word_multiplier();
        }
    }

    /// Letters the rack can supply: its letters, or every letter while a blank remains.
    #[inline]
    fn available(&self) -> u64 {
        if self.blanks > 0 { self.all } else { self.rack_set }
    }

    fn line_anchors(&mut self, anchors: u32) {
        for (anchor, searched_from) in line_anchors(anchors) {
            self.at_anchor(anchor, searched_from);
        }
    }

    /// Every play of the loaded line whose leftmost anchor is `anchor`; `searched_from` is the
    /// square after the line's previous anchor (left parts do not reach back past it).
    fn at_anchor(&mut self, anchor: usize, searched_from: usize) {
        // AJ88 §7.2: nothing can go on this anchor.
        if self.cross_sets[anchor] & self.available() == 0 {
            return;
        }
        self.stats.anchors += 1;
        self.anchor = anchor;
        if anchor > 0 && self.tiles[anchor - 1] != EMPTY {
            self.board_left_part(anchor);
        } else {
            // Left part from the rack on the empty non-anchor squares before the anchor.
            let limit = self.left_limit(anchor, searched_from);
            self.left_parts_at_anchor(limit);
        }
    }

    /// Every play of `anchor` (of the loaded line, a rack letter fitting it), whose left part is
    /// the board's tiles before it: walk them, then extend.
    fn board_left_part(&mut self, anchor: usize) {
        self.anchor = anchor;
        let mut start = anchor;
        while start > 0 && self.tiles[start - 1] != EMPTY {
            start -= 1;
        }
        let mut node = self.dawg.root();
        let mut set = self.dawg.letters(node);
        let mut main = 0;
        for pos in start..anchor {
            let t = self.tiles[pos];
            let l = tile_letter(t);
            if set >> l & 1 == 0 {
                return;
            }
            let step = self.dawg.step(node, set, l);
            self.stats.arcs += 1;
            (node, set) = (step.target(), step.set());
            main += self.board_value(t);
            self.word[pos] = EMPTY;
        }
        self.start = start;
        self.extend(node, set, false, anchor, main, 1, 0);
    }

    fn left_limit(&self, anchor: usize, searched_from: usize) -> usize {
        left_limit(&self.tiles, anchor, searched_from, self.rack_len as usize)
    }

    #[inline]
    fn board_value(&self, t: Tile) -> i32 {
        let l = tile_letter(t) as usize;
        if t & crate::alphabet::BLANK_BIT != 0 { self.blank_values[l] } else { self.values[l] }
    }

    /// Make sure the left-part table holds every left part of up to `depth` tiles.
    ///
    /// A left part depends only on the rack, not on the anchor, so instead of re-walking the DAWG
    /// from the root at every anchor (AJ88's LeftPart) the parts are enumerated once, level by
    /// level, and each anchor scans the levels its limit allows, skipping at once every part
    /// whose node cannot continue onto the anchor's cross-set.
    fn ensure_left_parts(&mut self, depth: usize) {
        while self.left_levels.len() <= depth {
            let level = self.left_levels.len();
            let begin = self.left_parts.len();
            if level == 0 {
                let root = self.dawg.root();
                let set = self.dawg.letters(root);
                self.left_parts.push(LeftPart {
                    node: root,
                    set,
                    avail: self.available(),
                    len: 0,
                    tiles: [EMPTY; 7],
                });
            } else {
                let (from, to) = (self.left_levels[level - 1].0, self.left_levels[level - 1].1);
                for i in from..to {
                    let parent = self.left_parts[i];
                    self.apply(&parent);
                    let mut candidates = parent.set & self.available();
                    while candidates != 0 {
                        let l = candidates.trailing_zeros() as Letter;
                        candidates &= candidates - 1;
                        let step = self.dawg.step(parent.node, parent.set, l);
                        self.stats.arcs += 1;
                        let mut tiles = parent.tiles;
                        if self.rack[l as usize] > 0 {
                            self.take(l);
                            tiles[level - 1] = tile(l, false);
                            let avail = self.available();
                            self.left_parts.push(LeftPart {
                                node: step.target(),
                                set: step.set(),
                                avail,
                                len: level as u8,
                                tiles,
                            });
                            self.put_back(l);
                        }
                        if self.blanks > 0 {
                            self.blanks -= 1;
                            tiles[level - 1] = tile(l, true);
                            let avail = self.available();
                            self.left_parts.push(LeftPart {
                                node: step.target(),
                                set: step.set(),
                                avail,
                                len: level as u8,
                                tiles,
                            });
                            self.blanks += 1;
                        }
                    }
                    self.unapply(&parent);
                }
            }
            self.left_levels.push((begin, self.left_parts.len()));
        }
    }

    /// Take a left part's tiles from the rack.
    #[inline]
    fn apply(&mut self, lp: &LeftPart) {
        for &t in &lp.tiles[..lp.len as usize] {
            if t & crate::alphabet::BLANK_BIT != 0 {
                self.blanks -= 1;
                self.placed += 1;
            } else {
                self.take(tile_letter(t));
            }
        }
    }

    /// Put a left part's tiles back on the rack.
    #[inline]
    fn unapply(&mut self, lp: &LeftPart) {
        for &t in &lp.tiles[..lp.len as usize] {
            if t & crate::alphabet::BLANK_BIT != 0 {
                self.blanks += 1;
                self.placed -= 1;
            } else {
                self.put_back(tile_letter(t));
            }
        }
    }

    /// Every left part of at most `limit` tiles from the rack before the anchor, then extend.
    fn left_parts_at_anchor(&mut self, limit: usize) {
        self.ensure_left_parts(limit);
        let anchor_set = self.cross_sets[self.anchor];
        for level in 0..=limit {
            let (from, to) = self.left_levels[level];
            self.left_parts_of_level(from, to, anchor_set);
        }
    }

    /// The plays of `anchor` (of the loaded line, a rack letter fitting it, no board tile before
    /// it) whose left part is `level` rack tiles: one level of [`Gen::left_parts_at_anchor`],
    /// for a search that orders the levels of every anchor by their bounds.
    fn left_level_at_anchor(&mut self, anchor: usize, level: usize) {
        self.anchor = anchor;
        self.ensure_left_parts(level);
        let (from, to) = self.left_levels[level];
        self.left_parts_of_level(from, to, self.cross_sets[anchor]);
    }

    /// The left parts `from..to` of one level, each extended.
    fn left_parts_of_level(&mut self, from: usize, to: usize, anchor_set: u64) {
        for i in from..to {
            let lp = self.left_parts[i];
            // The part must continue onto the anchor with a letter still on the rack.
            if lp.set & anchor_set & lp.avail == 0 {
                continue;
            }
            let len = lp.len as usize;
            let start = self.anchor - len;
            let mut main = 0;
            let mut wm = 1;
            for (k, &t) in lp.tiles[..len].iter().enumerate() {
                let pos = start + k;
                self.word[pos] = t;
                main += self.board_value(t) * self.letter_mult[pos];
                wm *= self.word_mult[pos];
            }
            self.apply(&lp);
            self.start = start;
            self.extend(lp.node, lp.set, false, self.anchor, main, wm, 0);
            self.unapply(&lp);
        }
    }

    #[inline]
    fn take(&mut self, l: Letter) {
        let c = &mut self.rack[l as usize];
        *c -= 1;
        if *c == 0 {
            self.rack_set &= !(1 << l);
        }
        self.placed += 1;
    }

    #[inline]
    fn put_back(&mut self, l: Letter) {
        self.rack[l as usize] += 1;
        self.rack_set |= 1 << l;
        self.placed -= 1;
    }

    /// Continue a word whose letters so far lead to `node` (letter set `set`; `terminal` when
    /// they spell a word) with `pos` the next square: record the play if the word can end here,
    /// follow board tiles, and branch on rack tiles at the next empty square. `main` and `wm`
    /// are the main word's running letter sum and word multiplier, `cross` the cross-words'
    /// total so far. Every dead end is detected here, before a call: most would-be calls have no
    /// candidate at all, and a call costs more than the test.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn extend(
        &mut self,
        mut node: Node,
        mut set: u64,
        mut terminal: bool,
        mut pos: usize,
        mut main: i32,
        wm: i32,
        cross: i32,
    ) {
        // Tiles already on the board: follow them while they last.
        while pos < self.size && self.tiles[pos] != EMPTY {
            let t = self.tiles[pos];
            let l = tile_letter(t);
            if set >> l & 1 == 0 {
                return;
            }
            let step = self.dawg.step(node, set, l);
            self.stats.arcs += 1;
            self.word[pos] = EMPTY;
            main += self.board_value(t);
            (node, set, terminal) = (step.target(), step.set(), step.terminal());
            pos += 1;
        }
        if terminal && pos > self.anchor {
            self.record(pos, main * wm + cross);
        }
        if pos < self.size && self.placed < self.rack_len {
            let candidates = set & self.cross_sets[pos] & self.available();
            if candidates != 0 {
                self.place_at(node, set, candidates, pos, main, wm, cross);
            }
        }
    }

    /// Branch on each candidate letter (from the rack, then as a blank) at the empty square `pos`.
    #[allow(clippy::too_many_arguments)]
    fn place_at(
        &mut self,
        node: Node,
        set: u64,
        mut candidates: u64,
        pos: usize,
        main: i32,
        wm: i32,
        cross: i32,
    ) {
        let lm = self.letter_mult[pos];
        let sq_wm = self.word_mult[pos];
        let cross_sum = self.cross_sums[pos];
        let wm = wm * sq_wm;
        // What the square after this one needs (an over-approximation of the rack is enough to
        // prove a dead end).
        let next_filled = pos + 1 < self.size && self.tiles[pos + 1] != EMPTY;
        let next_cross = if pos + 1 < self.size { self.cross_sets[pos + 1] } else { 0 };
        let avail = self.available();
        while candidates != 0 {
            let l = candidates.trailing_zeros() as Letter;
            candidates &= candidates - 1;
            let step = self.dawg.step(node, set, l);
            self.stats.arcs += 1;
            // A word that neither ends here nor can go on to the next (empty) square is a dead
            // end: skip it before paying for the call.
            if !step.terminal() && !next_filled && step.set() & next_cross & avail == 0 {
                continue;
            }
            if self.rack[l as usize] > 0 {
                self.take(l);
                let v = self.values[l as usize] * lm;
                self.word[pos] = tile(l, false);
                let c = if cross_sum == NO_CROSS { 0 } else { (cross_sum as i32 + v) * sq_wm };
                self.extend(step.target(), step.set(), step.terminal(), pos + 1, main + v, wm, cross + c);
                self.put_back(l);
            }
            if self.blanks > 0 {
                self.blanks -= 1;
                self.placed += 1;
                let v = self.blank_values[l as usize] * lm;
                self.word[pos] = tile(l, true);
                let c = if cross_sum == NO_CROSS { 0 } else { (cross_sum as i32 + v) * sq_wm };
                self.extend(step.target(), step.set(), step.terminal(), pos + 1, main + v, wm, cross + c);
                self.placed -= 1;
                self.blanks += 1;
            }
        }
    }

    #[inline]
    fn record(&mut self, end: usize, score: i32) {
        let start = self.start;
        // A single tile always sits on the anchor; with a cross-word it is also an across play.
        if self.placed == 1 && self.skip_double_singles && self.cross_sums[self.anchor] != NO_CROSS {
            return;
        }
        let score = if self.placed == self.rack_size { score + self.bingo } else { score };
        let play = Play::from_line(self.dir, self.line, start, &self.word[start..end]);
        self.stats.plays += 1;
        self.sink.accept(&play, score);
    }
}

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
use crate::lexicon::{Dawg, Node, Step};
use crate::play::Play;
use crate::rack::Rack;
use crate::rules::SIZE;
use crate::score::evaluate_normalized;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};

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
        let e = evaluate_normalized(self.board, play);
        let repeats = e.words.iter().any(|w| {
            let letters: Vec<Letter> = w.tiles.iter().map(|&t| tile_letter(t)).collect();
            self.existing.contains(&letters)
        });
        if !repeats {
            self.plays += 1;
            self.inner.accept(play, score);
        }
    }
}

fn generate_unfiltered(
    board: &Board,
    rack: &Rack,
    dawg: &Dawg,
    mode: Mode,
    sink: &mut impl PlaySink,
) -> Stats {
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
    let mut g = Gen {
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
        tiles: [EMPTY; SIZE],
        cross_sets: [0; SIZE],
        cross_sums: [NO_CROSS; SIZE],
        letter_mult: [1; SIZE],
        word_mult: [1; SIZE],
        word: [EMPTY; SIZE],
        left: [EMPTY; SIZE],
        anchor: 0,
        placed: 0,
        skip_double_singles: false,
        sink,
        stats: Stats::default(),
    };
    if g.rack_len == 0 {
        return g.stats;
    }
    let dirs: &[Direction] = match mode {
        Mode::Across => &[Direction::Across],
        Mode::Down => &[Direction::Down],
        Mode::Both => &[Direction::Across, Direction::Down],
    };
    for &dir in dirs {
        g.dir = dir;
        g.skip_double_singles = mode == Mode::Both && dir == Direction::Down;
        for line in 0..SIZE {
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
    // The current line in the current orientation.
    tiles: [Tile; SIZE],
    cross_sets: [u64; SIZE],
    cross_sums: [i16; SIZE],
    letter_mult: [i32; SIZE],
    word_mult: [i32; SIZE],
    /// The play being built, by position (`EMPTY` = a board tile played through).
    word: [Tile; SIZE],
    /// Left-part tiles in order.
    left: [Tile; SIZE],
    anchor: usize,
    placed: u32,
    skip_double_singles: bool,
    sink: &'a mut S,
    stats: Stats,
}

impl<S: PlaySink> Gen<'_, S> {
    fn load_line(&mut self, board: &Board, dir: Direction, line: usize) {
        let rules = board.rules();
        self.line = line;
        self.tiles = *board.line(dir, line);
        self.cross_sets.copy_from_slice(board.cross_set_line(dir, line));
        self.cross_sums.copy_from_slice(board.cross_sum_line(dir, line));
        for pos in 0..SIZE {
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

    fn line_anchors(&mut self, mut anchors: u16) {
        // Empty non-anchor squares since the last anchor or tile: the left-part limit.
        let mut prev_anchor: Option<usize> = None;
        while anchors != 0 {
            let anchor = anchors.trailing_zeros() as usize;
            anchors &= anchors - 1;
            let searched_from = prev_anchor.map_or(0, |a| a + 1);
            prev_anchor = Some(anchor);
            // AJ88 §7.2: nothing can go on this anchor.
            if self.cross_sets[anchor] & self.available() == 0 {
                continue;
            }
            self.stats.anchors += 1;
            self.anchor = anchor;
            if anchor > 0 && self.tiles[anchor - 1] != EMPTY {
                // Left part fixed by the board: walk it, then extend.
                let mut start = anchor;
                while start > 0 && self.tiles[start - 1] != EMPTY {
                    start -= 1;
                }
                let mut node = self.dawg.root();
                let mut set = self.dawg.letters(node);
                let mut main = 0;
                let mut ok = true;
                for pos in start..anchor {
                    let t = self.tiles[pos];
                    let l = tile_letter(t);
                    if set >> l & 1 == 0 {
                        ok = false;
                        break;
                    }
                    let step = self.dawg.step(node, set, l);
                    self.stats.arcs += 1;
                    (node, set) = (step.target, step.set);
                    main += self.board_value(t);
                    self.word[pos] = EMPTY;
                }
                if ok {
                    self.extend_right(node, set, anchor, start, main, 1, 0);
                }
            } else {
                // Left part from the rack on the empty non-anchor squares before the anchor.
                let free = anchor - searched_from.max(self.free_start(anchor));
                let limit = free.min(self.rack_len as usize - 1);
                let root = self.dawg.root();
                self.left_part(root, self.dawg.letters(root), 0, limit);
            }
        }
    }

    /// First square of the run of empty squares ending just before `anchor`.
    fn free_start(&self, anchor: usize) -> usize {
        let mut s = anchor;
        while s > 0 && self.tiles[s - 1] == EMPTY {
            s -= 1;
        }
        s
    }

    #[inline]
    fn board_value(&self, t: Tile) -> i32 {
        let l = tile_letter(t) as usize;
        if t & crate::alphabet::BLANK_BIT != 0 { self.blank_values[l] } else { self.values[l] }
    }

    /// Place a left part of `len` tiles (in `self.left`) before the anchor, score it, extend.
    fn left_part(&mut self, node: Node, set: u64, len: usize, limit: usize) {
        // Extend with the current left part in place.
        let start = self.anchor - len;
        let mut main = 0;
        let mut wm = 1;
        for i in 0..len {
            let pos = start + i;
            let t = self.left[i];
            self.word[pos] = t;
            main += self.board_value(t) * self.letter_mult[pos];
            wm *= self.word_mult[pos];
        }
        self.extend_right(node, set, self.anchor, start, main, wm, 0);
        if len >= limit {
            return;
        }
        let mut candidates = set & self.available();
        while candidates != 0 {
            let l = candidates.trailing_zeros() as Letter;
            candidates &= candidates - 1;
            let step = *self.dawg.step(node, set, l);
            self.stats.arcs += 1;
            if self.rack[l as usize] > 0 {
                self.take(l);
                self.left[len] = tile(l, false);
                self.left_part(step.target, step.set, len + 1, limit);
                self.put_back(l);
            }
            if self.blanks > 0 {
                self.blanks -= 1;
                self.placed += 1;
                self.left[len] = tile(l, true);
                self.left_part(step.target, step.set, len + 1, limit);
                self.placed -= 1;
                self.blanks += 1;
            }
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

    /// Extend right from `pos` at `node`. `main` and `wm` are the main word's running letter sum
    /// and word multiplier, `cross` the cross-words' total so far; `terminal` tells whether the
    /// letters up to `pos` spell a word (passed through `extend_from_edge`).
    #[allow(clippy::too_many_arguments)]
    fn extend_right(
        &mut self,
        node: Node,
        set: u64,
        pos: usize,
        start: usize,
        main: i32,
        wm: i32,
        cross: i32,
    ) {
        if pos >= SIZE {
            return;
        }
        let t = self.tiles[pos];
        if t != EMPTY {
            let l = tile_letter(t);
            if set >> l & 1 != 0 {
                let step = *self.dawg.step(node, set, l);
                self.stats.arcs += 1;
                self.word[pos] = EMPTY;
                let main = main + self.board_value(t);
                self.after_edge(&step, pos + 1, start, main, wm, cross);
            }
            return;
        }
        let mut candidates = set & self.cross_sets[pos] & self.available();
        if candidates == 0 {
            return;
        }
        let lm = self.letter_mult[pos];
        let sq_wm = self.word_mult[pos];
        let cross_sum = self.cross_sums[pos];
        while candidates != 0 {
            let l = candidates.trailing_zeros() as Letter;
            candidates &= candidates - 1;
            let step = *self.dawg.step(node, set, l);
            self.stats.arcs += 1;
            if self.rack[l as usize] > 0 {
                self.take(l);
                let v = self.values[l as usize] * lm;
                self.word[pos] = tile(l, false);
                let c = if cross_sum == NO_CROSS { 0 } else { (cross_sum as i32 + v) * sq_wm };
                self.after_edge(&step, pos + 1, start, main + v, wm * sq_wm, cross + c);
                self.put_back(l);
            }
            if self.blanks > 0 {
                self.blanks -= 1;
                self.placed += 1;
                let v = self.blank_values[l as usize] * lm;
                self.word[pos] = tile(l, true);
                let c = if cross_sum == NO_CROSS { 0 } else { (cross_sum as i32 + v) * sq_wm };
                self.after_edge(&step, pos + 1, start, main + v, wm * sq_wm, cross + c);
                self.placed -= 1;
                self.blanks += 1;
            }
        }
    }

    /// After taking an edge into `pos - 1`: record a play if the word ends here, then go on.
    #[inline]
    fn after_edge(&mut self, step: &Step, pos: usize, start: usize, main: i32, wm: i32, cross: i32) {
        let ends_here = pos >= SIZE || self.tiles[pos] == EMPTY;
        if step.terminal && ends_here && pos > self.anchor {
            self.record(start, pos, main * wm + cross);
        }
        if step.set != 0 && pos < SIZE && (self.tiles[pos] != EMPTY || self.placed < self.rack_len) {
            self.extend_right(step.target, step.set, pos, start, main, wm, cross);
        }
    }

    #[inline]
    fn record(&mut self, start: usize, end: usize, score: i32) {
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

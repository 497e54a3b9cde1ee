//! The words an endgame can still form: a small DAWG the search generates with instead of the
//! whole lexicon.
//!
//! Once the tiles still to be played are known (both racks, and the bag in a pre-endgame's
//! scenario), every word any later play can form lies along one line of the board (a row or a
//! column): a run of that line, each square either a letter already there or one of those
//! tiles, the squares just past each end empty *now* (the board only fills up, so a square
//! empty when the word is formed was empty before). [`PlayableWords::new`] lists exactly those
//! words of the lexicon (every letter a blank could stand for included) and builds a DAWG of
//! them. A few thousand words instead of a few hundred thousand: the generator's left parts
//! and cross-set updates die out after a letter or two where the full lexicon would walk on.
//!
//! Plays generated with it are the plays of the full lexicon, on any board the search reaches
//! from this one with these tiles: a play's main word and every cross-word it forms are such
//! runs, so they are in the small lexicon exactly when they are in the full one. A cross-set
//! computed with either admits the same letters among those the tiles can place, so the board's
//! existing cross-sets need not be recomputed.
//!
//! The enumeration walks the lexicon once for the words made of tiles alone, and at each prefix
//! of tiles continues through every line where a run of letters already on the board can follow
//! that prefix: one walk shares the prefixes every start square would otherwise walk again.

use crate::alphabet::{Letter, MAX_LETTERS, tile_letter};
use crate::board::{Board, Direction};
use crate::lexicon::{Dawg, LEAF, Node, build_sorted};
use crate::rack::Rack;
use crate::rules::MAX_SIZE;

/// The lexicon restricted to the words an endgame's tiles can still form on its board.
pub struct PlayableWords {
    dawg: Dawg,
}

impl PlayableWords {
    /// The words of `lexicon` that the tiles of `tiles` (blanks standing for any letter) can form
    /// on `board` and on any board reached from it by placing some of them.
    pub fn new(board: &Board, tiles: &Rack, lexicon: &Dawg) -> PlayableWords {
        let size = board.size();
        let mut lines = Vec::with_capacity(2 * size);
        for d in Direction::BOTH {
            for line in 0..size {
                let mut letters = [None; MAX_SIZE];
                for (l, &t) in letters.iter_mut().zip(board.line(d, line)) {
                    *l = (t != crate::alphabet::EMPTY).then(|| tile_letter(t));
                }
                if letters.iter().any(Option::is_some) {
                    lines.push(letters);
                }
            }
        }
        let mut walk = Walk {
            lexicon,
            size,
            lines: &lines,
            starts: Vec::new(),
            followers: Vec::new(),
            words: Vec::new(),
            word: Vec::with_capacity(size),
        };
        walk.index_starts(tiles.len());
        // Words that start on a letter already on the board.
        for (l, line) in lines.iter().enumerate() {
            for f in 0..size {
                if line[f].is_some() && (f == 0 || line[f - 1].is_none()) {
                    walk.through(l, f, lexicon.root(), *tiles, false);
                }
            }
        }
        let mut tiles = *tiles;
        walk.prefixes(lexicon.root(), &mut tiles);
        let Walk { mut words, .. } = walk;
        words.sort_unstable();
        words.dedup();
        // Sorted, distinct words of a checked lexicon, two letters or more, each below
        // MAX_LETTERS (what `Dawg::from_parts` holds every lexicon to): nothing to refuse.
        let dawg = build_sorted(MAX_LETTERS, words.iter().map(Vec::as_slice))
            .expect("a sorted set of a lexicon's words builds");
        PlayableWords { dawg }
    }

    /// The small lexicon: generate, place and validate with it.
    pub fn dawg(&self) -> &Dawg {
        &self.dawg
    }
}

/// A square where a prefix of `k` tiles can be followed by letters already on the board.
#[derive(Clone, Copy)]
struct Start {
    /// Index into the walk's lines.
    line: usize,
    /// The first square of the run of board letters; the prefix fills the `k` squares before it.
    at: usize,
}

struct Walk<'a> {
    lexicon: &'a Dawg,
    /// The board's side: each line holds `size` squares (the rest of its array is `None`).
    size: usize,
    lines: &'a [[Option<Letter>; MAX_SIZE]],
    /// `starts[k][letter]`: where a prefix of `k` tiles can be followed by `letter` on the board.
    starts: Vec<Vec<Vec<Start>>>,
    /// `followers[k]`: the letters with some start after a prefix of `k` tiles.
    followers: Vec<u64>,
    words: Vec<Vec<Letter>>,
    word: Vec<Letter>,
}

impl Walk<'_> {
    /// For every prefix length up to `most` tiles, the runs of board letters it can precede: the
    /// prefix's first square must have an empty square or the edge before it, or the word
    /// would run on.
    fn index_starts(&mut self, most: usize) {
        let most = most.min(self.size);
        self.starts = vec![vec![Vec::new(); MAX_LETTERS]; most + 1];
        for (l, line) in self.lines.iter().enumerate() {
            let mut previous: Option<usize> = None;
            for f in 0..self.size {
                let Some(letter) = line[f] else { continue };
                if f > 0 && line[f - 1].is_none() {
                    // The empty squares before `f`; a prefix may not touch the letter before them.
                    let room = match previous {
                        Some(p) => f - p - 2,
                        None => f,
                    };
                    for k in 1..=room.min(most) {
                        self.starts[k][letter as usize].push(Start { line: l, at: f });
                    }
                }
                previous = Some(f);
            }
        }
        self.followers = self
            .starts
            .iter()
            .map(|by_letter| {
                by_letter.iter().enumerate().filter(|(_, s)| !s.is_empty()).fold(0, |m, (l, _)| m | 1 << l)
            })
            .collect();
    }

    /// Every prefix of tiles from `node` on (the word so far is `self.word`): words of tiles
    /// alone, and at each prefix the runs of board letters that can follow it.
    fn prefixes(&mut self, node: Node, tiles: &mut Rack) {
        let k = self.word.len();
        if k > 0 && k < self.starts.len() {
            let mut next = self.lexicon.letters(node) & self.followers[k];
            while next != 0 {
                let letter = next.trailing_zeros() as usize;
                next &= next - 1;
                for i in 0..self.starts[k][letter].len() {
                    let Start { line, at } = self.starts[k][letter][i];
                    self.through(line, at, node, *tiles, true);
                }
            }
        }
        if k >= self.size || tiles.is_empty() {
            return;
        }
        for edge in self.lexicon.edges(node) {
            let Some(blank) = take(tiles, edge.letter) else { continue };
            self.word.push(edge.letter);
            if edge.terminal && self.word.len() >= 2 {
                self.words.push(self.word.clone());
            }
            if edge.target != LEAF {
                self.prefixes(edge.target, tiles);
            }
            self.word.pop();
            give_back(tiles, edge.letter, blank);
        }
    }

    /// Continue the word from square `at` of line `l` at `node` (letters on the board followed,
    /// empty squares filled from `tiles`), keeping each word that ends before an empty square
    /// or the edge. `placed`: the word so far holds a tile (a word of board letters alone is no
    /// play's).
    fn through(&mut self, l: usize, at: usize, node: Node, mut tiles: Rack, placed: bool) {
        // `through_from` pops every letter it pushes: the word is as it was after.
        let line = self.lines[l];
        self.through_from(&line, at, node, &mut tiles, placed);
    }

    fn through_from(
        &mut self,
        line: &[Option<Letter>; MAX_SIZE],
        at: usize,
        node: Node,
        tiles: &mut Rack,
        placed: bool,
    ) {
        let size = self.size;
        let ends = |pos: usize| pos + 1 == size || line[pos + 1].is_none();
        match line[at] {
            Some(letter) => {
                let Some(edge) = self.lexicon.child(node, letter) else { return };
                self.word.push(letter);
                if edge.terminal && placed && ends(at) {
                    self.words.push(self.word.clone());
                }
                if edge.target != LEAF && at + 1 < self.size {
                    self.through_from(line, at + 1, edge.target, tiles, placed);
                }
                self.word.pop();
            }
            None => {
                if tiles.is_empty() {
                    return;
                }
                for edge in self.lexicon.edges(node) {
                    let Some(blank) = take(tiles, edge.letter) else { continue };
                    self.word.push(edge.letter);
                    if edge.terminal && ends(at) {
                        self.words.push(self.word.clone());
                    }
                    if edge.target != LEAF && at + 1 < self.size {
                        self.through_from(line, at + 1, edge.target, tiles, true);
                    }
                    self.word.pop();
                    give_back(tiles, edge.letter, blank);
                }
            }
        }
    }
}

/// Take a tile for `letter`: the letter itself if held (a blank kept can stand for more),
/// else a blank. `Some(true)` when a blank was taken, `None` when neither is held.
fn take(tiles: &mut Rack, letter: Letter) -> Option<bool> {
    if tiles.take(letter) {
        Some(false)
    } else if tiles.take_blank() {
        Some(true)
    } else {
        None
    }
}

fn give_back(tiles: &mut Rack, letter: Letter, blank: bool) {
    if blank { tiles.add_blank() } else { tiles.add(letter) }
}

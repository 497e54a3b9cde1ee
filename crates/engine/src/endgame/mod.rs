//! The exact endgame: once the bag is empty, each side can work out the other's rack (the
//! tiles it cannot see), so a two-player game is a finite game of perfect information and can
//! be solved. The same search also plays out a position whose bag order is known (the
//! pre-endgame's scenarios, [`crate::pre_endgame`]): a play draws from the bag as the game would.
//!
//! [`Solver::solve`] is a negamax search with alpha-beta pruning, principal variation search,
//! iterative deepening, move ordering (the transposition table's move first, then going out,
//! then the ply's two killer moves, then score and tiles played; the table's move and the last
//! play that went out and cut the same ply off elsewhere are tried, if legal here, before the
//! node's moves are generated, which most nodes above the horizon then never need) and a
//! transposition table
//! keyed by a Zobrist hash of the board, both racks, the bag's size and the scoreless-turn
//! count. Its value is the spread the side to move will add from here to the end of the game:
//! every play's score, plus the racks as the rules count them at the end (going out takes twice
//! the opponent's rack in spread; a run of scoreless turns costs each side its own rack).
//!
//! A search at a given depth marks a line cut at that depth as unproven; an iteration in which
//! no line was cut is the exact answer, and the search stops there. When the time budget ends
//! first, the lines of the deepest completed iteration are the answer, marked inexact.
//!
//! **Several lines**: asked for the best `k` first moves, the root keeps the `k` best values
//! found so far; a further move is first tested with a null window at the `k`-th value and
//! searched in full only if it beats it, so `k` lines cost little more than one.
//!
//! A [`Solver`] keeps its transposition table between searches (each search salts its keys,
//! so entries of another position never match): the pre-endgame's many small searches pay
//! for the table once.
//!
//! The search generates with [`PlayableWords`]: the lexicon cut down to the words the tiles
//! still to be played can form on this board (the same plays, found far faster).
//!
//! [`minimax`] is the plain reference (every move, no pruning, exact values remembered by the
//! whole position): what the tests hold the solver to on small endgames.
//!
//! Files: `table.rs`, the transposition table's entries and Zobrist keys; `search/`, the
//! [`Solver`] (iterative deepening and negamax; `ordering.rs`, the moves a node tries and in
//! what order); `minimax.rs`, the exact small-case solver; `words.rs`, [`PlayableWords`].

use crate::alphabet::{EMPTY, Letter};
use crate::board::Board;
use crate::budget::Budget;
use crate::game::Game;
use crate::lexicon::Dawg;
use crate::play::Play;
use crate::rack::Rack;
use std::time::Instant;

mod minimax;
mod search;
mod table;
mod words;
pub use minimax::minimax;
pub use search::Solver;
pub use words::PlayableWords;

/// A two-player position to play out: `racks[0]` belongs to the side to move. With an empty
/// `bag` it is an endgame; otherwise the bag's order is known (the pre-endgame's scenarios):
/// plays draw from its end, as the game would.
#[derive(Clone, Debug)]
pub struct Position {
    pub board: Board,
    pub racks: [Rack; 2],
    /// Consecutive scoreless turns so far (passes, exchanges, withdrawn plays).
    pub zeros: u32,
    /// The bag, drawn from its end (empty: an endgame).
    pub bag: Vec<Option<Letter>>,
}

impl Position {
    /// An endgame: the bag is empty.
    pub fn new(board: Board, racks: [Rack; 2], zeros: u32) -> Position {
        Position { board, racks, zeros, bag: Vec::new() }
    }

    /// The endgame of a two-seat game whose bag is empty and which is still being played, from
    /// the view of the seat to move; `None` otherwise (a bag with tiles, more seats, a game over
    /// or waiting for the play that went out to be accepted).
    pub fn from_game(game: &Game) -> Option<Position> {
        if game.config().seats != 2 || game.bag_len() > 0 || game.is_over() || game.awaiting_final_challenge()
        {
            return None;
        }
        let me = game.to_move();
        let racks = [*game.rack(me)?, *game.rack(1 - me)?];
        if racks[0].is_empty() || racks[1].is_empty() {
            return None;
        }
        Some(Position::new(game.board().clone(), racks, game.scoreless_turns()))
    }

    /// Every tile still to be played: both racks and the bag.
    pub fn tiles_to_play(&self) -> Rack {
        let mut tiles = self.racks[0];
        tiles.add_all(&self.racks[1]);
        for t in &self.bag {
            match t {
                Some(l) => tiles.add(*l),
                None => tiles.add_blank(),
            }
        }
        tiles
    }

    /// The unseen tiles when `board` and `rack` are all a player can see and the bag is empty:
    /// the full tile set less the board and the rack (the opponent's rack). `None` when the
    /// board and the rack hold more of some tile than the set has.
    pub fn unseen(board: &Board, rack: &Rack) -> Option<Rack> {
        let rules = board.rules();
        let mut unseen = rules.full_set();
        for &t in board.grid() {
            if t != EMPTY && !unseen.take_tile(t) {
                return None;
            }
        }
        unseen.remove_all(rack).then_some(unseen)
    }
}

/// One move of the endgame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    Play { play: Play, score: i32 },
    Pass,
}

/// One of the best first moves: its value and the line that follows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The spread the side to move adds from here to the end after this first move, under best
    /// play from then on.
    pub value: i32,
    /// The first move, then best play, alternating sides. Exact lines run to the end of the
    /// game.
    pub pv: Vec<Move>,
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct Solution {
    /// The spread the side to move adds from here to the end (its points minus the
    /// opponent's, the racks' end-of-game values included). Add the current spread for the
    /// final one.
    pub value: i32,
    /// The principal variation, the side to move's move first. Exact solutions run to the end
    /// of the game unless a proven transposition ended the line early.
    pub pv: Vec<Move>,
    /// The best first moves asked for ([`EndgameLimits::lines`]), best first (values non-increasing),
    /// each with its value and line; the first is `value` and `pv`. Fewer when the position has
    /// fewer moves.
    pub lines: Vec<Line>,
    /// The deepest iteration completed (plies).
    pub depth: u32,
    /// The whole game tree was resolved: every value is the final spread under best play.
    pub exact: bool,
    /// Positions searched.
    pub nodes: u64,
}

impl Solution {
    /// The side to move's move as an action of the game: the line's first play, or a pass.
    pub fn first_action(&self) -> crate::game::Action {
        match self.pv.first() {
            Some(Move::Play { play, .. }) => crate::game::Action::Play(*play),
            _ => crate::game::Action::Pass,
        }
    }
}

/// Bounds on a search.
#[derive(Clone, Debug)]
pub struct EndgameLimits {
    /// When to stop (the deepest completed iteration answers).
    pub budget: Budget,
    /// Deepest iteration tried (plies).
    pub max_depth: u32,
    /// log2 of the transposition table's entries (40 bytes each); 0: sized by the
    /// deadline (2^16 to 2^22 entries, about what the search can fill).
    pub table_bits: u32,
    /// Best first moves wanted, each with its exact value and line (at least 1).
    pub lines: usize,
    /// At the depth limit, with the bag empty, play the game out from the position reached, each
    /// side making its best-scoring play (going out counted with the racks' end values), and
    /// take that result as the position's value, instead of the tiles each side holds counting
    /// against it. Proven values are the same either way; a search the budget stops deeper
    /// than it can see judges its lines by it.
    pub leaf_playout: bool,
}

impl Default for EndgameLimits {
    fn default() -> EndgameLimits {
        EndgameLimits {
            budget: Budget::default(),
            max_depth: 128,
            table_bits: 0,
            lines: 1,
            leaf_playout: false,
        }
    }
}

impl EndgameLimits {
    /// The table's size: as asked, or by the time the search has (about a million positions a
    /// second reach it; 2^22 entries, 128 MiB, for 5 s), or 2^21 without a deadline.
    fn bits(&self) -> u32 {
        if self.table_bits > 0 {
            return self.table_bits.clamp(8, 26);
        }
        match self.budget.deadline {
            Some(d) => {
                let ms = d.saturating_duration_since(Instant::now()).as_millis() as u64;
                (ms.max(1) * 1000).ilog2().clamp(16, 22)
            }
            None => 21,
        }
    }
}

/// Solve `position` within `limits`. The side to move's rack must not be empty.
pub fn solve(position: &Position, dawg: &Dawg, limits: EndgameLimits) -> Solution {
    Solver::new(limits.bits()).solve(position, dawg, limits)
}

/// `rack` after drawing as many tiles as were `placed` (at most what is left) from the end of
/// `bag`, of which `bag_len` remain; and the bag's size after.
fn draw(mut rack: Rack, placed: usize, bag: &[Option<Letter>], bag_len: usize) -> (Rack, usize) {
    let drawn = placed.min(bag_len);
    for t in &bag[bag_len - drawn..bag_len] {
        match t {
            Some(l) => rack.add(*l),
            None => rack.add_blank(),
        }
    }
    (rack, bag_len - drawn)
}

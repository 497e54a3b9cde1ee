//! Greedy self-play (Appel & Jacobson's program: always the top-scoring play), for benchmarks,
//! test positions and the `selfplay` command. Two seats, a seeded bag; when no play exists the
//! mover exchanges its whole rack if the bag allows, else passes. It stops when a rack empties
//! with the bag empty or after the ruleset's scoreless-turn limit. End-of-game rack scoring and
//! everything else a referee does is the game module's; this is only a position generator.
//! [`by_game`] spreads seeded games of any kind over the cores (matches, training).

use crate::bag::Bag;
use crate::board::Board;
use crate::lexicon::Dawg;
use crate::movegen::{Mode, ScoredPlay, best_play};
use crate::rack::Rack;
use crate::rules::Ruleset;
use std::sync::Arc;

/// A position before a move.
pub struct Position<'a> {
    pub board: &'a Board,
    /// The mover's rack.
    pub rack: &'a Rack,
    /// Scores, the mover first.
    pub scores: [i32; 2],
    /// Consecutive scoreless turns so far.
    pub zeros: u32,
    /// Tiles left in the bag.
    pub bag: usize,
}

/// What the mover did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    Play(ScoredPlay),
    Exchange,
    Pass,
}

/// Play one greedy game; `observe` sees each position and the turn taken from it. Returns the
/// final board and scores (seat 0 first).
pub fn greedy_game(
    rules: Arc<Ruleset>,
    dawg: &Dawg,
    seed: u64,
    mut observe: impl FnMut(&Position, &Turn),
) -> (Board, [i32; 2]) {
    let mut board = Board::new(rules.clone());
    let mut bag = Bag::new(&rules, seed);
    let mut racks = [Rack::new(), Rack::new()];
    for r in &mut racks {
        bag.refill(r, rules.rack_size);
    }
    let mut scores = [0i32; 2];
    let mut zeros = 0u32;
    let limit = rules.options.scoreless_turn_limit.turns(2);
    let mut mover = 0usize;
    loop {
        let best = best_play(&board, &racks[mover], dawg, Mode::Both);
        let turn = match best {
            Some(p) => Turn::Play(p),
            None if bag.len() >= rules.options.exchange_limit as usize => Turn::Exchange,
            None => Turn::Pass,
        };
        let position = Position {
            board: &board,
            rack: &racks[mover],
            scores: [scores[mover], scores[1 - mover]],
            zeros,
            bag: bag.len(),
        };
        observe(&position, &turn);
        match turn {
            Turn::Play(p) => {
                let placements: Vec<_> = p.play.placements().map(|x| (x.row, x.col, x.tile)).collect();
                for x in p.play.placements() {
                    racks[mover].take_tile(x.tile);
                }
                board.place(&placements, dawg);
                scores[mover] += p.score;
                bag.refill(&mut racks[mover], rules.rack_size);
                // A placement resets the count even when it scores 0 (RULES.md).
                zeros = 0;
                if racks[mover].is_empty() {
                    break;
                }
            }
            Turn::Exchange => {
                let old = std::mem::take(&mut racks[mover]);
                bag.refill(&mut racks[mover], rules.rack_size);
                bag.put_back(&old);
                zeros += 1;
            }
            Turn::Pass => zeros += 1,
        }
        if zeros >= limit {
            break;
        }
        mover = 1 - mover;
    }
    (board, scores)
}

/// Run `game(g)` for every game number below `games`, spread over the cores, and return the
/// results in game order with the number of threads used. Games are seeded by their number, so
/// the results do not depend on the threads.
pub fn by_game<T: Send>(games: u64, game: impl Fn(u64) -> T + Sync) -> (Vec<T>, usize) {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(games.max(1) as usize);
    let mut all: Vec<(u64, T)> = std::thread::scope(|scope| {
        let game = &game;
        let handles: Vec<_> = (0..workers as u64)
            .map(|w| {
                scope.spawn(move || (w..games).step_by(workers).map(|g| (g, game(g))).collect::<Vec<_>>())
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    });
    all.sort_by_key(|(g, _)| *g);
    (all.into_iter().map(|(_, r)| r).collect(), workers)
}

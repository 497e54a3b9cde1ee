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
pub struct SelfPlayPosition<'a> {
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
    mut observe: impl FnMut(&SelfPlayPosition, &Turn),
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
        let position = SelfPlayPosition {
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
    by_game_observed(games, game, || {})
}

/// [`by_game`], calling `finished` after each game (from the thread that played it): how a
/// command line shows its progress.
pub fn by_game_observed<T: Send>(
    games: u64,
    game: impl Fn(u64) -> T + Sync,
    finished: impl Fn() + Sync,
) -> (Vec<T>, usize) {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(games.max(1) as usize);
    let mut all: Vec<(u64, T)> = std::thread::scope(|scope| {
        let (game, finished) = (&game, &finished);
        let handles: Vec<_> = (0..workers as u64)
            .map(|w| {
                scope.spawn(move || {
                    (w..games)
                        .step_by(workers)
                        .map(|g| {
                            let result = game(g);
                            finished();
                            (g, result)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    });
    all.sort_by_key(|(g, _)| *g);
    (all.into_iter().map(|(_, r)| r).collect(), workers)
}

/// A match's result from its first player's side: each game's final spread, in game order.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchResult {
    pub spreads: Vec<i32>,
}

impl MatchResult {
    /// Play `games` two-seat games of `a` against `b`, game `g` with bag seed `seed + g` and `a`
    /// in seat `g % 2`, under `challenge`, spread over the cores; the champion thinks `budget` a
    /// move; `finished` is called after each game. Also the threads used.
    #[allow(clippy::too_many_arguments)]
    pub fn play(
        rules: &Arc<Ruleset>,
        lexicon: &Arc<crate::lexicon::Lexicon>,
        (a, b): (crate::bot::Player<'_>, crate::bot::Player<'_>),
        games: u64,
        seed: u64,
        challenge: crate::game::ChallengeRule,
        budget: std::time::Duration,
        finished: impl Fn() + Sync,
    ) -> Result<(MatchResult, usize), String> {
        let (results, workers) = by_game_observed(
            games,
            |g| {
                crate::bot::duel_within(
                    rules.clone(),
                    lexicon.clone(),
                    seed.wrapping_add(g),
                    (a, b),
                    (g % 2) as usize,
                    challenge,
                    budget,
                )
                .map_err(|e| format!("game {g}: {e}"))
            },
            finished,
        );
        let spreads = results.into_iter().collect::<Result<Vec<i32>, String>>()?;
        Ok((MatchResult { spreads }, workers))
    }

    /// The first player's score in wins (a tie counts half) as a fraction, and one standard error.
    pub fn wins(&self) -> (f64, f64) {
        let n = self.spreads.len().max(1) as f64;
        let wins = self.spreads.iter().map(|&s| (s.signum() as f64 + 1.0) / 2.0).sum::<f64>() / n;
        (wins, (wins * (1.0 - wins) / n).sqrt())
    }

    /// The mean spread and one standard error.
    pub fn mean_spread(&self) -> (f64, f64) {
        let n = self.spreads.len().max(1) as f64;
        let mean = self.spreads.iter().map(|&s| f64::from(s)).sum::<f64>() / n;
        let var =
            self.spreads.iter().map(|&s| (f64::from(s) - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        (mean, (var / n).sqrt())
    }

    /// One line: `A vs B: N games, A wins W% ± E, mean spread +S ± E`.
    pub fn summary(&self, a: &str, b: &str) -> String {
        let (wins, wins_error) = self.wins();
        let (mean, mean_error) = self.mean_spread();
        format!(
            "{a} vs {b}: {} games, {a} wins {:.1}% ± {:.1}, mean spread {mean:+.1} ± {mean_error:.1}",
            self.spreads.len(),
            100.0 * wins,
            100.0 * wins_error,
        )
    }
}

//! Rating estimates: each player's rating as a rating body would compute it from the division's
//! results so far, by the rules TSH applies for it (North America's NASPA, profiles `nsa2008`,
//! `naspa2024` and club events; Britain's ABSP). Pure: the estimates are a function of the
//! division's players and the set of results in, whatever order the results came in.
//!
//! What goes in: a player's rating (0: unrated, a newcomer) and rated games before the event
//! ([`crate::Player::lifetime_games`]; unknown is taken as 100, as TSH does, for a rated player,
//! and 0 for a newcomer). What is rated: a game with both scores; byes and forfeits are not
//! (TSH rates neither). An unrated player with no rated game has no estimate, where TSH would
//! print 1500 (NASPA) or 80 (ABSP): the one place these differ from TSH, because no figure is
//! the truth there.

mod absp;
mod files;
pub mod glicko;
mod naspa;

pub use files::{games_csv, players_csv};

pub use crate::rating_system::RatingSystem;

use crate::division::{Division, GameResult, Pairing};

/// One rated game as a player saw it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rated {
    pub round: usize,
    pub opponent: usize,
    /// 1 a win, ½ a draw, 0 a loss.
    pub score: f64,
    /// The player's and the opponent's points (the ABSP skips a game with a zero).
    pub points: [i32; 2],
}

/// Each player's rated games in rounds `..through`, in round order.
pub(crate) fn rated_games(division: &Division, through: usize) -> Vec<Vec<Rated>> {
    let mut games = vec![Vec::new(); division.players.len()];
    for (round, r) in division.rounds.iter().enumerate().take(through) {
        for line in r.pairings.iter().flatten() {
            let Pairing::Game { first, second, result: Some(GameResult::Scores([a, b])) } = *line else {
                continue;
            };
            let score = |mine: i32, theirs: i32| {
                f64::from(u8::from(mine > theirs) * 2 + u8::from(mine == theirs)) / 2.0
            };
            games[first.index()].push(Rated {
                round,
                opponent: second.index(),
                score: score(a, b),
                points: [a, b],
            });
            games[second.index()].push(Rated {
                round,
                opponent: first.index(),
                score: score(b, a),
                points: [b, a],
            });
        }
    }
    games
}

/// Each player's rated games in the results in: how many, and the wins (a draw a half).
pub fn rated_records(division: &Division) -> Vec<(u32, f64)> {
    let games = rated_games(division, division.rounds.len());
    games.iter().map(|g| (g.len() as u32, g.iter().fold(0.0, |wins, r| wins + r.score))).collect()
}

/// Each player's estimate from every result in (None: the division rates no one, or an unrated
/// player with no rated game).
pub fn estimates(division: &Division) -> Vec<Option<i32>> {
    estimates_through(division, division.rounds.len())
}

/// Each player's estimate from the results of the first `rounds` rounds: TSH's interim estimate
/// after a round (the `.t` file's `newr`).
pub fn estimates_through(division: &Division, rounds: usize) -> Vec<Option<i32>> {
    let n = division.players.len();
    match division.controls.rating_system {
        RatingSystem::None => vec![None; n],
        RatingSystem::Absp => absp::estimates(division, &rated_games(division, rounds)),
        system => naspa::estimates(division, system, rounds),
    }
}

/// Each player's estimate after each round paired, one list a player (TSH's `newr`).
pub fn estimates_by_round(division: &Division) -> Vec<Vec<Option<i32>>> {
    let rounds = division.rounds_paired();
    let mut by_player = vec![Vec::with_capacity(rounds); division.players.len()];
    for k in 1..=rounds {
        for (p, e) in estimates_through(division, k).into_iter().enumerate() {
            by_player[p].push(e);
        }
    }
    by_player
}

/// The NASPA expectation of a player rated `a` against one rated `b`: 1 − 1/(1 + e^(0.0031879·(a−b))).
pub fn expectation(a: f64, b: f64) -> f64 {
    1.0 - 1.0 / (1.0 + (0.0031879 * (a - b)).exp())
}

/// A player's performance rating over `games` against opponents rated `opponents` with `wins`
/// (a draw ½): the rating at which the expected wins equal the wins, found as TSH finds a
/// newcomer's (integer bisection over 0..3000; a sweep counts as 95% of the games and a zero as
/// 5%). None with no games.
pub fn performance(wins: f64, opponents: &[f64]) -> Option<i32> {
    if opponents.is_empty() {
        return None;
    }
    let target = naspa::target_wins(wins, opponents.len());
    Some(naspa::search(|r| opponents.iter().map(|&o| expectation(r, o)).sum::<f64>() - target))
}

/// Each player's performance rating over their rated games (both scores in) against rated
/// opponents (an unrated one has no rating to measure against), on the division's rating
/// system's scale: for the ABSP, the mean of the games' worth as the ABSP counts it (the
/// opponent's rating, clamped to the player's own ±40 where the player is rated, +50 for a win,
/// −50 for a loss; a game with a score of 0 not rated), rounded as TSH rounds; for NASPA's
/// systems, and a division that rates no one, NASPA's ([`performance`]). None with no such game.
pub fn performances(division: &Division) -> Vec<Option<i32>> {
    let games = rated_games(division, division.rounds.len());
    if division.controls.rating_system == RatingSystem::Absp {
        return absp::performances(division, &games);
    }
    let rating = |p: usize| division.players[p].rating;
    (games.iter())
        .map(|games| {
            let against_rated: Vec<(&Rated, u32)> =
                games.iter().filter_map(|g| rating(g.opponent).map(|r| (g, r))).collect();
            let wins = against_rated.iter().fold(0.0, |wins, (g, _)| wins + g.score);
            let opponents: Vec<f64> = against_rated.iter().map(|&(_, r)| f64::from(r)).collect();
            performance(wins, &opponents)
        })
        .collect()
}

/// Each player's rating going in, as the rating bodies' arithmetic takes it: 0 for an unrated
/// player (their arithmetic tells a newcomer by it), the one place the crate's `None` becomes 0.
pub(crate) fn ratings_going_in(division: &Division) -> Vec<f64> {
    division.players.iter().map(|p| p.rating.map_or(0.0, f64::from)).collect()
}

/// TSH's rounding of a rating: `int(x + 0.5)`, truncating toward zero.
pub(crate) fn round_rating(x: f64) -> f64 {
    (x + 0.5).trunc()
}

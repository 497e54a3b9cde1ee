//! The ABSP's ratings as TSH's ABSP module computes them: a game is worth the opponent's rating
//! +50 for a win, −50 for a loss, a rated opponent's rating first clamped to the player's own
//! ±40; the estimate is the mean over the games. Newcomers are estimated twice (from their rated
//! opponents, then with the first estimates of the unrated), then rated players. A game with a
//! score of 0 is not rated. A performance rating on the ABSP's scale is the same mean over the
//! games against rated opponents, with neither the phases nor the floors.

use super::{Rated, ratings_going_in, round_rating};
use crate::division::Division;

/// The lowest estimate of a rated player, and of a newcomer.
const FLOOR_RATED: f64 = 40.0;
const FLOOR_NEWCOMER: f64 = 80.0;

pub(super) fn estimates(division: &Division, games: &[Vec<Rated>]) -> Vec<Option<i32>> {
    let rating = ratings_going_in(division);
    let games: Vec<Vec<Rated>> =
        games.iter().map(|g| g.iter().filter(|r| rated(r)).copied().collect()).collect();
    let newcomers = || (0..rating.len()).filter(|&p| rating[p] == 0.0);
    // First: newcomers against rated opponents only.
    let mut first = vec![0.0; rating.len()];
    for p in newcomers() {
        first[p] = estimate(&rating, p, &games[p], |o| rating[o]);
    }
    // Then with the first estimates for unrated opponents.
    let mut second = vec![0.0; rating.len()];
    for p in newcomers() {
        second[p] = estimate(&rating, p, &games[p], |o| if rating[o] != 0.0 { rating[o] } else { first[o] });
    }
    (0..rating.len())
        .map(|p| {
            if games[p].is_empty() {
                return (rating[p] != 0.0).then_some(rating[p] as i32);
            }
            let r = if rating[p] == 0.0 {
                second[p]
            } else {
                estimate(&rating, p, &games[p], |o| if rating[o] != 0.0 { rating[o] } else { second[o] })
            };
            Some(r as i32)
        })
        .collect()
}

/// Each player's performance over their games against rated opponents (an unrated one has no
/// rating to measure against): the mean of the games' [`worth`], rounded (None with no such game).
pub(super) fn performances(division: &Division, games: &[Vec<Rated>]) -> Vec<Option<i32>> {
    let rating = ratings_going_in(division);
    (games.iter().enumerate())
        .map(|(p, games)| {
            let against_rated = games.iter().filter(|g| rated(g) && rating[g.opponent] != 0.0);
            let worth: Vec<f64> =
                against_rated.map(|g| worth(rating[p], rating[g.opponent], true, g)).collect();
            (!worth.is_empty()).then(|| round_rating(worth.iter().sum::<f64>() / worth.len() as f64) as i32)
        })
        .collect()
}

/// Whether the ABSP rates a game: neither score 0.
fn rated(g: &Rated) -> bool {
    g.points[0] != 0 && g.points[1] != 0
}

/// A game's worth to a player rated `own` (0: a newcomer): the opponent's `value`, clamped to
/// `own` ±40 when both are rated (`opponent_rated`), +50 for a win, −50 for a loss.
fn worth(own: f64, value: f64, opponent_rated: bool, g: &Rated) -> f64 {
    let value = if own != 0.0 && opponent_rated { value.clamp(own - 40.0, own + 40.0) } else { value };
    value + 50.0 * (g.points[0] - g.points[1]).signum() as f64
}

/// One player's estimate over their games, each opponent at `value` (0: not counted), floored
/// and rounded.
fn estimate(rating: &[f64], p: usize, games: &[Rated], value: impl Fn(usize) -> f64) -> f64 {
    let own = rating[p];
    let (mut sum, mut counted) = (0.0, 0usize);
    for g in games {
        let opponent = value(g.opponent);
        if opponent == 0.0 {
            continue;
        }
        sum += worth(own, opponent, rating[g.opponent] != 0.0, g);
        counted += 1;
    }
    let mean = if counted == 0 { own } else { sum / counted as f64 };
    round_rating(mean.max(if own != 0.0 { FLOOR_RATED } else { FLOOR_NEWCOMER }))
}

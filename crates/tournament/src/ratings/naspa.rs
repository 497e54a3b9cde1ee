//! NASPA's ratings as TSH's `Ratings::Elo` computes them (profiles `nsa2008`, `naspa2024` and
//! `nsa2008 lct`): the event cut into segments, each rated from the last one's ratings:
//! newcomers first (their performance, iterated), then rated players (multiplier × wins over
//! expectation, with band crossing), acceleration and its feedback, the floor, rounding.

use super::{Rated, RatingSystem, expectation, rated_games, round_rating};
use crate::division::Division;

/// TSH's assumption for a rated player whose lifetime games are not known.
const UNKNOWN_LIFETIME_GAMES: u32 = 100;
/// Passes of the newcomers' search before TSH gives up waiting for it to settle.
const PASSES: usize = 50;

/// The rules a profile changes.
struct Profile {
    acceleration: bool,
    club: bool,
    floor: Option<f64>,
    /// Lifetime games counted on at each segment (naspa2024).
    lifetime_per_segment: bool,
}

impl Profile {
    fn of(system: RatingSystem) -> Profile {
        match system {
            RatingSystem::Naspa2024 => {
                Profile { acceleration: true, club: false, floor: None, lifetime_per_segment: true }
            }
            RatingSystem::NaspaClub => {
                Profile { acceleration: false, club: true, floor: Some(1.0), lifetime_per_segment: false }
            }
            _ => Profile { acceleration: true, club: false, floor: Some(1.0), lifetime_per_segment: false },
        }
    }
}

/// The segments of an event of `rounds` rounds, as 0-based inclusive round ranges: one under 17
/// rounds, two under 36, else three (TSH's `MakeSplits`).
pub(crate) fn segments(rounds: usize) -> Vec<(usize, usize)> {
    let last = rounds.saturating_sub(1);
    if last < 16 {
        vec![(0, last)]
    } else if last < 35 {
        let s1 = last / 2;
        vec![(0, s1), (s1 + 1, last)]
    } else {
        let (s1, s2) = (last / 3, (2 * last + 1) / 3);
        vec![(0, s1), (s1 + 1, s2), (s2 + 1, last)]
    }
}

/// The multiplier of a player with `games` lifetime games rated `rating`.
fn multiplier(games: u32, rating: f64) -> f64 {
    let band = if rating < 1800.0 {
        0
    } else if rating < 2000.0 {
        1
    } else {
        2
    };
    if games < 50 { [30.0, 24.0, 15.0][band] } else { [20.0, 16.0, 10.0][band] }
}

/// A rating after `excess` wins over expectation: each band's part at its own multiplier.
fn convert_excess(start: f64, mut excess: f64, games: u32) -> f64 {
    let mut rating = start;
    while excess != 0.0 {
        let m = multiplier(games, rating);
        let moved = rating + m * excess;
        if multiplier(games, moved) == m {
            return moved;
        }
        let boundary = if rating < 1800.0 {
            1800.0
        } else if rating < 2000.0 {
            if excess > 0.0 { 2000.0 } else { 1799.0 }
        } else {
            1999.0
        };
        excess -= (boundary - rating) / m;
        rating = boundary;
    }
    rating
}

/// The wins a newcomer's search aims at: a zero counts as 5% of the games, a sweep as 95%.
pub(crate) fn target_wins(wins: f64, games: usize) -> f64 {
    let games = games as f64;
    if wins == 0.0 {
        games * 0.05
    } else if wins == games {
        games * 0.95
    } else {
        wins
    }
}

/// TSH's integer bisection over 0..3000 for where `f` turns non-negative: the last midpoint
/// evaluated.
pub(crate) fn search(f: impl Fn(f64) -> f64) -> i32 {
    let (mut low, mut high, mut mid) = (0, 3000, 0);
    while high - low > 1 {
        mid = (low + high) / 2;
        if f(f64::from(mid)) < 0.0 {
            low = mid;
        } else {
            high = mid;
        }
    }
    mid
}

pub(super) fn estimates(division: &Division, system: RatingSystem, through: usize) -> Vec<Option<i32>> {
    let profile = Profile::of(system);
    let games = rated_games(division, through);
    // Ratings going into the segment (0: unrated).
    let mut rating = super::ratings_going_in(division);
    let mut lifetime: Vec<u32> = division
        .players
        .iter()
        .map(|p| p.lifetime_games.unwrap_or(if p.rating.is_none() { 0 } else { UNKNOWN_LIFETIME_GAMES }))
        .collect();
    for (lo, hi) in segments(division.rounds.len()) {
        if lo >= through {
            break;
        }
        let segment: Vec<Vec<Rated>> = games
            .iter()
            .map(|g| g.iter().filter(|r| (lo..=hi).contains(&r.round)).copied().collect())
            .collect();
        rating = rate_segment(&profile, &rating, &lifetime, &segment);
        if profile.lifetime_per_segment {
            lifetime.iter_mut().zip(&segment).for_each(|(l, g)| *l += g.len() as u32);
        }
    }
    rating.into_iter().map(|r| (r != 0.0).then_some(r as i32)).collect()
}

/// One segment: the ratings coming out of it (rounded), from those going in.
fn rate_segment(profile: &Profile, old: &[f64], lifetime: &[u32], games: &[Vec<Rated>]) -> Vec<f64> {
    // Each player's rating in the expectations: a newcomer's unrounded estimate.
    let effective = rate_newcomers(old, games);
    let mut new = effective.clone();
    let mut feedback = vec![0.0; old.len()];
    for p in (0..old.len()).filter(|&p| old[p] != 0.0) {
        let wins: f64 = games[p].iter().map(|g| g.score).sum();
        let expected: f64 = games[p].iter().map(|g| expectation(effective[p], effective[g.opponent])).sum();
        let moved = convert_excess(old[p], wins - expected, lifetime[p]);
        new[p] = if profile.club { old[p] + (moved - old[p]) / 3.0 } else { moved };
        let acceleration = new[p] - old[p] - 5.0 * games[p].len() as f64;
        if profile.acceleration && acceleration > 0.0 {
            new[p] += acceleration;
            for g in games[p].iter().filter(|g| old[g.opponent] != 0.0) {
                feedback[g.opponent] += acceleration / 20.0;
            }
        }
    }
    for p in (0..old.len()).filter(|&p| old[p] != 0.0) {
        if let Some(floor) = profile.floor {
            new[p] = new[p].max(floor);
        }
    }
    for p in 0..old.len() {
        new[p] = round_rating(new[p] + feedback[p]);
        if profile.club && old[p] != 0.0 {
            new[p] = new[p].clamp(old[p] - 50.0, old[p] + 50.0);
        }
    }
    new
}

/// The ratings every player meets in the segment: the rated at their rating, each newcomer with
/// a rated game at their iterated performance (unrounded), the rest unrated (0).
fn rate_newcomers(old: &[f64], games: &[Vec<Rated>]) -> Vec<f64> {
    let newcomers: Vec<usize> = (0..old.len()).filter(|&p| old[p] == 0.0 && !games[p].is_empty()).collect();
    let mut current = old.to_vec();
    for &p in &newcomers {
        let rated: Vec<f64> = games[p].iter().map(|g| old[g.opponent]).filter(|&r| r != 0.0).collect();
        current[p] = if rated.is_empty() { 1500.0 } else { rated.iter().sum::<f64>() / rated.len() as f64 };
    }
    let mut passes = Passes::new(&newcomers, old, games);
    for _ in 0..PASSES {
        let next = passes.next(&current, true);
        let changed = passes.moved(&mut current, &next);
        if !changed {
            return current;
        }
    }
    // Unsettled after 50 passes: 50 more, and each newcomer's mean over them.
    passes.forget();
    let mut sums = vec![0.0; newcomers.len()];
    for _ in 0..PASSES {
        let next = passes.next(&current, false);
        sums.iter_mut().zip(&next).for_each(|(s, r)| *s += r);
        passes.moved(&mut current, &next);
    }
    newcomers.iter().zip(&sums).for_each(|(&p, s)| current[p] = s / PASSES as f64);
    current
}

/// The newcomers' passes. A newcomer's value in a pass is a function of the values of the
/// newcomers they met (the rated ones' are fixed), so it is computed again only when one of those
/// moved in the pass before: the same figures as computing every newcomer every pass, without
/// the bisections of the ones that settled (a field of many newcomers where two never settle
/// runs all hundred passes).
struct Passes<'a> {
    newcomers: &'a [usize],
    old: &'a [f64],
    games: &'a [Vec<Rated>],
    /// Each newcomer's newcomer opponents, by their place in `newcomers`.
    met: Vec<Vec<usize>>,
    /// Each newcomer's value as last computed, while it holds.
    kept: Vec<Option<f64>>,
    /// Whose value moved in the last pass.
    moved: Vec<bool>,
}

impl<'a> Passes<'a> {
    fn new(newcomers: &'a [usize], old: &'a [f64], games: &'a [Vec<Rated>]) -> Passes<'a> {
        let mut place = vec![usize::MAX; old.len()];
        newcomers.iter().enumerate().for_each(|(j, &p)| place[p] = j);
        let met = (newcomers.iter())
            .map(|&p| games[p].iter().map(|g| place[g.opponent]).filter(|&j| j != usize::MAX).collect())
            .collect();
        let n = newcomers.len();
        Passes { newcomers, old, games, met, kept: vec![None; n], moved: vec![true; n] }
    }

    /// Each newcomer's value in the next pass, from the current values.
    fn next(&mut self, current: &[f64], fallback_to_newcomers: bool) -> Vec<f64> {
        (0..self.newcomers.len())
            .map(|j| {
                let stale = self.met[j].iter().any(|&o| self.moved[o]);
                match self.kept[j] {
                    Some(value) if !stale => value,
                    _ => {
                        let p = self.newcomers[j];
                        let value =
                            newcomer_pass(p, self.old, current, &self.games[p], fallback_to_newcomers);
                        self.kept[j] = Some(value);
                        value
                    }
                }
            })
            .collect()
    }

    /// Move every newcomer to `next` at once; whether any moved.
    fn moved(&mut self, current: &mut [f64], next: &[f64]) -> bool {
        for (j, (&p, &r)) in self.newcomers.iter().zip(next).enumerate() {
            self.moved[j] = r != current[p];
            current[p] = r;
        }
        self.moved.contains(&true)
    }

    /// Compute every newcomer again in the next pass (the rule for the strongest opponent changes).
    fn forget(&mut self) {
        self.kept.iter_mut().for_each(|k| *k = None);
    }
}

/// One newcomer's value in a pass: the performance against the others' current values, at least
/// 500, at most the strongest opponent's rating + 400 × the win rate. The strongest is the best
/// rated opponent's rating going in, else (while settling, not in the 50 passes averaged, as TSH
/// does) the best newcomer opponent's current value.
fn newcomer_pass(
    p: usize,
    old: &[f64],
    current: &[f64],
    games: &[Rated],
    fallback_to_newcomers: bool,
) -> f64 {
    let wins: f64 = games.iter().map(|g| g.score).sum();
    let target = target_wins(wins, games.len());
    let found = search(|r| games.iter().map(|g| expectation(r, current[g.opponent])).sum::<f64>() - target);
    let mut r = f64::from(found.max(500));
    let best_rated = games.iter().map(|g| old[g.opponent]).fold(0.0, f64::max);
    let best_newcomer = games
        .iter()
        .filter(|g| old[g.opponent] == 0.0 && g.opponent != p)
        .map(|g| current[g.opponent])
        .fold(0.0, f64::max);
    let best = if best_rated > 0.0 || !fallback_to_newcomers { best_rated } else { best_newcomer };
    if best > 0.0 {
        r = r.min(best + 400.0 * wins / games.len() as f64);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The newcomers' passes as TSH runs them, every newcomer computed every pass.
    fn every_newcomer_every_pass(old: &[f64], games: &[Vec<Rated>]) -> Vec<f64> {
        let newcomers: Vec<usize> =
            (0..old.len()).filter(|&p| old[p] == 0.0 && !games[p].is_empty()).collect();
        let mut current = old.to_vec();
        for &p in &newcomers {
            let rated: Vec<f64> = games[p].iter().map(|g| old[g.opponent]).filter(|&r| r != 0.0).collect();
            current[p] =
                if rated.is_empty() { 1500.0 } else { rated.iter().sum::<f64>() / rated.len() as f64 };
        }
        let pass = |current: &[f64], fallback: bool| -> Vec<f64> {
            newcomers.iter().map(|&p| newcomer_pass(p, old, current, &games[p], fallback)).collect()
        };
        for _ in 0..PASSES {
            let next = pass(&current, true);
            let changed = newcomers.iter().zip(&next).any(|(&p, &r)| r != current[p]);
            newcomers.iter().zip(&next).for_each(|(&p, &r)| current[p] = r);
            if !changed {
                return current;
            }
        }
        let mut sums = vec![0.0; newcomers.len()];
        for _ in 0..PASSES {
            let next = pass(&current, false);
            sums.iter_mut().zip(&next).for_each(|(s, r)| *s += r);
            newcomers.iter().zip(&next).for_each(|(&p, &r)| current[p] = r);
        }
        newcomers.iter().zip(&sums).for_each(|(&p, s)| current[p] = s / PASSES as f64);
        current
    }

    proptest! {
        /// Computing a newcomer again only when a newcomer they met moved gives the very figures
        /// of computing every one every pass, in fields of mostly newcomers.
        #[test]
        fn passes_that_skip_the_settled_agree_with_passes_that_do_not(
            ratings in prop::collection::vec(prop_oneof![3 => Just(0.0f64), 1 => 600.0f64..2200.0], 2..14),
            meetings in prop::collection::vec((0usize..14, 0usize..14, 0u8..3), 1..60),
        ) {
            let n = ratings.len();
            let old: Vec<f64> = ratings.iter().map(|r| r.round()).collect();
            let mut games = vec![Vec::new(); n];
            for (round, &(a, b, result)) in meetings.iter().enumerate() {
                let (a, b) = (a % n, b % n);
                if a == b {
                    continue;
                }
                let score = f64::from(result) / 2.0;
                games[a].push(Rated { round, opponent: b, score, points: [1, 1] });
                games[b].push(Rated { round, opponent: a, score: 1.0 - score, points: [1, 1] });
            }
            let settled = rate_newcomers(&old, &games);
            prop_assert_eq!(settled, every_newcomer_every_pass(&old, &games));
        }
    }
}

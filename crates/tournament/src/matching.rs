//! Swiss pairing as a minimum-cost perfect matching (the blossom algorithm, from the
//! `integer-blossom` crate), with the cost liwords' `weighSwiss` weighs by, made lexicographic:
//! first the repeats (so none is made that can be avoided), then the squared difference in win
//! points (so players meet their own score group, or the next), then the largest spread
//! difference; in a score group whose spreads are all alike (round 1, say), the top half of the
//! group against its bottom half by rank: 1 v 5, 2 v 6, … in a group of eight, never 1 v 2.
//!
//! The algorithm is O(n³) in time and O(n²) in memory; a division larger than [`SWISS_BLOCK`]
//! is matched in contiguous blocks of the standings, cut between score groups where it can be.

use crate::PlayerId;
use crate::standings::Standings;

/// Players matched at once at most (a block: about 0.1 s of the 1 s a 1,000-player round may
/// take; BENCHMARKS.md).
pub const SWISS_BLOCK: usize = 500;

/// Spread differences above this weigh alike.
const SPREAD_MAX: i128 = 10_000;

/// The pairs of `0..n` (n even) of least total `cost(a, b)` (a < b; costs ≥ 0).
pub fn min_cost_pairs(n: usize, cost: impl Fn(usize, usize) -> i128) -> Vec<(usize, usize)> {
    assert!(n.is_multiple_of(2), "a perfect matching pairs an even count");
    let mut max = 0;
    for a in 0..n {
        for b in a + 1..n {
            max = max.max(cost(a, b));
        }
    }
    // i64 when the costs leave the solver its headroom (its infinity is MAX / 4), else i128.
    let mates = if max < i128::from(i64::MAX / 64) {
        let mut m = vec![0i64; n * n];
        fill(&mut m, n, |a, b| cost(a, b) as i64);
        integer_blossom::min_weight_perfect_matching(&m, n)
    } else {
        let mut m = vec![0i128; n * n];
        fill(&mut m, n, &cost);
        integer_blossom::min_weight_perfect_matching(&m, n)
    };
    (0..n).filter(|&a| a < mates[a]).map(|a| (a, mates[a])).collect()
}

fn fill<W: Copy>(m: &mut [W], n: usize, cost: impl Fn(usize, usize) -> W) {
    for a in 0..n {
        for b in a + 1..n {
            m[a * n + b] = cost(a, b);
        }
    }
}

/// Pair `players` (an even count, best ranked first) Swiss-fashion by `standings`.
pub(crate) fn swiss(players: &[PlayerId], standings: &Standings) -> Vec<(PlayerId, PlayerId)> {
    let mut pairs = Vec::with_capacity(players.len() / 2);
    for block in blocks(players, standings) {
        pairs.extend(swiss_block(block, standings));
    }
    pairs
}

/// Contiguous blocks of at most [`SWISS_BLOCK`] (even) players, cut between score groups where
/// one falls in the block's second half, else inside a group.
fn blocks<'a>(players: &'a [PlayerId], standings: &Standings) -> Vec<&'a [PlayerId]> {
    let points = |i: usize| standings.record(players[i]).win_points;
    let mut blocks = Vec::new();
    let mut start = 0;
    while players.len() - start > SWISS_BLOCK {
        let end = start + SWISS_BLOCK;
        let cut = (start + SWISS_BLOCK / 2..=end)
            .rev()
            .find(|&c| (c - start).is_multiple_of(2) && points(c - 1) != points(c))
            .unwrap_or(end);
        blocks.push(&players[start..cut]);
        start = cut;
    }
    blocks.push(&players[start..]);
    blocks
}

fn swiss_block(players: &[PlayerId], standings: &Standings) -> Vec<(PlayerId, PlayerId)> {
    let n = players.len();
    let rec = |i: usize| standings.record(players[i]);
    let points: Vec<i128> = (0..n).map(|i| i128::from(rec(i).win_points)).collect();
    let spread: Vec<i128> = (0..n).map(|i| i128::from(rec(i).spread)).collect();
    // Each player's score group (players are ranked: a group is a run of equal points) as its
    // first index and its size, when every spread in it is the same (round 1, say): there the
    // spread term cannot tell pairs apart, and the top half meets the bottom half by rank.
    let mut alike = vec![None; n];
    let mut start = 0;
    for i in 1..=n {
        if i == n || points[i] != points[start] {
            if spread[start..i].iter().all(|&s| s == spread[start]) {
                alike[start..i].fill(Some((start, i - start)));
            }
            start = i;
        }
    }
    let (lo, hi) = (points.iter().min().copied().unwrap_or(0), points.iter().max().copied().unwrap_or(0));
    // Each term outweighs every smaller term summed over the block's n / 2 pairs (the halves
    // term only varies inside a group of alike spreads, where the spread term does not).
    let per_pair = SPREAD_MAX + n as i128 / 2 + 1;
    let win_unit = (n as i128 / 2 + 1) * per_pair;
    let repeat_unit = (n as i128 / 2 + 1) * ((hi - lo) * (hi - lo) * win_unit + per_pair);
    let cost = |a: usize, b: usize| {
        let repeats = standings.meetings(players[a], players[b]) as i128;
        let wins = points[a] - points[b];
        let spread = (spread[a] - spread[b]).abs().min(SPREAD_MAX);
        // How far the pair is from "a v a + half the group", inside a group of alike spreads.
        let halves = match (alike[a], alike[b]) {
            (Some((first, size)), Some((other, _))) if first == other => {
                ((b - a) as i128 - (size / 2) as i128).abs()
            }
            _ => 0,
        };
        repeats * repeat_unit + wins * wins * win_unit + (SPREAD_MAX - spread) + halves
    };
    min_cost_pairs(n, cost).into_iter().map(|(a, b)| (players[a], players[b])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every perfect matching's least cost, by trying them all.
    fn brute(n: usize, cost: &dyn Fn(usize, usize) -> i128) -> i128 {
        fn go(free: &mut Vec<usize>, cost: &dyn Fn(usize, usize) -> i128) -> i128 {
            if free.is_empty() {
                return 0;
            }
            let a = free.remove(0);
            let mut best = i128::MAX;
            for k in 0..free.len() {
                let b = free.remove(k);
                best = best.min(cost(a, b) + go(free, cost));
                free.insert(k, b);
            }
            free.insert(0, a);
            best
        }
        go(&mut (0..n).collect(), cost)
    }

    proptest! {
        #[test]
        fn the_matching_costs_what_the_best_of_all_matchings_costs(
            half in 1usize..6,
            costs in proptest::collection::vec(0i128..1_000, 121),
            wide in any::<bool>(),
        ) {
            let n = half * 2;
            // Wide costs take the i128 path.
            let scale = if wide { 1i128 << 70 } else { 1 };
            let cost = |a: usize, b: usize| costs[a * 11 + b] * scale;
            let pairs = min_cost_pairs(n, cost);
            let mut seen = vec![0; n];
            for &(a, b) in &pairs {
                seen[a] += 1;
                seen[b] += 1;
            }
            prop_assert!(seen.iter().all(|&s| s == 1), "a perfect matching: {pairs:?}");
            let total: i128 = pairs.iter().map(|&(a, b)| cost(a, b)).sum();
            prop_assert_eq!(total, brute(n, &cost));
        }
    }
}

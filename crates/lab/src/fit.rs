//! Fitting the tables the engine plays by, from what self-play measured: the leave values
//! (`dawgref::leaves`, an additive part by ridge least squares plus the shrunk residuals of the
//! leaves seen often) and the win-probability bands (`dawgref::winprob`, by maximum
//! likelihood). Training only: the engine reads tables and never fits one.

use dawgref::alphabet::{Alphabet, Letter};
use dawgref::leaves::{BLANK, COPIES, LeaveTable, MAX_LISTED, MAX_TILES, codes};
use dawgref::winprob::{BAND, BANDS, WinTable, normal_cdf};
use std::collections::{BTreeMap, HashMap};

/// How a fit lists leaves beyond the additive part: which it lists, and what a leave's own mean
/// is shrunk towards. The default is how the shipped tables were made.
#[derive(Clone, Copy, Debug)]
pub struct Listing {
    /// Samples a leave needs before it is listed.
    pub min_samples: u32,
    pub prior: Prior,
}

impl Default for Listing {
    fn default() -> Listing {
        Listing { min_samples: 8, prior: Prior::Additive }
    }
}

/// What a listed leave's residual over the additive part is shrunk towards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Prior {
    /// Zero: the leave is the additive part plus its own mean residual, shrunk.
    Additive,
    /// What its sub-leaves say (see [`shrunk_residuals`]).
    SubLeaves,
}

/// The residual's shrinkage: a leave seen `n` times keeps `n / (n + SHRINK)` of its own mean.
const SHRINK: f64 = 20.0;
/// Ridge penalty of the additive fit, per unit of sample weight.
const RIDGE: f64 = 1.0;

/// One paired observation: in position `group`, the leave's mean equity on its holder's next
/// turn (over the group's shared draws).
#[derive(Clone, Copy, Debug)]
pub struct PairedObservation {
    pub group: u32,
    pub leave: u64,
    pub value: f32,
}

/// One win-probability observation: the side to move's lead, the tiles left, and how the game
/// ended for it (1 won, ½ tied, 0 lost).
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub spread: i32,
    pub tiles_left: usize,
    pub outcome: f32,
}

/// Fit a table to paired observations: in each group (one position), several leaves valued
/// on the same board with the same draws. A leave's value is what it adds to its group's
/// mean, so whatever makes a position rich or poor cancels out: each round takes each
/// group's level as its mean less the table's values, and fits the table to the rest.
pub fn leaves_paired(
    alphabet: Alphabet,
    observations: &[PairedObservation],
    rounds: usize,
    listing: Listing,
) -> LeaveTable {
    let groups = observations.iter().map(|o| o.group as usize + 1).max().unwrap_or(0);
    let leaves: Vec<u64> = observations.iter().map(|o| o.leave).collect();
    let mut table: Option<LeaveTable> = None;
    for _ in 0..rounds.max(1) {
        let own = |k: u64| table.as_ref().map_or(0.0, |t| t.value_of_key(k) as f64);
        let mut level = vec![(0.0f64, 0u32); groups];
        for o in observations {
            let g = &mut level[o.group as usize];
            g.0 += o.value as f64 - own(o.leave);
            g.1 += 1;
        }
        let targets: Vec<f64> = observations
            .iter()
            .map(|o| {
                let (sum, n) = level[o.group as usize];
                o.value as f64 - sum / n.max(1) as f64
            })
            .collect();
        table = Some(fit_once(alphabet, &leaves, &targets, listing));
    }
    table.unwrap_or_else(|| fit_once(alphabet, &[], &[], listing))
}

/// The additive features of a leave: (copy feature indexes, balance feature index).
fn features(alphabet: Alphabet, k: u64, out: &mut Vec<usize>) {
    out.clear();
    let (mut vowels, mut consonants) = (0, 0);
    let mut last = (0, 0);
    for c in codes(k) {
        let copy = if c == last.0 { last.1 + 1 } else { 0 };
        last = (c, copy);
        out.push(c * COPIES + copy.min(COPIES - 1));
        if c != BLANK {
            if alphabet.is_vowel((c - 1) as Letter) {
                vowels += 1;
            } else {
                consonants += 1;
            }
        }
    }
    out.push(64 * COPIES + vowels.min(MAX_TILES) * (MAX_TILES + 1) + consonants.min(MAX_TILES));
}

/// One least-squares fit of the additive part, then the listed leaves' shrunk residuals.
fn fit_once(alphabet: Alphabet, leaves: &[u64], targets: &[f64], listing: Listing) -> LeaveTable {
    const N: usize = 64 * COPIES + (MAX_TILES + 1) * (MAX_TILES + 1);
    // Normal equations (XᵀX + λ·n·I) w = Xᵀy over the features used, dense: a few hundred.
    let mut xtx = vec![0.0f64; N * N];
    let mut xty = vec![0.0f64; N];
    let mut f = Vec::new();
    for (&leave, y) in leaves.iter().zip(targets) {
        features(alphabet, leave, &mut f);
        for &a in &f {
            xty[a] += y;
            for &b in &f {
                xtx[a * N + b] += 1.0;
            }
        }
    }
    let used: Vec<usize> = (0..N).filter(|&a| xtx[a * N + a] > 0.0).collect();
    let m = used.len();
    let mut a = vec![0.0f64; m * (m + 1)];
    for (i, &p) in used.iter().enumerate() {
        for (j, &q) in used.iter().enumerate() {
            a[i * (m + 1) + j] = xtx[p * N + q];
        }
        a[i * (m + 1) + i] += RIDGE * (1.0 + xtx[p * N + p]).sqrt();
        a[i * (m + 1) + m] = xty[p];
    }
    let w = solve(&mut a, m);
    let mut weights = [0.0f64; N];
    for (i, &p) in used.iter().enumerate() {
        weights[p] = w[i];
    }
    let mut copies = [[0.0f32; COPIES]; 64];
    for (c, row) in copies.iter_mut().enumerate() {
        for (k, v) in row.iter_mut().enumerate() {
            *v = weights[c * COPIES + k] as f32;
        }
    }
    let mut balance = [[0.0f32; MAX_TILES + 1]; MAX_TILES + 1];
    for (v, row) in balance.iter_mut().enumerate() {
        for (c, x) in row.iter_mut().enumerate() {
            *x = weights[64 * COPIES + v * (MAX_TILES + 1) + c] as f32;
        }
    }
    let additive = LeaveTable::from_parts(alphabet, copies, balance, []);
    // Residuals per leave: each sum is taken in sample order, so the same samples give the
    // same table.
    let mut residual: BTreeMap<u64, (f64, u32)> = BTreeMap::new();
    for (&leave, y) in leaves.iter().zip(targets) {
        if codes(leave).count() > MAX_LISTED {
            continue;
        }
        let e = residual.entry(leave).or_insert((0.0, 0));
        e.0 += y - additive.value_of_key(leave) as f64;
        e.1 += 1;
    }
    let shrunk = shrunk_residuals(&residual, listing.prior);
    let listed = residual
        .iter()
        .filter(|&(_, &(_, n))| n >= listing.min_samples)
        .map(|(&k, _)| (k, (additive.value_of_key(k) as f64 + shrunk[&k]) as f32));
    LeaveTable::from_parts(alphabet, copies, balance, listed)
}

/// Each observed leave's residual over the additive part, shrunk by its sample count towards
/// zero, or (`Prior::SubLeaves`) towards what its sub-leaves say: the residuals of the leaves
/// one tile smaller, summed and divided by `tiles − 2`, which is exactly the leave's residual
/// where residuals are sums over its pairs of tiles (a synergy such as QU's, carried into QUE
/// and QUEST). A leave of one or two tiles is
/// shrunk towards zero. Few leaves of five or six tiles are seen often, and their own means are
/// mostly noise; their smaller parts are seen far more often.
fn shrunk_residuals(residual: &BTreeMap<u64, (f64, u32)>, prior: Prior) -> HashMap<u64, f64> {
    let mut by_size: Vec<u64> = residual.keys().copied().collect();
    by_size.sort_by_key(|&k| (codes(k).count(), k));
    let mut shrunk: HashMap<u64, f64> = HashMap::with_capacity(by_size.len());
    for k in by_size {
        let prior = match prior {
            Prior::Additive => 0.0,
            Prior::SubLeaves => prior_of(k, &mut shrunk),
        };
        let (sum, n) = residual[&k];
        shrunk.insert(k, prior + (sum - n as f64 * prior) / (n as f64 + SHRINK));
    }
    shrunk
}

/// The residual a leave's sub-leaves predict for it (see [`shrunk_residuals`]). `known` holds
/// the smaller leaves' residuals; a sub-leave not seen has the residual its own sub-leaves
/// predict, kept there once worked out.
fn prior_of(k: u64, known: &mut HashMap<u64, f64>) -> f64 {
    let tiles = codes(k).count();
    if tiles < 3 {
        return 0.0;
    }
    let mut sum = 0.0;
    for i in 0..tiles {
        let sub = without(k, i);
        sum += match known.get(&sub) {
            Some(v) => *v,
            None => {
                let v = prior_of(sub, known);
                known.insert(sub, v);
                v
            }
        };
    }
    sum / (tiles - 2) as f64
}

/// The key of leave `k` without its `i`-th tile (keys list their tiles in ascending order, six
/// bits each, so the rest stays in order).
fn without(k: u64, i: usize) -> u64 {
    let low = k & ((1u64 << (6 * i)) - 1);
    let high = k >> (6 * (i + 1));
    low | high << (6 * i)
}

/// Solve the `m`×`m` system in `a` (rows of `m + 1`, the right-hand side last) by Gaussian
/// elimination with partial pivoting; it is symmetric positive definite (ridge), so well posed.
fn solve(a: &mut [f64], m: usize) -> Vec<f64> {
    let w = m + 1;
    for col in 0..m {
        let pivot =
            (col..m).max_by(|&i, &j| a[i * w + col].abs().total_cmp(&a[j * w + col].abs())).unwrap_or(col);
        if pivot != col {
            for k in 0..w {
                a.swap(col * w + k, pivot * w + k);
            }
        }
        let d = a[col * w + col];
        if d.abs() < 1e-12 {
            continue;
        }
        for row in col + 1..m {
            let factor = a[row * w + col] / d;
            if factor != 0.0 {
                for k in col..w {
                    a[row * w + k] -= factor * a[col * w + k];
                }
            }
        }
    }
    let mut x = vec![0.0; m];
    for row in (0..m).rev() {
        let mut s = a[row * w + m];
        for k in row + 1..m {
            s -= a[row * w + k] * x[k];
        }
        let d = a[row * w + row];
        x[row] = if d.abs() < 1e-12 { 0.0 } else { s / d };
    }
    x
}

/// The mean log loss (in nats) of `table`'s win probabilities against how the games went, over
/// the positions with tiles still to play (with none the outcome is known): lower is better.
pub fn log_loss(table: &WinTable, samples: &[Sample]) -> f64 {
    let judged: Vec<&Sample> = samples.iter().filter(|s| s.tiles_left > 0).collect();
    let total: f64 = judged
        .iter()
        .map(|s| {
            let p = table.probability(f64::from(s.spread), s.tiles_left).clamp(1e-9, 1.0 - 1e-9);
            let o = f64::from(s.outcome);
            -(o * p.ln() + (1.0 - o) * (1.0 - p).ln())
        })
        .sum();
    total / judged.len().max(1) as f64
}

/// Fit every band to `samples` by maximum likelihood (a grid search over sigma and bias);
/// a band with too few samples takes its neighbour's figures.
pub fn winprob(samples: &[Sample]) -> WinTable {
    let (mut sigmas, mut biases) = ([0.0f32; BANDS], [0.0f32; BANDS]);
    let mut fitted = [false; BANDS];
    for (band, done) in fitted.iter_mut().enumerate() {
        let mine: Vec<&Sample> = samples
            .iter()
            .filter(|s| s.tiles_left > 0 && (s.tiles_left / BAND).min(BANDS - 1) == band)
            .collect();
        // Too few positions away from a level score (the first turn's band is all 0 to 0)
        // say nothing about how far the spread can still move.
        let varied = mine.iter().filter(|s| s.spread.abs() >= 10).count();
        if varied < 50 {
            continue;
        }
        let log_likelihood = |sigma: f64, bias: f64| -> f64 {
            mine.iter()
                .map(|s| {
                    let p = normal_cdf((f64::from(s.spread) + bias) / sigma).clamp(1e-9, 1.0 - 1e-9);
                    let o = f64::from(s.outcome);
                    o * p.ln() + (1.0 - o) * (1.0 - p).ln()
                })
                .sum()
        };
        // Coarse, then fine around the coarse best.
        let mut best = (f64::NEG_INFINITY, 30.0, 0.0);
        for sigma in (1..=80).map(|k| f64::from(k) * 2.0) {
            for bias in (-20..=40).map(f64::from) {
                let ll = log_likelihood(sigma, bias);
                if ll > best.0 {
                    best = (ll, sigma, bias);
                }
            }
        }
        let (_, coarse_sigma, coarse_bias) = best;
        for ds in -8..=8 {
            for db in -4..=4 {
                let (sigma, bias) = (coarse_sigma + f64::from(ds) * 0.25, coarse_bias + f64::from(db) * 0.25);
                if sigma <= 0.0 {
                    continue;
                }
                let ll = log_likelihood(sigma, bias);
                if ll > best.0 {
                    best = (ll, sigma, bias);
                }
            }
        }
        sigmas[band] = best.1 as f32;
        biases[band] = best.2 as f32;
        *done = true;
    }
    // Bands nobody reached borrow from the nearest fitted band below, then above.
    for band in 0..BANDS {
        if fitted[band] {
            continue;
        }
        let near = (0..band).rev().find(|&b| fitted[b]).or_else(|| (band..BANDS).find(|&b| fitted[b]));
        let (s, b) = near.map_or((6.5 * ((band * BAND + 2) as f32).sqrt(), 0.0), |b| (sigmas[b], biases[b]));
        sigmas[band] = s;
        biases[band] = b;
    }
    WinTable::from_bands(sigmas, biases)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dawgref::leaves::key;
    use dawgref::rack::Rack;

    fn rack(text: &str) -> Rack {
        Rack::parse(text, Alphabet::english()).unwrap()
    }

    #[test]
    fn a_paired_fit_recovers_an_additive_truth_whatever_the_positions_are_worth() {
        // Truth: S is worth 8, Q −7, every other tile 0; positions differ by up to 90 points.
        let truth = |k: u64| {
            codes(k)
                .map(|c| {
                    if c == 19 {
                        8.0
                    } else if c == 17 {
                        -7.0
                    } else {
                        0.0
                    }
                })
                .sum::<f32>()
        };
        let leaves = ["S", "Q", "E", "SE", "QE", "SQ", "", "EE", "SS"].map(|t| key(&rack(t)).unwrap());
        let mut observations = Vec::new();
        for group in 0..300u32 {
            let level = (group * 37 % 90) as f32;
            // Rich positions see only some of the leaves: the fit must not credit them the
            // position's points.
            for (i, &k) in leaves.iter().enumerate() {
                if level > 45.0 && i % 2 == 0 {
                    continue;
                }
                observations.push(PairedObservation { group, leave: k, value: level + truth(k) });
            }
        }
        let t = leaves_paired(Alphabet::english(), &observations, 3, Listing::default());
        let v = |s: &str| t.value(&rack(s));
        assert!((v("S") - v("E") - 8.0).abs() < 0.5, "S over E: {}", v("S") - v("E"));
        assert!((v("Q") - v("E") + 7.0).abs() < 0.5, "Q under E: {}", v("Q") - v("E"));
        assert!((v("SQ") - v("") - 1.0).abs() < 0.5, "SQ over nothing: {}", v("SQ") - v(""));
        assert_eq!(t.listed(), leaves.len(), "every leave seen often is listed");
        // Text round trip.
        let back = LeaveTable::parse(&t.to_text(), Alphabet::english()).unwrap();
        assert!((back.value(&rack("SQ")) - t.value(&rack("SQ"))).abs() < 0.01);
        assert!((back.value(&rack("ZZ")) - t.value(&rack("ZZ"))).abs() < 0.01);
    }

    #[test]
    fn a_pair_seen_often_carries_its_synergy_into_a_leave_seen_seldom() {
        // Truth: a leave holding both Q and U is worth 10 more; nothing else is worth anything.
        // QU and its single tiles are seen in every position, QUE in two.
        let (q, u) = (17, 21);
        let truth = |k: u64| if codes(k).any(|c| c == q) && codes(k).any(|c| c == u) { 10.0 } else { 0.0 };
        let often =
            ["", "Q", "U", "E", "S", "T", "QU", "ES", "ST", "ET", "EST"].map(|t| key(&rack(t)).unwrap());
        let mut observations = Vec::new();
        for group in 0..400u32 {
            let level = (group * 37 % 90) as f32;
            let mut seen = often.to_vec();
            if group < 2 {
                seen.push(key(&rack("QUE")).unwrap());
            }
            observations.extend(seen.into_iter().map(|k| PairedObservation {
                group,
                leave: k,
                value: level + truth(k),
            }));
        }
        let synergy = |prior: Prior, leave: &str, rest: &str| {
            let t = leaves_paired(Alphabet::english(), &observations, 3, Listing { min_samples: 1, prior });
            (t.value(&rack(leave)) - t.value(&rack(rest))) - (t.value(&rack("QU")) - t.value(&rack("")))
        };
        // What QU adds on top of E is what it adds on its own: by its sub-leaves the seldom leave
        // has it; by its own two samples, shrunk towards the additive part (which took some of QU's
        // worth into Q's and U's), it has less.
        let by_sub_leaves = synergy(Prior::SubLeaves, "QUE", "E");
        let by_additive = synergy(Prior::Additive, "QUE", "E");
        assert!(by_sub_leaves.abs() < 0.5, "QUE by its sub-leaves: {by_sub_leaves}");
        assert!(by_additive < -1.5, "QUE by the additive part: {by_additive}");
    }

    #[test]
    fn a_leave_without_one_tile_keeps_the_others_in_order() {
        let k = key(&rack("AEQST?")).unwrap();
        let back = |k: u64| dawgref::leaves::rack_of(k).to_string(Alphabet::english());
        assert_eq!(
            (0..6).map(|i| back(without(k, i))).collect::<Vec<_>>(),
            ["EQST?", "AQST?", "AEST?", "AEQT?", "AEQS?", "AEQST"]
        );
    }

    #[test]
    fn a_fit_recovers_the_model_it_was_drawn_from() {
        // Outcomes drawn from sigma 40, bias 5 at 50 tiles left.
        let mut rng = dawgref::bag::SplitMix64::new(9);
        let samples: Vec<Sample> = (0..4000)
            .map(|_| {
                let spread = rng.below(201) as i32 - 100;
                let p = normal_cdf((f64::from(spread) + 5.0) / 40.0);
                let won = (rng.below(1_000_000) as f64) < p * 1_000_000.0;
                Sample { spread, tiles_left: 50, outcome: if won { 1.0 } else { 0.0 } }
            })
            .collect();
        let table = winprob(&samples);
        // The band of 50 tiles, read back through the table's text: `<tiles> <sigma> <bias>`.
        let line = table.to_text().lines().find(|l| l.starts_with("48 ")).unwrap().to_string();
        let figures: Vec<f32> = line.split_whitespace().skip(1).map(|x| x.parse().unwrap()).collect();
        assert!((figures[0] - 40.0).abs() < 6.0, "{line}");
        assert!((figures[1] - 5.0).abs() < 4.0, "{line}");
        assert_eq!(WinTable::parse(&table.to_text()).unwrap(), table);
    }
}

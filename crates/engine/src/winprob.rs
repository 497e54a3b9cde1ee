//! Win probability from a lead and the tiles still to be played, learned from self-play.
//!
//! The model: with `t` tiles left (in the bag and on both racks), the side to move wins a game
//! it leads by `s` points with probability Φ((s + bias[t]) / sigma[t]). `sigma` is how much the
//! rest of the game can still swing the spread; `bias` is what being the side to move is worth.
//! Both are fitted per band of four tiles by maximum likelihood on the outcomes of self-play
//! games (`dawgref train winprob`), and each ruleset ships its own table
//! (`crates/engine/data/winprob/<ruleset>.txt`, with the command that made it).
//! With no tile left the spread is final: 1, ½ or 0.

use crate::rules::RulesetKind;
use std::fmt::Write as _;
use std::sync::OnceLock;

/// Tiles per band of the table.
const BAND: usize = 4;
/// Bands: up to 143 tiles left, more than any ruleset's set (Эрудит has 131).
const BANDS: usize = 36;

/// The fitted model of one ruleset.
#[derive(Clone, Debug, PartialEq)]
pub struct WinTable {
    sigma: [f32; BANDS],
    bias: [f32; BANDS],
}

/// One observation: the side to move's lead, the tiles left, and how the game ended for it
/// (1 won, ½ tied, 0 lost).
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub spread: i32,
    pub tiles_left: usize,
    pub outcome: f32,
}

impl WinTable {
    /// The shipped table of a ruleset.
    pub fn shipped(kind: RulesetKind) -> &'static WinTable {
        static TABLES: OnceLock<[WinTable; 3]> = OnceLock::new();
        let tables = TABLES.get_or_init(|| {
            let parse = |text: &str| WinTable::parse(text).expect("the shipped win tables parse");
            [
                parse(include_str!("../data/winprob/english.txt")),
                parse(include_str!("../data/winprob/russian.txt")),
                parse(include_str!("../data/winprob/erudit.txt")),
            ]
        });
        match kind {
            RulesetKind::English => &tables[0],
            RulesetKind::Russian => &tables[1],
            RulesetKind::Erudit => &tables[2],
        }
    }

    /// The chance that the side to move, ahead by `spread`, wins with `tiles_left` tiles still
    /// to be played.
    pub fn probability(&self, spread: f64, tiles_left: usize) -> f64 {
        if tiles_left == 0 {
            return if spread > 0.0 {
                1.0
            } else if spread < 0.0 {
                0.0
            } else {
                0.5
            };
        }
        let band = (tiles_left / BAND).min(BANDS - 1);
        normal_cdf((spread + f64::from(self.bias[band])) / f64::from(self.sigma[band]))
    }

    /// Fit every band to `samples` by maximum likelihood (a grid search over sigma and bias);
    /// a band with too few samples takes its neighbour's figures.
    pub fn fit(samples: &[Sample]) -> WinTable {
        let mut table = WinTable { sigma: [0.0; BANDS], bias: [0.0; BANDS] };
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
                    let (sigma, bias) =
                        (coarse_sigma + f64::from(ds) * 0.25, coarse_bias + f64::from(db) * 0.25);
                    if sigma <= 0.0 {
                        continue;
                    }
                    let ll = log_likelihood(sigma, bias);
                    if ll > best.0 {
                        best = (ll, sigma, bias);
                    }
                }
            }
            table.sigma[band] = best.1 as f32;
            table.bias[band] = best.2 as f32;
            *done = true;
        }
        // Bands nobody reached borrow from the nearest fitted band below, then above.
        for band in 0..BANDS {
            if fitted[band] {
                continue;
            }
            let near = (0..band).rev().find(|&b| fitted[b]).or_else(|| (band..BANDS).find(|&b| fitted[b]));
            let (sigma, bias) = near
                .map_or((6.5 * ((band * BAND + 2) as f32).sqrt(), 0.0), |b| (table.sigma[b], table.bias[b]));
            table.sigma[band] = sigma;
            table.bias[band] = bias;
        }
        table
    }

    /// The table as text: a line per band, `<first tile count> <sigma> <bias>`.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for band in 0..BANDS {
            let _ = writeln!(out, "{} {:.1} {:.1}", band * BAND, self.sigma[band], self.bias[band]);
        }
        out
    }

    /// Read [`WinTable::to_text`]'s form; lines starting with `#` are comments.
    pub fn parse(text: &str) -> Result<WinTable, String> {
        let mut table = WinTable { sigma: [0.0; BANDS], bias: [0.0; BANDS] };
        let mut seen = 0;
        for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
        {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let bad = || format!("line {}: expected `<tiles> <sigma> <bias>`", n + 1);
            let [tiles, sigma, bias] = fields.as_slice() else { return Err(bad()) };
            let tiles: usize = tiles.parse().map_err(|_| bad())?;
            let sigma: f32 = sigma.parse().map_err(|_| bad())?;
            let bias: f32 = bias.parse().map_err(|_| bad())?;
            if !tiles.is_multiple_of(BAND)
                || tiles / BAND >= BANDS
                || sigma.is_nan()
                || sigma <= 0.0
                || !bias.is_finite()
            {
                return Err(bad());
            }
            table.sigma[tiles / BAND] = sigma;
            table.bias[tiles / BAND] = bias;
            seen += 1;
        }
        if seen != BANDS {
            return Err(format!("{seen} bands: a table has {BANDS}"));
        }
        Ok(table)
    }
}

/// Φ(x), by Abramowitz and Stegun 7.1.26 (error below 1.5e-7).
pub fn normal_cdf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs() / std::f64::consts::SQRT_2);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-(x * x) / 2.0).exp();
    if x >= 0.0 { 0.5 * (1.0 + erf) } else { 0.5 * (1.0 - erf) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fit_recovers_the_model_it_was_drawn_from() {
        // Outcomes drawn from sigma 40, bias 5 at 50 tiles left.
        let mut rng = crate::bag::SplitMix64::new(9);
        let samples: Vec<Sample> = (0..4000)
            .map(|_| {
                let spread = rng.below(201) as i32 - 100;
                let p = normal_cdf((f64::from(spread) + 5.0) / 40.0);
                let won = (rng.below(1_000_000) as f64) < p * 1_000_000.0;
                Sample { spread, tiles_left: 50, outcome: if won { 1.0 } else { 0.0 } }
            })
            .collect();
        let table = WinTable::fit(&samples);
        let band = 50 / BAND;
        assert!((table.sigma[band] - 40.0).abs() < 6.0, "{}", table.sigma[band]);
        assert!((table.bias[band] - 5.0).abs() < 4.0, "{}", table.bias[band]);
        assert_eq!(WinTable::parse(&table.to_text()).unwrap(), table);
    }

    #[test]
    fn shipped_tables_load_and_behave() {
        for kind in RulesetKind::ALL {
            let t = WinTable::shipped(kind);
            assert!(t.probability(30.0, 50) > t.probability(10.0, 50), "{kind:?}");
            assert!(
                t.probability(30.0, 10) > t.probability(30.0, 90),
                "{kind:?}: the same lead is safer late"
            );
            assert_eq!(t.probability(1.0, 0), 1.0);
            assert_eq!(t.probability(-1.0, 0), 0.0);
        }
    }
}

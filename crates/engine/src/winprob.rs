//! Win probability from a lead and the tiles still to be played, learned from self-play.
//!
//! The model: with `t` tiles left (in the bag and on both racks), the side to move wins a game
//! it leads by `s` points with probability Φ((s + bias[t]) / sigma[t]). `sigma` is how much the
//! rest of the game can still swing the spread; `bias` is what being the side to move is worth.
//! Both are fitted per band of four tiles by maximum likelihood on the outcomes of self-play
//! games (`dawgref-lab train winprob`, fitted in `crates/lab/src/fit.rs`), and each ruleset ships its own table
//! (`crates/engine/data/winprob/<ruleset>.txt`, with the command that made it).
//! With no tile left the spread is final: 1, ½ or 0.

use crate::rulebook::PerRuleset;
use crate::rules::RulesetKind;
use std::fmt::Write as _;

/// Tiles per band of the table.
pub const BAND: usize = 4;
/// Bands: up to 143 tiles left, more than any ruleset's set (Эрудит has 131).
pub const BANDS: usize = 36;

/// Each ruleset's table, made once ([`WinTable::shipped`]).
static TABLES: PerRuleset<WinTable> = PerRuleset::new();

/// The fitted model of one ruleset.
#[derive(Clone, Debug, PartialEq)]
pub struct WinTable {
    sigma: [f32; BANDS],
    bias: [f32; BANDS],
}

impl WinTable {
    /// The table a ruleset's file names (`winprob-file`); for a ruleset that names none,
    /// English's: the model is of a lead against the tiles still to be played, which depends
    /// little on the language (docs/rulesets.md). Made once a ruleset.
    pub fn shipped(kind: RulesetKind) -> &'static WinTable {
        // A table that does not parse is refused before its ruleset is registered (the shipped
        // ones by a test, a server's `--ruleset` at start); were it not, English's stands.
        TABLES.get(kind, || {
            match kind.definition().winprob.as_ref().and_then(|text| WinTable::parse(text).ok()) {
                Some(table) => table,
                // English's shipped file names its table (held by the test below).
                None if kind == RulesetKind::english() => {
                    panic!("English's shipped ruleset names no win table")
                }
                None => WinTable::shipped(RulesetKind::english()).clone(),
            }
        })
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

    /// A table from its bands' figures (how training builds one); every sigma must be positive.
    pub fn from_bands(sigma: [f32; BANDS], bias: [f32; BANDS]) -> WinTable {
        WinTable { sigma, bias }
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
    fn shipped_tables_load_and_behave() {
        // Every shipped ruleset names a table that parses (one that did not would read
        // English's without a word).
        for kind in RulesetKind::all().into_iter().filter(|k| k.definition().source == "shipped") {
            let text =
                kind.definition().winprob.as_deref().unwrap_or_else(|| panic!("{kind} names no table"));
            assert_eq!(WinTable::parse(text).as_ref(), Ok(WinTable::shipped(kind)), "{kind}");
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

//! What the lab's benches and training start from and sum up with, in one place: a shipped
//! ruleset with its default lexicon, and a percentile of sorted figures.

use clap::Args;
use dawgref::lexicon::Lexicon;
use dawgref::rules::{Ruleset, RulesetKind};
use std::sync::Arc;

/// A shipped ruleset and its default lexicon (compiled once, then read from the cache).
pub fn ruleset(kind: RulesetKind) -> Result<(Arc<Ruleset>, Arc<Lexicon>), Box<dyn std::error::Error>> {
    ruleset_with_words(kind, None)
}

pub use dawgref::console::ruleset_with_words;

/// The `p` quantile (0 to 1) of figures sorted ascending, by nearest rank; 0 for none.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[(((sorted.len() - 1) as f64) * p.clamp(0.0, 1.0)).round() as usize]
}

/// Which positions a bench measures: those of `positions` seeded games (seeds from `seed` on)
/// of a ruleset, each bench picking its own kind of position from each game.
#[derive(Args, Debug, Clone, Copy)]
pub struct Sample {
    #[arg(long, default_value_t = 100)]
    pub positions: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long, default_value = "english")]
    pub ruleset: RulesetKind,
}

/// `1h02m`, `3m10s`, `42s`.
pub fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
    }
}

/// The mean of `values` and its standard error (from the values' own spread).
pub fn mean_error(values: &[f64]) -> (f64, f64) {
    let n = values.len().max(1) as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, (variance / n).sqrt())
}

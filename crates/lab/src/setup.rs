//! What the lab's benches and training start from and sum up with, in one place: a shipped
//! ruleset with its default lexicon, and a percentile of sorted figures.

use clap::Args;
use dawgref::lexicon::{Lexicon, catalog};
use dawgref::rules::{Ruleset, RulesetKind};
use std::sync::Arc;

/// A shipped ruleset and its default lexicon (compiled once, then read from the cache).
pub fn ruleset(kind: RulesetKind) -> Result<(Arc<Ruleset>, Arc<Lexicon>), Box<dyn std::error::Error>> {
    ruleset_with_words(kind, None)
}

/// A ruleset with a word list compiled in its alphabet (`words`), else its default lexicon; a
/// ruleset that has none (Catalan, Polish …) needs the word list.
pub fn ruleset_with_words(
    kind: RulesetKind,
    words: Option<&std::path::Path>,
) -> Result<(Arc<Ruleset>, Arc<Lexicon>), Box<dyn std::error::Error>> {
    let rules = Arc::new(Ruleset::new(kind));
    let lexicon = match words {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let (text, _) = dawgref::lexicon::word_list_text(&bytes);
            let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("words");
            let (lexicon, report) = Lexicon::compile_up_to(name, &text, kind.alphabet(), rules.size())?;
            eprintln!("{}: {report}", path.display());
            lexicon
        }
        None if rules.default_lexicon.is_empty() => {
            return Err(format!("the {kind} ruleset has no lexicon of its own: give --words FILE").into());
        }
        None => catalog::resolve(rules.default_lexicon, None)?.lexicon,
    };
    Ok((rules, Arc::new(lexicon)))
}

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

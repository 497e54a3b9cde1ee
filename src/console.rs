//! What the long commands of both binaries (`dawgref match` and `analyze`, `dawgref-lab match`,
//! `train` and `bench`) share: a progress bar, and a match played with its timing reported.

use dawgref_engine::bot::Player;
use dawgref_engine::game::ChallengeRule;
use dawgref_engine::lexicon::{Lexicon, catalog};
use dawgref_engine::rules::{Ruleset, RulesetKind};
use dawgref_engine::selfplay::MatchResult;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use indicatif::ProgressBar;

/// A progress bar over `games` games on standard error, with the time left estimated from the
/// games played (drawn only on a terminal, so logs and tests see nothing of it).
pub fn games_bar(games: u64) -> indicatif::ProgressBar {
    progress_bar(games, "games")
}

/// A progress bar over `len` of `unit` (games, turns), as [`games_bar`].
pub fn progress_bar(len: u64, unit: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    let template = format!("{{msg}} {{wide_bar}} {{pos}}/{{len}} {unit}, {{elapsed}} gone, ~{{eta}} left");
    if let Ok(style) = indicatif::ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}

/// A match's options, the same on both binaries' `match`.
#[derive(clap::Args, Debug)]
pub struct MatchOptions {
    /// Games to play; A sits first in the even games, B in the odd ones.
    #[arg(long, default_value_t = 100)]
    pub games: u64,
    /// A ruleset's name, or a ruleset file (`.ruleset` or `.csv`, as `serve --ruleset` reads it).
    #[arg(long, default_value = "english", value_parser = ruleset_arg)]
    pub ruleset: RulesetKind,
    /// Game `g` uses bag seed `seed + g`: the same seed replays the same match.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The champion's thinking time per move, in milliseconds (1 to 60000).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=60_000))]
    pub budget_ms: u64,
    /// Play this word list, compiled in the ruleset's alphabet, instead of the ruleset's default
    /// lexicon (needed where it has none: Catalan, Polish …).
    #[arg(long)]
    pub words: Option<std::path::PathBuf>,
}

/// A `--ruleset` argument: a registered ruleset's name, else a ruleset file, read and
/// registered as `serve --ruleset` does (so a club trains and measures its own ruleset's bots).
pub fn ruleset_arg(text: &str) -> Result<RulesetKind, String> {
    if let Some(kind) = RulesetKind::by_name(text) {
        return Ok(kind);
    }
    let path = std::path::Path::new(text);
    if !path.is_file() {
        return Err(dawgref_engine::rules::UnknownRuleset(text.to_string()).to_string()
            + " (a ruleset's name, or a .ruleset or .csv file)");
    }
    let kinds = crate::server::wordlists::register_rulesets(&[path.to_path_buf()])?;
    Ok(kinds[0])
}

/// A ruleset with a word list compiled in its alphabet (`words`; what was skipped reported on
/// standard error), else its default lexicon; a ruleset that has none (Catalan, Polish …)
/// needs the word list.
pub fn ruleset_with_words(
    kind: RulesetKind,
    words: Option<&std::path::Path>,
) -> Result<(Arc<Ruleset>, Arc<Lexicon>), Box<dyn std::error::Error>> {
    let rules = Arc::new(Ruleset::new(kind));
    let lexicon = match words {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let (text, _) = dawgref_engine::lexicon::word_list_text(&bytes);
            let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("words");
            let (lexicon, report) =
                Lexicon::compile_up_to(name, &text, kind.alphabet(), kind.longest_word())?;
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

/// The two players' match by `options` (its word list or the ruleset's default lexicon, single
/// challenge): played with a progress bar, the time and threads it took written to standard
/// error.
pub fn play_match(
    options: &MatchOptions,
    players: (Player<'_>, Player<'_>),
) -> Result<MatchResult, Box<dyn std::error::Error>> {
    let (ruleset, seed) = (options.ruleset, options.seed);
    let games = options.games.clamp(1, 1_000_000);
    let budget = Duration::from_millis(options.budget_ms);
    let (rules, lexicon) = ruleset_with_words(ruleset, options.words.as_deref())?;
    let started = Instant::now();
    let bar = games_bar(games);
    let (result, workers) =
        MatchResult::play(&rules, &lexicon, players, games, seed, ChallengeRule::Single, budget, || {
            bar.inc(1)
        })?;
    bar.finish_and_clear();
    eprintln!(
        "{ruleset} in {:.1} s on {workers} threads, seeds {seed}..{}",
        started.elapsed().as_secs_f64(),
        seed.wrapping_add(games - 1)
    );
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--ruleset` takes a name, or a file read and registered as `serve --ruleset` reads it, so
    /// a club trains and measures the bots of its own ruleset.
    #[test]
    fn a_ruleset_argument_is_a_name_or_a_file() {
        assert_eq!(ruleset_arg("ES"), Ok(RulesetKind::by_name("spanish").unwrap()));
        let dir = std::env::temp_dir().join(format!("dawgref-console-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let csv = dir.join("console_club.csv");
        std::fs::write(&csv, "?,?,2,0,0\nA,a,40,1,1\nB,b,40,3,0\nO,o,20,1,1\n").unwrap();
        let kind = ruleset_arg(csv.to_str().unwrap()).unwrap();
        assert_eq!((kind.name(), kind.definition().leaves.is_none()), ("console-club", true));
        // Read again, it is the same ruleset.
        assert_eq!(ruleset_arg(csv.to_str().unwrap()), Ok(kind));
        let missing = dir.join("missing.ruleset");
        let err = ruleset_arg(missing.to_str().unwrap()).unwrap_err();
        assert!(
            err.starts_with(&format!("unknown ruleset {:?} (known: english, ", missing.display())),
            "{err}"
        );
        assert!(err.ends_with(" (a ruleset's name, or a .ruleset or .csv file)"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

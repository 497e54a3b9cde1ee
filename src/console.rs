//! What the long commands of both binaries (`dawgref match` and `analyze`, `dawgref-lab match`,
//! `train` and `bench`) share: a progress bar, and a match played with its timing reported.

use dawgref_engine::bot::Player;
use dawgref_engine::game::ChallengeRule;
use dawgref_engine::lexicon::catalog;
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
    #[arg(long, default_value = "english")]
    pub ruleset: RulesetKind,
    /// Game `g` uses bag seed `seed + g`: the same seed replays the same match.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The champion's thinking time per move, in milliseconds (1 to 60000).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=60_000))]
    pub budget_ms: u64,
}

/// The two players' match by `options` (the ruleset's default lexicon, single challenge): played
/// with a progress bar, the time and threads it took written to standard error.
pub fn play_match(
    options: &MatchOptions,
    players: (Player<'_>, Player<'_>),
) -> Result<MatchResult, Box<dyn std::error::Error>> {
    let (ruleset, seed) = (options.ruleset, options.seed);
    let games = options.games.clamp(1, 1_000_000);
    let budget = Duration::from_millis(options.budget_ms);
    let rules = Arc::new(Ruleset::new(ruleset));
    let lexicon = Arc::new(catalog::resolve(rules.default_lexicon, None)?.lexicon);
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

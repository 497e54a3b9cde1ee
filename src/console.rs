//! What the long self-play commands of both binaries (`dawgref match`, `dawgref-lab match` and
//! `train`) share: a progress bar over games, and a match played with its timing reported.

use dawgref_engine::bot::Player;
use dawgref_engine::game::ChallengeRule;
use dawgref_engine::lexicon::catalog;
use dawgref_engine::rules::{Ruleset, RulesetKind};
use dawgref_engine::selfplay::MatchResult;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A progress bar over `games` games on standard error, with the time left estimated from the
/// games played (drawn only on a terminal, so logs and tests see nothing of it).
pub fn games_bar(games: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(games);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{msg} {wide_bar} {pos}/{len} games, {elapsed} gone, ~{eta} left",
    ) {
        bar.set_style(style);
    }
    bar
}

/// `a` against `b` in `ruleset` (its default lexicon), `games` games from bag seed `seed`, single
/// challenge, the champion thinking `budget` a move: played with a progress bar, the time and
/// threads it took written to standard error.
pub fn play_match(
    ruleset: RulesetKind,
    players: (Player<'_>, Player<'_>),
    games: u64,
    seed: u64,
    budget: Duration,
) -> Result<MatchResult, Box<dyn std::error::Error>> {
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

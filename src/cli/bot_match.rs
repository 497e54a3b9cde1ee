//! `dawgref match`: two bot levels play each other, seats alternating, and the result is printed
//! with its standard errors.

use super::CliResult;
use clap::Args;
use dawgref::bot::{BotLevel, duel_within};
use dawgref::game::ChallengeRule;
use dawgref::leaves::LeaveTable;
use dawgref::lexicon::{Lexicon, catalog};
use dawgref::rules::{Ruleset, RulesetKind};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Two bot levels, `A,B` (weak, greedy, strong, champion, or classic: the strong bot with
    /// the hand-tuned leave values it had before the learned ones): A is named first in the result.
    #[arg(long, value_parser = two_levels)]
    bots: (BotLevel, BotLevel),
    /// Games to play; A sits first in the even games, B in the odd ones.
    #[arg(long, default_value_t = 100)]
    games: u64,
    #[arg(long, default_value = "english")]
    ruleset: RulesetKind,
    /// Game `g` uses bag seed `seed + g`: the same seed replays the same match.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The champion's thinking time per move, in milliseconds (1 to 60000).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=60_000))]
    budget_ms: u64,
    /// Play the strong and champion bots by this leave table (`dawgref train leaves`'s output)
    /// instead of the ruleset's shipped one; the classic bot keeps its hand-tuned values.
    #[arg(long)]
    leaves: Option<std::path::PathBuf>,
}

fn two_levels(text: &str) -> Result<(BotLevel, BotLevel), String> {
    match text.split(',').collect::<Vec<_>>().as_slice() {
        [a, b] => Ok((a.trim().parse()?, b.trim().parse()?)),
        _ => Err(format!("{text:?}: expected two levels, A,B (e.g. strong,greedy)")),
    }
}

/// A's final spread in game `g` (A in seat `g % 2`).
fn one_game(
    rules: &Arc<Ruleset>,
    lexicon: &Arc<Lexicon>,
    levels: (BotLevel, BotLevel),
    seed: u64,
    g: u64,
    budget: std::time::Duration,
) -> Result<i32, String> {
    duel_within(
        rules.clone(),
        lexicon.clone(),
        seed.wrapping_add(g),
        levels,
        (g % 2) as usize,
        ChallengeRule::Single,
        budget,
    )
    .map_err(|e| format!("game {g}: {e}"))
}

pub fn run(args: MatchArgs) -> CliResult {
    let (a, b) = args.bots;
    let games = args.games.clamp(1, 1_000_000);
    let rules = Arc::new(Ruleset::new(args.ruleset));
    let lexicon = Arc::new(catalog::resolve(rules.default_lexicon, None)?.lexicon);
    let budget = std::time::Duration::from_millis(args.budget_ms);
    if let Some(path) = &args.leaves {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let table =
            LeaveTable::parse(&text, rules.alphabet).map_err(|e| format!("{}: {e}", path.display()))?;
        if !LeaveTable::use_instead(args.ruleset, table) {
            return Err("the leave tables were already in use".into());
        }
    }
    let started = Instant::now();
    let (results, workers) =
        dawgref::selfplay::by_game(games, |g| one_game(&rules, &lexicon, (a, b), args.seed, g, budget));
    let spreads: Vec<f64> = results.into_iter().map(|r| r.map(f64::from)).collect::<Result<_, _>>()?;
    if spreads.len() as u64 != games {
        return Err(format!("{} of {games} games finished", spreads.len()).into());
    }
    let n = spreads.len() as f64;
    let wins = spreads
        .iter()
        .map(|&s| {
            if s > 0.0 {
                1.0
            } else if s == 0.0 {
                0.5
            } else {
                0.0
            }
        })
        .sum::<f64>()
        / n;
    let mean = spreads.iter().sum::<f64>() / n;
    let var = spreads.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    eprintln!(
        "{} in {:.1} s on {workers} threads, seeds {}..{}",
        args.ruleset,
        started.elapsed().as_secs_f64(),
        args.seed,
        args.seed.wrapping_add(games - 1)
    );
    println!(
        "{} vs {}: {games} games, {} wins {:.1}% ± {:.1}, mean spread {mean:+.1} ± {:.1}",
        a.name(),
        b.name(),
        a.name(),
        100.0 * wins,
        100.0 * (wins * (1.0 - wins) / n).sqrt(),
        (var / n).sqrt()
    );
    Ok(ExitCode::SUCCESS)
}

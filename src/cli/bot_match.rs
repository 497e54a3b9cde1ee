//! `dawgref match`: two bot levels play each other, seats alternating, and the result is printed
//! with its standard errors. (Baselines and leave tables on trial play in `dawgref-lab match`.)

use super::CliResult;
use clap::Args;
use dawgref::bot::BotLevel;
use dawgref::console::play_match;
use dawgref::rules::RulesetKind;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Two bot levels, `A,B` (weak, greedy, strong or champion): A is named first in the result.
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
}

fn two_levels(text: &str) -> Result<(BotLevel, BotLevel), String> {
    match text.split(',').collect::<Vec<_>>().as_slice() {
        [a, b] => Ok((a.trim().parse()?, b.trim().parse()?)),
        _ => Err(format!("{text:?}: expected two levels, A,B (e.g. strong,greedy)")),
    }
}

pub fn run(args: MatchArgs) -> CliResult {
    let (a, b) = args.bots;
    let games = args.games.clamp(1, 1_000_000);
    let budget = std::time::Duration::from_millis(args.budget_ms);
    let result = play_match(args.ruleset, (a.into(), b.into()), games, args.seed, budget)?;
    println!("{}", result.summary(a.name(), b.name()));
    Ok(ExitCode::SUCCESS)
}

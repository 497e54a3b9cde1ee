//! `dawgref match`: two bot levels play each other, seats alternating, and the result is printed
//! with its standard errors. (Baselines and leave tables on trial play in `dawgref-lab match`.)

use super::CliResult;
use clap::Args;
use dawgref::bot::BotLevel;
use dawgref::console::{MatchOptions, play_match};
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Two bot levels, `A,B` (weak, greedy, strong or champion): A is named first in the result.
    #[arg(long, value_parser = two_levels)]
    bots: (BotLevel, BotLevel),
    #[command(flatten)]
    options: MatchOptions,
}

fn two_levels(text: &str) -> Result<(BotLevel, BotLevel), String> {
    match text.split(',').collect::<Vec<_>>().as_slice() {
        [a, b] => Ok((a.trim().parse()?, b.trim().parse()?)),
        _ => Err(format!("{text:?}: expected two levels, A,B (e.g. strong,greedy)")),
    }
}

pub fn run(args: MatchArgs) -> CliResult {
    let (a, b) = args.bots;
    let result = play_match(&args.options, (a.into(), b.into()))?;
    println!("{}", result.summary(a.name(), b.name()));
    Ok(ExitCode::SUCCESS)
}

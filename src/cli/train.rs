//! `dawgref train`: tables the bots learn from self-play.
//!
//! `train winprob` plays strong-bot games against each other and fits the win-probability model
//! of `dawgref::winprob` to who went on to win from every position; its output is the table the
//! engine ships for that ruleset (`crates/engine/data/winprob/<ruleset>.txt`).

use super::CliResult;
use clap::{Args, Subcommand};
use dawgref::bot::{BotLevel, play_while};
use dawgref::game::{Game, GameConfig};
use dawgref::lexicon::catalog;
use dawgref::rules::{Ruleset, RulesetKind};
use dawgref::winprob::{Sample, WinTable};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

#[derive(Subcommand, Debug)]
pub enum TrainCommand {
    /// Fit the win-probability table to strong-bot self-play.
    Winprob(WinprobArgs),
}

#[derive(Args, Debug)]
pub struct WinprobArgs {
    #[arg(long, default_value = "english")]
    ruleset: RulesetKind,
    /// Self-play games (game `g` uses bag seed `seed + g`).
    #[arg(long, default_value_t = 4000)]
    games: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the table here (default: standard output).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
}

pub fn run(cmd: TrainCommand) -> CliResult {
    match cmd {
        TrainCommand::Winprob(args) => winprob(args),
    }
}

/// Every position of one strong-vs-strong game, with how it ended for the side to move.
fn game_samples(rules: &Arc<Ruleset>, lexicon: &Arc<dawgref::lexicon::Lexicon>, seed: u64) -> Vec<Sample> {
    let Ok(mut game) = Game::new(GameConfig::new(rules.clone(), lexicon.clone(), seed)) else {
        return Vec::new();
    };
    let observe = |g: &Game, out: &mut Vec<(usize, i32, usize)>| {
        if g.is_over() {
            return;
        }
        let me = g.to_move();
        let spread = g.scores()[me] - g.scores()[1 - me];
        let tiles = g.bag_len() + g.rack(0).map_or(0, |r| r.len()) + g.rack(1).map_or(0, |r| r.len());
        out.push((me, spread, tiles));
    };
    let mut seen = Vec::new();
    observe(&game, &mut seen);
    if play_while(&mut game, &[BotLevel::Strong], 1000, |g| {
        observe(g, &mut seen);
        true
    })
    .is_err()
    {
        return Vec::new();
    }
    let s = game.scores();
    seen.into_iter()
        .map(|(me, spread, tiles_left)| {
            let outcome = match s[me].cmp(&s[1 - me]) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Less => 0.0,
            };
            Sample { spread, tiles_left, outcome }
        })
        .collect()
}

fn winprob(args: WinprobArgs) -> CliResult {
    let rules = Arc::new(Ruleset::new(args.ruleset));
    let lexicon = Arc::new(catalog::resolve(rules.default_lexicon, None)?.lexicon);
    let games = args.games.clamp(1, 1_000_000);
    let started = Instant::now();
    let (samples, _) = super::by_game(games, |g| game_samples(&rules, &lexicon, args.seed.wrapping_add(g)));
    let samples: Vec<Sample> = samples.into_iter().flatten().collect();
    let played = started.elapsed().as_secs_f64();
    let table = WinTable::fit(&samples);
    eprintln!(
        "{}: {games} games, {} positions, played in {played:.1} s, fitted in {:.1} s",
        args.ruleset,
        samples.len(),
        started.elapsed().as_secs_f64() - played
    );
    let text = format!(
        "# dawgref train winprob --ruleset {} --games {games} --seed {}\n\
         # {} positions of strong-bot self-play; per band of tiles left: <tiles> <sigma> <bias>\n{}",
        args.ruleset,
        args.seed,
        samples.len(),
        table.to_text()
    );
    match args.out {
        Some(path) => std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?,
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

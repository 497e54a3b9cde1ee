//! Command-line parsing and dispatch. Each subcommand lives in its own module.

mod bench;
mod bench_forward;
mod bench_server;
mod bench_store;
mod bot_match;
mod gcg;
mod generate;
mod lexicon;
mod serve;
mod train;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// dawgref: a referee and analysis engine for Scrabble, Скрэббл and Эрудит.
#[derive(Parser, Debug)]
#[command(name = "dawgref", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the gRPC referee server.
    Serve(serve::ServeArgs),
    /// Compile, inspect and query lexicons.
    #[command(subcommand)]
    Lexicon(lexicon::LexiconCommand),
    /// Every legal play of CGP positions, best first: `<coord> <tiles> <score>`.
    Gen(generate::GenArgs),
    /// Greedy self-play games, optionally writing every position as CGP.
    Selfplay(generate::SelfplayArgs),
    /// Check GCG records by replaying them; export a bot game as GCG.
    #[command(subcommand)]
    Gcg(gcg::GcgCommand),
    /// Two bot levels play each other, seats alternating: `A vs B: N games, A wins X% ± s.e.,
    /// mean spread +Y ± s.e.`
    Match(bot_match::MatchArgs),
    /// Learn the bots' tables from self-play.
    #[command(subcommand)]
    Train(train::TrainCommand),
    /// Measure the engine (figures for BENCHMARKS.md).
    #[command(subcommand)]
    Bench(bench::BenchCommand),
}

/// Run `game(g)` for every game number below `games`, spread over the cores, and return the
/// results in game order with the number of threads used. Games are seeded by their number, so
/// the results do not depend on the threads.
fn by_game<T: Send>(games: u64, game: impl Fn(u64) -> T + Sync) -> (Vec<T>, usize) {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(games.max(1) as usize);
    let mut all: Vec<(u64, T)> = std::thread::scope(|scope| {
        let game = &game;
        let handles: Vec<_> = (0..workers as u64)
            .map(|w| {
                scope.spawn(move || (w..games).step_by(workers).map(|g| (g, game(g))).collect::<Vec<_>>())
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    });
    all.sort_by_key(|(g, _)| *g);
    (all.into_iter().map(|(_, r)| r).collect(), workers)
}

/// Errors reaching the top level are printed and exit with code 2.
pub type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;

pub fn run(cli: Cli) -> CliResult {
    match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Lexicon(cmd) => lexicon::run(cmd),
        Command::Bench(cmd) => bench::run(cmd),
        Command::Gen(args) => generate::run(args),
        Command::Gcg(cmd) => gcg::run(cmd),
        Command::Selfplay(args) => generate::selfplay(args),
        Command::Match(args) => bot_match::run(args),
        Command::Train(cmd) => train::run(cmd),
    }
}

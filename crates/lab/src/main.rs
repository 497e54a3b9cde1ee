//! `dawgref-lab`: the workbench beside the product. It learns the bots' tables from self-play
//! (`train`), measures the engine and the server for BENCHMARKS.md (`bench`) and plays the
//! baselines and tables on trial against the bots (`match`), through the same
//! library and the same server `Builder` users run; none of it ships in the `dawgref` binary.

mod baseline;
mod bench;
mod bench_champion;
mod bench_forward;
mod bench_review;
mod bench_server;
mod bench_store;
mod classic;
mod fit;
mod matches;
mod train;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// The in-process server benchmarks measure it with the allocator the product uses.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// dawgref-lab: training and benchmarks for dawgref.
#[derive(Parser, Debug)]
#[command(name = "dawgref-lab", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Learn the bots' tables from self-play.
    #[command(subcommand)]
    Train(train::TrainCommand),
    /// Measure the engine and the server (figures for BENCHMARKS.md).
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Two players against each other, seats alternating: the bot levels, the classic baseline,
    /// the strong bot by a leave table on trial.
    Match(matches::MatchArgs),
}

/// Errors reaching the top level are printed and exit with code 2.
pub type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Train(cmd) => train::run(cmd),
        Command::Bench(cmd) => bench::run(cmd),
        Command::Match(args) => matches::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("dawgref-lab: {e}");
            ExitCode::from(2)
        }
    }
}

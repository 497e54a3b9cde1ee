//! Command-line parsing and dispatch. Each subcommand lives in its own module. Training and
//! benchmarks are not here: they are the lab's (`crates/lab`, `dawgref-lab`).

mod analyze;
mod bot_match;
mod gcg;
mod generate;
mod lexicon;
mod serve;
mod words;

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
    Serve(Box<serve::ServeArgs>),
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
    /// Review a finished game's record: every turn judged by the champion's machinery (the best
    /// play, the win probability lost, a class), then each player's accuracy.
    Analyze(analyze::AnalyzeArgs),
    /// Word study: anagrams (blanks too), patterns, hooks, each word with its probability.
    #[command(subcommand)]
    Words(words::WordsCommand),
}

/// Errors reaching the top level are printed and exit with code 2.
pub type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;

pub fn run(cli: Cli) -> CliResult {
    if !matches!(cli.command, Command::Serve(_)) {
        quiet_on_a_closed_pipe();
    }
    match cli.command {
        Command::Serve(args) => serve::run(*args),
        Command::Lexicon(cmd) => lexicon::run(cmd),
        Command::Gen(args) => generate::run(args),
        Command::Gcg(cmd) => gcg::run(cmd),
        Command::Selfplay(args) => generate::selfplay(args),
        Command::Match(args) => bot_match::run(args),
        Command::Words(cmd) => words::run(cmd),
        Command::Analyze(args) => analyze::run(args),
    }
}

/// A command whose reader goes away (`dawgref lexicon info x | head -3`) ends quietly, as Unix
/// tools do: SIGPIPE back to its default, where Rust ignores it and a write to the closed pipe
/// would panic. Not the server: a client going away must never end it.
fn quiet_on_a_closed_pipe() {
    // SAFETY: setting a signal's disposition to its default before any thread is started; no
    // handler runs Rust code.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

//! The `dawgref` command line: a thin layer over the library.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("dawgref: {e}");
            ExitCode::from(2)
        }
    }
}

//! `dawgref bench …`: measured figures for BENCHMARKS.md (never timing assertions in tests).

use super::CliResult;
use clap::Subcommand;
use dawgref::lexicon::{Lexicon, catalog};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Compile and load times and sizes of the shipped lexicons.
    Lexicon {
        /// Repetitions per measurement (the median is reported).
        #[arg(long, default_value_t = 11)]
        runs: usize,
    },
}

pub fn run(cmd: BenchCommand) -> CliResult {
    match cmd {
        BenchCommand::Lexicon { runs } => lexicon(runs.max(1)),
    }
}

/// Median and minimum of `runs` timings of `f`.
pub fn time_runs(runs: usize, mut f: impl FnMut()) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[times.len() / 2], times[0])
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn lexicon(runs: usize) -> CliResult {
    println!(
        "lexicon  words    nodes   edges   bytes    file     compile ms (median/min)  load ms (median/min)"
    );
    for shipped in catalog::SHIPPED {
        let mut lex = None;
        let (compile_med, compile_min) = time_runs(runs, || {
            lex = Some(
                Lexicon::compile(shipped.name, shipped.text, shipped.alphabet)
                    .expect("shipped list compiles")
                    .0,
            );
        });
        let lex = lex.expect("runs >= 1");
        let bytes = lex.to_bytes();
        let (load_med, load_min) = time_runs(runs, || {
            std::hint::black_box(Lexicon::load(shipped.name, &bytes, None).expect("own file loads"));
        });
        let d = lex.dawg();
        println!(
            "{:<8} {:<8} {:<7} {:<7} {:<8} {:<8} {:>8.1} / {:<8.1}           {:>6.2} / {:<6.2}",
            shipped.name,
            lex.word_count(),
            d.node_count(),
            d.edge_count(),
            d.packed_bytes(),
            bytes.len(),
            ms(compile_med),
            ms(compile_min),
            ms(load_med),
            ms(load_min)
        );
    }
    Ok(ExitCode::SUCCESS)
}

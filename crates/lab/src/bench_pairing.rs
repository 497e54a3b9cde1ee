//! `dawgref-lab bench pairing`: a Swiss division of `--players`, paired round after round with
//! drawn results (a random margin a game): each round's pairing time, and the standings'
//! time after one result comes in.

use super::CliResult;
use clap::Args;
use dawgref::tournament::{Controls, Division, GameResult, Method, Pairing, Player, Standings};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct PairingArgs {
    /// Division sizes, each measured in turn.
    #[arg(long, value_delimiter = ',', default_value = "1000,10000")]
    players: Vec<usize>,
    /// Swiss rounds paired (and played) per division.
    #[arg(long, default_value_t = 10)]
    rounds: usize,
    /// The division's seed (its draws and the results').
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn run(args: PairingArgs) -> CliResult {
    println!(
        "players  rounds  pairing per round (ms): median  max   standings after a result (ms): median  max"
    );
    for &n in &args.players {
        let players = (0..n).map(|i| Player::new(format!("P{i}"), 2000)).collect();
        let controls = Controls { seed: args.seed, ..Controls::default() };
        let mut d = Division::new("bench", players, &vec![Method::Swiss; args.rounds], controls);
        let bar = dawgref::console::progress_bar(args.rounds as u64, "rounds");
        bar.set_message(format!("{n} players"));
        let (mut pairing, mut standings) = (Vec::new(), Vec::new());
        let mut state = args.seed;
        for round in 0..args.rounds {
            let started = Instant::now();
            if let Err(e) = d.pair(round) {
                eprintln!("round {}: {e}", round + 1);
                return Ok(ExitCode::FAILURE);
            }
            pairing.push(started.elapsed());
            let lines = d.rounds()[round].pairings.clone().unwrap_or_default();
            for (k, line) in lines.iter().enumerate() {
                if let Pairing::Game { .. } = line {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let margin = ((state >> 33) % 301) as i32 - 150;
                    let _ = d.record(round, k, GameResult::Scores([400 + margin, 400]), false);
                    // One result's standings: timed on a few, it costs the same each time.
                    if k < 3 {
                        let started = Instant::now();
                        std::hint::black_box(Standings::of(&d));
                        standings.push(started.elapsed());
                    }
                }
            }
            bar.inc(1);
        }
        bar.finish_and_clear();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let (pm, px) = (median(&mut pairing), pairing.iter().max().copied().unwrap_or_default());
        let (sm, sx) = (median(&mut standings), standings.iter().max().copied().unwrap_or_default());
        println!(
            "{n:>7}  {:>6}  {:>32.1}  {:>5.1}   {:>37.2}  {:>5.2}",
            args.rounds,
            ms(pm),
            ms(px),
            ms(sm),
            ms(sx)
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

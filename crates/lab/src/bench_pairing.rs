//! `dawgref-lab bench pairing`: a Swiss division of `--players`, paired round after round with
//! drawn results (a random margin a game): each round's pairing time, and the standings' and
//! the rating estimates' time after one result comes in (`--ratings`, with every n-th player a
//! newcomer: `--newcomer-every`).

use super::CliResult;
use clap::Args;
use dawgref::tournament::ratings::{self, RatingSystem};
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
    /// The division's rating system: none, nsa2008, naspa2024, club or absp.
    #[arg(long, default_value = "nsa2008")]
    ratings: String,
    /// Every n-th player unrated, a newcomer (0: none); the others rated 2000 down to 1001.
    #[arg(long, default_value_t = 10)]
    newcomer_every: usize,
}

fn rating_system(name: &str) -> Result<RatingSystem, String> {
    RatingSystem::ALL
        .into_iter()
        .find(|s| {
            s.name().split(' ').next() == Some(name) || (name == "club" && *s == RatingSystem::NaspaClub)
        })
        .ok_or_else(|| format!("--ratings {name:?}: none, nsa2008, naspa2024, club or absp"))
}

pub fn run(args: PairingArgs) -> CliResult {
    let rating_system = rating_system(&args.ratings)?;
    println!(
        "players  rounds  pairing per round (ms): median  max   standings after a result (ms): median  max   \
         estimates after a result (ms): median  max  (last round: median)"
    );
    for &n in &args.players {
        let newcomer = |i: usize| args.newcomer_every != 0 && i.is_multiple_of(args.newcomer_every);
        let rating = |i: usize| (!newcomer(i)).then(|| 2000 - (i % 1000) as u32);
        let players = (0..n).map(|i| Player::new(format!("P{i}"), rating(i))).collect();
        let controls = Controls { seed: args.seed, rating_system, ..Controls::default() };
        let mut d = Division::new("bench", players, &vec![Method::Swiss; args.rounds], controls);
        let bar = dawgref::console::progress_bar(args.rounds as u64, "rounds");
        bar.set_message(format!("{n} players"));
        let (mut pairing, mut standings, mut estimates) = (Vec::new(), Vec::new(), Vec::new());
        let mut last_round = Vec::new();
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
                        let started = Instant::now();
                        std::hint::black_box(ratings::estimates(&d));
                        estimates.push(started.elapsed());
                        if round + 1 == args.rounds {
                            last_round.push(started.elapsed());
                        }
                    }
                }
            }
            bar.inc(1);
        }
        bar.finish_and_clear();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let (pm, px) = (median(&mut pairing), pairing.iter().max().copied().unwrap_or_default());
        let (sm, sx) = (median(&mut standings), standings.iter().max().copied().unwrap_or_default());
        let (em, ex) = (median(&mut estimates), estimates.iter().max().copied().unwrap_or_default());
        println!(
            "{n:>7}  {:>6}  {:>32.1}  {:>5.1}   {:>37.2}  {:>5.2}   {:>37.2}  {:>5.2}  {:>20.2}",
            args.rounds,
            ms(pm),
            ms(px),
            ms(sm),
            ms(sx),
            ms(em),
            ms(ex),
            ms(median(&mut last_round)),
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

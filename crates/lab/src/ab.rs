//! `dawgref-lab ab`: a change to a player against the player without it, as a lever is
//! measured before it goes against MAGPIE (issue 74): every deal played twice, each side moving
//! first once (paired deals: the luck of the tiles falls on both sides alike), and a sequential
//! stop, so a clear difference ends the match early and a close one runs to `--deals`.
//!
//! The unit is the deal: its two games give A 0, ½, 1, 1½ or 2 wins, and the standard error
//! is that of the pairs' mean (narrower than two independent games' when the deal decides much
//! of the result). After every `--check-every` deals (and at least `--min-deals`), the match
//! stops once A's share is more than `--stop-z` standard errors from one half. Deals finish out
//! of order on two threads; a stop is decided on the deals finished in order from the first, so
//! the result is the same whatever the threads' timing decides the order of ends.

use super::CliResult;
use crate::matches::player_by_name;
use clap::Args;
use dawgref::bot::duel_within;
use dawgref::console::{MatchOptions, progress_bar, ruleset_with_words};
use dawgref::game::ChallengeRule;
use dawgref::leaves::LeaveTable;
use dawgref::rules::Ruleset;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct AbArgs {
    /// Two players, `A,B`, named as `match` names them (`champion+sw2,champion`).
    #[arg(long)]
    bots: String,
    /// Deals at most (each played twice); `--games` is not read.
    #[arg(long, default_value_t = 200)]
    deals: u64,
    /// Stop once A's share is this many standard errors from one half.
    #[arg(long, default_value_t = 3.0)]
    stop_z: f64,
    /// Deals played before a stop is considered.
    #[arg(long, default_value_t = 60)]
    min_deals: u64,
    /// How often, in deals, a stop is considered.
    #[arg(long, default_value_t = 20)]
    check_every: u64,
    /// Threads (games at a time).
    #[arg(long, default_value_t = 2)]
    threads: usize,
    #[command(flatten)]
    options: MatchOptions,
}

/// A's share of a list of deals' wins (each 0 to 2), and its standard error over the deals.
fn share(pairs: &[f64]) -> (f64, f64) {
    crate::setup::mean_error(&pairs.iter().map(|p| p / 2.0).collect::<Vec<_>>())
}

/// Whether the deals finished so far in order call a stop.
fn stops(pairs: &[f64], args: &AbArgs) -> bool {
    let n = pairs.len() as u64;
    if n < args.min_deals.max(2) || !n.is_multiple_of(args.check_every.max(1)) {
        return false;
    }
    let (mean, error) = share(pairs);
    error > 0.0 && (mean - 0.5).abs() > args.stop_z * error
}

pub fn run(args: AbArgs) -> CliResult {
    let names: Vec<&str> = args.bots.split(',').map(str::trim).collect();
    let [a, b] = names.as_slice() else {
        return Err(format!("--bots {:?}: expected two players, A,B", args.bots).into());
    };
    if args.deals == 0 {
        return Err("--deals 0: expected at least one deal".into());
    }
    let (rules, lexicon) = ruleset_with_words(args.options.ruleset, args.options.words.as_deref())?;
    let fallback = LeaveTable::fallback(&Ruleset::new(args.options.ruleset));
    let players = (player_by_name(a, None, &fallback)?, player_by_name(b, None, &fallback)?);
    let budget = Duration::from_millis(args.options.budget_ms);
    let seed = args.options.seed;
    let games = 2 * args.deals;
    // Game 2d + s: deal d with A in seat s. Each entry is A's spread.
    let spreads: Mutex<Vec<Option<i32>>> = Mutex::new(vec![None; games as usize]);
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let failed: Mutex<Option<String>> = Mutex::new(None);
    let bar = progress_bar(games, "games");
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..args.threads.max(1) {
            s.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    if g >= games {
                        break;
                    }
                    let (deal, seat) = (g / 2, (g % 2) as usize);
                    let spread = duel_within(
                        rules.clone(),
                        lexicon.clone(),
                        seed.wrapping_add(deal),
                        players,
                        seat,
                        ChallengeRule::Single,
                        budget,
                    );
                    let spread = match spread {
                        Ok(s) => s,
                        Err(e) => {
                            *failed.lock().unwrap_or_else(|p| p.into_inner()) =
                                Some(format!("game {g}: {e}"));
                            stop.store(true, Ordering::Relaxed);
                            break;
                        }
                    };
                    bar.inc(1);
                    let mut all = spreads.lock().unwrap_or_else(|p| p.into_inner());
                    all[g as usize] = Some(spread);
                    let done = pairs_in_order(&all);
                    if stops(&done, &args) {
                        stop.store(true, Ordering::Relaxed);
                    }
                    let (mean, error) = share(&done);
                    bar.set_message(format!(
                        "{} deals, {a} {:.1}% ± {:.1}",
                        done.len(),
                        100.0 * mean,
                        100.0 * error
                    ));
                }
            });
        }
    });
    bar.finish_and_clear();
    if let Some(e) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e.into());
    }
    let all = spreads.into_inner().unwrap_or_else(|p| p.into_inner());
    // The result is what the stop saw: the deals finished in order from the first, cut at
    // the first check that called a stop.
    let mut done = pairs_in_order(&all);
    let mut stopped = false;
    for n in 1..=done.len() {
        if stops(&done[..n], &args) {
            done.truncate(n);
            stopped = true;
            break;
        }
    }
    let (mean, error) = share(&done);
    let counted: Vec<i32> = all[..2 * done.len()].iter().map(|s| s.unwrap_or(0)).collect();
    let spread = dawgref::selfplay::MatchResult { spreads: counted.clone() }.mean_spread();
    let first: Vec<i32> = counted.iter().step_by(2).copied().collect();
    let second: Vec<i32> = counted.iter().skip(1).step_by(2).copied().collect();
    let by_seat = |s: &[i32]| 100.0 * dawgref::selfplay::MatchResult { spreads: s.to_vec() }.wins().0;
    println!(
        "{a} vs {b}: {} deals ({} games, each deal from both seats){}, {a} wins {:.1}% ± {:.1} (by deal), \
         mean spread {:+.1} ± {:.1}; {a} moving first {:.1}%, second {:.1}%",
        done.len(),
        counted.len(),
        if stopped { format!(", stopped at {:.1} standard errors", args.stop_z) } else { String::new() },
        100.0 * mean,
        100.0 * error,
        spread.0,
        spread.1,
        by_seat(&first),
        by_seat(&second),
    );
    eprintln!(
        "{} at {} ms a move in {:.0} s, deals from seed {seed}",
        args.options.ruleset,
        args.options.budget_ms,
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// A's wins in each deal both of whose games have finished, in order from the first deal,
/// up to the first deal not finished.
fn pairs_in_order(all: &[Option<i32>]) -> Vec<f64> {
    let win = |s: i32| (s.signum() as f64 + 1.0) / 2.0;
    all.chunks(2).map_while(|pair| Some(win(pair[0]?) + win(pair.get(1).copied().flatten()?))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deals count only when both games are in, in order; a deal's share is its two games'.
    #[test]
    fn deals_count_in_order_and_whole() {
        let all = [Some(5), Some(-3), Some(0), Some(7), None, Some(2), Some(1), Some(1)];
        assert_eq!(pairs_in_order(&all), vec![1.0, 1.5]);
        let (mean, error) = share(&[1.0, 1.5]);
        assert_eq!(mean, 0.625);
        assert!((error - 0.125).abs() < 1e-12, "{error}");
    }
}

//! `dawgref-lab match`: the product's `dawgref match`, with the lab's players too: the frozen
//! `classic` baseline, the strong bot by the ruleset's `fallback` leave values, and the strong
//! bot playing by a leave table on trial (`--leaves`, the output of `train leaves`) instead of
//! the shipped one. How BENCHMARKS.md measures a table before it ships.

use super::CliResult;
use clap::Args;
use dawgref::bot::{BotLevel, Player};
use dawgref::console::{MatchOptions, play_match};
use dawgref::equity::LeaveModel;
use dawgref::leaves::LeaveTable;
use dawgref::rules::Ruleset;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Two players, `A,B`: weak, greedy, strong, champion, classic (the strong bot by the
    /// hand-tuned leave values it had before the learned ones), fallback (the strong bot by the
    /// values a ruleset without a learned table gets, from its tiles' faces) or baseline (the
    /// champion as it thought on 2026-11-24, frozen). A is named first in the result.
    #[arg(long)]
    bots: String,
    #[command(flatten)]
    options: MatchOptions,
    /// The strong bot plays by this leave table (`train leaves`'s output) instead of the
    /// ruleset's shipped one.
    #[arg(long)]
    leaves: Option<std::path::PathBuf>,
}

/// A player by name; `strong` plays by `table` when one is on trial, `fallback` by `fallback`.
pub(crate) fn player_by_name<'a>(
    name: &str,
    table: Option<&'a LeaveTable>,
    fallback: &'a LeaveTable,
) -> Result<Player<'a>, String> {
    let name = name.trim();
    if name.eq_ignore_ascii_case("classic") {
        return Ok(super::classic::PLAYER);
    }
    if name.eq_ignore_ascii_case("fallback") {
        return Ok(Player::Static(LeaveModel::Learned(fallback)));
    }
    if name.eq_ignore_ascii_case("baseline") {
        return Ok(super::baseline::PLAYER);
    }
    if let Some(variant) = name.strip_prefix("champion+") {
        return champion_variant(variant);
    }
    let level: BotLevel = name.parse().map_err(|e| format!("{e}, classic, fallback or baseline"))?;
    Ok(match (level, table) {
        (BotLevel::Strong, Some(table)) => Player::Static(LeaveModel::Learned(table)),
        (level, _) => Player::Bot(level),
    })
}

pub fn run(args: MatchArgs) -> CliResult {
    let alphabet = args.options.ruleset.alphabet();
    let table = match &args.leaves {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Some(LeaveTable::parse(&text, alphabet).map_err(|e| format!("{}: {e}", path.display()))?)
        }
        None => None,
    };
    let names: Vec<&str> = args.bots.split(',').map(str::trim).collect();
    let [a, b] = names.as_slice() else {
        return Err(format!("--bots {:?}: expected two players, A,B (e.g. strong,classic)", args.bots).into());
    };
    let fallback = LeaveTable::fallback(&Ruleset::new(args.options.ruleset));
    let players =
        (player_by_name(a, table.as_ref(), &fallback)?, player_by_name(b, table.as_ref(), &fallback)?);
    let result = play_match(&args.options, players)?;
    println!("{}", result.summary(a, b));
    Ok(ExitCode::SUCCESS)
}

/// The champion with some of its options changed, for trying them: `champion+` and any of
/// `nopeg`, `noinfer`, `noreserve`, `spend` or `nospend` (the race goes on until the budget is
/// spent, or not: [`dawgref::sim::Race::until_spent`]), `oldrace`, `cN` (N candidates), `pegN`
/// (the pre-endgame with N or fewer in the bag), `swZ` (the leader played over the static best
/// only when Z standard errors ahead), `egplay` (the endgame's depth limit valued by a
/// playout: [`dawgref::endgame::EndgameLimits::leaf_playout`]), joined by `+`.
fn champion_variant(variant: &str) -> Result<Player<'static>, String> {
    champion_options(variant).map(Player::Champion)
}

/// The champion's options with `variant`'s changes (see [`champion_variant`]).
pub fn champion_options(variant: &str) -> Result<dawgref::bot::ChampionOptions, String> {
    let mut options = dawgref::bot::ChampionOptions::default();
    for part in variant.split('+') {
        match part {
            "nopeg" => options.pre_endgame_bag = 0,
            "noinfer" => options.infer = None,
            "noreserve" => options.reserve = 0,
            "spend" => options.race.until_spent = true,
            "egplay" => options.endgame_playout = true,
            "nospend" => options.race.until_spent = false,
            "oldrace" => options.race = super::baseline::OPTIONS.race,
            _ if part.starts_with("peg") && part[3..].parse::<usize>().is_ok() => {
                let n: usize = part[3..].parse().unwrap_or(0);
                if n > dawgref::pre_endgame::MAX_BAG {
                    return Err(format!(
                        "{part:?}: the pre-endgame is for 1 to {}",
                        dawgref::pre_endgame::MAX_BAG
                    ));
                }
                options.pre_endgame_bag = n;
            }
            _ if part.starts_with("sw") && part[2..].parse::<f64>().is_ok() => {
                let z: f64 = part[2..].parse().unwrap_or(0.0);
                if !(0.0..=10.0).contains(&z) {
                    return Err(format!("{part:?}: swZ with Z from 0 to 10"));
                }
                options.switch_z = z;
            }
            _ if part.starts_with("inf=") => {
                let v: Vec<f64> = part[4..].split('/').filter_map(|x| x.parse().ok()).collect();
                let [t, s, f] = v[..] else { return Err(format!("{part:?}: inf=TOLERANCE/SPREAD/FLOOR")) };
                options.infer =
                    Some(dawgref::infer::Params { tolerance: t as f32, spread: s as f32, floor: f });
            }
            _ => match part.strip_prefix('c').and_then(|n| n.parse::<usize>().ok()) {
                Some(n) if (1..=50).contains(&n) => options.candidates = n,
                _ => {
                    return Err(format!(
                        "champion option {part:?}: nopeg, noinfer, noreserve, spend, nospend, oldrace, egplay, cN, pegN or swZ"
                    ));
                }
            },
        }
    }
    Ok(options)
}

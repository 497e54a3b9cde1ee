//! `dawgref-lab train`: tables the bots learn from self-play.
//!
//! `train winprob` plays strong-bot games against each other and fits the win-probability model
//! of `dawgref::winprob` to who went on to win from every position; its output is the table the
//! engine ships for that ruleset (`crates/engine/data/winprob/<ruleset>.txt`).
//!
//! `train leaves` plays the static bot against itself, generation after generation (the first
//! with the hand-tuned leave values, each next one with the table the one before learned),
//! values leaves in pairs at its positions and fits `dawgref::leaves` to them; its output is
//! `crates/engine/data/leaves/<ruleset>.txt`. `--samples` keeps the first generation's
//! observations in a file, so that another fit of them (`--prior`, `--list-from`) takes a second
//! instead of the games again.

use super::CliResult;
use super::fit::{self, PairedObservation, Sample};
use clap::{Args, Subcommand};
use dawgref::bot::{BotLevel, play_while};
use dawgref::console::games_bar;
use dawgref::equity::{LeaveModel, static_action};
use dawgref::game::{Game, GameConfig};
use dawgref::leaves::{self, LeaveTable};
use dawgref::rack::Rack;
use dawgref::rules::{Ruleset, RulesetKind};
use dawgref::winprob::WinTable;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

#[derive(Subcommand, Debug)]
pub enum TrainCommand {
    /// Fit the win-probability table to strong-bot self-play.
    Winprob(WinprobArgs),
    /// Learn the leave values of the static bot from its own self-play.
    Leaves(LeavesArgs),
}

#[derive(Args, Debug)]
pub struct LeavesArgs {
    /// A ruleset's name, or a ruleset file.
    #[arg(long, default_value = "english", value_parser = dawgref::console::ruleset_arg)]
    ruleset: RulesetKind,
    /// The word list to play, compiled in the ruleset's alphabet (needed where the ruleset has
    /// no lexicon of its own: Catalan, Polish …).
    #[arg(long)]
    words: Option<std::path::PathBuf>,
    /// Self-play games per generation (game `g` of generation `k` uses bag seed
    /// `seed + k * games + g`).
    #[arg(long, default_value_t = 8000)]
    games: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Generations: the first plays (and values the next play's leave) with the hand-tuned
    /// values, each next one with the table the one before learned.
    #[arg(long, default_value_t = 1)]
    generations: u64,
    /// Start from this table (an earlier run's output) instead of the hand-tuned values.
    #[arg(long)]
    from: Option<std::path::PathBuf>,
    /// Write the table here (default: standard output).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// The first generation's observations: read from this file if it exists (an earlier run
    /// with the same ruleset, words, games, seed and `--from` wrote it; another's is refused),
    /// else played and written there. To try another fit without playing the games again.
    #[arg(long)]
    samples: Option<std::path::PathBuf>,
    /// What a listed leave's own mean is shrunk towards (the shipped tables: additive).
    #[arg(long, value_enum, default_value = "additive")]
    prior: fit::Prior,
    /// Samples a leave needs before it is listed (the shipped tables: 8).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..))]
    list_from: u32,
}

#[derive(Args, Debug)]
pub struct WinprobArgs {
    /// A ruleset's name, or a ruleset file.
    #[arg(long, default_value = "english", value_parser = dawgref::console::ruleset_arg)]
    ruleset: RulesetKind,
    /// The word list to play, as `train leaves --words`.
    #[arg(long)]
    words: Option<std::path::PathBuf>,
    /// Self-play games (game `g` uses bag seed `seed + g`).
    #[arg(long, default_value_t = 4000)]
    games: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Games played after the training ones (seeds `seed + games` on) to judge the new table
    /// against the ruleset's current one and English's: the mean log loss of each over their
    /// positions, on standard error. 0: none.
    #[arg(long, default_value_t = 1000)]
    held_out: u64,
    /// Write the table here (default: standard output).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
}

pub fn run(cmd: TrainCommand) -> CliResult {
    match cmd {
        TrainCommand::Winprob(args) => winprob(args),
        TrainCommand::Leaves(args) => learn_leaves(args),
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
    let (rules, lexicon) = crate::setup::ruleset_with_words(args.ruleset, args.words.as_deref())?;
    let games = args.games.clamp(1, 1_000_000);
    let started = Instant::now();
    let bar = games_bar(games);
    let (samples, _) = dawgref::selfplay::by_game_observed(
        games,
        |g| game_samples(&rules, &lexicon, args.seed.wrapping_add(g)),
        || bar.inc(1),
    );
    bar.finish_and_clear();
    let samples: Vec<Sample> = samples.into_iter().flatten().collect();
    let played = started.elapsed().as_secs_f64();
    let table = fit::winprob(&samples);
    eprintln!(
        "{}: {games} games, {} positions, played in {played:.1} s, fitted in {:.1} s",
        args.ruleset,
        samples.len(),
        started.elapsed().as_secs_f64() - played
    );
    let held_out = args.held_out.min(1_000_000);
    if held_out > 0 {
        let bar = games_bar(held_out);
        let first = args.seed.wrapping_add(games);
        let (judged, _) = dawgref::selfplay::by_game_observed(
            held_out,
            |g| game_samples(&rules, &lexicon, first.wrapping_add(g)),
            || bar.inc(1),
        );
        bar.finish_and_clear();
        let judged: Vec<Sample> = judged.into_iter().flatten().collect();
        let current = WinTable::shipped(args.ruleset);
        let english = WinTable::shipped(RulesetKind::english());
        eprintln!(
            "{}: mean log loss over {} positions of {held_out} held-out games (seeds {first} on): \
             the new table {:.4}, the ruleset's current {:.4}, English's {:.4}",
            args.ruleset,
            judged.len(),
            fit::log_loss(&table, &judged),
            fit::log_loss(current, &judged),
            fit::log_loss(english, &judged),
        );
    }
    let text = format!(
        "# dawgref-lab train winprob --ruleset {}{} --games {games} --seed {}\n\
         # {} positions of strong-bot self-play; per band of tiles left: <tiles> <sigma> <bias>\n{}",
        args.ruleset,
        words_arg(args.words.as_deref()),
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

fn learn_leaves(args: LeavesArgs) -> CliResult {
    let (rules, lexicon) = crate::setup::ruleset_with_words(args.ruleset, args.words.as_deref())?;
    let games = args.games.clamp(1, 10_000_000);
    let generations = args.generations.clamp(1, 20);
    let mut table: Option<LeaveTable> = match &args.from {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Some(LeaveTable::parse(&text, rules.alphabet).map_err(|e| format!("{}: {e}", path.display()))?)
        }
        None => None,
    };
    let words = words_arg(args.words.as_deref());
    let from = args.from.as_ref().map_or(String::new(), |p| format!(" --from {}", p.display()));
    // What the first generation's observations are of, as a file of them keeps it.
    let of = format!("--ruleset {}{words} --games {games} --seed {}{from}", args.ruleset, args.seed);
    let listing = fit::Listing { min_samples: args.list_from, prior: args.prior };
    let mut total = 0;
    for k in 0..generations {
        let started = Instant::now();
        let model = table.as_ref().map_or(super::classic::LEAVES, LeaveModel::Learned);
        let first = args.seed.wrapping_add(k * games);
        let cached = args.samples.as_deref().filter(|p| k == 0 && p.exists());
        let samples = match cached {
            Some(path) => read_observations(path, &of)?,
            None => {
                let samples = play_paired(games, &rules, &lexicon, first, model, k + 1, generations);
                if let Some(path) = args.samples.as_deref().filter(|_| k == 0) {
                    write_observations(path, &of, &samples)?;
                }
                samples
            }
        };
        let positions = samples.iter().map(|o| o.group as usize + 1).max().unwrap_or(0);
        let played = started.elapsed().as_secs_f64();
        let fitted = fit::leaves_paired(rules.alphabet, &samples, 3, listing);
        eprintln!(
            "{} generation {}: {games} games, {positions} positions, {} leaves valued, {} in {played:.1} s, fitted in {:.1} s, {} leaves listed",
            args.ruleset,
            k + 1,
            samples.len(),
            if cached.is_some() { "read" } else { "played" },
            started.elapsed().as_secs_f64() - played,
            fitted.listed()
        );
        total += samples.len();
        table = Some(fitted);
    }
    let Some(table) = table else { return Err("no generation ran".into()) };
    let text = format!(
        "# dawgref-lab train leaves --ruleset {}{words} --games {games} --seed {} --generations {generations}{from}{}\n\
         # {total} leaves valued at positions of static-bot self-play. `copies <tile> <1st> <2nd> <3rd+>` and\n\
         # `balance <vowels> <consonants> <value>` are the additive part; then `<leave> <value>`.\n{}",
        args.ruleset,
        args.seed,
        listing_args(&args),
        table.to_text()
    );
    match args.out {
        Some(path) => std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?,
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// The paired observations of `games` self-play games from bag seed `first`, numbered by
/// position across the games in game order.
fn play_paired(
    games: u64,
    rules: &Arc<Ruleset>,
    lexicon: &Arc<dawgref::lexicon::Lexicon>,
    first: u64,
    model: LeaveModel,
    generation: u64,
    generations: u64,
) -> Vec<PairedObservation> {
    let bar = games_bar(games);
    bar.set_message(format!("generation {generation} of {generations}"));
    let (per_game, _) = dawgref::selfplay::by_game_observed(
        games,
        |g| paired_samples(rules, lexicon, first.wrapping_add(g), model),
        || bar.inc(1),
    );
    bar.finish_and_clear();
    let mut samples = Vec::new();
    let mut positions = 0;
    for game in per_game {
        let n = game.iter().map(|o| o.group + 1).max().unwrap_or(0);
        samples.extend(game.into_iter().map(|o| PairedObservation { group: o.group + positions, ..o }));
        positions += n;
    }
    samples
}

/// The first line of a file of observations; the second says what they are of (`train
/// leaves`'s arguments), then 16 bytes each, little-endian: group (u32), leave key (u64), value
/// (f32).
const OBSERVATIONS: &str = "dawgref paired observations 1";

fn write_observations(path: &std::path::Path, of: &str, samples: &[PairedObservation]) -> Result<(), String> {
    let mut bytes = format!("{OBSERVATIONS}\n{of}\n").into_bytes();
    for o in samples {
        bytes.extend_from_slice(&o.group.to_le_bytes());
        bytes.extend_from_slice(&o.leave.to_le_bytes());
        bytes.extend_from_slice(&o.value.to_le_bytes());
    }
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn read_observations(path: &std::path::Path, of: &str) -> Result<Vec<PairedObservation>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let refused = |why: String| Err(format!("{}: {why}", path.display()));
    let mut lines = bytes.splitn(3, |&b| b == b'\n');
    let (Some(magic), Some(theirs), Some(body)) = (lines.next(), lines.next(), lines.next()) else {
        return refused("not a file of observations".into());
    };
    if magic != OBSERVATIONS.as_bytes() {
        return refused("not a file of observations".into());
    }
    if theirs != of.as_bytes() {
        return refused(format!(
            "holds the observations of `{}`, not of `{of}`",
            String::from_utf8_lossy(theirs)
        ));
    }
    if body.len() % 16 != 0 {
        return refused(format!("torn: {} bytes of observations, not a multiple of 16", body.len()));
    }
    Ok(body
        .chunks_exact(16)
        .map(|c| PairedObservation {
            group: u32::from_le_bytes(c[0..4].try_into().unwrap_or_default()),
            leave: u64::from_le_bytes(c[4..12].try_into().unwrap_or_default()),
            value: f32::from_le_bytes(c[12..16].try_into().unwrap_or_default()),
        })
        .collect())
}

/// Leaves per position valued in the paired method, besides the one the bot kept.
const PAIRED_LEAVES: usize = 8;
/// Draws per position, shared by its leaves.
const PAIRED_DRAWS: usize = 3;

/// The paired observations of one self-play game: at every other turn with a full refill ahead,
/// the kept leave and random other subsets of the rack, each filled up from the same shuffles of
/// the unseen tiles and valued by the best next play's equity on the board as it is (by
/// `model`). Group numbers are local to the game (the caller offsets them).
fn paired_samples(
    rules: &Arc<Ruleset>,
    lexicon: &Arc<dawgref::lexicon::Lexicon>,
    seed: u64,
    model: LeaveModel,
) -> Vec<PairedObservation> {
    use dawgref::bag::SplitMix64;
    let Ok(mut game) = Game::new(GameConfig::new(rules.clone(), lexicon.clone(), seed)) else {
        return Vec::new();
    };
    let mut rng = SplitMix64::new(seed ^ 0x5EED_1EAF);
    let dawg = lexicon.dawg();
    let mut out = Vec::new();
    let mut group = 0u32;
    let mut now = 0;
    while !game.is_over() {
        now += 1000;
        let seat = game.to_move();
        let Some(rack) = game.rack(seat).copied() else { break };
        let action = static_action(&game, seat, model);
        let bag = game.bag_len();
        if bag >= rules.rack_size && !game.awaiting_final_challenge() && game.turn() % 2 == 0 {
            let board = game.board();
            if let Some(unseen) = dawgref::endgame::Position::unseen(board, &rack) {
                let unseen: Vec<Option<u8>> = unseen.tiles().collect();
                let tiles: Vec<Option<u8>> = rack.tiles().collect();
                let mut kept = rack;
                match &action {
                    dawgref::game::Action::Play(p) => {
                        for t in p.placements() {
                            kept.take_tile(t.tile);
                        }
                    }
                    dawgref::game::Action::Exchange(thrown) => {
                        kept.remove_all(thrown);
                    }
                    _ => {}
                }
                let mut leaves_here = vec![kept];
                for _ in 0..PAIRED_LEAVES {
                    // Any subset but the whole rack.
                    let mask = rng.below((1u64 << tiles.len()) - 1);
                    leaves_here.push(Rack::subset(&tiles, mask));
                }
                let shuffles: Vec<Vec<Option<u8>>> = (0..PAIRED_DRAWS)
                    .map(|_| {
                        let mut u = unseen.clone();
                        for i in (1..u.len()).rev() {
                            u.swap(i, rng.below(i as u64 + 1) as usize);
                        }
                        u
                    })
                    .collect();
                for l in &leaves_here {
                    let Some(k) = leaves::key(l) else { continue };
                    let mut total = 0.0f32;
                    for u in &shuffles {
                        let mut next = *l;
                        let need = rules.rack_size - l.len();
                        for t in u.iter().take(need) {
                            match t {
                                Some(x) => next.add(*x),
                                None => next.add_blank(),
                            }
                        }
                        let bag_then = bag - need;
                        let best = dawgref::movegen::best_by_equity(
                            board,
                            &next,
                            dawg,
                            dawgref::movegen::Mode::Both,
                            model.at(rules, bag_then),
                        );
                        total += best.map_or(0.0, |(e, _)| e);
                    }
                    out.push(PairedObservation { group, leave: k, value: total / PAIRED_DRAWS as f32 });
                }
                group += 1;
            }
        }
        if game.act(seat, action, now).is_err() {
            return Vec::new();
        }
    }
    out
}

/// The listing's options as a table's first line repeats them (nothing where they are the
/// shipped tables' defaults).
fn listing_args(args: &LeavesArgs) -> String {
    let default = fit::Listing::default();
    let mut out = String::new();
    if args.prior != default.prior {
        out += " --prior sub-leaves";
    }
    if args.list_from != default.min_samples {
        out += &format!(" --list-from {}", args.list_from);
    }
    out
}

/// ` --words FILE` as a table's first line repeats its command (nothing without a word list).
fn words_arg(words: Option<&std::path::Path>) -> String {
    words.map_or(String::new(), |p| format!(" --words {}", p.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_read_back_as_written_and_another_runs_or_a_torn_file_are_refused() {
        let path = std::env::temp_dir().join(format!("dawgref-observations-{}", std::process::id()));
        let of = "--ruleset english --games 100 --seed 1";
        let written: Vec<PairedObservation> = (0..100u32)
            .map(|i| PairedObservation {
                group: i / 9,
                leave: u64::from(i) * 0x0104_1041 + 1,
                value: i as f32 * -1.25,
            })
            .collect();
        write_observations(&path, of, &written).unwrap();
        let read = read_observations(&path, of).unwrap();
        let fields =
            |o: &[PairedObservation]| o.iter().map(|o| (o.group, o.leave, o.value)).collect::<Vec<_>>();
        assert_eq!(fields(&read), fields(&written));
        let other = read_observations(&path, "--ruleset english --games 100 --seed 2").unwrap_err();
        assert!(other.ends_with("holds the observations of `--ruleset english --games 100 --seed 1`, not of `--ruleset english --games 100 --seed 2`"), "{other}");
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.pop();
        std::fs::write(&path, bytes).unwrap();
        let torn = read_observations(&path, of).unwrap_err();
        assert!(torn.ends_with("torn: 1599 bytes of observations, not a multiple of 16"), "{torn}");
        std::fs::write(&path, "a table\n").unwrap();
        let not = read_observations(&path, of).unwrap_err();
        assert!(not.ends_with("not a file of observations"), "{not}");
        std::fs::remove_file(&path).unwrap();
    }
}

//! `dawgref-lab bench infer | peg | think | words`: the champion's parts measured for BENCHMARKS.md.
//! - `infer`: how much rack inference knows, on strong-bot plays (true leaves known) and on
//!   the human plays of GCG records: the geometric mean of the inferred probability of the true
//!   leave over its probability in a blind draw.
//! - `peg`: the pre-endgame on the first position of seeded strong-bot games with exactly one
//!   (or `--bag`) tile(s) in the bag: how often every draw is proven within the budget.
//! - `think`: how much of its budget the champion uses per move, on mid-game positions.
//! - `words`: word study: subanagrams of racks with two blanks, and a pattern over a lexicon.

use super::CliResult;
use clap::Args;
use dawgref::bot::{BotLevel, ChampionOptions, champion_action, play_while};
use dawgref::game::record::{ImportAsk, import_setup};
use dawgref::game::{Action, ChallengeRule, EventKind, Game, GameConfig};
use dawgref::infer::{self, Observation};
use dawgref::lexicon::Lexicon;
use dawgref::rack::Rack;
use dawgref::rules::{Ruleset, RulesetKind};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct InferArgs {
    /// Strong-bot plays to explain.
    #[arg(long, default_value_t = 1000)]
    plays: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value = "english")]
    ruleset: RulesetKind,
    /// Time per inference, in milliseconds (exact when every leave fits in it).
    #[arg(long, default_value_t = 500)]
    budget_ms: u64,
    /// GCG records whose human plays are explained too (every `.gcg` file in it; English).
    #[arg(long)]
    gcg_dir: Option<PathBuf>,
    /// The model's tolerance (points of equity) and floor; default: the shipped ones.
    #[arg(long)]
    tolerance: Option<f32>,
    #[arg(long)]
    spread: Option<f32>,
    #[arg(long)]
    floor: Option<f64>,
}

#[derive(Args, Debug)]
pub struct PegArgs {
    #[command(flatten)]
    sample: crate::setup::Sample,
    /// Tiles in the bag.
    #[arg(long, default_value_t = 1)]
    bag: usize,
    #[arg(long, default_value_t = 10)]
    candidates: usize,
    #[arg(long, default_value_t = 1000)]
    budget_ms: u64,
    /// A line per position on standard error: its game's seed, the time, whether every draw
    /// was proven, the outcomes proven, the position as CGP (the mover's rack only) and the
    /// candidates (UCGI: `8H.WORD`, `pass`), to run another engine on the same positions.
    #[arg(long)]
    each: bool,
}

#[derive(Args, Debug)]
pub struct ThinkArgs {
    #[command(flatten)]
    sample: crate::setup::Sample,
    #[arg(long, default_value_t = 1000)]
    budget_ms: u64,
    /// Think on the server's pool, as a live game's bot does (its threads' priority), instead of
    /// on this thread.
    #[arg(long)]
    pool: bool,
    /// With --pool: the niceness of the pool's bot threads (the server's: 0, the process's own).
    #[arg(long, default_value_t = dawgref::host::BOT_NICE, value_parser = clap::value_parser!(i32).range(0..=19))]
    bot_nice: i32,
    /// Busy processes (shell loops) started beside the bench for its length: another program
    /// keeping the cores busy.
    #[arg(long, default_value_t = 0)]
    load: usize,
    /// Every move of this many whole games of the champion against itself (seeds from
    /// `--seed`), by where each decision is made, instead of mid-game positions: where the
    /// budget goes unspent.
    #[arg(long, default_value_t = 0)]
    games: u64,
    /// With --games: the champion's options changed as `match`'s `champion+…` players are
    /// (`spend`, `noreserve`, …, joined by `+`).
    #[arg(long)]
    champion: Option<String>,
    /// The slow moves of a match against MAGPIE timed again, instead of mid-game positions:
    /// its `overruns.txt` (`vs-magpie/run.sh h2h` writes it beside the games); each champion
    /// line's game is read from its GCG record in the same folder, replayed to that move, and
    /// the champion thinks there `--times` times.
    #[arg(long)]
    replay: Option<PathBuf>,
    /// With --replay: how often each move is timed.
    #[arg(long, default_value_t = 3)]
    times: usize,
}

/// Busy shell loops, killed when dropped.
struct Load(Vec<std::process::Child>);

impl Load {
    fn start(n: usize) -> std::io::Result<Load> {
        let spawn = || std::process::Command::new("sh").args(["-c", "while :; do :; done"]).spawn();
        Ok(Load((0..n).map(|_| spawn()).collect::<Result<_, _>>()?))
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The figures of one set of explained plays.
#[derive(Default)]
struct Gains {
    /// ln(inferred ÷ blind) per play.
    logs: Vec<f64>,
    fits: usize,
    exact: usize,
    ms: Vec<f64>,
}

impl Gains {
    fn add(
        &mut self,
        game: &Game,
        turn: u32,
        observer: Option<usize>,
        params: infer::Params,
        budget_ms: u64,
    ) {
        let Ok(observation) = Observation::from_game(game, turn, observer) else { return };
        // The true leave: the rack before the action less what it used.
        let Some(event) = nth_turn(game, turn) else { return };
        let mut leave = event.rack;
        match &observation.action {
            Action::Play(play) => {
                for p in play.placements() {
                    leave.take_tile(p.tile);
                }
            }
            Action::Exchange(tiles) => {
                leave.remove_all(&tiles.clone());
            }
            _ => {}
        }
        let dawg = game.config().lexicon.dawg();
        let started = Instant::now();
        let limits = infer::InferLimits {
            budget: dawgref::budget::Budget::until(started + Duration::from_millis(budget_ms)),
            seed: u64::from(turn),
            ..Default::default()
        };
        let Ok(inference) = infer::infer(&observation, dawg, params, limits) else { return };
        self.ms.push(started.elapsed().as_secs_f64() * 1000.0);
        let gain = inference.gain(&leave, dawg);
        if gain <= 0.0 {
            return;
        }
        self.logs.push(gain.ln());
        self.fits += usize::from(inference.weight(&leave, dawg) >= 1.0);
        self.exact += usize::from(inference.exact);
    }

    fn print(&mut self, what: &str) {
        let n = self.logs.len();
        if n == 0 {
            println!("{what}: no plays");
            return;
        }
        let mean = self.logs.iter().sum::<f64>() / n as f64;
        let sd = (self.logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n.max(2) - 1) as f64).sqrt();
        let se = sd / (n as f64).sqrt();
        self.ms.sort_by(f64::total_cmp);
        println!(
            "{what}: {n} plays, geometric mean of P(true leave) / P(blind draw) {:.2} (e^(mean ± 1 s.e.): {:.2} to {:.2}); \
             true leave fits the play {:.1}%; exact {:.1}%; time p50 {:.0} ms, p90 {:.0} ms",
            mean.exp(),
            (mean - se).exp(),
            (mean + se).exp(),
            100.0 * self.fits as f64 / n as f64,
            100.0 * self.exact as f64 / n as f64,
            crate::setup::percentile(&self.ms, 0.5),
            crate::setup::percentile(&self.ms, 0.9),
        );
    }
}

/// The event that took turn `turn`.
fn nth_turn(game: &Game, turn: u32) -> Option<&dawgref::game::Event> {
    game.history().iter().filter(|e| e.kind.takes_turn()).nth(turn as usize)
}

pub fn infer(args: InferArgs) -> CliResult {
    let (rules, lexicon) = crate::setup::ruleset(args.ruleset)?;
    // As InferRack judges them: the strong bot's plays by the static player's model, people's
    // by the default one; a parameter given here replaces both.
    let given = |model: infer::Params| infer::Params {
        tolerance: args.tolerance.unwrap_or(model.tolerance),
        spread: args.spread.unwrap_or(model.spread),
        floor: args.floor.unwrap_or(model.floor),
    };
    let params = given(BotLevel::Strong.judged_by());
    let human_params = given(infer::Params::default());
    let mut bots = Gains::default();
    let bar = dawgref::console::games_bar(args.plays as u64);
    let mut g = args.seed;
    while bots.logs.len() < args.plays {
        let mut config = GameConfig::new(rules.clone(), lexicon.clone(), g);
        config.challenge = ChallengeRule::Void;
        g += 1;
        let mut game = Game::new(config)?;
        play_while(&mut game, &[BotLevel::Strong], 1000, |_| true)?;
        for turn in 0..game.turn() {
            let Some(e) = nth_turn(&game, turn) else { continue };
            if !matches!(e.kind, EventKind::Play { .. } | EventKind::Exchange { .. }) {
                continue;
            }
            let before = bots.logs.len();
            bots.add(&game, turn, Some(1 - e.seat), params, args.budget_ms);
            if bots.logs.len() > before {
                bar.inc(1);
            }
            if bots.logs.len() >= args.plays {
                break;
            }
        }
    }
    bar.finish_and_clear();
    bots.print(&format!("{} strong-bot plays (games from seed {})", args.ruleset, args.seed));
    if let Some(dir) = &args.gcg_dir {
        let (_, lexicon) = crate::setup::ruleset(RulesetKind::english())?;
        let mut people = Gains::default();
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "gcg"))
            .collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path)?;
            let Ok(record) = dawgref::notation::gcg::parse(&text) else { continue };
            if record.players.len() != 2 {
                continue;
            }
            // Set up as ImportGcg and `dawgref analyze` set a record up, in English with the
            // lexicon at hand whatever the record names.
            let ask = ImportAsk { ruleset: Some(RulesetKind::english()), ..ImportAsk::default() };
            let Ok(config) = import_setup(&record, &ask, |_| Some(lexicon.clone())) else { continue };
            let Ok(game) = dawgref::game::record::import_game(&record, config) else {
                eprintln!("{}: does not replay, skipped", path.display());
                continue;
            };
            // Only turns whose rack the record gives (a play line without one is not explained).
            let with_rack = dawgref::review::racks_shown(&record);
            for turn in 0..game.turn() {
                let Some(e) = nth_turn(&game, turn) else { continue };
                if !matches!(e.kind, EventKind::Play { .. } | EventKind::Exchange { .. })
                    || !with_rack.get(turn as usize).copied().unwrap_or(false)
                {
                    continue;
                }
                people.add(&game, turn, None, human_params, args.budget_ms);
            }
        }
        people.print(&format!("human plays of the records in {}", dir.display()));
    }
    Ok(ExitCode::SUCCESS)
}

/// The first position of a seeded strong-bot game with `bag` tiles in the bag and the side to
/// move holding a full rack.
fn with_bag(rules: &Arc<Ruleset>, lexicon: &Arc<Lexicon>, seed: u64, bag: usize) -> Option<Game> {
    let mut config = GameConfig::new(rules.clone(), lexicon.clone(), seed);
    config.challenge = ChallengeRule::Void;
    let mut game = Game::new(config).ok()?;
    play_while(&mut game, &[BotLevel::Strong], 1000, |g| g.bag_len() > bag).ok()?;
    (game.bag_len() == bag && !game.is_over()).then_some(game)
}

pub fn peg(args: PegArgs) -> CliResult {
    use dawgref::budget::Budget;
    use dawgref::pre_endgame::{PreEndgameLimits, Setup, solve};
    let (rules, lexicon) = crate::setup::ruleset(args.sample.ruleset)?;
    let (mut times, mut exact, mut outcomes, mut proven) = (Vec::new(), 0usize, 0usize, 0usize);
    let bar = dawgref::console::games_bar(args.sample.positions);
    let mut g = args.sample.seed;
    while (times.len() as u64) < args.sample.positions {
        g += 1;
        let Some(game) = with_bag(&rules, &lexicon, g, args.bag) else { continue };
        let Some(setup) = Setup::from_game(&game, args.candidates) else { continue };
        let started = Instant::now();
        let budget = PreEndgameLimits {
            budget: Budget::until(started + Duration::from_millis(args.budget_ms)),
            seed: g,
            ..PreEndgameLimits::default()
        };
        let report = solve(&setup, lexicon.dawg(), &budget, |_| true);
        let took = started.elapsed().as_secs_f64() * 1000.0;
        times.push(took);
        exact += usize::from(report.exact());
        let (mut here, mut here_proven) = (0, 0);
        for r in &report.records {
            here += r.scenarios as usize;
            here_proven += r.exact as usize;
        }
        outcomes += here;
        proven += here_proven;
        if args.each {
            bar.suspend(|| {
                eprintln!(
                    "seed {g}: {took:.0} ms, {}, {here_proven}/{here} proven; {}",
                    if report.exact() { "exact" } else { "inexact" },
                    peg_position(&game, &setup)
                )
            });
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let n = times.len() as f64;
    times.sort_by(f64::total_cmp);
    println!(
        "{}: {} positions with {} in the bag (strong-bot games from seed {}), {} candidates and the pass, budget {} ms: \
         every draw proven for every candidate {:.1}%; time p50 {:.0} ms, p90 {:.0} ms; outcomes proven {:.1}%",
        args.sample.ruleset,
        times.len(),
        args.bag,
        args.sample.seed + 1,
        args.candidates,
        args.budget_ms,
        100.0 * exact as f64 / n,
        crate::setup::percentile(&times, 0.5),
        crate::setup::percentile(&times, 0.9),
        100.0 * proven as f64 / outcomes.max(1) as f64,
    );
    Ok(ExitCode::SUCCESS)
}

/// The position as CGP with the mover's rack only, and the setup's candidates in UCGI's form,
/// `8H.WORD` (tiles played through written as the board's) or `pass`, joined by commas.
fn peg_position(game: &Game, setup: &dawgref::pre_endgame::Setup) -> String {
    use dawgref::alphabet::EMPTY;
    use dawgref::notation::{cgp, format_play};
    let me = game.to_move();
    let rack = game.rack(me).copied().unwrap_or_default();
    let cgp = cgp::write(&cgp::from_board(
        game.board(),
        &[rack, dawgref::rack::Rack::new()],
        &[game.scores()[me], game.scores()[1 - me]],
        game.scoreless_turns(),
        cgp::Ops { lex: Some(game.config().lexicon.name().to_string()), ..Default::default() },
    ));
    let alphabet = game.config().rules.alphabet;
    let candidates: Vec<String> = setup
        .candidates
        .iter()
        .map(|c| match &c.action {
            dawgref::game::Action::Play(play) => {
                // Squares played through are written as the board's tiles, as UCGI has them.
                let through: String = (0..play.tiles().len())
                    .map(|i| {
                        let (row, col) = play.square(i);
                        let t = play.tiles()[i];
                        alphabet.tile_text(if t == EMPTY { game.board().get(row, col) } else { t })
                    })
                    .collect();
                let coordinate = format_play(play, alphabet);
                let coordinate = coordinate.split(' ').next().unwrap_or_default();
                format!("{coordinate}.{through}")
            }
            dawgref::game::Action::Pass => "pass".to_string(),
            other => format!("{other:?}"),
        })
        .collect();
    format!("{cgp}; {}", candidates.join(","))
}

/// Where a champion's decision is made, by the position before it (the champion's own order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    /// One sensible move or none: a forced decision.
    Forced,
    /// The bag empty: the exact endgame.
    Endgame,
    /// One or two tiles in the bag: the pre-endgame.
    PreEndgame,
    /// Seven tiles or fewer: simulation with lines played to the end.
    PlayOut,
    /// Simulation of two plies.
    Simulation,
}

impl Phase {
    fn of(game: &Game, rack: &Rack) -> Phase {
        let plays = dawgref::movegen::all_plays(
            game.board(),
            rack,
            game.config().lexicon.dawg(),
            dawgref::movegen::Mode::Both,
        );
        match game.bag_len() {
            _ if plays.len() <= 1 => Phase::Forced,
            0 => Phase::Endgame,
            n if n <= dawgref::bot::PRE_ENDGAME_BAG => Phase::PreEndgame,
            n if n <= 7 => Phase::PlayOut,
            _ => Phase::Simulation,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Phase::Forced => "forced (one play or none)",
            Phase::Endgame => "endgame (bag empty)",
            Phase::PreEndgame => "pre-endgame (1-2 in the bag)",
            Phase::PlayOut => "simulation played out (3-7)",
            Phase::Simulation => "simulation (8 or more)",
        }
    }
}

/// `bench think --games N`: every move of whole champion games, by phase.
fn think_whole_games(args: &ThinkArgs) -> CliResult {
    let (rules, lexicon) = crate::setup::ruleset(args.sample.ruleset)?;
    let budget = Duration::from_millis(args.budget_ms);
    let options = match &args.champion {
        Some(variant) => super::matches::champion_options(variant)?,
        None => ChampionOptions::default(),
    };
    let bar = dawgref::console::games_bar(args.games);
    // Each decision: its phase, its share of the budget, and its game's seed and turn (to look
    // at the slowest again).
    let mut moves: Vec<(Phase, f64, u64, u32)> = Vec::new();
    for g in 0..args.games {
        let mut game = Game::new(GameConfig::new(rules.clone(), lexicon.clone(), args.sample.seed + g))?;
        let mut now = 0;
        while !game.is_over() {
            let me = game.to_move();
            let rack: Rack = *game.rack(me).expect("a seat");
            let phase = Phase::of(&game, &rack);
            let started = Instant::now();
            let action = champion_action(&game, me, budget, &options);
            let share = started.elapsed().as_secs_f64() / budget.as_secs_f64();
            moves.push((phase, share, args.sample.seed + g, game.turn()));
            now += 1000;
            game.act(me, action, now)?;
            if game.awaiting_final_challenge() {
                now += 1000;
                game.act(game.to_move(), Action::Pass, now)?;
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let all: Vec<f64> = moves.iter().map(|m| m.1).collect();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let under = |v: &[f64], x: f64| v.iter().filter(|&&s| s < x).count();
    println!(
        "{}: {} games, {} decisions, budget {} ms: mean {:.1}% of the budget; {} ({:.1}%) under 24%",
        args.sample.ruleset,
        args.games,
        all.len(),
        args.budget_ms,
        100.0 * mean(&all),
        under(&all, 0.24),
        100.0 * under(&all, 0.24) as f64 / all.len().max(1) as f64
    );
    let choices: Vec<f64> = moves.iter().filter(|m| m.0 != Phase::Forced).map(|m| m.1).collect();
    println!("  with more than one play: mean {:.1}% over {}", 100.0 * mean(&choices), choices.len());
    println!("phase                              decisions  mean share  median  under 24%  under 95%    max");
    for phase in [Phase::Forced, Phase::Endgame, Phase::PreEndgame, Phase::PlayOut, Phase::Simulation] {
        let mut v: Vec<f64> = moves.iter().filter(|m| m.0 == phase).map(|m| m.1).collect();
        v.sort_by(f64::total_cmp);
        if v.is_empty() {
            continue;
        }
        println!(
            "{:<34} {:>9}  {:>9.1}%  {:>5.1}%  {:>9}  {:>9}  {:>5.0}%",
            phase.name(),
            v.len(),
            100.0 * mean(&v),
            100.0 * crate::setup::percentile(&v, 0.5),
            under(&v, 0.24),
            under(&v, 0.95),
            100.0 * v.last().copied().unwrap_or(0.0)
        );
    }
    if let Some((phase, share, seed, turn)) = moves.iter().max_by(|a, b| a.1.total_cmp(&b.1)) {
        println!(
            "slowest: {:.0}% of the budget, game seed {seed} turn {turn} ({})",
            100.0 * share,
            phase.name()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `bench think --replay overruns.txt`: the champion's slow moves in a match, timed again where
/// they were made.
fn think_again(args: &ThinkArgs, overruns: &std::path::Path) -> CliResult {
    let (rules, lexicon) = crate::setup::ruleset(args.sample.ruleset)?;
    let budget = Duration::from_millis(args.budget_ms);
    let options = crate::magpie_player::champion_options(args.champion.as_deref(), &rules)?;
    let folder = overruns.parent().unwrap_or(std::path::Path::new("."));
    let text = std::fs::read_to_string(overruns).map_err(|e| format!("{}: {e}", overruns.display()))?;
    let slow = text.lines().filter_map(crate::vs_magpie::champion_overrun);
    let mut worst: f64 = 0.0;
    println!(
        "record                                   turn  bag  then ms  again ms (each of {})",
        args.times
    );
    for (file, turn, then) in slow {
        let path = folder.join(file);
        let record = dawgref::notation::gcg::parse(
            &std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?,
        )
        .map_err(|e| format!("{}: {e}", path.display()))?;
        let ask = ImportAsk { ruleset: Some(args.sample.ruleset), ..ImportAsk::default() };
        let config = import_setup(&record, &ask, |_| Some(lexicon.clone()))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let game = dawgref::game::record::import_game(&record, config)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let Some(before) = game.before_turn(turn) else {
            return Err(format!("{}: no turn {turn}", path.display()).into());
        };
        let me = before.to_move();
        let again: Vec<f64> = (0..args.times)
            .map(|_| {
                let started = Instant::now();
                let _ = champion_action(&before, me, budget, &options);
                started.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        worst = again.iter().copied().fold(worst, f64::max);
        let shown: Vec<String> = again.iter().map(|ms| format!("{ms:.0}")).collect();
        println!("{file:<40} {turn:>4}  {:>3}  {then:>7.0}  {}", before.bag_len(), shown.join(" "));
    }
    println!("slowest again: {worst:.0} ms at a budget of {} ms", args.budget_ms);
    Ok(ExitCode::SUCCESS)
}

pub fn think(args: ThinkArgs) -> CliResult {
    if let Some(overruns) = &args.replay {
        return think_again(&args, overruns);
    }
    if args.games > 0 {
        return think_whole_games(&args);
    }
    let (rules, lexicon) = crate::setup::ruleset(args.sample.ruleset)?;
    let budget = Duration::from_millis(args.budget_ms);
    let mut shares = Vec::new();
    let mut overruns = Vec::new();
    let pool = args.pool.then(|| dawgref::host::Pool::with_bot_nice(1, None, args.bot_nice));
    let _load = Load::start(args.load)?;
    let bar = dawgref::console::games_bar(args.sample.positions);
    let mut g = args.sample.seed;
    while (shares.len() as u64) < args.sample.positions {
        g += 1;
        let mut game = Game::new(GameConfig::new(rules.clone(), lexicon.clone(), g))?;
        // Some turns in, with tiles still to draw: a decision the simulation makes.
        let turns = 3 + g % 10;
        let mut n = 0;
        play_while(&mut game, &[BotLevel::Strong], 1000, |_| {
            n += 1;
            n < turns
        })?;
        if game.is_over() || game.bag_len() <= 7 {
            continue;
        }
        let me = game.to_move();
        let rack: Rack = *game.rack(me).expect("a seat");
        let forced =
            dawgref::movegen::all_plays(game.board(), &rack, lexicon.dawg(), dawgref::movegen::Mode::Both)
                .len()
                <= 1;
        if forced {
            continue;
        }
        let started = Instant::now();
        match &pool {
            // As a live game's bot: the decision is a bot's job on the pool.
            Some(pool) => {
                let (tx, rx) = std::sync::mpsc::channel();
                let game = game.clone();
                pool.spawn_bot(move || {
                    let _ = tx.send(champion_action(&game, me, budget, &ChampionOptions::default()));
                });
                rx.recv()?;
            }
            None => {
                let _ = champion_action(&game, me, budget, &ChampionOptions::default());
            }
        }
        let elapsed = started.elapsed();
        shares.push(elapsed.as_secs_f64() / budget.as_secs_f64());
        overruns.push(elapsed.saturating_sub(budget).as_secs_f64() * 1000.0);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let n = shares.len() as f64;
    let mean = shares.iter().sum::<f64>() / n;
    let mut bins = [0usize; 11];
    for s in &shares {
        bins[((s * 10.0).floor() as usize).min(10)] += 1;
    }
    shares.sort_by(f64::total_cmp);
    println!(
        "{}: {} mid-game decisions (not forced), budget {} ms: mean think time {:.1}% of the budget, median {:.1}%",
        args.sample.ruleset,
        shares.len(),
        args.budget_ms,
        100.0 * mean,
        100.0 * crate::setup::percentile(&shares, 0.5)
    );
    overruns.sort_by(f64::total_cmp);
    println!(
        "overrun of the budget ({}, {} busy processes beside): p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        if args.pool {
            format!("a bot's job on the pool, nice {}", args.bot_nice)
        } else {
            "on this thread".into()
        },
        args.load,
        crate::setup::percentile(&overruns, 0.5),
        crate::setup::percentile(&overruns, 0.9),
        crate::setup::percentile(&overruns, 0.99),
        crate::setup::percentile(&overruns, 1.0)
    );
    println!("share of the budget used: count");
    for (i, c) in bins.iter().enumerate() {
        let label =
            if i == 10 { "≥100%".to_string() } else { format!("{:>3}–{:>3}%", i * 10, i * 10 + 10) };
        println!("  {label}: {c}");
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args, Debug)]
pub struct WordsArgs {
    /// Racks of seven tiles with two blanks, timed one by one.
    #[arg(long, default_value_t = 1000)]
    racks: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value = "english")]
    ruleset: RulesetKind,
}

/// Word study on one core: every subanagram (length 2 and up) of seven-tile racks with two
/// blanks (five tiles from the bag), and the pattern `*Q*` (the ruleset's last letter for the
/// Cyrillic ones) over the whole lexicon.
pub fn words(args: WordsArgs) -> CliResult {
    use dawgref::bag::SplitMix64;
    use dawgref::lexicon::study::{Order, Pattern, Query, find};
    let (rules, lexicon) = crate::setup::ruleset(args.ruleset)?;
    let dawg = lexicon.dawg();
    let tiles: Vec<Option<dawgref::alphabet::Letter>> =
        rules.full_set().tiles().filter(|t| t.is_some()).collect();
    let mut rng = SplitMix64::new(args.seed);
    let mut times = Vec::with_capacity(args.racks);
    let mut found = 0usize;
    for _ in 0..args.racks {
        let mut rack = Rack::new();
        rack.add_blank();
        rack.add_blank();
        for _ in 0..5 {
            if let Some(l) = tiles[rng.below(tiles.len() as u64) as usize] {
                rack.add(l);
            }
        }
        let query = Query::Anagram { rack, min_length: 2 };
        let started = Instant::now();
        let answers = find(dawg, &rules, &query, Order::Length, 100);
        times.push(started.elapsed().as_secs_f64() * 1e6);
        found += answers.total;
    }
    times.sort_by(f64::total_cmp);
    let q = rules.alphabet.letter_text(if args.ruleset == RulesetKind::english() {
        16
    } else {
        rules.alphabet.len() as u8 - 1
    });
    let pattern = Pattern::parse(&format!("*{q}*"), rules.alphabet)?;
    let mut pattern_times = Vec::new();
    let mut matched = 0;
    for _ in 0..21 {
        let started = Instant::now();
        let answers = find(dawg, &rules, &Query::Pattern(pattern.clone()), Order::Alphabet, 100);
        pattern_times.push(started.elapsed().as_secs_f64() * 1e3);
        matched = answers.total;
    }
    pattern_times.sort_by(f64::total_cmp);
    println!(
        "{}: {} racks of 5 tiles and 2 blanks, every subanagram of 2+ letters: p50 {:.0} µs, p90 {:.0} µs, p99 {:.0} µs \
         ({:.0} words a rack); pattern *{q}* over the lexicon: median {:.2} ms ({matched} words)",
        args.ruleset,
        times.len(),
        crate::setup::percentile(&times, 0.5),
        crate::setup::percentile(&times, 0.9),
        crate::setup::percentile(&times, 0.99),
        found as f64 / times.len().max(1) as f64,
        crate::setup::percentile(&pattern_times, 0.5),
    );
    Ok(ExitCode::SUCCESS)
}

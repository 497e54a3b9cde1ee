//! `dawgref-lab bench …`: measured figures for BENCHMARKS.md (never timing assertions in tests).

use super::CliResult;
use clap::{Args, Subcommand};
use dawgref::board::Board;
use dawgref::lexicon::{Lexicon, catalog};
use dawgref::movegen::{CollectAll, Mode, generate};
use dawgref::play::Play;
use dawgref::rack::Rack;
use dawgref::rules::{Ruleset, RulesetKind};
use dawgref::score::evaluate_normalized;
use dawgref::selfplay::{Turn, greedy_game};
use dawgref::validate::validate_play;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Full move generation over the positions of seeded greedy self-play games.
    Movegen(PositionArgs),
    /// The best play found best-first (anchors in the order of an upper bound on equity) next
    /// to full generation keeping the best, on `bench movegen`'s positions: by score alone and
    /// by score plus the strong bot's leave value.
    BestPlay(PositionArgs),
    /// Strong (leave-aware) bot against greedy: mean spread over many games, seats alternating.
    Bots {
        #[arg(long, default_value_t = 1000)]
        games: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value = "english")]
        ruleset: RulesetKind,
    },
    /// The server over loopback: requests/s and latency of ValidatePlay, Evaluate and
    /// Health/Check, bot-vs-bot games per second, bot decision time, memory per live game.
    Server {
        /// Seconds of load per call.
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
        /// Concurrent client loops.
        #[arg(long, default_value_t = 16)]
        clients: usize,
        /// Bot-vs-bot games played through CreateGame.
        #[arg(long, default_value_t = 200)]
        games: usize,
        /// Games created and held for the memory figure.
        #[arg(long, default_value_t = 10_000)]
        live_games: usize,
    },
    /// Bot-vs-bot games against a running server on this machine: keeps `games` games (bots
    /// moving as fast as they decide) going for `seconds`, then prints bot moves per second.
    /// Used by `scripts/h2load.sh` to load the server while it measures latency.
    Botload {
        /// The server's address (loopback only).
        #[arg(long, default_value = "127.0.0.1:50051")]
        addr: std::net::SocketAddr,
        /// Games played at once.
        #[arg(long, default_value_t = 8)]
        games: usize,
        /// Seconds of load.
        #[arg(long, default_value_t = 10.0)]
        seconds: f64,
    },
    /// A live game's `strong` bot answering passes while analysis searches flood the server
    /// (InferRack and Simulate asking a minute each, every one from a client of its own), their
    /// clients gone after `abandon_ms` and then waiting, next to no flood.
    Flood {
        /// Passes answered a scenario.
        #[arg(long, default_value_t = 20)]
        turns: usize,
        /// InferRack requests in the flood.
        #[arg(long, default_value_t = 12)]
        infers: usize,
        /// Simulate requests in the flood.
        #[arg(long, default_value_t = 12)]
        sims: usize,
        /// When the abandoning clients go.
        #[arg(long, default_value_t = 1000)]
        abandon_ms: u64,
    },
    /// The game store: durable and in-memory turns/s across concurrent games, recovery time of
    /// stored games, data directory size per finished game.
    Store {
        /// Scratch directory (must not exist; removed afterwards).
        #[arg(long, default_value = "data/bench-store")]
        dir: std::path::PathBuf,
        /// Concurrent games for the turns/s figures.
        #[arg(long, default_value_t = 1000)]
        games: usize,
        /// Turns per game for the turns/s figures.
        #[arg(long, default_value_t = 20)]
        turns: usize,
        /// Games stored, then recovered.
        #[arg(long, default_value_t = 10_000)]
        recover: usize,
        /// Games played to the end for the size figure.
        #[arg(long, default_value_t = 100)]
        finished: usize,
        /// Also measure PostgreSQL (an empty database: its tables are filled): one replica,
        /// then three replicas in this process sharing it, each playing its own games.
        #[arg(long)]
        database_url: Option<String>,
    },
    /// The cost of a forwarded call: two replicas in this process on one PostgreSQL, a game
    /// asked for at its owner and at the other replica (GetGame one at a time and from many
    /// clients, SubmitTurn one at a time).
    Forward {
        /// An empty PostgreSQL database (its tables are created and filled).
        #[arg(long)]
        database_url: String,
        /// Seconds of load per GetGame figure.
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
        /// Concurrent clients for the loaded GetGame figures.
        #[arg(long, default_value_t = 16)]
        clients: usize,
        /// Durable turns timed each way.
        #[arg(long, default_value_t = 500)]
        turns: u32,
    },
    /// Three replicas in this process on one PostgreSQL behind the deployment's HAProxy
    /// (Debian's `haproxy` must be installed), clients sending `x-dawgref-game`: the share of
    /// calls served by the owner without a forward after each game's first two turns, and
    /// GetGame throughput through the balancer next to straight to each game's owner.
    /// `DAWGREF_BALANCER_CPUS` (a `taskset` CPU list) runs HAProxy on cores of its own; pin the
    /// bench to the others (`taskset -c 0 dawgref-lab bench balancer …`) to model a deployment.
    Balancer {
        /// An empty PostgreSQL database (its tables are created and filled).
        #[arg(long)]
        database_url: String,
        /// Games created through the balancer.
        #[arg(long, default_value_t = 300)]
        games: usize,
        /// Turns each game plays (a GetGame and a pass each).
        #[arg(long, default_value_t = 10)]
        turns: u32,
        /// Seconds of GetGame load each way.
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
        /// Concurrent clients.
        #[arg(long, default_value_t = 16)]
        clients: usize,
    },
    /// Evaluate, ValidatePlay and the incremental board update, per call, over the best play of
    /// each position of seeded self-play games.
    Engine {
        #[arg(long, default_value_t = 100)]
        games: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value = "en")]
        lexicon: String,
    },
    /// The endgame solver on the bag-empty positions of seeded strong-bot games: the share
    /// solved exactly within the budget, solve times, and the spread it gains over the strong
    /// bot's static play (the same position played out both ways against the strong bot).
    Endgame {
        #[command(flatten)]
        sample: crate::setup::Sample,
        /// Time per solve, in milliseconds.
        #[arg(long, default_value_t = 1000)]
        budget_ms: u64,
        /// Only solve (no play-outs): the distribution of solve times on positions whose side
        /// to move holds a full rack, and with `--lines N` > 1 each position solved again for
        /// N lines, the time ratio reported.
        #[arg(long)]
        solve_only: bool,
        #[arg(long, default_value_t = 1)]
        lines: usize,
        /// With `--solve-only`: a line per position on standard error (its game's seed, the
        /// solve's time in ms, exact or not, the deepest iteration, the value, positions
        /// searched, the size and cost of its small lexicon, and the position as CGP), to
        /// compare two builds of the solver, or another engine, position by position.
        #[arg(long)]
        each: bool,
    },
    /// The endgame solver valuing its depth limit by a play-out against the solver without it:
    /// bag-empty positions of seeded strong-bot games, each played out from both sides.
    EndgamePlayout {
        #[command(flatten)]
        sample: crate::setup::Sample,
        /// Time per move, in milliseconds.
        #[arg(long, default_value_t = 250)]
        budget_ms: u64,
        /// Positions played at once.
        #[arg(long, default_value_t = 2)]
        threads: usize,
    },
    /// Simulation speed: iterations per second on one core (an iteration plays every candidate
    /// not yet ruled out, and its plies, on one draw), on mid-game positions of seeded
    /// strong-bot games.
    Sim {
        #[arg(long, default_value_t = 20)]
        positions: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value = "english")]
        ruleset: RulesetKind,
        /// Candidates per position.
        #[arg(long, default_value_t = 10)]
        candidates: usize,
        /// Turns played after each candidate.
        #[arg(long, default_value_t = 2)]
        plies: usize,
        /// Iterations per position.
        #[arg(long, default_value_t = 200)]
        iterations: u32,
    },
    /// Rack inference on strong-bot plays and on the human plays of GCG records: how much
    /// likelier it makes the true leave than a blind draw.
    Infer(super::bench_champion::InferArgs),
    /// The pre-endgame on positions with one (or `--bag`) tile(s) in the bag: how often every
    /// draw is proven for every candidate within the budget.
    Peg(super::bench_champion::PegArgs),
    /// How much of its budget the champion thinks on mid-game moves (a histogram).
    Think(super::bench_champion::ThinkArgs),
    /// Word study: subanagrams of racks with two blanks, and a pattern over the whole lexicon.
    Words(super::bench_champion::WordsArgs),
    /// Whole-game review over gRPC: a bot game per ruleset reviewed, its wall time next to
    /// the bound, then the same request answered from the store (p50, p99).
    Review(super::bench_review::ReviewArgs),
    /// A round's reviews as durable jobs: a round of strong bots reviewed by ReviewGames, its
    /// wall time next to the bound, each replica's share, a live bot's answer time meanwhile.
    ReviewJobs(super::bench_review_jobs::ReviewJobsArgs),
    /// Many live games on one server: memory per game awake and asleep, SubmitTurn latency
    /// while they play, the time to wake a sleeping game.
    Livegames(super::bench_livegames::LiveGamesArgs),
    /// Swiss pairing of large divisions round after round, and the standings after a result.
    Pairing(super::bench_pairing::PairingArgs),
    /// A director's calls on a large division over gRPC: PairRound, StartRound (every game made),
    /// RecordResult answered with the standings, GetTournament.
    Tournament(super::tournament::BenchTournamentArgs),
    /// Every player of a large division reports their own result at the same moment
    /// (ReportResult, both must agree): each report's latency, every result entered once.
    Reports(super::bench_reports::ReportsArgs),
    /// One broadcast of bot games watched by many spectators: each event's lateness past its
    /// due time, the CPU time and the moves judged, memory per stream.
    Broadcast(super::bench_broadcast::BroadcastArgs),
    /// Many bot accounts online with their streams open: memory per stream, each challenge's
    /// delivery to its bot, every pair's game played to its end at a fast time control.
    Lobby(super::bench_lobby::LobbyArgs),
    /// Compile and load times and sizes of the shipped lexicons.
    Lexicon {
        /// Repetitions per measurement (the median is reported).
        #[arg(long, default_value_t = 11)]
        runs: usize,
    },
}

/// The positions of seeded greedy games, timed over several passes.
#[derive(Args, Debug)]
pub struct PositionArgs {
    #[arg(long, default_value_t = 100)]
    games: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value = "en")]
    lexicon: String,
    /// Timed passes over all positions (each position's fastest pass is kept).
    #[arg(long, default_value_t = 3)]
    passes: usize,
}

pub fn run(cmd: BenchCommand) -> CliResult {
    match cmd {
        BenchCommand::Lexicon { runs } => lexicon(runs.max(1)),
        BenchCommand::Pairing(args) => super::bench_pairing::run(args),
        BenchCommand::Tournament(args) => super::tournament::bench(args),
        BenchCommand::Reports(args) => super::bench_reports::run(args),
        BenchCommand::Broadcast(args) => super::bench_broadcast::run(args),
        BenchCommand::Lobby(args) => super::bench_lobby::run(args),
        BenchCommand::Infer(args) => super::bench_champion::infer(args),
        BenchCommand::Peg(args) => super::bench_champion::peg(args),
        BenchCommand::Think(args) => super::bench_champion::think(args),
        BenchCommand::Words(args) => super::bench_champion::words(args),
        BenchCommand::Review(args) => super::bench_review::run(args),
        BenchCommand::ReviewJobs(args) => super::bench_review_jobs::run(args),
        BenchCommand::Livegames(args) => super::bench_livegames::run(args),
        BenchCommand::Movegen(p) => movegen(p.games, p.seed, &p.lexicon, p.passes.max(1)),
        BenchCommand::Engine { games, seed, lexicon } => engine(games, seed, &lexicon),
        BenchCommand::BestPlay(p) => best_play(p.games, p.seed, &p.lexicon, p.passes.max(1)),
        BenchCommand::Bots { games, seed, ruleset } => bots(games, seed, ruleset),
        BenchCommand::Endgame {
            sample: crate::setup::Sample { positions, seed, ruleset },
            budget_ms,
            solve_only: false,
            ..
        } => super::bench_endgame::endgame(
            positions.clamp(1, 100_000),
            seed,
            ruleset,
            budget_ms.clamp(1, 600_000),
        ),
        BenchCommand::Endgame {
            sample: crate::setup::Sample { positions, seed, ruleset },
            budget_ms,
            solve_only: true,
            lines,
            each,
        } => super::bench_endgame::endgame_solves(
            positions.clamp(1, 100_000),
            seed,
            ruleset,
            budget_ms.clamp(1, 600_000),
            lines.clamp(1, 20),
            each,
        ),
        BenchCommand::EndgamePlayout {
            sample: crate::setup::Sample { positions, seed, ruleset },
            budget_ms,
            threads,
        } => super::bench_endgame::endgame_playout(
            positions.clamp(1, 100_000),
            seed,
            ruleset,
            budget_ms.clamp(1, 600_000),
            threads.clamp(1, 64),
        ),
        BenchCommand::Sim { positions, seed, ruleset, candidates, plies, iterations } => sim(
            positions.clamp(1, 10_000),
            seed,
            ruleset,
            candidates.clamp(1, 100),
            plies.min(20),
            iterations.clamp(1, 1_000_000),
        ),
        BenchCommand::Store { dir, games, turns, recover, finished, database_url } => {
            super::bench_store::run(
                &dir,
                games.clamp(1, 100_000),
                turns.clamp(1, 10_000),
                recover.min(1_000_000),
                finished.clamp(1, 100_000),
                database_url.as_deref(),
            )
        }
        BenchCommand::Forward { database_url, seconds, clients, turns } => super::bench_forward::run(
            &database_url,
            seconds.clamp(0.1, 60.0),
            clients.clamp(1, 256),
            turns.clamp(1, 100_000),
        ),
        BenchCommand::Balancer { database_url, games, turns, seconds, clients } => {
            super::bench_balancer::run(
                &database_url,
                games.clamp(1, 100_000),
                turns.clamp(3, 1_000),
                seconds.clamp(0.1, 600.0),
                clients.clamp(1, 256),
            )
        }
        BenchCommand::Flood { turns, infers, sims, abandon_ms } => super::bench_flood::run(
            turns.clamp(1, 1000),
            infers.min(1000),
            sims.min(1000),
            abandon_ms.clamp(1, 60_000),
        ),
        BenchCommand::Botload { addr, games, seconds } => {
            super::bench_server::botload(addr, games.clamp(1, 256), seconds.clamp(0.1, 600.0))
        }
        BenchCommand::Server { seconds, clients, games, live_games } => super::bench_server::run(
            seconds.clamp(0.1, 60.0),
            clients.clamp(1, 256),
            games.min(100_000),
            live_games.min(100_000),
        ),
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
                Lexicon::compile(shipped.name, shipped.text, (shipped.alphabet)())
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

/// Every position of `games` greedy games: board, mover's rack, and the move chosen.
fn positions(games: u64, seed: u64, lexicon: &Lexicon) -> Vec<(Board, Rack, Option<Play>)> {
    let kind = RulesetKind::for_alphabet(lexicon.alphabet());
    let rules = Arc::new(Ruleset::new(kind));
    let mut out = Vec::new();
    for g in 0..games {
        greedy_game(rules.clone(), lexicon.dawg(), seed + g, |pos, turn| {
            let play = match turn {
                Turn::Play(p) => Some(p.play),
                _ => None,
            };
            out.push((pos.board.clone(), *pos.rack, play));
        });
    }
    out
}

fn summary(label: &str, times_us: &mut [f64], plays: &mut [f64], arcs: &[f64]) {
    if times_us.is_empty() {
        return;
    }
    times_us.sort_by(|a, b| a.total_cmp(b));
    plays.sort_by(|a, b| a.total_cmp(b));
    let n = times_us.len() as f64;
    println!(
        "{label:<12} {:>9} {:>9.1} {:>7.0} | {:>8.1} {:>8.1} {:>8.1} {:>8.1} {:>8.1} | {:>10.0}",
        times_us.len(),
        plays.iter().sum::<f64>() / n,
        crate::setup::percentile(plays, 0.5),
        times_us.iter().sum::<f64>() / n,
        crate::setup::percentile(times_us, 0.5),
        crate::setup::percentile(times_us, 0.9),
        crate::setup::percentile(times_us, 0.99),
        times_us[times_us.len() - 1],
        arcs.iter().sum::<f64>() / n,
    );
}

fn movegen(games: u64, seed: u64, lexicon: &str, passes: usize) -> CliResult {
    let lexicon = catalog::resolve(lexicon, None)?.lexicon;
    let positions = positions(games, seed, &lexicon);
    let dawg = lexicon.dawg();
    let mut best = vec![f64::INFINITY; positions.len()];
    let mut plays = vec![0f64; positions.len()];
    let mut arcs = vec![0f64; positions.len()];
    let mut sink = CollectAll(Vec::with_capacity(1 << 16));
    for _ in 0..passes {
        for (i, (board, rack, _)) in positions.iter().enumerate() {
            sink.0.clear();
            let start = Instant::now();
            let stats = generate(board, rack, dawg, Mode::Both, &mut sink);
            let us = start.elapsed().as_secs_f64() * 1e6;
            best[i] = best[i].min(us);
            plays[i] = stats.plays as f64;
            arcs[i] = stats.arcs as f64;
        }
    }
    println!("{} games, seed {seed}, lexicon {}, {passes} passes (fastest kept)", games, lexicon.name());
    println!(
        "{:<12} {:>9} {:>9} {:>7} | {:>8} {:>8} {:>8} {:>8} {:>8} | {:>10}",
        "positions", "count", "plays", "median", "mean us", "p50 us", "p90 us", "p99 us", "max us", "arcs"
    );
    let pick = |f: &dyn Fn(&Rack) -> bool| {
        let idx: Vec<usize> = (0..positions.len()).filter(|&i| f(&positions[i].1)).collect();
        let t: Vec<f64> = idx.iter().map(|&i| best[i]).collect();
        let p: Vec<f64> = idx.iter().map(|&i| plays[i]).collect();
        let a: Vec<f64> = idx.iter().map(|&i| arcs[i]).collect();
        (t, p, a)
    };
    for (label, f) in [
        ("all", &(|_: &Rack| true) as &dyn Fn(&Rack) -> bool),
        ("no blank", &|r: &Rack| r.blanks() == 0),
        ("with blank", &|r: &Rack| r.blanks() > 0),
    ] {
        let (mut t, mut p, a) = pick(f);
        summary(label, &mut t, &mut p, &a);
    }
    Ok(ExitCode::SUCCESS)
}

fn engine(games: u64, seed: u64, lexicon: &str) -> CliResult {
    let lexicon = catalog::resolve(lexicon, None)?.lexicon;
    let positions: Vec<(Board, Rack, Play)> =
        positions(games, seed, &lexicon).into_iter().filter_map(|(b, r, p)| p.map(|p| (b, r, p))).collect();
    let dawg = lexicon.dawg();
    let reps = 20;
    let per_call = |f: &mut dyn FnMut()| -> f64 {
        let (med, _) = time_runs(5, || {
            for _ in 0..reps {
                f();
            }
        });
        med.as_secs_f64() * 1e9 / (reps * positions.len()) as f64
    };
    let evaluate_ns = per_call(&mut || {
        for (b, _, p) in &positions {
            std::hint::black_box(evaluate_normalized(b, p));
        }
    });
    let validate_ns = per_call(&mut || {
        for (b, r, p) in &positions {
            std::hint::black_box(validate_play(b, r, p, &lexicon).is_ok());
        }
    });
    let clone_ns = per_call(&mut || {
        for (b, _, _) in &positions {
            std::hint::black_box(b.clone());
        }
    });
    let place_ns = per_call(&mut || {
        for (b, _, p) in &positions {
            let mut b = b.clone();
            let ps: Vec<_> = p.placements().map(|x| (x.row, x.col, x.tile)).collect();
            b.place(&ps, dawg);
            std::hint::black_box(&b);
        }
    });
    println!("{} plays from {games} games, seed {seed}, lexicon {}", positions.len(), lexicon.name());
    println!("evaluate            {evaluate_ns:>8.0} ns/call");
    println!("validate_play       {validate_ns:>8.0} ns/call");
    println!("board clone         {clone_ns:>8.0} ns/call");
    println!("board place         {:>8.0} ns/call (clone subtracted)", place_ns - clone_ns);
    Ok(ExitCode::SUCCESS)
}

/// One game of the strong bot against greedy, seats alternating with the seed's parity; the
/// strong bot's final spread.
fn strong_vs_greedy(rules: Arc<Ruleset>, lexicon: Arc<Lexicon>, seed: u64) -> i32 {
    use dawgref::bot::{BotLevel, duel};
    let levels = (BotLevel::Strong, BotLevel::Greedy);
    duel(rules, lexicon, seed, levels, (seed % 2) as usize, dawgref::game::ChallengeRule::Double)
        .expect("bots only make legal moves in a two-seat game of a shipped ruleset")
}

fn bots(games: u64, seed: u64, kind: RulesetKind) -> CliResult {
    use dawgref::bot::BotLevel;
    let (rules, lexicon) = crate::setup::ruleset(kind)?;
    let start = Instant::now();
    let spreads: Vec<i32> =
        (0..games).map(|g| strong_vs_greedy(rules.clone(), lexicon.clone(), seed + g)).collect();
    let n = spreads.len() as f64;
    let mean = spreads.iter().map(|&s| s as f64).sum::<f64>() / n;
    let var = spreads.iter().map(|&s| (s as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let wins = spreads.iter().filter(|&&s| s > 0).count() as f64
        + spreads.iter().filter(|&&s| s == 0).count() as f64 / 2.0;
    println!(
        "{} vs {} in {kind}: {games} games (seeds {seed}..{}), mean spread {mean:+.1} ± {:.1} (1 s.e.), wins {:.1}%, {:.1} s",
        BotLevel::Strong.name(),
        BotLevel::Greedy.name(),
        seed + games - 1,
        (var / n).sqrt(),
        100.0 * wins / n,
        start.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

fn sim(
    positions: u64,
    seed: u64,
    kind: RulesetKind,
    candidates: usize,
    plies: usize,
    iterations: u32,
) -> CliResult {
    use dawgref::bot::{BotLevel, play_while};
    use dawgref::game::{Game, GameConfig};
    use dawgref::sim::{Params, Setup, SimLimits, simulate};
    let (rules, lexicon) = crate::setup::ruleset(kind)?;
    let (mut rates, mut lines) = (Vec::new(), 0u64);
    let mut g = seed;
    while (rates.len() as u64) < positions {
        g += 1;
        let mut game = Game::new(GameConfig::new(rules.clone(), lexicon.clone(), g))?;
        // Six to eleven turns in: a board with words on it and a bag still full enough.
        let turns = 6 + g % 6;
        let mut n = 0;
        play_while(&mut game, &[BotLevel::Strong], 1000, |_| {
            n += 1;
            n < turns
        })?;
        if game.is_over() || game.bag_len() == 0 {
            continue;
        }
        let params = Params { candidates, plies, seed: g, reserve: 0 };
        let Some(setup) = Setup::from_game(&game, game.to_move(), params) else { continue };
        // Candidates ruled out early cost nothing afterwards, as in play.
        let budget = SimLimits { max_iterations: iterations, workers: 1, ..SimLimits::default() };
        let started = Instant::now();
        let mut done = 0;
        let _ = simulate(&setup, lexicon.dawg(), &budget, |t| {
            done = t.iterations;
            true
        });
        let took = started.elapsed().as_secs_f64();
        rates.push(f64::from(done) / took);
        lines += u64::from(done) * setup.candidates.len() as u64;
    }
    rates.sort_by(f64::total_cmp);
    println!(
        "{kind}: {positions} mid-game positions (strong-bot games from seed {}), {candidates} candidates, {plies} \
         plies, up to {iterations} iterations each, one core: iterations/s median {:.0}, p10 {:.0}, p90 {:.0} \
         ({lines} candidate lines played)",
        seed + 1,
        crate::setup::percentile(&rates, 0.5),
        crate::setup::percentile(&rates, 0.1),
        crate::setup::percentile(&rates, 0.9),
    );
    Ok(ExitCode::SUCCESS)
}

fn best_play(games: u64, seed: u64, lexicon: &str, passes: usize) -> CliResult {
    use dawgref::equity::LeaveModel;
    use dawgref::movegen::{best_by_equity, best_by_equity_full};
    let lexicon = catalog::resolve(lexicon, None)?.lexicon;
    let positions = positions(games, seed, &lexicon);
    let dawg = lexicon.dawg();
    println!(
        "{} positions of {games} greedy games (seed {seed}), lexicon {}, {passes} passes (fastest kept)",
        positions.len(),
        lexicon.name()
    );
    type Best = Option<(f32, dawgref::movegen::ScoredPlay)>;
    /// Full generation's best play and best-first's by `leave`, each with its time in µs.
    fn both(
        board: &dawgref::board::Board,
        rack: &Rack,
        dawg: &dawgref::lexicon::Dawg,
        leave: impl dawgref::leaves::LeaveValue + Copy,
    ) -> ((f64, Best), (f64, Best)) {
        let start = Instant::now();
        let best = best_by_equity_full(board, rack, dawg, Mode::Both, leave);
        let full = start.elapsed().as_secs_f64() * 1e6;
        let start = Instant::now();
        let found = best_by_equity(board, rack, dawg, Mode::Both, leave);
        ((full, best), (start.elapsed().as_secs_f64() * 1e6, found))
    }
    for (label, with_leave) in [("score", false), ("score + leave", true)] {
        let mut full_us = vec![f64::INFINITY; positions.len()];
        let mut first_us = vec![f64::INFINITY; positions.len()];
        for _ in 0..passes {
            for (i, (board, rack, _)) in positions.iter().enumerate() {
                let rules = board.rules();
                let ((full, best), (first, found)) = if with_leave {
                    // A bag with tiles: the leave as the strong bot values it mid-game.
                    both(board, rack, dawg, LeaveModel::shipped(rules).at(rules, 50))
                } else {
                    both(board, rack, dawg, |_: &Rack| 0.0)
                };
                full_us[i] = full_us[i].min(full);
                first_us[i] = first_us[i].min(first);
                if found != best {
                    return Err(format!(
                        "position {i}: best-first {found:?} differs from full generation {best:?}"
                    )
                    .into());
                }
            }
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        let (full_mean, first_mean) = (mean(&full_us), mean(&first_us));
        let mut ratios: Vec<f64> = full_us.iter().zip(&first_us).map(|(f, b)| b / f).collect();
        ratios.sort_by(f64::total_cmp);
        full_us.sort_by(f64::total_cmp);
        first_us.sort_by(f64::total_cmp);
        println!(
            "{label:<14} full generation p50 {:.1} us p99 {:.1} us | best-first p50 {:.1} us p99 {:.1} us | \
             ratio of medians {:.2}x, median per-position ratio {:.2}x | means {:.1} / {:.1} us = {:.2}x",
            crate::setup::percentile(&full_us, 0.5),
            crate::setup::percentile(&full_us, 0.99),
            crate::setup::percentile(&first_us, 0.5),
            crate::setup::percentile(&first_us, 0.99),
            crate::setup::percentile(&first_us, 0.5) / crate::setup::percentile(&full_us, 0.5),
            crate::setup::percentile(&ratios, 0.5),
            full_mean,
            first_mean,
            first_mean / full_mean,
        );
    }
    Ok(ExitCode::SUCCESS)
}

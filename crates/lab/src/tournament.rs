//! Tournaments on an in-process server (SQLite in a scratch directory), through
//! TournamentsService as a director's software would drive it:
//!
//! - `dawgref-lab tournament`: a division of the server's bots played to the end, round after
//!   round (pair, start, every result in), then its standings and the wall time: the way `match`
//!   does it for two.
//! - `dawgref-lab bench tournament`: the director's calls on a large division: PairRound,
//!   StartRound (every game made, durably), RecordResult (answered with the standings), and
//!   GetTournament.

use super::CliResult;
use super::bench_server::pct;
use clap::Args;
use dawgref::lexicon::catalog;
use dawgref::proto::v1 as pb;
use dawgref::proto::v1::tournaments_service_client::TournamentsServiceClient;
use dawgref::server;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tonic::transport::Channel;

/// The director token of the lab's in-process servers.
pub(super) const DIRECTOR: &str = "lab-director";

#[derive(Args, Debug)]
pub struct TournamentArgs {
    /// Players in the division.
    #[arg(long, default_value_t = 100)]
    players: u32,
    /// Rounds, each paired by `--method`.
    #[arg(long, default_value_t = 10)]
    rounds: u32,
    /// The bots' levels, dealt to the players in turn (weak, greedy, strong, champion).
    #[arg(long, value_delimiter = ',', default_value = "greedy,strong")]
    levels: Vec<String>,
    /// How rounds are paired (swiss, round-robin, king-of-the-hill, random).
    #[arg(long, default_value = "swiss")]
    method: String,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Scratch directory for the store (must not exist; removed afterwards).
    #[arg(long, default_value = "data/lab-tournament")]
    dir: std::path::PathBuf,
}

#[derive(Args, Debug)]
pub struct BenchTournamentArgs {
    /// Players in the division (a round is half as many games).
    #[arg(long, default_value_t = 1000)]
    players: u32,
    /// Results entered and timed.
    #[arg(long, default_value_t = 200)]
    results: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Scratch directory for the store (must not exist; removed afterwards).
    #[arg(long, default_value = "data/bench-tournament")]
    dir: std::path::PathBuf,
    /// The division's rating system (none, nsa2008, naspa2024, club, absp): every answer's
    /// standings carry the estimates.
    #[arg(long, default_value = "none")]
    ratings: String,
    /// Players unrated (newcomers, whose estimates are searched for): every n-th (0: none).
    #[arg(long, default_value_t = 0)]
    newcomer_every: u32,
}

fn rating_system(name: &str) -> Result<pb::RatingSystem, String> {
    Ok(match name {
        "none" => pb::RatingSystem::Unspecified,
        "nsa2008" => pb::RatingSystem::Nsa2008,
        "naspa2024" => pb::RatingSystem::Naspa2024,
        "club" => pb::RatingSystem::NaspaClub,
        "absp" => pb::RatingSystem::Absp,
        other => return Err(format!("--ratings {other:?}: none, nsa2008, naspa2024, club or absp")),
    })
}

/// A request with the lab's director token.
pub(super) fn authed<T>(message: T) -> tonic::Request<T> {
    let mut r = tonic::Request::new(message);
    r.metadata_mut().insert("authorization", format!("Bearer {DIRECTOR}").parse().expect("ascii"));
    r
}

fn level(name: &str) -> Result<pb::BotLevel, String> {
    Ok(match name {
        "weak" => pb::BotLevel::Weak,
        "greedy" => pb::BotLevel::Greedy,
        "strong" => pb::BotLevel::Strong,
        "champion" => pb::BotLevel::Champion,
        other => return Err(format!("no bot level {other:?} (weak, greedy, strong, champion)")),
    })
}

fn method(name: &str) -> Result<pb::PairingMethod, String> {
    Ok(match name {
        "swiss" => pb::PairingMethod::Swiss,
        "round-robin" => pb::PairingMethod::RoundRobin,
        "king-of-the-hill" => pb::PairingMethod::KingOfTheHill,
        "random" => pb::PairingMethod::Random,
        other => {
            return Err(format!(
                "no pairing method {other:?} (swiss, round-robin, king-of-the-hill, random)"
            ));
        }
    })
}

/// Run `work` against a fresh in-process server on SQLite in `dir`, with a director: handed a
/// connection to it and its address.
pub(super) fn on_server<F, Fut>(dir: &std::path::Path, work: F) -> CliResult
where
    F: FnOnce(Channel, String) -> Fut,
    Fut: std::future::Future<Output = Result<(), Box<dyn std::error::Error>>>,
{
    if dir.exists() {
        return Err(format!("{} exists: give a directory that does not", dir.display()).into());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let result = runtime.block_on(async {
        let english = catalog::load_shipped_cached(catalog::shipped("en").expect("shipped"), None)?;
        std::fs::create_dir_all(dir)?;
        let store = Arc::new(dawgref::store::SqliteStore::open(dir)?);
        let (handle, _) =
            server::Builder::new(vec![english]).store(store).director_token(DIRECTOR).start().await?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}", listener.local_addr()?);
        handle.spawn(listener);
        let channel: Channel = tonic::transport::Endpoint::from_shared(url.clone())?.connect().await?;
        work(channel, url).await?;
        handle.shutdown();
        handle.drain(Duration::from_secs(5)).await;
        Ok::<_, Box<dyn std::error::Error>>(())
    });
    let _ = std::fs::remove_dir_all(dir);
    result?;
    Ok(ExitCode::SUCCESS)
}

/// `dawgref-lab tournament`.
pub fn run(args: TournamentArgs) -> CliResult {
    let levels = args.levels.iter().map(|l| level(l)).collect::<Result<Vec<_>, _>>()?;
    if levels.is_empty() {
        return Err("--levels: at least one".into());
    }
    let method = method(&args.method)?;
    on_server(&args.dir.clone(), |channel, _| async move {
        let mut t = TournamentsServiceClient::new(channel);
        let players = (0..args.players)
            .map(|i| {
                let level = levels[i as usize % levels.len()];
                let name = format!(
                    "{} {}",
                    level.as_str_name().trim_start_matches("BOT_LEVEL_").to_lowercase(),
                    seat_name(i)
                );
                pb::TournamentPlayerSpec {
                    bot_account: String::new(),
                    name,
                    rating: 1000,
                    bot: Some(level as i32),
                    lifetime_games: None,
                }
            })
            .collect();
        let request = pb::CreateTournamentRequest {
            allow_same_names: false,
            name: "Lab bots".into(),
            slug: "lab".into(),
            game: Some(pb::TournamentGameSettings { bot_delay_ms: Some(0), ..Default::default() }),
            divisions: vec![pb::DivisionSpec {
                bots_only: false,
                name: "bots".into(),
                players,
                rounds: vec![
                    pb::RoundSpec { method: method as i32, ..Default::default() };
                    args.rounds as usize
                ],
                controls: None,
                result_reports: 0,
            }],
            seed: Some(args.seed),
        };
        t.create_tournament(authed(request)).await?;
        let games = u64::from(args.players / 2) * u64::from(args.rounds);
        let bar = dawgref::console::games_bar(games);
        let started = Instant::now();
        let mut from = 0;
        for round in 1..=args.rounds {
            let pair = pb::PairRoundRequest {
                slug: "lab".into(),
                division: "bots".into(),
                round,
                ..Default::default()
            };
            let paired = t.pair_round(authed(pair)).await?.into_inner().round.unwrap_or_default();
            let start = pb::StartRoundRequest {
                slug: "lab".into(),
                division: "bots".into(),
                round,
                ..Default::default()
            };
            t.start_round(authed(start)).await?;
            let mut left = paired.pairings.iter().filter(|p| p.second != 0).count();
            let watch = pb::WatchTournamentRequest { slug: "lab".into(), from_event: from };
            let mut events = t.watch_tournament(watch).await?.into_inner();
            while left > 0 {
                let Some(e) = events.message().await? else {
                    return Err("the tournament's events ended".into());
                };
                from = e.number + 1;
                if e.kind == "result" {
                    left -= 1;
                    bar.inc(1);
                    bar.set_message(format!("round {round} of {}", args.rounds));
                }
            }
        }
        let wall = started.elapsed();
        bar.finish_and_clear();
        let get = pb::GetTournamentRequest { slug: "lab".into() };
        let division =
            t.get_tournament(get).await?.into_inner().tournament.unwrap_or_default().divisions.remove(0);
        println!(
            "{} players, {} rounds ({games} games) in {:.1} s",
            args.players,
            args.rounds,
            wall.as_secs_f64()
        );
        println!("rank  player                     wins  losses  spread");
        for s in division.standings.iter().take(20) {
            let name = &division.players[s.player as usize - 1].name;
            println!("{:>4}  {name:<24} {:>5}  {:>6}  {:>+6}", s.rank, s.wins, s.losses, s.spread);
        }
        if division.standings.len() > 20 {
            println!("   … {} more", division.standings.len() - 20);
        }
        Ok(())
    })
}

/// Player names: letters, so that no word is a number.
pub(super) fn seat_name(i: u32) -> String {
    let mut n = i;
    let mut name = String::new();
    loop {
        name.insert(0, (b'a' + (n % 26) as u8) as char);
        n /= 26;
        if n == 0 {
            return name;
        }
        n -= 1;
    }
}

/// `dawgref-lab bench tournament`.
pub fn bench(args: BenchTournamentArgs) -> CliResult {
    let system = rating_system(&args.ratings)?;
    on_server(&args.dir.clone(), |channel, _| async move {
        let mut t = TournamentsServiceClient::new(channel);
        let newcomer = |i: u32| args.newcomer_every != 0 && i.is_multiple_of(args.newcomer_every);
        let players = (0..args.players)
            .map(|i| pb::TournamentPlayerSpec {
                bot_account: String::new(),
                name: format!("Player {}", seat_name(i)),
                rating: if newcomer(i) { 0 } else { 2000 - i % 1000 },
                bot: None,
                lifetime_games: Some(i % 200),
            })
            .collect();
        let request = pb::CreateTournamentRequest {
            allow_same_names: false,
            name: "Lab bench".into(),
            slug: "bench".into(),
            game: Some(pb::TournamentGameSettings::default()),
            divisions: vec![pb::DivisionSpec {
                bots_only: false,
                name: "big".into(),
                players,
                rounds: vec![
                    pb::RoundSpec { method: pb::PairingMethod::Swiss as i32, ..Default::default() };
                    10
                ],
                controls: Some(pb::DivisionControls { rating_system: system as i32, ..Default::default() }),
                result_reports: 0,
            }],
            seed: Some(args.seed),
        };
        let started = Instant::now();
        t.create_tournament(authed(request)).await?;
        let created = started.elapsed();
        let started = Instant::now();
        let pair = pb::PairRoundRequest {
            slug: "bench".into(),
            division: "big".into(),
            round: 1,
            ..Default::default()
        };
        let round = t.pair_round(authed(pair)).await?.into_inner().round.unwrap_or_default();
        let paired = started.elapsed();
        let started = Instant::now();
        let start = pb::StartRoundRequest {
            slug: "bench".into(),
            division: "big".into(),
            round: 1,
            ..Default::default()
        };
        let round_started = t.start_round(authed(start)).await?.into_inner().round.unwrap_or_default();
        let made = started.elapsed();
        let games = round_started.pairings.iter().filter(|p| !p.game_id.is_empty()).count();
        let bar = dawgref::console::progress_bar(args.results as u64, "results");
        let mut results = Vec::with_capacity(args.results);
        for (k, p) in round.pairings.iter().filter(|p| p.second != 0).take(args.results).enumerate() {
            let request = pb::RecordResultRequest {
                slug: "bench".into(),
                division: "big".into(),
                round: 1,
                pairing: p.number,
                result: Some(pb::record_result_request::Result::Scores(pb::FinalScores {
                    first: 400 + (k % 97) as i32,
                    second: 380,
                })),
                correct: false,
                request_id: format!("result-{k}"),
            };
            let started = Instant::now();
            t.record_result(authed(request)).await?;
            results.push(started.elapsed());
            bar.inc(1);
        }
        bar.finish_and_clear();
        let mut reads = Vec::new();
        for _ in 0..20 {
            let started = Instant::now();
            t.get_tournament(pb::GetTournamentRequest { slug: "bench".into() }).await?;
            reads.push(started.elapsed());
        }
        results.sort();
        reads.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "{} players: CreateTournament {:.0} ms, PairRound (Swiss) {:.0} ms, StartRound ({games} games) {:.0} ms",
            args.players,
            ms(created),
            ms(paired),
            ms(made)
        );
        println!(
            "RecordResult (answered with the standings) p50 {:.1} ms  p99 {:.1} ms over {}; GetTournament p50 {:.1} ms",
            pct(&results, 0.5) / 1000.0,
            pct(&results, 0.99) / 1000.0,
            results.len(),
            pct(&reads, 0.5) / 1000.0
        );
        Ok(())
    })
}

//! `dawgref-lab bench review-jobs`: a round's reviews as durable jobs, as a director asks them.
//! A division of `2 × --games` strong bots plays one round on an in-process server (SQLite in a
//! scratch directory; or, with `--database-url`, two replicas in this process sharing one
//! PostgreSQL); then ReviewGames at `--ms-per-turn`, watched to its end. Printed: the wall time
//! next to the bound (the games' turns × the time a turn ÷ the threads the reviews may take: every
//! replica's pool but one slot, kept for its live games' bots), each replica's share (no game reviewed twice), and a live strong bot's answer time
//! (a new game's first move) before and while the reviews run.

use super::CliResult;
use super::bench_server::pct;
use super::tournament::{DIRECTOR, authed};
use clap::Args;
use dawgref::lexicon::catalog;
use dawgref::proto::v1 as pb;
use dawgref::proto::v1::analysis_service_client::AnalysisServiceClient;
use dawgref::proto::v1::games_service_client::GamesServiceClient;
use dawgref::proto::v1::tournaments_service_client::TournamentsServiceClient;
use dawgref::server::{self, Handle};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tonic::transport::Channel;

#[derive(Args, Debug)]
pub struct ReviewJobsArgs {
    /// Games in the round (twice as many strong bots).
    #[arg(long, default_value_t = 50)]
    games: u32,
    /// The review's time a turn, in ms.
    #[arg(long, default_value_t = 200)]
    ms_per_turn: u32,
    /// A live bot's answers timed before and during the reviews.
    #[arg(long, default_value_t = 20)]
    answers: usize,
    /// Two replicas sharing this PostgreSQL (else one server on SQLite).
    #[arg(long)]
    database_url: Option<String>,
    /// Scratch directory for the SQLite store (must not exist; removed afterwards).
    #[arg(long, default_value = "data/bench-review-jobs")]
    dir: std::path::PathBuf,
}

/// A strong bot's first move in a new game of its own: the time from CreateGame to the move
/// (the game's view polled every millisecond).
async fn bot_answer(g: &mut GamesServiceClient<Channel>) -> Result<Duration, Box<dyn std::error::Error>> {
    let strong =
        pb::SeatSpec { kind: Some(pb::seat_spec::Kind::Bot(pb::BotLevel::Strong as i32)), think_ms: None };
    let person = pb::SeatSpec {
        kind: Some(pb::seat_spec::Kind::Human(pb::HumanSeat { name: "you".into(), open: false })),
        think_ms: None,
    };
    let started = Instant::now();
    let made = g
        .create_game(pb::CreateGameRequest {
            seats: vec![strong, person],
            bot_delay_ms: Some(0),
            ..Default::default()
        })
        .await?
        .into_inner();
    loop {
        let view = g.get_game(pb::GetGameRequest { game_id: made.game_id.clone() }).await?.into_inner();
        if view.view.is_some_and(|v| v.turn > 0) {
            return Ok(started.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

async fn answers(
    g: &mut GamesServiceClient<Channel>,
    n: usize,
) -> Result<Vec<Duration>, Box<dyn std::error::Error>> {
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        times.push(bot_answer(g).await?);
    }
    times.sort();
    Ok(times)
}

pub fn run(args: ReviewJobsArgs) -> CliResult {
    if args.database_url.is_none() && args.dir.exists() {
        return Err(format!("{} exists: give a directory that does not", args.dir.display()).into());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let result = runtime.block_on(async {
        let replicas: Vec<(Handle, Channel)> = match &args.database_url {
            Some(url) => {
                let mut all = Vec::new();
                for _ in 0..2 {
                    let (handle, channel, _) = super::bench_forward::replica(url).await?;
                    all.push((handle, channel));
                }
                all
            }
            None => {
                let lexicon = catalog::load_shipped_cached(catalog::shipped("en").ok_or("no en lexicon")?, None)?;
                std::fs::create_dir_all(&args.dir)?;
                let store = Arc::new(dawgref::store::SqliteStore::open(&args.dir)?);
                // One client makes every game.
                let limits = server::state::Limits { create_rate: None, ..Default::default() };
                let builder = server::Builder::new(vec![lexicon]).limits(limits).store(store);
                let (handle, _) = builder.director_token(DIRECTOR).start().await?;
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                let url = format!("http://{}", listener.local_addr()?);
                handle.spawn(listener);
                vec![(handle, tonic::transport::Endpoint::from_shared(url)?.connect().await?)]
            }
        };
        let channel = replicas[0].1.clone();
        let mut t = TournamentsServiceClient::new(channel.clone());
        let mut g = GamesServiceClient::new(channel.clone());
        let slug = format!("reviews-{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
        let players = (0..args.games * 2)
            .map(|i| pb::TournamentPlayerSpec {
                name: format!("Strong {}", ["Ash", "Birch", "Cedar", "Dogwood", "Elm", "Fir", "Gum", "Hazel"][i as usize % 8])
                    + &format!(" {}", (b'a' + (i / 8 % 26) as u8) as char)
                    + &format!("{}", (b'a' + (i / 208) as u8) as char),
                rating: 1500,
                bot: Some(pb::BotLevel::Strong as i32),
                ..Default::default()
            })
            .collect();
        let request = pb::CreateTournamentRequest {
            name: "Reviews bench".into(),
            slug: slug.clone(),
            game: Some(pb::TournamentGameSettings { bot_delay_ms: Some(0), ..Default::default() }),
            divisions: vec![pb::DivisionSpec {
                name: "a".into(),
                players,
                rounds: vec![pb::RoundSpec { method: pb::PairingMethod::Swiss as i32, ..Default::default() }],
                ..Default::default()
            }],
            seed: Some(1),
            ..Default::default()
        };
        t.create_tournament(authed(request)).await?;
        t.pair_round(authed(pb::PairRoundRequest { slug: slug.clone(), division: "a".into(), round: 1, ..Default::default() }))
            .await?;
        t.start_round(authed(pb::StartRoundRequest { slug: slug.clone(), division: "a".into(), round: 1, ..Default::default() }))
            .await?;
        let bar = dawgref::console::progress_bar(u64::from(args.games), "games played");
        let games: Vec<String> = loop {
            let got = t.get_tournament(pb::GetTournamentRequest { slug: slug.clone() }).await?.into_inner();
            let round = got.tournament.ok_or("no tournament")?.divisions.remove(0).rounds.remove(0);
            let done = round.pairings.iter().filter(|p| p.done).count();
            bar.set_position(done as u64);
            if done == round.pairings.len() {
                break round.pairings.into_iter().map(|p| p.game_id).collect();
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        bar.finish_and_clear();
        let before = answers(&mut g, args.answers).await?;

        let ask = pb::ReviewGamesRequest {
            slug: slug.clone(),
            division: "a".into(),
            round: 1,
            ms_per_turn: args.ms_per_turn,
            request_id: String::new(),
        };
        let started = Instant::now();
        t.review_games(authed(ask)).await?;
        let mut during = Vec::new();
        let bar = dawgref::console::progress_bar(u64::from(args.games), "games reviewed");
        let mut watch = t.watch_reviews(authed(pb::WatchReviewsRequest { slug: slug.clone() })).await?.into_inner();
        let wall = loop {
            // A live bot's answers, while there are reviews left to run beside them.
            if during.len() < args.answers {
                during.push(bot_answer(&mut g).await?);
            }
            let next = tokio::time::timeout(Duration::from_millis(50), watch.message()).await;
            if let Ok(message) = next {
                let m = message?.ok_or("the reviews' stream ended")?;
                bar.set_position(u64::from(m.done));
                bar.set_message(format!("~{} s left", m.eta_ms / 1000));
                if m.failed > 0 {
                    return Err(format!("{} reviews failed", m.failed).into());
                }
                if m.done == m.total {
                    break started.elapsed();
                }
            }
        };
        bar.finish_and_clear();
        during.sort();

        let mut a = AnalysisServiceClient::new(channel.clone());
        let mut turns = 0u32;
        for game in &games {
            let request = pb::AnalyzeGameRequest { game_id: game.clone(), ms_per_turn: args.ms_per_turn, ..Default::default() };
            let mut stream = a.analyze_game(request).await?.into_inner();
            let mut last = None;
            while let Some(m) = stream.message().await? {
                if !m.from_store {
                    return Err(format!("game {game}'s review was not kept").into());
                }
                last = Some(m);
            }
            turns += last.map_or(0, |m| m.turns);
        }
        // A review job judges on every slot of its replica's pool but one.
        let threads: usize = replicas.iter().map(|(h, _)| h.host().widest_search()).sum();
        let bound = Duration::from_millis(u64::from(args.ms_per_turn)) * turns / threads as u32;
        let shares: Vec<u64> = replicas.iter().map(|(h, _)| h.host().metrics().reviews_made.get()).collect();
        println!(
            "{} games, {turns} turns at {} ms a turn on {} replica(s), {threads} review threads in all ({})",
            games.len(),
            args.ms_per_turn,
            replicas.len(),
            if args.database_url.is_some() { "PostgreSQL" } else { "SQLite" }
        );
        println!(
            "wall {:.1} s  bound {:.1} s  ({:.2} of it)  reviews made by each replica {shares:?} ({} in all)",
            wall.as_secs_f64(),
            bound.as_secs_f64(),
            wall.as_secs_f64() / bound.as_secs_f64(),
            shares.iter().sum::<u64>()
        );
        let ms = |d: &[Duration], p| pct(d, p) / 1000.0;
        println!(
            "a live strong bot's first move: before p50 {:.1} ms p99 {:.1} ms; during p50 {:.1} ms p99 {:.1} ms ({} answers each)",
            ms(&before, 0.5),
            ms(&before, 0.99),
            ms(&during, 0.5),
            ms(&during, 0.99),
            args.answers
        );
        for (handle, _) in &replicas {
            handle.drain(Duration::from_secs(5)).await;
        }
        Ok::<_, Box<dyn std::error::Error>>(())
    });
    if args.database_url.is_none() {
        let _ = std::fs::remove_dir_all(&args.dir);
    }
    result?;
    Ok(ExitCode::SUCCESS)
}

//! `dawgref-lab bench review`: whole-game review as a client sees it. For each ruleset, a game
//! of two strong bots played through CreateGame on an in-process server (SQLite store in a
//! scratch directory), then AnalyzeGame on it at `--ms-per-turn`: the wall time from the request
//! to the last message, next to the bound (turns × time per turn ÷ cores × 1.2); then
//! the same request `--reads` times, answered from the store: latency of the whole stream,
//! p50 and p99.

use super::CliResult;
use super::bench_server::pct;
use clap::Args;
use dawgref::lexicon::catalog;
use dawgref::proto::v1 as pb;
use dawgref::proto::v1::analysis_service_client::AnalysisServiceClient;
use dawgref::proto::v1::games_service_client::GamesServiceClient;
use dawgref::rules::RulesetKind;
use dawgref::server;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tonic::transport::Channel;

#[derive(Args, Debug)]
pub struct ReviewArgs {
    /// Thinking time per turn, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    ms_per_turn: u32,
    /// Requests answered from the store, per ruleset.
    #[arg(long, default_value_t = 200)]
    reads: usize,
    /// The bots' game's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Scratch directory for the store (must not exist; removed afterwards).
    #[arg(long, default_value = "data/bench-review")]
    dir: std::path::PathBuf,
}

/// Every message of one review.
async fn review(
    a: &mut AnalysisServiceClient<Channel>,
    req: pb::AnalyzeGameRequest,
) -> Result<Vec<pb::AnalyzeGameResponse>, tonic::Status> {
    let mut stream = a.analyze_game(req).await?.into_inner();
    let mut all = Vec::new();
    while let Some(u) = stream.message().await? {
        all.push(u);
    }
    Ok(all)
}

pub fn run(args: ReviewArgs) -> CliResult {
    if args.dir.exists() {
        return Err(format!("{} exists: give a directory that does not", args.dir.display()).into());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let result = runtime.block_on(async {
        let lexicons = ["en", "ru", "erudit"]
            .iter()
            .map(|n| catalog::load_shipped_cached(catalog::shipped(n).expect("shipped"), None))
            .collect::<Result<Vec<_>, _>>()?;
        std::fs::create_dir_all(&args.dir)?;
        let store = Arc::new(dawgref::store::SqliteStore::open(&args.dir)?);
        let (handle, _) = server::Builder::new(lexicons).store(store).start().await?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}", listener.local_addr()?);
        handle.spawn(listener);
        let channel: Channel = tonic::transport::Endpoint::from_shared(url)?.connect().await?;
        let (mut g, mut a) = (GamesServiceClient::new(channel.clone()), AnalysisServiceClient::new(channel));
        let cores = dawgref::host::Pool::cores();
        println!(
            "review at {} ms a turn on {cores} cores; then {} requests answered from the store (SQLite)",
            args.ms_per_turn, args.reads
        );
        for kind in RulesetKind::classic() {
            let ruleset = dawgref::server::convert::ruleset_to(kind);
            let strong = || pb::SeatSpec { kind: Some(pb::seat_spec::Kind::Bot(pb::BotLevel::Strong as i32)), think_ms: None };
            let created = g
                .create_game(pb::CreateGameRequest {
                    ruleset: ruleset as i32,
                    seats: vec![strong(), strong()],
                    seed: Some(args.seed),
                    bot_delay_ms: Some(0),
                    ..Default::default()
                })
                .await?
                .into_inner();
            let mut watch = g
                .watch_game(pb::WatchGameRequest { game_id: created.game_id.clone(), from_event: 0 })
                .await?
                .into_inner();
            while watch.message().await?.is_some() {}
            let req = pb::AnalyzeGameRequest {
                game_id: created.game_id.clone(),
                ms_per_turn: args.ms_per_turn,
                ..Default::default()
            };
            let bar = dawgref::console::progress_bar(0, "turns");
            let started = Instant::now();
            let mut stream = a.analyze_game(req.clone()).await?.into_inner();
            let mut turns = 0;
            while let Some(u) = stream.message().await? {
                bar.set_length(u64::from(u.turns));
                bar.set_position(u64::from(u.turns_done));
                bar.set_message(format!("{kind}: ~{} s left", u.eta_ms / 1000));
                turns = u.turns;
            }
            let wall = started.elapsed();
            bar.finish_and_clear();
            let bound = Duration::from_millis(u64::from(args.ms_per_turn)) * turns / cores as u32 * 6 / 5;
            let mut reads = Vec::with_capacity(args.reads);
            for _ in 0..args.reads {
                let t = Instant::now();
                let all = review(&mut a, req.clone()).await?;
                reads.push(t.elapsed());
                if !all.iter().all(|u| u.from_store) {
                    return Err("a second request was not answered from the store".into());
                }
            }
            reads.sort();
            println!(
                "{kind:<8} {turns:>3} turns  review {:>6.2} s  bound {:>6.2} s  ({:.2} of it)  store answer p50 {:.2} ms  p99 {:.2} ms",
                wall.as_secs_f64(),
                bound.as_secs_f64(),
                wall.as_secs_f64() / bound.as_secs_f64(),
                pct(&reads, 0.5) / 1000.0,
                pct(&reads, 0.99) / 1000.0,
            );
        }
        handle.drain(Duration::from_secs(5)).await;
        Ok::<_, Box<dyn std::error::Error>>(())
    });
    let _ = std::fs::remove_dir_all(&args.dir);
    result?;
    Ok(ExitCode::SUCCESS)
}

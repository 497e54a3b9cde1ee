//! `dawgref-lab bench broadcast`: one broadcast of `--boards` games of the server's bots, watched
//! by `--spectators` WatchBroadcast streams on an in-process server, or on `--replicas` of them
//! on one PostgreSQL behind the deployment's HAProxy (`--database-url`; the clients on a runtime of
//! their own unless `--one-runtime`): how late each event reaches
//! each spectator after its due time (the moment it happened plus the delay; never before it),
//! the process's CPU time and the moves the engine judged (once each, however many watch), and
//! the resident memory each open stream adds, and what the feed's log keeps at the end.

use super::CliResult;
use super::bench_balancer::cpu;
use super::bench_server::rss_bytes;
use super::tournament::{DIRECTOR, authed};
use clap::Args;
use dawgref::host::unix_ms;
use dawgref::lexicon::catalog;
use dawgref::proto::v1 as pb;
use dawgref::proto::v1::broadcasts_service_client::BroadcastsServiceClient;
use dawgref::proto::v1::games_service_client::GamesServiceClient;
use dawgref::server;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use tonic::transport::Channel;

#[derive(Args, Debug)]
pub struct BroadcastArgs {
    /// Spectators, each a WatchBroadcast stream of the whole broadcast.
    #[arg(long, default_value_t = 1000)]
    spectators: usize,
    /// Games in the broadcast, each two strong bots.
    #[arg(long, default_value_t = 12)]
    boards: usize,
    /// The broadcast's delay.
    #[arg(long, default_value_t = 5)]
    delay_seconds: u32,
    /// The engine's time per move for the spectators (0: no analysis).
    #[arg(long, default_value_t = 200)]
    analysis_ms: u32,
    /// Least time between two moves of a game.
    #[arg(long, default_value_t = 3000)]
    pace_ms: u32,
    /// How long the spectators watch.
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// Client channels the streams share (HTTP/2 connections).
    #[arg(long, default_value_t = 8)]
    channels: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run the spectators' clients on the server's own runtime (by default they have one of
    /// their own, as clients in another process would: the server's tasks never wait behind
    /// theirs).
    #[arg(long)]
    one_runtime: bool,
    /// The bots' threads' niceness (as `serve --bot-nice`): above 0, the server's own tasks
    /// (the spectators' streams) come before a bot's thinking on a busy core.
    #[arg(long, default_value_t = dawgref::host::BOT_NICE, value_parser = clap::value_parser!(i32).range(0..=19))]
    bot_nice: i32,
    /// Start every board at once. The bots keep their pace, so every board then moves within the
    /// same few milliseconds for the whole run: the worst case. By default board `k` starts `k`
    /// twelfths (of `--boards`) of a pace after the first, as a round's games move apart.
    #[arg(long)]
    lockstep: bool,
    /// PostgreSQL for `--replicas` servers on it, behind HAProxy as deployed (`deploy/haproxy`):
    /// the broadcast, the games and the spectators' streams made through the balancer.
    #[arg(long)]
    database_url: Option<String>,
    /// Replicas behind the balancer, with `--database-url`.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=8))]
    replicas: u32,
}

/// HAProxy takes at most 100 streams at once on one client connection (its
/// `tune.h2.max-concurrent-streams`): through it, the spectators open a connection per hundred.
const STREAMS_PER_BALANCED_CONNECTION: usize = 100;

/// The servers the spectators watch: one, or replicas behind HAProxy.
struct Served {
    handles: Vec<dawgref::server::Handle>,
    url: String,
    /// The replicas' HAProxy, with replicas.
    balanced: Option<super::bench_balancer::Balanced>,
}

async fn serve(args: &BroadcastArgs) -> Result<Served, Box<dyn std::error::Error>> {
    let limits = dawgref::host::Limits { bot_nice: args.bot_nice, create_rate: None, ..Default::default() };
    let Some(database) = &args.database_url else {
        let english = catalog::load_shipped_cached(catalog::shipped("en").ok_or("no en lexicon")?, None)?;
        let (handle, _) =
            server::Builder::new(vec![english]).director_token(DIRECTOR).limits(limits).start().await?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}", listener.local_addr()?);
        handle.spawn(listener);
        return Ok(Served { handles: vec![handle], url, balanced: None });
    };
    let mut balanced =
        super::bench_balancer::Balanced::start(database, args.replicas as usize, limits).await?;
    let handles = std::mem::take(&mut balanced.replicas).into_iter().map(|(h, _, _)| h).collect();
    Ok(Served { handles, url: balanced.proxy.url(), balanced: Some(balanced) })
}

/// What a spectator reads of each WatchBroadcastResponse: its time and whether it is an event or
/// an analysis (the other fields skipped unread). The clients share the server's 2 cores, and
/// decoding every message in full was a quarter of a 10,000-spectator run's CPU; a deployment's
/// spectators are elsewhere. The tags are the proto's.
#[derive(Clone, PartialEq, prost::Message)]
struct Glimpse {
    #[prost(uint64, tag = "2")]
    happened_unix_ms: u64,
    #[prost(bytes = "bytes", optional, tag = "4")]
    event: Option<prost::bytes::Bytes>,
    #[prost(bytes = "bytes", optional, tag = "5")]
    analysis: Option<prost::bytes::Bytes>,
}

/// A WatchBroadcast stream read as [`Glimpse`]s.
async fn glimpses(
    channel: Channel,
    request: pb::WatchBroadcastRequest,
) -> Result<tonic::Streaming<Glimpse>, tonic::Status> {
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.map_err(|e| tonic::Status::unavailable(e.to_string()))?;
    let path =
        tonic::codegen::http::uri::PathAndQuery::from_static("/dawgref.v1.BroadcastsService/WatchBroadcast");
    // The generated clients' codec, with their buffers.
    let codec = dawgref::server::ProstCodec::<pb::WatchBroadcastRequest, Glimpse>::default();
    Ok(grpc.server_streaming(tonic::Request::new(request), path, codec).await?.into_inner())
}

/// What the spectators saw: each event's lateness past its due time (ms; negative: early).
#[derive(Default)]
struct Seen {
    late_ms: Vec<i64>,
    analyses: usize,
}

/// This process's CPU time by thread, grouped: the servers' runtime, the engine's threads (the
/// bots' and the thinking threads: the bots' moves and the spectators' analysis, which share
/// them), and the rest (the spectators' clients).
fn cpu_by_part() -> [Duration; 3] {
    let mut parts = [Duration::ZERO; 3];
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return parts };
    for task in tasks.flatten() {
        let name = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        let part = if name.starts_with("bench-server") {
            0
        } else if name.starts_with("dawgref-bot") || name.starts_with("dawgref-think") {
            1
        } else {
            2
        };
        parts[part] += cpu(&format!("self/task/{}", task.file_name().to_string_lossy()));
    }
    parts
}

/// `n` connections to the server at `url`, for the spectators' streams.
async fn connect(url: &str, n: usize) -> Result<Vec<Channel>, Box<dyn std::error::Error>> {
    let mut channels = Vec::new();
    for _ in 0..n {
        channels.push(tonic::transport::Endpoint::from_shared(url.to_string())?.connect().await?);
    }
    Ok(channels)
}

/// The spectators' streams, `spectators` of them over `channels`, each a task keeping what it
/// sees of the broadcast until `ended` is raised.
async fn watch(
    spectators: usize,
    channels: &[Channel],
    slug: &str,
    delay_ms: u64,
    ended: &std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> Result<Vec<tokio::task::JoinHandle<Seen>>, Box<dyn std::error::Error>> {
    let mut watchers = Vec::new();
    for i in 0..spectators {
        let ended = ended.clone();
        let request = pb::WatchBroadcastRequest { slug: slug.to_string(), game_id: String::new() };
        let mut stream = glimpses(channels[i % channels.len()].clone(), request).await?;
        // Each spectator keeps its own figures (no lock shared by a thousand streams).
        watchers.push(tokio::spawn(async move {
            let mut seen = Seen::default();
            while let Ok(Some(m)) = stream.message().await {
                let now = unix_ms();
                if ended.load(std::sync::atomic::Ordering::Relaxed) {
                    continue;
                }
                if m.event.is_some() {
                    seen.late_ms.push(now as i64 - (m.happened_unix_ms + delay_ms) as i64);
                } else if m.analysis.is_some() {
                    seen.analyses += 1;
                }
            }
            seen
        }));
    }
    Ok(watchers)
}

/// The broadcast's games, each two strong bots, started `pace_ms / boards` apart (all at once
/// in lockstep).
async fn create_boards(
    games: &mut GamesServiceClient<Channel>,
    args: &BroadcastArgs,
    labels: &std::collections::HashMap<String, String>,
) -> Result<(), Box<dyn std::error::Error>> {
    for b in 0..args.boards {
        if !args.lockstep && b > 0 {
            let apart = u64::from(args.pace_ms) / args.boards as u64;
            tokio::time::sleep(Duration::from_millis(apart)).await;
        }
        let bot = |level: pb::BotLevel| pb::SeatSpec {
            kind: Some(pb::seat_spec::Kind::Bot(level as i32)),
            think_ms: None,
        };
        games
            .create_game(authed(pb::CreateGameRequest {
                seats: vec![bot(pb::BotLevel::Strong), bot(pb::BotLevel::Strong)],
                seed: Some(args.seed + b as u64),
                bot_delay_ms: Some(args.pace_ms),
                labels: labels.clone(),
                ..Default::default()
            }))
            .await?;
    }
    Ok(())
}

/// What the spectators saw, together (those that do not finish within 5 s left out).
async fn gather(watchers: Vec<tokio::task::JoinHandle<Seen>>) -> Seen {
    let mut seen = Seen::default();
    for w in watchers {
        if let Ok(Ok(one)) = tokio::time::timeout(Duration::from_secs(5), w).await {
            seen.late_ms.extend(one.late_ms);
            seen.analyses += one.analyses;
        }
    }
    seen
}

/// The bench's broadcast, of the games labelled `labels`, racks revealed.
async fn create_broadcast(
    broadcasts: &mut BroadcastsServiceClient<Channel>,
    slug: &str,
    labels: &std::collections::HashMap<String, String>,
    args: &BroadcastArgs,
) -> Result<(), tonic::Status> {
    let request = pb::CreateBroadcastRequest {
        slug: slug.to_string(),
        name: "Lab bench".into(),
        labels: labels.clone(),
        delay_seconds: args.delay_seconds,
        reveal_racks: true,
        analysis: args.analysis_ms > 0,
        analysis_ms: args.analysis_ms.max(100),
    };
    broadcasts.create_broadcast(authed(request)).await.map(|_| ())
}

/// What the broadcast's feeds on `handles` keep, said in a line (asked before the broadcast
/// ends, which drops them).
fn feed_log(handles: &[dawgref::server::Handle], slug: &str, boards: usize) -> String {
    let (items, bytes) = (handles.iter().filter_map(|h| h.broadcast_feed_size(slug)))
        .fold((0, 0), |(items, bytes), (i, b)| (items + i, bytes + b));
    format!("the feed's log at the end: {items} items, {bytes} bytes ({} per board)", bytes / boards.max(1))
}

pub fn run(args: BroadcastArgs) -> CliResult {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let apart = if args.one_runtime {
        None
    } else {
        Some(tokio::runtime::Builder::new_multi_thread().thread_name("bench-server").enable_all().build()?)
    };
    let serving = apart.as_ref().map_or_else(|| runtime.handle().clone(), |r| r.handle().clone());
    let served = serving.block_on(serve(&args)).map_err(|e| e.to_string())?;
    let url = served.url.clone();
    let handles = &served.handles;
    runtime.block_on(async {
        let connections = match served.balanced {
            Some(_) => args.channels.max(args.spectators.div_ceil(STREAMS_PER_BALANCED_CONNECTION)),
            None => args.channels,
        };
        let channels = connect(&url, connections.max(1)).await?;
        // The director's calls on a connection of their own: the spectators' may be full (HAProxy).
        let channel: Channel = tonic::transport::Endpoint::from_shared(url.clone())?.connect().await?;
        let mut broadcasts = BroadcastsServiceClient::new(channel.clone());
        // A store kept between runs (PostgreSQL) holds the broadcasts of those before.
        let slug = format!("bench-{}", std::process::id());
        let labels: std::collections::HashMap<String, String> = [("tournament".into(), slug.clone())].into();
        create_broadcast(&mut broadcasts, &slug, &labels, &args).await?;
        // The spectators, before the games: each stream open, then the memory they take.
        let before = rss_bytes();
        let delay_ms = u64::from(args.delay_seconds) * 1000;
        // Raised before the broadcast ends: what comes after (no longer held back) is not counted.
        let ended = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let watchers = watch(args.spectators, &channels, &slug, delay_ms, &ended).await?;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let per_stream = rss_bytes().saturating_sub(before) / args.spectators.max(1) as u64;
        let mut games = GamesServiceClient::new(channel);
        let haproxy = served.balanced.as_ref().map(|b| b.proxy.pid().to_string());
        let cpu_before = cpu("self") + haproxy.as_deref().map_or(Duration::ZERO, cpu);
        let (parts_before, haproxy_before) = (cpu_by_part(), haproxy.as_deref().map_or(Duration::ZERO, cpu));
        let started = Instant::now();
        create_boards(&mut games, &args, &labels).await?;
        let bar = dawgref::console::progress_bar(args.seconds, "s");
        for _ in 0..args.seconds {
            tokio::time::sleep(Duration::from_secs(1)).await;
            bar.inc(1);
        }
        bar.finish_and_clear();
        let cpu_used =
            (cpu("self") + haproxy.as_deref().map_or(Duration::ZERO, cpu)).saturating_sub(cpu_before);
        let parts: Vec<f64> =
            cpu_by_part().iter().zip(parts_before).map(|(a, b)| a.saturating_sub(b).as_secs_f64()).collect();
        let haproxy_used = haproxy.as_deref().map_or(Duration::ZERO, cpu).saturating_sub(haproxy_before);
        let wall = started.elapsed();
        let judged: u64 = handles.iter().map(|h| h.metrics().broadcast_analyses.get()).sum();
        let kept = feed_log(handles, &slug, args.boards);
        ended.store(true, std::sync::atomic::Ordering::Relaxed);
        broadcasts.end_broadcast(authed(pb::EndBroadcastRequest { slug: slug.clone() })).await?;
        let seen = gather(watchers).await;
        let mut late = seen.late_ms.clone();
        late.sort_unstable();
        let at = |p: f64| late.get(((late.len().max(1) - 1) as f64 * p).round() as usize).copied().unwrap_or(0);
        let early = late.iter().filter(|&&l| l < -1).count();
        let on = match args.database_url {
            Some(_) => format!("{} replicas behind HAProxy", args.replicas),
            None => "one server".to_string(),
        };
        println!(
            "{} spectators on {on} over {connections} connections, {} boards{}, delay {} s, analysis {} ms, moves every {} ms at most, {:.0} s",
            args.spectators,
            args.boards,
            if args.lockstep { " in lockstep" } else { "" },
            args.delay_seconds,
            args.analysis_ms,
            args.pace_ms,
            wall.as_secs_f64()
        );
        println!(
            "events delivered {} ({} per spectator); late past due: p50 {} ms, p99 {} ms, max {} ms; early (more than 1 ms): {early}",
            late.len(),
            late.len() / args.spectators.max(1),
            at(0.5),
            at(0.99),
            late.last().copied().unwrap_or(0)
        );
        println!(
            "moves judged {judged} (analyses delivered {}, {} per spectator); CPU {:.1} s over {:.0} s (this process{})",
            seen.analyses,
            seen.analyses / args.spectators.max(1),
            cpu_used.as_secs_f64(),
            wall.as_secs_f64(),
            if haproxy.is_some() { " and HAProxy" } else { "" }
        );
        println!("{kept}");
        if apart.is_some() {
            println!(
                "CPU by part: the server{} {:.1} s, the engine (bots and analysis) {:.1} s, the spectators' clients {:.1} s, HAProxy {:.1} s",
                if args.database_url.is_some() { "s' runtime" } else { "'s runtime" },
                parts[0],
                parts[1],
                parts[2],
                haproxy_used.as_secs_f64()
            );
        }
        println!("resident memory per open stream (server and client in one process): {} bytes", per_stream);
        Ok::<_, Box<dyn std::error::Error>>(())
    })?;
    for handle in &served.handles {
        handle.shutdown();
    }
    for handle in &served.handles {
        serving.block_on(handle.drain(Duration::from_secs(5)));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::Glimpse;
    use dawgref::proto::v1 as pb;
    use prost::Message;

    /// The glimpse's tags are the proto's: an event and an analysis read as such, with their time.
    #[test]
    fn a_glimpse_reads_the_time_and_the_kind_of_a_broadcast_message() {
        let item = |item| pb::WatchBroadcastResponse {
            game_id: "g".into(),
            happened_unix_ms: 1_234_567,
            item: Some(item),
            racks: vec!["ABC".into(), "DEF".into()],
        };
        let event = item(pb::watch_broadcast_response::Item::Event(pb::WatchGameResponse::default()));
        let analysis = item(pb::watch_broadcast_response::Item::Analysis(pb::MoveAnalysis {
            turn: 3,
            ..Default::default()
        }));
        let standings =
            item(pb::watch_broadcast_response::Item::Standings(pb::BroadcastStandings::default()));
        let read = |m: pb::WatchBroadcastResponse| Glimpse::decode(m.encode_to_vec().as_slice()).unwrap();
        let (e, a, s) = (read(event), read(analysis), read(standings));
        assert_eq!((e.happened_unix_ms, e.event.is_some(), e.analysis.is_some()), (1_234_567, true, false));
        assert_eq!((a.happened_unix_ms, a.event.is_some(), a.analysis.is_some()), (1_234_567, false, true));
        assert_eq!((s.event.is_some(), s.analysis.is_some()), (false, false));
    }
}

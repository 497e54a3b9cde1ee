//! `dawgref-lab bench server`: a loopback load tool, bounded in count and time. It starts the server
//! in-process on 127.0.0.1:0 and reports, side by side, requests/s and latency percentiles for
//! ValidatePlay, Evaluate and Health/Check; full bot-vs-bot games per second through CreateGame;
//! the bots' decision time; and resident memory per live game.

use super::CliResult;
use dawgref::lexicon::catalog;
use dawgref::proto::v1 as pb;
use dawgref::proto::v1::analysis_service_client::AnalysisServiceClient;
use dawgref::proto::v1::games_service_client::GamesServiceClient;
use dawgref::server::{self, state::Limits};
use prometheus::core::Metric;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use tonic::transport::Channel;

const POSITION: &str = "11KATI/9H3U1/2U5CATGUT1/2N6R3O1/2F6I3Y1/2IT5J3E1/2XI5A3R1/3MIDNOON3S1/3E1EYEN6/3WAVE8/3O11/3R11/3N11/15/15 LLRRTWZ/ 168/297 0 lex en; ld english;";

/// This process's resident memory, in bytes.
pub(super) fn rss_bytes() -> u64 {
    rss_of("self")
}

/// The resident memory of the process `/proc/<proc>` describes (`self`, or a pid), in bytes;
/// zero where there is none.
pub(super) fn rss_of(proc: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{proc}/statm"))
        .ok()
        .and_then(|s| s.split_whitespace().nth(1).and_then(|p| p.parse::<u64>().ok()))
        .map_or(0, |pages| pages * 4096)
}

pub(super) fn pct(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e6
}

/// Run `clients` loops of `call` for `seconds`; prints requests/s and latency percentiles, and
/// answers the requests/s.
pub(super) async fn load<F, Fut>(name: &str, clients: usize, seconds: f64, make: F) -> f64
where
    F: Fn() -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = bool> + Send,
{
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let make = make.clone();
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            let mut errors = 0u64;
            // Bounded: stops at the deadline or after a million calls.
            while Instant::now() < deadline && lat.len() < 1_000_000 {
                let t = Instant::now();
                if !make().await {
                    errors += 1;
                }
                lat.push(t.elapsed());
            }
            (lat, errors)
        }));
    }
    let mut all = Vec::new();
    let mut errors = 0;
    for t in tasks {
        let (lat, e) = t.await.expect("load task");
        all.extend(lat);
        errors += e;
    }
    all.sort();
    let rate = all.len() as f64 / seconds;
    println!(
        "{name:<14} {rate:>9.0} req/s  p50 {:>7.0} us  p90 {:>7.0} us  p99 {:>7.0} us  ({} calls, {errors} errors)",
        pct(&all, 0.5),
        pct(&all, 0.9),
        pct(&all, 0.99),
        all.len()
    );
    rate
}

pub fn run(seconds: f64, clients: usize, games: usize, live_games: usize) -> CliResult {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let lexicons = ["en", "ru", "erudit"]
            .iter()
            .map(|n| catalog::load_shipped_cached(catalog::shipped(n).expect("shipped"), None))
            .collect::<Result<Vec<_>, _>>()?;
        // One client creates every game here.
        let limits = Limits { max_games: live_games + games + 10, create_rate: None, ..Default::default() };
        let (handle, _) = server::Builder::new(lexicons).limits(limits).start().await?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}", listener.local_addr()?);
        handle.spawn(listener);
        let channel: Channel = tonic::transport::Endpoint::from_shared(url.clone())?.connect().await?;
        println!("loopback, {clients} concurrent clients on one HTTP/2 connection, {seconds} s per call");
        let position = || Some(pb::Position { source: Some(pb::position::Source::Cgp(POSITION.into())), lexicon: String::new() });
        let play = || Some(pb::Play { notation: "6B ZIT".into(), tiles: vec![] });
        {
            let ch = channel.clone();
            load("ValidatePlay", clients, seconds, move || {
                let mut a = AnalysisServiceClient::new(ch.clone());
                async move {
                    let req = pb::ValidatePlayRequest { position: position(), play: play(), rack: None };
                    a.validate_play(req).await.is_ok_and(|r| r.into_inner().valid)
                }
            })
            .await;
        }
        {
            let ch = channel.clone();
            load("Evaluate", clients, seconds, move || {
                let mut a = AnalysisServiceClient::new(ch.clone());
                async move { a.evaluate(pb::EvaluateRequest { position: position(), play: play() }).await.is_ok() }
            })
            .await;
        }
        {
            let ch = channel.clone();
            load("Health/Check", clients, seconds, move || {
                let mut h = tonic_health::pb::health_client::HealthClient::new(ch.clone());
                async move { h.check(tonic_health::pb::HealthCheckRequest { service: String::new() }).await.is_ok() }
            })
            .await;
        }
        // Concurrent bot-vs-bot games as fast as the bots decide: every game created at once
        // (CreateGame answers at the start), then watched to its end.
        let started = Instant::now();
        let mut g = GamesServiceClient::new(channel.clone());
        let bot = |l: pb::BotLevel| pb::SeatSpec { kind: Some(pb::seat_spec::Kind::Bot(l as i32)), think_ms: None };
        let mut watches = Vec::new();
        for i in 0..games {
            let req = pb::CreateGameRequest {
                seats: vec![bot(pb::BotLevel::Strong), bot(pb::BotLevel::Greedy)],
                seed: Some(i as u64),
                challenge_rule: pb::ChallengeRule::Double as i32,
                bot_delay_ms: Some(0),
                ..Default::default()
            };
            let id = g.create_game(req).await?.into_inner().game_id;
            let mut w = GamesServiceClient::new(channel.clone());
            watches.push(tokio::spawn(async move {
                let mut stream = w.watch_game(pb::WatchGameRequest { game_id: id, from_event: 0 }).await?.into_inner();
                let mut moves = 0u64;
                while let Some(e) = stream.message().await? {
                    if matches!(e.kind.as_str(), "play" | "exchange" | "pass") {
                        moves += 1;
                    }
                }
                Ok::<u64, tonic::Status>(moves)
            }));
        }
        let mut turns = 0u64;
        for w in watches {
            turns += w.await.map_err(|e| e.to_string())??;
        }
        let secs = started.elapsed().as_secs_f64();
        println!(
            "bot games      {:>9.1} games/s  ({games} games at once, {turns} bot moves, {:.0} bot moves/s)",
            games as f64 / secs,
            turns as f64 / secs
        );
        let h = handle.metrics().bot_turn.clone();
        println!(
            "bot decisions  mean {:.0} us over {} decisions; {}",
            h.get_sample_sum() / h.get_sample_count().max(1) as f64 * 1e6,
            h.get_sample_count(),
            bucket_summary(&h)
        );
        // Memory per live game: games where the bot has made the opening move.
        // (finished bot games have left memory by themselves)
        let before = rss_bytes();
        let human = pb::SeatSpec { kind: Some(pb::seat_spec::Kind::Human(pb::HumanSeat { name: "h".into(), open: false })), think_ms: None };
        for i in 0..live_games {
            let req = pb::CreateGameRequest {
                seats: vec![bot(pb::BotLevel::Greedy), human.clone()],
                seed: Some(i as u64),
                ..Default::default()
            };
            g.create_game(req).await?;
        }
        let after = rss_bytes();
        println!(
            "live games     {live_games} games held, resident memory +{:.1} MB ({:.1} KB per game, total {:.1} MB)",
            (after.saturating_sub(before)) as f64 / 1e6,
            (after.saturating_sub(before)) as f64 / live_games.max(1) as f64 / 1e3,
            after as f64 / 1e6
        );
        handle.shutdown();
        Ok::<_, Box<dyn std::error::Error>>(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Share of decisions under each bucket bound up to 5 ms, from the histogram.
fn bucket_summary(h: &prometheus::Histogram) -> String {
    let m = h.metric();
    let hist = m.get_histogram();
    let total = hist.get_sample_count().max(1) as f64;
    hist.get_bucket()
        .iter()
        .filter(|b| b.upper_bound() <= 0.005 + 1e-9)
        .map(|b| {
            format!("≤{:.2} ms {:.2}%", b.upper_bound() * 1e3, b.cumulative_count() as f64 / total * 100.0)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `dawgref-lab bench botload`: `games` bot-vs-bot games at once against the server at `addr` (a
/// new one as soon as one ends), bots moving as fast as they decide, for `seconds`. Prints the
/// bot moves per second it saw on the games' watch streams.
pub fn botload(addr: std::net::SocketAddr, games: usize, seconds: f64) -> CliResult {
    if !addr.ip().is_loopback() {
        eprintln!("bench botload: {addr} is not a loopback address; load only this machine");
        return Ok(ExitCode::from(2));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build()?;
    runtime.block_on(async move {
        let channel = Channel::from_shared(format!("http://{addr}"))?.connect().await?;
        let deadline = Instant::now() + Duration::from_secs_f64(seconds);
        let started = Instant::now();
        let mut loops = Vec::new();
        for k in 0..games {
            let channel = channel.clone();
            loops.push(tokio::spawn(async move {
                let mut g = GamesServiceClient::new(channel);
                let bot = |l: pb::BotLevel| pb::SeatSpec { kind: Some(pb::seat_spec::Kind::Bot(l as i32)), think_ms: None };
                let (mut moves, mut finished, mut seed) = (0u64, 0u64, k as u64);
                while Instant::now() < deadline {
                    let req = pb::CreateGameRequest {
                        seats: vec![bot(pb::BotLevel::Strong), bot(pb::BotLevel::Strong)],
                        seed: Some(seed),
                        bot_delay_ms: Some(0),
                        ..Default::default()
                    };
                    seed += games as u64;
                    let id = g.create_game(req).await?.into_inner().game_id;
                    let watch = pb::WatchGameRequest { game_id: id, from_event: 0 };
                    let mut stream = g.watch_game(watch).await?.into_inner();
                    loop {
                        let next = tokio::time::timeout_at(deadline.into(), stream.message()).await;
                        match next {
                            Ok(Ok(Some(e))) if matches!(e.kind.as_str(), "play" | "exchange" | "pass") => moves += 1,
                            Ok(Ok(Some(_))) => {}
                            Ok(Ok(None)) => {
                                finished += 1;
                                break;
                            }
                            Ok(Err(e)) => return Err(e),
                            Err(_) => break,
                        }
                    }
                }
                Ok::<(u64, u64), tonic::Status>((moves, finished))
            }));
        }
        let (mut moves, mut finished) = (0, 0);
        for l in loops {
            let (m, f) = l.await??;
            moves += m;
            finished += f;
        }
        let secs = started.elapsed().as_secs_f64();
        println!(
            "botload: {games} games at once, {finished} finished, {moves} bot moves in {secs:.1} s = {:.0} bot moves/s",
            moves as f64 / secs
        );
        Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    })
    .map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

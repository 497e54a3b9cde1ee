//! `dawgref-lab bench lobby`: `--bots` bot accounts online at once on one SQLite server, each
//! with its stream of events open (over `--connections` client connections): the resident memory
//! an open stream adds; then every even bot challenges the next at the same moment (or
//! `--stagger-ms` apart, while the games begun are played), each
//! challenge timed from the call to its arrival on the challenged bot's stream (p50, p99, max);
//! each bot accepts what it is offered and plays its game at once (GenerateMoves' best play, as
//! the example bot does) at a fast time control, and every game is played to its end, each end
//! heard on both bots' streams.

use super::CliResult;
use super::bench_server::{pct, rss_bytes};
use super::tournament::{DIRECTOR, authed, on_server};
use clap::Args;
use dawgref::proto::v1 as pb;
use pb::analysis_service_client::AnalysisServiceClient;
use pb::bots_service_client::BotsServiceClient;
use pb::games_service_client::GamesServiceClient;
use pb::watch_bot_events_response::Kind;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tonic::transport::Channel;

#[derive(Args, Debug)]
pub struct LobbyArgs {
    /// Bot accounts online at once (an even number: they play in pairs).
    #[arg(long, default_value_t = 200)]
    bots: u32,
    /// Client connections the bots' calls share.
    #[arg(long, default_value_t = 8)]
    connections: u32,
    /// Each game's clock: its initial time per side.
    #[arg(long, default_value_t = 60_000)]
    initial_ms: u64,
    /// The challenges one after another this far apart (while the games already begun are
    /// played), rather than all at one moment (0).
    #[arg(long, default_value_t = 0)]
    stagger_ms: u64,
    /// Scratch directory for the store (must not exist; removed afterwards).
    #[arg(long, default_value = "data/bench-lobby")]
    dir: std::path::PathBuf,
}

fn with_token<T>(message: T, token: &str) -> tonic::Request<T> {
    let mut r = tonic::Request::new(message);
    r.metadata_mut().insert("authorization", format!("Bearer {token}").parse().expect("ascii"));
    r
}

/// What the bots heard: each challenge's time from its call to its arrival, and the games' ends.
#[derive(Default)]
struct Heard {
    delivered: Vec<Duration>,
    ended: usize,
    /// Turns of the games played, as each game's seats saw them end (each game counted by both).
    turns: u64,
    failed: Vec<String>,
}

/// A bot's seat in a game played to its end: on each of its turns GenerateMoves' best play (a
/// pass when there is none).
async fn play(channel: Channel, game_id: String, token: String) -> Result<u32, tonic::Status> {
    let mut games = GamesServiceClient::new(channel.clone());
    let mut analysis = AnalysisServiceClient::new(channel);
    let view = |g: &mut GamesServiceClient<Channel>| {
        let request = with_token(pb::GetGameRequest { game_id: game_id.clone() }, &token);
        let mut g = g.clone();
        async move { g.get_game(request).await.map(|r| r.into_inner().view.unwrap_or_default()) }
    };
    let mut v = view(&mut games).await?;
    let mut watch = games
        .watch_game(with_token(
            pb::WatchGameRequest { game_id: game_id.clone(), from_event: v.events },
            &token,
        ))
        .await?
        .into_inner();
    loop {
        if v.over {
            return Ok(v.turn);
        }
        if Some(v.to_move) == v.my_seat && !v.paused {
            let position = pb::Position {
                source: Some(pb::position::Source::GameId(game_id.clone())),
                lexicon: String::new(),
            };
            let best = if v.awaiting_final_challenge {
                None
            } else {
                let request =
                    pb::GenerateMovesRequest { position: Some(position), limit: 1, ..Default::default() };
                let mut moves = analysis.generate_moves(with_token(request, &token)).await?.into_inner();
                moves.message().await?.and_then(|m| m.play)
            };
            let action = match best {
                Some(play) => pb::submit_turn_request::Action::Play(play),
                None => pb::submit_turn_request::Action::Pass(pb::Pass {}),
            };
            let turn = pb::SubmitTurnRequest {
                game_id: game_id.clone(),
                expected_turn: Some(v.turn),
                request_id: format!("turn-{}", v.turn),
                action: Some(action),
            };
            if let Err(e) = games.submit_turn(with_token(turn, &token)).await
                && e.code() != tonic::Code::Aborted
            {
                return Err(e);
            }
        }
        // The next event, then the game as it stands.
        if watch.message().await?.is_none() {
            return Ok(v.turn);
        }
        v = view(&mut games).await?;
    }
}

pub fn run(args: LobbyArgs) -> CliResult {
    if args.bots < 2 || args.bots % 2 == 1 {
        return Err("--bots: an even number, 2 or more".into());
    }
    on_server(&args.dir.clone(), |channel, url| async move {
        let mut channels = Vec::new();
        for _ in 0..args.connections.max(1) {
            channels.push(tonic::transport::Endpoint::from_shared(url.clone())?.connect().await?);
        }
        let mut b = BotsServiceClient::new(channel);
        let n = args.bots as usize;
        let bar = dawgref::console::progress_bar(n as u64, "bots registered");
        let mut tokens = Vec::with_capacity(n);
        for i in 0..n {
            let accepts = pb::BotAccepts { casual: true, bots: true, ..Default::default() };
            let request = pb::RegisterBotRequest {
                name: format!("lab-{i}"),
                owner: "the lab".into(),
                accepts: Some(accepts),
            };
            tokens.push(b.register_bot(authed(request)).await?.into_inner().token);
            bar.inc(1);
        }
        bar.finish_and_clear();

        // Every bot's stream open; the memory they add.
        let before = rss_bytes();
        let heard = Arc::new(Mutex::new(Heard::default()));
        let sent_at: Arc<Mutex<std::collections::HashMap<String, Instant>>> = Arc::default();
        let ends = Arc::new(tokio::sync::Semaphore::new(0));
        for (i, token) in tokens.iter().enumerate() {
            let channel = channels[i % channels.len()].clone();
            let mut bots = BotsServiceClient::new(channel.clone());
            let mut events = bots
                .watch_bot_events(with_token(pb::WatchBotEventsRequest { from_event: 0 }, token))
                .await?
                .into_inner();
            let (bot_token, heard, sent_at, ends) =
                (token.to_string(), heard.clone(), sent_at.clone(), ends.clone());
            let name = format!("lab-{i}");
            tokio::spawn(async move {
                while let Ok(Some(event)) = events.message().await {
                    match event.kind {
                        Some(Kind::Challenged(c)) => {
                            let at = sent_at.lock().unwrap_or_else(|e| e.into_inner()).get(&name).copied();
                            if let Some(at) = at {
                                heard.lock().unwrap_or_else(|e| e.into_inner()).delivered.push(at.elapsed());
                            }
                            let accept = with_token(pb::AcceptChallengeRequest { id: c.id }, &bot_token);
                            if let Err(e) = bots.accept_challenge(accept).await {
                                heard.lock().unwrap_or_else(|e| e.into_inner()).failed.push(e.to_string());
                            }
                        }
                        Some(Kind::GameStarted(started)) => {
                            let (channel, token, heard) = (channel.clone(), bot_token.clone(), heard.clone());
                            tokio::spawn(async move {
                                let played = play(channel, started.game_id, token).await;
                                let mut heard = heard.lock().unwrap_or_else(|e| e.into_inner());
                                match played {
                                    Ok(turns) => heard.turns += u64::from(turns),
                                    Err(e) => heard.failed.push(e.to_string()),
                                }
                            });
                        }
                        Some(Kind::GameEnded(_)) => {
                            heard.lock().unwrap_or_else(|e| e.into_inner()).ended += 1;
                            ends.add_permits(1);
                        }
                        _ => {}
                    }
                }
            });
        }
        let online = loop {
            let bots = b.list_bots(pb::ListBotsRequest {}).await?.into_inner().bots;
            let online = bots.iter().filter(|b| b.online).count();
            if online == n {
                break online;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let per_stream = rss_bytes().saturating_sub(before) as f64 / n as f64;
        println!("{online} bots online, their streams open: {:.1} KB resident a stream", per_stream / 1024.0);

        // Every even bot challenges the next, all at one moment.
        let go = Arc::new(tokio::sync::Barrier::new(n / 2 + 1));
        let mut calls = tokio::task::JoinSet::new();
        for pair in 0..n / 2 {
            let (from, to) = (2 * pair, 2 * pair + 1);
            let mut bots = BotsServiceClient::new(channels[from % channels.len()].clone());
            let (go, sent_at, token) = (go.clone(), sent_at.clone(), tokens[from].clone());
            let (initial_ms, stagger) =
                (args.initial_ms, Duration::from_millis(args.stagger_ms * pair as u64));
            calls.spawn(async move {
                let request = pb::CreateChallengeRequest {
                    bot: format!("lab-{to}"),
                    game: Some(pb::TournamentGameSettings {
                        clock: Some(pb::ClockSpec { initial_ms, ..Default::default() }),
                        ..Default::default()
                    }),
                    ..Default::default()
                };
                go.wait().await;
                tokio::time::sleep(stagger).await;
                sent_at.lock().unwrap_or_else(|e| e.into_inner()).insert(format!("lab-{to}"), Instant::now());
                bots.create_challenge(with_token(request, &token)).await.map(|_| ())
            });
        }
        let started = Instant::now();
        go.wait().await;
        while let Some(call) = calls.join_next().await {
            call??;
        }
        let bar = dawgref::console::progress_bar(n as u64, "games' ends heard");
        for _ in 0..n {
            let heard_one = tokio::time::timeout(Duration::from_secs(600), ends.acquire()).await;
            heard_one.map_err(|_| "no game's end heard in 10 minutes")??.forget();
            bar.inc(1);
        }
        bar.finish_and_clear();
        let played = started.elapsed();
        let heard = std::mem::take(&mut *heard.lock().unwrap_or_else(|e| e.into_inner()));
        let mut delivered = heard.delivered;
        delivered.sort();
        println!(
            "{} challenges delivered: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms (from CreateChallenge's call to the challenged bot's stream)",
            delivered.len(),
            pct(&delivered, 0.5) / 1000.0,
            pct(&delivered, 0.99) / 1000.0,
            pct(&delivered, 1.0) / 1000.0
        );
        println!(
            "{} games of {} ms a side played to their ends ({:.1} turns a game) in {:.1} s, each end heard by both bots ({} ends); {} calls failed",
            n / 2,
            args.initial_ms,
            heard.turns as f64 / n as f64,
            played.as_secs_f64(),
            heard.ended,
            heard.failed.len()
        );
        if let Some(first) = heard.failed.first() {
            println!("the first failure: {first}");
        }
        let _ = DIRECTOR;
        Ok(())
    })
}

//! `bench flood`: how long a live game's `strong` bot takes to answer a pass while analysis
//! searches flood the server, next to the same with no flood, on an in-process server. The
//! flood is `infers` InferRack requests (a one-tile exchange on an empty board: an inference
//! that cannot finish early) and `sims` Simulate requests, each asking a minute and each from a
//! client of its own (its own token, so no per-client limit is what saves the bot); their
//! clients either go away after `abandon_ms` or keep waiting.

use super::CliResult;
use super::bench_server::pct;
use dawgref::lexicon::catalog;
use dawgref::proto::v1 as pb;
use dawgref::proto::v1::analysis_service_client::AnalysisServiceClient;
use dawgref::proto::v1::games_service_client::GamesServiceClient;
use dawgref::server;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use tonic::transport::Channel;

/// An empty English board; with a rack, an opening to simulate.
const EMPTY: &str = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 / 0/0 0 lex en;";
const OPENING: &str = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0 lex en;";

pub fn run(turns: usize, infers: usize, sims: usize, abandon_ms: u64) -> CliResult {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let en = catalog::load_shipped_cached(catalog::shipped("en").ok_or("no shipped en")?, None)?;
        let (handle, _) = server::Builder::new(vec![en]).start().await?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}", listener.local_addr()?);
        handle.spawn(listener);
        let channel = tonic::transport::Endpoint::from_shared(url)?.connect().await?;
        println!(
            "a strong bot's answer to a pass, {turns} turns a scenario; flood: {infers} InferRack and {sims} \
             Simulate asking 60 s, each its own client"
        );
        let quiet = answers(&channel, turns, 1).await?;
        report("no flood", &quiet, None);
        for (name, abandon) in
            [("flood, clients gone after", Some(abandon_ms)), ("flood, clients waiting", None)]
        {
            let flood = Flood::start(&channel, infers, sims, abandon);
            // Let the flood arrive, and (abandoned) its clients go.
            tokio::time::sleep(Duration::from_millis(abandon.unwrap_or(0) + 200)).await;
            let loaded = answers(&channel, turns, 2).await?;
            let label = match abandon {
                Some(ms) => format!("{name} {ms} ms"),
                None => name.to_string(),
            };
            report(&label, &loaded, Some(&quiet));
            let (admitted, refused) = flood.stop().await;
            println!("  flood requests: {admitted} admitted or still waiting, {refused} refused");
        }
        handle.shutdown();
        Ok::<_, Box<dyn std::error::Error>>(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The flood's requests, each a task of its own.
struct Flood {
    tasks: Vec<tokio::task::JoinHandle<Result<(), tonic::Code>>>,
}

impl Flood {
    fn start(channel: &Channel, infers: usize, sims: usize, abandon_ms: Option<u64>) -> Flood {
        let mut tasks = Vec::new();
        for k in 0..infers + sims {
            let channel = channel.clone();
            tasks.push(tokio::spawn(async move {
                let mut client = AnalysisServiceClient::new(channel);
                let token = format!("Bearer flood-{k}");
                let call = async {
                    if k < infers {
                        let mut req = tonic::Request::new(pb::InferRackRequest {
                            cgp: EMPTY.into(),
                            exchange: Some("Q".into()),
                            budget_ms: 60_000,
                            ..Default::default()
                        });
                        req.metadata_mut().insert("authorization", token.parse().expect("ascii"));
                        client.infer_rack(req).await.map(|_| ())
                    } else {
                        let position = Some(pb::Position {
                            source: Some(pb::position::Source::Cgp(OPENING.into())),
                            lexicon: String::new(),
                        });
                        let mut req = tonic::Request::new(pb::SimulateRequest {
                            position,
                            budget_ms: 60_000,
                            ..Default::default()
                        });
                        req.metadata_mut().insert("authorization", token.parse().expect("ascii"));
                        let mut stream = client.simulate(req).await?.into_inner();
                        while stream.message().await?.is_some() {}
                        Ok(())
                    }
                };
                let answer = match abandon_ms {
                    Some(ms) => match tokio::time::timeout(Duration::from_millis(ms), call).await {
                        Ok(answer) => answer,
                        Err(_) => return Ok(()),
                    },
                    None => call.await,
                };
                answer.map_err(|s| s.code())
            }));
        }
        Flood { tasks }
    }

    /// End the flood (its clients go); how many were admitted (or still waiting) and refused.
    async fn stop(self) -> (usize, usize) {
        let (mut admitted, mut refused) = (0, 0);
        for task in self.tasks {
            if !task.is_finished() {
                task.abort();
            }
            match task.await {
                Ok(Err(tonic::Code::ResourceExhausted)) => refused += 1,
                _ => admitted += 1,
            }
        }
        (admitted, refused)
    }
}

/// The bot's answer times to `turns` passes of a human in a new game against it (seed `seed`):
/// from the pass's answer to the bot's move in the game's event stream.
async fn answers(
    channel: &Channel,
    turns: usize,
    seed: u64,
) -> Result<Vec<Duration>, Box<dyn std::error::Error>> {
    let mut games = GamesServiceClient::new(channel.clone());
    let created = games
        .create_game(pb::CreateGameRequest {
            seats: vec![
                pb::SeatSpec {
                    kind: Some(pb::seat_spec::Kind::Human(pb::HumanSeat { name: "me".into(), open: false })),
                    think_ms: None,
                },
                pb::SeatSpec {
                    kind: Some(pb::seat_spec::Kind::Bot(pb::BotLevel::Strong as i32)),
                    think_ms: None,
                },
            ],
            seed: Some(seed),
            bot_delay_ms: Some(0),
            ..Default::default()
        })
        .await?
        .into_inner();
    let id = created.game_id.clone();
    let mut events =
        games.watch_game(pb::WatchGameRequest { game_id: id.clone(), from_event: 0 }).await?.into_inner();
    let mut times = Vec::new();
    for turn in 0..turns {
        let pass = pb::SubmitTurnRequest {
            game_id: id.clone(),
            expected_turn: Some(2 * turn as u32),
            action: Some(pb::submit_turn_request::Action::Pass(pb::Pass {})),
            ..Default::default()
        };
        let mut req = tonic::Request::new(pass);
        req.metadata_mut().insert("authorization", format!("Bearer {}", created.seat_tokens[0]).parse()?);
        let answered = games.submit_turn(req).await?.into_inner();
        let started = Instant::now();
        if answered.view.as_ref().is_some_and(|v| v.over) {
            break;
        }
        loop {
            let Some(e) = events.message().await? else { return Err("the game's stream ended".into()) };
            if e.seat == 1 && matches!(e.kind.as_str(), "play" | "exchange" | "pass") {
                times.push(started.elapsed());
                break;
            }
            if e.kind == "game_over" {
                return Ok(times);
            }
        }
    }
    Ok(times)
}

fn report(name: &str, times: &[Duration], quiet: Option<&[Duration]>) {
    let mut sorted = times.to_vec();
    sorted.sort();
    let (p50, max) = (pct(&sorted, 0.5) / 1000.0, pct(&sorted, 1.0) / 1000.0);
    let mut line = format!("{name}: {} answers, p50 {p50:.1} ms, max {max:.1} ms", sorted.len());
    if let Some(quiet) = quiet {
        let mut q = quiet.to_vec();
        q.sort();
        let (q50, qmax) = (pct(&q, 0.5) / 1000.0, pct(&q, 1.0) / 1000.0);
        line += &format!(
            "; bound 2 x unloaded + 50 ms: p50 {:.1} ms, max {:.1} ms: {}",
            2.0 * q50 + 50.0,
            2.0 * qmax + 50.0,
            if max <= 2.0 * qmax + 50.0 { "within" } else { "OVER" }
        );
    }
    println!("{line}");
}

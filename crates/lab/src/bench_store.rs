//! `dawgref-lab bench store`: what durability costs. Through the `Games` service in-process (no
//! network, so the figures are the store's and the engine's, not HTTP/2's), it reports:
//! turns per second across many concurrent games with the SQLite store and with the memory
//! store; the time to recover many stored games at start-up; and the data directory's size per
//! finished game.

use super::CliResult;
use dawgref::bot::{self, BotLevel};
use dawgref::host::RecoveryReport;
use dawgref::lexicon::catalog;
use dawgref::proto::v1 as pb;
use dawgref::proto::v1::games_service_server::GamesService;
use dawgref::server;
use dawgref::server::Handle;
use dawgref::server::state::Limits;
use dawgref::store::postgres::Replica;
use dawgref::store::{MemoryStore, PgStore, SqliteStore};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;
use tonic::Request;

pub(super) fn authed<T>(msg: T, token: &str) -> Request<T> {
    let mut r = Request::new(msg);
    if let Ok(v) = format!("Bearer {token}").parse() {
        r.metadata_mut().insert("authorization", v);
    }
    r
}

/// A server over `store` (or as a replica sharing a PostgreSQL one), not listening: the
/// benchmark calls its services in process.
async fn state(store: Store) -> Result<(Arc<Handle>, RecoveryReport), Box<dyn std::error::Error>> {
    let shipped = catalog::shipped("en").ok_or("no en lexicon")?;
    let lexicon = catalog::load_shipped_cached(shipped, None)?;
    let limits = Limits { max_games: 1_000_000, create_rate: None, ..Limits::default() };
    let builder = server::Builder::new(vec![lexicon]).limits(limits);
    let builder = match store {
        Store::Own(store) => builder.store(store),
        Store::Replica(store) => builder.replica(store),
    };
    let (handle, report) = builder.start().await?;
    Ok((Arc::new(handle), report))
}

/// A store of the benchmark's own, or one shared by replicas.
enum Store {
    Own(Arc<dyn dawgref::store::Store>),
    Replica(Arc<PgStore>),
}

/// A game between two people that only ends when someone resigns.
pub(super) fn endless(seed: u64) -> pb::CreateGameRequest {
    let human = || pb::SeatSpec {
        kind: Some(pb::seat_spec::Kind::Human(pb::HumanSeat { name: "p".into(), open: false })),
        think_ms: None,
    };
    pb::CreateGameRequest {
        ruleset: pb::Ruleset::English as i32,
        seats: vec![human(), human()],
        seed: Some(seed),
        options: Some(pb::GameOptions { scoreless_turn_limit: Some(1_000_000), ..Default::default() }),
        ..Default::default()
    }
}

/// `games` concurrent games, `turns` passes each (with request ids, so responses are stored as
/// in real play). Returns turns per second.
async fn turns_per_second(handle: Arc<Handle>, games: usize, turns: usize) -> Result<f64, String> {
    let service = Arc::new(handle.games_service());
    let mut created = Vec::new();
    for k in 0..games {
        let c = service.create_game(Request::new(endless(k as u64))).await.map_err(|e| e.to_string())?;
        created.push(c.into_inner());
    }
    let started = Instant::now();
    let tasks: Vec<_> = created
        .into_iter()
        .map(|c| {
            let service = service.clone();
            tokio::spawn(async move {
                for t in 0..turns {
                    let req = pb::SubmitTurnRequest {
                        game_id: c.game_id.clone(),
                        expected_turn: Some(t as u32),
                        request_id: format!("t{t}"),
                        action: Some(pb::submit_turn_request::Action::Pass(pb::Pass {})),
                    };
                    service
                        .submit_turn(authed(req, &c.seat_tokens[t % 2]))
                        .await
                        .map_err(|e| e.to_string())?;
                }
                Ok::<_, String>(())
            })
        })
        .collect();
    for t in tasks {
        t.await.map_err(|e| e.to_string())??;
    }
    Ok((games * turns) as f64 / started.elapsed().as_secs_f64())
}

/// Play `games` games to the end between two people whose moves a greedy bot picks.
async fn finished_games(handle: Arc<Handle>, games: usize) -> Result<usize, String> {
    let service = handle.games_service();
    let mut turns = 0;
    for k in 0..games {
        let mut req = endless(1000 + k as u64);
        req.options = None;
        let c = service.create_game(Request::new(req)).await.map_err(|e| e.to_string())?.into_inner();
        let session = handle.host().session(&c.game_id).await.map_err(|e| e.to_string())?;
        loop {
            let (seat, turn, action) = {
                let snapshot = session.snapshot();
                let game = snapshot.game();
                if game.is_over() {
                    break;
                }
                let seat = game.to_move();
                (seat, game.turn(), bot::choose_action(game, seat, BotLevel::Greedy))
            };
            let action = match action {
                dawgref::game::Action::Play(p) => pb::submit_turn_request::Action::Play(
                    server::convert::play_to(&p, dawgref::alphabet::Alphabet::english()),
                ),
                dawgref::game::Action::Exchange(r) => pb::submit_turn_request::Action::Exchange(
                    r.to_string(dawgref::alphabet::Alphabet::english()),
                ),
                _ => pb::submit_turn_request::Action::Pass(pb::Pass {}),
            };
            let req = pb::SubmitTurnRequest {
                game_id: c.game_id.clone(),
                expected_turn: Some(turn),
                request_id: format!("t{turn}"),
                action: Some(action),
            };
            service.submit_turn(authed(req, &c.seat_tokens[seat])).await.map_err(|e| e.to_string())?;
            turns += 1;
        }
    }
    Ok(turns)
}

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| entries.flatten().filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum())
        .unwrap_or(0)
}

/// PostgreSQL with `replicas` replicas in this process, each playing its share of the games at
/// once (no forwarding: each creates, so owns, its own). Returns turns per second in all.
async fn postgres_turns_per_second(
    url: &str,
    replicas: usize,
    games: usize,
    turns: usize,
) -> Result<f64, String> {
    let mut states = Vec::new();
    for k in 0..replicas {
        let replica = Replica {
            id: uuid::Uuid::new_v4(),
            addr: format!("bench-replica-{k}"),
            lease: std::time::Duration::from_secs(10),
        };
        let store = Arc::new(PgStore::open(url, replica).await.map_err(|e| e.to_string())?);
        let (st, _) = state(Store::Replica(store)).await.map_err(|e| e.to_string())?;
        states.push(st);
    }
    let runs: Vec<_> = states
        .into_iter()
        .map(|st| tokio::spawn(async move { turns_per_second(st, games / replicas, turns).await }))
        .collect();
    // The replicas play at the same time: their rates add up.
    let mut total = 0.0;
    for r in runs {
        total += r.await.map_err(|e| e.to_string())??;
    }
    Ok(total)
}

pub fn run(
    dir: &Path,
    games: usize,
    turns: usize,
    recover: usize,
    finished: usize,
    database_url: Option<&str>,
) -> CliResult {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    if dir.exists() {
        return Err(format!(
            "{} exists: give a directory that does not, it is removed afterwards",
            dir.display()
        )
        .into());
    }
    let result = runtime.block_on(async {
        println!("turns: passes with request ids, {games} concurrent games × {turns} turns, in-process");
        let memory = turns_per_second(state(Store::Own(Arc::new(MemoryStore::new()))).await?.0, games, turns).await?;
        println!("  memory store : {memory:>9.0} turns/s");
        let durable_dir = dir.join("turns");
        let durable = {
            let store = Arc::new(SqliteStore::open(&durable_dir)?);
            let rate = turns_per_second(state(Store::Own(store.clone())).await?.0, games, turns).await?;
            store.close();
            rate
        };
        println!("  sqlite store : {durable:>9.0} turns/s (WAL, synchronous=FULL, group commit)");
        if let Some(url) = database_url {
            for replicas in [1, 3] {
                let rate = postgres_turns_per_second(url, replicas, games, turns).await?;
                println!("  postgres, {replicas} replica(s): {rate:>9.0} turns/s (group commit, fenced appends)");
            }
        }

        let recover_dir = dir.join("recover");
        {
            let store = Arc::new(SqliteStore::open(&recover_dir)?);
            turns_per_second(state(Store::Own(store.clone())).await?.0, recover, 10).await?;
            store.close();
        }
        let store = Arc::new(SqliteStore::open(&recover_dir)?);
        let (_st, report) = state(Store::Own(store.clone())).await?;
        println!(
            "recovery: {} games of 10 turns each loaded in {:.2} s ({} quarantined)",
            report.loaded,
            report.elapsed.as_secs_f64(),
            report.quarantined.len()
        );
        store.close();

        let finished_dir = dir.join("finished");
        let store = Arc::new(SqliteStore::open(&finished_dir)?);
        let turns = finished_games(state(Store::Own(store.clone())).await?.0, finished).await?;
        store.close();
        drop(store);
        let bytes = dir_size(&finished_dir);
        println!(
            "size: {finished} finished games ({turns} turns) take {bytes} bytes: {} bytes per game, {} per turn",
            bytes / finished.max(1) as u64,
            bytes / turns.max(1) as u64
        );
        Ok::<_, Box<dyn std::error::Error>>(())
    });
    let _ = std::fs::remove_dir_all(dir);
    result.map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

//! `dawgref-lab bench forward`: what a call costs when it reaches a replica that does not own its
//! game. Two replicas run in this process, each on its own loopback port with its own store
//! handle on one PostgreSQL; a game created on replica A is asked for directly at A and through
//! B, which forwards to A (one more HTTP/2 hop on loopback, the store not asked: B caches the
//! owner). Reads (GetGame) one at a time and from many clients at once; writes (SubmitTurn, a
//! durable commit each) one at a time.

use super::CliResult;
use super::bench_server::{load, pct};
use super::bench_store::{authed, endless};
use dawgref::lexicon::catalog;
use dawgref::proto::v1 as pb;
use dawgref::proto::v1::games_service_client::GamesServiceClient;
use dawgref::server::{self, Handle};
use dawgref::store::PgStore;
use dawgref::store::postgres::Replica;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tonic::transport::Channel;

/// A replica serving on a loopback port: its handle, a client channel to it, its address.
pub(super) async fn replica(
    url: &str,
) -> Result<(Handle, Channel, std::net::SocketAddr), Box<dyn std::error::Error>> {
    // One client (the bench, or the balancer in front) creates every game.
    replica_with(url, server::state::Limits { create_rate: None, ..Default::default() }).await
}

/// [`replica`] with `limits`, and the lab's director token.
pub(super) async fn replica_with(
    url: &str,
    limits: server::state::Limits,
) -> Result<(Handle, Channel, std::net::SocketAddr), Box<dyn std::error::Error>> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let me = Replica { id: uuid::Uuid::new_v4(), addr: addr.to_string(), lease: Duration::from_secs(3) };
    let store = Arc::new(PgStore::open(url, me).await?);
    let lexicon = catalog::load_shipped_cached(catalog::shipped("en").ok_or("no en lexicon")?, None)?;
    let (handle, _) = server::Builder::new(vec![lexicon])
        .limits(limits)
        .director_token(super::tournament::DIRECTOR)
        .replica(store)
        .start()
        .await?;
    handle.spawn(listener);
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))?.connect().await?;
    Ok((handle, channel, addr))
}

/// `turns` passes one at a time on the game, through `channel`, starting at turn `first`.
async fn passes(
    channel: &Channel,
    game: &pb::CreateGameResponse,
    first: u32,
    turns: u32,
) -> Result<Vec<Duration>, tonic::Status> {
    let mut client = GamesServiceClient::new(channel.clone());
    let mut times = Vec::new();
    for turn in first..first + turns {
        let req = pb::SubmitTurnRequest {
            game_id: game.game_id.clone(),
            expected_turn: Some(turn),
            request_id: format!("t{turn}"),
            action: Some(pb::submit_turn_request::Action::Pass(pb::Pass {})),
        };
        let started = Instant::now();
        client.submit_turn(authed(req, &game.seat_tokens[turn as usize % 2])).await?;
        times.push(started.elapsed());
    }
    times.sort();
    Ok(times)
}

pub fn run(url: &str, seconds: f64, clients: usize, turns: u32) -> CliResult {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let (owner, direct, _) = replica(url).await?;
        let (other, forwarded, _) = replica(url).await?;
        let game = GamesServiceClient::new(direct.clone()).create_game(endless(1)).await?.into_inner();
        println!("two replicas in this process on loopback, one PostgreSQL; the game's owner is A");
        for (name, channel, n) in [("GetGame at A", &direct, 1), ("GetGame via B", &forwarded, 1)]
            .into_iter()
            .chain([("GetGame at A", &direct, clients), ("GetGame via B", &forwarded, clients)])
        {
            let (ch, id, token) = (channel.clone(), game.game_id.clone(), game.seat_tokens[0].clone());
            print!("{n:>3} client(s)  ");
            load(name, n, seconds, move || {
                let mut g = GamesServiceClient::new(ch.clone());
                let req = authed(pb::GetGameRequest { game_id: id.clone() }, &token);
                async move { g.get_game(req).await.is_ok() }
            })
            .await;
        }
        let mut turn = 0;
        for (name, channel) in [("SubmitTurn at A", &direct), ("SubmitTurn via B", &forwarded)] {
            let times = passes(channel, &game, turn, turns).await?;
            turn += turns;
            println!(
                "  1 client(s)  {name:<16} p50 {:>7.0} us  p90 {:>7.0} us  p99 {:>7.0} us  ({turns} durable turns)",
                pct(&times, 0.5),
                pct(&times, 0.9),
                pct(&times, 0.99)
            );
        }
        println!(
            "forwarded calls counted at B: {}",
            other.metrics().forwarded.get()
        );
        owner.shutdown();
        other.shutdown();
        Ok::<_, Box<dyn std::error::Error>>(())
    })?;
    Ok(ExitCode::SUCCESS)
}

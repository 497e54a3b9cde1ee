//! `dawgref-lab bench balancer`: three replicas (in this process, one PostgreSQL) behind the
//! deployment's HAProxy (`deploy/haproxy/haproxy.cfg`, started as a child process), clients
//! sending `x-dawgref-game`. Games are created through the balancer (round robin: CreateGame
//! names no game), so most start away from the replica their calls land on. Reported: the share
//! of calls served by the owner without a forward after each game's first two turns, and GetGame
//! throughput through the balancer next to clients connected straight to each game's owner
//! (learned from `x-dawgref-owner`), in the same run.

use super::CliResult;
use super::balancer;
use super::bench_forward::replica_with;
use super::bench_server::load;
use super::bench_store::{authed, endless};
use dawgref::proto::v1 as pb;
use dawgref::proto::v1::games_service_client::GamesServiceClient;
use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tonic::metadata::MetadataValue;
use tonic::transport::Channel;

type Error = Box<dyn std::error::Error>;

/// A game the clients play: its id (also as the header's value) and seat tokens.
struct Game {
    id: String,
    header: MetadataValue<tonic::metadata::Ascii>,
    tokens: Vec<String>,
}

impl Game {
    fn get(&self) -> tonic::Request<pb::GetGameRequest> {
        let mut r = authed(pb::GetGameRequest { game_id: self.id.clone() }, &self.tokens[0]);
        r.metadata_mut().insert("x-dawgref-game", self.header.clone());
        r
    }

    fn pass(&self, turn: u32) -> tonic::Request<pb::SubmitTurnRequest> {
        let req = pb::SubmitTurnRequest {
            game_id: self.id.clone(),
            expected_turn: Some(turn),
            request_id: format!("t{turn}"),
            action: Some(pb::submit_turn_request::Action::Pass(pb::Pass {})),
        };
        let mut r = authed(req, &self.tokens[turn as usize % 2]);
        r.metadata_mut().insert("x-dawgref-game", self.header.clone());
        r
    }
}

/// CPU time a process has used (user + system), from `/proc/<pid>/stat`; zero where there is none.
pub(super) fn cpu(pid: &str) -> std::time::Duration {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return Default::default() };
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    let fields: Vec<&str> = stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace().collect();
    let ticks: u64 = [11, 12].iter().filter_map(|&i| fields.get(i)?.parse::<u64>().ok()).sum();
    // Linux reports in clock ticks of 1/100 s (USER_HZ).
    std::time::Duration::from_millis(ticks * 10)
}

fn owner(metadata: &tonic::metadata::MetadataMap) -> String {
    metadata.get("x-dawgref-owner").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string()
}

/// Turns `from..to` of every game through `channel` (GetGame, then a pass), `clients` games at
/// a time: the calls made, and each game's owner as the last answer named it.
async fn play(
    channel: &Channel,
    games: &Arc<Vec<Game>>,
    from: u32,
    to: u32,
    clients: usize,
) -> Result<(u64, HashMap<usize, String>), Error> {
    let next = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (games, next, mut client) =
            (games.clone(), next.clone(), GamesServiceClient::new(channel.clone()));
        tasks.push(tokio::spawn(async move {
            let (mut calls, mut owners) = (0u64, HashMap::new());
            loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(g) = games.get(k) else { break };
                for turn in from..to {
                    client.get_game(g.get()).await?;
                    let answer = client.submit_turn(g.pass(turn)).await?;
                    calls += 2;
                    owners.insert(k, owner(answer.metadata()));
                }
            }
            Ok::<_, tonic::Status>((calls, owners))
        }));
    }
    let (mut calls, mut owners) = (0, HashMap::new());
    for t in tasks {
        let (c, o) = t.await??;
        calls += c;
        owners.extend(o);
    }
    Ok((calls, owners))
}

/// Replicas on one PostgreSQL behind HAProxy as deployed, in this process: each replica's handle,
/// a channel straight to it and its address, HAProxy, and a channel through it. HAProxy is
/// stopped and its directory removed on drop.
pub(super) struct Balanced {
    pub(super) replicas: Vec<(dawgref::server::Handle, Channel, std::net::SocketAddr)>,
    pub(super) proxy: balancer::Balancer,
    pub(super) through: Channel,
    dir: std::path::PathBuf,
}

impl Balanced {
    /// `n` replicas with `limits` on the PostgreSQL at `url`, behind HAProxy once it listens.
    pub(super) async fn start(
        url: &str,
        n: usize,
        limits: dawgref::server::state::Limits,
    ) -> Result<Balanced, Error> {
        let mut replicas = Vec::new();
        for _ in 0..n {
            replicas.push(replica_with(url, limits.clone()).await?);
        }
        let ports: Vec<u16> = replicas.iter().map(|(_, _, addr)| addr.port()).collect();
        let dir = std::env::temp_dir().join(format!("dawgref-balancer-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let proxy = balancer::Balancer::start(&dir, port, &ports)?;
        // HAProxy takes a moment to listen.
        let endpoint = tonic::transport::Endpoint::from_shared(proxy.url())?;
        let mut waited = 0;
        let through = loop {
            match endpoint.connect().await {
                Ok(c) => break c,
                Err(_) if waited < 100 => {
                    waited += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                Err(e) => return Err(e.into()),
            }
        };
        Ok(Balanced { replicas, proxy, through, dir })
    }
}

impl Drop for Balanced {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub fn run(url: &str, games: usize, turns: u32, seconds: f64, clients: usize) -> CliResult {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        // One client (the bench, through the balancer) creates every game.
        let limits = dawgref::server::state::Limits { create_rate: None, ..Default::default() };
        let balanced = Balanced::start(url, 3, limits).await?;
        let (replicas, proxy, through) = (&balanced.replicas, &balanced.proxy, balanced.through.clone());
        println!("three replicas in this process on one PostgreSQL, behind HAProxy ({})", proxy.url());

        let mut created = Vec::new();
        let mut creator = GamesServiceClient::new(through.clone());
        for k in 0..games {
            let g = creator.create_game(endless(k as u64)).await?.into_inner();
            created.push(Game { header: g.game_id.parse()?, id: g.game_id, tokens: g.seat_tokens });
        }
        let games = Arc::new(created);
        let forwarded = |rs: &[(dawgref::server::Handle, Channel, std::net::SocketAddr)]| {
            rs.iter().map(|(h, _, _)| h.metrics().forwarded.get()).sum::<u64>()
        };
        let moved = |rs: &[(dawgref::server::Handle, Channel, std::net::SocketAddr)]| {
            rs.iter().map(|(h, _, _)| h.metrics().handovers.get()).sum::<u64>()
        };
        let (first, _) = play(&through, &games, 0, 2, clients).await?;
        let (f0, m0) = (forwarded(replicas), moved(replicas));
        println!(
            "first two turns of {} games: {first} calls, {f0} forwarded, {m0} games handed over",
            games.len()
        );
        let (calls, owners) = play(&through, &games, 2, turns.max(3), clients).await?;
        let f1 = forwarded(replicas) - f0;
        println!(
            "turns 3-{}: {calls} calls, {f1} forwarded: {:.2}% served by the owner without a forward ({} more hand-overs)",
            turns.max(3),
            100.0 * (1.0 - f1 as f64 / calls.max(1) as f64),
            moved(replicas) - m0
        );

        // GetGame: through the balancer, then straight to each game's owner, over as many
        // connections as clients each way (one per client to the balancer; one per client and
        // replica straight: a client that routes itself holds a connection to every replica).
        let n = games.len();
        let connect = |url: String| -> Result<Channel, Error> {
            Ok(tonic::transport::Endpoint::from_shared(url)?.tcp_nodelay(true).connect_lazy())
        };
        let to_proxy: Arc<Vec<Channel>> =
            Arc::new((0..clients).map(|_| connect(proxy.url())).collect::<Result<_, _>>()?);
        let haproxy = proxy.pid().to_string();
        let (me0, hp0) = (cpu("self"), cpu(&haproxy));
        let (g2, s2) = (games.clone(), Arc::new(AtomicUsize::new(0)));
        let balanced = load("via HAProxy", clients, seconds, move || {
            let k = s2.fetch_add(1, Ordering::Relaxed);
            let (mut c, r) = (GamesServiceClient::new(to_proxy[k % to_proxy.len()].clone()), g2[k % n].get());
            async move { c.get_game(r).await.is_ok() }
        })
        .await;
        let (me1, hp1) = (cpu("self"), cpu(&haproxy));
        let mut by_addr: HashMap<String, Vec<Channel>> = HashMap::new();
        for (_, _, addr) in replicas {
            let channels = (0..clients).map(|_| connect(format!("http://{addr}"))).collect::<Result<_, _>>()?;
            by_addr.insert(addr.to_string(), channels);
        }
        let owned: Arc<Vec<Vec<Channel>>> = Arc::new(
            (0..n)
                .map(|k| by_addr.get(&owners[&k]).cloned().ok_or_else(|| format!("game {k}: owner unknown")))
                .collect::<Result<_, _>>()?,
        );
        let (g3, s3) = (games.clone(), Arc::new(AtomicUsize::new(0)));
        let straight = load("to the owner", clients, seconds, move || {
            let k = s3.fetch_add(1, Ordering::Relaxed);
            let channels = &owned[k % n];
            let (mut c, r) = (GamesServiceClient::new(channels[(k / n) % channels.len()].clone()), g3[k % n].get());
            async move { c.get_game(r).await.is_ok() }
        })
        .await;
        let me2 = cpu("self");
        let per_call = |d: std::time::Duration, rate: f64| d.as_secs_f64() * 1e6 / (rate * seconds).max(1.0);
        println!(
            "CPU per GetGame (replicas and clients in this process / HAProxy): via HAProxy {:.1} / {:.1} us, straight {:.1} / 0 us",
            per_call(me1 - me0, balanced),
            per_call(hp1 - hp0, balanced),
            per_call(me2 - me1, straight)
        );
        println!("GetGame through the balancer / straight to the owner: {:.2}", balanced / straight.max(1.0));
        for (h, _, _) in replicas {
            h.shutdown();
        }
        Ok::<_, Error>(())
    })?;
    Ok(ExitCode::SUCCESS)
}

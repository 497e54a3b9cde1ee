//! Replicas of the real binary sharing one real PostgreSQL (a throwaway cluster from the
//! system's binaries): any replica answers for any game, and what a client was told survives
//! losing a replica. Each test drives games through all replicas in turn, with clients that retry
//! UNAVAILABLE (and their own timeouts) and treat every other error as a wrong answer; then every
//! acknowledged turn must be in its game's history exactly once, at its place, whichever replica
//! is asked.
//!
//! - `kill -9` of the owner of the busiest games: the survivors take them over once the lease
//!   lapses, and the games go on.
//! - `SIGSTOP` of an owner past its lease, a takeover, then `SIGCONT`: the old owner's pending
//!   bot move is never written, and the history does not fork.
//! - PostgreSQL restarted under load: UNAVAILABLE while it is down, never a wrong answer.
//! - A rolling restart (SIGTERM, which hands the games over, then a new process): no turn lost.
//! - ListGames asked of any replica lists every replica's games, in one id order, page by page.

use crate::common;

use common::binary::{free_port, serve, until_up, wait_until_up};
use common::otlp::{Collector, Received};
use common::postgres::Postgres;
use common::server::{TempDir, authed, bot, create, human, pause, turn};
use dawgref::proto::v1 as pb;
use pb::analysis_service_client::AnalysisServiceClient;
use pb::games_service_client::GamesServiceClient;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tonic::Code;
use tonic::transport::{Channel, Endpoint};

/// Replicas' lease in these tests: a dead owner's games move within about this.
const LEASE_MS: u64 = 1000;

/// Every replica's director token (ListGames).
const DIRECTOR: &str = "director-secret";

/// One test at a time: each runs a PostgreSQL and three servers on two cores.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

struct Replica {
    child: Option<Child>,
    port: u16,
    /// Where its Prometheus metrics are served.
    metrics: u16,
}

impl Replica {
    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
    fn pid(&self) -> i32 {
        self.child.as_ref().unwrap().id() as i32
    }
    /// A counter or gauge of the replica's, read from its metrics endpoint.
    fn metric(&self, name: &str) -> f64 {
        use std::io::{Read, Write};
        let mut conn = std::net::TcpStream::connect(("127.0.0.1", self.metrics)).unwrap();
        conn.write_all(b"GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n").unwrap();
        let mut text = String::new();
        conn.read_to_string(&mut text).unwrap();
        text.lines()
            .find_map(|l| l.strip_prefix(name).and_then(|rest| rest.strip_prefix(' ')))
            .map_or(0.0, |v| v.trim().parse().unwrap())
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

struct Cluster {
    pg: Postgres,
    db: String,
    dir: TempDir,
    replicas: Vec<Replica>,
    /// More `serve` arguments for every replica.
    args: Vec<String>,
}

fn signal(pid: i32, sig: i32) {
    assert_eq!(unsafe { libc::kill(pid, sig) }, 0, "signal {sig} to {pid}");
}

impl Cluster {
    async fn start(tag: &str, n: usize) -> Cluster {
        Cluster::start_with(tag, n, &[]).await
    }

    async fn start_with(tag: &str, n: usize, args: &[&str]) -> Cluster {
        let pg = Postgres::start(tag, false);
        let db = pg.database("games");
        let dir = TempDir::new(tag);
        let args = args.iter().map(|a| a.to_string()).collect();
        let mut cluster = Cluster { pg, db, dir, replicas: Vec::new(), args };
        for _ in 0..n {
            let r = cluster.spawn(None).await;
            cluster.replicas.push(r);
        }
        cluster
    }

    /// A replica on `port` (a free one when None), answering. Its ports are picked again when
    /// it exits before it answers (one was taken before it bound it: see `serve_on_free_port`);
    /// `port`, when given, is kept, as a restarted replica's address is.
    async fn spawn(&self, port: Option<u16>) -> Replica {
        let mut exits = Vec::new();
        for _ in 0..5 {
            let port = port.unwrap_or_else(free_port);
            let metrics = free_port();
            let mut child = self.command(port, metrics).spawn().expect("the server binary starts");
            match until_up(&mut child, &format!("http://127.0.0.1:{port}")).await {
                Ok(()) => return Replica { child: Some(child), port, metrics },
                Err(status) => exits.push((port, metrics, status)),
            }
        }
        panic!("the replica exited before it answered, each time: {exits:?}\n{}", self.logs())
    }

    fn command(&self, port: u16, metrics: u16) -> Command {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.0.join(format!("replica-{port}.log")))
            .unwrap();
        let mut command = serve(port);
        command
            .args(["--database-url", &self.db, "--lease-ms", &LEASE_MS.to_string()])
            .args(["--metrics-listen", &format!("127.0.0.1:{metrics}")])
            .args(&self.args)
            .arg("--lexicon-cache")
            .arg(self.dir.0.join("lexicons"))
            .arg("--data-dir")
            .arg(self.dir.0.join("unused"))
            .env("DAWGREF_DIRECTOR_TOKEN", DIRECTOR)
            // With --otlp-endpoint: batches sent often, named by the replica's address.
            .env("OTEL_BSP_SCHEDULE_DELAY", "100")
            .env("OTEL_RESOURCE_ATTRIBUTES", format!("service.instance.id=127.0.0.1:{port}"))
            .stdout(log.try_clone().unwrap())
            .stderr(log);
        command
    }

    fn urls(&self) -> Vec<String> {
        self.replicas.iter().map(Replica::url).collect()
    }

    /// A replica's log, for a failure message.
    fn logs(&self) -> String {
        let mut all = String::new();
        for r in &self.replicas {
            let path = self.dir.0.join(format!("replica-{}.log", r.port));
            all +=
                &format!("--- replica {}:\n{}\n", r.port, std::fs::read_to_string(path).unwrap_or_default());
        }
        all
    }
}

async fn channel(url: &str) -> Channel {
    // A client's own deadline: a paused server accepts a connection and never answers.
    Endpoint::from_shared(url.to_string())
        .unwrap()
        .timeout(Duration::from_secs(5))
        .connect_timeout(Duration::from_secs(1))
        .connect_lazy()
}

/// What a client was told about a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ack {
    turn: u32,
    seat: u32,
    points: i32,
}

struct Game {
    id: String,
    tokens: Vec<String>,
    acks: Mutex<Vec<Ack>>,
}

/// Errors a client may see while replicas come and go: all retryable. (`Unknown` or `Internal`
/// with "transport error" or "h2 protocol error" is what the client library itself reports when
/// the connection to a killed or draining server breaks mid-call, whether before the answer's
/// headers or while reading its body: the server sends neither; a retry with the same request
/// id is safe.)
fn retryable(e: &tonic::Status) -> bool {
    matches!(e.code(), Code::Unavailable | Code::Cancelled | Code::DeadlineExceeded)
        || (matches!(e.code(), Code::Unknown | Code::Internal)
            && (e.message().contains("transport error") || e.message().starts_with("h2 protocol error")))
}

/// Every error that was not retryable, with its call.
type Wrong = Arc<Mutex<Vec<String>>>;

/// How a client plays its game through the replicas.
#[derive(Clone, Copy, Default)]
struct Style {
    /// Stay with one replica (as a balancer hashing on the game would) until it fails; else a
    /// turn at each replica in turn.
    sticky: bool,
    /// After this many turns, wait this long (long enough for the game to fall asleep).
    pause: Option<(usize, Duration)>,
}

/// Play the game through the replicas until it ends or `stop`. A retryable error moves to the
/// next replica; a turn whose answer was lost is retried with its request id.
async fn drive(
    urls: Arc<Mutex<Vec<String>>>,
    game: Arc<Game>,
    stop: Arc<AtomicBool>,
    wrong: Wrong,
    start: usize,
    style: Style,
) {
    let mut k = start;
    let mut failures = 0;
    let mut turns = 0;
    while !stop.load(Ordering::Relaxed) {
        let url = {
            let urls = urls.lock().unwrap();
            urls[k % urls.len()].clone()
        };
        if !style.sticky {
            k += 1;
        }
        let ch = channel(&url).await;
        let (mut g, mut a) = (GamesServiceClient::new(ch.clone()), AnalysisServiceClient::new(ch));
        let outcome: Result<bool, tonic::Status> = async {
            let v = g
                .get_game(authed(pb::GetGameRequest { game_id: game.id.clone() }, &game.tokens[0]))
                .await?
                .into_inner()
                .view
                .unwrap();
            if v.over {
                return Ok(true);
            }
            let seat = v.to_move as usize;
            let token = &game.tokens[seat];
            let action = if v.awaiting_final_challenge {
                pb::submit_turn_request::Action::Pass(pb::Pass {})
            } else {
                let req = pb::GenerateMovesRequest {
                    position: Some(pb::Position {
                        source: Some(pb::position::Source::GameId(game.id.clone())),
                        lexicon: String::new(),
                    }),
                    limit: 1,
                    ..Default::default()
                };
                let mut moves = a.generate_moves(authed(req, token)).await?.into_inner();
                match moves.message().await?.and_then(|m| m.play) {
                    Some(play) => pb::submit_turn_request::Action::Play(play),
                    None => pb::submit_turn_request::Action::Pass(pb::Pass {}),
                }
            };
            let req = pb::SubmitTurnRequest {
                game_id: game.id.clone(),
                expected_turn: Some(v.turn),
                request_id: format!("{seat}-{}", v.turn),
                action: Some(action),
            };
            let r = g.submit_turn(authed(req, token)).await?.into_inner();
            game.acks.lock().unwrap().push(Ack { turn: v.turn, seat: seat as u32, points: r.points });
            Ok(r.view.is_some_and(|v| v.over))
        }
        .await;
        match outcome {
            Ok(true) => return,
            Ok(false) => {
                failures = 0;
                turns += 1;
                if let Some((every, wait)) = style.pause
                    && turns % every == 0
                {
                    tokio::time::sleep(wait).await;
                }
            }
            Err(e) if retryable(&e) => {
                if style.sticky {
                    k += 1;
                }
                failures += 1;
                tokio::time::sleep(Duration::from_millis(if failures > 3 { 100 } else { 10 })).await;
            }
            Err(e) => {
                wrong.lock().unwrap().push(format!(
                    "game {} via {url}: {:?} {}",
                    game.id,
                    e.code(),
                    e.message()
                ));
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// The game's plays, passes and exchanges as `url` shows them (retrying what is retryable).
async fn history(url: &str, game: &Game) -> (pb::GameView, Vec<Ack>) {
    let started = Instant::now();
    loop {
        match try_history(url, game).await {
            Ok(h) => return h,
            Err(e) if retryable(&e) && started.elapsed() < Duration::from_secs(20) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("game {} via {url}: {e}", game.id),
        }
    }
}

async fn try_history(url: &str, game: &Game) -> Result<(pb::GameView, Vec<Ack>), tonic::Status> {
    let ch = channel(url).await;
    let mut g = GamesServiceClient::new(ch);
    let v = g
        .get_game(authed(pb::GetGameRequest { game_id: game.id.clone() }, &game.tokens[0]))
        .await?
        .into_inner()
        .view
        .unwrap();
    let mut stream = g
        .watch_game(authed(pb::WatchGameRequest { game_id: game.id.clone(), from_event: 0 }, &game.tokens[0]))
        .await?
        .into_inner();
    let mut turns = Vec::new();
    for _ in 0..v.events {
        let e = stream.message().await?.expect("the history is complete");
        if matches!(e.kind.as_str(), "play" | "pass" | "exchange") {
            turns.push(Ack { turn: turns.len() as u32, seat: e.seat, points: e.points });
        }
    }
    Ok((v, turns))
}

/// Every replica shows the same history, and every acknowledged turn is in it at its place.
async fn check(urls: &[String], game: &Game) {
    let (_, turns) = history(&urls[0], game).await;
    for url in &urls[1..] {
        assert_eq!(history(url, game).await.1, turns, "game {}: replicas disagree", game.id);
    }
    let acks = game.acks.lock().unwrap().clone();
    for ack in &acks {
        let kept = turns.get(ack.turn as usize).unwrap_or_else(|| {
            panic!("game {}: acknowledged turn {} is missing ({} kept)", game.id, ack.turn, turns.len())
        });
        assert_eq!(kept, ack, "game {}: acknowledged turn differs", game.id);
    }
}

async fn new_games(url: &str, n: usize, seed: u64) -> Vec<Arc<Game>> {
    new_games_with(url, n, seed, None).await
}

/// `n` games of two people created at `url`; `scoreless_limit`: scoreless turns that end one.
async fn new_games_with(url: &str, n: usize, seed: u64, scoreless_limit: Option<u32>) -> Vec<Arc<Game>> {
    let mut g = GamesServiceClient::new(channel(url).await);
    let mut games = Vec::new();
    for k in 0..n {
        let mut req = create(
            pb::Ruleset::English,
            pb::ChallengeRule::Void,
            vec![human("a"), human("b")],
            seed + k as u64,
        );
        if scoreless_limit.is_some() {
            req.options.get_or_insert_with(Default::default).scoreless_turn_limit = scoreless_limit;
        }
        let created = g.create_game(req).await.unwrap().into_inner();
        games.push(Arc::new(Game {
            id: created.game_id,
            tokens: created.seat_tokens,
            acks: Mutex::new(Vec::new()),
        }));
    }
    games
}

fn acked(games: &[Arc<Game>]) -> usize {
    games.iter().map(|g| g.acks.lock().unwrap().len()).sum()
}

/// Drivers for every game, spread over the replicas.
struct Load {
    stop: Arc<AtomicBool>,
    wrong: Wrong,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

fn load(urls: &Arc<Mutex<Vec<String>>>, games: &[Arc<Game>]) -> Load {
    load_with(urls, games, Style::default())
}

fn load_with(urls: &Arc<Mutex<Vec<String>>>, games: &[Arc<Game>], style: Style) -> Load {
    let stop = Arc::new(AtomicBool::new(false));
    let wrong: Wrong = Arc::default();
    let tasks = games
        .iter()
        .enumerate()
        .map(|(k, g)| tokio::spawn(drive(urls.clone(), g.clone(), stop.clone(), wrong.clone(), k, style)))
        .collect();
    Load { stop, wrong, tasks }
}

impl Load {
    async fn finish(self) -> Vec<String> {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.tasks {
            let _ = t.await;
        }
        self.wrong.lock().unwrap().clone()
    }
}

/// Wait until `more` further turns are acknowledged across `games`.
async fn progress(games: &[Arc<Game>], more: usize, what: &str) -> Duration {
    let started = Instant::now();
    let target = acked(games) + more;
    while acked(games) < target {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{what}: no progress ({} of {target})",
            acked(games)
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    started.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_go_on_after_their_owner_is_killed() {
    let _serial = SERIAL.lock().await;
    let mut cluster = Cluster::start("kill9", 3).await;
    // Replica 0 creates, so owns, most games.
    let mut games = new_games(&cluster.replicas[0].url(), 8, 1).await;
    let others = new_games(&cluster.replicas[1].url(), 3, 100).await;
    games.extend(others);
    let urls = Arc::new(Mutex::new(cluster.urls()));
    let running = load(&urls, &games);
    progress(&games, 40, "before the kill").await;

    // kill -9 the busiest owner; clients now use the survivors only.
    let owned_by_dead: Vec<Arc<Game>> = games[..8].to_vec();
    cluster.replicas[0].child.as_mut().unwrap().kill().unwrap();
    cluster.replicas[0].child.as_mut().unwrap().wait().unwrap();
    let killed = Instant::now();
    urls.lock().unwrap().remove(0);
    let before = acked(&owned_by_dead);
    while acked(&owned_by_dead) == before {
        assert!(
            killed.elapsed() < Duration::from_secs(30),
            "the dead replica's games never moved on\n{}",
            cluster.logs()
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    eprintln!("kill -9 to the next acknowledged turn of a dead owner's game: {:?}", killed.elapsed());
    progress(&owned_by_dead, 40, "after the kill").await;
    let wrong = running.finish().await;
    assert!(wrong.is_empty(), "clients got wrong answers: {wrong:#?}\n{}", cluster.logs());
    let survivors = urls.lock().unwrap().clone();
    for g in &games {
        check(&survivors, g).await;
    }
    eprintln!("{} turns acknowledged, all present once on both survivors", acked(&games));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_owner_never_writes_after_its_lease() {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::start("sigstop", 2).await;
    let (a, b) = (cluster.replicas[0].url(), cluster.replicas[1].url());
    // A person against a bot that waits 2 s before it moves, owned by A.
    let mut ga = GamesServiceClient::new(channel(&a).await);
    let mut request =
        create(pb::Ruleset::English, pb::ChallengeRule::Void, vec![human("p"), bot(pb::BotLevel::Greedy)], 9);
    request.bot_delay_ms = Some(2000);
    let created = ga.create_game(request).await.unwrap().into_inner();
    let game = Game {
        id: created.game_id.clone(),
        tokens: created.seat_tokens.clone(),
        acks: Mutex::new(Vec::new()),
    };
    let pass = |turn: u32| pb::SubmitTurnRequest {
        game_id: game.id.clone(),
        expected_turn: Some(turn),
        request_id: format!("p-{turn}"),
        action: Some(pb::submit_turn_request::Action::Pass(pb::Pass {})),
    };
    // The person passes through B (forwarded to A); A's bot then waits to move.
    let mut gb = GamesServiceClient::new(channel(&b).await);
    gb.submit_turn(authed(pass(0), &game.tokens[0])).await.unwrap();
    signal(cluster.replicas[0].pid(), libc::SIGSTOP);
    tokio::time::sleep(Duration::from_millis(LEASE_MS + 500)).await;

    // B takes the game over (its first forward times out) and its own bot moves.
    let started = Instant::now();
    let view = loop {
        match gb.get_game(authed(pb::GetGameRequest { game_id: game.id.clone() }, &game.tokens[0])).await {
            Ok(v) if v.get_ref().view.as_ref().is_some_and(|v| v.turn >= 2) => {
                break v.into_inner().view.unwrap();
            }
            Ok(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            Err(e) => assert!(retryable(&e), "{e}"),
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "B never took the game over\n{}",
            cluster.logs()
        );
    };
    assert_eq!(view.to_move, 0);

    // A wakes: its bot move is due and refused; the game stays B's.
    signal(cluster.replicas[0].pid(), libc::SIGCONT);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let mut ga = GamesServiceClient::new(channel(&a).await);
    let r = loop {
        match ga.submit_turn(authed(pass(2), &game.tokens[0])).await {
            Ok(r) => break r.into_inner(),
            Err(e) => assert!(retryable(&e), "{e}"),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(r.view.unwrap().turn, 3);
    let (va, ha) = history(&a, &game).await;
    let (vb, hb) = history(&b, &game).await;
    assert_eq!(ha, hb, "A and B show one history");
    assert_eq!((va.turn, vb.turn), (3, 3));
    // Exactly: pass, the bot's one move, pass — never a second bot move at turn 1.
    assert_eq!(ha.iter().map(|t| t.seat).collect::<Vec<_>>(), vec![0, 1, 0], "{ha:?}");
    let log = cluster.logs();
    assert!(
        log.contains("another replica owns the game now") || log.contains("taken over by another replica"),
        "{log}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgres_restart_costs_only_retries() {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::start("pgrestart", 2).await;
    let games = new_games(&cluster.replicas[0].url(), 6, 7).await;
    let urls = Arc::new(Mutex::new(cluster.urls()));
    let running = load(&urls, &games);
    progress(&games, 20, "before the restart").await;
    cluster.pg.stop();
    let down = acked(&games);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    // Nothing can be acknowledged while no commit can be made.
    assert!(acked(&games) <= down + games.len(), "turns acknowledged while PostgreSQL was down");
    cluster.pg.restart();
    progress(&games, 30, "after the restart").await;
    let wrong = running.finish().await;
    assert!(wrong.is_empty(), "clients got wrong answers: {wrong:#?}\n{}", cluster.logs());
    for g in &games {
        check(&cluster.urls(), g).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_restart_loses_no_turn() {
    let _serial = SERIAL.lock().await;
    let mut cluster = Cluster::start("rolling", 3).await;
    let mut games = Vec::new();
    for (k, r) in cluster.replicas.iter().enumerate() {
        games.extend(new_games(&r.url(), 3, 10 * k as u64).await);
    }
    let urls = Arc::new(Mutex::new(cluster.urls()));
    let running = load(&urls, &games);
    progress(&games, 20, "before the restarts").await;
    let pauses = Arc::new(AtomicUsize::new(0));
    for k in 0..cluster.replicas.len() {
        let port = cluster.replicas[k].port;
        signal(cluster.replicas[k].pid(), libc::SIGTERM);
        let status = cluster.replicas[k].child.as_mut().unwrap().wait().unwrap();
        assert!(status.success(), "replica {k} exited with {status}");
        cluster.replicas[k].child = None;
        let handed = Instant::now();
        progress(&games, 10, "with a replica down").await;
        pauses.fetch_max(handed.elapsed().as_millis() as usize, Ordering::Relaxed);
        cluster.replicas[k] = cluster.spawn(Some(port)).await;
    }
    progress(&games, 20, "after the restarts").await;
    let wrong = running.finish().await;
    assert!(wrong.is_empty(), "clients got wrong answers: {wrong:#?}\n{}", cluster.logs());
    for g in &games {
        check(&cluster.urls(), g).await;
    }
    eprintln!(
        "rolling restart: {} turns acknowledged, none lost; longest wait for 10 turns with a replica down {} ms",
        acked(&games),
        pauses.load(Ordering::Relaxed)
    );
}

/// Every page of ListGames from the replica at `url`, `size` games a page.
async fn list_all(url: &str, size: u32, query: &str) -> (Vec<String>, Vec<u32>) {
    let mut g = GamesServiceClient::new(channel(url).await);
    let (mut ids, mut totals) = (Vec::new(), Vec::new());
    let mut token = String::new();
    loop {
        let page = g
            .list_games(authed(
                pb::ListGamesRequest {
                    page_size: size,
                    page_token: token.clone(),
                    query: query.into(),
                    ..Default::default()
                },
                DIRECTOR,
            ))
            .await
            .unwrap()
            .into_inner();
        assert!(
            page.games.len() <= size as usize,
            "a page of {} games for page_size {size}",
            page.games.len()
        );
        ids.extend(page.games.into_iter().map(|v| v.game_id));
        totals.push(page.total);
        if page.next_page_token.is_empty() {
            return (ids, totals);
        }
        token = page.next_page_token;
        assert!(totals.len() <= 20, "ListGames does not end");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_games_sees_every_replica() {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::start("list", 3).await;
    let mut all = Vec::new();
    for (k, r) in cluster.replicas.iter().enumerate() {
        all.extend(new_games(&r.url(), 4 - k, 50 * k as u64).await);
    }
    let mut ids: Vec<String> = all.iter().map(|g| g.id.clone()).collect();
    ids.sort();
    // Each replica owns only the games it created; every one of them lists all nine.
    for url in cluster.urls() {
        let (listed, totals) = list_all(&url, 4, "").await;
        assert_eq!(listed, ids, "ListGames at {url}");
        assert_eq!(totals, vec![9, 9, 9], "ListGames at {url}: total on each page");
        let (one, _) = list_all(&url, 100, "").await;
        assert_eq!(one, ids, "ListGames at {url}, one page");
    }
    // A query reaches the other replicas' games too: the id prefix of a game replica 2 owns,
    // asked of replica 0.
    let theirs = &all[all.len() - 1].id;
    let (found, totals) = list_all(&cluster.replicas[0].url(), 10, &theirs[..13]).await;
    assert_eq!(found, vec![theirs.clone()]);
    assert_eq!(totals, vec![1]);
    // The director's token is checked on every replica: a wrong one is refused at the first.
    let err = GamesServiceClient::new(channel(&cluster.replicas[1].url()).await)
        .list_games(authed(pb::ListGamesRequest::default(), "not-the-director"))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);
    // A director's action asked of a replica that does not own the game reaches its owner, and
    // every replica then lists the game as paused; finished games are listed from the shared
    // store, whichever replica is asked.
    let mine = &all[0];
    let mut d =
        pb::directors_service_client::DirectorsServiceClient::new(channel(&cluster.replicas[2].url()).await);
    let paused = d.pause_game(authed(pause(&mine.id, "p"), DIRECTOR)).await.unwrap().into_inner();
    assert!(paused.view.unwrap().paused);
    for url in cluster.urls() {
        let view = GamesServiceClient::new(channel(&url).await)
            .get_game(pb::GetGameRequest { game_id: mine.id.clone() })
            .await
            .unwrap()
            .into_inner()
            .view
            .unwrap();
        assert!(view.paused, "{url}");
    }
    let void = pb::SetResultRequest {
        game_id: all[8].id.clone(),
        request_id: "v".into(),
        result: Some(pb::set_result_request::Result::Void(pb::Void {})),
        reason: "test".into(),
    };
    d.set_result(authed(void, DIRECTOR)).await.unwrap();
    for url in cluster.urls() {
        let finished = GamesServiceClient::new(channel(&url).await)
            .list_games(authed(
                pb::ListGamesRequest { state: pb::GameState::Finished as i32, ..Default::default() },
                DIRECTOR,
            ))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            finished.games.iter().map(|v| v.game_id.clone()).collect::<Vec<_>>(),
            vec![all[8].id.clone()]
        );
    }
}

/// What every replica's counter adds up to.
fn total(cluster: &Cluster, name: &str) -> f64 {
    cluster.replicas.iter().filter(|r| r.child.is_some()).map(|r| r.metric(name)).sum()
}

/// A turn through `client`, the game named in `x-dawgref-game` as a balancer needs: GetGame, then
/// a pass with its request id. The owner each answer named.
async fn turn_with_header(client: &mut GamesServiceClient<Channel>, game: &Game, turn: u32) -> [String; 2] {
    let header: tonic::metadata::MetadataValue<_> = game.id.parse().unwrap();
    let owner =
        |m: &tonic::metadata::MetadataMap| m.get("x-dawgref-owner").unwrap().to_str().unwrap().to_string();
    let mut get = authed(pb::GetGameRequest { game_id: game.id.clone() }, &game.tokens[0]);
    get.metadata_mut().insert("x-dawgref-game", header.clone());
    let view = client.get_game(get).await.unwrap();
    let first = owner(view.metadata());
    assert_eq!(view.into_inner().view.unwrap().turn, turn, "game {}", game.id);
    let seat = turn as usize % 2;
    let mut pass = authed(
        pb::SubmitTurnRequest {
            game_id: game.id.clone(),
            expected_turn: Some(turn),
            request_id: format!("{seat}-{turn}"),
            action: Some(pb::submit_turn_request::Action::Pass(pb::Pass {})),
        },
        &game.tokens[seat],
    );
    pass.metadata_mut().insert("x-dawgref-game", header);
    let answer = client.submit_turn(pass).await.unwrap();
    [first, owner(answer.metadata())]
}

/// Three replicas behind the deployment's HAProxy, which hashes on `x-dawgref-game`: games are
/// created round robin (CreateGame names no game), so most start on a replica their calls do not
/// land on; after their first turns each game has moved to where its calls land, and no call is
/// forwarded any more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_the_balancer_each_game_moves_to_where_its_calls_land() {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::start("balancer", 3).await;
    let ports: Vec<u16> = cluster.replicas.iter().map(|r| r.port).collect();
    let balancer = common::balancer::Balancer::start(&cluster.dir.0, free_port(), &ports)
        .unwrap_or_else(|e| panic!("{e} (scripts/test installs it)"));
    wait_until_up(&balancer.url()).await;
    let games = new_games_with(&balancer.url(), 12, 500, Some(1000)).await;
    let mut client = GamesServiceClient::new(channel(&balancer.url()).await);
    for turn in 0..2 {
        for g in &games {
            turn_with_header(&mut client, g, turn).await;
        }
    }
    let (forwarded, moved) =
        (total(&cluster, "dawgref_forwarded_calls_total"), total(&cluster, "dawgref_handovers_total"));
    assert!(moved >= 1.0, "some game was created away from where its calls land");
    let mut owners = std::collections::BTreeMap::new();
    for turn in 2..10 {
        for g in &games {
            for owner in turn_with_header(&mut client, g, turn).await {
                let first = owners.entry(g.id.clone()).or_insert_with(|| owner.clone());
                assert_eq!(*first, owner, "game {}: one owner from its third turn on", g.id);
            }
        }
    }
    assert_eq!(
        total(&cluster, "dawgref_forwarded_calls_total"),
        forwarded,
        "after each game's first two turns no call is forwarded\n{}",
        cluster.logs()
    );
    assert_eq!(total(&cluster, "dawgref_handovers_total"), moved, "and no game moves again");
    eprintln!(
        "through HAProxy: {forwarded} calls forwarded in the first two turns of 12 games ({moved} hand-overs), none in the next 8"
    );
}

/// Games that sleep (and let their leases go), wake at whichever replica their client uses and
/// move there, while a replica is killed with `kill -9`: no acknowledged turn is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill9_while_games_sleep_wake_and_move_loses_no_turn() {
    let _serial = SERIAL.lock().await;
    let mut cluster = Cluster::start_with("sleep-kill9", 3, &["--idle-after", "300ms"]).await;
    // Game j is created on replica j % 3 and played through replica (j + 1) % 3: it moves.
    let mut games = Vec::new();
    for j in 0..9 {
        games.extend(new_games(&cluster.replicas[j % 3].url(), 1, 700 + j as u64).await);
    }
    let urls = Arc::new(Mutex::new(cluster.urls()));
    let mut rotated = games.clone();
    rotated.rotate_right(1);
    let style = Style { sticky: true, pause: Some((4, Duration::from_millis(700))) };
    let running = load_with(&urls, &rotated, style);
    progress(&games, 40, "before the kill").await;
    assert!(total(&cluster, "dawgref_handovers_total") >= 1.0, "games moved to their clients' replicas");
    assert!(total(&cluster, "dawgref_games_woken_total") >= 1.0, "games slept and woke");

    cluster.replicas[0].child.as_mut().unwrap().kill().unwrap();
    cluster.replicas[0].child.as_mut().unwrap().wait().unwrap();
    cluster.replicas[0].child = None;
    urls.lock().unwrap().remove(0);
    progress(&games, 40, "after the kill").await;
    let wrong = running.finish().await;
    assert!(wrong.is_empty(), "clients got wrong answers: {wrong:#?}\n{}", cluster.logs());
    let survivors = urls.lock().unwrap().clone();
    for g in &games {
        check(&survivors, g).await;
    }
    eprintln!("{} turns acknowledged while games slept, woke and moved, all present once", acked(&games));
}

/// One trace follows a turn sent to a replica that does not own the game: the client's
/// `traceparent` is continued at the replica it reached, carried on the forward, and continued
/// at the owner, where the game's command, its store commit and the bot's decision and move it
/// prompted join it. A malformed `traceparent` is ignored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_trace_follows_a_forwarded_turn_to_the_owner_and_its_bot() {
    let _serial = SERIAL.lock().await;
    let (collector, endpoint) = Collector::start().await;
    let cluster = Cluster::start_with("traces", 2, &["--otlp-endpoint", &endpoint]).await;
    let (a, b) = (&cluster.replicas[0], &cluster.replicas[1]);
    let created = GamesServiceClient::new(channel(&a.url()).await)
        .create_game(create(
            pb::Ruleset::English,
            pb::ChallengeRule::Void,
            vec![human("ann"), bot(pb::BotLevel::Greedy)],
            5,
        ))
        .await
        .unwrap()
        .into_inner();
    let (trace_id, client_span) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
    let pass = Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    let mut pass = authed(turn(&created.game_id, 0, pass), &created.seat_tokens[0]);
    pass.metadata_mut().insert("traceparent", format!("00-{trace_id}-{client_span}-01").parse().unwrap());
    let mut at_b = GamesServiceClient::new(channel(&b.url()).await);
    // A client's trace not sampled: the call is not traced.
    let unsampled = "0af7651916cd43dd8448eb211c80319c";
    let mut get = authed(pb::GetGameRequest { game_id: created.game_id.clone() }, &created.seat_tokens[0]);
    get.metadata_mut().insert("traceparent", format!("00-{unsampled}-b7ad6b7169203331-00").parse().unwrap());
    at_b.get_game(get).await.unwrap();
    at_b.submit_turn(pass).await.unwrap();
    // A malformed traceparent is no error: the call starts a trace of its own. These calls go
    // to the owner: a third forwarded call in a row from B would hand the game over to B
    // (`HAND_OVER_AFTER`), and a bot decision made at A would then be dropped and made again
    // at B, outside the client's trace.
    let mut at_a = GamesServiceClient::new(channel(&a.url()).await);
    for bad in ["garbage", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", "ff-x-y-z"] {
        let mut get =
            authed(pb::GetGameRequest { game_id: created.game_id.clone() }, &created.seat_tokens[0]);
        get.metadata_mut().insert("traceparent", bad.parse().unwrap());
        at_a.get_game(get).await.unwrap_or_else(|e| panic!("traceparent {bad:?}: {e}"));
    }

    let wanted = hex(trace_id);
    let path = "dawgref.v1.GamesService/SubmitTurn";
    // Each instance exports its spans in its own batches, so the trace is complete only once
    // every span the assertions name is in: B's call and forward, A's call, command, decision
    // and move, and two commits (the pass's and the bot's move's).
    let expected = [
        (path, b.port),
        ("forward", b.port),
        (path, a.port),
        ("command", a.port),
        ("bot decision", a.port),
        ("bot move", a.port),
    ];
    let at = |port: u16| format!("127.0.0.1:{port}");
    let started = Instant::now();
    let spans = loop {
        let spans: Vec<Received> =
            collector.spans().into_iter().filter(|r| r.span.trace_id == wanted).collect();
        let has = |name: &str, port: u16| {
            spans.iter().any(|r| r.span.name == name && r.instance.contains(&at(port)))
        };
        let commits = spans.iter().filter(|r| r.span.name == "store commit").count();
        if expected.iter().all(|&(name, port)| has(name, port)) && commits >= 2 {
            break spans;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the trace is incomplete: {:#?}\n{}",
            spans.iter().map(|r| (&r.instance, &r.span.name)).collect::<Vec<_>>(),
            cluster.logs()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let one = |name: &str, port: u16| -> Received {
        let at = at(port);
        let found: Vec<&Received> =
            spans.iter().filter(|r| r.span.name == name && r.instance.contains(&at)).collect();
        assert_eq!(found.len(), 1, "one {name:?} at {at}: {spans:#?}");
        found[0].clone()
    };
    let rpc_b = one(path, b.port);
    let forward = one("forward", b.port);
    let rpc_a = one(path, a.port);
    let command = one("command", a.port);
    let decision = one("bot decision", a.port);
    let bot_move = one("bot move", a.port);
    // The client's span, then B's call, its forward, A's call, the game's command.
    assert_eq!(rpc_b.span.parent_span_id, hex(client_span));
    assert_eq!(forward.span.parent_span_id, rpc_b.span.span_id);
    assert_eq!(rpc_a.span.parent_span_id, forward.span.span_id);
    assert_eq!(command.span.parent_span_id, rpc_a.span.span_id);
    assert_eq!(command.attribute("kind").as_deref(), Some("turn"));
    // The pass's store commit is the command's; the bot decided after it, and its move was
    // committed in the same trace.
    let commits: Vec<&Received> = spans.iter().filter(|r| r.span.name == "store commit").collect();
    assert!(commits.iter().any(|c| c.span.parent_span_id == command.span.span_id), "{commits:#?}");
    assert!(commits.iter().any(|c| c.span.parent_span_id == bot_move.span.span_id), "{commits:#?}");
    assert_eq!(decision.span.parent_span_id, command.span.span_id);
    assert_eq!(bot_move.span.parent_span_id, decision.span.span_id);
    // Nothing of the unsampled call was exported (it was sent before the turn, whose spans are
    // all in).
    assert!(!collector.spans().iter().any(|r| r.span.trace_id == hex(unsampled)));
    // Nothing of the malformed calls joined the client's trace.
    let gets = spans.iter().filter(|r| r.span.name.ends_with("/GetGame")).count();
    assert_eq!(gets, 0);
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// A tournament whose games' owner is killed mid-round: the surviving replica takes the games
/// over, its bots play them out, and each game's end enters its round once (the survivor's
/// listener and its reads of the tournament write one version after another).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_round_ends_on_the_survivor_when_its_games_owner_is_killed() {
    use crate::tournament_kill9::{check_round, results, until_played};
    use pb::tournaments_service_client::TournamentsServiceClient;
    let _serial = SERIAL.lock().await;
    let mut cluster = Cluster::start("tournament", 2).await;
    let (first, second) = (cluster.replicas[0].url(), cluster.replicas[1].url());
    let mut t = TournamentsServiceClient::new(channel(&first).await);
    let players = ["Ash", "Birch", "Cedar", "Dogwood", "Elm", "Fir"]
        .iter()
        .map(|n| pb::TournamentPlayerSpec {
            bot_account: String::new(),
            name: format!("Bot {n}"),
            rating: 1000,
            bot: Some(pb::BotLevel::Greedy as i32),
            lifetime_games: None,
        })
        .collect();
    let request = pb::CreateTournamentRequest {
        allow_same_names: false,
        name: "Replicated".into(),
        slug: "rep".into(),
        game: Some(pb::TournamentGameSettings { bot_delay_ms: Some(80), ..Default::default() }),
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players,
            rounds: vec![pb::RoundSpec {
                method: pb::PairingMethod::RoundRobin as i32,
                ..Default::default()
            }],
            controls: None,
            result_reports: 0,
        }],
        seed: Some(3),
    };
    t.create_tournament(authed(request, DIRECTOR)).await.unwrap();
    let pair =
        pb::PairRoundRequest { slug: "rep".into(), division: "a".into(), round: 1, ..Default::default() };
    t.pair_round(authed(pair, DIRECTOR)).await.unwrap();
    let start =
        pb::StartRoundRequest { slug: "rep".into(), division: "a".into(), round: 1, ..Default::default() };
    t.start_round(authed(start, DIRECTOR)).await.unwrap();
    // The first replica made, so owns, the round's three games: it dies a few moves in.
    tokio::time::sleep(Duration::from_millis(700)).await;
    cluster.replicas[0].child.as_mut().unwrap().kill().unwrap();
    cluster.replicas[0].child.as_mut().unwrap().wait().unwrap();
    let mut t = TournamentsServiceClient::new(channel(&second).await);
    let (division, events) = until_played(&mut t, "rep", 1).await;
    let mut results = results(&mut t, "rep", events).await;
    results.sort();
    assert_eq!(results, [(1, 1), (1, 2), (1, 3)], "each game's end once\n{}", cluster.logs());
    assert_eq!(division.standings.iter().map(|s| s.wins).sum::<f64>(), 3.0);
    // Each result is its game's, as the survivor serves it.
    check_round(&second, &division, 1).await;
}

/// A broadcast of a tournament whose games' owner is killed mid-round: a spectator on the
/// survivor gets, for each game, the game as made, then every event once and in order, none
/// before the delay after it happened, each with both racks, and each turn's analysis once, after
/// its event (judged on the owner and relayed, then on the survivor, which judges again what the
/// lost owner had in hand).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broadcast_goes_on_from_the_survivor_when_its_games_owner_is_killed() {
    use pb::broadcasts_service_client::BroadcastsServiceClient;
    use pb::tournaments_service_client::TournamentsServiceClient;
    use pb::watch_broadcast_response::Item;
    const DELAY_MS: u64 = 3000;
    let _serial = SERIAL.lock().await;
    let mut cluster = Cluster::start("broadcast", 2).await;
    let (first, second) = (cluster.replicas[0].url(), cluster.replicas[1].url());
    let mut t = TournamentsServiceClient::new(channel(&first).await);
    let players = ["Ash", "Birch", "Cedar", "Dogwood"]
        .iter()
        .map(|n| pb::TournamentPlayerSpec {
            bot_account: String::new(),
            name: format!("Bot {n}"),
            rating: 1000,
            bot: Some(pb::BotLevel::Greedy as i32),
            lifetime_games: None,
        })
        .collect();
    let request = pb::CreateTournamentRequest {
        allow_same_names: false,
        name: "Broadcast".into(),
        slug: "cast".into(),
        game: Some(pb::TournamentGameSettings { bot_delay_ms: Some(300), ..Default::default() }),
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players,
            rounds: vec![pb::RoundSpec {
                method: pb::PairingMethod::RoundRobin as i32,
                ..Default::default()
            }],
            controls: None,
            result_reports: 0,
        }],
        seed: Some(5),
    };
    t.create_tournament(authed(request, DIRECTOR)).await.unwrap();
    let mut b = BroadcastsServiceClient::new(channel(&first).await);
    let create = pb::CreateBroadcastRequest {
        slug: "cast-live".into(),
        name: "Broadcast live".into(),
        labels: [("tournament".to_string(), "cast".to_string())].into(),
        delay_seconds: (DELAY_MS / 1000) as u32,
        reveal_racks: true,
        analysis: true,
        analysis_ms: 100,
    };
    b.create_broadcast(authed(create, DIRECTOR)).await.unwrap();
    // The spectator is on the second replica (which knows the broadcast within a second).
    let mut watcher = BroadcastsServiceClient::new(
        Endpoint::from_shared(second.clone()).unwrap().connect_timeout(Duration::from_secs(1)).connect_lazy(),
    );
    let watch = pb::WatchBroadcastRequest { slug: "cast-live".into(), game_id: String::new() };
    let mut stream = loop {
        match watcher.watch_broadcast(watch.clone()).await {
            Ok(s) => break s.into_inner(),
            Err(e) if e.code() == Code::NotFound => tokio::time::sleep(Duration::from_millis(200)).await,
            Err(e) => panic!("{e:?}"),
        }
    };
    let heard = Arc::new(Mutex::new(Vec::<(u64, pb::WatchBroadcastResponse)>::new()));
    let listener = {
        let heard = heard.clone();
        tokio::spawn(async move {
            while let Ok(Some(m)) = stream.message().await {
                heard.lock().unwrap().push((dawgref::host::unix_ms(), m));
            }
        })
    };
    let pair =
        pb::PairRoundRequest { slug: "cast".into(), division: "a".into(), round: 1, ..Default::default() };
    t.pair_round(authed(pair, DIRECTOR)).await.unwrap();
    let start =
        pb::StartRoundRequest { slug: "cast".into(), division: "a".into(), round: 1, ..Default::default() };
    t.start_round(authed(start, DIRECTOR)).await.unwrap();
    // The first replica made, so holds, both games: it dies once some of their moves are out.
    tokio::time::sleep(Duration::from_millis(DELAY_MS + 2000)).await;
    let before = heard.lock().unwrap().len();
    cluster.replicas[0].child.as_mut().unwrap().kill().unwrap();
    cluster.replicas[0].child.as_mut().unwrap().wait().unwrap();
    let mut t = TournamentsServiceClient::new(channel(&second).await);
    let (division, _) = crate::tournament_kill9::until_played(&mut t, "cast", 1).await;
    // Every game's end shown, and the analyses after it.
    tokio::time::sleep(Duration::from_millis(DELAY_MS + 2000)).await;
    listener.abort();
    let heard = heard.lock().unwrap().clone();
    let logs = cluster.logs();
    assert!(before > 2, "some of the games went out before the kill: {before}\n{logs}");
    let games: Vec<String> = division.rounds[0].pairings.iter().map(|p| p.game_id.clone()).collect();
    assert_eq!(games.len(), 2);
    let mut g = GamesServiceClient::new(channel(&second).await);
    for id in &games {
        // As its director sees it: the game now, not held back.
        let get = authed(pb::GetGameRequest { game_id: id.clone() }, DIRECTOR);
        let view = g.get_game(get).await.unwrap().into_inner().view.unwrap();
        assert!(view.over);
        let mine: Vec<&(u64, pb::WatchBroadcastResponse)> =
            heard.iter().filter(|(_, m)| &m.game_id == id).collect();
        assert!(matches!(mine[0].1.item, Some(Item::Game(_))), "the game as made first\n{logs}");
        assert_eq!(mine[0].1.racks.len(), 2, "with both racks");
        let events: Vec<(u64, &pb::WatchBroadcastResponse, &pb::WatchGameResponse)> = mine
            .iter()
            .filter_map(|(at, m)| match &m.item {
                Some(Item::Event(e)) => Some((*at, m, e)),
                _ => None,
            })
            .collect();
        let numbers: Vec<u64> = events.iter().map(|(_, _, e)| e.number).collect();
        assert_eq!(numbers, (0..view.events).collect::<Vec<_>>(), "every event once, in order\n{logs}");
        assert_eq!(events.last().unwrap().2.kind, "game_over");
        for (at, m, e) in &events {
            assert!(
                *at >= m.happened_unix_ms + DELAY_MS,
                "event {} shown {} ms after it happened",
                e.number,
                at.saturating_sub(m.happened_unix_ms)
            );
            assert_eq!(m.racks.len(), 2, "event {}: both racks", e.number);
        }
        // Each turn's analysis once, after its event.
        let turns: Vec<u64> = events
            .iter()
            .filter(|(_, _, e)| matches!(e.kind.as_str(), "play" | "exchange" | "pass"))
            .map(|(_, _, e)| e.number)
            .collect();
        assert!(turns.len() > 10, "{turns:?}");
        let mut analysed: Vec<u64> = Vec::new();
        for (i, (_, m)) in mine.iter().enumerate() {
            let Some(Item::Analysis(a)) = &m.item else { continue };
            let at =
                mine.iter().position(|(_, n)| matches!(&n.item, Some(Item::Event(e)) if e.number == a.event));
            assert!(at.is_some_and(|at| at < i), "the analysis of event {} after its event", a.event);
            assert_eq!(a.win_percent.len(), 2, "event {}: {a:?}", a.event);
            assert!(a.review.is_some(), "event {}: reviewed with the mover's rack", a.event);
            analysed.push(a.event);
        }
        analysed.sort();
        assert_eq!(analysed, turns, "each turn's analysis once\n{logs}");
    }
}

/// RecordResult asked of a replica that does not hold the pairing's game: the events layer ends
/// the game at its owner through the services' forwarding (the `Owners` seam: SetResult with the
/// director's own token, checked again there), then enters the result. The game and the pairing
/// say the same, and a retry changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_entered_on_another_replica_ends_the_game_at_its_owner() {
    use pb::tournaments_service_client::TournamentsServiceClient;
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::start("result-owner", 2).await;
    let (first, second) = (cluster.replicas[0].url(), cluster.replicas[1].url());
    let mut t = TournamentsServiceClient::new(channel(&first).await);
    let players = ["Ann", "Bo"].iter().map(|n| pb::TournamentPlayerSpec {
        bot_account: String::new(),
        name: n.to_string(),
        rating: 1500,
        bot: None,
        lifetime_games: None,
    });
    let request = pb::CreateTournamentRequest {
        allow_same_names: false,
        name: "Owners".into(),
        slug: "owners".into(),
        game: None,
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players: players.collect(),
            rounds: vec![pb::RoundSpec {
                method: pb::PairingMethod::RoundRobin as i32,
                ..Default::default()
            }],
            controls: None,
            result_reports: 0,
        }],
        seed: Some(5),
    };
    t.create_tournament(authed(request, DIRECTOR)).await.unwrap();
    let pair =
        pb::PairRoundRequest { slug: "owners".into(), division: "a".into(), round: 1, ..Default::default() };
    t.pair_round(authed(pair, DIRECTOR)).await.unwrap();
    let start =
        pb::StartRoundRequest { slug: "owners".into(), division: "a".into(), round: 1, ..Default::default() };
    let round = t.start_round(authed(start, DIRECTOR)).await.unwrap().into_inner().round.unwrap();
    let game_id = round.pairings[0].game_id.clone();
    // The first replica made the game, so holds it; the result is entered on the second.
    let mut t2 = TournamentsServiceClient::new(channel(&second).await);
    let record = pb::RecordResultRequest {
        slug: "owners".into(),
        division: "a".into(),
        round: 1,
        pairing: 1,
        request_id: "hand-1".into(),
        correct: false,
        result: Some(pb::record_result_request::Result::Scores(pb::FinalScores { first: 401, second: 377 })),
    };
    let answer = t2.record_result(authed(record.clone(), DIRECTOR)).await.unwrap().into_inner();
    let line = &answer.division.as_ref().unwrap().rounds[0].pairings[0];
    assert_eq!((line.done, line.scores.clone()), (true, vec![401, 377]));
    // The game, as its owner serves it, ended with the director's result.
    let mut g = GamesServiceClient::new(channel(&first).await);
    let view =
        g.get_game(pb::GetGameRequest { game_id: game_id.clone() }).await.unwrap().into_inner().view.unwrap();
    assert!(view.over, "the game is over at its owner");
    assert_eq!(view.seats.iter().map(|s| s.score).collect::<Vec<_>>(), [401, 377]);
    // A retry answers as the first time and enters nothing more.
    let again = t2.record_result(authed(record, DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(again, answer);
    let get = pb::GetTournamentRequest { slug: "owners".into() };
    let events =
        t.get_tournament(authed(get, DIRECTOR)).await.unwrap().into_inner().tournament.unwrap().events;
    let watch = pb::WatchTournamentRequest { slug: "owners".into(), from_event: 0 };
    let mut stream = t.watch_tournament(authed(watch, DIRECTOR)).await.unwrap().into_inner();
    let mut kinds = Vec::new();
    for _ in 0..events {
        kinds.push(stream.message().await.unwrap().unwrap().kind);
    }
    assert_eq!(kinds, ["created", "pairings_made", "round_started", "result"], "{}", cluster.logs());
}

/// The bots' lobby among replicas: a bot streaming on one replica is online on the other, which
/// takes a person's challenge and delivers it; the bot's replica is killed; the survivor keeps
/// the account and the challenges (the one left open expires visibly), resumes the bot's stream
/// from the number it asks, and carries the game it made to its end, rated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_goes_on_from_the_survivor_when_a_bots_replica_is_killed() {
    use pb::bots_service_client::BotsServiceClient;
    use pb::watch_bot_events_response::Kind;
    let _serial = SERIAL.lock().await;
    let mut cluster = Cluster::start("lobby", 2).await;
    let (first, second) = (cluster.replicas[0].url(), cluster.replicas[1].url());
    let mut on_first = BotsServiceClient::new(channel(&first).await);
    let mut on_second = BotsServiceClient::new(channel(&second).await);
    let accepts =
        pb::BotAccepts { casual: true, rated: true, bots: true, people: true, ..Default::default() };
    let register =
        pb::RegisterBotRequest { name: "gamma".into(), owner: "lab".into(), accepts: Some(accepts) };
    let gamma = on_first.register_bot(authed(register, DIRECTOR)).await.unwrap().into_inner().token;
    let mut events = on_first
        .watch_bot_events(authed(pb::WatchBotEventsRequest { from_event: 0 }, &gamma))
        .await
        .unwrap()
        .into_inner();
    let next = async |events: &mut tonic::Streaming<pb::WatchBotEventsResponse>| {
        tokio::time::timeout(Duration::from_secs(10), events.message())
            .await
            .expect("an event")
            .unwrap()
            .unwrap()
    };
    let challenge = |name: &str, expires_seconds: u32| pb::CreateChallengeRequest {
        bot: "gamma".into(),
        name: name.into(),
        rated: true,
        expires_seconds,
        game: Some(pb::TournamentGameSettings {
            clock: Some(pb::ClockSpec { initial_ms: 600_000, ..Default::default() }),
            ..Default::default()
        }),
        ..Default::default()
    };
    // Made on the second replica, heard on the first's stream.
    let ann =
        on_second.create_challenge(authed(challenge("Ann", 600), "ann's secret")).await.unwrap().into_inner();
    let offered = next(&mut events).await;
    assert!(matches!(&offered.kind, Some(Kind::Challenged(c)) if c.from == "Ann"), "{offered:?}");
    let accept = pb::AcceptChallengeRequest { id: ann.challenge.as_ref().unwrap().id.clone() };
    on_first.accept_challenge(authed(accept, &gamma)).await.unwrap();
    let closed = next(&mut events).await;
    let Some(Kind::GameStarted(started)) = next(&mut events).await.kind else { panic!() };
    let bob = on_second.create_challenge(authed(challenge("Bob", 5), "bob's secret")).await.unwrap();
    let bob = bob.into_inner().challenge.unwrap();
    let bob_heard = next(&mut events).await;
    assert_eq!((closed.number, bob_heard.number), (2, 4));

    // The bot's replica dies (and the game's owner with it).
    cluster.replicas[0].child.as_mut().unwrap().kill().unwrap();
    cluster.replicas[0].child.as_mut().unwrap().wait().unwrap();
    let bots = on_second.list_bots(pb::ListBotsRequest {}).await.unwrap().into_inner().bots;
    assert_eq!(bots.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(), ["gamma"]);
    let mut events = on_second
        .watch_bot_events(authed(pb::WatchBotEventsRequest { from_event: 4 }, &gamma))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(next(&mut events).await, bob_heard, "resumed from the number asked");
    // Bob's challenge expires on the survivor, visibly.
    let expired = next(&mut events).await;
    assert!(
        matches!(&expired.kind, Some(Kind::ChallengeClosed(c)) if c.id == bob.id && c.state() == pb::ChallengeState::Expired)
    );
    // Ann resigns the game on the survivor: it ends there and is rated.
    let mut g = GamesServiceClient::new(channel(&second).await);
    let resign = pb::SubmitTurnRequest {
        game_id: started.game_id.clone(),
        action: Some(pb::submit_turn_request::Action::Resign(pb::Resign {})),
        ..Default::default()
    };
    let mut resigned = g.submit_turn(authed(resign.clone(), &ann.token)).await;
    let until = Instant::now() + Duration::from_secs(10);
    while resigned.is_err() && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(200)).await;
        resigned = g.submit_turn(authed(resign.clone(), &ann.token)).await;
    }
    resigned.unwrap();
    let Some(Kind::GameEnded(ended)) = next(&mut events).await.kind else { panic!("{}", cluster.logs()) };
    assert_eq!(ended.winners, vec![started.seat]);
    assert_eq!(ended.rating.unwrap().games, 1);
}

/// A round's reviews asked on one replica are shared by both (each reviews some, every game
/// once), and a round's reviews running when a replica is killed are finished by the survivor:
/// every game reviewed, its review answered from the store by either.
#[tokio::test]
async fn review_jobs_are_shared_by_the_replicas_and_a_killed_replicas_go_to_the_survivor() {
    use crate::tournament_kill9::until_played;
    use pb::tournaments_service_client::TournamentsServiceClient;
    let _serial = SERIAL.lock().await;
    let mut cluster = Cluster::start("reviews", 2).await;
    let (first, second) = (cluster.replicas[0].url(), cluster.replicas[1].url());
    let mut t = TournamentsServiceClient::new(channel(&first).await);
    let players = ["Ash", "Birch", "Cedar", "Dogwood", "Elm", "Fir", "Gum", "Hazel"]
        .iter()
        .map(|n| pb::TournamentPlayerSpec {
            bot_account: String::new(),
            name: format!("Bot {n}"),
            rating: 1000,
            bot: Some(pb::BotLevel::Greedy as i32),
            lifetime_games: None,
        })
        .collect();
    let request = pb::CreateTournamentRequest {
        allow_same_names: false,
        name: "Reviewed".into(),
        slug: "rev".into(),
        game: Some(pb::TournamentGameSettings { bot_delay_ms: Some(0), ..Default::default() }),
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players,
            rounds: vec![
                pb::RoundSpec { method: pb::PairingMethod::RoundRobin as i32, ..Default::default() };
                2
            ],
            controls: None,
            result_reports: 0,
        }],
        seed: Some(5),
    };
    t.create_tournament(authed(request, DIRECTOR)).await.unwrap();
    let jobs = |url: String| async move {
        let mut t = TournamentsServiceClient::new(channel(&url).await);
        let request = authed(pb::WatchReviewsRequest { slug: "rev".into() }, DIRECTOR);
        t.watch_reviews(request).await.unwrap().into_inner().message().await.unwrap().unwrap()
    };
    let until = |url: String, what: &'static str, done: fn(&pb::WatchReviewsResponse) -> bool| async move {
        let started = Instant::now();
        loop {
            let now = jobs(url.clone()).await;
            if done(&now) {
                return now;
            }
            assert!(started.elapsed() < Duration::from_secs(180), "{what} never came: {now:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let mut games = Vec::new();
    for round in 1..=2u32 {
        let pair =
            pb::PairRoundRequest { slug: "rev".into(), division: "a".into(), round, ..Default::default() };
        t.pair_round(authed(pair, DIRECTOR)).await.unwrap();
        let start =
            pb::StartRoundRequest { slug: "rev".into(), division: "a".into(), round, ..Default::default() };
        t.start_round(authed(start, DIRECTOR)).await.unwrap();
        let (division, _) = until_played(&mut t, "rev", round).await;
        games.extend(division.rounds[round as usize - 1].pairings.iter().map(|p| p.game_id.clone()));
        let ask = pb::ReviewGamesRequest {
            slug: "rev".into(),
            division: "a".into(),
            round,
            ms_per_turn: 200,
            request_id: String::new(),
        };
        assert_eq!(t.review_games(authed(ask, DIRECTOR)).await.unwrap().into_inner().games, 4);
        if round == 1 {
            // Both replicas at work, each on its own jobs.
            let done = until(second.clone(), "round 1's reviews", |m| m.done == 4).await;
            assert!(done.jobs.iter().all(|j| (j.asked, j.attempts) == (1, 1)), "{done:?}");
            let made: Vec<f64> =
                cluster.replicas.iter().map(|r| r.metric("dawgref_reviews_made_total")).collect();
            assert_eq!(
                made.iter().sum::<f64>(),
                4.0,
                "each game reviewed once: {made:?}\n{}",
                cluster.logs()
            );
            assert!(made.iter().all(|&m| m > 0.0), "each replica took a share: {made:?}");
        } else {
            // The first replica dies with round 2's jobs under way: the survivor ends them all.
            until(second.clone(), "a round 2 job running", |m| {
                m.jobs.iter().any(|j| j.round == 2 && j.state() == pb::ReviewJobState::Running)
            })
            .await;
            cluster.replicas[0].child.as_mut().unwrap().kill().unwrap();
            cluster.replicas[0].child.as_mut().unwrap().wait().unwrap();
            let done = until(second.clone(), "round 2's reviews on the survivor", |m| m.done == 8).await;
            assert_eq!((done.total, done.failed), (8, 0), "{done:?}\n{}", cluster.logs());
            assert!(done.jobs.iter().all(|j| j.asked == 1), "{done:?}");
        }
    }
    let mut a = AnalysisServiceClient::new(channel(&second).await);
    for game in &games {
        let request =
            pb::AnalyzeGameRequest { game_id: game.clone(), ms_per_turn: 200, ..Default::default() };
        let mut stream = a.analyze_game(request).await.unwrap().into_inner();
        assert!(stream.message().await.unwrap().unwrap().from_store, "game {game}'s review kept");
    }
}

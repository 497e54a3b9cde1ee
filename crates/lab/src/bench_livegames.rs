//! `dawgref-lab bench livegames`: many live games on one server, as clients see it. The server
//! is the real `dawgref serve` in a process of its own (the SQLite store in a scratch directory,
//! or `--database-url`), so that its resident memory is the server's alone; `--in-process` runs
//! it in this process instead, where the bytes it holds can be counted too. `--games` games of
//! two people are created by `--clients` concurrent gRPC clients, then `--turns` rounds in which
//! every game takes one turn (the mover's best play by GenerateMoves, else an exchange of the
//! whole rack; then SubmitTurn, timed), so that no game is idle long before the rounds end.
//! Then: resident memory per game while every game is awake, the same once every game has slept
//! (`--idle-after-s`), and the time to wake `--wakes` sleeping games by a GetGame each.

use super::CliResult;
use super::bench_server::{pct, rss_of};
use clap::Args;
use dawgref::lexicon::catalog;
use dawgref::proto::v1 as pb;
use dawgref::proto::v1::analysis_service_client::AnalysisServiceClient;
use dawgref::proto::v1::games_service_client::GamesServiceClient;
use dawgref::server::{self, state::Limits};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tonic::Request;
use tonic::transport::Channel;

#[derive(Args, Debug)]
pub struct LiveGamesArgs {
    #[arg(long, default_value_t = 10_000)]
    games: usize,
    /// Turns each game takes (one per round).
    #[arg(long, default_value_t = 10)]
    turns: u32,
    /// Concurrent clients, each on its own HTTP/2 connection.
    #[arg(long, default_value_t = 64)]
    clients: usize,
    /// The server's idle span before a game sleeps, in seconds (longer than a round takes).
    #[arg(long, default_value_t = 60)]
    idle_after_s: u64,
    /// Sleeping games woken by a GetGame each, timed.
    #[arg(long, default_value_t = 1000)]
    wakes: usize,
    /// Scratch directory for the store (must not exist; removed afterwards).
    #[arg(long, default_value = "data/bench-livegames")]
    dir: std::path::PathBuf,
    /// Keep the games in PostgreSQL instead (an empty database), the server one replica of it.
    #[arg(long)]
    database_url: Option<String>,
    /// Run the server in this process (its heap is then counted as well; the clients' memory
    /// shares its pages).
    #[arg(long)]
    in_process: bool,
    /// The server binary (default: `dawgref` beside this one).
    #[arg(long)]
    server: Option<std::path::PathBuf>,
}

/// A game as its two players know it, in a few fixed bytes: with `--in-process` the clients share
/// the process with the server, and a string per id and token would scatter small blocks of the
/// clients' among the server's pages, to be counted as the server's memory.
#[derive(Clone, Copy)]
struct Game {
    id: uuid::Uuid,
    tokens: [[u8; 32]; 2],
}

impl Game {
    fn id(&self) -> String {
        self.id.to_string()
    }

    /// A seat's token (32 hex characters).
    fn token(&self, seat: usize) -> &str {
        std::str::from_utf8(&self.tokens[seat]).unwrap_or_default()
    }
}

/// A token as the fixed bytes [`Game`] keeps.
fn token_bytes(token: &str) -> Result<[u8; 32], Failure> {
    token.as_bytes().try_into().map_err(|_| format!("a seat token of {} bytes", token.len()).into())
}

fn authed<T>(msg: T, token: &str) -> Result<Request<T>, Box<dyn std::error::Error + Send + Sync>> {
    let mut r = Request::new(msg);
    r.metadata_mut().insert("authorization", format!("Bearer {token}").parse()?);
    Ok(r)
}

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// One turn of `game`: the mover's best play (the whole rack exchanged when there is none),
/// timed SubmitTurn; and whether the game is over after it.
async fn one_turn(
    g: &mut GamesServiceClient<Channel>,
    a: &mut AnalysisServiceClient<Channel>,
    game: &Game,
    turn: u32,
) -> Result<(Duration, bool), Failure> {
    let token = game.token((turn % 2) as usize);
    let req = pb::GenerateMovesRequest {
        position: Some(pb::Position {
            source: Some(pb::position::Source::GameId(game.id())),
            lexicon: String::new(),
        }),
        limit: 1,
        ..Default::default()
    };
    let best = a.generate_moves(authed(req, token)?).await?.into_inner().message().await?;
    let action = match best.and_then(|m| m.play) {
        Some(play) => pb::submit_turn_request::Action::Play(play),
        // No word on this rack (seven vowels, say): the whole rack goes back, or passing would
        // keep it and end the game after six scoreless turns.
        None => {
            let view = g
                .get_game(authed(pb::GetGameRequest { game_id: game.id() }, token)?)
                .await?
                .into_inner()
                .view
                .unwrap();
            pb::submit_turn_request::Action::Exchange(view.my_rack)
        }
    };
    let req = pb::SubmitTurnRequest {
        game_id: game.id(),
        expected_turn: Some(turn),
        request_id: String::new(),
        action: Some(action),
    };
    let started = Instant::now();
    let done = g.submit_turn(authed(req, token)?).await?.into_inner();
    Ok((started.elapsed(), done.view.is_some_and(|v| v.over)))
}

/// Run `work` for every item of `items`, split over `clients` tasks each with its own
/// connection; the durations the work returns, and the wall time.
async fn over_clients<T, F, Fut>(
    url: &str,
    clients: usize,
    items: Arc<Vec<T>>,
    bar: &dawgref::console::ProgressBar,
    work: F,
) -> Result<(Vec<Duration>, Duration), Failure>
where
    T: Send + Sync + 'static,
    F: Fn(GamesServiceClient<Channel>, AnalysisServiceClient<Channel>, Arc<Vec<T>>, usize) -> Fut
        + Send
        + Sync
        + Copy
        + 'static,
    Fut: std::future::Future<
            Output = Result<
                (GamesServiceClient<Channel>, AnalysisServiceClient<Channel>, Option<Duration>),
                Failure,
            >,
        > + Send,
{
    let started = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..clients {
        let channel = tonic::transport::Endpoint::from_shared(url.to_string())?.connect().await?;
        let (items, bar) = (items.clone(), bar.clone());
        tasks.push(tokio::spawn(async move {
            let (mut g, mut a) =
                (GamesServiceClient::new(channel.clone()), AnalysisServiceClient::new(channel));
            let mut times = Vec::new();
            for i in (c..items.len()).step_by(clients) {
                let (g2, a2, t) = work(g, a, items.clone(), i).await?;
                (g, a) = (g2, a2);
                times.extend(t);
                bar.inc(1);
            }
            Ok::<_, Failure>(times)
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await??);
    }
    all.sort();
    Ok((all, started.elapsed()))
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// A game and whether it has ended in the rounds (gone out, or six scoreless turns), or waits
/// for its last play to be accepted: either way it takes no more turns, nor is it woken.
struct Tracked {
    game: Game,
    over: std::sync::atomic::AtomicBool,
}

/// The server under test.
enum Server {
    /// `dawgref serve`, a process of its own: all its memory is the server's.
    Child { child: Box<tokio::process::Child>, pid: u32, metrics: std::net::SocketAddr },
    /// In this process, beside the clients.
    InProcess { handle: server::Handle },
}

/// A loopback port nobody listens on now.
fn free_port() -> Result<u16, Failure> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

impl Server {
    /// The real binary on loopback ports, its log in the scratch directory, once it answers.
    async fn spawn(args: &LiveGamesArgs) -> Result<(Server, String), Failure> {
        let binary = match &args.server {
            Some(path) => path.clone(),
            None => std::env::current_exe()?.with_file_name("dawgref"),
        };
        if !binary.exists() {
            return Err(format!(
                "no server binary at {} (cargo build --release, or --server)",
                binary.display()
            )
            .into());
        }
        let (port, metrics) = (free_port()?, free_port()?);
        let listen = format!("127.0.0.1:{port}");
        let log = std::fs::File::create(args.dir.join("serve.log"))?;
        let mut command = tokio::process::Command::new(&binary);
        command
            .arg("serve")
            .args([
                "--listen",
                &listen,
                "--lexicons",
                "en",
                "--metrics-listen",
                &format!("127.0.0.1:{metrics}"),
            ])
            .arg("--data-dir")
            .arg(&args.dir)
            .args(["--max-games", &(args.games.max(1) * 2).to_string()])
            .args(["--idle-after", &format!("{}s", args.idle_after_s)])
            // One client creates every game here: no pace per client.
            .args(["--games-per-minute", "0"])
            .env("RUST_LOG", "warn")
            .stdout(log.try_clone()?)
            .stderr(log)
            .kill_on_drop(true);
        if let Some(url) = &args.database_url {
            command.env("DAWGREF_DATABASE_URL", url).args(["--advertise-addr", &listen]);
        }
        let child = command.spawn()?;
        let pid = child.id().ok_or("the server exited at once")?;
        let server = Server::Child { child: Box::new(child), pid, metrics: ([127, 0, 0, 1], metrics).into() };
        let started = Instant::now();
        while server.gauges().await.is_err() || tokio::net::TcpStream::connect(&listen).await.is_err() {
            if started.elapsed() > Duration::from_secs(300) {
                return Err(format!(
                    "the server did not answer within 5 minutes: see {}",
                    args.dir.join("serve.log").display()
                )
                .into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Ok((server, format!("http://{listen}")))
    }

    /// Games awake and games asleep.
    async fn gauges(&self) -> Result<(usize, usize), Failure> {
        match self {
            Server::InProcess { handle } => Ok((handle.host().census().live, handle.host().census().asleep)),
            Server::Child { metrics, .. } => {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let mut conn = tokio::net::TcpStream::connect(metrics).await?;
                conn.write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                    .await?;
                let mut text = String::new();
                conn.read_to_string(&mut text).await?;
                let gauge = |name: &str| {
                    text.lines()
                        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse::<usize>().ok())
                        .ok_or_else(|| format!("no {name} in the server's metrics"))
                };
                Ok((gauge("dawgref_games_live")?, gauge("dawgref_games_asleep")?))
            }
        }
    }

    /// The server's process as `/proc` names it.
    fn proc(&self) -> String {
        match self {
            Server::InProcess { .. } => "self".into(),
            Server::Child { pid, .. } => pid.to_string(),
        }
    }

    /// The server's resident memory by kind (`RssAnon`, `RssFile`, `RssShmem`), in MiB.
    fn kinds(&self) -> String {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.proc())).unwrap_or_default();
        let kb = |key: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(key)?.trim().strip_suffix("kB")?.trim().parse::<u64>().ok())
        };
        match (kb("RssAnon:"), kb("RssFile:"), kb("RssShmem:")) {
            (Some(a), Some(f), Some(s)) => {
                format!(
                    "anonymous {:.1}, file {:.1}, shared {:.1} MiB",
                    a as f64 / 1024.0,
                    f as f64 / 1024.0,
                    s as f64 / 1024.0
                )
            }
            _ => "no breakdown".into(),
        }
    }

    /// The server's resident memory, in bytes.
    fn rss(&self) -> u64 {
        rss_of(&self.proc())
    }

    /// Bytes the program holds, when the server is in this process (with its clients).
    fn heap(&self) -> Option<usize> {
        matches!(self, Server::InProcess { .. }).then(crate::heap_bytes)
    }

    async fn stop(self) {
        match self {
            Server::InProcess { handle } => {
                handle.shutdown();
                handle.drain(Duration::from_secs(10)).await;
            }
            Server::Child { mut child, .. } => {
                let _ = child.start_kill();
                let _ = child.wait().await;
            }
        }
    }
}

/// The server in this process, with the product's allocator (this binary's, counted).
async fn in_process(args: &LiveGamesArgs) -> Result<(Server, String), Failure> {
    let en = catalog::load_shipped_cached(catalog::shipped("en").ok_or("no shipped en")?, None)?;
    let limits = Limits {
        max_games: args.games.max(1) * 2,
        idle_after: Some(Duration::from_secs(args.idle_after_s)),
        // One client creates every game here.
        create_rate: None,
        ..Limits::default()
    };
    let builder = server::Builder::new(vec![en]).limits(limits);
    let (handle, _) = match &args.database_url {
        Some(url) => {
            let me = dawgref::store::postgres::Replica {
                id: uuid::Uuid::new_v4(),
                addr: "127.0.0.1:1".into(),
                lease: Duration::from_secs(10),
            };
            builder.replica(Arc::new(dawgref::store::PgStore::open(url, me).await?)).start().await?
        }
        None => builder.store(Arc::new(dawgref::store::SqliteStore::open(&args.dir)?)).start().await?,
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    handle.spawn(listener);
    Ok((Server::InProcess { handle }, url))
}

pub fn run(args: LiveGamesArgs) -> CliResult {
    if args.dir.exists() {
        return Err(format!("{} exists: give a directory that does not", args.dir.display()).into());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_park(dawgref::memory::collect_when_idle)
        .build()?;
    let mut keep_dir = false;
    let result = runtime.block_on(async {
        std::fs::create_dir_all(&args.dir)?;
        let (server, url) =
            if args.in_process { in_process(&args).await? } else { Server::spawn(&args).await? };
        let outcome = measure(&args, &server, &url).await;
        if outcome.is_err() && !args.in_process {
            keep_dir = true;
        }
        server.stop().await;
        outcome
    });
    if keep_dir {
        eprintln!("the server's log is in {}", args.dir.join("serve.log").display());
    } else {
        let _ = std::fs::remove_dir_all(&args.dir);
    }
    result.map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

/// Create, play, let sleep and wake the games on `server`, printing what is measured.
async fn measure(args: &LiveGamesArgs, server: &Server, url: &str) -> Result<(), Failure> {
    let start = Baseline::of(server);
    println!(
        "{} games, {} turns each, {} clients, {}; {}, RSS at start {:.1} MiB",
        args.games,
        args.turns,
        args.clients,
        if args.database_url.is_some() { "PostgreSQL" } else { "SQLite" },
        if args.in_process {
            "the server and its clients in one process (mimalloc)"
        } else {
            "the server a process of its own (dawgref serve)"
        },
        mib(start.rss)
    );
    println!("at start: {}", server.kinds());

    let games = create_games(args, server, url, &start).await?;
    let awake = play_rounds(args, server, url, &games, &start).await?;
    wait_until_asleep(args, server, awake, &games, &start).await?;
    wake_games(args, url, &games).await
}

/// The server's memory when the games start, that each phase reports what it added to.
struct Baseline {
    rss: u64,
    heap: usize,
}

impl Baseline {
    fn of(server: &Server) -> Baseline {
        Baseline { rss: server.rss(), heap: server.heap().unwrap_or(0) }
    }

    /// Resident bytes above the start a game; the same for the heap, when it is counted.
    fn memory(&self, server: &Server, n: usize) -> String {
        let rss = server.rss();
        let resident = rss.saturating_sub(self.rss) as f64 / 1024.0 / n as f64;
        let heap = server
            .heap()
            .map(|h| format!(", heap {:.2} KB", h.saturating_sub(self.heap) as f64 / 1024.0 / n as f64))
            .unwrap_or_default();
        format!(
            "RSS {:.1} MiB ({}): {resident:.2} KB a game above the start ({:.2} KB with it){heap}",
            mib(rss),
            server.kinds(),
            rss as f64 / 1024.0 / n as f64
        )
    }
}

/// Create the games, two human seats each, over the clients.
async fn create_games(
    args: &LiveGamesArgs,
    server: &Server,
    url: &str,
    start: &Baseline,
) -> Result<Arc<Vec<Tracked>>, Failure> {
    let bar = dawgref::console::progress_bar(args.games as u64, "games");
    bar.set_message("creating");
    let slots: Arc<Vec<std::sync::Mutex<Option<Game>>>> =
        Arc::new((0..args.games).map(|_| std::sync::Mutex::new(None)).collect());
    let (_, created) =
        over_clients(url, args.clients, slots.clone(), &bar, |mut g, a, slots, i| async move {
            let human = |name: &str| pb::SeatSpec {
                kind: Some(pb::seat_spec::Kind::Human(pb::HumanSeat { name: name.into(), open: false })),
                think_ms: None,
            };
            let c = g
                .create_game(pb::CreateGameRequest {
                    ruleset: pb::Ruleset::English as i32,
                    seats: vec![human("a"), human("b")],
                    seed: Some(i as u64 + 1),
                    ..Default::default()
                })
                .await?
                .into_inner();
            let tokens = [token_bytes(&c.seat_tokens[0])?, token_bytes(&c.seat_tokens[1])?];
            let id = c.game_id.parse::<uuid::Uuid>()?;
            *slots[i].lock().map_err(|_| "poisoned")? = Some(Game { id, tokens });
            Ok((g, a, None))
        })
        .await?;
    bar.finish_and_clear();
    let games: Arc<Vec<Tracked>> = Arc::new(
        slots
            .iter()
            .map(|s| s.lock().ok().and_then(|g| *g).map(|game| Tracked { game, over: false.into() }))
            .collect::<Option<Vec<_>>>()
            .ok_or("a game was not created")?,
    );
    drop(slots);
    println!(
        "created {} games in {:.1} s: {:.0} games/s; {}",
        games.len(),
        created.as_secs_f64(),
        games.len() as f64 / created.as_secs_f64(),
        start.memory(server, games.len())
    );
    Ok(games)
}

/// Play: one turn of every game a round. The games awake after the rounds.
async fn play_rounds(
    args: &LiveGamesArgs,
    server: &Server,
    url: &str,
    games: &Arc<Vec<Tracked>>,
    start: &Baseline,
) -> Result<usize, Failure> {
    let mut submits = Vec::new();
    let bar = dawgref::console::progress_bar(games.len() as u64 * u64::from(args.turns), "turns");
    let played = Instant::now();
    for turn in 0..args.turns {
        bar.set_message(format!("round {} of {}", turn + 1, args.turns));
        let (times, _) =
            over_clients(url, args.clients, games.clone(), &bar, move |mut g, mut a, games, i| async move {
                let t = &games[i];
                if t.over.load(std::sync::atomic::Ordering::Relaxed) {
                    return Ok((g, a, None));
                }
                match one_turn(&mut g, &mut a, &t.game, turn).await {
                    Ok((time, over)) => {
                        t.over.store(over, std::sync::atomic::Ordering::Relaxed);
                        Ok((g, a, Some(time)))
                    }
                    // The game went out in this round (under a challenge rule, its last play waits
                    // for a pass or a challenge): it takes no more turns here.
                    Err(e)
                        if e.downcast_ref::<tonic::Status>().is_some_and(|s| {
                            matches!(s.code(), tonic::Code::FailedPrecondition | tonic::Code::Aborted)
                        }) =>
                    {
                        t.over.store(true, std::sync::atomic::Ordering::Relaxed);
                        Ok((g, a, None))
                    }
                    Err(e) => Err(format!("game {} ({}), turn {turn}: {e}", i, t.game.id).into()),
                }
            })
            .await?;
        submits.extend(times);
    }
    bar.finish_and_clear();
    submits.sort();
    let (p50, p99) = (pct(&submits, 0.5), pct(&submits, 0.99));
    let turns = submits.len();
    drop(submits);
    let (awake, _) = server.gauges().await?;
    println!(
        "played {turns} turns in {:.1} s: SubmitTurn p50 {:.2} ms, p99 {:.2} ms; {awake} games awake, {}",
        played.elapsed().as_secs_f64(),
        p50 / 1000.0,
        p99 / 1000.0,
        start.memory(server, games.len())
    );
    Ok(awake)
}

/// Sleep: wait for every game to go.
async fn wait_until_asleep(
    args: &LiveGamesArgs,
    server: &Server,
    awake: usize,
    games: &[Tracked],
    start: &Baseline,
) -> Result<(), Failure> {
    let bar = dawgref::console::progress_bar(awake as u64, "games asleep");
    let waited = Instant::now();
    loop {
        let (_, asleep) = server.gauges().await?;
        bar.set_position(asleep as u64);
        if asleep >= awake {
            break;
        }
        if waited.elapsed() > Duration::from_secs(args.idle_after_s * 3 + 60) {
            return Err(format!("only {asleep} of {awake} games slept").into());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    bar.finish_and_clear();
    // The allocator hands freed pages back after a short delay.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (live, _) = server.gauges().await?;
    println!("every game asleep ({live} awake): {}", start.memory(server, games.len()));

    Ok(())
}

/// Wake: a GetGame each, timed. Games that ended in the rounds are not asleep: only the
/// others are woken.
async fn wake_games(args: &LiveGamesArgs, url: &str, games: &[Tracked]) -> Result<(), Failure> {
    let sample: Arc<Vec<Game>> = Arc::new(
        games
            .iter()
            .filter(|t| !t.over.load(std::sync::atomic::Ordering::Relaxed))
            .take(args.wakes)
            .map(|t| t.game)
            .collect(),
    );
    let ended = games.iter().filter(|t| t.over.load(std::sync::atomic::Ordering::Relaxed)).count();
    let bar = dawgref::console::progress_bar(sample.len() as u64, "wakes");
    let (wakes, _) =
        over_clients(url, args.clients.min(16), sample.clone(), &bar, |mut g, a, sample, i| async move {
            let started = Instant::now();
            g.get_game(authed(pb::GetGameRequest { game_id: sample[i].id() }, sample[i].token(0))?).await?;
            Ok((g, a, Some(started.elapsed())))
        })
        .await?;
    bar.finish_and_clear();
    println!(
        "woke {} games ({} turns each; {ended} games had ended) by GetGame: p50 {:.2} ms, p99 {:.2} ms",
        wakes.len(),
        args.turns,
        pct(&wakes, 0.5) / 1000.0,
        pct(&wakes, 0.99) / 1000.0
    );
    Ok(())
}

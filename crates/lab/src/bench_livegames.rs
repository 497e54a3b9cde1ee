//! `dawgref-lab bench livegames`: many live games on one server, as clients see it. An
//! in-process server (the SQLite store in a scratch directory, the allocator the product uses);
//! `--games` games of two people created by `--clients` concurrent gRPC clients, then
//! `--turns` rounds in which every game takes one turn (the mover's best play by GenerateMoves,
//! else an exchange of the whole rack; then SubmitTurn, timed), so that no game is idle long
//! before the rounds end. Then: resident memory and heap (bytes the program holds, apart from
//! what the allocator keeps) per game while every game is awake, the same once every game has
//! slept (`--idle-after-s`), and the time to wake `--wakes` sleeping games by a GetGame each.

use super::CliResult;
use super::bench_server::{pct, rss_bytes};
use clap::Args;
use dawgref::lexicon::catalog;
use dawgref::proto::v1 as pb;
use dawgref::proto::v1::analysis_client::AnalysisClient;
use dawgref::proto::v1::games_client::GamesClient;
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
}

/// A game as its two players know it, in a few fixed bytes: the clients share this process
/// with the server, and a string per id and token would scatter small blocks of the clients'
/// among the server's pages, to be counted as the server's memory.
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

/// One turn of `game`: the mover's best play (a pass when there is none), timed SubmitTurn.
async fn one_turn(
    g: &mut GamesClient<Channel>,
    a: &mut AnalysisClient<Channel>,
    game: &Game,
    turn: u32,
) -> Result<Duration, Failure> {
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
            let view =
                g.get_game(authed(pb::GetGameRequest { game_id: game.id() }, token)?).await?.into_inner();
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
    g.submit_turn(authed(req, token)?).await?;
    Ok(started.elapsed())
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
    F: Fn(GamesClient<Channel>, AnalysisClient<Channel>, Arc<Vec<T>>, usize) -> Fut
        + Send
        + Sync
        + Copy
        + 'static,
    Fut: std::future::Future<
            Output = Result<(GamesClient<Channel>, AnalysisClient<Channel>, Option<Duration>), Failure>,
        > + Send,
{
    let started = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..clients {
        let channel = tonic::transport::Endpoint::from_shared(url.to_string())?.connect().await?;
        let (items, bar) = (items.clone(), bar.clone());
        tasks.push(tokio::spawn(async move {
            let (mut g, mut a) = (GamesClient::new(channel.clone()), AnalysisClient::new(channel));
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

pub fn run(args: LiveGamesArgs) -> CliResult {
    if args.dir.exists() {
        return Err(format!("{} exists: give a directory that does not", args.dir.display()).into());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_park(dawgref::memory::collect_when_idle)
        .build()?;
    let result = runtime.block_on(async {
        let en = catalog::load_shipped_cached(catalog::shipped("en").ok_or("no shipped en")?, None)?;
        std::fs::create_dir_all(&args.dir)?;
        let limits = Limits {
            max_games: args.games.max(1) * 2,
            idle_after: Some(Duration::from_secs(args.idle_after_s)),
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
        let host = handle.state.host.clone();
        let rss_start = rss_bytes();
        let heap_start = crate::heap_bytes();
        let per_game = |now: usize, n: usize| now.saturating_sub(heap_start) as f64 / 1024.0 / n as f64;
        println!(
            "{} games, {} turns each, {} clients, {}; the server and its clients in one process (mimalloc), RSS at start {:.1} MiB",
            args.games,
            args.turns,
            args.clients,
            if args.database_url.is_some() { "PostgreSQL" } else { "SQLite" },
            mib(rss_start)
        );

        // Create.
        let bar = dawgref::console::progress_bar(args.games as u64, "games");
        bar.set_message("creating");
        let slots: Arc<Vec<std::sync::Mutex<Option<Game>>>> =
            Arc::new((0..args.games).map(|_| std::sync::Mutex::new(None)).collect());
        let (_, created) = over_clients(&url, args.clients, slots.clone(), &bar, |mut g, a, slots, i| async move {
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
        let games: Arc<Vec<Game>> =
            Arc::new(slots.iter().map(|s| s.lock().ok().and_then(|g| *g)).collect::<Option<Vec<_>>>().ok_or("a game was not created")?);
        drop(slots);
        println!(
            "created {} games in {:.1} s: {:.0} games/s; RSS {:.1} MiB ({:.1} KB a game), heap {:.1} KB a game",
            games.len(),
            created.as_secs_f64(),
            games.len() as f64 / created.as_secs_f64(),
            mib(rss_bytes()),
            (rss_bytes().saturating_sub(rss_start)) as f64 / 1024.0 / games.len() as f64,
            per_game(crate::heap_bytes(), games.len())
        );

        // Play: one turn of every game a round.
        let mut submits = Vec::new();
        let bar = dawgref::console::progress_bar(games.len() as u64 * u64::from(args.turns), "turns");
        let played = Instant::now();
        for turn in 0..args.turns {
            bar.set_message(format!("round {} of {}", turn + 1, args.turns));
            let (times, _) = over_clients(&url, args.clients, games.clone(), &bar, move |mut g, mut a, games, i| async move {
                match one_turn(&mut g, &mut a, &games[i], turn).await {
                    Ok(t) => Ok((g, a, Some(t))),
                    // The game went out in this or an earlier round: it takes no more turns here.
                    Err(e) if e.downcast_ref::<tonic::Status>().is_some_and(|s| {
                        matches!(s.code(), tonic::Code::FailedPrecondition | tonic::Code::Aborted)
                    }) => {
                        Ok((g, a, None))
                    }
                    Err(e) => Err(format!("game {} ({}), turn {turn}: {e}", i, games[i].id).into()),
                }
            })
            .await?;
            submits.extend(times);
        }
        bar.finish_and_clear();
        submits.sort();
        let rss_awake = rss_bytes();
        println!(
            "played {} turns in {:.1} s: SubmitTurn p50 {:.2} ms, p99 {:.2} ms; {} games awake, RSS {:.1} MiB: {:.1} KB an awake game, heap {:.1} KB",
            submits.len(),
            played.elapsed().as_secs_f64(),
            pct(&submits, 0.5) / 1000.0,
            pct(&submits, 0.99) / 1000.0,
            host.live_games(),
            mib(rss_awake),
            rss_awake.saturating_sub(rss_start) as f64 / 1024.0 / games.len() as f64,
            per_game(crate::heap_bytes(), games.len())
        );

        // Sleep: wait for every game to go.
        let bar = dawgref::console::progress_bar(games.len() as u64, "games asleep");
        let waited = Instant::now();
        let in_play = host.live_games();
        while host.asleep_games() < in_play {
            bar.set_position(host.asleep_games() as u64);
            if waited.elapsed() > Duration::from_secs(args.idle_after_s * 3 + 60) {
                return Err(format!("only {} of {in_play} games slept", host.asleep_games()).into());
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        bar.finish_and_clear();
        // The allocator hands freed pages back after a short delay.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let rss_asleep = rss_bytes();
        println!(
            "every game asleep ({} live): RSS {:.1} MiB: {:.2} KB a sleeping game, heap {:.2} KB",
            host.live_games(),
            mib(rss_asleep),
            rss_asleep.saturating_sub(rss_start) as f64 / 1024.0 / games.len() as f64,
            per_game(crate::heap_bytes(), games.len())
        );

        // Wake: a GetGame each, timed.
        // Games that ended in the rounds (went out) are not asleep: only sleeping ones are woken.
        let ended = games.len() - host.asleep_games();
        let sample: Arc<Vec<Game>> = Arc::new(
            games.iter().filter(|g| host.is_asleep(&g.id)).take(args.wakes).copied().collect(),
        );
        let bar = dawgref::console::progress_bar(sample.len() as u64, "wakes");
        let (wakes, _) = over_clients(&url, args.clients.min(16), sample.clone(), &bar, |mut g, a, sample, i| async move {
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
        handle.shutdown();
        handle.drain(Duration::from_secs(10)).await;
        Ok::<_, Failure>(())
    });
    let _ = std::fs::remove_dir_all(&args.dir);
    result.map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

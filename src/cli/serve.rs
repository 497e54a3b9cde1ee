//! `dawgref serve`: the gRPC referee server on its embedded defaults.

use super::CliResult;
use clap::Args;
use dawgref::host::CreateRate;
use dawgref::lexicon::Lexicon;
use dawgref::server::tls::{Tls, TlsFiles};
use dawgref::server::{self, ServerConfig, state::Limits};
use dawgref::store::postgres::Replica;
use dawgref::store::{MemoryStore, PgStore, SqliteStore};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "DAWGREF_LISTEN", default_value = "127.0.0.1:50051")]
    listen: SocketAddr,
    /// Serve TLS only, with this certificate chain (PEM, the server's own first), read again on
    /// SIGHUP and when the file changes. Needs --tls-key.
    #[arg(long, env = "DAWGREF_TLS_CERT", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM), read again with the certificate.
    #[arg(long, env = "DAWGREF_TLS_KEY", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Mutual TLS: only clients showing a certificate signed by a CA in this file (PEM) connect.
    #[arg(long, env = "DAWGREF_TLS_CLIENT_CA", requires = "tls_cert")]
    tls_client_ca: Option<PathBuf>,
    /// With --database-url and TLS: the CAs (PEM) the other replicas' certificates are checked
    /// against when forwarding to them (default: --tls-client-ca).
    #[arg(long, env = "DAWGREF_TLS_PEER_CA", requires = "tls_cert")]
    tls_peer_ca: Option<PathBuf>,
    /// With --database-url and TLS: the name every replica's certificate carries, checked when
    /// forwarding (default: the host of the address a replica advertises; a certificate cannot
    /// name every pod's IP, so Kubernetes deployments give their peers' Service name).
    #[arg(long, env = "DAWGREF_TLS_PEER_NAME", requires = "tls_cert")]
    tls_peer_name: Option<String>,
    /// Serve plaintext on an address other than loopback: for a deployment behind a balancer
    /// that terminates TLS. Without TLS and without this flag, only loopback is served.
    #[arg(long, env = "DAWGREF_PLAINTEXT", conflicts_with = "tls_cert")]
    plaintext: bool,
    /// Shipped lexicons to load.
    #[arg(long, env = "DAWGREF_LEXICONS", default_value = "en,ru,erudit", value_delimiter = ',')]
    lexicons: Vec<String>,
    /// A ruleset file to add (repeatable): a `.ruleset` file (docs/rulesets.md), or a MAGPIE or
    /// macondo letter distribution (`.csv`, on the standard board, named after the file).
    #[arg(long = "ruleset", value_name = "FILE")]
    rulesets: Vec<PathBuf>,
    /// A word list to compile in a ruleset's alphabet (repeatable): NAME=RULESET:FILE. Words
    /// are split into tiles by the longest label that fits; every word that cannot be is
    /// reported (and listed in NAME.skipped.txt in the lexicon cache).
    #[arg(long = "word-list", value_name = "NAME=RULESET:FILE")]
    word_lists: Vec<server::wordlists::WordListSpec>,
    /// Where games are kept (an SQLite database, `games.sqlite3`); `:memory:` keeps them only
    /// while the process lives.
    #[arg(long, env = "DAWGREF_DATA_DIR", default_value = "data")]
    data_dir: PathBuf,
    /// Keep games in PostgreSQL instead (`postgres://user@host:port/db`), shared by every
    /// replica given the same URL: each live game is owned by one replica, and any replica
    /// answers for any game. The schema is created and migrated at start.
    #[arg(long, env = "DAWGREF_DATABASE_URL", hide_env_values = true)]
    database_url: Option<Secret>,
    /// With --database-url: the address other replicas reach this one at (host:port).
    /// Default: the listen address, unless that is unspecified (0.0.0.0).
    #[arg(long, env = "DAWGREF_ADVERTISE_ADDR")]
    advertise_addr: Option<String>,
    /// With --database-url: how long after this replica's last heartbeat another replica may
    /// take its games over, in milliseconds (the heartbeat runs every quarter of it).
    #[arg(long, env = "DAWGREF_LEASE_MS", default_value_t = 3000, value_parser = clap::value_parser!(u64).range(200..=60_000))]
    lease_ms: u64,
    /// Cache of compiled lexicons ("" to compile at every start; default: `lexicons` in the data
    /// directory, none with `:memory:`).
    // Read as an OsString: clap's path parser refuses the empty value this option documents.
    #[arg(long, env = "DAWGREF_LEXICON_CACHE", value_parser = clap::value_parser!(std::ffi::OsString))]
    lexicon_cache: Option<std::ffi::OsString>,
    /// Live games held at most.
    #[arg(long, env = "DAWGREF_MAX_GAMES", default_value_t = 100_000)]
    max_games: usize,
    /// A live game left alone this long (no request, no watcher, no bot to move, no flag due
    /// within the span) sleeps: it leaves memory and is woken from the store by its next request,
    /// or when its next flag is due. A number with a unit (`90s`, `10m`, `2h`), or `never`.
    #[arg(long, env = "DAWGREF_IDLE_AFTER", default_value = "5m", value_parser = idle_after)]
    idle_after: IdleAfter,
    /// WatchGame streams per game at most.
    #[arg(long, env = "DAWGREF_STREAMS_PER_GAME", default_value_t = 64)]
    streams_per_game: usize,
    /// Largest request message, in bytes.
    #[arg(long, env = "DAWGREF_MAX_MESSAGE_BYTES", default_value_t = 256 * 1024)]
    max_message_bytes: usize,
    /// Analysis searches (InferRack, Simulate, SolveEndgame, SolvePreEndgame, AnalyzeGame) one
    /// client (a token, else a peer address) holds at once, waiting or running; one more is
    /// RESOURCE_EXHAUSTED with a retry hint.
    #[arg(long, env = "DAWGREF_SEARCHES_PER_CLIENT", default_value_t = dawgref::host::Limits::default().searches_per_client as u64, value_parser = clap::value_parser!(u64).range(1..=1000))]
    searches_per_client: u64,
    /// Games (CreateGame, ImportGcg) one client may create at once; then --games-per-minute.
    #[arg(long, env = "DAWGREF_GAMES_BURST", default_value_t = CreateRate::default().burst, value_parser = clap::value_parser!(u32).range(1..))]
    games_burst: u32,
    /// Games one client may create a minute after its burst (0: no limit at all); more are
    /// RESOURCE_EXHAUSTED with a retry hint.
    #[arg(long, env = "DAWGREF_GAMES_PER_MINUTE", default_value_t = CreateRate::default().per_minute)]
    games_per_minute: u32,
    /// The niceness of the live games' bots' threads, 0 (the process's own) to 19 (the lowest):
    /// higher keeps requests quicker while bots keep every core busy, lower keeps a bot's move
    /// within its budget while other programs load the machine. Analysis always thinks at 19.
    #[arg(long, env = "DAWGREF_BOT_NICE", default_value_t = dawgref::host::BOT_NICE, value_parser = clap::value_parser!(i32).range(0..=19))]
    bot_nice: i32,
    /// Games against other bots a registered bot may begin in a UTC day (the lobby's limit).
    #[arg(long, env = "DAWGREF_BOT_GAMES_PER_DAY", default_value_t = dawgref_events::LobbyLimits::default().bot_games_per_day)]
    bot_games_per_day: u32,
    /// Challenges a registered bot may send in a minute: a minute's worth at once, then at this
    /// pace (the lobby's limit).
    #[arg(long, env = "DAWGREF_BOT_CHALLENGES_PER_MINUTE", default_value_t = dawgref_events::LobbyLimits::default().challenges_per_minute)]
    bot_challenges_per_minute: u32,
    /// Requests in flight at most; more are shed with UNAVAILABLE.
    #[arg(long, env = "DAWGREF_CONCURRENCY", default_value_t = 1024)]
    concurrency: usize,
    /// Serve Prometheus metrics on this address (GET /metrics); off when unset.
    #[arg(long, env = "DAWGREF_METRICS_LISTEN")]
    metrics_listen: Option<SocketAddr>,
    /// The tournament director's secret: ListGames, the Directors service and the web client's /director page need it
    /// as their bearer token. Unset: no director (ListGames is FAILED_PRECONDITION). Prefer the
    /// environment variable: a command line is visible to every user of the machine.
    #[arg(long, env = "DAWGREF_DIRECTOR_TOKEN", hide_env_values = true)]
    director_token: Option<Secret>,
    /// Log as JSON lines (the filter is RUST_LOG, default info).
    #[arg(long, env = "DAWGREF_LOG_JSON")]
    log_json: bool,
    /// Export traces over OTLP/gRPC to this collector (`http://collector:4317`): a span for each
    /// call (continuing the client's `traceparent`), the game's command, the store commit, the
    /// bot's decision and each forward to another replica. Off when not given.
    #[arg(long, env = "DAWGREF_OTLP_ENDPOINT")]
    otlp_endpoint: Option<String>,
    /// With --otlp-endpoint: the share of calls traced when the client sends no `traceparent`
    /// (0 to 1; one call in 1/ratio). A client's `traceparent` always decides for its call: its
    /// sampled flag set, the call is traced.
    #[arg(long, env = "DAWGREF_OTLP_SAMPLE_RATIO", default_value_t = 0.01)]
    otlp_sample_ratio: f64,
}

/// How long a game may be idle before it sleeps (None: never).
#[derive(Clone, Copy, Debug)]
struct IdleAfter(Option<std::time::Duration>);

/// `--idle-after`: `never`, or a whole number with a unit (`ms`, `s`, `m`, `h`), from 100 ms to
/// a week.
fn idle_after(text: &str) -> Result<IdleAfter, String> {
    if text == "never" {
        return Ok(IdleAfter(None));
    }
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("{text:?}: give a whole number and a unit (90s, 10m, 2h) or never"))?;
    let ms = match unit {
        "ms" => Some(n),
        "s" => n.checked_mul(1000),
        "m" => n.checked_mul(60_000),
        "h" => n.checked_mul(3_600_000),
        _ => return Err(format!("{text:?}: the unit is one of ms, s, m, h (90s, 10m, 2h), or say never")),
    };
    match ms {
        Some(ms) if (100..=7 * 24 * 3_600_000).contains(&ms) => {
            Ok(IdleAfter(Some(std::time::Duration::from_millis(ms))))
        }
        _ => Err(format!("{text:?}: from 100ms to 168h")),
    }
}

/// A secret from the command line or environment: its `Debug` never shows it.
#[derive(Clone)]
struct Secret(String);

impl std::str::FromStr for Secret {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Secret, Self::Err> {
        Ok(Secret(s.to_string()))
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

pub fn run(args: ServeArgs) -> CliResult {
    // A thread gone idle hands back the pages it freed (games that sleep free much at once).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_park(dawgref::memory::collect_when_idle)
        .build()?;
    // The trace exporter's client lives on the runtime.
    let telemetry = runtime.block_on(async {
        dawgref::telemetry::init(args.log_json, args.otlp_endpoint.as_deref(), args.otlp_sample_ratio)
    })?;
    if let Some(endpoint) = &args.otlp_endpoint {
        tracing::info!(endpoint, sample_ratio = args.otlp_sample_ratio, "exporting traces over OTLP");
    }
    let served = serve(args, &runtime);
    // While the runtime lives: the exporter's client sends the last batch on it.
    telemetry.shutdown();
    served
}

fn serve(args: ServeArgs, runtime: &tokio::runtime::Runtime) -> CliResult {
    let config = server_config(&args);
    // TLS, or the refusal to serve plaintext, is settled before the lexicons load.
    let tls = tls_of(&args)?;
    let lexicons = load_lexicons(&config)?;
    runtime.block_on(async move {
        let lobby = dawgref_events::LobbyLimits {
            bot_games_per_day: args.bot_games_per_day,
            challenges_per_minute: args.bot_challenges_per_minute,
            ..Default::default()
        };
        let builder = server::Builder::new(lexicons).limits(config.limits.clone()).lobby_limits(lobby);
        let builder = match tls {
            Some(tls) => {
                tracing::info!(
                    cert = %tls.files().cert.display(),
                    mutual = tls.files().client_ca.is_some(),
                    "serving TLS only (SIGHUP reads the certificate and key again)"
                );
                builder.tls(tls)
            }
            None => builder,
        };
        let builder = with_store(builder, &args).await?;
        let builder = match args.director_token.as_ref().filter(|t| !t.0.is_empty()) {
            Some(Secret(token)) => {
                tracing::info!(
                    "director token set: ListGames, Directors and /director are open to its holder"
                );
                builder.director_token(token.clone())
            }
            None => builder,
        };
        let (handle, report) = builder.start().await.map_err(|e| e.to_string())?;
        tracing::info!(
            games = report.loaded,
            quarantined = report.quarantined.len(),
            ms = report.elapsed.as_millis() as u64,
            "unfinished games recovered"
        );
        if let Some(addr) = args.metrics_listen {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
            handle.spawn_metrics(listener);
            tracing::info!(%addr, "metrics on /metrics");
        }
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
        tracing::info!(addr = %listener.local_addr()?, "dawgref serving");
        let handle = Arc::new(handle);
        let draining = handle.clone();
        let signal = async move {
            server::shutdown_signal().await;
            tracing::info!("shutting down");
            draining.shutdown();
            // Drain before the listener closes: the games' tasks finish what they are doing,
            // then (among replicas) the leases go, so the other replicas take the games over
            // at their next call.
            if draining.host().peers().is_some() && !draining.drain(std::time::Duration::from_secs(5)).await {
                tracing::warn!("some games' tasks did not stop within 5 s");
            }
        };
        handle.serve(listener, signal).await.map_err(|e| e.to_string())?;
        // Every game's task finishes the operation it is in before the process exits.
        if !handle.host().wait_for_sessions(std::time::Duration::from_secs(5)).await {
            tracing::warn!("some games' tasks did not stop within 5 s");
        }
        Ok::<_, Box<dyn std::error::Error>>(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The server's configuration from the command line: lexicons, rulesets, word lists, the
/// lexicon cache and the limits.
fn server_config(args: &ServeArgs) -> ServerConfig {
    ServerConfig {
        lexicons: args.lexicons.clone(),
        rulesets: args.rulesets.clone(),
        word_lists: args.word_lists.clone(),
        lexicon_cache: match &args.lexicon_cache {
            Some(dir) if dir.is_empty() => None,
            Some(dir) => Some(PathBuf::from(dir)),
            None if args.data_dir.as_os_str() == ":memory:" => None,
            None => Some(args.data_dir.join("lexicons")),
        },
        limits: Limits {
            max_games: args.max_games,
            streams_per_game: args.streams_per_game,
            max_message_bytes: args.max_message_bytes,
            concurrency: args.concurrency,
            idle_after: args.idle_after.0,
            searches_per_client: args.searches_per_client as usize,
            bot_nice: args.bot_nice,
            create_rate: (args.games_per_minute > 0)
                .then_some(CreateRate { burst: args.games_burst, per_minute: args.games_per_minute }),
            ..Limits::default()
        },
    }
}

/// The server's TLS from --tls-cert and --tls-key, or none where plaintext may be served: on a
/// loopback address, or with --plaintext.
fn tls_of(args: &ServeArgs) -> Result<Option<Tls>, Box<dyn std::error::Error>> {
    Ok(match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => {
            let files = TlsFiles {
                cert: cert.clone(),
                key: key.clone(),
                client_ca: args.tls_client_ca.clone(),
                peer_ca: args.tls_peer_ca.clone(),
                peer_name: args.tls_peer_name.clone(),
            };
            let tls = Tls::load(files).map_err(|e| e.to_string())?;
            if args.database_url.is_some() && tls.client().is_none() {
                return Err("replicas forward to one another over TLS: give --tls-peer-ca (or --tls-client-ca), the CA their certificates are checked against".into());
            }
            Some(tls)
        }
        _ => {
            if !args.listen.ip().is_loopback() && !args.plaintext {
                return Err(format!(
                    "refusing to serve plaintext on {}: give --tls-cert and --tls-key, or --plaintext behind a balancer that terminates TLS",
                    args.listen
                )
                .into());
            }
            None
        }
    })
}

/// The lexicons, loaded, and the bots' learned tables of the rulesets that play them.
fn load_lexicons(config: &ServerConfig) -> Result<Vec<Lexicon>, Box<dyn std::error::Error>> {
    let started = std::time::Instant::now();
    let lexicons = server::load_lexicons(config).map_err(|e| e.to_string())?;
    for l in &lexicons {
        tracing::info!(
            name = l.name(),
            words = l.word_count(),
            checksum = format!("{:016x}", l.checksum()),
            "lexicon loaded"
        );
    }
    tracing::info!(ms = started.elapsed().as_millis() as u64, "lexicons ready");
    // The bots' learned tables are read now rather than at a game's first bot move: those of
    // the rulesets this server has a lexicon for (a ruleset plays its alphabet's lexicons).
    let playable = dawgref::rules::RulesetKind::all()
        .into_iter()
        .filter(|k| lexicons.iter().any(|l| l.alphabet() == k.alphabet()));
    for kind in playable {
        let leaves = dawgref::leaves::LeaveTable::shipped(kind);
        let _ = dawgref::winprob::WinTable::shipped(kind);
        tracing::debug!(ruleset = %kind, listed = leaves.listed(), "leave table loaded");
    }
    Ok(lexicons)
}

/// The game store: PostgreSQL as one replica of several with --database-url, else in memory
/// for `:memory:`, else SQLite in the data directory.
async fn with_store(
    builder: server::Builder,
    args: &ServeArgs,
) -> Result<server::Builder, Box<dyn std::error::Error>> {
    Ok(if let Some(Secret(url)) = &args.database_url {
        let addr = match &args.advertise_addr {
            Some(a) => a.clone(),
            None if args.listen.ip().is_unspecified() => {
                return Err("--advertise-addr is needed when listening on an unspecified address".into());
            }
            None => args.listen.to_string(),
        };
        let replica = Replica {
            id: uuid::Uuid::new_v4(),
            addr,
            lease: std::time::Duration::from_millis(args.lease_ms),
        };
        let store = Arc::new(PgStore::open(url, replica.clone()).await.map_err(|e| e.to_string())?);
        tracing::info!(replica = %replica.id, advertise = %replica.addr, lease_ms = args.lease_ms, "game store: PostgreSQL, as one replica of several");
        builder.replica(store)
    } else if args.data_dir.as_os_str() == ":memory:" {
        tracing::warn!("games are kept in memory only: a restart loses them");
        builder.store(Arc::new(MemoryStore::new()))
    } else {
        let store = SqliteStore::open(&args.data_dir).map_err(|e| e.to_string())?;
        tracing::info!(path = %store.path().display(), "game store open");
        builder.store(Arc::new(store))
    })
}

#[cfg(test)]
mod tests {
    use super::idle_after;
    use std::time::Duration;

    #[test]
    fn idle_after_reads_a_number_and_a_unit_or_never() {
        assert_eq!(idle_after("90s").unwrap().0, Some(Duration::from_secs(90)));
        assert_eq!(idle_after("10m").unwrap().0, Some(Duration::from_secs(600)));
        assert_eq!(idle_after("2h").unwrap().0, Some(Duration::from_secs(7200)));
        assert_eq!(idle_after("250ms").unwrap().0, Some(Duration::from_millis(250)));
        assert_eq!(idle_after("never").unwrap().0, None);
        for bad in ["", "10", "m", "5d", "-5s", "99ms", "169h", "99999999999999999999s"] {
            assert!(idle_after(bad).is_err(), "{bad:?}");
        }
    }
}

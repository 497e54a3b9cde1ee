//! The services: proto ↔ domain conversion, who the caller is (auth), what a viewer is shown
//! as messages (views), errors as statuses, forwarding to the owner replica, streams, limits,
//! health, reflection, grpc-web and the browser client, over the game host ([`crate::host`]),
//! which knows none of it.

pub mod analysis;
pub mod auth;
pub mod bots;
pub mod broadcasts;
pub mod caller;
pub(crate) mod codec;
/// The codec of every generated service and client, for a client that reads a call's messages as
/// a type of its own (the lab's broadcast spectators read only each message's time).
pub use codec::ProstCodec;
pub mod convert;
mod director_keys;
pub mod directors;
pub mod errors;
pub mod forward;
pub mod games;
mod import;
mod inference;
pub mod lexicons;
mod lineup;
mod listing;
mod new_game;
pub mod owner;
mod positions;
mod pre_endgame;
mod results;
mod review;
mod reviewer;
mod routing;
pub mod state;
pub mod status;
pub mod tls;
pub mod tournaments;
pub mod views;
mod watching;
pub mod web;
pub mod wordlists;

use crate::host::{Host, RecoveryReport};
use crate::lexicon::{Lexicon, catalog};
use crate::proto::v1::analysis_service_server::AnalysisServiceServer;
use crate::proto::v1::bots_service_server::BotsServiceServer;
use crate::proto::v1::broadcasts_service_server::BroadcastsServiceServer;
use crate::proto::v1::directors_service_server::DirectorsServiceServer;
use crate::proto::v1::games_service_server::GamesServiceServer;
use crate::proto::v1::lexicons_service_server::LexiconsServiceServer;
use crate::proto::v1::tournaments_service_server::TournamentsServiceServer;
use crate::store::Leases;
use crate::store::Store;
use crate::store::StoreError;
use state::{AppState, Callbacks, Limits};
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tonic::transport::Server;

/// How often the TLS files are looked at for a change (SIGHUP reads them at once).
const TLS_FILES_LOOK: std::time::Duration = std::time::Duration::from_secs(30);

/// What the server needs to start.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Shipped lexicons to load (en, ru, erudit).
    pub lexicons: Vec<String>,
    /// Ruleset files to register before the word lists are compiled.
    pub rulesets: Vec<PathBuf>,
    /// Word lists to compile, each in its ruleset's alphabet.
    pub word_lists: Vec<wordlists::WordListSpec>,
    /// Where compiled lexicons are cached (None: compile at every start).
    pub lexicon_cache: Option<PathBuf>,
    pub limits: Limits,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            lexicons: vec!["en".into(), "ru".into(), "erudit".into()],
            rulesets: Vec::new(),
            word_lists: Vec::new(),
            lexicon_cache: None,
            limits: Limits::default(),
        }
    }
}

/// Load the configured lexicons.
pub fn load_lexicons(
    config: &ServerConfig,
) -> Result<Vec<Lexicon>, Box<dyn std::error::Error + Send + Sync>> {
    wordlists::register_rulesets(&config.rulesets)?;
    let mut lexicons = config
        .lexicons
        .iter()
        .map(|name| {
            let shipped = catalog::shipped(name)
                .ok_or_else(|| format!("unknown lexicon {name:?} (shipped: en, ru, erudit)"))?;
            Ok(catalog::load_shipped_cached(shipped, config.lexicon_cache.as_deref())?)
        })
        .collect::<Result<Vec<Lexicon>, Box<dyn std::error::Error + Send + Sync>>>()?;
    for spec in &config.word_lists {
        if lexicons.iter().any(|l| l.name() == spec.name) {
            return Err(format!("--word-list {}: a lexicon of that name is already loaded", spec.name).into());
        }
        lexicons.push(wordlists::compile(spec, config.lexicon_cache.as_deref())?.0);
    }
    Ok(lexicons)
}

/// How every server starts: `dawgref serve`, the benchmarks, the fuzzer and the tests all build
/// theirs here, so that a new layer or option is added once and the tests run the stack users
/// run. Defaults: every games in memory, no director, a single server.
pub struct Builder {
    lexicons: Vec<Lexicon>,
    limits: Limits,
    store: Arc<dyn Store>,
    leases: Option<Arc<dyn Leases>>,
    callbacks: Callbacks,
    director_token: Option<String>,
    tls: Option<tls::Tls>,
    lobby_limits: dawgref_events::LobbyLimits,
}

impl Builder {
    pub fn new(lexicons: Vec<Lexicon>) -> Builder {
        Builder {
            lexicons,
            limits: Limits::default(),
            store: Arc::new(crate::store::MemoryStore::new()),
            leases: None,
            callbacks: Callbacks::default(),
            director_token: None,
            tls: None,
            lobby_limits: Default::default(),
        }
    }

    /// The limits bots play within in the lobby (games against bots a day, challenges a minute,
    /// how long a challenge waits).
    pub fn lobby_limits(mut self, limits: dawgref_events::LobbyLimits) -> Builder {
        self.lobby_limits = limits;
        self
    }

    pub fn limits(mut self, limits: Limits) -> Builder {
        self.limits = limits;
        self
    }

    /// Where games are made durable (default: memory only).
    pub fn store(mut self, store: Arc<dyn Store>) -> Builder {
        self.store = store;
        self
    }

    /// Serve as one replica of several sharing `store` (PostgreSQL, or any store that keeps
    /// leases): leases, heartbeat, takeovers and forwarding.
    pub fn replica<S: Store + Leases + 'static>(mut self, store: Arc<S>) -> Builder {
        self.leases = Some(store.clone());
        self.store = store;
        self
    }

    pub fn callbacks(mut self, callbacks: Callbacks) -> Builder {
        self.callbacks = callbacks;
        self
    }

    /// Open ListGames and `/director` to the holder of `token` (an empty token: no director).
    pub fn director_token(mut self, token: impl Into<String>) -> Builder {
        self.director_token = Some(token.into()).filter(|t| !t.is_empty());
        self
    }

    /// Serve TLS only (see [`tls`]); among replicas, forward to the others over TLS too.
    pub fn tls(mut self, tls: tls::Tls) -> Builder {
        self.tls = Some(tls);
        self
    }

    /// The server's state, with every unfinished game in the store recovered (its timers armed,
    /// its bots thinking) and, among replicas, the heartbeat running. Serve it with
    /// [`Handle::serve`] or [`Handle::spawn`].
    pub async fn start(self) -> Result<(Handle, RecoveryReport), StoreError> {
        let (tx, rx) = watch::channel(false);
        // The thinking threads hand back what their jobs freed, as the runtime's threads do.
        let callbacks = Callbacks {
            worker_idle: self.callbacks.worker_idle.or(Some(crate::memory::collect_when_idle)),
            ..self.callbacks
        };
        // The host keeps the games; the events layer its tournaments, broadcasts and the lobby.
        let (tournaments, broadcasts, lobby, jobs) =
            (self.store.clone(), self.store.clone(), self.store.clone(), self.store.clone());
        let host =
            Host::new(self.lexicons, self.limits, self.store, callbacks, Arc::new(views::EncodedAnswers), rx);
        let events = dawgref_events::Events::new(
            host.clone(),
            tournaments,
            broadcasts,
            lobby,
            jobs,
            self.lobby_limits,
        );
        let leases_id = self.leases.as_ref().map(|l| l.id());
        if let Some(leases) = self.leases {
            host.set_replica(leases);
        }
        host.metrics().time_methods(crate::metrics::served_methods());
        let state =
            Arc::new(AppState::new(host, events, self.tls.map(Arc::new), self.director_token.as_deref()));
        let handle = Handle { state, shutdown: tx };
        // Subscribed before recovery: a recovered game that ends at once is heard.
        let ended = handle.state.host.ended_games();
        let ended_lobby = handle.state.host.ended_games();
        let report = handle.state.host.recover().await?;
        tokio::spawn(handle.state.events.clone().follow_results(ended));
        let challenge_games = new_game::ChallengeGames(handle.state.clone());
        tokio::spawn(handle.state.events.clone().run_lobby(ended_lobby, challenge_games));
        // Every broadcast known before the first call is answered: no game shown early.
        handle.state.events.load_broadcasts().await.map_err(|e| StoreError::Io(e.to_string()))?;
        if handle.state.host.peers().is_some() {
            tokio::spawn(handle.state.events.clone().refresh_broadcasts());
        }
        // The review jobs are claimed by this replica's id (its leases' owner), or on one node
        // by this process's.
        let reviewer = leases_id.unwrap_or_else(uuid::Uuid::new_v4);
        tokio::spawn(reviewer::run(handle.state.clone(), reviewer));
        tokio::spawn(handle.state.host.clone().run_replica());
        tokio::spawn(handle.state.host.clone().run_alarms());
        Ok((handle, report))
    }
}

/// A running server's handle: its games (`host`), its metrics, the shutdown switch.
pub struct Handle {
    pub(crate) state: Arc<AppState>,
    shutdown: watch::Sender<bool>,
}

impl Handle {
    /// The games this server holds (sessions, listings, the live count): the host's own door.
    pub fn host(&self) -> &Host {
        &self.state.host
    }

    /// The server's metrics, as `/metrics` renders them.
    pub fn metrics(&self) -> &Arc<crate::metrics::Metrics> {
        &self.state.metrics
    }

    /// What broadcast `slug`'s feed on this server keeps (None: no feed here): its items and
    /// their bytes (`Events::feed_size`).
    pub fn broadcast_feed_size(&self, slug: &str) -> Option<(usize, usize)> {
        self.state.events.feed_size(slug)
    }

    /// The TLS the port serves, as last loaded (None: plaintext).
    pub fn tls(&self) -> Option<&Arc<tls::Tls>> {
        self.state.tls.as_ref()
    }

    /// The Games service over this server's state, to call in process (the fuzzer does).
    pub fn games_service(&self) -> games::GamesService {
        games::GamesService { state: self.state.clone() }
    }

    /// The Directors service over this server's state, to call in process (tests on paused time).
    pub fn directors_service(&self) -> directors::DirectorsService {
        directors::DirectorsService { state: self.state.clone() }
    }

    /// The Tournaments service over this server's state, to call in process.
    pub fn tournaments_service(&self) -> tournaments::TournamentsService {
        tournaments::TournamentsService { state: self.state.clone() }
    }

    /// The Broadcasts service over this server's state, to call in process (tests on paused time).
    pub fn broadcasts_service(&self) -> broadcasts::BroadcastsService {
        broadcasts::BroadcastsService::new(self.state.clone())
    }

    /// The Analysis service over this server's state, to call in process (tests on paused time).
    pub fn analysis_service(&self) -> analysis::AnalysisService {
        analysis::AnalysisService::new(self.state.clone())
    }

    /// Serve `/metrics` on `listener` in the background, for the process's life.
    pub fn spawn_metrics(&self, listener: TcpListener) {
        let state = self.state.clone();
        tokio::spawn(async move {
            if let Err(e) = serve_metrics(listener, state).await {
                tracing::error!(%e, "metrics endpoint failed");
            }
        });
    }

    /// Ask the server to stop: open streams end, sessions' tasks stop, then the listener closes.
    pub fn shutdown(&self) {
        let _ = self.shutdown.send(true);
    }

    /// Serve on `listener` until `signal` completes or [`Handle::shutdown`] is called.
    pub async fn serve(
        &self,
        listener: TcpListener,
        signal: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        self.reload_tls_on_hangup();
        serve_on(listener, self.state.clone(), signal).await
    }

    /// Serve on `listener` in the background until [`Handle::shutdown`] is called.
    pub fn spawn(&self, listener: TcpListener) {
        self.reload_tls_on_hangup();
        let state = self.state.clone();
        tokio::spawn(async move {
            if let Err(e) = serve_on(listener, state, std::future::pending()).await {
                tracing::error!(%e, "server stopped");
            }
        });
    }

    /// Read the TLS files again (see [`tls::Tls::reload`]); new connections, and forwarded
    /// calls, use them. An error leaves the configuration in force.
    pub fn reload_tls(&self) -> Result<(), tls::TlsError> {
        self.state.reload_tls()
    }

    /// With TLS, read its files again on every SIGHUP, and when they change (looked at every
    /// [`TLS_FILES_LOOK`]), until shutdown. The handler is installed before this returns, so a
    /// SIGHUP sent once serving has begun never ends the process.
    fn reload_tls_on_hangup(&self) {
        let Some(tls) = self.state.tls.clone() else { return };
        #[cfg(unix)]
        let mut hangups = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()) {
            Ok(s) => Some(s),
            Err(e) => {
                tracing::warn!(error = %e, "no SIGHUP handler: TLS files are read when they change");
                None
            }
        };
        let (state, mut shutdown) = (self.state.clone(), self.state.shutdown.clone());
        tokio::spawn(async move {
            let mut look = tokio::time::interval(TLS_FILES_LOOK);
            look.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            look.tick().await;
            loop {
                #[cfg(unix)]
                let hangup = async {
                    match hangups.as_mut() {
                        Some(h) => h.recv().await,
                        None => std::future::pending().await,
                    }
                };
                #[cfg(not(unix))]
                let hangup = std::future::pending::<Option<()>>();
                tokio::select! {
                    got = hangup => if got.is_none() { break },
                    _ = look.tick() => if !tls.files_changed() { continue },
                    _ = shutdown.changed() => break,
                }
                match state.reload_tls() {
                    Ok(()) => tracing::info!("TLS certificate and key read again"),
                    Err(e) => tracing::error!(error = %e, "TLS files not reloaded: the previous ones stay"),
                }
            }
        });
    }

    /// After [`Handle::shutdown`]: wait (at most `limit`) for every game's task to finish the
    /// operation it is in, then, among replicas, hand every game over so that the other
    /// replicas take them at their next call. False when some task did not stop in time.
    pub async fn drain(&self, limit: std::time::Duration) -> bool {
        self.state.host.drain(limit).await
    }
}

/// Serve on a bound listener until `signal` completes or the handle is shut down (through
/// [`Handle::serve`] or [`Handle::spawn`]: a server starts only through [`Builder`]).
async fn serve_on(
    listener: TcpListener,
    state: Arc<AppState>,
    signal: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let limit = state.limits.max_message_bytes;
    let (reporter, health) = tonic_health::server::health_reporter();
    reporter.set_serving::<GamesServiceServer<games::GamesService>>().await;
    reporter.set_serving::<AnalysisServiceServer<analysis::AnalysisService>>().await;
    reporter.set_serving::<LexiconsServiceServer<lexicons::LexiconsService>>().await;
    reporter.set_serving::<DirectorsServiceServer<directors::DirectorsService>>().await;
    reporter.set_serving::<TournamentsServiceServer<tournaments::TournamentsService>>().await;
    reporter.set_serving::<BroadcastsServiceServer<broadcasts::BroadcastsService>>().await;
    reporter.set_serving::<BotsServiceServer<bots::BotsService>>().await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(crate::proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let reflection_alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(crate::proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?;
    let games = GamesServiceServer::new(games::GamesService { state: state.clone() })
        .max_decoding_message_size(limit);
    let analysis = AnalysisServiceServer::new(analysis::AnalysisService::new(state.clone()))
        .max_decoding_message_size(limit);
    let lexicons = LexiconsServiceServer::new(lexicons::LexiconsService { state: state.clone() })
        .max_decoding_message_size(limit);
    let directors = DirectorsServiceServer::new(directors::DirectorsService { state: state.clone() })
        .max_decoding_message_size(limit);
    // ImportTsh takes a `.t` file of up to 1 MiB, whatever the other services' limit.
    let tournaments = TournamentsServiceServer::new(tournaments::TournamentsService { state: state.clone() })
        .max_decoding_message_size(limit.max(tournaments::MAX_REQUEST_BYTES));
    let broadcasts = broadcasts::served(broadcasts::BroadcastsService::new(state.clone()), limit);
    let bots =
        BotsServiceServer::new(bots::BotsService { state: state.clone() }).max_decoding_message_size(limit);
    let mut shutdown = state.shutdown.clone();
    let stop = async move {
        tokio::select! {
            _ = signal => {},
            _ = shutdown.changed() => {},
        }
    };
    let concurrency = tower::limit::GlobalConcurrencyLimitLayer::new(state.limits.concurrency);
    let router = Server::builder()
        .accept_http1(true)
        .trace_fn(crate::telemetry::rpc_span)
        .layer(tower::ServiceBuilder::new().load_shed().layer(concurrency))
        .layer(web::WebLayer)
        .layer(tonic_web::GrpcWebLayer::new())
        .layer(tower::util::MapResponseLayer::new(status::normalize))
        .layer(crate::metrics::RpcMetricsLayer(state.metrics.clone()))
        .layer(owner::OwnerLayer(state.host.clone()))
        .add_service(health)
        .add_service(reflection)
        .add_service(reflection_alpha)
        .add_service(games)
        .add_service(analysis)
        .add_service(lexicons)
        .add_service(directors)
        .add_service(tournaments)
        .add_service(broadcasts)
        .add_service(bots);
    match state.tls.clone() {
        Some(tls) => router.serve_with_incoming_shutdown(tls::incoming(listener, tls), stop).await?,
        None => {
            // Small unary messages must not wait for Nagle's algorithm (40 ms per request
            // otherwise).
            let incoming = tokio_stream::StreamExt::map(
                tokio_stream::wrappers::TcpListenerStream::new(listener),
                |conn| {
                    conn.inspect(|s| {
                        let _ = s.set_nodelay(true);
                    })
                },
            );
            router.serve_with_incoming_shutdown(incoming, stop).await?
        }
    }
    Ok(())
}

/// Serve Prometheus metrics as text on `GET /metrics`.
pub(crate) async fn serve_metrics(
    listener: TcpListener,
    state: Arc<AppState>,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let app = axum::Router::new().route(
        "/metrics",
        axum::routing::get(move || {
            let state = state.clone();
            async move { state.metrics.render() }
        }),
    );
    axum::serve(listener, app).await?;
    Ok(())
}

/// Resolves on SIGTERM or ctrl-c.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}

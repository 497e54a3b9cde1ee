//! The gRPC server: one session task per live game, proto ↔ domain conversion, the privacy
//! policy, auth, streams, limits, health, reflection, grpc-web, the browser client and metrics. The only crate that
//! knows tonic and tokio; the engine (`dawgref-engine`) cannot import them.

pub mod analysis;
pub mod auth;
pub mod cluster;
pub(crate) mod codec;
pub mod convert;
pub mod errors;
pub mod games;
pub mod lexicons;
pub mod metrics;
pub mod pool;
pub mod privacy;
pub mod recovery;
pub mod session;
pub mod state;
pub mod status;
pub mod web;

use crate::lexicon::{Lexicon, catalog};
use crate::proto::v1::analysis_server::AnalysisServer;
use crate::proto::v1::games_server::GamesServer;
use crate::proto::v1::lexicons_server::LexiconsServer;
use crate::store::GameStore;
use state::{AppState, Hooks, Limits};
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tonic::transport::Server;

/// What the server needs to start.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Shipped lexicons to load (en, ru, erudit).
    pub lexicons: Vec<String>,
    /// Where compiled lexicons are cached (None: compile at every start).
    pub lexicon_cache: Option<PathBuf>,
    pub limits: Limits,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            lexicons: vec!["en".into(), "ru".into(), "erudit".into()],
            lexicon_cache: None,
            limits: Limits::default(),
        }
    }
}

/// Load the configured lexicons.
pub fn load_lexicons(
    config: &ServerConfig,
) -> Result<Vec<Lexicon>, Box<dyn std::error::Error + Send + Sync>> {
    config
        .lexicons
        .iter()
        .map(|name| {
            let shipped = catalog::shipped(name)
                .ok_or_else(|| format!("unknown lexicon {name:?} (shipped: en, ru, erudit)"))?;
            Ok(catalog::load_shipped_cached(shipped, config.lexicon_cache.as_deref())?)
        })
        .collect()
}

/// A running server's handle: its state (for tests and metrics) and the shutdown switch.
pub struct Handle {
    pub state: Arc<AppState>,
    shutdown: watch::Sender<bool>,
}

impl Handle {
    /// Ask the server to stop: open streams end, then the listener closes.
    pub fn shutdown(&self) {
        let _ = self.shutdown.send(true);
    }
}

/// Build the state for a server whose games live only in memory.
pub fn state(lexicons: Vec<Lexicon>, limits: Limits) -> Handle {
    state_with_store(lexicons, limits, Arc::new(crate::store::MemoryStore::new()))
}

/// Build the state for a server keeping its games in `store` (call
/// [`recovery::recover`] before serving to load the games already there).
pub fn state_with_store(lexicons: Vec<Lexicon>, limits: Limits, store: Arc<dyn GameStore>) -> Handle {
    state_with_hooks(lexicons, limits, store, Hooks::default())
}

/// [`state_with_store`], with test hooks.
pub fn state_with_hooks(
    lexicons: Vec<Lexicon>,
    limits: Limits,
    store: Arc<dyn GameStore>,
    hooks: Hooks,
) -> Handle {
    let (tx, rx) = watch::channel(false);
    Handle { state: Arc::new(AppState::new(lexicons, limits, rx, store, hooks)), shutdown: tx }
}

/// Serve on a bound listener until `signal` completes or the handle is shut down.
pub async fn serve_on(
    listener: TcpListener,
    state: Arc<AppState>,
    signal: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let limit = state.limits.max_message_bytes;
    let (reporter, health) = tonic_health::server::health_reporter();
    reporter.set_serving::<GamesServer<games::GamesService>>().await;
    reporter.set_serving::<AnalysisServer<analysis::AnalysisService>>().await;
    reporter.set_serving::<LexiconsServer<lexicons::LexiconsService>>().await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(crate::proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let reflection_alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(crate::proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?;
    let games =
        GamesServer::new(games::GamesService { state: state.clone() }).max_decoding_message_size(limit);
    let analysis = AnalysisServer::new(analysis::AnalysisService { state: state.clone() })
        .max_decoding_message_size(limit);
    let lexicons = LexiconsServer::new(lexicons::LexiconsService { state: state.clone() })
        .max_decoding_message_size(limit);
    let mut shutdown = state.shutdown.clone();
    let stop = async move {
        tokio::select! {
            _ = signal => {},
            _ = shutdown.changed() => {},
        }
    };
    let concurrency = tower::limit::GlobalConcurrencyLimitLayer::new(state.limits.concurrency);
    // Small unary messages must not wait for Nagle's algorithm (40 ms per request otherwise).
    let incoming =
        tokio_stream::StreamExt::map(tokio_stream::wrappers::TcpListenerStream::new(listener), |conn| {
            conn.inspect(|s| {
                let _ = s.set_nodelay(true);
            })
        });
    Server::builder()
        .accept_http1(true)
        .trace_fn(|req| tracing::info_span!("rpc", path = %req.uri().path()))
        .layer(tower::ServiceBuilder::new().load_shed().layer(concurrency))
        .layer(web::WebLayer)
        .layer(tonic_web::GrpcWebLayer::new())
        .layer(tower::util::MapResponseLayer::new(status::normalize))
        .layer(metrics::RpcMetricsLayer(state.metrics.clone()))
        .add_service(health)
        .add_service(reflection)
        .add_service(reflection_alpha)
        .add_service(games)
        .add_service(analysis)
        .add_service(lexicons)
        .serve_with_incoming_shutdown(incoming, stop)
        .await?;
    Ok(())
}

/// Serve Prometheus metrics as text on `GET /metrics`.
pub async fn serve_metrics(
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

//! The services' state ([`AppState`]): the host, who callers are, the forwarder to other
//! replicas, each client's pace of new games, the port's TLS. Where a call for a game is answered
//! is `routing`'s.

use super::errors;
use super::forward::Forwarder;
use crate::host::{Host, HostError, Snapshot, Viewer};
use crate::lexicon::Lexicon;
use crate::metrics::Metrics;
use std::sync::Arc;
use tokio::sync::watch;
use tonic::Status;

pub use crate::host::{Callbacks, Limits};

/// The whole server's state.
pub(crate) struct AppState {
    /// The live games and everything they need.
    pub(crate) host: Host,
    /// Who a request's token makes its caller.
    pub(crate) identity: super::auth::Identity,
    pub(crate) limits: Limits,
    pub(crate) metrics: Arc<Metrics>,
    /// Flips to true on shutdown: open streams end, sessions' tasks stop.
    pub(crate) shutdown: watch::Receiver<bool>,
    /// Sends calls for games owned elsewhere to their owner.
    pub(crate) forwarder: Forwarder,
    /// Each client's pace of new games.
    pub(crate) creates: super::caller::CreateBuckets,
    /// The port's TLS, when it serves TLS (then forwarding to other replicas uses it too).
    pub(crate) tls: Option<Arc<super::tls::Tls>>,
    /// Tournaments and broadcasts: the events layer beneath the services.
    pub(crate) events: dawgref_events::Events,
}

impl AppState {
    /// `director`: the root director's token (None: no director).
    pub(crate) fn new(
        host: Host,
        events: dawgref_events::Events,
        tls: Option<Arc<super::tls::Tls>>,
        director: Option<&str>,
    ) -> AppState {
        AppState {
            identity: super::auth::Identity::new(host.clone(), director),
            limits: host.limits().clone(),
            metrics: host.metrics().clone(),
            shutdown: host.shutdown(),
            forwarder: Forwarder::new(host.clone(), tls.clone()),
            tls,
            creates: super::caller::CreateBuckets::new(host.limits().create_rate),
            events,
            host,
        }
    }

    /// Read the TLS files again: new connections and new channels to other replicas use them.
    pub fn reload_tls(&self) -> Result<(), super::tls::TlsError> {
        let Some(tls) = &self.tls else { return Ok(()) };
        tls.reload()?;
        self.forwarder.reconnect();
        Ok(())
    }

    /// Refuse a new game when the server holds its limit.
    pub fn check_room(&self) -> Result<(), Status> {
        self.host.check_room().map_err(errors::host)
    }

    pub fn lexicon(&self, name: &str) -> Result<Arc<Lexicon>, Status> {
        self.lexicon_named(name).map_err(errors::host)
    }

    /// A loaded lexicon by name: INVALID_ARGUMENT naming the ones loaded when it is not one.
    pub fn lexicon_named(&self, name: &str) -> Result<Arc<Lexicon>, HostError> {
        self.host.lexicons().get(name).cloned().ok_or_else(|| {
            let known: Vec<&str> = self.host.lexicons().keys().map(|k| k.as_str()).collect();
            HostError::field(
                "lexicon",
                format!("unknown lexicon {:?} (loaded: {})", crate::text::clip(name), known.join(", ")),
            )
        })
    }

    /// The game a request names, as its caller may see it (see `Events::seen`), and who the
    /// caller is to it.
    pub(crate) async fn seen_game(
        &self,
        id: &str,
        metadata: &tonic::metadata::MetadataMap,
    ) -> Result<(Arc<Snapshot>, Viewer), Status> {
        let (snapshot, now_ms) = self.host.snapshot_at(id).await.map_err(errors::host)?;
        let viewer = self.identity.viewer(metadata, &snapshot).await?;
        Ok((self.seen(id, snapshot, viewer, now_ms)?.0, viewer))
    }

    /// Game `id` as `viewer` may see it at game time `now_ms` (`Events::seen`): NOT_FOUND, as for
    /// no game, to a spectator it is not out for yet.
    pub(crate) fn seen(
        &self,
        id: &str,
        snapshot: Arc<Snapshot>,
        viewer: Viewer,
        now_ms: u64,
    ) -> Result<(Arc<Snapshot>, u64), Status> {
        let seen = self.events.seen(snapshot, viewer, now_ms);
        seen.ok_or_else(|| errors::host(crate::host::HostError::NoGame(id.to_string())))
    }
}

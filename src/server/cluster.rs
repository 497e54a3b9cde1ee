//! Replicas sharing games through PostgreSQL: which replica serves a game, and the calls that go
//! to it. Each live game has one owner, recorded as a lease in the store ([`PgStore`]); this
//! module keeps the replica's heartbeat going (which renews all its leases), lets go of the
//! sessions of games another replica took over, takes over games whose owner is gone, and
//! forwards a call for a game owned elsewhere to the owner's advertised address.
//!
//! A request for a game goes, in [`AppState::route`](super::state::AppState::route): to the
//! local session when this replica holds the lease; else to the owner the store names (cached
//! until a forward fails); else, when the lease has lapsed, the game is claimed and loaded here.
//! A call that was already forwarded is never forwarded again (the owner moved meanwhile): it
//! fails with UNAVAILABLE, and the client's retry finds the new owner.

use super::state::AppState;
use crate::proto::v1::games_client::GamesClient;
use crate::store::StoreError;
use crate::store::postgres::{Claim, PgStore};
use dashmap::DashMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tonic::transport::{Channel, Endpoint};
use uuid::Uuid;

/// The header a forwarding replica adds, so that a call is forwarded at most once.
pub const FORWARDED: &str = "x-dawgref-forwarded";

pub struct Cluster {
    store: Arc<PgStore>,
    /// Owners of games this replica forwards to, by game: saves a store round trip per call.
    owners: DashMap<Uuid, String>,
    /// One HTTP/2 channel per peer address, shared by every forwarded call.
    peers: DashMap<String, Channel>,
    /// When the last heartbeat that succeeded was sent: the leases are sure until then + lease.
    beat: Mutex<Instant>,
}

impl Cluster {
    pub fn new(store: Arc<PgStore>) -> Cluster {
        Cluster { store, owners: DashMap::new(), peers: DashMap::new(), beat: Mutex::new(Instant::now()) }
    }

    pub fn store(&self) -> &Arc<PgStore> {
        &self.store
    }

    pub fn addr(&self) -> &str {
        &self.store.replica().addr
    }

    fn lease(&self) -> Duration {
        self.store.replica().lease
    }

    /// The last heartbeat is recent enough that no other replica can have taken a game of ours:
    /// a session held here may answer without asking the store.
    pub fn sure(&self) -> bool {
        self.beat.lock().unwrap_or_else(|e| e.into_inner()).elapsed() < self.lease() * 3 / 4
    }

    /// Renew the heartbeat and let go of the sessions of games that are no longer ours.
    pub async fn heartbeat(&self, state: &AppState) -> Result<(), StoreError> {
        let sent = Instant::now();
        let lost = self.store.heartbeat().await?;
        *self.beat.lock().unwrap_or_else(|e| e.into_inner()) = sent;
        for game in lost {
            tracing::warn!(%game, "game taken over by another replica: its session here stops");
            state.metrics.leases_lost.inc();
            state.evict(game);
        }
        state.metrics.leases_held.set(self.store.leases_held() as i64);
        Ok(())
    }

    /// Who serves the game: this replica (it may just have taken the game over), another one, or
    /// nobody (a game over, or no such game).
    pub async fn claim(&self, game: Uuid, state: &AppState) -> Result<Claim, StoreError> {
        let claim = self.store.claim(game).await?;
        match &claim {
            Claim::Mine => {
                self.owners.remove(&game);
            }
            Claim::TakenOver => {
                self.owners.remove(&game);
                state.metrics.takeovers.inc();
                tracing::info!(%game, "game taken over");
            }
            Claim::Other(addr) => {
                self.owners.insert(game, addr.clone());
            }
            Claim::NotLive => {
                self.owners.remove(&game);
            }
        }
        Ok(claim)
    }

    /// The owner this replica last forwarded the game to.
    pub fn cached_owner(&self, game: &Uuid) -> Option<String> {
        self.owners.get(game).map(|a| a.clone())
    }

    /// A forward to the game's owner failed: ask the store next time.
    pub fn forget_owner(&self, game: &Uuid) {
        self.owners.remove(game);
    }

    /// A client for the replica at `addr` (its channel connects on first use and reconnects).
    pub fn peer(&self, addr: &str) -> Result<GamesClient<Channel>, tonic::Status> {
        if let Some(c) = self.peers.get(addr) {
            return Ok(GamesClient::new(c.clone()));
        }
        let endpoint = Endpoint::from_shared(format!("http://{addr}"))
            .map_err(|e| super::errors::internal(format!("the owner's address {addr:?}: {e}")))?
            .connect_timeout(Duration::from_secs(1))
            .tcp_nodelay(true)
            .http2_keep_alive_interval(Duration::from_secs(5))
            .keep_alive_timeout(Duration::from_secs(5));
        let channel = endpoint.connect_lazy();
        self.peers.insert(addr.to_string(), channel.clone());
        Ok(GamesClient::new(channel))
    }

    /// Hand every game over (on shutdown, once the sessions have stopped).
    pub async fn release(&self) -> Result<(), StoreError> {
        self.store.release_all().await
    }
}

/// The replica's background work while it serves: a heartbeat every quarter lease, and every
/// beat a sweep for games whose owner is gone (so that their clocks fall and their bots move
/// even when no client asks for them). Ends on shutdown.
pub async fn run(state: Arc<AppState>, cluster: Arc<Cluster>) {
    let mut shutdown = state.shutdown.clone();
    let every = (cluster.lease() / 4).max(Duration::from_millis(50));
    loop {
        tokio::select! {
            () = super::session::stopped(&mut shutdown) => return,
            () = tokio::time::sleep(every) => {}
        }
        if let Err(e) = cluster.heartbeat(&state).await {
            tracing::warn!(error = %e, "heartbeat failed");
            continue;
        }
        match cluster.store.orphans(cluster.lease(), 64).await {
            Ok(orphans) => {
                for game in orphans {
                    if *shutdown.borrow() {
                        return;
                    }
                    if let Err(e) = state.route(&game.to_string(), true).await {
                        tracing::debug!(%game, error = %e, "orphan not taken");
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "looking for orphaned games failed"),
        }
    }
}

//! Replicas sharing games through PostgreSQL: which replica serves a game. Each live game has
//! one owner, recorded as a lease in the store (the store's [`Leases`], which `PgStore`
//! implements); [`Cluster`] is the host's only way to them: it keeps the replica's heartbeat
//! (which renews all its leases) and says which games it lost, claims, releases and hands over
//! leases, and caches the owners of games held elsewhere.
//!
//! A request for a game goes, in [`Host::route`](super::Host::route): to the local session when
//! this replica holds the lease; else to the owner the store names (cached until a forward
//! fails); else, when the lease has lapsed, the game is claimed and loaded here. Forwarding a
//! call to its owner is the services' business (`server::forward`).

use crate::let_go::LetGo;
use crate::metrics::Metrics;
use crate::switch::stopped;
use crate::{HostError, Route, Session, parse_game_id};
use dashmap::DashMap;
use dawgref_store::{Claim, Leases, StoreError};
use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use uuid::Uuid;

/// Calls in a row forwarded by one replica, with no other call for the game between them, after
/// which the game moves to that replica: behind a balancer that hashes on the game id, a game
/// created elsewhere lives where its calls land from its first turns on.
pub const HAND_OVER_AFTER: u32 = 3;

pub(crate) struct Cluster {
    store: Arc<dyn Leases>,
    metrics: Arc<Metrics>,
    /// Owners of games this replica forwards to, by game: saves a store round trip per call.
    owners: DashMap<Uuid, String>,
    /// Games served here whose last calls were all forwarded by one replica: which, how many.
    runs: DashMap<Uuid, (String, u32)>,
    /// When the last heartbeat that succeeded was sent: the leases are sure until then + lease.
    beat: Mutex<Instant>,
}

impl Cluster {
    fn new(store: Arc<dyn Leases>, metrics: Arc<Metrics>) -> Cluster {
        let beat = Mutex::new(Instant::now());
        Cluster { store, metrics, owners: DashMap::new(), runs: DashMap::new(), beat }
    }

    /// This replica holds the game's lease, as far as it knows without asking the store.
    pub(crate) fn holds(&self, game: &Uuid) -> bool {
        self.store.holds(game)
    }

    /// Before a game is loaded here its lease must be this replica's: claimed when it is not
    /// held already. The released game's clock reading (it slept elsewhere, or here), or
    /// `Elsewhere` when another replica holds it.
    pub(crate) async fn claim_to_load(&self, game: Uuid) -> Result<ToLoad, StoreError> {
        if !self.holds(&game) && matches!(self.claim(game).await?, Claim::Other(_)) {
            return Ok(ToLoad::Elsewhere);
        }
        Ok(ToLoad::Here { slept_ms: self.store.take_slept(&game) })
    }

    /// The game left memory for good (over, given up, another replica's): its lease is no
    /// longer counted as this replica's, and its count of forwarded calls goes.
    pub(crate) fn forget(&self, game: &Uuid) {
        self.store.forget(game);
        self.forget_run(game);
    }

    /// Release a sleeping game's lease, with its clock's reading and when its flag falls (its
    /// count of forwarded calls went when it fell asleep: `Context::let_go`).
    pub(crate) async fn release(
        &self,
        game: Uuid,
        game_ms: u64,
        wake_in: Option<Duration>,
    ) -> Result<bool, StoreError> {
        self.store.release(game, game_ms, wake_in).await
    }

    fn addr(&self) -> &str {
        self.store.addr()
    }

    pub(crate) fn lease(&self) -> Duration {
        self.store.lease()
    }

    /// The last heartbeat is recent enough that no other replica can have taken a game of ours:
    /// a session held here may answer without asking the store.
    fn sure(&self) -> bool {
        self.beat.lock().unwrap_or_else(|e| e.into_inner()).elapsed() < self.lease() * 3 / 4
    }

    /// Renew the heartbeat; the games that are no longer ours (their sessions here must stop).
    async fn heartbeat(&self) -> Result<Vec<Uuid>, StoreError> {
        let metrics = &self.metrics;
        let sent = Instant::now();
        let lost = self.store.heartbeat().await?;
        *self.beat.lock().unwrap_or_else(|e| e.into_inner()) = sent;
        for game in &lost {
            tracing::warn!(%game, "game taken over by another replica: its session here stops");
            metrics.leases_lost.inc();
        }
        metrics.leases_held.set(self.store.leases_held() as i64);
        Ok(lost)
    }

    /// Who serves the game: this replica (it may just have taken the game over), another one, or
    /// nobody (a game over, or no such game).
    async fn claim(&self, game: Uuid) -> Result<Claim, StoreError> {
        let claim = self.store.claim(game).await?;
        match &claim {
            Claim::Mine => {
                self.owners.remove(&game);
            }
            Claim::TakenOver => {
                self.owners.remove(&game);
                self.metrics.takeovers.inc();
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

    /// A call for a game served here came from a client (`from` None) or was forwarded by the
    /// replica at `from`. True when the game's last [`HAND_OVER_AFTER`] calls all came through
    /// that replica: the game should move there.
    fn note_call(&self, game: Uuid, from: Option<&str>) -> bool {
        let Some(peer) = from.filter(|p| !p.is_empty() && *p != self.addr()) else {
            self.runs.remove(&game);
            return false;
        };
        let mut run = self.runs.entry(game).or_insert_with(|| (peer.to_string(), 0));
        if run.0 != peer {
            *run = (peer.to_string(), 0);
        }
        run.1 += 1;
        let due = run.1 >= HAND_OVER_AFTER;
        drop(run);
        if due {
            self.runs.remove(&game);
        }
        due
    }

    /// The game left this replica (moved, asleep, ended): its count of forwarded calls goes.
    pub(crate) fn forget_run(&self, game: &Uuid) {
        self.runs.remove(game);
    }

    /// The game now belongs to the replica at `addr`.
    fn set_owner(&self, game: Uuid, addr: &str) {
        if addr == self.addr() {
            self.owners.remove(&game);
        } else {
            self.owners.insert(game, addr.to_string());
        }
    }

    /// The owner this replica last forwarded the game to.
    fn cached_owner(&self, game: &Uuid) -> Option<String> {
        self.owners.get(game).map(|a| a.clone())
    }

    /// A forward to the game's owner failed: ask the store next time.
    fn forget_owner(&self, game: &Uuid) {
        self.owners.remove(game);
    }

    /// Release every lease (on shutdown, once the sessions have stopped).
    pub(crate) async fn release_all(&self) -> Result<(), StoreError> {
        self.store.release_all().await
    }

    /// Give the game's lease to the live replica at `to` (its session here has stopped); false
    /// when it stayed.
    async fn hand_over(&self, game: Uuid, to: &str) -> bool {
        match self.store.hand_over(game, to).await {
            Ok(true) => {
                self.set_owner(game, to);
                self.metrics.handovers.inc();
                tracing::debug!(%game, to, "game handed over to the replica its calls come through");
                true
            }
            Ok(false) => false,
            Err(e) => {
                tracing::warn!(%game, to, error = %e, "hand-over failed");
                false
            }
        }
    }
}

/// Whether a game not in memory may be loaded here ([`Cluster::claim_to_load`]).
pub(crate) enum ToLoad {
    /// Its lease is this replica's; a released game's clock reading when it was claimed.
    Here { slept_ms: Option<u64> },
    /// Another replica holds it.
    Elsewhere,
}

/// What the services know of the replicas around this one: where this replica answers, the
/// proof a forwarded call carries, how long a peer may take, the others' addresses, and what a
/// forward learnt of a game's owner. Nothing here claims, writes or releases a lease.
pub struct Peers<'a> {
    cluster: &'a Cluster,
}

impl<'a> Peers<'a> {
    pub(crate) fn new(cluster: &'a Cluster) -> Peers<'a> {
        Peers { cluster }
    }

    /// The address this replica advertises to the others.
    pub fn addr(&self) -> &str {
        self.cluster.addr()
    }

    /// The secret the replicas share: a forwarded call carries it as proof.
    pub fn proof(&self) -> &str {
        self.cluster.store.secret()
    }

    /// How long a call to another replica may take: a paused replica accepts connections and
    /// never answers, so a call gives up after two leases, by when the paused replica's leases
    /// have lapsed and a retry takes its games.
    pub fn answer_within(&self) -> Duration {
        (self.cluster.lease() * 2).max(Duration::from_secs(1))
    }

    /// The addresses of the other replicas with a current heartbeat.
    pub async fn others(&self) -> Result<Vec<String>, crate::HostError> {
        self.cluster.store.live_peers().await.map_err(|e| crate::HostError::store("listing the replicas", e))
    }

    /// A forwarded call's answer named the game's owner now.
    pub fn owner_is(&self, game: Uuid, addr: &str) {
        self.cluster.set_owner(game, addr)
    }

    /// The game's owner did not answer a forward: the store is asked next time.
    pub fn owner_unreachable(&self, game: &Uuid) {
        self.cluster.forget_owner(game)
    }
}

/// The host among replicas: where a game is served, the hand-over of a game to the replica its
/// calls come through, and the heartbeat with its sweep for orphaned games.
impl crate::Host {
    /// Serve as one replica of several sharing the store, whose leases `leases` keeps (set
    /// once, before serving).
    pub fn set_replica(&self, leases: Arc<dyn Leases>) -> bool {
        let cluster = Cluster::new(leases, self.ctx.metrics.clone());
        self.ctx.cluster.set(Arc::new(cluster)).is_ok()
    }

    /// The replicas around this one, as the services see them (None on a single server).
    pub fn peers(&self) -> Option<Peers<'_>> {
        self.ctx.cluster.get().map(|c| Peers::new(c))
    }

    /// Where the game is served. On a single server, always here. Among replicas: here when this
    /// replica holds the lease (sure of it by a recent heartbeat); at the owner's address when
    /// another replica with a current heartbeat holds it; here, taken over, when the lease has
    /// lapsed. `forwarded`: the call came from another replica; it is not sent on again.
    pub async fn route(&self, id: &str, forwarded: bool) -> Result<Route, HostError> {
        let Some(cluster) = self.ctx.cluster.get() else {
            return self.session(id).await.map(Route::Local);
        };
        let uuid = parse_game_id(id)?;
        if *self.ctx.shutdown.borrow() {
            return Err(HostError::ShuttingDown);
        }
        if !cluster.sure() {
            self.heartbeat(cluster).await.map_err(|e| HostError::store("the replica's heartbeat", e))?;
        }
        if cluster.holds(&uuid) {
            match self.session(id).await {
                // Released (asleep) or handed over while the call waited: ask the store below.
                Err(HostError::Moved(_)) => {}
                served => return served.map(Route::Local),
            }
        }
        if !forwarded && let Some(addr) = cluster.cached_owner(&uuid) {
            return Ok(Route::Remote(addr));
        }
        // A session here for a game this replica does not hold is stale: it goes first.
        self.ctx.let_go(uuid, None, LetGo::Evicted);
        match cluster.claim(uuid).await.map_err(|e| HostError::store("finding the game's owner", e))? {
            Claim::Mine | Claim::TakenOver | Claim::NotLive => self.session(id).await.map(Route::Local),
            Claim::Other(_) if forwarded => Err(HostError::Moved(dawgref_engine::text::clip(id))),
            Claim::Other(addr) => Ok(Route::Remote(addr)),
        }
    }

    /// Run a command on a game's session. If the session's task stopped with the command still
    /// queued (the game went to sleep, ended or was given up a moment before), the command never
    /// ran: it is asked once more, of the game's next session as it is now.
    pub async fn on_session<T, F, Fut>(&self, id: &str, session: Arc<Session>, op: F) -> Result<T, HostError>
    where
        F: Fn(Arc<Session>) -> Fut,
        Fut: std::future::Future<Output = Result<T, HostError>>,
    {
        match op(session.clone()).await {
            Err(e) if e.is_unavailable() && !session.is_alive() => match self.route(id, true).await? {
                Route::Local(s) if s.instance() != session.instance() => op(s).await,
                _ => Err(e),
            },
            answer => answer,
        }
    }

    /// A call for a game this replica serves came from a client (`from` None) or was forwarded
    /// by the replica at `from`; after [`cluster::HAND_OVER_AFTER`] forwarded calls in a row from
    /// one replica the game moves there ([`Host::hand_over`]). The address the game's owner
    /// answers at now (None on a single server).
    pub async fn served(&self, uuid: Uuid, from: Option<&str>) -> Option<String> {
        let cluster = self.ctx.cluster.get()?;
        if let Some(peer) = from
            && cluster.note_call(uuid, Some(peer))
            && self.hand_over(uuid, peer).await
        {
            return Some(peer.to_string());
        }
        if from.is_none() {
            cluster.note_call(uuid, None);
        }
        Some(cluster.addr().to_string())
    }

    /// Move a game this replica serves to the live replica at `to`: its session stops (the
    /// operation in hand is committed and answered first), then the lease goes to `to` at the
    /// next epoch, so no turn is lost or written twice. Calls that arrive meanwhile wait for the
    /// game's loading lock, then find it owned by `to`. False when it stayed (not held here, or
    /// no live replica at `to`: it is then loaded here again by its next call).
    async fn hand_over(&self, uuid: Uuid, to: &str) -> bool {
        let Some(cluster) = self.ctx.cluster.get() else { return false };
        self.ctx
            .under_loading_lock(uuid, async {
                if !cluster.holds(&uuid) {
                    return false;
                }
                // Out of the live map first, so that the stopping session keeps the lease for us.
                if let Some(session) = self.ctx.let_go(uuid, None, LetGo::HandedOver) {
                    session.stopped().await;
                }
                cluster.hand_over(uuid, to).await
            })
            .await
    }

    /// Renew the replica's heartbeat and let go of the games it lost.
    async fn heartbeat(&self, cluster: &Cluster) -> Result<(), StoreError> {
        for game in cluster.heartbeat().await? {
            self.ctx.let_go(game, None, LetGo::Evicted);
        }
        Ok(())
    }

    /// The replica's background work while it serves: a heartbeat every quarter lease, and every
    /// beat a sweep for games whose owner is gone (so that their clocks fall and their bots move
    /// even when no client asks for them). Ends on shutdown; at once on a single server.
    pub async fn run_replica(self) {
        let Some(cluster) = self.ctx.cluster.get().cloned() else { return };
        let mut shutdown = self.ctx.shutdown.clone();
        let every = (cluster.lease() / 4).max(Duration::from_millis(50));
        loop {
            tokio::select! {
                () = stopped(&mut shutdown) => return,
                () = tokio::time::sleep(every) => {}
            }
            if let Err(e) = self.heartbeat(&cluster).await {
                tracing::warn!(error = %e, "heartbeat failed");
                continue;
            }
            match cluster.store.orphans(cluster.lease(), 64).await {
                Ok(orphans) => {
                    for game in orphans {
                        if *shutdown.borrow() {
                            return;
                        }
                        if let Err(e) = self.route(&game.to_string(), true).await {
                            tracing::debug!(%game, error = %e, "orphan not taken");
                        }
                    }
                }
                Err(e) => tracing::warn!(error = %e, "looking for orphaned games failed"),
            }
        }
    }
}

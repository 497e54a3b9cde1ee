//! What every session of one host shares ([`Context`]: the store, the pool, the metrics, the
//! lexicons a replay needs, the live map, the replicas' bookkeeping, the loading locks), and how
//! the services write an answer down for retries ([`Answers`]).

use super::cluster::Cluster;
use super::command::{ChallengeDone, DirectorDone, TurnDone};
use super::config::{Callbacks, Limits};
use super::let_go::LetGo;
use super::pool::Pool;
use super::recovery::Lexicons;
use super::session::Session;
use super::sleep::Asleep;
use crate::metrics::Metrics;
use dashmap::DashMap;
use dawgref_store::Store;
use std::sync::{Arc, OnceLock};
use tokio::sync::watch;
use tokio::time::Instant;
use uuid::Uuid;

/// How the services write down the answer to a turn or a challenge, so that a retry of the same
/// request id gets the same bytes back (from memory or, after a restart, from the log row the
/// bytes are part of). The host keeps them opaque.
pub trait Answers: Send + Sync {
    /// The answer to a turn, encoded.
    fn turn(&self, done: &TurnDone) -> Vec<u8>;
    fn challenge(&self, done: &ChallengeDone) -> Vec<u8>;
    fn director(&self, done: &DirectorDone) -> Vec<u8>;
}

/// What a game's task needs besides its game: shared by every session of one host.
pub struct Context {
    pub(super) lexicons: Lexicons,
    /// The director keys (`directors`).
    pub(super) directors: crate::directors::DirectorKeys,
    pub(super) store: Arc<dyn Store>,
    pub(super) pool: Pool,
    /// The analysis searches admitted, by client (`search`).
    pub(super) searches: Arc<crate::search::Searches>,
    pub(super) metrics: Arc<Metrics>,
    pub(super) hooks: Callbacks,
    pub(super) limits: Limits,
    pub(super) answers: Arc<dyn Answers>,
    /// Live games' sessions. A finished game is not here: it is rebuilt from the store for the
    /// request that names it. A task takes its game out when the game ends.
    pub(super) live: crate::live::LiveGames<Session>,
    /// Every session's task, so that shutdown can wait for them.
    pub(super) tasks: tokio_util::task::TaskTracker,
    /// Flips to true on shutdown: open streams end, sessions' tasks stop.
    pub(super) shutdown: watch::Receiver<bool>,
    /// Replicas sharing a PostgreSQL store: who owns which game. Unset on a single server.
    pub(super) cluster: OnceLock<Arc<Cluster>>,
    /// Games asleep (out of memory after an idle spell): a few bytes each, so that a woken
    /// game's clock reads as if it had never slept.
    pub(super) asleep: DashMap<Uuid, Asleep>,
    /// Sleeping games' next flag falls, in time order: the host wakes each when it is due.
    pub(super) alarms: std::sync::Mutex<std::collections::BTreeSet<(Instant, Uuid)>>,
    /// Games being loaded from the store, one lock each: however many requests name a game
    /// that is not in memory, it is loaded once.
    pub(super) loading: DashMap<Uuid, Arc<tokio::sync::Mutex<()>>>,
    /// Each game that ends here, once its end is durable (`Host::ended_games`).
    pub(super) ended: tokio::sync::broadcast::Sender<Uuid>,
}

impl Context {
    /// Let a game go from memory, for `why`. `instance`: the session meant (a game's own task
    /// letting itself go names its instance, so that a session loaded since stays); None:
    /// whichever is held. The session let go, if one was held (a sleeping game's is remembered
    /// asleep only if it was still the one held).
    pub(crate) fn let_go(&self, id: Uuid, instance: Option<u64>, why: LetGo) -> Option<Arc<Session>> {
        let meant = |s: &Session| instance.is_none_or(|i| s.instance() == i);
        if let LetGo::Asleep(asleep) = &why {
            // Asleep before it leaves the map: a request from then on finds it asleep.
            if self.live.get(&id).is_none_or(|s| !meant(&s)) {
                return None;
            }
            if let Some(at) = asleep.wake_at {
                self.alarms.lock().unwrap_or_else(|e| e.into_inner()).insert((at, id));
            }
            self.asleep.insert(id, asleep.clone());
            self.metrics.games_asleep.set(self.asleep.len() as i64);
        }
        let session = self.live.remove_if(&id, |s| meant(s));
        // A task letting its own game go is on its way out already: only another's is told.
        if let Some(session) = session.as_ref().filter(|_| instance.is_none()) {
            session.leave();
        }
        if matches!(why, LetGo::Evicted | LetGo::HandedOver) {
            self.forget_sleep(&id);
        }
        if matches!(why, LetGo::Finished) {
            // Nobody listening is no error: the listeners read finished games from the store too.
            let _ = self.ended.send(id);
        }
        if let Some(cluster) = self.cluster.get() {
            match why {
                // The lease is no longer this replica's.
                LetGo::Evicted => cluster.forget(&id),
                // The lease ends with the session, unless one loaded since holds the game.
                LetGo::Finished | LetGo::GivenUp if session.is_some() => cluster.forget(&id),
                // The caller moves (handed over) or releases (asleep) the lease next; the calls
                // counted towards a hand-over count no more.
                LetGo::HandedOver | LetGo::Asleep(_) => cluster.forget_run(&id),
                LetGo::Finished | LetGo::GivenUp | LetGo::ShuttingDown => {}
            }
        }
        session
    }

    /// Among replicas, a game that fell asleep here releases its lease (keeping its clock's
    /// reading and its next flag in the store), so that whichever replica its next call reaches
    /// wakes it. Under the game's loading lock, and only if it is still asleep here: a request
    /// that woke it meanwhile keeps the lease.
    pub(crate) async fn release_asleep(&self, id: Uuid) {
        let Some(cluster) = self.cluster.get() else { return };
        self.under_loading_lock(id, async {
            let reading = self.asleep.get(&id).map(|a| (a.now_ms(), a.wake_at));
            let Some((game_ms, wake_at)) = reading.filter(|_| !self.live.contains(&id)) else { return };
            let wake_in = wake_at.map(|at| at.saturating_duration_since(Instant::now()));
            if let Err(e) = cluster.release(id, game_ms, wake_in).await {
                // It stays this replica's, renewed by the heartbeat; a call here wakes it.
                tracing::warn!(game = %id, error = %e, "a sleeping game's lease could not be released");
            }
        })
        .await;
    }

    /// Run `work` under the game's loading lock: a game is loaded, its lease released or handed
    /// over, one at a time. The lock's entry goes afterwards unless someone else holds or waits
    /// for it (they took their clone under the map's lock, so the count is exact), who then
    /// removes it.
    pub(super) async fn under_loading_lock<T>(
        &self,
        id: Uuid,
        work: impl std::future::Future<Output = T>,
    ) -> T {
        let lock = self.loading.entry(id).or_default().clone();
        let _guard = lock.lock().await;
        let out = work.await;
        self.loading.remove_if(&id, |_, held| Arc::ptr_eq(held, &lock) && Arc::strong_count(held) <= 2);
        out
    }

    /// A game no longer asleep (woken, or another replica's now): its entry and alarm go.
    pub(super) fn forget_sleep(&self, id: &Uuid) -> Option<Asleep> {
        let (_, asleep) = self.asleep.remove(id)?;
        if let Some(at) = asleep.wake_at {
            self.alarms.lock().unwrap_or_else(|e| e.into_inner()).remove(&(at, *id));
        }
        self.metrics.games_asleep.set(self.asleep.len() as i64);
        Some(asleep)
    }
}

//! Finding a game for a request: its session in memory, or its log read from the store and
//! replayed on the pool, loaded once however many requests name it at once (under the game's
//! loading lock), claimed first among replicas, woken with its clock as if it never slept; and
//! a game read without being served here (a sleeping one, another replica's).

use crate::actor;
use crate::cluster::ToLoad;
use crate::let_go::LetGo;
use crate::recovery::{Replayed, replay};
use crate::{HostError, Route, Session, Snapshot, parse_game_id};
use dawgref_store::StoreError;
use std::sync::Arc;
use uuid::Uuid;

/// A game read from the store for a request.
enum Loaded {
    Missing,
    Unreadable(StoreError),
    Quarantined(String),
    Unreplayable(String),
    Ready(Box<Replayed>),
}

impl crate::Host {
    /// The session of a game id, cloned out of the map; a game not in memory (finished in an
    /// earlier run, or given up after a failed write) is rebuilt from the store by replaying its
    /// log on the pool. A finished game is served without being held: it changes no more, and
    /// reading history must not fill the server up to `max_games`. A live one gets exactly one
    /// task: if two requests rebuild it at once, the first to enter it in the map wins.
    pub async fn session(&self, id: &str) -> Result<Arc<Session>, HostError> {
        let uuid = parse_game_id(id)?;
        if let Some(s) = self.held(&uuid) {
            return Ok(s);
        }
        // Not in memory: loaded once, however many requests ask at the same time (the others
        // wait for the lock and then find it held).
        self.ctx
            .under_loading_lock(uuid, async {
                match self.held(&uuid) {
                    Some(s) => Ok(s),
                    None => self.load(uuid, id).await,
                }
            })
            .await
    }

    /// The game's session if it is held live (and counts as a request naming it).
    fn held(&self, uuid: &Uuid) -> Option<Arc<Session>> {
        let s = self.ctx.live.get(uuid)?;
        if s.is_alive() {
            s.touch();
            return Some(s);
        }
        // Its task stopped without letting go of the game (short of a bug, it cannot: every
        // way out of the task lets the game go first): serve the game from its log rather than
        // refuse it.
        self.ctx.let_go(*uuid, Some(s.instance()), LetGo::GivenUp);
        None
    }

    /// Load a game that is not in memory: replayed from the store on the pool, held if live.
    /// A game that slept resumes its clock where it would be had it stayed awake.
    /// Among replicas the game must be this replica's first: a lease released when the game
    /// fell asleep (or handed over) is claimed again, and one another replica holds is `Moved`.
    async fn load(&self, uuid: Uuid, id: &str) -> Result<Arc<Session>, HostError> {
        let mut slept = None;
        if let Some(cluster) = self.ctx.cluster.get() {
            match cluster
                .claim_to_load(uuid)
                .await
                .map_err(|e| HostError::store("finding the game's owner", e))?
            {
                ToLoad::Elsewhere => return Err(HostError::Moved(dawgref_engine::text::clip(id))),
                ToLoad::Here { slept_ms } => slept = slept_ms,
            }
        }
        self.ctx.metrics.games_loaded.inc();
        let Replayed { core, last_ms, bot_delay_ms: delay } = self.replayed(uuid, id).await?;
        // Its clock's reading as if it never slept: kept here, or (released) in the store.
        let asleep = self.ctx.asleep.get(&uuid).map(|a| a.now_ms()).or(slept);
        let base_ms = asleep.map_or(last_ms, |now_ms| last_ms.max(now_ms));
        if core.game().is_over() {
            self.ctx.forget_sleep(&uuid);
            return Ok(actor::start(&self.ctx, uuid, base_ms, core, delay));
        }
        // Held by now after all (start-up recovery, say): that session stays the only one.
        let session =
            self.ctx.live.get_or_insert_with(uuid, || actor::start(&self.ctx, uuid, base_ms, core, delay));
        session.touch();
        // Woken: it slept here, or (released) elsewhere.
        if self.ctx.forget_sleep(&uuid).is_some() || asleep.is_some() {
            self.ctx.metrics.games_woken.inc();
        }
        Ok(session)
    }

    /// A game read from the store and replayed on the pool.
    async fn replayed(&self, uuid: Uuid, id: &str) -> Result<Replayed, HostError> {
        let id = dawgref_engine::text::clip(id);
        let loaded = match self.ctx.store.load(uuid).await {
            Err(e) => Loaded::Unreadable(e),
            Ok(None) => Loaded::Missing,
            Ok(Some(g)) => match g.quarantined {
                Some(reason) => Loaded::Quarantined(reason),
                None => {
                    // Replaying a log is CPU work: on the pool.
                    let ctx = self.ctx.clone();
                    self.ctx
                        .pool
                        .run(move || {
                            replay(&ctx.lexicons, &g)
                                .map_or_else(Loaded::Unreplayable, |r| Loaded::Ready(Box::new(r)))
                        })
                        .await
                        .ok_or_else(|| HostError::Internal(format!("loading game {id} failed")))?
                }
            },
        };
        match loaded {
            Loaded::Ready(r) => Ok(*r),
            Loaded::Missing => Err(HostError::NoGame(id)),
            Loaded::Unreadable(e) => Err(HostError::store(format!("loading game {id}"), e)),
            Loaded::Quarantined(reason) => Err(HostError::Unreplayable { id, reason, quarantined: true }),
            Loaded::Unreplayable(reason) => Err(HostError::Unreplayable { id, reason, quarantined: false }),
        }
    }

    /// A game asleep here as a reader sees it, without waking it: replayed from the store (every
    /// acknowledged turn is in it), with its clock read as if it had never slept. `None` when it
    /// is not asleep here: then it is read through its session. A listing of many sleeping games
    /// shows them this way, so that paging through them does not fill memory with games nobody
    /// plays.
    pub async fn asleep_snapshot(&self, uuid: Uuid) -> Option<Result<(Arc<Snapshot>, u64), HostError>> {
        let now_ms = self.ctx.asleep.get(&uuid).map(|a| a.now_ms())?;
        let replayed = self.replayed(uuid, &uuid.to_string()).await;
        Some(replayed.map(|r| (Arc::new(Snapshot::of(r.core)), r.last_ms.max(now_ms))))
    }

    /// The game as a reader sees it: its session's snapshot here, or, for a game another replica
    /// owns, its durable state read from the store and replayed (every acknowledged turn is in
    /// it), without serving the game here.
    pub async fn snapshot(&self, id: &str) -> Result<Arc<Snapshot>, HostError> {
        self.snapshot_at(id).await.map(|(snapshot, _)| snapshot)
    }

    /// [`Host::snapshot`], with the game clock's reading: now, for a game held here; for one
    /// read from the store, its last logged reading (never ahead of the game's own clock).
    pub async fn snapshot_at(&self, id: &str) -> Result<(Arc<Snapshot>, u64), HostError> {
        let replayed = async |this: &Self| {
            let r = this.replayed(parse_game_id(id)?, id).await?;
            Ok::<_, HostError>((Arc::new(Snapshot::of(r.core)), r.last_ms))
        };
        match self.route(id, false).await {
            Ok(Route::Local(session)) => Ok((session.snapshot(), session.now_ms())),
            Ok(Route::Remote(_)) => replayed(self).await,
            // The owner changed on the way: read the store.
            Err(
                HostError::Moved(_)
                | HostError::Store { .. }
                | HostError::ShuttingDown
                | HostError::Reloading,
            ) if self.ctx.cluster.get().is_some() => replayed(self).await,
            Err(e) => Err(e),
        }
    }
}

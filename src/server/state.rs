//! Server state: the loaded lexicons, the live sessions by game id, the thinking pool, limits,
//! metrics and the store. A session is a handle to the task that owns its game
//! ([`super::session`]); this map only finds it. No map guard is ever held across an `.await`:
//! handlers clone the session's `Arc` out of the map first.

use super::metrics::Metrics;
use super::pool::Pool;
use super::recovery::Replayed;
use super::session::{Session, Snapshot};
use crate::lexicon::Lexicon;
use crate::store::GameStore;
use crate::store::postgres::Claim;
use dashmap::DashMap;
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::sync::watch;
use tonic::Status;
use uuid::Uuid;

fn parse_game_id(id: &str) -> Result<Uuid, Status> {
    Uuid::parse_str(id).map_err(|_| {
        super::errors::bad_field(
            "game_id",
            format!("not a UUID: {:?} ({} characters)", crate::text::clip(id), id.chars().count()),
        )
    })
}

/// Operational limits.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Live games the server holds at most.
    pub max_games: usize,
    /// WatchGame streams per game at most.
    pub streams_per_game: usize,
    /// Largest request message accepted, in bytes.
    pub max_message_bytes: usize,
    /// Requests handled at once across the server; more are shed (UNAVAILABLE).
    pub concurrency: usize,
    /// Events a game's broadcast channel holds for slow watchers (who then replay the history).
    pub event_buffer: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_games: 100_000,
            streams_per_game: 64,
            max_message_bytes: 256 * 1024,
            concurrency: 1024,
            event_buffer: 128,
        }
    }
}

/// A position to analyse: its board, the rack that goes with it (a CGP's first rack, or the
/// caller's own rack in a live game), and its lexicon. Shared, not copied: a board is ~5 KB.
pub struct Position {
    pub board: Arc<crate::board::Board>,
    /// The rack analysis defaults to: a CGP's first, a seat's own in a game.
    pub rack: Option<crate::rack::Rack>,
    /// `rack` belongs to the side to move (a CGP's always; a seat's on its turn).
    pub rack_to_move: bool,
    pub lexicon: Arc<Lexicon>,
    /// Players in the position.
    pub players: usize,
    /// The side to move's score less the next player's.
    pub spread: i32,
    /// Consecutive scoreless turns so far.
    pub zeros: u32,
    /// The game is over.
    pub over: bool,
}

/// Positions built from CGP lines, by lexicon then line: analysis clients send the same position
/// many times, and building a board's cross-sets costs far more than looking it up. A lookup
/// borrows the request's strings (no allocation) and shares the board (no copy). Lines are
/// hashed with FxHash, not SipHash: hashing a CGP line was a tenth of a cached ValidatePlay's
/// time, and the bound (the cache is emptied when it reaches its size) also bounds what
/// colliding keys can cost.
#[derive(Default)]
pub struct PositionCache {
    /// By the request's lexicon field (a loaded lexicon's name or empty: few, so a list).
    by_lexicon: std::sync::RwLock<Vec<(String, PositionsByLine)>>,
}

/// Cached positions of one lexicon field, by CGP line.
type PositionsByLine = rustc_hash::FxHashMap<String, Arc<Position>>;

impl PositionCache {
    const CAPACITY: usize = 1024;

    pub fn get(&self, cgp: &str, lexicon: &str) -> Option<Arc<Position>> {
        let lists = self.by_lexicon.read().unwrap_or_else(|e| e.into_inner());
        let (_, lines) = lists.iter().find(|(name, _)| name == lexicon)?;
        lines.get(cgp).cloned()
    }

    pub fn put(&self, cgp: &str, lexicon: &str, position: Arc<Position>) {
        let mut lists = self.by_lexicon.write().unwrap_or_else(|e| e.into_inner());
        if lists.iter().map(|(_, lines)| lines.len()).sum::<usize>() >= Self::CAPACITY {
            lists.clear();
        }
        let at = match lists.iter().position(|(name, _)| name == lexicon) {
            Some(at) => at,
            None => {
                lists.push((lexicon.to_string(), Default::default()));
                lists.len() - 1
            }
        };
        lists[at].1.insert(cgp.to_string(), position);
    }
}

/// A game read from the store for a request.
enum Loaded {
    Missing,
    Unreadable(String),
    Quarantined(String),
    Unreplayable(String),
    Ready(Box<Replayed>),
}

/// Points where tests and benchmarks reach into the server's behaviour. Empty in production.
#[derive(Clone, Default)]
pub struct Hooks {
    /// Called on the pool's worker before every bot decision, with the game's id: a test can
    /// block here to make a bot think as long as it likes.
    pub before_bot_decision: Option<Arc<dyn Fn(Uuid) + Send + Sync>>,
}

/// The whole server's state.
pub struct AppState {
    pub positions: PositionCache,
    pub lexicons: BTreeMap<String, Arc<Lexicon>>,
    /// Live games' sessions. A finished game is not here: it is rebuilt from the store for the
    /// request that names it.
    sessions: DashMap<Uuid, Arc<Session>>,
    pub limits: Limits,
    pub metrics: Arc<Metrics>,
    /// Where bots think, analysis generates and logs replay.
    pub pool: Pool,
    /// Long analysis searches (SolveEndgame, Simulate) running at once: one thinking thread fewer than
    /// the pool has, so bots always have a thread to think on.
    pub searches: Arc<tokio::sync::Semaphore>,
    pub hooks: Hooks,
    /// Every session's task, so that shutdown can wait for them.
    tasks: tokio_util::task::TaskTracker,
    /// Flips to true on shutdown: open streams end, sessions' tasks stop.
    pub shutdown: watch::Receiver<bool>,
    /// Where games are made durable.
    pub store: Arc<dyn GameStore>,
    /// The hash of the director's token (ListGames), once set at start; none: no director.
    director: std::sync::OnceLock<super::auth::TokenHash>,
    /// Replicas sharing a PostgreSQL store: who owns which game. None on a single server.
    cluster: std::sync::OnceLock<Arc<super::cluster::Cluster>>,
}

/// Where a request for a game is served.
pub enum Route {
    /// Here: this replica holds the game (or it is finished and read from the store).
    Local(Arc<Session>),
    /// By the replica at this address, which owns the game.
    Remote(String),
}

impl AppState {
    pub fn new(
        lexicons: Vec<Lexicon>,
        limits: Limits,
        shutdown: watch::Receiver<bool>,
        store: Arc<dyn GameStore>,
        hooks: Hooks,
    ) -> AppState {
        AppState {
            lexicons: lexicons.into_iter().map(|l| (l.name().to_string(), Arc::new(l))).collect(),
            sessions: DashMap::new(),
            positions: PositionCache::default(),
            limits,
            metrics: Arc::new(Metrics::new()),
            pool: Pool::per_core(),
            searches: Arc::new(tokio::sync::Semaphore::new(Pool::cores().saturating_sub(1).max(1))),
            hooks,
            tasks: tokio_util::task::TaskTracker::new(),
            shutdown,
            store,
            director: std::sync::OnceLock::new(),
            cluster: std::sync::OnceLock::new(),
        }
    }

    /// Serve as one replica of several sharing the store (set once, before serving).
    pub fn set_cluster(&self, cluster: Arc<super::cluster::Cluster>) -> bool {
        self.cluster.set(cluster).is_ok()
    }

    pub fn cluster(&self) -> Option<&Arc<super::cluster::Cluster>> {
        self.cluster.get()
    }

    /// Where the game is served. On a single server, always here. Among replicas: here when this
    /// replica holds the lease (sure of it by a recent heartbeat); at the owner's address when
    /// another replica with a current heartbeat holds it; here, taken over, when the lease has
    /// lapsed. `forwarded`: the call came from another replica; it is not sent on again.
    pub async fn route(self: &Arc<Self>, id: &str, forwarded: bool) -> Result<Route, Status> {
        let Some(cluster) = self.cluster.get() else {
            return self.session(id).await.map(Route::Local);
        };
        let uuid = parse_game_id(id)?;
        if *self.shutdown.borrow() {
            return Err(super::errors::shutting_down());
        }
        if !cluster.sure() {
            cluster.heartbeat(self).await.map_err(|e| super::errors::store("the replica's heartbeat", e))?;
        }
        if cluster.store().holds(&uuid) {
            return self.session(id).await.map(Route::Local);
        }
        if !forwarded && let Some(addr) = cluster.cached_owner(&uuid) {
            return Ok(Route::Remote(addr));
        }
        // A session here for a game this replica does not hold is stale: it goes first.
        self.evict(uuid);
        match cluster
            .claim(uuid, self)
            .await
            .map_err(|e| super::errors::store("finding the game's owner", e))?
        {
            Claim::Mine | Claim::TakenOver | Claim::NotLive => self.session(id).await.map(Route::Local),
            Claim::Other(_) if forwarded => Err(super::errors::moved(&crate::text::clip(id))),
            Claim::Other(addr) => Ok(Route::Remote(addr)),
        }
    }

    /// Let a game's session go (its game now belongs to another replica).
    pub fn evict(&self, id: Uuid) {
        if let Some((_, session)) = self.sessions.remove(&id) {
            session.leave();
            self.metrics.games_live.set(self.sessions.len() as i64);
        }
    }

    /// Accept `token` as the director's (ListGames), for the server's life. Only its hash is
    /// kept. False when a director token was already set.
    pub fn set_director_token(&self, token: &str) -> bool {
        self.director.set(super::auth::hash(token)).is_ok()
    }

    /// The request carries the director's token.
    pub fn check_director(&self, metadata: &tonic::metadata::MetadataMap) -> Result<(), Status> {
        let Some(hash) = self.director.get() else {
            return Err(super::errors::no_director());
        };
        let token = super::auth::bearer(metadata)?.ok_or_else(|| {
            super::errors::unauthenticated(
                "listing games needs the director's token (authorization: Bearer <token>)",
            )
        })?;
        match super::auth::find_seat(&token, &[Some(*hash)]) {
            Some(_) => Ok(()),
            None => Err(super::errors::permission_denied("that is not the director's token")),
        }
    }

    /// Every live game's session, in game id order.
    pub fn live_sessions(&self) -> Vec<Arc<Session>> {
        let mut all: Vec<Arc<Session>> = self.sessions.iter().map(|s| s.value().clone()).collect();
        all.sort_unstable_by_key(|s| s.id());
        all
    }

    /// Start a session's task, tracked for shutdown.
    pub(super) fn spawn_session_task(&self, task: impl std::future::Future<Output = ()> + Send + 'static) {
        self.tasks.spawn(task);
    }

    /// After shutdown was signalled: wait (at most `limit`) for every session's task to finish
    /// the operation it is in (a turn being committed is committed and answered) and stop.
    pub async fn wait_for_sessions(&self, limit: std::time::Duration) -> bool {
        self.tasks.close();
        tokio::time::timeout(limit, self.tasks.wait()).await.is_ok()
    }

    /// Live games held.
    pub fn live_games(&self) -> usize {
        self.sessions.len()
    }

    /// Whether the game is held live in memory.
    pub fn is_live(&self, id: &Uuid) -> bool {
        self.sessions.contains_key(id)
    }

    /// Refuse a new game when the server holds its limit.
    pub fn check_room(&self) -> Result<(), Status> {
        if self.sessions.len() >= self.limits.max_games {
            return Err(super::errors::no_room(self.limits.max_games));
        }
        Ok(())
    }

    /// Hold a new or recovered game's session, if it is live (a game over already stays in the store only).
    pub fn hold(&self, session: &Arc<Session>) {
        if !session.snapshot().game().is_over() {
            self.sessions.insert(session.id(), session.clone());
            self.metrics.games_live.set(self.sessions.len() as i64);
        }
    }

    /// Let a game go from memory: its task does when the game ends or cannot be stored (the
    /// fuzzer too, once it has replayed a game it played).
    pub fn release(&self, id: Uuid) {
        self.sessions.remove(&id);
        self.forget_lease(&id);
        self.metrics.games_live.set(self.sessions.len() as i64);
    }

    /// [`AppState::release`] by a session's task: only if the game's session is still that one
    /// (a game let go and loaded again has a new session, which stays).
    pub fn release_instance(&self, id: Uuid, instance: u64) {
        if self.sessions.remove_if(&id, |_, s| s.instance() == instance).is_some() {
            self.forget_lease(&id);
        }
        self.metrics.games_live.set(self.sessions.len() as i64);
    }

    fn forget_lease(&self, id: &Uuid) {
        if let Some(cluster) = self.cluster.get() {
            cluster.store().forget(id);
        }
    }

    /// The session of a game id, cloned out of the map; a game not in memory (finished in an
    /// earlier run, or given up after a failed write) is rebuilt from the store by replaying its
    /// log on the pool. A finished game is served without being held: it changes no more, and
    /// reading history must not fill the server up to `max_games`. A live one gets exactly one
    /// task: if two requests rebuild it at once, the first to enter it in the map wins.
    pub async fn session(self: &Arc<Self>, id: &str) -> Result<Arc<Session>, Status> {
        let uuid = parse_game_id(id)?;
        if let Some(s) = self.sessions.get(&uuid).map(|s| s.clone()) {
            if s.is_alive() {
                return Ok(s);
            }
            // Its task is gone without letting go of the game (it cannot be, short of a bug):
            // serve the game from its log rather than refuse it for ever.
            self.sessions.remove_if(&uuid, |_, held| Arc::ptr_eq(held, &s));
        }
        let Replayed { core, last_ms: base_ms, bot_delay_ms: delay } = self.replayed(uuid, id).await?;
        if core.game().is_over() {
            return Ok(Session::start(self, uuid, base_ms, core, delay));
        }
        let session = match self.sessions.entry(uuid) {
            dashmap::Entry::Occupied(e) => e.get().clone(),
            dashmap::Entry::Vacant(v) => v.insert(Session::start(self, uuid, base_ms, core, delay)).clone(),
        };
        self.metrics.games_live.set(self.sessions.len() as i64);
        Ok(session)
    }

    /// A game read from the store and replayed on the pool.
    async fn replayed(self: &Arc<Self>, uuid: Uuid, id: &str) -> Result<Replayed, Status> {
        let state = self.clone();
        let id = crate::text::clip(id);
        let loaded = self
            .pool
            .run(move || match state.store.load(uuid) {
                Err(e) => Loaded::Unreadable(e.to_string()),
                Ok(None) => Loaded::Missing,
                Ok(Some(g)) => match &g.quarantined {
                    Some(reason) => Loaded::Quarantined(reason.clone()),
                    None => super::recovery::replay(&state, &g)
                        .map_or_else(Loaded::Unreplayable, |r| Loaded::Ready(Box::new(r))),
                },
            })
            .await
            .ok_or_else(|| super::errors::internal(format!("loading game {id} failed")))?;
        match loaded {
            Loaded::Ready(r) => Ok(*r),
            Loaded::Missing => Err(super::errors::no_game(&id)),
            Loaded::Unreadable(e) => Err(super::errors::store(&format!("loading game {id}"), e)),
            Loaded::Quarantined(reason) => Err(super::errors::unreplayable(&id, &reason, true)),
            Loaded::Unreplayable(reason) => Err(super::errors::unreplayable(&id, &reason, false)),
        }
    }

    /// The game as a reader sees it: its session's snapshot here, or, for a game another replica
    /// owns, its durable state read from the store and replayed (every acknowledged turn is in
    /// it), without serving the game here.
    pub async fn snapshot(self: &Arc<Self>, id: &str) -> Result<Arc<Snapshot>, Status> {
        match self.route(id, false).await {
            Ok(Route::Local(session)) => Ok(session.snapshot()),
            Ok(Route::Remote(_)) => {
                Ok(Arc::new(Snapshot::of(self.replayed(parse_game_id(id)?, id).await?.core)))
            }
            // The owner changed on the way: read the store.
            Err(e) if e.code() == tonic::Code::Unavailable && self.cluster.get().is_some() => {
                Ok(Arc::new(Snapshot::of(self.replayed(parse_game_id(id)?, id).await?.core)))
            }
            Err(e) => Err(e),
        }
    }

    pub fn lexicon(&self, name: &str) -> Result<Arc<Lexicon>, Status> {
        self.lexicons.get(name).cloned().ok_or_else(|| {
            let known: Vec<&str> = self.lexicons.keys().map(|k| k.as_str()).collect();
            super::errors::bad_field(
                "lexicon",
                format!("unknown lexicon {:?} (loaded: {})", crate::text::clip(name), known.join(", ")),
            )
        })
    }
}

//! The game host: every live game as a session (one task each: the actor), its clocks and bots,
//! recovery from the store, and, among replicas, which games are this replica's. It speaks
//! domain types only: engine values, [`Seat`]s, [`Viewer`]s, [`HostError`]s. Nothing here knows
//! gRPC, protobuf or tokens; the services (`dawgref::server`) translate requests into calls on a
//! [`Host`] and answers back, and prove who the caller is.
//!
//! The layers, one way: engine → host → store and cluster → services → binary.

mod actor;
mod cluster;
mod command;
mod config;
mod context;
mod directors;
mod error;
mod hex;
mod input;
mod let_go;
mod live;
mod loading;
pub mod metrics;
mod pool;
mod privacy;
mod recovery;
mod search;
mod session;
mod sleep;
mod state;
mod switch;
mod token;
pub mod trace;

pub use cluster::Peers;
pub use command::{Answer, ChallengeDone, DirectorDone, DirectorOp, Turn, TurnAction, TurnDone};
pub use config::{Callbacks, CreateRate, Limits};
pub use context::Answers;
pub use directors::Director;
pub use error::HostError;
pub use hex::{hex, unhex};
pub use token::{find_seat, hash};
// The store's values the host's methods take and return (a listing's query, a director key), so
// that the services name them through the host: only `server::Builder` names the stores.
pub use dawgref_store::{DirectorKey, GameQuery, GameState};
pub use input::{InputError, PlayInput, TileInput, TileRef, exchange as exchange_input, play as play_input};
pub use pool::{BOT_NICE, Pool};
pub use privacy::{Viewer, gcg, reviewable};
pub use recovery::{Lexicons, Replayed, replay, unix_ms};
pub use search::{Grant, Reporter, SearchStream, SearchTicket};
pub use session::{Session, WatchSlot};
pub use state::{Asker, Seat, SeatKind, Snapshot, TokenHash, TournamentLink, default_bot_delay_ms};
use state::{Core, Remembered};
pub use switch::{sleep_until, stopped};

use context::Context;
use dawgref_engine::game::Game;
use dawgref_engine::lexicon::Lexicon;
use dawgref_store::record::{Batch, GameRecord, Label};
use dawgref_store::{Store, StoreError};
use let_go::LetGo;
use metrics::Metrics;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::watch;
use uuid::Uuid;

/// The host's handle: cheap to clone, shared by the services.
#[derive(Clone)]
pub struct Host {
    ctx: Arc<Context>,
}

/// Where a request for a game is served.
pub enum Route {
    /// Here: this replica holds the game (or it is finished and read from the store).
    Local(Arc<Session>),
    /// By the replica at this address, which owns the game.
    Remote(String),
}

/// What a host holds ([`Host::census`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Census {
    /// Games awake in memory (in play).
    pub live: usize,
    /// Games asleep: out of memory, woken by their next request.
    pub asleep: usize,
    /// Analysis searches admitted and not yet ended.
    pub searches: usize,
}

/// Where a game is on a host ([`Host::residence`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Residence {
    /// Awake: its session is held.
    Live,
    /// Asleep: a few bytes here, its state in the store.
    Asleep,
    /// Not held here: over, another replica's, or unknown.
    Out,
}

/// What start-up recovery did.
#[derive(Debug, Default)]
pub struct RecoveryReport {
    pub loaded: usize,
    /// Games set aside, with the reason.
    pub quarantined: Vec<(Uuid, String)>,
    pub elapsed: Duration,
}

/// A game's id from a request's text.
pub fn parse_game_id(id: &str) -> Result<Uuid, HostError> {
    Uuid::parse_str(id).map_err(|_| HostError::BadId(id.to_string()))
}

/// Game ends a slow listener may fall behind by before it is told it lagged.
const ENDED_BACKLOG: usize = 4096;

impl Host {
    pub fn new(
        lexicons: Vec<Lexicon>,
        limits: Limits,
        store: Arc<dyn Store>,
        hooks: Callbacks,
        answers: Arc<dyn Answers>,
        shutdown: watch::Receiver<bool>,
    ) -> Host {
        let metrics = Arc::new(Metrics::new());
        let live = live::LiveGames::new(metrics.games_live.clone());
        let pool = Pool::with_bot_nice(Pool::cores(), hooks.worker_idle, limits.bot_nice);
        let searches = Arc::new(search::Searches::new(pool.clone(), limits.searches_per_client));
        let ctx = Context {
            lexicons: lexicons.into_iter().map(|l| (l.name().to_string(), Arc::new(l))).collect(),
            directors: directors::DirectorKeys::new(store.clone()),
            store,
            pool,
            searches,
            metrics,
            hooks,
            limits,
            answers,
            live,
            tasks: tokio_util::task::TaskTracker::new(),
            shutdown,
            cluster: OnceLock::new(),
            asleep: Default::default(),
            alarms: Default::default(),
            loading: Default::default(),
            ended: tokio::sync::broadcast::channel(ENDED_BACKLOG).0,
        };
        Host { ctx: Arc::new(ctx) }
    }

    /// The id of each game that ends on this host from now on (its end durable first): how
    /// tournaments learn their results. A listener that falls more than a backlog behind is told
    /// it lagged, and reads what it missed from the store.
    pub fn ended_games(&self) -> tokio::sync::broadcast::Receiver<Uuid> {
        self.ctx.ended.subscribe()
    }

    pub fn lexicons(&self) -> &Lexicons {
        &self.ctx.lexicons
    }

    /// The review kept with a finished game under `key` (which names its options), if any.
    pub async fn kept_review(&self, id: Uuid, key: String) -> Result<Option<Vec<u8>>, HostError> {
        self.ctx.store.review(id, key).await.map_err(|e| HostError::store("reading a kept review", e))
    }

    /// Keep a finished game's review under `key`, in place of one kept before.
    pub async fn keep_review(&self, id: Uuid, key: String, body: Vec<u8>) -> Result<(), HostError> {
        self.ctx
            .store
            .save_review(id, key, body)
            .wait()
            .await
            .map_err(|e| HostError::store("keeping a review", e))
    }

    /// Run a short piece of CPU work a request waits for (move generation, a board's
    /// cross-sets, a record's replay, a word search) on the work lane, at the lowest priority,
    /// never on the runtime's threads; None if it panicked. Searches with a budget go through
    /// [`Host::admit_search`] instead.
    pub async fn think<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        self.ctx.pool.run(job).await
    }

    /// Run `job` on the work lane when no request's job waits (a game review's turn).
    pub fn think_in_background(&self, job: impl FnOnce() + Send + 'static) {
        self.ctx.pool.spawn_background(job)
    }

    /// Threads on the work lane: how many jobs think at once there.
    pub fn thinking_threads(&self) -> usize {
        self.ctx.pool.workers()
    }

    /// The most threads one search may think on (every slot but one).
    pub fn widest_search(&self) -> usize {
        self.ctx.pool.widest()
    }

    /// Admit an analysis search for `client` (who asks, as the services tell it apart), which
    /// must end by `deadline` if the client gave one; refused when the client already holds
    /// [`Limits::searches_per_client`] searches. See [`SearchTicket`].
    pub fn admit_search(&self, client: &str, deadline: Option<Instant>) -> Result<SearchTicket, HostError> {
        self.ctx.searches.admit(client, deadline)
    }

    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.ctx.metrics
    }

    /// The ids of the stored games `query` names, a page at a time (every replica shares them).
    pub async fn stored_games(
        &self,
        query: dawgref_store::GameQuery,
    ) -> Result<dawgref_store::GamePage, HostError> {
        self.ctx.store.games(query).await.map_err(|e| HostError::store("the games could not be listed", e))
    }

    pub fn limits(&self) -> &Limits {
        &self.ctx.limits
    }

    /// Flips to true on shutdown.
    pub fn shutdown(&self) -> watch::Receiver<bool> {
        self.ctx.shutdown.clone()
    }

    /// Wake sleeping games whose next flag is due, so that it falls on time with nobody
    /// asking (a correspondence game left for days). Checks twice a second; ends on shutdown.
    pub async fn run_alarms(self) {
        let mut shutdown = self.ctx.shutdown.clone();
        loop {
            tokio::select! {
                () = stopped(&mut shutdown) => return,
                () = tokio::time::sleep(Duration::from_millis(500)) => {}
            }
            let now = tokio::time::Instant::now();
            let due: Vec<Uuid> = {
                let alarms = self.ctx.alarms.lock().unwrap_or_else(|e| e.into_inner());
                alarms.iter().take_while(|(at, _)| *at <= now).map(|(_, id)| *id).collect()
            };
            for id in due {
                // Woken where it is served: here, or (among replicas) by its owner's sweep.
                if let Err(e) = self.route(&id.to_string(), true).await {
                    // Moved: another replica woke it (its lease was released), and its alarm is
                    // that replica's now.
                    if !matches!(e, HostError::Moved(_)) {
                        tracing::warn!(game = %id, error = %e, "a sleeping game's alarm could not wake it");
                    }
                    self.ctx.forget_sleep(&id);
                }
            }
        }
    }

    /// The games this host serves that are not over, awake or asleep, whose id, labels and seat
    /// names `keep` accepts, in id order (a sleeping game is judged without waking it).
    pub fn games_in_play(&self, keep: impl Fn(&Uuid, &[(&str, &str)], &[&str]) -> bool) -> Vec<Uuid> {
        let mut ids: Vec<Uuid> = self
            .ctx
            .live
            .ids_where(|id, s| {
                let snapshot = s.snapshot();
                let names: Vec<&str> = snapshot.seats().iter().map(|seat| seat.name()).collect();
                let labels: Vec<(&str, &str)> =
                    snapshot.labels().iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                keep(id, &labels, &names)
            })
            .into_iter()
            .collect();
        ids.extend(
            self.ctx
                .asleep
                .iter()
                .filter(|a| keep(a.key(), &a.listing.labels(), &a.listing.names()))
                .map(|a| *a.key()),
        );
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// What this host holds now: games awake and asleep, searches admitted (for tests and
    /// benchmarks; the metrics say the same to operators).
    pub fn census(&self) -> Census {
        Census {
            live: self.ctx.live.len(),
            asleep: self.ctx.asleep.len(),
            searches: self.ctx.searches.held(),
        }
    }

    /// Where a game is on this host: awake in memory, asleep, or neither.
    pub fn residence(&self, id: &Uuid) -> Residence {
        if self.ctx.live.contains(id) {
            Residence::Live
        } else if self.ctx.asleep.contains_key(id) {
            Residence::Asleep
        } else {
            Residence::Out
        }
    }

    /// After shutdown was signalled: wait (at most `limit`) for every session's task to finish
    /// the operation it is in (a turn being committed is committed and answered) and stop.
    pub async fn wait_for_sessions(&self, limit: Duration) -> bool {
        self.ctx.tasks.close();
        tokio::time::timeout(limit, self.ctx.tasks.wait()).await.is_ok()
    }

    /// After shutdown was signalled: [`Host::wait_for_sessions`], then, among replicas, let
    /// every lease go so that the other replicas take the games at their next call. False when
    /// some task did not stop in time.
    pub async fn drain(&self, limit: Duration) -> bool {
        let stopped = self.wait_for_sessions(limit).await;
        if let Some(cluster) = self.ctx.cluster.get() {
            match cluster.release_all().await {
                Ok(()) => tracing::info!("games handed over"),
                Err(e) => tracing::warn!(error = %e, "leases not released: they lapse instead"),
            }
        }
        stopped
    }

    /// Refuse a new game when the server holds its limit.
    pub fn check_room(&self) -> Result<(), HostError> {
        if self.ctx.live.len() >= self.ctx.limits.max_games {
            return Err(HostError::NoRoom(self.ctx.limits.max_games));
        }
        Ok(())
    }

    /// Hold a new or recovered game's session, if it is live (a game over already stays in the
    /// store only).
    fn hold(&self, session: &Arc<Session>) {
        if !session.snapshot().game().is_over() {
            self.ctx.live.insert(session.id(), session.clone());
        }
    }

    /// Let a game go from memory now (the fuzzer does, once it has replayed a game it played):
    /// its task stops after the operation in hand, and the next call naming it loads it from the
    /// store.
    pub fn let_go(&self, id: Uuid) {
        self.ctx.let_go(id, None, LetGo::Evicted);
    }

    /// Make a new game durable (its record and an empty first log row) before anyone hears of
    /// it, then give it its session (held in memory unless it is over already). `bot_delay_ms`:
    /// the bots' pace (None: the default for its seats); `imported_gcg`: the record it was
    /// imported from, replayed to rebuild it; `tournament`: the tournament round it is made for,
    /// kept in its record. `id`: the caller's, for a create that may be asked again (a
    /// tournament's round: [`HostError::GameExists`] the second time); None: a new one.
    #[allow(clippy::too_many_arguments)]
    pub async fn create(
        &self,
        id: Option<Uuid>,
        game: Game,
        seats: Vec<Seat>,
        bot_delay_ms: Option<u32>,
        imported_gcg: Option<String>,
        labels: Vec<(String, String)>,
        tournament: Option<TournamentLink>,
    ) -> Result<Arc<Session>, HostError> {
        let id = id.unwrap_or_else(Uuid::new_v4);
        let created = recovery::unix_ms();
        let record = GameRecord {
            seats: seats.iter().map(Seat::record).collect(),
            bot_delay_ms,
            imported_gcg: imported_gcg.unwrap_or_default(),
            labels: labels
                .iter()
                .map(|(key, value)| Label { key: key.clone(), value: value.clone() })
                .collect(),
            created_unix_ms: created,
            tournament: tournament.as_ref().map(TournamentLink::record),
            ..GameRecord::new(game.config())
        };
        let delay = bot_delay_ms.unwrap_or_else(|| default_bot_delay_ms(&seats));
        let first = Batch { steps: Vec::new(), done: None, unix_ms: created };
        let started = Instant::now();
        self.ctx
            .store
            .create(id, created, record.to_bytes(), first.to_bytes(), game.is_over(), labels.clone())
            .wait()
            .await
            .map_err(|e| match e {
                StoreError::Conflict { game, seq: 0 } => HostError::GameExists(game.to_string()),
                e => HostError::store("the game could not be stored", e),
            })?;
        self.ctx.metrics.commit.observe(started.elapsed().as_secs_f64());
        let core =
            Core::new(game, seats, Remembered::new(), 1).with_labels(labels).with_tournament(tournament);
        let session = actor::start(&self.ctx, id, 0, core, delay);
        self.hold(&session);
        Ok(session)
    }

    /// The GCG record a stored game was imported from (None: a game begun on the server).
    pub async fn imported_record(&self, id: Uuid) -> Result<Option<String>, HostError> {
        let shown = dawgref_engine::text::clip(&id.to_string());
        let stored = self
            .ctx
            .store
            .load(id)
            .await
            .map_err(|e| HostError::store(format!("loading game {shown}"), e))?
            .ok_or(HostError::NoGame(shown.clone()))?;
        let record = GameRecord::decode_bytes(&stored.record).map_err(|reason| HostError::Unreplayable {
            id: shown,
            reason,
            quarantined: false,
        })?;
        Ok((!record.imported_gcg.is_empty()).then_some(record.imported_gcg))
    }

    /// Load every unfinished game from the store, quarantining those that cannot be replayed.
    /// Each becomes a session through the same constructor as a new game: its task re-arms the
    /// clock's timer and sets the bots whose turn it is thinking.
    pub async fn recover(&self) -> Result<RecoveryReport, StoreError> {
        let started = Instant::now();
        let games = self.ctx.store.unfinished().await?;
        let ctx = self.ctx.clone();
        // Replaying every log is CPU work: it runs on the pool.
        let replayed = self
            .ctx
            .pool
            .run(move || games.iter().map(|g| (g.id, replay(&ctx.lexicons, g))).collect::<Vec<_>>())
            .await
            .ok_or_else(|| StoreError::Io("recovery task failed".into()))?;
        let mut report = RecoveryReport::default();
        for (id, result) in replayed {
            match result {
                Ok(Replayed { core, last_ms, bot_delay_ms }) => {
                    self.hold(&actor::start(&self.ctx, id, last_ms, core, bot_delay_ms));
                    report.loaded += 1;
                }
                Err(reason) => {
                    tracing::error!(game = %id, %reason, "game quarantined: its log cannot be replayed");
                    self.ctx.store.quarantine(id, &reason).wait().await?;
                    report.quarantined.push((id, reason));
                }
            }
        }
        self.ctx.metrics.quarantined.set(report.quarantined.len() as i64);
        report.elapsed = started.elapsed();
        Ok(report)
    }
}

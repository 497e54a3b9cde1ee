//! The replicated store: PostgreSQL through tokio-postgres, for several replicas sharing games.
//! Same contract as [`super::SqliteStore`] (a write resolves once committed; one writer task
//! commits every waiting write in one transaction, its statements pipelined on one connection),
//! plus the leases that give each live game exactly one owner.
//!
//! **Leases.** `leases(game, owner, epoch)` names the replica that owns a live game;
//! `replicas(id, addr, expires)` is each replica's heartbeat. A lease is valid while its owner's
//! heartbeat has not expired, so one heartbeat renews every lease of a replica at once. A lease
//! is taken over (owner changed, epoch + 1) only when its owner's heartbeat has expired.
//!
//! **Sleeping games.** A game that leaves its owner's memory after an idle spell is released:
//! its lease row keeps no owner but the game clock's reading and the moment it fell asleep
//! (`slept_ms`, `slept_at`) and, when a flag falls while it sleeps, `wake_at`. Any replica may
//! claim it (the claim answers the clock's reading now, as if the game never slept); the orphan
//! sweep takes a released game only once its `wake_at` is due.
//!
//! **Hand-over.** An owner may give a game's lease to a named live replica (`hand_over`): the
//! row gets the new owner and the next epoch, so an append of the old owner still in flight
//! inserts nothing, and the new owner's claim (already its own) reads the whole log.
//!
//! **Fencing.** Every log row is inserted by one statement that first locks the game's lease
//! row (`FOR SHARE`) and finds it still held by this replica at the epoch it claimed. A takeover
//! updates that row, so it waits for any append in flight to commit and then reads the log
//! with that row in it; an append that starts after the takeover finds another epoch and
//! inserts nothing. A replica that lost a game (paused, cut off) can never write to it again.
//!
//! Schema migrations run at start inside one transaction under an advisory lock, so replicas
//! starting together apply each migration once.
//!
//! Its parts: the store itself here (its pool, replica and writer queue); `schema`, the
//! migrations; `writer`, the writer task and what each write runs; `game_store`, the trait's
//! doors; `tournaments`, a tournament's rows; `lobby`, the bots' lobby's rows; `review_jobs`, the
//! review jobs' rows and their claims; `leases`, the leases and the replicas' heartbeats.

mod game_store;
mod leases;
mod lobby;
mod review_jobs;
mod schema;
mod tournaments;
mod writer;

use super::StoreError;
use super::queue::{self, Queue};
use dashmap::DashMap;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use std::str::FromStr;
use std::time::Duration;
use tokio_postgres::NoTls;
use uuid::Uuid;
use writer::{Job, write_loop};

/// Most writes committed in one transaction.
const MAX_GROUP: usize = 1024;

/// How long one statement or transaction may take before the store calls PostgreSQL unavailable.
const STATEMENT_TIMEOUT: Duration = Duration::from_secs(5);

/// This replica's identity in the store.
#[derive(Clone, Debug)]
pub struct Replica {
    /// Unique per process: a restarted replica is a new owner.
    pub id: Uuid,
    /// Where other replicas forward calls for this replica's games.
    pub addr: String,
    /// A heartbeat older than this lets others take the replica's games.
    pub lease: Duration,
}

pub struct PgStore {
    pool: Pool,
    writes: Queue<Job>,
    replica: Replica,
    /// Games whose lease this replica holds, with the epoch its appends must carry.
    epochs: DashMap<Uuid, i64>,
    /// Released games this replica claimed: their clock's reading at the claim, and when.
    slept: DashMap<Uuid, (u64, std::time::Instant)>,
    /// The replicas' shared secret (see [`PgStore::secret`]); read at start.
    secret: String,
}

fn unavailable(e: impl std::fmt::Display) -> StoreError {
    StoreError::Unavailable(format!("PostgreSQL: {e}"))
}

fn config(url: &str) -> Result<tokio_postgres::Config, StoreError> {
    let mut config = tokio_postgres::Config::from_str(url)
        .map_err(|e| StoreError::Io(format!("bad --database-url: {e}")))?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(2));
    }
    config.application_name("dawgref");
    Ok(config)
}

async fn timed<T>(
    what: impl std::future::Future<Output = Result<T, tokio_postgres::Error>>,
) -> Result<T, StoreError> {
    match tokio::time::timeout(STATEMENT_TIMEOUT, what).await {
        Ok(r) => r.map_err(unavailable),
        Err(_) => Err(unavailable(format!("no answer within {} s", STATEMENT_TIMEOUT.as_secs()))),
    }
}

impl PgStore {
    /// Connect, migrate the schema, register this replica's heartbeat and start the writer.
    /// Must be called inside a tokio runtime, which the store keeps using.
    pub async fn open(url: &str, replica: Replica) -> Result<PgStore, StoreError> {
        let pg = config(url)?;
        let manager = Manager::from_config(
            pg.clone(),
            NoTls,
            ManagerConfig { recycling_method: RecyclingMethod::Fast },
        );
        let pool = Pool::builder(manager)
            .max_size(16)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(STATEMENT_TIMEOUT))
            .create_timeout(Some(STATEMENT_TIMEOUT))
            .build()
            .map_err(|e| StoreError::Io(format!("PostgreSQL pool: {e}")))?;
        let (writes, groups) = queue::queue(MAX_GROUP);
        let mut store = PgStore {
            pool,
            writes,
            replica,
            epochs: DashMap::new(),
            slept: DashMap::new(),
            secret: String::new(),
        };
        store.migrate().await?;
        let client = store.client().await?;
        store.secret = timed(client.query_one("SELECT secret FROM cluster_secret", &[])).await?.get(0);
        drop(client);
        store.heartbeat().await?;
        tokio::spawn(write_loop(pg, groups));
        Ok(store)
    }

    pub fn replica(&self) -> &Replica {
        &self.replica
    }

    /// The secret every replica of this database shares, and nobody else knows: a call one
    /// replica forwards to another carries it, so that a client cannot pass its own call off
    /// as forwarded.
    pub fn secret(&self) -> &str {
        &self.secret
    }

    async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        self.pool.get().await.map_err(unavailable)
    }

    /// Stop taking writes; those queued still commit.
    pub fn close(&self) {
        self.writes.close();
    }
}

impl Drop for PgStore {
    fn drop(&mut self) {
        self.close();
    }
}

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

use super::queue::{self, Group, Groups, Queue};
use super::{
    DirectorKey, GamePage, GameQuery, GameState, GameStore, Labels, Pending, Reading, StoreError,
    StoredBroadcast, StoredGame, StoredTournament, TOURNAMENT_ANSWERS_KEPT, TournamentChange,
};
use crate::lease::{Claim, LeaseFuture, Leases};
use dashmap::DashMap;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use std::str::FromStr;
use std::time::Duration;
use tokio_postgres::NoTls;
use uuid::Uuid;

/// Most writes committed in one transaction.
const MAX_GROUP: usize = 1024;

/// How long one statement or transaction may take before the store calls PostgreSQL unavailable.
const STATEMENT_TIMEOUT: Duration = Duration::from_secs(5);

/// The schema, one migration per entry; `schema_version` counts those applied.
const MIGRATIONS: &[&str] = &[
    "
CREATE TABLE games (
    id          uuid PRIMARY KEY,
    created_ms  bigint NOT NULL,
    record      bytea NOT NULL,
    finished    boolean NOT NULL DEFAULT false,
    quarantined text
);
CREATE INDEX games_open ON games (created_ms) WHERE NOT finished AND quarantined IS NULL;
CREATE TABLE log (
    game uuid NOT NULL,
    seq  bigint NOT NULL,
    body bytea NOT NULL,
    PRIMARY KEY (game, seq)
);
CREATE TABLE replicas (
    id      uuid PRIMARY KEY,
    addr    text NOT NULL,
    started timestamptz NOT NULL DEFAULT clock_timestamp(),
    expires timestamptz NOT NULL
);
CREATE TABLE leases (
    game  uuid PRIMARY KEY,
    owner uuid NOT NULL,
    epoch bigint NOT NULL
);
CREATE INDEX leases_owner ON leases (owner);
",
    "
CREATE TABLE labels (
    game  uuid NOT NULL,
    key   text NOT NULL,
    value text NOT NULL,
    PRIMARY KEY (game, key)
);
CREATE INDEX labels_by_value ON labels (key, value, game);
",
    "
CREATE TABLE reviews (
    game uuid NOT NULL,
    key  text NOT NULL,
    body bytea NOT NULL,
    PRIMARY KEY (game, key)
);
",
    "
ALTER TABLE leases ALTER COLUMN owner DROP NOT NULL;
ALTER TABLE leases ADD COLUMN slept_ms bigint, ADD COLUMN slept_at timestamptz, ADD COLUMN wake_at timestamptz;
CREATE INDEX leases_wake ON leases (wake_at) WHERE owner IS NULL;
",
    // The replicas' shared secret: a forwarded call proves with it that a replica sent it.
    // gen_random_uuid (PostgreSQL 13+) draws from the server's strong random source.
    "
CREATE TABLE cluster_secret (one boolean PRIMARY KEY DEFAULT true CHECK (one), secret text NOT NULL);
INSERT INTO cluster_secret (secret) VALUES (replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
",
    // Director keys: a token's hash, never the token; labels as `key=value` lines.
    "
CREATE TABLE director_keys (
    name       text PRIMARY KEY,
    token_hash bytea NOT NULL,
    labels     text NOT NULL,
    created_ms bigint NOT NULL,
    revoked_ms bigint
);
",
    // Tournaments: each state's body, its version checked (one writer at a time).
    "
CREATE TABLE tournaments (
    slug    text PRIMARY KEY,
    version bigint NOT NULL,
    body    bytea NOT NULL
);
",
    // A tournament's events and kept answers: rows of their own, each written once.
    "
CREATE TABLE tournament_events (
    slug   text NOT NULL,
    number bigint NOT NULL,
    body   bytea NOT NULL,
    PRIMARY KEY (slug, number)
);
CREATE TABLE tournament_answers (
    slug    text NOT NULL,
    key     text NOT NULL,
    version bigint NOT NULL,
    body    bytea NOT NULL,
    PRIMARY KEY (slug, key)
);
CREATE INDEX tournament_answers_by_version ON tournament_answers (slug, version);
",
    // Broadcasts: each written whole, its version checked.
    "
CREATE TABLE broadcasts (
    slug    text PRIMARY KEY,
    version bigint NOT NULL,
    body    bytea NOT NULL
);
",
    // A tournament's state in parts beside its body: a change writes the parts it changed.
    "
CREATE TABLE tournament_parts (
    slug text NOT NULL,
    key  text NOT NULL,
    body bytea NOT NULL,
    PRIMARY KEY (slug, key)
);
",
];

/// A tournament and its parts, read in one statement (one snapshot: a part is never of another
/// version than the state): a row per part, or one with no part.
const TOURNAMENT_WITH_PARTS: &str = "SELECT t.slug, t.version, t.body, p.key, p.body FROM tournaments t
     LEFT JOIN tournament_parts p ON p.slug = t.slug WHERE t.slug = $1 ORDER BY p.key COLLATE \"C\"";
const TOURNAMENTS_WITH_PARTS: &str = "SELECT t.slug, t.version, t.body, p.key, p.body FROM tournaments t
     LEFT JOIN tournament_parts p ON p.slug = t.slug ORDER BY t.slug COLLATE \"C\", p.key COLLATE \"C\"";

/// Rows of [`TOURNAMENT_WITH_PARTS`] by slug as tournaments with their parts.
fn with_parts(rows: &[tokio_postgres::Row]) -> Vec<StoredTournament> {
    let mut all: Vec<StoredTournament> = Vec::new();
    for r in rows {
        let slug: String = r.get(0);
        if all.last().is_none_or(|last| last.slug != slug) {
            all.push(StoredTournament {
                slug,
                version: r.get::<_, i64>(1) as u64,
                body: r.get(2),
                parts: Vec::new(),
            });
        }
        if let (Some(last), Some(key)) = (all.last_mut(), r.get::<_, Option<String>>(3)) {
            last.parts.push((key, r.get(4)));
        }
    }
    all
}

/// A lease row is this replica's at `epoch`.
const APPEND: &str = "
WITH lease AS (SELECT 1 FROM leases WHERE game = $1 AND owner = $2 AND epoch = $3 FOR SHARE)
INSERT INTO log (game, seq, body) SELECT $1, $4, $5 FROM lease ON CONFLICT DO NOTHING";

/// Take a live game's lease: new, already ours, released (a sleeping game), or its owner's
/// heartbeat expired. The epoch goes up even when the lease was ours already (a session let go,
/// then loaded again), so that a write of the old session still in doubt can never land after
/// the new one read the log. The second column says whether another replica held it; the third
/// is a released game's clock reading now (its reading when it fell asleep, plus the time since).
const CLAIM: &str = "
WITH prev AS (
    SELECT owner,
           slept_ms + (extract(epoch FROM clock_timestamp() - slept_at) * 1000)::bigint AS now_ms
    FROM leases WHERE game = $1
)
INSERT INTO leases (game, owner, epoch)
SELECT $1, $2, 1 WHERE EXISTS (SELECT 1 FROM games WHERE id = $1 AND NOT finished AND quarantined IS NULL)
ON CONFLICT (game) DO UPDATE
    SET owner = EXCLUDED.owner, epoch = leases.epoch + 1, slept_ms = NULL, slept_at = NULL, wake_at = NULL
WHERE leases.owner = EXCLUDED.owner
   OR leases.owner IS NULL
   OR NOT EXISTS (SELECT 1 FROM replicas r WHERE r.id = leases.owner AND r.expires > clock_timestamp())
RETURNING epoch, COALESCE((SELECT owner <> $2 FROM prev), false), (SELECT now_ms FROM prev)";

/// Let a sleeping game's lease go, keeping its clock's reading and when its next flag falls.
const RELEASE: &str = "
UPDATE leases SET owner = NULL, slept_ms = $4, slept_at = clock_timestamp(),
    wake_at = clock_timestamp() + $5::float8 * interval '1 millisecond'
WHERE game = $1 AND owner = $2 AND epoch = $3";

/// Give a game's lease to the live replica that answers at `$4`, at the next epoch.
const HAND_OVER: &str = "
UPDATE leases SET owner = r.id, epoch = leases.epoch + 1
FROM (SELECT id FROM replicas WHERE addr = $4 AND id <> $2 AND expires > clock_timestamp()
      ORDER BY expires DESC LIMIT 1) r
WHERE leases.game = $1 AND leases.owner = $2 AND leases.epoch = $3";

/// Who holds a game's lease, and whether that replica's heartbeat is current.
const OWNER: &str = "
SELECT r.addr, r.expires > clock_timestamp() FROM leases l JOIN replicas r ON r.id = l.owner WHERE l.game = $1";

enum Job {
    /// `owner`: the replica that takes the new game's lease (none for a game over already).
    Create {
        id: Uuid,
        created: u64,
        record: Vec<u8>,
        first: Vec<u8>,
        owner: Option<Uuid>,
        labels: Labels,
    },
    Append {
        id: Uuid,
        seq: u64,
        row: Vec<u8>,
        finished: bool,
        owner: Uuid,
        epoch: i64,
    },
    Quarantine {
        id: Uuid,
        reason: String,
    },
    Review {
        id: Uuid,
        key: String,
        body: Vec<u8>,
    },
    AddKey(DirectorKey),
    Tournament(TournamentChange),
    Broadcast(StoredBroadcast),
    RevokeKey {
        name: String,
        at: u64,
    },
}

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

    async fn migrate(&self) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = timed(client.transaction()).await?;
        timed(tx.execute("SELECT pg_advisory_xact_lock(7210388)", &[])).await?;
        timed(tx.batch_execute("CREATE TABLE IF NOT EXISTS schema_version (version int NOT NULL)")).await?;
        let version: i32 = match timed(tx.query_opt("SELECT version FROM schema_version", &[])).await? {
            Some(row) => row.get(0),
            None => {
                timed(tx.execute("INSERT INTO schema_version VALUES (0)", &[])).await?;
                0
            }
        };
        if version as usize > MIGRATIONS.len() {
            return Err(StoreError::Io(format!(
                "the database has schema version {version}; this build knows {}",
                MIGRATIONS.len()
            )));
        }
        for m in &MIGRATIONS[version as usize..] {
            timed(tx.batch_execute(m)).await?;
        }
        timed(tx.execute("UPDATE schema_version SET version = $1", &[&(MIGRATIONS.len() as i32)])).await?;
        timed(tx.commit()).await
    }

    /// Renew this replica's heartbeat (every lease it holds), then answer the games it still
    /// owns. Games it held that are no longer its own (taken over while it was cut off) are
    /// dropped from its epochs and returned as lost.
    pub async fn heartbeat(&self) -> Result<Vec<Uuid>, StoreError> {
        let client = self.client().await?;
        let ms = self.replica.lease.as_millis() as f64;
        timed(client.execute(
            "INSERT INTO replicas (id, addr, expires) VALUES ($1, $2, clock_timestamp() + $3::float8 * interval '1 millisecond')
             ON CONFLICT (id) DO UPDATE SET addr = EXCLUDED.addr, expires = EXCLUDED.expires
             WHERE replicas.expires > '-infinity'",
            &[&self.replica.id, &self.replica.addr, &ms],
        ))
        .await?;
        let rows =
            timed(client.query("SELECT game, epoch FROM leases WHERE owner = $1", &[&self.replica.id]))
                .await?;
        let held: std::collections::HashMap<Uuid, i64> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
        let mut lost = Vec::new();
        self.epochs.retain(|game, epoch| {
            let kept = held.get(game) == Some(epoch);
            if !kept {
                lost.push(*game);
            }
            kept
        });
        Ok(lost)
    }

    /// Take the game's lease if it is free, ours, or its owner is gone (then the log must be
    /// read after this returns: it holds every row the old owner wrote).
    pub async fn claim(&self, game: Uuid) -> Result<Claim, StoreError> {
        let client = self.client().await?;
        if let Some(row) = timed(client.query_opt(CLAIM, &[&game, &self.replica.id])).await? {
            self.epochs.insert(game, row.get(0));
            match row.get::<_, Option<i64>>(2) {
                Some(ms) => {
                    self.slept.insert(game, (ms.max(0) as u64, std::time::Instant::now()));
                }
                None => {
                    self.slept.remove(&game);
                }
            }
            return Ok(if row.get::<_, bool>(1) { Claim::TakenOver } else { Claim::Mine });
        }
        self.epochs.remove(&game);
        Ok(match timed(client.query_opt(OWNER, &[&game])).await? {
            Some(row) if row.get::<_, bool>(1) => Claim::Other(row.get(0)),
            // Its owner's heartbeat lapsed between the two statements: ask again.
            Some(_) => return Err(StoreError::Unavailable(format!("game {game} is changing owner"))),
            None => Claim::NotLive,
        })
    }

    /// Whether this replica holds the game's lease (as of its last claim or heartbeat).
    pub fn holds(&self, game: &Uuid) -> bool {
        self.epochs.contains_key(game)
    }

    /// The epoch of this replica's lease on the game (above 1: the game changed owner before).
    pub fn epoch(&self, game: &Uuid) -> Option<i64> {
        self.epochs.get(game).map(|e| *e)
    }

    /// Leases this replica holds.
    pub fn leases_held(&self) -> usize {
        self.epochs.len()
    }

    /// Forget a game's lease locally (its session left memory); the row stays until another
    /// replica takes it over, which it may once this replica's heartbeat ends.
    pub fn forget(&self, game: &Uuid) {
        self.epochs.remove(game);
    }

    /// A released game this replica claimed: its clock's reading now, as if it never slept
    /// (asked once, by the load that follows the claim).
    pub fn take_slept(&self, game: &Uuid) -> Option<u64> {
        let (_, (ms, at)) = self.slept.remove(game)?;
        Some(ms.saturating_add(at.elapsed().as_millis() as u64))
    }

    /// Let the lease of a game that fell asleep go, so that any replica may wake it: the row
    /// keeps the clock's reading `game_ms` and, when a flag falls while it sleeps, `wake_in`
    /// from now. False when this replica no longer held it.
    pub async fn release(
        &self,
        game: Uuid,
        game_ms: u64,
        wake_in: Option<Duration>,
    ) -> Result<bool, StoreError> {
        let Some(epoch) = self.epoch(&game) else { return Ok(false) };
        let client = self.client().await?;
        let wake = wake_in.map(|d| d.as_millis() as f64);
        let n = timed(client.execute(
            RELEASE,
            &[&game, &self.replica.id, &epoch, &(game_ms.min(i64::MAX as u64) as i64), &wake],
        ))
        .await?;
        self.epochs.remove(&game);
        Ok(n == 1)
    }

    /// Give the game's lease to the live replica at `addr` (its session here has stopped).
    /// False when this replica no longer held it or no live replica answers there; either way
    /// this replica holds it no more.
    pub async fn hand_over(&self, game: Uuid, addr: &str) -> Result<bool, StoreError> {
        let Some(epoch) = self.epoch(&game) else { return Ok(false) };
        let client = self.client().await?;
        let n = timed(client.execute(HAND_OVER, &[&game, &self.replica.id, &epoch, &addr])).await?;
        self.epochs.remove(&game);
        Ok(n == 1)
    }

    /// Hand every game over: end this replica's heartbeat, so others may take its leases at once.
    pub async fn release_all(&self) -> Result<(), StoreError> {
        let client = self.client().await?;
        timed(client.execute("UPDATE replicas SET expires = '-infinity' WHERE id = $1", &[&self.replica.id]))
            .await?;
        self.epochs.clear();
        Ok(())
    }

    /// The advertised addresses of the other replicas whose heartbeat is current, in order.
    pub async fn live_peers(&self) -> Result<Vec<String>, StoreError> {
        let client = self.client().await?;
        let rows = timed(client.query(
            "SELECT DISTINCT addr FROM replicas WHERE id <> $1 AND addr <> $2 AND expires > clock_timestamp()
             ORDER BY addr",
            &[&self.replica.id, &self.replica.addr],
        ))
        .await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// Games whose owner's heartbeat ended more than `grace` ago (nobody makes their clocks fall
    /// or their bots move until a replica takes them over), and released games whose next flag
    /// is due.
    pub async fn orphans(&self, grace: Duration, limit: i64) -> Result<Vec<Uuid>, StoreError> {
        let client = self.client().await?;
        let ms = grace.as_millis() as f64;
        let rows = timed(client.query(
            "SELECT l.game FROM leases l LEFT JOIN replicas r ON r.id = l.owner
             WHERE (l.owner IS NOT NULL
                    AND (r.id IS NULL OR r.expires < clock_timestamp() - $1::float8 * interval '1 millisecond'))
                OR (l.owner IS NULL AND l.wake_at <= clock_timestamp())
             LIMIT $2",
            &[&ms, &limit],
        ))
        .await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// Stop taking writes; those queued still commit.
    pub fn close(&self) {
        self.writes.close();
    }

    async fn load_async(&self, id: Uuid) -> Result<Option<StoredGame>, StoreError> {
        let client = self.client().await?;
        let Some(head) =
            timed(client.query_opt("SELECT record, finished, quarantined FROM games WHERE id = $1", &[&id]))
                .await?
        else {
            return Ok(None);
        };
        let rows =
            timed(client.query("SELECT seq, body FROM log WHERE game = $1 ORDER BY seq", &[&id])).await?;
        let log = rows.iter().map(|r| (r.get::<_, i64>(0) as u64, r.get::<_, Vec<u8>>(1))).collect();
        Ok(Some(StoredGame { id, record: head.get(0), log, finished: head.get(1), quarantined: head.get(2) }))
    }

    async fn unfinished_async(&self) -> Result<Vec<StoredGame>, StoreError> {
        let mut ids: Vec<Uuid> = self.epochs.iter().map(|e| *e.key()).collect();
        ids.extend(self.orphans(Duration::ZERO, 100_000).await?);
        ids.sort_unstable();
        ids.dedup();
        let mut games = Vec::new();
        for id in ids {
            if matches!(self.claim(id).await?, Claim::Mine | Claim::TakenOver)
                && let Some(g) = self.load_async(id).await?
            {
                games.push(g);
            }
        }
        Ok(games)
    }
}

impl Drop for PgStore {
    fn drop(&mut self) {
        self.close();
    }
}

/// The writer task: a connection of its own; take what is waiting, run it in one transaction
/// (statements pipelined), commit once, answer everyone. A broken connection fails the group
/// and is replaced for the next one.
async fn write_loop(config: tokio_postgres::Config, mut groups: Groups<Job>) {
    let mut client: Option<tokio_postgres::Client> = None;
    while let Some(group) = groups.next().await {
        if client.as_ref().is_none_or(|c| c.is_closed()) {
            client = connect(&config)
                .await
                .map_err(|e| tracing::warn!(error = %e, "store writer cannot connect"))
                .ok();
        }
        match client.as_mut() {
            Some(c) => match tokio::time::timeout(STATEMENT_TIMEOUT, commit(c, &group)).await {
                Ok(Ok(results)) => group.answer(results),
                Ok(Err(e)) => group.fail(unavailable(e)),
                Err(_) => {
                    // The connection may be mid-transaction: start afresh next time.
                    client = None;
                    group.fail(unavailable("the commit took too long"));
                }
            },
            None => group.fail(unavailable("cannot connect")),
        }
    }
}

async fn connect(config: &tokio_postgres::Config) -> Result<tokio_postgres::Client, StoreError> {
    let (client, connection) = config.connect(NoTls).await.map_err(unavailable)?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::warn!(error = %e, "store writer's connection ended");
        }
    });
    Ok(client)
}

/// One transaction for the group. A job's own failure (a duplicate row, a lost lease) fails only
/// that job: statements are written so that they never raise, and the others still commit.
async fn commit(
    client: &mut tokio_postgres::Client,
    group: &Group<Job>,
) -> Result<Vec<Result<(), StoreError>>, tokio_postgres::Error> {
    let tx = client.transaction().await?;
    let results = futures_util::future::join_all(group.jobs().map(|job| run(&tx, job))).await;
    let results = results.into_iter().collect::<Result<Vec<_>, _>>()?;
    tx.commit().await?;
    Ok(results)
}

async fn run(
    tx: &tokio_postgres::Transaction<'_>,
    job: &Job,
) -> Result<Result<(), StoreError>, tokio_postgres::Error> {
    match job {
        Job::Create { id, created, record, first, owner, labels } => {
            let finished = owner.is_none();
            let n = tx
                .execute(
                    "INSERT INTO games (id, created_ms, record, finished) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                    &[id, &(*created as i64), record, &finished],
                )
                .await?;
            if n == 0 {
                return Ok(Err(StoreError::Conflict { game: *id, seq: 0 }));
            }
            tx.execute("INSERT INTO log (game, seq, body) VALUES ($1, 0, $2)", &[id, first]).await?;
            for (k, v) in labels {
                tx.execute("INSERT INTO labels (game, key, value) VALUES ($1, $2, $3)", &[id, k, v]).await?;
            }
            if let Some(owner) = owner {
                tx.execute(
                    "INSERT INTO leases (game, owner, epoch) VALUES ($1, $2, 1) ON CONFLICT DO NOTHING",
                    &[id, owner],
                )
                .await?;
            }
            Ok(Ok(()))
        }
        Job::Append { id, seq, row, finished, owner, epoch } => {
            let n = tx.execute(APPEND, &[id, owner, epoch, &(*seq as i64), row]).await?;
            if n == 0 {
                let held = tx
                    .query_opt(
                        "SELECT 1 FROM leases WHERE game = $1 AND owner = $2 AND epoch = $3",
                        &[id, owner, epoch],
                    )
                    .await?;
                return Ok(Err(match held {
                    Some(_) => StoreError::Conflict { game: *id, seq: *seq },
                    None => StoreError::Fenced(*id),
                }));
            }
            if *finished {
                tx.execute("UPDATE games SET finished = true WHERE id = $1", &[id]).await?;
                tx.execute("DELETE FROM leases WHERE game = $1", &[id]).await?;
            }
            Ok(Ok(()))
        }
        Job::Quarantine { id, reason } => {
            let n = tx.execute("UPDATE games SET quarantined = $2 WHERE id = $1", &[id, reason]).await?;
            if n > 0 {
                tx.execute("DELETE FROM leases WHERE game = $1", &[id]).await?;
            }
            Ok(if n == 0 { Err(StoreError::NoGame(*id)) } else { Ok(()) })
        }
        Job::Review { id, key, body } => {
            let n = tx
                .execute(
                    "INSERT INTO reviews (game, key, body) SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM games WHERE id = $1) \
                     ON CONFLICT (game, key) DO UPDATE SET body = EXCLUDED.body",
                    &[id, key, body],
                )
                .await?;
            Ok(if n == 0 { Err(StoreError::NoGame(*id)) } else { Ok(()) })
        }
        Job::AddKey(key) => {
            let n = tx
                .execute(
                    "INSERT INTO director_keys (name, token_hash, labels, created_ms) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT DO NOTHING",
                    &[&key.name, &key.token_hash.as_slice(), &super::labels_text(&key.labels), &(key.created_unix_ms as i64)],
                )
                .await?;
            Ok(if n == 0 { Err(StoreError::KeyExists(key.name.clone())) } else { Ok(()) })
        }
        Job::RevokeKey { name, at } => {
            let n = tx
                .execute(
                    "UPDATE director_keys SET revoked_ms = COALESCE(revoked_ms, $2) WHERE name = $1",
                    &[name, &(*at as i64)],
                )
                .await?;
            Ok(if n == 0 { Err(StoreError::NoKey(name.clone())) } else { Ok(()) })
        }
        Job::Tournament(change) => {
            let t = &change.tournament;
            let n = if t.version == 1 {
                tx.execute(
                    "INSERT INTO tournaments (slug, version, body) VALUES ($1, 1, $2) ON CONFLICT DO NOTHING",
                    &[&t.slug, &t.body],
                )
                .await?
            } else {
                tx.execute(
                    "UPDATE tournaments SET version = $2::bigint, body = $3 WHERE slug = $1 AND version = $2::bigint - 1",
                    &[&t.slug, &(t.version as i64), &t.body],
                )
                .await?
            };
            if n == 0 {
                return Ok(Err(StoreError::Stale(t.slug.clone())));
            }
            for (key, body) in &t.parts {
                tx.execute(
                    "INSERT INTO tournament_parts (slug, key, body) VALUES ($1, $2, $3)
                     ON CONFLICT (slug, key) DO UPDATE SET body = EXCLUDED.body",
                    &[&t.slug, key, body],
                )
                .await?;
            }
            // The version written is this writer's alone, so its events' numbers are too.
            for (number, body) in &change.events {
                tx.execute(
                    "INSERT INTO tournament_events (slug, number, body) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                    &[&t.slug, &(*number as i64), body],
                )
                .await?;
            }
            for (key, body) in &change.answers {
                tx.execute(
                    "INSERT INTO tournament_answers (slug, key, version, body) VALUES ($1, $2, $3, $4)
                     ON CONFLICT (slug, key) DO UPDATE SET version = EXCLUDED.version, body = EXCLUDED.body",
                    &[&t.slug, key, &(t.version as i64), body],
                )
                .await?;
            }
            if t.version > TOURNAMENT_ANSWERS_KEPT {
                tx.execute(
                    "DELETE FROM tournament_answers WHERE slug = $1 AND version <= $2",
                    &[&t.slug, &((t.version - TOURNAMENT_ANSWERS_KEPT) as i64)],
                )
                .await?;
            }
            Ok(Ok(()))
        }
        Job::Broadcast(b) => {
            let n = if b.version == 1 {
                tx.execute(
                    "INSERT INTO broadcasts (slug, version, body) VALUES ($1, 1, $2) ON CONFLICT DO NOTHING",
                    &[&b.slug, &b.body],
                )
                .await?
            } else {
                tx.execute(
                    "UPDATE broadcasts SET version = $2::bigint, body = $3 WHERE slug = $1 AND version = $2::bigint - 1",
                    &[&b.slug, &(b.version as i64), &b.body],
                )
                .await?
            };
            Ok(if n == 0 { Err(StoreError::BroadcastStale(b.slug.clone())) } else { Ok(()) })
        }
    }
}

impl GameStore for PgStore {
    fn create(
        &self,
        id: Uuid,
        created: u64,
        record: Vec<u8>,
        first: Vec<u8>,
        finished: bool,
        labels: Labels,
    ) -> Pending {
        let owner = (!finished).then_some(self.replica.id);
        if owner.is_some() {
            // The lease is written with the game: epoch 1.
            self.epochs.insert(id, 1);
        }
        self.writes.submit(Job::Create { id, created, record, first, owner, labels })
    }

    fn append(&self, id: Uuid, seq: u64, row: Vec<u8>, finished: bool) -> Pending {
        let Some(epoch) = self.epochs.get(&id).map(|e| *e) else {
            return Pending::ready(Err(StoreError::Fenced(id)));
        };
        if finished {
            self.epochs.remove(&id);
        }
        self.writes.submit(Job::Append { id, seq, row, finished, owner: self.replica.id, epoch })
    }

    fn quarantine(&self, id: Uuid, reason: &str) -> Pending {
        self.epochs.remove(&id);
        self.writes.submit(Job::Quarantine { id, reason: reason.to_string() })
    }

    /// The unfinished games this replica holds and those whose owner is gone, now claimed (a
    /// game another replica serves stays with it).
    fn unfinished(&self) -> Reading<'_, Vec<StoredGame>> {
        Box::pin(self.unfinished_async())
    }

    fn load(&self, id: Uuid) -> Reading<'_, Option<StoredGame>> {
        Box::pin(self.load_async(id))
    }

    fn games(&self, query: GameQuery) -> Reading<'_, GamePage> {
        Box::pin(self.games_async(query))
    }

    fn save_review(&self, id: Uuid, key: String, body: Vec<u8>) -> Pending {
        self.writes.submit(Job::Review { id, key, body })
    }

    fn add_director_key(&self, key: DirectorKey) -> Pending {
        self.writes.submit(Job::AddKey(key))
    }

    fn revoke_director_key(&self, name: String, at_unix_ms: u64) -> Pending {
        self.writes.submit(Job::RevokeKey { name, at: at_unix_ms })
    }

    fn director_keys(&self) -> Reading<'_, Vec<DirectorKey>> {
        Box::pin(async move {
            let client = self.client().await?;
            let rows = timed(client.query(
                "SELECT name, token_hash, labels, created_ms, revoked_ms FROM director_keys ORDER BY name",
                &[],
            ))
            .await?;
            rows.iter()
                .map(|r| DirectorKey::from_row((r.get(0), r.get(1), r.get(2), r.get(3), r.get(4))))
                .collect()
        })
    }

    fn put_tournament(&self, change: TournamentChange) -> Pending {
        self.writes.submit(Job::Tournament(change))
    }

    fn tournament(&self, slug: String) -> Reading<'_, Option<StoredTournament>> {
        Box::pin(async move {
            let client = self.client().await?;
            let rows = timed(client.query(TOURNAMENT_WITH_PARTS, &[&slug])).await?;
            Ok(with_parts(&rows).pop())
        })
    }

    fn tournament_version(&self, slug: String) -> Reading<'_, Option<u64>> {
        Box::pin(async move {
            let client = self.client().await?;
            let row =
                timed(client.query_opt("SELECT version FROM tournaments WHERE slug = $1", &[&slug])).await?;
            Ok(row.map(|r| r.get::<_, i64>(0) as u64))
        })
    }

    fn tournament_events(&self, slug: String, from: u64) -> Reading<'_, Vec<(u64, Vec<u8>)>> {
        Box::pin(async move {
            let client = self.client().await?;
            let rows = timed(client.query(
                "SELECT number, body FROM tournament_events WHERE slug = $1 AND number >= $2 ORDER BY number",
                &[&slug, &(from as i64)],
            ))
            .await?;
            Ok(rows.iter().map(|r| (r.get::<_, i64>(0) as u64, r.get(1))).collect())
        })
    }

    fn tournament_answer(&self, slug: String, key: String) -> Reading<'_, Option<Vec<u8>>> {
        Box::pin(async move {
            let client = self.client().await?;
            let row = timed(client.query_opt(
                "SELECT body FROM tournament_answers WHERE slug = $1 AND key = $2",
                &[&slug, &key],
            ))
            .await?;
            Ok(row.map(|r| r.get(0)))
        })
    }

    fn tournaments(&self) -> Reading<'_, Vec<StoredTournament>> {
        Box::pin(async move {
            let client = self.client().await?;
            let rows = timed(client.query(TOURNAMENTS_WITH_PARTS, &[])).await?;
            Ok(with_parts(&rows))
        })
    }

    fn put_broadcast(&self, broadcast: StoredBroadcast) -> Pending {
        self.writes.submit(Job::Broadcast(broadcast))
    }

    fn broadcasts(&self) -> Reading<'_, Vec<StoredBroadcast>> {
        Box::pin(async move {
            let client = self.client().await?;
            let rows =
                timed(client.query("SELECT slug, version, body FROM broadcasts ORDER BY slug", &[])).await?;
            Ok(rows
                .iter()
                .map(|r| StoredBroadcast {
                    slug: r.get(0),
                    version: r.get::<_, i64>(1) as u64,
                    body: r.get(2),
                })
                .collect())
        })
    }

    fn review(&self, id: Uuid, key: String) -> Reading<'_, Option<Vec<u8>>> {
        Box::pin(async move {
            let client = self.client().await?;
            let row = timed(
                client.query_opt("SELECT body FROM reviews WHERE game = $1 AND key = $2", &[&id, &key]),
            )
            .await?;
            Ok(row.map(|r| r.get(0)))
        })
    }
}

impl PgStore {
    async fn games_async(&self, query: GameQuery) -> Result<GamePage, StoreError> {
        let client = self.client().await?;
        let mut filter = String::from(match query.state {
            GameState::Any => "true",
            GameState::Live => "NOT g.finished AND g.quarantined IS NULL",
            GameState::Finished => "g.finished",
        });
        use tokio_postgres::types::ToSql;
        let mut values: Vec<Box<dyn ToSql + Sync + Send>> = Vec::new();
        for (k, v) in &query.labels {
            filter.push_str(&format!(
                " AND EXISTS (SELECT 1 FROM labels l WHERE l.game = g.id AND l.key = ${} AND l.value = ${})",
                values.len() + 1,
                values.len() + 2
            ));
            values.push(Box::new(k.clone()));
            values.push(Box::new(v.clone()));
        }
        fn refs(values: &[Box<dyn ToSql + Sync + Send>]) -> Vec<&(dyn ToSql + Sync)> {
            values.iter().map(|v| v.as_ref() as &(dyn ToSql + Sync)).collect()
        }
        let count = format!("SELECT COUNT(*) FROM games g WHERE {filter}");
        let total: i64 = timed(client.query_one(&count, &refs(&values))).await?.get(0);
        if let Some(after) = query.after {
            filter.push_str(&format!(" AND g.id > ${}", values.len() + 1));
            values.push(Box::new(after));
        }
        values.push(Box::new(query.limit.min(i64::MAX as usize) as i64));
        let sql = format!("SELECT g.id FROM games g WHERE {filter} ORDER BY g.id LIMIT ${}", values.len());
        let rows = timed(client.query(&sql, &refs(&values))).await?;
        Ok(GamePage { ids: rows.iter().map(|r| r.get(0)).collect(), total: total as u64 })
    }
}

impl Leases for PgStore {
    fn addr(&self) -> &str {
        &self.replica.addr
    }
    fn secret(&self) -> &str {
        PgStore::secret(self)
    }
    fn lease(&self) -> Duration {
        self.replica.lease
    }
    fn heartbeat(&self) -> LeaseFuture<'_, Vec<Uuid>> {
        Box::pin(PgStore::heartbeat(self))
    }
    fn claim(&self, game: Uuid) -> LeaseFuture<'_, Claim> {
        Box::pin(PgStore::claim(self, game))
    }
    fn holds(&self, game: &Uuid) -> bool {
        PgStore::holds(self, game)
    }
    fn leases_held(&self) -> usize {
        PgStore::leases_held(self)
    }
    fn forget(&self, game: &Uuid) {
        PgStore::forget(self, game)
    }
    fn release(&self, game: Uuid, game_ms: u64, wake_in: Option<Duration>) -> LeaseFuture<'_, bool> {
        Box::pin(PgStore::release(self, game, game_ms, wake_in))
    }
    fn hand_over<'a>(&'a self, game: Uuid, addr: &'a str) -> LeaseFuture<'a, bool> {
        Box::pin(PgStore::hand_over(self, game, addr))
    }
    fn take_slept(&self, game: &Uuid) -> Option<u64> {
        PgStore::take_slept(self, game)
    }
    fn orphans(&self, grace: Duration, limit: i64) -> LeaseFuture<'_, Vec<Uuid>> {
        Box::pin(PgStore::orphans(self, grace, limit))
    }
    fn live_peers(&self) -> LeaseFuture<'_, Vec<String>> {
        Box::pin(PgStore::live_peers(self))
    }
    fn release_all(&self) -> LeaseFuture<'_, ()> {
        Box::pin(PgStore::release_all(self))
    }
}

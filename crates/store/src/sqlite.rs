//! The default store: SQLite (bundled) in WAL mode with `synchronous=FULL`, so a commit is on
//! disk when it returns. One writer thread owns the write connection; it takes every write
//! that is waiting, runs them in one transaction and commits once, so games that move at the
//! same time share an fsync (group commit). Reads (start-up recovery, loading a game) run on a
//! reader thread with a second connection, which WAL lets run beside the writer, and answer
//! through a channel: a caller awaits them and blocks no thread of its own. The write-ahead log
//! is copied into the database by a third thread (a passive checkpoint every second), never by
//! the writer in the middle of a commit: a checkpoint copies and syncs many pages, and every turn
//! waiting for the commit that triggered it would wait for that too.
//!
//! The store is one process's (a server on one node; replicas share PostgreSQL): so it answers a
//! tournament's version, asked before every read of a tournament to check a replica's cached
//! state, from the versions it has written and read ([`Versions`]) without a trip to the reader
//! thread. A write refused as stale (another writer, which one node does not have) forgets the
//! tournament's version there, so the next read asks the database.
//!
//! Schema: `games(id, created_ms, record, finished, quarantined)`, `log(game, seq, body)` and
//! `labels(game, key, value)` (indexed by key and value, for listings by label) and
//! `reviews(game, key, body)`, keyed without row ids; `log` is only ever inserted into;
//! `director_keys(name, token_hash, labels, created_ms, revoked_ms)`;
//! `tournaments(slug, version, body)`, each state's body checked against its version, with its
//! parts in `tournament_parts(slug, key, body)` (a version writes those it changed),
//! `tournament_events(slug, number, body)` (only ever inserted into) and
//! `tournament_answers(slug, key, version, body)` (the latest versions' answers);
//! `broadcasts(slug, version, body)`, each written whole against its version; the bots' lobby as
//! `lobby(id, version, tag)` (one row), `lobby_parts(key, body)` and `bot_events(bot, number, body)`
//! (only ever inserted into); the review jobs as `review_jobs(game, ms, …)` (`review_jobs`), each
//! claimed and finished by the writer like any other write.

use super::queue::{self, Group, Groups, Queue};
use super::review_jobs::{self, FinishedReview, ReviewJob, ReviewJobStore, ReviewOrder};
use super::{
    BroadcastStore, DirectorKey, DirectorKeyStore, GamePage, GameQuery, GameState, GameStore, Labels,
    LobbyChange, LobbyStore, Pending, Reading, ReviewStore, StoreError, StoredBroadcast, StoredGame,
    StoredLobby, StoredTournament, TOURNAMENT_ANSWERS_KEPT, TournamentChange, TournamentStore,
};
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use tokio::sync::oneshot;
use uuid::Uuid;

/// The database's file name inside the data directory.
pub const FILE_NAME: &str = "games.sqlite3";

/// Most writes committed in one transaction.
const MAX_GROUP: usize = 4096;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    id          BLOB PRIMARY KEY,
    created_ms  INTEGER NOT NULL,
    record      BLOB NOT NULL,
    finished    INTEGER NOT NULL DEFAULT 0,
    quarantined TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS log (
    game BLOB NOT NULL,
    seq  INTEGER NOT NULL,
    body BLOB NOT NULL,
    PRIMARY KEY (game, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS games_open ON games (finished) WHERE finished = 0 AND quarantined IS NULL;
CREATE TABLE IF NOT EXISTS labels (
    game  BLOB NOT NULL,
    key   TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (game, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS labels_by_value ON labels (key, value, game);
CREATE TABLE IF NOT EXISTS reviews (
    game BLOB NOT NULL,
    key  TEXT NOT NULL,
    body BLOB NOT NULL,
    PRIMARY KEY (game, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS director_keys (
    name       TEXT PRIMARY KEY,
    token_hash BLOB NOT NULL,
    labels     TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    revoked_ms INTEGER
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tournaments (
    slug    TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    body    BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tournament_parts (
    slug TEXT NOT NULL,
    key  TEXT NOT NULL,
    body BLOB NOT NULL,
    PRIMARY KEY (slug, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tournament_events (
    slug   TEXT NOT NULL,
    number INTEGER NOT NULL,
    body   BLOB NOT NULL,
    PRIMARY KEY (slug, number)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tournament_answers (
    slug    TEXT NOT NULL,
    key     TEXT NOT NULL,
    version INTEGER NOT NULL,
    body    BLOB NOT NULL,
    PRIMARY KEY (slug, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tournament_answers_by_version ON tournament_answers (slug, version);
CREATE TABLE IF NOT EXISTS broadcasts (
    slug    TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    body    BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS lobby (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL,
    tag     INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS lobby_parts (
    key  TEXT PRIMARY KEY,
    body BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS bot_events (
    bot    TEXT NOT NULL,
    number INTEGER NOT NULL,
    body   BLOB NOT NULL,
    PRIMARY KEY (bot, number)
) WITHOUT ROWID;
PRAGMA user_version = 10;
";

/// The schema version this build writes (earlier ones, without labels, reviews, director keys
/// or tournaments, or with a tournament's events and answers inside its state, or without
/// broadcasts, or with each tournament's state written whole, or without the bots' lobby or the
/// review jobs, are upgraded in place).
const VERSION: i64 = 10;

/// A tournament and its parts, read in one statement (so a part is never of another version than
/// the state): a row per part, or one with no part.
const TOURNAMENT_WITH_PARTS: &str = "SELECT t.slug, t.version, t.body, p.key, p.body FROM tournaments t \
     LEFT JOIN tournament_parts p ON p.slug = t.slug WHERE t.slug = ?1 ORDER BY p.key";
const TOURNAMENTS_WITH_PARTS: &str = "SELECT t.slug, t.version, t.body, p.key, p.body FROM tournaments t \
     LEFT JOIN tournament_parts p ON p.slug = t.slug ORDER BY t.slug, p.key";

/// A row of [`TOURNAMENT_WITH_PARTS`]: the tournament, and one part if it has any.
type TournamentRow = (StoredTournament, Option<(String, Vec<u8>)>);

fn tournament_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<TournamentRow> {
    let t = StoredTournament {
        slug: r.get(0)?,
        version: r.get::<_, i64>(1)? as u64,
        body: r.get(2)?,
        parts: Vec::new(),
    };
    let part = match r.get::<_, Option<String>>(3)? {
        Some(key) => Some((key, r.get(4)?)),
        None => None,
    };
    Ok((t, part))
}

/// Rows of tournaments by slug, each with its parts, as tournaments with their parts.
fn with_parts(rows: Vec<TournamentRow>) -> Vec<StoredTournament> {
    let mut all: Vec<StoredTournament> = Vec::new();
    for (t, part) in rows {
        if all.last().is_none_or(|last| last.slug != t.slug) {
            all.push(t);
        }
        if let (Some(last), Some(part)) = (all.last_mut(), part) {
            last.parts.push(part);
        }
    }
    all
}

enum Job {
    Create {
        id: Uuid,
        created: u64,
        record: Vec<u8>,
        first: Vec<u8>,
        finished: bool,
        labels: Labels,
    },
    Append {
        id: Uuid,
        seq: u64,
        row: Vec<u8>,
        finished: bool,
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
    Tournament(TournamentChange),
    Broadcast(StoredBroadcast),
    Lobby(LobbyChange),
    /// A claim: the job claimed is left in the slot for the caller, read once the write is durable.
    ClaimReview {
        owner: Uuid,
        claimed: Arc<Mutex<Option<ReviewJob>>>,
    },
    FinishReview(FinishedReview),
    OrderReviews {
        slug: String,
        orders: Vec<ReviewOrder>,
    },
    AddKey(DirectorKey),
    RevokeKey {
        name: String,
        at: u64,
    },
}

pub struct SqliteStore {
    path: PathBuf,
    writes: Queue<Job>,
    /// The writer thread, joined by [`SqliteStore::close`].
    writer: Mutex<Option<JoinHandle<()>>>,
    /// The reader thread's queue (reads run there, on a connection of their own, one at a time,
    /// and answer through a channel, so no caller's thread blocks on the disk) and the thread,
    /// joined by [`SqliteStore::close`].
    reader: Mutex<Option<(mpsc::Sender<Read>, JoinHandle<()>)>>,
    /// The checkpointer's stop signal (dropping it stops the thread) and the thread.
    checkpointer: Mutex<Option<(mpsc::Sender<()>, JoinHandle<()>)>>,
    versions: Arc<Versions>,
}

/// Each tournament's latest version as this store wrote or read it, by slug: set by the writer
/// once a version is committed (before its writer is answered) and by a read of the database,
/// never lowered (a read that raced a commit keeps the commit's). A version forgotten (a stale
/// write) is not brought back by a read begun before it: each forgetting is a new generation.
/// Beside them the lobby's version (0: not known here yet), which only this process writes: the
/// last it committed or read, never lowered.
#[derive(Default)]
struct Versions(Mutex<(HashMap<String, u64>, u64)>, std::sync::atomic::AtomicU64);

impl Versions {
    fn lock(&self) -> std::sync::MutexGuard<'_, (HashMap<String, u64>, u64)> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, slug: &str) -> Option<u64> {
        self.lock().0.get(slug).copied()
    }

    /// The generation a read of the database begins in ([`Versions::read`]).
    fn generation(&self) -> u64 {
        self.lock().1
    }

    /// A version committed.
    fn saw(&self, slug: &str, version: u64) {
        let kept = &mut self.lock().0;
        let kept = kept.entry(slug.to_string()).or_insert(version);
        *kept = (*kept).max(version);
    }

    /// A version read from the database by a read begun in `generation`: kept unless a version
    /// was forgotten since.
    fn read(&self, generation: u64, slug: &str, version: u64) {
        let mut versions = self.lock();
        if versions.1 == generation {
            let kept = versions.0.entry(slug.to_string()).or_insert(version);
            *kept = (*kept).max(version);
        }
    }

    fn forget(&self, slug: &str) {
        let mut versions = self.lock();
        versions.0.remove(slug);
        versions.1 += 1;
    }
}

/// How often the write-ahead log is checkpointed into the database.
#[cfg(not(test))]
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_secs(1);
#[cfg(test)]
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_millis(10);

/// Frames (pages) in the write-ahead log past which the checkpointer has the log start over.
#[cfg(not(test))]
const RESTART_AT_FRAMES: i64 = 16_384;
#[cfg(test)]
const RESTART_AT_FRAMES: i64 = 64;

/// The longest a restarting checkpoint waits for the writer and the readers.
const RESTART_WAIT: std::time::Duration = std::time::Duration::from_millis(100);

/// The log's file is cut back to this when it starts over (bytes).
#[cfg(not(test))]
const LOG_KEPT_BYTES: i64 = 64 << 20;
#[cfg(test)]
const LOG_KEPT_BYTES: i64 = 256 << 10;

/// One pass of the checkpointer. Passive first: it copies what no reader still needs and never
/// waits for the writer. But the log starts over only when a write transaction begins with every
/// frame copied, and under a steady stream of commits the writer begins its next one as soon as
/// the last is written: without more the log would grow for as long as the writes go on (777 MB
/// after 200,000 turns in 34 s, for a 15 MB database). So once the log is past
/// [`RESTART_AT_FRAMES`], a restarting checkpoint follows the passive one: it waits for the
/// writer's transaction in hand and for the readers, copies the little written since the
/// passive pass (a few ms), and the writer's next commit writes the log from its start, its file
/// cut back to [`LOG_KEPT_BYTES`].
fn checkpoint(conn: &Connection) -> rusqlite::Result<()> {
    let frames =
        |mode: &str| conn.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |r| r.get::<_, i64>(1));
    if frames("PASSIVE")? > RESTART_AT_FRAMES {
        frames("RESTART")?;
    }
    Ok(())
}

/// A read for the reader thread.
type Read = Box<dyn FnOnce(&Connection) + Send>;

fn open(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Sqlite(format!("{} refused WAL mode (got {mode})", path.display())));
    }
    conn.execute_batch(&format!(
        "PRAGMA synchronous = FULL; PRAGMA foreign_keys = OFF; PRAGMA journal_size_limit = {LOG_KEPT_BYTES};"
    ))?;
    Ok(conn)
}

impl SqliteStore {
    /// Open (or create) the store in `dir`.
    pub fn open(dir: &Path) -> Result<SqliteStore, StoreError> {
        std::fs::create_dir_all(dir)
            .map_err(|e| StoreError::Io(format!("cannot create data directory {}: {e}", dir.display())))?;
        let path = dir.join(FILE_NAME);
        let conn = open(&path)?;
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version > VERSION {
            return Err(StoreError::Sqlite(format!(
                "{} has schema version {version}; this build knows version {VERSION}",
                path.display()
            )));
        }
        conn.execute_batch(SCHEMA)?;
        conn.execute_batch(review_jobs::SQLITE_SCHEMA)?;
        // The writer never checkpoints; the checkpointer does, beside it.
        conn.execute_batch("PRAGMA wal_autocheckpoint = 0;")?;
        let checkpoints = open(&path)?;
        // A restarting checkpoint holds the writer back while it waits for the writer's commit
        // in hand and the readers: it gives up after this, to try again a second later, rather
        // than stall every turn behind a long read.
        checkpoints.busy_timeout(RESTART_WAIT)?;
        let (stop, stopped) = mpsc::channel::<()>();
        let checkpointing = std::thread::Builder::new()
            .name("dawgref-store-checkpoint".into())
            .spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(CHECKPOINT_EVERY) {
                    if let Err(e) = checkpoint(&checkpoints) {
                        tracing::warn!(error = %e, "checkpoint failed; the next one tries again");
                    }
                }
            })
            .map_err(|e| StoreError::Io(format!("cannot start the store's checkpointer: {e}")))?;
        let reader = open(&path)?;
        let (reads, waiting) = mpsc::channel::<Read>();
        // The reader ends when the queue's only sender is dropped (by `close`).
        let reading = std::thread::Builder::new()
            .name("dawgref-store-read".into())
            .spawn(move || {
                for read in waiting {
                    read(&reader);
                }
            })
            .map_err(|e| StoreError::Io(format!("cannot start the store's reader: {e}")))?;
        let (writes, groups) = queue::queue(MAX_GROUP);
        let versions = Arc::new(Versions::default());
        let written = versions.clone();
        let handle = std::thread::Builder::new()
            .name("dawgref-store".into())
            .spawn(move || write_loop(conn, groups, &written))
            .map_err(|e| StoreError::Io(format!("cannot start the store's writer: {e}")))?;
        Ok(SqliteStore {
            path,
            writes,
            writer: Mutex::new(Some(handle)),
            reader: Mutex::new(Some((reads, reading))),
            checkpointer: Mutex::new(Some((stop, checkpointing))),
            versions,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Run `read` on the reader thread; its answer when it has run.
    fn read<T: Send + 'static>(
        &self,
        read: impl FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> Reading<'_, T> {
        let (reply, answer) = oneshot::channel();
        let queued = match self.reader.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            Some((reads, _)) => reads
                .send(Box::new(move |conn: &Connection| {
                    let _ = reply.send(read(conn));
                }))
                .is_ok(),
            None => false,
        };
        Box::pin(async move {
            if !queued {
                return Err(StoreError::Io("the store's reader stopped".into()));
            }
            answer.await.unwrap_or_else(|_| Err(StoreError::Io("the store's reader stopped".into())))
        })
    }

    /// Finish the writes and reads already queued, then stop the writer, the reader and the
    /// checkpointer. When it returns, every connection is closed: SQLite has checkpointed and removed its `-wal` and
    /// `-shm` files, and nothing of the store's touches the directory any more.
    pub fn close(&self) {
        self.writes.close();
        let writer = self.writer.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(handle) = writer {
            let _ = handle.join();
        }
        let reader = self.reader.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some((reads, handle)) = reader {
            drop(reads);
            let _ = handle.join();
        }
        let checkpointer = self.checkpointer.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some((stop, handle)) = checkpointer {
            drop(stop);
            let _ = handle.join();
        }
    }

    fn log_of(conn: &Connection, id: Uuid) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        let mut stmt = conn.prepare_cached("SELECT seq, body FROM log WHERE game = ?1 ORDER BY seq")?;
        let rows = stmt.query_map(params![id.as_bytes().as_slice()], |r| {
            Ok((r.get::<_, i64>(0)? as u64, r.get::<_, Vec<u8>>(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        self.close();
    }
}

/// The writer thread: take what is waiting, commit it in one transaction, answer everyone.
fn write_loop(mut conn: Connection, mut groups: Groups<Job>, versions: &Versions) {
    while let Some(group) = groups.blocking_next() {
        commit(&mut conn, group, versions);
    }
}

fn commit(conn: &mut Connection, group: Group<Job>, versions: &Versions) {
    let mut tx = match conn.transaction() {
        Ok(tx) => tx,
        Err(e) => return group.fail(e.into()),
    };
    // A failed statement (a duplicate row) fails only its own request; the others still commit.
    let results: Vec<Result<(), StoreError>> = group.jobs().map(|job| run(&mut tx, job)).collect();
    match tx.commit() {
        Ok(()) => {
            for (job, result) in group.jobs().zip(&results) {
                if let Job::Tournament(change) = job {
                    let t = &change.tournament;
                    match result {
                        Ok(()) => versions.saw(&t.slug, t.version),
                        Err(StoreError::Stale(_)) => versions.forget(&t.slug),
                        Err(_) => {}
                    }
                }
                if let (Job::Lobby(change), Ok(())) = (job, result) {
                    versions.1.fetch_max(change.version, std::sync::atomic::Ordering::Relaxed);
                }
            }
            group.answer(results)
        }
        Err(e) => group.fail(e.into()),
    }
}

fn is_conflict(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::ConstraintViolation)
}

fn run(tx: &mut rusqlite::Transaction<'_>, job: &Job) -> Result<(), StoreError> {
    match job {
        Job::Create { id, created, record, first, finished, labels } => {
            // Both rows or neither: a savepoint, since the surrounding transaction goes on.
            let sp = tx.savepoint()?;
            let key = id.as_bytes().as_slice();
            sp.prepare_cached(
                "INSERT INTO games (id, created_ms, record, finished) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![key, *created as i64, record, *finished as i64])
            .map_err(|e| {
                if is_conflict(&e) { StoreError::Conflict { game: *id, seq: 0 } } else { e.into() }
            })?;
            sp.prepare_cached("INSERT INTO log (game, seq, body) VALUES (?1, 0, ?2)")?
                .execute(params![key, first])?;
            for (k, v) in labels {
                sp.prepare_cached("INSERT INTO labels (game, key, value) VALUES (?1, ?2, ?3)")?
                    .execute(params![key, k, v])?;
            }
            sp.commit()?;
            Ok(())
        }
        Job::Append { id, seq, row, finished } => {
            let key = id.as_bytes().as_slice();
            tx.prepare_cached("INSERT INTO log (game, seq, body) VALUES (?1, ?2, ?3)")?
                .execute(params![key, *seq as i64, row])
                .map_err(|e| {
                    if is_conflict(&e) { StoreError::Conflict { game: *id, seq: *seq } } else { e.into() }
                })?;
            if *finished {
                tx.prepare_cached("UPDATE games SET finished = 1 WHERE id = ?1")?.execute(params![key])?;
            }
            Ok(())
        }
        Job::Quarantine { id, reason } => {
            let n = tx
                .prepare_cached("UPDATE games SET quarantined = ?2 WHERE id = ?1")?
                .execute(params![id.as_bytes().as_slice(), reason])?;
            if n == 0 { Err(StoreError::NoGame(*id)) } else { Ok(()) }
        }
        Job::Review { id, key, body } => {
            let n = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO reviews (game, key, body) \
                     SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM games WHERE id = ?1)",
                )?
                .execute(params![id.as_bytes().as_slice(), key, body])?;
            if n == 0 { Err(StoreError::NoGame(*id)) } else { Ok(()) }
        }
        Job::AddKey(key) => {
            let n = tx
                .prepare_cached(
                    "INSERT OR IGNORE INTO director_keys (name, token_hash, labels, created_ms) \
                     VALUES (?1, ?2, ?3, ?4)",
                )?
                .execute(params![
                    key.name,
                    key.token_hash.as_slice(),
                    super::labels_text(&key.labels),
                    key.created_unix_ms as i64
                ])?;
            if n == 0 { Err(StoreError::KeyExists(key.name.clone())) } else { Ok(()) }
        }
        Job::RevokeKey { name, at } => {
            let n = tx
                .prepare_cached(
                    "UPDATE director_keys SET revoked_ms = COALESCE(revoked_ms, ?2) WHERE name = ?1",
                )?
                .execute(params![name, *at as i64])?;
            if n == 0 { Err(StoreError::NoKey(name.clone())) } else { Ok(()) }
        }
        Job::Tournament(change) => write_tournament(tx, change),
        Job::Broadcast(b) => {
            let n = if b.version == 1 {
                tx.prepare_cached(
                    "INSERT OR IGNORE INTO broadcasts (slug, version, body) VALUES (?1, 1, ?2)",
                )?
                .execute(params![b.slug, b.body])?
            } else {
                tx.prepare_cached(
                    "UPDATE broadcasts SET version = ?2, body = ?3 WHERE slug = ?1 AND version = ?2 - 1",
                )?
                .execute(params![b.slug, b.version as i64, b.body])?
            };
            if n == 0 { Err(StoreError::BroadcastStale(b.slug.clone())) } else { Ok(()) }
        }
        Job::Lobby(change) => write_lobby(tx, change),
        Job::ClaimReview { owner, claimed } => {
            let sp = tx.savepoint()?;
            let job = review_jobs::sqlite_claim(&sp, *owner)?;
            sp.commit()?;
            *claimed.lock().unwrap_or_else(|e| e.into_inner()) = job;
            Ok(())
        }
        Job::FinishReview(finished) => {
            let sp = tx.savepoint()?;
            review_jobs::sqlite_finish(&sp, finished)?;
            sp.commit()?;
            Ok(())
        }
        Job::OrderReviews { slug, orders } => {
            let sp = tx.savepoint()?;
            for order in orders {
                review_jobs::sqlite_order(&sp, slug, order)?;
            }
            sp.commit()?;
            Ok(())
        }
    }
}

/// The lobby's change: its version against the one before, its parts and its bots' events, or
/// none of them.
fn write_lobby(tx: &mut rusqlite::Transaction<'_>, change: &LobbyChange) -> Result<(), StoreError> {
    let sp = tx.savepoint()?;
    let n = if change.version == 1 {
        sp.prepare_cached("INSERT OR IGNORE INTO lobby (id, version, tag) VALUES (1, 1, ?1)")?
            .execute(params![change.tag as i64])?
    } else {
        sp.prepare_cached(
            "UPDATE lobby SET version = ?1, tag = ?2 WHERE id = 1 AND version = ?1 - 1 AND tag = ?3",
        )?
        .execute(params![change.version as i64, change.tag as i64, change.base_tag as i64])?
    };
    if n == 0 {
        return Err(StoreError::LobbyStale);
    }
    for (key, part) in &change.parts {
        match part {
            Some(body) => sp
                .prepare_cached("INSERT OR REPLACE INTO lobby_parts (key, body) VALUES (?1, ?2)")?
                .execute(params![key, body])?,
            None => sp.prepare_cached("DELETE FROM lobby_parts WHERE key = ?1")?.execute(params![key])?,
        };
    }
    for (bot, number, body) in &change.events {
        sp.prepare_cached("INSERT OR IGNORE INTO bot_events (bot, number, body) VALUES (?1, ?2, ?3)")?
            .execute(params![bot, *number as i64, body])?;
    }
    sp.commit()?;
    Ok(())
}

/// A tournament's change: its state against its version, its parts, and the events and answers
/// the version adds.
fn write_tournament(tx: &mut rusqlite::Transaction<'_>, change: &TournamentChange) -> Result<(), StoreError> {
    // The state, its events and its answer, or none of them.
    let sp = tx.savepoint()?;
    let t = &change.tournament;
    let n = if t.version == 1 {
        sp.prepare_cached("INSERT OR IGNORE INTO tournaments (slug, version, body) VALUES (?1, 1, ?2)")?
            .execute(params![t.slug, t.body])?
    } else {
        sp.prepare_cached(
            "UPDATE tournaments SET version = ?2, body = ?3 WHERE slug = ?1 AND version = ?2 - 1",
        )?
        .execute(params![t.slug, t.version as i64, t.body])?
    };
    if n == 0 {
        return Err(StoreError::Stale(t.slug.clone()));
    }
    let mut part =
        sp.prepare_cached("INSERT OR REPLACE INTO tournament_parts (slug, key, body) VALUES (?1, ?2, ?3)")?;
    for (key, body) in &t.parts {
        part.execute(params![t.slug, key, body])?;
    }
    drop(part);
    let mut event =
        sp.prepare_cached("INSERT INTO tournament_events (slug, number, body) VALUES (?1, ?2, ?3)")?;
    for (number, body) in &change.events {
        event.execute(params![t.slug, *number as i64, body])?;
    }
    let mut answer = sp.prepare_cached(
        "INSERT OR REPLACE INTO tournament_answers (slug, key, version, body) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for (key, body) in &change.answers {
        answer.execute(params![t.slug, key, t.version as i64, body])?;
    }
    drop((event, answer));
    for order in &change.reviews {
        review_jobs::sqlite_order(&sp, &t.slug, order)?;
    }
    if t.version > TOURNAMENT_ANSWERS_KEPT {
        sp.prepare_cached("DELETE FROM tournament_answers WHERE slug = ?1 AND version <= ?2")?
            .execute(params![t.slug, (t.version - TOURNAMENT_ANSWERS_KEPT) as i64])?;
    }
    sp.commit()?;
    Ok(())
}

fn uuid_of(bytes: Vec<u8>) -> Result<Uuid, StoreError> {
    Uuid::from_slice(&bytes).map_err(|_| StoreError::Sqlite(format!("a game id of {} bytes", bytes.len())))
}

impl GameStore for SqliteStore {
    fn create(
        &self,
        id: Uuid,
        created: u64,
        record: Vec<u8>,
        first: Vec<u8>,
        finished: bool,
        labels: Labels,
    ) -> Pending {
        self.writes.submit(Job::Create { id, created, record, first, finished, labels })
    }

    fn append(&self, id: Uuid, seq: u64, row: Vec<u8>, finished: bool) -> Pending {
        self.writes.submit(Job::Append { id, seq, row, finished })
    }

    fn quarantine(&self, id: Uuid, reason: &str) -> Pending {
        self.writes.submit(Job::Quarantine { id, reason: reason.to_string() })
    }

    fn unfinished(&self) -> Reading<'_, Vec<StoredGame>> {
        self.read(|conn| {
            let mut stmt = conn.prepare(
                "SELECT id, record FROM games WHERE finished = 0 AND quarantined IS NULL ORDER BY created_ms",
            )?;
            let heads: Vec<(Vec<u8>, Vec<u8>)> =
                stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
            heads
                .into_iter()
                .map(|(id, record)| {
                    let id = uuid_of(id)?;
                    let log = Self::log_of(conn, id)?;
                    Ok(StoredGame { id, record, log, finished: false, quarantined: None })
                })
                .collect()
        })
    }

    fn load(&self, id: Uuid) -> Reading<'_, Option<StoredGame>> {
        self.read(move |conn| {
            let head: Option<(Vec<u8>, i64, Option<String>)> = conn
                .query_row(
                    "SELECT record, finished, quarantined FROM games WHERE id = ?1",
                    params![id.as_bytes().as_slice()],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()?;
            let Some((record, finished, quarantined)) = head else { return Ok(None) };
            let log = Self::log_of(conn, id)?;
            Ok(Some(StoredGame { id, record, log, finished: finished != 0, quarantined }))
        })
    }

    fn games(&self, query: GameQuery) -> Reading<'_, GamePage> {
        self.read(move |conn| {
            // The filter, as SQL and its values: the state, then one EXISTS per label.
            let mut filter = String::from(match query.state {
                GameState::Any => "1",
                GameState::Live => "g.finished = 0 AND g.quarantined IS NULL",
                GameState::Finished => "g.finished = 1",
            });
            let mut values: Vec<rusqlite::types::Value> = Vec::new();
            for (k, v) in &query.labels {
                filter.push_str(&format!(
                    " AND EXISTS (SELECT 1 FROM labels l WHERE l.game = g.id AND l.key = ?{} AND l.value = ?{})",
                    values.len() + 1,
                    values.len() + 2
                ));
                values.push(k.clone().into());
                values.push(v.clone().into());
            }
            let total: i64 = conn.query_row(
                &format!("SELECT COUNT(*) FROM games g WHERE {filter}"),
                rusqlite::params_from_iter(values.iter()),
                |r| r.get(0),
            )?;
            if let Some(after) = query.after {
                filter.push_str(&format!(" AND g.id > ?{}", values.len() + 1));
                values.push(after.as_bytes().to_vec().into());
            }
            values.push((query.limit.min(i64::MAX as usize) as i64).into());
            let sql = format!("SELECT g.id FROM games g WHERE {filter} ORDER BY g.id LIMIT ?{}", values.len());
            let mut stmt = conn.prepare(&sql)?;
            let ids = stmt
                .query_map(rusqlite::params_from_iter(values.iter()), |r| r.get::<_, Vec<u8>>(0))?
                .map(|r| r.map_err(StoreError::from).and_then(uuid_of))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(GamePage { ids, total: total as u64 })
        })
    }
}

impl ReviewStore for SqliteStore {
    fn save_review(&self, id: Uuid, key: String, body: Vec<u8>) -> Pending {
        self.writes.submit(Job::Review { id, key, body })
    }

    fn review(&self, id: Uuid, key: String) -> Reading<'_, Option<Vec<u8>>> {
        self.read(move |conn| {
            Ok(conn
                .query_row(
                    "SELECT body FROM reviews WHERE game = ?1 AND key = ?2",
                    params![id.as_bytes().as_slice(), key],
                    |r| r.get(0),
                )
                .optional()?)
        })
    }
}

impl ReviewJobStore for SqliteStore {
    fn claim_review_job(&self, owner: Uuid) -> Reading<'_, Option<ReviewJob>> {
        let claimed = Arc::new(Mutex::new(None));
        let pending = self.writes.submit(Job::ClaimReview { owner, claimed: claimed.clone() });
        Box::pin(async move {
            pending.wait().await?;
            Ok(claimed.lock().unwrap_or_else(|e| e.into_inner()).take())
        })
    }

    fn finish_review_job(&self, finished: FinishedReview) -> Pending {
        self.writes.submit(Job::FinishReview(finished))
    }

    fn order_reviews(&self, slug: String, orders: Vec<ReviewOrder>) -> Pending {
        self.writes.submit(Job::OrderReviews { slug, orders })
    }

    fn review_jobs(&self, slug: String) -> Reading<'_, Vec<ReviewJob>> {
        self.read(move |conn| review_jobs::sqlite_jobs(conn, &slug))
    }
}

impl DirectorKeyStore for SqliteStore {
    fn add_director_key(&self, key: DirectorKey) -> Pending {
        self.writes.submit(Job::AddKey(key))
    }

    fn revoke_director_key(&self, name: String, at_unix_ms: u64) -> Pending {
        self.writes.submit(Job::RevokeKey { name, at: at_unix_ms })
    }

    fn director_keys(&self) -> Reading<'_, Vec<DirectorKey>> {
        self.read(|conn| {
            let mut stmt = conn.prepare(
                "SELECT name, token_hash, labels, created_ms, revoked_ms FROM director_keys ORDER BY name",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, Vec<u8>>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, Option<i64>>(4)?,
                ))
            })?;
            rows.map(|row| DirectorKey::from_row(row?)).collect()
        })
    }
}

impl TournamentStore for SqliteStore {
    fn put_tournament(&self, change: TournamentChange) -> Pending {
        self.writes.submit(Job::Tournament(change))
    }

    fn tournament_events(&self, slug: String, from: u64) -> Reading<'_, Vec<(u64, Vec<u8>)>> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT number, body FROM tournament_events WHERE slug = ?1 AND number >= ?2 ORDER BY number",
            )?;
            let rows =
                stmt.query_map(params![slug, from as i64], |r| Ok((r.get::<_, i64>(0)? as u64, r.get(1)?)))?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
    }

    fn tournament_answers(&self, slug: String, keys: Vec<String>) -> Reading<'_, HashMap<String, Vec<u8>>> {
        self.read(move |conn| {
            let mut stmt =
                conn.prepare_cached("SELECT body FROM tournament_answers WHERE slug = ?1 AND key = ?2")?;
            let mut kept = HashMap::new();
            for key in keys {
                if let Some(body) = stmt.query_row(params![slug, key], |r| r.get(0)).optional()? {
                    kept.insert(key, body);
                }
            }
            Ok(kept)
        })
    }

    fn tournament(&self, slug: String) -> Reading<'_, Option<StoredTournament>> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(TOURNAMENT_WITH_PARTS)?;
            let rows = stmt.query_map(params![slug], tournament_row)?;
            Ok(with_parts(rows.collect::<Result<Vec<_>, _>>()?).pop())
        })
    }

    fn tournament_version(&self, slug: String) -> Reading<'_, Option<u64>> {
        if let Some(version) = self.versions.get(&slug) {
            return Box::pin(std::future::ready(Ok(Some(version))));
        }
        let versions = self.versions.clone();
        let generation = versions.generation();
        self.read(move |conn| {
            let version = conn
                .prepare_cached("SELECT version FROM tournaments WHERE slug = ?1")?
                .query_row(params![slug], |r| Ok(r.get::<_, i64>(0)? as u64))
                .optional()?;
            if let Some(version) = version {
                versions.read(generation, &slug, version);
            }
            Ok(version)
        })
    }

    fn tournaments(&self) -> Reading<'_, Vec<StoredTournament>> {
        self.read(|conn| {
            let mut stmt = conn.prepare(TOURNAMENTS_WITH_PARTS)?;
            let rows = stmt.query_map([], tournament_row)?;
            Ok(with_parts(rows.collect::<Result<Vec<_>, _>>()?))
        })
    }
}

impl BroadcastStore for SqliteStore {
    fn put_broadcast(&self, broadcast: StoredBroadcast) -> Pending {
        self.writes.submit(Job::Broadcast(broadcast))
    }

    fn broadcasts(&self) -> Reading<'_, Vec<StoredBroadcast>> {
        self.read(|conn| {
            let mut stmt = conn.prepare("SELECT slug, version, body FROM broadcasts ORDER BY slug")?;
            let rows = stmt.query_map([], |r| {
                Ok(StoredBroadcast { slug: r.get(0)?, version: r.get::<_, i64>(1)? as u64, body: r.get(2)? })
            })?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
    }
}

impl LobbyStore for SqliteStore {
    fn put_lobby(&self, change: LobbyChange) -> Pending {
        self.writes.submit(Job::Lobby(change))
    }

    fn lobby(&self) -> Reading<'_, StoredLobby> {
        let versions = self.versions.clone();
        self.read(move |conn| {
            // One transaction: the parts are of the version read.
            let tx = conn.unchecked_transaction()?;
            let (version, tag) = tx
                .query_row("SELECT version, tag FROM lobby WHERE id = 1", [], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
                })
                .optional()?
                .unwrap_or((0, 0));
            let mut stmt = tx.prepare_cached("SELECT key, body FROM lobby_parts ORDER BY key")?;
            let parts = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
            drop(stmt);
            tx.finish()?;
            versions.1.fetch_max(version as u64, std::sync::atomic::Ordering::Relaxed);
            Ok(StoredLobby { version: version as u64, tag: tag as u64, parts })
        })
    }

    fn lobby_version(&self) -> Reading<'_, u64> {
        // Only this process writes the lobby: its version is the last it committed or read.
        let known = self.versions.1.load(std::sync::atomic::Ordering::Relaxed);
        if known > 0 {
            return Box::pin(std::future::ready(Ok(known)));
        }
        let versions = self.versions.clone();
        self.read(move |conn| {
            let version = conn
                .query_row("SELECT version FROM lobby WHERE id = 1", [], |r| r.get::<_, i64>(0))
                .optional()?;
            let version = version.unwrap_or(0) as u64;
            versions.1.fetch_max(version, std::sync::atomic::Ordering::Relaxed);
            Ok(version)
        })
    }

    fn bot_events(&self, bot: String, from: u64) -> Reading<'_, Vec<(u64, Vec<u8>)>> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT number, body FROM bot_events WHERE bot = ?1 AND number >= ?2 ORDER BY number",
            )?;
            let rows = stmt.query_map(params![bot, from.min(i64::MAX as u64) as i64], |r| {
                Ok((r.get::<_, i64>(0)? as u64, r.get(1)?))
            })?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Under writes that never pause the log starts over (its file cut back), rather than
    /// holding every frame written for as long as the writes go on.
    #[tokio::test]
    async fn the_log_starts_over_under_steady_writes() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let dir = std::env::temp_dir().join(format!("dawgref-wal-{}", Uuid::new_v4()));
        let store = SqliteStore::open(&dir).unwrap();
        let wal = dir.join(format!("{FILE_NAME}-wal"));
        // Eight games written at once, so that the writer always has a commit waiting.
        let ids: Vec<Uuid> = (0..8).map(|_| Uuid::new_v4()).collect();
        for id in &ids {
            store.create(*id, 0, vec![1], vec![0; 16], false, Labels::default()).wait().await.unwrap();
        }
        let done = AtomicBool::new(false);
        let writers = futures_util::future::join_all(ids.iter().map(|id| {
            let (store, done) = (&store, &done);
            async move {
                let mut seq = 0;
                while !done.load(Ordering::Relaxed) {
                    seq += 1;
                    store.append(*id, seq, vec![seq as u8; 3_000], false).wait().await.unwrap();
                }
                seq
            }
        }));
        // The log's file, watched while the writes go on: it shrinks once it has started over.
        let watch = async {
            let started = std::time::Instant::now();
            let mut peak = 0;
            let outcome = loop {
                tokio::time::sleep(std::time::Duration::from_millis(2)).await;
                let size = std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
                if size < peak {
                    break Ok(());
                }
                peak = peak.max(size);
                if started.elapsed() > std::time::Duration::from_secs(10) {
                    break Err(peak);
                }
            };
            done.store(true, Ordering::Relaxed);
            outcome
        };
        let (appended, outcome) = futures_util::future::join(writers, watch).await;
        store.close();
        std::fs::remove_dir_all(&dir).unwrap();
        let appends: u64 = appended.iter().sum();
        if let Err(peak) = outcome {
            panic!("after {appends} appends in 10 s the log held {peak} bytes and never started over");
        }
    }

    /// A tournament's version is answered from what this store wrote and read; a second store
    /// writing the same file (which one node does not have) is seen once a write of this one's
    /// is refused as stale, and from then on.
    #[tokio::test]
    async fn a_tournaments_version_is_the_written_one_and_a_stale_write_reads_it_afresh() {
        let dir = std::env::temp_dir().join(format!("dawgref-versions-{}", Uuid::new_v4()));
        let (here, other) = (SqliteStore::open(&dir).unwrap(), SqliteStore::open(&dir).unwrap());
        let change = |version: u64, body: &[u8]| TournamentChange {
            tournament: StoredTournament { slug: "t".into(), version, body: body.to_vec(), parts: vec![] },
            events: vec![],
            answers: vec![],
            reviews: vec![],
        };
        assert_eq!(here.tournament_version("t".into()).await.unwrap(), None);
        here.put_tournament(change(1, b"one")).wait().await.unwrap();
        assert_eq!(here.tournament_version("t".into()).await.unwrap(), Some(1));
        assert_eq!(other.tournament_version("t".into()).await.unwrap(), Some(1), "read from the file");
        other.put_tournament(change(2, b"two by the other")).wait().await.unwrap();
        assert_eq!(other.tournament_version("t".into()).await.unwrap(), Some(2));
        // This store's write of version 2 is refused; the version is then read afresh.
        let stale = here.put_tournament(change(2, b"two")).wait().await;
        assert!(matches!(&stale, Err(StoreError::Stale(slug)) if slug == "t"), "{stale:?}");
        assert_eq!(here.tournament_version("t".into()).await.unwrap(), Some(2));
        assert_eq!(here.tournament("t".into()).await.unwrap().unwrap().body, b"two by the other");
        here.put_tournament(change(3, b"three")).wait().await.unwrap();
        assert_eq!(here.tournament_version("t".into()).await.unwrap(), Some(3));
        here.close();
        other.close();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! What a dawgref server keeps, one trait per aggregate, all five a [`Store`]:
//! - its games ([`GameStore`]): each game as its creation record plus an append-only log of
//!   batches (one batch per request that changed the game), as opaque bytes. What the bytes mean
//!   is [`record`]'s business; replaying them is the host's (`host::replay`);
//! - the reviews kept with a game ([`ReviewStore`]): the whole-game analyses a client asked
//!   for, by their options, so that asking again answers at once;
//! - the director keys ([`DirectorKeyStore`]): a key's token's hash, never the token, with its
//!   name and the labels whose games it directs, so that every replica and every restart knows
//!   them;
//! - the tournaments ([`TournamentStore`]): each a state written against its version, with the
//!   events and kept answers each version adds as rows of their own;
//! - the broadcasts ([`BroadcastStore`]): each one's settings, written whole against its version;
//! - the bots' lobby ([`LobbyStore`]): bot accounts, challenges and ratings as parts of one state
//!   written against its version, with each bot's stream of events as rows of their own;
//! - the review jobs ([`ReviewJobStore`]): each game of a tournament to be reviewed, asked by the
//!   tournament's change and claimed by one replica at a time (`review_jobs`).
//!
//! The host is handed the games, reviews and director keys; the events layer the tournaments,
//! broadcasts and the lobby: each holds what it holds.
//!
//! Three stores: [`SqliteStore`] (the default; a WAL database in the data directory, one writer
//! thread that commits the appends of many games together), [`PgStore`] (PostgreSQL, shared by
//! replicas, with a fenced lease per live game) and [`MemoryStore`] (nothing survives the
//! process; for `--data-dir :memory:` and tests).
//!
//! Both durable stores commit through one writer queue (`queue`): every write waiting is taken as
//! a group and committed in one transaction, each write answered with its own result.
//!
//! A write returns a [`Pending`], resolved once the write is durable: the server awaits it
//! before answering the request that made the change. A read returns a [`Reading`], awaited the
//! same way: no store blocks a caller's thread, so reads need no thread of the caller's.

mod lease;
pub mod memory;
pub mod postgres;
mod queue;
pub mod record;
mod review_jobs;
pub mod sqlite;

pub use lease::{Claim, LeaseFuture, Leases};
pub use memory::MemoryStore;
pub use postgres::PgStore;
pub use review_jobs::{
    FinishedReview, MAX_ATTEMPTS, ReviewJob, ReviewJobEnd, ReviewJobState, ReviewJobStore, ReviewOrder,
};
pub use sqlite::SqliteStore;

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use tokio::sync::oneshot;
use uuid::Uuid;

/// Why the store failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    #[error("storage: {0}")]
    Sqlite(String),
    #[error("storage: log row {seq} of game {game} already exists")]
    Conflict { game: Uuid, seq: u64 },
    #[error("storage: no game {0}")]
    NoGame(Uuid),
    #[error("storage: the writer stopped")]
    WriterGone,
    #[error("storage: {0}")]
    Io(String),
    /// The database cannot be reached or did not answer in time: retry.
    #[error("storage: {0}")]
    Unavailable(String),
    /// This replica no longer holds the game's lease: another replica owns it now.
    #[error("storage: this replica no longer owns game {0}")]
    Fenced(Uuid),
    /// A director key of that name was made before (names are never used twice, revoked or not).
    #[error("storage: a director key named {0:?} exists")]
    KeyExists(String),
    #[error("storage: no director key named {0:?}")]
    NoKey(String),
    /// A tournament written by another since this writer read it: read it again.
    #[error("storage: tournament {0:?} changed since it was read")]
    Stale(String),
    /// A broadcast written by another since this writer read it: read it again.
    #[error("storage: broadcast {0:?} changed since it was read")]
    BroadcastStale(String),
    /// The lobby written by another since this writer read it: read it again.
    #[error("storage: the bots' lobby changed since it was read")]
    LobbyStale,
    /// A review job asked again, or claimed by another, since this claim took it.
    #[error("storage: the review job of game {0} moved on since it was claimed")]
    ReviewJobMoved(Uuid),
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::Sqlite(e.to_string())
    }
}

/// A game as stored: its record, its log in order, and whether it was set aside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    pub id: Uuid,
    pub record: Vec<u8>,
    /// Log rows by sequence number, ascending, from 0.
    pub log: Vec<(u64, Vec<u8>)>,
    pub finished: bool,
    /// Why the game could not be replayed, once it has been quarantined.
    pub quarantined: Option<String>,
}

/// A tournament as kept: its slug, its version (1 for the first write, one more each write) and
/// its state, opaque to the store: a body and parts beside it by key, so that a change writes
/// the parts it changed and not the whole state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredTournament {
    pub slug: String,
    pub version: u64,
    pub body: Vec<u8>,
    /// Read: every part, by key in byte order. Written: the parts this version writes (a key's part
    /// replaces the one kept; the others stay as they are).
    pub parts: Vec<(String, Vec<u8>)>,
}

/// A tournament's next version and what it adds beside its state: its new events and the answer
/// a request was given. Events and answers are rows of their own, each written once, so that a
/// change writes what changed and not every event and answer there ever was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentChange {
    pub tournament: StoredTournament,
    /// The events this version adds, by number (each number written once).
    pub events: Vec<(u64, Vec<u8>)>,
    /// Answers by request key, kept while they are among the latest [`TOURNAMENT_ANSWERS_KEPT`]
    /// versions' (a key answered again replaces its answer).
    pub answers: Vec<(String, Vec<u8>)>,
    /// The reviews this version asks of the jobs, in order ([`ReviewJobStore`]).
    pub reviews: Vec<ReviewOrder>,
}

/// A broadcast as kept: its slug, its version (1 for the first write, one more each write) and
/// its settings, opaque to the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredBroadcast {
    pub slug: String,
    pub version: u64,
    pub body: Vec<u8>,
}

/// The bots' lobby as kept: its version (0: never written), the tag of the write that made it,
/// and its parts by key in byte order, opaque to the store.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredLobby {
    pub version: u64,
    pub tag: u64,
    pub parts: Vec<(String, Vec<u8>)>,
}

/// The lobby's next version: the parts it writes or removes, and the events it adds to bots'
/// streams.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LobbyChange {
    /// The version written: it lands only over the one before, made by the write tagged
    /// `base_tag` (so a change made on a version that never landed never lands, whichever write
    /// took its number).
    pub version: u64,
    /// This write's tag (drawn by the writer), and the tag of the version it was made on.
    pub tag: u64,
    pub base_tag: u64,
    /// A key's new part (replacing the one kept), or None: the part kept under it removed.
    pub parts: Vec<(String, Option<Vec<u8>>)>,
    /// Events by bot and number (each number of a bot written once).
    pub events: Vec<(String, u64, Vec<u8>)>,
}

/// How many versions back a tournament's kept answers reach: a retry later than that is a new
/// request.
pub const TOURNAMENT_ANSWERS_KEPT: u64 = 1024;

/// A game's labels (tournament, division, round, table, …): keys with their values.
pub type Labels = Vec<(String, String)>;

/// A director key as kept. Its token is never kept, only the token's SHA-256.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirectorKey {
    /// Unique among every key made, revoked ones included.
    pub name: String,
    pub token_hash: [u8; 32],
    /// The key directs the games whose labels include every one of these.
    pub labels: Labels,
    pub created_unix_ms: u64,
    pub revoked_unix_ms: Option<u64>,
}

/// One row of a `director_keys` table (name, token hash, labels as text, created and revoked
/// times in Unix ms), as both SQL stores keep it.
pub(crate) type DirectorKeyRow = (String, Vec<u8>, String, i64, Option<i64>);

impl DirectorKey {
    /// The key a `director_keys` row keeps; [`StoreError::Io`] for a hash that is no SHA-256.
    pub(crate) fn from_row(
        (name, hash, labels, created, revoked): DirectorKeyRow,
    ) -> Result<DirectorKey, StoreError> {
        let token_hash = <[u8; 32]>::try_from(hash.as_slice()).map_err(|_| {
            StoreError::Io(format!("director key {name:?}: a token hash of {} bytes", hash.len()))
        })?;
        Ok(DirectorKey {
            name,
            token_hash,
            labels: labels_of_text(&labels),
            created_unix_ms: created as u64,
            revoked_unix_ms: revoked.map(|r| r as u64),
        })
    }
}

/// Labels as one text column keeps them: a `key=value` line each. Keys never hold `=` and
/// values never hold a control character (the services check both).
pub(crate) fn labels_text(labels: &Labels) -> String {
    labels.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("\n")
}

/// The labels [`labels_text`] wrote.
pub(crate) fn labels_of_text(text: &str) -> Labels {
    text.lines()
        .filter_map(|line| line.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Which games a listing wants, a page at a time.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameQuery {
    /// Every one of these must be among the game's labels.
    pub labels: Labels,
    pub state: GameState,
    /// Only games whose id comes after this one (the previous page's last).
    pub after: Option<Uuid>,
    /// Games on the page at most.
    pub limit: usize,
}

/// A game's state as a listing filters it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GameState {
    #[default]
    Any,
    /// Neither finished nor set aside.
    Live,
    Finished,
}

/// A page of game ids, in id order, and how many games the query matches in all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GamePage {
    pub ids: Vec<Uuid>,
    pub total: u64,
}

/// A read on its way: it resolves once the store has answered, and never blocks the thread that
/// awaits it (SQLite reads on a thread of their own, PostgreSQL over its async client).
pub type Reading<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// A write on its way to disk.
pub struct Pending(PendingInner);

enum PendingInner {
    Ready(Result<(), StoreError>),
    Waiting(oneshot::Receiver<Result<(), StoreError>>),
}

impl Pending {
    pub fn ready(result: Result<(), StoreError>) -> Pending {
        Pending(PendingInner::Ready(result))
    }

    pub(crate) fn waiting(rx: oneshot::Receiver<Result<(), StoreError>>) -> Pending {
        Pending(PendingInner::Waiting(rx))
    }

    /// Resolves once the write is durable (or has failed).
    pub async fn wait(self) -> Result<(), StoreError> {
        match self.0 {
            PendingInner::Ready(r) => r,
            PendingInner::Waiting(rx) => rx.await.unwrap_or(Err(StoreError::WriterGone)),
        }
    }
}

/// Everything a server keeps, each aggregate behind its own trait: its games ([`GameStore`]),
/// the reviews kept with them ([`ReviewStore`]), the director keys ([`DirectorKeyStore`]), the
/// tournaments ([`TournamentStore`]), the broadcasts ([`BroadcastStore`]) and the bots' lobby
/// ([`LobbyStore`]), and the review jobs ([`ReviewJobStore`]). The host is handed the first
/// three, the events layer the rest.
pub trait Store:
    GameStore + ReviewStore + DirectorKeyStore + TournamentStore + BroadcastStore + LobbyStore + ReviewJobStore
{
}

impl<
    T: GameStore
        + ReviewStore
        + DirectorKeyStore
        + TournamentStore
        + BroadcastStore
        + LobbyStore
        + ReviewJobStore,
> Store for T
{
}

/// Where games are kept. Writes for one game arrive in order (one task writes a game's rows,
/// awaiting each until it is durable before the next); writes of different games may be
/// committed together.
pub trait GameStore: Send + Sync {
    /// Store a new game's record, its labels and its first log row (row 0), atomically.
    fn create(
        &self,
        id: Uuid,
        created_unix_ms: u64,
        record: Vec<u8>,
        first: Vec<u8>,
        finished: bool,
        labels: Labels,
    ) -> Pending;

    /// Append log row `seq` (the next after the last); `finished` marks the game over.
    fn append(&self, id: Uuid, seq: u64, row: Vec<u8>, finished: bool) -> Pending;

    /// Set a game aside: it is never loaded again, and the reason is kept.
    fn quarantine(&self, id: Uuid, reason: &str) -> Pending;

    /// Every game neither finished nor quarantined that this process should serve: all of them
    /// for a store of its own; for a shared store, those whose owner is gone, now claimed.
    fn unfinished(&self) -> Reading<'_, Vec<StoredGame>>;

    /// One game, whatever its state.
    fn load(&self, id: Uuid) -> Reading<'_, Option<StoredGame>>;

    /// The ids of the games `query` names (a set-aside game is never live), a page at a time.
    fn games(&self, query: GameQuery) -> Reading<'_, GamePage>;
}

/// The reviews kept with the games, by game and options.
pub trait ReviewStore: Send + Sync {
    /// Keep a finished review of a game (`key` names the review's options), in place of one
    /// kept before under the same key.
    fn save_review(&self, id: Uuid, key: String, body: Vec<u8>) -> Pending;

    /// The review kept with a game under `key`, if any.
    fn review(&self, id: Uuid, key: String) -> Reading<'_, Option<Vec<u8>>>;
}

/// The director keys, revoked ones included.
pub trait DirectorKeyStore: Send + Sync {
    /// Keep a new director key; [`StoreError::KeyExists`] when its name was used before.
    fn add_director_key(&self, key: DirectorKey) -> Pending;

    /// Mark the key named revoked at `at_unix_ms` (a key revoked before keeps its first time);
    /// [`StoreError::NoKey`] when there is none of that name.
    fn revoke_director_key(&self, name: String, at_unix_ms: u64) -> Pending;

    /// Every director key, revoked ones included, by name.
    fn director_keys(&self) -> Reading<'_, Vec<DirectorKey>>;
}

/// The tournaments: each a state written against its version, with the events and kept answers
/// each version adds as rows of their own.
pub trait TournamentStore: Send + Sync {
    /// Write a tournament's state as version `change.tournament.version`, with the events and
    /// answers it adds, in one transaction: it lands only if the stored version is the one
    /// before (none, for version 1), else [`StoreError::Stale`] and nothing is written. So among
    /// replicas a tournament has one writer at a time: the one whose read is the latest.
    fn put_tournament(&self, change: TournamentChange) -> Pending;

    /// A tournament's events numbered `from` on, in order.
    fn tournament_events(&self, slug: String, from: u64) -> Reading<'_, Vec<(u64, Vec<u8>)>>;

    /// The answers kept for request keys of a tournament, by key: those still kept (one read
    /// for many keys, as a batch of changes asks them together).
    fn tournament_answers(&self, slug: String, keys: Vec<String>) -> Reading<'_, HashMap<String, Vec<u8>>>;

    /// A tournament by its slug, at its latest version.
    fn tournament(&self, slug: String) -> Reading<'_, Option<StoredTournament>>;

    /// A tournament's latest version (none: no such tournament), without its state: how a
    /// replica finds whether the state it holds is still the latest.
    fn tournament_version(&self, slug: String) -> Reading<'_, Option<u64>>;

    /// Every tournament, by slug.
    fn tournaments(&self) -> Reading<'_, Vec<StoredTournament>>;
}

/// The broadcasts, each written whole against its version.
pub trait BroadcastStore: Send + Sync {
    /// Write a broadcast as version `broadcast.version`: it lands only if the stored version is
    /// the one before (none, for version 1), else [`StoreError::BroadcastStale`] and nothing is
    /// written.
    fn put_broadcast(&self, broadcast: StoredBroadcast) -> Pending;

    /// Every broadcast, ended ones included, by slug.
    fn broadcasts(&self) -> Reading<'_, Vec<StoredBroadcast>>;
}

/// The bots' lobby: one state in parts, written against its version, and each bot's events.
pub trait LobbyStore: Send + Sync {
    /// Write the lobby as version `change.version` with the parts and events it changes, in one
    /// transaction: it lands only if the stored version is the one before (0: never written) and
    /// was written by the write tagged `change.base_tag`, else [`StoreError::LobbyStale`] and
    /// nothing is written.
    fn put_lobby(&self, change: LobbyChange) -> Pending;

    /// The lobby at its latest version, with every part.
    fn lobby(&self) -> Reading<'_, StoredLobby>;

    /// The lobby's latest version (0: never written), without its parts.
    fn lobby_version(&self) -> Reading<'_, u64>;

    /// A bot's events numbered `from` on, in order.
    fn bot_events(&self, bot: String, from: u64) -> Reading<'_, Vec<(u64, Vec<u8>)>>;
}

impl GameQuery {
    /// Whether a game with these labels, finished or not and set aside or not, is wanted
    /// (paging aside): the stores that filter in memory ask this.
    pub fn wants(&self, labels: &[(String, String)], finished: bool, quarantined: bool) -> bool {
        let state = match self.state {
            GameState::Any => true,
            GameState::Live => !finished && !quarantined,
            GameState::Finished => finished,
        };
        state && self.labels.iter().all(|l| labels.contains(l))
    }
}

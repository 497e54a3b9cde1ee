//! The events layer: tournaments and broadcasts as an application beneath the services and above
//! the host. It owns a tournament's record and its store format (records of earlier builds still
//! read), the change-and-retry loop that writes it (one writer per replica at a time: the hold;
//! one version after another among replicas), the cache of what was last read, when each result
//! came in, the one door a result enters by ([`Record::enter_result`]), the director's calls that
//! end games before a result is written, and every broadcast with its delay ([`Registry`]) and
//! the feed that follows its games for WatchBroadcast.
//!
//! It speaks domain types only: its errors are [`EventsError`] (the services map them to
//! statuses in one place), its events [`TournamentEvent`], a tournament's games' settings
//! [`GameSettings`]. It depends on no gRPC: a game held by another replica is reached through
//! the [`Owners`] seam, which the services' forwarding implements, and a broadcast's messages are
//! made and encoded by the services through [`FeedWire`].

mod broadcasts;
mod error;
mod lobby;
mod records;
mod settings;
mod tournaments;

pub use broadcasts::{
    Broadcast, BroadcastChange, Encoded, EncodedStream, Fact, FeedWire, Judged, Kept, REFRESH, Registry,
    RelayStream, Relayed,
};
pub use error::{
    DivisionAt, EventsError, Invalid, MAX_DIVISIONS, MAX_KINDS, MAX_SPREAD, NameAt, PlayerNamed, PlayersOf,
    SpreadOf, check_divisions, check_methods, check_players, check_spread,
};
pub use lobby::{
    Accepts, BotAccount, BotEvent, BotEventKind, BotEvents, BotLimits, BotProfile, Challenge, ChallengeState,
    Challenger, DeclineReason, LIMIT_BOT_GAMES, LIMIT_CHALLENGES, LobbyActor, LobbyError, LobbyGames,
    LobbyLimits, LobbySeat, NewBot, NewChallenge, Rated, Rating, SERVER_BOT, TimeClass, bot_account_label,
};
pub use settings::{ClockSettings, GameOptions, GameSettings};
pub use tournaments::{
    Actor, Answer, Claimed, Command, DivisionId, DivisionRecord, DivisionStatistics, EventKind, GAME,
    GameLink, Hand, HandResult, Import, Line, LineReports, LogFilter, MAX_REVIEW_MS, MIN_REVIEW_MS,
    NewDivision, NewTournament, Outcome, Owners, PlayerReport, REVIEW_MS, ROOT, Record, ReportState,
    ReportsMode, ReviewJob, ReviewJobEnd, ReviewJobState, ReviewScope, RoundGames, Source, TournamentEvent,
    Watched, derived_request_id, game_labels, game_result, log_csv, log_json_lines, review_ms,
};

use dawgref_host::Host;
use dawgref_store::{BroadcastStore, LobbyStore, ReviewJobStore, TournamentStore};
use records::{BroadcastRecords, TournamentRecords};
use std::sync::Arc;

/// The events layer's handle: cheap to clone, one per server.
#[derive(Clone)]
pub struct Events(Arc<Inner>);

struct Inner {
    host: Host,
    /// The tournaments in the store.
    tournament_records: TournamentRecords,
    /// The broadcasts in the store.
    broadcast_records: BroadcastRecords,
    /// Each tournament changed here, by slug: WatchTournament's streams hear it at once.
    changes: tokio::sync::broadcast::Sender<String>,
    /// Tournaments changed one call at a time on this replica (a slug's lock is its hash's
    /// stripe): its own concurrent calls queue, and only a replica's is a conflict.
    locks: [tokio::sync::Mutex<()>; 64],
    /// Changes waiting for their tournament, written together as one version (`batch`).
    queues: tournaments::Queues,
    /// Each tournament's state as last read or written here, with its version.
    cache: tournaments::Cache,
    /// When each tournament result came in and each round was paired and started, as read
    /// here: where a broadcast's delay cuts a spectator's view.
    marks: tournaments::Marks,
    /// Every broadcast, as last read or written here: how long a spectator's view of a game is
    /// held back.
    broadcasts: Registry,
    /// WatchBroadcast's feeds, one per broadcast watched here.
    feeds: broadcasts::Feeds,
    /// The bots' lobby: accounts, challenges, ratings, streams.
    lobby: lobby::Lobby,
    /// The review jobs the tournaments ask.
    review_jobs: Arc<dyn ReviewJobStore>,
}

impl Events {
    /// The layer over `host`, keeping its tournaments, broadcasts, lobby and review jobs in the
    /// stores given.
    pub fn new(
        host: Host,
        tournaments: Arc<dyn TournamentStore>,
        broadcasts: Arc<dyn BroadcastStore>,
        lobby: Arc<dyn LobbyStore>,
        review_jobs: Arc<dyn ReviewJobStore>,
        lobby_limits: LobbyLimits,
    ) -> Events {
        Events(Arc::new(Inner {
            host,
            tournament_records: TournamentRecords::new(tournaments),
            broadcast_records: BroadcastRecords::new(broadcasts),
            changes: tokio::sync::broadcast::channel(1024).0,
            locks: std::array::from_fn(|_| tokio::sync::Mutex::new(())),
            queues: Default::default(),
            cache: Default::default(),
            marks: Default::default(),
            broadcasts: Default::default(),
            feeds: Default::default(),
            lobby: lobby::Lobby::new(lobby, lobby_limits),
            review_jobs,
        }))
    }

    /// Every broadcast this replica knows, and the delay every door of a game asks of them.
    pub fn broadcasts(&self) -> &Registry {
        &self.0.broadcasts
    }

    /// Hear the slug of every tournament changed on this replica.
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<String> {
        self.0.changes.subscribe()
    }
}

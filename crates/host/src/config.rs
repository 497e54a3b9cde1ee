//! What a host is set up with beyond its lexicons and store: operational limits and the hooks
//! tests reach in by.

use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

/// How long a game may sit idle before it sleeps, unless configured otherwise.
pub const DEFAULT_IDLE_AFTER: Duration = Duration::from_secs(300);

/// Analysis searches one client may hold at once, unless configured otherwise.
pub const DEFAULT_SEARCHES_PER_CLIENT: usize = 4;

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
    /// A live game left alone this long (no request, no watcher, no bot to move, no flag to
    /// fall within the same span) goes to sleep: its task stops and it leaves memory, to be
    /// woken from the store by its next request, or by the host when its next flag is due.
    /// None: games never sleep.
    pub idle_after: Option<Duration>,
    /// Analysis searches (InferRack, Simulate, SolveEndgame, SolvePreEndgame, AnalyzeGame) one
    /// client holds at once, waiting or running; one more is refused (RESOURCE_EXHAUSTED).
    pub searches_per_client: usize,
    /// How fast one client may create games (CreateGame, ImportGcg): a token bucket, so that
    /// no client alone fills `max_games` or the store. None: as fast as it likes.
    pub create_rate: Option<CreateRate>,
    /// The niceness of the threads the live games' bots think on (0: the process's own, 19:
    /// the lowest). Higher keeps requests quicker while bots keep the cores busy; lower keeps a
    /// bot's move within its budget while other programs load the machine (BENCHMARKS.md).
    pub bot_nice: i32,
}

/// A token bucket: `burst` games at once, then `per_minute` more a minute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CreateRate {
    pub burst: u32,
    pub per_minute: u32,
}

impl Default for CreateRate {
    fn default() -> Self {
        CreateRate { burst: 100, per_minute: 600 }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_games: 100_000,
            streams_per_game: 64,
            max_message_bytes: 256 * 1024,
            concurrency: 1024,
            event_buffer: 128,
            idle_after: Some(DEFAULT_IDLE_AFTER),
            searches_per_client: DEFAULT_SEARCHES_PER_CLIENT,
            create_rate: Some(CreateRate::default()),
            bot_nice: crate::pool::BOT_NICE,
        }
    }
}

/// Functions the host calls at set points: where tests reach into a bot's thinking, and where
/// the server frees memory. (Not a word's hooks: those are `lexicon::study::Hooks`.)
#[derive(Clone, Default)]
pub struct Callbacks {
    /// Called on the pool's worker before every bot decision, with the game's id: a test can
    /// block here to make a bot think as long as it likes.
    pub before_bot_decision: Option<Arc<dyn Fn(Uuid) + Send + Sync>>,
    /// Called by a thinking thread each time it runs out of jobs: the server hands the memory
    /// its jobs freed back to the system there (`dawgref::memory`), which the host cannot
    /// do itself (it knows no allocator).
    pub worker_idle: Option<fn()>,
}

//! Server state: the loaded lexicons, the sessions (`DashMap<Uuid, Arc<GameSession>>`), limits
//! and metrics. A session holds its game behind a `tokio::sync::Mutex` and publishes every new
//! event on a `broadcast` channel. No map guard is ever held across an `.await`: handlers clone
//! the session's `Arc` out of the map first.

use super::auth::TokenHash;
use super::metrics::Metrics;
use crate::bot::{self, BotLevel};
use crate::game::{Event, Game};
use crate::lexicon::Lexicon;
use dashmap::DashMap;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Instant;
use tokio::sync::{Mutex, broadcast, watch};
use tonic::Status;
use uuid::Uuid;

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

/// Who sits in a seat.
#[derive(Clone, Debug)]
pub enum SeatKind {
    /// A person; `token` is the hash of its secret, `None` while the seat is open.
    Human {
        token: Option<TokenHash>,
    },
    Bot(BotLevel),
}

#[derive(Clone, Debug)]
pub struct Seat {
    pub name: String,
    pub kind: SeatKind,
}

/// Everything behind a session's lock.
pub struct SessionState {
    pub game: Game,
    pub seats: Vec<Seat>,
    /// First results of requests by (seat, request_id), for idempotent retries.
    pub done: HashMap<(usize, String), Vec<u8>>,
    /// Events already published on the broadcast channel.
    pub published: usize,
}

impl SessionState {
    /// Token hashes per seat (None for bots and open seats).
    pub fn token_hashes(&self) -> Vec<Option<TokenHash>> {
        self.seats
            .iter()
            .map(|s| match s.kind {
                SeatKind::Human { token } => token,
                SeatKind::Bot(_) => None,
            })
            .collect()
    }

    pub fn bot_level(&self, seat: usize) -> Option<BotLevel> {
        match self.seats.get(seat)?.kind {
            SeatKind::Bot(l) => Some(l),
            SeatKind::Human { .. } => None,
        }
    }
}

/// One live game.
pub struct GameSession {
    pub id: Uuid,
    pub created: Instant,
    pub state: Mutex<SessionState>,
    pub events: broadcast::Sender<Arc<Event>>,
    pub watchers: AtomicUsize,
}

impl GameSession {
    /// Milliseconds since the game was created: the game's clock.
    pub fn now_ms(&self) -> u64 {
        self.created.elapsed().as_millis() as u64
    }

    /// Let every bot whose turn it is (or who should challenge) act, then publish the new
    /// events. Bots go through the same `Game` methods as people.
    pub fn settle(&self, st: &mut SessionState, metrics: &Metrics) {
        let now = self.now_ms();
        loop {
            if st.game.is_over() {
                break;
            }
            let seats = st.game.config().seats;
            if let Some((player, _)) = st.game.challengeable() {
                let challenger = (0..seats).map(|k| (st.game.to_move() + k) % seats).find(|&s| {
                    s != player && st.bot_level(s).is_some() && bot::wants_to_challenge(&st.game, s)
                });
                if let Some(s) = challenger {
                    if st.game.challenge(s, now).is_err() {
                        break;
                    }
                    continue;
                }
            }
            let seat = st.game.to_move();
            let Some(level) = st.bot_level(seat) else { break };
            let started = Instant::now();
            let action = bot::choose_action(&st.game, seat, level);
            metrics.bot_turn.observe(started.elapsed().as_secs_f64());
            if st.game.act(seat, action, now).is_err() {
                // A bot's move is legal by construction; if the engine disagrees, stop rather
                // than loop, and leave the seat to time out.
                break;
            }
            metrics.turns.inc();
        }
        self.publish(st);
    }

    /// Send events not yet published.
    pub fn publish(&self, st: &mut SessionState) {
        let history = st.game.history();
        for e in &history[st.published..] {
            // No receivers is fine: nobody is watching.
            let _ = self.events.send(Arc::new(e.clone()));
        }
        st.published = history.len();
    }
}

/// A position built from a CGP line: its board, first rack, and lexicon.
pub type CachedPosition = (crate::board::Board, Option<crate::rack::Rack>, Arc<Lexicon>);

/// Boards built from CGP lines, by (line, lexicon): analysis clients send the same position
/// many times, and building a board's cross-sets costs far more than cloning it. Bounded: the
/// cache is emptied when it reaches its size.
#[derive(Default)]
pub struct PositionCache {
    boards: std::sync::Mutex<HashMap<(String, String), CachedPosition>>,
}

impl PositionCache {
    const CAPACITY: usize = 1024;

    pub fn get(&self, cgp: &str, lexicon: &str) -> Option<CachedPosition> {
        let map = self.boards.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&(cgp.to_string(), lexicon.to_string())).cloned()
    }

    pub fn put(&self, cgp: &str, lexicon: &str, position: CachedPosition) {
        let mut map = self.boards.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= Self::CAPACITY {
            map.clear();
        }
        map.insert((cgp.to_string(), lexicon.to_string()), position);
    }
}

/// The whole server's state.
pub struct AppState {
    pub positions: PositionCache,
    pub lexicons: BTreeMap<String, Arc<Lexicon>>,
    pub sessions: DashMap<Uuid, Arc<GameSession>>,
    pub limits: Limits,
    pub metrics: Metrics,
    /// Flips to true on shutdown: open streams end.
    pub shutdown: watch::Receiver<bool>,
}

impl AppState {
    pub fn new(lexicons: Vec<Lexicon>, limits: Limits, shutdown: watch::Receiver<bool>) -> AppState {
        AppState {
            lexicons: lexicons.into_iter().map(|l| (l.name().to_string(), Arc::new(l))).collect(),
            sessions: DashMap::new(),
            positions: PositionCache::default(),
            limits,
            metrics: Metrics::new(),
            shutdown,
        }
    }

    /// The session of a game id, cloned out of the map.
    pub fn session(&self, id: &str) -> Result<Arc<GameSession>, Status> {
        let uuid = Uuid::parse_str(id)
            .map_err(|_| super::errors::bad_field("game_id", format!("not a UUID: {id:?}")))?;
        self.sessions.get(&uuid).map(|s| s.clone()).ok_or_else(|| Status::not_found(format!("no game {id}")))
    }

    pub fn lexicon(&self, name: &str) -> Result<Arc<Lexicon>, Status> {
        self.lexicons.get(name).cloned().ok_or_else(|| {
            let known: Vec<&str> = self.lexicons.keys().map(|k| k.as_str()).collect();
            super::errors::bad_field(
                "lexicon",
                format!("unknown lexicon {name:?} (loaded: {})", known.join(", ")),
            )
        })
    }
}

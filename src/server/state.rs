//! Server state: the loaded lexicons, the sessions (`DashMap<Uuid, Arc<GameSession>>`), limits
//! and metrics. A session holds its game behind a `tokio::sync::Mutex` and publishes every new
//! event on a `broadcast` channel. No map guard is ever held across an `.await`: handlers clone
//! the session's `Arc` out of the map first.

use super::auth::TokenHash;
use super::metrics::Metrics;
use crate::bot::{self, BotLevel};
use crate::game::{Action, Event, Game, GameError, Verdict};
use crate::lexicon::Lexicon;
use crate::store::GameStore;
use crate::store::record::{Batch, Done, Step};
use dashmap::DashMap;
use prost::Message;
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
    /// Engine calls made since the last commit: the next log row.
    pub steps: Vec<Step>,
    /// Sequence number of the next log row.
    pub seq: u64,
    /// Set when a log row could not be written and the durable state could not be read back
    /// either: the session has left memory, and the next request reloads the game.
    pub broken: bool,
}

impl SessionState {
    pub fn new(game: Game, seats: Vec<Seat>) -> SessionState {
        SessionState {
            game,
            seats,
            done: HashMap::new(),
            published: 0,
            steps: Vec::new(),
            seq: 0,
            broken: false,
        }
    }

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

    /// The seat a request's token belongs to in this game, if a token came; a token that fits no
    /// seat is UNAUTHENTICATED.
    pub fn caller(&self, metadata: &tonic::metadata::MetadataMap) -> Result<Option<usize>, Status> {
        match super::auth::bearer(metadata)? {
            None => Ok(None),
            Some(token) => super::auth::find_seat(&token, &self.token_hashes())
                .map(Some)
                .ok_or_else(|| Status::unauthenticated("the token does not belong to a seat of this game")),
        }
    }

    pub fn bot_level(&self, seat: usize) -> Option<BotLevel> {
        match self.seats.get(seat)?.kind {
            SeatKind::Bot(l) => Some(l),
            SeatKind::Human { .. } => None,
        }
    }

    /// The first response to `seat`'s request `key`, if it was answered before (no key: none).
    pub fn remembered<M: Message + Default>(
        &self,
        seat: usize,
        key: Option<&str>,
    ) -> Result<Option<M>, Status> {
        let Some(bytes) = key.and_then(|k| self.done.get(&(seat, k.to_string()))) else { return Ok(None) };
        M::decode(bytes.as_slice())
            .map(Some)
            .map_err(|e| Status::internal(format!("a remembered response: {e}")))
    }

    /// Remember `response` as the answer to `seat`'s request `key`; what the log row keeps of it.
    pub fn remember(&mut self, seat: usize, key: Option<String>, response: &impl Message) -> Option<Done> {
        let key = key?;
        let bytes = response.encode_to_vec();
        self.done.insert((seat, key.clone()), bytes.clone());
        Some(Done { seat: seat as u32, request_id: key, response: bytes })
    }

    /// [`Game::act`], noting the step for the log. A refused action changes nothing, unless the
    /// clock ran out on the way: that is logged as a tick.
    pub fn act(&mut self, seat: usize, action: Action, now_ms: u64) -> Result<(), GameError> {
        let step = Step::action(seat, &action, now_ms, self.game.config().rules.alphabet);
        let before = self.game.history().len();
        let result = self.game.act(seat, action, now_ms);
        self.note(result.is_ok(), step, before, now_ms);
        result
    }

    /// [`Game::challenge`], noting the step for the log.
    pub fn challenge(&mut self, seat: usize, now_ms: u64) -> Result<Verdict, GameError> {
        let before = self.game.history().len();
        let result = self.game.challenge(seat, now_ms);
        self.note(result.is_ok(), Step::challenge(seat, now_ms), before, now_ms);
        result
    }

    /// [`Game::tick`], noting a time loss for the log.
    pub fn tick(&mut self, now_ms: u64) -> bool {
        let ended = self.game.tick(now_ms);
        if ended {
            self.steps.push(Step::tick(now_ms));
        }
        ended
    }

    fn note(&mut self, ok: bool, step: Step, before: usize, now_ms: u64) {
        if ok {
            self.steps.push(step);
        } else if self.game.history().len() != before {
            self.steps.push(Step::tick(now_ms));
        }
    }
}

/// One live game.
pub struct GameSession {
    pub id: Uuid,
    /// When this process began serving the game.
    pub created: Instant,
    /// The game clock's reading at `created`: 0 for a new game, the last logged reading for a
    /// recovered one (time the server was down is nobody's time).
    pub base_ms: u64,
    pub state: Mutex<SessionState>,
    pub events: broadcast::Sender<Arc<Event>>,
    pub watchers: AtomicUsize,
    /// Set when the session is dropped from memory: its watchers' streams end.
    pub gone: watch::Sender<bool>,
}

impl GameSession {
    pub fn new(id: Uuid, base_ms: u64, state: SessionState, event_buffer: usize) -> GameSession {
        // Watchers that fall further behind replay from the history, so the channel stays small.
        let (events, _) = broadcast::channel(event_buffer.max(1));
        GameSession {
            id,
            created: Instant::now(),
            base_ms,
            state: Mutex::new(state),
            events,
            watchers: AtomicUsize::new(0),
            gone: watch::channel(false).0,
        }
    }

    /// The game's clock, in milliseconds.
    pub fn now_ms(&self) -> u64 {
        self.base_ms.saturating_add(self.created.elapsed().as_millis() as u64)
    }

    /// Let every bot whose turn it is (or who should challenge) act. Bots go through the same
    /// `Game` methods as people; their steps join the request's log row.
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
                    if st.challenge(s, now).is_err() {
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
            if st.act(seat, action, now).is_err() {
                // A bot's move is legal by construction; if the engine disagrees, stop rather
                // than loop, and leave the seat to time out.
                break;
            }
            metrics.turns.inc();
        }
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

/// A position to analyse: its board, the rack that goes with it (a CGP's first rack, or the
/// caller's own rack in a live game), and its lexicon. Shared, not copied: a board is ~5 KB.
pub struct Position {
    pub board: Arc<crate::board::Board>,
    pub rack: Option<crate::rack::Rack>,
    pub lexicon: Arc<Lexicon>,
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

/// The whole server's state.
pub struct AppState {
    pub positions: PositionCache,
    pub lexicons: BTreeMap<String, Arc<Lexicon>>,
    pub sessions: DashMap<Uuid, Arc<GameSession>>,
    pub limits: Limits,
    pub metrics: Metrics,
    /// Flips to true on shutdown: open streams end.
    pub shutdown: watch::Receiver<bool>,
    /// Where games are made durable.
    pub store: Arc<dyn GameStore>,
}

impl AppState {
    pub fn new(
        lexicons: Vec<Lexicon>,
        limits: Limits,
        shutdown: watch::Receiver<bool>,
        store: Arc<dyn GameStore>,
    ) -> AppState {
        AppState {
            lexicons: lexicons.into_iter().map(|l| (l.name().to_string(), Arc::new(l))).collect(),
            sessions: DashMap::new(),
            positions: PositionCache::default(),
            limits,
            metrics: Metrics::new(),
            shutdown,
            store,
        }
    }

    /// The session of a game id, cloned out of the map; a game not in memory (finished in an
    /// earlier run, or discarded after a failed write) is rebuilt from the store. A finished
    /// game is served from its rebuilt session without being held: it changes no more, and
    /// reading history must not fill the server up to `max_games`.
    pub async fn session(&self, id: &str) -> Result<Arc<GameSession>, Status> {
        let uuid = Uuid::parse_str(id).map_err(|_| {
            super::errors::bad_field(
                "game_id",
                format!("not a UUID: {:?} ({} characters)", crate::text::clip(id), id.chars().count()),
            )
        })?;
        if let Some(s) = self.sessions.get(&uuid) {
            return Ok(s.clone());
        }
        let store = self.store.clone();
        let stored = tokio::task::spawn_blocking(move || store.load(uuid))
            .await
            .map_err(|e| Status::internal(format!("loading game {id}: {e}")))?
            .map_err(|e| Status::unavailable(format!("loading game {id}: {e}")))?;
        let Some(stored) = stored else { return Err(Status::not_found(format!("no game {id}"))) };
        if let Some(reason) = &stored.quarantined {
            return Err(Status::failed_precondition(format!(
                "game {id} is quarantined (its log could not be replayed: {reason})"
            )));
        }
        let mut session = super::recovery::rebuild(self, &stored).map_err(|reason| {
            Status::failed_precondition(format!("game {id} cannot be replayed: {reason}"))
        })?;
        if session.state.get_mut().game.is_over() {
            return Ok(Arc::new(session));
        }
        Ok(self.sessions.entry(uuid).or_insert_with(|| Arc::new(session)).clone())
    }

    /// Make the session's new steps durable as its next log row (with the request's response,
    /// when it is to be remembered), then publish its new events. The caller holds the
    /// session's lock, so rows of one game are written in order. If the write fails, the
    /// session's state is put back to what is durable (replayed from the store) and the request
    /// fails: nothing unstored is ever answered or published.
    pub async fn commit(
        &self,
        session: &GameSession,
        st: &mut SessionState,
        done: Option<Done>,
    ) -> Result<(), Status> {
        if st.broken {
            return Err(Status::unavailable("the game is being reloaded from its log; retry"));
        }
        if st.steps.is_empty() && done.is_none() {
            session.publish(st);
            return Ok(());
        }
        let batch = Batch { steps: std::mem::take(&mut st.steps), done };
        let seq = st.seq;
        let started = Instant::now();
        let result =
            self.store.append(session.id, seq, batch.encode_to_vec(), st.game.is_over()).wait().await;
        self.metrics.commit.observe(started.elapsed().as_secs_f64());
        if let Err(e) = result {
            tracing::error!(game = %session.id, seq, error = %e, "log row not written; game put back to its last durable turn");
            self.restore(session, st).await;
            return Err(Status::unavailable(format!("the turn could not be stored ({e}); retry")));
        }
        st.seq += 1;
        session.publish(st);
        if st.game.is_over() {
            // A finished game changes no more: it leaves memory (its watchers have had every
            // event) and is rebuilt from the store if a request names it again.
            self.sessions.remove(&session.id);
            self.metrics.games_live.set(self.sessions.len() as i64);
        }
        Ok(())
    }

    /// Put a session back to its durable state. If even that cannot be read, drop it from
    /// memory (the next request reloads it) and end its watchers' streams.
    async fn restore(&self, session: &GameSession, st: &mut SessionState) {
        let store = self.store.clone();
        let id = session.id;
        let stored =
            tokio::task::spawn_blocking(move || store.load(id)).await.ok().and_then(Result::ok).flatten();
        match stored.map(|g| super::recovery::replay(self, &g)) {
            Some(Ok((fresh, _))) => *st = fresh,
            _ => {
                st.broken = true;
                self.sessions.remove(&session.id);
                let _ = session.gone.send(true);
            }
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

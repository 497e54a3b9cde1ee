//! What passes between a game's handle ([`crate::Session`]) and its task (`actor`): the
//! commands and their replies, the answers of a turn, a challenge and a director's action, the
//! game's clock, what the handle tells the task of the game's use, and the event channel.

use super::error::HostError;
use super::input::PlayInput;
use super::state::{Snapshot, TokenHash};
use super::switch::Switch;
use dawgref_engine::bot::{self, BotLevel};
use dawgref_engine::game::{Action, DirectorAction, Event, Game, Verdict};
use dawgref_engine::play::Play;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::sync::{broadcast, oneshot};
use tokio::time::Instant;
use uuid::Uuid;

/// A turn that was taken: what its answer is made of. `snapshot` is the game right after it.
pub struct TurnDone {
    pub id: Uuid,
    pub seat: usize,
    pub points: i32,
    /// The play made (for a play; None for an exchange, a pass or a resignation).
    pub play: Option<Play>,
    pub snapshot: Arc<Snapshot>,
    /// The game clock's reading when the turn was taken.
    pub now_ms: u64,
}

/// A challenge that was decided: its verdict and the game right after it.
pub struct ChallengeDone {
    pub id: Uuid,
    pub seat: usize,
    pub verdict: Verdict,
    pub snapshot: Arc<Snapshot>,
    pub now_ms: u64,
}

/// A director's action that was taken, and the game right after it.
pub struct DirectorDone {
    pub id: Uuid,
    pub snapshot: Arc<Snapshot>,
    pub now_ms: u64,
}

/// What a director does to a game: an action of the engine's, or taking back the last turn.
#[derive(Clone, Debug)]
pub enum DirectorOp {
    Act(DirectorAction),
    Undo,
}

/// The answer to a request that may be a retry: done now without a request id (the services
/// make the answer from it), or the answer the services wrote down for its request id, now or
/// the first time (the same bytes either way; see [`crate::Answers`]).
pub enum Answer<T> {
    Done(T),
    Remembered(Vec<u8>),
}

/// The game's clock: milliseconds since the game was created, resuming a recovered game at its
/// last logged reading (time the server was down is nobody's time).
#[derive(Clone, Copy)]
pub(crate) struct GameClock {
    pub(crate) started: Instant,
    pub(crate) base_ms: u64,
}

impl GameClock {
    pub(crate) fn now_ms(&self) -> u64 {
        self.base_ms.saturating_add(self.started.elapsed().as_millis() as u64)
    }

    pub(crate) fn instant_of(&self, ms: u64) -> Instant {
        self.started + Duration::from_millis(ms.saturating_sub(self.base_ms))
    }
}

/// A turn as a service hands it over: still in the request's terms, because a play given by
/// its tiles is read against the board as it is when the turn is taken.
#[derive(Clone)]
pub struct Turn {
    pub request_id: Option<String>,
    pub expected_turn: Option<u32>,
    pub action: TurnAction,
}

#[derive(Clone)]
pub enum TurnAction {
    Play(PlayInput),
    Exchange(String),
    Pass,
    Resign,
}

pub(crate) type Reply<T> = oneshot::Sender<Result<T, HostError>>;

pub(crate) enum Command {
    Turn {
        seat: usize,
        turn: Turn,
        reply: Reply<Answer<TurnDone>>,
    },
    Challenge {
        seat: usize,
        request_id: Option<String>,
        reply: Reply<Answer<ChallengeDone>>,
    },
    Join {
        name: String,
        token: TokenHash,
        reply: Reply<usize>,
    },
    NewToken {
        seat: usize,
        token: TokenHash,
        reply: Reply<()>,
    },
    Direct {
        op: DirectorOp,
        by: Option<String>,
        request_id: Option<String>,
        reply: Reply<Answer<DirectorDone>>,
    },
    /// Answered once no bot has anything left to do at the game's current position.
    Settled(oneshot::Sender<()>),
}

impl Command {
    /// What the command is, for its span.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Command::Turn { .. } => "turn",
            Command::Challenge { .. } => "challenge",
            Command::Join { .. } => "join",
            Command::NewToken { .. } => "new token",
            Command::Direct { .. } => "director",
            Command::Settled(_) => "settled",
        }
    }
}

/// A command on its way to the game's task, with the trace of the call that sent it, when that
/// call is traced: the task's work on it (and the bot decision it prompts) joins that trace.
pub(crate) struct Sent {
    pub(crate) command: Command,
    pub(crate) cause: Option<opentelemetry::Context>,
}

/// A bot's decision about the position after `at` events.
pub(crate) enum Decision {
    Challenge(usize),
    Act(usize, Action),
}

impl Decision {
    /// What the bots do at this position: the first bot (from the seat to move on) that wants to
    /// challenge the last play challenges it; else the bot to move moves. Bots go through the same
    /// game rules as people, and decide from the position alone (same position, same decision).
    pub(crate) fn decide(game: &Game, levels: &[Option<BotLevel>], budget: Duration) -> Option<Decision> {
        if game.is_over() {
            return None;
        }
        let seats = game.config().seats;
        if let Some((player, _)) = game.challengeable() {
            let challenger = (0..seats).map(|k| (game.to_move() + k) % seats).find(|&s| {
                s != player && levels.get(s).copied().flatten().is_some() && bot::wants_to_challenge(game, s)
            });
            if let Some(s) = challenger {
                return Some(Decision::Challenge(s));
            }
        }
        let seat = game.to_move();
        let level = levels.get(seat).copied().flatten()?;
        Some(Decision::Act(seat, bot::choose_action_within(game, seat, level, budget)))
    }
}

/// What the services' side tells a game's task about its use, so that the task knows when the
/// game is idle: watch streams open, and when a request last named it.
pub(crate) struct Activity {
    pub(crate) watchers: AtomicUsize,
    /// Milliseconds from the session's start to the last request that named the game.
    pub(crate) touched_ms: AtomicU64,
    /// Flipped by [`Session::leave`]: the task stops after the operation in hand.
    pub(crate) leave: Switch,
    /// Flipped by the task when it gives the game up or goes to sleep: watchers watch again.
    pub(crate) gone: Switch,
}

impl Activity {
    /// The game is not idle as of now (`started`: the session's start).
    pub(crate) fn touch(&self, started: Instant) {
        self.touched_ms.fetch_max(started.elapsed().as_millis() as u64, Ordering::Relaxed);
    }
}

/// A game's event channel, made when the first watcher subscribes: most games are never
/// watched, and an empty channel of `event_buffer` slots costs a few KB. An event sent before
/// the channel exists is lost to nobody: it is in the snapshot already (the task publishes the
/// snapshot first), and a watcher makes the channel before it reads the snapshot.
pub(crate) struct EventChannel {
    pub(crate) sender: OnceLock<broadcast::Sender<Arc<Event>>>,
    pub(crate) capacity: usize,
}

impl EventChannel {
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.sender.get_or_init(|| broadcast::channel(self.capacity).0).subscribe()
    }

    pub(crate) fn send(&self, event: &Event) {
        if let Some(sender) = self.sender.get() {
            // No receivers is fine: nobody is watching now.
            let _ = sender.send(Arc::new(event.clone()));
        }
    }
}

/// Where a challenge's request id is remembered: beside turn ids, apart from them.
pub(crate) fn challenge_key(request_id: &str) -> String {
    format!("challenge/{request_id}")
}

/// Where a director's request id is remembered.
pub(crate) fn director_key(request_id: &str) -> String {
    format!("director/{request_id}")
}

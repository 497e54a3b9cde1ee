//! A live game's owner. Each live game is one [`Session`]: a task (the actor) that owns the
//! game's [`Core`] and is the only thing that changes it, fed by a command channel. Every
//! operation (a turn, a challenge, a join, a bot's move, a flag that falls) goes through the
//! same steps in the same order, inside the task: the engine call, the log row made durable,
//! the new snapshot and events published, then the answer. Readers never wait on the task:
//! they read the last published [`Snapshot`].
//!
//! The task also owns the game's time: it arms a timer for the next flag fall and feeds the
//! engine the flag-fall time, and it sends bots' thinking to the [`Pool`], applying a decision
//! only if the game is still where it was when the bot looked at it.
//!
//! A task sees only its [`Context`]: the store, the pool, the metrics, the lexicons a replay
//! needs, the live map it leaves when its game ends, and how the services write an answer
//! down ([`Answers`]). Creation, start-up recovery and loading a game on demand all build a
//! session through [`Session::start`]; a finished game gets no task (it changes no more) and
//! answers reads only.

use super::cluster::Cluster;
use super::config::{Hooks, Limits};
use super::error::HostError;
use super::input::{self, PlayInput};
use super::pool::Pool;
use super::recovery::{Lexicons, replay};
use super::state::{Core, Remembered, Snapshot, TokenHash};
use crate::metrics::Metrics;
use dashmap::DashMap;
use dawgref_engine::bot::{self, BotLevel};
use dawgref_engine::game::{Action, DirectorAction, Event, EventKind, Game, GameError, Verdict};
use dawgref_engine::play::Play;
use dawgref_store::GameStore;
use dawgref_store::record::{Batch, Done};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use uuid::Uuid;

/// How the services write down the answer to a turn or a challenge, so that a retry of the same
/// request id gets the same bytes back (from memory or, after a restart, from the log row the
/// bytes are part of). The host keeps them opaque.
pub trait Answers: Send + Sync {
    fn turn(&self, done: &TurnDone) -> Written;
    fn challenge(&self, done: &ChallengeDone) -> Written;
    fn director(&self, done: &DirectorDone) -> Written;
}

/// An answer the services wrote down: the bytes kept for retries, and the answer itself, which
/// the host hands back with the request's [`Answer::Done`] so that it is not made twice.
pub struct Written {
    pub bytes: Vec<u8>,
    pub answer: Box<dyn std::any::Any + Send>,
}

/// What a game's task needs besides its game: shared by every session of one host.
pub struct Context {
    pub(super) lexicons: Lexicons,
    /// The director keys (`directors`).
    pub(super) directors: crate::directors::DirectorKeys,
    pub(super) store: Arc<dyn GameStore>,
    pub(super) pool: Pool,
    /// The analysis searches admitted, by client (`search`).
    pub(super) searches: Arc<crate::search::Searches>,
    pub(super) metrics: Arc<Metrics>,
    pub(super) hooks: Hooks,
    pub(super) limits: Limits,
    pub(super) answers: Arc<dyn Answers>,
    /// Live games' sessions. A finished game is not here: it is rebuilt from the store for the
    /// request that names it. A task takes its game out when the game ends.
    pub(super) live: crate::live::LiveGames<Session>,
    /// Every session's task, so that shutdown can wait for them.
    pub(super) tasks: tokio_util::task::TaskTracker,
    /// Flips to true on shutdown: open streams end, sessions' tasks stop.
    pub(super) shutdown: watch::Receiver<bool>,
    /// Replicas sharing a PostgreSQL store: who owns which game. Unset on a single server.
    pub(super) cluster: OnceLock<Arc<Cluster>>,
    /// Games asleep (out of memory after an idle spell): a few bytes each, so that a woken
    /// game's clock reads as if it had never slept.
    pub(super) asleep: DashMap<Uuid, Asleep>,
    /// Sleeping games' next flag falls, in time order: the host wakes each when it is due.
    pub(super) alarms: std::sync::Mutex<std::collections::BTreeSet<(Instant, Uuid)>>,
    /// Games being loaded from the store, one lock each: however many requests name a game
    /// that is not in memory, it is loaded once.
    pub(super) loading: DashMap<Uuid, Arc<tokio::sync::Mutex<()>>>,
}

/// A sleeping game: its clock's reading when it went to sleep, and when; its next flag; and
/// what a listing of live games filters by (seat names, labels), so that listing does not wake it.
#[derive(Clone, Debug)]
pub(super) struct Asleep {
    pub(super) game_ms: u64,
    pub(super) at: Instant,
    pub(super) wake_at: Option<Instant>,
    pub(super) listing: Listing,
}

/// A sleeping game's seat names and labels in one string: inline when short (most games), so
/// that a sleeping game is one slot of the map and no block of its own on the heap, scattered
/// among the pages its awake state used to fill.
#[derive(Clone, Debug)]
pub(super) enum Listing {
    Inline { len: u8, bytes: [u8; 38] },
    Heap(Box<str>),
}

/// Between names, and between a label's key and value.
const UNIT: char = '\u{1f}';
/// Between the names and the labels, and between labels.
const RECORD: char = '\u{1e}';

impl Listing {
    /// Names and labels, whose text has no control characters of the two separators (a name
    /// or label with one is kept with it replaced by a space).
    pub(super) fn new<'a>(names: impl Iterator<Item = &'a str>, labels: &[(String, String)]) -> Listing {
        let clean = |t: &str| t.replace([UNIT, RECORD], " ");
        let mut text = names.map(clean).collect::<Vec<_>>().join(&UNIT.to_string());
        for (k, v) in labels {
            text.push(RECORD);
            text.push_str(&clean(k));
            text.push(UNIT);
            text.push_str(&clean(v));
        }
        let mut bytes = [0u8; 38];
        match bytes.get_mut(..text.len()) {
            Some(inline) => {
                inline.copy_from_slice(text.as_bytes());
                Listing::Inline { len: text.len() as u8, bytes }
            }
            None => Listing::Heap(text.into_boxed_str()),
        }
    }

    fn text(&self) -> &str {
        match self {
            Listing::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..*len as usize]).unwrap_or_default()
            }
            Listing::Heap(text) => text,
        }
    }

    /// The seat names.
    pub(super) fn names(&self) -> Vec<&str> {
        let names = self.text().split(RECORD).next().unwrap_or_default();
        names.split(UNIT).collect()
    }

    /// The labels, in key order.
    pub(super) fn labels(&self) -> Vec<(&str, &str)> {
        self.text().split(RECORD).skip(1).filter_map(|l| l.split_once(UNIT)).collect()
    }
}

impl Asleep {
    /// The game clock's reading now, had the game stayed awake.
    pub(super) fn now_ms(&self) -> u64 {
        self.game_ms.saturating_add(self.at.elapsed().as_millis() as u64)
    }
}

impl Context {
    /// Let a game go from memory (and its lease, among replicas).
    pub(super) fn release(&self, id: Uuid) {
        self.live.remove(&id);
        self.forget_lease(&id);
    }

    /// [`Context::release`] by a session's task: only if the game's session is still that one
    /// (a game let go and loaded again has a new session, which stays).
    fn release_instance(&self, id: Uuid, instance: u64) {
        if self.live.remove_if(&id, |s| s.instance() == instance) {
            self.forget_lease(&id);
        }
    }

    /// A session's task goes to sleep: remembered as asleep (with an alarm for its next flag),
    /// then out of the live map, if the game's session is still that one. Among replicas its
    /// lease is then released ([`Context::release_sleeping`]).
    fn put_to_sleep(&self, id: Uuid, instance: u64, asleep: Asleep) {
        if self.live.get(&id).is_none_or(|s| s.instance() != instance) {
            return;
        }
        let wake_at = asleep.wake_at;
        self.asleep.insert(id, asleep);
        if let Some(at) = wake_at {
            self.alarms.lock().unwrap_or_else(|e| e.into_inner()).insert((at, id));
        }
        self.live.remove_if(&id, |s| s.instance() == instance);
        self.metrics.games_asleep.set(self.asleep.len() as i64);
    }

    /// Run `work` under the game's loading lock: a game is loaded, its lease released or handed
    /// over, one at a time. The lock's entry goes afterwards unless someone else holds or waits
    /// for it (they took their clone under the map's lock, so the count is exact), who then
    /// removes it.
    pub(super) async fn under_loading_lock<T>(
        &self,
        id: Uuid,
        work: impl std::future::Future<Output = T>,
    ) -> T {
        let lock = self.loading.entry(id).or_default().clone();
        let _guard = lock.lock().await;
        let out = work.await;
        self.loading.remove_if(&id, |_, held| Arc::ptr_eq(held, &lock) && Arc::strong_count(held) <= 2);
        out
    }

    /// Among replicas, a game that fell asleep lets its lease go (keeping its clock's reading
    /// and its next flag in the store), so that whichever replica its next call reaches wakes
    /// it. Under the game's loading lock, and only if it is still asleep here: a request that
    /// woke it meanwhile keeps the lease.
    async fn release_sleeping(&self, id: Uuid) {
        let Some(cluster) = self.cluster.get() else { return };
        self.under_loading_lock(id, async {
            let reading = self.asleep.get(&id).map(|a| (a.now_ms(), a.wake_at));
            let Some((game_ms, wake_at)) = reading.filter(|_| !self.live.contains(&id)) else { return };
            let wake_in = wake_at.map(|at| at.saturating_duration_since(Instant::now()));
            cluster.forget_run(&id);
            if let Err(e) = cluster.leases().release(id, game_ms, wake_in).await {
                // It stays this replica's, renewed by the heartbeat; a call here wakes it.
                tracing::warn!(game = %id, error = %e, "a sleeping game's lease could not be released");
            }
        })
        .await;
    }

    /// A game no longer asleep (woken, or another replica's now): its entry and alarm go.
    pub(super) fn forget_sleep(&self, id: &Uuid) -> Option<Asleep> {
        let (_, asleep) = self.asleep.remove(id)?;
        if let Some(at) = asleep.wake_at {
            self.alarms.lock().unwrap_or_else(|e| e.into_inner()).remove(&(at, *id));
        }
        self.metrics.games_asleep.set(self.asleep.len() as i64);
        Some(asleep)
    }

    fn forget_lease(&self, id: &Uuid) {
        if let Some(cluster) = self.cluster.get() {
            cluster.leases().forget(id);
            cluster.forget_run(id);
        }
    }
}

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

/// The seat a director's remembered answers are kept under: no seat of a game has it.
const DIRECTOR_SEAT: usize = 1_000_000;

/// The answer to a request that may be a retry: done now (with the answer the services wrote
/// down, when the request is to be remembered), or the bytes written down the first time (see
/// [`Answers`]).
pub enum Answer<T> {
    Done(T, Option<Box<dyn std::any::Any + Send>>),
    Remembered(Vec<u8>),
}

/// The game's clock: milliseconds since the game was created, resuming a recovered game at its
/// last logged reading (time the server was down is nobody's time).
#[derive(Clone, Copy)]
struct GameClock {
    started: Instant,
    base_ms: u64,
}

impl GameClock {
    fn now_ms(&self) -> u64 {
        self.base_ms.saturating_add(self.started.elapsed().as_millis() as u64)
    }

    fn instant_of(&self, ms: u64) -> Instant {
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

type Reply<T> = oneshot::Sender<Result<T, HostError>>;

enum Command {
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
    Direct {
        op: DirectorOp,
        by: Option<String>,
        request_id: Option<String>,
        reply: Reply<Answer<DirectorDone>>,
    },
    /// Answered once no bot has anything left to do at the game's current position.
    Settled(oneshot::Sender<()>),
}

/// A bot's decision about the position after `at` events.
enum Decision {
    Challenge(usize),
    Act(usize, Action),
}

/// What the services' side tells a game's task about its use, so that the task knows when the
/// game is idle: watch streams open, and when a request last named it.
struct Activity {
    watchers: AtomicUsize,
    /// Milliseconds from the session's start to the last request that named the game.
    touched_ms: AtomicU64,
    /// Flipped by [`Session::leave`]: the task stops after the operation in hand.
    leave: Switch,
    /// Flipped by the task when it gives the game up or goes to sleep: watchers watch again.
    gone: Switch,
}

/// A one-way switch a task can wait for: a flag and the waiters to wake when it flips (a few
/// words, where a watch channel is a few hundred bytes: every awake game has two).
#[derive(Default)]
pub struct Switch {
    on: std::sync::atomic::AtomicBool,
    flipped: tokio::sync::Notify,
}

impl Switch {
    fn flip(&self) {
        self.on.store(true, Ordering::SeqCst);
        self.flipped.notify_waiters();
    }

    /// Resolves once the switch is on (never, if it is never flipped).
    pub async fn on(&self) {
        loop {
            let flipped = self.flipped.notified();
            tokio::pin!(flipped);
            // Registered before the flag is read: a flip in between still wakes this waiter.
            flipped.as_mut().enable();
            if self.on.load(Ordering::SeqCst) {
                return;
            }
            flipped.await;
        }
    }
}

impl Activity {
    /// The game is not idle as of now (`started`: the session's start).
    fn touch(&self, started: Instant) {
        self.touched_ms.fetch_max(started.elapsed().as_millis() as u64, Ordering::Relaxed);
    }
}

/// One live (or finished, read-only) game.
pub struct Session {
    id: Uuid,
    /// Unique per session built: a game left and loaded again is another instance.
    instance: u64,
    clock: GameClock,
    snapshot: watch::Receiver<Arc<Snapshot>>,
    /// None for a finished game: nothing can change it.
    /// Boxed: a channel's first block of slots is allocated with it, and most games are idle.
    commands: Option<mpsc::Sender<Box<Command>>>,
    /// A finished game's remembered responses: a retry of the request that ended it (or any
    /// earlier one) still gets its first answer.
    finished: Remembered,
    events: Arc<EventChannel>,
    /// Shared with the task: requests, watchers, and the two switches (leave, gone).
    activity: Arc<Activity>,
}

impl Session {
    /// Serve a game from `core`, whose log is durable up to its `seq`. The clock reads
    /// `base_ms` now. A live game gets its task (timers armed, bots set thinking); a finished
    /// one is served read-only.
    pub(super) fn start(
        ctx: &Arc<Context>,
        id: Uuid,
        base_ms: u64,
        core: Core,
        bot_delay_ms: u32,
    ) -> Arc<Session> {
        let clock = GameClock { started: Instant::now(), base_ms };
        let snapshot = Arc::new(core.snapshot());
        let (snapshot_tx, snapshot_rx) = watch::channel(snapshot);
        // Watchers that fall further behind replay from the snapshot, so the channel stays small.
        let events =
            Arc::new(EventChannel { sender: OnceLock::new(), capacity: ctx.limits.event_buffer.max(1) });
        static INSTANCES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let instance = INSTANCES.fetch_add(1, Ordering::Relaxed);
        let over = core.game().is_over();
        let finished = if over { core.remembered_responses().clone() } else { Remembered::new() };
        let activity = Arc::new(Activity {
            watchers: AtomicUsize::new(0),
            touched_ms: AtomicU64::new(0),
            leave: Switch::default(),
            gone: Switch::default(),
        });
        let commands = (!over).then(|| {
            let (tx, rx) = mpsc::channel(64);
            let published = core.game().history().len();
            let delay = Duration::from_millis(u64::from(bot_delay_ms));
            let actor = Actor {
                ctx: ctx.clone(),
                id,
                instance,
                clock,
                core,
                snapshot: snapshot_tx,
                events: events.clone(),
                published,
                bot_delay: delay,
                last_change: Instant::now(),
                considered: None,
                jobs: 0,
                decided: None,
                waiting: Vec::new(),
                activity: activity.clone(),
            };
            ctx.tasks.spawn(actor.run(rx));
            tx
        });
        Arc::new(Session { id, instance, clock, snapshot: snapshot_rx, commands, finished, events, activity })
    }

    pub fn id(&self) -> Uuid {
        self.id
    }

    pub fn instance(&self) -> u64 {
        self.instance
    }

    /// A request named the game: it is not idle.
    pub(super) fn touch(&self) {
        self.activity.touch(self.clock.started);
    }

    /// Let the game go: the task finishes the operation it is in and stops; watchers are told
    /// to watch again from their next event (elsewhere: another replica owns the game now).
    pub fn leave(&self) {
        self.activity.leave.flip();
    }

    /// Resolves when the game's task has stopped (at once for a finished game, which has none).
    pub async fn stopped(&self) {
        if let Some(commands) = &self.commands {
            commands.closed().await;
        }
    }

    /// Whether its task is there to take operations (a finished game has none and needs none).
    pub fn is_alive(&self) -> bool {
        self.commands.as_ref().is_none_or(|c| !c.is_closed())
    }

    /// The game as of its last durable change.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.snapshot.borrow().clone()
    }

    /// The game clock's reading now.
    pub fn now_ms(&self) -> u64 {
        self.clock.now_ms()
    }

    /// Send a command to the game's task and wait for its answer. A finished game answers
    /// only from what it remembers (`key`), else that it is over.
    async fn ask<T>(
        &self,
        seat: usize,
        key: Option<&str>,
        command: impl FnOnce(Reply<Answer<T>>) -> Command,
    ) -> Result<Answer<T>, HostError> {
        if self.commands.is_none() {
            return key
                .and_then(|k| self.finished.get(&(seat, k.to_string())))
                .map(|bytes| Answer::Remembered(bytes.clone()))
                .ok_or(HostError::Game(GameError::GameOver));
        }
        self.call(command).await
    }

    /// Send a command to the game's task and wait for its answer (a finished game has no task:
    /// it is over).
    async fn call<T>(&self, command: impl FnOnce(Reply<T>) -> Command) -> Result<T, HostError> {
        let Some(commands) = &self.commands else { return Err(HostError::Game(GameError::GameOver)) };
        let (reply, answer) = oneshot::channel();
        commands.send(Box::new(command(reply))).await.map_err(|_| HostError::Reloading)?;
        answer.await.map_err(|_| HostError::Reloading)?
    }

    pub async fn submit(&self, seat: usize, turn: Turn) -> Result<Answer<TurnDone>, HostError> {
        let key = turn.request_id.clone();
        self.ask(seat, key.as_deref(), |reply| Command::Turn { seat, turn, reply }).await
    }

    pub async fn challenge(
        &self,
        seat: usize,
        request_id: Option<String>,
    ) -> Result<Answer<ChallengeDone>, HostError> {
        let key = request_id.as_deref().map(challenge_key);
        self.ask(seat, key.as_deref(), |reply| Command::Challenge { seat, request_id, reply }).await
    }

    /// Seat a person in the first open seat; its number.
    pub async fn join(&self, name: String, token: TokenHash) -> Result<usize, HostError> {
        self.call(|reply| Command::Join { name, token, reply }).await
    }

    /// A director's action on a game in play (a finished game answers only a retried
    /// `request_id`, as the first time), by the director key named (None: the root director).
    pub async fn direct(
        &self,
        op: DirectorOp,
        by: Option<String>,
        request_id: Option<String>,
    ) -> Result<Answer<DirectorDone>, HostError> {
        let key = request_id.as_deref().map(director_key);
        self.ask(DIRECTOR_SEAT, key.as_deref(), |reply| Command::Direct { op, by, request_id, reply }).await
    }

    /// Wait until no bot has anything left to do at the game's position (at once for a
    /// finished game). For tests, benchmarks and the fuzzer, which need a quiet game.
    pub async fn settled(&self) {
        let Some(commands) = &self.commands else { return };
        let (tx, rx) = oneshot::channel();
        if commands.send(Box::new(Command::Settled(tx))).await.is_ok() {
            let _ = rx.await;
        }
    }

    /// Take a watcher's slot, if fewer than `cap` are taken; freed when the guard drops.
    pub fn add_watcher(self: &Arc<Session>, cap: usize) -> Option<WatchSlot> {
        if self.activity.watchers.fetch_add(1, Ordering::SeqCst) >= cap {
            self.activity.watchers.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(WatchSlot(self.clone()))
    }

    /// Watch streams open on this game.
    pub fn watchers(&self) -> usize {
        self.activity.watchers.load(Ordering::SeqCst)
    }

    /// Events published from now on. Subscribe before reading the snapshot: an event is in the
    /// snapshot before it is sent, so nothing falls between the two (repeats are skipped by
    /// number).
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.events.subscribe()
    }

    /// Resolves when the task gives the game up or puts it to sleep (a log it cannot write or
    /// read back, another replica owns it, idle): watch streams end, naming the event to resume
    /// from. Never, for a game that goes on or ends.
    pub async fn gone(&self) {
        self.activity.gone.on().await;
    }
}

/// A game's event channel, made when the first watcher subscribes: most games are never
/// watched, and an empty channel of `event_buffer` slots costs a few KB. An event sent before
/// the channel exists is lost to nobody: it is in the snapshot already (the task publishes the
/// snapshot first), and a watcher makes the channel before it reads the snapshot.
struct EventChannel {
    sender: OnceLock<broadcast::Sender<Arc<Event>>>,
    capacity: usize,
}

impl EventChannel {
    fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.sender.get_or_init(|| broadcast::channel(self.capacity).0).subscribe()
    }

    fn send(&self, event: &Event) {
        if let Some(sender) = self.sender.get() {
            // No receivers is fine: nobody is watching now.
            let _ = sender.send(Arc::new(event.clone()));
        }
    }
}

/// Where a challenge's request id is remembered: beside turn ids, apart from them.
fn challenge_key(request_id: &str) -> String {
    format!("challenge/{request_id}")
}

/// Where a director's request id is remembered.
fn director_key(request_id: &str) -> String {
    format!("director/{request_id}")
}

/// A watcher's slot in a session; dropping it frees the slot.
pub struct WatchSlot(Arc<Session>);

impl WatchSlot {
    pub fn session(&self) -> &Arc<Session> {
        &self.0
    }
}

impl Drop for WatchSlot {
    fn drop(&mut self) {
        self.0.activity.watchers.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The task that owns one live game.
struct Actor {
    ctx: Arc<Context>,
    id: Uuid,
    instance: u64,
    clock: GameClock,
    core: Core,
    snapshot: watch::Sender<Arc<Snapshot>>,
    events: Arc<EventChannel>,
    /// Events already in a snapshot and sent.
    published: usize,
    /// Least time between a change and a bot's move (a pace people can watch; 0: at once).
    bot_delay: Duration,
    last_change: Instant,
    /// The position (event count) the bots were last asked about.
    considered: Option<usize>,
    /// Bot decisions sent to the pool whose answers have not come back (stale ones included:
    /// the game is settled only when none is out).
    jobs: usize,
    /// A decision waiting for its pace, with the position it was made for.
    decided: Option<(usize, Decision)>,
    waiting: Vec<oneshot::Sender<()>>,
    activity: Arc<Activity>,
}

/// How the task's loop ends.
enum Exit {
    Over,
    Broken,
    Shutdown,
    /// Idle: the game leaves memory until it is named again, or until its next flag (the
    /// instant given) is due.
    Sleep(Option<Instant>),
}

/// A bot's decision for the position after `usize` events.
type Decided = (usize, Option<Decision>);

/// The channel bots' decisions come back on, made when a bot first thinks: a game of people
/// never needs one (its first block of slots is most of a kilobyte).
#[derive(Default)]
struct BotChannel(Option<(mpsc::UnboundedSender<Decided>, mpsc::UnboundedReceiver<Decided>)>);

impl BotChannel {
    fn sender(&mut self) -> mpsc::UnboundedSender<Decided> {
        self.0.get_or_insert_with(mpsc::unbounded_channel).0.clone()
    }

    /// The next decision (never, before a bot has thought).
    async fn recv(&mut self) -> Option<Decided> {
        match &mut self.0 {
            Some((_, rx)) => rx.recv().await,
            None => std::future::pending().await,
        }
    }
}

impl Actor {
    /// The game's loop. What a request, a bot's move or a flag does runs in a future of its own
    /// on the heap (`Box::pin`), so that a game waiting between them holds only the loop's
    /// small state, not the largest of those futures.
    async fn run(mut self, mut commands: mpsc::Receiver<Box<Command>>) {
        let mut bots = BotChannel::default();
        let mut shutdown = self.ctx.shutdown.clone();
        let activity = self.activity.clone();
        let exit = loop {
            if self.core.game().is_over() {
                break Exit::Over;
            }
            self.consider_bots(&mut bots);
            self.answer_settled();
            let flag = self.core.game().next_flag_fall();
            let flag_at = flag.map(|ms| self.clock.instant_of(ms));
            let bot_at = self.decided.as_ref().map(|_| self.last_change + self.bot_delay);
            let idle_at = self.idle_at();
            let result = tokio::select! {
                () = stopped(&mut shutdown) => break Exit::Shutdown,
                () = activity.leave.on() => break Exit::Broken,
                command = commands.recv() => match command {
                    Some(c) => Box::pin(self.handle(*c)).await,
                    // Every handle is gone: the game left memory.
                    None => break Exit::Shutdown,
                },
                Some((at, decision)) = bots.recv() => {
                    self.decided_for(at, decision);
                    Ok(())
                }
                _ = sleep_until(bot_at), if bot_at.is_some() => Box::pin(self.bot_moves()).await,
                _ = sleep_until(flag_at), if flag_at.is_some() => {
                    Box::pin(self.flag_falls(flag.unwrap_or(0))).await
                }
                _ = sleep_until(idle_at), if idle_at.is_some() => {
                    if self.may_sleep(flag_at) {
                        break Exit::Sleep(flag_at);
                    }
                    Ok(())
                }
            };
            if let Err(Broken) = result {
                break Exit::Broken;
            }
        };
        self.answer_all_settled();
        match exit {
            Exit::Over => {
                // A finished game changes no more: it leaves memory (its watchers have had
                // every event) and is rebuilt from the store if a request names it again.
                self.ctx.release_instance(self.id, self.instance);
            }
            Exit::Broken => {
                self.ctx.release_instance(self.id, self.instance);
                self.activity.gone.flip();
            }
            Exit::Shutdown => {}
            Exit::Sleep(wake_at) => {
                // Out of the live map first: a request from now on loads the game from the
                // store, where every change of this task is. Then no command is taken any
                // more; those already queued are dropped unanswered, and their callers, finding
                // this session stopped, ask the game's next session (the request never ran).
                let asleep = {
                    let snapshot = self.snapshot.borrow();
                    Asleep {
                        game_ms: self.clock.now_ms(),
                        at: Instant::now(),
                        wake_at,
                        listing: Listing::new(snapshot.seats().iter().map(|s| s.name()), snapshot.labels()),
                    }
                };
                self.ctx.put_to_sleep(self.id, self.instance, asleep);
                if self.ctx.cluster.get().is_some() {
                    let (ctx, id) = (self.ctx.clone(), self.id);
                    self.ctx.tasks.spawn(async move { ctx.release_sleeping(id).await });
                }
                commands.close();
                // A watch that began in that moment ends, naming the event to resume from: its
                // client's next call wakes the game.
                self.activity.gone.flip();
                while let Ok(command) = commands.try_recv() {
                    if let Command::Settled(tx) = *command {
                        let _ = tx.send(());
                    }
                }
            }
        }
    }

    /// When the game would be idle long enough to sleep, if nothing happens before: the last
    /// request that named it (or the last change) plus the idle span; None while a bot thinks
    /// or waits to move, while someone waits for the game to settle, or when games never sleep.
    fn idle_at(&self) -> Option<Instant> {
        let idle_after = self.ctx.limits.idle_after?;
        if self.jobs > 0 || self.decided.is_some() || !self.waiting.is_empty() {
            return None;
        }
        let touched =
            self.clock.started + Duration::from_millis(self.activity.touched_ms.load(Ordering::Relaxed));
        Some(touched.max(self.last_change) + idle_after)
    }

    /// At the idle deadline: whether the game may sleep now (nobody watching, no request since,
    /// no flag falling within the idle span). If not, the idle span starts again from now.
    fn may_sleep(&mut self, flag_at: Option<Instant>) -> bool {
        let now = Instant::now();
        let Some(idle_after) = self.ctx.limits.idle_after else { return false };
        if self.idle_at().is_some_and(|at| at > now) {
            return false;
        }
        let watched = self.activity.watchers.load(Ordering::SeqCst) > 0;
        let flag_soon = flag_at.is_some_and(|at| at <= now + idle_after);
        if watched || flag_soon {
            self.activity.touch(self.clock.started);
            return false;
        }
        true
    }

    async fn handle(&mut self, command: Command) -> Result<(), Broken> {
        match command {
            Command::Turn { seat, turn, reply } => answer(reply, self.turn(seat, turn).await),
            Command::Challenge { seat, request_id, reply } => {
                answer(reply, self.challenge(seat, request_id).await)
            }
            Command::Join { name, token, reply } => answer(reply, self.join(name, token).await),
            Command::Direct { op, by, request_id, reply } => {
                answer(reply, self.direct(op, by, request_id).await)
            }
            Command::Settled(tx) => {
                self.waiting.push(tx);
                Ok(())
            }
        }
    }

    async fn turn(&mut self, seat: usize, turn: Turn) -> Result<Answer<TurnDone>, Failure> {
        let key = turn.request_id;
        if let Some(first) = self.core.remembered(seat, key.as_deref()) {
            return Ok(Answer::Remembered(first));
        }
        let game = self.core.game();
        if let Some(expected) = turn.expected_turn
            && expected != game.turn()
        {
            return Err(HostError::StaleTurn { expected, actual: game.turn() }.into());
        }
        let action = match turn.action {
            TurnAction::Play(p) => Action::Play(p.to_play(game.board()).map_err(HostError::from)?),
            TurnAction::Exchange(tiles) => {
                Action::Exchange(input::exchange(&tiles, &game.config().rules).map_err(HostError::from)?)
            }
            TurnAction::Pass => Action::Pass,
            TurnAction::Resign => Action::Resign,
        };
        let is_play = matches!(action, Action::Play(_));
        let before = game.history().len();
        let now = self.clock.now_ms();
        if let Err(e) = self.core.act(seat, action, now) {
            // A time loss noticed on the way changed the game even though the action failed.
            self.commit(None, None).await?;
            return Err(HostError::Game(e).into());
        }
        self.ctx.metrics.turns.inc();
        let new = &self.core.game().history()[before..];
        let points = new.iter().find(|e| e.seat == seat).map_or(0, |e| e.points);
        let play = new.iter().find_map(|e| match &e.kind {
            EventKind::Play { play, .. } if is_play => Some(*play),
            _ => None,
        });
        let snapshot = Arc::new(self.core.snapshot());
        let done = TurnDone { id: self.id, seat, points, play, snapshot: snapshot.clone(), now_ms: now };
        let (bytes, written) =
            key.as_ref().map(|_| self.ctx.answers.turn(&done)).map(|w| (w.bytes, w.answer)).unzip();
        let row = self.core.remember(seat, key, bytes);
        // Durable before the caller hears of it.
        self.commit(row, Some(snapshot)).await?;
        Ok(Answer::Done(done, written))
    }

    async fn challenge(
        &mut self,
        seat: usize,
        request_id: Option<String>,
    ) -> Result<Answer<ChallengeDone>, Failure> {
        let key = request_id.as_deref().map(challenge_key);
        if let Some(first) = self.core.remembered(seat, key.as_deref()) {
            return Ok(Answer::Remembered(first));
        }
        let now = self.clock.now_ms();
        let verdict = match self.core.challenge(seat, now) {
            Ok(v) => v,
            Err(e) => {
                self.commit(None, None).await?;
                return Err(HostError::Game(e).into());
            }
        };
        let snapshot = Arc::new(self.core.snapshot());
        let done = ChallengeDone { id: self.id, seat, verdict, snapshot: snapshot.clone(), now_ms: now };
        let (bytes, written) =
            key.as_ref().map(|_| self.ctx.answers.challenge(&done)).map(|w| (w.bytes, w.answer)).unzip();
        let row = self.core.remember(seat, key, bytes);
        self.commit(row, Some(snapshot)).await?;
        Ok(Answer::Done(done, written))
    }

    async fn direct(
        &mut self,
        op: DirectorOp,
        by: Option<String>,
        request_id: Option<String>,
    ) -> Result<Answer<DirectorDone>, Failure> {
        let key = request_id.as_deref().map(director_key);
        if let Some(first) = self.core.remembered(DIRECTOR_SEAT, key.as_deref()) {
            return Ok(Answer::Remembered(first));
        }
        let now = self.clock.now_ms();
        let result = match op {
            DirectorOp::Act(action) => self.core.direct(action, by, now),
            DirectorOp::Undo => self.core.undo(by, now),
        };
        if let Err(e) = result {
            // A time loss noticed on the way changed the game even though the action failed.
            self.commit(None, None).await?;
            return Err(HostError::Game(e).into());
        }
        let snapshot = Arc::new(self.core.snapshot());
        let done = DirectorDone { id: self.id, snapshot: snapshot.clone(), now_ms: now };
        let (bytes, written) =
            key.as_ref().map(|_| self.ctx.answers.director(&done)).map(|w| (w.bytes, w.answer)).unzip();
        let row = self.core.remember(DIRECTOR_SEAT, key, bytes);
        // A taken-back turn changes what the bots were thinking about: they look again.
        self.considered = None;
        self.decided = None;
        self.commit(row, Some(snapshot)).await?;
        Ok(Answer::Done(done, written))
    }

    async fn join(&mut self, name: String, token: TokenHash) -> Result<usize, Failure> {
        let now = self.clock.now_ms();
        let seat = self.core.join(&name, token, now).ok_or(HostError::NoOpenSeat)?;
        self.commit(None, None).await?;
        Ok(seat)
    }

    /// The running seat's flag fell at `flag_ms`: the loss is recorded at that instant.
    async fn flag_falls(&mut self, flag_ms: u64) -> Result<(), Broken> {
        if self.core.tick(flag_ms) {
            tracing::info!(game = %self.id, flag_ms, "flag fell");
        }
        background(self.commit(None, None).await)
    }

    /// Ask the bots about the current position, once per position: a bot to move decides its
    /// move, a bot beside a challengeable play decides whether to challenge it.
    fn consider_bots(&mut self, bots: &mut BotChannel) {
        let game = self.core.game();
        let at = game.history().len();
        if self.considered == Some(at) {
            return;
        }
        self.considered = Some(at);
        self.decided = None;
        let levels: Vec<Option<BotLevel>> =
            (0..self.core.seats().len()).map(|s| self.core.bot_level(s)).collect();
        if game.paused() {
            // Bots wait with everyone else; the resume is an event, so they look again then.
            return;
        }
        let mover_is_bot = levels.get(game.to_move()).copied().flatten().is_some();
        let may_challenge = game
            .challengeable()
            .is_some_and(|(player, _)| levels.iter().enumerate().any(|(s, l)| s != player && l.is_some()));
        if !mover_is_bot && !may_challenge {
            return;
        }
        self.jobs += 1;
        let budget =
            bot::champion_budget(game, game.to_move(), self.clock.now_ms(), self.core.think(game.to_move()));
        let game = self.core.shared_game();
        let (results, metrics, hook, id) =
            (bots.sender(), self.ctx.metrics.clone(), self.ctx.hooks.before_bot_decision.clone(), self.id);
        self.ctx.pool.spawn_bot(move || {
            if let Some(hook) = hook {
                hook(id);
            }
            let started = Instant::now();
            let decision = decide(&game, &levels, budget);
            metrics.bot_turn.observe(started.elapsed().as_secs_f64());
            let _ = results.send((at, decision));
        });
    }

    fn decided_for(&mut self, at: usize, decision: Option<Decision>) {
        self.jobs = self.jobs.saturating_sub(1);
        if self.considered != Some(at) || self.core.game().history().len() != at {
            // The game moved on while the bot thought: its decision is about another position.
            self.ctx.metrics.bot_stale.inc();
            return;
        }
        self.decided = decision.map(|d| (at, d));
    }

    /// Apply the bot decision that is due, if the game is still where the bot looked.
    async fn bot_moves(&mut self) -> Result<(), Broken> {
        let Some((at, decision)) = self.decided.take() else { return Ok(()) };
        if self.core.game().history().len() != at {
            self.ctx.metrics.bot_stale.inc();
            return Ok(());
        }
        let now = self.clock.now_ms();
        let applied = match decision {
            Decision::Challenge(seat) => self.core.challenge(seat, now).map(|_| ()),
            Decision::Act(seat, action) => self.core.act(seat, action, now),
        };
        match applied {
            Ok(()) => self.ctx.metrics.turns.inc(),
            // A bot's move is legal by construction; if the engine disagrees, the seat waits
            // (and its clock runs) rather than the task looping.
            Err(e) => tracing::error!(game = %self.id, error = %e, "a bot's decision was refused"),
        }
        background(self.commit(None, None).await)
    }

    fn settled(&self) -> bool {
        self.core.game().is_over()
            || (self.considered == Some(self.core.game().history().len())
                && self.jobs == 0
                && self.decided.is_none())
    }

    fn answer_settled(&mut self) {
        if self.settled() {
            self.answer_all_settled();
        }
    }

    fn answer_all_settled(&mut self) {
        for tx in self.waiting.drain(..) {
            let _ = tx.send(());
        }
    }

    /// Make the steps since the last row durable as the next log row (with the request's
    /// response when it is to be remembered), then publish (`snapshot`: the game as it is now,
    /// when the caller has made it already). If the write fails, the game is put back to what
    /// is durable and the request fails: nothing unstored is ever answered or published.
    async fn commit(&mut self, done: Option<Done>, snapshot: Option<Arc<Snapshot>>) -> Result<(), Failure> {
        if !self.core.has_steps() && done.is_none() {
            return Ok(());
        }
        let (seq, steps) = self.core.take_steps();
        let batch = Batch { steps, done };
        let started = Instant::now();
        let over = self.core.game().is_over();
        let result = self.ctx.store.append(self.id, seq, batch.to_bytes(), over).wait().await;
        self.ctx.metrics.commit.observe(started.elapsed().as_secs_f64());
        if let Err(dawgref_store::StoreError::Fenced(_)) = result {
            // Another replica took the game over: nothing of ours may be written again. The
            // request is retried, and is then forwarded to the new owner.
            tracing::warn!(game = %self.id, seq, "log row refused: another replica owns the game now");
            return Err(Failure::Broken(HostError::Moved(self.id.to_string())));
        }
        if let Err(e) = result {
            tracing::error!(game = %self.id, seq, error = %e, "log row not written; game put back to its last durable turn");
            let error = HostError::store("the turn could not be stored", e);
            return Err(match self.restore().await {
                Ok(()) => Failure::Refused(error),
                Err(Broken) => Failure::Broken(error),
            });
        }
        self.core.committed();
        self.publish(snapshot);
        Ok(())
    }

    /// The new state to readers, then its events to watchers (in that order: see
    /// [`Session::subscribe`]).
    fn publish(&mut self, snapshot: Option<Arc<Snapshot>>) {
        let snapshot = snapshot.unwrap_or_else(|| Arc::new(self.core.snapshot()));
        self.snapshot.send_replace(snapshot);
        let history = self.core.game().history();
        for e in &history[self.published.min(history.len())..] {
            self.events.send(e);
        }
        self.published = history.len();
        self.last_change = Instant::now();
    }

    /// Put the game back to its durable state, replayed from the store.
    async fn restore(&mut self) -> Result<(), Broken> {
        let stored = self.ctx.store.load(self.id).await.ok().flatten();
        let ctx = self.ctx.clone();
        let replayed = match stored {
            Some(stored) => self.ctx.pool.run(move || replay(&ctx.lexicons, &stored).ok()).await.flatten(),
            None => None,
        };
        match replayed {
            Some(replayed) => {
                self.core = replayed.core;
                self.considered = None;
                self.decided = None;
                self.publish(None);
                Ok(())
            }
            None => Err(Broken),
        }
    }
}

/// The game could not be written nor read back: the task gives it up.
struct Broken;

/// Why an operation failed: refused (the game is as it was), or the game is given up.
enum Failure {
    Refused(HostError),
    Broken(HostError),
}

impl Failure {
    fn error(self) -> HostError {
        match self {
            Failure::Refused(s) | Failure::Broken(s) => s,
        }
    }
}

/// Send an operation's answer; a game given up ends the task after answering.
fn answer<T>(reply: Reply<T>, result: Result<T, Failure>) -> Result<(), Broken> {
    let broken = matches!(result, Err(Failure::Broken(_)));
    let _ = reply.send(result.map_err(Failure::error));
    if broken { Err(Broken) } else { Ok(()) }
}

/// The outcome of a change nobody asked for (a bot's move, a flag fall): a refused write has
/// put the game back and the task goes on; only a game given up ends it.
fn background(result: Result<(), Failure>) -> Result<(), Broken> {
    match result {
        Err(Failure::Broken(_)) => Err(Broken),
        _ => Ok(()),
    }
}

impl From<HostError> for Failure {
    fn from(e: HostError) -> Failure {
        Failure::Refused(e)
    }
}

/// Resolves when a switch (shutdown, a game given up) flips on; never, if nobody can flip it
/// any more (its sender is gone without flipping it: a game that ended, say).
pub async fn stopped(switch: &mut watch::Receiver<bool>) {
    if switch.wait_for(|&on| on).await.is_err() {
        std::future::pending::<()>().await;
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

/// What the bots do at this position: the first bot (from the seat to move on) that wants to
/// challenge the last play challenges it; else the bot to move moves. Bots go through the same
/// game rules as people, and decide from the position alone (same position, same decision).
fn decide(game: &Game, levels: &[Option<BotLevel>], budget: std::time::Duration) -> Option<Decision> {
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

#[cfg(test)]
mod tests {
    use super::Listing;

    #[test]
    fn a_listing_keeps_names_and_labels_inline_or_boxed() {
        let labels = vec![("round".to_string(), "3".to_string())];
        let short = Listing::new(["ann", "bo"].into_iter(), &labels);
        assert!(matches!(short, Listing::Inline { .. }));
        assert_eq!(short.names(), ["ann", "bo"]);
        assert_eq!(short.labels(), [("round", "3")]);
        let many = vec![
            ("tournament".to_string(), "Autumn open".to_string()),
            ("table".to_string(), "12".to_string()),
        ];
        let long = Listing::new(["Anastasia", "Bo\u{1e}ris"].into_iter(), &many);
        assert!(matches!(long, Listing::Heap(_)));
        assert_eq!(long.names(), ["Anastasia", "Bo ris"], "a separator in a name is a space");
        assert_eq!(long.labels(), [("tournament", "Autumn open"), ("table", "12")]);
        let bare = Listing::new(["a", "b"].into_iter(), &[]);
        assert_eq!((bare.names(), bare.labels()), (vec!["a", "b"], vec![]));
    }
}

//! A live game's handle. Each live game is one [`Session`]: a task (the actor, `actor`) owns the
//! game's `Core` and is the only thing that changes it, fed by a command channel; the handle
//! sends it commands (`command`) and reads what it published. Readers never wait on the task:
//! they read the last published [`Snapshot`]. Creation, start-up recovery and loading a game on
//! demand all start a game through `actor::start`, which makes its task and its session (a
//! finished game gets no task: it changes no more, and answers reads only). This module knows
//! no `Context`: the handle is what the services hold, the task what the host runs.

use super::command::*;
use super::error::HostError;
use super::state::{Asker, Remembered, Snapshot, TokenHash};
use dawgref_engine::game::{Event, GameError};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use uuid::Uuid;

/// One live (or finished, read-only) game.
pub struct Session {
    id: Uuid,
    /// Unique per session built: a game left and loaded again is another instance.
    instance: u64,
    clock: GameClock,
    snapshot: watch::Receiver<Arc<Snapshot>>,
    /// None for a finished game: nothing can change it.
    /// Boxed: a channel's first block of slots is allocated with it, and most games are idle.
    commands: Option<mpsc::Sender<Box<Sent>>>,
    /// A finished game's remembered responses: a retry of the request that ended it (or any
    /// earlier one) still gets its first answer.
    finished: Remembered,
    events: Arc<EventChannel>,
    /// Shared with the task: requests, watchers, and the two switches (leave, gone).
    activity: Arc<Activity>,
}

impl Session {
    /// A game's handle on its parts (`actor::start` makes them, and the task beside it):
    /// `commands` None for a finished game, which has no task; `finished`, what a finished game
    /// remembers of its answers.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        id: Uuid,
        instance: u64,
        clock: GameClock,
        snapshot: watch::Receiver<Arc<Snapshot>>,
        commands: Option<mpsc::Sender<Box<Sent>>>,
        finished: Remembered,
        events: Arc<EventChannel>,
        activity: Arc<Activity>,
    ) -> Session {
        Session { id, instance, clock, snapshot, commands, finished, events, activity }
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
    pub(crate) fn leave(&self) {
        self.activity.leave.flip();
    }

    /// Resolves when the game's task has stopped (at once for a finished game, which has none).
    pub(crate) async fn stopped(&self) {
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
        asker: Asker,
        key: Option<&str>,
        command: impl FnOnce(Reply<Answer<T>>) -> Command,
    ) -> Result<Answer<T>, HostError> {
        if self.commands.is_none() {
            return key
                .and_then(|k| self.finished.get(&(asker, k.to_string())))
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
        let sent = Sent { command: command(reply), cause: crate::trace::current() };
        commands.send(Box::new(sent)).await.map_err(|_| HostError::Reloading)?;
        answer.await.map_err(|_| HostError::Reloading)?
    }

    pub async fn submit(&self, seat: usize, turn: Turn) -> Result<Answer<TurnDone>, HostError> {
        let key = turn.request_id.clone();
        self.ask(Asker::Seat(seat), key.as_deref(), |reply| Command::Turn { seat, turn, reply }).await
    }

    pub async fn challenge(
        &self,
        seat: usize,
        request_id: Option<String>,
    ) -> Result<Answer<ChallengeDone>, HostError> {
        let key = request_id.as_deref().map(challenge_key);
        self.ask(Asker::Seat(seat), key.as_deref(), |reply| Command::Challenge { seat, request_id, reply })
            .await
    }

    /// Seat a person in the first open seat; its number.
    pub async fn join(&self, name: String, token: TokenHash) -> Result<usize, HostError> {
        self.call(|reply| Command::Join { name, token, reply }).await
    }

    /// Seat `seat`'s person given a new token (a lost one): the old one stops working at once. A
    /// finished game's seats keep theirs (GameOver).
    pub async fn new_token(&self, seat: usize, token: TokenHash) -> Result<(), HostError> {
        self.call(|reply| Command::NewToken { seat, token, reply }).await
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
        self.ask(Asker::Director, key.as_deref(), |reply| Command::Direct { op, by, request_id, reply }).await
    }

    /// Wait until no bot has anything left to do at the game's position (at once for a
    /// finished game). For tests, benchmarks and the fuzzer, which need a quiet game.
    pub async fn settled(&self) {
        let Some(commands) = &self.commands else { return };
        let (tx, rx) = oneshot::channel();
        if commands.send(Box::new(Sent { command: Command::Settled(tx), cause: None })).await.is_ok() {
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

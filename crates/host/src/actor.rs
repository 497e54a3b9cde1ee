//! The task that owns one live game ([`Actor`]). Every operation (a turn, a challenge, a join, a
//! bot's move, a flag that falls) goes through the same steps in the same order, inside the
//! task: the engine call, the log row made durable, the new snapshot and events published, then
//! the answer. The task also owns the game's time: it arms a timer for the next flag fall and
//! feeds the engine the flag-fall time, and it sends bots' thinking to the pool, applying a
//! decision only if the game is still where it was when the bot looked at it.

mod bots;

use super::command::*;
use super::context::{Answers, Context, LetGo};
use super::error::HostError;
use super::input;
use super::recovery::replay;
use super::sleep::{Asleep, Listing};
use super::state::{Asker, Core, Snapshot, TokenHash};
use super::switch::{sleep_until, stopped};
use crate::trace;
use bots::{BotChannel, Bots};
use dawgref_engine::game::{Action, EventKind};
use dawgref_store::record::{Batch, Done};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
// Game time (clocks, pace, idleness) reads tokio's clock: real in production, and a test may
// pause it and advance it. What a job takes on a thread of the pool is real time.
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;
use tracing::Instrument;
use uuid::Uuid;

/// The task that owns one live game.
pub(crate) struct Actor {
    ctx: Arc<Context>,
    id: Uuid,
    instance: u64,
    clock: GameClock,
    core: Core,
    snapshot: watch::Sender<Arc<Snapshot>>,
    events: Arc<EventChannel>,
    /// Events already in a snapshot and sent.
    published: usize,
    last_change: Instant,
    /// Callers waiting for the game to settle (no bot with anything left to do).
    waiting: Vec<oneshot::Sender<()>>,
    activity: Arc<Activity>,
    bots: Bots,
}

/// What a live game's task starts from (`Session::start` gathers it).
pub(crate) struct Start {
    pub(crate) ctx: Arc<Context>,
    pub(crate) id: Uuid,
    pub(crate) instance: u64,
    pub(crate) clock: GameClock,
    pub(crate) core: Core,
    pub(crate) snapshot: watch::Sender<Arc<Snapshot>>,
    pub(crate) events: Arc<EventChannel>,
    pub(crate) activity: Arc<Activity>,
    /// Least time between a change and a bot's move (a pace people can watch; 0: at once).
    pub(crate) bot_delay: Duration,
}

/// Start a live game's task; the channel its commands go through.
pub(crate) fn spawn(start: Start) -> mpsc::Sender<Box<Sent>> {
    let Start { ctx, id, instance, clock, core, snapshot, events, activity, bot_delay } = start;
    let (tx, rx) = mpsc::channel(64);
    let published = core.game().history().len();
    let actor = Actor {
        ctx: ctx.clone(),
        id,
        instance,
        clock,
        core,
        snapshot,
        events,
        published,
        last_change: Instant::now(),
        waiting: Vec::new(),
        activity,
        bots: Bots::new(bot_delay),
    };
    ctx.tasks.spawn(actor.run(rx));
    tx
}

/// How the task's loop ends.
enum Exit {
    Over,
    /// Given up: its log could be neither written nor read back, or another replica fenced it.
    Broken,
    /// Let go by the host (another replica's now, handed over): already out of the live map.
    Left,
    Shutdown,
    /// Idle: the game leaves memory until it is named again, or until its next flag (the
    /// instant given) is due.
    Sleep(Option<Instant>),
}

impl Actor {
    /// The game's loop. What a request, a bot's move or a flag does runs in a future of its own
    /// on the heap (`Box::pin`), so that a game waiting between them holds only the loop's
    /// small state, not the largest of those futures.
    async fn run(mut self, mut commands: mpsc::Receiver<Box<Sent>>) {
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
            let bot_at = self.bots.move_at(self.last_change);
            let idle_at = self.idle_at();
            let result = tokio::select! {
                () = stopped(&mut shutdown) => break Exit::Shutdown,
                () = activity.leave.on() => break Exit::Left,
                command = commands.recv() => match command {
                    Some(sent) => {
                        let Sent { command, cause } = *sent;
                        let span = trace::within(cause, || {
                            tracing::debug_span!(parent: None, "command", kind = command.name(), game = %self.id)
                        });
                        self.bots.caused_by(trace::traced(&span));
                        Box::pin(self.handle(command)).instrument(span).await
                    }
                    // Every handle is gone: the game left memory.
                    None => break Exit::Shutdown,
                },
                Some(decided) = bots.recv() => {
                    self.decided_for(decided);
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
        let me = Some(self.instance);
        match exit {
            Exit::Over => {
                // A finished game changes no more: it leaves memory (its watchers have had
                // every event) and is rebuilt from the store if a request names it again.
                self.ctx.let_go(self.id, me, LetGo::Finished);
            }
            Exit::Broken => {
                self.ctx.let_go(self.id, me, LetGo::GivenUp);
                self.activity.gone.flip();
            }
            Exit::Left => self.activity.gone.flip(),
            Exit::Shutdown => {
                self.ctx.let_go(self.id, me, LetGo::ShuttingDown);
            }
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
                if self.ctx.let_go(self.id, me, LetGo::Asleep(asleep)).is_some()
                    && self.ctx.cluster.get().is_some()
                {
                    let (ctx, id) = (self.ctx.clone(), self.id);
                    self.ctx.tasks.spawn(async move { ctx.release_asleep(id).await });
                }
                commands.close();
                // A watch that began in that moment ends, naming the event to resume from: its
                // client's next call wakes the game.
                self.activity.gone.flip();
                while let Ok(command) = commands.try_recv() {
                    if let Command::Settled(tx) = command.command {
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
        if self.bots.busy() || !self.waiting.is_empty() {
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

    /// The one path of a request that may be a retry (a turn, a challenge, a director's action):
    /// answered as the first time when `asker` sent `key` before; else `change` changes the game
    /// at the clock's reading now (a refusal still commits a time loss noticed on the way),
    /// `made` makes the answer from what it returned and the game after it, the services write
    /// the answer down when the request has a key (`write`), and the change is durable, the
    /// answer remembered in its log row, before the caller hears of it.
    async fn once<X, T>(
        &mut self,
        asker: Asker,
        key: Option<String>,
        change: impl FnOnce(&mut Self, u64) -> Result<X, HostError>,
        made: impl FnOnce(X, Arc<Snapshot>, u64) -> T,
        write: fn(&dyn Answers, &T) -> Vec<u8>,
    ) -> Result<Answer<T>, Failure> {
        if let Some(first) = self.core.remembered(asker, key.as_deref()) {
            return Ok(Answer::Remembered(first));
        }
        let now = self.clock.now_ms();
        let changed = match change(self, now) {
            Ok(changed) => changed,
            Err(e) => {
                self.commit(None, None).await?;
                return Err(e.into());
            }
        };
        let snapshot = Arc::new(self.core.snapshot());
        let done = made(changed, snapshot.clone(), now);
        let bytes = key.as_ref().map(|_| write(&*self.ctx.answers, &done));
        let row = self.core.remember(asker, key, bytes.clone());
        self.commit(row, Some(snapshot)).await?;
        // With a request id, the answer is the bytes written down: a retry gets the same.
        Ok(bytes.map_or(Answer::Done(done), Answer::Remembered))
    }

    async fn turn(&mut self, seat: usize, turn: Turn) -> Result<Answer<TurnDone>, Failure> {
        let id = self.id;
        let change = |actor: &mut Self, now: u64| {
            let game = actor.core.game();
            if let Some(expected) = turn.expected_turn
                && expected != game.turn()
            {
                return Err(HostError::StaleTurn { expected, actual: game.turn() });
            }
            let action = match turn.action {
                TurnAction::Play(p) => Action::Play(p.to_play(game.board())?),
                TurnAction::Exchange(tiles) => {
                    Action::Exchange(input::exchange(&tiles, &game.config().rules)?)
                }
                TurnAction::Pass => Action::Pass,
                TurnAction::Resign => Action::Resign,
            };
            let is_play = matches!(action, Action::Play(_));
            let before = game.history().len();
            actor.core.act(seat, action, now).map_err(HostError::Game)?;
            actor.ctx.metrics.turns.inc();
            Ok((before, is_play))
        };
        let made = |(before, is_play): (usize, bool), snapshot: Arc<Snapshot>, now_ms| {
            let new = &snapshot.game().history()[before..];
            let points = new.iter().find(|e| e.seat == seat).map_or(0, |e| e.points);
            let play = new.iter().find_map(|e| match &e.kind {
                EventKind::Play { play, .. } if is_play => Some(*play),
                _ => None,
            });
            TurnDone { id, seat, points, play, snapshot, now_ms }
        };
        self.once(Asker::Seat(seat), turn.request_id, change, made, |a, d| a.turn(d)).await
    }

    async fn challenge(
        &mut self,
        seat: usize,
        request_id: Option<String>,
    ) -> Result<Answer<ChallengeDone>, Failure> {
        let id = self.id;
        let key = request_id.as_deref().map(challenge_key);
        let change = |actor: &mut Self, now| actor.core.challenge(seat, now).map_err(HostError::Game);
        let made = |verdict, snapshot, now_ms| ChallengeDone { id, seat, verdict, snapshot, now_ms };
        self.once(Asker::Seat(seat), key, change, made, |a, d| a.challenge(d)).await
    }

    async fn direct(
        &mut self,
        op: DirectorOp,
        by: Option<String>,
        request_id: Option<String>,
    ) -> Result<Answer<DirectorDone>, Failure> {
        let id = self.id;
        let key = request_id.as_deref().map(director_key);
        let change = |actor: &mut Self, now| {
            match op {
                DirectorOp::Act(action) => actor.core.direct(action, by, now),
                DirectorOp::Undo => actor.core.undo(by, now),
            }
            .map_err(HostError::Game)?;
            // A taken-back turn changes what the bots were thinking about: they look again.
            actor.bots.look_again();
            Ok(())
        };
        let made = |(), snapshot, now_ms| DirectorDone { id, snapshot, now_ms };
        self.once(Asker::Director, key, change, made, |a, d| a.director(d)).await
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

    fn settled(&self) -> bool {
        self.core.game().is_over() || self.bots.settled_at(self.core.game().history().len())
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
        let started = std::time::Instant::now();
        let over = self.core.game().is_over();
        let result = self
            .ctx
            .store
            .append(self.id, seq, batch.to_bytes(), over)
            .wait()
            .instrument(trace::within(trace::current(), || tracing::debug_span!("store commit", seq)))
            .await;
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
                self.bots.look_again();
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

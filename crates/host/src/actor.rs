//! The task that owns one live game ([`Actor`]). Every operation (a turn, a challenge, a join, a
//! bot's move, a flag that falls) goes through the same steps in the same order, inside the
//! task: the engine call, the log row made durable, the new snapshot and events published, then
//! the answer. The task also owns the game's time: it arms a timer for the next flag fall and
//! feeds the engine the flag-fall time, and it sends bots' thinking to the pool, applying a
//! decision only if the game is still where it was when the bot looked at it. This module has
//! the loop, how it ends, and the commit; what a request does is `requests`', the bots are
//! `bots`'.

mod bots;
mod requests;

use super::command::*;
use super::context::Context;
use super::error::HostError;
use super::let_go::LetGo;
use super::recovery::replay;
use super::session::Session;
use super::sleep::{Asleep, Listing};
use super::state::{Core, Remembered, Snapshot};
use super::switch::Switch;
use super::switch::{sleep_until, stopped};
use crate::trace;
use bots::{BotChannel, Bots};
use dawgref_store::record::{Batch, Done};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
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

/// Serve a game from `core`, whose log is durable up to its `seq`: its session, the handle the
/// services hold. The clock reads `base_ms` now. A live game gets its task (timers armed, bots
/// set thinking); a finished one is served read-only. The one way a game starts: creation,
/// start-up recovery and loading all come here.
pub(crate) fn start(
    ctx: &Arc<Context>,
    id: Uuid,
    base_ms: u64,
    core: Core,
    bot_delay_ms: u32,
) -> Arc<Session> {
    let clock = GameClock { started: Instant::now(), base_ms };
    let (snapshot, snapshot_rx) = watch::channel(Arc::new(core.snapshot()));
    // Watchers that fall further behind replay from the snapshot, so the channel stays small.
    let events = Arc::new(EventChannel { sender: OnceLock::new(), capacity: ctx.limits.event_buffer.max(1) });
    static INSTANCES: AtomicU64 = AtomicU64::new(1);
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
        let actor = Actor {
            ctx: ctx.clone(),
            id,
            instance,
            clock,
            core,
            snapshot,
            events: events.clone(),
            published,
            last_change: Instant::now(),
            waiting: Vec::new(),
            activity: activity.clone(),
            bots: Bots::new(Duration::from_millis(u64::from(bot_delay_ms))),
        };
        ctx.tasks.spawn(actor.run(rx));
        tx
    });
    Arc::new(Session::new(id, instance, clock, snapshot_rx, commands, finished, events, activity))
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
        let batch = Batch { steps, done, unix_ms: crate::unix_ms() };
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

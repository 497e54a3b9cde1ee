//! The task that owns one live game ([`Actor`]). Every operation (a turn, a challenge, a join, a
//! bot's move, a flag that falls) goes through the same steps in the same order, inside the
//! task: the engine call, the log row made durable, the new snapshot and events published, then
//! the answer. The task also owns the game's time: it arms a timer for the next flag fall and
//! feeds the engine the flag-fall time, and it sends bots' thinking to the pool, applying a
//! decision only if the game is still where it was when the bot looked at it.

use super::command::*;
use super::context::{Answers, Context};
use super::error::HostError;
use super::input;
use super::recovery::replay;
use super::session::Session;
use super::sleep::{Asleep, Listing};
use super::state::{Asker, Core, Remembered, Snapshot, TokenHash};
use super::switch::Switch;
use super::switch::{sleep_until, stopped};
use crate::trace;
use dawgref_engine::bot::{self, BotLevel};
use dawgref_engine::game::{Action, EventKind};
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
    pub(crate) ctx: Arc<Context>,
    pub(crate) id: Uuid,
    pub(crate) instance: u64,
    pub(crate) clock: GameClock,
    pub(crate) core: Core,
    pub(crate) snapshot: watch::Sender<Arc<Snapshot>>,
    pub(crate) events: Arc<EventChannel>,
    /// Events already in a snapshot and sent.
    pub(crate) published: usize,
    /// Least time between a change and a bot's move (a pace people can watch; 0: at once).
    pub(crate) bot_delay: Duration,
    pub(crate) last_change: Instant,
    /// The position (event count) the bots were last asked about.
    pub(crate) considered: Option<usize>,
    /// Bot decisions sent to the pool whose answers have not come back (stale ones included:
    /// the game is settled only when none is out).
    pub(crate) jobs: usize,
    /// A decision waiting for its pace, with the position it was made for and the trace it
    /// joins.
    pub(crate) decided: Option<(usize, Decision, Option<opentelemetry::Context>)>,
    pub(crate) waiting: Vec<oneshot::Sender<()>>,
    pub(crate) activity: Arc<Activity>,
    /// The trace of the command just handled, until the bots look at the position it made
    /// (their decision joins that trace). A trace context, not the span: holding a span would
    /// keep it open.
    pub(crate) cause: Option<opentelemetry::Context>,
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

impl Session {
    /// Serve a game from `core`, whose log is durable up to its `seq`. The clock reads
    /// `base_ms` now. A live game gets its task (timers armed, bots set thinking); a finished
    /// one is served read-only.
    pub(crate) fn start(
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
                cause: None,
            };
            ctx.tasks.spawn(actor.run(rx));
            tx
        });
        Arc::new(Session { id, instance, clock, snapshot: snapshot_rx, commands, finished, events, activity })
    }
}

/// A bot's decision for the position after `usize` events, with the trace it joins.
type Decided = (usize, Option<Decision>, Option<opentelemetry::Context>);

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
    pub(crate) async fn run(mut self, mut commands: mpsc::Receiver<Box<Sent>>) {
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
                    Some(sent) => {
                        let Sent { command, cause } = *sent;
                        let span = trace::within(cause, || {
                            tracing::debug_span!(parent: None, "command", kind = command.name(), game = %self.id)
                        });
                        self.cause = trace::traced(&span);
                        Box::pin(self.handle(command)).instrument(span).await
                    }
                    // Every handle is gone: the game left memory.
                    None => break Exit::Shutdown,
                },
                Some((at, decision, joins)) = bots.recv() => {
                    self.decided_for(at, decision, joins);
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
            actor.considered = None;
            actor.decided = None;
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

    /// Ask the bots about the current position, once per position: a bot to move decides its
    /// move, a bot beside a challengeable play decides whether to challenge it.
    fn consider_bots(&mut self, bots: &mut BotChannel) {
        let cause = self.cause.take();
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
        // The decision belongs to the trace of the call that made it the bot's turn.
        let span = trace::within(cause, || tracing::debug_span!(parent: None, "bot decision", game = %id));
        let joins = trace::traced(&span);
        self.ctx.pool.spawn_bot(move || {
            let _in = span.enter();
            if let Some(hook) = hook {
                hook(id);
            }
            let started = std::time::Instant::now();
            let decision = Decision::decide(&game, &levels, budget);
            metrics.bot_turn.observe(started.elapsed().as_secs_f64());
            let _ = results.send((at, decision, joins));
        });
    }

    fn decided_for(&mut self, at: usize, decision: Option<Decision>, joins: Option<opentelemetry::Context>) {
        self.jobs = self.jobs.saturating_sub(1);
        if self.considered != Some(at) || self.core.game().history().len() != at {
            // The game moved on while the bot thought: its decision is about another position.
            self.ctx.metrics.bot_stale.inc();
            return;
        }
        self.decided = decision.map(|d| (at, d, joins));
    }

    /// Apply the bot decision that is due, if the game is still where the bot looked.
    async fn bot_moves(&mut self) -> Result<(), Broken> {
        let Some((at, decision, joins)) = self.decided.take() else { return Ok(()) };
        if self.core.game().history().len() != at {
            self.ctx.metrics.bot_stale.inc();
            return Ok(());
        }
        let span = trace::within(joins, || tracing::debug_span!(parent: None, "bot move", game = %self.id));
        self.bot_plays(decision).instrument(span).await
    }

    async fn bot_plays(&mut self, decision: Decision) -> Result<(), Broken> {
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

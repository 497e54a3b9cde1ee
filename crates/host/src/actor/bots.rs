//! A live game's bots, inside its task: which position they last looked at, the decisions out
//! on the pool, the one waiting for its pace ([`Bots`]), and the task's steps that ask them,
//! take their answers and apply a move. A decision is computed on the pool from a clone of the
//! game and applied only if the game has as many events as when the bot looked.

use super::{Actor, Broken, background};
use crate::command::Decision;
use crate::trace;
use dawgref_engine::bot::{self, BotLevel};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tracing::Instrument;

/// A bot's decision for the position after `usize` events, with the trace it joins.
type Decided = (usize, Option<Decision>, Option<opentelemetry::Context>);

/// The channel bots' decisions come back on, made when a bot first thinks: a game of people
/// never needs one (its first block of slots is most of a kilobyte). The task's loop holds it
/// beside the actor, so that waiting on it borrows nothing of the actor.
#[derive(Default)]
pub(super) struct BotChannel(Option<(mpsc::UnboundedSender<Decided>, mpsc::UnboundedReceiver<Decided>)>);

impl BotChannel {
    fn sender(&mut self) -> mpsc::UnboundedSender<Decided> {
        self.0.get_or_insert_with(mpsc::unbounded_channel).0.clone()
    }

    /// The next decision (never, before a bot has thought).
    pub(super) async fn recv(&mut self) -> Option<Decided> {
        match &mut self.0 {
            Some((_, rx)) => rx.recv().await,
            None => std::future::pending().await,
        }
    }
}

/// What the task keeps of its bots.
pub(super) struct Bots {
    /// Least time between a change and a bot's move (a pace people can watch; 0: at once).
    delay: Duration,
    /// The position (event count) the bots were last asked about.
    considered: Option<usize>,
    /// Decisions sent to the pool whose answers have not come back (stale ones included: the
    /// game is settled only when none is out).
    jobs: usize,
    /// A decision waiting for its pace, with the position it was made for and the trace it
    /// joins.
    decided: Option<(usize, Decision, Option<opentelemetry::Context>)>,
    /// The trace of the command just handled, until the bots look at the position it made
    /// (their decision joins that trace). A trace context, not the span: holding a span would
    /// keep it open.
    cause: Option<opentelemetry::Context>,
}

impl Bots {
    pub(super) fn new(delay: Duration) -> Bots {
        Bots { delay, considered: None, jobs: 0, decided: None, cause: None }
    }

    /// When the decision waiting moves: its pace after the game's last change.
    pub(super) fn move_at(&self, last_change: Instant) -> Option<Instant> {
        self.decided.as_ref().map(|_| last_change + self.delay)
    }

    /// A decision is out on the pool or waits for its pace.
    pub(super) fn busy(&self) -> bool {
        self.jobs > 0 || self.decided.is_some()
    }

    /// Nothing left to do at the position after `events` events.
    pub(super) fn settled_at(&self, events: usize) -> bool {
        self.considered == Some(events) && !self.busy()
    }

    /// The position changed under the bots (a turn taken back, the game restored): they look
    /// again, and a decision waiting is dropped.
    pub(super) fn look_again(&mut self) {
        self.considered = None;
        self.decided = None;
    }

    /// The command just handled belongs to this trace: a decision it prompts joins it.
    pub(super) fn caused_by(&mut self, cause: Option<opentelemetry::Context>) {
        self.cause = cause;
    }
}

impl Actor {
    /// Ask the bots about the current position, once per position: a bot to move decides its
    /// move, a bot beside a challengeable play decides whether to challenge it.
    pub(super) fn consider_bots(&mut self, channel: &mut BotChannel) {
        let cause = self.bots.cause.take();
        let game = self.core.game();
        let at = game.history().len();
        if self.bots.considered == Some(at) {
            return;
        }
        self.bots.considered = Some(at);
        self.bots.decided = None;
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
        self.bots.jobs += 1;
        let budget =
            bot::champion_budget(game, game.to_move(), self.clock.now_ms(), self.core.think(game.to_move()));
        let game = self.core.shared_game();
        let (results, metrics, hook, id) =
            (channel.sender(), self.ctx.metrics.clone(), self.ctx.hooks.before_bot_decision.clone(), self.id);
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

    /// A decision came back from the pool: kept for its pace if the game is still where the
    /// bot looked.
    pub(super) fn decided_for(&mut self, (at, decision, joins): Decided) {
        self.bots.jobs = self.bots.jobs.saturating_sub(1);
        if self.bots.considered != Some(at) || self.core.game().history().len() != at {
            // The game moved on while the bot thought: its decision is about another position.
            self.ctx.metrics.bot_stale.inc();
            return;
        }
        self.bots.decided = decision.map(|d| (at, d, joins));
    }

    /// Apply the bot decision that is due, if the game is still where the bot looked.
    pub(super) async fn bot_moves(&mut self) -> Result<(), Broken> {
        let Some((at, decision, joins)) = self.bots.decided.take() else { return Ok(()) };
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
}

//! What a tournament director does to a game: pause and resume it, adjust a score or a clock,
//! take back the last turn, set the result, note something. Every one is an event in the
//! game's history, so watchers see it and the record keeps it.
//!
//! **The journal**: a game keeps every call that changed it ([`Op`]), in order, with the events
//! each made. Taking back a turn rebuilds the game from its configuration by replaying the
//! journal without that turn and what followed it (challenges of it, a flag fall), the
//! director's own later actions replayed after: the seeded bag makes the rebuilt game exact,
//! tile for tile, the next draws included. The history is not rebuilt: what watchers saw stays,
//! the taken-back events are marked `undone` (they count no more) and a
//! [`EventKind::TurnUndone`] says so. The clocks come back as they were when the turn was made:
//! the seat's thinking time before it stays spent, and the time from it to the undo is charged
//! to nobody. The player then holds the rack it had before the turn; the tiles it drew go back
//! to the bag, in the order they were drawn, so that the same play draws them again.

use super::{Action, EndReason, Event, EventKind, Game, GameError};
use crate::rack::Rack;

/// The longest note a director may write, in characters.
pub const MAX_NOTE_CHARS: usize = 1000;
/// The largest score adjustment, either way.
pub const MAX_SCORE_ADJUSTMENT: i32 = 2000;
/// The largest clock adjustment, either way: a day.
pub const MAX_CLOCK_ADJUSTMENT_MS: i64 = 86_400_000;
/// The largest adjudicated score, either way.
pub const MAX_ADJUDICATED_SCORE: i32 = 10_000;
/// The furthest from zero a score adjustment may take a seat's total, either way: adjustments
/// add up, and a total past this is refused rather than ever wrapping.
pub const MAX_ADJUSTED_SCORE: i32 = 100_000;
/// The most time left a clock adjustment may give a seat, either way (30 days): adjustments add
/// up, and a clock past this is refused rather than ever wrapping.
pub const MAX_ADJUSTED_CLOCK_MS: i64 = 30 * 86_400_000;

/// A call that changed a game, as the journal keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Act(usize, Action, u64),
    /// A challenge, with its ruling when it was given rather than looked up.
    Challenge(usize, Option<bool>, u64),
    /// A flag fell.
    Tick(u64),
    StackRacks(Vec<Rack>),
    StackRack(usize, Rack),
    TimePenalty(usize, i32, u64),
    /// A director's action, by the director key named (None: the root director).
    Director(DirectorAction, Option<String>, u64),
    /// A turn was taken back: the seat's clock, charged up to the turn, runs again from the
    /// undo (`from`, `to`).
    Undone {
        seat: usize,
        from_ms: u64,
        to_ms: u64,
    },
}

/// What a director may do to a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DirectorAction {
    Pause,
    Resume,
    AdjustScore { seat: usize, points: i32, reason: String },
    AdjustClock { seat: usize, delta_ms: i64, reason: String },
    SetResult(ResultKind),
    Note(String),
}

/// How a director ends a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResultKind {
    /// This seat forfeits: the others win.
    Forfeit { seat: usize, reason: String },
    /// The final scores, as adjudicated (one per seat).
    Adjudicated { scores: Vec<i32>, reason: String },
    /// The game counts for nobody.
    Void { reason: String },
}

impl DirectorAction {
    /// What is out of range in the action itself, whatever the game: a score or clock
    /// adjustment of nothing or beyond its bound, an adjudicated score beyond its bound. The
    /// services ask before they route a call; [`Game::direct`] asks again, for every caller.
    pub fn out_of_range(&self) -> Option<String> {
        // `unsigned_abs`: the absolute value of i32::MIN is no i32.
        match self {
            DirectorAction::AdjustScore { points, .. }
                if *points == 0 || points.unsigned_abs() > MAX_SCORE_ADJUSTMENT.unsigned_abs() =>
            {
                Some(format!(
                    "an adjustment of {points} points: -{MAX_SCORE_ADJUSTMENT} to {MAX_SCORE_ADJUSTMENT}, not 0"
                ))
            }
            DirectorAction::AdjustClock { delta_ms, .. }
                if *delta_ms == 0 || delta_ms.unsigned_abs() > MAX_CLOCK_ADJUSTMENT_MS.unsigned_abs() =>
            {
                Some(format!(
                    "an adjustment of {delta_ms} ms: -{MAX_CLOCK_ADJUSTMENT_MS} to {MAX_CLOCK_ADJUSTMENT_MS}, not 0"
                ))
            }
            DirectorAction::SetResult(ResultKind::Adjudicated { scores, .. }) => {
                scores.iter().find_map(|&s| score_out_of_bounds(s)).map(|why| format!("an adjudicated {why}"))
            }
            _ => None,
        }
    }
}

/// Why a score a director gives a game is past the bound every such score has ("score of 12000:
/// -10000 to 10000"; None: within it): the one bound of an adjudicated game's score and of a
/// tournament pairing's result entered by hand.
pub fn score_out_of_bounds(score: i32) -> Option<String> {
    // `unsigned_abs`: the absolute value of i32::MIN is no i32.
    (score.unsigned_abs() > MAX_ADJUDICATED_SCORE.unsigned_abs())
        .then(|| format!("score of {score}: -{MAX_ADJUDICATED_SCORE} to {MAX_ADJUDICATED_SCORE}"))
}

impl Game {
    /// Whether the director has paused the game.
    pub fn paused(&self) -> bool {
        self.paused
    }

    /// Record a call that changed the game, with the events it made since `before`.
    pub(super) fn note_op(&mut self, op: Op, before: usize) {
        self.journal.push((op, before..self.history.len()));
    }

    /// Apply a director's action at game time `now_ms`. Pause, resume and clock adjustments need
    /// a game in play; a note, a score adjustment and a result work on a finished game too (a
    /// score corrected after the end decides the winners again; a result set after the end
    /// replaces it, its game-over event following the first). `by` names the director key
    /// that acts (None: the root director); its events carry the name.
    pub fn direct(
        &mut self,
        action: DirectorAction,
        by: Option<String>,
        now_ms: u64,
    ) -> Result<(), GameError> {
        let before = self.history.len();
        self.direct_inner(&action, now_ms)?;
        self.sign(before, &by);
        self.note_op(Op::Director(action, by, now_ms), before);
        Ok(())
    }

    /// Mark the events from `from` on as made by the director key `by`.
    fn sign(&mut self, from: usize, by: &Option<String>) {
        for e in &mut self.history[from..] {
            e.director.clone_from(by);
        }
    }

    fn direct_inner(&mut self, action: &DirectorAction, now_ms: u64) -> Result<(), GameError> {
        if let Some(why) = action.out_of_range() {
            return Err(GameError::Director(why));
        }
        let seats = self.config.seats;
        match action {
            DirectorAction::Pause => {
                self.live(now_ms)?;
                if self.paused {
                    return Err(GameError::AlreadyPaused);
                }
                if let Some(c) = &mut self.clocks {
                    c.halt(now_ms);
                }
                self.paused = true;
                let seat = self.to_move;
                self.push(seat, EventKind::Paused, 0, now_ms);
            }
            DirectorAction::Resume => {
                self.live(now_ms)?;
                if !self.paused {
                    return Err(GameError::NotPaused);
                }
                self.paused = false;
                let seat = self.to_move;
                if let Some(c) = &mut self.clocks {
                    c.start(seat, now_ms);
                }
                self.push(seat, EventKind::Resumed, 0, now_ms);
            }
            DirectorAction::AdjustScore { seat, points, reason } => {
                self.seat_check(*seat)?;
                let total = self.scores[*seat]
                    .checked_add(*points)
                    .filter(|t| t.unsigned_abs() <= MAX_ADJUSTED_SCORE.unsigned_abs());
                if total.is_none() {
                    return Err(GameError::Director(format!(
                        "seat {seat}'s score {} adjusted by {points}: a total is -{MAX_ADJUSTED_SCORE} to {MAX_ADJUSTED_SCORE}",
                        self.scores[*seat]
                    )));
                }
                self.after_end(|g| {
                    g.push(*seat, EventKind::ScoreAdjusted { reason: reason.clone() }, *points, now_ms)
                });
            }
            DirectorAction::AdjustClock { seat, delta_ms, reason } => {
                self.seat_check(*seat)?;
                self.live(now_ms)?;
                let Some(c) = &mut self.clocks else { return Err(GameError::NoClock) };
                c.adjust(*seat, *delta_ms, MAX_ADJUSTED_CLOCK_MS).map_err(|left| {
                    GameError::Director(format!(
                        "seat {seat}'s {left} ms left adjusted by {delta_ms}: time left is -{MAX_ADJUSTED_CLOCK_MS} to {MAX_ADJUSTED_CLOCK_MS} ms"
                    ))
                })?;
                self.push(
                    *seat,
                    EventKind::ClockAdjusted { delta_ms: *delta_ms, reason: reason.clone() },
                    0,
                    now_ms,
                );
            }
            DirectorAction::Note(text) => {
                let seat = self.to_move;
                self.push(seat, EventKind::Note { text: text.clone() }, 0, now_ms);
            }
            DirectorAction::SetResult(kind) => {
                let reason = match kind {
                    ResultKind::Forfeit { seat, .. } => {
                        self.seat_check(*seat)?;
                        EndReason::Forfeit(*seat)
                    }
                    ResultKind::Adjudicated { scores, .. } => {
                        if scores.len() != seats {
                            return Err(GameError::Director(format!(
                                "{} scores for {seats} seats",
                                scores.len()
                            )));
                        }
                        EndReason::Adjudicated
                    }
                    ResultKind::Void { .. } => EndReason::Voided,
                };
                let note = match kind {
                    ResultKind::Forfeit { reason, .. }
                    | ResultKind::Adjudicated { reason, .. }
                    | ResultKind::Void { reason } => reason.clone(),
                };
                // On a finished game the new end follows the old one: a second game-over event,
                // whose result is the game's.
                let seat = self.to_move;
                self.push(seat, EventKind::Note { text: note }, 0, now_ms);
                if let ResultKind::Adjudicated { scores, .. } = kind {
                    for (s, &target) in scores.iter().enumerate() {
                        // Both within the adjusted range: no overflow.
                        let points = target - self.scores[s];
                        if points != 0 {
                            self.push(
                                s,
                                EventKind::ScoreAdjusted { reason: "adjudicated".into() },
                                points,
                                now_ms,
                            );
                        }
                    }
                }
                self.paused = false;
                self.finish(reason, now_ms, false);
            }
        }
        Ok(())
    }

    /// The game must be in play (a flag that fell by `now_ms` ends it first).
    fn live(&mut self, now_ms: u64) -> Result<(), GameError> {
        if self.tick(now_ms) || self.is_over() { Err(GameError::GameOver) } else { Ok(()) }
    }

    /// Run `change` on the game; on a finished one, deciding the winners again after (the
    /// change's events follow the game-over event).
    fn after_end(&mut self, change: impl FnOnce(&mut Game)) {
        let reason = self.outcome().map(|o| o.reason);
        change(self);
        if let Some(reason) = reason {
            let decided = self.decide(reason);
            self.phase = super::Phase::Over(decided);
        }
    }

    /// Take back the last turn (a play, exchange, pass or resignation, and everything that
    /// followed it but the director's own actions) at game time `now_ms`: see the module's
    /// doc. A finished game whose last turn ended it is in play again. `by` names the director
    /// key that acts (None: the root director).
    pub fn undo_turn(&mut self, by: Option<String>, now_ms: u64) -> Result<(), GameError> {
        if let Some(o) = self.outcome()
            && matches!(o.reason, EndReason::Forfeit(_) | EndReason::Adjudicated | EndReason::Voided)
        {
            return Err(GameError::Director(
                "the director set this game's result: set another result instead of undoing a turn".into(),
            ));
        }
        let Some(at) = self.journal.iter().rposition(|(op, _)| matches!(op, Op::Act(..))) else {
            return Err(GameError::NothingToUndo);
        };
        let (Op::Act(seat, _, acted_ms), _) = self.journal[at].clone() else { unreachable!("found above") };
        // The calls kept, in order: everything before the turn, and the director's after it.
        let kept: Vec<(Op, std::ops::Range<usize>)> = self.journal[..at]
            .iter()
            .cloned()
            .chain(self.journal[at + 1..].iter().filter(|(op, _)| matches!(op, Op::Director(..))).cloned())
            .collect();
        let undone: Vec<std::ops::Range<usize>> = self.journal[at..]
            .iter()
            .filter(|(op, _)| !matches!(op, Op::Director(..)))
            .map(|(_, events)| events.clone())
            .collect();
        let mut rebuilt = Game::new(self.config.clone())?;
        for (op, _) in &kept {
            // Each kept call did this once on the same state: it does it again (a director's
            // action that no longer applies, say a resume of a game the turn had ended, is
            // skipped).
            let _ = rebuilt.replay(op);
        }
        // The clocks as they were when the turn was made; the time since, nobody's.
        if let Some(c) = &mut rebuilt.clocks
            && c.running() == Some(seat)
        {
            c.shift(seat, acted_ms, now_ms);
        }
        // The history stays as watchers saw it: the turn's events are marked and counted no
        // more, and every later event's running total follows.
        let mut history = std::mem::take(&mut self.history);
        let from = undone.first().map_or(history.len(), |r| r.start);
        for range in &undone {
            for e in &mut history[range.clone()] {
                e.undone = true;
            }
        }
        rebuilt.history = history;
        rebuilt.recount(from);
        let mut journal = kept;
        let before = rebuilt.history.len();
        let to_move = rebuilt.to_move;
        rebuilt.push(to_move, EventKind::TurnUndone { from }, 0, now_ms);
        rebuilt.sign(before, &by);
        journal.push((Op::Undone { seat, from_ms: acted_ms, to_ms: now_ms }, before..rebuilt.history.len()));
        rebuilt.journal = journal;
        *self = rebuilt;
        Ok(())
    }

    /// The game as it was just before turn `turn` (0: the first) was taken, rebuilt from its
    /// configuration and journal; `None` when the game has taken no such turn. What a review
    /// judges each turn from.
    pub fn before_turn(&self, turn: u32) -> Option<Game> {
        if turn >= self.turn {
            return None;
        }
        let mut game = Game::new(self.config.clone()).ok()?;
        for (op, _) in &self.journal {
            if matches!(op, Op::Act(..)) && game.turn == turn {
                return Some(game);
            }
            let _ = game.replay(op);
        }
        None
    }

    /// The game as it stood at game time `ms` (None: as it was made, before its first call):
    /// rebuilt from its configuration and every call of its journal made by then (a rack stacked
    /// by an import goes with the call after it). What a broadcast's delay shows a spectator. The
    /// game itself when nothing happened after `ms`. A turn taken back later is absent from the
    /// rebuilt game, as it is from the game.
    pub fn as_of(&self, ms: Option<u64>) -> Game {
        match self.calls_by(ms) {
            None => self.clone(),
            Some(kept) => self.with_calls(kept),
        }
    }

    /// How many of the journal's first calls [`Game::as_of`] rebuilds the game from at `ms`;
    /// None when it is the game itself (nothing happened after `ms`). Two times with the same
    /// answer show the same game, so a reader may keep one rebuild for both.
    pub fn calls_by(&self, ms: Option<u64>) -> Option<usize> {
        let time = |op: &Op| match op {
            Op::Act(_, _, t)
            | Op::Challenge(_, _, t)
            | Op::Tick(t)
            | Op::TimePenalty(_, _, t)
            | Op::Director(_, _, t) => Some(*t),
            Op::Undone { to_ms, .. } => Some(*to_ms),
            Op::StackRacks(_) | Op::StackRack(..) => None,
        };
        // Each call's time: its own, or for a stacked rack the next timed call's.
        let mut times = vec![None; self.journal.len()];
        let mut next = None;
        for (i, (op, _)) in self.journal.iter().enumerate().rev() {
            next = time(op).or(next);
            times[i] = next;
        }
        let by = |t: u64| ms.is_some_and(|ms| t <= ms);
        let kept = times.iter().take_while(|t| t.is_none_or(by)).count();
        let later = self.history.iter().any(|e| !by(e.time_ms));
        (kept != self.journal.len() || later).then_some(kept)
    }

    /// The game rebuilt from its configuration and the journal's first `calls` calls (see
    /// [`Game::calls_by`]).
    pub fn with_calls(&self, calls: usize) -> Game {
        let Ok(mut game) = Game::new(self.config.clone()) else { return self.clone() };
        for (op, _) in &self.journal[..calls.min(self.journal.len())] {
            let _ = game.replay(op);
        }
        game
    }

    /// Do `op` again, as a rebuild after an undo does.
    fn replay(&mut self, op: &Op) -> Result<(), GameError> {
        match op {
            Op::Act(seat, action, now) => self.act(*seat, action.clone(), *now),
            Op::Challenge(seat, ruling, now) => self.challenge_with(*seat, *ruling, *now).map(|_| ()),
            Op::Tick(now) => {
                self.tick(*now);
                Ok(())
            }
            Op::StackRacks(racks) => self.stack_racks(racks),
            Op::StackRack(seat, rack) => self.stack_rack(*seat, rack),
            Op::TimePenalty(seat, points, now) => self.record_time_penalty(*seat, *points, *now),
            Op::Director(action, by, now) => self.direct(action.clone(), by.clone(), *now),
            Op::Undone { seat, from_ms, to_ms } => {
                if let Some(c) = &mut self.clocks
                    && c.running() == Some(*seat)
                {
                    c.shift(*seat, *from_ms, *to_ms);
                }
                Ok(())
            }
        }
    }

    /// Every event's running total from event `from` on, counting only what is not undone.
    fn recount(&mut self, from: usize) {
        let mut totals = vec![0i32; self.config.seats];
        for e in &self.history[..from.min(self.history.len())] {
            if !e.undone {
                totals[e.seat] += e.points;
            }
        }
        for e in self.history.iter_mut().skip(from) {
            if !e.undone {
                totals[e.seat] += e.points;
                e.cumulative = totals[e.seat];
            }
        }
    }

    /// The events this game's journal made, for tests: each call with its events.
    pub fn journal(&self) -> impl Iterator<Item = (&Op, &[Event])> {
        self.journal.iter().map(|(op, r)| {
            (op, &self.history[r.start.min(self.history.len())..r.end.min(self.history.len())])
        })
    }
}

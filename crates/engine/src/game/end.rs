//! The end of the game: why it ended, the end's rack points and overtime penalties, the
//! outcome, and a time penalty a record adds once the game is over.

use super::{EventKind, Game, GameError, MAX_TIME_PENALTY, Op, Phase};

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// This seat played out with the bag empty.
    WentOut(usize),
    /// The scoreless-turn limit was reached.
    ScorelessTurns,
    Resigned(usize),
    OutOfTime(usize),
    /// Under the triple rule this seat lost the challenge (its phony, or its failed challenge).
    LostChallenge(usize),
    /// The director recorded a forfeit by this seat.
    Forfeit(usize),
    /// The director set the final scores.
    Adjudicated,
    /// The director voided the game: nobody wins.
    Voided,
}

/// The result of a finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub reason: EndReason,
    pub scores: Vec<i32>,
    /// Winning seats (more than one on a tie).
    pub winners: Vec<usize>,
}

impl Game {
    /// End the game if the scoreless-turn limit is reached; true if it ended.
    pub(super) fn scoreless_end(&mut self, now_ms: u64) -> bool {
        let limit = self.config.rules.options.scoreless_turn_limit.turns(self.config.seats);
        if self.scoreless >= limit {
            self.finish(EndReason::ScorelessTurns, now_ms, true);
            true
        } else {
            false
        }
    }

    /// End the game: rack points (when `rack_scoring`), overtime penalties, the outcome.
    pub(super) fn finish(&mut self, reason: EndReason, now_ms: u64, rack_scoring: bool) {
        self.pending = None;
        let rules = self.config.rules.clone();
        if rack_scoring {
            match reason {
                EndReason::WentOut(out) if self.config.doubled_end_rack && self.config.seats == 2 => {
                    let other = 1 - out;
                    let rack = self.racks[other];
                    let value = rules.rack_total(&rack);
                    self.push(out, EventKind::EndRackPoints { from: other, rack }, 2 * value, now_ms);
                }
                EndReason::WentOut(out) => {
                    for other in 0..self.config.seats {
                        if other == out {
                            continue;
                        }
                        let rack = self.racks[other];
                        let value = rules.rack_total(&rack);
                        self.push(out, EventKind::EndRackPoints { from: other, rack }, value, now_ms);
                        self.push(other, EventKind::RackPenalty { rack }, -value, now_ms);
                    }
                }
                EndReason::ScorelessTurns => {
                    for seat in 0..self.config.seats {
                        let rack = self.racks[seat];
                        let value = rules.rack_total(&rack);
                        self.push(seat, EventKind::RackPenalty { rack }, -value, now_ms);
                    }
                }
                _ => {}
            }
            if let Some(clocks) = self.clocks.clone() {
                for seat in 0..self.config.seats {
                    let overtime = clocks.overtime_ms(seat, now_ms);
                    if overtime > 0 {
                        let penalty = clocks.penalty(overtime);
                        self.push(seat, EventKind::TimePenalty { overtime_ms: overtime }, -penalty, now_ms);
                    }
                }
            }
        }
        let outcome = self.decide(reason);
        let seat = match reason {
            EndReason::WentOut(s)
            | EndReason::Resigned(s)
            | EndReason::OutOfTime(s)
            | EndReason::LostChallenge(s)
            | EndReason::Forfeit(s) => s,
            EndReason::ScorelessTurns | EndReason::Adjudicated | EndReason::Voided => self.to_move,
        };
        self.push(seat, EventKind::GameOver { reason }, 0, now_ms);
        self.phase = Phase::Over(outcome);
        if let Some(c) = &mut self.clocks {
            c.halt(now_ms);
        }
    }

    /// The outcome on the scores as they stand: the best score wins, except a seat that
    /// forfeited (resigned, ran out of time, lost a triple challenge).
    pub(super) fn decide(&self, reason: EndReason) -> Outcome {
        if reason == EndReason::Voided {
            return Outcome { reason, scores: self.scores.clone(), winners: Vec::new() };
        }
        let forfeit = match reason {
            EndReason::Resigned(s)
            | EndReason::OutOfTime(s)
            | EndReason::LostChallenge(s)
            | EndReason::Forfeit(s) => Some(s),
            _ => None,
        };
        let candidates: Vec<usize> = (0..self.config.seats).filter(|&s| Some(s) != forfeit).collect();
        let best = candidates.iter().map(|&s| self.scores[s]).max().unwrap_or(0);
        let winners = candidates.into_iter().filter(|&s| self.scores[s] == best).collect();
        Outcome { reason, scores: self.scores.clone(), winners }
    }

    /// A time penalty written in the record of a game timed on another clock (GCG `(time)`):
    /// once the game is over, `seat` loses `points` (0 to [`MAX_TIME_PENALTY`]) and the outcome
    /// is decided again. The penalty goes in before the game-over event, which stays the last.
    pub fn record_time_penalty(&mut self, seat: usize, points: i32, now_ms: u64) -> Result<(), GameError> {
        let before = self.history.len();
        self.record_time_penalty_inner(seat, points, now_ms)?;
        self.note_op(Op::TimePenalty(seat, points, now_ms), before);
        Ok(())
    }

    fn record_time_penalty_inner(&mut self, seat: usize, points: i32, now_ms: u64) -> Result<(), GameError> {
        self.seat_check(seat)?;
        if !(0..=MAX_TIME_PENALTY).contains(&points) {
            return Err(GameError::TimePenalty(points));
        }
        let Phase::Over(outcome) = &self.phase else { return Err(GameError::NotOver) };
        let reason = outcome.reason;
        let Some(over) = self.history.pop() else { return Err(GameError::NotOver) };
        self.push(seat, EventKind::TimePenalty { overtime_ms: 0 }, -points, now_ms);
        let outcome = self.decide(reason);
        self.push(over.seat, over.kind, 0, over.time_ms);
        self.phase = Phase::Over(outcome);
        Ok(())
    }
}

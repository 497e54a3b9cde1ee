//! A seat's turn: checking a play, acting (a play, an exchange, a pass, a resignation, the
//! final pass that accepts a play that went out), the turn passing on past turns lost to failed
//! challenges, and the flag falling.

use super::{Action, ChallengeRule, EndReason, Event, EventKind, Game, GameError, Op, Pending, Phase};
use crate::alphabet::{Letter, tile_letter};
use crate::play::{Play, Problem};
use crate::rack::Rack;
use crate::score::Evaluation;
use crate::validate::{Checks, validate_with, word_problems};

impl Game {
    /// Check a play for `seat` without playing it: geometry, rack, and the words when the
    /// challenge rule refuses phonies at submission (void), plus repeated words where the
    /// ruleset forbids them.
    pub fn check_play(&self, seat: usize, play: &Play) -> Result<Evaluation, Vec<Problem>> {
        let rack = self.racks.get(seat).copied().unwrap_or_default();
        let eval = validate_with(&self.board, &rack, play, &self.config.lexicon, Checks { words: false })?;
        let mut problems = word_problems(&self.board, &eval, self.config.lexicon.dawg());
        if self.config.challenge != ChallengeRule::Void {
            problems.retain(|p| matches!(p, Problem::RepeatedWords { .. }));
        }
        if problems.is_empty() { Ok(eval) } else { Err(problems) }
    }

    /// Time has passed without an action: end the game if the seat to move has overstepped its
    /// overtime. Returns whether the game ended.
    pub fn tick(&mut self, now_ms: u64) -> bool {
        if self.is_over() {
            return false;
        }
        let Some(clocks) = &self.clocks else { return false };
        if clocks.out_of_time(self.to_move, now_ms) {
            // The loss happened when the flag fell, however late it is noticed.
            let fell = clocks.flag_fall_ms().map_or(now_ms, |f| f.min(now_ms));
            let seat = self.to_move;
            let before = self.history.len();
            self.push(seat, EventKind::OutOfTime, 0, fell);
            self.finish(EndReason::OutOfTime(seat), fell, false);
            self.note_op(Op::Tick(now_ms), before);
            return true;
        }
        false
    }

    /// The game time at which the seat to move loses on time if nothing happens first (None:
    /// no clocks, or the game is over). A session arms its timer for it and then calls
    /// [`Game::tick`].
    pub fn next_flag_fall(&self) -> Option<u64> {
        if self.is_over() {
            return None;
        }
        self.clocks.as_ref()?.flag_fall_ms()
    }

    /// Take an action for `seat`. On error nothing changed (except that a time loss noticed
    /// on the way ends the game, reported as [`GameError::GameOver`]).
    pub fn act(&mut self, seat: usize, action: Action, now_ms: u64) -> Result<(), GameError> {
        self.seat_check(seat)?;
        if self.tick(now_ms) || self.is_over() {
            return Err(GameError::GameOver);
        }
        if self.paused {
            return Err(GameError::Paused);
        }
        let before = self.history.len();
        self.act_inner(seat, action.clone(), now_ms)?;
        self.note_op(Op::Act(seat, action, now_ms), before);
        Ok(())
    }

    fn act_inner(&mut self, seat: usize, action: Action, now_ms: u64) -> Result<(), GameError> {
        if action == Action::Resign {
            self.resign(seat, now_ms);
            return Ok(());
        }
        if seat != self.to_move {
            return Err(GameError::NotYourTurn { seat, to_move: self.to_move });
        }
        if self.phase == Phase::AwaitingFinalChallenge {
            if action != Action::Pass {
                return Err(GameError::AcceptOrChallenge);
            }
            self.accept_going_out(seat, now_ms);
            return Ok(());
        }
        match action {
            Action::Play(play) => self.make_play(seat, play, now_ms)?,
            Action::Exchange(tiles) => self.exchange(seat, tiles, now_ms)?,
            Action::Pass => self.pass(seat, now_ms),
            Action::Resign => unreachable!("handled above"),
        }
        Ok(())
    }

    /// Resigning ends the game at once, on anyone's turn.
    fn resign(&mut self, seat: usize, now_ms: u64) {
        self.pending = None;
        self.push(seat, EventKind::Resign, 0, now_ms);
        self.finish(EndReason::Resigned(seat), now_ms, false);
    }

    /// The final pass accepts the play that went out.
    fn accept_going_out(&mut self, seat: usize, now_ms: u64) {
        let out = self.pending.take().map_or(seat, |p| p.seat);
        self.charge_clock(seat, now_ms);
        self.turn += 1;
        self.push(seat, EventKind::Pass, 0, now_ms);
        self.finish(EndReason::WentOut(out), now_ms, true);
    }

    /// A play: the tiles placed, the rack refilled, the points scored; under a rule with
    /// challenges the play stays pending (awaiting the final challenge when it went out).
    fn make_play(&mut self, seat: usize, play: Play, now_ms: u64) -> Result<(), GameError> {
        let rules = self.config.rules.clone();
        let eval = self.check_play(seat, &play).map_err(GameError::InvalidPlay)?;
        let play = play.normalized(&self.board).map_err(GameError::InvalidPlay)?;
        self.pending = None;
        self.charge_clock(seat, now_ms);
        let rack_before = self.racks[seat];
        let placements: Vec<_> = play.placements().map(|p| (p.row, p.col, p.tile)).collect();
        for p in play.placements() {
            self.racks[seat].take_tile(p.tile);
        }
        self.board.place(&placements, self.config.lexicon.dawg());
        let after_play = self.racks[seat];
        self.bag.refill(&mut self.racks[seat], rules.rack_size);
        let mut drawn = self.racks[seat];
        drawn.remove_all(&after_play);
        let words: Vec<Vec<Letter>> =
            eval.words.iter().map(|w| w.tiles.iter().map(|&t| tile_letter(t)).collect()).collect();
        let alphabet = rules.alphabet;
        let word_text = words.iter().map(|w| alphabet.word_string(w)).collect();
        self.scores[seat] += eval.total;
        self.turn += 1;
        let scoreless_before = self.scoreless;
        // A placement resets the count even when it scores 0 (RULES.md).
        self.scoreless = 0;
        self.history.push(Event {
            number: self.history.len(),
            seat,
            kind: EventKind::Play { play, words: word_text },
            rack: rack_before,
            points: eval.total,
            cumulative: self.scores[seat],
            time_ms: now_ms,
            undone: false,
            director: None,
        });
        let went_out = self.racks[seat].is_empty() && self.bag.is_empty();
        if self.config.challenge == ChallengeRule::Void {
            if went_out {
                self.finish(EndReason::WentOut(seat), now_ms, true);
                return Ok(());
            }
        } else {
            self.pending = Some(Pending {
                seat,
                play,
                score: eval.total,
                words,
                rack_before,
                drawn,
                scoreless_before,
                went_out,
            });
            if went_out {
                self.phase = Phase::AwaitingFinalChallenge;
            }
        }
        self.advance(now_ms);
        Ok(())
    }

    /// An exchange: the tiles drawn first, then the ones thrown go back to the bag.
    fn exchange(&mut self, seat: usize, tiles: Rack, now_ms: u64) -> Result<(), GameError> {
        let rules = self.config.rules.clone();
        if tiles.is_empty() {
            return Err(GameError::EmptyExchange);
        }
        if self.bag.len() < rules.options.exchange_limit as usize {
            return Err(GameError::ExchangeNotAllowed {
                bag: self.bag.len(),
                limit: rules.options.exchange_limit,
            });
        }
        if !self.racks[seat].contains(&tiles) {
            let missing = not_on_rack(&self.racks[seat], &tiles);
            return Err(GameError::NotOnRack(crate::text::clip(&missing.to_string(rules.alphabet))));
        }
        self.pending = None;
        self.charge_clock(seat, now_ms);
        let rack_before = self.racks[seat];
        self.racks[seat].remove_all(&tiles);
        self.bag.refill(&mut self.racks[seat], rules.rack_size);
        self.bag.put_back(&tiles);
        self.turn += 1;
        self.scoreless += 1;
        self.history.push(Event {
            number: self.history.len(),
            seat,
            kind: EventKind::Exchange { tiles },
            rack: rack_before,
            points: 0,
            cumulative: self.scores[seat],
            time_ms: now_ms,
            undone: false,
            director: None,
        });
        if !self.scoreless_end(now_ms) {
            self.advance(now_ms);
        }
        Ok(())
    }

    fn pass(&mut self, seat: usize, now_ms: u64) {
        self.pending = None;
        self.charge_clock(seat, now_ms);
        self.turn += 1;
        self.scoreless += 1;
        self.push(seat, EventKind::Pass, 0, now_ms);
        if !self.scoreless_end(now_ms) {
            self.advance(now_ms);
        }
    }

    fn charge_clock(&mut self, seat: usize, now_ms: u64) {
        if let Some(c) = &mut self.clocks {
            c.stop(seat, now_ms);
        }
    }

    /// Pass the turn to the next seat, skipping turns lost to failed double challenges.
    fn advance(&mut self, now_ms: u64) {
        self.to_move = (self.to_move + 1) % self.config.seats;
        if let Some(c) = &mut self.clocks {
            c.start(self.to_move, now_ms);
        }
        self.skip_lost_turns(now_ms);
    }

    pub(super) fn skip_lost_turns(&mut self, now_ms: u64) {
        while self.lose_next_turn[self.to_move] && !self.is_over() {
            let seat = self.to_move;
            self.lose_next_turn[seat] = false;
            self.pending = None;
            self.turn += 1;
            self.scoreless += 1;
            self.push(seat, EventKind::TurnLost, 0, now_ms);
            if self.scoreless_end(now_ms) {
                return;
            }
            self.to_move = (self.to_move + 1) % self.config.seats;
            if let Some(c) = &mut self.clocks {
                c.start(self.to_move, now_ms);
            }
        }
    }
}

/// The tiles of `tiles` that `have` does not hold (as many of each as are missing).
fn not_on_rack(have: &Rack, tiles: &Rack) -> Rack {
    let mut missing = *tiles;
    let mut common = Rack::new();
    for t in tiles.tiles() {
        let mut probe = common;
        match t {
            Some(l) => probe.add(l),
            None => probe.add_blank(),
        }
        if have.contains(&probe) {
            common = probe;
        }
    }
    missing.remove_all(&common);
    missing
}

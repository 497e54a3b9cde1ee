//! Challenges under every rule: the rules themselves, and a challenge of the last play judged,
//! the phony withdrawn or the failed challenge's price paid (nothing, a lost turn, a bonus, or
//! the game under the triple rule).

use super::{EndReason, Event, EventKind, Game, GameError, Op, Phase};
use std::fmt;

/// How phonies are dealt with (names as in the CGP `cr` opcode).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChallengeRule {
    /// Invalid words are refused at submission; no challenges.
    Void,
    /// A phony is withdrawn; a failed challenge costs nothing.
    Single,
    /// As single, but a failed challenge costs the challenger their next turn (NASPA).
    Double,
    /// A failed challenge gives the challenged player 5 points (per word by default; WESPA).
    FivePoint,
    /// As five-point, with 10.
    TenPoint,
    /// The challenge decides the game: a phony loses, a failed challenge loses.
    Triple,
}

impl ChallengeRule {
    pub const ALL: [ChallengeRule; 6] = [
        ChallengeRule::Void,
        ChallengeRule::Single,
        ChallengeRule::Double,
        ChallengeRule::FivePoint,
        ChallengeRule::TenPoint,
        ChallengeRule::Triple,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            ChallengeRule::Void => "void",
            ChallengeRule::Single => "single",
            ChallengeRule::Double => "double",
            ChallengeRule::FivePoint => "5pt",
            ChallengeRule::TenPoint => "10pt",
            ChallengeRule::Triple => "triple",
        }
    }
}

impl fmt::Display for ChallengeRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for ChallengeRule {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ChallengeRule::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(s)).ok_or_else(|| {
            format!("unknown challenge rule {s:?} (expected void, single, double, 5pt, 10pt or triple)")
        })
    }
}

/// The verdict of a challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The play as a whole is acceptable.
    pub acceptable: bool,
    /// The invalid words, only when the game reveals them.
    pub invalid_words: Option<Vec<String>>,
}

impl Game {
    /// `challenger` challenges the last play. Any opponent may, until the next turn begins.
    pub fn challenge(&mut self, challenger: usize, now_ms: u64) -> Result<Verdict, GameError> {
        self.challenge_with(challenger, None, now_ms)
    }

    /// A challenge whose ruling is given (`acceptable`: the play stands), not looked up in the
    /// lexicon: a record replayed as it was ruled, whatever this lexicon says of its words (the
    /// `Challenged` event still lists each word with this lexicon's verdict).
    pub fn challenge_ruled(
        &mut self,
        challenger: usize,
        acceptable: bool,
        now_ms: u64,
    ) -> Result<Verdict, GameError> {
        self.challenge_with(challenger, Some(acceptable), now_ms)
    }

    pub(super) fn challenge_with(
        &mut self,
        challenger: usize,
        ruling: Option<bool>,
        now_ms: u64,
    ) -> Result<Verdict, GameError> {
        self.seat_check(challenger)?;
        if self.tick(now_ms) || self.is_over() {
            return Err(GameError::GameOver);
        }
        if self.paused {
            return Err(GameError::Paused);
        }
        let before = self.history.len();
        let verdict = self.challenge_inner(challenger, ruling, now_ms)?;
        self.note_op(Op::Challenge(challenger, ruling, now_ms), before);
        Ok(verdict)
    }

    fn challenge_inner(
        &mut self,
        challenger: usize,
        ruling: Option<bool>,
        now_ms: u64,
    ) -> Result<Verdict, GameError> {
        if self.config.challenge == ChallengeRule::Void {
            return Err(GameError::ChallengesNotAllowed);
        }
        let Some(pending) = self.pending.as_ref() else { return Err(GameError::NothingToChallenge) };
        if pending.seat == challenger {
            return Err(GameError::OwnPlay);
        }
        let pending = self.pending.take().expect("checked above");
        let alphabet = self.config.rules.alphabet;
        let judged: Vec<(String, bool)> = pending
            .words
            .iter()
            .map(|w| (alphabet.word_string(w), self.config.lexicon.contains(w)))
            .collect();
        let invalid: Vec<String> = judged.iter().filter(|(_, ok)| !ok).map(|(w, _)| w.clone()).collect();
        let acceptable = ruling.unwrap_or(invalid.is_empty());
        let seat = pending.seat;
        let rack_now = self.racks[seat];
        self.history.push(Event {
            number: self.history.len(),
            seat,
            kind: EventKind::Challenged { challenger, acceptable, words: judged },
            rack: rack_now,
            points: 0,
            cumulative: self.scores[seat],
            time_ms: now_ms,
            undone: false,
            director: None,
        });
        let verdict =
            Verdict { acceptable, invalid_words: self.config.reveal_invalid_words.then_some(invalid) };
        if !acceptable {
            // Withdraw: tiles back to the rack, the drawn tiles back to the bag, points back.
            let squares: Vec<_> = pending.play.placements().map(|p| (p.row, p.col)).collect();
            self.board.remove(&squares, self.config.lexicon.dawg());
            self.racks[seat] = pending.rack_before;
            self.bag.put_back(&pending.drawn);
            self.scores[seat] -= pending.score;
            self.scoreless = pending.scoreless_before + 1;
            self.history.push(Event {
                number: self.history.len(),
                seat,
                kind: EventKind::PhonyWithdrawn { play: pending.play },
                rack: rack_now,
                points: -pending.score,
                cumulative: self.scores[seat],
                time_ms: now_ms,
                undone: false,
                director: None,
            });
            if self.config.challenge == ChallengeRule::Triple {
                self.finish(EndReason::LostChallenge(seat), now_ms, false);
                return Ok(verdict);
            }
            self.phase = Phase::Playing;
            self.scoreless_end(now_ms);
            return Ok(verdict);
        }
        match self.config.challenge {
            ChallengeRule::Void | ChallengeRule::Single => {}
            ChallengeRule::Double => self.lose_next_turn[challenger] = true,
            ChallengeRule::FivePoint | ChallengeRule::TenPoint => {
                let per = if self.config.challenge == ChallengeRule::FivePoint { 5 } else { 10 };
                let bonus = if self.config.bonus_per_word { per * pending.words.len() as i32 } else { per };
                self.scores[seat] += bonus;
                self.history.push(Event {
                    number: self.history.len(),
                    seat,
                    kind: EventKind::ChallengeBonus { challenger },
                    rack: rack_now,
                    points: bonus,
                    cumulative: self.scores[seat],
                    time_ms: now_ms,
                    undone: false,
                    director: None,
                });
            }
            ChallengeRule::Triple => {
                self.finish(EndReason::LostChallenge(challenger), now_ms, false);
                return Ok(verdict);
            }
        }
        if pending.went_out {
            self.finish(EndReason::WentOut(seat), now_ms, true);
        } else if self.lose_next_turn[self.to_move] {
            // The challenger was next: its turn is gone now.
            self.skip_lost_turns(now_ms);
        }
        Ok(verdict)
    }
}

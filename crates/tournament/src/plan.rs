//! Changing a division's plan after its start: rounds added at the end (each with its method)
//! or taken off the end (never one paired), a late entry with the rounds already paired counted
//! as the director chooses ([`Missed`]), a withdrawn player entered again, and the last round
//! paired unpaired while none of its results is in. Each checked first, as every change is.

use crate::division::{Division, Error, MAX_ROUNDS, Method, Pairing, Player, PlayerId, Round, shown};

/// How a late entry's rounds already paired count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Missed {
    /// In no line of them: nothing won, nothing lost (TSH's "unpaired").
    Absent,
    /// A line of their own in each: a bye of this spread (positive a win, negative a loss, as
    /// TSH writes an absence, 0 a draw).
    Byes { spread: i32 },
}

impl Division {
    /// Add rounds at the end, each paired by its method when its turn comes: refused for a
    /// method no division can pair by, or more than [`MAX_ROUNDS`] in all. Gibsonization counts
    /// the rounds left from the new count.
    pub fn add_rounds(&mut self, methods: &[Method]) -> Result<(), Error> {
        if let Some(why) = methods.iter().find_map(|m| m.problem()) {
            return Err(Error::Invalid(why));
        }
        let total = self.rounds.len() + methods.len();
        if total > MAX_ROUNDS {
            return Err(Error::TooManyRounds { rounds: self.rounds.len(), adding: methods.len() });
        }
        self.rounds.extend(methods.iter().map(|&m| Round::new(m)));
        Ok(())
    }

    /// Take the last `count` rounds off: refused when one of them is paired (unpair it first) or
    /// none would be left.
    pub fn remove_rounds(&mut self, count: usize) -> Result<(), Error> {
        let rounds = self.rounds.len();
        if count >= rounds {
            return Err(Error::LastRound { rounds, removing: count });
        }
        let paired = self.rounds_paired();
        if rounds - count < paired {
            return Err(Error::RoundPaired { round: shown(paired - 1), rounds: rounds - count });
        }
        self.rounds.truncate(rounds - count);
        Ok(())
    }

    /// Add a player after the start: at the end of the seed list, paired from the next round
    /// paired, each round already paired counted as `missed` says (a bye's line added after the
    /// round's own lines). Refused as [`Division::add_player`] refuses.
    pub fn add_late_player(&mut self, player: Player, missed: Missed) -> Result<PlayerId, Error> {
        let id = self.add_player(player)?;
        if let Missed::Byes { spread } = missed {
            for round in self.rounds.iter_mut().take_while(|r| r.pairings.is_some()) {
                round.pairings.iter_mut().for_each(|lines| lines.push(Pairing::Bye { player: id, spread }));
                // A bye has no table: the tables of the round's games stand.
                round.tables.iter_mut().for_each(|tables| tables.push(0));
            }
        }
        Ok(id)
    }

    /// Enter a withdrawn player again: paired from the next round paired (the rounds they
    /// missed stand as they are). Refused for a player who has not withdrawn.
    pub fn reenter(&mut self, player: PlayerId) -> Result<(), Error> {
        self.check_player(player)?;
        let p = &mut self.players[player.index()];
        if !p.withdrawn {
            return Err(Error::NotWithdrawn { player });
        }
        p.withdrawn = false;
        Ok(())
    }

    /// Take round `round`'s pairings away, to be paired again: only the last round paired (a
    /// later round's pairings are drawn after it), and only while none of its games has a result
    /// in (a bye's line goes with the rest). Their tables go with them.
    pub fn unpair(&mut self, round: usize) -> Result<(), Error> {
        let r = self.round(round)?;
        let Some(lines) = &r.pairings else {
            return Err(Error::NotPaired { round: shown(round) });
        };
        let paired = self.rounds_paired();
        if round + 1 != paired {
            return Err(Error::NotLastPaired { round: shown(round), last: shown(paired - 1) });
        }
        if lines.iter().any(|l| matches!(l, Pairing::Game { result: Some(_), .. })) {
            return Err(Error::HasResults { round: shown(round) });
        }
        self.rounds[round].pairings = None;
        self.rounds[round].tables = None;
        Ok(())
    }
}

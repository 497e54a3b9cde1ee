//! A division's plan changed after its start, as kept: the division's own checked changes
//! (`dawgref-tournament`'s `plan`) with what the record keeps beside it made to match (a game
//! list for each round, a game id for each line of a started round, a token for each player),
//! and an event for each. A round started has its games made: it is unpaired no more.

use super::event::EventKind;
use super::record::{DivisionId, Record};
use crate::error::EventsError;
use dawgref_host::TokenHash;
use dawgref_tournament::{Method, Missed, Player, PlayerId, RoundId};

impl Record {
    /// Add rounds at the end of division `d`, each paired by its method when its turn comes.
    pub(crate) fn add_rounds(&mut self, d: DivisionId, methods: &[Method]) -> Result<(), EventsError> {
        let entry = &mut self.divisions[d];
        let before = entry.division.rounds().len();
        entry.division.add_rounds(methods).map_err(EventsError::Rules)?;
        entry.games.resize(entry.division.rounds().len(), None);
        let after = entry.games.len();
        let added = match methods.len() {
            1 => format!("round {after} added"),
            _ => format!("rounds {} to {after} added", before + 1),
        };
        self.noted_rounds(d, added);
        Ok(())
    }

    /// Take the last `count` rounds of division `d` off: none of them paired.
    pub(crate) fn remove_rounds(&mut self, d: DivisionId, count: usize) -> Result<(), EventsError> {
        let entry = &mut self.divisions[d];
        let before = entry.division.rounds().len();
        entry.division.remove_rounds(count).map_err(EventsError::Rules)?;
        entry.games.truncate(entry.division.rounds().len());
        let after = entry.games.len();
        let removed = match count {
            1 => format!("round {before} taken off"),
            _ => format!("rounds {} to {before} taken off", after + 1),
        };
        self.noted_rounds(d, removed);
        Ok(())
    }

    /// The event of division `d`'s rounds changed: what changed, and the count now.
    fn noted_rounds(&mut self, d: DivisionId, what: String) {
        let division = self.division_at(d).name().to_string();
        let rounds = self.division_at(d).rounds().len();
        self.event(EventKind::RoundsChanged, &division, 0, 0, format!("{what}: {rounds} rounds"));
    }

    /// Add `player` (with their token's hash; None for a bot) at the end of division `d`'s seed
    /// list, each round already paired counted as `missed` says; a bye's line in a started round
    /// has no game. Refused as the division refuses a newcomer (the division's own error, for the
    /// caller to name the field).
    pub(crate) fn add_late_player(
        &mut self,
        d: DivisionId,
        player: Player,
        token: Option<TokenHash>,
        missed: Missed,
    ) -> Result<PlayerId, dawgref_tournament::Error> {
        let entry = &mut self.divisions[d];
        let id = entry.division.add_late_player(player, missed)?;
        entry.tokens.push(token);
        if let Missed::Byes { .. } = missed {
            let paired = entry.division.rounds_paired();
            entry.games.iter_mut().take(paired).flatten().for_each(|games| games.push(String::new()));
        }
        Ok(id)
    }

    /// Enter withdrawn player `number` (from 1) of division `d` again: paired from the next
    /// round paired.
    pub(crate) fn reenter(&mut self, d: DivisionId, number: u32) -> Result<(), EventsError> {
        self.player(d, number)?;
        (self.divisions[d].division.reenter(PlayerId(number - 1))).map_err(EventsError::Rules)?;
        let division = self.division_at(d).name().to_string();
        let detail = format!("{} enters again as player {number}", self.player_name(d, number));
        self.event(EventKind::PlayerReentered, &division, 0, 0, detail).players = vec![number];
        Ok(())
    }

    /// Take round `k`'s pairings of division `d` away, to be paired again: the last round
    /// paired, not started (its games are made then), no result in.
    pub(crate) fn unpair(&mut self, d: DivisionId, k: RoundId) -> Result<(), EventsError> {
        let entry = &mut self.divisions[d];
        if entry.started(k) {
            return Err(EventsError::GamesMade { round: k.number() });
        }
        entry.division.unpair(k.index()).map_err(EventsError::Rules)?;
        // Its lines' reports go with them.
        entry.reports.retain(|&(round, _), _| round != k.index());
        let division = self.division_at(d).name().to_string();
        let detail = format!("{k}'s pairings taken back");
        self.event(EventKind::RoundUnpaired, &division, k.number(), 0, detail);
        Ok(())
    }
}

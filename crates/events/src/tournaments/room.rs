//! What the room needs beside the results: check-in before round 1 (a player checks themselves
//! in with their token, or a director checks them in; the director withdraws every player who
//! has not, in one command), a player's reserved table (the division's own rule seats the rounds
//! paired from then on, `dawgref_tournament`'s `tables`), and the division's prize list with who
//! takes each prize now (`dawgref_tournament::prizes`, from the standings and statistics of the
//! tournament as its viewer may see it).
//!
//! Check-in is open while the division's first round is unpaired: the absent are withdrawn
//! before pairing, so that no one is paired against an empty chair.

use super::change::{Answer, Retry};
use super::command::Outcome;
use super::event::{Actor, EventKind};
use super::record::{DivisionId, Record};
use crate::Events;
use crate::error::EventsError;
use dawgref_tournament::prizes::{Award, PrizeList, award};
use dawgref_tournament::{GameResult, Pairing, PlayerId, Round, Standings};

impl Record {
    /// Refused once division `d`'s first round is paired: check-in is over.
    fn check_in_open(&self, d: DivisionId) -> Result<(), EventsError> {
        let division = self.division_at(d);
        if division.rounds_paired() > 0 {
            return Err(EventsError::CheckInClosed { division: division.name().to_string() });
        }
        Ok(())
    }

    /// Whether player `number` (from 1) of division `d` may check in or take it back now: the
    /// player, if so.
    fn may_check_in(&self, d: DivisionId, number: u32) -> Result<PlayerId, EventsError> {
        self.player(d, number)?;
        self.check_in_open(d)?;
        let player = PlayerId(number - 1);
        if self.division_at(d).players()[player.index()].withdrawn {
            let name = self.player_name(d, number).to_string();
            return Err(EventsError::CheckInWithdrawn { player: number, name });
        }
        Ok(player)
    }

    /// CheckIn: `player` of division `d` (as [`Record::may_check_in`] found them) is here
    /// (`present`), or no longer; `themselves`: the player's own check-in, else a director's
    /// for them. Logged when it changes something.
    fn check_in(&mut self, d: DivisionId, player: PlayerId, present: bool, themselves: bool) {
        let checked_in = &mut self.divisions[d].checked_in;
        let changed = if present { checked_in.insert(player) } else { checked_in.remove(&player) };
        if !changed {
            return;
        }
        let number = player.0 + 1;
        let name = self.player_name(d, number).to_string();
        let detail = match (present, themselves) {
            (true, true) => format!("{name} checks in"),
            (true, false) => format!("{name} is checked in by the director"),
            (false, true) => format!("{name} takes back their check-in"),
            (false, false) => format!("{name}'s check-in is taken back by the director"),
        };
        let division = self.division_at(d).name().to_string();
        self.event(EventKind::CheckedIn, &division, 0, 0, detail).players = vec![number];
    }

    /// WithdrawAbsent: every player of division `d` who has not checked in withdrawn, each
    /// logged as a withdrawal; the players withdrawn, by number (from 1). Refused while no one
    /// has checked in (it would withdraw them all).
    pub(crate) fn withdraw_absent(&mut self, d: DivisionId) -> Result<Vec<u32>, EventsError> {
        self.check_in_open(d)?;
        let entry = &self.divisions[d];
        if entry.checked_in.is_empty() {
            let division = entry.division.name().to_string();
            return Err(EventsError::NoneCheckedIn { division, players: entry.division.players().len() });
        }
        let absent: Vec<u32> = (entry.division.players().iter().enumerate())
            .filter(|&(i, p)| !p.withdrawn && !entry.checked_in.contains(&PlayerId(i as u32)))
            .map(|(i, _)| i as u32 + 1)
            .collect();
        let division = entry.division.name().to_string();
        for &number in &absent {
            self.withdraw(d, number)?;
            let detail = format!("{} withdraws: absent at check-in", self.player_name(d, number));
            self.event(EventKind::PlayerWithdrawn, &division, 0, 0, detail).players = vec![number];
        }
        Ok(absent)
    }

    /// SetReservedTable: player `number` (from 1) of division `d` keeps `table` (None: no
    /// longer) in the rounds paired from now on.
    pub(crate) fn reserve_table(
        &mut self,
        d: DivisionId,
        number: u32,
        table: Option<u32>,
    ) -> Result<PlayerId, EventsError> {
        self.player(d, number)?;
        let player = PlayerId(number - 1);
        let division = &mut self.divisions[d].division;
        division.set_reserved_table(player, table).map_err(EventsError::Rules)?;
        let name = division.players()[player.index()].name.clone();
        let detail = match table {
            Some(table) => format!("{name} keeps table {table}"),
            None => format!("{name} has no reserved table"),
        };
        let division = self.division_at(d).name().to_string();
        self.event(EventKind::TableReserved, &division, 0, 0, detail).players = vec![number];
        Ok(player)
    }

    /// SetDivisionPrizes: division `d`'s prize list replaced by `list`.
    pub(crate) fn set_prizes(&mut self, d: DivisionId, list: PrizeList) {
        let count = list.prizes().len();
        self.divisions[d].prizes = list;
        let division = self.division_at(d).name().to_string();
        let detail = match count {
            1 => "1 prize".to_string(),
            n => format!("{n} prizes"),
        };
        self.event(EventKind::PrizesSet, &division, 0, 0, detail);
    }
}

impl Events {
    /// CheckIn: `actor` checks in (`present`) or takes back the check-in of player `number`
    /// (from 1) of `division`: a player themselves (their token says who: `division` and
    /// `number` may be left empty and 0, and name no one else), or a director for anyone.
    /// Durably, once per request id (a player's own); answered with `answer` of the tournament
    /// as it then stands and the player.
    #[allow(clippy::too_many_arguments)]
    pub async fn check_in<A: Answer + Send + 'static>(
        &self,
        slug: &str,
        actor: &Actor,
        request_id: &str,
        (division, number): (&str, u32),
        present: bool,
        answer: impl Fn(&Record, Outcome) -> A + Send + 'static,
    ) -> Result<A, EventsError> {
        let (division, number, themselves) = match actor {
            Actor::Player { division: theirs, player } => {
                let someone_else =
                    (number != 0 && number != *player) || (!division.is_empty() && division != theirs);
                if someone_else {
                    return Err(EventsError::NotYou { you: *player, division: theirs.clone() });
                }
                (theirs.clone(), *player, true)
            }
            _ => {
                actor.directs("CheckIn")?;
                (division.to_string(), number, false)
            }
        };
        // A request id is the caller's own: two players' ids never answer for each other.
        let scoped =
            if request_id.is_empty() { String::new() } else { format!("{}:{request_id}", actor.name()) };
        let retry = Retry { method: "CheckIn", request_id: &scoped };
        let by = actor.name().into_owned();
        // Players check in together as the room fills: their check-ins are written in batches.
        let check = move |rec: &Record| {
            let d = rec.division(&division)?;
            Ok((d, rec.may_check_in(d, number)?))
        };
        let apply = move |rec: &mut Record, (d, player)| {
            rec.by = by.clone();
            rec.check_in(d, player, present, themselves);
            Ok(answer(rec, Outcome::Player { division: d, player }))
        };
        self.batched(slug, retry, check, apply).await
    }

    /// WithdrawAbsent: a director withdraws every player of `division` who has not checked in,
    /// before its first round is paired; durably, once per request id; answered with `answer`
    /// of the tournament as it then stands, the division and the players withdrawn (by number).
    pub async fn withdraw_absent<A: Answer>(
        &self,
        slug: &str,
        actor: &Actor,
        request_id: &str,
        division: &str,
        answer: impl Fn(&Record, DivisionId, &[u32]) -> A,
    ) -> Result<A, EventsError> {
        actor.directs("WithdrawAbsent")?;
        let retry = Retry { method: "WithdrawAbsent", request_id };
        let held = self.hold(slug).await;
        self.once(&held, retry, |rec| {
            rec.by = actor.name().to_string();
            let d = rec.division(division)?;
            let withdrawn = rec.withdraw_absent(d)?;
            Ok(answer(rec, d, &withdrawn))
        })
        .await
    }

    /// Who takes each prize of division `d` of `record` now (as `record` has its results: a
    /// spectator's view gives a spectator's prizes), and whether that is final (every round
    /// paired and every result in). A player's bingos are known when every game of theirs with
    /// scores was played on the server (`Events::statistics` counts those).
    pub async fn prizes(&self, record: &Record, d: DivisionId) -> (Vec<Award>, bool) {
        let statistics = self.statistics(record, d).await;
        let entry = &record.divisions[d];
        let division = &entry.division;
        let mut scored = vec![0u32; division.players().len()];
        for round in division.rounds() {
            for line in round.pairings.iter().flatten() {
                if let Pairing::Game { first, second, result: Some(GameResult::Scores(_)) } = *line {
                    scored[first.index()] += 1;
                    scored[second.index()] += 1;
                }
            }
        }
        let bingos: Vec<Option<u32>> = (statistics.bingos.iter().zip(&scored))
            .map(|(&(count, games), &scored)| (games == scored).then_some(count))
            .collect();
        let standings = Standings::of(division);
        let awards = award(&entry.prizes, division, &standings, &statistics.figures, Some(&bingos));
        (awards, division.rounds().iter().all(Round::is_complete))
    }
}

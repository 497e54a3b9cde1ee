//! What the room needs beside the results: a player's reserved table (the division's own rule
//! seats the rounds paired from then on, `dawgref_tournament`'s `tables`), and the division's
//! prize list with who takes each prize now (`dawgref_tournament::prizes`, from the standings and
//! statistics of the tournament as its viewer may see it).

use super::event::EventKind;
use super::record::{DivisionId, Record};
use crate::Events;
use crate::error::EventsError;
use dawgref_tournament::prizes::{Award, PrizeList, award};
use dawgref_tournament::{GameResult, Pairing, PlayerId, Round, Standings};

impl Record {
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

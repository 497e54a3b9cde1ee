//! The event's log and statistics as its directors and spectators read them: the tournament's
//! events filtered a page at a time ([`Events::log`]), and a division's statistics, its results'
//! figures (`dawgref_tournament::Statistics`) with each player's bingos from the games the server
//! played ([`Events::statistics`]).

use super::event::{LogFilter, TournamentEvent};
use super::record::Record;
use crate::Events;
use crate::error::EventsError;
use dawgref_tournament::{GameResult, Pairing, Statistics};

/// A division's statistics: its results' figures, and per player (by id) their bingos and the
/// games they were counted in (the games the server played whose results count).
pub struct DivisionStatistics {
    pub figures: Statistics,
    pub bingos: Vec<(u32, u32)>,
}

impl Events {
    /// Tournament `slug`'s events from number `from` that `filter` keeps, at most `limit`, and
    /// the number of the next one it keeps after them (None: no more).
    pub async fn log(
        &self,
        slug: &str,
        filter: &LogFilter,
        from: u64,
        limit: usize,
    ) -> Result<(Vec<TournamentEvent>, Option<u64>), EventsError> {
        let mut kept = Vec::new();
        for e in self.tournament_events(slug, from).await? {
            if !e.matches(filter) {
                continue;
            }
            if kept.len() == limit {
                return Ok((kept, Some(e.number)));
            }
            kept.push(e);
        }
        Ok((kept, None))
    }

    /// Division `d` of `record`'s statistics (as `record` has its results: a spectator's view
    /// gives a spectator's statistics). A game's bingos count where its pairing's result is a
    /// game's scores and its game on the server is over; a game that cannot be read counts none.
    pub async fn statistics(&self, record: &Record, d: usize) -> DivisionStatistics {
        let entry = &record.divisions[d];
        let figures = Statistics::of(&entry.division);
        let mut bingos = vec![(0, 0); entry.division.players().len()];
        for k in 0..entry.division.rounds().len() {
            for (i, line) in entry.lines(k).iter().enumerate() {
                let Pairing::Game { first, second, result: Some(GameResult::Scores(_)) } = *line else {
                    continue;
                };
                let id = entry.game_id(k, i);
                if id.is_empty() {
                    continue;
                }
                let Ok(snapshot) = self.0.host.snapshot(id).await else { continue };
                if !snapshot.game().is_over() {
                    continue;
                }
                let seats = snapshot.game().bingos();
                for (seat, player) in [first, second].into_iter().enumerate() {
                    let (count, games) = &mut bingos[player.index()];
                    *count += seats.get(seat).copied().unwrap_or(0);
                    *games += 1;
                }
            }
        }
        DivisionStatistics { figures, bingos }
    }
}

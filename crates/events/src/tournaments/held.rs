//! A tournament as a spectator may see it while a broadcast holds its games back: a game's result
//! comes in for them no sooner than the broadcast's delay after it came in for the hall, in
//! GetTournament (its pairings and standings), ExportTsh and WatchTournament alike. Directors see
//! it now; a player sees the results of their own games now.
//!
//! When a result came in is its `result` (or `result_corrected`) event's time; the times are read
//! once per replica and tournament, each event once (kept in `result_times::ResultTimes`).

use super::event::TournamentEvent;
use super::record::Record;
use super::result_times::Times;
use crate::Events;
use crate::error::EventsError;

/// The labels a tournament's game carries: its tournament, division and round (what ListGames,
/// ExportResults and a broadcast's labels select it by).
pub fn game_labels(slug: &str, division: &str, round: u32) -> [(String, String); 3] {
    [
        ("tournament".to_string(), slug.to_string()),
        ("division".to_string(), division.to_string()),
        ("round".to_string(), round.to_string()),
    ]
}

impl Events {
    /// How long a spectator waits for event `e` of tournament `slug` (0: not held).
    pub(crate) fn delay_of(&self, slug: &str, e: &TournamentEvent) -> u64 {
        if !e.is_result() {
            return 0;
        }
        self.broadcasts().delay_ms(&game_labels(slug, &e.division, e.round))
    }

    /// `record` as someone who is not its director sees it now (`you`: their division and player
    /// number, if a player): each result of a game that a broadcast still holds back is not in
    /// yet.
    pub async fn spectators(&self, record: Record, you: Option<(&str, u32)>) -> Result<Record, EventsError> {
        // Each round's delay, by division: with none, nothing is held and no event is read.
        let slug = record.slug.clone();
        let delays: Vec<Vec<u64>> = (record.divisions.iter())
            .map(|entry| {
                (0..entry.division.rounds().len())
                    .map(|k| {
                        self.broadcasts().delay_ms(&game_labels(&slug, entry.division.name(), k as u32 + 1))
                    })
                    .collect()
            })
            .collect();
        if delays.iter().flatten().all(|&delay| delay == 0) {
            return Ok(record);
        }
        let times = self.result_times(&slug).await?;
        let now = dawgref_host::unix_ms();
        let mut held = record;
        for (entry, delays) in held.divisions.iter_mut().zip(&delays) {
            let name = entry.division.name().to_string();
            let mine = you
                .filter(|(division, _)| *division == name)
                .map(|(_, player)| dawgref_tournament::PlayerId(player - 1));
            let mut holding = Vec::new();
            for (k, &delay) in delays.iter().enumerate().filter(|(_, delay)| **delay > 0) {
                for (i, line) in entry.lines(k).iter().enumerate() {
                    if !line.is_done() || entry.game_id(k, i).is_empty() {
                        continue;
                    }
                    if mine.is_some_and(|m| line.players().any(|p| p == m)) {
                        continue;
                    }
                    let key = (name.clone(), k as u32 + 1, i as u32 + 1);
                    // (A result with no event of its own time is shown: every way a result comes in
                    // writes one.)
                    if times.at.get(&key).is_some_and(|at| at.saturating_add(delay) > now) {
                        holding.push((k, i));
                    }
                }
            }
            if !holding.is_empty() {
                entry.division = entry.division.without_results(&holding);
            }
        }
        Ok(held)
    }

    /// The tournament's result times, read on from where this replica last read them.
    async fn result_times(&self, slug: &str) -> Result<Times, EventsError> {
        let kept = &self.0.result_times;
        let mut times = kept.get(slug);
        for e in self.tournament_events(slug, times.next).await? {
            times.next = times.next.max(e.number + 1);
            if e.is_result() {
                times.at.insert((e.division.clone(), e.round, e.pairing), e.unix_ms);
            }
        }
        kept.put(slug, &times);
        Ok(times)
    }
}

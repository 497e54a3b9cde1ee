//! A tournament as a spectator may see it while a broadcast holds its games back: a game's result
//! comes in for them no sooner than the broadcast's delay after it came in for the hall, in
//! GetTournament (its pairings and standings), ExportTsh and WatchTournament alike. Directors see
//! it now; a player sees the results of their own games now.
//!
//! When a result came in is its `result` (or `result_corrected`) event's time; the times are read
//! once per replica and tournament, each event once (kept in [`ResultTimes`]).

use super::record::Record;
use super::result_times::{ResultTimes, Times};
use crate::proto::v1 as pb;
use crate::server::state::AppState;
use tonic::Status;

/// Whether an event tells of a result.
fn is_result(e: &pb::WatchTournamentResponse) -> bool {
    matches!(e.kind.as_str(), "result" | "result_corrected") && e.pairing > 0
}

/// The labels a tournament game of division `division`, round `round` carries (as `start` gives
/// them): what a broadcast's labels are matched against.
fn game_labels(slug: &str, division: &str, round: u32) -> Vec<(String, String)> {
    vec![
        ("tournament".to_string(), slug.to_string()),
        ("division".to_string(), division.to_string()),
        ("round".to_string(), round.to_string()),
    ]
}

/// How long a spectator waits for event `e` of tournament `slug` (0: not held).
pub(super) fn delay_of(state: &AppState, slug: &str, e: &pb::WatchTournamentResponse) -> u64 {
    if !is_result(e) {
        return 0;
    }
    state.broadcasts.delay_ms(&game_labels(slug, &e.division, e.round))
}

/// Whether any broadcast with a delay covers some game of the tournament.
fn any_delay(state: &AppState, record: &Record) -> bool {
    let t = record.t();
    t.divisions.iter().any(|d| {
        (1..=d.rounds.len() as u32).any(|r| state.broadcasts.delay_ms(&game_labels(&t.slug, &d.name, r)) > 0)
    })
}

/// `record` as someone who is not its director sees it now (`you`: their seat, if a player): each
/// result of a game that a broadcast still holds back is not in yet.
pub(super) async fn spectators(
    state: &AppState,
    record: Record,
    you: Option<&pb::TournamentSeat>,
) -> Result<Record, Status> {
    if !any_delay(state, &record) {
        return Ok(record);
    }
    let slug = record.t().slug.clone();
    let times = times(state, &slug).await?;
    let now = crate::host::unix_ms();
    let mut held = record;
    let t = held.t_mut();
    for d in &mut t.divisions {
        let mine = you.filter(|y| y.division == d.name).map(|y| y.player);
        for round in &mut d.rounds {
            let delay = state.broadcasts.delay_ms(&game_labels(&slug, &d.name, round.number));
            if delay == 0 {
                continue;
            }
            for p in round.pairings.iter_mut().filter(|p| p.done && !p.game_id.is_empty()) {
                if mine.is_some_and(|m| m == p.first || m == p.second) {
                    continue;
                }
                let key = (d.name.clone(), round.number, p.number);
                // (A result with no event of its own time is shown: every way a result comes in
                // writes one.)
                if times.at.get(&key).is_some_and(|at| at.saturating_add(delay) > now) {
                    *p = pb::TournamentPairing {
                        number: p.number,
                        first: p.first,
                        second: p.second,
                        game_id: std::mem::take(&mut p.game_id),
                        ..Default::default()
                    };
                }
            }
        }
    }
    Ok(held)
}

/// The tournament's result times, read on from where this replica last read them.
async fn times(state: &AppState, slug: &str) -> Result<Times, Status> {
    let kept: &ResultTimes = &state.result_times;
    let mut times = kept.get(slug);
    for e in super::change::events(state, slug, times.next).await? {
        times.next = times.next.max(e.number + 1);
        if is_result(&e) {
            times.at.insert((e.division.clone(), e.round, e.pairing), e.unix_ms);
        }
    }
    kept.put(slug, &times);
    Ok(times)
}

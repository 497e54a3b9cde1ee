//! A tournament as a spectator may see it while a broadcast holds its games back: a game's result
//! comes in for them no sooner than the broadcast's delay after it came in for the hall, and
//! nothing that came after a result still held is out either (later results, the pairings of
//! later rounds, which a King of the Hill or a Swiss draws from the results, and their games),
//! in GetTournament (its pairings, standings and event count), ExportTsh and WatchTournament
//! alike: the tournament as of its events up to the first one held, as WatchTournament sends
//! them. Directors see it now; a player sees the results of their own games now.
//!
//! When a result came in is its `result` (or `result_corrected`) event's time; the events are
//! read once per replica and tournament, each once (kept in `marks::Marks`).

use super::event::paired_lines;
use super::event::{EventKind, TournamentEvent};
use super::marks::{Marked, Paired, PairedMark, PairingKey, ResultMark};
use super::record::{DivisionId, Record};
use crate::Events;
use crate::error::EventsError;
use dawgref_tournament::{PlayerId, RoundId};
use std::collections::HashSet;

/// The labels a tournament's game carries: its tournament, division and round (what ListGames,
/// ExportResults and a broadcast's labels select it by). [`GameLink::of`] reads them back.
pub fn game_labels(slug: &str, division: &str, round: u32) -> [(String, String); 3] {
    [
        (TOURNAMENT_LABEL.to_string(), slug.to_string()),
        (DIVISION_LABEL.to_string(), division.to_string()),
        ("round".to_string(), round.to_string()),
    ]
}

const TOURNAMENT_LABEL: &str = "tournament";
const DIVISION_LABEL: &str = "division";

/// A game's link to its tournament: as its record keeps it (`Snapshot::tournament`, the round
/// StartRound made it for), or for a game made before its record kept one, as its labels carry
/// it ([`game_labels`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameLink {
    pub slug: String,
    /// None: a game labelled by hand with a tournament and no division.
    pub division: Option<String>,
}

impl GameLink {
    /// The tournament a game is linked to (None: not a tournament's game).
    pub fn of(game: &dawgref_host::Snapshot) -> Option<GameLink> {
        match game.tournament() {
            Some(t) => Some(GameLink { slug: t.slug.clone(), division: Some(t.division.clone()) }),
            None => GameLink::labelled(game.labels()),
        }
    }

    /// The tournament `labels` link a game to: a game made before its record kept its link, or
    /// labelled by hand.
    fn labelled(labels: &[(String, String)]) -> Option<GameLink> {
        let label = |key: &str| labels.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        Some(GameLink { slug: label(TOURNAMENT_LABEL)?, division: label(DIVISION_LABEL) })
    }
}

impl Events {
    /// Tournament `slug` as it stands now, what ended unheard entered ([`Events::reconcile`]):
    /// to its director as it is, to anyone else as a broadcast holds its games back.
    pub async fn tournament_seen(&self, slug: &str, director: bool) -> Result<Record, EventsError> {
        let record = self.reconcile(slug).await?;
        if director { Ok(record) } else { self.spectators(record, None).await }
    }

    /// How long after it a spectator waits for event `e` of tournament `slug` (0: not held; a
    /// result out before the broadcast that covers it began is not held).
    pub(crate) fn delay_of(&self, slug: &str, e: &TournamentEvent) -> u64 {
        if !e.is_result() {
            return 0;
        }
        let labels = game_labels(slug, &e.division, e.round);
        self.broadcasts().released_at(&labels, e.unix_ms) - e.unix_ms
    }

    /// `record` as someone who is not its director sees it now (`you`: their division and player
    /// number, if a player): cut at the first result a broadcast still holds back (none of their
    /// own games' results), so that neither it nor anything after it is in yet.
    pub async fn spectators(
        &self,
        record: Record,
        you: Option<(DivisionId, PlayerId)>,
    ) -> Result<Record, EventsError> {
        // No one's report but the viewer's own, whatever a broadcast holds.
        let record = record.without_reports(you);
        let slug = record.slug.clone();
        let delay =
            |division: &str, round: u32| self.broadcasts().delay_ms(&game_labels(&slug, division, round));
        // With no delay on any of its rounds, nothing is held and no event is read.
        let held_anywhere = (record.divisions.iter()).any(|entry| {
            (1..=entry.division.rounds().len() as u32).any(|round| delay(entry.division.name(), round) > 0)
        });
        if !held_anywhere {
            return Ok(record);
        }
        let marked = self.marks(&slug).await?;
        // The viewer's own games' lines, whose results they see now.
        let own: HashSet<PairingKey> = match you {
            None => HashSet::new(),
            Some((d, player)) => {
                let entry = &record.divisions[d];
                let name = entry.division.name();
                (entry.round_ids())
                    .flat_map(|k| entry.pairings(k).map(move |(i, line)| (k, i, line)))
                    .filter(|(_, _, line)| line.players().any(|p| p == player))
                    .map(|(k, i, _)| (name.to_string(), k.number(), i.number()))
                    .collect()
            }
        };
        // The first event still held: a result within its round's delay, entered since a
        // broadcast that covers it began (a result with no event of its own time is shown: every
        // way a result comes in writes one).
        let now = dawgref_host::unix_ms();
        let mut cut: Option<u64> = None;
        for (key, times) in marked.results.iter().filter(|(key, _)| !own.contains(*key)) {
            let labels = game_labels(&slug, &key.0, key.1);
            let held = |mark: &&ResultMark| self.broadcasts().released_at(&labels, mark.unix_ms) > now;
            for mark in times.iter().filter(held) {
                cut = Some(cut.map_or(mark.number, |c| c.min(mark.number)));
            }
        }
        let Some(cut) = cut else { return Ok(record) };
        Ok(cut_at(record, &marked, cut, &own))
    }

    /// The tournament's marks, read on from where this replica last read them.
    async fn marks(&self, slug: &str) -> Result<Marked, EventsError> {
        let kept = &self.0.marks;
        let mut marked = kept.get(slug);
        for e in self.tournament_events(slug, marked.next).await? {
            marked.next = marked.next.max(e.number + 1);
            let round = (e.division.clone(), e.round);
            match e.kind() {
                _ if e.is_result() => {
                    let key = (e.division.clone(), e.round, e.pairing);
                    let mark = ResultMark { number: e.number, unix_ms: e.unix_ms, result: e.result() };
                    marked.results.entry(key).or_default().push(mark);
                }
                Some(kind @ (EventKind::PairingsMade | EventKind::RoundUnpaired)) => {
                    let lines = match kind {
                        EventKind::RoundUnpaired => Paired::Unpaired,
                        _ if e.lines.is_empty() => Paired::Unknown,
                        _ => Paired::Lines(e.lines.clone()),
                    };
                    marked.paired.entry(round).or_default().push(PairedMark { number: e.number, lines });
                }
                Some(EventKind::RoundStarted) => {
                    marked.started.insert(round, e.number);
                }
                _ => {}
            }
        }
        kept.put(slug, &marked);
        Ok(marked)
    }
}

/// `record` as of its events before number `cut`: the results, pairings and round starts that
/// came at or after it taken out (but the viewer's `own` games' results, which they see now), a
/// result corrected since shown as it was, a round paired again or unpaired since as it was
/// paired, and its event count what was out.
fn cut_at(mut record: Record, marked: &Marked, cut: u64, own: &HashSet<PairingKey>) -> Record {
    record.events = record.events.min(cut);
    for entry in &mut record.divisions {
        let name = entry.division.name().to_string();
        let rounds = entry.division.rounds().len();
        let bye_spread = entry.division.controls().bye_spread;
        let changes =
            |k: usize| marked.paired.get(&(name.clone(), k as u32 + 1)).map_or(&[][..], Vec::as_slice);
        let since = |mark: Option<&PairedMark>| mark.is_some_and(|m| m.number >= cut);
        // The first round first paired after the cut: it and every later one unpaired, unstarted.
        let unpaired = (0..rounds).find(|&k| since(changes(k).first()));
        for k in (0..unpaired.unwrap_or(rounds)).filter(|&k| since(changes(k).last())) {
            // Paired again or unpaired since the cut: as its last change before the cut left it.
            let then = changes(k).iter().rev().find(|m| m.number < cut).map(|m| &m.lines);
            let mut lines = match then {
                Some(Paired::Lines(kept)) => Some(paired_lines(kept, bye_spread)),
                Some(Paired::Unpaired | Paired::Unknown) | None => None,
            };
            // The viewer's own game, where a line of then pairs the same two as now: as it is now.
            let now = entry.lines(RoundId::at(k));
            for (i, line) in lines.iter_mut().flatten().enumerate() {
                let own_now =
                    now.get(i).filter(|_| own.contains(&(name.clone(), k as u32 + 1, i as u32 + 1)));
                if let Some(now) = own_now.filter(|now| now.players().eq(line.players())) {
                    *line = now.clone();
                }
            }
            entry.division = entry.division.with_pairings_as(k, lines);
            entry.games[k] = None;
        }
        let (mut holding, mut restoring) = (Vec::new(), Vec::new());
        for k in entry.round_ids().take(unpaired.unwrap_or(rounds)) {
            if marked.started.get(&(name.clone(), k.number())).is_some_and(|&number| number >= cut) {
                entry.games[k.index()] = None;
            }
            for (i, _) in entry.pairings(k) {
                let key = (name.clone(), k.number(), i.number());
                let Some(marks) = marked.results.get(&key) else { continue };
                if own.contains(&key) || marks.last().is_none_or(|m| m.number < cut) {
                    continue;
                }
                // A correction since the cut: the result it corrects, as it was.
                match marks.iter().rev().find(|m| m.number < cut).and_then(|m| m.result) {
                    Some(result) => restoring.push((k.index(), i.index(), result)),
                    None => holding.push((k.index(), i.index())),
                }
            }
        }
        if !holding.is_empty() {
            entry.division = entry.division.without_results(&holding);
        }
        for (k, i, result) in restoring {
            if let Err(e) = entry.division.record(k, i, result, true) {
                tracing::warn!(division = %name, round = k + 1, pairing = i + 1, error = %e, "a result as it was is not shown");
            }
        }
        if let Some(k) = unpaired {
            entry.division = entry.division.without_pairings_from(k);
            entry.games[k..].iter_mut().for_each(|games| *games = None);
        }
    }
    record
}

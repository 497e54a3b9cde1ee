//! Players' own reports of their results: whether a division takes them ([`ReportsMode`], a
//! director's command), a player's report as a command made by the player ([`Events::report`],
//! [`Actor::Player`]), and the reports kept per line until its result is in. A report becomes the
//! result through the one door every result takes (`Record::enter_result`, [`Source::Reports`]):
//! when both players' reports agree, or at once where one suffices. Reports that differ enter
//! nothing and wait for the director, whose RecordResult always wins.
//!
//! A report is kept by its line (round and pairing) and seat; it stands only while the line has
//! no result and is played over the board: entering one (from any source), taking the round's
//! pairings back and starting the round with the line's game on the server drop the line's
//! reports, and `DivisionRecord::check` refuses a kept report of a line that has one. What anyone
//! but a director sees holds no one's report but the viewer's own ([`Record::without_reports`]).

use super::change::{Answer, Retry};
use super::event::{Actor, EventKind};
use super::record::{DivisionId, LineReports, Record, ReportsMode, Source, detail};
use crate::Events;
use crate::error::{EventsError, Invalid};
use dawgref_tournament::{GameResult, Pairing, PairingId, PlayerId, RoundId};

/// What the player says the game was for them (a scorecard's W/L/T), checked against the scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claimed {
    Win,
    Loss,
    Tie,
}

impl Claimed {
    fn said(self) -> &'static str {
        match self {
            Claimed::Win => "a win",
            Claimed::Loss => "a loss",
            Claimed::Tie => "a tie",
        }
    }
}

/// ReportResult as a player gives it: a round (from 1), the pairing (from 1; 0: their own), the
/// scores as the table saw them (their own first), and what they say it was for them.
#[derive(Clone, Copy, Debug)]
pub struct PlayerReport {
    pub round: u32,
    pub pairing: u32,
    pub mine: i32,
    pub theirs: i32,
    pub claimed: Claimed,
}

/// Where a pairing's result stands after a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportState {
    /// The result is in.
    Entered,
    /// Waiting for the opponent's report.
    Waiting,
    /// The two reports differ: the director settles it.
    Disputed,
}

/// Where a line stands with its reports `r` in `mode`.
fn state(r: &LineReports, mode: ReportsMode) -> ReportState {
    match (r.first, r.second) {
        (Some(a), Some(b)) if a != b => ReportState::Disputed,
        (Some(_), Some(_)) => ReportState::Entered,
        (Some(_), None) | (None, Some(_)) if mode == ReportsMode::OneSuffices => ReportState::Entered,
        _ => ReportState::Waiting,
    }
}

impl PlayerReport {
    /// The scores' own faults, before the tournament is read: each within the bound any score
    /// has, not 0–0, and giving the outcome claimed.
    fn check(&self) -> Result<(), Invalid> {
        for (field, score) in [("my_score", self.mine), ("opponent_score", self.theirs)] {
            if let Some(why) = dawgref_engine::game::score_out_of_bounds(score) {
                return Err(Invalid::ReportedScore { field, why: format!("a {why}") });
            }
        }
        if (self.mine, self.theirs) == (0, 0) {
            let why = "0–0: no scores given (a forfeit is the director's to enter)".to_string();
            return Err(Invalid::ReportedScore { field: "my_score", why });
        }
        let given = match self.mine.cmp(&self.theirs) {
            std::cmp::Ordering::Greater => Claimed::Win,
            std::cmp::Ordering::Less => Claimed::Loss,
            std::cmp::Ordering::Equal => Claimed::Tie,
        };
        if given != self.claimed {
            let (mine, theirs) = (self.mine, self.theirs);
            return Err(Invalid::ClaimedOutcome {
                mine,
                theirs,
                given: given.said(),
                claimed: self.claimed.said(),
            });
        }
        Ok(())
    }

    /// The line `player` of division `d` reports on, their seat in it and the scores oriented
    /// (the line's first player's first), checked against the record.
    fn find(
        &self,
        rec: &Record,
        d: DivisionId,
        player: PlayerId,
    ) -> Result<(RoundId, PairingId, usize, [i32; 2]), EventsError> {
        let entry = &rec.divisions[d];
        if entry.reports_mode == ReportsMode::Off {
            return Err(EventsError::ReportsOff { division: entry.division.name().to_string() });
        }
        let k = rec.round(d, self.round)?;
        if entry.division.rounds()[k.index()].pairings.is_none() {
            return Err(dawgref_tournament::Error::NotPaired { round: self.round as usize }.into());
        }
        let (i, line) = (entry.pairings(k))
            .find(|(_, line)| line.players().any(|p| p == player))
            .ok_or(EventsError::NotInRound { round: self.round })?;
        if self.pairing != 0 && self.pairing != i.number() {
            let pairings = entry.lines(k).len();
            if self.pairing as usize > pairings {
                let (round, pairing) = (self.round, self.pairing);
                return Err(Invalid::NoSuchPairing { round, pairing, pairings }.into());
            }
            return Err(EventsError::NotYourPairing {
                round: self.round,
                pairing: self.pairing,
                yours: i.number(),
            });
        }
        let Pairing::Game { first, result, .. } = *line else {
            return Err(EventsError::ReportOfBye { round: self.round });
        };
        if result.is_some() {
            let result = detail(&entry.division, line);
            return Err(EventsError::ResultIn { round: self.round, pairing: i.number(), result });
        }
        if entry.game_id(k, i).is_some() {
            return Err(EventsError::PlayedHere { round: self.round, pairing: i.number() });
        }
        let seat = usize::from(first != player);
        let scores = if seat == 0 { [self.mine, self.theirs] } else { [self.theirs, self.mine] };
        Ok((k, i, seat, scores))
    }
}

impl Record {
    /// The tournament as `you` (a player, by division and id; None: a spectator) may see it: no
    /// report kept but their own.
    pub fn without_reports(mut self, you: Option<(DivisionId, PlayerId)>) -> Record {
        for (d, entry) in self.divisions.iter_mut().enumerate() {
            let mine = you.filter(|(yd, _)| yd.0 == d).map(|(_, p)| p);
            let division = &entry.division;
            entry.reports.retain(|&(k, i), reports| {
                let Some(me) = mine else { return false };
                let line = division.rounds().get(k).and_then(|r| r.pairings.as_ref()?.get(i));
                let Some(Pairing::Game { first, second, .. }) = line else { return false };
                *reports = LineReports {
                    first: reports.first.filter(|_| *first == me),
                    second: reports.second.filter(|_| *second == me),
                };
                *reports != LineReports::default()
            });
        }
        self
    }

    /// SetResultReports: division `d` takes its players' reports as `mode` says.
    pub(crate) fn set_reports(&mut self, d: DivisionId, mode: ReportsMode) {
        self.divisions[d].reports_mode = mode;
        let division = self.division_at(d).name().to_string();
        self.event(EventKind::ReportsSet, &division, 0, 0, mode.said().to_string());
    }

    /// `player`'s report taken in round `k`'s line `i` of division `d` (seat `seat`, `scores` the
    /// first's first), the result entered when the reports make it; where the line then stands.
    fn take_report(
        &mut self,
        d: DivisionId,
        (k, i, seat): (RoundId, PairingId, usize),
        scores: [i32; 2],
    ) -> Result<ReportState, EventsError> {
        let entry = &mut self.divisions[d];
        let mode = entry.reports_mode;
        let reports = entry.reports.entry((k.index(), i.index())).or_default();
        reports.set(seat, scores);
        let (reports, state) = (*reports, state(reports, mode));
        let division = entry.division.name().to_string();
        let line = entry.line(k, i).cloned();
        let players: Vec<u32> = line.iter().flat_map(|l| l.players().map(|p| p.0 + 1)).collect();
        let name = |s: usize| {
            let p = line.as_ref().and_then(|l| l.players().nth(s)).map(|p| p.index());
            p.map(|p| entry.division.players()[p].name.clone()).unwrap_or_default()
        };
        let said = |s: [i32; 2]| format!("{} {} – {} {}", name(0), s[0], name(1), s[1]);
        let mut detail = format!("{} reports {}", name(seat), said(scores));
        match state {
            ReportState::Waiting => detail.push_str(&format!("; waiting for {}", name(1 - seat))),
            ReportState::Disputed => {
                let other = reports.by(1 - seat).unwrap_or_default();
                detail.push_str(&format!("; disputed: {} reported {}", name(1 - seat), said(other)));
            }
            ReportState::Entered => {}
        }
        self.event(EventKind::ResultReported, &division, k.number(), i.number(), detail).players = players;
        if state == ReportState::Entered {
            self.enter_result(d, k, i, GameResult::Scores(scores), Source::Reports)?;
        }
        Ok(state)
    }
}

impl Events {
    /// ReportResult: `actor`, a player, reports their pairing's result in `report`'s round,
    /// durably, once per request id; answered with `answer` of the tournament as it then stands,
    /// the reporter's division, round and pairing, and where the pairing's result stands.
    pub async fn report<A: Answer + Send + 'static>(
        &self,
        slug: &str,
        actor: &Actor,
        request_id: &str,
        report: PlayerReport,
        answer: impl Fn(&Record, (DivisionId, RoundId, PairingId), ReportState) -> A + Send + 'static,
    ) -> Result<A, EventsError> {
        let Actor::Player { division, player } = actor else {
            return Err(EventsError::NotAPlayer { actor: actor.name().into_owned() });
        };
        report.check()?;
        // A request id is the player's own: two players' ids never answer for each other.
        let scoped =
            if request_id.is_empty() { String::new() } else { format!("{}:{request_id}", actor.name()) };
        let retry = Retry { method: "ReportResult", request_id: &scoped };
        let (division, player, by) = (division.clone(), PlayerId(player - 1), actor.name().into_owned());
        // A room's reports arrive together as a round ends: they are written in batches.
        let check = move |rec: &Record| {
            let d = rec.division(&division)?;
            let (k, i, seat, scores) = report.find(rec, d, player)?;
            Ok((d, k, i, seat, scores))
        };
        let apply = move |rec: &mut Record, (d, k, i, seat, scores)| {
            rec.by = by.clone();
            let state = rec.take_report(d, (k, i, seat), scores)?;
            Ok(answer(rec, (d, k, i), state))
        };
        self.batched(slug, retry, check, apply).await
    }
}

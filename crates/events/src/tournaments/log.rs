//! The event's log and statistics as its directors and spectators read them: the tournament's
//! events filtered a page at a time ([`Events::log`]), and a division's statistics, its results'
//! figures (`dawgref_tournament::Statistics`) with each player's bingos from the games the server
//! played ([`Events::statistics`]); and the files they are exported as: the log as JSON lines or
//! CSV, the statistics as two CSV files (their columns are the server's proto's).

use super::event::{LogFilter, TournamentEvent};
use super::record::{DivisionId, Record};
use crate::Events;
use crate::error::{EventsError, Invalid};
use dawgref_tournament::csv::line as csv_line;
use dawgref_tournament::statistics::Feat;
use dawgref_tournament::{Division, GameResult, Pairing, Statistics};

/// A division's statistics: its results' figures, and per player (by id) their bingos and the
/// games they were counted in (the games the server played whose results count).
pub struct DivisionStatistics {
    pub figures: Statistics,
    pub bingos: Vec<(u32, u32)>,
}

impl Events {
    /// Tournament `slug`'s events from number `from` that `filter` keeps, at most `limit`, and
    /// the number of the next one it keeps after them (None: no more). The filter's division and
    /// player are the tournament's, a player named in a division.
    pub async fn log(
        &self,
        slug: &str,
        filter: &LogFilter,
        from: u64,
        limit: usize,
    ) -> Result<(Vec<TournamentEvent>, Option<u64>), EventsError> {
        let (record, _) = self.load(slug).await?;
        match (filter.division.as_str(), filter.player) {
            ("", 0) => {}
            ("", player) => return Err(Invalid::PlayerOfNoDivision { player }.into()),
            (division, player) => {
                let d = record.division(division)?;
                if player != 0 {
                    record.player(d, player)?;
                }
            }
        }
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
    /// game's scores and its game on the server is over with a move made in it (a play, an
    /// exchange or a pass); `bingo_games` counts those games. A game that cannot be read counts
    /// none.
    pub async fn statistics(&self, record: &Record, d: DivisionId) -> DivisionStatistics {
        let entry = &record.divisions[d];
        let figures = Statistics::of(&entry.division);
        let mut bingos = vec![(0, 0); entry.division.players().len()];
        for k in entry.round_ids() {
            for (i, line) in entry.pairings(k) {
                let Pairing::Game { first, second, result: Some(GameResult::Scores(_)) } = *line else {
                    continue;
                };
                let Some(id) = entry.game_id(k, i) else { continue };
                let Ok(snapshot) = self.0.host.snapshot(id).await else { continue };
                // A game ended by a hand-entered result before any move was not played here: it
                // says nothing of its players' bingos.
                if !snapshot.game().is_over() || !moved(snapshot.game()) {
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

/// Whether a move was made in `game` and stands: a play, an exchange or a pass.
fn moved(game: &dawgref_engine::game::Game) -> bool {
    use dawgref_engine::game::EventKind;
    (game.history().iter()).any(|e| {
        !e.undone && matches!(e.kind, EventKind::Play { .. } | EventKind::Exchange { .. } | EventKind::Pass)
    })
}

/// One event of the log as a JSON line's object, its fields in this order.
#[derive(serde::Serialize)]
struct LogLine<'a> {
    number: u64,
    unix_ms: u64,
    kind: &'a str,
    division: &'a str,
    round: u32,
    pairing: u32,
    players: &'a [u32],
    by: &'a str,
    detail: &'a str,
}

/// The log as JSON lines: an object a line, its fields in [`LogLine`]'s order.
pub fn log_json_lines(events: &[TournamentEvent]) -> String {
    let mut out = String::new();
    for e in events {
        let line = LogLine {
            number: e.number,
            unix_ms: e.unix_ms,
            kind: &e.kind,
            division: &e.division,
            round: e.round,
            pairing: e.pairing,
            players: &e.players,
            by: &e.by,
            detail: &e.detail,
        };
        out.push_str(&serde_json::to_string(&line).unwrap_or_default());
        out.push('\n');
    }
    out
}

/// The log as CSV, a header line first.
pub fn log_csv(events: &[TournamentEvent]) -> String {
    let mut out = String::from("number,unix_ms,kind,division,round,pairing,players,by,detail\n");
    for e in events {
        let players: Vec<String> = e.players.iter().map(u32::to_string).collect();
        out.push_str(&csv_line(&[
            e.number.to_string(),
            e.unix_ms.to_string(),
            e.kind.clone(),
            e.division.clone(),
            e.round.to_string(),
            e.pairing.to_string(),
            players.join(" "),
            e.by.clone(),
            e.detail.clone(),
        ]));
    }
    out
}

/// An optional figure as a CSV cell (empty: absent).
fn cell(n: Option<i32>) -> String {
    n.map(|n| n.to_string()).unwrap_or_default()
}

impl DivisionStatistics {
    /// Each player's figures of `division` (these statistics' division) as CSV, in seed order.
    pub fn players_csv(&self, division: &Division) -> String {
        let mut out = String::from(
            "player,name,games,points_for,points_against,average_for,average_against,high_game,firsts,performance_rating,bingos,bingo_games\n",
        );
        for (i, (f, &(bingos, bingo_games))) in self.figures.players.iter().zip(&self.bingos).enumerate() {
            out.push_str(&csv_line(&[
                (i + 1).to_string(),
                division.players()[i].name.clone(),
                f.games.to_string(),
                f.points_for.to_string(),
                f.points_against.to_string(),
                format!("{:.2}", f.average_for()),
                format!("{:.2}", f.average_against()),
                cell(f.high_game),
                f.firsts.to_string(),
                cell(f.performance_rating),
                bingos.to_string(),
                bingo_games.to_string(),
            ]));
        }
        out
    }

    /// The division's records (high game, high loss, high combined, biggest win) as CSV, those
    /// it has.
    pub fn records_csv(&self, division: &Division) -> String {
        let name = |p: dawgref_tournament::PlayerId| {
            division.players().get(p.index()).map(|p| p.name.clone()).unwrap_or_default()
        };
        let mut out =
            String::from("record,round,pairing,player,name,score,opponent,opponent_name,opponent_score\n");
        let f = &self.figures;
        let records: [(&str, &Option<Feat>); 4] = [
            ("high_game", &f.high_game),
            ("high_loss", &f.high_loss),
            ("high_combined", &f.high_combined),
            ("biggest_win", &f.biggest_win),
        ];
        for (what, r) in records {
            let Some(r) = r else { continue };
            out.push_str(&csv_line(&[
                what.to_string(),
                (r.round + 1).to_string(),
                (r.pairing + 1).to_string(),
                (r.player.0 + 1).to_string(),
                name(r.player),
                r.score.to_string(),
                (r.opponent.0 + 1).to_string(),
                name(r.opponent),
                r.opponent_score.to_string(),
            ]));
        }
        out
    }
}

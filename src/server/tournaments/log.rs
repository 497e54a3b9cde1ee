//! The event's log and statistics on the wire: the log's events a director asks for (the
//! filter's refusals named as its fields), its page bounds, and a division's statistics as the
//! wire shows them.

use super::TournamentsService;
use crate::proto::v1 as pb;
use crate::server::errors;
use dawgref_events::EventKind;
use dawgref_events::{DivisionId, DivisionStatistics, EventsError, LogFilter, Record, TournamentEvent};
use dawgref_tournament::statistics::Feat;
use tonic::Status;

/// Events a page of GetTournamentLog by default, and at most.
pub(super) const DEFAULT_PAGE: u32 = 100;
pub(super) const MAX_PAGE: u32 = 1000;
/// Events an ExportTournamentLog writes at most.
pub(super) const MAX_EXPORT: usize = 10_000;

impl TournamentsService {
    /// The log's events a director asked for: the tournament's director only, the filter's
    /// refusals naming its field.
    pub(super) async fn log_events(
        &self,
        metadata: &tonic::metadata::MetadataMap,
        slug: &str,
        filter: Option<&pb::TournamentLogFilter>,
        from: u64,
        limit: usize,
    ) -> Result<(Vec<TournamentEvent>, Option<u64>), Status> {
        self.director(metadata, slug).await?;
        let in_filter = |e: EventsError| match e {
            EventsError::Invalid(e) => {
                errors::bad_field(&format!("filter.{}", errors::invalid_field(&e)), e.to_string())
            }
            other => errors::events(other),
        };
        let f = filter.cloned().unwrap_or_default();
        let kinds = EventKind::named(&f.kinds).map_err(|e| in_filter(e.into()))?;
        let filter = LogFilter { division: f.division, round: f.round, player: f.player, kinds, by: f.by };
        self.state.events.log(slug, &filter, from, limit).await.map_err(in_filter)
    }
}

/// Division `d`'s statistics as the wire shows them.
pub(super) fn statistics_view(
    record: &Record,
    d: DivisionId,
    s: &DivisionStatistics,
) -> pb::DivisionStatistics {
    let division = record.division_at(d);
    let record_of = |f: &Option<Feat>| {
        f.map(|f| pb::GameRecord {
            round: f.round as u32 + 1,
            pairing: f.pairing as u32 + 1,
            player: f.player.0 + 1,
            opponent: f.opponent.0 + 1,
            score: f.score,
            opponent_score: f.opponent_score,
        })
    };
    let players = (s.figures.players.iter().zip(&s.bingos).enumerate())
        .map(|(i, (f, &(bingos, bingo_games)))| pb::PlayerStatistics {
            player: i as u32 + 1,
            name: division.players()[i].name.clone(),
            games: f.games,
            points_for: f.points_for,
            points_against: f.points_against,
            average_for: f.average_for(),
            average_against: f.average_against(),
            high_game: f.high_game,
            firsts: f.firsts,
            performance_rating: f.performance_rating,
            bingos,
            bingo_games,
        })
        .collect();
    pb::DivisionStatistics {
        division: division.name().to_string(),
        games: s.figures.games,
        high_game: record_of(&s.figures.high_game),
        high_loss: record_of(&s.figures.high_loss),
        high_combined: record_of(&s.figures.high_combined),
        biggest_win: record_of(&s.figures.biggest_win),
        players,
    }
}

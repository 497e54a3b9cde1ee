//! The event's log and statistics on the wire: GetTournamentLog and ExportTournamentLog (a
//! director's, filtered and paged), GetDivisionStatistics and ExportDivisionStatistics (anyone's,
//! a spectator's as a broadcast holds results back), and their JSON lines and CSV.

use super::TournamentsService;
use crate::proto::v1 as pb;
use crate::server::errors;
use dawgref_events::EventKind;
use dawgref_events::{DivisionId, DivisionStatistics, EventsError, LogFilter, Record, TournamentEvent};
use dawgref_tournament::statistics::Feat;
use tonic::Status;

/// Events a page of GetTournamentLog by default, and at most.
const DEFAULT_PAGE: u32 = 100;
const MAX_PAGE: u32 = 1000;
/// Events an ExportTournamentLog writes at most.
const MAX_EXPORT: usize = 10_000;
/// Kinds a filter names at most.
const MAX_KINDS: usize = 16;

impl TournamentsService {
    /// The log's events a director asked for: the tournament's director only, the filter checked
    /// against it.
    async fn log_events(
        &self,
        metadata: &tonic::metadata::MetadataMap,
        slug: &str,
        filter: Option<&pb::TournamentLogFilter>,
        from: u64,
        limit: usize,
    ) -> Result<(Vec<TournamentEvent>, Option<u64>), Status> {
        self.director(metadata, slug).await?;
        let events = &self.state.events;
        let (record, _) = events.load(slug).await.map_err(errors::events)?;
        let filter = log_filter(&record, filter.cloned().unwrap_or_default())?;
        events.log(slug, &filter, from, limit).await.map_err(errors::events)
    }

    pub(super) async fn get_log(
        &self,
        request: tonic::Request<pb::GetTournamentLogRequest>,
    ) -> Result<pb::GetTournamentLogResponse, Status> {
        let r = request.get_ref();
        let size = match r.page_size {
            0 => DEFAULT_PAGE,
            n => n.min(MAX_PAGE),
        };
        let (events, next) = self
            .log_events(request.metadata(), &r.slug, r.filter.as_ref(), r.from_event, size as usize)
            .await?;
        Ok(pb::GetTournamentLogResponse {
            events: events.into_iter().map(super::view::event).collect(),
            next_event: next.unwrap_or(0),
        })
    }

    pub(super) async fn export_log(
        &self,
        request: tonic::Request<pb::ExportTournamentLogRequest>,
    ) -> Result<pb::ExportTournamentLogResponse, Status> {
        let r = request.get_ref();
        let (events, next) =
            self.log_events(request.metadata(), &r.slug, r.filter.as_ref(), r.from_event, MAX_EXPORT).await?;
        let text = match r.format() {
            pb::LogFormat::Csv => dawgref_events::log_csv(&events),
            pb::LogFormat::Unspecified | pb::LogFormat::JsonLines => dawgref_events::log_json_lines(&events),
        };
        Ok(pb::ExportTournamentLogResponse { text, next_event: next.unwrap_or(0) })
    }

    /// A division's statistics as the caller may see them: now for its directors, as a
    /// broadcast holds results back for anyone else.
    async fn statistics_of(
        &self,
        metadata: &tonic::metadata::MetadataMap,
        slug: &str,
        division: &str,
    ) -> Result<(Record, DivisionId, DivisionStatistics), Status> {
        let directed = self.directs(metadata, slug).await?;
        let events = &self.state.events;
        let record = events.tournament_seen(slug, directed).await.map_err(errors::events)?;
        let d = record.division(division).map_err(errors::events)?;
        let statistics = events.statistics(&record, d).await;
        Ok((record, d, statistics))
    }

    pub(super) async fn get_statistics(
        &self,
        request: tonic::Request<pb::GetDivisionStatisticsRequest>,
    ) -> Result<pb::GetDivisionStatisticsResponse, Status> {
        let r = request.get_ref();
        let (record, d, statistics) = self.statistics_of(request.metadata(), &r.slug, &r.division).await?;
        Ok(pb::GetDivisionStatisticsResponse { statistics: Some(statistics_view(&record, d, &statistics)) })
    }

    pub(super) async fn export_statistics(
        &self,
        request: tonic::Request<pb::ExportDivisionStatisticsRequest>,
    ) -> Result<pb::ExportDivisionStatisticsResponse, Status> {
        let r = request.get_ref();
        let (record, d, statistics) = self.statistics_of(request.metadata(), &r.slug, &r.division).await?;
        let division = record.division_at(d);
        Ok(pb::ExportDivisionStatisticsResponse {
            players_csv: statistics.players_csv(division),
            records_csv: statistics.records_csv(division),
        })
    }
}

/// The wire's filter checked against the tournament: INVALID_ARGUMENT naming the field for a
/// division, player or kind that is not there.
fn log_filter(record: &Record, f: pb::TournamentLogFilter) -> Result<LogFilter, Status> {
    let in_filter = |e: EventsError| match e {
        EventsError::Invalid(e) => {
            errors::bad_field(&format!("filter.{}", errors::invalid_field(&e)), e.to_string())
        }
        other => errors::events(other),
    };
    if !f.division.is_empty() {
        let d = record.division(&f.division).map_err(in_filter)?;
        if f.player != 0 {
            record.player(d, f.player).map_err(in_filter)?;
        }
    } else if f.player != 0 {
        return Err(errors::bad_field(
            "filter.player",
            format!("{}: a player is named in a division", f.player),
        ));
    }
    if f.kinds.len() > MAX_KINDS {
        return Err(errors::bad_field(
            "filter.kinds",
            format!("{} kinds: at most {MAX_KINDS}", f.kinds.len()),
        ));
    }
    let mut kinds = Vec::with_capacity(f.kinds.len());
    for (i, kind) in f.kinds.iter().enumerate() {
        let Some(kind) = EventKind::from_name(kind) else {
            let names: Vec<&str> = EventKind::ALL.iter().map(|k| k.name()).collect();
            return Err(errors::bad_field(
                &format!("filter.kinds[{i}]"),
                format!("{:?}: no such kind (there are {})", crate::text::clip(kind), names.join(", ")),
            ));
        };
        kinds.push(kind);
    }
    Ok(LogFilter { division: f.division, round: f.round, player: f.player, kinds, by: f.by })
}

/// Division `d`'s statistics as the wire shows them.
fn statistics_view(record: &Record, d: DivisionId, s: &DivisionStatistics) -> pb::DivisionStatistics {
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

//! TournamentsService: the wire's door to the events layer's tournaments (`dawgref_events`:
//! the record, its store, the change-and-retry loop, the results that enter by themselves). Here
//! are the handlers, each request's fields checked into domain values, the wire messages made
//! from a record once per answer (`view`), and StartRound's games made through the checks of a
//! new game, each seat bound to its player's token (`start`).

mod create;
mod log;
mod plan;
mod ratings;
mod start;
mod view;

pub(crate) use view::standings;

use super::errors;
use super::state::AppState;
use crate::proto::v1 as pb;
use dawgref_events::{EventsError, Record, Retry, pairing_error};
use dawgref_tournament::GameResult;
use std::pin::Pin;
use std::sync::Arc;
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status};

/// The largest request the service reads: ImportTsh's `.t` file of up to 1 MiB, and room for
/// its other fields.
pub(crate) const MAX_REQUEST_BYTES: usize = create::MAX_TSH_BYTES + 64 * 1024;

pub struct TournamentsService {
    pub(crate) state: Arc<AppState>,
}

type EventStream = Pin<Box<dyn Stream<Item = Result<pb::WatchTournamentResponse, Status>> + Send>>;

impl TournamentsService {
    /// Whether the caller directs the tournament (these calls need no token: anyone else, a
    /// player's token or none, is answered as a spectator).
    async fn directs(&self, metadata: &tonic::metadata::MetadataMap, slug: &str) -> Result<bool, Status> {
        if super::auth::bearer(metadata)?.is_none() {
            return Ok(false);
        }
        Ok(self.director(metadata, slug).await.is_ok())
    }

    /// The director a call needs: the root, or a key whose labels are the tournament's.
    /// Its key's name (None: the root director), for the events of the games it acts on.
    async fn director(
        &self,
        metadata: &tonic::metadata::MetadataMap,
        slug: &str,
    ) -> Result<Option<String>, Status> {
        let director = self.state.identity.director(metadata).await?;
        director.check_covers(&[("tournament".to_string(), slug.to_string())]).map_err(errors::host)?;
        Ok(director.name().map(str::to_string))
    }

    /// A change by a director, made durable before it is answered, once per request id: a
    /// retry (the same method and `request_id`) answers the first answer and changes nothing.
    async fn directed<R: prost::Message + Default>(
        &self,
        metadata: &tonic::metadata::MetadataMap,
        slug: &str,
        retry: Retry<'_>,
        mut f: impl FnMut(&mut Record) -> Result<R, EventsError>,
    ) -> Result<R, Status> {
        let by = dawgref_events::actor(self.director(metadata, slug).await?.as_deref());
        let events = &self.state.events;
        let held = events.hold(slug).await;
        let f = |rec: &mut Record| {
            rec.by = by.clone();
            f(rec)
        };
        events.once(&held, retry, f).await.map_err(errors::events)
    }
}

/// A player's seat as the events layer takes it: their division and number.
fn seat_of(you: Option<&pb::TournamentSeat>) -> Option<(&str, u32)> {
    you.map(|y| (y.division.as_str(), y.player))
}

#[tonic::async_trait]
impl pb::tournaments_service_server::TournamentsService for TournamentsService {
    async fn create_tournament(
        &self,
        request: Request<pb::CreateTournamentRequest>,
    ) -> Result<Response<pb::CreateTournamentResponse>, Status> {
        create::create(self, request).await.map(Response::new)
    }

    async fn get_tournament(
        &self,
        request: Request<pb::GetTournamentRequest>,
    ) -> Result<Response<pb::GetTournamentResponse>, Status> {
        let slug = request.get_ref().slug.clone();
        let events = &self.state.events;
        let record = events.reconcile(&slug).await.map_err(errors::events)?;
        let (you, director) = match super::auth::bearer(request.metadata())? {
            None => (None, false),
            Some(token) => match create::player_of(&record, &token) {
                Some(seat) => (Some(seat), false),
                None => {
                    // Not a player's: a director's, or nobody's (never silently a watcher).
                    self.director(request.metadata(), &slug).await.map_err(|_| {
                        errors::unauthenticated(
                            "the token is no player's of this tournament and no director's",
                        )
                    })?;
                    (None, true)
                }
            },
        };
        // A director sees it now; anyone else as a broadcast holds its games back.
        let record = if director {
            record
        } else {
            events.spectators(record, seat_of(you.as_ref())).await.map_err(errors::events)?
        };
        Ok(Response::new(pb::GetTournamentResponse { tournament: Some(view::tournament(&record, you)) }))
    }

    async fn list_tournaments(
        &self,
        _request: Request<pb::ListTournamentsRequest>,
    ) -> Result<Response<pb::ListTournamentsResponse>, Status> {
        let all = self.state.events.all().await.map_err(errors::events)?;
        let tournaments = (all.into_iter())
            .map(|record| pb::TournamentSummary {
                divisions: record.divisions.iter().map(|d| d.division.name().to_string()).collect(),
                slug: record.slug,
                name: record.name,
            })
            .collect();
        Ok(Response::new(pb::ListTournamentsResponse { tournaments }))
    }

    async fn add_player(
        &self,
        request: Request<pb::AddPlayerRequest>,
    ) -> Result<Response<pb::AddPlayerResponse>, Status> {
        let r = request.get_ref().clone();
        let spec = r.player.clone().ok_or_else(|| errors::bad_field("player", "a player is needed"))?;
        create::check_player("player", &spec)?;
        let missed = plan::missed(r.missed_round_spread)?;
        let (token, hash) = create::token_for(&spec)?;
        // No retry id: a player's token is shown once, and never kept to be answered again.
        let answer = self
            .directed(request.metadata(), &r.slug, ("AddPlayer", ""), |rec| {
                let d = rec.division(&r.division)?;
                let number = rec.division_at(d).players().len() as u32 + 1;
                // The division's own rules for a newcomer (the most players, a name a `.t` file
                // can hold).
                let id =
                    rec.add_late_player(d, create::player(&spec), hash, missed).map_err(|e| match e {
                        dawgref_tournament::Error::Full => create::players_refused("player", number as usize),
                        other => EventsError::bad_field("player.name", other.to_string()),
                    })?;
                let player = view::player(number, &rec.division_at(d).players()[id.index()]);
                let detail =
                    format!("{} joins as player {number}{}", spec.name, plan::missed_detail(rec, d, missed));
                rec.event("player_added", &r.division, 0, 0, detail).players = vec![number];
                Ok(pb::AddPlayerResponse { player: Some(player), token: String::new() })
            })
            .await?;
        Ok(Response::new(pb::AddPlayerResponse { token: token.unwrap_or_default(), ..answer }))
    }

    async fn withdraw_player(
        &self,
        request: Request<pb::WithdrawPlayerRequest>,
    ) -> Result<Response<pb::WithdrawPlayerResponse>, Status> {
        let r = request.get_ref();
        let by = self.director(request.metadata(), &r.slug).await?;
        let owners = super::directors::Forwarded { state: &self.state, metadata: request.metadata() };
        let answer = (self.state.events)
            .withdraw(&r.slug, &r.division, r.player, &r.request_id, by.as_deref(), &owners, |rec, d| {
                pb::WithdrawPlayerResponse { division: Some(view::division(rec, d)) }
            })
            .await
            .map_err(errors::events)?;
        Ok(Response::new(answer))
    }

    async fn pair_round(
        &self,
        request: Request<pb::PairRoundRequest>,
    ) -> Result<Response<pb::PairRoundResponse>, Status> {
        let r = request.get_ref().clone();
        let by = dawgref_events::actor(self.director(request.metadata(), &r.slug).await?.as_deref());
        let events = &self.state.events;
        events.reconcile(&r.slug).await.map_err(errors::events)?;
        let held = events.hold(&r.slug).await;
        let answer = events
            .once(&held, ("PairRound", &r.request_id), |rec| {
                rec.by = by.clone();
                let d = rec.division(&r.division)?;
                let k = rec.round(d, r.round)?;
                rec.divisions[d].division.pair(k).map_err(pairing_error)?;
                rec.event("pairings_made", &r.division, r.round, 0, format!("round {} paired", r.round));
                Ok(pb::PairRoundResponse { round: Some(view::round(&rec.divisions[d], k)) })
            })
            .await
            .map_err(errors::events)?;
        Ok(Response::new(answer))
    }

    async fn set_pairings(
        &self,
        request: Request<pb::SetPairingsRequest>,
    ) -> Result<Response<pb::SetPairingsResponse>, Status> {
        let r = request.get_ref().clone();
        let answer = self
            .directed(request.metadata(), &r.slug, ("SetPairings", &r.request_id), |rec| {
                let d = rec.division(&r.division)?;
                let k = rec.round(d, r.round)?;
                if rec.divisions[d].started(k) {
                    return Err(EventsError::Precondition(format!(
                        "round {} has started: its pairings stand",
                        r.round
                    )));
                }
                let players = rec.division_at(d).players().len() as u32;
                let id = |field: String, n: u32| {
                    if (1..=players).contains(&n) {
                        Ok(dawgref_tournament::PlayerId(n - 1))
                    } else {
                        Err(EventsError::bad_field(
                            &field,
                            format!("{n}: the division has players 1 to {players}"),
                        ))
                    }
                };
                let mut lines = Vec::with_capacity(r.pairings.len());
                for (i, p) in r.pairings.iter().enumerate() {
                    let first = id(format!("pairings[{i}].first"), p.first)?;
                    lines.push(match p.second {
                        0 => dawgref_tournament::Pairing::Bye {
                            player: first,
                            spread: rec.division_at(d).controls().bye_spread,
                        },
                        n => {
                            let second = id(format!("pairings[{i}].second"), n)?;
                            dawgref_tournament::Pairing::Game { first, second, result: None }
                        }
                    });
                }
                rec.divisions[d].division.set_pairings(k, lines).map_err(pairing_error)?;
                rec.event(
                    "pairings_made",
                    &r.division,
                    r.round,
                    0,
                    format!("round {} paired by the director", r.round),
                );
                Ok(pb::SetPairingsResponse { round: Some(view::round(&rec.divisions[d], k)) })
            })
            .await?;
        Ok(Response::new(answer))
    }

    async fn start_round(
        &self,
        request: Request<pb::StartRoundRequest>,
    ) -> Result<Response<pb::StartRoundResponse>, Status> {
        let r = request.get_ref().clone();
        let by = self.director(request.metadata(), &r.slug).await?;
        let owners = super::directors::Forwarded { state: &self.state, metadata: request.metadata() };
        let games = start::Games(&self.state);
        let by = by.as_deref();
        let started =
            self.state.events.start_round(&r.slug, &r.division, r.round, &r.request_id, by, &owners, &games);
        started.await.map(Response::new).map_err(errors::events)
    }

    async fn record_result(
        &self,
        request: Request<pb::RecordResultRequest>,
    ) -> Result<Response<pb::RecordResultResponse>, Status> {
        let r = request.get_ref();
        let by = self.director(request.metadata(), &r.slug).await?;
        let owners = super::directors::Forwarded { state: &self.state, metadata: request.metadata() };
        let answer = (self.state.events)
            .record_result(
                &r.slug,
                &r.request_id,
                r.correct,
                by.as_deref(),
                &owners,
                |rec| hand_result(rec, r),
                |rec, d| pb::RecordResultResponse { division: Some(view::division(rec, d)) },
            )
            .await
            .map_err(errors::events)?;
        Ok(Response::new(answer))
    }

    type WatchTournamentStream = EventStream;

    async fn watch_tournament(
        &self,
        request: Request<pb::WatchTournamentRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let directed = self.directs(request.metadata(), &request.get_ref().slug).await?;
        let r = request.into_inner();
        let events =
            (self.state.events.watch(r.slug, r.from_event, !directed).await).map_err(errors::events)?;
        let stream = events.map(|w| w.map(view::watched).map_err(errors::events));
        Ok(Response::new(Box::pin(stream)))
    }

    async fn export_tsh(
        &self,
        request: Request<pb::ExportTshRequest>,
    ) -> Result<Response<pb::ExportTshResponse>, Status> {
        let directed = self.directs(request.metadata(), &request.get_ref().slug).await?;
        let r = request.into_inner();
        let events = &self.state.events;
        let mut record = events.reconcile(&r.slug).await.map_err(errors::events)?;
        if !directed {
            record = events.spectators(record, None).await.map_err(errors::events)?;
        }
        let d = record.division(&r.division).map_err(errors::events)?;
        Ok(Response::new(pb::ExportTshResponse {
            text: dawgref_tournament::tsh::export(record.division_at(d)),
        }))
    }

    async fn export_ratings(
        &self,
        request: Request<pb::ExportRatingsRequest>,
    ) -> Result<Response<pb::ExportRatingsResponse>, Status> {
        let directed = self.directs(request.metadata(), &request.get_ref().slug).await?;
        let r = request.into_inner();
        let file = pb::RatingsFile::try_from(r.file)
            .map_err(|_| errors::bad_field("file", format!("{}: not a RatingsFile", r.file)))?;
        let events = &self.state.events;
        let mut record = events.reconcile(&r.slug).await.map_err(errors::events)?;
        if !directed {
            record = events.spectators(record, None).await.map_err(errors::events)?;
        }
        let division = record.division_at(record.division(&r.division).map_err(errors::events)?);
        let text = match file {
            pb::RatingsFile::Unspecified | pb::RatingsFile::Games => ratings::games_csv(division),
            pb::RatingsFile::Players => ratings::players_csv(division),
        };
        Ok(Response::new(pb::ExportRatingsResponse { text }))
    }

    async fn import_tsh(
        &self,
        request: Request<pb::ImportTshRequest>,
    ) -> Result<Response<pb::ImportTshResponse>, Status> {
        create::import_tsh(self, request).await.map(Response::new)
    }

    async fn add_round(
        &self,
        request: Request<pb::AddRoundRequest>,
    ) -> Result<Response<pb::AddRoundResponse>, Status> {
        plan::add_round(self, request).await.map(Response::new)
    }

    async fn remove_rounds(
        &self,
        request: Request<pb::RemoveRoundsRequest>,
    ) -> Result<Response<pb::RemoveRoundsResponse>, Status> {
        plan::remove_rounds(self, request).await.map(Response::new)
    }

    async fn reenter_player(
        &self,
        request: Request<pb::ReenterPlayerRequest>,
    ) -> Result<Response<pb::ReenterPlayerResponse>, Status> {
        plan::reenter_player(self, request).await.map(Response::new)
    }

    async fn unpair_round(
        &self,
        request: Request<pb::UnpairRoundRequest>,
    ) -> Result<Response<pb::UnpairRoundResponse>, Status> {
        plan::unpair_round(self, request).await.map(Response::new)
    }

    // The event's log and statistics (`log`).

    async fn get_tournament_log(
        &self,
        request: Request<pb::GetTournamentLogRequest>,
    ) -> Result<Response<pb::GetTournamentLogResponse>, Status> {
        self.get_log(request).await.map(Response::new)
    }

    async fn export_tournament_log(
        &self,
        request: Request<pb::ExportTournamentLogRequest>,
    ) -> Result<Response<pb::ExportTournamentLogResponse>, Status> {
        self.export_log(request).await.map(Response::new)
    }

    async fn get_division_statistics(
        &self,
        request: Request<pb::GetDivisionStatisticsRequest>,
    ) -> Result<Response<pb::GetDivisionStatisticsResponse>, Status> {
        self.get_statistics(request).await.map(Response::new)
    }

    async fn export_division_statistics(
        &self,
        request: Request<pb::ExportDivisionStatisticsRequest>,
    ) -> Result<Response<pb::ExportDivisionStatisticsResponse>, Status> {
        self.export_statistics(request).await.map(Response::new)
    }
}

/// RecordResult's division, round, line and result, checked against the record: INVALID_ARGUMENT
/// naming the field for what is not there or out of bounds.
fn hand_result(rec: &Record, r: &pb::RecordResultRequest) -> Result<dawgref_events::HandResult, EventsError> {
    let d = rec.division(&r.division)?;
    let k = rec.round(d, r.round)?;
    let entry = &rec.divisions[d];
    let line = entry.line(k, (r.pairing as usize).wrapping_sub(1)).ok_or_else(|| {
        if entry.division.rounds()[k].pairings.is_some() {
            EventsError::bad_field(
                "pairing",
                format!("{}: round {} has pairings 1 to {}", r.pairing, r.round, entry.lines(k).len()),
            )
        } else {
            EventsError::Precondition(format!("round {} is not paired yet", r.round))
        }
    })?;
    // The line's players by number (from 1): `second` 0 for a bye.
    let mut players = line.players().map(|p| p.0 + 1);
    let (first, second) = (players.next().unwrap_or(0), players.next().unwrap_or(0));
    let result = match r.result {
        Some(pb::record_result_request::Result::Scores(s)) => {
            let action = crate::game::DirectorAction::SetResult(crate::game::ResultKind::Adjudicated {
                scores: vec![s.first, s.second],
                reason: String::new(),
            });
            if let Some(why) = action.out_of_range() {
                return Err(EventsError::bad_field("scores", why.replace("an adjudicated score", "a score")));
            }
            GameResult::Scores([s.first, s.second])
        }
        Some(pb::record_result_request::Result::ForfeitedBy(n)) if n == first && second != 0 => {
            GameResult::Forfeit { winner: 1 }
        }
        Some(pb::record_result_request::Result::ForfeitedBy(n)) if n == second && n != 0 => {
            GameResult::Forfeit { winner: 0 }
        }
        Some(pb::record_result_request::Result::ForfeitedBy(n)) => {
            return Err(EventsError::bad_field(
                "forfeited_by",
                format!("{n}: pairing {} is players {first} and {second}", r.pairing),
            ));
        }
        None => return Err(EventsError::bad_field("result", "scores or forfeited_by")),
    };
    Ok((d, k, r.pairing as usize - 1, result))
}

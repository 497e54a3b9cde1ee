//! TournamentsService: the wire's door to the events layer's tournaments (`dawgref_events`: the
//! commands, the record and its store, the results that enter by themselves). Here are the
//! handlers, each request's fields checked into one of the layer's commands made by the caller as
//! its `Actor` ([`TournamentsService::command`]), the wire messages made from the record and the
//! command's outcome once per answer (`view`; [`Wire`], a kept answer's bytes). StartRound's games
//! are made by the one constructor of every new game (`new_game::TournamentGames`).

mod create;
mod log;
mod prizes;
mod reviews;
mod view;

pub(crate) use view::standings;

use super::state::AppState;
use super::{convert, errors};
use crate::proto::v1 as pb;
use dawgref_events::{
    Actor, Answer, Claimed, Command, DivisionId, Hand, HandResult, Line, Outcome, PlayerReport, Record,
    ReportState,
};
use dawgref_tournament::{Missed, ratings};
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

    /// The director a call needs: the root, or a key whose labels are the tournament's; as the
    /// actor its changes are made by.
    async fn director(&self, metadata: &tonic::metadata::MetadataMap, slug: &str) -> Result<Actor, Status> {
        let director = self.state.identity.director(metadata).await?;
        director.check_covers(&[("tournament".to_string(), slug.to_string())]).map_err(errors::host)?;
        Ok(Actor::director(director.name()))
    }

    /// The player a call's token makes its caller in tournament `slug`, as the actor of their
    /// own commands: UNAUTHENTICATED without a token or with one that is no one's here; a
    /// director's token is a director (whose player commands the layer refuses).
    async fn player(&self, metadata: &tonic::metadata::MetadataMap, slug: &str) -> Result<Actor, Status> {
        let Some(token) = super::auth::bearer(metadata)? else {
            return Err(errors::unauthenticated("a player's token is needed: the one their link holds"));
        };
        let (_, found) = self.state.events.read_as(slug, &token).await.map_err(errors::events)?;
        if let Some((_, _, actor)) = found {
            return Ok(actor);
        }
        self.director(metadata, slug).await.map_err(|_| {
            errors::unauthenticated("the token is no player's of this tournament and no director's")
        })
    }

    /// Division `division` of tournament `slug` as the caller may see it: now for its
    /// directors, as a broadcast holds results back for anyone else.
    async fn division_seen(
        &self,
        metadata: &tonic::metadata::MetadataMap,
        slug: &str,
        division: &str,
    ) -> Result<(Record, DivisionId), Status> {
        let directed = self.directs(metadata, slug).await?;
        let record = self.state.events.tournament_seen(slug, directed).await.map_err(errors::events)?;
        let d = record.division(division).map_err(errors::events)?;
        Ok((record, d))
    }

    /// A director's command on tournament `slug`, answered with the wire's `answer` of the
    /// tournament it left, once per request id: a retry (the same call and `request_id`) answers
    /// the first answer and changes nothing.
    async fn command<M: prost::Message + Default>(
        &self,
        metadata: &tonic::metadata::MetadataMap,
        slug: &str,
        request_id: &str,
        command: Command,
        answer: impl Fn(&Record, Outcome) -> M,
    ) -> Result<M, Status> {
        let actor = self.director(metadata, slug).await?;
        self.commanded(&actor, slug, request_id, command, answer).await
    }

    /// [`TournamentsService::command`] by an actor found already.
    async fn commanded<M: prost::Message + Default>(
        &self,
        actor: &Actor,
        slug: &str,
        request_id: &str,
        command: Command,
        answer: impl Fn(&Record, Outcome) -> M,
    ) -> Result<M, Status> {
        let answered =
            self.state.events.command(slug, actor, request_id, command, |rec, o| Wire(answer(rec, o)));
        answered.await.map(|w| w.0).map_err(errors::events)
    }
}

/// A wire answer as the events layer keeps it for a retry of its request id: the message's
/// bytes, read back as the message (the one place a kept tournament answer is encoded).
pub(crate) struct Wire<M>(pub(crate) M);

impl<M: prost::Message + Default> Answer for Wire<M> {
    fn write(&self) -> Vec<u8> {
        self.0.encode_to_vec()
    }

    fn read(bytes: &[u8]) -> Result<Self, String> {
        M::decode(bytes).map(Wire).map_err(|e| e.to_string())
    }
}

/// The answer of a command that changed a division: the division as it then stands.
fn division_of(rec: &Record, outcome: Outcome) -> Option<pb::TournamentDivision> {
    Some(view::division(rec, outcome.division()))
}

/// The answer of a command about a player: the player as they then stand.
fn player_of(rec: &Record, outcome: Outcome) -> Option<pb::TournamentPlayer> {
    let Outcome::Player { division, player } = outcome else { return None };
    Some(view::player(rec.entry(division), player))
}

/// The answer of a command that changed a round: the round as it then stands.
fn round_of(rec: &Record, outcome: Outcome) -> Option<pb::TournamentRound> {
    match outcome {
        Outcome::Round { division, round } => Some(view::round(rec.entry(division), round)),
        _ => None,
    }
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
        let slug = &request.get_ref().slug;
        let token = super::auth::bearer(request.metadata())?;
        let record = self.state.events.reconcile(slug).await.map_err(errors::events)?;
        let seat = token.as_deref().and_then(|token| record.player_of_token(token));
        if token.is_some() && seat.is_none() {
            // Not a player's: a director's, or nobody's (never silently a watcher).
            self.director(request.metadata(), slug).await.map_err(|_| {
                errors::unauthenticated("the token is no player's of this tournament and no director's")
            })?;
            return Ok(Response::new(pb::GetTournamentResponse {
                tournament: Some(view::tournament(&record, None)),
            }));
        }
        let you = seat.as_ref().map(|&(d, player, _)| view::seat(&record, d, player));
        // Anyone but a director sees it as a broadcast holds its games back.
        let seen = self.state.events.spectators(record, seat.map(|(d, p, _)| (d, p)));
        let tournament = view::tournament(&seen.await.map_err(errors::events)?, you);
        Ok(Response::new(pb::GetTournamentResponse { tournament: Some(tournament) }))
    }

    async fn list_tournaments(
        &self,
        _request: Request<pb::ListTournamentsRequest>,
    ) -> Result<Response<pb::ListTournamentsResponse>, Status> {
        let all = self.state.events.all().await.map_err(errors::events)?;
        let tournaments = (all.into_iter())
            .map(|record| pb::TournamentSummary {
                divisions: record.divisions().iter().map(|d| d.division().name().to_string()).collect(),
                slug: record.slug().to_string(),
                name: record.name().to_string(),
            })
            .collect();
        Ok(Response::new(pb::ListTournamentsResponse { tournaments }))
    }

    async fn add_player(
        &self,
        request: Request<pb::AddPlayerRequest>,
    ) -> Result<Response<pb::AddPlayerResponse>, Status> {
        let r = request.get_ref();
        let spec = r.player.as_ref().ok_or_else(|| errors::bad_field("player", "a player is needed"))?;
        let (player, token, hash) = create::player("player", spec)?;
        let missed = r.missed_round_spread.map_or(Missed::Absent, |spread| Missed::Byes { spread });
        let same_name = r.allow_same_name;
        let command =
            Command::AddPlayer { division: r.division.clone(), player, token: hash, missed, same_name };
        // The token goes into the answer kept for a retry of the same request id: a retry is
        // answered the first call's player and token (its own new token is never used).
        let token = token.unwrap_or_default();
        let answer =
            |rec: &Record, o| pb::AddPlayerResponse { player: player_of(rec, o), token: token.clone() };
        self.command(request.metadata(), &r.slug, &r.request_id, command, answer).await.map(Response::new)
    }

    async fn withdraw_player(
        &self,
        request: Request<pb::WithdrawPlayerRequest>,
    ) -> Result<Response<pb::WithdrawPlayerResponse>, Status> {
        let r = request.get_ref();
        let actor = self.director(request.metadata(), &r.slug).await?;
        let owners = super::directors::Forwarded { state: &self.state, metadata: request.metadata() };
        let answer = |rec: &Record, o| Wire(pb::WithdrawPlayerResponse { division: division_of(rec, o) });
        let withdrawn = (self.state.events).withdraw(
            &r.slug,
            &actor,
            &r.request_id,
            &r.division,
            r.player,
            &owners,
            answer,
        );
        Ok(Response::new(withdrawn.await.map_err(errors::events)?.0))
    }

    async fn reissue_player_token(
        &self,
        request: Request<pb::ReissuePlayerTokenRequest>,
    ) -> Result<Response<pb::ReissuePlayerTokenResponse>, Status> {
        let r = request.get_ref();
        let actor = self.director(request.metadata(), &r.slug).await?;
        let owners = super::directors::Forwarded { state: &self.state, metadata: request.metadata() };
        // Kept in the answer for a retry of the same request id, as AddPlayer's.
        let (token, _) = super::auth::new_token()?;
        let answer = |rec: &Record, o| {
            Wire(pb::ReissuePlayerTokenResponse { player: player_of(rec, o), token: token.clone() })
        };
        let reissued = (self.state.events).reissue_token(
            &r.slug,
            &actor,
            &r.request_id,
            &r.division,
            r.player,
            &token,
            &owners,
            answer,
        );
        Ok(Response::new(reissued.await.map_err(errors::events)?.0))
    }

    async fn pair_round(
        &self,
        request: Request<pb::PairRoundRequest>,
    ) -> Result<Response<pb::PairRoundResponse>, Status> {
        let r = request.get_ref();
        let command = Command::PairRound { division: r.division.clone(), round: r.round };
        let answer = |rec: &Record, o| pb::PairRoundResponse { round: round_of(rec, o) };
        self.command(request.metadata(), &r.slug, &r.request_id, command, answer).await.map(Response::new)
    }

    async fn set_pairings(
        &self,
        request: Request<pb::SetPairingsRequest>,
    ) -> Result<Response<pb::SetPairingsResponse>, Status> {
        let r = request.get_ref();
        let lines =
            r.pairings.iter().map(|p| Line { first: p.first, second: (p.second != 0).then_some(p.second) });
        let command =
            Command::SetPairings { division: r.division.clone(), round: r.round, lines: lines.collect() };
        let answer = |rec: &Record, o| pb::SetPairingsResponse { round: round_of(rec, o) };
        self.command(request.metadata(), &r.slug, &r.request_id, command, answer).await.map(Response::new)
    }

    async fn start_round(
        &self,
        request: Request<pb::StartRoundRequest>,
    ) -> Result<Response<pb::StartRoundResponse>, Status> {
        let r = request.get_ref();
        let actor = self.director(request.metadata(), &r.slug).await?;
        let owners = super::directors::Forwarded { state: &self.state, metadata: request.metadata() };
        let games = super::new_game::TournamentGames(&self.state);
        let answer = |rec: &Record, o| Wire(pb::StartRoundResponse { round: round_of(rec, o) });
        let started = (self.state.events).start_round(
            &r.slug,
            &actor,
            &r.request_id,
            &r.division,
            r.round,
            &owners,
            &games,
            answer,
        );
        Ok(Response::new(started.await.map_err(errors::events)?.0))
    }

    async fn record_result(
        &self,
        request: Request<pb::RecordResultRequest>,
    ) -> Result<Response<pb::RecordResultResponse>, Status> {
        let r = request.get_ref();
        let actor = self.director(request.metadata(), &r.slug).await?;
        let result = match r.result {
            Some(pb::record_result_request::Result::Scores(s)) => Hand::Scores([s.first, s.second]),
            Some(pb::record_result_request::Result::ForfeitedBy(n)) => Hand::ForfeitedBy(n),
            None => return Err(errors::bad_field("result", "scores or forfeited_by")),
        };
        let hand = HandResult {
            division: r.division.clone(),
            round: r.round,
            pairing: r.pairing,
            result,
            correct: r.correct,
        };
        let owners = super::directors::Forwarded { state: &self.state, metadata: request.metadata() };
        let answer = |rec: &Record, o| Wire(pb::RecordResultResponse { division: division_of(rec, o) });
        let recorded =
            (self.state.events).record_result(&r.slug, &actor, &r.request_id, hand, &owners, answer);
        Ok(Response::new(recorded.await.map_err(errors::events)?.0))
    }

    async fn report_result(
        &self,
        request: Request<pb::ReportResultRequest>,
    ) -> Result<Response<pb::ReportResultResponse>, Status> {
        let r = request.get_ref();
        let actor = self.player(request.metadata(), &r.slug).await?;
        let claimed = match pb::ReportedOutcome::try_from(r.outcome) {
            Ok(pb::ReportedOutcome::Win) => Claimed::Win,
            Ok(pb::ReportedOutcome::Loss) => Claimed::Loss,
            Ok(pb::ReportedOutcome::Tie) => Claimed::Tie,
            Ok(pb::ReportedOutcome::Unspecified) => {
                return Err(errors::invalid(dawgref_events::Invalid::NoOutcome));
            }
            Err(_) => {
                return Err(errors::bad_field("outcome", format!("{}: not a ReportedOutcome", r.outcome)));
            }
        };
        let report = PlayerReport {
            round: r.round,
            pairing: r.pairing,
            mine: r.my_score,
            theirs: r.opponent_score,
            claimed,
        };
        let reporter = match &actor {
            Actor::Player { player, .. } => *player,
            _ => 0,
        };
        let answer = move |rec: &Record, (d, k, i), state| {
            let entry = rec.entry(d);
            let state = match state {
                ReportState::Entered => pb::ReportState::Entered,
                ReportState::Waiting => pb::ReportState::Waiting,
                ReportState::Disputed => pb::ReportState::Disputed,
            };
            let mut pairing = entry.line(k, i).map(|line| view::in_round(entry, k, i, line));
            // The pairing as its reporter sees it: their own report, never their opponent's.
            if let Some(pairing) = &mut pairing {
                pairing.reports.retain(|r| r.player == reporter);
            }
            Wire(pb::ReportResultResponse { state: state as i32, pairing })
        };
        let reported = self.state.events.report(&r.slug, &actor, &r.request_id, report, answer);
        Ok(Response::new(reported.await.map_err(errors::events)?.0))
    }

    async fn set_result_reports(
        &self,
        request: Request<pb::SetResultReportsRequest>,
    ) -> Result<Response<pb::SetResultReportsResponse>, Status> {
        let r = request.get_ref();
        let mode = convert::reports_from("result_reports", r.result_reports, None)?;
        let command = Command::SetReports { division: r.division.clone(), mode };
        let answer = |rec: &Record, o| pb::SetResultReportsResponse { division: division_of(rec, o) };
        self.command(request.metadata(), &r.slug, &r.request_id, command, answer).await.map(Response::new)
    }

    async fn set_reserved_table(
        &self,
        request: Request<pb::SetReservedTableRequest>,
    ) -> Result<Response<pb::SetReservedTableResponse>, Status> {
        let r = request.get_ref();
        let command =
            Command::ReserveTable { division: r.division.clone(), player: r.player, table: r.table };
        let answer = |rec: &Record, o| pb::SetReservedTableResponse { player: player_of(rec, o) };
        self.command(request.metadata(), &r.slug, &r.request_id, command, answer).await.map(Response::new)
    }

    async fn check_in(
        &self,
        request: Request<pb::CheckInRequest>,
    ) -> Result<Response<pb::CheckInResponse>, Status> {
        let r = request.get_ref();
        let actor = self.player(request.metadata(), &r.slug).await?;
        let answer = |rec: &Record, o| Wire(pb::CheckInResponse { player: player_of(rec, o) });
        let who = (r.division.as_str(), r.player);
        let checked = self.state.events.check_in(&r.slug, &actor, &r.request_id, who, r.present, answer);
        Ok(Response::new(checked.await.map_err(errors::events)?.0))
    }

    async fn withdraw_absent(
        &self,
        request: Request<pb::WithdrawAbsentRequest>,
    ) -> Result<Response<pb::WithdrawAbsentResponse>, Status> {
        let r = request.get_ref();
        let actor = self.director(request.metadata(), &r.slug).await?;
        let answer = |rec: &Record, d, withdrawn: &[u32]| {
            Wire(pb::WithdrawAbsentResponse {
                division: Some(view::division(rec, d)),
                withdrawn: withdrawn.to_vec(),
            })
        };
        let withdrawn =
            self.state.events.withdraw_absent(&r.slug, &actor, &r.request_id, &r.division, answer);
        Ok(Response::new(withdrawn.await.map_err(errors::events)?.0))
    }

    type WatchTournamentStream = EventStream;
    type WatchReviewsStream = reviews::ReviewStream;

    async fn review_games(
        &self,
        request: Request<pb::ReviewGamesRequest>,
    ) -> Result<Response<pb::ReviewGamesResponse>, Status> {
        reviews::review_games(self, request).await
    }

    async fn set_division_reviews(
        &self,
        request: Request<pb::SetDivisionReviewsRequest>,
    ) -> Result<Response<pb::SetDivisionReviewsResponse>, Status> {
        reviews::set_division_reviews(self, request).await
    }

    async fn watch_reviews(
        &self,
        request: Request<pb::WatchReviewsRequest>,
    ) -> Result<Response<reviews::ReviewStream>, Status> {
        reviews::watch_reviews(self, request).await
    }

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
        let r = request.get_ref();
        let (record, d) = self.division_seen(request.metadata(), &r.slug, &r.division).await?;
        Ok(Response::new(pb::ExportTshResponse {
            text: dawgref_tournament::tsh::export(record.division_at(d)),
        }))
    }

    async fn export_ratings(
        &self,
        request: Request<pb::ExportRatingsRequest>,
    ) -> Result<Response<pb::ExportRatingsResponse>, Status> {
        let r = request.get_ref();
        let file = pb::RatingsFile::try_from(r.file)
            .map_err(|_| errors::bad_field("file", format!("{}: not a RatingsFile", r.file)))?;
        let (record, d) = self.division_seen(request.metadata(), &r.slug, &r.division).await?;
        let text = match file {
            pb::RatingsFile::Unspecified | pb::RatingsFile::Games => {
                ratings::games_csv(record.division_at(d))
            }
            pb::RatingsFile::Players => ratings::players_csv(record.division_at(d)),
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
        let r = request.get_ref();
        let methods = convert::methods_from("rounds", &r.rounds)?;
        let command = Command::AddRounds { division: r.division.clone(), methods };
        let answer = |rec: &Record, o| pb::AddRoundResponse { division: division_of(rec, o) };
        self.command(request.metadata(), &r.slug, &r.request_id, command, answer).await.map(Response::new)
    }

    async fn remove_rounds(
        &self,
        request: Request<pb::RemoveRoundsRequest>,
    ) -> Result<Response<pb::RemoveRoundsResponse>, Status> {
        let r = request.get_ref();
        let command = Command::RemoveRounds { division: r.division.clone(), count: r.count };
        let answer = |rec: &Record, o| pb::RemoveRoundsResponse { division: division_of(rec, o) };
        self.command(request.metadata(), &r.slug, &r.request_id, command, answer).await.map(Response::new)
    }

    async fn reenter_player(
        &self,
        request: Request<pb::ReenterPlayerRequest>,
    ) -> Result<Response<pb::ReenterPlayerResponse>, Status> {
        let r = request.get_ref();
        let command = Command::ReenterPlayer { division: r.division.clone(), player: r.player };
        let answer = |rec: &Record, o| pb::ReenterPlayerResponse { division: division_of(rec, o) };
        self.command(request.metadata(), &r.slug, &r.request_id, command, answer).await.map(Response::new)
    }

    async fn unpair_round(
        &self,
        request: Request<pb::UnpairRoundRequest>,
    ) -> Result<Response<pb::UnpairRoundResponse>, Status> {
        let r = request.get_ref();
        let command = Command::UnpairRound { division: r.division.clone(), round: r.round };
        let answer = |rec: &Record, o| pb::UnpairRoundResponse { division: division_of(rec, o) };
        self.command(request.metadata(), &r.slug, &r.request_id, command, answer).await.map(Response::new)
    }

    // The event's log and statistics (`log`).

    async fn get_tournament_log(
        &self,
        request: Request<pb::GetTournamentLogRequest>,
    ) -> Result<Response<pb::GetTournamentLogResponse>, Status> {
        let r = request.get_ref();
        let size = super::convert::page_size(r.page_size, log::DEFAULT_PAGE, log::MAX_PAGE) as usize;
        let (events, next) =
            self.log_events(request.metadata(), &r.slug, r.filter.as_ref(), r.from_event, size).await?;
        let events = events.into_iter().map(view::event).collect();
        Ok(Response::new(pb::GetTournamentLogResponse { events, next_event: next.unwrap_or(0) }))
    }

    async fn export_tournament_log(
        &self,
        request: Request<pb::ExportTournamentLogRequest>,
    ) -> Result<Response<pb::ExportTournamentLogResponse>, Status> {
        let r = request.get_ref();
        let (events, next) = self
            .log_events(request.metadata(), &r.slug, r.filter.as_ref(), r.from_event, log::MAX_EXPORT)
            .await?;
        let text = match r.format() {
            pb::LogFormat::Csv => dawgref_events::log_csv(&events),
            pb::LogFormat::Unspecified | pb::LogFormat::JsonLines => dawgref_events::log_json_lines(&events),
        };
        Ok(Response::new(pb::ExportTournamentLogResponse { text, next_event: next.unwrap_or(0) }))
    }

    async fn set_division_prizes(
        &self,
        request: Request<pb::SetDivisionPrizesRequest>,
    ) -> Result<Response<pb::SetDivisionPrizesResponse>, Status> {
        let r = request.get_ref();
        let command =
            Command::SetPrizes { division: r.division.clone(), prizes: prizes::list_from(&r.prizes)? };
        let answer = |rec: &Record, o: Outcome| pb::SetDivisionPrizesResponse {
            prizes: prizes::list_to(rec.entry(o.division()).prizes()),
        };
        self.command(request.metadata(), &r.slug, &r.request_id, command, answer).await.map(Response::new)
    }

    async fn get_division_prizes(
        &self,
        request: Request<pb::GetDivisionPrizesRequest>,
    ) -> Result<Response<pb::GetDivisionPrizesResponse>, Status> {
        let r = request.get_ref();
        let (record, d) = self.division_seen(request.metadata(), &r.slug, &r.division).await?;
        let (awards, done) = self.state.events.prizes(&record, d).await;
        let list = record.entry(d).prizes();
        Ok(Response::new(pb::GetDivisionPrizesResponse {
            prizes: prizes::list_to(list),
            awards: prizes::awards_to(list, record.division_at(d), &awards),
            r#final: done,
        }))
    }

    async fn export_division_prizes(
        &self,
        request: Request<pb::ExportDivisionPrizesRequest>,
    ) -> Result<Response<pb::ExportDivisionPrizesResponse>, Status> {
        let r = request.get_ref();
        let (record, d) = self.division_seen(request.metadata(), &r.slug, &r.division).await?;
        let (awards, _) = self.state.events.prizes(&record, d).await;
        let csv = dawgref_tournament::prizes::csv(record.entry(d).prizes(), record.division_at(d), &awards);
        Ok(Response::new(pb::ExportDivisionPrizesResponse { csv }))
    }

    async fn get_division_statistics(
        &self,
        request: Request<pb::GetDivisionStatisticsRequest>,
    ) -> Result<Response<pb::GetDivisionStatisticsResponse>, Status> {
        let r = request.get_ref();
        let (record, d) = self.division_seen(request.metadata(), &r.slug, &r.division).await?;
        let statistics = self.state.events.statistics(&record, d).await;
        let statistics = Some(log::statistics_view(&record, d, &statistics));
        Ok(Response::new(pb::GetDivisionStatisticsResponse { statistics }))
    }

    async fn export_division_statistics(
        &self,
        request: Request<pb::ExportDivisionStatisticsRequest>,
    ) -> Result<Response<pb::ExportDivisionStatisticsResponse>, Status> {
        let r = request.get_ref();
        let (record, d) = self.division_seen(request.metadata(), &r.slug, &r.division).await?;
        let statistics = self.state.events.statistics(&record, d).await;
        let division = record.division_at(d);
        Ok(Response::new(pb::ExportDivisionStatisticsResponse {
            players_csv: statistics.players_csv(division),
            records_csv: statistics.records_csv(division),
        }))
    }
}

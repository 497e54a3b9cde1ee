//! The `DirectorsService`: a tournament director's actions on a game (each a domain call on the
//! game's session, made durable and published like a turn, idempotent by request id). The
//! results of a label's games are `results`' and the director keys `director_keys`'. Every call
//! needs a director's token: the root director's acts everywhere and alone makes keys; a key's
//! acts on its games only (`host::Director`).

use super::state::AppState;
use super::views;
use super::{auth, errors};
use crate::game::{DirectorAction, MAX_NOTE_CHARS, ResultKind};
use crate::host::DirectorOp;
use crate::proto::v1 as pb;
use std::sync::Arc;
use tonic::{Request, Response, Status};

pub struct DirectorsService {
    pub(crate) state: Arc<AppState>,
}

/// The longest reason a director gives, and request id, in characters.
const MAX_REASON_CHARS: usize = 200;
const MAX_REQUEST_ID_CHARS: usize = 100;

fn reason(text: &str) -> Result<String, Status> {
    let chars = text.chars().count();
    if chars == 0 || chars > MAX_REASON_CHARS || text.chars().any(char::is_control) {
        return Err(errors::bad_field(
            "reason",
            format!("1 to {MAX_REASON_CHARS} characters, no control characters"),
        ));
    }
    Ok(text.to_string())
}

fn checked_request_id(id: &str) -> Result<Option<String>, Status> {
    if id.chars().count() > MAX_REQUEST_ID_CHARS {
        return Err(errors::bad_field("request_id", format!("at most {MAX_REQUEST_ID_CHARS} characters")));
    }
    Ok((!id.is_empty()).then(|| id.to_string()))
}

impl DirectorsService {
    /// Do `op` to the game `game_id` (here, or at its owner), answering as the first time for a
    /// retried request id.
    async fn act<T: Send + 'static, R: views::DirectorResponse>(
        &self,
        request: Request<T>,
        game_id: &str,
        request_id: &str,
        op: DirectorOp,
        forward: impl FnOnce(
            crate::proto::v1::directors_service_client::DirectorsServiceClient<tonic::transport::Channel>,
            Request<T>,
        ) -> futures_util::future::BoxFuture<'static, Result<Response<R>, Status>>
        + Send,
    ) -> Result<Response<R>, Status> {
        let director = self.state.identity.director(request.metadata()).await?;
        let request_id = checked_request_id(request_id)?;
        // The owner checks the token again, and the key's labels against the game's.
        self.state
            .serve(game_id, request, forward, async |session, _| {
                director.check_covers(session.snapshot().labels()).map_err(errors::host)?;
                tracing::info!(game = game_id, director = director.name().unwrap_or("root"), action = ?op, "director's action");
                let by = director.name().map(str::to_string);
                let answer = self
                    .state
                    .on_session(game_id, session, |s| {
                        let (op, by, request_id) = (op.clone(), by.clone(), request_id.clone());
                        async move { s.direct(op, by, request_id).await }
                    })
                    .await?;
                views::answer(answer, |done| R::with_view(views::director_view(done)))
            })
            .await
    }
}

/// The events layer's way to a tournament's game held by another replica
/// (`dawgref_events::Owners`): SetResult forwarded to its owner with the calling director's own
/// credentials, checked again there. A game held here never comes this way: the layer ends it
/// on its session through the host.
pub(crate) struct Forwarded<'a> {
    pub(crate) state: &'a AppState,
    pub(crate) metadata: &'a tonic::metadata::MetadataMap,
}

type DirectorsClient =
    crate::proto::v1::directors_service_client::DirectorsServiceClient<tonic::transport::Channel>;

impl dawgref_events::Owners for Forwarded<'_> {
    async fn new_token(
        &self,
        owner: &str,
        game_id: &str,
        seat: usize,
        token: &str,
    ) -> Result<(), dawgref_events::EventsError> {
        let request =
            pb::SetSeatTokenRequest { game_id: game_id.into(), seat: seat as u32, token: token.into() };
        let request = Request::from_parts(self.metadata.clone(), Default::default(), request);
        let forward = |mut c: DirectorsClient, r| async move { c.set_seat_token(r).await };
        match self.state.forwarder.forward(game_id, owner, request, forward).await {
            // A game over keeps its seats' tokens.
            Ok(_) => Ok(()),
            Err(status) if status.code() == tonic::Code::FailedPrecondition => Ok(()),
            Err(status) => Err(dawgref_events::EventsError::Owner(Box::new(status))),
        }
    }

    async fn end_game(
        &self,
        owner: &str,
        game_id: &str,
        result: &ResultKind,
        request_id: Option<&str>,
    ) -> Result<(), dawgref_events::EventsError> {
        let (result, reason) = match result {
            ResultKind::Forfeit { seat, reason } => {
                (pb::set_result_request::Result::Forfeit(*seat as u32), reason)
            }
            ResultKind::Adjudicated { scores, reason } => (
                pb::set_result_request::Result::Adjudicated(pb::Adjudicated { scores: scores.clone() }),
                reason,
            ),
            ResultKind::Void { reason } => (pb::set_result_request::Result::Void(pb::Void {}), reason),
        };
        let request = Request::from_parts(
            self.metadata.clone(),
            Default::default(),
            pb::SetResultRequest {
                game_id: game_id.to_string(),
                request_id: request_id.unwrap_or_default().to_string(),
                result: Some(result),
                reason: reason.clone(),
            },
        );
        let forward = |mut c: crate::proto::v1::directors_service_client::DirectorsServiceClient<
            tonic::transport::Channel,
        >,
                       r| async move { c.set_result(r).await };
        (self.state.forwarder.forward(game_id, owner, request, forward).await)
            .map(|_| ())
            .map_err(|status| dawgref_events::EventsError::Owner(Box::new(status)))
    }
}

#[tonic::async_trait]
impl crate::proto::v1::directors_service_server::DirectorsService for DirectorsService {
    async fn pause_game(
        &self,
        request: Request<pb::PauseGameRequest>,
    ) -> Result<Response<pb::PauseGameResponse>, Status> {
        let (id, rid) = (request.get_ref().game_id.clone(), request.get_ref().request_id.clone());
        self.act(request, &id, &rid, DirectorOp::Act(DirectorAction::Pause), |mut c, r| {
            Box::pin(async move { c.pause_game(r).await })
        })
        .await
    }

    async fn resume_game(
        &self,
        request: Request<pb::ResumeGameRequest>,
    ) -> Result<Response<pb::ResumeGameResponse>, Status> {
        let (id, rid) = (request.get_ref().game_id.clone(), request.get_ref().request_id.clone());
        self.act(request, &id, &rid, DirectorOp::Act(DirectorAction::Resume), |mut c, r| {
            Box::pin(async move { c.resume_game(r).await })
        })
        .await
    }

    async fn adjust_score(
        &self,
        request: Request<pb::AdjustScoreRequest>,
    ) -> Result<Response<pb::AdjustScoreResponse>, Status> {
        let r = request.get_ref();
        let action = DirectorAction::AdjustScore {
            seat: r.seat as usize,
            points: r.points,
            reason: reason(&r.reason)?,
        };
        if let Some(why) = action.out_of_range() {
            return Err(errors::bad_field("points", why));
        }
        let (id, rid) = (r.game_id.clone(), r.request_id.clone());
        self.act(request, &id, &rid, DirectorOp::Act(action), |mut c, r| {
            Box::pin(async move { c.adjust_score(r).await })
        })
        .await
    }

    async fn adjust_clock(
        &self,
        request: Request<pb::AdjustClockRequest>,
    ) -> Result<Response<pb::AdjustClockResponse>, Status> {
        let r = request.get_ref();
        let action = DirectorAction::AdjustClock {
            seat: r.seat as usize,
            delta_ms: r.delta_ms,
            reason: reason(&r.reason)?,
        };
        if let Some(why) = action.out_of_range() {
            return Err(errors::bad_field("delta_ms", why));
        }
        let (id, rid) = (r.game_id.clone(), r.request_id.clone());
        self.act(request, &id, &rid, DirectorOp::Act(action), |mut c, r| {
            Box::pin(async move { c.adjust_clock(r).await })
        })
        .await
    }

    async fn undo_turn(
        &self,
        request: Request<pb::UndoTurnRequest>,
    ) -> Result<Response<pb::UndoTurnResponse>, Status> {
        let (id, rid) = (request.get_ref().game_id.clone(), request.get_ref().request_id.clone());
        self.act(request, &id, &rid, DirectorOp::Undo, |mut c, r| {
            Box::pin(async move { c.undo_turn(r).await })
        })
        .await
    }

    async fn set_result(
        &self,
        request: Request<pb::SetResultRequest>,
    ) -> Result<Response<pb::SetResultResponse>, Status> {
        let r = request.get_ref();
        let why = reason(&r.reason)?;
        let kind = match &r.result {
            Some(pb::set_result_request::Result::Forfeit(seat)) => {
                ResultKind::Forfeit { seat: *seat as usize, reason: why }
            }
            Some(pb::set_result_request::Result::Adjudicated(a)) => {
                ResultKind::Adjudicated { scores: a.scores.clone(), reason: why }
            }
            Some(pb::set_result_request::Result::Void(pb::Void {})) => ResultKind::Void { reason: why },
            None => return Err(errors::bad_field("result", "one of forfeit, adjudicated or void")),
        };
        let (id, rid) = (r.game_id.clone(), r.request_id.clone());
        let action = DirectorAction::SetResult(kind);
        if let Some(why) = action.out_of_range() {
            return Err(errors::bad_field("adjudicated.scores", why));
        }
        self.act(request, &id, &rid, DirectorOp::Act(action), |mut c, r| {
            Box::pin(async move { c.set_result(r).await })
        })
        .await
    }

    async fn set_seat_token(
        &self,
        request: Request<pb::SetSeatTokenRequest>,
    ) -> Result<Response<pb::SetSeatTokenResponse>, Status> {
        let director = self.state.identity.director(request.metadata()).await?;
        let r = request.get_ref();
        let (token, hash) = match r.token.as_str() {
            "" => auth::new_token()?,
            given if given.len() == 32 && crate::host::unhex(given).is_some() => {
                (given.to_string(), auth::hash(given))
            }
            _ => return Err(errors::bad_field("token", "32 hex characters, or empty for one made")),
        };
        let (game_id, seat) = (r.game_id.clone(), r.seat as usize);
        let forward = |mut c: DirectorsClient, r| async move { c.set_seat_token(r).await };
        self.state
            .serve(&game_id, request, forward, async |session, _| {
                director.check_covers(session.snapshot().labels()).map_err(errors::host)?;
                tracing::info!(game = %game_id, director = director.name().unwrap_or("root"), seat, "a seat's new token");
                let given = self.state.on_session(&game_id, session, |s| async move { s.new_token(seat, hash).await });
                given.await?;
                Ok(pb::SetSeatTokenResponse { token: token.clone() })
            })
            .await
    }

    async fn add_note(
        &self,
        request: Request<pb::AddNoteRequest>,
    ) -> Result<Response<pb::AddNoteResponse>, Status> {
        let r = request.get_ref();
        let chars = r.text.chars().count();
        if chars == 0 || chars > MAX_NOTE_CHARS {
            return Err(errors::bad_field(
                "text",
                format!("{chars} characters: a note has 1 to {MAX_NOTE_CHARS}"),
            ));
        }
        let action = DirectorAction::Note(r.text.clone());
        let (id, rid) = (r.game_id.clone(), r.request_id.clone());
        self.act(request, &id, &rid, DirectorOp::Act(action), |mut c, r| {
            Box::pin(async move { c.add_note(r).await })
        })
        .await
    }

    async fn export_results(
        &self,
        request: Request<pb::ExportResultsRequest>,
    ) -> Result<Response<pb::ExportResultsResponse>, Status> {
        super::results::export(&self.state, request).await.map(Response::new)
    }

    async fn create_director_key(
        &self,
        request: Request<pb::CreateDirectorKeyRequest>,
    ) -> Result<Response<pb::CreateDirectorKeyResponse>, Status> {
        super::director_keys::create(&self.state, request).await.map(Response::new)
    }

    async fn list_director_keys(
        &self,
        request: Request<pb::ListDirectorKeysRequest>,
    ) -> Result<Response<pb::ListDirectorKeysResponse>, Status> {
        super::director_keys::list(&self.state, request).await.map(Response::new)
    }

    async fn revoke_director_key(
        &self,
        request: Request<pb::RevokeDirectorKeyRequest>,
    ) -> Result<Response<pb::RevokeDirectorKeyResponse>, Status> {
        super::director_keys::revoke(&self.state, request).await.map(Response::new)
    }
}

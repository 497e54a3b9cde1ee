//! The `Games` service: sessions as users meet them. A request is validated into domain values
//! (`new_game`, `import`, `convert`), served by the game's session here or forwarded to its
//! owner (`routing`), and its answer written as messages (`views`). ListGames is `listing`'s,
//! WatchGame `watch`'s.

use super::auth;
use super::convert;
use super::errors;
use super::import::{Imported, import};
use super::new_game::{display_name, new_game};
use super::state::AppState;
use super::views;
use crate::game::Game;
use crate::host::{Route, Session, Turn, TurnAction, Viewer};
use crate::proto::v1 as pb;
use crate::proto::v1::games_service_client::GamesServiceClient;
use std::pin::Pin;
use std::sync::Arc;
use tokio_stream::Stream;
use tonic::transport::Channel;
use tonic::{Request, Response, Status};

/// WatchGame's stream of events (`watching`).
pub type EventStream = Pin<Box<dyn Stream<Item = Result<pb::WatchGameResponse, Status>> + Send>>;

pub struct GamesService {
    pub(crate) state: Arc<AppState>,
}

impl GamesService {
    /// ListGames of finished games, or of every game, from the store: a page of ids, each game
    /// then read as a watcher sees it (live ones from their session or their owner's log).
    /// Labels are a director's word (ListGames and ExportResults trust them): a new game's need
    /// a director whose labels they include (the root director: any). None need no token.
    async fn labels_allowed(
        &self,
        metadata: &tonic::metadata::MetadataMap,
        labels: &[(String, String)],
    ) -> Result<(), Status> {
        if labels.is_empty() {
            return Ok(());
        }
        let director = self.state.identity.director(metadata).await?;
        director.check_covers(labels).map_err(errors::host)
    }

    /// A turn submitted to the game's session here.
    async fn submit(
        &self,
        session: Arc<Session>,
        request: Request<pb::SubmitTurnRequest>,
    ) -> Result<pb::SubmitTurnResponse, Status> {
        let seat =
            auth::required_seat(self.state.identity.viewer(request.metadata(), &session.snapshot()).await?)?;
        let req = request.into_inner();
        let action = match req.action {
            Some(pb::submit_turn_request::Action::Play(p)) => TurnAction::Play(convert::play_input(p)),
            Some(pb::submit_turn_request::Action::Exchange(tiles)) => TurnAction::Exchange(tiles),
            Some(pb::submit_turn_request::Action::Pass(pb::Pass {})) => TurnAction::Pass,
            Some(pb::submit_turn_request::Action::Resign(pb::Resign {})) => TurnAction::Resign,
            None => {
                return Err(errors::bad_field(
                    "action",
                    "no action: set one of play, exchange, pass ({}) or resign ({})",
                ));
            }
        };
        let request_id = (!req.request_id.is_empty()).then_some(req.request_id);
        let turn = Turn { request_id, expected_turn: req.expected_turn, action };
        let answer = self
            .state
            .on_session(&req.game_id, session, |s| {
                let turn = turn.clone();
                async move { s.submit(seat, turn).await }
            })
            .await?;
        views::answer(answer, views::turn_response)
    }
}

#[tonic::async_trait]
impl crate::proto::v1::games_service_server::GamesService for GamesService {
    async fn create_game(
        &self,
        request: Request<pb::CreateGameRequest>,
    ) -> Result<Response<pb::CreateGameResponse>, Status> {
        self.state.check_room()?;
        self.state.creates.admit(&request)?;
        let (config, seats, tokens, bot_delay_ms, labels) = new_game(&self.state, request.get_ref())?;
        self.labels_allowed(request.metadata(), &labels).await?;
        let game = Game::new(config).map_err(errors::game)?;
        let session = self
            .state
            .host
            .create(None, game, seats, Some(bot_delay_ms), None, labels, None)
            .await
            .map_err(errors::host)?;
        // The creator holds every token: its view is that of the first seat with one.
        let creator = tokens.iter().position(Option::is_some).map_or(Viewer::Watcher, Viewer::Seat);
        let view = views::session_view(&session, creator);
        tracing::info!(game = %session.id(), "game created");
        if let Some(note) = request.extensions().get::<super::owner::Note>() {
            note.routed(session.id(), &Route::Local(session.clone()));
        }
        Ok(Response::new(pb::CreateGameResponse {
            game_id: session.id().to_string(),
            seat_tokens: tokens.into_iter().map(Option::unwrap_or_default).collect(),
            view: Some(view),
        }))
    }

    async fn join_game(
        &self,
        request: Request<pb::JoinGameRequest>,
    ) -> Result<Response<pb::JoinGameResponse>, Status> {
        let id = request.get_ref().game_id.clone();
        let call = |mut c: GamesServiceClient<Channel>, r| async move { c.join_game(r).await };
        self.state
            .serve(&id, request, call, async |session, request| {
                let req = request.into_inner();
                let name = if req.name.is_empty() { String::new() } else { display_name("name", &req.name)? };
                let (token, hash) = auth::new_token()?;
                let seat = self
                    .state
                    .on_session(&id, session, |s| {
                        let name = name.clone();
                        async move { s.join(name, hash).await }
                    })
                    .await?;
                Ok(pb::JoinGameResponse { seat: seat as u32, token })
            })
            .await
    }

    async fn list_games(
        &self,
        request: Request<pb::ListGamesRequest>,
    ) -> Result<Response<pb::ListGamesResponse>, Status> {
        self.list(request).await.map(Response::new)
    }

    async fn get_game(
        &self,
        request: Request<pb::GetGameRequest>,
    ) -> Result<Response<pb::GetGameResponse>, Status> {
        let id = request.get_ref().game_id.clone();
        let call = |mut c: GamesServiceClient<Channel>, r| async move { c.get_game(r).await };
        self.state
            .serve(&id, request, call, async |session, request| {
                let snapshot = session.snapshot();
                let viewer = self.state.identity.viewer(request.metadata(), &snapshot).await?;
                let (seen, now_ms) = self.state.seen(&id, snapshot, viewer, session.now_ms())?;
                Ok(pb::GetGameResponse { view: Some(views::snapshot_view(&session, &seen, viewer, now_ms)) })
            })
            .await
    }

    async fn submit_turn(
        &self,
        request: Request<pb::SubmitTurnRequest>,
    ) -> Result<Response<pb::SubmitTurnResponse>, Status> {
        let id = request.get_ref().game_id.clone();
        let call = |mut c: GamesServiceClient<Channel>, r| async move { c.submit_turn(r).await };
        self.state
            .serve(&id, request, call, async |session, request| self.submit(session, request).await)
            .await
    }

    async fn challenge(
        &self,
        request: Request<pb::ChallengeRequest>,
    ) -> Result<Response<pb::ChallengeResponse>, Status> {
        let id = request.get_ref().game_id.clone();
        let call = |mut c: GamesServiceClient<Channel>, r| async move { c.challenge(r).await };
        self.state
            .serve(&id, request, call, async |session, request| {
                let viewer = self.state.identity.viewer(request.metadata(), &session.snapshot()).await?;
                let seat = auth::required_seat(viewer)?;
                let req = request.into_inner();
                let request_id = (!req.request_id.is_empty()).then_some(req.request_id);
                let answer = self
                    .state
                    .on_session(&req.game_id, session, |s| {
                        let request_id = request_id.clone();
                        async move { s.challenge(seat, request_id).await }
                    })
                    .await?;
                views::answer(answer, views::challenge_response)
            })
            .await
    }

    type WatchGameStream = EventStream;

    async fn watch_game(
        &self,
        request: Request<pb::WatchGameRequest>,
    ) -> Result<Response<EventStream>, Status> {
        self.watch(request).await
    }

    async fn export_gcg(
        &self,
        request: Request<pb::ExportGcgRequest>,
    ) -> Result<Response<pb::ExportGcgResponse>, Status> {
        let id = request.get_ref().game_id.clone();
        let call = |mut c: GamesServiceClient<Channel>, r| async move { c.export_gcg(r).await };
        self.state
            .serve(&id, request, call, async |session, request| {
                let snapshot = session.snapshot();
                let viewer = self.state.identity.viewer(request.metadata(), &snapshot).await?;
                let (seen, _) = self.state.seen(&id, snapshot, viewer, session.now_ms())?;
                Ok(pb::ExportGcgResponse { gcg: crate::host::gcg(seen.game(), seen.seats(), viewer) })
            })
            .await
    }

    async fn import_gcg(
        &self,
        request: Request<pb::ImportGcgRequest>,
    ) -> Result<Response<pb::ImportGcgResponse>, Status> {
        self.state.creates.admit(&request)?;
        let labels = super::new_game::labels("labels", &request.get_ref().labels)?;
        self.labels_allowed(request.metadata(), &labels).await?;
        let req = request.into_inner();
        let Imported { game, seats, tokens, report } = import(&self.state, &req).await?;
        let scores = game.scores().to_vec();
        // Imported seats are people: their bots' pace never matters.
        let session = self
            .state
            .host
            .create(None, game, seats, None, Some(req.gcg), labels, None)
            .await
            .map_err(errors::host)?;
        let view = views::session_view(&session, Viewer::Watcher);
        Ok(Response::new(pb::ImportGcgResponse {
            ok: report.mismatches.is_empty(),
            game_id: session.id().to_string(),
            seat_tokens: tokens,
            view: Some(view),
            players: report.finals.iter().map(|f| f.0.clone()).collect(),
            // The game's scores, which every written total that matched agrees with.
            final_scores: scores,
            mismatches: report
                .mismatches
                .iter()
                .map(|m| pb::GcgMismatch {
                    line: m.line as u32,
                    text: m.text.clone(),
                    recorded_score: m.recorded.0,
                    recorded_total: m.recorded.1,
                    recomputed_score: m.recomputed.0,
                    recomputed_total: m.recomputed.1,
                    note: m.note.clone().unwrap_or_default(),
                })
                .collect(),
            unknown_words: report.unknown_words.iter().map(|(l, w)| format!("line {l}: {w}")).collect(),
        }))
    }
}

//! The `Games` service: sessions as users meet them. A request is validated into domain values
//! (`new_game`, `import`, `convert`), served by the game's session here or forwarded to its
//! owner (`forward`), and its answer written as messages (`views`).

use super::auth;
use super::convert;
use super::errors;
use super::forward;
use super::import::{Imported, import};
use super::new_game::{display_name, new_game};
use super::state::AppState;
use super::views;
use crate::game::Game;
use crate::host::{Route, Session, Turn, TurnAction, Viewer, sleep_until, stopped};
use crate::proto::v1 as pb;
use crate::proto::v1::games_service_client::GamesServiceClient;
use std::pin::Pin;
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;
use tokio_stream::Stream;
use tonic::transport::Channel;
use tonic::{Request, Response, Status};
use uuid::Uuid;

pub struct GamesService {
    pub(crate) state: Arc<AppState>,
}

/// ListGames' page size when the request names none, and the largest it may name.
const DEFAULT_PAGE: usize = 50;
const MAX_PAGE: usize = 100;
/// The longest ListGames query, in characters.
const MAX_QUERY_CHARS: usize = 100;

type EventStream = Pin<Box<dyn Stream<Item = Result<pb::WatchGameResponse, Status>> + Send>>;

impl GamesService {
    /// ListGames across the replicas: this replica's page, and each live peer's page for the same
    /// request, merged in game id order. Each page is the first `size` games after the token on
    /// its replica, so the first `size` of their union is the first `size` of all.
    async fn list_everywhere(
        &self,
        metadata: &tonic::metadata::MetadataMap,
        req: &pb::ListGamesRequest,
        size: usize,
        local: pb::ListGamesResponse,
    ) -> Result<pb::ListGamesResponse, Status> {
        let Some(replicas) = self.state.host.peers() else {
            return Ok(local);
        };
        let peers = replicas.others().await.map_err(errors::host)?;
        let answers = futures_util::future::join_all(peers.iter().map(|addr| {
            self.state.forwarder.call_peer(
                addr,
                forward::outgoing(metadata, req.clone(), &replicas),
                |mut c, r| async move { c.list_games(r).await },
            )
        }))
        .await;
        let mut games = local.games;
        let mut total = local.total;
        let mut more = !local.next_page_token.is_empty();
        for (addr, answer) in peers.iter().zip(answers) {
            let page = match answer {
                Ok(page) => page.into_inner(),
                Err(status) if forward::unreachable(&status) => {
                    return Err(Status::unavailable(format!(
                        "replica {} did not answer ({}); retry",
                        crate::text::clip(addr),
                        crate::text::clip(status.message())
                    )));
                }
                Err(status) => return Err(status),
            };
            total += page.total;
            more |= !page.next_page_token.is_empty();
            games.extend(page.games);
        }
        // Lower-case hyphenated ids sort as the ids do.
        games.sort_by(|a, b| a.game_id.cmp(&b.game_id));
        // A game moving between replicas may be held by both for a moment.
        let before = games.len();
        games.dedup_by(|a, b| a.game_id == b.game_id);
        total -= (before - games.len()) as u32;
        if games.len() > size {
            games.truncate(size);
            more = true;
        }
        let next_page_token = match games.last() {
            Some(last) if more => last.game_id.clone(),
            _ => String::new(),
        };
        Ok(pb::ListGamesResponse { games, next_page_token, total })
    }

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

    async fn list_stored(
        &self,
        state: pb::GameState,
        labels: Vec<(String, String)>,
        after: Option<Uuid>,
        size: usize,
    ) -> Result<pb::ListGamesResponse, Status> {
        let query = crate::store::GameQuery {
            labels,
            state: if state == pb::GameState::Finished {
                crate::store::GameState::Finished
            } else {
                crate::store::GameState::Any
            },
            after,
            limit: size + 1,
        };
        let page = self.state.host.stored_games(query).await.map_err(errors::host)?;
        let more = page.ids.len() > size;
        let mut games = Vec::with_capacity(size.min(page.ids.len()));
        for id in page.ids.iter().take(size) {
            let id = id.to_string();
            // A game set aside since it was listed is left out.
            match self.state.snapshot(&id).await {
                Ok(snapshot) => games.push(views::view(
                    &id,
                    &snapshot,
                    Viewer::Watcher,
                    snapshot.game().history().last().map_or(0, |e| e.time_ms),
                )),
                Err(status) if status.code() == tonic::Code::FailedPrecondition => continue,
                Err(status) => return Err(status),
            }
        }
        let next_page_token = match page.ids.get(size.saturating_sub(1)) {
            Some(last) if more => last.to_string(),
            _ => String::new(),
        };
        Ok(pb::ListGamesResponse { games, next_page_token, total: page.total.min(u32::MAX as u64) as u32 })
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

impl GamesService {
    /// A watch of a game owned by another replica: the owner's stream, passed on. If the owner
    /// goes away mid-stream, the stream ends with UNAVAILABLE naming the event to resume from.
    async fn watch_remote(
        &self,
        id: &str,
        addr: &str,
        request: Request<pb::WatchGameRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let from = request.get_ref().from_event;
        let mut upstream = self
            .state
            .forwarder
            .forward(id, addr, request, |mut c: GamesServiceClient<Channel>, r| async move {
                c.watch_game(r).await
            })
            .await?
            .into_inner();
        let (tx, out) = tokio::sync::mpsc::channel(64);
        let mut shutdown = self.state.shutdown.clone();
        tokio::spawn(async move {
            let mut next = from as usize;
            loop {
                let message = tokio::select! {
                    m = upstream.message() => m,
                    _ = tx.closed() => return,
                    () = stopped(&mut shutdown) => {
                        let _ = tx.send(Err(errors::shutting_down_from(next))).await;
                        return;
                    }
                };
                match message {
                    Ok(Some(e)) => {
                        next = e.number as usize + 1;
                        if tx.send(Ok(e)).await.is_err() {
                            return;
                        }
                    }
                    Ok(None) => return,
                    Err(status)
                        if status.code() == tonic::Code::Unavailable
                            || status.code() == tonic::Code::Unknown =>
                    {
                        let _ = tx.send(Err(errors::watch_again_from(next))).await;
                        return;
                    }
                    Err(status) => {
                        let _ = tx.send(Err(status)).await;
                        return;
                    }
                }
            }
        });
        Ok(Response::new(Box::pin(tokio_stream::wrappers::ReceiverStream::new(out))))
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
            .create(game, seats, Some(bot_delay_ms), None, labels)
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
        let director = self.state.identity.director(request.metadata()).await?;
        let (metadata, _, req) = request.into_parts();
        let size = convert::page_size(req.page_size, DEFAULT_PAGE as u32, MAX_PAGE as u32) as usize;
        let after = match req.page_token.as_str() {
            "" => None,
            t => Some(Uuid::parse_str(t).map_err(|_| {
                errors::bad_field(
                    "page_token",
                    "not a token this server gave (a game id from next_page_token)",
                )
            })?),
        };
        let query_chars = req.query.chars().count();
        if query_chars > MAX_QUERY_CHARS {
            return Err(errors::bad_field(
                "query",
                format!("{query_chars} characters: a query has at most {MAX_QUERY_CHARS}"),
            ));
        }
        let labels = super::new_game::labels("labels", &req.labels)?;
        let state = pb::GameState::try_from(req.state)
            .map_err(|_| errors::bad_field("state", format!("unknown state {}", req.state)))?;
        // A director key lists its own games only (none, for labels that contradict its own).
        let Some(labels) = director.narrow(labels) else {
            return Ok(Response::new(pb::ListGamesResponse::default()));
        };
        if !matches!(state, pb::GameState::Unspecified | pb::GameState::Live) {
            if !req.query.trim().is_empty() {
                return Err(errors::bad_field(
                    "query",
                    "a query filters live games only: filter finished games by their labels",
                ));
            }
            // Finished games are in the store, which every replica shares: no replica is asked.
            return Ok(Response::new(self.list_stored(state, labels, after, size).await?));
        }
        let query = req.query.trim().to_lowercase();
        // Sleeping games too, judged by what they keep asleep, and shown without being woken.
        let matching = self.state.host.games_in_play(|id, game_labels, names| {
            labels.iter().all(|(k, v)| game_labels.contains(&(k.as_str(), v.as_str())))
                && (query.is_empty()
                    || id.to_string().starts_with(&query)
                    || names.iter().any(|name| name.to_lowercase().contains(&query)))
        });
        let start = after.map_or(0, |a| matching.partition_point(|id| *id <= a));
        let page = &matching[start.min(matching.len())..(start + size).min(matching.len())];
        let next_page_token = match page.last() {
            Some(last) if start + size < matching.len() => last.to_string(),
            _ => String::new(),
        };
        let mut games = Vec::with_capacity(page.len());
        for id in page {
            // A sleeping game is shown from the store and sleeps on; an awake one by its session.
            let shown = match self.state.host.asleep_snapshot(*id).await {
                Some(read) => read.map(|(snapshot, now_ms)| {
                    views::view(&id.to_string(), &snapshot, Viewer::Watcher, now_ms)
                }),
                None => self
                    .state
                    .host
                    .session(&id.to_string())
                    .await
                    .map(|s| views::session_view(&s, Viewer::Watcher)),
            };
            match shown {
                Ok(view) => games.push(view),
                // Set aside, or gone to another replica, since it was listed: left out.
                Err(e) => tracing::debug!(game = %id, error = %e, "a listed game could not be shown"),
            }
        }
        let local = pb::ListGamesResponse { games, next_page_token, total: matching.len() as u32 };
        // A forwarded listing is this replica's part of another replica's answer.
        if metadata.contains_key(forward::FORWARDED) {
            return Ok(Response::new(local));
        }
        Ok(Response::new(self.list_everywhere(&metadata, &req, size, local).await?))
    }

    async fn get_game(
        &self,
        request: Request<pb::GetGameRequest>,
    ) -> Result<Response<pb::GetGameResponse>, Status> {
        let id = request.get_ref().game_id.clone();
        let call = |mut c: GamesServiceClient<Channel>, r| async move { c.get_game(r).await };
        self.state
            .serve(&id, request, call, async |session, request| {
                let viewer = self.state.identity.viewer(request.metadata(), &session.snapshot()).await?;
                Ok(pb::GetGameResponse { view: Some(views::session_view(&session, viewer)) })
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
        let id = request.get_ref().game_id.clone();
        let session = match self.state.route(&id, &request).await? {
            Route::Local(s) => s,
            Route::Remote(addr) => return self.watch_remote(&id, &addr, request).await,
        };
        let from = request.get_ref().from_event as usize;
        let deadline = super::caller::deadline(&request).map(tokio::time::Instant::from_std);
        let cap = self.state.limits.streams_per_game;
        let slot = session.add_watcher(cap).ok_or_else(|| errors::watchers_full(cap))?;
        // Subscribe before reading the snapshot, so no event falls between the two.
        let mut rx = session.subscribe();
        let snapshot = session.snapshot();
        let viewer = self.state.identity.viewer(request.metadata(), &snapshot).await?;
        let alphabet = snapshot.game().config().rules.alphabet;
        let history = snapshot.game().history();
        let backlog: Vec<_> = history[from.min(history.len())..].to_vec();
        // Everything of a finished game is in its snapshot: the backlog is all there will be.
        let over = snapshot.game().is_over();
        let verdicts = viewer.sees_verdicts(snapshot.game());
        drop(snapshot);
        let (tx, out) = tokio::sync::mpsc::channel(64);
        let mut shutdown = self.state.shutdown.clone();
        tokio::spawn(async move {
            let slot = slot;
            let mut next = from;
            let send = |e: &crate::game::Event| views::event(e, alphabet, viewer, verdicts);
            for e in &backlog {
                if tx.send(Ok(send(e))).await.is_err() {
                    return;
                }
                next = e.number + 1;
                if matches!(e.kind, crate::game::EventKind::GameOver { .. }) {
                    return;
                }
            }
            if over {
                // Watched from its end (or past it): nothing more will come; close with OK.
                return;
            }
            loop {
                let received = tokio::select! {
                    r = rx.recv() => r,
                    // The client went away: free its slot now, not at the game's next event.
                    _ = tx.closed() => return,
                    () = stopped(&mut shutdown) => {
                        let _ = tx.send(Err(errors::shutting_down_from(next))).await;
                        return;
                    }
                    () = slot.session().gone() => {
                        let _ = tx.send(Err(errors::watch_again_from(next))).await;
                        return;
                    }
                    // The caller's deadline: the watch ends, as every call does by then.
                    () = sleep_until(deadline) => {
                        let _ = tx.send(Err(errors::deadline_passed_from(next))).await;
                        return;
                    }
                };
                let events: Vec<Arc<crate::game::Event>> = match received {
                    Ok(e) => vec![e],
                    Err(RecvError::Lagged(_)) => {
                        // Replay what was missed from the snapshot: never a silent gap.
                        let snapshot = slot.session().snapshot();
                        let history = snapshot.game().history();
                        history[next.min(history.len())..].iter().cloned().map(Arc::new).collect()
                    }
                    Err(RecvError::Closed) => return,
                };
                for e in events {
                    if e.number < next {
                        continue;
                    }
                    next = e.number + 1;
                    let over = matches!(e.kind, crate::game::EventKind::GameOver { .. });
                    if tx.send(Ok(send(&e))).await.is_err() {
                        return;
                    }
                    if over {
                        return;
                    }
                }
            }
        });
        Ok(Response::new(Box::pin(tokio_stream::wrappers::ReceiverStream::new(out))))
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
                Ok(pb::ExportGcgResponse { gcg: crate::host::gcg(snapshot.game(), snapshot.seats(), viewer) })
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
        let session =
            self.state.host.create(game, seats, None, Some(req.gcg), labels).await.map_err(errors::host)?;
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

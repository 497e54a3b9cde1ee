//! The `Games` service: sessions as users meet them.

use super::auth;
use super::convert;
use super::errors;
use super::forward::{self, forwarded};
use super::state::AppState;
use super::views;
use crate::game::record::{check_record_with, nicknames};
use crate::game::{ClockConfig, Game, GameConfig};
use crate::host::{Route, Seat, SeatKind, Turn, TurnAction, Viewer, default_bot_delay_ms, stopped};
use crate::notation::gcg;
use crate::proto::v1 as pb;
use crate::proto::v1::games_server::Games;
use crate::rules::{BlankValue, Ruleset, RulesetKind, ScorelessLimit};
use std::pin::Pin;
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};
use uuid::Uuid;

pub struct GamesService {
    pub state: Arc<AppState>,
}

/// The longest display name of a seat, in characters.
const NAME_CHARS: usize = 64;

/// A display name as given, if it is one: at most [`NAME_CHARS`] characters, no control
/// characters (a name is shown on one line).
fn display_name(field: &str, name: &str) -> Result<String, Status> {
    let chars = name.chars().count();
    if chars > NAME_CHARS {
        return Err(errors::bad_field(field, format!("{chars} characters: a name has at most {NAME_CHARS}")));
    }
    if name.chars().any(char::is_control) {
        return Err(errors::bad_field(field, "a name has no control characters"));
    }
    Ok(name.to_string())
}

/// A game configuration, its seats, each human seat's token (None for bots and open seats),
/// and its bots' pace.
type NewGame = (GameConfig, Vec<Seat>, Vec<Option<String>>, u32);

/// ListGames' page size when the request names none, and the largest it may name.
const DEFAULT_PAGE: usize = 50;
const MAX_PAGE: usize = 100;
/// The longest ListGames query, in characters.
const MAX_QUERY_CHARS: usize = 100;

/// The longest pause a game's bots may be asked to take before moving.
const MAX_BOT_DELAY_MS: u32 = 60_000;

type EventStream = Pin<Box<dyn Stream<Item = Result<pb::GameEvent, Status>> + Send>>;

impl GamesService {
    fn config(&self, req: &pb::CreateGameRequest) -> Result<NewGame, Status> {
        let kind = convert::ruleset_from(req.ruleset)?;
        let mut rules = Ruleset::new(kind);
        let o = req.options.unwrap_or_default();
        if o.blank_scores_letter {
            rules.options.blank_value = BlankValue::LetterValue;
        }
        if let Some(v) = o.no_repeated_words {
            rules.options.no_repeated_words = v;
        }
        if let Some(n) = o.scoreless_turn_limit {
            if n == 0 {
                return Err(errors::bad_field("options.scoreless_turn_limit", "must be at least 1"));
            }
            rules.options.scoreless_turn_limit = ScorelessLimit::Turns(n);
        }
        if let Some(n) = o.exchange_limit {
            rules.options.exchange_limit = n;
        }
        let lexicon_name =
            if req.lexicon.is_empty() { rules.default_lexicon.to_string() } else { req.lexicon.clone() };
        let lexicon = self.state.lexicon(&lexicon_name)?;
        if lexicon.alphabet() != rules.alphabet {
            return Err(errors::bad_field(
                "lexicon",
                format!(
                    "lexicon {lexicon_name} is {}, the ruleset needs {}",
                    lexicon.alphabet(),
                    rules.alphabet
                ),
            ));
        }
        if !(2..=4).contains(&req.seats.len()) {
            return Err(errors::bad_field("seats", format!("{} seats: a game has 2 to 4", req.seats.len())));
        }
        let mut specs: Vec<(String, SeatKind)> = Vec::new();
        let mut tokens = Vec::new();
        // Seats without a name get one that is already a record's nickname (`seat0`,
        // `strong_bot`), made unique: views and GCG then call them the same.
        let mut defaulted = Vec::new();
        for (i, s) in req.seats.iter().enumerate() {
            match &s.kind {
                Some(pb::seat_spec::Kind::Bot(level)) => {
                    let level = convert::bot_from(*level)?;
                    defaulted.push(i);
                    specs.push((format!("{}_bot", level.name()), SeatKind::Bot(level)));
                    tokens.push(None);
                }
                Some(pb::seat_spec::Kind::Human(h)) => {
                    let name = if h.name.is_empty() {
                        defaulted.push(i);
                        format!("seat{i}")
                    } else {
                        display_name(&format!("seats[{i}].name"), &h.name)?
                    };
                    if h.open {
                        specs.push((name, SeatKind::Human { token: None }));
                        tokens.push(None);
                    } else {
                        let (token, hash) = auth::new_token()?;
                        specs.push((name, SeatKind::Human { token: Some(hash) }));
                        tokens.push(Some(token));
                    }
                }
                None => return Err(errors::bad_field(&format!("seats[{i}]"), "a seat is human or bot")),
            }
        }
        let names: Vec<String> = specs.iter().map(|(name, _)| name.clone()).collect();
        let nicks = nicknames(&names);
        for i in defaulted {
            specs[i].0 = nicks[i].clone();
        }
        let seats: Vec<Seat> = specs.into_iter().map(|(name, kind)| Seat::new(name, kind)).collect();
        let seed = match req.seed {
            Some(s) => s,
            None => {
                let mut b = [0u8; 8];
                getrandom::fill(&mut b).map_err(|e| errors::internal(format!("no randomness: {e}")))?;
                u64::from_le_bytes(b)
            }
        };
        let mut config = GameConfig::new(Arc::new(rules), lexicon, seed);
        config.challenge = convert::challenge_from(req.challenge_rule)?;
        config.bonus_per_word = !o.bonus_per_challenge;
        config.reveal_invalid_words = o.reveal_invalid_words;
        config.seats = seats.len();
        if let Some(c) = &req.clock
            && c.initial_ms > 0
        {
            const DAY_MS: u64 = 86_400_000;
            if c.initial_ms > DAY_MS || c.increment_ms > DAY_MS || c.max_overtime_ms > DAY_MS {
                return Err(errors::bad_field("clock", "times are limited to a day"));
            }
            if !(0..=1000).contains(&c.penalty_per_minute) {
                return Err(errors::bad_field("clock.penalty_per_minute", "0 to 1000 points"));
            }
            config.clock = Some(ClockConfig {
                initial_ms: c.initial_ms,
                increment_ms: c.increment_ms,
                max_overtime_ms: c.max_overtime_ms,
                penalty_per_minute: if c.penalty_per_minute == 0 { 10 } else { c.penalty_per_minute },
            });
        }
        let bot_delay_ms = match req.bot_delay_ms {
            Some(ms) if ms > MAX_BOT_DELAY_MS => {
                return Err(errors::bad_field(
                    "bot_delay_ms",
                    format!("{ms} ms: at most {MAX_BOT_DELAY_MS}"),
                ));
            }
            Some(ms) => ms,
            None => default_bot_delay_ms(&seats),
        };
        Ok((config, seats, tokens, bot_delay_ms))
    }

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
        let Some(cluster) = self.state.host.cluster() else {
            return Ok(local);
        };
        let peers = cluster
            .store()
            .live_peers()
            .await
            .map_err(|e| errors::store("the replicas could not be listed", e))?;
        let answers = futures_util::future::join_all(peers.iter().map(|addr| {
            self.state.forwarder.call_peer(
                addr,
                forward::outgoing(metadata, req.clone()),
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

    async fn submit(
        &self,
        request: Request<pb::SubmitTurnRequest>,
    ) -> Result<pb::SubmitTurnResponse, Status> {
        let id = request.get_ref().game_id.clone();
        let session = match self.state.route(&id, forwarded(&request)).await? {
            Route::Local(s) => s,
            Route::Remote(addr) => {
                return self
                    .state
                    .forwarder
                    .forward(&id, &addr, request, |mut c, r| async move { c.submit_turn(r).await })
                    .await
                    .map(Response::into_inner);
            }
        };
        let seat = auth::required_seat(auth::viewer(request.metadata(), &session.snapshot())?)?;
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
        let answer = match session.submit(seat, turn.clone()).await {
            // The game's task stopped with the turn still queued (the game ended just before,
            // or was given up): the turn was never taken; ask the game as it is now.
            Err(e) if errors::host(e.clone()).code() == tonic::Code::Unavailable && !session.is_alive() => {
                match self.state.route(&req.game_id, true).await? {
                    Route::Local(s) if s.instance() != session.instance() => s.submit(seat, turn).await,
                    _ => Err(e),
                }
            }
            answer => answer,
        };
        views::answer(answer?, views::turn_response)
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
            .forward(id, addr, request, |mut c, r| async move { c.watch_game(r).await })
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
impl Games for GamesService {
    async fn create_game(
        &self,
        request: Request<pb::CreateGameRequest>,
    ) -> Result<Response<pb::CreateGameResponse>, Status> {
        self.state.check_room()?;
        let (config, seats, tokens, bot_delay_ms) = self.config(request.get_ref())?;
        let game = Game::new(config).map_err(errors::game)?;
        let session = self.state.host.create(game, seats, Some(bot_delay_ms), None).await?;
        // The creator holds every token: its view is that of the first seat with one.
        let creator = tokens.iter().position(Option::is_some).map_or(Viewer::Watcher, Viewer::Seat);
        let view = views::session_view(&session, creator);
        tracing::info!(game = %session.id(), "game created");
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
        let session = match self.state.route(&id, forwarded(&request)).await? {
            Route::Local(s) => s,
            Route::Remote(addr) => {
                return self
                    .state
                    .forwarder
                    .forward(&id, &addr, request, |mut c, r| async move { c.join_game(r).await })
                    .await;
            }
        };
        let req = request.into_inner();
        let name = if req.name.is_empty() { String::new() } else { display_name("name", &req.name)? };
        let (token, hash) = auth::new_token()?;
        let seat = session.join(name, hash).await?;
        Ok(Response::new(pb::JoinGameResponse { seat: seat as u32, token }))
    }

    async fn list_games(
        &self,
        request: Request<pb::ListGamesRequest>,
    ) -> Result<Response<pb::ListGamesResponse>, Status> {
        self.state.check_director(request.metadata())?;
        let (metadata, _, req) = request.into_parts();
        let size = match req.page_size {
            0 => DEFAULT_PAGE,
            n if n as usize > MAX_PAGE => {
                return Err(errors::bad_field(
                    "page_size",
                    format!("{n}: a page holds 1 to {MAX_PAGE} games"),
                ));
            }
            n => n as usize,
        };
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
        let query = req.query.trim().to_lowercase();
        let matching: Vec<_> = self
            .state
            .host
            .live_sessions()
            .into_iter()
            .filter(|s| {
                query.is_empty()
                    || s.id().to_string().starts_with(&query)
                    || s.snapshot().seats().iter().any(|seat| seat.name().to_lowercase().contains(&query))
            })
            .collect();
        let start = after.map_or(0, |a| matching.partition_point(|s| s.id() <= a));
        let page = &matching[start.min(matching.len())..(start + size).min(matching.len())];
        let next_page_token = match page.last() {
            Some(last) if start + size < matching.len() => last.id().to_string(),
            _ => String::new(),
        };
        let local = pb::ListGamesResponse {
            games: page.iter().map(|s| views::session_view(s, Viewer::Watcher)).collect(),
            next_page_token,
            total: matching.len() as u32,
        };
        // A forwarded listing is this replica's part of another replica's answer.
        if metadata.contains_key(forward::FORWARDED) {
            return Ok(Response::new(local));
        }
        Ok(Response::new(self.list_everywhere(&metadata, &req, size, local).await?))
    }

    async fn get_game(&self, request: Request<pb::GetGameRequest>) -> Result<Response<pb::GameView>, Status> {
        let id = request.get_ref().game_id.clone();
        let session = match self.state.route(&id, forwarded(&request)).await? {
            Route::Local(s) => s,
            Route::Remote(addr) => {
                return self
                    .state
                    .forwarder
                    .forward(&id, &addr, request, |mut c, r| async move { c.get_game(r).await })
                    .await;
            }
        };
        let viewer = auth::viewer(request.metadata(), &session.snapshot())?;
        Ok(Response::new(views::session_view(&session, viewer)))
    }

    async fn submit_turn(
        &self,
        request: Request<pb::SubmitTurnRequest>,
    ) -> Result<Response<pb::SubmitTurnResponse>, Status> {
        self.submit(request).await.map(Response::new)
    }

    async fn challenge(
        &self,
        request: Request<pb::ChallengeRequest>,
    ) -> Result<Response<pb::ChallengeResponse>, Status> {
        let id = request.get_ref().game_id.clone();
        let session = match self.state.route(&id, forwarded(&request)).await? {
            Route::Local(s) => s,
            Route::Remote(addr) => {
                return self
                    .state
                    .forwarder
                    .forward(&id, &addr, request, |mut c, r| async move { c.challenge(r).await })
                    .await;
            }
        };
        let seat = auth::required_seat(auth::viewer(request.metadata(), &session.snapshot())?)?;
        let req = request.into_inner();
        let request_id = (!req.request_id.is_empty()).then_some(req.request_id);
        let answer = match session.challenge(seat, request_id.clone()).await {
            // As for a turn: never taken, so asked again of the game as it is now.
            Err(e) if errors::host(e.clone()).code() == tonic::Code::Unavailable && !session.is_alive() => {
                match self.state.route(&req.game_id, true).await? {
                    Route::Local(s) if s.instance() != session.instance() => {
                        s.challenge(seat, request_id).await
                    }
                    _ => Err(e),
                }
            }
            answer => answer,
        };
        views::answer(answer?, views::challenge_response).map(Response::new)
    }

    type WatchGameStream = EventStream;

    async fn watch_game(
        &self,
        request: Request<pb::WatchGameRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let id = request.get_ref().game_id.clone();
        let session = match self.state.route(&id, forwarded(&request)).await? {
            Route::Local(s) => s,
            Route::Remote(addr) => return self.watch_remote(&id, &addr, request).await,
        };
        let from = request.get_ref().from_event as usize;
        let cap = self.state.limits.streams_per_game;
        let slot = session.add_watcher(cap).ok_or_else(|| errors::watchers_full(cap))?;
        // Subscribe before reading the snapshot, so no event falls between the two.
        let mut rx = session.subscribe();
        let snapshot = session.snapshot();
        let viewer = auth::viewer(request.metadata(), &snapshot)?;
        let alphabet = snapshot.game().config().rules.alphabet;
        let history = snapshot.game().history();
        let backlog: Vec<_> = history[from.min(history.len())..].to_vec();
        // Everything of a finished game is in its snapshot: the backlog is all there will be.
        let over = snapshot.game().is_over();
        drop(snapshot);
        let (tx, out) = tokio::sync::mpsc::channel(64);
        let mut shutdown = self.state.shutdown.clone();
        let mut gone = session.gone();
        tokio::spawn(async move {
            let slot = slot;
            let mut next = from;
            let send = |e: &crate::game::Event| views::event(e, alphabet, viewer);
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
                    () = stopped(&mut gone) => {
                        let _ = tx.send(Err(errors::watch_again_from(next))).await;
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
        let session = match self.state.route(&id, forwarded(&request)).await? {
            Route::Local(s) => s,
            Route::Remote(addr) => {
                return self
                    .state
                    .forwarder
                    .forward(&id, &addr, request, |mut c, r| async move { c.export_gcg(r).await })
                    .await;
            }
        };
        let snapshot = session.snapshot();
        let viewer = auth::viewer(request.metadata(), &snapshot)?;
        Ok(Response::new(pb::ExportGcgResponse {
            gcg: crate::host::gcg(snapshot.game(), snapshot.seats(), viewer),
        }))
    }

    async fn import_gcg(
        &self,
        request: Request<pb::ImportGcgRequest>,
    ) -> Result<Response<pb::ImportGcgResponse>, Status> {
        let req = request.into_inner();
        let record = gcg::parse(&req.gcg).map_err(|e| errors::bad_field("gcg", e.to_string()))?;
        // The record's own lexicon, when it is one of ours.
        let named = record.lexicon.as_deref().and_then(|l| self.state.host.lexicons().get(l)).cloned();
        let kind = if req.ruleset != 0 {
            convert::ruleset_from(req.ruleset)?
        } else {
            infer_ruleset(&record, named.as_deref())
        };
        let rules = Arc::new(Ruleset::new(kind));
        let words = !req.lexicon.is_empty();
        let lexicon = match (&named, words) {
            (_, true) => self.state.lexicon(&req.lexicon)?,
            (Some(l), false) if l.alphabet() == rules.alphabet => l.clone(),
            _ => self.state.lexicon(rules.default_lexicon)?,
        };
        if lexicon.alphabet() != rules.alphabet {
            return Err(errors::bad_field(
                "lexicon",
                format!("{} does not fit the {kind} ruleset", crate::text::clip(&req.lexicon)),
            ));
        }
        if !(2..=4).contains(&record.players.len()) {
            return Err(errors::bad_field(
                "gcg",
                format!("{} players: a game has 2 to 4", record.players.len()),
            ));
        }
        let mut report = check_record_with(&record, rules.clone(), &lexicon, words);
        self.state.check_room()?;
        let mut config = GameConfig::new(rules, lexicon, 0);
        config.seats = record.players.len();
        // Records in the field give one bonus per failed challenge.
        config.bonus_per_word = false;
        config.challenge = if req.challenge_rule != 0 {
            convert::challenge_from(req.challenge_rule)?
        } else {
            let bonus =
                record.moves.iter().find(|m| m.kind == gcg::MoveKind::ChallengeBonus).map(|m| m.score);
            match bonus {
                Some(10) => crate::game::ChallengeRule::TenPoint,
                Some(_) => crate::game::ChallengeRule::FivePoint,
                None => crate::game::ChallengeRule::Single,
            }
        };
        let game = crate::game::record::import_game(&record, config)
            .map_err(|e| errors::bad_field("gcg", e.to_string()))?;
        // The written totals must be the game's: a difference no line explains is one more.
        let scores = game.scores().to_vec();
        report.reconcile_finals(&record, &scores);
        let mut seats = Vec::new();
        let mut tokens = Vec::new();
        for p in &record.players {
            let (token, hash) = auth::new_token()?;
            let name: String = p.name.chars().filter(|c| !c.is_control()).take(NAME_CHARS).collect();
            let name = if name.trim().is_empty() { p.nick.clone() } else { name };
            seats.push(Seat::new(name, SeatKind::Human { token: Some(hash) }));
            tokens.push(token);
        }
        // Imported seats are people: their bots' pace never matters.
        let session = self.state.host.create(game, seats, None, Some(req.gcg)).await?;
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

/// The ruleset of a record that does not say: its lexicon's (when the record names one of
/// ours), else the one a dawgref export names in its description, else its letters' alphabet
/// (Cyrillic is Скрэббл unless the record says Эрудит).
fn infer_ruleset(record: &gcg::Record, lexicon: Option<&crate::lexicon::Lexicon>) -> RulesetKind {
    use crate::alphabet::Alphabet;
    if let Some(l) = lexicon {
        return match l.alphabet() {
            Alphabet::English => RulesetKind::English,
            Alphabet::Russian => RulesetKind::Russian,
            Alphabet::Erudit => RulesetKind::Erudit,
        };
    }
    let described = record.pragmas.iter().filter(|(k, _)| k == "description").find_map(|(_, v)| {
        let mut words = v.split_whitespace();
        words.find(|w| *w == "ruleset")?;
        words.next()?.parse::<RulesetKind>().ok()
    });
    if let Some(kind) = described {
        return kind;
    }
    let cyrillic = record.moves.iter().any(|m| {
        let text = match &m.kind {
            gcg::MoveKind::Play { word, .. } => word.as_str(),
            _ => m.rack.as_deref().unwrap_or(""),
        };
        text.chars().any(|c| matches!(c, '\u{0400}'..='\u{04FF}'))
    });
    if cyrillic { RulesetKind::Russian } else { RulesetKind::English }
}

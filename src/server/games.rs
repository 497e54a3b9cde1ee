//! The `Games` service: sessions as users meet them.

use super::auth;
use super::convert::{self, view};
use super::errors;
use super::recovery::record_seats;
use super::state::{AppState, GameSession, Seat, SeatKind, SessionState};
use crate::game::record::{check_record_with, nicknames, write_gcg_for};
use crate::game::{Action, ClockConfig, Game, GameConfig};
use crate::notation::gcg;
use crate::proto::v1 as pb;
use crate::proto::v1::games_server::Games;
use crate::rack::Rack;
use crate::rules::{BlankValue, Ruleset, RulesetKind, ScorelessLimit};
use crate::store::record::{Batch, GameRecord, Step};
use prost::Message;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;
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

fn required(seat: Option<usize>) -> Result<usize, Status> {
    seat.ok_or_else(|| {
        Status::unauthenticated("this action needs the seat's token (authorization: Bearer <token>)")
    })
}

/// Decrements a game's watcher count when a stream ends.
struct WatchGuard(Arc<GameSession>);

impl Drop for WatchGuard {
    fn drop(&mut self) {
        self.0.watchers.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A game configuration, its seats, and each human seat's token (None for bots and open seats).
type NewGame = (GameConfig, Vec<Seat>, Vec<Option<String>>);

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
        let mut seats = Vec::new();
        let mut tokens = Vec::new();
        // Seats without a name get one that is already a record's nickname (`seat0`,
        // `strong_bot`), made unique: views and GCG then call them the same.
        let mut defaulted = Vec::new();
        for (i, s) in req.seats.iter().enumerate() {
            match &s.kind {
                Some(pb::seat_spec::Kind::Bot(level)) => {
                    let level = convert::bot_from(*level)?;
                    defaulted.push(i);
                    seats.push(Seat { name: format!("{}_bot", level.name()), kind: SeatKind::Bot(level) });
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
                        seats.push(Seat { name, kind: SeatKind::Human { token: None } });
                        tokens.push(None);
                    } else {
                        let (token, hash) = auth::new_token()?;
                        seats.push(Seat { name, kind: SeatKind::Human { token: Some(hash) } });
                        tokens.push(Some(token));
                    }
                }
                None => return Err(errors::bad_field(&format!("seats[{i}]"), "a seat is human or bot")),
            }
        }
        let names: Vec<String> = seats.iter().map(|s| s.name.clone()).collect();
        let nicks = nicknames(&names);
        for i in defaulted {
            seats[i].name = nicks[i].clone();
        }
        let seed = match req.seed {
            Some(s) => s,
            None => {
                let mut b = [0u8; 8];
                getrandom::fill(&mut b).map_err(|e| Status::internal(format!("no randomness: {e}")))?;
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
        Ok((config, seats, tokens))
    }

    /// Make a new game durable (its record and first log row) before anyone hears of it.
    async fn store_new(
        &self,
        session: &GameSession,
        st: &mut SessionState,
        record: GameRecord,
    ) -> Result<(), Status> {
        let first = Batch { steps: std::mem::take(&mut st.steps), done: None };
        let created = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let started = Instant::now();
        self.state
            .store
            .create(session.id, created, record.encode_to_vec(), first.encode_to_vec(), st.game.is_over())
            .wait()
            .await
            .map_err(|e| Status::unavailable(format!("the game could not be stored ({e}); retry")))?;
        self.state.metrics.commit.observe(started.elapsed().as_secs_f64());
        st.seq = 1;
        session.publish(st);
        Ok(())
    }

    /// Serve a new, stored game from memory; one already over (an all-bot game, a finished
    /// record) stays in the store only, like every finished game.
    fn hold(&self, session: Arc<GameSession>, over: bool) {
        if !over {
            self.state.sessions.insert(session.id, session);
            self.state.metrics.games_live.set(self.state.sessions.len() as i64);
        }
    }

    async fn submit(
        &self,
        request: Request<pb::SubmitTurnRequest>,
    ) -> Result<pb::SubmitTurnResponse, Status> {
        let session = self.state.session(&request.get_ref().game_id).await?;
        let mut st = session.state.lock().await;
        let seat = required(st.caller(request.metadata())?)?;
        let req = request.into_inner();
        let key = (!req.request_id.is_empty()).then(|| req.request_id.clone());
        if let Some(first) = st.remembered(seat, key.as_deref())? {
            return Ok(first);
        }
        if let Some(expected) = req.expected_turn
            && expected != st.game.turn()
        {
            return Err(errors::stale_turn(expected, st.game.turn()));
        }
        let alphabet = st.game.config().rules.alphabet;
        let mut shown_play = None;
        let action = match req.action {
            Some(pb::submit_turn_request::Action::Play(p)) => {
                let play = convert::play_from(&p, st.game.board())?;
                shown_play = Some(play);
                Action::Play(play)
            }
            Some(pb::submit_turn_request::Action::Exchange(tiles)) => {
                let rack_size = st.game.config().rules.rack_size;
                let count = tiles.chars().count();
                if count > rack_size {
                    return Err(errors::bad_field(
                        "exchange",
                        format!("{count} tiles: a rack holds {rack_size}"),
                    ));
                }
                Action::Exchange(Rack::parse(&tiles, alphabet).map_err(|e| errors::alphabet("exchange", e))?)
            }
            Some(pb::submit_turn_request::Action::Pass(pb::Pass {})) => Action::Pass,
            Some(pb::submit_turn_request::Action::Resign(pb::Resign {})) => Action::Resign,
            None => {
                return Err(errors::bad_field(
                    "action",
                    "no action: set one of play, exchange, pass ({}) or resign ({})",
                ));
            }
        };
        let events_before = st.game.history().len();
        let now = session.now_ms();
        let result = st.act(seat, action, now);
        if let Err(e) = result {
            // A time loss noticed on the way changed the game even though the action failed.
            self.state.commit(&session, &mut st, None).await?;
            return Err(errors::game(e));
        }
        self.state.metrics.turns.inc();
        let points =
            st.game.history()[events_before..].iter().find(|e| e.seat == seat).map_or(0, |e| e.points);
        let play = shown_play.and_then(|_| {
            st.game.history()[events_before..].iter().find_map(|e| match &e.kind {
                crate::game::EventKind::Play { play, .. } => Some(convert::play_to(play, alphabet)),
                _ => None,
            })
        });
        session.settle(&mut st, &self.state.metrics);
        let response = pb::SubmitTurnResponse {
            points,
            play,
            view: Some(view(&session.id.to_string(), &st, Some(seat), session.now_ms())),
        };
        let done = st.remember(seat, key, &response);
        // Durable before the caller hears of it.
        self.state.commit(&session, &mut st, done).await?;
        Ok(response)
    }
}

#[tonic::async_trait]
impl Games for GamesService {
    async fn create_game(
        &self,
        request: Request<pb::CreateGameRequest>,
    ) -> Result<Response<pb::CreateGameResponse>, Status> {
        let started = Instant::now();
        let result = async {
            if self.state.sessions.len() >= self.state.limits.max_games {
                return Err(Status::resource_exhausted(format!(
                    "the server holds its limit of {} games",
                    self.state.limits.max_games
                )));
            }
            let (config, seats, tokens) = self.config(request.get_ref())?;
            let record = GameRecord { seats: record_seats(&seats), ..GameRecord::new(&config) };
            let game = Game::new(config).map_err(errors::game)?;
            let id = Uuid::new_v4();
            let session = Arc::new(GameSession::new(
                id,
                0,
                SessionState::new(game, seats),
                self.state.limits.event_buffer,
            ));
            // The creator holds every token: its view is that of the first seat with one.
            let creator = tokens.iter().position(Option::is_some);
            let view = {
                let mut st = session.state.lock().await;
                session.settle(&mut st, &self.state.metrics);
                self.store_new(&session, &mut st, record).await?;
                view(&id.to_string(), &st, creator, session.now_ms())
            };
            self.hold(session, view.over);
            tracing::info!(game = %id, over = view.over, "game created");
            Ok(pb::CreateGameResponse {
                game_id: id.to_string(),
                seat_tokens: tokens.into_iter().map(Option::unwrap_or_default).collect(),
                view: Some(view),
            })
        }
        .await;
        self.state.metrics.observe("CreateGame", started, &result);
        result.map(Response::new)
    }

    async fn join_game(
        &self,
        request: Request<pb::JoinGameRequest>,
    ) -> Result<Response<pb::JoinGameResponse>, Status> {
        let req = request.into_inner();
        let name = if req.name.is_empty() { String::new() } else { display_name("name", &req.name)? };
        let session = self.state.session(&req.game_id).await?;
        let mut st = session.state.lock().await;
        if st.game.is_over() {
            return Err(Status::failed_precondition("the game is over"));
        }
        let Some(seat) = st.seats.iter().position(|s| matches!(s.kind, SeatKind::Human { token: None }))
        else {
            return Err(Status::failed_precondition("no open seat in this game"));
        };
        let (token, hash) = auth::new_token()?;
        st.seats[seat].kind = SeatKind::Human { token: Some(hash) };
        if !name.is_empty() {
            st.seats[seat].name = name.clone();
        }
        let now = session.now_ms();
        st.steps.push(Step::join(seat, &name, &hash, now));
        self.state.commit(&session, &mut st, None).await?;
        Ok(Response::new(pb::JoinGameResponse { seat: seat as u32, token }))
    }

    async fn get_game(&self, request: Request<pb::GetGameRequest>) -> Result<Response<pb::GameView>, Status> {
        let session = self.state.session(&request.get_ref().game_id).await?;
        let mut st = session.state.lock().await;
        let viewer = st.caller(request.metadata())?;
        if st.tick(session.now_ms()) {
            self.state.commit(&session, &mut st, None).await?;
        }
        Ok(Response::new(view(&session.id.to_string(), &st, viewer, session.now_ms())))
    }

    async fn submit_turn(
        &self,
        request: Request<pb::SubmitTurnRequest>,
    ) -> Result<Response<pb::SubmitTurnResponse>, Status> {
        let started = Instant::now();
        let result = self.submit(request).await;
        self.state.metrics.observe("SubmitTurn", started, &result);
        result.map(Response::new)
    }

    async fn challenge(
        &self,
        request: Request<pb::ChallengeRequest>,
    ) -> Result<Response<pb::ChallengeResponse>, Status> {
        let session = self.state.session(&request.get_ref().game_id).await?;
        let mut st = session.state.lock().await;
        let seat = required(st.caller(request.metadata())?)?;
        // Challenge ids live beside turn ids, apart from them.
        let request_id = &request.get_ref().request_id;
        let key = (!request_id.is_empty()).then(|| format!("challenge/{request_id}"));
        if let Some(first) = st.remembered(seat, key.as_deref())? {
            return Ok(Response::new(first));
        }
        let now = session.now_ms();
        let verdict = match st.challenge(seat, now) {
            Ok(v) => v,
            Err(e) => {
                self.state.commit(&session, &mut st, None).await?;
                return Err(errors::game(e));
            }
        };
        session.settle(&mut st, &self.state.metrics);
        let response = pb::ChallengeResponse {
            acceptable: verdict.acceptable,
            invalid_words: verdict.invalid_words.unwrap_or_default(),
            view: Some(view(&session.id.to_string(), &st, Some(seat), session.now_ms())),
        };
        let done = st.remember(seat, key, &response);
        self.state.commit(&session, &mut st, done).await?;
        Ok(Response::new(response))
    }

    type WatchGameStream = EventStream;

    async fn watch_game(
        &self,
        request: Request<pb::WatchGameRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let session = self.state.session(&request.get_ref().game_id).await?;
        let from = request.get_ref().from_event as usize;
        let cap = self.state.limits.streams_per_game;
        if session.watchers.fetch_add(1, Ordering::SeqCst) >= cap {
            session.watchers.fetch_sub(1, Ordering::SeqCst);
            return Err(Status::resource_exhausted(format!("this game already has {cap} watchers")));
        }
        let guard = WatchGuard(session.clone());
        // Subscribe and read the history under the lock, so no event falls between the two.
        let (viewer, alphabet, backlog, over, mut rx) = {
            let st = session.state.lock().await;
            let viewer = st.caller(request.metadata())?;
            let history = st.game.history();
            let backlog: Vec<_> = history[from.min(st.published)..st.published].to_vec();
            // Everything of a finished game is published: the backlog is all there will be.
            let over = st.game.is_over() && st.published == history.len();
            (viewer, st.game.config().rules.alphabet, backlog, over, session.events.subscribe())
        };
        let (tx, out) = tokio::sync::mpsc::channel(64);
        let mut shutdown = self.state.shutdown.clone();
        let mut gone = session.gone.subscribe();
        tokio::spawn(async move {
            let _guard = guard;
            let mut next = from;
            let send = |e: &crate::game::Event| convert::event_to(e, alphabet, viewer);
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
                    _ = shutdown.changed() => {
                        let _ = tx.send(Err(Status::unavailable("the server is shutting down"))).await;
                        return;
                    }
                    _ = gone.changed() => {
                        let message = format!("the game is being reloaded: watch again from event {next}");
                        let _ = tx.send(Err(Status::unavailable(message))).await;
                        return;
                    }
                };
                let events: Vec<Arc<crate::game::Event>> = match received {
                    Ok(e) => vec![e],
                    Err(RecvError::Lagged(_)) => {
                        // Replay what was missed from the history: never a silent gap.
                        let st = _guard.0.state.lock().await;
                        st.game.history()[next.min(st.published)..st.published]
                            .iter()
                            .cloned()
                            .map(Arc::new)
                            .collect()
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
        let session = self.state.session(&request.get_ref().game_id).await?;
        let st = session.state.lock().await;
        let viewer = st.caller(request.metadata())?;
        let names: Vec<String> = st.seats.iter().map(|s| s.name.clone()).collect();
        // Racks are secret while the game is on: the caller's own only, until it ends.
        let over = st.game.is_over();
        let gcg = write_gcg_for(&st.game, &names, &|seat| over || viewer == Some(seat));
        Ok(Response::new(pb::ExportGcgResponse { gcg }))
    }

    async fn import_gcg(
        &self,
        request: Request<pb::ImportGcgRequest>,
    ) -> Result<Response<pb::ImportGcgResponse>, Status> {
        let req = request.into_inner();
        let record = gcg::parse(&req.gcg).map_err(|e| errors::bad_field("gcg", e.to_string()))?;
        // The record's own lexicon, when it is one of ours.
        let named = record.lexicon.as_deref().and_then(|l| self.state.lexicons.get(l)).cloned();
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
        if self.state.sessions.len() >= self.state.limits.max_games {
            return Err(Status::resource_exhausted("the server holds its limit of games"));
        }
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
        let mut stored = GameRecord::new(&config);
        stored.imported_gcg = req.gcg.clone();
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
            seats.push(Seat { name, kind: SeatKind::Human { token: Some(hash) } });
            tokens.push(token);
        }
        stored.seats = record_seats(&seats);
        let id = Uuid::new_v4();
        let mut st = SessionState::new(game, seats);
        st.published = st.game.history().len();
        let session = Arc::new(GameSession::new(id, 0, st, self.state.limits.event_buffer));
        let view = {
            let mut st = session.state.lock().await;
            self.store_new(&session, &mut st, stored).await?;
            view(&id.to_string(), &st, None, session.now_ms())
        };
        self.hold(session, view.over);
        Ok(Response::new(pb::ImportGcgResponse {
            ok: report.mismatches.is_empty(),
            game_id: id.to_string(),
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

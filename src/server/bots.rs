//! The Bots service (`BotsService`): the bots' lobby over the wire. Who the caller is (a
//! director, a bot by its account's token, a person), requests read into the events layer's
//! lobby commands (`dawgref_events`' `lobby`), and their answers as messages; a challenge's game
//! made by the one constructor of every game (`new_game::ChallengeGames`).

use super::errors;
use super::new_game::{self, ChallengeGames};
use super::state::AppState;
use crate::proto::v1 as pb;
use crate::proto::v1::bots_service_server::BotsService as Bots;
use dawgref_events::{
    Accepts, BotEvent, BotEventKind, BotProfile, Challenge, ChallengeState, DeclineReason, LobbyActor,
    NewBot, NewChallenge, Rated, Rating, TimeClass,
};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tonic::metadata::MetadataMap;
use tonic::{Request, Response, Status};

pub struct BotsService {
    pub(crate) state: Arc<AppState>,
}

/// The label a director key carries to manage bots.
pub const MANAGE_LABEL: (&str, &str) = ("bots", "manage");

pub type BotEventStream =
    Pin<Box<dyn tokio_stream::Stream<Item = Result<pb::WatchBotEventsResponse, Status>> + Send + 'static>>;

fn time_class_to(c: TimeClass) -> pb::TimeClass {
    match c {
        TimeClass::Ultrablitz => pb::TimeClass::Ultrablitz,
        TimeClass::Blitz => pb::TimeClass::Blitz,
        TimeClass::Rapid => pb::TimeClass::Rapid,
        TimeClass::Regular => pb::TimeClass::Regular,
        TimeClass::Correspondence => pb::TimeClass::Correspondence,
        TimeClass::Untimed => pb::TimeClass::Untimed,
    }
}

/// A time class the wire names (None: unspecified).
fn time_class_from(field: &str, n: i32) -> Result<Option<TimeClass>, Status> {
    let class =
        pb::TimeClass::try_from(n).map_err(|_| errors::bad_field(field, format!("no time class {n}")))?;
    Ok(match class {
        pb::TimeClass::Unspecified => None,
        pb::TimeClass::Ultrablitz => Some(TimeClass::Ultrablitz),
        pb::TimeClass::Blitz => Some(TimeClass::Blitz),
        pb::TimeClass::Rapid => Some(TimeClass::Rapid),
        pb::TimeClass::Regular => Some(TimeClass::Regular),
        pb::TimeClass::Correspondence => Some(TimeClass::Correspondence),
        pb::TimeClass::Untimed => Some(TimeClass::Untimed),
    })
}

fn reason_from(n: i32) -> Result<DeclineReason, Status> {
    let reason = pb::DeclineReason::try_from(n)
        .map_err(|_| errors::bad_field("reason", format!("no decline reason {n}")))?;
    Ok(match reason {
        pb::DeclineReason::Unspecified | pb::DeclineReason::Generic => DeclineReason::Generic,
        pb::DeclineReason::Later => DeclineReason::Later,
        pb::DeclineReason::TooFast => DeclineReason::TooFast,
        pb::DeclineReason::TooSlow => DeclineReason::TooSlow,
        pb::DeclineReason::Rated => DeclineReason::Rated,
        pb::DeclineReason::Casual => DeclineReason::Casual,
        pb::DeclineReason::Variant => DeclineReason::Variant,
        pb::DeclineReason::NoBots => DeclineReason::NoBots,
        pb::DeclineReason::OnlyBots => DeclineReason::OnlyBots,
    })
}

fn reason_to(r: DeclineReason) -> pb::DeclineReason {
    match r {
        DeclineReason::Generic => pb::DeclineReason::Generic,
        DeclineReason::Later => pb::DeclineReason::Later,
        DeclineReason::TooFast => pb::DeclineReason::TooFast,
        DeclineReason::TooSlow => pb::DeclineReason::TooSlow,
        DeclineReason::Rated => pb::DeclineReason::Rated,
        DeclineReason::Casual => pb::DeclineReason::Casual,
        DeclineReason::Variant => pb::DeclineReason::Variant,
        DeclineReason::NoBots => pb::DeclineReason::NoBots,
        DeclineReason::OnlyBots => pb::DeclineReason::OnlyBots,
    }
}

fn accepts_from(a: Option<pb::BotAccepts>) -> Result<Accepts, Status> {
    let a = a.unwrap_or_default();
    let mut classes = Vec::with_capacity(a.time_classes.len());
    for (i, n) in a.time_classes.iter().enumerate() {
        match time_class_from(&format!("accepts.time_classes[{i}]"), *n)? {
            Some(c) => classes.push(c),
            None => {
                return Err(errors::bad_field(
                    &format!("accepts.time_classes[{i}]"),
                    "a time class is named",
                ));
            }
        }
    }
    Ok(Accepts {
        rulesets: a.rulesets,
        lexicons: a.lexicons,
        time_classes: classes,
        rated: a.rated,
        casual: a.casual,
        bots: a.bots,
        people: a.people,
    })
}

fn accepts_to(a: Accepts) -> pb::BotAccepts {
    pb::BotAccepts {
        rulesets: a.rulesets,
        lexicons: a.lexicons,
        time_classes: a.time_classes.into_iter().map(|c| time_class_to(c) as i32).collect(),
        rated: a.rated,
        casual: a.casual,
        bots: a.bots,
        people: a.people,
    }
}

fn rating_to(ruleset: String, class: TimeClass, r: Rating) -> pb::BotRating {
    pb::BotRating {
        ruleset_name: ruleset,
        time_class: time_class_to(class) as i32,
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
        games: r.games,
        last_unix_ms: r.last_unix_ms,
    }
}

fn rated_to(r: Rated) -> pb::BotRating {
    rating_to(r.ruleset, r.time_class, r.rating)
}

fn bot_to(b: BotProfile) -> pb::Bot {
    pb::Bot {
        name: b.name,
        owner: b.owner,
        accepts: Some(accepts_to(b.accepts)),
        suspended: b.suspended,
        online: b.online,
        created_unix_ms: b.created_unix_ms,
        ratings: b.ratings.into_iter().map(rated_to).collect(),
    }
}

/// A challenge as the wire shows it (never a person's token hash).
pub fn challenge_to(c: Challenge) -> pb::Challenge {
    let class = c.time_class();
    let (state, game_id, reason, text) = match c.state {
        ChallengeState::Open => (pb::ChallengeState::Open, String::new(), 0, String::new()),
        ChallengeState::Accepting { game } => (pb::ChallengeState::Accepting, game, 0, String::new()),
        ChallengeState::Accepted { game } => (pb::ChallengeState::Accepted, game, 0, String::new()),
        ChallengeState::Declined { reason, text } => {
            (pb::ChallengeState::Declined, String::new(), reason_to(reason) as i32, text)
        }
        ChallengeState::Withdrawn => (pb::ChallengeState::Withdrawn, String::new(), 0, String::new()),
        ChallengeState::Expired => (pb::ChallengeState::Expired, String::new(), 0, String::new()),
    };
    pb::Challenge {
        id: c.id,
        from: c.from.name().to_string(),
        from_bot: c.from.is_bot(),
        to: c.to,
        game: Some(super::convert::settings_to(&c.game)),
        rated: c.rated,
        time_class: time_class_to(class) as i32,
        state: state as i32,
        created_unix_ms: c.created_unix_ms,
        expires_unix_ms: c.expires_unix_ms,
        closed_unix_ms: c.closed_unix_ms,
        game_id,
        decline_reason: reason,
        decline_text: text,
    }
}

fn event_to(e: BotEvent) -> pb::WatchBotEventsResponse {
    use pb::watch_bot_events_response::Kind;
    let kind = match e.kind {
        BotEventKind::Challenged(c) => Kind::Challenged(challenge_to(c)),
        BotEventKind::ChallengeClosed(c) => Kind::ChallengeClosed(challenge_to(c)),
        BotEventKind::GameStarted { game, seat, challenge } => {
            Kind::GameStarted(pb::GameStarted { game_id: game, seat, challenge_id: challenge })
        }
        BotEventKind::TournamentGame {
            tournament,
            division,
            round,
            game,
            seat,
            opponent,
            opponent_number,
        } => Kind::TournamentGame(pb::TournamentGame {
            tournament,
            division,
            round,
            game_id: game,
            seat,
            opponent,
            opponent_number,
        }),
        BotEventKind::GameEnded { game, seat, scores, winners, ruleset, time_class, rating } => {
            Kind::GameEnded(pb::GameEnded {
                game_id: game,
                seat,
                scores,
                winners,
                rating: rating.map(|r| rating_to(ruleset, time_class, r)),
            })
        }
    };
    pb::WatchBotEventsResponse { number: e.number, at_unix_ms: e.at_unix_ms, kind: Some(kind) }
}

impl BotsService {
    /// A director allowed to manage bots: the root, or a key whose labels include
    /// [`MANAGE_LABEL`].
    async fn director(&self, metadata: &MetadataMap) -> Result<LobbyActor, Status> {
        let director = self.state.identity.director(metadata).await?;
        if director.is_root() {
            return Ok(LobbyActor::Director(None));
        }
        let (k, v) = MANAGE_LABEL;
        if director.labels().iter().any(|(key, value)| key == k && value == v) {
            return Ok(LobbyActor::Director(director.name().map(str::to_string)));
        }
        Err(Status::permission_denied(format!(
            "director key {:?} does not manage bots: a key with the label {k}={v} does",
            director.name().unwrap_or_default()
        )))
    }

    /// A bot by its token: UNAUTHENTICATED without one (the lobby refuses a token no bot has).
    fn bot(metadata: &MetadataMap) -> Result<LobbyActor, Status> {
        let token = super::auth::bearer(metadata)?.ok_or_else(|| {
            errors::unauthenticated("this call needs a bot's token (authorization: Bearer <token>)")
        })?;
        Ok(LobbyActor::Bot(super::auth::hash(&token)))
    }

    /// A bot by its token if the token is a bot's, else a person by theirs (or nobody).
    async fn bot_or_person(&self, metadata: &MetadataMap) -> Result<LobbyActor, Status> {
        let Some(token) = super::auth::bearer(metadata)? else { return Ok(LobbyActor::Person(None)) };
        let hash = super::auth::hash(&token);
        match self.state.events.bot_named_by(&hash).await {
            Ok(_) => Ok(LobbyActor::Bot(hash)),
            Err(dawgref_events::LobbyError::Unknown(_)) => Ok(LobbyActor::Person(Some(hash))),
            Err(e) => Err(errors::lobby(e)),
        }
    }
}

/// A challenge's id as the wire gives it: a UUID.
fn challenge_id(id: &str) -> Result<String, Status> {
    uuid::Uuid::parse_str(id)
        .map(|u| u.to_string())
        .map_err(|_| errors::bad_field("id", format!("{:?} is no challenge's id", crate::text::clip(id))))
}

#[tonic::async_trait]
impl Bots for BotsService {
    async fn register_bot(
        &self,
        request: Request<pb::RegisterBotRequest>,
    ) -> Result<Response<pb::RegisterBotResponse>, Status> {
        let by = self.director(request.metadata()).await?;
        let r = request.into_inner();
        let accepts = accepts_from(r.accepts)?;
        let (token, hash) = super::auth::new_token()?;
        let bot = NewBot { name: r.name, owner: r.owner, accepts };
        let bot = self.state.events.register_bot(&by, bot, hash).await.map_err(errors::lobby)?;
        tracing::info!(bot = %bot.name, "bot registered");
        Ok(Response::new(pb::RegisterBotResponse { bot: Some(bot_to(bot)), token }))
    }

    async fn list_bots(
        &self,
        _: Request<pb::ListBotsRequest>,
    ) -> Result<Response<pb::ListBotsResponse>, Status> {
        let bots = self.state.events.bots().await.map_err(errors::lobby)?;
        Ok(Response::new(pb::ListBotsResponse { bots: bots.into_iter().map(bot_to).collect() }))
    }

    async fn suspend_bot(
        &self,
        request: Request<pb::SuspendBotRequest>,
    ) -> Result<Response<pb::SuspendBotResponse>, Status> {
        let by = self.director(request.metadata()).await?;
        let r = request.into_inner();
        let bot = self.state.events.suspend_bot(&by, &r.name, r.suspended).await.map_err(errors::lobby)?;
        Ok(Response::new(pb::SuspendBotResponse { bot: Some(bot_to(bot)) }))
    }

    async fn rotate_bot_token(
        &self,
        request: Request<pb::RotateBotTokenRequest>,
    ) -> Result<Response<pb::RotateBotTokenResponse>, Status> {
        // A director's token, else the bot's own.
        let by = match self.director(request.metadata()).await {
            Ok(director) => director,
            Err(_) => Self::bot(request.metadata())?,
        };
        let owners = super::directors::Forwarded { state: &self.state, metadata: request.metadata() };
        let name = &request.get_ref().name;
        let (token, _) = super::auth::new_token()?;
        let rotated = self.state.events.rotate_bot_token(&by, name, &token, &owners);
        let bot = rotated.await.map_err(errors::lobby)?;
        tracing::info!(bot = %bot.name, "bot token rotated");
        Ok(Response::new(pb::RotateBotTokenResponse { bot: Some(bot_to(bot)), token }))
    }

    type WatchBotEventsStream = BotEventStream;

    async fn watch_bot_events(
        &self,
        request: Request<pb::WatchBotEventsRequest>,
    ) -> Result<Response<BotEventStream>, Status> {
        let by = Self::bot(request.metadata())?;
        let from = request.into_inner().from_event;
        let events = self.state.events.bot_events(&by, from).await.map_err(errors::lobby)?;
        let stream = tokio_stream::StreamExt::map(events, |e| e.map(event_to).map_err(errors::lobby));
        Ok(Response::new(Box::pin(stream)))
    }

    async fn create_challenge(
        &self,
        request: Request<pb::CreateChallengeRequest>,
    ) -> Result<Response<pb::CreateChallengeResponse>, Status> {
        let by = self.bot_or_person(request.metadata()).await?;
        // A person's own token (not a bot's) is their key to the name they are rated under.
        let person_key = match by {
            LobbyActor::Person(key) => key,
            _ => None,
        };
        if matches!(by, LobbyActor::Person(_)) {
            // A person's challenges share CreateGame's pace per client.
            self.state.creates.admit(&request)?;
        }
        let r = request.into_inner();
        let game = super::convert::settings_from(&r.game.unwrap_or_default()).map_err(errors::host)?;
        // The game checked now as it will be made: a bad setting is the challenger's to hear.
        new_game::check_settings(&self.state, &game).map_err(errors::host)?;
        let wait = (r.expires_seconds > 0).then(|| Duration::from_secs(u64::from(r.expires_seconds)));
        let server_bot = match pb::BotLevel::try_from(r.server_bot) {
            Ok(pb::BotLevel::Unspecified) => None,
            Ok(level) => Some(super::convert::bot_from(level as i32)?.name().to_string()),
            Err(_) => return Err(errors::bad_field("server_bot", format!("no bot level {}", r.server_bot))),
        };
        let (person, token) = match by {
            LobbyActor::Bot(_) => {
                if !r.name.is_empty() || server_bot.is_some() {
                    return Err(errors::bad_field("name", "a bot challenges under its own name"));
                }
                (None, String::new())
            }
            _ if server_bot.is_some() => {
                if !r.name.is_empty() {
                    return Err(errors::bad_field("name", "the server's bot challenges under its own name"));
                }
                (None, String::new())
            }
            _ => {
                if r.name.trim().is_empty() {
                    return Err(errors::bad_field("name", "a person challenging a bot gives their name"));
                }
                let name = new_game::display_name("name", &r.name)?;
                let (token, hash) = super::auth::new_token()?;
                (Some((name, hash)), token)
            }
        };
        let new = NewChallenge { to: r.bot, game, rated: r.rated, wait, person, person_key, server_bot };
        let challenge = self.state.events.challenge(&by, new).await.map_err(errors::lobby)?;
        Ok(Response::new(pb::CreateChallengeResponse { challenge: Some(challenge_to(challenge)), token }))
    }

    async fn get_challenge(
        &self,
        request: Request<pb::GetChallengeRequest>,
    ) -> Result<Response<pb::GetChallengeResponse>, Status> {
        let id = challenge_id(&request.into_inner().id)?;
        let challenge = self.state.events.challenge_of(&id).await.map_err(errors::lobby)?;
        Ok(Response::new(pb::GetChallengeResponse { challenge: Some(challenge_to(challenge)) }))
    }

    async fn accept_challenge(
        &self,
        request: Request<pb::AcceptChallengeRequest>,
    ) -> Result<Response<pb::AcceptChallengeResponse>, Status> {
        let by = Self::bot(request.metadata())?;
        let id = challenge_id(&request.into_inner().id)?;
        let games = ChallengeGames(self.state.clone());
        let challenge = self.state.events.accept_challenge(&by, &id, &games).await.map_err(errors::lobby)?;
        Ok(Response::new(pb::AcceptChallengeResponse { challenge: Some(challenge_to(challenge)) }))
    }

    async fn decline_challenge(
        &self,
        request: Request<pb::DeclineChallengeRequest>,
    ) -> Result<Response<pb::DeclineChallengeResponse>, Status> {
        let by = Self::bot(request.metadata())?;
        let r = request.into_inner();
        let id = challenge_id(&r.id)?;
        let reason = reason_from(r.reason)?;
        let challenge =
            self.state.events.decline_challenge(&by, &id, reason, r.text).await.map_err(errors::lobby)?;
        Ok(Response::new(pb::DeclineChallengeResponse { challenge: Some(challenge_to(challenge)) }))
    }

    async fn withdraw_challenge(
        &self,
        request: Request<pb::WithdrawChallengeRequest>,
    ) -> Result<Response<pb::WithdrawChallengeResponse>, Status> {
        let by = self.bot_or_person(request.metadata()).await?;
        if by == LobbyActor::Person(None) {
            return Err(errors::unauthenticated(
                "withdrawing needs the challenger's token: a bot's own, or the one the challenge gave a person",
            ));
        }
        let id = challenge_id(&request.into_inner().id)?;
        let challenge = self.state.events.withdraw_challenge(&by, &id).await.map_err(errors::lobby)?;
        Ok(Response::new(pb::WithdrawChallengeResponse { challenge: Some(challenge_to(challenge)) }))
    }

    async fn get_bot_limits(
        &self,
        request: Request<pb::GetBotLimitsRequest>,
    ) -> Result<Response<pb::GetBotLimitsResponse>, Status> {
        let by = Self::bot(request.metadata())?;
        let l = self.state.events.bot_limits(&by).await.map_err(errors::lobby)?;
        Ok(Response::new(pb::GetBotLimitsResponse {
            bot_games_left_today: l.bot_games_left,
            bot_games_reset_unix_ms: l.bot_games_reset_unix_ms,
            challenges_left: l.challenges_left,
            next_challenge_unix_ms: l.next_challenge_unix_ms,
        }))
    }

    async fn list_ratings(
        &self,
        request: Request<pb::ListRatingsRequest>,
    ) -> Result<Response<pb::ListRatingsResponse>, Status> {
        let r = request.into_inner();
        let class = time_class_from("time_class", r.time_class)?;
        let ruleset = (!r.ruleset_name.is_empty()).then_some(r.ruleset_name.as_str());
        let all = self.state.events.leaderboard(ruleset, class).await.map_err(errors::lobby)?;
        let ratings = all
            .into_iter()
            .map(|r| pb::RatedPlayer { name: r.player.clone(), bot: r.is_bot, rating: Some(rated_to(r)) })
            .collect();
        Ok(Response::new(pb::ListRatingsResponse { ratings }))
    }
}

//! The lobby's commands, each made by its [`LobbyActor`]: a director registers and suspends
//! bots and gives a bot a new token; a bot or a person challenges a bot; the bot challenged
//! accepts (its game made through [`LobbyGames`]) or declines with a reason; the challenger
//! withdraws. Every refusal names what was wrong ([`LobbyError`]); each change is one version of
//! the lobby, durable before it is answered, and tells the bots concerned on their streams.

use super::games::{LobbyGames, LobbySeat};
use super::limits::{DAY_MS, bot_games_left, bots_counted};
use super::reads::BotProfile;
use super::state::LobbyState;
use super::{
    Accepts, BotAccount, BotEventKind, Challenge, ChallengeState, Challenger, DeclineReason,
    LIMIT_CHALLENGES, LobbyActor, LobbyError, LobbyGame, MAX_CHALLENGE_WAIT, MIN_CHALLENGE_WAIT, SERVER_BOT,
};
use crate::{Events, GameSettings};
use dawgref_engine::rules::RulesetKind;
use dawgref_host::TokenHash;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::time::Duration;

/// A bot to register.
#[derive(Clone, Debug)]
pub struct NewBot {
    pub name: String,
    pub owner: String,
    pub accepts: Accepts,
}

/// A challenge to send: to which bot, the game's settings, rated or not, how long it waits (None:
/// the server's wait); for a person their name and the hash of the token made for them, or one
/// of the server's bots by its level to send it.
#[derive(Clone, Debug)]
pub struct NewChallenge {
    pub to: String,
    pub game: GameSettings,
    pub rated: bool,
    pub wait: Option<Duration>,
    pub person: Option<(String, TokenHash)>,
    /// A person's own token's hash (a secret they keep): their name is rated under it alone.
    pub person_key: Option<TokenHash>,
    pub server_bot: Option<String>,
}

/// Longest name of a bot's owner, in characters.
pub const OWNER_CHARS: usize = 200;
/// Longest text a decline carries, in characters.
pub const DECLINE_TEXT_CHARS: usize = 500;
/// Most rulesets, lexicons or classes a bot lists.
const MAX_LISTED: usize = 32;

fn invalid(field: &'static str, why: impl Into<String>) -> LobbyError {
    LobbyError::Invalid { field, why: why.into() }
}

/// A name a bot goes by: as a label's key is (1 to 40 of a-z, 0-9, '_', '-', '.').
fn check_bot_name(field: &'static str, name: &str) -> Result<(), LobbyError> {
    let ok = (1..=40).contains(&name.chars().count())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '-' | '.'));
    if !ok {
        return Err(invalid(field, format!("{name:?}: 1 to 40 characters of a-z, 0-9, '_', '-' and '.'")));
    }
    if let Some(why) = dawgref_tournament::tsh::name_problem(name) {
        return Err(invalid(field, format!("{name:?}: {why} (a bot plays in tournaments under its name)")));
    }
    if name.starts_with(SERVER_BOT) {
        return Err(invalid(
            field,
            format!("{name:?}: names beginning {SERVER_BOT:?} are the server's own bots'"),
        ));
    }
    Ok(())
}

fn check_accepts(a: &Accepts) -> Result<(), LobbyError> {
    if a.rulesets.len() > MAX_LISTED || a.lexicons.len() > MAX_LISTED || a.time_classes.len() > MAX_LISTED {
        return Err(invalid(
            "accepts",
            format!("at most {MAX_LISTED} rulesets, {MAX_LISTED} lexicons and {MAX_LISTED} time classes"),
        ));
    }
    for name in &a.rulesets {
        if RulesetKind::by_name(name).is_none() {
            return Err(invalid("accepts.rulesets", format!("no ruleset {name:?}")));
        }
    }
    for name in &a.lexicons {
        if name.is_empty() || name.chars().count() > 100 || name.chars().any(char::is_control) {
            return Err(invalid("accepts.lexicons", format!("{name:?} is no lexicon's name")));
        }
    }
    if !a.rated && !a.casual {
        return Err(invalid("accepts", "a bot accepts rated games, casual games or both"));
    }
    if !a.bots && !a.people {
        return Err(invalid("accepts", "a bot accepts challenges from bots, from people or both"));
    }
    Ok(())
}

/// Why `bot` cannot take `c`'s game, if it cannot: the first of its terms the game misses.
fn unsupported(bot: &BotAccount, c: &Challenge) -> Option<LobbyError> {
    let a = &bot.accepts;
    let kind = c.game.ruleset.unwrap_or_else(RulesetKind::english);
    if !a.rulesets.is_empty() && !a.rulesets.iter().any(|r| r == kind.name()) {
        return Some(invalid(
            "game.ruleset",
            format!("{} plays {}, not {}", bot.name, a.rulesets.join(", "), kind.name()),
        ));
    }
    let lexicon =
        if c.game.lexicon.is_empty() { kind.definition().default_lexicon.as_str() } else { &c.game.lexicon };
    if !a.lexicons.is_empty() && !a.lexicons.iter().any(|l| l == lexicon) {
        return Some(invalid(
            "game.lexicon",
            format!("{} plays {}, not {lexicon}", bot.name, a.lexicons.join(", ")),
        ));
    }
    let class = c.time_class();
    if !a.time_classes.is_empty() && !a.time_classes.contains(&class) {
        let classes: Vec<&str> = a.time_classes.iter().map(|c| c.name()).collect();
        return Some(invalid(
            "game.clock",
            format!("{} plays {}, not {} games", bot.name, classes.join(", "), class.name()),
        ));
    }
    if c.rated && !a.rated {
        return Some(invalid("rated", format!("{} plays no rated games", bot.name)));
    }
    if !c.rated && !a.casual {
        return Some(invalid("rated", format!("{} plays rated games only", bot.name)));
    }
    match c.from {
        Challenger::Bot(_) | Challenger::Server(_) if !a.bots => {
            Some(invalid("bot", format!("{} plays no bots", bot.name)))
        }
        Challenger::Person { .. } if !a.people => {
            Some(invalid("bot", format!("{} plays bots only", bot.name)))
        }
        _ => None,
    }
}

/// The id of a challenge's game: drawn from the challenge's, so an accept asked again (after a
/// crash between the game and the lobby's write) names the same game and makes none twice.
pub(crate) fn game_id(challenge: &str) -> uuid::Uuid {
    let digest = Sha256::digest(format!("lobby\n{challenge}"));
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_random_bytes(bytes).into_uuid()
}

impl LobbyState {
    pub(super) fn bot(&self, name: &str) -> Result<&BotAccount, LobbyError> {
        self.bots.get(name).ok_or_else(|| LobbyError::NoBot(name.to_string()))
    }

    pub(super) fn challenge(&self, id: &str) -> Result<&Challenge, LobbyError> {
        self.challenges.get(id).ok_or_else(|| LobbyError::NoChallenge(id.to_string()))
    }

    /// The bot a token makes its caller: UNAUTHENTICATED for a token no bot has.
    pub fn bot_of(&self, hash: &TokenHash) -> Result<&BotAccount, LobbyError> {
        self.bot_by_token(hash).ok_or_else(|| LobbyError::Unknown("the token is no bot's".into()))
    }
}

/// The challenge `id`, open and answerable by `by` as the bot challenged, at `now_ms`.
fn answerable(state: &LobbyState, by: &LobbyActor, id: &str, now_ms: u64) -> Result<Challenge, LobbyError> {
    let c = state.challenge(id)?.clone();
    let LobbyActor::Bot(hash) = by else {
        return Err(LobbyError::Denied(format!(
            "challenge {id} is answered by the bot challenged ({})",
            c.to
        )));
    };
    let bot = state.bot_of(hash)?;
    if bot.name != c.to {
        return Err(LobbyError::Denied(format!("challenge {id} is to {}, not to {}", c.to, bot.name)));
    }
    if bot.suspended {
        return Err(LobbyError::Precondition(format!("{} is suspended", bot.name)));
    }
    still_open(&c, now_ms)?;
    Ok(c)
}

/// `c` is open at `now_ms`: neither answered nor past its time.
fn still_open(c: &Challenge, now_ms: u64) -> Result<(), LobbyError> {
    if c.state != ChallengeState::Open {
        return Err(LobbyError::Precondition(format!(
            "challenge {} is answered already: {}",
            c.id,
            state_text(c)
        )));
    }
    if now_ms >= c.expires_unix_ms {
        return Err(LobbyError::Precondition(format!("challenge {} has expired", c.id)));
    }
    Ok(())
}

/// The seats of `c`'s game, first to move first (drawn from the game's id), as the game is made
/// and as the lobby keeps them.
fn seats_of(state: &LobbyState, c: &Challenge) -> Result<([LobbySeat; 2], [Challenger; 2]), LobbyError> {
    let first_is_challenger = game_id(&c.id).as_bytes()[0] & 1 == 0;
    let to_seat = LobbySeat::Token { name: c.to.clone(), token: state.bot(&c.to)?.token_hash };
    let from_seat = match &c.from {
        Challenger::Bot(name) => LobbySeat::Token { name: name.clone(), token: state.bot(name)?.token_hash },
        Challenger::Person { name, token_hash } => {
            LobbySeat::Token { name: name.clone(), token: *token_hash }
        }
        Challenger::Server(name) => LobbySeat::Server {
            name: name.clone(),
            level: name.strip_prefix(SERVER_BOT).unwrap_or(name).to_string(),
        },
    };
    let to = Challenger::Bot(c.to.clone());
    Ok(if first_is_challenger {
        ([from_seat, to_seat], [c.from.clone(), to])
    } else {
        ([to_seat, from_seat], [to, c.from.clone()])
    })
}

/// How many times a rotation looks again for a game being made for the bot.
const ROTATION_TRIES: usize = 3;

/// The lobby's games `bot` sits in, by id with its seat: those in play, and those being made for
/// a challenge it accepted or had accepted.
fn seats_of_bot(state: &LobbyState, bot: &str) -> Vec<(String, usize)> {
    let me = Challenger::Bot(bot.to_string());
    let mut seats: Vec<(String, usize)> = (state.games.values())
        .filter_map(|g| g.seats.iter().position(|who| *who == me).map(|seat| (g.id.clone(), seat)))
        .collect();
    for c in state.challenges.values() {
        if let ChallengeState::Accepting { game } = &c.state
            && let Ok((_, who)) = seats_of(state, c)
            && let Some(seat) = who.iter().position(|who| *who == me)
        {
            seats.push((game.clone(), seat));
        }
    }
    seats
}

/// A challenge's state in words.
pub(crate) fn state_text(c: &Challenge) -> String {
    match &c.state {
        ChallengeState::Open => "open".into(),
        ChallengeState::Accepting { game } => format!("being accepted (game {game})"),
        ChallengeState::Accepted { game } => format!("accepted (game {game})"),
        ChallengeState::Declined { reason, .. } => format!("declined ({reason:?})"),
        ChallengeState::Withdrawn => "withdrawn".into(),
        ChallengeState::Expired => "expired".into(),
    }
}

impl Events {
    fn director_only(by: &LobbyActor, what: &str) -> Result<(), LobbyError> {
        match by {
            LobbyActor::Director(_) => Ok(()),
            _ => Err(LobbyError::Denied(format!("{what} is a director's command"))),
        }
    }

    /// RegisterBot: a new bot account, its token's hash kept (the token is the caller's to show
    /// once). ALREADY_EXISTS for a name used before.
    pub async fn register_bot(
        &self,
        by: &LobbyActor,
        bot: NewBot,
        token_hash: TokenHash,
    ) -> Result<BotProfile, LobbyError> {
        Self::director_only(by, "RegisterBot")?;
        check_bot_name("name", &bot.name)?;
        let owner_chars = bot.owner.chars().count();
        if !(1..=OWNER_CHARS).contains(&owner_chars) || bot.owner.chars().any(char::is_control) {
            return Err(invalid("owner", format!("1 to {OWNER_CHARS} characters, no control characters")));
        }
        check_accepts(&bot.accepts)?;
        self.0
            .lobby
            .change(|d| {
                if d.state.bots.contains_key(&bot.name) {
                    return Err(LobbyError::BotExists(bot.name.clone()));
                }
                let account = BotAccount {
                    name: bot.name.clone(),
                    owner: bot.owner.clone(),
                    token_hash,
                    accepts: bot.accepts.clone(),
                    suspended: false,
                    created_unix_ms: d.now_ms,
                    last_event: 0,
                    day: 0,
                    games_today: 0,
                    challenge_tokens: 0.0,
                    // A new bot's bucket is full: counted from long ago.
                    counted_unix_ms: 0,
                };
                d.put_bot(account.clone());
                Ok(d.state.profile(&account, false))
            })
            .await
    }

    /// SuspendBot: a suspended bot is offered no challenge and may send none (its games in play
    /// go on); `suspended` false lets it back.
    pub async fn suspend_bot(
        &self,
        by: &LobbyActor,
        name: &str,
        suspended: bool,
    ) -> Result<BotProfile, LobbyError> {
        Self::director_only(by, "SuspendBot")?;
        let lobby = &self.0.lobby;
        lobby
            .change(|d| {
                let online = lobby.is_online(&d.state, name, d.now_ms);
                let mut bot = d.state.bot(name)?.clone();
                if bot.suspended != suspended {
                    bot.suspended = suspended;
                    d.put_bot(bot.clone());
                }
                if suspended {
                    // Its open challenges closed: those to it declined, those it sent withdrawn.
                    let open: Vec<Challenge> = (d.state.challenges.values())
                        .filter(|c| {
                            let sent = matches!(&c.from, Challenger::Bot(from) if from == name);
                            c.state == ChallengeState::Open && (c.to == *name || sent)
                        })
                        .cloned()
                        .collect();
                    for c in open {
                        let state = if c.to == *name {
                            ChallengeState::Declined {
                                reason: DeclineReason::Generic,
                                text: format!("{name} is suspended"),
                            }
                        } else {
                            ChallengeState::Withdrawn
                        };
                        d.close(c, state);
                    }
                }
                Ok(d.state.profile(&bot, online))
            })
            .await
    }

    /// RotateBotToken: the bot's token replaced by `token` (by a director, or by the bot with its
    /// own): the old one opens no stream, answers no challenge and plays nothing from now on. The
    /// new one is given first to its seats in the lobby's games (in play, and being made for a
    /// challenge accepted) and to every tournament it is entered in by its account (its player
    /// there, and that player's games in play, a game held by another replica through `owners`),
    /// then to the account, and once more to any tournament that entered it meanwhile. A
    /// rotation that fails midway is asked again, and the old token goes on until one succeeds;
    /// one that keeps meeting a game being made for it is ABORTED, to be asked again.
    pub async fn rotate_bot_token(
        &self,
        by: &LobbyActor,
        name: &str,
        token: &str,
        owners: &impl crate::Owners,
    ) -> Result<BotProfile, LobbyError> {
        let lobby = &self.0.lobby;
        let _one_at_a_time = lobby.rotating.lock().await;
        let may_rotate = |state: &LobbyState| -> Result<BotAccount, LobbyError> {
            let bot = state.bot(name)?.clone();
            match by {
                LobbyActor::Director(_) => Ok(bot),
                LobbyActor::Bot(hash) if *hash == bot.token_hash => Ok(bot),
                _ => Err(LobbyError::Denied(format!("{name}'s token is given by a director or by {name}"))),
            }
        };
        let actor = match by {
            LobbyActor::Director(key) => Some(crate::Actor::director(key.as_deref())),
            _ => None,
        };
        let token_hash = dawgref_host::hash(token);
        // The lobby's games it sits in, each with its seat, given the new token so far.
        let mut given: BTreeSet<String> = BTreeSet::new();
        for attempt in 0..ROTATION_TRIES {
            let state = lobby.read().await?;
            may_rotate(&state)?;
            for (game, seat) in seats_of_bot(&state, name) {
                if given.contains(&game) {
                    continue;
                }
                match self.new_seat_token(owners, &game, seat, token).await {
                    Ok(()) => {
                        given.insert(game);
                    }
                    // A challenge's game not made yet: the account's change waits for it.
                    Err(crate::EventsError::Host(dawgref_host::HostError::NoGame(_))) => {}
                    Err(e) => return Err(e.into()),
                }
            }
            if attempt == 0 {
                self.account_token_anew(name, actor.as_ref(), token, owners).await?;
            }
            let rotated = lobby
                .change(|d| {
                    let online = lobby.is_online(&d.state, name, d.now_ms);
                    let mut bot = may_rotate(&d.state)?;
                    if seats_of_bot(&d.state, name).iter().any(|(game, _)| !given.contains(game)) {
                        return Err(LobbyError::Aborted(format!(
                            "a game of {name}'s was being made while its token was rotated: ask again"
                        )));
                    }
                    bot.token_hash = token_hash;
                    d.put_bot(bot.clone());
                    Ok(d.state.profile(&bot, online))
                })
                .await;
            match rotated {
                Err(LobbyError::Aborted(_)) if attempt + 1 < ROTATION_TRIES => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Ok(profile) => {
                    // A tournament that entered it while this ran, with the old token.
                    self.account_token_anew(name, actor.as_ref(), token, owners).await?;
                    return Ok(profile);
                }
                Err(e) => return Err(e),
            }
        }
        Err(LobbyError::Aborted(format!(
            "a game of {name}'s was being made while its token was rotated: ask again"
        )))
    }

    /// CreateChallenge: a bot (by its token) or a person (by the name they give) challenges a
    /// bot to a game. Refused: no such bot (NOT_FOUND); a bot that does not take the game
    /// (INVALID_ARGUMENT naming the term missed); a bot offline or suspended
    /// (FAILED_PRECONDITION); a limit reached (RESOURCE_EXHAUSTED with when to retry).
    pub async fn challenge(&self, by: &LobbyActor, new: NewChallenge) -> Result<Challenge, LobbyError> {
        let wait = new.wait.unwrap_or(self.0.lobby.limits.challenge_wait);
        if new.wait.is_some() && !(MIN_CHALLENGE_WAIT..=MAX_CHALLENGE_WAIT).contains(&wait) {
            return Err(invalid(
                "expires_seconds",
                format!(
                    "{} s: a challenge waits {} to {} s",
                    wait.as_secs(),
                    MIN_CHALLENGE_WAIT.as_secs(),
                    MAX_CHALLENGE_WAIT.as_secs()
                ),
            ));
        }
        let lobby = &self.0.lobby;
        let limits = lobby.limits;
        let id = uuid::Uuid::new_v4().to_string();
        // The bag's seed: random, and never shown (the game's id is drawn from the challenge's).
        let seed = u64::from_le_bytes(uuid::Uuid::new_v4().as_bytes()[..8].try_into().unwrap_or_default());
        self.0
            .lobby
            .change(|d| {
                let now = d.now_ms;
                let from = match (by, &new.person) {
                    (LobbyActor::Bot(hash), _) => {
                        let mut sender = d.state.bot_of(hash)?.clone();
                        if sender.suspended {
                            return Err(LobbyError::Precondition(format!("{} is suspended", sender.name)));
                        }
                        if sender.name == new.to {
                            return Err(invalid("bot", "a bot does not challenge itself"));
                        }
                        let tokens = sender.challenge_tokens(now, limits.challenges_per_minute);
                        if tokens < 1.0 {
                            return Err(LobbyError::Limit {
                                limit: LIMIT_CHALLENGES,
                                what: format!(
                                    "{} sends {} challenges a minute at most",
                                    sender.name, limits.challenges_per_minute
                                ),
                                retry: BotAccount::until_next_challenge(tokens, limits.challenges_per_minute),
                            });
                        }
                        sender.challenge_tokens = tokens - 1.0;
                        sender.counted_unix_ms = now;
                        d.put_bot(sender.clone());
                        Challenger::Bot(sender.name)
                    }
                    (_, _) if new.server_bot.is_some() => Challenger::Server(format!(
                        "{SERVER_BOT}{}",
                        new.server_bot.as_deref().unwrap_or_default()
                    )),
                    (_, Some((name, token_hash))) => {
                        Challenger::Person { name: name.clone(), token_hash: *token_hash }
                    }
                    (_, None) => return Err(invalid("name", "a person challenging a bot gives their name")),
                };
                // A person is rated under a name only with the token that claimed it first.
                if let (Challenger::Person { name, .. }, true) = (&from, new.rated) {
                    let Some(key) = new.person_key else {
                        return Err(invalid(
                            "rated",
                            "a person's rated challenge carries their own token (authorization: Bearer <a secret \
                             they keep>): the first rated game under a name claims it for that token",
                        ));
                    };
                    match d.state.people.get(name) {
                        Some(claimed) if *claimed != key => {
                            return Err(LobbyError::Denied(format!("{name:?} is rated under another token")));
                        }
                        Some(_) => {}
                        None => d.claim(name, key),
                    }
                }
                let to = d.state.bot(&new.to)?.clone();
                if to.suspended {
                    return Err(LobbyError::Precondition(format!("{} is suspended", to.name)));
                }
                if !lobby.is_online(&d.state, &to.name, now) {
                    return Err(LobbyError::Precondition(format!(
                        "{} is offline: it is challenged while its event stream is open",
                        to.name
                    )));
                }
                let challenge = Challenge {
                    id: id.clone(),
                    from,
                    to: to.name.clone(),
                    game: new.game.clone(),
                    rated: new.rated,
                    created_unix_ms: now,
                    expires_unix_ms: now + wait.as_millis() as u64,
                    closed_unix_ms: 0,
                    state: ChallengeState::Open,
                    seed,
                };
                if let Some(e) = unsupported(&to, &challenge) {
                    return Err(e);
                }
                for bot in bots_counted(&challenge) {
                    bot_games_left(&d.state, bot, now, limits.bot_games_per_day)?;
                }
                d.put_challenge(challenge.clone());
                d.tell(&to.name, BotEventKind::Challenged(challenge.clone()));
                Ok(challenge)
            })
            .await
    }

    /// DeclineChallenge: the bot challenged declines, with a reason and a text.
    pub async fn decline_challenge(
        &self,
        by: &LobbyActor,
        id: &str,
        reason: DeclineReason,
        text: String,
    ) -> Result<Challenge, LobbyError> {
        if text.chars().count() > DECLINE_TEXT_CHARS || text.chars().any(char::is_control) {
            return Err(invalid(
                "text",
                format!("at most {DECLINE_TEXT_CHARS} characters, no control characters"),
            ));
        }
        self.0
            .lobby
            .change(|d| {
                let c = answerable(&d.state, by, id, d.now_ms)?;
                Ok(d.close(c, ChallengeState::Declined { reason, text: text.clone() }))
            })
            .await
    }

    /// WithdrawChallenge: the challenger (the bot by its token, the person by the token the
    /// challenge gave them) takes an open challenge back.
    pub async fn withdraw_challenge(&self, by: &LobbyActor, id: &str) -> Result<Challenge, LobbyError> {
        self.0
            .lobby
            .change(|d| {
                let c = d.state.challenge(id)?.clone();
                let theirs = match (&c.from, by) {
                    (Challenger::Bot(name), LobbyActor::Bot(hash)) => {
                        d.state.bot_by_token(hash).is_some_and(|b| &b.name == name)
                    }
                    (Challenger::Person { token_hash, .. }, LobbyActor::Person(Some(hash))) => {
                        token_hash == hash
                    }
                    _ => false,
                };
                if !theirs {
                    return Err(LobbyError::Denied(format!(
                        "challenge {id} is withdrawn by its challenger alone"
                    )));
                }
                still_open(&c, d.now_ms)?;
                Ok(d.close(c, ChallengeState::Withdrawn))
            })
            .await
    }

    /// AcceptChallenge: the bot challenged accepts. In three steps, so that no withdrawal or
    /// expiry on any replica falls between the accept and the game: the challenge is taken from
    /// the open ones (`Accepting`, its bots' games counted against their day); its game is made
    /// through `games` (the one constructor of every game, its id drawn from the challenge's, so
    /// made again it is made once); then it is accepted, both sides told of the game. A replica
    /// that falls over between leaves the rest to the lobby's round ([`Events::finish_accepts`]).
    pub async fn accept_challenge<G: LobbyGames>(
        &self,
        by: &LobbyActor,
        id: &str,
        games: &G,
    ) -> Result<Challenge, LobbyError> {
        let lobby = &self.0.lobby;
        let limits = lobby.limits;
        let accepting = lobby
            .change(|d| {
                let mut c = answerable(&d.state, by, id, d.now_ms)?;
                let now = d.now_ms;
                for name in bots_counted(&c) {
                    bot_games_left(&d.state, name, now, limits.bot_games_per_day)?;
                }
                for name in bots_counted(&c) {
                    let mut bot = d.state.bot(name)?.clone();
                    bot.games_today = bot.games_on(now) + 1;
                    bot.day = now / DAY_MS;
                    d.put_bot(bot);
                }
                c.state = ChallengeState::Accepting { game: game_id(id).to_string() };
                c.closed_unix_ms = now;
                d.put_challenge(c.clone());
                Ok(c)
            })
            .await?;
        self.finish_accept(&accepting, games).await
    }

    /// A challenge being accepted: its game made (once, whoever asks), then the challenge
    /// accepted and both sides' bots told (once: a challenge accepted already is answered as it
    /// stands).
    pub(crate) async fn finish_accept<G: LobbyGames>(
        &self,
        accepting: &Challenge,
        games: &G,
    ) -> Result<Challenge, LobbyError> {
        let lobby = &self.0.lobby;
        let id = accepting.id.as_str();
        let game = game_id(id);
        let (seats, who) = seats_of(&*lobby.read().await?, accepting)?;
        let mut labels = vec![("lobby".to_string(), id.to_string())];
        for (seat, who) in who.iter().enumerate() {
            if let Challenger::Bot(name) = who {
                labels.push((super::bot_account_label(seat), name.clone()));
            }
        }
        games.make(game, &accepting.game, seats, accepting.seed, labels).await?;
        let game = game.to_string();
        lobby
            .change(|d| {
                let c = d.state.challenge(id)?.clone();
                match &c.state {
                    ChallengeState::Accepting { .. } => {}
                    ChallengeState::Accepted { .. } => return Ok(c),
                    _ => {
                        return Err(LobbyError::Precondition(format!(
                            "challenge {id} is {}",
                            state_text(&c)
                        )));
                    }
                }
                let (_, seats) = seats_of(&d.state, &c)?;
                d.put_game(LobbyGame {
                    id: game.clone(),
                    challenge: c.id.clone(),
                    seats: seats.clone(),
                    rated: c.rated,
                    ruleset: c.game.ruleset.unwrap_or_else(RulesetKind::english).name().to_string(),
                    time_class: c.time_class(),
                });
                let c = d.close(c, ChallengeState::Accepted { game: game.clone() });
                for (seat, who) in seats.iter().enumerate() {
                    if let Challenger::Bot(name) = who {
                        let started = BotEventKind::GameStarted {
                            game: game.clone(),
                            seat: seat as u32,
                            challenge: c.id.clone(),
                        };
                        d.tell(name, started);
                    }
                }
                Ok(c)
            })
            .await
    }
}

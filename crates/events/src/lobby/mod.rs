//! The bots' lobby: bot accounts registered by a director, challenges between bots and people,
//! each bot's stream of events, the Glicko-2 ratings of rated games played on the server, and
//! the limits a bot plays within. One state in parts (a bot, a challenge, a rating, a game in
//! play), written against its version like a tournament (`state.rs`: read again when another
//! replica wrote first), each bot's events rows of their own, numbered from 1, so a stream
//! resumes from any number (`stream.rs`). A command is a method of [`Events`] made by its
//! [`LobbyActor`] (`commands.rs`); a game made for an accepted challenge is made through the
//! [`LobbyGames`] seam, the services' one constructor of every game; its end rates it and tells
//! its bots (`games.rs`).

mod arena;
mod commands;
mod games;
mod limits;
mod reads;
mod state;
mod stream;

pub use commands::{NewBot, NewChallenge};
pub use games::{LobbyGames, LobbySeat};
pub use limits::BotLimits;
pub use reads::BotProfile;
pub(crate) use state::Lobby;
pub use stream::BotEvents;

use crate::GameSettings;
use dawgref_host::{HostError, TokenHash};
use dawgref_tournament::ratings::glicko::Glicko;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Who makes a lobby command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LobbyActor {
    /// The root director, or a director key allowed to manage bots (by its name).
    Director(Option<String>),
    /// A bot, by the token of its account.
    Bot(TokenHash),
    /// Anyone else (a person over gRPC or the page): a challenger by the token its challenge
    /// answered, or nobody.
    Person(Option<TokenHash>),
}

/// The limits bots play within, set by the server's operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LobbyLimits {
    /// Games against another bot a bot may begin in a UTC day.
    pub bot_games_per_day: u32,
    /// Challenges a bot may send in a minute: at once, then at this pace.
    pub challenges_per_minute: u32,
    /// How long a challenge waits for its answer unless it says (the operator's: not held to
    /// the bounds a challenge's own wait is).
    pub challenge_wait: Duration,
}

impl Default for LobbyLimits {
    fn default() -> LobbyLimits {
        LobbyLimits {
            bot_games_per_day: 100,
            challenges_per_minute: 20,
            challenge_wait: Duration::from_secs(60),
        }
    }
}

/// The shortest and longest a challenge may ask to wait for its answer.
pub const MIN_CHALLENGE_WAIT: Duration = Duration::from_secs(5);
pub const MAX_CHALLENGE_WAIT: Duration = Duration::from_secs(3600);

/// A time control's class, as Woogles classes its games: by the time a side is expected to use,
/// the initial time plus the overtime plus 16 increments (ultrablitz up to 2 minutes, blitz up
/// to 6, rapid up to 14, regular beyond); a correspondence clock, and a game with no clock, are
/// classes of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeClass {
    Ultrablitz,
    Blitz,
    Rapid,
    Regular,
    Correspondence,
    Untimed,
}

impl TimeClass {
    pub const ALL: [TimeClass; 6] = [
        TimeClass::Ultrablitz,
        TimeClass::Blitz,
        TimeClass::Rapid,
        TimeClass::Regular,
        TimeClass::Correspondence,
        TimeClass::Untimed,
    ];

    /// The class of a game's settings, by the clock its game is made with: a time per move is
    /// a correspondence clock, no initial time no clock at all (as the constructor reads them).
    pub fn of(settings: &GameSettings) -> TimeClass {
        let Some(c) = settings.clock else { return TimeClass::Untimed };
        if c.per_move_ms > 0 {
            return TimeClass::Correspondence;
        }
        if c.initial_ms == 0 {
            return TimeClass::Untimed;
        }
        let expected_ms =
            c.initial_ms.saturating_add(c.max_overtime_ms).saturating_add(c.increment_ms.saturating_mul(16));
        match expected_ms {
            0..=120_000 => TimeClass::Ultrablitz,
            120_001..=360_000 => TimeClass::Blitz,
            360_001..=840_000 => TimeClass::Rapid,
            _ => TimeClass::Regular,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            TimeClass::Ultrablitz => "ultrablitz",
            TimeClass::Blitz => "blitz",
            TimeClass::Rapid => "rapid",
            TimeClass::Regular => "regular",
            TimeClass::Correspondence => "correspondence",
            TimeClass::Untimed => "untimed",
        }
    }
}

/// What a bot accepts: rulesets and lexicons by name and time classes (each empty: any), rated
/// games, casual games, and challenges from other bots and from people.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accepts {
    pub rulesets: Vec<String>,
    pub lexicons: Vec<String>,
    pub time_classes: Vec<TimeClass>,
    pub rated: bool,
    pub casual: bool,
    pub bots: bool,
    pub people: bool,
}

/// A bot's account as the lobby keeps it (its token as its hash only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BotAccount {
    pub name: String,
    /// Who runs it, as the director gave it.
    pub owner: String,
    pub token_hash: TokenHash,
    pub accepts: Accepts,
    pub suspended: bool,
    pub created_unix_ms: u64,
    /// Its stream's last event's number (0: none yet).
    pub last_event: u64,
    /// The UTC day (days since 1970) `games_today` counts, and the games against bots begun in it.
    pub day: u64,
    pub games_today: u32,
    /// Challenges it may send now (a bucket of a minute's worth, filled again at the limit's
    /// pace), as counted at `counted_unix_ms`.
    pub challenge_tokens: f64,
    pub counted_unix_ms: u64,
}

/// Who sent a challenge: a bot by its name, a person by the name they gave and the hash of the
/// token their challenge answered (their seat's in the game, if it is accepted), or one of the
/// server's own bots, asked by anyone (a sparring partner), named [`SERVER_BOT`] and its level.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Challenger {
    Bot(String),
    Person { name: String, token_hash: TokenHash },
    Server(String),
}

/// The prefix of a server bot's name in the lobby (`server-strong`): no account's name has it.
pub const SERVER_BOT: &str = "server-";

impl Challenger {
    pub fn name(&self) -> &str {
        match self {
            Challenger::Bot(name) | Challenger::Person { name, .. } | Challenger::Server(name) => name,
        }
    }

    /// Whether it is a bot (an account's, or the server's own).
    pub fn is_bot(&self) -> bool {
        !matches!(self, Challenger::Person { .. })
    }

    /// Its key in the ratings: a bot's and a person's names never meet.
    fn rating_key(&self) -> String {
        match self {
            Challenger::Bot(name) | Challenger::Server(name) => format!("bot:{name}"),
            Challenger::Person { name, .. } => format!("person:{name}"),
        }
    }
}

/// Why a bot declines a challenge: lichess's reasons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeclineReason {
    Generic,
    Later,
    TooFast,
    TooSlow,
    Rated,
    Casual,
    Variant,
    NoBots,
    OnlyBots,
}

/// Where a challenge stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ChallengeState {
    Open,
    /// The bot accepted: its game is being made (a moment; a replica that fell over meanwhile
    /// has it made by the lobby's next round).
    Accepting {
        game: String,
    },
    Accepted {
        game: String,
    },
    Declined {
        reason: DeclineReason,
        text: String,
    },
    Withdrawn,
    Expired,
}

/// A challenge to a bot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Challenge {
    pub id: String,
    pub from: Challenger,
    /// The bot challenged.
    pub to: String,
    pub game: GameSettings,
    pub rated: bool,
    pub created_unix_ms: u64,
    pub expires_unix_ms: u64,
    /// When it was answered, withdrawn or expired (0: open); while it is being accepted, when
    /// the accept began.
    pub closed_unix_ms: u64,
    pub state: ChallengeState,
    /// The seed of its game's bag: drawn when it is sent, never shown (the challenge's id and its
    /// game's are public).
    pub seed: u64,
}

impl Challenge {
    pub fn time_class(&self) -> TimeClass {
        TimeClass::of(&self.game)
    }
}

/// A game a challenge made, kept until its end is heard: who sits where, and how it is rated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyGame {
    pub id: String,
    pub challenge: String,
    /// Seat by seat.
    pub seats: [Challenger; 2],
    pub rated: bool,
    pub ruleset: String,
    pub time_class: TimeClass,
}

/// A player's rating in one ruleset and time class.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
    pub games: u32,
    pub last_unix_ms: u64,
}

impl Rating {
    pub fn glicko(&self) -> Glicko {
        Glicko { rating: self.rating, deviation: self.deviation, volatility: self.volatility }
    }
}

/// A rating with whose it is and where.
#[derive(Clone, Debug, PartialEq)]
pub struct Rated {
    /// A bot's name, or a person's.
    pub player: String,
    pub is_bot: bool,
    pub ruleset: String,
    pub time_class: TimeClass,
    pub rating: Rating,
}

/// An event of a bot's stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BotEvent {
    pub number: u64,
    pub at_unix_ms: u64,
    pub kind: BotEventKind,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum BotEventKind {
    /// A challenge to this bot, open.
    Challenged(Challenge),
    /// A challenge this bot sent or was sent, answered, withdrawn or expired: as it now stands.
    ChallengeClosed(Challenge),
    /// A game this bot plays has begun: its id and the bot's seat (its account's token is the
    /// seat's).
    GameStarted { game: String, seat: u32, challenge: String },
    /// A round of a tournament the bot is entered in by its account has started with a game for
    /// it: the tournament's slug, the division, the round (from 1), the game, the bot's seat, and
    /// whom it plays (their name and number, from 1).
    TournamentGame {
        tournament: String,
        division: String,
        round: u32,
        game: String,
        seat: u32,
        opponent: String,
        opponent_number: u32,
    },
    /// A game this bot played has ended: the scores seat by seat, the winners, its ruleset and
    /// time class, and its rating there after it (rated games).
    GameEnded {
        game: String,
        seat: u32,
        scores: Vec<i32>,
        winners: Vec<u32>,
        ruleset: String,
        time_class: TimeClass,
        rating: Option<Rating>,
    },
}

/// What the lobby refuses.
#[derive(Debug, thiserror::Error)]
pub enum LobbyError {
    /// No bot of that name (NOT_FOUND).
    #[error("no bot named {0:?}")]
    NoBot(String),
    /// No challenge of that id (NOT_FOUND).
    #[error("no challenge {0:?}")]
    NoChallenge(String),
    /// A bot of that name was registered before (ALREADY_EXISTS).
    #[error("a bot named {0:?} is registered already (names are never used twice)")]
    BotExists(String),
    /// A field out of bounds, or what the bot does not accept (INVALID_ARGUMENT).
    #[error("{field}: {why}")]
    Invalid { field: &'static str, why: String },
    /// The caller may not make this command (PERMISSION_DENIED).
    #[error("{0}")]
    Denied(String),
    /// The caller's token is no bot's (UNAUTHENTICATED).
    #[error("{0}")]
    Unknown(String),
    /// The state stands in the way: a challenge answered, a bot offline or suspended
    /// (FAILED_PRECONDITION).
    #[error("{0}")]
    Precondition(String),
    /// A race lost to another change that the call is asked again for (ABORTED).
    #[error("{0}")]
    Aborted(String),
    /// A limit reached (RESOURCE_EXHAUSTED with when to retry and the limit's name).
    #[error("{what}")]
    Limit { limit: &'static str, what: String, retry: Duration },
    /// The store or the host failed.
    #[error(transparent)]
    Host(#[from] HostError),
    /// The game's constructor refused.
    #[error(transparent)]
    Events(Box<crate::EventsError>),
}

impl From<crate::EventsError> for LobbyError {
    fn from(e: crate::EventsError) -> LobbyError {
        LobbyError::Events(Box::new(e))
    }
}

/// The label a game carries for each seat a registered bot plays by its account
/// (`bot_account.0` = the bot's name): what marks the seat as a bot's wherever it is shown.
pub fn bot_account_label(seat: usize) -> String {
    format!("{BOT_ACCOUNT_LABEL}.{seat}")
}

const BOT_ACCOUNT_LABEL: &str = "bot_account";

/// The names the limits go by in a refusal.
pub const LIMIT_BOT_GAMES: &str = "bot_games_per_day";
pub const LIMIT_CHALLENGES: &str = "challenges_per_minute";

pub(crate) fn now_unix_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClockSettings;

    fn class(initial_ms: u64, increment_ms: u64, max_overtime_ms: u64, per_move_ms: u64) -> TimeClass {
        let clock =
            ClockSettings { initial_ms, increment_ms, max_overtime_ms, per_move_ms, penalty_per_minute: 0 };
        TimeClass::of(&GameSettings { clock: Some(clock), ..Default::default() })
    }

    /// Woogles' classes by a side's expected time: initial + overtime + 16 increments.
    #[test]
    fn a_clock_is_classed_by_the_time_a_side_is_expected_to_use() {
        assert_eq!(class(120_000, 0, 0, 0), TimeClass::Ultrablitz, "2 minutes");
        assert_eq!(class(120_001, 0, 0, 0), TimeClass::Blitz);
        assert_eq!(class(40_000, 5_000, 0, 0), TimeClass::Ultrablitz, "40 s + 16 × 5 s = 120 s");
        assert_eq!(class(300_000, 0, 60_000, 0), TimeClass::Blitz, "5 min + 1 min overtime = 6 min");
        assert_eq!(class(300_000, 0, 60_001, 0), TimeClass::Rapid);
        assert_eq!(class(840_000, 0, 0, 0), TimeClass::Rapid, "14 minutes");
        assert_eq!(class(1_500_000, 0, 0, 0), TimeClass::Regular);
        assert_eq!(class(0, 0, 0, 86_400_000), TimeClass::Correspondence);
        assert_eq!(TimeClass::of(&GameSettings::default()), TimeClass::Untimed);
    }
}

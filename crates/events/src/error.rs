//! What the events layer refuses, as domain kinds: what a command names that is not there
//! ([`Invalid`]), what the division's rules refuse (`dawgref_tournament::Error`), and what the
//! tournament's state stands in the way of; and the bounds those refusals name, held here beside
//! them so that this module depends on no other of the layer's. Each says in words what was
//! wrong; none knows the wire. The services map each kind to its status code and the field of
//! the call it names in one place (`server::errors::events`), as they do `HostError`.

use dawgref_host::HostError;

/// The most divisions a tournament has.
pub const MAX_DIVISIONS: usize = 20;
/// The longest delay a broadcast may have: an hour.
pub const MAX_DELAY_SECONDS: u32 = 3600;
/// The engine's time per move for a broadcast's spectators: the default, and the bounds.
pub const ANALYSIS_MS: u32 = 2000;
pub const MIN_ANALYSIS_MS: u32 = 100;
pub const MAX_ANALYSIS_MS: u32 = 30_000;
/// Kinds a log's filter names at most.
pub const MAX_KINDS: usize = 19;
/// The widest spread a director gives a bye, a forfeit or a late entry's rounds gone.
pub const MAX_SPREAD: i32 = 1000;
use dawgref_tournament::tsh::TshError;

#[derive(Debug, thiserror::Error)]
pub enum EventsError {
    /// What a command names is not there, or is out of bounds (INVALID_ARGUMENT).
    #[error(transparent)]
    Invalid(#[from] Invalid),
    /// The division's rules refuse the change: its kind says whether what the call names is not
    /// there (INVALID_ARGUMENT) or the division's state stands in the way (FAILED_PRECONDITION).
    #[error(transparent)]
    Rules(#[from] dawgref_tournament::Error),
    /// SetPairings for a round that has started (FAILED_PRECONDITION).
    #[error("round {round} has started: its pairings stand")]
    RoundStarted { round: u32 },
    /// UnpairRound for a round whose games are made (FAILED_PRECONDITION).
    #[error("round {round} has started: its games are made, and its pairings stand")]
    GamesMade { round: u32 },
    /// A result entered by hand, not as a correction, for a pairing whose game is over: the
    /// game's own result is the pairing's (FAILED_PRECONDITION).
    #[error(
        "round {round}'s pairing {pairing}: its game is over and its result enters from it (correct replaces it)"
    )]
    GameOver { round: u32, pairing: u32 },
    /// A director's command made by one who does not direct the tournament (PERMISSION_DENIED).
    #[error("{actor} may not {command}: a director's command")]
    NotDirector { actor: String, command: &'static str },
    /// A player's command made by one who is no player of the tournament: a director enters
    /// results with RecordResult (PERMISSION_DENIED).
    #[error(
        "{actor} may not ReportResult: a player reports their own result (a director enters it with RecordResult)"
    )]
    NotAPlayer { actor: String },
    /// A player's report of a pairing that is not theirs (PERMISSION_DENIED).
    #[error("pairing {pairing} of round {round} is not yours: yours is pairing {yours}")]
    NotYourPairing { round: u32, pairing: u32, yours: u32 },
    /// A report in a division that does not take its players' reports (FAILED_PRECONDITION).
    #[error("division {division} does not take its players' reports: its director enters its results")]
    ReportsOff { division: String },
    /// A report of a round the player is in no line of (FAILED_PRECONDITION).
    #[error("you are in no pairing of round {round}")]
    NotInRound { round: u32 },
    /// A report of a bye (FAILED_PRECONDITION).
    #[error("you have a bye in round {round}: there is no result to report")]
    ReportOfBye { round: u32 },
    /// A report of a pairing whose result is in (FAILED_PRECONDITION).
    #[error(
        "pairing {pairing} of round {round} has its result already ({result}): ask the director to correct it"
    )]
    ResultIn { round: u32, pairing: u32, result: String },
    /// A report of a pairing whose game is played on the server (FAILED_PRECONDITION).
    #[error(
        "pairing {pairing} of round {round} is played on the server: its result enters when its game ends"
    )]
    PlayedHere { round: u32, pairing: u32 },
    /// A check-in, or the absent withdrawn, in a division whose first round is paired
    /// (FAILED_PRECONDITION).
    #[error(
        "division {division}'s round 1 is paired: check-in is over (take round 1's pairings back with UnpairRound to reopen it)"
    )]
    CheckInClosed { division: String },
    /// A check-in of a withdrawn player (FAILED_PRECONDITION).
    #[error("player {player} ({name}) is withdrawn: the director enters them again (ReenterPlayer) first")]
    CheckInWithdrawn { player: u32, name: String },
    /// The absent withdrawn where no one has checked in: it would withdraw every player
    /// (FAILED_PRECONDITION).
    #[error(
        "no player of division {division} has checked in: withdrawing the absent would withdraw all {players}"
    )]
    NoneCheckedIn { division: String, players: usize },
    /// A review asked of games none of which is on the server (FAILED_PRECONDITION).
    #[error("no game of {what} is played on the server yet: start its round first")]
    NothingToReview { what: String },
    /// A player's check-in of someone else (PERMISSION_DENIED).
    #[error("you are player {you} of {division}: a player checks in only themselves")]
    NotYou { you: u32, division: String },
    /// A token asked for a player the server's bot plays (FAILED_PRECONDITION).
    #[error("player {player} ({name}) is the server's {level} bot: a bot has no token")]
    BotHasNoToken { player: u32, name: String, level: String },
    /// A token asked for a player a registered bot plays by its account (FAILED_PRECONDITION).
    #[error(
        "player {player} ({name}) is the bot {name:?}, entered by its account: it plays with its own token (RotateBotToken makes it anew)"
    )]
    AccountHasItsToken { player: u32, name: String },
    /// A registered bot entered while suspended (FAILED_PRECONDITION).
    #[error("the bot {name:?} is suspended: a director lets it back before it is entered")]
    BotSuspended { name: String },
    /// A change to a broadcast that has ended (FAILED_PRECONDITION).
    #[error("broadcast {slug:?} has ended")]
    BroadcastEnded { slug: String },
    /// No such tournament or broadcast, or none shown (NOT_FOUND).
    #[error("{0}")]
    NotFound(String),
    /// One is there already by that name (ALREADY_EXISTS).
    #[error("{0}")]
    AlreadyExists(String),
    /// Another replica's change won a race this call cannot be made again on (ABORTED).
    #[error("{0}")]
    Aborted(String),
    /// A stream's call ran out of time (DEADLINE_EXCEEDED).
    #[error("{0}")]
    DeadlinePassed(String),
    /// What is kept cannot be read (INTERNAL).
    #[error("{0}")]
    Internal(String),
    /// The host refused (its own mapping).
    #[error(transparent)]
    Host(#[from] HostError),
    /// The answer of a game's owner on another replica, which refused or could not be reached
    /// (through [`crate::Owners`]): handed back to the caller as that replica gave it.
    #[error("{0}")]
    Owner(Box<dyn std::error::Error + Send + Sync>),
}

/// What a command names that is not there, or a count or a value out of its bounds: each kind
/// says which part of the command it is, so the services can name the call's field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Invalid {
    /// The division named is not in the tournament.
    #[error("{:?}: no such division (there are {})", dawgref_engine::text::clip(.name), .there.join(", "))]
    NoSuchDivision { name: String, there: Vec<String> },
    /// A round's number (from 1) past the division's.
    #[error("{round}: the division has rounds 1 to {rounds}")]
    NoSuchRound { round: u32, rounds: usize },
    /// A player's number (from 1) past the division's, named as `by` says.
    #[error("{player}: the division has players 1 to {players}")]
    NoSuchPlayer { player: u32, players: u32, by: PlayerNamed },
    /// A pairing's number (from 1) past the round's.
    #[error("{pairing}: round {round} has pairings 1 to {pairings}")]
    NoSuchPairing { round: u32, pairing: u32, pairings: usize },
    /// A forfeit by a player who is not in the pairing (`second` 0: a bye).
    #[error("{player}: pairing {pairing} is players {first} and {second}")]
    NotInPairing { player: u32, pairing: u32, first: u32, second: u32 },
    /// A score past the bound any score has (`dawgref_engine::game::score_out_of_bounds`).
    #[error("a {0}")]
    Score(String),
    /// A reported score past the bound any score has, or 0–0, by the field that holds it.
    #[error("{why}")]
    ReportedScore { field: &'static str, why: String },
    /// A report whose scores do not give the outcome it claims.
    #[error("{mine}–{theirs} is {given} for you, reported as {claimed}")]
    ClaimedOutcome { mine: i32, theirs: i32, given: &'static str, claimed: &'static str },
    /// A report that claims no outcome.
    #[error("say whether the game was a win, a loss or a tie for you")]
    NoOutcome,
    /// SetResultReports naming no way.
    #[error("say how the division takes reports: off, both agree, or one suffices")]
    NoReportsMode,
    /// A result of 0–0: taken as no scores given (a caller that sends none sends 0–0), never
    /// entered as a game's result.
    #[error("0–0: no scores given (a forfeit is entered as one, naming who forfeited)")]
    NoScores,
    /// A division of too few or too many players, counted as `of` says.
    #[error("{players} players: a division has 2 to {}", dawgref_tournament::MAX_PLAYERS)]
    Players { players: usize, of: PlayersOf },
    /// A tournament of no divisions or too many (`imported`: counted with one more imported).
    #[error("{divisions} divisions: a tournament has 1 to {}", MAX_DIVISIONS)]
    Divisions { divisions: usize, imported: bool },
    /// A new division's name is one the tournament has.
    #[error("{name:?}: the tournament has a division of that name")]
    DivisionTaken { name: String, at: DivisionAt },
    /// A new player's name the division cannot hold (a `.t` file could not).
    #[error("{why}")]
    PlayerName { why: String, at: NameAt },
    /// An imported player's bot level that is none.
    #[error("player {player}: {why}")]
    BotLevel { player: u32, why: String },
    /// A division of no rounds or more than a division has.
    #[error("{rounds} rounds: a division has 1 to {}", dawgref_tournament::MAX_ROUNDS)]
    Rounds { rounds: usize, at: DivisionAt },
    /// AddRound of no round.
    #[error("at least one round to add")]
    NoRoundsToAdd,
    /// RemoveRounds of none.
    #[error("at least one round to take off")]
    NoRoundsToRemove,
    /// Round `round` (from 0) of those given by a method no division can pair by
    /// (`Method::problem`); `factor`: its factor is wrong, else its count of Fontes rounds.
    #[error("{why}")]
    Method { round: usize, why: String, factor: bool, at: DivisionAt },
    /// A spread given past [`MAX_SPREAD`].
    #[error("{spread}: -{MAX_SPREAD} to {MAX_SPREAD}")]
    Spread { spread: i32, of: SpreadOf },
    /// A new player's name that player `player` (from 1) of the division has already (compared
    /// without case and spacing), where the director did not allow it; `at`: the new player.
    #[error("{name:?}: player {player} of the division has that name (a director may allow it)")]
    SameName { name: String, player: u32, at: NameAt },
    /// A `.t` file that cannot be read.
    #[error(transparent)]
    Tsh(#[from] TshError),
    /// A broadcast of no label (it would cover every game).
    #[error("none: a broadcast covers the games carrying every one of its labels (say tournament=<slug>)")]
    NoLabels,
    /// A broadcast's delay past its bound.
    #[error("{seconds}: a delay is 0 to {} seconds", MAX_DELAY_SECONDS)]
    Delay { seconds: u32 },
    /// The engine's time per move for a broadcast's spectators out of its bounds.
    #[error(
        "{ms}: the engine's time per move is {} to {} ms (0: {})",
        MIN_ANALYSIS_MS,
        MAX_ANALYSIS_MS,
        ANALYSIS_MS
    )]
    AnalysisMs { ms: u32 },
    /// A review's time a turn out of its bounds.
    #[error(
        "{ms}: a review's time a turn is {} to {} ms (0: {})",
        crate::tournaments::MIN_REVIEW_MS,
        crate::tournaments::MAX_REVIEW_MS,
        crate::tournaments::REVIEW_MS
    )]
    ReviewMs { ms: u32 },
    /// A change of a broadcast's time per move to 0 (unset leaves it as it is).
    #[error("0: give the time per move, or leave it unset")]
    NoAnalysisMs,
    /// A log's filter naming a player (by number) and no division.
    #[error("{player}: a player is named in a division")]
    PlayerOfNoDivision { player: u32 },
    /// A log's filter naming more kinds than there are.
    #[error("{kinds} kinds: at most {MAX_KINDS}")]
    Kinds { kinds: usize },
    /// A log's filter's kind `index` (from 0) that is none.
    #[error("{:?}: no such kind (there are {})", dawgref_engine::text::clip(.name), .there.join(", "))]
    NoSuchKind { index: usize, name: String, there: Vec<&'static str> },
    /// A `.t` file's players and the tokens given for them differ in number.
    #[error("{players} players, {tokens} tokens")]
    Tokens { players: usize, tokens: usize },
    /// A person entered in a division that admits only bots.
    #[error("division {division} admits only bots: a registered bot (bot_account) or the server's (bot)")]
    BotsOnly { division: String, at: NameAt },
    /// A player given both a bot's account and a server bot's level.
    #[error("a registered bot's account or the server's bot, not both")]
    AccountAndLevel { at: NameAt },
    /// A bot's account entered under a name other than the bot's.
    #[error("{name:?}: the bot {account:?} plays under its own name (leave the name empty)")]
    AccountName { name: String, account: String, at: NameAt },
    /// A bot's account entered twice in one tournament (its token finds one player).
    #[error("the bot {account:?} plays in this tournament already, as player {player} of {division}")]
    AccountTwice { account: String, division: String, player: u32, at: NameAt },
}

/// How a command names a player by number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayerNamed {
    /// As the player it acts on (WithdrawPlayer, ReenterPlayer, a log's filter).
    Player,
    /// As one of line `line`'s players (from 0) of a round paired by hand: `second`, the line's
    /// second player.
    Line { line: usize, second: bool },
}

/// Where a new player's name is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameAt {
    /// Player `player` (from 0) of division `division` (from 0) of a tournament as made.
    NewDivision { division: usize, player: usize },
    /// A late entry.
    LateEntry,
}

/// Where a division a command gives is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DivisionAt {
    /// Division `index` (from 0) of a tournament as made.
    New { index: usize },
    /// A division read from a `.t` file, the rest of it given beside the file.
    Imported,
    /// A division the tournament has.
    Kept,
}

/// What a spread is given for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpreadOf {
    /// A bye of a division's controls.
    Bye(DivisionAt),
    /// A forfeit of a division's controls.
    Forfeit(DivisionAt),
    /// Each round a late entry missed.
    Missed,
}

/// What a count of players is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayersOf {
    /// The tournament's division `index` (from 0) as made.
    NewDivision { index: usize },
    /// A division with a late entry added.
    LateEntry,
    /// A division read from a `.t` file.
    Imported,
}

/// Room for a division of `players` (counted as `of` says): the same bound at every way in.
pub fn check_players(players: usize, of: PlayersOf) -> Result<(), Invalid> {
    if !(2..=dawgref_tournament::MAX_PLAYERS).contains(&players) {
        return Err(Invalid::Players { players, of });
    }
    Ok(())
}

/// A spread given for `of`: at most [`MAX_SPREAD`] either way.
pub fn check_spread(spread: i32, of: SpreadOf) -> Result<i32, Invalid> {
    if !(-MAX_SPREAD..=MAX_SPREAD).contains(&spread) {
        return Err(Invalid::Spread { spread, of });
    }
    Ok(spread)
}

/// A division's rounds as given at `at`: their count bounded, each method one a division can
/// pair by.
pub fn check_rounds(methods: &[dawgref_tournament::Method], at: DivisionAt) -> Result<(), Invalid> {
    if !(1..=dawgref_tournament::MAX_ROUNDS).contains(&methods.len()) {
        return Err(Invalid::Rounds { rounds: methods.len(), at });
    }
    check_methods(methods, at)
}

/// Each round's method as given at `at`: one a division can pair by.
pub fn check_methods(methods: &[dawgref_tournament::Method], at: DivisionAt) -> Result<(), Invalid> {
    for (round, m) in methods.iter().enumerate() {
        if let Some(why) = m.problem() {
            let factor = matches!(m, dawgref_tournament::Method::Factor(_));
            return Err(Invalid::Method { round, why, factor, at });
        }
    }
    Ok(())
}

/// A division's controls as given at `at`: their spreads bounded.
pub fn check_controls(c: &dawgref_tournament::Controls, at: DivisionAt) -> Result<(), Invalid> {
    check_spread(c.bye_spread, SpreadOf::Bye(at))?;
    check_spread(c.forfeit_spread, SpreadOf::Forfeit(at))?;
    Ok(())
}

/// A player's name as given at `at`: one a `.t` file can hold (`name_problem`: TSH reads the
/// first word that starts with a digit as the rating, `;` ends its field, `#` starts a comment).
pub fn check_name(name: &str, at: NameAt) -> Result<(), Invalid> {
    match dawgref_tournament::tsh::name_problem(name) {
        Some(why) => Err(Invalid::PlayerName { why: why.to_string(), at }),
        None => Ok(()),
    }
}

/// A tournament's divisions: the same bound at creation and at ImportTsh (`imported`).
pub fn check_divisions(divisions: usize, imported: bool) -> Result<(), Invalid> {
    if !(1..=MAX_DIVISIONS).contains(&divisions) {
        return Err(Invalid::Divisions { divisions, imported });
    }
    Ok(())
}

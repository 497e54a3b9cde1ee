//! The one place engine errors become gRPC statuses (DESIGN.md): INVALID_ARGUMENT for a
//! malformed request or an illegal play (with `google.rpc.BadRequest` field violations naming
//! every problem), FAILED_PRECONDITION for an action the game's state forbids, ABORTED for a
//! stale `expected_turn`, NOT_FOUND, UNAUTHENTICATED, PERMISSION_DENIED, RESOURCE_EXHAUSTED.

use crate::alphabet::AlphabetError;
use crate::game::GameError;
use crate::host::{HostError, InputError};
use crate::notation::NotationError;
use crate::notation::cgp::CgpError;
use crate::play::Problem;
use crate::text::clip_to;
use dawgref_events::{DivisionAt, EventsError, Invalid, NameAt, PlayerNamed, PlayersOf, SpreadOf};
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, FieldViolation, StatusExt};

/// Most problems a status lists one by one; the rest are counted.
const LISTED_PROBLEMS: usize = 8;
/// Longest description of one field violation, in characters.
const DESCRIPTION_CHARS: usize = 240;

/// An illegal play: INVALID_ARGUMENT with one field violation per problem (the first
/// [`LISTED_PROBLEMS`], then one saying how many more).
pub fn problems(field: &str, problems: &[Problem]) -> Status {
    let shown = &problems[..problems.len().min(LISTED_PROBLEMS)];
    let more = problems.len() - shown.len();
    let mut texts: Vec<String> = shown.iter().map(|p| clip_to(&p.to_string(), DESCRIPTION_CHARS)).collect();
    if more > 0 {
        texts.push(format!("and {more} more problems"));
    }
    let violations: Vec<FieldViolation> =
        texts.iter().map(|t| FieldViolation::new(field, t.clone())).collect();
    Status::with_error_details(
        Code::InvalidArgument,
        format!("invalid play: {}", texts.join("; ")),
        ErrorDetails::with_bad_request(violations),
    )
}

/// A request's count or budget: 0 means `default`, up to `max` is taken as given, more is
/// INVALID_ARGUMENT naming the field and its bound.
pub fn bounded(field: &str, given: u32, default: u32, max: u32) -> Result<u32, Status> {
    match given {
        0 => Ok(default),
        n if n <= max => Ok(n),
        n => Err(bad_field(field, format!("{n}: at most {max}"))),
    }
}

/// A malformed field. The description is bounded: it may quote the client's input.
pub fn bad_field(field: &str, description: impl Into<String>) -> Status {
    let description = clip_to(&description.into(), DESCRIPTION_CHARS);
    Status::with_error_details(
        Code::InvalidArgument,
        format!("{field}: {description}"),
        ErrorDetails::with_bad_request_violation(field, description),
    )
}

pub fn notation(field: &str, e: NotationError) -> Status {
    match e {
        NotationError::BlankNotDesignated { .. } => problems(field, &[Problem::BlankNotDesignated]),
        e => bad_field(field, e.to_string()),
    }
}

pub fn cgp(e: CgpError) -> Status {
    bad_field("position.cgp", e.to_string())
}

pub fn alphabet(field: &str, e: AlphabetError) -> Status {
    bad_field(field, e.to_string())
}

/// A refused action.
pub fn game(e: GameError) -> Status {
    match e {
        GameError::InvalidPlay(ps) => problems("play", &ps),
        GameError::NotOnRack(tiles) => bad_field("exchange", format!("tiles not on the rack: {tiles}")),
        GameError::EmptyExchange => bad_field("exchange", "nothing to exchange"),
        GameError::NoSuchSeat(_) | GameError::Seats { .. } | GameError::LexiconAlphabet { .. } => {
            Status::invalid_argument(e.to_string())
        }
        GameError::NotInBag(_) => Status::invalid_argument(e.to_string()),
        GameError::OwnPlay => Status::permission_denied(e.to_string()),
        GameError::GameOver
        | GameError::NotYourTurn { .. }
        | GameError::ExchangeNotAllowed { .. }
        | GameError::NothingToChallenge
        | GameError::ChallengesNotAllowed
        | GameError::AcceptOrChallenge
        | GameError::NotOver
        | GameError::Paused
        | GameError::NotPaused
        | GameError::AlreadyPaused
        | GameError::NoClock
        | GameError::NothingToUndo => Status::failed_precondition(e.to_string()),
        GameError::TimePenalty(_) | GameError::Director(_) => Status::invalid_argument(e.to_string()),
    }
}

/// A stale `expected_turn`.
pub fn stale_turn(expected: u32, actual: u32) -> Status {
    Status::aborted(format!(
        "expected turn {expected}, but the game is at turn {actual}: fetch the game and retry"
    ))
}

// Refusals that come from the server's state rather than from the request's content. Every
// status the server builds comes from this module, so codes and wording stay consistent.

/// The server holds its limit of live games: RESOURCE_EXHAUSTED.
pub fn no_room(limit: usize) -> Status {
    Status::resource_exhausted(format!("the server holds its limit of {limit} games"))
}

/// Reviews wait in a full line: RESOURCE_EXHAUSTED, with a retry hint (`google.rpc.RetryInfo`)
/// of about when a place frees up.
pub fn reviews_full(running: usize, waiting: usize, retry: std::time::Duration) -> Status {
    retry_later(
        format!("{running} game reviews are running and {waiting} waiting, as many as the server takes"),
        retry,
    )
}

/// How long a client holding its limit of searches is asked to wait before another.
const SEARCH_RETRY: std::time::Duration = std::time::Duration::from_secs(1);

/// A limit that frees up with time: RESOURCE_EXHAUSTED naming `what`, with a retry hint
/// (`google.rpc.RetryInfo`) of `retry`.
pub fn retry_later(what: impl std::fmt::Display, retry: std::time::Duration) -> Status {
    let secs = retry.as_secs_f64().max(0.001);
    Status::with_error_details(
        Code::ResourceExhausted,
        format!("{what}; retry in {} s", (secs * 10.0).ceil() / 10.0),
        ErrorDetails::with_retry_info(Some(retry)),
    )
}

/// A game already has as many watch streams as it may: RESOURCE_EXHAUSTED.
pub fn watchers_full(cap: usize) -> Status {
    Status::resource_exhausted(format!("this game already has {cap} watchers"))
}

/// No game has this id: NOT_FOUND.
pub fn no_game(id: &str) -> Status {
    Status::not_found(format!("no game {id}"))
}

/// A game that changed owner while the request was on its way: retry (it goes to the new owner).
pub fn moved(id: &str) -> Status {
    Status::unavailable(format!("game {id} moved to another replica; retry"))
}

/// The store could not do `what` (read or write): UNAVAILABLE, worth a retry.
pub fn store(what: &str, e: impl std::fmt::Display) -> Status {
    Status::unavailable(format!("{what} ({e}); retry"))
}

/// A game whose log cannot be replayed: FAILED_PRECONDITION naming why. `quarantined`: set
/// aside at start-up, for good.
pub fn unreplayable(id: &str, reason: &str, quarantined: bool) -> Status {
    if quarantined {
        Status::failed_precondition(format!(
            "game {id} is quarantined (its log could not be replayed: {reason})"
        ))
    } else {
        Status::failed_precondition(format!("game {id} cannot be replayed: {reason}"))
    }
}

/// The game's task gave it up and it is being rebuilt from its log: UNAVAILABLE.
pub fn reloading() -> Status {
    Status::unavailable("the game is being reloaded from its log; retry")
}

/// A watch stream cut because its game is being rebuilt: UNAVAILABLE, naming where to resume.
pub fn watch_again_from(next: usize) -> Status {
    Status::unavailable(format!("the game is being reloaded: watch again from event {next}"))
}

/// A watch that lasted as long as its caller's deadline: DEADLINE_EXCEEDED, naming the event to
/// resume from.
pub fn deadline_passed_from(next: usize) -> Status {
    Status::deadline_exceeded(format!("the call's deadline passed: watch again from event {next}"))
}

/// A watch cut by shutdown: UNAVAILABLE, naming the event to resume from (on another replica,
/// or on this one once it is back).
pub fn shutting_down_from(next: usize) -> Status {
    Status::unavailable(format!("the server is shutting down: watch again from event {next}"))
}

/// A stream cut by shutdown: UNAVAILABLE.
pub fn shutting_down() -> Status {
    Status::unavailable("the server is shutting down")
}

/// The game is over, or has no open seat: FAILED_PRECONDITION.
pub fn game_state(what: &'static str) -> Status {
    Status::failed_precondition(what)
}

/// The position is not a two-player endgame with the bag empty: FAILED_PRECONDITION.
pub fn not_an_endgame(why: String) -> Status {
    Status::failed_precondition(why)
}

/// What the game's state does not allow yet or any more (a turn not yet taken, a bag too full
/// or too empty for the pre-endgame): FAILED_PRECONDITION. The reason is bounded.
pub fn precondition(why: impl Into<String>) -> Status {
    Status::failed_precondition(clip_to(&why.into(), DESCRIPTION_CHARS))
}

/// A search for two players asked of a game of more: FAILED_PRECONDITION.
pub fn not_two_players(players: usize) -> Status {
    Status::failed_precondition(format!("{players} players: the search plays two"))
}

/// A token problem: UNAUTHENTICATED.
pub fn unauthenticated(what: &'static str) -> Status {
    Status::unauthenticated(what)
}

/// ListGames on a server started without a director token: FAILED_PRECONDITION.
pub fn no_director() -> Status {
    Status::failed_precondition(
        "this server has no director token (start it with --director-token or DAWGREF_DIRECTOR_TOKEN)",
    )
}

/// A failure of the server itself (a worker that died, no randomness): INTERNAL.
pub fn internal(what: impl std::fmt::Display) -> Status {
    Status::internal(what.to_string())
}

/// A client's malformed play or exchange.
pub fn input(e: InputError) -> Status {
    match e {
        InputError::Field { field, description } => bad_field(&field, description),
        InputError::Problems { field, problems: ps } => problems(field, &ps),
        InputError::Notation { field, error } => notation(field, error),
        InputError::Alphabet { field, error } => alphabet(&field, error),
    }
}

/// What the events layer refused, as a status: each kind its code and the field it names, once.
pub fn events(e: EventsError) -> Status {
    match e {
        EventsError::Invalid(e) => invalid(e),
        EventsError::Rules(e) => rules(e),
        e @ (EventsError::RoundStarted { .. }
        | EventsError::GamesMade { .. }
        | EventsError::GameOver { .. }
        | EventsError::BotHasNoToken { .. }
        | EventsError::AccountHasItsToken { .. }
        | EventsError::BotSuspended { .. }
        | EventsError::BroadcastEnded { .. }
        | EventsError::ReportsOff { .. }
        | EventsError::NotInRound { .. }
        | EventsError::ReportOfBye { .. }
        | EventsError::ResultIn { .. }
        | EventsError::PlayedHere { .. }
        | EventsError::CheckInClosed { .. }
        | EventsError::CheckInWithdrawn { .. }
        | EventsError::NoneCheckedIn { .. }
        | EventsError::NothingToReview { .. }) => precondition(e.to_string()),
        e @ (EventsError::NotDirector { .. }
        | EventsError::NotAPlayer { .. }
        | EventsError::NotYourPairing { .. }
        | EventsError::NotYou { .. }) => Status::permission_denied(e.to_string()),
        EventsError::NotFound(what) => Status::not_found(what),
        EventsError::AlreadyExists(what) => Status::already_exists(what),
        EventsError::Aborted(what) => Status::aborted(what),
        EventsError::DeadlinePassed(what) => Status::deadline_exceeded(what),
        EventsError::Internal(what) => internal(what),
        EventsError::Host(e) => host(e),
        // The owner replica's answer, as it came.
        EventsError::Owner(e) => match e.downcast::<Status>() {
            Ok(status) => *status,
            Err(e) => internal(e),
        },
    }
}

/// What the bots' lobby refused, as its status: RESOURCE_EXHAUSTED for a limit, with when to
/// retry (`google.rpc.RetryInfo`) and the limit's name (`google.rpc.ErrorInfo`'s reason).
pub fn lobby(e: dawgref_events::LobbyError) -> Status {
    use dawgref_events::LobbyError as L;
    match e {
        L::NoBot(_) | L::NoChallenge(_) => Status::not_found(e.to_string()),
        L::BotExists(_) => Status::already_exists(e.to_string()),
        L::Invalid { field, why } => bad_field(field, why),
        L::Denied(what) => Status::permission_denied(what),
        L::Unknown(what) => Status::unauthenticated(what),
        L::Precondition(what) => precondition(what),
        L::Aborted(what) => Status::aborted(what),
        L::Limit { limit, what, retry } => {
            let secs = retry.as_secs_f64().max(0.001);
            let mut details = ErrorDetails::with_retry_info(Some(retry));
            details.set_error_info(limit, "dawgref.v1.BotsService", std::collections::HashMap::new());
            Status::with_error_details(
                Code::ResourceExhausted,
                format!("{what}; retry in {} s", (secs * 10.0).ceil() / 10.0),
                details,
            )
        }
        L::Host(e) => host(e),
        L::Events(e) => events(*e),
    }
}

/// What a command named that is not there, as a status naming the call's field.
pub fn invalid(e: Invalid) -> Status {
    bad_field(&invalid_field(&e), e.to_string())
}

/// The field of the call that names what a command named and is not there.
pub fn invalid_field(e: &Invalid) -> String {
    // Where a division's parts are given: a new one's in `divisions[i]`, an imported one's
    // beside its file, a kept one's in the call.
    let rounds = |at: &DivisionAt| match at {
        DivisionAt::New { index } => format!("divisions[{index}].rounds"),
        DivisionAt::Imported => "rounds_to_come".into(),
        DivisionAt::Kept => "rounds".into(),
    };
    let controls = |at: &DivisionAt| match at {
        DivisionAt::New { index } => format!("divisions[{index}].controls"),
        DivisionAt::Imported | DivisionAt::Kept => "controls".into(),
    };
    // Where a player is given: a new division's `divisions[i].players[j]`, a late entry's `player`.
    let entered = |at: &NameAt| match at {
        NameAt::NewDivision { division, player } => format!("divisions[{division}].players[{player}]"),
        NameAt::LateEntry => "player".into(),
    };
    let field = match e {
        Invalid::NoSuchDivision { .. } => "division",
        Invalid::DivisionTaken { at: DivisionAt::New { index }, .. } => {
            return format!("divisions[{index}].name");
        }
        Invalid::DivisionTaken { .. } => "division",
        Invalid::NoSuchRound { .. } => "round",
        Invalid::NoSuchPlayer { by: PlayerNamed::Player, .. } => "player",
        Invalid::NoSuchPlayer { by: PlayerNamed::Line { line, second }, .. } => {
            return format!("pairings[{line}].{}", if *second { "second" } else { "first" });
        }
        Invalid::NoSuchPairing { .. } => "pairing",
        Invalid::NotInPairing { .. } => "forfeited_by",
        Invalid::Score(_) | Invalid::NoScores => "scores",
        Invalid::ReportedScore { field, .. } => field,
        Invalid::ClaimedOutcome { .. } | Invalid::NoOutcome => "outcome",
        Invalid::NoReportsMode => "result_reports",
        Invalid::NoLabels => "labels",
        Invalid::Delay { .. } => "delay_seconds",
        Invalid::AnalysisMs { .. } | Invalid::NoAnalysisMs => "analysis_ms",
        Invalid::ReviewMs { .. } => "ms_per_turn",
        Invalid::Players { of: PlayersOf::NewDivision { index }, .. } => {
            return format!("divisions[{index}].players");
        }
        Invalid::Players { of: PlayersOf::LateEntry, .. } => "player",
        Invalid::Divisions { imported: false, .. } => "divisions",
        Invalid::Divisions { imported: true, .. } => "division",
        Invalid::PlayerName { at: NameAt::LateEntry, .. }
        | Invalid::SameName { at: NameAt::LateEntry, .. } => "player.name",
        Invalid::PlayerName { at: NameAt::NewDivision { division, player }, .. }
        | Invalid::SameName { at: NameAt::NewDivision { division, player }, .. } => {
            return format!("divisions[{division}].players[{player}].name");
        }
        Invalid::BotsOnly { at, .. } => return entered(at),
        Invalid::AccountAndLevel { at } => return format!("{}.bot", entered(at)),
        Invalid::AccountName { at, .. } => return format!("{}.name", entered(at)),
        Invalid::AccountTwice { at, .. } => return format!("{}.bot_account", entered(at)),
        Invalid::Rounds { at, .. } => return rounds(at),
        Invalid::NoRoundsToAdd => "rounds",
        Invalid::NoRoundsToRemove => "count",
        Invalid::Method { round, factor, at, .. } => {
            return format!("{}[{round}].{}", rounds(at), if *factor { "factor" } else { "fontes_rounds" });
        }
        Invalid::Spread { of: SpreadOf::Bye(at), .. } => return format!("{}.bye_spread", controls(at)),
        Invalid::Spread { of: SpreadOf::Forfeit(at), .. } => {
            return format!("{}.forfeit_spread", controls(at));
        }
        Invalid::Spread { of: SpreadOf::Missed, .. } => "missed_round_spread",
        Invalid::PlayerOfNoDivision { .. } => "player",
        Invalid::Kinds { .. } => "kinds",
        Invalid::NoSuchKind { index, .. } => return format!("kinds[{index}]"),
        Invalid::Players { of: PlayersOf::Imported, .. }
        | Invalid::Tsh(_)
        | Invalid::Tokens { .. }
        | Invalid::BotLevel { .. } => "text",
    };
    field.to_string()
}

/// What a division's rules refused: INVALID_ARGUMENT naming the field for what the call names
/// and is not there, else FAILED_PRECONDITION naming what stands in the way.
fn rules(e: dawgref_tournament::Error) -> Status {
    use dawgref_tournament::Error as E;
    let field = match e {
        E::NoSuchRound { .. } => "round",
        E::NoSuchPlayer { .. }
        | E::PairedTwice { .. }
        | E::MeetsThemself { .. }
        | E::Withdrawn { .. }
        | E::Unpaired { .. } => "pairings",
        E::NoSuchPairing { .. } => "pairing",
        E::NoSuchSeat { .. } => "forfeited_by",
        E::TooManyRounds { .. } => "rounds",
        E::LastRound { .. } => "count",
        E::NoSuchTable { .. } => "table",
        _ => return precondition(e.to_string()),
    };
    bad_field(field, e.to_string())
}

/// What the host refused or could not do.
pub fn host(e: HostError) -> Status {
    match e {
        HostError::Input(e) => input(e),
        HostError::Game(e) => game(e),
        HostError::StaleTurn { expected, actual } => stale_turn(expected, actual),
        HostError::NoOpenSeat => game_state("no open seat in this game"),
        HostError::BadId(id) => bad_field(
            "game_id",
            format!("not a UUID: {:?} ({} characters)", crate::text::clip(&id), id.chars().count()),
        ),
        HostError::NoGame(id) => no_game(&id),
        HostError::Moved(id) => moved(&id),
        HostError::Store { what, error } => store(&what, error),
        e @ (HostError::NotDirector
        | HostError::KeyRevoked(_)
        | HostError::OutOfScope { .. }
        | HostError::RootOnly) => Status::permission_denied(e.to_string()),
        e @ HostError::KeyExists(_) => Status::already_exists(e.to_string()),
        e @ HostError::GameExists(_) => Status::already_exists(e.to_string()),
        e @ HostError::NoKey(_) => Status::not_found(e.to_string()),
        HostError::Unreplayable { id, reason, quarantined } => unreplayable(&id, &reason, quarantined),
        HostError::Reloading => reloading(),
        HostError::ShuttingDown => shutting_down(),
        HostError::NoRoom(limit) => no_room(limit),
        e @ HostError::TooManySearches { .. } => retry_later(e.to_string(), SEARCH_RETRY),
        HostError::Internal(what) => internal(what),
    }
}

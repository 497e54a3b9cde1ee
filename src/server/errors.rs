//! The one place engine errors become gRPC statuses (DESIGN.md): INVALID_ARGUMENT for a
//! malformed request or an illegal play (with `google.rpc.BadRequest` field violations naming
//! every problem), FAILED_PRECONDITION for an action the game's state forbids, ABORTED for a
//! stale `expected_turn`, NOT_FOUND, UNAUTHENTICATED, PERMISSION_DENIED, RESOURCE_EXHAUSTED.

use crate::alphabet::AlphabetError;
use crate::game::GameError;
use crate::notation::NotationError;
use crate::notation::cgp::CgpError;
use crate::play::Problem;
use crate::text::clip_to;
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
        | GameError::NotOver => Status::failed_precondition(e.to_string()),
        GameError::TimePenalty(_) => Status::invalid_argument(e.to_string()),
    }
}

/// A stale `expected_turn`.
pub fn stale_turn(expected: u32, actual: u32) -> Status {
    Status::aborted(format!(
        "expected turn {expected}, but the game is at turn {actual}: fetch the game and retry"
    ))
}

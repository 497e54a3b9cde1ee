//! Why the host refused or could not do what it was asked, in domain terms. The services turn
//! each into a gRPC status (`server::errors::host`); nothing here knows the wire.

use super::input::InputError;
use dawgref_engine::game::GameError;
use dawgref_store::StoreError;

#[derive(Debug, Clone, thiserror::Error)]
pub enum HostError {
    /// A malformed play or exchange.
    #[error("{0:?}")]
    Input(InputError),
    /// The engine refused the action; the game is as it was.
    #[error("{0}")]
    Game(GameError),
    /// The turn the client expected is not the game's.
    #[error("expected turn {expected}, the game is at turn {actual}")]
    StaleTurn { expected: u32, actual: u32 },
    #[error("no open seat in this game")]
    NoOpenSeat,
    /// Not a game id.
    #[error("not a game id: {0:?}")]
    BadId(String),
    #[error("no game {0}")]
    NoGame(String),
    /// A game made with an id that is taken (made before, by an earlier call).
    #[error("game {0} exists already")]
    GameExists(String),
    /// The game changed owner while the request was on its way.
    #[error("game {0} moved to another replica")]
    Moved(String),
    /// The store could not do `what`.
    #[error("{what} ({error})")]
    Store { what: String, error: StoreError },
    /// A stored game whose log cannot be replayed (`quarantined`: set aside for good).
    #[error("game {id} cannot be replayed: {reason}")]
    Unreplayable { id: String, reason: String, quarantined: bool },
    /// The game's task gave it up and it is being rebuilt from its log.
    #[error("the game is being reloaded")]
    Reloading,
    #[error("the server is shutting down")]
    ShuttingDown,
    /// The host holds its limit of live games.
    #[error("the server holds its limit of {0} games")]
    NoRoom(usize),
    /// The client already holds its limit of analysis searches.
    #[error("{limit} analysis searches of yours are waiting or running, as many as one client may hold")]
    TooManySearches { limit: usize },
    /// A token that is neither the root director's nor a director key's.
    #[error("that is not a director's token")]
    NotDirector,
    #[error("director key {0:?} was revoked")]
    KeyRevoked(String),
    /// A director key acting on a game (or labels) outside its own.
    #[error("director key {key:?} directs only the games labelled {labels}")]
    OutOfScope { key: String, labels: String },
    /// Only the root director makes, lists and revokes director keys.
    #[error("only the root director's token (--director-token) may make, list or revoke director keys")]
    RootOnly,
    #[error("a director key named {0:?} exists already (names are never used twice)")]
    KeyExists(String),
    #[error("no director key named {0:?}")]
    NoKey(String),
    /// A failure of the host itself (a worker that died, a remembered response that is not one).
    #[error("{0}")]
    Internal(String),
}

impl HostError {
    /// A malformed field of what the caller gave (INVALID_ARGUMENT naming the field).
    pub fn field(field: impl Into<String>, description: impl Into<String>) -> HostError {
        HostError::Input(InputError::Field { field: field.into(), description: description.into() })
    }

    pub fn store(what: impl Into<String>, error: StoreError) -> HostError {
        HostError::Store { what: what.into(), error }
    }

    /// Whether asking again (here or elsewhere) may succeed: the game moved, the store failed,
    /// the game is reloading or the server shutting down (UNAVAILABLE to a client).
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            HostError::Moved(_) | HostError::Store { .. } | HostError::Reloading | HostError::ShuttingDown
        )
    }
}

impl From<InputError> for HostError {
    fn from(e: InputError) -> HostError {
        HostError::Input(e)
    }
}

impl From<GameError> for HostError {
    fn from(e: GameError) -> HostError {
        HostError::Game(e)
    }
}

//! What the events layer refuses, as a domain error: the services map each kind to its status in
//! one place (`server::errors::events`), as they do `HostError`.

use dawgref_host::HostError;

#[derive(Debug, thiserror::Error)]
pub enum EventsError {
    /// A field of the call names what is not there or is out of bounds (INVALID_ARGUMENT).
    #[error("{field}: {why}")]
    BadField { field: String, why: String },
    /// The tournament's state stands in the way (FAILED_PRECONDITION).
    #[error("{0}")]
    Precondition(String),
    /// No such tournament or broadcast (NOT_FOUND).
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

impl EventsError {
    pub fn bad_field(field: &str, why: impl Into<String>) -> EventsError {
        EventsError::BadField { field: field.to_string(), why: why.into() }
    }
}

//! Seat tokens: 128 random bits, shown once to the seat's holder, stored only as a SHA-256 hash
//! and compared in constant time; and who a request's token makes its caller ([`Identity`]: a
//! seat, a director or a watcher in a game, or a director for the calls that need one).

use crate::host::{Director, Host, HostError, Snapshot, Viewer};
use tonic::Status;
use tonic::metadata::MetadataMap;

/// The stored form of a token (the host keeps it and never sees a token).
pub use crate::host::TokenHash;

/// A new token (32 hex characters) and its hash.
pub fn new_token() -> Result<(String, TokenHash), Status> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| super::errors::internal(format!("no randomness: {e}")))?;
    let token = hex(&bytes);
    let hash = hash(&token);
    Ok((token, hash))
}

pub use crate::host::{find_seat, hash, hex, unhex};

/// The bearer token of a request, if any. A malformed `authorization` header is an error.
pub fn bearer(metadata: &MetadataMap) -> Result<Option<String>, Status> {
    let Some(value) = metadata.get("authorization") else { return Ok(None) };
    let text =
        value.to_str().map_err(|_| super::errors::unauthenticated("authorization header is not text"))?;
    let token = text
        .strip_prefix("Bearer ")
        .or_else(|| text.strip_prefix("bearer "))
        .ok_or_else(|| super::errors::unauthenticated("authorization must be \"Bearer <token>\""))?;
    Ok(Some(token.trim().to_string()))
}

/// Who a request's token makes its caller: the directors the server knows (the root by the
/// token it was started with, the keys the host keeps) and each game's seats.
pub struct Identity {
    host: Host,
    /// The hash of the root director's token; none: no root director.
    root: Option<TokenHash>,
}

impl Identity {
    /// `root`: the root director's token (None: no root director).
    pub fn new(host: Host, root: Option<&str>) -> Identity {
        Identity { host, root: root.map(hash) }
    }

    /// The director a request's token makes its caller: the root director by the token the
    /// server was started with, else a director key's holder (see [`Director`]).
    /// UNAUTHENTICATED without a token; FAILED_PRECONDITION when the server has no director
    /// token and the token is no key's; PERMISSION_DENIED for any other token, or a revoked key.
    pub async fn director(&self, metadata: &MetadataMap) -> Result<Director, Status> {
        let token = bearer(metadata)?.ok_or_else(|| {
            super::errors::unauthenticated(
                "this call needs a director's token (authorization: Bearer <token>)",
            )
        })?;
        match self.director_of(&token).await {
            Err(HostError::NotDirector) if self.root.is_none() => Err(super::errors::no_director()),
            answer => answer.map_err(super::errors::host),
        }
    }

    /// The director `token` makes its holder: [`HostError::NotDirector`] when it is neither the
    /// root's nor a key's.
    async fn director_of(&self, token: &str) -> Result<Director, HostError> {
        if self.root.is_some() && find_seat(token, &[self.root]).is_some() {
            return Ok(Director::root());
        }
        self.host.director_key(&hash(token)).await
    }

    /// The viewer a request's metadata proves in a game: no token is a watcher; a seat by its
    /// token; a director whose games include this one by a director's token (PERMISSION_DENIED
    /// for a director key's other games, or a revoked key); any other token is UNAUTHENTICATED
    /// (never silently a watcher).
    pub async fn viewer(&self, metadata: &MetadataMap, game: &Snapshot) -> Result<Viewer, Status> {
        let Some(token) = bearer(metadata)? else { return Ok(Viewer::Watcher) };
        if let Some(seat) = find_seat(&token, &game.tokens()) {
            return Ok(Viewer::Seat(seat));
        }
        match self.director_of(&token).await {
            Ok(director) => {
                director.check_covers(game.labels()).map_err(super::errors::host)?;
                Ok(Viewer::Director)
            }
            // No seat's and no director's: the token proves nobody.
            Err(HostError::NotDirector) => {
                Err(super::errors::unauthenticated("the token does not belong to a seat of this game"))
            }
            Err(other) => Err(super::errors::host(other)),
        }
    }
}

/// The seat an action needs; a watcher is UNAUTHENTICATED.
pub fn required_seat(viewer: Viewer) -> Result<usize, Status> {
    viewer.seat().ok_or_else(|| {
        super::errors::unauthenticated("this action needs the seat's token (authorization: Bearer <token>)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_found_by_hash() {
        let (a, ha) = new_token().unwrap();
        let (b, hb) = new_token().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        let seats = [None, Some(ha), Some(hb)];
        assert_eq!(find_seat(&a, &seats), Some(1));
        assert_eq!(find_seat(&b, &seats), Some(2));
        assert_eq!(find_seat("nope", &seats), None);
    }
}

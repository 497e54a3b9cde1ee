//! Seat tokens: 128 random bits, shown once to the seat's holder, stored only as a SHA-256 hash
//! and compared in constant time; and who a request's token makes its caller (a [`Viewer`]).

use crate::host::{Snapshot, Viewer};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tonic::Status;
use tonic::metadata::MetadataMap;

/// The stored form of a token (the host keeps it and never sees a token).
pub use crate::host::TokenHash;

/// A new token (32 hex characters) and its hash.
pub fn new_token() -> Result<(String, TokenHash), Status> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| super::errors::internal(format!("no randomness: {e}")))?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let hash = hash(&token);
    Ok((token, hash))
}

pub fn hash(token: &str) -> TokenHash {
    Sha256::digest(token.as_bytes()).into()
}

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

/// The seat whose hash matches, comparing against every seat so the time does not depend on
/// which seat (or none) matches.
pub fn find_seat(token: &str, seats: &[Option<TokenHash>]) -> Option<usize> {
    let h = hash(token);
    let mut found = None;
    for (i, s) in seats.iter().enumerate() {
        let candidate = s.unwrap_or([0u8; 32]);
        let equal: bool = candidate.ct_eq(&h).into();
        if equal && s.is_some() {
            found = Some(i);
        }
    }
    found
}

/// The viewer a request's metadata proves in a game: no token is a watcher; a token that fits
/// no seat is UNAUTHENTICATED (never silently a watcher).
pub fn viewer(metadata: &MetadataMap, game: &Snapshot) -> Result<Viewer, Status> {
    let Some(token) = bearer(metadata)? else { return Ok(Viewer::Watcher) };
    find_seat(&token, &game.tokens())
        .map(Viewer::Seat)
        .ok_or_else(|| super::errors::unauthenticated("the token does not belong to a seat of this game"))
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

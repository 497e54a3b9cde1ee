//! A token's stored form and how a token is found among them: a seat's, a tournament player's
//! and a director's tokens are kept only as SHA-256 hashes, and compared in constant time.

use crate::TokenHash;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The hash a token is kept as.
pub fn hash(token: &str) -> TokenHash {
    Sha256::digest(token.as_bytes()).into()
}

/// The seat whose hash is `token`'s, comparing against every seat so the time does not depend on
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

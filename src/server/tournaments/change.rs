//! How a tournament changes: held on this replica while it changes (`Held`, from `hold`), read
//! from the store and written back as its next version (`change`, a race lost to another
//! replica read again), once per request id (`once`, `kept`), and the request ids of the game
//! calls a tournament call makes (`derived_request_id`).

use super::super::errors;
use super::AppState;
use super::record::Record;
use tonic::Status;

/// Tries at a change that races another replica's before it is answered ABORTED.
const TRIES: usize = 3;

/// A tournament held for one change at a time on this replica: every change is made through
/// one ([`change`] takes it), so a replica's own calls queue rather than race, and a call that
/// reads, acts on games and then writes (StartRound, RecordResult, WithdrawPlayer) sees no
/// change of this replica's between its read and its write.
pub(super) struct Held<'a> {
    slug: String,
    _guard: tokio::sync::MutexGuard<'a, ()>,
}

/// Hold `slug` (waiting for the call that holds it).
pub(super) async fn hold<'a>(state: &'a AppState, slug: &str) -> Held<'a> {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    slug.hash(&mut h);
    let stripe = &state.tournament_locks[h.finish() as usize % state.tournament_locks.len()];
    Held { slug: slug.to_string(), _guard: stripe.lock().await }
}

/// A call's method and request id (empty: no retry protection).
pub(super) type Retry<'a> = (&'a str, &'a str);

/// The key a retry's answer is kept by.
pub(super) fn retry_key((method, request_id): Retry<'_>) -> Option<String> {
    (!request_id.is_empty()).then(|| format!("{method}:{request_id}"))
}

/// [`change`], once per request id.
pub(super) async fn once<R: prost::Message + Default>(
    state: &AppState,
    held: &Held<'_>,
    retry: Retry<'_>,
    mut f: impl FnMut(&mut Record) -> Result<R, Status>,
) -> Result<R, Status> {
    let key = retry_key(retry);
    change(state, held, |rec| {
        if let Some(key) = &key
            && let Some(answer) = rec.answer(key)
        {
            return answer;
        }
        let answer = f(rec)?;
        if let Some(key) = &key {
            rec.remember(key.clone(), answer.encode_to_vec());
        }
        Ok(answer)
    })
    .await
}

/// The answer kept for a retried request, read under the hold (before a call acts on games).
pub(super) async fn kept<R: prost::Message + Default>(
    state: &AppState,
    held: &Held<'_>,
    retry: Retry<'_>,
) -> Result<(Record, Option<Result<R, Status>>), Status> {
    let (record, _) = load(state, &held.slug).await?;
    let answer = retry_key(retry).and_then(|key| record.answer(&key));
    Ok((record, answer))
}

/// A tournament and the version read: NOT_FOUND for none.
pub(super) async fn load(state: &AppState, slug: &str) -> Result<(Record, u64), Status> {
    let stored = state.host.tournament_records().get(slug).await.map_err(errors::host)?;
    let stored =
        stored.ok_or_else(|| Status::not_found(format!("no tournament {:?}", crate::text::clip(slug))))?;
    Ok((decode(&stored)?, stored.version))
}

/// A stored tournament's record: INTERNAL when it cannot be read or holds no tournament (so
/// that `Record::t` always finds one).
pub(super) fn decode(stored: &crate::store::StoredTournament) -> Result<Record, Status> {
    let record = <Record as prost::Message>::decode(stored.body.as_slice())
        .map_err(|e| errors::internal(format!("tournament {} cannot be read: {e}", stored.slug)))?;
    if record.tournament.is_none() {
        return Err(errors::internal(format!("tournament {}'s record holds no tournament", stored.slug)));
    }
    Ok(record)
}

/// Read, change and write back a tournament as its next version, holding it; a race lost to
/// another replica is read again and tried again, up to [`TRIES`] times (then ABORTED).
/// Watchers hear of it.
pub(super) async fn change<R>(
    state: &AppState,
    held: &Held<'_>,
    mut f: impl FnMut(&mut Record) -> Result<R, Status>,
) -> Result<R, Status> {
    let slug = held.slug.as_str();
    let mut tries = 0;
    loop {
        let (mut record, version) = load(state, slug).await?;
        let answer = f(&mut record)?;
        let stored = crate::store::StoredTournament {
            slug: slug.to_string(),
            version: version + 1,
            body: prost::Message::encode_to_vec(&record),
        };
        match state.host.tournament_records().put(stored).await {
            Ok(()) => {
                let _ = state.tournament_changes.send(slug.to_string());
                return Ok(answer);
            }
            Err(crate::host::HostError::Stale(_)) if tries + 1 < TRIES => tries += 1,
            Err(e) => return Err(errors::host(e)),
        }
    }
}

/// A request id for the game call a tournament call makes, drawn from the tournament call's own
/// (so its retry is the game call's retry); empty for a call without one.
pub(super) fn derived_request_id(slug: &str, parts: &[&str]) -> String {
    use sha2::{Digest, Sha256};
    if parts.last().is_none_or(|id| id.is_empty()) {
        return String::new();
    }
    let digest = Sha256::digest(format!("{slug}\n{}", parts.join("\n")));
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("tournament-{hex}")
}

//! How a tournament changes: held on this replica while it changes (`Held`, from `hold`), read
//! from the store and written back as its next version (`change`, a race lost to another
//! replica read again) with the events and kept answer it adds as rows of their own
//! (`written`, `events`), once per request id (`once`, `kept`), and the request ids of the game
//! calls a tournament call makes (`derived_request_id`).

use super::super::errors;
use super::AppState;
use super::record::Record;
use crate::proto::v1 as pb;
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

/// [`change`], once per request id: a repeated id answers with the answer kept for it, read
/// afresh at every try (so a retry that raced its first attempt on another replica finds it).
pub(super) async fn once<R: prost::Message + Default>(
    state: &AppState,
    held: &Held<'_>,
    retry: Retry<'_>,
    mut f: impl FnMut(&mut Record) -> Result<R, Status>,
) -> Result<R, Status> {
    let key = retry_key(retry);
    write(state, held, key.as_deref(), decode_answer::<R>, |rec| {
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
    let answer = match retry_key(retry) {
        Some(key) => kept_answer(state, &held.slug, &record, &key).await?.map(|body| decode_answer(&body)),
        None => None,
    };
    Ok((record, answer))
}

/// A kept answer, read: INTERNAL when it cannot be.
fn decode_answer<R: prost::Message + Default>(body: &[u8]) -> Result<R, Status> {
    R::decode(body).map_err(|e| errors::internal(format!("a kept answer cannot be read: {e}")))
}

/// The answer kept for `key`: in the store's rows, or in a record written before answers had
/// rows of their own (moved to rows by its next change).
async fn kept_answer(
    state: &AppState,
    slug: &str,
    record: &Record,
    key: &str,
) -> Result<Option<Vec<u8>>, Status> {
    if let Some(body) = record.unwritten_answer(key) {
        return Ok(Some(body.to_vec()));
    }
    state.host.tournament_records().answer(slug, key).await.map_err(errors::host)
}

/// A tournament's events numbered `from` on: the store's rows, and those of a record written
/// before events had rows of their own.
pub(super) async fn events(
    state: &AppState,
    slug: &str,
    from: u64,
) -> Result<Vec<pb::WatchTournamentResponse>, Status> {
    let (record, _) = load(state, slug).await?;
    let rows = state.host.tournament_records().events(slug, from).await.map_err(errors::host)?;
    let mut events = Vec::with_capacity(rows.len());
    for (number, body) in rows {
        let event =
            <pb::WatchTournamentResponse as prost::Message>::decode(body.as_slice()).map_err(|e| {
                errors::internal(format!("tournament {slug}'s event {number} cannot be read: {e}"))
            })?;
        events.push(event);
    }
    events.extend(record.unwritten.into_iter().filter(|e| e.number >= from));
    events.sort_by_key(|e| e.number);
    events.dedup_by_key(|e| e.number);
    Ok(events)
}

/// A tournament and the version read: NOT_FOUND for none.
pub(super) async fn load(state: &AppState, slug: &str) -> Result<(Record, u64), Status> {
    let records = state.host.tournament_records();
    let not_found = || Status::not_found(format!("no tournament {:?}", crate::text::clip(slug)));
    let version = records.version(slug).await.map_err(errors::host)?.ok_or_else(not_found)?;
    if let Some(record) = state.tournament_cache.get(slug, version) {
        return Ok((record, version));
    }
    let stored = records.get(slug).await.map_err(errors::host)?.ok_or_else(not_found)?;
    let record = super::stored::decode(&stored)?;
    state.tournament_cache.put(slug, stored.version, record.clone());
    Ok((record, stored.version))
}

/// What writing `record` as `version` stores: its state (the parts of it that changed), with the
/// events and answers not yet written taken out of it as rows of their own.
pub(super) fn written(record: &mut Record, version: u64) -> crate::store::TournamentChange {
    use prost::Message;
    let events =
        std::mem::take(&mut record.unwritten).into_iter().map(|e| (e.number, e.encode_to_vec())).collect();
    let answers = std::mem::take(&mut record.answers).into_iter().map(|a| (a.key, a.body)).collect();
    crate::store::TournamentChange { tournament: super::stored::written(record, version), events, answers }
}

/// Read, change and write back a tournament as its next version, holding it; a race lost to
/// another replica is read again and tried again, up to [`TRIES`] times (then ABORTED).
/// Watchers hear of it.
pub(super) async fn change<R>(
    state: &AppState,
    held: &Held<'_>,
    f: impl FnMut(&mut Record) -> Result<R, Status>,
) -> Result<R, Status> {
    let no_answer = |_: &[u8]| Err(errors::internal("a change without a request id has no kept answer"));
    write(state, held, None, no_answer, f).await
}

/// [`change`], answering with the answer kept for `key` when there is one at a try.
async fn write<R>(
    state: &AppState,
    held: &Held<'_>,
    key: Option<&str>,
    decode: impl Fn(&[u8]) -> Result<R, Status>,
    mut f: impl FnMut(&mut Record) -> Result<R, Status>,
) -> Result<R, Status> {
    let slug = held.slug.as_str();
    let mut tries = 0;
    loop {
        let (mut record, version) = load(state, slug).await?;
        if let Some(key) = key
            && let Some(body) = kept_answer(state, slug, &record, key).await?
        {
            return decode(&body);
        }
        let answer = f(&mut record)?;
        match state.host.tournament_records().put(written(&mut record, version + 1)).await {
            Ok(()) => {
                state.tournament_cache.put(slug, version + 1, record);
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
    let hex = super::super::auth::hex(&digest[..16]);
    format!("tournament-{hex}")
}

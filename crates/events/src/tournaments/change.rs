//! How a tournament changes: held on this replica while it changes (`Held`, from
//! [`Events::hold`]), read from the store and written back as its next version
//! ([`Events::change`]: a race lost to another replica is read again) with the events and kept
//! answer it adds as rows of their own (`written`, [`Events::tournament_events`]), once per
//! request id ([`Events::once`], [`Events::kept`]: the answer kept as the caller's bytes, an
//! [`Answer`], opaque here), and the request ids of the game calls a tournament call makes
//! ([`derived_request_id`]). All of it is the layer's own: the services change a tournament only
//! through its commands.

use super::event::{Actor, TournamentEvent};
use super::record::{DivisionId, Record};
use crate::Events;
use crate::error::EventsError;
use crate::records::Put;
use dawgref_store::TournamentChange;
use dawgref_tournament::PlayerId;
use std::collections::HashMap;
use std::sync::Arc;

/// Tries at a change that races another replica's before it is answered ABORTED.
pub(crate) const TRIES: usize = 3;

/// A tournament held for one change at a time on this replica: every change is made through
/// one ([`Events::change`] takes it), so a replica's own calls queue rather than race, and a
/// call that reads, acts on games and then writes (StartRound, RecordResult, WithdrawPlayer)
/// sees no change of this replica's between its read and its write.
pub(crate) struct Held<'a> {
    slug: String,
    _guard: tokio::sync::MutexGuard<'a, ()>,
}

impl Held<'_> {
    /// The tournament held.
    pub(crate) fn slug(&self) -> &str {
        &self.slug
    }
}

/// A call's method and request id (empty: no retry protection).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Retry<'a> {
    pub method: &'a str,
    pub request_id: &'a str,
}

impl Retry<'_> {
    /// The key a retry's answer is kept by (None: no request id, nothing kept).
    pub(crate) fn key(self) -> Option<String> {
        (!self.request_id.is_empty()).then(|| format!("{}:{}", self.method, self.request_id))
    }
}

/// A command's answer as its caller gives it, kept for a retry of the same request id: the layer
/// keeps it as the bytes the caller writes and hands them back to the caller to read, never
/// knowing what they are (the services write their wire answer, as the host's `Answers` do).
pub trait Answer: Sized {
    /// The answer as bytes to keep.
    fn write(&self) -> Vec<u8>;
    /// The answer the bytes hold (Err: why they are not one).
    fn read(bytes: &[u8]) -> Result<Self, String>;
}

/// A kept answer, read: INTERNAL when it cannot be.
pub(crate) fn decode_answer<R: Answer>(body: &[u8]) -> Result<R, EventsError> {
    R::read(body).map_err(|e| EventsError::Internal(format!("a kept answer cannot be read: {e}")))
}

/// A tournament as read, with the version it was read at: what a call that acts on games
/// between its read and its write hands back to [`Events::once_from`], so that it is read once.
pub(crate) struct Read {
    pub record: Record,
    pub version: u64,
}

impl Events {
    /// Hold `slug` (waiting for the call that holds it).
    pub(crate) async fn hold(&self, slug: &str) -> Held<'_> {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        slug.hash(&mut h);
        let locks = &self.0.locks;
        let stripe = &locks[h.finish() as usize % locks.len()];
        Held { slug: slug.to_string(), _guard: stripe.lock().await }
    }

    /// A change once per request id: a repeated id answers with the answer kept for it, read
    /// afresh at every try (so a retry that raced its first attempt on another replica finds it).
    pub(crate) async fn once<R: Answer>(
        &self,
        held: &Held<'_>,
        retry: Retry<'_>,
        f: impl FnMut(&mut Record) -> Result<R, EventsError>,
    ) -> Result<R, EventsError> {
        self.once_from(held, retry, None, f).await
    }

    /// [`Events::once`], its first try made on `read` (the tournament as this call read it
    /// under the hold, changed already by the call: `f` is not asked of it), its next tries on
    /// the tournament read afresh.
    pub(crate) async fn once_from<R: Answer>(
        &self,
        held: &Held<'_>,
        retry: Retry<'_>,
        read: Option<(Read, R)>,
        mut f: impl FnMut(&mut Record) -> Result<R, EventsError>,
    ) -> Result<R, EventsError> {
        let key = retry.key();
        let remembered = |rec: &mut Record, answer: &R| {
            if let Some(key) = &key {
                rec.remember(key.clone(), answer.write());
            }
        };
        let first = read.map(|(mut read, answer)| {
            remembered(&mut read.record, &answer);
            (read, answer)
        });
        self.write(held, key.as_deref(), decode_answer::<R>, first, |rec| {
            let answer = f(rec)?;
            remembered(rec, &answer);
            Ok(answer)
        })
        .await
    }

    /// The tournament as read under the hold, and the answer kept for a retried request (read
    /// before a call acts on games).
    pub(crate) async fn kept<R: Answer>(
        &self,
        held: &Held<'_>,
        retry: Retry<'_>,
    ) -> Result<(Read, Option<Result<R, EventsError>>), EventsError> {
        let (record, version) = self.load(&held.slug).await?;
        let answer = match retry.key() {
            Some(key) => self.kept_answer(&held.slug, &record, &key).await?.map(|body| decode_answer(&body)),
            None => None,
        };
        Ok((Read { record, version }, answer))
    }

    /// The answer kept for `key`: in the store's rows, or in a record written before answers had
    /// rows of their own (moved to rows by its next change).
    pub(crate) async fn kept_answer(
        &self,
        slug: &str,
        record: &Record,
        key: &str,
    ) -> Result<Option<Vec<u8>>, EventsError> {
        Ok(self.kept_answers(slug, record, vec![key.to_string()]).await?.remove(key))
    }

    /// [`Events::kept_answer`] for many keys at once (one read of the store), by key: those kept.
    pub(crate) async fn kept_answers(
        &self,
        slug: &str,
        record: &Record,
        keys: Vec<String>,
    ) -> Result<HashMap<String, Vec<u8>>, EventsError> {
        let (unwritten, asked): (Vec<String>, Vec<String>) =
            keys.into_iter().partition(|key| record.unwritten_answer(key).is_some());
        let mut kept = match asked.is_empty() {
            true => HashMap::new(),
            false => self.0.tournament_records.answers(slug, asked).await?,
        };
        for key in unwritten {
            let body = record.unwritten_answer(&key).map(<[u8]>::to_vec).unwrap_or_default();
            kept.insert(key, body);
        }
        Ok(kept)
    }

    /// A tournament's events numbered `from` on: the store's rows, and those of a record written
    /// before events had rows of their own.
    pub async fn tournament_events(
        &self,
        slug: &str,
        from: u64,
    ) -> Result<Vec<TournamentEvent>, EventsError> {
        let (record, _) = self.load(slug).await?;
        let rows = self.0.tournament_records.events(slug, from).await?;
        let mut events = Vec::with_capacity(rows.len());
        for (number, body) in rows {
            let event = <TournamentEvent as prost::Message>::decode(body.as_slice()).map_err(|e| {
                EventsError::Internal(format!("tournament {slug}'s event {number} cannot be read: {e}"))
            })?;
            events.push(event);
        }
        events.extend(record.unwritten.into_iter().filter(|e| e.number >= from));
        events.sort_by_key(|e| e.number);
        events.dedup_by_key(|e| e.number);
        Ok(events)
    }

    /// A tournament and the version read, to change: NOT_FOUND for none.
    pub async fn load(&self, slug: &str) -> Result<(Record, u64), EventsError> {
        let (record, version) = self.read(slug).await?;
        Ok((Arc::unwrap_or_clone(record), version))
    }

    /// A tournament and the version read, to look at (shared with the cache: nothing cloned):
    /// NOT_FOUND for none.
    pub async fn read(&self, slug: &str) -> Result<(Arc<Record>, u64), EventsError> {
        let records = &self.0.tournament_records;
        let not_found =
            || EventsError::NotFound(format!("no tournament {:?}", dawgref_engine::text::clip(slug)));
        let version = records.version(slug).await?.ok_or_else(not_found)?;
        if let Some(record) = self.0.cache.get(slug, version) {
            return Ok((record, version));
        }
        let _loading = self.0.cache.loading(slug).await;
        // Cached while this waited for another's read of it (or a write's): that, or a later one.
        if let Some(cached) = self.0.cache.get_since(slug, version) {
            return Ok(cached);
        }
        let stored = records.get(slug).await?.ok_or_else(not_found)?;
        let record = Arc::new(super::stored::decode(&stored)?);
        self.0.cache.put(slug, stored.version, record.clone());
        Ok((record, stored.version))
    }

    /// [`Events::read`], and the player whose token `token` is (as [`Record::player_of_token`]
    /// finds them, by one lookup in the version's index).
    #[allow(clippy::type_complexity)]
    pub async fn read_as(
        &self,
        slug: &str,
        token: &str,
    ) -> Result<(Arc<Record>, Option<(DivisionId, PlayerId, Actor)>), EventsError> {
        let (record, version) = self.read(slug).await?;
        let player = self.0.cache.player_of_token(slug, version, &record, token);
        Ok((record, player))
    }

    /// Every tournament, by slug.
    pub async fn all(&self) -> Result<Vec<Record>, EventsError> {
        let all = self.0.tournament_records.all().await?;
        all.iter().map(super::stored::decode).collect()
    }

    /// Write a new tournament as its first version: ALREADY_EXISTS when there is one by its slug.
    pub(crate) async fn create(&self, mut record: Record) -> Result<Record, EventsError> {
        let slug = record.slug.clone();
        match self.0.tournament_records.put(written(&mut record, 1)).await? {
            Put::Written => {
                self.0.cache.put(&slug, 1, record.clone());
                Ok(record)
            }
            Put::Stale => Err(EventsError::AlreadyExists(format!("a tournament {slug:?} exists already"))),
        }
    }

    /// Read, change and write back a tournament as its next version, holding it; a race lost to
    /// another replica is read again and tried again, up to [`TRIES`] times (then ABORTED).
    /// Watchers hear of it.
    pub(crate) async fn change<R>(
        &self,
        held: &Held<'_>,
        f: impl FnMut(&mut Record) -> Result<R, EventsError>,
    ) -> Result<R, EventsError> {
        let no_answer =
            |_: &[u8]| Err(EventsError::Internal("a change without a request id has no kept answer".into()));
        self.write(held, None, no_answer, None, f).await
    }

    /// [`Events::change`], answering with the answer kept for `key` when there is one at a try;
    /// the first try on `first` when given (changed already, `f` not asked of it).
    async fn write<R>(
        &self,
        held: &Held<'_>,
        key: Option<&str>,
        decode: impl Fn(&[u8]) -> Result<R, EventsError>,
        mut first: Option<(Read, R)>,
        mut f: impl FnMut(&mut Record) -> Result<R, EventsError>,
    ) -> Result<R, EventsError> {
        let slug = held.slug.as_str();
        let records = &self.0.tournament_records;
        let mut tries = 0;
        loop {
            let (mut record, version, answer) = match first.take() {
                Some((read, answer)) => (read.record, read.version, answer),
                None => {
                    let (mut record, version) = self.load(slug).await?;
                    if let Some(key) = key
                        && let Some(body) = self.kept_answer(slug, &record, key).await?
                    {
                        return decode(&body);
                    }
                    let answer = f(&mut record)?;
                    (record, version, answer)
                }
            };
            match records.put(written(&mut record, version + 1)).await? {
                Put::Written => {
                    self.0.cache.put(slug, version + 1, record);
                    let _ = self.0.changes.send(slug.to_string());
                    return Ok(answer);
                }
                Put::Stale if tries + 1 < TRIES => tries += 1,
                Put::Stale => {
                    return Err(EventsError::Aborted(format!(
                        "tournament {slug:?} changed at the same moment; call again"
                    )));
                }
            }
        }
    }
}

/// What writing `record` as `version` stores: its state (the parts of it that changed), with the
/// events and answers not yet written taken out of it as rows of their own.
pub(crate) fn written(record: &mut Record, version: u64) -> TournamentChange {
    use prost::Message;
    record.by.clear();
    let events =
        std::mem::take(&mut record.unwritten).into_iter().map(|e| (e.number, e.encode_to_vec())).collect();
    let answers = std::mem::take(&mut record.answers).into_iter().map(|a| (a.key, a.body)).collect();
    let reviews = std::mem::take(&mut record.reviews);
    TournamentChange { tournament: super::stored::written(record, version), events, answers, reviews }
}

/// A request id for the game call a tournament call makes, drawn from the tournament call's own
/// (so its retry is the game call's retry); empty for a call without one.
pub fn derived_request_id(slug: &str, parts: &[&str]) -> String {
    use sha2::{Digest, Sha256};
    if parts.last().is_none_or(|id| id.is_empty()) {
        return String::new();
    }
    let digest = Sha256::digest(format!("{slug}\n{}", parts.join("\n")));
    let hex = dawgref_host::hex(&digest[..16]);
    format!("tournament-{hex}")
}

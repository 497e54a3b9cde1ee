//! Every broadcast this replica knows, as last read or written, and the one question every door
//! of a game asks of them: how long a spectator's view of a game is held back
//! ([`Registry::delay_ms`]). Exact on one server (every change is made here); among replicas
//! read again from the store every [`REFRESH`], so a broadcast made on another replica holds
//! here within a second.

use crate::host::{BroadcastRecords, HostError};
use crate::proto::v1 as pb;
use crate::store::StoredBroadcast;
use prost::Message;
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// How often a replica reads the broadcasts again.
pub(crate) const REFRESH: Duration = Duration::from_secs(1);

/// A broadcast as kept: its settings and the version they were written as.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) version: u64,
    pub(crate) broadcast: pb::Broadcast,
    /// Its labels, sorted: the games covered carry every one.
    pub(crate) labels: Vec<(String, String)>,
}

impl Kept {
    fn of(stored: &StoredBroadcast) -> Result<Kept, HostError> {
        let broadcast = pb::Broadcast::decode(stored.body.as_slice())
            .map_err(|e| HostError::Internal(format!("broadcast {:?} cannot be read: {e}", stored.slug)))?;
        Ok(Kept::new(stored.version, broadcast))
    }

    pub(crate) fn new(version: u64, broadcast: pb::Broadcast) -> Kept {
        let mut labels: Vec<(String, String)> =
            broadcast.labels.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        labels.sort();
        Kept { version, broadcast, labels }
    }

    pub(crate) fn is_on(&self) -> bool {
        self.broadcast.ended_unix_ms == 0
    }

    /// Whether a game with these labels is one of this broadcast's.
    pub(crate) fn covers(&self, labels: &[(String, String)]) -> bool {
        self.labels.iter().all(|l| labels.contains(l))
    }

    pub(crate) fn stored(&self) -> StoredBroadcast {
        StoredBroadcast {
            slug: self.broadcast.slug.clone(),
            version: self.version,
            body: self.broadcast.encode_to_vec(),
        }
    }
}

#[derive(Default)]
pub(crate) struct Registry {
    all: RwLock<Arc<BTreeMap<String, Kept>>>,
}

impl Registry {
    fn read(&self) -> Arc<BTreeMap<String, Kept>> {
        self.all.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub(crate) fn get(&self, slug: &str) -> Option<Kept> {
        self.read().get(slug).cloned()
    }

    /// Whether the broadcast shows every rack now (read without a copy: every stream asks it of
    /// every message it sends).
    pub(crate) fn reveals(&self, slug: &str) -> bool {
        self.all.read().unwrap_or_else(|e| e.into_inner()).get(slug).is_some_and(|k| k.broadcast.reveal_racks)
    }

    pub(crate) fn all(&self) -> Vec<Kept> {
        self.read().values().cloned().collect()
    }

    /// How long a spectator's view of a game with these labels is held back: the longest delay
    /// of the broadcasts on that cover it (0: none).
    pub(crate) fn delay_ms(&self, labels: &[(String, String)]) -> u64 {
        let all = self.read();
        all.values()
            .filter(|k| k.is_on() && k.covers(labels))
            .map(|k| u64::from(k.broadcast.delay_seconds) * 1000)
            .max()
            .unwrap_or(0)
    }

    /// Note a broadcast as written (a later version than the one held only).
    pub(crate) fn note(&self, kept: Kept) {
        let mut all = self.all.write().unwrap_or_else(|e| e.into_inner());
        if all.get(&kept.broadcast.slug).is_some_and(|k| k.version >= kept.version) {
            return;
        }
        Arc::make_mut(&mut all).insert(kept.broadcast.slug.clone(), kept);
    }

    /// Read every broadcast from the store again.
    pub(crate) async fn load(&self, records: &BroadcastRecords) -> Result<(), HostError> {
        for stored in records.all().await? {
            match Kept::of(&stored) {
                Ok(kept) => self.note(kept),
                Err(e) => tracing::error!(slug = %stored.slug, error = %e, "a broadcast could not be read"),
            }
        }
        Ok(())
    }
}

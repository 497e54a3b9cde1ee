//! The broadcasts' records, for the service that runs them: each broadcast's settings read and
//! written whole against the version read. The host keeps the store; [`BroadcastRecords`] is the
//! door to this part of it (what a record means is the service's: the host keeps bytes).

use crate::error::HostError;
use dawgref_store::{GameStore, StoreError, StoredBroadcast};
use std::sync::Arc;

#[derive(Clone)]
pub struct BroadcastRecords {
    pub(crate) store: Arc<dyn GameStore>,
}

impl BroadcastRecords {
    /// Write `broadcast` as its version: [`HostError::BroadcastStale`] (and nothing written) when
    /// another writer got there first.
    pub async fn put(&self, broadcast: StoredBroadcast) -> Result<(), HostError> {
        let slug = broadcast.slug.clone();
        match self.store.put_broadcast(broadcast).wait().await {
            Ok(()) => Ok(()),
            Err(StoreError::BroadcastStale(_)) => Err(HostError::BroadcastStale(slug)),
            Err(e) => Err(HostError::store("writing a broadcast", e)),
        }
    }

    /// Every broadcast, by slug.
    pub async fn all(&self) -> Result<Vec<StoredBroadcast>, HostError> {
        self.store.broadcasts().await.map_err(|e| HostError::store("listing broadcasts", e))
    }
}

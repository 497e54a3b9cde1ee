//! The tournaments' records, for the service that runs them: read, written whole against the
//! version read, listed. The host keeps the store; [`TournamentRecords`] is the door to this
//! part of it (what a record means is the service's: the host keeps bytes).

use crate::error::HostError;
use dawgref_store::{GameStore, StoreError, StoredTournament};
use std::sync::Arc;

#[derive(Clone)]
pub struct TournamentRecords {
    pub(crate) store: Arc<dyn GameStore>,
}

impl TournamentRecords {
    /// A tournament at its latest version.
    pub async fn get(&self, slug: &str) -> Result<Option<StoredTournament>, HostError> {
        self.store.tournament(slug.to_string()).await.map_err(|e| HostError::store("reading a tournament", e))
    }

    /// Write `record` as its version: [`HostError::Stale`] when another writer got there first.
    pub async fn put(&self, record: StoredTournament) -> Result<(), HostError> {
        let slug = record.slug.clone();
        match self.store.put_tournament(record).wait().await {
            Ok(()) => Ok(()),
            Err(StoreError::Stale(_)) => Err(HostError::Stale(slug)),
            Err(e) => Err(HostError::store("writing a tournament", e)),
        }
    }

    /// Every tournament, by slug.
    pub async fn all(&self) -> Result<Vec<StoredTournament>, HostError> {
        self.store.tournaments().await.map_err(|e| HostError::store("listing tournaments", e))
    }
}

//! The tournaments' records, for the service that runs them: each state read whole and written
//! against the version read (its body and the parts it changed), with the events and answers a
//! version adds written beside it as rows of their own; listed. The host keeps the store; [`TournamentRecords`] is the door to this
//! part of it (what a record means is the service's: the host keeps bytes).

use crate::error::HostError;
use dawgref_store::{GameStore, StoreError, StoredTournament, TournamentChange};
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

    /// A tournament's latest version, without its state.
    pub async fn version(&self, slug: &str) -> Result<Option<u64>, HostError> {
        (self.store.tournament_version(slug.to_string()).await)
            .map_err(|e| HostError::store("reading a tournament's version", e))
    }

    /// Write `change` as its tournament's version: [`HostError::Stale`] (and nothing written)
    /// when another writer got there first.
    pub async fn put(&self, change: TournamentChange) -> Result<(), HostError> {
        let slug = change.tournament.slug.clone();
        match self.store.put_tournament(change).wait().await {
            Ok(()) => Ok(()),
            Err(StoreError::Stale(_)) => Err(HostError::Stale(slug)),
            Err(e) => Err(HostError::store("writing a tournament", e)),
        }
    }

    /// A tournament's events numbered `from` on.
    pub async fn events(&self, slug: &str, from: u64) -> Result<Vec<(u64, Vec<u8>)>, HostError> {
        (self.store.tournament_events(slug.to_string(), from).await)
            .map_err(|e| HostError::store("reading a tournament's events", e))
    }

    /// The answer kept for a request key, if it still is.
    pub async fn answer(&self, slug: &str, key: &str) -> Result<Option<Vec<u8>>, HostError> {
        (self.store.tournament_answer(slug.to_string(), key.to_string()).await)
            .map_err(|e| HostError::store("reading a kept answer", e))
    }

    /// Every tournament, by slug.
    pub async fn all(&self) -> Result<Vec<StoredTournament>, HostError> {
        self.store.tournaments().await.map_err(|e| HostError::store("listing tournaments", e))
    }
}

//! The layer's doors to its aggregates in the store: the tournaments' records (each state read
//! whole and written against the version read, with the events and answers a version adds as
//! rows of their own) and the broadcasts' (each written whole against its version). The store
//! keeps bytes; what they mean is the layer's (`tournaments::stored`, `broadcasts`). A write that
//! another writer's version beat is [`Put::Stale`], for the caller to read again.

use crate::error::EventsError;
use dawgref_host::HostError;
use dawgref_store::{
    BroadcastStore, StoreError, StoredBroadcast, StoredTournament, TournamentChange, TournamentStore,
};
use std::collections::HashMap;
use std::sync::Arc;

/// What a write against a version did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Put {
    /// It landed.
    Written,
    /// Another writer's version was there first: nothing was written.
    Stale,
}

/// A store's failure, as the host names every store failure (its status is the host's).
fn failed(what: &str, e: StoreError) -> EventsError {
    EventsError::Host(HostError::store(what, e))
}

#[derive(Clone)]
pub(crate) struct TournamentRecords {
    store: Arc<dyn TournamentStore>,
    /// Told when a change that asks for reviews lands: this replica's reviewer looks at once.
    pub(crate) reviews_asked: Arc<tokio::sync::Notify>,
}

impl TournamentRecords {
    pub(crate) fn new(store: Arc<dyn TournamentStore>) -> TournamentRecords {
        TournamentRecords { store, reviews_asked: Default::default() }
    }

    /// A tournament at its latest version.
    pub(crate) async fn get(&self, slug: &str) -> Result<Option<StoredTournament>, EventsError> {
        self.store.tournament(slug.to_string()).await.map_err(|e| failed("reading a tournament", e))
    }

    /// A tournament's latest version, without its state.
    pub(crate) async fn version(&self, slug: &str) -> Result<Option<u64>, EventsError> {
        (self.store.tournament_version(slug.to_string()).await)
            .map_err(|e| failed("reading a tournament's version", e))
    }

    /// Write `change` as its tournament's version.
    pub(crate) async fn put(&self, change: TournamentChange) -> Result<Put, EventsError> {
        let asks = !change.reviews.is_empty();
        match self.store.put_tournament(change).wait().await {
            Ok(()) => {
                if asks {
                    self.reviews_asked.notify_one();
                }
                Ok(Put::Written)
            }
            Err(StoreError::Stale(_)) => Ok(Put::Stale),
            Err(e) => Err(failed("writing a tournament", e)),
        }
    }

    /// A tournament's events numbered `from` on.
    pub(crate) async fn events(&self, slug: &str, from: u64) -> Result<Vec<(u64, Vec<u8>)>, EventsError> {
        (self.store.tournament_events(slug.to_string(), from).await)
            .map_err(|e| failed("reading a tournament's events", e))
    }

    /// The answers kept for request keys, by key: those still kept.
    pub(crate) async fn answers(
        &self,
        slug: &str,
        keys: Vec<String>,
    ) -> Result<HashMap<String, Vec<u8>>, EventsError> {
        (self.store.tournament_answers(slug.to_string(), keys).await)
            .map_err(|e| failed("reading kept answers", e))
    }

    /// Every tournament, by slug.
    pub(crate) async fn all(&self) -> Result<Vec<StoredTournament>, EventsError> {
        self.store.tournaments().await.map_err(|e| failed("listing tournaments", e))
    }
}

#[derive(Clone)]
pub(crate) struct BroadcastRecords {
    store: Arc<dyn BroadcastStore>,
}

impl BroadcastRecords {
    pub(crate) fn new(store: Arc<dyn BroadcastStore>) -> BroadcastRecords {
        BroadcastRecords { store }
    }

    /// Write `broadcast` as its version.
    pub(crate) async fn put(&self, broadcast: StoredBroadcast) -> Result<Put, EventsError> {
        match self.store.put_broadcast(broadcast).wait().await {
            Ok(()) => Ok(Put::Written),
            Err(StoreError::BroadcastStale(_)) => Ok(Put::Stale),
            Err(e) => Err(failed("writing a broadcast", e)),
        }
    }

    /// Every broadcast, by slug.
    pub(crate) async fn all(&self) -> Result<Vec<StoredBroadcast>, EventsError> {
        self.store.broadcasts().await.map_err(|e| failed("listing broadcasts", e))
    }
}

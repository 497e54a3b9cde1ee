//! A replica's cache of tournaments: what a crowd of readers costs the store when the version
//! they ask for is not cached yet (another replica's write, or this one's between its commit and
//! its record cached).

use crate::fakes::*;
use dawgref_events::Events;
use dawgref_store::{MemoryStore, Pending, Reading, StoredTournament, TournamentChange, TournamentStore};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::task::JoinSet;

/// The in-memory store, counting its reads of a whole tournament, each answered after the
/// others asking have asked (a read of a real store takes a while).
struct Counted {
    inner: Arc<MemoryStore>,
    whole_reads: AtomicUsize,
}

impl TournamentStore for Counted {
    fn put_tournament(&self, change: TournamentChange) -> Pending {
        self.inner.put_tournament(change)
    }
    fn tournament_events(&self, slug: String, from: u64) -> Reading<'_, Vec<(u64, Vec<u8>)>> {
        self.inner.tournament_events(slug, from)
    }
    fn tournament_answers(&self, slug: String, keys: Vec<String>) -> Reading<'_, HashMap<String, Vec<u8>>> {
        self.inner.tournament_answers(slug, keys)
    }
    fn tournament(&self, slug: String) -> Reading<'_, Option<StoredTournament>> {
        self.whole_reads.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            self.inner.tournament(slug).await
        })
    }
    fn tournament_version(&self, slug: String) -> Reading<'_, Option<u64>> {
        self.inner.tournament_version(slug)
    }
    fn tournaments(&self) -> Reading<'_, Vec<StoredTournament>> {
        self.inner.tournaments()
    }
}

/// `n` reads of tournament `slug` at once through `events`: the versions they read.
async fn read_at_once(events: &Events, slug: &str, n: usize) -> Vec<u64> {
    let mut reads = JoinSet::new();
    for _ in 0..n {
        let (events, slug) = (events.clone(), slug.to_string());
        reads.spawn(async move { events.read(&slug).await.map(|(_, version)| version) });
    }
    let mut versions = Vec::new();
    while let Some(read) = reads.join_next().await {
        versions.push(read.unwrap().unwrap());
    }
    versions
}

#[tokio::test]
async fn fifty_readers_of_a_version_not_cached_read_it_from_the_store_once() {
    let writer = Layer::new();
    writer.create("t", &[("A", &["Ann", "Bo", "Cy", "Di"], &[dawgref_tournament::Method::Manual])]).await;
    let counted = Arc::new(Counted { inner: writer.store.clone(), whole_reads: AtomicUsize::new(0) });
    let reader = Events::new(
        writer.host.clone(),
        counted.clone(),
        writer.store.clone(),
        writer.store.clone(),
        writer.store.clone(),
        Default::default(),
    );
    assert_eq!(read_at_once(&reader, "t", 50).await, [1; 50]);
    assert_eq!(counted.whole_reads.load(Ordering::SeqCst), 1, "version 1, read once");
    // Another replica's write: the next version, read once by fifty asking for it together.
    writer.set_pairings("t", "A", 1, &[(1, 2), (3, 4)]).await;
    assert_eq!(read_at_once(&reader, "t", 50).await, [2; 50]);
    assert_eq!(counted.whole_reads.load(Ordering::SeqCst), 2, "version 2, read once");
    // Cached: no read at all.
    assert_eq!(read_at_once(&reader, "t", 50).await, [2; 50]);
    assert_eq!(counted.whole_reads.load(Ordering::SeqCst), 2);
}

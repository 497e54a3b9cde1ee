//! Each replica's last read or written state of each tournament, by version, and its players
//! found by token.

use super::event::Actor;
use super::record::{DivisionId, Record};
use dawgref_host::TokenHash;
use dawgref_tournament::PlayerId;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// The state last read or written on this replica, by slug, with its version: a read that finds
/// the store's version unchanged reads and decodes nothing more (another replica's write is a
/// new version, so it is never missed).
/// Kept shared (`Arc`): a reader that only looks ([`Events::read`](crate::Events::read)) clones
/// nothing.
pub(crate) struct Cache {
    cached: std::sync::Mutex<HashMap<String, Arc<Cached>>>,
    /// A version is read and decoded by one reader at a time (a slug's lock is its hash's
    /// stripe): a thousand players asking in the moment between a write's commit and its
    /// record cached would otherwise each read and decode the tournament.
    loads: [tokio::sync::Mutex<()>; 16],
}

impl Default for Cache {
    fn default() -> Cache {
        Cache { cached: Default::default(), loads: std::array::from_fn(|_| tokio::sync::Mutex::new(())) }
    }
}

/// One version of a tournament, and its players by token hash: made at the first lookup (a
/// version never changes, so neither does its index), so a room of players each finding
/// themselves costs one hash each, not a comparison with every player's.
struct Cached {
    version: u64,
    record: Arc<Record>,
    by_token: OnceLock<HashMap<TokenHash, (DivisionId, PlayerId)>>,
}

/// Tournaments kept in the cache before it starts afresh.
const CACHED: usize = 256;

impl Cache {
    pub(crate) fn get(&self, slug: &str, version: u64) -> Option<Arc<Record>> {
        self.cached(slug, version).map(|c| c.record.clone())
    }

    /// The cached state of `slug` if it is version `version` or later, with its version.
    pub(crate) fn get_since(&self, slug: &str, version: u64) -> Option<(Arc<Record>, u64)> {
        let cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        cached.get(slug).filter(|c| c.version >= version).map(|c| (c.record.clone(), c.version))
    }

    /// Held while reading `slug` from the store to cache it.
    pub(crate) async fn loading(&self, slug: &str) -> tokio::sync::MutexGuard<'_, ()> {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        slug.hash(&mut h);
        self.loads[h.finish() as usize % self.loads.len()].lock().await
    }

    fn cached(&self, slug: &str, version: u64) -> Option<Arc<Cached>> {
        let cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        cached.get(slug).filter(|c| c.version == version).cloned()
    }

    pub(crate) fn put(&self, slug: &str, version: u64, record: impl Into<Arc<Record>>) {
        let record = record.into();
        let mut cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        if cached.len() >= CACHED && !cached.contains_key(slug) {
            cached.clear();
        }
        // Never a later version replaced by an earlier one (a read that raced a write).
        if cached.get(slug).is_none_or(|c| c.version <= version) {
            let entry = Cached { version, record, by_token: OnceLock::new() };
            cached.insert(slug.to_string(), Arc::new(entry));
        }
    }

    /// The player of `record` (version `version` of `slug`) whose token `token` is, as
    /// [`Record::player_of_token`] finds them, through the version's index while it is cached.
    /// A lookup by the token's SHA-256 tells nothing of the hashes kept by how long it takes: no
    /// one can choose a hash's bytes to come near one.
    pub(crate) fn player_of_token(
        &self,
        slug: &str,
        version: u64,
        record: &Record,
        token: &str,
    ) -> Option<(DivisionId, PlayerId, Actor)> {
        let Some(cached) = self.cached(slug, version) else { return record.player_of_token(token) };
        let by_token = cached.by_token.get_or_init(|| cached.record.players_by_token());
        let &(d, player) = by_token.get(&dawgref_host::hash(token))?;
        Some((d, player, record.player_actor(d, player)))
    }
}

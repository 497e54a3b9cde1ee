//! Each replica's last read or written state of each tournament, by version.

use super::record::Record;
use std::sync::Arc;

/// The state last read or written on this replica, by slug, with its version: a read that finds
/// the store's version unchanged reads and decodes nothing more (another replica's write is a
/// new version, so it is never missed).
#[derive(Default)]
/// Kept shared (`Arc`): a reader that only looks ([`Events::read`](crate::Events::read)) clones
/// nothing.
pub(crate) struct Cache(std::sync::Mutex<std::collections::HashMap<String, (u64, Arc<Record>)>>);

/// Tournaments kept in the cache before it starts afresh.
const CACHED: usize = 256;

impl Cache {
    pub(crate) fn get(&self, slug: &str, version: u64) -> Option<Arc<Record>> {
        let cached = self.0.lock().unwrap_or_else(|e| e.into_inner());
        cached.get(slug).filter(|(v, _)| *v == version).map(|(_, r)| r.clone())
    }

    pub(crate) fn put(&self, slug: &str, version: u64, record: impl Into<Arc<Record>>) {
        let record = record.into();
        let mut cached = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if cached.len() >= CACHED && !cached.contains_key(slug) {
            cached.clear();
        }
        // Never a later version replaced by an earlier one (a read that raced a write).
        if cached.get(slug).is_none_or(|(v, _)| *v <= version) {
            cached.insert(slug.to_string(), (version, record));
        }
    }
}

//! When each tournament result came in, as each replica last read it (`held` reads and fills
//! it).

use std::collections::HashMap;
use std::sync::Mutex;

/// A pairing: its division, round and number.
pub(super) type PairingKey = (String, u32, u32);

/// When each pairing's result last came in (unix ms), by tournament: each replica's own, read on
/// from the last event it read.
#[derive(Default)]
pub(crate) struct ResultTimes(Mutex<HashMap<String, Times>>);

#[derive(Clone, Default)]
pub(super) struct Times {
    /// The next event to read.
    pub(super) next: u64,
    pub(super) at: HashMap<PairingKey, u64>,
}

/// Tournaments whose result times a replica keeps before it starts afresh.
const KEPT: usize = 256;

impl ResultTimes {
    /// The times last read of `slug` (none yet: from its first event).
    pub(super) fn get(&self, slug: &str) -> Times {
        let kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        kept.get(slug).cloned().unwrap_or_default()
    }

    /// Keep `times` for `slug`, unless a read that got further is kept already (two reads raced).
    pub(super) fn put(&self, slug: &str, times: &Times) {
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() >= KEPT && !kept.contains_key(slug) {
            kept.clear();
        }
        if kept.get(slug).is_none_or(|k| k.next <= times.next) {
            kept.insert(slug.to_string(), times.clone());
        }
    }
}

//! Who directs which games. The root director (the token the server was started with, which
//! the services check) directs every game and makes director keys; a director key directs the
//! games whose labels include all of its own. This module owns the keys: kept in the store (a
//! token's hash, never the token) so that every replica and every restart knows them, and read
//! through a cache. On a single server the cache is exact (this process makes every change);
//! among replicas it is read again once it is older than half the lease, so a key revoked on one
//! replica is refused on every other within the lease time.

use super::error::HostError;
use super::state::TokenHash;
use dawgref_store::{DirectorKey, DirectorKeyStore, Labels};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Who acts as director on a request: the root director, or a director key by its name with
/// the labels that bound it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Director {
    /// None: the root director.
    name: Option<String>,
    labels: Labels,
}

impl Director {
    /// The root director: every game is its own.
    pub fn root() -> Director {
        Director { name: None, labels: Labels::new() }
    }

    pub fn is_root(&self) -> bool {
        self.name.is_none()
    }

    /// The key's name (None: the root director), as the game's record keeps it.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The labels every game of this director carries (none: the root's, every game).
    pub fn labels(&self) -> &Labels {
        &self.labels
    }

    /// Whether a game with these labels is this director's.
    pub fn covers(&self, labels: &[(String, String)]) -> bool {
        self.labels.iter().all(|l| labels.contains(l))
    }

    /// A game with these labels is this director's, or [`HostError::OutOfScope`].
    pub fn check_covers(&self, labels: &[(String, String)]) -> Result<(), HostError> {
        if self.covers(labels) {
            return Ok(());
        }
        Err(HostError::OutOfScope { key: self.name.clone().unwrap_or_default(), labels: self.label_text() })
    }

    /// The labels a listing asks for with this director's added: what it may see of them.
    /// None when they contradict its own (a key asked with another value): no game of its
    /// carries them.
    pub fn narrow(&self, asked: Labels) -> Option<Labels> {
        let mut labels = asked;
        for (k, v) in &self.labels {
            match labels.iter().find(|(key, _)| key == k) {
                Some((_, value)) if value != v => return None,
                Some(_) => {}
                None => labels.push((k.clone(), v.clone())),
            }
        }
        labels.sort();
        Some(labels)
    }

    /// The key's labels as `key=value, …`.
    pub fn label_text(&self) -> String {
        self.labels.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
    }
}

/// How long a miss (a token no cached key has) waits before it may read the store again: a
/// key made on another replica is found within this, and a stream of made-up tokens costs at
/// most one read this often.
const MISS_REREAD: Duration = Duration::from_secs(1);

/// The director keys, kept in the store and cached.
pub(crate) struct DirectorKeys {
    store: Arc<dyn DirectorKeyStore>,
    cache: Mutex<Cache>,
    /// One read of the store at a time: the requests that find the cache stale wait for it.
    reading: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct Cache {
    by_hash: HashMap<TokenHash, DirectorKey>,
    /// When the store was last read (None: never).
    read_at: Option<Instant>,
}

impl Cache {
    /// The key of `hash` (None: no key has it), when the cache may say: read once and (among
    /// replicas) not older than `max_age`. A miss among replicas may be a key made on another
    /// one since: it reads the store again, but at most once a [`MISS_REREAD`].
    fn answer(&self, hash: &TokenHash, max_age: Option<Duration>) -> Option<Option<DirectorKey>> {
        let age = self.read_at?.elapsed();
        if max_age.is_some_and(|m| age >= m) {
            return None;
        }
        match self.by_hash.get(hash) {
            Some(key) => Some(Some(key.clone())),
            None if max_age.is_none() || age < MISS_REREAD => Some(None),
            None => None,
        }
    }
}

fn now_unix_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

impl DirectorKeys {
    pub(crate) fn new(store: Arc<dyn DirectorKeyStore>) -> DirectorKeys {
        DirectorKeys { store, cache: Mutex::new(Cache::default()), reading: tokio::sync::Mutex::new(()) }
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Read every key from the store into the cache.
    async fn read(&self) -> Result<(), HostError> {
        let keys =
            self.store.director_keys().await.map_err(|e| HostError::store("reading the director keys", e))?;
        let mut cache = self.cache();
        cache.by_hash = keys.into_iter().map(|k| (k.token_hash, k)).collect();
        cache.read_at = Some(Instant::now());
        Ok(())
    }

    /// The director a key's token hash makes its holder: [`HostError::NotDirector`] for no key,
    /// [`HostError::KeyRevoked`] for a revoked one. `max_age`: how old the cache may be.
    pub(crate) async fn director(
        &self,
        hash: &TokenHash,
        max_age: Option<Duration>,
    ) -> Result<Director, HostError> {
        let cached = self.cache().answer(hash, max_age);
        let key = match cached {
            Some(key) => key,
            None => {
                let _one = self.reading.lock().await;
                // Another request may have read the store while this one waited.
                let cached = self.cache().answer(hash, max_age);
                match cached {
                    Some(key) => key,
                    None => {
                        self.read().await?;
                        self.cache().by_hash.get(hash).cloned()
                    }
                }
            }
        };
        let key = key.ok_or(HostError::NotDirector)?;
        if key.revoked_unix_ms.is_some() {
            return Err(HostError::KeyRevoked(key.name));
        }
        Ok(Director { name: Some(key.name), labels: key.labels })
    }

    /// Make a key: kept in the store before it is answered.
    pub(crate) async fn add(
        &self,
        name: String,
        labels: Labels,
        token_hash: TokenHash,
    ) -> Result<DirectorKey, HostError> {
        let key =
            DirectorKey { name, token_hash, labels, created_unix_ms: now_unix_ms(), revoked_unix_ms: None };
        self.store.add_director_key(key.clone()).wait().await.map_err(|e| match e {
            dawgref_store::StoreError::KeyExists(name) => HostError::KeyExists(name),
            e => HostError::store("keeping the director key", e),
        })?;
        self.cache().by_hash.insert(key.token_hash, key.clone());
        Ok(key)
    }

    /// Every key, revoked ones included, by name (read from the store: the list is exact).
    pub(crate) async fn list(&self) -> Result<Vec<DirectorKey>, HostError> {
        let _one = self.reading.lock().await;
        self.read().await?;
        let mut keys: Vec<DirectorKey> = self.cache().by_hash.values().cloned().collect();
        keys.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(keys)
    }

    /// Revoke the key named (a key revoked before keeps its first time); the key as now kept.
    pub(crate) async fn revoke(&self, name: String) -> Result<DirectorKey, HostError> {
        self.store.revoke_director_key(name.clone(), now_unix_ms()).wait().await.map_err(|e| match e {
            dawgref_store::StoreError::NoKey(name) => HostError::NoKey(name),
            e => HostError::store("revoking the director key", e),
        })?;
        self.list().await?.into_iter().find(|k| k.name == name).ok_or(HostError::NoKey(name))
    }
}

/// The host's door to the director keys: the root director alone makes, lists and revokes them.
impl crate::Host {
    /// The director a director key's token hash makes its holder (the root director's token is
    /// the services' to check): [`HostError::NotDirector`] for no key, [`HostError::KeyRevoked`]
    /// for a revoked one. Among replicas the keys are read again once half a lease old.
    pub async fn director_key(&self, hash: &TokenHash) -> Result<Director, HostError> {
        let max_age = self.ctx.cluster.get().map(|c| c.lease() / 2);
        self.ctx.directors.director(hash, max_age).await
    }

    /// Make a director key for `by` (only the root director may): kept before it is answered.
    pub async fn add_director_key(
        &self,
        by: &Director,
        name: String,
        labels: dawgref_store::Labels,
        token_hash: TokenHash,
    ) -> Result<dawgref_store::DirectorKey, HostError> {
        root_only(by)?;
        self.ctx.directors.add(name, labels, token_hash).await
    }

    /// Every director key, revoked ones included, by name (only the root director may list).
    pub async fn director_keys(&self, by: &Director) -> Result<Vec<dawgref_store::DirectorKey>, HostError> {
        root_only(by)?;
        self.ctx.directors.list().await
    }

    /// Revoke a director key (only the root director may); the key as now kept.
    pub async fn revoke_director_key(
        &self,
        by: &Director,
        name: String,
    ) -> Result<dawgref_store::DirectorKey, HostError> {
        root_only(by)?;
        self.ctx.directors.revoke(name).await
    }
}

fn root_only(by: &Director) -> Result<(), HostError> {
    if by.is_root() { Ok(()) } else { Err(HostError::RootOnly) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(k: &str, v: &str) -> (String, String) {
        (k.into(), v.into())
    }

    #[test]
    fn a_key_covers_and_lists_only_games_with_all_its_labels() {
        let key = Director { name: Some("td".into()), labels: vec![label("tournament", "spring")] };
        assert!(key.covers(&[label("round", "1"), label("tournament", "spring")]));
        assert!(!key.covers(&[label("tournament", "autumn")]));
        assert!(!key.covers(&[]));
        assert!(Director::root().covers(&[]));
        assert_eq!(
            key.narrow(vec![label("round", "1")]),
            Some(vec![label("round", "1"), label("tournament", "spring")])
        );
        assert_eq!(
            key.narrow(vec![label("tournament", "spring")]),
            Some(vec![label("tournament", "spring")])
        );
        assert_eq!(key.narrow(vec![label("tournament", "autumn")]), None);
        assert_eq!(Director::root().narrow(vec![label("a", "b")]), Some(vec![label("a", "b")]));
        assert_eq!(
            key.check_covers(&[]).unwrap_err().to_string(),
            "director key \"td\" directs only the games labelled tournament=spring"
        );
    }
}

//! The live games: each game in play held in memory, by id, with its session. Every change to
//! the map goes through [`LiveGames`], which keeps the `dawgref_games_live` gauge equal to the
//! map's size: there is one place where a game enters or leaves memory. It holds any session
//! type (the host's is `session::Session`), so it imports nothing of the session's.

use dashmap::DashMap;
use prometheus::IntGauge;
use std::sync::Arc;
use uuid::Uuid;

pub(crate) struct LiveGames<S> {
    map: DashMap<Uuid, Arc<S>>,
    gauge: IntGauge,
}

impl<S> LiveGames<S> {
    pub(crate) fn new(gauge: IntGauge) -> LiveGames<S> {
        LiveGames { map: DashMap::new(), gauge }
    }

    fn counted<T>(&self, result: T) -> T {
        self.gauge.set(self.map.len() as i64);
        result
    }

    pub(crate) fn get(&self, id: &Uuid) -> Option<Arc<S>> {
        self.map.get(id).map(|s| s.clone())
    }

    pub(crate) fn contains(&self, id: &Uuid) -> bool {
        self.map.contains_key(id)
    }

    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    /// The ids of the games whose session `keep` accepts.
    pub(crate) fn ids_where(&self, keep: impl Fn(&Uuid, &S) -> bool) -> Vec<Uuid> {
        self.map.iter().filter(|e| keep(e.key(), e.value())).map(|e| *e.key()).collect()
    }

    pub(crate) fn insert(&self, id: Uuid, session: Arc<S>) {
        self.map.insert(id, session);
        self.counted(())
    }

    /// The game's session, the one held if there is one, else `start`'s (held from now on).
    pub(crate) fn get_or_insert_with(&self, id: Uuid, start: impl FnOnce() -> Arc<S>) -> Arc<S> {
        let session = match self.map.entry(id) {
            dashmap::Entry::Occupied(e) => e.get().clone(),
            dashmap::Entry::Vacant(v) => v.insert(start()).clone(),
        };
        self.counted(session)
    }

    /// Remove the game if `held` says its session is the one meant (a game let go and loaded
    /// again has a new session, which stays); the session removed.
    pub(crate) fn remove_if(&self, id: &Uuid, held: impl FnOnce(&S) -> bool) -> Option<Arc<S>> {
        let removed = self.map.remove_if(id, |_, s| held(s)).map(|(_, s)| s);
        self.counted(removed)
    }
}

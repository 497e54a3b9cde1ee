//! The live games: each game in play held in memory, by id, with its session. Every change to
//! the map goes through [`LiveGames`], which keeps the `dawgref_games_live` gauge equal to the
//! map's size: there is one place where a game enters or leaves memory.

use crate::session::Session;
use dashmap::DashMap;
use prometheus::IntGauge;
use std::sync::Arc;
use uuid::Uuid;

pub(crate) struct LiveGames {
    map: DashMap<Uuid, Arc<Session>>,
    gauge: IntGauge,
}

impl LiveGames {
    pub(crate) fn new(gauge: IntGauge) -> LiveGames {
        LiveGames { map: DashMap::new(), gauge }
    }

    fn counted<T>(&self, result: T) -> T {
        self.gauge.set(self.map.len() as i64);
        result
    }

    pub(crate) fn get(&self, id: &Uuid) -> Option<Arc<Session>> {
        self.map.get(id).map(|s| s.clone())
    }

    pub(crate) fn contains(&self, id: &Uuid) -> bool {
        self.map.contains_key(id)
    }

    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    /// The ids of the games whose session `keep` accepts.
    pub(crate) fn ids_where(&self, keep: impl Fn(&Uuid, &Session) -> bool) -> Vec<Uuid> {
        self.map.iter().filter(|e| keep(e.key(), e.value())).map(|e| *e.key()).collect()
    }

    pub(crate) fn insert(&self, id: Uuid, session: Arc<Session>) {
        self.map.insert(id, session);
        self.counted(())
    }

    /// The game's session, the one held if there is one, else `start`'s (held from now on).
    pub(crate) fn get_or_insert_with(&self, id: Uuid, start: impl FnOnce() -> Arc<Session>) -> Arc<Session> {
        let session = match self.map.entry(id) {
            dashmap::Entry::Occupied(e) => e.get().clone(),
            dashmap::Entry::Vacant(v) => v.insert(start()).clone(),
        };
        self.counted(session)
    }

    pub(crate) fn remove(&self, id: &Uuid) -> Option<Arc<Session>> {
        let removed = self.map.remove(id).map(|(_, s)| s);
        self.counted(removed)
    }

    /// Remove the game if its session is the `instance` given (a game let go and loaded again
    /// has a new session, which stays); whether it was.
    pub(crate) fn remove_instance(&self, id: &Uuid, instance: u64) -> bool {
        let removed = self.map.remove_if(id, |_, s| s.instance() == instance).is_some();
        self.counted(removed)
    }
}

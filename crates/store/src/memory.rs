//! The store that keeps games only as long as the process lives: for `--data-dir :memory:`,
//! for tests that restart a server's state inside one process, and as the baseline the
//! durable store is measured against.

use super::review_jobs::{FinishedReview, MemoryJobs, ReviewJob, ReviewJobStore, ReviewOrder};
use super::{
    BroadcastStore, DirectorKey, DirectorKeyStore, GamePage, GameQuery, GameStore, Labels, LobbyChange,
    LobbyStore, Pending, Reading, ReviewStore, StoreError, StoredBroadcast, StoredGame, StoredLobby,
    StoredTournament, TOURNAMENT_ANSWERS_KEPT, TournamentChange, TournamentStore,
};
use std::collections::HashMap;
use std::sync::Mutex;
use uuid::Uuid;

#[derive(Default)]
pub struct MemoryStore {
    games: Mutex<HashMap<Uuid, StoredGame>>,
    labels: Mutex<HashMap<Uuid, Labels>>,
    reviews: Mutex<HashMap<(Uuid, String), Vec<u8>>>,
    /// Director keys by name.
    keys: Mutex<std::collections::BTreeMap<String, DirectorKey>>,
    /// Tournaments by slug, with their events and kept answers.
    tournaments: Mutex<std::collections::BTreeMap<String, Tournament>>,
    /// Broadcasts by slug.
    broadcasts: Mutex<std::collections::BTreeMap<String, StoredBroadcast>>,
    /// The bots' lobby.
    lobby: Mutex<Lobby>,
    /// The review jobs (taken after `tournaments` when both are held).
    review_jobs: Mutex<MemoryJobs>,
}

/// The lobby's version, its parts by key and each bot's events by number.
#[derive(Default)]
struct Lobby {
    version: u64,
    tag: u64,
    parts: std::collections::BTreeMap<String, Vec<u8>>,
    events: std::collections::BTreeMap<(String, u64), Vec<u8>>,
}

/// A tournament's state, its events by number and its answers by key (with the version that
/// kept each).
struct Tournament {
    /// Its version and body (its parts kept apart, by key).
    state: StoredTournament,
    parts: std::collections::BTreeMap<String, Vec<u8>>,
    events: std::collections::BTreeMap<u64, Vec<u8>>,
    answers: HashMap<String, (u64, Vec<u8>)>,
}

impl Tournament {
    /// The state as a read gives it: with every part.
    fn read(&self) -> StoredTournament {
        StoredTournament { parts: self.parts.clone().into_iter().collect(), ..self.state.clone() }
    }
}

impl MemoryStore {
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    fn jobs(&self) -> std::sync::MutexGuard<'_, MemoryJobs> {
        self.review_jobs.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn games(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, StoredGame>> {
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Take a game out of the store.
    pub fn remove(&self, id: Uuid) -> Option<StoredGame> {
        self.games().remove(&id)
    }
}

impl GameStore for MemoryStore {
    fn create(
        &self,
        id: Uuid,
        _created: u64,
        record: Vec<u8>,
        first: Vec<u8>,
        finished: bool,
        labels: Labels,
    ) -> Pending {
        let mut games = self.games();
        if games.contains_key(&id) {
            return Pending::ready(Err(StoreError::Conflict { game: id, seq: 0 }));
        }
        games.insert(id, StoredGame { id, record, log: vec![(0, first)], finished, quarantined: None });
        self.labels.lock().unwrap_or_else(|e| e.into_inner()).insert(id, labels);
        Pending::ready(Ok(()))
    }

    fn append(&self, id: Uuid, seq: u64, row: Vec<u8>, finished: bool) -> Pending {
        let mut games = self.games();
        let Some(game) = games.get_mut(&id) else { return Pending::ready(Err(StoreError::NoGame(id))) };
        if game.log.iter().any(|(s, _)| *s == seq) {
            return Pending::ready(Err(StoreError::Conflict { game: id, seq }));
        }
        game.log.push((seq, row));
        game.finished |= finished;
        Pending::ready(Ok(()))
    }

    fn quarantine(&self, id: Uuid, reason: &str) -> Pending {
        let mut games = self.games();
        let Some(game) = games.get_mut(&id) else { return Pending::ready(Err(StoreError::NoGame(id))) };
        game.quarantined = Some(reason.to_string());
        Pending::ready(Ok(()))
    }

    fn unfinished(&self) -> Reading<'_, Vec<StoredGame>> {
        let games =
            self.games().values().filter(|g| !g.finished && g.quarantined.is_none()).cloned().collect();
        Box::pin(std::future::ready(Ok(games)))
    }

    fn load(&self, id: Uuid) -> Reading<'_, Option<StoredGame>> {
        Box::pin(std::future::ready(Ok(self.games().get(&id).cloned())))
    }

    fn games(&self, query: GameQuery) -> Reading<'_, GamePage> {
        let games = self.games();
        let labels = self.labels.lock().unwrap_or_else(|e| e.into_inner());
        let none = Labels::new();
        let mut ids: Vec<Uuid> = games
            .values()
            .filter(|g| query.wants(labels.get(&g.id).unwrap_or(&none), g.finished, g.quarantined.is_some()))
            .map(|g| g.id)
            .collect();
        ids.sort();
        let total = ids.len() as u64;
        let ids =
            ids.into_iter().filter(|id| query.after.is_none_or(|a| *id > a)).take(query.limit).collect();
        Box::pin(std::future::ready(Ok(GamePage { ids, total })))
    }
}

impl ReviewStore for MemoryStore {
    fn save_review(&self, id: Uuid, key: String, body: Vec<u8>) -> Pending {
        if !self.games().contains_key(&id) {
            return Pending::ready(Err(StoreError::NoGame(id)));
        }
        self.reviews.lock().unwrap_or_else(|e| e.into_inner()).insert((id, key), body);
        Pending::ready(Ok(()))
    }

    fn review(&self, id: Uuid, key: String) -> Reading<'_, Option<Vec<u8>>> {
        let body = self.reviews.lock().unwrap_or_else(|e| e.into_inner()).get(&(id, key)).cloned();
        Box::pin(std::future::ready(Ok(body)))
    }
}

impl DirectorKeyStore for MemoryStore {
    fn add_director_key(&self, key: DirectorKey) -> Pending {
        let mut keys = self.keys.lock().unwrap_or_else(|e| e.into_inner());
        if keys.contains_key(&key.name) {
            return Pending::ready(Err(StoreError::KeyExists(key.name)));
        }
        keys.insert(key.name.clone(), key);
        Pending::ready(Ok(()))
    }

    fn revoke_director_key(&self, name: String, at_unix_ms: u64) -> Pending {
        let mut keys = self.keys.lock().unwrap_or_else(|e| e.into_inner());
        let Some(key) = keys.get_mut(&name) else { return Pending::ready(Err(StoreError::NoKey(name))) };
        key.revoked_unix_ms.get_or_insert(at_unix_ms);
        Pending::ready(Ok(()))
    }

    fn director_keys(&self) -> Reading<'_, Vec<DirectorKey>> {
        let keys = self.keys.lock().unwrap_or_else(|e| e.into_inner()).values().cloned().collect();
        Box::pin(std::future::ready(Ok(keys)))
    }
}

impl TournamentStore for MemoryStore {
    fn put_tournament(&self, change: TournamentChange) -> Pending {
        let mut all = self.tournaments.lock().unwrap_or_else(|e| e.into_inner());
        let TournamentChange { tournament, events, answers, reviews } = change;
        let version = tournament.version;
        let stored = all.get(&tournament.slug).map_or(0, |t| t.state.version);
        if stored + 1 != version {
            return Pending::ready(Err(StoreError::Stale(tournament.slug)));
        }
        let t = all.entry(tournament.slug.clone()).or_insert_with(|| Tournament {
            state: tournament.clone(),
            parts: Default::default(),
            events: Default::default(),
            answers: Default::default(),
        });
        let StoredTournament { parts, .. } = &tournament;
        t.parts.extend(parts.iter().cloned());
        t.state = StoredTournament { parts: Vec::new(), ..tournament };
        t.events.extend(events);
        t.answers.extend(answers.into_iter().map(|(key, body)| (key, (version, body))));
        t.answers.retain(|_, (kept, _)| *kept + TOURNAMENT_ANSWERS_KEPT > version);
        let mut jobs = self.jobs();
        for order in &reviews {
            jobs.order(&t.state.slug, order);
        }
        Pending::ready(Ok(()))
    }

    fn tournament_events(&self, slug: String, from: u64) -> Reading<'_, Vec<(u64, Vec<u8>)>> {
        let all = self.tournaments.lock().unwrap_or_else(|e| e.into_inner());
        let events = all
            .get(&slug)
            .map_or_else(Vec::new, |t| t.events.range(from..).map(|(n, body)| (*n, body.clone())).collect());
        Box::pin(std::future::ready(Ok(events)))
    }

    fn tournament_answers(&self, slug: String, keys: Vec<String>) -> Reading<'_, HashMap<String, Vec<u8>>> {
        let all = self.tournaments.lock().unwrap_or_else(|e| e.into_inner());
        let kept = all.get(&slug).map_or_else(HashMap::new, |t| {
            keys.into_iter().filter_map(|key| Some((key.clone(), t.answers.get(&key)?.1.clone()))).collect()
        });
        Box::pin(std::future::ready(Ok(kept)))
    }

    fn tournament(&self, slug: String) -> Reading<'_, Option<StoredTournament>> {
        let t = self.tournaments.lock().unwrap_or_else(|e| e.into_inner()).get(&slug).map(Tournament::read);
        Box::pin(std::future::ready(Ok(t)))
    }

    fn tournament_version(&self, slug: String) -> Reading<'_, Option<u64>> {
        let v =
            self.tournaments.lock().unwrap_or_else(|e| e.into_inner()).get(&slug).map(|t| t.state.version);
        Box::pin(std::future::ready(Ok(v)))
    }

    fn tournaments(&self) -> Reading<'_, Vec<StoredTournament>> {
        let all = self
            .tournaments
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .map(Tournament::read)
            .collect();
        Box::pin(std::future::ready(Ok(all)))
    }
}

impl ReviewJobStore for MemoryStore {
    fn claim_review_job(&self, owner: Uuid) -> Reading<'_, Option<ReviewJob>> {
        let job = self.jobs().claim(owner);
        Box::pin(std::future::ready(Ok(job)))
    }

    fn finish_review_job(&self, finished: FinishedReview) -> Pending {
        let kept = match self.jobs().finish(&finished) {
            Ok(kept) => kept,
            Err(e) => return Pending::ready(Err(e)),
        };
        if let Some((key, body)) = kept {
            self.reviews.lock().unwrap_or_else(|e| e.into_inner()).insert((finished.game, key), body);
        }
        Pending::ready(Ok(()))
    }

    fn review_jobs(&self, slug: String) -> Reading<'_, Vec<ReviewJob>> {
        let jobs = self.jobs().of(&slug);
        Box::pin(std::future::ready(Ok(jobs)))
    }

    fn order_reviews(&self, slug: String, orders: Vec<ReviewOrder>) -> Pending {
        let mut jobs = self.jobs();
        for order in &orders {
            jobs.order(&slug, order);
        }
        Pending::ready(Ok(()))
    }
}

impl BroadcastStore for MemoryStore {
    fn put_broadcast(&self, broadcast: StoredBroadcast) -> Pending {
        let mut all = self.broadcasts.lock().unwrap_or_else(|e| e.into_inner());
        let stored = all.get(&broadcast.slug).map_or(0, |b| b.version);
        if stored + 1 != broadcast.version {
            return Pending::ready(Err(StoreError::BroadcastStale(broadcast.slug)));
        }
        all.insert(broadcast.slug.clone(), broadcast);
        Pending::ready(Ok(()))
    }

    fn broadcasts(&self) -> Reading<'_, Vec<StoredBroadcast>> {
        let all = self.broadcasts.lock().unwrap_or_else(|e| e.into_inner()).values().cloned().collect();
        Box::pin(std::future::ready(Ok(all)))
    }
}

impl LobbyStore for MemoryStore {
    fn put_lobby(&self, change: LobbyChange) -> Pending {
        let mut lobby = self.lobby.lock().unwrap_or_else(|e| e.into_inner());
        if lobby.version + 1 != change.version || (lobby.version > 0 && lobby.tag != change.base_tag) {
            return Pending::ready(Err(StoreError::LobbyStale));
        }
        lobby.version = change.version;
        lobby.tag = change.tag;
        for (key, part) in change.parts {
            match part {
                Some(body) => lobby.parts.insert(key, body),
                None => lobby.parts.remove(&key),
            };
        }
        for (bot, number, body) in change.events {
            lobby.events.entry((bot, number)).or_insert(body);
        }
        Pending::ready(Ok(()))
    }

    fn lobby(&self) -> Reading<'_, StoredLobby> {
        let lobby = self.lobby.lock().unwrap_or_else(|e| e.into_inner());
        let stored = StoredLobby {
            version: lobby.version,
            tag: lobby.tag,
            parts: lobby.parts.clone().into_iter().collect(),
        };
        Box::pin(std::future::ready(Ok(stored)))
    }

    fn lobby_version(&self) -> Reading<'_, u64> {
        let version = self.lobby.lock().unwrap_or_else(|e| e.into_inner()).version;
        Box::pin(std::future::ready(Ok(version)))
    }

    fn bot_events(&self, bot: String, from: u64) -> Reading<'_, Vec<(u64, Vec<u8>)>> {
        let lobby = self.lobby.lock().unwrap_or_else(|e| e.into_inner());
        let events = lobby
            .events
            .range((bot.clone(), from)..=(bot, u64::MAX))
            .map(|((_, n), body)| (*n, body.clone()))
            .collect();
        Box::pin(std::future::ready(Ok(events)))
    }
}

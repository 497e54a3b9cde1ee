//! The lobby's state and how it changes: [`LobbyState`] (every bot, challenge, rating and game in
//! play, each a part of its own in the store, JSON), read whole at its version and cached; a
//! change made on a [`Draft`] of it, which notes the parts it touched and the events it adds, and
//! written as the next version under this replica's one lock. A write another replica's version
//! beat is made again on the state read afresh.

use super::{BotAccount, BotEvent, BotEventKind, Challenge, LobbyError, LobbyGame, Rating, now_unix_ms};
use dawgref_host::HostError;
use dawgref_store::{LobbyChange, LobbyStore, StoreError, StoredLobby};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

/// The lobby at one version.
#[derive(Clone, Debug, Default)]
pub struct LobbyState {
    pub version: u64,
    pub bots: BTreeMap<String, BotAccount>,
    pub challenges: BTreeMap<String, Challenge>,
    pub games: BTreeMap<String, LobbyGame>,
    /// By `player key/ruleset/time class`.
    pub ratings: BTreeMap<String, Rating>,
    /// Each bot online, by the replica its stream is open on, until when (that replica renews
    /// it while the stream is open, and lets its own go when the last one closes).
    pub present: BTreeMap<String, BTreeMap<String, u64>>,
    /// The names people are rated under, each claimed by the hash of the token of its first
    /// rated challenge.
    pub people: BTreeMap<String, dawgref_host::TokenHash>,
}

const BOT: &str = "bot/";
const CHALLENGE: &str = "challenge/";
const GAME: &str = "game/";
const RATING: &str = "rating/";
const PRESENT: &str = "online/";
const PERSON: &str = "person/";

fn unreadable(key: &str, e: serde_json::Error) -> HostError {
    HostError::Internal(format!("the lobby's part {key:?} cannot be read: {e}"))
}

impl LobbyState {
    fn of(stored: StoredLobby) -> Result<LobbyState, HostError> {
        let mut state = LobbyState { version: stored.version, ..LobbyState::default() };
        for (key, body) in stored.parts {
            let read = |e| unreadable(&key, e);
            if let Some(name) = key.strip_prefix(BOT) {
                state.bots.insert(name.to_string(), serde_json::from_slice(&body).map_err(read)?);
            } else if let Some(id) = key.strip_prefix(CHALLENGE) {
                state.challenges.insert(id.to_string(), serde_json::from_slice(&body).map_err(read)?);
            } else if let Some(id) = key.strip_prefix(GAME) {
                state.games.insert(id.to_string(), serde_json::from_slice(&body).map_err(read)?);
            } else if let Some(at) = key.strip_prefix(RATING) {
                state.ratings.insert(at.to_string(), serde_json::from_slice(&body).map_err(read)?);
            } else if let Some((bot, replica)) = key.strip_prefix(PRESENT).and_then(|k| k.rsplit_once('/')) {
                let until = serde_json::from_slice(&body).map_err(read)?;
                state.present.entry(bot.to_string()).or_default().insert(replica.to_string(), until);
            } else if let Some(name) = key.strip_prefix(PERSON) {
                state.people.insert(name.to_string(), serde_json::from_slice(&body).map_err(read)?);
            }
        }
        Ok(state)
    }

    /// The bot whose account token hashes to `hash` (found by the hash, as the director keys
    /// are: the hash of a 128-bit random token tells nothing of the token).
    pub fn bot_by_token(&self, hash: &dawgref_host::TokenHash) -> Option<&BotAccount> {
        self.bots.values().find(|b| &b.token_hash == hash)
    }

    /// A rating's key: whose (a challenger's rating key), in which ruleset and time class.
    pub(crate) fn rating_key(player: &str, ruleset: &str, class: super::TimeClass) -> String {
        format!("{player}/{ruleset}/{}", class.name())
    }
}

/// A change in the making: the state as it will be, the parts touched and the events added.
pub(crate) struct Draft {
    pub(crate) state: LobbyState,
    touched: BTreeSet<String>,
    events: Vec<(String, BotEvent)>,
    pub(crate) now_ms: u64,
}

impl Draft {
    pub(crate) fn put_bot(&mut self, bot: BotAccount) {
        self.touched.insert(format!("{BOT}{}", bot.name));
        self.state.bots.insert(bot.name.clone(), bot);
    }

    pub(crate) fn put_challenge(&mut self, challenge: Challenge) {
        self.touched.insert(format!("{CHALLENGE}{}", challenge.id));
        self.state.challenges.insert(challenge.id.clone(), challenge);
    }

    pub(crate) fn remove_challenge(&mut self, id: &str) {
        self.touched.insert(format!("{CHALLENGE}{id}"));
        self.state.challenges.remove(id);
    }

    pub(crate) fn put_game(&mut self, game: LobbyGame) {
        self.touched.insert(format!("{GAME}{}", game.id));
        self.state.games.insert(game.id.clone(), game);
    }

    pub(crate) fn remove_game(&mut self, id: &str) {
        self.touched.insert(format!("{GAME}{id}"));
        self.state.games.remove(id);
    }

    pub(crate) fn put_rating(&mut self, key: String, rating: Rating) {
        self.touched.insert(format!("{RATING}{key}"));
        self.state.ratings.insert(key, rating);
    }

    /// `bot` online on `replica` until `until_ms` (0: no longer).
    pub(crate) fn present(&mut self, bot: &str, replica: &str, until_ms: u64) {
        self.touched.insert(format!("{PRESENT}{bot}/{replica}"));
        let on = self.state.present.entry(bot.to_string()).or_default();
        if until_ms == 0 {
            on.remove(replica);
        } else {
            on.insert(replica.to_string(), until_ms);
        }
        if on.is_empty() {
            self.state.present.remove(bot);
        }
    }

    /// The name `name` rated under the token hashing to `hash` from now on.
    pub(crate) fn claim(&mut self, name: &str, hash: dawgref_host::TokenHash) {
        self.touched.insert(format!("{PERSON}{name}"));
        self.state.people.insert(name.to_string(), hash);
    }

    /// An event on `bot`'s stream, numbered after its last (a bot not registered has none).
    pub(crate) fn tell(&mut self, bot: &str, kind: BotEventKind) {
        let Some(mut account) = self.state.bots.get(bot).cloned() else { return };
        account.last_event += 1;
        let event = BotEvent { number: account.last_event, at_unix_ms: self.now_ms, kind };
        self.events.push((bot.to_string(), event));
        self.put_bot(account);
    }

    fn change(&self) -> Result<LobbyChange, HostError> {
        let mut parts = Vec::with_capacity(self.touched.len());
        for key in &self.touched {
            let body = if let Some(name) = key.strip_prefix(BOT) {
                self.state.bots.get(name).map(serde_json::to_vec)
            } else if let Some(id) = key.strip_prefix(CHALLENGE) {
                self.state.challenges.get(id).map(serde_json::to_vec)
            } else if let Some(id) = key.strip_prefix(GAME) {
                self.state.games.get(id).map(serde_json::to_vec)
            } else if let Some((bot, replica)) = key.strip_prefix(PRESENT).and_then(|k| k.rsplit_once('/')) {
                self.state.present.get(bot).and_then(|on| on.get(replica)).map(serde_json::to_vec)
            } else if let Some(name) = key.strip_prefix(PERSON) {
                self.state.people.get(name).map(serde_json::to_vec)
            } else {
                key.strip_prefix(RATING).and_then(|at| self.state.ratings.get(at)).map(serde_json::to_vec)
            };
            let body = body.transpose().map_err(|e| HostError::Internal(format!("writing {key:?}: {e}")))?;
            parts.push((key.clone(), body));
        }
        let mut events = Vec::with_capacity(self.events.len());
        for (bot, event) in &self.events {
            let body =
                serde_json::to_vec(event).map_err(|e| HostError::Internal(format!("an event: {e}")))?;
            events.push((bot.clone(), event.number, body));
        }
        Ok(LobbyChange { version: self.state.version + 1, parts, events })
    }
}

/// How long a bot's presence lasts unless renewed, and how long before it runs out the replica
/// holding its stream renews it: a bot whose replica died is offline within this.
pub(crate) const PRESENCE_MS: u64 = 30_000;
pub(crate) const RENEW_BEFORE_MS: u64 = 20_000;

/// How many times a change is made again on a state another replica wrote first.
const RETRIES: usize = 16;

/// The lobby's door to the store, its cached state and its one writer on this replica.
pub(crate) struct Lobby {
    store: Arc<dyn LobbyStore>,
    cached: Mutex<Arc<LobbyState>>,
    writing: tokio::sync::Mutex<()>,
    /// The bots whose streams have new events here.
    pub(crate) told: tokio::sync::broadcast::Sender<String>,
    pub(crate) limits: super::LobbyLimits,
    /// Open streams by bot, on this replica: a bot with one is online (and its presence in the
    /// lobby renewed from here, under this replica's name).
    pub(crate) streams: Mutex<BTreeMap<String, usize>>,
    /// This replica's name in the bots' presence: drawn when it starts.
    pub(crate) replica: String,
}

fn failed(what: &str, e: StoreError) -> HostError {
    HostError::store(what, e)
}

impl Lobby {
    pub(crate) fn new(store: Arc<dyn LobbyStore>, limits: super::LobbyLimits) -> Lobby {
        Lobby {
            store,
            cached: Mutex::new(Arc::new(LobbyState::default())),
            writing: tokio::sync::Mutex::new(()),
            told: tokio::sync::broadcast::channel(4096).0,
            limits,
            streams: Mutex::new(BTreeMap::new()),
            replica: uuid::Uuid::new_v4().to_string(),
        }
    }

    fn cache(&self) -> Arc<LobbyState> {
        self.cached.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The lobby at its latest version (read again only when the store has a newer one).
    pub(crate) async fn read(&self) -> Result<Arc<LobbyState>, HostError> {
        let cached = self.cache();
        let version =
            self.store.lobby_version().await.map_err(|e| failed("reading the lobby's version", e))?;
        if version == cached.version {
            return Ok(cached);
        }
        let stored = self.store.lobby().await.map_err(|e| failed("reading the lobby", e))?;
        let state = Arc::new(LobbyState::of(stored)?);
        let mut kept = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        if state.version >= kept.version {
            *kept = state.clone();
        }
        Ok(state)
    }

    /// Make a change: `make` on a draft of the latest state (again on a fresher one if another
    /// replica wrote first), written as the next version; its answer once durable. A refusal
    /// writes nothing; a change that touches nothing writes nothing.
    pub(crate) async fn change<T>(
        &self,
        make: impl FnMut(&mut Draft) -> Result<T, LobbyError>,
    ) -> Result<T, LobbyError> {
        let held = self.hold().await;
        self.change_held(&held, make).await
    }

    /// This replica's one writer's turn: a command that does more than change the lobby (makes
    /// a game) holds it throughout.
    pub(crate) async fn hold(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.writing.lock().await
    }

    /// [`Lobby::change`], under a hold the caller has.
    pub(crate) async fn change_held<T>(
        &self,
        _held: &tokio::sync::MutexGuard<'_, ()>,
        mut make: impl FnMut(&mut Draft) -> Result<T, LobbyError>,
    ) -> Result<T, LobbyError> {
        for _ in 0..RETRIES {
            let state = self.read().await?;
            let mut draft = Draft {
                state: (*state).clone(),
                touched: BTreeSet::new(),
                events: Vec::new(),
                now_ms: now_unix_ms(),
            };
            let answer = make(&mut draft)?;
            if draft.touched.is_empty() {
                return Ok(answer);
            }
            let change = draft.change()?;
            match self.store.put_lobby(change).wait().await {
                Ok(()) => {
                    draft.state.version += 1;
                    *self.cached.lock().unwrap_or_else(|e| e.into_inner()) = Arc::new(draft.state);
                    // Each bot whose account changed (a new event, a suspension, a new token)
                    // wakes its streams here.
                    for bot in draft.touched.iter().filter_map(|k| k.strip_prefix(BOT)) {
                        let _ = self.told.send(bot.to_string());
                    }
                    return Ok(answer);
                }
                Err(StoreError::LobbyStale) => continue,
                Err(e) => return Err(failed("writing the lobby", e).into()),
            }
        }
        let raced = StoreError::Unavailable("the lobby changed too often on other replicas meanwhile".into());
        Err(failed("writing the lobby", raced).into())
    }

    /// A bot's events numbered `from` on, as kept.
    pub(crate) async fn events(&self, bot: &str, from: u64) -> Result<Vec<BotEvent>, HostError> {
        let rows = self
            .store
            .bot_events(bot.to_string(), from)
            .await
            .map_err(|e| failed("reading a bot's events", e))?;
        rows.into_iter()
            .map(|(n, body)| {
                serde_json::from_slice(&body)
                    .map_err(|e| HostError::Internal(format!("bot {bot:?}'s event {n} cannot be read: {e}")))
            })
            .collect()
    }

    /// Whether `bot`'s stream is open here.
    pub(crate) fn streams_here(&self, bot: &str) -> bool {
        self.streams.lock().unwrap_or_else(|e| e.into_inner()).get(bot).is_some_and(|n| *n > 0)
    }

    /// The bots whose streams are open here.
    pub(crate) fn streaming_here(&self) -> Vec<String> {
        self.streams.lock().unwrap_or_else(|e| e.into_inner()).keys().cloned().collect()
    }

    /// Whether `bot` is online at `now_ms`: its stream open here, or its presence renewed by
    /// another replica not yet run out.
    pub(crate) fn is_online(&self, state: &LobbyState, bot: &str, now_ms: u64) -> bool {
        self.streams_here(bot)
            || state.present.get(bot).is_some_and(|on| on.values().any(|until| *until > now_ms))
    }
}

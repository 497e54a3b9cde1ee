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
    /// The tag of the write that made this version: the next is made on it.
    pub tag: u64,
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
        let mut state = LobbyState { version: stored.version, tag: stored.tag, ..LobbyState::default() };
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

/// A rating's key as its parts: whose, the ruleset, the time class (read from the right: a
/// person's name may hold a '/', a ruleset's or class's name never does).
pub(super) fn rating_key_parts(key: &str) -> Option<(&str, &str, &str)> {
    let mut parts = key.rsplitn(3, '/');
    let class = parts.next()?;
    let ruleset = parts.next()?;
    Some((parts.next()?, ruleset, class))
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

    /// A challenge closed now as `state`, told to both sides' bots.
    pub(crate) fn close(&mut self, mut c: Challenge, state: super::ChallengeState) -> Challenge {
        c.state = state;
        c.closed_unix_ms = self.now_ms;
        self.put_challenge(c.clone());
        self.tell(&c.to, BotEventKind::ChallengeClosed(c.clone()));
        if let super::Challenger::Bot(from) = &c.from {
            self.tell(from, BotEventKind::ChallengeClosed(c.clone()));
        }
        c
    }

    /// An event on `bot`'s stream, numbered after its last (a bot not registered has none).
    pub(crate) fn tell(&mut self, bot: &str, kind: BotEventKind) {
        let Some(mut account) = self.state.bots.get(bot).cloned() else { return };
        account.last_event += 1;
        let event = BotEvent { number: account.last_event, at_unix_ms: self.now_ms, kind };
        self.events.push((bot.to_string(), event));
        self.put_bot(account);
    }

    /// What the streams here of each bot the change touched hear once it is written: its new
    /// events, and its account as the change left it (an event touches its bot's account too).
    fn told(&self) -> BTreeMap<String, Told> {
        let mut told: BTreeMap<String, Told> = (self.touched.iter())
            .filter_map(|key| key.strip_prefix(BOT))
            .map(|bot| {
                let account = self.state.bots.get(bot).map(|b| (b.token_hash, b.suspended));
                (bot.to_string(), Told { events: Vec::new(), account })
            })
            .collect();
        for (bot, event) in &self.events {
            if let Some(told) = told.get_mut(bot) {
                told.events.push(event.clone());
            }
        }
        told
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
        // A tag of its own: random, so two writers never draw the same.
        let tag = u64::from_le_bytes(uuid::Uuid::new_v4().as_bytes()[..8].try_into().unwrap_or_default());
        Ok(LobbyChange { version: self.state.version + 1, tag, base_tag: self.state.tag, parts, events })
    }
}

/// How long a bot's presence lasts unless renewed, and how long before it runs out the replica
/// holding its stream renews it: a bot whose replica died is offline within this.
pub(crate) const PRESENCE_MS: u64 = 30_000;
pub(crate) const RENEW_BEFORE_MS: u64 = 20_000;

/// How many times a change is made again on a state another replica wrote first.
const RETRIES: usize = 16;

/// What a bot's streams here hear of a change written that touched its account: its new events
/// in order (numbered on from its last), and its token hash and whether it is suspended as the
/// change left them (another replica's rotation or suspension included): a stream opened with
/// another token, or of a bot suspended, serves none of the events and looks at the account.
#[derive(Clone, Debug)]
pub(crate) struct Told {
    pub(crate) events: Vec<BotEvent>,
    pub(crate) account: Option<(dawgref_host::TokenHash, bool)>,
}

/// A bot's streams open on this replica: how many, and the channel each change written here
/// tells them by (a bot's own, so a change wakes its streams only).
pub(crate) struct Streaming {
    pub(crate) open: usize,
    pub(crate) told: tokio::sync::broadcast::Sender<Arc<Told>>,
}

/// How many changes a bot's stream may fall behind before it reads the store instead.
const TOLD_KEPT: usize = 32;

/// The lobby's door to the store, its cached state and its one writer on this replica.
pub(crate) struct Lobby {
    store: Arc<dyn LobbyStore>,
    cached: Mutex<Arc<LobbyState>>,
    /// The one writer's turn on this replica, and the state last handed to the store while its
    /// write is in flight (None: none is; the store's is the latest).
    writing: tokio::sync::Mutex<Option<Arc<LobbyState>>>,
    pub(crate) limits: super::LobbyLimits,
    /// Open streams by bot, on this replica: a bot with one is online (and its presence in the
    /// lobby renewed from here, under this replica's name).
    streams: Mutex<BTreeMap<String, Streaming>>,
    /// This replica's name in the bots' presence: drawn when it starts.
    pub(crate) replica: String,
    /// One token rotation at a time on this replica (a retry never interleaves with the call it
    /// retries).
    pub(crate) rotating: tokio::sync::Mutex<()>,
}

fn failed(what: &str, e: StoreError) -> HostError {
    HostError::store(what, e)
}

impl Lobby {
    pub(crate) fn new(store: Arc<dyn LobbyStore>, limits: super::LobbyLimits) -> Lobby {
        Lobby {
            store,
            cached: Mutex::new(Arc::new(LobbyState::default())),
            writing: tokio::sync::Mutex::new(None),
            limits,
            streams: Mutex::new(BTreeMap::new()),
            replica: uuid::Uuid::new_v4().to_string(),
            rotating: tokio::sync::Mutex::new(()),
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

    /// Make a change: `make` on a draft of the latest state, written as the next version; its
    /// answer once durable. A refusal writes nothing; a change that touches nothing writes
    /// nothing.
    ///
    /// Pipelined: the one writer's turn lasts while the change is made and handed to the store,
    /// not while it is made durable, so changes that arrive together are committed together (the
    /// store's group commit). The next change is made on the state handed over (the `head`); a
    /// write that fails fails every one made on it after (its version is never there), and each
    /// is made again on the state read afresh, as is a write another replica's version beat.
    pub(crate) async fn change<T>(
        &self,
        mut make: impl FnMut(&mut Draft) -> Result<T, LobbyError>,
    ) -> Result<T, LobbyError> {
        for _ in 0..RETRIES {
            let mut head = self.writing.lock().await;
            let state = match head.as_ref() {
                Some(state) => state.clone(),
                None => self.read().await?,
            };
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
            let (version, tag) = (change.version, change.tag);
            let written = self.store.put_lobby(change);
            draft.state.version = version;
            draft.state.tag = tag;
            let told = draft.told();
            let state = Arc::new(draft.state);
            *head = Some(state.clone());
            drop(head);
            let outcome = written.wait().await;
            let mut head = self.writing.lock().await;
            if head.as_ref().is_some_and(|h| h.version <= version || outcome.is_err()) {
                // Nothing after it in flight, or it failed: the next change reads the store.
                *head = None;
            }
            drop(head);
            match outcome {
                Ok(()) => {
                    let mut cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
                    if state.version > cached.version {
                        *cached = state;
                    }
                    drop(cached);
                    let streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
                    for (bot, told) in told {
                        if let Some(open) = streams.get(&bot) {
                            let _ = open.told.send(Arc::new(told));
                        }
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

    /// A stream of `bot`'s opened here: what it will hear of every change written from now on.
    pub(crate) fn opened(&self, bot: &str) -> tokio::sync::broadcast::Receiver<Arc<Told>> {
        let mut streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        let streaming = streams
            .entry(bot.to_string())
            .or_insert_with(|| Streaming { open: 0, told: tokio::sync::broadcast::channel(TOLD_KEPT).0 });
        streaming.open += 1;
        streaming.told.subscribe()
    }

    /// A stream of `bot`'s closed here: whether it was its last.
    pub(crate) fn closed(&self, bot: &str) -> bool {
        let mut streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        let Some(streaming) = streams.get_mut(bot) else { return false };
        streaming.open -= 1;
        let last = streaming.open == 0;
        if last {
            streams.remove(bot);
        }
        last
    }

    /// Whether `bot`'s stream is open here.
    pub(crate) fn streams_here(&self, bot: &str) -> bool {
        self.streams.lock().unwrap_or_else(|e| e.into_inner()).get(bot).is_some_and(|s| s.open > 0)
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

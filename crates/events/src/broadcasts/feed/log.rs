//! The feeds' logs, by broadcast: what each feed released, in order, in both forms as the wire
//! encoded them, and the channel its live streams hear. The map and the log only: the feeds'
//! work is the feed's.
//!
//! The log holds each fact of a game once, whoever offers it: the game as made, each event (in
//! order of its number: one offered again, or behind the last, is dropped), each turn's analysis,
//! the standings its result brought, and the game's end. So a game whose follower starts again
//! (the game moved between replicas, its owner was lost) may offer what went out before, and no
//! stream sees it twice.

use super::Encoded;
use prost::bytes::Bytes;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;
use uuid::Uuid;

/// Items a stream may fall behind the feed before it reads the rest from the log.
const BACKLOG: usize = 1024;

/// One thing a feed released.
pub(super) struct Item {
    pub(super) seq: u64,
    pub(super) game: Uuid,
    pub(super) said: Said,
}

pub(super) enum Said {
    /// A message, in both forms, each encoded once for every stream that sends it.
    Message(Encoded),
    /// Everything of the game is out: its end and its last analysis.
    Done,
}

/// Which fact of a game a message tells (what the log takes once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fact {
    /// The game as made.
    Made,
    /// Its event of this number.
    Event(u64),
    /// The analysis of the turn its event of this number took.
    Analysis(u64),
    /// Its division's standings with its result in.
    Standings,
    /// Everything of it is out.
    Done,
}

/// What of one game the log holds.
#[derive(Default)]
struct Shown {
    made: bool,
    /// The next event number the log takes.
    next_event: u64,
    analysed: HashSet<u64>,
    standings: bool,
    done: bool,
}

struct Log {
    items: Vec<Arc<Item>>,
    games: HashMap<Uuid, Shown>,
    /// None once the feed has ended: streams end when they have read the log.
    tx: Option<broadcast::Sender<Arc<Item>>>,
}

impl Log {
    /// Whether the log takes `fact` about `game`: the first time it hears it.
    fn takes(&mut self, game: Uuid, fact: Fact) -> bool {
        let shown = self.games.entry(game).or_default();
        match fact {
            Fact::Done => !std::mem::replace(&mut shown.done, true),
            Fact::Made => !std::mem::replace(&mut shown.made, true),
            Fact::Event(number) if number >= shown.next_event => {
                shown.next_event = number + 1;
                true
            }
            Fact::Event(_) => false,
            Fact::Analysis(event) => shown.analysed.insert(event),
            Fact::Standings => !std::mem::replace(&mut shown.standings, true),
        }
    }
}

pub(super) struct Feed {
    pub(super) slug: String,
    log: Mutex<Log>,
    /// Raised when the broadcast changed here (ended, say): the feed looks at once.
    pub(super) wake: tokio::sync::Notify,
}

impl Feed {
    /// Out with `fact` about `game`, in both forms, unless the log has it already.
    pub(super) fn publish(&self, game: Uuid, fact: Fact, message: Encoded) {
        self.say(game, fact, Said::Message(message));
    }

    /// Out with `fact` about `game`, the same in both forms (a division's standings): kept once.
    pub(super) fn publish_one(&self, game: Uuid, fact: Fact, message: Bytes) {
        self.say(game, fact, Said::Message(Encoded { hidden: message.clone(), revealed: message }));
    }

    /// Everything of `game` is out.
    pub(super) fn done(&self, game: Uuid) {
        self.say(game, Fact::Done, Said::Done);
    }

    fn say(&self, game: Uuid, fact: Fact, said: Said) {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        if !log.takes(game, fact) {
            return;
        }
        let item = Arc::new(Item { seq: log.items.len() as u64, game, said });
        log.items.push(item.clone());
        if let Some(tx) = &log.tx {
            let _ = tx.send(item);
        }
    }

    /// What of `game` is out: whether the game as made is, and the number of the next event.
    pub(super) fn shown(&self, game: Uuid) -> (bool, usize) {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.games.get(&game).map_or((false, 0), |s| (s.made, s.next_event as usize))
    }

    /// Whether the analysis of `game`'s event `number` is out.
    pub(super) fn analysed(&self, game: Uuid, number: usize) -> bool {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.games.get(&game).is_some_and(|s| s.analysed.contains(&(number as u64)))
    }

    /// The log from `from` on, and the live items after it (None: the feed has ended).
    pub(super) fn read(
        &self,
        from: u64,
        subscribe: bool,
    ) -> (Vec<Arc<Item>>, Option<broadcast::Receiver<Arc<Item>>>) {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        let items = log.items.get(from as usize..).map_or_else(Vec::new, <[_]>::to_vec);
        (items, if subscribe { log.tx.as_ref().map(|tx| tx.subscribe()) } else { None })
    }

    pub(super) fn close(&self) {
        self.log.lock().unwrap_or_else(|e| e.into_inner()).tx = None;
    }
}

/// The feeds of this replica, by broadcast.
#[derive(Default)]
pub(crate) struct Feeds {
    all: Mutex<HashMap<String, Arc<Feed>>>,
}

impl Feeds {
    /// The broadcast's feed, and whether it was made now (then its work is the caller's to start).
    pub(super) fn get_or_make(&self, slug: &str) -> (Arc<Feed>, bool) {
        let mut all = self.all.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(feed) = all.get(slug) {
            return (feed.clone(), false);
        }
        let feed = Arc::new(Feed {
            slug: slug.to_string(),
            log: Mutex::new(Log {
                items: Vec::new(),
                games: HashMap::new(),
                tx: Some(broadcast::channel(BACKLOG).0),
            }),
            wake: Default::default(),
        });
        all.insert(slug.to_string(), feed.clone());
        (feed, true)
    }

    /// The feed of an ended broadcast (or a server stopping) is forgotten: the streams reading
    /// it finish what it released, and nothing else keeps it.
    pub(super) fn forget(&self, feed: &Arc<Feed>) {
        let mut all = self.all.lock().unwrap_or_else(|e| e.into_inner());
        if all.get(&feed.slug).is_some_and(|kept| Arc::ptr_eq(kept, feed)) {
            all.remove(&feed.slug);
        }
    }

    pub(super) fn get(&self, slug: &str) -> Option<Arc<Feed>> {
        self.all.lock().unwrap_or_else(|e| e.into_inner()).get(slug).cloned()
    }

    /// A broadcast changed here: its feed looks again at once.
    pub(crate) fn changed(&self, slug: &str) {
        if let Some(feed) = self.get(slug) {
            feed.wake.notify_one();
        }
    }
}

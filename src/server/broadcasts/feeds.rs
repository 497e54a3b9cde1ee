//! The feeds' logs, by broadcast: what each feed released, in order, in both forms, and the
//! channel its live streams hear. The map and the log only: the feeds' work is `feed`'s (this file
//! knows nothing of the server's state, so the state can hold it).

use crate::proto::v1 as pb;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;
use uuid::Uuid;

/// Items a stream may fall behind the feed before it reads the rest from the log.
const BACKLOG: usize = 1024;

/// One thing a feed released, in both forms.
pub(super) struct Item {
    pub(super) seq: u64,
    pub(super) game: Uuid,
    /// As a watcher sees it.
    pub(super) hidden: pb::WatchBroadcastResponse,
    /// With every seat's rack and exchanged tiles.
    pub(super) revealed: pb::WatchBroadcastResponse,
}

struct Log {
    items: Vec<Arc<Item>>,
    /// None once the feed has ended: streams end when they have read the log.
    tx: Option<broadcast::Sender<Arc<Item>>>,
}

pub(crate) struct Feed {
    pub(super) slug: String,
    log: Mutex<Log>,
    /// Raised when the broadcast changed here (ended, say): the feed looks at once.
    pub(super) wake: tokio::sync::Notify,
}

impl Feed {
    pub(super) fn publish(
        &self,
        game: Uuid,
        hidden: pb::WatchBroadcastResponse,
        revealed: pb::WatchBroadcastResponse,
    ) {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        let item = Arc::new(Item { seq: log.items.len() as u64, game, hidden, revealed });
        log.items.push(item.clone());
        if let Some(tx) = &log.tx {
            let _ = tx.send(item);
        }
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
            log: Mutex::new(Log { items: Vec::new(), tx: Some(broadcast::channel(BACKLOG).0) }),
            wake: Default::default(),
        });
        all.insert(slug.to_string(), feed.clone());
        (feed, true)
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

/// One message of a stream about game `id`, for what happened at `unix_ms` (racks added by the
/// caller when it shows them).
pub(super) fn message(
    id: Uuid,
    unix_ms: u64,
    item: pb::watch_broadcast_response::Item,
) -> pb::WatchBroadcastResponse {
    pb::WatchBroadcastResponse {
        game_id: id.to_string(),
        happened_unix_ms: unix_ms,
        item: Some(item),
        racks: Vec::new(),
    }
}

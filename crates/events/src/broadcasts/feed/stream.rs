//! A WatchBroadcast stream: its place in its feed's log, read from the log's start and then
//! live, each message as the wire encoded it once for every stream.

use super::FeedWire;
use super::log::{Feed, Item, Said};
use crate::{Events, EventsError, Kept};
use dawgref_host::{HostError, Viewer, sleep_until, stopped};
use prost::bytes::Bytes;
use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use tokio::sync::{broadcast, watch};
use uuid::Uuid;

/// WatchBroadcast's messages as the feed's wire encoded them, once for every stream.
pub type EncodedStream =
    Pin<Box<dyn tokio_stream::Stream<Item = Result<Bytes, EventsError>> + Send + 'static>>;

impl Events {
    /// Whether `kept` covers game `id`, out for a spectator: NOT_FOUND at once for a game it does
    /// not cover (another broadcast's, or none) or one made less than the delay ago (no game to a
    /// spectator yet: [`Events::seen`]), with the same words for each, rather than a stream that
    /// stays silent until its deadline.
    pub async fn check_covers(&self, kept: &Kept, id: Uuid) -> Result<(), EventsError> {
        let covered = match self.0.host.snapshot_at(&id.to_string()).await {
            Ok((snapshot, now_ms)) => {
                let labels = snapshot.labels();
                kept.covers(labels) && self.is_out(labels, Viewer::Watcher, now_ms)
            }
            Err(HostError::NoGame(_)) => false,
            Err(e) => return Err(e.into()),
        };
        if !covered {
            let slug = dawgref_engine::text::clip(&kept.broadcast.slug);
            return Err(EventsError::NotFound(format!(
                "broadcast {slug:?} has not shown game {id} (not out yet, or not one it covers)"
            )));
        }
        Ok(())
    }

    /// A stream of the broadcast `kept` (only `game`'s items, when given): the feed's log from
    /// its start, then live; it ends when the broadcast ends, the server stops or `deadline`
    /// passes. The feed is started, with `wire`, on the broadcast's first stream here.
    ///
    /// To another replica (`peer`, with `game`: its feed follows a game this replica holds), each
    /// message goes in both forms, the watcher's then the revealed, and the game's end is told by
    /// the wire's [`FeedWire::done_marker`], after which the stream ends.
    pub fn watch_broadcast(
        &self,
        kept: &Kept,
        game: Option<Uuid>,
        peer: bool,
        deadline: Option<tokio::time::Instant>,
        wire: &Arc<dyn FeedWire>,
    ) -> EncodedStream {
        if !kept.is_on() {
            // Ended: nothing more comes, on any replica.
            return Box::pin(tokio_stream::empty());
        }
        let feed = self.feed(&kept.broadcast.slug, wire);
        let (joined, rx) = feed.join(game, true);
        let reader = Reader {
            shutdown: self.0.host.shutdown(),
            events: self.clone(),
            wire: wire.clone(),
            feed,
            game,
            peer,
            deadline,
            joined: joined.items.into(),
            items: VecDeque::new(),
            rx,
            next: joined.next,
            out: VecDeque::new(),
            finished: false,
        };
        // The stream reads the log itself, as the response is sent: no task and no queue of its
        // own between the feed and the connection (a thousand streams are a thousand fewer hops).
        Box::pin(futures_util::stream::unfold(reader, |mut r| async move {
            let message = r.next_message().await?;
            Some((message, r))
        }))
    }
}

/// One stream's place in its feed's log (see [`watch`]).
struct Reader {
    events: Events,
    wire: Arc<dyn FeedWire>,
    feed: Arc<Feed>,
    game: Option<Uuid>,
    peer: bool,
    deadline: Option<tokio::time::Instant>,
    shutdown: watch::Receiver<bool>,
    /// Sent first (each game's position and what followed it), not yet sent.
    joined: VecDeque<Arc<Item>>,
    /// Heard live or read from the log's recent items, not yet sent.
    items: VecDeque<Arc<Item>>,
    /// The feed's live items (None: the feed has ended; the stream ends with the log).
    rx: Option<broadcast::Receiver<Arc<Item>>>,
    /// The next item of the log this stream takes.
    next: u64,
    /// Messages made, not yet sent (a replica's two forms), as the feed encoded them.
    out: VecDeque<Result<Bytes, EventsError>>,
    finished: bool,
}

impl Reader {
    async fn next_message(&mut self) -> Option<Result<Bytes, EventsError>> {
        loop {
            if let Some(m) = self.out.pop_front() {
                return Some(m);
            }
            if self.finished {
                return None;
            }
            if let Some(item) = self.joined.pop_front() {
                self.say(&item);
                continue;
            }
            if let Some(item) = self.items.pop_front() {
                self.take(&item);
                continue;
            }
            let live = self.rx.as_mut()?;
            tokio::select! {
                received = live.recv() => match received {
                    Ok(item) => self.items.push_back(item),
                    // Fallen behind: the rest from the log.
                    Err(broadcast::error::RecvError::Lagged(_)) => self.catch_up(),
                    Err(broadcast::error::RecvError::Closed) => {
                        self.catch_up();
                        self.rx = None;
                    }
                },
                () = stopped(&mut self.shutdown) => {
                    self.out.push_back(Err(HostError::ShuttingDown.into()));
                    self.finished = true;
                }
                () = sleep_until(self.deadline) => {
                    let passed = "the call's deadline passed: watch again";
                    self.out.push_back(Err(EventsError::DeadlinePassed(passed.into())));
                    self.finished = true;
                }
            }
        }
    }

    /// What the stream missed from the log's recent items; fallen further behind than it keeps,
    /// each game's position again and what followed it, as one who joins now.
    fn catch_up(&mut self) {
        match self.feed.recent_from(self.next) {
            Some(items) => self.items = items.into(),
            None => {
                let (joined, _) = self.feed.join(self.game, false);
                (self.joined, self.items, self.next) = (joined.items.into(), VecDeque::new(), joined.next);
            }
        }
    }

    /// The messages a live `item` makes for this stream (once: items are numbered).
    fn take(&mut self, item: &Item) {
        if item.seq < self.next {
            return;
        }
        self.next = item.seq + 1;
        if self.game.is_some_and(|g| g != item.game) {
            return;
        }
        self.say(item);
    }

    /// The messages `item` makes for this stream.
    fn say(&mut self, item: &Item) {
        match (&item.said, self.peer) {
            // To a replica: both forms, the one as a watcher sees it first.
            (Said::Message(m), true) => {
                self.out.push_back(Ok(m.hidden.clone()));
                self.out.push_back(Ok(m.revealed.clone()));
            }
            (Said::Message(m), false) => {
                // Racks as the broadcast says now: turned off, never sent again.
                let reveal = self.events.broadcasts().reveals(&self.feed.slug);
                self.out.push_back(Ok(if reveal { m.revealed.clone() } else { m.hidden.clone() }));
            }
            (Said::Done, true) => {
                self.out.push_back(Ok(self.wire.done_marker(item.game)));
                self.finished = true;
            }
            (Said::Done, false) => {}
        }
    }
}

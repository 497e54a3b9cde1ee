//! The feeds' logs, by broadcast: what each feed released, in both forms as the wire encoded
//! them, and the channel its live streams hear. The map and the logs only: the feeds' work is
//! the feed's.
//!
//! The log holds each fact of a game once, whoever offers it: the game's position (as made, or as
//! it stood before a later event), each event (in order of its number: one offered again, or
//! behind the last, is dropped), each turn's analysis, the standings its result brought, and the
//! game's end. So a game whose follower starts again (the game moved between replicas, its owner
//! was lost) may offer what went out before, and no stream sees it twice.
//!
//! It is bounded: a stream that joins is sent each game's latest position and what followed it
//! (a position made again every [`REPLAY`] items where the game is held, not the game's every
//! move; a replica relaying the game keeps what it relayed, a game's length at most), the
//! streams already reading are sent each item as it comes, the last [`RECENT`] items are kept for
//! a stream that fell behind, and of the games over only the last [`DONE_KEPT`] are kept.

use super::Encoded;
use prost::bytes::Bytes;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;
use uuid::Uuid;

/// Items a stream may fall behind the feed before it reads the rest from the log.
const BACKLOG: usize = 1024;
/// Items the log keeps, in order, for a stream that fell behind: one further behind is sent each
/// game's position again, as one that joins.
const RECENT: usize = 4096;
/// Items of a game since its position past which its follower makes the position again.
pub(super) const REPLAY: usize = 16;
/// Games over whose last items the log keeps for those who join (older ones are forgotten).
const DONE_KEPT: usize = 64;

/// One thing a feed released.
pub(super) struct Item {
    pub(super) seq: u64,
    pub(super) game: Uuid,
    pub(super) fact: Fact,
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
    /// The game as it stood before its event of this number (0: as made).
    Position(u64),
    /// Its event of this number.
    Event(u64),
    /// The analysis of the turn its event of this number took.
    Analysis(u64),
    /// Its division's standings with its result in.
    Standings,
    /// Everything of it is out.
    Done,
}

/// Whether the log takes a fact, and whether the streams reading now are sent it.
#[derive(PartialEq)]
enum Taken {
    No,
    /// Sent to every stream, and kept for those who join.
    Live,
    /// Kept for those who join only: a position made again where the streams reading already are.
    Quiet,
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

#[derive(Default)]
struct GameLog {
    shown: Shown,
    /// What a stream that joins now is sent of the game, in order: its position and each item
    /// since.
    replay: Vec<Arc<Item>>,
}

impl GameLog {
    /// Whether the log takes `fact`: the first time it hears it.
    fn takes(&mut self, fact: Fact) -> Taken {
        let shown = &mut self.shown;
        let once = |seen: bool| if seen { Taken::No } else { Taken::Live };
        match fact {
            // A position past the events out (its owner's made again, relayed after a gap):
            // every stream needs it. One where they are: for those who join.
            Fact::Position(number) if !shown.made || number > shown.next_event => {
                shown.made = true;
                shown.next_event = number;
                Taken::Live
            }
            Fact::Position(number) if number == shown.next_event && number > 0 => Taken::Quiet,
            Fact::Position(_) => Taken::No,
            Fact::Event(number) if number >= shown.next_event => {
                shown.next_event = number + 1;
                Taken::Live
            }
            Fact::Event(_) => Taken::No,
            Fact::Analysis(event) => once(!shown.analysed.insert(event)),
            Fact::Standings => once(std::mem::replace(&mut shown.standings, true)),
            Fact::Done => once(std::mem::replace(&mut shown.done, true)),
        }
    }

    /// Keep `item` for those who join: a position in place of what came before it (the analysis
    /// of the turn just before it kept, for the bar, and the game's standings and end, which no
    /// position tells).
    fn keep(&mut self, item: Arc<Item>) {
        if let Fact::Position(number) = item.fact {
            let last_turn = number.saturating_sub(1);
            self.replay.retain(|i| match i.fact {
                Fact::Analysis(e) => e >= last_turn,
                Fact::Standings | Fact::Done => true,
                Fact::Position(_) | Fact::Event(_) => false,
            });
            self.replay.insert(0, item);
        } else {
            self.replay.push(item);
        }
    }
}

struct Log {
    /// The last [`RECENT`] items sent to the streams, in order.
    recent: VecDeque<Arc<Item>>,
    next_seq: u64,
    games: HashMap<Uuid, GameLog>,
    /// The games kept, in the order the log first heard of them.
    order: Vec<Uuid>,
    /// The games over, oldest first.
    over: VecDeque<Uuid>,
    /// None once the feed has ended: streams end when they have read the log.
    tx: Option<broadcast::Sender<Arc<Item>>>,
}

impl Log {
    /// Forget the oldest games over past [`DONE_KEPT`].
    fn forget_old(&mut self) {
        while self.over.len() > DONE_KEPT {
            let Some(game) = self.over.pop_front() else { return };
            self.games.remove(&game);
            self.order.retain(|g| *g != game);
        }
    }
}

/// What a stream that joins is sent first: each game's position and what followed it, and the
/// number of the first item it then hears live.
pub(super) struct Joined {
    pub(super) items: Vec<Arc<Item>>,
    pub(super) next: u64,
}

pub(super) struct Feed {
    pub(super) slug: String,
    log: Mutex<Log>,
    /// Raised when the broadcast changed here (ended, say): the feed looks at once.
    pub(super) wake: tokio::sync::Notify,
}

impl Feed {
    fn log(&self) -> std::sync::MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }

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
        let mut guard = self.log();
        let log = &mut *guard;
        if !log.games.contains_key(&game) {
            log.order.push(game);
        }
        let kept = log.games.entry(game).or_default();
        let taken = kept.takes(fact);
        if taken == Taken::No {
            return;
        }
        let item = Arc::new(Item { seq: log.next_seq, game, fact, said });
        kept.keep(item.clone());
        if taken == Taken::Quiet {
            return;
        }
        log.next_seq += 1;
        log.recent.push_back(item.clone());
        if log.recent.len() > RECENT {
            log.recent.pop_front();
        }
        if fact == Fact::Done {
            log.over.push_back(game);
            log.forget_old();
        }
        if let Some(tx) = &log.tx {
            let _ = tx.send(item);
        }
    }

    /// What of `game` is out: whether its position is, and the number of the next event.
    pub(super) fn shown(&self, game: Uuid) -> (bool, usize) {
        let log = self.log();
        log.games.get(&game).map_or((false, 0), |g| (g.shown.made, g.shown.next_event as usize))
    }

    /// Whether the analysis of `game`'s event `number` is out.
    pub(super) fn analysed(&self, game: Uuid, number: usize) -> bool {
        let log = self.log();
        log.games.get(&game).is_some_and(|g| g.shown.analysed.contains(&(number as u64)))
    }

    /// How many items of `game` one who joins now is sent after its position.
    pub(super) fn since_position(&self, game: Uuid) -> usize {
        self.log().games.get(&game).map_or(0, |g| g.replay.len().saturating_sub(1))
    }

    /// What a stream joining now is sent first (of `game` only, when given), and the live items
    /// after it (None: the feed has ended).
    pub(super) fn join(
        &self,
        game: Option<Uuid>,
        subscribe: bool,
    ) -> (Joined, Option<broadcast::Receiver<Arc<Item>>>) {
        let log = self.log();
        let games = log.order.iter().filter(|g| game.is_none_or(|one| one == **g));
        let items = games.filter_map(|g| log.games.get(g)).flat_map(|g| g.replay.iter().cloned()).collect();
        let rx = if subscribe { log.tx.as_ref().map(|tx| tx.subscribe()) } else { None };
        (Joined { items, next: log.next_seq }, rx)
    }

    /// The items sent from number `from` on, if the log still has them all.
    pub(super) fn recent_from(&self, from: u64) -> Option<Vec<Arc<Item>>> {
        let log = self.log();
        if log.recent.front().is_some_and(|first| first.seq > from) {
            return None;
        }
        Some(log.recent.iter().filter(|i| i.seq >= from).cloned().collect())
    }

    /// The log's size: the items it keeps for those who join and for streams behind, and their
    /// bytes (each item's both forms once).
    pub(super) fn size(&self) -> (usize, usize) {
        let log = self.log();
        let bytes = |i: &Arc<Item>| match &i.said {
            Said::Message(m) if m.hidden == m.revealed => m.hidden.len(),
            Said::Message(m) => m.hidden.len() + m.revealed.len(),
            Said::Done => 0,
        };
        let mut seen: HashSet<*const Item> = HashSet::new();
        let all = log.games.values().flat_map(|g| g.replay.iter()).chain(log.recent.iter());
        let kept: Vec<&Arc<Item>> = all.filter(|i| seen.insert(Arc::as_ptr(i))).collect();
        (kept.len(), kept.iter().map(|i| bytes(i)).sum())
    }

    pub(super) fn close(&self) {
        self.log().tx = None;
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
                recent: VecDeque::new(),
                next_seq: 0,
                games: HashMap::new(),
                order: Vec::new(),
                over: VecDeque::new(),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn message(text: &str) -> Encoded {
        Encoded { hidden: Bytes::from(text.to_string()), revealed: Bytes::from(format!("{text}+racks")) }
    }

    fn feed() -> Arc<Feed> {
        Feeds::default().get_or_make("open-live").0
    }

    fn facts(items: &[Arc<Item>]) -> Vec<Fact> {
        items.iter().map(|i| i.fact).collect()
    }

    #[test]
    fn one_who_joins_gets_the_games_latest_position_and_what_followed_it() {
        let (feed, game) = (feed(), Uuid::new_v4());
        feed.publish(game, Fact::Position(0), message("made"));
        let (_, mut live) = feed.join(None, true);
        let mut live = live.take().unwrap();
        for number in 0..30 {
            feed.publish(game, Fact::Event(number), message("event"));
            feed.publish(game, Fact::Analysis(number), message("analysis"));
        }
        feed.publish(game, Fact::Position(30), message("after 30"));
        feed.publish(game, Fact::Event(30), message("event"));
        let (joined, _) = feed.join(None, false);
        assert_eq!(
            facts(&joined.items),
            [Fact::Position(30), Fact::Analysis(29), Fact::Event(30)],
            "the position, the last turn's analysis, and what followed"
        );
        assert_eq!(joined.next, 62, "the made game, 60 items and event 30 went out; the position did not");
        let mut heard = Vec::new();
        while let Ok(item) = live.try_recv() {
            heard.push(item.fact);
        }
        assert_eq!(heard.len(), 61, "streams reading already hear no position made again");
        assert!(!heard.contains(&Fact::Position(30)));
        // A position offered again, or behind the events out, is not taken.
        feed.publish(game, Fact::Position(30), message("after 30"));
        feed.publish(game, Fact::Position(0), message("made"));
        assert_eq!(feed.join(None, false).0.items.len(), 3);
    }

    #[test]
    fn a_position_past_the_events_out_goes_to_every_stream() {
        let (feed, game) = (feed(), Uuid::new_v4());
        feed.publish(game, Fact::Position(0), message("made"));
        feed.publish(game, Fact::Event(0), message("event"));
        let (_, live) = feed.join(None, true);
        let mut live = live.unwrap();
        // Relayed from a new owner after a gap: events 1 to 9 are in it.
        feed.publish(game, Fact::Position(10), message("after 10"));
        feed.publish(game, Fact::Event(5), message("behind"));
        feed.publish(game, Fact::Event(10), message("event"));
        let heard: Vec<Fact> = std::iter::from_fn(|| live.try_recv().ok()).map(|i| i.fact).collect();
        assert_eq!(heard, [Fact::Position(10), Fact::Event(10)]);
        assert_eq!(feed.shown(game), (true, 11));
    }

    #[test]
    fn of_the_games_over_the_log_keeps_the_last_few_and_of_its_items_the_recent() {
        let feed = feed();
        let games: Vec<Uuid> = (0..DONE_KEPT + 36).map(|_| Uuid::new_v4()).collect();
        for game in &games {
            feed.publish(*game, Fact::Position(0), message("made"));
            for number in 0..40 {
                feed.publish(*game, Fact::Event(number), message("event"));
            }
            feed.done(*game);
        }
        let (joined, _) = feed.join(None, false);
        let kept: HashSet<Uuid> = joined.items.iter().map(|i| i.game).collect();
        assert_eq!(kept, games[36..].iter().copied().collect::<HashSet<_>>(), "the last 64 games over");
        assert_eq!(joined.next, 100 * 42);
        assert!(feed.recent_from(0).is_none(), "a stream that far behind joins again");
        let behind = feed.recent_from(joined.next - 10).unwrap();
        assert_eq!(
            behind.iter().map(|i| i.seq).collect::<Vec<_>>(),
            (joined.next - 10..joined.next).collect::<Vec<_>>()
        );
        let (items, _) = feed.size();
        assert_eq!(
            items,
            RECENT.max(DONE_KEPT * 42),
            "what is kept: the recent items, and the games over kept"
        );
        // An evicted game's stream joins to nothing of it.
        assert!(feed.join(Some(games[0]), false).0.items.is_empty());
    }
}

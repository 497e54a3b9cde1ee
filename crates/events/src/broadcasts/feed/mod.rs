//! WatchBroadcast's feed: one per broadcast on each replica, however many watch it. It finds the
//! broadcast's games as they start (every [`REFRESH`]: the store's live games with its labels),
//! follows each, and puts what is due into a log every stream reads from its start and then live.
//! A game held here is followed on its session: each event goes out once the game's clock has
//! passed its time plus the delay, its turn's analysis with it. A game held by another replica is
//! followed through that replica's own feed (its stream for that game, replica to replica, through
//! the [`FeedWire`] seam), so racks and analysis are computed once, where the game is held, and a
//! new holder judges again what the lost one had in hand. A message is written down twice, as a
//! watcher sees it and with every rack, each encoded once by the wire; a stream sends the one the
//! broadcast allows at the moment it sends it.

mod analysis;
mod log;
mod stream;

pub use analysis::Judged;
pub use log::Fact;
pub(crate) use log::Feeds;
pub use stream::EncodedStream;

use super::REFRESH;
use crate::Events;
use analysis::Analyses;
use dawgref_engine::alphabet::Alphabet;
use dawgref_engine::game::{Event, EventKind, Game};
use dawgref_host::{GameQuery, GameState, Route, Session, Snapshot, stopped};
use log::Feed;
use prost::bytes::Bytes;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, watch};
use uuid::Uuid;

/// Most games one broadcast follows.
const MAX_GAMES: usize = 1000;

/// A message to the spectators in both forms, each encoded once for every stream that sends it.
#[derive(Clone)]
pub struct Encoded {
    /// As a watcher sees it.
    pub hidden: Bytes,
    /// With every seat's rack and exchanged tiles.
    pub revealed: Bytes,
}

/// What a game's owner on another replica releases of it, relayed: a message and the fact it
/// tells, until everything of the game is out ([`Relayed::Done`]); the stream ends early when the
/// owner stops or the game moves.
pub enum Relayed {
    Message(Fact, Encoded),
    Done,
}

/// A game held by another replica, followed through its owner's feed.
pub type RelayStream = Pin<Box<dyn tokio_stream::Stream<Item = Relayed> + Send>>;

/// What a feed asks of the services: each message made and encoded once, in both forms (the
/// wire's messages are theirs), and a game held by another replica followed through that
/// replica's own feed (the routing is theirs too), so that the layer never knows it is gRPC.
pub trait FeedWire: Send + Sync + 'static {
    /// Game `game` as it stood at `unix_ms` (`position`: as made, or after a later event, for
    /// those who join then); `racks`, every seat's, for the revealed form.
    fn made(&self, game: Uuid, unix_ms: u64, position: &Snapshot, racks: Vec<String>) -> Encoded;
    /// Event `event` of `game` in `alphabet` (`verdicts`: word verdicts shown during the game),
    /// with every seat's rack after it for the revealed form.
    fn event(
        &self,
        game: Uuid,
        unix_ms: u64,
        event: &Event,
        shown: (Alphabet, bool),
        racks: Vec<String>,
    ) -> Encoded;
    /// A turn of `game` judged for the spectators.
    fn analysis(&self, game: Uuid, unix_ms: u64, judged: &Judged) -> Encoded;
    /// After `game`'s end (`unix_ms`): its division of tournament `slug` as spectators see it
    /// with its result in (the same in both forms).
    fn standings(&self, game: Uuid, unix_ms: u64, slug: &str, division: &crate::DivisionRecord) -> Bytes;
    /// To another replica, in a game's stream: everything of `game` is out.
    fn done_marker(&self, game: Uuid) -> Bytes;
    /// Follow `game` of broadcast `slug` through the feed of its owner at `owner` (None: it could
    /// not be reached now).
    fn follow_there(
        &self,
        slug: &str,
        game: Uuid,
        owner: &str,
    ) -> Pin<Box<dyn Future<Output = Option<RelayStream>> + Send>>;
}

impl Events {
    /// What broadcast `slug`'s feed here keeps (None: no feed): its items and their bytes, for
    /// those who join and for streams fallen behind.
    pub fn feed_size(&self, slug: &str) -> Option<(usize, usize)> {
        self.0.feeds.get(slug).map(|feed| feed.size())
    }

    /// The broadcast's feed, started on its first stream (its work spawned, with `wire`).
    fn feed(&self, slug: &str, wire: &Arc<dyn FeedWire>) -> Arc<Feed> {
        let (feed, new) = self.0.feeds.get_or_make(slug);
        if new {
            tokio::spawn(run(self.clone(), wire.clone(), feed.clone()));
        }
        feed
    }
}

/// Where a game stands for its feed (what of it is out, the feed's log knows).
enum Following {
    /// To be followed: found, or its follower stopped before the game's end (the game went to
    /// sleep, to another replica, its owner was lost).
    Waiting,
    /// Its follower is at work.
    Running,
    /// Everything of the game is out.
    Done,
}

/// Analyses of turns already out judged again by a game's new holder (the old one was lost with
/// them in hand): at most these, the latest first.
const JUDGED_AGAIN: usize = 8;

/// The feed's task: find the broadcast's games and follow them, until the broadcast ends or the
/// server stops.
async fn run(events: Events, wire: Arc<dyn FeedWire>, feed: Arc<Feed>) {
    let host = &events.0.host;
    let mut shutdown = host.shutdown();
    let (stop_tx, stop) = watch::channel(false);
    let (done_tx, mut done) = mpsc::unbounded_channel::<(Uuid, Following)>();
    let mut games: HashMap<Uuid, Following> = HashMap::new();
    while let Some(kept) = events.broadcasts().get(&feed.slug).filter(|k| k.is_on()) {
        let query =
            GameQuery { labels: kept.labels.clone(), state: GameState::Live, after: None, limit: MAX_GAMES };
        match host.stored_games(query).await {
            Ok(page) => {
                for id in page.ids {
                    games.entry(id).or_insert(Following::Waiting);
                }
            }
            Err(e) => {
                tracing::warn!(broadcast = %feed.slug, error = %e, "a broadcast's games could not be listed")
            }
        }
        for (id, following) in games.iter_mut() {
            if !matches!(following, Following::Waiting) {
                continue;
            }
            *following = Following::Running;
            let (events, wire, feed) = (events.clone(), wire.clone(), feed.clone());
            let (stop, done, id) = (stop.clone(), done_tx.clone(), *id);
            tokio::spawn(async move {
                let next = follow(&events, &wire, &feed, id, stop).await;
                if matches!(next, Following::Done) {
                    feed.done(id);
                }
                let _ = done.send((id, next));
            });
        }
        tokio::select! {
            () = tokio::time::sleep(REFRESH) => {}
            () = feed.wake.notified() => {}
            Some((id, next)) = done.recv() => {
                games.insert(id, next);
            }
            () = stopped(&mut shutdown) => break,
        }
    }
    let _ = stop_tx.send(true);
    feed.close();
    events.0.feeds.forget(&feed);
}

/// Follow one game from where the feed's log has it (the game as made first), publishing each
/// event when it is due. Answers where the game stands when it stops: done, or to be followed
/// again.
async fn follow(
    events: &Events,
    wire: &Arc<dyn FeedWire>,
    feed: &Feed,
    id: Uuid,
    stop: watch::Receiver<bool>,
) -> Following {
    match events.0.host.route(&id.to_string(), false).await {
        Ok(Route::Local(session)) => follow_here(events, wire, feed, id, session, stop).await,
        Ok(Route::Remote(addr)) => follow_there(wire.as_ref(), feed, id, &addr, stop).await,
        Err(e) => {
            tracing::debug!(game = %id, error = %e, "a broadcast game could not be reached; tried again");
            again().await
        }
    }
}

/// A game that could not be followed now: followed again a moment later.
async fn again() -> Following {
    tokio::time::sleep(REFRESH).await;
    Following::Waiting
}

/// Unix time of game time `ms` of a session: its clock read now, less the time since.
fn unix_of(session: &Session, ms: u64) -> u64 {
    dawgref_host::unix_ms().saturating_sub(session.now_ms().saturating_sub(ms))
}

/// Every seat's rack in `game`, by seat, as text.
fn racks_of(game: &Game) -> Vec<String> {
    let alphabet = game.config().rules.alphabet;
    (0..game.config().seats)
        .map(|s| game.rack(s).map(|r| r.to_string(alphabet)).unwrap_or_default())
        .collect()
}

/// Every seat's rack right after event `number` of `game`, by seat: read off the history (each
/// event carries its seat's rack before it; a seat with no later event holds its rack now), so
/// that no game is rebuilt on the runtime for each event.
fn racks_after(game: &Game, number: usize) -> Vec<String> {
    let alphabet = game.config().rules.alphabet;
    let later = game.history().get(number + 1..).unwrap_or_default();
    (0..game.config().seats)
        .map(|s| match later.iter().find(|f| f.seat == s) {
            Some(f) => f.rack.to_string(alphabet),
            None => game.rack(s).map(|r| r.to_string(alphabet)).unwrap_or_default(),
        })
        .collect()
}

/// The game's position again, as it stood after event `e` (just released), for those who join
/// from now on: its last position and every item since would be more to send them. Made only
/// where `e` is the last event of its moment (the game as of its time shows no later event).
fn reposition(wire: &dyn FeedWire, feed: &Feed, session: &Session, e: &Event) {
    let snapshot = session.snapshot().as_of(Some(e.time_ms));
    if snapshot.game().history().len() != e.number + 1 {
        return;
    }
    let racks = racks_after(snapshot.game(), e.number);
    let unix = unix_of(session, e.time_ms);
    let fact = Fact::Position(e.number as u64 + 1);
    let id = session.id();
    feed.publish(id, fact, wire.made(id, unix, &snapshot, racks));
}

/// Where a follower of a game held here starts: the feed's log (`known`: the game is out there,
/// up to event `next`) and the game as it stands.
struct Start<'a> {
    feed: &'a Feed,
    session: &'a Session,
    snapshot: &'a Arc<Snapshot>,
    known: bool,
    next: usize,
}

impl Start<'_> {
    /// The analyses a follower starts with, `pending` the events still to go out.
    fn analyses(
        &self,
        events: &Events,
        wire: &Arc<dyn FeedWire>,
        pending: &VecDeque<Arc<Event>>,
        delay: u64,
    ) -> Analyses {
        let (feed, id) = (self.feed, self.session.id());
        let mut analyses = Analyses::new(events, wire, &feed.slug);
        // Turns out whose analysis is not (it was being judged where the game was held before):
        // judged again here, and out as soon as they are.
        let out = self.snapshot.game().history().get(..self.next).unwrap_or_default();
        for e in out.iter().rev().filter(|e| Analyses::judges(e)).take(JUDGED_AGAIN) {
            if feed.analysed(id, e.number) {
                break;
            }
            analyses.ask(self.snapshot, e);
            analyses.released(feed, id, e.number, unix_of(self.session, e.time_ms));
        }
        // Of a game new to the feed, turns still within the delay are judged, and of those past
        // it only the last (the bar of a game joined late), or a feed started mid-round would
        // judge whole games. A game the feed followed before (held elsewhere until now) is judged
        // from where it left off: its spectators have seen each turn of it with its analysis so
        // far.
        let now = self.session.now_ms();
        let due = |e: &Event| e.time_ms.saturating_add(delay) <= now;
        if !self.known
            && let Some(e) = pending.iter().rev().find(|e| due(e) && Analyses::judges(e))
        {
            analyses.ask(self.snapshot, e);
        }
        for e in pending.iter().filter(|e| self.known || !due(e)) {
            analyses.ask(self.snapshot, e);
        }
        analyses
    }
}

/// A game held here: its events from its session, each released when due, each turn's analysis
/// (when the broadcast has it) computed as the turn is heard and released with it.
async fn follow_here(
    events: &Events,
    wire: &Arc<dyn FeedWire>,
    feed: &Feed,
    id: Uuid,
    session: Arc<Session>,
    mut stop: watch::Receiver<bool>,
) -> Following {
    let mut rx = session.subscribe();
    let snapshot = session.snapshot();
    let labels = snapshot.labels().to_vec();
    let link = crate::GameLink::of(&snapshot);
    let alphabet = snapshot.game().config().rules.alphabet;
    // Word verdicts as a watcher sees them during the game (the game's end is not shown yet).
    let verdicts = snapshot.game().config().reveal_invalid_words;
    let delay = || events.broadcasts().delay_ms(&labels);
    // A game new to the feed: as it was made, then every event, each when due (those past the
    // delay at once), so a spectator who joins late still gets every move.
    let (known, mut next) = feed.shown(id);
    // The game as made, out once the delay has passed since it was (before then it is no game
    // to a spectator: who plays it may come from results still held back).
    let mut made = (!known).then(|| snapshot.as_of(None));
    let history = snapshot.game().history();
    let mut pending: VecDeque<Arc<Event>> = history.iter().skip(next).cloned().map(Arc::new).collect();
    let start = Start { feed, session: &session, snapshot: &snapshot, known, next };
    let mut analyses = start.analyses(events, wire, &pending, delay());
    drop(snapshot);
    let mut listening = true;
    let mut over = false;
    // When the game ended (the time its last event shows).
    let mut ended_unix = 0;
    loop {
        // Out with what is due: the game as made first.
        if made.is_some()
            && session.now_ms() >= delay()
            && let Some(made) = made.take()
        {
            let racks = racks_of(made.game());
            feed.publish(id, Fact::Position(0), wire.made(id, unix_of(&session, 0), &made, racks));
        }
        while made.is_none()
            && pending.front().is_some_and(|e| session.now_ms() >= e.time_ms.saturating_add(delay()))
        {
            let Some(e) = pending.pop_front() else { break };
            let unix = unix_of(&session, e.time_ms);
            let racks = racks_after(session.snapshot().game(), e.number);
            let fact = Fact::Event(e.number as u64);
            feed.publish(id, fact, wire.event(id, unix, &e, (alphabet, verdicts), racks));
            analyses.released(feed, id, e.number, unix);
            next = e.number + 1;
            if feed.since_position(id) >= log::REPLAY {
                reposition(wire.as_ref(), feed, &session, &e);
            }
            if matches!(e.kind, EventKind::GameOver { .. }) {
                over = true;
                ended_unix = unix;
                pending.clear();
            }
        }
        if over && analyses.awaited.is_empty() {
            if let Some(link) = &link {
                standings(events, wire.as_ref(), feed, (id, link, &labels), ended_unix, &mut stop).await;
            }
            return Following::Done;
        }
        if !listening && pending.is_empty() && analyses.awaited.is_empty() {
            return Following::Waiting;
        }
        // Until the next is due, or a second (a delay made shorter shows sooner).
        let next_due = if made.is_some() { Some(0) } else { pending.front().map(|e| e.time_ms) };
        let wait = next_due.map_or(REFRESH, |ms| {
            let due = ms.saturating_add(delay());
            Duration::from_millis(due.saturating_sub(session.now_ms())).min(REFRESH)
        });
        tokio::select! {
            received = rx.recv(), if listening && !over => {
                let heard: Vec<Arc<Event>> = match received {
                    Ok(e) => vec![e],
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        let last = pending.back().map_or(next, |p| p.number + 1);
                        let snapshot = session.snapshot();
                        snapshot.game().history().iter().skip(last).cloned().map(Arc::new).collect()
                    }
                    Err(broadcast::error::RecvError::Closed) => {
                        listening = false;
                        Vec::new()
                    }
                };
                let snapshot = session.snapshot();
                for e in heard {
                    let last = pending.back().map_or(next, |p| p.number + 1);
                    if e.number >= last {
                        analyses.ask(&snapshot, &e);
                        pending.push_back(e);
                    }
                }
            }
            Some((event, judged)) = analyses.done.recv() => analyses.judged(feed, id, event, judged),
            () = tokio::time::sleep(wait) => {}
            // Asleep or gone to another replica: what was heard goes out, then it is found again.
            () = session.gone(), if listening => listening = false,
            _ = stop.changed() => return Following::Waiting,
        }
    }
}

/// How long a tournament game's feed waits, after the game's end, for a change of its
/// tournament before it looks again whether spectators see its result yet: a change made here is
/// heard at once; this is for one made on another replica, or a result held back by a delay.
const STANDINGS_LOOK: Duration = Duration::from_secs(2);
/// How long it looks before it gives up (a result not entered by then is in the standings the
/// next game's end brings, and in GetTournament's).
const STANDINGS_WAIT: Duration = Duration::from_secs(30);

/// After the end of a tournament's game (`id`, linked to its tournament's division, with its
/// labels): the division's standings as spectators see them once the game's result is in for
/// them.
async fn standings(
    events: &Events,
    wire: &dyn FeedWire,
    feed: &Feed,
    (id, link, labels): (Uuid, &crate::GameLink, &[(String, String)]),
    ended_unix: u64,
    stop: &mut watch::Receiver<bool>,
) {
    let crate::GameLink { slug, division: Some(division) } = link.clone() else { return };
    let give_up = tokio::time::Instant::now() + STANDINGS_WAIT;
    // Heard before the first look, so that no change falls between them.
    let mut changes = events.subscribe();
    // A result heard coming in is held back from spectators as long as the broadcast's delay:
    // looked at again when that has passed.
    let delay = Duration::from_millis(events.broadcasts().delay_ms(labels));
    let mut due: Option<tokio::time::Instant> = None;
    loop {
        match events.division_with(&slug, &division, &id.to_string()).await {
            Ok(Some(entry)) => {
                feed.publish_one(id, Fact::Standings, wire.standings(id, ended_unix, &slug, &entry));
                return;
            }
            Ok(None) => {}
            // Labels that name no tournament here: a game labelled by hand.
            Err(crate::EventsError::NotFound(_)) => return,
            Err(e) => tracing::debug!(game = %id, error = %e, "a game's standings are not read yet"),
        }
        if tokio::time::Instant::now() >= give_up {
            tracing::warn!(game = %id, tournament = %slug, "the game's result is not in its standings: no standings in its broadcast");
            return;
        }
        // The result enters by a change of the tournament: looked at again when one is heard.
        let changed = async {
            loop {
                match changes.recv().await {
                    Ok(changed) if changed == slug => return,
                    Ok(_) => {}
                    Err(broadcast::error::RecvError::Lagged(_)) => return,
                    Err(broadcast::error::RecvError::Closed) => std::future::pending::<()>().await,
                }
            }
        };
        let now = tokio::time::Instant::now();
        let look = due.filter(|&due| due > now).unwrap_or(now + STANDINGS_LOOK).min(give_up);
        tokio::select! {
            () = changed => due = due.or((!delay.is_zero()).then(|| tokio::time::Instant::now() + delay)),
            () = tokio::time::sleep_until(look) => due = None,
            _ = stop.changed() => return,
        }
    }
}

/// A game held by another replica: what its owner's feed releases of it, relayed in both
/// forms, racks and analysis included (each computed once, where the game is held). The owner
/// holds it back by the broadcast's delay; the log here drops what it has already (the owner's
/// stream starts from the game as made each time).
async fn follow_there(
    wire: &dyn FeedWire,
    feed: &Feed,
    id: Uuid,
    owner: &str,
    mut stop: watch::Receiver<bool>,
) -> Following {
    use tokio_stream::StreamExt;
    let Some(mut upstream) = wire.follow_there(&feed.slug, id, owner).await else {
        return again().await;
    };
    loop {
        tokio::select! {
            relayed = upstream.next() => match relayed {
                Some(Relayed::Message(fact, message)) => feed.publish(id, fact, message),
                Some(Relayed::Done) => return Following::Done,
                // Ended without the game's end (the owner stopped, the game moved): found again.
                None => return again().await,
            },
            _ = stop.changed() => return Following::Waiting,
        }
    }
}

impl Events {
    /// Division `division` of tournament `slug` as spectators see it now, once the result of
    /// `game` is in it (None: not yet, or no such division).
    async fn division_with(
        &self,
        slug: &str,
        division: &str,
        game: &str,
    ) -> Result<Option<crate::DivisionRecord>, crate::EventsError> {
        let record = self.reconcile(slug).await?;
        let mut held = self.spectators(record, None).await?;
        let Ok(d) = held.division(division) else { return Ok(None) };
        let entry = held.divisions.swap_remove(d.index());
        let done = entry.round_ids().any(|k| {
            (entry.pairings(k)).any(|(i, line)| line.is_done() && entry.game_id(k, i) == Some(game))
        });
        Ok(done.then_some(entry))
    }
}

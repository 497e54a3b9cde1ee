//! WatchBroadcast's feed: one per broadcast on each replica, however many watch it. It finds the
//! broadcast's games as they start (every [`REFRESH`]: the store's live games with its labels),
//! follows each, and puts what is due into a log every stream reads from its start and then live.
//! A game held here is followed on its session: each event goes out once the game's clock has
//! passed its time plus the delay, its turn's analysis with it. A game held by another replica is
//! followed through that replica's own feed (WatchBroadcast for that game, replica to replica),
//! so racks and analysis are computed once, where the game is held, and a new holder judges again
//! what the lost one had in hand. A message is written down twice, as a watcher sees it and with
//! every rack; a stream sends the one the broadcast allows at the moment it sends it.

use super::analysis::Analyses;
use super::feeds::{Feed, Item, Said, message};
use crate::game::{Event, EventKind};
use crate::host::{GameQuery, GameState};
use crate::host::{Route, Session, Viewer, stopped};
use crate::proto::v1 as pb;
use crate::proto::v1::broadcasts_service_client::BroadcastsServiceClient;
use crate::server::state::AppState;
use crate::server::views;
use dawgref_events::REFRESH;
use prost::Message;
use prost::bytes::Bytes;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, watch};
use tonic::Status;
use tonic::transport::Channel;
use uuid::Uuid;

/// Most games one broadcast follows.
const MAX_GAMES: usize = 1000;

/// The broadcast's feed, started on its first stream.
fn start(state: &Arc<AppState>, slug: &str) -> Arc<Feed> {
    let (feed, new) = state.feeds.get_or_make(slug);
    if new {
        tokio::spawn(run(state.clone(), feed.clone()));
    }
    feed
}

/// A stream of the broadcast `kept` (only `game`'s items, when given): the feed's log from its
/// start, then live; it ends when the broadcast ends, the server stops or `deadline` passes.
///
/// To another replica (`peer`, with `game`: its feed follows a game this replica holds), each
/// message goes in both forms, the watcher's then the revealed, and the game's end is told by a
/// message with no item ([`done_marker`]), after which the stream ends.
pub(super) fn watch(
    state: &Arc<AppState>,
    kept: &dawgref_events::Kept,
    game: Option<Uuid>,
    peer: bool,
    deadline: Option<tokio::time::Instant>,
) -> Result<super::EncodedStream, Status> {
    if !kept.is_on() {
        // Ended: nothing more comes, on any replica.
        return Ok(Box::pin(tokio_stream::empty()));
    }
    let feed = start(state, &kept.broadcast.slug);
    let (items, rx) = feed.read(0, true);
    let reader = Reader {
        shutdown: state.shutdown.clone(),
        state: state.clone(),
        feed,
        game,
        peer,
        deadline,
        items: items.into(),
        rx,
        next: 0,
        out: VecDeque::new(),
        finished: false,
    };
    // The stream reads the log itself, as the response is sent: no task and no queue of its own
    // between the feed and the connection (a thousand streams are a thousand fewer hops).
    Ok(Box::pin(futures_util::stream::unfold(reader, |mut r| async move {
        let message = r.next_message().await?;
        Some((message, r))
    })))
}

/// One stream's place in its feed's log (see [`watch`]).
struct Reader {
    state: Arc<AppState>,
    feed: Arc<Feed>,
    game: Option<Uuid>,
    peer: bool,
    deadline: Option<tokio::time::Instant>,
    shutdown: watch::Receiver<bool>,
    /// Read from the log, not yet sent.
    items: VecDeque<Arc<Item>>,
    /// The feed's live items (None: the feed has ended; the stream ends with the log).
    rx: Option<broadcast::Receiver<Arc<Item>>>,
    /// The next item of the log this stream takes.
    next: u64,
    /// Messages made, not yet sent (a replica's two forms), as the feed encoded them.
    out: VecDeque<Result<Bytes, Status>>,
    finished: bool,
}

impl Reader {
    async fn next_message(&mut self) -> Option<Result<Bytes, Status>> {
        loop {
            if let Some(m) = self.out.pop_front() {
                return Some(m);
            }
            if self.finished {
                return None;
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
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        self.items = self.feed.read(self.next, false).0.into();
                    }
                    Err(broadcast::error::RecvError::Closed) => {
                        self.items = self.feed.read(self.next, false).0.into();
                        self.rx = None;
                    }
                },
                () = stopped(&mut self.shutdown) => {
                    self.out.push_back(Err(crate::server::errors::shutting_down()));
                    self.finished = true;
                }
                () = crate::host::sleep_until(self.deadline) => {
                    self.out.push_back(Err(Status::deadline_exceeded("the call's deadline passed: watch again")));
                    self.finished = true;
                }
            }
        }
    }

    /// The messages `item` makes for this stream.
    fn take(&mut self, item: &Item) {
        if item.seq < self.next {
            return;
        }
        self.next = item.seq + 1;
        if self.game.is_some_and(|g| g != item.game) {
            return;
        }
        match (&item.said, self.peer) {
            // To a replica: both forms, the one as a watcher sees it first.
            (Said::Message { hidden, revealed }, true) => {
                self.out.push_back(Ok(hidden.clone()));
                self.out.push_back(Ok(revealed.clone()));
            }
            (Said::Message { hidden, revealed }, false) => {
                // Racks as the broadcast says now: turned off, never sent again.
                let reveal = self.state.events.broadcasts().reveals(&self.feed.slug);
                self.out.push_back(Ok(if reveal { revealed.clone() } else { hidden.clone() }));
            }
            (Said::Done, true) => {
                self.out.push_back(Ok(done_marker(item.game).encode_to_vec().into()));
                self.finished = true;
            }
            (Said::Done, false) => {}
        }
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

/// To another replica, in a game's stream: everything of the game is out (a message with no
/// item).
fn done_marker(game: Uuid) -> pb::WatchBroadcastResponse {
    pb::WatchBroadcastResponse { game_id: game.to_string(), ..Default::default() }
}

/// Analyses of turns already out judged again by a game's new holder (the old one was lost with
/// them in hand): at most these, the latest first.
const JUDGED_AGAIN: usize = 8;

/// The feed's task: find the broadcast's games and follow them, until the broadcast ends or the
/// server stops.
async fn run(state: Arc<AppState>, feed: Arc<Feed>) {
    let mut shutdown = state.shutdown.clone();
    let (stop_tx, stop) = watch::channel(false);
    let (done_tx, mut done) = mpsc::unbounded_channel::<(Uuid, Following)>();
    let mut games: HashMap<Uuid, Following> = HashMap::new();
    while let Some(kept) = state.events.broadcasts().get(&feed.slug).filter(|k| k.is_on()) {
        let query =
            GameQuery { labels: kept.labels.clone(), state: GameState::Live, after: None, limit: MAX_GAMES };
        match state.host.stored_games(query).await {
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
            let (state, feed, stop, done) = (state.clone(), feed.clone(), stop.clone(), done_tx.clone());
            let id = *id;
            tokio::spawn(async move {
                let next = follow(&state, &feed, id, stop).await;
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
    state.feeds.forget(&feed);
}

/// Follow one game from where the feed's log has it (the game as made first), publishing each
/// event when it is due. Answers where the game stands when it stops: done, or to be followed
/// again.
async fn follow(state: &Arc<AppState>, feed: &Feed, id: Uuid, stop: watch::Receiver<bool>) -> Following {
    match state.host.route(&id.to_string(), false).await {
        Ok(Route::Local(session)) => follow_here(state, feed, id, session, stop).await,
        Ok(Route::Remote(addr)) => follow_there(state, feed, id, &addr, stop).await,
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
    crate::host::unix_ms().saturating_sub(session.now_ms().saturating_sub(ms))
}

/// Every seat's rack in `game`, by seat, as text.
fn racks_of(game: &crate::game::Game) -> Vec<String> {
    let alphabet = game.config().rules.alphabet;
    (0..game.config().seats)
        .map(|s| game.rack(s).map(|r| r.to_string(alphabet)).unwrap_or_default())
        .collect()
}

/// Every seat's rack right after event `number` of `game`, by seat: read off the history (each
/// event carries its seat's rack before it; a seat with no later event holds its rack now), so
/// that no game is rebuilt on the runtime for each event.
fn racks_after(game: &crate::game::Game, number: usize) -> Vec<String> {
    let alphabet = game.config().rules.alphabet;
    let later = game.history().get(number + 1..).unwrap_or_default();
    (0..game.config().seats)
        .map(|s| match later.iter().find(|f| f.seat == s) {
            Some(f) => f.rack.to_string(alphabet),
            None => game.rack(s).map(|r| r.to_string(alphabet)).unwrap_or_default(),
        })
        .collect()
}

/// A game held here: its events from its session, each released when due, each turn's analysis
/// (when the broadcast has it) computed as the turn is heard and released with it.
async fn follow_here(
    state: &Arc<AppState>,
    feed: &Feed,
    id: Uuid,
    session: Arc<Session>,
    mut stop: watch::Receiver<bool>,
) -> Following {
    let mut rx = session.subscribe();
    let snapshot = session.snapshot();
    let labels = snapshot.labels().to_vec();
    let alphabet = snapshot.game().config().rules.alphabet;
    // Word verdicts as a watcher sees them during the game (the game's end is not shown yet).
    let verdicts = snapshot.game().config().reveal_invalid_words;
    let delay = || state.events.broadcasts().delay_ms(&labels);
    // A game new to the feed: as it was made, then every event, each when due (those past the
    // delay at once), so a spectator who joins late still gets every move.
    let (known, mut next) = feed.shown(id);
    if !known {
        let made = snapshot.as_of(None);
        let view = views::view(&id.to_string(), &made, Viewer::Watcher, 0);
        let game = message(id, unix_of(&session, 0), pb::watch_broadcast_response::Item::Game(view));
        let revealed = pb::WatchBroadcastResponse { racks: racks_of(made.game()), ..game.clone() };
        feed.publish(id, game, revealed);
    }
    let mut analyses = Analyses::new(state, &feed.slug);
    // Turns out whose analysis is not (it was being judged where the game was held before):
    // judged again here, and out as soon as they are.
    let history = snapshot.game().history();
    let out = history.get(..next).unwrap_or_default();
    for e in out.iter().rev().filter(|e| Analyses::judges(e)).take(JUDGED_AGAIN) {
        if feed.analysed(id, e.number) {
            break;
        }
        analyses.ask(&snapshot, e);
        analyses.released(feed, id, e.number, unix_of(&session, e.time_ms));
    }
    let mut pending: VecDeque<Arc<Event>> = history.iter().skip(next).cloned().map(Arc::new).collect();
    // Of a game new to the feed, turns still within the delay are judged, and of those past it
    // only the last (the bar of a game joined late), or a feed started mid-round would judge
    // whole games. A game the feed followed before (held elsewhere until now) is judged from
    // where it left off: its spectators have seen each turn of it with its analysis so far.
    let now = session.now_ms();
    let due = |e: &Event| e.time_ms.saturating_add(delay()) <= now;
    if !known && let Some(e) = pending.iter().rev().find(|e| due(e) && Analyses::judges(e)) {
        analyses.ask(&snapshot, e);
    }
    for e in pending.iter().filter(|e| known || !due(e)) {
        analyses.ask(&snapshot, e);
    }
    drop(snapshot);
    let mut listening = true;
    let mut over = false;
    // When the game ended (the time its last event shows).
    let mut ended_unix = 0;
    loop {
        // Out with what is due.
        while pending.front().is_some_and(|e| session.now_ms() >= e.time_ms.saturating_add(delay())) {
            let Some(e) = pending.pop_front() else { break };
            let unix = unix_of(&session, e.time_ms);
            let seen = |viewer| {
                let event = views::event(&e, alphabet, viewer, verdicts);
                message(id, unix, pb::watch_broadcast_response::Item::Event(event))
            };
            let racks = racks_after(session.snapshot().game(), e.number);
            feed.publish(
                id,
                seen(Viewer::Watcher),
                pb::WatchBroadcastResponse { racks, ..seen(Viewer::Revealed) },
            );
            analyses.released(feed, id, e.number, unix);
            next = e.number + 1;
            if matches!(e.kind, EventKind::GameOver { .. }) {
                over = true;
                ended_unix = unix;
                pending.clear();
            }
        }
        if over && analyses.awaited.is_empty() {
            standings(state, feed, id, &labels, ended_unix, &mut stop).await;
            return Following::Done;
        }
        if !listening && pending.is_empty() && analyses.awaited.is_empty() {
            return Following::Waiting;
        }
        // Until the next is due, or a second (a delay made shorter shows sooner).
        let wait = pending.front().map_or(REFRESH, |e| {
            let due = e.time_ms.saturating_add(delay());
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

/// How often a tournament game's feed looks, after the game's end, whether spectators see its
/// result yet (it came in a moment after the game's last event, and is held back as long).
const STANDINGS_POLL: Duration = Duration::from_millis(250);
/// How long it looks before it gives up (a result not entered by then is in the standings the
/// next game's end brings, and in GetTournament's).
const STANDINGS_WAIT: Duration = Duration::from_secs(30);

/// After the end of a tournament's game (its labels name the `tournament` and `division`): the
/// division's standings as spectators see them once the game's result is in for them.
async fn standings(
    state: &Arc<AppState>,
    feed: &Feed,
    id: Uuid,
    labels: &[(String, String)],
    ended_unix: u64,
    stop: &mut watch::Receiver<bool>,
) {
    let label = |key: &str| labels.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let (Some(slug), Some(division)) = (label("tournament"), label("division")) else { return };
    let give_up = tokio::time::Instant::now() + STANDINGS_WAIT;
    loop {
        match crate::server::tournaments::standings_with(state, &slug, &division, &id.to_string()).await {
            Ok(Some(standings)) => {
                let item = pb::BroadcastStandings { tournament: slug, division, standings };
                let shown = message(id, ended_unix, pb::watch_broadcast_response::Item::Standings(item));
                feed.publish_one(id, shown);
                return;
            }
            Ok(None) => {}
            // Labels that name no tournament here: a game labelled by hand.
            Err(e) if e.code() == tonic::Code::NotFound => return,
            Err(e) => tracing::debug!(game = %id, error = %e, "a game's standings are not read yet"),
        }
        if tokio::time::Instant::now() >= give_up {
            tracing::warn!(game = %id, tournament = %slug, "the game's result is not in its standings: no standings in its broadcast");
            return;
        }
        tokio::select! {
            () = tokio::time::sleep(STANDINGS_POLL) => {}
            _ = stop.changed() => return,
        }
    }
}

/// A game held by another replica: what its owner's feed releases of it, relayed in both
/// forms, racks and analysis included (each computed once, where the game is held). The owner
/// holds it back by the broadcast's delay; the log here drops what it has already (the owner's
/// stream starts from the game as made each time).
async fn follow_there(
    state: &Arc<AppState>,
    feed: &Feed,
    id: Uuid,
    addr: &str,
    mut stop: watch::Receiver<bool>,
) -> Following {
    let game_id = id.to_string();
    let request =
        tonic::Request::new(pb::WatchBroadcastRequest { slug: feed.slug.clone(), game_id: game_id.clone() });
    let call = |mut c: BroadcastsServiceClient<Channel>, r| async move { c.watch_broadcast(r).await };
    let Ok(upstream) = state.forwarder.forward(&game_id, addr, request, call).await else {
        return again().await;
    };
    let mut upstream = upstream.into_inner();
    loop {
        let pair = async {
            let Some(hidden) = upstream.message().await? else { return Ok(None) };
            if hidden.item.is_none() {
                return Ok(Some((hidden, None)));
            }
            let Some(revealed) = upstream.message().await? else { return Ok(None) };
            Ok::<_, Status>(Some((hidden, Some(revealed))))
        };
        tokio::select! {
            pair = pair => match pair {
                Ok(Some((hidden, Some(revealed)))) => feed.publish(id, hidden, revealed),
                Ok(Some((_, None))) => return Following::Done,
                // Ended without the game's end (the owner stopped, the game moved): found again.
                Ok(_) | Err(_) => return again().await,
            },
            _ = stop.changed() => return Following::Waiting,
        }
    }
}

//! WatchBroadcast's feed: one per broadcast on each replica, however many watch it. It finds the
//! broadcast's games as they start (every [`REFRESH`]: the store's live games with its labels),
//! follows each (here on its session, or on its owner replica through WatchGame, which holds a
//! spectator back by the same delay there), and releases each event once the game's clock has
//! passed the event's time plus the delay, into a log every stream reads from its start and then
//! live. An event is written down twice, as a watcher sees it and with every rack; a stream
//! sends the one the broadcast allows at the moment it sends it.

use super::feeds::Feed;
use super::registry::REFRESH;
use crate::game::{Event, EventKind};
use crate::host::{Route, Session, Viewer, stopped};
use crate::proto::v1 as pb;
use crate::proto::v1::games_service_client::GamesServiceClient;
use crate::server::state::AppState;
use crate::server::views;
use crate::store::{GameQuery, GameState};
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
pub(super) fn watch(
    state: &Arc<AppState>,
    kept: &super::registry::Kept,
    game: Option<Uuid>,
    deadline: Option<tokio::time::Instant>,
) -> Result<super::BroadcastStream, Status> {
    let slug = kept.broadcast.slug.clone();
    let feed = if kept.is_on() {
        start(state, &slug)
    } else {
        // Ended: what this replica released, if anything; nothing more comes.
        match state.feeds.get(&slug) {
            Some(feed) => feed,
            None => return Ok(Box::pin(tokio_stream::empty())),
        }
    };
    let (tx, out) = mpsc::channel(16);
    let state = state.clone();
    tokio::spawn(async move {
        let mut shutdown = state.shutdown.clone();
        let (mut items, mut rx) = feed.read(0, true);
        let mut next = 0u64;
        loop {
            for item in items.drain(..) {
                if item.seq < next {
                    continue;
                }
                next = item.seq + 1;
                if game.is_some_and(|g| g != item.game) {
                    continue;
                }
                // Racks as the broadcast says now: turned off, never sent again.
                let reveal = state.broadcasts.reveals(&slug);
                let message = if reveal { item.revealed.clone() } else { item.hidden.clone() };
                if tx.send(Ok(message)).await.is_err() {
                    return;
                }
            }
            let Some(live) = rx.as_mut() else { return };
            tokio::select! {
                received = live.recv() => match received {
                    Ok(item) => items.push(item),
                    // Fallen behind: the rest from the log.
                    Err(broadcast::error::RecvError::Lagged(_)) => items = feed.read(next, false).0,
                    Err(broadcast::error::RecvError::Closed) => {
                        items = feed.read(next, false).0;
                        rx = None;
                    }
                },
                _ = tx.closed() => return,
                () = stopped(&mut shutdown) => {
                    let _ = tx.send(Err(crate::server::errors::shutting_down())).await;
                    return;
                }
                () = crate::host::sleep_until(deadline) => {
                    let _ = tx.send(Err(Status::deadline_exceeded("the call's deadline passed: watch again"))).await;
                    return;
                }
            }
        }
    });
    Ok(Box::pin(tokio_stream::wrappers::ReceiverStream::new(out)))
}

/// Where a game stands for its feed.
enum Following {
    /// Found: followed from its view as the delay shows it.
    New,
    /// Its follower is at work.
    Running,
    /// Its follower stopped before the game's end (the game went to sleep, to another replica):
    /// followed again from this event.
    From(usize),
    /// Every event of the game is out.
    Done,
}

/// The feed's task: find the broadcast's games and follow them, until the broadcast ends or the
/// server stops.
async fn run(state: Arc<AppState>, feed: Arc<Feed>) {
    let mut shutdown = state.shutdown.clone();
    let (stop_tx, stop) = watch::channel(false);
    let (done_tx, mut done) = mpsc::unbounded_channel::<(Uuid, Option<usize>)>();
    let mut games: HashMap<Uuid, Following> = HashMap::new();
    while let Some(kept) = state.broadcasts.get(&feed.slug).filter(|k| k.is_on()) {
        let query =
            GameQuery { labels: kept.labels.clone(), state: GameState::Live, after: None, limit: MAX_GAMES };
        match state.host.stored_games(query).await {
            Ok(page) => {
                for id in page.ids {
                    games.entry(id).or_insert(Following::New);
                }
            }
            Err(e) => {
                tracing::warn!(broadcast = %feed.slug, error = %e, "a broadcast's games could not be listed")
            }
        }
        for (id, following) in games.iter_mut() {
            let from = match *following {
                Following::New => None,
                Following::From(n) => Some(n),
                Following::Running | Following::Done => continue,
            };
            {
                *following = Following::Running;
                let (state, feed, stop, done) = (state.clone(), feed.clone(), stop.clone(), done_tx.clone());
                let id = *id;
                tokio::spawn(async move {
                    let resume = follow(&state, &feed, id, from, stop).await;
                    let _ = done.send((id, resume));
                });
            }
        }
        tokio::select! {
            () = tokio::time::sleep(REFRESH) => {}
            () = feed.wake.notified() => {}
            Some((id, resume)) = done.recv() => {
                games.insert(id, resume.map_or(Following::Done, Following::From));
            }
            () = stopped(&mut shutdown) => break,
        }
    }
    let _ = stop_tx.send(true);
    feed.close();
}

/// Follow one game from event `from` (None: first its view as the delay shows it), publishing
/// each event when it is due. Answers where to follow it again from, or None when its last
/// event is out.
async fn follow(
    state: &Arc<AppState>,
    feed: &Feed,
    id: Uuid,
    from: Option<usize>,
    stop: watch::Receiver<bool>,
) -> Option<usize> {
    let resume = from.unwrap_or(0);
    match state.host.route(&id.to_string(), false).await {
        Ok(Route::Local(session)) => follow_here(state, feed, id, session, from, stop).await,
        Ok(Route::Remote(addr)) => follow_there(state, feed, id, &addr, from, stop).await,
        Err(e) => {
            tracing::debug!(game = %id, error = %e, "a broadcast game could not be reached; tried again");
            tokio::time::sleep(REFRESH).await;
            Some(resume)
        }
    }
}

/// Unix time of game time `ms` of a session: its clock read now, less the time since.
fn unix_of(session: &Session, ms: u64) -> u64 {
    crate::host::unix_ms().saturating_sub(session.now_ms().saturating_sub(ms))
}

fn message(id: Uuid, unix_ms: u64, item: pb::watch_broadcast_response::Item) -> pb::WatchBroadcastResponse {
    pb::WatchBroadcastResponse {
        game_id: id.to_string(),
        happened_unix_ms: unix_ms,
        item: Some(item),
        racks: Vec::new(),
    }
}

/// Every seat's rack in `game`, by seat, as text.
fn racks_of(game: &crate::game::Game) -> Vec<String> {
    let alphabet = game.config().rules.alphabet;
    (0..game.config().seats)
        .map(|s| game.rack(s).map(|r| r.to_string(alphabet)).unwrap_or_default())
        .collect()
}

/// A game held here: its events from its session, each released when due, each turn's analysis
/// (when the broadcast has it) computed as the turn is heard and released with it.
async fn follow_here(
    state: &Arc<AppState>,
    feed: &Feed,
    id: Uuid,
    session: Arc<Session>,
    from: Option<usize>,
    mut stop: watch::Receiver<bool>,
) -> Option<usize> {
    let mut rx = session.subscribe();
    let snapshot = session.snapshot();
    let labels = snapshot.labels().to_vec();
    let alphabet = snapshot.game().config().rules.alphabet;
    // Word verdicts as a watcher sees them during the game (the game's end is not shown yet).
    let verdicts = snapshot.game().config().reveal_invalid_words;
    let delay = || state.broadcasts.delay_ms(&labels);
    // A game new to the feed: as it was made, then every event, each when due (those past the
    // delay at once), so a spectator who joins late still gets every move.
    let next = match from {
        Some(n) => n,
        None => {
            let made = snapshot.as_of(None);
            let view = views::view(&id.to_string(), &made, Viewer::Watcher, 0);
            let game = message(id, unix_of(&session, 0), pb::watch_broadcast_response::Item::Game(view));
            let revealed = pb::WatchBroadcastResponse { racks: racks_of(made.game()), ..game.clone() };
            feed.publish(id, game, revealed);
            0
        }
    };
    let mut analyses = Analyses::new(state, &feed.slug);
    let mut pending: VecDeque<Arc<Event>> =
        snapshot.game().history().iter().skip(next).cloned().map(Arc::new).collect();
    // Turns still within the delay are judged; of those past it, only the last (the bar of a
    // game joined late), or a feed started mid-round would judge whole games.
    let now = session.now_ms();
    let due = |e: &Event| e.time_ms.saturating_add(delay()) <= now;
    if let Some(e) = pending.iter().rev().find(|e| due(e) && Analyses::judges(e)) {
        analyses.ask(&snapshot, e);
    }
    for e in pending.iter().filter(|e| !due(e)) {
        analyses.ask(&snapshot, e);
    }
    drop(snapshot);
    let mut next = next;
    let mut listening = true;
    let mut over = false;
    loop {
        // Out with what is due.
        while let Some(e) = pending.front() {
            if session.now_ms() < e.time_ms.saturating_add(delay()) {
                break;
            }
            let e = pending.pop_front().expect("looked at");
            let unix = unix_of(&session, e.time_ms);
            let seen = |viewer| {
                let event = views::event(&e, alphabet, viewer, verdicts);
                message(id, unix, pb::watch_broadcast_response::Item::Event(event))
            };
            // The racks after the event: the game as of its moment.
            let racks = racks_of(session.snapshot().as_of(Some(e.time_ms)).game());
            feed.publish(
                id,
                seen(Viewer::Watcher),
                pb::WatchBroadcastResponse { racks, ..seen(Viewer::Revealed) },
            );
            analyses.released(feed, id, e.number, unix);
            next = e.number + 1;
            if matches!(e.kind, EventKind::GameOver { .. }) {
                over = true;
                pending.clear();
            }
        }
        if over && analyses.awaited.is_empty() {
            return None;
        }
        if !listening && pending.is_empty() && analyses.awaited.is_empty() {
            return Some(next);
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
            _ = stop.changed() => return Some(next),
        }
    }
}

/// One turn judged for the spectators, in both forms: as a watcher may see it, and with the
/// mover's rack.
struct Judged {
    hidden: pb::MoveAnalysis,
    revealed: pb::MoveAnalysis,
}

/// A followed game's analyses: asked as each turn is heard, released with the turn's event.
struct Analyses {
    state: Arc<AppState>,
    slug: String,
    done: mpsc::UnboundedReceiver<(usize, Option<Judged>)>,
    tx: mpsc::UnboundedSender<(usize, Option<Judged>)>,
    /// Judged before their event was released, by event number.
    ready: HashMap<usize, Option<Judged>>,
    /// Asked and not yet judged, by event number.
    asked: std::collections::HashSet<usize>,
    /// Events released whose analysis is still being judged, with the time they happened.
    awaited: HashMap<usize, u64>,
}

impl Analyses {
    fn new(state: &Arc<AppState>, slug: &str) -> Analyses {
        let (tx, done) = mpsc::unbounded_channel();
        Analyses {
            state: state.clone(),
            slug: slug.to_string(),
            done,
            tx,
            ready: HashMap::new(),
            asked: Default::default(),
            awaited: HashMap::new(),
        }
    }

    /// Whether `e` took a turn the engine judges: a play, an exchange or a pass.
    fn judges(e: &Event) -> bool {
        !e.undone && matches!(e.kind, EventKind::Play { .. } | EventKind::Exchange { .. } | EventKind::Pass)
    }

    /// Judge the turn event `e` took, if it took one and the broadcast has analysis: on the
    /// background lane, from `snapshot` (the game with `e` in it).
    fn ask(&mut self, snapshot: &Arc<crate::host::Snapshot>, e: &Event) {
        let Some(kept) = self.state.broadcasts.get(&self.slug) else { return };
        let judged_kind =
            matches!(e.kind, EventKind::Play { .. } | EventKind::Exchange { .. } | EventKind::Pass);
        if !kept.broadcast.analysis || !judged_kind || e.undone || !self.asked.insert(e.number) {
            return;
        }
        let (snapshot, tx, metrics) = (snapshot.clone(), self.tx.clone(), self.state.metrics.clone());
        let (number, ms) = (e.number, kept.broadcast.analysis_ms);
        self.state.host.think_in_background(move || {
            let judged = judge(snapshot.game(), number, Duration::from_millis(u64::from(ms)));
            metrics.broadcast_analyses.inc();
            let _ = tx.send((number, judged));
        });
    }

    /// Event `number` is out: its analysis follows it now if it is ready, else when it is.
    fn released(&mut self, feed: &Feed, id: Uuid, number: usize, unix_ms: u64) {
        if let Some(judged) = self.ready.remove(&number) {
            publish_analysis(feed, id, unix_ms, judged);
        } else if self.asked.contains(&number) {
            self.awaited.insert(number, unix_ms);
        }
    }

    /// The analysis of event `number`'s turn is done.
    fn judged(&mut self, feed: &Feed, id: Uuid, number: usize, judged: Option<Judged>) {
        self.asked.remove(&number);
        match self.awaited.remove(&number) {
            Some(unix_ms) => publish_analysis(feed, id, unix_ms, judged),
            None => {
                self.ready.insert(number, judged);
            }
        }
    }
}

fn publish_analysis(feed: &Feed, id: Uuid, unix_ms: u64, judged: Option<Judged>) {
    let Some(j) = judged else { return };
    let item = |a| message(id, unix_ms, pb::watch_broadcast_response::Item::Analysis(a));
    feed.publish(id, item(j.hidden), item(j.revealed));
}

/// Judge the turn that event `number` of `game` took, within `per_turn`: each side's chance after
/// it from the scores and tiles left (public), and the review of the turn with the mover's rack.
fn judge(game: &crate::game::Game, number: usize, per_turn: Duration) -> Option<Judged> {
    let history = game.history();
    let e = history.get(number)?;
    let turn = history[..number].iter().filter(|f| !f.undone && f.kind.takes_turn()).count() as u32;
    let after = game.as_of(Some(e.time_ms));
    let seats = after.config().seats;
    let two = |mover_win: f64| {
        if seats != 2 || !mover_win.is_finite() {
            return Vec::new();
        }
        let mut w = vec![0.0; 2];
        w[e.seat] = 100.0 * mover_win;
        w[1 - e.seat] = 100.0 - 100.0 * mover_win;
        w
    };
    // In public: the side to move after the turn, by its lead and the tiles still to be played.
    let to_move = after.to_move();
    let scores = after.scores();
    let tiles_left =
        after.bag_len() + (0..seats).filter_map(|s| after.rack(s)).map(|r| r.len()).sum::<usize>();
    let table = crate::winprob::WinTable::shipped(after.config().rules.kind);
    let p = table.probability(f64::from(scores[to_move] - scores[(to_move + 1) % seats]), tiles_left);
    let public_mover = if to_move == e.seat { p } else { 1.0 - p };
    let hidden = pb::MoveAnalysis {
        turn,
        seat: e.seat as u32,
        event: number as u64,
        win_percent: two(public_mover),
        review: None,
    };
    let options = crate::review::Options { per_turn, ..Default::default() };
    let review = crate::review::review_turn(game, turn, true, &options).filter(|r| r.analysable);
    let revealed = match &review {
        Some(r) => pb::MoveAnalysis {
            win_percent: two(r.played.win),
            review: Some(crate::server::review::turn_to(r, game.config().rules.alphabet)),
            ..hidden.clone()
        },
        None => hidden.clone(),
    };
    Some(Judged { hidden, revealed })
}

/// A game held by another replica: its owner's view and WatchGame for a watcher, which the owner
/// holds back by the same delay (without racks: those stay on the replica that holds the game).
async fn follow_there(
    state: &Arc<AppState>,
    feed: &Feed,
    id: Uuid,
    addr: &str,
    from: Option<usize>,
    mut stop: watch::Receiver<bool>,
) -> Option<usize> {
    let game_id = id.to_string();
    let mut next = match from {
        Some(n) => n,
        None => {
            let request = tonic::Request::new(pb::GetGameRequest { game_id: game_id.clone() });
            let call = |mut c: GamesServiceClient<Channel>, r| async move { c.get_game(r).await };
            let Ok(view) = state.forwarder.forward(&game_id, addr, request, call).await else {
                tokio::time::sleep(REFRESH).await;
                return from;
            };
            let Some(view) = view.into_inner().view else { return from };
            let n = view.events as usize;
            let game = message(id, crate::host::unix_ms(), pb::watch_broadcast_response::Item::Game(view));
            feed.publish(id, game.clone(), game);
            n
        }
    };
    let request =
        tonic::Request::new(pb::WatchGameRequest { game_id: game_id.clone(), from_event: next as u64 });
    let call = |mut c: GamesServiceClient<Channel>, r| async move { c.watch_game(r).await };
    let Ok(upstream) = state.forwarder.forward(&game_id, addr, request, call).await else {
        tokio::time::sleep(REFRESH).await;
        return Some(next);
    };
    let mut upstream = upstream.into_inner();
    loop {
        tokio::select! {
            m = upstream.message() => match m {
                Ok(Some(e)) => {
                    next = e.number as usize + 1;
                    let over = e.kind == "game_over";
                    let m = message(id, crate::host::unix_ms(), pb::watch_broadcast_response::Item::Event(e));
                    feed.publish(id, m.clone(), m);
                    if over {
                        return None;
                    }
                }
                Ok(None) | Err(_) => return Some(next),
            },
            _ = stop.changed() => return Some(next),
        }
    }
}

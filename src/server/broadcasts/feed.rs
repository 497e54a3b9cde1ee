//! WatchBroadcast's feed: one per broadcast on each replica, however many watch it. It finds the
//! broadcast's games as they start (every [`REFRESH`]: the store's live games with its labels),
//! follows each (here on its session, or on its owner replica through WatchGame, which holds a
//! spectator back by the same delay there), and releases each event once the game's clock has
//! passed the event's time plus the delay, into a log every stream reads from its start and then
//! live. An event is written down twice, as a watcher sees it and with every rack; a stream
//! sends the one the broadcast allows at the moment it sends it.

use super::analysis::Analyses;
use super::feeds::{Feed, message};
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
    /// Found, and nothing of it published yet: followed from the start.
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
    let (done_tx, mut done) = mpsc::unbounded_channel::<(Uuid, Following)>();
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
            *following = Following::Running;
            let (state, feed, stop, done) = (state.clone(), feed.clone(), stop.clone(), done_tx.clone());
            let id = *id;
            tokio::spawn(async move {
                let next = follow(&state, &feed, id, from, stop).await;
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
}

/// Follow one game from event `from` (None: from the start, its `game` item first), publishing
/// each event when it is due. Answers where the game stands when it stops: done, or to be
/// followed again from where it got to (from the start, when nothing of it went out).
async fn follow(
    state: &Arc<AppState>,
    feed: &Feed,
    id: Uuid,
    from: Option<usize>,
    stop: watch::Receiver<bool>,
) -> Following {
    match state.host.route(&id.to_string(), false).await {
        Ok(Route::Local(session)) => follow_here(state, feed, id, session, from, stop).await,
        Ok(Route::Remote(addr)) => follow_there(state, feed, id, &addr, from, stop).await,
        Err(e) => {
            tracing::debug!(game = %id, error = %e, "a broadcast game could not be reached; tried again");
            again(from).await
        }
    }
}

/// A game that could not be followed now: followed again a moment later from where it was.
async fn again(from: Option<usize>) -> Following {
    tokio::time::sleep(REFRESH).await;
    from.map_or(Following::New, Following::From)
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
    from: Option<usize>,
    mut stop: watch::Receiver<bool>,
) -> Following {
    let mut rx = session.subscribe();
    let snapshot = session.snapshot();
    let labels = snapshot.labels().to_vec();
    let alphabet = snapshot.game().config().rules.alphabet;
    // Word verdicts as a watcher sees them during the game (the game's end is not shown yet).
    let verdicts = snapshot.game().config().reveal_invalid_words;
    let delay = || state.broadcasts.delay_ms(&labels);
    // A game new to the feed: as it was made, then every event, each when due (those past the
    // delay at once), so a spectator who joins late still gets every move.
    let mut next = match from {
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
    let mut listening = true;
    let mut over = false;
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
                pending.clear();
            }
        }
        if over && analyses.awaited.is_empty() {
            return Following::Done;
        }
        if !listening && pending.is_empty() && analyses.awaited.is_empty() {
            return Following::From(next);
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
            _ = stop.changed() => return Following::From(next),
        }
    }
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
) -> Following {
    let game_id = id.to_string();
    let mut next = match from {
        Some(n) => n,
        None => {
            let request = tonic::Request::new(pb::GetGameRequest { game_id: game_id.clone() });
            let call = |mut c: GamesServiceClient<Channel>, r| async move { c.get_game(r).await };
            let Ok(Some(view)) =
                state.forwarder.forward(&game_id, addr, request, call).await.map(|v| v.into_inner().view)
            else {
                return again(from).await;
            };
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
        return again(Some(next)).await;
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
                        return Following::Done;
                    }
                }
                Ok(None) | Err(_) => return Following::From(next),
            },
            _ = stop.changed() => return Following::From(next),
        }
    }
}

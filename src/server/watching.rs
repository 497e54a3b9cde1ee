//! WatchGame: a game's events from any number, then live, as the caller may see them. The
//! stream subscribes before it reads the snapshot (no event falls between them), replays from
//! the snapshot when it lags, and ends naming the event to resume from when the game goes
//! (asleep, another replica's), the server stops or the caller's deadline passes. A game owned
//! by another replica is watched there and passed on.

use super::errors;
use super::games::{EventStream, GamesService};
use super::views;
use crate::host::{Route, sleep_until, stopped};
use crate::proto::v1 as pb;
use crate::proto::v1::games_service_client::GamesServiceClient;
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;
use tonic::transport::Channel;
use tonic::{Request, Response, Status};

impl GamesService {
    /// WatchGame: every event from `from_event`, then the live ones, here or passed on from
    /// the owner.
    pub(super) async fn watch(
        &self,
        request: Request<pb::WatchGameRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let id = request.get_ref().game_id.clone();
        let session = match self.state.route(&id, &request).await? {
            Route::Local(s) => s,
            Route::Remote(addr) => return self.watch_remote(&id, &addr, request).await,
        };
        let from = request.get_ref().from_event as usize;
        let deadline = super::caller::deadline(&request).map(tokio::time::Instant::from_std);
        let cap = self.state.limits.streams_per_game;
        let slot = session.add_watcher(cap).ok_or_else(|| errors::watchers_full(cap))?;
        // Subscribe before reading the snapshot, so no event falls between the two.
        let mut rx = session.subscribe();
        let snapshot = session.snapshot();
        let viewer = self.state.identity.viewer(request.metadata(), &snapshot).await?;
        if !self.state.events.is_out(snapshot.labels(), viewer, session.now_ms()) {
            // Not out for this spectator yet (made less than a broadcast's delay ago): no game.
            return Err(errors::host(crate::host::HostError::NoGame(id)));
        }
        let alphabet = snapshot.game().config().rules.alphabet;
        let history = snapshot.game().history();
        let backlog: Vec<_> = history[from.min(history.len())..].to_vec();
        // Everything of a finished game is in its snapshot: the backlog is all there will be.
        let over = snapshot.game().is_over();
        let verdicts = viewer.sees_verdicts(snapshot.game());
        // A spectator of a broadcast game gets each event once the delay has passed.
        let held_back = viewer.delayed().then(|| (self.state.clone(), snapshot.labels().to_vec()));
        drop(snapshot);
        let (tx, out) = tokio::sync::mpsc::channel(64);
        let mut shutdown = self.state.shutdown.clone();
        tokio::spawn(async move {
            let slot = slot;
            let mut next = from;
            let send = |e: &crate::game::Event| views::event(e, alphabet, viewer, verdicts);
            for e in &backlog {
                if !shown(&held_back, slot.session(), e, &tx, &mut shutdown, deadline).await {
                    return;
                }
                if tx.send(Ok(send(e))).await.is_err() {
                    return;
                }
                next = e.number + 1;
                if matches!(e.kind, crate::game::EventKind::GameOver { .. }) {
                    return;
                }
            }
            if over {
                // Watched from its end (or past it): nothing more will come; close with OK.
                return;
            }
            loop {
                let received = tokio::select! {
                    r = rx.recv() => r,
                    // The client went away: free its slot now, not at the game's next event.
                    _ = tx.closed() => return,
                    () = stopped(&mut shutdown) => {
                        let _ = tx.send(Err(errors::shutting_down_from(next))).await;
                        return;
                    }
                    () = slot.session().gone() => {
                        let _ = tx.send(Err(errors::watch_again_from(next))).await;
                        return;
                    }
                    // The caller's deadline: the watch ends, as every call does by then.
                    () = sleep_until(deadline) => {
                        let _ = tx.send(Err(errors::deadline_passed_from(next))).await;
                        return;
                    }
                };
                let events: Vec<Arc<crate::game::Event>> = match received {
                    Ok(e) => vec![e],
                    Err(RecvError::Lagged(_)) => {
                        // Replay what was missed from the snapshot: never a silent gap.
                        let snapshot = slot.session().snapshot();
                        let history = snapshot.game().history();
                        history[next.min(history.len())..].iter().cloned().map(Arc::new).collect()
                    }
                    Err(RecvError::Closed) => return,
                };
                for e in events {
                    if e.number < next {
                        continue;
                    }
                    if !shown(&held_back, slot.session(), &e, &tx, &mut shutdown, deadline).await {
                        return;
                    }
                    next = e.number + 1;
                    let over = matches!(e.kind, crate::game::EventKind::GameOver { .. });
                    if tx.send(Ok(send(&e))).await.is_err() {
                        return;
                    }
                    if over {
                        return;
                    }
                }
            }
        });
        Ok(Response::new(Box::pin(tokio_stream::wrappers::ReceiverStream::new(out))))
    }

    /// A watch of a game owned by another replica: the owner's stream, passed on. If the owner
    /// goes away mid-stream, the stream ends with UNAVAILABLE naming the event to resume from.
    async fn watch_remote(
        &self,
        id: &str,
        addr: &str,
        request: Request<pb::WatchGameRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let from = request.get_ref().from_event;
        let mut upstream = self
            .state
            .forwarder
            .forward(id, addr, request, |mut c: GamesServiceClient<Channel>, r| async move {
                c.watch_game(r).await
            })
            .await?
            .into_inner();
        let (tx, out) = tokio::sync::mpsc::channel(64);
        let mut shutdown = self.state.shutdown.clone();
        tokio::spawn(async move {
            let mut next = from as usize;
            loop {
                let message = tokio::select! {
                    m = upstream.message() => m,
                    _ = tx.closed() => return,
                    () = stopped(&mut shutdown) => {
                        let _ = tx.send(Err(errors::shutting_down_from(next))).await;
                        return;
                    }
                };
                match message {
                    Ok(Some(e)) => {
                        next = e.number as usize + 1;
                        if tx.send(Ok(e)).await.is_err() {
                            return;
                        }
                    }
                    Ok(None) => return,
                    Err(status)
                        if status.code() == tonic::Code::Unavailable
                            || status.code() == tonic::Code::Unknown =>
                    {
                        let _ = tx.send(Err(errors::watch_again_from(next))).await;
                        return;
                    }
                    Err(status) => {
                        let _ = tx.send(Err(status)).await;
                        return;
                    }
                }
            }
        });
        Ok(Response::new(Box::pin(tokio_stream::wrappers::ReceiverStream::new(out))))
    }
}

/// What holds a spectator's events back: the server's state and the game's labels (None: a
/// viewer the broadcasts' delay does not hold back).
type HeldBack = Option<(std::sync::Arc<super::state::AppState>, Vec<(String, String)>)>;

/// Wait until event `e` may be shown: at once for a viewer not held back; for a broadcast's
/// spectator, once the game's clock is past the event's time plus the delay of the broadcasts
/// that cover the game (looked at again at least every second, so a changed delay holds at
/// once). False when the stream ends first (the client gone, shutdown, the caller's deadline:
/// its last word sent, naming this event to resume from).
async fn shown(
    held_back: &HeldBack,
    session: &crate::host::Session,
    e: &crate::game::Event,
    tx: &tokio::sync::mpsc::Sender<Result<pb::WatchGameResponse, Status>>,
    shutdown: &mut tokio::sync::watch::Receiver<bool>,
    deadline: Option<tokio::time::Instant>,
) -> bool {
    let Some((state, labels)) = held_back else { return true };
    loop {
        let due = e.time_ms.saturating_add(state.events.broadcasts().delay_ms(labels));
        let now = session.now_ms();
        if now >= due {
            return true;
        }
        let wait = std::time::Duration::from_millis(due - now).min(dawgref_events::REFRESH);
        let last = tokio::select! {
            () = tokio::time::sleep(wait) => continue,
            _ = tx.closed() => return false,
            () = stopped(shutdown) => errors::shutting_down_from(e.number),
            () = sleep_until(deadline) => errors::deadline_passed_from(e.number),
        };
        let _ = tx.send(Err(last)).await;
        return false;
    }
}

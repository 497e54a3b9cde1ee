//! The review jobs' worker, one per replica (`Builder::start` spawns it): it claims the oldest
//! job the store holds ([`Events::claim_review`](dawgref_events::Events::claim_review)), reviews
//! its game as AnalyzeGame reviews a stored game (`review::review_to_keep`: the turns judged on
//! the thinking pool's background lane, on every slot but the one kept for the live games' bots),
//! and finishes the job with the review in one write, which lands only while the job is still its
//! claim's. One job at a time. It looks for a job when a change on this replica asks
//! for reviews, and every second among replicas (another's changes), every ten on one node. A
//! job whose game or store cannot be read just now is handed back (its attempt not counted) and
//! the worker waits a little before its next claim.
//!
//! A job's game is fingerprinted (the hash of its whole GCG, every rack shown): a job asked
//! again whose game is as its kept review judged it is finished without reviewing again.

use super::review::{SourceError, kept_key, review_to_keep, stored_source};
use super::state::AppState;
use dawgref_events::{ReviewJob, ReviewJobEnd};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use uuid::Uuid;

/// How long the worker waits between looks when nothing asked it: other replicas' asks are found
/// this late at most.
const LOOK_AMONG_REPLICAS: Duration = Duration::from_secs(1);
const LOOK_ALONE: Duration = Duration::from_secs(10);

/// Work the jobs as `owner` (the replica's id, or this process's) until the server shuts down.
pub(crate) async fn run(state: Arc<AppState>, owner: Uuid) {
    let mut shutdown = state.host.shutdown();
    let look = if state.host.peers().is_some() { LOOK_AMONG_REPLICAS } else { LOOK_ALONE };
    loop {
        if *shutdown.borrow() {
            return;
        }
        let pause = match state.events.claim_review(owner).await {
            Ok(Some(job)) => match review(&state, owner, job, &shutdown).await {
                Went::On => continue,
                // The store or the game could not be read just now: the job is handed back and
                // the next look waits, so that a passing failure uses none of its attempts.
                Went::Back => BACK_OFF,
            },
            Ok(None) => look,
            Err(e) => {
                tracing::warn!(error = %e, "claiming a review job failed; looking again later");
                BACK_OFF
            }
        };
        tokio::select! {
            _ = state.events.reviews_asked(), if pause == look => {}
            _ = tokio::time::sleep(pause) => {}
            _ = shutdown.changed() => return,
        }
    }
}

/// How long the worker waits after a failure that may pass.
const BACK_OFF: Duration = Duration::from_secs(5);

/// How a claimed job went: finished (or moved on), or handed back to be tried later.
enum Went {
    On,
    Back,
}

/// The fingerprint of a game as a review judges it: its whole record, every rack shown.
fn fingerprint(game: &crate::game::Game, names: &[String]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(crate::game::record::write_gcg(game, names).as_bytes())
}

/// One claimed job: its game reviewed (or found as its kept review judged it, or in play, or
/// gone) and the job finished so; or, when its game cannot be read just now, handed back.
async fn review(
    state: &AppState,
    owner: Uuid,
    job: ReviewJob,
    shutdown: &tokio::sync::watch::Receiver<bool>,
) -> Went {
    let id = job.game.to_string();
    let end = match state.host.snapshot(&id).await {
        Err(e) if e.is_unavailable() => {
            tracing::warn!(game = %id, error = %e, "a review job's game could not be read; handed back");
            ReviewJobEnd::Released
        }
        Err(e) => ReviewJobEnd::Failed(format!("the game could not be read: {e}")),
        Ok(snapshot) if crate::host::reviewable(snapshot.game()).is_err() => ReviewJobEnd::Waiting,
        Ok(snapshot) => match judged(state, &job, &snapshot, shutdown).await {
            Some(end) => end,
            // Shut down mid-review: left as this replica's claim, which the next claim takes.
            None => return Went::On,
        },
    };
    let made = matches!(end, ReviewJobEnd::Reviewed { body: Some(_), .. });
    let back = matches!(end, ReviewJobEnd::Released);
    match state.events.finish_review(&job, owner, end).await {
        Ok(true) if made => state.host.metrics().reviews_made.inc(),
        Ok(true) => {}
        // Asked again (its game changed) while it ran: the next claim reviews the game as it is.
        Ok(false) => tracing::debug!(game = %id, "a review job moved on while it ran"),
        Err(e) => {
            // Still this worker's claim: its next claim (or another replica's, once this one is
            // gone) takes it again.
            tracing::warn!(game = %id, error = %e, "finishing a review job failed; it is taken again later");
            return Went::Back;
        }
    }
    if back { Went::Back } else { Went::On }
}

/// A finished game's job ended: the review kept found to judge this very game, or the review
/// made; None when the server shut down while it was made.
async fn judged(
    state: &AppState,
    job: &ReviewJob,
    snapshot: &crate::host::Snapshot,
    shutdown: &tokio::sync::watch::Receiver<bool>,
) -> Option<ReviewJobEnd> {
    let names: Vec<String> = snapshot.seats().iter().map(|s| s.name().to_string()).collect();
    let print = fingerprint(snapshot.game(), &names);
    let seats: Vec<usize> = (0..snapshot.game().config().seats).collect();
    let key = kept_key(&seats, job.ms, 0);
    if job.fingerprint == Some(print)
        && state.host.kept_review(job.game, key.clone()).await.is_ok_and(|r| r.is_some())
    {
        return Some(ReviewJobEnd::Reviewed { key, body: None, fingerprint: print });
    }
    let source = match stored_source(state, job.game, snapshot).await {
        Ok(source) => source,
        Err(SourceError::Store(e)) if e.is_unavailable() => return Some(ReviewJobEnd::Released),
        Err(SourceError::Store(e)) => return Some(ReviewJobEnd::Failed(e.to_string())),
        Err(SourceError::Record(why)) => return Some(ReviewJobEnd::Failed(why)),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let mut shutdown = shutdown.clone();
    let reviewed = tokio::select! {
        reviewed = review_to_keep(state, source, job.ms, stop.clone()) => reviewed,
        _ = shutdown.wait_for(|down| *down) => {
            stop.store(true, Ordering::Relaxed);
            return None;
        }
    };
    Some(match reviewed {
        Ok(body) => ReviewJobEnd::Reviewed { key, body: Some(body), fingerprint: print },
        Err(why) => ReviewJobEnd::Failed(why),
    })
}

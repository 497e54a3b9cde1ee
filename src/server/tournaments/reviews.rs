//! The event's games reviewed as durable jobs, on the wire: ReviewGames and SetDivisionReviews
//! (the events layer's commands, made by a director), and WatchReviews (where the jobs stand,
//! for the directors). The jobs are worked by each replica's reviewer (`server::reviewer`).

use super::{TournamentsService, Wire, division_of};
use crate::proto::v1 as pb;
use crate::server::errors;
use dawgref_events::{Command, Record, ReviewJob, ReviewJobState, ReviewScope, review_ms};
use std::pin::Pin;
use std::time::{Duration, Instant};
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

pub(super) type ReviewStream = Pin<Box<dyn Stream<Item = Result<pb::WatchReviewsResponse, Status>> + Send>>;

/// How often WatchReviews looks at the jobs.
const LOOK_EVERY: Duration = Duration::from_secs(1);

/// The turns a game is taken to have before its review says (a two-player game's usual count):
/// the estimate before any job is seen done.
const TURNS_A_GAME: u64 = 26;

pub(super) async fn review_games(
    service: &TournamentsService,
    request: Request<pb::ReviewGamesRequest>,
) -> Result<Response<pb::ReviewGamesResponse>, Status> {
    let r = request.get_ref();
    let actor = service.director(request.metadata(), &r.slug).await?;
    let ms = review_ms(r.ms_per_turn).map_err(errors::invalid)?;
    let scope = ReviewScope { division: r.division.clone(), round: r.round };
    let answer = |_: &Record, games| Wire(pb::ReviewGamesResponse { games, ms_per_turn: ms });
    let asked = service.state.events.review_games(&r.slug, &actor, &r.request_id, &scope, ms, answer);
    Ok(Response::new(asked.await.map_err(errors::events)?.0))
}

pub(super) async fn set_division_reviews(
    service: &TournamentsService,
    request: Request<pb::SetDivisionReviewsRequest>,
) -> Result<Response<pb::SetDivisionReviewsResponse>, Status> {
    let r = request.get_ref();
    let command = Command::SetReviews { division: r.division.clone(), ms: r.ms_per_turn };
    let answer = |rec: &Record, o| pb::SetDivisionReviewsResponse { division: division_of(rec, o) };
    service.command(request.metadata(), &r.slug, &r.request_id, command, answer).await.map(Response::new)
}

pub(super) async fn watch_reviews(
    service: &TournamentsService,
    request: Request<pb::WatchReviewsRequest>,
) -> Result<Response<ReviewStream>, Status> {
    let slug = request.get_ref().slug.clone();
    service.director(request.metadata(), &slug).await?;
    // The tournament is there (NOT_FOUND otherwise).
    service.state.events.reconcile(&slug).await.map_err(errors::events)?;
    let events = service.state.events.clone();
    // A replica's reviews judge on every slot of its pool but one (`review::review_to_keep`).
    let threads = service.state.host.widest_search().max(1) as u64;
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let mut shutdown = service.state.host.shutdown();
    tokio::spawn(async move {
        let started = Instant::now();
        let mut first_done: Option<u32> = None;
        let mut last: Option<pb::WatchReviewsResponse> = None;
        loop {
            let jobs = match events.review_jobs(&slug).await {
                Ok(jobs) => jobs,
                Err(e) => {
                    let _ = tx.send(Err(errors::events(e))).await;
                    return;
                }
            };
            let mut message = progress(&jobs);
            let seen = *first_done.get_or_insert(message.done);
            message.eta_ms = eta(&jobs, message.done.saturating_sub(seen), started.elapsed(), threads);
            // Sent when a job moved (the estimate alone does not make a message).
            let moved = last.as_ref().is_none_or(|l| l.jobs != message.jobs);
            if moved {
                last = Some(message.clone());
                if tx.send(Ok(message)).await.is_err() {
                    return;
                }
            }
            tokio::select! {
                _ = tx.closed() => return,
                _ = tokio::time::sleep(LOOK_EVERY) => {}
                _ = shutdown.changed() => {
                    let _ = tx.send(Err(errors::shutting_down())).await;
                    return;
                }
            }
        }
    });
    Ok(Response::new(Box::pin(tokio_stream::wrappers::ReceiverStream::new(rx))))
}

/// The jobs as the wire shows them, counted.
fn progress(jobs: &[ReviewJob]) -> pb::WatchReviewsResponse {
    let count = |state| jobs.iter().filter(|j| j.state == state).count() as u32;
    pb::WatchReviewsResponse {
        jobs: jobs.iter().map(job_to).collect(),
        total: jobs.len() as u32,
        done: count(ReviewJobState::Done),
        failed: count(ReviewJobState::Failed),
        eta_ms: 0,
    }
}

/// The time left for the jobs queued and running: at the pace this stream saw (`done_seen` in
/// `elapsed`), or before any, [`TURNS_A_GAME`] turns a job at its time a turn on `threads` (a
/// replica's, as if it were alone).
fn eta(jobs: &[ReviewJob], done_seen: u32, elapsed: Duration, threads: u64) -> u64 {
    let left: Vec<&ReviewJob> =
        jobs.iter().filter(|j| matches!(j.state, ReviewJobState::Queued | ReviewJobState::Running)).collect();
    if left.is_empty() {
        return 0;
    }
    if done_seen > 0 {
        return (elapsed.as_millis() as u64).saturating_mul(left.len() as u64) / u64::from(done_seen);
    }
    left.iter().map(|j| u64::from(j.ms) * TURNS_A_GAME).sum::<u64>() / threads
}

fn job_to(j: &ReviewJob) -> pb::ReviewJob {
    pb::ReviewJob {
        game_id: j.game.to_string(),
        division: j.division.clone(),
        round: j.round,
        ms_per_turn: j.ms,
        state: match j.state {
            ReviewJobState::Queued => pb::ReviewJobState::Queued,
            ReviewJobState::Running => pb::ReviewJobState::Running,
            ReviewJobState::Done => pb::ReviewJobState::Done,
            ReviewJobState::Waiting => pb::ReviewJobState::Waiting,
            ReviewJobState::Failed => pb::ReviewJobState::Failed,
        } as i32,
        attempts: j.attempts,
        error: j.error.clone().unwrap_or_default(),
        asked: j.generation as u32,
    }
}

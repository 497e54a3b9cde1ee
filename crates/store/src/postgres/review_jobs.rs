//! The review jobs as rows (`review_jobs`): asked by a tournament's change in its transaction,
//! claimed with `FOR UPDATE SKIP LOCKED` (two replicas claiming at once take two jobs, never one
//! twice) under the claiming replica's heartbeat (a job whose replica's heartbeat has expired, or
//! the claiming replica's own left job, is claimable again), finished by the writer with its
//! review. `ReviewJobStore for PgStore` is `game_store.rs`'s, with the other traits' doors.

use super::{PgStore, timed};
use crate::StoreError;
use crate::review_jobs::{
    FinishedReview, MAX_ATTEMPTS, ReviewJob, ReviewJobEnd, ReviewJobState, ReviewOrder, end_columns, gave_up,
};
use uuid::Uuid;

const COLUMNS: &str =
    "game, ms, slug, division, round, state, generation, attempts, owner, fingerprint, error";

/// A running job was left: by the claiming replica itself (`$1`, which works one job at a time),
/// or by a replica with no live heartbeat.
const LEFT: &str = "(j.owner = $1 OR NOT EXISTS (SELECT 1 FROM replicas r WHERE r.id = j.owner AND r.expires > clock_timestamp()))";

fn job_of(r: &tokio_postgres::Row) -> Result<ReviewJob, StoreError> {
    Ok(ReviewJob {
        game: r.get(0),
        ms: r.get::<_, i64>(1) as u32,
        slug: r.get(2),
        division: r.get(3),
        round: r.get::<_, i64>(4) as u32,
        state: ReviewJobState::of_name(r.get(5))?,
        generation: r.get::<_, i64>(6) as u64,
        attempts: r.get::<_, i64>(7) as u32,
        owner: r.get(8),
        // Kept as the bits of a signed integer.
        fingerprint: r.get::<_, Option<i64>>(9).map(|f| f as u64),
        error: r.get(10),
    })
}

/// The orders a tournament change carries, run in its transaction.
pub(super) async fn write_orders(
    tx: &tokio_postgres::Transaction<'_>,
    slug: &str,
    orders: &[ReviewOrder],
) -> Result<(), tokio_postgres::Error> {
    for order in orders {
        match order {
            ReviewOrder::Queue { game, ms, division, round } => {
                tx.execute(
                    "INSERT INTO review_jobs (game, ms, slug, division, round, state, generation, attempts, queued_at)
                     VALUES ($1, $2, $3, $4, $5, 'queued', 1, 0, clock_timestamp())
                     ON CONFLICT (game, ms) DO UPDATE SET state = 'queued', generation = review_jobs.generation + 1,
                         attempts = 0, owner = NULL, error = NULL, queued_at = clock_timestamp()
                     WHERE review_jobs.state <> 'queued'",
                    &[game, &(*ms as i64), &slug, division, &(*round as i64)],
                )
                .await?;
            }
            ReviewOrder::Redo { game } => {
                tx.execute(
                    "UPDATE review_jobs SET state = 'queued', generation = generation + 1, attempts = 0,
                         owner = NULL, error = NULL, queued_at = clock_timestamp()
                     WHERE game = $1 AND state <> 'queued'",
                    &[game],
                )
                .await?;
            }
        }
    }
    Ok(())
}

/// A claimed job's end with its review, or nothing when the job moved on.
pub(super) async fn write_finish(
    tx: &tokio_postgres::Transaction<'_>,
    f: &FinishedReview,
) -> Result<Result<(), StoreError>, tokio_postgres::Error> {
    let (state, fingerprint, error) = end_columns(&f.end);
    let n = tx
        .execute(
            "UPDATE review_jobs SET state = $5, fingerprint = COALESCE($6, fingerprint), error = $7,
                 attempts = attempts - CASE WHEN $5 = 'queued' THEN 1 ELSE 0 END,
                 owner = CASE WHEN $5 = 'queued' THEN NULL ELSE owner END
             WHERE game = $1 AND ms = $2 AND generation = $3 AND owner = $4 AND state = 'running'",
            &[&f.game, &(f.ms as i64), &(f.generation as i64), &f.owner, &state, &fingerprint, &error],
        )
        .await?;
    if n == 0 {
        return Ok(Err(StoreError::ReviewJobMoved(f.game)));
    }
    if let ReviewJobEnd::Reviewed { key, body: Some(body), .. } = &f.end {
        tx.execute(
            "INSERT INTO reviews (game, key, body) VALUES ($1, $2, $3)
             ON CONFLICT (game, key) DO UPDATE SET body = EXCLUDED.body",
            &[&f.game, key, body],
        )
        .await?;
    }
    Ok(Ok(()))
}

/// The oldest job claimable claimed for `owner` ([`ReviewJobStore::claim_review_job`]).
pub(super) async fn claim(store: &PgStore, owner: Uuid) -> Result<Option<ReviewJob>, StoreError> {
    let client = store.client().await?;
    // Rows another claim or the writer holds are skipped (never waited on in another order than
    // theirs): given up at a later claim.
    timed(client.execute(
        &format!(
            "UPDATE review_jobs SET state = 'failed', error = $2
             WHERE (game, ms) IN (
                 SELECT game, ms FROM review_jobs j
                 WHERE state = 'running' AND attempts >= $3 AND {LEFT} FOR UPDATE SKIP LOCKED)"
        ),
        &[&owner, &gave_up(), &(MAX_ATTEMPTS as i64)],
    ))
    .await?;
    // One statement: the row chosen is locked until it commits, and a replica claiming at the same
    // moment skips it for the next.
    let row = timed(client.query_opt(
        &format!(
            "UPDATE review_jobs SET state = 'running', owner = $1, attempts = attempts + 1
             WHERE (game, ms) = (
                 SELECT game, ms FROM review_jobs j
                 WHERE state = 'queued' OR (state = 'running' AND {LEFT})
                 ORDER BY queued_at, game, ms LIMIT 1 FOR UPDATE SKIP LOCKED)
             RETURNING {COLUMNS}"
        ),
        &[&owner],
    ))
    .await?;
    row.as_ref().map(job_of).transpose()
}

/// Every job of tournament `slug` ([`ReviewJobStore::review_jobs`]).
pub(super) async fn jobs_of(store: &PgStore, slug: String) -> Result<Vec<ReviewJob>, StoreError> {
    let client = store.client().await?;
    let rows = timed(client.query(
        &format!("SELECT {COLUMNS} FROM review_jobs WHERE slug = $1 ORDER BY division COLLATE \"C\", round, game, ms"),
        &[&slug],
    ))
    .await?;
    rows.iter().map(job_of).collect()
}

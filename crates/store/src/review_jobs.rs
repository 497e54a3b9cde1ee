//! The review jobs: each game of a tournament a director asked to be reviewed (or a division
//! reviews as its games end) is a job kept in the store, so that a replica that dies, or a
//! server killed, loses none. A job is asked for by the tournament change that asks it
//! ([`TournamentChange::reviews`](crate::TournamentChange)), in the same transaction; it is
//! claimed by one replica at a time ([`ReviewJobStore::claim_review_job`]: `FOR UPDATE SKIP
//! LOCKED` on PostgreSQL) under that replica's lease (its heartbeat: a job whose replica is gone
//! is claimable again; on one node, one whose process is gone), and finished in one transaction
//! with the review it made ([`ReviewJobStore::finish_review_job`]), which lands only while the
//! job is still that claim's: a job asked again meanwhile (its game changed) takes a new
//! generation, and the review made of the game as it was is never kept.
//!
//! An owner works one job at a time: when it claims, any job still running under its name was
//! left unfinished (its review failed to be written, its game could not be read) and is
//! claimable again, by it as by anyone.
//!
//! Here: the types, the trait, and the SQL both SQLite stores run (PostgreSQL's is in
//! `postgres/review_jobs.rs`).

use super::{Pending, Reading, StoreError};
use rusqlite::{OptionalExtension, params};
use uuid::Uuid;

/// A job is given up after this many claims whose replica died under it: a game whose review
/// takes its replica down is not reviewed again and again.
pub const MAX_ATTEMPTS: u32 = 3;

/// A review asked of the jobs, written with the tournament change that asks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReviewOrder {
    /// Review `game` at `ms` a turn: a job made, or one kept asked again (a done, failed or
    /// waiting one redone; a running one taken from its claim and queued).
    Queue { game: Uuid, ms: u32, division: String, round: u32 },
    /// `game` changed (a result entered for it again): every job kept of it asked again, as
    /// [`ReviewOrder::Queue`] asks one; none made.
    Redo { game: Uuid },
}

/// Where a job stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReviewJobState {
    Queued,
    Running,
    Done,
    /// Its game is in play (a director took a turn back, or the round is still being played): it
    /// is queued again when the game's result is entered.
    Waiting,
    Failed,
}

impl ReviewJobState {
    /// The state a row's `state` column names.
    pub(crate) fn of_name(name: &str) -> Result<ReviewJobState, StoreError> {
        Ok(match name {
            "queued" => ReviewJobState::Queued,
            "running" => ReviewJobState::Running,
            "done" => ReviewJobState::Done,
            "waiting" => ReviewJobState::Waiting,
            "failed" => ReviewJobState::Failed,
            other => return Err(StoreError::Io(format!("a review job in state {other:?}"))),
        })
    }
}

/// A job as kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReviewJob {
    pub game: Uuid,
    /// The review's time a turn, in ms: with the game, the job's key.
    pub ms: u32,
    pub slug: String,
    pub division: String,
    pub round: u32,
    pub state: ReviewJobState,
    /// One more each time the job is asked again: a claim finishes only the generation it took.
    pub generation: u64,
    /// Claims of this generation so far.
    pub attempts: u32,
    /// The replica (or process) that holds the job (running) or finished it (done, failed).
    pub owner: Option<Uuid>,
    /// The fingerprint of the game as its kept review judged it (none before one is kept).
    pub fingerprint: Option<u64>,
    /// Why it failed.
    pub error: Option<String>,
}

/// How a claimed job ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReviewJobEnd {
    /// Reviewed: the review kept under `key` (None: the game is as the review kept judged it, which
    /// stays), of the game whose fingerprint is `fingerprint`.
    Reviewed {
        key: String,
        body: Option<Vec<u8>>,
        fingerprint: u64,
    },
    /// The game is in play: waiting for its result.
    Waiting,
    /// Not done, for a reason that may pass (the game could not be read just now): queued again,
    /// the attempt not counted.
    Released,
    Failed(String),
}

/// A claimed job's end, for [`ReviewJobStore::finish_review_job`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinishedReview {
    pub game: Uuid,
    pub ms: u32,
    /// The generation claimed, by whom.
    pub generation: u64,
    pub owner: Uuid,
    pub end: ReviewJobEnd,
}

/// The review jobs.
pub trait ReviewJobStore: Send + Sync {
    /// The oldest job queued, or held by a replica (process) that is gone or by `owner` itself
    /// (which works one job at a time, so left it), claimed for `owner` (running, one attempt
    /// more); None when there is none. A job left so [`MAX_ATTEMPTS`] times is marked failed
    /// instead.
    fn claim_review_job(&self, owner: Uuid) -> Reading<'_, Option<ReviewJob>>;

    /// End a claimed job with its review, in one transaction: it lands only while the job is
    /// still running the generation claimed, by `owner`, else [`StoreError::ReviewJobMoved`]
    /// and nothing is written.
    fn finish_review_job(&self, finished: FinishedReview) -> Pending;

    /// Every job of a tournament.
    fn review_jobs(&self, slug: String) -> Reading<'_, Vec<ReviewJob>>;

    /// Orders of tournament `slug` made apart from a change of it (a game that ended again after
    /// its result was entered: [`ReviewOrder::Redo`]), as a change's orders are made.
    fn order_reviews(&self, slug: String, orders: Vec<ReviewOrder>) -> Pending;
}

/// What SQLite keeps, as [`ReviewJob`]'s fields.
pub(crate) const SQLITE_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS review_jobs (
    game        BLOB NOT NULL,
    ms          INTEGER NOT NULL,
    slug        TEXT NOT NULL,
    division    TEXT NOT NULL,
    round       INTEGER NOT NULL,
    state       TEXT NOT NULL,
    generation  INTEGER NOT NULL,
    attempts    INTEGER NOT NULL,
    owner       BLOB,
    fingerprint INTEGER,
    error       TEXT,
    queued_ms   INTEGER NOT NULL,
    PRIMARY KEY (game, ms)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS review_jobs_by_slug ON review_jobs (slug);
CREATE INDEX IF NOT EXISTS review_jobs_open ON review_jobs (queued_ms) WHERE state IN ('queued', 'running');
";

const COLUMNS: &str =
    "game, ms, slug, division, round, state, generation, attempts, owner, fingerprint, error";

pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

fn sqlite_job(r: &rusqlite::Row<'_>) -> rusqlite::Result<(Vec<u8>, ReviewJobRow)> {
    Ok((
        r.get(0)?,
        (
            r.get::<_, i64>(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get::<_, i64>(4)?,
            r.get(5)?,
            r.get::<_, i64>(6)?,
            r.get::<_, i64>(7)?,
            r.get(8)?,
            r.get(9)?,
            r.get(10)?,
        ),
    ))
}

/// A job's columns after its game: ms, slug, division, round, state, generation, attempts,
/// owner, fingerprint, error.
type ReviewJobRow =
    (i64, String, String, i64, String, i64, i64, Option<Vec<u8>>, Option<i64>, Option<String>);

fn job_of((game, row): (Vec<u8>, ReviewJobRow)) -> Result<ReviewJob, StoreError> {
    let (ms, slug, division, round, state, generation, attempts, owner, fingerprint, error) = row;
    let uuid = |b: &[u8]| {
        Uuid::from_slice(b).map_err(|_| StoreError::Io(format!("a review job's id of {} bytes", b.len())))
    };
    Ok(ReviewJob {
        game: uuid(&game)?,
        ms: ms as u32,
        slug,
        division,
        round: round as u32,
        state: ReviewJobState::of_name(&state)?,
        generation: generation as u64,
        attempts: attempts as u32,
        owner: owner.as_deref().map(uuid).transpose()?,
        // Kept as the bits of a signed integer.
        fingerprint: fingerprint.map(|f| f as u64),
        error,
    })
}

/// The orders a tournament change carries, run in its transaction.
pub(crate) fn sqlite_order(
    tx: &rusqlite::Savepoint<'_>,
    slug: &str,
    order: &ReviewOrder,
) -> rusqlite::Result<()> {
    match order {
        ReviewOrder::Queue { game, ms, division, round } => {
            tx.prepare_cached(
                "INSERT INTO review_jobs (game, ms, slug, division, round, state, generation, attempts, queued_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, 'queued', 1, 0, ?6)
                 ON CONFLICT (game, ms) DO UPDATE SET state = 'queued', generation = generation + 1,
                     attempts = 0, owner = NULL, error = NULL, queued_ms = excluded.queued_ms
                 WHERE state <> 'queued'",
            )?
            .execute(params![game.as_bytes().as_slice(), *ms as i64, slug, division, *round as i64, now_ms()])?;
        }
        ReviewOrder::Redo { game } => {
            tx.prepare_cached(
                "UPDATE review_jobs SET state = 'queued', generation = generation + 1, attempts = 0,
                     owner = NULL, error = NULL, queued_ms = ?2
                 WHERE game = ?1 AND state <> 'queued'",
            )?
            .execute(params![game.as_bytes().as_slice(), now_ms()])?;
        }
    }
    Ok(())
}

/// The claim on one node: one process serves a SQLite store, with one worker, so every job
/// running when it claims was left (by a process that is gone, or by the worker itself).
pub(crate) fn sqlite_claim(
    tx: &rusqlite::Savepoint<'_>,
    owner: Uuid,
) -> Result<Option<ReviewJob>, StoreError> {
    let me = owner.as_bytes().as_slice();
    tx.prepare_cached(
        "UPDATE review_jobs SET state = 'failed', error = ?1 WHERE state = 'running' AND attempts >= ?2",
    )?
    .execute(params![gave_up(), MAX_ATTEMPTS as i64])?;
    let next = tx
        .prepare_cached(
            "SELECT game, ms FROM review_jobs WHERE state IN ('queued', 'running')
             ORDER BY queued_ms, game, ms LIMIT 1",
        )?
        .query_row([], |r| Ok((r.get::<_, Vec<u8>>(0)?, r.get::<_, i64>(1)?)))
        .optional()?;
    let Some((game, ms)) = next else { return Ok(None) };
    let job = tx
        .prepare_cached(&format!(
            "UPDATE review_jobs SET state = 'running', owner = ?3, attempts = attempts + 1
             WHERE game = ?1 AND ms = ?2 RETURNING {COLUMNS}"
        ))?
        .query_row(params![game, ms, me], sqlite_job)?;
    job_of(job).map(Some)
}

pub(crate) fn gave_up() -> String {
    format!("left unfinished {MAX_ATTEMPTS} times (its replica stopped, or its review could not be kept)")
}

pub(crate) fn sqlite_finish(tx: &rusqlite::Savepoint<'_>, f: &FinishedReview) -> Result<(), StoreError> {
    let (state, fingerprint, error) = end_columns(&f.end);
    let n = tx
        .prepare_cached(
            "UPDATE review_jobs SET state = ?5, fingerprint = COALESCE(?6, fingerprint), error = ?7,
                 attempts = attempts - (?5 = 'queued'), owner = CASE WHEN ?5 = 'queued' THEN NULL ELSE owner END
             WHERE game = ?1 AND ms = ?2 AND generation = ?3 AND owner = ?4 AND state = 'running'",
        )?
        .execute(params![
            f.game.as_bytes().as_slice(),
            f.ms as i64,
            f.generation as i64,
            f.owner.as_bytes().as_slice(),
            state,
            fingerprint,
            error
        ])?;
    if n == 0 {
        return Err(StoreError::ReviewJobMoved(f.game));
    }
    if let ReviewJobEnd::Reviewed { key, body: Some(body), .. } = &f.end {
        tx.prepare_cached("INSERT OR REPLACE INTO reviews (game, key, body) VALUES (?1, ?2, ?3)")?
            .execute(params![f.game.as_bytes().as_slice(), key, body])?;
    }
    Ok(())
}

/// A job's end as its columns: state, fingerprint, error.
pub(crate) fn end_columns(end: &ReviewJobEnd) -> (&'static str, Option<i64>, Option<String>) {
    match end {
        ReviewJobEnd::Reviewed { fingerprint, .. } => ("done", Some(*fingerprint as i64), None),
        ReviewJobEnd::Waiting => ("waiting", None, None),
        ReviewJobEnd::Released => ("queued", None, None),
        ReviewJobEnd::Failed(why) => ("failed", None, Some(why.clone())),
    }
}

pub(crate) fn sqlite_jobs(conn: &rusqlite::Connection, slug: &str) -> Result<Vec<ReviewJob>, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM review_jobs WHERE slug = ?1 ORDER BY division, round, game, ms"
    ))?;
    let rows = stmt.query_map(params![slug], sqlite_job)?;
    rows.map(|r| r.map_err(StoreError::from).and_then(job_of)).collect()
}

/// The jobs in memory ([`crate::MemoryStore`]'s), by game and ms, with the order each was queued in.
#[derive(Default)]
pub(crate) struct MemoryJobs {
    jobs: std::collections::BTreeMap<(Uuid, u32), (u64, ReviewJob)>,
    queued: u64,
}

impl MemoryJobs {
    pub(crate) fn order(&mut self, slug: &str, order: &ReviewOrder) {
        self.queued += 1;
        let queued = self.queued;
        let again = |(at, job): &mut (u64, ReviewJob)| {
            if job.state != ReviewJobState::Queued {
                *job = ReviewJob {
                    state: ReviewJobState::Queued,
                    generation: job.generation + 1,
                    attempts: 0,
                    owner: None,
                    error: None,
                    ..job.clone()
                };
                *at = queued;
            }
        };
        match order {
            ReviewOrder::Queue { game, ms, division, round } => match self.jobs.get_mut(&(*game, *ms)) {
                Some(kept) => again(kept),
                None => {
                    let job = ReviewJob {
                        game: *game,
                        ms: *ms,
                        slug: slug.to_string(),
                        division: division.clone(),
                        round: *round,
                        state: ReviewJobState::Queued,
                        generation: 1,
                        attempts: 0,
                        owner: None,
                        fingerprint: None,
                        error: None,
                    };
                    self.jobs.insert((*game, *ms), (queued, job));
                }
            },
            ReviewOrder::Redo { game } => {
                for (_, kept) in self.jobs.range_mut((*game, 0)..=(*game, u32::MAX)) {
                    again(kept);
                }
            }
        }
    }

    /// As [`sqlite_claim`]: one process, one worker.
    pub(crate) fn claim(&mut self, owner: Uuid) -> Option<ReviewJob> {
        for (_, job) in self.jobs.values_mut() {
            if job.state == ReviewJobState::Running && job.attempts >= MAX_ATTEMPTS {
                job.state = ReviewJobState::Failed;
                job.error = Some(gave_up());
            }
        }
        let claimable = |j: &ReviewJob| matches!(j.state, ReviewJobState::Queued | ReviewJobState::Running);
        let (_, job) =
            self.jobs.values_mut().filter(|(_, j)| claimable(j)).min_by_key(|(at, j)| (*at, j.game, j.ms))?;
        job.state = ReviewJobState::Running;
        job.owner = Some(owner);
        job.attempts += 1;
        Some(job.clone())
    }

    /// The job's end, if it is still the claim's; the review to keep with it, if any.
    pub(crate) fn finish(&mut self, f: &FinishedReview) -> Result<Option<(String, Vec<u8>)>, StoreError> {
        let job = match self.jobs.get_mut(&(f.game, f.ms)) {
            Some((_, job))
                if job.generation == f.generation
                    && job.owner == Some(f.owner)
                    && job.state == ReviewJobState::Running =>
            {
                job
            }
            _ => return Err(StoreError::ReviewJobMoved(f.game)),
        };
        match &f.end {
            ReviewJobEnd::Reviewed { key, body, fingerprint } => {
                job.state = ReviewJobState::Done;
                job.fingerprint = Some(*fingerprint);
                Ok(body.clone().map(|b| (key.clone(), b)))
            }
            ReviewJobEnd::Waiting => {
                job.state = ReviewJobState::Waiting;
                Ok(None)
            }
            ReviewJobEnd::Released => {
                job.state = ReviewJobState::Queued;
                job.owner = None;
                job.attempts -= 1;
                Ok(None)
            }
            ReviewJobEnd::Failed(why) => {
                job.state = ReviewJobState::Failed;
                job.error = Some(why.clone());
                Ok(None)
            }
        }
    }

    pub(crate) fn of(&self, slug: &str) -> Vec<ReviewJob> {
        let mut jobs: Vec<ReviewJob> =
            self.jobs.values().filter(|(_, j)| j.slug == slug).map(|(_, j)| j.clone()).collect();
        jobs.sort_by(|a, b| (&a.division, a.round, a.game, a.ms).cmp(&(&b.division, b.round, b.game, b.ms)));
        jobs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redo_asks_again_every_job_of_the_game_and_a_claim_of_an_old_generation_finishes_nothing() {
        let mut jobs = MemoryJobs::default();
        let game = Uuid::from_u128(7);
        let me = Uuid::from_u128(1);
        jobs.order("t", &ReviewOrder::Queue { game, ms: 200, division: "A".into(), round: 1 });
        let claimed = jobs.claim(me).unwrap();
        assert_eq!((claimed.generation, claimed.attempts), (1, 1));
        jobs.order("t", &ReviewOrder::Redo { game });
        let end = ReviewJobEnd::Reviewed { key: "k".into(), body: Some(vec![1]), fingerprint: 9 };
        let f = FinishedReview { game, ms: 200, generation: 1, owner: me, end };
        assert!(matches!(jobs.finish(&f), Err(StoreError::ReviewJobMoved(g)) if g == game));
        let again = jobs.claim(me).unwrap();
        assert_eq!((again.generation, again.attempts), (2, 1));
        assert_eq!(jobs.finish(&FinishedReview { generation: 2, ..f }).unwrap(), Some(("k".into(), vec![1])));
        assert_eq!(jobs.of("t")[0].state, ReviewJobState::Done);
        assert!(jobs.claim(me).is_none());
    }
}

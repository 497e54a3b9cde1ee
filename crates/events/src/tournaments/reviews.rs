//! A tournament's games reviewed as durable jobs: a director asks for the reviews of the
//! tournament, a division or a round ([`Events::review_games`], logged `reviews_asked`); a
//! division reviews its games as they end ([`Command::SetReviews`](super::Command), logged
//! `reviews_set`); a game whose result is entered again (a director's correction, a game
//! ended again after a turn was taken back) has its jobs asked again. Each ask is written with
//! the tournament's change that makes it, in one transaction ([`ReviewOrder`]), so no job is
//! lost between the two; the jobs themselves are the store's ([`ReviewJobStore`]), claimed by the
//! replicas' reviewers.

use super::change::{Answer, Retry};
use super::event::{Actor, EventKind};
use super::record::{DivisionId, Record};
use crate::Events;
use crate::error::{EventsError, Invalid};
use dawgref_host::HostError;
use dawgref_store::{FinishedReview, ReviewJob, ReviewJobEnd, ReviewOrder, StoreError};
use dawgref_tournament::{PairingId, RoundId};

/// A review's time a turn: AnalyzeGame's bounds and default, so that a game's review asked
/// either way at the same time is the same review, kept once.
pub const MIN_REVIEW_MS: u32 = 50;
pub const MAX_REVIEW_MS: u32 = 60_000;
pub const REVIEW_MS: u32 = 1_000;

/// Which games a director asks to be reviewed: a division's (empty: every division's) round
/// (0: every round started).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReviewScope {
    pub division: String,
    pub round: u32,
}

/// A review's time a turn, checked (0: the default).
pub fn review_ms(ms: u32) -> Result<u32, Invalid> {
    match ms {
        0 => Ok(REVIEW_MS),
        ms if (MIN_REVIEW_MS..=MAX_REVIEW_MS).contains(&ms) => Ok(ms),
        ms => Err(Invalid::ReviewMs { ms }),
    }
}

impl Record {
    /// A result entered in round `k`'s line `i` of division `d` (a game's end, a director's, a
    /// withdrawal's forfeit): every job kept of its game, if it has one, asked again (the game may
    /// have changed since it was reviewed: the reviewer redoes only what did), and the game
    /// reviewed when the division reviews its games.
    pub(crate) fn review_on_result(&mut self, d: DivisionId, k: RoundId, i: PairingId) {
        let entry = &self.divisions[d];
        let Some(game) = entry.game_id(k, i).and_then(|id| uuid::Uuid::parse_str(id).ok()) else { return };
        let ms = entry.review_ms;
        let (division, round) = (entry.division.name().to_string(), k.number());
        self.reviews.push(ReviewOrder::Redo { game });
        if ms > 0 {
            self.reviews.push(ReviewOrder::Queue { game, ms, division, round });
        }
    }

    /// The games of `scope` on the server asked to be reviewed at `ms` a turn (a game still in
    /// play waits for its end); how many.
    pub(crate) fn ask_reviews(&mut self, scope: &ReviewScope, ms: u32) -> Result<u32, EventsError> {
        let divisions: Vec<DivisionId> = if scope.division.is_empty() {
            (0..self.divisions.len()).map(DivisionId).collect()
        } else {
            vec![self.division(&scope.division)?]
        };
        let rounds = divisions.iter().map(|&d| self.divisions[d].division.rounds().len()).max().unwrap_or(0);
        if scope.round as usize > rounds {
            return Err(Invalid::NoSuchRound { round: scope.round, rounds }.into());
        }
        let mut orders = Vec::new();
        for &d in &divisions {
            let entry = &self.divisions[d];
            for (k, games) in entry.games.iter().enumerate() {
                if scope.round != 0 && scope.round as usize != k + 1 {
                    continue;
                }
                for id in games.iter().flatten() {
                    if let Ok(game) = uuid::Uuid::parse_str(id) {
                        let division = entry.division.name().to_string();
                        orders.push(ReviewOrder::Queue { game, ms, division, round: k as u32 + 1 });
                    }
                }
            }
        }
        if orders.is_empty() {
            return Err(EventsError::NothingToReview { what: scope.said() });
        }
        let games = orders.len() as u32;
        self.reviews.extend(orders);
        let division = scope.division.clone();
        self.event(
            EventKind::ReviewsAsked,
            &division,
            scope.round,
            0,
            format!("{games} games at {ms} ms a turn"),
        );
        Ok(games)
    }

    /// Division `d`'s games reviewed as they end at `ms` a turn (0: not).
    pub(crate) fn set_reviews(&mut self, d: DivisionId, ms: u32) {
        self.divisions[d].review_ms = ms;
        let division = self.division_at(d).name().to_string();
        let detail = match ms {
            0 => "games are not reviewed as they end".to_string(),
            ms => format!("each game is reviewed as it ends, at {ms} ms a turn"),
        };
        self.event(EventKind::ReviewsSet, &division, 0, 0, detail);
    }
}

impl ReviewScope {
    /// The scope as a refusal names it.
    fn said(&self) -> String {
        match (self.division.as_str(), self.round) {
            ("", 0) => "the tournament".to_string(),
            ("", k) => format!("round {k} of any division"),
            (d, 0) => format!("division {d:?}"),
            (d, k) => format!("round {k} of division {d:?}"),
        }
    }
}

impl Events {
    /// ReviewGames: the games of `scope` asked to be reviewed at `ms` a turn by `actor`, a
    /// director, durably with the tournament's change, once per request id; answered with
    /// `answer` of the tournament and the number of games asked.
    #[allow(clippy::too_many_arguments)]
    pub async fn review_games<A: Answer>(
        &self,
        slug: &str,
        actor: &Actor,
        request_id: &str,
        scope: &ReviewScope,
        ms: u32,
        answer: impl Fn(&Record, u32) -> A,
    ) -> Result<A, EventsError> {
        actor.directs("ReviewGames")?;
        let ms = review_ms(ms)?;
        let retry = Retry { method: "ReviewGames", request_id };
        let held = self.hold(slug).await;
        self.once(&held, retry, |rec| {
            rec.by = actor.name().to_string();
            let games = rec.ask_reviews(scope, ms)?;
            Ok(answer(rec, games))
        })
        .await
    }

    /// Every review job of tournament `slug`, as the store has them now.
    pub async fn review_jobs(&self, slug: &str) -> Result<Vec<ReviewJob>, EventsError> {
        let jobs = self.0.review_jobs.review_jobs(slug.to_string()).await;
        jobs.map_err(|e| HostError::store("reading the review jobs", e).into())
    }

    /// The oldest job waiting (or left by a replica that is gone), claimed for `owner`.
    pub async fn claim_review(&self, owner: uuid::Uuid) -> Result<Option<ReviewJob>, EventsError> {
        let claimed = self.0.review_jobs.claim_review_job(owner).await;
        claimed.map_err(|e| HostError::store("claiming a review job", e).into())
    }

    /// A tournament game that ended with its pairing's result in already (ended by a director's
    /// result, or ended again after a turn was taken back): its jobs asked again, so that a game
    /// that changed is reviewed again (an unchanged one is not).
    pub(crate) async fn review_again(&self, slug: &str, game: uuid::Uuid) -> Result<(), EventsError> {
        let ordered = self.0.review_jobs.order_reviews(slug.to_string(), vec![ReviewOrder::Redo { game }]);
        ordered.wait().await.map_err(|e| HostError::store("asking a game's reviews again", e))?;
        self.0.tournament_records.reviews_asked.notify_one();
        Ok(())
    }

    /// Resolves once a change on this replica has asked for reviews since the last time it
    /// resolved (at once if one has).
    pub async fn reviews_asked(&self) {
        self.0.tournament_records.reviews_asked.notified().await
    }

    /// A job claimed by `owner` ended (`end`), with its review, in one write that lands only
    /// while the job is still that claim's: whether it landed (false: the job was asked again, or
    /// taken by another, since).
    pub async fn finish_review(
        &self,
        job: &ReviewJob,
        owner: uuid::Uuid,
        end: ReviewJobEnd,
    ) -> Result<bool, EventsError> {
        let finished = FinishedReview { game: job.game, ms: job.ms, generation: job.generation, owner, end };
        match self.0.review_jobs.finish_review_job(finished).wait().await {
            Ok(()) => Ok(true),
            Err(StoreError::ReviewJobMoved(_)) => Ok(false),
            Err(e) => Err(HostError::store("finishing a review job", e).into()),
        }
    }
}

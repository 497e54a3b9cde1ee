//! `GameStore for PgStore` and the other traits' doors (`ReviewJobStore`'s SQL is
//! `review_jobs.rs`'s): each write queued for the writer task, each read a statement or two on the
//! pool; the unfinished games claimed before they are read.

use super::tournaments::{TOURNAMENT_WITH_PARTS, TOURNAMENTS_WITH_PARTS, with_parts};
use super::writer::Job;
use super::{PgStore, timed};
use crate::lease::Claim;
use crate::{
    BroadcastStore, DirectorKey, DirectorKeyStore, FinishedReview, GamePage, GameQuery, GameState, GameStore,
    Labels, LobbyChange, LobbyStore, Pending, Reading, ReviewJob, ReviewJobStore, ReviewOrder, ReviewStore,
    StoreError, StoredBroadcast, StoredGame, StoredLobby, StoredTournament, TournamentChange,
    TournamentStore,
};
use std::collections::HashMap;
use std::time::Duration;
use uuid::Uuid;

impl GameStore for PgStore {
    fn create(
        &self,
        id: Uuid,
        created: u64,
        record: Vec<u8>,
        first: Vec<u8>,
        finished: bool,
        labels: Labels,
    ) -> Pending {
        let owner = (!finished).then_some(self.replica.id);
        if owner.is_some() {
            // The lease is written with the game: epoch 1.
            self.epochs.insert(id, 1);
        }
        self.writes.submit(Job::Create { id, created, record, first, owner, labels })
    }

    fn append(&self, id: Uuid, seq: u64, row: Vec<u8>, finished: bool) -> Pending {
        let Some(epoch) = self.epochs.get(&id).map(|e| *e) else {
            return Pending::ready(Err(StoreError::Fenced(id)));
        };
        if finished {
            self.epochs.remove(&id);
        }
        self.writes.submit(Job::Append { id, seq, row, finished, owner: self.replica.id, epoch })
    }

    fn quarantine(&self, id: Uuid, reason: &str) -> Pending {
        self.epochs.remove(&id);
        self.writes.submit(Job::Quarantine { id, reason: reason.to_string() })
    }

    /// The unfinished games this replica holds and those whose owner is gone, now claimed (a
    /// game another replica serves stays with it).
    fn unfinished(&self) -> Reading<'_, Vec<StoredGame>> {
        Box::pin(self.unfinished_async())
    }

    fn load(&self, id: Uuid) -> Reading<'_, Option<StoredGame>> {
        Box::pin(self.load_async(id))
    }

    fn games(&self, query: GameQuery) -> Reading<'_, GamePage> {
        Box::pin(self.games_async(query))
    }
}

impl ReviewStore for PgStore {
    fn save_review(&self, id: Uuid, key: String, body: Vec<u8>) -> Pending {
        self.writes.submit(Job::Review { id, key, body })
    }

    fn review(&self, id: Uuid, key: String) -> Reading<'_, Option<Vec<u8>>> {
        Box::pin(async move {
            let client = self.client().await?;
            let row = timed(
                client.query_opt("SELECT body FROM reviews WHERE game = $1 AND key = $2", &[&id, &key]),
            )
            .await?;
            Ok(row.map(|r| r.get(0)))
        })
    }
}

impl DirectorKeyStore for PgStore {
    fn add_director_key(&self, key: DirectorKey) -> Pending {
        self.writes.submit(Job::AddKey(key))
    }

    fn revoke_director_key(&self, name: String, at_unix_ms: u64) -> Pending {
        self.writes.submit(Job::RevokeKey { name, at: at_unix_ms })
    }

    fn director_keys(&self) -> Reading<'_, Vec<DirectorKey>> {
        Box::pin(async move {
            let client = self.client().await?;
            let rows = timed(client.query(
                "SELECT name, token_hash, labels, created_ms, revoked_ms FROM director_keys ORDER BY name",
                &[],
            ))
            .await?;
            rows.iter()
                .map(|r| DirectorKey::from_row((r.get(0), r.get(1), r.get(2), r.get(3), r.get(4))))
                .collect()
        })
    }
}

impl TournamentStore for PgStore {
    fn put_tournament(&self, change: TournamentChange) -> Pending {
        self.writes.submit(Job::Tournament(change))
    }

    fn tournament_events(&self, slug: String, from: u64) -> Reading<'_, Vec<(u64, Vec<u8>)>> {
        Box::pin(async move {
            let client = self.client().await?;
            let rows = timed(client.query(
                "SELECT number, body FROM tournament_events WHERE slug = $1 AND number >= $2 ORDER BY number",
                &[&slug, &(from as i64)],
            ))
            .await?;
            Ok(rows.iter().map(|r| (r.get::<_, i64>(0) as u64, r.get(1))).collect())
        })
    }

    fn tournament_answers(&self, slug: String, keys: Vec<String>) -> Reading<'_, HashMap<String, Vec<u8>>> {
        Box::pin(async move {
            let client = self.client().await?;
            let rows = timed(client.query(
                "SELECT key, body FROM tournament_answers WHERE slug = $1 AND key = ANY($2)",
                &[&slug, &keys],
            ))
            .await?;
            Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        })
    }

    fn tournament(&self, slug: String) -> Reading<'_, Option<StoredTournament>> {
        Box::pin(async move {
            let client = self.client().await?;
            let rows = timed(client.query(TOURNAMENT_WITH_PARTS, &[&slug])).await?;
            Ok(with_parts(&rows).pop())
        })
    }

    fn tournament_version(&self, slug: String) -> Reading<'_, Option<u64>> {
        Box::pin(async move {
            let client = self.client().await?;
            let row =
                timed(client.query_opt("SELECT version FROM tournaments WHERE slug = $1", &[&slug])).await?;
            Ok(row.map(|r| r.get::<_, i64>(0) as u64))
        })
    }

    fn tournaments(&self) -> Reading<'_, Vec<StoredTournament>> {
        Box::pin(async move {
            let client = self.client().await?;
            let rows = timed(client.query(TOURNAMENTS_WITH_PARTS, &[])).await?;
            Ok(with_parts(&rows))
        })
    }
}

impl BroadcastStore for PgStore {
    fn put_broadcast(&self, broadcast: StoredBroadcast) -> Pending {
        self.writes.submit(Job::Broadcast(broadcast))
    }

    fn broadcasts(&self) -> Reading<'_, Vec<StoredBroadcast>> {
        Box::pin(async move {
            let client = self.client().await?;
            let rows =
                timed(client.query("SELECT slug, version, body FROM broadcasts ORDER BY slug", &[])).await?;
            Ok(rows
                .iter()
                .map(|r| StoredBroadcast {
                    slug: r.get(0),
                    version: r.get::<_, i64>(1) as u64,
                    body: r.get(2),
                })
                .collect())
        })
    }
}

impl LobbyStore for PgStore {
    fn put_lobby(&self, change: LobbyChange) -> Pending {
        self.writes.submit(Job::Lobby(change))
    }

    fn lobby(&self) -> Reading<'_, StoredLobby> {
        Box::pin(async move {
            let client = self.client().await?;
            // One statement, one snapshot: the parts are of the version read.
            let rows = timed(client.query(
                "SELECT l.version, l.tag, p.key, p.body FROM (SELECT 0) AS one
                 LEFT JOIN lobby l ON l.id = 1 LEFT JOIN lobby_parts p ON l.id = 1
                 ORDER BY p.key COLLATE \"C\"",
                &[],
            ))
            .await?;
            let version = rows.first().and_then(|r| r.get::<_, Option<i64>>(0)).unwrap_or(0) as u64;
            let tag = rows.first().and_then(|r| r.get::<_, Option<i64>>(1)).unwrap_or(0) as u64;
            let parts = rows
                .iter()
                .filter_map(|r| Some((r.get::<_, Option<String>>(2)?, r.get::<_, Option<Vec<u8>>>(3)?)))
                .collect();
            Ok(StoredLobby { version, tag, parts })
        })
    }

    fn lobby_version(&self) -> Reading<'_, u64> {
        Box::pin(async move {
            let client = self.client().await?;
            let row = timed(client.query_opt("SELECT version FROM lobby WHERE id = 1", &[])).await?;
            Ok(row.map_or(0, |r| r.get::<_, i64>(0) as u64))
        })
    }

    fn bot_events(&self, bot: String, from: u64) -> Reading<'_, Vec<(u64, Vec<u8>)>> {
        Box::pin(async move {
            let client = self.client().await?;
            let rows = timed(client.query(
                "SELECT number, body FROM bot_events WHERE bot = $1 AND number >= $2 ORDER BY number",
                &[&bot, &(from.min(i64::MAX as u64) as i64)],
            ))
            .await?;
            Ok(rows.iter().map(|r| (r.get::<_, i64>(0) as u64, r.get(1))).collect())
        })
    }
}

impl PgStore {
    async fn load_async(&self, id: Uuid) -> Result<Option<StoredGame>, StoreError> {
        let client = self.client().await?;
        let Some(head) =
            timed(client.query_opt("SELECT record, finished, quarantined FROM games WHERE id = $1", &[&id]))
                .await?
        else {
            return Ok(None);
        };
        let rows =
            timed(client.query("SELECT seq, body FROM log WHERE game = $1 ORDER BY seq", &[&id])).await?;
        let log = rows.iter().map(|r| (r.get::<_, i64>(0) as u64, r.get::<_, Vec<u8>>(1))).collect();
        Ok(Some(StoredGame { id, record: head.get(0), log, finished: head.get(1), quarantined: head.get(2) }))
    }

    async fn unfinished_async(&self) -> Result<Vec<StoredGame>, StoreError> {
        let mut ids: Vec<Uuid> = self.epochs.iter().map(|e| *e.key()).collect();
        ids.extend(self.orphans(Duration::ZERO, 100_000).await?);
        ids.sort_unstable();
        ids.dedup();
        let mut games = Vec::new();
        for id in ids {
            if matches!(self.claim(id).await?, Claim::Mine | Claim::TakenOver)
                && let Some(g) = self.load_async(id).await?
            {
                games.push(g);
            }
        }
        Ok(games)
    }

    async fn games_async(&self, query: GameQuery) -> Result<GamePage, StoreError> {
        let client = self.client().await?;
        let mut filter = String::from(match query.state {
            GameState::Any => "true",
            GameState::Live => "NOT g.finished AND g.quarantined IS NULL",
            GameState::Finished => "g.finished",
        });
        use tokio_postgres::types::ToSql;
        let mut values: Vec<Box<dyn ToSql + Sync + Send>> = Vec::new();
        for (k, v) in &query.labels {
            filter.push_str(&format!(
                " AND EXISTS (SELECT 1 FROM labels l WHERE l.game = g.id AND l.key = ${} AND l.value = ${})",
                values.len() + 1,
                values.len() + 2
            ));
            values.push(Box::new(k.clone()));
            values.push(Box::new(v.clone()));
        }
        fn refs(values: &[Box<dyn ToSql + Sync + Send>]) -> Vec<&(dyn ToSql + Sync)> {
            values.iter().map(|v| v.as_ref() as &(dyn ToSql + Sync)).collect()
        }
        let count = format!("SELECT COUNT(*) FROM games g WHERE {filter}");
        let total: i64 = timed(client.query_one(&count, &refs(&values))).await?.get(0);
        if let Some(after) = query.after {
            filter.push_str(&format!(" AND g.id > ${}", values.len() + 1));
            values.push(Box::new(after));
        }
        values.push(Box::new(query.limit.min(i64::MAX as usize) as i64));
        let sql = format!("SELECT g.id FROM games g WHERE {filter} ORDER BY g.id LIMIT ${}", values.len());
        let rows = timed(client.query(&sql, &refs(&values))).await?;
        Ok(GamePage { ids: rows.iter().map(|r| r.get(0)).collect(), total: total as u64 })
    }
}

impl ReviewJobStore for PgStore {
    fn claim_review_job(&self, owner: Uuid) -> Reading<'_, Option<ReviewJob>> {
        Box::pin(super::review_jobs::claim(self, owner))
    }

    fn finish_review_job(&self, finished: FinishedReview) -> Pending {
        self.writes.submit(Job::FinishReview(finished))
    }

    fn order_reviews(&self, slug: String, orders: Vec<ReviewOrder>) -> Pending {
        self.writes.submit(Job::OrderReviews { slug, orders })
    }

    fn review_jobs(&self, slug: String) -> Reading<'_, Vec<ReviewJob>> {
        Box::pin(super::review_jobs::jobs_of(self, slug))
    }
}

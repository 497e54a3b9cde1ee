//! The writer task: one connection of its own, every waiting write committed in one transaction
//! (statements pipelined), and what each write runs.

use super::lobby::write_lobby;
use super::tournaments::write_tournament;
use super::{STATEMENT_TIMEOUT, unavailable};
use crate::queue::{Group, Groups};
use crate::{
    DirectorKey, FinishedReview, Labels, LobbyChange, ReviewOrder, StoreError, StoredBroadcast,
    TournamentChange,
};
use tokio_postgres::NoTls;
use uuid::Uuid;

/// A lease row is this replica's at `epoch`.
const APPEND: &str = "
WITH lease AS (SELECT 1 FROM leases WHERE game = $1 AND owner = $2 AND epoch = $3 FOR SHARE)
INSERT INTO log (game, seq, body) SELECT $1, $4, $5 FROM lease ON CONFLICT DO NOTHING";

/// One write for the writer task.
pub(super) enum Job {
    /// `owner`: the replica that takes the new game's lease (none for a game over already).
    Create {
        id: Uuid,
        created: u64,
        record: Vec<u8>,
        first: Vec<u8>,
        owner: Option<Uuid>,
        labels: Labels,
    },
    Append {
        id: Uuid,
        seq: u64,
        row: Vec<u8>,
        finished: bool,
        owner: Uuid,
        epoch: i64,
    },
    Quarantine {
        id: Uuid,
        reason: String,
    },
    Review {
        id: Uuid,
        key: String,
        body: Vec<u8>,
    },
    AddKey(DirectorKey),
    Tournament(TournamentChange),
    Broadcast(StoredBroadcast),
    Lobby(LobbyChange),
    FinishReview(FinishedReview),
    OrderReviews {
        slug: String,
        orders: Vec<ReviewOrder>,
    },
    RevokeKey {
        name: String,
        at: u64,
    },
}

/// The writer task: a connection of its own; take what is waiting, run it in one transaction
/// (statements pipelined), commit once, answer everyone. A broken connection fails the group
/// and is replaced for the next one.
pub(super) async fn write_loop(config: tokio_postgres::Config, mut groups: Groups<Job>) {
    let mut client: Option<tokio_postgres::Client> = None;
    while let Some(group) = groups.next().await {
        if client.as_ref().is_none_or(|c| c.is_closed()) {
            client = connect(&config)
                .await
                .map_err(|e| tracing::warn!(error = %e, "store writer cannot connect"))
                .ok();
        }
        match client.as_mut() {
            Some(c) => match tokio::time::timeout(STATEMENT_TIMEOUT, commit(c, &group)).await {
                Ok(Ok(results)) => group.answer(results),
                Ok(Err(e)) => group.fail(unavailable(e)),
                Err(_) => {
                    // The connection may be mid-transaction: start afresh next time.
                    client = None;
                    group.fail(unavailable("the commit took too long"));
                }
            },
            None => group.fail(unavailable("cannot connect")),
        }
    }
}

async fn connect(config: &tokio_postgres::Config) -> Result<tokio_postgres::Client, StoreError> {
    let (client, connection) = config.connect(NoTls).await.map_err(unavailable)?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::warn!(error = %e, "store writer's connection ended");
        }
    });
    Ok(client)
}

/// One transaction for the group. A job's own failure (a duplicate row, a lost lease) fails only
/// that job: statements are written so that they never raise, and the others still commit.
async fn commit(
    client: &mut tokio_postgres::Client,
    group: &Group<Job>,
) -> Result<Vec<Result<(), StoreError>>, tokio_postgres::Error> {
    let tx = client.transaction().await?;
    let results = futures_util::future::join_all(group.jobs().map(|job| run(&tx, job))).await;
    let results = results.into_iter().collect::<Result<Vec<_>, _>>()?;
    tx.commit().await?;
    Ok(results)
}

async fn run(
    tx: &tokio_postgres::Transaction<'_>,
    job: &Job,
) -> Result<Result<(), StoreError>, tokio_postgres::Error> {
    match job {
        Job::Create { id, created, record, first, owner, labels } => {
            let finished = owner.is_none();
            let n = tx
                .execute(
                    "INSERT INTO games (id, created_ms, record, finished) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                    &[id, &(*created as i64), record, &finished],
                )
                .await?;
            if n == 0 {
                return Ok(Err(StoreError::Conflict { game: *id, seq: 0 }));
            }
            tx.execute("INSERT INTO log (game, seq, body) VALUES ($1, 0, $2)", &[id, first]).await?;
            for (k, v) in labels {
                tx.execute("INSERT INTO labels (game, key, value) VALUES ($1, $2, $3)", &[id, k, v]).await?;
            }
            if let Some(owner) = owner {
                tx.execute(
                    "INSERT INTO leases (game, owner, epoch) VALUES ($1, $2, 1) ON CONFLICT DO NOTHING",
                    &[id, owner],
                )
                .await?;
            }
            Ok(Ok(()))
        }
        Job::Append { id, seq, row, finished, owner, epoch } => {
            let n = tx.execute(APPEND, &[id, owner, epoch, &(*seq as i64), row]).await?;
            if n == 0 {
                let held = tx
                    .query_opt(
                        "SELECT 1 FROM leases WHERE game = $1 AND owner = $2 AND epoch = $3",
                        &[id, owner, epoch],
                    )
                    .await?;
                return Ok(Err(match held {
                    Some(_) => StoreError::Conflict { game: *id, seq: *seq },
                    None => StoreError::Fenced(*id),
                }));
            }
            if *finished {
                tx.execute("UPDATE games SET finished = true WHERE id = $1", &[id]).await?;
                tx.execute("DELETE FROM leases WHERE game = $1", &[id]).await?;
            }
            Ok(Ok(()))
        }
        Job::Quarantine { id, reason } => {
            let n = tx.execute("UPDATE games SET quarantined = $2 WHERE id = $1", &[id, reason]).await?;
            if n > 0 {
                tx.execute("DELETE FROM leases WHERE game = $1", &[id]).await?;
            }
            Ok(if n == 0 { Err(StoreError::NoGame(*id)) } else { Ok(()) })
        }
        Job::Review { id, key, body } => {
            let n = tx
                .execute(
                    "INSERT INTO reviews (game, key, body) SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM games WHERE id = $1) \
                     ON CONFLICT (game, key) DO UPDATE SET body = EXCLUDED.body",
                    &[id, key, body],
                )
                .await?;
            Ok(if n == 0 { Err(StoreError::NoGame(*id)) } else { Ok(()) })
        }
        Job::AddKey(key) => {
            let n = tx
                .execute(
                    "INSERT INTO director_keys (name, token_hash, labels, created_ms) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT DO NOTHING",
                    &[&key.name, &key.token_hash.as_slice(), &crate::labels_text(&key.labels), &(key.created_unix_ms as i64)],
                )
                .await?;
            Ok(if n == 0 { Err(StoreError::KeyExists(key.name.clone())) } else { Ok(()) })
        }
        Job::RevokeKey { name, at } => {
            let n = tx
                .execute(
                    "UPDATE director_keys SET revoked_ms = COALESCE(revoked_ms, $2) WHERE name = $1",
                    &[name, &(*at as i64)],
                )
                .await?;
            Ok(if n == 0 { Err(StoreError::NoKey(name.clone())) } else { Ok(()) })
        }
        Job::Tournament(change) => write_tournament(tx, change).await,
        Job::Broadcast(b) => {
            let n = if b.version == 1 {
                tx.execute(
                    "INSERT INTO broadcasts (slug, version, body) VALUES ($1, 1, $2) ON CONFLICT DO NOTHING",
                    &[&b.slug, &b.body],
                )
                .await?
            } else {
                tx.execute(
                    "UPDATE broadcasts SET version = $2::bigint, body = $3 WHERE slug = $1 AND version = $2::bigint - 1",
                    &[&b.slug, &(b.version as i64), &b.body],
                )
                .await?
            };
            Ok(if n == 0 { Err(StoreError::BroadcastStale(b.slug.clone())) } else { Ok(()) })
        }
        Job::Lobby(change) => write_lobby(tx, change).await,
        Job::FinishReview(finished) => super::review_jobs::write_finish(tx, finished).await,
        Job::OrderReviews { slug, orders } => {
            super::review_jobs::write_orders(tx, slug, orders).await.map(Ok)
        }
    }
}

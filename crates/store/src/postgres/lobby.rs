//! The bots' lobby as rows: its version in `lobby` (one row), its parts in `lobby_parts`, each
//! bot's events in `bot_events`; a change written against its version.

use crate::{LobbyChange, StoreError};

/// The lobby's change: its version against the one before, the parts it writes or removes and
/// the events it adds, or nothing when another writer's version is there.
pub(super) async fn write_lobby(
    tx: &tokio_postgres::Transaction<'_>,
    change: &LobbyChange,
) -> Result<Result<(), StoreError>, tokio_postgres::Error> {
    let n = if change.version == 1 {
        tx.execute(
            "INSERT INTO lobby (id, version, tag) VALUES (1, 1, $1) ON CONFLICT DO NOTHING",
            &[&(change.tag as i64)],
        )
        .await?
    } else {
        tx.execute(
            "UPDATE lobby SET version = $1::bigint, tag = $2 WHERE id = 1 AND version = $1::bigint - 1 AND tag = $3",
            &[&(change.version as i64), &(change.tag as i64), &(change.base_tag as i64)],
        )
        .await?
    };
    if n == 0 {
        return Ok(Err(StoreError::LobbyStale));
    }
    for (key, part) in &change.parts {
        match part {
            Some(body) => {
                tx.execute(
                    "INSERT INTO lobby_parts (key, body) VALUES ($1, $2)
                     ON CONFLICT (key) DO UPDATE SET body = EXCLUDED.body",
                    &[key, body],
                )
                .await?
            }
            None => tx.execute("DELETE FROM lobby_parts WHERE key = $1", &[key]).await?,
        };
    }
    // The version written is this writer's alone, so its events' numbers are too.
    for (bot, number, body) in &change.events {
        tx.execute(
            "INSERT INTO bot_events (bot, number, body) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            &[bot, &(*number as i64), body],
        )
        .await?;
    }
    Ok(Ok(()))
}

//! A tournament as rows: its state and parts read in one statement, and a change written
//! against its version with the parts, events and answers it adds.

use crate::{StoreError, StoredTournament, TOURNAMENT_ANSWERS_KEPT, TournamentChange};

/// A tournament and its parts, read in one statement (one snapshot: a part is never of another
/// version than the state): a row per part, or one with no part.
pub(super) const TOURNAMENT_WITH_PARTS: &str =
    "SELECT t.slug, t.version, t.body, p.key, p.body FROM tournaments t
     LEFT JOIN tournament_parts p ON p.slug = t.slug WHERE t.slug = $1 ORDER BY p.key COLLATE \"C\"";
pub(super) const TOURNAMENTS_WITH_PARTS: &str =
    "SELECT t.slug, t.version, t.body, p.key, p.body FROM tournaments t
     LEFT JOIN tournament_parts p ON p.slug = t.slug ORDER BY t.slug COLLATE \"C\", p.key COLLATE \"C\"";

/// Rows of [`TOURNAMENT_WITH_PARTS`] by slug as tournaments with their parts.
pub(super) fn with_parts(rows: &[tokio_postgres::Row]) -> Vec<StoredTournament> {
    let mut all: Vec<StoredTournament> = Vec::new();
    for r in rows {
        let slug: String = r.get(0);
        if all.last().is_none_or(|last| last.slug != slug) {
            all.push(StoredTournament {
                slug,
                version: r.get::<_, i64>(1) as u64,
                body: r.get(2),
                parts: Vec::new(),
            });
        }
        if let (Some(last), Some(key)) = (all.last_mut(), r.get::<_, Option<String>>(3)) {
            last.parts.push((key, r.get(4)));
        }
    }
    all
}

/// A tournament's change: its state against its version, its parts, and the events and answers
/// the version adds.
pub(super) async fn write_tournament(
    tx: &tokio_postgres::Transaction<'_>,
    change: &TournamentChange,
) -> Result<Result<(), StoreError>, tokio_postgres::Error> {
    let t = &change.tournament;
    let n = if t.version == 1 {
        tx.execute(
            "INSERT INTO tournaments (slug, version, body) VALUES ($1, 1, $2) ON CONFLICT DO NOTHING",
            &[&t.slug, &t.body],
        )
        .await?
    } else {
        tx.execute(
            "UPDATE tournaments SET version = $2::bigint, body = $3 WHERE slug = $1 AND version = $2::bigint - 1",
            &[&t.slug, &(t.version as i64), &t.body],
        )
        .await?
    };
    if n == 0 {
        return Ok(Err(StoreError::Stale(t.slug.clone())));
    }
    for (key, body) in &t.parts {
        tx.execute(
            "INSERT INTO tournament_parts (slug, key, body) VALUES ($1, $2, $3)
             ON CONFLICT (slug, key) DO UPDATE SET body = EXCLUDED.body",
            &[&t.slug, key, body],
        )
        .await?;
    }
    // The version written is this writer's alone, so its events' numbers are too.
    for (number, body) in &change.events {
        tx.execute(
            "INSERT INTO tournament_events (slug, number, body) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            &[&t.slug, &(*number as i64), body],
        )
        .await?;
    }
    for (key, body) in &change.answers {
        tx.execute(
            "INSERT INTO tournament_answers (slug, key, version, body) VALUES ($1, $2, $3, $4)
             ON CONFLICT (slug, key) DO UPDATE SET version = EXCLUDED.version, body = EXCLUDED.body",
            &[&t.slug, key, &(t.version as i64), body],
        )
        .await?;
    }
    super::review_jobs::write_orders(tx, &t.slug, &change.reviews).await?;
    if t.version > TOURNAMENT_ANSWERS_KEPT {
        tx.execute(
            "DELETE FROM tournament_answers WHERE slug = $1 AND version <= $2",
            &[&t.slug, &((t.version - TOURNAMENT_ANSWERS_KEPT) as i64)],
        )
        .await?;
    }
    Ok(Ok(()))
}

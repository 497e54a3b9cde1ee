//! The leases: claim, release, hand-over, the heartbeat that renews every lease of a replica,
//! the orphans a sweep takes, and `Leases for PgStore`.

use super::{PgStore, timed};
use crate::StoreError;
use crate::lease::{Claim, LeaseFuture, Leases};
use std::time::Duration;
use uuid::Uuid;

/// Take a live game's lease: new, already ours, released (a sleeping game), or its owner's
/// heartbeat expired. The epoch goes up even when the lease was ours already (a session let go,
/// then loaded again), so that a write of the old session still in doubt can never land after
/// the new one read the log. The second column says whether another replica held it; the third
/// is a released game's clock reading now (its reading when it fell asleep, plus the time since).
const CLAIM: &str = "
WITH prev AS (
    SELECT owner,
           slept_ms + (extract(epoch FROM clock_timestamp() - slept_at) * 1000)::bigint AS now_ms
    FROM leases WHERE game = $1
)
INSERT INTO leases (game, owner, epoch)
SELECT $1, $2, 1 WHERE EXISTS (SELECT 1 FROM games WHERE id = $1 AND NOT finished AND quarantined IS NULL)
ON CONFLICT (game) DO UPDATE
    SET owner = EXCLUDED.owner, epoch = leases.epoch + 1, slept_ms = NULL, slept_at = NULL, wake_at = NULL
WHERE leases.owner = EXCLUDED.owner
   OR leases.owner IS NULL
   OR NOT EXISTS (SELECT 1 FROM replicas r WHERE r.id = leases.owner AND r.expires > clock_timestamp())
RETURNING epoch, COALESCE((SELECT owner <> $2 FROM prev), false), (SELECT now_ms FROM prev)";

/// Let a sleeping game's lease go, keeping its clock's reading and when its next flag falls.
const RELEASE: &str = "
UPDATE leases SET owner = NULL, slept_ms = $4, slept_at = clock_timestamp(),
    wake_at = clock_timestamp() + $5::float8 * interval '1 millisecond'
WHERE game = $1 AND owner = $2 AND epoch = $3";

/// Give a game's lease to the live replica that answers at `$4`, at the next epoch.
const HAND_OVER: &str = "
UPDATE leases SET owner = r.id, epoch = leases.epoch + 1
FROM (SELECT id FROM replicas WHERE addr = $4 AND id <> $2 AND expires > clock_timestamp()
      ORDER BY expires DESC LIMIT 1) r
WHERE leases.game = $1 AND leases.owner = $2 AND leases.epoch = $3";

/// Who holds a game's lease, and whether that replica's heartbeat is current.
const OWNER: &str = "
SELECT r.addr, r.expires > clock_timestamp() FROM leases l JOIN replicas r ON r.id = l.owner WHERE l.game = $1";

impl PgStore {
    /// Renew this replica's heartbeat (every lease it holds), then answer the games it still
    /// owns. Games it held that are no longer its own (taken over while it was cut off) are
    /// dropped from its epochs and returned as lost.
    pub async fn heartbeat(&self) -> Result<Vec<Uuid>, StoreError> {
        let client = self.client().await?;
        let ms = self.replica.lease.as_millis() as f64;
        timed(client.execute(
            "INSERT INTO replicas (id, addr, expires) VALUES ($1, $2, clock_timestamp() + $3::float8 * interval '1 millisecond')
             ON CONFLICT (id) DO UPDATE SET addr = EXCLUDED.addr, expires = EXCLUDED.expires
             WHERE replicas.expires > '-infinity'",
            &[&self.replica.id, &self.replica.addr, &ms],
        ))
        .await?;
        let rows =
            timed(client.query("SELECT game, epoch FROM leases WHERE owner = $1", &[&self.replica.id]))
                .await?;
        let held: std::collections::HashMap<Uuid, i64> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
        let mut lost = Vec::new();
        self.epochs.retain(|game, epoch| {
            let kept = held.get(game) == Some(epoch);
            if !kept {
                lost.push(*game);
            }
            kept
        });
        Ok(lost)
    }

    /// Take the game's lease if it is free, ours, or its owner is gone (then the log must be
    /// read after this returns: it holds every row the old owner wrote).
    pub async fn claim(&self, game: Uuid) -> Result<Claim, StoreError> {
        let client = self.client().await?;
        if let Some(row) = timed(client.query_opt(CLAIM, &[&game, &self.replica.id])).await? {
            self.epochs.insert(game, row.get(0));
            match row.get::<_, Option<i64>>(2) {
                Some(ms) => {
                    self.slept.insert(game, (ms.max(0) as u64, std::time::Instant::now()));
                }
                None => {
                    self.slept.remove(&game);
                }
            }
            return Ok(if row.get::<_, bool>(1) { Claim::TakenOver } else { Claim::Mine });
        }
        self.epochs.remove(&game);
        Ok(match timed(client.query_opt(OWNER, &[&game])).await? {
            Some(row) if row.get::<_, bool>(1) => Claim::Other(row.get(0)),
            // Its owner's heartbeat lapsed between the two statements: ask again.
            Some(_) => return Err(StoreError::Unavailable(format!("game {game} is changing owner"))),
            None => Claim::NotLive,
        })
    }

    /// Whether this replica holds the game's lease (as of its last claim or heartbeat).
    pub fn holds(&self, game: &Uuid) -> bool {
        self.epochs.contains_key(game)
    }

    /// The epoch of this replica's lease on the game (above 1: the game changed owner before).
    pub fn epoch(&self, game: &Uuid) -> Option<i64> {
        self.epochs.get(game).map(|e| *e)
    }

    /// Leases this replica holds.
    pub fn leases_held(&self) -> usize {
        self.epochs.len()
    }

    /// Forget a game's lease locally (its session left memory); the row stays until another
    /// replica takes it over, which it may once this replica's heartbeat ends.
    pub fn forget(&self, game: &Uuid) {
        self.epochs.remove(game);
    }

    /// A released game this replica claimed: its clock's reading now, as if it never slept
    /// (asked once, by the load that follows the claim).
    pub fn take_slept(&self, game: &Uuid) -> Option<u64> {
        let (_, (ms, at)) = self.slept.remove(game)?;
        Some(ms.saturating_add(at.elapsed().as_millis() as u64))
    }

    /// Let the lease of a game that fell asleep go, so that any replica may wake it: the row
    /// keeps the clock's reading `game_ms` and, when a flag falls while it sleeps, `wake_in`
    /// from now. False when this replica no longer held it.
    pub async fn release(
        &self,
        game: Uuid,
        game_ms: u64,
        wake_in: Option<Duration>,
    ) -> Result<bool, StoreError> {
        let Some(epoch) = self.epoch(&game) else { return Ok(false) };
        let client = self.client().await?;
        let wake = wake_in.map(|d| d.as_millis() as f64);
        let n = timed(client.execute(
            RELEASE,
            &[&game, &self.replica.id, &epoch, &(game_ms.min(i64::MAX as u64) as i64), &wake],
        ))
        .await?;
        self.epochs.remove(&game);
        Ok(n == 1)
    }

    /// Give the game's lease to the live replica at `addr` (its session here has stopped).
    /// False when this replica no longer held it or no live replica answers there; either way
    /// this replica holds it no more.
    pub async fn hand_over(&self, game: Uuid, addr: &str) -> Result<bool, StoreError> {
        let Some(epoch) = self.epoch(&game) else { return Ok(false) };
        let client = self.client().await?;
        let n = timed(client.execute(HAND_OVER, &[&game, &self.replica.id, &epoch, &addr])).await?;
        self.epochs.remove(&game);
        Ok(n == 1)
    }

    /// Hand every game over: end this replica's heartbeat, so others may take its leases at once.
    pub async fn release_all(&self) -> Result<(), StoreError> {
        let client = self.client().await?;
        timed(client.execute("UPDATE replicas SET expires = '-infinity' WHERE id = $1", &[&self.replica.id]))
            .await?;
        self.epochs.clear();
        Ok(())
    }

    /// The advertised addresses of the other replicas whose heartbeat is current, in order.
    pub async fn live_peers(&self) -> Result<Vec<String>, StoreError> {
        let client = self.client().await?;
        let rows = timed(client.query(
            "SELECT DISTINCT addr FROM replicas WHERE id <> $1 AND addr <> $2 AND expires > clock_timestamp()
             ORDER BY addr",
            &[&self.replica.id, &self.replica.addr],
        ))
        .await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// Games whose owner's heartbeat ended more than `grace` ago (nobody makes their clocks fall
    /// or their bots move until a replica takes them over), and released games whose next flag
    /// is due.
    pub async fn orphans(&self, grace: Duration, limit: i64) -> Result<Vec<Uuid>, StoreError> {
        let client = self.client().await?;
        let ms = grace.as_millis() as f64;
        let rows = timed(client.query(
            "SELECT l.game FROM leases l LEFT JOIN replicas r ON r.id = l.owner
             WHERE (l.owner IS NOT NULL
                    AND (r.id IS NULL OR r.expires < clock_timestamp() - $1::float8 * interval '1 millisecond'))
                OR (l.owner IS NULL AND l.wake_at <= clock_timestamp())
             LIMIT $2",
            &[&ms, &limit],
        ))
        .await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }
}

impl Leases for PgStore {
    fn id(&self) -> Uuid {
        self.replica.id
    }
    fn addr(&self) -> &str {
        &self.replica.addr
    }
    fn secret(&self) -> &str {
        PgStore::secret(self)
    }
    fn lease(&self) -> Duration {
        self.replica.lease
    }
    fn heartbeat(&self) -> LeaseFuture<'_, Vec<Uuid>> {
        Box::pin(PgStore::heartbeat(self))
    }
    fn claim(&self, game: Uuid) -> LeaseFuture<'_, Claim> {
        Box::pin(PgStore::claim(self, game))
    }
    fn holds(&self, game: &Uuid) -> bool {
        PgStore::holds(self, game)
    }
    fn leases_held(&self) -> usize {
        PgStore::leases_held(self)
    }
    fn forget(&self, game: &Uuid) {
        PgStore::forget(self, game)
    }
    fn release(&self, game: Uuid, game_ms: u64, wake_in: Option<Duration>) -> LeaseFuture<'_, bool> {
        Box::pin(PgStore::release(self, game, game_ms, wake_in))
    }
    fn hand_over<'a>(&'a self, game: Uuid, addr: &'a str) -> LeaseFuture<'a, bool> {
        Box::pin(PgStore::hand_over(self, game, addr))
    }
    fn take_slept(&self, game: &Uuid) -> Option<u64> {
        PgStore::take_slept(self, game)
    }
    fn orphans(&self, grace: Duration, limit: i64) -> LeaseFuture<'_, Vec<Uuid>> {
        Box::pin(PgStore::orphans(self, grace, limit))
    }
    fn live_peers(&self) -> LeaseFuture<'_, Vec<String>> {
        Box::pin(PgStore::live_peers(self))
    }
    fn release_all(&self) -> LeaseFuture<'_, ()> {
        Box::pin(PgStore::release_all(self))
    }
}

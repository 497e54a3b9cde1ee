//! The seam replicas share a store through: one fenced lease per live game, renewed by the
//! replica's heartbeat ([`Leases`]), and who a claim found owns a game ([`Claim`]). The host's
//! `Cluster` is the only caller; [`PgStore`](crate::PgStore) is the implementation.
//!
//! The words: a replica **claims** a lease (takes a free or lapsed one, or finds its own),
//! **releases** it (owner none: any replica may claim it, as when a game falls asleep or the
//! replica shuts down), **hands it over** (to one named live replica, at the next epoch), and
//! **forgets** it (stops counting it as its own, without telling the store: the game left
//! memory and the row lapses with the heartbeat or is claimed again).

use crate::StoreError;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;
use uuid::Uuid;

/// Who owns a game, as the store sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// This replica holds the lease now: the game is new to the store's leases, or was this
    /// replica's already.
    Mine,
    /// This replica holds the lease now, taken from another replica whose heartbeat lapsed.
    TakenOver,
    /// Another replica with a current heartbeat holds it; it answers at this address.
    Other(String),
    /// The game is not live (finished, quarantined or unknown): nobody owns it.
    NotLive,
}

/// A future a lease store answers with.
pub type LeaseFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// What replicas need of a shared store: one fenced lease per live game, renewed by the
/// replica's heartbeat.
pub trait Leases: Send + Sync {
    /// This replica's identity: what its leases (and the review jobs it claims) are held by.
    fn id(&self) -> Uuid;
    /// Where other replicas forward calls for this replica's games.
    fn addr(&self) -> &str;
    /// The secret the replicas share, which proves a call forwarded by one of them.
    fn secret(&self) -> &str;
    /// How long a heartbeat keeps this replica's leases.
    fn lease(&self) -> Duration;
    /// Renew every lease this replica holds; the games it no longer holds.
    fn heartbeat(&self) -> LeaseFuture<'_, Vec<Uuid>>;
    /// Take the game's lease if it is free, ours, or its owner's heartbeat lapsed.
    fn claim(&self, game: Uuid) -> LeaseFuture<'_, Claim>;
    /// This replica holds the game's lease (as far as it knows without asking).
    fn holds(&self, game: &Uuid) -> bool;
    /// Leases held.
    fn leases_held(&self) -> usize;
    /// Stop counting the game's lease as this replica's (it ended, or left memory).
    fn forget(&self, game: &Uuid);
    /// Release a sleeping game's lease with its clock's reading and, when a flag falls while it
    /// sleeps, how long from now: any replica may claim it. False when it was not held.
    fn release(&self, game: Uuid, game_ms: u64, wake_in: Option<Duration>) -> LeaseFuture<'_, bool>;
    /// Give the game's lease to the live replica at `addr` (its session here has stopped).
    fn hand_over<'a>(&'a self, game: Uuid, addr: &'a str) -> LeaseFuture<'a, bool>;
    /// A released game just claimed: its clock's reading now, as if it never slept.
    fn take_slept(&self, game: &Uuid) -> Option<u64>;
    /// Live games whose owner's heartbeat lapsed more than `grace` ago, at most `limit`.
    fn orphans(&self, grace: Duration, limit: i64) -> LeaseFuture<'_, Vec<Uuid>>;
    /// The addresses of the other replicas with a current heartbeat.
    fn live_peers(&self) -> LeaseFuture<'_, Vec<String>>;
    /// Release every lease at once (on shutdown): end the heartbeat.
    fn release_all(&self) -> LeaseFuture<'_, ()>;
}

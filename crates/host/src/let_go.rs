//! Why a game leaves this host's memory ([`LetGo`]): the reasons `Context::let_go`, the one way
//! out of the live map, acts on.

use crate::sleep::Asleep;

/// Why a game leaves this host's memory (`Context::let_go`). Every way out removes the game's
/// session from the live map and, unless its own task is the one letting it go, tells the task
/// to stop after the operation in hand; the reason decides what is kept of the game here and
/// what becomes of its lease.
pub(crate) enum LetGo {
    /// Another replica owns it now (the heartbeat found its lease lost, or a call found a
    /// session here for a game this replica does not hold), or its caller dropped it: nothing
    /// of it stays here, and its lease is no longer counted as this replica's.
    Evicted,
    /// Handed over to the replica its calls come through: nothing of it stays here; the caller
    /// moves the lease once the task has stopped.
    HandedOver,
    /// Idle: remembered as asleep (its clock's reading, an alarm for its next flag) and woken
    /// by its next call; among replicas the caller then releases its lease.
    Asleep(Asleep),
    /// Over: served from the store from now on; it has no lease any more.
    Finished,
    /// Its log could be neither written nor read back (or another replica fenced it): the
    /// next call rebuilds it from the store, claiming its lease again.
    GivenUp,
    /// The server is stopping: the lease stays until the drain releases every lease at once.
    ShuttingDown,
}

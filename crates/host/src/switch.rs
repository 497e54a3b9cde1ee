//! One-way switches a task waits for: [`Switch`], a flag with its waiters (a session's leave and
//! gone), [`stopped`], the wait for a watch flag (shutdown), and [`sleep_until`], an instant
//! that may never come.

use std::sync::atomic::Ordering;
use tokio::sync::watch;

/// A one-way switch a task can wait for: a flag and the waiters to wake when it flips (a few
/// words, where a watch channel is a few hundred bytes: every awake game has two).
#[derive(Default)]
pub struct Switch {
    on: std::sync::atomic::AtomicBool,
    flipped: tokio::sync::Notify,
}

impl Switch {
    pub(crate) fn flip(&self) {
        self.on.store(true, Ordering::SeqCst);
        self.flipped.notify_waiters();
    }

    /// Resolves once the switch is on (never, if it is never flipped).
    pub async fn on(&self) {
        loop {
            let flipped = self.flipped.notified();
            tokio::pin!(flipped);
            // Registered before the flag is read: a flip in between still wakes this waiter.
            flipped.as_mut().enable();
            if self.on.load(Ordering::SeqCst) {
                return;
            }
            flipped.await;
        }
    }
}

/// Resolves when a switch (shutdown, a game given up) flips on; never, if nobody can flip it
/// any more (its sender is gone without flipping it: a game that ended, say).
pub async fn stopped(switch: &mut watch::Receiver<bool>) {
    if switch.wait_for(|&on| on).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Resolves at `at`; never, for none (a `select!` branch with no timer armed).
pub async fn sleep_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

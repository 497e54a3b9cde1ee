//! The bounded pool where thinking happens: bot decisions, move generation for Analysis and
//! the replay of stored logs. CPU work never runs on the async runtime's threads (it would
//! stall every game queued behind it) and never while holding anything a request for the same
//! game waits on. At most `workers` jobs run at once (about one per core); the rest wait their
//! turn without occupying a thread.

use std::sync::Arc;
use tokio::sync::Semaphore;

#[derive(Clone)]
pub struct Pool {
    slots: Arc<Semaphore>,
    workers: usize,
}

impl Pool {
    /// A pool running at most `workers` jobs at once (at least one).
    pub fn new(workers: usize) -> Pool {
        let workers = workers.max(1);
        Pool { slots: Arc::new(Semaphore::new(workers)), workers }
    }

    /// One worker per core.
    pub fn per_core() -> Pool {
        Pool::new(std::thread::available_parallelism().map_or(2, |n| n.get()))
    }

    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Run `job` on a worker and wait for its answer; None if the job panicked (a bug, reported
    /// by the caller as INTERNAL rather than taking the server down).
    pub async fn run<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        // The semaphore is never closed, so a permit always comes.
        let permit = self.slots.clone().acquire_owned().await.ok()?;
        let result = tokio::task::spawn_blocking(move || {
            let answer = job();
            drop(permit);
            answer
        })
        .await;
        result.ok()
    }

    /// Run `job` on a worker without waiting for it (it reports through whatever it captured).
    pub fn spawn(&self, job: impl FnOnce() + Send + 'static) {
        let pool = self.clone();
        tokio::spawn(async move { pool.run(job).await });
    }
}

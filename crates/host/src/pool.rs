//! The bounded pool where thinking happens: bot decisions, move generation for Analysis and
//! the replay of stored logs. CPU work never runs on the async runtime's threads (it would
//! stall every game queued behind it) and never while holding anything a request for the same
//! game waits on.
//!
//! The pool is its own set of threads (one per core), not tokio's blocking pool, for two
//! reasons: the bound is the number of threads, so waiting jobs hold no thread; and its threads
//! run at a lower scheduling priority (nice 19 on Linux, the lowest), so that when bots keep every core busy
//! the runtime's threads, which answer requests, still get the CPU first: thinking is
//! background work, a request is not.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

type Job = Box<dyn FnOnce() + Send + 'static>;

#[derive(Clone)]
pub struct Pool {
    jobs: mpsc::Sender<Job>,
}

/// How much lower than the rest of the process the workers run (Linux `nice`).
const NICE: i32 = 19;

impl Pool {
    /// A pool of `workers` threads (at least one). The threads end when every handle to the
    /// pool is gone.
    pub fn new(workers: usize) -> Pool {
        let workers = workers.max(1);
        let (jobs, queue) = mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        for i in 0..workers {
            let queue = queue.clone();
            let spawned = std::thread::Builder::new().name(format!("dawgref-think-{i}")).spawn(move || {
                lower_priority();
                loop {
                    // The lock is held only to take a job, never while running one.
                    let job = match queue.lock() {
                        Ok(q) => q.recv(),
                        Err(poisoned) => poisoned.into_inner().recv(),
                    };
                    let Ok(job) = job else { return };
                    job();
                }
            });
            if let Err(e) = spawned {
                tracing::error!(error = %e, "a thinking thread could not start");
            }
        }
        Pool { jobs }
    }

    /// One worker per core.
    pub fn per_core() -> Pool {
        Pool::new(Pool::cores())
    }

    /// The cores this process may use: the workers of [`Pool::per_core`].
    pub fn cores() -> usize {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    }

    /// Run `job` on a worker and wait for its answer; None if the job panicked (a bug, reported
    /// by the caller as INTERNAL rather than taking the server down) or no worker is left.
    pub async fn run<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let (tx, rx) = oneshot::channel();
        self.spawn(move || {
            let _ = tx.send(job());
        });
        rx.await.ok()
    }

    /// Run `job` on a worker without waiting for it (it reports through whatever it captured).
    /// A job that panics is caught: the worker lives on.
    pub fn spawn(&self, job: impl FnOnce() + Send + 'static) {
        let job: Job = Box::new(move || {
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).is_err() {
                tracing::error!("a job on the thinking pool panicked");
            }
        });
        if self.jobs.send(job).is_err() {
            tracing::error!("the thinking pool has no workers left");
        }
    }
}

/// Lower the calling thread's scheduling priority (on Linux `setpriority` with `who = 0` names
/// the calling thread, not the process).
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority only reads its integer arguments; failure is reported, not UB.
    unsafe {
        if libc::setpriority(libc::PRIO_PROCESS, 0, NICE) != 0 {
            tracing::debug!("the thinking threads keep the process's priority");
        }
    }
}

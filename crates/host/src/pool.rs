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
//!
//! **Three queues, served in order** ([`Priority`]): the live games' bots first
//! ([`Pool::spawn_bot`]), then the requests' work (analysis searches, replays), then background
//! jobs (a game review's turns, [`Pool::spawn_background`]). A worker that comes free takes the
//! first job of the first non-empty queue, so however many searches wait, a bot's decision
//! waits only for a worker, never behind them; and a background job holds a worker for one
//! short step at a time.
//!
//! **Slots.** The pool has one slot per worker, and a job runs only while it holds its slots: a
//! plain job one, a wide job (a simulation's workers, [`Pool::run_wide`]) several, at most
//! [`Pool::widest`], which leaves one slot for everyone else. So however wide the jobs, no more
//! threads think at once than the pool has workers, and no single job takes every core. Slots
//! are granted in the order asked for, all of a job's at once; nobody waits while holding one,
//! so no two jobs can wait on each other.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use tokio::sync::oneshot;

type Job = Box<dyn FnOnce() + Send + 'static>;

#[derive(Clone)]
pub struct Pool {
    queues: Arc<Queues>,
    /// Dropped with the last handle: the workers then end.
    _closer: Arc<Closer>,
    slots: Arc<Slots>,
    workers: usize,
}

/// Which queue a job waits in: a worker serves the bots' before the requests', and both
/// before the background's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// A live game's bot deciding its move or a challenge.
    Bot = 0,
    /// Work a request waits for: analysis searches, move generation, a game's replay.
    Request = 1,
    /// Work nobody waits on at once: a game review's turns.
    Background = 2,
}

/// The jobs waiting for a worker, one queue per [`Priority`].
struct Queues {
    state: Mutex<Waiting>,
    ready: Condvar,
}

#[derive(Default)]
struct Waiting {
    by_priority: [VecDeque<Job>; 3],
    /// Every handle is gone: the workers end when the queues are empty.
    closed: bool,
}

impl Waiting {
    fn pop(&mut self) -> Option<Job> {
        self.by_priority.iter_mut().find_map(|q| q.pop_front())
    }
}

impl Queues {
    fn push(&self, job: Job, priority: Priority) {
        let mut w = self.state.lock().unwrap_or_else(|e| e.into_inner());
        w.by_priority[priority as usize].push_back(job);
        self.ready.notify_one();
    }

    /// A job if one waits now.
    fn try_next(&self) -> Option<Job> {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).pop()
    }

    /// The next job, by priority; None once closed and empty.
    fn next(&self) -> Option<Job> {
        let mut w = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(job) = w.pop() {
                return Some(job);
            }
            if w.closed {
                return None;
            }
            w = self.ready.wait(w).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn close(&self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
        self.ready.notify_all();
    }
}

/// Closes the queues when the last pool handle goes (the workers hold the queues, not a
/// handle).
struct Closer(Arc<Queues>);

impl Drop for Closer {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// The pool's slots: how many are free, and whose turn it is to take some.
struct Slots {
    state: Mutex<SlotState>,
    changed: Condvar,
}

struct SlotState {
    free: usize,
    /// Tickets handed out and the one served next: slots go to askers in turn.
    issued: u64,
    serving: u64,
}

impl Slots {
    fn new(n: usize) -> Slots {
        Slots { state: Mutex::new(SlotState { free: n, issued: 0, serving: 0 }), changed: Condvar::new() }
    }

    /// Wait for `n` slots, after everyone who asked before.
    fn take(&self, n: usize) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let ticket = s.issued;
        s.issued += 1;
        while s.serving != ticket || s.free < n {
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        s.free -= n;
        s.serving += 1;
        self.changed.notify_all();
    }

    fn give(&self, n: usize) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.free += n;
        self.changed.notify_all();
    }
}

/// Gives a job's slots back however it ends (a panic included).
struct Held<'a>(&'a Slots, usize);

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.0.give(self.1);
    }
}

/// How much lower than the rest of the process the workers run (Linux `nice`).
const NICE: i32 = 19;

impl Pool {
    /// A pool of `workers` threads (at least one). The threads end when every handle to the
    /// pool is gone.
    pub fn new(workers: usize) -> Pool {
        Pool::with_idle(workers, None)
    }

    /// [`Pool::new`], whose threads call `idle` each time they run out of jobs (the binaries
    /// hand freed memory back to the system there).
    pub fn with_idle(workers: usize, idle: Option<fn()>) -> Pool {
        let workers = workers.max(1);
        let queues = Arc::new(Queues { state: Mutex::new(Waiting::default()), ready: Condvar::new() });
        for i in 0..workers {
            let queues = queues.clone();
            let spawned = std::thread::Builder::new().name(format!("dawgref-think-{i}")).spawn(move || {
                lower_priority();
                // The lock is held only to take a job, never while running one.
                loop {
                    let job = match queues.try_next() {
                        Some(job) => job,
                        None => {
                            if let Some(idle) = idle {
                                idle();
                            }
                            match queues.next() {
                                Some(job) => job,
                                None => break,
                            }
                        }
                    };
                    job();
                }
            });
            if let Err(e) = spawned {
                tracing::error!(error = %e, "a thinking thread could not start");
            }
        }
        let closer = Arc::new(Closer(queues.clone()));
        Pool { queues, _closer: closer, slots: Arc::new(Slots::new(workers)), workers }
    }

    /// One worker per core.
    pub fn per_core() -> Pool {
        Pool::new(Pool::cores())
    }

    /// One worker per core, calling `idle` when out of jobs (see [`Pool::with_idle`]).
    pub fn per_core_with_idle(idle: Option<fn()>) -> Pool {
        Pool::with_idle(Pool::cores(), idle)
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
        self.spawn_wide(1, move |_| job());
    }

    /// Worker threads.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// The most slots one job may hold: every worker but one, so that other work always has a
    /// thread (one, on a machine of one core).
    pub fn widest(&self) -> usize {
        self.workers.saturating_sub(1).max(1)
    }

    /// Run `job` holding `threads` slots (at most [`Pool::widest`]): it may think on that many
    /// threads at once (its own and `threads - 1` it starts), and while it runs, only the
    /// pool's other slots are left for other jobs. `job` is told how many it holds.
    pub fn spawn_wide(&self, threads: usize, job: impl FnOnce(usize) + Send + 'static) {
        self.push(threads, job, Priority::Request);
    }

    /// Run a live game's bot decision on the next worker that comes free, before any request's
    /// or background job that waits.
    pub fn spawn_bot(&self, job: impl FnOnce() + Send + 'static) {
        self.push(1, move |_| job(), Priority::Bot);
    }

    /// Run `job` on a worker when no other job waits for one (a game review's turn): the live
    /// games' bots and the requests' searches go first.
    pub fn spawn_background(&self, job: impl FnOnce() + Send + 'static) {
        self.push(1, move |_| job(), Priority::Background);
    }

    fn push(&self, threads: usize, job: impl FnOnce(usize) + Send + 'static, priority: Priority) {
        let n = threads.clamp(1, self.widest());
        let slots = self.slots.clone();
        let job: Job = Box::new(move || {
            slots.take(n);
            let _held = Held(&slots, n);
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(n))).is_err() {
                tracing::error!("a job on the thinking pool panicked");
            }
        });
        self.queues.push(job, priority);
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    /// Jobs that count the threads thinking at once: each holds its slots for a moment.
    fn busy(running: &Arc<AtomicUsize>, peak: &Arc<AtomicUsize>, threads: usize) {
        let now = running.fetch_add(threads, Ordering::SeqCst) + threads;
        peak.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(20));
        running.fetch_sub(threads, Ordering::SeqCst);
    }

    #[tokio::test]
    async fn wide_jobs_never_hold_more_slots_than_the_pool_has_nor_all_of_them() {
        let pool = Pool::new(4);
        assert_eq!(pool.widest(), 3);
        let running = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        for i in 0..24 {
            let (running, peak, tx) = (running.clone(), peak.clone(), tx.clone());
            // Every third job asks for more threads than it may have.
            let threads = if i % 3 == 0 { 8 } else { 1 };
            pool.spawn_wide(threads, move |granted| {
                busy(&running, &peak, granted);
                let _ = tx.send(granted);
            });
        }
        drop(tx);
        let mut granted = Vec::new();
        while let Some(g) = rx.recv().await {
            granted.push(g);
        }
        granted.sort_unstable();
        assert_eq!(granted, [vec![1; 16], vec![3; 8]].concat());
        assert!(peak.load(Ordering::SeqCst) <= 4, "peak {}", peak.load(Ordering::SeqCst));
    }

    #[tokio::test]
    async fn queued_jobs_run_bots_first_then_requests_then_background_each_in_order() {
        let pool = Pool::new(1);
        let order = Arc::new(Mutex::new(Vec::new()));
        // The one worker is busy while jobs of every priority are queued.
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        pool.spawn(move || {
            let _ = started_tx.send(());
            let _ = go_rx.recv();
        });
        started_rx.recv().unwrap();
        let queued = [
            ("review1", Priority::Background),
            ("search1", Priority::Request),
            ("review2", Priority::Background),
            ("bot", Priority::Bot),
            ("search2", Priority::Request),
        ];
        for (name, priority) in queued {
            let order = order.clone();
            let job = move || order.lock().unwrap().push(name);
            match priority {
                Priority::Bot => pool.spawn_bot(job),
                Priority::Request => pool.spawn(job),
                Priority::Background => pool.spawn_background(job),
            }
        }
        go_tx.send(()).unwrap();
        while order.lock().unwrap().len() < queued.len() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(*order.lock().unwrap(), ["bot", "search1", "search2", "review1", "review2"]);
    }

    #[tokio::test]
    async fn a_job_that_panics_gives_its_slots_back() {
        let pool = Pool::new(2);
        pool.spawn_wide(1, |_| panic!("a bug"));
        assert_eq!(pool.run(|| 7).await, Some(7));
        assert_eq!(pool.run(|| 8).await, Some(8));
    }
}

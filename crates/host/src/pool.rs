//! The bounded pool where thinking happens: bot decisions, move generation for Analysis and
//! the replay of stored logs. CPU work never runs on the async runtime's threads (it would
//! stall every game queued behind it) and never while holding anything a request for the same
//! game waits on.
//!
//! The pool is its own threads, not tokio's blocking pool, for two reasons: the bound is the
//! number of slots (below), so waiting jobs hold no thread; and its threads' scheduling
//! priority is chosen by the kind of work.
//!
//! **Two lanes of threads.** The live games' bots ([`Pool::spawn_bot`]) have threads of their
//! own, at the priority the pool is given for them ([`Pool::with_bot_nice`]; the server's: the
//! process's own), because a bot's move has a deadline: at the lowest priority, another program
//! keeping the cores busy left a 1 s champion a few percent of a core, and it overran by up to a
//! minute. There is one bot thread fewer than cores (at least one), so that however many bots
//! think, at equal priority with the runtime's threads, one core is left where requests are
//! answered first. Everything else (analysis searches, replays, a review's turns) runs on a
//! thread per core at the lowest priority (nice 19 on Linux), so that when it keeps every core
//! busy, the runtime's threads, which answer requests, and the bots still get the CPU first.
//! On the work lane the requests' jobs ([`Priority::Request`]) go before the background's
//! ([`Pool::spawn_background`]), so a background job holds a worker for one short step at a
//! time behind them.
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

/// The jobs waiting for a worker, one queue per [`Priority`]; a condition per lane.
struct Queues {
    state: Mutex<Waiting>,
    bots_ready: Condvar,
    work_ready: Condvar,
}

/// Which jobs a thread takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lane {
    Bots,
    Work,
}

#[derive(Default)]
struct Waiting {
    by_priority: [VecDeque<Job>; 3],
    /// Every handle is gone: the workers end when the queues are empty.
    closed: bool,
}

impl Waiting {
    fn pop(&mut self, lane: Lane) -> Option<Job> {
        match lane {
            Lane::Bots => self.by_priority[Priority::Bot as usize].pop_front(),
            Lane::Work => {
                self.by_priority[Priority::Request as usize..].iter_mut().find_map(|q| q.pop_front())
            }
        }
    }
}

impl Queues {
    fn push(&self, job: Job, priority: Priority) {
        let mut w = self.state.lock().unwrap_or_else(|e| e.into_inner());
        w.by_priority[priority as usize].push_back(job);
        self.ready(if priority == Priority::Bot { Lane::Bots } else { Lane::Work }).notify_one();
    }

    fn ready(&self, lane: Lane) -> &Condvar {
        match lane {
            Lane::Bots => &self.bots_ready,
            Lane::Work => &self.work_ready,
        }
    }

    /// A job of `lane` if one waits now.
    fn try_next(&self, lane: Lane) -> Option<Job> {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).pop(lane)
    }

    /// The next job of `lane`, by priority; None once closed and empty.
    fn next(&self, lane: Lane) -> Option<Job> {
        let mut w = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(job) = w.pop(lane) {
                return Some(job);
            }
            if w.closed {
                return None;
            }
            w = self.ready(lane).wait(w).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn close(&self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
        self.bots_ready.notify_all();
        self.work_ready.notify_all();
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

/// The work lane's niceness (Linux): the lowest priority.
const WORK_NICE: i32 = 19;
/// The bots' lane's niceness unless the pool is given another: the process's own.
pub const BOT_NICE: i32 = 0;

impl Pool {
    /// A pool of `workers` slots (at least one), with a thread per slot in each lane. The
    /// threads end when every handle to the pool is gone.
    #[cfg(test)]
    pub(crate) fn new(workers: usize) -> Pool {
        Pool::with_bot_nice(workers, None, BOT_NICE)
    }

    /// A pool of `workers` slots (at least one), with a thread per slot in each lane, whose
    /// threads call `idle` each time they run out of jobs (the binaries hand freed memory back
    /// to the system there), the bots' threads at niceness `bot_nice` (0: the process's own; a
    /// thread can lower its priority, never raise it back).
    pub fn with_bot_nice(workers: usize, idle: Option<fn()>, bot_nice: i32) -> Pool {
        let workers = workers.max(1);
        let queues = Arc::new(Queues {
            state: Mutex::new(Waiting::default()),
            bots_ready: Condvar::new(),
            work_ready: Condvar::new(),
        });
        let bot_threads = workers.saturating_sub(1).max(1);
        let lanes = [
            (Lane::Bots, bot_nice, bot_threads, "dawgref-bot"),
            (Lane::Work, WORK_NICE, workers, "dawgref-think"),
        ];
        for (lane, nice, threads, name) in lanes {
            for i in 0..threads {
                let queues = queues.clone();
                let spawned = std::thread::Builder::new().name(format!("{name}-{i}")).spawn(move || {
                    if lane == Lane::Bots {
                        batch_policy();
                    }
                    lower_priority(nice);
                    // The lock is held only to take a job, never while running one.
                    loop {
                        let job = match queues.try_next(lane) {
                            Some(job) => job,
                            None => {
                                if let Some(idle) = idle {
                                    idle();
                                }
                                match queues.next(lane) {
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
        }
        let closer = Arc::new(Closer(queues.clone()));
        Pool { queues, _closer: closer, slots: Arc::new(Slots::new(workers)), workers }
    }

    /// The cores this process may use: the slots of the host's pool.
    pub fn cores() -> usize {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    }

    /// Run `job` on a worker and wait for its answer; None if the job panicked (a bug, reported
    /// by the caller as INTERNAL rather than taking the server down) or no worker is left.
    pub(crate) async fn run<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let (tx, rx) = oneshot::channel();
        self.spawn(move || {
            // The caller stopped waiting (its deadline passed, it went away) while the job
            // waited for a thread: nobody wants the answer.
            if tx.is_closed() {
                return;
            }
            let _ = tx.send(job());
        });
        rx.await.ok()
    }

    /// Run `job` on a worker without waiting for it (it reports through whatever it captured).
    /// A job that panics is caught: the worker lives on.
    pub(crate) fn spawn(&self, job: impl FnOnce() + Send + 'static) {
        self.spawn_wide(1, move |_| job());
    }

    /// Worker threads.
    pub(crate) fn workers(&self) -> usize {
        self.workers
    }

    /// The most slots one job may hold: every worker but one, so that other work always has a
    /// thread (one, on a machine of one core).
    pub(crate) fn widest(&self) -> usize {
        self.workers.saturating_sub(1).max(1)
    }

    /// Run `job` holding `threads` slots (at most [`Pool::widest`]): it may think on that many
    /// threads at once (its own and `threads - 1` it starts), and while it runs, only the
    /// pool's other slots are left for other jobs. `job` is told how many it holds.
    pub(crate) fn spawn_wide(&self, threads: usize, job: impl FnOnce(usize) + Send + 'static) {
        self.push(threads, job, Priority::Request);
    }

    /// Run a live game's bot decision on the bots' threads, at their priority: it waits for a
    /// slot, never behind the work lane's queue.
    pub fn spawn_bot(&self, job: impl FnOnce() + Send + 'static) {
        self.push(1, move |_| job(), Priority::Bot);
    }

    /// Run `job` on the work lane when no request's job waits there (a game review's turn).
    pub(crate) fn spawn_background(&self, job: impl FnOnce() + Send + 'static) {
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

/// Mark the calling thread as CPU-bound (Linux `SCHED_BATCH`): it keeps its share of the CPU,
/// but a waking thread (the runtime's, with a request) preempts it rather than waiting for its
/// time slice to end.
fn batch_policy() {
    #[cfg(target_os = "linux")]
    // SAFETY: sched_setscheduler reads the parameter struct it is given, which lives across the call.
    unsafe {
        let param = libc::sched_param { sched_priority: 0 };
        if libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) != 0 {
            tracing::debug!("the bots' threads keep the normal scheduling policy");
        }
    }
}

/// Lower the calling thread's scheduling priority by `nice` (on Linux `setpriority` with
/// `who = 0` names the calling thread, not the process); 0 leaves it.
fn lower_priority(nice: i32) {
    if nice == 0 {
        return;
    }
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority only reads its integer arguments; failure is reported, not UB.
    unsafe {
        if libc::setpriority(libc::PRIO_PROCESS, 0, nice) != 0 {
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
    async fn a_job_whose_caller_stopped_waiting_never_runs() {
        let pool = Pool::new(1);
        // The one thread is held until the caller below has given up.
        let (hold, held) = std::sync::mpsc::channel::<()>();
        pool.spawn(move || {
            let _ = held.recv();
        });
        let ran = Arc::new(AtomicUsize::new(0));
        let counted = ran.clone();
        let waited = tokio::time::timeout(
            Duration::from_millis(1),
            pool.run(move || counted.fetch_add(1, Ordering::SeqCst)),
        )
        .await;
        assert!(waited.is_err(), "the job cannot have run: the thread is held");
        hold.send(()).unwrap();
        // A job queued after it runs, so the abandoned one has had its turn.
        assert_eq!(pool.run(|| 7).await, Some(7));
        assert_eq!(ran.load(Ordering::SeqCst), 0);
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
    async fn the_work_lane_runs_requests_before_background_each_in_order() {
        let pool = Pool::new(1);
        let order = Arc::new(Mutex::new(Vec::new()));
        // The work lane's one thread is busy while jobs are queued.
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        pool.spawn(move || {
            let _ = started_tx.send(());
            let _ = go_rx.recv();
        });
        started_rx.recv().unwrap();
        let queued = [("review1", true), ("search1", false), ("review2", true), ("search2", false)];
        for (name, background) in queued {
            let order = order.clone();
            let job = move || order.lock().unwrap().push(name);
            if background { pool.spawn_background(job) } else { pool.spawn(job) }
        }
        go_tx.send(()).unwrap();
        while order.lock().unwrap().len() < queued.len() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(*order.lock().unwrap(), ["search1", "search2", "review1", "review2"]);
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn bots_think_on_threads_of_their_own_at_their_priority_and_work_at_the_lowest() {
        let pool = Pool::with_bot_nice(1, None, 5);
        let seen = || {
            let name = std::thread::current().name().unwrap_or_default().to_string();
            // SAFETY: getpriority only reads its integer arguments.
            (name, unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) })
        };
        let (tx, rx) = std::sync::mpsc::channel();
        let bot_tx = tx.clone();
        pool.spawn_bot(move || bot_tx.send(seen()).unwrap());
        let bot = rx.recv().unwrap();
        pool.spawn(move || tx.send(seen()).unwrap());
        let work = rx.recv().unwrap();
        let base = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
        assert_eq!(bot, ("dawgref-bot-0".to_string(), 5.max(base)));
        assert_eq!(work, ("dawgref-think-0".to_string(), WORK_NICE.max(base)));
    }

    #[tokio::test]
    async fn a_job_that_panics_gives_its_slots_back() {
        let pool = Pool::new(2);
        pool.spawn_wide(1, |_| panic!("a bug"));
        assert_eq!(pool.run(|| 7).await, Some(7));
        assert_eq!(pool.run(|| 8).await, Some(8));
    }
}

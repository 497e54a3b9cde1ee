//! The one way an analysis search reaches the pool: admitted, bounded, and stopped when nobody
//! waits for it any more.
//!
//! A search (InferRack, Simulate, SolveEndgame, SolvePreEndgame, a game review) is CPU work of
//! up to a minute. Three rules keep it from stalling the live games:
//! - **Admission per client.** Each client (the services say who: a token's hash or a peer
//!   address) holds at most [`Limits::searches_per_client`] searches at once, waiting or
//!   running; one more is refused at once ([`HostError::TooManySearches`]), never queued.
//! - **Slots for searches, never all of them.** Searches together hold at most
//!   [`Pool::widest`] of the pool's slots (a search waits for its share asynchronously, before
//!   it enters the pool), so one slot is always left for the bots, which think on threads of
//!   their own ([`Pool::spawn_bot`]).
//! - **Stopped when abandoned.** A search's [`Grant`] carries a stop flag raised when the
//!   caller's future or stream is dropped (the client went away, or its gRPC deadline passed),
//!   and a deadline no later than the client's own; the engine's searches check both.
//!
//! [`Limits::searches_per_client`]: crate::Limits::searches_per_client

use crate::error::HostError;
use crate::pool::Pool;
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio_stream::Stream;

/// The searches admitted, by client, the pool they think on and its slots they share.
pub(crate) struct Searches {
    pool: Pool,
    slots: Arc<Semaphore>,
    per_client: usize,
    held: Mutex<HashMap<String, usize>>,
}

impl Searches {
    pub(crate) fn new(pool: Pool, per_client: usize) -> Searches {
        Searches {
            slots: Arc::new(Semaphore::new(pool.widest())),
            pool,
            per_client: per_client.max(1),
            held: Mutex::new(HashMap::new()),
        }
    }

    /// Count one more search for `client`, or refuse it when the client holds its limit.
    pub(crate) fn admit(
        self: &Arc<Self>,
        client: &str,
        deadline: Option<Instant>,
    ) -> Result<SearchTicket, HostError> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let n = held.entry(client.to_string()).or_insert(0);
        if *n >= self.per_client {
            return Err(HostError::TooManySearches { limit: self.per_client });
        }
        *n += 1;
        Ok(SearchTicket {
            searches: self.clone(),
            client: client.to_string(),
            deadline,
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// Searches admitted and not yet ended, over every client.
    pub(crate) fn held(&self) -> usize {
        self.held.lock().unwrap_or_else(|e| e.into_inner()).values().sum()
    }
}

/// An admitted search, counted against its client until dropped; dropping it also raises its
/// stop flag. Turn it into work with [`SearchTicket::run`] or [`SearchTicket::stream`], or hold
/// it beside work of another kind (a review's turns) with [`SearchTicket::stop`].
pub struct SearchTicket {
    searches: Arc<Searches>,
    client: String,
    deadline: Option<Instant>,
    stop: Arc<AtomicBool>,
}

impl Drop for SearchTicket {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let mut held = self.searches.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = held.get_mut(&self.client) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                held.remove(&self.client);
            }
        }
    }
}

/// What a search is given when it starts: its workers, its stop flag and its deadline.
pub struct Grant {
    /// Threads the search may think on (its own and `workers - 1` it starts).
    pub workers: usize,
    /// Raised when nobody waits for the answer any more.
    pub stop: Arc<AtomicBool>,
    client_deadline: Option<Instant>,
}

impl Grant {
    /// When a search given `budget` from now must end: the budget runs from when the search
    /// thinks (its slots held, a worker running it), and never past the client's own deadline.
    pub fn deadline(&self, budget: Duration) -> Instant {
        let own = Instant::now() + budget;
        self.client_deadline.map_or(own, |d| d.min(own))
    }

    /// The engine's budget for a search given `time` from now: [`Grant::deadline`], and the
    /// stop flag raised when nobody waits for the answer any more.
    pub fn budget(&self, time: Duration) -> dawgref_engine::budget::Budget {
        dawgref_engine::budget::Budget::until(self.deadline(time)).or_stop(Some(self.stop.clone()))
    }
}

impl SearchTicket {
    /// The stop flag, raised when this ticket is dropped: for work that runs its own way (a
    /// review's turns on the background queue) but is counted and stopped like a search.
    pub fn stop(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Wait for a slot, then run `job` on the pool (one thread) and answer what it returns.
    /// The ticket lives in the returned future: dropping it (the caller went away) stops the
    /// job through its grant's flag.
    pub async fn run<T: Send + 'static>(
        self,
        job: impl FnOnce(Grant) -> T + Send + 'static,
    ) -> Result<T, HostError> {
        let permit = self.slots(1).await?;
        let grant = self.grant(1);
        let answer = self.searches.pool.run(move || {
            let _permit = permit;
            job(grant)
        });
        answer.await.ok_or_else(|| HostError::Internal("the search failed".into()))
    }

    /// Wait for `threads` slots, then start `job` on the pool, which reports through a
    /// [`Reporter`] at most once per `every` (its last report always goes); answer the reports as
    /// a stream. Dropping the stream (the client went away) stops the job.
    pub async fn stream<U: Send + 'static>(
        self,
        threads: usize,
        every: Duration,
        job: impl FnOnce(Grant, Reporter<U>) + Send + 'static,
    ) -> Result<SearchStream<U>, HostError> {
        let permit = self.slots(threads).await?;
        let grant = self.grant(threads);
        let (tx, rx) = mpsc::channel::<U>(4);
        self.searches.pool.spawn_wide(grant.workers, move |_| {
            let _permit = permit;
            job(grant, Reporter { tx, every, last: None });
        });
        Ok(SearchStream { rx, _ticket: self })
    }

    async fn slots(&self, threads: usize) -> Result<OwnedSemaphorePermit, HostError> {
        let n = threads.clamp(1, self.searches.pool.widest()) as u32;
        self.searches.slots.clone().acquire_many_owned(n).await.map_err(|_| HostError::ShuttingDown)
    }

    fn grant(&self, threads: usize) -> Grant {
        Grant {
            workers: threads.clamp(1, self.searches.pool.widest()),
            stop: self.stop.clone(),
            client_deadline: self.deadline,
        }
    }
}

/// A search's reports on their way to its stream.
pub struct Reporter<U> {
    tx: mpsc::Sender<U>,
    every: Duration,
    last: Option<Instant>,
}

impl<U> Reporter<U> {
    /// Send the report `make` builds, when one is due (the first at once, then at most once per
    /// period); a reader too slow for it misses this one, never the last. False when the stream
    /// is gone: the search should stop.
    pub fn offer(&mut self, make: impl FnOnce() -> U) -> bool {
        if self.last.is_some_and(|l| l.elapsed() < self.every) {
            return !self.tx.is_closed();
        }
        self.last = Some(Instant::now());
        !matches!(self.tx.try_send(make()), Err(mpsc::error::TrySendError::Closed(_)))
    }

    /// Send the last report, waiting for room.
    pub fn finish(self, last: U) {
        let _ = self.tx.blocking_send(last);
    }
}

/// A search's reports; it holds the search's ticket, so dropping it stops the search.
pub struct SearchStream<U> {
    rx: mpsc::Receiver<U>,
    _ticket: SearchTicket,
}

impl<U> Stream for SearchStream<U> {
    type Item = U;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<U>> {
        self.rx.poll_recv(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_stream::StreamExt;

    #[tokio::test]
    async fn a_client_holds_at_most_its_limit_and_gets_a_place_back_when_one_ends() {
        let pool = Pool::new(2);
        let searches = Arc::new(Searches::new(pool.clone(), 2));
        let a = searches.admit("a", None).unwrap();
        let _b = searches.admit("a", None).unwrap();
        assert!(matches!(searches.admit("a", None), Err(HostError::TooManySearches { limit: 2 })));
        // Another client is counted apart.
        let _c = searches.admit("c", None).unwrap();
        assert_eq!(searches.held(), 3);
        drop(a);
        assert!(searches.admit("a", None).is_ok());
    }

    #[tokio::test]
    async fn dropping_a_running_search_raises_its_stop_flag() {
        let pool = Pool::new(2);
        let searches = Arc::new(Searches::new(pool.clone(), 4));
        let ticket = searches.admit("a", None).unwrap();
        let (seen_tx, seen_rx) = std::sync::mpsc::channel();
        let run = ticket.run(move |grant| {
            // Spins until stopped: only the flag can end it.
            while !grant.stop.load(Ordering::Relaxed) {
                std::thread::yield_now();
            }
            let _ = seen_tx.send(());
        });
        // The caller gives up after a moment.
        assert!(tokio::time::timeout(Duration::from_millis(50), run).await.is_err());
        tokio::task::spawn_blocking(move || seen_rx.recv()).await.unwrap().unwrap();
        assert_eq!(searches.held(), 0);
    }

    #[tokio::test]
    async fn a_stream_reports_the_last_update_and_stops_when_dropped() {
        let pool = Pool::new(2);
        let searches = Arc::new(Searches::new(pool.clone(), 4));
        let ticket = searches.admit("a", None).unwrap();
        let mut stream = ticket
            .stream(1, Duration::from_secs(3600), |_, mut reporter: Reporter<u32>| {
                // Only the first offer is due within the hour.
                assert!(reporter.offer(|| 1));
                assert!(reporter.offer(|| 2));
                reporter.finish(3);
            })
            .await
            .unwrap();
        assert_eq!(stream.next().await, Some(1));
        assert_eq!(stream.next().await, Some(3));
        assert_eq!(stream.next().await, None);
        assert_eq!(searches.held(), 1);
        drop(stream);
        assert_eq!(searches.held(), 0);
    }

    #[test]
    fn a_search_ends_by_the_clients_deadline_when_that_comes_first() {
        let client = Instant::now() + Duration::from_secs(30);
        let grant =
            Grant { workers: 1, stop: Arc::new(AtomicBool::new(false)), client_deadline: Some(client) };
        assert_eq!(grant.deadline(Duration::from_secs(60)), client);
        let before = Instant::now();
        let own = grant.deadline(Duration::from_secs(1));
        assert!(own >= before + Duration::from_secs(1) && own < client, "{own:?}");
    }
}

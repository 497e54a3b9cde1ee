//! The line of whole-game reviews: at most `running` at once, at most `waiting` more waiting
//! for a place, each told its place as the line moves. A place is given back when its holder
//! is dropped (the review done, or its client gone), whether it was running or still waiting.
//! And [`Recent`]: the last reviews of records (which have no game to be kept with), by their
//! request, so that the same request again gets the same answer. [`Reviews`] holds the two for
//! the analysis service.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// Reviews running at once: each keeps every worker busy, so two take turns with each other
/// and with the live games' bots (which go first).
const REVIEWS_RUNNING: usize = 2;
/// Reviews waiting for a place; a request past them is refused (RESOURCE_EXHAUSTED).
const REVIEWS_WAITING: usize = 8;
/// Reviews of records remembered.
const RECENT_REVIEWS: usize = 64;

pub struct Lineup {
    state: Mutex<Line>,
    moved: Notify,
    running: usize,
    waiting: usize,
}

#[derive(Default)]
struct Line {
    running: usize,
    /// Tickets waiting, first in line first.
    line: VecDeque<u64>,
    next: u64,
}

/// A review's place: in line, then running.
pub struct Place {
    lineup: Arc<Lineup>,
    ticket: u64,
    running: bool,
}

impl Lineup {
    pub fn new(running: usize, waiting: usize) -> Lineup {
        Lineup { state: Mutex::new(Line::default()), moved: Notify::new(), running: running.max(1), waiting }
    }

    fn line(&self) -> std::sync::MutexGuard<'_, Line> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reviews running and waiting now.
    pub fn load(&self) -> (usize, usize) {
        let l = self.line();
        (l.running, l.line.len())
    }

    /// A place at the end of the line, or None when the line is full (no place to run now and
    /// `waiting` already waiting).
    pub fn join(self: &Arc<Lineup>) -> Option<Place> {
        let mut l = self.line();
        if l.line.len() >= self.waiting && !(l.line.is_empty() && l.running < self.running) {
            return None;
        }
        let ticket = l.next;
        l.next += 1;
        l.line.push_back(ticket);
        Some(Place { lineup: self.clone(), ticket, running: false })
    }
}

impl Place {
    /// Wait for a place to run; `told` hears the place in line (1: next to run) each time it
    /// changes while waiting.
    pub async fn run(&mut self, mut told: impl FnMut(usize)) {
        let mut last = 0;
        while !self.running {
            let moved = self.lineup.moved.notified();
            tokio::pin!(moved);
            // Registered before looking, so that a move between the look and the wait is heard.
            moved.as_mut().enable();
            let place = {
                let mut l = self.lineup.line();
                let at = l.line.iter().position(|&t| t == self.ticket).unwrap_or(0);
                if at == 0 && l.running < self.lineup.running {
                    l.line.pop_front();
                    l.running += 1;
                    self.running = true;
                    None
                } else {
                    Some(at + 1)
                }
            };
            match place {
                None => self.lineup.moved.notify_waiters(),
                Some(place) => {
                    if place != last {
                        told(place);
                        last = place;
                    }
                    moved.await;
                }
            }
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        {
            let mut l = self.lineup.line();
            if self.running {
                l.running -= 1;
            } else {
                l.line.retain(|&t| t != self.ticket);
            }
        }
        self.lineup.moved.notify_waiters();
    }
}

/// The last `capacity` values put, by key; the oldest goes first.
pub struct Recent<T> {
    entries: Mutex<VecDeque<(String, T)>>,
    capacity: usize,
}

impl<T: Clone> Recent<T> {
    pub fn new(capacity: usize) -> Recent<T> {
        Recent { entries: Mutex::new(VecDeque::new()), capacity }
    }

    pub fn get(&self, key: &str) -> Option<T> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    }

    pub fn put(&self, key: String, value: T) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.retain(|(k, _)| *k != key);
        if entries.len() >= self.capacity {
            entries.pop_front();
        }
        entries.push_back((key, value));
    }
}

/// The server's reviews: those running and waiting, and the last reviews of records.
pub struct Reviews {
    pub(super) lineup: Arc<Lineup>,
    /// The last reviews of records, every message of each, by request.
    pub(super) recent: Recent<Arc<Vec<crate::proto::v1::AnalyzeGameResponse>>>,
}

impl Default for Reviews {
    fn default() -> Reviews {
        Reviews {
            lineup: Arc::new(Lineup::new(REVIEWS_RUNNING, REVIEWS_WAITING)),
            recent: Recent::new(RECENT_REVIEWS),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn places_run_in_turn_and_the_line_is_bounded() {
        let lineup = Arc::new(Lineup::new(1, 2));
        let mut a = lineup.join().unwrap();
        a.run(|_| panic!("a runs at once")).await;
        let mut b = lineup.join().unwrap();
        let c = lineup.join().unwrap();
        assert!(lineup.join().is_none(), "one running and two waiting: full");
        assert_eq!(lineup.load(), (1, 2));
        // b waits first in line; c's leaving (its client gone) changes nothing for b.
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let waiting = tokio::spawn(async move {
            b.run(|place| tx.send(place).unwrap()).await;
            b
        });
        assert_eq!(rx.recv().await, Some(1));
        drop(c);
        assert_eq!(lineup.load(), (1, 1));
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished());
        drop(a);
        let b = waiting.await.unwrap();
        assert_eq!(lineup.load(), (1, 0));
        drop(b);
        assert_eq!(lineup.load(), (0, 0));
    }

    #[test]
    fn recent_keeps_the_last_values() {
        let recent = Recent::new(2);
        recent.put("a".into(), 1);
        recent.put("b".into(), 2);
        recent.put("a".into(), 3);
        recent.put("c".into(), 4);
        assert_eq!((recent.get("a"), recent.get("b"), recent.get("c")), (Some(3), None, Some(4)));
    }

    #[tokio::test]
    async fn a_place_hears_the_line_move() {
        let lineup = Arc::new(Lineup::new(1, 3));
        let mut first = lineup.join().unwrap();
        first.run(|_| ()).await;
        let second = lineup.join().unwrap();
        let mut third = lineup.join().unwrap();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let waiting = tokio::spawn(async move {
            third.run(|place| tx.send(place).unwrap()).await;
            third
        });
        assert_eq!(rx.recv().await, Some(2));
        drop(second);
        assert_eq!(rx.recv().await, Some(1));
        drop(first);
        drop(waiting.await.unwrap());
        assert_eq!(lineup.load(), (0, 0));
    }
}

//! Handing freed memory back to the system. The binaries allocate with mimalloc, which keeps the
//! pages a thread freed for that thread's next allocations, and leaves a block freed by another
//! thread on its page until the owning thread allocates again. A server whose games go to sleep
//! frees much and then allocates little, so without help its resident memory would stay at its
//! peak. Each runtime thread therefore collects its heap when it goes idle (tokio's
//! `on_thread_park`), at most once a second: pages wholly free go back to the system.
//!
//! mimalloc is built without transparent huge pages (its `no_thp` feature): it would otherwise
//! ask the kernel to back its arenas with 2 MiB pages, and a 64 KiB page handed back from inside
//! one stays resident. A server started with 100,000 games that all fell asleep held 121 MiB with
//! them, 91 MiB without (BENCHMARKS.md, "Scale"). On a system whose huge pages are `always` (not
//! `madvise`), `MIMALLOC_ALLOW_THP=0` in the environment turns them off for the process.

use std::cell::Cell;
use std::time::{Duration, Instant};

/// Least time between two collections on one thread.
const EVERY: Duration = Duration::from_secs(1);

/// Call when a runtime thread parks: collects this thread's heap if it has not for a second.
pub fn collect_when_idle() {
    thread_local! {
        static LAST: Cell<Option<Instant>> = const { Cell::new(None) };
    }
    let now = Instant::now();
    let due = LAST.with(|last| {
        let due = last.get().is_none_or(|at| now.duration_since(at) >= EVERY);
        if due {
            last.set(Some(now));
        }
        due
    });
    if due {
        // SAFETY: mi_collect takes no pointer; it only walks this thread's own heap.
        unsafe { libmimalloc_sys::mi_collect(true) };
    }
}

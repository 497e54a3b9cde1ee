//! When a search must end: its deadline, and a stop flag raised from elsewhere (a caller that
//! went away). Every search with a budget (simulation, endgame, pre-endgame, inference, and the
//! bots and reviews built on them) takes one [`Budget`] beside the limits of its own kind
//! (`sim::SimLimits`, `endgame::EndgameLimits`, `pre_endgame::PreEndgameLimits`,
//! `infer::InferLimits`), and asks it one question: [`Budget::spent`].

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// A search's deadline and stop flag; neither: it ends by its own limits alone.
#[derive(Clone, Debug, Default)]
pub struct Budget {
    pub deadline: Option<Instant>,
    /// Set from elsewhere to stop the search as the deadline would.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Budget {
    /// Until `deadline`.
    pub fn until(deadline: Instant) -> Budget {
        Budget { deadline: Some(deadline), stop: None }
    }

    /// This budget, also stopped when `stop` is raised.
    pub fn or_stop(self, stop: Option<Arc<AtomicBool>>) -> Budget {
        Budget { stop, ..self }
    }

    /// The deadline has passed or the stop flag is up.
    pub fn spent(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

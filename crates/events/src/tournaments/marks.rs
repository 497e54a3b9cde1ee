//! What a spectator's view of a tournament is cut at, as each replica last read it (`held` reads
//! and fills it): when each result came in, and at which event each round was paired and
//! started.

use dawgref_tournament::GameResult;
use std::collections::HashMap;
use std::sync::Mutex;

/// A pairing: its division, round and number.
pub(super) type PairingKey = (String, u32, u32);
/// A round: its division and number.
pub(super) type RoundKey = (String, u32);

/// Each tournament's marks: each replica's own, read on from the last event it read.
#[derive(Default)]
pub(crate) struct Marks(Mutex<HashMap<String, Marked>>);

#[derive(Clone, Default)]
pub(super) struct Marked {
    /// The next event to read.
    pub(super) next: u64,
    /// Each pairing's results as they came in, first to last (a correction after the result).
    pub(super) results: HashMap<PairingKey, Vec<ResultMark>>,
    /// Each round's pairings as they were made and taken back, first to last.
    pub(super) paired: HashMap<RoundKey, Vec<PairedMark>>,
    /// The event each round started at.
    pub(super) started: HashMap<RoundKey, u64>,
}

/// A result as it came in: its event's number and time (unix ms), and the result it entered
/// (None: a row of a build that did not keep it).
#[derive(Clone, Copy)]
pub(super) struct ResultMark {
    pub(super) number: u64,
    pub(super) unix_ms: u64,
    pub(super) result: Option<GameResult>,
}

/// A round's pairings made or taken back, at its event's number.
#[derive(Clone)]
pub(super) struct PairedMark {
    pub(super) number: u64,
    pub(super) lines: Paired,
}

/// How a round was paired by an event.
#[derive(Clone)]
pub(super) enum Paired {
    /// Paired so, as the event keeps it (`event::paired_lines`).
    Lines(Vec<u32>),
    /// Unpaired.
    Unpaired,
    /// Paired, by a row of a build that did not keep how.
    Unknown,
}

/// Tournaments whose marks a replica keeps before it starts afresh.
const KEPT: usize = 256;

impl Marks {
    /// The marks last read of `slug` (none yet: from its first event).
    pub(super) fn get(&self, slug: &str) -> Marked {
        let kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        kept.get(slug).cloned().unwrap_or_default()
    }

    /// Keep `marked` for `slug`, unless a read that got further is kept already (two reads raced).
    pub(super) fn put(&self, slug: &str, marked: &Marked) {
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() >= KEPT && !kept.contains_key(slug) {
            kept.clear();
        }
        if kept.get(slug).is_none_or(|k| k.next <= marked.next) {
            kept.insert(slug.to_string(), marked.clone());
        }
    }
}

//! The engine's view of each turn of a followed game, for the spectators: asked as the feed hears
//! the turn, judged once on the thinking threads' background lane (however many watch), and
//! released right after the turn's event, or as soon as it is judged when that is later.

use super::FeedWire;
use super::log::{Fact, Feed};
use crate::Events;
use dawgref_engine::alphabet::Alphabet;
use dawgref_engine::game::{Event, EventKind, Game};
use dawgref_engine::review::TurnReview;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use uuid::Uuid;

/// One turn judged for the spectators: what a watcher may see of it, and the review that shows
/// the mover's rack (for the revealed form only).
pub struct Judged {
    /// The turn (0: the game's first) and the seat that took it.
    pub turn: u32,
    pub seat: usize,
    /// The event that took the turn.
    pub event: usize,
    /// Each seat's chance to win after the turn, in percent, from the scores and the tiles left
    /// (two-seat games only; else empty).
    pub win_percent: Vec<f64>,
    /// The turn as the engine judged it with the mover's rack, with each seat's chance by that
    /// judgement (None: a turn the review cannot judge).
    pub review: Option<(TurnReview, Vec<f64>)>,
    /// The game's alphabet, that the review's tiles are written in.
    pub alphabet: Alphabet,
}

/// A followed game's analyses: asked as each turn is heard, released with the turn's event.
pub(super) struct Analyses {
    events: Events,
    wire: Arc<dyn FeedWire>,
    slug: String,
    pub(super) done: mpsc::UnboundedReceiver<(usize, Option<Judged>)>,
    tx: mpsc::UnboundedSender<(usize, Option<Judged>)>,
    /// Judged before their event was released, by event number.
    ready: HashMap<usize, Option<Judged>>,
    /// Asked and not yet judged, by event number.
    asked: HashSet<usize>,
    /// Events released whose analysis is still being judged, with the time they happened.
    pub(super) awaited: HashMap<usize, u64>,
}

impl Analyses {
    pub(super) fn new(events: &Events, wire: &Arc<dyn FeedWire>, slug: &str) -> Analyses {
        let (tx, done) = mpsc::unbounded_channel();
        Analyses {
            events: events.clone(),
            wire: wire.clone(),
            slug: slug.to_string(),
            done,
            tx,
            ready: HashMap::new(),
            asked: Default::default(),
            awaited: HashMap::new(),
        }
    }

    /// Whether `e` took a turn the engine judges: a play, an exchange or a pass.
    pub(super) fn judges(e: &Event) -> bool {
        !e.undone && matches!(e.kind, EventKind::Play { .. } | EventKind::Exchange { .. } | EventKind::Pass)
    }

    /// Judge the turn event `e` took, if it took one and the broadcast has analysis: on the
    /// background lane, from `snapshot` (the game with `e` in it).
    pub(super) fn ask(&mut self, snapshot: &Arc<dawgref_host::Snapshot>, e: &Event) {
        let Some(kept) = self.events.broadcasts().get(&self.slug) else { return };
        if !kept.broadcast.analysis || !Analyses::judges(e) || !self.asked.insert(e.number) {
            return;
        }
        let host = &self.events.0.host;
        let (snapshot, tx, metrics) = (snapshot.clone(), self.tx.clone(), host.metrics().clone());
        let (number, ms) = (e.number, kept.broadcast.analysis_ms);
        host.think_in_background(move || {
            let judged = judge(snapshot.game(), number, Duration::from_millis(u64::from(ms)));
            metrics.broadcast_analyses.inc();
            let _ = tx.send((number, judged));
        });
    }

    /// Event `number` is out: its analysis follows it now if it is ready, else when it is.
    pub(super) fn released(&mut self, feed: &Feed, id: Uuid, number: usize, unix_ms: u64) {
        if let Some(judged) = self.ready.remove(&number) {
            self.publish(feed, id, unix_ms, judged);
        } else if self.asked.contains(&number) {
            self.awaited.insert(number, unix_ms);
        }
    }

    /// The analysis of event `number`'s turn is done.
    pub(super) fn judged(&mut self, feed: &Feed, id: Uuid, number: usize, judged: Option<Judged>) {
        self.asked.remove(&number);
        match self.awaited.remove(&number) {
            Some(unix_ms) => self.publish(feed, id, unix_ms, judged),
            None => {
                self.ready.insert(number, judged);
            }
        }
    }

    fn publish(&self, feed: &Feed, id: Uuid, unix_ms: u64, judged: Option<Judged>) {
        let Some(judged) = judged else { return };
        let fact = Fact::Analysis(judged.event as u64);
        feed.publish(id, fact, self.wire.analysis(id, unix_ms, &judged));
    }
}

/// Judge the turn that event `number` of `game` took, within `per_turn`: each side's chance after
/// it from the scores and tiles left (public), and the review of the turn with the mover's rack.
fn judge(game: &Game, number: usize, per_turn: Duration) -> Option<Judged> {
    let history = game.history();
    let e = history.get(number)?;
    let turn = history[..number].iter().filter(|f| !f.undone && f.kind.takes_turn()).count() as u32;
    let after = game.as_of(Some(e.time_ms));
    let seats = after.config().seats;
    let two = |mover_win: f64| {
        if seats != 2 || !mover_win.is_finite() {
            return Vec::new();
        }
        let mut w = vec![0.0; 2];
        w[e.seat] = 100.0 * mover_win;
        w[1 - e.seat] = 100.0 - 100.0 * mover_win;
        w
    };
    // In public: the side to move after the turn, by its lead and the tiles still to be played.
    let to_move = after.to_move();
    let scores = after.scores();
    let tiles_left =
        after.bag_len() + (0..seats).filter_map(|s| after.rack(s)).map(|r| r.len()).sum::<usize>();
    let spread = f64::from(scores[to_move] - scores[(to_move + 1) % seats]);
    let p = dawgref_engine::sim::win_probability(after.config().rules.kind, spread, tiles_left);
    let public_mover = if to_move == e.seat { p } else { 1.0 - p };
    let options = dawgref_engine::review::Options { per_turn, ..Default::default() };
    let review = dawgref_engine::review::review_turn(game, turn, true, &options).filter(|r| r.analysable);
    let review = review.map(|r| {
        // A turn the review gives no chance for (its one move, say): the public figure.
        let win = two(if r.played.win.is_finite() { r.played.win } else { public_mover });
        (r, win)
    });
    Some(Judged {
        turn,
        seat: e.seat,
        event: number,
        win_percent: two(public_mover),
        review,
        alphabet: game.config().rules.alphabet,
    })
}

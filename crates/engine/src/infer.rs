//! Rack inference: what a seat kept, judged from what it just did.
//!
//! A seat that plays, exchanges or passes keeps a **leave**, the tiles it did not use. Its rack
//! was those tiles plus the leave, and the leave came from the tiles the observer cannot see
//! (the **pool**: every tile not on the board, less the observer's own rack when it is known,
//! less the tiles the action used). Before the action every leave of the right size was as
//! likely as the draw made it: its **prior** is the chance of drawing exactly those tiles from
//! the pool (a product of binomial coefficients over the letters). The action then tells which
//! leaves fit it. The model, the one published for crossword engines: a seat plays (or
//! exchanges, or passes) about as the static player would, so a leave **fits** when the action
//! is within `tolerance` points of equity of the best static action the whole rack allows
//! (the best play by score plus leave, or keeping the best subset through an exchange when the
//! bag allows one). A leave that fits weighs 1; beyond the tolerance the weight falls off
//! exponentially with the shortfall (`spread` points per factor e), never below `floor`
//! (people, and bots that look further, do play other moves). The posterior is the prior times
//! the weight, normalized:
//!
//! ```text
//! P(leave | action) = prior(leave) · weight(leave) / Z,   Z = Σ prior · weight
//! ```
//!
//! Every distinct leave is valued when the budget allows it (exact); otherwise leaves are drawn
//! from the prior, each distinct one valued once, and `Z` and the letter figures are
//! estimated from the draws. Either way [`Inference::probability`] is the model's probability
//! of any leave (its weight is valued on demand), so that the probabilities of every leave sum
//! to 1, not only those listed.
//!
//! Valuing a leave asks one question of the move generator, "which is the best play of this
//! rack, if it beats the action by more than the tolerance?", which [`best_by_equity_above`]
//! answers with that bar as its floor: far cheaper than finding the best play outright, since
//! most racks' plays are searched only down to the bar.

use crate::alphabet::Letter;
use crate::bag::SplitMix64;
use crate::board::Board;
use crate::budget::Budget;
use crate::equity::{LeaveModel, best_keep_by};
use crate::game::{Action, EventKind, Game};
use crate::lexicon::Dawg;
use crate::movegen::{Mode, best_by_equity_above};
use crate::rack::Rack;
use crate::rules::Ruleset;
use crate::score::evaluate_normalized;
use std::collections::HashMap;

/// How the model judges an action.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Points of static equity an action may fall short of the best and still fit the rack
    /// fully (weight 1).
    pub tolerance: f32,
    /// Beyond the tolerance, the weight falls by a factor e every this many points.
    pub spread: f32,
    /// The least weight of any leave (0 < floor ≤ 1).
    pub floor: f64,
}

/// The tolerance and floor measured best on strong-bot and human plays (BENCHMARKS.md,
/// "Rack inference").
impl Default for Params {
    fn default() -> Params {
        Params { tolerance: DEFAULT_TOLERANCE, spread: DEFAULT_SPREAD, floor: DEFAULT_FLOOR }
    }
}

impl Params {
    /// For a seat known to choose its action by static equity with the shipped leaves, as the
    /// `strong` bot does: the true leave always fits its action, so a tight tolerance and a
    /// steep fall-off rule out more of the others. On 1,000 strong-bot plays the true leave's
    /// probability over a blind draw's is 3.17 with these and 2.87 with the defaults; on the
    /// human plays of the records 0.94 and 1.10 (BENCHMARKS.md, "Inference"), which is why they
    /// are not everyone's.
    pub const STATIC_PLAYER: Params = Params { tolerance: 0.1, spread: 0.5, floor: DEFAULT_FLOOR };
}

/// See [`Params::tolerance`].
pub const DEFAULT_TOLERANCE: f32 = 0.5;
/// See [`Params::spread`].
pub const DEFAULT_SPREAD: f32 = 1.0;
/// See [`Params::floor`].
pub const DEFAULT_FLOOR: f64 = 0.01;

/// What a seat did, as an observer saw it at the time.
#[derive(Clone, Debug)]
pub struct Observation {
    /// The board before the action.
    pub board: Board,
    /// The tiles the observer could not see before the action: the seat's rack among them.
    pub unseen: Rack,
    /// A play, an exchange or a pass.
    pub action: Action,
    /// Tiles on the seat's rack before the action (public: everyone sees how many).
    pub rack_len: usize,
    /// Tiles in the bag before the action.
    pub bag: usize,
}

/// Why an observation cannot be explained.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InferError {
    #[error("a resignation keeps nothing to infer")]
    Resign,
    #[error("the action uses {used} tiles but the rack held {rack}")]
    TooManyTiles { used: usize, rack: usize },
    #[error("the action uses tiles the observer could see (they were not unseen)")]
    NotUnseen,
    #[error("the rack held {rack} tiles but only {unseen} were unseen")]
    RackTooLarge { rack: usize, unseen: usize },
    #[error("turn {0} has not been played")]
    NoSuchTurn(u32),
    #[error("turn {turn} was {what}: only a play, an exchange or a pass is explained")]
    NotAnAction { turn: u32, what: &'static str },
}

impl Observation {
    /// The action that took turn `turn` (0 = the game's first turn) of `game`, as seen by
    /// `observer` (None: only what was public at the time; a seat: its own rack then, too).
    /// Only the rack's tile count is read from the seat that acted.
    pub fn from_game(game: &Game, turn: u32, observer: Option<usize>) -> Result<Observation, InferError> {
        let history = game.history();
        let rules = game.config().rules.clone();
        let dawg = game.config().lexicon.dawg();
        // The event that took turn `turn`: turns are taken by plays, exchanges, passes and
        // lost turns, in order.
        let mut taken = 0u32;
        let mut found = None;
        for e in history {
            let takes = e.kind.takes_turn();
            if !takes {
                continue;
            }
            if taken == turn {
                found = Some(e);
                break;
            }
            taken += 1;
        }
        let event = found.ok_or(InferError::NoSuchTurn(turn))?;
        let action = match &event.kind {
            EventKind::Play { play, .. } => Action::Play(*play),
            EventKind::Exchange { tiles } => Action::Exchange(*tiles),
            EventKind::Pass => Action::Pass,
            _ => return Err(InferError::NotAnAction { turn, what: "a lost turn" }),
        };
        // The board as it was: every standing play before the event.
        let mut board = Board::new(rules.clone());
        for e in &history[..event.number] {
            match &e.kind {
                EventKind::Play { play, .. } => {
                    let placements: Vec<_> = play.placements().map(|p| (p.row, p.col, p.tile)).collect();
                    board.place(&placements, dawg);
                }
                EventKind::PhonyWithdrawn { play } => {
                    let squares: Vec<_> = play.placements().map(|p| (p.row, p.col)).collect();
                    board.remove(&squares, dawg);
                }
                _ => {}
            }
        }
        // A seat's rack only changes on its own events, and each event carries the rack
        // before it: the seat's rack at event `n` is the one its first event from `n` on
        // carries, or the rack it holds now.
        let rack_at = |seat: usize| -> Rack {
            history[event.number..]
                .iter()
                .find(|e| e.seat == seat)
                .map_or_else(|| game.rack(seat).copied().unwrap_or_default(), |e| e.rack)
        };
        let on_racks: usize = (0..game.config().seats).map(|s| rack_at(s).len()).sum();
        let mut unseen = rules.full_set();
        for &t in board.grid() {
            if t != crate::alphabet::EMPTY {
                unseen.take_tile(t);
            }
        }
        let bag = unseen.len().saturating_sub(on_racks);
        if let Some(o) = observer.filter(|&o| o != event.seat && o < game.config().seats) {
            unseen.remove_all(&rack_at(o));
        }
        Ok(Observation { board, unseen, action, rack_len: event.rack.len(), bag })
    }

    /// The observation of the last action in `game` when it was the opponent's of `mover` (a
    /// play still on the board, an exchange or a pass): what the champion infers before it
    /// simulates. `own_rack`: the observer is `mover` and knows its rack (else only what was
    /// public is used). None otherwise.
    pub fn last_of_opponent(game: &Game, mover: usize, own_rack: bool) -> Option<Observation> {
        let history = game.history();
        let last = history.iter().rev().find(|e| {
            matches!(
                e.kind,
                EventKind::Play { .. }
                    | EventKind::Exchange { .. }
                    | EventKind::Pass
                    | EventKind::TurnLost
                    | EventKind::PhonyWithdrawn { .. }
                    | EventKind::Challenged { .. }
            )
        })?;
        let acted =
            matches!(last.kind, EventKind::Play { .. } | EventKind::Exchange { .. } | EventKind::Pass);
        if !acted || last.seat == mover || game.config().seats != 2 {
            return None;
        }
        let turn = game.turn().checked_sub(1)?;
        Observation::from_game(game, turn, own_rack.then_some(mover)).ok()
    }

    /// The tiles the action took from the rack (a blank as a blank), and how many.
    fn used(&self) -> Result<Rack, InferError> {
        let mut used = Rack::new();
        match &self.action {
            Action::Play(play) => {
                for p in play.placements() {
                    used.add_tile(p.tile);
                }
            }
            Action::Exchange(tiles) => used = *tiles,
            Action::Pass => {}
            Action::Resign => return Err(InferError::Resign),
        }
        Ok(used)
    }
}

/// What the model makes of an observation.
#[derive(Clone, Debug)]
pub struct Inference {
    /// Tiles the seat kept.
    pub leave_size: usize,
    /// The leaves valued, most likely first, each with its probability under the model.
    pub leaves: Vec<(Rack, f64)>,
    /// Every possible leave was valued: the figures are exact, not estimated.
    pub exact: bool,
    /// Distinct leaves valued.
    pub valued: usize,
    /// Leaves drawn from the prior (when not exact).
    pub draws: usize,
    /// The share of the prior the action fits fully (weight 1), estimated when not exact.
    pub fits: f64,
    /// Per letter, the probability that the leave holds at least one (index = letter); and
    /// the same for the blank.
    pub letters: Vec<f64>,
    pub blank: f64,
    /// `Z`: the expected weight of a leave under the prior.
    normalizer: f64,
    context: Context,
}

/// What valuing a leave needs.
#[derive(Clone, Debug)]
struct Context {
    board: Board,
    action: Action,
    used: Rack,
    pool: Rack,
    bag: usize,
    /// The action's static equity, less its leave's value (a play's score; 0 otherwise).
    score: i32,
    params: Params,
}

impl Context {
    /// The weight of `leave`: 1 when the action is within the tolerance of the best static
    /// action of the rack it completes; beyond, `exp(-(gap - tolerance) / spread)`, never
    /// below the floor.
    fn weight(&self, leave: &Rack, dawg: &Dawg) -> f64 {
        let gap = self.gap(leave, dawg);
        let over = f64::from((gap - self.params.tolerance).max(0.0));
        (-over / f64::from(self.params.spread.max(1e-3))).exp().max(self.params.floor)
    }

    /// How far the action falls short of the best static action of the rack `leave` completes,
    /// in points of equity; 0 or less when nothing beats it by more than the tolerance.
    fn gap(&self, leave: &Rack, dawg: &Dawg) -> f32 {
        let rules: &Ruleset = self.board.rules();
        let model = LeaveModel::shipped(rules);
        let mut rack = *leave;
        rack.add_all(&self.used);
        let kept = match self.action {
            Action::Pass => rack,
            _ => *leave,
        };
        let equity = self.score as f32 + model.value(rules, &kept, self.bag);
        // Only plays beyond the tolerance matter: the search's floor. The best of those is the
        // rack's best play, when there is one.
        let bar = equity + self.params.tolerance;
        let mut best = equity;
        if self.bag >= rules.options.exchange_limit as usize {
            best = best.max(best_keep_by(rules, &rack, self.bag, model).0);
        }
        let floor = bar.max(best);
        if let Some((e, _)) =
            best_by_equity_above(&self.board, &rack, dawg, Mode::Both, model.at(rules, self.bag), floor)
        {
            best = best.max(e);
        }
        best - equity
    }
}

impl Inference {
    /// The model's probability of `leave` (0 for one the pool could not supply or of the
    /// wrong size), valued now if it was not.
    pub fn probability(&self, leave: &Rack, dawg: &Dawg) -> f64 {
        if leave.len() != self.leave_size || !self.context.pool.contains(leave) {
            return 0.0;
        }
        prior(&self.context.pool, leave) * self.context.weight(leave, dawg) / self.normalizer
    }

    /// The weight of `leave`: 1 when the action fits the rack it completes, else the floor (0
    /// for a leave the pool could not supply or of the wrong size).
    pub fn weight(&self, leave: &Rack, dawg: &Dawg) -> f64 {
        if leave.len() != self.leave_size || !self.context.pool.contains(leave) {
            return 0.0;
        }
        self.context.weight(leave, dawg)
    }

    /// How much likelier the model makes `leave` than a blind draw from the pool: its
    /// probability over its prior (the weight over `Z`).
    pub fn gain(&self, leave: &Rack, dawg: &Dawg) -> f64 {
        if leave.len() != self.leave_size || !self.context.pool.contains(leave) {
            return 0.0;
        }
        self.context.weight(leave, dawg) / self.normalizer
    }

    /// A leave drawn from the model, given a uniform number in [0, 1): by the leaves valued,
    /// each as likely as its share of their probability.
    pub fn draw(&self, u: f64) -> Rack {
        let total: f64 = self.leaves.iter().map(|(_, p)| p).sum();
        let mut target = u * total;
        for (leave, p) in &self.leaves {
            if target < *p {
                return *leave;
            }
            target -= p;
        }
        self.leaves.last().map_or_else(Rack::new, |(l, _)| *l)
    }
}

/// The chance of drawing exactly `leave` from `pool` (as many tiles as `leave` holds).
pub fn prior(pool: &Rack, leave: &Rack) -> f64 {
    let mut ways = 1.0f64;
    for l in 0..crate::alphabet::MAX_LETTERS {
        ways *= choose(pool.count(l as Letter) as u32, leave.count(l as Letter) as u32);
    }
    ways *= choose(pool.blanks() as u32, leave.blanks() as u32);
    ways / choose(pool.len() as u32, leave.len() as u32)
}

fn choose(n: u32, k: u32) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    (0..k).fold(1.0, |acc, i| acc * f64::from(n - i) / f64::from(i + 1))
}

/// How long inference may take, and how many distinct leaves it may value.
#[derive(Clone, Debug)]
pub struct InferLimits {
    pub budget: Budget,
    /// Distinct leaves valued at most.
    pub max_valued: usize,
    /// The seed of the draws from the prior (when not every leave can be valued).
    pub seed: u64,
}

impl Default for InferLimits {
    fn default() -> InferLimits {
        InferLimits { budget: Budget::default(), max_valued: 1_000_000, seed: 0 }
    }
}

/// Leaves listed in an [`Inference`] at most (the most likely); the rest still count in every
/// figure.
pub const MAX_LISTED: usize = 5_000;

/// Infer the leave of `observation`'s seat.
pub fn infer(
    observation: &Observation,
    dawg: &Dawg,
    params: Params,
    limits: InferLimits,
) -> Result<Inference, InferError> {
    let used = observation.used()?;
    if used.len() > observation.rack_len {
        return Err(InferError::TooManyTiles { used: used.len(), rack: observation.rack_len });
    }
    if observation.rack_len > observation.unseen.len() {
        return Err(InferError::RackTooLarge {
            rack: observation.rack_len,
            unseen: observation.unseen.len(),
        });
    }
    let mut pool = observation.unseen;
    if !pool.remove_all(&used) {
        return Err(InferError::NotUnseen);
    }
    let leave_size = observation.rack_len - used.len();
    let score = match &observation.action {
        Action::Play(play) => evaluate_normalized(&observation.board, play).total,
        _ => 0,
    };
    let params =
        Params { floor: params.floor.clamp(1e-9, 1.0), tolerance: params.tolerance.max(0.0), ..params };
    let context = Context {
        board: observation.board.clone(),
        action: observation.action.clone(),
        used,
        pool,
        bag: observation.bag,
        score,
        params,
    };
    let alphabet_len = observation.board.rules().alphabet.len();
    let distinct = count_leaves(&pool, leave_size, limits.max_valued.saturating_add(1));
    let spent = |valued: usize| valued >= limits.max_valued || (valued > 0 && limits.budget.spent());
    // Exact: every distinct leave, weighed by its prior. Otherwise: draws from the prior, each
    // distinct leave valued once and counted as often as it was drawn.
    let mut weights: HashMap<Rack, (f64, f64)> = HashMap::new(); // leave → (weight, mass)
    let mut exact = false;
    let mut draws = 0usize;
    if distinct <= limits.max_valued {
        let mut all = Vec::with_capacity(distinct);
        enumerate(&pool, leave_size, &mut all);
        let mut complete = true;
        for leave in all {
            if spent(weights.len()) {
                complete = false;
                break;
            }
            let w = context.weight(&leave, dawg);
            weights.insert(leave, (w, prior(&pool, &leave)));
        }
        if complete {
            exact = true;
        } else {
            // Cut short: the leaves valued so far (in the enumeration's order) are no sample of
            // the prior. Start again from draws, keeping the weights already known.
            let known: HashMap<Rack, f64> = weights.drain().map(|(l, (w, _))| (l, w)).collect();
            draws = sample(&context, &pool, leave_size, dawg, &limits, known, &mut weights, &spent);
        }
    } else {
        draws = sample(&context, &pool, leave_size, dawg, &limits, HashMap::new(), &mut weights, &spent);
    }
    let valued = weights.len();
    // In a fixed order, so that the sums (and their rounding) repeat from run to run.
    let mut weights: Vec<(Rack, (f64, f64))> = weights.into_iter().collect();
    weights.sort_by_key(|(leave, _)| rack_order(leave));
    // Z, the share that fits, and the letter figures: exact sums over the prior, or averages
    // over the draws.
    let (mut z, mut fit, mut total) = (0.0, 0.0, 0.0);
    let mut letters = vec![0.0; alphabet_len];
    let mut blank = 0.0;
    for (leave, (w, mass)) in &weights {
        let (w, mass) = (*w, *mass);
        total += mass;
        z += mass * w;
        if w >= 1.0 {
            fit += mass;
        }
        for (l, share) in letters.iter_mut().enumerate() {
            if leave.count(l as Letter) > 0 {
                *share += mass * w;
            }
        }
        if leave.blanks() > 0 {
            blank += mass * w;
        }
    }
    let z_share = if total > 0.0 { z / total } else { 1.0 };
    for share in &mut letters {
        *share /= z.max(f64::MIN_POSITIVE);
    }
    blank /= z.max(f64::MIN_POSITIVE);
    let normalizer = z_share.max(f64::MIN_POSITIVE);
    let mut leaves: Vec<(Rack, f64)> =
        weights.iter().map(|(leave, (w, _))| (*leave, prior(&pool, leave) * w / normalizer)).collect();
    // Most likely first; equal ones in a fixed order (by their tiles), so answers repeat.
    leaves.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| rack_order(&a.0).cmp(&rack_order(&b.0))));
    leaves.truncate(MAX_LISTED);
    Ok(Inference {
        leave_size,
        leaves,
        exact,
        valued,
        draws,
        fits: if total > 0.0 { fit / total } else { 0.0 },
        letters,
        blank,
        normalizer,
        context,
    })
}

/// Draws from the prior until the budget is spent; `weights` gets each distinct leave with its
/// weight and the number of times it was drawn. Returns the number of draws.
#[allow(clippy::too_many_arguments)]
fn sample(
    context: &Context,
    pool: &Rack,
    leave_size: usize,
    dawg: &Dawg,
    limits: &InferLimits,
    mut known: HashMap<Rack, f64>,
    weights: &mut HashMap<Rack, (f64, f64)>,
    spent: &dyn Fn(usize) -> bool,
) -> usize {
    let mut tiles: Vec<Option<Letter>> = pool.tiles().collect();
    let mut rng = SplitMix64::new(limits.seed ^ 0x1F3E_7A2D_90B4_C615);
    let mut draws = 0;
    // A draw of an already valued leave costs nothing: stop on the clock, or when the draws
    // bring nothing new for long.
    let mut stale = 0usize;
    while !spent(weights.len()) && stale < 200_000 {
        for k in 0..leave_size.min(tiles.len()) {
            let j = k + rng.below((tiles.len() - k) as u64) as usize;
            tiles.swap(k, j);
        }
        let mut leave = Rack::new();
        for t in &tiles[..leave_size.min(tiles.len())] {
            match t {
                Some(l) => leave.add(*l),
                None => leave.add_blank(),
            }
        }
        draws += 1;
        match weights.get_mut(&leave) {
            Some(entry) => {
                entry.1 += 1.0;
                stale += 1;
            }
            None => {
                let w = known.remove(&leave).unwrap_or_else(|| context.weight(&leave, dawg));
                weights.insert(leave, (w, 1.0));
                stale = 0;
            }
        }
    }
    draws
}

/// A fixed order of racks: by letter counts, then blanks.
fn rack_order(r: &Rack) -> (Vec<u8>, u8) {
    ((0..crate::alphabet::MAX_LETTERS).map(|l| r.count(l as Letter)).collect(), r.blanks())
}

/// Distinct multisets of `size` tiles from `pool`, counted up to `cap`.
fn count_leaves(pool: &Rack, size: usize, cap: usize) -> usize {
    let kinds: Vec<_> = pool.kinds().collect();
    // ways[k] = multisets of k tiles from the kinds so far.
    let mut ways = vec![0usize; size + 1];
    ways[0] = 1;
    for &(_, n) in &kinds {
        let mut next = vec![0usize; size + 1];
        for (k, &w) in ways.iter().enumerate() {
            if w == 0 {
                continue;
            }
            for c in 0..=(n as usize).min(size - k) {
                next[k + c] = next[k + c].saturating_add(w).min(cap);
            }
        }
        ways = next;
    }
    ways[size]
}

/// Every distinct multiset of `size` tiles from `pool`.
fn enumerate(pool: &Rack, size: usize, out: &mut Vec<Rack>) {
    fn go(kinds: &[(Option<Letter>, u8)], i: usize, left: usize, leave: &mut Rack, out: &mut Vec<Rack>) {
        if left == 0 {
            out.push(*leave);
            return;
        }
        if i == kinds.len() {
            return;
        }
        let (kind, n) = kinds[i];
        for c in 0..=(n as usize).min(left) {
            for _ in 0..c {
                match kind {
                    Some(l) => leave.add(l),
                    None => leave.add_blank(),
                }
            }
            go(kinds, i + 1, left - c, leave, out);
            for _ in 0..c {
                match kind {
                    Some(l) => {
                        leave.take(l);
                    }
                    None => {
                        leave.take_blank();
                    }
                }
            }
        }
    }
    let kinds: Vec<_> = pool.kinds().collect();
    go(&kinds, 0, size, &mut Rack::new(), out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priors_of_every_leave_sum_to_one() {
        let alphabet = crate::alphabet::Alphabet::english();
        let pool = Rack::parse("AAEEIRST??", alphabet).unwrap();
        for size in 0..=4 {
            let mut all = Vec::new();
            enumerate(&pool, size, &mut all);
            assert_eq!(all.len(), count_leaves(&pool, size, usize::MAX));
            let sum: f64 = all.iter().map(|l| prior(&pool, l)).sum();
            assert!((sum - 1.0).abs() < 1e-12, "size {size}: {sum}");
        }
        assert_eq!(count_leaves(&pool, 2, 5), 5, "the count stops at its cap");
    }
}

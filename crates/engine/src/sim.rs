//! Monte Carlo simulation of the side to move's best candidates, for the champion bot and for
//! analysis.
//!
//! A [`Setup`] is what the side to move can see: the board, its rack, the tiles it cannot see
//! (the opponent's rack and the bag, in unknown order), the spread and the top candidates by
//! static equity (score plus leave, with the best exchange). One **iteration** draws the
//! opponent's rack and the bag's order from the unseen tiles, then, for every candidate on the
//! same draw (common random numbers), plays the candidate and `plies` further turns with the
//! static player (score plus leave), and values the line: the spread it adds, plus the leaves
//! both sides keep (or, if it ended the game, the racks as the end counts them: a side went
//! out, or the scoreless turns, counted on from the real game's, reached the ruleset's limit).
//! That value becomes a win probability with [`win_probability`] (the ruleset's table learned from
//! self-play), and candidates are ranked by mean win probability, spread breaking ties. The
//! [`choice`] is the leader only when it is clearly ahead of the static best (one standard error
//! of the difference): with a short budget the tally is noisy, and its leader is then more often
//! lucky than good.
//!
//! Iteration `i` depends only on the setup's seed and `i`; a [`Tally`] folds iterations in
//! index order, and [`simulate`] decides to stop only between batches of a fixed size (a
//! leader 99% ahead of every other candidate, or the iteration cap). So the same seed and
//! worker count give the same choice, unless the time budget ends the search first.

use crate::alphabet::Letter;
use crate::bag::SplitMix64;
use crate::board::Board;
use crate::endgame::Position;
use crate::equity::{LeaveModel, best_keep, leave_value};
use crate::game::{Action, Game};
use crate::lexicon::Dawg;
use crate::movegen::{Mode, best_by_equity, generate};
use crate::play::Play;
use crate::rack::Rack;
use crate::rules::Ruleset;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Two-sided 99% normal quantile: a candidate is out once its upper bound is below the
/// leader's lower bound at this many standard errors.
const Z99: f64 = 2.576;
/// Iterations every candidate gets before any is ruled out.
const MIN_ITERATIONS: u32 = 16;

/// One candidate move with its static evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub action: Action,
    /// Points the move scores now.
    pub score: i32,
    /// Score plus the value of the tiles kept.
    pub equity: f32,
}

/// What the side to move knows, and what to simulate.
#[derive(Clone, Debug)]
pub struct Setup {
    board: Board,
    rack: Rack,
    /// The tiles the mover cannot see: the opponent's rack and the bag.
    unseen: Vec<Option<Letter>>,
    /// Tiles in the bag now (the rest of `unseen` is the opponent's rack).
    bag_len: usize,
    /// The mover's score less the opponent's.
    spread: i32,
    /// Consecutive scoreless turns before the mover's (passes, exchanges, withdrawn plays).
    zeros: u32,
    pub candidates: Vec<Candidate>,
    plies: usize,
    seed: u64,
}

/// How to simulate.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Candidates kept from the static ranking (the best exchange, when allowed, is added).
    pub candidates: usize,
    /// Turns played after each candidate (the opponent's, then the mover's, …).
    pub plies: usize,
    pub seed: u64,
}

impl Default for Params {
    fn default() -> Params {
        Params { candidates: 10, plies: 2, seed: 0 }
    }
}

impl Setup {
    /// The view of `seat` in a two-seat game, on its turn: None when the game is not a
    /// two-seat game in play, or the seat has no rack.
    pub fn from_game(game: &Game, seat: usize, params: Params) -> Option<Setup> {
        if game.config().seats != 2 || game.is_over() {
            return None;
        }
        let rack = *game.rack(seat)?;
        let scores = game.scores();
        let spread = scores[seat] - scores[1 - seat];
        Setup::new(
            game.board(),
            rack,
            spread,
            game.bag_len(),
            game.scoreless_turns(),
            game.config().lexicon.dawg(),
            params,
        )
    }

    /// A position given by its board, the mover's rack, the spread, the bag's size (the
    /// unseen tiles are the full set less the board and the rack) and the scoreless turns just
    /// before it. None when the board and rack hold more of a tile than the set has, or the bag
    /// is larger than the unseen tiles.
    pub fn new(
        board: &Board,
        rack: Rack,
        spread: i32,
        bag_len: usize,
        zeros: u32,
        dawg: &Dawg,
        params: Params,
    ) -> Option<Setup> {
        let unseen_rack = Position::unseen(board, &rack)?;
        let unseen: Vec<Option<Letter>> = unseen_rack.tiles().collect();
        if bag_len > unseen.len() || rack.is_empty() {
            return None;
        }
        let candidates = candidates(board, &rack, dawg, board.rules(), bag_len, params.candidates);
        if candidates.is_empty() {
            return None;
        }
        Some(Setup {
            board: board.clone(),
            rack,
            unseen,
            bag_len,
            spread,
            zeros,
            candidates,
            plies: params.plies,
            seed: params.seed,
        })
    }

    /// The value of each candidate on iteration `i`'s draw, as (win probability, spread).
    pub fn iteration(&self, i: u64, dawg: &Dawg) -> Vec<(f64, f64)> {
        self.iteration_of(i, dawg, &vec![true; self.candidates.len()])
    }

    /// [`Setup::iteration`] for the candidates still `live` (the others get 0, 0 and cost
    /// nothing).
    fn iteration_of(&self, i: u64, dawg: &Dawg, live: &[bool]) -> Vec<(f64, f64)> {
        let mut rng = SplitMix64::new(self.seed ^ i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut drawn = self.unseen.clone();
        for k in (1..drawn.len()).rev() {
            drawn.swap(k, rng.below(k as u64 + 1) as usize);
        }
        // The bag is drawn from its end: the opponent's rack is the rest.
        let opp_len = drawn.len() - self.bag_len;
        let mut opponent = Rack::new();
        for t in drawn.drain(..opp_len) {
            add(&mut opponent, t);
        }
        self.candidates
            .iter()
            .zip(live)
            .map(|(c, &live)| {
                if !live {
                    return (0.0, 0.0);
                }
                let mut line = Line {
                    board: self.board.clone(),
                    racks: [self.rack, opponent],
                    bag: drawn.clone(),
                    spread: 0,
                    zeros: self.zeros,
                    over: false,
                };
                line.act(0, &c.action, c.score, dawg, self.board.rules());
                for ply in 0..self.plies {
                    if line.over {
                        break;
                    }
                    let side = if ply % 2 == 0 { 1 } else { 0 };
                    line.static_turn(side, dawg, self.board.rules());
                }
                let value = line.value(self.board.rules());
                let tiles_left = line.bag.len() + line.racks[0].len() + line.racks[1].len();
                // The table is from the view of the side to move, and after an even number of
                // plies in all (the candidate and `plies`) the opponent is to move.
                let total = self.spread as f64 + value;
                let left = if line.over { 0 } else { tiles_left };
                let win = if (1 + self.plies) % 2 == 1 {
                    1.0 - win_probability(self.board.rules().kind, -total, left)
                } else {
                    win_probability(self.board.rules().kind, total, left)
                };
                (win, value)
            })
            .collect()
    }
}

/// Top candidates by static equity (ties in the generator's order), plus the best exchange
/// when the bag allows one, or a pass when there is nothing else.
fn candidates(
    board: &Board,
    rack: &Rack,
    dawg: &Dawg,
    rules: &Ruleset,
    bag: usize,
    k: usize,
) -> Vec<Candidate> {
    let mut plays: Vec<(f32, Play, i32)> = Vec::new();
    let leaves = LeaveModel::shipped(rules);
    generate(board, rack, dawg, Mode::Both, &mut |play: &Play, score| {
        plays.push((leaves.play_equity(rules, rack, play, score, bag), *play, score));
    });
    // Stable: equal equities keep the generator's order.
    plays.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut out: Vec<Candidate> = plays
        .into_iter()
        .take(k.max(1))
        .map(|(equity, play, score)| Candidate { action: Action::Play(play), score, equity })
        .collect();
    if bag >= rules.options.exchange_limit as usize {
        let (keep_value, keep) = best_keep(rules, rack, bag);
        let mut throw = *rack;
        throw.remove_all(&keep);
        if !throw.is_empty() {
            out.push(Candidate { action: Action::Exchange(throw), score: 0, equity: keep_value });
        }
    }
    if out.is_empty() {
        out.push(Candidate { action: Action::Pass, score: 0, equity: leave_value(rules, rack, bag) });
    }
    out
}

fn add(rack: &mut Rack, t: Option<Letter>) {
    match t {
        Some(l) => rack.add(l),
        None => rack.add_blank(),
    }
}

/// One simulated line: the mover is side 0.
struct Line {
    board: Board,
    racks: [Rack; 2],
    /// Drawn from the end.
    bag: Vec<Option<Letter>>,
    /// Side 0's points less side 1's, from the candidate on.
    spread: i32,
    /// Consecutive scoreless turns: at the ruleset's limit the line's game ends, as a
    /// [`Game`]'s does.
    zeros: u32,
    over: bool,
}

impl Line {
    fn act(&mut self, side: usize, action: &Action, score: i32, dawg: &Dawg, rules: &Ruleset) {
        let sign = if side == 0 { 1 } else { -1 };
        match action {
            Action::Play(play) => {
                let placements: Vec<_> = play.placements().map(|p| (p.row, p.col, p.tile)).collect();
                for &(_, _, t) in &placements {
                    self.racks[side].take_tile(t);
                }
                self.board.place(&placements, dawg);
                self.spread += sign * score;
                self.zeros = 0;
                self.draw(side, rules);
                if self.racks[side].is_empty() {
                    // Out with the bag empty: the other rack's value moves to this side.
                    self.spread += sign * 2 * rules.rack_total(&self.racks[1 - side]);
                    self.over = true;
                }
            }
            Action::Exchange(throw) => {
                self.racks[side].remove_all(throw);
                self.draw(side, rules);
                // Thrown tiles go to the bottom of the bag: this line draws them last.
                for t in throw.tiles() {
                    self.bag.insert(0, t);
                }
                self.scoreless(rules);
            }
            Action::Pass | Action::Resign => self.scoreless(rules),
        }
    }

    /// A scoreless turn; the last one the rules allow ends the game, each side losing the
    /// value of its own rack.
    fn scoreless(&mut self, rules: &Ruleset) {
        self.zeros += 1;
        if self.zeros >= rules.options.scoreless_turn_limit.turns(2) {
            self.spread += rules.rack_total(&self.racks[1]) - rules.rack_total(&self.racks[0]);
            self.over = true;
        }
    }

    fn draw(&mut self, side: usize, rules: &Ruleset) {
        while self.racks[side].len() < rules.rack_size {
            let Some(t) = self.bag.pop() else { break };
            add(&mut self.racks[side], t);
        }
    }

    /// The static player's turn: the play with the best score plus leave, else a pass.
    fn static_turn(&mut self, side: usize, dawg: &Dawg, rules: &Ruleset) {
        let bag = self.bag.len();
        let leave = LeaveModel::shipped(rules).at(rules, bag);
        let best = best_by_equity(&self.board, &self.racks[side], dawg, Mode::Both, leave);
        match best {
            Some((_, p)) => self.act(side, &Action::Play(p.play), p.score, dawg, rules),
            None => self.act(side, &Action::Pass, 0, dawg, rules),
        }
    }

    /// The spread the line added, and what the racks are worth at its end.
    fn value(&self, rules: &Ruleset) -> f64 {
        if self.over {
            return self.spread as f64;
        }
        let bag = self.bag.len();
        self.spread as f64
            + (leave_value(rules, &self.racks[0], bag) - leave_value(rules, &self.racks[1], bag)) as f64
    }
}

/// The chance that the side to move, ahead by `spread` with `tiles_left` tiles still to be
/// played, wins: the ruleset's table learned from self-play ([`crate::winprob`]).
pub fn win_probability(kind: crate::rules::RulesetKind, spread: f64, tiles_left: usize) -> f64 {
    crate::winprob::WinTable::shipped(kind).probability(spread, tiles_left)
}

/// Running figures of one candidate.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Figures {
    pub iterations: u32,
    win_sum: f64,
    win_sq: f64,
    spread_sum: f64,
    spread_sq: f64,
    /// Ruled out: its upper bound fell below the leader's lower bound.
    pub out: bool,
}

impl Figures {
    fn add(&mut self, (win, spread): (f64, f64)) {
        self.iterations += 1;
        self.win_sum += win;
        self.win_sq += win * win;
        self.spread_sum += spread;
        self.spread_sq += spread * spread;
    }

    /// Mean win probability, 0 to 1.
    pub fn win(&self) -> f64 {
        self.win_sum / self.iterations.max(1) as f64
    }

    /// Mean spread the line adds, leaves included.
    pub fn spread(&self) -> f64 {
        self.spread_sum / self.iterations.max(1) as f64
    }

    /// Standard error of the mean win probability.
    pub fn win_error(&self) -> f64 {
        standard_error(self.win_sum, self.win_sq, self.iterations)
    }

    /// Standard error of the mean spread.
    pub fn spread_error(&self) -> f64 {
        standard_error(self.spread_sum, self.spread_sq, self.iterations)
    }

    /// The ranking key: win probability, then spread (a point of spread is worth less than any
    /// difference in win probability that matters).
    fn key(&self) -> f64 {
        self.win() + self.spread() * 1e-6
    }
}

fn standard_error(sum: f64, sq: f64, n: u32) -> f64 {
    if n < 2 {
        return f64::INFINITY;
    }
    let n = n as f64;
    let var = ((sq - sum * sum / n) / (n - 1.0)).max(0.0);
    (var / n).sqrt()
}

/// Every candidate's figures so far, and the figures of every pair's difference.
#[derive(Clone, Debug)]
pub struct Tally {
    pub figures: Vec<Figures>,
    /// `pairs[a * n + b]` for `a < b`: candidate `a`'s value less `b`'s, over the iterations
    /// both were in. Every candidate meets the same draws, so the difference is far less noisy
    /// than either value: comparing candidates by it needs fewer iterations than comparing
    /// their means, each with its own error.
    pairs: Vec<Figures>,
    /// Iterations folded in.
    pub iterations: u32,
}

/// How far candidate `a` is ahead of `b` on the draws both met: the mean difference of win
/// probability and of spread, each with its standard error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Difference {
    pub win: f64,
    pub win_error: f64,
    pub spread: f64,
    pub spread_error: f64,
}

impl Difference {
    /// Whether `a` is ahead by more than `z` standard errors: by win probability, or by spread
    /// when the win probabilities are the same on every draw (every line won, or lost, by
    /// both).
    fn clearly_ahead(&self, z: f64) -> bool {
        if self.win != 0.0 || self.win_error != 0.0 {
            self.win > z * self.win_error
        } else {
            self.spread > z * self.spread_error
        }
    }
}

impl Tally {
    pub fn new(candidates: usize) -> Tally {
        Tally {
            figures: vec![Figures::default(); candidates],
            pairs: vec![Figures::default(); candidates * candidates],
            iterations: 0,
        }
    }

    /// Fold in one iteration's values (in iteration order, for determinism); candidates
    /// already ruled out are not counted further.
    pub fn add(&mut self, values: &[(f64, f64)]) {
        let n = self.figures.len();
        for a in 0..n.min(values.len()) {
            if self.figures[a].out {
                continue;
            }
            for b in a + 1..n.min(values.len()) {
                if !self.figures[b].out {
                    let (va, vb) = (values[a], values[b]);
                    self.pairs[a * n + b].add((va.0 - vb.0, va.1 - vb.1));
                }
            }
        }
        for (f, v) in self.figures.iter_mut().zip(values) {
            if !f.out {
                f.add(*v);
            }
        }
        self.iterations += 1;
    }

    /// Candidate `a` against candidate `b` on the draws both met.
    pub fn difference(&self, a: usize, b: usize) -> Difference {
        let n = self.figures.len();
        let (p, sign) = if a < b { (&self.pairs[a * n + b], 1.0) } else { (&self.pairs[b * n + a], -1.0) };
        Difference {
            win: sign * p.win(),
            win_error: p.win_error(),
            spread: sign * p.spread(),
            spread_error: p.spread_error(),
        }
    }

    /// The best candidate so far (the first of equals).
    pub fn leader(&self) -> usize {
        let mut best = 0;
        for (i, f) in self.figures.iter().enumerate() {
            if f.key() > self.figures[best].key() {
                best = i;
            }
        }
        best
    }

    /// Rule out every candidate the leader is ahead of with 99% confidence, on the draws both
    /// met; true when only the leader is left.
    pub fn prune(&mut self) -> bool {
        if self.iterations < MIN_ITERATIONS {
            return false;
        }
        let leader = self.leader();
        for i in 0..self.figures.len() {
            if i != leader && !self.figures[i].out && self.difference(leader, i).clearly_ahead(Z99) {
                self.figures[i].out = true;
            }
        }
        self.figures.iter().filter(|f| !f.out).count() <= 1
    }
}

/// When to stop.
#[derive(Clone, Debug)]
pub struct Budget {
    pub deadline: Option<Instant>,
    /// Iterations at most.
    pub max_iterations: u32,
    pub stop: Option<Arc<AtomicBool>>,
    /// Threads to run iterations on (1: this one).
    pub workers: usize,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget { deadline: None, max_iterations: 2_000, stop: None, workers: 1 }
    }
}

impl Budget {
    fn spent(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// Simulate until one candidate is ahead with 99% confidence, the iteration cap, or the budget;
/// `progress` sees the tally after every batch and may stop the search by returning false.
pub fn simulate(
    setup: &Setup,
    dawg: &Dawg,
    budget: &Budget,
    mut progress: impl FnMut(&Tally) -> bool,
) -> Tally {
    let mut tally = Tally::new(setup.candidates.len());
    if setup.candidates.len() == 1 {
        return tally;
    }
    let workers = budget.workers.max(1);
    let batch = (8 * workers) as u32;
    while tally.iterations < budget.max_iterations && !budget.spent() {
        let start = tally.iterations;
        let count = batch.min(budget.max_iterations - start);
        let live: Vec<bool> = tally.figures.iter().map(|f| !f.out).collect();
        let live = &live;
        let results: Vec<Vec<(f64, f64)>> = if workers == 1 {
            // One thread: the budget is looked at before every iteration, not only between
            // batches, so a thread that gets little CPU still stops on time.
            (start..start + count)
                .map_while(|i| {
                    (i == start || !budget.spent()).then(|| setup.iteration_of(i as u64, dawg, live))
                })
                .collect()
        } else {
            let mut slots: Vec<Option<Vec<(f64, f64)>>> = vec![None; count as usize];
            std::thread::scope(|scope| {
                let chunks: Vec<_> = slots.chunks_mut(count.div_ceil(workers as u32) as usize).collect();
                let mut offset = start;
                for chunk in chunks {
                    let first = offset;
                    offset += chunk.len() as u32;
                    scope.spawn(move || {
                        for (k, slot) in chunk.iter_mut().enumerate() {
                            if k > 0 && budget.spent() {
                                break;
                            }
                            *slot = Some(setup.iteration_of((first + k as u32) as u64, dawg, live));
                        }
                    });
                }
            });
            // Cut by the budget, a worker leaves its later slots empty: keep the iterations
            // up to the first gap, so the tally is still a prefix of the iteration order.
            slots.into_iter().map_while(|s| s).collect()
        };
        for values in &results {
            tally.add(values);
        }
        let decided = tally.prune();
        if !progress(&tally) || decided {
            break;
        }
    }
    tally
}

/// How far, in standard errors of the difference, the tally's leader must be ahead of the static
/// best before the simulation plays it instead.
const SWITCH_Z: f64 = 1.0;

/// The candidate a simulation chooses: the tally's leader when it is ahead of the static best
/// (the first candidate) by more than [`SWITCH_Z`] standard errors of their difference on the
/// same draws, or the static best has been ruled out; otherwise the static best. A short budget
/// gives a noisy tally, whose leader is often a candidate that was lucky in a few draws: the
/// static best is then the better bet.
pub fn choice<'a>(setup: &'a Setup, tally: &Tally) -> &'a Candidate {
    if tally.iterations == 0 {
        return &setup.candidates[0];
    }
    let leader = tally.leader();
    if leader == 0 || tally.figures[0].out {
        return &setup.candidates[leader];
    }
    let ahead = tally.difference(leader, 0).clearly_ahead(SWITCH_Z);
    &setup.candidates[if ahead { leader } else { 0 }]
}

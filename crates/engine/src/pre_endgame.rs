//! The pre-endgame: a two-player position with a few tiles in the bag, searched through every
//! way the bag may be drawn.
//!
//! The side to move knows its rack; the tiles it cannot see are the opponent's rack and the
//! bag. A **scenario** is one order of the bag (which tiles are in it, and which is drawn
//! first); given a scenario, the rest is a game of perfect information (the opponent's rack is
//! the unseen tiles less the bag), which [`crate::endgame`] plays out exactly, drawing from
//! the bag as the game would. For each candidate (the best `k` plays by static equity, and the
//! pass) and each scenario, the candidate is played and the position after it searched from the
//! opponent's side: whether the mover ends ahead, level or behind is proven by null-window
//! searches at its lead (far cheaper than the exact final spread, which the searches only
//! bound), and so a win, a draw or a loss. A candidate's
//! record is its wins, draws and losses weighted by each scenario's chance, and its mean final
//! spread. The best candidate has the most wins (a draw counting half), then the best mean
//! spread. (The opponent is assumed to know the bag's order too: the standard simplification,
//! which favours the opponent.)
//!
//! With one tile in the bag there is one scenario per distinct unseen tile, weighed by its
//! count. With more, every order is a scenario when there are at most `max_scenarios`
//! (weighed by the chance of drawing it); otherwise that many orders are drawn at random
//! (seeded), each weighing the same. Scenarios are searched most likely first, every
//! candidate in each, so that a budget cut short still compares every candidate on the same
//! draws. Each search gets an equal share of the time left; a search the budget cuts is
//! counted by the game played out from there by the static player on both sides (the bag's
//! order known), and marks the candidate inexact.
//!
//! Exchanges are not candidates (a bag of fewer tiles than the exchange limit allows none).

use crate::alphabet::Letter;
use crate::bag::SplitMix64;
use crate::board::Board;
use crate::budget::Budget;
use crate::endgame::{EndgameLimits, PlayableWords, Position, Solver};
use crate::game::{Action, Game};
use crate::lexicon::Dawg;
use crate::rack::Rack;
use crate::sim::{Candidate, candidates};
use std::time::Instant;

/// The most tiles in the bag the pre-endgame is for: with more, simulation is the better use of
/// the time.
pub const MAX_BAG: usize = 7;

/// A position before the end: what the side to move knows.
#[derive(Clone, Debug)]
pub struct Setup {
    board: Board,
    rack: Rack,
    /// The opponent's rack and the bag.
    unseen: Rack,
    bag_len: usize,
    /// The mover's score less the opponent's.
    spread: i32,
    zeros: u32,
    pub candidates: Vec<Candidate>,
}

/// Why a position has no pre-endgame.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PegError {
    #[error("{0} tiles in the bag: the pre-endgame is for 1 to {MAX_BAG}")]
    Bag(usize),
    #[error("the rack is empty")]
    EmptyRack,
    #[error("{unseen} tiles unseen cannot be a rack of {rack} and a bag of {bag}")]
    Unseen { unseen: usize, rack: usize, bag: usize },
}

impl Setup {
    /// The side to move's view: its rack, the tiles it cannot see (the opponent's rack and the
    /// bag of `bag_len`), the spread and the scoreless turns before it; `k` candidates from the
    /// static ranking, and the pass.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        board: &Board,
        rack: Rack,
        unseen: Rack,
        bag_len: usize,
        spread: i32,
        zeros: u32,
        dawg: &Dawg,
        k: usize,
    ) -> Result<Setup, PegError> {
        if !(1..=MAX_BAG).contains(&bag_len) {
            return Err(PegError::Bag(bag_len));
        }
        if rack.is_empty() {
            return Err(PegError::EmptyRack);
        }
        let rack_size = board.rules().rack_size;
        if unseen.len() <= bag_len || unseen.len() > bag_len + rack_size {
            return Err(PegError::Unseen { unseen: unseen.len(), rack: rack_size, bag: bag_len });
        }
        let mut candidates: Vec<Candidate> = candidates(board, &rack, dawg, board.rules(), bag_len, k)
            .into_iter()
            .filter(|c| matches!(c.action, Action::Play(_)))
            .collect();
        candidates.push(Candidate { action: Action::Pass, score: 0, equity: 0.0 });
        Ok(Setup { board: board.clone(), rack, unseen, bag_len, spread, zeros, candidates })
    }

    /// The view of the seat to move in a two-seat game with 1 to [`MAX_BAG`] tiles in the bag.
    pub fn from_game(game: &Game, k: usize) -> Option<Setup> {
        if game.config().seats != 2 || game.is_over() || game.awaiting_final_challenge() {
            return None;
        }
        let me = game.to_move();
        let rack = *game.rack(me)?;
        let unseen = Position::unseen(game.board(), &rack)?;
        let scores = game.scores();
        let dawg = game.config().lexicon.dawg();
        Setup::new(
            game.board(),
            rack,
            unseen,
            game.bag_len(),
            scores[me] - scores[1 - me],
            game.scoreless_turns(),
            dawg,
            k,
        )
        .ok()
    }

    pub fn bag_len(&self) -> usize {
        self.bag_len
    }

    /// The setup with `action` (a play or the pass) among the candidates, and its index: how a
    /// review judges the play that was made.
    pub fn with_action(mut self, action: &Action) -> (Setup, usize) {
        if let Some(i) = self.candidates.iter().position(|c| c.action.same_move(action)) {
            return (self, i);
        }
        let score = match action {
            Action::Play(p) => crate::score::evaluate_normalized(&self.board, p).total,
            _ => 0,
        };
        let at = self.candidates.len().saturating_sub(1);
        self.candidates.insert(at, Candidate { action: action.clone(), score, equity: score as f32 });
        (self, at)
    }
}

/// One order of the bag (drawn from its end) and its weight.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub bag: Vec<Option<Letter>>,
    pub weight: f64,
}

/// Every order of `bag_len` tiles from `unseen` with its chance, when there are at most `max`;
/// otherwise `max` orders drawn at random (each weighing the same). Most likely first. The
/// flag says whether every order is there.
pub fn scenarios(unseen: &Rack, bag_len: usize, max: usize, seed: u64) -> (Vec<Scenario>, bool) {
    let kinds: Vec<(Option<Letter>, u8)> = unseen.kinds().collect();
    let total = unseen.len() as f64;
    let mut all = Vec::new();
    // Depth-first over ordered draws, counting every order up to `max + 1`.
    fn go(
        kinds: &mut [(Option<Letter>, u8)],
        left: usize,
        total: f64,
        chance: f64,
        bag: &mut Vec<Option<Letter>>,
        out: &mut Vec<Scenario>,
        max: usize,
    ) {
        if out.len() > max {
            return;
        }
        if left == 0 {
            // Drawn from the end: the first drawn is last.
            let mut order = bag.clone();
            order.reverse();
            out.push(Scenario { bag: order, weight: chance });
            return;
        }
        let remaining = total - bag.len() as f64;
        for i in 0..kinds.len() {
            let (t, n) = kinds[i];
            if n == 0 {
                continue;
            }
            kinds[i].1 -= 1;
            bag.push(t);
            go(kinds, left - 1, total, chance * f64::from(n) / remaining, bag, out, max);
            bag.pop();
            kinds[i].1 += 1;
        }
    }
    let mut k = kinds.clone();
    go(&mut k, bag_len, total, 1.0, &mut Vec::new(), &mut all, max);
    if all.len() <= max {
        all.sort_by(|a, b| b.weight.total_cmp(&a.weight));
        return (all, true);
    }
    let tiles: Vec<Option<Letter>> = unseen.tiles().collect();
    let mut rng = SplitMix64::new(seed ^ 0x7E6A_1B33_0C59_D24F);
    let drawn = (0..max)
        .map(|_| {
            let mut t = tiles.clone();
            for j in 0..bag_len {
                let pick = j + rng.below((t.len() - j) as u64) as usize;
                t.swap(j, pick);
            }
            let mut order: Vec<Option<Letter>> = t[..bag_len].to_vec();
            order.reverse();
            Scenario { bag: order, weight: 1.0 / max as f64 }
        })
        .collect();
    (drawn, false)
}

/// A candidate's record over the scenarios searched. Wins, draws and losses are proven where
/// `exact` says so; the spreads are the searches' bounds (the right sign, not the exact
/// margin).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Record {
    /// Weights of the scenarios it won, drew and lost.
    pub wins: f64,
    pub draws: f64,
    pub losses: f64,
    /// The weighted sum of its final spreads.
    spread_sum: f64,
    /// Scenarios searched, and how many of them exactly.
    pub scenarios: u32,
    pub exact: u32,
}

impl Record {
    /// The weight of the scenarios searched.
    pub fn weight(&self) -> f64 {
        self.wins + self.draws + self.losses
    }

    /// Wins, a draw counting half, as a share of the scenarios searched.
    pub fn win_share(&self) -> f64 {
        let w = self.weight();
        if w > 0.0 { (self.wins + self.draws / 2.0) / w } else { 0.0 }
    }

    /// The mean final spread (the mover's), by the scenarios' weights.
    pub fn mean_spread(&self) -> f64 {
        let w = self.weight();
        if w > 0.0 { self.spread_sum / w } else { 0.0 }
    }

    fn add(&mut self, weight: f64, spread: i32, exact: bool) {
        match spread.cmp(&0) {
            std::cmp::Ordering::Greater => self.wins += weight,
            std::cmp::Ordering::Equal => self.draws += weight,
            std::cmp::Ordering::Less => self.losses += weight,
        }
        self.spread_sum += weight * f64::from(spread);
        self.scenarios += 1;
        self.exact += u32::from(exact);
    }
}

/// The search so far: every candidate's record, over the same scenarios.
#[derive(Clone, Debug)]
pub struct Report {
    pub records: Vec<Record>,
    /// Scenarios searched for every candidate, and how many there are.
    pub scenarios_done: usize,
    pub scenarios: usize,
    /// The scenarios are every order of the bag (else a random sample of them).
    pub every_order: bool,
}

impl Report {
    /// The best candidate: the most wins (a draw counting half), then the best mean spread,
    /// then the static ranking.
    pub fn best(&self) -> usize {
        let mut best = 0;
        for (i, r) in self.records.iter().enumerate().skip(1) {
            let b = &self.records[best];
            let (wr, wb) = (r.win_share(), b.win_share());
            if wr > wb + 1e-12 || ((wr - wb).abs() <= 1e-12 && r.mean_spread() > b.mean_spread() + 1e-9) {
                best = i;
            }
        }
        best
    }

    /// Every scenario was searched exactly for every candidate.
    pub fn exact(&self) -> bool {
        self.every_order
            && self.scenarios_done == self.scenarios
            && self.records.iter().all(|r| r.exact == r.scenarios)
    }
}

/// How long and how wide the pre-endgame may search.
#[derive(Clone, Debug)]
pub struct PreEndgameLimits {
    pub budget: Budget,
    /// Scenarios at most (every order when there are no more than this).
    pub max_scenarios: usize,
    /// The seed of the scenarios drawn when there are too many to search every one.
    pub seed: u64,
    /// log2 of the endgame table's entries.
    pub table_bits: u32,
}

impl Default for PreEndgameLimits {
    fn default() -> PreEndgameLimits {
        PreEndgameLimits { budget: Budget::default(), max_scenarios: 200, seed: 0, table_bits: 18 }
    }
}

/// Search the pre-endgame; `progress` sees the report after every scenario and may stop the
/// search by returning false.
pub fn solve(
    setup: &Setup,
    dawg: &Dawg,
    limits: &PreEndgameLimits,
    mut progress: impl FnMut(&Report) -> bool,
) -> Report {
    let (scenarios, every_order) =
        scenarios(&setup.unseen, setup.bag_len, limits.max_scenarios.max(1), limits.seed);
    let mut report = Report {
        records: vec![Record::default(); setup.candidates.len()],
        scenarios_done: 0,
        scenarios: scenarios.len(),
        every_order,
    };
    let rules = setup.board.rules().clone();
    let limit = rules.options.scoreless_turn_limit.turns(2);
    let mut solver = Solver::new(limits.table_bits);
    // Every scenario's tiles are the mover's rack and the unseen ones, on this board or a
    // fuller one: one small lexicon serves every search and playout.
    let mut tiles = setup.rack;
    tiles.add_all(&setup.unseen);
    let words = PlayableWords::new(&setup.board, &tiles, dawg);
    let dawg = words.dawg();
    let spent = || limits.budget.spent();
    let searches = scenarios.len() * setup.candidates.len();
    let mut done_searches = 0usize;
    for scenario in &scenarios {
        if report.scenarios_done > 0 && spent() {
            break;
        }
        let mut opponent = setup.unseen;
        for &t in &scenario.bag {
            match t {
                Some(l) => opponent.take(l),
                None => opponent.take_blank(),
            };
        }
        let mut results = Vec::with_capacity(setup.candidates.len());
        for c in &setup.candidates {
            // Past the first scenario, a scenario the budget cuts is left out whole (every
            // candidate is compared on the same draws), and left at once: waiting for the rest
            // of its searches overran the budget by each one's first iteration.
            if report.scenarios_done > 0 && spent() {
                break;
            }
            // An equal share of the time left for each search still to make.
            let deadline = limits.budget.deadline.map(|d| {
                let left = d.saturating_duration_since(Instant::now());
                Instant::now() + left / (searches - done_searches).max(1) as u32
            });
            done_searches += 1;
            let (spread, exact) = match &c.action {
                Action::Play(play) => {
                    let mut rack = setup.rack;
                    for p in play.placements() {
                        rack.take_tile(p.tile);
                    }
                    let mut bag = scenario.bag.clone();
                    for _ in 0..play.tiles_placed().min(bag.len()) {
                        match bag.pop().flatten() {
                            Some(l) => rack.add(l),
                            None => rack.add_blank(),
                        }
                    }
                    if rack.is_empty() {
                        // Out with the bag empty: twice the opponent's rack.
                        (setup.spread + c.score + 2 * rules.rack_total(&opponent), true)
                    } else {
                        let mut board = setup.board.clone();
                        let placements: Vec<_> = play.placements().map(|p| (p.row, p.col, p.tile)).collect();
                        board.place(&placements, dawg);
                        let position = Position { board, racks: [opponent, rack], zeros: 0, bag };
                        outcome(
                            &mut solver,
                            &position,
                            &words,
                            search_budget(deadline, limits),
                            setup.spread + c.score,
                        )
                    }
                }
                _ => {
                    if setup.zeros + 1 >= limit {
                        // The pass ends the game: each side loses its own rack.
                        (setup.spread + rules.rack_total(&opponent) - rules.rack_total(&setup.rack), true)
                    } else {
                        let position = Position {
                            board: setup.board.clone(),
                            racks: [opponent, setup.rack],
                            zeros: setup.zeros + 1,
                            bag: scenario.bag.clone(),
                        };
                        outcome(&mut solver, &position, &words, search_budget(deadline, limits), setup.spread)
                    }
                }
            };
            results.push((spread, exact));
        }
        if results.len() < setup.candidates.len() {
            break;
        }
        for (record, (spread, exact)) in report.records.iter_mut().zip(results) {
            record.add(scenario.weight, spread, exact);
        }
        report.scenarios_done += 1;
        if !progress(&report) {
            break;
        }
    }
    report
}

/// The mover's final spread after its move, the opponent to move in `position` and the mover
/// `lead` ahead counting the move: `lead` less the opponent's value from there. Whether it is a
/// win, a draw or a loss is what counts, and proving that (one or two null-window searches at
/// the lead) is far cheaper than the exact value; the spread is the searches' bound, exact in
/// sign. The flag says whether the sign is proven.
fn outcome(
    solver: &mut Solver,
    position: &Position,
    words: &PlayableWords,
    budget: EndgameLimits,
    lead: i32,
) -> (i32, bool) {
    // Unproven, a search's bound is a horizon's guess: the game played out by the static player
    // on both sides (the bag's order known) is a better one, and costs a few searches of a play.
    let fallback = || lead - playout(position, words.dawg());
    // The opponent's value at least `lead`: the mover does not win.
    match solver.test(position, words, budget.clone(), lead) {
        (Some(false), v) => ((lead - v).max(1), true),
        (Some(true), _) => match solver.test(position, words, budget, lead + 1) {
            (Some(true), v) => ((lead - v).min(-1), true),
            (Some(false), _) => (0, true),
            (None, _) => (fallback().min(0), false),
        },
        (None, _) => (fallback(), false),
    }
}

/// The value for the side to move of `position` played to its end by the static player on both
/// sides: each turn the best play by score plus leave (with the bag empty, less twice the tiles
/// kept), drawing from the known bag, or a pass.
pub fn playout(position: &Position, dawg: &Dawg) -> i32 {
    use crate::equity::LeaveModel;
    use crate::movegen::{Mode, best_by_equity};
    let rules = position.board.rules().clone();
    let limit = rules.options.scoreless_turn_limit.turns(2);
    let model = LeaveModel::shipped(&rules);
    let mut board = position.board.clone();
    let mut racks = position.racks;
    let mut bag = position.bag.clone();
    let mut zeros = position.zeros;
    let mut spread = 0i32; // side 0's points less side 1's
    let mut side = 0usize;
    for _ in 0..64 {
        let sign = if side == 0 { 1 } else { -1 };
        match best_by_equity(&board, &racks[side], dawg, Mode::Both, model.at(&rules, bag.len())) {
            Some((_, sp)) => {
                let placements: Vec<_> = sp.play.placements().map(|p| (p.row, p.col, p.tile)).collect();
                for &(_, _, t) in &placements {
                    racks[side].take_tile(t);
                }
                board.place(&placements, dawg);
                spread += sign * sp.score;
                zeros = 0;
                for _ in 0..sp.play.tiles_placed() {
                    match bag.pop() {
                        Some(Some(l)) => racks[side].add(l),
                        Some(None) => racks[side].add_blank(),
                        None => break,
                    }
                }
                if racks[side].is_empty() {
                    return spread + sign * 2 * rules.rack_total(&racks[1 - side]);
                }
            }
            None => {
                zeros += 1;
                if zeros >= limit {
                    return spread + rules.rack_total(&racks[1]) - rules.rack_total(&racks[0]);
                }
            }
        }
        side = 1 - side;
    }
    spread + rules.rack_total(&racks[1]) - rules.rack_total(&racks[0])
}

/// One search's limits: its share of the time, the pre-endgame's stop flag.
fn search_budget(deadline: Option<Instant>, limits: &PreEndgameLimits) -> EndgameLimits {
    let budget = Budget { deadline, stop: limits.budget.stop.clone() };
    EndgameLimits { budget, ..EndgameLimits::default() }
}

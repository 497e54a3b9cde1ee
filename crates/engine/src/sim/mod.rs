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
//! **When to stop** (a best-arm race): a candidate is ruled out once the leader is ahead of it
//! on the draws both met by more than [`Race::z`] standard errors of their difference, a
//! threshold that keeps the whole decision at 99% however many candidates race (each of the
//! n − 1 comparisons at 1 − 1%/(n − 1), Bonferroni), and only after
//! [`Race::min_iterations`]. The
//! search stops early only when one candidate is left: while two are within error it goes
//! on until the budget (time, or an iteration cap the caller sets) is spent. So the budget goes
//! to close decisions, and a clear one ends at once. A race won with time to spare first takes
//! on candidates from the reserve ([`Params::reserve`]); with none left, one asked to go on
//! until spent ([`Race::until_spent`]; the lab's, not the champion's: it measured no stronger)
//! tightens its error tenfold and takes back the candidates it ruled out, again until it is
//! decided at [`MIN_ERROR`]: the time left goes to confirming the decision against the
//! candidates closest to the leader.
//!
//! **The opponent's rack**: by default a blind draw from the unseen tiles. A setup may be given
//! the leaves the opponent is likely to have kept ([`Setup::with_opponent_leaves`], from
//! [`crate::infer`]): each iteration then draws one of them by its probability, and only the
//! rest of the opponent's rack and the bag from the other unseen tiles.
//!
//! Iteration `i` depends only on the setup's seed and `i`; a [`Tally`] folds iterations in
//! index order, and [`simulate`] decides to stop only between batches of a fixed size. So the
//! same seed and worker count give the same choice, unless the time budget ends the search
//! first.

use crate::alphabet::Letter;
use crate::bag::SplitMix64;
use crate::board::Board;
use crate::budget::Budget;
use crate::endgame::Position;
use crate::equity::{LeaveModel, best_keep, leave_value};
use crate::game::{Action, Game};
use crate::lexicon::Dawg;
use crate::movegen::{Mode, best_by_equity, generate};
use crate::play::Play;
use crate::rack::Rack;
use crate::rules::Ruleset;

mod tally;
pub use tally::{Difference, Figures, MIN_ERROR, Race, Tally};

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
    /// The first this many candidates race from the start; the rest are the reserve.
    racing: usize,
    plies: usize,
    seed: u64,
    /// The leaves the opponent may have kept, each with its probability (cumulative, for a
    /// draw by one uniform number); empty: its rack is a blind draw.
    opponent_leaves: Vec<(Rack, f64)>,
}

/// How to simulate.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Candidates kept from the static ranking (the best exchange, when allowed, is added).
    pub candidates: usize,
    /// Turns played after each candidate (the opponent's, then the mover's, …).
    pub plies: usize,
    pub seed: u64,
    /// Further candidates from the static ranking, held back: when the race has left one
    /// candidate with time to spare, the next few of these enter it.
    pub reserve: usize,
}

impl Default for Params {
    fn default() -> Params {
        Params { candidates: 10, plies: 2, seed: 0, reserve: 0 }
    }
}

/// Candidates from the reserve that enter a race its leader has won with time to spare.
const WIDEN: usize = 3;

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
        // The top plays (and the best exchange, or the pass) race; the plays ranked after
        // them wait in reserve.
        let all = candidates(board, &rack, dawg, board.rules(), bag_len, params.candidates + params.reserve);
        if all.is_empty() {
            return None;
        }
        let (plays, others): (Vec<Candidate>, Vec<Candidate>) =
            all.into_iter().partition(|c| matches!(c.action, Action::Play(_)));
        let first = params.candidates.max(1).min(plays.len());
        let mut candidates: Vec<Candidate> = plays[..first].to_vec();
        candidates.extend(others);
        let racing = candidates.len();
        candidates.extend_from_slice(&plays[first..]);
        Some(Setup {
            board: board.clone(),
            rack,
            unseen,
            bag_len,
            spread,
            zeros,
            candidates,
            racing,
            plies: params.plies,
            seed: params.seed,
            opponent_leaves: Vec::new(),
        })
    }

    /// Draw the opponent's rack from the leaves it may have kept (each with its probability:
    /// [`crate::infer::Inference::leaves`]) plus tiles from the rest, instead of blindly.
    /// Leaves the unseen tiles cannot hold, or larger than the opponent's rack, are ignored;
    /// with none left the draw stays blind.
    pub fn with_opponent_leaves(mut self, leaves: &[(Rack, f64)]) -> Setup {
        let mut unseen = Rack::new();
        for &t in &self.unseen {
            add(&mut unseen, t);
        }
        let opp_len = self.unseen.len() - self.bag_len;
        let mut total = 0.0;
        self.opponent_leaves = leaves
            .iter()
            .filter(|(leave, p)| *p > 0.0 && leave.len() <= opp_len && unseen.contains(leave))
            .map(|&(leave, p)| {
                total += p;
                (leave, total)
            })
            .collect();
        if total > 0.0 {
            for (_, c) in &mut self.opponent_leaves {
                *c /= total;
            }
        }
        self
    }

    /// The setup with `action` among the candidates racing (added after them when it is not one
    /// of them), and its index: how a review races the play that was made.
    pub fn with_action(mut self, action: &Action) -> (Setup, usize) {
        if let Some(i) = self.candidates.iter().position(|c| c.action.same_move(action)) {
            if i < self.racing {
                return (self, i);
            }
            let c = self.candidates.remove(i);
            self.candidates.insert(self.racing, c);
        } else {
            let rules = self.board.rules().clone();
            let leaves = LeaveModel::shipped(&rules);
            let (score, equity) = match action {
                Action::Play(p) => {
                    let score = crate::score::evaluate_normalized(&self.board, p).total;
                    (score, leaves.play_equity(&rules, &self.rack, p, score, self.bag_len))
                }
                Action::Exchange(thrown) => {
                    let mut kept = self.rack;
                    kept.remove_all(thrown);
                    (0, leaves.value(&rules, &kept, self.bag_len))
                }
                _ => (0, leave_value(&rules, &self.rack, self.bag_len)),
            };
            self.candidates.insert(self.racing, Candidate { action: action.clone(), score, equity });
        }
        let i = self.racing;
        self.racing += 1;
        (self, i)
    }

    /// Whether the opponent's rack is drawn from inferred leaves.
    pub fn infers_opponent(&self) -> bool {
        !self.opponent_leaves.is_empty()
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
        let opp_len = drawn.len() - self.bag_len;
        // The opponent's kept leave, when it is inferred: drawn by its probability, its tiles
        // taken out of the unseen ones before the rest are shuffled.
        let mut opponent = Rack::new();
        if !self.opponent_leaves.is_empty() {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let k =
                self.opponent_leaves.partition_point(|&(_, c)| c <= u).min(self.opponent_leaves.len() - 1);
            opponent = self.opponent_leaves[k].0;
            for t in opponent.tiles() {
                if let Some(at) = drawn.iter().position(|&d| d == t) {
                    drawn.swap_remove(at);
                }
            }
        }
        for k in (1..drawn.len()).rev() {
            drawn.swap(k, rng.below(k as u64 + 1) as usize);
        }
        // The bag is drawn from its end: the opponent's rack is the rest.
        let fill = opp_len - opponent.len();
        for t in drawn.drain(..fill) {
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
pub(crate) fn candidates(
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

/// When to stop (besides a race that leaves one candidate): the budget, or a number of
/// iterations.
#[derive(Clone, Debug)]
pub struct SimLimits {
    pub budget: Budget,
    /// Iterations at most (no cap by default: the budget or the race ends the search).
    pub max_iterations: u32,
    /// Threads to run iterations on (1: this one).
    pub workers: usize,
    /// When a candidate is ruled out.
    pub race: Race,
}

impl Default for SimLimits {
    fn default() -> SimLimits {
        SimLimits { budget: Budget::default(), max_iterations: u32::MAX, workers: 1, race: Race::default() }
    }
}

impl SimLimits {
    fn spent(&self) -> bool {
        self.budget.spent()
    }
}

/// Simulate until the race leaves one candidate, or the budget (time, iterations, the stop
/// flag) is spent; `progress` sees the tally after every batch and may stop the search by
/// returning false. A setup with no deadline and no iteration cap must be stopped by
/// `progress`, the flag or the race.
pub fn simulate(
    setup: &Setup,
    dawg: &Dawg,
    limits: &SimLimits,
    mut progress: impl FnMut(&Tally) -> bool,
) -> Tally {
    let mut tally = Tally::racing(setup.candidates.len(), setup.racing);
    if setup.candidates.len() == 1 {
        return tally;
    }
    let workers = limits.workers.max(1);
    let batch = (8 * workers) as u32;
    let mut race = limits.race;
    while tally.iterations < limits.max_iterations && !limits.spent() {
        let start = tally.iterations;
        let count = batch.min(limits.max_iterations - start);
        let live: Vec<bool> = tally.figures.iter().map(|f| !f.out).collect();
        let live = &live;
        let results: Vec<Vec<(f64, f64)>> = if workers == 1 {
            // One thread: the budget is looked at before every iteration, not only between
            // batches, so a thread that gets little CPU still stops on time.
            (start..start + count)
                .map_while(|i| {
                    (i == start || !limits.spent()).then(|| setup.iteration_of(i as u64, dawg, live))
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
                            if k > 0 && limits.spent() {
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
        let mut decided = tally.prune(&race);
        // A race won with time to spare: the reserve's next candidates take on the winner; with
        // none left, a race that goes on until spent tightens its error and takes back the
        // candidates it ruled out (those still clearly behind at once out again).
        if decided && limits.budget.deadline.is_some() && !limits.spent() {
            if tally.enter(WIDEN) > 0 {
                decided = false;
            } else if race.until_spent {
                while decided && race.error > MIN_ERROR {
                    race.error = (race.error / 10.0).max(MIN_ERROR);
                    tally.readmit();
                    decided = tally.prune(&race);
                }
            }
        }
        if !progress(&tally) || decided {
            break;
        }
    }
    tally
}

/// How far, in standard errors of the difference, the tally's leader must be ahead of the static
/// best before the simulation plays it instead.
pub const SWITCH_Z: f64 = 1.0;

/// The candidate a simulation chooses: the tally's leader when it is ahead of the static best
/// (the first candidate) by more than [`SWITCH_Z`] standard errors of their difference on the
/// same draws, or the static best has been ruled out; otherwise the static best. A short budget
/// gives a noisy tally, whose leader is often a candidate that was lucky in a few draws: the
/// static best is then the better bet.
pub fn choice<'a>(setup: &'a Setup, tally: &Tally) -> &'a Candidate {
    choice_at(setup, tally, SWITCH_Z)
}

/// [`choice`], the leader played only when it is more than `switch_z` standard errors ahead of
/// the static best.
pub fn choice_at<'a>(setup: &'a Setup, tally: &Tally, switch_z: f64) -> &'a Candidate {
    if tally.iterations == 0 {
        return &setup.candidates[0];
    }
    let leader = tally.leader();
    if leader == 0 || tally.figures[0].out {
        return &setup.candidates[leader];
    }
    let ahead = tally.difference(leader, 0).clearly_ahead(switch_z);
    &setup.candidates[if ahead { leader } else { 0 }]
}

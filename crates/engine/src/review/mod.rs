//! Whole-game review: every turn of a game judged by the champion's machinery, as a player
//! reviews a game after it.
//!
//! A turn is judged from the position before it ([`Game::before_turn`]: the game rebuilt from
//! its journal up to that turn, so board, racks, bag and scores are exactly what they were),
//! with the mover's rack (a turn whose rack is unknown, a record line without one or showing
//! only the tiles played, is reported as not analysable). How the best play is found depends on the bag, as the champion plays:
//! - **tiles to draw beyond the next two**: a simulation of the static ranking's best
//!   candidates, the play made raced among them, for the time allowed; win probabilities from
//!   the race's tally;
//! - **one or two tiles in the bag**: the pre-endgame ([`crate::pre_endgame`]), the play made among the
//!   candidates; a candidate's win probability is its share of the draws won (a draw half);
//! - **the bag empty**: the exact endgame ([`crate::endgame`]), the play made searched too; win
//!   probability 1, ½ or 0 by the final spread.
//! - **three or four seats**: the static player's equity alone (no win probability); the class
//!   comes from the equity lost.
//!
//! A turn's **loss** is the win probability the play made gives away against the best found
//! (never negative: the best play made loses 0), and its **class** follows from it by the
//! thresholds below. A **puzzle** is a turn whose best play beats every other candidate by at
//! least [`PUZZLE_MARGIN`] of win probability. A seat's **accuracy** is
//! `100 · e^(-mean loss in percentage points / 10)`: best play every turn is 100, an average
//! loss of one point of win probability a turn 90.5, of five 60.7.
//!
//! A turn's **grade** is the mistake's size as post-game tools grade it (MAGPIE's thresholds,
//! `impl/analyze.c`): none, small, medium or large by the win probability lost
//! ([`GRADE_WIN_POINTS`], in percentage points), an endgame turn by the spread lost
//! ([`GRADE_SPREAD`], points), and any endgame turn that turns a won game into one not won
//! large whatever the points. Games of more than two seats have no win probability: their turns
//! are graded none, as MAGPIE grades its static turns. A seat's **mistake index** is the sum of
//! its turns' grades weighed 0, 0.2, 0.5 and 1 ([`Grade::weight`], MAGPIE's and Woogles' index).

use crate::budget::Budget;
use crate::endgame::{self, Move, Position};
use crate::equity::LeaveModel;
use crate::game::{Action, EventKind, Game};
use crate::movegen::{Mode, PlaySink, generate};
use crate::notation::cgp;
use crate::play::Play;
use crate::rack::Rack;
use crate::score::evaluate_normalized;
use crate::sim;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

mod grades;
mod summary;

pub use grades::{Class, EQUITY_CLASSES, GOOD, GRADE_SPREAD, GRADE_WIN_POINTS, Grade, INACCURACY, MISTAKE};
pub use summary::{SeatSummary, phonies_let_go, summarize};

/// How far the best play must be ahead of every other for a turn to be a puzzle.
pub const PUZZLE_MARGIN: f64 = 0.10;

/// How a turn's best play was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Simulation,
    PreEndgame,
    Endgame,
    /// Static equity (more than two seats).
    Static,
}

/// A move as the review judged it.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    pub action: Action,
    pub score: i32,
    /// Static equity (the endgame: the spread it leads to from here).
    pub equity: f64,
    /// Win probability, 0 to 1 (NaN with more than two seats).
    pub win: f64,
}

/// One turn's review.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnReview {
    pub turn: u32,
    pub seat: usize,
    /// The position before the turn, as CGP (the mover's rack when known).
    pub cgp: String,
    pub rack: Option<Rack>,
    /// Whether the turn was judged (its rack known, and a play, exchange or pass).
    pub analysable: bool,
    pub method: Method,
    pub played: Judged,
    pub best: Judged,
    /// Win probability given away (0 for the best; more than two seats: equity).
    pub lost: f64,
    pub class: Class,
    /// The mistake's size (none for a turn not judged, or of a game of more than two seats).
    pub grade: Grade,
    /// The search that judged it was complete (the endgame exact; the pre-endgame proven).
    pub exact: bool,
    /// The play formed a word not in the lexicon.
    pub phony: bool,
    /// The opponent challenged it (a phony) or let it stand.
    pub challenged: bool,
    /// A phony nobody challenged.
    pub phony_unchallenged: bool,
    /// A valid play challenged off (an imported record whose lexicon said otherwise).
    pub valid_challenged_off: bool,
    /// The rack could have played all its tiles, and did not.
    pub bingo_missed: bool,
    pub bingo: bool,
    /// An exchange or a pass where a play was better, or a play where an exchange was.
    pub pass_or_exchange_beaten: bool,
    pub play_beaten_by_exchange: bool,
    /// The best play beats every other by [`PUZZLE_MARGIN`].
    pub puzzle: bool,
}

/// How a review judges a turn.
#[derive(Clone, Debug)]
pub struct Options {
    /// Thinking time per turn.
    pub per_turn: Duration,
    pub seed: u64,
    /// Candidates from the static ranking (the play made is added).
    pub candidates: usize,
    /// Set from elsewhere to cut a turn's search short (its client went away).
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for Options {
    fn default() -> Options {
        Options { per_turn: Duration::from_secs(1), seed: 0, candidates: 10, stop: None }
    }
}

impl Options {
    /// A search of this review's until `deadline`, stopped with the review.
    fn until(&self, deadline: Instant) -> Budget {
        Budget::until(deadline).or_stop(self.stop.clone())
    }
}

/// The turns of `game` (0 to `game.turn() - 1`) that were plays, exchanges or passes, with the
/// seat that took each. A pass that only accepted the last play before it went out (the game
/// waiting on its final challenge) is no decision of the game's and is left out.
pub fn turns(game: &Game) -> Vec<(u32, usize)> {
    let live: Vec<&crate::game::Event> = game.history().iter().filter(|e| !e.undone).collect();
    let mut out = Vec::new();
    let mut turn = 0u32;
    for (i, e) in live.iter().enumerate() {
        if !e.kind.takes_turn() {
            continue;
        }
        let accepts_going_out = matches!(e.kind, EventKind::Pass)
            && live[i + 1..]
                .iter()
                .find(|f| f.kind.takes_turn() || matches!(f.kind, EventKind::EndRackPoints { .. }))
                .is_some_and(|f| matches!(f.kind, EventKind::EndRackPoints { .. }));
        if !matches!(e.kind, EventKind::TurnLost) && !accepts_going_out {
            out.push((turn, e.seat));
        }
        turn += 1;
    }
    out
}

/// Which turns of a game imported from `record` show their mover's rack, in the order of
/// [`turns`]: a move line (play, exchange or pass) without a rack is not analysable. Turns
/// played after the record's (a game continued on the server) are known: [`rack_known`].
pub fn racks_shown(record: &crate::notation::gcg::Record) -> Vec<bool> {
    use crate::notation::gcg::MoveKind;
    record
        .moves
        .iter()
        .filter(|m| matches!(m.kind, MoveKind::Play { .. } | MoveKind::Pass | MoveKind::Exchange { .. }))
        .map(|m| m.rack.is_some())
        .collect()
}

/// Whether the `k`th of [`turns`] has a known rack, given what the record shows (`None`: a
/// game played on the server, every rack known).
pub fn rack_known(shown: Option<&[bool]>, k: usize) -> bool {
    shown.is_none_or(|s| s.get(k).copied().unwrap_or(true))
}

/// A whole-game review's turns and what judging each needs: the one plan every reviewer runs,
/// and the one loop ([`Plan::judge_next`]): `dawgref analyze`'s threads ([`Plan::judge_all`])
/// and the server's (AnalyzeGame: each call a job on the pool's background lane, a worker's
/// worth at a time) take the turns from it, each turn once.
pub struct Plan {
    game: Arc<Game>,
    /// (index among the game's turns, turn, seat) of each turn to judge.
    turns: Vec<(usize, u32, usize)>,
    /// Which turns a record showed the rack of (None: every rack known).
    shown: Option<Vec<bool>>,
    options: Options,
    /// The next turn nobody has taken.
    next: std::sync::atomic::AtomicUsize,
}

impl Plan {
    /// The turns of `game` taken by the seats `seat` accepts.
    pub fn new(
        game: Arc<Game>,
        shown: Option<Vec<bool>>,
        options: Options,
        seat: impl Fn(usize) -> bool,
    ) -> Plan {
        let turns = turns(&game)
            .into_iter()
            .enumerate()
            .filter(|(_, (_, s))| seat(*s))
            .map(|(k, (turn, s))| (k, turn, s))
            .collect();
        Plan { game, turns, shown, options, next: Default::default() }
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    /// (index among the game's turns, turn, seat) of each turn to judge, in turn order.
    pub fn turns(&self) -> &[(usize, u32, usize)] {
        &self.turns
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Judge the plan's `i`-th turn. None when it cannot be judged, or judging it panicked (a
    /// reviewer then ends with an error rather than hang).
    pub fn judge(&self, i: usize) -> Option<TurnReview> {
        let &(k, turn, _) = self.turns.get(i)?;
        let known = rack_known(self.shown.as_deref(), k);
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            review_turn(&self.game, turn, known, &self.options)
        }))
        .ok()
        .flatten()
    }

    /// Take the next turn nobody has taken and judge it: its index among the plan's turns and
    /// its review (None: it could not be judged). None when every turn is taken, or the review
    /// was stopped ([`Options::stop`]).
    pub fn judge_next(&self) -> Option<(usize, Option<TurnReview>)> {
        if self.options.stop.as_ref().is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed)) {
            return None;
        }
        let i = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        (i < self.turns.len()).then(|| (i, self.judge(i)))
    }

    /// Judge every turn on `threads` threads of its own (1 to 64), `done` told after each; the
    /// reviews in turn order (a turn that could not be judged left out).
    pub fn judge_all(&self, threads: usize, done: impl Fn() + Sync) -> Vec<TurnReview> {
        let judged = std::sync::Mutex::new(vec![None; self.turns.len()]);
        std::thread::scope(|scope| {
            for _ in 0..threads.clamp(1, 64) {
                scope.spawn(|| {
                    while let Some((i, r)) = self.judge_next() {
                        judged.lock().unwrap_or_else(|e| e.into_inner())[i] = r;
                        done();
                    }
                });
            }
        });
        judged.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().flatten().collect()
    }
}

/// Judge turn `turn` of `game`; `rack_known` says whether the mover's rack then is known (a
/// record may not show it). `None` when the game has no such turn.
pub fn review_turn(game: &Game, turn: u32, rack_known: bool, options: &Options) -> Option<TurnReview> {
    let before = game.before_turn(turn)?;
    let seat = before.to_move();
    let (action, after_events) = action_of(game, turn)?;
    let rack = before.rack(seat).copied();
    let scores = before.scores().to_vec();
    // The CGP lists the players from the one to move: its rack when known, the others' empty.
    let seats = scores.len();
    let shown: Vec<Rack> = (0..seats)
        .map(|i| if i == 0 && rack_known { rack.unwrap_or_default() } else { Rack::new() })
        .collect();
    let from_mover: Vec<i32> = (0..seats).map(|i| scores[(seat + i) % seats]).collect();
    let position = cgp::write(&cgp::from_board(
        before.board(),
        &shown,
        &from_mover,
        before.scoreless_turns(),
        cgp::Ops { lex: Some(before.config().lexicon.name().to_string()), ..Default::default() },
    ));
    let lexicon = before.config().lexicon.clone();
    let rules = before.config().rules.clone();
    let bag = before.bag_len();
    let played_score = match &action {
        Action::Play(p) => evaluate_normalized(before.board(), p).total,
        _ => 0,
    };
    let played_equity = match (&action, rack) {
        (Action::Play(p), Some(r)) => {
            f64::from(LeaveModel::shipped(&rules).play_equity(&rules, &r, p, played_score, bag))
        }
        (Action::Exchange(t), Some(r)) => {
            let mut kept = r;
            kept.remove_all(t);
            f64::from(LeaveModel::shipped(&rules).value(&rules, &kept, bag))
        }
        (_, Some(r)) => f64::from(LeaveModel::shipped(&rules).value(&rules, &r, bag)),
        _ => 0.0,
    };
    let mut review = TurnReview {
        turn,
        seat,
        cgp: position,
        rack: rack_known.then_some(rack).flatten(),
        // A record that shows only the tiles played (fewer than the mover held, the bag not
        // empty) leaves the rest unknown: not guessed.
        analysable: rack_known && rack.is_some_and(|r| r.len() == rules.rack_size || bag == 0),
        method: Method::Simulation,
        played: Judged { action: action.clone(), score: played_score, equity: played_equity, win: f64::NAN },
        best: Judged { action: action.clone(), score: played_score, equity: played_equity, win: f64::NAN },
        lost: 0.0,
        class: Class::Best,
        grade: Grade::None,
        exact: false,
        phony: false,
        challenged: false,
        phony_unchallenged: false,
        valid_challenged_off: false,
        bingo_missed: false,
        bingo: false,
        pass_or_exchange_beaten: false,
        play_beaten_by_exchange: false,
        puzzle: false,
    };
    // What the events say of the play: its words, and whether it was challenged.
    if let Action::Play(p) = &action {
        (review.phony, review.challenged) = phony_of(&lexicon, &after_events);
        let withdrawn = after_events.iter().any(|k| matches!(k, EventKind::PhonyWithdrawn { .. }));
        review.phony_unchallenged = review.phony && !review.challenged;
        review.valid_challenged_off = withdrawn && !review.phony;
        review.bingo = rack.is_some_and(|r| p.tiles_placed() == r.len() && r.len() == rules.rack_size);
    }
    if !review.analysable {
        return Some(review);
    }
    let rack = rack.expect("analysable");
    let dawg = lexicon.dawg();
    let deadline = Instant::now() + options.per_turn;
    if before.config().seats != 2 {
        review.method = Method::Static;
        judge_static(&mut review, &before, rack);
    } else if bag == 0 {
        review.method = Method::Endgame;
        judge_endgame(&mut review, &before, rack, options, deadline);
    } else if bag <= crate::bot::PRE_ENDGAME_BAG && !matches!(action, Action::Exchange(_)) {
        review.method = Method::PreEndgame;
        judge_pre_endgame(&mut review, &before, options, deadline);
    } else {
        judge_simulation(&mut review, &before, seat, options, deadline);
    }
    if before.config().seats == 2 {
        review.lost = (review.best.win - review.played.win).max(0.0);
        if review.best.action.same_move(&review.played.action) {
            // The same move however written: shown as played, nothing lost.
            review.best = review.played.clone();
            review.lost = 0.0;
        }
        review.class = Class::of(review.lost);
        review.grade = match review.method {
            Method::Endgame => Grade::of_endgame(&review.best, &review.played),
            _ => Grade::of_win_lost(100.0 * review.lost),
        };
    }
    // A bingo the rack could have played.
    if !review.bingo && rack.len() == rules.rack_size {
        let mut any = AnyBingo { tiles: rules.rack_size, found: false };
        generate(before.board(), &rack, dawg, Mode::Both, &mut any);
        review.bingo_missed = any.found;
    }
    let played_is_play = matches!(review.played.action, Action::Play(_));
    let best_is_play = matches!(review.best.action, Action::Play(_));
    review.pass_or_exchange_beaten = !played_is_play && best_is_play && review.class != Class::Best;
    review.play_beaten_by_exchange =
        played_is_play && matches!(review.best.action, Action::Exchange(_)) && review.class != Class::Best;
    Some(review)
}

/// Whether a play formed a word not in `lexicon`, and whether it was challenged, from the events
/// of its turn ([`action_of`]).
pub(super) fn phony_of(lexicon: &crate::lexicon::Lexicon, events: &[EventKind]) -> (bool, bool) {
    let words = events.iter().find_map(|k| match k {
        EventKind::Play { words, .. } => Some(words),
        _ => None,
    });
    let phony = words.is_some_and(|ws| ws.iter().any(|w| lexicon.contains_str(w) != Ok(true)));
    (phony, events.iter().any(|k| matches!(k, EventKind::Challenged { .. })))
}

/// The action that took turn `turn`, and the kinds of the events from it until the next turn.
pub(super) fn action_of(game: &Game, turn: u32) -> Option<(Action, Vec<EventKind>)> {
    let live: Vec<&crate::game::Event> = game.history().iter().filter(|e| !e.undone).collect();
    let mut taken = 0u32;
    for (i, e) in live.iter().enumerate() {
        let takes = e.kind.takes_turn();
        if !takes {
            continue;
        }
        if taken == turn {
            let action = match &e.kind {
                EventKind::Play { play, .. } => Action::Play(*play),
                EventKind::Exchange { tiles } => Action::Exchange(*tiles),
                EventKind::Pass => Action::Pass,
                _ => return None,
            };
            let mut kinds = vec![e.kind.clone()];
            for f in &live[i + 1..] {
                if f.kind.takes_turn() {
                    break;
                }
                kinds.push(f.kind.clone());
            }
            return Some((action, kinds));
        }
        taken += 1;
    }
    None
}

struct AnyBingo {
    tiles: usize,
    found: bool,
}

impl PlaySink for AnyBingo {
    fn accept(&mut self, play: &Play, _score: i32) {
        self.found |= play.tiles_placed() == self.tiles;
    }
}

fn judge_simulation(
    review: &mut TurnReview,
    before: &Game,
    seat: usize,
    options: &Options,
    deadline: Instant,
) {
    let dawg = before.config().lexicon.dawg();
    let params = sim::Params {
        candidates: options.candidates,
        plies: if before.bag_len() <= 7 { 24 } else { 2 },
        seed: options.seed ^ u64::from(review.turn).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        reserve: 0,
    };
    let Some(setup) = sim::Setup::from_game(before, seat, params) else { return };
    let (setup, played) = setup.with_action(&review.played.action);
    let limits = sim::SimLimits { budget: options.until(deadline), ..Default::default() };
    let tally = sim::simulate(&setup, dawg, &limits, |_| true);
    let candidates: Vec<(&Action, i32, f32)> =
        setup.candidates.iter().map(|c| (&c.action, c.score, c.equity)).collect();
    let ran: Vec<bool> = tally.figures.iter().map(|f| f.iterations > 0).collect();
    let wins: Vec<f64> = tally.figures.iter().map(|f| f.win()).collect();
    settle(review, &candidates, &wins, &ran, played, tally.leader());
}

/// The played and best moves from a search's candidates (`(action, score, equity)`), their win
/// probabilities and whether each was searched at all; and whether the turn is a puzzle (the
/// best ahead of every other searched candidate by [`PUZZLE_MARGIN`]).
fn settle(
    review: &mut TurnReview,
    candidates: &[(&Action, i32, f32)],
    wins: &[f64],
    searched: &[bool],
    played: usize,
    best: usize,
) {
    let judged = |i: usize| {
        let (action, score, equity) = candidates[i];
        Judged { action: action.clone(), score, equity: f64::from(equity), win: wins[i] }
    };
    review.played = Judged { equity: review.played.equity, ..judged(played) };
    review.best = judged(best);
    let second = (0..candidates.len())
        .filter(|&i| i != best && searched[i])
        .map(|i| wins[i])
        .fold(f64::NEG_INFINITY, f64::max);
    review.puzzle =
        matches!(review.best.action, Action::Play(_)) && review.best.win - second >= PUZZLE_MARGIN;
}

fn judge_pre_endgame(review: &mut TurnReview, before: &Game, options: &Options, deadline: Instant) {
    let dawg = before.config().lexicon.dawg();
    let Some(setup) = crate::pre_endgame::Setup::from_game(before, options.candidates) else { return };
    let (setup, played) = setup.with_action(&review.played.action);
    let limits = crate::pre_endgame::PreEndgameLimits {
        budget: options.until(deadline),
        seed: options.seed,
        ..Default::default()
    };
    let report = crate::pre_endgame::solve(&setup, dawg, &limits, |_| true);
    let candidates: Vec<(&Action, i32, f32)> =
        setup.candidates.iter().map(|c| (&c.action, c.score, c.equity)).collect();
    let wins: Vec<f64> = report.records.iter().map(|r| r.win_share()).collect();
    settle(review, &candidates, &wins, &vec![true; wins.len()], played, report.best());
    review.exact = report.exact();
}

/// Win probability of a final spread.
fn result(spread: i32) -> f64 {
    match spread.cmp(&0) {
        std::cmp::Ordering::Greater => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Less => 0.0,
    }
}

fn judge_endgame(review: &mut TurnReview, before: &Game, rack: Rack, options: &Options, deadline: Instant) {
    let dawg = before.config().lexicon.dawg();
    let Some(position) = Position::from_game(before) else { return };
    let me = before.to_move();
    let spread = before.scores()[me] - before.scores()[1 - me];
    let half = deadline.saturating_duration_since(Instant::now()) / 2;
    let lines = endgame::solve(
        &position,
        dawg,
        endgame::EndgameLimits {
            budget: options.until(Instant::now() + half),
            lines: 2,
            ..Default::default()
        },
    );
    review.exact = lines.exact;
    let best_move = lines.pv.first().copied().unwrap_or(Move::Pass);
    let best_action = match best_move {
        Move::Play { play, .. } => Action::Play(play),
        Move::Pass => Action::Pass,
    };
    let best_score = match best_move {
        Move::Play { score, .. } => score,
        Move::Pass => 0,
    };
    review.best = Judged {
        action: best_action.clone(),
        score: best_score,
        equity: f64::from(lines.value),
        win: result(spread + lines.value),
    };
    // The position after the play made, searched in the time that is left.
    let solve_rest = |child: &Position| {
        let limits = endgame::EndgameLimits { budget: options.until(deadline), ..Default::default() };
        endgame::solve(child, dawg, limits)
    };
    // The play made: the same move, or its own line searched.
    let played_value = if best_action.same_move(&review.played.action) {
        lines.value
    } else {
        match &review.played.action {
            Action::Play(play) => {
                let mut left = rack;
                for p in play.placements() {
                    left.take_tile(p.tile);
                }
                let rules = before.config().rules.clone();
                if left.is_empty() {
                    review.played.score + 2 * rules.rack_total(&position.racks[1])
                } else {
                    let mut board = before.board().clone();
                    let placements: Vec<_> = play.placements().map(|p| (p.row, p.col, p.tile)).collect();
                    board.place(&placements, dawg);
                    let child = Position::new(board, [position.racks[1], left], 0);
                    let s = solve_rest(&child);
                    review.exact &= s.exact;
                    review.played.score - s.value
                }
            }
            _ => {
                let rules = before.config().rules.clone();
                let limit = rules.options.scoreless_turn_limit.turns(2);
                if position.zeros + 1 >= limit {
                    rules.rack_total(&position.racks[1]) - rules.rack_total(&position.racks[0])
                } else {
                    let child = Position::new(
                        before.board().clone(),
                        [position.racks[1], position.racks[0]],
                        position.zeros + 1,
                    );
                    let s = solve_rest(&child);
                    review.exact &= s.exact;
                    -s.value
                }
            }
        }
    };
    review.played.equity = f64::from(played_value);
    review.played.win = result(spread + played_value);
    // A puzzle: only the best line wins (the second best does not).
    if let Some(second) = lines.lines.get(1) {
        review.puzzle = matches!(best_action, Action::Play(_))
            && review.best.win - result(spread + second.value) >= PUZZLE_MARGIN;
    }
    // The endgame compares the moves' values: the better value is the better move even where
    // both win (or both lose); the loss itself stays in win probability.
    if played_value > lines.value {
        review.best = review.played.clone();
    }
}

fn judge_static(review: &mut TurnReview, before: &Game, rack: Rack) {
    let rules = before.config().rules.clone();
    let seat = before.to_move();
    let leaves = LeaveModel::shipped(&rules);
    let action = crate::equity::static_action(before, seat, leaves);
    let bag = before.bag_len();
    let (score, equity) = match &action {
        Action::Play(p) => {
            let score = evaluate_normalized(before.board(), p).total;
            (score, leaves.play_equity(&rules, &rack, p, score, bag))
        }
        Action::Exchange(t) => {
            let mut kept = rack;
            kept.remove_all(t);
            (0, leaves.value(&rules, &kept, bag))
        }
        _ => (0, leaves.value(&rules, &rack, bag)),
    };
    let equity = f64::from(equity);
    review.best = Judged { action, score, equity, win: f64::NAN };
    review.lost = (equity - review.played.equity).max(0.0);
    if review.best.action.same_move(&review.played.action) {
        review.best = review.played.clone();
        review.lost = 0.0;
    }
    review.class = Class::of_equity(review.lost);
}

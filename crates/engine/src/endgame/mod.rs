//! The exact endgame: once the bag is empty, each side can work out the other's rack (the
//! tiles it cannot see), so a two-player game is a finite game of perfect information and can
//! be solved. The same search also plays out a position whose bag order is known (the
//! pre-endgame's scenarios, [`crate::pre_endgame`]): a play draws from the bag as the game would.
//!
//! [`Solver::solve`] is a negamax search with alpha-beta pruning, principal variation search,
//! iterative deepening, move ordering (the transposition table's move first, then going out,
//! then the ply's two killer moves, then score and tiles played; the table's move and the last
//! play that went out and cut the same ply off elsewhere are tried, if legal here, before the
//! node's moves are generated, which most nodes above the horizon then never need) and a
//! transposition table
//! keyed by a Zobrist hash of the board, both racks, the bag's size and the scoreless-turn
//! count. Its value is the spread the side to move will add from here to the end of the game:
//! every play's score, plus the racks as the rules count them at the end (going out takes twice
//! the opponent's rack in spread; a run of scoreless turns costs each side its own rack).
//!
//! A search at a given depth marks a line cut at that depth as unproven; an iteration in which
//! no line was cut is the exact answer, and the search stops there. When the time budget ends
//! first, the lines of the deepest completed iteration are the answer, marked inexact.
//!
//! **Several lines**: asked for the best `k` first moves, the root keeps the `k` best values
//! found so far; a further move is first tested with a null window at the `k`-th value and
//! searched in full only if it beats it, so `k` lines cost little more than one.
//!
//! A [`Solver`] keeps its transposition table between searches (each search salts its keys,
//! so entries of another position never match): the pre-endgame's many small searches pay
//! for the table once.
//!
//! The search generates with [`PlayableWords`]: the lexicon cut down to the words the tiles
//! still to be played can form on this board (the same plays, found far faster).
//!
//! [`minimax`] is the plain reference (every move, no pruning, exact values remembered by the
//! whole position): what the tests hold the solver to on small endgames.

use crate::alphabet::{BLANK_BIT, EMPTY, Letter, Tile, tile_is_blank};
use crate::bag::SplitMix64;
use crate::board::{Board, Direction};
use crate::budget::Budget;
use crate::game::Game;
use crate::lexicon::Dawg;
use crate::movegen::{CollectAll, Mode, ScoredPlay, generate};
use crate::play::Play;
use crate::rack::Rack;
use crate::rules::{MAX_SQUARES, Ruleset};
use std::collections::HashMap;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

mod words;
pub use words::PlayableWords;

/// A two-player position to play out: `racks[0]` belongs to the side to move. With an empty
/// `bag` it is an endgame; otherwise the bag's order is known (the pre-endgame's scenarios):
/// plays draw from its end, as the game would.
#[derive(Clone, Debug)]
pub struct Position {
    pub board: Board,
    pub racks: [Rack; 2],
    /// Consecutive scoreless turns so far (passes, exchanges, withdrawn plays).
    pub zeros: u32,
    /// The bag, drawn from its end (empty: an endgame).
    pub bag: Vec<Option<Letter>>,
}

impl Position {
    /// An endgame: the bag is empty.
    pub fn new(board: Board, racks: [Rack; 2], zeros: u32) -> Position {
        Position { board, racks, zeros, bag: Vec::new() }
    }

    /// The endgame of a two-seat game whose bag is empty and which is still being played, from
    /// the view of the seat to move; `None` otherwise (a bag with tiles, more seats, a game over
    /// or waiting for the play that went out to be accepted).
    pub fn from_game(game: &Game) -> Option<Position> {
        if game.config().seats != 2 || game.bag_len() > 0 || game.is_over() || game.awaiting_final_challenge()
        {
            return None;
        }
        let me = game.to_move();
        let racks = [*game.rack(me)?, *game.rack(1 - me)?];
        if racks[0].is_empty() || racks[1].is_empty() {
            return None;
        }
        Some(Position::new(game.board().clone(), racks, game.scoreless_turns()))
    }

    /// Every tile still to be played: both racks and the bag.
    pub fn tiles_to_play(&self) -> Rack {
        let mut tiles = self.racks[0];
        tiles.add_all(&self.racks[1]);
        for t in &self.bag {
            match t {
                Some(l) => tiles.add(*l),
                None => tiles.add_blank(),
            }
        }
        tiles
    }

    /// The unseen tiles when `board` and `rack` are all a player can see and the bag is empty:
    /// the full tile set less the board and the rack (the opponent's rack). `None` when the
    /// board and the rack hold more of some tile than the set has.
    pub fn unseen(board: &Board, rack: &Rack) -> Option<Rack> {
        let rules = board.rules();
        let mut unseen = rules.full_set();
        for &t in board.grid() {
            if t != EMPTY && !unseen.take_tile(t) {
                return None;
            }
        }
        unseen.remove_all(rack).then_some(unseen)
    }
}

/// One move of the endgame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    Play { play: Play, score: i32 },
    Pass,
}

/// One of the best first moves: its value and the line that follows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The spread the side to move adds from here to the end after this first move, under best
    /// play from then on.
    pub value: i32,
    /// The first move, then best play, alternating sides. Exact lines run to the end of the
    /// game.
    pub pv: Vec<Move>,
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct Solution {
    /// The spread the side to move adds from here to the end (its points minus the
    /// opponent's, the racks' end-of-game values included). Add the current spread for the
    /// final one.
    pub value: i32,
    /// The principal variation, the side to move's move first. Exact solutions run to the end
    /// of the game unless a proven transposition ended the line early.
    pub pv: Vec<Move>,
    /// The best first moves asked for ([`EndgameLimits::lines`]), best first (values non-increasing),
    /// each with its value and line; the first is `value` and `pv`. Fewer when the position has
    /// fewer moves.
    pub lines: Vec<Line>,
    /// The deepest iteration completed (plies).
    pub depth: u32,
    /// The whole game tree was resolved: every value is the final spread under best play.
    pub exact: bool,
    /// Positions searched.
    pub nodes: u64,
}

/// Bounds on a search.
#[derive(Clone, Debug)]
pub struct EndgameLimits {
    /// When to stop (the deepest completed iteration answers).
    pub budget: Budget,
    /// Deepest iteration tried (plies).
    pub max_depth: u32,
    /// log2 of the transposition table's entries (40 bytes each); 0: sized by the
    /// deadline (2^16 to 2^22 entries, about what the search can fill).
    pub table_bits: u32,
    /// Best first moves wanted, each with its exact value and line (at least 1).
    pub lines: usize,
}

impl Default for EndgameLimits {
    fn default() -> EndgameLimits {
        EndgameLimits { budget: Budget::default(), max_depth: 128, table_bits: 0, lines: 1 }
    }
}

impl EndgameLimits {
    /// The table's size: as asked, or by the time the search has (about a million positions a
    /// second reach it; 2^22 entries, 128 MiB, for 5 s), or 2^21 without a deadline.
    fn bits(&self) -> u32 {
        if self.table_bits > 0 {
            return self.table_bits.clamp(8, 26);
        }
        match self.budget.deadline {
            Some(d) => {
                let ms = d.saturating_duration_since(Instant::now()).as_millis() as u64;
                (ms.max(1) * 1000).ilog2().clamp(16, 22)
            }
            None => 21,
        }
    }
}

/// Solve `position` within `limits`. The side to move's rack must not be empty.
pub fn solve(position: &Position, dawg: &Dawg, limits: EndgameLimits) -> Solution {
    Solver::new(limits.bits()).solve(position, dawg, limits)
}

/// A transposition table kept between searches.
pub struct Solver {
    table: Vec<Entry>,
}

impl Solver {
    /// A solver with a table of 2^`bits` entries (8 to 26).
    pub fn new(bits: u32) -> Solver {
        Solver { table: vec![Entry::default(); 1 << bits.clamp(8, 26)] }
    }

    /// Whether the side to move's value in `position` is at least `threshold`: `Some` once
    /// proven (a null-window search at the threshold, deepened until no line is cut; far
    /// cheaper than the exact value when the answer is clear), `None` when the budget ends
    /// first. Also the value the last search returned: a bound on the true one (at least it
    /// when the answer is yes, at most it when no). `words` must hold the words of
    /// [`Position::tiles_to_play`] on the position's board, or of more tiles on an earlier board
    /// (the caller of many searches prunes once).
    pub fn test(
        &mut self,
        position: &Position,
        words: &PlayableWords,
        limits: EndgameLimits,
        threshold: i32,
    ) -> (Option<bool>, i32) {
        let rules = position.board.rules().clone();
        let (mut s, root) = self.search(position, words.dawg(), &limits, &rules);
        let mut answer = (None, 0);
        for depth in 1..=limits.max_depth.max(1) {
            let (value, proven) = s.negamax(&root, depth, threshold - 1, threshold, 0);
            if s.aborted {
                break;
            }
            answer = (proven.then_some(value >= threshold), value);
            if proven {
                break;
            }
            s.can_abort = true;
        }
        answer
    }

    /// Solve `position` within `limits` (its `table_bits` are ignored: the solver's table is
    /// used). The side to move's rack must not be empty.
    pub fn solve(&mut self, position: &Position, dawg: &Dawg, limits: EndgameLimits) -> Solution {
        let words = PlayableWords::new(&position.board, &position.tiles_to_play(), dawg);
        let rules = position.board.rules().clone();
        let (mut s, root) = self.search(position, words.dawg(), &limits, &rules);
        let want = limits.lines.max(1);
        let mut answer: Option<(Vec<Line>, u32, bool)> = None;
        let mut order: Vec<Move> = Vec::new();
        for depth in 1..=limits.max_depth.max(1) {
            let (lines, proven) = s.root(&root, depth, want, &order);
            if s.aborted && answer.is_some() {
                break;
            }
            order = lines.iter().filter_map(|l| l.pv.first().copied()).collect();
            let exact = proven && !s.aborted;
            answer = Some((lines, depth, exact));
            if exact || s.aborted {
                break;
            }
            // Depth 1 always completes, so there is always a move to answer with.
            s.can_abort = true;
        }
        let (mut lines, depth, exact) = answer.expect("the first iteration always completes");
        if exact {
            for line in &mut lines {
                s.extend_pv(&root, &mut line.pv);
            }
        }
        let first = lines.first().cloned().unwrap_or(Line { value: 0, pv: Vec::new() });
        Solution { value: first.value, pv: first.pv, lines, depth, exact, nodes: s.nodes }
    }

    /// A search of `position` over this solver's table, its keys salted anew, and its root.
    fn search<'a>(
        &'a mut self,
        position: &'a Position,
        dawg: &'a Dawg,
        limits: &EndgameLimits,
        rules: &'a Ruleset,
    ) -> (Search<'a>, Node) {
        static SEARCHES: AtomicU64 = AtomicU64::new(1);
        let salt = SEARCHES.fetch_add(1, Ordering::Relaxed).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let s = Search {
            dawg,
            rules,
            limit: rules.options.scoreless_turn_limit.turns(2),
            bag: &position.bag,
            table: &mut self.table,
            budget: limits.budget.clone(),
            nodes: 0,
            next_check: 0,
            aborted: false,
            can_abort: false,
            plays: Vec::new(),
            buffers: Vec::new(),
            pv: Vec::new(),
            killers: Vec::new(),
            out_killers: Vec::new(),
        };
        let root = Node {
            board: position.board.clone(),
            racks: position.racks,
            zeros: position.zeros,
            bag_len: position.bag.len(),
            hash: zobrist().position(&position.board, &position.racks, position.zeros, position.bag.len())
                ^ salt,
        };
        (s, root)
    }
}

/// The exact value of `position` for the side to move, by plain minimax over every move (no
/// pruning; each position's value remembered under its full description), or `None` when it
/// would visit more than `max_positions` distinct positions. Exponential: for small endgames
/// and tests.
pub fn minimax(position: &Position, dawg: &Dawg, max_positions: usize) -> Option<i32> {
    let rules = position.board.rules().clone();
    let limit = rules.options.scoreless_turn_limit.turns(2);
    let mut memo = HashMap::new();
    let mut plain = Plain { dawg, rules: &rules, limit, bag: &position.bag, memo: &mut memo, max_positions };
    plain.value(&position.board, position.racks, position.zeros, position.bag.len())
}

type MemoKey = (Vec<Tile>, [Rack; 2], u32, usize);

struct Plain<'a> {
    dawg: &'a Dawg,
    rules: &'a Ruleset,
    limit: u32,
    bag: &'a [Option<Letter>],
    memo: &'a mut HashMap<MemoKey, i32>,
    max_positions: usize,
}

impl Plain<'_> {
    fn value(&mut self, board: &Board, racks: [Rack; 2], zeros: u32, bag_len: usize) -> Option<i32> {
        let key: MemoKey = (board.grid().to_vec(), racks, zeros, bag_len);
        if let Some(&v) = self.memo.get(&key) {
            return Some(v);
        }
        if self.memo.len() >= self.max_positions {
            return None;
        }
        let (own, opp) = (self.rules.rack_total(&racks[0]), self.rules.rack_total(&racks[1]));
        // Passing: the scoreless run may end the game.
        let mut best = if zeros + 1 >= self.limit {
            opp - own
        } else {
            -self.value(board, [racks[1], racks[0]], zeros + 1, bag_len)?
        };
        let mut plays = CollectAll::default();
        generate(board, &racks[0], self.dawg, Mode::Both, &mut plays);
        for sp in plays.0 {
            let mut left = racks[0];
            for p in sp.play.placements() {
                left.take_tile(p.tile);
            }
            let (left, bag_after) = draw(left, sp.play.tiles_placed(), self.bag, bag_len);
            let value = if left.is_empty() {
                sp.score + 2 * opp
            } else {
                let mut next = board.clone();
                let placements: Vec<_> = sp.play.placements().map(|p| (p.row, p.col, p.tile)).collect();
                next.place(&placements, self.dawg);
                sp.score - self.value(&next, [racks[1], left], 0, bag_after)?
            };
            best = best.max(value);
        }
        self.memo.insert(key, best);
        Some(best)
    }
}

/// `rack` after drawing as many tiles as were `placed` (at most what is left) from the end of
/// `bag`, of which `bag_len` remain; and the bag's size after.
fn draw(mut rack: Rack, placed: usize, bag: &[Option<Letter>], bag_len: usize) -> (Rack, usize) {
    let drawn = placed.min(bag_len);
    for t in &bag[bag_len - drawn..bag_len] {
        match t {
            Some(l) => rack.add(*l),
            None => rack.add_blank(),
        }
    }
    (rack, bag_len - drawn)
}

const INFINITY: i32 = 1 << 20;
/// Nodes between two looks at the budget (a look reads the clock).
const CHECK_EVERY: u64 = 512;
/// The depth stored for a value that no horizon cut: good at any depth.
const PROVEN: u8 = u8::MAX;

/// How a stored value bounds the true one.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Bound {
    #[default]
    Exact,
    Lower,
    Upper,
}

// The table's memory is its entries: 32 bytes each (2^22 of them, 128 MiB, for a 5 s solve).
// A best move is kept by the tiles it places, not as a `Play` (a line of the largest board,
// 21 tiles), which made an entry 48 bytes.
const _: () = assert!(std::mem::size_of::<Entry>() == 32);

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    value: i32,
    depth: u8,
    bound: Bound,
    /// The best move found here.
    best: TableMove,
}

/// Most tiles a play places: a rack's (the rulebook refuses racks of more than 7).
const MOST_PLACED: usize = 7;

/// A move as the table keeps it: a play by its start, length and the tiles it places, the
/// squares it plays through read back from the position's board ([`TableMove::on`]).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct TableMove {
    /// 0 no move, 1 a pass, else 2 + the play's direction, row and column (5 bits each).
    at: u16,
    len: u8,
    placed: [Tile; MOST_PLACED],
    score: i32,
}

impl TableMove {
    fn of(mv: Option<Move>) -> TableMove {
        match mv {
            None => TableMove::default(),
            Some(Move::Pass) => TableMove { at: 1, ..TableMove::default() },
            Some(Move::Play { play, score }) => {
                let mut placed = [0; MOST_PLACED];
                for (n, p) in play.placements().enumerate() {
                    let Some(slot) = placed.get_mut(n) else { return TableMove::default() };
                    *slot = p.tile;
                }
                let at =
                    2 + ((play.dir.index() as u16) << 10 | u16::from(play.row) << 5 | u16::from(play.col));
                TableMove { at, len: play.len() as u8, placed, score }
            }
        }
    }

    /// The move on `board`, the position it was stored for: its placed tiles on the empty
    /// squares from its start, the filled ones played through. None when it does not fit (a
    /// position whose key collided); [`Solver::replayed`] checks the rest.
    fn on(self, board: &Board) -> Option<Move> {
        let (dir, row, col) = match self.at {
            0 => return None,
            1 => return Some(Move::Pass),
            at => {
                let at = at - 2;
                let dir = if at >> 10 & 1 == 0 { Direction::Across } else { Direction::Down };
                (dir, usize::from(at >> 5 & 31), usize::from(at & 31))
            }
        };
        let (line, start) = dir.from_board(row, col);
        let len = usize::from(self.len);
        if line >= board.size() || start + len > board.size() {
            return None;
        }
        let mut tiles = [EMPTY; crate::rules::MAX_SIZE];
        let mut placed = self.placed.iter().take_while(|&&t| t != EMPTY);
        for (i, t) in tiles[..len].iter_mut().enumerate() {
            if board.at(dir, line, start + i) == EMPTY {
                *t = *placed.next()?;
            }
        }
        if placed.next().is_some() {
            return None;
        }
        let play = Play::new(dir, row, col, &tiles[..len]).ok()?;
        Some(Move::Play { play, score: self.score })
    }
}

#[derive(Clone)]
struct Node {
    board: Board,
    racks: [Rack; 2],
    zeros: u32,
    /// Tiles left in the bag (the first `bag_len` of the position's bag).
    bag_len: usize,
    hash: u64,
}

/// A move with its ordering key and its value when it ends the game.
#[derive(Clone, Copy)]
struct Candidate {
    mv: Move,
    /// The mover's rack after the move (and its draw).
    left: Rack,
    /// The bag's size after the move.
    bag_len: usize,
    order: i32,
    /// The move ends the game: its value for the mover.
    terminal: Option<i32>,
}

struct Search<'a> {
    dawg: &'a Dawg,
    rules: &'a Ruleset,
    limit: u32,
    bag: &'a [Option<Letter>],
    table: &'a mut [Entry],
    budget: Budget,
    nodes: u64,
    /// The node count at which the budget is asked next ([`CHECK_EVERY`] nodes apart).
    next_check: u64,
    aborted: bool,
    /// The budget may stop the search (not during the first iteration).
    can_abort: bool,
    /// The generator's output, reused.
    plays: Vec<ScoredPlay>,
    /// Move lists, one per ply, reused.
    buffers: Vec<Vec<Candidate>>,
    /// The principal variation from each ply (triangular).
    pv: Vec<Vec<Move>>,
    /// Per ply, the last two moves that cut the search off there: tried early at the same ply
    /// of other lines, where they often cut again.
    killers: Vec<[Option<Move>; 2]>,
    /// Per ply, the last play that went out and cut the search off there.
    out_killers: Vec<Option<Move>>,
}

/// The moves a node tries before generating its own ([`Search::early`]), at most two.
struct Early {
    moves: [Option<Candidate>; 2],
    len: usize,
}

impl Early {
    fn get(&self, i: usize) -> Option<Candidate> {
        self.moves.get(i).copied().flatten()
    }

    fn holds(&self, mv: Move) -> bool {
        self.moves.iter().flatten().any(|c| c.mv == mv)
    }
}

/// Ordering keys, highest first.
const ORDER_TABLE: i32 = i32::MAX;
const ORDER_KILLER: i32 = INFINITY / 2;

impl Search<'_> {
    /// The best `want` first moves at the root for a search to `depth`, each with its value
    /// (exact among them; a move outside them is proven no better than the last), and whether
    /// no line was cut by the depth. `first` lists moves to try first (the last iteration's
    /// lines).
    fn root(&mut self, root: &Node, depth: u32, want: usize, first: &[Move]) -> (Vec<Line>, bool) {
        self.nodes += 1;
        while self.pv.len() <= 2 {
            self.pv.push(Vec::new());
        }
        let (own, opp) = (self.rules.rack_total(&root.racks[0]), self.rules.rack_total(&root.racks[1]));
        let table_move = self.probe(root.hash).and_then(|e| e.best.on(&root.board));
        let mut moves = self.candidates(root, table_move, own, opp, 0);
        // The last iteration's lines first, in their order.
        for (rank, mv) in first.iter().enumerate() {
            if let Some(c) = moves.iter_mut().find(|c| c.mv == *mv) {
                c.order = ORDER_TABLE - rank as i32;
            }
        }
        moves.sort_by_key(|c| std::cmp::Reverse(c.order));
        let mut lines: Vec<Line> = Vec::with_capacity(want + 1);
        let mut proven = true;
        for c in moves.iter().copied() {
            // The value a move must beat to be among the lines: the last of `want` so far.
            let bar = (lines.len() >= want).then(|| lines[want - 1].value);
            let (value, child_proven, pv) = match c.terminal {
                Some(v) => (v, true, vec![c.mv]),
                None => {
                    let child = self.child(root, &c);
                    let score = move_score(c.mv);
                    let mut result = None;
                    if let Some(bar) = bar {
                        // Null window at the bar: is the move better than the last line?
                        let (v, p) = self.negamax(&child, depth - 1, -bar - 1 + score, -bar + score, 1);
                        if score - v <= bar {
                            result = Some((score - v, p, Vec::new()));
                        }
                    }
                    match result {
                        Some(r) => r,
                        None => {
                            let alpha = bar.unwrap_or(-INFINITY);
                            let (v, p) = self.negamax(&child, depth - 1, -INFINITY, score - alpha, 1);
                            let mut pv = vec![c.mv];
                            pv.extend_from_slice(&self.pv[1]);
                            (score - v, p, pv)
                        }
                    }
                }
            };
            if self.aborted {
                return (lines, false);
            }
            proven &= child_proven;
            if !pv.is_empty() && bar.is_none_or(|b| value > b) {
                let at = lines.partition_point(|l| l.value >= value);
                lines.insert(at, Line { value, pv });
                lines.truncate(want);
            }
        }
        if let Some(best) = lines.first() {
            let stored_depth = if proven { PROVEN } else { depth.min(PROVEN as u32 - 1) as u8 };
            self.store(Entry {
                key: root.hash,
                value: best.value,
                depth: stored_depth,
                bound: Bound::Exact,
                best: TableMove::of(best.pv.first().copied()),
            });
        }
        (lines, proven)
    }

    /// The node's value for its side to move within `(alpha, beta)`, and whether no line below
    /// was cut by the depth limit.
    fn negamax(&mut self, node: &Node, depth: u32, mut alpha: i32, mut beta: i32, ply: usize) -> (i32, bool) {
        self.nodes += 1;
        // Asked by distance, not at multiples: a node one ply above the horizon counts each of
        // its leaves, so the count jumps past most multiples between two entries here (a depth-2
        // iteration ran 2.3 s over a 250 ms budget without once landing on one).
        if self.can_abort && self.nodes >= self.next_check {
            self.next_check = self.nodes + CHECK_EVERY;
            if self.budget.spent() {
                self.aborted = true;
            }
        }
        if self.aborted {
            return (0, false);
        }
        while self.pv.len() <= ply + 1 {
            self.pv.push(Vec::new());
        }
        self.pv[ply].clear();
        let found = self.probe(node.hash);
        let hit = found.is_some();
        let entry = found.unwrap_or_default();
        // Not at ply 0: a search from there wants its line, which a table hit does not give.
        if hit && ply > 0 && (entry.depth == PROVEN || u32::from(entry.depth) >= depth) {
            let proven = entry.depth == PROVEN;
            match entry.bound {
                Bound::Exact => return (entry.value, proven),
                Bound::Lower => alpha = alpha.max(entry.value),
                Bound::Upper => beta = beta.min(entry.value),
            }
            if alpha >= beta {
                return (entry.value, proven);
            }
        }
        let (own, opp) = (self.rules.rack_total(&node.racks[0]), self.rules.rack_total(&node.racks[1]));
        if depth == 0 {
            // The horizon: tiles still held will count against their holder.
            return (opp - own, false);
        }
        let table_move = if hit { entry.best.on(&node.board) } else { None };
        let early = self.early(node, table_move, own, opp, ply);
        let mut moves = Vec::new();
        let mut generated = false;
        let original_alpha = alpha;
        let mut best_value = -INFINITY;
        let mut best_move = None;
        let mut proven = true;
        for i in 0.. {
            let c = match early.get(i) {
                Some(c) => c,
                None => {
                    if !generated {
                        moves = self.candidates(node, table_move, own, opp, ply);
                        moves.retain(|c| !early.holds(c.mv));
                        generated = true;
                    }
                    match moves.get(i - early.len) {
                        Some(&c) => c,
                        None => break,
                    }
                }
            };
            let score = move_score(c.mv);
            let (value, child_proven) = match c.terminal {
                Some(v) => (v, true),
                // The child would be a horizon leaf: its value without building it.
                None if depth == 1 => {
                    self.nodes += 1;
                    (score + opp - self.rules.rack_total(&c.left), false)
                }
                None => {
                    let child = self.child(node, &c);
                    // Principal variation search: after the first move, prove each other move no
                    // better than alpha with a null window, and search it fully only if it is.
                    let mut searched = None;
                    if i > 0 {
                        let (v, p) =
                            self.negamax(&child, depth - 1, score - alpha - 1, score - alpha, ply + 1);
                        if score - v <= alpha || score - v >= beta {
                            searched = Some((score - v, p));
                        }
                    }
                    match searched {
                        Some(found) => found,
                        None => {
                            let (v, p) =
                                self.negamax(&child, depth - 1, score - beta, score - alpha, ply + 1);
                            (score - v, p)
                        }
                    }
                }
            };
            if self.aborted {
                if generated {
                    self.buffers[ply] = std::mem::take(&mut moves);
                }
                return (0, false);
            }
            if value > best_value {
                best_value = value;
                best_move = Some(c.mv);
                let (head, tail) = self.pv.split_at_mut(ply + 1);
                head[ply].clear();
                head[ply].push(c.mv);
                if c.terminal.is_none() && depth > 1 {
                    head[ply].extend_from_slice(&tail[0]);
                }
            }
            alpha = alpha.max(value);
            if alpha >= beta {
                // A lower bound needs one move that reaches it: the others tried before it, cut
                // by the horizon or not, do not weaken its proof.
                proven = child_proven;
                self.killer(ply, c);
                break;
            }
            proven &= child_proven;
        }
        if generated {
            moves.clear();
            self.buffers[ply] = moves;
        }
        let bound = if best_value <= original_alpha {
            Bound::Upper
        } else if best_value >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let stored_depth = if proven { PROVEN } else { depth.min(PROVEN as u32 - 1) as u8 };
        self.store(Entry {
            key: node.hash,
            value: best_value,
            depth: stored_depth,
            bound,
            best: TableMove::of(best_move),
        });
        (best_value, proven)
    }

    /// The table's entry for `hash`, if it holds one: a pair of slots per bucket.
    fn probe(&self, hash: u64) -> Option<Entry> {
        let slot = (hash as usize) & (self.table.len() - 2);
        self.table[slot..slot + 2].iter().find(|e| e.key == hash).copied()
    }

    /// Keep `entry`: over an entry of the same position, else over the shallower of the
    /// bucket's two (a proven value is the deepest), so that entries which cost a large search
    /// outlive the many small ones.
    fn store(&mut self, entry: Entry) {
        let slot = (entry.key as usize) & (self.table.len() - 2);
        let pair = &mut self.table[slot..slot + 2];
        let at = if pair[0].key == entry.key {
            0
        } else if pair[1].key == entry.key {
            1
        } else if pair[0].depth <= pair[1].depth {
            0
        } else {
            1
        };
        pair[at] = entry;
    }

    /// Remember the move that cut the search off at `ply`: a play that goes out as the ply's
    /// out-killer, any other move among its two killers.
    fn killer(&mut self, ply: usize, c: Candidate) {
        while self.killers.len() <= ply {
            self.killers.push([None; 2]);
            self.out_killers.push(None);
        }
        if c.terminal.is_some() {
            self.out_killers[ply] = Some(c.mv);
            return;
        }
        let k = &mut self.killers[ply];
        if k[0] != Some(c.mv) {
            k[1] = k[0];
            k[0] = Some(c.mv);
        }
    }

    /// The moves to try before generating the node's moves, legal here and in order: the
    /// table's move and the ply's out-killer. Most nodes one ply above the horizon are cut off
    /// by a play that goes out, and a sibling's usually goes out here too; most of the search's
    /// time is generation, so a node cut off early skips it. (The ply's other killers are left
    /// to their turn: cutting with them before the plays that go out makes poorer table moves
    /// for the next iteration, which then searches several times the positions.)
    fn early(&self, node: &Node, table_move: Option<Move>, own: i32, opp: i32, ply: usize) -> Early {
        let mut early = Early { moves: [None; 2], len: 0 };
        let out_killer = self.out_killers.get(ply).copied().flatten();
        for mv in [table_move, out_killer].into_iter().flatten() {
            if early.holds(mv) {
                continue;
            }
            if let Some(c) = self.replayed(node, mv, own, opp) {
                early.moves[early.len] = Some(c);
                early.len += 1;
            }
        }
        early
    }

    /// `mv` as a move of the side to move at `node`, if it is legal there: every tile it places
    /// on an empty square and held, every square it plays through filled, connected, and every
    /// word it forms a word (none already on the board under Эрудит's option). Its score is
    /// this board's: a killer was found on a sibling's.
    fn replayed(&self, node: &Node, mv: Move, own: i32, opp: i32) -> Option<Candidate> {
        let play = match mv {
            Move::Pass => {
                let ends = node.zeros + 1 >= self.limit;
                return Some(Candidate {
                    mv,
                    left: node.racks[0],
                    bag_len: node.bag_len,
                    order: 0,
                    terminal: ends.then_some(opp - own),
                });
            }
            Move::Play { play, .. } => play,
        };
        let (line, start) = play.line_start();
        if line >= node.board.size() || start + play.len() > node.board.size() {
            return None;
        }
        let mut left = node.racks[0];
        for (i, &t) in play.tiles().iter().enumerate() {
            let here = node.board.at(play.dir, line, start + i);
            let fits = if t == EMPTY { here != EMPTY } else { here == EMPTY && left.take_tile(t) };
            if !fits {
                return None;
            }
        }
        if !play.check_connection(&node.board).is_empty() {
            return None;
        }
        let eval = crate::score::evaluate_normalized(&node.board, &play);
        if !crate::validate::word_problems(&node.board, &eval, self.dawg).is_empty() {
            return None;
        }
        let score = eval.total;
        let (left, bag_len) = draw(left, play.tiles_placed(), self.bag, node.bag_len);
        let terminal = left.is_empty().then_some(score + 2 * opp);
        Some(Candidate { mv: Move::Play { play, score }, left, bag_len, order: 0, terminal })
    }

    /// Every move from `node`, best first by the search's ordering.
    fn candidates(
        &mut self,
        node: &Node,
        table_move: Option<Move>,
        own: i32,
        opp: i32,
        ply: usize,
    ) -> Vec<Candidate> {
        while self.buffers.len() <= ply {
            self.buffers.push(Vec::new());
        }
        let killers = self.killers.get(ply).copied().unwrap_or([None; 2]);
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        moves.clear();
        let mut plays = CollectAll(std::mem::take(&mut self.plays));
        plays.0.clear();
        generate(&node.board, &node.racks[0], self.dawg, Mode::Both, &mut plays);
        for &sp in &plays.0 {
            let mut left = node.racks[0];
            for p in sp.play.placements() {
                left.take_tile(p.tile);
            }
            let (left, bag_len) = draw(left, sp.play.tiles_placed(), self.bag, node.bag_len);
            let out = left.is_empty();
            let terminal = out.then_some(sp.score + 2 * opp);
            let mv = Move::Play { play: sp.play, score: sp.score };
            let order = if table_move == Some(mv) {
                ORDER_TABLE
            } else if out {
                // Going out ends the game at once: the best of these is usually the answer.
                INFINITY + sp.score
            } else if killers.contains(&Some(mv)) {
                ORDER_KILLER + sp.score
            } else {
                sp.score + 3 * sp.play.tiles_placed() as i32
            };
            moves.push(Candidate { mv, left, bag_len, order, terminal });
        }
        let pass_ends = node.zeros + 1 >= self.limit;
        moves.push(Candidate {
            mv: Move::Pass,
            left: node.racks[0],
            bag_len: node.bag_len,
            order: if table_move == Some(Move::Pass) {
                ORDER_TABLE
            } else if killers.contains(&Some(Move::Pass)) {
                ORDER_KILLER
            } else {
                -INFINITY
            },
            terminal: pass_ends.then_some(opp - own),
        });
        self.plays = plays.0;
        // Stable: equal keys keep the generator's order, so the search is deterministic.
        moves.sort_by_key(|c| std::cmp::Reverse(c.order));
        moves
    }

    fn child(&self, node: &Node, c: &Candidate) -> Node {
        let z = zobrist();
        let mut hash = node.hash;
        // The sides swap: racks[0] becomes the opponent's. Rack hashes are keyed by seat
        // relative to the mover, so rehash both.
        hash ^= z.rack(0, &node.racks[0]) ^ z.rack(1, &node.racks[1]);
        hash ^= z.rack(0, &node.racks[1]) ^ z.rack(1, &c.left);
        hash ^= z.zeros_key(node.zeros);
        hash ^= z.bag[node.bag_len.min(15)] ^ z.bag[c.bag_len.min(15)];
        match c.mv {
            Move::Play { play, .. } => {
                let mut board = node.board.clone();
                let placements: Vec<_> = play.placements().map(|p| (p.row, p.col, p.tile)).collect();
                for &(r, col, t) in &placements {
                    hash ^= z.square(r * node.board.size() + col, t);
                }
                board.place(&placements, self.dawg);
                hash ^= z.zeros_key(0);
                Node { board, racks: [node.racks[1], c.left], zeros: 0, bag_len: c.bag_len, hash }
            }
            Move::Pass => {
                let zeros = node.zeros + 1;
                hash ^= z.zeros_key(zeros);
                Node {
                    board: node.board.clone(),
                    racks: [node.racks[1], node.racks[0]],
                    zeros,
                    bag_len: node.bag_len,
                    hash,
                }
            }
        }
    }

    /// Continue an exact line through proven table entries to the end of the game.
    fn extend_pv(&mut self, root: &Node, pv: &mut Vec<Move>) {
        let mut node = root.clone();
        let (mut i, mut guard) = (0, 0);
        loop {
            guard += 1;
            if guard > 200 {
                return;
            }
            let mv = if i < pv.len() {
                pv[i]
            } else {
                // The line stopped at a transposition: search the position again with the full
                // window (the table holds its proven bounds, so this is quick) for its next move.
                let (_, proven) = self.negamax(&node, u32::from(PROVEN), -INFINITY, INFINITY, 0);
                let Some(&mv) = self.pv[0].first().filter(|_| proven) else { return };
                pv.push(mv);
                mv
            };
            i += 1;
            let mut left = node.racks[0];
            let mut bag_len = node.bag_len;
            if let Move::Play { play, .. } = mv {
                for p in play.placements() {
                    left.take_tile(p.tile);
                }
                (left, bag_len) = draw(left, play.tiles_placed(), self.bag, node.bag_len);
            }
            let ends = match mv {
                Move::Play { .. } => left.is_empty(),
                Move::Pass => node.zeros + 1 >= self.limit,
            };
            if ends {
                pv.truncate(i);
                return;
            }
            let c = Candidate { mv, left, bag_len, order: 0, terminal: None };
            node = self.child(&node, &c);
        }
    }
}

fn move_score(mv: Move) -> i32 {
    match mv {
        Move::Play { score, .. } => score,
        Move::Pass => 0,
    }
}

/// Random keys for the transposition table's hash.
struct Zobrist {
    squares: Vec<u64>,
    /// `[seat relative to the mover][tile kind][copy]`: the keys of the first `copy` tiles of a
    /// kind held, xored (blanks are kind 0, letter `l` kind `l + 1`).
    copies: Vec<u64>,
    zeros: [u64; 16],
    /// By the bag's size.
    bag: [u64; 16],
}

/// Tile kinds on a square: letters (1..=33) and blanks standing for them.
const KINDS: usize = 68;
const COPIES: usize = 16;

impl Zobrist {
    fn new() -> Zobrist {
        let mut rng = SplitMix64::new(0x5eed_e11d_9a3e_0001);
        Zobrist {
            squares: (0..MAX_SQUARES * KINDS).map(|_| rng.next_u64()).collect(),
            copies: {
                let keys: Vec<u64> = (0..2 * KINDS * COPIES).map(|_| rng.next_u64()).collect();
                let mut copies = vec![0; keys.len()];
                for i in 0..keys.len() {
                    if i % COPIES != 0 {
                        copies[i] = copies[i - 1] ^ keys[i];
                    }
                }
                copies
            },
            zeros: std::array::from_fn(|_| rng.next_u64()),
            bag: std::array::from_fn(|_| rng.next_u64()),
        }
    }

    /// The key of a count of scoreless turns: a ruleset's limit has no upper bound, so a count
    /// past the table's gets a key of its own drawn from it (never shared with another count).
    fn zeros_key(&self, zeros: u32) -> u64 {
        match self.zeros.get(zeros as usize) {
            Some(&key) => key,
            None => SplitMix64::new(self.zeros[0] ^ u64::from(zeros).rotate_left(32)).next_u64(),
        }
    }

    fn kind(t: Tile) -> usize {
        (t & !BLANK_BIT) as usize % 34 + if tile_is_blank(t) { 34 } else { 0 }
    }

    fn square(&self, sq: usize, t: Tile) -> u64 {
        self.squares[sq * KINDS + Self::kind(t)]
    }

    /// The key of `rack` for `seat`: the xor of one key per tile, the `n`-th copy of a kind
    /// having a key of its own, so equal racks hash alike whatever their order. Read as one
    /// running xor per kind and count.
    fn rack(&self, seat: usize, rack: &Rack) -> u64 {
        let base = seat * KINDS * COPIES;
        let mut h = self.copies[base + usize::from(rack.blanks()).min(COPIES - 1)];
        for l in 0..crate::alphabet::MAX_LETTERS {
            let n = rack.count(l as Letter);
            if n > 0 {
                h ^= self.copies[base + (l + 1) * COPIES + usize::from(n).min(COPIES - 1)];
            }
        }
        h
    }

    fn position(&self, board: &Board, racks: &[Rack; 2], zeros: u32, bag_len: usize) -> u64 {
        let mut h = self.rack(0, &racks[0])
            ^ self.rack(1, &racks[1])
            ^ self.zeros_key(zeros)
            ^ self.bag[bag_len.min(15)];
        for (sq, &t) in board.grid().iter().enumerate() {
            if t != EMPTY {
                h ^= self.square(sq, t);
            }
        }
        h
    }
}

fn zobrist() -> &'static Zobrist {
    static Z: OnceLock<Zobrist> = OnceLock::new();
    Z.get_or_init(Zobrist::new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_play;
    use crate::rules::RulesetKind;
    use std::sync::Arc;

    /// A table move is the play it was made from, on the board it was stored for: through the
    /// board's tiles, with blanks, on both boards' sides; and nothing where it does not fit.
    #[test]
    fn a_table_move_is_read_back_on_its_board() {
        for kind in [RulesetKind::english(), RulesetKind::by_name("super-english").unwrap()] {
            let lexicon =
                crate::lexicon::Lexicon::compile("t", "cat\ncats\nscat\n", kind.alphabet()).unwrap().0;
            let mut board = Board::new(Arc::new(Ruleset::new(kind)));
            let a = kind.alphabet();
            let (row, col) = board.rules().start();
            let cat = parse_play(&format!("{}{} CAT", row + 1, (b'A' + col as u8) as char), a).unwrap();
            let placements: Vec<_> = cat.placements().map(|p| (p.row, p.col, p.tile)).collect();
            board.place(&placements, lexicon.dawg());
            // sCAT. across through CAT, with a blank S, then the S of CATS as a play of one tile.
            let through = Play::new(
                Direction::Across,
                row,
                col - 1,
                &[crate::alphabet::tile(a.index_of('S').unwrap(), true), EMPTY, EMPTY, EMPTY],
            )
            .unwrap();
            for mv in [Move::Play { play: through, score: 5 }, Move::Pass] {
                assert_eq!(TableMove::of(Some(mv)).on(&board), Some(mv));
            }
            assert_eq!(TableMove::of(None).on(&board), None);
            // On another board (a key that collided), the same tiles do not fit.
            let empty = Board::new(board.rules().clone());
            assert_eq!(TableMove::of(Some(Move::Play { play: through, score: 5 })).on(&empty), None);
        }
    }

    /// Scoreless-turn counts each have their own key, past 15 too (a ruleset's limit is
    /// unbounded): positions that differ only there never share a table entry.
    #[test]
    fn every_count_of_scoreless_turns_has_its_own_key() {
        let z = zobrist();
        let keys: std::collections::HashSet<u64> = (0..1000).map(|n| z.zeros_key(n)).collect();
        assert_eq!(keys.len(), 1000);
    }
}

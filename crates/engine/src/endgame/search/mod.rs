//! The search: a [`Solver`]'s iterative deepening over its transposition table, the root's best
//! `k` first moves, and negamax with alpha-beta pruning and principal variation search.

use super::table::{self, Bound, Entry, PROVEN, TableMove, stored_depth, zobrist};
use super::{EndgameLimits, Line, Move, PlayableWords, Position, Solution, draw};
use crate::alphabet::Letter;
use crate::board::Board;
use crate::budget::Budget;
use crate::lexicon::Dawg;
use crate::movegen::ScoredPlay;
use crate::rack::Rack;
use crate::rules::Ruleset;
use std::sync::atomic::{AtomicU64, Ordering};

mod ordering;
use ordering::ORDER_TABLE;

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
            leaf_playout: limits.leaf_playout,
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

const INFINITY: i32 = 1 << 20;
/// Nodes between two looks at the budget (a look reads the clock).
const CHECK_EVERY: u64 = 512;

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
    /// [`EndgameLimits::leaf_playout`].
    leaf_playout: bool,
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
        let table_move = table::probe(self.table, root.hash).and_then(|e| e.best.on(&root.board));
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
            table::store(
                self.table,
                Entry {
                    key: root.hash,
                    value: best.value,
                    depth: stored_depth(depth, proven),
                    bound: Bound::Exact,
                    best: TableMove::of(best.pv.first().copied()),
                },
            );
        }
        (lines, proven)
    }

    /// The node's value for its side to move within `(alpha, beta)`, and whether no line below
    /// was cut by the depth limit.
    fn negamax(&mut self, node: &Node, depth: u32, mut alpha: i32, mut beta: i32, ply: usize) -> (i32, bool) {
        self.nodes += 1;
        self.look_at_budget();
        if self.aborted {
            return (0, false);
        }
        while self.pv.len() <= ply + 1 {
            self.pv.push(Vec::new());
        }
        self.pv[ply].clear();
        let found = table::probe(self.table, node.hash);
        // Not at ply 0: a search from there wants its line, which a table hit does not give.
        if let Some(entry) = found.filter(|_| ply > 0)
            && let Some(settled) = entry.cutoff(depth, &mut alpha, &mut beta)
        {
            return settled;
        }
        let (own, opp) = (self.rules.rack_total(&node.racks[0]), self.rules.rack_total(&node.racks[1]));
        if depth == 0 {
            if self.leaf_playout && node.bag_len == 0 {
                return (self.playout(node), false);
            }
            // The horizon: tiles still held will count against their holder.
            return (opp - own, false);
        }
        let table_move = found.and_then(|e| e.best.on(&node.board));
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
                        // A generation can cost a thousand nodes' time (two blanks in a rack):
                        // the clock is read before each, not only every [`CHECK_EVERY`] nodes.
                        self.look_at_clock();
                        if self.aborted {
                            return (0, false);
                        }
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
            let (value, child_proven) = match c.terminal {
                Some(v) => (v, true),
                // The child would be a horizon leaf: its value without building it.
                None if depth == 1 && !(self.leaf_playout && c.bag_len == 0) => {
                    self.nodes += 1;
                    (move_score(c.mv) + opp - self.rules.rack_total(&c.left), false)
                }
                None => self.searched(node, &c, depth, (alpha, beta), ply, i > 0),
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
                self.record_pv(ply, &c, depth);
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
        table::store(
            self.table,
            Entry {
                key: node.hash,
                value: best_value,
                depth: stored_depth(depth, proven),
                bound: Bound::of(best_value, original_alpha, beta),
                best: TableMove::of(best_move),
            },
        );
        (best_value, proven)
    }

    /// Ask the budget whether it is spent once [`CHECK_EVERY`] nodes have passed since the last
    /// look (never in the first iteration); a spent budget aborts the search.
    #[inline]
    fn look_at_budget(&mut self) {
        // Asked by distance, not at multiples: a node one ply above the horizon counts each of
        // its leaves, so the count jumps past most multiples between two entries here (a depth-2
        // iteration ran 2.3 s over a 250 ms budget without once landing on one).
        if self.can_abort && self.nodes >= self.next_check {
            self.next_check = self.nodes + CHECK_EVERY;
            if self.budget.spent() {
                self.aborted = true;
            }
        }
    }

    /// Ask the budget now, as [`Search::look_at_budget`] does every [`CHECK_EVERY`] nodes.
    #[inline]
    fn look_at_clock(&mut self) {
        self.next_check = self.nodes;
        self.look_at_budget();
    }

    /// The value of `c`, a move from `node` that does not end the game, searched to `depth`
    /// within `(alpha, beta)`, and whether no line below was cut. Principal variation search:
    /// after the first move (`null_window_first`), prove each other move no better than alpha
    /// with a null window, and search it fully only if it is.
    #[inline]
    fn searched(
        &mut self,
        node: &Node,
        c: &Candidate,
        depth: u32,
        (alpha, beta): (i32, i32),
        ply: usize,
        null_window_first: bool,
    ) -> (i32, bool) {
        let score = move_score(c.mv);
        let child = self.child(node, c);
        if null_window_first {
            let (v, p) = self.negamax(&child, depth - 1, score - alpha - 1, score - alpha, ply + 1);
            if score - v <= alpha || score - v >= beta {
                return (score - v, p);
            }
        }
        let (v, p) = self.negamax(&child, depth - 1, score - beta, score - alpha, ply + 1);
        (score - v, p)
    }

    /// Make the line from `ply` the move `c`, then the line searched below it (none when it ends
    /// the game or its child was a horizon leaf).
    #[inline]
    fn record_pv(&mut self, ply: usize, c: &Candidate, depth: u32) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply].clear();
        head[ply].push(c.mv);
        if c.terminal.is_none() && depth > 1 {
            head[ply].extend_from_slice(&tail[0]);
        }
    }

    /// The position after `c` from `node`, the sides swapped, its hash updated by the squares,
    /// racks, count and bag size that changed.
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

    /// The value for `node`'s side to move (its bag empty) of the game played out from it, each
    /// side making its best play by what it gains at once (a play that goes out gains the
    /// opponent's rack twice over): [`EndgameLimits::leaf_playout`]. Each turn counts as a node.
    fn playout(&mut self, node: &Node) -> i32 {
        let mut board = node.board.clone();
        let mut racks = node.racks;
        let mut zeros = node.zeros;
        let (mut value, mut sign) = (0, 1);
        // A turn of each side for every tile, and the scoreless turns: the game has ended by then.
        let turns = 2 * (racks[0].len() + racks[1].len()) + self.limit as usize;
        for _ in 0..turns {
            self.nodes += 1;
            let opp = self.rules.rack_total(&racks[1]);
            let mut best: Option<(i32, crate::play::Play)> = None;
            let rack = racks[0];
            crate::movegen::generate(
                &board,
                &rack,
                self.dawg,
                crate::movegen::Mode::Both,
                &mut |play: &crate::play::Play, score: i32| {
                    let gain = if play.tiles_placed() == rack.len() { score + 2 * opp } else { score };
                    if best.is_none_or(|(g, _)| gain > g) {
                        best = Some((gain, *play));
                    }
                },
            );
            match best {
                Some((gain, play)) => {
                    let placements: Vec<_> = play.placements().map(|p| (p.row, p.col, p.tile)).collect();
                    for p in play.placements() {
                        racks[0].take_tile(p.tile);
                    }
                    value += sign * gain;
                    if racks[0].is_empty() {
                        return value;
                    }
                    board.place(&placements, self.dawg);
                    zeros = 0;
                }
                None => {
                    zeros += 1;
                    if zeros >= self.limit {
                        return value + sign * (opp - self.rules.rack_total(&racks[0]));
                    }
                }
            }
            racks.swap(0, 1);
            sign = -sign;
        }
        value + sign * (self.rules.rack_total(&racks[1]) - self.rules.rack_total(&racks[0]))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endgame::EndgameLimits;
    use crate::notation::parse_play;
    use crate::rules::RulesetKind;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    /// A node that must generate asks the budget first, however few nodes have passed since it
    /// was last asked: one generation can cost a thousand nodes' time (a 442 ms move at a 250 ms
    /// budget, an opponent holding two blanks, before this was asked).
    #[test]
    fn a_spent_budget_stops_the_search_before_a_generation() {
        let kind = RulesetKind::english();
        let lexicon =
            crate::lexicon::Lexicon::compile("t", "cat\ncats\nscat\nat\nta\n", kind.alphabet()).unwrap().0;
        let mut board = Board::new(Arc::new(Ruleset::new(kind)));
        let a = kind.alphabet();
        let cat = parse_play("8H CAT", a).unwrap();
        let placements: Vec<_> = cat.placements().map(|p| (p.row, p.col, p.tile)).collect();
        board.place(&placements, lexicon.dawg());
        let racks = [Rack::parse("SAT", a).unwrap(), Rack::parse("A??", a).unwrap()];
        let position = Position::new(board, racks, 0);
        let stop = Arc::new(AtomicBool::new(true));
        let limits =
            EndgameLimits { budget: Budget::default().or_stop(Some(stop)), ..EndgameLimits::default() };
        let mut solver = Solver::new(10);
        let rules = position.board.rules().clone();
        let (mut s, root) = solver.search(&position, lexicon.dawg(), &limits, &rules);
        s.can_abort = true;
        // The last look was just now, by the count.
        s.next_check = CHECK_EVERY;
        let _ = s.negamax(&root, 2, -INFINITY, INFINITY, 1);
        assert!(s.aborted);
        assert_eq!(s.nodes, 1, "the node was entered, and nothing generated below it");
        // Without a budget to spend, the same node generates and searches its moves.
        let (mut s, root) = solver.search(&position, lexicon.dawg(), &EndgameLimits::default(), &rules);
        s.can_abort = true;
        let _ = s.negamax(&root, 2, -INFINITY, INFINITY, 1);
        assert!(!s.aborted);
        assert!(s.nodes > 1, "{} nodes", s.nodes);
    }
}

//! Move ordering: the moves a node tries before generating its own (the table's move and the
//! ply's out-killer, when legal there), the killers that cut other lines off, and the order of
//! a node's generated moves.

use super::{Candidate, INFINITY, Node, Search};
use crate::alphabet::EMPTY;
use crate::endgame::{Move, draw};
use crate::movegen::{CollectAll, Mode, generate};

/// The moves a node tries before generating its own ([`Search::early`]), at most two.
pub(super) struct Early {
    moves: [Option<Candidate>; 2],
    pub(super) len: usize,
}

impl Early {
    pub(super) fn get(&self, i: usize) -> Option<Candidate> {
        self.moves.get(i).copied().flatten()
    }

    pub(super) fn holds(&self, mv: Move) -> bool {
        self.moves.iter().flatten().any(|c| c.mv == mv)
    }
}

/// Ordering keys, highest first.
pub(super) const ORDER_TABLE: i32 = i32::MAX;
const ORDER_KILLER: i32 = INFINITY / 2;

impl Search<'_> {
    /// Remember the move that cut the search off at `ply`: a play that goes out as the ply's
    /// out-killer, any other move among its two killers.
    pub(super) fn killer(&mut self, ply: usize, c: Candidate) {
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
    pub(super) fn early(
        &self,
        node: &Node,
        table_move: Option<Move>,
        own: i32,
        opp: i32,
        ply: usize,
    ) -> Early {
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
    pub(super) fn candidates(
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
}

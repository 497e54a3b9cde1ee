//! The exact small-case solver: plain minimax over every move, each position's value
//! remembered under its full description. Exponential; what the tests hold the search to.

use super::{Position, draw};
use crate::alphabet::{Letter, Tile};
use crate::board::Board;
use crate::lexicon::Dawg;
use crate::movegen::{CollectAll, Mode, generate};
use crate::rack::Rack;
use crate::rules::Ruleset;
use std::collections::HashMap;

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

//! Static equity: a play's score plus the value of the tiles it keeps, by a [`LeaveModel`]
//! (the ruleset's learned table, another table, or values computed by a function), and the
//! static player that picks the best of it: the strong bot's move, the best subset to keep
//! through an exchange, the leave values simulation and training ask for. The bots
//! ([`crate::bot`]) and the simulation ([`crate::sim`]) both build on it; it knows neither.

use crate::alphabet::Letter;
use crate::game::{Action, Game};
use crate::leaves::{LeaveTable, LeaveValue};
use crate::movegen::{Mode, best_by_equity};
use crate::rack::Rack;
use crate::rules::Ruleset;

/// Which leave values a static bot plays by.
#[derive(Clone, Copy, Debug)]
pub enum LeaveModel<'a> {
    /// A learned table ([`LeaveTable`]).
    Learned(&'a LeaveTable),
    /// Values computed by a function (the lab's hand-tuned baseline, say), for leaves with
    /// tiles still to draw.
    Function(fn(&Ruleset, &Rack) -> f32),
}

/// A leave model with `bag` tiles in the bag: the leave value the searches ask for.
#[derive(Clone, Copy, Debug)]
pub struct LeaveAt<'a> {
    pub model: LeaveModel<'a>,
    pub rules: &'a Ruleset,
    pub bag: usize,
}

impl LeaveValue for LeaveAt<'_> {
    fn value(&self, left: &Rack) -> f32 {
        self.model.value(self.rules, left, self.bag)
    }

    fn table(&self) -> Option<&LeaveTable> {
        match self.model {
            LeaveModel::Learned(table) if self.bag > 0 => Some(table),
            _ => None,
        }
    }
}

impl<'a> LeaveModel<'a> {
    /// The model with `bag` tiles in the bag, as the searches ask it.
    pub fn at(self, rules: &'a Ruleset, bag: usize) -> LeaveAt<'a> {
        LeaveAt { model: self, rules, bag }
    }
}

impl LeaveModel<'static> {
    /// The ruleset's shipped learned table.
    pub fn shipped(rules: &Ruleset) -> LeaveModel<'static> {
        LeaveModel::Learned(LeaveTable::shipped(rules.kind))
    }
}

impl LeaveModel<'_> {
    /// Worth, in points, of keeping `left` for the next turn with `bag` tiles in the bag. With
    /// the bag empty the tiles will only count against the holder, so they cost twice their
    /// value.
    pub fn value(&self, rules: &Ruleset, left: &Rack, bag: usize) -> f32 {
        if bag == 0 {
            return -2.0 * rules.rack_total(left) as f32;
        }
        match self {
            LeaveModel::Function(f) => f(rules, left),
            LeaveModel::Learned(table) => table.value(left),
        }
    }

    /// A play's static equity: its score plus the value of the tiles it leaves on `rack`.
    pub fn play_equity(
        &self,
        rules: &Ruleset,
        rack: &Rack,
        play: &crate::play::Play,
        score: i32,
        bag: usize,
    ) -> f32 {
        let mut left = *rack;
        for p in play.placements() {
            left.take_tile(p.tile);
        }
        score as f32 + self.value(rules, &left, bag)
    }
}

/// The static bot's action for `seat` playing by `leaves` (the strong bot with its shipped
/// table; `dawgref train leaves` with the table it is learning from).
pub fn static_action(game: &Game, seat: usize, leaves: LeaveModel) -> Action {
    if game.awaiting_final_challenge() {
        return Action::Pass;
    }
    let Some(rack) = game.rack(seat).copied() else { return Action::Pass };
    let rules = game.config().rules.clone();
    let can_exchange = game.bag_len() >= rules.options.exchange_limit as usize && !rack.is_empty();
    strong(game, &rules, rack, can_exchange, leaves)
}

/// Equity = score + leave value; also consider exchanging for the best subset to keep.
pub(crate) fn strong(
    game: &Game,
    rules: &Ruleset,
    rack: Rack,
    can_exchange: bool,
    leaves: LeaveModel,
) -> Action {
    let bag = game.bag_len();
    // Best-first: the play full generation would rank first (ties by its stable order, so the
    // choice is deterministic), at about half its time.
    let best =
        best_by_equity(game.board(), &rack, game.config().lexicon.dawg(), Mode::Both, leaves.at(rules, bag));
    if can_exchange {
        let (keep_value, keep) = best_keep_by(rules, &rack, bag, leaves);
        let play_equity = best.map_or(f32::NEG_INFINITY, |(e, _)| e);
        if keep_value > play_equity {
            let mut throw = rack;
            throw.remove_all(&keep);
            if !throw.is_empty() {
                return Action::Exchange(throw);
            }
        }
    }
    match best {
        Some((_, p)) => Action::Play(p.play),
        None if can_exchange => Action::Exchange(rack),
        None => Action::Pass,
    }
}

/// The subset of the rack most worth keeping through an exchange, and its value, by the
/// shipped leave values.
pub(crate) fn best_keep(rules: &Ruleset, rack: &Rack, bag: usize) -> (f32, Rack) {
    best_keep_by(rules, rack, bag, LeaveModel::shipped(rules))
}

pub(crate) fn best_keep_by(rules: &Ruleset, rack: &Rack, bag: usize, leaves: LeaveModel) -> (f32, Rack) {
    let tiles: Vec<Option<Letter>> = rack.tiles().collect();
    let mut best = (f32::NEG_INFINITY, Rack::new());
    for mask in 0u32..(1 << tiles.len()) {
        if mask.count_ones() as usize == tiles.len() {
            continue; // keeping everything is not an exchange
        }
        let keep = Rack::subset(&tiles, mask as u64);
        let v = leaves.value(rules, &keep, bag);
        if v > best.0 {
            best = (v, keep);
        }
    }
    best
}

/// Worth, in points, of keeping `left` for the next turn, by the ruleset's shipped learned
/// table ([`LeaveModel::value`]).
pub fn leave_value(rules: &Ruleset, left: &Rack, bag: usize) -> f32 {
    LeaveModel::shipped(rules).value(rules, left, bag)
}

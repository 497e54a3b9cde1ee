//! Computer players built on the move generator, from weak to strong:
//! - [`BotLevel::Weak`]: a random play among the ten best-scoring (seeded, so reproducible);
//! - [`BotLevel::Greedy`]: the top-scoring play, Appel & Jacobson's program;
//! - [`BotLevel::Strong`]: score plus the value of the tiles kept, learned from self-play per
//!   ruleset ([`crate::leaves`]), and an exchange when keeping the best tiles is worth more than
//!   any play.
//! - [`BotLevel::Classic`]: the same with the hand-tuned leave values the strong bot had before
//!   (AJ88 §7.4, Gordon's rack heuristics); kept to measure the learned ones against
//!   (`dawgref match --bots strong,classic`), not offered through the API.
//! - [`BotLevel::Champion`]: in a two-seat game, a Monte Carlo simulation of the strong bot's
//!   best candidates ([`crate::sim`]) within a time budget, and once the bag is empty the exact
//!   endgame search ([`crate::endgame`]); with more seats it plays as the strong bot.
//!
//! A bot never plays a phony, and challenges a play only when it forms an invalid word (it knows
//! the lexicon, so a challenge of a valid play could only cost it).

use crate::alphabet::{Alphabet, Letter};
use crate::bag::SplitMix64;
use crate::game::{Action, Game};
use crate::leaves::{LeaveTable, LeaveValue};
use crate::movegen::{Mode, TopN, best_by_equity, generate};
use crate::rack::Rack;
use crate::rules::Ruleset;
use crate::sim;
use std::time::{Duration, Instant};

/// How well a computer seat plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BotLevel {
    Weak,
    Greedy,
    Strong,
    Champion,
    Classic,
}

/// The champion's thinking time per move when nobody says otherwise.
pub const CHAMPION_BUDGET: Duration = Duration::from_millis(1000);

impl BotLevel {
    pub const ALL: [BotLevel; 4] = [BotLevel::Weak, BotLevel::Greedy, BotLevel::Strong, BotLevel::Champion];

    pub const fn name(self) -> &'static str {
        match self {
            BotLevel::Weak => "weak",
            BotLevel::Greedy => "greedy",
            BotLevel::Strong => "strong",
            BotLevel::Champion => "champion",
            BotLevel::Classic => "classic",
        }
    }
}

impl std::str::FromStr for BotLevel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        BotLevel::ALL
            .into_iter()
            .chain([BotLevel::Classic])
            .find(|l| l.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown bot level {s:?} (expected weak, greedy, strong or champion)"))
    }
}

/// Whether `seat` should challenge the last play: only when it forms a word not in the lexicon.
pub fn wants_to_challenge(game: &Game, seat: usize) -> bool {
    let Some((player, play)) = game.challengeable() else { return false };
    if player == seat {
        return false;
    }
    // The play is on the board now; its words are read back from the history.
    let lexicon = &game.config().lexicon;
    game.history()
        .iter()
        .rev()
        .find_map(|e| match &e.kind {
            crate::game::EventKind::Play { play: p, words } if p == play && e.seat == player => Some(words),
            _ => None,
        })
        .is_some_and(|words| words.iter().any(|w| lexicon.contains_str(w) != Ok(true)))
}

/// The action `seat` takes on its turn (the caller has checked it is the seat's turn). When the
/// last play went out and awaits acceptance, the answer is a pass (challenging is separate).
/// The champion thinks for [`CHAMPION_BUDGET`].
pub fn choose_action(game: &Game, seat: usize, level: BotLevel) -> Action {
    choose_action_within(game, seat, level, CHAMPION_BUDGET)
}

/// [`choose_action`], with the champion's thinking time (the other levels do not search).
pub fn choose_action_within(game: &Game, seat: usize, level: BotLevel, budget: Duration) -> Action {
    if game.awaiting_final_challenge() {
        return Action::Pass;
    }
    let Some(rack) = game.rack(seat).copied() else { return Action::Pass };
    let rules = game.config().rules.clone();
    let dawg = game.config().lexicon.dawg();
    let can_exchange = game.bag_len() >= rules.options.exchange_limit as usize && !rack.is_empty();
    let mut rng = SplitMix64::new(
        game.config().seed ^ (game.turn() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seat as u64,
    );
    match level {
        BotLevel::Weak | BotLevel::Greedy => {
            let n = if level == BotLevel::Weak { 10 } else { 1 };
            let mut top = TopN::new(n);
            generate(game.board(), &rack, dawg, Mode::Both, &mut top);
            let plays = top.into_sorted();
            if plays.is_empty() {
                return if can_exchange { Action::Exchange(rack) } else { Action::Pass };
            }
            let pick = if level == BotLevel::Weak { rng.below(plays.len() as u64) as usize } else { 0 };
            Action::Play(plays[pick].play)
        }
        BotLevel::Strong => strong(game, &rules, rack, can_exchange, LeaveModel::shipped(&rules)),
        BotLevel::Classic => strong(game, &rules, rack, can_exchange, LeaveModel::Classic),
        BotLevel::Champion => champion(game, seat, &rules, rack, can_exchange, budget),
    }
}

/// The champion's thinking time for `seat`'s move at game time `now_ms`: [`CHAMPION_BUDGET`],
/// or less when the game has clocks, so that the bot never runs out of time: three quarters
/// of its time left (plus most of an increment) shared over the moves it may still have to
/// make, about one for every eight tiles still to be played.
pub fn champion_budget(game: &Game, seat: usize, now_ms: u64) -> Duration {
    let Some(clocks) = game.clocks() else { return CHAMPION_BUDGET };
    let left = clocks.remaining_ms(seat, now_ms);
    if left <= 0 {
        return Duration::from_millis(20);
    }
    let tiles = game.bag_len() + 2 * game.config().rules.rack_size;
    let moves = (tiles / 8 + 2) as i64;
    let increment = game.config().clock.as_ref().map_or(0, |c| c.increment_ms) as i64;
    // A quarter of the time left is kept back: the budget is thinking time, and the move still
    // has to travel, be committed and wait for a thread.
    let share = left * 3 / 4 / moves + increment * 4 / 5;
    Duration::from_millis(share.clamp(20, CHAMPION_BUDGET.as_millis() as i64) as u64)
}

/// Candidates simulated by the champion (the best exchange comes on top). Fewer than analysis's
/// 10: a move's budget buys a few dozen iterations, better spent on the likely best.
const CHAMPION_CANDIDATES: usize = 6;

/// With this few tiles in the bag, the champion's simulated lines go on to the end of the game:
/// the next draws may empty the bag, and then what each side can still play out decides the
/// game, which two plies and a leave value do not see.
const PLAY_OUT_BAG: usize = 7;
/// Turns enough for a line from [`PLAY_OUT_BAG`] tiles to end the game (a line that has not
/// ended by then is valued as any other).
const PLAY_OUT_PLIES: usize = 24;

/// Simulate the best candidates until one is clearly best or the budget is spent; with the bag
/// empty, search the endgame. More than two seats: the strong bot's move.
fn champion(
    game: &Game,
    seat: usize,
    rules: &Ruleset,
    rack: Rack,
    can_exchange: bool,
    budget: Duration,
) -> Action {
    let deadline = Instant::now() + budget;
    let dawg = game.config().lexicon.dawg();
    if let Some(position) = crate::endgame::Position::from_game(game) {
        let search = crate::endgame::Budget { deadline: Some(deadline), ..Default::default() };
        return match crate::endgame::solve(&position, dawg, search).pv.first() {
            Some(crate::endgame::Move::Play { play, .. }) => Action::Play(*play),
            _ => Action::Pass,
        };
    }
    let params = sim::Params {
        seed: game.config().seed ^ (game.turn() as u64).wrapping_mul(0xD1B5_4A32_D192_ED03) ^ seat as u64,
        candidates: CHAMPION_CANDIDATES,
        plies: if game.bag_len() <= PLAY_OUT_BAG { PLAY_OUT_PLIES } else { sim::Params::default().plies },
    };
    let Some(setup) = sim::Setup::from_game(game, seat, params) else {
        return strong(game, rules, rack, can_exchange, LeaveModel::shipped(rules));
    };
    let limits = sim::Budget { deadline: Some(deadline), ..Default::default() };
    let tally = sim::simulate(&setup, dawg, &limits, |_| true);
    sim::choice(&setup, &tally).action.clone()
}

/// Which leave values a static bot plays by.
#[derive(Clone, Copy, Debug)]
pub enum LeaveModel<'a> {
    /// The hand-tuned values (see [`BotLevel::Classic`]).
    Classic,
    /// A learned table ([`LeaveTable`]).
    Learned(&'a LeaveTable),
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
            LeaveModel::Classic => classic_leave(rules, left),
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
fn strong(game: &Game, rules: &Ruleset, rack: Rack, can_exchange: bool, leaves: LeaveModel) -> Action {
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

fn best_keep_by(rules: &Ruleset, rack: &Rack, bag: usize, leaves: LeaveModel) -> (f32, Rack) {
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

/// The hand-tuned leave values: a value per letter, less for duplicates and for a leave short
/// of vowels or of consonants.
fn classic_leave(rules: &Ruleset, left: &Rack) -> f32 {
    let alphabet = rules.alphabet;
    let mut value = left.blanks() as f32 * if alphabet == Alphabet::English { 24.0 } else { 18.0 };
    let (mut vowels, mut consonants) = (0i32, 0i32);
    for l in 0..alphabet.len() as Letter {
        let n = left.count(l);
        if n == 0 {
            continue;
        }
        value += n as f32 * letter_leave(rules, l);
        value -= (n as f32 - 1.0).max(0.0) * 3.5;
        if crate::leaves::is_vowel(alphabet, l) {
            vowels += n as i32;
        } else {
            consonants += n as i32;
        }
    }
    value -= 2.0 * ((vowels - consonants).abs() - 1).max(0) as f32;
    value
}

fn letter_leave(rules: &Ruleset, l: Letter) -> f32 {
    if rules.alphabet == Alphabet::English {
        // A–Z, after the single-tile values of common rack-leave tables.
        const EN: [f32; 26] = [
            0.5, -2.0, -0.5, 0.0, 1.0, -2.0, -2.5, 0.5, -0.5, -2.5, -1.5, -0.5, -0.5, 0.0, -1.5, -1.0, -7.0,
            1.0, 7.5, 0.0, -3.0, -5.0, -3.5, 3.0, -1.0, 3.0,
        ];
        return EN[l as usize];
    }
    // Elsewhere: cheap letters are flexible, dear ones are hard to place.
    1.5 - 0.9 * rules.letter_value(l) as f32
}

/// Play a game to its end with a bot in every seat (`levels[seat]`), each action `step_ms`
/// after the last. Before each turn, every other bot may challenge the last play. `observe`
/// sees the game after every action. Returns the number of actions taken.
pub fn play_out(
    game: &mut Game,
    levels: &[BotLevel],
    step_ms: u64,
    mut observe: impl FnMut(&Game),
) -> Result<u64, crate::game::GameError> {
    play_while(game, levels, step_ms, |g| {
        observe(g);
        true
    })
}

/// [`play_out`], stopping early after the first action for which `go_on` says false (a bag
/// just emptied, say). Returns the number of actions taken.
pub fn play_while(
    game: &mut Game,
    levels: &[BotLevel],
    step_ms: u64,
    go_on: impl FnMut(&Game) -> bool,
) -> Result<u64, crate::game::GameError> {
    play_while_within(game, levels, step_ms, CHAMPION_BUDGET, go_on)
}

/// [`play_while`], with the champion's thinking time per move.
pub fn play_while_within(
    game: &mut Game,
    levels: &[BotLevel],
    step_ms: u64,
    budget: Duration,
    mut go_on: impl FnMut(&Game) -> bool,
) -> Result<u64, crate::game::GameError> {
    let mut now = game.history().last().map_or(0, |e| e.time_ms);
    let mut actions = 0;
    while !game.is_over() {
        now += step_ms;
        let seats = game.config().seats;
        let challenger = game.challengeable().and_then(|(player, _)| {
            // Opponents in turn order from the seat to move.
            (0..seats)
                .map(|k| (game.to_move() + k) % seats)
                .find(|&s| s != player && wants_to_challenge(game, s))
        });
        match challenger {
            Some(s) => {
                game.challenge(s, now)?;
            }
            None => {
                let seat = game.to_move();
                let action = choose_action_within(game, seat, levels[seat % levels.len()], budget);
                game.act(seat, action, now)?;
            }
        }
        actions += 1;
        if !go_on(game) {
            break;
        }
    }
    Ok(actions)
}

/// One two-seat game of `a` (in `a_seat`) against `b` under `challenge`, bag seeded by `seed`;
/// `a`'s final spread.
pub fn duel(
    rules: std::sync::Arc<Ruleset>,
    lexicon: std::sync::Arc<crate::lexicon::Lexicon>,
    seed: u64,
    levels: (BotLevel, BotLevel),
    a_seat: usize,
    challenge: crate::game::ChallengeRule,
) -> Result<i32, crate::game::GameError> {
    duel_within(rules, lexicon, seed, levels, a_seat, challenge, CHAMPION_BUDGET)
}

/// [`duel`], with the champion's thinking time per move.
pub fn duel_within(
    rules: std::sync::Arc<Ruleset>,
    lexicon: std::sync::Arc<crate::lexicon::Lexicon>,
    seed: u64,
    (a, b): (BotLevel, BotLevel),
    a_seat: usize,
    challenge: crate::game::ChallengeRule,
    budget: Duration,
) -> Result<i32, crate::game::GameError> {
    let mut config = crate::game::GameConfig::new(rules, lexicon, seed);
    config.challenge = challenge;
    let a_seat = a_seat % 2;
    let mut levels = [b; 2];
    levels[a_seat] = a;
    let mut game = Game::new(config)?;
    play_while_within(&mut game, &levels, 1000, budget, |_| true)?;
    let s = game.scores();
    Ok(s[a_seat] - s[1 - a_seat])
}

/// One game of the strong bot against greedy, seats alternating with the seed's parity; the
/// strong bot's final spread.
pub fn strong_vs_greedy(
    rules: std::sync::Arc<Ruleset>,
    lexicon: std::sync::Arc<crate::lexicon::Lexicon>,
    seed: u64,
) -> i32 {
    let levels = (BotLevel::Strong, BotLevel::Greedy);
    duel(rules, lexicon, seed, levels, (seed % 2) as usize, crate::game::ChallengeRule::Double)
        .expect("bots only make legal moves in a two-seat game of a shipped ruleset")
}

//! Computer players built on the move generator, from weak to strong:
//! - [`BotLevel::Weak`]: a random play among the ten best-scoring (seeded, so reproducible);
//! - [`BotLevel::Greedy`]: the top-scoring play, Appel & Jacobson's program;
//! - [`BotLevel::Strong`]: score plus the value of the tiles kept, learned from self-play per
//!   ruleset ([`crate::leaves`]), and an exchange when keeping the best tiles is worth more than
//!   any play.
//! - [`BotLevel::Champion`]: in a two-seat game, a Monte Carlo simulation of the strong bot's
//!   best candidates ([`crate::sim`]) within a time budget, the opponent's rack drawn from what
//!   its last move says it kept ([`crate::infer`]); with one or two tiles in the bag the
//!   pre-endgame ([`crate::pre_endgame`]); once the bag is empty the exact endgame search
//!   ([`crate::endgame`]). With more seats it plays as the strong bot.
//!
//! Self-play ([`play_while`], [`duel`]) seats [`Player`]s: a level, or the static bot by leave
//! values of the caller's (the lab's baselines and the tables it is trying).
//!
//! A bot never plays a phony, and challenges a play only when it forms an invalid word (it knows
//! the lexicon, so a challenge of a valid play could only cost it).

use crate::bag::SplitMix64;
use crate::budget::Budget;
use crate::equity::{LeaveModel, static_action, strong};
use crate::game::{Action, Game};
use crate::movegen::{Mode, TopN, generate};
use crate::rack::Rack;
use crate::rules::Ruleset;
use crate::sim;
use std::time::{Duration, Instant};

/// Who decides a seat's moves in self-play.
#[derive(Clone, Copy, Debug)]
pub enum Player<'a> {
    /// A computer player of the server's.
    Bot(BotLevel),
    /// The static bot (score plus leave) by these leave values.
    Static(LeaveModel<'a>),
    /// The champion thinking by other options than its own (the lab's frozen baselines).
    Champion(ChampionOptions),
}

impl From<BotLevel> for Player<'_> {
    fn from(level: BotLevel) -> Self {
        Player::Bot(level)
    }
}

impl Player<'_> {
    /// The action `seat` takes on its turn; `budget` is the champion's thinking time.
    pub fn action(self, game: &Game, seat: usize, budget: Duration) -> Action {
        match self {
            Player::Bot(level) => choose_action_within(game, seat, level, budget),
            Player::Static(leaves) => static_action(game, seat, leaves),
            Player::Champion(options) => champion_action(game, seat, budget, &options),
        }
    }
}

/// How well a computer seat plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BotLevel {
    Weak,
    Greedy,
    Strong,
    Champion,
}

/// The champion's thinking time per move when nobody says otherwise.
pub const CHAMPION_BUDGET: Duration = Duration::from_millis(1000);

impl BotLevel {
    pub const ALL: [BotLevel; 4] = [BotLevel::Weak, BotLevel::Greedy, BotLevel::Strong, BotLevel::Champion];

    /// The model rack inference judges this bot's actions by: [`crate::infer::Params::STATIC_PLAYER`]
    /// for the `strong` bot, which chooses by static equity; the defaults for the others (one
    /// plays by score alone, one at random, the champion looks ahead), as for a person.
    pub fn judged_by(self) -> crate::infer::Params {
        match self {
            BotLevel::Strong => crate::infer::Params::STATIC_PLAYER,
            BotLevel::Weak | BotLevel::Greedy | BotLevel::Champion => crate::infer::Params::default(),
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            BotLevel::Weak => "weak",
            BotLevel::Greedy => "greedy",
            BotLevel::Strong => "strong",
            BotLevel::Champion => "champion",
        }
    }
}

impl std::str::FromStr for BotLevel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        BotLevel::ALL
            .into_iter()
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
        BotLevel::Champion => {
            let options = ChampionOptions::for_rules(&rules);
            champion(game, seat, &rules, rack, can_exchange, budget, &options)
        }
    }
}

/// The champion's action for `seat` thinking by `options` for `budget`.
pub fn champion_action(game: &Game, seat: usize, budget: Duration, options: &ChampionOptions) -> Action {
    if game.awaiting_final_challenge() {
        return Action::Pass;
    }
    let Some(rack) = game.rack(seat).copied() else { return Action::Pass };
    let rules = game.config().rules.clone();
    let can_exchange = game.bag_len() >= rules.options.exchange_limit as usize && !rack.is_empty();
    champion(game, seat, &rules, rack, can_exchange, budget, options)
}

/// The champion's thinking time for `seat`'s move at game time `now_ms`, when it may think
/// for `think` a move: `think` without clocks; with clocks at most that, and less when its
/// own time is short, so that it never runs out: three quarters of its time left shared over
/// the moves it may still have to make (about one for every eight tiles still to be played),
/// plus most of an increment. Never less than 20 ms, and never more than a tenth of the time
/// left once that is below a second a move.
pub fn champion_budget(game: &Game, seat: usize, now_ms: u64, think: Duration) -> Duration {
    let think_ms = think.as_millis().clamp(1, i64::MAX as u128) as i64;
    let Some(clocks) = game.clocks() else { return think };
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
    Duration::from_millis(share.clamp(20, think_ms.max(20)) as u64)
}

/// How the champion thinks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChampionOptions {
    /// Candidates simulated from the static ranking (the best exchange comes on top).
    pub candidates: usize,
    /// Candidates ranked after those, entering the race a few at a time when it is won with
    /// time to spare ([`sim::Params::reserve`]).
    pub reserve: usize,
    /// When the simulation rules a candidate out.
    pub race: sim::Race,
    /// Iterations at most (`u32::MAX`: the budget and the race decide).
    pub max_iterations: u32,
    /// Draw the opponent's rack from what its last play, exchange or pass says it kept, by
    /// this model ([`crate::infer`]); None: blindly.
    pub infer: Option<crate::infer::Params>,
    /// With this many tiles in the bag or fewer (0: never), search the pre-endgame
    /// ([`crate::pre_endgame`]) instead of simulating.
    pub pre_endgame_bag: usize,
    /// How far, in standard errors, the simulation's leader must be ahead of the static best
    /// to be played instead ([`sim::choice_at`]).
    pub switch_z: f64,
    /// The endgame search values the positions at its depth limit by playing them out
    /// ([`crate::endgame::EndgameLimits::leaf_playout`]).
    pub endgame_playout: bool,
}

impl ChampionOptions {
    /// The champion's options in a ruleset. In Эрудит it does not infer the opponent's rack:
    /// there the champion with inference lost to its frozen predecessor (45.7% ± 2.2 of 500
    /// games at 250 ms) and without it won (52.8% ± 2.2, same deals; BENCHMARKS.md, issue 31).
    /// The inference model's parameters were fitted in English only.
    ///
    /// Which rulesets those are is the ruleset's own to say: the ones whose file refuses repeated
    /// words (Эрудит's rule, and of the shipped rulesets only Эрудит's), whatever a game's options
    /// change, so a ruleset file can ask for it.
    pub fn for_rules(rules: &crate::rules::Ruleset) -> ChampionOptions {
        if rules.kind.definition().options.no_repeated_words {
            ChampionOptions { infer: None, ..ChampionOptions::default() }
        } else {
            ChampionOptions::default()
        }
    }
}

impl Default for ChampionOptions {
    fn default() -> ChampionOptions {
        ChampionOptions {
            candidates: CHAMPION_CANDIDATES,
            reserve: CHAMPION_RESERVE,
            race: sim::Race::default(),
            max_iterations: u32::MAX,
            infer: Some(CHAMPION_INFERENCE),
            pre_endgame_bag: PRE_ENDGAME_BAG,
            switch_z: sim::SWITCH_Z,
            endgame_playout: false,
        }
    }
}

/// Candidates simulated by the champion (the best exchange comes on top): the race drops the
/// clearly worse ones early, so the rest of the budget goes to the close ones.
const CHAMPION_CANDIDATES: usize = 10;
/// Candidates in reserve: when the race is won early, the rest of the budget tries them.
const CHAMPION_RESERVE: usize = 20;

/// The champion searches the pre-endgame with this many tiles in the bag or fewer.
pub const PRE_ENDGAME_BAG: usize = 2;
/// Candidates of the pre-endgame (the pass comes on top).
const PRE_ENDGAME_CANDIDATES: usize = 10;

/// How the champion reads its opponent's last move: looser than the model's default (fitted to
/// the static player), since an opponent that looks further often plays a move a few points
/// short of the static best.
const CHAMPION_INFERENCE: crate::infer::Params =
    crate::infer::Params { tolerance: 5.0, spread: 4.0, floor: 0.05 };

/// The share of a move's budget the champion may spend inferring the opponent's leave.
const INFER_SHARE: u32 = 10;

/// With this few tiles in the bag, the champion's simulated lines go on to the end of the game:
/// the next draws may empty the bag, and then what each side can still play out decides the
/// game, which two plies and a leave value do not see.
pub const PLAY_OUT_BAG: usize = 7;
/// Turns enough for a line from [`PLAY_OUT_BAG`] tiles to end the game (a line that has not
/// ended by then is valued as any other).
pub const PLAY_OUT_PLIES: usize = 24;

/// Simulate the best candidates until one is clearly best or the budget is spent; with the bag
/// empty, search the endgame. More than two seats: the strong bot's move.
fn champion(
    game: &Game,
    seat: usize,
    rules: &Ruleset,
    rack: Rack,
    can_exchange: bool,
    budget: Duration,
    options: &ChampionOptions,
) -> Action {
    let started = Instant::now();
    let deadline = started + budget;
    let dawg = game.config().lexicon.dawg();
    if let Some(position) = crate::endgame::Position::from_game(game) {
        let search = crate::endgame::EndgameLimits {
            budget: Budget::until(deadline),
            leaf_playout: options.endgame_playout,
            ..Default::default()
        };
        return crate::endgame::solve(&position, dawg, search).first_action();
    }
    let seed = game.config().seed ^ (game.turn() as u64).wrapping_mul(0xD1B5_4A32_D192_ED03) ^ seat as u64;
    if (1..=options.pre_endgame_bag).contains(&game.bag_len())
        && let Some(setup) = crate::pre_endgame::Setup::from_game(game, PRE_ENDGAME_CANDIDATES)
    {
        let limits = crate::pre_endgame::PreEndgameLimits {
            budget: Budget::until(deadline),
            seed,
            ..Default::default()
        };
        let report = crate::pre_endgame::solve(&setup, dawg, &limits, |_| true);
        return setup.candidates[report.best()].action.clone();
    }
    let params = sim::Params {
        seed,
        candidates: options.candidates,
        reserve: options.reserve,
        plies: if game.bag_len() <= PLAY_OUT_BAG { PLAY_OUT_PLIES } else { sim::Params::default().plies },
    };
    let Some(mut setup) = sim::Setup::from_game(game, seat, params) else {
        return strong(game, rules, rack, can_exchange, LeaveModel::shipped(rules));
    };
    if let Some(model) = options.infer
        && setup.candidates.len() > 1
        && let Some(observation) = crate::infer::Observation::last_of_opponent(game, seat, true)
    {
        let limits = crate::infer::InferLimits {
            budget: Budget::until(started + budget / INFER_SHARE),
            seed,
            ..Default::default()
        };
        if let Ok(inference) = crate::infer::infer(&observation, dawg, model, limits) {
            setup = setup.with_opponent_leaves(&inference.leaves);
        }
    }
    let limits = sim::SimLimits {
        budget: Budget::until(deadline),
        max_iterations: options.max_iterations,
        race: options.race,
        ..Default::default()
    };
    let tally = sim::simulate(&setup, dawg, &limits, |_| true);
    sim::choice_at(&setup, &tally, options.switch_z).action.clone()
}

/// Play a game to its end with a bot in every seat (`levels[seat]`), each action `step_ms`
/// after the last. Before each turn, every other bot may challenge the last play. `observe`
/// sees the game after every action. Returns the number of actions taken.
pub fn play_out<'a>(
    game: &mut Game,
    levels: &[impl Into<Player<'a>> + Copy],
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
pub fn play_while<'a>(
    game: &mut Game,
    levels: &[impl Into<Player<'a>> + Copy],
    step_ms: u64,
    go_on: impl FnMut(&Game) -> bool,
) -> Result<u64, crate::game::GameError> {
    play_while_within(game, levels, step_ms, CHAMPION_BUDGET, go_on)
}

/// [`play_while`], with the champion's thinking time per move.
pub fn play_while_within<'a>(
    game: &mut Game,
    levels: &[impl Into<Player<'a>> + Copy],
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
                let action = levels[seat % levels.len()].into().action(game, seat, budget);
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
    duel_within(rules, lexicon, seed, (levels.0.into(), levels.1.into()), a_seat, challenge, CHAMPION_BUDGET)
}

/// [`duel`], with the champion's thinking time per move.
pub fn duel_within<'a>(
    rules: std::sync::Arc<Ruleset>,
    lexicon: std::sync::Arc<crate::lexicon::Lexicon>,
    seed: u64,
    (a, b): (Player<'a>, Player<'a>),
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

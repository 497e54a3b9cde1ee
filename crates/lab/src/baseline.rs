//! The champion as it played on 2026-11-24, before its time was used well: a frozen baseline
//! for `dawgref-lab match --bots champion,baseline`. It simulates the strong bot's 6 best
//! candidates (and the best exchange), rules a candidate out when the leader is 2.58 standard
//! errors ahead of it (99% for each comparison on its own) after 16 iterations, stops at 2,000
//! iterations, draws the opponent's rack blindly, and simulates with few tiles in the bag
//! instead of searching the pre-endgame. (It shares today's endgame search and move generator:
//! the match measures how the champion thinks, not how fast its parts are.)

use dawgref::bot::{ChampionOptions, Player};
use dawgref::sim::Race;

/// The 2026-11-24 champion's options.
pub const OPTIONS: ChampionOptions = ChampionOptions {
    candidates: 6,
    reserve: 0,
    race: Race { min_iterations: 16, error: 0.01, shared: false, until_spent: false },
    max_iterations: 2_000,
    infer: None,
    pre_endgame_bag: 0,
    switch_z: dawgref::sim::SWITCH_Z,
    endgame_playout: false,
};

/// The baseline as a self-play player.
pub const PLAYER: Player<'static> = Player::Champion(OPTIONS);

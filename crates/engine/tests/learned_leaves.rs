//! The strong bot's learned leave values (`crates/engine/data/leaves/`) against the hand-tuned
//! ones it had before (the `classic` bot), seats alternating, over seeded games: deterministic,
//! so the same seeds always give the same spread. `dawgref match --bots strong,classic` measures
//! it over 2,000 games per ruleset (BENCHMARKS.md).

mod common;

use common::{lexicon, rules};
use dawgref_engine::bot::{BotLevel, duel};
use dawgref_engine::game::ChallengeRule;
use dawgref_engine::rules::RulesetKind;
use std::sync::Arc;

fn mean_spread(kind: RulesetKind, games: u64) -> f64 {
    let lex = Arc::new(lexicon(kind).clone());
    let total: i64 = (1..=games)
        .map(|seed| {
            duel(
                rules(kind),
                lex.clone(),
                seed,
                (BotLevel::Strong, BotLevel::Classic),
                (seed % 2) as usize,
                ChallengeRule::Single,
            )
            .expect("bots make legal moves") as i64
        })
        .sum();
    total as f64 / games as f64
}

#[test]
fn learned_leaves_beat_the_hand_tuned_ones_in_russian() {
    let spread = mean_spread(RulesetKind::Russian, 300);
    println!("russian, strong vs classic over 300 games: {spread:+.1}");
    assert!(spread > 5.0, "mean spread {spread:+.1}");
}

#[test]
fn learned_leaves_beat_the_hand_tuned_ones_in_erudit() {
    let spread = mean_spread(RulesetKind::Erudit, 300);
    println!("erudit, strong vs classic over 300 games: {spread:+.1}");
    assert!(spread > 5.0, "mean spread {spread:+.1}");
}

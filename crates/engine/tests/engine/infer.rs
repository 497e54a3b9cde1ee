//! Rack inference on the strong bot's own plays (their true leaves known), on exchanges and
//! passes, in every ruleset: the probabilities of every leave sum to 1, the letter figures
//! agree with them, and the true leave is one the play fits.

use crate::common::{lexicon, rules};
use dawgref_engine::bot::{BotLevel, play_while};
use dawgref_engine::game::{Action, ChallengeRule, EventKind, Game, GameConfig};
use dawgref_engine::infer::{InferError, InferLimits, Observation, Params, infer, prior};
use dawgref_engine::rack::Rack;
use dawgref_engine::rules::RulesetKind;
use std::sync::Arc;

fn strong_game(kind: RulesetKind, seed: u64) -> Game {
    let lex = Arc::new(lexicon(kind).clone());
    let mut config = GameConfig::new(rules(kind), lex, seed);
    config.challenge = ChallengeRule::Void;
    let mut game = Game::new(config).unwrap();
    play_while(&mut game, &[BotLevel::Strong], 1000, |_| true).unwrap();
    game
}

/// Turn numbers of a game's actions with their events.
fn turns(game: &Game) -> Vec<(u32, dawgref_engine::game::Event)> {
    game.history()
        .iter()
        .filter(|e| e.kind.takes_turn())
        .cloned()
        .enumerate()
        .map(|(t, e)| (t as u32, e))
        .collect()
}

fn true_leave(e: &dawgref_engine::game::Event) -> Rack {
    let mut leave = e.rack;
    match &e.kind {
        EventKind::Play { play, .. } => {
            for p in play.placements() {
                leave.take_tile(p.tile);
            }
        }
        EventKind::Exchange { tiles } => {
            leave.remove_all(tiles);
        }
        _ => {}
    }
    leave
}

#[test]
fn probabilities_sum_to_one_and_the_strong_bots_true_leave_fits_its_play() {
    for kind in RulesetKind::classic() {
        let game = strong_game(kind, 11);
        let dawg = game.config().lexicon.dawg();
        let mut checked = 0;
        // Late plays keep few tiles from a small pool: every leave is valued (exact).
        for (turn, e) in turns(&game).into_iter().rev().take(20) {
            if !matches!(e.kind, EventKind::Play { .. }) || true_leave(&e).len() > 3 {
                continue;
            }
            let observation = Observation::from_game(&game, turn, Some(1 - e.seat)).unwrap();
            let inference = infer(&observation, dawg, Params::default(), InferLimits::default()).unwrap();
            let what = format!("{kind} turn {turn}");
            assert!(inference.exact, "{what}");
            // Every leave is listed here (fewer than the list's bound): their probabilities sum
            // to 1, and each letter's figure is the probability of the leaves holding it.
            assert!(inference.leaves.len() < dawgref_engine::infer::MAX_LISTED, "{what}");
            let total: f64 = inference.leaves.iter().map(|(_, p)| p).sum();
            assert!((total - 1.0).abs() < 1e-9, "{what}: {total}");
            for (l, &chance) in inference.letters.iter().enumerate() {
                let holding: f64 =
                    inference.leaves.iter().filter(|(r, _)| r.count(l as u8) > 0).map(|(_, p)| p).sum();
                assert!((chance - holding).abs() < 1e-9, "{what}: letter {l}: {chance} against {holding}");
            }
            // The strong bot played the best static play of its rack: its leave fits fully, and
            // the model makes it likelier than a blind draw.
            let leave = true_leave(&e);
            assert_eq!(inference.weight(&leave, dawg), 1.0, "{what}: {leave:?}");
            assert!(inference.gain(&leave, dawg) >= 1.0, "{what}");
            let listed = inference.leaves.iter().find(|(r, _)| *r == leave).map(|(_, p)| *p);
            let p = inference.probability(&leave, dawg);
            assert!(listed.is_none_or(|l| (l - p).abs() < 1e-12), "{what}");
            checked += 1;
        }
        assert!(checked >= 2, "{kind}: {checked} plays");
    }
}

#[test]
fn a_leave_that_alone_fits_is_the_most_likely() {
    // The strong bot's plays keep the leave it judged best; among leaves of the same prior,
    // one that fits outweighs one that does not by 1 to the floor (or more).
    let game = strong_game(RulesetKind::english(), 3);
    let dawg = game.config().lexicon.dawg();
    let (turn, e) = turns(&game)
        .into_iter()
        .find(|(_, e)| matches!(e.kind, EventKind::Play { .. }) && true_leave(e).len() >= 2)
        .expect("a play keeping tiles");
    let observation = Observation::from_game(&game, turn, Some(1 - e.seat)).unwrap();
    let params = Params::default();
    let inference = infer(&observation, dawg, params, InferLimits::default()).unwrap();
    let leave = true_leave(&e);
    let (best, p_best) = inference.leaves[0];
    assert_eq!(inference.weight(&best, dawg), 1.0, "the most likely leave fits");
    // Fitting leaves are in proportion to their priors; the others are at most the floor's
    // share of theirs.
    let pool = {
        let mut pool = observation.unseen;
        if let Action::Play(play) = &observation.action {
            for p in play.placements() {
                pool.take_tile(p.tile);
            }
        }
        pool
    };
    let ratio = p_best / prior(&pool, &best);
    for (r, p) in &inference.leaves {
        let w = inference.weight(r, dawg);
        assert!((p / prior(&pool, r) - ratio * w).abs() < 1e-6 * ratio, "{r:?}");
        assert!(w >= params.floor && w <= 1.0);
    }
    assert!(inference.probability(&leave, dawg) > 0.0);
    assert!(p_best >= inference.leaves.iter().map(|(_, p)| *p).fold(0.0, f64::max) - 1e-15);
}

#[test]
fn exchanges_and_passes_are_explained_too() {
    let alphabet_of = |kind: RulesetKind| rules(kind).alphabet;
    let mut exchanges = 0;
    let mut passes = 0;
    for seed in 1..40 {
        let game = strong_game(RulesetKind::english(), seed);
        let dawg = game.config().lexicon.dawg();
        for (turn, e) in turns(&game) {
            let kept = true_leave(&e);
            match e.kind {
                EventKind::Exchange { .. } if exchanges < 2 => {
                    let observation = Observation::from_game(&game, turn, Some(1 - e.seat)).unwrap();
                    assert!(matches!(observation.action, Action::Exchange(_)));
                    let budget = InferLimits { max_valued: 3000, ..InferLimits::default() };
                    let inference = infer(&observation, dawg, Params::default(), budget).unwrap();
                    assert_eq!(inference.leave_size, kept.len());
                    assert!(
                        inference.weight(&kept, dawg) > 0.0,
                        "{}",
                        kept.to_string(alphabet_of(RulesetKind::english()))
                    );
                    exchanges += 1;
                }
                EventKind::Play { .. } if passes < 1 => {
                    // Had the seat passed instead, it would have kept its whole rack: too many
                    // leaves to value each, so they are drawn from the prior.
                    let mut observation = Observation::from_game(&game, turn, None).unwrap();
                    observation.action = Action::Pass;
                    let budget = InferLimits { max_valued: 500, ..InferLimits::default() };
                    let inference = infer(&observation, dawg, Params::default(), budget).unwrap();
                    assert_eq!(inference.leave_size, e.rack.len(), "a pass keeps the whole rack");
                    assert!(!inference.exact && inference.valued == 500 && inference.draws >= 500);
                    assert!(inference.leaves.iter().all(|(r, _)| r.len() == e.rack.len()));
                    passes += 1;
                }
                _ => {}
            }
        }
        if exchanges >= 2 {
            break;
        }
    }
    assert_eq!((exchanges, passes), (2, 1), "exchanges and a pass explained");
    // A turn not yet taken has nothing to explain.
    let game = strong_game(RulesetKind::russian(), 2);
    assert_eq!(
        Observation::from_game(&game, game.turn(), None).unwrap_err(),
        InferError::NoSuchTurn(game.turn())
    );
}

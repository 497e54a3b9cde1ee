//! Simulation: the same draws for every candidate, the same answer for the same seed and
//! worker count, a choice the game accepts, win probabilities that behave, and the champion
//! bot playing whole games in every ruleset.

use crate::common;

use common::{lexicon, rules};
use dawgref_engine::bot::{BotLevel, choose_action_within, play_while, play_while_within};
use dawgref_engine::budget::Budget;
use dawgref_engine::game::{Action, Game, GameConfig};
use dawgref_engine::rules::RulesetKind;
use dawgref_engine::sim::{Params, Race, Setup, SimLimits, Tally, choice, simulate, win_probability};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A two-seat game `turns` actions in (strong bots), with the bag still holding tiles.
fn midgame(kind: RulesetKind, seed: u64, turns: u64) -> Game {
    let lex = Arc::new(lexicon(kind).clone());
    let mut game = Game::new(GameConfig::new(rules(kind), lex, seed)).unwrap();
    let mut n = 0;
    play_while(&mut game, &[BotLevel::Strong], 1000, |_| {
        n += 1;
        n < turns
    })
    .unwrap();
    assert!(game.bag_len() > 0 && !game.is_over());
    game
}

fn capped(iterations: u32, workers: usize) -> SimLimits {
    SimLimits { max_iterations: iterations, workers, ..SimLimits::default() }
}

#[test]
fn every_candidate_meets_the_same_draw_and_the_same_seed_gives_the_same_answer() {
    let game = midgame(RulesetKind::english(), 3, 6);
    let dawg = game.config().lexicon.dawg();
    let params = Params { candidates: 6, plies: 2, seed: 42, reserve: 0 };
    let setup = Setup::from_game(&game, game.to_move(), params).unwrap();
    assert!(setup.candidates.len() >= 2);
    // An iteration is a function of the seed and its number.
    assert_eq!(setup.iteration(5, dawg), setup.iteration(5, dawg));
    assert_ne!(setup.iteration(5, dawg), setup.iteration(6, dawg));
    let one = simulate(&setup, dawg, &capped(96, 1), |_| true);
    let again = simulate(&setup, dawg, &capped(96, 1), |_| true);
    assert_eq!(one.figures, again.figures);
    // Two workers run the same iterations and fold them in the same order.
    let two = simulate(&setup, dawg, &capped(96, 2), |_| true);
    let two_again = simulate(&setup, dawg, &capped(96, 2), |_| true);
    assert_eq!(two.figures, two_again.figures);
    assert_eq!(choice(&setup, &two), choice(&setup, &two_again));
    assert!(one.iterations <= 96 && one.iterations >= 32);
}

#[test]
fn the_choice_is_a_move_the_game_accepts_in_every_ruleset() {
    for kind in RulesetKind::classic() {
        for seed in 0..3 {
            let game = midgame(kind, seed, 4 + seed);
            let me = game.to_move();
            let setup = Setup::from_game(&game, me, Params { seed, ..Params::default() }).unwrap();
            let tally = simulate(&setup, game.config().lexicon.dawg(), &capped(64, 1), |_| true);
            let action = choice(&setup, &tally).action.clone();
            let mut after = game.clone();
            after
                .act(me, action.clone(), 1_000_000)
                .unwrap_or_else(|e| panic!("{kind:?} {seed}: {action:?}: {e}"));
            // Every candidate is one too: the static ranking's plays and the best exchange.
            for c in &setup.candidates {
                let mut g = game.clone();
                g.act(me, c.action.clone(), 1_000_000)
                    .unwrap_or_else(|e| panic!("{kind:?}: {:?}: {e}", c.action));
            }
        }
    }
}

#[test]
fn a_candidate_clearly_behind_is_ruled_out_and_progress_can_stop_the_search() {
    // Positions where some candidates fall behind while the race goes on among the rest (in
    // others all fall at once, or none): the first such of a few seeded mid-games.
    let raced = (1..30)
        .map(|seed| {
            let game = midgame(RulesetKind::english(), seed, 8);
            let setup = Setup::from_game(
                &game,
                game.to_move(),
                Params { candidates: 10, plies: 2, seed: 1, reserve: 0 },
            )
            .unwrap();
            let tally = simulate(&setup, game.config().lexicon.dawg(), &capped(400, 1), |_| true);
            (game, setup, tally)
        })
        .find(|(_, _, tally)| {
            let out = tally.figures.iter().filter(|f| f.out).count();
            out > 0 && out + 1 < tally.figures.len()
        });
    let (game, setup, tally) = raced.expect("in 400 iterations some of 10 candidates fall behind");
    let dawg = game.config().lexicon.dawg();
    let leader = tally.leader();
    assert!(!tally.figures[leader].out);
    for f in tally.figures.iter().filter(|f| f.out) {
        assert!(f.iterations < tally.figures[leader].iterations, "an out candidate stops counting");
    }
    let mut batches = 0;
    let stopped = simulate(&setup, dawg, &capped(400, 1), |_| {
        batches += 1;
        batches < 2
    });
    assert_eq!((batches, stopped.iterations), (2, 16));
}

#[test]
fn win_probabilities_rise_with_the_spread_and_are_final_with_no_tiles_left() {
    for kind in RulesetKind::classic() {
        assert!(win_probability(kind, 30.0, 50) > win_probability(kind, 10.0, 50));
        assert!(
            win_probability(kind, 30.0, 90) < win_probability(kind, 30.0, 10),
            "the same lead is safer late"
        );
        assert!(win_probability(kind, -80.0, 40) < 0.2 && win_probability(kind, 80.0, 40) > 0.8, "{kind:?}");
        // The side to move is ahead of a level score: its turn is still to come.
        assert!(win_probability(kind, 0.0, 60) > 0.5, "{kind:?}");
        assert_eq!(
            (win_probability(kind, 1.0, 0), win_probability(kind, 0.0, 0), win_probability(kind, -1.0, 0)),
            (1.0, 0.5, 0.0)
        );
    }
}

#[test]
fn the_champion_plays_whole_games_in_every_ruleset() {
    for kind in RulesetKind::classic() {
        let lex = Arc::new(lexicon(kind).clone());
        let mut game = Game::new(GameConfig::new(rules(kind), lex, 5)).unwrap();
        let levels = [BotLevel::Champion, BotLevel::Strong];
        play_while_within(&mut game, &levels, 1000, Duration::from_millis(20), |_| true).unwrap();
        assert!(game.is_over(), "{kind:?}");
    }
    // On an exhausted budget it still answers at once with a legal move (the static best).
    let game = midgame(RulesetKind::russian(), 2, 3);
    let me = game.to_move();
    let action = choose_action_within(&game, me, BotLevel::Champion, Duration::ZERO);
    assert!(matches!(action, Action::Play(_) | Action::Exchange(_)));
    game.clone().act(me, action, 1_000_000).unwrap();
}

#[test]
fn the_static_best_is_kept_unless_the_simulation_clearly_prefers_another() {
    let game = midgame(RulesetKind::english(), 3, 6);
    let setup = Setup::from_game(&game, game.to_move(), Params::default()).unwrap();
    let n = setup.candidates.len();
    assert!(n >= 2);
    // Candidate 1 leads by 0.05 in win probability over 8 iterations, but on the same draws it
    // is ahead by 0.25 and behind by 0.15 in turn: well inside one standard error of the
    // difference (0.076), so the static best stays.
    let mut tally = Tally::new(n);
    for i in 0..8 {
        let mut values = vec![(0.5, 0.0); n];
        values[0] = (if i % 2 == 0 { 0.5 } else { 0.6 }, 0.0);
        values[1] = (if i % 2 == 0 { 0.75 } else { 0.45 }, 0.0);
        tally.add(&values);
    }
    assert!((tally.difference(1, 0).win - 0.05).abs() < 1e-9);
    assert_eq!(tally.leader(), 1);
    assert_eq!(choice(&setup, &tally), &setup.candidates[0]);
    // 200 iterations later the same lead is many standard errors: the leader is played.
    for i in 0..200 {
        let mut values = vec![(0.5, 0.0); n];
        values[0] = (0.5 + if i % 2 == 0 { 0.01 } else { -0.01 }, 0.0);
        values[1] = (0.6 + if i % 2 == 0 { 0.01 } else { -0.01 }, 0.0);
        tally.add(&values);
    }
    assert_eq!(choice(&setup, &tally), &setup.candidates[1]);
    // Both swing from 0.1 to 0.9 with the draws and candidate 1 is always 0.01 to 0.03 ahead:
    // each mean alone is uncertain to 0.1, but on the same draws the lead is sure.
    let mut tally = Tally::new(n);
    for i in 0..16 {
        let mut values = vec![(0.0, 0.0); n];
        let swing = if i % 2 == 0 { 0.1 } else { 0.9 };
        values[0] = (swing, 0.0);
        values[1] = (swing + if i % 4 < 2 { 0.01 } else { 0.03 }, 0.0);
        tally.add(&values);
    }
    assert!(tally.figures[1].win_error() > 0.1);
    assert_eq!(choice(&setup, &tally), &setup.candidates[1]);
    // Equal win probabilities: the spread decides, by the same rule.
    let mut tally = Tally::new(n);
    for i in 0..50 {
        let mut values = vec![(1.0, 0.0); n];
        values[0] = (1.0, 10.0 + (i % 3) as f64);
        values[1] = (1.0, 30.0 + (i % 3) as f64);
        tally.add(&values);
    }
    assert_eq!(choice(&setup, &tally), &setup.candidates[1]);
}

#[test]
fn lines_long_enough_play_a_late_position_out_to_a_final_result() {
    // Strong bots until the next draw may empty the bag.
    let lex = Arc::new(lexicon(RulesetKind::english()).clone());
    let mut game = Game::new(GameConfig::new(rules(RulesetKind::english()), lex, 8)).unwrap();
    play_while(&mut game, &[BotLevel::Strong], 1000, |g| g.bag_len() > 7).unwrap();
    assert!((1..=7).contains(&game.bag_len()) && !game.is_over(), "bag {}", game.bag_len());
    let dawg = game.config().lexicon.dawg();
    let me = game.to_move();
    let final_result = |win: f64| win == 0.0 || win == 0.5 || win == 1.0;
    let out = Setup::from_game(&game, me, Params { candidates: 4, plies: 24, seed: 7, reserve: 0 }).unwrap();
    let short = Setup::from_game(&game, me, Params { candidates: 4, plies: 2, seed: 7, reserve: 0 }).unwrap();
    assert!(out.candidates.len() >= 2);
    let mut open = 0;
    for i in 0..8 {
        // Played out, every line ends the game: its value is a win, a draw or a loss, and its
        // spread a whole number of points (no leave values).
        for (win, spread) in out.iteration(i, dawg) {
            assert!(final_result(win) && spread.fract() == 0.0, "iteration {i}: {win} {spread}");
        }
        // Two plies stop short of the end, valued by the leaves and the win table.
        open += short.iteration(i, dawg).iter().filter(|(win, _)| !final_result(*win)).count();
    }
    assert!(open > 0);
}

#[test]
fn a_line_ends_at_the_scoreless_turn_limit_as_the_game_does() {
    for kind in RulesetKind::classic() {
        let game = midgame(kind, 3, 6);
        let dawg = game.config().lexicon.dawg();
        let me = game.to_move();
        let rack = *game.rack(me).unwrap();
        let limit = rules(kind).options.scoreless_turn_limit.turns(2);
        let setup = |zeros, plies| {
            let params = Params { candidates: 2, plies, seed: 9, reserve: 0 };
            Setup::new(game.board(), rack, 0, game.bag_len(), zeros, dawg, params).unwrap()
        };
        let exchange = setup(0, 2)
            .candidates
            .iter()
            .position(|c| matches!(c.action, Action::Exchange(_)))
            .expect("a full bag allows an exchange");
        let (mut differ, iterations) = (0, 20);
        for i in 0..iterations {
            // One scoreless turn short of the limit, the exchange ends the line's game: each
            // side loses its own rack, so the value is whole points and no later ply counts.
            let (short, long) =
                (setup(limit - 1, 2).iteration(i, dawg), setup(limit - 1, 10).iteration(i, dawg));
            let (win, spread) = short[exchange];
            assert_eq!(short[exchange], long[exchange], "{kind} iteration {i}");
            assert_eq!(spread.fract(), 0.0, "{kind} iteration {i}: {spread}");
            assert!([0.0, 0.5, 1.0].contains(&win), "{kind} iteration {i}: {win}");
            // With no scoreless turns before it, the lines go on.
            let (short, long) = (setup(0, 2).iteration(i, dawg), setup(0, 10).iteration(i, dawg));
            differ += usize::from(short[exchange] != long[exchange]);
        }
        assert!(differ > iterations as usize / 2, "{kind}: {differ} of {iterations} lines went on");
    }
}

#[test]
fn a_race_won_with_time_to_spare_goes_on_at_a_stricter_error_when_asked() {
    // Positions whose race at 1% leaves one candidate before the cap, under a deadline far off
    // (the cap ends the search): a race asked to go on until spent takes back what it ruled
    // out and goes further, and stops before the cap only when it is decided again (at the
    // strictest error, `sim::MIN_ERROR`).
    const CAP: u32 = 480;
    let limits = |until_spent| SimLimits {
        budget: Budget::until(Instant::now() + Duration::from_secs(3600)),
        max_iterations: CAP,
        race: Race { until_spent, ..Race::default() },
        ..SimLimits::default()
    };
    let mut went_further = 0;
    let mut won_early = 0;
    for seed in 1..12 {
        let game = midgame(RulesetKind::english(), seed, 8);
        let dawg = game.config().lexicon.dawg();
        let params = Params { candidates: 6, plies: 2, seed: 1, reserve: 0 };
        let setup = Setup::from_game(&game, game.to_move(), params).unwrap();
        let won = simulate(&setup, dawg, &limits(false), |_| true);
        if won.iterations >= CAP || won.live() != 1 {
            continue;
        }
        won_early += 1;
        let went_on = simulate(&setup, dawg, &limits(true), |_| true);
        assert!(went_on.iterations >= won.iterations, "seed {seed}");
        if went_on.iterations > won.iterations {
            went_further += 1;
        }
        // Stopped before the cap: decided (at the strictest error, the only one it stops at).
        assert!(went_on.iterations == CAP || went_on.live() == 1, "seed {seed}");
    }
    assert!(won_early > 0 && went_further > 0, "{won_early} races won early, {went_further} went on");
}

//! The endgame solver against plain minimax on small endgames of every ruleset, and its
//! principal variation played through a real `Game` to the value it promised.

use crate::common;

use common::{lexicon, rules};
use dawgref_engine::bot::{BotLevel, play_while};
use dawgref_engine::budget::Budget;
use dawgref_engine::endgame::{EndgameLimits, Move, PlayableWords, Position, minimax, solve};
use dawgref_engine::game::{Action, ChallengeRule, Game, GameConfig};
use dawgref_engine::lexicon::Dawg;
use dawgref_engine::movegen::{CollectAll, Mode, ScoredPlay, generate};
use dawgref_engine::rules::RulesetKind;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// A game of greedy bots from `seed`, played on past the empty bag until both racks hold at most
/// `max_tiles` tiles; `None` if the game ends first.
fn endgame(kind: RulesetKind, seed: u64, max_tiles: usize) -> Option<Game> {
    let lex = Arc::new(lexicon(kind).clone());
    let mut config = GameConfig::new(rules(kind), lex, seed);
    // Void: a play that goes out ends the game at once (no wait for a challenge).
    config.challenge = ChallengeRule::Void;
    let mut game = Game::new(config).unwrap();
    let small = |g: &Game| g.bag_len() == 0 && (0..2).all(|s| g.rack(s).unwrap().len() <= max_tiles);
    play_while(&mut game, &[BotLevel::Greedy], 1000, |g| !small(g)).unwrap();
    (!game.is_over() && small(&game)).then_some(game)
}

fn spread(game: &Game, seat: usize) -> i32 {
    game.scores()[seat] - game.scores()[1 - seat]
}

/// Play `pv` through `game`: the game must end, at the spread the solver promised.
fn replay(mut game: Game, pv: &[Move], value: i32, what: &str) {
    let me = game.to_move();
    let before = spread(&game, me);
    let mut now = 10_000_000;
    for mv in pv {
        now += 1000;
        let seat = game.to_move();
        game.act(seat, action(*mv), now).unwrap_or_else(|e| panic!("{what}: {mv:?}: {e}"));
    }
    assert!(game.is_over(), "{what}: the principal variation ends the game");
    assert_eq!(spread(&game, me), before + value, "{what}: final spread");
}

#[test]
fn solver_equals_minimax_on_small_endgames_in_every_ruleset() {
    let mut checked = [0usize; 3];
    for (k, kind) in RulesetKind::classic().into_iter().enumerate() {
        let mut seed = 0;
        while checked[k] < 12 {
            seed += 1;
            assert!(seed < 400, "{kind}: too few small endgames");
            let Some(game) = endgame(kind, seed, 4) else { continue };
            let Some(position) = Position::from_game(&game) else { continue };
            let dawg = game.config().lexicon.dawg();
            // The reference is exponential: positions it cannot finish quickly are left out.
            let Some(exact) = minimax(&position, dawg, 100_000) else { continue };
            let solution = solve(&position, dawg, EndgameLimits::default());
            let what = format!("{kind} seed {seed}");
            assert!(solution.exact, "{what}: solved exactly");
            assert_eq!(solution.value, exact, "{what}: the solver's value is minimax's");
            // Valuing the depth limit by a play-out changes what a cut search sees, not what
            // it proves.
            let played_out =
                solve(&position, dawg, EndgameLimits { leaf_playout: true, ..Default::default() });
            assert!(played_out.exact, "{what}: solved exactly with play-outs at the depth limit");
            assert_eq!(played_out.value, exact, "{what}: with play-outs at the depth limit");
            replay(game, &solution.pv, solution.value, &what);
            checked[k] += 1;
        }
    }
    assert_eq!(checked, [12, 12, 12]);
}

#[test]
fn full_racks_searched_to_a_fixed_depth_answer_the_same_legal_move_twice() {
    let mut searched = 0;
    for kind in RulesetKind::classic() {
        for seed in 1..=3 {
            let Some(game) = endgame(kind, seed, 7) else { continue };
            let Some(position) = Position::from_game(&game) else { continue };
            let budget = EndgameLimits { max_depth: 3, ..EndgameLimits::default() };
            let dawg = game.config().lexicon.dawg();
            let first = solve(&position, dawg, budget.clone());
            let again = solve(&position, dawg, budget);
            let what = format!("{kind} seed {seed}");
            assert_eq!(
                (first.value, &first.pv, first.nodes),
                (again.value, &again.pv, again.nodes),
                "{what}"
            );
            assert!(first.depth == 3 || first.exact, "{what}");
            if first.exact {
                replay(game, &first.pv, first.value, &what);
            } else {
                let mut game = game;
                let seat = game.to_move();
                game.act(seat, action(first.pv[0]), 10_000_000).unwrap_or_else(|e| panic!("{what}: {e}"));
            }
            searched += 1;
        }
    }
    assert!(searched >= 7, "{searched} endgames");
}

fn action(mv: Move) -> Action {
    match mv {
        Move::Play { play, .. } => Action::Play(play),
        Move::Pass => Action::Pass,
    }
}

#[test]
fn a_spent_budget_answers_with_the_first_iteration() {
    let game = endgame(RulesetKind::english(), 3, 7).expect("seed 3 reaches an endgame");
    let position = Position::from_game(&game).unwrap();
    let budget = EndgameLimits { budget: Budget::until(Instant::now()), ..EndgameLimits::default() };
    let solution = solve(&position, game.config().lexicon.dawg(), budget);
    assert!(solution.depth >= 1);
    let first = solution.pv.first().copied().expect("a move");
    let mut game = game;
    let seat = game.to_move();
    game.act(seat, action(first), 10_000_000).expect("the move is legal");
}

#[test]
fn a_raised_stop_flag_ends_the_search_after_the_first_iteration() {
    let game = endgame(RulesetKind::english(), 1, 7).expect("seed 1 reaches an endgame");
    let position = Position::from_game(&game).unwrap();
    let stop = Arc::new(AtomicBool::new(true));
    let budget = EndgameLimits { budget: Budget::default().or_stop(Some(stop)), ..EndgameLimits::default() };
    let solution = solve(&position, game.config().lexicon.dawg(), budget);
    // Seed 1's endgame takes over twenty million positions to solve exactly.
    assert!(!solution.exact);
    assert_eq!(solution.depth, 1);
    assert!(!solution.pv.is_empty());
}

/// The budget is asked by the nodes searched since it was last asked, not at multiples of a
/// count: a node above the horizon counts its leaves, which once let a depth-2 iteration run
/// 2.3 s past a 250 ms budget without the count landing on a multiple.
#[test]
fn a_stopped_search_ends_in_its_second_iteration_in_every_endgame() {
    let mut searched = 0;
    for kind in RulesetKind::classic() {
        for seed in 1..=8 {
            let Some(game) = endgame(kind, seed, 7) else { continue };
            let Some(position) = Position::from_game(&game) else { continue };
            let dawg = game.config().lexicon.dawg();
            let first = solve(&position, dawg, EndgameLimits { max_depth: 1, ..EndgameLimits::default() });
            if first.exact {
                continue;
            }
            let stop = Arc::new(AtomicBool::new(true));
            let limits =
                EndgameLimits { budget: Budget::default().or_stop(Some(stop)), ..EndgameLimits::default() };
            let stopped = solve(&position, dawg, limits);
            assert_eq!((stopped.depth, stopped.exact), (1, false), "{kind} seed {seed}");
            assert_eq!(
                stopped.pv.first(),
                first.pv.first(),
                "{kind} seed {seed}: the first iteration's move"
            );
            searched += 1;
        }
    }
    assert!(searched >= 12, "{searched} endgames");
}

#[test]
fn unseen_tiles_are_the_opponents_rack() {
    let game = endgame(RulesetKind::russian(), 2, 7).expect("an endgame");
    let me = game.to_move();
    let unseen = Position::unseen(game.board(), game.rack(me).unwrap()).unwrap();
    assert_eq!(&unseen, game.rack(1 - me).unwrap());
}

#[test]
fn several_lines_are_best_first_each_to_the_end_and_the_first_is_the_one_line_answer() {
    let mut checked = 0;
    for kind in RulesetKind::classic() {
        let mut seed = 0;
        let mut here = 0;
        while here < 4 {
            seed += 1;
            assert!(seed < 400, "{kind}: too few small endgames");
            let Some(game) = endgame(kind, seed, 4) else { continue };
            let Some(position) = Position::from_game(&game) else { continue };
            let dawg = game.config().lexicon.dawg();
            let one = solve(&position, dawg, EndgameLimits::default());
            let three = solve(&position, dawg, EndgameLimits { lines: 3, ..EndgameLimits::default() });
            let what = format!("{kind} seed {seed}");
            assert!(one.exact && three.exact, "{what}");
            assert_eq!((three.value, &three.pv), (one.value, &one.pv), "{what}: the first line");
            assert_eq!(three.lines[0].value, one.value, "{what}");
            assert!(!three.lines.is_empty() && three.lines.len() <= 3, "{what}");
            for pair in three.lines.windows(2) {
                assert!(pair[0].value >= pair[1].value, "{what}: values never increase");
                assert_ne!(pair[0].pv[0], pair[1].pv[0], "{what}: each line has its own first move");
            }
            for (i, line) in three.lines.iter().enumerate() {
                // Every line is exact: played through the game, it ends at the promised spread;
                // and it agrees with minimax on the position after its first move.
                replay(game.clone(), &line.pv, line.value, &format!("{what} line {i}"));
            }
            here += 1;
            checked += 1;
        }
    }
    assert_eq!(checked, 12);
}

/// Every play of `rack` on `board`, sorted, by generation with `dawg`.
fn plays(
    board: &dawgref_engine::board::Board,
    rack: &dawgref_engine::rack::Rack,
    dawg: &Dawg,
) -> Vec<ScoredPlay> {
    let mut all = CollectAll::default();
    generate(board, rack, dawg, Mode::Both, &mut all);
    all.0.sort();
    all.0
}

#[test]
fn the_playable_words_generate_the_full_lexicons_plays_all_the_way_down() {
    let mut nodes = 0;
    for kind in RulesetKind::classic() {
        for seed in 1..=6 {
            let Some(game) = endgame(kind, seed, 7) else { continue };
            let Some(position) = Position::from_game(&game) else { continue };
            let full = game.config().lexicon.dawg();
            let words = PlayableWords::new(&position.board, &position.tiles_to_play(), full);
            let small = words.dawg();
            let what = format!("{kind} seed {seed}");
            assert!(small.word_count() > 0, "{what}");
            assert!(small.word_count() < full.word_count() / 4, "{what}: {} words", small.word_count());
            for word in small.words() {
                assert!(full.contains(&word), "{what}: {word:?} is a word");
            }
            // A line of plays, each side's moves compared at every step, the boards kept with
            // each lexicon's own cross-sets.
            let (mut board_full, mut board_small) = (position.board.clone(), position.board.clone());
            let mut racks = position.racks;
            let mut rng = seed;
            for ply in 0..6 {
                for (side, rack) in racks.iter().enumerate() {
                    let a = plays(&board_full, rack, full);
                    let b = plays(&board_small, rack, small);
                    assert_eq!(a, b, "{what} ply {ply} side {side}: the same plays and scores");
                    nodes += 1;
                }
                let moves = plays(&board_full, &racks[0], full);
                if moves.is_empty() {
                    racks.swap(0, 1);
                    continue;
                }
                rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let chosen = moves[(rng >> 33) as usize % moves.len()];
                let placements: Vec<_> = chosen.play.placements().map(|p| (p.row, p.col, p.tile)).collect();
                for p in chosen.play.placements() {
                    racks[0].take_tile(p.tile);
                }
                board_full.place(&placements, full);
                board_small.place(&placements, small);
                if racks[0].is_empty() {
                    break;
                }
                racks.swap(0, 1);
            }
        }
    }
    assert!(nodes >= 100, "{nodes} positions compared");
}

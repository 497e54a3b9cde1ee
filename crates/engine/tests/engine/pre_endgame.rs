//! The pre-endgame against a brute-force solve of every draw, on small positions: greedy games
//! played past the empty bag until both racks are small, with tiles of the opponent's rack
//! put back in the bag.

use crate::common::{lexicon, rules};
use dawgref_engine::bot::{BotLevel, play_while};
use dawgref_engine::endgame::{Position, minimax};
use dawgref_engine::game::{Action, ChallengeRule, Game, GameConfig};
use dawgref_engine::pre_endgame::{PreEndgameLimits, Setup, scenarios, solve};
use dawgref_engine::rack::Rack;
use dawgref_engine::rules::RulesetKind;
use std::sync::Arc;

/// A greedy game from `seed` past the empty bag with both racks at most `max_tiles`.
fn small_endgame(kind: RulesetKind, seed: u64, max_tiles: usize) -> Option<Game> {
    let lex = Arc::new(lexicon(kind).clone());
    let mut config = GameConfig::new(rules(kind), lex, seed);
    config.challenge = ChallengeRule::Void;
    let mut game = Game::new(config).unwrap();
    let small = |g: &Game| g.bag_len() == 0 && (0..2).all(|s| g.rack(s).unwrap().len() <= max_tiles);
    play_while(&mut game, &[BotLevel::Greedy], 1000, |g| !small(g)).unwrap();
    (!game.is_over() && small(&game)).then_some(game)
}

#[test]
fn every_draw_counted_as_a_brute_force_solve_counts_it() {
    let mut checked = 0;
    for kind in RulesetKind::classic() {
        let mut seed = 0;
        let mut here = 0;
        while here < 3 {
            seed += 1;
            assert!(seed < 500, "{kind}: too few small positions");
            let Some(game) = small_endgame(kind, seed, 3) else { continue };
            let me = game.to_move();
            let (rack, theirs) = (*game.rack(me).unwrap(), *game.rack(1 - me).unwrap());
            // The opponent's rack plus a bag of one or two of its tiles: what the side to move
            // cannot see.
            if theirs.len() < 2 {
                continue;
            }
            let bag_len = 1 + seed as usize % 2.min(theirs.len() - 1);
            let dawg = game.config().lexicon.dawg();
            let spread = game.scores()[me] - game.scores()[1 - me];
            let setup =
                Setup::new(game.board(), rack, theirs, bag_len, spread, game.scoreless_turns(), dawg, 4)
                    .expect("a pre-endgame");
            let report = solve(&setup, dawg, &PreEndgameLimits::default(), |_| true);
            let what = format!("{kind} seed {seed}");
            assert!(report.exact(), "{what}: every draw proven");
            let (all, every) = scenarios(&theirs, bag_len, 200, 0);
            assert!(every);
            assert!(
                (all.iter().map(|s| s.weight).sum::<f64>() - 1.0).abs() < 1e-9,
                "{what}: chances sum to 1"
            );
            let limit = rules(kind).options.scoreless_turn_limit.turns(2);
            for (c, record) in setup.candidates.iter().zip(&report.records) {
                let (mut wins, mut draws, mut losses) = (0.0, 0.0, 0.0);
                for s in &all {
                    let mut opponent = theirs;
                    for t in &s.bag {
                        match t {
                            Some(l) => opponent.take(*l),
                            None => opponent.take_blank(),
                        };
                    }
                    let fin = brute_force(&game, &c.action, rack, opponent, &s.bag, spread, limit);
                    match fin.cmp(&0) {
                        std::cmp::Ordering::Greater => wins += s.weight,
                        std::cmp::Ordering::Equal => draws += s.weight,
                        std::cmp::Ordering::Less => losses += s.weight,
                    }
                }
                let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
                assert!(
                    close(record.wins, wins) && close(record.draws, draws) && close(record.losses, losses),
                    "{what} {:?}: {:?} against brute force {wins} {draws} {losses}",
                    c.action,
                    record
                );
            }
            // The choice has the most wins (a draw counting half).
            let best = report.best();
            for r in &report.records {
                assert!(report.records[best].win_share() >= r.win_share() - 1e-12, "{what}");
            }
            here += 1;
            checked += 1;
        }
    }
    assert_eq!(checked, 9);
}

/// The mover's final spread after `action`, the bag drawn as `bag` (from its end), by minimax.
fn brute_force(
    game: &Game,
    action: &Action,
    rack: Rack,
    opponent: Rack,
    bag: &[Option<dawgref_engine::alphabet::Letter>],
    spread: i32,
    limit: u32,
) -> i32 {
    let rules = game.config().rules.clone();
    let dawg = game.config().lexicon.dawg();
    match action {
        Action::Play(play) => {
            let mut mine = rack;
            for p in play.placements() {
                mine.take_tile(p.tile);
            }
            let mut bag = bag.to_vec();
            for _ in 0..play.tiles_placed().min(bag.len()) {
                match bag.pop().flatten() {
                    Some(l) => mine.add(l),
                    None => mine.add_blank(),
                }
            }
            let score = dawgref_engine::score::evaluate_normalized(game.board(), play).total;
            if mine.is_empty() {
                return spread + score + 2 * rules.rack_total(&opponent);
            }
            let mut board = game.board().clone();
            let placements: Vec<_> = play.placements().map(|p| (p.row, p.col, p.tile)).collect();
            board.place(&placements, dawg);
            let position = Position { board, racks: [opponent, mine], zeros: 0, bag };
            spread + score - minimax(&position, dawg, 2_000_000).expect("small enough")
        }
        _ => {
            if game.scoreless_turns() + 1 >= limit {
                return spread + rules.rack_total(&opponent) - rules.rack_total(&rack);
            }
            let position = Position {
                board: game.board().clone(),
                racks: [opponent, rack],
                zeros: game.scoreless_turns() + 1,
                bag: bag.to_vec(),
            };
            spread - minimax(&position, dawg, 2_000_000).expect("small enough")
        }
    }
}

#[test]
fn a_bag_of_one_has_a_scenario_per_distinct_tile_weighed_by_its_count() {
    let alphabet = dawgref_engine::alphabet::Alphabet::english();
    let unseen = Rack::parse("AAEQ?", alphabet).unwrap();
    let (all, every) = scenarios(&unseen, 1, 200, 0);
    assert!(every);
    let weights: Vec<(String, f64)> = all.iter().map(|s| (tile_text(&s.bag, alphabet), s.weight)).collect();
    assert_eq!(weights, vec![("A".into(), 0.4), ("E".into(), 0.2), ("Q".into(), 0.2), ("?".into(), 0.2)]);
    // Two tiles: ordered draws, 4 × 4 minus the impossible (only one E, one Q, one blank).
    let (two, every) = scenarios(&unseen, 2, 200, 0);
    assert!(every);
    assert_eq!(two.len(), 13);
    assert!((two.iter().map(|s| s.weight).sum::<f64>() - 1.0).abs() < 1e-12);
    // Too many orders: a sample of the size asked, each weighing the same.
    let (sample, every) = scenarios(&unseen, 2, 5, 7);
    assert!(!every);
    assert_eq!(sample.len(), 5);
    assert!(sample.iter().all(|s| (s.weight - 0.2).abs() < 1e-12));
}

fn tile_text(
    bag: &[Option<dawgref_engine::alphabet::Letter>],
    alphabet: dawgref_engine::alphabet::Alphabet,
) -> String {
    bag.iter().map(|t| t.map_or("?", |l| alphabet.label(l))).collect()
}

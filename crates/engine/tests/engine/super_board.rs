//! The 21×21 board (Super English): its quadruple squares scored as the board draws them, plays
//! that only it holds, and every bot to the end of a game on it. Its generator is checked
//! against the brute-force oracle in `movegen_oracle`, and its incremental cross-sets in
//! `board_incremental`.

use crate::common;

use common::{lexicon, rules};
use dawgref_engine::bot::{BotLevel, ChampionOptions, Player, play_out, play_while_within};
use dawgref_engine::game::record::{check_record, guess_ruleset, write_gcg};
use dawgref_engine::game::{Action, Game, GameConfig};
use dawgref_engine::movegen::{Mode, all_plays};
use dawgref_engine::notation::{cgp, format_play, gcg, parse_play, parse_play_on};
use dawgref_engine::play::Problem;
use dawgref_engine::rack::Rack;
use dawgref_engine::rules::{Premium, RulesetKind};
use dawgref_engine::score::evaluate;
use dawgref_engine::validate::validate_play;
use std::sync::Arc;
use std::time::Duration;

fn super_english() -> RulesetKind {
    RulesetKind::by_name("super-english").expect("shipped")
}

#[test]
fn the_board_is_wolges_and_magpie_s_super_board() {
    let r = rules(super_english());
    assert_eq!((r.size(), r.start(), r.total_tiles(), r.blanks), (21, (10, 10), 200, 4));
    let count = |p: Premium| {
        (0..21)
            .flat_map(|row| (0..21).map(move |col| (row, col)))
            .filter(|&(row, col)| r.premium(row, col) == p)
            .count()
    };
    assert_eq!(
        [Premium::QuadrupleWord, Premium::TripleWord, Premium::DoubleWord, Premium::QuadrupleLetter]
            .map(count),
        [4, 16, 41, 8]
    );
    assert_eq!([Premium::TripleLetter, Premium::DoubleLetter].map(count), [20, 36]);
    assert_eq!(
        (r.premium(0, 0), r.premium(2, 5), r.premium(10, 10)),
        (Premium::QuadrupleWord, Premium::QuadrupleLetter, Premium::DoubleWord)
    );
    // Super English plays English's lexicon: the same tiles are the same alphabet.
    assert_eq!(super_english().alphabet(), RulesetKind::english().alphabet());
}

/// Hand-checked scores on the quadruple squares (the board's corner and 3F).
#[test]
fn quadruple_squares_are_scored() {
    let board = dawgref_engine::board::Board::new(rules(super_english()));
    let a = super_english().alphabet();
    // Q on the quadruple word of 1A: (10 + 1) × 4.
    let e = evaluate(&board, &parse_play("1A QI", a).unwrap()).unwrap();
    assert_eq!(e.total, 44);
    // Z on the quadruple letter of 3F, down: 10 × 4 + 1.
    let e = evaluate(&board, &parse_play("F3 ZA", a).unwrap()).unwrap();
    assert_eq!(e.total, 41);
    // A double word (3C) and a quadruple letter (3F) in one word: (8 + 1 + 10 + 10 × 4) × 2.
    let e = evaluate(&board, &parse_play("3C JAZZ", a).unwrap()).unwrap();
    assert_eq!(e.total, 118);
}

/// A play that runs past column O: refused on the 15×15 board (by notation, and by the game
/// when given as tiles), legal and scored on the 21×21 one.
#[test]
fn a_play_off_the_standard_board_is_legal_on_the_super_board() {
    let a = RulesetKind::english().alphabet();
    let text = "11K RETAINS";
    // The English board: the coordinate is on it, the word runs off it at column P.
    assert_eq!(parse_play_on(text, a, 15).unwrap_err().to_string(), "the play runs off the board");
    let play = parse_play(text, a).unwrap();
    let english = dawgref_engine::board::Board::new(rules(RulesetKind::english()));
    let rack = Rack::parse("AEINRST", a).unwrap();
    assert_eq!(
        validate_play(&english, &rack, &play, lexicon(RulesetKind::english())).unwrap_err(),
        vec![Problem::OffBoard { row: 10, col: 15 }]
    );
    // The super board: 11K is its start square (a double word), 11O a double letter.
    // (R E T A I N S: 7 + 1 for the I on 11O) × 2 + 50.
    let board = dawgref_engine::board::Board::new(rules(super_english()));
    let e = validate_play(&board, &rack, &play, lexicon(super_english())).unwrap();
    assert_eq!((e.total, e.bonus), (66, 50));
    // The generator finds it, with that score, and finds nothing off the board's edge.
    let plays = all_plays(&board, &rack, lexicon(super_english()).dawg(), Mode::Both);
    assert!(plays.iter().any(|p| p.play == play && p.score == 66));
    assert!(plays.iter().all(|p| {
        let (row, col) = p.play.square(p.play.len() - 1);
        row < 21 && col < 21
    }));
    assert_eq!(format_play(&play, a), text);
}

/// The first play must cover the start square (11K), not 8H.
#[test]
fn the_first_play_covers_the_start_square() {
    let config = GameConfig::new(rules(super_english()), Arc::new(lexicon(super_english()).clone()), 3);
    let mut game = Game::new(config).unwrap();
    let a = super_english().alphabet();
    let rack = *game.rack(0).unwrap();
    let tiles: Vec<_> = rack.tiles().flatten().take(2).collect();
    let word = a.word_string(&tiles);
    let problems = game.check_play(0, &parse_play(&format!("8H {word}"), a).unwrap()).unwrap_err();
    assert!(problems.contains(&Problem::FirstPlayNotOnStart { row: 10, col: 10 }), "{problems:?}");
    let named = problems.iter().find(|p| matches!(p, Problem::FirstPlayNotOnStart { .. })).unwrap();
    assert_eq!(named.to_string(), "the first play must cover the start square, 11K");
    // Every play the generator offers on the empty board covers 11K.
    let plays = all_plays(game.board(), &rack, lexicon(super_english()).dawg(), Mode::Both);
    assert!(!plays.is_empty());
    assert!(plays.iter().all(|p| p.play.placements().any(|q| (q.row, q.col) == (10, 10))));
    let best = plays[0].play;
    game.act(0, Action::Play(best), 0).unwrap();
    game.check_invariants().unwrap();
}

/// Every bot to the end of a Super English game (the strong bot's static equity, the champion's
/// simulation with rack inference, its pre-endgame and endgame), the GCG replayed to the same
/// scores, and the record's ruleset found from it.
#[test]
fn bots_play_super_english_to_the_end_and_the_gcg_makes_the_round_trip() {
    let kind = super_english();
    let lex = Arc::new(lexicon(kind).clone());
    let rules = rules(kind);
    let mut g = Game::new(GameConfig::new(rules.clone(), lex.clone(), 21)).unwrap();
    play_out(&mut g, &[BotLevel::Strong, BotLevel::Greedy], 1000, |g| g.check_invariants().unwrap()).unwrap();
    assert!(g.is_over());
    assert!(g.history().len() > 40, "{} events: 200 tiles make a long game", g.history().len());
    let text = write_gcg(&g, &["uno".to_string(), "dos".to_string()]);
    let record = gcg::parse(&text).unwrap();
    let report = check_record(&record, rules.clone(), &lex);
    assert_eq!(report.mismatches, vec![], "{text}");
    assert_eq!(report.finals.iter().map(|f| f.1).collect::<Vec<_>>(), g.scores(), "{text}");
    assert_eq!(guess_ruleset(&record, None), Some(kind));

    // The champion (a few iterations a move, so the test is quick) against the strong bot, to
    // the end: its endgame and pre-endgame search the larger board.
    let champion = Player::Champion(ChampionOptions { max_iterations: 24, ..ChampionOptions::default() });
    let mut g = Game::new(GameConfig::new(rules.clone(), lex.clone(), 5)).unwrap();
    let levels = [champion, Player::Bot(BotLevel::Strong)];
    play_while_within(&mut g, &levels, 1000, Duration::from_millis(200), |g| {
        g.check_invariants().unwrap();
        true
    })
    .unwrap();
    assert!(g.is_over());
    // A position of it written as CGP has 21 rows, and reads back to the same board.
    let line = cgp::write(&cgp::from_board(
        g.board(),
        &[Rack::new(), Rack::new()],
        g.scores(),
        0,
        cgp::Ops { ld: Some("super-english".into()), ..cgp::Ops::default() },
    ));
    assert_eq!(line.split(' ').next().unwrap().split('/').count(), 21, "{line}");
    let back = cgp::parse(&line, None).unwrap();
    assert_eq!(back.board(rules.clone(), lex.dawg()), *g.board());
}

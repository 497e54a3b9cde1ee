//! Best-first search returns exactly the play full generation ranks first, ties included, on
//! more than 10,000 positions per ruleset, with and without blanks on the rack, by score alone
//! and by score plus the strong bot's leave value (as a function, and as its model, whose
//! table best-first reads by key).

use crate::common;

use common::{Rng, lexicon, rules};
use dawgref_engine::board::Board;
use dawgref_engine::equity::{LeaveModel, leave_value};
use dawgref_engine::movegen::{Mode, ScoredPlay, best_by_equity, best_by_equity_full};
use dawgref_engine::rack::Rack;
use dawgref_engine::rules::{Ruleset, RulesetKind};
use dawgref_engine::selfplay::greedy_game;

/// The best play by `score + leave`, as full generation ranks them.
fn full(board: &Board, rack: &Rack, leave: &dyn Fn(&Rack) -> f32) -> Option<(f32, ScoredPlay)> {
    best_by_equity_full(board, rack, lexicon(board.rules().kind).dawg(), Mode::Both, leave)
}

/// The rack as dealt, the rack with a blank for one tile, and the rack with its blanks made
/// letters: positions with and without blanks.
fn variants(rack: &Rack, rules: &Ruleset, rng: &mut Rng) -> Vec<Rack> {
    let mut out = vec![*rack];
    let letters: Vec<_> = rack.tiles().flatten().collect();
    if let Some(&l) = letters.get(rng.below(letters.len().max(1))) {
        let mut with_blank = *rack;
        with_blank.take(l);
        with_blank.add_blank();
        out.push(with_blank);
    }
    if rack.blanks() > 0 {
        let mut without = *rack;
        while without.take_blank() {
            without.add(rng.below(rules.alphabet.len()) as u8);
        }
        out.push(without);
    }
    out
}

#[test]
fn english() {
    ten_thousand_positions(RulesetKind::english());
}

#[test]
fn russian() {
    ten_thousand_positions(RulesetKind::russian());
}

#[test]
fn erudit() {
    ten_thousand_positions(RulesetKind::erudit());
}

/// The 21×21 board: its quadruple letter squares count in the bound.
#[test]
fn super_english() {
    positions(RulesetKind::by_name("super-english").unwrap(), 3_000);
}

fn ten_thousand_positions(kind: RulesetKind) {
    positions(kind, 10_000);
}

fn positions(kind: RulesetKind, count: usize) {
    {
        let rules = rules(kind);
        let dawg = lexicon(kind).dawg();
        let mut rng = Rng(kind.ordinal() as u64 + 11);
        let mut positions = Vec::new();
        let mut seed = 0;
        while positions.len() < count {
            seed += 1;
            greedy_game(rules.clone(), dawg, seed, |pos, _| {
                for rack in variants(pos.rack, &rules, &mut rng) {
                    positions.push((pos.board.clone(), rack, pos.bag));
                }
            });
        }
        let (mut with_blanks, mut compared) = (0, 0);
        for (i, (board, rack, bag)) in positions.iter().enumerate() {
            with_blanks += usize::from(rack.blanks() > 0);
            let by_score = |_: &Rack| 0.0;
            let by_leave = |left: &Rack| leave_value(&rules, left, *bag);
            let leaves: [&dyn Fn(&Rack) -> f32; 2] = [&by_score, &by_leave];
            for (which, leave) in leaves.into_iter().enumerate() {
                let expected = full(board, rack, leave);
                let found = best_by_equity(board, rack, dawg, Mode::Both, leave);
                assert_eq!(
                    found,
                    expected,
                    "{kind} position {i} rack {} leave {which}",
                    rack.to_string(rules.alphabet)
                );
                compared += 1;
            }
            // The strong bot's model itself: its leaves are read from its table by keys built
            // one tile at a time (with tiles in the bag), and must be the values it gives.
            let model = LeaveModel::shipped(&rules).at(&rules, *bag);
            let found = best_by_equity(board, rack, dawg, Mode::Both, model);
            assert_eq!(found, full(board, rack, &by_leave), "{kind} position {i}: the model's table");
            compared += 1;
        }
        assert!(
            positions.len() >= count && with_blanks >= count * 3 / 10,
            "{kind}: {} positions, {with_blanks} with blanks",
            positions.len()
        );
        assert_eq!(compared, 3 * positions.len());
    }
}

#[test]
fn a_rack_longer_than_a_line_is_searched_in_full() {
    let kind = RulesetKind::english();
    let board = common::board_with(kind, &["8D WINDY"]);
    let alphabet = kind.alphabet();
    let rack = Rack::parse("AEIOURSTLNDCMPBGH", alphabet).unwrap();
    assert!(rack.len() > 15);
    let by_score = |_: &Rack| 0.0;
    let expected = full(&board, &rack, &by_score);
    assert!(expected.is_some());
    assert_eq!(best_by_equity(&board, &rack, lexicon(kind).dawg(), Mode::Both, by_score), expected);
}

/// A span taking the whole rack is ruled out unless the rack, with the span's board letters,
/// spells a word: the bingos that do exist are still found, through a board letter too.
#[test]
fn bingos_survive_the_test_that_rules_out_the_impossible_ones() {
    let kind = RulesetKind::english();
    let dawg = lexicon(kind).dawg();
    let alphabet = kind.alphabet();
    let by_score = |_: &Rack| 0.0;
    let cases = [
        // RETAINS and its anagrams on the empty board: 7 tiles, one on a double letter, doubled.
        (Board::new(rules(kind)), "AEINRST", (7, 66)),
        // No seven-letter word: the best play keeps tiles.
        (Board::new(rules(kind)), "AEIOUQZ", (4, 44)),
        // Eight letters through a board letter of WINDY (e.g. DETRAINS).
        (common::board_with(kind, &["8D WINDY"]), "AEINRST", (7, 82)),
        // One blank: every letter is tried for it, so its bingos are found, even where the
        // letters alone (AEIOQUZ above) make none.
        (Board::new(rules(kind)), "AEINRS?", (7, 64)),
        (Board::new(rules(kind)), "AEIOUQ?", (7, 100)),
    ];
    for (board, rack, (tiles, score)) in cases {
        let rack = Rack::parse(rack, alphabet).unwrap();
        let expected = full(&board, &rack, &by_score).expect("a play");
        let found = best_by_equity(&board, &rack, dawg, Mode::Both, by_score);
        assert_eq!(found, Some(expected), "rack {}", rack.to_string(alphabet));
        assert_eq!((expected.1.play.placements().count(), expected.1.score), (tiles, score));
    }
}

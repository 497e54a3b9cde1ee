//! Evaluate on hand-checked positions: every total below was worked out by hand from RULES.md.

use crate::common;

use common::{board_with, play};
use dawgref_engine::alphabet::Alphabet;
use dawgref_engine::rules::RulesetKind;
use dawgref_engine::score::evaluate;

fn total(kind: RulesetKind, setup: &[&str], text: &str) -> i32 {
    let b = board_with(kind, setup);
    evaluate(&b, &play(kind.alphabet(), text)).unwrap().total
}

#[test]
fn double_word_twice_quadruples() {
    // C3 A1 R1 (T1 through) O1 O1 N1 = 9; 5E and 5K are both double word: ×4.
    let b = board_with(RulesetKind::english(), &["5H T"]);
    let e = evaluate(&b, &play(Alphabet::english(), "5E CAR.OON")).unwrap();
    assert_eq!(e.total, 36);
    assert_eq!(e.words.len(), 1);
    assert_eq!((e.words[0].base, e.words[0].word_multiplier), (9, 4));
    assert_eq!(e.bonus, 0);
}

#[test]
fn triple_word_twice_is_nine_times_plus_bingo() {
    // A1 B3 S1 O(DL)2 (L1 through) U1 T1 E1 = 11, ×9 = 99, seven tiles placed: +50.
    let b = board_with(RulesetKind::english(), &["1E L"]);
    let e = evaluate(&b, &play(Alphabet::english(), "1A ABSO.UTE")).unwrap();
    assert_eq!((e.words[0].base, e.words[0].word_multiplier), (11, 9));
    assert_eq!(e.bonus, 50);
    assert_eq!(e.total, 149);
}

#[test]
fn cross_word_through_a_letter_premium() {
    // H on 6F (TL) makes OH (1 + 12) and HAT down (12 + 1 + 1): 13 + 14.
    let b = board_with(RulesetKind::english(), &["F7 AT"]);
    let e = evaluate(&b, &play(Alphabet::english(), "6E OH")).unwrap();
    assert_eq!(e.words.iter().map(|w| w.score).collect::<Vec<_>>(), vec![13, 14]);
    assert_eq!(e.total, 27);
    let tl = e.tiles.iter().find(|t| (t.row, t.col) == (5, 5)).unwrap();
    assert_eq!((tl.face, tl.letter_multiplier, tl.new), (4, 3, true));
}

#[test]
fn blank_on_a_premium_scores_nothing() {
    // w is a blank on 8D (DL): 0; A1 X8 E1 N1 on to the centre (DW): 11 × 2.
    assert_eq!(total(RulesetKind::english(), &[], "8D wAXEN"), 22);
    // The same with a real W: W4×2 = 8, so 19 × 2.
    assert_eq!(total(RulesetKind::english(), &[], "8D WAXEN"), 38);
    // A blank on the double-word centre still doubles the word: (0 + 1 + 8) × 2.
    assert_eq!(total(RulesetKind::english(), &[], "8H fAX"), 18);
}

#[test]
fn play_through_existing_tiles() {
    // W on 8D (DL) 8, I through 1, N1 D2, Y on the centre 4: 16 × 2 (the 8D W.NDY 32).
    let b = board_with(RulesetKind::english(), &["8E I"]);
    let e = evaluate(&b, &play(Alphabet::english(), "8D W.NDY")).unwrap();
    assert_eq!(e.total, 32);
    let through = &e.tiles[1];
    assert_eq!((through.new, through.letter_multiplier, through.face), (false, 1, 1));
    // Writing the letter instead of '.' means the same play.
    assert_eq!(evaluate(&b, &play(Alphabet::english(), "8D WINDY")).unwrap(), e);
}

#[test]
fn one_tile_forming_two_words() {
    // T on 7G (DL): TAX across (2 + 1 + 8 = 11) and TO down (2 + 1 = 3).
    let b = board_with(RulesetKind::english(), &["7H AX", "8G O"]);
    let across = evaluate(&b, &play(Alphabet::english(), "7G T")).unwrap();
    assert_eq!(across.words.len(), 2);
    assert_eq!(across.total, 14);
    // Written as a down play, the same single tile scores the same.
    let down = evaluate(&b, &play(Alphabet::english(), "G7 T")).unwrap();
    assert_eq!(down.total, 14);
}

#[test]
fn bingo_in_each_ruleset() {
    // English: R1 E1 T(DL)2 A1 I1 N1 S1 = 8, ×2 (centre) = 16, +50.
    assert_eq!(total(RulesetKind::english(), &[], "8B RETAINS"), 66);
    // Скрэббл: Т1 Е1 Л(DL)4 Е1 Ф10 О1 Н1 = 19, ×2 = 38, +50.
    assert_eq!(total(RulesetKind::russian(), &[], "8B ТЕЛЕФОН"), 88);
    // Эрудит: Т2 Е1 Л(DL)4 Е1 Ф10 О1 Н1 = 20, no doubling on the centre, +15.
    assert_eq!(total(RulesetKind::erudit(), &[], "8B ТЕЛЕФОН"), 35);
}

#[test]
fn erudit_centre_does_not_double() {
    // Ё folds to Е in Эрудит: Е1 + Ж5 = 6. In Скрэббл Ё3 + Ж5 = 8, doubled.
    assert_eq!(total(RulesetKind::erudit(), &[], "8G ЁЖ"), 6);
    assert_eq!(total(RulesetKind::russian(), &[], "8G ЁЖ"), 16);
}

#[test]
fn erudit_star_value_option() {
    use dawgref_engine::board::Board;
    use dawgref_engine::rules::{BlankValue, Ruleset};
    use std::sync::Arc;
    let mut r = Ruleset::erudit();
    r.options.blank_value = BlankValue::LetterValue;
    let b = Board::new(Arc::new(r));
    // ф as a star worth its letter: 10 + О1 + Н1 (centre plain).
    let e = evaluate(&b, &play(Alphabet::erudit(), "8F фОН")).unwrap();
    assert_eq!(e.total, 12);
    assert_eq!(total(RulesetKind::erudit(), &[], "8F фОН"), 2);
}

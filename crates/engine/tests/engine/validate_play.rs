//! ValidatePlay: each reason a play can be refused, as its typed problem.

use crate::common;

use common::{board_with, lexicon, play};
use dawgref_engine::alphabet::Alphabet;
use dawgref_engine::play::{Placement, Play, Problem};
use dawgref_engine::rack::Rack;
use dawgref_engine::rules::RulesetKind;
use dawgref_engine::validate::validate_play;

fn check(kind: RulesetKind, setup: &[&str], rack: &str, text: &str) -> Result<i32, Vec<Problem>> {
    let b = board_with(kind, setup);
    let rack = Rack::parse(rack, kind.alphabet()).unwrap();
    validate_play(&b, &rack, &play(kind.alphabet(), text), lexicon(kind)).map(|e| e.total)
}

#[test]
fn a_legal_play_returns_its_score() {
    assert_eq!(check(RulesetKind::english(), &[], "RETAINS", "8B RETAINS"), Ok(66));
    assert_eq!(check(RulesetKind::english(), &["8E I"], "WNDYQ", "8D W.NDY"), Ok(32));
    assert_eq!(check(RulesetKind::english(), &[], "AXEN?", "8D wAXEN"), Ok(22));
}

#[test]
fn first_play_rules() {
    assert_eq!(
        check(RulesetKind::english(), &[], "QIZ", "7G QI"),
        Err(vec![Problem::FirstPlayNotOnStart { row: 7, col: 7 }])
    );
    assert_eq!(check(RulesetKind::english(), &[], "A", "8H A"), Err(vec![Problem::FirstPlayOneTile]));
}

#[test]
fn geometry_problems() {
    let setup = ["8G CAT"];
    assert_eq!(
        check(RulesetKind::english(), &setup, "DOG", "8H DOG"),
        Err(vec![Problem::SquareTaken { row: 7, col: 7 }, Problem::SquareTaken { row: 7, col: 8 }])
    );
    assert_eq!(check(RulesetKind::english(), &setup, "DOG", "1A DOG"), Err(vec![Problem::NotConnected]));
    assert_eq!(
        check(RulesetKind::english(), &setup, "DOG", "9A D.G"),
        Err(vec![Problem::Gap { row: 8, col: 1 }])
    );
    // Through tiles only: nothing placed.
    assert_eq!(check(RulesetKind::english(), &setup, "DOG", "8G ..."), Err(vec![Problem::NoTiles]));
}

#[test]
fn rack_problems_name_the_missing_tiles() {
    assert_eq!(
        check(RulesetKind::english(), &[], "RETAIN", "8B RETAINS"),
        Err(vec![Problem::NotOnRack { missing: "S".into() }])
    );
    // A blank on the board needs a blank on the rack, not the letter.
    assert_eq!(
        check(RulesetKind::english(), &[], "AXENW", "8D wAXEN"),
        Err(vec![Problem::NotOnRack { missing: "w".into() }])
    );
}

#[test]
fn words_not_in_the_lexicon_are_named() {
    assert_eq!(
        check(RulesetKind::english(), &[], "QXZ", "8G QXZ"),
        Err(vec![Problem::WordsNotInLexicon { words: vec!["QXZ".into()] }])
    );
    // The cross-word is judged too: ZAT down is not a word, ZA across is.
    assert_eq!(
        check(RulesetKind::english(), &["F7 AT"], "ZA", "6E ZZ"),
        // Every reason: a missing tile does not stop the words being judged.
        Err(vec![
            Problem::NotOnRack { missing: "Z".into() },
            Problem::WordsNotInLexicon { words: vec!["ZZ".into(), "ZAT".into()] }
        ])
    );
    assert_eq!(
        check(RulesetKind::english(), &["F7 AT"], "OZ", "6E OZ"),
        Err(vec![Problem::WordsNotInLexicon { words: vec!["OZ".into(), "ZAT".into()] }])
    );
    assert_eq!(check(RulesetKind::english(), &["F7 AT"], "OH", "6E OH"), Ok(27));
}

#[test]
fn several_problems_at_once() {
    assert_eq!(
        check(RulesetKind::english(), &[], "Q", "7A QUIZ"),
        Err(vec![
            Problem::FirstPlayNotOnStart { row: 7, col: 7 },
            Problem::NotOnRack { missing: "UIZ".into() }
        ])
    );
}

#[test]
fn russian_words() {
    assert_eq!(check(RulesetKind::russian(), &[], "ЁЖАБВГД", "8G ЁЖ"), Ok(16));
    assert_eq!(
        check(RulesetKind::russian(), &[], "ЕЖАБВГД", "8G ЕЖ"),
        Err(vec![Problem::WordsNotInLexicon { words: vec!["ЕЖ".into()] }])
    );
}

#[test]
fn erudit_repeated_word() {
    // КОТ already stands at 8G; forming КОТ again down through its О is refused in Эрудит...
    let setup = ["8G КОТ"];
    let r = check(RulesetKind::erudit(), &setup, "КТАБВГД", "H7 К.Т");
    assert_eq!(r, Err(vec![Problem::RepeatedWords { words: vec!["КОТ".into()] }]));
    // ...but allowed in Скрэббл.
    assert!(check(RulesetKind::russian(), &setup, "КТАБВГД", "H7 К.Т").is_ok());
}

#[test]
fn placements_form_a_play() {
    let b = board_with(RulesetKind::english(), &["8G CAT"]);
    let t = |s: &str| play(Alphabet::english(), &format!("1A {s}")).tiles()[0];
    let ps = [Placement { row: 8, col: 8, tile: t("S") }, Placement { row: 6, col: 8, tile: t("A") }];
    let p = Play::from_placements(&b, &ps).unwrap();
    assert_eq!(dawgref_engine::notation::format_play(&p, Alphabet::english()), "I7 A.S");
    // A tile after CAT, or before it, plays through all of it: the play is the whole word.
    for (col, written) in [(9, "8G ...S"), (5, "8F S...")] {
        let p = Play::from_placements(&b, &[Placement { row: 7, col, tile: t("S") }]).unwrap();
        assert_eq!(dawgref_engine::notation::format_play(&p, Alphabet::english()), written);
    }
    let diagonal = [Placement { row: 6, col: 6, tile: t("A") }, Placement { row: 9, col: 9, tile: t("S") }];
    assert_eq!(Play::from_placements(&b, &diagonal), Err(vec![Problem::NotInLine]));
    let gap = [Placement { row: 9, col: 0, tile: t("A") }, Placement { row: 9, col: 2, tile: t("S") }];
    assert_eq!(Play::from_placements(&b, &gap), Err(vec![Problem::Gap { row: 9, col: 1 }]));
    let off = [Placement { row: 15, col: 0, tile: t("A") }];
    assert_eq!(Play::from_placements(&b, &off), Err(vec![Problem::OffBoard { row: 15, col: 0 }]));
}

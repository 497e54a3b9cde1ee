//! CGP positions and play notation: round trips in all three alphabets, and a typed error that
//! says where for each malformed input.

use crate::common;

use common::{board_with, lexicon};
use dawgref::notation::cgp::{self, CgpError, CgpErrorKind};
use dawgref::rules::RulesetKind;
use std::sync::Arc;

const EMPTY_BOARD: &str = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15";

#[test]
fn empty_board_example_from_rules_md() {
    let text = format!("{EMPTY_BOARD} AELNOQT/ 0/0 0 lex NWL18;");
    let c = cgp::parse(&text, None).unwrap();
    assert_eq!(c.ruleset, RulesetKind::english());
    assert_eq!(c.racks.len(), 2);
    assert_eq!(c.racks[0].len(), 7);
    assert!(c.racks[1].is_empty());
    assert_eq!(c.scores, vec![0, 0]);
    assert_eq!(c.ops.lex.as_deref(), Some("NWL18"));
    assert_eq!(cgp::write(&c), text);
}

fn round_trip(kind: RulesetKind, setup: &[&str], racks: &str, tail: &str) {
    let board = board_with(kind, setup);
    let c0 = cgp::from_board(&board, &[], &[], 0, Default::default());
    let rows = cgp::write(&c0).split(' ').next().unwrap().to_string();
    let text = format!("{rows} {racks} {tail}");
    let c = cgp::parse(&text, None).unwrap();
    assert_eq!(c.ruleset, kind, "{text}");
    assert_eq!(cgp::write(&c), text);
    // The board rebuilt from the CGP is the same board, cross-sets included.
    let rebuilt = c.board(Arc::new(c.rules()), lexicon(kind).dawg());
    if c.ops.bb.is_none() && c.ops.etl.is_none() && c.ops.mcnz.is_none() {
        assert!(rebuilt == board, "{text}");
    }
}

#[test]
fn round_trips_in_every_alphabet() {
    round_trip(
        RulesetKind::english(),
        &["8E I", "8D W.NDY", "H9 aXE"],
        "AEIQRT?/EEIOU",
        "120/-5 2 lex en; cr double;",
    );
    round_trip(RulesetKind::russian(), &["8G ЁЖ", "G9 ОЛКА"], "АБВГДЕЁ/ЮЯ?", "16/0 0 lex ru; ld russian;");
    round_trip(
        RulesetKind::erudit(),
        &["8B ТЕЛЕФОН", "B9 лавка"],
        "АБ??/ЖЖ/Я",
        "35/0/4 1 ld erudit; bb 15; etl 7; mcnz 6;",
    );
}

#[test]
fn ops_change_the_rules() {
    let c =
        cgp::parse(&format!("{EMPTY_BOARD} A/B 0/0 0 bb 35; etl 1; mcnz 4; xyz hello world;"), None).unwrap();
    let r = c.rules();
    assert_eq!(r.bingo_bonus, 35);
    assert_eq!(r.options.exchange_limit, 1);
    assert_eq!(r.options.scoreless_turn_limit.turns(2), 4);
    assert_eq!(c.ops.other, vec![("xyz".to_string(), "hello world".to_string())]);
}

#[test]
fn malformed_cgp_says_where() {
    let e = |text: &str| -> CgpError { cgp::parse(text, None).unwrap_err() };
    let rows14 = "15/15/15/15/15/15/15/15/15/15/15/15/15/15";
    assert_eq!(e(""), CgpError { field: 1, at: 0, kind: CgpErrorKind::Missing });
    assert_eq!(e(EMPTY_BOARD).kind, CgpErrorKind::Missing);
    assert_eq!(e(EMPTY_BOARD).field, 2);
    assert_eq!(e(&format!("{rows14} A/B 0/0 0")).kind, CgpErrorKind::Rows { rows: 14, size: 15 });
    assert_eq!(
        e(&format!("14/{} A/B 0/0 0", &EMPTY_BOARD[3..])),
        CgpError { field: 1, at: 0, kind: CgpErrorKind::RowLength { row: 1, len: 14, size: 15 } }
    );
    assert_eq!(
        e(&format!("15/7A8/{} A/B 0/0 0", &EMPTY_BOARD[6..])).kind,
        CgpErrorKind::RowLength { row: 2, len: 16, size: 15 }
    );
    assert_eq!(
        e(&format!("15/7$7/{} A/B 0/0 0", &EMPTY_BOARD[6..])),
        CgpError { field: 1, at: 4, kind: CgpErrorKind::Foreign('$') }
    );
    assert_eq!(e(&format!("{EMPTY_BOARD} A1/B 0/0 0")).kind, CgpErrorKind::Foreign('1'));
    assert_eq!(e(&format!("{EMPTY_BOARD} A1/B 0/0 0")).at, 46);
    assert_eq!(
        e(&format!("{EMPTY_BOARD} AAAAAAAA/B 0/0 0")).kind,
        CgpErrorKind::RackTooLong("AAAAAAAA".into())
    );
    assert_eq!(e(&format!("{EMPTY_BOARD} A/B x/0 0")).kind, CgpErrorKind::Number("x".into()));
    assert_eq!(e(&format!("{EMPTY_BOARD} A/B 0 0")).kind, CgpErrorKind::PlayerCount { racks: 2, scores: 1 });
    assert_eq!(e(&format!("{EMPTY_BOARD} A 0 0")).kind, CgpErrorKind::Players(1));
    assert_eq!(e(&format!("{EMPTY_BOARD} A/B 0/0 z")).kind, CgpErrorKind::Number("z".into()));
    assert_eq!(
        e(&format!("{EMPTY_BOARD} A/B 0/0 0 ld klingon;")).kind,
        CgpErrorKind::UnknownDistribution("klingon".into())
    );
    assert_eq!(
        e(&format!("{EMPTY_BOARD} A/B 0/0 0 lex NWL18")).kind,
        CgpErrorKind::Opcode("lex NWL18".into())
    );
    assert_eq!(e(&format!("{EMPTY_BOARD} A/B 0/0 0 bb x;")).kind, CgpErrorKind::Number("x".into()));
    // Cyrillic on an English board when the ruleset is forced.
    assert_eq!(
        cgp::parse(&format!("{EMPTY_BOARD} Ж/B 0/0 0"), Some(RulesetKind::english())).unwrap_err().kind,
        CgpErrorKind::Foreign('Ж')
    );
    // Latin Ë is not Ё in a Russian position.
    assert_eq!(
        cgp::parse(&format!("{EMPTY_BOARD} Ë/Ж 0/0 0 ld russian;"), None).unwrap_err().kind,
        CgpErrorKind::Foreign('Ë')
    );
}

/// Nothing panics on arbitrary input (a smoke test; fuzzing proper is cargo-fuzz's job).
#[test]
fn arbitrary_text_never_panics() {
    let mut rng = common::Rng(7);
    let alphabet: Vec<char> = "0123456789/ ;AbЖёË?.()-xyz15lexbbetl\t".chars().collect();
    for _ in 0..20_000 {
        let len = rng.below(80);
        let s: String = (0..len).map(|_| alphabet[rng.below(alphabet.len())]).collect();
        let _ = cgp::parse(&s, None);
        let _ = dawgref::notation::parse_move(&s, dawgref::alphabet::Alphabet::russian());
        let _ = dawgref::notation::parse_move(&s, dawgref::alphabet::Alphabet::english());
    }
}

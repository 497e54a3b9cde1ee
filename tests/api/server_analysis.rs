//! Analysis and Lexicons over the wire: GenerateMoves on a CGP equals `dawgref gen` for the same
//! position, ValidatePlay's typed reasons, Evaluate's breakdown, JudgeWords in both languages.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;

const POSITION: &str = "11KATI/9H3U1/2U5CATGUT1/2N6R3O1/2F6I3Y1/2IT5J3E1/2XI5A3R1/3MIDNOON3S1/3E1EYEN6/3WAVE8/3O11/3R11/3N11/15/15 LLRRTWZ/ 168/297 0 lex en; ld english;";

#[tokio::test]
async fn generate_moves_equals_the_cli() {
    let srv = start().await;
    let mut a = srv.analysis().await;
    let mut stream = a
        .generate_moves(pb::GenerateMovesRequest { position: cgp(POSITION), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let mut lines = String::new();
    while let Some(m) = stream.message().await.unwrap() {
        lines.push_str(&format!("{} {}\n", m.play.unwrap().notation, m.score));
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dawgref"))
        .args(["gen", "--cgp", POSITION])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(lines, String::from_utf8(out.stdout).unwrap());
    assert!(lines.lines().count() > 100);
    // Limits, modes and board order.
    let req = pb::GenerateMovesRequest { position: cgp(POSITION), limit: 3, ..Default::default() };
    let mut s = a.generate_moves(req).await.unwrap().into_inner();
    let first = s.message().await.unwrap().unwrap();
    assert_eq!((first.play.unwrap().notation.as_str(), first.score), ("6B Z..", 32));
    let req = pb::GenerateMovesRequest {
        position: cgp(POSITION),
        mode: pb::Direction::Down as i32,
        order: pb::MoveOrder::Position as i32,
        rack: Some("Q".into()),
        ..Default::default()
    };
    let mut s = a.generate_moves(req).await.unwrap().into_inner();
    while let Some(m) = s.message().await.unwrap() {
        assert!(
            m.play.unwrap().notation.starts_with(|c: char| c.is_ascii_uppercase()),
            "down plays are column-first"
        );
    }
}

#[tokio::test]
async fn validate_and_evaluate() {
    let srv = start().await;
    let mut a = srv.analysis().await;
    let empty = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 RETAINS/ 0/0 0 lex en;";
    let ok = a
        .validate_play(pb::ValidatePlayRequest {
            position: cgp(empty),
            play: notation_play("8B RETAINS"),
            rack: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(ok.valid);
    let e = ok.evaluation.unwrap();
    assert_eq!((e.total, e.bonus, e.words.len()), (66, 50, 1));
    let bad = a
        .validate_play(pb::ValidatePlayRequest {
            position: cgp(empty),
            play: notation_play("7A QUIZ"),
            rack: Some("QUI".into()),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!bad.valid);
    let codes: Vec<i32> = bad.problems.iter().map(|p| p.code).collect();
    assert_eq!(codes, vec![pb::ProblemCode::FirstPlayNotOnCentre as i32, pb::ProblemCode::NotOnRack as i32]);
    assert_eq!((bad.problems[0].row, bad.problems[0].col), (Some(7), Some(7)), "the start square, 8H");
    assert_eq!(bad.problems[1].tiles, "Z");
    // Evaluate: the tile breakdown of WINDY through an I, as in the example.
    let board = "15/15/15/15/15/15/15/4I10/15/15/15/15/15/15/15 WNDY/ 0/0 0";
    let ev = a
        .evaluate(pb::EvaluateRequest { position: cgp(board), play: notation_play("8D W.NDY") })
        .await
        .unwrap()
        .into_inner()
        .evaluation
        .unwrap();
    assert_eq!(ev.total, 32);
    assert_eq!(ev.tiles[0].letter_multiplier, 2);
    assert!(!ev.tiles[1].new);
    assert_eq!(ev.words[0].word, "WINDY");
    assert_eq!(ev.play.unwrap().tiles.len(), 4);
}

#[tokio::test]
async fn judge_words_in_both_languages() {
    let srv = start().await;
    let mut l = srv.lexicons().await;
    let list = l.list_lexicons(pb::ListLexiconsRequest {}).await.unwrap().into_inner();
    let names: Vec<&str> = list.lexicons.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, vec!["en", "erudit", "ru"]);
    assert_eq!(list.lexicons[0].words, 269_870);
    let judge = |lexicon: &str, words: &[&str], per_word: bool| pb::JudgeWordsRequest {
        lexicon: lexicon.into(),
        words: words.iter().map(|w| w.to_string()).collect(),
        per_word,
    };
    let r = l.judge_words(judge("en", &["QUIXOTIC", "ZYZZYVA"], false)).await.unwrap().into_inner();
    assert!(r.acceptable);
    assert!(r.words.is_empty(), "no per-word detail unless asked");
    let r = l.judge_words(judge("en", &["QUIXOTIC", "QXZ"], true)).await.unwrap().into_inner();
    assert!(!r.acceptable);
    assert_eq!(r.words.iter().map(|w| w.valid).collect::<Vec<_>>(), vec![true, false]);
    let r = l.judge_words(judge("ru", &["ЁЖ", "пальто"], false)).await.unwrap().into_inner();
    assert!(r.acceptable);
    let r = l.judge_words(judge("ru", &["ЕЖ"], false)).await.unwrap().into_inner();
    assert!(!r.acceptable);
    let r = l.judge_words(judge("erudit", &["ЕЖ", "ЁЖ"], false)).await.unwrap().into_inner();
    assert!(r.acceptable);
    assert_eq!(code(l.judge_words(judge("ru", &["ЁЖ", "CAT"], false)).await), tonic::Code::InvalidArgument);
    assert_eq!(code(l.judge_words(judge("xx", &["A"], false)).await), tonic::Code::InvalidArgument);
}

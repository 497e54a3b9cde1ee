//! Errors a client can read: no status grows with its input (an echoed value is a short prefix,
//! problems past the first few are counted), every status stays well under 8 KB on the wire, a
//! request over the size limit is RESOURCE_EXHAUSTED, and messages say what was sent (the real
//! length of a rack, a square named twice).

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use dawgref::server::state::Limits;
use tonic::{Code, Status};

/// What a status costs on the wire: its percent-encoded message plus its base64 details.
fn wire_bytes(s: &Status) -> usize {
    let message: usize =
        s.message().bytes().map(|b| if (0x20..0x7f).contains(&b) && b != b'%' { 1 } else { 3 }).sum();
    message + s.details().len().div_ceil(3) * 4
}

fn small(s: &Status) {
    assert!(wire_bytes(s) < 2048, "{} bytes: {:?}", wire_bytes(s), s.message());
}

const WINDY: &str = "15/15/15/15/15/15/15/3WINDY7/15/15/15/15/15/15/15 AEINRST/ 32/0 0 lex en;";

#[tokio::test]
async fn echoed_input_is_bounded() {
    let srv = start_with(Limits { max_message_bytes: 1 << 20, ..Default::default() }).await;
    let mut g = srv.games().await;
    for id in ["x".repeat(200_000), "ж".repeat(5_000)] {
        let e = g.get_game(pb::GetGameRequest { game_id: id.clone() }).await.unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        small(&e);
        let n = id.chars().count();
        assert!(e.message().contains(&format!("…\" ({n} characters)")), "{}", e.message());
    }
    let long = "ё".repeat(100_000);
    let mut req = create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("a"), human("b")], 1);
    req.lexicon = long.clone();
    let e = g.create_game(req).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    small(&e);
    let mut l = srv.lexicons().await;
    let e = l
        .judge_words(pb::JudgeWordsRequest {
            lexicon: long.clone(),
            words: vec!["A".into()],
            per_word: false,
        })
        .await;
    let e = e.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    small(&e);
    let mut a = srv.analysis().await;
    let req = pb::GenerateMovesRequest {
        position: Some(pb::Position {
            source: Some(pb::position::Source::Cgp(WINDY.into())),
            lexicon: long.clone(),
        }),
        ..Default::default()
    };
    let e = a.generate_moves(req).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    small(&e);
    // A CGP, a coordinate and a GCG line of any length.
    for bad in [format!("{WINDY} bb {};", "9".repeat(100_000)), format!("15/15 {}", "Ж".repeat(100_000))] {
        let req = pb::GenerateMovesRequest { position: cgp(&bad), ..Default::default() };
        let e = a.generate_moves(req).await.unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        small(&e);
    }
    let req = pb::EvaluateRequest {
        position: cgp(WINDY),
        play: Some(pb::Play { notation: format!("{} WORD", "8".repeat(100_000)), tiles: vec![] }),
    };
    small(&a.evaluate(req).await.unwrap_err());
    let gcg = format!("#player1 a a\n>a: {} +1 1\n", "Q ".repeat(50_000));
    let e = g.import_gcg(pb::ImportGcgRequest { gcg, ..Default::default() }).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    small(&e);
}

#[tokio::test]
async fn plays_and_racks_of_any_size_get_small_exact_answers() {
    let srv = start_with(Limits { max_message_bytes: 1 << 20, ..Default::default() }).await;
    let mut a = srv.analysis().await;
    let tile = |row: u32, col: u32| pb::Tile { row, col, letter: "A".into(), blank: false };
    for tiles in [(0..10_000).map(|i| tile(i % 40, i / 40)).collect::<Vec<_>>(), vec![tile(0, 0); 300]] {
        let n = tiles.len();
        let req = pb::ValidatePlayRequest {
            position: cgp(WINDY),
            play: Some(pb::Play { notation: String::new(), tiles }),
            rack: None,
        };
        let e = a.validate_play(req).await.unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert_eq!(e.message(), format!("play.tiles: {n} tiles: a play places at most 15"));
    }
    // A square named twice is that, not a square already taken.
    let req = pb::ValidatePlayRequest {
        position: cgp(WINDY),
        play: Some(pb::Play { notation: String::new(), tiles: vec![tile(0, 0), tile(0, 1), tile(0, 0)] }),
        rack: None,
    };
    let e = a.validate_play(req).await.unwrap_err();
    assert_eq!(e.message(), "invalid play: square 1A is given more than one tile in this play");
    // A rack's real length.
    let req = pb::GenerateMovesRequest {
        position: cgp(WINDY),
        rack: Some("E".repeat(200_000)),
        ..Default::default()
    };
    let e = a.generate_moves(req).await.unwrap_err();
    assert_eq!(e.message(), "rack: 200000 tiles: a rack holds 7");
    let mut g = srv.games().await;
    let c = two_humans(&mut g, 3).await;
    let exchange = Some(pb::submit_turn_request::Action::Exchange("A".repeat(100_000)));
    let e = g.submit_turn(authed(turn(&c.game_id, 0, exchange), &c.seat_tokens[0])).await.unwrap_err();
    assert_eq!(e.message(), "exchange: 100000 tiles: a rack holds 7");
}

#[tokio::test]
async fn many_problems_are_counted_past_the_first_eight() {
    use dawgref::play::Problem;
    let problems: Vec<Problem> = (0..20).map(|c| Problem::Gap { row: 0, col: c % 15 }).collect();
    let s = dawgref::server::errors::problems("play", &problems);
    let violations = tonic_types::StatusExt::get_details_bad_request(&s).unwrap().field_violations;
    assert_eq!(violations.len(), 9);
    assert_eq!(violations[8].description, "and 12 more problems");
    assert!(s.message().ends_with("; and 12 more problems"), "{}", s.message());
    small(&s);
}

#[tokio::test]
async fn oversize_requests_are_resource_exhausted() {
    let srv = start_with(Limits { max_message_bytes: 4096, ..Default::default() }).await;
    let mut l = srv.lexicons().await;
    let req =
        pb::JudgeWordsRequest { lexicon: "en".into(), words: vec!["A".repeat(100); 100], per_word: false };
    let e = l.judge_words(req).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    let mut g = srv.games().await;
    let e = g.get_game(pb::GetGameRequest { game_id: "x".repeat(5000) }).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
}

#[tokio::test]
async fn validate_play_lists_every_problem_evaluate_refuses_unconnected_plays() {
    let srv = start().await;
    let mut a = srv.analysis().await;
    let r = a
        .validate_play(pb::ValidatePlayRequest {
            position: cgp(WINDY),
            play: notation_play("D4 QZXJ."),
            rack: None,
        })
        .await
        .unwrap()
        .into_inner();
    let got: Vec<(i32, String, Vec<String>)> =
        r.problems.iter().map(|p| (p.code, p.tiles.clone(), p.words.clone())).collect();
    assert_eq!(
        got,
        [
            (pb::ProblemCode::NotOnRack as i32, "QZXJ".to_string(), vec![]),
            (pb::ProblemCode::WordsNotInLexicon as i32, String::new(), vec!["QZXJW".to_string()]),
        ]
    );
    let e = a
        .evaluate(pb::EvaluateRequest { position: cgp(WINDY), play: notation_play("1A QZ") })
        .await
        .unwrap_err();
    assert_eq!(
        (e.code(), e.message()),
        (Code::InvalidArgument, "invalid play: the play does not touch any tile on the board")
    );
    let empty = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0 lex en;";
    let e = a
        .evaluate(pb::EvaluateRequest { position: cgp(empty), play: notation_play("1A QI") })
        .await
        .unwrap_err();
    assert_eq!(e.message(), "invalid play: the first play must cover the start square, 8H");
    // A connected play still scores, as before.
    let r = a
        .evaluate(pb::EvaluateRequest { position: cgp(WINDY), play: notation_play("9D AT") })
        .await
        .unwrap()
        .into_inner()
        .evaluation
        .unwrap();
    assert_eq!(r.total, 9, "AT 2 + WA 5 + IT 2");
}

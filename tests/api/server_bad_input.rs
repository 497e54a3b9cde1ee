//! Bad input gets its code and details, and never a panic: unknown game, wrong token, not your
//! turn, stale turn, malformed play text, off-board tiles, letters outside the alphabet,
//! oversize messages.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use tonic::Code;
use tonic_types::StatusExt;

async fn game(srv: &TestServer) -> (String, Vec<String>) {
    let mut g = srv.games().await;
    let c = two_humans(&mut g, 41).await;
    (c.game_id, c.seat_tokens)
}

#[tokio::test]
async fn the_table() {
    let srv = start().await;
    let mut g = srv.games().await;
    let (id, t) = game(&srv).await;
    let pass = || Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    let unknown = uuid::Uuid::new_v4().to_string();
    assert_eq!(code(g.get_game(pb::GetGameRequest { game_id: unknown }).await), Code::NotFound);
    assert_eq!(
        code(g.get_game(pb::GetGameRequest { game_id: "not-a-uuid".into() }).await),
        Code::InvalidArgument
    );
    assert_eq!(
        code(g.submit_turn(authed(turn(&id, 0, pass()), "0123456789abcdef0123456789abcdef")).await),
        Code::Unauthenticated
    );
    assert_eq!(code(g.submit_turn(turn(&id, 0, pass())).await), Code::Unauthenticated);
    let mut bad_header = tonic::Request::new(turn(&id, 0, pass()));
    bad_header.metadata_mut().insert("authorization", "Basic abc".parse().unwrap());
    assert_eq!(code(g.submit_turn(bad_header).await), Code::Unauthenticated);
    assert_eq!(code(g.submit_turn(authed(turn(&id, 0, pass()), &t[1])).await), Code::FailedPrecondition);
    assert_eq!(code(g.submit_turn(authed(turn(&id, 5, pass()), &t[0])).await), Code::Aborted);
    // Malformed play text: the BadRequest detail names the field.
    let e = g.submit_turn(authed(turn(&id, 0, play_action("8Z WORD")), &t[0])).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let details = e.get_details_bad_request().expect("BadRequest details");
    assert_eq!(details.field_violations[0].field, "play.notation");
    // Letters outside the alphabet.
    let e = g.submit_turn(authed(turn(&id, 0, play_action("8H ЖУК")), &t[0])).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("'Ж'"), "{}", e.message());
    // An off-board tile, as structured tiles.
    let off = Some(pb::submit_turn_request::Action::Play(pb::Play {
        notation: String::new(),
        tiles: vec![pb::Tile { row: 7, col: 15, letter: "A".into(), blank: false }],
    }));
    let e = g.submit_turn(authed(turn(&id, 0, off), &t[0])).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.get_details_bad_request().unwrap().field_violations[0].description.contains("off the board"));
    // An illegal play: every problem is a field violation.
    let e = g.submit_turn(authed(turn(&id, 0, play_action("1A ZZZZZZZ")), &t[0])).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let v = e.get_details_bad_request().unwrap().field_violations;
    assert!(v.len() >= 2, "{v:?}");
    assert!(v.iter().any(|f| f.description == "the first play must cover the start square, 8H"), "{v:?}");
    // An exchange of tiles not held; no action at all.
    assert_eq!(
        code(
            g.submit_turn(authed(
                turn(&id, 0, Some(pb::submit_turn_request::Action::Exchange("ZZZZZZZ".into()))),
                &t[0]
            ))
            .await
        ),
        Code::InvalidArgument
    );
    assert_eq!(code(g.submit_turn(authed(turn(&id, 0, None), &t[0])).await), Code::InvalidArgument);
    // Nothing to challenge yet.
    let ch = pb::ChallengeRequest { game_id: id.clone(), request_id: String::new() };
    assert_eq!(code(g.challenge(authed(ch, &t[1])).await), Code::FailedPrecondition);
    // Creating games: bad seat counts, unknown lexicon, lexicon of another alphabet.
    assert_eq!(
        code(
            g.create_game(create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("solo")], 1))
                .await
        ),
        Code::InvalidArgument
    );
    let mut req = create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("a"), human("b")], 1);
    req.lexicon = "nwl99".into();
    assert_eq!(code(g.create_game(req.clone()).await), Code::InvalidArgument);
    req.lexicon = "ru".into();
    assert_eq!(code(g.create_game(req).await), Code::InvalidArgument);
    // After all that, the game is untouched.
    let v = view_of(&mut g, pb::GetGameRequest { game_id: id.clone() }).await;
    assert_eq!((v.turn, v.events), (0, 0));
    srv.handle.host().session(&id).await.unwrap().snapshot().game().check_invariants().unwrap();
}

#[tokio::test]
async fn oversize_messages_are_refused() {
    let srv =
        start_with(dawgref::server::state::Limits { max_message_bytes: 4096, ..Default::default() }).await;
    let mut l = srv.lexicons().await;
    let req =
        pb::JudgeWordsRequest { lexicon: "en".into(), words: vec!["A".repeat(100); 100], per_word: false };
    let e = l.judge_words(req).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    // The server is fine afterwards.
    let ok = l
        .judge_words(pb::JudgeWordsRequest {
            lexicon: "en".into(),
            words: vec!["QI".into()],
            per_word: false,
        })
        .await;
    assert!(ok.unwrap().into_inner().acceptable);
}

#[tokio::test]
async fn the_game_limit() {
    let srv = start_with(dawgref::server::state::Limits { max_games: 1, ..Default::default() }).await;
    let mut g = srv.games().await;
    let req = create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("a"), human("b")], 1);
    g.create_game(req.clone()).await.unwrap();
    assert_eq!(code(g.create_game(req).await), Code::ResourceExhausted);
}

/// Absurd tile strings are refused, not overflowed.
#[tokio::test]
async fn absurd_exchanges_and_racks() {
    let srv = start().await;
    let mut g = srv.games().await;
    let (id, t) = game(&srv).await;
    let exchange = Some(pb::submit_turn_request::Action::Exchange("A".repeat(1000)));
    assert_eq!(code(g.submit_turn(authed(turn(&id, 0, exchange), &t[0])).await), Code::InvalidArgument);
    let mut a = srv.analysis().await;
    let req = pb::GenerateMovesRequest {
        position: Some(pb::Position {
            source: Some(pb::position::Source::GameId(id.clone())),
            lexicon: String::new(),
        }),
        rack: Some("?".repeat(500)),
        ..Default::default()
    };
    assert_eq!(code(a.generate_moves(req).await), Code::InvalidArgument);
}

#[tokio::test]
async fn racks_the_tile_set_cannot_deal_are_refused() {
    let srv = start().await;
    let mut a = srv.analysis().await;
    let empty = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 ???????/ 0/0 0";
    let req = pb::GenerateMovesRequest {
        position: Some(pb::Position {
            source: Some(pb::position::Source::Cgp(empty.into())),
            lexicon: String::new(),
        }),
        ..Default::default()
    };
    assert_eq!(code(a.generate_moves(req).await), Code::InvalidArgument);
}

/// Numbers at the edge of their types are refused or reported, never overflowed.
#[tokio::test]
async fn extreme_numbers() {
    let srv = start().await;
    let mut g = srv.games().await;
    let gcg = "#player1 a a\n#player2 b b\n>a: AB (challenge) +2147483647 2147483647\n>a: AB (time) +2147483647 2147483647\n";
    // Replaying it fails (a challenge bonus with no play before it), with the line named.
    let e = g.import_gcg(pb::ImportGcgRequest { gcg: gcg.into(), ..Default::default() }).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("GCG line 3"), "{}", e.message());
    let mut a = srv.analysis().await;
    let cgp = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 RETAINS/ 0/0 0 bb 2147483647;";
    let req = pb::GenerateMovesRequest {
        position: Some(pb::Position {
            source: Some(pb::position::Source::Cgp(cgp.into())),
            lexicon: String::new(),
        }),
        ..Default::default()
    };
    assert_eq!(code(a.generate_moves(req).await), Code::InvalidArgument);
    let mut req = create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("a"), human("b")], 1);
    req.clock = Some(pb::ClockSpec {
        initial_ms: u64::MAX,
        increment_ms: u64::MAX,
        max_overtime_ms: 0,
        penalty_per_minute: i32::MAX,
        per_move_ms: 0,
    });
    assert_eq!(code(g.create_game(req).await), Code::InvalidArgument);
}

/// `x-dawgref-game` is a balancer's hint: missing, malformed, or naming another game, the call
/// is served for the game its message names, and a single server names no owner.
#[tokio::test]
async fn the_game_header_is_only_a_hint() {
    let srv = start().await;
    let mut g = srv.games().await;
    let (id, t) = game(&srv).await;
    let (other, _) = game(&srv).await;
    let pass = || Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    for (turn_no, value) in
        ["not-a-uuid", "", other.as_str(), "x".repeat(4000).as_str()].into_iter().enumerate()
    {
        let mut request = authed(turn(&id, turn_no as u32, pass()), &t[turn_no % 2]);
        request.metadata_mut().insert("x-dawgref-game", value.parse().unwrap());
        let answer = g.submit_turn(request).await.unwrap_or_else(|e| panic!("header {value:.20?}: {e}"));
        assert!(answer.metadata().get("x-dawgref-owner").is_none(), "one server, no owner to name");
        assert_eq!(answer.into_inner().view.unwrap().turn, turn_no as u32 + 1, "header {value:.20?}");
    }
    let view = view_of(&mut g, pb::GetGameRequest { game_id: other }).await;
    assert_eq!(view.turn, 0, "the game the header named is untouched");
}

/// GetGameRequest's wire shape with its `game_id` as raw bytes, to send what is not UTF-8.
#[derive(Clone, PartialEq, prost::Message)]
struct RawGetGame {
    #[prost(bytes = "vec", tag = "1")]
    game_id: Vec<u8>,
}

/// Bytes that are not the request's message are the client's mistake: INVALID_ARGUMENT naming
/// the field, never INTERNAL.
#[tokio::test]
async fn a_request_that_is_not_valid_protobuf_is_invalid_argument_naming_the_field() {
    let srv = start().await;
    let channel = tonic::transport::Channel::from_shared(srv.url.clone()).unwrap().connect().await.unwrap();
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.unwrap();
    let path = tonic::codegen::http::uri::PathAndQuery::from_static("/dawgref.v1.GamesService/GetGame");
    let codec = tonic_prost::ProstCodec::<RawGetGame, pb::GetGameResponse>::default();
    let request = tonic::Request::new(RawGetGame { game_id: vec![0xff, 0xfe, b'a'] });
    let e = grpc.unary(request, path, codec).await.unwrap_err();
    assert_eq!(
        (e.code(), e.message()),
        (
            tonic::Code::InvalidArgument,
            "the message is not valid protobuf: GetGameRequest.game_id: invalid string value: data is not UTF-8 encoded"
        )
    );
}

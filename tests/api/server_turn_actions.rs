//! SubmitTurn's action is unambiguous: pass and resign are empty messages, a request with no
//! action (including one in the old shape, `pass: false` / `resign: false`, fields 6 and 7) is
//! INVALID_ARGUMENT and changes nothing. CreateGame answers with the creator's own view, and
//! seats without a name are called what their GCG nickname is.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use tonic::Code;

/// SubmitTurnRequest as it was before pass and resign became messages.
#[derive(Clone, PartialEq, prost::Message)]
struct OldSubmitTurn {
    #[prost(string, tag = "1")]
    game_id: String,
    #[prost(uint32, optional, tag = "2")]
    expected_turn: Option<u32>,
    #[prost(oneof = "OldAction", tags = "6, 7")]
    action: Option<OldAction>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
enum OldAction {
    #[prost(bool, tag = "6")]
    Pass(bool),
    #[prost(bool, tag = "7")]
    Resign(bool),
}

async fn old_submit(
    srv: &TestServer,
    req: OldSubmitTurn,
    token: &str,
) -> Result<pb::SubmitTurnResponse, tonic::Status> {
    let channel = tonic::transport::Endpoint::from_shared(srv.url.clone()).unwrap().connect().await.unwrap();
    let mut client = tonic::client::Grpc::new(channel);
    client.ready().await.unwrap();
    let codec = tonic_prost::ProstCodec::<OldSubmitTurn, pb::SubmitTurnResponse>::default();
    let path = http::uri::PathAndQuery::from_static("/dawgref.v1.GamesService/SubmitTurn");
    client.unary(authed(req, token), path, codec).await.map(|r| r.into_inner())
}

#[tokio::test]
async fn false_never_acts_and_the_empty_messages_do() {
    let srv = start().await;
    let mut g = srv.games().await;
    let c = two_humans(&mut g, 7).await;
    for action in
        [OldAction::Resign(false), OldAction::Pass(false), OldAction::Resign(true), OldAction::Pass(true)]
    {
        let req = OldSubmitTurn {
            game_id: c.game_id.clone(),
            expected_turn: Some(0),
            action: Some(action.clone()),
        };
        let e = old_submit(&srv, req, &c.seat_tokens[0]).await.unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{action:?}: {e:?}");
        assert!(e.message().contains("no action"), "{}", e.message());
    }
    let v = view_of(&mut g, pb::GetGameRequest { game_id: c.game_id.clone() }).await;
    assert_eq!((v.turn, v.events, v.over), (0, 0, false));
    // No action at all: the same.
    assert_eq!(
        code(g.submit_turn(authed(turn(&c.game_id, 0, None), &c.seat_tokens[0])).await),
        Code::InvalidArgument
    );
    // `pass: {}` passes and `resign: {}` resigns.
    let pass = Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    let r = g.submit_turn(authed(turn(&c.game_id, 0, pass), &c.seat_tokens[0])).await.unwrap().into_inner();
    assert_eq!((r.points, r.view.as_ref().unwrap().turn), (0, 1));
    let resign = Some(pb::submit_turn_request::Action::Resign(pb::Resign {}));
    let r = g.submit_turn(authed(turn(&c.game_id, 1, resign), &c.seat_tokens[1])).await.unwrap().into_inner();
    let v = r.view.unwrap();
    assert!(v.over);
    assert_eq!((v.end_reason.as_str(), v.winners.as_slice()), ("seat 1 resigned", &[0][..]));
}

#[tokio::test]
async fn the_creator_sees_its_own_seat_at_once() {
    let srv = start().await;
    let mut g = srv.games().await;
    let req = create(
        pb::Ruleset::English,
        pb::ChallengeRule::Single,
        vec![bot(pb::BotLevel::Greedy), human("me")],
        3,
    );
    let c = g.create_game(req).await.unwrap().into_inner();
    let v = c.view.unwrap();
    // The bot moved first; the creator's seat is 1, with its rack.
    assert_eq!(v.my_seat, Some(1));
    let mine =
        view_of(&mut g, authed(pb::GetGameRequest { game_id: c.game_id.clone() }, &c.seat_tokens[1])).await;
    assert_eq!(v.my_rack, mine.my_rack);
    assert_eq!(v.my_rack.chars().count(), 7);
    // A game of bots only has no creator's seat.
    let req = create(
        pb::Ruleset::English,
        pb::ChallengeRule::Single,
        vec![bot(pb::BotLevel::Weak), bot(pb::BotLevel::Weak)],
        3,
    );
    let v = g.create_game(req).await.unwrap().into_inner().view.unwrap();
    assert_eq!((v.my_seat, v.my_rack.as_str()), (None, ""));
}

#[tokio::test]
async fn default_names_are_the_record_nicknames() {
    let srv = start().await;
    let mut g = srv.games().await;
    let seats = vec![
        pb::SeatSpec {
            kind: Some(pb::seat_spec::Kind::Human(pb::HumanSeat { name: String::new(), open: false })),
            think_ms: None,
        },
        bot(pb::BotLevel::Strong),
        bot(pb::BotLevel::Strong),
        pb::SeatSpec {
            kind: Some(pb::seat_spec::Kind::Human(pb::HumanSeat { name: String::new(), open: true })),
            think_ms: None,
        },
    ];
    let c = g
        .create_game(create(pb::Ruleset::English, pb::ChallengeRule::Single, seats, 5))
        .await
        .unwrap()
        .into_inner();
    let names: Vec<String> = c.view.unwrap().seats.into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["seat0", "strong_bot", "strong_bot_2", "seat3"]);
    let gcg = g.export_gcg(pb::ExportGcgRequest { game_id: c.game_id }).await.unwrap().into_inner().gcg;
    for (i, n) in names.iter().enumerate() {
        assert!(gcg.contains(&format!("#player{} {n} {n}\n", i + 1)), "{gcg}");
    }
    // Names are bounded and one line.
    let long = vec![human(&"x".repeat(65)), human("b")];
    assert_eq!(
        code(g.create_game(create(pb::Ruleset::English, pb::ChallengeRule::Single, long, 1)).await),
        Code::InvalidArgument
    );
    let control = vec![human("a\nb"), human("b")];
    assert_eq!(
        code(g.create_game(create(pb::Ruleset::English, pb::ChallengeRule::Single, control, 1)).await),
        Code::InvalidArgument
    );
}

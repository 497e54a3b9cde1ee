//! Every RPC is timed by method and status code in one place (a tower layer), whether it
//! succeeds or is refused, and a path that is no RPC of ours cannot mint a label.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;

fn count(body: &str, method: &str, code: &str) -> u64 {
    let key = format!("dawgref_rpc_seconds_count{{code=\"{code}\",method=\"{method}\"}} ");
    body.lines().find_map(|l| l.strip_prefix(key.as_str())).map_or(0, |n| n.parse().unwrap())
}

#[tokio::test]
async fn every_rpc_is_timed_with_its_code() {
    let srv = start().await;
    let mut g = srv.games().await;
    let mut l = srv.lexicons().await;
    let c = two_humans(&mut g, 3).await;
    let id = c.game_id.clone();
    for _ in 0..2 {
        g.get_game(pb::GetGameRequest { game_id: id.clone() }).await.unwrap();
    }
    let missing = uuid::Uuid::new_v4().to_string();
    let _ = g.get_game(pb::GetGameRequest { game_id: missing }).await.unwrap_err();
    let _ = g.export_gcg(pb::ExportGcgRequest { game_id: "nope".into() }).await.unwrap_err();
    let pass = Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    // A stale turn is refused with ABORTED.
    let _ = g.submit_turn(authed(turn(&id, 9, pass.clone()), &c.seat_tokens[0])).await.unwrap_err();
    g.submit_turn(authed(turn(&id, 0, pass), &c.seat_tokens[0])).await.unwrap();
    l.list_lexicons(pb::ListLexiconsRequest {}).await.unwrap();
    // A method we do not have: UNIMPLEMENTED, counted under `other`.
    let channel = tonic::transport::Channel::from_shared(srv.url.clone()).unwrap().connect().await.unwrap();
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.unwrap();
    let path = http::uri::PathAndQuery::from_static("/dawgref.v1.Games/Bogus");
    let codec = tonic_prost::ProstCodec::<pb::GetGameRequest, pb::GameView>::default();
    let bogus =
        grpc.unary(tonic::Request::new(pb::GetGameRequest { game_id: id.clone() }), path, codec).await;
    assert_eq!(bogus.unwrap_err().code(), tonic::Code::Unimplemented);
    let body = srv.handle.state.metrics.render();
    assert_eq!(count(&body, "CreateGame", "OK"), 1, "{body}");
    assert_eq!(count(&body, "GetGame", "OK"), 2, "{body}");
    assert_eq!(count(&body, "GetGame", "NotFound"), 1, "{body}");
    assert_eq!(count(&body, "ExportGcg", "InvalidArgument"), 1, "{body}");
    assert_eq!(count(&body, "SubmitTurn", "Aborted"), 1, "{body}");
    assert_eq!(count(&body, "SubmitTurn", "OK"), 1, "{body}");
    assert_eq!(count(&body, "ListLexicons", "OK"), 1, "{body}");
    assert_eq!(count(&body, "other", "Unimplemented"), 1, "{body}");
    assert!(!body.contains("method=\"Bogus\""), "{body}");
}

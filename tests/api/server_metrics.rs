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
    l.list_rulesets(pb::ListRulesetsRequest {}).await.unwrap();
    // A method we do not have: UNIMPLEMENTED, counted under `other`.
    let channel = tonic::transport::Channel::from_shared(srv.url.clone()).unwrap().connect().await.unwrap();
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.unwrap();
    let path = http::uri::PathAndQuery::from_static("/dawgref.v1.GamesService/Bogus");
    let codec = tonic_prost::ProstCodec::<pb::GetGameRequest, pb::GameView>::default();
    let bogus =
        grpc.unary(tonic::Request::new(pb::GetGameRequest { game_id: id.clone() }), path, codec).await;
    assert_eq!(bogus.unwrap_err().code(), tonic::Code::Unimplemented);
    let body = srv.handle.metrics().render();
    assert_eq!(count(&body, "CreateGame", "OK"), 1, "{body}");
    assert_eq!(count(&body, "GetGame", "OK"), 2, "{body}");
    assert_eq!(count(&body, "GetGame", "NotFound"), 1, "{body}");
    assert_eq!(count(&body, "ExportGcg", "InvalidArgument"), 1, "{body}");
    assert_eq!(count(&body, "SubmitTurn", "Aborted"), 1, "{body}");
    assert_eq!(count(&body, "SubmitTurn", "OK"), 1, "{body}");
    assert_eq!(count(&body, "ListLexicons", "OK"), 1, "{body}");
    assert_eq!(count(&body, "ListRulesets", "OK"), 1, "{body}");
    assert_eq!(count(&body, "other", "Unimplemented"), 1, "{body}");
    assert!(!body.contains("method=\"Bogus\""), "{body}");
}

/// Every method of every service the server serves (its protos, health, reflection), read from
/// the descriptor sets, is called once (an empty request: most are refused, which is timed too)
/// and found in `/metrics` under its own name, with no list of methods kept anywhere.
#[tokio::test]
async fn every_method_served_is_timed_under_its_name() {
    use prost::Message;
    let srv = start().await;
    let channel = tonic::transport::Channel::from_shared(srv.url.clone()).unwrap().connect().await.unwrap();
    let sets = [
        dawgref::proto::FILE_DESCRIPTOR_SET,
        tonic_health::pb::FILE_DESCRIPTOR_SET,
        tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET,
    ];
    let mut called = Vec::new();
    for set in sets {
        for file in prost_types::FileDescriptorSet::decode(set).unwrap().file {
            for service in &file.service {
                for method in &service.method {
                    let path = format!("/{}.{}/{}", file.package(), service.name(), method.name());
                    let path = http::uri::PathAndQuery::try_from(path).unwrap();
                    let mut grpc = tonic::client::Grpc::new(channel.clone());
                    grpc.ready().await.unwrap();
                    let codec = tonic_prost::ProstCodec::<(), ()>::default();
                    let call = async {
                        match (method.client_streaming(), method.server_streaming()) {
                            (false, false) => {
                                let _ = grpc.unary(tonic::Request::new(()), path, codec).await;
                            }
                            (false, true) => {
                                if let Ok(mut s) =
                                    grpc.server_streaming(tonic::Request::new(()), path, codec).await
                                {
                                    let _ = s.get_mut().message().await;
                                }
                            }
                            _ => {
                                let requests = tokio_stream::iter(vec![()]);
                                if let Ok(mut s) =
                                    grpc.streaming(tonic::Request::new(requests), path, codec).await
                                {
                                    let _ = s.get_mut().message().await;
                                }
                            }
                        }
                    };
                    let _ = tokio::time::timeout(std::time::Duration::from_secs(10), call).await;
                    called.push(method.name().to_string());
                }
            }
        }
    }
    let body = srv.handle.metrics().render();
    let served = dawgref::metrics::served_methods();
    assert!(served.len() >= 30, "{served:?}");
    for m in served {
        assert!(called.contains(m), "{m}");
        let label = format!("method=\"{m}\"");
        let calls: u64 = body
            .lines()
            .filter(|l| l.starts_with("dawgref_rpc_seconds_count{") && l.contains(&label))
            .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
            .sum();
        assert!(calls >= 1, "{m} was called and is not timed:\n{body}");
    }
    assert_eq!(count(&body, "other", "Unimplemented"), 0, "every path called is one of ours");
}

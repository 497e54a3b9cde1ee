//! Operations: health reports SERVING, reflection (v1 and v1alpha) lists the services, a
//! grpc-web request over plain HTTP/1.1 succeeds, and shutdown ends open streams.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

async fn channel(srv: &TestServer) -> tonic::transport::Channel {
    tonic::transport::Endpoint::from_shared(srv.url.clone()).unwrap().connect().await.unwrap()
}

#[tokio::test]
async fn health_reports_serving() {
    let srv = start().await;
    let mut h = tonic_health::pb::health_client::HealthClient::new(channel(&srv).await);
    for service in ["", "dawgref.v1.GamesService", "dawgref.v1.AnalysisService", "dawgref.v1.LexiconsService"]
    {
        let r = h
            .check(tonic_health::pb::HealthCheckRequest { service: service.into() })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            r.status,
            tonic_health::pb::health_check_response::ServingStatus::Serving as i32,
            "{service}"
        );
    }
}

#[tokio::test]
async fn reflection_lists_the_services() {
    use tonic_reflection::pb::v1::ServerReflectionRequest;
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
    let srv = start().await;
    let mut c = ServerReflectionClient::new(channel(&srv).await);
    let req = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut stream = c.server_reflection_info(tokio_stream::iter(vec![req])).await.unwrap().into_inner();
    let resp = stream.message().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = resp.message_response else { panic!("{resp:?}") };
    let mut names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    names.sort();
    for wanted in [
        "dawgref.v1.AnalysisService",
        "dawgref.v1.GamesService",
        "dawgref.v1.LexiconsService",
        "grpc.health.v1.Health",
    ] {
        assert!(names.iter().any(|n| n == wanted), "{wanted} missing from {names:?}");
    }
    // The older v1alpha protocol (grpcurl 1.8) answers too.
    use tonic_reflection::pb::v1alpha::server_reflection_client::ServerReflectionClient as AlphaClient;
    let mut c = AlphaClient::new(channel(&srv).await);
    let req = tonic_reflection::pb::v1alpha::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(
            tonic_reflection::pb::v1alpha::server_reflection_request::MessageRequest::ListServices(
                String::new(),
            ),
        ),
    };
    let mut stream = c.server_reflection_info(tokio_stream::iter(vec![req])).await.unwrap().into_inner();
    assert!(stream.message().await.unwrap().unwrap().message_response.is_some());
}

#[tokio::test]
async fn grpc_web_over_http1() {
    let srv = start().await;
    let addr = srv.url.trim_start_matches("http://").to_string();
    let mut tcp = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let request = format!(
        "POST /dawgref.v1.LexiconsService/ListLexicons HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/grpc-web+proto\r\n\
         X-Grpc-Web: 1\r\nContent-Length: 5\r\nConnection: close\r\n\r\n"
    );
    tcp.write_all(request.as_bytes()).await.unwrap();
    tcp.write_all(&[0, 0, 0, 0, 0]).await.unwrap();
    let mut response = Vec::new();
    tcp.read_to_end(&mut response).await.unwrap();
    let text = String::from_utf8_lossy(&response);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains("application/grpc-web"), "{text}");
    assert!(text.contains("grpc-status:0"), "{text}");
    assert!(text.contains("erudit"), "the lexicon list is in the body: {text}");
}

#[tokio::test]
async fn shutdown_ends_open_streams() {
    let srv = start().await;
    let mut g = srv.games().await;
    let created = two_humans(&mut g, 51).await;
    let mut w = g
        .watch_game(pb::WatchGameRequest { game_id: created.game_id, from_event: 0 })
        .await
        .unwrap()
        .into_inner();
    srv.handle.shutdown();
    let end =
        tokio::time::timeout(std::time::Duration::from_secs(5), w.message()).await.expect("the stream ends");
    match end {
        Err(s) => assert_eq!(s.code(), tonic::Code::Unavailable),
        Ok(None) => {}
        Ok(Some(e)) => panic!("unexpected event {e:?}"),
    }
}

/// The server's log written to a file is plain text: no terminal colour codes.
#[tokio::test]
async fn the_log_written_to_a_file_has_no_colour_codes() {
    let dir = TempDir::new("plain-log");
    let log = dir.0.join("server.log");
    let (mut child, _) = common::binary::serve_on_free_port(|port| {
        common::binary::serve(port)
            .args(["--data-dir", ":memory:"])
            .env("RUST_LOG", "info")
            .env_remove("NO_COLOR")
            .stdout(std::fs::File::create(&log).unwrap())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the server binary starts")
    })
    .await;
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("INFO"), "{text}");
    assert!(!text.contains('\u{1b}'), "{text:?}");
}

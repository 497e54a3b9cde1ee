//! The page is served on the gRPC port over plain HTTP/1.1: its four routes, its files with
//! their types, gzip when asked, 304 for an unchanged file, 404 for anything else, and the
//! security headers; gRPC on the same port is untouched.

use crate::common;

use common::server::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One HTTP/1.1 request on its own connection: (status, headers lower-cased, body).
async fn http(
    srv: &TestServer,
    method: &str,
    path: &str,
    extra: &str,
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let addr = srv.url.trim_start_matches("http://");
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{extra}\r\n");
    s.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a complete head");
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let mut lines = head.lines();
    let status = lines.next().unwrap().split_whitespace().nth(1).unwrap().parse().unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, raw[split + 4..].to_vec())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

#[tokio::test]
async fn the_four_routes_answer_the_page() {
    let srv = start().await;
    let game = "/games/4b8d1c39-5a9e-4d3a-9b7e-0d2f6c1a2b3c";
    for path in ["/", "/director", game, &format!("{game}/review")] {
        let (status, headers, body) = http(&srv, "GET", path, "").await;
        assert_eq!(status, 200, "{path}");
        assert_eq!(header(&headers, "content-type"), Some("text/html; charset=utf-8"));
        assert!(String::from_utf8(body).unwrap().contains(r#"<script type="module" src="/web/app.js">"#));
        let csp = header(&headers, "content-security-policy").unwrap();
        assert!(csp.contains("default-src 'self'") && csp.contains("connect-src 'self'"), "{csp}");
        assert_eq!(header(&headers, "referrer-policy"), Some("no-referrer"));
        assert_eq!(header(&headers, "x-content-type-options"), Some("nosniff"));
    }
}

#[tokio::test]
async fn files_come_gzipped_when_asked_and_unchanged_files_are_not_sent_again() {
    let srv = start().await;
    let (status, headers, plain) = http(&srv, "GET", "/web/app.js", "").await;
    assert_eq!(status, 200);
    assert_eq!(header(&headers, "content-type"), Some("text/javascript; charset=utf-8"));
    assert_eq!(header(&headers, "content-encoding"), None);
    assert_eq!(plain, include_bytes!("../../web/app.js"));
    let etag = header(&headers, "etag").unwrap().to_string();

    let (status, headers, gz) = http(&srv, "GET", "/web/app.js", "Accept-Encoding: br, gzip;q=0.8\r\n").await;
    assert_eq!(status, 200);
    assert_eq!(header(&headers, "content-encoding"), Some("gzip"));
    assert_eq!(header(&headers, "vary"), Some("accept-encoding"));
    let mut unzipped = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(gz.as_slice()), &mut unzipped).unwrap();
    assert_eq!(unzipped, plain);
    assert!(gz.len() < plain.len() / 2);

    let (status, _, body) = http(&srv, "GET", "/web/app.js", &format!("If-None-Match: {etag}\r\n")).await;
    assert_eq!((status, body.len()), (304, 0));
    let (status, headers, body) = http(&srv, "HEAD", "/web/style.css", "").await;
    assert_eq!((status, body.len()), (200, 0));
    assert_eq!(header(&headers, "content-type"), Some("text/css; charset=utf-8"));
}

#[tokio::test]
async fn the_schema_and_rules_are_served_as_json() {
    let srv = start().await;
    let (status, headers, body) = http(&srv, "GET", "/web/schema.json", "").await;
    assert_eq!(status, 200);
    assert_eq!(header(&headers, "content-type"), Some("application/json"));
    let schema: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        schema["services"]["dawgref.v1.GamesService"]["ListGames"],
        serde_json::json!(["dawgref.v1.ListGamesRequest", "dawgref.v1.ListGamesResponse", false])
    );
    let (_, _, body) = http(&srv, "GET", "/web/rules.json", "").await;
    let rules: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(rules["russian"]["letters"].as_array().unwrap().len(), 33);
    assert_eq!(rules["russian"]["enum"], "RULESET_RUSSIAN");
    assert_eq!(rules["english"]["values"]["Z"], 10);
    assert_eq!(rules["erudit"]["premiums"].as_array().unwrap().len(), 15);
    // Every shipped ruleset is drawn: Spanish's digraphs by their labels, typed as 1, 2, 3.
    assert_eq!(rules["spanish"]["values"]["CH"], 5);
    assert_eq!(rules["spanish"]["aliases"]["2"], "LL");
    assert_eq!(rules["spanish"]["enum"], "");
}

#[tokio::test]
async fn other_paths_are_not_found_and_grpc_still_answers() {
    let srv = start().await;
    for path in [
        "/web/missing.js",
        "/web/../Cargo.toml",
        "/games/",
        "/games/a/b",
        "/games//review",
        "/games/a/review/b",
        "/metrics",
    ] {
        let (status, headers, _) = http(&srv, "GET", path, "").await;
        assert_eq!(status, 404, "{path}");
        assert_eq!(header(&headers, "content-type"), Some("text/plain; charset=utf-8"));
    }
    let mut g = srv.games().await;
    let created = two_humans(&mut g, 1).await;
    assert_eq!(created.view.unwrap().seats.len(), 2);
}

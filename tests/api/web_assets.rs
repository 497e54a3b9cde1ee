//! The page is served on the gRPC port over plain HTTP/1.1: its four routes, its files with
//! their types, gzip when asked, 304 for an unchanged file, 404 for anything else, and the
//! security headers; gRPC on the same port is untouched.

use crate::common;

use common::server::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One HTTP/1.1 request without a body on its own connection: (status, headers lower-cased, body).
async fn http(
    srv: &TestServer,
    method: &str,
    path: &str,
    extra: &str,
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    exchange(srv, method, path, extra, &[]).await
}

/// One HTTP/1.1 request on its own connection, `extra` its own header lines and `body` sent
/// after the head: (status, headers lower-cased, body).
async fn exchange(
    srv: &TestServer,
    method: &str,
    path: &str,
    extra: &str,
    body: &[u8],
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let addr = srv.url.trim_start_matches("http://");
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{extra}\r\n");
    s.write_all(request.as_bytes()).await.unwrap();
    s.write_all(body).await.unwrap();
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

/// One POST of the text `body` on its own connection: (status, headers lower-cased, body).
async fn post(srv: &TestServer, path: &str, body: &[u8]) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let head = format!("Content-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n", body.len());
    exchange(srv, "POST", path, &head, body).await
}

/// What a camera reads off the QR code `svg` draws: its dark rectangles (the `M… h… v…` runs of
/// its one path) rasterized at two pixels a unit, then read by an independent decoder (rqrr).
fn read_qr(svg: &str) -> Vec<u8> {
    let number = |after: &str| -> u32 {
        let at = svg.find(after).unwrap_or_else(|| panic!("{after} in {svg:.200}")) + after.len();
        svg[at..].split('"').next().unwrap().parse().unwrap()
    };
    let side = number("width=\"") as usize;
    assert_eq!(number("height=\"") as usize, side);
    let path = svg.split(" d=\"").nth(1).unwrap().split('"').next().unwrap();
    let mut dark = vec![false; side * side];
    for run in path.split('M').filter(|r| !r.is_empty()) {
        // `{left} {top}h{width}v{height}H{left}V{top}`
        let mut parts = run.split(['h', 'v', 'H', 'V', ' ']).map(|n| n.parse::<usize>().unwrap());
        let (left, top, width, height) =
            (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
        for y in top..top + height {
            for x in left..left + width {
                dark[y * side + x] = true;
            }
        }
    }
    let scale = 2;
    let mut image = rqrr::PreparedImage::prepare_from_greyscale(side * scale, side * scale, |x, y| {
        if dark[(y / scale) * side + x / scale] { 0 } else { 255 }
    });
    let grids = image.detect_grids();
    assert_eq!(grids.len(), 1, "one QR code in the picture");
    let mut read = Vec::new();
    grids[0].decode_to(&mut read).expect("the QR code reads");
    read
}

/// Issue 82, item 11: `POST /web/qr.svg` draws the QR code of its body, never cached; what it
/// draws reads back to exactly the text sent, over generated texts of every length up to the
/// limit (ASCII links with tokens, Cyrillic, any Unicode).
#[tokio::test]
async fn a_qr_code_is_drawn_of_the_text_posted_and_reads_back_to_it() {
    use proptest::strategy::{Strategy, ValueTree};
    let srv = start().await;
    let link = format!("{}/tournaments/spring-open#token=0123456789abcdef0123456789abcdef", srv.url);
    let mut texts = vec![link, "a".into(), "x".repeat(1024), "Ё".repeat(512)];
    let strategies = [
        proptest::string::string_regex("[a-z0-9:/.#=-]{1,300}").unwrap().boxed(),
        proptest::string::string_regex("[а-яё ]{1,200}").unwrap().boxed(),
        proptest::string::string_regex(".{1,250}").unwrap().boxed(),
    ];
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for i in 0..60 {
        texts.push(strategies[i % 3].new_tree(&mut runner).unwrap().current());
    }
    for text in texts {
        let (status, headers, body) = post(&srv, "/web/qr.svg", text.as_bytes()).await;
        assert_eq!(status, 200, "{text:?}");
        assert_eq!(header(&headers, "content-type"), Some("image/svg+xml"));
        assert_eq!(header(&headers, "cache-control"), Some("no-store"));
        assert_eq!(read_qr(std::str::from_utf8(&body).unwrap()), text.as_bytes(), "{text:?}");
    }
}

/// Issue 82, item 11: a QR code's text is bounded and must be text: more than 1,024 bytes is
/// 413, an empty body or one that is not UTF-8 is 400, each said in words; a GET of the path is
/// not a page (404).
#[tokio::test]
async fn a_qr_code_of_too_much_or_of_no_text_is_refused_in_words() {
    let srv = start().await;
    let cases: [(&[u8], u16, &str); 3] = [
        (&[b'x'; 1025], 413, "the text of a QR code is at most 1024 bytes\n"),
        (b"", 400, "send the text to draw as a QR code in the body\n"),
        (b"\xff\xfe", 400, "the text of a QR code must be UTF-8\n"),
    ];
    for (body, status, said) in cases {
        let answer = post(&srv, "/web/qr.svg", body).await;
        assert_eq!((answer.0, String::from_utf8(answer.2).unwrap().as_str()), (status, said));
        assert_eq!(header(&answer.1, "content-type"), Some("text/plain; charset=utf-8"));
    }
    let (status, _, _) = http(&srv, "GET", "/web/qr.svg", "").await;
    assert_eq!(status, 404);
}

/// The keys (English texts) of a dictionary's source: every string followed by `:`, in order.
fn dictionary_keys(source: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut chars = source.char_indices();
    while let Some((_, c)) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut text = String::new();
        let mut end = None;
        while let Some((at, c)) = chars.next() {
            match c {
                '\\' => text.extend(chars.next().map(|(_, c)| c)),
                '"' => {
                    end = Some(at + 1);
                    break;
                }
                c => text.push(c),
            }
        }
        if end.is_some_and(|end| source[end..].trim_start().starts_with(':')) {
            keys.push(text);
        }
    }
    keys
}

/// Two pages' texts under one English key: the later silently replaces the earlier's Russian.
#[test]
fn the_russian_dictionary_says_each_english_text_once() {
    let source = include_str!("../../web/i18n.js");
    let (from, to) = (source.find("const RU = {").unwrap(), source.find("const NOUNS").unwrap());
    let keys = dictionary_keys(&source[from..to]);
    assert!(keys.len() > 500, "the dictionary read: {} keys", keys.len());
    let mut seen = std::collections::HashSet::new();
    let twice: Vec<&String> = keys.iter().filter(|k| !seen.insert(k.as_str())).collect();
    assert!(twice.is_empty(), "said twice in web/i18n.js: {twice:?}");
}

//! The browser client, served on the gRPC port: the page (`/`, `/games/<id>`,
//! `/games/<id>/review`, `/director`, `/bots`, `/tournaments`, `/tournaments/<slug>`,
//! `/tournaments/<slug>/hall` (the hall display), `/tournaments/<slug>/print` (the scorecards and
//! pairing sheets to print), all the same single page that routes itself),
//! its modules and style (`/web/…`, embedded in the
//! binary from `web/`), and two documents generated here so that the page has one source of
//! truth with the server: `/web/schema.json` (every message of our protos, from the descriptor
//! set the server was built with, for the page's protobuf codec) and `/web/rules.json` (boards,
//! letters and tile values of the three rulesets, from the engine).
//!
//! One POST is answered here too: `/web/qr.svg` draws the QR code of the text it is sent (a
//! seat link, for a player to scan off the director's screen). The text travels in the body, so
//! a seat token never stands in a URL that a proxy or a log could keep.
//!
//! The page talks to the server in grpc-web (tonic-web answers it on the same port). This
//! layer sits outside tonic-web and answers every GET and HEAD itself: gRPC and grpc-web
//! requests are POSTs, and tonic-web refuses any other HTTP/1.1 request.

use crate::alphabet::Alphabet;
use crate::rules::{Ruleset, RulesetKind};
use axum::body::Bytes;
use http::{HeaderValue, Method, StatusCode, header};
use std::fmt::Write as _;
use std::future::Future;
use std::pin::Pin;
use std::sync::LazyLock;
use std::task::{Context, Poll};
use tonic::body::Body;

/// One file the page loads, as it is and gzipped (compressed once, at the first request).
struct Asset {
    path: &'static str,
    content_type: &'static str,
    plain: Encoded,
    gzip: Encoded,
}

/// One representation of an asset.
struct Encoded {
    body: Bytes,
    /// Changes whenever the content does (`ETag`): a reload asks, and gets 304 when unchanged.
    etag: HeaderValue,
}

impl Asset {
    fn new(path: &'static str, content_type: &'static str, body: Bytes) -> Asset {
        use std::io::Write as _;
        let hash = xxhash_rust::xxh3::xxh3_64(&body);
        let tag = |suffix| {
            HeaderValue::from_str(&format!("\"{hash:016x}{suffix}\"")).expect("hex is a header value")
        };
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&body).expect("writing to memory");
        let gzipped = gz.finish().expect("writing to memory");
        Asset {
            path,
            content_type,
            gzip: Encoded { body: Bytes::from(gzipped), etag: tag("-gz") },
            plain: Encoded { body, etag: tag("") },
        }
    }
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const JSON: &str = "application/json";
const SVG: &str = "image/svg+xml";

/// Every file, built once.
static ASSETS: LazyLock<Vec<Asset>> = LazyLock::new(|| {
    let file = |path, content_type, text: &'static str| {
        Asset::new(path, content_type, Bytes::from_static(text.as_bytes()))
    };
    vec![
        file("index.html", HTML, include_str!("../../web/index.html")),
        file("app.js", JS, include_str!("../../web/app.js")),
        file("board.js", JS, include_str!("../../web/board.js")),
        file("i18n.js", JS, include_str!("../../web/i18n.js")),
        file("review.js", JS, include_str!("../../web/review.js")),
        file("tournament.js", JS, include_str!("../../web/tournament.js")),
        file("plan.js", JS, include_str!("../../web/plan.js")),
        file("tournament_report.js", JS, include_str!("../../web/tournament_report.js")),
        file("reviews.js", JS, include_str!("../../web/reviews.js")),
        file("broadcast.js", JS, include_str!("../../web/broadcast.js")),
        file("bots.js", JS, include_str!("../../web/bots.js")),
        file("hall.js", JS, include_str!("../../web/hall.js")),
        file("checkin.js", JS, include_str!("../../web/checkin.js")),
        file("print.js", JS, include_str!("../../web/print.js")),
        file("ui.js", JS, include_str!("../../web/ui.js")),
        file("grpc.js", JS, include_str!("../../web/grpc.js")),
        file("style.css", CSS, include_str!("../../web/style.css")),
        file("icon.svg", SVG, include_str!("../../web/icon.svg")),
        Asset::new("schema.json", JSON, Bytes::from(schema_json())),
        Asset::new("rules.json", JSON, Bytes::from(rules_json())),
    ]
});

/// The asset a GET path names: the page for its four routes, `/web/<file>` for the rest.
fn asset_for(path: &str) -> Option<&'static Asset> {
    let game_page = |id: &str| !id.is_empty() && !id.contains('/');
    let name = match path {
        "/" | "/director" | "/director/" | "/tournaments" | "/tournaments/" => "index.html",
        p if p
            .strip_prefix("/tournaments/")
            .is_some_and(|slug| game_page(slug.strip_suffix('/').unwrap_or(slug))) =>
        {
            "index.html"
        }
        p if p
            .strip_prefix("/tournaments/")
            .and_then(|rest| rest.strip_suffix("/hall").or_else(|| rest.strip_suffix("/hall/")))
            .is_some_and(game_page) =>
        {
            "index.html"
        }
        p if p
            .strip_prefix("/tournaments/")
            .and_then(|rest| rest.strip_suffix("/print").or_else(|| rest.strip_suffix("/print/")))
            .is_some_and(game_page) =>
        {
            "index.html"
        }
        p if p.strip_prefix("/games/").is_some_and(game_page) => "index.html",
        "/broadcasts" | "/broadcasts/" | "/bots" | "/bots/" => "index.html",
        p if p.strip_prefix("/broadcasts/").is_some_and(|rest| {
            let rest = rest.strip_suffix('/').unwrap_or(rest);
            game_page(rest)
                || rest.split_once("/games/").is_some_and(|(slug, game)| {
                    game_page(slug) && game.strip_suffix("/overlay").is_some_and(game_page)
                })
        }) =>
        {
            "index.html"
        }
        p if p
            .strip_prefix("/games/")
            .and_then(|rest| rest.strip_suffix("/review").or_else(|| rest.strip_suffix("/review/")))
            .is_some_and(game_page) =>
        {
            "index.html"
        }
        // What a browser asks for by itself, on any page that names no icon.
        "/favicon.ico" => "icon.svg",
        p => p.strip_prefix("/web/")?,
    };
    ASSETS.iter().find(|a| a.path == name)
}

/// The answer to one GET or HEAD.
fn respond(method: &Method, path: &str, request: &http::HeaderMap) -> http::Response<Body> {
    let Some(asset) = asset_for(path) else {
        return plain(
            StatusCode::NOT_FOUND,
            "not found: the page is at /, /games/<id>, /games/<id>/review and /director\n",
        );
    };
    let gzip = request
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|coding| coding.split(';').next().is_some_and(|c| c.trim().eq_ignore_ascii_case("gzip")));
    let chosen = if gzip { &asset.gzip } else { &asset.plain };
    let unchanged = request.get(header::IF_NONE_MATCH).is_some_and(|tag| tag == chosen.etag);
    let body = if unchanged || method == Method::HEAD {
        Body::empty()
    } else {
        Body::new(axum::body::Body::from(chosen.body.clone()))
    };
    let mut response = http::Response::new(body);
    if unchanged {
        *response.status_mut() = StatusCode::NOT_MODIFIED;
    }
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(asset.content_type));
    if gzip {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    if !unchanged {
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from(chosen.body.len()));
    }
    headers.insert(header::ETAG, chosen.etag.clone());
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    secure(headers);
    response
}

/// Where the page asks for a QR code.
const QR_PATH: &str = "/web/qr.svg";

/// The most text a QR code is drawn of: a seat link is about a hundred bytes, and a code of a
/// kilobyte is still read by a phone's camera off a screen.
pub const MAX_QR_TEXT_BYTES: usize = 1024;

/// The answer to `POST /web/qr.svg`: the QR code of the body's text (UTF-8, 1 to
/// [`MAX_QR_TEXT_BYTES`] bytes) as SVG, error correction level M, with its quiet zone; never
/// cached, since the text may be a seat link. 413 for a longer body, 400 for an empty one or one
/// that is not UTF-8.
async fn qr_code<B>(request: http::Request<B>) -> http::Response<Body>
where
    B: axum::body::HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    const TOO_LONG: &str = "the text of a QR code is at most 1024 bytes\n";
    let declared =
        (request.headers().get(header::CONTENT_LENGTH)).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_QR_TEXT_BYTES as u64) {
        return plain(StatusCode::PAYLOAD_TOO_LARGE, TOO_LONG);
    }
    let body = axum::body::Body::new(request.into_body());
    let Ok(bytes) = axum::body::to_bytes(body, MAX_QR_TEXT_BYTES).await else {
        return plain(StatusCode::PAYLOAD_TOO_LARGE, TOO_LONG);
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return plain(StatusCode::BAD_REQUEST, "the text of a QR code must be UTF-8\n");
    };
    if text.is_empty() {
        return plain(StatusCode::BAD_REQUEST, "send the text to draw as a QR code in the body\n");
    }
    let svg = match qrcode::QrCode::with_error_correction_level(text, qrcode::EcLevel::M) {
        Ok(code) => {
            code.render::<qrcode::render::svg::Color>().min_dimensions(256, 256).quiet_zone(true).build()
        }
        // Unreachable for 1024 bytes at level M (a version 40 code holds 2331), kept as an answer.
        Err(e) => {
            return plain_owned(StatusCode::PAYLOAD_TOO_LARGE, format!("no QR code holds this text: {e}\n"));
        }
    };
    let mut response = http::Response::new(Body::new(axum::body::Body::from(svg)));
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(SVG));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    secure(headers);
    response
}

fn plain(status: StatusCode, text: &'static str) -> http::Response<Body> {
    plain_owned(status, text.to_owned())
}

fn plain_owned(status: StatusCode, text: String) -> http::Response<Body> {
    let mut response = http::Response::new(Body::new(axum::body::Body::from(text)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    secure(headers);
    response
}

/// The page loads only its own files and talks only to its own origin; seat tokens live in the
/// URL's fragment, which browsers never send, and no referrer leaves the page.
fn secure(headers: &mut http::HeaderMap) {
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; \
             connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        ),
    );
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
}

/// The tower layer that serves the page in front of tonic-web.
#[derive(Clone, Copy, Default)]
pub struct WebLayer;

impl<S> tower::Layer<S> for WebLayer {
    type Service = Web<S>;
    fn layer(&self, inner: S) -> Web<S> {
        Web { inner }
    }
}

#[derive(Clone)]
pub struct Web<S> {
    inner: S,
}

impl<S, B> tower::Service<http::Request<B>> for Web<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<Body>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    B: axum::body::HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = http::Response<Body>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<http::Response<Body>, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let method = request.method();
        if method == Method::GET || method == Method::HEAD {
            let response = respond(method, request.uri().path(), request.headers());
            return Box::pin(std::future::ready(Ok(response)));
        }
        if method == Method::POST && request.uri().path() == QR_PATH {
            return Box::pin(async move { Ok(qr_code(request).await) });
        }
        Box::pin(self.inner.call(request))
    }
}

/// Every message and enum of `dawgref.v1` as JSON, for the page's codec:
/// `{"messages": {"dawgref.v1.Tile": [[number, "name", "type", repeated, "type name", "oneof"], …]},
///   "enums": {"dawgref.v1.Ruleset": {"RULESET_ENGLISH": 1, …}},
///   "services": {"dawgref.v1.GamesService": {"WatchGame": ["request type", "response type", streams]}}}`.
/// Types are the proto scalar names, `message`, `enum`, or `map` (its type name the map's entry
/// message, `key` and `value`); a proto3 `optional` is its own synthetic oneof, named with a
/// leading `_`.
pub fn schema_json() -> String {
    use prost::Message as _;
    use prost_types::field_descriptor_proto::{Label, Type};
    let set = prost_types::FileDescriptorSet::decode(crate::proto::FILE_DESCRIPTOR_SET)
        .expect("the descriptor set the build wrote decodes");
    let mut messages = String::new();
    let mut enums = String::new();
    let mut add_enum = |full: &str, e: &prost_types::EnumDescriptorProto| {
        let values: Vec<String> =
            e.value.iter().map(|v| format!("{}:{}", json_string(v.name()), v.number())).collect();
        let _ = write!(enums, "{}{}:{{{}}}", comma(&enums), json_string(full), values.join(","));
    };
    fn walk(
        prefix: &str,
        m: &prost_types::DescriptorProto,
        messages: &mut String,
        add_enum: &mut dyn FnMut(&str, &prost_types::EnumDescriptorProto),
    ) {
        let full = format!("{prefix}.{}", m.name());
        // A map field's entry message is one of its message's own nested types.
        let maps: Vec<String> = (m.nested_type.iter())
            .filter(|n| n.options.as_ref().and_then(|o| o.map_entry) == Some(true))
            .map(|n| format!("{full}.{}", n.name()))
            .collect();
        let fields: Vec<String> = m
            .field
            .iter()
            .map(|f| {
                let ty = match f.r#type() {
                    Type::Message if maps.iter().any(|e| e == f.type_name().trim_start_matches('.')) => "map",
                    Type::Message => "message",
                    Type::Enum => "enum",
                    Type::String => "string",
                    Type::Bytes => "bytes",
                    Type::Bool => "bool",
                    Type::Int32 => "int32",
                    Type::Int64 => "int64",
                    Type::Uint32 => "uint32",
                    Type::Uint64 => "uint64",
                    Type::Sint32 => "sint32",
                    Type::Sint64 => "sint64",
                    Type::Fixed32 => "fixed32",
                    Type::Fixed64 => "fixed64",
                    Type::Sfixed32 => "sfixed32",
                    Type::Sfixed64 => "sfixed64",
                    Type::Float => "float",
                    Type::Double => "double",
                    Type::Group => "group",
                };
                let oneof = f.oneof_index.and_then(|i| m.oneof_decl.get(i as usize)).map_or("", |o| o.name());
                format!(
                    "[{},{},{},{},{},{}]",
                    f.number(),
                    json_string(f.name()),
                    json_string(ty),
                    f.label() == Label::Repeated,
                    json_string(f.type_name().trim_start_matches('.')),
                    json_string(oneof)
                )
            })
            .collect();
        let _ = write!(messages, "{}{}:[{}]", comma(messages), json_string(&full), fields.join(","));
        for nested in &m.nested_type {
            walk(&full, nested, messages, add_enum);
        }
        for e in &m.enum_type {
            add_enum(&format!("{full}.{}", e.name()), e);
        }
    }
    let mut services = String::new();
    for file in set.file.iter().filter(|f| f.package() == "dawgref.v1") {
        for service in &file.service {
            let methods: Vec<String> = service
                .method
                .iter()
                .map(|m| {
                    format!(
                        "{}:[{},{},{}]",
                        json_string(m.name()),
                        json_string(m.input_type().trim_start_matches('.')),
                        json_string(m.output_type().trim_start_matches('.')),
                        m.server_streaming()
                    )
                })
                .collect();
            let full = format!("{}.{}", file.package(), service.name());
            let _ = write!(services, "{}{}:{{{}}}", comma(&services), json_string(&full), methods.join(","));
        }
        for e in &file.enum_type {
            add_enum(&format!("{}.{}", file.package(), e.name()), e);
        }
        for m in &file.message_type {
            walk(file.package(), m, &mut messages, &mut add_enum);
        }
    }
    format!("{{\"messages\":{{{messages}}},\"enums\":{{{enums}}},\"services\":{{{services}}}}}")
}

/// Every ruleset as the page draws it, keyed by its name (GameView's `ruleset_name`):
/// `{"english": {"name", "enum": "RULESET_ENGLISH" (or "" for the others), "lexicon": its own
/// lexicon (or ""), "letters": [labels
/// in letter order], "values": {"A": 1, …}, "premiums": [rows of "Q"/"T"/"D" quadruple, triple,
/// double word, "q"/"t"/"d" letter, "." none], "start": [row, col] from 0}, …}`: the board's side
/// is the number of rows.
pub fn rules_json() -> String {
    let mut out = String::new();
    for kind in RulesetKind::all() {
        let rules = Ruleset::new(kind);
        let alphabet: Alphabet = kind.alphabet();
        let letters: Vec<&str> = (0..alphabet.len() as u8).map(|l| alphabet.label(l)).collect();
        let values: Vec<String> = (0..alphabet.len() as u8)
            .map(|l| format!("{}:{}", json_string(alphabet.label(l)), rules.letter_value(l)))
            .collect();
        let rows: Vec<String> = kind.definition().premium_rows().iter().map(|r| json_string(r)).collect();
        // Single-character spellings a player may type for a tile (Catalan's W for L·L).
        let aliases: Vec<String> = alphabet
            .specs()
            .iter()
            .enumerate()
            .flat_map(|(l, s)| s.aliases.iter().map(move |a| (l, a)))
            .filter(|(_, a)| a.chars().count() == 1)
            .map(|(l, a)| {
                format!("{}:{}", json_string(&a.to_uppercase()), json_string(alphabet.label(l as u8)))
            })
            .collect();
        let key = match super::convert::ruleset_to(kind) {
            crate::proto::v1::Ruleset::Unspecified => "",
            e => e.as_str_name(),
        };
        let _ = write!(
            out,
            "{}{}:{{\"name\":{},\"enum\":{},\"lexicon\":{},\"letters\":[{}],\"values\":{{{}}},\"aliases\":{{{}}},\"premiums\":[{}],\"start\":[{},{}]}}",
            comma(&out),
            json_string(kind.name()),
            json_string(kind.name()),
            json_string(key),
            json_string(rules.default_lexicon),
            letters.iter().map(|l| json_string(l)).collect::<Vec<_>>().join(","),
            values.join(","),
            aliases.join(","),
            rows.join(","),
            rules.start().0,
            rules.start().1
        );
    }
    format!("{{{out}}}")
}

fn comma(s: &str) -> &'static str {
    if s.is_empty() { "" } else { "," }
}

/// A JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pages_routes_are_the_page_and_files_are_found_by_name() {
        for path in [
            "/",
            "/director",
            "/games/0f9c6a8e-0000-4000-8000-000000000000",
            "/tournaments",
            "/tournaments/club",
            "/broadcasts",
            "/broadcasts/open-live",
            "/broadcasts/open-live/games/0f9c6a8e-0000-4000-8000-000000000000/overlay",
            "/bots",
        ] {
            assert_eq!(asset_for(path).map(|a| a.path), Some("index.html"), "{path}");
        }
        assert_eq!(asset_for("/web/grpc.js").map(|a| a.content_type), Some(JS));
        // The icon, where the page names it and where a browser looks by itself.
        assert_eq!(asset_for("/web/icon.svg").map(|a| a.content_type), Some(SVG));
        assert_eq!(asset_for("/favicon.ico").map(|a| a.path), Some("icon.svg"));
        assert!(include_str!("../../web/index.html").contains(r#"<link rel="icon" href="/web/icon.svg""#));
        let app = asset_for("/web/app.js").unwrap();
        assert!(app.gzip.body.len() < app.plain.body.len() / 2, "scripts shrink by half gzipped");
        assert_ne!(app.gzip.etag, app.plain.etag);
        assert!(asset_for("/web/../Cargo.toml").is_none());
        assert!(asset_for("/games/").is_none());
        assert!(asset_for("/games/a/b").is_none());
        assert!(asset_for("/etc/passwd").is_none());
    }

    #[test]
    fn json_strings_escape_what_json_needs() {
        assert_eq!(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
        assert_eq!(json_string("Ё"), "\"Ё\"");
    }

    #[test]
    fn the_schema_names_every_field_of_a_message_and_every_enum_value() {
        let schema = schema_json();
        assert!(schema.contains(r#""dawgref.v1.Tile":[[1,"row","uint32",false,"",""],[2,"col","uint32",false,"",""],[3,"letter","string",false,"",""],[4,"blank","bool",false,"",""]]"#), "{schema}");
        assert!(schema.contains(r#"[9,"resign","message",false,"dawgref.v1.Resign","action"]"#));
        assert!(schema.contains(r#"[7,"time_left_ms","int64",false,"","_time_left_ms"]"#));
        assert!(
            schema.contains(
                r#""WatchGame":["dawgref.v1.WatchGameRequest","dawgref.v1.WatchGameResponse",true]"#
            )
        );
        assert!(schema.contains(r#""dawgref.v1.Ruleset":{"RULESET_UNSPECIFIED":0,"RULESET_ENGLISH":1,"RULESET_RUSSIAN":2,"RULESET_ERUDIT":3}"#));
    }

    #[test]
    fn rules_carry_each_rulesets_board_and_values() {
        let rules = rules_json();
        assert!(
            rules.contains(
                r#""english":{"name":"english","enum":"RULESET_ENGLISH","lexicon":"en","letters":["A","B""#
            ),
            "{rules}"
        );
        // Catalan's digraphs are whole labels, and W types L·L.
        assert!(
            rules.contains(
                r#""catalan":{"name":"catalan","enum":"","lexicon":"","letters":["A","B","C","Ç","D""#
            ),
            "{rules}"
        );
        assert!(rules.contains(r#""L·L":10"#) && rules.contains(r#""W":"L·L""#), "{rules}");
        assert!(rules.contains(r#""Q":10"#));
        assert!(rules.contains(r#""Ё":"#) || rules.contains(r#""Я":3"#));
        // English's first row: triple words at the corners and the middle.
        assert!(rules.contains(r#""premiums":["T..d...T...d..T""#));
    }
}

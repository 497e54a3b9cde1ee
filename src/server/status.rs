//! The last word on every status the server sends, applied as a tower layer around all services
//! (ours, health and reflection alike), so no path can get around it:
//! - a request or response over the message-size limit is RESOURCE_EXHAUSTED, as gRPC's status
//!   code table says (tonic reports it as OUT_OF_RANGE);
//! - no status message or detail grows with the client's input: a message is cut to
//!   [`MESSAGE_CHARS`] characters and oversized binary details are dropped. Handlers already
//!   bound what they echo ([`crate::text::clip`]); this is the net under them.

use http::HeaderValue;
use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};
use tonic::body::Body;

/// The longest status message sent, in characters (a few KB even fully percent-encoded).
pub const MESSAGE_CHARS: usize = 512;
/// The largest `grpc-status-details-bin` sent, in bytes (base64).
pub const DETAILS_BYTES: usize = 4096;

/// What gRPC's wire format percent-encodes in `grpc-message`: everything outside printable
/// ASCII, and '%' itself.
const MESSAGE_ENCODING: &AsciiSet = &CONTROLS.add(b'%').add(0x7f);

const OUT_OF_RANGE: &str = "11";
const RESOURCE_EXHAUSTED: &str = "8";

/// Normalize one response's status headers (a status sent before any message travels in the
/// headers, "trailers-only"; that is where tonic puts every refusal of a request).
pub fn normalize(mut response: http::Response<Body>) -> http::Response<Body> {
    let headers = response.headers_mut();
    let message = headers
        .get("grpc-message")
        .and_then(|v| v.to_str().ok())
        .map(|v| percent_decode_str(v).decode_utf8_lossy().into_owned());
    if headers.get("grpc-status").is_some_and(|s| s == OUT_OF_RANGE)
        && message.as_deref().is_some_and(|m| m.contains("message length too large"))
    {
        headers.insert("grpc-status", HeaderValue::from_static(RESOURCE_EXHAUSTED));
    }
    if let Some(message) = message
        && let Some((cut, _)) = message.char_indices().nth(MESSAGE_CHARS)
    {
        let short = format!("{}… (message cut)", &message[..cut]);
        let encoded = utf8_percent_encode(&short, MESSAGE_ENCODING).to_string();
        if let Ok(value) = HeaderValue::from_str(&encoded) {
            headers.insert("grpc-message", value);
        }
    }
    if headers.get("grpc-status-details-bin").is_some_and(|d| d.len() > DETAILS_BYTES) {
        headers.remove("grpc-status-details-bin");
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status_response(code: &str, message: &str) -> http::Response<Body> {
        let mut r = http::Response::new(Body::empty());
        r.headers_mut().insert("grpc-status", HeaderValue::from_str(code).unwrap());
        let encoded = utf8_percent_encode(message, MESSAGE_ENCODING).to_string();
        r.headers_mut().insert("grpc-message", HeaderValue::from_str(&encoded).unwrap());
        r
    }

    #[test]
    fn oversize_messages_are_resource_exhausted() {
        let r = normalize(status_response(
            "11",
            "Error, decoded message length too large: found 5000 bytes, the limit is: 4096 bytes",
        ));
        assert_eq!(r.headers()["grpc-status"], "8");
        // Another OUT_OF_RANGE is left alone.
        assert_eq!(normalize(status_response("11", "past the end")).headers()["grpc-status"], "11");
    }

    #[test]
    fn long_messages_are_cut_on_a_character() {
        let r = normalize(status_response("3", &"ж".repeat(10_000)));
        let sent = r.headers()["grpc-message"].to_str().unwrap();
        let decoded = percent_decode_str(sent).decode_utf8().unwrap();
        assert_eq!(decoded, format!("{}… (message cut)", "ж".repeat(MESSAGE_CHARS)));
        assert!(sent.len() < 4096, "{}", sent.len());
        let short = normalize(status_response("3", "fine as it is"));
        assert_eq!(
            percent_decode_str(short.headers()["grpc-message"].to_str().unwrap()).decode_utf8().unwrap(),
            "fine as it is"
        );
    }
}

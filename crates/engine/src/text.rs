//! Quoting untrusted text in messages. Every error that names what a client sent (an id, a
//! lexicon name, a coordinate, a GCG line) repeats at most [`CLIP_CHARS`] characters of it, so
//! that no message grows with its input.

/// The most characters of a client's text that a message repeats.
pub const CLIP_CHARS: usize = 40;

/// `text` itself when short; otherwise its first [`CLIP_CHARS`] characters and "…".
pub fn clip(text: &str) -> String {
    clip_to(text, CLIP_CHARS)
}

/// `text` itself when it has at most `chars` characters; otherwise its first `chars` and "…".
pub fn clip_to(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}

/// [`clip`], its control characters escaped as Rust writes them (`\0`, `\n`, `\u{7f}`): a
/// message quoting text from a file or a client never carries a raw NUL or line break.
pub fn clip_printable(text: &str) -> String {
    clip(text)
        .chars()
        .map(|c| if c.is_control() { c.escape_debug().to_string() } else { c.to_string() })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept_and_long_text_is_cut_on_a_character() {
        assert_eq!(clip("abc"), "abc");
        assert_eq!(clip(&"ж".repeat(100_000)), format!("{}…", "ж".repeat(40)));
        assert_eq!(clip(&"a".repeat(40)), "a".repeat(40));
    }

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(clip_printable("A\0\nÑ'\u{7f}"), "A\\0\\nÑ'\\u{7f}");
    }
}

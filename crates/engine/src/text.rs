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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept_and_long_text_is_cut_on_a_character() {
        assert_eq!(clip("abc"), "abc");
        assert_eq!(clip(&"ж".repeat(100_000)), format!("{}…", "ж".repeat(40)));
        assert_eq!(clip(&"a".repeat(40)), "a".repeat(40));
    }
}

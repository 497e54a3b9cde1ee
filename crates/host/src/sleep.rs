//! A game asleep: out of memory after an idle spell, kept as a few bytes ([`Asleep`]: its clock's
//! reading, its next flag, what a listing filters by). The registry of them is the context's.

use tokio::time::Instant;

/// A sleeping game: its clock's reading when it went to sleep, and when; its next flag; and
/// what a listing of live games filters by (seat names, labels), so that listing does not wake it.
#[derive(Clone, Debug)]
pub(super) struct Asleep {
    pub(super) game_ms: u64,
    pub(super) at: Instant,
    pub(super) wake_at: Option<Instant>,
    pub(super) listing: Listing,
}

/// A sleeping game's seat names and labels in one string: inline when short (most games), so
/// that a sleeping game is one slot of the map and no block of its own on the heap, scattered
/// among the pages its awake state used to fill.
#[derive(Clone, Debug)]
pub(super) enum Listing {
    Inline { len: u8, bytes: [u8; 38] },
    Heap(Box<str>),
}

/// Between names, and between a label's key and value.
const UNIT: char = '\u{1f}';
/// Between the names and the labels, and between labels.
const RECORD: char = '\u{1e}';

impl Listing {
    /// Names and labels, whose text has no control characters of the two separators (a name
    /// or label with one is kept with it replaced by a space).
    pub(super) fn new<'a>(names: impl Iterator<Item = &'a str>, labels: &[(String, String)]) -> Listing {
        let clean = |t: &str| t.replace([UNIT, RECORD], " ");
        let mut text = names.map(clean).collect::<Vec<_>>().join(&UNIT.to_string());
        for (k, v) in labels {
            text.push(RECORD);
            text.push_str(&clean(k));
            text.push(UNIT);
            text.push_str(&clean(v));
        }
        let mut bytes = [0u8; 38];
        match bytes.get_mut(..text.len()) {
            Some(inline) => {
                inline.copy_from_slice(text.as_bytes());
                Listing::Inline { len: text.len() as u8, bytes }
            }
            None => Listing::Heap(text.into_boxed_str()),
        }
    }

    fn text(&self) -> &str {
        match self {
            Listing::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..*len as usize]).unwrap_or_default()
            }
            Listing::Heap(text) => text,
        }
    }

    /// The seat names.
    pub(super) fn names(&self) -> Vec<&str> {
        let names = self.text().split(RECORD).next().unwrap_or_default();
        names.split(UNIT).collect()
    }

    /// The labels, in key order.
    pub(super) fn labels(&self) -> Vec<(&str, &str)> {
        self.text().split(RECORD).skip(1).filter_map(|l| l.split_once(UNIT)).collect()
    }
}

impl Asleep {
    /// The game clock's reading now, had the game stayed awake.
    pub(super) fn now_ms(&self) -> u64 {
        self.game_ms.saturating_add(self.at.elapsed().as_millis() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::Listing;

    #[test]
    fn a_listing_keeps_names_and_labels_inline_or_boxed() {
        let labels = vec![("round".to_string(), "3".to_string())];
        let short = Listing::new(["ann", "bo"].into_iter(), &labels);
        assert!(matches!(short, Listing::Inline { .. }));
        assert_eq!(short.names(), ["ann", "bo"]);
        assert_eq!(short.labels(), [("round", "3")]);
        let many = vec![
            ("tournament".to_string(), "Autumn open".to_string()),
            ("table".to_string(), "12".to_string()),
        ];
        let long = Listing::new(["Anastasia", "Bo\u{1e}ris"].into_iter(), &many);
        assert!(matches!(long, Listing::Heap(_)));
        assert_eq!(long.names(), ["Anastasia", "Bo ris"], "a separator in a name is a space");
        assert_eq!(long.labels(), [("tournament", "Autumn open"), ("table", "12")]);
        let bare = Listing::new(["a", "b"].into_iter(), &[]);
        assert_eq!((bare.names(), bare.labels()), (vec!["a", "b"], vec![]));
    }
}

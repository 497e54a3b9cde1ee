//! Word study against a brute-force scan of the whole word list, in all three lexicons:
//! anagrams of random racks (blanks included, with and without a least length) and random
//! patterns find exactly the words a scan finds; hooks are the scan's too.

use crate::common::{lexicon, rules};
use dawgref_engine::alphabet::Letter;
use dawgref_engine::lexicon::study::{MAX_WORD, Order, Pattern, Query, anagrams, find, matching, read_query};
use dawgref_engine::rack::Rack;
use dawgref_engine::rules::RulesetKind;
use proptest::prelude::*;
use std::sync::OnceLock;

/// Every word of a lexicon (at most 15 letters: the shipped lists are compiled for 15×15).
fn words(kind: RulesetKind) -> &'static Vec<Vec<Letter>> {
    static CELLS: [OnceLock<Vec<Vec<Letter>>>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let i = RulesetKind::classic().iter().position(|&k| k == kind).unwrap();
    CELLS[i]
        .get_or_init(|| lexicon(kind).dawg().words().into_iter().filter(|w| w.len() <= MAX_WORD).collect())
}

/// Whether `rack` can spell `word` (blanks for letters it lacks).
fn spells(rack: &Rack, word: &[Letter]) -> bool {
    let mut r = *rack;
    word.iter().all(|&l| r.take(l) || r.take_blank())
}

fn kinds() -> impl Strategy<Value = RulesetKind> {
    prop_oneof![Just(RulesetKind::english()), Just(RulesetKind::russian()), Just(RulesetKind::erudit())]
}

/// A rack of 2 to 8 tiles drawn from the ruleset's bag (so, blanks included, often).
fn rack_in(kind: RulesetKind, picks: &[u16]) -> Rack {
    let tiles: Vec<Option<Letter>> = rules(kind).full_set().tiles().collect();
    let mut rack = Rack::new();
    let mut taken = vec![false; tiles.len()];
    for &p in picks {
        let mut i = p as usize % tiles.len();
        while taken[i] {
            i = (i + 1) % tiles.len();
        }
        taken[i] = true;
        match tiles[i] {
            Some(l) => rack.add(l),
            None => rack.add_blank(),
        }
    }
    rack
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn anagrams_are_the_words_a_scan_finds(kind in kinds(), picks in prop::collection::vec(any::<u16>(), 2..9), short in any::<bool>()) {
        let rack = rack_in(kind, &picks);
        let least = if short { 2 } else { rack.len() };
        let found: Vec<Vec<Letter>> = anagrams(lexicon(kind).dawg(), &rack, least, usize::MAX).into_iter().map(|f| f.word).collect();
        let scan: Vec<Vec<Letter>> = words(kind)
            .iter()
            .filter(|w| w.len() >= least && w.len() <= rack.len() && spells(&rack, w))
            .cloned()
            .collect();
        prop_assert_eq!(found, scan);
    }

    #[test]
    fn patterns_match_what_a_scan_matches(kind in kinds(), parts in prop::collection::vec(0u8..6, 1..6), letters in prop::collection::vec(any::<u8>(), 6)) {
        // Parts: a letter (0, 1), "?" (2), "*" (3), a set of two letters (4), a letter (5).
        let alphabet = kind.alphabet();
        let n = alphabet.len() as u8;
        let mut text = String::new();
        let mut regex_parts: Vec<(u8, u64)> = Vec::new(); // (kind, set)
        for (i, &p) in parts.iter().enumerate() {
            let l = letters[i % letters.len()] % n;
            let m = letters[(i + 1) % letters.len()] % n;
            match p {
                2 => { text.push('?'); regex_parts.push((0, u64::MAX)); }
                3 => { text.push('*'); regex_parts.push((1, 0)); }
                4 => {
                    text.push('[');
                    text.push_str(alphabet.label(l));
                    text.push_str(alphabet.label(m));
                    text.push(']');
                    regex_parts.push((0, 1 << l | 1 << m));
                }
                _ => { text.push_str(alphabet.label(l)); regex_parts.push((0, 1 << l)); }
            }
        }
        let pattern = Pattern::parse(&text, alphabet).unwrap();
        let found = matching(lexicon(kind).dawg(), &pattern, usize::MAX);
        let scan: Vec<Vec<Letter>> = words(kind).iter().filter(|w| fits(&regex_parts, w)).cloned().collect();
        prop_assert_eq!(found, scan, "{}", text);
    }
}

/// A plain backtracking match of a word against pattern parts: (0, set) one letter of the set,
/// (1, _) any run.
fn fits(parts: &[(u8, u64)], word: &[Letter]) -> bool {
    match parts.split_first() {
        None => word.is_empty(),
        Some((&(1, _), rest)) => (0..=word.len()).any(|k| fits(rest, &word[k..])),
        Some((&(_, set), rest)) => !word.is_empty() && set >> word[0] & 1 == 1 && fits(rest, &word[1..]),
    }
}

#[test]
fn hooks_are_the_scans_and_answers_come_sorted_and_limited() {
    for kind in RulesetKind::classic() {
        let alphabet = kind.alphabet();
        let list = words(kind);
        // A short word with hooks on both sides, if the list has one; else any word.
        let word = list.iter().find(|w| w.len() == 3).unwrap().clone();
        let text = alphabet.word_string(&word);
        let query = read_query("hooks", &text, 0, alphabet).unwrap();
        let answers = find(lexicon(kind).dawg(), &rules(kind), &query, Order::Alphabet, 1000);
        let mut scan: Vec<Vec<Letter>> = list
            .iter()
            .filter(|w| w.len() == word.len() + 1 && (w[1..] == word[..] || w[..word.len()] == word[..]))
            .cloned()
            .collect();
        scan.sort();
        let found: Vec<Vec<Letter>> = answers.words.iter().map(|a| a.word.clone()).collect();
        // A word can hook both ways with the same letters (e.g. AA + A): count each side.
        let mut unique = found.clone();
        unique.dedup();
        assert_eq!(unique, scan, "{kind} {text}");
        assert!(answers.valid);
        // Sorted and limited: by probability, then letters; the first `limit` of all.
        let rack = read_query("anagram", "ETAOIN?", 3, alphabet);
        if let Ok(Query::Anagram { .. }) = rack {
            let all = find(
                lexicon(kind).dawg(),
                &rules(kind),
                &rack.clone().unwrap(),
                Order::Probability,
                usize::MAX,
            );
            let first = find(lexicon(kind).dawg(), &rules(kind), &rack.unwrap(), Order::Probability, 10);
            assert_eq!(first.words[..], all.words[..first.words.len()]);
            assert_eq!(first.total, all.total);
            for pair in all.words.windows(2) {
                assert!(pair[0].probability >= pair[1].probability);
            }
        }
    }
    // Bad queries.
    let en = RulesetKind::english().alphabet();
    assert!(read_query("anagram", "", 0, en).is_err());
    assert!(read_query("anagram", &"A".repeat(50), 0, en).is_err());
    // A pattern as long as the largest board is read, and finds no word in a list compiled for
    // 15×15; one longer is refused.
    assert!(read_query("pattern", &"?".repeat(21), 0, en).is_ok());
    assert_eq!(
        read_query("pattern", &"A".repeat(22), 0, en).unwrap_err().to_string(),
        "22 letters: a word on the largest board has at most 21"
    );
    assert!(read_query("hooks", "", 0, en).is_err());
    assert!(read_query("anagram", "AB1", 0, en).is_err());
}

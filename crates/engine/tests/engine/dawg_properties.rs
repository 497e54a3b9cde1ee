//! The DAWG accepts exactly its word set (a `HashSet` is the oracle), and is minimal: its node
//! count equals the number of distinct right-languages of the word set's prefixes.

use dawgref_engine::lexicon::{Dawg, build_sorted};
use proptest::prelude::*;
use std::collections::{BTreeSet, HashSet};

fn build(words: &BTreeSet<Vec<u8>>) -> Dawg {
    build_sorted(6, words.iter().map(|w| w.as_slice())).expect("sorted input builds")
}

/// Random word sets over a 6-letter alphabet: small alphabets force shared structure.
fn word_sets() -> impl Strategy<Value = BTreeSet<Vec<u8>>> {
    prop::collection::btree_set(prop::collection::vec(0u8..6, 1..9), 0..120)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn accepts_exactly_the_set(words in word_sets(), probes in prop::collection::vec((0usize..1000, 0u8..6, 0usize..9, 0u8..3), 50)) {
        let dawg = build(&words);
        let oracle: HashSet<&Vec<u8>> = words.iter().collect();
        prop_assert_eq!(dawg.word_count(), words.len() as u64);
        for w in &words {
            prop_assert!(dawg.contains(w), "member {:?} missing", w);
        }
        // Mutations of members: substitute, insert, delete, truncate.
        let list: Vec<&Vec<u8>> = words.iter().collect();
        for (pick, letter, pos, kind) in probes {
            if list.is_empty() { break; }
            let mut m = list[pick % list.len()].clone();
            let at = pos % (m.len() + 1);
            match kind {
                0 if at < m.len() => m[at] = letter,
                0 | 1 => m.insert(at, letter),
                _ => { m.truncate(at); }
            }
            prop_assert_eq!(dawg.contains(&m), oracle.contains(&m), "probe {:?}", m);
        }
        // Enumeration gives back exactly the set, in order.
        let listed: Vec<Vec<u8>> = dawg.words();
        prop_assert_eq!(listed, words.iter().cloned().collect::<Vec<_>>());
    }

    #[test]
    fn node_count_is_the_number_of_right_languages(words in word_sets()) {
        let dawg = build(&words);
        // Right language of a prefix p: the non-empty suffixes s with p·s in the set. (Word ends
        // live on edges, so the empty suffix is not part of a node's language.) Nodes are the
        // distinct non-empty right languages.
        let mut prefixes: BTreeSet<Vec<u8>> = BTreeSet::new();
        for w in &words {
            for i in 0..w.len() {
                prefixes.insert(w[..i].to_vec());
            }
        }
        let languages: HashSet<Vec<Vec<u8>>> = prefixes
            .iter()
            .map(|p| {
                words.iter()
                    .filter(|w| w.len() > p.len() && w.starts_with(p))
                    .map(|w| w[p.len()..].to_vec())
                    .collect::<Vec<_>>()
            })
            .filter(|l| !l.is_empty())
            .collect();
        prop_assert_eq!(dawg.node_count() as usize, languages.len());
    }
}

#[test]
fn child_letters_and_edges_agree() {
    let words: BTreeSet<Vec<u8>> =
        [vec![0, 1], vec![0, 2, 3], vec![1], vec![1, 5], vec![4, 4, 4]].into_iter().collect();
    let dawg = build(&words);
    let root = dawg.root();
    assert_eq!(dawg.letters(root), 0b10011);
    let letters: Vec<u8> = dawg.edges(root).map(|e| e.letter).collect();
    assert_eq!(letters, vec![0, 1, 4]);
    let b = dawg.child(root, 1).expect("edge b");
    assert!(b.terminal);
    assert_eq!(dawg.letters(b.target), 1 << 5);
    assert!(dawg.child(root, 2).is_none());
    assert!(dawg.child(root, 5).is_none());
    let a = dawg.child(root, 0).expect("edge a");
    assert!(!a.terminal);
    assert_eq!(dawg.walk(root, &[0, 2, 3]).map(|e| e.terminal), Some(true));
    assert_eq!(dawg.walk(root, &[0, 2]).map(|e| e.terminal), Some(false));
    assert_eq!(dawg.walk(root, &[0, 3]), None);
}

//! Which multisets of letters spell a long word: the test that lets best-first search rule out
//! a span taking every rack tile (a bingo) when no word uses exactly those tiles and the
//! board's letters in it.
//!
//! A multiset is keyed by the wrapping sum of a fixed random 64-bit code per letter
//! ([`letter_code`]), so the key of a span is the rack's key plus each board letter's code,
//! added as the span is walked, in any order. The index holds the key of every word of
//! [`MIN_INDEXED`] letters or more, in an open-addressing table (one cache line per lookup).
//!
//! The test is one-sided on purpose: [`Anagrams::may_spell`] is `true` for every multiset that
//! spells a word; two multisets sharing a key (about 2^-64 per pair) only make it say `true`
//! where `false` was due, which loosens a bound and never drops a play.

use super::Dawg;
use crate::alphabet::{Letter, MAX_LETTERS};

/// Words shorter than this are not indexed: [`Anagrams::may_spell`] answers `true` for them.
/// A full rack of seven makes words of seven letters or more.
pub const MIN_INDEXED: usize = 7;

/// The random code of each letter; a multiset's key is the wrapping sum of its letters' codes.
const CODES: [u64; MAX_LETTERS] = {
    let mut codes = [0u64; MAX_LETTERS];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut i = 0;
    while i < MAX_LETTERS {
        // splitmix64
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        codes[i] = z ^ (z >> 31);
        i += 1;
    }
    codes
};

/// The code a letter adds to a multiset's key.
#[inline]
pub fn letter_code(letter: Letter) -> u64 {
    CODES[letter as usize]
}

/// The key of the multiset of `letters`.
pub fn key_of(letters: impl IntoIterator<Item = Letter>) -> u64 {
    letters.into_iter().fold(0u64, |k, l| k.wrapping_add(letter_code(l)))
}

/// The multisets of the lexicon's words of [`MIN_INDEXED`] letters or more.
#[derive(Clone, Debug)]
pub struct Anagrams {
    /// Open addressing, linear probing; `EMPTY_SLOT` marks a free slot (a key equal to it is
    /// stored as `EMPTY_SLOT ^ 1`, and looked up the same way).
    slots: Vec<u64>,
    /// `64 - log2(slots.len())`: a key's home slot is its top bits.
    shift: u32,
    /// Keys stored.
    keys: usize,
}

const EMPTY_SLOT: u64 = 0;

impl Anagrams {
    pub(super) fn build(dawg: &Dawg) -> Anagrams {
        let mut keys = Vec::new();
        collect(dawg, dawg.root(), 0, 0, &mut keys);
        keys.sort_unstable();
        keys.dedup();
        // At most half full, so a probe sequence is short.
        let bits = (keys.len() * 2).max(16).next_power_of_two().trailing_zeros();
        let mut index = Anagrams { slots: vec![EMPTY_SLOT; 1 << bits], shift: 64 - bits, keys: keys.len() };
        for key in keys {
            let key = stored(key);
            let mut i = index.home(key);
            while index.slots[i] != EMPTY_SLOT {
                i = (i + 1) & (index.slots.len() - 1);
            }
            index.slots[i] = key;
        }
        index
    }

    #[inline]
    fn home(&self, key: u64) -> usize {
        (key >> self.shift) as usize
    }

    /// Whether some word of `len` letters may have the multiset of key `key`: `true` for every
    /// word's multiset, and for every length below [`MIN_INDEXED`].
    #[inline]
    pub fn may_spell(&self, key: u64, len: usize) -> bool {
        if len < MIN_INDEXED {
            return true;
        }
        let key = stored(key);
        let mut i = self.home(key);
        loop {
            match self.slots[i] {
                EMPTY_SLOT => return false,
                k if k == key => return true,
                _ => i = (i + 1) & (self.slots.len() - 1),
            }
        }
    }

    /// Multisets indexed.
    pub fn len(&self) -> usize {
        self.keys
    }

    pub fn is_empty(&self) -> bool {
        self.keys == 0
    }
}

#[inline]
fn stored(key: u64) -> u64 {
    if key == EMPTY_SLOT { EMPTY_SLOT ^ 1 } else { key }
}

/// The key of every word below `node`, whose path so far has `depth` letters and key `key`.
fn collect(dawg: &Dawg, node: super::Node, depth: usize, key: u64, out: &mut Vec<u64>) {
    for e in dawg.edges(node) {
        let k = key.wrapping_add(letter_code(e.letter));
        if e.terminal && depth + 1 >= MIN_INDEXED {
            out.push(k);
        }
        if e.target != super::LEAF {
            collect(dawg, e.target, depth + 1, k, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexicon::build_sorted;

    fn dawg(words: &[&str]) -> Dawg {
        let mut words: Vec<Vec<Letter>> =
            words.iter().map(|w| w.bytes().map(|b| b - b'a').collect()).collect();
        words.sort();
        build_sorted(26, words.iter().map(|w| w.as_slice())).unwrap()
    }

    fn key(s: &str) -> u64 {
        key_of(s.bytes().map(|b| b - b'a'))
    }

    #[test]
    fn every_long_word_spells_and_other_multisets_do_not() {
        let d = dawg(&["retains", "stainer", "nastier", "cat", "bananas", "abcdefgh"]);
        let a = Anagrams::build(&d);
        assert_eq!(a.len(), 3, "retains/stainer/nastier share one multiset; cat is too short");
        assert!(a.may_spell(key("aeinrst"), 7));
        assert!(a.may_spell(key("tsrniea"), 7));
        assert!(a.may_spell(key("aaabnns"), 7));
        assert!(a.may_spell(key("hgfedcba"), 8));
        assert!(!a.may_spell(key("aeinrsu"), 7));
        assert!(!a.may_spell(key("aeinrstt"), 8));
        // Short multisets are not indexed: always possible.
        assert!(a.may_spell(key("xyz"), 3));
    }

    #[test]
    fn the_key_is_a_sum_so_any_order_of_adding_letters_gives_it() {
        let rack = key("retain");
        assert_eq!(rack.wrapping_add(letter_code(b's' - b'a')), key("stainer"));
    }
}

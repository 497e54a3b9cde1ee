//! A rack: counts per letter plus blanks.

use crate::alphabet::{Alphabet, AlphabetError, Letter, MAX_LETTERS, Tile, tile_is_blank, tile_letter};

/// Tiles on a rack (or in any multiset of tiles: the bag, an exchange).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rack {
    counts: [u8; MAX_LETTERS],
    blanks: u8,
}

impl Default for Rack {
    fn default() -> Rack {
        Rack { counts: [0; MAX_LETTERS], blanks: 0 }
    }
}

impl Rack {
    pub fn new() -> Rack {
        Rack::default()
    }

    /// Parse rack text: letters in any case, `?` (or `*`) for a blank. An empty string is an
    /// empty rack.
    pub fn parse(text: &str, alphabet: Alphabet) -> Result<Rack, AlphabetError> {
        let mut r = Rack::new();
        for t in alphabet.parse_rack(text)? {
            match t {
                None => r.add_blank(),
                Some(l) => r.add(l),
            }
        }
        Ok(r)
    }

    /// Upper-case letters in alphabet order, then `?` per blank.
    pub fn to_string(&self, alphabet: Alphabet) -> String {
        let letters =
            (0..alphabet.len()).flat_map(|l| std::iter::repeat_n(l as Letter, self.counts[l] as usize));
        let mut s = alphabet.word_string(&letters.collect::<Vec<Letter>>());
        for _ in 0..self.blanks {
            s.push('?');
        }
        s
    }

    #[inline]
    pub fn count(&self, letter: Letter) -> u8 {
        self.counts[letter as usize]
    }

    #[inline]
    pub fn blanks(&self) -> u8 {
        self.blanks
    }

    pub fn len(&self) -> usize {
        self.counts.iter().map(|&c| c as usize).sum::<usize>() + self.blanks as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Add a tile. Counts saturate at 255: text from a client can name a letter any number of
    /// times, and an absurd rack must fail the checks that follow, not overflow.
    #[inline]
    pub fn add(&mut self, letter: Letter) {
        let c = &mut self.counts[letter as usize];
        *c = c.saturating_add(1);
    }

    #[inline]
    pub fn add_blank(&mut self) {
        self.blanks = self.blanks.saturating_add(1);
    }

    /// Remove one tile of `letter`; false (and no change) if there is none.
    #[inline]
    pub fn take(&mut self, letter: Letter) -> bool {
        let c = &mut self.counts[letter as usize];
        if *c == 0 {
            return false;
        }
        *c -= 1;
        true
    }

    /// Remove one blank; false if there is none.
    #[inline]
    pub fn take_blank(&mut self) -> bool {
        if self.blanks == 0 {
            return false;
        }
        self.blanks -= 1;
        true
    }

    /// Add the rack tile a placed tile came from (a blank for a blank tile).
    pub fn add_tile(&mut self, t: Tile) {
        if tile_is_blank(t) { self.add_blank() } else { self.add(tile_letter(t)) }
    }

    /// Remove the rack tile a placed tile needs; false if the rack lacks it.
    pub fn take_tile(&mut self, t: Tile) -> bool {
        if tile_is_blank(t) { self.take_blank() } else { self.take(tile_letter(t)) }
    }

    /// Bitset of letters present (bit `l` set when at least one `l`).
    #[inline]
    pub fn letter_set(&self) -> u64 {
        let mut set = 0u64;
        for (l, &c) in self.counts.iter().enumerate() {
            if c > 0 {
                set |= 1 << l;
            }
        }
        set
    }

    /// Whether `other` is a sub-multiset of this rack.
    pub fn contains(&self, other: &Rack) -> bool {
        self.blanks >= other.blanks && self.counts.iter().zip(&other.counts).all(|(a, b)| a >= b)
    }

    /// Remove `other` (which must be contained).
    pub fn remove_all(&mut self, other: &Rack) -> bool {
        if !self.contains(other) {
            return false;
        }
        self.blanks -= other.blanks;
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a -= b;
        }
        true
    }

    /// Add every tile of `other`.
    pub fn add_all(&mut self, other: &Rack) {
        self.blanks = self.blanks.saturating_add(other.blanks);
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a = a.saturating_add(*b);
        }
    }

    /// The tiles of `tiles` (as [`Rack::tiles`] lists them) whose bit is set in `mask`.
    pub fn subset(tiles: &[Option<Letter>], mask: u64) -> Rack {
        let mut r = Rack::new();
        for (i, t) in tiles.iter().enumerate() {
            if mask >> i & 1 == 1 {
                match t {
                    Some(l) => r.add(*l),
                    None => r.add_blank(),
                }
            }
        }
        r
    }

    /// The distinct tiles with their counts, in the order of [`Rack::tiles`] (`None`: the blank).
    pub fn kinds(&self) -> impl Iterator<Item = (Option<Letter>, u8)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c > 0)
            .map(|(l, &c)| (Some(l as Letter), c))
            .chain((self.blanks > 0).then_some((None, self.blanks)))
    }

    /// Letters as a list, each repeated by its count, `None` for a blank.
    pub fn tiles(&self) -> impl Iterator<Item = Option<Letter>> + '_ {
        self.counts
            .iter()
            .enumerate()
            .flat_map(|(l, &c)| std::iter::repeat_n(Some(l as Letter), c as usize))
            .chain(std::iter::repeat_n(None, self.blanks as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_the_distinct_tiles_in_tile_order() {
        let r = Rack::parse("BAA??", Alphabet::english()).unwrap();
        assert_eq!(r.kinds().collect::<Vec<_>>(), [(Some(0), 2), (Some(1), 1), (None, 2)]);
        assert_eq!(Rack::new().kinds().count(), 0);
    }

    #[test]
    fn parse_and_print() {
        let r = Rack::parse("retains?", Alphabet::english()).unwrap();
        assert_eq!(r.len(), 8);
        assert_eq!(r.blanks(), 1);
        assert_eq!(r.to_string(Alphabet::english()), "AEINRST?");
        let r = Rack::parse("ЁЖ*", Alphabet::erudit()).unwrap();
        assert_eq!(r.to_string(Alphabet::erudit()), "ЕЖ?");
        assert!(Rack::parse("AB1", Alphabet::english()).is_err());
    }

    #[test]
    fn absurd_racks_saturate_instead_of_overflowing() {
        let r = Rack::parse(&"A".repeat(300), Alphabet::english()).unwrap();
        assert_eq!(r.count(0), 255);
        assert!(!Rack::parse("ABC", Alphabet::english()).unwrap().contains(&r));
    }

    #[test]
    fn take_and_contains() {
        let mut r = Rack::parse("AAB?", Alphabet::english()).unwrap();
        assert!(r.take(0));
        assert!(r.take(0));
        assert!(!r.take(0));
        assert!(r.take_blank());
        assert!(!r.take_blank());
        assert_eq!(r.to_string(Alphabet::english()), "B");
        let big = Rack::parse("ABBC", Alphabet::english()).unwrap();
        let small = Rack::parse("BB", Alphabet::english()).unwrap();
        assert!(big.contains(&small));
        assert!(!small.contains(&big));
    }
}

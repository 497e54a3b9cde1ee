//! A game's ruleset: board layout, tile set and values, rack size, bonus, and options, as the
//! engine reads them on every move (flat arrays, no lookups).
//!
//! What a ruleset *is* comes from its file ([`crate::rulebook`]): `english`, `russian`
//! (Скрэббл) and `erudit` (Эрудит) from RULES.md, and the other shipped languages. A test checks
//! the classic three against RULES.md's totals. A [`Ruleset`] is made from its definition, may
//! have its options changed before a game starts, and is then shared (`Arc`) by boards and games.

use crate::alphabet::{Alphabet, Letter, MAX_LETTERS, Tile, tile_is_blank, tile_letter};

/// Squares on the largest board (21×21): fixed scratch buffers are this long, so that no board
/// a ruleset may give is too large for them.
pub const MAX_SQUARES: usize = MAX_SIZE * MAX_SIZE;

pub use crate::rulebook::{
    BlankValue, MAX_SIZE, MIN_SIZE, Premium, RuleOptions, RulesetKind, ScorelessLimit, UnknownRuleset,
};

/// A complete ruleset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ruleset {
    pub kind: RulesetKind,
    pub alphabet: Alphabet,
    /// Board side, `MIN_SIZE..=MAX_SIZE`, chosen once per game with its ruleset.
    size: usize,
    /// The start square, `(row, col)` from 0.
    start: (usize, usize),
    /// Premium of every square, row-major (`size * size` of them).
    premiums: Box<[Premium]>,
    /// Tiles of each letter in the full set.
    counts: [u8; 64],
    /// Face value of each letter.
    values: [i32; 64],
    /// Blanks in the full set.
    pub blanks: u8,
    pub rack_size: usize,
    /// Bonus for playing a full rack.
    pub bingo_bonus: i32,
    /// Name of the lexicon a game uses when none is given.
    pub default_lexicon: &'static str,
    pub options: RuleOptions,
}

impl Ruleset {
    /// A ruleset with its default options, as its definition gives it.
    pub fn new(kind: RulesetKind) -> Ruleset {
        let def = kind.definition();
        debug_assert!((MIN_SIZE..=MAX_SIZE).contains(&def.size) && def.premiums.len() == def.size * def.size);
        let mut counts = [0u8; 64];
        let mut values = [0i32; 64];
        counts[..def.counts.len()].copy_from_slice(&def.counts);
        values[..def.values.len()].copy_from_slice(&def.values);
        Ruleset {
            kind,
            alphabet: def.alphabet,
            size: def.size,
            start: def.start,
            premiums: def.premiums.clone().into_boxed_slice(),
            counts,
            values,
            blanks: def.blanks,
            rack_size: def.rack_size,
            bingo_bonus: def.bingo_bonus,
            default_lexicon: &def.default_lexicon,
            options: def.options,
        }
    }

    pub fn english() -> Ruleset {
        Ruleset::new(RulesetKind::english())
    }

    pub fn russian() -> Ruleset {
        Ruleset::new(RulesetKind::russian())
    }

    pub fn erudit() -> Ruleset {
        Ruleset::new(RulesetKind::erudit())
    }

    /// Board side: 15 for the standard board, up to 21.
    #[inline]
    pub fn size(&self) -> usize {
        self.size
    }

    /// The start square, `(row, col)` from 0: the first play covers it.
    #[inline]
    pub fn start(&self) -> (usize, usize) {
        self.start
    }

    /// Whether `(row, col)` is on the board.
    #[inline]
    pub fn on_board(&self, row: usize, col: usize) -> bool {
        row < self.size && col < self.size
    }

    /// Premium of square `(row, col)` (0-based).
    #[inline]
    pub fn premium(&self, row: usize, col: usize) -> Premium {
        self.premiums[row * self.size + col]
    }

    /// Face value of a letter.
    #[inline]
    pub fn letter_value(&self, letter: Letter) -> i32 {
        self.values[letter as usize]
    }

    /// Tiles of a letter in the full set.
    pub fn letter_count(&self, letter: Letter) -> u8 {
        self.counts[letter as usize]
    }

    /// Change how many tiles of a letter the set holds (house distributions, short test games).
    pub fn set_letter_count(&mut self, letter: Letter, count: u8) {
        self.counts[letter as usize] = count;
    }

    /// Value of a whole rack at the end of the game (blanks count 0).
    pub fn rack_total(&self, rack: &crate::rack::Rack) -> i32 {
        rack.tiles().map(|t| self.rack_value(t)).sum()
    }

    /// Whether the tile set could deal `rack`: no more of any tile than the set holds.
    pub fn could_deal(&self, rack: &crate::rack::Rack) -> bool {
        rack.blanks() <= self.blanks
            && (0..MAX_LETTERS as Letter).all(|l| rack.count(l) <= self.counts[l as usize])
    }

    /// The full tile set as a multiset.
    pub fn full_set(&self) -> crate::rack::Rack {
        let mut r = crate::rack::Rack::new();
        for l in 0..self.alphabet.len() as Letter {
            for _ in 0..self.counts[l as usize] {
                r.add(l);
            }
        }
        for _ in 0..self.blanks {
            r.add_blank();
        }
        r
    }

    /// Points a placed tile scores before multipliers: its letter's value, or for a blank 0 (or
    /// the letter's value under the Эрудит option).
    #[inline]
    pub fn tile_value(&self, t: Tile) -> i32 {
        if tile_is_blank(t) && self.options.blank_value == BlankValue::Zero {
            0
        } else {
            self.values[tile_letter(t) as usize]
        }
    }

    /// Points a rack tile is worth at the end of the game (a blank: 0).
    pub fn rack_value(&self, letter: Option<Letter>) -> i32 {
        letter.map_or(0, |l| self.values[l as usize])
    }

    /// Tiles in the full set.
    pub fn total_tiles(&self) -> u32 {
        self.counts.iter().map(|&c| c as u32).sum::<u32>() + self.blanks as u32
    }

    /// Sum of the face values of the full set.
    pub fn face_total(&self) -> i32 {
        self.counts.iter().zip(&self.values).map(|(&c, &v)| c as i32 * v).sum()
    }
}

/// What a ruleset decides beyond its file's fields, for those outside the engine that would
/// otherwise decide it themselves.
impl RulesetKind {
    /// The ruleset a lexicon in `alphabet` is played or studied under when nobody names one: the
    /// first registered in that alphabet, else English, the ruleset dawgref plays when nothing
    /// says (an alphabet read from a file may have no ruleset of its own).
    pub fn for_alphabet(alphabet: Alphabet) -> RulesetKind {
        RulesetKind::of_alphabet(alphabet).unwrap_or(RulesetKind::english())
    }

    /// The longest word a lexicon for this ruleset needs: the board's side (a list for a 21×21
    /// board keeps its longer words).
    pub fn longest_word(self) -> usize {
        self.definition().size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn premium_counts(r: &Ruleset) -> [usize; 4] {
        let mut n = [0; 4];
        for row in 0..r.size() {
            for col in 0..r.size() {
                match r.premium(row, col) {
                    Premium::TripleWord => n[0] += 1,
                    Premium::DoubleWord => n[1] += 1,
                    Premium::TripleLetter => n[2] += 1,
                    Premium::DoubleLetter => n[3] += 1,
                    _ => {}
                }
            }
        }
        n
    }

    #[test]
    fn english_matches_rules_md() {
        let r = Ruleset::english();
        assert_eq!(r.total_tiles(), 100);
        assert_eq!(r.blanks, 2);
        assert_eq!(r.face_total(), 187);
        assert_eq!(premium_counts(&r), [8, 17, 12, 24]);
        assert_eq!(r.premium(7, 7), Premium::DoubleWord);
        assert_eq!(r.bingo_bonus, 50);
        assert_eq!(r.rack_size, 7);
        assert_eq!(r.letter_value(Alphabet::english().index_of('Q').unwrap()), 10);
        assert_eq!(r.letter_count(Alphabet::english().index_of('E').unwrap()), 12);
        assert_eq!(r.options.scoreless_turn_limit.turns(2), 6);
        assert!(!r.options.no_repeated_words);
        assert_eq!(r.default_lexicon, "en");
    }

    #[test]
    fn russian_matches_rules_md() {
        let r = Ruleset::russian();
        assert_eq!(r.total_tiles(), 104);
        assert_eq!(r.blanks, 2);
        assert_eq!(r.face_total(), 224);
        assert_eq!(premium_counts(&r), [8, 17, 12, 24]);
        assert_eq!(r.bingo_bonus, 50);
        let yo = Alphabet::russian().index_of('Ё').unwrap();
        assert_eq!((r.letter_count(yo), r.letter_value(yo)), (1, 3));
        assert_eq!(r.default_lexicon, "ru");
    }

    #[test]
    fn erudit_matches_rules_md() {
        let r = Ruleset::erudit();
        assert_eq!(r.total_tiles(), 131);
        assert_eq!(r.blanks, 3);
        assert_eq!(r.face_total(), 315);
        assert_eq!(premium_counts(&r), [8, 16, 8, 24]);
        assert_eq!(r.premium(7, 7), Premium::None);
        for (row, col) in [(5, 5), (5, 9), (9, 5), (9, 9)] {
            assert_eq!(r.premium(row, col), Premium::None);
        }
        assert_eq!(r.bingo_bonus, 15);
        assert!(r.options.no_repeated_words);
        assert_eq!(r.options.blank_value, BlankValue::Zero);
        assert_eq!(r.options.scoreless_turn_limit.turns(3), 6);
        assert_eq!(r.options.scoreless_turn_limit.turns(4), 8);
        assert_eq!(r.default_lexicon, "erudit");
    }

    #[test]
    fn boards_are_symmetric_under_transposition() {
        for kind in RulesetKind::classic() {
            let r = Ruleset::new(kind);
            let n = r.size();
            for row in 0..n {
                for col in 0..n {
                    assert_eq!(r.premium(row, col), r.premium(col, row));
                    assert_eq!(r.premium(row, col), r.premium(n - 1 - row, col));
                }
            }
        }
    }

    #[test]
    fn blank_value_option() {
        let mut r = Ruleset::erudit();
        let f = crate::alphabet::tile(Alphabet::erudit().index_of('Ф').unwrap(), true);
        assert_eq!(r.tile_value(f), 0);
        r.options.blank_value = BlankValue::LetterValue;
        assert_eq!(r.tile_value(f), 10);
    }
}

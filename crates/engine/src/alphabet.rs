//! Letters ↔ indexes for each language, and the tile byte.
//!
//! A letter is a small index (`0..len`). On the board and in racks a tile is one byte: the
//! letter index + 1 in the low six bits, bit 7 set for a blank standing for that letter, and
//! `0` for an empty square. Parsing is case-insensitive; Эрудит folds Ё into Е on input because
//! it has no Ё tile. Anything outside an alphabet is a typed error naming the character.

use std::fmt;

/// A letter index within an alphabet (`0..Alphabet::len()`).
pub type Letter = u8;

/// A board/rack tile byte: `letter + 1`, bit 7 for a blank, `0` for empty.
pub type Tile = u8;

/// Tile byte of an empty square.
pub const EMPTY: Tile = 0;
/// Bit 7 of a tile byte: the tile is a blank standing for the letter.
pub const BLANK_BIT: Tile = 0x80;

/// Largest alphabet (Russian, 33 letters); letter sets are `u64` bitsets.
pub const MAX_LETTERS: usize = 33;

/// The tile byte for `letter`, as a blank when `blank`.
#[inline]
pub const fn tile(letter: Letter, blank: bool) -> Tile {
    (letter + 1) | if blank { BLANK_BIT } else { 0 }
}

/// The letter a non-empty tile stands for.
#[inline]
pub const fn tile_letter(t: Tile) -> Letter {
    (t & 0x3f) - 1
}

/// Whether a non-empty tile is a blank.
#[inline]
pub const fn tile_is_blank(t: Tile) -> bool {
    t & BLANK_BIT != 0
}

const ENGLISH: &[char] = &[
    'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O', 'P', 'Q', 'R', 'S', 'T', 'U',
    'V', 'W', 'X', 'Y', 'Z',
];

const RUSSIAN: &[char] = &[
    'А', 'Б', 'В', 'Г', 'Д', 'Е', 'Ё', 'Ж', 'З', 'И', 'Й', 'К', 'Л', 'М', 'Н', 'О', 'П', 'Р', 'С', 'Т', 'У',
    'Ф', 'Х', 'Ц', 'Ч', 'Ш', 'Щ', 'Ъ', 'Ы', 'Ь', 'Э', 'Ю', 'Я',
];

const ERUDIT: &[char] = &[
    'А', 'Б', 'В', 'Г', 'Д', 'Е', 'Ж', 'З', 'И', 'Й', 'К', 'Л', 'М', 'Н', 'О', 'П', 'Р', 'С', 'Т', 'У', 'Ф',
    'Х', 'Ц', 'Ч', 'Ш', 'Щ', 'Ъ', 'Ы', 'Ь', 'Э', 'Ю', 'Я',
];

/// One of the three alphabets the referee knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Alphabet {
    /// A–Z.
    English,
    /// А–Я with Ё (33 letters, Cyrillic code points only).
    Russian,
    /// А–Я without Ё (32 letters); Ё is folded to Е on input.
    Erudit,
}

/// A character outside the alphabet, or an empty word.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AlphabetError {
    #[error("character {ch:?} (U+{code:04X}) is not in the {alphabet} alphabet", code = *.ch as u32)]
    Foreign { ch: char, alphabet: Alphabet },
    #[error("unknown alphabet {0:?} (expected en, ru or erudit)")]
    UnknownName(String),
}

impl fmt::Display for Alphabet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Alphabet {
    type Err = AlphabetError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "en" | "english" => Ok(Alphabet::English),
            "ru" | "russian" => Ok(Alphabet::Russian),
            "erudit" => Ok(Alphabet::Erudit),
            _ => Err(AlphabetError::UnknownName(crate::text::clip(s))),
        }
    }
}

impl Alphabet {
    pub const ALL: [Alphabet; 3] = [Alphabet::English, Alphabet::Russian, Alphabet::Erudit];

    /// Short name: `en`, `ru`, `erudit`.
    pub const fn name(self) -> &'static str {
        match self {
            Alphabet::English => "en",
            Alphabet::Russian => "ru",
            Alphabet::Erudit => "erudit",
        }
    }

    /// Stable one-byte id used in the lexicon file format.
    pub const fn id(self) -> u8 {
        match self {
            Alphabet::English => 1,
            Alphabet::Russian => 2,
            Alphabet::Erudit => 3,
        }
    }

    pub const fn from_id(id: u8) -> Option<Alphabet> {
        match id {
            1 => Some(Alphabet::English),
            2 => Some(Alphabet::Russian),
            3 => Some(Alphabet::Erudit),
            _ => None,
        }
    }

    fn letters(self) -> &'static [char] {
        match self {
            Alphabet::English => ENGLISH,
            Alphabet::Russian => RUSSIAN,
            Alphabet::Erudit => ERUDIT,
        }
    }

    /// Number of letters.
    pub fn len(self) -> usize {
        self.letters().len()
    }

    /// Never true; present for clippy's `len_without_is_empty`.
    pub fn is_empty(self) -> bool {
        false
    }

    /// Bitset of every letter of the alphabet.
    pub fn all_letters(self) -> u64 {
        (1u64 << self.len()) - 1
    }

    /// The upper-case character of a letter index. Panics only on an index the caller made up.
    pub fn char_of(self, letter: Letter) -> char {
        self.letters()[letter as usize]
    }

    /// The letter index of a character, case-insensitively (`Ё` → `Е` in Эрудит).
    pub fn index_of(self, ch: char) -> Result<Letter, AlphabetError> {
        let foreign = || AlphabetError::Foreign { ch, alphabet: self };
        match self {
            Alphabet::English => match ch {
                'A'..='Z' => Ok(ch as u8 - b'A'),
                'a'..='z' => Ok(ch as u8 - b'a'),
                _ => Err(foreign()),
            },
            Alphabet::Russian | Alphabet::Erudit => {
                let upper = match ch {
                    'а'..='я' => char::from_u32(ch as u32 - 0x20).ok_or_else(foreign)?,
                    'ё' => 'Ё',
                    _ => ch,
                };
                let index = |c: char| self.letters().iter().position(|&l| l == c);
                let upper = if self == Alphabet::Erudit && upper == 'Ё' { 'Е' } else { upper };
                index(upper).map(|i| i as Letter).ok_or_else(foreign)
            }
        }
    }

    /// Whether a character is a lower-case letter of this alphabet (the blank convention in
    /// notation). Characters outside the alphabet are neither upper nor lower here.
    pub fn is_lower(self, ch: char) -> bool {
        match self {
            Alphabet::English => ch.is_ascii_lowercase(),
            Alphabet::Russian | Alphabet::Erudit => matches!(ch, 'а'..='я' | 'ё'),
        }
    }

    /// Parse a word into letter indexes.
    pub fn parse_word(self, word: &str) -> Result<Vec<Letter>, AlphabetError> {
        word.chars().map(|c| self.index_of(c)).collect()
    }

    /// Render letter indexes as an upper-case word.
    pub fn word_string(self, letters: &[Letter]) -> String {
        letters.iter().map(|&l| self.char_of(l)).collect()
    }

    /// Render a tile byte: upper case for a letter, lower case for a blank, `.` for empty.
    pub fn tile_char(self, t: Tile) -> char {
        if t == EMPTY {
            return '.';
        }
        let c = self.char_of(tile_letter(t));
        if tile_is_blank(t) { lower(c) } else { c }
    }
}

/// Lower-case form of an alphabet character (every alphabet letter has exactly one).
pub fn lower(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(Alphabet::English.len(), 26);
        assert_eq!(Alphabet::Russian.len(), 33);
        assert_eq!(Alphabet::Erudit.len(), 32);
    }

    #[test]
    fn round_trip_every_letter_both_cases() {
        for a in Alphabet::ALL {
            for i in 0..a.len() as Letter {
                let c = a.char_of(i);
                assert_eq!(a.index_of(c), Ok(i));
                assert_eq!(a.index_of(lower(c)), Ok(i));
                assert!(a.is_lower(lower(c)));
                assert!(!a.is_lower(c));
            }
        }
    }

    #[test]
    fn yo_is_a_letter_in_russian_and_folded_in_erudit() {
        assert_eq!(Alphabet::Russian.index_of('Ё'), Ok(6));
        assert_eq!(Alphabet::Russian.index_of('ё'), Ok(6));
        assert_eq!(Alphabet::Russian.index_of('Ж'), Ok(7));
        assert_eq!(Alphabet::Erudit.index_of('Ё'), Ok(5));
        assert_eq!(Alphabet::Erudit.index_of('ё'), Ok(5));
        assert_eq!(Alphabet::Erudit.index_of('Е'), Ok(5));
        assert_eq!(Alphabet::Erudit.index_of('Ж'), Ok(6));
    }

    #[test]
    fn foreign_characters_are_named() {
        // Latin Ë is not Cyrillic Ё.
        let err = Alphabet::Russian.index_of('Ë').unwrap_err();
        assert_eq!(err, AlphabetError::Foreign { ch: 'Ë', alphabet: Alphabet::Russian });
        assert!(err.to_string().contains("U+00CB"), "{err}");
        assert!(Alphabet::English.index_of('Ж').is_err());
        assert!(Alphabet::Russian.index_of('A').is_err());
        assert!(Alphabet::English.index_of('-').is_err());
        assert_eq!(
            Alphabet::English.parse_word("qu1xotic"),
            Err(AlphabetError::Foreign { ch: '1', alphabet: Alphabet::English })
        );
    }

    #[test]
    fn tile_bytes() {
        let t = tile(25, true);
        assert_eq!(t, 26 | 0x80);
        assert_eq!(tile_letter(t), 25);
        assert!(tile_is_blank(t));
        assert_eq!(Alphabet::English.tile_char(t), 'z');
        assert_eq!(Alphabet::English.tile_char(tile(0, false)), 'A');
        assert_eq!(Alphabet::Russian.tile_char(tile(6, true)), 'ё');
        assert_eq!(Alphabet::English.tile_char(EMPTY), '.');
    }
}

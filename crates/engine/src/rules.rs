//! Rulesets: board layout, tile set and values, rack size, bonus, and the options RULES.md marks.
//!
//! Three rulesets ship: `english`, `russian` (Скрэббл) and `erudit` (Эрудит). All figures come
//! from RULES.md (at the repository root); a test checks every table against its totals. A [`Ruleset`] is
//! immutable once made and shared (`Arc`) by boards and games.

use crate::alphabet::{Alphabet, Letter, MAX_LETTERS, Tile, tile_is_blank, tile_letter};
use std::fmt;

/// Board side; all three rulesets use 15×15.
pub const SIZE: usize = 15;
/// Squares on the board.
pub const SQUARES: usize = SIZE * SIZE;
/// The centre square (8H), row 7, column 7 counting from 0.
pub const CENTRE: usize = 7 * SIZE + 7;

/// A square's premium.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Premium {
    None,
    DoubleLetter,
    TripleLetter,
    DoubleWord,
    TripleWord,
}

impl Premium {
    /// Factor applied to a newly placed tile's value.
    #[inline]
    pub const fn letter_multiplier(self) -> i32 {
        match self {
            Premium::DoubleLetter => 2,
            Premium::TripleLetter => 3,
            _ => 1,
        }
    }

    /// Factor applied to a word when a newly placed tile covers the square.
    #[inline]
    pub const fn word_multiplier(self) -> i32 {
        match self {
            Premium::DoubleWord => 2,
            Premium::TripleWord => 3,
            _ => 1,
        }
    }
}

/// The three rulesets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RulesetKind {
    English,
    Russian,
    Erudit,
}

impl RulesetKind {
    pub const ALL: [RulesetKind; 3] = [RulesetKind::English, RulesetKind::Russian, RulesetKind::Erudit];

    /// Name as used in requests and the CGP `ld` opcode.
    pub const fn name(self) -> &'static str {
        match self {
            RulesetKind::English => "english",
            RulesetKind::Russian => "russian",
            RulesetKind::Erudit => "erudit",
        }
    }

    pub const fn alphabet(self) -> Alphabet {
        match self {
            RulesetKind::English => Alphabet::English,
            RulesetKind::Russian => Alphabet::Russian,
            RulesetKind::Erudit => Alphabet::Erudit,
        }
    }
}

impl fmt::Display for RulesetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown ruleset name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown ruleset {0:?} (expected english, russian or erudit)")]
pub struct UnknownRuleset(pub String);

impl std::str::FromStr for RulesetKind {
    type Err = UnknownRuleset;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_lowercase().as_str() {
            "english" | "en" => Ok(RulesetKind::English),
            "russian" | "ru" | "скрэббл" => Ok(RulesetKind::Russian),
            "erudit" | "эрудит" => Ok(RulesetKind::Erudit),
            _ => Err(UnknownRuleset(s.to_string())),
        }
    }
}

/// What a blank scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlankValue {
    /// 0 points (every ruleset's default).
    Zero,
    /// The value of the letter it stands for (an Эрудит house rule).
    LetterValue,
}

/// How many consecutive scoreless turns end the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScorelessLimit {
    /// A fixed number of turns (Scrabble: 6).
    Turns(u32),
    /// Every player passed twice in a row: 2 × players turns (Эрудит).
    TwicePerPlayer,
}

impl ScorelessLimit {
    /// The limit for a game of `players` seats.
    pub fn turns(self, players: usize) -> u32 {
        match self {
            ScorelessLimit::Turns(n) => n,
            ScorelessLimit::TwicePerPlayer => 2 * players as u32,
        }
    }
}

/// The options RULES.md marks as such.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleOptions {
    pub blank_value: BlankValue,
    /// A word already on the board may not be formed again.
    pub no_repeated_words: bool,
    /// Consecutive scoreless turns that end the game.
    pub scoreless_turn_limit: ScorelessLimit,
    /// Fewest tiles in the bag for an exchange to be allowed.
    pub exchange_limit: u32,
}

/// A complete ruleset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ruleset {
    pub kind: RulesetKind,
    pub alphabet: Alphabet,
    /// Premium of every square, row-major.
    premiums: [Premium; SQUARES],
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

const STANDARD_BOARD: &str = "\
T..d...T...d..T
.D...t...t...D.
..D...d.d...D..
d..D...d...D..d
....D.....D....
.t...t...t...t.
..d...d.d...d..
T..d...*...d..T
..d...d.d...d..
.t...t...t...t.
....D.....D....
d..D...d...D..d
..D...d.d...D..
.D...t...t...D.
T..d...T...d..T";

const ERUDIT_BOARD: &str = "\
T..d...T...d..T
.D...t...t...D.
..D...d.d...D..
d..D...d...D..d
....D.....D....
.t...........t.
..d...d.d...d..
T..d...*...d..T
..d...d.d...d..
.t...........t.
....D.....D....
d..D...d...D..d
..D...d.d...D..
.D...t...t...D.
T..d...T...d..T";

const ENGLISH_TILES: &str = "?:2:0 A:9:1 B:2:3 C:2:3 D:4:2 E:12:1 F:2:4 G:3:2 H:2:4 I:9:1 J:1:8 K:1:5 L:4:1 M:2:3 \
N:6:1 O:8:1 P:2:3 Q:1:10 R:6:1 S:4:1 T:6:1 U:4:1 V:2:4 W:2:4 X:1:8 Y:2:4 Z:1:10";

const RUSSIAN_TILES: &str = "?:2:0 А:8:1 Б:2:3 В:4:1 Г:2:3 Д:4:2 Е:8:1 Ё:1:3 Ж:1:5 З:2:5 И:5:1 Й:1:4 К:4:2 Л:4:2 \
М:3:2 Н:5:1 О:10:1 П:4:2 Р:5:1 С:5:1 Т:5:1 У:4:2 Ф:1:10 Х:1:5 Ц:1:5 Ч:1:5 Ш:1:8 Щ:1:10 Ъ:1:10 Ы:2:4 Ь:2:3 Э:1:8 \
Ю:1:8 Я:2:3";

const ERUDIT_TILES: &str = "*:3:0 А:10:1 Б:3:3 В:5:2 Г:3:3 Д:5:2 Е:9:1 Ж:2:5 З:2:5 И:8:1 Й:4:2 К:6:2 Л:4:2 М:5:2 \
Н:8:1 О:10:1 П:6:2 Р:6:2 С:6:2 Т:5:2 У:3:3 Ф:1:10 Х:2:5 Ц:1:10 Ч:2:5 Ш:1:10 Щ:1:10 Ъ:1:10 Ы:2:5 Ь:2:5 Э:1:10 \
Ю:1:10 Я:3:3";

fn parse_board(text: &str, centre_doubles: bool) -> [Premium; SQUARES] {
    let mut out = [Premium::None; SQUARES];
    for (i, ch) in text.lines().flat_map(|l| l.chars()).enumerate() {
        out[i] = match ch {
            'T' => Premium::TripleWord,
            'D' => Premium::DoubleWord,
            't' => Premium::TripleLetter,
            'd' => Premium::DoubleLetter,
            '*' if centre_doubles => Premium::DoubleWord,
            _ => Premium::None,
        };
    }
    out
}

fn parse_tiles(text: &str, alphabet: Alphabet) -> ([u8; 64], [i32; 64], u8) {
    let mut counts = [0u8; 64];
    let mut values = [0i32; 64];
    let mut blanks = 0;
    for item in text.split_whitespace() {
        let mut parts = item.split(':');
        let (Some(letter), Some(count), Some(value)) = (parts.next(), parts.next(), parts.next()) else {
            unreachable!("built-in tile table is well-formed")
        };
        let count: u8 = count.parse().expect("built-in count");
        let value: i32 = value.parse().expect("built-in value");
        let ch = letter.chars().next().expect("built-in letter");
        if ch == '?' || ch == '*' {
            blanks = count;
        } else {
            let l = alphabet.index_of(ch).expect("built-in letter is in its alphabet") as usize;
            counts[l] = count;
            values[l] = value;
        }
    }
    (counts, values, blanks)
}

impl Ruleset {
    /// A ruleset with its default options.
    pub fn new(kind: RulesetKind) -> Ruleset {
        let alphabet = kind.alphabet();
        let (board, tiles, centre_doubles) = match kind {
            RulesetKind::English => (STANDARD_BOARD, ENGLISH_TILES, true),
            RulesetKind::Russian => (STANDARD_BOARD, RUSSIAN_TILES, true),
            RulesetKind::Erudit => (ERUDIT_BOARD, ERUDIT_TILES, false),
        };
        let (counts, values, blanks) = parse_tiles(tiles, alphabet);
        let erudit = kind == RulesetKind::Erudit;
        Ruleset {
            kind,
            alphabet,
            premiums: parse_board(board, centre_doubles),
            counts,
            values,
            blanks,
            rack_size: 7,
            bingo_bonus: if erudit { 15 } else { 50 },
            default_lexicon: match kind {
                RulesetKind::English => "en",
                RulesetKind::Russian => "ru",
                RulesetKind::Erudit => "erudit",
            },
            options: RuleOptions {
                blank_value: BlankValue::Zero,
                no_repeated_words: erudit,
                scoreless_turn_limit: if erudit {
                    ScorelessLimit::TwicePerPlayer
                } else {
                    ScorelessLimit::Turns(6)
                },
                exchange_limit: 7,
            },
        }
    }

    pub fn english() -> Ruleset {
        Ruleset::new(RulesetKind::English)
    }

    pub fn russian() -> Ruleset {
        Ruleset::new(RulesetKind::Russian)
    }

    pub fn erudit() -> Ruleset {
        Ruleset::new(RulesetKind::Erudit)
    }

    /// Premium of square `(row, col)` (0-based).
    #[inline]
    pub fn premium(&self, row: usize, col: usize) -> Premium {
        self.premiums[row * SIZE + col]
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

#[cfg(test)]
mod tests {
    use super::*;

    fn premium_counts(r: &Ruleset) -> [usize; 4] {
        let mut n = [0; 4];
        for row in 0..SIZE {
            for col in 0..SIZE {
                match r.premium(row, col) {
                    Premium::TripleWord => n[0] += 1,
                    Premium::DoubleWord => n[1] += 1,
                    Premium::TripleLetter => n[2] += 1,
                    Premium::DoubleLetter => n[3] += 1,
                    Premium::None => {}
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
        assert_eq!(r.letter_value(Alphabet::English.index_of('Q').unwrap()), 10);
        assert_eq!(r.letter_count(Alphabet::English.index_of('E').unwrap()), 12);
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
        let yo = Alphabet::Russian.index_of('Ё').unwrap();
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
        for kind in RulesetKind::ALL {
            let r = Ruleset::new(kind);
            for row in 0..SIZE {
                for col in 0..SIZE {
                    assert_eq!(r.premium(row, col), r.premium(col, row));
                    assert_eq!(r.premium(row, col), r.premium(SIZE - 1 - row, col));
                }
            }
        }
    }

    #[test]
    fn blank_value_option() {
        let mut r = Ruleset::erudit();
        let f = crate::alphabet::tile(Alphabet::Erudit.index_of('Ф').unwrap(), true);
        assert_eq!(r.tile_value(f), 0);
        r.options.blank_value = BlankValue::LetterValue;
        assert_eq!(r.tile_value(f), 10);
    }
}

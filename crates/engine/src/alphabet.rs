//! Tiles ↔ letter indexes for any alphabet given as data, and the tile byte.
//!
//! An alphabet is a list of tile labels (`A`, `Ё`, `L·L`, `NY`: a label may be several
//! characters), each with its blank form (lower case), its other spellings (aliases: Эрудит's
//! `Ё` for `Е`, Catalan's `W` for `L·L`), and whether it is a vowel. A letter is a small index
//! (`0..len`). On the board and in racks a tile is one byte: the letter index + 1 in the low six
//! bits, bit 7 set for a blank standing for that letter, and `0` for an empty square.
//!
//! Text is read by the longest spelling that fits (as wolges reads word lists), case-insensitively,
//! and `[CH]` in brackets is always one tile (macondo's and MAGPIE's notation); a lower-case
//! spelling is a blank. Anything that is not a spelling is a typed error naming the character.
//! Alphabets are interned: an [`Alphabet`] is a `Copy` handle, and two alphabets with the same
//! tiles are the same handle (a ruleset of English's tiles plays the English lexicon). One made
//! from a file lives as long as the process (a server reads a few, at start-up).

use crate::interned::Interned;
use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

/// A letter index within an alphabet (`0..Alphabet::len()`).
pub type Letter = u8;

/// A board/rack tile byte: `letter + 1`, bit 7 for a blank, `0` for empty.
pub type Tile = u8;

/// Tile byte of an empty square.
pub const EMPTY: Tile = 0;
/// Bit 7 of a tile byte: the tile is a blank standing for the letter.
pub const BLANK_BIT: Tile = 0x80;

/// Largest alphabet (Russian, 33 letters); racks count this many letters, letter sets are `u64`.
pub const MAX_LETTERS: usize = 33;
/// Longest label or other spelling of a tile, in characters (wolges' longest is `L·L`).
pub const MAX_LABEL: usize = 6;
/// Longest notation of one tile: a label in brackets.
pub const MAX_TILE_TEXT: usize = MAX_LABEL + 2;

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

/// One tile of an alphabet as a file gives it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TileSpec {
    /// The label as printed on the tile, upper case (`A`, `L·L`).
    pub label: String,
    /// The blank's form (`a`, `l·l`); the label in lower case when not given.
    pub blank_label: Option<String>,
    /// Other spellings people type for the tile (upper case; their lower case is a blank).
    pub aliases: Vec<String>,
    pub vowel: bool,
}

impl TileSpec {
    pub fn new(label: &str, vowel: bool) -> TileSpec {
        TileSpec { label: label.to_string(), blank_label: None, aliases: Vec::new(), vowel }
    }
}

/// The letters of one alphabet: what an [`Alphabet`] handle points to.
#[derive(Debug)]
struct Letters {
    name: String,
    specs: Vec<TileSpec>,
    /// Upper-case labels, and their blank forms.
    labels: Vec<String>,
    blank_labels: Vec<String>,
    /// How a tile is written in notation: the label, or `[L·L]` in brackets when it is more than
    /// one character; the blank's forms after the letters'.
    notation: Vec<String>,
    vowels: u64,
    /// Every spelling, upper-cased, to its letter.
    spellings: HashMap<String, Letter>,
    /// Single-character spellings (either case) to the letter and whether it is a blank's.
    chars: HashMap<char, (Letter, bool)>,
    /// The longest spelling, in characters.
    longest: usize,
    /// The first characters (upper case) of spellings longer than one character: only text
    /// starting with one of them is tried against those (most letters of a word are not).
    starts_long: Vec<char>,
    /// Lexicon file id of the three alphabets the format had before alphabets were data.
    classic_id: Option<u8>,
}

/// A handle to an interned alphabet: `Copy`, compared by identity.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Alphabet(Interned<Letters>);

impl fmt::Debug for Alphabet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Alphabet({})", self.letters().name)
    }
}
impl fmt::Display for Alphabet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.letters().name)
    }
}

/// A character outside the alphabet, or an alphabet that cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AlphabetError {
    #[error("character {ch:?} (U+{code:04X}) is not in the {alphabet} alphabet", code = *.ch as u32)]
    Foreign { ch: char, alphabet: Alphabet },
    #[error("[{text}] is not a tile of the {alphabet} alphabet")]
    ForeignTile { text: String, alphabet: Alphabet },
    #[error("unclosed [ in {0:?}")]
    Bracket(String),
    #[error("unknown alphabet {0:?}")]
    UnknownName(String),
    #[error("alphabet {name}: {problem}")]
    Invalid { name: String, problem: String },
}

/// Every alphabet made so far; an alphabet is made once and lives for the process.
static INTERNED: Mutex<Vec<Interned<Letters>>> = Mutex::new(Vec::new());

/// Upper case of a spelling, character by character (a character whose upper case is several,
/// such as ß, is kept: labels are single code points per character).
fn upper(s: &str) -> String {
    s.chars().map(upper_char).collect()
}

fn upper_char(c: char) -> char {
    let mut u = c.to_uppercase();
    match (u.next(), u.next()) {
        (Some(x), None) => x,
        _ => c,
    }
}

/// Lower-case form of an alphabet character (every alphabet letter has exactly one).
pub fn lower(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

fn lower_str(s: &str) -> String {
    s.chars().map(lower).collect()
}

impl Alphabet {
    /// The letters it is a handle to.
    #[inline]
    fn letters(self) -> &'static Letters {
        self.0.get()
    }

    /// The alphabet of these tiles, made once: the same tiles give the same handle (and keep the
    /// first name they were given). Refused: no tiles, more than [`MAX_LETTERS`], an empty or
    /// bracketed label, a spelling given to two tiles.
    pub fn new(name: &str, mut specs: Vec<TileSpec>) -> Result<Alphabet, AlphabetError> {
        // One form for the same tiles: labels upper case, a blank's form only when it is not
        // the label in lower case.
        for spec in &mut specs {
            spec.label = upper(&spec.label);
            spec.blank_label = spec.blank_label.take().filter(|b| *b != lower_str(&spec.label));
        }
        let invalid = |problem: String| AlphabetError::Invalid { name: name.to_string(), problem };
        if specs.is_empty() {
            return Err(invalid("it has no tiles".into()));
        }
        if specs.len() > MAX_LETTERS {
            return Err(invalid(format!("{} tiles, at most {MAX_LETTERS} are supported", specs.len())));
        }
        let mut interned = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&found) = interned.iter().find(|l| l.get().specs == specs) {
            return Ok(Alphabet(found));
        }
        let mut spellings = HashMap::new();
        let mut chars = HashMap::new();
        let (mut labels, mut blank_labels, mut notation, mut vowels) = (vec![], vec![], vec![], 0u64);
        for (i, spec) in specs.iter().enumerate() {
            let letter = i as Letter;
            let label = upper(&spec.label);
            let blank = spec.blank_label.clone().unwrap_or_else(|| lower_str(&label));
            if label.is_empty() || label.contains(['[', ']', '?', '.', '(', ')', ' ']) {
                return Err(invalid(format!(
                    "tile {:?} is not a label (empty, or holding [ ] ? . ( ) or a space)",
                    spec.label
                )));
            }
            for s in std::iter::once(&label).chain(&spec.aliases) {
                let key = upper(s);
                if key.is_empty()
                    || key.chars().count() > MAX_LABEL
                    || key.contains(['[', ']', '?', '*', '.'])
                {
                    return Err(invalid(format!(
                        "tile {label}: {s:?} is not a spelling (1 to {MAX_LABEL} characters, none of [ ] ? * .)"
                    )));
                }
                if let Some(&other) = spellings.get(&key)
                    && other != letter
                {
                    return Err(invalid(format!(
                        "{s} spells two tiles, {} and {label}",
                        labels[other as usize]
                    )));
                }
                spellings.insert(key.clone(), letter);
                let mut cs = key.chars();
                if let (Some(c), None) = (cs.next(), cs.next()) {
                    chars.insert(c, (letter, false));
                    let l = lower(c);
                    if l != c {
                        chars.insert(l, (letter, true));
                    }
                }
            }
            let bracket = |s: &str| if s.chars().count() > 1 { format!("[{s}]") } else { s.to_string() };
            notation.push(bracket(&label));
            blank_labels.push(blank);
            labels.push(label);
            if spec.vowel {
                vowels |= 1 << i;
            }
        }
        for b in &blank_labels {
            notation.push(if b.chars().count() > 1 { format!("[{b}]") } else { b.clone() });
        }
        let longest = spellings.keys().map(|k| k.chars().count()).max().unwrap_or(1);
        let mut starts_long: Vec<char> =
            spellings.keys().filter(|k| k.chars().count() > 1).filter_map(|k| k.chars().next()).collect();
        starts_long.sort_unstable();
        starts_long.dedup();
        // A classic alphabet is all of it (labels, vowels, other spellings, blank forms), not
        // its labels: French's A–Z with É for E is not English, and its files say so.
        let whole: Vec<String> = specs
            .iter()
            .map(|s| {
                let mut t = s.label.clone();
                if s.vowel {
                    t.push('*');
                }
                if !s.aliases.is_empty() {
                    t += &format!("({})", s.aliases.join(" "));
                }
                if let Some(b) = &s.blank_label {
                    t += &format!("{{{b}}}");
                }
                t
            })
            .collect();
        let classic_id = match whole.join(" ").as_str() {
            "A* B C D E* F G H I* J K L M N O* P Q R S T U* V W X Y Z" => Some(1),
            "А* Б В Г Д Е* Ё* Ж З И* Й К Л М Н О* П Р С Т У* Ф Х Ц Ч Ш Щ Ъ Ы* Ь Э* Ю* Я*" => {
                Some(2)
            }
            "А* Б В Г Д Е*(Ё) Ж З И* Й К Л М Н О* П Р С Т У* Ф Х Ц Ч Ш Щ Ъ Ы* Ь Э* Ю* Я*" => {
                Some(3)
            }
            _ => None,
        };
        let letters = Letters {
            name: name.to_string(),
            specs,
            labels,
            blank_labels,
            notation,
            vowels,
            spellings,
            chars,
            longest,
            starts_long,
            classic_id,
        };
        let leaked = Interned::leak(letters);
        interned.push(leaked);
        Ok(Alphabet(leaked))
    }

    /// Its name: the first name it was made with (`en`, `ru`, `erudit`, `catalan`).
    pub fn name(self) -> &'static str {
        &self.letters().name
    }

    /// The tiles as they were given.
    pub fn specs(self) -> &'static [TileSpec] {
        &self.letters().specs
    }

    /// The lexicon file's one-byte id for the three alphabets that had one (English 1, Russian 2,
    /// Эрудит 3), so that their compiled files and content checksums never change.
    pub fn classic_id(self) -> Option<u8> {
        self.letters().classic_id
    }

    /// Number of letters.
    pub fn len(self) -> usize {
        self.letters().labels.len()
    }

    /// Never true; present for clippy's `len_without_is_empty`.
    pub fn is_empty(self) -> bool {
        false
    }

    /// Bitset of every letter of the alphabet.
    pub fn all_letters(self) -> u64 {
        (1u64 << self.len()) - 1
    }

    /// Whether the letter is a vowel.
    pub fn is_vowel(self, letter: Letter) -> bool {
        self.letters().vowels >> letter & 1 == 1
    }

    /// Whether every tile is one character (nothing in this alphabet needs brackets).
    pub fn single_characters(self) -> bool {
        self.letters().labels.iter().all(|l| l.chars().count() == 1)
    }

    /// The label of a letter, upper case (`A`, `L·L`). Panics only on an index the caller made up.
    pub fn label(self, letter: Letter) -> &'static str {
        &self.letters().labels[letter as usize]
    }

    /// The label of a blank standing for a letter (`a`, `l·l`).
    pub fn blank_label(self, letter: Letter) -> &'static str {
        &self.letters().blank_labels[letter as usize]
    }

    /// How a tile is written in notation: its label, upper case for a tile and lower case for a
    /// blank, in brackets when longer than a character (`[L·L]`); `.` for an empty square.
    pub fn tile_text(self, t: Tile) -> &'static str {
        if t == EMPTY {
            return ".";
        }
        let l = tile_letter(t) as usize;
        &self.letters().notation[if tile_is_blank(t) { self.len() + l } else { l }]
    }

    /// A letter as notation writes it (upper case, brackets when longer than a character).
    pub fn letter_text(self, letter: Letter) -> &'static str {
        &self.letters().notation[letter as usize]
    }

    /// The letter of one character, case-insensitively (`Ё` → `Е` in Эрудит, by its alias).
    pub fn index_of(self, ch: char) -> Result<Letter, AlphabetError> {
        self.letters().chars.get(&ch).map(|&(l, _)| l).ok_or(AlphabetError::Foreign { ch, alphabet: self })
    }

    /// The first tile of `text`: its letter, whether it is written as a blank (lower case), and
    /// the bytes it took. The longest spelling that fits wins; `[…]` is exactly one tile.
    pub fn next_tile(self, text: &str) -> Result<(Letter, bool, usize), AlphabetError> {
        let Some(first) = text.chars().next() else {
            return Err(AlphabetError::Bracket(String::new()));
        };
        if first == '[' {
            let close = text.find(']').ok_or_else(|| AlphabetError::Bracket(crate::text::clip(text)))?;
            let inner = &text[1..close];
            let blank = inner.chars().next().is_some_and(|c| lower(c) == c && upper_char(c) != c);
            return match self.letters().spellings.get(&upper(inner)) {
                Some(&l) => Ok((l, blank, close + 1)),
                None => Err(AlphabetError::ForeignTile { text: crate::text::clip(inner), alphabet: self }),
            };
        }
        if self.letters().starts_long.contains(&upper_char(first)) {
            // The ends of the first 2, 3 … `longest` characters, tried longest first.
            let mut ends = [0usize; MAX_LABEL];
            let mut n = 0;
            for end in
                text.char_indices().skip(1).map(|(i, _)| i).chain([text.len()]).take(self.letters().longest)
            {
                ends[n] = end;
                n += 1;
            }
            for &end in ends[..n].iter().rev() {
                if let Some(&l) = self.letters().spellings.get(&upper(&text[..end])) {
                    let blank = lower(first) == first && upper_char(first) != first;
                    return Ok((l, blank, end));
                }
            }
        }
        match self.letters().chars.get(&first) {
            Some(&(l, blank)) => Ok((l, blank, first.len_utf8())),
            None => Err(AlphabetError::Foreign { ch: first, alphabet: self }),
        }
    }

    /// Read text as tiles: each one's letter and whether it is written as a blank.
    pub fn parse_tiles(self, text: &str) -> Result<Vec<(Letter, bool)>, AlphabetError> {
        let mut out = Vec::with_capacity(text.len());
        let mut rest = text;
        while !rest.is_empty() {
            let (l, blank, used) = self.next_tile(rest)?;
            out.push((l, blank));
            rest = &rest[used..];
        }
        Ok(out)
    }

    /// Read text as a rack's tiles: `?` or `*` a blank (`None`), else a letter, case aside (a
    /// lower-case letter on a rack is that letter). The one reading of racks, leaves and anagrams.
    pub fn parse_rack(self, text: &str) -> Result<Vec<Option<Letter>>, AlphabetError> {
        let mut out = Vec::with_capacity(text.len());
        let mut rest = text;
        while let Some(ch) = rest.chars().next() {
            if ch == '?' || ch == '*' {
                out.push(None);
                rest = &rest[1..];
            } else {
                let (l, _, used) = self.next_tile(rest)?;
                out.push(Some(l));
                rest = &rest[used..];
            }
        }
        Ok(out)
    }

    /// Parse a word into letter indexes (case does not matter).
    pub fn parse_word(self, word: &str) -> Result<Vec<Letter>, AlphabetError> {
        if self.letters().longest == 1 && !word.contains('[') {
            return word.chars().map(|c| self.index_of(c)).collect();
        }
        Ok(self.parse_tiles(word)?.into_iter().map(|(l, _)| l).collect())
    }

    /// Render letter indexes as an upper-case word, in notation (`[CH]`), read back as the same
    /// letters ([`Alphabet::write_tiles`]).
    pub fn word_string(self, letters: &[Letter]) -> String {
        self.write_tiles(letters.iter().map(|&l| tile(l, false)))
    }

    /// Tiles as notation (`.` for an empty square or a tile played through), written so that
    /// reading the text back gives the same tiles: a tile of one character is bracketed where
    /// it and the text after it would read as a longer tile (Spanish `R` then `R` is `[R]R`, not
    /// the tile `RR`; Catalan `N` then `Y` is `[N]Y`). Alphabets whose tiles are all one character
    /// and have no longer spelling write each tile as it is.
    pub fn write_tiles(self, tiles: impl IntoIterator<Item = Tile>) -> String {
        let texts: Vec<&'static str> = tiles.into_iter().map(|t| self.tile_text(t)).collect();
        if self.letters().longest == 1 {
            return texts.concat();
        }
        // Right to left, so that each tile is judged against the text that really follows it.
        let mut suffix = String::new();
        for &text in texts.iter().rev() {
            let single = text != "." && text.chars().count() == 1;
            let joined = format!("{text}{suffix}");
            let merges = single
                && self.letters().starts_long.contains(&upper_char(text.chars().next().unwrap_or(' ')))
                && self.next_tile(&joined).is_ok_and(|(_, _, used)| used != text.len());
            suffix = if merges { format!("[{text}]{suffix}") } else { joined };
        }
        suffix
    }

    /// The alphabet as text, for a compiled lexicon to carry: its name, then a line per tile
    /// (label, blank label, `1` for a vowel, aliases), tab-separated.
    pub fn to_text(self) -> String {
        let mut out = format!("{}\n", self.letters().name);
        for (i, spec) in self.letters().specs.iter().enumerate() {
            let vowel = if spec.vowel { 1 } else { 0 };
            out += &format!(
                "{}\t{}\t{vowel}\t{}\n",
                spec.label,
                self.letters().blank_labels[i],
                spec.aliases.join(" ")
            );
        }
        out
    }

    /// Read [`Alphabet::to_text`].
    pub fn from_text(text: &str) -> Result<Alphabet, AlphabetError> {
        let mut lines = text.lines();
        let name = lines.next().unwrap_or_default();
        let bad = || AlphabetError::Invalid {
            name: crate::text::clip(name),
            problem: "unreadable tile line".into(),
        };
        let mut specs = Vec::new();
        for line in lines {
            let f: Vec<&str> = line.split('\t').collect();
            let [label, blank, vowel, aliases] = f[..] else { return Err(bad()) };
            specs.push(TileSpec {
                label: label.to_string(),
                blank_label: (blank != lower_str(label)).then(|| blank.to_string()),
                aliases: aliases.split_whitespace().map(str::to_string).collect(),
                vowel: vowel == "1",
            });
        }
        Alphabet::new(name, specs)
    }

    /// Render letter indexes by their labels, without brackets (`CHICO`), for people to read.
    pub fn word_label(self, letters: &[Letter]) -> String {
        letters.iter().map(|&l| self.label(l)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs(labels: &[&str]) -> Vec<TileSpec> {
        labels.iter().map(|l| TileSpec::new(l, false)).collect()
    }

    #[test]
    fn the_same_tiles_are_the_same_alphabet() {
        let a = Alphabet::new("t1", specs(&["A", "B"])).unwrap();
        let b = Alphabet::new("t2", specs(&["A", "B"])).unwrap();
        assert_eq!(a, b);
        assert_eq!(b.name(), "t1");
        assert_ne!(a, Alphabet::new("t3", specs(&["A", "C"])).unwrap());
    }

    #[test]
    fn longest_spelling_first_and_brackets_force_one_tile() {
        let a = Alphabet::new("t-digraphs", specs(&["C", "CH", "H", "L", "LL", "A"])).unwrap();
        let w = |s: &str| a.parse_tiles(s).unwrap();
        assert_eq!(w("CHALLA"), vec![(1, false), (5, false), (4, false), (5, false)]);
        assert_eq!(w("[C]HA"), vec![(0, false), (2, false), (5, false)]);
        assert_eq!(w("cha"), vec![(1, true), (5, true)]);
        assert_eq!(w("[ch]A"), vec![(1, true), (5, false)]);
        assert_eq!(a.word_string(&[1, 5]), "[CH]A");
        assert_eq!(a.word_label(&[1, 5]), "CHA");
        assert_eq!(a.tile_text(tile(4, true)), "[ll]");
        assert!(matches!(a.parse_tiles("[X]"), Err(AlphabetError::ForeignTile { .. })));
        assert!(matches!(a.parse_tiles("[CH"), Err(AlphabetError::Bracket(_))));
        assert!(matches!(a.parse_tiles("CZ"), Err(AlphabetError::Foreign { ch: 'Z', .. })));
    }

    #[test]
    fn refused_alphabets_say_why() {
        let e = Alphabet::new("bad", specs(&["A", "A"])).unwrap_err();
        assert_eq!(e.to_string(), "alphabet bad: A spells two tiles, A and A");
        let e = Alphabet::new("bad", specs(&["[X]"])).unwrap_err();
        assert!(e.to_string().contains("is not a label"), "{e}");
        let many: Vec<String> = (0..40).map(|i| format!("X{i}")).collect();
        let many: Vec<&str> = many.iter().map(|s| s.as_str()).collect();
        assert_eq!(
            Alphabet::new("bad", specs(&many)).unwrap_err().to_string(),
            "alphabet bad: 40 tiles, at most 33 are supported"
        );
    }

    #[test]
    fn tile_bytes() {
        let t = tile(25, true);
        assert_eq!(t, 26 | 0x80);
        assert_eq!(tile_letter(t), 25);
        assert!(tile_is_blank(t));
    }
}

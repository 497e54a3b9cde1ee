//! Word lists → minimized DAWGs: compiling, the file format, lookups, and the shipped lexicons.
//!
//! A [`Lexicon`] is a named, immutable DAWG over one [`Alphabet`], with its word count and a
//! content checksum (the checksum of its compiled file, identical for identical word sets).
//! It knows nothing of boards or games.

mod anagrams;
mod builder;
pub mod catalog;
mod dawg;
pub mod file;
pub mod study;

pub use anagrams::{Anagrams, MIN_INDEXED, key_of, letter_code};
pub use builder::{BuildError, DawgBuilder, build_sorted};
pub use dawg::{Dawg, Edge, Edges, LEAF, MAX_EDGES, Node, Step, StructureError};
pub use file::FileError;

use crate::alphabet::{Alphabet, AlphabetError, Letter};
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Longest word a 15×15 board holds: longer words are skipped when compiling, unless a list is
/// compiled for a larger board ([`Lexicon::compile_up_to`]). The shipped lexicons keep this
/// limit, so their contents (and the checksums game records carry) do not depend on the boards
/// the server plays.
pub const MAX_WORD_LEN: usize = 15;
/// Shortest playable word.
pub const MIN_WORD_LEN: usize = 2;

/// Errors of the lexicon layer.
#[derive(Debug, thiserror::Error)]
pub enum LexiconError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error(transparent)]
    Build(#[from] BuildError),
    #[error("cannot read {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("unknown lexicon {0:?}: not a shipped name (en, ru, erudit) nor an existing file")]
    Unknown(String),
    #[error("word list has no playable words ({0})")]
    NoWords(CompileReport),
    #[error("cannot tell the alphabet of {0}: no ruleset's tiles spell any of its words")]
    UnknownAlphabet(String),
}

/// What compiling a word list kept and skipped. Nothing is skipped silently.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileReport {
    /// Non-empty, non-comment lines read.
    pub lines: u64,
    /// Distinct words kept.
    pub kept: u64,
    /// Lines repeating a word already kept (after case folding and, for Эрудит, Ё→Е).
    pub duplicates: u64,
    /// Words with a character outside the alphabet.
    pub foreign: u64,
    /// Words longer than `longest`.
    pub too_long: u64,
    /// The longest word kept: [`MAX_WORD_LEN`], or a larger board's side.
    pub longest: usize,
    /// One-letter words (no play can form them).
    pub too_short: u64,
    /// The first few foreign words, for the report.
    pub foreign_examples: Vec<String>,
    /// Every word that could not be split into the alphabet's tiles, in the list's order.
    pub unsplittable: Vec<String>,
}

impl CompileReport {
    pub fn skipped(&self) -> u64 {
        self.foreign + self.too_long + self.too_short
    }
}

impl fmt::Display for CompileReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} lines, {} words kept, {} duplicates, skipped {} (foreign letters {}, longer than {} {}, \
             shorter than {} {})",
            self.lines,
            self.kept,
            self.duplicates,
            self.skipped(),
            self.foreign,
            self.longest,
            self.too_long,
            MIN_WORD_LEN,
            self.too_short
        )?;
        if !self.foreign_examples.is_empty() {
            write!(f, "; e.g. {}", self.foreign_examples.join(", "))?;
        }
        Ok(())
    }
}

/// A compiled word list.
#[derive(Clone, Debug)]
pub struct Lexicon {
    name: String,
    alphabet: Alphabet,
    dawg: Dawg,
    checksum: u64,
}

/// A word list's bytes as text: UTF-8, or else ISO-8859-1 (Latin-1, as several of Debian's
/// lists are: every byte is the code point of its value). The flag says Latin-1 was used.
pub fn word_list_text(bytes: &[u8]) -> (String, bool) {
    match std::str::from_utf8(bytes) {
        Ok(text) => (text.to_string(), false),
        Err(_) => (bytes.iter().map(|&b| b as char).collect(), true),
    }
}

/// A word list's words as written: one per line (the first whitespace-separated token, so lists
/// with definitions after the word work), `#` comments and blank lines ignored.
pub fn list_words(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter_map(|line| line.split_whitespace().next()).filter(|token| !token.starts_with('#'))
}

/// Parse a word list ([`list_words`]). Returns the sorted, deduplicated words of at most
/// `longest` tiles, and the report.
pub fn parse_word_list(text: &str, alphabet: Alphabet, longest: usize) -> (Vec<Vec<Letter>>, CompileReport) {
    let mut report = CompileReport { longest, ..CompileReport::default() };
    let mut words = Vec::new();
    for token in list_words(text) {
        report.lines += 1;
        match alphabet.parse_word(token) {
            Err(_) => {
                report.foreign += 1;
                if report.foreign_examples.len() < 5 {
                    report.foreign_examples.push(token.to_string());
                }
                report.unsplittable.push(token.to_string());
            }
            Ok(w) if w.len() > longest => report.too_long += 1,
            Ok(w) if w.len() < MIN_WORD_LEN => report.too_short += 1,
            Ok(w) => words.push(w),
        }
    }
    words.sort_unstable();
    let before = words.len();
    words.dedup();
    report.duplicates = (before - words.len()) as u64;
    report.kept = words.len() as u64;
    (words, report)
}

impl Lexicon {
    /// Compile a word list for the standard board (words of at most [`MAX_WORD_LEN`] tiles).
    pub fn compile(
        name: &str,
        text: &str,
        alphabet: Alphabet,
    ) -> Result<(Lexicon, CompileReport), LexiconError> {
        Lexicon::compile_up_to(name, text, alphabet, MAX_WORD_LEN)
    }

    /// Compile a word list keeping words of at most `longest` tiles: a ruleset's board side, so
    /// a list compiled for a 21×21 board keeps the words that only it can hold.
    pub fn compile_up_to(
        name: &str,
        text: &str,
        alphabet: Alphabet,
        longest: usize,
    ) -> Result<(Lexicon, CompileReport), LexiconError> {
        let (words, report) = parse_word_list(text, alphabet, longest);
        if words.is_empty() {
            return Err(LexiconError::NoWords(report));
        }
        let dawg = build_sorted(alphabet.len(), words.iter().map(|w| w.as_slice()))?;
        Ok((Lexicon::from_dawg(name, alphabet, dawg), report))
    }

    /// Wrap an already-built DAWG.
    pub fn from_dawg(name: &str, alphabet: Alphabet, dawg: Dawg) -> Lexicon {
        let checksum = content_checksum(alphabet, &dawg);
        Lexicon { name: name.to_string(), alphabet, dawg, checksum }
    }

    /// Load a compiled file's bytes.
    pub fn load(name: &str, bytes: &[u8], expected: Option<Alphabet>) -> Result<Lexicon, LexiconError> {
        let loaded = file::read(bytes, expected)?;
        Ok(Lexicon {
            name: name.to_string(),
            alphabet: loaded.alphabet,
            dawg: loaded.dawg,
            checksum: loaded.checksum,
        })
    }

    /// The compiled file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        file::write(self.alphabet, &self.dawg)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn alphabet(&self) -> Alphabet {
        self.alphabet
    }

    pub fn dawg(&self) -> &Dawg {
        &self.dawg
    }

    /// Content checksum: xxh3-64 of the compiled file (same words ⇒ same checksum).
    pub fn checksum(&self) -> u64 {
        self.checksum
    }

    pub fn word_count(&self) -> u64 {
        self.dawg.word_count()
    }

    /// Whether a word of letter indexes is in the lexicon.
    pub fn contains(&self, word: &[Letter]) -> bool {
        self.dawg.contains(word)
    }

    /// Whether a word given as text is in the lexicon (case-insensitive; foreign characters are
    /// an error naming the character).
    pub fn contains_str(&self, word: &str) -> Result<bool, AlphabetError> {
        Ok(self.dawg.contains(&self.alphabet.parse_word(word)?))
    }
}

fn content_checksum(alphabet: Alphabet, dawg: &Dawg) -> u64 {
    let bytes = file::write(alphabet, dawg);
    u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().expect("8 bytes"))
}

/// Timing of a load, for `lexicon info`.
#[derive(Clone, Copy, Debug)]
pub enum LoadKind {
    /// Compiled from a word list in this time.
    Compiled(Duration),
    /// Read from a compiled file in this time.
    Loaded(Duration),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_list_parsing_counts_every_skip() {
        let text = "# comment\nAA a volcanic rock\naa\nqi\nx\nabcdefghijklmnop\nnaïve\n\nzyzzyva\n";
        let (words, r) = parse_word_list(text, Alphabet::english(), MAX_WORD_LEN);
        assert_eq!(words.len(), 3);
        assert_eq!(
            r,
            CompileReport {
                lines: 7,
                kept: 3,
                duplicates: 1,
                foreign: 1,
                too_long: 1,
                too_short: 1,
                longest: 15,
                foreign_examples: vec!["naïve".into()],
                unsplittable: vec!["naïve".into()],
            }
        );
        // Compiled for a 21×21 board, the 16-letter word is kept.
        let (words, r) = parse_word_list(text, Alphabet::english(), 21);
        assert_eq!((words.len(), r.too_long, r.longest), (4, 0, 21));
    }

    #[test]
    fn erudit_folds_yo_and_dedups() {
        let (words, r) = parse_word_list("ёж\nеж\nЁЛКА\n", Alphabet::erudit(), MAX_WORD_LEN);
        assert_eq!(words.len(), 2);
        assert_eq!(r.duplicates, 1);
        let (words, _) = parse_word_list("ёж\nеж\n", Alphabet::russian(), MAX_WORD_LEN);
        assert_eq!(words.len(), 2);
    }

    #[test]
    fn checksum_is_content_identity() {
        let (a, _) = Lexicon::compile("a", "cat\ndog\n", Alphabet::english()).unwrap();
        let (b, _) = Lexicon::compile("b", "DOG\ncat\ncat\n", Alphabet::english()).unwrap();
        let (c, _) = Lexicon::compile("c", "cat\ndogs\n", Alphabet::english()).unwrap();
        assert_eq!(a.checksum(), b.checksum());
        assert_ne!(a.checksum(), c.checksum());
    }
}

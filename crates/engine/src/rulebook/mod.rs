//! Rulesets as data: the ruleset file formats, the shipped ruleset files, and the registry of
//! every ruleset this process knows by name.
//!
//! A ruleset file (`data/rulesets/*.ruleset`, or any file given to `--ruleset`) says what a
//! ruleset is: its tiles (label, count, value, vowel, other spellings), blanks, rack size, bingo
//! bonus, board (premium squares, the start square: drawn, or a shipped layout named, `layout
//! standard15`) and options. The letter distributions of MAGPIE and macondo
//! (`label[,blank label],count,value,vowel` CSV) and MAGPIE's board layouts are read as they
//! are, alone or named from a ruleset file (`tiles-file`, `layout-file`). Every refusal names
//! the file and line. The format is documented in `docs/rulesets.md`.
//!
//! Each format has its reader (`file`: the ruleset file; `distribution`: the letter
//! distributions; `layout`: the shipped layouts and MAGPIE's), and each reads into one
//! `builder::Builder`.
//!
//! A [`RulesetKind`] is a `Copy` handle to a registered [`Definition`]: the shipped ones are
//! registered on first use, a file's by [`register`]; a definition lives for the process.

mod builder;
mod distribution;
mod file;
mod layout;

use crate::alphabet::{Alphabet, Letter};
use crate::interned::Interned;
use builder::Builder;
use file::{Named, parse_in};
use std::fmt;
use std::path::Path;
use std::sync::{LazyLock, RwLock};

/// Sides of the boards a ruleset file may give (square boards only).
pub const MIN_SIZE: usize = 15;
pub const MAX_SIZE: usize = 21;
/// The side of the standard board, a letter distribution's board when none is given.
const STANDARD_SIZE: usize = 15;

/// A square's premium.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Premium {
    None,
    DoubleLetter,
    TripleLetter,
    QuadrupleLetter,
    DoubleWord,
    TripleWord,
    QuadrupleWord,
}

impl Premium {
    /// Factor applied to a newly placed tile's value.
    #[inline]
    pub const fn letter_multiplier(self) -> i32 {
        match self {
            Premium::DoubleLetter => 2,
            Premium::TripleLetter => 3,
            Premium::QuadrupleLetter => 4,
            _ => 1,
        }
    }

    /// Factor applied to a word when a newly placed tile covers the square.
    #[inline]
    pub const fn word_multiplier(self) -> i32 {
        match self {
            Premium::DoubleWord => 2,
            Premium::TripleWord => 3,
            Premium::QuadrupleWord => 4,
            _ => 1,
        }
    }

    /// The board character of ruleset files and RULES.md: `Q q T t D d .`.
    pub const fn symbol(self) -> char {
        match self {
            Premium::None => '.',
            Premium::DoubleLetter => 'd',
            Premium::TripleLetter => 't',
            Premium::QuadrupleLetter => 'q',
            Premium::DoubleWord => 'D',
            Premium::TripleWord => 'T',
            Premium::QuadrupleWord => 'Q',
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

/// A ruleset as its file gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    pub name: String,
    /// Other names it answers to (`en`, `скрэббл`).
    pub aliases: Vec<String>,
    pub alphabet: Alphabet,
    /// Tiles of each letter in the full set (0: only a blank can stand for it).
    pub counts: Vec<u8>,
    /// Face value of each letter.
    pub values: Vec<i32>,
    pub blanks: u8,
    pub rack_size: usize,
    pub bingo_bonus: i32,
    /// Board side, and every square's premium, row-major.
    pub size: usize,
    pub premiums: Vec<Premium>,
    /// The start square, row and column from 0.
    pub start: (usize, usize),
    /// The lexicon a game uses when none is named (empty: none, a game must name one).
    pub default_lexicon: String,
    pub options: RuleOptions,
    /// Where it came from: `shipped`, or the file it was read from.
    pub source: String,
    /// A learned leave table's text (`leaves-file`, as `dawgref-lab train leaves` writes it);
    /// none: the bots use the fallback (`leaves::LeaveTable::fallback`).
    pub leaves: Option<String>,
    /// A fitted win-probability table's text (`winprob-file`, as `dawgref-lab train winprob`
    /// writes it); none: the champion reads English's (`winprob::WinTable::shipped`).
    pub winprob: Option<String>,
}

impl Definition {
    /// The board as rows of premium symbols, top to bottom ([`Premium::symbol`]): what
    /// ListRulesets and the web client draw.
    pub fn premium_rows(&self) -> Vec<String> {
        self.premiums.chunks(self.size).map(|row| row.iter().map(|p| p.symbol()).collect()).collect()
    }

    /// Tiles in the full set.
    pub fn total_tiles(&self) -> u32 {
        self.counts.iter().map(|&c| c as u32).sum::<u32>() + self.blanks as u32
    }

    /// Sum of the face values of the full set.
    pub fn face_total(&self) -> i32 {
        self.counts.iter().zip(&self.values).map(|(&c, &v)| c as i32 * v).sum()
    }

    /// The letter of a label (for tests and tools).
    pub fn letter(&self, label: &str) -> Option<Letter> {
        self.alphabet.parse_tiles(label).ok().and_then(|t| (t.len() == 1).then(|| t[0].0))
    }
}

/// A handle to a registered ruleset: `Copy`, compared by identity, named in requests, records
/// and CGP's `ld`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RulesetKind(Interned<Definition>);

impl fmt::Debug for RulesetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RulesetKind({})", self.name())
    }
}
impl fmt::Display for RulesetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown ruleset name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown ruleset {:?} (known: {})", .0, known_names())]
pub struct UnknownRuleset(pub String);

fn known_names() -> String {
    RulesetKind::all().iter().map(|k| k.name()).collect::<Vec<_>>().join(", ")
}

impl std::str::FromStr for RulesetKind {
    type Err = UnknownRuleset;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RulesetKind::by_name(s).ok_or_else(|| UnknownRuleset(crate::text::clip(s)))
    }
}

impl RulesetKind {
    /// English Scrabble.
    pub fn english() -> RulesetKind {
        SHIPPED.0[0]
    }
    /// Russian Scrabble (Скрэббл).
    pub fn russian() -> RulesetKind {
        SHIPPED.0[1]
    }
    /// Эрудит.
    pub fn erudit() -> RulesetKind {
        SHIPPED.0[2]
    }

    /// The three rulesets dawgref played before rulesets were data (and the `Ruleset` enum of the
    /// API names): English, Russian, Эрудит.
    pub fn classic() -> [RulesetKind; 3] {
        [RulesetKind::english(), RulesetKind::russian(), RulesetKind::erudit()]
    }

    /// Every ruleset this process knows, shipped first, in the order registered.
    pub fn all() -> Vec<RulesetKind> {
        let _ = &*SHIPPED;
        REGISTRY.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The ruleset of a name or alias, case-insensitively.
    pub fn by_name(name: &str) -> Option<RulesetKind> {
        let wanted = name.trim().to_lowercase();
        RulesetKind::all()
            .into_iter()
            .find(|k| k.name() == wanted || k.definition().aliases.iter().any(|a| a.to_lowercase() == wanted))
    }

    /// Its place in the registry: English 0, Russian 1, Эрудит 2, then the others as registered.
    pub fn ordinal(self) -> usize {
        RulesetKind::all().iter().position(|&k| k == self).unwrap_or(usize::MAX)
    }

    /// The first ruleset registered in an alphabet (the shipped ones first: English for A–Z).
    pub fn of_alphabet(alphabet: Alphabet) -> Option<RulesetKind> {
        RulesetKind::all().into_iter().find(|k| k.alphabet() == alphabet)
    }

    /// Name as used in requests and the CGP `ld` opcode.
    pub fn name(self) -> &'static str {
        &self.definition().name
    }

    pub fn alphabet(self) -> Alphabet {
        self.definition().alphabet
    }

    /// Everything its file says.
    pub fn definition(self) -> &'static Definition {
        self.0.get()
    }
}

/// The files the shipped rulesets name (`leaves-file`, `winprob-file`), by the path they name
/// them by: their place beside `data/rulesets/` in the source tree, so a shipped file copied
/// with them reads the same from disk.
const SHIPPED_NAMED: &[(&str, &str)] = &[
    ("../leaves/english.txt", include_str!("../../data/leaves/english.txt")),
    ("../leaves/russian.txt", include_str!("../../data/leaves/russian.txt")),
    ("../leaves/erudit.txt", include_str!("../../data/leaves/erudit.txt")),
    ("../leaves/catalan.txt", include_str!("../../data/leaves/catalan.txt")),
    ("../leaves/dutch.txt", include_str!("../../data/leaves/dutch.txt")),
    ("../leaves/french.txt", include_str!("../../data/leaves/french.txt")),
    ("../leaves/german.txt", include_str!("../../data/leaves/german.txt")),
    ("../leaves/norwegian.txt", include_str!("../../data/leaves/norwegian.txt")),
    ("../leaves/polish.txt", include_str!("../../data/leaves/polish.txt")),
    ("../leaves/spanish.txt", include_str!("../../data/leaves/spanish.txt")),
    ("../leaves/swedish.txt", include_str!("../../data/leaves/swedish.txt")),
    ("../leaves/super-english.txt", include_str!("../../data/leaves/super-english.txt")),
    ("../winprob/english.txt", include_str!("../../data/winprob/english.txt")),
    ("../winprob/russian.txt", include_str!("../../data/winprob/russian.txt")),
    ("../winprob/erudit.txt", include_str!("../../data/winprob/erudit.txt")),
    ("../winprob/catalan.txt", include_str!("../../data/winprob/catalan.txt")),
    ("../winprob/dutch.txt", include_str!("../../data/winprob/dutch.txt")),
    ("../winprob/french.txt", include_str!("../../data/winprob/french.txt")),
    ("../winprob/german.txt", include_str!("../../data/winprob/german.txt")),
    ("../winprob/norwegian.txt", include_str!("../../data/winprob/norwegian.txt")),
    ("../winprob/polish.txt", include_str!("../../data/winprob/polish.txt")),
    ("../winprob/spanish.txt", include_str!("../../data/winprob/spanish.txt")),
    ("../winprob/swedish.txt", include_str!("../../data/winprob/swedish.txt")),
    ("../winprob/super-english.txt", include_str!("../../data/winprob/super-english.txt")),
];

/// What is made once a ruleset and kept for the process (its bots' tables): a value per
/// registered ruleset, made on first use. Rulesets are never unregistered, so a value lives as
/// long as its ruleset.
pub struct PerRuleset<T: 'static>(RwLock<Vec<(RulesetKind, &'static T)>>);

impl<T: 'static> PerRuleset<T> {
    pub const fn new() -> PerRuleset<T> {
        PerRuleset(RwLock::new(Vec::new()))
    }

    /// `kind`'s value, made by `make` the first time (outside the lock, so `make` may read
    /// another ruleset's; of two made at once, the first kept wins).
    pub fn get(&self, kind: RulesetKind, make: impl FnOnce() -> T) -> &'static T {
        let find =
            |made: &[(RulesetKind, &'static T)]| made.iter().find(|(k, _)| *k == kind).map(|(_, v)| *v);
        if let Some(v) = find(&self.0.read().unwrap_or_else(|e| e.into_inner())) {
            return v;
        }
        let value = make();
        let mut made = self.0.write().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = find(&made) {
            return v;
        }
        let value: &'static T = Box::leak(Box::new(value));
        made.push((kind, value));
        value
    }
}

impl<T: 'static> Default for PerRuleset<T> {
    fn default() -> PerRuleset<T> {
        PerRuleset::new()
    }
}

/// The shipped ruleset files, by file name.
pub const SHIPPED_FILES: &[(&str, &str)] = &[
    ("english.ruleset", include_str!("../../data/rulesets/english.ruleset")),
    ("russian.ruleset", include_str!("../../data/rulesets/russian.ruleset")),
    ("erudit.ruleset", include_str!("../../data/rulesets/erudit.ruleset")),
    ("catalan.ruleset", include_str!("../../data/rulesets/catalan.ruleset")),
    ("dutch.ruleset", include_str!("../../data/rulesets/dutch.ruleset")),
    ("french.ruleset", include_str!("../../data/rulesets/french.ruleset")),
    ("german.ruleset", include_str!("../../data/rulesets/german.ruleset")),
    ("norwegian.ruleset", include_str!("../../data/rulesets/norwegian.ruleset")),
    ("polish.ruleset", include_str!("../../data/rulesets/polish.ruleset")),
    ("spanish.ruleset", include_str!("../../data/rulesets/spanish.ruleset")),
    ("swedish.ruleset", include_str!("../../data/rulesets/swedish.ruleset")),
    ("super-english.ruleset", include_str!("../../data/rulesets/super-english.ruleset")),
];

struct Shipped([RulesetKind; 3]);

static REGISTRY: RwLock<Vec<RulesetKind>> = RwLock::new(Vec::new());

/// The shipped files, registered once, before anything else can be.
static SHIPPED: LazyLock<Shipped> = LazyLock::new(|| {
    let mut registry = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
    for (file, text) in SHIPPED_FILES {
        let def = parse_in(text, file, Named::Shipped).unwrap_or_else(|e| panic!("a shipped ruleset: {e}"));
        let def = Definition { source: "shipped".into(), ..def };
        registry.push(RulesetKind(Interned::leak(def)));
    }
    Shipped([registry[0], registry[1], registry[2]])
});

/// Why a ruleset could not be read or registered: the file and line, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {message}", .line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct RulebookError {
    pub file: String,
    pub line: Option<usize>,
    pub message: String,
}

/// Register a definition under its name: the handle games, lexicons and requests name it by.
/// A name (or alias) already taken by a different ruleset is refused; the same definition again
/// answers the handle it has.
pub fn register(def: Definition) -> Result<RulesetKind, RulebookError> {
    let _ = &*SHIPPED;
    let mut registry = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
    let names: Vec<String> =
        std::iter::once(&def.name).chain(&def.aliases).map(|n| n.to_lowercase()).collect();
    for k in registry.iter() {
        let theirs = k.definition();
        let their_names = std::iter::once(&theirs.name).chain(&theirs.aliases).map(|n| n.to_lowercase());
        if let Some(clash) = their_names.into_iter().find(|n| names.contains(n)) {
            if (Definition { source: String::new(), ..theirs.clone() })
                == (Definition { source: String::new(), ..def.clone() })
            {
                return Ok(*k);
            }
            return Err(RulebookError {
                file: def.source.clone(),
                line: None,
                message: format!(
                    "the name {clash:?} is taken by the ruleset {} ({})",
                    theirs.name, theirs.source
                ),
            });
        }
    }
    let kind = RulesetKind(Interned::leak(def));
    registry.push(kind);
    Ok(kind)
}

/// Read a ruleset file of any of the formats: a `.csv` letter distribution (MAGPIE's or
/// macondo's) becomes a ruleset named after the file on the standard board, anything else is a
/// ruleset file. Files it names are read relative to it.
pub fn read_file(path: &Path) -> Result<Definition, RulebookError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| RulebookError {
        file: file.clone(),
        line: None,
        message: format!("cannot read it: {e}"),
    })?;
    let stem =
        path.file_stem().and_then(|s| s.to_str()).unwrap_or("ruleset").to_lowercase().replace('_', "-");
    let def = if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")) {
        let mut b = Builder::new(&file);
        b.name = Some(stem);
        b.read_distribution(&text, &file)?;
        b.finish()?
    } else {
        parse(&text, &file, path.parent())?
    };
    Ok(Definition { source: file, ..def })
}

/// Parse a ruleset file's text. `dir` is where the files it names are read from (none: it may
/// name none).
pub fn parse(text: &str, file: &str, dir: Option<&Path>) -> Result<Definition, RulebookError> {
    parse_in(text, file, dir.map_or(Named::Nowhere, Named::Dir))
}

impl std::str::FromStr for Alphabet {
    type Err = crate::alphabet::AlphabetError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Alphabet::by_name(s)
    }
}

impl Alphabet {
    /// English's alphabet (A–Z).
    pub fn english() -> Alphabet {
        RulesetKind::english().alphabet()
    }
    /// Russian Scrabble's alphabet (А–Я with Ё, 33 letters).
    pub fn russian() -> Alphabet {
        RulesetKind::russian().alphabet()
    }
    /// Эрудит's alphabet (32 letters, Ё read as Е).
    pub fn erudit() -> Alphabet {
        RulesetKind::erudit().alphabet()
    }
    /// The alphabet of a name (`en`, `ru`, `erudit`) or of a ruleset's name (`catalan`).
    pub fn by_name(name: &str) -> Result<Alphabet, crate::alphabet::AlphabetError> {
        let all = RulesetKind::all();
        let wanted = name.trim().to_lowercase();
        all.iter()
            .map(|k| k.alphabet())
            .find(|a| a.name() == wanted)
            .or_else(|| RulesetKind::by_name(&wanted).map(|k| k.alphabet()))
            .ok_or_else(|| crate::alphabet::AlphabetError::UnknownName(crate::text::clip(name)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value is made once a ruleset, and each ruleset has its own.
    #[test]
    fn per_ruleset_values_are_made_once_each() {
        static MADE: PerRuleset<String> = PerRuleset::new();
        let made = std::sync::atomic::AtomicUsize::new(0);
        let make = |kind: RulesetKind| {
            MADE.get(kind, || {
                made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                kind.name().to_string()
            })
        };
        let first = make(RulesetKind::english());
        assert!(std::ptr::eq(first, make(RulesetKind::english())));
        assert_eq!((first.as_str(), make(RulesetKind::russian()).as_str()), ("english", "russian"));
        assert_eq!(made.load(std::sync::atomic::Ordering::Relaxed), 2);
    }
}

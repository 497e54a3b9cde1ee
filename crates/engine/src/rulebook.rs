//! Rulesets as data: the ruleset file formats, the shipped ruleset files, and the registry of
//! every ruleset this process knows by name.
//!
//! A ruleset file (`data/rulesets/*.ruleset`, or any file given to `--ruleset`) says what a
//! ruleset is: its tiles (label, count, value, vowel, other spellings), blanks, rack size, bingo
//! bonus, board (premium squares, the start square) and options. The letter distributions of
//! MAGPIE and macondo (`label[,blank label],count,value,vowel` CSV) and MAGPIE's board layouts
//! are read as they are, alone or named from a ruleset file (`tiles-file`, `layout-file`). Every
//! refusal names the file and line. The format is documented in `docs/rulesets.md`.
//!
//! A [`RulesetKind`] is a `Copy` handle to a registered [`Definition`]: the shipped ones are
//! registered on first use, a file's by [`register`]; a definition lives for the process.

use crate::alphabet::{Alphabet, Letter, MAX_LETTERS, TileSpec};
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

/// A handle to a registered ruleset: `Copy`, compared by identity, named in requests, records
/// and CGP's `ld`.
#[derive(Clone, Copy)]
pub struct RulesetKind(&'static Definition);

impl PartialEq for RulesetKind {
    fn eq(&self, other: &RulesetKind) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}
impl Eq for RulesetKind {}
impl std::hash::Hash for RulesetKind {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.0 as *const Definition).hash(state)
    }
}
impl fmt::Debug for RulesetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RulesetKind({})", self.0.name)
    }
}
impl fmt::Display for RulesetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.name)
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
            .find(|k| k.0.name == wanted || k.0.aliases.iter().any(|a| a.to_lowercase() == wanted))
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
        &self.0.name
    }

    pub fn alphabet(self) -> Alphabet {
        self.0.alphabet
    }

    /// Everything its file says.
    pub fn definition(self) -> &'static Definition {
        self.0
    }
}

/// The files the shipped rulesets name (`leaves-file`, `winprob-file`), by the path they name
/// them by: their place beside `data/rulesets/` in the source tree, so a shipped file copied
/// with them reads the same from disk.
const SHIPPED_NAMED: &[(&str, &str)] = &[
    ("../leaves/english.txt", include_str!("../data/leaves/english.txt")),
    ("../leaves/russian.txt", include_str!("../data/leaves/russian.txt")),
    ("../leaves/erudit.txt", include_str!("../data/leaves/erudit.txt")),
    ("../leaves/catalan.txt", include_str!("../data/leaves/catalan.txt")),
    ("../leaves/dutch.txt", include_str!("../data/leaves/dutch.txt")),
    ("../leaves/french.txt", include_str!("../data/leaves/french.txt")),
    ("../leaves/german.txt", include_str!("../data/leaves/german.txt")),
    ("../leaves/norwegian.txt", include_str!("../data/leaves/norwegian.txt")),
    ("../leaves/polish.txt", include_str!("../data/leaves/polish.txt")),
    ("../leaves/spanish.txt", include_str!("../data/leaves/spanish.txt")),
    ("../leaves/swedish.txt", include_str!("../data/leaves/swedish.txt")),
    ("../leaves/super-english.txt", include_str!("../data/leaves/super-english.txt")),
    ("../winprob/english.txt", include_str!("../data/winprob/english.txt")),
    ("../winprob/russian.txt", include_str!("../data/winprob/russian.txt")),
    ("../winprob/erudit.txt", include_str!("../data/winprob/erudit.txt")),
    ("../winprob/catalan.txt", include_str!("../data/winprob/catalan.txt")),
    ("../winprob/dutch.txt", include_str!("../data/winprob/dutch.txt")),
    ("../winprob/french.txt", include_str!("../data/winprob/french.txt")),
    ("../winprob/german.txt", include_str!("../data/winprob/german.txt")),
    ("../winprob/norwegian.txt", include_str!("../data/winprob/norwegian.txt")),
    ("../winprob/polish.txt", include_str!("../data/winprob/polish.txt")),
    ("../winprob/spanish.txt", include_str!("../data/winprob/spanish.txt")),
    ("../winprob/swedish.txt", include_str!("../data/winprob/swedish.txt")),
    ("../winprob/super-english.txt", include_str!("../data/winprob/super-english.txt")),
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
    ("english.ruleset", include_str!("../data/rulesets/english.ruleset")),
    ("russian.ruleset", include_str!("../data/rulesets/russian.ruleset")),
    ("erudit.ruleset", include_str!("../data/rulesets/erudit.ruleset")),
    ("catalan.ruleset", include_str!("../data/rulesets/catalan.ruleset")),
    ("dutch.ruleset", include_str!("../data/rulesets/dutch.ruleset")),
    ("french.ruleset", include_str!("../data/rulesets/french.ruleset")),
    ("german.ruleset", include_str!("../data/rulesets/german.ruleset")),
    ("norwegian.ruleset", include_str!("../data/rulesets/norwegian.ruleset")),
    ("polish.ruleset", include_str!("../data/rulesets/polish.ruleset")),
    ("spanish.ruleset", include_str!("../data/rulesets/spanish.ruleset")),
    ("swedish.ruleset", include_str!("../data/rulesets/swedish.ruleset")),
    ("super-english.ruleset", include_str!("../data/rulesets/super-english.ruleset")),
];

struct Shipped([RulesetKind; 3]);

static REGISTRY: RwLock<Vec<RulesetKind>> = RwLock::new(Vec::new());

/// The shipped files, registered once, before anything else can be.
static SHIPPED: LazyLock<Shipped> = LazyLock::new(|| {
    let mut registry = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
    for (file, text) in SHIPPED_FILES {
        let def = parse_in(text, file, Named::Shipped).unwrap_or_else(|e| panic!("a shipped ruleset: {e}"));
        let def = Definition { source: "shipped".into(), ..def };
        registry.push(RulesetKind(Box::leak(Box::new(def))));
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
        let theirs = std::iter::once(&k.0.name).chain(&k.0.aliases).map(|n| n.to_lowercase());
        if let Some(clash) = theirs.into_iter().find(|n| names.contains(n)) {
            if (Definition { source: String::new(), ..k.0.clone() })
                == (Definition { source: String::new(), ..def.clone() })
            {
                return Ok(*k);
            }
            return Err(RulebookError {
                file: def.source.clone(),
                line: None,
                message: format!("the name {clash:?} is taken by the ruleset {} ({})", k.0.name, k.0.source),
            });
        }
    }
    let kind = RulesetKind(Box::leak(Box::new(def)));
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

/// Where the files a ruleset names are read from.
#[derive(Clone, Copy)]
enum Named<'a> {
    /// It may name none.
    Nowhere,
    /// Relative to this directory.
    Dir(&'a Path),
    /// From the shipped data built in ([`SHIPPED_NAMED`]).
    Shipped,
}

impl Named<'_> {
    /// The text of the file a `key` line names `rest`, and how to name it in an error.
    fn read(self, key: &str, rest: &str) -> Result<(String, String), String> {
        match self {
            Named::Nowhere => Err(format!("{key} names a file, and this ruleset is not read from one")),
            Named::Dir(dir) => {
                let path = dir.join(rest);
                let named = path.display().to_string();
                let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {named}: {e}"))?;
                Ok((text, named))
            }
            Named::Shipped => SHIPPED_NAMED
                .iter()
                .find(|(name, _)| *name == rest)
                .map(|(name, text)| (text.to_string(), name.to_string()))
                .ok_or_else(|| format!("{key} names {rest:?}, which is not shipped")),
        }
    }
}

fn parse_in(text: &str, file: &str, named: Named) -> Result<Definition, RulebookError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut b = Builder::new(file);
    let mut section = Section::Header;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.split('#').next().unwrap_or("").trim_end();
        if section == Section::Board && !line.trim().is_empty() {
            b.board_row(line.trim(), n)?;
            continue;
        }
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let err = |message: String| RulebookError { file: file.to_string(), line: Some(n), message };
        let (key, rest) = line.split_once(char::is_whitespace).map_or((line, ""), |(k, r)| (k, r.trim()));
        if section == Section::Tiles && !KEYS.contains(&key) {
            b.tile_line(line, n)?;
            continue;
        }
        let shown = crate::text::clip(rest);
        let number = |what: &str, range: std::ops::RangeInclusive<u32>| -> Result<u32, RulebookError> {
            let n: u32 =
                rest.parse().map_err(|_| err(format!("{what} must be a whole number, not {shown:?}")))?;
            if !range.contains(&n) {
                return Err(err(format!("{what} {n}: {} to {}", range.start(), range.end())));
            }
            Ok(n)
        };
        // A value given twice is refused: the second line would silently replace the first.
        if let Some(&once) = KEYS.iter().find(|k| **k == key)
            && !matches!(once, "tiles" | "board" | "tiles-file" | "layout-file")
        {
            if let Some(first) = b.line_of(once) {
                return Err(err(format!("a second {once} line (the first is line {first})")));
            }
            b.seen.push((once, n));
        }
        let word = |what: &str, w: &str| -> Result<String, RulebookError> {
            if w.is_empty() || w.chars().count() > MAX_NAME_CHARS || w.chars().any(char::is_control) {
                return Err(err(format!(
                    "{what} {:?}: 1 to {MAX_NAME_CHARS} characters, no control characters",
                    crate::text::clip(w)
                )));
            }
            Ok(w.to_string())
        };
        match key {
            "name" => b.name = Some(word("name", rest)?.to_lowercase()),
            "also" => {
                let also: Vec<&str> = rest.split_whitespace().collect();
                if also.len() > MAX_RULESET_ALIASES {
                    return Err(err(format!("{} other names: at most {MAX_RULESET_ALIASES}", also.len())));
                }
                for a in also {
                    b.aliases.push(word("also", a)?.to_lowercase());
                }
            }
            "alphabet" => b.alphabet_name = Some(word("alphabet", rest)?),
            "lexicon" => b.lexicon = word("lexicon", rest)?,
            "rack" => b.rack = number("rack", 1..=7)? as usize,
            "bingo" => b.bingo = number("bingo", 0..=MAX_BINGO)? as i32,
            "blanks" => b.blanks = Some(number("blanks", 0..=MAX_BLANKS)? as u8),
            "exchange-minimum" => {
                b.options.exchange_limit = number("exchange-minimum", 0..=MAX_EXCHANGE_MINIMUM)?
            }
            "scoreless-turns" => {
                b.options.scoreless_turn_limit = match rest {
                    "twice-per-player" => ScorelessLimit::TwicePerPlayer,
                    _ => ScorelessLimit::Turns(number("scoreless-turns", 1..=MAX_SCORELESS_TURNS)?),
                }
            }
            "blank-value" => {
                b.options.blank_value = match rest {
                    "zero" => BlankValue::Zero,
                    "letter" => BlankValue::LetterValue,
                    _ => return Err(err(format!("blank-value is zero or letter, not {shown:?}"))),
                }
            }
            "repeated-words" => {
                b.options.no_repeated_words = match rest {
                    "allowed" => false,
                    "refused" => true,
                    _ => return Err(err(format!("repeated-words is allowed or refused, not {shown:?}"))),
                }
            }
            "start" => {
                b.start = Some(
                    parse_square(rest)
                        .ok_or_else(|| err(format!("start {shown:?} is not a square like 8H")))?,
                )
            }
            "tiles" => section = Section::Tiles,
            "board" => section = Section::Board,
            "tiles-file" | "layout-file" | "leaves-file" | "winprob-file" => {
                let (text, named) = named.read(key, rest).map_err(err)?;
                match key {
                    "tiles-file" => b.read_distribution(&text, &named)?,
                    "layout-file" => b.read_layout(&text, &named)?,
                    "leaves-file" => b.leaves = Some(text),
                    _ => b.winprob = Some(text),
                }
            }
            _ => {
                return Err(err(format!(
                    "unknown line {:?} (expected one of: {})",
                    crate::text::clip(key),
                    KEYS.join(", ")
                )));
            }
        }
    }
    b.finish()
}

const KEYS: &[&str] = &[
    "name",
    "also",
    "alphabet",
    "lexicon",
    "rack",
    "bingo",
    "blanks",
    "exchange-minimum",
    "scoreless-turns",
    "blank-value",
    "repeated-words",
    "start",
    "tiles",
    "board",
    "tiles-file",
    "layout-file",
    "leaves-file",
    "winprob-file",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Header,
    Tiles,
    Board,
}

/// `8H` (row 8, column H) or `H8`: row and column from 0.
fn parse_square(s: &str) -> Option<(usize, usize)> {
    let s = s.trim().to_ascii_uppercase();
    let (digits, letter): (String, String) = s.chars().partition(|c| c.is_ascii_digit());
    let mut letters = letter.chars();
    let (Some(c), None) = (letters.next(), letters.next()) else { return None };
    let row: usize = digits.parse().ok()?;
    (c.is_ascii_uppercase() && row >= 1).then(|| (row - 1, (c as u8 - b'A') as usize))
}

/// A premium by its board character (`Q q T t D d`, anything else none).
fn board_symbol(ch: char) -> Premium {
    match ch {
        'd' => Premium::DoubleLetter,
        't' => Premium::TripleLetter,
        'q' => Premium::QuadrupleLetter,
        'D' => Premium::DoubleWord,
        'T' => Premium::TripleWord,
        'Q' => Premium::QuadrupleWord,
        _ => Premium::None,
    }
}

/// A definition as it is read, line by line.
struct Builder {
    file: String,
    name: Option<String>,
    aliases: Vec<String>,
    alphabet_name: Option<String>,
    lexicon: String,
    rack: usize,
    bingo: i32,
    blanks: Option<u8>,
    options: RuleOptions,
    start: Option<(usize, usize)>,
    /// Each tile, with its count, value and the line it was given on.
    tiles: Vec<(TileSpec, u8, i32, usize)>,
    rows: Vec<(Vec<Premium>, usize)>,
    /// A start square marked on the board (`*` or `+`).
    marked_start: Option<(usize, usize)>,
    layout_given: bool,
    leaves: Option<String>,
    winprob: Option<String>,
    /// The line each header key was given on (each is given once).
    seen: Vec<(&'static str, usize)>,
}

/// Bounds of a ruleset file's values: every value is bounded, and every refusal names its line.
const MAX_BLANKS: u32 = 20;
const MAX_BINGO: u32 = 1000;
const MAX_EXCHANGE_MINIMUM: u32 = 100;
const MAX_SCORELESS_TURNS: u32 = 1000;
/// Other names a ruleset may go by, and each one's length in characters.
const MAX_RULESET_ALIASES: usize = 16;
const MAX_NAME_CHARS: usize = 40;

impl Builder {
    /// The line `key` was first given on, if it was.
    fn line_of(&self, key: &str) -> Option<usize> {
        self.seen.iter().find(|(k, _)| *k == key).map(|&(_, n)| n)
    }

    fn new(file: &str) -> Builder {
        Builder {
            file: file.to_string(),
            name: None,
            aliases: Vec::new(),
            alphabet_name: None,
            lexicon: String::new(),
            rack: 7,
            bingo: 50,
            blanks: None,
            options: RuleOptions {
                blank_value: BlankValue::Zero,
                no_repeated_words: false,
                scoreless_turn_limit: ScorelessLimit::Turns(6),
                exchange_limit: 7,
            },
            start: None,
            tiles: Vec::new(),
            rows: Vec::new(),
            marked_start: None,
            layout_given: false,
            leaves: None,
            winprob: None,
            seen: Vec::new(),
        }
    }

    fn err(&self, line: Option<usize>, message: String) -> RulebookError {
        RulebookError { file: self.file.clone(), line, message }
    }

    /// `LABEL COUNT VALUE [vowel] [blank-only] [aka SPELLING…]`.
    fn tile_line(&mut self, line: &str, n: usize) -> Result<(), RulebookError> {
        let mut words = line.split_whitespace();
        let label = words.next().unwrap_or_default();
        let mut number = |what: &str| -> Result<i64, RulebookError> {
            let w = words.next().ok_or_else(|| self.err(Some(n), format!("tile {label}: no {what}")))?;
            w.parse()
                .map_err(|_| self.err(Some(n), format!("tile {label}: {what} {w:?} is not a whole number")))
        };
        let count = number("count")?;
        let value = number("value")?;
        let (mut vowel, mut blank_only, mut aliases, mut in_aliases) = (false, false, Vec::new(), false);
        for w in words {
            match w {
                _ if in_aliases => aliases.push(w.to_string()),
                "vowel" => vowel = true,
                "blank-only" => blank_only = true,
                "aka" => in_aliases = true,
                _ => {
                    return Err(self.err(
                        Some(n),
                        format!("tile {label}: unknown word {w:?} (vowel, blank-only, aka …)"),
                    ));
                }
            }
        }
        if count == 0 && !blank_only {
            return Err(self.err(
                Some(n),
                format!(
                    "tile {label} has a count of 0 (write blank-only when only a blank may stand for it)"
                ),
            ));
        }
        if count != 0 && blank_only {
            return Err(self.err(Some(n), format!("tile {label} is blank-only and has a count of {count}")));
        }
        if label == "?" {
            return Err(self.err(Some(n), "the blank is given by a blanks line, not as a tile".into()));
        }
        let spec = TileSpec { label: label.to_string(), blank_label: None, aliases, vowel };
        self.tile(spec, count, value, n).map_err(|m| self.err(Some(n), m))
    }

    /// Add a tile; an error is the message for its line.
    fn tile(&mut self, spec: TileSpec, count: i64, value: i64, n: usize) -> Result<(), String> {
        let label = crate::text::clip(&spec.label);
        if !(0..=255).contains(&count) || !(0..=1000).contains(&value) {
            return Err(format!("tile {label}: count {count} or value {value} out of range"));
        }
        // What the alphabet would refuse, refused here, where the line is known.
        for s in std::iter::once(&spec.label).chain(&spec.aliases).chain(&spec.blank_label) {
            if s.is_empty()
                || s.chars().count() > crate::alphabet::MAX_LABEL
                || s.chars().any(|c| c.is_control() || c.is_whitespace() || "[]?*.()".contains(c))
            {
                return Err(format!(
                    "tile {label}: {:?} is not a spelling (1 to {} characters, no control characters, none of [ ] ? * . ( ))",
                    crate::text::clip(s),
                    crate::alphabet::MAX_LABEL
                ));
            }
        }
        let upper: String = spec.label.to_uppercase();
        if let Some((_, _, _, first)) = self.tiles.iter().find(|(s, ..)| s.label.to_uppercase() == upper) {
            return Err(format!("duplicate label {label} (first on line {first})"));
        }
        for s in std::iter::once(&spec.label).chain(&spec.aliases) {
            let key = s.to_uppercase();
            let taken = self
                .tiles
                .iter()
                .find(|(t, ..)| std::iter::once(&t.label).chain(&t.aliases).any(|o| o.to_uppercase() == key));
            if let Some((t, _, _, first)) = taken {
                return Err(format!("{s} spells two tiles, {} (line {first}) and {label}", t.label));
            }
        }
        if self.tiles.len() == MAX_LETTERS {
            return Err(format!("more than {MAX_LETTERS} tiles"));
        }
        self.tiles.push((spec, count as u8, value as i32, n));
        Ok(())
    }

    /// A MAGPIE (`label,blank label,count,value,vowel`) or macondo (`label,count,value,vowel`)
    /// letter distribution; `[CH]` brackets are taken off, `?` is the blank, a count of 0 is a
    /// letter only a blank can stand for.
    fn read_distribution(&mut self, text: &str, file: &str) -> Result<(), RulebookError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let err = |message: String| RulebookError { file: file.to_string(), line: Some(n), message };
            if line.trim().is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            let (label, blank_label, rest) = match fields.len() {
                4 => (fields[0], None, &fields[1..]),
                5 => (fields[0], Some(fields[1]), &fields[2..]),
                k => {
                    return Err(err(format!(
                        "{k} fields; a letter distribution line has 4 (macondo) or 5 (MAGPIE)"
                    )));
                }
            };
            let num = |s: &str, what: &str| -> Result<i64, RulebookError> {
                s.parse().map_err(|_| err(format!("{what} {s:?} is not a whole number")))
            };
            let (count, value) = (num(rest[0], "count")?, num(rest[1], "value")?);
            // macondo and MAGPIE read a vowel as `== 1`; anything else is a consonant.
            let vowel = num(rest[2], "vowel")? == 1;
            let strip = |s: &str| s.trim_start_matches('[').trim_end_matches(']').to_string();
            if label == "?" {
                if self.blanks.is_some() {
                    return Err(err("a second blank line".into()));
                }
                if !(0..=i64::from(MAX_BLANKS)).contains(&count) {
                    return Err(err(format!("{count} blanks: 0 to {MAX_BLANKS}")));
                }
                self.blanks = Some(count as u8);
                continue;
            }
            let spec = TileSpec {
                label: strip(label),
                blank_label: blank_label.map(strip),
                aliases: Vec::new(),
                vowel,
            };
            self.tile(spec, count, value, n).map_err(err)?;
        }
        Ok(())
    }

    /// A MAGPIE layout: `row, col` of the start square, then the rows (`~` quadruple word, `=`
    /// triple word, `-` double word, `^` quadruple letter, `"` triple letter, `'` double letter).
    fn read_layout(&mut self, text: &str, file: &str) -> Result<(), RulebookError> {
        let err = |line: usize, message: String| RulebookError {
            file: file.to_string(),
            line: Some(line),
            message,
        };
        let mut lines = text.lines().enumerate();
        let (_, first) = lines.next().ok_or_else(|| err(1, "empty layout".into()))?;
        let coords: Vec<Option<usize>> = first.split(',').map(|s| s.trim().parse().ok()).collect();
        let [Some(row), Some(col)] = coords[..] else {
            return Err(err(1, format!("the first line is the start square as `row, col`, not {first:?}")));
        };
        // A row of spaces is a row of plain squares; only empty lines at the end are no rows.
        let mut rows: Vec<(usize, &str)> = lines.map(|(i, l)| (i + 1, l)).collect();
        while rows.last().is_some_and(|(_, l)| l.is_empty()) {
            rows.pop();
        }
        let size = rows.len();
        for (n, l) in rows {
            if l.chars().count() > size {
                return Err(err(
                    n,
                    format!("a row of {} squares on a board of {size} rows", l.chars().count()),
                ));
            }
            let mut out = Vec::with_capacity(size);
            for ch in l.chars().chain(std::iter::repeat(' ')).take(size) {
                out.push(match ch {
                    ' ' => Premium::None,
                    '\'' => Premium::DoubleLetter,
                    '"' => Premium::TripleLetter,
                    '^' => Premium::QuadrupleLetter,
                    '-' => Premium::DoubleWord,
                    '=' => Premium::TripleWord,
                    '~' => Premium::QuadrupleWord,
                    _ => return Err(err(n, format!("square {ch:?} is not a premium this engine plays"))),
                });
            }
            self.rows.push((out, n));
        }
        self.start = Some((row, col));
        self.layout_given = true;
        Ok(())
    }

    /// A board row: `Q q T t D d .`, and `*` (the start square, a double word) or `+` (the start
    /// square, plain).
    fn board_row(&mut self, line: &str, n: usize) -> Result<(), RulebookError> {
        let row = self.rows.len();
        let mut out = Vec::with_capacity(line.len());
        for (col, ch) in line.chars().enumerate() {
            out.push(match ch {
                '.' | 'd' | 't' | 'q' | 'D' | 'T' | 'Q' => board_symbol(ch),
                '*' | '+' => {
                    if self.marked_start.is_some() {
                        return Err(self.err(Some(n), "a second start square".into()));
                    }
                    self.marked_start = Some((row, col));
                    if ch == '*' { Premium::DoubleWord } else { Premium::None }
                }
                _ => {
                    return Err(self.err(Some(n), format!("square {ch:?} is not one of . d t q D T Q * +")));
                }
            });
        }
        self.rows.push((out, n));
        Ok(())
    }

    fn finish(self) -> Result<Definition, RulebookError> {
        let whole = |message: String| RulebookError { file: self.file.clone(), line: None, message };
        let name = self.name.clone().ok_or_else(|| whole("no name line".into()))?;
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_') {
            return Err(whole(format!("name {name:?} is not a word of letters, digits and -")));
        }
        if self.tiles.is_empty() {
            return Err(whole("no tiles".into()));
        }
        let size = if self.rows.is_empty() { STANDARD_SIZE } else { self.rows.len() };
        let last_line = self.rows.last().map(|r| r.1);
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(RulebookError {
                file: self.file.clone(),
                line: last_line,
                message: format!(
                    "a board of {size} rows: boards are {MIN_SIZE}×{MIN_SIZE} to {MAX_SIZE}×{MAX_SIZE}"
                ),
            });
        }
        let premiums = if self.rows.is_empty() {
            // The standard board is English's, as its shipped file draws it (every shipped file
            // has a board, so this is never asked while the shipped files are read).
            RulesetKind::english().definition().premiums.clone()
        } else {
            let mut p = Vec::with_capacity(size * size);
            for (row, n) in &self.rows {
                if row.len() != size {
                    return Err(self
                        .err(Some(*n), format!("a row of {} squares on a board of {size} rows", row.len())));
                }
                p.extend_from_slice(row);
            }
            p
        };
        let start = match (self.marked_start, self.start) {
            (Some(_), Some(_)) if !self.layout_given => {
                return Err(self.err(
                    self.line_of("start"),
                    "the start square is given twice: by a start line and on the board".into(),
                ));
            }
            (Some(s), _) | (None, Some(s)) => s,
            (None, None) if self.rows.is_empty() => (size / 2, size / 2),
            (None, None) => {
                return Err(whole(
                    "no start square: mark it * or + on the board, or give a start line".into(),
                ));
            }
        };
        if start.0 >= size || start.1 >= size {
            return Err(self.err(
                self.line_of("start"),
                format!(
                    "the start square (row {}, column {}) is off the {size}×{size} board",
                    start.0 + 1,
                    start.1 + 1
                ),
            ));
        }
        // (A rack line is bounded where it is read: 1 to 7.)
        let specs: Vec<TileSpec> = self.tiles.iter().map(|t| t.0.clone()).collect();
        let alphabet_name = self.alphabet_name.clone().unwrap_or_else(|| name.clone());
        let alphabet = Alphabet::new(&alphabet_name, specs).map_err(|e| whole(e.to_string()))?;
        let blanks = self.blanks.unwrap_or(0);
        let total: u32 = self.tiles.iter().map(|t| t.1 as u32).sum::<u32>() + blanks as u32;
        if total < 2 * self.rack as u32 {
            return Err(whole(format!("{total} tiles, too few to deal two racks of {}", self.rack)));
        }
        let mut counts = vec![0; alphabet.len()];
        let mut values = vec![0; alphabet.len()];
        for (i, t) in self.tiles.iter().enumerate() {
            counts[i] = t.1;
            values[i] = t.2;
        }
        Ok(Definition {
            name,
            aliases: self.aliases,
            alphabet,
            counts,
            values,
            blanks,
            rack_size: self.rack,
            bingo_bonus: self.bingo,
            size,
            premiums,
            start,
            default_lexicon: self.lexicon,
            options: self.options,
            source: self.file,
            leaves: self.leaves,
            winprob: self.winprob,
        })
    }
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

//! The lexicons shipped inside the binary, and resolution of a lexicon named on the command line
//! or in a request: a shipped short name, a compiled file, or any word list.
//!
//! The shipped word lists are embedded as text (`lexicons/*.txt`) and compiled on first use; a
//! compile takes a fraction of a second (BENCHMARKS.md), so no build step or network is needed.

use super::{CompileReport, Lexicon, LexiconError, LoadKind, file};
use crate::alphabet::Alphabet;
use crate::script::guess_alphabet_of_words;
use std::path::Path;
use std::time::Instant;

/// A word list embedded in the binary.
pub struct Shipped {
    /// Short name: `en`, `ru`, `erudit`.
    pub name: &'static str,
    /// Its alphabet (a function: alphabets are made from the shipped ruleset files at first use).
    pub alphabet: fn() -> Alphabet,
    pub text: &'static str,
    /// One line of provenance.
    pub source: &'static str,
}

const EN_TEXT: &str = include_str!("../../../../lexicons/en.txt");
const RU_TEXT: &str = include_str!("../../../../lexicons/ru.txt");

/// Every shipped lexicon. Эрудит uses the Russian list with Ё folded to Е.
pub const SHIPPED: &[Shipped] = &[
    Shipped {
        name: "en",
        alphabet: Alphabet::english,
        text: EN_TEXT,
        source: "Letterpress word list (CC0), npm word-list 4.1.0, 2-15 letters",
    },
    Shipped {
        name: "ru",
        alphabet: Alphabet::russian,
        text: RU_TEXT,
        source: "OpenCorpora common nouns (CC BY-SA 3.0) via pymorphy3-dicts-ru",
    },
    Shipped {
        name: "erudit",
        alphabet: Alphabet::erudit,
        text: RU_TEXT,
        source: "the ru list with Ё folded to Е",
    },
];

/// The shipped lexicon of that name, case-insensitively.
pub fn shipped(name: &str) -> Option<&'static Shipped> {
    SHIPPED.iter().find(|s| s.name.eq_ignore_ascii_case(name))
}

/// A resolved lexicon with how it was obtained.
pub struct Resolved {
    pub lexicon: Lexicon,
    pub kind: LoadKind,
    /// Present when a word list was compiled.
    pub report: Option<CompileReport>,
}

/// Resolve `spec`: a shipped name, else a path to a compiled file or a word list. `alphabet`
/// picks the alphabet of a word list (and is checked against a compiled file); without it the
/// list's letters say which ([`guess_alphabet_of_words`]), and a list no alphabet reads is refused.
pub fn resolve(spec: &str, alphabet: Option<Alphabet>) -> Result<Resolved, LexiconError> {
    if let Some(s) = shipped(spec) {
        let start = Instant::now();
        let (lexicon, report) = Lexicon::compile(s.name, s.text, alphabet.unwrap_or((s.alphabet)()))?;
        return Ok(Resolved { lexicon, kind: LoadKind::Compiled(start.elapsed()), report: Some(report) });
    }
    let path = Path::new(spec);
    if !path.is_file() {
        return Err(LexiconError::Unknown(spec.to_string()));
    }
    let bytes =
        std::fs::read(path).map_err(|source| LexiconError::Io { path: path.to_path_buf(), source })?;
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or(spec);
    let start = Instant::now();
    if file::is_compiled(&bytes) {
        let lexicon = Lexicon::load(name, &bytes, alphabet)?;
        return Ok(Resolved { lexicon, kind: LoadKind::Loaded(start.elapsed()), report: None });
    }
    let (text, _) = super::word_list_text(&bytes);
    let alphabet = match alphabet {
        Some(alphabet) => alphabet,
        None => list_alphabet(&text, spec)?,
    };
    let (lexicon, report) = Lexicon::compile(name, &text, alphabet)?;
    Ok(Resolved { lexicon, kind: LoadKind::Compiled(start.elapsed()), report: Some(report) })
}

/// The alphabet a word list's letters are in ([`guess_alphabet_of_words`]); refused, naming the
/// list (`spec`), when no ruleset's tiles spell any of its words.
pub fn list_alphabet(text: &str, spec: &str) -> Result<Alphabet, LexiconError> {
    guess_alphabet_of_words(&super::list_words(text).collect::<Vec<_>>())
        .ok_or_else(|| LexiconError::UnknownAlphabet(spec.to_string()))
}

/// A shipped lexicon, from a compiled file in `cache_dir` when one matches the embedded text
/// (the file name carries the text's hash), else compiled and written there for next time.
/// Without a cache directory it is simply compiled.
pub fn load_shipped_cached(s: &Shipped, cache_dir: Option<&Path>) -> Result<Lexicon, LexiconError> {
    let Some(dir) = cache_dir else {
        return Ok(Lexicon::compile(s.name, s.text, (s.alphabet)())?.0);
    };
    let key = xxhash_rust::xxh3::xxh3_64(s.text.as_bytes());
    let path = dir.join(format!("{}-{key:016x}.dawg", s.name));
    if let Ok(bytes) = std::fs::read(&path)
        && let Ok(lexicon) = Lexicon::load(s.name, &bytes, Some((s.alphabet)()))
    {
        return Ok(lexicon);
    }
    let (lexicon, _) = Lexicon::compile(s.name, s.text, (s.alphabet)())?;
    // A cache that cannot be written only costs the next start a compile.
    if std::fs::create_dir_all(dir).is_ok() {
        let tmp = path.with_extension("tmp");
        if std::fs::write(&tmp, lexicon.to_bytes()).is_ok() {
            let _ = std::fs::rename(&tmp, &path);
        }
    }
    Ok(lexicon)
}

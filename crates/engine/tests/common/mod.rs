//! Shared fixtures: the shipped lexicons (compiled once per test binary), board builders and a
//! small generator. The server's tests (the workspace root's `tests/common`) include this file too.
#![allow(dead_code)]

use dawgref_engine::alphabet::Alphabet;
use dawgref_engine::board::Board;
use dawgref_engine::lexicon::{CompileReport, Lexicon, catalog, word_list_text};
use dawgref_engine::notation::{gcg, parse_play};
use dawgref_engine::play::Play;
use dawgref_engine::rules::{Ruleset, RulesetKind};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

pub fn lexicon(kind: RulesetKind) -> &'static Lexicon {
    static EN: OnceLock<Lexicon> = OnceLock::new();
    static RU: OnceLock<Lexicon> = OnceLock::new();
    static ER: OnceLock<Lexicon> = OnceLock::new();
    // By the ruleset's own lexicon: Super English plays English's.
    let (cell, name) = match kind.definition().default_lexicon.as_str() {
        "en" => (&EN, "en"),
        "ru" => (&RU, "ru"),
        "erudit" => (&ER, "erudit"),
        _ => panic!("the shared fixtures hold the classic three lexicons, not {kind}'s"),
    };
    cell.get_or_init(|| catalog::resolve(name, None).expect("shipped lexicon").lexicon)
}

/// A word list compiled, with its report.
pub type Compiled = Arc<(Lexicon, CompileReport)>;

/// Debian's word list of a shipped ruleset without a lexicon of its own (`scripts/test`
/// installs them): its file's name under /usr/share/dict.
pub fn debian_list(kind: RulesetKind) -> &'static str {
    match kind.name() {
        "catalan" => "catalan",
        "spanish" => "spanish",
        "polish" => "polish",
        "french" => "french",
        "german" => "ngerman",
        "dutch" => "dutch",
        "norwegian" => "bokmaal",
        "swedish" => "swedish",
        other => panic!("no Debian list for {other}"),
    }
}

/// Debian's word list of a shipped ruleset ([`debian_list`]) as text (Latin-1 lists decoded).
pub fn debian_text(kind: RulesetKind) -> String {
    let path = format!("/usr/share/dict/{}", debian_list(kind));
    let bytes = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{path}: {e} (scripts/test installs Debian's word lists)"));
    word_list_text(&bytes).0
}

/// Debian's word list of a shipped ruleset ([`debian_list`]), compiled once per test binary in
/// its tiles, with its report.
pub fn debian_lexicon(kind: RulesetKind) -> Compiled {
    static CACHE: OnceLock<Mutex<HashMap<String, Compiled>>> = OnceLock::new();
    let file = debian_list(kind);
    // Compiled outside the lock: another ruleset's list may compile beside it.
    if let Some(c) = CACHE.get_or_init(Default::default).lock().unwrap().get(file) {
        return c.clone();
    }
    let compiled = Arc::new(Lexicon::compile(file, &debian_text(kind), kind.alphabet()).unwrap());
    CACHE.get_or_init(Default::default).lock().unwrap().entry(file.to_string()).or_insert(compiled).clone()
}

pub fn rules(kind: RulesetKind) -> Arc<Ruleset> {
    Arc::new(Ruleset::new(kind))
}

/// A board of `kind` with the given plays' tiles placed (letters over equal tiles are played
/// through; no word or connection check: a fixture).
pub fn board_with(kind: RulesetKind, plays: &[&str]) -> Board {
    let mut b = Board::new(rules(kind));
    let lex = lexicon(kind);
    for text in plays {
        let p = play(kind.alphabet(), text).normalized(&b).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        let placements: Vec<_> = p.placements().map(|x| (x.row, x.col, x.tile)).collect();
        b.place(&placements, lex.dawg());
    }
    b
}

pub fn play(alphabet: Alphabet, text: &str) -> Play {
    parse_play(text, alphabet).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A small deterministic generator for test data (splitmix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Which racks a test strikes from a record, named: the lines whose racks go.
pub type Strike<'a> = (&'a str, &'a dyn Fn(&gcg::MoveLine) -> bool);

/// A GCG record with the racks of the lines `strike` picks struck out, as a record kept by
/// hand or a watcher's shows none: `>a: DINNVWY 8D WINDY +32 32` becomes `>a: 8D WINDY +32 32`
/// (end lines too: `>b: Q (Q) -5 450` becomes `>b: (Q) -5 450`).
pub fn strike_racks(text: &str, strike: impl Fn(&gcg::MoveLine) -> bool) -> String {
    let record = gcg::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let struck: Vec<usize> =
        record.moves.iter().filter(|m| m.rack.is_some() && strike(m)).map(|m| m.line).collect();
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        match line.split_once(':') {
            Some((nick, rest)) if struck.contains(&(i + 1)) => {
                let rest = rest.trim_start();
                let after_rack = rest.split_once(char::is_whitespace).map_or("", |(_, r)| r);
                out.push_str(&format!("{nick}: {}\n", after_rack.trim_start()));
            }
            _ => out.push_str(&format!("{line}\n")),
        }
    }
    out
}

/// A record's move lines as a game written back from it shows them, racks struck: what each
/// seat did, scored and totalled, line by line, the end's rack points included.
pub fn scored_lines(text: &str) -> Vec<String> {
    let lines = strike_racks(text, |_| true);
    let moves = lines.lines().filter(|l| l.starts_with('>'));
    moves.map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect()
}

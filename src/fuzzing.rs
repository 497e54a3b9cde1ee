//! Fuzz target bodies: each takes arbitrary bytes, feeds them to one of the server's input
//! surfaces, and checks what must hold for every input (no panic, and round trips where a
//! parser has a writer). The `fuzz/` crate wraps them for `cargo fuzz` (libFuzzer, nightly);
//! `tests/fuzz_smoke.rs` runs the same bodies on stable over the checked-in corpus, the crash
//! regressions and a stream of mutated inputs, so CI exercises every target on every run.

use crate::alphabet::Alphabet;
use crate::game::record::check_record_with;
use crate::lexicon::{Lexicon, catalog, file};
use crate::notation::{self, cgp, gcg};
use crate::rack::Rack;
use crate::rules::{Ruleset, RulesetKind};
use std::sync::{Arc, OnceLock};

/// The shipped lexicons, compiled once per process.
pub fn lexicon(kind: RulesetKind) -> Arc<Lexicon> {
    static LEXICONS: OnceLock<Vec<Arc<Lexicon>>> = OnceLock::new();
    let all = LEXICONS.get_or_init(|| {
        ["en", "ru", "erudit"]
            .iter()
            .map(|name| {
                let shipped = catalog::shipped(name).expect("shipped lexicon");
                Arc::new(catalog::load_shipped_cached(shipped, None).expect("shipped lexicon compiles"))
            })
            .collect()
    });
    all[match kind {
        RulesetKind::English => 0,
        RulesetKind::Russian => 1,
        RulesetKind::Erudit => 2,
    }]
    .clone()
}

fn kind_of(byte: u8) -> RulesetKind {
    [RulesetKind::English, RulesetKind::Russian, RulesetKind::Erudit][byte as usize % 3]
}

fn alphabet_of(byte: u8) -> Alphabet {
    kind_of(byte).alphabet()
}

/// Play, move, coordinate, tile and rack notation: the first byte picks the alphabet, the rest
/// is the text. Whatever parses must format back to text that parses to the same value.
pub fn notation(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else { return };
    let alphabet = alphabet_of(sel);
    let text = String::from_utf8_lossy(rest);
    if let Ok(play) = notation::parse_play(&text, alphabet) {
        let written = notation::format_play(&play, alphabet);
        let again = notation::parse_play(&written, alphabet)
            .unwrap_or_else(|e| panic!("{written:?} (written from {text:?}) does not parse: {e}"));
        assert_eq!(again, play, "{text:?} → {written:?}");
    }
    if let Ok(m) = notation::parse_move(&text, alphabet) {
        let written = notation::format_move(&m, alphabet);
        let again = notation::parse_move(&written, alphabet)
            .unwrap_or_else(|e| panic!("{written:?} (written from {text:?}) does not parse: {e}"));
        assert_eq!(notation::format_move(&again, alphabet), written);
    }
    if let Ok((dir, row, col)) = notation::parse_coordinate(&text) {
        let written = notation::format_coordinate(dir, row, col);
        assert_eq!(notation::parse_coordinate(&written), Ok((dir, row, col)), "{text:?} → {written:?}");
    }
    let _ = notation::parse_tiles(&text, alphabet, 0);
    if let Ok(rack) = Rack::parse(&text, alphabet) {
        let written = rack.to_string(alphabet);
        let again = Rack::parse(&written, alphabet)
            .unwrap_or_else(|e| panic!("rack {written:?} (from {text:?}) does not parse: {e}"));
        assert_eq!(again.to_string(alphabet), written);
    }
}

/// A CGP line: the first byte picks the default ruleset. What parses is written back and must
/// parse to the same position; its board is built (cross-sets and all) with the ruleset's
/// lexicon.
pub fn cgp(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let Ok(position) = cgp::parse(&text, Some(kind_of(sel))) else { return };
    let written = cgp::write(&position);
    let mut again = cgp::parse(&written, None)
        .unwrap_or_else(|e| panic!("{written:?} (written from {text:?}) does not parse: {e}"));
    // The writer names the letter distribution when the reader could not guess it.
    if position.ops.ld.is_none() {
        again.ops.ld = None;
    }
    assert_eq!(again, position, "{text:?} → {written:?}");
    let rules = Arc::new(position.rules());
    let lexicon = lexicon(position.ruleset);
    let board = position.board(rules, lexicon.dawg());
    let _ = board.words_on_board();
}

/// A GCG record: parsed, and when it parses, replayed move by move through the engine with every
/// score recomputed (as `gcg check` and ImportGcg do).
pub fn gcg(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let Ok(record) = gcg::parse(&text) else { return };
    let kind = kind_of(sel);
    let lexicon = lexicon(kind);
    let report = check_record_with(&record, Arc::new(Ruleset::new(kind)), &lexicon, sel & 0x80 != 0);
    assert!(report.finals.len() <= record.players.len());
    if (2..=4).contains(&record.players.len()) {
        let mut config = crate::game::GameConfig::new(Arc::new(Ruleset::new(kind)), lexicon, 0);
        config.seats = record.players.len();
        if let Ok(game) = crate::game::record::import_game(&record, config) {
            game.check_invariants().unwrap_or_else(|e| panic!("imported game breaks an invariant: {e}"));
        }
    }
}

/// A compiled lexicon file. With the first byte odd the checksum is recomputed before loading,
/// so the structural checks behind it are reached too. A file that loads must write back to
/// bytes that load to the same words.
pub fn lexicon_file(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else { return };
    let mut bytes = rest.to_vec();
    if sel & 1 == 1 && bytes.len() >= 8 {
        let body = bytes.len() - 8;
        let sum = file::checksum(&bytes[..body]);
        bytes[body..].copy_from_slice(&sum.to_le_bytes());
    }
    let Ok(lexicon) = Lexicon::load("fuzz", &bytes, None) else { return };
    let again = Lexicon::load("again", &lexicon.to_bytes(), Some(lexicon.alphabet()))
        .unwrap_or_else(|e| panic!("a loaded lexicon's own bytes do not load: {e}"));
    assert_eq!(again.word_count(), lexicon.word_count());
    assert_eq!(again.checksum(), lexicon.checksum());
    // Every word the graph spells is found again by lookup (a small graph can spell billions of
    // words, so only modest ones are listed).
    if lexicon.word_count() <= 100_000 {
        let words = lexicon.dawg().words();
        assert_eq!(words.len() as u64, lexicon.word_count());
        assert!(words.iter().all(|w| lexicon.contains(w)));
    }
}

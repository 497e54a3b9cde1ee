//! The compiled file format: round trip, and a typed error for every kind of damage.

use dawgref_engine::alphabet::Alphabet;
use dawgref_engine::lexicon::{FileError, Lexicon, LexiconError, StructureError};

fn sample() -> Lexicon {
    Lexicon::compile("sample", "cat\ncats\ndog\ndogs\nzyzzyva\nqi\n", Alphabet::english()).unwrap().0
}

fn file_error(bytes: &[u8], expected: Option<Alphabet>) -> FileError {
    match Lexicon::load("x", bytes, expected) {
        Err(LexiconError::File(e)) => e,
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("damaged file loaded"),
    }
}

#[test]
fn round_trip_preserves_everything() {
    let lex = sample();
    let bytes = lex.to_bytes();
    assert_eq!(bytes.len(), 32 + 4 * (lex.dawg().edge_count() as usize + 1) + 8);
    let back = Lexicon::load("sample", &bytes, Some(Alphabet::english())).unwrap();
    assert_eq!(back.checksum(), lex.checksum());
    assert_eq!(back.word_count(), 6);
    assert_eq!(back.dawg().raw_edges(), lex.dawg().raw_edges());
    assert_eq!(back.dawg().words(), lex.dawg().words());
    assert_eq!(back.to_bytes(), bytes);
}

#[test]
fn every_flipped_byte_is_detected() {
    let bytes = sample().to_bytes();
    for i in 0..bytes.len() {
        let mut damaged = bytes.clone();
        damaged[i] ^= 0x10;
        let err = file_error(&damaged, None);
        match i {
            0..=7 => assert_eq!(err, FileError::BadMagic, "byte {i}"),
            8..=11 => assert!(matches!(err, FileError::UnsupportedVersion(_)), "byte {i}: {err}"),
            24..=27 => assert!(
                matches!(err, FileError::Truncated { .. } | FileError::TrailingBytes(_)),
                "byte {i}: {err}"
            ),
            _ => assert!(matches!(err, FileError::Checksum { .. }), "byte {i}: {err}"),
        }
    }
}

#[test]
fn truncated_file() {
    let bytes = sample().to_bytes();
    for cut in [bytes.len() - 1, bytes.len() - 8, 40, 33] {
        assert!(matches!(file_error(&bytes[..cut], None), FileError::Truncated { .. }), "cut {cut}");
    }
    assert_eq!(file_error(&bytes[..5], None), FileError::BadMagic);
    assert_eq!(file_error(b"", None), FileError::BadMagic);
    let mut long = bytes.clone();
    long.push(0);
    assert_eq!(file_error(&long, None), FileError::TrailingBytes(1));
}

#[test]
fn foreign_files() {
    let bytes = sample().to_bytes();
    assert_eq!(
        file_error(&bytes, Some(Alphabet::russian())),
        FileError::WrongAlphabet { expected: Alphabet::russian(), found: Alphabet::english() }
    );
    assert_eq!(file_error(b"aa\naah\naahed\n", None), FileError::BadMagic);
}

/// A file with a valid checksum but a malformed graph (as a hostile client could craft) is
/// refused by the structural check, not trusted.
#[test]
fn checksummed_but_malformed_graph() {
    let lex = sample();
    let mut bytes = lex.to_bytes();
    let body_len = bytes.len() - 8;
    // Point the first real edge's target at itself's node (a cycle).
    let first_edge = 32 + 4;
    let e = u32::from_le_bytes(bytes[first_edge..first_edge + 4].try_into().unwrap());
    let cyclic = (e & 0xff) | (1 << 8);
    bytes[first_edge..first_edge + 4].copy_from_slice(&cyclic.to_le_bytes());
    let sum = dawgref_engine::lexicon::file::checksum(&bytes[..body_len]);
    bytes[body_len..].copy_from_slice(&sum.to_le_bytes());
    assert!(matches!(
        file_error(&bytes, None),
        FileError::Structure(StructureError::BadTarget { edge: 1, target: 1 })
    ));
}

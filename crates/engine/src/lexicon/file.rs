//! The compiled lexicon file: a fixed header, the packed edges, and a checksum.
//!
//! ```text
//! offset size  field
//!      0    8  magic "DAWGREF\0"
//!      8    4  format version (1)
//!     12    1  alphabet id (1 en, 2 ru, 3 erudit; 0 in version 2)
//!     13    3  reserved, zero
//!     16    4  words
//!     20    4  nodes
//!     24    4  edges in the array, sentinel included
//!     28    4  root node
//!     32  4×n  edges
//!   32+4n   8  xxh3-64 of every byte before it
//! ```
//! Version 2 is for any other alphabet: after the header, the alphabet itself (`u32` length,
//! then [`Alphabet::to_text`]), then the edges. The three classic alphabets are always written
//! as version 1, so their files and content checksums (kept in every game record) never change.
//! All integers little-endian. Loading checks every field, the checksum, and then the graph's
//! structure ([`Dawg::from_parts`]), so no file, however made, yields a DAWG that misbehaves.

use super::dawg::{Dawg, StructureError};
use crate::alphabet::Alphabet;

pub const MAGIC: &[u8; 8] = b"DAWGREF\0";
pub const VERSION: u32 = 1;
/// The version of files whose alphabet is written out.
pub const VERSION_WITH_ALPHABET: u32 = 2;
const HEADER: usize = 32;
const TRAILER: usize = 8;

/// Why a compiled lexicon could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FileError {
    #[error("not a dawgref lexicon file (bad magic)")]
    BadMagic,
    #[error("lexicon file format version {0} is not supported (this build reads version {VERSION})")]
    UnsupportedVersion(u32),
    #[error("truncated lexicon file: {len} bytes, expected {expected}")]
    Truncated { len: usize, expected: usize },
    #[error("lexicon file has {0} bytes after its checksum")]
    TrailingBytes(usize),
    #[error("lexicon file has non-zero reserved header bytes")]
    Reserved,
    #[error("lexicon file names unknown alphabet id {0}")]
    UnknownAlphabet(u8),
    #[error("lexicon file's alphabet cannot be read")]
    BadAlphabet,
    #[error("lexicon is for the {found} alphabet, expected {expected}")]
    WrongAlphabet { expected: Alphabet, found: Alphabet },
    #[error("lexicon file checksum mismatch: stored {stored:016x}, computed {computed:016x}")]
    Checksum { stored: u64, computed: u64 },
    #[error("lexicon header declares {declared} nodes, the graph has {counted}")]
    NodeCount { declared: u32, counted: u32 },
    #[error("corrupt lexicon graph: {0}")]
    Structure(#[from] StructureError),
}

/// The checksum the format uses: xxh3-64 of the bytes before the trailer.
pub fn checksum(body: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(body)
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// Serialize a DAWG. The checksum it ends with identifies the lexicon's content.
pub fn write(alphabet: Alphabet, dawg: &Dawg) -> Vec<u8> {
    let edges = dawg.raw_edges();
    let mut out = Vec::with_capacity(HEADER + edges.len() * 4 + TRAILER);
    out.extend_from_slice(MAGIC);
    let id = alphabet.classic_id();
    out.extend_from_slice(&id.map_or(VERSION_WITH_ALPHABET, |_| VERSION).to_le_bytes());
    out.extend_from_slice(&[id.unwrap_or(0), 0, 0, 0]);
    out.extend_from_slice(&(dawg.word_count() as u32).to_le_bytes());
    out.extend_from_slice(&dawg.node_count().to_le_bytes());
    out.extend_from_slice(&(edges.len() as u32).to_le_bytes());
    out.extend_from_slice(&dawg.root().to_le_bytes());
    if id.is_none() {
        let text = alphabet.to_text();
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        out.extend_from_slice(text.as_bytes());
    }
    for e in edges {
        out.extend_from_slice(&e.to_le_bytes());
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// A loaded file: alphabet, DAWG and checksum.
pub struct Loaded {
    pub alphabet: Alphabet,
    pub dawg: Dawg,
    pub checksum: u64,
}

/// Parse and check a compiled lexicon. With `expected`, a file of another alphabet is refused.
pub fn read(bytes: &[u8], expected: Option<Alphabet>) -> Result<Loaded, FileError> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(FileError::BadMagic);
    }
    if bytes.len() < HEADER + TRAILER {
        return Err(FileError::Truncated { len: bytes.len(), expected: HEADER + TRAILER });
    }
    let version = u32_at(bytes, 8);
    if version != VERSION && version != VERSION_WITH_ALPHABET {
        return Err(FileError::UnsupportedVersion(version));
    }
    // Version 2 writes its alphabet between the header and the edges.
    let (alphabet_text, edges_at) = if version == VERSION_WITH_ALPHABET {
        if bytes.len() < HEADER + 4 {
            return Err(FileError::Truncated { len: bytes.len(), expected: HEADER + 4 });
        }
        let len = u32_at(bytes, HEADER) as usize;
        let end = (HEADER + 4).saturating_add(len);
        if bytes.len() < end.saturating_add(TRAILER) {
            return Err(FileError::Truncated { len: bytes.len(), expected: end.saturating_add(TRAILER) });
        }
        (Some(&bytes[HEADER + 4..end]), end)
    } else {
        (None, HEADER)
    };
    let edge_len = u32_at(bytes, 24) as usize;
    let expected_len = edges_at.saturating_add(edge_len.saturating_mul(4)).saturating_add(TRAILER);
    if bytes.len() < expected_len {
        return Err(FileError::Truncated { len: bytes.len(), expected: expected_len });
    }
    if bytes.len() > expected_len {
        return Err(FileError::TrailingBytes(bytes.len() - expected_len));
    }
    let body = &bytes[..expected_len - TRAILER];
    let stored = u64::from_le_bytes(bytes[expected_len - TRAILER..].try_into().expect("8 bytes"));
    let computed = checksum(body);
    if stored != computed {
        return Err(FileError::Checksum { stored, computed });
    }
    let alphabet = match (alphabet_text, bytes[12]) {
        (None, 1) => Alphabet::english(),
        (None, 2) => Alphabet::russian(),
        (None, 3) => Alphabet::erudit(),
        (None, id) => return Err(FileError::UnknownAlphabet(id)),
        (Some(text), 0) => std::str::from_utf8(text)
            .ok()
            .and_then(|t| Alphabet::from_text(t).ok())
            .ok_or(FileError::BadAlphabet)?,
        (Some(_), id) => return Err(FileError::UnknownAlphabet(id)),
    };
    if let Some(expected) = expected
        && expected != alphabet
    {
        return Err(FileError::WrongAlphabet { expected, found: alphabet });
    }
    if bytes[13..16] != [0, 0, 0] {
        // A file that loads must be the file its lexicon writes: its checksum names its content.
        return Err(FileError::Reserved);
    }
    let words = u32_at(bytes, 16);
    let nodes = u32_at(bytes, 20);
    let root = u32_at(bytes, 28);
    let edges: Vec<u32> =
        body[edges_at..].chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("4"))).collect();
    let dawg = Dawg::from_parts(edges, root, alphabet.len(), Some(words as u64))?;
    if dawg.node_count() != nodes {
        return Err(FileError::NodeCount { declared: nodes, counted: dawg.node_count() });
    }
    Ok(Loaded { alphabet, dawg, checksum: stored })
}

/// Whether bytes look like a compiled lexicon (rather than a word list).
pub fn is_compiled(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

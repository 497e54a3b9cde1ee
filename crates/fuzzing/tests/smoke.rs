//! The fuzz targets on stable, as CI runs them: every checked-in seed and every crash the fuzzer
//! ever found (`fuzz/regressions/<target>/`), then a fixed stream of mutations of the seeds.
//! The long runs are `cargo fuzz` (see BENCHMARKS.md); this keeps every target exercised on
//! every change.

#[path = "../../engine/tests/common/mod.rs"]
mod common;

use common::Rng;
use std::path::Path;

fn inputs(target: &str, dir: &str) -> Vec<(String, Vec<u8>)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz").join(dir).join(target);
    if !path.exists() {
        // A target without regressions has no directory (git keeps no empty ones).
        return Vec::new();
    }
    let mut files: Vec<_> = std::fs::read_dir(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    files.sort();
    files.into_iter().map(|p| (p.display().to_string(), std::fs::read(&p).expect("readable input"))).collect()
}

/// A libFuzzer-like mutation: flip, insert, delete, duplicate a run, or splice in another seed.
fn mutate(rng: &mut Rng, data: &[u8], other: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = out.len().max(1);
        match rng.below(6) {
            0 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            1 => {
                let i = rng.below(len).min(out.len());
                out.insert(i, rng.below(256) as u8);
            }
            2 if !out.is_empty() => {
                let i = rng.below(out.len());
                let n = (1 + rng.below(8)).min(out.len() - i);
                out.drain(i..i + n);
            }
            3 if !out.is_empty() => {
                let i = rng.below(out.len());
                let n = (1 + rng.below(16)).min(out.len() - i);
                let run: Vec<u8> = out[i..i + n].to_vec();
                let at = rng.below(out.len());
                out.splice(at..at, run);
            }
            4 if !other.is_empty() => {
                let i = rng.below(other.len());
                let at = rng.below(len).min(out.len());
                out.splice(at.., other[i..].iter().copied());
            }
            _ => {
                // Interesting bytes: ASCII digits, separators, UTF-8 lead bytes, big numbers.
                let pick = [b'0', b'9', b'/', b' ', b';', b'?', b'.', b'(', 0xD0, 0xFF, 0x00, b'-'];
                let i = rng.below(len).min(out.len());
                out.insert(i, pick[rng.below(pick.len())]);
            }
        }
    }
    out
}

fn smoke(target: &str, body: fn(&[u8]), mutations: usize) {
    let seeds = inputs(target, "seeds");
    assert!(!seeds.is_empty(), "{target} has no seeds");
    for (name, data) in seeds.iter().chain(inputs(target, "regressions").iter()) {
        let result = std::panic::catch_unwind(|| body(data));
        assert!(result.is_ok(), "{target}: {name} fails");
    }
    let mut rng = Rng(0x5eed ^ target.len() as u64);
    for k in 0..mutations {
        let base = &seeds[k % seeds.len()].1;
        let other = &seeds[rng.below(seeds.len())].1;
        let input = mutate(&mut rng, base, other);
        let result = std::panic::catch_unwind(|| body(&input));
        assert!(result.is_ok(), "{target}: mutation {k} fails on {input:?}");
    }
}

#[test]
fn notation() {
    smoke("notation", dawgref_fuzzing::notation, 20_000);
}

#[test]
fn cgp() {
    smoke("cgp", dawgref_fuzzing::cgp, 3_000);
}

#[test]
fn gcg() {
    smoke("gcg", dawgref_fuzzing::gcg, 600);
}

#[test]
fn lexicon_file() {
    smoke("lexicon_file", dawgref_fuzzing::lexicon_file, 20_000);
}

#[test]
fn actions() {
    smoke("actions", dawgref_fuzzing::actions, 300);
}

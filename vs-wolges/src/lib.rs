//! What both binaries share: the English leaves, as wolges numbers tiles.

use dawgref_engine::alphabet::Letter;
use dawgref_engine::rack::Rack;
use dawgref_engine::rules::{Ruleset, RulesetKind};

/// Every leave of one to six tiles the English set can hold, as wolges tile codes in
/// ascending order (0 the blank, a letter its index + 1, as on dawgref's board): 914,624
/// leaves, each once.
pub fn english_leaves() -> Vec<Vec<u8>> {
    let rules = Ruleset::new(RulesetKind::english());
    let limits: Vec<u8> = std::iter::once(rules.blanks)
        .chain((0..rules.alphabet.len() as Letter).map(|l| rules.letter_count(l)))
        .collect();
    let mut out = Vec::new();
    walk(&limits, 0, &mut Vec::new(), &mut out);
    out
}

/// Push `codes` (if any) and every leave that adds tiles of kind `kind` or later to it.
fn walk(limits: &[u8], kind: usize, codes: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
    if !codes.is_empty() {
        out.push(codes.clone());
    }
    if codes.len() == 6 {
        return;
    }
    for k in kind..limits.len() {
        let used = codes.iter().filter(|&&c| usize::from(c) == k).count();
        if used < usize::from(limits[k]) {
            codes.push(k as u8);
            walk(limits, k, codes, out);
            codes.pop();
        }
    }
}

/// A leave's wolges tile codes as a dawgref rack.
pub fn rack_of(codes: &[u8]) -> Rack {
    let mut rack = Rack::new();
    for &c in codes {
        if c == 0 { rack.add_blank() } else { rack.add(c - 1) }
    }
    rack
}

//! A wolges or macondo leave table (`.klv2`, English) as a dawgref leave table, for
//! `dawgref match --leaves`: every leave of one to six tiles the English set can hold, listed
//! with wolges's value for it, and no additive part. wolges counts an empty leave as 0, and so
//! does the result.
//!
//! Usage: `cargo run --release --bin klv_to_table -- leaves.klv2 > table.txt`.

use dawgref_engine::alphabet::{Alphabet, Letter};
use dawgref_engine::rules::{Ruleset, RulesetKind};
use std::fmt::Write as _;
use wolges::{klv, kwg};

/// Append a line per leave that keeps the tiles of `tally` and any of the kinds from `kind` on
/// (wolges's tile order: the blank, then the letters), up to six tiles in all.
fn walk(
    table: &klv::Klv<kwg::Node22>,
    limits: &[u8],
    kind: usize,
    tiles: usize,
    tally: &mut [u8],
    out: &mut String,
) {
    if tiles > 0 {
        // dawgref's leave notation: the letters, then the blanks as `?`.
        let mut leave = String::new();
        for (t, &n) in tally.iter().enumerate().skip(1) {
            let letter = Alphabet::English.char_of((t - 1) as Letter);
            leave.extend(std::iter::repeat_n(letter, usize::from(n)));
        }
        leave.extend(std::iter::repeat_n('?', usize::from(tally[0])));
        let value = f64::from(table.leave_value_from_tally(tally)) / 1000.0;
        writeln!(out, "{leave} {value:.3}").expect("writing to a String");
    }
    if tiles == 6 {
        return;
    }
    for t in kind..limits.len() {
        if tally[t] < limits[t] {
            tally[t] += 1;
            walk(table, limits, t, tiles + 1, tally, out);
            tally[t] -= 1;
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: klv_to_table <leaves.klv2>")?;
    let table = klv::Klv::<kwg::Node22>::from_bytes_alloc(&std::fs::read(&path)?);
    let rules = Ruleset::new(RulesetKind::English);
    let limits: Vec<u8> = std::iter::once(rules.blanks)
        .chain((0..rules.alphabet.len() as Letter).map(|l| rules.letter_count(l)))
        .collect();
    let mut out =
        format!("# every leave of 1-6 tiles as {path} values it (klv_to_table); no additive part\n");
    walk(&table, &limits, 0, 0, &mut vec![0; limits.len()], &mut out);
    print!("{out}");
    Ok(())
}

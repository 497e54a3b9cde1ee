//! A wolges or macondo leave table (`.klv2`, English) as a dawgref leave table, for
//! `dawgref match --leaves`: every leave of one to six tiles the English set can hold, listed
//! with wolges's value for it, and no additive part. wolges counts an empty leave as 0, and so
//! does the result.
//!
//! Usage: `cargo run --release --bin klv_to_table -- leaves.klv2 > table.txt`.

use dawgref_engine::alphabet::{Alphabet, Letter};
use std::fmt::Write as _;
use wolges::{klv, kwg};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: klv_to_table <leaves.klv2>")?;
    let table = klv::Klv::<kwg::Node22>::from_bytes_alloc(&std::fs::read(&path)?);
    let mut out =
        format!("# every leave of 1-6 tiles as {path} values it (klv_to_table); no additive part\n");
    for codes in dawgref_vs_wolges::english_leaves() {
        let mut tally = [0u8; 27];
        for &c in &codes {
            tally[usize::from(c)] += 1;
        }
        // dawgref's leave notation: the letters, then the blanks as `?`.
        let mut leave: String =
            codes.iter().filter(|&&c| c > 0).map(|&c| Alphabet::english().label((c - 1) as Letter)).collect();
        leave.extend(std::iter::repeat_n('?', usize::from(tally[0])));
        let value = f64::from(table.leave_value_from_tally(&tally)) / 1000.0;
        writeln!(out, "{leave} {value:.3}").expect("writing to a String");
    }
    print!("{out}");
    Ok(())
}

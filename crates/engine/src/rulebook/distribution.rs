//! MAGPIE's and macondo's letter distributions: one CSV reader, as the two differ only by
//! MAGPIE's blank label.

use super::RulebookError;
use super::builder::Builder;
use super::file::MAX_BLANKS;
use crate::alphabet::TileSpec;

impl Builder {
    /// A MAGPIE (`label,blank label,count,value,vowel`) or macondo (`label,count,value,vowel`)
    /// letter distribution; `[CH]` brackets are taken off, `?` is the blank, a count of 0 is a
    /// letter only a blank can stand for.
    pub(super) fn read_distribution(&mut self, text: &str, file: &str) -> Result<(), RulebookError> {
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
}

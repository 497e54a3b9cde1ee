//! Leave values learned from self-play: what keeping a set of tiles is worth, in points, to the
//! static bot's equity (score + leave).
//!
//! The model, per ruleset: an additive part (a value for the first, second and third-or-more
//! copy of each letter and of the blank, and one for each vowel/consonant count of the leave),
//! fitted by ridge least squares; and, for each leave of up to six tiles seen often enough, the
//! learned value itself (the additive part plus the leave's own residual, shrunk by its sample
//! count towards zero, or, where the table's command says `--prior sub-leaves`, towards what the
//! leaves one tile smaller say). A leave the table does not list gets the additive part.
//!
//! The engine only reads tables; fitting one is the lab's (`dawgref-lab train leaves`, in
//! `crates/lab/src/fit.rs`). What a leave is worth is measured in pairs: at positions of
//! static-bot self-play, the leave the bot kept and random other subsets of its rack are each
//! filled up from the same shuffles of the unseen tiles, and valued by the best next play's
//! equity on that board. A leave's value is what it adds to its position's mean, so whatever
//! makes a position rich or poor (an open board, a late bag) cancels out; measured on the
//! leaves players happen to keep and what they scored next, it does not, and an open board's
//! points are credited to whatever leaves are kept on open boards. The shipped tables, with the
//! command that made them, are `crates/engine/data/leaves/<ruleset>.txt`.

use crate::alphabet::{Alphabet, Letter};
use crate::rack::Rack;
use crate::rulebook::PerRuleset;
use crate::rules::RulesetKind;
use std::collections::HashMap;
use std::fmt::Write as _;

/// Tile codes in a key and the additive model: a letter is its index + 1, the blank this.
pub const BLANK: usize = 63;
/// Copies of one tile the additive model tells apart: the first, the second, the third and more.
pub const COPIES: usize = 3;
/// The largest leave the balance terms tell apart (a pass keeps seven tiles).
pub const MAX_TILES: usize = 7;
/// The longest leave the table lists.
pub const MAX_LISTED: usize = 6;

/// A leave as a key: its tile codes in ascending order, six bits each. Up to seven tiles.
pub fn key(rack: &Rack) -> Option<u64> {
    let mut k = 0u64;
    let mut shift = 0;
    let mut tiles = 0;
    // Only the letters present are visited: this runs for every leave a bot values.
    let mut set = rack.letter_set();
    while set != 0 {
        let l = set.trailing_zeros();
        set &= set - 1;
        let n = usize::from(rack.count(l as Letter));
        tiles += n;
        if tiles > MAX_TILES {
            return None;
        }
        for _ in 0..n {
            k |= u64::from(l + 1) << shift;
            shift += 6;
        }
    }
    let blanks = usize::from(rack.blanks());
    if tiles + blanks > MAX_TILES {
        return None;
    }
    for _ in 0..blanks {
        k |= (BLANK as u64) << shift;
        shift += 6;
    }
    Some(k)
}

/// The key of a leave of `tiles` tiles (key `k`) with `tile` added, which comes after them in
/// key order: a leave's key built one tile at a time, as its parent's plus one.
pub(crate) fn key_with(k: u64, tiles: usize, tile: Option<Letter>) -> u64 {
    k | tile.map_or(BLANK as u64, |l| u64::from(l) + 1) << (6 * tiles)
}

/// What keeping tiles is worth, as the searches ask it ([`crate::movegen::best_by_equity`]).
/// Any `Fn(&Rack) -> f32` is one; a value read from a [`LeaveTable`] says so, and a search that
/// values every leave of a rack then builds each leave's key from its parent's, one tile at a
/// time, instead of from the rack.
pub trait LeaveValue {
    fn value(&self, left: &Rack) -> f32;
    /// The table whose [`LeaveTable::value`] this is, for every leave.
    fn table(&self) -> Option<&LeaveTable> {
        None
    }
}

impl<F: Fn(&Rack) -> f32> LeaveValue for F {
    fn value(&self, left: &Rack) -> f32 {
        self(left)
    }
}

/// The tile codes of `alphabet`'s vowels, as a bit set.
fn vowel_codes(alphabet: Alphabet) -> u64 {
    (0..alphabet.len()).filter(|&l| alphabet.is_vowel(l as Letter)).fold(0, |set, l| set | 1 << (l + 1))
}

/// The tile codes of a key, ascending.
pub fn codes(mut k: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let c = (k & 63) as usize;
        k >>= 6;
        (c != 0).then_some(c)
    })
}

/// The rack a key stands for.
pub fn rack_of(k: u64) -> Rack {
    let mut r = Rack::new();
    for c in codes(k) {
        if c == BLANK { r.add_blank() } else { r.add((c - 1) as Letter) }
    }
    r
}

/// Each ruleset's table, made once ([`LeaveTable::shipped`]).
static TABLES: PerRuleset<LeaveTable> = PerRuleset::new();

/// Keys are already well mixed in their low bits only; one multiply spreads them (SipHash,
/// the default, would cost more than the rest of a lookup).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct KeyHash(u64);

impl std::hash::Hasher for KeyHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = (k ^ k >> 29).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type KeyMap<V> = HashMap<u64, V, std::hash::BuildHasherDefault<KeyHash>>;

/// A ruleset's learned leave values.
#[derive(Clone, Debug, PartialEq)]
pub struct LeaveTable {
    alphabet: Alphabet,
    /// The alphabet's vowels, by tile code (`letter + 1`).
    vowel_codes: u64,
    /// The additive part: `copies[code][k]` is the value of the (k+1)-th copy of a tile.
    copies: [[f32; COPIES]; 64],
    /// The additive part: by vowels and consonants kept (the blank is neither).
    balance: [[f32; MAX_TILES + 1]; MAX_TILES + 1],
    /// Learned values of the leaves seen often enough, by key.
    listed: KeyMap<f32>,
}

impl LeaveTable {
    /// The table a ruleset's file names (`leaves-file`: every shipped ruleset names one); for
    /// a ruleset that names none, its fallback ([`LeaveTable::fallback`]). Made once a ruleset.
    pub fn shipped(kind: RulesetKind) -> &'static LeaveTable {
        // A table that does not parse is refused before its ruleset is registered (the shipped
        // ones by a test, a server's `--ruleset` at start); were it not, the fallback stands.
        TABLES.get(kind, || {
            let learned = kind
                .definition()
                .leaves
                .as_ref()
                .and_then(|text| LeaveTable::parse(text, kind.alphabet()).ok());
            learned.unwrap_or_else(|| LeaveTable::fallback(&crate::rules::Ruleset::new(kind)))
        })
    }

    /// The documented fallback for a ruleset no table was learned for (docs/rulesets.md):
    /// English's learned vowel/consonant balance, and per tile copy a value from its face value
    /// alone: a blank +25, a letter `3 − value` (so a 1-point tile +2, a 10-point tile −7), each
    /// further copy of the same letter 4 less than the one before. No leave is listed.
    /// `dawgref-lab train leaves --ruleset NAME --words FILE` learns a real one, which the
    /// ruleset's file names with `leaves-file`.
    pub fn fallback(rules: &crate::rules::Ruleset) -> LeaveTable {
        let english = LeaveTable::shipped(RulesetKind::english());
        let mut t = LeaveTable::empty(rules.alphabet);
        t.balance = english.balance;
        for (k, v) in t.copies[BLANK].iter_mut().enumerate() {
            *v = 25.0 - 13.0 * k as f32;
        }
        for l in 0..rules.alphabet.len() {
            let first = 3.0 - rules.letter_value(l as Letter) as f32;
            for (k, v) in t.copies[l + 1].iter_mut().enumerate() {
                *v = first - 4.0 * k as f32;
            }
        }
        t
    }

    /// The value of keeping `leave` (with tiles still to draw).
    #[inline]
    pub fn value(&self, leave: &Rack) -> f32 {
        match key(leave) {
            Some(k) => self.value_of_key(k),
            None => self.additive(leave.tiles().map(|t| t.map_or(BLANK, |l| l as usize + 1))),
        }
    }

    /// The value of the leave whose key is `k` (of at most seven tiles).
    pub fn value_of_key(&self, k: u64) -> f32 {
        match self.listed.get(&k) {
            Some(v) => *v,
            None => self.additive(codes(k)),
        }
    }

    fn additive(&self, codes: impl Iterator<Item = usize>) -> f32 {
        let mut value = 0.0;
        let (mut vowels, mut consonants) = (0, 0);
        let mut last = (0, 0);
        for c in codes {
            let copy = if c == last.0 { last.1 + 1 } else { 0 };
            last = (c, copy);
            value += self.copies[c][copy.min(COPIES - 1)];
            if c != BLANK {
                if self.vowel_codes >> c & 1 == 1 {
                    vowels += 1;
                } else {
                    consonants += 1;
                }
            }
        }
        value + self.balance[vowels.min(MAX_TILES)][consonants.min(MAX_TILES)]
    }

    /// Leaves listed, beyond the additive part.
    pub fn listed(&self) -> usize {
        self.listed.len()
    }

    /// The table as text: the additive part, then every listed leave, one a line.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let name = |c: usize| if c == BLANK { "?" } else { self.alphabet.letter_text((c - 1) as Letter) };
        for c in (1..=self.alphabet.len()).chain([BLANK]) {
            let v = self.copies[c];
            let _ = writeln!(out, "copies {} {:.3} {:.3} {:.3}", name(c), v[0], v[1], v[2]);
        }
        for v in 0..=MAX_TILES {
            for c in 0..=MAX_TILES - v {
                let _ = writeln!(out, "balance {v} {c} {:.3}", self.balance[v][c]);
            }
        }
        let mut listed: Vec<(u64, f32)> = self.listed.iter().map(|(k, v)| (*k, *v)).collect();
        listed.sort_by_key(|(k, _)| (codes(*k).count(), *k));
        for (k, v) in listed {
            // Written as the alphabet writes racks, so that it reads back as the same tiles
            // (Spanish C then H is `[C]H`, not the tile CH); the blanks, last in a key, as `?`.
            let letters =
                codes(k).filter(|&c| c != BLANK).map(|c| crate::alphabet::tile((c - 1) as Letter, false));
            let blanks = codes(k).filter(|&c| c == BLANK).count();
            let text = self.alphabet.write_tiles(letters) + &"?".repeat(blanks);
            let _ = writeln!(out, "{} {v:.2}", if text.is_empty() { "-".to_string() } else { text });
        }
        out
    }

    /// A table that values every leave at 0, to be filled in.
    /// A table from its parts (how training builds one): `copies[code][k]`, the value of the
    /// (k+1)-th copy of the tile with that code (the third stands for every later one);
    /// `balance[vowels][consonants]`; and the listed leaves' values by key.
    pub fn from_parts(
        alphabet: Alphabet,
        copies: [[f32; COPIES]; 64],
        balance: [[f32; MAX_TILES + 1]; MAX_TILES + 1],
        listed: impl IntoIterator<Item = (u64, f32)>,
    ) -> LeaveTable {
        LeaveTable { copies, balance, listed: listed.into_iter().collect(), ..LeaveTable::empty(alphabet) }
    }

    fn empty(alphabet: Alphabet) -> LeaveTable {
        LeaveTable {
            alphabet,
            vowel_codes: vowel_codes(alphabet),
            copies: [[0.0; COPIES]; 64],
            balance: [[0.0; MAX_TILES + 1]; MAX_TILES + 1],
            listed: KeyMap::default(),
        }
    }

    /// Read [`LeaveTable::to_text`]'s format (lines starting with `#` are comments).
    pub fn parse(text: &str, alphabet: Alphabet) -> Result<LeaveTable, String> {
        let mut t = LeaveTable::empty(alphabet);
        // A leave's tiles as codes: `?` the blank, else the alphabet's notation (`[L·L]`).
        let codes_of = |text: &str| -> Result<Vec<usize>, String> {
            let tiles = alphabet.parse_rack(text).map_err(|e| e.to_string())?;
            Ok(tiles.into_iter().map(|t| t.map_or(BLANK, |l| l as usize + 1)).collect())
        };
        let number = |s: Option<&str>, line: usize| -> Result<f32, String> {
            s.and_then(|s| s.parse::<f32>().ok()).ok_or_else(|| format!("line {line}: a number is missing"))
        };
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let mut words = line.split_whitespace();
            match words.next() {
                Some("copies") => {
                    let c = match codes_of(words.next().unwrap_or(""))?[..] {
                        [c] => c,
                        _ => return Err(format!("line {n}: one tile expected")),
                    };
                    for k in 0..COPIES {
                        t.copies[c][k] = number(words.next(), n)?;
                    }
                }
                Some("balance") => {
                    let v = number(words.next(), n)? as usize;
                    let c = number(words.next(), n)? as usize;
                    if v + c > MAX_TILES {
                        return Err(format!("line {n}: more than {MAX_TILES} tiles"));
                    }
                    t.balance[v][c] = number(words.next(), n)?;
                }
                Some(tiles) => {
                    let mut rack = Rack::new();
                    if tiles != "-" {
                        for c in codes_of(tiles)? {
                            match c {
                                BLANK => rack.add_blank(),
                                c => rack.add((c - 1) as Letter),
                            }
                        }
                    }
                    if rack.len() > MAX_LISTED {
                        return Err(format!("line {n}: a listed leave has at most {MAX_LISTED} tiles"));
                    }
                    let k = key(&rack).ok_or_else(|| format!("line {n}: too many tiles"))?;
                    t.listed.insert(k, number(words.next(), n)?);
                }
                None => {}
            }
        }
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rack(text: &str) -> Rack {
        Rack::parse(text, Alphabet::english()).unwrap()
    }

    /// A table written as text reads back as the same table, in every shipped ruleset: leaves
    /// of random tiles, blanks among them, so that tiles whose labels spell a longer tile side
    /// by side (Spanish C H, R R; Catalan N Y, L L) come up in every one.
    #[test]
    fn every_rulesets_tables_read_back_as_written() {
        let mut rng = crate::bag::SplitMix64::new(60);
        for kind in RulesetKind::all().into_iter().filter(|k| k.definition().source == "shipped") {
            let letters = kind.alphabet().len() as u64;
            let mut table = LeaveTable::fallback(&crate::rules::Ruleset::new(kind));
            for i in 0..2000 {
                let mut leave = Rack::new();
                for _ in 0..1 + rng.below(MAX_LISTED as u64) {
                    match rng.below(letters + 1) {
                        l if l == letters => leave.add_blank(),
                        l => leave.add(l as Letter),
                    }
                }
                table.listed.insert(key(&leave).unwrap(), i as f32 / 4.0);
            }
            let text = table.to_text();
            let back = LeaveTable::parse(&text, kind.alphabet()).unwrap_or_else(|e| panic!("{kind}: {e}"));
            assert_eq!(back.listed.len(), table.listed.len(), "{kind}");
            assert!(table.listed.iter().all(|(k, v)| back.listed.get(k) == Some(v)), "{kind}");
            assert_eq!(back.to_text(), text, "{kind}");
        }
    }

    #[test]
    fn keys_are_multisets() {
        assert_eq!(key(&rack("ERS")), key(&rack("SRE")));
        assert_ne!(key(&rack("ERS")), key(&rack("ERSS")));
        assert_eq!(key(&rack("")), Some(0));
        assert_eq!(rack_of(key(&rack("AAB?")).unwrap()), rack("AAB?"));
        assert_eq!(key(&rack("ABCDEFGH")), None);
    }

    #[test]
    fn the_shipped_tables_load_and_prefer_what_players_keep() {
        let en = LeaveTable::shipped(RulesetKind::english());
        assert!(en.value(&rack("?")) > en.value(&rack("Q")));
        assert!(en.value(&rack("ERS")) > en.value(&rack("UUV")));
        // Every shipped ruleset names a table that parses (a shipped one that did not would
        // fall back without a word), and its table lists what self-play kept.
        for kind in RulesetKind::all().into_iter().filter(|k| k.definition().source == "shipped") {
            let text = kind.definition().leaves.as_deref().unwrap_or_else(|| panic!("{kind} names no table"));
            let table = LeaveTable::parse(text, kind.alphabet()).unwrap_or_else(|e| panic!("{kind}: {e}"));
            assert!(table.listed() > 100, "{kind}");
            assert_eq!(LeaveTable::shipped(kind).listed(), table.listed(), "{kind}");
        }
    }
}

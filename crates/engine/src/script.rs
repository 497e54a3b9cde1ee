//! The alphabet a text is in when nothing says which (a word list without an alphabet, a GCG
//! record or a CGP position naming no ruleset): the one place that guesses it, from the
//! letters: Ñ means Spanish, Ä German, Cyrillic Russian, A to Z English.

use crate::alphabet::{Alphabet, Letter};
use crate::rules::RulesetKind;

/// The most items a guess reads: a longer list is sampled evenly (a language's own letters are
/// spread through its words, not gathered at one end of a sorted list).
const SAMPLE: usize = 5_000;

/// The alphabet of the registered rulesets that `items` are written in (`text`: an item as
/// written; `read`: the letters an alphabet reads it as, None when it cannot). Among the
/// alphabets that read nearly as many items as the best reader (all but one, or 1%: an English
/// list holds a few French words, a rack `A1` is Spanish's A and CH only to Spanish), the one
/// that reads the most in tiles of its own (each letter
/// written as its tile's label, not another spelling, and a tile the bag has: Dutch reads Ä as
/// A, Norwegian has Ä only as a blank, German's Ä is a tile), the first registered on a tie:
/// English among the alphabets of A to Z, Russian's among the Cyrillic ones (Эрудит's records
/// name it). None when there are items and no alphabet reads any of them; English when there
/// are none.
pub fn guess_alphabet<T>(
    items: &[T],
    text: impl Fn(&T) -> &str,
    read: impl Fn(Alphabet, &T) -> Option<Vec<Letter>>,
) -> Option<Alphabet> {
    let step = items.len().div_ceil(SAMPLE).max(1);
    let sample: Vec<&T> = items.iter().step_by(step).collect();
    // Each alphabet once, with the tile counts of its first ruleset.
    let mut alphabets: Vec<(Alphabet, &[u8])> = Vec::new();
    for kind in RulesetKind::all() {
        if !alphabets.iter().any(|(a, _)| *a == kind.alphabet()) {
            alphabets.push((kind.alphabet(), &kind.definition().counts));
        }
    }
    // (alphabet, items read, items read in tiles of its own)
    let tallies: Vec<(Alphabet, usize, usize)> = alphabets
        .into_iter()
        .map(|(alphabet, counts)| {
            let (mut read_any, mut own) = (0, 0);
            for item in &sample {
                if let Some(letters) = read(alphabet, item) {
                    read_any += 1;
                    own += usize::from(in_own_tiles(alphabet, counts, text(item), &letters));
                }
            }
            (alphabet, read_any, own)
        })
        .collect();
    let most = tallies.iter().map(|t| t.1).max().unwrap_or(0);
    if most == 0 && !sample.is_empty() {
        return None;
    }
    let near = most - most.min((sample.len() / 100).max(1));
    let mut best: Option<(Alphabet, usize)> = None;
    for &(alphabet, read_any, own) in &tallies {
        if read_any >= near && best.is_none_or(|(_, most_own)| own > most_own) {
            best = Some((alphabet, own));
        }
    }
    best.map(|(alphabet, _)| alphabet)
}

/// Whether `letters`, read from `text`, are written there as their tiles' labels (case aside)
/// and are tiles the bag holds (`counts`).
fn in_own_tiles(alphabet: Alphabet, counts: &[u8], text: &str, letters: &[Letter]) -> bool {
    let spelled = |s: &str| -> String {
        s.chars().filter(|c| c.is_alphabetic() || *c == '·').flat_map(char::to_uppercase).collect()
    };
    letters.iter().all(|&l| counts.get(l as usize).is_some_and(|&n| n > 0))
        && spelled(text) == spelled(&alphabet.word_label(letters))
}

/// [`guess_alphabet`] for words spelled as a word list spells them.
pub fn guess_alphabet_of_words(words: &[&str]) -> Option<Alphabet> {
    guess_alphabet(words, |word| word, |alphabet, word| alphabet.parse_word(word).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(ruleset: &str) -> Option<Alphabet> {
        RulesetKind::by_name(ruleset).map(RulesetKind::alphabet)
    }

    /// Each language's own letters decide, however few of its words have them; A to Z alone is
    /// English, Cyrillic alone Russian; letters no alphabet has decide nothing.
    #[test]
    fn the_letters_of_the_words_say_their_alphabet() {
        assert_eq!(guess_alphabet_of_words(&["casa", "perro", "año"]), of("spanish"));
        assert_eq!(guess_alphabet_of_words(&["casa", "perro"]), of("english"));
        assert_eq!(guess_alphabet_of_words(&["col·lecció", "plaça"]), of("catalan"));
        assert_eq!(guess_alphabet_of_words(&["ёж", "дом"]), of("russian"));
        assert_eq!(guess_alphabet_of_words(&["żółw", "gęś", "kot"]), of("polish"));
        assert_eq!(guess_alphabet_of_words(&[]), of("english"));
        assert_eq!(guess_alphabet_of_words(&["αβγ", "δέλτα"]), None);
    }
}

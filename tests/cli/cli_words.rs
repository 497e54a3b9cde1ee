//! `dawgref words` as a user runs it: a word a line (blanks in lower case, the length, the
//! chance of drawing it), hooks with their side, and a typed refusal of a bad query.

use crate::dawgref;

#[test]
fn anagrams_patterns_and_hooks_print_a_word_a_line() {
    let (code, out, err) = dawgref(&["words", "pattern", "C[AO]T", "--order", "alphabet"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "CAT 3 0.001812\nCOT 3 0.001633\n");
    assert_eq!(err, "2 of 2 words\n");
    let (code, out, _) = dawgref(&["words", "anagram", "QI?", "--order", "alphabet"]);
    assert_eq!(code, 0);
    assert_eq!(out, "QIn 3 0.001286\nQIs 3 0.000915\n");
    let (code, out, err) = dawgref(&["words", "hooks", "ARE", "--order", "alphabet", "--limit", "2"]);
    assert_eq!(code, 0);
    assert!(
        out.lines().all(|l| l.ends_with(" front B") || l.contains(" back ") || l.contains(" front ")),
        "{out}"
    );
    assert_eq!(out.lines().count(), 2);
    assert!(err.ends_with("words, itself a word\n"), "{err}");
}

#[test]
fn a_bad_query_is_refused_with_its_reason() {
    let (code, out, err) = dawgref(&["words", "anagram", ""]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("an empty rack"), "{err}");
    let (code, _, err) = dawgref(&["words", "pattern", "ABCDEFGHIJKLMNOPQRSTUV"]);
    assert_eq!(code, 2);
    assert!(err.contains("22 letters: a word on the largest board has at most 21"), "{err}");
}

//! `dawgref gcg`: a record is checked in the ruleset it names (a Spanish record with its tiles
//! of two letters, without naming it), any shipped ruleset is named by name, a ruleset with no
//! lexicon of its own says so; and `serve --lexicon-cache ""` is read as its help says.

use super::dawgref;

#[test]
fn a_spanish_record_is_checked_in_the_ruleset_it_names() {
    let dir = std::env::temp_dir().join(format!("dawgref-cli-gcg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("es.gcg");
    let path = file.to_str().unwrap();
    let (code, _, err) = dawgref(&[
        "gcg",
        "export",
        "--ruleset",
        "spanish",
        "--lexicon",
        "/usr/share/dict/spanish",
        "--seed",
        "3",
        "-o",
        path,
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("ruleset spanish"), "{text}");
    let finals = text.lines().rev().find(|l| l.starts_with('>')).unwrap().to_string();
    for args in [vec!["gcg", "check", path], vec!["gcg", "check", "--ruleset", "spanish", path]] {
        let (code, out, err) = dawgref(&args);
        assert_eq!(code, 0, "{args:?}: {out}{err}");
        assert!(out.starts_with(&format!("{path} ok ")), "{args:?}: {out}");
        let last: i32 = finals.split_whitespace().last().unwrap().parse().unwrap();
        assert!(out.contains(&format!(" {last}")), "{out} / {finals}");
    }
    let (code, _, err) = dawgref(&["gcg", "export", "--ruleset", "spanish"]);
    assert_eq!(code, 2);
    assert_eq!(err.trim(), "dawgref: the spanish ruleset has no lexicon of its own: name one with --lexicon");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn serve_reads_an_empty_lexicon_cache_as_none() {
    // Parsed, then refused for the next thing wrong: the ruleset file that is not there.
    let (code, _, err) = dawgref(&[
        "serve",
        "--lexicon-cache",
        "",
        "--data-dir",
        ":memory:",
        "--ruleset",
        "/nonexistent.ruleset",
    ]);
    assert_ne!(code, 0);
    assert_eq!(
        err.trim(),
        "dawgref: /nonexistent.ruleset: cannot read it: No such file or directory (os error 2)"
    );
}

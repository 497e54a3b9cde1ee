//! `dawgref gcg`: a record is checked in the ruleset it names (a Spanish record with its tiles
//! of two letters, without naming it), else the one its letters are; any shipped ruleset is
//! named by name, a ruleset with no lexicon of its own says so; and `serve --lexicon-cache ""`
//! is read as its help says.

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

/// Without its `#description` line, a Spanish record is checked in the ruleset its letters are
/// (Ñ, `[CH]`: Spanish), as the help promises, not in English, which refused its Ñ; a record
/// in letters no ruleset has is refused asking for --ruleset.
#[test]
fn a_record_that_names_no_ruleset_is_checked_in_the_one_its_letters_are() {
    let dir = std::env::temp_dir().join(format!("dawgref-cli-gcg-letters-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exported = dir.join("exported.gcg");
    let args = ["--ruleset", "spanish", "--lexicon", "/usr/share/dict/spanish", "--seed", "8"];
    let (code, _, err) =
        dawgref(&[&["gcg", "export"], &args[..], &["-o", exported.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&exported).unwrap();
    assert!(text.contains("ÑO +20 20") && text.contains("[CH]"), "{text}");
    let bare: String =
        text.lines().filter(|l| !l.starts_with("#description")).map(|l| format!("{l}\n")).collect();
    let file = dir.join("bare.gcg");
    std::fs::write(&file, bare).unwrap();
    let path = file.to_str().unwrap();
    let (code, out, err) = dawgref(&["gcg", "check", path]);
    assert_eq!(
        (code, out.as_str()),
        (0, format!("{path} ok strong_bot 450 greedy_bot 272\n").as_str()),
        "{err}"
    );

    let greek = dir.join("greek.gcg");
    std::fs::write(&greek, "#player1 a a\n#player2 b b\n>a: ΑΒΓΔΕΖΗ 8D ΑΒΓ +6 6\n").unwrap();
    let (code, out, _) = dawgref(&["gcg", "check", greek.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(
        out.trim(),
        format!(
            "{} ERROR no ruleset's tiles spell the record's plays: name it with --ruleset",
            greek.display()
        )
    );
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

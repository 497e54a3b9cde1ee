//! `dawgref lexicon compile` as a user runs it: the report, and words as long as the board of
//! the ruleset named.

use crate::dawgref;

/// INCOMPREHENSIBLES has 17 letters: kept for Super English's 21×21 board, not for 15×15;
/// the 34-letter word is kept for neither.
#[test]
fn a_ruleset_name_keeps_words_as_long_as_its_board() {
    let dir = std::env::temp_dir().join(format!("dawgref-cli-lexicon-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let list = dir.join("long.txt");
    std::fs::write(&list, "cat\ndog\nincomprehensibles\nsupercalifragilisticexpialidocious\n").unwrap();
    let (en, sup) = (dir.join("en.dawg"), dir.join("super.dawg"));
    let list_arg = list.to_str().unwrap();

    let (code, out, err) = dawgref(&["lexicon", "compile", list_arg, "-o", en.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(
            "4 lines, 2 words kept, 0 duplicates, skipped 2 (foreign letters 0, longer than 15 2,"
        ),
        "{out}"
    );
    let (code, out, err) = dawgref(&[
        "lexicon",
        "compile",
        list_arg,
        "--alphabet",
        "super-english",
        "-o",
        sup.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(
            "4 lines, 3 words kept, 0 duplicates, skipped 1 (foreign letters 0, longer than 21 1,"
        ),
        "{out}"
    );

    // Word study finds the 17-letter word in the list that holds it.
    let (code, out, err) =
        dawgref(&["words", "pattern", "INCOMPREHENSIBLE?", "--lexicon", sup.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.split(' ').take(2).collect::<Vec<_>>(), ["INCOMPREHENSIBLES", "17"], "{out}");
    let (code, out, _) = dawgref(&["lexicon", "check", en.to_str().unwrap(), "INCOMPREHENSIBLES"]);
    assert_eq!(code, 1, "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A command whose reader has gone (`dawgref lexicon info x | head -3`) ends by SIGPIPE, as Unix
/// tools do, with nothing on stderr: no panic about a broken pipe.
#[test]
fn a_command_whose_reader_has_gone_ends_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dawgref"))
        .args(["words", "anagram", "AEINRST"])
        .stdout(writer)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{:?}", out.status);
}

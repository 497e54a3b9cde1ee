//! `dawgref lexicon compile` as a user runs it: the report, and words as long as the board of
//! the ruleset named; a word list's alphabet, when none is named, the one its letters are.

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

/// A word list named without an alphabet is read in the one its letters are (Ñ: Spanish) by
/// `info`, `check` and `compile`, as their help says; it was read as English, which refused
/// every word with Ñ (AÑO invalid). A list in letters no ruleset has is refused, asking for
/// --alphabet.
#[test]
fn a_word_list_is_read_in_the_alphabet_its_letters_are() {
    let dir = std::env::temp_dir().join(format!("dawgref-cli-lexicon-letters-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let list = dir.join("es.txt");
    std::fs::write(&list, "año\nniño\ncasa\nperro\nchico\ncanción\n").unwrap();
    let list = list.to_str().unwrap();

    let (code, out, err) = dawgref(&["lexicon", "info", list]);
    assert_eq!(code, 0, "{err}");
    let line = |name: &str| out.lines().find(|l| l.starts_with(name)).unwrap_or_default().to_string();
    assert_eq!(
        (line("alphabet"), line("words")),
        ("alphabet  spanish".into(), "words     6".into()),
        "{out}"
    );
    let (code, out, err) = dawgref(&["lexicon", "check", list, "AÑO", "CHICO", "PERRO", "GATO"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(out, "AÑO valid\nCHICO valid\nPERRO valid\nGATO invalid\n");
    let compiled = dir.join("es.dawg");
    let (code, out, err) = dawgref(&["lexicon", "compile", list, "-o", compiled.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("6 lines, 6 words kept, 0 duplicates, skipped 0"), "{out}");
    let (code, out, _) = dawgref(&["lexicon", "check", compiled.to_str().unwrap(), "AÑO"]);
    assert_eq!((code, out.as_str()), (0, "AÑO valid\n"));

    let greek = dir.join("el.txt");
    std::fs::write(&greek, "αβγ\nδέλτα\n").unwrap();
    let greek = greek.to_str().unwrap();
    for command in ["info", "compile"] {
        let args: Vec<&str> = match command {
            "info" => vec!["lexicon", "info", greek],
            _ => vec!["lexicon", "compile", greek, "-o", compiled.to_str().unwrap()],
        };
        let (code, _, err) = dawgref(&args);
        assert_eq!(code, 2, "{command}");
        assert_eq!(
            err.trim(),
            format!(
                "dawgref: cannot tell the alphabet of {greek}: no ruleset's tiles spell any of its words; name it with --alphabet"
            ),
            "{command}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `compile` and `info` say the same sizes of the same lexicon, each named: the compiled file's
/// bytes (what is on disk) and the edges' bytes in memory (issue 72: compile said 411 bytes and
/// info 148, both "bytes").
#[test]
fn compile_and_info_report_the_same_sizes_by_name() {
    let dir = std::env::temp_dir().join(format!("dawgref-cli-lexicon-sizes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let list = dir.join("es.txt");
    std::fs::write(&list, "año\nniño\ncasa\n").unwrap();
    let compiled = dir.join("es.dawg");
    let (code, out, err) =
        dawgref(&["lexicon", "compile", list.to_str().unwrap(), "-o", compiled.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let on_disk = std::fs::metadata(&compiled).unwrap().len();
    let wrote = out.lines().nth(1).unwrap();
    assert!(
        wrote.starts_with(&format!(
            "wrote {} ({on_disk} bytes): 3 words in the spanish alphabet, 7 nodes, 9 edges (40 bytes in memory), checksum ",
            compiled.display()
        )),
        "{out}"
    );
    for lexicon in [&compiled, &list] {
        let (code, out, err) = dawgref(&["lexicon", "info", lexicon.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        let sizes: Vec<&str> =
            out.lines().filter(|l| l.starts_with("edges") || l.starts_with("file")).collect();
        assert_eq!(
            sizes,
            ["edges     9 (40 bytes in memory)", &format!("file      {on_disk} bytes")],
            "{out}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

//! The shipped lexicons load, hold their sample words, and match the counts in lexicons/README.md.

use dawgref_engine::alphabet::Alphabet;
use dawgref_engine::lexicon::catalog;

#[test]
fn english() {
    let r = catalog::resolve("en", None).unwrap();
    let lex = &r.lexicon;
    assert_eq!(lex.alphabet(), Alphabet::english());
    assert_eq!(lex.word_count(), 269_870);
    assert_eq!(r.report.unwrap().skipped(), 0);
    for w in ["QUIXOTIC", "ZYZZYVA", "quixotic", "AA", "QI", "OXYPHENBUTAZONE"] {
        assert_eq!(lex.contains_str(w), Ok(true), "{w}");
    }
    for w in ["QUIXOTICS", "ZYZZYV", "XQ", "AAAAA", "A"] {
        assert_eq!(lex.contains_str(w), Ok(false), "{w}");
    }
    assert!(lex.contains_str("naïve").is_err());
}

#[test]
fn russian() {
    let r = catalog::resolve("ru", None).unwrap();
    let lex = &r.lexicon;
    assert_eq!(lex.alphabet(), Alphabet::russian());
    assert_eq!(lex.word_count(), 59_191);
    let report = r.report.unwrap();
    assert_eq!(report.lines, 61_783);
    assert_eq!(report.too_long, 2_589);
    assert_eq!(report.too_short, 3);
    for w in ["ЁЖ", "ёж", "ПАЛЬТО", "НОЖНИЦЫ", "ёлка"] {
        assert_eq!(lex.contains_str(w), Ok(true), "{w}");
    }
    // ЕЖ is not ЁЖ in Скрэббл; proper nouns, adjectives and plurals of ordinary nouns are out.
    for w in ["ЕЖ", "МОСКВА", "КРАСИВЫЙ", "БЕЖАТЬ", "ПАЛЬТОС", "НОЖНИЦА", "СТОЛЫ"]
    {
        assert_eq!(lex.contains_str(w), Ok(false), "{w}");
    }
    // Latin Ë is a foreign character, not Ё.
    assert!(lex.contains_str("ËЖ").is_err());
}

#[test]
fn erudit_folds_yo() {
    let lex = catalog::resolve("erudit", None).unwrap().lexicon;
    assert_eq!(lex.alphabet(), Alphabet::erudit());
    assert_eq!(lex.word_count(), 59_184);
    for w in ["ЕЖ", "ЁЖ", "ЕЛКА", "ПАЛЬТО", "НОЖНИЦЫ"] {
        assert_eq!(lex.contains_str(w), Ok(true), "{w}");
    }
}

#[test]
fn unknown_names_and_word_list_paths() {
    assert!(matches!(
        catalog::resolve("nwl2099", None),
        Err(dawgref_engine::lexicon::LexiconError::Unknown(_))
    ));
    let dir = std::env::temp_dir().join(format!("dawgref-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let list = dir.join("mine.txt");
    // ΨSIR: a letter no ruleset has (ÆSIR would make it a Norwegian list).
    std::fs::write(&list, "AA\nAB\nQAT\nΨSIR\nX\n").unwrap();
    let r = catalog::resolve(list.to_str().unwrap(), None).unwrap();
    assert_eq!(r.lexicon.name(), "mine");
    assert_eq!(r.lexicon.word_count(), 3);
    let report = r.report.unwrap();
    assert_eq!((report.foreign, report.too_short), (1, 1));
    let compiled = dir.join("mine.dawg");
    std::fs::write(&compiled, r.lexicon.to_bytes()).unwrap();
    let back = catalog::resolve(compiled.to_str().unwrap(), None).unwrap();
    assert!(back.report.is_none());
    assert_eq!(back.lexicon.checksum(), r.lexicon.checksum());
    std::fs::remove_dir_all(&dir).unwrap();
}

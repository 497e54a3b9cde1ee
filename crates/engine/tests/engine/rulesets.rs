//! Rulesets as data: the shipped files against their published totals, files refused by line,
//! the other programs' formats read as they are, tiles of several letters split, scored and
//! written, Debian's word lists compiled in their rulesets, and a bot game in every shipped
//! ruleset replayed from its GCG to the same scores.

use dawgref_engine::alphabet::{Alphabet, tile};
use dawgref_engine::board::Board;
use dawgref_engine::bot::{BotLevel, ChampionOptions, play_out};
use dawgref_engine::game::record::{check_record, write_gcg};
use dawgref_engine::game::{Game, GameConfig};
use dawgref_engine::lexicon::Lexicon;
use dawgref_engine::notation::{cgp, format_play, gcg, parse_play};
use dawgref_engine::rack::Rack;
use dawgref_engine::rulebook::{self, Premium, RulesetKind};
use dawgref_engine::rules::Ruleset;
use dawgref_engine::score::evaluate;
use proptest::prelude::*;
use std::sync::Arc;

fn kind(name: &str) -> RulesetKind {
    RulesetKind::by_name(name).unwrap_or_else(|| panic!("{name} is shipped"))
}

/// Letters, tiles (blanks included), blanks and face total of every shipped set. The counts and
/// values of each were checked against wolges's alphabet and macondo's and MAGPIE-DATA's letter
/// distributions where they have one (docs/rulesets.md, Sources).
#[test]
fn every_shipped_ruleset_has_its_published_totals() {
    let expected = [
        ("english", 26, 100, 2, 187),
        ("russian", 33, 104, 2, 224),
        ("erudit", 32, 131, 3, 315),
        ("catalan", 26, 100, 2, 189),
        ("dutch", 26, 102, 2, 230),
        ("french", 26, 102, 2, 197),
        ("german", 29, 102, 2, 202),
        ("norwegian", 32, 100, 2, 202),
        ("polish", 32, 100, 2, 190),
        ("spanish", 28, 100, 2, 192),
        ("swedish", 31, 100, 2, 194),
        ("super-english", 26, 200, 4, 381),
    ];
    let shipped: Vec<&str> = RulesetKind::all().iter().map(|k| k.name()).collect();
    assert_eq!(shipped, expected.iter().map(|e| e.0).collect::<Vec<_>>());
    for (name, letters, tiles, blanks, face) in expected {
        let d = kind(name).definition();
        assert_eq!(
            (d.alphabet.len(), d.total_tiles(), d.blanks, d.face_total()),
            (letters, tiles, blanks, face),
            "{name}"
        );
        let (size, start) = if name == "super-english" { (21, (10, 10)) } else { (15, (7, 7)) };
        assert_eq!((d.size, d.start, d.rack_size), (size, start, 7), "{name}");
    }
    let catalan = kind("catalan").definition();
    let ll = catalan.letter("L·L").unwrap();
    assert_eq!(
        (catalan.alphabet.label(ll), catalan.counts[ll as usize], catalan.values[ll as usize]),
        ("L·L", 1, 10)
    );
    // Names and aliases, case-insensitively; CGP's `ld` takes the same names.
    assert_eq!(kind("ES"), kind("spanish"));
    assert_eq!(kind("Скрэббл"), RulesetKind::russian());
    // An alphabet is found by its name or a ruleset's; rulesets of one alphabet share lexicons.
    assert_eq!(Alphabet::by_name("en").unwrap(), Alphabet::english());
}

/// The standard board as the shipped rulesets drew it before they named it (`layout
/// standard15`): what a file naming the layout must get, square for square.
const STANDARD15_DRAWN: &str = "\
T..d...T...d..T
.D...t...t...D.
..D...d.d...D..
d..D...d...D..d
....D.....D....
.t...t...t...t.
..d...d.d...d..
T..d...*...d..T
..d...d.d...d..
.t...t...t...t.
....D.....D....
d..D...d...D..d
..D...d.d...D..
.D...t...t...D.
T..d...T...d..T
";

/// The champion skips inferring the opponent's rack where its file refuses repeated words: of the
/// shipped rulesets, in Эрудит alone, as when the policy named Эрудит.
#[test]
fn the_champion_infers_racks_in_every_shipped_ruleset_but_erudit() {
    for (file, _) in rulebook::SHIPPED_FILES {
        let kind = kind(file.trim_end_matches(".ruleset"));
        let infers = ChampionOptions::for_rules(&Ruleset::new(kind)).infer.is_some();
        assert_eq!(infers, kind != RulesetKind::erudit(), "{kind}");
    }
}

#[test]
fn a_ruleset_file_with_an_error_is_refused_naming_its_line() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/data/rulesets"));
    // English with its board drawn, as it was before it named the layout: the refusals below
    // are of a drawn board, and the file parses to the shipped English, which names it.
    let good = std::fs::read_to_string(dir.join("english.ruleset"))
        .unwrap()
        .replace("layout standard15\n", &format!("board\n{STANDARD15_DRAWN}"));
    assert!(good.ends_with(STANDARD15_DRAWN));
    let refused = |text: &str| rulebook::parse(text, "club.ruleset", Some(dir)).unwrap_err().to_string();
    // The file as shipped parses, from disk as built in: the tables it names beside it are the
    // ones built in. Each change below is one mistake.
    let from_disk = rulebook::parse(&good, "club.ruleset", Some(dir)).unwrap();
    assert_eq!(from_disk.total_tiles(), 100);
    assert_eq!(
        rulebook::Definition { source: "shipped".into(), ..from_disk },
        *RulesetKind::english().definition()
    );
    assert_eq!(
        rulebook::parse(&good, "club.ruleset", None).unwrap_err().to_string(),
        format!(
            "club.ruleset:{}: leaves-file names a file, and this ruleset is not read from one",
            good.lines().position(|l| l.starts_with("leaves-file")).unwrap() + 1
        )
    );
    let line_of = |needle: &str| good.lines().position(|l| l.starts_with(needle)).unwrap() + 1;
    let b = line_of("B 2 3");
    assert_eq!(
        refused(&good.replace("B 2 3", "A 2 3")),
        format!("club.ruleset:{b}: duplicate label A (first on line {})", line_of("A 9 1"))
    );
    assert_eq!(
        refused(&good.replace("Q 1 10", "Q 0 10")),
        format!(
            "club.ruleset:{}: tile Q has a count of 0 (write blank-only when only a blank may stand for it)",
            line_of("Q 1 10")
        )
    );
    let first_row = line_of("T..d...T...d..T");
    assert_eq!(
        refused(&good.replacen("T..d...T...d..T", "T..d...T...d..TD", 1)),
        format!("club.ruleset:{first_row}: a row of 16 squares on a board of 15 rows")
    );
    assert_eq!(
        refused(&good.replace('*', "D")),
        "club.ruleset: no start square: mark it * or + on the board, or give a start line"
    );
    assert_eq!(
        refused(&good.replace("bingo 50", "bingo fifty")),
        format!("club.ruleset:{}: bingo must be a whole number, not \"fifty\"", line_of("bingo"))
    );
    assert_eq!(
        refused(&good.replace("T..d...T...d..T", "T..d...T...d..X")),
        format!("club.ruleset:{first_row}: square 'X' is not one of . d t q D T Q * +")
    );
    assert_eq!(
        refused(&good.replace("rack 7", "rack 7\nsparkles on")),
        format!(
            "club.ruleset:{}: unknown line \"sparkles\" (expected one of: name, also, alphabet, lexicon, rack, bingo, blanks, exchange-minimum, scoreless-turns, blank-value, repeated-words, start, tiles, board, layout, tiles-file, layout-file, leaves-file, winprob-file)",
            line_of("rack") + 1
        )
    );
    // Every value bounded, every repeat refused, every refusal one short line naming its line.
    let blanks = line_of("blanks");
    let rack = line_of("rack");
    for (change, expected) in [
        (good.replace("blanks 2", "blanks 1000"), format!("club.ruleset:{blanks}: blanks 1000: 0 to 20")),
        (good.replace("rack 7", "rack 0"), format!("club.ruleset:{rack}: rack 0: 1 to 7")),
        (good.replace("rack 7", "rack 8"), format!("club.ruleset:{rack}: rack 8: 1 to 7")),
        (
            good.replace("blanks 2", "blanks 2\nblanks 3"),
            format!("club.ruleset:{}: a second blanks line (the first is line {blanks})", blanks + 1),
        ),
        (
            good.replace(
                "winprob-file ../winprob/english.txt",
                "winprob-file ../winprob/english.txt\nwinprob-file ../winprob/russian.txt",
            ),
            format!(
                "club.ruleset:{}: a second winprob-file line (the first is line {})",
                line_of("winprob-file") + 1,
                line_of("winprob-file")
            ),
        ),
        (
            good.replace("rack 7", "rack 7\nleaves-file nowhere.txt"),
            format!(
                "club.ruleset:{}: cannot read {}: No such file or directory (os error 2)",
                rack + 1,
                dir.join("nowhere.txt").display()
            ),
        ),
        (
            good.replace("rack 7", "rack 7\nname other"),
            format!("club.ruleset:{}: a second name line (the first is line {})", rack + 1, line_of("name")),
        ),
        (
            good.replace("B 2 3", "BBBBBBB 2 3"),
            format!(
                "club.ruleset:{b}: tile BBBBBBB: \"BBBBBBB\" is not a spelling (1 to 6 characters, no control characters, none of [ ] ? * . ( ))"
            ),
        ),
        // A control character is shown escaped, never written raw (issue 72).
        (
            good.replace("B 2 3", "B\u{0} 2 3"),
            format!(
                "club.ruleset:{b}: tile B\\0: \"B\\0\" is not a spelling (1 to 6 characters, no control characters, none of [ ] ? * . ( ))"
            ),
        ),
        (
            good.replace("C 2 3", "C 2 3 aka B"),
            format!("club.ruleset:{}: B spells two tiles, B (line {b}) and C", line_of("C 2 3")),
        ),
        (
            good.replace("rack 7", "rack 7\nstart 16A").replace('*', "D"),
            format!("club.ruleset:{}: the start square (row 16, column 1) is off the 15×15 board", rack + 1),
        ),
        (
            good.replace("also en", &format!("also {}", "x".repeat(1 << 20))),
            format!(
                "club.ruleset:{}: also {:?}: 1 to 40 characters, no control characters",
                line_of("also"),
                dawgref_engine::text::clip(&"x".repeat(1 << 20))
            ),
        ),
    ] {
        let got = refused(&change);
        assert_eq!(got, expected);
        assert!(got.len() < 300, "{got}");
    }
    // A byte-order mark before the first line is no part of it.
    assert_eq!(
        rulebook::parse(&format!("\u{feff}{good}"), "club.ruleset", Some(dir)).unwrap().total_tiles(),
        100
    );
    // A name another ruleset holds is refused when registered.
    let def = rulebook::parse(&good.replace("\nalso en", ""), "club.ruleset", Some(dir)).unwrap();
    let def =
        rulebook::Definition { options: rulebook::RuleOptions { exchange_limit: 1, ..def.options }, ..def };
    assert_eq!(
        rulebook::register(def).unwrap_err().to_string(),
        "club.ruleset: the name \"english\" is taken by the ruleset english (shipped)"
    );
}

/// Every shipped ruleset on the standard board names it (`layout standard15`) and gets exactly
/// the board it drew before; Эрудит and Super English draw their own.
#[test]
fn a_ruleset_naming_standard15_gets_the_board_it_drew() {
    let drawn: Vec<String> = STANDARD15_DRAWN.lines().map(|row| row.replace('*', "D")).collect();
    for (file, text) in rulebook::SHIPPED_FILES {
        let name = file.trim_end_matches(".ruleset");
        let named = text.lines().any(|l| l == "layout standard15");
        assert_eq!(named, !["erudit", "super-english"].contains(&name), "{file}");
        let d = kind(name).definition();
        if named {
            assert_eq!((d.premium_rows(), d.start), (drawn.clone(), (7, 7)), "{file}");
        }
    }
    // By hand: a few squares, and how many of each premium there are.
    let d = RulesetKind::english().definition();
    let at = |row: usize, col: usize| d.premiums[row * 15 + col];
    assert_eq!(
        [at(0, 0), at(7, 7), at(1, 5), at(0, 3), at(1, 1), at(0, 1)],
        [
            Premium::TripleWord,
            Premium::DoubleWord,
            Premium::TripleLetter,
            Premium::DoubleLetter,
            Premium::DoubleWord,
            Premium::None
        ]
    );
    let count = |p: Premium| d.premiums.iter().filter(|&&q| q == p).count();
    assert_eq!(
        [
            Premium::TripleWord,
            Premium::DoubleWord,
            Premium::TripleLetter,
            Premium::DoubleLetter,
            Premium::None
        ]
        .map(count),
        [8, 17, 12, 24, 164]
    );
    // The layout is built in: a file read from nowhere names it too, and a file that draws and
    // names no board is on the same board, its start square the centre.
    let tiles = "name club\ntiles\nA 20 1 vowel\nB 20 1\n";
    for text in [format!("{tiles}layout standard15\n"), tiles.to_string()] {
        let club = rulebook::parse(&text, "club.ruleset", None).unwrap();
        assert_eq!((&club.premiums, club.start), (&d.premiums, (7, 7)), "{text}");
    }
}

#[test]
fn a_ruleset_naming_an_unknown_layout_or_two_boards_is_refused_naming_its_line() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/data/rulesets"));
    let good = std::fs::read_to_string(dir.join("english.ruleset")).unwrap();
    let refused = |text: &str| rulebook::parse(text, "club.ruleset", Some(dir)).unwrap_err().to_string();
    let line_of = |needle: &str| good.lines().position(|l| l.starts_with(needle)).unwrap() + 1;
    let layout = line_of("layout standard15");
    let magpie = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vs-magpie/standard15.txt");
    for (change, expected) in [
        (
            good.replace("layout standard15", "layout standard16"),
            format!("club.ruleset:{layout}: unknown layout \"standard16\" (known: standard15)"),
        ),
        (
            good.replace("layout standard15", "layout standard15\nlayout standard15"),
            format!("club.ruleset:{}: a second layout line (the first is line {layout})", layout + 1),
        ),
        (
            good.replace("layout standard15\n", &format!("layout standard15\nboard\n{STANDARD15_DRAWN}")),
            format!(
                "club.ruleset:{}: a board given and a layout named (line {layout}): a ruleset gives one board",
                layout + 1
            ),
        ),
        (
            good.replace("layout standard15", &format!("layout standard15\nlayout-file {magpie}")),
            format!(
                "club.ruleset:{}: a board given and a layout named (line {layout}): a ruleset gives one board",
                layout + 1
            ),
        ),
        (
            good.replace("layout standard15", &format!("layout-file {magpie}\nlayout standard15")),
            format!(
                "club.ruleset:{}: a layout named and a board given: a ruleset gives one board",
                layout + 1
            ),
        ),
        (
            good.replace("rack 7", "rack 7\nstart 8H"),
            format!(
                "club.ruleset:{}: the start square is given twice: by a start line and on the board",
                line_of("rack") + 1
            ),
        ),
    ] {
        assert_eq!(refused(&change), expected);
    }
}

/// A scratch directory for files a test writes.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("dawgref-rulesets-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn magpie_and_macondo_files_are_read_as_they_are() {
    let dir = scratch("formats");
    // MAGPIE: label, blank label, count, value, vowel; macondo: no blank label, [CH] brackets.
    let magpie = "?,?,2,0,0\nA,a,30,1,1\nB,b,20,3,0\nL·L,l·l,10,10,0\nX,x,0,0,0\n";
    let macondo = "?,2,0,0\nA,30,1,1\n[CH],20,5,0\nE,20,1,10\n";
    std::fs::write(dir.join("tiny_magpie.csv"), magpie).unwrap();
    std::fs::write(dir.join("tiny_macondo.csv"), macondo).unwrap();
    let m = rulebook::read_file(&dir.join("tiny_magpie.csv")).unwrap();
    assert_eq!((m.name.as_str(), m.total_tiles(), m.face_total(), m.size), ("tiny-magpie", 62, 190, 15));
    assert_eq!(m.alphabet.blank_label(m.letter("L·L").unwrap()), "l·l");
    assert_eq!(m.counts[m.letter("X").unwrap() as usize], 0, "a letter only a blank stands for");
    let c = rulebook::read_file(&dir.join("tiny_macondo.csv")).unwrap();
    let ch = c.letter("CH").unwrap();
    assert_eq!((c.alphabet.label(ch), c.values[ch as usize]), ("CH", 5));
    // macondo reads a vowel as `== 1`; its Catalan file's Ç says 10.
    assert!(!c.alphabet.is_vowel(c.letter("E").unwrap()));
    // A MAGPIE layout named from a ruleset file: quadruple squares are read, and a 15×15 with
    // them plays.
    let mut rows = vec![" ".repeat(15); 15];
    rows[0] = "~      =      ^".into();
    std::fs::write(dir.join("quad15.txt"), format!("7, 7\n{}\n", rows.join("\n"))).unwrap();
    std::fs::write(
        dir.join("quad.ruleset"),
        "name quad\ntiles-file tiny_magpie.csv\nlayout-file quad15.txt\n",
    )
    .unwrap();
    let q = rulebook::read_file(&dir.join("quad.ruleset")).unwrap();
    assert_eq!(&q.premiums[..15], &{
        let mut row = [Premium::None; 15];
        row[0] = Premium::QuadrupleWord;
        row[7] = Premium::TripleWord;
        row[14] = Premium::QuadrupleLetter;
        row
    });
    assert_eq!(q.start, (7, 7));
    // A start square off the board the layout draws: refused naming the layout's line.
    std::fs::write(dir.join("off15.txt"), format!("15, 7\n{}\n", rows.join("\n"))).unwrap();
    std::fs::write(dir.join("off.ruleset"), "name off\ntiles-file tiny_magpie.csv\nlayout-file off15.txt\n")
        .unwrap();
    assert_eq!(
        rulebook::read_file(&dir.join("off.ruleset")).unwrap_err().to_string(),
        format!(
            "{}:1: the start square (row 16, column 8) is off the 15×15 board",
            dir.join("off15.txt").display()
        )
    );
    // A 21×21 layout, its start off the centre as MAGPIE's test layouts have it.
    let mut rows21 = vec![" ".repeat(21); 21];
    rows21[0] = format!("~{}^", " ".repeat(19));
    std::fs::write(dir.join("super.txt"), format!("0, 3\n{}\n", rows21.join("\n"))).unwrap();
    std::fs::write(
        dir.join("super.ruleset"),
        "name big\ntiles-file tiny_magpie.csv\nlayout-file super.txt\n",
    )
    .unwrap();
    let big = rulebook::read_file(&dir.join("super.ruleset")).unwrap();
    assert_eq!((big.size, big.start, big.premiums.len()), (21, (0, 3), 441));
    assert_eq!((big.premiums[0], big.premiums[20]), (Premium::QuadrupleWord, Premium::QuadrupleLetter));
    // vs-magpie's English files, in MAGPIE's formats, are the English ruleset.
    let vs = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vs-magpie");
    std::fs::write(
        dir.join("magpie-english.ruleset"),
        format!("name magpie-english\ntiles-file {vs}/english.csv\nlayout-file {vs}/standard15.txt\n"),
    )
    .unwrap();
    let theirs = rulebook::read_file(&dir.join("magpie-english.ruleset")).unwrap();
    let ours = RulesetKind::english().definition();
    assert_eq!((&theirs.counts, &theirs.values, theirs.blanks), (&ours.counts, &ours.values, ours.blanks));
    assert_eq!((&theirs.premiums, theirs.start), (&ours.premiums, ours.start));
    assert_eq!(theirs.alphabet, Alphabet::english(), "the same tiles are the same alphabet");
    let e = rulebook::read_file(&dir.join("missing.csv")).unwrap_err();
    assert!(
        e.to_string().starts_with(&format!("{}: cannot read it:", dir.join("missing.csv").display())),
        "{e}"
    );
    std::fs::write(dir.join("bad.csv"), "?,2,0,0\nA,x,1,1\n").unwrap();
    assert_eq!(
        rulebook::read_file(&dir.join("bad.csv")).unwrap_err().to_string(),
        format!("{}:2: count \"x\" is not a whole number", dir.join("bad.csv").display())
    );
}

/// A lexicon of `words` in a shipped ruleset's alphabet.
fn small_lexicon(ruleset: &str, words: &str) -> Arc<Lexicon> {
    Arc::new(Lexicon::compile(ruleset, words, kind(ruleset).alphabet()).unwrap().0)
}

fn board(ruleset: &str, lexicon: &Lexicon, plays: &[&str]) -> Board {
    let mut b = Board::new(Arc::new(Ruleset::new(kind(ruleset))));
    for text in plays {
        let p = parse_play(text, lexicon.alphabet()).unwrap().normalized(&b).unwrap();
        let placements: Vec<_> = p.placements().map(|x| (x.row, x.col, x.tile)).collect();
        b.place(&placements, lexicon.dawg());
    }
    b
}

/// Worked by hand: ALA on 8G–8I, then COL·LA down column G onto its A. C (2) on G5, O (1) on
/// G6, L·L (10) on G7, a double letter: 20; the A (1) already there. 2 + 1 + 20 + 1 = 24.
#[test]
fn catalan_l_l_is_one_tile_scored_on_a_premium_square() {
    let lex = small_lexicon("catalan", "ala\ncol·la\n");
    let b = board("catalan", &lex, &["8G ALA"]);
    let alphabet = lex.alphabet();
    let play = parse_play("G5 COL·L.", alphabet).unwrap();
    assert_eq!(play.tiles().len(), 4, "C, O, L·L and the A played through");
    let e = evaluate(&b, &play).unwrap();
    assert_eq!(e.total, 24);
    let ll = e.tiles.iter().find(|t| (t.row, t.col) == (6, 6)).unwrap();
    assert_eq!(
        (ll.face, ll.letter_multiplier, alphabet.label(dawgref_engine::alphabet::tile_letter(ll.tile))),
        (10, 2, "L·L")
    );
    assert_eq!(format_play(&play, alphabet), "G5 CO[L·L].");
    // The other spellings: [L·L] in brackets, and wolges's W.
    assert_eq!(parse_play("G5 CO[L·L].", alphabet).unwrap(), play);
    assert_eq!(parse_play("G5 COW.", alphabet).unwrap(), play);
    assert_eq!(
        parse_play("G5 col·l.", alphabet).unwrap().tiles()[2],
        tile(alphabet.parse_word("L·L").unwrap()[0], true)
    );
}

/// A word list says how a word splits: by the longest label that fits, unless it brackets a
/// tile. In a ruleset with N, Y and the tile NY, ANYS is A·NY·S and A[N]YS is A·N·Y·S.
#[test]
fn digraphs_split_by_the_longest_label_unless_the_word_list_brackets_them() {
    let dir = scratch("ny");
    std::fs::write(
        dir.join("ny.ruleset"),
        "name ny-test\ntiles\nA 10 1 vowel\nN 10 1\nNY 2 8\nS 10 1\nY 10 2\n",
    )
    .unwrap();
    let def = rulebook::read_file(&dir.join("ny.ruleset")).unwrap();
    let alphabet = def.alphabet;
    let (lex, report) = Lexicon::compile("ny", "anys\na[n]ys\nnyn\n", alphabet).unwrap();
    assert_eq!(report.kept, 3);
    let word = |w: &str| alphabet.parse_word(w).unwrap();
    assert_eq!(word("ANYS").len(), 3);
    assert_eq!(word("A[N]YS").len(), 4);
    assert!(lex.contains(&word("ANYS")) && lex.contains(&word("A[N]YS")));
    // Written to read back as the same tiles: N then Y bracketed, the tile NY too.
    assert_eq!(alphabet.word_string(&word("A[N]YS")), "A[N]YS");
    assert_eq!(alphabet.word_string(&word("ANYS")), "A[NY]S");
    for w in ["A[N]YS", "ANYS", "NYN", "[N]Y[N]"] {
        assert_eq!(word(&alphabet.word_string(&word(w))), word(w), "{w}");
    }
    // Spanish: CH, LL and RR are tiles, read from plain text and from FISE's 1, 2, 3.
    let es = kind("spanish").alphabet();
    let chillar = es.parse_word("chillar").unwrap();
    assert_eq!(chillar.len(), 5);
    assert_eq!(es.parse_word("1I2AR").unwrap(), chillar);
    assert_eq!(es.word_string(&chillar), "[CH]I[LL]AR");
    // Two single R tiles, a C before an H, an L before an L: bracketed, so they read back alone.
    let singles = es.parse_word("[R][R]A[C]H[L]L").unwrap();
    assert_eq!(singles.len(), 7);
    assert_eq!(es.word_string(&singles), "[R]RA[C]H[L]L");
    assert_eq!(es.parse_word(&es.word_string(&singles)).unwrap(), singles);
    assert_eq!(es.word_label(&chillar), "CHILLAR");
}

/// Debian's word list of a ruleset, compiled once in its tiles (the shared fixtures').
fn debian(ruleset: &str) -> crate::common::Compiled {
    crate::common::debian_lexicon(kind(ruleset))
}

/// Each list keeps its words in tiles and reports every word it could not split: a letter the
/// set has no tile for, or a hyphen. Digraphs are whole tiles, accents fold into their letter,
/// and Latin-1 lists (Norwegian, Swedish) are read as such.
#[test]
fn debian_word_lists_compile_in_their_rulesets_with_every_skip_reported() {
    let cases: [(&str, &[&str], &[&str]); 8] = [
        ("catalan", &["col·lecció", "anys", "plaça", "què"], &["Alta-riba"]),
        ("spanish", &["chico", "calle", "perro", "canción", "pingüino", "año"], &["cok"]),
        ("polish", &["źdźbło", "żółw", "gęś"], &["abbé"]),
        ("french", &["être", "garçon", "noël"], &["abat-jour"]),
        ("german", &["Äpfel", "Übung", "Öl"], &["Abhörmaßnahme"]),
        ("dutch", &["appel", "café"], &["06-nummer"]),
        ("norwegian", &["blåbær", "smør"], &["A-aksje"]),
        ("swedish", &["åka", "äpple", "öl", "armé"], &["A-aktie"]),
    ];
    for (ruleset, kept, skipped) in cases {
        let compiled = debian(ruleset);
        let (lex, report) = (&compiled.0, &compiled.1);
        assert!(report.kept > 50_000, "{ruleset}: {report}");
        assert_eq!(
            report.unsplittable.len() as u64,
            report.foreign,
            "{ruleset}: every unsplit word is listed"
        );
        for w in kept {
            assert_eq!(lex.contains_str(w), Ok(true), "{ruleset}: {w}");
        }
        for w in skipped {
            assert!(report.unsplittable.iter().any(|u| u == w), "{ruleset}: {w} is reported");
        }
    }
    // The digraph is one tile in the DAWG: COL·LECCIÓ is 8 tiles, CHICO 4.
    assert_eq!(kind("catalan").alphabet().parse_word("col·lecció").unwrap().len(), 8);
    assert_eq!(kind("spanish").alphabet().parse_word("chico").unwrap().len(), 4);
}

/// Named without an alphabet, each list is read in its language's: the one its letters are
/// (issue 72; they had all been read as English).
#[test]
fn debian_word_lists_are_read_in_the_alphabet_their_letters_are() {
    use dawgref_engine::lexicon::catalog;
    for ruleset in ["catalan", "dutch", "french", "german", "norwegian", "polish", "spanish", "swedish"] {
        let text = crate::common::debian_text(kind(ruleset));
        let guessed = catalog::list_alphabet(&text, ruleset).unwrap();
        assert_eq!(guessed, kind(ruleset).alphabet(), "{ruleset}");
    }
    let english = include_str!("../../../../lexicons/en.txt").to_string() + "café\nnaïve\nrésumé\n";
    assert_eq!(catalog::list_alphabet(&english, "en").unwrap(), Alphabet::english());
    let russian = include_str!("../../../../lexicons/ru.txt");
    assert_eq!(catalog::list_alphabet(russian, "ru").unwrap(), Alphabet::russian());
}

/// Every shipped ruleset: a game of bots to its end (the strong bot values leaves by the
/// fallback where no table was learned), its GCG replayed to the same scores, and the record's
/// ruleset found from its description.
#[test]
fn a_bot_game_in_every_shipped_ruleset_makes_the_gcg_round_trip() {
    for ruleset in ["catalan", "dutch", "french", "german", "norwegian", "polish", "spanish", "swedish"] {
        let compiled = debian(ruleset);
        let lex = Arc::new(compiled.0.clone());
        let rules = Arc::new(Ruleset::new(kind(ruleset)));
        let mut g = Game::new(GameConfig::new(rules.clone(), lex.clone(), 11)).unwrap();
        play_out(&mut g, &[BotLevel::Strong, BotLevel::Greedy], 1000, |g| g.check_invariants().unwrap())
            .unwrap();
        assert!(g.is_over(), "{ruleset}");
        let text = write_gcg(&g, &["uno".to_string(), "dos".to_string()]);
        let record = gcg::parse(&text).unwrap();
        let report = check_record(&record, rules.clone(), &lex);
        assert_eq!(report.mismatches, vec![], "{ruleset}\n{text}");
        assert_eq!(report.finals.iter().map(|f| f.1).collect::<Vec<_>>(), g.scores(), "{ruleset}\n{text}");
        assert_eq!(
            dawgref_engine::game::record::guess_ruleset(&record, None),
            Some(kind(ruleset)),
            "{ruleset}"
        );
        if ruleset == "spanish" || ruleset == "catalan" {
            // Its digraphs are written as macondo writes them, in brackets.
            let has_digraph = g.history().iter().any(|e| matches!(&e.kind,
                dawgref_engine::game::EventKind::Play { play, .. }
                    if play.tiles().iter().any(|&t| t != 0 && lex.alphabet().label(dawgref_engine::alphabet::tile_letter(t)).chars().count() > 1)));
            assert_eq!(has_digraph, text.contains('['), "{ruleset}\n{text}");
        }
    }
}

#[test]
fn a_lexicon_of_any_alphabet_is_written_and_read_back_whole() {
    let lex = small_lexicon("catalan", "col·la\nanys\nplaça\n");
    let bytes = lex.to_bytes();
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 2, "version 2 carries the alphabet");
    let back = Lexicon::load("back", &bytes, None).unwrap();
    assert_eq!(back.alphabet(), kind("catalan").alphabet());
    assert_eq!(back.checksum(), lex.checksum());
    assert_eq!(back.contains_str("COL·LA"), Ok(true));
    // English is written as it always was: version 1, its checksum unchanged.
    let en = Lexicon::compile("en", "aa\nqi\n", Alphabet::english()).unwrap().0;
    assert_eq!(u32::from_le_bytes(en.to_bytes()[8..12].try_into().unwrap()), 1);
}

#[test]
fn cgp_writes_and_reads_tiles_of_several_letters_in_brackets() {
    let lex = small_lexicon("spanish", "chico\n");
    let b = board("spanish", &lex, &["8H chICO"]);
    let alphabet = lex.alphabet();
    let racks = [Rack::parse("[LL]A?", alphabet).unwrap(), Rack::parse("2E", alphabet).unwrap()];
    let c = cgp::from_board(&b, &racks, &[10, 0], 0, cgp::Ops::default());
    let text = cgp::write(&c);
    assert!(text.starts_with("15/15/15/15/15/15/15/7[ch]ICO4/15/"), "{text}");
    assert!(text.contains(" A[LL]?/E[LL] 10/0 0 ld spanish;"), "{text}");
    let back = cgp::parse(&text, None).unwrap();
    assert_eq!(back.grid, c.grid);
    assert_eq!(back.racks, c.racks);
    assert_eq!(back.ruleset, kind("spanish"));
}

/// Word study reads tiles as plays do: COL·LA by its label or by W, in a pattern, an anagram and
/// a word's hooks, and answers it in notation.
#[test]
fn word_study_reads_tiles_of_two_letters() {
    use dawgref_engine::lexicon::study::{Order, find, read_query};
    let lex = small_lexicon("catalan", "ala\ncol·la\ncol·les\nanys\n");
    let rules = Ruleset::new(kind("catalan"));
    let alphabet = lex.alphabet();
    let words = |kind: &str, text: &str| -> Vec<String> {
        let q = read_query(kind, text, 0, alphabet).unwrap();
        find(lex.dawg(), &rules, &q, Order::Alphabet, 10)
            .words
            .iter()
            .map(|a| alphabet.word_string(&a.word))
            .collect()
    };
    assert_eq!(words("pattern", "COL·L*"), ["CO[L·L]A", "CO[L·L]ES"]);
    assert_eq!(words("pattern", "CO[WX]A"), ["CO[L·L]A"]);
    assert_eq!(words("anagram", "ALOCW"), Vec::<String>::new(), "five tiles: A L O C L·L");
    assert_eq!(words("anagram", "ACOW"), ["CO[L·L]A"]);
    assert_eq!(words("anagram", "A?L·LC"), ["CO[L·L]A"]);
    assert!(read_query("pattern", "CO[L·L", 0, alphabet).is_err());
    let q = read_query("hooks", "col·l", 0, alphabet).unwrap();
    assert!(!find(lex.dawg(), &rules, &q, Order::Alphabet, 10).valid);
}

/// A ruleset's tiles, blanks among them, as tile bytes.
fn tiles_of(kind: RulesetKind) -> impl Strategy<Value = Vec<u8>> {
    let letters = kind.alphabet().len() as u8;
    prop::collection::vec((0..letters, prop::bool::weighted(0.2)), 0..24)
        .prop_map(|v| v.into_iter().map(|(l, b)| tile(l, b)).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Every run of tiles the server writes (a play, a rack, a word, a CGP row) reads back as the
    /// same tiles, in every shipped ruleset: where one tile's text and the next's would spell a
    /// longer tile (Spanish R R, C H, L L; Catalan N Y, L·L), the first is bracketed.
    #[test]
    fn every_run_of_tiles_written_reads_back_as_the_same_tiles(
        ruleset in 0usize..64,
        seed_tiles in tiles_of(kind("spanish")),
        catalan in tiles_of(kind("catalan")),
        any_tiles in prop::collection::vec((0u8..64, any::<bool>()), 0..24),
    ) {
        let all = RulesetKind::all();
        let chosen = all[ruleset % all.len()];
        let letters = chosen.alphabet().len() as u8;
        let mixed: Vec<u8> = any_tiles.iter().map(|&(l, b)| tile(l % letters, b)).collect();
        for (kind, tiles) in [(kind("spanish"), seed_tiles), (kind("catalan"), catalan), (chosen, mixed)] {
            let a = kind.alphabet();
            let text = a.write_tiles(tiles.iter().copied());
            let back: Vec<u8> = a
                .parse_tiles(&text)
                .unwrap()
                .into_iter()
                .map(|(l, b)| tile(l, b))
                .collect();
            prop_assert_eq!(&back, &tiles, "{} {:?}", kind, text);
        }
    }
}

/// Every shipped ruleset's compiled lexicon file reads back in that ruleset's alphabet (all of
/// it: French's A–Z with É is not English's) and with the same words; only the classic three are
/// written as version 1.
#[test]
fn every_rulesets_lexicon_file_reads_back_in_its_own_alphabet() {
    for kind in RulesetKind::all() {
        let a = kind.alphabet();
        let labels: Vec<&str> = (0..a.len() as u8).map(|l| a.label(l)).collect();
        let words: Vec<String> = labels.windows(3).map(|w| w.concat().to_lowercase()).collect();
        let text: String = words.iter().map(|w| format!("{w}\n")).collect();
        let (lex, _) = Lexicon::compile("x", &text, a).unwrap();
        let bytes = lex.to_bytes();
        let back = Lexicon::load("x", &bytes, None).unwrap();
        assert_eq!(back.alphabet(), a, "{kind}");
        assert_eq!(back.checksum(), lex.checksum(), "{kind}");
        let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
        let classic = RulesetKind::classic().contains(&kind) || a == Alphabet::english();
        assert_eq!(version, if classic { 1 } else { 2 }, "{kind}");
    }
    let fr = kind("french").alphabet();
    let (lex, _) = Lexicon::compile("fr", "été\nmême\n", fr).unwrap();
    let back = Lexicon::load("fr", &lex.to_bytes(), None).unwrap();
    assert_eq!(back.alphabet().name(), "french");
    assert_eq!(back.contains_str("ÉTÉ"), Ok(true));
}

/// A viewer of a record: who, the game as it stood, whose racks they see.
type View<'a> = (&'a str, &'a Game, &'a dyn Fn(usize) -> bool);

/// Whether a game's last move was an exchange: the rack it drew is in no line of the record,
/// so a game that then ends on scoreless turns counts a rack the import cannot know.
fn ends_on_an_exchange(g: &Game) -> bool {
    use dawgref_engine::game::EventKind;
    g.history()
        .iter()
        .rev()
        .find(|e| {
            matches!(
                e.kind,
                EventKind::Play { .. }
                    | EventKind::Pass
                    | EventKind::Exchange { .. }
                    | EventKind::PhonyWithdrawn { .. }
                    | EventKind::TurnLost
            )
        })
        .is_some_and(|e| matches!(e.kind, EventKind::Exchange { .. }))
}

/// A game's scores before the end's rack penalties.
fn before_penalties(g: &Game) -> Vec<i32> {
    use dawgref_engine::game::EventKind;
    let mut s = g.scores().to_vec();
    for e in g.history().iter().filter(|e| matches!(e.kind, EventKind::RackPenalty { .. })) {
        s[e.seat] -= e.points;
    }
    s
}

/// Games per ruleset in [`every_record_and_position_written_reads_back_in_every_ruleset`]:
/// `DAWGREF_ROUND_TRIPS` (BENCHMARKS.md has the long run's figure), else a few for CI.
fn round_trips() -> u64 {
    std::env::var("DAWGREF_ROUND_TRIPS").ok().and_then(|n| n.parse().ok()).unwrap_or(3)
}

/// Bot games in every shipped ruleset (all twelve), each written as GCG for every viewer (the
/// director, each player, a watcher: the others' racks hidden) and as CGP at every turn, and
/// read back: the record imports, without being told its ruleset, to the same board, scores and
/// end, and each position to the same board, racks and scores; the finished game's record with
/// racks struck imports as it is written. Spanish and Catalan games are where single tiles
/// spell longer ones side by side.
#[test]
fn every_record_and_position_written_reads_back_in_every_ruleset() {
    use dawgref_engine::game::record::{ImportAsk, import_game, import_setup, write_gcg_for};
    let games = round_trips();
    let started = std::time::Instant::now();
    let (mut checked, mut drawn_unseen) = (0, 0);
    for kind in RulesetKind::all() {
        let name = kind.to_string();
        let lex: Arc<Lexicon> = match kind.definition().default_lexicon.as_str() {
            "" => Arc::new(debian(&name).0.clone()),
            _ => Arc::new(crate::common::lexicon(kind).clone()),
        };
        let rules = Arc::new(Ruleset::new(kind));
        let levels = [BotLevel::Greedy, BotLevel::Weak];
        for seed in 0..games {
            let mut g = Game::new(GameConfig::new(rules.clone(), lex.clone(), 500 + seed)).unwrap();
            play_out(&mut g, &levels, 1000, |g| {
                let racks: Vec<Rack> =
                    (0..2).map(|s| g.rack((g.to_move() + s) % 2).copied().unwrap()).collect();
                let scores: Vec<i32> = (0..2).map(|s| g.scores()[(g.to_move() + s) % 2]).collect();
                let ops = cgp::Ops { ld: Some(name.clone()), ..Default::default() };
                let c = cgp::from_board(g.board(), &racks, &scores, 0, ops);
                let text = cgp::write(&c);
                let back = cgp::parse(&text, None).unwrap_or_else(|e| panic!("{kind}: {e}\n{text}"));
                assert_eq!(
                    (&back.grid, &back.racks, &back.scores),
                    (&c.grid, &c.racks, &c.scores),
                    "{kind}\n{text}"
                );
                assert_eq!(back.ruleset, kind, "{text}");
            })
            .unwrap();
            assert!(g.is_over(), "{kind} seed {seed}");
            // The same game stopped half way, as a player or a watcher downloads it while it is
            // on (a finished game's record shows every rack to everyone).
            let mut half = Game::new(GameConfig::new(rules.clone(), lex.clone(), 500 + seed)).unwrap();
            let turns = g.history().len() / 2;
            dawgref_engine::bot::play_while(&mut half, &levels, 1000, |h| h.history().len() < turns).unwrap();
            assert!(!half.is_over(), "{kind} seed {seed}");
            let names = ["uno".to_string(), "dos".to_string()];
            let views: [View; 4] = [
                ("director", &g, &|_| true),
                ("seat 0", &half, &|s| s == 0),
                ("seat 1", &half, &|s| s == 1),
                ("watcher", &half, &|_| false),
            ];
            for (who, g, shown) in views {
                let text = write_gcg_for(g, &names, shown, true);
                let record = gcg::parse(&text).unwrap_or_else(|e| panic!("{kind} {who}: {e}\n{text}"));
                let find = |n: &str| (n == lex.name()).then(|| lex.clone());
                let config = import_setup(&record, &ImportAsk::default(), find)
                    .unwrap_or_else(|e| panic!("{kind} {who}: {e}\n{text}"));
                assert_eq!(config.rules.kind, kind, "{who}: the record names its ruleset\n{text}");
                let back =
                    import_game(&record, config).unwrap_or_else(|e| panic!("{kind} {who}: {e}\n{text}"));
                assert_eq!(back.board().grid(), g.board().grid(), "{kind} {who}\n{text}");
                // A game that ends on scoreless turns counts the racks then held, which the
                // record's penalty lines name: the replay gives each seat its rack before the last
                // move. Only an exchange as that last move draws the mover a rack no line shows
                // (its penalty then counts another rack), and only there are the scores compared
                // before the penalties.
                let exchange_last = ends_on_an_exchange(g);
                if exchange_last {
                    assert_eq!(before_penalties(&back), before_penalties(g), "{kind} {who}\n{text}");
                    drawn_unseen += 1;
                } else {
                    assert_eq!(back.scores(), g.scores(), "{kind} {who}\n{text}");
                }
                assert_eq!(back.is_over(), g.is_over(), "{kind} {who}\n{text}");
                checked += 1;
            }
            // The finished game's record with racks struck, as a record kept by hand shows
            // them (every rack, one seat's, the last one), imports as it is written: each line's
            // score and total, the end's rack points, the end (issue 72).
            let text = write_gcg(&g, &names);
            let moves = gcg::parse(&text).unwrap().moves;
            let last_rack = moves.iter().rev().find(|m| m.rack.is_some()).map(|m| m.line);
            let end_lines = moves.iter().position(|m| matches!(m.kind, gcg::MoveKind::EndRack { .. }));
            let strikes: [crate::common::Strike; 4] = [
                ("every rack", &|_| true),
                ("seat 0's racks", &|m| m.nick == "uno"),
                ("seat 1's racks", &|m| m.nick == "dos"),
                ("the last rack", &|m| Some(m.line) == last_rack),
            ];
            for (which, strike) in strikes {
                let struck = crate::common::strike_racks(&text, strike);
                let record = gcg::parse(&struck).unwrap();
                let find = |n: &str| (n == lex.name()).then(|| lex.clone());
                let config = import_setup(&record, &ImportAsk::default(), find)
                    .unwrap_or_else(|e| panic!("{kind} {which}: {e}\n{struck}"));
                let back =
                    import_game(&record, config).unwrap_or_else(|e| panic!("{kind} {which}: {e}\n{struck}"));
                back.check_invariants().unwrap_or_else(|e| panic!("{kind} {which}: {e}\n{struck}"));
                assert_eq!(back.board().grid(), g.board().grid(), "{kind} {which}\n{struck}");
                let written = crate::common::scored_lines(&write_gcg(&back, &names));
                let wanted = crate::common::scored_lines(&text);
                if ends_on_an_exchange(&g) {
                    // The exchanger's penalty counts a rack it drew unseen; the lines before the
                    // end's are the record's.
                    let end = end_lines.unwrap_or(wanted.len());
                    assert_eq!(written[..end], wanted[..end], "{kind} {which}\n{struck}");
                    assert_eq!(before_penalties(&back), before_penalties(&g), "{kind} {which}\n{struck}");
                    drawn_unseen += 1;
                } else {
                    assert_eq!(written, wanted, "{kind} {which}\n{struck}");
                    assert_eq!(back.scores(), g.scores(), "{kind} {which}\n{struck}");
                }
                let reason = |x: &Game| x.outcome().map(|o| o.reason);
                assert_eq!(reason(&back), reason(&g), "{kind} {which}\n{struck}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 8 * games as usize * RulesetKind::all().len());
    eprintln!(
        "{checked} records read back in {:.1} s ({drawn_unseen} ended on an exchange: scores before the penalties compared)",
        started.elapsed().as_secs_f64()
    );
}

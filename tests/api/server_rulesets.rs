//! Rulesets by name over the API: ListRulesets says what each is, a Catalan record is replayed
//! with its L·L tile, CreateGame takes `ruleset_name` and refuses what does not fit with exact
//! codes, and the binary adds a ruleset file and a word list from its command line.

use crate::common;

use common::binary::serve_on_free_port;
use common::server::*;
use dawgref::proto::v1 as pb;
use dawgref::proto::v1::lexicons_service_client::LexiconsServiceClient;
use dawgref::rules::RulesetKind;
use tonic::Code;

fn catalan() -> RulesetKind {
    RulesetKind::by_name("catalan").unwrap()
}

#[tokio::test]
async fn list_rulesets_says_what_each_ruleset_is() {
    let srv = start_catalan().await;
    let mut l = srv.lexicons().await;
    let all = l.list_rulesets(pb::ListRulesetsRequest {}).await.unwrap().into_inner().rulesets;
    let names: Vec<&str> = all.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "english",
            "russian",
            "erudit",
            "catalan",
            "dutch",
            "french",
            "german",
            "norwegian",
            "polish",
            "spanish",
            "swedish",
            "super-english"
        ]
    );
    let en = &all[0];
    assert_eq!(
        (en.ruleset, en.default_lexicon.as_str(), en.leaves.as_str()),
        (pb::Ruleset::English as i32, "en", "learned")
    );
    assert_eq!((en.blanks, en.rack_size, en.bingo_bonus, en.board_size), (2, 7, 50, 15));
    assert_eq!(en.premiums[0], "T..d...T...d..T");
    assert_eq!(en.premiums[7], "T..d...D...d..T");
    let erudit = &all[2];
    assert_eq!((erudit.no_repeated_words, erudit.scoreless_turn_limit, erudit.bingo_bonus), (true, 4, 15));
    assert_eq!(erudit.premiums[7], "T..d.......d..T");
    let ca = &all[3];
    // Every shipped ruleset plays by a learned table (issue 60).
    assert_eq!((ca.ruleset, ca.default_lexicon.as_str(), ca.leaves.as_str()), (0, "", "learned"));
    assert!(
        all.iter().all(|r| r.leaves == "learned"),
        "{:?}",
        all.iter().map(|r| &r.leaves).collect::<Vec<_>>()
    );
    assert_eq!((ca.alphabet.as_str(), ca.tiles.len(), ca.source.as_str()), ("catalan", 26, "shipped"));
    let ll = ca.tiles.iter().find(|t| t.label == "L·L").unwrap();
    assert_eq!(
        ll,
        &pb::TileInfo {
            label: "L·L".into(),
            blank_label: "l·l".into(),
            count: 1,
            value: 10,
            vowel: false,
            aliases: vec!["W".into()]
        }
    );
    assert_eq!((ca.start_row, ca.start_col), (7, 7));
    // ListLexicons says which rulesets each lexicon plays in.
    let lexicons = l.list_lexicons(pb::ListLexiconsRequest {}).await.unwrap().into_inner().lexicons;
    let rulesets_of = |name: &str| lexicons.iter().find(|x| x.name == name).unwrap().rulesets.clone();
    // Super English has English's tiles, so it plays English's lexicon.
    assert_eq!(rulesets_of("en"), ["english", "super-english"]);
    assert_eq!(rulesets_of("cat-test"), ["catalan"]);
    srv.stop().await;
}

/// Worked by hand: ALA through the centre (3 × 2 = 6), then COL·LA down G with L·L on G7's
/// double letter (2 + 1 + 20 + 1 = 24).
#[tokio::test]
async fn a_catalan_record_is_replayed_with_its_l_l_tile() {
    let srv = start_catalan().await;
    let mut g = srv.games().await;
    let gcg = "#character-encoding UTF-8\n#player1 ana Ana\n#player2 bo Bo\n#lexicon cat-test\n\
               >ana: AAL 8G ALA +6 6\n>bo: CO[L·L] G5 CO[L·L]. +24 24\n";
    let r = g
        .import_gcg(pb::ImportGcgRequest {
            gcg: gcg.into(),
            ruleset_name: "catalan".into(),
            lexicon: "cat-test".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.mismatches, vec![]);
    let v = view_of(&mut g, pb::GetGameRequest { game_id: r.game_id.clone() }).await;
    assert_eq!((v.ruleset, v.ruleset_name.as_str(), v.lexicon.as_str()), (0, "catalan", "cat-test"));
    assert_eq!(v.seats.iter().map(|s| s.score).collect::<Vec<_>>(), [6, 24]);
    let board = v.board.unwrap();
    assert_eq!(board.rows[4], "......C........");
    assert_eq!(board.rows[6], "......[L·L]........");
    let ll = catalan().alphabet().parse_word("L·L").unwrap()[0];
    assert_eq!(board.grid[6 * 15 + 6], ll + 1);
    // The record comes back as it went in.
    let back = g.export_gcg(pb::ExportGcgRequest { game_id: r.game_id }).await.unwrap().into_inner().gcg;
    assert!(back.contains("G5 CO[L·L]. +24 24"), "{back}");
    srv.stop().await;
}

#[tokio::test]
async fn create_game_takes_a_ruleset_by_name_and_refuses_what_does_not_fit() {
    let srv = start_catalan().await;
    let mut g = srv.games().await;
    let request = |ruleset: pb::Ruleset, name: &str, lexicon: &str| pb::CreateGameRequest {
        ruleset_name: name.into(),
        lexicon: lexicon.into(),
        ..create(ruleset, pb::ChallengeRule::Double, vec![human("Ana"), human("Bo")], 5)
    };
    let created =
        g.create_game(request(pb::Ruleset::Unspecified, "Catalan", "cat-test")).await.unwrap().into_inner();
    let v = created.view.unwrap();
    assert_eq!((v.ruleset, v.ruleset_name.as_str(), v.bag), (0, "catalan", 100 - 14));
    // The enum and the name agree, or the name is refused.
    let same = g.create_game(request(pb::Ruleset::English, "en", "")).await.unwrap().into_inner();
    assert_eq!(same.view.unwrap().ruleset_name, "english");
    let refused = |r: Result<tonic::Response<pb::CreateGameResponse>, tonic::Status>| {
        let s = r.unwrap_err();
        (s.code(), s.message().to_string())
    };
    assert_eq!(
        refused(g.create_game(request(pb::Ruleset::Russian, "catalan", "cat-test")).await),
        (
            Code::InvalidArgument,
            "ruleset_name: catalan disagrees with ruleset russian; give one, or the same ruleset twice"
                .into()
        )
    );
    let (code, message) = refused(g.create_game(request(pb::Ruleset::Unspecified, "klingon", "")).await);
    assert_eq!(code, Code::InvalidArgument);
    assert!(
        message.starts_with(
            "ruleset_name: unknown ruleset \"klingon\" (known: english, russian, erudit, catalan"
        ),
        "{message}"
    );
    assert_eq!(
        refused(g.create_game(request(pb::Ruleset::Unspecified, "catalan", "")).await),
        (
            Code::InvalidArgument,
            "lexicon: the catalan ruleset has no lexicon of its own: name one of its alphabet (ListLexicons)"
                .into()
        )
    );
    assert_eq!(
        refused(g.create_game(request(pb::Ruleset::Unspecified, "catalan", "en")).await),
        (Code::InvalidArgument, "lexicon: lexicon en is en, the ruleset needs catalan".into())
    );
    srv.stop().await;
}

/// `dawgref serve --ruleset FILE --word-list NAME=RULESET:FILE`: a MAGPIE letter distribution
/// becomes a ruleset named after its file, the word list is split in its tiles, and the words
/// that could not be are listed beside the lexicon cache.
#[tokio::test]
async fn the_binary_adds_a_ruleset_file_and_a_word_list() {
    let dir = TempDir::new("rulesets-cli");
    let csv = dir.0.join("club_tiles.csv");
    std::fs::write(&csv, "?,?,2,0,0\nA,a,20,1,1\nB,b,20,3,0\nCH,ch,10,5,0\nO,o,20,1,1\n").unwrap();
    let words = dir.0.join("words.txt");
    std::fs::write(&words, "bo\nchao\naba\nzoo\n").unwrap();
    let cache = dir.0.join("lexicons");
    let (mut child, port) = serve_on_free_port(|port| {
        common::binary::serve(port)
            .arg("--data-dir")
            .arg(":memory:")
            .arg("--lexicon-cache")
            .arg(&cache)
            .arg("--ruleset")
            .arg(&csv)
            .arg("--word-list")
            .arg(format!("club=club-tiles:{}", words.display()))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    })
    .await;
    let mut l = LexiconsServiceClient::connect(format!("http://127.0.0.1:{port}")).await.unwrap();
    let rulesets = l.list_rulesets(pb::ListRulesetsRequest {}).await.unwrap().into_inner().rulesets;
    let club = rulesets.iter().find(|r| r.name == "club-tiles").unwrap();
    assert_eq!(club.source, csv.display().to_string());
    // A letter distribution names no leave table: its bots play by the fallback.
    assert_eq!(club.leaves, "fallback");
    assert_eq!(club.tiles.iter().map(|t| t.label.as_str()).collect::<Vec<_>>(), ["A", "B", "CH", "O"]);
    let lexicons = l.list_lexicons(pb::ListLexiconsRequest {}).await.unwrap().into_inner().lexicons;
    let lex = lexicons.iter().find(|x| x.name == "club").unwrap();
    assert_eq!((lex.words, lex.rulesets.clone()), (3, vec!["club-tiles".to_string()]));
    assert_eq!(std::fs::read_to_string(cache.join("club.skipped.txt")).unwrap(), "zoo\n");
    child.kill().unwrap();
    child.wait().unwrap();
    // A word list in a ruleset the server does not know stops it with one line.
    let out = common::binary::serve(0)
        .arg("--data-dir")
        .arg(":memory:")
        .arg("--word-list")
        .arg(format!("club=klingon:{}", words.display()))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--word-list club: unknown ruleset \"klingon\""), "{stderr}");
}

/// The log line of a word list names the list of words that could not be split only when one
/// was written (issue 72: without a lexicon cache it printed an empty `skipped_list=`).
#[tokio::test]
async fn a_word_lists_log_names_its_skipped_list_only_when_there_is_one() {
    let dir = TempDir::new("rulesets-log");
    let words = dir.0.join("words.txt");
    std::fs::write(&words, "cat\ndog\nzoë\n").unwrap();
    let cache = dir.0.join("lexicons");
    let logged = |cache: &std::path::Path| {
        let cache = cache.to_path_buf();
        let words = words.clone();
        async move {
            let (child, _) = serve_on_free_port(|port| {
                common::binary::serve(port)
                    .env("RUST_LOG", "dawgref::server::wordlists=info")
                    .arg("--data-dir")
                    .arg(":memory:")
                    .arg("--lexicon-cache")
                    .arg(&cache)
                    .arg("--word-list")
                    .arg(format!("mine=english:{}", words.display()))
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .await;
            let mut child = child;
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            stdout
                .lines()
                .find(|l| l.contains("word list compiled"))
                .unwrap_or_else(|| panic!("{stdout}"))
                .to_string()
        }
    };
    let with_cache = logged(&cache).await;
    let list = cache.join("mine.skipped.txt");
    assert!(with_cache.ends_with(&format!("unsplittable=1 skipped_list={}", list.display())), "{with_cache}");
    let without = logged(std::path::Path::new("")).await;
    assert!(without.ends_with("unsplittable=1"), "{without}");
    assert!(!without.contains("skipped_list"), "{without}");
}

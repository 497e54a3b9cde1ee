//! The guides' examples run as they are written: every block fenced as `sh tested` in
//! `docs/*.md`, in order, by bash against the real binary (a fresh server per guide, with a
//! director token), so that a renamed RPC, field or enum value fails here before a reader meets
//! it. grpcurl is played by `tests/docs/grpcurl` over buf curl (pinned, `scripts/buf`); the
//! examples read answers with jq, which `scripts/test` installs.

use crate::common::binary::{serve, serve_on_free_port};
use std::path::Path;
use std::process::{Command, Stdio};

/// The address the guides' examples name; the test's server is elsewhere.
const DOCUMENTED: &str = "127.0.0.1:50051";
const DIRECTOR_TOKEN: &str = "guide-director-token";

/// The blocks fenced `sh tested` in a guide, in order.
fn tested_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut open: Option<String> = None;
    for line in text.lines() {
        match &mut open {
            None if line.trim_end() == "```sh tested" => open = Some(String::new()),
            None => {}
            Some(_) if line.trim_end() == "```" => blocks.push(open.take().unwrap_or_default()),
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    assert!(open.is_none(), "a `sh tested` block is never closed");
    blocks
}

/// Run a guide's tested blocks against a server of its own; what they printed.
async fn run_guide(name: &str) -> String {
    run_guide_with(name, &[]).await
}

/// [`run_guide`], the server started with `args` beside the usual ones.
async fn run_guide_with(name: &str, args: &[&str]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("docs").join(format!("{name}.md"))).unwrap();
    let blocks = tested_blocks(&text);
    assert!(!blocks.is_empty(), "docs/{name}.md has no `sh tested` block");
    assert!(
        Command::new("jq").arg("--version").stdout(Stdio::null()).status().is_ok_and(|s| s.success()),
        "the guides' examples need jq (scripts/test installs it)"
    );
    let (mut server, port) = serve_on_free_port(|port| {
        serve(port)
            .args(["--data-dir", ":memory:"])
            .args(args)
            .env("DAWGREF_DIRECTOR_TOKEN", DIRECTOR_TOKEN)
            .stdout(Stdio::null())
            .spawn()
            .unwrap()
    })
    .await;
    let script =
        format!("set -euo pipefail\n{}", blocks.concat()).replace(DOCUMENTED, &format!("127.0.0.1:{port}"));
    let path = format!("{}:{}", root.join("tests/docs").display(), std::env::var("PATH").unwrap_or_default());
    let buf = root.join("scripts/buf");
    let out = tokio::task::spawn_blocking(move || {
        Command::new("bash")
            .args(["-c", &script])
            .env("PATH", path)
            .env("DAWGREF_BUF", buf)
            .env("DAWGREF_DIRECTOR_TOKEN", DIRECTOR_TOKEN)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let _ = server.kill();
    let _ = server.wait();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "docs/{name}.md's examples failed:\n{stdout}\n{stderr}");
    stdout.into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_players_guide_plays_a_game_against_the_bot() {
    let out = run_guide("players").await;
    assert!(out.contains("dawgref.v1.GamesService"), "{out}");
    // The play made, and the resignation that ended the game.
    assert!(out.contains("\"turn\": 1"), "{out}");
    assert!(out.contains("seat 0 resigned"), "{out}");
    assert!(out.contains("#player1 "), "the game's record: {out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_bots_guide_registers_a_bot_that_is_challenged_plays_is_rated_and_enters_an_arena() {
    let out = run_guide("bots").await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..5],
        [
            "TIME_CLASS_BLITZ",
            "[[\"my-bot\",true,\"TIME_CLASS_BLITZ\",1608],[\"Bo Baker\",false,\"TIME_CLASS_BLITZ\",1392]]",
            "CHALLENGE_STATE_DECLINED",
            "100,20",
            "1,\"challenged\"",
        ],
        "{out}"
    );
    assert_eq!(
        lines[5..10],
        [
            "2,\"challengeClosed\"",
            "3,\"gameStarted\"",
            "4,\"gameEnded\"",
            "5,\"challenged\"",
            "6,\"challengeClosed\"",
        ],
        "{out}"
    );
    // The arena: the bot entered by its account, a person refused, the round's game told on its
    // stream, and its own token the player's.
    assert_eq!(
        lines[10..],
        [
            "[[\"my-bot\",\"my-bot\"],[\"Sparky\",\"\"]]",
            "player: division a admits only bots",
            "[\"7\",\"bot-night\",1,\"Sparky\"]",
            "[1,36]",
        ],
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_directors_guide_runs_a_round_with_a_key() {
    let out = run_guide("directors").await;
    assert!(out.contains("[0,10]"), "the adjusted scores: {out}");
    assert!(out.contains("ann") && out.contains("bob"), "the results: {out}");
    assert!(out.lines().any(|l| l == "spring-td"), "the revoked key: {out}");
    // The division run on its players' reports: Di's reserved table, the two reports (waiting,
    // then entered), and the prizes from the standings.
    let reported = [
        "9",
        "[[1,2,1],[3,4,9]]",
        "2",
        "REPORT_STATE_WAITING",
        r#"["REPORT_STATE_ENTERED",[402,371]]"#,
        r#"[true,[["1st place",4,"1-0 +75"],["High game",4,"round 1: 455-380 v Cy"]]]"#,
    ];
    let at =
        out.lines().position(|l| l == "[[1,2,1],[3,4,9]]").unwrap_or_else(|| panic!("the tables: {out}"));
    assert_eq!(out.lines().skip(at - 1).take(reported.len()).collect::<Vec<_>>(), reported, "{out}");
    // Check-in: Ann's own, who has not checked in, the absent withdrawn, round 1 of those who came.
    let checked = ["true", r#"["Bo","Di"]"#, "[2,4]", "[[1,3]]"];
    let at = out.lines().position(|l| l == r#"["Bo","Di"]"#).unwrap_or_else(|| panic!("check-in: {out}"));
    assert_eq!(out.lines().skip(at - 1).take(checked.len()).collect::<Vec<_>>(), checked, "{out}");
    // The broadcast: its delay, the director's view now (1 event), the spectator's (no game yet:
    // made less than the delay ago).
    let lines: Vec<&str> = out.lines().collect();
    let at = lines.iter().position(|l| *l == "900").unwrap_or_else(|| panic!("the broadcast's delay: {out}"));
    assert_eq!(lines[at + 1..at + 4], ["1", "no game yet", "true"], "{out}");
    // The log and the statistics of the club night: Ann's one event, the results as CSV, the
    // high game, one line a player (each game on the server, ended by the director's result
    // before any move: no game of theirs counted for bingos).
    assert_eq!(
        lines[at + 4..],
        [
            r#"[["3","result","director","Bo Baker 412 – Ann Archer 388"]]"#,
            "number,kind,division,round,pairing,players,by,detail",
            "3,result,a,1,1,2 1,director,Bo Baker 412 – Ann Archer 388",
            "4,result,a,1,2,3 4,director,Cy Cole 350 – Di Dunn 401",
            "",
            r#"{"round":1,"pairing":1,"player":2,"opponent":1,"score":412,"opponentScore":388}"#,
            "player,name,games,points_for,points_against,average_for,average_against,high_game,firsts,performance_rating,bingos,bingo_games",
            "1,Ann Archer,1,388,412,388.00,412.00,388,0,777,0,0",
            "2,Bo Baker,1,412,388,412.00,388.00,412,1,2724,0,0",
            "3,Cy Cole,1,350,401,350.00,401.00,350,1,577,0,0",
            "4,Di Dunn,1,401,350,401.00,350.00,401,0,2524,0,0",
            // Eve, who came late (the plan changed above), has played no game yet.
            "5,Eve Evans,0,0,0,0.00,0.00,,0,,0,0",
            "",
            // Round 1's two games reviewed as jobs, each done, one answered from the store.
            "[2,50]",
            r#"[2,2,["REVIEW_JOB_STATE_DONE","REVIEW_JOB_STATE_DONE"]]"#,
            "[true,true]",
        ],
        "{out}"
    );
    // The club night: four tokens, King of the Hill, two games, the standings, Swiss, TSH.
    let after_key: Vec<&str> = out
        .lines()
        .skip_while(|l| *l != "spring-td")
        .skip(1)
        .take_while(|l| !["900", "ratings:"].contains(l))
        .collect();
    let (club, plan) = after_key.split_at(10.min(after_key.len()));
    assert_eq!(
        club,
        [
            "4",
            "[[1,2],[3,4]]",
            "2",
            "[[4,1,51],[2,1,24],[1,0,-24],[3,0,-51]]",
            "[[2,4],[1,3]]",
            "Ann Archer 1800 2 3; 388; p12 2 1; board 1 2",
            "Bo Baker 1700 1 4; 412; p12 1 2; board 1 1",
            "Cy Cole 1600 4 1; 350; p12 1 2; board 2 2",
            "Di Dunn 1500 3 2; 401; p12 2 1; board 2 1",
            "",
        ],
        "{out}"
    );
    // The plan changed: a third round, round 2 taken back, Eve in with -50 for round 1, round 2
    // paired again with her, round 1 (started, results in) kept, and Eve's line in the file.
    assert_eq!(
        plan,
        [
            "3",
            "false",
            "5",
            "[[4,2],[1,5],[3,0]]",
            "failed_precondition: round 1 has started: its games are made, and its pairings stand",
            "Eve Evans 1400 0 1; -50; p12 0 2; board 0 2",
        ],
        "{out}"
    );
    // Ratings: Ann 1500 beats Bo 1600: 1518 and 1589 (the guide's arithmetic), and the file.
    let ratings: Vec<&str> = out.lines().skip_while(|l| *l != "ratings:").skip(1).take(5).collect();
    assert_eq!(
        ratings,
        [
            "[[1,1500,1518],[2,1600,1589]]",
            "player,name,rating,lifetime_games,rated_games,wins,estimate,change",
            "1,Ann Archer,1500,100,1,1,1518,+18",
            "2,Bo Baker,1600,100,1,0,1589,-11",
            "",
        ],
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_analysts_guide_judges_finds_and_generates() {
    let out = run_guide("analysts").await;
    assert!(out.contains(r#"{"word":"QUIXOTIC","valid":true}"#), "{out}");
    assert!(out.contains(r#"{"word":"ZYZZYVAX","valid":false}"#), "{out}");
    assert!(out.lines().any(|l| l == "NASTIER"), "the anagrams: {out}");
    assert!(out.contains(r#"{"play":"8B ANESTRI","score":66}"#), "the best plays: {out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_rulesets_guide_plays_catalan_and_spanish_from_word_lists() {
    let lists = [
        "--word-list",
        "dicc=catalan:/usr/share/dict/catalan",
        "--word-list",
        "es=spanish:/usr/share/dict/spanish",
    ];
    let out = run_guide_with("rulesets", &lists).await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "L·L 1 10 W",
            "dicc",
            "catalan dicc 86",
            "invalid_argument: ruleset_name: unknown ruleset \"klingon\" (known: english, russian, erudit, \
             catalan, dutch, french, german, norwegian, polish, spanish, swedish, super-english) \
             (ListRulesets)",
            // The Spanish game: the rack, and CHORRO played from it (issue 72: the guide's
            // play had been CHORREA, a word Debian's list does not hold).
            "[CH]E[LL]OO[RR]S",
            "8H [CH]O[RR]O 30",
        ],
        "{out}"
    );
}

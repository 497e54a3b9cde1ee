//! Scorecards and pairing sheets to print (issue 83, item 4): `/tournaments/<slug>/print`, a
//! scorecard a player (each round's opponent, first or second, table, boxes for the scores, the
//! spread and the running record, filled in where the result is in) and each paired round's
//! pairing sheet by name; A4 and US Letter, a card to a page, no browser chrome; in English and
//! in Russian; linked from the tournament's page.
//!
//! A division of 9 players (a bye each round) and 3 rounds: round 1 paired with one player's
//! table reserved and its results in (three games and a forfeit), round 2 paired, round 3 not.
//! Every row of every card and sheet the page shows is checked against the server's own answers,
//! exact, the running record against the standings. Then Chromium prints the page
//! to PDF (WebDriver's print command), read back: a page a card exactly, each holding one card's
//! title, 595×842 pt on A4 and 612×792 on Letter (to a point), and nothing of the browser's (no URL, no
//! title, no date). The PDFs and a screenshot of the screen view go to `target/screenshots/`.

use crate::common;

use crate::browser::*;
use crate::web_hall::{division, record};
use common::server::*;
use dawgref::proto::v1 as pb;
use fantoccini::Client;
use fantoccini::wd::{PrintConfiguration, PrintSize};
use serde_json::{Value, json};

const ROOT: &str = "director-secret";

/// The players, in seed order: names whose alphabetical order is not their code points' ("de
/// Vries" between "Cole" and "Dunn", "Ёлкин" between "Егорова" and "Жуков").
fn players(lang: &str) -> Vec<&'static str> {
    if lang == "ru" {
        vec![
            "Щукина Д.",
            "Абрамов А.",
            "Ёлкин Б.",
            "Егорова В.",
            "Жуков Г.",
            "Белова Е.",
            "Иванов Ж.",
            "Волков З.",
            "Зайцева И.",
        ]
    } else {
        vec![
            "Young Ann",
            "Archer Bo",
            "de Vries Cy",
            "Baker Di",
            "Dunn Ed",
            "Cole Flo",
            "Evans Gus",
            "Ng Hal",
            "Quinn Ivy",
        ]
    }
}

fn signed(n: i64) -> String {
    if n > 0 { format!("+{n}") } else { n.to_string() }
}

/// A player as a card names an opponent: name and number.
fn named(lang: &str, d: &pb::TournamentDivision, n: u32) -> String {
    format!("{} ({}{n})", d.players[n as usize - 1].name, say(lang, "#", "№"))
}

/// The rows of player `me`'s scorecard as the page must show them: round, opponent, first or
/// second, table, my score, opponent's score (one cell saying the forfeit instead), spread,
/// won–lost and total spread while every round before is in.
fn card_rows(lang: &str, d: &pb::TournamentDivision, me: u32) -> Vec<Vec<String>> {
    let forfeit = i64::from(d.controls.as_ref().and_then(|c| c.forfeit_spread).unwrap_or(50));
    let (mut wins, mut losses, mut total, mut known) = (0.0, 0, 0i64, true);
    let mut rows = Vec::new();
    for r in &d.rounds {
        let mut row = vec![r.number.to_string()];
        let p = r.pairings.iter().find(|p| p.first == me || p.second == me);
        let mut spread = None;
        match p {
            _ if !r.paired => row.extend(["", "", "", "", ""].map(String::from)),
            None => panic!("every active player is paired"),
            Some(p) if p.second == 0 => {
                let bye = if p.bye_spread >= 0 {
                    say(lang, "bye", "без пары")
                } else {
                    say(lang, "absent", "неявка")
                };
                row.extend([bye, "", "", "", ""].map(String::from));
                spread = Some(i64::from(p.bye_spread));
            }
            Some(p) => {
                let first = p.first == me;
                let them = if first { p.second } else { p.first };
                row.push(named(lang, d, them));
                row.push(
                    if first {
                        say(lang, "first", "первый")
                    } else {
                        say(lang, "second", "второй")
                    }
                    .into(),
                );
                row.push(if p.table == 0 { String::new() } else { p.table.to_string() });
                if !p.done {
                    row.extend([String::new(), String::new()]);
                } else if p.forfeited_by != 0 {
                    let lost = p.forfeited_by == me;
                    row.push(
                        if lost {
                            say(lang, "lost by forfeit", "тех. поражение")
                        } else {
                            say(lang, "won by forfeit", "тех. победа")
                        }
                        .into(),
                    );
                    spread = Some(if lost { -forfeit } else { forfeit });
                } else {
                    let (a, b) = if first { (p.scores[0], p.scores[1]) } else { (p.scores[1], p.scores[0]) };
                    row.extend([a.to_string(), b.to_string()]);
                    spread = Some(i64::from(a - b));
                }
            }
        }
        match spread {
            None => {
                known = false;
                row.extend([String::new(), String::new(), String::new()]);
            }
            Some(s) => {
                row.push(signed(s));
                if known {
                    match s.signum() {
                        1 => wins += 1.0,
                        -1 => losses += 1,
                        _ => wins += 0.5,
                    }
                    total += s;
                    row.extend([format!("{wins}–{losses}"), signed(total)]);
                } else {
                    row.extend([String::new(), String::new()]);
                }
            }
        }
        rows.push(row);
    }
    rows
}

/// Round `round`'s pairing sheet as the page must show it: a row a player by name, their table,
/// opponent, first or second.
fn sheet_rows(lang: &str, d: &pb::TournamentDivision, round: usize) -> Vec<Vec<String>> {
    let name = |n: u32| d.players[n as usize - 1].name.clone();
    let mut rows = Vec::new();
    for p in &d.rounds[round - 1].pairings {
        let table = if p.table == 0 { String::new() } else { p.table.to_string() };
        if p.second == 0 {
            rows.push(vec![name(p.first), table, say(lang, "bye", "без пары").into(), String::new()]);
            continue;
        }
        rows.push(vec![name(p.first), table.clone(), name(p.second), say(lang, "first", "первый").into()]);
        rows.push(vec![name(p.second), table, name(p.first), say(lang, "second", "второй").into()]);
    }
    rows.sort_by_key(|r| alpha_key(&r[0]));
    rows
}

/// What the print page shows: each card's and sheet's division, player or round, title and
/// rows, once it is drawn.
async fn shown(c: &Client) -> Option<Value> {
    let v = script(
        c,
        "const pages = document.getElementById('print-pages');
         if (!pages || pages.dataset.ready !== 'true') return null;
         const cells = (el) => [...el.querySelectorAll('tbody tr')].map((tr) => [...tr.cells].map((td) => td.textContent));
         return {
           cards: [...pages.querySelectorAll('.print-card')].map((c) => ({
             player: Number(c.dataset.player), division: c.dataset.division,
             event: c.querySelector('.print-event').textContent, title: c.querySelector('.print-title').textContent,
             heads: [...c.querySelectorAll('thead th')].map((th) => th.textContent), rows: cells(c) })),
           sheets: [...pages.querySelectorAll('.print-pairings')].map((s) => ({
             round: Number(s.dataset.round), title: s.querySelector('.print-title').textContent,
             heads: [...s.querySelectorAll('thead th')].map((th) => th.textContent), rows: cells(s) })),
           order: [...pages.children].map((e) => e.classList.contains('print-card') ? 'card' : 'sheet'),
           bar: getComputedStyle(document.getElementById('print-bar')).display,
         };",
    )
    .await;
    (!v.is_null()).then_some(v)
}

/// A printed PDF read back: each page's size (its MediaBox's width and height, in points) and
/// text.
fn pdf_pages(pdf: &[u8]) -> Vec<((f64, f64), String)> {
    let doc = lopdf::Document::load_mem(pdf).expect("a PDF");
    let number =
        |o: &lopdf::Object| o.as_float().map(f64::from).or_else(|_| o.as_i64().map(|i| i as f64)).unwrap();
    (doc.get_pages().into_iter())
        .map(|(n, id)| {
            let page = doc.get_dictionary(id).unwrap();
            let media = page.get(b"MediaBox").and_then(|b| b.as_array()).expect("the page's MediaBox");
            let v: Vec<f64> = media.iter().map(number).collect();
            let size = (v[2] - v[0], v[3] - v[1]);
            (size, doc.extract_text(&[n]).unwrap_or_else(|e| panic!("page {n}'s text: {e}")))
        })
        .collect()
}

/// Print the page shown to PDF on `paper` (WebDriver's print: no header, no footer), saved as
/// `name` under `target/screenshots/`.
async fn print(c: &Client, paper: PrintSize, name: &str) -> Vec<u8> {
    let config = PrintConfiguration::builder().size(paper).background(true).build().unwrap();
    let pdf = c.print(config).await.expect("a PDF");
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("../screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.pdf")), &pdf).unwrap();
    pdf
}

/// Text as compared: its runs of white space as one space (a PDF's text comes in lines).
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The print page of a division of 9 in English and in Russian: every card's and sheet's rows
/// exactly as the server has them, a card a page on A4 and on US Letter, the pages of the size
/// chosen, each card's title on its page alone, the sheets after the cards, nothing of the
/// browser's printed; the tournament's page links to it.
#[tokio::test]
async fn the_print_page_prints_a_scorecard_a_page_and_the_pairing_sheets_on_a4_and_letter() {
    let srv = start_directed(ROOT).await;
    let mut driver = Driver::start().await;
    for lang in ["en", "ru"] {
        let slug = format!("print-{lang}");
        let names = players(lang);
        let swiss = pb::PairingMethod::Swiss;
        let (mut t, _) =
            tournament(&srv, ROOT, (&slug, "Autumn cup"), &names, &[swiss, swiss, swiss], 11).await;
        // Player 5 keeps table 7.
        let reserve = pb::SetReservedTableRequest {
            slug: slug.clone(),
            division: "a".into(),
            player: 5,
            table: Some(7),
            request_id: String::new(),
        };
        t.set_reserved_table(authed(reserve, ROOT)).await.unwrap();
        let pair = |round| pb::PairRoundRequest {
            slug: slug.clone(),
            division: "a".into(),
            round,
            ..Default::default()
        };
        t.pair_round(authed(pair(1), ROOT)).await.unwrap();
        for k in 1..=3 {
            let scores = pb::FinalScores { first: 380 + k * 11, second: 420 - k * 23 };
            record(&srv, &slug, k as u32, pb::record_result_request::Result::Scores(scores)).await;
        }
        let d = division(&srv, &slug).await;
        let forfeiter = d.rounds[0].pairings[3].first;
        record(&srv, &slug, 4, pb::record_result_request::Result::ForfeitedBy(forfeiter)).await;
        t.pair_round(authed(pair(2), ROOT)).await.unwrap();
        let d = division(&srv, &slug).await;
        assert!(d.rounds[0].pairings.iter().all(|p| p.done), "{lang}: round 1 is in");
        assert!(d.rounds[1].paired && !d.rounds[2].paired, "{lang}: round 2 paired, round 3 not");
        assert!(
            (d.rounds[0].pairings.iter()).any(|p| p.table == 7 && (p.first == 5 || p.second == 5)),
            "{lang}: player 5 at the reserved table"
        );

        let c = if lang == "en" { driver.browser().await } else { driver.browser_in(lang).await };
        c.goto(&format!("{}/tournaments/{slug}/print", srv.url)).await.unwrap();
        let v = wait_until(&format!("{lang}: the print page"), || shown(&c), |_| true).await;

        // The cards, a player each in number order, then the sheets of rounds 1 and 2.
        let order: Vec<&str> = v["order"].as_array().unwrap().iter().map(|o| o.as_str().unwrap()).collect();
        assert_eq!(order, [vec!["card"; 9], vec!["sheet"; 2]].concat(), "{lang}: the cards, then the sheets");
        let heads = json!(match lang {
            "ru" => [
                "Тур",
                "Соперник",
                "Ход",
                "Стол",
                "Мои очки",
                "Счёт соперника",
                "Разница",
                "Поб.–пор.",
                "Общая разница"
            ],
            _ => [
                "Round",
                "Opponent",
                "Plays",
                "Table",
                "My score",
                "Opponent's score",
                "Spread",
                "Won–lost",
                "Total spread"
            ],
        });
        let event = format!("Autumn cup · {}", say(lang, "Division a", "Группа a"));
        for (i, card) in v["cards"].as_array().unwrap().iter().enumerate() {
            let me = i as u32 + 1;
            let player = &d.players[i];
            let what = format!("{lang}: {}'s card", player.name);
            assert_eq!(card["player"], json!(me), "{what}");
            assert_eq!(card["event"], json!(event), "{what}");
            let title = format!(
                "{} {}{me} {}",
                player.name,
                say(lang, "#", "№"),
                say(lang, "Rating 1500", "Рейтинг 1500")
            );
            assert_eq!(card["title"], json!(title), "{what}");
            assert_eq!(card["heads"], heads, "{what}");
            let rows: Vec<Vec<String>> = serde_json::from_value(card["rows"].clone()).unwrap();
            assert_eq!(rows, card_rows(lang, &d, me), "{what}");
            // The running record as it stands is the standings' (all of round 1 is in, and round
            // 2's bye counts once paired).
            let st = d.standings.iter().find(|s| s.player == me).unwrap();
            let last = rows.iter().rev().find(|r| !r[r.len() - 1].is_empty()).expect("a record");
            let n = last.len();
            assert_eq!(
                (&last[n - 2], &last[n - 1]),
                (&format!("{}–{}", st.wins, st.losses), &signed(st.spread)),
                "{what}: the record"
            );
            assert!(!rows[0][rows[0].len() - 1].is_empty(), "{what}: round 1's record: {rows:?}");
            // Round 2 paired, its boxes empty but for a bye; round 3 blank.
            let bye = d.rounds[1].pairings.iter().any(|p| p.first == me && p.second == 0);
            let n = rows[1].len();
            assert!(!rows[1][1].is_empty(), "{what}: round 2 paired: {rows:?}");
            assert_eq!(rows[1][n - 3..].iter().all(String::is_empty), !bye, "{what}: {rows:?}");
            assert!(rows[2][1..].iter().all(String::is_empty), "{what}: round 3 not paired: {rows:?}");
        }
        let sheets = v["sheets"].as_array().unwrap();
        for (k, sheet) in sheets.iter().enumerate() {
            let round = k + 1;
            let what = format!("{lang}: round {round}'s sheet");
            assert_eq!(sheet["round"], json!(round), "{what}");
            let title = match lang {
                "ru" => format!("Тур {round} · Пары по алфавиту"),
                _ => format!("Round {round} · Pairings by name"),
            };
            assert_eq!(sheet["title"], json!(title), "{what}");
            let rows: Vec<Vec<String>> = serde_json::from_value(sheet["rows"].clone()).unwrap();
            let want = sheet_rows(lang, &d, round);
            assert_eq!(rows, want, "{what}");
            let by_code = {
                let mut v: Vec<&String> = want.iter().map(|r| &r[0]).collect();
                v.sort();
                v
            };
            assert_ne!(
                by_code,
                want.iter().map(|r| &r[0]).collect::<Vec<_>>(),
                "{what}: a test of the collator"
            );
        }
        assert!(
            sheet_rows(lang, &d, 1).iter().any(|r| r[1] == "7"),
            "{lang}: the reserved table on the sheet"
        );
        assert_eq!(v["bar"], json!("flex"), "{lang}: the toolbar on screen");
        screenshot(&c, &format!("print-screen-{lang}")).await;

        // Printed: the cards alone, a page each, on either paper.
        let card_titles: Vec<String> = (d.players.iter())
            .map(|p| squeeze(&format!("{} {}{}", p.name, say(lang, "#", "№"), p.number)))
            .collect();
        for (paper, size, key, pt) in [
            ("a4", PrintSize::A4, "a4", (595.28, 841.89)),
            ("letter", PrintSize::US_LETTER, "letter", (612.0, 792.0)),
        ] {
            let what = format!("{lang} on {paper}");
            c.goto(&format!("{}/tournaments/{slug}/print?paper={key}&what=cards", srv.url)).await.unwrap();
            let v = wait_until(&format!("{what}: the cards"), || shown(&c), |_| true).await;
            assert_eq!(v["order"], json!(vec!["card"; 9]), "{what}");
            let pages = pdf_pages(&print(&c, size, &format!("print-cards-{lang}-{paper}")).await);
            assert_eq!(pages.len(), 9, "{what}: a page a card");
            for (i, (got, text)) in pages.iter().enumerate() {
                let text = squeeze(text);
                // The paper's size to within a point: Chromium lays the page out in whole CSS
                // pixels (A4 comes out 595.92 × 841.92).
                let near = (got.0 - pt.0).abs() < 1.0 && (got.1 - pt.1).abs() < 1.0;
                assert!(near, "{what}: page {} is {got:?}, not {pt:?}", i + 1);
                let titled: Vec<&String> =
                    card_titles.iter().filter(|title| text.contains(title.as_str())).collect();
                assert_eq!(titled, vec![&card_titles[i]], "{what}: page {} holds one card: {text}", i + 1);
                assert!(text.contains(&d.players[i].name), "{what}: page {}", i + 1);
                for chrome in [
                    "127.0.0.1",
                    "http",
                    "/print",
                    say(lang, "Scorecards and pairing sheets", "Карточки игроков"),
                ] {
                    assert!(!text.contains(chrome), "{what}: page {} shows {chrome:?}: {text}", i + 1);
                }
            }
        }

        // Cards and sheets together: the sheets after the cards, each from a page of its own.
        c.goto(&format!("{}/tournaments/{slug}/print?paper=a4", srv.url)).await.unwrap();
        wait_until(&format!("{lang}: cards and sheets"), || shown(&c), |_| true).await;
        let pages = pdf_pages(&print(&c, PrintSize::A4, &format!("print-all-{lang}")).await);
        assert_eq!(pages.len(), 11, "{lang}: 9 cards and 2 sheets");
        for (k, (_, text)) in pages[9..].iter().enumerate() {
            let heading = match lang {
                "ru" => format!("Тур {} · Пары по алфавиту", k + 1),
                _ => format!("Round {} · Pairings by name", k + 1),
            };
            assert!(
                squeeze(text).contains(&heading),
                "{lang}: page {} is round {}'s sheet: {text}",
                10 + k,
                k + 1
            );
        }

        // The tournament's page links to the print page.
        c.goto(&format!("{}/tournaments/{slug}", srv.url)).await.unwrap();
        wait_text(
            &c,
            "#print-link",
            say(lang, "Scorecards and pairing sheets", "Карточки игроков и листы пар"),
        )
        .await;
        click(&c, "#print-link").await;
        wait_until(&format!("{lang}: the print page from the link"), || shown(&c), |_| true).await;
        assert_eq!(c.current_url().await.unwrap().path(), format!("/tournaments/{slug}/print"), "{lang}");
        c.close().await.unwrap();
    }
}

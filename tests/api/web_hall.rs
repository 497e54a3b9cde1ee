//! The hall display (issue 83, item 2): `/tournaments/<slug>/hall`, for a projector or a TV. The
//! current round's pairings by player name in alphabetical order (each one's table, opponent,
//! first or second, result), then the standings, cycling on their own in pages cut to the screen,
//! with no scrollbar however many players; kept current by WatchTournament, without a reload;
//! in English and in Russian; linked from the tournament's page.
//!
//! Headless Chromium at a TV's 1920×1080 in English (60 players) and a projector's 1280×720 in
//! Russian (59: a bye), each screen's time two seconds (`?seconds=2`). Every row of every page of
//! a whole cycle is collected and checked against the server's own answers, exact; the order is
//! checked against names whose alphabetical order is not their code points' ("de Vries" before
//! "Dunn", "Ёлкин" between "Егорова" and "Жуков"). Screenshots go to `target/screenshots/`.

use crate::common;

use crate::browser::*;
use common::server::*;
use dawgref::proto::v1 as pb;
use fantoccini::Client;
use serde_json::{Value, json};

const ROOT: &str = "director-secret";

/// The players: every first name with every surname, in seed order.
fn players(lang: &str, n: usize) -> Vec<String> {
    let names: Vec<String> = if lang == "ru" {
        let surnames = [
            "Абрамов",
            "Белова",
            "Волков",
            "Григорьева",
            "Ёлкин",
            "Егорова",
            "Жуков",
            "Зайцева",
            "Иванов",
            "Щукина",
        ];
        let initials = ["А.", "Б.", "В.", "Г.", "Д.", "Е."];
        surnames.iter().flat_map(|s| initials.iter().map(move |i| format!("{s} {i}"))).collect()
    } else {
        let surnames = [
            "Young",
            "Archer",
            "de Vries",
            "Baker",
            "Dunn",
            "Cole",
            "Evans",
            "Ng",
            "Quinn",
            "Featherstonehaugh",
        ];
        let firsts = ["Ann", "Bo", "Cy", "Di", "Ed", "Florentina"];
        surnames.iter().flat_map(|s| firsts.iter().map(move |f| format!("{f} {s}"))).collect()
    };
    names.into_iter().take(n).collect()
}

/// Division "a" of `slug` as a spectator sees it.
pub(crate) async fn division(srv: &TestServer, slug: &str) -> pb::TournamentDivision {
    let got = srv.tournaments().await.get_tournament(pb::GetTournamentRequest { slug: slug.into() }).await;
    got.unwrap().into_inner().tournament.unwrap().divisions.remove(0)
}

/// Enter a result of round 1 of `slug`: scores (first's, second's) or a forfeit by a player.
pub(crate) async fn record(
    srv: &TestServer,
    slug: &str,
    pairing: u32,
    result: pb::record_result_request::Result,
) {
    let r = pb::RecordResultRequest {
        slug: slug.into(),
        division: "a".into(),
        round: 1,
        pairing,
        result: Some(result),
        ..Default::default()
    };
    srv.tournaments().await.record_result(authed(r, ROOT)).await.unwrap();
}

fn scores(first: i32, second: i32) -> pb::record_result_request::Result {
    pb::record_result_request::Result::Scores(pb::FinalScores { first, second })
}

/// Each pairing's table in round 1 of `slug` as GetTournament answers it (0: none), read through
/// the page's codec (the server's schema), which knows every field of this build's protos.
async fn tables(c: &Client, slug: &str) -> Vec<u64> {
    let js = "const [slug, done] = arguments;
              import('/web/grpc.js')
                .then(({ call }) => call('TournamentsService', 'GetTournament', { slug }))
                .then((r) => done(r.tournament.divisions[0].rounds[0].pairings.map((p) => Number(p.table || 0))),
                      (e) => done(String(e)));";
    let v = c.execute_async(js, vec![json!(slug)]).await.expect("the script runs");
    serde_json::from_value(v.clone()).unwrap_or_else(|_| panic!("tables: {v}"))
}

/// The alpha pairings of round 1 as the page must show them, a row a player: name, table,
/// opponent, first or second, result (the player's score first).
fn alpha_pairings(lang: &str, d: &pb::TournamentDivision, tables: &[u64]) -> Vec<Vec<String>> {
    alpha_pairings_of(lang, d, 1, tables)
}

/// The alpha pairings of round `round` (from 1), each pairing at its table of `tables`.
fn alpha_pairings_of(
    lang: &str,
    d: &pb::TournamentDivision,
    round: usize,
    tables: &[u64],
) -> Vec<Vec<String>> {
    let name = |n: u32| d.players[n as usize - 1].name.clone();
    let round = &d.rounds[round - 1];
    let mut rows = Vec::new();
    for (p, &table) in round.pairings.iter().zip(tables) {
        let table = if table == 0 { "—".to_string() } else { table.to_string() };
        if p.second == 0 {
            let spread =
                if p.bye_spread > 0 { format!("+{}", p.bye_spread) } else { p.bye_spread.to_string() };
            let bye = if p.bye_spread >= 0 {
                say(lang, "bye", "без пары")
            } else {
                say(lang, "absent", "неявка")
            };
            rows.push(vec![name(p.first), table, bye.into(), String::new(), spread]);
            continue;
        }
        for (me, them, seat) in [(p.first, p.second, 0), (p.second, p.first, 1)] {
            let result = if !p.done {
                String::new()
            } else if p.forfeited_by != 0 {
                if p.forfeited_by == me {
                    say(lang, "lost by forfeit", "тех. поражение").into()
                } else {
                    say(lang, "won by forfeit", "тех. победа").into()
                }
            } else {
                let (a, b) = if seat == 0 { (p.scores[0], p.scores[1]) } else { (p.scores[1], p.scores[0]) };
                format!("{a} – {b}")
            };
            let order = if seat == 0 {
                say(lang, "first", "первый")
            } else {
                say(lang, "second", "второй")
            };
            rows.push(vec![name(me), table.clone(), name(them), order.into(), result]);
        }
    }
    rows.sort_by_key(|r| alpha_key(&r[0]));
    rows
}

/// The standings as the page must show them: place, name, wins–losses, spread.
fn standings(d: &pb::TournamentDivision) -> Vec<Vec<String>> {
    (d.standings.iter())
        .map(|s| {
            let spread = if s.spread > 0 { format!("+{}", s.spread) } else { s.spread.to_string() };
            vec![
                s.rank.to_string(),
                d.players[s.player as usize - 1].name.clone(),
                format!("{}–{}", s.wins, s.losses),
                spread,
            ]
        })
        .collect()
}

/// What the hall display shows now: the screen (`pairings` or `standings`), its page and pages,
/// the heading, the page's indicator, the list's heads and rows, how large the rows' type is, and
/// whether anything reaches past the window (the document's size, the last row's bottom and the
/// list's right edge); whether the page is the one first loaded (no reload since).
async fn shown(c: &Client) -> Option<Value> {
    let v = script(
        c,
        "const root = document.getElementById('hall');
         if (!root || !root.dataset.screen) return null;
         const list = document.getElementById('hall-list');
         const rows = list ? [...list.tBodies[0].rows] : [];
         const last = rows.length ? rows[rows.length - 1].getBoundingClientRect() : null;
         const de = document.documentElement;
         return {
           screen: root.dataset.screen, page: Number(root.dataset.page), pages: Number(root.dataset.pages),
           what: document.getElementById('hall-what').textContent, indicator: document.getElementById('hall-page').textContent,
           heads: list ? [...list.tHead.rows[0].cells].map((c) => c.textContent) : [],
           rows: rows.map((tr) => [...tr.cells].map((td) => td.textContent)),
           type: rows.length ? parseFloat(getComputedStyle(rows[0].cells[0]).fontSize) : 0,
           scroll: [de.scrollWidth, de.scrollHeight], window: [innerWidth, innerHeight],
           bottom: last ? last.bottom : 0, row: last ? last.height : 0, right: list ? list.getBoundingClientRect().right : 0,
           first_load: window.hallFirstLoad === true,
         };",
    )
    .await;
    (!v.is_null()).then_some(v)
}

/// One whole cycle of the display, from the first page of the pairings until it comes round
/// again: each screen as first seen, in the order seen.
async fn cycle(c: &Client, what: &str) -> Vec<Value> {
    let key = |v: &Value| (v["screen"].as_str().unwrap_or("").to_string(), v["page"].as_u64().unwrap_or(0));
    let start = ("pairings".to_string(), 1);
    let first =
        wait_until(&format!("{what}: the first page of the pairings"), || shown(c), |v| key(v) == start)
            .await;
    let mut seen = vec![first];
    loop {
        let now = wait_until(
            &format!("{what}: the next screen after {:?}", key(seen.last().unwrap())),
            || shown(c),
            |v| key(v) != key(seen.last().unwrap()),
        )
        .await;
        if key(&now) == start {
            return seen;
        }
        assert!(
            seen.len() < 40,
            "{what}: a cycle of more than 40 screens: {:?}",
            seen.iter().map(key).collect::<Vec<_>>()
        );
        seen.push(now);
    }
}

/// The lists a cycle shows, in their order.
const KINDS: [&str; 3] = ["pairings", "standings", "prizes"];

/// A cycle's screens checked (each within the window, full but for each list's last page, in
/// readable type, its indicator saying its page, the pages in order: the pairings' of round
/// `round`, then the standings', then the prizes' if any), and the rows of each list of KINDS,
/// page after page.
fn check_cycle(lang: &str, what: &str, seen: &[Value], round: u32) -> [Vec<Vec<String>>; 3] {
    let mut lists = [Vec::new(), Vec::new(), Vec::new()];
    let mut order = Vec::new();
    for v in seen {
        let (screen, page, pages) =
            (v["screen"].as_str().unwrap(), v["page"].as_u64().unwrap(), v["pages"].as_u64().unwrap());
        let at = format!("{what}: {screen} page {page} of {pages}");
        order.push((screen.to_string(), page, pages));
        let [width, height] = [v["window"][0].as_f64().unwrap(), v["window"][1].as_f64().unwrap()];
        assert!(v["scroll"][0].as_f64().unwrap() <= width, "{at}: nothing wider than the window: {v}");
        assert!(v["scroll"][1].as_f64().unwrap() <= height, "{at}: nothing taller than the window: {v}");
        assert!(v["bottom"].as_f64().unwrap() <= height, "{at}: the last row within the window: {v}");
        assert!(v["right"].as_f64().unwrap() <= width, "{at}: the list within the window: {v}");
        // Readable from across the room: the rows' type a thirtieth of the screen's height.
        assert!(v["type"].as_f64().unwrap() >= height / 30.0, "{at}: the type is {} px", v["type"]);
        // Each page as full as the screen allows: one row more would not fit.
        if page < pages {
            let (bottom, row) = (v["bottom"].as_f64().unwrap(), v["row"].as_f64().unwrap());
            assert!(bottom + row > height - 8.0, "{at}: room for another row ({bottom} + {row} of {height})");
        }
        let indicator = if pages > 1 {
            match lang {
                "ru" => format!("страница {page} из {pages}"),
                _ => format!("page {page} of {pages}"),
            }
        } else {
            String::new()
        };
        assert_eq!(v["indicator"], json!(indicator), "{at}");
        let (heads, heading) = if screen == "pairings" {
            (
                json!(match lang {
                    "ru" => ["Игрок", "Стол", "Соперник", "Ход", "Результат"],
                    _ => ["Player", "Table", "Opponent", "Plays", "Result"],
                }),
                match lang {
                    "ru" => format!("Тур {round} · Пары по алфавиту"),
                    _ => format!("Round {round} · Pairings by name"),
                },
            )
        } else if screen == "prizes" {
            (
                json!(match lang {
                    "ru" => ["Приз", "Что", "Кому", "За что"],
                    _ => ["Prize", "Value", "Taken by", "Achievement"],
                }),
                say(lang, "Prizes", "Призы").to_string(),
            )
        } else {
            (
                json!(match lang {
                    "ru" => ["№", "Игрок", "Поб.–пор.", "Разница"],
                    _ => ["#", "Player", "Won–lost", "Spread"],
                }),
                say(lang, "Standings", "Положение").to_string(),
            )
        };
        assert_eq!(v["heads"], heads, "{at}");
        assert_eq!(v["what"], json!(heading), "{at}");
        let rows: Vec<Vec<String>> = serde_json::from_value(v["rows"].clone()).unwrap();
        assert!(!rows.is_empty(), "{at}: rows");
        let kind = KINDS.iter().position(|k| *k == screen).unwrap_or_else(|| panic!("{at}: a screen"));
        lists[kind].extend(rows);
    }
    // The pages in order: the pairings' 1 to n, then the standings' 1 to m, then the prizes'.
    let pages = |screen: &str| {
        order.iter().filter(|(s, _, _)| s == screen).map(|&(_, p, n)| (p, n)).collect::<Vec<_>>()
    };
    let expected = |n: usize| (1..=n as u64).map(|p| (p, n as u64)).collect::<Vec<_>>();
    let mut in_order = Vec::new();
    for kind in KINDS {
        let shown = pages(kind);
        assert_eq!(shown, expected(shown.len()), "{what}: the {kind}' pages in order");
        in_order.extend(vec![kind; shown.len()]);
    }
    let kinds: Vec<&str> = order.iter().map(|(s, _, _)| s.as_str()).collect();
    assert_eq!(kinds, in_order, "{what}: the pairings, then the standings, then the prizes");
    lists
}

/// How many pages of each list of KINDS a cycle shows.
fn pages_of(seen: &[Value]) -> [usize; 3] {
    KINDS.map(|kind| seen.iter().filter(|v| v["screen"] == kind).count())
}

/// The hall display of a tournament of 60 players at a TV's screen in English, of 59 at a
/// projector's in Russian: a whole cycle shows every player's pairing by name, alphabetically,
/// each with their table, opponent, order of play and result as the server says, then the
/// standings exactly as GetTournament ranks them, in pages that fit the screen, each "page k of
/// n", nothing ever past the window's edges; a result entered then shows in both, without a
/// reload; and the tournament's page links to the display.
#[tokio::test]
async fn the_hall_display_cycles_alpha_pairings_and_standings_that_fit_the_screen_and_follow_results() {
    let srv = start_directed(ROOT).await;
    let mut driver = Driver::start().await;
    for (lang, (width, height), n) in [("en", (1920, 1080), 60), ("ru", (1280, 720), 59)] {
        let what = format!("{lang} at {width}×{height}");
        let slug = format!("hall-{lang}");
        let names = players(lang, n);
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let swiss = pb::PairingMethod::Swiss;
        let (mut t, _) =
            tournament(&srv, ROOT, (&slug, "Spring open"), &refs, &[swiss, swiss, swiss], 7).await;
        let pair =
            pb::PairRoundRequest { slug: slug.clone(), division: "a".into(), round: 1, ..Default::default() };
        t.pair_round(authed(pair, ROOT)).await.unwrap();
        // Some results in: four games and a forfeit.
        for k in 1..=4 {
            record(&srv, &slug, k, scores(400 + k as i32 * 7, 350 - k as i32 * 3)).await;
        }
        let d = division(&srv, &slug).await;
        let forfeiter = d.rounds[0].pairings[4].second;
        record(&srv, &slug, 5, pb::record_result_request::Result::ForfeitedBy(forfeiter)).await;
        let d = division(&srv, &slug).await;
        assert_eq!(d.rounds[0].pairings.iter().filter(|p| p.done).count(), 5 + usize::from(n % 2 == 1));

        let c = if lang == "en" { driver.browser().await } else { driver.browser_in(lang).await };
        set_viewport(&c, width, height).await;
        c.goto(&format!("{}/tournaments/{slug}/hall?seconds=2", srv.url)).await.unwrap();
        wait_until(&format!("{what}: the display"), || shown(&c), |_| true).await;
        script(&c, "window.hallFirstLoad = true").await;
        let tables = tables(&c, &slug).await;
        assert_eq!(tables.len(), d.rounds[0].pairings.len());

        let title = script(&c, "return [document.getElementById('hall-title').textContent, getComputedStyle(document.querySelector('.top')).display]").await;
        assert_eq!(title, json!(["Spring open", "none"]), "{what}: the tournament's name, no frame");
        let seen = cycle(&c, &what).await;
        let [pairings, standings_shown, _] = check_cycle(lang, &what, &seen, 1);
        let [p, s, prizes] = pages_of(&seen);
        assert!(p >= 2 && s >= 2 && prizes == 0, "{what}: several pages each, no prizes: {p}, {s}, {prizes}");
        let want = alpha_pairings(lang, &d, &tables);
        assert_eq!(want.len(), n);
        assert_eq!(pairings, want, "{what}: the alpha pairings");
        assert_eq!(standings_shown, standings(&d), "{what}: the standings");
        // The names' order is not their code points'.
        let by_code: Vec<&String> = {
            let mut v: Vec<&String> = want.iter().map(|r| &r[0]).collect();
            v.sort();
            v
        };
        assert_ne!(by_code, want.iter().map(|r| &r[0]).collect::<Vec<_>>(), "{what}: a test of the collator");

        // Screenshots of a page of each list.
        for screen in ["pairings", "standings"] {
            wait_until(&format!("{what}: the {screen}"), || shown(&c), |v| v["screen"] == screen).await;
            screenshot(&c, &format!("hall-{screen}-{lang}")).await;
        }

        // A result entered: the display shows it on the pairings and in the standings, with no
        // reload.
        let p = &d.rounds[0].pairings[9];
        assert!(!p.done && p.second != 0);
        let (first, second) =
            (d.players[p.first as usize - 1].name.clone(), d.players[p.second as usize - 1].name.clone());
        record(&srv, &slug, 10, scores(377, 366)).await;
        let after = division(&srv, &slug).await;
        let row_of = |v: &Value, name: &str| {
            v["rows"].as_array().and_then(|rows| rows.iter().find(|r| r[0] == name).cloned())
        };
        let with_result = wait_until(
            &format!("{what}: {first}'s result on the pairings"),
            || shown(&c),
            |v| v["screen"] == "pairings" && row_of(v, &first).is_some_and(|r| r[4] == "377 – 366"),
        )
        .await;
        assert_eq!(with_result["first_load"], json!(true), "{what}: no reload");
        let seen = cycle(&c, &what).await;
        let [pairings, standings_shown, _] = check_cycle(lang, &what, &seen, 1);
        let want = alpha_pairings(lang, &after, &tables);
        assert!(want.iter().any(|r| r[0] == second && r[4] == "366 – 377"), "{what}: {second}'s row");
        assert_eq!(pairings, want, "{what}: the alpha pairings with the new result");
        assert_eq!(standings_shown, standings(&after), "{what}: the standings with the new result");
        assert_ne!(standings(&after), standings(&d), "{what}: the result changed the standings");
        assert_eq!(shown(&c).await.expect("shown")["first_load"], json!(true), "{what}: no reload");

        // The tournament's page links to the display.
        c.goto(&format!("{}/tournaments/{slug}", srv.url)).await.unwrap();
        wait_text(&c, "#hall-link", say(lang, "Hall display", "Экран для зала")).await;
        click(&c, "#hall-link").await;
        wait_until(
            &format!("{what}: the display from the link"),
            || shown(&c),
            |v| v["screen"] == "pairings",
        )
        .await;
        let url = c.current_url().await.unwrap();
        assert_eq!(url.path(), format!("/tournaments/{slug}/hall"), "{what}");

        // One division by name; a name that is none is said so.
        c.goto(&format!("{}/tournaments/{slug}/hall?division=a", srv.url)).await.unwrap();
        wait_until(&format!("{what}: division a"), || shown(&c), |v| v["screen"] == "pairings").await;
        c.goto(&format!("{}/tournaments/{slug}/hall?division=zz", srv.url)).await.unwrap();
        let none = say(lang, "This tournament has no division zz.", "В этом турнире нет группы zz.");
        wait_text(&c, "#hall-note", none).await;
        c.close().await.unwrap();
    }
}

/// Enter a result of round `round` of `slug`'s division "a" (`correct`: in place of one in).
async fn record_in(
    srv: &TestServer,
    slug: &str,
    round: u32,
    pairing: u32,
    (first, second): (i32, i32),
    correct: bool,
) {
    let r = pb::RecordResultRequest {
        slug: slug.into(),
        division: "a".into(),
        round,
        pairing,
        result: Some(scores(first, second)),
        correct,
        ..Default::default()
    };
    srv.tournaments().await.record_result(authed(r, ROOT)).await.unwrap();
}

async fn pair(srv: &TestServer, slug: &str, round: u32) {
    let pair = pb::PairRoundRequest { slug: slug.into(), division: "a".into(), round, ..Default::default() };
    srv.tournaments().await.pair_round(authed(pair, ROOT)).await.unwrap();
}

async fn prizes_of(srv: &TestServer, slug: &str) -> pb::GetDivisionPrizesResponse {
    let request = pb::GetDivisionPrizesRequest { slug: slug.into(), division: "a".into() };
    srv.tournaments().await.get_division_prizes(request).await.unwrap().into_inner()
}

/// The prizes as the hall must show them, a row an award: the prize as the server names it, its
/// value, its taker (" (shared)" when others share it) and their achievement; or nobody, and why.
fn prize_rows(lang: &str, d: &pb::TournamentDivision, r: &pb::GetDivisionPrizesResponse) -> Vec<Vec<String>> {
    (r.awards.iter())
        .map(|a| {
            let mut row = vec![a.description.clone(), a.value.clone()];
            if a.player == 0 {
                row.push(format!("{} {}", say(lang, "nobody:", "никому:"), a.note));
            } else {
                let shared = if a.shared {
                    format!(" ({})", say(lang, "shared", "делят"))
                } else {
                    String::new()
                };
                row.push(format!("{}{shared}", d.players[a.player as usize - 1].name));
                row.push(a.achievement.clone());
            }
            row
        })
        .collect()
}

fn prize(kind: pb::prize_spec::Kind, value: &str) -> pb::PrizeSpec {
    pb::PrizeSpec { kind: Some(kind), value: value.into(), exclusive: String::new() }
}

/// A division's prizes on the hall display once its last round's results are all in (issue 83):
/// while one is missing, no prizes screen; RecordResult enters it and the prizes screen comes
/// into the cycle, after the standings, without a reload, each award exactly as
/// GetDivisionPrizes gives it (the prize, its value, who takes it, by what, or nobody and why),
/// in pages that fit the screen; a result corrected redraws them. In English at 1920×1080 and in
/// Russian at 1280×720.
#[tokio::test]
async fn the_hall_display_shows_a_divisions_prizes_once_its_last_round_is_complete() {
    use pb::prize_spec::Kind;
    let srv = start_directed(ROOT).await;
    let mut driver = Driver::start().await;
    for (lang, (width, height)) in [("en", (1920, 1080)), ("ru", (1280, 720))] {
        let what = format!("prizes, {lang} at {width}×{height}");
        let slug = format!("hall-prizes-{lang}");
        let names = players(lang, 12);
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let swiss = pb::PairingMethod::Swiss;
        let (mut t, _) = tournament(&srv, ROOT, (&slug, "Final day"), &refs, &[swiss, swiss], 11).await;
        pair(&srv, &slug, 1).await;
        for k in 1..=6 {
            record_in(&srv, &slug, 1, k, (380 + k as i32 * 11, 400 - k as i32 * 5), false).await;
        }
        pair(&srv, &slug, 2).await;
        for k in 1..=5 {
            record_in(&srv, &slug, 2, k, (350 + k as i32 * 13, 420 - k as i32 * 9), false).await;
        }
        // Every place, and the prizes of games: more than one screen holds.
        let under =
            pb::RatingClass { name: "Under 1600".into(), at_least: None, below: Some(1600), unrated: true };
        let mut list: Vec<pb::PrizeSpec> =
            (1..=12).map(|p| prize(Kind::Place(p), &format!("${}", 130 - p * 10))).collect();
        list.extend([
            prize(Kind::HighGame(true), "a book"),
            prize(Kind::HighLoss(true), "a pen"),
            prize(Kind::MostBingos(true), "a bag"),
            prize(Kind::ClassPlace(pb::ClassPlace { class: Some(under), place: 1 }), "$15"),
        ]);
        let request = pb::SetDivisionPrizesRequest {
            slug: slug.clone(),
            division: "a".into(),
            prizes: list.clone(),
            request_id: String::new(),
        };
        t.set_division_prizes(authed(request, ROOT)).await.unwrap();
        let before = prizes_of(&srv, &slug).await;
        assert!(!before.r#final && before.awards.len() == list.len(), "{what}: {before:?}");

        let c = if lang == "en" { driver.browser().await } else { driver.browser_in(lang).await };
        set_viewport(&c, width, height).await;
        c.goto(&format!("{}/tournaments/{slug}/hall?seconds=1", srv.url)).await.unwrap();
        wait_until(&format!("{what}: the display"), || shown(&c), |_| true).await;
        script(&c, "window.hallFirstLoad = true").await;

        // A result of the last round missing: the pairings and the standings, no prizes.
        let d = division(&srv, &slug).await;
        let tables: Vec<u64> = d.rounds[1].pairings.iter().map(|p| u64::from(p.table)).collect();
        let seen = cycle(&c, &what).await;
        let [pairings, standings_shown, prizes_shown] = check_cycle(lang, &what, &seen, 2);
        assert_eq!(pages_of(&seen)[2], 0, "{what}: no prizes while a result is missing");
        assert!(prizes_shown.is_empty());
        assert_eq!(pairings, alpha_pairings_of(lang, &d, 2, &tables), "{what}: round 2's pairings");
        assert_eq!(standings_shown, standings(&d), "{what}: the standings");

        // The last result in: the prizes come into the cycle, live.
        record_in(&srv, &slug, 2, 6, (401, 399), false).await;
        let got = wait_until(&format!("{what}: the prizes"), || shown(&c), |v| v["screen"] == "prizes").await;
        assert_eq!(got["first_load"], json!(true), "{what}: no reload");
        let after = prizes_of(&srv, &slug).await;
        assert!(after.r#final, "{what}: the prizes final");
        let d = division(&srv, &slug).await;
        let seen = cycle(&c, &what).await;
        let [pairings, standings_shown, prizes_shown] = check_cycle(lang, &what, &seen, 2);
        assert_eq!(
            prizes_shown,
            prize_rows(lang, &d, &after),
            "{what}: the prizes as GetDivisionPrizes gives them"
        );
        assert_eq!(pairings, alpha_pairings_of(lang, &d, 2, &tables), "{what}: round 2's pairings");
        assert_eq!(standings_shown, standings(&d), "{what}: the standings");
        wait_until(&format!("{what}: the prizes again"), || shown(&c), |v| v["screen"] == "prizes").await;
        screenshot(&c, &format!("hall-prizes-{lang}")).await;

        // A result corrected: the high game changes, and the prizes with it.
        record_in(&srv, &slug, 2, 1, (640, 310), true).await;
        let corrected = prizes_of(&srv, &slug).await;
        assert_ne!(awards_of(&corrected), awards_of(&after), "{what}: the correction changed the prizes");
        let d = division(&srv, &slug).await;
        let want = prize_rows(lang, &d, &corrected);
        let high = want.iter().find(|r| r[0] == "High game").cloned().expect("a high game");
        assert!(high[3].contains("640"), "{what}: {high:?}");
        wait_until(
            &format!("{what}: the corrected high game"),
            || shown(&c),
            |v| {
                v["screen"] == "prizes"
                    && v["rows"].as_array().is_some_and(|rows| rows.iter().any(|r| *r == json!(high)))
            },
        )
        .await;
        let seen = cycle(&c, &what).await;
        let [_, standings_shown, prizes_shown] = check_cycle(lang, &what, &seen, 2);
        assert_eq!(prizes_shown, want, "{what}: the corrected prizes");
        assert_eq!(standings_shown, standings(&d), "{what}: the corrected standings");
        assert_eq!(shown(&c).await.expect("shown")["first_load"], json!(true), "{what}: no reload");
        c.close().await.unwrap();
    }
}

fn awards_of(r: &pb::GetDivisionPrizesResponse) -> Vec<(u32, u32, String)> {
    r.awards.iter().map(|a| (a.prize, a.player, a.achievement.clone())).collect()
}

/// A director reserves a player's table on the tournament page (the box and "Reserve table"
/// beside the player in the list): the list shows it, the round paired seats the player there,
/// a table past the bounds is refused with the server's reason, and an empty box clears it.
#[tokio::test]
async fn a_director_reserves_and_clears_a_players_table_on_the_tournament_page() {
    let srv = start_directed(ROOT).await;
    let mut driver = Driver::start().await;
    let slug = "reserved";
    let names = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"];
    tournament(&srv, ROOT, (slug, "Club night"), &names, &[pb::PairingMethod::Swiss], 3).await;
    let c = driver.browser().await;
    c.goto(&format!("{}/tournaments/{slug}#token={ROOT}", srv.url)).await.unwrap();
    let typed = |css: &'static str, keys: &'static str| {
        let c = c.clone();
        async move {
            let box_ = c.find(fantoccini::Locator::Css(css)).await.unwrap();
            box_.clear().await.unwrap();
            if !keys.is_empty() {
                box_.send_keys(keys).await.unwrap();
            }
        }
    };
    wait_until("the reserve box", || async { Some(count(&c, "#reserve-a-3").await) }, |&n| n == 1).await;
    typed("#reserve-a-3", "4").await;
    click(&c, "#reserve-go-a-3").await;
    wait_text(&c, "#tournament-result", "Cy keeps table 4.").await;
    wait_text(&c, "#reserved-a-3", "Table 4").await;
    assert_eq!(division(&srv, slug).await.players[2].reserved_table, Some(4));
    // Past the bounds: the server's reason, and nothing changed.
    typed("#reserve-a-2", "5001").await;
    click(&c, "#reserve-go-a-2").await;
    wait_until(
        "the refusal",
        || text(&c, "#tournament-result"),
        |t| t == "INVALID_ARGUMENT: table: table 5001: tables are numbered 1 to 5000",
    )
    .await;
    assert_eq!(division(&srv, slug).await.players[1].reserved_table, None);
    // The round paired seats Cy at table 4.
    pair(&srv, slug, 1).await;
    let d = division(&srv, slug).await;
    let cy = d.rounds[0].pairings.iter().find(|p| p.first == 3 || p.second == 3).unwrap();
    assert_eq!(cy.table, 4, "{:?}", d.rounds[0].pairings);
    // Cleared: an empty box.
    wait_text(&c, "#round-a-1 h3", "Round 1 · not started").await;
    typed("#reserve-a-3", "").await;
    click(&c, "#reserve-go-a-3").await;
    wait_text(&c, "#tournament-result", "Cy has no reserved table.").await;
    wait_until("no reserved table shown", || async { Some(count(&c, "#reserved-a-3").await) }, |&n| n == 0)
        .await;
    assert_eq!(division(&srv, slug).await.players[2].reserved_table, None);
    c.close().await.unwrap();
}

/// 1,000 different names: forty first names with twenty-five surnames.
fn thousand_names() -> Vec<String> {
    let firsts = [
        "Ada", "Ben", "Cora", "Dan", "Eve", "Finn", "Gail", "Hugo", "Iris", "Jack", "Kira", "Liam", "Mona",
        "Nils", "Olga", "Paul", "Quin", "Rosa", "Sam", "Tess", "Uma", "Vic", "Wes", "Xena", "Yuri", "Zoe",
        "Abe", "Bea", "Cal", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Joe", "Kat", "Lou", "Max", "Ned",
    ];
    let surnames = [
        "Abbott",
        "Bishop",
        "Carver",
        "Dalton",
        "Ellis",
        "Fischer",
        "Garner",
        "Holt",
        "Ingram",
        "Jensen",
        "Keller",
        "Lambert",
        "Moss",
        "Nolan",
        "Ortega",
        "Pruitt",
        "Quincy",
        "Rhodes",
        "Sutton",
        "Tate",
        "Upton",
        "Vance",
        "Walsh",
        "Yates",
        "van Zandt",
    ];
    surnames.iter().flat_map(|s| firsts.iter().map(move |f| format!("{f} {s}"))).collect()
}

/// The hall display's render time with a 1,000-player division (issue 83: under 100 ms a page):
/// round 1 paired, half of its results in; the display at 1920×1080 and at 1280×720, a screen a
/// second, through at least 20 screens, each showing rows. The page times itself
/// (`window.__hallRenderMs`: each screen drawn, and each planning of every list laid out and
/// measured); the figures are printed (p50, p95, max), not held to a threshold. Run in release:
/// `cargo test --release --test api web_hall::hall_render_time -- --ignored --nocapture`.
#[tokio::test]
#[ignore = "a measurement: run by hand, in release (BENCHMARKS.md)"]
async fn hall_render_time_of_a_thousand_players() {
    let srv = start_directed(ROOT).await;
    let mut driver = Driver::start().await;
    let slug = "hall-thousand";
    let names = thousand_names();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    tournament(&srv, ROOT, (slug, "Big open"), &refs, &[pb::PairingMethod::Random; 3], 17).await;
    pair(&srv, slug, 1).await;
    for k in 1..=250 {
        record_in(&srv, slug, 1, k, (350 + (k as i32 * 37) % 150, 340 + (k as i32 * 53) % 160), false).await;
    }
    let d = division(&srv, slug).await;
    assert_eq!(d.players.len(), 1000);
    assert_eq!(d.rounds[0].pairings.iter().filter(|p| p.done).count(), 250);
    for (width, height) in [(1920, 1080), (1280, 720)] {
        let what = format!("1,000 players at {width}×{height}");
        let c = driver.browser().await;
        set_viewport(&c, width, height).await;
        c.goto(&format!("{}/tournaments/{slug}/hall?seconds=1", srv.url)).await.unwrap();
        let key =
            |v: &Value| (v["screen"].as_str().unwrap_or("").to_string(), v["page"].as_u64().unwrap_or(0));
        let mut seen = vec![wait_until(&format!("{what}: the display"), || shown(&c), |_| true).await];
        while seen.len() < 21 {
            let last = key(seen.last().unwrap());
            let now =
                wait_until(&format!("{what}: the screen after {last:?}"), || shown(&c), |v| key(v) != last)
                    .await;
            seen.push(now);
        }
        for v in &seen {
            let rows = v["rows"].as_array().map_or(0, Vec::len);
            assert!(rows > 0, "{what}: rows on {:?}", key(v));
        }
        let figures: Vec<f64> =
            serde_json::from_value(script(&c, "return window.__hallRenderMs").await).unwrap();
        assert!(figures.len() >= 21, "{what}: the page timed itself: {figures:?}");
        let first = figures[0];
        let mut sorted = figures.clone();
        sorted.sort_by(f64::total_cmp);
        let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
        println!(
            "{what}: {} renders over {} screens ({} pages of pairings, {} of standings); the first \
             (every list planned) {first:.1} ms; p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
            figures.len(),
            seen.len(),
            seen[0]["pages"],
            seen.iter().find(|v| v["screen"] == "standings").map_or(json!("?"), |v| v["pages"].clone()),
            at(0.5),
            at(0.95),
            sorted[sorted.len() - 1],
        );
        c.close().await.unwrap();
    }
}

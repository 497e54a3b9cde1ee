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
use pb::tournaments_service_client::TournamentsServiceClient;
use serde_json::{Value, json};
use tonic::transport::Channel;

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

/// Alphabetical order for the names here, as a person reads it (and as the collator of either
/// language orders them): letters without case, ё as е (no two names here differ only there).
fn alpha_key(name: &str) -> String {
    name.to_lowercase().replace('ё', "е")
}

/// The page's words in `lang`.
fn say<'a>(lang: &str, en: &'a str, ru: &'a str) -> &'a str {
    if lang == "ru" { ru } else { en }
}

async fn tournaments(srv: &TestServer) -> TournamentsServiceClient<Channel> {
    TournamentsServiceClient::connect(srv.url.clone()).await.unwrap()
}

/// Division "a" of `slug` as a spectator sees it.
async fn division(srv: &TestServer, slug: &str) -> pb::TournamentDivision {
    let got = tournaments(srv).await.get_tournament(pb::GetTournamentRequest { slug: slug.into() }).await;
    got.unwrap().into_inner().tournament.unwrap().divisions.remove(0)
}

/// Enter a result of round 1 of `slug`: scores (first's, second's) or a forfeit by a player.
async fn record(srv: &TestServer, slug: &str, pairing: u32, result: pb::record_result_request::Result) {
    let r = pb::RecordResultRequest {
        slug: slug.into(),
        division: "a".into(),
        round: 1,
        pairing,
        result: Some(result),
        ..Default::default()
    };
    tournaments(srv).await.record_result(authed(r, ROOT)).await.unwrap();
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
    let name = |n: u32| d.players[n as usize - 1].name.clone();
    let round = &d.rounds[0];
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

/// A cycle's screens checked (each within the window, full but for each list's last page, in
/// readable type, its indicator saying its page, the pages in order: the pairings' then the
/// standings'), and the rows of each list, page after page.
fn check_cycle(lang: &str, what: &str, seen: &[Value]) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let mut lists = [Vec::new(), Vec::new()];
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
                say(lang, "Round 1 · Pairings by name", "Тур 1 · Пары по алфавиту"),
            )
        } else {
            (
                json!(match lang {
                    "ru" => ["№", "Игрок", "Поб.–пор.", "Разница"],
                    _ => ["#", "Player", "Won–lost", "Spread"],
                }),
                say(lang, "Standings", "Положение"),
            )
        };
        assert_eq!(v["heads"], heads, "{at}");
        assert_eq!(v["what"], json!(heading), "{at}");
        let rows: Vec<Vec<String>> = serde_json::from_value(v["rows"].clone()).unwrap();
        assert!(!rows.is_empty(), "{at}: rows");
        lists[usize::from(screen == "standings")].extend(rows);
    }
    // The pages in order: the pairings' 1 to n, then the standings' 1 to m; more than one each.
    let pages = |screen: &str| {
        order.iter().filter(|(s, _, _)| s == screen).map(|&(_, p, n)| (p, n)).collect::<Vec<_>>()
    };
    let (pairings, standings) = (pages("pairings"), pages("standings"));
    assert!(pairings.len() >= 2 && standings.len() >= 2, "{what}: several pages each: {order:?}");
    let expected = |n: usize| (1..=n as u64).map(|p| (p, n as u64)).collect::<Vec<_>>();
    assert_eq!(pairings, expected(pairings.len()), "{what}: the pairings' pages in order");
    assert_eq!(standings, expected(standings.len()), "{what}: the standings' pages in order");
    let kinds: Vec<&str> = order.iter().map(|(s, _, _)| s.as_str()).collect();
    let first_then: Vec<&str> =
        [vec!["pairings"; pairings.len()], vec!["standings"; standings.len()]].concat();
    assert_eq!(kinds, first_then, "{what}: the pairings, then the standings");
    let [pairings, standings] = lists;
    (pairings, standings)
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
        let (pairings, standings_shown) = check_cycle(lang, &what, &seen);
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
        let (pairings, standings_shown) = check_cycle(lang, &what, &seen);
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

//! The director's desk in the browser (issue 82, items 8 and 9): a tournament created and imported,
//! results corrected and forfeits entered, rounds paired by hand and unpaired, from the Tournaments page.
//!
//! Each test drives the pages in headless Chromium at a laptop's screen (1366×768, in English)
//! and a phone's (390×844, in Russian), and checks what the page did through the API: the
//! tournament as the server holds it, its standings and results exactly, and the server's
//! refusals word for word as the page shows them. Screenshots go to `target/screenshots/`.

use crate::common;

use crate::browser::*;
use common::server::*;
use dawgref::proto::v1 as pb;
use fantoccini::{Client, Locator};
use pb::tournaments_service_client::TournamentsServiceClient;
use tonic::transport::Channel;

const ROOT: &str = "director-secret";

type Tournaments = TournamentsServiceClient<Channel>;

/// Set the page's boxes and selects by id, each as typing or choosing would (its `input` and
/// `change` events fired), in one go: an event's redraw between them would lose them. Every id
/// must name an element.
async fn fill(c: &Client, values: &[(&str, &str)]) {
    let js = format!(
        "const missing = [];
         for (const [id, v] of {}) {{
           const el = document.getElementById(id);
           if (!el) {{ missing.push(id); continue; }}
           if (el.type === 'checkbox') el.checked = v === 'true'; else el.value = v;
           el.dispatchEvent(new Event('input', {{ bubbles: true }}));
           el.dispatchEvent(new Event('change', {{ bubbles: true }}));
         }}
         return missing;",
        serde_json::to_string(values).unwrap()
    );
    assert_eq!(script(c, &js).await, serde_json::json!([]), "boxes to fill");
}

/// The value of the box or select `id`.
async fn value(c: &Client, id: &str) -> String {
    let js = format!("const el = document.getElementById({id:?}); return el ? el.value : null;");
    script(c, &js).await.as_str().map(str::to_string).unwrap_or_else(|| panic!("no #{id}"))
}

/// Whether the element `id` is marked as wrong (`aria-invalid`).
async fn invalid(c: &Client, id: &str) -> bool {
    let js = format!("return document.getElementById({id:?}).getAttribute('aria-invalid') === 'true'");
    script(c, &js).await == serde_json::json!(true)
}

/// The texts of the labels tied to the element `id`.
async fn labels(c: &Client, id: &str) -> String {
    let js = format!(
        "return [...document.getElementById({id:?}).labels].map((l) => l.textContent.trim()).join('|')"
    );
    script(c, &js).await.as_str().unwrap().to_string()
}

/// Whether nothing of the page is wider than its screen, and `css` lies within the screen's
/// width.
async fn fits(c: &Client, css: &str) -> bool {
    let js = format!(
        "const page = document.documentElement, w = page.clientWidth;
         const r = document.querySelector({css:?}).getBoundingClientRect();
         return page.scrollWidth <= w && r.left >= 0 && r.right <= w + 0.5;"
    );
    script(c, &js).await == serde_json::json!(true)
}

/// Hold the page where it stands: the tournament's stream no longer redraws it (the timers its
/// news would redraw it by are cleared and stubbed), as a page is between another director's
/// change and its news of it. Its own actions still read the tournament afresh.
async fn hold(c: &Client) {
    script(
        c,
        "const last = setTimeout(() => {}, 0);
         for (let id = 0; id <= last; id++) clearTimeout(id);
         window.setTimeout = () => 0;",
    )
    .await;
}

/// Catch the files the page offers for download, as the browser would save them
/// (`window.saved`: [name, text] pairs).
async fn catch_downloads(c: &Client) {
    script(
        c,
        "window.saved = [];
         const blobs = new Map();
         const made = URL.createObjectURL;
         URL.createObjectURL = (blob) => { const url = made(blob); blobs.set(url, blob); return url; };
         HTMLAnchorElement.prototype.click = function () {
           const name = this.download;
           blobs.get(this.href).text().then((text) => window.saved.push([name, text]));
         };",
    )
    .await;
}

/// A tournament made through the API by the root director: one division "a" of `names` (each
/// rated 1500), its rounds by `methods`.
async fn made(
    srv: &TestServer,
    (slug, name): (&str, &str),
    names: &[&str],
    methods: &[pb::PairingMethod],
) -> Tournaments {
    tournament(srv, ROOT, (slug, name), names, methods, 3).await.0
}

/// Tournament `slug` as its director sees it.
async fn get(t: &mut Tournaments, slug: &str) -> pb::Tournament {
    let r = t.get_tournament(authed(pb::GetTournamentRequest { slug: slug.into() }, ROOT)).await.unwrap();
    r.into_inner().tournament.unwrap()
}

/// A division's standings as (player, wins, losses, spread), best first.
fn standings(d: &pb::TournamentDivision) -> Vec<(u32, f64, u32, i64)> {
    d.standings.iter().map(|s| (s.player, s.wins, s.losses, s.spread)).collect()
}

/// A round's pairings as (first, second, scores, forfeited_by).
fn lines(r: &pb::TournamentRound) -> Vec<(u32, u32, Vec<i32>, u32)> {
    r.pairings.iter().map(|p| (p.first, p.second, p.scores.clone(), p.forfeited_by)).collect()
}

/// A result entered through the API (another director's, or the game's).
async fn result(
    t: &mut Tournaments,
    slug: &str,
    (round, pairing): (u32, u32),
    result: pb::record_result_request::Result,
) {
    let request = pb::RecordResultRequest {
        slug: slug.into(),
        division: "a".into(),
        round,
        pairing,
        result: Some(result),
        ..Default::default()
    };
    t.record_result(authed(request, ROOT)).await.unwrap();
}

fn scores(first: i32, second: i32) -> pb::record_result_request::Result {
    pb::record_result_request::Result::Scores(pb::FinalScores { first, second })
}

/// The log's events of `kinds`, as (kind, detail).
async fn log(t: &mut Tournaments, slug: &str, kinds: &[&str]) -> Vec<(String, String)> {
    let filter = pb::TournamentLogFilter {
        kinds: kinds.iter().map(|k| k.to_string()).collect(),
        ..Default::default()
    };
    let request =
        pb::GetTournamentLogRequest { slug: slug.into(), filter: Some(filter), ..Default::default() };
    let r = t.get_tournament_log(authed(request, ROOT)).await.unwrap().into_inner();
    r.events.into_iter().map(|e| (e.kind, e.detail)).collect()
}

/// Issue 82, item 8: a tournament made from the Tournaments page, with two divisions: a rating
/// system, rounds each with its method (a factor's f asked beside it), players with ratings,
/// lifetime games (empty: not known) and a bot, the second division's players pasted as a list.
/// What is obviously incomplete is refused on the page, naming the box, and nothing is sent;
/// the server's refusal is said in its words. The players' tokens are shown once and
/// downloaded, each one the seat of the player named beside it; the new tournament's page opens
/// directing it.
#[tokio::test]
async fn a_tournament_and_its_divisions_are_made_from_the_tournaments_page() {
    let srv = start_directed(ROOT).await;
    let mut t = TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    let mut driver = Driver::start().await;
    let c = open(&mut driver, &srv.url, "en", (1366, 768), "/tournaments").await;
    wait_text(&c, "#no-tournaments", "No tournaments yet.").await;
    click(&c, "#new-tournament summary").await;
    fill(&c, &[("desk-token", ROOT)]).await;
    // Each box has its label.
    for (id, label) in [
        ("new-name", "Name"),
        ("new-slug", "Slug (its address)"),
        ("new-seed", "Seed"),
        ("new-rating-0", "Rating system"),
        ("new-rounds-0", "Rounds"),
        ("new-rounds-0-1", "Round 1"),
        ("desk-token", "Director token"),
    ] {
        assert_eq!(labels(&c, id).await, label, "#{id}");
    }
    // No name: refused on the page, the box marked, nothing sent.
    click(&c, "#new-create").await;
    wait_text(&c, "#new-refusal", "The tournament needs a name. Nothing was sent.").await;
    assert!(invalid(&c, "new-name").await);
    let list = t.list_tournaments(pb::ListTournamentsRequest {}).await.unwrap().into_inner();
    assert!(list.tournaments.is_empty());
    // The slug follows the name.
    fill(&c, &[("new-name", "Spring Open")]).await;
    assert_eq!(value(&c, "new-slug").await, "spring-open");
    // Division a: NASPA's ratings, three rounds (King of the Hill, factor 2, Swiss), four players,
    // the second's name forgotten.
    fill(
        &c,
        &[
            ("new-seed", "7"),
            ("new-minutes", "20"),
            ("new-rating-0", "RATING_SYSTEM_NSA2008"),
            ("new-cap-0", "300"),
            ("new-rounds-0", "3"),
            ("new-rounds-0-1", "PAIRING_METHOD_KING_OF_THE_HILL"),
            ("new-rounds-0-2", "PAIRING_METHOD_FACTOR"),
            ("new-rounds-0-2-factor", "2"),
            ("new-rounds-0-3", "PAIRING_METHOD_SWISS"),
            ("new-player-0-1-name", "Ann Archer"),
            ("new-player-0-1-rating", "1800"),
            ("new-player-0-1-lifetime", "120"),
            ("new-player-0-2-rating", "1700"),
            ("new-player-0-3-name", "Cy Cole"),
            ("new-player-0-3-rating", "1600"),
            ("new-player-0-3-lifetime", "10"),
            ("new-player-0-4-name", "Strongbot"),
            ("new-player-0-4-rating", "1900"),
            ("new-player-0-4-bot", "BOT_LEVEL_STRONG"),
        ],
    )
    .await;
    click(&c, "#new-create").await;
    wait_text(&c, "#new-refusal", "Division a, player 2: the name is missing. Nothing was sent.").await;
    assert!(invalid(&c, "new-player-0-2-name").await);
    fill(&c, &[("new-player-0-2-name", "Bo Baker")]).await;
    // Division b, its players pasted: a spreadsheet's line and a TSH-like one.
    click(&c, "#new-add-division").await;
    assert_eq!(value(&c, "new-division-name-1").await, "b");
    fill(
        &c,
        &[
            ("new-paste-1", "Di Dunn, 1500, 30\nEve Evans 1400"),
            ("new-rounds-1", "1"),
            ("new-rounds-1-1", "PAIRING_METHOD_ROUND_ROBIN"),
        ],
    )
    .await;
    click(&c, "#new-paste-add-1").await;
    assert_eq!(
        [
            value(&c, "new-player-1-1-name").await,
            value(&c, "new-player-1-1-rating").await,
            value(&c, "new-player-1-1-lifetime").await
        ],
        ["Di Dunn", "1500", "30"]
    );
    assert_eq!(
        [
            value(&c, "new-player-1-2-name").await,
            value(&c, "new-player-1-2-rating").await,
            value(&c, "new-player-1-2-lifetime").await
        ],
        ["Eve Evans", "1400", ""]
    );
    screenshot(&c, "desk-new-tournament-en").await;
    catch_downloads(&c).await;
    click(&c, "#new-create").await;
    wait_text(&c, "#new-done", "Spring Open is made: its page").await;
    // As the server holds it.
    let made = get(&mut t, "spring-open").await;
    assert_eq!(made.name, "Spring Open");
    let game = made.game.clone().unwrap();
    assert_eq!(
        (game.ruleset_name.as_str(), game.clock.map(|k| k.initial_ms)),
        ("english", Some(20 * 60_000))
    );
    let players = |d: &pb::TournamentDivision| -> Vec<(String, u32, Option<u32>, Option<i32>)> {
        d.players.iter().map(|p| (p.name.clone(), p.rating, p.lifetime_games, p.bot)).collect()
    };
    let methods = |d: &pb::TournamentDivision| -> Vec<(i32, u32)> {
        d.rounds.iter().map(|r| r.spec.map_or((0, 0), |s| (s.method, s.factor))).collect()
    };
    let (a, b) = (&made.divisions[0], &made.divisions[1]);
    assert_eq!((a.name.as_str(), b.name.as_str()), ("a", "b"));
    assert_eq!(
        players(a),
        [
            ("Ann Archer".to_string(), 1800, Some(120), None),
            ("Bo Baker".to_string(), 1700, None, None),
            ("Cy Cole".to_string(), 1600, Some(10), None),
            ("Strongbot".to_string(), 1900, None, Some(pb::BotLevel::Strong as i32)),
        ]
    );
    assert_eq!(
        methods(a),
        [
            (pb::PairingMethod::KingOfTheHill as i32, 0),
            (pb::PairingMethod::Factor as i32, 2),
            (pb::PairingMethod::Swiss as i32, 0)
        ]
    );
    let controls = a.controls.unwrap();
    assert_eq!((controls.rating_system, controls.spread_cap), (pb::RatingSystem::Nsa2008 as i32, 300));
    assert_eq!(
        players(b),
        [("Di Dunn".to_string(), 1500, Some(30), None), ("Eve Evans".to_string(), 1400, None, None)]
    );
    assert_eq!(methods(b), [(pb::PairingMethod::RoundRobin as i32, 0)]);
    assert_eq!(b.controls.unwrap().rating_system, pb::RatingSystem::Unspecified as i32);
    // The tokens, shown once and downloaded: each opens the seat of the player named beside it.
    assert_eq!(count(&c, "#new-tokens tbody tr").await, 5, "a token for each person, none for the bot");
    click(&c, "#new-tokens-csv").await;
    let saved = wait_until(
        "the tokens' file",
        || async {
            serde_json::from_value::<Vec<(String, String)>>(script(&c, "return window.saved").await).ok()
        },
        |saved| saved.len() == 1,
    )
    .await;
    assert_eq!(saved[0].0, "spring-open-tokens.csv");
    let csv: Vec<Vec<String>> =
        saved[0].1.lines().map(|l| l.split(',').map(str::to_string).collect()).collect();
    assert_eq!(csv[0], ["division", "player", "name", "token"]);
    let named: Vec<[&str; 3]> =
        csv[1..].iter().map(|r| [r[0].as_str(), r[1].as_str(), r[2].as_str()]).collect();
    assert_eq!(
        named,
        [
            ["a", "1", "Ann Archer"],
            ["a", "2", "Bo Baker"],
            ["a", "3", "Cy Cole"],
            ["b", "1", "Di Dunn"],
            ["b", "2", "Eve Evans"]
        ]
    );
    for row in &csv[1..] {
        let mine =
            t.get_tournament(authed(pb::GetTournamentRequest { slug: "spring-open".into() }, &row[3])).await;
        let you = mine.unwrap().into_inner().tournament.unwrap().you.unwrap();
        assert_eq!((you.division.as_str(), you.player.to_string()), (row[0].as_str(), row[1].clone()));
    }
    let shown = text(&c, "#new-tokens tbody tr:first-child code").await.unwrap();
    assert_eq!(shown, csv[1][3]);
    // The list has it; made again, the server refuses in its words.
    wait_text(&c, "#tournament-list a", "Spring Open").await;
    click(&c, "#new-create").await;
    wait_text(&c, "#new-refusal", "ALREADY_EXISTS: a tournament \"spring-open\" exists already").await;
    // Its page opens directing it.
    click(&c, "#new-open").await;
    wait_text(&c, "#who", "Directing this tournament.").await;
    wait_text(&c, "#pair-a", "Pair round 1").await;
    c.close().await.unwrap();
}

/// Issue 82, item 8, on a phone in Russian: the form's words, its refusals on the page (a name
/// that makes no slug), the server's refusal of two players of one name naming the box at
/// fault, and the director's say that it is meant.
#[tokio::test]
async fn a_tournament_is_made_from_a_phone_in_russian() {
    let srv = start_directed(ROOT).await;
    let mut t = TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    let mut driver = Driver::start().await;
    let c = open(&mut driver, &srv.url, "ru", (390, 844), "/tournaments").await;
    wait_text(&c, "#new-tournament summary", "Новый турнир").await;
    click(&c, "#new-tournament summary").await;
    assert_eq!(text(&c, "#new-create").await.unwrap(), "Создать турнир");
    assert_eq!(labels(&c, "new-rating-0").await, "Рейтинговая система");
    fill(&c, &[("desk-token", ROOT)]).await;
    click(&c, "#new-create").await;
    wait_text(&c, "#new-refusal", "У турнира должно быть название. Ничего не отправлено.").await;
    // A Russian name makes no slug: one is asked for.
    fill(&c, &[("new-name", "Осенний кубок")]).await;
    assert_eq!(value(&c, "new-slug").await, "");
    click(&c, "#new-create").await;
    wait_text(
        &c,
        "#new-refusal",
        "Адрес — от 1 до 40 знаков из a–z, 0–9, _, - и . (не только точки). Ничего не отправлено.",
    )
    .await;
    assert!(invalid(&c, "new-slug").await);
    fill(
        &c,
        &[
            ("new-slug", "autumn"),
            ("new-rounds-0", "1"),
            ("new-rounds-0-1", "PAIRING_METHOD_ROUND_ROBIN"),
            ("new-player-0-1-name", "Ann Archer"),
            // Its spacing made single on the page: the server tells the two apart by case only.
            ("new-player-0-2-name", "ann  archer"),
        ],
    )
    .await;
    click(&c, "#new-create").await;
    let refused = wait_until("the server's refusal", || text(&c, "#new-refusal"), |t| !t.is_empty()).await;
    assert_eq!(
        refused,
        "INVALID_ARGUMENT: divisions[0].players[1].name: \"ann archer\": player 1 of the division has that name \
         (a director may allow it)"
    );
    assert!(invalid(&c, "new-player-0-2-name").await, "the box the server names is marked");
    assert!(fits(&c, "#new-tournament").await, "the form fits 390 px");
    screenshot(&c, "desk-new-tournament-ru").await;
    fill(&c, &[("new-same-names", "true")]).await;
    click(&c, "#new-create").await;
    wait_text(&c, "#new-done", "Турнир «Осенний кубок» создан: страница турнира").await;
    assert_eq!(count(&c, "#new-tokens tbody tr").await, 2);
    let made = get(&mut t, "autumn").await;
    let names: Vec<&str> = made.divisions[0].players.iter().map(|p| p.name.as_str()).collect();
    assert_eq!((made.name.as_str(), names), ("Осенний кубок", vec!["Ann Archer", "ann archer"]));
    c.close().await.unwrap();
}

/// A `.t` file of four players and one round played, as the server writes it.
async fn source_file(srv: &TestServer) -> String {
    let names = ["Ann Archer", "Bo Baker", "Cy Cole", "Di Dunn"];
    let mut t = made(srv, ("source", "Source"), &names, &[pb::PairingMethod::Manual]).await;
    round_by_hand(&mut t, ROOT, ("source", 1), &[(1, 2), (3, 4)], &[(420, 388), (377, 402)]).await;
    let tsh = pb::ExportTshRequest { slug: "source".into(), division: "a".into() };
    t.export_tsh(authed(tsh, ROOT)).await.unwrap().into_inner().text
}

/// Issue 82, item 8: a division imported from TSH's `.t` file from the Tournaments page, the file
/// chosen from the computer (in English, on a laptop) or pasted (in Russian, on a phone), with
/// its rounds to come and its rating system; a refused file is said in the server's words (the
/// line named), an incomplete form on the page; the players' tokens are shown.
#[tokio::test]
async fn a_division_is_imported_from_a_tsh_file_in_both_languages() {
    let srv = start_directed(ROOT).await;
    let mut t =
        made(&srv, ("club", "Club night"), &["Fay Ford", "Gus Gray"], &[pb::PairingMethod::Swiss]).await;
    let file = source_file(&srv).await;
    let dir = TempDir::new("desk-import");
    let path = dir.0.join("thursday.t");
    std::fs::write(&path, &file).unwrap();
    let mut driver = Driver::start().await;

    // In English: the file chosen, division b, a King of the Hill round to come, NASPA's ratings.
    let c = open(&mut driver, &srv.url, "en", (1366, 768), "/tournaments").await;
    click(&c, "#import-tsh summary").await;
    assert_eq!(labels(&c, "import-file").await, "The .t file");
    assert_eq!(labels(&c, "import-division").await, "The new division's name");
    fill(&c, &[("desk-token", ROOT), ("import-slug", "club")]).await;
    click(&c, "#import-go").await;
    wait_text(
        &c,
        "#import-refusal",
        "A division's name is 1 to 40 of a–z, 0–9, _, - and . (not only dots). Nothing was sent.",
    )
    .await;
    c.find(Locator::Css("#import-file")).await.unwrap().send_keys(path.to_str().unwrap()).await.unwrap();
    wait_until("the file read", || async { Some(value(&c, "import-text").await) }, |v| v == &file).await;
    assert_eq!(value(&c, "import-division").await, "thursday", "named after the file");
    fill(
        &c,
        &[
            ("import-division", "b"),
            ("import-rating", "RATING_SYSTEM_NSA2008"),
            ("import-rounds", "1"),
            ("import-rounds-1", "PAIRING_METHOD_KING_OF_THE_HILL"),
        ],
    )
    .await;
    click(&c, "#import-go").await;
    wait_text(&c, "#import-done", "Division b is in: 4 players, 1 round played. its page").await;
    assert_eq!(count(&c, "#import-tokens tbody tr").await, 4);
    screenshot(&c, "desk-import-en").await;
    let club = get(&mut t, "club").await;
    let b = &club.divisions[1];
    let names: Vec<(&str, u32)> = b.players.iter().map(|p| (p.name.as_str(), p.rating)).collect();
    assert_eq!(names, [("Ann Archer", 1500), ("Bo Baker", 1500), ("Cy Cole", 1500), ("Di Dunn", 1500)]);
    assert_eq!(lines(&b.rounds[0]), [(1, 2, vec![420, 388], 0), (3, 4, vec![377, 402], 0)]);
    let to_come = b.rounds[1].spec.unwrap();
    assert_eq!(
        (b.rounds.len(), to_come.method, b.rounds[1].paired),
        (2, pb::PairingMethod::KingOfTheHill as i32, false)
    );
    assert_eq!(b.controls.unwrap().rating_system, pb::RatingSystem::Nsa2008 as i32);
    assert_eq!(standings(b), [(1, 1.0, 0, 32), (4, 1.0, 0, 25), (3, 0.0, 1, -25), (2, 0.0, 1, -32)]);
    // Ann's token, as shown, is her seat in division b.
    let token = text(&c, "#import-tokens tbody tr:first-child code").await.unwrap();
    let mine =
        t.get_tournament(authed(pb::GetTournamentRequest { slug: "club".into() }, &token)).await.unwrap();
    let you = mine.into_inner().tournament.unwrap().you.unwrap();
    assert_eq!((you.division.as_str(), you.player), ("b", 1));
    c.close().await.unwrap();

    // In Russian, on a phone: a broken file pasted is refused naming its line; the file pasted
    // whole is division c.
    let c = open(&mut driver, &srv.url, "ru", (390, 844), "/tournaments").await;
    wait_text(&c, "#import-tsh summary", "Группа из файла TSH .t").await;
    click(&c, "#import-tsh summary").await;
    fill(&c, &[("desk-token", ROOT), ("import-slug", "club"), ("import-division", "c")]).await;
    click(&c, "#import-go").await;
    wait_text(&c, "#import-refusal", "Файл .t пуст: выберите файл или вставьте его. Ничего не отправлено.")
        .await;
    assert!(invalid(&c, "import-text").await);
    fill(&c, &[("import-text", "Ann Archer 1500 2; 420\nBo Baker 1500 1 x; 388\n")]).await;
    click(&c, "#import-go").await;
    let refused = wait_until("the server's refusal", || text(&c, "#import-refusal"), |t| !t.is_empty()).await;
    assert_eq!(refused, "INVALID_ARGUMENT: text: line 2: opponent \"x\" is not a player number");
    assert!(invalid(&c, "import-text").await, "the box the server names is marked");
    fill(&c, &[("import-text", &file)]).await;
    click(&c, "#import-go").await;
    wait_text(&c, "#import-done", "Группа c добавлена: 4 игрока, сыграно: 1 тур. страница турнира").await;
    assert!(fits(&c, "#import-tsh").await, "the form fits 390 px");
    screenshot(&c, "desk-import-ru").await;
    let club = get(&mut t, "club").await;
    let c_ = &club.divisions[2];
    assert_eq!((c_.name.as_str(), c_.rounds.len()), ("c", 1));
    assert_eq!(standings(c_), [(1, 1.0, 0, 32), (4, 1.0, 0, 25), (3, 0.0, 1, -25), (2, 0.0, 1, -32)]);
    c.close().await.unwrap();
}

/// Issue 82, item 9: a result corrected from the tournament's page (the form filled with the
/// result in; the same result again refused on the page), and a result entered while another
/// came in meanwhile: refused by the server, said in its words, and the correction opened filled
/// with what was typed, one click from replacing it (by scores in English on a laptop, by a
/// forfeit in Russian on a phone). The standings and the log say what was done.
#[tokio::test]
async fn a_result_is_corrected_and_a_second_result_becomes_a_correction_in_both_languages() {
    let srv = start_directed(ROOT).await;
    let names = ["Ann Archer", "Bo Baker", "Cy Cole", "Di Dunn", "Eve Evans", "Fay Ford"];
    let manual = [pb::PairingMethod::Manual, pb::PairingMethod::Manual];
    let mut t = made(&srv, ("fix", "Fix open"), &names, &manual).await;
    round_by_hand(&mut t, ROOT, ("fix", 1), &[(1, 2), (3, 4), (5, 6)], &[(420, 388)]).await;
    let mut driver = Driver::start().await;

    let c = open(&mut driver, &srv.url, "en", (1366, 768), "/tournaments/fix#token=director-secret").await;
    wait_text(&c, "#correct-a-1-1", "Correct").await;
    click(&c, "#correct-a-1-1").await;
    assert_eq!([value(&c, "fix-score-a-1-1-a").await, value(&c, "fix-score-a-1-1-b").await], ["420", "388"]);
    assert_eq!(text(&c, "#fix-enter-a-1-1").await.unwrap(), "Replace the result");
    // The result in, sent again: refused on the page.
    click(&c, "#fix-enter-a-1-1").await;
    wait_text(&c, "#fix-refusal-a-1-1", "That is the result in already: nothing was sent.").await;
    fill(&c, &[("fix-score-a-1-1-b", "400")]).await;
    click(&c, "#fix-enter-a-1-1").await;
    wait_text(&c, "#tournament-result", "Result corrected: Ann Archer 420 – 400 Bo Baker.").await;
    wait_text(&c, "#round-a-1 tr[data-pairing='1'] td.score", "420 – 400").await;
    // Another director enters pairing 2's result while this page has not heard of it: the
    // director's own result is refused, in the server's words, and the correction is open with
    // the scores typed.
    hold(&c).await;
    result(&mut t, "fix", (1, 2), scores(350, 401)).await;
    fill(&c, &[("score-a-1-2-a", "380"), ("score-a-1-2-b", "300")]).await;
    click(&c, "#enter-a-1-2").await;
    let refusal = "FAILED_PRECONDITION: round 1's pairing 2 has its result already: enter it again as a correction to replace it";
    wait_text(&c, "#fix-refusal-a-1-2", refusal).await;
    assert_eq!(text(&c, "#tournament-result").await.unwrap(), refusal);
    assert_eq!([value(&c, "fix-score-a-1-2-a").await, value(&c, "fix-score-a-1-2-b").await], ["380", "300"]);
    wait_text(&c, "#round-a-1 tr[data-pairing='2'] td.score", "350 – 401").await;
    screenshot(&c, "desk-correct-en").await;
    click(&c, "#fix-enter-a-1-2").await;
    wait_text(&c, "#tournament-result", "Result corrected: Cy Cole 380 – 300 Di Dunn.").await;
    c.close().await.unwrap();

    // In Russian, on a phone: pairing 3's result comes in meanwhile; the correction the
    // refusal opens replaces it with Fay's forfeit.
    let c = open(&mut driver, &srv.url, "ru", (390, 844), "/tournaments/fix#token=director-secret").await;
    wait_text(&c, "#correct-a-1-1", "Исправить").await;
    hold(&c).await;
    result(&mut t, "fix", (1, 3), scores(300, 350)).await;
    fill(&c, &[("score-a-1-3-a", "310"), ("score-a-1-3-b", "350")]).await;
    click(&c, "#enter-a-1-3").await;
    wait_text(
        &c,
        "#fix-refusal-a-1-3",
        "FAILED_PRECONDITION: round 1's pairing 3 has its result already: enter it again as a correction to replace it",
    )
    .await;
    assert_eq!(labels(&c, "fix-forfeit-a-1-3").await, "Техническое поражение:");
    assert!(fits(&c, "#round-a-1 tr[data-pairing='3'] .result-form").await, "the correction fits 390 px");
    screenshot(&c, "desk-correct-ru").await;
    fill(&c, &[("fix-forfeit-a-1-3", "6")]).await;
    click(&c, "#fix-forfeit-enter-a-1-3").await;
    wait_text(
        &c,
        "#tournament-result",
        "Результат исправлен: Fay Ford — техническое поражение, побеждает Eve Evans.",
    )
    .await;
    c.close().await.unwrap();

    let d = get(&mut t, "fix").await.divisions[0].clone();
    assert_eq!(
        lines(&d.rounds[0]),
        [(1, 2, vec![420, 400], 0), (3, 4, vec![380, 300], 0), (5, 6, vec![], 6)]
    );
    assert_eq!(
        standings(&d),
        [
            (3, 1.0, 0, 80),
            (5, 1.0, 0, 50),
            (1, 1.0, 0, 20),
            (2, 0.0, 1, -20),
            (6, 0.0, 1, -50),
            (4, 0.0, 1, -80)
        ]
    );
    assert_eq!(
        log(&mut t, "fix", &["result", "result_corrected"]).await,
        [
            ("result", "Ann Archer 420 – Bo Baker 388"),
            ("result_corrected", "Ann Archer 420 – Bo Baker 400 (was Ann Archer 420 – Bo Baker 388)"),
            ("result", "Cy Cole 350 – Di Dunn 401"),
            ("result_corrected", "Cy Cole 380 – Di Dunn 300 (was Cy Cole 350 – Di Dunn 401)"),
            ("result", "Eve Evans 300 – Fay Ford 350"),
            ("result_corrected", "Fay Ford forfeits to Eve Evans (was Eve Evans 300 – Fay Ford 350)"),
        ]
        .map(|(k, d)| (k.to_string(), d.to_string()))
    );
}

/// Issue 82, item 9: a forfeit entered from the page naming who forfeited, for a game in play
/// (which ends with it): without a choice it is refused on the page and nothing is sent; in
/// English on a laptop and in Russian on a phone.
#[tokio::test]
async fn a_forfeit_is_entered_naming_who_forfeited_in_both_languages() {
    let srv = start_directed(ROOT).await;
    let names = ["Ann Archer", "Bo Baker", "Cy Cole", "Di Dunn"];
    let mut t = made(&srv, ("forfeits", "Forfeit open"), &names, &[pb::PairingMethod::KingOfTheHill]).await;
    let pair = pb::PairRoundRequest {
        slug: "forfeits".into(),
        division: "a".into(),
        round: 1,
        ..Default::default()
    };
    t.pair_round(authed(pair, ROOT)).await.unwrap();
    let start = pb::StartRoundRequest {
        slug: "forfeits".into(),
        division: "a".into(),
        round: 1,
        ..Default::default()
    };
    let round = t.start_round(authed(start, ROOT)).await.unwrap().into_inner().round.unwrap();
    let (p1, p2) = (round.pairings[0].clone(), round.pairings[1].clone());
    let name = |n: u32| names[n as usize - 1];
    let mut g = srv.games().await;
    let mut driver = Driver::start().await;

    // In English: no choice, refused; pairing 1's second player forfeits.
    let c =
        open(&mut driver, &srv.url, "en", (1366, 768), "/tournaments/forfeits#token=director-secret").await;
    wait_text(&c, "#forfeit-enter-a-1-1", "Enter the forfeit").await;
    assert_eq!(labels(&c, "forfeit-a-1-1").await, "Forfeited by");
    let options =
        script(&c, "return [...document.getElementById('forfeit-a-1-1').options].map((o) => o.text)").await;
    assert_eq!(options, serde_json::json!(["—", name(p1.first), name(p1.second)]));
    click(&c, "#forfeit-enter-a-1-1").await;
    wait_text(&c, "#refusal-a-1-1", "Choose who forfeited: nothing was sent.").await;
    assert!(invalid(&c, "forfeit-a-1-1").await);
    assert_eq!(text(&c, "#tournament-result").await.unwrap(), "", "nothing was answered");
    let now = get(&mut t, "forfeits").await.divisions[0].rounds[0].pairings[0].clone();
    assert!(!now.done, "nothing was sent: {now:?}");
    fill(&c, &[("forfeit-a-1-1", &p1.second.to_string())]).await;
    click(&c, "#forfeit-enter-a-1-1").await;
    wait_text(
        &c,
        "#tournament-result",
        &format!("Forfeit entered: {} forfeits to {}.", name(p1.second), name(p1.first)),
    )
    .await;
    wait_text(&c, "#round-a-1 tr[data-pairing='1'] td.score", &format!("{} forfeited", name(p1.second)))
        .await;
    screenshot(&c, "desk-forfeit-en").await;
    c.close().await.unwrap();

    // In Russian, on a phone: pairing 2's first player forfeits.
    let c =
        open(&mut driver, &srv.url, "ru", (390, 844), "/tournaments/forfeits#token=director-secret").await;
    wait_text(&c, "#forfeit-enter-a-1-2", "Внести техническое").await;
    click(&c, "#forfeit-enter-a-1-2").await;
    wait_text(&c, "#refusal-a-1-2", "Выберите, кому засчитано техническое поражение: ничего не отправлено.")
        .await;
    fill(&c, &[("forfeit-a-1-2", &p2.first.to_string())]).await;
    assert!(fits(&c, "#round-a-1 tr[data-pairing='2'] .result-form").await, "the form fits 390 px");
    screenshot(&c, "desk-forfeit-ru").await;
    click(&c, "#forfeit-enter-a-1-2").await;
    wait_text(
        &c,
        "#tournament-result",
        &format!("Внесено техническое: {} — поражение, побеждает {}.", name(p2.first), name(p2.second)),
    )
    .await;
    c.close().await.unwrap();

    let d = get(&mut t, "forfeits").await.divisions[0].clone();
    assert_eq!(
        lines(&d.rounds[0]),
        [(p1.first, p1.second, vec![], p1.second), (p2.first, p2.second, vec![], p2.first)]
    );
    let mut winners = [p1.first, p2.second];
    winners.sort();
    let mut losers = [p1.second, p2.first];
    losers.sort();
    let want: Vec<(u32, f64, u32, i64)> =
        winners.iter().map(|&n| (n, 1.0, 0, 50)).chain(losers.iter().map(|&n| (n, 0.0, 1, -50))).collect();
    assert_eq!(standings(&d), want);
    // Each game in play ended with the forfeit.
    for p in [&p1, &p2] {
        let view = view_of(&mut g, authed(pb::GetGameRequest { game_id: p.game_id.clone() }, ROOT)).await;
        assert!(view.over, "{}", p.game_id);
    }
}

/// The choices of the hand pairings' selects of division "a", row by row ([first, second]).
async fn hand_rows(c: &Client) -> Vec<[String; 2]> {
    let js = "return [...document.querySelectorAll('#hand-form-a tbody tr')].map((tr) =>
                [...tr.querySelectorAll('select')].map((s) => s.value))";
    serde_json::from_value(script(c, js).await).unwrap()
}

/// Issue 82, item 9: a round paired by hand from the page (rows half filled, a player twice and
/// players in no pairing refused on the page, nothing sent), its pairings changed, the round
/// unpaired and paired again; the server's refusals said in its words: an unpairing once a result
/// came in meanwhile, pairings naming a player withdrawn meanwhile.
#[tokio::test]
async fn a_round_is_paired_by_hand_changed_and_unpaired_with_refusals() {
    let srv = start_directed(ROOT).await;
    let names = ["Ann Archer", "Bo Baker", "Cy Cole", "Di Dunn", "Eve Evans"];
    let manual = [pb::PairingMethod::Manual, pb::PairingMethod::Manual];
    let mut t = made(&srv, ("hand", "Hand open"), &names, &manual).await;
    let mut driver = Driver::start().await;
    let c = open(&mut driver, &srv.url, "en", (1366, 768), "/tournaments/hand#token=director-secret").await;
    wait_text(&c, "#hand-a", "Pair round 1 by hand").await;
    assert_eq!(count(&c, "#pair-a").await, 0, "a manual round has no pairing by its method");
    click(&c, "#hand-a").await;
    wait_text(&c, "#hand-form-a h3", "Round 1's pairings, by hand").await;
    assert_eq!(hand_rows(&c).await.len(), 3, "a row for each two players");
    assert_eq!(
        text(&c, "#hand-left-a").await.unwrap(),
        "Not paired yet: Ann Archer, Bo Baker, Cy Cole, Di Dunn, Eve Evans"
    );
    let set_says = |want: &'static str| {
        let c = c.clone();
        async move {
            click(&c, "#hand-set-a").await;
            wait_text(&c, "#hand-refusal-a", want).await;
        }
    };
    set_says("In no pairing: Ann Archer, Bo Baker, Cy Cole, Di Dunn, Eve Evans. Nothing was sent.").await;
    fill(&c, &[("hand-a-1-first", "1"), ("hand-a-1-second", "2"), ("hand-a-2-first", "3")]).await;
    set_says("Pairing 2: choose both players, or a bye: nothing was sent.").await;
    assert!(invalid(&c, "hand-a-2-second").await);
    fill(&c, &[("hand-a-2-second", "4"), ("hand-a-3-first", "1"), ("hand-a-3-second", "0")]).await;
    set_says("Ann Archer is in two pairings: nothing was sent.").await;
    fill(&c, &[("hand-a-3-first", "5")]).await;
    wait_text(&c, "#hand-left-a", "Everyone is paired.").await;
    assert_eq!(count(&c, "#round-a-1").await, 0, "nothing was sent");
    click(&c, "#hand-set-a").await;
    wait_text(&c, "#tournament-result", "Round 1 is paired by hand.").await;
    let round = |t: &mut Tournaments| {
        let mut t = t.clone();
        async move { get(&mut t, "hand").await.divisions[0].rounds.clone() }
    };
    assert_eq!(lines(&round(&mut t).await[0]), [(1, 2, vec![], 0), (3, 4, vec![], 0), (5, 0, vec![], 0)]);
    // Changed: the form opens with the pairings there are.
    wait_text(&c, "#rehand-a", "Change round 1's pairings").await;
    click(&c, "#rehand-a").await;
    let pairs = |rows: &[[&str; 2]]| rows.iter().map(|r| r.map(str::to_string)).collect::<Vec<_>>();
    assert_eq!(hand_rows(&c).await, pairs(&[["1", "2"], ["3", "4"], ["5", "0"]]));
    fill(&c, &[("hand-a-1-second", "3"), ("hand-a-2-first", "2")]).await;
    screenshot(&c, "desk-hand-en").await;
    click(&c, "#hand-set-a").await;
    wait_until("round 1 changed", || async { Some(count(&c, "#hand-form-a").await) }, |&n| n == 0).await;
    assert_eq!(lines(&round(&mut t).await[0]), [(1, 3, vec![], 0), (2, 4, vec![], 0), (5, 0, vec![], 0)]);
    // Unpaired, and paired again.
    click(&c, "#unpair-a").await;
    wait_text(&c, "#tournament-result", "Round 1's pairings are taken back.").await;
    assert!(!round(&mut t).await[0].paired);
    click(&c, "#hand-a").await;
    fill(
        &c,
        &[
            ("hand-a-1-first", "1"),
            ("hand-a-1-second", "2"),
            ("hand-a-2-first", "3"),
            ("hand-a-2-second", "4"),
            ("hand-a-3-first", "5"),
            ("hand-a-3-second", "0"),
        ],
    )
    .await;
    click(&c, "#hand-set-a").await;
    wait_text(&c, "#tournament-result", "Round 1 is paired by hand.").await;
    // A result comes in while the page has not heard: its unpairing is refused in the server's
    // words, beside the button and in the bar.
    wait_text(&c, "#unpair-a", "Unpair round 1").await;
    hold(&c).await;
    result(&mut t, "hand", (1, 1), scores(420, 388)).await;
    click(&c, "#unpair-a").await;
    let refusal = "FAILED_PRECONDITION: round 1 has results in: its pairings stand";
    wait_text(&c, "#unpair-refusal-a", refusal).await;
    assert_eq!(text(&c, "#tournament-result").await.unwrap(), refusal);
    assert_eq!(count(&c, "#unpair-a").await, 0, "the page, read again, offers it no more");
    assert!(round(&mut t).await[0].paired);
    // Round 2 by hand; Di withdraws meanwhile: the server refuses, naming her; without her, it
    // is paired.
    click(&c, "#hand-a").await;
    wait_text(&c, "#hand-form-a h3", "Round 2's pairings, by hand").await;
    fill(
        &c,
        &[
            ("hand-a-1-first", "1"),
            ("hand-a-1-second", "3"),
            ("hand-a-2-first", "2"),
            ("hand-a-2-second", "5"),
            ("hand-a-3-first", "4"),
            ("hand-a-3-second", "0"),
        ],
    )
    .await;
    hold(&c).await;
    let withdraw = pb::WithdrawPlayerRequest {
        slug: "hand".into(),
        division: "a".into(),
        player: 4,
        ..Default::default()
    };
    t.withdraw_player(authed(withdraw, ROOT)).await.unwrap();
    click(&c, "#hand-set-a").await;
    wait_text(
        &c,
        "#hand-refusal-a",
        "INVALID_ARGUMENT: pairings: player 4 has withdrawn and cannot be paired",
    )
    .await;
    // Read again, the form offers Di no more.
    wait_until("Di gone", || async { Some(hand_rows(&c).await) }, |rows| rows[2] == ["", "0"]).await;
    fill(&c, &[("hand-a-3-second", "")]).await;
    click(&c, "#hand-set-a").await;
    wait_text(&c, "#tournament-result", "Round 2 is paired by hand.").await;
    let rounds = round(&mut t).await;
    assert_eq!(lines(&rounds[1]), [(1, 3, vec![], 0), (2, 5, vec![], 0)]);
    assert_eq!(lines(&rounds[0]), [(1, 2, vec![420, 388], 0), (3, 4, vec![], 4), (5, 0, vec![], 0)]);
    assert_eq!(
        log(&mut t, "hand", &["pairings_made", "round_unpaired"]).await,
        [
            ("pairings_made", "round 1 paired by the director"),
            ("pairings_made", "round 1 paired by the director"),
            ("round_unpaired", "round 1's pairings taken back"),
            ("pairings_made", "round 1 paired by the director"),
            ("pairings_made", "round 2 paired by the director"),
        ]
        .map(|(k, d)| (k.to_string(), d.to_string()))
    );
    c.close().await.unwrap();
}

/// Issue 82, item 9, on a phone in Russian: the hand pairings' words and refusals, the round
/// paired and unpaired, the form within the screen.
#[tokio::test]
async fn a_round_is_paired_by_hand_and_unpaired_on_a_phone_in_russian() {
    let srv = start_directed(ROOT).await;
    let names = ["Ann Archer", "Bo Baker", "Cy Cole", "Di Dunn"];
    let mut t = made(&srv, ("ruhand", "Hand open"), &names, &[pb::PairingMethod::Manual]).await;
    let mut driver = Driver::start().await;
    let c = open(&mut driver, &srv.url, "ru", (390, 844), "/tournaments/ruhand#token=director-secret").await;
    wait_text(&c, "#hand-a", "Составить пары тура 1 вручную").await;
    click(&c, "#hand-a").await;
    wait_text(&c, "#hand-form-a h3", "Пары тура 1 вручную").await;
    click(&c, "#hand-set-a").await;
    wait_text(
        &c,
        "#hand-refusal-a",
        "Без пары: Ann Archer, Bo Baker, Cy Cole, Di Dunn. Ничего не отправлено.",
    )
    .await;
    fill(&c, &[("hand-a-1-first", "2"), ("hand-a-1-second", "1"), ("hand-a-2-first", "4")]).await;
    click(&c, "#hand-set-a").await;
    wait_text(&c, "#hand-refusal-a", "Пара 2: выберите обоих игроков или «без пары»: ничего не отправлено.")
        .await;
    wait_text(&c, "#hand-left-a", "Ещё без пары: Cy Cole").await;
    fill(&c, &[("hand-a-2-second", "3")]).await;
    assert!(fits(&c, "#hand-form-a").await, "the form fits 390 px");
    screenshot(&c, "desk-hand-ru").await;
    click(&c, "#hand-set-a").await;
    wait_text(&c, "#tournament-result", "Пары тура 1 составлены вручную.").await;
    let d = get(&mut t, "ruhand").await.divisions[0].clone();
    assert_eq!(lines(&d.rounds[0]), [(2, 1, vec![], 0), (4, 3, vec![], 0)]);
    wait_text(&c, "#unpair-a", "Отменить пары тура 1").await;
    click(&c, "#unpair-a").await;
    wait_text(&c, "#tournament-result", "Пары тура 1 отменены.").await;
    assert!(!get(&mut t, "ruhand").await.divisions[0].rounds[0].paired);
    c.close().await.unwrap();
}

/// Issue 82, item 9: one request a click. A double click on a result's "Enter", on a
/// correction's, on a forfeit's and on "Set the pairings" makes each change once, and the page
/// says it was made (no refusal of a second copy).
#[tokio::test]
async fn a_double_click_makes_each_change_once() {
    let srv = start_directed(ROOT).await;
    let names = ["Ann Archer", "Bo Baker", "Cy Cole", "Di Dunn"];
    let manual = [pb::PairingMethod::Manual];
    let mut t = made(&srv, ("twice", "Twice open"), &names, &manual).await;
    let mut driver = Driver::start().await;
    let c = open(&mut driver, &srv.url, "en", (1366, 768), "/tournaments/twice#token=director-secret").await;
    let twice = |id: &str| format!("const b = document.getElementById({id:?}); b.click(); b.click();");
    click(&c, "#hand-a").await;
    fill(
        &c,
        &[
            ("hand-a-1-first", "1"),
            ("hand-a-1-second", "2"),
            ("hand-a-2-first", "3"),
            ("hand-a-2-second", "4"),
        ],
    )
    .await;
    script(&c, &twice("hand-set-a")).await;
    wait_text(&c, "#tournament-result", "Round 1 is paired by hand.").await;
    fill(&c, &[("score-a-1-1-a", "400"), ("score-a-1-1-b", "350")]).await;
    script(&c, &twice("enter-a-1-1")).await;
    wait_text(&c, "#tournament-result", "Result entered: Ann Archer 400 – 350 Bo Baker.").await;
    fill(&c, &[("forfeit-a-1-2", "3")]).await;
    script(&c, &twice("forfeit-enter-a-1-2")).await;
    wait_text(&c, "#tournament-result", "Forfeit entered: Cy Cole forfeits to Di Dunn.").await;
    click(&c, "#correct-a-1-1").await;
    fill(&c, &[("fix-score-a-1-1-b", "360")]).await;
    script(&c, &twice("fix-enter-a-1-1")).await;
    wait_text(&c, "#tournament-result", "Result corrected: Ann Archer 400 – 360 Bo Baker.").await;
    c.close().await.unwrap();
    assert_eq!(
        log(&mut t, "twice", &["pairings_made", "result", "result_corrected"]).await,
        [
            ("pairings_made", "round 1 paired by the director"),
            ("result", "Ann Archer 400 – Bo Baker 350"),
            ("result", "Cy Cole forfeits to Di Dunn"),
            ("result_corrected", "Ann Archer 400 – Bo Baker 360 (was Ann Archer 400 – Bo Baker 350)"),
        ]
        .map(|(k, d)| (k.to_string(), d.to_string()))
    );
}

/// Issue 84, item 6: an arena made from the Tournaments page: a division of only bots, each
/// player chosen among the bots registered in the lobby (a registered bot's name box left empty:
/// it plays under its own); then a late entry, a registered bot again, and a person refused in
/// the server's words.
#[tokio::test]
async fn an_arena_of_registered_bots_is_made_and_entered_from_the_pages() {
    let srv = start_directed(ROOT).await;
    let mut b = srv.bots().await;
    for name in ["alpha", "beta", "gamma"] {
        let accepts = Some(pb::BotAccepts { casual: true, bots: true, ..Default::default() });
        let request = pb::RegisterBotRequest { name: name.into(), owner: "the lab".into(), accepts };
        b.register_bot(authed(request, ROOT)).await.unwrap();
    }
    let mut t = TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    let mut driver = Driver::start().await;
    let c = open(&mut driver, &srv.url, "en", (1366, 768), "/tournaments").await;
    click(&c, "#new-tournament summary").await;
    // The registered bots are offered beside the server's.
    wait_until(
        "the registered bots",
        || async { Some(count(&c, "#new-player-0-1-bot option[value^='account:']").await) },
        |&n| n == 3,
    )
    .await;
    assert_eq!(labels(&c, "new-bots-only-0").await, "Only bots (an arena)");
    fill(
        &c,
        &[
            ("desk-token", ROOT),
            ("new-name", "Bot night"),
            ("new-bots-only-0", "true"),
            ("new-player-0-1-bot", "account:alpha"),
            ("new-player-0-2-bot", "account:beta"),
            ("new-player-0-3-name", "Sparky"),
            ("new-player-0-3-bot", "BOT_LEVEL_WEAK"),
        ],
    )
    .await;
    click(&c, "#new-create").await;
    wait_text(&c, "#new-done", "Bot night is made: its page").await;
    assert_eq!(count(&c, "#new-tokens tbody tr").await, 0, "no token for a bot");
    let made = get(&mut t, "bot-night").await;
    let a = &made.divisions[0];
    assert!(a.bots_only);
    assert_eq!(
        a.players
            .iter()
            .map(|p| (p.name.as_str(), p.bot_account.as_str(), p.bot.is_some()))
            .collect::<Vec<_>>(),
        [("alpha", "alpha", false), ("beta", "beta", false), ("Sparky", "", true)]
    );

    // A late entry: gamma by its account; then a person, refused.
    c.goto(&format!("{}/tournaments/bot-night#token={ROOT}", srv.url)).await.unwrap();
    wait_until(
        "the late entry's bots",
        || async { Some(count(&c, "#late-played-by-a option[value^='account:']").await) },
        |&n| n == 3,
    )
    .await;
    fill(&c, &[("late-played-by-a", "account:gamma")]).await;
    click(&c, "#late-add-a").await;
    wait_text(&c, "#tournament-result", "gamma is player 4: a registered bot, it plays with its own token.")
        .await;
    wait_until("the late entry", || async { Some(count(&c, "#late-name-a").await) }, |&n| n == 1).await;
    fill(&c, &[("late-name-a", "Ann Archer")]).await;
    click(&c, "#late-add-a").await;
    wait_text(
        &c,
        "#tournament-result",
        "INVALID_ARGUMENT: player: division a admits only bots: a registered bot (bot_account) or the server's (bot)",
    )
    .await;
    let a = get(&mut t, "bot-night").await.divisions.remove(0);
    assert_eq!(
        a.players.iter().map(|p| p.bot_account.as_str()).collect::<Vec<_>>(),
        ["alpha", "beta", "", "gamma"]
    );
    screenshot(&c, "desk-arena-en").await;
}

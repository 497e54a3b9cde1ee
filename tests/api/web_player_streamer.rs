//! The player and the streamer in the browser (issue 82, items 15, 16 and 17): the tournament page
//! that keeps its player, the pages on a phone, and an overlay that waits for its game.
//!
//! Headless Chromium at a laptop's screen (1366×768) and a phone's (390×844), in English and in
//! Russian: what the page lays out is checked by what it measures itself (each box against the
//! viewport, nothing wider than the screen), what it does against the server's own answers.
//! Screenshots go to `target/screenshots/`.

use crate::common;

use crate::browser::*;
use common::server::*;
use dawgref::proto::v1 as pb;
use fantoccini::{Client, Locator};
use pb::tournaments_service_client::TournamentsServiceClient;

const ROOT: &str = "director-secret";

/// A laptop's screen and a phone's, in CSS pixels.
const SIZES: [(u32, u32); 2] = [(1366, 768), (390, 844)];

/// A browser in `lang` whose viewport is `size`.
async fn browser_at(driver: &mut Driver, lang: &str, (width, height): (u32, u32)) -> Client {
    let c = driver.browser_in(lang).await;
    set_viewport(&c, width, height).await;
    c
}

/// The page scrolled back to its top, then where `css` lies: its box, the viewport's, whether it
/// lies inside the viewport whole, whether the page is scrolled at all and whether it scrolls
/// sideways, as the page measures them.
async fn in_view(c: &Client, css: &str) -> serde_json::Value {
    script(
        c,
        &format!(
            "window.scrollTo(0, 0);
             const r = document.querySelector({css:?}).getBoundingClientRect();
             const page = document.documentElement, [w, h] = [page.clientWidth, page.clientHeight];
             return {{ box: [r.left, r.top, r.right, r.bottom], view: [w, h],
                       inside: r.width > 0 && r.left >= 0 && r.top >= 0 && r.right <= w && r.bottom <= h,
                       scrolled: scrollX !== 0 || scrollY !== 0, scrolls_sideways: page.scrollWidth > w }}"
        ),
    )
    .await
}

/// The attribute `name` of the first element `css` matches, as written (not resolved).
async fn attr(c: &Client, css: &str, name: &str) -> Option<String> {
    let js = format!("const el = document.querySelector({css:?}); return el && el.getAttribute({name:?});");
    script(c, &js).await.as_str().map(str::to_string)
}

/// Whether the first element `css` matches is shown (takes room on the page).
async fn shown(c: &Client, css: &str) -> bool {
    let js = format!(
        "const el = document.querySelector({css:?}); return Boolean(el && el.getClientRects().length);"
    );
    script(c, &js).await == serde_json::json!(true)
}

/// The token this browser keeps (its localStorage) for tournament `slug`'s page.
async fn kept(c: &Client, slug: &str) -> Option<String> {
    let v = script(c, &format!("return localStorage.getItem('dawgref:tournament:{slug}')")).await;
    v.as_str().map(str::to_string)
}

/// The current tab's own token (its sessionStorage) for tournament `slug`'s page.
async fn in_tab(c: &Client, slug: &str) -> Option<String> {
    let v = script(c, &format!("return sessionStorage.getItem('dawgref:tournament:{slug}')")).await;
    v.as_str().map(str::to_string)
}

/// Open the page at `url` in a new tab of the same browser, and go to it.
async fn new_tab(c: &Client, url: &str) {
    let tab = c.new_window(true).await.unwrap();
    c.switch_to_window(tab.handle).await.unwrap();
    c.goto(url).await.unwrap();
}

/// Wait until the page shows the seat's rack: `tiles` tiles.
async fn wait_rack(c: &Client, tiles: usize) {
    wait_until("the rack", || async { Some(count(c, ".rack-tile").await) }, |&n| n == tiles).await;
}

/// A rated tournament `slug`, "Spring open", of one division "a": Ann Archer (1500), Bo Baker
/// (1600), Cy Cole (no rating yet) and Di Dunn (1450), its rounds paired by hand. Round 1 is
/// played (Ann beat Bo 420–380, Cy beat Di 400–350); round 2 (Ann v Cy, Bo v Di) is started, its
/// two games in play. The players' tokens by number (Ann's first), and round 2's games by pairing.
async fn spring(srv: &TestServer, slug: &str) -> (Vec<String>, Vec<String>) {
    let mut t = TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    let player = |name: &str, rating| pb::TournamentPlayerSpec {
        bot_account: String::new(),
        name: name.into(),
        rating,
        bot: None,
        lifetime_games: Some(100),
    };
    let request = pb::CreateTournamentRequest {
        allow_same_names: false,
        name: "Spring open".into(),
        slug: slug.into(),
        game: Some(pb::TournamentGameSettings::default()),
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players: vec![
                player("Ann Archer", 1500),
                player("Bo Baker", 1600),
                player("Cy Cole", 0),
                player("Di Dunn", 1450),
            ],
            rounds: vec![pb::RoundSpec { method: pb::PairingMethod::Manual as i32, ..Default::default() }; 3],
            controls: Some(pb::DivisionControls {
                rating_system: pb::RatingSystem::Nsa2008 as i32,
                ..Default::default()
            }),
            result_reports: 0,
        }],
        seed: Some(1),
    };
    let made = t.create_tournament(authed(request, ROOT)).await.unwrap().into_inner();
    round_by_hand(&mut t, ROOT, (slug, 1), &[(1, 2), (3, 4)], &[(420, 380), (400, 350)]).await;
    round_by_hand(&mut t, ROOT, (slug, 2), &[(1, 3), (2, 4)], &[]).await;
    let start =
        pb::StartRoundRequest { slug: slug.into(), division: "a".into(), round: 2, ..Default::default() };
    let round = t.start_round(authed(start, ROOT)).await.unwrap().into_inner().round.unwrap();
    let mut tokens = made.player_tokens;
    tokens.sort_by_key(|p| p.player);
    assert_eq!(tokens.iter().map(|p| p.player).collect::<Vec<_>>(), [1, 2, 3, 4]);
    let games: Vec<String> = round.pairings.iter().map(|p| p.game_id.clone()).collect();
    assert!(games.iter().all(|g| !g.is_empty()), "round 2's games: {games:?}");
    (tokens.into_iter().map(|p| p.token).collect(), games)
}

// ---- 15: the tournament page keeps its player ----

/// A player who opened their tournament's page with their link (`#token=…`) is that player on
/// the page in every tab of the browser, and after a reload, as a game's page keeps its seat: a
/// new tab with the bare address is their page, "My game" opens their seat. Clearing the box
/// forgets them in the browser, and a token the server does not know is forgotten too. A
/// director's token stays in its tab.
#[tokio::test]
async fn a_players_tournament_page_is_theirs_in_a_new_tab_and_a_directors_token_stays_in_its_tab() {
    let srv = start_directed(ROOT).await;
    let (tokens, games) = spring(&srv, "spring").await;
    let page = format!("{}/tournaments/spring", srv.url);
    let ann = "You are Ann Archer, player 1 in division a.";
    let watching = "Watching. A player's or a director's token shows more.";
    let mut driver = Driver::start().await;

    let c = driver.browser().await;
    c.goto(&format!("{page}#token={}", tokens[0])).await.unwrap();
    wait_until("Ann's page", || text(&c, "#who"), |t| t.starts_with(ann)).await;
    assert_eq!(c.current_url().await.unwrap().as_str(), page, "the token leaves the address");
    assert_eq!(kept(&c, "spring").await.as_deref(), Some(tokens[0].as_str()));
    c.refresh().await.unwrap();
    wait_until("Ann's page, reloaded", || text(&c, "#who"), |t| t.starts_with(ann)).await;
    // Another tab, the address typed bare: Ann's page, and her game's seat one click away.
    new_tab(&c, &page).await;
    wait_until("Ann's page in a new tab", || text(&c, "#who"), |t| t.starts_with(ann)).await;
    assert_eq!(in_tab(&c, "spring").await, None, "the new tab reads the browser's");
    let mine = format!("/games/{}#token={}", games[0], tokens[0]);
    assert_eq!(attr(&c, "#my-game", "href").await.as_deref(), Some(mine.as_str()));
    screenshot(&c, "tournament-kept-in-a-new-tab").await;
    click(&c, "#my-game").await;
    wait_rack(&c, 7).await;
    assert_eq!(c.current_url().await.unwrap().path(), format!("/games/{}", games[0]));
    // Ann clears the box and uses it: forgotten here and in every tab from now on.
    c.goto(&page).await.unwrap();
    wait_until("Ann's page again", || text(&c, "#who"), |t| t.starts_with(ann)).await;
    c.find(Locator::Css("#tournament-token")).await.unwrap().clear().await.unwrap();
    click(&c, "#use-token").await;
    wait_text(&c, "#who", watching).await;
    assert_eq!(kept(&c, "spring").await, None);
    new_tab(&c, &page).await;
    wait_text(&c, "#who", watching).await;
    // A token the server knows not (say, from a tournament made again): said, and forgotten.
    script(&c, "localStorage.setItem('dawgref:tournament:spring', 'nobody-s-token')").await;
    c.refresh().await.unwrap();
    wait_text(&c, "#who", watching).await;
    let said = wait_until("the refusal", || text(&c, "#tournament-result"), |t| !t.is_empty()).await;
    assert!(said.starts_with("UNAUTHENTICATED: "), "{said}");
    assert_eq!(kept(&c, "spring").await, None);
    c.close().await.unwrap();

    // A director's token: the tab's own (sessionStorage), never kept for the browser's other tabs.
    let d = driver.browser().await;
    d.goto(&page).await.unwrap();
    wait_text(&d, "#who", watching).await;
    d.find(Locator::Css("#tournament-token")).await.unwrap().send_keys(ROOT).await.unwrap();
    click(&d, "#use-token").await;
    wait_text(&d, "#who", "Directing this tournament.").await;
    assert_eq!((kept(&d, "spring").await, in_tab(&d, "spring").await), (None, Some(ROOT.to_string())));
    d.refresh().await.unwrap();
    wait_text(&d, "#who", "Directing this tournament.").await;
    new_tab(&d, &page).await;
    wait_text(&d, "#who", watching).await;
    d.close().await.unwrap();
}

// ---- 16: the pages on a phone ----

/// The tournament page, as the player Ann sees it, fits a laptop's screen and a phone's in
/// English and in Russian: nothing wider than the screen, every standings column (the rating's
/// too) whole inside it; and her own game in the round's table says "play" (the others'
/// "watch"), and opens her seat.
#[tokio::test]
async fn the_tournament_page_fits_a_phone_and_the_players_own_game_says_play_in_both_languages() {
    let srv = start_directed(ROOT).await;
    let (tokens, games) = spring(&srv, "spring").await;
    let mut driver = Driver::start().await;
    let measure = r#"
        window.scrollTo(0, 0);
        const page = document.documentElement, w = page.clientWidth;
        // What lies past the screen's edges, but inside a box of its own that slides sideways.
        const slides = (el) => el.parentElement && el.parentElement.closest('#app') && (
          ['auto', 'scroll'].includes(getComputedStyle(el.parentElement).overflowX) || slides(el.parentElement));
        const out = [...document.querySelectorAll('#app *')].filter((el) => {
          const r = el.getBoundingClientRect();
          return r.width > 0 && (r.left < -0.5 || r.right > w + 0.5) && !slides(el);
        }).map((el) => `${el.tagName}.${el.className}#${el.id}`);
        const standings = document.querySelector('#standings-a');
        const cells = [...document.querySelectorAll('#standings-a th, #standings-a td')];
        const cut = cells.filter((el) => el.scrollWidth > el.clientWidth + 0.5).map((el) => el.textContent);
        const table = document.querySelector('#standings-a').getBoundingClientRect();
        const panel = document.querySelector('#division-a').getBoundingClientRect();
        return { scrolls_sideways: page.scrollWidth > w, out, cut,
                 standings_whole: standings.scrollWidth <= standings.clientWidth,
                 table_inside_panel: table.left >= panel.left && table.right <= panel.right,
                 ratings: [...document.querySelectorAll('#standings-a td.rating')].map((el) => el.textContent) };
    "#;
    for (lang, (you, play, watch, rating)) in [
        ("en", ("You are Ann Archer, player 1 in division a.", "play", "watch", "Rating")),
        ("ru", ("Вы — Ann Archer, игрок 1 в группе a.", "играть", "смотреть", "Рейтинг")),
    ] {
        for (width, height) in SIZES {
            let at = format!("{lang} {width}×{height}");
            let c = browser_at(&mut driver, lang, (width, height)).await;
            c.goto(&format!("{}/tournaments/spring#token={}", srv.url, tokens[0])).await.unwrap();
            wait_until(&format!("Ann's page, {at}"), || text(&c, "#who"), |t| t.starts_with(you)).await;
            wait_until(
                "round 2",
                || async { Some(count(&c, "#round-a-2 tr[data-pairing]").await) },
                |&n| n == 2,
            )
            .await;
            // Her game: "play", with her token for the seat; the other game: "watch", bare.
            let row = |n: u32| format!("#round-a-2 tr[data-pairing='{n}'] a");
            assert_eq!(text(&c, &row(1)).await.as_deref(), Some(play), "{at}");
            let seat = format!("/games/{}#token={}", games[0], tokens[0]);
            assert_eq!(attr(&c, &row(1), "href").await, Some(seat), "{at}");
            assert_eq!(text(&c, &row(2)).await.as_deref(), Some(watch), "{at}");
            assert_eq!(attr(&c, &row(2), "href").await, Some(format!("/games/{}", games[1])), "{at}");
            let heads = script(
                &c,
                "return [...document.querySelectorAll('#standings-a th')].map((e) => e.textContent)",
            )
            .await;
            assert!(heads.as_array().unwrap().iter().any(|h| h == rating), "{at}: {heads}");
            screenshot(&c, &format!("tournament-player-{lang}-{width}x{height}")).await;
            let m = script(&c, measure).await;
            assert_eq!(m["scrolls_sideways"], false, "{at}: {m}");
            assert_eq!(m["out"], serde_json::json!([]), "{at}: {m}");
            assert_eq!(m["cut"], serde_json::json!([]), "{at}: {m}");
            assert_eq!(m["table_inside_panel"], true, "{at}: {m}");
            assert_eq!(m["standings_whole"], true, "{at}: {m}");
            assert_eq!(m["ratings"].as_array().map(Vec::len), Some(4), "{at}: {m}");
            click(&c, &row(1)).await;
            wait_rack(&c, 7).await;
            assert_eq!(c.current_url().await.unwrap().path(), format!("/games/{}", games[0]), "{at}");
            c.close().await.unwrap();
        }
    }
    // A watcher: both games say "watch".
    let c = driver.browser().await;
    c.goto(&format!("{}/tournaments/spring", srv.url)).await.unwrap();
    wait_until("round 2", || async { Some(count(&c, "#round-a-2 tr[data-pairing]").await) }, |&n| n == 2)
        .await;
    let links =
        script(&c, "return [...document.querySelectorAll('#round-a-2 a')].map((a) => a.textContent)").await;
    assert_eq!(links, serde_json::json!(["watch", "watch"]));
    c.close().await.unwrap();
}

/// The best play for the seat of `token` that uses no blank, with its score as the server
/// counts it.
async fn best_without_blank(srv: &TestServer, game_id: &str, token: &str) -> pb::GenerateMovesResponse {
    let mut a = srv.analysis().await;
    let req = pb::GenerateMovesRequest {
        position: Some(pb::Position {
            source: Some(pb::position::Source::GameId(game_id.into())),
            lexicon: String::new(),
        }),
        ..Default::default()
    };
    let mut moves = a.generate_moves(authed(req, token)).await.unwrap().into_inner();
    while let Some(m) = moves.message().await.unwrap() {
        if m.play.as_ref().unwrap().tiles.iter().all(|t| !t.blank) {
            return m;
        }
    }
    panic!("no play without a blank");
}

/// A game against the strong bot made from the lobby (seed 7, English): its id and seat 0's
/// token, as the page keeps it.
async fn game_from_lobby(c: &Client, base: &str) -> (String, String) {
    c.goto(&format!("{base}/?seed=7")).await.unwrap();
    let select = c.wait().for_element(Locator::Css("#ruleset")).await.unwrap();
    select.select_by_value("english").await.unwrap();
    c.find(Locator::Css("#name")).await.unwrap().send_keys("Ada").await.unwrap();
    click(c, "#create").await;
    let url = wait_until(
        "the game's page",
        || async { c.current_url().await.ok() },
        |u| u.path().starts_with("/games/"),
    )
    .await;
    let id = url.path().trim_start_matches("/games/").to_string();
    wait_rack(c, 7).await;
    let token = script(c, &format!("return localStorage.getItem('dawgref:token:{id}')")).await;
    (id, token.as_str().expect("the seat's token, kept").to_string())
}

/// Which rack tiles (by index) are picked, and which are on the board.
async fn rack_state(c: &Client) -> serde_json::Value {
    script(
        c,
        "const of = (css) => [...document.querySelectorAll(css)].map((el) => Number(el.dataset.index));
         return { selected: of('.rack-tile.selected'), used: of('.rack-tile.used') };",
    )
    .await
}

/// The tiles being placed on the board: [row, col, letter] each.
async fn placed(c: &Client) -> serde_json::Value {
    script(
        c,
        "return [...document.querySelectorAll('#board .tile.pending')].map((t) => {
           const sq = t.closest('.sq');
           return [Number(sq.dataset.row), Number(sq.dataset.col), t.querySelector('.letter').textContent];
         });",
    )
    .await
}

/// On a laptop's screen and a phone's, in English and in Russian: a play is placed by tapping each
/// tile on the rack, then its square (a second tap on a tile lets it go; a tap on a placed tile
/// takes it back), as on a phone; the score preview and Submit are then in view without scrolling,
/// and the hint under the buttons says how on the phone (the rack's, on the laptop).
#[tokio::test]
async fn a_tile_is_placed_by_two_taps_and_the_preview_and_submit_are_in_view_on_a_phone_in_both_languages() {
    let srv = start().await;
    let mut driver = Driver::start().await;
    for (lang, (touch, rack_hint)) in [
        (
            "en",
            (
                "Tap a tile, then a square: it goes there. Tap a placed tile on the rack to take it back.",
                "Click a square and type letters (arrows move, Space turns, Backspace takes back, Enter submits), drag tiles, or click a tile then a square. A letter you lack uses a blank.",
            ),
        ),
        (
            "ru",
            (
                "Коснитесь фишки, затем клетки — фишка встанет туда. Коснитесь поставленной фишки в наборе, чтобы вернуть её.",
                "Щёлкните клетку и печатайте буквы (стрелки двигают, пробел поворачивает, Backspace возвращает, Enter отправляет), перетаскивайте фишки или щёлкните фишку, затем клетку. Недостающую букву заменит пустышка.",
            ),
        ),
    ] {
        for (width, height) in SIZES {
            let at = format!("{lang} {width}×{height}");
            let c = browser_at(&mut driver, lang, (width, height)).await;
            let (id, token) = game_from_lobby(&c, &srv.url).await;
            let best = best_without_blank(&srv, &id, &token).await;
            let play = best.play.as_ref().unwrap();
            let rack =
                view_of(&mut srv.games().await, authed(pb::GetGameRequest { game_id: id.clone() }, &token))
                    .await
                    .my_rack;
            let mut free: Vec<Option<char>> = rack.chars().map(Some).collect();
            let index_of = |free: &mut Vec<Option<char>>, letter: &str| {
                let ch = letter.chars().next().unwrap();
                let i =
                    free.iter().position(|&x| x == Some(ch)).unwrap_or_else(|| panic!("{letter} on {rack}"));
                free[i] = None;
                i
            };
            let tile = |i: usize| format!(".rack-tile[data-index='{i}']");
            let square = |t: &pb::Tile| format!("#sq-{}-{}", t.row, t.col);
            // The first tile: picked, let go, picked again, placed, taken back, placed again.
            let first = &play.tiles[0];
            let i = index_of(&mut free, &first.letter);
            click(&c, &tile(i)).await;
            let picked = serde_json::json!({ "selected": [i], "used": [] });
            wait_until(
                &format!("tile {i} picked, {at}"),
                || async { Some(rack_state(&c).await) },
                |s| *s == picked,
            )
            .await;
            click(&c, &tile(i)).await;
            let none = serde_json::json!({ "selected": [], "used": [] });
            wait_until("the tile let go", || async { Some(rack_state(&c).await) }, |s| *s == none).await;
            click(&c, &tile(i)).await;
            wait_until("the tile picked again", || async { Some(rack_state(&c).await) }, |s| *s == picked)
                .await;
            click(&c, &square(first)).await;
            let one = serde_json::json!([[first.row, first.col, first.letter]]);
            wait_until("the tile on its square", || async { Some(placed(&c).await) }, |p| *p == one).await;
            assert_eq!(rack_state(&c).await, serde_json::json!({ "selected": [], "used": [i] }), "{at}");
            click(&c, &tile(i)).await;
            wait_until(
                "the tile taken back",
                || async { Some(placed(&c).await) },
                |p| *p == serde_json::json!([]),
            )
            .await;
            assert_eq!(rack_state(&c).await, none, "{at}");
            let mut indices = vec![i];
            click(&c, &tile(i)).await;
            click(&c, &square(first)).await;
            for t in &play.tiles[1..] {
                let i = index_of(&mut free, &t.letter);
                indices.push(i);
                click(&c, &tile(i)).await;
                click(&c, &square(t)).await;
            }
            let all: Vec<_> =
                play.tiles.iter().map(|t| serde_json::json!([t.row, t.col, t.letter])).collect();
            wait_until(
                "the play on its squares",
                || async { Some(placed(&c).await) },
                |p| {
                    let mut p = p.as_array().cloned().unwrap_or_default();
                    p.sort_by_key(|x| x.to_string());
                    let mut want = all.clone();
                    want.sort_by_key(|x| x.to_string());
                    p == want
                },
            )
            .await;
            wait_text(&c, "#preview-score", &best.score.to_string()).await;
            // The preview and Submit in view, the page not scrolled, nothing wider than the screen.
            for css in ["#preview", "#submit", "#rack", "#board .board"] {
                let seen = in_view(&c, css).await;
                assert_eq!(
                    (&seen["inside"], &seen["scrolled"], &seen["scrolls_sideways"]),
                    (&serde_json::json!(true), &serde_json::json!(false), &serde_json::json!(false)),
                    "{css} at {at}: {seen}"
                );
            }
            let phone = width < 600;
            assert_eq!(shown(&c, "#touch-hint").await, phone, "{at}");
            assert_eq!(shown(&c, ".left .hint").await, !phone, "{at}");
            assert_eq!(
                text(&c, "#touch-hint").await.as_deref(),
                if phone { Some(touch) } else { Some("") },
                "{at}"
            );
            let hint = script(&c, "return document.querySelector('.left .hint').textContent").await;
            assert_eq!(hint, rack_hint, "{at}");
            screenshot(&c, &format!("game-taps-{lang}-{width}x{height}")).await;
            click(&c, "#submit").await;
            wait_text(&c, "#score-0", &best.score.to_string()).await;
            c.close().await.unwrap();
        }
    }
}

// ---- 17: an overlay that waits for its game ----

/// WatchBroadcast's refusal of one game: its code and words.
async fn refusal(srv: &TestServer, slug: &str, game_id: &str) -> (tonic::Code, String) {
    let request = pb::WatchBroadcastRequest { slug: slug.into(), game_id: game_id.into() };
    let refused = srv.broadcasts().await.watch_broadcast(request).await.expect_err("refused");
    (refused.code(), refused.message().to_string())
}

/// An overlay opened before its game is out (a game the broadcast covers, made less than its
/// delay ago) says that the game is not shown yet, and comes alive by itself once it is (the
/// director shortens the delay), with the delay as it now is. It looks exactly the same as the
/// overlay of a game the broadcast does not cover and of one that does not exist, which never
/// come alive: nothing tells a spectator which games exist. The server's refusal says the same
/// words for each too. In English and in Russian.
#[tokio::test]
async fn an_overlay_opened_before_its_game_is_out_waits_and_comes_alive_in_both_languages() {
    let srv = start_directed(ROOT).await;
    let made = pb::CreateBroadcastRequest {
        slug: "cup-live".into(),
        name: "The Cup, live".into(),
        labels: [("tournament".to_string(), "cup".to_string())].into(),
        delay_seconds: 3600,
        reveal_racks: true,
        analysis: false,
        analysis_ms: 0,
    };
    srv.broadcasts().await.create_broadcast(authed(made, ROOT)).await.unwrap();
    let mut g = srv.games().await;
    let game = |label: &str, seed: u64| {
        let mut request =
            create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("Ann"), human("Bo")], seed);
        request.labels = [("tournament".to_string(), label.to_string())].into();
        authed(request, ROOT)
    };
    // Two games of the cup, not out for an hour (one for each language), one of another event,
    // and an id of no game.
    let en_game = g.create_game(game("cup", 3)).await.unwrap().into_inner().game_id;
    let ru_game = g.create_game(game("cup", 4)).await.unwrap().into_inner().game_id;
    let other = g.create_game(game("other", 5)).await.unwrap().into_inner().game_id;
    let nobody = uuid::Uuid::new_v4().to_string();
    for id in [&en_game, &other, &nobody] {
        let words =
            format!("broadcast \"cup-live\" has not shown game {id} (not out yet, or not one it covers)");
        assert_eq!(refusal(&srv, "cup-live", id).await, (tonic::Code::NotFound, words));
    }

    let mut driver = Driver::start().await;
    let overlay = |id: &str| format!("{}/broadcasts/cup-live/games/{id}/overlay", srv.url);
    let look = "return [document.title, document.getElementById('bc-overlay').outerHTML]";
    let mut pages = Vec::new();
    for (lang, game, (title, line)) in [
        (
            "en",
            &en_game,
            (
                "Not shown yet",
                "The board appears here as soon as the broadcast shows this game: the overlay asks every few seconds.",
            ),
        ),
        (
            "ru",
            &ru_game,
            (
                "Ещё не показана",
                "Доска появится здесь, как только трансляция покажет эту партию: оверлей проверяет каждые несколько секунд.",
            ),
        ),
    ] {
        let c = driver.browser_in(lang).await;
        let mut looks = Vec::new();
        for id in [other.as_str(), nobody.as_str(), game.as_str()] {
            c.goto(&overlay(id)).await.unwrap();
            wait_text(&c, "#bc-ov-waiting-title", title).await;
            wait_text(&c, "#bc-ov-waiting .bc-ov-waiting-line", line).await;
            assert_eq!(count(&c, "#bc-overlay .board").await, 0);
            looks.push(script(&c, look).await);
        }
        assert_eq!(looks[0], looks[1], "{lang}: another event's game and no game look the same");
        assert_eq!(looks[1], looks[2], "{lang}: a game not out yet looks the same");
        screenshot(&c, &format!("overlay-waiting-{lang}")).await;
        pages.push((c, lang, looks.pop().unwrap()));
    }
    // Another event's game, in a window of its own: it waits on.
    let stays = driver.browser().await;
    stays.goto(&overlay(&other)).await.unwrap();
    wait_text(&stays, "#bc-ov-waiting-title", "Not shown yet").await;
    let before = script(&stays, look).await;

    // The director brings the delay down to a second: both cup games come out, and their overlays
    // come alive with no reload: the board, the names, the racks, the delay as it now is.
    let update =
        pb::UpdateBroadcastRequest { slug: "cup-live".into(), delay_seconds: Some(1), ..Default::default() };
    srv.broadcasts().await.update_broadcast(authed(update, ROOT)).await.unwrap();
    for (c, lang, _) in &pages {
        wait_until(&format!("the board, {lang}"), || count_of(c, "#bc-overlay .board"), |&n| n == 1).await;
        assert_eq!(count(c, "#bc-ov-waiting").await, 0, "{lang}");
        let names = script(
            c,
            "return [...document.querySelectorAll('.bc-ov-seat .bc-name')].map((e) => e.textContent)",
        )
        .await;
        assert_eq!(names, serde_json::json!(["Ann", "Bo"]), "{lang}");
        wait_until("both racks", || count_of(c, "#bc-overlay .bc-ov-rack"), |&n| n == 2).await;
        let delay = if *lang == "en" { "1 s behind the hall" } else { "на 1 с позже зала" };
        wait_text(c, "#bc-ov-delay", delay).await;
        screenshot(c, &format!("overlay-alive-{lang}")).await;
    }
    assert_eq!(script(&stays, look).await, before, "another event's game shows nothing");

    // The broadcast ends: the boards stay as last shown, and say so where the delay was; the
    // overlay still waiting says so too, and asks no more.
    let end = pb::EndBroadcastRequest { slug: "cup-live".into() };
    srv.broadcasts().await.end_broadcast(authed(end, ROOT)).await.unwrap();
    for (c, lang, _) in &pages {
        let ended =
            if *lang == "en" { "The broadcast has ended." } else { "Трансляция окончена." };
        wait_text(c, "#bc-ov-delay", ended).await;
        assert_eq!(count(c, "#bc-overlay .board").await, 1, "{lang}");
    }
    wait_text(&stays, "#bc-ov-waiting-title", "The broadcast has ended.").await;
    for (c, _, _) in pages {
        c.close().await.unwrap();
    }
    stays.close().await.unwrap();
}

/// How many elements match `css` (always an answer, for `wait_until`).
async fn count_of(c: &Client, css: &str) -> Option<usize> {
    Some(count(c, css).await)
}

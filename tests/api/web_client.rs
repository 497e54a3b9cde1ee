//! The browser client in a real browser (headless Chromium over WebDriver), against an
//! in-process server: a game against the bot made from the lobby and played by clicking and
//! typing, watched live from a second browser, the director's overview and record check, and
//! a Cyrillic word. Screenshots of every page go to `target/screenshots/`.

use crate::common;

use crate::browser::*;
use common::server::*;
use dawgref::proto::v1 as pb;
use fantoccini::{Client, Locator};

/// The best first play that uses no blank (typing a letter the rack holds uses that tile, so a
/// play with a blank would be typed as another play), with its score as the server counts it.
async fn first_play_without_blank(srv: &TestServer, game_id: &str, token: &str) -> pb::GenerateMovesResponse {
    best_play_that(srv, game_id, token, |_| true).await.expect("a play without a blank")
}

/// The best play for the rack of `token`'s seat that uses no blank and is `wanted`, if any.
async fn best_play_that(
    srv: &TestServer,
    game_id: &str,
    token: &str,
    wanted: impl Fn(&pb::Play) -> bool,
) -> Option<pb::GenerateMovesResponse> {
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
        let play = m.play.as_ref().unwrap();
        if play.tiles.iter().all(|t| !t.blank) && wanted(play) {
            return Some(m);
        }
    }
    None
}

/// The first turn of a game, played by seat 0 (whose `token` it is) through the API: its best
/// play without a blank, as [`first_play_without_blank`] finds it, answered.
async fn play_first_turn(srv: &TestServer, game_id: &str, token: &str) -> pb::GenerateMovesResponse {
    let best = first_play_without_blank(srv, game_id, token).await;
    let play = Some(pb::submit_turn_request::Action::Play(best.play.clone().unwrap()));
    srv.games().await.submit_turn(authed(turn(game_id, 0, play), token)).await.unwrap();
    best
}

/// The game id in the page's address, once the page is a game's.
async fn game_id_of(c: &Client) -> String {
    let url = wait_until(
        "the game's page",
        || async { c.current_url().await.ok() },
        |u| u.path().starts_with("/games/"),
    )
    .await;
    url.path().trim_start_matches("/games/").to_string()
}

/// Create a game against the strong bot from the lobby, in `ruleset` (an option's value).
async fn create_from_lobby(c: &Client, base: &str, ruleset: &str, seed: u64) -> String {
    c.goto(&format!("{base}/?seed={seed}")).await.unwrap();
    let select = c.wait().for_element(Locator::Css("#ruleset")).await.unwrap();
    select.select_by_value(ruleset).await.unwrap();
    c.find(Locator::Css("#name")).await.unwrap().send_keys("Ada").await.unwrap();
    click(c, "#create").await;
    let id = game_id_of(c).await;
    wait_until("the rack", || async { Some(count(c, ".rack-tile").await) }, |&n| n == 7).await;
    id
}

/// Place a play's tiles by clicking its first square, setting the direction, and typing.
async fn type_play(c: &Client, play: &pb::Play) {
    let first = &play.tiles[0];
    let across = play.tiles.iter().all(|t| t.row == first.row);
    click(c, &format!("#sq-{}-{}", first.row, first.col)).await;
    let want = if across { "across" } else { "down" };
    // A click can land on a button the page is just redrawing (a watched event arrived): it is
    // lost, as a user's would be, so the toggle is clicked again until the page shows the way.
    wait_until(
        "the direction",
        || async {
            let shown = text(c, "#direction").await;
            if !shown.as_deref().unwrap_or_default().contains(want)
                && let Ok(button) = c.find(Locator::Css("#direction")).await
            {
                let _ = button.click().await;
                tokio::time::sleep(std::time::Duration::from_millis(150)).await;
                return text(c, "#direction").await;
            }
            shown
        },
        |t| t.contains(want),
    )
    .await;
    let letters: String = play.tiles.iter().map(|t| t.letter.as_str()).collect();
    c.find(Locator::Css("#board-input")).await.unwrap().send_keys(&letters.to_lowercase()).await.unwrap();
}

/// The token this browser keeps for a game's seat (its localStorage), if any.
async fn kept_token(c: &Client, game_id: &str) -> Option<String> {
    let v = script(c, &format!("return localStorage.getItem('dawgref:token:{game_id}')")).await;
    v.as_str().map(str::to_string)
}

/// The user's token for a game, as the page keeps it.
async fn token_in_page(c: &Client, game_id: &str) -> String {
    kept_token(c, game_id).await.expect("the page holds the seat's token")
}

/// The seat's rack, shown: the page is the seat's (7 tiles), or a watcher's (none).
async fn wait_rack(c: &Client, tiles: usize) {
    wait_until("the rack", || async { Some(count(c, ".rack-tile").await) }, |&n| n == tiles).await;
}

#[tokio::test]
async fn a_game_against_the_bot_is_played_from_the_page_and_watched_live() {
    let srv = start().await;
    let mut driver = Driver::start().await;
    let player = driver.browser().await;
    let id = create_from_lobby(&player, &srv.url, "english", 7).await;
    screenshot(&player, "game-start").await;
    let token = token_in_page(&player, &id).await;
    assert!(!player.current_url().await.unwrap().as_str().contains(&token), "the token stays out of the URL");

    let best = first_play_without_blank(&srv, &id, &token).await;
    type_play(&player, best.play.as_ref().unwrap()).await;
    // The preview's score is the server's.
    wait_text(&player, "#preview-score", &best.score.to_string()).await;
    screenshot(&player, "game-preview").await;
    click(&player, "#submit").await;
    wait_text(&player, "#score-0", &best.score.to_string()).await;
    // The bot answers: its score changes and two plays are listed.
    let bot_score = wait_until("the bot's answer", || text(&player, "#score-1"), |s| s != "0").await;
    wait_until("two moves listed", || async { Some(count(&player, "#moves li").await) }, |&n| n == 2).await;
    let view = view_of(&mut srv.games().await, pb::GetGameRequest { game_id: id.clone() }).await;
    assert_eq!(view.seats[0].score, best.score);
    assert_eq!(view.seats[1].score.to_string(), bot_score);
    screenshot(&player, "game-after-bot").await;

    // A second browser, with no token: the same moves, no rack, and the next move live.
    let watcher = driver.browser().await;
    watcher.goto(&format!("{}/games/{id}", srv.url)).await.unwrap();
    wait_until("the watcher's move list", || async { Some(count(&watcher, "#moves li").await) }, |&n| n == 2)
        .await;
    assert_eq!(count(&watcher, ".rack-tile").await, 0, "a watcher sees no rack");
    wait_text(&watcher, "#score-0", &best.score.to_string()).await;
    assert_eq!(kept_token(&watcher, &id).await, None, "the watcher's browser holds no token");
    // The player exchanges two tiles: marked by clicking them, then sent.
    click(&player, "#exchange").await;
    for i in 0..2 {
        let tile = format!(".rack-tile[data-index='{i}']");
        click(&player, &tile).await;
    }
    wait_text(&player, "#exchange", "Exchange 2").await;
    click(&player, "#exchange").await;
    wait_until(
        "the exchange and the bot's answer, live",
        || async { Some(count(&watcher, "#moves li").await) },
        |&n| n >= 4,
    )
    .await;
    // A watcher sees how many tiles, not which; the player sees its own.
    wait_text(&watcher, "#moves li:nth-child(3) .what", "exchange 2").await;
    let third = "#moves li:nth-child(3) .what";
    wait_until(
        "the player's own tiles",
        || text(&player, third),
        |t| t.starts_with("exchange ") && t.chars().count() == 11,
    )
    .await;
    screenshot(&watcher, "game-watched").await;
    player.close().await.unwrap();
    watcher.close().await.unwrap();
}

/// A player comes back to their seat: after a reload, in a new tab, and with the seat's link in
/// another browser (a fresh profile); the token never shows in an address the server sees.
/// Leaving the seat forgets it on that browser: its page is a watcher's from then on.
#[tokio::test]
async fn a_seat_is_kept_through_a_reload_a_new_tab_and_its_link_and_leaving_forgets_it() {
    let srv = start().await;
    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    let id = create_from_lobby(&c, &srv.url, "english", 7).await;
    let token = token_in_page(&c, &id).await;
    let page = format!("{}/games/{id}", srv.url);
    c.refresh().await.unwrap();
    wait_rack(&c, 7).await;
    // A new tab of the same browser, the game's address typed in: the seat, not a watcher's page.
    let tab = c.new_window(true).await.unwrap();
    c.switch_to_window(tab.handle).await.unwrap();
    c.goto(&page).await.unwrap();
    wait_rack(&c, 7).await;
    assert_eq!(count(&c, ".watching").await, 0);
    // The seat's link carries the token in the fragment, which no request carries.
    let link = wait_until(
        "the seat's link",
        || async { c.find(Locator::Css("#seat-link")).await.ok()?.prop("value").await.ok()? },
        |l| !l.is_empty(),
    )
    .await;
    assert_eq!(link, format!("{page}#token={token}"));
    screenshot(&c, "game-seat-link").await;
    c.close().await.unwrap();

    // Another browser (nothing kept) opens the link: the seat, kept there, the address clean.
    let other = driver.browser().await;
    other.goto(&link).await.unwrap();
    wait_rack(&other, 7).await;
    assert_eq!(other.current_url().await.unwrap().as_str(), page, "the token leaves the address");
    assert_eq!(kept_token(&other, &id).await.as_deref(), Some(token.as_str()));
    other.refresh().await.unwrap();
    wait_rack(&other, 7).await;
    // Leaving: asked first, then the token is forgotten and the page is a watcher's.
    click(&other, "#seat-panel summary").await;
    click(&other, "#leave-seat").await;
    other.accept_alert().await.unwrap();
    wait_text(&other, ".watching", "Watching: racks stay hidden.").await;
    assert_eq!(count(&other, ".rack-tile").await, 0);
    assert_eq!(kept_token(&other, &id).await, None);
    other.refresh().await.unwrap();
    wait_text(&other, ".watching", "Watching: racks stay hidden.").await;
    other.close().await.unwrap();
}

/// A play that extends a word on the board, placed tile by tile: its toast and its line in the
/// move list write it as the server's notation writes the same play, the whole word with the
/// letters played through as dots ("F8 .OJI", not "F9 OJI").
#[tokio::test]
async fn a_play_extending_a_word_is_written_with_the_letters_it_plays_through() {
    let srv = start().await;
    let mut g = srv.games().await;
    let created = two_humans(&mut g, 21).await;
    let id = created.game_id.clone();
    play_first_turn(&srv, &id, &created.seat_tokens[0]).await;
    // Seat 1's best play that begins on a tile already there, with no blank.
    let token = &created.seat_tokens[1];
    let through = best_play_that(&srv, &id, token, |p| {
        p.notation.split_once(' ').is_some_and(|(_, word)| word.starts_with('.'))
    })
    .await;
    let through = through.expect("a play extending a word");
    let notation = through.play.as_ref().unwrap().notation.clone();

    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    c.goto(&format!("{}/games/{id}#token={token}", srv.url)).await.unwrap();
    wait_rack(&c, 7).await;
    type_play(&c, through.play.as_ref().unwrap()).await;
    wait_text(&c, "#preview-score", &through.score.to_string()).await;
    click(&c, "#submit").await;
    let toast = wait_until("the play's toast", || text(&c, "#toast"), |t| !t.is_empty()).await;
    assert_eq!(toast, format!("{notation}: {} points", through.score));
    wait_until("the move list", || text(&c, "#moves li:nth-child(2) .what"), |t| t.starts_with(&notation))
        .await;
    c.close().await.unwrap();
}

/// Whether the element `css` lies inside the viewport (without its scrollbars), whole, and whether
/// the page scrolls sideways: its box and the viewport's, as the page measures them.
async fn in_view(c: &Client, css: &str) -> serde_json::Value {
    script(
        c,
        &format!(
            "const r = document.querySelector({css:?}).getBoundingClientRect();
             const page = document.documentElement, [w, h] = [page.clientWidth, page.clientHeight];
             return {{ box: [r.left, r.top, r.right, r.bottom], view: [w, h],
                       inside: r.left >= 0 && r.top >= 0 && r.right <= w && r.bottom <= h,
                       scrolls_sideways: page.scrollWidth > w }}"
        ),
    )
    .await
}

/// The game page fits a laptop's screen and a phone's: the whole board and the whole rack, its
/// tiles' values too, in view without scrolling, and nothing wider than the screen.
#[tokio::test]
async fn the_game_fits_a_laptop_and_a_phone_with_the_rack_in_view() {
    let srv = start().await;
    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    create_from_lobby(&c, &srv.url, "english", 7).await;
    for (width, height, name) in
        [(1400, 900, "game-1400x900"), (1366, 768, "game-laptop"), (390, 844, "game-phone")]
    {
        assert_eq!(set_viewport(&c, width, height).await, (width, height));
        for css in ["#rack", "#board .board"] {
            let seen = wait_until(
                &format!("{css} in view at {width}×{height}"),
                || async { Some(in_view(&c, css).await) },
                |v| v["inside"] == true && v["scrolls_sideways"] == false,
            )
            .await;
            let bottom = seen["box"][3].as_f64().unwrap();
            assert!(bottom <= f64::from(height), "{css} at {width}×{height}: {seen}");
        }
        // The board is as large as the screen allows, not a stamp: at least half its narrower side.
        let board = in_view(&c, "#board .board").await;
        let side = board["box"][2].as_f64().unwrap() - board["box"][0].as_f64().unwrap();
        assert!(
            side >= 0.5 * f64::from(width.min(height)),
            "the board is {side} px wide at {width}×{height}"
        );
        screenshot(&c, name).await;
    }
    c.close().await.unwrap();
}

#[tokio::test]
async fn a_cyrillic_word_is_placed_and_scored() {
    let srv = start().await;
    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    let id = create_from_lobby(&c, &srv.url, "russian", 11).await;
    let token = token_in_page(&c, &id).await;
    let best = first_play_without_blank(&srv, &id, &token).await;
    let play = best.play.as_ref().unwrap();
    assert!(play.tiles.iter().all(|t| t.letter.chars().all(|ch| ('А'..='Я').contains(&ch) || ch == 'Ё')));
    type_play(&c, play).await;
    wait_text(&c, "#preview-score", &best.score.to_string()).await;
    click(&c, "#submit").await;
    wait_text(&c, "#score-0", &best.score.to_string()).await;
    let first = &play.tiles[0];
    // The board is drawn again when the bot's reply arrives: a square found just before may be
    // gone by the time it is read, so it is found and read again until it answers.
    let square = format!("#sq-{}-{}", first.row, first.col);
    wait_until(
        "the played square's label",
        || async { c.find(Locator::Css(&square)).await.ok()?.attr("aria-label").await.ok().flatten() },
        |label: &String| label.contains(&first.letter),
    )
    .await;
    screenshot(&c, "game-russian").await;
    c.close().await.unwrap();
}

#[tokio::test]
async fn the_director_lists_games_opens_one_and_checks_a_record() {
    let srv = start_directed("director-secret").await;
    let mut g = srv.games().await;
    let game = g
        .create_game(create(
            pb::Ruleset::English,
            pb::ChallengeRule::Single,
            vec![human("Alice"), bot(pb::BotLevel::Strong)],
            3,
        ))
        .await
        .unwrap()
        .into_inner();
    let other = two_humans(&mut g, 4).await;

    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    c.goto(&format!("{}/director", srv.url)).await.unwrap();
    c.wait()
        .for_element(Locator::Css("#director-token"))
        .await
        .unwrap()
        .send_keys("director-secret")
        .await
        .unwrap();
    click(&c, "#director-go").await;
    wait_text(&c, "#list-info", "2 live games").await;
    assert_eq!(count(&c, &format!(".table-card[data-game='{}']", other.game_id)).await, 1);
    let alice = format!(".table-card[data-game='{}'] .name", game.game_id);
    wait_until("Alice's table", || text(&c, &alice), |t| t == "Alice").await;
    // Finding by player.
    c.find(Locator::Css("#query")).await.unwrap().send_keys("alic").await.unwrap();
    wait_text(&c, "#list-info", "1 live game").await;
    screenshot(&c, "director").await;
    // The list redraws as it refreshes: `click` finds the card again if it was redrawn.
    click(&c, &format!(".table-card[data-game='{}']", game.game_id)).await;
    assert_eq!(game_id_of(&c).await, game.game_id);
    wait_until("the board", || async { Some(count(&c, "[role=gridcell]").await) }, |&n| n == 225).await;
    assert_eq!(count(&c, ".rack-tile").await, 0, "the director sees no rack");

    // A record with a wrong score: the page shows the lines the server found.
    let record = std::fs::read_to_string("tests/data/gcg/josh2.gcg").unwrap();
    let mut lines: Vec<String> = record.lines().map(str::to_string).collect();
    let at = lines.iter().position(|l| l.starts_with('>') && l.split_whitespace().count() >= 5).unwrap();
    let mut fields: Vec<String> = lines[at].split_whitespace().map(str::to_string).collect();
    let n = fields.len();
    let score: i32 = fields[n - 2].trim_start_matches('+').parse().unwrap();
    fields[n - 2] = format!("+{}", score + 5);
    lines[at] = fields.join(" ");
    let tampered = lines.join("\n") + "\n";
    let expected = g
        .import_gcg(pb::ImportGcgRequest { gcg: tampered.clone(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert!(!expected.ok && !expected.mismatches.is_empty());
    let dir = common::server::TempDir::new("gcg-upload");
    let path = dir.0.join("tampered.gcg");
    std::fs::write(&path, &tampered).unwrap();

    c.goto(&format!("{}/director", srv.url)).await.unwrap();
    let file = c.wait().for_element(Locator::Css("#gcg-file")).await.unwrap();
    file.send_keys(path.to_str().unwrap()).await.unwrap();
    wait_until("the record in the page", || script_text(&c, "#gcg-text"), |t| t.starts_with('#')).await;
    click(&c, "#import").await;
    let rows =
        wait_until("the mismatches", || async { Some(count(&c, "#mismatches tbody tr").await) }, |&n| n > 0)
            .await;
    assert_eq!(rows, expected.mismatches.len());
    let first_line = text(&c, "#mismatches tbody tr td").await.unwrap();
    assert_eq!(first_line, expected.mismatches[0].line.to_string());
    screenshot(&c, "director-import").await;
    c.close().await.unwrap();
}

/// A form field's value.
async fn script_text(c: &Client, css: &str) -> Option<String> {
    let v = script(c, &format!("return document.querySelector({css:?}).value")).await;
    v.as_str().map(str::to_string)
}

#[tokio::test]
async fn a_friend_joins_by_link_and_a_resignation_ends_the_game_on_both_pages() {
    let srv = start().await;
    let mut driver = Driver::start().await;
    let host = driver.browser().await;
    host.goto(&format!("{}/?seed=5", srv.url)).await.unwrap();
    host.wait().for_element(Locator::Css("#name")).await.unwrap().send_keys("Ada").await.unwrap();
    host.find(Locator::Css(".seat-kind")).await.unwrap().select_by_value("open").await.unwrap();
    let minutes = host.find(Locator::Css("#minutes")).await.unwrap();
    minutes.clear().await.unwrap();
    minutes.send_keys("10").await.unwrap();
    click(&host, "#create").await;
    let id = game_id_of(&host).await;
    let link = wait_until(
        "the invitation",
        || async { host.find(Locator::Css("#invite-link")).await.ok()?.prop("value").await.ok()? },
        |l| !l.is_empty(),
    )
    .await;
    assert_eq!(link, format!("{}/games/{id}", srv.url));
    // Ten minutes each, counting down on the seat to move.
    let running = ".seat[data-seat='0'] .clock";
    wait_until(
        "the mover's clock",
        || text(&host, running),
        |t| t.starts_with("10:00") || t.starts_with("9:"),
    )
    .await;
    wait_text(&host, ".seat[data-seat='1'] .clock", "10:00").await;

    let friend = driver.browser().await;
    friend.goto(&link).await.unwrap();
    friend.wait().for_element(Locator::Css("#join-name")).await.unwrap().send_keys("Bea").await.unwrap();
    click(&friend, ".join button").await;
    wait_until("the friend's rack", || async { Some(count(&friend, ".rack-tile").await) }, |&n| n == 7).await;
    wait_until(
        "the friend's name on the host's page",
        || text(&host, ".seat[data-seat='1'] .name"),
        |n| n.starts_with("Bea"),
    )
    .await;
    assert_eq!(count(&host, "#invite-link").await, 0, "no seat is open any more");

    click(&friend, "#resign").await;
    friend.accept_alert().await.unwrap();
    for page in [&host, &friend] {
        let over =
            wait_until("the end of the game", || text(page, "#game-over"), |t| t.contains("Winner")).await;
        assert!(over.contains("Winner: Ada"), "{over}");
    }
    screenshot(&friend, "game-over").await;
    host.close().await.unwrap();
    friend.close().await.unwrap();
}

/// The page's protobuf codec against prost: the same bytes both ways, for negative, optional,
/// oneof, repeated, nested, 64-bit and Cyrillic fields.
#[tokio::test]
async fn the_pages_codec_reads_and_writes_what_prost_does() {
    use prost::Message;
    let srv = start().await;
    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    c.goto(&format!("{}/director", srv.url)).await.unwrap();
    let event = pb::WatchGameResponse {
        number: 1 << 40,
        seat: 1,
        kind: "play".into(),
        play: Some(pb::Play {
            notation: "8H ЁЖ".into(),
            tiles: vec![
                pb::Tile { row: 7, col: 7, letter: "Ё".into(), blank: false },
                pb::Tile { row: 7, col: 8, letter: "Ж".into(), blank: true },
            ],
        }),
        words: vec!["ЁЖ".into(), "A".into()],
        points: -15,
        cumulative: -3,
        challenger: Some(0),
        acceptable: Some(false),
        time_ms: 123_456_789_012,
        verdicts: vec![
            pb::ChallengedWord { word: "ЁЖ".into(), valid: true },
            pb::ChallengedWord { word: "A".into(), valid: false },
        ],
        text: "a director's reason".into(),
        delta_ms: -90_000,
        undone: true,
        ..Default::default()
    };
    let word = pb::FoundWord {
        word: "QI".into(),
        with_blanks: "qI".into(),
        length: 2,
        probability: 0.006_060_606_060_606_061,
        ..Default::default()
    };
    let turn = pb::SubmitTurnRequest {
        game_id: "g".into(),
        expected_turn: Some(0),
        request_id: String::new(),
        action: Some(pb::submit_turn_request::Action::Pass(pb::Pass {})),
    };
    // Packed repeated doubles (a broadcast's chances to win), as prost writes them.
    let analysis =
        pb::MoveAnalysis { turn: 3, seat: 1, event: 7, win_percent: vec![61.25, 38.75], review: None };
    // A map (labels), read as an object and written back as its entries.
    let labelled = pb::CreateBroadcastRequest {
        slug: "open-live".into(),
        labels: [("tournament".to_string(), "open".to_string()), ("round".to_string(), "3".to_string())]
            .into(),
        ..Default::default()
    };
    let js = r#"
        const [eventBytes, turnBytes, wordBytes, analysisBytes, labelledBytes, done] = arguments;
        import("/web/grpc.js").then(async (m) => {
          await m.loadSchema();
          const w = m.decode("dawgref.v1.FoundWord", Uint8Array.from(wordBytes));
          const wordBack = Array.from(m.encode("dawgref.v1.FoundWord", w));
          const e = m.decode("dawgref.v1.WatchGameResponse", Uint8Array.from(eventBytes));
          const back = Array.from(m.encode("dawgref.v1.WatchGameResponse", e));
          const turn = Array.from(m.encode("dawgref.v1.SubmitTurnRequest",
            { game_id: "g", expected_turn: 0, pass: {} }));
          const t = m.decode("dawgref.v1.SubmitTurnRequest", Uint8Array.from(turnBytes));
          const a = m.decode("dawgref.v1.MoveAnalysis", Uint8Array.from(analysisBytes));
          const analysisBack = Array.from(m.encode("dawgref.v1.MoveAnalysis", a));
          const l = m.decode("dawgref.v1.CreateBroadcastRequest", Uint8Array.from(labelledBytes));
          const labelledBack = Array.from(m.encode("dawgref.v1.CreateBroadcastRequest", l));
          done({ e, back, turn, action: t.action, expected: t.expected_turn, w, wordBack, a, analysisBack, l, labelledBack });
        }).catch((err) => done({ error: String(err) }));
    "#;
    let out = c
        .execute_async(
            js,
            vec![
                serde_json::json!(event.encode_to_vec()),
                serde_json::json!(turn.encode_to_vec()),
                serde_json::json!(word.encode_to_vec()),
                serde_json::json!(analysis.encode_to_vec()),
                serde_json::json!(labelled.encode_to_vec()),
            ],
        )
        .await
        .unwrap();
    assert!(out.get("error").is_none(), "{out}");
    let e = &out["e"];
    assert_eq!(e["number"], serde_json::json!(1u64 << 40));
    assert_eq!((e["points"].as_i64(), e["cumulative"].as_i64()), (Some(-15), Some(-3)));
    assert_eq!((e["challenger"].as_u64(), e["acceptable"].as_bool()), (Some(0), Some(false)));
    assert_eq!(e["play"]["tiles"][1]["letter"], "Ж");
    assert_eq!(e["play"]["tiles"][1]["blank"], true);
    assert_eq!(e["words"], serde_json::json!(["ЁЖ", "A"]));
    assert_eq!(e["time_ms"].as_u64(), Some(123_456_789_012));
    assert!(e["rack"] == "" && e["tile_count"] == 0, "unset fields read as proto3's defaults");
    let back: Vec<u8> = serde_json::from_value(out["back"].clone()).unwrap();
    assert_eq!(
        pb::WatchGameResponse::decode(back.as_slice()).unwrap(),
        event,
        "written back, prost reads the same event"
    );
    let written: Vec<u8> = serde_json::from_value(out["turn"].clone()).unwrap();
    assert_eq!(written, turn.encode_to_vec(), "an empty oneof message and a zero optional are written");
    assert_eq!((out["action"].as_str(), out["expected"].as_u64()), (Some("pass"), Some(0)));
    assert_eq!(out["w"]["probability"].as_f64(), Some(word.probability), "a double read exactly");
    let word_back: Vec<u8> = serde_json::from_value(out["wordBack"].clone()).unwrap();
    assert_eq!(pb::FoundWord::decode(word_back.as_slice()).unwrap(), word, "and written back");
    assert_eq!(out["a"]["win_percent"], serde_json::json!([61.25, 38.75]), "packed doubles read");
    let analysis_back: Vec<u8> = serde_json::from_value(out["analysisBack"].clone()).unwrap();
    assert_eq!(pb::MoveAnalysis::decode(analysis_back.as_slice()).unwrap(), analysis, "and written back");
    assert_eq!(
        out["l"]["labels"],
        serde_json::json!({"tournament": "open", "round": "3"}),
        "a map read as an object"
    );
    let labelled_back: Vec<u8> = serde_json::from_value(out["labelledBack"].clone()).unwrap();
    assert_eq!(
        pb::CreateBroadcastRequest::decode(labelled_back.as_slice()).unwrap(),
        labelled,
        "and written back"
    );
    c.close().await.unwrap();
}

#[tokio::test]
async fn a_tile_dragged_from_the_rack_lands_on_its_square_and_is_judged() {
    let srv = start().await;
    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    create_from_lobby(&c, &srv.url, "english", 7).await;
    // HTML drag and drop, as the browser dispatches it (WebDriver cannot drag natively).
    let letter = script(
        &c,
        r#"
        const tile = document.querySelector(".rack-tile[data-index='0']");
        const dt = new DataTransfer();
        tile.dispatchEvent(new DragEvent("dragstart", { dataTransfer: dt, bubbles: true }));
        const square = document.getElementById("sq-7-7");
        square.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
        square.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
        return tile.querySelector(".letter").textContent;
        "#,
    )
    .await;
    let letter = letter.as_str().unwrap().to_string();
    assert_eq!(letter, "A", "seed 7 deals AEGNNPU");
    let label = || async { c.find(Locator::Css("#sq-7-7")).await.ok()?.attr("aria-label").await.ok()? };
    wait_until("the dropped tile", label, |l| l == "H8: your A, double word, centre").await;
    assert_eq!(count(&c, ".rack-tile.used").await, 1);
    // One tile cannot open the game: the preview says why, from the server.
    let problem =
        wait_until("the preview's verdict", || text(&c, "#preview.invalid li"), |t| !t.is_empty()).await;
    assert!(
        problem.to_lowercase().contains("one tile") || problem.to_lowercase().contains("two tiles"),
        "{problem}"
    );
    c.close().await.unwrap();
}

#[tokio::test]
async fn the_director_pauses_adjusts_and_undoes_from_the_page() {
    let srv = start_directed("director-secret").await;
    let mut g = srv.games().await;
    let c0 = two_humans(&mut g, 6).await;
    let pass = Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    g.submit_turn(authed(turn(&c0.game_id, 0, pass), &c0.seat_tokens[0])).await.unwrap();

    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    c.goto(&format!("{}/director", srv.url)).await.unwrap();
    c.wait()
        .for_element(Locator::Css("#director-token"))
        .await
        .unwrap()
        .send_keys("director-secret")
        .await
        .unwrap();
    click(&c, "#director-go").await;
    wait_text(&c, "#list-info", "1 live game").await;
    click(&c, &format!("[data-manage='{}']", c0.game_id)).await;
    click(&c, "#manage #pause").await;
    wait_until("the pause", || text(&c, "#manage-result"), |t| t.contains("paused")).await;
    let view = view_of(&mut g, pb::GetGameRequest { game_id: c0.game_id.clone() }).await;
    assert!(view.paused);
    // A score adjustment needs a reason; with one it counts.
    c.find(Locator::Css("#adjust-points")).await.unwrap().clear().await.unwrap();
    c.find(Locator::Css("#adjust-points")).await.unwrap().send_keys("7").await.unwrap();
    click(&c, "#adjust").await;
    wait_until("the refusal", || text(&c, "#manage-result"), |t| t.contains("INVALID_ARGUMENT")).await;
    c.find(Locator::Css("#adjust-reason")).await.unwrap().send_keys("miscounted").await.unwrap();
    click(&c, "#adjust").await;
    wait_until("the adjustment", || text(&c, "#manage-result"), |t| t.contains("score adjusted")).await;
    // Undo asks first: one click arms it, the second takes the pass back.
    click(&c, "#resume").await;
    wait_until("the resume", || text(&c, "#manage-result"), |t| t.contains("resumed")).await;
    click(&c, "#undo").await;
    assert_eq!(text(&c, "#undo").await.unwrap(), "Undo the last turn: sure?");
    click(&c, "#undo").await;
    wait_until("the undo", || text(&c, "#manage-result"), |t| t.contains("last turn undone")).await;
    let view = view_of(&mut g, pb::GetGameRequest { game_id: c0.game_id.clone() }).await;
    assert_eq!((view.turn, view.seats[0].score, view.paused), (0, 7, false));
    screenshot(&c, "director-manage").await;
    // The game's page lists the director's events, the taken-back pass struck through.
    c.goto(&format!("{}/games/{}", srv.url, c0.game_id)).await.unwrap();
    wait_until("the moves", || async { Some(count(&c, "#moves li").await) }, |&n| n >= 5).await;
    assert_eq!(count(&c, "#moves li.undone").await, 1);
    assert_eq!(count(&c, "#moves li.score_adjusted").await, 1);
    c.close().await.unwrap();
}

#[tokio::test]
async fn a_director_key_manages_its_own_games_from_the_page() {
    let srv = start_directed("director-secret").await;
    let (mut g, mut d) = (srv.games().await, srv.directors().await);
    let event: std::collections::HashMap<String, String> =
        [("event".to_string(), "spring".to_string())].into();
    let key = d
        .create_director_key(authed(
            pb::CreateDirectorKeyRequest { name: "spring-td".into(), labels: event.clone() },
            "director-secret",
        ))
        .await
        .unwrap()
        .into_inner();
    let mut request =
        create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("ann"), human("bob")], 8);
    request.labels = event;
    let spring = g.create_game(authed(request, &key.token)).await.unwrap().into_inner();
    let other = two_humans(&mut g, 9).await;

    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    c.goto(&format!("{}/director", srv.url)).await.unwrap();
    c.wait().for_element(Locator::Css("#director-token")).await.unwrap().send_keys(&key.token).await.unwrap();
    click(&c, "#director-go").await;
    // The key's page lists its game only.
    wait_text(&c, "#list-info", "1 live game").await;
    assert_eq!(count(&c, &format!("[data-manage='{}']", other.game_id)).await, 0);
    click(&c, &format!("[data-manage='{}']", spring.game_id)).await;
    click(&c, "#manage #pause").await;
    wait_until("the pause", || text(&c, "#manage-result"), |t| t.contains("paused")).await;
    let view = view_of(&mut g, pb::GetGameRequest { game_id: spring.game_id.clone() }).await;
    assert!(view.paused);
    // The game's page names the key beside its action.
    c.goto(&format!("{}/games/{}", srv.url, spring.game_id)).await.unwrap();
    wait_until("the pause event", || text(&c, "#moves li.paused"), |t| t.contains("spring-td")).await;
    c.close().await.unwrap();
}

#[tokio::test]
async fn word_study_finds_anagrams_in_the_lobby() {
    let srv = start().await;
    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    c.goto(&srv.url).await.unwrap();
    c.wait().for_element(Locator::Css("#study-text")).await.unwrap().send_keys("AEINRST").await.unwrap();
    click(&c, "#study-go").await;
    let n = wait_until("the words", || async { Some(count(&c, "#study-words li").await) }, |&n| n > 0).await;
    let words: Vec<String> = {
        let mut l = srv.lexicons().await;
        let r = pb::FindWordsRequest {
            lexicon: "en".into(),
            query: Some(pb::find_words_request::Query::Anagram("AEINRST".into())),
            limit: 200,
            ..Default::default()
        };
        let mut s = l.find_words(r).await.unwrap().into_inner();
        let mut all = Vec::new();
        while let Some(u) = s.message().await.unwrap() {
            all.extend(u.words.into_iter().map(|w| w.word));
        }
        all
    };
    assert_eq!(n, words.len());
    assert_eq!(text(&c, "#study-words li .word").await.unwrap(), words[0]);
    screenshot(&c, "word-study").await;
    c.close().await.unwrap();
}

/// A finished game (a record imported) and how many of its turns a review judges.
async fn finished_game(srv: &TestServer, name: &str) -> (String, usize, usize) {
    let mut g = srv.games().await;
    let gcg = std::fs::read_to_string(format!("tests/data/gcg/{name}")).unwrap();
    let r = g.import_gcg(pb::ImportGcgRequest { gcg, ..Default::default() }).await.unwrap().into_inner();
    assert!(r.view.as_ref().unwrap().over);
    // The page's request (50 ms a turn), made first here: the page then reads the kept review.
    let mut a = srv.analysis().await;
    let req = pb::AnalyzeGameRequest { game_id: r.game_id.clone(), ms_per_turn: 50, ..Default::default() };
    let mut stream = a.analyze_game(req).await.unwrap().into_inner();
    let (mut turns, mut analysed) = (0, 0);
    while let Some(u) = stream.message().await.unwrap() {
        if let Some(t) = u.turn {
            turns += 1;
            analysed += usize::from(t.analysable);
        }
    }
    (r.game_id, turns, analysed)
}

/// A game's review as [`finished_game`] asked for it (kept: read again at once).
struct Review {
    turns: Vec<pb::TurnAnalysis>,
    seats: Vec<pb::SeatAnalysis>,
}

async fn review_of(srv: &TestServer, id: &str) -> Review {
    let mut a = srv.analysis().await;
    let req = pb::AnalyzeGameRequest { game_id: id.to_string(), ms_per_turn: 50, ..Default::default() };
    let mut stream = a.analyze_game(req).await.unwrap().into_inner();
    let mut review = Review { turns: Vec::new(), seats: Vec::new() };
    while let Some(u) = stream.message().await.unwrap() {
        assert!(u.from_store, "the review kept");
        review.turns.extend(u.turn);
        if u.done {
            review.seats = u.seats;
        }
    }
    review
}

#[tokio::test]
async fn a_finished_game_is_reviewed_in_the_browser() {
    let srv = start().await;
    let (id, turns, analysed) = finished_game(&srv, "logan.gcg").await;
    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    // The finished game's page links to its review.
    c.goto(&format!("{}/games/{id}", srv.url)).await.unwrap();
    // Read through the page, not a held element: the panel is redrawn as the game's view arrives.
    let href = format!("/games/{id}/review");
    let read = "const a = document.querySelector('#review-link'); return a ? a.getAttribute('href') : ''";
    wait_until(
        "the review link",
        || async { script(&c, read).await.as_str().map(str::to_string) },
        |h| *h == href,
    )
    .await;
    c.goto(&format!("{}/games/{id}/review?ms=50", srv.url)).await.unwrap();
    wait_until("the review's end", || text(&c, "#review-state"), |t| t.starts_with("Analysed")).await;
    // One point per analysed turn on the graph, one row per turn in the table.
    assert_eq!(count(&c, "#win-graph circle.point").await, analysed);
    assert_eq!(count(&c, "#review-table tbody tr").await, turns);
    assert_eq!(count(&c, "#summary-table tbody tr").await, 2);
    // Each mistake marked by its size, as the review graded it, in the table and on the graph;
    // the summary counts each size and the index.
    let review = review_of(&srv, &id).await;
    let graded = |g: pb::MistakeGrade| review.turns.iter().filter(|t| t.grade == g as i32).count();
    for (g, name) in [
        (pb::MistakeGrade::Small, "small"),
        (pb::MistakeGrade::Medium, "medium"),
        (pb::MistakeGrade::Large, "large"),
    ] {
        assert_eq!(count(&c, &format!("#review-table td.grade-{name}")).await, graded(g), "{name}");
        assert_eq!(count(&c, &format!("#win-graph circle.point.grade-{name}")).await, graded(g), "{name}");
    }
    let shown = script(&c, "return [...document.querySelectorAll('#summary-table tbody tr')].map((tr) => [...tr.querySelectorAll('.grade-small, .grade-medium, .grade-large, .mistake-index')].map((td) => td.textContent))").await;
    let expected: Vec<Vec<String>> = review
        .seats
        .iter()
        .map(|s| {
            vec![
                s.small_mistakes.to_string(),
                s.medium_mistakes.to_string(),
                s.large_mistakes.to_string(),
                format!("{:.1}", s.mistake_index),
            ]
        })
        .collect();
    assert_eq!(shown, serde_json::json!(expected));
    let title =
        script(&c, "return document.querySelector('#win-graph circle.point title').textContent").await;
    assert!(title.as_str().unwrap().starts_with("Turn 1: Maven"), "{title}");
    // The first turn is shown; the arrow keys and the buttons step through the game.
    wait_text(&c, "#review-caption h3", "Turn 1: Maven").await;
    script(&c, "document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight' })); return 1").await;
    wait_text(&c, "#review-caption h3", "Turn 2: Adam Logan").await;
    click(&c, "#review-last").await;
    let last = format!("Turn {turns}: ");
    wait_until("the last turn", || text(&c, "#review-caption h3"), |t| t.starts_with(&last)).await;
    script(&c, "document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Home' })); return 1").await;
    wait_text(&c, "#review-caption h3", "Turn 1: Maven").await;
    // The played tiles are drawn on the board (CAVY, four tiles), unless the review found the turn
    // a puzzle (which a 50 ms search may or may not, by how busy the machine is): then the answer
    // stays hidden. The best play is drawn on asking, either way.
    let first = review.turns.iter().find(|t| t.turn == 0).expect("the first turn reviewed");
    if first.puzzle {
        assert_eq!(count(&c, ".tile.played").await, 0);
        assert_eq!(count(&c, "#puzzle-note").await, 1);
    } else {
        assert_eq!(count(&c, ".tile.played").await, 4);
    }
    click(&c, "#review-toggle").await;
    wait_until("the best play drawn", || async { Some(count(&c, ".tile.best").await) }, |&n| n > 0).await;
    // A row of the table shows its turn.
    click(&c, "#review-table tbody tr:nth-child(3)").await;
    wait_text(&c, "#review-caption h3", "Turn 3: Maven").await;
    screenshot(&c, "review").await;
    c.close().await.unwrap();
}

#[tokio::test]
async fn a_russian_browser_gets_the_pages_in_russian_and_the_switch_is_remembered() {
    let srv = start().await;
    let (id, _, _) = finished_game(&srv, "doug_v_emely.gcg").await;
    let mut driver = Driver::start().await;
    let c = driver.browser_in("ru").await;
    c.goto(&srv.url).await.unwrap();
    wait_text(&c, ".hero h1", "Сыграть партию").await;
    assert_eq!(script(&c, "return document.documentElement.lang").await, "ru");
    wait_text(&c, "#create", "Создать партию").await;
    screenshot(&c, "lobby-ru").await;
    // Every page: the game, its review, the director's.
    c.goto(&format!("{}/games/{id}", srv.url)).await.unwrap();
    wait_text(&c, "#game-over h3", "Партия окончена").await;
    wait_text(&c, "#gcg", "Скачать GCG").await;
    c.goto(&format!("{}/games/{id}/review?ms=50", srv.url)).await.unwrap();
    wait_until("the review in Russian", || text(&c, "#review-state"), |t| t.starts_with("Разобрано")).await;
    wait_text(&c, ".hero h1", "Разбор партии").await;
    screenshot(&c, "review-ru").await;
    c.goto(&format!("{}/director", srv.url)).await.unwrap();
    wait_text(&c, ".hero h1", "Судья турнира").await;
    // The switch: English, and it stays English on the next visit.
    click(&c, "#lang-en").await;
    wait_text(&c, ".hero h1", "Tournament director").await;
    c.goto(&srv.url).await.unwrap();
    wait_text(&c, ".hero h1", "Play a game").await;
    // The lobby names as many rulesets as it offers, not three.
    let offered = script(&c, "return document.querySelectorAll('#ruleset option').length").await;
    let headline = format!(
        "{offered} rulesets, English Scrabble, Скрэббл and Эрудит among them, refereed to the letter."
    );
    wait_text(&c, ".hero .sub", &headline).await;
    click(&c, "#lang-ru").await;
    wait_text(&c, ".hero h1", "Сыграть партию").await;
    c.close().await.unwrap();
}

#[tokio::test]
async fn a_director_pairs_and_starts_a_round_and_a_player_opens_their_game() {
    let srv = start_directed("director-secret").await;
    let methods = [pb::PairingMethod::KingOfTheHill, pb::PairingMethod::Swiss];
    let names = ["Ann Archer", "Bo Baker", "Cy Cole", "Di Dunn"];
    let (mut t, tokens) =
        tournament(&srv, "director-secret", ("spring", "Spring open"), &names, &methods, 3).await;
    let ann = tokens.iter().find(|p| p.player == 1).unwrap().token.clone();

    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    // From the lobby's link to the list, to the tournament.
    c.goto(&srv.url).await.unwrap();
    click(&c, ".top nav a[href='/tournaments']").await;
    click(&c, "#tournament-list a").await;
    wait_text(&c, "#tournament-name", "Spring open").await;
    wait_until("the standings", || async { Some(count(&c, "#standings-a tbody tr").await) }, |&n| n == 4)
        .await;
    // The director pairs round 1 and starts it.
    c.find(Locator::Css("#tournament-token")).await.unwrap().send_keys("director-secret").await.unwrap();
    click(&c, "#use-token").await;
    wait_text(&c, "#who", "Directing this tournament.").await;
    // One click broadcasts the tournament: a quarter of an hour late, racks and the engine shown.
    click(&c, "#broadcast-tournament").await;
    wait_text(&c, "#tournament-broadcast", "Spring open — live").await;
    let mut b = srv.broadcasts().await;
    let live =
        b.get_broadcast(pb::GetBroadcastRequest { slug: "spring-live".into() }).await.unwrap().into_inner();
    let live = live.broadcast.unwrap();
    assert_eq!(
        (
            live.labels.get("tournament").map(String::as_str),
            live.delay_seconds,
            live.reveal_racks,
            live.analysis
        ),
        (Some("spring"), 900, true, true)
    );
    click(&c, "#pair-a").await;
    wait_until(
        "the pairings",
        || async { Some(count(&c, "#round-a-1 tr[data-pairing]").await) },
        |&n| n == 2,
    )
    .await;
    // Round 2 is to come, and paired by the standings: not before round 1's results are in.
    wait_until("the rounds to come", || text(&c, "#to-come-a"), |t| t.contains("Round 2 · Swiss")).await;
    assert_eq!(count(&c, "#pair-a:disabled").await, 1, "round 2 is not offered before round 1's results");
    click(&c, "#start-a").await;
    wait_until("the games", || text(&c, "#round-a-1"), |t| t.matches("playing").count() == 2).await;
    // Each score box says whose score it is.
    let first = script(&c, "return document.getElementById('score-a-1-1-a').placeholder").await;
    let second = script(&c, "return document.getElementById('score-a-1-1-b').placeholder").await;
    assert!(first.as_str().unwrap().ends_with("'s score") && second.as_str().unwrap().ends_with("'s score"));
    assert_ne!(first, second);
    screenshot(&c, "tournament-director").await;
    let round = t
        .get_tournament(pb::GetTournamentRequest { slug: "spring".into() })
        .await
        .unwrap()
        .into_inner()
        .tournament
        .unwrap()
        .divisions[0]
        .rounds[0]
        .clone();
    assert!(round.started);
    let game = round.pairings.iter().find(|p| p.first == 1 || p.second == 1).unwrap().game_id.clone();
    c.close().await.unwrap();

    // Ann opens the page with her token and plays her own game from it.
    let c = driver.browser().await;
    c.goto(&format!("{}/tournaments/spring#token={ann}", srv.url)).await.unwrap();
    wait_until(
        "who she is",
        || text(&c, "#who"),
        |t| t.starts_with("You are Ann Archer, player 1 in division a."),
    )
    .await;
    click(&c, "#my-game").await;
    let url =
        wait_until("her game", || async { c.current_url().await.ok() }, |u| u.path().starts_with("/games/"))
            .await;
    assert_eq!(url.path(), format!("/games/{game}"));
    wait_until("her rack", || async { Some(count(&c, ".rack-tile").await) }, |&n| n == 7).await;
    // The way back names the tournament and the round.
    wait_text(&c, "#back-to-tournament", "← spring, round 1").await;
    screenshot(&c, "tournament-player").await;
    c.close().await.unwrap();

    // Every result in, by hand: the page says the division is over, and who won.
    for (round, pairing) in [(1, 1), (1, 2), (2, 1), (2, 2)] {
        if round == 2 && pairing == 1 {
            t.pair_round(authed(
                pb::PairRoundRequest {
                    slug: "spring".into(),
                    division: "a".into(),
                    round: 2,
                    ..Default::default()
                },
                "director-secret",
            ))
            .await
            .unwrap();
        }
        let result = pb::RecordResultRequest {
            slug: "spring".into(),
            division: "a".into(),
            round,
            pairing,
            result: Some(pb::record_result_request::Result::Scores(pb::FinalScores {
                first: 400,
                second: 300,
            })),
            correct: false,
            request_id: String::new(),
        };
        t.record_result(authed(result, "director-secret")).await.unwrap();
    }
    // The broadcast holds every result back a quarter of an hour from anyone but the directors:
    // ended, they are in for everyone.
    b.end_broadcast(authed(pb::EndBroadcastRequest { slug: "spring-live".into() }, "director-secret"))
        .await
        .unwrap();
    let c = driver.browser().await;
    c.goto(&format!("{}/tournaments/spring", srv.url)).await.unwrap();
    wait_until("the end", || text(&c, "#over-a"), |t| t.starts_with("The division is over: ")).await;
    c.close().await.unwrap();
}

/// A director changes the plan from the page: a round added by its method, a round's pairings
/// taken back and drawn again, a late entry with a bye of -50 for the round gone (their token
/// shown once), a withdrawn player entered again, the last round taken off; a refusal shows the
/// server's reason; and the controls read in Russian.
#[tokio::test]
async fn a_director_changes_the_plan_from_the_page() {
    let srv = start_directed("director-secret").await;
    let names = ["Ann Archer", "Bo Baker", "Cy Cole", "Di Dunn"];
    let (mut t, _) =
        tournament(&srv, "director-secret", ("plan", "Plan open"), &names, &[pb::PairingMethod::Swiss], 3)
            .await;
    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    c.goto(&format!("{}/tournaments/plan#token=director-secret", srv.url)).await.unwrap();
    wait_text(&c, "#who", "Directing this tournament.").await;
    // A second round, King of the Hill.
    script(&c, "document.getElementById('add-round-method-a').value = 'PAIRING_METHOD_KING_OF_THE_HILL'")
        .await;
    click(&c, "#add-round-a").await;
    wait_text(&c, "#tournament-result", "Round 2 is added.").await;
    wait_until("the rounds to come", || text(&c, "#to-come-a"), |t| t.contains("Round 2 · King of the Hill"))
        .await;
    // Round 1 paired, taken back, and paired again.
    click(&c, "#pair-a").await;
    wait_until(
        "the pairings",
        || async { Some(count(&c, "#round-a-1 tr[data-pairing]").await) },
        |&n| n == 2,
    )
    .await;
    click(&c, "#unpair-a").await;
    wait_text(&c, "#tournament-result", "Round 1's pairings are taken back.").await;
    assert_eq!(count(&c, "#round-a-1").await, 0);
    click(&c, "#pair-a").await;
    wait_until(
        "the pairings",
        || async { Some(count(&c, "#round-a-1 tr[data-pairing]").await) },
        |&n| n == 2,
    )
    .await;
    for pairing in [1, 2] {
        let result = pb::RecordResultRequest {
            slug: "plan".into(),
            division: "a".into(),
            round: 1,
            pairing,
            result: Some(pb::record_result_request::Result::Scores(pb::FinalScores {
                first: 400,
                second: 300,
            })),
            correct: false,
            request_id: String::new(),
        };
        t.record_result(authed(result, "director-secret")).await.unwrap();
    }
    // A late entry: a refused spread says why; then a bye of -50 for round 1.
    wait_until("the late entry", || async { Some(count(&c, "#late-missed-a").await) }, |&n| n == 1).await;
    wait_until("round 1's results", || text(&c, "#round-a-1"), |t| t.matches("400 – 300").count() == 2).await;
    // Filled in and sent in one go: an event's redraw between keys and click would lose them.
    let late = |spread: &str| {
        format!(
            "const v = (id, x) => {{ document.getElementById(id).value = x; }};
             v('late-name-a', 'Eve Late'); v('late-rating-a', '1400'); v('late-missed-a', 'byes');
             v('late-spread-a', '{spread}'); document.getElementById('late-add-a').click();"
        )
    };
    script(&c, &late("5000")).await;
    wait_until(
        "the refusal",
        || text(&c, "#tournament-result"),
        |t| t.contains("missed_round_spread: 5000: -1000 to 1000"),
    )
    .await;
    script(&c, &late("-50")).await;
    let said = wait_until(
        "the late entry's token",
        || text(&c, "#tournament-result"),
        |t| t.starts_with("Eve Late is player 5."),
    )
    .await;
    assert!(
        said.starts_with("Eve Late is player 5. Their token (shown once): ") && said.len() > 60,
        "{said}"
    );
    wait_until("the standings", || async { Some(count(&c, "#standings-a tbody tr").await) }, |&n| n == 5)
        .await;
    let get = pb::GetTournamentRequest { slug: "plan".into() };
    let d = t.get_tournament(authed(get, "director-secret")).await.unwrap().into_inner().tournament.unwrap();
    let bye = &d.divisions[0].rounds[0].pairings[2];
    assert_eq!((bye.first, bye.second, bye.bye_spread), (5, 0, -50));
    // Bo withdraws and comes back.
    click(&c, "[data-withdraw='2']").await;
    wait_text(&c, "#tournament-result", "Bo Baker is withdrawn.").await;
    click(&c, "[data-reenter='2']").await;
    wait_text(&c, "#tournament-result", "Bo Baker enters again.").await;
    // Round 2 taken off: round 1 is all there is.
    click(&c, "#remove-round-a").await;
    wait_text(&c, "#tournament-result", "Round 2 is taken off.").await;
    assert_eq!(count(&c, "#to-come-a").await, 0);
    screenshot(&c, "tournament-plan").await;
    // In Russian.
    click(&c, "#lang-ru").await;
    wait_text(&c, "#add-round-a", "Добавить тур").await;
    wait_text(&c, "#late-add-a", "Добавить игрока").await;
    c.close().await.unwrap();
}

/// The placeholders of a round's score boxes, in the page's order, each checked to be shown
/// whole: its width in the box's font within the room the box has for it (to half a pixel).
async fn score_boxes(c: &Client, division: &str, round: u32) -> Vec<String> {
    let js = format!(
        "const ctx = document.createElement('canvas').getContext('2d');
         return [...document.querySelectorAll('#round-{division}-{round} .score-in')].map((el) => {{
           const cs = getComputedStyle(el);
           ctx.font = cs.font;
           const edges = ['borderLeftWidth', 'borderRightWidth', 'paddingLeft', 'paddingRight'];
           const room = el.getBoundingClientRect().width - edges.reduce((sum, k) => sum + parseFloat(cs[k]), 0);
           return [el.id, el.placeholder, ctx.measureText(el.placeholder).width, room];
         }});"
    );
    let boxes: Vec<(String, String, f64, f64)> = serde_json::from_value(script(c, &js).await).unwrap();
    for (id, placeholder, need, room) in &boxes {
        assert!(*need <= room + 0.5, "{id}: {placeholder:?} needs {need} px, has {room}");
    }
    boxes.into_iter().map(|(_, placeholder, ..)| placeholder).collect()
}

/// A Swiss division directed from its page, in English and in Russian: a round is offered for
/// pairing only when the server would pair it (while the round before has results to come, the
/// button is disabled and says why), each action is said as a sentence, each score box names its
/// player and shows it whole, a game's own page leads back to its round however it was opened,
/// and a division over offers no withdrawals.
#[tokio::test]
async fn a_swiss_division_is_directed_from_its_page_in_both_languages() {
    const ROOT: &str = "director-secret";
    const NAMES: [&str; 4] = ["Stroud Winchester", "Ann Archer", "Cy Cole", "Di Dunn"];
    let name = |n: u32| NAMES[n as usize - 1];
    let first_name = |n: u32| name(n).split(' ').next().unwrap();
    let srv = start_directed(ROOT).await;
    let swiss = [pb::PairingMethod::Swiss, pb::PairingMethod::Swiss];
    let (mut t, _) = tournament(&srv, ROOT, ("autumn", "Autumn open"), &NAMES, &swiss, 5).await;
    let round_of = |n: usize| {
        let mut t = t.clone();
        async move {
            let r = t.get_tournament(pb::GetTournamentRequest { slug: "autumn".into() }).await.unwrap();
            r.into_inner().tournament.unwrap().divisions[0].rounds[n - 1].clone()
        }
    };

    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    c.goto(&format!("{}/tournaments/autumn#token={ROOT}", srv.url)).await.unwrap();
    wait_text(&c, "#who", "Directing this tournament.").await;
    wait_text(&c, "#pair-a", "Pair round 1").await;
    click(&c, "#pair-a").await;
    wait_text(&c, "#tournament-result", "Round 1 is paired.").await;
    // Round 2 reads the standings: offered, disabled, with the server's reason, until round 1 is in.
    wait_text(&c, "#pair-a:disabled", "Pair round 2").await;
    wait_text(&c, "#pair-why-a", "Round 2 is paired by the standings: round 1 has results to come.").await;
    click(&c, "#start-a").await;
    wait_text(&c, "#tournament-result", "Round 1 is started.").await;
    let round = round_of(1).await;
    assert!(round.started && !round_of(2).await.paired);
    // Each box named for its player, by the first name, shown whole.
    wait_until("the score boxes", || async { Some(count(&c, "#round-a-1 .score-in").await) }, |&n| n == 4)
        .await;
    let mut expected: Vec<String> = round
        .pairings
        .iter()
        .flat_map(|p| [p.first, p.second])
        .map(|n| format!("{}'s score", first_name(n)))
        .collect();
    assert_eq!(score_boxes(&c, "a", 1).await, expected);
    // The first pairing's result, entered by hand.
    let p1 = &round.pairings[0];
    c.find(Locator::Css("#score-a-1-1-a")).await.unwrap().send_keys("400").await.unwrap();
    c.find(Locator::Css("#score-a-1-1-b")).await.unwrap().send_keys("350").await.unwrap();
    click(&c, "#enter-a-1-1").await;
    wait_text(
        &c,
        "#tournament-result",
        &format!("Result entered: {} 400 – 350 {}.", name(p1.first), name(p1.second)),
    )
    .await;
    screenshot(&c, "tournament-swiss").await;

    // The second pairing's game, opened by its address alone: the way back to its round.
    let game = &round.pairings[1].game_id;
    c.goto(&format!("{}/games/{game}", srv.url)).await.unwrap();
    wait_text(&c, "#back-to-tournament", "← autumn, round 1").await;
    let href = script(&c, "return document.getElementById('back-to-tournament').getAttribute('href')").await;
    assert_eq!(href, "/tournaments/autumn#round-a-1");
    click(&c, "#back-to-tournament").await;
    wait_until(
        "the round on the tournament's page",
        || async { Some(count(&c, "#round-a-1").await) },
        |&n| n == 1,
    )
    .await;

    // In Russian: the reason, the boxes, the result and the pairing, each said as Russian says it.
    let r = driver.browser_in("ru").await;
    r.goto(&format!("{}/tournaments/autumn#token={ROOT}", srv.url)).await.unwrap();
    wait_text(&r, "#pair-why-a", "Пары тура 2 составляются по таблице: в туре 1 ещё не все результаты.")
        .await;
    wait_until("the score boxes", || async { Some(count(&r, "#round-a-1 .score-in").await) }, |&n| n == 2)
        .await;
    let p2 = &round.pairings[1];
    expected = [p2.first, p2.second].iter().map(|&n| format!("{}: очки", first_name(n))).collect();
    assert_eq!(score_boxes(&r, "a", 1).await, expected);
    r.find(Locator::Css("#score-a-1-2-a")).await.unwrap().send_keys("380").await.unwrap();
    r.find(Locator::Css("#score-a-1-2-b")).await.unwrap().send_keys("390").await.unwrap();
    click(&r, "#enter-a-1-2").await;
    wait_text(
        &r,
        "#tournament-result",
        &format!("Результат внесён: {} 380 – 390 {}.", name(p2.first), name(p2.second)),
    )
    .await;
    // Round 1 is in: round 2 is offered, and paired.
    wait_until("round 2 offered", || async { Some(count(&r, "#pair-a:enabled").await) }, |&n| n == 1).await;
    assert_eq!(count(&r, "#pair-why-a").await, 0);
    click(&r, "#pair-a").await;
    wait_text(&r, "#tournament-result", "Пары тура 2 составлены.").await;
    screenshot(&r, "tournament-swiss-ru").await;
    r.close().await.unwrap();

    // Round 2 played and in: the division is over, and nothing is offered but the record.
    let start =
        pb::StartRoundRequest { slug: "autumn".into(), division: "a".into(), round: 2, ..Default::default() };
    t.start_round(authed(start, ROOT)).await.unwrap();
    for pairing in 1..=2 {
        let result = pb::RecordResultRequest {
            slug: "autumn".into(),
            division: "a".into(),
            round: 2,
            pairing,
            result: Some(pb::record_result_request::Result::Scores(pb::FinalScores {
                first: 400,
                second: 300,
            })),
            correct: false,
            request_id: String::new(),
        };
        t.record_result(authed(result, ROOT)).await.unwrap();
    }
    c.refresh().await.unwrap();
    wait_until("the end", || text(&c, "#over-a"), |t| t.starts_with("The division is over: ")).await;
    assert_eq!(count(&c, "[data-withdraw]").await, 0, "no withdrawals once the division is over");
    assert_eq!(count(&c, "#pair-a, #start-a").await, 0);
    c.close().await.unwrap();
}

/// Catalan's L·L is one tile: the lobby offers the ruleset with the lexicons it plays, the rack
/// and the board draw its whole label with its value, and typing W, its other spelling, places it.
#[tokio::test]
async fn a_tile_of_two_letters_is_drawn_whole_and_typed_by_its_spelling() {
    let srv = start_catalan().await;
    let mut g = srv.games().await;
    // The first seed whose first rack holds the one L·L.
    let created = deal(&mut g, ("catalan", "cat-test"), 0, |rack| rack.iter().any(|t| t == "L·L")).await;
    let (id, token) = (created.game_id.clone(), created.seat_tokens[0].clone());
    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    // The lobby offers Catalan, with the lexicons it can be played with (it has none of its own).
    c.goto(&srv.url).await.unwrap();
    let select = c.wait().for_element(Locator::Css("#ruleset")).await.unwrap();
    select.select_by_value("catalan").await.unwrap();
    let options =
        script(&c, "return [...document.querySelectorAll('#lexicon option')].map((o) => o.value)").await;
    assert_eq!(options, serde_json::json!(["cat-test"]));
    select.select_by_value("english").await.unwrap();
    let options =
        script(&c, "return [...document.querySelectorAll('#lexicon option')].map((o) => o.value)").await;
    assert_eq!(options, serde_json::json!(["", "en"]));
    c.goto(&format!("{}/games/{id}#token={token}", srv.url)).await.unwrap();
    wait_until("the rack", || async { Some(count(&c, ".rack-tile").await) }, |&n| n == 7).await;
    let labels =
        script(&c, "return [...document.querySelectorAll('.rack-tile')].map((t) => t.textContent)").await;
    assert!(labels.as_array().unwrap().iter().any(|t| t == "L·L10"), "{labels}");
    click(&c, "#sq-7-7").await;
    c.find(Locator::Css("#board-input")).await.unwrap().send_keys("w").await.unwrap();
    wait_until(
        "L·L on the centre",
        || async { c.find(Locator::Css("#sq-7-7")).await.ok()?.text().await.ok() },
        |t: &String| t.split_whitespace().collect::<Vec<_>>() == ["L·L", "10"],
    )
    .await;
    screenshot(&c, "game-catalan").await;
    c.close().await.unwrap();
}

/// A server with every ruleset's lexicon and a small Spanish one, `es-test`.
async fn start_spanish() -> TestServer {
    let spanish = dawgref::rules::RulesetKind::by_name("spanish").unwrap();
    let es = dawgref::lexicon::Lexicon::compile("es-test", "chorro\ncarro\nchico\n", spanish.alphabet())
        .unwrap()
        .0;
    let mut lexicons: Vec<_> =
        dawgref::rules::RulesetKind::classic().iter().map(|&k| common::lexicon(k).clone()).collect();
    lexicons.push(es);
    serve(dawgref::server::Builder::new(lexicons)).await.0
}

/// A rack's tiles as notation writes them: a character each, a bracketed tile as one ("[RR]" is
/// "RR", "[R]R" two "R").
fn rack_tiles(rack: &str) -> Vec<String> {
    let mut tiles = Vec::new();
    let mut chars = rack.chars();
    while let Some(ch) = chars.next() {
        if ch == '[' {
            tiles.push(chars.by_ref().take_while(|&c| c != ']').collect());
        } else {
            tiles.push(ch.to_string());
        }
    }
    tiles
}

/// A game of `ruleset` in `lexicon` (double challenge, two people) dealt from the first seed
/// from `from` whose first rack `fits`: the seeds are tried on the engine's seeded bag, which
/// deals seat 0 first, and the game made of the one found says the same rack.
async fn deal(
    g: &mut pb::games_service_client::GamesServiceClient<tonic::transport::Channel>,
    (ruleset, lexicon): (&str, &str),
    from: u64,
    fits: impl Fn(&[String]) -> bool,
) -> pb::CreateGameResponse {
    let rules = dawgref::rules::Ruleset::new(dawgref::rules::RulesetKind::by_name(ruleset).unwrap());
    let first_rack = |seed| {
        let mut rack = dawgref::rack::Rack::new();
        dawgref::bag::Bag::new(&rules, seed).refill(&mut rack, rules.rack_size);
        rack.to_string(rules.alphabet)
    };
    let seed = (from..from + 5000)
        .find(|&seed| fits(&rack_tiles(&first_rack(seed))))
        .unwrap_or_else(|| panic!("no seed from {from} deals the {ruleset} rack wanted in 5000"));
    let created = g
        .create_game(pb::CreateGameRequest {
            ruleset_name: ruleset.into(),
            lexicon: lexicon.into(),
            ..create(
                pb::Ruleset::Unspecified,
                pb::ChallengeRule::Double,
                vec![human("Lola"), human("Bo")],
                seed,
            )
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(created.view.as_ref().unwrap().my_rack, first_rack(seed), "seed {seed}");
    created
}

/// [`deal`] in Spanish, with its test lexicon.
async fn spanish_deal(
    g: &mut pb::games_service_client::GamesServiceClient<tonic::transport::Channel>,
    from: u64,
    fits: impl Fn(&[String]) -> bool,
) -> pb::CreateGameResponse {
    deal(g, ("spanish", "es-test"), from, fits).await
}

/// A Spanish player types a tile of two letters by its letters: C then H places the CH on the
/// rack, R then R the RR; where the rack holds two R tiles of one letter instead, R then R
/// places them both.
#[tokio::test]
async fn a_spanish_player_types_a_tile_of_two_letters_by_its_letters() {
    let srv = start_spanish().await;
    let mut g = srv.games().await;
    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    // (what the first rack holds, what is typed, what the squares from the centre then show)
    let cases: [(&[&str], &str, &[&str]); 3] =
        [(&["CH"], "ch", &["CH"]), (&["RR"], "rr", &["RR"]), (&["R", "R"], "rr", &["R", "R"])];
    for (holds, typed, placed) in cases {
        let created = spanish_deal(&mut g, 0, |rack| {
            let n = |t: &str| rack.iter().filter(|x| *x == t).count();
            holds.iter().all(|h| n(h) >= holds.iter().filter(|x| *x == h).count())
                && (holds != ["R", "R"] || n("RR") == 0)
        })
        .await;
        let (id, token) = (created.game_id.clone(), created.seat_tokens[0].clone());
        c.goto(&format!("{}/games/{id}#token={token}", srv.url)).await.unwrap();
        wait_until("the rack", || async { Some(count(&c, ".rack-tile").await) }, |&n| n == 7).await;
        // The cursor starts on the start square, across (a click there would turn it down).
        c.find(Locator::Css("#board-input")).await.unwrap().send_keys(typed).await.unwrap();
        for (k, label) in placed.iter().enumerate() {
            let square = format!("#sq-7-{}", 7 + k);
            wait_until(
                &format!("{label} on {square} ({holds:?})"),
                || async { c.find(Locator::Css(&square)).await.ok()?.text().await.ok() },
                |t: &String| t.split_whitespace().next() == Some(label),
            )
            .await;
        }
        let toasts = script(&c, "return document.getElementById('toast')?.textContent || ''").await;
        assert!(!toasts.to_string().contains("not on your rack"), "{holds:?}: {toasts}");
    }
    c.close().await.unwrap();
}

/// A Spanish word whose last letter begins a tile of two letters on the rack (R before the RR,
/// C before the CH, L before the LL) keeps that letter: it shows as waiting, and Enter places it
/// as the rack's tile of one letter and sends it. Without such a tile, the page says so and
/// sends nothing.
#[tokio::test]
async fn a_spanish_word_ending_in_the_first_letter_of_a_two_letter_tile_keeps_its_last_letter() {
    let srv = start_spanish().await;
    let mut g = srv.games().await;
    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    const ENTER: &str = "\u{E007}";
    // The issue's rack first: seed 124 deals EELMQR[RR], and LEER at 8E ends on the centre.
    let issue = spanish_deal(&mut g, 124, |_| true).await;
    assert_eq!(issue.view.as_ref().unwrap().my_rack, "EELMQR[RR]");
    let firsts = ["C", "L", "R"];
    for (tile, letter) in [("RR", "R"), ("CH", "C"), ("LL", "L")] {
        let created = if tile == "RR" {
            issue.clone()
        } else {
            spanish_deal(&mut g, 0, |rack| {
                rack.iter().any(|t| t == tile)
                    && rack.iter().any(|t| t == letter)
                    && rack
                        .iter()
                        .filter(|t| t.len() == 1 && !firsts.contains(&t.as_str()) && *t != "?")
                        .count()
                        >= 2
            })
            .await
        };
        let rack = rack_tiles(&created.view.as_ref().unwrap().my_rack);
        // LEER for the issue's rack; else two letters that begin no tile, then the letter.
        let word: String = if tile == "RR" {
            "LEER".into()
        } else {
            let others = rack.iter().filter(|t| t.len() == 1 && !firsts.contains(&t.as_str()) && *t != "?");
            others.take(2).map(String::as_str).chain([letter]).collect()
        };
        let start = 8 - word.len();
        let (id, token) = (created.game_id.clone(), created.seat_tokens[0].clone());
        c.goto(&format!("{}/games/{id}#token={token}", srv.url)).await.unwrap();
        wait_until("the rack", || async { Some(count(&c, ".rack-tile").await) }, |&n| n == 7).await;
        click(&c, &format!("#sq-7-{start}")).await;
        c.find(Locator::Css("#board-input")).await.unwrap().send_keys(&word.to_lowercase()).await.unwrap();
        // The last letter waits on its square, and the page says what it waits for.
        let waiting = wait_until(
            &format!("{letter} waiting ({tile})"),
            || text(&c, "#typed-waiting"),
            |t| t.starts_with(&format!("{letter} waits")),
        )
        .await;
        assert_eq!(
            waiting,
            format!("{letter} waits for a second letter ({tile}); Enter or a click places {letter}.")
        );
        assert_eq!(count(&c, "#sq-7-7 .tile.waiting").await, 1);
        c.find(Locator::Css("#board-input")).await.unwrap().send_keys(ENTER).await.unwrap();
        let row = format!("{}{word}{}", ".".repeat(start), ".".repeat(15 - start - word.len()));
        let view = wait_until(
            &format!("{word} on the server's board"),
            || {
                let (mut g, request) =
                    (g.clone(), authed(pb::GetGameRequest { game_id: id.clone() }, &token));
                async move { g.get_game(request).await.ok()?.into_inner().view }
            },
            |v| v.turn == 1,
        )
        .await;
        assert_eq!(view.board.as_ref().unwrap().rows[7], row, "{tile}");
        assert!(
            view.my_rack.contains(&format!("[{tile}]")),
            "the {tile} stays on the rack: {}",
            view.my_rack
        );
        let toast = wait_until("the play's toast", || text(&c, "#toast"), |t| !t.is_empty()).await;
        assert!(toast.starts_with(&format!("8{} {word}: ", (b'A' + start as u8) as char)), "{toast}");
    }

    // A rack with the RR and no R, no blank: R then Enter places nothing, says why, sends nothing.
    let created = spanish_deal(&mut g, 0, |rack| {
        rack.iter().any(|t| t == "RR") && !rack.iter().any(|t| t == "R" || t == "?")
    })
    .await;
    let (id, token) = (created.game_id.clone(), created.seat_tokens[0].clone());
    c.goto(&format!("{}/games/{id}#token={token}", srv.url)).await.unwrap();
    wait_until("the rack", || async { Some(count(&c, ".rack-tile").await) }, |&n| n == 7).await;
    let input = c.find(Locator::Css("#board-input")).await.unwrap();
    input.send_keys(&format!("r{ENTER}")).await.unwrap();
    wait_text(&c, "#toast", "R is not on your rack: R R places your RR").await;
    assert_eq!(count(&c, "#board .tile.pending").await, 0);
    let view = view_of(&mut g, pb::GetGameRequest { game_id: id.clone() }).await;
    assert_eq!(view.turn, 0, "nothing was sent");
    c.close().await.unwrap();
}

/// Super English from the lobby: the page draws its 21×21 board (columns to U, the quadruple
/// squares, the start square at 11K where the cursor starts), a play is typed past column O,
/// and the server scores it as the preview did.
#[tokio::test]
async fn the_super_board_is_drawn_21_by_21_and_played_from_the_page() {
    let srv = start().await;
    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    let id = create_from_lobby(&c, &srv.url, "super-english", 5).await;
    wait_until("the board", || async { Some(count(&c, "[role=gridcell]").await) }, |&n| n == 441).await;
    let label = script(&c, "return document.querySelector('.board').getAttribute('aria-label')").await;
    assert_eq!(label, serde_json::json!("board, 21 by 21: columns A to U, rows 1 to 21"));
    let classes = |css: &str| format!("return document.querySelector('{css}').className");
    assert_eq!(script(&c, &classes("#sq-0-0")).await, serde_json::json!("sq qw"));
    assert_eq!(script(&c, &classes("#sq-2-5")).await, serde_json::json!("sq ql"));
    assert_eq!(script(&c, &classes("#sq-10-10")).await, serde_json::json!("sq dw centre cursor across"));
    let corner = script(&c, "return document.querySelector('#sq-20-20').getAttribute('aria-label')").await;
    assert_eq!(corner, serde_json::json!("U21: empty, quadruple word"));
    let token = token_in_page(&c, &id).await;
    let best = first_play_without_blank(&srv, &id, &token).await;
    type_play(&c, best.play.as_ref().unwrap()).await;
    wait_text(&c, "#preview-score", &best.score.to_string()).await;
    click(&c, "#submit").await;
    wait_text(&c, "#score-0", &best.score.to_string()).await;
    screenshot(&c, "game-super").await;
    c.close().await.unwrap();
}

#[tokio::test]
async fn a_broadcast_page_draws_the_boards_racks_and_bar_and_its_overlay_one_board_in_both_languages() {
    const ROOT: &str = "web-broadcast-root";
    let srv = start_directed(ROOT).await;
    let mut g = srv.games().await;
    let mut request =
        create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("Ann"), human("Bo")], 17);
    request.labels = [("tournament".to_string(), "open".to_string())].into();
    let c = g.create_game(authed(request, ROOT)).await.unwrap().into_inner();
    broadcast(&srv, ROOT, "open-live", "The Open, live", ("tournament", "open")).await;
    let best = play_first_turn(&srv, &c.game_id, &c.seat_tokens[0]).await;

    let mut driver = Driver::start().await;
    let w = driver.browser().await;
    w.goto(&format!("{}/broadcasts", srv.url)).await.unwrap();
    wait_text(&w, "#broadcast-list a", "The Open, live").await;
    click(&w, "#broadcast-list a").await;
    wait_text(&w, "#bc-name", "The Open, live").await;
    wait_text(&w, "#bc-status", "1 s behind the hall").await;
    // The board of the game, its first play shown once the delay has passed, then its bar.
    let score = best.score.to_string();
    wait_until("Ann's score on the card", || text(&w, ".bc-card .bc-score"), |s| *s == score).await;
    wait_until("the bar", || count_of(&w, ".bc-card .win-first"), |n| *n == 1).await;
    assert_eq!(count(&w, ".bc-card .board.small").await, 1);
    click(&w, ".bc-card").await;
    wait_until("both racks, large", || count_of(&w, "#bc-open .bc-rack"), |n| *n == 2).await;
    let line = wait_until("the engine's line", || text(&w, "#bc-moves li"), |l| l.contains("best:")).await;
    assert!(line.starts_with(&format!("Ann: {}", best.play.as_ref().unwrap().notation)), "{line}");
    screenshot(&w, "broadcast").await;
    // The overlay: one board, the racks and the bar, on a transparent page.
    click(&w, "#bc-overlay-link").await;
    wait_until("the overlay's racks", || count_of(&w, "#bc-overlay .bc-rack"), |n| *n == 2).await;
    assert_eq!(count(&w, "#bc-overlay .board").await, 1);
    assert_eq!(count(&w, "#bc-overlay .win-first").await, 1);
    let background = script(&w, "return getComputedStyle(document.body).backgroundColor").await;
    assert_eq!(background, "rgba(0, 0, 0, 0)");
    screenshot(&w, "broadcast-overlay").await;
    w.close().await.unwrap();

    let r = driver.browser_in("ru").await;
    r.goto(&format!("{}/broadcasts", srv.url)).await.unwrap();
    wait_text(&r, ".hero h1", "Трансляции").await;
    r.goto(&format!("{}/broadcasts/open-live", srv.url)).await.unwrap();
    wait_text(&r, "#bc-status", "на 1 с позже зала").await;
    r.goto(&format!("{}/broadcasts/open-live/games/{}/overlay", srv.url, c.game_id)).await.unwrap();
    let bar = wait_until(
        "the overlay's bar, in Russian",
        || async { r.find(Locator::Css("#bc-overlay .win-bar")).await.ok()?.attr("aria-label").await.ok()? },
        |l: &String| l.starts_with("шансы на победу"),
    )
    .await;
    assert!(bar.contains('%'), "{bar}");
    // The bar is drawn to its figure (the page's CSP refuses style attributes: set through CSSOM).
    let width =
        script(&r, "return document.querySelector('#bc-overlay .win-first').getBoundingClientRect().width")
            .await;
    let whole =
        script(&r, "return document.querySelector('#bc-overlay .win-bar').getBoundingClientRect().width")
            .await;
    let first: f64 =
        bar.split(": ").nth(1).and_then(|x| x.split('%').next()).unwrap().trim().parse().unwrap();
    let drawn = 100.0 * width.as_f64().unwrap() / whole.as_f64().unwrap();
    assert!((drawn - first).abs() < 1.5, "the bar's first part is {drawn:.1}% of it, for {first}%");
    screenshot(&r, "broadcast-overlay-ru").await;
    r.close().await.unwrap();
}

/// A broadcast, made by the root director, of the games labelled `label`: a second behind the
/// hall, racks shown, the engine's line on each move.
async fn broadcast(srv: &TestServer, root: &str, slug: &str, name: &str, label: (&str, &str)) {
    let request = pb::CreateBroadcastRequest {
        slug: slug.into(),
        name: name.into(),
        labels: [(label.0.to_string(), label.1.to_string())].into(),
        delay_seconds: 1,
        reveal_racks: true,
        analysis: true,
        analysis_ms: 150,
    };
    srv.broadcasts().await.create_broadcast(authed(request, root)).await.unwrap();
}

/// The overlay fills a streaming program's browser source of each usual size (an 800×600 source,
/// 720p, 1080p) on a transparent page: the board, as tall as the source allows, and beside it
/// the names, scores, clocks and racks, the engine's bar with its figures, the last move with its
/// line and the delay; nothing scrolls, nothing leaves the source, no text is cut.
#[tokio::test]
async fn the_overlay_fills_a_stream_source_at_every_size_with_nothing_cut() {
    const ROOT: &str = "overlay-root";
    let srv = start_directed(ROOT).await;
    let mut g = srv.games().await;
    let mut request = create(
        pb::Ruleset::English,
        pb::ChallengeRule::Single,
        vec![human("Ann Archer"), human("Bo Baker")],
        17,
    );
    request.labels = [("event".to_string(), "stream".to_string())].into();
    request.clock =
        Some(pb::ClockSpec { initial_ms: 25 * 60_000, max_overtime_ms: 60_000, ..Default::default() });
    let c = g.create_game(authed(request, ROOT)).await.unwrap().into_inner();
    broadcast(&srv, ROOT, "stream-live", "Stream", ("event", "stream")).await;
    let best = play_first_turn(&srv, &c.game_id, &c.seat_tokens[0]).await;
    let notation = best.play.as_ref().unwrap().notation.clone();

    let mut driver = Driver::start().await;
    let w = driver.browser().await;
    w.goto(&format!("{}/broadcasts/stream-live/games/{}/overlay", srv.url, c.game_id)).await.unwrap();
    let last =
        wait_until("the last move and its line", || text(&w, "#bc-ov-last"), |t| t.contains("best:")).await;
    assert!(last.starts_with(&format!("Ann Archer: {notation}")), "{last}");
    let figures =
        wait_until("the bar's figures", || text(&w, ".bc-ov-win .win-labels"), |t| t.ends_with('%')).await;
    let (a, b) = figures.split_once('\n').unwrap_or_else(|| panic!("two figures: {figures:?}"));
    let (a, b): (u32, u32) =
        (a.trim_end_matches('%').parse().unwrap(), b.trim_end_matches('%').parse().unwrap());
    assert_eq!(a + b, 100, "{figures}");
    wait_text(&w, "#bc-ov-delay", "1 s behind the hall").await;
    wait_until("both clocks", || count_of(&w, ".bc-ov-seat .bc-clock"), |&n| n == 2).await;
    // Bo's clock runs, as the game's did a second ago: it counts down on the overlay.
    assert_eq!(count(&w, ".bc-ov-seat.to-move[data-seat='1']").await, 1);
    let running = ".bc-ov-seat[data-seat='1'] .bc-clock";
    let before = text(&w, running).await.unwrap();
    wait_until("Bo's clock counting down", || text(&w, running), |t| *t != before && t.starts_with("2"))
        .await;
    assert_eq!(count(&w, "#bc-overlay .bc-ov-rack .tile").await, 14, "both racks, tile by tile");
    for html in ["document.documentElement", "document.body"] {
        let background = script(&w, &format!("return getComputedStyle({html}).backgroundColor")).await;
        assert_eq!(background, "rgba(0, 0, 0, 0)", "{html}");
    }
    let measure = r#"
        const page = document.documentElement, [w, h] = [page.clientWidth, page.clientHeight];
        const all = [...document.querySelectorAll('#bc-overlay, #bc-overlay *')];
        const outside = all.filter((el) => {
          const r = el.getBoundingClientRect();
          return r.left < -0.5 || r.top < -0.5 || r.right > w + 0.5 || r.bottom > h + 0.5;
        }).map((el) => el.className || el.tagName);
        const texts = '.bc-name, .bc-score, .bc-clock, .win-labels span, .bc-ov-last, .bc-ov-delay';
        const cut = [...document.querySelectorAll(texts)]
          .filter((el) => el.scrollWidth > el.clientWidth + 0.5 || el.scrollHeight > el.clientHeight + 0.5)
          .map((el) => el.className);
        const board = document.querySelector('#bc-overlay .board').getBoundingClientRect();
        const names = document.querySelector('.bc-ov-seats').getBoundingClientRect();
        return { view: [w, h], scrolls: page.scrollWidth > w || page.scrollHeight > h, outside, cut,
                 board: [board.width, board.height], names: [names.left, names.width] };
    "#;
    for (width, height) in [(800, 600), (1280, 720), (1920, 1080)] {
        assert_eq!(set_viewport(&w, width, height).await, (width, height));
        let m = script(&w, measure).await;
        assert_eq!(m["scrolls"], false, "{width}×{height}: {m}");
        assert_eq!(m["outside"], serde_json::json!([]), "{width}×{height}: {m}");
        assert_eq!(m["cut"], serde_json::json!([]), "{width}×{height}: {m}");
        // The board as tall as the source (less its margins), at most three fifths of its width,
        // and the seats beside it, not above.
        let side = f64::from(height).min(0.6 * f64::from(width));
        let board = m["board"][1].as_f64().unwrap();
        assert!(board >= 0.9 * side && board <= side, "{width}×{height}: the board is {board} px tall: {m}");
        assert!(m["names"][0].as_f64().unwrap() >= m["board"][0].as_f64().unwrap(), "{width}×{height}: {m}");
        screenshot(&w, &format!("broadcast-overlay-{width}x{height}")).await;
    }
    w.close().await.unwrap();
}

/// The grid of a tournament's broadcast draws each board's letters in its thumbnail, and each
/// division's standings under a title that names the division and starts where its table does.
#[tokio::test]
async fn the_broadcast_grid_shows_each_boards_letters_and_titled_standings() {
    const ROOT: &str = "grid-root";
    let srv = start_directed(ROOT).await;
    let names = ["Ann Archer", "Bo Baker"];
    let (mut t, tokens) =
        tournament(&srv, ROOT, ("winter", "Winter open"), &names, &[pb::PairingMethod::RoundRobin], 2).await;
    broadcast(&srv, ROOT, "winter-live", "Winter, live", ("tournament", "winter")).await;
    for call in ["pair", "start"] {
        let (slug, division, round) = ("winter".to_string(), "a".to_string(), 1);
        if call == "pair" {
            t.pair_round(authed(pb::PairRoundRequest { slug, division, round, ..Default::default() }, ROOT))
                .await
                .unwrap();
        } else {
            t.start_round(authed(
                pb::StartRoundRequest { slug, division, round, ..Default::default() },
                ROOT,
            ))
            .await
            .unwrap();
        }
    }
    let tournament =
        t.get_tournament(pb::GetTournamentRequest { slug: "winter".into() }).await.unwrap().into_inner();
    let pairing = tournament.tournament.unwrap().divisions[0].rounds[0].pairings[0].clone();
    let token = &tokens.iter().find(|p| p.player == pairing.first).unwrap().token;
    let best = best_move(&mut srv.analysis().await, &pairing.game_id, token).await.unwrap();
    let play = Some(pb::submit_turn_request::Action::Play(best.play.clone().unwrap()));
    srv.games().await.submit_turn(authed(turn(&pairing.game_id, 0, play), token)).await.unwrap();
    let letters: Vec<String> = best.play.as_ref().unwrap().tiles.iter().map(|t| t.letter.clone()).collect();

    let mut driver = Driver::start().await;
    let w = driver.browser().await;
    w.goto(&format!("{}/broadcasts/winter-live", srv.url)).await.unwrap();
    let shown = r#"return [...document.querySelectorAll('.bc-card .board.small .tile .letter')]
        .filter((l) => getComputedStyle(l).display !== 'none' && parseFloat(getComputedStyle(l).fontSize) >= 8)
        .map((l) => l.textContent);"#;
    wait_until(
        "the thumbnail's letters",
        || async { serde_json::from_value::<Vec<String>>(script(&w, shown).await).ok() },
        |l| *l == letters,
    )
    .await;
    wait_text(&w, "#bc-standings caption", "Division a").await;
    let aligned = script(
        &w,
        r#"const caption = document.querySelector('#bc-standings caption');
           const range = document.createRange();
           range.selectNodeContents(caption);
           return range.getBoundingClientRect().left - caption.closest('table').getBoundingClientRect().left;"#,
    )
    .await;
    assert!(aligned.as_f64().unwrap().abs() < 1.0, "the title starts {aligned} px from its table");
    screenshot(&w, "broadcast-grid").await;
    w.close().await.unwrap();
}

/// The move lists tell the end of a game in words, in the page's language, its players named: a
/// broadcast's ("Maven: went out: EIIO left on another rack +8", "game over: Maven went out")
/// and the game's own page, in English and in Russian; no event's raw name, no seat counted
/// from 0.
#[tokio::test]
async fn the_end_of_a_game_is_told_in_words_with_its_players_named_in_both_languages() {
    const ROOT: &str = "words-root";
    let srv = start_directed(ROOT).await;
    let mut g = srv.games().await;
    // A record to the play that goes out: the game waits for Adam's pass to accept it.
    let record = std::fs::read_to_string("tests/data/gcg/logan.gcg").unwrap();
    let lines: Vec<&str> = record.lines().collect();
    assert!(lines[lines.len() - 2].contains("1A MOUTHpART"), "{record}");
    let request = pb::ImportGcgRequest {
        gcg: lines[..lines.len() - 1].join("\n") + "\n",
        labels: [("event".to_string(), "logan".to_string())].into(),
        ..Default::default()
    };
    let imported = g.import_gcg(authed(request, ROOT)).await.unwrap().into_inner();
    let (id, view) = (imported.game_id.clone(), imported.view.clone().unwrap());
    assert!(!view.over && view.awaiting_final_challenge, "{view:?}");
    broadcast(&srv, ROOT, "logan-live", "Logan", ("event", "logan")).await;
    let mut driver = Driver::start().await;
    let (en, ru) = (driver.browser().await, driver.browser_in("ru").await);
    for c in [&en, &ru] {
        c.goto(&format!("{}/broadcasts/logan-live", srv.url)).await.unwrap();
        click(c, ".bc-card").await;
        wait_until("the moves so far", || count_of(c, "#bc-moves li"), |&n| n > 20).await;
    }
    let pass = Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    g.submit_turn(authed(turn(&id, view.turn, pass), &imported.seat_tokens[1])).await.unwrap();
    let events = watch_to_end(&mut g, &id, 0).await;
    let out = events.iter().find(|e| e.kind == "end_rack_points").expect("Maven's points for the rack left");
    let (tiles, points) = (&out.tiles, out.points);
    let maven = &view.seats[0].name;
    let said = [
        (
            &en,
            format!("{maven}: went out: {tiles} left on another rack +{points}"),
            format!("game over: {maven} went out"),
        ),
        (
            &ru,
            format!("{maven}: все фишки выставлены: у соперника осталось {tiles} +{points}"),
            format!("партия окончена: {maven}: все фишки выставлены"),
        ),
    ];
    let read =
        "return [...document.querySelectorAll('#bc-moves li > span:first-child')].map((l) => l.textContent)";
    for (c, rack, end) in &said {
        let shown: Vec<String> = wait_until(
            "the end, told",
            || async { serde_json::from_value::<Vec<String>>(script(c, read).await).ok() },
            |l| l.last() == Some(end),
        )
        .await;
        assert!(shown.contains(rack), "{shown:?}");
        assert!(!shown.iter().any(|l| l.contains('_') || l.contains("seat ")), "{shown:?}");
    }
    screenshot(&ru, "broadcast-end-ru").await;
    // The game's own page says the same of the same events.
    for (c, rack, end) in &said {
        c.goto(&format!("{}/games/{id}", srv.url)).await.unwrap();
        let rack = rack.split_once(": ").unwrap().1.rsplit_once(' ').unwrap().0;
        wait_text(c, "#moves li.end_rack_points .what", rack).await;
        let reason = end.split_once(": ").unwrap().1;
        wait_until("the end's reason", || text(c, "#game-over p"), |t| t.starts_with(&format!("{reason}.")))
            .await;
    }
    en.close().await.unwrap();
    ru.close().await.unwrap();
}

/// How many elements match `css`, as a reading `wait_until` polls.
async fn count_of(c: &Client, css: &str) -> Option<usize> {
    Some(count(c, css).await)
}

#[tokio::test]
async fn the_pages_codec_round_trips_generated_maps_and_packed_doubles() {
    use prost::Message;
    // Seeded cases (SplitMix64): label maps of 0 to 4 entries (Cyrillic and accented text among
    // them) and lists of 0 to 5 doubles of every sign and size, each decoded and written back by
    // the page, then read by prost.
    let mut state = 0x5eed_u64;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let words = ["tournament", "round", "открытый", "ñandú", "r3", "a", "division", "Ёж"];
    let mut requests = Vec::new();
    let mut analyses = Vec::new();
    for _ in 0..200 {
        let mut labels = std::collections::HashMap::new();
        for _ in 0..next() % 5 {
            labels.insert(words[(next() % 8) as usize].to_string(), words[(next() % 8) as usize].to_string());
        }
        requests.push(pb::CreateBroadcastRequest {
            slug: words[(next() % 8) as usize].to_string(),
            labels,
            delay_seconds: (next() % 4000) as u32,
            reveal_racks: next() % 2 == 0,
            analysis: next() % 2 == 0,
            analysis_ms: (next() % 40_000) as u32,
            ..Default::default()
        });
        let win_percent = (0..next() % 6)
            .map(|_| {
                let x = f64::from_bits(next());
                if x.is_finite() { x } else { (next() % 10_000) as f64 / 100.0 }
            })
            .collect();
        analyses.push(pb::MoveAnalysis {
            turn: (next() % 60) as u32,
            seat: (next() % 2) as u32,
            event: next() % 1000,
            win_percent,
            review: None,
        });
    }
    let srv = start().await;
    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    c.goto(&format!("{}/director", srv.url)).await.unwrap();
    let js = r#"
        const [requests, analyses, done] = arguments;
        import("/web/grpc.js").then(async (m) => {
          await m.loadSchema();
          const back = (type, all) => all.map((b) => Array.from(m.encode(type, m.decode(type, Uint8Array.from(b)))));
          done({ requests: back("dawgref.v1.CreateBroadcastRequest", requests),
                 analyses: back("dawgref.v1.MoveAnalysis", analyses) });
        }).catch((err) => done({ error: String(err) }));
    "#;
    let bytes = |all: Vec<Vec<u8>>| serde_json::json!(all);
    let out = c
        .execute_async(
            js,
            vec![
                bytes(requests.iter().map(|r| r.encode_to_vec()).collect()),
                bytes(analyses.iter().map(|a| a.encode_to_vec()).collect()),
            ],
        )
        .await
        .unwrap();
    assert!(out.get("error").is_none(), "{out}");
    let read = |key: &str| -> Vec<Vec<u8>> { serde_json::from_value(out[key].clone()).unwrap() };
    for (i, b) in read("requests").iter().enumerate() {
        assert_eq!(pb::CreateBroadcastRequest::decode(b.as_slice()).unwrap(), requests[i], "case {i}");
    }
    for (i, b) in read("analyses").iter().enumerate() {
        assert_eq!(pb::MoveAnalysis::decode(b.as_slice()).unwrap(), analyses[i], "case {i}");
    }
    c.close().await.unwrap();
}

#[tokio::test]
async fn a_rated_division_shows_each_rating_and_estimate_in_both_languages() {
    const ROOT: &str = "director-secret";
    let srv = start_directed(ROOT).await;
    let mut t =
        pb::tournaments_service_client::TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    let player = |name: &str, rating| pb::TournamentPlayerSpec {
        bot_account: String::new(),
        name: name.into(),
        rating,
        bot: None,
        lifetime_games: Some(100),
    };
    let request = pb::CreateTournamentRequest {
        allow_same_names: false,
        name: "Rated open".into(),
        slug: "rated".into(),
        game: None,
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players: vec![player("Ann Archer", 1500), player("Bo Baker", 1600), player("Cy Cole", 0)],
            rounds: vec![pb::RoundSpec { method: pb::PairingMethod::Manual as i32, ..Default::default() }; 2],
            controls: Some(pb::DivisionControls {
                rating_system: pb::RatingSystem::Nsa2008 as i32,
                ..Default::default()
            }),
            result_reports: 0,
        }],
        seed: Some(1),
    };
    t.create_tournament(authed(request, ROOT)).await.unwrap();
    round_by_hand(&mut t, ROOT, ("rated", 1), &[(1, 2), (3, 0)], &[(420, 380)]).await;

    let mut driver = Driver::start().await;
    let rating_cells = |c: &Client| {
        let c = c.clone();
        async move {
            let cells = script(
                &c,
                "return [...document.querySelectorAll('#standings-a td.rating')].map((e) => e.textContent)",
            )
            .await;
            Some(cells.as_array()?.iter().filter_map(|v| v.as_str().map(str::to_string)).collect::<Vec<_>>())
        }
    };
    // Cy's bye puts him first (spread 50); Ann 1500 beat Bo 1600: 1518 (+18) and 1589 (−11).
    let expected = vec!["—".to_string(), "1500 → 1518 (+18)".into(), "1600 → 1589 (−11)".into()];
    for (lang, head) in [("en", "Rating"), ("ru", "Рейтинг")] {
        let c = driver.browser_in(lang).await;
        c.goto(&format!("{}/tournaments/rated", srv.url)).await.unwrap();
        wait_until("the ratings", || rating_cells(&c), |cells| cells == &expected).await;
        let heads =
            script(&c, "return [...document.querySelectorAll('#standings-a th')].map((e) => e.textContent)")
                .await;
        assert!(heads.as_array().unwrap().iter().any(|h| h == head), "{heads:?}");
        c.close().await.unwrap();
    }
}

#[tokio::test]
async fn a_divisions_statistics_show_to_all_and_the_log_to_its_director_in_english_and_russian() {
    const ROOT: &str = "director-secret";
    let srv = start_directed(ROOT).await;
    let (mut t, _) =
        tournament(&srv, ROOT, ("club", "Club night"), &["Ann", "Bo"], &[pb::PairingMethod::Manual], 3).await;
    round_by_hand(&mut t, ROOT, ("club", 1), &[(1, 2)], &[(420, 380)]).await;

    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    // A spectator sees the statistics (Ann's sweep of a 1500, counted 95% as TSH counts one:
    // E(r, 1500) = 0.95 at r = 2423.6, TSH's search ending on 2424) and no log.
    c.goto(&format!("{}/tournaments/club", srv.url)).await.unwrap();
    wait_text(&c, "#high-game-a", "High game: Ann 420 – 380 Bo (round 1)").await;
    wait_until(
        "Ann's figures",
        || text(&c, "#statistics-table-a tr[data-player='1']"),
        |t| {
            t.split_whitespace().collect::<Vec<_>>().join(" ")
                == "Ann 1 420.00 380.00 420 1 2424 0 in 0 games"
        },
    )
    .await;
    assert_eq!(count(&c, "#tournament-log:not([hidden])").await, 0, "the log is the director's");
    c.close().await.unwrap();
    // The director reads the log, filtered by kind.
    let c = driver.browser().await;
    c.goto(&format!("{}/tournaments/club#token={ROOT}", srv.url)).await.unwrap();
    wait_until("the log", || async { Some(count(&c, "#log-table tr[data-event]").await) }, |&n| n == 3).await;
    script(&c, "document.getElementById('log-kind').value = 'result'").await;
    click(&c, "#log-show").await;
    wait_until("the results", || async { Some(count(&c, "#log-table tr[data-event]").await) }, |&n| n == 1)
        .await;
    let row = text(&c, "#log-table tr[data-event='2']").await.unwrap();
    assert!(row.contains("director") && row.contains("Ann 420 – Bo 380"), "{row}");
    screenshot(&c, "tournament-log").await;
    // In Russian.
    click(&c, "#lang-ru").await;
    wait_text(&c, "#statistics-a h3", "Статистика").await;
    wait_text(&c, "#tournament-log h2", "Журнал").await;
    c.close().await.unwrap();
}

/// The text of each element `css` matches, in the page's order.
async fn cells(c: &Client, css: &str) -> Vec<String> {
    let js = format!("return [...document.querySelectorAll({css:?})].map((e) => e.textContent)");
    serde_json::from_value(script(c, &js).await).unwrap()
}

/// The director's log says each event in words, in English and in Russian, built from the
/// event's fields (its kind, round, pairing and players, named from the tournament); its division
/// filter lists the divisions and its player filter lists the players, and each keeps its events.
#[tokio::test]
async fn the_log_lists_divisions_and_players_to_filter_and_says_each_event_in_english_and_russian() {
    const ROOT: &str = "director-secret";
    let srv = start_directed(ROOT).await;
    let names = ["Ann Archer", "Bo Baker", "Cy Cole", "Di Dunn"];
    let methods = [pb::PairingMethod::Manual, pb::PairingMethod::KingOfTheHill];
    let (mut t, _) = tournament(&srv, ROOT, ("logs", "Log open"), &names, &methods, 3).await;
    let slug = || "logs".to_string();
    let a = || "a".to_string();
    // 1-3: round 1 paired by hand, a game's scores and a forfeit; 4: the scores corrected.
    round_by_hand(&mut t, ROOT, ("logs", 1), &[(1, 2), (3, 4)], &[(420, 388)]).await;
    let result = |pairing, result, correct| pb::RecordResultRequest {
        slug: slug(),
        division: a(),
        round: 1,
        pairing,
        result: Some(result),
        correct,
        request_id: String::new(),
    };
    use pb::record_result_request::Result as R;
    t.record_result(authed(result(2, R::ForfeitedBy(4), false), ROOT)).await.unwrap();
    let corrected = R::Scores(pb::FinalScores { first: 412, second: 388 });
    t.record_result(authed(result(1, corrected, true), ROOT)).await.unwrap();
    // 5: a late entry, absent from round 1; 6: a third round added.
    let eve = pb::TournamentPlayerSpec { name: "Eve Late".into(), rating: 1400, ..Default::default() };
    let add = pb::AddPlayerRequest {
        allow_same_name: false,
        request_id: String::new(),
        slug: slug(),
        division: a(),
        player: Some(eve),
        missed_round_spread: None,
    };
    t.add_player(authed(add, ROOT)).await.unwrap();
    let swiss = pb::RoundSpec { method: pb::PairingMethod::Swiss as i32, ..Default::default() };
    let add =
        pb::AddRoundRequest { slug: slug(), division: a(), rounds: vec![swiss], request_id: String::new() };
    t.add_round(authed(add, ROOT)).await.unwrap();
    // 7-9: round 2 paired, taken back, paired again.
    let pair = || pb::PairRoundRequest { slug: slug(), division: a(), round: 2, ..Default::default() };
    t.pair_round(authed(pair(), ROOT)).await.unwrap();
    let unpair = pb::UnpairRoundRequest { slug: slug(), division: a(), round: 2, request_id: String::new() };
    t.unpair_round(authed(unpair, ROOT)).await.unwrap();
    let round_2 = t.pair_round(authed(pair(), ROOT)).await.unwrap().into_inner().round.unwrap();
    // 10-11: Bo withdraws (his game of round 2 a forfeit); 12: he enters again; 13: round 2 starts.
    let bo_game = round_2.pairings.iter().find(|p| p.first == 2 || p.second == 2).unwrap().clone();
    assert_ne!(bo_game.second, 0, "Bo has a game in round 2, not the bye");
    let everyone = [&names[..], &["Eve Late"]].concat();
    let opponent = everyone[(if bo_game.first == 2 { bo_game.second } else { bo_game.first }) as usize - 1];
    let withdraw = pb::WithdrawPlayerRequest { slug: slug(), division: a(), player: 2, ..Default::default() };
    t.withdraw_player(authed(withdraw, ROOT)).await.unwrap();
    let reenter =
        pb::ReenterPlayerRequest { slug: slug(), division: a(), player: 2, request_id: String::new() };
    t.reenter_player(authed(reenter, ROOT)).await.unwrap();
    let start = pb::StartRoundRequest { slug: slug(), division: a(), round: 2, ..Default::default() };
    let started = t.start_round(authed(start, ROOT)).await.unwrap().into_inner().round.unwrap();
    let games = started.pairings.iter().filter(|p| !p.game_id.is_empty()).count();
    assert_eq!(games, 1, "round 2: one game made (Bo's is a forfeit, and a bye)");
    // 14: a second division, from a `.t` file.
    let import = pb::ImportTshRequest {
        slug: slug(),
        division: "b".into(),
        text: "Xi Xu 1500 2; 400\nYo Yu 1500 1; 350\n".into(),
        ..Default::default()
    };
    t.import_tsh(authed(import, ROOT)).await.unwrap();

    let english: Vec<(&str, String)> = vec![
        ("tournament created", "Log open".into()),
        ("pairings made", "Round 1 paired by hand".into()),
        ("result", "Ann Archer 420 – Bo Baker 388".into()),
        ("result", "Di Dunn forfeits to Cy Cole".into()),
        ("result corrected", "Ann Archer 412 – Bo Baker 388 (was Ann Archer 420 – Bo Baker 388)".into()),
        ("player added", "Eve Late joins as player 5, absent from round 1".into()),
        ("rounds changed", "Round 3 added: 3 rounds in all".into()),
        ("pairings made", "Round 2 paired".into()),
        ("pairings taken back", "Round 2's pairings taken back".into()),
        ("pairings made", "Round 2 paired".into()),
        ("result", format!("Bo Baker forfeits to {opponent} (withdrawn)")),
        ("player withdrawn", "Bo Baker withdraws".into()),
        ("player re-entered", "Bo Baker enters again as player 2".into()),
        ("round started", "Round 2 started: 1 game".into()),
        ("division imported", "Division b imported: 2 players, 1 round played".into()),
    ];
    let russian: Vec<(&str, String)> = vec![
        ("турнир создан", "Log open".into()),
        ("пары составлены", "Пары тура 1 составлены вручную".into()),
        ("результат", "Ann Archer 420 – Bo Baker 388".into()),
        ("результат", "Di Dunn: техническое поражение, побеждает Cy Cole".into()),
        ("результат исправлен", "Ann Archer 412 – Bo Baker 388 (было: Ann Archer 420 – Bo Baker 388)".into()),
        ("игрок добавлен", "Eve Late вступает в турнир как игрок 5, не играл(а) в туре 1".into()),
        ("туры изменены", "Тур 3 добавлен: всего 3 тура".into()),
        ("пары составлены", "Пары тура 2 составлены".into()),
        ("пары отменены", "Пары тура 2 отменены".into()),
        ("пары составлены", "Пары тура 2 составлены".into()),
        ("результат", format!("Bo Baker: техническое поражение, побеждает {opponent} (снятие с турнира)")),
        ("игрок снят", "Bo Baker снимается с турнира".into()),
        ("игрок возвращён", "Bo Baker снова в турнире как игрок 2".into()),
        ("тур начат", "Тур 2 начат: 1 партия".into()),
        ("группа импортирована", "Группа b импортирована: 2 игрока, сыграно: 1 тур".into()),
    ];
    let every = |lang: &str| if lang == "en" { "every division" } else { "все группы" };
    let mut driver = Driver::start().await;
    for (lang, (width, height), expected) in [("en", (1366, 768), english), ("ru", (390, 844), russian)] {
        let c = driver.browser_in(lang).await;
        set_viewport(&c, width, height).await;
        c.goto(&format!("{}/tournaments/logs#token={ROOT}", srv.url)).await.unwrap();
        let rows = || async { Some(count(&c, "#log-table tr[data-event]").await) };
        wait_until("the whole log", rows, |&n| n == 15).await;
        // The filters: every division and each of them, and nothing else.
        let options = cells(&c, "#log-division option").await;
        assert_eq!(options, [every(lang), "a", "b"], "{lang}");
        let text = script(&c, "return document.getElementById('log-division').textContent").await;
        assert_eq!(text.as_str().unwrap(), [every(lang), "a", "b"].concat(), "{lang}");
        // Each event in words: its kind, and what happened.
        let kinds = cells(&c, "#log-table tr[data-event] td:nth-child(3)").await;
        let details = cells(&c, "#log-table tr[data-event] td:nth-child(6)").await;
        let seen: Vec<(String, String)> = kinds.into_iter().zip(details).collect();
        let want: Vec<(String, String)> = expected.iter().map(|(k, d)| (k.to_string(), d.clone())).collect();
        assert_eq!(seen, want, "{lang}");
        assert_eq!(count(&c, "#log-table [lang='en']").await, 0, "{lang}: no server text left untold");
        // Every kind, and each in words.
        let kind_options = cells(&c, "#log-kind option").await;
        assert_eq!(kind_options.len(), 20, "{lang}: every kind and the 19 kinds");
        assert!(kind_options.iter().all(|k| !k.contains('_')), "{lang}: {kind_options:?}");
        // Division b: its import alone.
        c.find(Locator::Css("#log-division")).await.unwrap().select_by_value("b").await.unwrap();
        click(&c, "#log-show").await;
        wait_until("division b's events", rows, |&n| n == 1).await;
        let b = cells(&c, "#log-table tr[data-event] td.detail").await;
        assert_eq!(b, [expected[14].1.clone()], "{lang}");
        // Bo Baker, of division a, by name: his results, his withdrawal and his return.
        c.find(Locator::Css("#log-division")).await.unwrap().select_by_value("a").await.unwrap();
        let players = cells(&c, "#log-player option").await;
        let every_player = if lang == "en" { "every player" } else { "все игроки" };
        let mut want_players = vec![every_player.to_string()];
        want_players.extend(names.iter().chain(["Eve Late"].iter()).map(|n| n.to_string()));
        assert_eq!(players, want_players, "{lang}");
        c.find(Locator::Css("#log-player")).await.unwrap().select_by_value("a/2").await.unwrap();
        click(&c, "#log-show").await;
        wait_until("Bo's events", rows, |&n| n == 5).await;
        let numbers = cells(&c, "#log-table tr[data-event] td:first-child").await;
        assert_eq!(numbers, ["2", "4", "10", "11", "12"], "{lang}");
        // And his results alone, by kind.
        c.find(Locator::Css("#log-kind")).await.unwrap().select_by_value("result").await.unwrap();
        click(&c, "#log-show").await;
        wait_until("Bo's results", rows, |&n| n == 2).await;
        assert_eq!(count(&c, "#log-status.bad").await, 0, "{lang}");
        screenshot(&c, &format!("tournament-log-words-{lang}")).await;
        c.close().await.unwrap();
    }
}

/// The round list says who forfeited; a round whose results were all entered by hand (no game
/// made on the server) is not "not started", nor offered to start; and the late entry's form
/// has a box for the lifetime games, a label tied to each box, and the byes' spread only when
/// the rounds missed count as byes.
#[tokio::test]
async fn the_round_list_names_the_forfeiter_and_a_round_by_hand_and_the_late_entry_is_labelled() {
    const ROOT: &str = "director-secret";
    let srv = start_directed(ROOT).await;
    let names = ["Ann Archer", "Bo Baker", "Cy Cole", "Di Dunn"];
    let methods = [pb::PairingMethod::Manual, pb::PairingMethod::Manual];
    let (mut t, _) = tournament(&srv, ROOT, ("desk", "Desk open"), &names, &methods, 3).await;
    // Round 1 by hand: a game over the board and Di's forfeit; round 2 paired, not started.
    round_by_hand(&mut t, ROOT, ("desk", 1), &[(1, 2), (3, 4)], &[(420, 388)]).await;
    let forfeit = pb::RecordResultRequest {
        slug: "desk".into(),
        division: "a".into(),
        round: 1,
        pairing: 2,
        result: Some(pb::record_result_request::Result::ForfeitedBy(4)),
        ..Default::default()
    };
    t.record_result(authed(forfeit, ROOT)).await.unwrap();
    let set = pb::SetPairingsRequest {
        slug: "desk".into(),
        division: "a".into(),
        round: 2,
        pairings: vec![pb::PairingSpec { first: 1, second: 3 }, pb::PairingSpec { first: 2, second: 4 }],
        ..Default::default()
    };
    t.set_pairings(authed(set, ROOT)).await.unwrap();

    let mut driver = Driver::start().await;
    type Says = (&'static str, &'static str, &'static str, &'static str, [&'static str; 5]);
    let english: Says = (
        "Round 1",
        "Di Dunn forfeited",
        "Start round 2",
        "Round 2 · not started",
        ["Name", "Rating", "Lifetime games", "Rounds already paired", "Spread of each bye"],
    );
    let russian: Says = (
        "Тур 1",
        "Di Dunn: техническое поражение",
        "Начать тур 2",
        "Тур 2 · не начат",
        [
            "Имя",
            "Рейтинг",
            "Сыграно партий до турнира",
            "Туры с уже составленными парами",
            "Разница за каждый тур без пары",
        ],
    );
    let boxes = ["late-name-a", "late-rating-a", "late-lifetime-a", "late-missed-a", "late-spread-a"];
    for (lang, (width, height), (round_1, forfeited, start, round_2, labels)) in
        [("en", (1366, 768), english), ("ru", (390, 844), russian)]
    {
        let c = driver.browser_in(lang).await;
        set_viewport(&c, width, height).await;
        c.goto(&format!("{}/tournaments/desk#token={ROOT}", srv.url)).await.unwrap();
        wait_until("round 2", || async { Some(count(&c, "#round-a-2").await) }, |&n| n == 1).await;
        // Who forfeited, by name; round 1, all in by hand, is no round to start.
        wait_text(&c, "#round-a-1 tr[data-pairing='2'] td.score", forfeited).await;
        assert_eq!(text(&c, "#round-a-1 h3").await.unwrap(), round_1, "{lang}");
        assert_eq!(text(&c, "#round-a-2 h3").await.unwrap(), round_2, "{lang}");
        assert_eq!(text(&c, "#start-a").await.unwrap(), start, "{lang}");
        // Each box of the late entry has its label, tied to it.
        let js = format!(
            "return {boxes:?}.map((id) => {{ const el = document.getElementById(id);
               return el ? [...el.labels].map((l) => l.textContent.trim()).join('|') : null; }})"
        );
        let seen: Vec<Option<String>> = serde_json::from_value(script(&c, &js).await).unwrap();
        let want: Vec<Option<String>> = labels.iter().map(|l| Some(l.to_string())).collect();
        assert_eq!(seen, want, "{lang}");
        // The spread is asked only for byes.
        let shown = || async {
            let v = script(
                &c,
                "const el = document.getElementById('late-spread-a'); return el.getClientRects().length > 0",
            )
            .await;
            v.as_bool()
        };
        wait_until("the spread hidden for an absence", shown, |&v| !v).await;
        c.find(Locator::Css("#late-missed-a")).await.unwrap().select_by_value("byes").await.unwrap();
        wait_until("the spread shown for byes", shown, |&v| v).await;
        c.find(Locator::Css("#late-missed-a")).await.unwrap().select_by_value("absent").await.unwrap();
        wait_until("the spread hidden again", shown, |&v| !v).await;
        // The form fits the screen.
        let fits = "return document.getElementById('late-a').getBoundingClientRect().right
                    <= document.documentElement.clientWidth";
        let right = script(&c, fits).await;
        assert_eq!(right, true, "{lang}: the late entry fits {width} px");
        screenshot(&c, &format!("tournament-desk-{lang}")).await;
        c.close().await.unwrap();
    }
    // A late entry with their lifetime games and a bye of -50 for each round paired; one with
    // the box left empty, absent: not known.
    let c = driver.browser().await;
    c.goto(&format!("{}/tournaments/desk#token={ROOT}", srv.url)).await.unwrap();
    let standings = |n: usize| {
        let c = c.clone();
        async move {
            wait_until(
                "the standings",
                || async { Some(count(&c, "#standings-a tbody tr").await) },
                |&k| k == n,
            )
            .await
        }
    };
    standings(4).await;
    // Filled in and sent in one go: an event's redraw between keys and click would lose them.
    let late = |name: &str, lifetime: &str, missed: &str| {
        format!(
            "const v = (id, x) => {{ document.getElementById(id).value = x; }};
             v('late-name-a', '{name}'); v('late-lifetime-a', '{lifetime}'); v('late-missed-a', '{missed}');
             document.getElementById('late-add-a').click();"
        )
    };
    script(&c, &late("Eve Late", "250", "byes")).await;
    wait_until("Eve's entry", || text(&c, "#tournament-result"), |t| t.starts_with("Eve Late is player 5."))
        .await;
    standings(5).await;
    script(&c, &late("Fay Ford", "", "absent")).await;
    wait_until("Fay's entry", || text(&c, "#tournament-result"), |t| t.starts_with("Fay Ford is player 6."))
        .await;
    c.close().await.unwrap();
    let get = pb::GetTournamentRequest { slug: "desk".into() };
    let d = t.get_tournament(authed(get, ROOT)).await.unwrap().into_inner().tournament.unwrap().divisions[0]
        .clone();
    let lifetimes: Vec<Option<u32>> = d.players[4..].iter().map(|p| p.lifetime_games).collect();
    assert_eq!(lifetimes, [Some(250), None]);
    let byes: Vec<(u32, i32)> = d
        .rounds
        .iter()
        .flat_map(|r| &r.pairings)
        .filter(|p| p.second == 0)
        .map(|p| (p.first, p.bye_spread))
        .collect();
    assert_eq!(byes, [(5, -50), (5, -50)], "Eve: a bye of -50 in each round paired; Fay: absent");
}

/// Empty or half-filled score boxes are refused on the page, in words next to the boxes, and
/// nothing is sent: the pairing has no result and its game plays on; filled in, they are sent.
#[tokio::test]
async fn empty_or_half_filled_score_boxes_are_refused_on_the_page_in_both_languages() {
    const ROOT: &str = "director-secret";
    let srv = start_directed(ROOT).await;
    let names = ["Ann Archer", "Bo Baker"];
    let methods = [pb::PairingMethod::KingOfTheHill];
    let (mut t, _) = tournament(&srv, ROOT, ("boxes", "Box open"), &names, &methods, 3).await;
    let pair =
        pb::PairRoundRequest { slug: "boxes".into(), division: "a".into(), round: 1, ..Default::default() };
    t.pair_round(authed(pair, ROOT)).await.unwrap();
    let start =
        pb::StartRoundRequest { slug: "boxes".into(), division: "a".into(), round: 1, ..Default::default() };
    let round = t.start_round(authed(start, ROOT)).await.unwrap().into_inner().round.unwrap();
    let p = round.pairings[0].clone();
    let (first, second) = (names[p.first as usize - 1], names[p.second as usize - 1]);
    let mut g = srv.games().await;
    let pairing_now = || {
        let mut t = t.clone();
        async move {
            let get = pb::GetTournamentRequest { slug: "boxes".into() };
            let r = t.get_tournament(authed(get, ROOT)).await.unwrap().into_inner();
            r.tournament.unwrap().divisions[0].rounds[0].pairings[0].clone()
        }
    };

    let mut driver = Driver::start().await;
    let says = [
        (
            "en",
            (1366, 768),
            "Both scores are missing: nothing was sent.".to_string(),
            format!("{second}'s score is missing: nothing was sent."),
        ),
        (
            "ru",
            (390, 844),
            "Не введены оба счёта: ничего не отправлено.".to_string(),
            format!("Не введён счёт игрока {second}: ничего не отправлено."),
        ),
    ];
    for (lang, (width, height), both, half) in says {
        let c = driver.browser_in(lang).await;
        set_viewport(&c, width, height).await;
        c.goto(&format!("{}/tournaments/boxes#token={ROOT}", srv.url)).await.unwrap();
        wait_until(
            "the score boxes",
            || async { Some(count(&c, "#round-a-1 .score-in").await) },
            |&n| n == 2,
        )
        .await;
        // Both empty: refused, said next to the boxes, and nothing answered.
        click(&c, "#enter-a-1-1").await;
        let said = || async {
            let refused = text(&c, "#round-a-1 tr[data-pairing='1'] .result-form .refusal").await;
            Some((refused.unwrap_or_default(), text(&c, "#tournament-result").await.unwrap_or_default()))
        };
        let (refused, answered) =
            wait_until("the page's answer", said, |(r, a): &(String, String)| !r.is_empty() || !a.is_empty())
                .await;
        assert_eq!((refused.as_str(), answered.as_str()), (both.as_str(), ""), "{lang}");
        // One filled: the other is named.
        c.find(Locator::Css("#score-a-1-1-a")).await.unwrap().send_keys("400").await.unwrap();
        click(&c, "#enter-a-1-1").await;
        wait_text(&c, "#round-a-1 tr[data-pairing='1'] .result-form .refusal", &half).await;
        let invalid = "return ['a', 'b'].map((x) =>
                         document.getElementById(`score-a-1-1-${x}`).getAttribute('aria-invalid'))";
        assert_eq!(script(&c, invalid).await, serde_json::json!([null, "true"]), "{lang}");
        // Emptied again, and Enter pressed in a box: the same check as the button's.
        let a = c.find(Locator::Css("#score-a-1-1-a")).await.unwrap();
        a.clear().await.unwrap();
        a.send_keys("\u{E007}").await.unwrap();
        wait_text(&c, "#round-a-1 tr[data-pairing='1'] .result-form .refusal", &both).await;
        assert_eq!(script(&c, invalid).await, serde_json::json!(["true", "true"]), "{lang}");
        assert_eq!(text(&c, "#tournament-result").await.unwrap(), "", "{lang}: nothing was answered");
        // Nothing was sent: no result, and the game is in play.
        let now = pairing_now().await;
        assert!(!now.done && now.scores.is_empty() && now.forfeited_by == 0, "{lang}: {now:?}");
        let view = view_of(&mut g, authed(pb::GetGameRequest { game_id: p.game_id.clone() }, ROOT)).await;
        assert!(!view.over, "{lang}: the game plays on ({})", view.end_reason);
        screenshot(&c, &format!("tournament-refused-{lang}")).await;
        // The refusal, and the round's table it is in, within the screen's width.
        let fits = "const w = document.documentElement.clientWidth;
                    return ['#round-a-1 .refusal', '#round-a-1 table'].map((x) => {
                      const r = document.querySelector(x).getBoundingClientRect();
                      return r.left >= 0 && r.right <= w + 0.5; })";
        let fits = script(&c, fits).await;
        assert_eq!(fits, serde_json::json!([true, true]), "{lang}: the refusal fits {width} px");
        c.close().await.unwrap();
    }
    // Both filled: sent, and the game ends with the result.
    let c = driver.browser().await;
    c.goto(&format!("{}/tournaments/boxes#token={ROOT}", srv.url)).await.unwrap();
    wait_until("the score boxes", || async { Some(count(&c, "#round-a-1 .score-in").await) }, |&n| n == 2)
        .await;
    c.find(Locator::Css("#score-a-1-1-a")).await.unwrap().send_keys("400").await.unwrap();
    c.find(Locator::Css("#score-a-1-1-b")).await.unwrap().send_keys("350").await.unwrap();
    click(&c, "#enter-a-1-1").await;
    wait_text(&c, "#tournament-result", &format!("Result entered: {first} 400 – 350 {second}.")).await;
    let now = pairing_now().await;
    assert_eq!((now.done, now.scores), (true, vec![400, 350]));
    c.close().await.unwrap();
}

/// Issue 82, item 4 (the page's half): a double click on "Add a player" asks for one player
/// twice under one request id: one is added, and the token shown is theirs (a name the division
/// has allowed, so that only the request id can tell the two clicks for one).
#[tokio::test]
async fn a_double_click_on_add_a_player_adds_one_player() {
    const ROOT: &str = "director-secret";
    let srv = start_directed(ROOT).await;
    let names = ["Ann Archer", "Bo Baker", "Cy Cole", "Di Dunn"];
    let (mut t, _) =
        tournament(&srv, ROOT, ("twice", "Twice open"), &names, &[pb::PairingMethod::Swiss], 3).await;
    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    c.goto(&format!("{}/tournaments/twice#token={ROOT}", srv.url)).await.unwrap();
    wait_until("the late entry", || async { Some(count(&c, "#late-add-a").await) }, |&n| n == 1).await;
    script(
        &c,
        "document.getElementById('late-name-a').value = 'Eve Late';
         document.getElementById('late-same-name-a').checked = true;
         const add = document.getElementById('late-add-a'); add.click(); add.click();",
    )
    .await;
    wait_until("Eve's entry", || text(&c, "#tournament-result"), |t| t.starts_with("Eve Late is player 5."))
        .await;
    let shown = text(&c, "#tournament-result").await.unwrap();
    c.close().await.unwrap();
    let get = pb::GetTournamentRequest { slug: "twice".into() };
    let players =
        t.get_tournament(authed(get, ROOT)).await.unwrap().into_inner().tournament.unwrap().divisions[0]
            .players
            .len();
    assert_eq!(players, 5, "one late entry for two clicks");
    // The token shown opens player 5's seat.
    let token = shown.rsplit(' ').next().unwrap().to_string();
    let mine =
        t.get_tournament(authed(pb::GetTournamentRequest { slug: "twice".into() }, &token)).await.unwrap();
    assert_eq!(mine.into_inner().tournament.unwrap().you.unwrap().player, 5);
}

/// Issue 82, item 10: a division's TSH file and, for a rated division, the rating body's two
/// CSV files are downloaded from the page: each file the page offers is, byte for byte, what the
/// API exports.
#[tokio::test]
async fn a_divisions_tsh_file_and_ratings_are_downloaded_from_the_page() {
    const ROOT: &str = "director-secret";
    let srv = start_directed(ROOT).await;
    let mut t =
        pb::tournaments_service_client::TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    let players = ["Ann Archer", "Bo Baker", "Cy Cole", "Di Dunn"]
        .iter()
        .zip([1800, 1700, 0, 1500])
        .map(|(n, rating)| pb::TournamentPlayerSpec {
            bot_account: String::new(),
            name: n.to_string(),
            rating,
            bot: None,
            lifetime_games: None,
        })
        .collect();
    let controls =
        pb::DivisionControls { rating_system: pb::RatingSystem::Naspa2024 as i32, ..Default::default() };
    let request = pb::CreateTournamentRequest {
        name: "Files open".into(),
        slug: "files".into(),
        game: Some(pb::TournamentGameSettings::default()),
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players,
            rounds: vec![pb::RoundSpec { method: pb::PairingMethod::Manual as i32, ..Default::default() }],
            controls: Some(controls),
            result_reports: 0,
        }],
        seed: Some(4),
        allow_same_names: false,
    };
    t.create_tournament(authed(request, ROOT)).await.unwrap();
    round_by_hand(&mut t, ROOT, ("files", 1), &[(1, 2), (3, 4)], &[(420, 388), (377, 402)]).await;
    let tsh = pb::ExportTshRequest { slug: "files".into(), division: "a".into() };
    let tsh = t.export_tsh(authed(tsh, ROOT)).await.unwrap().into_inner().text;
    let ratings = |file: pb::RatingsFile| pb::ExportRatingsRequest {
        slug: "files".into(),
        division: "a".into(),
        file: file as i32,
    };
    let games =
        t.export_ratings(authed(ratings(pb::RatingsFile::Games), ROOT)).await.unwrap().into_inner().text;
    let rated =
        t.export_ratings(authed(ratings(pb::RatingsFile::Players), ROOT)).await.unwrap().into_inner().text;

    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    c.goto(&format!("{}/tournaments/files#token={ROOT}", srv.url)).await.unwrap();
    wait_until("the files", || async { Some(count(&c, "#ratings-players-a").await) }, |&n| n == 1).await;
    // Each file offered is read back as the browser would save it.
    script(
        &c,
        "window.saved = [];
         const blobs = new Map();
         const made = URL.createObjectURL;
         URL.createObjectURL = (blob) => { const url = made(blob); blobs.set(url, blob); return url; };
         HTMLAnchorElement.prototype.click = function () {
           const name = this.download;
           blobs.get(this.href).text().then((text) => window.saved.push([name, text]));
         };
         for (const id of ['tsh-a', 'ratings-games-a', 'ratings-players-a']) document.getElementById(id).click();",
    )
    .await;
    let saved = wait_until(
        "the three files",
        || async {
            serde_json::from_value::<Vec<(String, String)>>(script(&c, "return window.saved").await).ok()
        },
        |saved| saved.len() == 3,
    )
    .await;
    c.close().await.unwrap();
    let mut saved = saved;
    saved.sort();
    let want = [
        ("files-a-ratings-games.csv".to_string(), games),
        ("files-a-ratings-players.csv".to_string(), rated),
        ("files-a.t".to_string(), tsh),
    ];
    assert_eq!(saved, want);
    assert!(want[2].1.starts_with("Ann Archer 1800 2; 420"), "{}", want[2].1);
}

/// Issue 82, item 12: a director sets the broadcast's delay as it is made, changes it and ends it
/// from the tournament's page; a new broadcast after one ended is made beside it.
#[tokio::test]
async fn a_broadcasts_delay_is_set_changed_and_the_broadcast_ended_from_the_page() {
    const ROOT: &str = "director-secret";
    let srv = start_directed(ROOT).await;
    let names = ["Ann Archer", "Bo Baker", "Cy Cole", "Di Dunn"];
    tournament(&srv, ROOT, ("aired", "Aired open"), &names, &[pb::PairingMethod::Swiss], 3).await;
    let mut b =
        pb::broadcasts_service_client::BroadcastsServiceClient::connect(srv.url.clone()).await.unwrap();
    let mut driver = Driver::start().await;
    let c = driver.browser().await;
    c.goto(&format!("{}/tournaments/aired#token={ROOT}", srv.url)).await.unwrap();
    let delay = |minutes: u32| format!("document.getElementById('broadcast-delay').value = '{minutes}';");
    wait_until("the broadcast's delay", || async { Some(count(&c, "#broadcast-delay").await) }, |&n| n == 1)
        .await;
    script(&c, &format!("{} document.getElementById('broadcast-tournament').click();", delay(5))).await;
    wait_text(&c, "#tournament-broadcast", "Aired open — live").await;
    let get = |slug: &str| pb::GetBroadcastRequest { slug: slug.into() };
    let made = b.get_broadcast(get("aired-live")).await.unwrap().into_inner().broadcast.unwrap();
    assert_eq!((made.delay_seconds, made.labels.get("tournament").map(String::as_str)), (300, Some("aired")));
    // Changed: the box shows the delay it has.
    wait_until(
        "the delay shown",
        || async {
            script(&c, "return document.getElementById('broadcast-delay').value")
                .await
                .as_str()
                .map(str::to_string)
        },
        |v| v == "5",
    )
    .await;
    script(&c, &format!("{} document.getElementById('broadcast-delay-change').click();", delay(2))).await;
    let changed = wait_until(
        "the delay changed",
        || async {
            Some(b.clone().get_broadcast(get("aired-live")).await.unwrap().into_inner().broadcast.unwrap())
        },
        |k| k.delay_seconds == 120,
    )
    .await;
    assert_eq!(changed.ended_unix_ms, 0);
    // Ended: the page offers a new one, made beside the first.
    click(&c, "#broadcast-end").await;
    wait_until("ended", || async { Some(count(&c, "#broadcast-tournament").await) }, |&n| n == 1).await;
    let ended = b.get_broadcast(get("aired-live")).await.unwrap().into_inner().broadcast.unwrap();
    assert!(ended.ended_unix_ms > 0, "{ended:?}");
    click(&c, "#broadcast-tournament").await;
    wait_until("a second", || async { Some(count(&c, "#broadcast-end").await) }, |&n| n == 1).await;
    let second = b.get_broadcast(get("aired-live-2")).await.unwrap().into_inner().broadcast.unwrap();
    assert_eq!((second.delay_seconds, second.ended_unix_ms), (900, 0));
    c.close().await.unwrap();
}

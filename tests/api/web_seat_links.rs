//! Seat links in the browser (issue 82, item 11): each player's link to their tournament page,
//! their token in its fragment, shown wherever the page has just been answered a token (a
//! tournament made, a late entry, a token made anew), with a "Copy link" button; and the
//! director's "New token" for a player who lost theirs, the old token refused from then on; and
//! each link as a QR code to scan.
//!
//! Each test drives the pages in headless Chromium at a laptop's screen (1366×768, in English)
//! and a phone's (390×844, in Russian). The clipboard is stubbed in the page to see what the
//! button copies; what the page did is checked through the API with exact values.

use crate::common;

use crate::browser::*;
use common::server::*;
use dawgref::proto::v1 as pb;
use fantoccini::Client;
use pb::tournaments_service_client::TournamentsServiceClient;
use tonic::Code;
use tonic::transport::Channel;

const ROOT: &str = "director-secret";

type Tournaments = TournamentsServiceClient<Channel>;

/// A fresh browser session (a profile of its own: nothing kept) in `lang` at `size`, at `url`.
async fn open_url(driver: &mut Driver, lang: &str, (width, height): (u32, u32), url: &str) -> Client {
    let c = if lang == "en" { driver.browser().await } else { driver.browser_in(lang).await };
    set_viewport(&c, width, height).await;
    c.goto(url).await.unwrap();
    c
}

/// Set the page's boxes and selects by id as typing or choosing would, in one go.
async fn fill(c: &Client, values: &[(&str, &str)]) {
    let js = format!(
        "const missing = [];
         for (const [id, v] of {}) {{
           const el = document.getElementById(id);
           if (!el) {{ missing.push(id); continue; }}
           el.value = v;
           el.dispatchEvent(new Event('input', {{ bubbles: true }}));
           el.dispatchEvent(new Event('change', {{ bubbles: true }}));
         }}
         return missing;",
        serde_json::to_string(values).unwrap()
    );
    assert_eq!(script(c, &js).await, serde_json::json!([]), "boxes to fill");
}

/// Stand in for the clipboard: what the page writes to it is kept in `window.copied`; with
/// `works` false, writing is refused (as a browser refuses a page the clipboard).
async fn stub_clipboard(c: &Client, works: bool) {
    let js = format!(
        "window.copied = window.copied || [];
         const works = {works};
         Object.defineProperty(navigator, 'clipboard', {{ configurable: true, value: {{
           writeText: (text) => works ? (window.copied.push(text), Promise.resolve()) : Promise.reject(new Error('denied')),
         }} }});"
    );
    script(c, &js).await;
}

/// What the page has put on the (stubbed) clipboard, in order.
async fn copied(c: &Client) -> Vec<String> {
    serde_json::from_value(script(c, "return window.copied").await).unwrap()
}

/// The link shown in the copy helper `id`.
async fn link_shown(c: &Client, id: &str) -> String {
    let css = format!("#{id} code.seat-link");
    wait_until(&format!("the link of #{id}"), || text(c, &css), |t| !t.is_empty()).await
}

/// Tournament `slug` as `token` sees it, or the server's refusal.
async fn get_as(t: &mut Tournaments, slug: &str, token: &str) -> Result<pb::Tournament, Code> {
    let request = authed(pb::GetTournamentRequest { slug: slug.into() }, token);
    t.get_tournament(request).await.map(|r| r.into_inner().tournament.unwrap()).map_err(|s| s.code())
}

/// Who `token` is in tournament `slug`: (division, player).
async fn who(t: &mut Tournaments, slug: &str, token: &str) -> (String, u32) {
    let you = get_as(t, slug, token).await.unwrap().you.unwrap();
    (you.division, you.player)
}

/// The log's events of kind `token_reissued`, as (detail, players).
async fn reissued(t: &mut Tournaments, slug: &str) -> Vec<(String, Vec<u32>)> {
    let filter = pb::TournamentLogFilter { kinds: vec!["token_reissued".into()], ..Default::default() };
    let request =
        pb::GetTournamentLogRequest { slug: slug.into(), filter: Some(filter), ..Default::default() };
    let r = t.get_tournament_log(authed(request, ROOT)).await.unwrap().into_inner();
    r.events.into_iter().map(|e| (e.detail, e.players)).collect()
}

/// A tournament made through the API by the root director: division "a" of Ann Archer, Bo
/// Baker, Cy Cole (people) and Robo (the server's weak bot), one Swiss round; the people's
/// tokens in player order.
async fn made(t: &mut Tournaments, slug: &str) -> Vec<String> {
    let person =
        |name: &str| pb::TournamentPlayerSpec { name: name.into(), rating: 1500, ..Default::default() };
    let mut players: Vec<_> = ["Ann Archer", "Bo Baker", "Cy Cole"].into_iter().map(person).collect();
    players.push(pb::TournamentPlayerSpec { bot: Some(pb::BotLevel::Weak as i32), ..person("Robo") });
    let rounds = vec![pb::RoundSpec { method: pb::PairingMethod::Swiss as i32, ..Default::default() }];
    let request = pb::CreateTournamentRequest {
        name: format!("Links {slug}"),
        slug: slug.into(),
        game: Some(pb::TournamentGameSettings::default()),
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players,
            rounds,
            controls: None,
            result_reports: 0,
        }],
        seed: Some(3),
        allow_same_names: false,
    };
    let r = t.create_tournament(authed(request, ROOT)).await.unwrap().into_inner();
    let tokens: Vec<_> = r.player_tokens.iter().map(|x| (x.division.as_str(), x.player)).collect();
    assert_eq!(tokens, [("a", 1), ("a", 2), ("a", 3)]);
    r.player_tokens.into_iter().map(|x| x.token).collect()
}

/// What the tournament page says of who its visitor is, once it says a player.
async fn you_are(c: &Client, lang: &str, name: &str, n: u32) {
    let want = match lang {
        "ru" => format!("Вы — {name}, игрок {n} в группе a."),
        _ => format!("You are {name}, player {n} in division a."),
    };
    wait_until("the player's page", || text(c, "#who"), |t| t.starts_with(&want)).await;
    assert_eq!(text(c, "#standings-a tr.mine td:nth-child(2)").await.unwrap(), name);
}

/// Issue 82, item 11: a tournament made from the Tournaments page shows, beside each person's
/// token (none for a bot), their link; "Copy link" puts exactly that link on the clipboard and
/// says so; where the clipboard refuses, the link is offered selected in a read-only box. The
/// link opened in a fresh browser is that player's page.
#[tokio::test]
async fn a_new_tournaments_players_get_their_links_to_copy() {
    let srv = start_directed(ROOT).await;
    let mut t = TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    let mut driver = Driver::start().await;
    for (lang, size) in SCREENS {
        let slug = format!("links-{lang}");
        let c = open_url(&mut driver, lang, size, &format!("{}/tournaments", srv.url)).await;
        click(&c, "#new-tournament summary").await;
        fill(
            &c,
            &[
                ("desk-token", ROOT),
                ("new-name", &format!("Links {lang}")),
                ("new-slug", &slug),
                ("new-rounds-0", "1"),
                ("new-player-0-1-name", "Ann Archer"),
                ("new-player-0-2-name", "Bo Baker"),
                ("new-player-0-3-name", "Robo"),
                ("new-player-0-3-bot", "BOT_LEVEL_WEAK"),
            ],
        )
        .await;
        click(&c, "#new-create").await;
        wait_until("the tokens", || async { Some(count(&c, "#new-tokens tbody tr").await) }, |&n| n == 2)
            .await;
        stub_clipboard(&c, true).await;
        let mut links = Vec::new();
        for n in [1, 2] {
            let token =
                text(&c, &format!("#new-tokens tr[data-player='a/{n}'] td:nth-child(4) code")).await.unwrap();
            let link = link_shown(&c, &format!("new-link-a-{n}")).await;
            assert_eq!(link, format!("{}/tournaments/{slug}#token={token}", srv.url), "{lang}: player {n}");
            // The token is the player's.
            assert_eq!(who(&mut t, &slug, &token).await, ("a".to_string(), n));
            links.push(link);
        }
        assert_eq!(
            text(&c, "#new-link-a-2-copy").await.unwrap(),
            say(lang, "Copy link", "Копировать ссылку")
        );
        click(&c, "#new-link-a-2-copy").await;
        wait_text(&c, "#new-link-a-2-copied", say(lang, "Copied", "Скопировано")).await;
        assert_eq!(copied(&c).await, [links[1].clone()], "{lang}: exactly Bo's link copied");
        assert_eq!(text(&c, "#new-link-a-1-copied").await.unwrap(), "", "{lang}: nothing said of Ann's");
        // The clipboard refused: Ann's link in a box, selected, to copy by hand.
        stub_clipboard(&c, false).await;
        click(&c, "#new-link-a-1-copy").await;
        wait_text(
            &c,
            "#new-link-a-1-copied",
            say(lang, "Copy it from the box: it is selected.", "Скопируйте её из поля: она выделена."),
        )
        .await;
        let boxed = script(
            &c,
            "const b = document.getElementById('new-link-a-1-box');
             return [b.value, b.readOnly, b.selectionStart, b.selectionEnd, document.activeElement === b];",
        )
        .await;
        assert_eq!(boxed, serde_json::json!([links[0], true, 0, links[0].len(), true]), "{lang}");
        assert_eq!(copied(&c).await, [links[1].clone()], "{lang}: nothing more copied");
        screenshot(&c, &format!("seat-links-new-{lang}")).await;
        c.close().await.unwrap();
        // Bo's link, opened in a fresh browser, is Bo's page.
        let bo = open_url(&mut driver, lang, size, &links[1]).await;
        you_are(&bo, lang, "Bo Baker", 2).await;
        bo.close().await.unwrap();
    }
}

/// Issue 82, item 11: the director makes a new token for a player who lost theirs, from the
/// tournament's page: asked first, in words that say the old token stops working at once; a
/// double click makes one; the new link is shown with its copy button and opens the player's
/// page; the old token is refused by the server; the log says it in the page's language.
#[tokio::test]
async fn the_director_makes_a_lost_token_anew_from_the_page() {
    let srv = start_directed(ROOT).await;
    let mut t = TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    let mut driver = Driver::start().await;
    for (lang, size) in SCREENS {
        let slug = format!("anew-{lang}");
        let old = made(&mut t, &slug).await;
        let page = format!("{}/tournaments/{slug}#token={ROOT}", srv.url);
        let c = open_url(&mut driver, lang, size, &page).await;
        wait_text(&c, "#reissue-a-1", say(lang, "New token", "Новый токен")).await;
        click(&c, "#reissue-a-1").await;
        let asked = say(
            lang,
            "A new token for Ann Archer? Their old token stops working at once: their page and their game in play refuse it. Their new link is shown here, to give them.",
            "Выдать игроку Ann Archer новый токен? Старый токен сразу перестанет действовать: его не примут ни страница игрока, ни его текущая партия. Новая ссылка для игрока появится здесь.",
        );
        wait_text(&c, "#reissue-ask-a-1", asked).await;
        // Asked, nothing is done yet.
        assert_eq!(who(&mut t, &slug, &old[0]).await, ("a".to_string(), 1));
        screenshot(&c, &format!("seat-links-ask-{lang}")).await;
        stub_clipboard(&c, true).await;
        script(&c, "const go = document.getElementById('reissue-go-a-1'); go.click(); go.click();").await;
        wait_text(
            &c,
            "#tournament-result",
            say(
                lang,
                "Ann Archer has a new token: the old one no longer works.",
                "У игрока Ann Archer новый токен: старый больше не действует.",
            ),
        )
        .await;
        let link = link_shown(&c, "seat-link-a-1").await;
        let prefix = format!("{}/tournaments/{slug}#token=", srv.url);
        let token = link.strip_prefix(&prefix).unwrap_or_else(|| panic!("{lang}: {link}")).to_string();
        assert!(token.len() == 32 && token != old[0], "{lang}: a new token: {token}");
        assert_eq!(
            text(&c, "#seat-item-a-1 > span").await.unwrap(),
            say(lang, "Ann Archer's link, to give them:", "Ссылка для игрока Ann Archer:")
        );
        click(&c, "#seat-link-a-1-copy").await;
        wait_text(&c, "#seat-link-a-1-copied", say(lang, "Copied", "Скопировано")).await;
        assert_eq!(copied(&c).await, std::slice::from_ref(&link));
        // The server: the new token is Ann's, the old one refused; the others' stand.
        assert_eq!(who(&mut t, &slug, &token).await, ("a".to_string(), 1));
        assert_eq!(get_as(&mut t, &slug, &old[0]).await.map(|_| ()), Err(Code::Unauthenticated));
        assert_eq!(who(&mut t, &slug, &old[1]).await, ("a".to_string(), 2));
        // One reissue for the double click.
        assert_eq!(reissued(&mut t, &slug).await, [("Ann Archer's token made anew".to_string(), vec![1])]);
        // The log, in words, its kind offered among the others.
        assert_eq!(
            script(
                &c,
                "return document.querySelector('#log-kind option[value=\"token_reissued\"]').textContent"
            )
            .await,
            serde_json::json!(say(lang, "token made anew", "токен выдан заново"))
        );
        fill(&c, &[("log-kind", "token_reissued")]).await;
        click(&c, "#log-show").await;
        wait_until("the log's one event", || async { Some(count(&c, "#log-table tr").await) }, |&n| n == 1)
            .await;
        assert_eq!(
            text(&c, "#log-table tr td.kind").await.unwrap(),
            say(lang, "token made anew", "токен выдан заново")
        );
        assert_eq!(
            text(&c, "#log-table tr td.detail").await.unwrap(),
            say(lang, "Ann Archer's token made anew", "Ann Archer: токен выдан заново")
        );
        screenshot(&c, &format!("seat-links-anew-{lang}")).await;
        // Hidden once given.
        click(&c, "#seat-hide-a-1").await;
        wait_until("the link hidden", || async { Some(count(&c, "#seat-links-a").await) }, |&n| n == 0).await;
        c.close().await.unwrap();
        // The new link opens Ann's page in a fresh browser; the old one is refused there.
        let ann = open_url(&mut driver, lang, size, &link).await;
        you_are(&ann, lang, "Ann Archer", 1).await;
        ann.close().await.unwrap();
        let lost = open_url(&mut driver, lang, size, &format!("{prefix}{}", old[0])).await;
        wait_until(
            "the old token refused",
            || text(&lost, "#tournament-result"),
            |t| t.starts_with("UNAUTHENTICATED: "),
        )
        .await;
        assert_eq!(count(&lost, "#standings-a tr.mine").await, 0);
        lost.close().await.unwrap();
    }
}

/// The QR code shown in the copy helper `id`, as the browser drew it: the image drawn onto a
/// canvas, read by an independent decoder (rqrr) to the text it holds.
async fn qr_read(c: &Client, id: &str) -> String {
    const SIDE: usize = 512;
    let js = format!(
        "const img = document.querySelector('#{id} .qr-code img');
         if (!img || !img.complete || img.naturalWidth === 0) return null;
         const canvas = document.createElement('canvas');
         canvas.width = {SIDE}; canvas.height = {SIDE};
         const g = canvas.getContext('2d');
         g.fillStyle = '#fff'; g.fillRect(0, 0, {SIDE}, {SIDE});
         g.drawImage(img, 0, 0, {SIDE}, {SIDE});
         const px = g.getImageData(0, 0, {SIDE}, {SIDE}).data;
         let dark = '';
         for (let i = 0; i < px.length; i += 4) dark += px[i] < 128 ? '1' : '0';
         return dark;"
    );
    let dark = wait_until(
        &format!("the QR code of #{id}"),
        || async { script(c, &js).await.as_str().map(str::to_owned) },
        |_| true,
    )
    .await
    .into_bytes();
    let mut image = rqrr::PreparedImage::prepare_from_greyscale(SIDE, SIDE, |x, y| {
        if dark[y * SIDE + x] == b'1' { 0 } else { 255 }
    });
    let grids = image.detect_grids();
    assert_eq!(grids.len(), 1, "one QR code on the screen");
    grids[0].decode().expect("the QR code reads").1
}

/// Issue 82, item 11: beside a seat link, "QR code" shows the link as a QR code a phone reads
/// (decoded here from what the browser drew) to exactly the link; it stays shown when the page is
/// drawn again for another event, and hides with the same button. The token never stands in a
/// URL the page asked for (it travels in a POST's body).
#[tokio::test]
async fn a_seat_link_is_shown_as_a_qr_code_to_scan() {
    let srv = start_directed(ROOT).await;
    let mut t = TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    let mut driver = Driver::start().await;
    for (lang, size) in SCREENS {
        let slug = format!("qr-{lang}");
        made(&mut t, &slug).await;
        let page = format!("{}/tournaments/{slug}#token={ROOT}", srv.url);
        let c = open_url(&mut driver, lang, size, &page).await;
        wait_text(&c, "#reissue-a-1", say(lang, "New token", "Новый токен")).await;
        click(&c, "#reissue-a-1").await;
        click(&c, "#reissue-go-a-1").await;
        let link = link_shown(&c, "seat-link-a-1").await;
        let token = link.rsplit_once("#token=").unwrap().1.to_string();
        assert_eq!(who(&mut t, &slug, &token).await, ("a".to_string(), 1));
        wait_text(&c, "#seat-link-a-1-qr", say(lang, "QR code", "QR-код")).await;
        click(&c, "#seat-link-a-1-qr").await;
        assert_eq!(qr_read(&c, "seat-link-a-1").await, link, "{lang}");
        assert_eq!(
            text(&c, "#seat-link-a-1-qr").await.unwrap(),
            say(lang, "Hide the QR code", "Скрыть QR-код")
        );
        screenshot(&c, &format!("seat-links-qr-{lang}")).await;
        // Another event (a late entry) draws the page again: the code stays.
        script(&c, "document.getElementById('seat-link-a-1').dataset.before = 'yes'").await;
        let late = pb::TournamentPlayerSpec { name: "Di Dunn".into(), rating: 1500, ..Default::default() };
        let request = pb::AddPlayerRequest {
            slug: slug.clone(),
            division: "a".into(),
            player: Some(late),
            ..Default::default()
        };
        t.add_player(authed(request, ROOT)).await.unwrap();
        let listed = "return [...document.querySelectorAll('#standings-a td')].some((td) => td.textContent === 'Di Dunn')";
        wait_until("Di Dunn in the standings", || async { script(&c, listed).await.as_bool() }, |&v| v).await;
        assert_eq!(
            script(&c, "return document.getElementById('seat-link-a-1').dataset.before ?? null").await,
            serde_json::Value::Null
        );
        assert_eq!(qr_read(&c, "seat-link-a-1").await, link, "{lang}: after a redraw");
        // No URL the page asked for holds the token.
        let asked = script(&c, "return performance.getEntriesByType('resource').map((e) => e.name)").await;
        let asked: Vec<String> = serde_json::from_value(asked).unwrap();
        assert!(asked.iter().any(|u| u.ends_with("/web/qr.svg")), "{asked:?}");
        assert!(asked.iter().all(|u| !u.contains(&token)), "{asked:?}");
        click(&c, "#seat-link-a-1-qr").await;
        wait_until(
            "the QR code hidden",
            || async { Some(count(&c, "#seat-link-a-1 .qr-code").await) },
            |&n| n == 0,
        )
        .await;
        assert_eq!(text(&c, "#seat-link-a-1-qr").await.unwrap(), say(lang, "QR code", "QR-код"));
        c.close().await.unwrap();
    }
}

/// Issue 82, item 11: a bot has no "New token" (only the people have one), and a refusal from
/// the server is said in its words beside the confirmation: here the director's key was revoked
/// after the page opened. Nothing changes: the player's token stands, nothing is logged.
#[tokio::test]
async fn a_bot_has_no_new_token_and_a_refusal_is_said() {
    let srv = start_directed(ROOT).await;
    let mut t = TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    let mut d = srv.directors().await;
    let mut driver = Driver::start().await;
    for (lang, size) in SCREENS {
        let slug = format!("bots-{lang}");
        let old = made(&mut t, &slug).await;
        let name = format!("td-{lang}");
        let labels = [("tournament".to_string(), slug.clone())].into_iter().collect();
        let request = pb::CreateDirectorKeyRequest { name: name.clone(), labels };
        let key = d.create_director_key(authed(request, ROOT)).await.unwrap().into_inner().token;
        let page = format!("{}/tournaments/{slug}#token={key}", srv.url);
        let c = open_url(&mut driver, lang, size, &page).await;
        wait_text(&c, "#reissue-a-3", say(lang, "New token", "Новый токен")).await;
        // People each have one; Robo, the bot, none (though directed: he can be withdrawn).
        let offered = script(
            &c,
            "return [...document.querySelectorAll('[data-reissue]')].map((b) => b.dataset.reissue)",
        )
        .await;
        assert_eq!(offered, serde_json::json!(["1", "2", "3"]), "{lang}");
        assert_eq!(count(&c, "#standings-a tr[data-player='4'] [data-withdraw='4']").await, 1, "{lang}");
        // The server refuses a bot a token, as the page would have it said.
        let bot = pb::ReissuePlayerTokenRequest {
            slug: slug.clone(),
            division: "a".into(),
            player: 4,
            ..Default::default()
        };
        assert_eq!(
            refused(t.reissue_player_token(authed(bot, ROOT)).await),
            (Code::FailedPrecondition, "player 4 (Robo) is the server's weak bot: a bot has no token".into())
        );
        // The key revoked meanwhile: Bo's new token is refused, in the server's words.
        click(&c, "#reissue-a-2").await;
        wait_until("the confirmation", || async { Some(count(&c, "#reissue-go-a-2").await) }, |&n| n == 1)
            .await;
        let revoke = pb::RevokeDirectorKeyRequest { name: name.clone() };
        d.revoke_director_key(authed(revoke, ROOT)).await.unwrap();
        click(&c, "#reissue-go-a-2").await;
        let words = format!("PERMISSION_DENIED: director key \"{name}\" was revoked");
        wait_text(&c, "#reissue-refusal-a-2", &words).await;
        assert_eq!(text(&c, "#tournament-result").await.unwrap(), words);
        // No link is shown, and nothing changed.
        assert_eq!(count(&c, "#seat-link-a-2").await, 0);
        assert_eq!(who(&mut t, &slug, &old[1]).await, ("a".to_string(), 2));
        assert_eq!(reissued(&mut t, &slug).await, []);
        screenshot(&c, &format!("seat-links-refused-{lang}")).await;
        c.close().await.unwrap();
    }
}

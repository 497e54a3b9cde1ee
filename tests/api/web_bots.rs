//! The bots' page in the browser (bots.js): the bot accounts with whether each is online, the
//! leaderboard of rated games, and a challenge sent from the page: accepted, the page opens the
//! game in the challenger's seat (its token kept as any seat's); declined, the page says why.
//!
//! Headless Chromium at a laptop's screen (1366×768, English) and a phone's (390×844, Russian);
//! the bots are the test's own streams, answering as a bot author's would. Screenshots go to
//! `target/screenshots/bots-*.png`.

use crate::common;

use crate::browser::*;
use common::server::*;
use dawgref::proto::v1 as pb;
use fantoccini::Locator;
use pb::watch_bot_events_response::Kind;

const ROOT: &str = "director-secret";

type Bots = pb::bots_service_client::BotsServiceClient<tonic::transport::Channel>;

async fn register(b: &mut Bots, name: &str) -> String {
    let accepts = pb::BotAccepts { casual: true, rated: true, people: true, ..Default::default() };
    let request =
        pb::RegisterBotRequest { name: name.into(), owner: "the lab".into(), accepts: Some(accepts) };
    b.register_bot(authed(request, ROOT)).await.unwrap().into_inner().token
}

/// A bot online on its stream, answering every challenge: accepted, or declined as too fast.
async fn answering(srv: &TestServer, token: String, accept: bool) {
    let mut b = srv.bots().await;
    let mut events =
        b.watch_bot_events(authed(pb::WatchBotEventsRequest::default(), &token)).await.unwrap().into_inner();
    tokio::spawn(async move {
        while let Ok(Some(event)) = events.message().await {
            let Some(Kind::Challenged(c)) = event.kind else { continue };
            if accept {
                let _ = b.accept_challenge(authed(pb::AcceptChallengeRequest { id: c.id }, &token)).await;
            } else {
                let request = pb::DeclineChallengeRequest {
                    id: c.id,
                    reason: pb::DeclineReason::TooFast as i32,
                    text: "ten minutes or more".into(),
                };
                let _ = b.decline_challenge(authed(request, &token)).await;
            }
        }
    });
}

#[tokio::test]
async fn a_person_challenges_a_bot_from_the_page_and_plays_it_or_hears_why_not() {
    let srv = start_directed(ROOT).await;
    let mut b = srv.bots().await;
    let gamma = register(&mut b, "gamma").await;
    let picky = register(&mut b, "picky").await;
    let _offline = register(&mut b, "asleep").await;
    answering(&srv, gamma.clone(), true).await;
    answering(&srv, picky, false).await;
    // A rated game already played: Zed resigned to gamma.
    let rated = pb::CreateChallengeRequest {
        bot: "gamma".into(),
        name: "Zed".into(),
        rated: true,
        game: Some(pb::TournamentGameSettings {
            clock: Some(pb::ClockSpec { initial_ms: 300_000, ..Default::default() }),
            ..Default::default()
        }),
        ..Default::default()
    };
    let sent = b.create_challenge(authed(rated, "zed's own secret")).await.unwrap().into_inner();
    let game = wait_until(
        "gamma's acceptance",
        || {
            let (mut b, id) = (b.clone(), sent.challenge.as_ref().unwrap().id.clone());
            async move {
                Some(
                    b.get_challenge(pb::GetChallengeRequest { id })
                        .await
                        .unwrap()
                        .into_inner()
                        .challenge
                        .unwrap()
                        .game_id,
                )
            }
        },
        |g: &String| !g.is_empty(),
    )
    .await;
    let resign = pb::SubmitTurnRequest {
        game_id: game,
        action: Some(pb::submit_turn_request::Action::Resign(pb::Resign {})),
        ..Default::default()
    };
    srv.games().await.submit_turn(authed(resign, &sent.token)).await.unwrap();
    wait_until(
        "the ratings",
        || {
            let mut b = b.clone();
            async move {
                Some(
                    b.list_ratings(pb::ListRatingsRequest::default())
                        .await
                        .unwrap()
                        .into_inner()
                        .ratings
                        .len(),
                )
            }
        },
        |&n| n == 2,
    )
    .await;

    let mut driver = Driver::start().await;
    for (lang, size) in SCREENS {
        let c = open(&mut driver, &srv.url, lang, size, "/bots").await;
        wait_text(&c, "#bot-gamma .bot-state", say(lang, "online", "в сети")).await;
        assert_eq!(text(&c, "#bot-asleep .bot-state").await.unwrap(), say(lang, "offline", "не в сети"));
        assert_eq!(count(&c, "#challenge-asleep").await, 0, "{lang}: no challenge to a bot offline");
        // The leaderboard: gamma (a bot, labelled) above Zed, each with its rating.
        let names = script(&c, "return [...document.querySelectorAll('#leaderboard-table tbody tr')].map((r) => r.querySelector('.rated-name').textContent + (r.querySelector('.bot-label') ? ' (bot)' : ''))").await;
        assert_eq!(names, serde_json::json!(["gamma (bot)", "Zed"]), "{lang}");
        assert_eq!(text(&c, "#leaderboard-table tbody tr .rated-value").await.unwrap(), "1608 ± 290");
        let wide = script(&c, "return document.documentElement.scrollWidth <= window.innerWidth").await;
        assert_eq!(wide, true, "{lang}: the page fits its screen's width");
        screenshot(&c, &format!("bots-{lang}")).await;

        // Declined: the page says why.
        click(&c, "#challenge-picky").await;
        c.find(Locator::Css("#challenger-name")).await.unwrap().send_keys("Ann").await.unwrap();
        click(&c, "#send-challenge").await;
        let declined = say(
            lang,
            "picky declined: too fast. “ten minutes or more”",
            "picky отказался: слишком быстро. “ten minutes or more”",
        );
        wait_text(&c, "#challenge-status", declined).await;

        // Accepted: the game opens in Ann's seat (her name remembered from the last form).
        click(&c, "#challenge-gamma").await;
        let remembered = script(&c, "return document.getElementById('challenger-name').value").await;
        assert_eq!(remembered, "Ann", "{lang}");
        click(&c, "#send-challenge").await;
        let path = wait_until(
            "the game's page",
            || async { c.current_url().await.ok().map(|u| u.path().to_string()) },
            |p: &String| p.starts_with("/games/"),
        )
        .await;
        let game_id = path.trim_start_matches("/games/").to_string();
        let kept = script(&c, &format!("return localStorage.getItem('dawgref:token:{game_id}')")).await;
        let token = kept.as_str().expect("the seat's token kept").to_string();
        let mut g = srv.games().await;
        let view = view_of(&mut g, authed(pb::GetGameRequest { game_id: game_id.clone() }, &token)).await;
        let mine = view.my_seat.expect("the token is a seat's") as usize;
        assert_eq!(
            (view.seats[mine].name.as_str(), view.seats[1 - mine].name.as_str()),
            ("Ann", "gamma"),
            "{lang}"
        );
        c.close().await.unwrap();
    }
}

/// A tournament's player as the page's rows read: the name, and "(bot)" when a bot's label follows.
const NAMES_WITH_LABELS: &str = "return [...document.querySelectorAll(arguments[0])].map((e) => e.firstChild.textContent + (e.querySelector('.bot-label') ? ' (bot)' : '')).sort()";

#[tokio::test]
async fn every_bot_player_wears_its_label_on_the_tournament_page_the_cards_the_hall_and_its_game() {
    let srv = start_directed(ROOT).await;
    let mut b = srv.bots().await;
    register(&mut b, "alpha").await;
    let player = |name: &str, bot: Option<pb::BotLevel>, account: &str| pb::TournamentPlayerSpec {
        name: name.into(),
        bot: bot.map(|level| level as i32),
        bot_account: account.into(),
        ..Default::default()
    };
    let players = vec![
        player("", None, "alpha"),
        player("Sparky", Some(pb::BotLevel::Weak), ""),
        player("Ann", None, ""),
        player("Bo", None, ""),
    ];
    let request = pb::CreateTournamentRequest {
        name: "The bot cup".into(),
        slug: "botcup".into(),
        game: Some(pb::TournamentGameSettings::default()),
        divisions: vec![pb::DivisionSpec {
            name: "a".into(),
            players,
            rounds: vec![
                pb::RoundSpec { method: pb::PairingMethod::RoundRobin as i32, ..Default::default() };
                3
            ],
            ..Default::default()
        }],
        seed: Some(5),
        ..Default::default()
    };
    let mut t = srv.tournaments().await;
    t.create_tournament(authed(request, ROOT)).await.unwrap();
    let pair =
        pb::PairRoundRequest { slug: "botcup".into(), division: "a".into(), round: 1, ..Default::default() };
    t.pair_round(authed(pair, ROOT)).await.unwrap();
    let start =
        pb::StartRoundRequest { slug: "botcup".into(), division: "a".into(), round: 1, ..Default::default() };
    let round = t.start_round(authed(start, ROOT)).await.unwrap().into_inner().round.unwrap();
    let alphas = round.pairings.iter().find(|p| p.first == 1 || p.second == 1).unwrap();
    let bots_in_alphas = [alphas.first, alphas.second].iter().filter(|&&n| n <= 2).count();

    let expected = serde_json::json!(["Ann", "Bo", "Sparky (bot)", "alpha (bot)"]);
    let mut driver = Driver::start().await;
    for (lang, size) in SCREENS {
        let c = open(&mut driver, &srv.url, lang, size, "/tournaments/botcup").await;
        wait_until("the standings", || async { Some(count(&c, "#standings-a tbody tr").await) }, |&n| n == 4)
            .await;
        let names =
            script(&c, &NAMES_WITH_LABELS.replace("arguments[0]", "'#standings-a tbody td:nth-child(2)'"))
                .await;
        assert_eq!(names, expected, "{lang}: the standings");
        assert_eq!(count(&c, ".pairings .bot-label").await, 2, "{lang}: round 1's pairings, a label a bot");
        let wide = script(&c, "return document.documentElement.scrollWidth <= window.innerWidth").await;
        assert_eq!(wide, true, "{lang}: the page fits its screen's width");

        c.goto(&format!("{}/tournaments/botcup/print?what=cards", srv.url)).await.unwrap();
        wait_until("the cards", || async { Some(count(&c, ".print-card").await) }, |&n| n == 4).await;
        let names = script(&c, &NAMES_WITH_LABELS.replace("arguments[0]", "'.print-card .print-name'")).await;
        assert_eq!(names, expected, "{lang}: the scorecards");

        c.goto(&format!("{}/tournaments/botcup/hall?seconds=2", srv.url)).await.unwrap();
        wait_until(
            "a bot's label in the hall",
            || async { Some(count(&c, "#hall-list .bot-label").await) },
            |&n| n >= 1,
        )
        .await;

        c.goto(&format!("{}/games/{}", srv.url, alphas.game_id)).await.unwrap();
        wait_until("alpha's seat", || async { Some(count(&c, ".seat .name").await) }, |&n| n == 2).await;
        assert_eq!(count(&c, ".seat .name .bot-label").await, bots_in_alphas, "{lang}: alpha's game");
        screenshot(&c, &format!("bots-arena-game-{lang}")).await;
    }
}

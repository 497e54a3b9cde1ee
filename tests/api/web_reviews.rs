//! The reviews panel of a tournament's page in the browser: its director asks for a round's
//! reviews and sees the bar fill and each game linked to its review; a division set to review its
//! games as they end; nobody but a director sees the panel. At a laptop's screen in English and
//! a phone's in Russian; what the page did is checked through the API.

use crate::common;

use crate::browser::*;
use common::server::*;
use dawgref::proto::v1 as pb;
use fantoccini::Client;

const ROOT: &str = "director-secret";

fn bot(name: &str, level: pb::BotLevel) -> pb::TournamentPlayerSpec {
    pb::TournamentPlayerSpec {
        bot_account: String::new(),
        name: name.into(),
        rating: 1000,
        bot: Some(level as i32),
        lifetime_games: None,
    }
}

/// Tournament `slug` of four bots whose round 1 is played out.
async fn played(srv: &TestServer, slug: &str) {
    let mut t = srv.tournaments().await;
    let request = pb::CreateTournamentRequest {
        allow_same_names: false,
        name: "Reviewed".into(),
        slug: slug.into(),
        game: Some(pb::TournamentGameSettings { bot_delay_ms: Some(0), ..Default::default() }),
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players: vec![
                bot("Greedy One", pb::BotLevel::Greedy),
                bot("Greedy Two", pb::BotLevel::Greedy),
                bot("Weak Three", pb::BotLevel::Weak),
                bot("Weak Four", pb::BotLevel::Weak),
            ],
            rounds: vec![
                pb::RoundSpec { method: pb::PairingMethod::RoundRobin as i32, ..Default::default() };
                2
            ],
            controls: None,
            result_reports: 0,
        }],
        seed: Some(11),
    };
    t.create_tournament(authed(request, ROOT)).await.unwrap();
    let pair =
        pb::PairRoundRequest { slug: slug.into(), division: "a".into(), round: 1, ..Default::default() };
    t.pair_round(authed(pair, ROOT)).await.unwrap();
    let start =
        pb::StartRoundRequest { slug: slug.into(), division: "a".into(), round: 1, ..Default::default() };
    t.start_round(authed(start, ROOT)).await.unwrap();
    let started = std::time::Instant::now();
    loop {
        let got =
            t.get_tournament(pb::GetTournamentRequest { slug: slug.into() }).await.unwrap().into_inner();
        if got.tournament.unwrap().divisions[0].rounds[0].pairings.iter().all(|p| p.done) {
            return;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(120), "round 1 never ended");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

async fn fill(c: &Client, values: &[(&str, &str)]) {
    let js = format!(
        "for (const [id, v] of {}) {{
           const el = document.getElementById(id);
           el.value = v;
           el.dispatchEvent(new Event('input', {{ bubbles: true }}));
           el.dispatchEvent(new Event('change', {{ bubbles: true }}));
         }}
         return 1;",
        serde_json::to_string(values).unwrap()
    );
    script(c, &js).await;
}

async fn hidden(c: &Client, id: &str) -> bool {
    let js = format!("const el = document.getElementById({id:?}); return el ? el.hidden : null;");
    script(c, &js).await.as_bool().unwrap_or_else(|| panic!("no #{id}"))
}

#[tokio::test]
async fn a_director_asks_for_a_rounds_reviews_and_watches_them_end_in_both_languages() {
    let srv = start_directed(ROOT).await;
    let mut driver = Driver::start().await;
    for (lang, size) in SCREENS {
        let slug = format!("rv-{lang}");
        played(&srv, &slug).await;
        // A spectator sees no reviews.
        let c = open(&mut driver, &srv.url, lang, size, &format!("/tournaments/{slug}")).await;
        wait_until("the page drawn", || text(&c, "#round-a-1"), |_| true).await;
        assert!(hidden(&c, "reviews").await, "not a spectator's");
        c.close().await.unwrap();

        let c = open(&mut driver, &srv.url, lang, size, &format!("/tournaments/{slug}#token={ROOT}")).await;
        wait_until("the panel shown", || async { Some(hidden(&c, "reviews").await) }, |h| !h).await;
        wait_text(
            &c,
            "#reviews-progress",
            say(lang, "No game asked to be reviewed yet.", "Ни одна партия пока не отправлена на разбор."),
        )
        .await;
        fill(&c, &[("reviews-round", "1"), ("reviews-ms", "50")]).await;
        click(&c, "#reviews-ask").await;
        let asked = say(
            lang,
            "2 games asked to be reviewed at 50 ms a turn",
            "На разбор отправлено: 2 партии, 50 мс на ход",
        );
        wait_text(&c, "#reviews-status", asked).await;
        let all = say(lang, "2 of 2 games reviewed", "Разобрано 2 из 2 партии");
        wait_until("every game reviewed", || text(&c, "#reviews-progress"), |t| t == all).await;
        assert_eq!(
            script(&c, "return document.getElementById('reviews-bar').value").await,
            serde_json::json!(2)
        );
        let links = script(&c, "return [...document.querySelectorAll('#reviews-jobs tbody a')].map((a) => a.getAttribute('href'))").await;
        let mut t = srv.tournaments().await;
        let got =
            t.get_tournament(pb::GetTournamentRequest { slug: slug.clone() }).await.unwrap().into_inner();
        let mut expected: Vec<String> = got.tournament.unwrap().divisions[0].rounds[0]
            .pairings
            .iter()
            .map(|p| format!("/games/{}/review?ms=50", p.game_id))
            .collect();
        expected.sort();
        let mut shown: Vec<String> = serde_json::from_value(links).unwrap();
        shown.sort();
        assert_eq!(shown, expected);
        screenshot(&c, &format!("reviews-{lang}")).await;

        // The division reviews its games as they end, from the page.
        fill(&c, &[("reviews-division", "a"), ("reviews-ms", "100")]).await;
        click(&c, "#reviews-as-they-end").await;
        wait_text(
            &c,
            "#reviews-status",
            say(
                lang,
                "Each game of a is reviewed as it ends",
                "Каждая партия группы a разбирается по окончании",
            ),
        )
        .await;
        let set = say(
            lang,
            "a: each game reviewed as it ends, at 100 ms a turn",
            "a: каждая партия разбирается по окончании, 100 мс на ход",
        );
        wait_text(&c, "#reviews-setting", set).await;
        let got =
            t.get_tournament(pb::GetTournamentRequest { slug: slug.clone() }).await.unwrap().into_inner();
        assert_eq!(got.tournament.unwrap().divisions[0].review_ms_per_turn, 100);
        c.close().await.unwrap();
    }
}

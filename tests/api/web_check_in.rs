//! Check-in in the browser (checkin.js): a player checks in from their own page ("I'm here") and
//! takes it back; a spectator sees only how many are here; the director sees who is not, checks a
//! player in by the box beside their name, and withdraws the absent in one step, after which round
//! 1 pairs those who came and the check-in is gone from the page.
//!
//! Headless Chromium at a laptop's screen (1366×768, English) and a phone's (390×844, Russian);
//! what the page did is checked through the API, exactly. Screenshots go to
//! `target/screenshots/check-in-*.png`.

use crate::common;

use crate::browser::*;
use common::server::*;
use dawgref::proto::v1 as pb;

const ROOT: &str = "director-secret";

/// The players of division a who have checked in, and those withdrawn, by number.
async fn here_and_withdrawn(
    t: &mut pb::tournaments_service_client::TournamentsServiceClient<tonic::transport::Channel>,
    slug: &str,
) -> (Vec<u32>, Vec<u32>) {
    let request = pb::GetTournamentRequest { slug: slug.into() };
    let got = t.get_tournament(tonic::Request::new(request)).await.unwrap().into_inner();
    let division = got.tournament.unwrap().divisions.remove(0);
    let numbers = |f: fn(&pb::TournamentPlayer) -> bool| {
        division.players.iter().filter(|p| f(p)).map(|p| p.number).collect()
    };
    (numbers(|p| p.checked_in), numbers(|p| p.withdrawn))
}

#[tokio::test]
async fn players_check_in_from_their_page_and_the_director_withdraws_the_absent() {
    let srv = start_directed(ROOT).await;
    let mut driver = Driver::start().await;
    for (lang, size) in SCREENS {
        let slug = format!("check-in-{lang}");
        let names = ["Ann", "Bo", "Cy", "Di", "Ed"];
        let (mut t, tokens) =
            tournament(&srv, ROOT, (&slug, &slug), &names, &[pb::PairingMethod::Swiss; 2], 3).await;
        // Ann checks in from her page, takes it back, and checks in again.
        let ann = open(
            &mut driver,
            &srv.url,
            lang,
            size,
            &format!("/tournaments/{slug}#token={}", tokens[0].token),
        )
        .await;
        wait_until("Ann's check-in", || async { text(&ann, "#my-check-in").await }, |s| !s.is_empty()).await;
        assert_eq!(
            text(&ann, "#my-check-in").await.unwrap(),
            say(lang, "Check in when you arrive.", "Отметьтесь, когда придёте.")
        );
        click(&ann, "#check-in-me").await;
        wait_text(&ann, "#my-check-in", say(lang, "You are checked in.", "Вы отметились: вы на месте."))
            .await;
        assert_eq!(here_and_withdrawn(&mut t, &slug).await, (vec![1], vec![]));
        click(&ann, "#check-in-me").await;
        wait_text(&ann, "#my-check-in", say(lang, "Check in when you arrive.", "Отметьтесь, когда придёте."))
            .await;
        assert_eq!(here_and_withdrawn(&mut t, &slug).await, (vec![], vec![]));
        click(&ann, "#check-in-me").await;
        wait_text(&ann, "#my-check-in", say(lang, "You are checked in.", "Вы отметились: вы на месте."))
            .await;
        assert_eq!(count(&ann, "#withdraw-absent-a").await, 0, "{lang}: no director's button for a player");
        screenshot(&ann, &format!("check-in-player-{lang}")).await;

        // A spectator sees how many are here, nothing more.
        let anyone = open(&mut driver, &srv.url, lang, size, &format!("/tournaments/{slug}")).await;
        let counted = say(lang, "1 of 5 checked in.", "На месте: 1 из 5.");
        wait_text(&anyone, "#check-in-count-a", counted).await;
        assert_eq!(count(&anyone, "#check-in-me, [data-check-in], #withdraw-absent-a").await, 0, "{lang}");

        // The director: who is not here; Cy checked in by the box; the absent withdrawn.
        let desk =
            open(&mut driver, &srv.url, lang, size, &format!("/tournaments/{slug}#token={ROOT}")).await;
        wait_text(&desk, "#check-in-count-a", counted).await;
        let absent = say(lang, "Not here yet: Bo, Cy, Di, Ed", "Ещё нет: Bo, Cy, Di, Ed");
        assert_eq!(text(&desk, "#absent-a").await.unwrap(), absent);
        click(&desk, "[data-check-in='3']").await;
        wait_text(&desk, "#check-in-count-a", say(lang, "2 of 5 checked in.", "На месте: 2 из 5.")).await;
        assert_eq!(here_and_withdrawn(&mut t, &slug).await, (vec![1, 3], vec![]));
        assert_eq!(
            text(&desk, "#withdraw-absent-a").await.unwrap(),
            say(lang, "Withdraw the absent (3)", "Снять отсутствующих (3)")
        );
        screenshot(&desk, &format!("check-in-desk-{lang}")).await;
        click(&desk, "#withdraw-absent-a").await;
        wait_until(
            "the absent withdrawn",
            || async { Some(here_and_withdrawn(&mut t.clone(), &slug).await) },
            |got| *got == (vec![1, 3], vec![2, 4, 5]),
        )
        .await;
        // Round 1 paired of the two who came: the check-in is over and gone from the page.
        click(&desk, "#pair-a").await;
        wait_until("check-in gone", || async { Some(count(&desk, "#check-in-a").await) }, |&n| n == 0).await;
        let request = pb::GetTournamentRequest { slug: slug.clone() };
        let got = t.get_tournament(tonic::Request::new(request)).await.unwrap().into_inner();
        let round = &got.tournament.unwrap().divisions[0].rounds[0];
        let mut paired: Vec<u32> = round.pairings.iter().flat_map(|p| [p.first, p.second]).collect();
        paired.sort();
        assert_eq!(paired, [1, 3], "{lang}");
        for c in [ann, anyone, desk] {
            c.close().await.unwrap();
        }
    }
}

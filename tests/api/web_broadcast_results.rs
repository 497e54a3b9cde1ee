//! The broadcast page and its overlay show results (issue 82, items 18, 19 and 20): standings that
//! follow the tournament as a spectator sees it (a result entered by hand, a held result as it
//! comes due and not before), a game over that shows who won in place of the last estimate, and a
//! result entered by hand shown as one, not as an empty board with the racks the server dealt.
//!
//! Headless Chromium at a laptop's screen (1366×768) and a phone's (390×844), in English and in
//! Russian; what the page shows is checked against the server's own answers. Screenshots go to
//! `target/screenshots/`.

use crate::common;

use crate::browser::*;
use common::server::*;
use dawgref::proto::v1 as pb;
use fantoccini::Client;
use serde_json::{Value, json};

const ROOT: &str = "director-secret";

/// A laptop's screen and a phone's, in CSS pixels.
const LAPTOP: (u32, u32) = (1366, 768);
const PHONE: (u32, u32) = (390, 844);

/// The players of every tournament here, by number.
const PLAYERS: [&str; 4] = ["Ann Archer", "Bo Baker", "Cy Cole", "Di Dunn"];

/// The page's words in `lang` ("en" or "ru").
struct Words {
    lang: &'static str,
}

impl Words {
    fn by_hand(&self, result: &str) -> String {
        match self.lang {
            "ru" => format!("результат внесён вручную: {result}"),
            _ => format!("result entered by hand: {result}"),
        }
    }
    fn won(&self, name: &str, a: i32, b: i32) -> String {
        match self.lang {
            "ru" => format!("{name} побеждает, {a} – {b}"),
            _ => format!("{name} won, {a} – {b}"),
        }
    }
    fn tie(&self, a: i32, b: i32) -> String {
        match self.lang {
            "ru" => format!("ничья, {a} – {b}"),
            _ => format!("tie, {a} – {b}"),
        }
    }
    fn round(&self, n: u32) -> String {
        match self.lang {
            "ru" => format!("Тур {n} · "),
            _ => format!("Round {n} · "),
        }
    }
}

/// Tournament `slug` ("Summer cup"): one division "a" of the four PLAYERS, two rounds paired by
/// hand, and a broadcast `<slug>-live` of it `delay` seconds behind the hall, racks revealed. The
/// players' tokens by number (Ann's first).
async fn cup(srv: &TestServer, slug: &str, delay: u32) -> Vec<String> {
    let mut t = srv.tournaments().await;
    let player = |name: &str| pb::TournamentPlayerSpec {
        bot_account: String::new(),
        name: name.into(),
        rating: 0,
        bot: None,
        lifetime_games: None,
    };
    let request = pb::CreateTournamentRequest {
        allow_same_names: false,
        name: "Summer cup".into(),
        slug: slug.into(),
        game: Some(pb::TournamentGameSettings::default()),
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players: PLAYERS.iter().map(|n| player(n)).collect(),
            rounds: vec![pb::RoundSpec { method: pb::PairingMethod::Manual as i32, ..Default::default() }; 2],
            controls: None,
            result_reports: 0,
        }],
        seed: Some(1),
    };
    let made = t.create_tournament(authed(request, ROOT)).await.unwrap().into_inner();
    let broadcast = pb::CreateBroadcastRequest {
        slug: format!("{slug}-live"),
        name: "Summer cup, live".into(),
        labels: [("tournament".to_string(), slug.to_string())].into(),
        delay_seconds: delay,
        reveal_racks: true,
        analysis: false,
        analysis_ms: 0,
    };
    srv.broadcasts().await.create_broadcast(authed(broadcast, ROOT)).await.unwrap();
    let mut tokens = made.player_tokens;
    tokens.sort_by_key(|p| p.player);
    tokens.into_iter().map(|p| p.token).collect()
}

/// Enter pairing `pairing`'s result of round `round` of the cup `slug` by hand: `first`–`second`.
async fn record(srv: &TestServer, slug: &str, (round, pairing): (u32, u32), (first, second): (i32, i32)) {
    let r = pb::RecordResultRequest {
        slug: slug.into(),
        division: "a".into(),
        round,
        pairing,
        result: Some(pb::record_result_request::Result::Scores(pb::FinalScores { first, second })),
        ..Default::default()
    };
    srv.tournaments().await.record_result(authed(r, ROOT)).await.unwrap();
}

/// Start round `round` of the cup `slug`: its pairings' game ids (empty: no game).
async fn start_round(srv: &TestServer, slug: &str, round: u32) -> Vec<String> {
    let start =
        pb::StartRoundRequest { slug: slug.into(), division: "a".into(), round, ..Default::default() };
    let round =
        srv.tournaments().await.start_round(authed(start, ROOT)).await.unwrap().into_inner().round.unwrap();
    round.pairings.iter().map(|p| p.game_id.clone()).collect()
}

/// Division "a"'s standings as the page's table writes them (name, wins, spread), as `token` (a
/// spectator: None) sees the tournament.
async fn standings(srv: &TestServer, slug: &str, token: Option<&str>) -> Value {
    let request = pb::GetTournamentRequest { slug: slug.into() };
    let mut t = srv.tournaments().await;
    let got = match token {
        Some(token) => t.get_tournament(authed(request, token)).await,
        None => t.get_tournament(request).await,
    };
    let d = got.unwrap().into_inner().tournament.unwrap().divisions.remove(0);
    let rows: Vec<Value> = (d.standings.iter())
        .map(|s| {
            let spread = if s.spread > 0 { format!("+{}", s.spread) } else { s.spread.to_string() };
            json!([d.players[s.player as usize - 1].name, s.wins.to_string(), spread])
        })
        .collect();
    json!(rows)
}

/// What the broadcast page shows: the standings' rows, the results entered by hand with no game,
/// each card by game (its result entered by hand, boards, racks and result over the bar), the
/// large board's, and whether the page scrolls sideways.
async fn page(c: &Client) -> Value {
    script(
        c,
        "const txt = (el) => (el ? el.textContent : null);
         const look = (el) => ({ hand: txt(el.querySelector('.bc-hand-text')), boards: el.querySelectorAll('.board').length,
           racks: el.querySelectorAll('.bc-rack').length, result: txt(el.querySelector('.bc-result-text')),
           bar: el.querySelector('.win-bar') && el.querySelector('.win-bar').getAttribute('aria-label') });
         const open = document.getElementById('bc-open');
         const page = document.documentElement;
         return {
           standings: [...document.querySelectorAll('#bc-standings tbody tr')].map((tr) => [...tr.cells].map((td) => td.textContent)),
           hand: [...document.querySelectorAll('#bc-hand li')].map((li) => li.textContent),
           cards: Object.fromEntries([...document.querySelectorAll('.bc-card')].map((el) => [el.dataset.game, look(el)])),
           open: open && !open.hidden ? look(open) : null,
           sideways: page.scrollWidth > page.clientWidth,
         };",
    )
    .await
}

/// Wait until the page's `key` (see `page`) is `want`.
async fn wait_page(c: &Client, what: &str, key: &str, want: &Value) -> Value {
    wait_until(what, || async { Some(page(c).await) }, |p| &p[key] == want).await
}

/// Wait until the card of `game` reads as `want` (its fields, see `page`).
async fn wait_card(c: &Client, what: &str, game: &str, want: Value) -> Value {
    wait_until(what, || async { Some(page(c).await) }, |p| p["cards"][game] == want).await
}

/// What the overlay of `game` shows: its result entered by hand, its result over the bar, the
/// bar's label, its boards, racks and the bar's percentages.
async fn overlay(c: &Client) -> Value {
    script(
        c,
        "const txt = (el) => (el ? el.textContent : null);
         const o = document.getElementById('bc-overlay');
         if (!o) return null; // the page not drawn yet: asked again
         return { hand: txt(o.querySelector('.bc-hand-text')), result: txt(o.querySelector('.bc-ov-win .bc-result-text')),
           bar: o.querySelector('.win-bar') && o.querySelector('.win-bar').getAttribute('aria-label'),
           boards: o.querySelectorAll('.board').length, racks: o.querySelectorAll('.bc-ov-rack').length,
           labels: o.querySelectorAll('.win-labels').length };",
    )
    .await
}

// ---- 20 (and 18): results entered by hand ----

/// Results entered by hand show as results: a pairing's result entered before its round started
/// (no game on the server) is listed under the boards, and the standings take it in at once; a
/// tournament game the director ended with scores before any turn was played shows the result
/// where the board was (on its card, opened large and on its overlay), not an empty board with
/// the racks the server dealt. In English on a laptop and in Russian on a phone.
#[tokio::test]
async fn results_entered_by_hand_show_as_results_not_as_an_empty_board_in_both_languages() {
    let srv = start_directed(ROOT).await;
    let mut driver = Driver::start().await;
    for (lang, size) in [("en", LAPTOP), ("ru", PHONE)] {
        let w = Words { lang };
        let slug = format!("hand-{lang}");
        cup(&srv, &slug, 0).await;
        let mut t = srv.tournaments().await;
        round_by_hand(&mut t, ROOT, (&slug, 1), &[(1, 2), (3, 4)], &[]).await;

        let c = driver.browser_in(lang).await;
        set_viewport(&c, size.0, size.1).await;
        c.goto(&format!("{}/broadcasts/{slug}-live", srv.url)).await.unwrap();
        let none_yet = standings(&srv, &slug, None).await;
        assert_eq!(none_yet.as_array().unwrap().len(), 4);
        wait_page(&c, &format!("{lang}: the standings"), "standings", &none_yet).await;

        // Cy and Di played over the board before the round started: no game on the server.
        record(&srv, &slug, (1, 2), (400, 350)).await;
        let after = standings(&srv, &slug, None).await;
        assert_ne!(after, none_yet);
        assert_eq!(after[0], json!(["Cy Cole", "1", "+50"]));
        wait_page(&c, &format!("{lang}: the standings with Cy's result"), "standings", &after).await;
        let listed = json!([format!("{}{}", w.round(1), w.by_hand("Cy Cole 400 – Di Dunn 350"))]);
        wait_page(&c, &format!("{lang}: Cy's result listed"), "hand", &listed).await;

        // The round starts: Ann and Bo's game is made (none for Cy and Di's pairing), its racks
        // dealt and shown while it is in play.
        let games = start_round(&srv, &slug, 1).await;
        assert!(!games[0].is_empty() && games[1].is_empty(), "{games:?}");
        let game = games[0].as_str();
        let live = json!({ "hand": null, "boards": 1, "racks": 2, "result": null, "bar": null });
        let shown = wait_until(
            &format!("{lang}: Ann and Bo's board"),
            || async { Some(page(&c).await) },
            |p| p["cards"][game]["boards"] == 1 && p["cards"][game]["racks"] == 2,
        )
        .await;
        assert_eq!(shown["cards"][game]["hand"], live["hand"]);
        assert_eq!(shown["cards"][game]["result"], live["result"]);

        // Ann and Bo played over the board too: the director enters 412–388.
        record(&srv, &slug, (1, 1), (412, 388)).await;
        let mut g = srv.games().await;
        let view = view_of(&mut g, pb::GetGameRequest { game_id: game.into() }).await;
        assert!(view.over && view.turn == 0, "{view:?}");
        assert_eq!(view.end_reason, "adjudicated (director)");
        assert_eq!(view.seats.iter().map(|s| s.score).collect::<Vec<_>>(), [412, 388]);
        let won = w.won("Ann Archer", 412, 388);
        let by_hand = w.by_hand("Ann Archer 412 – Bo Baker 388");
        let card = json!({ "hand": by_hand, "boards": 0, "racks": 0, "result": won, "bar": won });
        wait_card(&c, &format!("{lang}: Ann and Bo's result"), game, card.clone()).await;
        let finals = standings(&srv, &slug, None).await;
        assert_eq!(finals[0], json!(["Cy Cole", "1", "+50"]));
        assert_eq!(finals[1], json!(["Ann Archer", "1", "+24"]));
        let shown = wait_page(&c, &format!("{lang}: the standings of round 1"), "standings", &finals).await;
        assert_eq!(shown["hand"], listed, "{lang}: the game's result is on its card, not in the list");
        assert_eq!(shown["sideways"], json!(false), "{lang}: nothing wider than the screen");
        screenshot(&c, &format!("broadcast-by-hand-{lang}")).await;

        // Opened large: the result where the board was, no racks.
        click(&c, &format!(".bc-card[data-game=\"{game}\"]")).await;
        let opened = wait_until(
            &format!("{lang}: opened"),
            || async { Some(page(&c).await) },
            |p| p["open"] != Value::Null,
        )
        .await;
        assert_eq!(opened["open"], card, "{lang}: opened large");
        assert_eq!(opened["sideways"], json!(false), "{lang}");
        screenshot(&c, &format!("broadcast-by-hand-open-{lang}")).await;

        // The overlay: the result where the board was, no racks.
        set_viewport(&c, LAPTOP.0, LAPTOP.1).await;
        c.goto(&format!("{}/broadcasts/{slug}-live/games/{game}/overlay", srv.url)).await.unwrap();
        let want =
            json!({ "hand": by_hand, "result": won, "bar": won, "boards": 0, "racks": 0, "labels": 0 });
        wait_until(&format!("{lang}: the overlay"), || async { Some(overlay(&c).await) }, |o| o == &want)
            .await;
        screenshot(&c, &format!("overlay-by-hand-{lang}")).await;
        c.close().await.unwrap();
    }
}

// ---- 19: a game over shows who won ----

/// Once a game is over its bar shows who won and the final score (the winner's first), or a tie,
/// not the last estimate: on its card, opened large and on its overlay. A game played on the
/// server and then given a result by the director is not a result entered by hand: its board
/// stays. In English on a laptop and in Russian on a phone.
#[tokio::test]
async fn a_game_over_shows_who_won_on_its_card_its_large_board_and_its_overlay_in_both_languages() {
    let srv = start_directed(ROOT).await;
    let mut driver = Driver::start().await;
    for (lang, size) in [("en", LAPTOP), ("ru", PHONE)] {
        let w = Words { lang };
        let slug = format!("won-{lang}");
        let tokens = cup(&srv, &slug, 0).await;
        let mut t = srv.tournaments().await;
        round_by_hand(&mut t, ROOT, (&slug, 1), &[(1, 2), (3, 4)], &[]).await;
        let games = start_round(&srv, &slug, 1).await;
        let (first, second) = (games[0].as_str(), games[1].as_str());

        let c = driver.browser_in(lang).await;
        set_viewport(&c, size.0, size.1).await;
        c.goto(&format!("{}/broadcasts/{slug}-live", srv.url)).await.unwrap();
        wait_until(
            &format!("{lang}: both boards"),
            || async { Some(page(&c).await) },
            |p| p["cards"][first]["boards"] == 1 && p["cards"][second]["boards"] == 1,
        )
        .await;
        let shown = page(&c).await;
        assert_eq!(shown["cards"][first]["result"], Value::Null, "{lang}: in play, no result");

        // Ann plays her best, then Bo resigns: Ann won.
        let mut g = srv.games().await;
        let mut a = srv.analysis().await;
        let best = best_move(&mut a, first, &tokens[0]).await.expect("a play");
        let notation = best.play.unwrap().notation;
        g.submit_turn(authed(turn(first, 0, play_action(&notation)), &tokens[0])).await.unwrap();
        let resign = Some(pb::submit_turn_request::Action::Resign(pb::Resign {}));
        g.submit_turn(authed(turn(first, 1, resign), &tokens[1])).await.unwrap();
        let view = view_of(&mut g, pb::GetGameRequest { game_id: first.into() }).await;
        assert!(view.over && view.winners == [0], "{view:?}");
        let ann = view.seats[0].score;
        assert_eq!((ann, view.seats[1].score), (best.score, 0));
        let won = w.won("Ann Archer", ann, 0);

        // Cy plays his best, then the director gives the game as a tie, 300–300.
        let best = best_move(&mut a, second, &tokens[2]).await.expect("a play");
        let notation = best.play.unwrap().notation;
        g.submit_turn(authed(turn(second, 0, play_action(&notation)), &tokens[2])).await.unwrap();
        record(&srv, &slug, (1, 2), (300, 300)).await;
        let view = view_of(&mut g, pb::GetGameRequest { game_id: second.into() }).await;
        assert!(view.over && view.winners == [0, 1], "{view:?}");
        let tie = w.tie(300, 300);

        let card =
            |result: &str| json!({ "hand": null, "boards": 1, "racks": 2, "result": result, "bar": result });
        wait_card(&c, &format!("{lang}: Ann won"), first, card(&won)).await;
        let shown = wait_card(&c, &format!("{lang}: a tie"), second, card(&tie)).await;
        assert_eq!(shown["sideways"], json!(false), "{lang}: nothing wider than the screen");
        screenshot(&c, &format!("broadcast-game-over-{lang}")).await;

        click(&c, &format!(".bc-card[data-game=\"{first}\"]")).await;
        let opened = wait_until(
            &format!("{lang}: opened"),
            || async { Some(page(&c).await) },
            |p| p["open"] != Value::Null,
        )
        .await;
        assert_eq!(opened["open"], card(&won), "{lang}: opened large");

        set_viewport(&c, LAPTOP.0, LAPTOP.1).await;
        for (game, result) in [(first, &won), (second, &tie)] {
            c.goto(&format!("{}/broadcasts/{slug}-live/games/{game}/overlay", srv.url)).await.unwrap();
            let want = json!({ "hand": null, "result": result, "bar": result, "boards": 1, "racks": 2, "labels": 0 });
            wait_until(
                &format!("{lang}: the overlay of {game}"),
                || async { Some(overlay(&c).await) },
                |o| o == &want,
            )
            .await;
        }
        screenshot(&c, &format!("overlay-game-over-{lang}")).await;
        c.close().await.unwrap();
    }
}

// ---- 18: the standings follow held results as they come due ----

/// On a broadcast two seconds behind the hall, a result entered by hand is held back from the
/// page's standings (and its list) as from any spectator, and is in them once it comes due, with
/// no reload and no game's end to bring it: whenever the server still held it back, the page
/// showed the standings without it. In English and in Russian.
#[tokio::test]
async fn the_standings_take_a_held_result_in_as_it_comes_due_and_not_before_in_both_languages() {
    let srv = start_directed(ROOT).await;
    let mut driver = Driver::start().await;
    for (lang, size) in [("en", LAPTOP), ("ru", PHONE)] {
        let w = Words { lang };
        let slug = format!("held-{lang}");
        cup(&srv, &slug, 2).await;
        let mut t = srv.tournaments().await;
        round_by_hand(&mut t, ROOT, (&slug, 1), &[(1, 2), (3, 4)], &[]).await;

        let c = driver.browser_in(lang).await;
        set_viewport(&c, size.0, size.1).await;
        c.goto(&format!("{}/broadcasts/{slug}-live", srv.url)).await.unwrap();
        let before = standings(&srv, &slug, None).await;
        wait_page(&c, &format!("{lang}: the standings"), "standings", &before).await;

        record(&srv, &slug, (1, 2), (400, 350)).await;
        let hall = standings(&srv, &slug, Some(ROOT)).await;
        assert_eq!(hall[0], json!(["Cy Cole", "1", "+50"]));
        assert_ne!(hall, before);
        let listed = json!([format!("{}{}", w.round(1), w.by_hand("Cy Cole 400 – Di Dunn 350"))]);
        // Until the server shows it to spectators, the page does not either (the page read first:
        // whatever it showed then, the server held back a moment later); then it does.
        let held_seen = std::cell::Cell::new(0);
        let shown = wait_until(
            &format!("{lang}: the result as it comes due"),
            || async {
                let shown = page(&c).await;
                if standings(&srv, &slug, None).await == before {
                    held_seen.set(held_seen.get() + 1);
                    assert_eq!(shown["standings"], before, "{lang}: the page ran ahead of the delay");
                    assert_eq!(shown["hand"], json!([]), "{lang}: the list ran ahead of the delay");
                }
                Some(shown)
            },
            |p| p["standings"] == hall && p["hand"] == listed,
        )
        .await;
        assert_eq!(standings(&srv, &slug, None).await, hall, "{lang}: due for spectators now");
        assert_eq!(shown["sideways"], json!(false), "{lang}");
        eprintln!("{lang}: the page was read {} times while the result was held", held_seen.get());
        screenshot(&c, &format!("broadcast-held-standings-{lang}")).await;
        c.close().await.unwrap();
    }
}

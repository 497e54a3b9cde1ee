//! Games that sleep: a game left alone for `idle_after` leaves memory and its next request
//! brings it back from the store exactly as it was (view, events, clock); however many requests
//! name a sleeping game at once, it is loaded once; a watcher keeps a game awake; a flag due
//! while the game sleeps falls on time with nobody asking.

use crate::common;

use common::server::*;
use dawgref::host::Residence;
use dawgref::proto::v1 as pb;
use std::time::{Duration, Instant};

const IDLE: Duration = Duration::from_millis(200);

async fn sleepy() -> TestServer {
    start_with(dawgref::server::state::Limits { idle_after: Some(IDLE), ..Default::default() }).await
}

/// [`sleepy`], with a director.
async fn sleepy_directed(token: &str) -> TestServer {
    let limits = dawgref::server::state::Limits { idle_after: Some(IDLE), ..Default::default() };
    serve(lexicons_builder().limits(limits).director_token(token)).await.0
}

/// Wait (at most 10 s, reading the host only: a request would wake the game) until `done`.
async fn wait_for(what: &str, done: impl Fn() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < Duration::from_secs(10), "waited 10 s for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn uuid(id: &str) -> uuid::Uuid {
    uuid::Uuid::parse_str(id).unwrap()
}

async fn view(
    g: &mut dawgref::proto::v1::games_service_client::GamesServiceClient<tonic::transport::Channel>,
    id: &str,
    token: &str,
) -> pb::GameView {
    view_of(g, authed(pb::GetGameRequest { game_id: id.into() }, token)).await
}

#[tokio::test]
async fn an_idle_game_sleeps_and_wakes_as_it_was() {
    let srv = sleepy().await;
    let host = &srv.handle.host();
    let mut g = srv.games().await;
    let mut a = srv.analysis().await;
    let c = two_humans(&mut g, 7).await;
    let id = c.game_id.clone();
    let best = best_move(&mut a, &id, &c.seat_tokens[0]).await.unwrap();
    g.submit_turn(authed(
        turn(&id, 0, Some(pb::submit_turn_request::Action::Play(best.play.clone().unwrap()))),
        &c.seat_tokens[0],
    ))
    .await
    .unwrap();
    let before = view(&mut g, &id, &c.seat_tokens[1]).await;
    let events_before = first_events(&mut g, &id, before.events).await;

    wait_for("the game to sleep", || host.residence(&uuid(&id)) == Residence::Asleep).await;
    assert!(host.residence(&uuid(&id)) != Residence::Live);
    assert_eq!(host.census().live, 0);
    let asleep = srv.handle.metrics().render();
    assert!(asleep.contains("dawgref_games_asleep 1"), "{asleep}");

    // Woken by a read: the same view, the same events.
    let after = view(&mut g, &id, &c.seat_tokens[1]).await;
    assert_eq!(after, before);
    assert_eq!(host.residence(&uuid(&id)), Residence::Live);
    let events_after = first_events(&mut g, &id, before.events).await;
    assert_eq!(events_after, events_before);
    // And it plays on: seat 1's turn is taken, stamped after the time it slept.
    let best = best_move(&mut a, &id, &c.seat_tokens[1]).await.unwrap();
    let r = g
        .submit_turn(authed(
            turn(&id, 1, Some(pb::submit_turn_request::Action::Play(best.play.clone().unwrap()))),
            &c.seat_tokens[1],
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.points, best.score);
    let mut stream = g
        .watch_game(pb::WatchGameRequest { game_id: id.clone(), from_event: before.events })
        .await
        .unwrap()
        .into_inner();
    let second = stream.message().await.unwrap().unwrap();
    assert_eq!(second.seat, 1);
    assert!(
        second.time_ms >= events_before.last().unwrap().time_ms + IDLE.as_millis() as u64,
        "the game clock ran on while the game slept: {} then {}",
        events_before.last().unwrap().time_ms,
        second.time_ms
    );
    assert!(srv.handle.metrics().render().contains("dawgref_games_woken_total 1"));
}

/// The game's first `n` events (the watch stream is closed after them).
async fn first_events(
    g: &mut dawgref::proto::v1::games_service_client::GamesServiceClient<tonic::transport::Channel>,
    id: &str,
    n: u64,
) -> Vec<pb::WatchGameResponse> {
    let mut stream =
        g.watch_game(pb::WatchGameRequest { game_id: id.into(), from_event: 0 }).await.unwrap().into_inner();
    let mut events = Vec::new();
    for _ in 0..n {
        events.push(stream.message().await.unwrap().unwrap());
    }
    events
}

#[tokio::test]
async fn concurrent_first_requests_load_a_sleeping_game_once() {
    let srv = sleepy().await;
    let host = &srv.handle.host();
    let mut g = srv.games().await;
    let c = two_humans(&mut g, 8).await;
    wait_for("the game to sleep", || host.residence(&uuid(&c.game_id)) == Residence::Asleep).await;
    let reads = (0..16).map(|_| {
        let (url, id) = (srv.url.clone(), c.game_id.clone());
        tokio::spawn(async move {
            let mut g =
                dawgref::proto::v1::games_service_client::GamesServiceClient::connect(url).await.unwrap();
            view_of(&mut g, pb::GetGameRequest { game_id: id }).await
        })
    });
    let views: Vec<pb::GameView> =
        futures_util::future::join_all(reads).await.into_iter().map(Result::unwrap).collect();
    assert!(views.windows(2).all(|w| w[0] == w[1]));
    let metrics = srv.handle.metrics().render();
    assert!(metrics.contains("dawgref_games_loaded_total 1\n"), "{metrics}");
    assert!(metrics.contains("dawgref_games_woken_total 1\n"), "{metrics}");
    assert_eq!(host.census().live, 1);
}

#[tokio::test]
async fn a_watcher_keeps_a_game_awake() {
    let srv = sleepy().await;
    let host = &srv.handle.host();
    let mut g = srv.games().await;
    let c = two_humans(&mut g, 9).await;
    let stream =
        g.watch_game(pb::WatchGameRequest { game_id: c.game_id.clone(), from_event: 0 }).await.unwrap();
    tokio::time::sleep(IDLE * 5).await;
    assert!(host.residence(&uuid(&c.game_id)) == Residence::Live, "watched, the game stays in memory");
    assert!(host.residence(&uuid(&c.game_id)) != Residence::Asleep);
    drop(stream);
    wait_for("the game to sleep once nobody watches", || {
        host.residence(&uuid(&c.game_id)) == Residence::Asleep
    })
    .await;
}

#[tokio::test]
async fn a_flag_falls_on_time_while_the_game_sleeps() {
    let srv = sleepy().await;
    let host = &srv.handle.host();
    let mut g = srv.games().await;
    let mut req = create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("a"), human("b")], 10);
    // Seat 0's flag falls at game time 1501: long after the game has gone to sleep.
    req.clock = Some(pb::ClockSpec {
        initial_ms: 1200,
        increment_ms: 0,
        max_overtime_ms: 300,
        penalty_per_minute: 10,
        per_move_ms: 0,
    });
    let c = g.create_game(req).await.unwrap().into_inner();
    let id = uuid(&c.game_id);
    wait_for("the game to sleep", || host.residence(&id) == Residence::Asleep).await;
    // Nobody asks: the host wakes the game for its flag, which falls; the game ends and leaves.
    wait_for("the flag to fall", || host.residence(&id) == Residence::Out).await;
    let seen: Vec<(String, u32, u64)> =
        watch_to_end(&mut g, &c.game_id, 0).await.into_iter().map(|e| (e.kind, e.seat, e.time_ms)).collect();
    assert_eq!(seen, [("out_of_time".to_string(), 0, 1501), ("game_over".to_string(), 0, 1501)]);
    let v = view_of(&mut g, pb::GetGameRequest { game_id: c.game_id.clone() }).await;
    assert_eq!(v.end_reason, "seat 0 ran out of time");
}

#[tokio::test]
async fn a_turn_queued_as_the_game_falls_asleep_is_taken_by_the_woken_game() {
    // Many turns from two seats racing the idle deadline: every acknowledged turn is in the
    // game once, whether it met the game awake, going to sleep, or asleep.
    let srv = start_with(dawgref::server::state::Limits {
        idle_after: Some(Duration::from_millis(100)),
        ..Default::default()
    })
    .await;
    let mut g = srv.games().await;
    let c = two_humans(&mut g, 11).await;
    let pass = || Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    // Passes alternate; each waits about the idle span, so some land as the game sleeps.
    let mut taken = 0;
    for k in 0..5u32 {
        let seat = (k % 2) as usize;
        tokio::time::sleep(Duration::from_millis(90 + u64::from(k) * 5)).await;
        g.submit_turn(authed(turn(&c.game_id, k, pass()), &c.seat_tokens[seat])).await.unwrap();
        taken += 1;
    }
    let v = view_of(&mut g, pb::GetGameRequest { game_id: c.game_id.clone() }).await;
    assert_eq!(v.turn, taken);
}

#[tokio::test]
async fn a_sleeping_game_holds_no_session() {
    let srv = sleepy().await;
    let host = &srv.handle.host();
    let mut g = srv.games().await;
    let c = two_humans(&mut g, 12).await;
    let session = std::sync::Arc::downgrade(&srv.handle.host().session(&c.game_id).await.unwrap());
    wait_for("the game to sleep", || host.residence(&uuid(&c.game_id)) == Residence::Asleep).await;
    wait_for("its session to be dropped", || session.upgrade().is_none()).await;
}

#[tokio::test]
async fn sleeping_games_are_listed_as_live_and_filtered_without_waking() {
    const DIRECTOR: &str = "sleep-director";
    let srv = sleepy_directed(DIRECTOR).await;
    let host = &srv.handle.host();
    let mut g = srv.games().await;
    let mut ids = Vec::new();
    for (seed, round) in [(20, "1"), (21, "2"), (22, "2")] {
        let mut req = create(
            pb::Ruleset::English,
            pb::ChallengeRule::Single,
            vec![human(&format!("Ann{seed}")), human("Bo")],
            seed,
        );
        req.labels = [("round".to_string(), round.to_string())].into();
        ids.push(g.create_game(authed(req, DIRECTOR)).await.unwrap().into_inner().game_id);
    }
    wait_for("every game to sleep", || host.census().asleep == 3).await;
    let list = |labels: &[(&str, &str)], query: &str| pb::ListGamesRequest {
        labels: labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        query: query.into(),
        page_size: 1,
        state: pb::GameState::Live as i32,
        ..Default::default()
    };
    // By label: two games; the page holds one, shown from the store: every game sleeps on.
    let round2 = g.list_games(authed(list(&[("round", "2")], ""), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(round2.total, 2);
    let mut expected = [ids[1].clone(), ids[2].clone()];
    expected.sort();
    assert_eq!(round2.games.iter().map(|v| v.game_id.clone()).collect::<Vec<_>>(), [expected[0].clone()]);
    assert_eq!(round2.next_page_token, expected[0]);
    assert_eq!((host.census().asleep, host.census().live), (3, 0));
    // By a seat's name, judged asleep.
    let ann21 = g.list_games(authed(list(&[], "ann21"), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!((ann21.total, ann21.games[0].game_id.as_str()), (1, ids[1].as_str()));
    assert_eq!(host.census().asleep, 3);
    // What the listing showed is what a watcher sees once the game is awake.
    let listed = ann21.games[0].clone();
    let awake = view_of(&mut g, pb::GetGameRequest { game_id: ids[1].clone() }).await;
    assert_eq!(listed, awake);
    assert_eq!((host.census().asleep, host.census().live), (2, 1));
}

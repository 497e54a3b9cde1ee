//! Clocks fall by themselves: with nobody sending anything, a watcher receives the loss on time,
//! stamped with the instant the flag fell (not the instant anyone noticed), and a view never
//! reads below the overtime allowed.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;

/// Seat 0 has 200 ms and 300 ms of overtime: its flag falls at the first millisecond past
/// 500, game time 501.
const FLAG_MS: u64 = 501;

fn clocked(seed: u64) -> pb::CreateGameRequest {
    let mut req = create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("a"), human("b")], seed);
    req.clock = Some(pb::ClockSpec {
        initial_ms: 200,
        increment_ms: 0,
        max_overtime_ms: 300,
        penalty_per_minute: 10,
        per_move_ms: 0,
    });
    req
}

#[tokio::test]
async fn a_watcher_sees_the_flag_fall_with_no_other_traffic() {
    let srv = start().await;
    let mut g = srv.games().await;
    let c = g.create_game(clocked(1)).await.unwrap().into_inner();
    let events = watch_to_end(&mut g, &c.game_id, 0).await;
    let seen: Vec<(&str, u32, u64)> = events.iter().map(|e| (e.kind.as_str(), e.seat, e.time_ms)).collect();
    assert_eq!(seen, [("out_of_time", 0, FLAG_MS), ("game_over", 0, FLAG_MS)]);

    let v = view_of(&mut g, pb::GetGameRequest { game_id: c.game_id.clone() }).await;
    assert!(v.over);
    assert_eq!(v.end_reason, "seat 0 ran out of time");
    assert_eq!(v.winners, [1]);
    // Never below the overtime allowed, however long after the fall it is read.
    let left: Vec<Option<i64>> = v.seats.iter().map(|s| s.time_left_ms).collect();
    assert_eq!(left, [Some(-300), Some(200)]);
}

#[tokio::test]
async fn the_flag_of_the_seat_to_move_falls_after_a_turn() {
    let srv = start().await;
    let mut g = srv.games().await;
    let mut req = clocked(2);
    // Plenty for seat 0, who passes at once; seat 1's 200 + 300 ms then run from that pass.
    req.clock = Some(pb::ClockSpec {
        initial_ms: 200,
        increment_ms: 60_000,
        max_overtime_ms: 300,
        penalty_per_minute: 10,
        per_move_ms: 0,
    });
    let c = g.create_game(req).await.unwrap().into_inner();
    let pass = Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    g.submit_turn(authed(turn(&c.game_id, 0, pass), &c.seat_tokens[0])).await.unwrap();
    let events = watch_to_end(&mut g, &c.game_id, 0).await;
    let kinds: Vec<(&str, u32)> = events.iter().map(|e| (e.kind.as_str(), e.seat)).collect();
    assert_eq!(kinds, [("pass", 0), ("out_of_time", 1), ("game_over", 1)]);
    // Seat 1's clock started at the pass: its flag fell 501 ms later, to the millisecond.
    assert_eq!(events[1].time_ms, events[0].time_ms + FLAG_MS);
    assert_eq!(events[2].time_ms, events[1].time_ms);
}

#[tokio::test]
async fn a_recovered_game_rearms_its_clock() {
    let dir = TempDir::new("clock-recovery");
    let id = {
        let (srv, _) = start_stored(&dir.0).await;
        let mut g = srv.games().await;
        // 1.5 s, so that the flag cannot fall before this server has stopped.
        let mut req = clocked(3);
        req.clock = Some(pb::ClockSpec {
            initial_ms: 1500,
            increment_ms: 0,
            max_overtime_ms: 300,
            penalty_per_minute: 10,
            per_move_ms: 0,
        });
        let c = g.create_game(req).await.unwrap().into_inner();
        srv.stop().await;
        c.game_id
    };
    // Restarted, the clock resumes at the last logged reading (0: nothing was played; the time
    // the server was down is nobody's) and the timer is armed again: the flag falls at 1801.
    let (srv, report) = start_stored(&dir.0).await;
    assert_eq!(report.loaded, 1);
    let mut g = srv.games().await;
    let seen: Vec<(String, u64)> =
        watch_to_end(&mut g, &id, 0).await.into_iter().map(|e| (e.kind, e.time_ms)).collect();
    assert_eq!(seen, [("out_of_time".to_string(), 1801), ("game_over".to_string(), 1801)]);
}

/// Game time is tokio's: a test pauses it and moves it on, and a day per move falls a day
/// later to the millisecond, with no waiting (the services called in process; no sleep, so the
/// game stays in memory the whole day).
#[tokio::test(start_paused = true)]
async fn a_day_per_move_falls_a_day_later_on_paused_time() {
    use dawgref::proto::v1::games_service_server::GamesService;
    use std::time::Duration;
    use tonic::Request;
    const DAY_MS: u64 = 86_400_000;
    let limits = dawgref::server::state::Limits { idle_after: None, ..Default::default() };
    let (handle, _) = lexicons_builder().limits(limits).start().await.unwrap();
    let games = handle.games_service();
    let mut req = clocked(4);
    req.clock = Some(pb::ClockSpec { per_move_ms: DAY_MS, ..Default::default() });
    let c = games.create_game(Request::new(req)).await.unwrap().into_inner();
    let view = |id: String| async {
        games
            .get_game(Request::new(pb::GetGameRequest { game_id: id }))
            .await
            .unwrap()
            .into_inner()
            .view
            .unwrap()
    };
    tokio::time::advance(Duration::from_millis(DAY_MS - 1)).await;
    let v = view(c.game_id.clone()).await;
    assert_eq!((v.over, v.seats[0].time_left_ms), (false, Some(1)), "a millisecond left");
    tokio::time::advance(Duration::from_millis(2)).await;
    handle.host().session(&c.game_id).await.unwrap().settled().await;
    let v = view(c.game_id.clone()).await;
    assert_eq!((v.over, v.end_reason.as_str(), v.winners.clone()), (true, "seat 0 ran out of time", vec![1]));
    let events = games
        .watch_game(Request::new(pb::WatchGameRequest { game_id: c.game_id.clone(), ..Default::default() }))
        .await
        .unwrap()
        .into_inner();
    use tokio_stream::StreamExt;
    let seen: Vec<(String, u64)> =
        events.take(2).map(|e| e.unwrap()).map(|e| (e.kind, e.time_ms)).collect().await;
    assert_eq!(seen, [("out_of_time".to_string(), DAY_MS + 1), ("game_over".to_string(), DAY_MS + 1)]);
}

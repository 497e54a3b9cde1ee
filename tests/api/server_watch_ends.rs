//! A watch stream ends when there is nothing more to send: a finished game's stream sends what
//! is left and closes with OK, whatever `from_event` is; and a stream whose client went away
//! frees its slot at once, not at the game's next event. A watch ends by its caller's deadline
//! (`grpc-timeout`) with DEADLINE_EXCEEDED, naming the event to watch again from.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use dawgref::server::state::Limits;
use std::time::Duration;

/// Every event of a stream until it closes (a hang guard, not a timing measure).
async fn drain(mut s: tonic::Streaming<pb::WatchGameResponse>) -> Vec<pb::WatchGameResponse> {
    let mut out = Vec::new();
    let all = async {
        while let Some(e) = s.message().await.expect("the stream ends with OK") {
            out.push(e);
        }
    };
    tokio::time::timeout(Duration::from_secs(30), all).await.expect("the stream of a finished game closes");
    out
}

#[tokio::test]
async fn a_finished_game_is_watched_to_its_end_and_closed() {
    let srv = start().await;
    let mut g = srv.games().await;
    let c = two_humans(&mut g, 9).await;
    let pass = Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    g.submit_turn(authed(turn(&c.game_id, 0, pass), &c.seat_tokens[0])).await.unwrap();
    let resign = Some(pb::submit_turn_request::Action::Resign(pb::Resign {}));
    let v = g
        .submit_turn(authed(turn(&c.game_id, 1, resign), &c.seat_tokens[1]))
        .await
        .unwrap()
        .into_inner()
        .view
        .unwrap();
    assert!(v.over);
    let n = v.events;
    assert_eq!(n, 3, "pass, resign, game_over");
    for from in [0, 1, n - 1, n, n + 1, 1_000_000] {
        let req = pb::WatchGameRequest { game_id: c.game_id.clone(), from_event: from };
        let events = drain(g.watch_game(req).await.unwrap().into_inner()).await;
        let numbers: Vec<u64> = events.iter().map(|e| e.number).collect();
        let expected: Vec<u64> = (from.min(n)..n).collect();
        assert_eq!(numbers, expected, "from {from}");
    }
}

#[tokio::test]
async fn a_cancelled_stream_frees_its_slot() {
    let srv = start_with(Limits { streams_per_game: 4, ..Default::default() }).await;
    let mut g = srv.games().await;
    let c = two_humans(&mut g, 10).await;
    let watch = || pb::WatchGameRequest { game_id: c.game_id.clone(), from_event: 0 };
    for round in 0..3 {
        let mut streams = Vec::new();
        for _ in 0..4 {
            streams.push(g.watch_game(watch()).await.unwrap().into_inner());
        }
        assert_eq!(code(g.watch_game(watch()).await), tonic::Code::ResourceExhausted, "round {round}");
        drop(streams);
        // The game stays idle: only the clients going away can free the slots.
        let session = srv.handle.host().session(&c.game_id).await.unwrap();
        let freed = async {
            while session.watchers() > 0 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(30), freed).await.expect("slots freed without an event");
    }
    let v = view_of(&mut g, pb::GetGameRequest { game_id: c.game_id.clone() }).await;
    assert_eq!(v.events, 0);
}

#[tokio::test]
async fn a_watch_ends_by_its_callers_deadline_naming_where_to_resume() {
    let srv = start().await;
    let mut g = srv.games().await;
    let c = two_humans(&mut g, 9).await;
    let pass = Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    g.submit_turn(authed(turn(&c.game_id, 0, pass), &c.seat_tokens[0])).await.unwrap();
    let mut watch = tonic::Request::new(pb::WatchGameRequest { game_id: c.game_id.clone(), from_event: 0 });
    // Only the header: the client library itself does not end the stream.
    watch.set_timeout(Duration::from_millis(300));
    let mut stream = g.watch_game(watch).await.unwrap().into_inner();
    let ended = async {
        let mut events = 0;
        loop {
            match stream.message().await {
                Ok(Some(_)) => events += 1,
                Ok(None) => panic!("the watch closed with OK"),
                Err(status) => return (events, status),
            }
        }
    };
    let (events, status) =
        tokio::time::timeout(Duration::from_secs(30), ended).await.expect("the watch ends by its deadline");
    assert_eq!(events, 1, "the pass");
    assert_eq!(status.code(), tonic::Code::DeadlineExceeded, "{status:?}");
    assert_eq!(status.message(), "the call's deadline passed: watch again from event 1");
}

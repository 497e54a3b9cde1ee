//! Eight clients submit the same turn at once: exactly one succeeds, the others get ABORTED (a
//! stale expected_turn) or FAILED_PRECONDITION (not their turn any more), and the game is
//! intact. A repeated request_id returns the first result.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use tonic::Code;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_of_eight_concurrent_submissions_wins() {
    let srv = start().await;
    let mut g = srv.games().await;
    let created = two_humans(&mut g, 31).await;
    let id = created.game_id.clone();
    let token = created.seat_tokens[0].clone();
    let mut a = srv.analysis().await;
    let best = best_move(&mut a, &id, &token).await.unwrap().play.unwrap();
    let mut tasks = Vec::new();
    for i in 0..8 {
        let (url, id, token, best) = (srv.url.clone(), id.clone(), token.clone(), best.clone());
        tasks.push(tokio::spawn(async move {
            let mut g =
                dawgref::proto::v1::games_service_client::GamesServiceClient::connect(url).await.unwrap();
            // Half quote the turn, half do not: those hit "not your turn" after the winner.
            let mut req = turn(&id, 0, Some(pb::submit_turn_request::Action::Play(best)));
            if i % 2 == 1 {
                req.expected_turn = None;
            }
            g.submit_turn(authed(req, &token)).await
        }));
    }
    let mut ok = 0;
    let mut codes = Vec::new();
    for t in tasks {
        match t.await.unwrap() {
            Ok(_) => ok += 1,
            Err(s) => codes.push(s.code()),
        }
    }
    assert_eq!(ok, 1, "{codes:?}");
    assert!(codes.iter().all(|c| matches!(c, Code::Aborted | Code::FailedPrecondition)), "{codes:?}");
    let v = view_of(&mut g, authed(pb::GetGameRequest { game_id: id.clone() }, &token)).await;
    assert_eq!((v.turn, v.to_move, v.events), (1, 1, 1));
    assert_eq!(v.seats[0].score, srv.handle.host().session(&id).await.unwrap().snapshot().game().scores()[0]);
    srv.handle.host().session(&id).await.unwrap().snapshot().game().check_invariants().unwrap();
}

#[tokio::test]
async fn a_repeated_request_id_returns_the_first_result() {
    let srv = start().await;
    let mut g = srv.games().await;
    let created = two_humans(&mut g, 32).await;
    let id = created.game_id.clone();
    let mut a = srv.analysis().await;
    let best = best_move(&mut a, &id, &created.seat_tokens[0]).await.unwrap();
    let req = pb::SubmitTurnRequest {
        game_id: id.clone(),
        expected_turn: Some(0),
        request_id: "retry-1".into(),
        action: Some(pb::submit_turn_request::Action::Play(best.play.unwrap())),
    };
    let first = g.submit_turn(authed(req.clone(), &created.seat_tokens[0])).await.unwrap().into_inner();
    let again = g.submit_turn(authed(req, &created.seat_tokens[0])).await.unwrap().into_inner();
    assert_eq!(first, again);
    assert_eq!(first.points, best.score);
    let v = view_of(&mut g, pb::GetGameRequest { game_id: id }).await;
    assert_eq!((v.turn, v.seats[0].score), (1, best.score));
}

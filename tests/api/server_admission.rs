//! Analysis searches are admitted per client and stopped when abandoned, so that no flood of
//! them can stall a live game's bot; new games are paced per client, so that no client alone
//! fills the server: the same server users run, driven as an attacker would.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use std::time::Duration;
use tonic::Code;
use tonic_types::StatusExt;

/// An empty board, English.
const EMPTY: &str = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 / 0/0 0 lex en;";

/// An inference that cannot finish early: a one-tile exchange on an empty board, asking `ms`.
fn slow_inference(ms: u32) -> pb::InferRackRequest {
    pb::InferRackRequest {
        cgp: EMPTY.into(),
        exchange: Some("Q".into()),
        budget_ms: ms,
        ..Default::default()
    }
}

/// Wait until the server holds `n` admitted searches (they are counted as they arrive and
/// as their callers go).
async fn searches_held(srv: &TestServer, n: usize) {
    for _ in 0..2000 {
        if srv.handle.host().census().searches == n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the server holds {} searches, not {n}", srv.handle.host().census().searches);
}

#[tokio::test]
async fn a_bot_answers_while_abandoned_inferences_were_queued() {
    let srv = start().await;
    let (mut g, a) = (srv.games().await, srv.analysis().await);
    let c = g
        .create_game(create(
            pb::Ruleset::English,
            pb::ChallengeRule::Double,
            vec![human("Ann"), bot(pb::BotLevel::Strong)],
            5,
        ))
        .await
        .unwrap()
        .into_inner();
    // Four inferences asking a minute each: two to be abandoned by their deadline (2 s), two
    // by their clients going away (once all four are admitted).
    let mut abandoned = Vec::new();
    for i in 0..4 {
        let mut a = a.clone();
        let mut req = tonic::Request::new(slow_inference(60_000));
        if i % 2 == 0 {
            req.set_timeout(Duration::from_secs(2));
        }
        abandoned.push((i % 2 == 0, tokio::spawn(async move { a.infer_rack(req).await })));
    }
    searches_held(&srv, 4).await;
    for (_, task) in abandoned.iter().filter(|(deadline, _)| !deadline) {
        task.abort();
    }
    // Ann passes; the bot must answer now, not after the minute the inferences asked for.
    g.submit_turn(authed(
        turn(&c.game_id, 0, Some(pb::submit_turn_request::Action::Pass(pb::Pass {}))),
        &c.seat_tokens[0],
    ))
    .await
    .unwrap();
    tokio::time::timeout(Duration::from_secs(30), srv.settled(&c.game_id))
        .await
        .expect("the bot waited behind abandoned searches");
    let v = view_of(&mut g, pb::GetGameRequest { game_id: c.game_id.clone() }).await;
    assert_eq!((v.turn, v.to_move), (2, 0), "the bot has moved");
    // Every abandoned search has given its place back.
    searches_held(&srv, 0).await;
    for (_, task) in abandoned {
        if let Ok(answer) = task.await {
            // The client's own timer or the server's, whichever fires first.
            let code = answer.unwrap_err().code();
            assert!(matches!(code, Code::Cancelled | Code::DeadlineExceeded), "{code:?}");
        }
    }
}

#[tokio::test]
async fn a_client_holds_a_few_searches_and_one_more_is_told_when_to_retry() {
    let srv = start().await;
    let a = srv.analysis().await;
    let per_client = dawgref::server::state::Limits::default().searches_per_client;
    let mut held = Vec::new();
    for _ in 0..per_client {
        let mut a = a.clone();
        held.push(tokio::spawn(async move { a.infer_rack(slow_inference(60_000)).await }));
    }
    searches_held(&srv, per_client).await;
    // One more from the same client: refused at once, with a retry hint, for every kind of search.
    let mut a1 = a.clone();
    let e = a1.infer_rack(slow_inference(100)).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    assert!(e.message().contains(&format!("{per_client} analysis searches")), "{e:?}");
    assert_eq!(e.get_details_retry_info().and_then(|r| r.retry_delay), Some(Duration::from_secs(1)));
    let opening = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0 lex en;";
    let sim = pb::SimulateRequest { position: cgp(opening), ..Default::default() };
    assert_eq!(code(a1.simulate(sim).await), Code::ResourceExhausted);
    // Another client (known by its token) is counted apart: admitted, it waits its turn.
    let mut other = tonic::Request::new(slow_inference(100));
    other.set_timeout(Duration::from_millis(200));
    other.metadata_mut().insert("authorization", "Bearer another-client".parse().unwrap());
    match a1.infer_rack(other).await {
        Ok(_) => {}
        Err(e) => assert!(matches!(e.code(), Code::Cancelled | Code::DeadlineExceeded), "{e:?}"),
    }
    // The client goes away: its searches stop and their places are free.
    for task in &held {
        task.abort();
    }
    searches_held(&srv, 0).await;
    assert!(a1.infer_rack(slow_inference(50)).await.is_ok());
}

#[tokio::test]
async fn a_client_creates_games_at_its_pace_and_another_client_is_apart() {
    let rate = dawgref::host::CreateRate { burst: 3, per_minute: 1 };
    let srv =
        start_with(dawgref::server::state::Limits { create_rate: Some(rate), ..Default::default() }).await;
    let mut g = srv.games().await;
    let new = || create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("a"), human("b")], 1);
    for _ in 0..3 {
        g.create_game(new()).await.unwrap();
    }
    let e = g.create_game(new()).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    assert!(e.message().contains("3 at once, then 1 a minute"), "{e:?}");
    let retry = e.get_details_retry_info().and_then(|r| r.retry_delay).expect("a retry hint");
    assert!(retry > Duration::from_secs(55) && retry <= Duration::from_secs(60), "{retry:?}");
    // An import creates a game too: the same bucket.
    let record = "#player1 a A\n#player2 b B\n>a: AEINRST 8D RETAINS +72 72\n";
    let import = pb::ImportGcgRequest { gcg: record.into(), ..Default::default() };
    assert_eq!(code(g.import_gcg(import.clone()).await), Code::ResourceExhausted);
    // Another client, known by its token, has a bucket of its own.
    g.create_game(authed(new(), "another-client")).await.unwrap();
    g.import_gcg(authed(import, "another-client")).await.unwrap();
    // Three games, then one created and one imported (unfinished, so live) by the other client.
    assert_eq!(srv.handle.host().census().live, 5);
}

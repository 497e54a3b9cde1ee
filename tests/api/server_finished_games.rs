//! Reading finished games does not fill the server: a finished game loaded for GetGame,
//! WatchGame or ExportGcg is served without being held, so `--max-games` counts games in play.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use dawgref::server::state::Limits;

#[tokio::test]
async fn finished_games_read_back_do_not_count_against_the_limit() {
    let srv = start_with(Limits { max_games: 3, ..Default::default() }).await;
    let mut g = srv.games().await;
    let bots = || vec![bot(pb::BotLevel::Greedy), bot(pb::BotLevel::Greedy)];
    let mut finished = Vec::new();
    for seed in 0..5 {
        let c = g
            .create_game(create(pb::Ruleset::English, pb::ChallengeRule::Single, bots(), seed))
            .await
            .unwrap();
        let c = c.into_inner();
        srv.settled(&c.game_id).await;
        finished.push(c.game_id);
    }
    for id in &finished {
        let v = view_of(&mut g, pb::GetGameRequest { game_id: id.clone() }).await;
        assert!(v.over);
        g.export_gcg(pb::ExportGcgRequest { game_id: id.clone() }).await.unwrap();
        let mut s = g
            .watch_game(pb::WatchGameRequest { game_id: id.clone(), from_event: 0 })
            .await
            .unwrap()
            .into_inner();
        let mut last = None;
        while let Some(e) = s.message().await.unwrap() {
            last = Some(e.kind);
        }
        assert_eq!(last.as_deref(), Some("game_over"));
    }
    assert_eq!(srv.handle.host().census().live, 0);
    let people = || vec![human("a"), human("b")];
    for seed in 0..3 {
        g.create_game(create(pb::Ruleset::English, pb::ChallengeRule::Single, people(), seed)).await.unwrap();
    }
    let e = g
        .create_game(create(pb::Ruleset::English, pb::ChallengeRule::Single, people(), 9))
        .await
        .unwrap_err();
    assert_eq!(
        (e.code(), e.message()),
        (tonic::Code::ResourceExhausted, "the server holds its limit of 3 games")
    );
}

#[tokio::test]
async fn the_request_that_ended_a_game_is_answered_again_after_it_ended() {
    let srv = start().await;
    let mut g = srv.games().await;
    let c = two_humans(&mut g, 4).await;
    let resign = pb::SubmitTurnRequest {
        game_id: c.game_id.clone(),
        expected_turn: Some(0),
        request_id: "last".into(),
        action: Some(pb::submit_turn_request::Action::Resign(pb::Resign {})),
    };
    let first = g.submit_turn(authed(resign.clone(), &c.seat_tokens[0])).await.unwrap().into_inner();
    assert!(first.view.as_ref().unwrap().over);
    // The game has left memory; the retry is answered from its log, byte for byte.
    assert_eq!(srv.handle.host().census().live, 0);
    let again = g.submit_turn(authed(resign.clone(), &c.seat_tokens[0])).await.unwrap().into_inner();
    assert_eq!(again, first);
    // Anything new is refused: the game is over.
    let other = pb::SubmitTurnRequest { request_id: "new".into(), ..resign };
    assert_eq!(code(g.submit_turn(authed(other, &c.seat_tokens[0])).await), tonic::Code::FailedPrecondition);
}

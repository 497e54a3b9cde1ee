//! AnalysisService/Simulate over the wire: a stream of every candidate's figures, best first, ending
//! with `done`; the caller's own rack in a live game, never the opponent's; typed errors for
//! what cannot be simulated; a cancelled stream stops its search.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use std::time::Duration;
use tokio::time::timeout;
use tonic::Code;

const WINDY: &str = "15/15/15/15/15/15/15/3WINDY7/15/15/15/15/15/15/15 AEINRST/ 32/0 0 lex en;";
const MIRRORED: &str = "15/15/15/15/15/15/15/7Q7/15/15/15/15/15/15/15 ADEILRU/ 0/0 0 lex en;";

fn request(position: Option<pb::Position>, budget_ms: u32) -> pb::SimulateRequest {
    pb::SimulateRequest {
        position,
        rack: None,
        candidates: 5,
        plies: None,
        budget_ms,
        seed: 7,
        infer_opponent: false,
    }
}

/// Every update of a stream until it closes (a hang guard, not a timing measure).
async fn updates(mut s: tonic::Streaming<pb::SimulateResponse>) -> Vec<pb::SimulateResponse> {
    let mut out = Vec::new();
    let all = async {
        while let Some(u) = s.message().await.unwrap() {
            out.push(u);
        }
    };
    timeout(Duration::from_secs(60), all).await.expect("the simulation ends");
    out
}

#[tokio::test]
async fn a_cgp_position_streams_its_candidates_best_first_until_done() {
    let srv = start().await;
    let mut a = srv.analysis().await;
    let stream = a.simulate(request(cgp(WINDY), 700)).await.unwrap().into_inner();
    let all = updates(stream).await;
    let last = all.last().unwrap();
    assert!(last.done);
    assert!(all[..all.len() - 1].iter().all(|u| !u.done), "only the last update is done");
    // Five plays by static equity, and the best exchange (the bag is full).
    assert_eq!(last.candidates.len(), 6);
    assert_eq!(last.candidates.iter().filter(|c| !c.exchange.is_empty()).count(), 1);
    assert!(last.iterations > 0);
    let best = &last.candidates[0];
    assert!(!best.ruled_out);
    assert!(best.iterations == last.iterations, "the leader is never ruled out");
    for c in &last.candidates {
        assert!((0.0..=100.0).contains(&c.win_percent), "{c:?}");
        assert!(c.iterations <= last.iterations);
        assert!(c.play.is_some() || !c.exchange.is_empty());
    }
    // Best first: no candidate still in play ahead of the leader.
    for c in last.candidates.iter().filter(|c| !c.ruled_out).skip(1) {
        assert!(c.win_percent <= best.win_percent + 1e-9 || c.spread <= best.spread, "{c:?} vs {best:?}");
    }
    // The plays are the position's: legal, with the score the referee gives.
    let play = best.play.clone().or_else(|| last.candidates[1].play.clone()).unwrap();
    let check = pb::ValidatePlayRequest { position: cgp(WINDY), play: Some(play.clone()), rack: None };
    let verdict = a.validate_play(check).await.unwrap().into_inner();
    assert!(verdict.valid, "{play:?}");
}

#[tokio::test]
async fn a_live_game_uses_the_callers_rack_on_its_turn_and_asks_for_one_otherwise() {
    let srv = start().await;
    let mut g = srv.games().await;
    let mut a = srv.analysis().await;
    let c = two_humans(&mut g, 5).await;
    let live = Some(pb::Position {
        source: Some(pb::position::Source::GameId(c.game_id.clone())),
        lexicon: "".into(),
    });
    // Seat 0's turn: its own rack.
    let stream =
        a.simulate(authed(request(live.clone(), 300), &c.seat_tokens[0])).await.unwrap().into_inner();
    let last = updates(stream).await.pop().unwrap();
    let rack: String = c.view.as_ref().unwrap().my_rack.clone();
    for cand in last.candidates.iter().filter_map(|c| c.play.as_ref()) {
        for t in &cand.tiles {
            let letter = if t.blank { "?".to_string() } else { t.letter.clone() };
            assert!(rack.contains(&letter), "{letter} is not on seat 0's rack {rack}");
        }
    }
    // Seat 1 is not to move: it must say whose rack to simulate.
    let theirs = a.simulate(authed(request(live.clone(), 300), &c.seat_tokens[1])).await.unwrap_err();
    assert_eq!(theirs.code(), Code::InvalidArgument);
    assert!(theirs.message().starts_with("rack:"), "{}", theirs.message());
    // Nor can a watcher without a rack.
    assert_eq!(code(a.simulate(request(live, 300)).await), Code::InvalidArgument);
}

#[tokio::test]
async fn what_cannot_be_simulated_is_refused_by_field_or_state() {
    let srv = start().await;
    let mut a = srv.analysis().await;
    let mut big = request(cgp(WINDY), 300);
    big.candidates = 51;
    let e = a.simulate(big).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().starts_with("candidates:"), "{}", e.message());
    let mut deep = request(cgp(WINDY), 300);
    deep.plies = Some(11);
    assert!(a.simulate(deep).await.unwrap_err().message().starts_with("plies:"));
    let long = a.simulate(request(cgp(WINDY), 60_001)).await.unwrap_err();
    assert!(long.message().starts_with("budget_ms:"), "{}", long.message());

    let mut g = srv.games().await;
    let three = g
        .create_game(create(
            pb::Ruleset::English,
            pb::ChallengeRule::Single,
            vec![human("a"), human("b"), human("c")],
            1,
        ))
        .await
        .unwrap()
        .into_inner();
    let live =
        Some(pb::Position { source: Some(pb::position::Source::GameId(three.game_id)), lexicon: "".into() });
    let e = a.simulate(authed(request(live, 300), &three.seat_tokens[0])).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert!(e.message().contains("3 players"), "{}", e.message());
}

#[tokio::test]
async fn a_cancelled_simulation_frees_its_place_for_the_next() {
    let srv = start().await;
    let mut a = srv.analysis().await;
    // A minute's simulation that does not end sooner by confidence: the board is symmetric about
    // its diagonal, so the two candidates are one play and its mirror image (9D and I4 UREDIAL),
    // apart only where ties between replies break differently (a whole minute, 37,700 lines of
    // ten plies, found no winner). Abandoned after its first update, which comes after the
    // first batch of lines.
    let mut long = request(cgp(MIRRORED), 60_000);
    long.candidates = 2;
    long.plies = Some(10);
    let mut first = a.simulate(long).await.unwrap().into_inner();
    let update = timeout(Duration::from_secs(30), first.message()).await.unwrap().unwrap().unwrap();
    assert!(!update.done);
    // The pair and the best exchange, and the pair level on static equity.
    assert_eq!(update.candidates.len(), 3);
    let notation = |c: &pb::SimulatedCandidate| c.play.as_ref().map(|p| p.notation.clone());
    let mut pair: Vec<_> = update.candidates.iter().filter_map(notation).collect();
    pair.sort();
    assert_eq!(pair, ["9D UREDIAL", "I4 UREDIAL"]);
    assert_eq!(update.candidates[0].equity, update.candidates[1].equity);
    drop(first);
    // The next one runs to its end long before the minute is out (one search at a time on two
    // cores: it could not start while the first still ran).
    // The guard covers the call too: a search still running would hold the call at its permit.
    let next = async { updates(a.simulate(request(cgp(WINDY), 300)).await.unwrap().into_inner()).await };
    let all = timeout(Duration::from_secs(30), next).await.expect("the abandoned search stopped");
    assert!(all.last().unwrap().done);
}

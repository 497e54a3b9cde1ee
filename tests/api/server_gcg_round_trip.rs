//! ExportGcg's record of any game imports back into the same game: whatever the seats' names
//! (colons, spaces, names equal once cleaned), in every ruleset, without naming the ruleset.
//! Struck of its racks, the record still imports as it is written. ImportGcg refuses or reports
//! what a record cannot mean, and its `final_scores` are always the imported game's.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use tonic::transport::Channel;

/// Play a game between two people to its end: the best play, or a pass when there is none.
async fn play_out(
    srv: &TestServer,
    g: &mut pb::games_service_client::GamesServiceClient<Channel>,
    c: &pb::CreateGameResponse,
) -> pb::GameView {
    let mut a = srv.analysis().await;
    loop {
        let v = view_of(g, pb::GetGameRequest { game_id: c.game_id.clone() }).await;
        if v.over {
            return v;
        }
        let token = &c.seat_tokens[v.to_move as usize];
        // After a play that went out, the opponent accepts it with a pass.
        let best = if v.awaiting_final_challenge { None } else { best_move(&mut a, &c.game_id, token).await };
        let action = match best {
            Some(m) => Some(pb::submit_turn_request::Action::Play(m.play.unwrap())),
            None => Some(pb::submit_turn_request::Action::Pass(pb::Pass {})),
        };
        g.submit_turn(authed(turn(&c.game_id, v.turn, action), token)).await.unwrap();
    }
}

async fn round_trip(ruleset: pb::Ruleset, names: [&str; 2], seed: u64) {
    let srv = start().await;
    let mut g = srv.games().await;
    let req = create(ruleset, pb::ChallengeRule::Single, vec![human(names[0]), human(names[1])], seed);
    let c = g.create_game(req).await.unwrap().into_inner();
    let end = play_out(&srv, &mut g, &c).await;
    let gcg =
        g.export_gcg(pb::ExportGcgRequest { game_id: c.game_id.clone() }).await.unwrap().into_inner().gcg;
    // No ruleset named: the record says which.
    let r = g.import_gcg(pb::ImportGcgRequest { gcg: gcg.clone(), ..Default::default() }).await;
    let r = r.unwrap_or_else(|e| panic!("{names:?}: {e:?}\n{gcg}")).into_inner();
    assert!(r.ok, "{names:?}: {:?}\n{gcg}", r.mismatches);
    let v = r.view.unwrap();
    assert_eq!(v.ruleset, ruleset as i32);
    assert_eq!(v.board, end.board, "{names:?}");
    let scores = |v: &pb::GameView| v.seats.iter().map(|s| s.score).collect::<Vec<_>>();
    assert_eq!(scores(&v), scores(&end), "{names:?}");
    assert_eq!(r.final_scores, scores(&end));
    let shown = |v: &pb::GameView| v.seats.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
    assert_eq!(shown(&v), shown(&end), "display names come back");
    assert_eq!(
        (v.over, v.end_reason.clone(), v.winners.clone()),
        (true, end.end_reason.clone(), end.winners.clone())
    );
    // With its racks struck (every rack, the first seat's, the last one), the record imports
    // as it is written: every line's score and total, the final scores, the end.
    let moves = dawgref::notation::gcg::parse(&gcg).unwrap().moves;
    let last_rack = moves.iter().rev().find(|m| m.rack.is_some()).map(|m| m.line);
    let first = &moves[0].nick;
    let strikes: [common::Strike; 3] = [
        ("every rack", &|_| true),
        ("one seat's", &|m| &m.nick == first),
        ("the last", &|m| Some(m.line) == last_rack),
    ];
    for (which, strike) in strikes {
        let struck = common::strike_racks(&gcg, strike);
        let r = g.import_gcg(pb::ImportGcgRequest { gcg: struck.clone(), ..Default::default() }).await;
        let r = r.unwrap_or_else(|e| panic!("{names:?} {which}: {e:?}\n{struck}")).into_inner();
        assert!(r.ok, "{names:?} {which}: {:?}\n{struck}", r.mismatches);
        assert_eq!(r.final_scores, scores(&end), "{names:?} {which}");
        let v = r.view.unwrap();
        assert_eq!(
            (v.over, v.end_reason.clone(), v.winners.clone()),
            (true, end.end_reason.clone(), end.winners.clone()),
            "{names:?} {which}"
        );
        let back = g.export_gcg(pb::ExportGcgRequest { game_id: r.game_id }).await.unwrap().into_inner().gcg;
        assert_eq!(common::scored_lines(&back), common::scored_lines(&gcg), "{names:?} {which}");
    }
}

#[tokio::test]
async fn names_that_broke_records_round_trip() {
    for (i, names) in
        [["a:b", "c"], ["::", "x"], ["north", "north"], ["a b", "a_b"], ["", ""], ["#1", ">x: y"]]
            .into_iter()
            .enumerate()
    {
        round_trip(pb::Ruleset::English, names, 20 + i as u64).await;
    }
}

#[tokio::test]
async fn russian_and_erudit_records_import_without_a_ruleset() {
    round_trip(pb::Ruleset::Russian, ["Иван", "Пётр"], 4).await;
    round_trip(pb::Ruleset::Erudit, ["Иван", "Пётр"], 5).await;
}

#[tokio::test]
async fn absurd_lines_are_refused_or_reported() {
    let srv = start().await;
    let mut g = srv.games().await;
    let head = "#player1 a a\n#player2 b b\n>a: DINNVWY 8D WINDY +32 32\n";
    // An exchange of more tiles than a rack holds: refused, naming the line.
    let e = g
        .import_gcg(pb::ImportGcgRequest {
            gcg: format!("{head}>b: AEIRSTU -9999999999 +0 0\n"),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
    assert!(
        e.message().contains("GCG line 4: an exchange of 9999999999 tiles from a rack of 7"),
        "{}",
        e.message()
    );
    // Rack points for an end the game has not reached: refused, naming the line (issue 72).
    let e = g
        .import_gcg(pb::ImportGcgRequest { gcg: format!("{head}>b: (AEIRSTU) +8 8\n"), ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
    assert_eq!(
        e.message(),
        "gcg: GCG line 4: the record counts the racks at the end, but the game is not over: 81 tiles in the bag, racks of 7, 7"
    );
    // A time penalty no clock can give: reported, not counted.
    let r = g
        .import_gcg(pb::ImportGcgRequest {
            gcg: format!("{head}>a: (time) -99999 -99999\n"),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!r.ok);
    assert_eq!(r.mismatches.len(), 1);
    let m = &r.mismatches[0];
    assert_eq!((m.line, m.recorded_score, m.recomputed_score, m.recomputed_total), (4, -99999, 0, 32));
    let v = r.view.unwrap();
    assert_eq!(r.final_scores, v.seats.iter().map(|s| s.score).collect::<Vec<_>>());
    assert_eq!(r.final_scores, [32, 0]);
}

#[tokio::test]
async fn a_recorded_time_penalty_counts_in_the_game() {
    let srv = start().await;
    let mut g = srv.games().await;
    let text =
        std::fs::read_to_string(format!("{}/tests/data/gcg/issue_476.gcg", env!("CARGO_MANIFEST_DIR")))
            .unwrap();
    assert!(text.contains("(time) -10 422"));
    let r =
        g.import_gcg(pb::ImportGcgRequest { gcg: text, ..Default::default() }).await.unwrap().into_inner();
    assert!(r.ok, "{:?}", r.mismatches);
    let v = r.view.unwrap();
    assert_eq!(r.final_scores, v.seats.iter().map(|s| s.score).collect::<Vec<_>>());
}

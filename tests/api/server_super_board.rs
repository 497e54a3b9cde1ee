//! The 21×21 board over the API: Super English by name, a game against the strong bot to its
//! end on the board the view draws, a record replayed with a play only that board holds, and
//! the same play refused on the standard board with the notation's exact error.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use tonic::Code;

fn super_game(seats: Vec<pb::SeatSpec>, seed: u64) -> pb::CreateGameRequest {
    pb::CreateGameRequest {
        ruleset_name: "super-english".into(),
        ..create(pb::Ruleset::Unspecified, pb::ChallengeRule::Double, seats, seed)
    }
}

/// ListRulesets draws the board; a game starts on it with 200 tiles and plays to its end against
/// the strong bot, every view a 21×21 board.
#[tokio::test]
async fn super_english_is_played_to_the_end_against_the_strong_bot() {
    let srv = start().await;
    let (mut g, mut a, mut l) = (srv.games().await, srv.analysis().await, srv.lexicons().await);
    let all = l.list_rulesets(pb::ListRulesetsRequest {}).await.unwrap().into_inner().rulesets;
    let info = all.iter().find(|r| r.name == "super-english").unwrap();
    assert_eq!((info.board_size, info.start_row, info.start_col, info.blanks), (21, 10, 10, 4));
    assert_eq!((info.ruleset, info.alphabet.as_str(), info.default_lexicon.as_str()), (0, "en", "en"));
    assert_eq!(info.premiums.len(), 21);
    assert_eq!(info.premiums[0], "Q..d...T..d..T...d..Q");
    assert_eq!(info.premiums[2], "..D..q...D.D...q..D..");
    assert_eq!(info.tiles.iter().map(|t| t.count).sum::<u32>() + info.blanks, 200);

    let created = g
        .create_game(super_game(vec![human("ann"), bot(pb::BotLevel::Strong)], 7))
        .await
        .unwrap()
        .into_inner();
    let id = created.game_id.clone();
    let v = created.view.unwrap();
    assert_eq!(
        (v.ruleset, v.ruleset_name.as_str(), v.lexicon.as_str(), v.bag),
        (0, "super-english", "en", 200 - 14)
    );
    let board = v.board.unwrap();
    assert_eq!(board.rows, vec![".".repeat(21); 21]);
    assert_eq!(board.grid, vec![0; 441]);
    let mut turns = 0;
    let mut first = true;
    loop {
        srv.settled(&id).await;
        let v = view_of(&mut g, pb::GetGameRequest { game_id: id.clone() }).await;
        let board = v.board.as_ref().unwrap();
        assert_eq!((board.rows.len(), board.grid.len()), (21, 441));
        assert!(board.rows.iter().all(|r| r.len() == 21), "{:?}", board.rows);
        if v.over {
            break;
        }
        let token = &created.seat_tokens[0];
        assert_eq!(v.to_move, 0, "the bot has moved");
        let action = if v.awaiting_final_challenge {
            pb::submit_turn_request::Action::Pass(pb::Pass {})
        } else {
            match best_move(&mut a, &id, token).await {
                Some(m) => {
                    let play = m.play.unwrap();
                    if first && board.grid[10 * 21 + 10] == 0 {
                        // The first play covers the start square, 11K.
                        assert!(play.tiles.iter().any(|t| (t.row, t.col) == (10, 10)), "{play:?}");
                    }
                    pb::submit_turn_request::Action::Play(play)
                }
                None => pb::submit_turn_request::Action::Pass(pb::Pass {}),
            }
        };
        first = false;
        g.submit_turn(authed(turn(&id, v.turn, Some(action)), token)).await.unwrap();
        turns += 1;
        assert!(turns < 200, "the game does not end");
    }
    let v = view_of(&mut g, pb::GetGameRequest { game_id: id.clone() }).await;
    assert!(v.over);
    let on_board = v.board.unwrap().grid.iter().filter(|&&b| b != 0).count();
    assert!(on_board > 100, "{on_board} tiles: 200 make a long game");
    srv.stop().await;
}

/// Worked by hand: RETAINS from 11K, the start square (a double word), its I on 11O's double
/// letter: (7 + 1) × 2 + 50 = 66; then QUITS down column Q through its S, the I on Q9's triple
/// letter: 10 + 1 + 3 + 1 + 1 = 16. On the standard board RETAINS runs off at column P.
#[tokio::test]
async fn a_play_past_column_o_is_legal_on_21_by_21_and_refused_on_15_by_15() {
    let srv = start().await;
    let mut g = srv.games().await;
    let gcg = "#character-encoding UTF-8\n#player1 ana Ana\n#player2 bo Bo\n#lexicon en\n\
               >ana: AEINRST 11K RETAINS +66 66\n>bo: EIQSTUZ Q7 QUIT. +16 16\n";
    let r = g
        .import_gcg(pb::ImportGcgRequest {
            gcg: gcg.into(),
            ruleset_name: "super-english".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.mismatches, vec![]);
    let v = view_of(&mut g, pb::GetGameRequest { game_id: r.game_id.clone() }).await;
    assert_eq!(
        (v.ruleset_name.as_str(), v.seats.iter().map(|s| s.score).collect::<Vec<_>>()),
        ("super-english", vec![66, 16])
    );
    let board = v.board.unwrap();
    assert_eq!(board.rows[10], "..........RETAINS....");
    assert_eq!(board.rows[6], "................Q....");
    let back = g.export_gcg(pb::ExportGcgRequest { game_id: r.game_id }).await.unwrap().into_inner().gcg;
    assert!(back.contains("Q7 QUIT. +16 16"), "{back}");

    // The standard board: the same record is refused where the play runs off it, and the play
    // as notation is refused with the notation's error.
    let english = g
        .import_gcg(pb::ImportGcgRequest {
            gcg: gcg.into(),
            ruleset: pb::Ruleset::English as i32,
            ..Default::default()
        })
        .await;
    assert_eq!(code(english), Code::InvalidArgument);
    let c = two_humans(&mut g, 3).await;
    let refused = g
        .submit_turn(authed(turn(&c.game_id, 0, play_action("11K RETAINS")), &c.seat_tokens[0]))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert_eq!(refused.message(), "play.notation: the play runs off the board");
    let refused = g
        .submit_turn(authed(turn(&c.game_id, 0, play_action("8P AT")), &c.seat_tokens[0]))
        .await
        .unwrap_err();
    assert!(refused.message().contains("rows 1-15, columns A-O"), "{}", refused.message());
    srv.stop().await;
}

/// A live Super English game in the SQLite store is recovered by the next server on the same
/// data directory: its 21×21 board, scores and racks as they were, and it plays on.
#[tokio::test]
async fn a_live_super_english_game_is_recovered_from_the_store() {
    let dir = TempDir::new("super-store");
    let (srv, _) = start_stored(&dir.0).await;
    let (mut g, mut a) = (srv.games().await, srv.analysis().await);
    let created = g.create_game(super_game(vec![human("ann"), human("bo")], 11)).await.unwrap().into_inner();
    let id = created.game_id.clone();
    for seat in 0..2 {
        let token = &created.seat_tokens[seat];
        let best = best_move(&mut a, &id, token).await.expect("a play");
        g.submit_turn(authed(
            turn(&id, seat as u32, Some(pb::submit_turn_request::Action::Play(best.play.unwrap()))),
            token,
        ))
        .await
        .unwrap();
    }
    let before =
        view_of(&mut g, authed(pb::GetGameRequest { game_id: id.clone() }, &created.seat_tokens[0])).await;
    srv.stop().await;

    let (srv, report) = start_stored(&dir.0).await;
    assert_eq!((report.loaded, report.quarantined.len()), (1, 0), "{report:?}");
    let (mut g, mut a) = (srv.games().await, srv.analysis().await);
    let after =
        view_of(&mut g, authed(pb::GetGameRequest { game_id: id.clone() }, &created.seat_tokens[0])).await;
    assert_eq!(after.board, before.board);
    assert_eq!(after.board.as_ref().unwrap().rows.len(), 21);
    assert_eq!(
        (after.turn, &after.my_rack, after.ruleset_name.as_str()),
        (2, &before.my_rack, "super-english")
    );
    assert_eq!(
        after.seats.iter().map(|s| s.score).collect::<Vec<_>>(),
        before.seats.iter().map(|s| s.score).collect::<Vec<_>>()
    );
    let token = &created.seat_tokens[0];
    let best = best_move(&mut a, &id, token).await.expect("a play");
    g.submit_turn(authed(
        turn(&id, 2, Some(pb::submit_turn_request::Action::Play(best.play.unwrap()))),
        token,
    ))
    .await
    .unwrap();
    srv.stop().await;
}

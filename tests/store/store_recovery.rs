//! Games kept in the SQLite store come back after a restart exactly as they were: same views,
//! tokens still valid, repeated request ids answered with their first result, and the games
//! playable to their end. A game whose log cannot be replayed is quarantined by id, and the
//! others still load.

use crate::common;

use common::server::*;
use dawgref::host::Residence;
use dawgref::proto::v1 as pb;
use dawgref::store::record::GameRecord;
use prost::Message;
use tonic::Code;

async fn view(
    g: &mut pb::games_service_client::GamesServiceClient<tonic::transport::Channel>,
    id: &str,
    token: &str,
) -> pb::GameView {
    view_of(g, authed(pb::GetGameRequest { game_id: id.into() }, token)).await
}

/// Play `n` turns of the best move (or pass) for whoever is to move in a two-person game.
async fn play_turns(srv: &TestServer, game: &pb::CreateGameResponse, n: usize) {
    let (mut g, mut a) = (srv.games().await, srv.analysis().await);
    for _ in 0..n {
        let v = view(&mut g, &game.game_id, &game.seat_tokens[0]).await;
        if v.over {
            return;
        }
        let token = &game.seat_tokens[v.to_move as usize];
        let best =
            if v.awaiting_final_challenge { None } else { best_move(&mut a, &game.game_id, token).await };
        let action = match best {
            Some(m) => Some(pb::submit_turn_request::Action::Play(m.play.unwrap())),
            None => Some(pb::submit_turn_request::Action::Pass(pb::Pass {})),
        };
        let r = g.submit_turn(authed(turn(&game.game_id, v.turn, action), token)).await.unwrap();
        if r.into_inner().view.unwrap().over {
            return;
        }
    }
}

#[tokio::test]
async fn games_come_back_after_a_restart() {
    let dir = TempDir::new("recovery");
    let (srv, report) = start_stored(&dir.0).await;
    assert_eq!((report.loaded, report.quarantined.len()), (0, 0));
    let mut g = srv.games().await;
    let people = two_humans(&mut g, 7).await;
    let vs_bot = g
        .create_game(create(
            pb::Ruleset::Russian,
            pb::ChallengeRule::Double,
            vec![human("ann"), bot(pb::BotLevel::Greedy)],
            11,
        ))
        .await
        .unwrap()
        .into_inner();
    play_turns(&srv, &people, 5).await;
    // One turn against the bot, sent with an idempotency key.
    let mut a = srv.analysis().await;
    let v = view(&mut g, &vs_bot.game_id, &vs_bot.seat_tokens[0]).await;
    let m = best_move(&mut a, &vs_bot.game_id, &vs_bot.seat_tokens[0]).await.expect("a play");
    let mut keyed =
        turn(&vs_bot.game_id, v.turn, Some(pb::submit_turn_request::Action::Play(m.play.unwrap())));
    keyed.request_id = "turn-1".into();
    let first = g.submit_turn(authed(keyed.clone(), &vs_bot.seat_tokens[0])).await.unwrap().into_inner();
    srv.settled(&vs_bot.game_id).await;
    let before = [
        view(&mut g, &people.game_id, &people.seat_tokens[0]).await,
        view(&mut g, &people.game_id, &people.seat_tokens[1]).await,
        view(&mut g, &vs_bot.game_id, &vs_bot.seat_tokens[0]).await,
    ];
    assert_eq!(before[0].turn, 5);
    assert_eq!(before[2].turn, 2, "the bot has answered (a log row of its own)");
    srv.stop().await;

    let (srv, report) = start_stored(&dir.0).await;
    assert_eq!((report.loaded, report.quarantined.len()), (2, 0));
    let mut g = srv.games().await;
    let after = [
        view(&mut g, &people.game_id, &people.seat_tokens[0]).await,
        view(&mut g, &people.game_id, &people.seat_tokens[1]).await,
        view(&mut g, &vs_bot.game_id, &vs_bot.seat_tokens[0]).await,
    ];
    assert_eq!(after, before, "views (racks, board, scores, turn) are exactly as before the restart");
    // The repeated key gets its first answer, not a second turn.
    let again = g.submit_turn(authed(keyed, &vs_bot.seat_tokens[0])).await.unwrap().into_inner();
    assert_eq!(again, first);
    assert_eq!(view(&mut g, &vs_bot.game_id, &vs_bot.seat_tokens[0]).await.turn, 2);
    // A token that was never issued is still refused; the issued ones still work.
    let wrong =
        g.get_game(authed(pb::GetGameRequest { game_id: people.game_id.clone() }, &"0".repeat(32))).await;
    assert_eq!(code(wrong), Code::Unauthenticated);
    play_turns(&srv, &people, 500).await;
    let uuid = uuid::Uuid::parse_str(&people.game_id).unwrap();
    assert!(srv.handle.host().residence(&uuid) != Residence::Live, "a finished game leaves memory");
    let end = view(&mut g, &people.game_id, &people.seat_tokens[0]).await;
    assert!(end.over, "the recovered game plays to its end");
    assert!(srv.handle.host().residence(&uuid) != Residence::Live, "and is read without being held again");
    srv.stop().await;

    // Finished games are not loaded at start, but are there when asked for.
    let (srv, report) = start_stored(&dir.0).await;
    assert_eq!(report.loaded, 1, "only the unfinished game is loaded");
    let mut g = srv.games().await;
    assert_eq!(view(&mut g, &people.game_id, &people.seat_tokens[0]).await, end);
    let gcg =
        g.export_gcg(pb::ExportGcgRequest { game_id: people.game_id.clone() }).await.unwrap().into_inner();
    assert!(gcg.gcg.contains("#player1 a"), "{}", gcg.gcg);
}

fn db(dir: &std::path::Path) -> rusqlite::Connection {
    rusqlite::Connection::open(dir.join(dawgref::store::sqlite::FILE_NAME)).unwrap()
}

#[tokio::test]
async fn a_log_that_cannot_be_replayed_is_quarantined_and_the_others_load() {
    let dir = TempDir::new("quarantine");
    let (srv, _) = start_stored(&dir.0).await;
    let mut g = srv.games().await;
    let corrupt = two_humans(&mut g, 1).await;
    let changed = two_humans(&mut g, 2).await;
    let healthy = two_humans(&mut g, 3).await;
    for game in [&corrupt, &changed, &healthy] {
        play_turns(&srv, game, 3).await;
    }
    srv.stop().await;

    let uuid = |id: &str| uuid::Uuid::parse_str(id).unwrap();
    let conn = db(&dir.0);
    // A row of garbage in one game's log ...
    conn.execute(
        "UPDATE log SET body = x'ffffffff' WHERE game = ?1 AND seq = 2",
        [uuid(&corrupt.game_id).as_bytes().as_slice()],
    )
    .unwrap();
    // ... and another game recorded against a different word list.
    let record: Vec<u8> = conn
        .query_row(
            "SELECT record FROM games WHERE id = ?1",
            [uuid(&changed.game_id).as_bytes().as_slice()],
            |r| r.get(0),
        )
        .unwrap();
    let mut record = GameRecord::decode(record.as_slice()).unwrap();
    record.lexicon_checksum ^= 1;
    conn.execute(
        "UPDATE games SET record = ?2 WHERE id = ?1",
        (uuid(&changed.game_id).as_bytes().as_slice(), record.encode_to_vec()),
    )
    .unwrap();
    drop(conn);

    let (srv, report) = start_stored(&dir.0).await;
    assert_eq!(report.loaded, 1);
    assert_eq!(srv.handle.metrics().quarantined.get(), 2, "the metric counts them");
    let mut quarantined = report.quarantined.clone();
    quarantined.sort_by_key(|(id, _)| *id == uuid(&changed.game_id));
    assert_eq!(quarantined.len(), 2);
    assert_eq!(quarantined[0].0, uuid(&corrupt.game_id));
    assert!(quarantined[0].1.starts_with("log row 2: unreadable log row"), "{}", quarantined[0].1);
    assert_eq!(quarantined[1].0, uuid(&changed.game_id));
    assert!(quarantined[1].1.contains("lexicon en changed since the game began"), "{}", quarantined[1].1);
    let mut g = srv.games().await;
    for game in [&corrupt, &changed] {
        let status = g.get_game(pb::GetGameRequest { game_id: game.game_id.clone() }).await.unwrap_err();
        assert_eq!(status.code(), Code::FailedPrecondition);
        assert!(status.message().contains("quarantined"), "{}", status.message());
    }
    assert_eq!(view(&mut g, &healthy.game_id, &healthy.seat_tokens[0]).await.turn, 3);
    srv.stop().await;

    // The quarantine is remembered: the next start does not try them again.
    let (_srv, report) = start_stored(&dir.0).await;
    assert_eq!((report.loaded, report.quarantined.len()), (1, 0));
    let reasons: Vec<String> = db(&dir.0)
        .prepare("SELECT quarantined FROM games WHERE quarantined IS NOT NULL")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(reasons.len(), 2);
}

#[tokio::test]
async fn joins_and_clock_readings_survive_a_restart() {
    let dir = TempDir::new("join");
    let (srv, _) = start_stored(&dir.0).await;
    let mut g = srv.games().await;
    let open = pb::SeatSpec {
        kind: Some(pb::seat_spec::Kind::Human(pb::HumanSeat { name: String::new(), open: true })),
        think_ms: None,
    };
    let mut req = create(pb::Ruleset::Erudit, pb::ChallengeRule::Single, vec![human("host"), open], 5);
    req.clock = Some(pb::ClockSpec {
        initial_ms: 600_000,
        increment_ms: 0,
        max_overtime_ms: 60_000,
        penalty_per_minute: 10,
        per_move_ms: 0,
    });
    let game = g.create_game(req).await.unwrap().into_inner();
    let joined = g
        .join_game(pb::JoinGameRequest { game_id: game.game_id.clone(), name: "guest".into() })
        .await
        .unwrap()
        .into_inner();
    let v = view(&mut g, &game.game_id, &game.seat_tokens[0]).await;
    g.submit_turn(authed(
        turn(&game.game_id, v.turn, Some(pb::submit_turn_request::Action::Pass(pb::Pass {}))),
        &game.seat_tokens[0],
    ))
    .await
    .unwrap();
    let before = view(&mut g, &game.game_id, &joined.token).await;
    srv.stop().await;

    let (srv, report) = start_stored(&dir.0).await;
    assert_eq!(report.loaded, 1);
    let mut g = srv.games().await;
    let after = view(&mut g, &game.game_id, &joined.token).await;
    assert_eq!(after.my_seat, Some(1), "the joined seat's token still works");
    assert_eq!(after.seats[1].name, "guest");
    assert_eq!((after.turn, after.to_move, &after.my_rack), (before.turn, before.to_move, &before.my_rack));
    // The clock resumes where the log left it: the host's pass took at most a moment, and the
    // downtime is nobody's.
    let left = after.seats[0].time_left_ms.unwrap();
    assert!((590_000..=600_000).contains(&left), "{left}");
    // The seat is taken: a second join finds no open seat.
    let again = g.join_game(pb::JoinGameRequest { game_id: game.game_id.clone(), name: "x".into() }).await;
    assert_eq!(code(again), Code::FailedPrecondition);
}

#[tokio::test]
async fn a_correspondence_flag_falls_on_the_calendar_across_a_restart() {
    let dir = TempDir::new("correspondence");
    let (srv, _) = start_stored(&dir.0).await;
    let mut g = srv.games().await;
    let mut request =
        create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("a"), human("b")], 4);
    request.clock = Some(pb::ClockSpec { per_move_ms: 3_600_000, ..Default::default() });
    let c = g.create_game(request).await.unwrap().into_inner();
    let v = view(&mut g, &c.game_id, &c.seat_tokens[0]).await;
    // The first move's clock runs from creation: a view a moment later has the hour, less that
    // moment (a millisecond on a slow machine).
    let left = v.seats[0].time_left_ms.unwrap();
    assert!((3_590_000..=3_600_000).contains(&left), "{left}");
    let wrong = pb::ClockSpec { per_move_ms: 60_000, ..Default::default() };
    let mut request =
        create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("a"), human("b")], 4);
    request.clock = Some(wrong);
    assert_eq!(g.create_game(request).await.unwrap_err().code(), Code::InvalidArgument);
    srv.stop().await;

    // The server is away for two hours: the game was created that long ago.
    let conn = db(&dir.0);
    let key = uuid::Uuid::parse_str(&c.game_id).unwrap();
    let record: Vec<u8> = conn
        .query_row("SELECT record FROM games WHERE id = ?1", [key.as_bytes().as_slice()], |r| r.get(0))
        .unwrap();
    let mut record = GameRecord::decode(record.as_slice()).unwrap();
    record.created_unix_ms -= 2 * 3_600_000;
    conn.execute(
        "UPDATE games SET record = ?2 WHERE id = ?1",
        (key.as_bytes().as_slice(), record.encode_to_vec()),
    )
    .unwrap();
    drop(conn);

    let (srv, _) = start_stored(&dir.0).await;
    let mut g = srv.games().await;
    // Seat 0's hour ran out while nobody served the game: it has lost on time.
    let mut over = view(&mut g, &c.game_id, &c.seat_tokens[0]).await;
    for _ in 0..100 {
        if over.over {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        over = view(&mut g, &c.game_id, &c.seat_tokens[0]).await;
    }
    assert!(over.over, "{over:?}");
    assert_eq!(over.winners, [1]);
    assert!(over.end_reason.contains("time"), "{}", over.end_reason);
    srv.stop().await;
}

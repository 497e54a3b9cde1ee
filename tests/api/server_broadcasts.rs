//! Broadcasts: a spectator sees a covered game only as it stood the delay ago, through every
//! door (GetGame, WatchGame, ExportGcg, the Analysis calls that name the game, WatchBroadcast);
//! its players and its director see it now; racks reach spectators only while the broadcast
//! reveals them and only through the delay; every call checked, scoped keys held to their own
//! games, broadcasts kept through a restart.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use dawgref::proto::v1::analysis_service_server::AnalysisService as _;
use dawgref::proto::v1::broadcasts_service_server::BroadcastsService as _;
use dawgref::proto::v1::games_service_server::GamesService as _;
use std::time::Duration;
use tokio::time::Instant;
use tokio_stream::StreamExt;
use tonic::{Code, Request};

const ROOT: &str = "broadcast-root";

fn open_labels() -> std::collections::HashMap<String, String> {
    [("tournament".to_string(), "open".to_string())].into()
}

/// A two-person English game of the `open` tournament.
fn open_game(seed: u64) -> pb::CreateGameRequest {
    let mut req =
        create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("Ann"), human("Bo")], seed);
    req.labels = open_labels();
    req
}

fn broadcast(slug: &str, delay_seconds: u32, reveal_racks: bool) -> pb::CreateBroadcastRequest {
    pb::CreateBroadcastRequest {
        slug: slug.into(),
        name: "The Open, live".into(),
        labels: open_labels(),
        delay_seconds,
        reveal_racks,
        ..Default::default()
    }
}

/// A server in this process, on the test's (paused) time, its games never put to sleep.
async fn paused_server() -> dawgref::server::Handle {
    let limits = dawgref::server::state::Limits { idle_after: None, ..Default::default() };
    lexicons_builder().limits(limits).director_token(ROOT).start().await.unwrap().0
}

fn get(id: &str) -> pb::GetGameRequest {
    pb::GetGameRequest { game_id: id.into() }
}

async fn view(handle: &dawgref::server::Handle, request: Request<pb::GetGameRequest>) -> pb::GameView {
    handle.games_service().get_game(request).await.unwrap().into_inner().view.unwrap()
}

/// GenerateMoves for the caller's best play in live game `id`.
fn best_of(id: &str) -> pb::GenerateMovesRequest {
    pb::GenerateMovesRequest {
        position: Some(pb::Position {
            source: Some(pb::position::Source::GameId(id.into())),
            lexicon: String::new(),
        }),
        limit: 1,
        ..Default::default()
    }
}

/// The caller's best play in a live game.
async fn best_play(handle: &dawgref::server::Handle, id: &str, token: &str) -> pb::Play {
    let req = best_of(id);
    let mut moves = handle.analysis_service().generate_moves(authed(req, token)).await.unwrap().into_inner();
    moves.next().await.unwrap().unwrap().play.unwrap()
}

fn gcg_moves(gcg: &str) -> usize {
    gcg.lines().filter(|l| l.starts_with('>')).count()
}

#[tokio::test(start_paused = true)]
async fn a_spectator_sees_a_broadcast_game_as_it_stood_the_delay_ago_through_every_door() {
    let handle = paused_server().await;
    let games = handle.games_service();
    let c = games.create_game(authed(open_game(5), ROOT)).await.unwrap().into_inner();
    let (id, tokens) = (c.game_id.clone(), c.seat_tokens.clone());
    handle
        .broadcasts_service()
        .create_broadcast(authed(broadcast("open-live", 60, false), ROOT))
        .await
        .unwrap();
    // Made less than the delay ago, the game is no game to a spectator yet, at every door (who
    // plays it may come from results still held back); its players and director see it.
    let no_game = format!("no game {id}");
    let refused = games.get_game(Request::new(get(&id))).await.unwrap_err();
    assert_eq!((refused.code(), refused.message()), (Code::NotFound, no_game.as_str()));
    let gcg = pb::ExportGcgRequest { game_id: id.clone() };
    let refused = games.export_gcg(Request::new(gcg)).await.unwrap_err();
    assert_eq!((refused.code(), refused.message()), (Code::NotFound, no_game.as_str()));
    let watch = pb::WatchGameRequest { game_id: id.clone(), from_event: 0 };
    let refused = games.watch_game(Request::new(watch)).await.err().unwrap();
    assert_eq!((refused.code(), refused.message()), (Code::NotFound, no_game.as_str()));
    view(&handle, authed(get(&id), &tokens[1])).await;
    tokio::time::sleep(Duration::from_secs(60)).await;
    let mut watch = games
        .watch_game(Request::new(pb::WatchGameRequest { game_id: id.clone(), from_event: 0 }))
        .await
        .unwrap()
        .into_inner();
    let play = best_play(&handle, &id, &tokens[0]).await;
    let played_at = Instant::now();
    games
        .submit_turn(authed(turn(&id, 0, Some(pb::submit_turn_request::Action::Play(play))), &tokens[0]))
        .await
        .unwrap();

    // The spectator: the game as it stood before the play. Its players and its director: now.
    let spectator = view(&handle, Request::new(get(&id))).await;
    assert_eq!((spectator.turn, spectator.events, spectator.to_move), (0, 0, 0));
    assert!(spectator.board.unwrap().rows.iter().all(|r| r.chars().all(|c| c == '.')));
    for token in [tokens[0].as_str(), tokens[1].as_str(), ROOT] {
        let v = view(&handle, authed(get(&id), token)).await;
        assert_eq!((v.turn, v.events, v.to_move), (1, 1, 1), "{token}");
    }
    let gcg = |request| async { games.export_gcg(request).await.unwrap().into_inner().gcg };
    let request = |token: Option<&str>| {
        let r = pb::ExportGcgRequest { game_id: id.clone() };
        token.map_or_else(|| Request::new(r.clone()), |t| authed(r.clone(), t))
    };
    assert_eq!(gcg_moves(&gcg(request(None)).await), 0, "the spectator's record: no move yet");
    assert_eq!(gcg_moves(&gcg(request(Some(ROOT))).await), 1);
    assert_eq!(gcg_moves(&gcg(request(Some(&tokens[1]))).await), 1);
    // The Analysis calls that name the game see what the spectator sees.
    let infer = |token: Option<&str>| {
        let r = pb::InferRackRequest { game_id: id.clone(), turn: 0, budget_ms: 50, ..Default::default() };
        let r = token.map_or_else(|| Request::new(r.clone()), |t| authed(r.clone(), t));
        async { handle.analysis_service().infer_rack(r).await }
    };
    let refused = infer(None).await.unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert_eq!(refused.message(), "turn 0 has not been taken: the game has taken 0");

    // WatchGame: the play comes once the delay has passed, not a moment before. (Paused time
    // jumps while a call waits for the thinking threads: the director's InferRack comes after.)
    let almost = played_at + Duration::from_millis(59_999);
    assert!(tokio::time::timeout_at(almost, watch.next()).await.is_err(), "nothing before the delay");
    let e = watch.next().await.unwrap().unwrap();
    assert_eq!((e.number, e.kind.as_str(), e.rack.as_str()), (0, "play", ""));
    assert!(played_at.elapsed() >= Duration::from_secs(60), "shown after {:?}", played_at.elapsed());
    let spectator = view(&handle, Request::new(get(&id))).await;
    let director = view(&handle, authed(get(&id), ROOT)).await;
    assert_eq!((spectator.turn, spectator.events), (1, 1));
    assert_eq!(spectator.board, director.board);
    assert_eq!(gcg_moves(&gcg(request(None)).await), 1);
    infer(None).await.unwrap();
    infer(Some(ROOT)).await.unwrap();

    // Ended, the broadcast holds nothing back.
    handle
        .broadcasts_service()
        .end_broadcast(authed(pb::EndBroadcastRequest { slug: "open-live".into() }, ROOT))
        .await
        .unwrap();
    games
        .submit_turn(authed(
            turn(&id, 1, Some(pb::submit_turn_request::Action::Pass(pb::Pass {}))),
            &tokens[1],
        ))
        .await
        .unwrap();
    assert_eq!(view(&handle, Request::new(get(&id))).await.turn, 2);
}

/// The next message of a broadcast stream.
async fn next(stream: &mut dawgref::server::broadcasts::BroadcastStream) -> pb::WatchBroadcastResponse {
    stream.next().await.expect("the stream is open").expect("no error")
}

#[tokio::test(start_paused = true)]
async fn watch_broadcast_holds_each_event_back_and_shows_racks_only_while_revealed() {
    let handle = paused_server().await;
    let (games, broadcasts) = (handle.games_service(), handle.broadcasts_service());
    let c = games.create_game(authed(open_game(8), ROOT)).await.unwrap().into_inner();
    let (id, tokens) = (c.game_id.clone(), c.seat_tokens.clone());
    broadcasts.create_broadcast(authed(broadcast("open-racks", 30, true), ROOT)).await.unwrap();
    // Made less than the delay ago, the game is no game to a spectator yet: its board's stream
    // is refused until the delay has passed since it was made.
    let early = pb::WatchBroadcastRequest { slug: "open-racks".into(), game_id: id.clone() };
    assert_eq!(broadcasts.watch_broadcast(Request::new(early)).await.err().unwrap().code(), Code::NotFound);
    tokio::time::sleep(Duration::from_secs(30)).await;
    let watch = |game_id: &str| {
        let r = pb::WatchBroadcastRequest { slug: "open-racks".into(), game_id: game_id.into() };
        async { broadcasts.watch_broadcast(Request::new(r)).await.unwrap().into_inner() }
    };
    let mut all = watch("").await;
    let mut one = watch(&id).await;
    // First, each game as it stands (nothing played).
    for stream in [&mut all, &mut one] {
        let first = next(stream).await;
        assert_eq!(first.game_id, id);
        let Some(pb::watch_broadcast_response::Item::Game(v)) = &first.item else { panic!("{first:?}") };
        assert_eq!((v.turn, v.events, v.my_rack.as_str()), (0, 0, ""));
        let mut racks = Vec::new();
        for token in &tokens {
            racks.push(view(&handle, authed(get(&id), token)).await.my_rack);
        }
        assert_eq!(first.racks, racks, "revealed: every rack");
    }
    // Ann exchanges two tiles; Bo's token never learns which, his stream never has her rack.
    let ann = view(&handle, authed(get(&id), &tokens[0])).await.my_rack;
    let swapped: String = ann.chars().take(2).collect();
    let exchanged_at = Instant::now();
    games
        .submit_turn(authed(
            turn(&id, 0, Some(pb::submit_turn_request::Action::Exchange(swapped.clone()))),
            &tokens[0],
        ))
        .await
        .unwrap();
    let mut bo = games
        .watch_game(authed(pb::WatchGameRequest { game_id: id.clone(), from_event: 0 }, &tokens[1]))
        .await
        .unwrap()
        .into_inner();
    let heard = bo.next().await.unwrap().unwrap();
    assert_eq!(
        (heard.kind.as_str(), heard.rack.as_str(), heard.tiles.as_str(), heard.tile_count),
        ("exchange", "", "", 2)
    );
    assert!(exchanged_at.elapsed() < Duration::from_secs(1), "a player's own game is never held back");

    for stream in [&mut all, &mut one] {
        let m = next(stream).await;
        assert!(
            exchanged_at.elapsed() >= Duration::from_secs(30),
            "shown after {:?}",
            exchanged_at.elapsed()
        );
        let Some(pb::watch_broadcast_response::Item::Event(e)) = m.item else { panic!("{m:?}") };
        assert_eq!(
            (e.kind.as_str(), e.seat, e.rack.as_str(), e.tiles.as_str()),
            ("exchange", 0, ann.as_str(), swapped.as_str())
        );
        assert!(m.happened_unix_ms > 0);
    }
    // Racks turned off: the next event carries none.
    broadcasts
        .update_broadcast(authed(
            pb::UpdateBroadcastRequest {
                slug: "open-racks".into(),
                reveal_racks: Some(false),
                ..Default::default()
            },
            ROOT,
        ))
        .await
        .unwrap();
    games
        .submit_turn(authed(
            turn(&id, 1, Some(pb::submit_turn_request::Action::Pass(pb::Pass {}))),
            &tokens[1],
        ))
        .await
        .unwrap();
    let m = next(&mut all).await;
    let Some(pb::watch_broadcast_response::Item::Event(e)) = &m.item else { panic!("{m:?}") };
    assert_eq!((e.kind.as_str(), e.seat, e.rack.as_str(), m.racks.len()), ("pass", 1, "", 0));
    // Ended: the streams end.
    broadcasts
        .end_broadcast(authed(pb::EndBroadcastRequest { slug: "open-racks".into() }, ROOT))
        .await
        .unwrap();
    assert!(all.next().await.is_none());
    let rest: Vec<_> = one.collect().await;
    assert_eq!(rest.len(), 1, "the pass, then the end: {rest:?}");
    // Watched after its end: nothing, the stream ends at once (the feed is gone with its log).
    for game_id in ["", id.as_str()] {
        let late: Vec<_> = watch(game_id).await.collect().await;
        assert!(late.is_empty(), "{game_id:?}: {late:?}");
    }
}

#[tokio::test]
async fn every_broadcast_call_is_checked_and_a_key_reaches_only_its_own_games() {
    let srv = start_directed(ROOT).await;
    let mut b = srv.broadcasts().await;
    let mut d = srv.directors().await;
    let key = |name: &str, tournament: &str| pb::CreateDirectorKeyRequest {
        name: name.into(),
        labels: [("tournament".to_string(), tournament.to_string())].into(),
    };
    let open_key =
        d.create_director_key(authed(key("open-td", "open"), ROOT)).await.unwrap().into_inner().token;
    let other_key =
        d.create_director_key(authed(key("club-td", "club"), ROOT)).await.unwrap().into_inner().token;

    let refused = |r: Result<tonic::Response<pb::CreateBroadcastResponse>, tonic::Status>| {
        let s = r.unwrap_err();
        (s.code(), s.message().to_string())
    };
    assert_eq!(refused(b.create_broadcast(broadcast("open-live", 60, false)).await).0, Code::Unauthenticated);
    assert_eq!(
        refused(b.create_broadcast(authed(broadcast("open-live", 60, false), &other_key)).await),
        (
            Code::PermissionDenied,
            "director key \"club-td\" directs only the games labelled tournament=club".into()
        )
    );
    let mut bad = broadcast("..", 60, false);
    assert_eq!(refused(b.create_broadcast(authed(bad.clone(), ROOT)).await).0, Code::InvalidArgument);
    bad = broadcast("open-live", 3601, false);
    let (code, message) = refused(b.create_broadcast(authed(bad, ROOT)).await);
    assert_eq!(
        (code, message.as_str()),
        (Code::InvalidArgument, "delay_seconds: 3601: a delay is 0 to 3600 seconds")
    );
    bad = broadcast("open-live", 60, false);
    bad.labels.clear();
    assert_eq!(refused(b.create_broadcast(authed(bad, ROOT)).await).0, Code::InvalidArgument);
    bad = broadcast("open-live", 60, false);
    bad.analysis_ms = 50;
    let (code, message) = refused(b.create_broadcast(authed(bad, ROOT)).await);
    assert_eq!(
        (code, message.as_str()),
        (Code::InvalidArgument, "analysis_ms: 50: the engine's time per move is 100 to 30000 ms (0: 2000)")
    );
    bad = broadcast("open-live", 60, false);
    bad.name = String::new();
    assert_eq!(refused(b.create_broadcast(authed(bad, ROOT)).await).0, Code::InvalidArgument);

    // The open's key may broadcast the open, and one round of it.
    let made =
        b.create_broadcast(authed(broadcast("open-live", 60, false), &open_key)).await.unwrap().into_inner();
    let made = made.broadcast.unwrap();
    assert_eq!(
        (made.slug.as_str(), made.delay_seconds, made.reveal_racks, made.ended_unix_ms),
        ("open-live", 60, false, 0)
    );
    assert!(made.created_unix_ms > 0);
    let mut round = broadcast("open-r3", 0, true);
    round.labels.insert("round".into(), "3".into());
    b.create_broadcast(authed(round, &open_key)).await.unwrap();
    assert_eq!(
        refused(b.create_broadcast(authed(broadcast("open-live", 10, false), ROOT)).await).0,
        Code::AlreadyExists
    );

    // Another tournament's key can neither change nor end it.
    let update = |token: &str, delay: u32| {
        authed(
            pb::UpdateBroadcastRequest {
                slug: "open-live".into(),
                delay_seconds: Some(delay),
                ..Default::default()
            },
            token,
        )
    };
    assert_eq!(b.update_broadcast(update(&other_key, 0)).await.unwrap_err().code(), Code::PermissionDenied);
    let end = |token: &str, slug: &str| authed(pb::EndBroadcastRequest { slug: slug.into() }, token);
    assert_eq!(
        b.end_broadcast(end(&other_key, "open-live")).await.unwrap_err().code(),
        Code::PermissionDenied
    );
    assert_eq!(b.update_broadcast(update(&open_key, 3601)).await.unwrap_err().code(), Code::InvalidArgument);
    let changed = b.update_broadcast(update(&open_key, 120)).await.unwrap().into_inner().broadcast.unwrap();
    assert_eq!((changed.delay_seconds, changed.name.as_str()), (120, "The Open, live"));
    assert_eq!(b.end_broadcast(end(ROOT, "nowhere")).await.unwrap_err().code(), Code::NotFound);
    let ended = b.end_broadcast(end(&open_key, "open-live")).await.unwrap().into_inner().broadcast.unwrap();
    assert!(ended.ended_unix_ms >= ended.created_unix_ms);
    // Ended twice: answered as it is; changed after: refused.
    let again = b.end_broadcast(end(ROOT, "open-live")).await.unwrap().into_inner().broadcast.unwrap();
    assert_eq!(again, ended);
    let late = b.update_broadcast(update(ROOT, 5)).await.unwrap_err();
    assert_eq!(
        (late.code(), late.message()),
        (Code::FailedPrecondition, "broadcast \"open-live\" has ended")
    );

    let got =
        b.get_broadcast(pb::GetBroadcastRequest { slug: "open-live".into() }).await.unwrap().into_inner();
    assert_eq!(got.broadcast.unwrap(), ended);
    assert_eq!(
        b.get_broadcast(pb::GetBroadcastRequest { slug: "nope".into() }).await.unwrap_err().code(),
        Code::NotFound
    );
    let listed = b.list_broadcasts(pb::ListBroadcastsRequest {}).await.unwrap().into_inner().broadcasts;
    assert_eq!(listed.iter().map(|b| b.slug.as_str()).collect::<Vec<_>>(), vec!["open-live", "open-r3"]);
    let watched = b
        .watch_broadcast(pb::WatchBroadcastRequest { slug: "open-live".into(), game_id: "not-a-game".into() })
        .await
        .unwrap_err();
    assert_eq!(watched.code(), Code::InvalidArgument);
    srv.stop().await;
}

#[tokio::test]
async fn a_broadcast_is_kept_through_a_restart_and_holds_its_games_back_at_once() {
    let dir = TempDir::new("broadcast-restart");
    let (srv, _) = start_stored_directed(&dir.0, ROOT).await;
    let mut g = srv.games().await;
    let c = g.create_game(authed(open_game(3), ROOT)).await.unwrap().into_inner();
    let mut b = srv.broadcasts().await;
    let made =
        b.create_broadcast(authed(broadcast("open-live", 3600, true), ROOT)).await.unwrap().into_inner();
    let pass = Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    g.submit_turn(authed(turn(&c.game_id, 0, pass), &c.seat_tokens[0])).await.unwrap();
    srv.stop().await;

    let (srv, _) = start_stored_directed(&dir.0, ROOT).await;
    let mut b = srv.broadcasts().await;
    let got =
        b.get_broadcast(pb::GetBroadcastRequest { slug: "open-live".into() }).await.unwrap().into_inner();
    assert_eq!(got.broadcast, made.broadcast);
    let mut g = srv.games().await;
    // Made less than the hour ago: no game to a spectator yet, its pass neither.
    let spectator = g.get_game(pb::GetGameRequest { game_id: c.game_id.clone() }).await.unwrap_err();
    assert_eq!((spectator.code(), spectator.message()), (Code::NotFound, &*format!("no game {}", c.game_id)));
    let director = view_of(&mut g, authed(pb::GetGameRequest { game_id: c.game_id.clone() }, ROOT)).await;
    assert_eq!(director.turn, 1);
    srv.stop().await;
}

/// A finished game read back from the store (here after a restart) is held back from its end as
/// the calendar has it, not from when it was loaded: one that ended more than the delay ago is
/// shown ended at once; one that ended just before is still held until the delay has passed.
#[tokio::test]
async fn a_finished_game_read_back_is_held_back_from_its_end_not_from_its_loading() {
    let dir = TempDir::new("broadcast-ended-reload");
    let (srv, _) = start_stored_directed(&dir.0, ROOT).await;
    let mut g = srv.games().await;
    let mut b = srv.broadcasts().await;
    b.create_broadcast(authed(broadcast("open-live", 2, false), ROOT)).await.unwrap();
    let resign = || Some(pb::submit_turn_request::Action::Resign(pb::Resign {}));
    let spectator = |id: &str| pb::GetGameRequest { game_id: id.into() };
    let early = g.create_game(authed(open_game(5), ROOT)).await.unwrap().into_inner();
    g.submit_turn(authed(turn(&early.game_id, 0, resign()), &early.seat_tokens[0])).await.unwrap();
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert!(view_of(&mut g, spectator(&early.game_id)).await.over);
    let late = g.create_game(authed(open_game(6), ROOT)).await.unwrap().into_inner();
    // The end is stamped between the resignation's sending and its answer, to the calendar's
    // millisecond: shown no sooner than the delay after the sending, less that millisecond.
    let late_sent = std::time::Instant::now();
    g.submit_turn(authed(turn(&late.game_id, 0, resign()), &late.seat_tokens[0])).await.unwrap();
    let late_end = std::time::Instant::now();
    srv.stop().await;

    let (srv, _) = start_stored_directed(&dir.0, ROOT).await;
    let mut g = srv.games().await;
    assert!(view_of(&mut g, spectator(&early.game_id)).await.over, "ended more than the delay ago");
    loop {
        // (Made less than the delay ago, it is no game to a spectator: not over to them either.)
        let over =
            g.get_game(spectator(&late.game_id)).await.is_ok_and(|v| v.into_inner().view.unwrap().over);
        let since = late_end.elapsed();
        if over {
            let sent = late_sent.elapsed();
            assert!(sent >= Duration::from_millis(1_999), "shown {sent:?} after its resignation was sent");
            break;
        }
        assert!(since < Duration::from_secs(4), "still held {since:?} after its end");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    srv.stop().await;
}

#[tokio::test]
async fn over_a_socket_a_broadcast_event_arrives_no_sooner_than_its_delay() {
    let srv = start_directed(ROOT).await;
    let mut g = srv.games().await;
    let c = g.create_game(authed(open_game(4), ROOT)).await.unwrap().into_inner();
    let mut b = srv.broadcasts().await;
    b.create_broadcast(authed(broadcast("open-live", 1, false), ROOT)).await.unwrap();
    let mut stream = b
        .watch_broadcast(pb::WatchBroadcastRequest { slug: "open-live".into(), game_id: String::new() })
        .await
        .unwrap()
        .into_inner();
    let first = stream.message().await.unwrap().unwrap();
    assert!(matches!(first.item, Some(pb::watch_broadcast_response::Item::Game(_))));
    let passed_at = std::time::Instant::now();
    let pass = Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    g.submit_turn(authed(turn(&c.game_id, 0, pass), &c.seat_tokens[0])).await.unwrap();
    let m = stream.message().await.unwrap().unwrap();
    assert!(passed_at.elapsed() >= Duration::from_secs(1), "shown after {:?}", passed_at.elapsed());
    let Some(pb::watch_broadcast_response::Item::Event(e)) = m.item else { panic!("{m:?}") };
    assert_eq!((e.number, e.kind.as_str()), (0, "pass"));
    srv.stop().await;
}

#[tokio::test]
async fn each_move_is_judged_once_for_fifty_spectators_and_shown_with_its_move() {
    let srv = start_directed(ROOT).await;
    let mut g = srv.games().await;
    let mut a = srv.analysis().await;
    let c = g.create_game(authed(open_game(6), ROOT)).await.unwrap().into_inner();
    let (id, tokens) = (c.game_id.clone(), c.seat_tokens.clone());
    let mut b = srv.broadcasts().await;
    // A delay well past the budget: each judgement (a debug build's, on a busy machine) is ready
    // before its move is shown.
    let mut request = broadcast("open-live", 5, true);
    (request.analysis, request.analysis_ms) = (true, 150);
    let made = b.create_broadcast(authed(request, ROOT)).await.unwrap().into_inner().broadcast.unwrap();
    assert_eq!((made.analysis, made.analysis_ms), (true, 150));
    let mut streams = Vec::new();
    for _ in 0..50 {
        let r = pb::WatchBroadcastRequest { slug: "open-live".into(), game_id: String::new() };
        streams.push(b.watch_broadcast(r).await.unwrap().into_inner());
    }
    // Every stream has the game before the first move.
    for s in &mut streams {
        let first = s.message().await.unwrap().unwrap();
        assert!(matches!(first.item, Some(pb::watch_broadcast_response::Item::Game(_))), "{first:?}");
    }
    let play = best_move(&mut a, &id, &tokens[0]).await.unwrap().play.unwrap();
    g.submit_turn(authed(turn(&id, 0, Some(pb::submit_turn_request::Action::Play(play))), &tokens[0]))
        .await
        .unwrap();
    let pass = Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    g.submit_turn(authed(turn(&id, 1, pass), &tokens[1])).await.unwrap();

    // Each stream: the play, its analysis, the pass, its analysis — each analysis right after its
    // move (ready within the delay), the same on every stream.
    use pb::watch_broadcast_response::Item;
    let mut first: Option<Vec<pb::WatchBroadcastResponse>> = None;
    for s in &mut streams {
        let mut got = Vec::new();
        for _ in 0..4 {
            got.push(s.message().await.unwrap().unwrap());
        }
        let shape: Vec<String> = got
            .iter()
            .map(|m| match &m.item {
                Some(Item::Event(e)) => format!("{} {}", e.kind, e.number),
                Some(Item::Analysis(x)) => format!("analysis {} turn {}", x.event, x.turn),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(shape, ["play 0", "analysis 0 turn 0", "pass 1", "analysis 1 turn 1"]);
        match &first {
            None => first = Some(got),
            Some(f) => assert_eq!(&got, f, "every spectator is shown the same"),
        }
    }
    assert_eq!(srv.handle.metrics().broadcast_analyses.get(), 2, "judged once per move");
    let got = first.unwrap();
    let Some(Item::Analysis(played)) = &got[1].item else { unreachable!() };
    assert_eq!(played.win_percent.len(), 2);
    assert!((played.win_percent[0] + played.win_percent[1] - 100.0).abs() < 1e-6, "{played:?}");
    let review = played.review.as_ref().expect("racks revealed: the review");
    assert!(review.analysable && review.win_lost >= 0.0, "{review:?}");
    // The best move found and the move played: each play legal and scored as Evaluate scores it
    // on the analysis's own position; a best move that is no play (a short search under load may
    // find an exchange best) is an exchange or a pass.
    let (best, made) = (review.best.as_ref().unwrap(), review.played.as_ref().unwrap());
    assert!(made.play.is_some(), "Ann played: {made:?}");
    assert!(best.play.is_some() || !best.exchange.is_empty() || best.pass, "{best:?}");
    for m in [best, made].into_iter().filter(|m| m.play.is_some()) {
        let position = pb::Position {
            source: Some(pb::position::Source::Cgp(review.position.clone())),
            lexicon: String::new(),
        };
        let evaluated = a
            .evaluate(pb::EvaluateRequest { position: Some(position), play: m.play.clone() })
            .await
            .unwrap()
            .into_inner()
            .evaluation
            .unwrap();
        assert_eq!(evaluated.total, m.score, "{m:?}");
    }
    // Racks hidden: the public chance only, no review.
    b.update_broadcast(authed(
        pb::UpdateBroadcastRequest {
            slug: "open-live".into(),
            reveal_racks: Some(false),
            ..Default::default()
        },
        ROOT,
    ))
    .await
    .unwrap();
    let pass = Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    g.submit_turn(authed(turn(&id, 2, pass), &tokens[0])).await.unwrap();
    let s = &mut streams[0];
    let e = s.message().await.unwrap().unwrap();
    assert!(matches!(e.item, Some(Item::Event(_))), "{e:?}");
    let m = s.message().await.unwrap().unwrap();
    let Some(Item::Analysis(hidden)) = m.item else { panic!("{m:?}") };
    assert_eq!((hidden.turn, hidden.review.is_none(), hidden.win_percent.len()), (2, true, 2));
    srv.stop().await;
}

/// A client that marks its WatchBroadcast as a replica's (the replicas' header, without their
/// secret) is answered as a spectator: one form of each message, no racks the broadcast hides.
#[tokio::test]
async fn a_client_passing_for_a_replica_gets_no_racks() {
    let srv = start_directed(ROOT).await;
    let mut g = srv.games().await;
    let c = g.create_game(authed(open_game(8), ROOT)).await.unwrap().into_inner();
    let mut b = srv.broadcasts().await;
    b.create_broadcast(authed(broadcast("open-live", 0, false), ROOT)).await.unwrap();
    let mut forged =
        Request::new(pb::WatchBroadcastRequest { slug: "open-live".into(), game_id: c.game_id.clone() });
    forged.metadata_mut().insert("x-dawgref-forwarded", "127.0.0.1:1".parse().unwrap());
    forged.metadata_mut().insert("x-dawgref-forwarded-proof", "guess".parse().unwrap());
    let mut stream = b.watch_broadcast(forged).await.unwrap().into_inner();
    let pass = Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    g.submit_turn(authed(turn(&c.game_id, 0, pass), &c.seat_tokens[0])).await.unwrap();
    use pb::watch_broadcast_response::Item;
    let shape = |m: &pb::WatchBroadcastResponse| match &m.item {
        Some(Item::Game(_)) => ("game".to_string(), m.racks.len()),
        Some(Item::Event(e)) => (e.kind.clone(), m.racks.len()),
        other => (format!("{other:?}"), m.racks.len()),
    };
    let first = stream.message().await.unwrap().unwrap();
    let second = stream.message().await.unwrap().unwrap();
    assert_eq!([shape(&first), shape(&second)], [("game".to_string(), 0), ("pass".to_string(), 0)]);
    srv.stop().await;
}

/// The Open (Ann Lee and Bo Ray, one round) broadcast as `open-live` with `delay_seconds`, its
/// round started: the tournaments client, what CreateTournament answered, and the round's pairing.
async fn open_round_broadcast(
    srv: &TestServer,
    delay_seconds: u32,
) -> (
    pb::tournaments_service_client::TournamentsServiceClient<tonic::transport::Channel>,
    pb::CreateTournamentResponse,
    pb::TournamentPairing,
) {
    use pb::tournaments_service_client::TournamentsServiceClient;
    let mut t = TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    let person = |name: &str| pb::TournamentPlayerSpec {
        bot_account: String::new(),
        name: name.into(),
        rating: 1500,
        bot: None,
        lifetime_games: None,
    };
    let create = pb::CreateTournamentRequest {
        allow_same_names: false,
        name: "The Open".into(),
        slug: "open".into(),
        game: None,
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players: vec![person("Ann Lee"), person("Bo Ray")],
            rounds: vec![pb::RoundSpec {
                method: pb::PairingMethod::RoundRobin as i32,
                ..Default::default()
            }],
            controls: None,
            result_reports: 0,
        }],
        seed: Some(3),
    };
    let made = t.create_tournament(authed(create, ROOT)).await.unwrap().into_inner();
    let mut b = srv.broadcasts().await;
    b.create_broadcast(authed(broadcast("open-live", delay_seconds, false), ROOT)).await.unwrap();
    let pair =
        pb::PairRoundRequest { slug: "open".into(), division: "a".into(), round: 1, ..Default::default() };
    t.pair_round(authed(pair, ROOT)).await.unwrap();
    let start =
        pb::StartRoundRequest { slug: "open".into(), division: "a".into(), round: 1, ..Default::default() };
    let line =
        t.start_round(authed(start, ROOT)).await.unwrap().into_inner().round.unwrap().pairings[0].clone();
    (t, made, line)
}

/// The director enters 412–388 for the Open's first pairing.
fn open_result() -> pb::RecordResultRequest {
    pb::RecordResultRequest {
        slug: "open".into(),
        division: "a".into(),
        round: 1,
        pairing: 1,
        result: Some(pb::record_result_request::Result::Scores(pb::FinalScores { first: 412, second: 388 })),
        correct: false,
        request_id: String::new(),
    }
}

/// A tournament's result reaches anyone but its directors and the game's players no sooner than
/// the broadcast's delay after it came in: GetTournament (the pairing and the standings),
/// ExportTsh and WatchTournament alike; and the broadcast brings the division's standings with it.
#[tokio::test]
async fn a_tournament_result_reaches_spectators_through_the_delay() {
    const DELAY_MS: u64 = 2000;
    let srv = start_directed(ROOT).await;
    let (mut t, made, line) = open_round_broadcast(&srv, (DELAY_MS / 1000) as u32).await;
    let mut b = srv.broadcasts().await;
    let mut anyone = t
        .watch_tournament(pb::WatchTournamentRequest { slug: "open".into(), from_event: 0 })
        .await
        .unwrap()
        .into_inner();
    let watch = pb::WatchBroadcastRequest { slug: "open-live".into(), game_id: String::new() };
    let mut spectator = b.watch_broadcast(watch).await.unwrap().into_inner();
    t.record_result(authed(open_result(), ROOT)).await.unwrap();

    let get = pb::GetTournamentRequest { slug: "open".into() };
    let seen = |r: tonic::Response<pb::GetTournamentResponse>| {
        let d = r.into_inner().tournament.unwrap().divisions.remove(0);
        let p = d.rounds[0].pairings[0].clone();
        let wins: f64 = d.standings.iter().map(|s| s.wins).sum();
        (p.done, p.scores, wins, p.game_id == line.game_id)
    };
    let none = (false, vec![], 0.0, true);
    let all = (true, vec![412, 388], 1.0, true);
    assert_eq!(seen(t.get_tournament(get.clone()).await.unwrap()), none, "a spectator: not yet");
    assert_eq!(seen(t.get_tournament(authed(get.clone(), ROOT)).await.unwrap()), all, "its director: now");
    let first = &made.player_tokens.iter().find(|p| p.player == line.first).unwrap().token;
    assert_eq!(seen(t.get_tournament(authed(get.clone(), first)).await.unwrap()), all, "its player: now");
    let tsh = pb::ExportTshRequest { slug: "open".into(), division: "a".into() };
    let text = |r: tonic::Response<pb::ExportTshResponse>| r.into_inner().text;
    assert!(!text(t.export_tsh(tsh.clone()).await.unwrap()).contains("412"));
    assert!(text(t.export_tsh(authed(tsh.clone(), ROOT)).await.unwrap()).contains("412"));

    // The stream: the result no sooner than the delay after it came in.
    let result = loop {
        let e = anyone.message().await.unwrap().unwrap();
        if e.kind == "result" {
            break e;
        }
    };
    let shown = dawgref::host::unix_ms();
    assert!(shown >= result.unix_ms + DELAY_MS, "shown {} ms after", shown - result.unix_ms);
    assert_eq!(seen(t.get_tournament(get).await.unwrap()), all, "past the delay: in");
    assert!(text(t.export_tsh(tsh).await.unwrap()).contains("412"));

    // The broadcast: the game's end, then the division's standings with its result, once, as of
    // the game's end, no sooner than the delay after the result came in.
    use pb::watch_broadcast_response::Item;
    let mut ended = None;
    let (standings, at) = loop {
        let m = spectator.message().await.unwrap().unwrap();
        assert_eq!(m.game_id, line.game_id);
        match m.item.unwrap() {
            Item::Event(e) if e.kind == "game_over" => ended = Some(m.happened_unix_ms),
            Item::Standings(s) => break (s, m.happened_unix_ms),
            _ => {}
        }
    };
    assert!(dawgref::host::unix_ms() >= result.unix_ms + DELAY_MS);
    assert_eq!(Some(at), ended, "as of the game's end, which came before it");
    let row = |player, wins, losses, spread| pb::DivisionStanding {
        rank: 0,
        player,
        wins,
        losses,
        spread,
        byes: 0,
        rating: 1500,
        estimate: None,
    };
    let ranked = |mut rows: Vec<pb::DivisionStanding>| {
        rows.iter_mut().for_each(|r| r.rank = 0);
        rows
    };
    assert_eq!((standings.tournament.as_str(), standings.division.as_str()), ("open", "a"));
    assert_eq!(standings.standings.iter().map(|r| r.rank).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(ranked(standings.standings), [row(line.first, 1.0, 0, 24), row(line.second, 0.0, 1, -24)]);
    // Nothing more of the game: the broadcast ends, and so does the stream.
    b.end_broadcast(authed(pb::EndBroadcastRequest { slug: "open-live".into() }, ROOT)).await.unwrap();
    assert_eq!(spectator.message().await.unwrap(), None);
    srv.stop().await;
}

/// A result WatchTournament holds back comes out as soon as the broadcast that held it ends, not
/// when the delay it had would have passed.
#[tokio::test]
async fn ending_a_broadcast_releases_the_result_it_held_back() {
    let srv = start_directed(ROOT).await;
    let (mut t, _, _) = open_round_broadcast(&srv, 3600).await;
    let mut anyone = t
        .watch_tournament(pb::WatchTournamentRequest { slug: "open".into(), from_event: 0 })
        .await
        .unwrap()
        .into_inner();
    t.record_result(authed(open_result(), ROOT)).await.unwrap();
    // Everything before the result comes, the result does not (an hour's delay).
    loop {
        let next = tokio::time::timeout(Duration::from_secs(2), anyone.message()).await;
        match next {
            Ok(m) => assert_ne!(m.unwrap().unwrap().kind, "result", "held back an hour"),
            Err(_) => break,
        }
    }
    let mut b = srv.broadcasts().await;
    b.end_broadcast(authed(pb::EndBroadcastRequest { slug: "open-live".into() }, ROOT)).await.unwrap();
    let e = tokio::time::timeout(Duration::from_secs(10), anyone.message())
        .await
        .expect("out once the broadcast ended");
    let e = e.unwrap().unwrap();
    assert_eq!((e.kind.as_str(), e.round, e.pairing), ("result", 1, 1));
    srv.stop().await;
}

/// While a broadcast holds a round's results back, what was drawn from them is held as long at
/// every door: King of the Hill's next round (paired by the standings), its games, the event
/// count, the standings and the TSH lines. A spectator sees the tournament exactly as its
/// director saw it before the first held result came in; ended, the broadcast shows it all.
#[tokio::test]
async fn the_next_rounds_pairings_and_games_are_held_with_the_results_they_come_from() {
    use pb::tournaments_service_client::TournamentsServiceClient;
    let srv = start_directed(ROOT).await;
    let mut t = TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    let (mut g, mut b) = (srv.games().await, srv.broadcasts().await);
    let person = |name: &str| pb::TournamentPlayerSpec {
        bot_account: String::new(),
        name: name.into(),
        rating: 1500,
        bot: None,
        lifetime_games: None,
    };
    let koth = pb::RoundSpec { method: pb::PairingMethod::KingOfTheHill as i32, ..Default::default() };
    let create = pb::CreateTournamentRequest {
        allow_same_names: false,
        name: "The Open".into(),
        slug: "open".into(),
        game: None,
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players: ["Ann Lee", "Bo Ray", "Cy Dee", "Di Fox"].map(person).to_vec(),
            rounds: vec![koth, koth],
            controls: None,
            result_reports: 0,
        }],
        seed: Some(5),
    };
    t.create_tournament(authed(create, ROOT)).await.unwrap();
    b.create_broadcast(authed(broadcast("open-live", 60, false), ROOT)).await.unwrap();
    let round = |round| pb::PairRoundRequest {
        slug: "open".into(),
        division: "a".into(),
        round,
        ..Default::default()
    };
    let start = |round| pb::StartRoundRequest {
        slug: "open".into(),
        division: "a".into(),
        round,
        ..Default::default()
    };
    t.pair_round(authed(round(1), ROOT)).await.unwrap();
    t.start_round(authed(start(1), ROOT)).await.unwrap();
    let get = pb::GetTournamentRequest { slug: "open".into() };
    let tsh = pb::ExportTshRequest { slug: "open".into(), division: "a".into() };
    let before = t.get_tournament(authed(get.clone(), ROOT)).await.unwrap().into_inner();
    let tsh_before = t.export_tsh(authed(tsh.clone(), ROOT)).await.unwrap().into_inner().text;
    for (pairing, first, second) in [(1, 420, 380), (2, 350, 410)] {
        let scores = pb::FinalScores { first, second };
        let result = pb::RecordResultRequest {
            slug: "open".into(),
            division: "a".into(),
            round: 1,
            pairing,
            result: Some(pb::record_result_request::Result::Scores(scores)),
            ..Default::default()
        };
        t.record_result(authed(result, ROOT)).await.unwrap();
    }
    t.pair_round(authed(round(2), ROOT)).await.unwrap();
    let second = t.start_round(authed(start(2), ROOT)).await.unwrap().into_inner().round.unwrap();
    // The first result corrected: its first entry still holds the cut where it was.
    let scores = pb::FinalScores { first: 421, second: 380 };
    let corrected = pb::RecordResultRequest {
        slug: "open".into(),
        division: "a".into(),
        round: 1,
        pairing: 1,
        result: Some(pb::record_result_request::Result::Scores(scores)),
        correct: true,
        ..Default::default()
    };
    t.record_result(authed(corrected, ROOT)).await.unwrap();
    let now = t.get_tournament(authed(get.clone(), ROOT)).await.unwrap().into_inner();
    assert_eq!(now.tournament.as_ref().unwrap().events, before.tournament.as_ref().unwrap().events + 5);

    // A spectator: the tournament as it stood before the first result, every field of it.
    assert_eq!(t.get_tournament(get.clone()).await.unwrap().into_inner(), before);
    assert_eq!(t.export_tsh(tsh.clone()).await.unwrap().into_inner().text, tsh_before);
    // Round 2's games are no games to them, at every door.
    for game_id in second.pairings.iter().map(|p| p.game_id.clone()) {
        let no_game = format!("no game {game_id}");
        let refused = g.get_game(pb::GetGameRequest { game_id: game_id.clone() }).await.unwrap_err();
        assert_eq!((refused.code(), refused.message()), (Code::NotFound, no_game.as_str()));
        let refused = g.export_gcg(pb::ExportGcgRequest { game_id: game_id.clone() }).await.unwrap_err();
        assert_eq!((refused.code(), refused.message()), (Code::NotFound, no_game.as_str()));
        let watch = pb::WatchGameRequest { game_id: game_id.clone(), from_event: 0 };
        let refused = g.watch_game(watch).await.err().unwrap();
        assert_eq!((refused.code(), refused.message()), (Code::NotFound, no_game.as_str()));
        let one = pb::WatchBroadcastRequest { slug: "open-live".into(), game_id: game_id.clone() };
        let refused = b.watch_broadcast(one).await.err().unwrap();
        let words = format!(
            "broadcast \"open-live\" has not shown game {game_id} (not out yet, or not one it covers)"
        );
        assert_eq!((refused.code(), refused.message()), (Code::NotFound, words.as_str()));
        g.get_game(authed(pb::GetGameRequest { game_id }, ROOT)).await.unwrap();
    }
    // WatchTournament sends the events before the first result, and nothing after.
    let mut stream = t
        .watch_tournament(pb::WatchTournamentRequest { slug: "open".into(), from_event: 0 })
        .await
        .unwrap()
        .into_inner();
    for number in 0..before.tournament.as_ref().unwrap().events {
        assert_eq!(stream.message().await.unwrap().unwrap().number, number);
    }
    assert!(tokio::time::timeout(Duration::from_secs(1), stream.message()).await.is_err(), "nothing after");

    // Ended, the broadcast holds nothing back: every door shows the tournament as it is.
    b.end_broadcast(authed(pb::EndBroadcastRequest { slug: "open-live".into() }, ROOT)).await.unwrap();
    assert_eq!(t.get_tournament(get).await.unwrap().into_inner(), now);
    let tsh_now = t.export_tsh(authed(tsh.clone(), ROOT)).await.unwrap().into_inner().text;
    assert_eq!(t.export_tsh(tsh).await.unwrap().into_inner().text, tsh_now);
    g.get_game(pb::GetGameRequest { game_id: second.pairings[0].game_id.clone() }).await.unwrap();
    srv.stop().await;
}

/// WatchBroadcast of one game that the broadcast does not cover (another broadcast's, or no game
/// at all) is NOT_FOUND at once, in the same words for both, not a stream silent until its
/// deadline.
#[tokio::test]
async fn watching_a_game_the_broadcast_does_not_cover_is_not_found_at_once() {
    let handle = paused_server().await;
    let (games, broadcasts) = (handle.games_service(), handle.broadcasts_service());
    broadcasts.create_broadcast(authed(broadcast("open-live", 0, false), ROOT)).await.unwrap();
    let open = games.create_game(authed(open_game(3), ROOT)).await.unwrap().into_inner().game_id;
    let mut cup = open_game(4);
    cup.labels = [("tournament".to_string(), "cup".to_string())].into();
    let cup = games.create_game(authed(cup, ROOT)).await.unwrap().into_inner().game_id;
    let watch = |game_id: &str| {
        let r = pb::WatchBroadcastRequest { slug: "open-live".into(), game_id: game_id.into() };
        broadcasts.watch_broadcast(Request::new(r))
    };
    let nobody = uuid::Uuid::new_v4().to_string();
    for id in [cup.as_str(), nobody.as_str()] {
        let refused = watch(id).await.err().expect("refused");
        let words =
            format!("broadcast \"open-live\" has not shown game {id} (not out yet, or not one it covers)");
        assert_eq!((refused.code(), refused.message()), (Code::NotFound, words.as_str()));
    }
    let refused = watch("nonsense").await.err().expect("refused");
    assert_eq!(refused.code(), Code::InvalidArgument);
    let mut stream = watch(&open).await.unwrap().into_inner();
    assert_eq!(next(&mut stream).await.game_id, open);
}

/// One who joins a broadcast late is sent each game as it stands (a position the feed made after
/// a later move) and the moves since, not the game's every move from its start; the moves since
/// follow on from the position, each once.
#[tokio::test]
async fn a_late_joiner_gets_the_games_position_and_the_moves_since() {
    let srv = start_directed(ROOT).await;
    let (mut games, mut broadcasts, mut analysis) =
        (srv.games().await, srv.broadcasts().await, srv.analysis().await);
    broadcasts.create_broadcast(authed(broadcast("open-live", 0, false), ROOT)).await.unwrap();
    let c = games.create_game(authed(open_game(11), ROOT)).await.unwrap().into_inner();
    let (id, tokens) = (c.game_id.clone(), c.seat_tokens.clone());
    let watch = pb::WatchBroadcastRequest { slug: "open-live".into(), game_id: String::new() };
    let mut first = broadcasts.watch_broadcast(watch.clone()).await.unwrap().into_inner();
    let get = || authed(pb::GetGameRequest { game_id: id.clone() }, ROOT);
    for _ in 0..30 {
        let seen = games.get_game(get()).await.unwrap().into_inner().view.unwrap();
        if seen.over {
            break;
        }
        let token = &tokens[seen.to_move as usize];
        let mut best = analysis.generate_moves(authed(best_of(&id), token)).await.unwrap().into_inner();
        let pass = pb::submit_turn_request::Action::Pass(pb::Pass {});
        let action = match best.message().await.unwrap() {
            Some(m) => pb::submit_turn_request::Action::Play(m.play.unwrap()),
            None => pass.clone(),
        };
        // (After the last play went out, the other's turn is to accept it.)
        if games.submit_turn(authed(turn(&id, seen.turn, Some(action)), token)).await.is_err() {
            games.submit_turn(authed(turn(&id, seen.turn, Some(pass)), token)).await.unwrap();
        }
        // Each move at a moment of its own, as a game's moves are.
        tokio::time::sleep(Duration::from_millis(3)).await;
    }
    let last = games.get_game(get()).await.unwrap().into_inner().view.unwrap().events - 1;
    assert!(last >= 20, "{last}");
    // The first stream: the game as made, then every event to the last.
    use pb::watch_broadcast_response::Item;
    let Some(Item::Game(made)) = first.message().await.unwrap().unwrap().item else {
        panic!("the game first")
    };
    assert_eq!(made.events, 0);
    let mut number = 0;
    while number <= last {
        if let Some(Item::Event(e)) = first.message().await.unwrap().unwrap().item {
            assert_eq!(e.number, number);
            number += 1;
        }
    }
    // The late joiner: a position past the start, then each event after it, in order, to the last.
    let mut late = broadcasts.watch_broadcast(watch).await.unwrap().into_inner();
    let Some(Item::Game(position)) = late.message().await.unwrap().unwrap().item else {
        panic!("the game first")
    };
    assert!(
        position.events > 0 && position.events <= last,
        "a position after a later move: {}",
        position.events
    );
    for number in position.events..=last {
        let m = late.message().await.unwrap().unwrap();
        let Some(Item::Event(e)) = m.item else { panic!("{m:?}") };
        assert_eq!(e.number, number);
    }
    srv.stop().await;
}

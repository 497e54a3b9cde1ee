//! Two humans and a watcher: the watcher's stream carries every event, live, and never a rack;
//! each seat's own stream carries its own racks only.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;

#[tokio::test]
async fn watchers_see_every_event_and_no_rack() {
    let srv = start().await;
    let mut g = srv.games().await;
    let mut a = srv.analysis().await;
    let created = two_humans(&mut g, 21).await;
    let id = created.game_id.clone();
    let tokens = created.seat_tokens.clone();
    // A watcher with no token, and seat 1 watching with its token, both from the start.
    let mut watcher =
        g.watch_game(pb::WatchGameRequest { game_id: id.clone(), from_event: 0 }).await.unwrap().into_inner();
    let mut seat1 = g
        .watch_game(authed(pb::WatchGameRequest { game_id: id.clone(), from_event: 0 }, &tokens[1]))
        .await
        .unwrap()
        .into_inner();
    // Six turns: plays where possible, one exchange.
    for t in 0..6u32 {
        let v = view_of(&mut g, pb::GetGameRequest { game_id: id.clone() }).await;
        let seat = v.to_move as usize;
        let action = if t == 3 {
            Some(pb::submit_turn_request::Action::Exchange(
                "".to_string()
                    + &{
                        let mine = view_of(
                            &mut g,
                            authed(pb::GetGameRequest { game_id: id.clone() }, &tokens[seat]),
                        )
                        .await;
                        mine.my_rack[..2].to_string()
                    },
            ))
        } else {
            match best_move(&mut a, &id, &tokens[seat]).await {
                Some(m) => Some(pb::submit_turn_request::Action::Play(m.play.unwrap())),
                None => Some(pb::submit_turn_request::Action::Pass(pb::Pass {})),
            }
        };
        g.submit_turn(authed(turn(&id, v.turn, action), &tokens[seat])).await.unwrap();
    }
    g.submit_turn(authed(
        pb::SubmitTurnRequest {
            game_id: id.clone(),
            action: Some(pb::submit_turn_request::Action::Resign(pb::Resign {})),
            ..Default::default()
        },
        &tokens[0],
    ))
    .await
    .unwrap();
    let view = view_of(&mut g, pb::GetGameRequest { game_id: id.clone() }).await;
    assert!(view.over);
    assert_eq!(view.my_rack, "", "no token, no rack");
    assert_eq!(view.my_seat, None);
    let mut seen = Vec::new();
    while let Some(e) = watcher.message().await.unwrap() {
        assert_eq!(e.rack, "", "a watcher saw a rack in event {}", e.number);
        if e.kind == "exchange" {
            assert_eq!((e.tiles.as_str(), e.tile_count), ("", 2));
        }
        seen.push(e);
    }
    assert_eq!(seen.len() as u64, view.events);
    assert_eq!(seen.iter().map(|e| e.number).collect::<Vec<_>>(), (0..view.events).collect::<Vec<_>>());
    let mut own = Vec::new();
    while let Some(e) = seat1.message().await.unwrap() {
        if e.seat == 1 && e.kind != "game_over" {
            assert!(!e.rack.is_empty(), "seat 1 should see its own rack in event {}", e.number);
        } else if e.seat != 1 {
            assert_eq!(e.rack, "", "seat 1 saw seat {}'s rack", e.seat);
        }
        own.push(e);
    }
    assert_eq!(own.len(), seen.len());
    // The seat sees its own rack in GetGame, and not the other's.
    let mine = view_of(&mut g, authed(pb::GetGameRequest { game_id: id.clone() }, &tokens[1])).await;
    assert_eq!((mine.my_seat, mine.my_rack.len()), (Some(1), 7));
}

#[tokio::test]
async fn watching_from_an_event_number_then_live() {
    let srv = start().await;
    let mut g = srv.games().await;
    let created = two_humans(&mut g, 22).await;
    let id = created.game_id.clone();
    let t = &created.seat_tokens;
    let pass = || Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    g.submit_turn(authed(turn(&id, 0, pass()), &t[0])).await.unwrap();
    g.submit_turn(authed(turn(&id, 1, pass()), &t[1])).await.unwrap();
    let mut w =
        g.watch_game(pb::WatchGameRequest { game_id: id.clone(), from_event: 1 }).await.unwrap().into_inner();
    let first = w.message().await.unwrap().unwrap();
    assert_eq!((first.number, first.kind.as_str(), first.seat), (1, "pass", 1));
    g.submit_turn(authed(turn(&id, 2, pass()), &t[0])).await.unwrap();
    let live = w.message().await.unwrap().unwrap();
    assert_eq!((live.number, live.kind.as_str()), (2, "pass"));
}

#[tokio::test]
async fn streams_per_game_are_capped() {
    let srv = start_with(dawgref::server::state::Limits { streams_per_game: 2, ..Default::default() }).await;
    let mut g = srv.games().await;
    let created = two_humans(&mut g, 23).await;
    let req = || pb::WatchGameRequest { game_id: created.game_id.clone(), from_event: 0 };
    let _one = g.watch_game(req()).await.unwrap();
    let _two = g.watch_game(req()).await.unwrap();
    assert_eq!(code(g.watch_game(req()).await), tonic::Code::ResourceExhausted);
}

/// A watcher that falls behind the event buffer gets the missed events replayed from the
/// history: every number, in order, no gap.
#[tokio::test]
async fn a_lagging_watcher_misses_nothing() {
    let srv = start_with(dawgref::server::state::Limits { event_buffer: 2, ..Default::default() }).await;
    let mut g = srv.games().await;
    let mut req = create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("a"), human("b")], 24);
    req.options = Some(pb::GameOptions { scoreless_turn_limit: Some(40), ..Default::default() });
    let created = g.create_game(req).await.unwrap().into_inner();
    let id = created.game_id.clone();
    let mut w =
        g.watch_game(pb::WatchGameRequest { game_id: id.clone(), from_event: 0 }).await.unwrap().into_inner();
    for t in 0..20u32 {
        let pass = Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
        g.submit_turn(authed(turn(&id, t, pass), &created.seat_tokens[(t % 2) as usize])).await.unwrap();
    }
    let mut numbers = Vec::new();
    while numbers.len() < 20 {
        numbers.push(w.message().await.unwrap().unwrap().number);
    }
    assert_eq!(numbers, (0..20).collect::<Vec<u64>>());
}

#[tokio::test]
async fn metrics_are_served() {
    let srv = start().await;
    let mut g = srv.games().await;
    g.create_game(create(
        pb::Ruleset::English,
        pb::ChallengeRule::Single,
        vec![human("a"), bot(pb::BotLevel::Greedy)],
        25,
    ))
    .await
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    srv.handle.spawn_metrics(listener);
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    tcp.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await.unwrap();
    let mut body = String::new();
    tcp.read_to_string(&mut body).await.unwrap();
    assert!(body.contains("dawgref_games_live 1"), "{body}");
    assert!(body.contains("dawgref_rpc_seconds_count{code=\"OK\",method=\"CreateGame\"} 1"), "{body}");
    // The human sits first, so the bot has not had to decide yet.
    assert!(body.contains("dawgref_bot_turn_seconds_count 0"), "{body}");
}

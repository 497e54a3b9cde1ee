//! Bots think off the request path. A game of bots is played out live after CreateGame has
//! answered; a bot that thinks for as long as it likes delays nobody (not other games, not
//! reads of its own game); and a decision made for a position the game has left is dropped.

use crate::common;

use common::server::*;
use dawgref::host::Residence;
use dawgref::proto::v1 as pb;
use dawgref::server::state::{Callbacks, Limits};
use std::sync::{Arc, Mutex, mpsc};

#[tokio::test]
async fn a_bot_game_is_played_out_live_for_its_watchers() {
    let dir = TempDir::new("bot-game");
    let (srv, _) = start_stored(&dir.0).await;
    let mut g = srv.games().await;
    let mut req = create(
        pb::Ruleset::English,
        pb::ChallengeRule::Double,
        vec![bot(pb::BotLevel::Strong), bot(pb::BotLevel::Greedy)],
        8,
    );
    req.bot_delay_ms = Some(20);
    let c = g.create_game(req).await.unwrap().into_inner();
    let v = c.view.unwrap();
    // The answer comes at the start; the bots have not moved yet.
    assert_eq!((v.over, v.events, v.turn), (false, 0, 0));
    let live = watch_to_end(&mut g, &c.game_id, 0).await;
    assert!(live.len() > 20, "{} events", live.len());
    assert_eq!(live.last().unwrap().kind, "game_over");
    for (i, e) in live.iter().enumerate() {
        assert_eq!(e.number, i as u64);
    }
    // Paced: no two moves closer than the delay (game time is in ms).
    let moves: Vec<u64> = live.iter().filter(|e| e.kind == "play").map(|e| e.time_ms).collect();
    assert!(moves.windows(2).all(|w| w[1] >= w[0] + 20), "{moves:?}");
    // The finished game has left memory: what is read now is its log replayed, and it is the
    // game the watcher saw.
    assert!(srv.handle.host().residence(&c.game_id.parse().unwrap()) != Residence::Live);
    let replayed = watch_to_end(&mut g, &c.game_id, 0).await;
    assert_eq!(replayed, live);
}

/// A hook that blocks the first bot decision until the test releases it.
struct Gate {
    entered: Mutex<Option<mpsc::Sender<()>>>,
    release: Mutex<mpsc::Receiver<()>>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_bot_stalls_nobody_and_a_stale_decision_is_dropped() {
    let (entered_tx, entered_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel();
    let gate = Arc::new(Gate { entered: Mutex::new(Some(entered_tx)), release: Mutex::new(release_rx) });
    let hook = gate.clone();
    let hooks = Callbacks {
        before_bot_decision: Some(Arc::new(move |_| {
            // Only the first decision waits.
            if let Some(entered) = hook.entered.lock().unwrap().take() {
                let _ = entered.send(());
                let _ = hook.release.lock().unwrap().recv();
            }
        })),
        ..Callbacks::default()
    };
    let srv = start_hooked(Limits::default(), hooks).await;
    let mut g = srv.games().await;
    // Ann, the bot, Cy. Ann plays; the bot is to move and thinks (blocked).
    let seats = vec![human("ann"), bot(pb::BotLevel::Greedy), human("cy")];
    let c = g
        .create_game(create(pb::Ruleset::English, pb::ChallengeRule::Single, seats, 21))
        .await
        .unwrap()
        .into_inner();
    let id = c.game_id.clone();
    let mut a = srv.analysis().await;
    let best = best_move(&mut a, &id, &c.seat_tokens[0]).await.unwrap();
    let action = Some(pb::submit_turn_request::Action::Play(best.play.unwrap()));
    g.submit_turn(authed(turn(&id, 0, action), &c.seat_tokens[0])).await.unwrap();
    tokio::task::spawn_blocking(move || entered_rx.recv().unwrap()).await.unwrap();

    // While it thinks: another game plays on, and this game answers reads and watchers.
    let other = two_humans(&mut g, 4).await;
    let pass = || Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    g.submit_turn(authed(turn(&other.game_id, 0, pass()), &other.seat_tokens[0])).await.unwrap();
    g.submit_turn(authed(turn(&other.game_id, 1, pass()), &other.seat_tokens[1])).await.unwrap();
    let v = view_of(&mut g, pb::GetGameRequest { game_id: id.clone() }).await;
    assert_eq!((v.to_move, v.turn, v.challengeable), (1, 1, true));
    let mut watch =
        g.watch_game(pb::WatchGameRequest { game_id: id.clone(), from_event: 0 }).await.unwrap().into_inner();
    assert_eq!(watch.message().await.unwrap().unwrap().kind, "play");

    // Cy challenges Ann's (good) play: the game moves on while the bot still thinks about the
    // position before the challenge.
    let r = g
        .challenge(authed(
            pb::ChallengeRequest { game_id: id.clone(), request_id: String::new() },
            &c.seat_tokens[2],
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(r.acceptable);
    release_tx.send(()).unwrap();
    srv.settled(&id).await;
    assert_eq!(srv.handle.metrics().bot_stale.get(), 1, "the decision about the old position is dropped");
    // The bot decided again, about the position after the challenge, and moved once.
    let mut kinds = Vec::new();
    while kinds.len() < 2 {
        kinds.push(watch.message().await.unwrap().unwrap());
    }
    let seen: Vec<(&str, u32)> = kinds.iter().map(|e| (e.kind.as_str(), e.seat)).collect();
    assert_eq!(seen[0], ("challenged", 0));
    assert!(matches!(seen[1], ("play" | "exchange" | "pass", 1)), "{seen:?}");
    let v = view_of(&mut g, pb::GetGameRequest { game_id: id }).await;
    assert_eq!(v.turn, 2);
}

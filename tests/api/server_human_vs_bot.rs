//! Whole games through the server: a human against a bot to the end in each ruleset, and a
//! three-seat game with two humans and a bot. The human plays the best move the Analysis
//! service offers for its own rack; bots answer off the request path, and the client waits for
//! them before its next turn.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;

async fn play_to_end(
    ruleset: pb::Ruleset,
    seats: Vec<pb::SeatSpec>,
    seed: u64,
) -> (pb::GameView, Vec<pb::WatchGameResponse>) {
    play_to_end_with(create(ruleset, pb::ChallengeRule::Double, seats, seed)).await
}

async fn play_to_end_with(request: pb::CreateGameRequest) -> (pb::GameView, Vec<pb::WatchGameResponse>) {
    let srv = start().await;
    let mut g = srv.games().await;
    let mut a = srv.analysis().await;
    let created = g.create_game(request).await.unwrap().into_inner();
    let id = created.game_id.clone();
    let mut turns = 0;
    loop {
        srv.settled(&id).await;
        let v = view_of(&mut g, pb::GetGameRequest { game_id: id.clone() }).await;
        if v.over {
            break;
        }
        let token = created.seat_tokens[v.to_move as usize].clone();
        assert!(!token.is_empty(), "a bot seat should have moved already");
        let action = if v.awaiting_final_challenge {
            Some(pb::submit_turn_request::Action::Pass(pb::Pass {}))
        } else {
            match best_move(&mut a, &id, &token).await {
                Some(m) => Some(pb::submit_turn_request::Action::Play(m.play.unwrap())),
                None => Some(pb::submit_turn_request::Action::Pass(pb::Pass {})),
            }
        };
        let r = g.submit_turn(authed(turn(&id, v.turn, action), &token)).await.unwrap().into_inner();
        assert_eq!(r.view.as_ref().unwrap().my_seat, Some(v.to_move));
        turns += 1;
        assert!(turns < 200, "the game does not end");
    }
    let view = view_of(&mut g, pb::GetGameRequest { game_id: id.clone() }).await;
    let mut stream =
        g.watch_game(pb::WatchGameRequest { game_id: id, from_event: 0 }).await.unwrap().into_inner();
    let mut events = Vec::new();
    while let Some(e) = stream.message().await.unwrap() {
        events.push(e);
    }
    (view, events)
}

fn check(view: &pb::GameView, events: &[pb::WatchGameResponse]) {
    assert!(view.over);
    assert_eq!(events.len() as u64, view.events);
    assert_eq!(events.last().unwrap().kind, "game_over");
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e.number, i as u64);
    }
    for s in &view.seats {
        let sum: i32 = events.iter().filter(|e| e.seat == s.seat).map(|e| e.points).sum();
        assert_eq!(sum, s.score, "seat {}", s.seat);
    }
    assert!(!view.winners.is_empty());
}

#[tokio::test]
async fn english_human_vs_bot() {
    let (v, e) = play_to_end(pb::Ruleset::English, vec![human("ann"), bot(pb::BotLevel::Strong)], 11).await;
    check(&v, &e);
    assert!(e.iter().filter(|e| e.kind == "play").count() > 10);
}

#[tokio::test]
async fn russian_human_vs_bot() {
    let (v, e) = play_to_end(pb::Ruleset::Russian, vec![bot(pb::BotLevel::Greedy), human("ива")], 12).await;
    check(&v, &e);
}

#[tokio::test]
async fn erudit_human_vs_bot() {
    let (v, e) = play_to_end(pb::Ruleset::Erudit, vec![human("пётр"), bot(pb::BotLevel::Weak)], 13).await;
    check(&v, &e);
}

#[tokio::test]
async fn two_humans_and_a_bot() {
    let (v, e) =
        play_to_end(pb::Ruleset::English, vec![human("a"), bot(pb::BotLevel::Strong), human("b")], 14).await;
    check(&v, &e);
    assert_eq!(v.seats.len(), 3);
    assert!(v.seats[1].bot);
}

/// The champion on a five-second clock: it budgets from its time left and never loses on time.
#[tokio::test]
async fn the_champion_on_a_short_clock_never_runs_out() {
    let mut request = create(
        pb::Ruleset::English,
        pb::ChallengeRule::Double,
        vec![human("ann"), bot(pb::BotLevel::Champion)],
        15,
    );
    request.clock = Some(pb::ClockSpec {
        initial_ms: 5_000,
        increment_ms: 0,
        max_overtime_ms: 0,
        penalty_per_minute: 0,
        per_move_ms: 0,
    });
    let (v, e) = play_to_end_with(request).await;
    check(&v, &e);
    assert!(v.seats[1].bot);
    assert!(e.iter().all(|e| e.kind != "out_of_time" || e.seat != 1), "the champion lost on time");
    assert!(v.seats[1].time_left_ms.unwrap() > 0, "{:?}", v.seats[1]);
    assert!(e.iter().filter(|e| e.seat == 1 && e.kind == "play").count() > 5);
}

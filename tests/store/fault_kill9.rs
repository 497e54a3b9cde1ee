//! The real binary, killed with SIGKILL at random moments while many games are being played,
//! loses nothing it acknowledged: after each restart every turn whose SubmitTurn returned OK is
//! in its game's history (same seat, same points, same running score), and every game goes on to
//! its end. Several kill/restart rounds per run; the kill times come from a seed printed on
//! failure.

use crate::common;

use common::Rng;
use common::binary::{KillableServer as Server, serve_data};
use common::server::{TempDir, authed, pause, resume, undo, view_of};
use dawgref::proto::v1 as pb;
use pb::analysis_service_client::AnalysisServiceClient;
use pb::games_service_client::GamesServiceClient;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tonic::transport::Channel;

const GAMES: usize = 32;
const ROUNDS: usize = 4;

/// The binary on `dir`'s data, with the director's token.
async fn spawn(dir: &std::path::Path) -> Server {
    serve_data(dir, DIRECTOR).await
}

/// What a client was told: seat, points and the seat's score after the turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ack {
    /// The game's turn number when the turn was taken.
    turn: u32,
    seat: u32,
    points: i32,
    score: Option<i32>,
}

struct Game {
    id: String,
    tokens: Vec<String>,
    acks: Mutex<Vec<Ack>>,
}

/// Play the game until it ends or the server goes away. Returns whether it ended.
async fn drive(url: String, game: Arc<Game>, rng_seed: u64) -> bool {
    let Ok(mut g) = GamesServiceClient::connect(url.clone()).await else { return false };
    let Ok(mut a) = AnalysisServiceClient::connect(url).await else { return false };
    let mut rng = Rng(rng_seed);
    loop {
        let Ok(v) =
            g.get_game(authed(pb::GetGameRequest { game_id: game.id.clone() }, &game.tokens[0])).await
        else {
            return false;
        };
        let Some(v) = v.into_inner().view else { return false };
        if v.over {
            return true;
        }
        let seat = v.to_move as usize;
        let token = &game.tokens[seat];
        let action = if v.awaiting_final_challenge || rng.below(12) == 0 {
            pb::submit_turn_request::Action::Pass(pb::Pass {})
        } else {
            match best(&mut a, &game.id, token).await {
                Ok(Some(play)) => pb::submit_turn_request::Action::Play(play),
                Ok(None) => pb::submit_turn_request::Action::Pass(pb::Pass {}),
                Err(_) => return false,
            }
        };
        let req = pb::SubmitTurnRequest {
            game_id: game.id.clone(),
            expected_turn: Some(v.turn),
            request_id: format!("{}-{}", seat, v.turn),
            action: Some(action),
        };
        match g.submit_turn(authed(req, token)).await {
            Ok(r) => {
                let r = r.into_inner();
                let view = r.view.as_ref().unwrap();
                // A turn that ends the game is followed by the end-of-game rack adjustments:
                // the score the view shows is then not the turn's own.
                let score = if view.over { None } else { Some(view.seats[seat].score) };
                game.acks.lock().unwrap().push(Ack {
                    turn: v.turn,
                    seat: seat as u32,
                    points: r.points,
                    score,
                });
            }
            Err(_) => return false,
        }
    }
}

async fn best(
    a: &mut AnalysisServiceClient<Channel>,
    id: &str,
    token: &str,
) -> Result<Option<pb::Play>, tonic::Status> {
    let req = pb::GenerateMovesRequest {
        position: Some(pb::Position {
            source: Some(pb::position::Source::GameId(id.into())),
            lexicon: String::new(),
        }),
        limit: 1,
        ..Default::default()
    };
    let mut stream = a.generate_moves(authed(req, token)).await?.into_inner();
    Ok(stream.message().await?.and_then(|m| m.play))
}

/// Every acknowledged turn is in the game's history, in order.
async fn check(url: &str, game: &Game) -> pb::GameView {
    let mut g = GamesServiceClient::connect(url.to_string()).await.unwrap();
    let v = g
        .get_game(authed(pb::GetGameRequest { game_id: game.id.clone() }, &game.tokens[0]))
        .await
        .unwrap_or_else(|e| panic!("game {} is gone after the restart: {e}", game.id))
        .into_inner()
        .view
        .unwrap();
    let mut stream = g
        .watch_game(authed(pb::WatchGameRequest { game_id: game.id.clone(), from_event: 0 }, &game.tokens[0]))
        .await
        .unwrap()
        .into_inner();
    let mut turns = Vec::new();
    for _ in 0..v.events {
        let e = stream.message().await.unwrap().expect("the history is complete");
        if matches!(e.kind.as_str(), "play" | "pass" | "exchange") {
            turns.push(Ack {
                turn: turns.len() as u32,
                seat: e.seat,
                points: e.points,
                score: Some(e.cumulative),
            });
        }
    }
    let acks = game.acks.lock().unwrap().clone();
    // No bots and no challenges in these games: turn n is the history's n-th play, pass or
    // exchange. (A turn committed just before a kill may be there without an acknowledgement.)
    for (k, ack) in acks.iter().enumerate() {
        let Some(kept) = turns.get(ack.turn as usize) else {
            panic!("game {}: acknowledged turn {} is missing ({} kept)", game.id, ack.turn, turns.len())
        };
        let kept = Ack { score: ack.score.and(kept.score), ..*kept };
        assert_eq!(kept, *ack, "game {}: acknowledged turn {k} differs after the restart", game.id);
    }
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_turns_survive_kill_9() {
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
    eprintln!("kill schedule seed {seed}");
    let mut rng = Rng(seed);
    let dir = TempDir::new("kill9");
    let mut server = spawn(&dir.0).await;

    let mut games = Vec::new();
    let mut g = GamesServiceClient::connect(server.url.clone()).await.unwrap();
    for k in 0..GAMES {
        let seats = vec![common::server::human("a"), common::server::human("b")];
        let created = g
            .create_game(common::server::create(
                pb::Ruleset::English,
                pb::ChallengeRule::Single,
                seats,
                k as u64,
            ))
            .await
            .unwrap()
            .into_inner();
        games.push(Arc::new(Game {
            id: created.game_id,
            tokens: created.seat_tokens,
            acks: Mutex::new(Vec::new()),
        }));
    }

    for round in 0..ROUNDS {
        let drivers: Vec<_> = games
            .iter()
            .map(|game| tokio::spawn(drive(server.url.clone(), game.clone(), rng.next())))
            .collect();
        tokio::time::sleep(Duration::from_millis(20 + rng.below(250) as u64)).await;
        server.child.kill().unwrap();
        server.child.wait().unwrap();
        for d in drivers {
            let _ = d.await;
        }
        server = spawn(&dir.0).await;
        for game in &games {
            check(&server.url, game).await;
        }
        let acked: usize = games.iter().map(|g| g.acks.lock().unwrap().len()).sum();
        eprintln!("round {round}: {acked} turns acknowledged so far, all present after kill -9");
    }

    // Every game goes on to its end.
    let drivers: Vec<_> =
        games.iter().map(|game| tokio::spawn(drive(server.url.clone(), game.clone(), rng.next()))).collect();
    for d in drivers {
        assert!(d.await.unwrap(), "a game could not be finished");
    }
    for game in &games {
        assert!(check(&server.url, game).await.over);
    }
    server.child.kill().unwrap();
    server.child.wait().unwrap();
}

const DIRECTOR: &str = "kill9-director";

/// The kinds of a game's events, in order.
async fn kinds(url: &str, id: &str) -> Vec<String> {
    let mut g = GamesServiceClient::connect(url.to_string()).await.unwrap();
    let v = view_of(&mut g, pb::GetGameRequest { game_id: id.into() }).await;
    let mut stream =
        g.watch_game(pb::WatchGameRequest { game_id: id.into(), from_event: 0 }).await.unwrap().into_inner();
    let mut out = Vec::new();
    for _ in 0..v.events {
        out.push(stream.message().await.unwrap().unwrap().kind);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_director_action_survives_kill_9_once() {
    use pb::directors_service_client::DirectorsServiceClient;
    let dir = TempDir::new("kill9-director");
    let mut server = spawn(&dir.0).await;
    let mut g = GamesServiceClient::connect(server.url.clone()).await.unwrap();
    let mut request = common::server::create(
        pb::Ruleset::English,
        pb::ChallengeRule::Single,
        vec![common::server::human("a"), common::server::human("b")],
        5,
    );
    request.clock =
        Some(pb::ClockSpec { initial_ms: 1_500_000, max_overtime_ms: 600_000, ..Default::default() });
    let c = g.create_game(request).await.unwrap().into_inner();
    let pass = pb::SubmitTurnRequest {
        game_id: c.game_id.clone(),
        expected_turn: Some(0),
        request_id: "t0".into(),
        action: Some(pb::submit_turn_request::Action::Pass(pb::Pass {})),
    };
    g.submit_turn(authed(pass, &c.seat_tokens[0])).await.unwrap();
    let id = c.game_id.clone();
    // Each action, then kill -9 at once, then a restart: the action is there, once, and a retry
    // of its request id answers the same without acting again.
    let mut expected: Vec<&str> = vec!["pass"];
    for (step, kind) in
        ["paused", "resumed", "score_adjusted", "clock_adjusted", "note", "turn_undone", "game_over"]
            .iter()
            .enumerate()
    {
        let rid = format!("d{step}");
        let mut d = DirectorsServiceClient::connect(server.url.clone()).await.unwrap();
        let first = match *kind {
            "paused" => d.pause_game(authed(pause(&id, &rid), DIRECTOR)).await.map(|r| r.into_inner().view),
            "resumed" => {
                d.resume_game(authed(resume(&id, &rid), DIRECTOR)).await.map(|r| r.into_inner().view)
            }
            "score_adjusted" => {
                let r = pb::AdjustScoreRequest {
                    game_id: id.clone(),
                    request_id: rid.clone(),
                    seat: 1,
                    points: 9,
                    reason: "r".into(),
                };
                d.adjust_score(authed(r, DIRECTOR)).await.map(|r| r.into_inner().view)
            }
            "clock_adjusted" => {
                let r = pb::AdjustClockRequest {
                    game_id: id.clone(),
                    request_id: rid.clone(),
                    seat: 0,
                    delta_ms: 30_000,
                    reason: "r".into(),
                };
                d.adjust_clock(authed(r, DIRECTOR)).await.map(|r| r.into_inner().view)
            }
            "note" => {
                let r =
                    pb::AddNoteRequest { game_id: id.clone(), request_id: rid.clone(), text: "noted".into() };
                d.add_note(authed(r, DIRECTOR)).await.map(|r| r.into_inner().view)
            }
            "turn_undone" => {
                d.undo_turn(authed(undo(&id, &rid), DIRECTOR)).await.map(|r| r.into_inner().view)
            }
            _ => {
                let r = pb::SetResultRequest {
                    game_id: id.clone(),
                    request_id: rid.clone(),
                    result: Some(pb::set_result_request::Result::Void(pb::Void {})),
                    reason: "r".into(),
                };
                d.set_result(authed(r, DIRECTOR)).await.map(|r| r.into_inner().view)
            }
        }
        .unwrap_or_else(|e| panic!("{kind}: {e}"));
        server.child.kill().unwrap();
        server.child.wait().unwrap();
        server = spawn(&dir.0).await;
        if *kind == "game_over" {
            expected.push("note");
        }
        expected.push(kind);
        assert_eq!(kinds(&server.url, &id).await, expected, "after {kind}");
        // The retry, answered from what was written down.
        if *kind == "paused" {
            let mut d = DirectorsServiceClient::connect(server.url.clone()).await.unwrap();
            let again = d.pause_game(authed(pause(&id, &rid), DIRECTOR)).await.unwrap().into_inner();
            assert_eq!(again.view.as_ref().map(|v| v.paused), first.as_ref().map(|v| v.paused));
            assert_eq!(kinds(&server.url, &id).await, expected, "a retried pause acts once");
        }
    }
    let v = g_view(&server.url, &id).await;
    assert!(v.over && v.winners.is_empty(), "void: nobody wins");
}

async fn g_view(url: &str, id: &str) -> pb::GameView {
    let mut g = GamesServiceClient::connect(url.to_string()).await.unwrap();
    view_of(&mut g, pb::GetGameRequest { game_id: id.into() }).await
}

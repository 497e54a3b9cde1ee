//! AnalyzeGame over the wire: a record or a finished game reviewed turn by turn, with progress,
//! every turn, then the summary; the same request again answered from where the review was
//! kept; the endgame's judgement equal to SolveEndgame's; a phony flagged; a live game only
//! for the director; bad input refused, changing nothing; a full line refused with a retry hint.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use dawgref::server::state::Limits;
use pb::analysis_service_client::AnalysisServiceClient;
use tonic::Code;
use tonic::transport::Channel;
use tonic_types::StatusExt;

const DIRECTOR: &str = "review-director";

fn record(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/data/gcg/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn of_record(gcg: &str, ms: u32) -> pb::AnalyzeGameRequest {
    pb::AnalyzeGameRequest { gcg: gcg.into(), ms_per_turn: ms, seed: 7, ..Default::default() }
}

fn of_game(id: &str, ms: u32) -> pb::AnalyzeGameRequest {
    pb::AnalyzeGameRequest { game_id: id.into(), ms_per_turn: ms, seed: 7, ..Default::default() }
}

/// Every message of a review, to its end.
async fn review(
    a: &mut AnalysisServiceClient<Channel>,
    req: tonic::Request<pb::AnalyzeGameRequest>,
) -> Result<Vec<pb::AnalyzeGameResponse>, tonic::Status> {
    let mut stream = a.analyze_game(req).await?.into_inner();
    let mut all = Vec::new();
    while let Some(u) = stream.message().await? {
        all.push(u);
    }
    Ok(all)
}

fn turns(updates: &[pb::AnalyzeGameResponse]) -> Vec<pb::TurnAnalysis> {
    let mut t: Vec<pb::TurnAnalysis> = updates.iter().filter_map(|u| u.turn.clone()).collect();
    t.sort_by_key(|t| t.turn);
    t
}

/// The move lines of a record (plays, exchanges, passes).
fn move_lines(gcg: &str) -> usize {
    dawgref::review::racks_shown(&dawgref::notation::gcg::parse(gcg).unwrap()).len()
}

#[tokio::test]
async fn a_record_is_reviewed_turn_by_turn_then_summarised() {
    let srv = start().await;
    let mut a = srv.analysis().await;
    let gcg = record("doug_v_emely.gcg");
    let all = review(&mut a, tonic::Request::new(of_record(&gcg, 60))).await.unwrap();
    let lines = move_lines(&gcg);
    let turns = turns(&all);
    // A first progress message, one per turn, and the summary last.
    assert_eq!(all.len(), lines + 2);
    assert_eq!((all[0].turns_done, all[0].turns), (0, lines as u32));
    assert_eq!(turns.iter().map(|t| t.turn).collect::<Vec<_>>(), (0..lines as u32).collect::<Vec<_>>());
    let done: Vec<u32> = all.iter().filter(|u| u.turn.is_some()).map(|u| u.turns_done).collect();
    assert_eq!(done, (1..=lines as u32).collect::<Vec<_>>());
    let last = all.last().unwrap();
    assert!(last.done && !last.from_store);
    assert_eq!(last.seats.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["doug", "emely"]);
    for t in &turns {
        assert!(t.position.contains(" lex "), "{}", t.position);
        let played = t.played.as_ref().unwrap();
        if !t.analysable {
            assert_eq!(
                (t.class, t.grade),
                (pb::TurnClass::Unspecified as i32, pb::MistakeGrade::Unspecified as i32)
            );
            continue;
        }
        // The grade by the win % lost (an endgame's by the spread lost: its own test).
        if t.method != "endgame" {
            let grade = match t.win_lost {
                x if x < 0.5 => pb::MistakeGrade::None,
                x if x < 3.0 => pb::MistakeGrade::Small,
                x if x < 7.0 => pb::MistakeGrade::Medium,
                _ => pb::MistakeGrade::Large,
            };
            assert_eq!(t.grade, grade as i32, "turn {}: {} lost", t.turn, t.win_lost);
        }
        let best = t.best.as_ref().unwrap();
        assert!(t.win_lost >= 0.0, "turn {}: {}", t.turn, t.win_lost);
        // The play made found best loses exactly nothing and is classed best.
        if played == best {
            assert_eq!((t.win_lost, t.class), (0.0, pb::TurnClass::Best as i32), "turn {}", t.turn);
        } else if t.win_lost > 0.0 {
            assert_ne!(t.class, pb::TurnClass::Best as i32);
        }
    }
    // Every analysed turn is counted in exactly one class.
    for s in &last.seats {
        let mine = turns.iter().filter(|t| t.seat == s.seat && t.analysable).count() as u32;
        assert_eq!(s.turns, mine);
        assert_eq!(s.best + s.good + s.inaccuracies + s.mistakes + s.blunders, mine);
        // … and in exactly one grade; the index their weights added up.
        let graded = |g: pb::MistakeGrade| {
            turns.iter().filter(|t| t.seat == s.seat && t.analysable && t.grade == g as i32).count() as u32
        };
        let sizes = [pb::MistakeGrade::Small, pb::MistakeGrade::Medium, pb::MistakeGrade::Large].map(graded);
        assert_eq!([s.small_mistakes, s.medium_mistakes, s.large_mistakes], sizes, "seat {}", s.seat);
        assert_eq!(graded(pb::MistakeGrade::None) + sizes.iter().sum::<u32>(), mine);
        let index = 0.2 * f64::from(sizes[0]) + 0.5 * f64::from(sizes[1]) + f64::from(sizes[2]);
        assert!(
            (s.mistake_index - index).abs() < 1e-9,
            "seat {}: {} against {index}",
            s.seat,
            s.mistake_index
        );
        let mean = turns.iter().filter(|t| t.seat == s.seat && t.analysable).map(|t| t.win_lost).sum::<f64>()
            / f64::from(mine.max(1));
        assert!((s.mean_win_lost - mean).abs() < 1e-9);
        assert!((s.accuracy - 100.0 * (-mean / 10.0).exp()).abs() < 1e-9);
    }
}

#[tokio::test]
async fn the_same_request_again_gets_the_same_review_at_once() {
    let srv = start().await;
    let mut a = srv.analysis().await;
    let gcg = record("logan.gcg");
    let first = review(&mut a, tonic::Request::new(of_record(&gcg, 50))).await.unwrap();
    let again = review(&mut a, tonic::Request::new(of_record(&gcg, 50))).await.unwrap();
    assert!(again.iter().all(|u| u.from_store));
    assert_eq!(turns(&first), turns(&again));
    assert_eq!(first.last().unwrap().seats, again.last().unwrap().seats);
    // Other options are another review.
    let other =
        review(&mut a, tonic::Request::new(pb::AnalyzeGameRequest { seats: vec![1], ..of_record(&gcg, 50) }))
            .await
            .unwrap();
    assert!(!other.last().unwrap().from_store);
    assert!(turns(&other).iter().all(|t| t.seat == 1));
    assert_eq!(other.last().unwrap().seats.iter().map(|s| s.seat).collect::<Vec<_>>(), [1]);
}

#[tokio::test]
async fn a_finished_games_review_is_kept_in_the_store() {
    let dir = TempDir::new("review-store");
    let (srv, _) = start_stored(&dir.0).await;
    let mut g = srv.games().await;
    let imported = g
        .import_gcg(pb::ImportGcgRequest { gcg: record("logan.gcg"), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert!(imported.view.as_ref().unwrap().over);
    let id = imported.game_id;
    let mut a = srv.analysis().await;
    let first = review(&mut a, tonic::Request::new(of_game(&id, 50))).await.unwrap();
    assert!(!first.last().unwrap().from_store);
    srv.stop().await;
    // Another server on the same store answers from it.
    let (srv, _) = start_stored(&dir.0).await;
    let mut a = srv.analysis().await;
    let again = review(&mut a, tonic::Request::new(of_game(&id, 50))).await.unwrap();
    assert!(again.iter().all(|u| u.from_store));
    assert_eq!(turns(&first), turns(&again));
}

/// `gcg` with every play but the last `keep` showing only the tiles it played, as some
/// records do: a review judges only the turns whose whole rack it knows (the others are not
/// analysable), so those can have all the time they need.
fn racks_on_the_last(gcg: &str, keep: usize) -> String {
    let is_play = |l: &str| {
        let w: Vec<&str> = l.split_whitespace().collect();
        l.starts_with('>') && w.len() == 6 && w[2].chars().any(|c| c.is_ascii_digit())
    };
    let plays: Vec<usize> = gcg.lines().enumerate().filter(|(_, l)| is_play(l)).map(|(i, _)| i).collect();
    let kept = &plays[plays.len().saturating_sub(keep)..];
    let mut out = String::new();
    for (i, line) in gcg.lines().enumerate() {
        let mut words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        if plays.contains(&i) && !kept.contains(&i) {
            words[1] = words[3]
                .chars()
                .filter(|&c| c != '.')
                .map(|c| if c.is_lowercase() { '?' } else { c })
                .collect();
            out.push_str(&words.join(" "));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

#[tokio::test]
async fn with_the_bag_empty_the_best_play_is_solve_endgames() {
    let srv = start().await;
    let mut a = srv.analysis().await;
    // Only the endgame's racks are shown whole (and the bingos', which played every tile): the
    // few turns judged get 5 s each, far more than an exact endgame takes (it ends as soon as
    // it is proven), whatever else loads the machine.
    let gcg = racks_on_the_last(&record("doug_v_emely.gcg"), 3);
    let all = review(&mut a, tonic::Request::new(of_record(&gcg, 5_000))).await.unwrap();
    let judged: Vec<pb::TurnAnalysis> = turns(&all).into_iter().filter(|t| t.analysable).collect();
    assert!(judged.len() <= 6, "the last three turns and the bingos, no other: {}", judged.len());
    let endgame: Vec<pb::TurnAnalysis> =
        judged.into_iter().filter(|t| t.method == "endgame" && t.exact).collect();
    assert!(!endgame.is_empty(), "the record's last turns are an endgame");
    for t in endgame {
        let solved = a
            .solve_endgame(pb::SolveEndgameRequest {
                position: cgp(&t.position),
                budget_ms: 10_000,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert!(solved.exact);
        assert_eq!(t.best.as_ref().unwrap().equity, f64::from(solved.value), "turn {}", t.turn);
    }
}

#[tokio::test]
async fn a_phony_left_unchallenged_is_flagged() {
    let srv = start().await;
    let mut a = srv.analysis().await;
    // BADGIF is no word; the opponent passes instead of challenging.
    let gcg = "#character-encoding UTF-8\n#player1 a Ann\n#player2 b Bo\n\
               >a: ABDEFGI 8H BADGIF +28 28\n>b: AEILNRT - +0 0\n";
    let all = review(&mut a, tonic::Request::new(of_record(gcg, 50))).await.unwrap();
    let t = turns(&all);
    assert_eq!(t.len(), 2);
    assert!(t[0].phony && t[0].phony_unchallenged && !t[0].challenged, "{:?}", t[0]);
    assert!(!t[1].phony);
    let seats = &all.last().unwrap().seats;
    assert_eq!((seats[0].phonies, seats[0].phonies_let_go), (1, 0));
    assert_eq!((seats[1].phonies, seats[1].phonies_let_go), (0, 1), "Bo let Ann's phony stand");
    // Passing with a rack that plays a bingo (RETINAL) gives much away.
    assert!(t[1].pass_or_exchange_beaten && t[1].bingo_missed, "{:?}", t[1]);
    assert_eq!(t[1].grade, pb::MistakeGrade::Large as i32, "{:?}", t[1]);
    // Bo's turns alone reviewed: the phony Bo let stand is still counted (Ann's turn not judged).
    let bo = pb::AnalyzeGameRequest { seats: vec![1], ..of_record(gcg, 50) };
    let all = review(&mut a, tonic::Request::new(bo)).await.unwrap();
    let seats = &all.last().unwrap().seats;
    assert_eq!(
        seats.iter().map(|s| (s.seat, s.phonies_let_go, s.large_mistakes)).collect::<Vec<_>>(),
        [(1, 1, 1)]
    );
}

#[tokio::test]
async fn a_game_in_play_is_reviewed_by_nobody_not_even_the_director() {
    let srv = start_directed(DIRECTOR).await;
    let (mut g, mut a) = (srv.games().await, srv.analysis().await);
    let c = two_humans(&mut g, 3).await;
    let id = c.game_id.clone();
    let first = best_move(&mut a, &id, &c.seat_tokens[0]).await.unwrap().play.unwrap();
    g.submit_turn(authed(
        turn(&id, 0, Some(pb::submit_turn_request::Action::Play(first))),
        &c.seat_tokens[0],
    ))
    .await
    .unwrap();
    // A review shows each mover's rack: while the game is on, it would coach its players.
    for token in [None, Some(c.seat_tokens[0].as_str()), Some(c.seat_tokens[1].as_str()), Some(DIRECTOR)] {
        let req = match token {
            None => tonic::Request::new(of_game(&id, 50)),
            Some(t) => authed(of_game(&id, 50), t),
        };
        let e = review(&mut a, req).await.unwrap_err();
        assert_eq!(e.code(), Code::FailedPrecondition, "{token:?}: {e:?}");
        assert!(e.message().contains("in play"), "{e:?}");
    }
    // Once it is over, anyone may review it, the mover's rack shown, and the review is kept.
    g.submit_turn(authed(
        turn(&id, 1, Some(pb::submit_turn_request::Action::Resign(pb::Resign {}))),
        &c.seat_tokens[1],
    ))
    .await
    .unwrap();
    let all = review(&mut a, tonic::Request::new(of_game(&id, 50))).await.unwrap();
    let t = turns(&all);
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].rack.chars().count(), 7);
    let again = review(&mut a, tonic::Request::new(of_game(&id, 50))).await.unwrap();
    assert!(again.last().unwrap().from_store);
}

#[tokio::test]
async fn bad_requests_are_refused_and_change_nothing() {
    let srv = start_directed(DIRECTOR).await;
    let (mut g, mut a) = (srv.games().await, srv.analysis().await);
    let listed = |g: &mut pb::games_service_client::GamesServiceClient<Channel>| {
        let mut g = g.clone();
        async move {
            g.list_games(authed(pb::ListGamesRequest { page_size: 100, ..Default::default() }, DIRECTOR))
                .await
                .unwrap()
                .into_inner()
                .total
        }
    };
    let before = listed(&mut g).await;
    let gcg = record("logan.gcg");
    let missing = "4b8d1c39-5a9e-4d3a-9b7e-0d2f6c1a2b3c";
    let cases: Vec<(pb::AnalyzeGameRequest, Code)> = vec![
        (of_record(">nobody: plays\n", 50), Code::InvalidArgument),
        (of_record("#player1 a A\n#player2 b B\n>a: QQQQQQQ 8H QQQ +30 30\n", 50), Code::InvalidArgument),
        (of_game(missing, 50), Code::NotFound),
        (of_game("not-a-game", 50), Code::InvalidArgument),
        (of_record(&gcg, 10), Code::InvalidArgument),
        (of_record(&gcg, 60_001), Code::InvalidArgument),
        (pb::AnalyzeGameRequest { seats: vec![2], ..of_record(&gcg, 50) }, Code::InvalidArgument),
        (pb::AnalyzeGameRequest { game_id: missing.into(), ..of_record(&gcg, 50) }, Code::InvalidArgument),
        (pb::AnalyzeGameRequest::default(), Code::InvalidArgument),
    ];
    for (req, want) in cases {
        let e = review(&mut a, tonic::Request::new(req.clone())).await.unwrap_err();
        assert_eq!(e.code(), want, "{req:?}: {e:?}");
        assert!(!e.message().is_empty());
    }
    assert_eq!(listed(&mut g).await, before, "a review creates no game");
}

#[tokio::test]
async fn a_full_line_is_refused_with_a_retry_hint_and_frees_up_when_clients_leave() {
    // One client here asks for every review: let it hold more searches than the line takes.
    let srv = start_with(Limits { searches_per_client: 20, ..Limits::default() }).await;
    let mut a = srv.analysis().await;
    let gcg = record("doug_v_emely.gcg");
    // Two running and eight waiting, each a different request (none is answered from memory).
    let mut open = Vec::new();
    for seed in 0..10u64 {
        let req = pb::AnalyzeGameRequest { seed, ..of_record(&gcg, 60_000) };
        let mut stream = a.analyze_game(req).await.unwrap().into_inner();
        let first = stream.message().await.unwrap().unwrap();
        if seed >= 2 {
            assert_eq!(first.queue_position, seed as u32 - 1, "seed {seed}");
        } else {
            assert_eq!(first.queue_position, 0);
        }
        open.push(stream);
    }
    let e =
        review(&mut a, tonic::Request::new(pb::AnalyzeGameRequest { seed: 99, ..of_record(&gcg, 60_000) }))
            .await
            .unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    let retry = e.get_details_retry_info().expect("a retry hint");
    assert!(retry.retry_delay.is_some_and(|d| d >= std::time::Duration::from_secs(1)));
    // The clients leave: their reviews stop and give their places back.
    drop(open);
    let started = std::time::Instant::now();
    loop {
        let req = pb::AnalyzeGameRequest { seed: 100, ..of_record(&gcg, 50) };
        match a.analyze_game(req).await {
            Ok(s) => {
                let mut s = s.into_inner();
                let first = s.message().await.unwrap().unwrap();
                if first.queue_position == 0 {
                    break;
                }
            }
            Err(e) => assert_eq!(e.code(), Code::ResourceExhausted),
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "the line never freed up");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

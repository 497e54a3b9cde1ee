//! The Directors service over the wire: only the director's token may act; a pause stops turns
//! and clocks until the resume; an undone turn leaves every seat's view as it was before it;
//! adjustments show in scores, events and the record; a result ends the game; a retried
//! request id acts once; labels filter ListGames exactly and ExportResults adds up.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use std::collections::HashMap;
use tonic::Code;
use tonic::Request;

const DIRECTOR: &str = "head-judge-token";

fn pass() -> Option<pb::submit_turn_request::Action> {
    Some(pb::submit_turn_request::Action::Pass(pb::Pass {}))
}

/// GetGame as `token` sees it, without the event count (a director's action is an event).
async fn seen(
    g: &mut pb::games_service_client::GamesServiceClient<tonic::transport::Channel>,
    id: &str,
    token: &str,
) -> pb::GameView {
    let mut v = view_of(g, authed(pb::GetGameRequest { game_id: id.into() }, token)).await;
    v.events = 0;
    v
}

#[tokio::test]
async fn only_the_directors_token_may_act() {
    let bare = start().await;
    let c = two_humans(&mut bare.games().await, 1).await;
    let refused = bare.directors().await.pause_game(authed(pause(&c.game_id, ""), DIRECTOR)).await;
    assert_eq!(code(refused), Code::FailedPrecondition, "a server without a director token");
    let srv = start_directed(DIRECTOR).await;
    let (mut g, mut d) = (srv.games().await, srv.directors().await);
    let c = two_humans(&mut g, 1).await;
    // The request with `token`, or with none.
    fn with<T>(request: T, token: Option<&str>) -> tonic::Request<T> {
        match token {
            Some(t) => authed(request, t),
            None => tonic::Request::new(request),
        }
    }
    let id = c.game_id.as_str();
    assert_eq!(code(d.pause_game(with(pause(id, ""), None)).await), Code::Unauthenticated);
    assert_eq!(
        code(d.pause_game(with(pause(id, ""), Some(&c.seat_tokens[0]))).await),
        Code::PermissionDenied
    );
    assert_eq!(code(d.resume_game(with(resume(id, ""), Some("wrong"))).await), Code::PermissionDenied);
    assert_eq!(code(d.undo_turn(with(undo(id, ""), None)).await), Code::Unauthenticated);
    // Every other action too: no token, UNAUTHENTICATED; a seat's, PERMISSION_DENIED.
    let score = pb::AdjustScoreRequest {
        game_id: c.game_id.clone(),
        seat: 0,
        points: 5,
        reason: "r".into(),
        ..Default::default()
    };
    let clock = pb::AdjustClockRequest {
        game_id: c.game_id.clone(),
        seat: 0,
        delta_ms: 5,
        reason: "r".into(),
        ..Default::default()
    };
    let result = pb::SetResultRequest {
        game_id: c.game_id.clone(),
        result: Some(pb::set_result_request::Result::Void(pb::Void {})),
        reason: "r".into(),
        ..Default::default()
    };
    assert_eq!(code(d.adjust_score(score.clone()).await), Code::Unauthenticated);
    assert_eq!(code(d.adjust_score(authed(score, &c.seat_tokens[0])).await), Code::PermissionDenied);
    assert_eq!(code(d.adjust_clock(clock.clone()).await), Code::Unauthenticated);
    assert_eq!(code(d.adjust_clock(authed(clock, &c.seat_tokens[1])).await), Code::PermissionDenied);
    assert_eq!(code(d.set_result(result.clone()).await), Code::Unauthenticated);
    assert_eq!(code(d.set_result(authed(result, &c.seat_tokens[0])).await), Code::PermissionDenied);
    assert_eq!(code(d.undo_turn(with(undo(id, ""), Some(&c.seat_tokens[0]))).await), Code::PermissionDenied);
    assert_eq!(code(d.resume_game(with(resume(id, ""), None)).await), Code::Unauthenticated);
    let note = pb::AddNoteRequest { game_id: c.game_id.clone(), request_id: String::new(), text: "x".into() };
    assert_eq!(code(d.add_note(tonic::Request::new(note.clone())).await), Code::Unauthenticated);
    assert_eq!(code(d.add_note(authed(note, &c.seat_tokens[1])).await), Code::PermissionDenied);
    let export = pb::ExportResultsRequest { key: "event".into(), value: "x".into() };
    assert_eq!(code(d.export_results(export.clone()).await), Code::Unauthenticated);
    assert_eq!(code(d.export_results(authed(export, &c.seat_tokens[0])).await), Code::PermissionDenied);
    // Nothing changed.
    let view = seen(&mut g, &c.game_id, &c.seat_tokens[0]).await;
    assert!(!view.paused);
    assert_eq!(code(d.pause_game(authed(pause("no-such-game", ""), DIRECTOR)).await), Code::InvalidArgument);
    assert_eq!(
        code(d.pause_game(authed(pause("9b2f4ae6-1c1f-4d44-9e0a-0a4bd1f7c0de", ""), DIRECTOR)).await),
        Code::NotFound
    );
}

/// On paused time, in process: an hour of game time passes while the game is paused.
#[tokio::test(start_paused = true)]
async fn a_pause_holds_every_turn_until_the_resume() {
    use pb::directors_service_server::DirectorsService as _;
    use pb::games_service_server::GamesService as _;
    use tokio_stream::StreamExt;
    let (handle, _) = lexicons_builder().director_token(DIRECTOR).start().await.unwrap();
    let (g, d) = (handle.games_service(), handle.directors_service());
    let mut request =
        create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("a"), human("b")], 3);
    request.clock =
        Some(pb::ClockSpec { initial_ms: 600_000, max_overtime_ms: 60_000, ..Default::default() });
    let c = g.create_game(Request::new(request)).await.unwrap().into_inner();
    let paused = d.pause_game(authed(pause(&c.game_id, "p1"), DIRECTOR)).await.unwrap().into_inner();
    assert!(paused.view.as_ref().unwrap().paused);
    assert!(paused.view.as_ref().unwrap().my_rack.is_empty(), "the director sees no rack");
    let e = g.submit_turn(authed(turn(&c.game_id, 0, pass()), &c.seat_tokens[0])).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert!(e.message().contains("paused"), "{}", e.message());
    let left = async || {
        let request = authed(pb::GetGameRequest { game_id: c.game_id.clone() }, &c.seat_tokens[0]);
        g.get_game(request).await.unwrap().into_inner().view.unwrap().seats[0].time_left_ms.unwrap()
    };
    assert_eq!(left().await, 600_000);
    tokio::time::advance(std::time::Duration::from_secs(3600)).await;
    assert_eq!(left().await, 600_000, "the clock stands through an hour's pause");
    assert_eq!(code(d.pause_game(authed(pause(&c.game_id, "p2"), DIRECTOR)).await), Code::FailedPrecondition);
    d.resume_game(authed(resume(&c.game_id, "r1"), DIRECTOR)).await.unwrap();
    tokio::time::advance(std::time::Duration::from_secs(1)).await;
    assert_eq!(left().await, 599_000, "and runs again once resumed");
    g.submit_turn(authed(turn(&c.game_id, 0, pass()), &c.seat_tokens[0])).await.unwrap();
    let watch = pb::WatchGameRequest { game_id: c.game_id.clone(), from_event: 0 };
    let events = g.watch_game(Request::new(watch)).await.unwrap().into_inner();
    let kinds: Vec<String> = events.take(3).map(|e| e.unwrap().kind).collect().await;
    assert_eq!(kinds, ["paused", "resumed", "pass"]);
}

async fn watch_kinds(
    g: &mut pb::games_service_client::GamesServiceClient<tonic::transport::Channel>,
    id: &str,
) -> Vec<String> {
    let mut stream =
        g.watch_game(pb::WatchGameRequest { game_id: id.into(), from_event: 0 }).await.unwrap().into_inner();
    let mut kinds = Vec::new();
    // Read what there is (the game is live: the stream stays open), a short while.
    while let Ok(Ok(Some(e))) =
        tokio::time::timeout(std::time::Duration::from_millis(300), stream.message()).await
    {
        kinds.push(e.kind);
    }
    kinds
}

#[tokio::test]
async fn an_undone_turn_leaves_every_seats_view_as_it_was_and_a_retry_acts_once() {
    let srv = start_directed(DIRECTOR).await;
    let (mut g, mut a, mut d) = (srv.games().await, srv.analysis().await, srv.directors().await);
    let c = two_humans(&mut g, 8).await;
    let before: Vec<pb::GameView> = vec![
        seen(&mut g, &c.game_id, &c.seat_tokens[0]).await,
        seen(&mut g, &c.game_id, &c.seat_tokens[1]).await,
    ];
    let best = best_move(&mut a, &c.game_id, &c.seat_tokens[0]).await.unwrap();
    let play = Some(pb::submit_turn_request::Action::Play(best.play.clone().unwrap()));
    let played = g
        .submit_turn(authed(turn(&c.game_id, 0, play.clone()), &c.seat_tokens[0]))
        .await
        .unwrap()
        .into_inner();
    let undone = d.undo_turn(authed(undo(&c.game_id, "u1"), DIRECTOR)).await.unwrap().into_inner();
    // A retry answers the same and takes nothing more back.
    let again = d.undo_turn(authed(undo(&c.game_id, "u1"), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(undone, again);
    for (seat, b) in before.iter().enumerate() {
        assert_eq!(&seen(&mut g, &c.game_id, &c.seat_tokens[seat]).await, b, "seat {seat}");
    }
    // The same play again scores the same and draws the same tiles.
    let replayed =
        g.submit_turn(authed(turn(&c.game_id, 0, play), &c.seat_tokens[0])).await.unwrap().into_inner();
    assert_eq!(replayed.points, played.points);
    assert_eq!(replayed.view.unwrap().my_rack, played.view.unwrap().my_rack);
    let kinds = watch_kinds(&mut g, &c.game_id).await;
    assert_eq!(kinds, ["play", "turn_undone", "play"]);
    // The record has one play (the taken-back one left out) and the director's note.
    let gcg =
        g.export_gcg(pb::ExportGcgRequest { game_id: c.game_id.clone() }).await.unwrap().into_inner().gcg;
    assert_eq!(gcg.lines().filter(|l| l.starts_with('>')).count(), 1, "{gcg}");
    assert!(gcg.contains("#note director: the last turn was taken back"));
}

#[tokio::test]
async fn adjustments_show_in_scores_events_and_the_record_and_a_forfeit_ends_the_game() {
    let srv = start_directed(DIRECTOR).await;
    let (mut g, mut d) = (srv.games().await, srv.directors().await);
    let c = two_humans(&mut g, 5).await;
    let adjust = |points, reason: &str| pb::AdjustScoreRequest {
        game_id: c.game_id.clone(),
        request_id: format!("adj{points}"),
        seat: 1,
        points,
        reason: reason.into(),
    };
    let r = d.adjust_score(authed(adjust(12, "scoring error agreed"), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(r.view.unwrap().seats[1].score, 12);
    assert_eq!(code(d.adjust_score(authed(adjust(0, "x"), DIRECTOR)).await), Code::InvalidArgument);
    assert_eq!(code(d.adjust_score(authed(adjust(2001, "x"), DIRECTOR)).await), Code::InvalidArgument);
    assert_eq!(code(d.adjust_score(authed(adjust(5, ""), DIRECTOR)).await), Code::InvalidArgument);
    let no_clock = pb::AdjustClockRequest {
        game_id: c.game_id.clone(),
        request_id: String::new(),
        seat: 0,
        delta_ms: 1000,
        reason: "x".into(),
    };
    assert_eq!(code(d.adjust_clock(authed(no_clock, DIRECTOR)).await), Code::FailedPrecondition);
    // A 10 KB note is refused and nothing changes; a short one is an event.
    let note =
        |text: String| pb::AddNoteRequest { game_id: c.game_id.clone(), request_id: String::new(), text };
    assert_eq!(code(d.add_note(authed(note("n".repeat(10_000)), DIRECTOR)).await), Code::InvalidArgument);
    d.add_note(authed(note("players agreed the count".into()), DIRECTOR)).await.unwrap();
    let gcg =
        g.export_gcg(pb::ExportGcgRequest { game_id: c.game_id.clone() }).await.unwrap().into_inner().gcg;
    assert!(gcg.contains("score +12 (scoring error agreed), total 12"), "{gcg}");
    assert!(gcg.contains("#note director: players agreed the count"), "{gcg}");
    let forfeit = pb::SetResultRequest {
        game_id: c.game_id.clone(),
        request_id: "end".into(),
        result: Some(pb::set_result_request::Result::Forfeit(1)),
        reason: "left the hall".into(),
    };
    let over = d.set_result(authed(forfeit, DIRECTOR)).await.unwrap().into_inner().view.unwrap();
    assert!(over.over);
    assert_eq!(over.winners, [0]);
    assert!(over.end_reason.contains("forfeit"), "{}", over.end_reason);
    let kinds = watch_kinds(&mut g, &c.game_id).await;
    assert_eq!(kinds, ["score_adjusted", "note", "note", "game_over"]);
    // Nothing more can be done to a finished game.
    assert_eq!(
        code(d.pause_game(authed(pause(&c.game_id, "late"), DIRECTOR)).await),
        Code::FailedPrecondition
    );
}

#[tokio::test]
async fn labels_filter_listings_exactly_and_results_add_up() {
    let srv = start_directed(DIRECTOR).await;
    let (mut g, mut d) = (srv.games().await, srv.directors().await);
    let labelled = |round: &str| -> HashMap<String, String> {
        [("event".to_string(), "spring open".to_string()), ("round".to_string(), round.to_string())].into()
    };
    let mut ids = Vec::new();
    for (i, round) in ["1", "1", "2"].iter().enumerate() {
        let mut request = create(
            pb::Ruleset::English,
            pb::ChallengeRule::Single,
            vec![human("ann"), human("bob")],
            i as u64,
        );
        request.labels = labelled(round);
        let c = g.create_game(authed(request, DIRECTOR)).await.unwrap().into_inner();
        ids.push(c);
    }
    let unlabelled = two_humans(&mut g, 77).await;
    // Ann resigns game 0 (bob wins); game 1 ends by forfeit of bob (ann wins); game 2 goes on.
    let resign = Some(pb::submit_turn_request::Action::Resign(pb::Resign {}));
    g.submit_turn(authed(turn(&ids[0].game_id, 0, resign), &ids[0].seat_tokens[0])).await.unwrap();
    let forfeit = pb::SetResultRequest {
        game_id: ids[1].game_id.clone(),
        request_id: String::new(),
        result: Some(pb::set_result_request::Result::Forfeit(1)),
        reason: "no show".into(),
    };
    d.set_result(authed(forfeit, DIRECTOR)).await.unwrap();
    let list = |state: pb::GameState, labels: HashMap<String, String>| pb::ListGamesRequest {
        page_size: 10,
        state: state as i32,
        labels,
        ..Default::default()
    };
    let ids_of =
        |r: pb::ListGamesResponse| -> Vec<String> { r.games.into_iter().map(|v| v.game_id).collect() };
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    let round1: HashMap<String, String> = [("round".to_string(), "1".to_string())].into();
    let finished =
        g.list_games(authed(list(pb::GameState::Finished, round1.clone()), DIRECTOR)).await.unwrap();
    assert_eq!(ids_of(finished.into_inner()), sorted(vec![ids[0].game_id.clone(), ids[1].game_id.clone()]));
    let live = g.list_games(authed(list(pb::GameState::Live, round1.clone()), DIRECTOR)).await.unwrap();
    assert!(ids_of(live.into_inner()).is_empty());
    let event: HashMap<String, String> = [("event".to_string(), "spring open".to_string())].into();
    let all =
        g.list_games(authed(list(pb::GameState::All, event.clone()), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(all.total, 3);
    assert!(!ids_of(all).contains(&unlabelled.game_id));
    let every =
        g.list_games(authed(list(pb::GameState::All, HashMap::new()), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(every.total, 4);
    // A label flood and a malformed key are refused.
    let flood: HashMap<String, String> = (0..17).map(|i| (format!("k{i}"), "v".to_string())).collect();
    assert_eq!(
        code(g.list_games(authed(list(pb::GameState::All, flood.clone()), DIRECTOR)).await),
        Code::InvalidArgument
    );
    let mut request =
        create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("x"), human("y")], 1);
    request.labels = flood;
    assert_eq!(code(g.create_game(request).await), Code::InvalidArgument);
    let mut request =
        create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("x"), human("y")], 1);
    request.labels = [("Round!".to_string(), "1".to_string())].into();
    assert_eq!(code(g.create_game(request).await), Code::InvalidArgument);

    let export = pb::ExportResultsRequest { key: "event".into(), value: "spring open".into() };
    let results = d.export_results(authed(export, DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(results.rows.len(), 3);
    for r in &results.rows {
        let view = view_of(&mut g, pb::GetGameRequest { game_id: r.game_id.clone() }).await;
        let scores: Vec<i32> = view.seats.iter().map(|s| s.score).collect();
        assert_eq!(r.scores, scores, "rows add up to the games' scores");
        assert_eq!(r.finished, view.over);
    }
    // Two finished games: ann lost one and won one, bob the same.
    let standing = |name: &str| results.standings.iter().find(|s| s.name == name).unwrap().clone();
    assert_eq!((standing("ann").games, standing("ann").wins), (2, 1.0));
    assert_eq!((standing("bob").games, standing("bob").wins), (2, 1.0));
    assert_eq!(results.csv.lines().count(), 4, "{}", results.csv);
    assert!(results.json.starts_with('[') && results.json.contains("\"spring open\""));
}

#[tokio::test]
async fn extreme_adjustments_are_refused_and_totals_stay_exact() {
    let srv = start_directed(DIRECTOR).await;
    let (mut g, mut d) = (srv.games().await, srv.directors().await);
    let mut request =
        create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("a"), human("b")], 8);
    request.clock =
        Some(pb::ClockSpec { initial_ms: 600_000, max_overtime_ms: 60_000, ..Default::default() });
    let c = g.create_game(request).await.unwrap().into_inner();
    let score = |points: i32| {
        authed(
            pb::AdjustScoreRequest {
                game_id: c.game_id.clone(),
                request_id: String::new(),
                seat: 1,
                points,
                reason: "r".into(),
            },
            DIRECTOR,
        )
    };
    // Beyond the range, the extremes of the type included (whose absolute value is no i32).
    for points in [i32::MIN, i32::MIN + 1, -2001, 2001, i32::MAX] {
        let e = d.adjust_score(score(points)).await.unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{points}: {e:?}");
        assert!(e.message().contains("points"), "{e:?}");
    }
    // Fifty adjustments of 2000 bring the total to its limit; the next is refused.
    for _ in 0..50 {
        d.adjust_score(score(2000)).await.unwrap();
    }
    let e = d.adjust_score(score(1)).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    assert!(e.message().contains("100000"), "{e:?}");
    let view = seen(&mut g, &c.game_id, &c.seat_tokens[1]).await;
    assert_eq!(view.seats[1].score, 100_000);
    d.adjust_score(score(-2000)).await.unwrap();
    assert_eq!(seen(&mut g, &c.game_id, &c.seat_tokens[1]).await.seats[1].score, 98_000);
    // The clock: the type's extremes refused; a day at a time up to 30 days left, then no more.
    let clock = |delta_ms: i64| {
        authed(
            pb::AdjustClockRequest {
                game_id: c.game_id.clone(),
                request_id: String::new(),
                seat: 1,
                delta_ms,
                reason: "r".into(),
            },
            DIRECTOR,
        )
    };
    for delta_ms in [i64::MIN, i64::MIN + 1, -86_400_001, 86_400_001, i64::MAX] {
        let e = d.adjust_clock(clock(delta_ms)).await.unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{delta_ms}: {e:?}");
    }
    // Seat 1 is not on the move: its 600 s stand still while 29 days are added.
    for _ in 0..29 {
        d.adjust_clock(clock(86_400_000)).await.unwrap();
    }
    let e = d.adjust_clock(clock(86_400_000)).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    assert!(e.message().contains("2592000000"), "{e:?}");
    let left = seen(&mut g, &c.game_id, &c.seat_tokens[1]).await.seats[1].time_left_ms.unwrap();
    assert_eq!(left, 600_000 + 29 * 86_400_000);
    // Adjudicated scores beyond the range are refused, the type's extremes included.
    for s in [i32::MIN, 10_001, i32::MAX] {
        let result = pb::SetResultRequest {
            game_id: c.game_id.clone(),
            request_id: String::new(),
            result: Some(pb::set_result_request::Result::Adjudicated(pb::Adjudicated { scores: vec![0, s] })),
            reason: "r".into(),
        };
        let e = d.set_result(authed(result, DIRECTOR)).await.unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{s}: {e:?}");
    }
    assert!(!seen(&mut g, &c.game_id, &c.seat_tokens[0]).await.over);
}

/// SetSeatToken: a seat's new token (the director's, or one made) is its seat, the old one no
/// longer; a bot's seat, a token that is not one, a game over and a caller who is no director
/// are refused.
#[tokio::test]
async fn a_seats_new_token_is_the_seat_and_the_old_one_no_longer() {
    let srv = start_directed(DIRECTOR).await;
    let (mut g, mut d) = (srv.games().await, srv.directors().await);
    let c = two_humans(&mut g, 11).await;
    let id = c.game_id.as_str();
    let set =
        |seat: u32, token: &str| pb::SetSeatTokenRequest { game_id: id.into(), seat, token: token.into() };
    let given = "0123456789abcdef0123456789abcdef";
    let answer = d.set_seat_token(authed(set(0, given), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(answer.token, given);
    let made = d.set_seat_token(authed(set(1, ""), DIRECTOR)).await.unwrap().into_inner().token;
    assert_eq!(made.len(), 32);
    assert!(!c.seat_tokens.contains(&made));
    for (seat, new) in [(0, given), (1, made.as_str())] {
        let old = &c.seat_tokens[seat as usize];
        let seen = view_of(&mut g, authed(pb::GetGameRequest { game_id: id.into() }, new)).await;
        assert_eq!(seen.my_seat, Some(seat), "the new token is seat {seat}");
        let by_old = g.get_game(authed(pb::GetGameRequest { game_id: id.into() }, old)).await;
        assert_eq!(code(by_old), Code::Unauthenticated, "the old token of seat {seat} is nobody's");
    }
    // The new token plays the seat's turn; the old one plays none.
    let pass = Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    g.submit_turn(authed(turn(id, 0, pass.clone()), given)).await.unwrap();
    assert_eq!(
        code(g.submit_turn(authed(turn(id, 1, pass), &c.seat_tokens[1])).await),
        Code::Unauthenticated
    );

    assert_eq!(
        refused(d.set_seat_token(authed(set(2, ""), DIRECTOR)).await),
        (Code::InvalidArgument, "seat: 2: not a person's seat taken (the game has seats 0 to 1)".into())
    );
    assert_eq!(
        refused(d.set_seat_token(authed(set(0, "not-hex"), DIRECTOR)).await),
        (Code::InvalidArgument, "token: 32 hex characters, or empty for one made".into())
    );
    assert_eq!(code(d.set_seat_token(authed(set(0, ""), given)).await), Code::PermissionDenied);
    let bots = g
        .create_game(create(
            pb::Ruleset::English,
            pb::ChallengeRule::Single,
            vec![human("a"), bot(pb::BotLevel::Weak)],
            3,
        ))
        .await
        .unwrap()
        .into_inner();
    let bot_seat = pb::SetSeatTokenRequest { game_id: bots.game_id.clone(), seat: 1, token: String::new() };
    assert_eq!(code(d.set_seat_token(authed(bot_seat, DIRECTOR)).await), Code::InvalidArgument);
    let resign = Some(pb::submit_turn_request::Action::Resign(pb::Resign {}));
    g.submit_turn(authed(turn(&bots.game_id, 0, resign), &bots.seat_tokens[0])).await.unwrap();
    let over = pb::SetSeatTokenRequest { game_id: bots.game_id.clone(), seat: 0, token: String::new() };
    assert_eq!(code(d.set_seat_token(authed(over, DIRECTOR)).await), Code::FailedPrecondition);
}

/// A seat's new token is durable: the game read back after a restart knows the seat by it, and
/// by the old one no longer.
#[tokio::test]
async fn a_seats_new_token_holds_across_a_restart() {
    let dir = TempDir::new("seat-token");
    let (srv, _) = start_stored_directed(&dir.0, DIRECTOR).await;
    let mut g = srv.games().await;
    let c = two_humans(&mut g, 12).await;
    let id = c.game_id.clone();
    let given = "fedcba9876543210fedcba9876543210";
    let set = pb::SetSeatTokenRequest { game_id: id.clone(), seat: 1, token: given.into() };
    srv.directors().await.set_seat_token(authed(set, DIRECTOR)).await.unwrap();
    srv.stop().await;

    let (srv, _) = start_stored(&dir.0).await;
    let mut g = srv.games().await;
    let seen = view_of(&mut g, authed(pb::GetGameRequest { game_id: id.clone() }, given)).await;
    assert_eq!(seen.my_seat, Some(1));
    let by_old = g.get_game(authed(pb::GetGameRequest { game_id: id }, &c.seat_tokens[1])).await;
    assert_eq!(code(by_old), Code::Unauthenticated);
}

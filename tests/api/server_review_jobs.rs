//! The event's games reviewed as durable jobs, over the socket: a director asks for a round's
//! reviews and watches the jobs to their end, each review then answered by AnalyzeGame from the
//! store; a division that reviews its games as they end; a game still in play waiting for its
//! end; a corrected result asking its game's job again; every bad request with its code and field.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use pb::tournaments_service_client::TournamentsServiceClient;
use std::time::Duration;
use tonic::Code;
use tonic::transport::Channel;

const DIRECTOR: &str = "reviews-director";

fn bot(name: &str, level: pb::BotLevel) -> pb::TournamentPlayerSpec {
    pb::TournamentPlayerSpec {
        bot_account: String::new(),
        name: name.into(),
        rating: 1000,
        bot: Some(level as i32),
        lifetime_games: None,
    }
}

fn person(name: &str) -> pb::TournamentPlayerSpec {
    pb::TournamentPlayerSpec { bot: None, rating: 1500, ..bot(name, pb::BotLevel::Weak) }
}

/// One division "a" of `players`, `rounds` round robins; its bots move at once.
fn event(slug: &str, players: Vec<pb::TournamentPlayerSpec>, rounds: usize) -> pb::CreateTournamentRequest {
    pb::CreateTournamentRequest {
        allow_same_names: false,
        name: "Reviewed open".into(),
        slug: slug.into(),
        game: Some(pb::TournamentGameSettings { bot_delay_ms: Some(0), ..Default::default() }),
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players,
            rounds: vec![
                pb::RoundSpec { method: pb::PairingMethod::RoundRobin as i32, ..Default::default() };
                rounds
            ],
            controls: None,
            result_reports: 0,
        }],
        seed: Some(7),
    }
}

fn four_bots() -> Vec<pb::TournamentPlayerSpec> {
    vec![
        bot("Greedy One", pb::BotLevel::Greedy),
        bot("Greedy Two", pb::BotLevel::Greedy),
        bot("Weak Three", pb::BotLevel::Weak),
        bot("Weak Four", pb::BotLevel::Weak),
    ]
}

async fn play_round(
    t: &mut TournamentsServiceClient<Channel>,
    slug: &str,
    round: u32,
) -> pb::TournamentRound {
    let pair = pb::PairRoundRequest { slug: slug.into(), division: "a".into(), round, ..Default::default() };
    t.pair_round(authed(pair, DIRECTOR)).await.unwrap();
    let start =
        pb::StartRoundRequest { slug: slug.into(), division: "a".into(), round, ..Default::default() };
    t.start_round(authed(start, DIRECTOR)).await.unwrap().into_inner().round.unwrap()
}

/// Wait (a hang guard of two minutes) until every pairing of `round` has its result.
async fn until_played(
    t: &mut TournamentsServiceClient<Channel>,
    slug: &str,
    round: u32,
) -> pb::TournamentRound {
    let started = std::time::Instant::now();
    loop {
        let got =
            t.get_tournament(pb::GetTournamentRequest { slug: slug.into() }).await.unwrap().into_inner();
        let division = got.tournament.unwrap().divisions.remove(0);
        let r = division.rounds[round as usize - 1].clone();
        if r.pairings.iter().all(|p| p.done) {
            return r;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "round {round} never finished");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn review(slug: &str, division: &str, round: u32, ms: u32, request_id: &str) -> pb::ReviewGamesRequest {
    pb::ReviewGamesRequest {
        slug: slug.into(),
        division: division.into(),
        round,
        ms_per_turn: ms,
        request_id: request_id.into(),
    }
}

/// WatchReviews' messages until `until` holds of one (a hang guard of two minutes); that one.
async fn watch_until(
    t: &mut TournamentsServiceClient<Channel>,
    slug: &str,
    until: impl Fn(&pb::WatchReviewsResponse) -> bool,
) -> pb::WatchReviewsResponse {
    let request = authed(pb::WatchReviewsRequest { slug: slug.into() }, DIRECTOR);
    let mut stream = t.watch_reviews(request).await.unwrap().into_inner();
    loop {
        let m = tokio::time::timeout(Duration::from_secs(120), stream.message())
            .await
            .expect("the jobs move within two minutes")
            .unwrap()
            .expect("the stream stays open");
        if until(&m) {
            return m;
        }
    }
}

fn states(m: &pb::WatchReviewsResponse) -> Vec<pb::ReviewJobState> {
    m.jobs.iter().map(|j| j.state()).collect()
}

/// AnalyzeGame's answer for `game` at `ms` a turn: whether it came from the store, its turns.
async fn analysed(srv: &TestServer, game: &str, ms: u32) -> (bool, Vec<pb::AnalyzeGameResponse>) {
    let mut a = srv.analysis().await;
    let req = pb::AnalyzeGameRequest { game_id: game.into(), ms_per_turn: ms, ..Default::default() };
    let mut stream = a.analyze_game(req).await.unwrap().into_inner();
    let mut all = Vec::new();
    while let Some(m) = stream.message().await.unwrap() {
        all.push(m);
    }
    (all.iter().all(|m| m.from_store), all)
}

async fn log_kinds(
    t: &mut TournamentsServiceClient<Channel>,
    slug: &str,
    kind: &str,
) -> Vec<pb::WatchTournamentResponse> {
    let filter = pb::TournamentLogFilter { kinds: vec![kind.into()], ..Default::default() };
    let request =
        pb::GetTournamentLogRequest { slug: slug.into(), filter: Some(filter), ..Default::default() };
    t.get_tournament_log(authed(request, DIRECTOR)).await.unwrap().into_inner().events
}

#[tokio::test]
async fn a_round_reviewed_as_jobs_is_answered_from_the_store_and_a_correction_asks_its_game_again() {
    let srv = start_directed(DIRECTOR).await;
    let mut t = srv.tournaments().await;
    t.create_tournament(authed(event("rv", four_bots(), 2), DIRECTOR)).await.unwrap();
    play_round(&mut t, "rv", 1).await;
    let round = until_played(&mut t, "rv", 1).await;
    let games: Vec<String> = round.pairings.iter().map(|p| p.game_id.clone()).collect();
    assert_eq!(games.len(), 2);

    let asked =
        t.review_games(authed(review("rv", "a", 1, 50, "ask-1"), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!((asked.games, asked.ms_per_turn), (2, 50));
    // Asked again with the same request id: the first answer, nothing asked twice.
    let again =
        t.review_games(authed(review("rv", "a", 1, 50, "ask-1"), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(again, asked);
    let done = watch_until(&mut t, "rv", |m| m.done == 2).await;
    assert_eq!((done.total, done.failed, done.eta_ms), (2, 0, 0));
    let mut ids: Vec<String> = done.jobs.iter().map(|j| j.game_id.clone()).collect();
    ids.sort();
    let mut expected = games.clone();
    expected.sort();
    assert_eq!(ids, expected);
    assert!(done.jobs.iter().all(|j| j.round == 1 && j.division == "a" && j.ms_per_turn == 50));
    assert!(done.jobs.iter().all(|j| (j.attempts, j.asked) == (1, 1)), "{done:?}");
    let logged = log_kinds(&mut t, "rv", "reviews_asked").await;
    assert_eq!(logged.len(), 1, "asked once");
    assert_eq!(
        (logged[0].detail.as_str(), logged[0].by.as_str(), logged[0].round),
        ("2 games at 50 ms a turn", "director", 1)
    );

    // Each review is AnalyzeGame's own at that time a turn, kept: answered from the store.
    let mut kept = Vec::new();
    for game in &games {
        let (from_store, answer) = analysed(&srv, game, 50).await;
        assert!(from_store, "game {game} reviewed by its job");
        let last = answer.last().unwrap();
        assert!(last.done);
        assert_eq!(last.seats.len(), 2);
        assert_eq!(answer.iter().filter(|m| m.turn.is_some()).count() as u32, last.turns);
        kept.push(answer);
    }

    // A corrected result asks its game's job again; the game is as its review judged it, so the
    // job is done without a review made again: AnalyzeGame answers the very same review.
    let first = &round.pairings[0];
    let (a, b) = (first.scores[0], first.scores[1]);
    let correct = pb::RecordResultRequest {
        slug: "rv".into(),
        division: "a".into(),
        round: 1,
        pairing: first.number,
        result: Some(pb::record_result_request::Result::Scores(pb::FinalScores { first: a + 1, second: b })),
        correct: true,
        request_id: String::new(),
    };
    t.record_result(authed(correct, DIRECTOR)).await.unwrap();
    let asked_again =
        |m: &pb::WatchReviewsResponse| m.jobs.iter().any(|j| j.game_id == first.game_id && j.asked == 2);
    let redone = watch_until(&mut t, "rv", |m| m.done == 2 && asked_again(m)).await;
    assert_eq!(states(&redone), [pb::ReviewJobState::Done; 2]);
    assert_eq!(redone.jobs.iter().map(|j| j.asked).sum::<u32>(), 3, "the other game's job asked once");
    let (from_store, answer) = analysed(&srv, &first.game_id, 50).await;
    assert!(from_store);
    let i = games.iter().position(|g| *g == first.game_id).unwrap();
    assert_eq!(answer, kept[i], "the kept review, not another");
}

#[tokio::test]
async fn a_division_that_reviews_its_games_reviews_each_as_it_ends() {
    let srv = start_directed(DIRECTOR).await;
    let mut t = srv.tournaments().await;
    t.create_tournament(authed(event("auto", four_bots(), 1), DIRECTOR)).await.unwrap();
    let set = pb::SetDivisionReviewsRequest {
        slug: "auto".into(),
        division: "a".into(),
        ms_per_turn: 50,
        request_id: String::new(),
    };
    let division =
        t.set_division_reviews(authed(set.clone(), DIRECTOR)).await.unwrap().into_inner().division.unwrap();
    assert_eq!(division.review_ms_per_turn, 50);
    let got = t.get_tournament(pb::GetTournamentRequest { slug: "auto".into() }).await.unwrap().into_inner();
    assert_eq!(got.tournament.unwrap().divisions[0].review_ms_per_turn, 50, "kept");
    let logged = log_kinds(&mut t, "auto", "reviews_set").await;
    assert_eq!(logged[0].detail, "each game is reviewed as it ends, at 50 ms a turn");
    let bad = pb::SetDivisionReviewsRequest { ms_per_turn: 49, ..set.clone() };
    let (refusal, message) = refused(t.set_division_reviews(authed(bad, DIRECTOR)).await);
    assert_eq!(refusal, Code::InvalidArgument);
    assert!(message.starts_with("ms_per_turn: 49: a review's time a turn is 50 to 60000 ms"), "{message}");

    let round = play_round(&mut t, "auto", 1).await;
    let done = watch_until(&mut t, "auto", |m| m.done == 2).await;
    assert_eq!(done.total, 2, "each game of the round, once");
    let mut ids: Vec<String> = done.jobs.iter().map(|j| j.game_id.clone()).collect();
    ids.sort();
    let mut expected: Vec<String> = round.pairings.iter().map(|p| p.game_id.clone()).collect();
    expected.sort();
    assert_eq!(ids, expected);
    for game in &ids {
        assert!(analysed(&srv, game, 50).await.0, "game {game} kept");
    }
    // Turned off: logged so.
    let off = pb::SetDivisionReviewsRequest { ms_per_turn: 0, ..set };
    assert_eq!(
        t.set_division_reviews(authed(off, DIRECTOR))
            .await
            .unwrap()
            .into_inner()
            .division
            .unwrap()
            .review_ms_per_turn,
        0
    );
    let logged = log_kinds(&mut t, "auto", "reviews_set").await;
    assert_eq!(logged[1].detail, "games are not reviewed as they end");
}

#[tokio::test]
async fn a_game_in_play_waits_for_its_end_and_bad_requests_are_named() {
    let srv = start_directed(DIRECTOR).await;
    let mut t = srv.tournaments().await;
    let made = t
        .create_tournament(authed(event("live", vec![person("Ann"), person("Bo")], 2), DIRECTOR))
        .await
        .unwrap()
        .into_inner();
    // Nothing started yet: nothing to review.
    let (refusal, message) = refused(t.review_games(authed(review("live", "", 0, 0, ""), DIRECTOR)).await);
    assert_eq!(
        (refusal, message.as_str()),
        (
            Code::FailedPrecondition,
            "no game of the tournament is played on the server yet: start its round first"
        )
    );
    let round = play_round(&mut t, "live", 1).await;
    let game = round.pairings[0].game_id.clone();
    let token_of = |n: u32| made.player_tokens.iter().find(|p| p.player == n).unwrap().token.clone();
    let resigner = token_of(round.pairings[0].first);

    // Refused, each naming what was wrong.
    let cases = [
        (
            review("live", "b", 0, 0, ""),
            Code::InvalidArgument,
            "division: \"b\": no such division (there are a)",
        ),
        (review("live", "a", 3, 0, ""), Code::InvalidArgument, "round: 3: the division has rounds 1 to 2"),
        (
            review("live", "a", 0, 70_000, ""),
            Code::InvalidArgument,
            "ms_per_turn: 70000: a review's time a turn is 50 to 60000 ms (0: 1000)",
        ),
        (
            review("live", "a", 2, 0, ""),
            Code::FailedPrecondition,
            "no game of round 2 of division \"a\" is played on the server yet: start its round first",
        ),
        (review("nowhere", "", 0, 0, ""), Code::NotFound, ""),
    ];
    for (request, code, message) in cases {
        let (got, said) = refused(t.review_games(authed(request, DIRECTOR)).await);
        assert_eq!(got, code, "{said}");
        if !message.is_empty() {
            assert_eq!(said, message);
        }
    }
    assert_eq!(code(t.review_games(review("live", "", 0, 0, "")).await), Code::Unauthenticated);
    let player = &made.player_tokens[0].token;
    assert_eq!(
        code(t.review_games(authed(review("live", "", 0, 0, ""), player)).await),
        Code::PermissionDenied
    );
    let watch = pb::WatchReviewsRequest { slug: "live".into() };
    assert_eq!(code(t.watch_reviews(authed(watch.clone(), player)).await), Code::PermissionDenied);
    assert_eq!(code(t.watch_reviews(watch).await), Code::Unauthenticated);

    // The whole tournament at the default time a turn: its one game, in play, waits.
    let asked = t.review_games(authed(review("live", "", 0, 0, ""), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!((asked.games, asked.ms_per_turn), (1, 1000));
    let waiting = watch_until(&mut t, "live", |m| states(m) == [pb::ReviewJobState::Waiting]).await;
    assert_eq!((waiting.done, waiting.eta_ms), (0, 0));
    // Its end enters its result, which asks the job again: reviewed, at AnalyzeGame's default.
    let mut g = srv.games().await;
    let resign = pb::submit_turn_request::Action::Resign(pb::Resign {});
    g.submit_turn(authed(turn(&game, 0, Some(resign)), &resigner)).await.unwrap();
    let done = watch_until(&mut t, "live", |m| m.done == 1).await;
    assert_eq!(done.jobs[0].ms_per_turn, 1000);
    let mut a = srv.analysis().await;
    let first = a
        .analyze_game(pb::AnalyzeGameRequest { game_id: game, ..Default::default() })
        .await
        .unwrap()
        .into_inner()
        .message()
        .await
        .unwrap()
        .unwrap();
    assert!(first.from_store, "AnalyzeGame's defaults are the job's review");

    // A game in play whose player withdraws ends as a forfeit: its job waits no longer.
    let second = play_round(&mut t, "live", 2).await.pairings[0].game_id.clone();
    let asked = t.review_games(authed(review("live", "a", 2, 50, ""), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(asked.games, 1);
    let of_second =
        |m: &pb::WatchReviewsResponse| m.jobs.iter().find(|j| j.game_id == second).map(|j| j.state());
    watch_until(&mut t, "live", |m| of_second(m) == Some(pb::ReviewJobState::Waiting)).await;
    let withdraw = pb::WithdrawPlayerRequest {
        slug: "live".into(),
        division: "a".into(),
        player: 1,
        request_id: String::new(),
    };
    t.withdraw_player(authed(withdraw, DIRECTOR)).await.unwrap();
    let done = watch_until(&mut t, "live", |m| of_second(m) == Some(pb::ReviewJobState::Done)).await;
    assert_eq!((done.total, done.done), (2, 2));
}

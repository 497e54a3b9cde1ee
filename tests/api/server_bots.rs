//! The bots' lobby over the wire: bot accounts registered by a director, each bot's one stream
//! of events (resumable by number, across a restart), challenges from bots and people accepted
//! into games (the bot's account token its seat's) or declined with a reason, rated games
//! changing Glicko-2 ratings by Woogles' arithmetic, every refusal with its code, and the limits
//! with their retry detail.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use dawgref::tournament::ratings::glicko::{WOOGLES, rate_game};
use std::time::Duration;
use tonic::Code;
use tonic::transport::Channel;
use tonic_types::StatusExt;

const ROOT: &str = "root-director-token";

type Bots = pb::bots_service_client::BotsServiceClient<Channel>;
type Events = tonic::Streaming<pb::WatchBotEventsResponse>;

fn accepts_all() -> pb::BotAccepts {
    pb::BotAccepts { rated: true, casual: true, bots: true, people: true, ..Default::default() }
}

async fn register(b: &mut Bots, name: &str, accepts: pb::BotAccepts) -> String {
    let request =
        pb::RegisterBotRequest { name: name.into(), owner: "the lab".into(), accepts: Some(accepts) };
    let answer = b.register_bot(authed(request, ROOT)).await.unwrap().into_inner();
    assert_eq!(answer.token.len(), 32);
    answer.token
}

pub(crate) async fn open_stream(b: &mut Bots, token: &str, from: u64) -> Events {
    b.watch_bot_events(authed(pb::WatchBotEventsRequest { from_event: from }, token))
        .await
        .unwrap()
        .into_inner()
}

/// The next event of a stream, within five seconds.
pub(crate) async fn next(events: &mut Events) -> pb::WatchBotEventsResponse {
    tokio::time::timeout(Duration::from_secs(5), events.message())
        .await
        .expect("an event in time")
        .unwrap()
        .unwrap()
}

/// A two-minute English game (blitz).
fn blitz() -> pb::TournamentGameSettings {
    pb::TournamentGameSettings {
        ruleset_name: "english".into(),
        clock: Some(pb::ClockSpec { initial_ms: 120_000, increment_ms: 5_000, ..Default::default() }),
        ..Default::default()
    }
}

fn challenge_by_bot(to: &str, rated: bool) -> pb::CreateChallengeRequest {
    pb::CreateChallengeRequest { bot: to.into(), game: Some(blitz()), rated, ..Default::default() }
}

fn challenge_by_person(to: &str, name: &str, rated: bool) -> pb::CreateChallengeRequest {
    pb::CreateChallengeRequest { name: name.into(), ..challenge_by_bot(to, rated) }
}

async fn lobby(limits: dawgref_events::LobbyLimits) -> TestServer {
    serve(lexicons_builder().director_token(ROOT).lobby_limits(limits)).await.0
}

/// A lobby with two bots online, alpha and beta, accepting anything: the server, a client, and
/// each bot's token and stream.
async fn two_bots(limits: dawgref_events::LobbyLimits) -> (TestServer, Bots, [String; 2], [Events; 2]) {
    let server = lobby(limits).await;
    let mut b = server.bots().await;
    let alpha = register(&mut b, "alpha", accepts_all()).await;
    let beta = register(&mut b, "beta", accepts_all()).await;
    let alpha_events = open_stream(&mut b, &alpha, 0).await;
    let beta_events = open_stream(&mut b, &beta, 0).await;
    (server, b, [alpha, beta], [alpha_events, beta_events])
}

#[tokio::test]
async fn a_challenge_declined_with_a_reason_is_heard_by_both_bots_and_answered_once() {
    let (_server, mut b, [alpha, beta], [mut alpha_events, mut beta_events]) =
        two_bots(Default::default()).await;
    let listed = b.list_bots(pb::ListBotsRequest {}).await.unwrap().into_inner().bots;
    assert_eq!(
        listed.iter().map(|b| (b.name.as_str(), b.online, b.owner.as_str())).collect::<Vec<_>>(),
        [("alpha", true, "the lab"), ("beta", true, "the lab")]
    );

    let sent =
        b.create_challenge(authed(challenge_by_bot("beta", false), &alpha)).await.unwrap().into_inner();
    assert_eq!(sent.token, "", "a bot's seat token is its own");
    let c = sent.challenge.unwrap();
    assert_eq!((c.from.as_str(), c.from_bot, c.to.as_str(), c.rated), ("alpha", true, "beta", false));
    assert_eq!(c.state(), pb::ChallengeState::Open);
    assert_eq!(c.time_class(), pb::TimeClass::Blitz, "120 s + 16 × 5 s = 200 s: blitz");
    assert_eq!(c.expires_unix_ms - c.created_unix_ms, 60_000);

    let heard = next(&mut beta_events).await;
    assert_eq!(heard.number, 1);
    let Some(pb::watch_bot_events_response::Kind::Challenged(offered)) = heard.kind else {
        panic!("{heard:?}")
    };
    assert_eq!(offered, c);

    let declined = pb::DeclineChallengeRequest {
        id: c.id.clone(),
        reason: pb::DeclineReason::TooFast as i32,
        text: "I play rapid".into(),
    };
    let answer =
        b.decline_challenge(authed(declined.clone(), &beta)).await.unwrap().into_inner().challenge.unwrap();
    assert_eq!(answer.state(), pb::ChallengeState::Declined);
    assert_eq!(
        (answer.decline_reason(), answer.decline_text.as_str()),
        (pb::DeclineReason::TooFast, "I play rapid")
    );

    for events in [&mut alpha_events, &mut beta_events] {
        let closed = next(events).await;
        let Some(pb::watch_bot_events_response::Kind::ChallengeClosed(closed)) = closed.kind else {
            panic!("{closed:?}")
        };
        assert_eq!(closed, answer);
    }
    let got = b.get_challenge(pb::GetChallengeRequest { id: c.id.clone() }).await.unwrap().into_inner();
    assert_eq!(got.challenge.unwrap(), answer);

    let (code, message) = refused(b.decline_challenge(authed(declined, &beta)).await);
    assert_eq!(code, Code::FailedPrecondition, "{message}");
    assert!(message.contains("answered already: declined"), "{message}");
    let accept = pb::AcceptChallengeRequest { id: c.id.clone() };
    assert_eq!(refused(b.accept_challenge(authed(accept, &beta)).await).0, Code::FailedPrecondition);
}

/// The scores' spread a rated game's end is read as for seat 0, as the lobby reads it.
fn expected_ratings(spread0: i32) -> [f64; 2] {
    let start = WOOGLES.start;
    [
        rate_game(start, start, spread0, 0.0, &WOOGLES).rating,
        rate_game(start, start, -spread0, 0.0, &WOOGLES).rating,
    ]
}

#[tokio::test]
async fn a_person_challenges_a_bot_the_game_is_played_to_its_end_and_both_are_rated() {
    let server = lobby(Default::default()).await;
    let mut b = server.bots().await;
    let mut g = server.games().await;
    let gamma = register(&mut b, "gamma", accepts_all()).await;
    let mut events = open_stream(&mut b, &gamma, 0).await;

    // Ann's rated challenge carries a secret of her own: her name is rated under it alone.
    let secret = "ann-keeps-this-secret";
    let sent = b
        .create_challenge(authed(challenge_by_person("gamma", "Ann", true), secret))
        .await
        .unwrap()
        .into_inner();
    let ann = sent.token;
    assert_eq!(ann.len(), 32, "a person's seat token");
    let c = sent.challenge.unwrap();
    assert_eq!((c.from.as_str(), c.from_bot), ("Ann", false));
    let Some(pb::watch_bot_events_response::Kind::Challenged(_)) = next(&mut events).await.kind else {
        panic!()
    };

    let accepted = b
        .accept_challenge(authed(pb::AcceptChallengeRequest { id: c.id.clone() }, &gamma))
        .await
        .unwrap()
        .into_inner()
        .challenge
        .unwrap();
    assert_eq!(accepted.state(), pb::ChallengeState::Accepted);
    let game_id = accepted.game_id.clone();
    let closed = next(&mut events).await;
    assert_eq!(closed.number, 2);
    let started = next(&mut events).await;
    let Some(pb::watch_bot_events_response::Kind::GameStarted(started)) = started.kind else {
        panic!("{started:?}")
    };
    assert_eq!((started.game_id.as_str(), started.challenge_id.as_str()), (game_id.as_str(), c.id.as_str()));
    let seen = b.get_challenge(pb::GetChallengeRequest { id: c.id.clone() }).await.unwrap().into_inner();
    assert_eq!(seen.challenge.unwrap().game_id, game_id, "the person finds the game by the challenge");

    // Each plays its seat with its own token: the bot with its account's, Ann with hers.
    let bot_view = view_of(&mut g, authed(pb::GetGameRequest { game_id: game_id.clone() }, &gamma)).await;
    let ann_view = view_of(&mut g, authed(pb::GetGameRequest { game_id: game_id.clone() }, &ann)).await;
    assert_eq!(bot_view.seats[started.seat as usize].name, "gamma");
    assert_eq!(ann_view.seats[1 - started.seat as usize].name, "Ann");
    assert_eq!(bot_view.my_seat, Some(started.seat));
    assert_eq!(ann_view.my_seat, Some(1 - started.seat));
    assert_eq!(bot_view.seats[0].time_left_ms, Some(120_000), "the challenge's clock");

    // Ann resigns: gamma wins, 0–0 on the board, a win by one point as rated.
    let resign = pb::SubmitTurnRequest {
        game_id: game_id.clone(),
        action: Some(pb::submit_turn_request::Action::Resign(pb::Resign {})),
        ..Default::default()
    };
    g.submit_turn(authed(resign, &ann)).await.unwrap();
    let ended = next(&mut events).await;
    let Some(pb::watch_bot_events_response::Kind::GameEnded(ended)) = ended.kind else { panic!("{ended:?}") };
    assert_eq!(
        (ended.game_id.as_str(), ended.seat, ended.winners.clone()),
        (game_id.as_str(), started.seat, vec![started.seat])
    );
    let [winner, loser] = expected_ratings(1);
    let rating = ended.rating.unwrap();
    assert!((rating.rating - winner).abs() < 1e-9, "{} != {winner}", rating.rating);
    assert_eq!(rating.games, 1);

    let board = b.list_ratings(pb::ListRatingsRequest::default()).await.unwrap().into_inner().ratings;
    let rows: Vec<(String, bool, String, pb::TimeClass)> = board
        .iter()
        .map(|r| {
            let rating = r.rating.as_ref().unwrap();
            (r.name.clone(), r.bot, rating.ruleset_name.clone(), rating.time_class())
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("gamma".to_string(), true, "english".to_string(), pb::TimeClass::Blitz),
            ("Ann".to_string(), false, "english".to_string(), pb::TimeClass::Blitz)
        ]
    );
    assert!((board[1].rating.as_ref().unwrap().rating - loser).abs() < 1e-9);
    let other_class =
        pb::ListRatingsRequest { time_class: pb::TimeClass::Rapid as i32, ..Default::default() };
    assert!(b.list_ratings(other_class).await.unwrap().into_inner().ratings.is_empty());
    let listed = b.list_bots(pb::ListBotsRequest {}).await.unwrap().into_inner().bots;
    assert_eq!(listed[0].ratings.len(), 1);
    assert!((listed[0].ratings[0].rating - winner).abs() < 1e-9);
}

#[tokio::test]
async fn two_bots_play_a_rated_game_and_each_hears_its_start_and_end() {
    let server = lobby(Default::default()).await;
    let mut b = server.bots().await;
    let mut g = server.games().await;
    let alpha = register(&mut b, "alpha", accepts_all()).await;
    let beta = register(&mut b, "beta", accepts_all()).await;
    let mut alpha_events = open_stream(&mut b, &alpha, 0).await;
    let mut beta_events = open_stream(&mut b, &beta, 0).await;
    let c = b.create_challenge(authed(challenge_by_bot("beta", true), &alpha)).await.unwrap().into_inner();
    let id = c.challenge.unwrap().id;
    next(&mut beta_events).await;
    b.accept_challenge(authed(pb::AcceptChallengeRequest { id: id.clone() }, &beta)).await.unwrap();
    let mut seats = Vec::new();
    for (events, token) in [(&mut alpha_events, &alpha), (&mut beta_events, &beta)] {
        let closed = next(events).await;
        assert!(matches!(closed.kind, Some(pb::watch_bot_events_response::Kind::ChallengeClosed(_))));
        let Some(pb::watch_bot_events_response::Kind::GameStarted(s)) = next(events).await.kind else {
            panic!()
        };
        seats.push((s.game_id, s.seat, token.clone()));
    }
    assert_eq!(seats[0].0, seats[1].0, "one game");
    assert_ne!(seats[0].1, seats[1].1, "two seats");
    // Alpha resigns; beta wins.
    let resign = pb::SubmitTurnRequest {
        game_id: seats[0].0.clone(),
        action: Some(pb::submit_turn_request::Action::Resign(pb::Resign {})),
        ..Default::default()
    };
    g.submit_turn(authed(resign, &alpha)).await.unwrap();
    let [winner, loser] = expected_ratings(1);
    for (events, expected) in [(&mut alpha_events, loser), (&mut beta_events, winner)] {
        let Some(pb::watch_bot_events_response::Kind::GameEnded(e)) = next(events).await.kind else {
            panic!()
        };
        assert!((e.rating.unwrap().rating - expected).abs() < 1e-9);
    }
    let limits = b.get_bot_limits(authed(pb::GetBotLimitsRequest {}, &alpha)).await.unwrap().into_inner();
    assert_eq!(limits.bot_games_left_today, 99, "one game against a bot of 100 a day");
    assert_eq!(limits.challenges_left, 19, "one challenge of 20 a minute");
    assert!(limits.next_challenge_unix_ms > 0);
}

#[tokio::test]
async fn every_bad_call_is_refused_with_its_code() {
    let server = lobby(Default::default()).await;
    let mut b = server.bots().await;
    let picky = pb::BotAccepts {
        rulesets: vec!["english".into()],
        time_classes: vec![pb::TimeClass::Rapid as i32],
        casual: true,
        bots: true,
        people: true,
        ..Default::default()
    };
    let alpha = register(&mut b, "alpha", accepts_all()).await;
    let rapid = register(&mut b, "rapid", picky).await;
    let asleep = register(&mut b, "asleep", accepts_all()).await;
    let _alpha_events = open_stream(&mut b, &alpha, 0).await;
    let _rapid_events = open_stream(&mut b, &rapid, 0).await;

    // Registering.
    let new = |name: &str| pb::RegisterBotRequest {
        name: name.into(),
        owner: "o".into(),
        accepts: Some(accepts_all()),
    };
    assert_eq!(refused(b.register_bot(new("x")).await).0, Code::Unauthenticated);
    assert_eq!(refused(b.register_bot(authed(new("x"), &alpha)).await).0, Code::PermissionDenied);
    assert_eq!(refused(b.register_bot(authed(new("alpha"), ROOT)).await).0, Code::AlreadyExists);
    let (code, message) = refused(b.register_bot(authed(new("Alpha Bot"), ROOT)).await);
    assert_eq!((code, message.starts_with("name:")), (Code::InvalidArgument, true), "{message}");
    let no_game = pb::RegisterBotRequest { accepts: Some(pb::BotAccepts::default()), ..new("y") };
    assert_eq!(refused(b.register_bot(authed(no_game, ROOT)).await).0, Code::InvalidArgument);
    let klingon = pb::RegisterBotRequest {
        accepts: Some(pb::BotAccepts { rulesets: vec!["klingon".into()], ..accepts_all() }),
        ..new("z")
    };
    let (code, message) = refused(b.register_bot(authed(klingon, ROOT)).await);
    assert_eq!((code, message.as_str()), (Code::InvalidArgument, "accepts.rulesets: no ruleset \"klingon\""));
    // A director key manages bots only with its label.
    let mut d = server.directors().await;
    for (name, label) in [("desk", ("tournament", "open")), ("lobby", ("bots", "manage"))] {
        let key = pb::CreateDirectorKeyRequest {
            name: name.into(),
            labels: [(label.0.to_string(), label.1.to_string())].into(),
        };
        let token = d.create_director_key(authed(key, ROOT)).await.unwrap().into_inner().token;
        let answer = b.register_bot(authed(new(&format!("by-{name}")), &token)).await;
        assert_eq!(
            answer.map_or_else(|s| s.code(), |_| Code::Ok),
            if name == "lobby" { Code::Ok } else { Code::PermissionDenied }
        );
    }

    // Challenging.
    let (code, message) =
        refused(b.create_challenge(authed(challenge_by_bot("nobody", false), &alpha)).await);
    assert_eq!((code, message.as_str()), (Code::NotFound, "no bot named \"nobody\""));
    let (code, message) = refused(b.create_challenge(authed(challenge_by_bot("rapid", false), &alpha)).await);
    assert_eq!(code, Code::InvalidArgument);
    assert_eq!(message, "game.clock: rapid plays rapid, not blitz games");
    let russian = pb::CreateChallengeRequest {
        game: Some(pb::TournamentGameSettings { ruleset_name: "russian".into(), ..blitz() }),
        ..challenge_by_bot("rapid", false)
    };
    let (code, message) = refused(b.create_challenge(authed(russian, &alpha)).await);
    assert_eq!(
        (code, message.as_str()),
        (Code::InvalidArgument, "game.ruleset: rapid plays english, not russian")
    );
    let rapid_game = |rated| pb::CreateChallengeRequest {
        game: Some(pb::TournamentGameSettings {
            clock: Some(pb::ClockSpec { initial_ms: 600_000, ..Default::default() }),
            ..blitz()
        }),
        ..challenge_by_bot("rapid", rated)
    };
    let (code, message) = refused(b.create_challenge(authed(rapid_game(true), &alpha)).await);
    assert_eq!((code, message.as_str()), (Code::InvalidArgument, "rated: rapid plays no rated games"));
    let (code, message) =
        refused(b.create_challenge(authed(challenge_by_bot("asleep", false), &alpha)).await);
    assert_eq!(code, Code::FailedPrecondition);
    assert!(message.starts_with("asleep is offline"), "{message}");
    assert_eq!(
        refused(b.create_challenge(authed(challenge_by_bot("alpha", false), &alpha)).await).0,
        Code::InvalidArgument
    );
    assert_eq!(
        refused(b.create_challenge(challenge_by_bot("alpha", false)).await).0,
        Code::InvalidArgument,
        "a person without a name"
    );
    let (code, message) = refused(b.create_challenge(challenge_by_person("alpha", "Ann", true)).await);
    assert_eq!(code, Code::InvalidArgument, "a person's rated challenge without their token");
    assert!(message.starts_with("rated: a person's rated challenge carries their own token"), "{message}");
    b.create_challenge(authed(challenge_by_person("alpha", "Ann", true), "ann's")).await.unwrap();
    let (code, message) =
        refused(b.create_challenge(authed(challenge_by_person("alpha", "Ann", true), "not ann's")).await);
    assert_eq!((code, message.as_str()), (Code::PermissionDenied, "\"Ann\" is rated under another token"));
    b.create_challenge(authed(challenge_by_person("alpha", "Ann", false), "not ann's")).await.unwrap();
    let bad_lexicon = pb::CreateChallengeRequest {
        game: Some(pb::TournamentGameSettings { lexicon: "nope".into(), ..blitz() }),
        ..challenge_by_person("alpha", "Ann", false)
    };
    assert_eq!(refused(b.create_challenge(bad_lexicon).await).0, Code::InvalidArgument);
    let too_short =
        pb::CreateChallengeRequest { expires_seconds: 2, ..challenge_by_person("alpha", "Ann", false) };
    let (code, message) = refused(b.create_challenge(too_short).await);
    assert_eq!(
        (code, message.as_str()),
        (Code::InvalidArgument, "expires_seconds: 2 s: a challenge waits 5 to 3600 s")
    );

    // Answering.
    let open =
        b.create_challenge(authed(rapid_game(false), &alpha)).await.unwrap().into_inner().challenge.unwrap();
    let accept = || pb::AcceptChallengeRequest { id: open.id.clone() };
    assert_eq!(
        refused(b.accept_challenge(authed(accept(), &alpha)).await).0,
        Code::PermissionDenied,
        "not alpha's to answer"
    );
    assert_eq!(refused(b.accept_challenge(authed(accept(), &asleep)).await).0, Code::PermissionDenied);
    assert_eq!(refused(b.accept_challenge(accept()).await).0, Code::Unauthenticated);
    assert_eq!(
        refused(
            b.withdraw_challenge(authed(pb::WithdrawChallengeRequest { id: open.id.clone() }, &rapid)).await
        )
        .0,
        Code::PermissionDenied
    );
    let unknown = pb::AcceptChallengeRequest { id: uuid::Uuid::new_v4().to_string() };
    assert_eq!(refused(b.accept_challenge(authed(unknown, &rapid)).await).0, Code::NotFound);
    let (code, message) = refused(b.get_challenge(pb::GetChallengeRequest { id: "nope".into() }).await);
    assert_eq!((code, message.as_str()), (Code::InvalidArgument, "id: \"nope\" is no challenge's id"));
    let withdrawn = b
        .withdraw_challenge(authed(pb::WithdrawChallengeRequest { id: open.id.clone() }, &alpha))
        .await
        .unwrap();
    assert_eq!(withdrawn.into_inner().challenge.unwrap().state(), pb::ChallengeState::Withdrawn);
    assert_eq!(
        refused(b.accept_challenge(authed(accept(), &rapid)).await).0,
        Code::FailedPrecondition,
        "withdrawn"
    );

    // Streams and suspension.
    let unknown = b
        .watch_bot_events(authed(pb::WatchBotEventsRequest::default(), "0123456789abcdef0123456789abcdef"))
        .await;
    assert_eq!(refused(unknown).0, Code::Unauthenticated);
    b.suspend_bot(authed(pb::SuspendBotRequest { name: "asleep".into(), suspended: true }, ROOT))
        .await
        .unwrap();
    assert_eq!(
        refused(b.watch_bot_events(authed(pb::WatchBotEventsRequest::default(), &asleep)).await).0,
        Code::FailedPrecondition
    );
    assert_eq!(
        refused(
            b.suspend_bot(authed(pb::SuspendBotRequest { name: "nobody".into(), suspended: true }, ROOT))
                .await
        )
        .0,
        Code::NotFound
    );
    assert_eq!(
        refused(
            b.suspend_bot(authed(pb::SuspendBotRequest { name: "asleep".into(), suspended: false }, &alpha))
                .await
        )
        .0,
        Code::PermissionDenied
    );

    // A rotated token: the old one is no bot's, the new one is.
    let rotated = b
        .rotate_bot_token(authed(pb::RotateBotTokenRequest { name: "alpha".into() }, &alpha))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        refused(b.get_bot_limits(authed(pb::GetBotLimitsRequest {}, &alpha)).await).0,
        Code::Unauthenticated
    );
    b.get_bot_limits(authed(pb::GetBotLimitsRequest {}, &rotated.token)).await.unwrap();
    assert_eq!(
        refused(
            b.rotate_bot_token(authed(pb::RotateBotTokenRequest { name: "rapid".into() }, &rotated.token))
                .await
        )
        .0,
        Code::PermissionDenied
    );
}

#[tokio::test]
async fn a_limit_reached_says_which_and_when_to_retry() {
    let limits =
        dawgref_events::LobbyLimits { bot_games_per_day: 1, challenges_per_minute: 3, ..Default::default() };
    let (_server, mut b, [alpha, beta], [_a, _b]) = two_bots(limits).await;
    let first =
        b.create_challenge(authed(challenge_by_bot("beta", false), &alpha)).await.unwrap().into_inner();
    b.accept_challenge(authed(pb::AcceptChallengeRequest { id: first.challenge.unwrap().id }, &beta))
        .await
        .unwrap();

    // One game against a bot a day: the next challenge is refused until midnight (UTC).
    let status = b.create_challenge(authed(challenge_by_bot("beta", false), &alpha)).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert_eq!(status.get_details_error_info().unwrap().reason, "bot_games_per_day");
    let retry = status.get_details_retry_info().unwrap().retry_delay.unwrap();
    assert!(retry > Duration::ZERO && retry <= Duration::from_secs(86_400), "{retry:?}");
    let limits = b.get_bot_limits(authed(pb::GetBotLimitsRequest {}, &alpha)).await.unwrap().into_inner();
    assert_eq!(limits.bot_games_left_today, 0);
    // A person may still challenge beta.
    b.create_challenge(challenge_by_person("beta", "Ann", false)).await.unwrap();

    // Three challenges a minute, at once, then one each 20 s: a fourth is refused.
    let gamma = register(&mut b, "gamma", accepts_all()).await;
    let delta = register(&mut b, "delta", accepts_all()).await;
    let _d = open_stream(&mut b, &delta, 0).await;
    for left in [2, 1, 0] {
        b.create_challenge(authed(challenge_by_bot("delta", false), &gamma)).await.unwrap();
        let limits = b.get_bot_limits(authed(pb::GetBotLimitsRequest {}, &gamma)).await.unwrap().into_inner();
        assert_eq!(limits.challenges_left, left);
    }
    let status = b.create_challenge(authed(challenge_by_bot("delta", false), &gamma)).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted);
    assert_eq!(status.get_details_error_info().unwrap().reason, "challenges_per_minute");
    let retry = status.get_details_retry_info().unwrap().retry_delay.unwrap();
    assert!(
        retry > Duration::ZERO && retry <= Duration::from_secs(20),
        "a third of a minute at most: {retry:?}"
    );
}

#[tokio::test]
async fn the_servers_own_bot_challenges_a_bot_as_a_sparring_partner_and_is_rated() {
    let server = lobby(Default::default()).await;
    let mut b = server.bots().await;
    let mut g = server.games().await;
    let gamma = register(&mut b, "gamma", accepts_all()).await;
    let mut events = open_stream(&mut b, &gamma, 0).await;
    let request = pb::CreateChallengeRequest {
        server_bot: pb::BotLevel::Weak as i32,
        ..challenge_by_bot("gamma", true)
    };
    let sent = b.create_challenge(request).await.unwrap().into_inner();
    assert_eq!(sent.token, "", "nobody plays the server's seat");
    let c = sent.challenge.unwrap();
    assert_eq!((c.from.as_str(), c.from_bot), ("server-weak", true));
    next(&mut events).await;
    // Nobody but the clock withdraws it.
    assert_eq!(
        refused(b.withdraw_challenge(pb::WithdrawChallengeRequest { id: c.id.clone() }).await).0,
        Code::Unauthenticated
    );
    b.accept_challenge(authed(pb::AcceptChallengeRequest { id: c.id.clone() }, &gamma)).await.unwrap();
    next(&mut events).await;
    let Some(pb::watch_bot_events_response::Kind::GameStarted(started)) = next(&mut events).await.kind else {
        panic!()
    };
    let view = view_of(&mut g, pb::GetGameRequest { game_id: started.game_id.clone() }).await;
    let server_seat = 1 - started.seat as usize;
    assert_eq!((view.seats[server_seat].name.as_str(), view.seats[server_seat].bot), ("server-weak", true));
    let resign = pb::SubmitTurnRequest {
        game_id: started.game_id.clone(),
        action: Some(pb::submit_turn_request::Action::Resign(pb::Resign {})),
        ..Default::default()
    };
    g.submit_turn(authed(resign, &gamma)).await.unwrap();
    let Some(pb::watch_bot_events_response::Kind::GameEnded(ended)) = next(&mut events).await.kind else {
        panic!()
    };
    // The server's bot may have moved first: it wins by its lead, or by one point at least.
    let seat = started.seat as usize;
    let lead = (ended.scores[1 - seat] - ended.scores[seat]).max(1);
    let [winner, loser] = expected_ratings(lead);
    assert!((ended.rating.clone().unwrap().rating - loser).abs() < 1e-9, "{ended:?}");
    let board = b.list_ratings(pb::ListRatingsRequest::default()).await.unwrap().into_inner().ratings;
    assert_eq!(
        board.iter().map(|r| (r.name.as_str(), r.bot)).collect::<Vec<_>>(),
        [("server-weak", true), ("gamma", true)]
    );
    assert!((board[0].rating.as_ref().unwrap().rating - winner).abs() < 1e-9);
    let limits = b.get_bot_limits(authed(pb::GetBotLimitsRequest {}, &gamma)).await.unwrap().into_inner();
    assert_eq!(limits.bot_games_left_today, 99, "the server's bot is a bot");
    // No account takes the server's bots' names.
    let taken = pb::RegisterBotRequest {
        name: "server-weak".into(),
        owner: "o".into(),
        accepts: Some(accepts_all()),
    };
    assert_eq!(refused(b.register_bot(authed(taken, ROOT)).await).0, Code::InvalidArgument);
}

#[tokio::test]
async fn an_open_challenge_expires_and_both_sides_hear_it() {
    let limits =
        dawgref_events::LobbyLimits { challenge_wait: Duration::from_millis(300), ..Default::default() };
    let (_server, mut b, [alpha, beta], [mut alpha_events, mut beta_events]) = two_bots(limits).await;
    let c = b.create_challenge(authed(challenge_by_bot("beta", false), &alpha)).await.unwrap().into_inner();
    let c = c.challenge.unwrap();
    assert_eq!(c.expires_unix_ms - c.created_unix_ms, 300);
    next(&mut beta_events).await;
    for events in [&mut alpha_events, &mut beta_events] {
        let Some(pb::watch_bot_events_response::Kind::ChallengeClosed(closed)) = next(events).await.kind
        else {
            panic!()
        };
        assert_eq!(closed.state(), pb::ChallengeState::Expired);
        assert!(closed.closed_unix_ms >= c.expires_unix_ms);
    }
    let (code, message) =
        refused(b.accept_challenge(authed(pb::AcceptChallengeRequest { id: c.id.clone() }, &beta)).await);
    assert_eq!((code, message.contains("expired")), (Code::FailedPrecondition, true), "{message}");
    let got = b.get_challenge(pb::GetChallengeRequest { id: c.id }).await.unwrap().into_inner();
    assert_eq!(got.challenge.unwrap().state(), pb::ChallengeState::Expired);
}

#[tokio::test]
async fn accounts_open_challenges_and_streams_outlive_a_restart() {
    let dir = TempDir::new("lobby-restart");
    let start = || async {
        let store = std::sync::Arc::new(dawgref::store::SqliteStore::open(&dir.0).unwrap());
        serve(lexicons_builder().store(store).director_token(ROOT)).await.0
    };
    let server = start().await;
    let mut b = server.bots().await;
    let gamma = register(&mut b, "gamma", accepts_all()).await;
    let mut events = open_stream(&mut b, &gamma, 0).await;
    let first = b.create_challenge(challenge_by_person("gamma", "Ann", false)).await.unwrap().into_inner();
    let waiting =
        pb::CreateChallengeRequest { expires_seconds: 600, ..challenge_by_person("gamma", "Bob", false) };
    let second = b.create_challenge(waiting).await.unwrap().into_inner().challenge.unwrap();
    let one = next(&mut events).await;
    let two = next(&mut events).await;
    assert_eq!((one.number, two.number), (1, 2));
    drop(events);
    // Its stream closed, the bot is offline (on every replica: its presence let go).
    let offline = async {
        while b.list_bots(pb::ListBotsRequest {}).await.unwrap().into_inner().bots[0].online {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(5), offline).await.expect("offline once its stream closed");
    drop(b);
    server.stop().await;

    let server = start().await;
    let mut b = server.bots().await;
    let listed = b.list_bots(pb::ListBotsRequest {}).await.unwrap().into_inner().bots;
    assert_eq!(listed.iter().map(|b| (b.name.as_str(), b.online)).collect::<Vec<_>>(), [("gamma", false)]);
    let kept = b.get_challenge(pb::GetChallengeRequest { id: second.id.clone() }).await.unwrap().into_inner();
    assert_eq!(kept.challenge.unwrap(), second, "open, as it was");
    // The stream resumes from the number the bot asks, with the same events.
    let mut events = open_stream(&mut b, &gamma, 2).await;
    assert_eq!(next(&mut events).await, two);
    let mut from_start = open_stream(&mut b, &gamma, 1).await;
    assert_eq!(next(&mut from_start).await, one);
    // The person's token, kept as its hash, still withdraws; the bot's still accepts.
    b.withdraw_challenge(authed(
        pb::WithdrawChallengeRequest { id: first.challenge.unwrap().id },
        &first.token,
    ))
    .await
    .unwrap();
    let accepted =
        b.accept_challenge(authed(pb::AcceptChallengeRequest { id: second.id.clone() }, &gamma)).await;
    assert_eq!(accepted.unwrap().into_inner().challenge.unwrap().state(), pb::ChallengeState::Accepted);
    let closed = next(&mut events).await;
    assert_eq!(closed.number, 3);
    assert!(matches!(closed.kind, Some(pb::watch_bot_events_response::Kind::ChallengeClosed(_))));
}

#[tokio::test]
async fn a_suspended_bots_challenges_close_and_its_stream_ends_as_a_rotated_tokens_does() {
    let (_server, mut b, [alpha, beta], [mut alpha_events, mut beta_events]) =
        two_bots(Default::default()).await;
    let to_beta =
        b.create_challenge(authed(challenge_by_bot("beta", false), &alpha)).await.unwrap().into_inner();
    let to_alpha =
        b.create_challenge(authed(challenge_by_bot("alpha", false), &beta)).await.unwrap().into_inner();
    next(&mut beta_events).await;
    next(&mut alpha_events).await;

    b.suspend_bot(authed(pb::SuspendBotRequest { name: "beta".into(), suspended: true }, ROOT))
        .await
        .unwrap();
    let state = async |id: &str, b: &mut Bots| {
        let c = b
            .get_challenge(pb::GetChallengeRequest { id: id.into() })
            .await
            .unwrap()
            .into_inner()
            .challenge
            .unwrap();
        (c.state(), c.decline_text)
    };
    assert_eq!(
        state(&to_beta.challenge.unwrap().id, &mut b).await,
        (pb::ChallengeState::Declined, "beta is suspended".into())
    );
    assert_eq!(
        state(&to_alpha.challenge.unwrap().id, &mut b).await,
        (pb::ChallengeState::Withdrawn, String::new())
    );
    // Beta's stream hears its challenges closed, then ends: suspended.
    let ended = async |events: &mut Events| loop {
        match tokio::time::timeout(Duration::from_secs(5), events.message()).await.expect("in time") {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("ended without a status"),
            Err(status) => return status.code(),
        }
    };
    assert_eq!(ended(&mut beta_events).await, Code::FailedPrecondition);
    // Alpha hears both closed.
    for _ in 0..2 {
        assert!(matches!(
            next(&mut alpha_events).await.kind,
            Some(pb::watch_bot_events_response::Kind::ChallengeClosed(_))
        ));
    }
    let listed = b.list_bots(pb::ListBotsRequest {}).await.unwrap().into_inner().bots;
    assert_eq!(
        listed.iter().map(|b| (b.name.as_str(), b.suspended)).collect::<Vec<_>>(),
        [("alpha", false), ("beta", true)]
    );

    // A new token: the stream opened with the old one ends, the new one opens another.
    let rotated =
        b.rotate_bot_token(authed(pb::RotateBotTokenRequest { name: "alpha".into() }, ROOT)).await.unwrap();
    assert_eq!(ended(&mut alpha_events).await, Code::Unauthenticated);
    let token = rotated.into_inner().token;
    let _again = open_stream(&mut b, &token, 0).await;
}

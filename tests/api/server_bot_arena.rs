//! Bots' arenas over the wire: a tournament that enters registered bots by their accounts (they
//! play through the public API with their own tokens) or admits only bots; each bot told its
//! game when a round starts, its seat marked as a bot's, its result entered from its game, its
//! rotated token carried to its tournament and its game in play; every refusal with its code.

use crate::common;

use crate::server_bots::next;
use common::server::*;
use dawgref::proto::v1 as pb;
use pb::watch_bot_events_response::Kind;
use std::time::Duration;
use tonic::Code;
use tonic::transport::Channel;

const ROOT: &str = "root-director-token";

type Bots = pb::bots_service_client::BotsServiceClient<Channel>;
type Tournaments = pb::tournaments_service_client::TournamentsServiceClient<Channel>;
type Events = tonic::Streaming<pb::WatchBotEventsResponse>;

async fn register(b: &mut Bots, name: &str) -> String {
    let accepts =
        pb::BotAccepts { rated: true, casual: true, bots: true, people: true, ..Default::default() };
    let request =
        pb::RegisterBotRequest { name: name.into(), owner: "the lab".into(), accepts: Some(accepts) };
    b.register_bot(authed(request, ROOT)).await.unwrap().into_inner().token
}

async fn open_stream(b: &mut Bots, token: &str) -> Events {
    crate::server_bots::open_stream(b, token, 0).await
}

fn account(name: &str) -> pb::TournamentPlayerSpec {
    pb::TournamentPlayerSpec { bot_account: name.into(), ..Default::default() }
}

fn server_bot(name: &str) -> pb::TournamentPlayerSpec {
    pb::TournamentPlayerSpec { name: name.into(), bot: Some(pb::BotLevel::Weak as i32), ..Default::default() }
}

fn person(name: &str) -> pb::TournamentPlayerSpec {
    pb::TournamentPlayerSpec { name: name.into(), ..Default::default() }
}

fn division(name: &str, bots_only: bool, players: Vec<pb::TournamentPlayerSpec>) -> pb::DivisionSpec {
    let rounds = vec![pb::RoundSpec { method: pb::PairingMethod::RoundRobin as i32, ..Default::default() }];
    pb::DivisionSpec { name: name.into(), players, rounds, bots_only, ..Default::default() }
}

fn arena(slug: &str, divisions: Vec<pb::DivisionSpec>) -> pb::CreateTournamentRequest {
    pb::CreateTournamentRequest {
        name: format!("The {slug}"),
        slug: slug.into(),
        game: Some(pb::TournamentGameSettings { ruleset_name: "english".into(), ..Default::default() }),
        divisions,
        seed: Some(11),
        ..Default::default()
    }
}

async fn lobby() -> (TestServer, Bots, Tournaments) {
    let server = serve(lexicons_builder().director_token(ROOT)).await.0;
    let (b, t) = (server.bots().await, server.tournaments().await);
    (server, b, t)
}

/// Round 1 of `division` paired and started.
async fn start_round_one(t: &mut Tournaments, slug: &str, division: &str) {
    let pair =
        pb::PairRoundRequest { slug: slug.into(), division: division.into(), round: 1, ..Default::default() };
    t.pair_round(authed(pair, ROOT)).await.unwrap();
    let start = pb::StartRoundRequest {
        slug: slug.into(),
        division: division.into(),
        round: 1,
        ..Default::default()
    };
    t.start_round(authed(start, ROOT)).await.unwrap();
}

/// The tournament's game a bot is told of next on its stream.
async fn told_game(events: &mut Events) -> pb::TournamentGame {
    loop {
        match next(events).await.kind {
            Some(Kind::TournamentGame(game)) => return game,
            Some(_) => continue,
            None => panic!("an event without its kind"),
        }
    }
}

fn resign(game_id: &str) -> pb::SubmitTurnRequest {
    pb::SubmitTurnRequest {
        game_id: game_id.into(),
        action: Some(pb::submit_turn_request::Action::Resign(pb::Resign {})),
        ..Default::default()
    }
}

/// Round 1's lines of the tournament's first division once every result is in (ten seconds).
async fn results_in(t: &mut Tournaments, slug: &str) -> Vec<pb::TournamentPairing> {
    for _ in 0..200 {
        let got =
            t.get_tournament(pb::GetTournamentRequest { slug: slug.into() }).await.unwrap().into_inner();
        let d = got.tournament.unwrap().divisions.remove(0);
        let lines = d.rounds[0].pairings.clone();
        if lines.iter().all(|l| l.done) {
            return lines;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("round 1's results did not come in")
}

#[tokio::test]
async fn a_bots_arena_tells_each_bot_its_game_marks_its_seat_and_takes_its_result() {
    let (server, mut b, mut t) = lobby().await;
    let mut g = server.games().await;
    let alpha = register(&mut b, "alpha").await;
    let beta = register(&mut b, "beta").await;
    let mut alpha_events = open_stream(&mut b, &alpha).await;
    let mut beta_events = open_stream(&mut b, &beta).await;
    let players = vec![account("alpha"), account("beta"), server_bot("Sparky"), server_bot("Rusty")];
    let made = t.create_tournament(authed(arena("arena", vec![division("bots", true, players)]), ROOT)).await;
    let made = made.unwrap().into_inner();
    assert_eq!(made.player_tokens, [], "no token is made for a bot: an account plays with its own");
    let d = &made.tournament.unwrap().divisions[0];
    assert!(d.bots_only);
    assert_eq!(
        d.players
            .iter()
            .map(|p| (p.name.as_str(), p.bot_account.as_str(), p.bot.is_some()))
            .collect::<Vec<_>>(),
        [("alpha", "alpha", false), ("beta", "beta", false), ("Sparky", "", true), ("Rusty", "", true)]
    );

    start_round_one(&mut t, "arena", "bots").await;
    let round =
        t.get_tournament(pb::GetTournamentRequest { slug: "arena".into() }).await.unwrap().into_inner();
    let lines = round.tournament.unwrap().divisions[0].rounds[0].pairings.clone();
    assert_eq!(lines.len(), 2, "four players, two games");
    for (events, token, number, name) in
        [(&mut alpha_events, &alpha, 1, "alpha"), (&mut beta_events, &beta, 2, "beta")]
    {
        let told = told_game(events).await;
        let line = lines.iter().find(|l| l.first == number || l.second == number).unwrap();
        let (seat, opponent) = if line.first == number { (0, line.second) } else { (1, line.first) };
        assert_eq!(
            (told.tournament.as_str(), told.division.as_str(), told.round, told.game_id.as_str(), told.seat),
            ("arena", "bots", 1, line.game_id.as_str(), seat)
        );
        assert_eq!(told.opponent_number, opponent);
        let names = ["alpha", "beta", "Sparky", "Rusty"];
        assert_eq!(told.opponent, names[opponent as usize - 1]);
        // Its token makes it the player, with its game.
        let mine = t.get_tournament(authed(pb::GetTournamentRequest { slug: "arena".into() }, token)).await;
        let you = mine.unwrap().into_inner().tournament.unwrap().you.unwrap();
        assert_eq!(
            (you.division.as_str(), you.player, you.current_game_id.as_str()),
            ("bots", number, line.game_id.as_str())
        );
        // Its seat is marked as the bot's account's.
        let view =
            g.get_game(pb::GetGameRequest { game_id: told.game_id.clone() }).await.unwrap().into_inner();
        let seats = view.view.unwrap().seats;
        assert_eq!(
            (seats[seat as usize].name.as_str(), seats[seat as usize].bot_account.as_str()),
            (name, name)
        );
        assert!(!seats[seat as usize].bot, "played through the public API, not by the server's bot");
        assert_eq!(
            seats[1 - seat as usize].bot_account,
            if opponent <= 2 { names[opponent as usize - 1] } else { "" }
        );
    }

    // Each bot resigns its game with its own token; the results enter the tournament.
    for (token, number) in [(&alpha, 1), (&beta, 2)] {
        let line = lines.iter().find(|l| l.first == number || l.second == number).unwrap();
        match g.submit_turn(authed(resign(&line.game_id), token)).await {
            Ok(_) => {}
            // Alpha and beta met, and alpha's resignation ended the game.
            Err(status) if status.code() == Code::FailedPrecondition && line.first + line.second == 3 => {}
            Err(status) => panic!("{status:?}"),
        }
    }
    // Each game lost by the bot that resigned it (alpha's when it is in it): as a forfeit when
    // it resigned while ahead or level, else by the scores.
    for line in results_in(&mut t, "arena").await {
        let resigned = if line.first == 1 || line.second == 1 { 1 } else { 2 };
        let lost_by_scores = match line.scores.as_slice() {
            [first, second] if resigned == line.first => first < second,
            [first, second] => second < first,
            _ => false,
        };
        assert!(line.forfeited_by == resigned || (line.forfeited_by == 0 && lost_by_scores), "{line:?}");
    }
    // Each bot hears its game's end on its stream, with its seat, the scores and the winner
    // (alpha's resignation lost it its game; beta's game was lost by beta unless it met alpha).
    for (events, number) in [(&mut alpha_events, 1), (&mut beta_events, 2)] {
        let line = lines.iter().find(|l| l.first == number || l.second == number).unwrap();
        let ended = loop {
            if let Some(Kind::GameEnded(ended)) = next(events).await.kind {
                break ended;
            }
        };
        let seat = if line.first == number { 0 } else { 1 };
        assert_eq!(
            (ended.game_id.as_str(), ended.seat, ended.scores.len()),
            (line.game_id.as_str(), seat, 2)
        );
        let lost = number == 1 || (line.first + line.second != 3);
        assert_eq!(ended.winners, if lost { vec![1 - seat] } else { vec![seat] }, "{ended:?}");
        assert!(ended.rating.is_none(), "a tournament's game is rated by the tournament");
    }
}

#[tokio::test]
async fn an_arena_refuses_what_it_cannot_enter_naming_the_player() {
    let (server, mut b, mut t) = lobby().await;
    register(&mut b, "alpha").await;
    register(&mut b, "beta").await;
    register(&mut b, "idle").await;
    b.suspend_bot(authed(pb::SuspendBotRequest { name: "idle".into(), suspended: true }, ROOT))
        .await
        .unwrap();
    let refusals = [
        (
            vec![division("a", true, vec![account("alpha"), person("Ann")])],
            Code::InvalidArgument,
            "divisions[0].players[1]: division a admits only bots",
        ),
        (
            vec![division("a", false, vec![account("nobody"), person("Ann")])],
            Code::NotFound,
            "no bot named \"nobody\"",
        ),
        (
            vec![division("a", false, vec![account("idle"), person("Ann")])],
            Code::FailedPrecondition,
            "the bot \"idle\" is suspended",
        ),
        (
            vec![division(
                "a",
                false,
                vec![
                    pb::TournamentPlayerSpec { bot: Some(pb::BotLevel::Weak as i32), ..account("alpha") },
                    person("Ann"),
                ],
            )],
            Code::InvalidArgument,
            "divisions[0].players[0].bot: a registered bot's account or the server's bot, not both",
        ),
        (
            vec![division(
                "a",
                false,
                vec![pb::TournamentPlayerSpec { name: "Alfie".into(), ..account("alpha") }, person("Ann")],
            )],
            Code::InvalidArgument,
            "divisions[0].players[0].name: \"Alfie\": the bot \"alpha\" plays under its own name",
        ),
        (
            vec![
                division("a", false, vec![account("alpha"), person("Ann")]),
                division("b", false, vec![account("beta"), account("alpha")]),
            ],
            Code::InvalidArgument,
            "divisions[1].players[1].bot_account: the bot \"alpha\" plays in this tournament already, as player 1 of a",
        ),
    ];
    for (i, (divisions, code, message)) in refusals.into_iter().enumerate() {
        let (got, said) =
            refused(t.create_tournament(authed(arena(&format!("no{i}"), divisions), ROOT)).await);
        assert_eq!(got, code, "{said}");
        assert!(said.starts_with(message), "{said:?} does not start with {message:?}");
    }

    let players = vec![account("alpha"), server_bot("Sparky")];
    t.create_tournament(authed(arena("arena", vec![division("bots", true, players)]), ROOT)).await.unwrap();
    let add = |player: pb::TournamentPlayerSpec| pb::AddPlayerRequest {
        slug: "arena".into(),
        division: "bots".into(),
        player: Some(player),
        ..Default::default()
    };
    let (code, said) = refused(t.add_player(authed(add(person("Ann")), ROOT)).await);
    assert_eq!(
        (code, said.as_str()),
        (
            Code::InvalidArgument,
            "player: division bots admits only bots: a registered bot (bot_account) or the server's (bot)"
        )
    );
    let (code, said) = refused(t.add_player(authed(add(account("alpha")), ROOT)).await);
    assert_eq!(code, Code::InvalidArgument, "{said}");
    assert!(
        said.starts_with("player.bot_account: the bot \"alpha\" plays in this tournament already"),
        "{said}"
    );
    let late = pb::AddPlayerRequest { request_id: "late-beta".into(), ..add(account("beta")) };
    let added = t.add_player(authed(late.clone(), ROOT)).await.unwrap().into_inner();
    assert_eq!((added.token.as_str(), added.player.as_ref().unwrap().bot_account.as_str()), ("", "beta"));
    // Asked again once beta is suspended: the first answer, kept, and no one added.
    b.suspend_bot(authed(pb::SuspendBotRequest { name: "beta".into(), suspended: true }, ROOT))
        .await
        .unwrap();
    assert_eq!(t.add_player(authed(late, ROOT)).await.unwrap().into_inner(), added);

    // A bot's name is one a tournament can hold: no leading digit (TSH would read a rating).
    let request = pb::RegisterBotRequest {
        name: "4bot".into(),
        owner: "the lab".into(),
        accepts: Some(pb::BotAccepts { casual: true, bots: true, ..Default::default() }),
    };
    let (code, said) = refused(b.register_bot(authed(request, ROOT)).await);
    assert_eq!(
        (code, said.as_str()),
        (
            Code::InvalidArgument,
            "name: \"4bot\": no word of a name starts with a digit (TSH reads it as the rating) (a bot plays in tournaments under its name)"
        )
    );
    // A registered bot's seat is marked by the server alone.
    let mut g = server.games().await;
    let seat = |name: &str| pb::SeatSpec {
        kind: Some(pb::seat_spec::Kind::Human(pb::HumanSeat { name: name.into(), open: false })),
        ..Default::default()
    };
    let game = pb::CreateGameRequest {
        seats: vec![seat("Ann"), seat("alpha")],
        labels: [("bot_account.1".to_string(), "alpha".to_string())].into(),
        ..Default::default()
    };
    let (code, said) = refused(g.create_game(authed(game, ROOT)).await);
    assert_eq!(code, Code::InvalidArgument, "{said}");
    assert!(said.starts_with("labels: label key \"bot_account.1\""), "{said}");

    let reissue = pb::ReissuePlayerTokenRequest {
        slug: "arena".into(),
        division: "bots".into(),
        player: 1,
        ..Default::default()
    };
    let (code, said) = refused(t.reissue_player_token(authed(reissue, ROOT)).await);
    assert_eq!(code, Code::FailedPrecondition, "{said}");
    assert!(said.contains("RotateBotToken"), "{said}");
}

#[tokio::test]
async fn a_rotated_token_plays_the_bots_tournament_and_challenge_games_and_the_old_one_plays_nothing() {
    let (server, mut b, mut t) = lobby().await;
    let mut g = server.games().await;
    let old = register(&mut b, "alpha").await;
    let beta = register(&mut b, "beta").await;
    let players = vec![account("alpha"), account("beta")];
    t.create_tournament(authed(arena("arena", vec![division("bots", true, players)]), ROOT)).await.unwrap();
    start_round_one(&mut t, "arena", "bots").await;
    let got = t.get_tournament(pb::GetTournamentRequest { slug: "arena".into() }).await.unwrap().into_inner();
    let game_id = got.tournament.unwrap().divisions[0].rounds[0].pairings[0].game_id.clone();
    // A challenge's game in play too: beta challenges alpha, alpha accepts.
    let mut alpha_events = open_stream(&mut b, &old).await;
    let _beta_events = open_stream(&mut b, &beta).await;
    let challenge = pb::CreateChallengeRequest {
        bot: "alpha".into(),
        game: Some(Default::default()),
        ..Default::default()
    };
    let id = b.create_challenge(authed(challenge, &beta)).await.unwrap().into_inner().challenge.unwrap().id;
    b.accept_challenge(authed(pb::AcceptChallengeRequest { id }, &old)).await.unwrap();
    let lobby_game = loop {
        if let Some(Kind::GameStarted(started)) = next(&mut alpha_events).await.kind {
            break started.game_id;
        }
    };

    let rotate = pb::RotateBotTokenRequest { name: "alpha".into() };
    let new = b.rotate_bot_token(authed(rotate, &old)).await.unwrap().into_inner().token;
    assert_ne!(new, old);
    let as_old = t.get_tournament(authed(pb::GetTournamentRequest { slug: "arena".into() }, &old)).await;
    assert_eq!(refused(as_old).0, Code::Unauthenticated, "the old token is no player's");
    let (code, said) = refused(g.submit_turn(authed(resign(&game_id), &old)).await);
    assert_eq!(code, Code::Unauthenticated, "the old token plays no seat: {said}");
    let as_new = t.get_tournament(authed(pb::GetTournamentRequest { slug: "arena".into() }, &new)).await;
    assert_eq!(as_new.unwrap().into_inner().tournament.unwrap().you.unwrap().player, 1);

    let (code, said) = refused(g.submit_turn(authed(resign(&lobby_game), &old)).await);
    assert_eq!(code, Code::Unauthenticated, "nor its challenge's game: {said}");
    g.submit_turn(authed(resign(&lobby_game), &new)).await.unwrap();
    g.submit_turn(authed(resign(&game_id), &new)).await.unwrap();
    let lines = results_in(&mut t, "arena").await;
    assert_eq!(lines.len(), 1);
    let log = pb::GetTournamentLogRequest { slug: "arena".into(), ..Default::default() };
    let log = t.get_tournament_log(authed(log, ROOT)).await.unwrap().into_inner();
    assert!(
        log.events.iter().any(|e| e.detail == "alpha's token made anew (its bot account's, rotated)"
            && e.by == "player 1 of bots"),
        "the rotation is logged as the bot's own: {:?}",
        log.events.iter().map(|e| (&e.detail, &e.by)).collect::<Vec<_>>()
    );
}

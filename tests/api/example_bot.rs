//! The Python example bot (examples/python) plays a whole game against the strong bot on the
//! server users run: it joins the open seat from the game's link, follows WatchGame, plays
//! GenerateMoves' top play, accepts the last play with a pass, survives the server being killed
//! and started again (resuming from the last event it saw), and exits 0 at game over.

use crate::common;

use common::binary::{serve, serve_on_free_port, wait_until_up};
use common::server::{TempDir, view_of};
use dawgref::proto::v1 as pb;
use pb::games_service_client::GamesServiceClient;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn start(port: u16, data: &Path, log: &Path) -> Child {
    let log = std::fs::OpenOptions::new().create(true).append(true).open(log).unwrap();
    serve(port)
        .arg("--data-dir")
        .arg(data)
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .expect("the server binary starts")
}

async fn view(url: &str, id: &str) -> pb::GameView {
    let mut g = GamesServiceClient::connect(url.to_string()).await.unwrap();
    view_of(&mut g, pb::GetGameRequest { game_id: id.to_string() }).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_bot_plays_a_whole_game_through_a_server_restart() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/python");
    set_up(&example);
    let dir = TempDir::new("python-bot");
    let log = dir.0.join("server.log");
    let (mut server, port) = serve_on_free_port(|port| start(port, &dir.0.join("data"), &log)).await;
    let url = format!("http://127.0.0.1:{port}");
    let open = pb::SeatSpec {
        kind: Some(pb::seat_spec::Kind::Human(pb::HumanSeat { name: String::new(), open: true })),
        think_ms: None,
    };
    let strong =
        pb::SeatSpec { kind: Some(pb::seat_spec::Kind::Bot(pb::BotLevel::Strong as i32)), think_ms: None };
    let created = GamesServiceClient::connect(url.clone())
        .await
        .unwrap()
        .create_game(pb::CreateGameRequest {
            seats: vec![open, strong],
            seed: Some(11),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let id = created.game_id;
    let out = std::fs::File::create(dir.0.join("bot.log")).unwrap();
    let mut bot = Command::new(example.join(".venv/bin/python"))
        .arg(example.join("bot.py"))
        .args(["--server", &format!("127.0.0.1:{port}"), "--game", &format!("{url}/games/{id}")])
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .stdin(Stdio::null())
        .spawn()
        .expect("the example bot starts");
    let bot_log = || std::fs::read_to_string(dir.0.join("bot.log")).unwrap_or_default();
    // A few turns in, the server dies (kill -9) and comes back on the same port and data.
    let started = Instant::now();
    while view(&url, &id).await.turn < 4 {
        assert!(started.elapsed() < Duration::from_secs(120), "no fourth turn\n{}", bot_log());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.kill().unwrap();
    server.wait().unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut server = start(port, &dir.0.join("data"), &log);
    wait_until_up(&url).await;
    let status = loop {
        if let Some(status) = bot.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "the bot did not finish\n{}", bot_log());
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let text = bot_log();
    assert!(status.success(), "the bot exits 0 at game over: {status}\n{text}");
    assert!(text.contains("joined game"), "{text}");
    assert!(text.contains(": following again from event "), "it resumed after the restart\n{text}");
    assert!(text.lines().last().unwrap().starts_with("game over ("), "{text}");
    let v = view(&url, &id).await;
    assert!(v.over, "{text}");
    // The bot's seat played: each of its turns is a line "turn N: <play or pass> <points>".
    let plays = text.lines().filter(|l| l.starts_with("turn ") && !l.contains(": pass ")).count();
    assert!(plays >= 3, "{text}");
    assert_eq!(v.seats[0].name, "pybot");
    let _ = server.kill();
    let _ = server.wait();
}

/// `examples/python/setup`, once for the tests of this process (it makes `gen/` afresh: a test
/// starting a bot must not meet another's setup halfway).
fn set_up(example: &Path) {
    static DONE: std::sync::Once = std::sync::Once::new();
    DONE.call_once(|| {
        let setup = Command::new(example.join("setup")).status().expect("examples/python/setup runs");
        assert!(setup.success(), "examples/python/setup: {setup}");
    });
}

/// The example bot's command for `args`, its output in `log`.
fn python_bot(example: &Path, args: &[&str], log: &Path) -> Child {
    let out = std::fs::File::create(log).unwrap();
    Command::new(example.join(".venv/bin/python"))
        .arg(example.join("bot.py"))
        .args(args)
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .stdin(Stdio::null())
        .spawn()
        .expect("the example bot starts")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_python_bots_play_a_tournament_over_tls_from_its_link() {
    use common::tls::{TestCa, channel};
    use pb::tournaments_service_client::TournamentsServiceClient;
    const DIRECTOR: &str = "pybot-director";
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/python");
    set_up(&example);
    let dir = TempDir::new("python-tournament");
    let ca = TestCa::new("bot test CA");
    let tls = dawgref::server::tls::Tls::load(ca.server_files(&dir.0)).unwrap();
    let (handle, _) =
        common::server::lexicons_builder().tls(tls).director_token(DIRECTOR).start().await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    handle.spawn(listener);
    let mut t =
        TournamentsServiceClient::new(channel(&format!("127.0.0.1:{port}"), &ca.pem(), None).await.unwrap());
    let spec = |name: &str, bot: Option<pb::BotLevel>| pb::TournamentPlayerSpec {
        bot_account: String::new(),
        name: name.into(),
        rating: 1500,
        bot: bot.map(|b| b as i32),
        lifetime_games: None,
    };
    let made = t
        .create_tournament(common::server::authed(
            pb::CreateTournamentRequest {
                allow_same_names: false,
                name: "Python club".into(),
                slug: "pyclub".into(),
                game: Some(pb::TournamentGameSettings { bot_delay_ms: Some(0), ..Default::default() }),
                divisions: vec![pb::DivisionSpec {
                    bots_only: false,
                    name: "a".into(),
                    players: vec![
                        spec("Py Ann", None),
                        spec("Py Bo", None),
                        spec("Greedy Cy", Some(pb::BotLevel::Greedy)),
                        spec("Greedy Di", Some(pb::BotLevel::Greedy)),
                    ],
                    rounds: vec![
                        pb::RoundSpec {
                            method: pb::PairingMethod::RoundRobin as i32,
                            ..Default::default()
                        };
                        3
                    ],
                    controls: None,
                    result_reports: 0,
                }],
                seed: Some(5),
            },
            DIRECTOR,
        ))
        .await
        .unwrap()
        .into_inner();
    let link = format!("https://localhost:{port}/tournaments/pyclub");
    let ca_file = dir.0.join("ca.pem");
    let mut bots: Vec<(Child, std::path::PathBuf)> = made
        .player_tokens
        .iter()
        .map(|p| {
            let log = dir.0.join(format!("bot{}.log", p.player));
            let args = ["--tournament", &link, "--token", &p.token, "--ca", ca_file.to_str().unwrap()];
            (python_bot(&example, &args, &log), log)
        })
        .collect();
    let logs = |bots: &[(Child, std::path::PathBuf)]| {
        bots.iter()
            .map(|(_, log)| std::fs::read_to_string(log).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n---\n")
    };
    let started = Instant::now();
    // Before round 1 each bot says what it waits for, in its log while it runs (a line at a
    // time, not when it exits).
    for (bot, log) in &mut bots {
        while !std::fs::read_to_string(&*log)
            .unwrap_or_default()
            .contains("waiting for round 1 of division a (player ")
        {
            assert!(bot.try_wait().unwrap().is_none(), "a bot exited before round 1");
            assert!(started.elapsed() < Duration::from_secs(120), "a bot's log is silent before round 1");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let mut from = 0;
    for round in 1..=3 {
        let pair =
            pb::PairRoundRequest { slug: "pyclub".into(), division: "a".into(), round, ..Default::default() };
        t.pair_round(common::server::authed(pair, DIRECTOR)).await.unwrap();
        let start = pb::StartRoundRequest {
            slug: "pyclub".into(),
            division: "a".into(),
            round,
            ..Default::default()
        };
        t.start_round(common::server::authed(start, DIRECTOR)).await.unwrap();
        // Both games of the round end, the bots' included.
        let mut stream = t
            .watch_tournament(pb::WatchTournamentRequest { slug: "pyclub".into(), from_event: from })
            .await
            .unwrap()
            .into_inner();
        let mut results = 0;
        while results < 2 {
            let e = tokio::time::timeout(Duration::from_secs(240), stream.message())
                .await
                .unwrap_or_else(|_| panic!("round {round} did not end\n{}", logs(&bots)))
                .unwrap()
                .unwrap();
            from = e.number + 1;
            results += usize::from(e.kind == "result");
        }
    }
    for (bot, _) in &mut bots {
        let status = loop {
            if let Some(status) = bot.try_wait().unwrap() {
                break status;
            }
            assert!(started.elapsed() < Duration::from_secs(300), "a bot did not finish\n{}", logs(&bots));
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert!(status.success(), "{status}\n{}", logs(&bots));
    }
    for (_, log) in &bots {
        let text = std::fs::read_to_string(log).unwrap();
        assert_eq!(text.matches("round game ").count(), 3, "three games each\n{text}");
        assert_eq!(text.matches("game over (").count(), 3, "{text}");
        assert!(text.lines().last().unwrap().starts_with("tournament over: Py "), "{text}");
    }
    let division = t
        .get_tournament(pb::GetTournamentRequest { slug: "pyclub".into() })
        .await
        .unwrap()
        .into_inner()
        .tournament
        .unwrap()
        .divisions
        .remove(0);
    assert_eq!(division.standings.iter().map(|s| s.wins).sum::<f64>(), 6.0);
    handle.shutdown();
}

#[tokio::test]
async fn the_python_bot_reports_an_unreachable_server_in_one_line() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/python");
    set_up(&example);
    let dir = TempDir::new("python-unreachable");
    let port = common::binary::free_port();
    let log = dir.0.join("bot.log");
    let link = format!("http://127.0.0.1:{port}/games/0f9c6a8e-0000-4000-8000-000000000000");
    let status = python_bot(&example, &["--game", &link, "--patience", "1"], &log).wait().unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(status.code(), Some(1), "{text}");
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.starts_with("the server stayed unreachable: "), "{text}");
}

/// A short day in the lobby: the example bot, registered as an account, stays online and is sent
/// challenges by the server's own bots: it accepts and plays at once the three it takes (in
/// threads, side by side), declines a clock too fast and a rated game with their reasons, and
/// exits 0 once its three games have ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_bot_spends_a_day_in_the_lobby_against_the_servers_bots() {
    use pb::bots_service_client::BotsServiceClient;
    use pb::tournaments_service_client::TournamentsServiceClient;
    const DIRECTOR: &str = "lobby-director";
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/python");
    set_up(&example);
    let dir = TempDir::new("python-lobby");
    let (handle, _) = common::server::lexicons_builder().director_token(DIRECTOR).start().await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    handle.spawn(listener);
    let mut b = BotsServiceClient::connect(format!("http://127.0.0.1:{port}")).await.unwrap();
    let accepts =
        pb::BotAccepts { casual: true, rated: true, bots: true, people: true, ..Default::default() };
    let register =
        pb::RegisterBotRequest { name: "pybot".into(), owner: "examples".into(), accepts: Some(accepts) };
    let token = b.register_bot(common::server::authed(register, DIRECTOR)).await.unwrap().into_inner().token;
    let log = dir.0.join("bot.log");
    let server = format!("127.0.0.1:{port}");
    let args = ["--lobby", "--server", &server, "--token", &token, "--casual-only", "--max-games", "4"];
    let mut bot = python_bot(&example, &args, &log);
    let bot_log = || std::fs::read_to_string(&log).unwrap_or_default();
    let started = Instant::now();
    while !b.list_bots(pb::ListBotsRequest {}).await.unwrap().into_inner().bots[0].online {
        assert!(started.elapsed() < Duration::from_secs(60), "the bot never came online\n{}", bot_log());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // An arena too: pybot entered by its account against the server's weak bot, round 1 started;
    // the bot hears of its game on its stream and plays it beside its challenges.
    let mut t = TournamentsServiceClient::connect(format!("http://127.0.0.1:{port}")).await.unwrap();
    let arena = pb::CreateTournamentRequest {
        name: "Bot night".into(),
        slug: "bot-night".into(),
        game: Some(pb::TournamentGameSettings { bot_delay_ms: Some(0), ..Default::default() }),
        divisions: vec![pb::DivisionSpec {
            name: "a".into(),
            bots_only: true,
            players: vec![
                pb::TournamentPlayerSpec { bot_account: "pybot".into(), ..Default::default() },
                pb::TournamentPlayerSpec {
                    name: "Sparky".into(),
                    bot: Some(pb::BotLevel::Weak as i32),
                    ..Default::default()
                },
            ],
            rounds: vec![pb::RoundSpec::default()],
            ..Default::default()
        }],
        ..Default::default()
    };
    t.create_tournament(common::server::authed(arena, DIRECTOR)).await.unwrap();
    let round = |r: u32| pb::PairRoundRequest {
        slug: "bot-night".into(),
        division: "a".into(),
        round: r,
        ..Default::default()
    };
    t.pair_round(common::server::authed(round(1), DIRECTOR)).await.unwrap();
    let start = pb::StartRoundRequest {
        slug: "bot-night".into(),
        division: "a".into(),
        round: 1,
        ..Default::default()
    };
    t.start_round(common::server::authed(start, DIRECTOR)).await.unwrap();
    let challenge = |level: pb::BotLevel, initial_ms: u64, rated: bool| pb::CreateChallengeRequest {
        bot: "pybot".into(),
        server_bot: level as i32,
        rated,
        expires_seconds: 600,
        game: Some(pb::TournamentGameSettings {
            clock: Some(pb::ClockSpec { initial_ms, ..Default::default() }),
            bot_delay_ms: Some(0),
            ..Default::default()
        }),
        ..Default::default()
    };
    let sent = [
        challenge(pb::BotLevel::Weak, 300_000, false),
        challenge(pb::BotLevel::Weak, 30_000, false),
        challenge(pb::BotLevel::Greedy, 300_000, false),
        challenge(pb::BotLevel::Weak, 300_000, true),
        challenge(pb::BotLevel::Strong, 300_000, false),
    ];
    let mut ids = Vec::new();
    for request in sent {
        ids.push(b.create_challenge(request).await.unwrap().into_inner().challenge.unwrap().id);
    }
    let status = loop {
        if let Some(status) = bot.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the bot did not finish its day\n{}",
            bot_log()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let text = bot_log();
    assert!(status.success(), "the bot exits 0 after its games: {status}\n{text}");
    let mut states = Vec::new();
    for id in &ids {
        let c = b
            .get_challenge(pb::GetChallengeRequest { id: id.clone() })
            .await
            .unwrap()
            .into_inner()
            .challenge
            .unwrap();
        if !c.game_id.is_empty() {
            assert!(view(&format!("http://{server}"), &c.game_id).await.over, "{text}");
        }
        states.push((c.state(), c.decline_reason()));
    }
    use pb::{ChallengeState as S, DeclineReason as R};
    assert_eq!(
        states,
        [
            (S::Accepted, R::Unspecified),
            (S::Declined, R::TooFast),
            (S::Accepted, R::Unspecified),
            (S::Declined, R::Casual),
            (S::Accepted, R::Unspecified),
        ],
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.contains(" ended: scores ")).count(),
        4,
        "three challenges and the arena's game: {text}"
    );
    // The arena's game, played to its end: its result is the tournament's.
    assert!(text.contains("(bot-night, round 1)"), "{text}");
    let done = loop {
        let got = t.get_tournament(pb::GetTournamentRequest { slug: "bot-night".into() }).await.unwrap();
        let line = got.into_inner().tournament.unwrap().divisions[0].rounds[0].pairings[0].clone();
        if line.done || started.elapsed() > Duration::from_secs(300) {
            break line;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(done.done && done.scores.len() == 2 && done.forfeited_by == 0, "{done:?}\n{text}");
}

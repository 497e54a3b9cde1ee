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
    let setup = Command::new(example.join("setup")).status().expect("examples/python/setup runs");
    assert!(setup.success(), "examples/python/setup: {setup}");
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

//! The real binary as a child process: a free loopback port, the `serve` command line the
//! process tests start from, and the wait until it answers.

use dawgref::proto::v1::games_service_client::GamesServiceClient;
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

/// A loopback port nothing listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// `dawgref serve` with the English lexicon alone on `port`, logging warnings only; the caller
/// adds its storage, its output and what else it needs.
pub fn serve(port: u16) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_dawgref"));
    command
        .args(["serve", "--lexicons", "en", "--listen", &format!("127.0.0.1:{port}")])
        .env("RUST_LOG", "warn");
    command
}

/// Wait until a server answers on `url` (a hang guard of a minute, not a timing measure).
pub async fn wait_until_up(url: &str) {
    let started = Instant::now();
    while GamesServiceClient::connect(url.to_string()).await.is_err() {
        assert!(started.elapsed() < Duration::from_secs(60), "the server on {url} did not come up");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Wait until the server `child` answers on `url`; its exit status if it exits first (a hang
/// guard of a minute, not a timing measure).
pub async fn until_up(child: &mut Child, url: &str) -> Result<(), ExitStatus> {
    let started = Instant::now();
    while GamesServiceClient::connect(url.to_string()).await.is_err() {
        if let Some(status) = child.try_wait().expect("the server's status") {
            return Err(status);
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the server on {url} did not come up");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// A server `spawn(port)` started on a free port and answering there, with its port. A port
/// free when picked may be taken before the server binds it (by another test's server, or as
/// the source port of a connection: they come from the same range); the server then exits, and
/// is started again on another port, up to five times.
pub async fn serve_on_free_port(mut spawn: impl FnMut(u16) -> Child) -> (Child, u16) {
    let mut exits = Vec::new();
    for _ in 0..5 {
        let port = free_port();
        let mut child = spawn(port);
        match until_up(&mut child, &format!("http://127.0.0.1:{port}")).await {
            Ok(()) => return (child, port),
            Err(status) => exits.push((port, status)),
        }
    }
    panic!("the server exited before it answered, each time: {exits:?}")
}

/// The binary serving the data in `dir` (SQLite in `dir/data`, the lexicon cache beside it)
/// with `director` as the director's token, its output kept quiet: the server the kill -9 tests
/// kill. Killed when dropped, so that a failing assertion leaves no server running.
pub struct KillableServer {
    pub child: std::process::Child,
    pub url: String,
}

impl Drop for KillableServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Start a [`KillableServer`] on `dir`'s data, on a free port.
pub async fn serve_data(dir: &std::path::Path, director: &str) -> KillableServer {
    let (child, port) = serve_on_free_port(|port| {
        serve(port)
            .arg("--data-dir")
            .arg(dir.join("data"))
            .arg("--lexicon-cache")
            .arg(dir.join("lexicons"))
            .env("DAWGREF_DIRECTOR_TOKEN", director)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the server binary starts")
    })
    .await;
    KillableServer { child, url: format!("http://127.0.0.1:{port}") }
}

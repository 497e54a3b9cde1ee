//! The real binary as a child process: a free loopback port, the `serve` command line the
//! process tests start from, and the wait until it answers.

use dawgref::proto::v1::games_service_client::GamesServiceClient;
use std::process::Command;
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

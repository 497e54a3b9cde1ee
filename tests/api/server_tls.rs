//! TLS on the one port: served to a client that trusts the CA, refused to plaintext and to an
//! untrusted server name's client; a new certificate read on SIGHUP while a game goes on;
//! mutual TLS refusing a client without a certificate, or with one of another CA.

use crate::common;

use common::server::{authed, create, human, turn, view_of};
use common::tls::{TestCa, channel};
use dawgref::proto::v1 as pb;
use dawgref::rules::RulesetKind;
use dawgref::server::tls::{Tls, TlsFiles};
use dawgref::server::{Builder, Handle};
use pb::games_service_client::GamesServiceClient;
use std::time::Duration;

/// A server serving TLS from `files`, and its address.
async fn serve(files: TlsFiles) -> (Handle, String) {
    let lexicons = RulesetKind::classic().iter().map(|&k| common::lexicon(k).clone()).collect();
    let tls = Tls::load(files).unwrap();
    let (handle, _) = Builder::new(lexicons).tls(tls).start().await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    handle.spawn(listener);
    (handle, addr)
}

fn two_humans() -> pb::CreateGameRequest {
    create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("a"), human("b")], 2)
}

fn pass() -> Option<pb::submit_turn_request::Action> {
    Some(pb::submit_turn_request::Action::Pass(pb::Pass {}))
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("dawgref-tls-{tag}-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test]
async fn tls_is_served_to_a_client_that_trusts_it_and_plaintext_is_refused() {
    let (ca, dir) = (TestCa::new("test CA"), temp_dir("served"));
    let (_handle, addr) = serve(ca.server_files(&dir)).await;
    let mut g = GamesServiceClient::new(channel(&addr, &ca.pem(), None).await.unwrap());
    let c = g.create_game(two_humans()).await.unwrap().into_inner();
    g.submit_turn(authed(turn(&c.game_id, 0, pass()), &c.seat_tokens[0])).await.unwrap();
    // Plaintext on the TLS port: no answer, whatever the call.
    let plain = tonic::transport::Endpoint::from_shared(format!("http://{addr}")).unwrap();
    let refused = match plain.connect().await {
        Err(_) => true,
        Ok(ch) => GamesServiceClient::new(ch)
            .get_game(pb::GetGameRequest { game_id: c.game_id.clone() })
            .await
            .is_err(),
    };
    assert!(refused, "a plaintext client was served");
    // A client that trusts another CA does not connect.
    assert!(channel(&addr, &TestCa::new("another CA").pem(), None).await.is_err());
}

#[tokio::test]
async fn a_sighup_reads_a_new_certificate_while_a_game_goes_on() {
    let (old_ca, new_ca, dir) = (TestCa::new("old CA"), TestCa::new("new CA"), temp_dir("reload"));
    let files = old_ca.server_files(&dir);
    let (handle, addr) = serve(files).await;
    let tls = handle.tls().cloned().unwrap();
    let mut before = GamesServiceClient::new(channel(&addr, &old_ca.pem(), None).await.unwrap());
    let c = before.create_game(two_humans()).await.unwrap().into_inner();
    // The files are rotated in place (as cert-manager and certbot do): seen as changed (the
    // server looks now and then), and read at once on SIGHUP.
    assert!(!tls.files_changed());
    new_ca.server_files(&dir);
    assert!(tls.files_changed());
    // SAFETY: kill with this process's own id sends a signal the server handles (its handler
    // was installed before it served).
    assert_eq!(unsafe { libc::kill(libc::getpid(), libc::SIGHUP) }, 0);
    let mut after = None;
    for _ in 0..200 {
        if let Ok(ch) = channel(&addr, &new_ca.pem(), None).await {
            after = Some(GamesServiceClient::new(ch));
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let mut after = after.expect("the new certificate is served after SIGHUP");
    // The connection made before goes on, and the game with it; new clients see the same game.
    before.submit_turn(authed(turn(&c.game_id, 0, pass()), &c.seat_tokens[0])).await.unwrap();
    after.submit_turn(authed(turn(&c.game_id, 1, pass()), &c.seat_tokens[1])).await.unwrap();
    let v = view_of(&mut after, pb::GetGameRequest { game_id: c.game_id.clone() }).await;
    assert_eq!(v.turn, 2);
    // A new client that trusts only the old CA is refused now.
    assert!(channel(&addr, &old_ca.pem(), None).await.is_err());
    assert!(!tls.files_changed());
}

#[tokio::test]
async fn a_bad_file_on_reload_keeps_the_certificate_in_force() {
    let (ca, dir) = (TestCa::new("test CA"), temp_dir("bad-reload"));
    let (handle, addr) = serve(ca.server_files(&dir)).await;
    std::fs::write(dir.join("server.key"), "not a key").unwrap();
    let e = handle.reload_tls().unwrap_err();
    assert!(e.to_string().contains("server.key"), "{e}");
    let mut g = GamesServiceClient::new(channel(&addr, &ca.pem(), None).await.unwrap());
    g.create_game(two_humans()).await.unwrap();
}

#[tokio::test]
async fn mutual_tls_refuses_a_client_without_a_certificate_of_its_ca() {
    let (ca, dir) = (TestCa::new("test CA"), temp_dir("mutual"));
    let files = TlsFiles { client_ca: Some(dir.join("ca.pem")), ..ca.server_files(&dir) };
    let (_handle, addr) = serve(files).await;
    let call = |ch: tonic::transport::Channel| async move {
        GamesServiceClient::new(ch).create_game(two_humans()).await
    };
    // With a certificate of the CA: served.
    let client = ca.issue(&["a-club-client"]);
    assert!(call(channel(&addr, &ca.pem(), Some(&client)).await.unwrap()).await.is_ok());
    // Without one, or with one of another CA: refused (at the handshake or the first call).
    let stranger = TestCa::new("stranger CA").issue(&["stranger"]);
    for identity in [None, Some(&stranger)] {
        let refused = match channel(&addr, &ca.pem(), identity).await {
            Err(_) => true,
            Ok(ch) => call(ch).await.is_err(),
        };
        assert!(refused, "a client without a certificate of the CA was served");
    }
}

//! Ownership among replicas, with two replicas in this process sharing a real PostgreSQL (the
//! stack users run, through `Builder::replica`):
//!
//! - a game whose calls keep arriving through another replica moves there, and every response
//!   names the owner in `x-dawgref-owner`;
//! - a hand-over under load keeps every acknowledged turn, once;
//! - a game that sleeps lets its lease go: another replica wakes it, its clock read as if it
//!   never slept, and a flag due while nobody owns it falls on time;
//! - `x-dawgref-game` is a hint: a malformed or wrong one changes nothing;
//! - only a replica can mark a call as forwarded: a client's mark moves no game;
//! - replicas serving mutual TLS forward to one another over it;
//! - a director key made on one replica holds on every other, and its revocation within the lease.

use crate::common;

use common::postgres::Postgres;
use common::server::{authed, create, human, pause, resume};
use dawgref::host::Limits;
use dawgref::host::Residence;
use dawgref::proto::v1 as pb;
use dawgref::rules::RulesetKind;
use dawgref::server::tls::TlsFiles;
use dawgref::server::{Builder, Handle};
use dawgref::store::postgres::Replica;
use dawgref::store::{GameStore, PgStore};
use pb::games_service_client::GamesServiceClient;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tonic::transport::Channel;

const OWNER: &str = "x-dawgref-owner";

/// Every replica's director token (the same on each, as a deployment gives them).
const DIRECTOR: &str = "root-of-every-replica";

struct Node {
    handle: Handle,
    addr: String,
    channel: Channel,
    /// The store the replica was built with, to read what it wrote.
    store: Arc<PgStore>,
}

impl Node {
    async fn start(url: &str, limits: Limits, lease_ms: u64) -> Node {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let me =
            Replica { id: uuid::Uuid::new_v4(), addr: addr.clone(), lease: Duration::from_millis(lease_ms) };
        let store = Arc::new(PgStore::open(url, me).await.unwrap());
        let lexicon = common::lexicon(RulesetKind::english()).clone();
        let (handle, _) = Builder::new(vec![lexicon])
            .limits(limits)
            .director_token(DIRECTOR)
            .replica(store.clone())
            .start()
            .await
            .unwrap();
        handle.spawn(listener);
        let channel =
            tonic::transport::Endpoint::from_shared(format!("http://{addr}")).unwrap().connect_lazy();
        Node { handle, addr, channel, store }
    }

    /// A replica serving (mutual) TLS from `files`, and a client channel to it showing `client`.
    async fn start_tls(url: &str, files: TlsFiles, ca: &str, client: &common::tls::Pair) -> Node {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let me = Replica { id: uuid::Uuid::new_v4(), addr: addr.clone(), lease: Duration::from_millis(3000) };
        let store = Arc::new(PgStore::open(url, me).await.unwrap());
        let lexicon = common::lexicon(RulesetKind::english()).clone();
        let tls = dawgref::server::tls::Tls::load(files).unwrap();
        let (handle, _) = Builder::new(vec![lexicon])
            .limits(limits(None))
            .tls(tls)
            .replica(store.clone())
            .start()
            .await
            .unwrap();
        handle.spawn(listener);
        let channel = common::tls::channel(&addr, ca, Some(client)).await.unwrap();
        Node { handle, addr, channel, store }
    }

    fn games(&self) -> GamesServiceClient<Channel> {
        GamesServiceClient::new(self.channel.clone())
    }
}

fn owner_of<T>(response: &tonic::Response<T>) -> String {
    response.metadata().get(OWNER).expect("the owner header").to_str().unwrap().to_string()
}

fn endless(seed: u64) -> pb::CreateGameRequest {
    let mut req = create(pb::Ruleset::English, pb::ChallengeRule::Void, vec![human("a"), human("b")], seed);
    req.options.get_or_insert_with(Default::default).scoreless_turn_limit = Some(1_000_000);
    req
}

fn pass(game: &pb::CreateGameResponse, turn: u32) -> tonic::Request<pb::SubmitTurnRequest> {
    let req = pb::SubmitTurnRequest {
        game_id: game.game_id.clone(),
        expected_turn: Some(turn),
        request_id: format!("t{turn}"),
        action: Some(pb::submit_turn_request::Action::Pass(pb::Pass {})),
    };
    authed(req, &game.seat_tokens[turn as usize % 2])
}

fn get(game: &pb::CreateGameResponse) -> tonic::Request<pb::GetGameRequest> {
    authed(pb::GetGameRequest { game_id: game.game_id.clone() }, &game.seat_tokens[0])
}

fn limits(idle_after: Option<Duration>) -> Limits {
    Limits { idle_after, ..Limits::default() }
}

/// A fresh database and two replicas of it that keep their games awake (the database lives as
/// long as the first part of the answer).
async fn two_replicas(name: &str) -> (Postgres, Node, Node) {
    let pg = Postgres::start(name, false);
    let url = pg.database(name);
    let (a, b) = (Node::start(&url, limits(None), 3000).await, Node::start(&url, limits(None), 3000).await);
    (pg, a, b)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_moves_to_the_replica_its_calls_come_through() {
    let (_pg, a, b) = two_replicas("moves").await;
    let created = a.games().create_game(endless(1)).await.unwrap();
    assert_eq!(owner_of(&created), a.addr, "CreateGame names its owner");
    let game = created.into_inner();
    let at_a = a.games().get_game(get(&game)).await.unwrap();
    assert_eq!(owner_of(&at_a), a.addr);

    // Two calls through B are forwarded to A; the third moves the game to B, and says so.
    let mut owners = Vec::new();
    for turn in 0..3 {
        owners.push(owner_of(&b.games().submit_turn(pass(&game, turn)).await.unwrap()));
    }
    assert_eq!(owners, [a.addr.clone(), a.addr.clone(), b.addr.clone()]);
    assert_eq!(a.handle.metrics().handovers.get(), 1);
    assert!(a.handle.host().residence(&game.game_id.parse().unwrap()) != Residence::Live);

    // From now on B serves it without forwarding; A forwards to B and names B.
    let forwarded = b.handle.metrics().forwarded.get();
    for turn in 3..8 {
        let answer = b.games().submit_turn(pass(&game, turn)).await.unwrap();
        assert_eq!(owner_of(&answer), b.addr);
    }
    assert_eq!(b.handle.metrics().forwarded.get(), forwarded, "no call of B's was forwarded");
    assert!(b.handle.host().residence(&game.game_id.parse().unwrap()) == Residence::Live);
    let via_a = a.games().get_game(get(&game)).await.unwrap();
    assert_eq!(owner_of(&via_a), b.addr);
    assert_eq!(via_a.into_inner().view.unwrap().turn, 8, "every turn, once");
    // One call through A moves nothing back.
    assert_eq!(b.handle.metrics().handovers.get(), 0);
}

/// Clients play through B while others read through A, and the game moves under them: every
/// acknowledged turn is in the history exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_over_under_load_keeps_every_acknowledged_turn() {
    let (_pg, a, b) = two_replicas("handover-load").await;
    let mut games = Vec::new();
    for seed in 0..6 {
        games.push(Arc::new(a.games().create_game(endless(seed)).await.unwrap().into_inner()));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = games
        .iter()
        .map(|g| {
            let (g, mut client, stop) = (g.clone(), a.games(), stop.clone());
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let _ = client.get_game(get(&g)).await;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            })
        })
        .collect();
    let players: Vec<_> = games
        .iter()
        .map(|g| {
            let (g, mut client) = (g.clone(), b.games());
            tokio::spawn(async move {
                let mut acked = Vec::new();
                let mut turn = 0;
                let started = Instant::now();
                while turn < 30 {
                    assert!(
                        started.elapsed() < Duration::from_secs(60),
                        "game {}: stuck at turn {turn}",
                        g.game_id
                    );
                    match client.submit_turn(pass(&g, turn)).await {
                        Ok(r) => {
                            acked.push(r.into_inner().view.unwrap().turn);
                            turn += 1;
                        }
                        Err(e) if e.code() == tonic::Code::Unavailable => {
                            tokio::time::sleep(Duration::from_millis(5)).await;
                        }
                        Err(e) => panic!("game {} turn {turn}: {e}", g.game_id),
                    }
                }
                acked
            })
        })
        .collect();
    let mut acks = Vec::new();
    for p in players {
        acks.push(p.await.unwrap());
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.await.unwrap();
    }
    assert!(a.handle.metrics().handovers.get() >= 1, "the games moved to B under load");
    for (g, acked) in games.iter().zip(acks) {
        assert_eq!(acked, (1..=30).collect::<Vec<u32>>(), "game {}: each turn acknowledged once", g.game_id);
        for node in [&a, &b] {
            let view = node.games().get_game(get(g)).await.unwrap().into_inner().view.unwrap();
            assert_eq!(view.turn, 30, "game {}: no turn lost or written twice", g.game_id);
            assert_eq!(view.events, 30, "game {}: 30 passes in the history", g.game_id);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sleeping_game_lets_its_lease_go_and_wakes_anywhere() {
    let pg = Postgres::start("sleep-release", false);
    let url = pg.database("sleep-release");
    let idle = limits(Some(Duration::from_millis(300)));
    let (a, b) = (Node::start(&url, idle.clone(), 3000).await, Node::start(&url, idle, 3000).await);
    let mut req = endless(7);
    req.clock = Some(pb::ClockSpec { initial_ms: 60_000, ..Default::default() });
    let game = a.games().create_game(req).await.unwrap().into_inner();
    let uuid: uuid::Uuid = game.game_id.parse().unwrap();
    let sent = Instant::now();
    a.games().submit_turn(pass(&game, 0)).await.unwrap();
    let acked = Instant::now();

    // It falls asleep at A and its lease goes.
    let started = Instant::now();
    while !(a.handle.host().residence(&uuid) == Residence::Asleep
        && a.handle.metrics().leases_held.get() == 0)
    {
        assert!(started.elapsed() < Duration::from_secs(10), "the game never slept and let its lease go");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(400)).await;

    // B wakes it (no forward: the lease was free), and seat 1's clock ran all along.
    let forwarded = b.handle.metrics().forwarded.get();
    let asked = Instant::now();
    let woken = b.games().get_game(get(&game)).await.unwrap();
    let answered = Instant::now();
    assert_eq!(owner_of(&woken), b.addr);
    assert_eq!(b.handle.metrics().forwarded.get(), forwarded);
    assert!(b.handle.host().residence(&uuid) == Residence::Live);
    let view = woken.into_inner().view.unwrap();
    let left = view.seats[1].time_left_ms.expect("a clock");
    let (least, most) = (answered - sent, asked - acked);
    assert!(
        60_000 - left >= most.as_millis() as i64 - 50 && 60_000 - left <= least.as_millis() as i64 + 50,
        "seat 1 used {} ms; between {most:?} and {least:?} passed",
        60_000 - left
    );
    // A, asked now, forwards to B.
    assert_eq!(owner_of(&a.games().get_game(get(&game)).await.unwrap()), b.addr);
}

/// A game with a clock of `initial_ms` created at a replica that lets it fall asleep after one
/// pass (its lease released) and then goes away; then a second replica, which never heard of it.
/// The game, when its flag falls, and the second replica.
async fn asleep_unowned(url: &str, seed: u64, initial_ms: u64) -> (pb::CreateGameResponse, Instant, Node) {
    let idle = limits(Some(Duration::from_millis(200)));
    let a = Node::start(url, idle.clone(), 400).await;
    let mut req = endless(seed);
    // Past the idle span: the game sleeps before its flag falls.
    req.clock = Some(pb::ClockSpec { initial_ms, ..Default::default() });
    let game = a.games().create_game(req).await.unwrap().into_inner();
    let uuid: uuid::Uuid = game.game_id.parse().unwrap();
    a.games().submit_turn(pass(&game, 0)).await.unwrap();
    let due = Instant::now() + Duration::from_millis(initial_ms);
    let started = Instant::now();
    while a.handle.metrics().leases_held.get() != 0 || a.handle.host().residence(&uuid) != Residence::Asleep {
        assert!(started.elapsed() < Duration::from_secs(2), "the game never slept and let its lease go");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    a.handle.shutdown();
    a.handle.drain(Duration::from_secs(2)).await;
    drop(a);
    (game, due, Node::start(url, idle, 400).await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flag_due_while_the_game_sleeps_unowned_falls_on_time() {
    let pg = Postgres::start("sleep-flag", false);
    let url = pg.database("sleep-flag");
    let (game, due, b) = asleep_unowned(&url, 9, 2_500).await;
    let mut watch = b
        .games()
        .watch_game(authed(
            pb::WatchGameRequest { game_id: game.game_id.clone(), from_event: 1 },
            &game.seat_tokens[0],
        ))
        .await
        .unwrap()
        .into_inner();
    // Watching keeps it awake at B; the flag falls by B's own timer.
    let event =
        tokio::time::timeout(Duration::from_secs(10), watch.message()).await.unwrap().unwrap().unwrap();
    let fell = Instant::now();
    assert!(fell + Duration::from_millis(50) >= due, "the flag fell {:?} early", due - fell);
    let view = b.games().get_game(get(&game)).await.unwrap().into_inner().view.unwrap();
    assert!(view.over, "lost on time: {event:?}");
    assert!(view.seats[1].time_left_ms.unwrap() <= 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flag_due_while_nobody_asks_falls_by_the_orphan_sweep() {
    let pg = Postgres::start("sleep-sweep", false);
    let url = pg.database("sleep-sweep");
    // Nobody asks for the game at B: its sweep finds the alarm in the store and wakes it.
    let (game, _, b) = asleep_unowned(&url, 11, 2_000).await;
    let uuid: uuid::Uuid = game.game_id.parse().unwrap();
    let started = Instant::now();
    let store = b.store.clone();
    loop {
        let stored = store.load(uuid).await.unwrap().unwrap();
        if stored.finished {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "the flag never fell");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let view = b.games().get_game(get(&game)).await.unwrap().into_inner().view.unwrap();
    assert!(view.over);
    assert!(view.seats[1].time_left_ms.unwrap() <= 0, "seat 1 lost on time");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_game_header_is_a_hint_never_trusted() {
    let (_pg, a, b) = two_replicas("header").await;
    let game = a.games().create_game(endless(3)).await.unwrap().into_inner();
    let other = a.games().create_game(endless(4)).await.unwrap().into_inner();
    for value in ["not-a-uuid", "", "\u{7f}", other.game_id.as_str()] {
        let mut request = get(&game);
        if let Ok(v) = value.parse() {
            request.metadata_mut().insert("x-dawgref-game", v);
        }
        let answer = b.games().get_game(request).await.unwrap();
        assert_eq!(owner_of(&answer), a.addr, "header {value:?}");
        assert_eq!(answer.into_inner().view.unwrap().game_id, game.game_id, "the message's game is served");
        // A client's call at the owner: the calls through B are not all in a row.
        a.games().get_game(get(&game)).await.unwrap();
    }
}

/// A client that marks its calls as forwarded by a replica (without the replicas' secret) is
/// served as any client: the game does not move to that replica, and a replica that does not own
/// the game forwards the call rather than refuse it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clients_forwarded_mark_moves_nothing() {
    let (_pg, a, b) = two_replicas("spoofed").await;
    let game = a.games().create_game(endless(5)).await.unwrap().into_inner();
    let marked = |by: &str, proof: Option<&str>| {
        let mut request = get(&game);
        request.metadata_mut().insert("x-dawgref-forwarded", by.parse().unwrap());
        if let Some(proof) = proof {
            request.metadata_mut().insert("x-dawgref-forwarded-proof", proof.parse().unwrap());
        }
        request
    };
    // At the owner, marked as B's five times in a row: without a proof, then with a wrong one.
    for proof in [None, Some("not-the-secret")] {
        for _ in 0..5 {
            let answer = a.games().get_game(marked(&b.addr, proof)).await.unwrap();
            assert_eq!(owner_of(&answer), a.addr, "proof {proof:?}");
        }
    }
    assert_eq!(a.handle.metrics().handovers.get(), 0);
    assert!(a.handle.host().residence(&game.game_id.parse().unwrap()) == Residence::Live);
    // At B, marked as A's: forwarded to A like any client's call, not refused.
    let answer = b.games().get_game(marked(&a.addr, None)).await.unwrap();
    assert_eq!(owner_of(&answer), a.addr);
    assert_eq!(answer.into_inner().view.unwrap().game_id, game.game_id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_serving_mutual_tls_forward_to_one_another_over_it() {
    let pg = Postgres::start("tls-forward", false);
    let url = pg.database("tls-forward");
    let ca = common::tls::TestCa::new("replicas' CA");
    let client = ca.issue(&["a-client"]);
    let mut nodes = Vec::new();
    for name in ["a", "b"] {
        let dir = std::env::temp_dir().join(format!("dawgref-tls-replica-{name}-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        // Each replica its own pair, naming no address: peers check the name they all carry.
        // The one CA checks clients and peers alike.
        let (cert, key) =
            common::tls::write_pair(&dir, "replica", &ca.issue(&["localhost", "dawgref-peers"]));
        std::fs::write(dir.join("ca.pem"), ca.pem()).unwrap();
        let files = TlsFiles {
            cert,
            key,
            client_ca: Some(dir.join("ca.pem")),
            peer_ca: None,
            peer_name: Some("dawgref-peers".into()),
        };
        nodes.push(Node::start_tls(&url, files, &ca.pem(), &client).await);
    }
    let (a, b) = (&nodes[0], &nodes[1]);
    let created = a.games().create_game(endless(4)).await.unwrap();
    assert_eq!(owner_of(&created), a.addr);
    let game = created.into_inner();
    // Two calls through B are forwarded to A, over TLS, B showing its own certificate.
    for turn in 0..2 {
        let answer = b.games().submit_turn(pass(&game, turn)).await.unwrap();
        assert_eq!(owner_of(&answer), a.addr);
    }
    assert_eq!(b.handle.metrics().forwarded.get(), 2);
    assert_eq!(a.games().get_game(get(&game)).await.unwrap().into_inner().view.unwrap().turn, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_director_key_made_on_one_replica_holds_on_the_other_and_its_revocation_within_the_lease() {
    const ROOT: &str = DIRECTOR;
    let (_pg, a, b) = two_replicas("director_keys").await;
    let directors =
        |node: &Node| pb::directors_service_client::DirectorsServiceClient::new(node.channel.clone());
    let labels: std::collections::HashMap<String, String> =
        [("event".to_string(), "open".to_string())].into();
    let made = directors(&a)
        .create_director_key(authed(
            pb::CreateDirectorKeyRequest { name: "td".into(), labels: labels.clone() },
            ROOT,
        ))
        .await
        .unwrap()
        .into_inner();
    // The other replica knows the new key at once (a token it has not seen reads the store).
    let mut request = endless(7);
    request.labels = labels;
    let game = b.games().create_game(authed(request, &made.token)).await.unwrap().into_inner();
    directors(&b).pause_game(authed(pause(&game.game_id, ""), &made.token)).await.unwrap();

    directors(&a)
        .revoke_director_key(authed(pb::RevokeDirectorKeyRequest { name: "td".into() }, ROOT))
        .await
        .unwrap();
    // Refused at once where it was revoked, and on the other replica once a lease has passed.
    let refused =
        directors(&a).resume_game(authed(resume(&game.game_id, ""), &made.token)).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::PermissionDenied, "{refused:?}");
    tokio::time::sleep(Duration::from_millis(3000)).await;
    let refused =
        directors(&b).resume_game(authed(resume(&game.game_id, ""), &made.token)).await.unwrap_err();
    assert_eq!(
        (refused.code(), refused.message()),
        (tonic::Code::PermissionDenied, "director key \"td\" was revoked")
    );
    directors(&b).resume_game(authed(resume(&game.game_id, ""), ROOT)).await.unwrap();
}

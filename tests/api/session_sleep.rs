//! Games that sleep: a game left alone for `idle_after` leaves memory and its next request
//! brings it back from the store exactly as it was (view, events, clock); however many requests
//! name a sleeping game at once, it is loaded once; a watcher keeps a game awake; a flag due
//! while the game sleeps falls on time with nobody asking.
//!
//! On paused time, in process: game time is tokio's clock, which these tests step, so "idle for
//! `idle_after`" is exact to the millisecond and nothing waits in real time. (Over a socket,
//! paused time would jump while a reply is in flight.)

use crate::common;

use common::server::*;
use dawgref::host::Residence;
use dawgref::proto::v1 as pb;
use dawgref::proto::v1::analysis_service_server::AnalysisService as _;
use dawgref::proto::v1::games_service_server::GamesService as _;
use dawgref::server::Handle;
use std::sync::Arc;
use std::time::Duration;
use tokio_stream::StreamExt;
use tonic::Request;

const IDLE: Duration = Duration::from_millis(200);
const MS: Duration = Duration::from_millis(1);

/// A server whose games sleep after [`IDLE`], called in process.
struct Sleepy {
    handle: Handle,
    games: Arc<dawgref::server::games::GamesService>,
}

impl Sleepy {
    /// With `director` as the root director's token ("": none).
    async fn start(director: &str) -> Sleepy {
        Sleepy::idle_after(IDLE, director).await
    }

    async fn idle_after(idle: Duration, director: &str) -> Sleepy {
        let limits = dawgref::server::state::Limits { idle_after: Some(idle), ..Default::default() };
        let (handle, _) = lexicons_builder().limits(limits).director_token(director).start().await.unwrap();
        let games = Arc::new(handle.games_service());
        Sleepy { handle, games }
    }

    fn residence(&self, id: &str) -> Residence {
        self.handle.host().residence(&uuid::Uuid::parse_str(id).unwrap())
    }

    fn metric(&self, line: &str) -> bool {
        self.handle.metrics().render().lines().any(|l| l == line)
    }

    async fn two_humans(&self, seed: u64) -> pb::CreateGameResponse {
        let req = create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("a"), human("b")], seed);
        self.games.create_game(Request::new(req)).await.unwrap().into_inner()
    }

    async fn view(&self, request: Request<pb::GetGameRequest>) -> pb::GameView {
        self.games.get_game(request).await.unwrap().into_inner().view.unwrap()
    }

    async fn submit(
        &self,
        id: &str,
        turn_no: u32,
        action: pb::submit_turn_request::Action,
        token: &str,
    ) -> i32 {
        let req = turn(id, turn_no, Some(action));
        self.games.submit_turn(authed(req, token)).await.unwrap().into_inner().points
    }

    /// The game's events from `from` on; `n` of them, or to the end (None).
    async fn events(&self, id: &str, from: u64, n: Option<usize>) -> Vec<pb::WatchGameResponse> {
        let req = pb::WatchGameRequest { game_id: id.into(), from_event: from };
        let stream = self.games.watch_game(Request::new(req)).await.unwrap().into_inner().map(Result::unwrap);
        match n {
            Some(n) => stream.take(n).collect().await,
            None => stream.collect().await,
        }
    }

    /// The top play for the seat holding `token`, by GenerateMoves. Call on real time: the
    /// search runs on the pool's threads, and paused time would jump while it does.
    async fn best_play(&self, id: &str, token: &str) -> pb::GenerateMovesResponse {
        let analysis = self.handle.analysis_service();
        let req = pb::GenerateMovesRequest {
            position: Some(pb::Position {
                source: Some(pb::position::Source::GameId(id.into())),
                lexicon: String::new(),
            }),
            limit: 1,
            ..Default::default()
        };
        let mut moves = analysis.generate_moves(authed(req, token)).await.unwrap().into_inner();
        moves.next().await.expect("a play").unwrap()
    }
}

/// Let game time run a millisecond at a time until `done`, reading the host only (a request
/// would wake the game); answers how much game time that took. Each step also lets 0.2 ms of
/// real time pass: a game woken for its flag is replayed on the pool's threads, which paused
/// time does not wait for, and on a loaded machine (the whole suite on two cores) 10 s of game
/// time could otherwise pass before the replay is done. Game time is unchanged by it.
async fn until(what: &str, done: impl Fn() -> bool) -> Duration {
    let started = tokio::time::Instant::now();
    while !done() {
        assert!(started.elapsed() < Duration::from_secs(10), "10 s of game time and still not {what}");
        std::thread::sleep(Duration::from_micros(200));
        tokio::time::sleep(MS).await;
    }
    started.elapsed()
}

fn pass() -> pb::submit_turn_request::Action {
    pb::submit_turn_request::Action::Pass(pb::Pass {})
}

#[tokio::test]
async fn an_idle_game_sleeps_and_wakes_as_it_was() {
    // An hour's idle span, so that the plays (searched on real time) never meet it; the sleep
    // itself is on paused time.
    const HOUR: Duration = Duration::from_secs(3600);
    let srv = Sleepy::idle_after(HOUR, "").await;
    let c = srv.two_humans(7).await;
    let id = c.game_id.as_str();
    let best = srv.best_play(id, &c.seat_tokens[0]).await;
    let play = pb::submit_turn_request::Action::Play(best.play.clone().unwrap());
    srv.submit(id, 0, play, &c.seat_tokens[0]).await;
    let seat1 = || authed(pb::GetGameRequest { game_id: id.into() }, &c.seat_tokens[1]);
    let before = srv.view(seat1()).await;
    let events_before = srv.events(id, 0, Some(before.events as usize)).await;

    tokio::time::pause();
    tokio::time::advance(HOUR - MS).await;
    assert_eq!(srv.residence(id), Residence::Live, "a millisecond short of the idle span");
    until("asleep", || srv.residence(id) == Residence::Asleep).await;
    assert_eq!(srv.handle.host().census().live, 0);
    assert!(srv.metric("dawgref_games_asleep 1"));

    // Woken by a read: the same view, the same events.
    let after = srv.view(seat1()).await;
    assert_eq!(after, before);
    assert_eq!(srv.residence(id), Residence::Live);
    assert_eq!(srv.events(id, 0, Some(before.events as usize)).await, events_before);
    assert!(srv.metric("dawgref_games_woken_total 1"));

    // And it plays on: seat 1's play is taken, stamped after the hour the game slept.
    tokio::time::resume();
    let best = srv.best_play(id, &c.seat_tokens[1]).await;
    let play = pb::submit_turn_request::Action::Play(best.play.clone().unwrap());
    assert_eq!(srv.submit(id, 1, play, &c.seat_tokens[1]).await, best.score);
    let second = srv.events(id, before.events, Some(1)).await.remove(0);
    assert_eq!(second.seat, 1);
    let slept_from = events_before.last().unwrap().time_ms;
    assert!(
        second.time_ms >= slept_from + HOUR.as_millis() as u64,
        "the game clock ran on while the game slept: {slept_from} then {}",
        second.time_ms
    );
}

#[tokio::test(start_paused = true)]
async fn concurrent_first_requests_load_a_sleeping_game_once() {
    let srv = Sleepy::start("").await;
    let c = srv.two_humans(8).await;
    until("asleep", || srv.residence(&c.game_id) == Residence::Asleep).await;
    let reads = (0..16).map(|_| {
        let (games, id) = (srv.games.clone(), c.game_id.clone());
        tokio::spawn(async move {
            games.get_game(Request::new(pb::GetGameRequest { game_id: id })).await.unwrap().into_inner().view
        })
    });
    let views: Vec<_> = futures_util::future::join_all(reads).await.into_iter().map(Result::unwrap).collect();
    assert!(views[0].is_some() && views.windows(2).all(|w| w[0] == w[1]));
    assert!(srv.metric("dawgref_games_loaded_total 1"));
    assert!(srv.metric("dawgref_games_woken_total 1"));
    assert_eq!(srv.handle.host().census().live, 1);
}

#[tokio::test(start_paused = true)]
async fn a_game_sleeps_idle_after_its_last_request() {
    let srv = Sleepy::start("").await;
    let c = srv.two_humans(10).await;
    tokio::time::advance(IDLE / 2).await;
    srv.view(Request::new(pb::GetGameRequest { game_id: c.game_id.clone() })).await;
    tokio::time::advance(IDLE - MS).await;
    assert_eq!(srv.residence(&c.game_id), Residence::Live, "the read started the span again");
    let slept = until("asleep", || srv.residence(&c.game_id) == Residence::Asleep).await;
    // The deadline's tick, or the next: the test's step may be polled before the game's timer.
    assert!(slept <= 2 * MS, "asleep {slept:?} after its deadline");
}

#[tokio::test(start_paused = true)]
async fn a_watcher_keeps_a_game_awake() {
    let srv = Sleepy::start("").await;
    let c = srv.two_humans(9).await;
    let req = pb::WatchGameRequest { game_id: c.game_id.clone(), from_event: 0 };
    let stream = srv.games.watch_game(Request::new(req)).await.unwrap();
    tokio::time::sleep(IDLE * 5).await;
    assert_eq!(srv.residence(&c.game_id), Residence::Live, "watched, the game stays in memory");
    drop(stream);
    let slept = until("asleep once nobody watches", || srv.residence(&c.game_id) == Residence::Asleep).await;
    // At most one idle span (the deadline that met the watcher started one), seen a tick late.
    assert!(slept <= IDLE + MS, "asleep {slept:?} after the watcher left");
}

#[tokio::test(start_paused = true)]
async fn a_flag_falls_on_time_while_the_game_sleeps() {
    let srv = Sleepy::start("").await;
    let mut req = create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("a"), human("b")], 10);
    // Seat 0's flag falls at game time 1501: long after the game has gone to sleep.
    req.clock = Some(pb::ClockSpec {
        initial_ms: 1200,
        increment_ms: 0,
        max_overtime_ms: 300,
        penalty_per_minute: 10,
        per_move_ms: 0,
    });
    let c = srv.games.create_game(Request::new(req)).await.unwrap().into_inner();
    let id = c.game_id.as_str();
    until("asleep", || srv.residence(id) == Residence::Asleep).await;
    // Nobody asks: the host wakes the game for its flag, which falls; the game ends and leaves.
    until("out of time and out of memory", || srv.residence(id) == Residence::Out).await;
    let seen: Vec<(String, u32, u64)> =
        srv.events(id, 0, None).await.into_iter().map(|e| (e.kind, e.seat, e.time_ms)).collect();
    assert_eq!(seen, [("out_of_time".to_string(), 0, 1501), ("game_over".to_string(), 0, 1501)]);
    let v = srv.view(Request::new(pb::GetGameRequest { game_id: id.into() })).await;
    assert_eq!(v.end_reason, "seat 0 ran out of time");
}

#[tokio::test(start_paused = true)]
async fn a_turn_queued_as_the_game_falls_asleep_is_taken_by_the_woken_game() {
    // Turns that meet the game awake (a millisecond before its idle deadline), asleep (one
    // after), and at the deadline itself, when the game is deciding to sleep: every acknowledged
    // turn is in the game once.
    let srv = Sleepy::start("").await;
    let c = srv.two_humans(11).await;
    let gaps = [IDLE - MS, IDLE + MS, IDLE - MS, IDLE + MS];
    for (k, gap) in gaps.into_iter().enumerate() {
        tokio::time::sleep(gap).await;
        srv.submit(&c.game_id, k as u32, pass(), &c.seat_tokens[k % 2]).await;
    }
    assert!(srv.metric("dawgref_games_woken_total 2"), "woken by the two late turns");
    tokio::time::sleep(IDLE).await;
    srv.submit(&c.game_id, 4, pass(), &c.seat_tokens[0]).await;
    let v = srv.view(Request::new(pb::GetGameRequest { game_id: c.game_id.clone() })).await;
    assert_eq!(v.turn, 5);
    let kinds: Vec<String> = srv.events(&c.game_id, 0, Some(5)).await.into_iter().map(|e| e.kind).collect();
    assert_eq!(kinds, ["pass"; 5]);
}

#[tokio::test(start_paused = true)]
async fn a_sleeping_game_holds_no_session() {
    let srv = Sleepy::start("").await;
    let c = srv.two_humans(12).await;
    let session = Arc::downgrade(&srv.handle.host().session(&c.game_id).await.unwrap());
    until("asleep", || srv.residence(&c.game_id) == Residence::Asleep).await;
    until("its session dropped", || session.upgrade().is_none()).await;
}

#[tokio::test(start_paused = true)]
async fn sleeping_games_are_listed_as_live_and_filtered_without_waking() {
    const DIRECTOR: &str = "sleep-director";
    let srv = Sleepy::start(DIRECTOR).await;
    let host = srv.handle.host();
    let mut ids = Vec::new();
    for (seed, round) in [(20, "1"), (21, "2"), (22, "2")] {
        let mut req = create(
            pb::Ruleset::English,
            pb::ChallengeRule::Single,
            vec![human(&format!("Ann{seed}")), human("Bo")],
            seed,
        );
        req.labels = [("round".to_string(), round.to_string())].into();
        ids.push(srv.games.create_game(authed(req, DIRECTOR)).await.unwrap().into_inner().game_id);
    }
    until("every game asleep", || host.census().asleep == 3).await;
    let list = |labels: &[(&str, &str)], query: &str| {
        authed(
            pb::ListGamesRequest {
                labels: labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
                query: query.into(),
                page_size: 1,
                state: pb::GameState::Live as i32,
                ..Default::default()
            },
            DIRECTOR,
        )
    };
    // By label: two games; the page holds one, shown from the store: every game sleeps on.
    let round2 = srv.games.list_games(list(&[("round", "2")], "")).await.unwrap().into_inner();
    assert_eq!(round2.total, 2);
    let mut expected = [ids[1].clone(), ids[2].clone()];
    expected.sort();
    assert_eq!(round2.games.iter().map(|v| v.game_id.clone()).collect::<Vec<_>>(), [expected[0].clone()]);
    assert_eq!(round2.next_page_token, expected[0]);
    assert_eq!((host.census().asleep, host.census().live), (3, 0));
    // By a seat's name, judged asleep.
    let ann21 = srv.games.list_games(list(&[], "ann21")).await.unwrap().into_inner();
    assert_eq!((ann21.total, ann21.games[0].game_id.as_str()), (1, ids[1].as_str()));
    assert_eq!(host.census().asleep, 3);
    // What the listing showed is what a watcher sees once the game is awake.
    let listed = ann21.games[0].clone();
    let awake = srv.view(Request::new(pb::GetGameRequest { game_id: ids[1].clone() })).await;
    assert_eq!(listed, awake);
    assert_eq!((host.census().asleep, host.census().live), (2, 1));
}

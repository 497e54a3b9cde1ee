//! A round's reviews on the real binary, killed with SIGKILL twice while its jobs run: after the
//! restarts every job ends done, each game's review is kept once (one row a game in the
//! database), and AnalyzeGame answers each from the store. The kill times come from a seed
//! printed on failure.

use crate::common;

use super::tournament_kill9::until_played;
use common::Rng;
use common::binary::{KillableServer as Server, serve_data};
use common::server::{TempDir, authed};
use dawgref::proto::v1 as pb;
use pb::tournaments_service_client::TournamentsServiceClient;
use std::time::{Duration, Instant};

const DIRECTOR: &str = "kill9-reviews-director";
const PLAYERS: u32 = 8;
const MS: u32 = 200;

async fn spawn(dir: &std::path::Path) -> Server {
    serve_data(dir, DIRECTOR).await
}

/// The jobs of `slug` as WatchReviews first shows them.
async fn jobs(url: &str, slug: &str) -> pb::WatchReviewsResponse {
    let mut t = TournamentsServiceClient::connect(url.to_string()).await.unwrap();
    let request = authed(pb::WatchReviewsRequest { slug: slug.into() }, DIRECTOR);
    t.watch_reviews(request).await.unwrap().into_inner().message().await.unwrap().unwrap()
}

#[tokio::test]
async fn reviews_killed_twice_end_with_every_game_reviewed_once() {
    let seed = std::env::var("DAWGREF_KILL9_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
    });
    println!("review jobs kill -9 seed: {seed} (DAWGREF_KILL9_SEED={seed} to repeat)");
    let mut rng = Rng(seed);
    let dir = TempDir::new("reviews-kill9");
    let mut srv = spawn(&dir.0).await;
    let mut t = TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    let players = (0..PLAYERS)
        .map(|i| pb::TournamentPlayerSpec {
            bot_account: String::new(),
            name: format!(
                "Bot {}",
                ["Ash", "Birch", "Cedar", "Dogwood", "Elm", "Fir", "Gum", "Hazel"][i as usize]
            ),
            rating: 1000,
            bot: Some(pb::BotLevel::Greedy as i32),
            lifetime_games: None,
        })
        .collect();
    let request = pb::CreateTournamentRequest {
        allow_same_names: false,
        name: "Reviews killed".into(),
        slug: "rk9".into(),
        game: Some(pb::TournamentGameSettings { bot_delay_ms: Some(0), ..Default::default() }),
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players,
            rounds: vec![pb::RoundSpec {
                method: pb::PairingMethod::RoundRobin as i32,
                ..Default::default()
            }],
            controls: None,
            result_reports: 0,
        }],
        seed: Some(seed),
    };
    t.create_tournament(authed(request, DIRECTOR)).await.unwrap();
    let pair =
        pb::PairRoundRequest { slug: "rk9".into(), division: "a".into(), round: 1, ..Default::default() };
    t.pair_round(authed(pair, DIRECTOR)).await.unwrap();
    let start =
        pb::StartRoundRequest { slug: "rk9".into(), division: "a".into(), round: 1, ..Default::default() };
    t.start_round(authed(start, DIRECTOR)).await.unwrap();
    let (division, _) = until_played(&mut t, "rk9", 1).await;
    let games: Vec<String> = division.rounds[0].pairings.iter().map(|p| p.game_id.clone()).collect();
    assert_eq!(games.len(), PLAYERS as usize / 2);

    // About 25 turns a game at 200 ms on two threads: some seconds a game, so both kills fall
    // among the jobs (the first may fall before any is claimed).
    let ask = pb::ReviewGamesRequest {
        slug: "rk9".into(),
        division: "a".into(),
        round: 1,
        ms_per_turn: MS,
        request_id: String::new(),
    };
    assert_eq!(t.review_games(authed(ask, DIRECTOR)).await.unwrap().into_inner().games, PLAYERS / 2);
    for _ in 0..2 {
        tokio::time::sleep(Duration::from_millis(rng.below(4000) as u64)).await;
        drop(srv);
        srv = spawn(&dir.0).await;
    }
    let started = Instant::now();
    let done = loop {
        let now = jobs(&srv.url, "rk9").await;
        if now.done == now.total {
            break now;
        }
        assert_eq!(now.failed, 0, "seed {seed}: {now:?}");
        assert!(started.elapsed() < Duration::from_secs(180), "seed {seed}: the jobs never ended: {now:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(done.total, PLAYERS / 2, "seed {seed}: one job a game");
    assert!(done.jobs.iter().all(|j| j.asked == 1), "seed {seed}: asked once each: {done:?}");
    let mut a = pb::analysis_service_client::AnalysisServiceClient::connect(srv.url.clone()).await.unwrap();
    for game in &games {
        let request = pb::AnalyzeGameRequest { game_id: game.clone(), ms_per_turn: MS, ..Default::default() };
        let mut stream = a.analyze_game(request).await.unwrap().into_inner();
        let first = stream.message().await.unwrap().unwrap();
        assert!(first.from_store, "seed {seed}: game {game}'s review kept");
    }
    // Stopped: the database holds one review a game, and every job done.
    drop(srv);
    let db = rusqlite::Connection::open(dir.0.join("data").join(dawgref::store::sqlite::FILE_NAME)).unwrap();
    let reviews: i64 = db.query_row("SELECT COUNT(*) FROM reviews", [], |r| r.get(0)).unwrap();
    assert_eq!(reviews, i64::from(PLAYERS / 2), "seed {seed}: one review kept a game");
    let states: Vec<(String, i64)> = db
        .prepare("SELECT state, generation FROM review_jobs ORDER BY game")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(states, vec![("done".to_string(), 1); PLAYERS as usize / 2], "seed {seed}");
}

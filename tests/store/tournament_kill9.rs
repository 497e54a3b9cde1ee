//! A tournament on the real binary, killed with SIGKILL mid-round (while its bots play, and while
//! StartRound is on its way), resumes with every finished game counted once: after each restart
//! the round's games play on, each game's end is in its pairing exactly once (one `result`
//! event each), the results are the games' own, and StartRound asked again makes no game twice.
//! The kill times come from a seed printed on failure.

use crate::common;

use common::Rng;
use common::binary::{KillableServer as Server, serve_data};
use common::server::{TempDir, authed, tournament_games};
use dawgref::proto::v1 as pb;
use pb::games_service_client::GamesServiceClient;
use pb::tournaments_service_client::TournamentsServiceClient;
use std::time::{Duration, Instant};
use tonic::transport::Channel;

const DIRECTOR: &str = "kill9-tournament-director";
const PLAYERS: u32 = 8;

/// The binary on `dir`'s data, with the director's token.
async fn spawn(dir: &std::path::Path) -> Server {
    serve_data(dir, DIRECTOR).await
}

async fn client(srv: &Server) -> TournamentsServiceClient<Channel> {
    TournamentsServiceClient::connect(srv.url.clone()).await.unwrap()
}

fn round_of(division: &pb::TournamentDivision, round: u32) -> &pb::TournamentRound {
    &division.rounds[round as usize - 1]
}

/// Wait (a hang guard of two minutes) until every pairing of `round` of `slug`'s first division
/// has its result; the division, and the tournament's events then.
pub(crate) async fn until_played(
    t: &mut TournamentsServiceClient<Channel>,
    slug: &str,
    round: u32,
) -> (pb::TournamentDivision, u64) {
    let started = Instant::now();
    loop {
        let tournament = t
            .get_tournament(pb::GetTournamentRequest { slug: slug.into() })
            .await
            .unwrap()
            .into_inner()
            .tournament
            .unwrap();
        let events = tournament.events;
        let division = tournament.divisions.into_iter().next().unwrap();
        if round_of(&division, round).pairings.iter().all(|p| p.done) {
            return (division, events);
        }
        assert!(started.elapsed() < Duration::from_secs(120), "round {round} never finished");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Every game of `round`, as the server at `url` serves it: over, and its final scores those of
/// its pairing.
pub(crate) async fn check_round(url: &str, division: &pb::TournamentDivision, round: u32) {
    let mut g = GamesServiceClient::connect(url.to_string()).await.unwrap();
    for p in &round_of(division, round).pairings {
        let view = g
            .get_game(pb::GetGameRequest { game_id: p.game_id.clone() })
            .await
            .unwrap()
            .into_inner()
            .view
            .unwrap();
        assert!(view.over, "round {round} pairing {}: its game is over", p.number);
        let scores: Vec<i32> = view.seats.iter().map(|s| s.score).collect();
        if p.forfeited_by == 0 {
            assert_eq!(p.scores, scores, "round {round} pairing {}: the game's own scores", p.number);
        }
    }
}

/// The results entered (round, pairing), from the first `events` of `slug`'s events.
pub(crate) async fn results(
    t: &mut TournamentsServiceClient<Channel>,
    slug: &str,
    events: u64,
) -> Vec<(u32, u32)> {
    let mut stream = t
        .watch_tournament(pb::WatchTournamentRequest { slug: slug.into(), from_event: 0 })
        .await
        .unwrap()
        .into_inner();
    let mut seen = Vec::new();
    for _ in 0..events {
        let e = stream.message().await.unwrap().unwrap();
        if e.kind == "result" {
            seen.push((e.round, e.pairing));
        }
    }
    seen
}

#[tokio::test]
async fn a_tournament_killed_mid_round_counts_every_finished_game_once() {
    let seed = std::env::var("DAWGREF_KILL9_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
    });
    println!("tournament kill -9 seed: {seed} (DAWGREF_KILL9_SEED={seed} to repeat)");
    let mut rng = Rng(seed);
    let dir = TempDir::new("tournament-kill9");
    let mut srv = spawn(&dir.0).await;
    let mut t = client(&srv).await;
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
        name: "Kill nine".into(),
        slug: "k9".into(),
        // Bots at a pace a kill can fall inside: a game is some seconds.
        game: Some(pb::TournamentGameSettings { bot_delay_ms: Some(60), ..Default::default() }),
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players,
            rounds: vec![
                pb::RoundSpec { method: pb::PairingMethod::RoundRobin as i32, ..Default::default() };
                2
            ],
            controls: None,
            result_reports: 0,
        }],
        seed: Some(seed),
    };
    t.create_tournament(authed(request, DIRECTOR)).await.unwrap();
    let pair = |round| {
        authed(
            pb::PairRoundRequest { slug: "k9".into(), division: "a".into(), round, ..Default::default() },
            DIRECTOR,
        )
    };
    let start = |round| {
        authed(
            pb::StartRoundRequest { slug: "k9".into(), division: "a".into(), round, ..Default::default() },
            DIRECTOR,
        )
    };

    // Round 1: killed while its bots play.
    t.pair_round(pair(1)).await.unwrap();
    t.start_round(start(1)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300 + rng.below(2500) as u64)).await;
    drop(srv);
    srv = spawn(&dir.0).await;
    let mut t = client(&srv).await;
    let (division, _) = until_played(&mut t, "k9", 1).await;
    check_round(&srv.url, &division, 1).await;

    // Round 2: killed with StartRound on its way, then asked again.
    t.pair_round(pair(2)).await.unwrap();
    let url = srv.url.clone();
    let call = tokio::spawn(async move {
        let mut t = TournamentsServiceClient::connect(url).await.unwrap();
        let _ = t.start_round(start(2)).await;
    });
    tokio::time::sleep(Duration::from_millis(rng.below(40) as u64)).await;
    drop(srv);
    let _ = call.await;
    srv = spawn(&dir.0).await;
    let mut t = client(&srv).await;
    let round = t.start_round(start(2)).await.unwrap().into_inner().round.unwrap();
    assert_eq!(round.pairings.len(), PLAYERS as usize / 2);
    let (division, events) = until_played(&mut t, "k9", 2).await;
    check_round(&srv.url, &division, 2).await;

    // Each game counted once: one result a pairing, four games a round on the server.
    let mut seen = results(&mut t, "k9", events).await;
    seen.sort();
    let expected: Vec<(u32, u32)> = (1..=2).flat_map(|r| (1..=PLAYERS / 2).map(move |p| (r, p))).collect();
    assert_eq!(seen, expected, "seed {seed}");
    let wins: f64 = division.standings.iter().map(|s| s.wins).sum();
    assert_eq!(wins, f64::from(PLAYERS), "two rounds of four games, seed {seed}");
    let mut g = GamesServiceClient::connect(srv.url.clone()).await.unwrap();
    let listed = tournament_games(&mut g, "k9", DIRECTOR).await;
    assert_eq!(listed, PLAYERS, "no game made twice, seed {seed}");
}

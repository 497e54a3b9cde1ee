//! Rating estimates over gRPC: a division rated by NASPA's rules shows each player's rating going
//! in and the estimate in GetTournament's standings, RecordResult's answer, WatchTournament's
//! result events, ExportTsh (`lifeg`, `newr`) and ExportRatings; ImportTsh reads `lifeg` back;
//! a rating system that is not one is refused naming the field. The figures are the tournament
//! crate's hand-worked ones (crates/tournament/tests/ratings.rs).

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use pb::tournaments_service_client::TournamentsServiceClient;
use tonic::Code;

const DIRECTOR: &str = "ratings-director";

fn rated(name: &str, rating: u32, lifetime_games: Option<u32>) -> pb::TournamentPlayerSpec {
    pb::TournamentPlayerSpec {
        bot_account: String::new(),
        name: name.into(),
        rating,
        bot: None,
        lifetime_games,
    }
}

/// An event of one division of `players` in `rounds` manual rounds, rated by `system`.
fn event(
    slug: &str,
    players: Vec<pb::TournamentPlayerSpec>,
    rounds: usize,
    system: i32,
) -> pb::CreateTournamentRequest {
    pb::CreateTournamentRequest {
        allow_same_names: false,
        name: "Rated".into(),
        slug: slug.into(),
        game: None,
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players,
            rounds: vec![
                pb::RoundSpec { method: pb::PairingMethod::Manual as i32, ..Default::default() };
                rounds
            ],
            controls: Some(pb::DivisionControls { rating_system: system, ..Default::default() }),
            result_reports: 0,
        }],
        seed: Some(1),
    }
}

/// (player, rating, estimate) in standings order.
fn estimates(standings: &[pb::DivisionStanding]) -> Vec<(u32, u32, Option<i32>)> {
    standings.iter().map(|s| (s.player, s.rating, s.estimate)).collect()
}

#[tokio::test]
async fn a_rated_division_shows_each_estimate_everywhere() {
    let srv = start_directed(DIRECTOR).await;
    let mut t = TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    let players = vec![rated("Ann", 1500, Some(100)), rated("Bo", 1600, Some(100)), rated("Cy", 0, None)];
    t.create_tournament(authed(event("rated", players, 3, pb::RatingSystem::Nsa2008 as i32), DIRECTOR))
        .await
        .unwrap();
    // Ann 1500 beats Bo 1600 (Cy has the bye): 1518 and 1589 (E(1500, 1600) = 0.42097, change
    // 20 × 0.57903 = 11.581, acceleration 6.581, feedback 0.329). Cy, unrated, no estimate (a
    // bye is not rated); first in the standings by the bye's spread of 50.
    let division =
        round_by_hand(&mut t, DIRECTOR, ("rated", 1), &[(1, 2), (3, 0)], &[(420, 380)]).await.unwrap();
    let expected = vec![(3, 0, None), (1, 1500, Some(1518)), (2, 1600, Some(1589))];
    assert_eq!(estimates(&division.standings), expected);
    assert_eq!(division.players[0].lifetime_games, Some(100));
    assert_eq!(division.controls.unwrap().rating_system, pb::RatingSystem::Nsa2008 as i32);
    let got = t.get_tournament(pb::GetTournamentRequest { slug: "rated".into() }).await.unwrap().into_inner();
    assert_eq!(estimates(&got.tournament.unwrap().divisions[0].standings), expected);

    // WatchTournament: the result event carries the standings; the others none.
    let mut stream = t
        .watch_tournament(pb::WatchTournamentRequest { slug: "rated".into(), from_event: 0 })
        .await
        .unwrap()
        .into_inner();
    let mut seen = Vec::new();
    while seen.last().is_none_or(|e: &pb::WatchTournamentResponse| e.kind != "result") {
        seen.push(stream.message().await.unwrap().unwrap());
    }
    assert!(seen[..seen.len() - 1].iter().all(|e| e.standings.is_empty()), "{seen:?}");
    assert_eq!(estimates(&seen.last().unwrap().standings), expected);

    // ExportRatings, both files.
    let export = |file: pb::RatingsFile| pb::ExportRatingsRequest {
        slug: "rated".into(),
        division: "a".into(),
        file: file as i32,
    };
    let games = t.export_ratings(export(pb::RatingsFile::Games)).await.unwrap().into_inner().text;
    assert_eq!(
        games,
        "round,first,first_name,first_rating,first_score,second,second_name,second_rating,second_score\n\
         1,1,Ann,1500,420,2,Bo,1600,380\n"
    );
    let players = t.export_ratings(export(pb::RatingsFile::Players)).await.unwrap().into_inner().text;
    assert_eq!(
        players,
        "player,name,rating,lifetime_games,rated_games,wins,estimate,change\n\
         1,Ann,1500,100,1,1,1518,+18\n\
         2,Bo,1600,100,1,0,1589,-11\n\
         3,Cy,0,,0,0,,\n"
    );

    // ExportTsh: `lifeg` where known, `newr` after each round paired (0: none).
    let tsh = t
        .export_tsh(pb::ExportTshRequest { slug: "rated".into(), division: "a".into() })
        .await
        .unwrap()
        .into_inner()
        .text;
    let lines: Vec<&str> = tsh.lines().collect();
    assert!(
        lines[0].starts_with("Ann 1500 2; 420;") && lines[0].ends_with("; lifeg 100; newr 1518"),
        "{tsh}"
    );
    assert!(lines[1].ends_with("; lifeg 100; newr 1589"), "{tsh}");
    assert!(lines[2].ends_with("; newr 0") && !lines[2].contains("lifeg"), "{tsh}");

    // ImportTsh reads `lifeg` back, and the division imported rates as the one exported.
    let import = pb::ImportTshRequest {
        slug: "rated".into(),
        division: "b".into(),
        text: tsh.clone(),
        rounds_to_come: vec![],
        controls: Some(pb::DivisionControls {
            rating_system: pb::RatingSystem::Nsa2008 as i32,
            ..Default::default()
        }),
    };
    let imported = t.import_tsh(authed(import, DIRECTOR)).await.unwrap().into_inner().division.unwrap();
    let lifetimes: Vec<Option<u32>> = imported.players.iter().map(|p| p.lifetime_games).collect();
    assert_eq!(lifetimes, [Some(100), Some(100), None]);
    assert_eq!(estimates(&imported.standings), expected);
}

#[tokio::test]
async fn absp_and_a_bad_rating_system() {
    let srv = start_directed(DIRECTOR).await;
    let mut t = TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    let bad = event("bad", vec![rated("Ann", 150, None), rated("Bo", 140, None)], 1, 9);
    let refused = t.create_tournament(authed(bad, DIRECTOR)).await.unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert_eq!(refused.message(), "divisions[0].controls.rating_system: 9: not a RatingSystem");
    let players = vec![rated("P1", 150, None), rated("P2", 140, None), rated("P3", 130, None)];
    t.create_tournament(authed(event("absp", players, 3, pb::RatingSystem::Absp as i32), DIRECTOR))
        .await
        .unwrap();
    // TSH's ABSP example: P1 beats P2 (140 + 50) and P3 (130 + 50): 185; P2 loses to P1
    // (150 − 50) and beats P3 (130 + 50): 140; P3 loses both (150 − 50, 140 − 50): 95.
    round_by_hand(&mut t, DIRECTOR, ("absp", 1), &[(1, 2), (3, 0)], &[(400, 350)]).await;
    round_by_hand(&mut t, DIRECTOR, ("absp", 2), &[(1, 3), (2, 0)], &[(450, 300)]).await;
    let division =
        round_by_hand(&mut t, DIRECTOR, ("absp", 3), &[(2, 3), (1, 0)], &[(350, 300)]).await.unwrap();
    let by_player = |p: u32| division.standings.iter().find(|s| s.player == p).unwrap().estimate;
    assert_eq!([by_player(1), by_player(2), by_player(3)], [Some(185), Some(140), Some(95)]);
}

//! The room's tables and a division's prizes, over the socket: a pairing's table as the round
//! is paired (a reserved table kept), on the games' labels and in the log; the prize list set by
//! the director and who takes each prize as results come in, as the API and CSV show it; each
//! bad table or prize refused naming its field.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use pb::tournaments_service_client::TournamentsServiceClient;
use tonic::Code;
use tonic::transport::Channel;

const ROOT: &str = "director-secret";

type Tournaments = TournamentsServiceClient<Channel>;

async fn reserve(
    t: &mut Tournaments,
    slug: &str,
    player: u32,
    table: Option<u32>,
) -> Result<pb::TournamentPlayer, tonic::Status> {
    let request = pb::SetReservedTableRequest {
        slug: slug.into(),
        division: "a".into(),
        player,
        table,
        request_id: String::new(),
    };
    t.set_reserved_table(authed(request, ROOT)).await.map(|r| r.into_inner().player.unwrap())
}

async fn division(t: &mut Tournaments, slug: &str) -> pb::TournamentDivision {
    let request = pb::GetTournamentRequest { slug: slug.into() };
    t.get_tournament(tonic::Request::new(request))
        .await
        .unwrap()
        .into_inner()
        .tournament
        .unwrap()
        .divisions
        .remove(0)
}

fn line(first: u32, second: u32) -> pb::PairingSpec {
    pb::PairingSpec { first, second }
}

async fn pair_by_hand(t: &mut Tournaments, slug: &str, round: u32, lines: Vec<pb::PairingSpec>) {
    let request = pb::SetPairingsRequest {
        slug: slug.into(),
        division: "a".into(),
        round,
        pairings: lines,
        request_id: String::new(),
    };
    t.set_pairings(authed(request, ROOT)).await.unwrap();
}

async fn result(t: &mut Tournaments, slug: &str, round: u32, pairing: u32, first: i32, second: i32) {
    let request = pb::RecordResultRequest {
        slug: slug.into(),
        division: "a".into(),
        round,
        pairing,
        result: Some(pb::record_result_request::Result::Scores(pb::FinalScores { first, second })),
        correct: false,
        request_id: String::new(),
    };
    t.record_result(authed(request, ROOT)).await.unwrap();
}

#[tokio::test]
async fn a_round_paired_seats_each_game_at_a_table_and_a_reserved_table_is_kept() {
    let srv = start_directed(ROOT).await;
    let slug = "tables";
    let names = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus"];
    let (mut t, _) = tournament(&srv, ROOT, (slug, slug), &names, &[pb::PairingMethod::Manual; 2], 3).await;
    // Ed needs a fixed table: 7.
    let ed = reserve(&mut t, slug, 5, Some(7)).await.unwrap();
    assert_eq!((ed.name.as_str(), ed.reserved_table), ("Ed", Some(7)));
    pair_by_hand(&mut t, slug, 1, vec![line(1, 2), line(3, 5), line(4, 6), line(7, 0)]).await;
    let d = division(&mut t, slug).await;
    let tables: Vec<(u32, u32, u32)> =
        d.rounds[0].pairings.iter().map(|p| (p.first, p.second, p.table)).collect();
    assert_eq!(tables, [(1, 2, 1), (3, 5, 7), (4, 6, 2), (7, 0, 0)]);
    // The reservation taken away applies from the next round paired; round 1 keeps its tables.
    let ed = reserve(&mut t, slug, 5, None).await.unwrap();
    assert_eq!(ed.reserved_table, None);
    pair_by_hand(&mut t, slug, 2, vec![line(5, 1), line(2, 3), line(6, 7), line(4, 0)]).await;
    let d = division(&mut t, slug).await;
    assert_eq!(d.rounds[0].pairings.iter().map(|p| p.table).collect::<Vec<_>>(), [1, 7, 2, 0]);
    assert_eq!(d.rounds[1].pairings.iter().map(|p| p.table).collect::<Vec<_>>(), [1, 2, 3, 0]);
    // The games StartRound makes carry their table.
    let start = pb::StartRoundRequest {
        slug: slug.into(),
        division: "a".into(),
        round: 1,
        request_id: String::new(),
    };
    t.start_round(authed(start, ROOT)).await.unwrap();
    let d = division(&mut t, slug).await;
    let mut g = srv.games().await;
    for p in &d.rounds[0].pairings[..3] {
        let request = pb::GetGameRequest { game_id: p.game_id.clone() };
        let game = g.get_game(authed(request, ROOT)).await.unwrap().into_inner();
        let labels = game.view.unwrap().labels;
        assert_eq!(labels.get("table"), Some(&p.table.to_string()), "{labels:?}");
    }
    // The log says who keeps which table.
    let filter = pb::TournamentLogFilter { kinds: vec!["table_reserved".into()], ..Default::default() };
    let request =
        pb::GetTournamentLogRequest { slug: slug.into(), filter: Some(filter), ..Default::default() };
    let events = t.get_tournament_log(authed(request, ROOT)).await.unwrap().into_inner().events;
    let details: Vec<&str> = events.iter().map(|e| e.detail.as_str()).collect();
    assert_eq!(details, ["Ed keeps table 7", "Ed has no reserved table"]);
    // TSH's `board` field in the `.t` file.
    let request = pb::ExportTshRequest { slug: slug.into(), division: "a".into() };
    let tsh = t.export_tsh(authed(request, ROOT)).await.unwrap().into_inner().text;
    let ed_line = tsh.lines().find(|l| l.starts_with("Ed ")).unwrap();
    assert!(ed_line.contains("; board 7 1"), "{ed_line}");
    // A table past the bounds is refused by name, and changes nothing.
    for table in [0, 5001] {
        let status = reserve(&mut t, slug, 5, Some(table)).await.unwrap_err();
        assert_eq!(
            (status.code(), status.message().to_string()),
            (Code::InvalidArgument, format!("table: table {table}: tables are numbered 1 to 5000"))
        );
    }
    let status = reserve(&mut t, slug, 9, Some(3)).await.unwrap_err();
    assert_eq!(
        (status.code(), status.message()),
        (Code::InvalidArgument, "player: 9: the division has players 1 to 7")
    );
}

fn place(place: u32, value: &str) -> pb::PrizeSpec {
    pb::PrizeSpec {
        kind: Some(pb::prize_spec::Kind::Place(place)),
        value: value.into(),
        exclusive: String::new(),
    }
}

async fn prizes(t: &mut Tournaments, slug: &str) -> pb::GetDivisionPrizesResponse {
    let request = pb::GetDivisionPrizesRequest { slug: slug.into(), division: "a".into() };
    t.get_division_prizes(tonic::Request::new(request)).await.unwrap().into_inner()
}

/// (prize, player, achievement, shared, note) of each award.
fn awards(r: &pb::GetDivisionPrizesResponse) -> Vec<(u32, u32, String, bool, String)> {
    r.awards.iter().map(|a| (a.prize, a.player, a.achievement.clone(), a.shared, a.note.clone())).collect()
}

#[tokio::test]
async fn a_divisions_prizes_are_awarded_live_from_its_results_and_exported_as_csv() {
    let srv = start_directed(ROOT).await;
    let slug = "prizes";
    let names = ["Ann", "Bo", "Cy", "Di"];
    let (mut t, _) = tournament(&srv, ROOT, (slug, slug), &names, &[pb::PairingMethod::Manual], 3).await;
    let under =
        pb::RatingClass { name: "Under 1600".into(), at_least: None, below: Some(1600), unrated: true };
    let list = vec![
        place(1, "$100"),
        place(2, "$50"),
        pb::PrizeSpec {
            kind: Some(pb::prize_spec::Kind::HighGame(true)),
            value: "a book".into(),
            exclusive: String::new(),
        },
        pb::PrizeSpec {
            kind: Some(pb::prize_spec::Kind::HighLoss(true)),
            value: "a pen".into(),
            exclusive: String::new(),
        },
        pb::PrizeSpec {
            kind: Some(pb::prize_spec::Kind::ClassPlace(pb::ClassPlace { class: Some(under), place: 1 })),
            value: "$20".into(),
            exclusive: String::new(),
        },
    ];
    let request = pb::SetDivisionPrizesRequest {
        slug: slug.into(),
        division: "a".into(),
        prizes: list.clone(),
        request_id: String::new(),
    };
    let set = t.set_division_prizes(authed(request, ROOT)).await.unwrap().into_inner();
    assert_eq!(set.prizes, list);
    // Before any result: nobody, and why.
    let before = prizes(&mut t, slug).await;
    assert!(!before.r#final);
    assert_eq!(before.prizes, list);
    assert_eq!(
        awards(&before)[0],
        (1, 0, String::new(), false, "no player it is open to has a game with scores".into())
    );
    pair_by_hand(&mut t, slug, 1, vec![line(1, 2), line(3, 4)]).await;
    result(&mut t, slug, 1, 1, 420, 380).await;
    result(&mut t, slug, 1, 2, 390, 450).await;
    let after = prizes(&mut t, slug).await;
    assert!(after.r#final);
    assert_eq!(
        awards(&after),
        [
            (1, 4, "1-0 +60".into(), false, String::new()),
            (2, 1, "1-0 +40".into(), false, String::new()),
            (3, 4, "round 1: 450-390 v Cy".into(), false, String::new()),
            (4, 3, "round 1: 390-450 v Di".into(), false, String::new()),
            (5, 4, "1-0 +60".into(), false, String::new()),
        ]
    );
    let descriptions: Vec<&str> = after.awards.iter().map(|a| a.description.as_str()).collect();
    assert_eq!(descriptions, ["1st place", "2nd place", "High game", "High loss", "Under 1600: 1st place"]);
    let request = pb::ExportDivisionPrizesRequest { slug: slug.into(), division: "a".into() };
    let csv = t.export_division_prizes(tonic::Request::new(request)).await.unwrap().into_inner().csv;
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "prize,description,value,player,name,achievement,note");
    assert_eq!(lines.len(), 6, "{csv}");
    assert!(lines[1].starts_with("1,1st place,$100,4,Di,"), "{csv}");
    // A bad list is refused naming the prize, and the list stands.
    for (prizes, field) in [
        (vec![place(1, "$1"), place(0, "$2")], "prizes[1]: prize 2: place 0: places count from 1"),
        (
            vec![pb::PrizeSpec { kind: None, value: "$5".into(), exclusive: String::new() }],
            "prizes[0].kind: ",
        ),
        (vec![place(1, "")], "prizes[0]: prize 1: its value is empty"),
    ] {
        let request = pb::SetDivisionPrizesRequest {
            slug: slug.into(),
            division: "a".into(),
            prizes,
            request_id: String::new(),
        };
        let status = t.set_division_prizes(authed(request, ROOT)).await.unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument);
        assert!(status.message().starts_with(field), "{}", status.message());
    }
    assert_eq!(prizes(&mut t, slug).await.prizes, list);
    // A player may not set the prizes.
    let request = pb::SetDivisionPrizesRequest {
        slug: slug.into(),
        division: "a".into(),
        prizes: vec![],
        request_id: String::new(),
    };
    assert_eq!(
        t.set_division_prizes(tonic::Request::new(request)).await.unwrap_err().code(),
        Code::Unauthenticated
    );
}

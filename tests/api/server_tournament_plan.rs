//! The plan changed after the start, over the server users run: rounds added (each with its
//! method) and taken off, a late entry absent or with byes for the rounds gone, a withdrawn
//! player entered again, a round's pairings taken back before it starts; each refused with what
//! stands in the way, each an event, each read back from the division's `.t` file.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use pb::tournaments_service_client::TournamentsServiceClient;
use tonic::Code;
use tonic::transport::Channel;

const DIRECTOR: &str = "plan-director";

fn person(name: &str) -> pb::TournamentPlayerSpec {
    pb::TournamentPlayerSpec {
        bot_account: String::new(),
        name: name.into(),
        rating: 1500,
        bot: None,
        lifetime_games: None,
    }
}

fn spec(method: pb::PairingMethod) -> pb::RoundSpec {
    pb::RoundSpec { method: method as i32, ..Default::default() }
}

/// Four players (Ann, Bo, Cy, Di), round 1 by hand, round 2 Swiss.
fn club(slug: &str) -> pb::CreateTournamentRequest {
    pb::CreateTournamentRequest {
        allow_same_names: false,
        name: "Plan open".into(),
        slug: slug.into(),
        game: Some(pb::TournamentGameSettings { bot_delay_ms: Some(0), ..Default::default() }),
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players: ["Ann", "Bo", "Cy", "Di"].map(person).into(),
            rounds: vec![spec(pb::PairingMethod::Manual), spec(pb::PairingMethod::Swiss)],
            controls: None,
            result_reports: 0,
        }],
        seed: Some(5),
    }
}

async fn division(t: &mut TournamentsServiceClient<Channel>, slug: &str) -> pb::TournamentDivision {
    let request = authed(pb::GetTournamentRequest { slug: slug.into() }, DIRECTOR);
    t.get_tournament(request).await.unwrap().into_inner().tournament.unwrap().divisions.remove(0)
}

/// Round 1 paired Ann v Bo, Cy v Di, and played 400-300, 360-350.
async fn round_one_played(t: &mut TournamentsServiceClient<Channel>, slug: &str) {
    t.create_tournament(authed(club(slug), DIRECTOR)).await.unwrap();
    round_by_hand(t, DIRECTOR, (slug, 1), &[(1, 2), (3, 4)], &[(400, 300), (360, 350)]).await;
}

/// The tournament's events so far: kind, round, detail.
async fn events(t: &mut TournamentsServiceClient<Channel>, slug: &str) -> Vec<(String, u32, String)> {
    use tokio_stream::StreamExt;
    let request = authed(pb::GetTournamentRequest { slug: slug.into() }, DIRECTOR);
    let count = t.get_tournament(request).await.unwrap().into_inner().tournament.unwrap().events;
    let request = authed(pb::WatchTournamentRequest { slug: slug.into(), from_event: 0 }, DIRECTOR);
    let mut stream = t.watch_tournament(request).await.unwrap().into_inner();
    let mut out = Vec::new();
    for _ in 0..count {
        let e = stream.next().await.unwrap().unwrap();
        out.push((e.kind, e.round, e.detail));
    }
    out
}

#[tokio::test]
async fn rounds_are_added_with_their_methods_and_taken_off_while_unpaired() {
    let srv = start_directed(DIRECTOR).await;
    let mut t = TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    round_one_played(&mut t, "rounds").await;
    let from = division(&mut t, "rounds").await;
    assert_eq!(from.rounds.len(), 2);
    let add = |rounds: Vec<pb::RoundSpec>, request_id: &str| pb::AddRoundRequest {
        slug: "rounds".into(),
        division: "a".into(),
        rounds,
        request_id: request_id.into(),
    };
    let king = spec(pb::PairingMethod::KingOfTheHill);
    let random = spec(pb::PairingMethod::Random);
    let added = t.add_round(authed(add(vec![king, random], "add-1"), DIRECTOR)).await.unwrap().into_inner();
    let methods: Vec<i32> =
        added.division.as_ref().unwrap().rounds.iter().map(|r| r.spec.as_ref().unwrap().method).collect();
    use pb::PairingMethod as M;
    assert_eq!(methods, [M::Manual, M::Swiss, M::KingOfTheHill, M::Random].map(|m| m as i32));
    // A retry adds nothing more.
    let again = t.add_round(authed(add(vec![king, random], "add-1"), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(again, added);
    assert_eq!(division(&mut t, "rounds").await.rounds.len(), 4);
    // Bounds: none, a bad factor, past 100.
    assert_eq!(
        refused(t.add_round(authed(add(vec![], ""), DIRECTOR)).await),
        (Code::InvalidArgument, "rounds: at least one round to add".into())
    );
    let factor = pb::RoundSpec { method: M::Factor as i32, factor: 0, ..Default::default() };
    assert_eq!(
        refused(t.add_round(authed(add(vec![factor], ""), DIRECTOR)).await),
        (
            Code::InvalidArgument,
            "rounds[0].factor: 0: 1 to 2500 (half the most players a division has)".into()
        )
    );
    assert_eq!(
        refused(t.add_round(authed(add(vec![random; 97], ""), DIRECTOR)).await),
        (
            Code::InvalidArgument,
            "rounds: the division has 4 rounds: 97 more would pass the most a division has, 100".into()
        )
    );
    // Round 2 paired: the plan may not drop below it.
    let pair =
        pb::PairRoundRequest { slug: "rounds".into(), division: "a".into(), round: 2, ..Default::default() };
    t.pair_round(authed(pair, DIRECTOR)).await.unwrap();
    let remove = |count| pb::RemoveRoundsRequest {
        slug: "rounds".into(),
        division: "a".into(),
        count,
        request_id: String::new(),
    };
    assert_eq!(
        refused(t.remove_rounds(authed(remove(3), DIRECTOR)).await),
        (
            Code::FailedPrecondition,
            "round 2 is paired: the division cannot have 1 rounds until it is unpaired".into()
        )
    );
    assert_eq!(
        refused(t.remove_rounds(authed(remove(4), DIRECTOR)).await),
        (Code::InvalidArgument, "count: the division has 4 rounds: taking 4 off would leave none".into())
    );
    assert_eq!(
        refused(t.remove_rounds(authed(remove(0), DIRECTOR)).await),
        (Code::InvalidArgument, "count: at least one round to take off".into())
    );
    let removed = t.remove_rounds(authed(remove(1), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(removed.division.unwrap().rounds.len(), 3);
    let seen = events(&mut t, "rounds").await;
    let kinds: Vec<(&str, &str)> =
        seen.iter().filter(|e| e.0 == "rounds_changed").map(|e| (e.0.as_str(), e.2.as_str())).collect();
    assert_eq!(
        kinds,
        [
            ("rounds_changed", "rounds 3 to 4 added: 4 rounds"),
            ("rounds_changed", "round 4 taken off: 3 rounds")
        ]
    );
}

#[tokio::test]
async fn a_late_entry_is_absent_or_has_byes_for_the_rounds_gone_and_its_file_reads_back() {
    let srv = start_directed(DIRECTOR).await;
    let mut t = TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    round_one_played(&mut t, "late").await;
    // Round 1 started: its games are made; Eve's bye has none.
    let start =
        pb::StartRoundRequest { slug: "late".into(), division: "a".into(), round: 1, ..Default::default() };
    t.start_round(authed(start, DIRECTOR)).await.unwrap();
    let add = |name: &str, missed_round_spread| pb::AddPlayerRequest {
        allow_same_name: false,
        request_id: String::new(),
        slug: "late".into(),
        division: "a".into(),
        player: Some(person(name)),
        missed_round_spread,
    };
    assert_eq!(
        refused(t.add_player(authed(add("Zed", Some(1001)), DIRECTOR)).await),
        (Code::InvalidArgument, "missed_round_spread: 1001: -1000 to 1000".into())
    );
    let eve = t.add_player(authed(add("Eve", Some(-50)), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(eve.player.unwrap().number, 5);
    let fay = t.add_player(authed(add("Fay", None), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(fay.player.unwrap().number, 6);
    let d = division(&mut t, "late").await;
    let round_1: Vec<(u32, u32, i32, bool)> = d.rounds[0]
        .pairings
        .iter()
        .map(|p| (p.first, p.second, p.bye_spread, p.game_id.is_empty()))
        .collect();
    assert_eq!(round_1, [(1, 2, 0, true), (3, 4, 0, true), (5, 0, -50, true)]);
    let standing = |n: u32| {
        let s = d.standings.iter().find(|s| s.player == n).unwrap();
        (s.wins, s.losses, s.spread, s.byes)
    };
    assert_eq!(standing(5), (0.0, 1, -50, 0), "Eve: an absence lost by 50");
    assert_eq!(standing(6), (0.0, 0, 0, 0), "Fay: nothing");
    let seen = events(&mut t, "late").await;
    let added: Vec<&str> = seen.iter().filter(|e| e.0 == "player_added").map(|e| e.2.as_str()).collect();
    assert_eq!(
        added,
        ["Eve joins as player 5, a bye (-50) for round 1", "Fay joins as player 6, absent from round 1"]
    );
    // Round 2 pairs all six.
    let pair =
        pb::PairRoundRequest { slug: "late".into(), division: "a".into(), round: 2, ..Default::default() };
    let round_2 = t.pair_round(authed(pair, DIRECTOR)).await.unwrap().into_inner().round.unwrap();
    assert_eq!(round_2.pairings.len(), 3);
    // The file says both, and reads back as the same division.
    let export = pb::ExportTshRequest { slug: "late".into(), division: "a".into() };
    let text = t.export_tsh(authed(export, DIRECTOR)).await.unwrap().into_inner().text;
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[4].starts_with("Eve 1500 0 ") && lines[4].contains("; -50; p12 0 "), "{text}");
    assert!(lines[5].starts_with("Fay 1500 0 ") && lines[5].contains("; unpaired 1 0"), "{text}");
    let import = pb::ImportTshRequest {
        slug: "late".into(),
        division: "b".into(),
        text: text.clone(),
        ..Default::default()
    };
    t.import_tsh(authed(import, DIRECTOR)).await.unwrap();
    let export = pb::ExportTshRequest { slug: "late".into(), division: "b".into() };
    assert_eq!(t.export_tsh(authed(export, DIRECTOR)).await.unwrap().into_inner().text, text);
}

#[tokio::test]
async fn a_withdrawn_player_enters_again_and_a_round_is_unpaired_only_before_it_starts() {
    let srv = start_directed(DIRECTOR).await;
    let mut t = TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    round_one_played(&mut t, "back").await;
    let reenter = |player| pb::ReenterPlayerRequest {
        slug: "back".into(),
        division: "a".into(),
        player,
        request_id: String::new(),
    };
    assert_eq!(
        refused(t.reenter_player(authed(reenter(2), DIRECTOR)).await),
        (Code::FailedPrecondition, "player 2 has not withdrawn: they are paired already".into())
    );
    assert_eq!(
        refused(t.reenter_player(authed(reenter(9), DIRECTOR)).await),
        (Code::InvalidArgument, "player: 9: the division has players 1 to 4".into())
    );
    let withdraw = pb::WithdrawPlayerRequest {
        slug: "back".into(),
        division: "a".into(),
        player: 4,
        ..Default::default()
    };
    t.withdraw_player(authed(withdraw.clone(), DIRECTOR)).await.unwrap();
    // Withdrawn once: a second withdrawal is refused, as a re-entry of an active player is.
    assert_eq!(
        refused(t.withdraw_player(authed(withdraw, DIRECTOR)).await),
        (Code::FailedPrecondition, "player 4 has withdrawn already: enter them again first".into())
    );
    let pair =
        || pb::PairRoundRequest { slug: "back".into(), division: "a".into(), round: 2, ..Default::default() };
    let unpair = |round| pb::UnpairRoundRequest {
        slug: "back".into(),
        division: "a".into(),
        round,
        request_id: String::new(),
    };
    let round_2 = t.pair_round(authed(pair(), DIRECTOR)).await.unwrap().into_inner().round.unwrap();
    assert_eq!(round_2.pairings.len(), 2, "three players: a game and a bye");
    // Di comes back: round 2, drawn without her, is taken back and drawn again with her.
    let back = t.reenter_player(authed(reenter(4), DIRECTOR)).await.unwrap().into_inner();
    assert!(!back.division.unwrap().players[3].withdrawn);
    assert_eq!(
        refused(t.unpair_round(authed(unpair(1), DIRECTOR)).await),
        (
            Code::FailedPrecondition,
            "round 1 is not the last round paired (round 2 is): unpair round 2 first".into()
        )
    );
    assert_eq!(
        refused(t.unpair_round(authed(unpair(3), DIRECTOR)).await),
        (Code::InvalidArgument, "round: 3: the division has rounds 1 to 2".into())
    );
    let unpaired = t.unpair_round(authed(unpair(2), DIRECTOR)).await.unwrap().into_inner();
    assert!(!unpaired.division.unwrap().rounds[1].paired);
    let round_2 = t.pair_round(authed(pair(), DIRECTOR)).await.unwrap().into_inner().round.unwrap();
    assert_eq!(round_2.pairings.len(), 2, "four players: two games");
    assert!(round_2.pairings.iter().all(|p| p.second != 0));
    // Started: its games are made, and it is unpaired no more.
    let start =
        pb::StartRoundRequest { slug: "back".into(), division: "a".into(), round: 2, ..Default::default() };
    t.start_round(authed(start, DIRECTOR)).await.unwrap();
    assert_eq!(
        refused(t.unpair_round(authed(unpair(2), DIRECTOR)).await),
        (Code::FailedPrecondition, "round 2 has started: its games are made, and its pairings stand".into())
    );
    let seen = events(&mut t, "back").await;
    let plan: Vec<(&str, u32, &str)> = seen
        .iter()
        .filter(|e| e.0 == "player_reentered" || e.0 == "round_unpaired")
        .map(|e| (e.0.as_str(), e.1, e.2.as_str()))
        .collect();
    assert_eq!(
        plan,
        [
            ("player_reentered", 0, "Di enters again as player 4"),
            ("round_unpaired", 2, "round 2's pairings taken back")
        ]
    );
}

/// Issue 82, item 4: AddPlayer asked twice with one request id (a double click) adds one player
/// and answers the same player and token both times; a name a player of the division has is
/// refused unless the director allows it, at AddPlayer and at CreateTournament alike.
#[tokio::test]
async fn a_late_entry_asked_twice_is_added_once_and_a_name_taken_only_when_allowed() {
    let srv = start_directed(DIRECTOR).await;
    let mut t = TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    t.create_tournament(authed(club("twice"), DIRECTOR)).await.unwrap();
    let add = |name: &str, request_id: &str, allow_same_name| pb::AddPlayerRequest {
        slug: "twice".into(),
        division: "a".into(),
        player: Some(person(name)),
        missed_round_spread: None,
        request_id: request_id.into(),
        allow_same_name,
    };
    let first = t.add_player(authed(add("Eve", "click-1", false), DIRECTOR)).await.unwrap().into_inner();
    let again = t.add_player(authed(add("Eve", "click-1", false), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(first.player.as_ref().unwrap().number, 5);
    assert_eq!(first.token.len(), 32);
    assert_eq!(again, first, "the retry answers the first answer, its token included");
    assert_eq!(division(&mut t, "twice").await.players.len(), 5);
    // The token answered is the player's: it opens their seat.
    let you = t
        .get_tournament(authed(pb::GetTournamentRequest { slug: "twice".into() }, &first.token))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(you.tournament.unwrap().you.unwrap().player, 5);
    // A name taken, told apart from case and spacing, is refused; allowed, it is added.
    assert_eq!(
        refused(t.add_player(authed(add("  eve ", "click-2", false), DIRECTOR)).await),
        (
            Code::InvalidArgument,
            "player.name: \"eve\": player 5 of the division has that name (a director may allow it)".into()
        )
    );
    let second = t.add_player(authed(add("Eve", "click-3", true), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(second.player.unwrap().number, 6);
    let mut same = club("same");
    same.divisions[0].players[2] = person("ann");
    assert_eq!(
        refused(t.create_tournament(authed(same.clone(), DIRECTOR)).await),
        (
            Code::InvalidArgument,
            "divisions[0].players[2].name: \"ann\": player 1 of the division has that name (a director may allow it)"
                .into()
        )
    );
    same.allow_same_names = true;
    t.create_tournament(authed(same, DIRECTOR)).await.unwrap();
}

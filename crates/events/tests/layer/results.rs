//! RecordResult and WithdrawPlayer: a result by hand entered through the one door (its bounds, a
//! correction, a retry), and a pairing's game held by another replica ended there first, through
//! the `Owners` seam.

use crate::fakes::*;
use dawgref_engine::game::ResultKind;
use dawgref_events::{Actor, Command, Hand, Invalid, PlayerNamed, derived_request_id};
use dawgref_tournament::Error as TournamentError;
use dawgref_tournament::{GameResult, Method, Pairing, PlayerId};

const FOUR: &[&str] = &["Ann", "Bo", "Cy", "Di"];
const MANUAL2: &[Method] = &[Method::Manual, Method::Manual];

/// Tournament `t`: division "A" of four players, round 1 paired by hand Ann–Bo, Cy–Di and round 2
/// Ann–Cy, Bo–Di, neither started.
async fn paired(layer: &Layer) {
    layer.create("t", &[("A", FOUR, MANUAL2)]).await;
    layer.set_pairings("t", "A", 1, &[(1, 2), (3, 4)]).await;
    layer.set_pairings("t", "A", 2, &[(1, 3), (2, 4)]).await;
}

fn line(layer_record: &dawgref_events::Record, k: usize, i: usize) -> Pairing {
    layer_record.divisions()[0].lines(RoundId::at(k))[i].clone()
}

#[tokio::test]
async fn a_result_by_hand_on_a_pairing_with_no_game_is_entered_and_counted() {
    let layer = Layer::new();
    paired(&layer).await;
    let owners = FakeOwners::default();
    let said = layer.record("t", "", ("A", 1, 1), Hand::Scores([400, 350]), false, &owners).await.unwrap();
    assert_eq!(said.did, Did::Division { division: 0 });
    assert_eq!(said.standings, [(1, 2, 50), (3, 0, 0), (4, 0, 0), (2, 0, -50)]);
    let record = layer.record_of("t").await;
    assert_eq!(
        line(&record, 0, 0),
        Pairing::Game {
            first: PlayerId(0),
            second: PlayerId(1),
            result: Some(GameResult::Scores([400, 350]))
        }
    );
    assert_eq!(record.divisions()[0].game_id(RoundId(0), PairingId(0)), None);
    assert_eq!(
        layer.events_from("t", 3).await,
        [ev(3, "result", "A", 1, 1, "Ann 400 – Bo 350", "director", &[1, 2])]
    );
    assert!(owners.calls().is_empty(), "no game to end");
}

#[tokio::test]
async fn a_result_in_an_imported_round_started_with_no_games_is_entered() {
    let layer = Layer::new();
    layer.create("t", &[("A", &["Ed", "Flo"], &[Method::RoundRobin])]).await;
    let import = dawgref_events::Import {
        division: "B".into(),
        text: "Ann 1500 2; 400\nBo 1400 1; 350\nCy 1300 4;\nDi 1200 3;\n".into(),
        controls: Default::default(),
        rounds_to_come: Vec::new(),
        tokens: vec![None; 4],
    };
    layer.command("t", "", Command::ImportDivision(import)).await.unwrap();
    let record = layer.record_of("t").await;
    assert!(record.divisions()[1].started(RoundId(0)));
    let owners = FakeOwners::default();
    let said = layer.record("t", "", ("B", 1, 2), Hand::ForfeitedBy(4), false, &owners).await.unwrap();
    assert_eq!(said.did, Did::Division { division: 1 });
    assert_eq!(said.standings, [(1, 2, 50), (3, 2, 50), (2, 0, -50), (4, 0, -50)]);
    assert_eq!(
        layer.events_from("t", 2).await,
        [ev(2, "result", "B", 1, 2, "Di forfeits to Cy", "director", &[3, 4])]
    );
    assert!(owners.calls().is_empty());
}

#[tokio::test]
async fn a_score_past_ten_thousand_either_way_is_refused_naming_scores() {
    let layer = Layer::new();
    paired(&layer).await;
    let owners = FakeOwners::default();
    let high = layer.record("t", "", ("A", 1, 1), Hand::Scores([10_001, 350]), false, &owners).await;
    assert_eq!(
        refused(high),
        invalid(
            Invalid::Score("score of 10001: -10000 to 10000".into()),
            "a score of 10001: -10000 to 10000"
        )
    );
    let low = layer.record("t", "", ("A", 1, 1), Hand::Scores([400, -10_001]), false, &owners).await;
    assert_eq!(
        refused(low),
        invalid(
            Invalid::Score("score of -10001: -10000 to 10000".into()),
            "a score of -10001: -10000 to 10000"
        )
    );
    assert_eq!(
        line(&layer.record_of("t").await, 0, 0),
        Pairing::Game { first: PlayerId(0), second: PlayerId(1), result: None }
    );
    assert_eq!(layer.events_of("t").await.len(), 3);
    // The bound itself is in.
    layer.record("t", "", ("A", 1, 1), Hand::Scores([10_000, -10_000]), false, &owners).await.unwrap();
}

#[tokio::test]
async fn a_forfeit_by_a_player_not_in_the_pairing_is_refused_naming_forfeited_by() {
    let layer = Layer::new();
    paired(&layer).await;
    let owners = FakeOwners::default();
    let result = layer.record("t", "", ("A", 1, 1), Hand::ForfeitedBy(3), false, &owners).await;
    assert_eq!(
        refused(result),
        invalid(
            Invalid::NotInPairing { player: 3, pairing: 1, first: 1, second: 2 },
            "3: pairing 1 is players 1 and 2"
        )
    );
    layer.record("t", "", ("A", 1, 1), Hand::ForfeitedBy(1), false, &owners).await.unwrap();
    assert_eq!(
        layer.events_from("t", 3).await,
        [ev(3, "result", "A", 1, 1, "Ann forfeits to Bo", "director", &[1, 2])]
    );
}

#[tokio::test]
async fn a_result_for_no_pairing_or_a_round_not_paired_is_refused() {
    let layer = Layer::new();
    layer.create("t", &[("A", FOUR, MANUAL2)]).await;
    layer.set_pairings("t", "A", 1, &[(1, 2), (3, 4)]).await;
    let owners = FakeOwners::default();
    let scores = Hand::Scores([400, 350]);
    assert_eq!(
        refused(layer.record("t", "", ("A", 1, 3), scores, false, &owners).await),
        invalid(
            Invalid::NoSuchPairing { round: 1, pairing: 3, pairings: 2 },
            "3: round 1 has pairings 1 to 2"
        )
    );
    assert_eq!(
        refused(layer.record("t", "", ("A", 1, 0), scores, false, &owners).await),
        invalid(
            Invalid::NoSuchPairing { round: 1, pairing: 0, pairings: 2 },
            "0: round 1 has pairings 1 to 2"
        )
    );
    assert_eq!(
        refused(layer.record("t", "", ("A", 2, 1), scores, false, &owners).await),
        rules(TournamentError::NotPaired { round: 2 }, "round 2 is not paired yet")
    );
    assert_eq!(
        refused(layer.record("t", "", ("A", 3, 1), scores, false, &owners).await),
        invalid(Invalid::NoSuchRound { round: 3, rounds: 2 }, "3: the division has rounds 1 to 2")
    );
    assert_eq!(layer.events_of("t").await.len(), 2);
}

#[tokio::test]
async fn a_result_for_a_bye_is_refused() {
    let layer = Layer::new();
    layer.create("t", &[("A", &["Ann", "Bo", "Cy"], &[Method::Manual])]).await;
    layer.set_pairings("t", "A", 1, &[(1, 2), (3, 0)]).await;
    let result =
        layer.record("t", "", ("A", 1, 2), Hand::Scores([400, 350]), false, &FakeOwners::default()).await;
    assert_eq!(
        refused(result),
        rules(
            TournamentError::ByeResult { round: 1, pairing: 2 },
            "round 1's pairing 2 is a bye: it has no result to enter"
        )
    );
}

#[tokio::test]
async fn a_second_result_is_refused_without_correct_and_replaces_the_first_with_it() {
    let layer = Layer::new();
    paired(&layer).await;
    let owners = FakeOwners::default();
    layer.record("t", "", ("A", 1, 1), Hand::Scores([400, 350]), false, &owners).await.unwrap();
    let second = layer.record("t", "", ("A", 1, 1), Hand::Scores([380, 350]), false, &owners).await;
    assert_eq!(
        refused(second),
        rules(
            TournamentError::Finished { round: 1, pairing: 1 },
            "round 1's pairing 1 has its result already: enter it again as a correction to replace it"
        )
    );
    assert_eq!(layer.events_of("t").await.len(), 4);
    let said = layer.record("t", "", ("A", 1, 1), Hand::ForfeitedBy(2), true, &owners).await.unwrap();
    assert_eq!(said.standings[0], (1, 2, 50));
    assert_eq!(
        line(&layer.record_of("t").await, 0, 0),
        Pairing::Game {
            first: PlayerId(0),
            second: PlayerId(1),
            result: Some(GameResult::Forfeit { winner: 0 })
        }
    );
    assert_eq!(
        layer.events_from("t", 4).await,
        [ev(
            4,
            "result_corrected",
            "A",
            1,
            1,
            "Bo forfeits to Ann (was Ann 400 – Bo 350)",
            "director",
            &[1, 2]
        )]
    );
}

#[tokio::test]
async fn a_retried_result_answers_the_kept_answer_and_enters_nothing() {
    let layer = Layer::new();
    paired(&layer).await;
    let owners = FakeOwners::default();
    let hand = |scores| dawgref_events::HandResult {
        division: "A".into(),
        round: 1,
        pairing: 1,
        result: Hand::Scores(scores),
        correct: false,
    };
    let first = layer
        .events
        .record_result("t", &Actor::Root, "x", hand([400, 350]), &owners, said("first"))
        .await
        .unwrap();
    let version = layer.version("t").await;
    // The same request, even with other scores: the first answer, the first result.
    let again = layer
        .events
        .record_result("t", &Actor::Root, "x", hand([300, 450]), &owners, said("again"))
        .await
        .unwrap();
    assert_eq!(again, first);
    assert_eq!(layer.version("t").await, version);
    assert_eq!(layer.events_of("t").await.len(), 4);
    assert_eq!(
        line(&layer.record_of("t").await, 0, 0),
        Pairing::Game {
            first: PlayerId(0),
            second: PlayerId(1),
            result: Some(GameResult::Scores([400, 350]))
        }
    );
}

#[tokio::test]
async fn a_withdrawn_players_unplayed_games_become_forfeits_noted_withdrawn() {
    let layer = Layer::new();
    paired(&layer).await;
    let owners = FakeOwners::default();
    // Bo's round 1 game is played; round 2's (Bo–Di) is not.
    layer.record("t", "", ("A", 1, 1), Hand::Scores([400, 350]), false, &owners).await.unwrap();
    let said =
        layer.events.withdraw("t", &Actor::Key("ann".into()), "", "A", 2, &owners, said("")).await.unwrap();
    assert_eq!(said.did, Did::Division { division: 0 });
    let record = layer.record_of("t").await;
    assert!(record.divisions()[0].division().players()[1].withdrawn);
    assert_eq!(
        line(&record, 0, 0),
        Pairing::Game {
            first: PlayerId(0),
            second: PlayerId(1),
            result: Some(GameResult::Scores([400, 350]))
        }
    );
    assert_eq!(
        line(&record, 1, 1),
        Pairing::Game {
            first: PlayerId(1),
            second: PlayerId(3),
            result: Some(GameResult::Forfeit { winner: 1 })
        }
    );
    assert_eq!(line(&record, 0, 1), Pairing::Game { first: PlayerId(2), second: PlayerId(3), result: None });
    assert_eq!(
        layer.events_from("t", 4).await,
        [
            ev(4, "result", "A", 2, 2, "Bo forfeits to Di (withdrawn)", "ann", &[2, 4]),
            ev(5, "player_withdrawn", "A", 0, 0, "Bo withdraws", "ann", &[2]),
        ]
    );
    assert!(owners.calls().is_empty(), "no game in play");
}

#[tokio::test]
async fn withdrawing_no_such_player_is_refused_and_a_retry_answers_the_kept_answer() {
    let layer = Layer::new();
    paired(&layer).await;
    let owners = FakeOwners::default();
    let nobody = layer.events.withdraw("t", &Actor::Root, "", "A", 5, &owners, said("")).await;
    assert_eq!(
        refused(nobody),
        invalid(
            Invalid::NoSuchPlayer { player: 5, players: 4, by: PlayerNamed::Player },
            "5: the division has players 1 to 4"
        )
    );
    let first = layer.events.withdraw("t", &Actor::Root, "w", "A", 3, &owners, said("first")).await.unwrap();
    let events = layer.events_of("t").await.len();
    let again = layer.events.withdraw("t", &Actor::Root, "w", "A", 3, &owners, said("again")).await.unwrap();
    assert_eq!(again, first);
    assert_eq!(layer.events_of("t").await.len(), events);
}

/// Tournament `t` as [`paired`] on a replica whose games another replica holds, round 1 started
/// there: its games (noted, none made here), by pairing.
async fn started_elsewhere(layer: &Layer) -> Vec<String> {
    paired(layer).await;
    let games = FakeGames::noted();
    let said = layer.start("t", "", ("A", 1), &games).await.unwrap();
    let ids: Vec<String> = games.made().iter().map(|m| m.id.to_string()).collect();
    assert_eq!(said.games, ids.iter().cloned().map(Some).collect::<Vec<_>>());
    ids
}

#[tokio::test]
async fn a_result_by_hand_for_a_game_another_replica_holds_ends_it_there_first() {
    let layer = Layer::replica();
    let ids = started_elsewhere(&layer).await;
    let owners = FakeOwners::default();
    layer.record("t", "req-1", ("A", 1, 2), Hand::Scores([412, 388]), false, &owners).await.unwrap();
    assert_eq!(
        owners.calls(),
        [EndCall {
            owner: OTHER_REPLICA.into(),
            game_id: ids[1].clone(),
            result: ResultKind::Adjudicated {
                scores: vec![412, 388],
                reason: "the result the tournament's director entered".into()
            },
            request_id: Some(derived_request_id("t", &["record", "A", &ids[1], "req-1"])),
        }]
    );
    assert_eq!(
        line(&layer.record_of("t").await, 0, 1),
        Pairing::Game {
            first: PlayerId(2),
            second: PlayerId(3),
            result: Some(GameResult::Scores([412, 388]))
        }
    );
    assert_eq!(
        layer.events_from("t", 4).await,
        [ev(4, "result", "A", 1, 2, "Cy 412 – Di 388", "director", &[3, 4])]
    );
}

#[tokio::test]
async fn a_forfeit_by_hand_ends_the_game_elsewhere_as_the_forfeiting_seats_and_without_a_request_id() {
    let layer = Layer::replica();
    let ids = started_elsewhere(&layer).await;
    let owners = FakeOwners::default();
    layer.record("t", "", ("A", 1, 1), Hand::ForfeitedBy(2), false, &owners).await.unwrap();
    assert_eq!(
        owners.calls(),
        [EndCall {
            owner: OTHER_REPLICA.into(),
            game_id: ids[0].clone(),
            result: ResultKind::Forfeit {
                seat: 1,
                reason: "the result the tournament's director entered".into()
            },
            request_id: None,
        }]
    );
}

#[tokio::test]
async fn a_result_whose_game_its_owner_refuses_to_end_is_not_entered() {
    let layer = Layer::replica();
    started_elsewhere(&layer).await;
    let version = layer.version("t").await;
    let owners = FakeOwners::refusing("the game's owner says no");
    let result = layer.record("t", "r", ("A", 1, 1), Hand::Scores([400, 350]), false, &owners).await;
    assert_eq!(refused(result), Refused::Owner("the game's owner says no".into()));
    assert_eq!(owners.calls().len(), 1);
    assert_eq!(layer.version("t").await, version);
    assert_eq!(
        line(&layer.record_of("t").await, 0, 0),
        Pairing::Game { first: PlayerId(0), second: PlayerId(1), result: None }
    );
    // Nothing kept for its request id: asked again, with the owner willing, it is entered.
    let owners = FakeOwners::default();
    layer.record("t", "r", ("A", 1, 1), Hand::Scores([400, 350]), false, &owners).await.unwrap();
    assert_eq!(owners.calls().len(), 1);
    assert_eq!(layer.events_of("t").await.last().map(|e| e.kind.clone()), Some("result".into()));
}

#[tokio::test]
async fn a_retried_result_ends_no_game_again() {
    let layer = Layer::replica();
    started_elsewhere(&layer).await;
    let owners = FakeOwners::default();
    layer.record("t", "r", ("A", 1, 1), Hand::Scores([400, 350]), false, &owners).await.unwrap();
    layer.record("t", "r", ("A", 1, 1), Hand::Scores([400, 350]), false, &owners).await.unwrap();
    assert_eq!(owners.calls().len(), 1);
}

#[tokio::test]
async fn a_withdrawn_players_game_in_play_elsewhere_ends_there_as_their_forfeit() {
    let layer = Layer::replica();
    let ids = started_elsewhere(&layer).await;
    let owners = FakeOwners::default();
    // Di plays second in round 1 (Cy–Di), in play elsewhere, and in round 2 (Bo–Di), not started.
    layer.events.withdraw("t", &Actor::Root, "w-1", "A", 4, &owners, said("")).await.unwrap();
    assert_eq!(
        owners.calls(),
        [EndCall {
            owner: OTHER_REPLICA.into(),
            game_id: ids[1].clone(),
            result: ResultKind::Forfeit { seat: 1, reason: "the player withdrew from the tournament".into() },
            request_id: Some(derived_request_id("t", &["withdraw", "A", &ids[1], "w-1"])),
        }]
    );
    let details: Vec<String> = layer.events_from("t", 4).await.into_iter().map(|e| e.detail).collect();
    assert_eq!(details, ["Di forfeits to Cy (withdrawn)", "Di forfeits to Bo (withdrawn)", "Di withdraws"]);
}

#[tokio::test]
async fn a_withdrawal_whose_game_its_owner_refuses_to_end_is_not_made() {
    let layer = Layer::replica();
    started_elsewhere(&layer).await;
    let version = layer.version("t").await;
    let owners = FakeOwners::refusing("the game's owner says no");
    let withdrawn = layer.events.withdraw("t", &Actor::Root, "w", "A", 1, &owners, said("")).await;
    assert_eq!(refused(withdrawn), Refused::Owner("the game's owner says no".into()));
    assert_eq!(layer.version("t").await, version);
    assert!(!layer.record_of("t").await.divisions()[0].division().players()[0].withdrawn);
}

/// Issue 82, item 1: 0–0 is no scores given, refused before anything is entered or ended.
#[tokio::test]
async fn a_result_of_0_0_is_refused_as_no_scores_and_enters_nothing() {
    let layer = Layer::new();
    paired(&layer).await;
    let owners = FakeOwners::default();
    let events = layer.events_of("t").await.len();
    let none = layer.record("t", "", ("A", 1, 1), Hand::Scores([0, 0]), false, &owners).await;
    assert_eq!(
        refused(none),
        invalid(
            Invalid::NoScores,
            "0–0: no scores given (a forfeit is entered as one, naming who forfeited)"
        )
    );
    assert_eq!(layer.events_of("t").await.len(), events);
    assert!(!line(&layer.record_of("t").await, 0, 0).is_done());
    // One side's 0 is a score.
    layer.record("t", "", ("A", 1, 1), Hand::Scores([0, 350]), false, &owners).await.unwrap();
}

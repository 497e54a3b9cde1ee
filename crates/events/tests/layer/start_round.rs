//! StartRound: a round's games made once per pair, with ids drawn from what they are (the same
//! when asked again), bound to their lines and noted; a round not paired refused; two calls at
//! once start it once; and pairs another replica changed meanwhile refused, their games voided.

use crate::fakes::*;
use dawgref_engine::game::ResultKind;
use dawgref_events::{Actor, Command, Hand, Invalid};
use dawgref_tournament::Error as TournamentError;
use dawgref_tournament::Method;

const FOUR: &[&str] = &["Ann", "Bo", "Cy", "Di"];
const FIVE: &[&str] = &["Ann", "Bo", "Cy", "Di", "Ed"];
const MANUAL2: &[Method] = &[Method::Manual, Method::Manual];

fn made(division: usize, round: u32, players: [u32; 2], id: uuid::Uuid) -> Made {
    Made { division, round, players, id }
}

#[tokio::test]
async fn a_round_started_makes_one_game_per_pair_binds_them_and_is_noted() {
    let layer = Layer::new();
    layer.create("t", &[("A", FOUR, MANUAL2)]).await;
    layer.set_pairings("t", "A", 1, &[(3, 1), (2, 4)]).await;
    let games = FakeGames::noted();
    let said = layer.start("t", "", ("A", 1), &games).await.unwrap();
    let made_calls = games.made();
    assert_eq!(
        made_calls,
        [made(0, 1, [3, 1], made_calls[0].id), made(0, 1, [2, 4], made_calls[1].id)],
        "each pair's game, first to move first"
    );
    assert_ne!(made_calls[0].id, made_calls[1].id);
    assert_eq!(said.did, Did::Round { division: 0, round: 0 });
    let ids: Vec<Option<String>> = made_calls.iter().map(|m| Some(m.id.to_string())).collect();
    assert_eq!(said.games, ids);
    let record = layer.record_of("t").await;
    let entry = &record.divisions()[0];
    assert!(entry.started(RoundId(0)));
    assert_eq!(entry.game_id(RoundId(0), PairingId(1)), Some(made_calls[1].id.to_string().as_str()));
    assert_eq!(
        layer.events_from("t", 2).await,
        [ev(2, "round_started", "A", 1, 0, "round 1: 2 games", "director", &[])]
    );
}

#[tokio::test]
async fn a_round_started_makes_no_game_for_a_bye_or_a_result_in() {
    let layer = Layer::new();
    layer.create("t", &[("A", FIVE, &[Method::Manual])]).await;
    layer.set_pairings("t", "A", 1, &[(1, 2), (3, 4), (5, 0)]).await;
    layer
        .record("t", "", ("A", 1, 1), Hand::Scores([400, 350]), false, &FakeOwners::default())
        .await
        .unwrap();
    let games = FakeGames::noted();
    let said = layer.start("t", "", ("A", 1), &games).await.unwrap();
    let made_calls = games.made();
    assert_eq!(made_calls, [made(0, 1, [3, 4], made_calls[0].id)]);
    assert_eq!(said.games, [None, Some(made_calls[0].id.to_string()), None]);
    assert_eq!(
        layer.events_from("t", 3).await,
        [ev(3, "round_started", "A", 1, 0, "round 1: 1 games", "director", &[])]
    );
}

#[tokio::test]
async fn a_round_not_paired_is_refused_and_makes_no_game() {
    let layer = Layer::new();
    layer.create("t", &[("A", FOUR, MANUAL2)]).await;
    let games = FakeGames::noted();
    assert_eq!(
        refused(layer.start("t", "", ("A", 1), &games).await),
        rules(TournamentError::NotPaired { round: 1 }, "round 1 is not paired yet")
    );
    assert_eq!(
        refused(layer.start("t", "", ("A", 3), &games).await),
        invalid(Invalid::NoSuchRound { round: 3, rounds: 2 }, "3: the division has rounds 1 to 2")
    );
    assert!(games.made().is_empty());
    assert_eq!(layer.events_of("t").await.len(), 1);
}

#[tokio::test]
async fn a_round_started_already_is_answered_as_it_stands_and_makes_nothing() {
    let layer = Layer::new();
    layer.create("t", &[("A", FOUR, MANUAL2)]).await;
    layer.set_pairings("t", "A", 1, &[(1, 2), (3, 4)]).await;
    let first = FakeGames::noted();
    let answered = layer.start("t", "s1", ("A", 1), &first).await.unwrap();
    let (version, events) = (layer.version("t").await, layer.events_of("t").await.len());
    // Another request id: the round is started, its games as they are.
    let again = FakeGames::noted();
    let other = layer.start("t", "s2", ("A", 1), &again).await.unwrap();
    assert_eq!(other.games, answered.games);
    // The same request id: the kept answer.
    let kept = layer
        .events
        .start_round("t", &Actor::Root, "s1", "A", 1, &FakeOwners::default(), &again, said("kept"))
        .await;
    assert_eq!(kept.unwrap(), answered);
    assert!(again.made().is_empty());
    assert_eq!((layer.version("t").await, layer.events_of("t").await.len()), (version, events));
}

#[tokio::test]
async fn a_round_whose_start_failed_midway_makes_the_same_games_when_asked_again() {
    let layer = Layer::new();
    layer.create("t", &[("A", FOUR, MANUAL2)]).await;
    layer.set_pairings("t", "A", 1, &[(1, 2), (3, 4)]).await;
    let failing = FakeGames::failing_at(1);
    assert_eq!(
        refused(layer.start("t", "s", ("A", 1), &failing).await),
        Refused::Internal("the games' server fell over".into())
    );
    assert!(!layer.record_of("t").await.divisions()[0].started(RoundId(0)));
    assert_eq!(layer.events_of("t").await.len(), 2);
    let games = FakeGames::noted();
    let said = layer.start("t", "s", ("A", 1), &games).await.unwrap();
    // The same ids: the game made by the failed call is found made, not made twice.
    assert_eq!(games.made(), failing.made());
    assert_eq!(said.games, games.made().iter().map(|m| Some(m.id.to_string())).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_games_id_is_drawn_from_its_tournament_division_round_and_pair() {
    let layer = Layer::new();
    let mut ids = Vec::new();
    for slug in ["t", "u"] {
        layer.create(slug, &[("A", FOUR, MANUAL2), ("B", FOUR, MANUAL2)]).await;
        for division in ["A", "B"] {
            layer.set_pairings(slug, division, 1, &[(1, 2), (3, 4)]).await;
            layer.set_pairings(slug, division, 2, &[(1, 2), (4, 3)]).await;
            for round in [1, 2] {
                let games = FakeGames::noted();
                layer.start(slug, "", (division, round), &games).await.unwrap();
                ids.extend(games.made().into_iter().map(|m| m.id));
            }
        }
    }
    let mut distinct = ids.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!((ids.len(), distinct.len()), (16, 16));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_starts_of_a_round_at_once_start_it_once_and_answer_the_same_games() {
    let layer = Layer::new();
    layer.create("t", &[("A", FOUR, MANUAL2)]).await;
    layer.set_pairings("t", "A", 1, &[(1, 2), (3, 4)]).await;
    let games = FakeGames::noted();
    let (a, b) =
        tokio::join!(layer.start("t", "a", ("A", 1), &games), layer.start("t", "b", ("A", 1), &games));
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(games.made().len(), 2, "each pair's game made once");
    assert_eq!(a.games, b.games);
    assert_eq!(a.games, games.made().iter().map(|m| Some(m.id.to_string())).collect::<Vec<_>>());
    let started: Vec<Ev> =
        layer.events_from("t", 0).await.into_iter().filter(|e| e.kind == "round_started").collect();
    assert_eq!(started.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_starts_of_a_round_by_one_request_id_at_once_answer_alike() {
    let layer = Layer::new();
    layer.create("t", &[("A", FOUR, MANUAL2)]).await;
    layer.set_pairings("t", "A", 1, &[(1, 2), (3, 4)]).await;
    let games = FakeGames::noted();
    let (a, b) =
        tokio::join!(layer.start("t", "s", ("A", 1), &games), layer.start("t", "s", ("A", 1), &games));
    assert_eq!(a.unwrap(), b.unwrap());
    assert_eq!(games.made().len(), 2);
    assert_eq!(layer.events_of("t").await.len(), 3);
}

#[tokio::test]
async fn pairs_another_replica_changed_while_the_games_were_made_are_refused_and_their_games_voided() {
    let layer = Layer::replica();
    layer.create("t", &[("A", FOUR, MANUAL2)]).await;
    layer.set_pairings("t", "A", 1, &[(1, 2), (3, 4)]).await;
    // Another replica, over the same store, pairs round 1 again (Cy and Di swapped) while this
    // one makes its games.
    let other = layer.beside();
    let games = FakeGames::meanwhile(async move {
        let unpair = Command::UnpairRound { division: "A".into(), round: 1 };
        other.command("t", "", unpair).await.expect("unpaired elsewhere");
        let set = Command::SetPairings { division: "A".into(), round: 1, lines: lines_of(&[(1, 2), (4, 3)]) };
        other.command("t", "", set).await.expect("paired again elsewhere");
    });
    let owners = FakeOwners::default();
    let started = layer.events.start_round("t", &Actor::Root, "s", "A", 1, &owners, &games, said("")).await;
    assert_eq!(
        refused(started),
        Refused::Aborted("round 1's pairings changed on another replica while it started: ask again".into())
    );
    let made_calls = games.made();
    assert_eq!(made_calls.iter().map(|m| m.players).collect::<Vec<_>>(), [[1, 2], [3, 4]]);
    // Cy–Di's game is no pairing's now: voided at its owner. Ann–Bo's stands, to be bound.
    assert_eq!(
        owners.calls(),
        [EndCall {
            owner: OTHER_REPLICA.into(),
            game_id: made_calls[1].id.to_string(),
            result: ResultKind::Void {
                reason: "its tournament pairing changed before the round started".into()
            },
            request_id: None,
        }]
    );
    assert!(!layer.record_of("t").await.divisions()[0].started(RoundId(0)));
    // Asked again, it starts on the pairs as they are: Ann–Bo's game the same, Di–Cy's new.
    let again = FakeGames::noted();
    let said =
        layer.events.start_round("t", &Actor::Root, "s", "A", 1, &owners, &again, said("")).await.unwrap();
    let remade = again.made();
    assert_eq!(remade.iter().map(|m| m.players).collect::<Vec<_>>(), [[1, 2], [4, 3]]);
    assert_eq!(remade[0].id, made_calls[0].id);
    assert_ne!(remade[1].id, made_calls[1].id);
    assert_eq!(said.games, remade.iter().map(|m| Some(m.id.to_string())).collect::<Vec<_>>());
    assert_eq!(owners.calls().len(), 1);
}

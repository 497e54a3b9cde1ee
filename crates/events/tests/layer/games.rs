//! Results from real games on the host: a game's end entered by the game (`follow_results` as it
//! ends, `reconcile` when it ended unheard, PairRound reconciling first), a director's result
//! ending the game in play with it, and a game over being final to all but a correction.

use crate::fakes::*;
use dawgref_engine::game::{EndReason, ResultKind};
use dawgref_events::{Actor, Command, Hand, game_result};
use dawgref_tournament::{GameResult, Method, Pairing, PlayerId};
use std::time::Duration;

const FOUR: &[&str] = &["Ann", "Bo", "Cy", "Di"];

/// Tournament `t`: division "A" of four players, round 1 (Ann–Bo, Cy–Di) paired by hand and
/// started with its games made on the host, round 2 by the standings; its game ids by pairing.
async fn playing(layer: &Layer) -> Vec<String> {
    layer.create("t", &[("A", FOUR, &[Method::Manual, Method::Swiss])]).await;
    layer.set_pairings("t", "A", 1, &[(1, 2), (3, 4)]).await;
    let games = FakeGames::on(&layer.host);
    let said = layer.start("t", "", ("A", 1), &games).await.unwrap();
    said.games.into_iter().map(|g| g.expect("a game")).collect()
}

/// Feed `follow_results` these game ids as ended, and wait until it has entered what it would.
async fn heard(layer: &Layer, ids: &[&str]) {
    let (tx, rx) = tokio::sync::broadcast::channel(16);
    for id in ids {
        tx.send(uuid::Uuid::parse_str(id).unwrap()).unwrap();
    }
    drop(tx);
    // Closed once every id is read: it returns.
    tokio::time::timeout(Duration::from_secs(10), layer.events.clone().follow_results(rx))
        .await
        .expect("heard");
}

#[tokio::test]
async fn a_game_that_ends_here_is_entered_by_the_game_as_it_ends() {
    let layer = Layer::new();
    let ids = playing(&layer).await;
    let following = tokio::spawn(layer.events.clone().follow_results(layer.host.ended_games()));
    end_on_host(&layer.host, &ids[0], adjudicated(400, 350)).await;
    let mut entered = false;
    for _ in 0..500 {
        if layer.record_of("t").await.divisions()[0].lines(RoundId(0))[0].is_done() {
            entered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(entered, "the game's result was not entered");
    following.abort();
    assert_eq!(
        layer.record_of("t").await.divisions()[0].lines(RoundId(0))[0],
        Pairing::Game {
            first: PlayerId(0),
            second: PlayerId(1),
            result: Some(GameResult::Scores([400, 350]))
        }
    );
    assert_eq!(
        layer.events_from("t", 3).await,
        [ev(3, "result", "A", 1, 1, "Ann 400 – Bo 350", "game", &[1, 2])]
    );
}

#[tokio::test]
async fn a_game_heard_ending_twice_is_entered_once() {
    let layer = Layer::new();
    let ids = playing(&layer).await;
    end_on_host(&layer.host, &ids[1], ResultKind::Forfeit { seat: 0, reason: "no show".into() }).await;
    heard(&layer, &[&ids[1], &ids[1]]).await;
    assert_eq!(
        layer.events_from("t", 3).await,
        [ev(3, "result", "A", 1, 2, "Cy forfeits to Di", "game", &[3, 4])]
    );
}

#[tokio::test]
async fn a_game_in_play_or_of_no_tournament_heard_enters_nothing() {
    let layer = Layer::new();
    let ids = playing(&layer).await;
    heard(&layer, &[&ids[0], &uuid::Uuid::new_v4().to_string()]).await;
    assert_eq!((layer.version("t").await, layer.events_of("t").await.len()), (3, 3));
}

#[tokio::test]
async fn a_game_that_ended_unheard_is_entered_by_the_game_when_reconciled() {
    let layer = Layer::new();
    let ids = playing(&layer).await;
    end_on_host(&layer.host, &ids[1], adjudicated(330, 420)).await;
    let_go(&layer.host, &ids[1]).await;
    let record = layer.events.reconcile("t").await.unwrap();
    assert_eq!(
        record.divisions()[0].lines(RoundId(0))[1],
        Pairing::Game {
            first: PlayerId(2),
            second: PlayerId(3),
            result: Some(GameResult::Scores([330, 420]))
        }
    );
    assert_eq!(
        layer.events_from("t", 3).await,
        [ev(3, "result", "A", 1, 2, "Cy 330 – Di 420", "game", &[3, 4])]
    );
    // Reconciled again: nothing more.
    let version = layer.version("t").await;
    layer.events.reconcile("t").await.unwrap();
    assert_eq!((layer.version("t").await, layer.events_of("t").await.len()), (version, 4));
}

#[tokio::test]
async fn reconciling_leaves_games_in_play_alone_and_writes_nothing() {
    let layer = Layer::new();
    playing(&layer).await;
    let record = layer.events.reconcile("t").await.unwrap();
    assert!(record.divisions()[0].lines(RoundId(0)).iter().all(|l| !l.is_done()));
    assert_eq!((layer.version("t").await, layer.events_of("t").await.len()), (3, 3));
}

#[tokio::test]
async fn pairing_a_round_by_the_standings_enters_the_results_that_ended_unheard_first() {
    let layer = Layer::new();
    let ids = playing(&layer).await;
    end_on_host(&layer.host, &ids[0], adjudicated(400, 350)).await;
    end_on_host(&layer.host, &ids[1], adjudicated(300, 390)).await;
    let_go(&layer.host, &ids[0]).await;
    let_go(&layer.host, &ids[1]).await;
    let said = layer.command("t", "", Command::PairRound { division: "A".into(), round: 2 }).await.unwrap();
    assert_eq!(said.lines, [Some(2), Some(2)]);
    let kinds: Vec<(String, String)> =
        layer.events_from("t", 3).await.into_iter().map(|e| (e.kind, e.by)).collect();
    assert_eq!(
        kinds,
        [
            ("result".to_string(), "game".to_string()),
            ("result".to_string(), "game".to_string()),
            ("pairings_made".to_string(), "director".to_string()),
        ]
    );
}

#[tokio::test]
async fn a_result_by_hand_ends_the_game_in_play_with_it_and_its_end_heard_enters_nothing_more() {
    let layer = Layer::new();
    let ids = playing(&layer).await;
    let owners = FakeOwners::default();
    layer.record("t", "", ("A", 1, 1), Hand::Scores([412, 388]), false, &owners).await.unwrap();
    let snapshot = layer.host.snapshot(&ids[0]).await.unwrap();
    let outcome = snapshot.game().outcome().expect("ended").clone();
    assert_eq!((outcome.reason, outcome.scores.clone()), (EndReason::Adjudicated, vec![412, 388]));
    assert_eq!(game_result(&outcome), Some(GameResult::Scores([412, 388])));
    assert!(owners.calls().is_empty(), "a game held here is ended here");
    heard(&layer, &[&ids[0]]).await;
    assert_eq!(
        layer.events_from("t", 3).await,
        [ev(3, "result", "A", 1, 1, "Ann 412 – Bo 388", "director", &[1, 2])]
    );
}

#[tokio::test]
async fn a_result_by_hand_for_a_game_over_is_refused_without_correct() {
    let layer = Layer::new();
    let ids = playing(&layer).await;
    end_on_host(&layer.host, &ids[0], adjudicated(400, 350)).await;
    let owners = FakeOwners::default();
    let result = layer.record("t", "", ("A", 1, 1), Hand::Scores([350, 400]), false, &owners).await;
    assert_eq!(
        refused(result),
        precondition(
            "round 1's pairing 1: its game is over and its result enters from it (correct replaces it)"
        )
    );
    assert_eq!(layer.events_of("t").await.len(), 3);
    // A correction is the tournament's alone: entered, the game left as it ended.
    layer.record("t", "", ("A", 1, 1), Hand::Scores([350, 400]), true, &owners).await.unwrap();
    assert_eq!(
        layer.events_from("t", 3).await,
        [ev(3, "result", "A", 1, 1, "Ann 350 – Bo 400", "director", &[1, 2])]
    );
    let snapshot = layer.host.snapshot(&ids[0]).await.unwrap();
    assert_eq!(snapshot.game().outcome().map(|o| o.scores.clone()), Some(vec![400, 350]));
    // Its end heard after: the pairing has its result, nothing more is entered.
    heard(&layer, &[&ids[0]]).await;
    assert_eq!(layer.events_of("t").await.len(), 4);
}

#[tokio::test]
async fn a_withdrawn_players_game_that_ended_counts_as_it_ended_and_one_in_play_ends_as_their_forfeit() {
    let layer = Layer::new();
    let ids = playing(&layer).await;
    // Bo's game ended (unheard) with Bo ahead; Di's is in play.
    end_on_host(&layer.host, &ids[0], adjudicated(300, 420)).await;
    layer.events.withdraw("t", &Actor::Root, "", "A", 2, &FakeOwners::default(), said("")).await.unwrap();
    layer.events.withdraw("t", &Actor::Root, "", "A", 4, &FakeOwners::default(), said("")).await.unwrap();
    assert_eq!(
        layer.events_from("t", 3).await,
        [
            ev(3, "result", "A", 1, 1, "Ann 300 – Bo 420", "game", &[1, 2]),
            ev(4, "player_withdrawn", "A", 0, 0, "Bo withdraws", "director", &[2]),
            ev(5, "result", "A", 1, 2, "Di forfeits to Cy (withdrawn)", "director", &[3, 4]),
            ev(6, "player_withdrawn", "A", 0, 0, "Di withdraws", "director", &[4]),
        ]
    );
    let snapshot = layer.host.snapshot(&ids[1]).await.unwrap();
    assert_eq!(snapshot.game().outcome().map(|o| o.reason), Some(EndReason::Forfeit(1)));
}

/// A game's link to its tournament is its record's; a game made before the record kept one is
/// found by its labels, and its end entered all the same.
#[tokio::test]
async fn a_games_end_is_entered_by_its_records_link_and_by_its_labels_for_a_game_made_before() {
    for games in [FakeGames::on as fn(&dawgref_host::Host) -> FakeGames, FakeGames::labelled_only] {
        let layer = Layer::new();
        layer.create("t", &[("A", FOUR, &[Method::Manual, Method::Swiss])]).await;
        layer.set_pairings("t", "A", 1, &[(1, 2), (3, 4)]).await;
        let said = layer.start("t", "", ("A", 1), &games(&layer.host)).await.unwrap();
        let ids: Vec<String> = said.games.into_iter().map(|g| g.expect("a game")).collect();
        let snapshot = layer.host.snapshot(&ids[1]).await.unwrap();
        let linked = snapshot.tournament().map(|t| (t.slug.as_str(), t.division.as_str(), t.round));
        let labelled_only = linked.is_none();
        assert_eq!(dawgref_events::GameLink::of(&snapshot).map(|l| l.slug), Some("t".to_string()));
        end_on_host(&layer.host, &ids[1], adjudicated(300, 420)).await;
        heard(&layer, &[&ids[1]]).await;
        assert_eq!(
            layer.record_of("t").await.divisions()[0].lines(RoundId(0))[1],
            Pairing::Game {
                first: PlayerId(2),
                second: PlayerId(3),
                result: Some(GameResult::Scores([300, 420]))
            },
            "labelled only: {labelled_only}"
        );
        if !labelled_only {
            assert_eq!(linked, Some(("t", "A", 1)));
        }
    }
}

//! Broadcasts: made once per slug, changed only while on, ended once, and the delay every door of
//! a game asks of them (the longest of those on that cover its labels).

use crate::fakes::*;
use dawgref_events::{Broadcast, BroadcastChange, EventsError, game_labels};
use dawgref_host::HostError;

/// A broadcast on, covering games with every one of `labels`.
pub fn broadcast(slug: &str, labels: &[(&str, &str)], delay_seconds: u32) -> Broadcast {
    Broadcast {
        slug: slug.into(),
        name: format!("The {slug} broadcast"),
        labels: labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        delay_seconds,
        created_unix_ms: 1,
        ..Broadcast::default()
    }
}

fn anyone(_: &dawgref_events::Kept) -> Result<(), EventsError> {
    Ok(())
}

#[tokio::test]
async fn a_broadcast_holds_back_the_games_it_covers_by_its_delay_and_no_others() {
    let layer = Layer::new();
    let kept = layer.events.create_broadcast(broadcast("b", &[("tournament", "t")], 30)).await.unwrap();
    assert_eq!((kept.version, kept.is_on()), (1, true));
    let delay = |slug: &str, division: &str, round| {
        layer.events.broadcasts().delay_ms(&game_labels(slug, division, round))
    };
    assert_eq!((delay("t", "A", 1), delay("t", "B", 7), delay("u", "A", 1)), (30_000, 30_000, 0));
}

#[tokio::test]
async fn the_longest_delay_of_the_broadcasts_covering_a_game_holds_it() {
    let layer = Layer::new();
    layer.events.create_broadcast(broadcast("all", &[("tournament", "t")], 30)).await.unwrap();
    layer
        .events
        .create_broadcast(broadcast("top", &[("tournament", "t"), ("division", "A")], 60))
        .await
        .unwrap();
    layer.events.create_broadcast(broadcast("r2", &[("tournament", "t"), ("round", "2")], 10)).await.unwrap();
    let delay =
        |division: &str, round| layer.events.broadcasts().delay_ms(&game_labels("t", division, round));
    assert_eq!(
        (delay("A", 1), delay("A", 2), delay("B", 1), delay("B", 2)),
        (60_000, 60_000, 30_000, 30_000)
    );
}

#[tokio::test]
async fn a_second_broadcast_by_a_slug_taken_is_refused_here_and_on_another_replica() {
    let layer = Layer::new();
    layer.events.create_broadcast(broadcast("b", &[("tournament", "t")], 30)).await.unwrap();
    let again = layer.events.create_broadcast(broadcast("b", &[("tournament", "u")], 5)).await;
    assert_eq!(refused(again), Refused::AlreadyExists("a broadcast \"b\" exists already".into()));
    let other = layer.beside();
    let there = other.events.create_broadcast(broadcast("b", &[("tournament", "u")], 5)).await;
    assert_eq!(refused(there), Refused::AlreadyExists("a broadcast \"b\" exists already".into()));
    // Another replica finds it in the store.
    assert_eq!(other.events.broadcast("b").await.unwrap().broadcast.delay_seconds, 30);
    assert_eq!(
        refused(other.events.broadcast("nope").await),
        Refused::NotFound("no broadcast \"nope\"".into())
    );
}

#[tokio::test]
async fn an_update_changes_only_the_settings_given_as_its_next_version() {
    let layer = Layer::new();
    layer.events.create_broadcast(broadcast("b", &[("tournament", "t")], 30)).await.unwrap();
    let change =
        BroadcastChange { delay_seconds: Some(0), reveal_racks: Some(true), ..BroadcastChange::default() };
    let kept = layer.events.update_broadcast("b", anyone, &change).await.unwrap();
    assert_eq!(kept.version, 2);
    assert_eq!(
        kept.broadcast,
        Broadcast { delay_seconds: 0, reveal_racks: true, ..broadcast("b", &[("tournament", "t")], 30) }
    );
    assert_eq!(layer.events.broadcasts().delay_ms(&game_labels("t", "A", 1)), 0);
}

#[tokio::test]
async fn a_change_the_check_refuses_is_not_made() {
    let layer = Layer::new();
    layer.events.create_broadcast(broadcast("b", &[("tournament", "t")], 30)).await.unwrap();
    let change = BroadcastChange { delay_seconds: Some(0), ..BroadcastChange::default() };
    let not_yours = |_: &dawgref_events::Kept| {
        Err(EventsError::Host(HostError::OutOfScope { key: "k".into(), labels: "tournament=u".into() }))
    };
    let not_yours_words =
        HostError::OutOfScope { key: "k".into(), labels: "tournament=u".into() }.to_string();
    assert_eq!(
        refused(layer.events.update_broadcast("b", not_yours, &change).await),
        Refused::Host(not_yours_words.clone())
    );
    assert_eq!(
        refused(layer.events.end_broadcast("b", not_yours, 5).await),
        Refused::Host(not_yours_words.clone())
    );
    let kept = layer.events.broadcast("b").await.unwrap();
    assert_eq!((kept.version, kept.is_on(), kept.broadcast.delay_seconds), (1, true, 30));
}

#[tokio::test]
async fn a_broadcast_ended_holds_nothing_back_stays_as_it_ended_and_is_changed_no_more() {
    let layer = Layer::new();
    layer.events.create_broadcast(broadcast("b", &[("tournament", "t")], 30)).await.unwrap();
    let ended = layer.events.end_broadcast("b", anyone, 5_000).await.unwrap();
    assert_eq!((ended.version, ended.broadcast.ended_unix_ms, ended.is_on()), (2, 5_000, false));
    assert_eq!(layer.events.broadcasts().delay_ms(&game_labels("t", "A", 1)), 0);
    let again = layer.events.end_broadcast("b", anyone, 9_000).await.unwrap();
    assert_eq!((again.version, again.broadcast.ended_unix_ms), (2, 5_000));
    let change = BroadcastChange { delay_seconds: Some(60), ..BroadcastChange::default() };
    assert_eq!(
        refused(layer.events.update_broadcast("b", anyone, &change).await),
        precondition("broadcast \"b\" has ended")
    );
}

/// A broadcast's settings are bounded by the layer, whichever door makes or changes one: a
/// label at least, an hour's delay at most, the engine's time per move 100 to 30,000 ms (0 at
/// creation: the default, 2,000; 0 in a change: refused, as unset leaves it).
#[test]
fn a_broadcasts_settings_are_held_to_their_bounds() {
    use dawgref_events::Invalid;
    let made = broadcast("b", &[("tournament", "t")], 3600).checked().unwrap();
    assert_eq!((made.delay_seconds, made.analysis_ms), (3600, 2000));
    assert_eq!(broadcast("b", &[], 30).checked().unwrap_err(), Invalid::NoLabels);
    assert_eq!(
        broadcast("b", &[("tournament", "t")], 3601).checked().unwrap_err(),
        Invalid::Delay { seconds: 3601 }
    );
    let slow = Broadcast { analysis_ms: 30_001, ..broadcast("b", &[("tournament", "t")], 0) };
    let e = slow.checked().unwrap_err();
    assert_eq!(e.to_string(), "30001: the engine's time per move is 100 to 30000 ms (0: 2000)");
    let change = |analysis_ms| BroadcastChange { analysis_ms, ..BroadcastChange::default() };
    assert_eq!(change(Some(0)).check(), Err(Invalid::NoAnalysisMs));
    assert_eq!(change(Some(99)).check(), Err(Invalid::AnalysisMs { ms: 99 }));
    assert_eq!(change(None).check(), Ok(()));
}

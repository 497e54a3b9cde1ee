//! WatchTournament's stream (`Events::watch`): every event from the number asked, each change
//! made here heard at once, the division carried on the last result sent together, and to a
//! spectator a result no sooner than a broadcast's delay after it came in, nor anything after it.

use crate::broadcasts::broadcast;
use crate::fakes::*;
use dawgref_events::{EventsError, Hand, Watched};
use dawgref_tournament::Method;
use std::time::Duration;
use tokio::sync::mpsc::Receiver;

type Stream = Receiver<Result<Watched, EventsError>>;

async fn watch(layer: &Layer, from: u64, held: bool) -> Stream {
    layer.events.watch("t".into(), from, held).await.expect("watched").into_inner()
}

/// The next event the stream sends within `within` (None: none sent by then).
async fn next(stream: &mut Stream, within: Duration) -> Option<Watched> {
    match tokio::time::timeout(within, stream.recv()).await {
        Ok(Some(watched)) => Some(watched.expect("an event")),
        Ok(None) => panic!("the stream ended"),
        Err(_) => None,
    }
}

const SOON: Duration = Duration::from_secs(1);

/// Tournament `t`: created (event 0), round 1 paired (1), both its results in (2, 3).
async fn two_results(layer: &Layer) {
    let four: &[&str] = &["Ann", "Bo", "Cy", "Di"];
    layer.create("t", &[("A", four, &[Method::RoundRobin, Method::RoundRobin])]).await;
    layer.pair("t", "A", 1).await;
    let owners = FakeOwners::default();
    layer.record("t", "", ("A", 1, 1), Hand::Scores([400, 350]), false, &owners).await.unwrap();
    layer.record("t", "", ("A", 1, 2), Hand::Scores([380, 390]), false, &owners).await.unwrap();
}

#[tokio::test]
async fn a_directors_watch_sends_every_event_from_the_number_asked_the_last_result_with_its_division() {
    let layer = Layer::new();
    two_results(&layer).await;
    let mut stream = watch(&layer, 1, false).await;
    let mut sent = Vec::new();
    for _ in 0..3 {
        let w = next(&mut stream, SOON).await.expect("an event");
        sent.push((w.event.number, w.event.kind, w.division));
    }
    let division = layer.record_of("t").await.divisions()[0].division().clone();
    assert_eq!(
        sent,
        [
            (1, "pairings_made".to_string(), None),
            (2, "result".to_string(), None),
            (3, "result".to_string(), Some(division)),
        ]
    );
    assert!(next(&mut stream, Duration::from_millis(100)).await.is_none());
}

#[tokio::test]
async fn a_watch_hears_a_change_made_here_at_once() {
    let layer = Layer::new();
    two_results(&layer).await;
    let mut stream = watch(&layer, 4, false).await;
    assert!(next(&mut stream, Duration::from_millis(100)).await.is_none());
    layer.pair("t", "A", 2).await;
    // Before the stream's poll (every 2 s) would find it: it heard the change.
    let w = next(&mut stream, Duration::from_millis(1500)).await.expect("the change, at once");
    assert_eq!(
        (w.event.number, w.event.kind.as_str(), w.event.detail.as_str()),
        (4, "pairings_made", "round 2 paired")
    );
}

#[tokio::test]
async fn a_watch_of_no_tournament_is_not_found() {
    let layer = Layer::new();
    let watched = layer.events.watch("t".into(), 0, true).await.map(|_| ());
    assert_eq!(refused(watched), Refused::NotFound("no tournament \"t\"".into()));
}

#[tokio::test]
async fn a_spectators_watch_holds_a_result_and_what_follows_it_until_the_broadcast_ends() {
    let layer = Layer::new();
    two_results(&layer).await;
    layer.pair("t", "A", 2).await;
    layer.events.create_broadcast(broadcast("b", &[("tournament", "t")], 3600)).await.unwrap();
    let mut director = watch(&layer, 0, false).await;
    let mut spectator = watch(&layer, 0, true).await;
    for number in 0..5 {
        assert_eq!(next(&mut director, SOON).await.map(|w| w.event.number), Some(number));
    }
    for number in 0..2 {
        assert_eq!(next(&mut spectator, SOON).await.map(|w| w.event.number), Some(number));
    }
    // The first result is held, and the pairings drawn after it with it.
    assert!(next(&mut spectator, Duration::from_millis(300)).await.is_none());
    layer.events.end_broadcast("b", |_| Ok(()), 1).await.unwrap();
    // Released within the stream's next look at the delay (every second).
    let released: Vec<u64> = {
        let mut numbers = Vec::new();
        for _ in 2..5 {
            numbers.push(next(&mut spectator, Duration::from_secs(3)).await.expect("released").event.number);
        }
        numbers
    };
    assert_eq!(released, [2, 3, 4]);
}

//! The spectators' cut (`Events::spectators`): a tournament as someone who does not direct it
//! sees it while a broadcast holds its games back, cut at the first result still within its
//! delay, so that neither it nor anything after it is in: the tournament as it stood just before
//! that result's event, but for the viewer's own games' results, which they see now. Checked
//! against an oracle over generated tournaments (the tournament as it stood at each event count,
//! kept as it went), and in time with a delay of a second.

use crate::broadcasts::broadcast;
use crate::fakes::*;
use dawgref_events::{Broadcast, Command, EventsError, Hand, Record, TournamentEvent};
use dawgref_tournament::{Division, Method, Pairing, PlayerId};
use proptest::prelude::*;
use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

/// What a spectator is shown of a tournament: its event count, and per division the division
/// (players, rounds, pairings, results) with each round's games once started.
#[derive(Debug, PartialEq)]
struct Shape {
    events: u64,
    divisions: Vec<(Division, Games)>,
}

/// Per round: None until started; then each line's game (None: a bye, or a result in first).
type Games = Vec<Option<Vec<Option<String>>>>;

fn shape(record: &Record) -> Shape {
    Shape {
        events: record.event_count(),
        divisions: record
            .divisions()
            .iter()
            .map(|entry| {
                let games = (0..entry.division().rounds().len())
                    .map(|k| {
                        entry.started(RoundId::at(k)).then(|| {
                            (0..entry.lines(RoundId::at(k)).len())
                                .map(|i| entry.game_id(RoundId::at(k), PairingId::at(i)).map(str::to_string))
                                .collect()
                        })
                    })
                    .collect();
                (entry.division().clone(), games)
            })
            .collect(),
    }
}

/// The tournament as it stands, as a spectator (`you`: a player's division and number) sees it.
async fn seen(layer: &Layer, slug: &str, you: Option<(&str, u32)>) -> Shape {
    let record = layer.record_of(slug).await;
    let you =
        you.map(|(division, player)| (record.division(division).expect("a division"), PlayerId(player - 1)));
    shape(&layer.events.spectators(record, you).await.expect("seen"))
}

const HOUR: u32 = 3600;

#[tokio::test]
async fn with_no_broadcast_a_spectator_sees_the_tournament_as_it_stands() {
    let layer = Layer::new();
    layer.create("t", &[("A", &["Ann", "Bo", "Cy", "Di"], &[Method::RoundRobin, Method::RoundRobin])]).await;
    layer.pair("t", "A", 1).await;
    layer
        .record("t", "", ("A", 1, 1), Hand::Scores([400, 350]), false, &FakeOwners::default())
        .await
        .unwrap();
    layer.events.create_broadcast(broadcast("b", &[("tournament", "u")], HOUR)).await.unwrap();
    assert_eq!(seen(&layer, "t", None).await, shape(&layer.record_of("t").await));
}

/// Tournament `t` on a replica whose games another replica holds: division "A" of four, round 1
/// paired, started, both its results in, round 2 paired and started; the tournament as it stood
/// at each event count.
async fn played(layer: &Layer) -> BTreeMap<u64, Record> {
    let owners = FakeOwners::default();
    let mut kept = BTreeMap::new();
    let mut keep = async |layer: &Layer| {
        let record = layer.record_of("t").await;
        kept.insert(record.event_count(), record);
    };
    layer.create("t", &[("A", &["Ann", "Bo", "Cy", "Di"], &[Method::RoundRobin, Method::RoundRobin])]).await;
    keep(layer).await;
    layer.pair("t", "A", 1).await;
    keep(layer).await;
    layer.start("t", "", ("A", 1), &FakeGames::noted()).await.unwrap();
    keep(layer).await;
    layer.record("t", "", ("A", 1, 1), Hand::Scores([400, 350]), false, &owners).await.unwrap();
    keep(layer).await;
    layer.record("t", "", ("A", 1, 2), Hand::ForfeitedBy(2), false, &owners).await.unwrap();
    keep(layer).await;
    layer.pair("t", "A", 2).await;
    keep(layer).await;
    layer.start("t", "", ("A", 2), &FakeGames::noted()).await.unwrap();
    keep(layer).await;
    kept
}

#[tokio::test]
async fn a_result_within_its_delay_is_cut_with_all_that_came_after_it() {
    let layer = Layer::replica();
    let at = played(&layer).await;
    layer.events.create_broadcast(broadcast("b", &[("tournament", "t")], HOUR)).await.unwrap();
    let view = seen(&layer, "t", None).await;
    // As of event 3, round 1's first result: round 1 started, no result in, round 2 not paired.
    assert_eq!(view, shape(&at[&3]));
    assert_eq!(view.events, 3);
    let (division, games) = &view.divisions[0];
    assert!(division.rounds()[0].pairings.as_ref().unwrap().iter().all(|l| !l.is_done()));
    assert!(division.rounds()[1].pairings.is_none());
    assert!(games[0].is_some() && games[1].is_none());
}

#[tokio::test]
async fn a_player_sees_their_own_games_results_now() {
    let layer = Layer::replica();
    let at = played(&layer).await;
    layer.events.create_broadcast(broadcast("b", &[("tournament", "t")], HOUR)).await.unwrap();
    let now = layer.record_of("t").await;
    // The player in round 1's pairing 1: the cut is at the next result, pairing 2's (event 4),
    // and their own result is in.
    let first = now.divisions()[0].lines(RoundId(0))[0].players().next().unwrap();
    let view = seen(&layer, "t", Some(("A", first.0 + 1))).await;
    assert_eq!(view, shape(&at[&4]));
    // A player of pairing 2: cut at pairing 1's result (event 3), their own result in.
    let other = now.divisions()[0].lines(RoundId(0))[1].players().next().unwrap();
    let view = seen(&layer, "t", Some(("A", other.0 + 1))).await;
    let mut expected = shape(&at[&3]);
    let result = match now.divisions()[0].lines(RoundId(0))[1].clone() {
        Pairing::Game { result: Some(result), .. } => result,
        line => panic!("{line:?}"),
    };
    expected.divisions[0].0.record(0, 1, result, true).unwrap();
    assert_eq!(view, expected);
}

#[tokio::test]
async fn a_broadcast_ended_or_without_delay_holds_nothing_back() {
    let layer = Layer::replica();
    played(&layer).await;
    let now = shape(&layer.record_of("t").await);
    layer.events.create_broadcast(broadcast("b", &[("tournament", "t")], HOUR)).await.unwrap();
    layer
        .events
        .create_broadcast(broadcast("c", &[("tournament", "t"), ("round", "1")], HOUR))
        .await
        .unwrap();
    assert_ne!(seen(&layer, "t", None).await, now);
    layer.events.end_broadcast("b", |_| Ok(()), 1).await.unwrap();
    assert_ne!(seen(&layer, "t", None).await, now);
    let no_delay = dawgref_events::BroadcastChange { delay_seconds: Some(0), ..Default::default() };
    layer.events.update_broadcast("c", |_| Ok(()), &no_delay).await.unwrap();
    assert_eq!(seen(&layer, "t", None).await, now);
}

#[tokio::test]
async fn a_result_out_of_its_delay_is_shown_and_the_first_within_it_cuts() {
    let layer = Layer::new();
    layer.create("t", &[("A", &["Ann", "Bo", "Cy", "Di"], &[Method::RoundRobin, Method::RoundRobin])]).await;
    layer.events.create_broadcast(broadcast("b", &[("tournament", "t")], 1)).await.unwrap();
    let owners = FakeOwners::default();
    layer.pair("t", "A", 1).await;
    layer.record("t", "", ("A", 1, 1), Hand::Scores([400, 350]), false, &owners).await.unwrap();
    let first_in = layer.events_of("t").await[2].unix_ms;
    // Past the delay of the first result (its event's time, a second on).
    while dawgref_host::unix_ms() <= first_in + 1000 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let out = layer.record_of("t").await;
    layer.record("t", "", ("A", 1, 2), Hand::Scores([380, 390]), false, &owners).await.unwrap();
    layer.pair("t", "A", 2).await;
    assert_eq!(seen(&layer, "t", None).await, shape(&out));
}

/// Round 1 of "A" (uncovered) has a result out; round 2's first result (covered) is held; then
/// round 1's result is corrected. As of the events before the held result, round 1's first
/// result was in, and a spectator had seen it.
#[tokio::test]
async fn a_correction_after_a_held_result_leaves_the_result_it_corrects_as_it_was() {
    let layer = Layer::new();
    layer.create("t", &[("A", &["Ann", "Bo", "Cy", "Di"], &[Method::RoundRobin, Method::RoundRobin])]).await;
    layer
        .events
        .create_broadcast(broadcast("b", &[("tournament", "t"), ("round", "2")], HOUR))
        .await
        .unwrap();
    let owners = FakeOwners::default();
    layer.pair("t", "A", 1).await;
    layer.record("t", "", ("A", 1, 1), Hand::Scores([400, 350]), false, &owners).await.unwrap();
    layer.pair("t", "A", 2).await;
    let at_cut = layer.record_of("t").await;
    layer.record("t", "", ("A", 2, 1), Hand::Scores([410, 390]), false, &owners).await.unwrap();
    assert_eq!(seen(&layer, "t", None).await, shape(&at_cut));
    layer.record("t", "", ("A", 1, 1), Hand::Scores([401, 350]), true, &owners).await.unwrap();
    assert_eq!(seen(&layer, "t", None).await, shape(&at_cut));
}

/// Round 2 was paired by hand before the held result, then paired again after it.
#[tokio::test]
async fn a_round_paired_again_after_a_held_result_is_shown_as_it_was_paired_before() {
    let layer = Layer::new();
    layer.create("t", &[("A", &["Ann", "Bo", "Cy", "Di"], &[Method::Manual, Method::Manual])]).await;
    layer.events.create_broadcast(broadcast("b", &[("tournament", "t")], HOUR)).await.unwrap();
    layer.set_pairings("t", "A", 1, &[(1, 2), (3, 4)]).await;
    layer.set_pairings("t", "A", 2, &[(1, 3), (2, 4)]).await;
    let at_cut = layer.record_of("t").await;
    layer
        .record("t", "", ("A", 1, 1), Hand::Scores([400, 350]), false, &FakeOwners::default())
        .await
        .unwrap();
    assert_eq!(seen(&layer, "t", None).await, shape(&at_cut));
    layer.set_pairings("t", "A", 2, &[(1, 4), (2, 3)]).await;
    assert_eq!(seen(&layer, "t", None).await, shape(&at_cut));
}

// The generated tournaments: two divisions ("A": four players, three round-robin rounds; "B":
// five, a round robin, a King of the Hill and a Swiss round), built by pairing, starting and
// entering results in any order; broadcasts covering the tournament, a division or a round,
// each on (an hour's delay: every result in is within it), ended, or with no delay.

const NAMES: [&str; 2] = ["A", "B"];

#[derive(Clone, Debug)]
enum Op {
    Pair(usize),
    Start(usize),
    /// A result entered, or (`correct`) one in replaced.
    Result {
        d: usize,
        round: usize,
        line: usize,
        hand: HandPick,
        correct: bool,
    },
    /// The last round paired and not started, with no result in, paired again by hand: each
    /// line's second player moved to the next line (`shift` lines on).
    Repair {
        d: usize,
        shift: usize,
    },
    /// The last round paired, not started, taken back.
    Unpair(usize),
}

#[derive(Clone, Copy, Debug)]
enum HandPick {
    Scores(i32, i32),
    ForfeitFirst,
    ForfeitSecond,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Cover {
    Tournament,
    Division(usize),
    Round(usize, u32),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    On,
    Ended,
    NoDelay,
}

fn op() -> impl Strategy<Value = Op> {
    let hand = prop_oneof![
        (300..500i32, 300..500i32).prop_map(|(a, b)| HandPick::Scores(a, b)),
        Just(HandPick::ForfeitFirst),
        Just(HandPick::ForfeitSecond),
    ];
    prop_oneof![
        2 => (0..2usize).prop_map(Op::Pair),
        1 => (0..2usize).prop_map(Op::Start),
        4 => (0..2usize, 0..3usize, 0..3usize, hand.clone())
            .prop_map(|(d, round, line, hand)| Op::Result { d, round, line, hand, correct: false }),
        1 => (0..2usize, 0..3usize, 0..3usize, hand)
            .prop_map(|(d, round, line, hand)| Op::Result { d, round, line, hand, correct: true }),
        1 => (0..2usize, 1..3usize).prop_map(|(d, shift)| Op::Repair { d, shift }),
        1 => (0..2usize).prop_map(Op::Unpair),
    ]
}

fn cover() -> impl Strategy<Value = (Cover, State)> {
    let cover = prop_oneof![
        Just(Cover::Tournament),
        (0..2usize).prop_map(Cover::Division),
        (0..2usize, 1..=3u32).prop_map(|(d, r)| Cover::Round(d, r)),
    ];
    let state = prop_oneof![4 => Just(State::On), 1 => Just(State::Ended), 1 => Just(State::NoDelay)];
    (cover, state)
}

/// Make `op`, if it can be made: true when it was.
async fn make(layer: &Layer, owners: &FakeOwners, op: &Op) -> bool {
    let record = layer.record_of("t").await;
    match *op {
        Op::Pair(d) => {
            let division = record.divisions()[d].division();
            let round = division.rounds_paired() as u32 + 1;
            if round as usize > division.rounds().len() {
                return false;
            }
            match layer.command("t", "", Command::PairRound { division: NAMES[d].into(), round }).await {
                Ok(_) => true,
                // A round by the standings waits for every result before it.
                Err(EventsError::Rules(dawgref_tournament::Error::ResultsToCome { .. })) => false,
                Err(e) => panic!("{op:?}: {e}"),
            }
        }
        Op::Start(d) => {
            let entry = &record.divisions()[d];
            let Some(k) = (0..entry.division().rounds_paired()).find(|&k| !entry.started(RoundId::at(k)))
            else {
                return false;
            };
            layer.start("t", "", (NAMES[d], k as u32 + 1), &FakeGames::noted()).await.expect("started");
            true
        }
        Op::Repair { d, shift } => {
            let Some(k) = last_open_round(&record, d) else { return false };
            let entry = &record.divisions()[d];
            let mut players: Vec<u32> =
                (entry.lines(k).iter()).flat_map(|l| l.players().map(|p| p.0 + 1)).collect();
            let turn = shift % players.len().max(1);
            players.rotate_left(turn);
            let lines: Vec<(u32, u32)> =
                players.chunks(2).map(|pair| (pair[0], pair.get(1).copied().unwrap_or(0))).collect();
            let command = Command::SetPairings {
                division: NAMES[d].into(),
                round: k.number(),
                lines: lines_of(&lines),
            };
            match layer.command("t", "", command).await {
                Ok(_) => true,
                Err(e) => panic!("{op:?}: {e}"),
            }
        }
        Op::Unpair(d) => {
            let Some(k) = last_open_round(&record, d) else { return false };
            let command = Command::UnpairRound { division: NAMES[d].into(), round: k.number() };
            match layer.command("t", "", command).await {
                Ok(_) => true,
                Err(e) => panic!("{op:?}: {e}"),
            }
        }
        Op::Result { d, round, line, hand, correct } => {
            let entry = &record.divisions()[d];
            let paired = entry.division().rounds_paired();
            if paired == 0 {
                return false;
            }
            let k = round % paired;
            let lines = entry.lines(RoundId::at(k));
            let i = line % lines.len();
            let Pairing::Game { first, second, result } = lines[i] else { return false };
            if result.is_some() != correct {
                return false;
            }
            let hand = match hand {
                HandPick::Scores(a, b) => Hand::Scores([a, b]),
                HandPick::ForfeitFirst => Hand::ForfeitedBy(first.0 + 1),
                HandPick::ForfeitSecond => Hand::ForfeitedBy(second.0 + 1),
            };
            let pairing = (NAMES[d], k as u32 + 1, i as u32 + 1);
            layer.record("t", "", pairing, hand, correct, owners).await.expect("entered");
            true
        }
    }
}

/// The last round of division `d` paired, if it has not started and has no result in (the round
/// a director may pair again or take back).
fn last_open_round(record: &Record, d: usize) -> Option<RoundId> {
    let entry = &record.divisions()[d];
    let k = RoundId::at(entry.division().rounds_paired().checked_sub(1)?);
    let open = !entry.started(k)
        && entry.lines(k).iter().all(|l| !matches!(l, Pairing::Game { result: Some(_), .. }));
    open.then_some(k)
}

/// The oracle: the first event a spectator (`you`) may not see yet, the first result of a
/// round a broadcast on holds back (an hour: every one is within it) that is not of the viewer's
/// own games; None when there is none.
fn oracle_cut(
    events: &[TournamentEvent],
    covers: &[(Cover, State)],
    own: &HashSet<(String, u32, u32)>,
) -> Option<u64> {
    let covered = |division: &str, round: u32| {
        covers.iter().any(|&(cover, state)| {
            state == State::On
                && match cover {
                    Cover::Tournament => true,
                    Cover::Division(d) => NAMES[d] == division,
                    Cover::Round(d, r) => NAMES[d] == division && r == round,
                }
        })
    };
    events
        .iter()
        .filter(|e| matches!(e.kind.as_str(), "result" | "result_corrected") && e.pairing > 0)
        .filter(|e| covered(&e.division, e.round))
        .filter(|e| !own.contains(&(e.division.clone(), e.round, e.pairing)))
        .map(|e| e.number)
        .min()
}

async fn check(
    ops: Vec<Op>,
    covers: Vec<(Cover, State)>,
    you: Option<(usize, u32)>,
) -> Result<(), TestCaseError> {
    let layer = Layer::replica();
    let owners = FakeOwners::default();
    let five = ["Ann", "Bo", "Cy", "Di", "Ed"];
    let rr = [Method::RoundRobin; 3];
    layer
        .create(
            "t",
            &[
                ("A", &five[..4], &rr),
                ("B", &five, &[Method::RoundRobin, Method::KingOfTheHill, Method::Swiss]),
            ],
        )
        .await;
    // The tournament as it stood at each event count: every change here adds one event.
    let mut at = BTreeMap::new();
    let record = layer.record_of("t").await;
    at.insert(record.event_count(), record);
    for op in &ops {
        let before = layer.record_of("t").await.event_count();
        if make(&layer, &owners, op).await {
            let record = layer.record_of("t").await;
            prop_assert_eq!(record.event_count(), before + 1, "{:?} made one event", op);
            at.insert(record.event_count(), record);
        }
    }
    for (n, &(cover, state)) in covers.iter().enumerate() {
        let labels: Vec<(&str, String)> = match cover {
            Cover::Tournament => vec![("tournament", "t".into())],
            Cover::Division(d) => vec![("tournament", "t".into()), ("division", NAMES[d].into())],
            Cover::Round(d, r) => {
                vec![("tournament", "t".into()), ("division", NAMES[d].into()), ("round", r.to_string())]
            }
        };
        let labels: Vec<(&str, &str)> = labels.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let slug = format!("b{n}");
        layer.events.create_broadcast(broadcast(&slug, &labels, HOUR)).await.expect("a broadcast");
        match state {
            State::On => {}
            State::Ended => {
                layer.events.end_broadcast(&slug, |_| Ok(()), 1).await.expect("ended");
            }
            State::NoDelay => {
                let change = dawgref_events::BroadcastChange { delay_seconds: Some(0), ..Default::default() };
                layer.events.update_broadcast(&slug, |_| Ok(()), &change).await.expect("changed");
            }
        }
    }
    let now = layer.record_of("t").await;
    // The viewer's own lines, by division, round and pairing (from 1).
    let own: HashSet<(String, u32, u32)> = match you {
        None => HashSet::new(),
        Some((d, player)) => {
            let entry = &now.divisions()[d];
            (0..entry.division().rounds().len())
                .flat_map(|k| {
                    entry.lines(RoundId::at(k)).iter().enumerate().map(move |(i, l)| (k, i, l.clone()))
                })
                .filter(|(_, _, l)| l.players().any(|p| p == PlayerId(player - 1)))
                .map(|(k, i, _)| (NAMES[d].to_string(), k as u32 + 1, i as u32 + 1))
                .collect()
        }
    };
    let events = layer.events_of("t").await;
    let expected = match oracle_cut(&events, &covers, &own) {
        None => shape(&now),
        Some(cut) => {
            let then = at.get(&cut).expect("the tournament as of every event count");
            let mut expected = shape(then);
            // The viewer's own results, now, in the rounds paired then: on a line that pairs
            // the same two then (a round paired again since the cut shows its lines of then, which
            // the viewer's game of now is not one of).
            if let Some((d, _)) = you {
                let division = &mut expected.divisions[d].0;
                for k in 0..division.rounds_paired() {
                    for (i, line) in now.divisions()[d].lines(RoundId::at(k)).iter().enumerate() {
                        let then = division.rounds()[k].pairings.as_ref().and_then(|lines| lines.get(i));
                        if let Pairing::Game { result: Some(result), .. } = *line
                            && own.contains(&(NAMES[d].to_string(), k as u32 + 1, i as u32 + 1))
                            && then.is_some_and(|then| then.players().eq(line.players()))
                        {
                            division.record(k, i, result, true).expect("a line of the round");
                        }
                    }
                }
            }
            expected
        }
    };
    // The tournament as another replica reads it back from the store: the same.
    prop_assert_eq!(shape(&layer.beside().record_of("t").await), shape(&now));
    let viewer = you.map(|(d, player)| (now.division(NAMES[d]).expect("a division"), PlayerId(player - 1)));
    let view = layer.events.spectators(now.clone(), viewer).await.expect("seen");
    prop_assert_eq!(shape(&view), expected);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn a_spectator_sees_the_tournament_as_it_stood_before_the_first_result_held(
        ops in proptest::collection::vec(op(), 0..40),
        covers in proptest::collection::vec(cover(), 0..3),
        you in proptest::option::weighted(0.3, (0..2usize, 1..=4u32)),
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        runtime.block_on(check(ops, covers, you))?;
    }
}

/// Issue 82, item 2: a broadcast begun mid-event holds back what happens after it began, and
/// takes nothing back that was out before it: the results in stay, the tournament is not cut.
#[tokio::test]
async fn a_broadcast_begun_mid_event_holds_what_comes_after_it_and_takes_nothing_back() {
    let layer = Layer::new();
    layer.create("t", &[("A", &["Ann", "Bo", "Cy", "Di"], &[Method::RoundRobin, Method::RoundRobin])]).await;
    layer.pair("t", "A", 1).await;
    let owners = FakeOwners::default();
    layer.record("t", "", ("A", 1, 1), Hand::Scores([400, 350]), false, &owners).await.unwrap();
    let public = layer.record_of("t").await;
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let begun = dawgref_host::unix_ms();
    let now_on = Broadcast { created_unix_ms: begun, ..broadcast("b", &[("tournament", "t")], HOUR) };
    layer.events.create_broadcast(now_on).await.unwrap();
    assert_eq!(seen(&layer, "t", None).await, shape(&public), "what was out stays out");
    // A result after it began is held, and the tournament is seen as it stood before it.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    layer.record("t", "", ("A", 1, 2), Hand::Scores([300, 310]), false, &owners).await.unwrap();
    let view = seen(&layer, "t", None).await;
    assert_eq!(view, shape(&public));
    assert_eq!(view.events, public.event_count());
}

//! The room's commands (`room.rs`): check-in before round 1 (`Events::check_in`, by the player
//! or a director; `Events::withdraw_absent`), against a model over generated sequences with
//! pairing, unpairing, re-entries, reserved tables, prize lists and the division's reviews as
//! games end between them. After every step
//! the kept state agrees with the model, a retried request id answers as the first time and
//! writes nothing, and what another replica reads from the store is what this one holds: every
//! part a command changes is written.

use crate::fakes::*;
use dawgref_events::{Actor, Command, EventsError};
use dawgref_tournament::prizes::{Prize, PrizeKind, PrizeList};
use dawgref_tournament::{Method, PlayerId};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::collections::{BTreeSet, HashMap};

const SIX: &[&str] = &["Ann", "Bo", "Cy", "Di", "Ed", "Flo"];

fn player(n: u32) -> Actor {
    Actor::Player { division: "A".into(), player: n }
}

#[derive(Clone, Debug)]
enum Step {
    /// Player `player` checks themselves in (`present`) or takes it back; request id `id` (0:
    /// none).
    Player {
        player: u32,
        present: bool,
        id: u8,
    },
    /// The root director checks player `player` in or out.
    Director {
        player: u32,
        present: bool,
    },
    WithdrawAbsent {
        id: u8,
    },
    Pair,
    Unpair,
    Reenter {
        player: u32,
    },
    /// Player `player` keeps table `table` (0: none).
    Reserve {
        player: u32,
        table: u32,
    },
    /// A prize list of `places` places.
    Prizes {
        places: u32,
    },
    /// The division's games reviewed as they end at `ms` a turn (0: not; 10: refused).
    Reviews {
        ms: u32,
    },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (1..=6u32, prop::bool::weighted(0.8), 0..3u8)
            .prop_map(|(player, present, id)| Step::Player { player, present, id }),
        2 => (1..=6u32, any::<bool>()).prop_map(|(player, present)| Step::Director { player, present }),
        2 => (0..2u8).prop_map(|id| Step::WithdrawAbsent { id }),
        1 => Just(Step::Pair),
        1 => Just(Step::Unpair),
        1 => (1..=6u32).prop_map(|player| Step::Reenter { player }),
        1 => (1..=6u32, 0..4u32).prop_map(|(player, table)| Step::Reserve { player, table }),
        1 => (0..4u32).prop_map(|places| Step::Prizes { places }),
        1 => prop_oneof![Just(0u32), Just(10), Just(50), Just(1000)].prop_map(|ms| Step::Reviews { ms }),
    ]
}

/// What the model keeps: who is checked in and withdrawn, and whether round 1 is paired.
#[derive(Default, Debug)]
struct Model {
    checked: BTreeSet<u32>,
    withdrawn: BTreeSet<u32>,
    paired: bool,
    /// Check-ins logged: one per change.
    logged: usize,
    /// The division's time a turn for reviews as games end (0: none).
    review_ms: u32,
}

impl Model {
    /// Check-in of `player` (present or not), as the model says it ends: Err with the refusal's
    /// words.
    fn check_in(&mut self, player: u32, present: bool) -> Result<(), String> {
        if self.paired {
            return Err("division A's round 1 is paired: check-in is over (take round 1's pairings back with UnpairRound to reopen it)".into());
        }
        if self.withdrawn.contains(&player) {
            let name = SIX[player as usize - 1];
            return Err(format!(
                "player {player} ({name}) is withdrawn: the director enters them again (ReenterPlayer) first"
            ));
        }
        let changed = if present { self.checked.insert(player) } else { self.checked.remove(&player) };
        self.logged += usize::from(changed);
        Ok(())
    }

    fn withdraw_absent(&mut self) -> Result<Vec<u32>, String> {
        if self.paired {
            return Err("division A's round 1 is paired: check-in is over (take round 1's pairings back with UnpairRound to reopen it)".into());
        }
        if self.checked.is_empty() {
            return Err(
                "no player of division A has checked in: withdrawing the absent would withdraw all 6".into(),
            );
        }
        let absent: Vec<u32> =
            (1..=6).filter(|p| !self.checked.contains(p) && !self.withdrawn.contains(p)).collect();
        self.withdrawn.extend(&absent);
        Ok(absent)
    }
}

fn words(e: EventsError) -> String {
    e.to_string()
}

async fn run(steps: Vec<Step>) -> Result<(), TestCaseError> {
    let layer = Layer::new();
    layer.create("t", &[("A", SIX, &[Method::Swiss, Method::Swiss])]).await;
    let mut model = Model::default();
    // The first answer of each (actor, request id) and the events written then.
    let mut kept: HashMap<(String, u8), (Result<String, String>, u64)> = HashMap::new();
    for step in steps {
        let before = layer.record_of("t").await.event_count();
        match step {
            Step::Player { player: p, present, id } => {
                let request_id = if id == 0 { String::new() } else { format!("r{id}") };
                let got = layer
                    .events
                    .check_in("t", &player(p), &request_id, ("", 0), present, said("in"))
                    .await
                    .map(|s| format!("{:?}", s.did))
                    .map_err(words);
                if let Some((first, events)) = kept.get(&(format!("p{p}"), id)).filter(|_| id != 0) {
                    prop_assert_eq!(&got, first, "a retry answers the first answer");
                    prop_assert_eq!(layer.record_of("t").await.event_count(), *events.max(&before));
                    continue;
                }
                prop_assert_eq!(got.clone().map(|_| ()), model.check_in(p, present));
                if id != 0 && got.is_ok() {
                    kept.insert((format!("p{p}"), id), (got, layer.record_of("t").await.event_count()));
                }
            }
            Step::Director { player: p, present } => {
                let got = layer.events.check_in("t", &Actor::Root, "", ("A", p), present, said("in")).await;
                prop_assert_eq!(got.map(|_| ()).map_err(words), model.check_in(p, present));
            }
            Step::WithdrawAbsent { id } => {
                let request_id = if id == 0 { String::new() } else { format!("w{id}") };
                let answer = |_: &dawgref_events::Record, _, withdrawn: &[u32]| Listed(withdrawn.to_vec());
                let got = layer.events.withdraw_absent("t", &Actor::Root, &request_id, "A", answer).await;
                let got = got.map(|l| l.0).map_err(words);
                if let Some((first, _)) = kept.get(&("root".into(), id)).filter(|_| id != 0) {
                    prop_assert_eq!(got.map(|l| format!("{l:?}")), first.clone());
                    continue;
                }
                prop_assert_eq!(got.clone(), model.withdraw_absent());
                if id != 0 && got.is_ok() {
                    kept.insert(("root".into(), id), (got.map(|l| format!("{l:?}")), 0));
                }
            }
            Step::Pair => {
                let got = layer.command("t", "", Command::PairRound { division: "A".into(), round: 1 }).await;
                if got.is_ok() {
                    model.paired = true;
                    // Round 1 pairs exactly the players not withdrawn.
                    let rec = layer.record_of("t").await;
                    let division = rec.divisions()[0].division();
                    let lines = division.rounds()[0].pairings.clone().unwrap_or_default();
                    let paired: BTreeSet<u32> =
                        lines.iter().flat_map(|l| l.players().map(|p| p.0 + 1)).collect();
                    let present: BTreeSet<u32> = (1..=6).filter(|p| !model.withdrawn.contains(p)).collect();
                    prop_assert_eq!(paired, present);
                } else {
                    prop_assert!(model.paired || model.withdrawn.len() >= 5, "{got:?}");
                }
            }
            Step::Unpair => {
                let got =
                    layer.command("t", "", Command::UnpairRound { division: "A".into(), round: 1 }).await;
                prop_assert_eq!(got.is_ok(), model.paired, "{:?}", got);
                model.paired = false;
            }
            Step::Reenter { player: p } => {
                let got =
                    layer.command("t", "", Command::ReenterPlayer { division: "A".into(), player: p }).await;
                if got.is_ok() {
                    prop_assert!(model.withdrawn.remove(&p), "player {p} entered again, never withdrawn");
                } else {
                    prop_assert!(!model.withdrawn.contains(&p) || model.paired, "{got:?}");
                }
            }
            Step::Reserve { player: p, table } => {
                let command = Command::ReserveTable {
                    division: "A".into(),
                    player: p,
                    table: (table > 0).then_some(table),
                };
                layer.command("t", "", command).await.expect("reserved");
            }
            Step::Prizes { places } => {
                let prizes = (1..=places).map(|n| Prize::new(PrizeKind::Place(n), format!("${}", 100 / n)));
                let prizes = PrizeList::new(prizes.collect()).expect("a prize list");
                layer
                    .command("t", "", Command::SetPrizes { division: "A".into(), prizes })
                    .await
                    .expect("set");
            }
            Step::Reviews { ms } => {
                let got = layer.command("t", "", Command::SetReviews { division: "A".into(), ms }).await;
                prop_assert_eq!(got.is_ok(), ms != 10, "{:?}", got);
                if got.is_ok() {
                    model.review_ms = ms;
                }
            }
        }
        // The kept state is the model's, and another replica reads all of it from the store.
        let rec = layer.record_of("t").await;
        let entry = &rec.divisions()[0];
        let checked: BTreeSet<u32> = (1..=6).filter(|&p| entry.checked_in(PlayerId(p - 1))).collect();
        prop_assert_eq!(&checked, &model.checked);
        let withdrawn: BTreeSet<u32> =
            (1..=6).filter(|&p| entry.division().players()[p as usize - 1].withdrawn).collect();
        prop_assert_eq!(&withdrawn, &model.withdrawn);
        prop_assert_eq!(entry.review_ms(), model.review_ms);
        let logged = layer.events_of("t").await.iter().filter(|e| e.kind == "checked_in").count();
        prop_assert_eq!(logged, model.logged);
        let read = layer.beside().record_of("t").await;
        prop_assert_eq!(read.divisions(), rec.divisions());
    }
    Ok(())
}

/// WithdrawAbsent's answer in these tests: the players withdrawn.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Listed(Vec<u32>);

impl dawgref_events::Answer for Listed {
    fn write(&self) -> Vec<u8> {
        self.0.iter().map(|&p| p as u8).collect()
    }
    fn read(bytes: &[u8]) -> Result<Self, String> {
        Ok(Listed(bytes.iter().map(|&b| u32::from(b)).collect()))
    }
}

#[test]
fn check_in_and_the_absent_withdrawn_follow_the_model_and_every_change_is_kept() {
    let mut runner = TestRunner::new(Config { cases: 64, ..Config::default() });
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runner.run(&prop::collection::vec(step(), 1..40), |steps| rt.block_on(run(steps))).unwrap();
}

#[tokio::test]
async fn a_player_checks_in_only_themselves_and_a_director_anyone() {
    let layer = Layer::new();
    layer.create("t", &[("A", SIX, &[Method::Swiss])]).await;
    let other = layer.events.check_in("t", &player(2), "", ("A", 3), true, said("")).await;
    assert_eq!(refused(other), Refused::Other("NotYou { you: 2, division: \"A\" }".into()));
    let mine = layer.events.check_in("t", &player(2), "", ("A", 2), true, said("")).await.expect("in");
    assert_eq!(mine.did, Did::Player { division: 0, player: 1 });
    layer.events.check_in("t", &Actor::Key("desk".into()), "", ("A", 5), true, said("")).await.expect("in");
    let events = layer.events_from("t", 1).await;
    assert_eq!(
        events,
        [
            ev(1, "checked_in", "A", 0, 0, "Bo checks in", "player 2 of A", &[2]),
            ev(2, "checked_in", "A", 0, 0, "Ed is checked in by the director", "desk", &[5]),
        ]
    );
    // The absent withdrawn, each logged, and round 1 paired of the two who came.
    let answer = |_: &dawgref_events::Record, _, withdrawn: &[u32]| Listed(withdrawn.to_vec());
    let absent = layer.events.withdraw_absent("t", &Actor::Root, "", "A", answer).await.expect("withdrawn");
    assert_eq!(absent, Listed(vec![1, 3, 4, 6]));
    let withdrawn = layer.events_from("t", 3).await;
    assert_eq!(withdrawn.len(), 4);
    assert_eq!(
        withdrawn[0],
        ev(3, "player_withdrawn", "A", 0, 0, "Ann withdraws: absent at check-in", "director", &[1])
    );
    layer.pair("t", "A", 1).await;
    let rec = layer.record_of("t").await;
    let lines = rec.divisions()[0].division().rounds()[0].pairings.clone().unwrap();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].players().map(|p| p.0 + 1).collect::<BTreeSet<_>>(), BTreeSet::from([2, 5]));
}

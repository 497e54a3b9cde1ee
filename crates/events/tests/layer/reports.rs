//! Players' reports of their own results (`Events::report`), against a model over generated
//! sequences: each line's result is entered exactly when its two players' reports agree (or at
//! the first where one suffices), with those scores, or when the director enters one, which
//! always wins; reports stand only while the line waits; a player sees their own report only, a
//! spectator none; a retry answers as the first time and writes nothing.

use crate::fakes::*;
use dawgref_events::{
    Actor, Claimed, Command, EventsError, Hand, PlayerReport, Record, ReportState, ReportsMode,
};
use dawgref_tournament::{GameResult, Method, Pairing, PairingId, PlayerId, RoundId};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::collections::HashMap;

const SIX: &[&str] = &["Ann", "Bo", "Cy", "Di", "Ed", "Flo"];

/// Tournament `t`: division "A" of six, one manual round paired 1–2, 3–4, 5–6, reports `mode`.
async fn paired(layer: &Layer, mode: ReportsMode) {
    layer.create("t", &[("A", SIX, &[Method::Manual])]).await;
    layer.set_pairings("t", "A", 1, &[(1, 2), (3, 4), (5, 6)]).await;
    layer.command("t", "", Command::SetReports { division: "A".into(), mode }).await.expect("set");
}

fn player(n: u32) -> Actor {
    Actor::Player { division: "A".into(), player: n }
}

/// A report of round 1 with the outcome its scores give.
fn report(mine: i32, theirs: i32) -> PlayerReport {
    let claimed = match mine.cmp(&theirs) {
        std::cmp::Ordering::Greater => Claimed::Win,
        std::cmp::Ordering::Less => Claimed::Loss,
        std::cmp::Ordering::Equal => Claimed::Tie,
    };
    PlayerReport { round: 1, pairing: 0, mine, theirs, claimed }
}

/// What a report answers in these tests: where the line stands, and its number.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Stood(String);

impl dawgref_events::Answer for Stood {
    fn write(&self) -> Vec<u8> {
        self.0.clone().into_bytes()
    }
    fn read(bytes: &[u8]) -> Result<Self, String> {
        String::from_utf8(bytes.to_vec()).map(Stood).map_err(|e| e.to_string())
    }
}

fn stood(
    _: &Record,
    (_, _, i): (dawgref_events::DivisionId, RoundId, PairingId),
    state: ReportState,
) -> Stood {
    Stood(format!("{}:{state:?}", i.number()))
}

#[derive(Clone, Debug)]
enum Step {
    /// Player `player` (1 to 6) reports `mine`–`theirs`, with request id `id` (0: none).
    Report { player: u32, mine: i32, theirs: i32, id: u8 },
    /// The director enters line `line`'s (1 to 3) result.
    Director { line: u32, first: i32, second: i32 },
}

fn step() -> impl Strategy<Value = Step> {
    // Few scores, so that two reports agree often.
    let score = prop_oneof![Just(350), Just(400), Just(401)];
    prop_oneof![
        6 => (1..=6u32, score.clone(), score.clone(), 0..3u8)
            .prop_map(|(player, mine, theirs, id)| Step::Report { player, mine, theirs, id }),
        1 => (1..=3u32, score.clone(), score).prop_map(|(line, first, second)| Step::Director { line, first, second }),
    ]
}

/// The model: per line (0 to 2), its result and its reports by seat, the first's scores first.
#[derive(Default, Debug)]
struct Model {
    results: [Option<[i32; 2]>; 3],
    reports: [[Option<[i32; 2]>; 2]; 3],
    /// The answer of each request id used: (player, id) → answer.
    answers: HashMap<(u32, u8), String>,
}

async fn run(steps: Vec<Step>, mode: ReportsMode) -> Result<(), TestCaseError> {
    let layer = Layer::new();
    paired(&layer, mode).await;
    let mut model = Model::default();
    for (n, s) in steps.into_iter().enumerate() {
        match s {
            Step::Report { player: p, mine, theirs, id } => {
                let request_id = if id == 0 { String::new() } else { format!("r{id}") };
                let before = layer.version("t").await;
                let answer =
                    layer.events.report("t", &player(p), &request_id, report(mine, theirs), stood).await;
                let (line, seat) = (((p - 1) / 2) as usize, ((p - 1) % 2) as usize);
                if let Some(first) = (id != 0).then(|| model.answers.get(&(p, id)).cloned()).flatten() {
                    // A retry: the first answer, nothing written.
                    prop_assert_eq!(answer.map(|a| a.0).ok(), Some(first), "step {}", n);
                    prop_assert_eq!(layer.version("t").await, before, "step {}: a retry wrote", n);
                    continue;
                }
                if let Some(result) = model.results[line] {
                    match answer {
                        Err(EventsError::ResultIn { round: 1, pairing, .. }) => {
                            prop_assert_eq!(pairing as usize, line + 1)
                        }
                        other => prop_assert!(false, "step {}: a report after {:?}: {:?}", n, result, other),
                    }
                    continue;
                }
                let scores = if seat == 0 { [mine, theirs] } else { [theirs, mine] };
                model.reports[line][seat] = Some(scores);
                let [a, b] = model.reports[line];
                let state = match (a, b) {
                    (Some(x), Some(y)) if x != y => ReportState::Disputed,
                    (Some(_), Some(_)) => ReportState::Entered,
                    _ if mode == ReportsMode::OneSuffices => ReportState::Entered,
                    _ => ReportState::Waiting,
                };
                if state == ReportState::Entered {
                    model.results[line] = Some(scores);
                    model.reports[line] = [None, None];
                }
                let want = format!("{}:{state:?}", line + 1);
                let got = answer.map_err(|e| TestCaseError::fail(format!("step {n}: refused {e}")))?;
                prop_assert_eq!(&got.0, &want, "step {}", n);
                if id != 0 {
                    model.answers.insert((p, id), want);
                }
            }
            Step::Director { line, first, second } => {
                if (first, second) == (0, 0) {
                    continue;
                }
                let l = (line - 1) as usize;
                let correct = model.results[l].is_some();
                let owners = FakeOwners::default();
                let hand = Hand::Scores([first, second]);
                layer.record("t", "", ("A", 1, line), hand, correct, &owners).await.expect("entered");
                model.results[l] = Some([first, second]);
                model.reports[l] = [None, None];
            }
        }
        check(&layer, &model, n).await?;
    }
    Ok(())
}

/// The record, a player's view and a spectator's against the model.
async fn check(layer: &Layer, model: &Model, n: usize) -> Result<(), TestCaseError> {
    let record = layer.record_of("t").await;
    let entry = record.entry(record.division("A").unwrap());
    for line in 0..3 {
        let (k, i) = (RoundId::at(0), PairingId::at(line));
        let result = match entry.line(k, i) {
            Some(Pairing::Game { result: Some(GameResult::Scores(s)), .. }) => Some(*s),
            _ => None,
        };
        prop_assert_eq!(result, model.results[line], "step {}: line {}'s result", n, line + 1);
        let kept = entry.reports(k, i);
        prop_assert_eq!(
            [kept.first, kept.second],
            model.reports[line],
            "step {}: line {}'s reports",
            n,
            line + 1
        );
    }
    // The first player of each line sees their own report only; a spectator none.
    let d = record.division("A").unwrap();
    for line in 0..3u32 {
        let you = PlayerId(2 * line);
        let seen = layer.events.spectators(record.clone(), Some((d, you))).await.unwrap();
        let mine = seen.entry(d).reports(RoundId::at(0), PairingId::at(line as usize));
        prop_assert_eq!((mine.first, mine.second), (model.reports[line as usize][0], None), "step {}", n);
        let anyone = layer.events.spectators(record.clone(), None).await.unwrap();
        let theirs = anyone.entry(d).reports(RoundId::at(0), PairingId::at(line as usize));
        prop_assert_eq!((theirs.first, theirs.second), (None, None), "step {}", n);
    }
    Ok(())
}

fn property(mode: ReportsMode) {
    let config = Config { cases: 64, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new(config);
    let result = runner.run(&prop::collection::vec(step(), 1..30), |steps| {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(run(steps, mode))
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn where_both_must_agree_a_result_enters_when_two_reports_agree_or_the_director_enters_it() {
    property(ReportsMode::BothAgree);
}

#[test]
fn where_one_suffices_the_first_report_enters_the_result() {
    property(ReportsMode::OneSuffices);
}

#[tokio::test]
async fn a_director_or_a_game_may_not_report_and_a_player_only_their_own_pairing() {
    let layer = Layer::new();
    paired(&layer, ReportsMode::BothAgree).await;
    for actor in [Actor::Root, Actor::Key("td".into()), Actor::Game] {
        let r = layer.events.report("t", &actor, "", report(400, 350), stood).await;
        assert!(matches!(r, Err(EventsError::NotAPlayer { .. })), "{actor:?}: {r:?}");
    }
    let other = PlayerReport { pairing: 2, ..report(400, 350) };
    let r = layer.events.report("t", &player(1), "", other, stood).await;
    assert!(matches!(r, Err(EventsError::NotYourPairing { round: 1, pairing: 2, yours: 1 })), "{r:?}");
    // Nothing written by any of them beyond the set-up (made, paired, reports set).
    assert_eq!(layer.events_of("t").await.len(), 3);
    // Turned off, the division takes no report.
    layer
        .command("t", "", Command::SetReports { division: "A".into(), mode: ReportsMode::Off })
        .await
        .unwrap();
    let r = layer.events.report("t", &player(1), "", report(400, 350), stood).await;
    assert!(matches!(r, Err(EventsError::ReportsOff { .. })), "{r:?}");
}

#[tokio::test]
async fn reports_sent_together_are_written_as_one_version_each_answered_as_if_alone() {
    // Division A's fourteen players report at once while the tournament is held (division B's
    // round starting): every report queues, and the next holder writes them all as one version.
    let layer = Layer::new();
    let fourteen: Vec<String> = (b'a'..b'o').map(|c| format!("Player {}", c as char)).collect();
    let fourteen: Vec<&str> = fourteen.iter().map(String::as_str).collect();
    layer.create("t", &[("A", &fourteen, &[Method::Manual]), ("B", &["Ed", "Flo"], &[Method::Manual])]).await;
    let lines: Vec<(u32, u32)> = (0..7).map(|l| (2 * l + 1, 2 * l + 2)).collect();
    layer.set_pairings("t", "A", 1, &lines).await;
    layer.set_pairings("t", "B", 1, &[(1, 2)]).await;
    let mode = ReportsMode::BothAgree;
    layer.command("t", "", Command::SetReports { division: "A".into(), mode }).await.expect("set");
    let before = layer.version("t").await;

    type Answered = Result<String, String>;
    type Sent = Vec<tokio::task::JoinHandle<(u32, Answered)>>;
    let sent: std::sync::Arc<std::sync::Mutex<Sent>> = Default::default();
    let (events, handles) = (layer.events.clone(), sent.clone());
    let meanwhile = async move {
        let send = |p: u32, id: &'static str, r: PlayerReport| {
            let events = events.clone();
            tokio::spawn(async move {
                let actor = Actor::Player { division: "A".into(), player: p };
                let answer = events.report("t", &actor, id, r, stood).await;
                (p, answer.map(|s| s.0).map_err(|e| e.to_string()))
            })
        };
        let mut spawned = Vec::new();
        for p in 1..=14u32 {
            // The first of each line wins 400–350 as both see it.
            let r = if p % 2 == 1 { report(400, 350) } else { report(350, 400) };
            spawned.push(send(p, "x", r));
        }
        // Player 1's retry, queued beside the first call; player 3 naming player 1's pairing.
        spawned.push(send(1, "x", report(400, 350)));
        spawned.push(send(3, "", PlayerReport { pairing: 1, ..report(400, 350) }));
        handles.lock().unwrap().extend(spawned);
        // On this one thread, every report runs up to its queue before the round goes on.
        tokio::task::yield_now().await;
    };
    layer.start("t", "", ("B", 1), &FakeGames::meanwhile(meanwhile)).await.expect("started");
    let handles = std::mem::take(&mut *sent.lock().unwrap());
    let mut answers = Vec::new();
    for handle in handles {
        answers.push(handle.await.expect("answered"));
    }
    // B's round started (one version), then every report in one version more.
    assert_eq!(layer.version("t").await, before + 2);
    let want: Vec<(u32, Answered)> = (1..=14u32)
        .map(|p| (p, Ok(format!("{}:{}", p.div_ceil(2), if p % 2 == 1 { "Waiting" } else { "Entered" }))))
        .chain([(1, Ok("1:Waiting".to_string()))])
        .chain([(3, Err("pairing 1 of round 1 is not yours: yours is pairing 2".to_string()))])
        .collect();
    assert_eq!(answers, want);
    let record = layer.record_of("t").await;
    let entry = record.entry(record.division("A").unwrap());
    for l in 0..7 {
        let line = entry.line(RoundId::at(0), PairingId::at(l));
        assert!(
            matches!(line, Some(Pairing::Game { result: Some(GameResult::Scores([400, 350])), .. })),
            "{line:?}"
        );
    }
    let events = layer.events_of("t").await;
    assert_eq!(events.iter().filter(|e| e.kind == "result").count(), 7);
    assert_eq!(events.iter().filter(|e| e.kind == "result_reported").count(), 14);
}

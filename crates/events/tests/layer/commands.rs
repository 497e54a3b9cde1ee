//! A director's commands (`Events::command`) and CreateTournament: what each changes, the event
//! it writes (and who it names), what it answers, what it refuses, and a request id's retry.

use crate::fakes::*;
use dawgref_events::{
    Actor, Command, DivisionAt, EventKind, EventsError, Import, Invalid, LogFilter, NameAt, NewTournament,
    PlayerNamed, PlayersOf, SpreadOf,
};
use dawgref_tournament::Error as TournamentError;
use dawgref_tournament::tsh::TshError;
use dawgref_tournament::{Controls, Method, Missed, Pairing, Player, PlayerId};

const FOUR: &[&str] = &["Ann", "Bo", "Cy", "Di"];
const RR3: &[Method] = &[Method::RoundRobin, Method::RoundRobin, Method::RoundRobin];

/// A tournament `t` of one division "A" of four players and three round-robin rounds.
async fn four(layer: &Layer) {
    layer.create("t", &[("A", FOUR, RR3)]).await;
}

#[tokio::test]
async fn a_tournament_is_made_as_its_first_version_with_its_created_event_by_its_maker() {
    let layer = Layer::new();
    let made =
        layer.events.create_tournament(&Actor::Key("ann".into()), tournament("t", &[("A", FOUR, RR3)])).await;
    let made = made.unwrap();
    assert_eq!((made.slug(), made.name(), made.event_count()), ("t", "The t open", 1));
    assert_eq!(layer.version("t").await, 1);
    let division = layer.record_of("t").await.divisions()[0].division().clone();
    assert_eq!(division.players().iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), FOUR);
    assert_eq!(division.rounds().len(), 3);
    assert!(division.rounds().iter().all(|r| r.pairings.is_none()));
    assert_eq!(layer.events_from("t", 0).await, [ev(0, "created", "", 0, 0, "The t open made", "ann", &[])]);
}

#[tokio::test]
async fn a_second_tournament_by_a_slug_taken_is_refused_and_the_first_stays() {
    let layer = Layer::new();
    four(&layer).await;
    let again =
        layer.events.create_tournament(&Actor::Root, tournament("t", &[("B", &["Ed", "Flo"], RR3)])).await;
    assert_eq!(
        refused(again.map(|r| r.event_count())),
        Refused::AlreadyExists("a tournament \"t\" exists already".into())
    );
    assert_eq!(layer.record_of("t").await.divisions()[0].division().name(), "A");
    assert_eq!(layer.version("t").await, 1);
}

#[tokio::test]
async fn a_tournament_of_no_division_or_of_a_one_player_division_is_refused_naming_the_field() {
    let layer = Layer::new();
    let none = layer.events.create_tournament(&Actor::Root, tournament("t", &[])).await;
    assert_eq!(
        refused(none.map(|r| r.event_count())),
        invalid(
            Invalid::Divisions { divisions: 0, imported: false },
            "0 divisions: a tournament has 1 to 20"
        )
    );
    let lonely = tournament("t", &[("A", FOUR, RR3), ("B", &["Ed"], RR3)]);
    let lonely = layer.events.create_tournament(&Actor::Root, lonely).await;
    assert_eq!(
        refused(lonely.map(|r| r.event_count())),
        invalid(
            Invalid::Players { players: 1, of: PlayersOf::NewDivision { index: 1 } },
            "1 players: a division has 2 to 5000"
        )
    );
    assert_eq!(
        refused(layer.events.load("t").await.map(|_| ())),
        Refused::NotFound("no tournament \"t\"".into())
    );
}

#[tokio::test]
async fn a_command_on_no_tournament_is_not_found_and_on_no_division_names_the_divisions() {
    let layer = Layer::new();
    let pair = |division: &str| Command::PairRound { division: division.into(), round: 1 };
    assert_eq!(
        refused(layer.command("nope", "", pair("A")).await),
        Refused::NotFound("no tournament \"nope\"".into())
    );
    layer.create("t", &[("A", FOUR, RR3), ("B", &["Ed", "Flo"], RR3)]).await;
    assert_eq!(
        refused(layer.command("t", "", pair("C")).await),
        invalid(
            Invalid::NoSuchDivision { name: "C".into(), there: vec!["A".into(), "B".into()] },
            "\"C\": no such division (there are A, B)"
        )
    );
    let late = Command::PairRound { division: "A".into(), round: 4 };
    assert_eq!(
        refused(layer.command("t", "", late).await),
        invalid(Invalid::NoSuchRound { round: 4, rounds: 3 }, "4: the division has rounds 1 to 3")
    );
    assert_eq!(layer.events_of("t").await.len(), 1);
}

#[tokio::test]
async fn a_player_added_takes_the_next_number_keeps_their_token_and_is_noted() {
    let layer = Layer::new();
    four(&layer).await;
    let add = Command::AddPlayer {
        same_name: false,
        division: "A".into(),
        player: Player::new("Ed", Some(1100)),
        token: Some([9; 32]),
        missed: Missed::Absent,
    };
    let said = layer.command("t", "", add).await.unwrap();
    assert_eq!(said.did, Did::Player { division: 0, player: 4 });
    assert_eq!(said.events, 2);
    let record = layer.record_of("t").await;
    let entry = &record.divisions()[0];
    assert_eq!(entry.division().players()[4], Player::new("Ed", Some(1100)));
    assert_eq!(entry.tokens()[4], Some([9; 32]));
    assert_eq!(entry.tokens()[..4], [Some(token(1)), Some(token(2)), Some(token(3)), Some(token(4))]);
    assert_eq!(
        layer.events_from("t", 1).await,
        [ev(1, "player_added", "A", 0, 0, "Ed joins as player 5", "director", &[5])]
    );
}

#[tokio::test]
async fn a_player_added_after_a_round_is_paired_is_absent_from_it_or_has_a_bye_in_it() {
    let layer = Layer::new();
    four(&layer).await;
    layer.pair("t", "A", 1).await;
    let add = |name: &str, missed| Command::AddPlayer {
        same_name: false,
        division: "A".into(),
        player: Player::new(name, Some(1000)),
        token: None,
        missed,
    };
    layer.command("t", "", add("Ed", Missed::Absent)).await.unwrap();
    let said = layer.command("t", "", add("Flo", Missed::Byes { spread: -50 })).await.unwrap();
    // Ed is in no line of round 1; Flo has a bye's line of their own, after the round's games.
    assert_eq!(said.lines, [Some(3), None, None]);
    let record = layer.record_of("t").await;
    let entry = &record.divisions()[0];
    assert_eq!(entry.lines(RoundId(0))[2], Pairing::Bye { player: PlayerId(5), spread: -50 });
    assert_eq!(entry.tokens()[4..], [None, None]);
    assert_eq!(
        layer.events_from("t", 2).await,
        [
            ev(2, "player_added", "A", 0, 0, "Ed joins as player 5, absent from round 1", "director", &[5]),
            ev(
                3,
                "player_added",
                "A",
                0,
                0,
                "Flo joins as player 6, a bye (-50) for round 1",
                "director",
                &[6]
            ),
        ]
    );
}

#[tokio::test]
async fn a_player_whose_name_a_t_file_cannot_hold_is_refused_and_nothing_is_written() {
    let layer = Layer::new();
    four(&layer).await;
    let add = Command::AddPlayer {
        same_name: false,
        division: "A".into(),
        player: Player::new("Di 1.5", Some(1000)),
        token: None,
        missed: Missed::Absent,
    };
    assert_eq!(
        refused(layer.command("t", "", add).await),
        invalid(
            Invalid::PlayerName {
                why: "no word of a name starts with a digit (TSH reads it as the rating)".into(),
                at: NameAt::LateEntry
            },
            "no word of a name starts with a digit (TSH reads it as the rating)"
        )
    );
    assert_eq!(layer.record_of("t").await.divisions()[0].division().players().len(), 4);
    assert_eq!((layer.version("t").await, layer.events_of("t").await.len()), (1, 1));
}

#[tokio::test]
async fn a_round_paired_by_its_method_is_answered_as_that_round_and_noted() {
    let layer = Layer::new();
    four(&layer).await;
    let said = layer.command("t", "", Command::PairRound { division: "A".into(), round: 1 }).await.unwrap();
    assert_eq!(said.did, Did::Round { division: 0, round: 0 });
    assert_eq!(said.lines, [Some(2), None, None]);
    assert_eq!(said.games, [None, None], "paired, not started: no games");
    assert_eq!(
        layer.events_from("t", 1).await,
        [ev(1, "pairings_made", "A", 1, 0, "round 1 paired", "director", &[])]
    );
    let record = layer.record_of("t").await;
    assert!(!record.divisions()[0].started(RoundId(0)));
}

#[tokio::test]
async fn a_round_paired_twice_or_out_of_order_is_refused() {
    let layer = Layer::new();
    four(&layer).await;
    let pair = |round| Command::PairRound { division: "A".into(), round };
    assert_eq!(
        refused(layer.command("t", "", pair(2)).await),
        rules(TournamentError::OutOfOrder { round: 2, before: 1 }, "round 2 cannot be paired before round 1")
    );
    layer.command("t", "", pair(1)).await.unwrap();
    assert_eq!(
        refused(layer.command("t", "", pair(1)).await),
        rules(TournamentError::PairedAlready { round: 1 }, "round 1 is paired already")
    );
    assert_eq!(layer.events_of("t").await.len(), 2);
}

#[tokio::test]
async fn a_round_paired_by_hand_holds_the_lines_given_a_bye_with_the_divisions_spread() {
    let layer = Layer::new();
    layer.create("t", &[("A", &["Ann", "Bo", "Cy"], &[Method::Manual])]).await;
    let set = Command::SetPairings { division: "A".into(), round: 1, lines: lines_of(&[(3, 1), (2, 0)]) };
    let said = layer.command("t", "", set).await.unwrap();
    assert_eq!(said.did, Did::Round { division: 0, round: 0 });
    let record = layer.record_of("t").await;
    assert_eq!(
        record.divisions()[0].lines(RoundId(0)),
        [
            Pairing::Game { first: PlayerId(2), second: PlayerId(0), result: None },
            Pairing::Bye { player: PlayerId(1), spread: Controls::default().bye_spread },
        ]
    );
    assert_eq!(
        layer.events_from("t", 1).await,
        [ev(1, "pairings_made", "A", 1, 0, "round 1 paired by the director", "director", &[])]
    );
}

#[tokio::test]
async fn pairings_by_hand_naming_no_player_are_refused_naming_the_line() {
    let layer = Layer::new();
    four(&layer).await;
    let set = |lines: &[(u32, u32)]| Command::SetPairings {
        division: "A".into(),
        round: 1,
        lines: lines_of(lines),
    };
    assert_eq!(
        refused(layer.command("t", "", set(&[(1, 2), (3, 9)])).await),
        invalid(
            Invalid::NoSuchPlayer { player: 9, players: 4, by: PlayerNamed::Line { line: 1, second: true } },
            "9: the division has players 1 to 4"
        )
    );
    assert_eq!(
        refused(layer.command("t", "", set(&[(0, 2), (3, 4)])).await),
        invalid(
            Invalid::NoSuchPlayer { player: 0, players: 4, by: PlayerNamed::Line { line: 0, second: false } },
            "0: the division has players 1 to 4"
        )
    );
    // The division's own check: every active player in one line.
    assert_eq!(
        refused(layer.command("t", "", set(&[(1, 2)])).await),
        rules(
            TournamentError::Unpaired { player: PlayerId(2), round: 1 },
            "player 3 is active but not in round 1's pairings"
        )
    );
    assert!(layer.record_of("t").await.divisions()[0].division().rounds()[0].pairings.is_none());
    assert_eq!(layer.events_of("t").await.len(), 1);
}

#[tokio::test]
async fn pairings_by_hand_of_a_round_started_are_refused() {
    let layer = Layer::new();
    four(&layer).await;
    layer.pair("t", "A", 1).await;
    layer.start("t", "", ("A", 1), &FakeGames::noted()).await.unwrap();
    let before = layer.record_of("t").await.divisions()[0].lines(RoundId(0)).to_vec();
    let set = Command::SetPairings { division: "A".into(), round: 1, lines: lines_of(&[(1, 3), (2, 4)]) };
    assert_eq!(
        refused(layer.command("t", "", set).await),
        precondition("round 1 has started: its pairings stand")
    );
    assert_eq!(layer.record_of("t").await.divisions()[0].lines(RoundId(0)), before);
}

/// A division as TSH writes it: round 1 played by Ann and Bo (400–350), Cy and Di paired and
/// still to play; round 2 paired (Ann–Cy, Bo–Di), nothing played.
const TSH: &str = "Ann 1500 2 3; 400\nBo 1400 1 4; 350\nCy 1300 4 1;\nDi 1200 3 2;\n";

fn import(division: &str, tokens: usize) -> Command {
    Command::ImportDivision(Import {
        division: division.into(),
        text: TSH.into(),
        controls: Controls::default(),
        rounds_to_come: vec![Method::Swiss],
        tokens: (1..=tokens as u32).map(|n| Some(token(n))).collect(),
    })
}

#[tokio::test]
async fn a_division_imported_keeps_its_rounds_started_where_a_result_is_in_and_is_noted() {
    let layer = Layer::new();
    four(&layer).await;
    let said = layer.command("t", "", import("B", 4)).await.unwrap();
    assert_eq!(said.did, Did::Division { division: 1 });
    assert_eq!(said.lines, [Some(2), Some(2), None]);
    let record = layer.record_of("t").await;
    let entry = &record.divisions()[1];
    assert_eq!(entry.division().name(), "B");
    assert_eq!(entry.division().rounds()[2].method, Method::Swiss);
    // Round 1 has a result in: started, with no game for any line; round 2 is to be started.
    assert_eq!(
        (entry.started(RoundId(0)), entry.started(RoundId(1)), entry.started(RoundId(2))),
        (true, false, false)
    );
    assert_eq!(
        (entry.game_id(RoundId(0), PairingId(0)), entry.game_id(RoundId(0), PairingId(1))),
        (None, None)
    );
    assert_eq!(
        entry.lines(RoundId(0))[0],
        Pairing::Game {
            first: PlayerId(0),
            second: PlayerId(1),
            result: Some(dawgref_tournament::GameResult::Scores([400, 350]))
        }
    );
    assert_eq!(entry.tokens().len(), 4);
    assert_eq!(
        layer.events_from("t", 1).await,
        [ev(1, "division_imported", "B", 0, 0, "4 players, 2 rounds played", "director", &[])]
    );
}

#[tokio::test]
async fn a_division_imported_by_a_name_taken_or_with_a_token_short_is_refused() {
    let layer = Layer::new();
    four(&layer).await;
    assert_eq!(
        refused(layer.command("t", "", import("A", 4)).await),
        invalid(
            Invalid::DivisionTaken { name: "A".into(), at: DivisionAt::Imported },
            "\"A\": the tournament has a division of that name"
        )
    );
    assert_eq!(
        refused(layer.command("t", "", import("B", 3)).await),
        invalid(Invalid::Tokens { players: 4, tokens: 3 }, "4 players, 3 tokens")
    );
    let mut broken = import("B", 4);
    if let Command::ImportDivision(i) = &mut broken {
        i.text = "Ann 1500 2; 400\nBo 1400 3; 300\nCy 1300 2; 0\n".into();
    }
    assert_eq!(
        refused(layer.command("t", "", broken).await),
        invalid(
            Invalid::Tsh(TshError { line: 1, what: "round 1: player 2 does not name player 1 back".into() }),
            "line 1: round 1: player 2 does not name player 1 back"
        )
    );
    assert_eq!(layer.record_of("t").await.divisions().len(), 1);
    assert_eq!(layer.events_of("t").await.len(), 1);
}

#[tokio::test]
async fn rounds_added_at_the_end_are_noted_with_the_count_now() {
    let layer = Layer::new();
    four(&layer).await;
    let add = |methods: Vec<Method>| Command::AddRounds { division: "A".into(), methods };
    let said = layer.command("t", "", add(vec![Method::Swiss])).await.unwrap();
    assert_eq!(said.did, Did::Division { division: 0 });
    assert_eq!(said.lines, [None, None, None, None]);
    layer.command("t", "", add(vec![Method::KingOfTheHill, Method::Random])).await.unwrap();
    let rounds: Vec<Method> =
        layer.record_of("t").await.divisions()[0].division().rounds().iter().map(|r| r.method).collect();
    assert_eq!(
        rounds,
        [
            Method::RoundRobin,
            Method::RoundRobin,
            Method::RoundRobin,
            Method::Swiss,
            Method::KingOfTheHill,
            Method::Random
        ]
    );
    assert_eq!(
        layer.events_from("t", 1).await,
        [
            ev(1, "rounds_changed", "A", 0, 0, "round 4 added: 4 rounds", "director", &[]),
            ev(2, "rounds_changed", "A", 0, 0, "rounds 5 to 6 added: 6 rounds", "director", &[]),
        ]
    );
    let why = "0: 1 to 2500 (half the most players a division has)";
    assert_eq!(
        refused(layer.command("t", "", add(vec![Method::Swiss, Method::Factor(0)])).await),
        invalid(Invalid::Method { round: 1, why: why.into(), factor: true, at: DivisionAt::Kept }, why)
    );
    assert_eq!(
        refused(layer.command("t", "", add(vec![])).await),
        invalid(Invalid::NoRoundsToAdd, "at least one round to add")
    );
    assert_eq!(layer.events_of("t").await.len(), 3);
}

#[tokio::test]
async fn rounds_taken_off_the_end_are_noted_and_none_paired_or_the_last_is_taken() {
    let layer = Layer::new();
    four(&layer).await;
    let remove = |count| Command::RemoveRounds { division: "A".into(), count };
    let said = layer.command("t", "", remove(1)).await.unwrap();
    assert_eq!(said.lines, [None, None]);
    assert_eq!(
        layer.events_from("t", 1).await,
        [ev(1, "rounds_changed", "A", 0, 0, "round 3 taken off: 2 rounds", "director", &[])]
    );
    assert_eq!(
        refused(layer.command("t", "", remove(2)).await),
        rules(
            TournamentError::LastRound { rounds: 2, removing: 2 },
            "the division has 2 rounds: taking 2 off would leave none"
        )
    );
    layer.pair("t", "A", 1).await;
    layer.pair("t", "A", 2).await;
    assert_eq!(
        refused(layer.command("t", "", remove(1)).await),
        rules(
            TournamentError::RoundPaired { round: 2, rounds: 1 },
            "round 2 is paired: the division cannot have 1 rounds until it is unpaired"
        )
    );
    assert_eq!(
        refused(layer.command("t", "", remove(0)).await),
        invalid(Invalid::NoRoundsToRemove, "at least one round to take off")
    );
    assert_eq!(layer.record_of("t").await.divisions()[0].division().rounds().len(), 2);
    assert_eq!(layer.events_of("t").await.len(), 4);
}

#[tokio::test]
async fn a_player_withdrawn_is_entered_again_and_an_active_player_is_refused() {
    let layer = Layer::new();
    four(&layer).await;
    let reenter = Command::ReenterPlayer { division: "A".into(), player: 2 };
    assert_eq!(
        refused(layer.command("t", "", reenter.clone()).await),
        rules(
            TournamentError::NotWithdrawn { player: PlayerId(1) },
            "player 2 has not withdrawn: they are paired already"
        )
    );
    layer.events.withdraw("t", &Actor::Root, "", "A", 2, &FakeOwners::default(), said("")).await.unwrap();
    assert!(layer.record_of("t").await.divisions()[0].division().players()[1].withdrawn);
    let said = layer.command("t", "", reenter).await.unwrap();
    assert_eq!(said.did, Did::Division { division: 0 });
    assert!(!layer.record_of("t").await.divisions()[0].division().players()[1].withdrawn);
    assert_eq!(
        layer.events_from("t", 2).await,
        [ev(2, "player_reentered", "A", 0, 0, "Bo enters again as player 2", "director", &[2])]
    );
    let nobody = Command::ReenterPlayer { division: "A".into(), player: 5 };
    assert_eq!(
        refused(layer.command("t", "", nobody).await),
        invalid(
            Invalid::NoSuchPlayer { player: 5, players: 4, by: PlayerNamed::Player },
            "5: the division has players 1 to 4"
        )
    );
}

#[tokio::test]
async fn a_round_unpaired_before_it_starts_is_paired_no_more_and_noted() {
    let layer = Layer::new();
    four(&layer).await;
    layer.pair("t", "A", 1).await;
    let said = layer.command("t", "", Command::UnpairRound { division: "A".into(), round: 1 }).await.unwrap();
    assert_eq!(said.did, Did::Division { division: 0 });
    assert_eq!(said.lines, [None, None, None]);
    assert_eq!(
        layer.events_from("t", 2).await,
        [ev(2, "round_unpaired", "A", 1, 0, "round 1's pairings taken back", "director", &[])]
    );
}

#[tokio::test]
async fn a_round_unpaired_once_started_or_before_a_later_one_is_refused() {
    let layer = Layer::new();
    four(&layer).await;
    layer.pair("t", "A", 1).await;
    layer.pair("t", "A", 2).await;
    let unpair = |round| Command::UnpairRound { division: "A".into(), round };
    assert_eq!(
        refused(layer.command("t", "", unpair(1)).await),
        rules(
            TournamentError::NotLastPaired { round: 1, last: 2 },
            "round 1 is not the last round paired (round 2 is): unpair round 2 first"
        )
    );
    layer.start("t", "", ("A", 2), &FakeGames::noted()).await.unwrap();
    assert_eq!(
        refused(layer.command("t", "", unpair(2)).await),
        precondition("round 2 has started: its games are made, and its pairings stand")
    );
    assert_eq!(layer.record_of("t").await.divisions()[0].division().rounds_paired(), 2);
}

#[tokio::test]
async fn a_retried_command_answers_its_first_answer_and_changes_nothing() {
    let layer = Layer::new();
    four(&layer).await;
    let pair = || Command::PairRound { division: "A".into(), round: 1 };
    let first = layer.events.command("t", &Actor::Root, "r1", pair(), said("first")).await.unwrap();
    let (version, events) = (layer.version("t").await, layer.events_of("t").await.len());
    let again = layer.events.command("t", &Actor::Root, "r1", pair(), said("again")).await.unwrap();
    // The kept answer, not one made again (which would be tagged "again", or refused: the round
    // is paired already).
    assert_eq!(again, first);
    assert_eq!(again.tag, "first");
    assert_eq!((layer.version("t").await, layer.events_of("t").await.len()), (version, events));
}

#[tokio::test]
async fn a_retried_command_is_answered_as_first_even_when_asked_otherwise() {
    let layer = Layer::new();
    four(&layer).await;
    let rounds = |methods: Vec<Method>| Command::AddRounds { division: "A".into(), methods };
    let first = layer
        .events
        .command("t", &Actor::Root, "r1", rounds(vec![Method::Swiss]), said("first"))
        .await
        .unwrap();
    let again = layer
        .events
        .command("t", &Actor::Root, "r1", rounds(vec![Method::Swiss, Method::Swiss]), said("again"))
        .await
        .unwrap();
    assert_eq!(again, first);
    assert_eq!(layer.record_of("t").await.divisions()[0].division().rounds().len(), 4);
}

#[tokio::test]
async fn another_request_id_or_the_same_id_on_another_call_changes_again() {
    let layer = Layer::new();
    four(&layer).await;
    let rounds = || Command::AddRounds { division: "A".into(), methods: vec![Method::Swiss] };
    layer.events.command("t", &Actor::Root, "r1", rounds(), said("first")).await.unwrap();
    let other = layer.events.command("t", &Actor::Root, "r2", rounds(), said("second")).await.unwrap();
    assert_eq!((other.tag.as_str(), other.lines.len()), ("second", 5));
    // The same id on PairRound: another call's answer is not this one's.
    let pair = Command::PairRound { division: "A".into(), round: 1 };
    let paired = layer.events.command("t", &Actor::Root, "r1", pair, said("pair")).await.unwrap();
    assert_eq!((paired.tag.as_str(), paired.did), ("pair", Did::Round { division: 0, round: 0 }));
    assert_eq!(layer.events_of("t").await.len(), 4);
}

#[tokio::test]
async fn a_command_without_a_request_id_is_made_every_time() {
    let layer = Layer::new();
    four(&layer).await;
    let rounds = || Command::AddRounds { division: "A".into(), methods: vec![Method::Swiss] };
    layer.events.command("t", &Actor::Root, "", rounds(), said("first")).await.unwrap();
    let again = layer.events.command("t", &Actor::Root, "", rounds(), said("again")).await.unwrap();
    assert_eq!((again.tag.as_str(), again.lines.len()), ("again", 5));
}

#[tokio::test]
async fn a_refused_command_keeps_no_answer_and_its_retry_is_made_once_it_can_be() {
    let layer = Layer::new();
    layer.create("t", &[("A", FOUR, &[Method::RoundRobin, Method::Swiss])]).await;
    layer.pair("t", "A", 1).await;
    let pair = || Command::PairRound { division: "A".into(), round: 2 };
    let waiting = layer.events.command("t", &Actor::Root, "p2", pair(), said("first")).await;
    assert_eq!(
        refused(waiting),
        rules(
            TournamentError::ResultsToCome {
                round: 2,
                unfinished: 1,
                waiting: "pairing 1 (Di – Ann) and 1 more".into()
            },
            "round 2 is paired by the standings, and round 1 has results to come: pairing 1 (Di – Ann) and 1 more"
        )
    );
    let owners = FakeOwners::default();
    for (pairing, scores) in [(1, [400, 300]), (2, [350, 360])] {
        layer
            .record("t", "", ("A", 1, pairing), dawgref_events::Hand::Scores(scores), false, &owners)
            .await
            .unwrap();
    }
    let paired = layer.events.command("t", &Actor::Root, "p2", pair(), said("again")).await.unwrap();
    assert_eq!((paired.tag.as_str(), paired.lines), ("again", vec![Some(2), Some(2)]));
}

#[tokio::test]
async fn each_event_names_who_made_the_change() {
    let layer = Layer::new();
    four(&layer).await;
    let pair = |round| Command::PairRound { division: "A".into(), round };
    layer.events.command("t", &Actor::Root, "", pair(1), said("")).await.unwrap();
    layer.events.command("t", &Actor::Key("ann".into()), "", pair(2), said("")).await.unwrap();
    layer.events.command("t", &Actor::director(Some("bo")), "", pair(3), said("")).await.unwrap();
    let by: Vec<(String, String)> =
        layer.events_from("t", 1).await.into_iter().map(|e| (e.detail, e.by)).collect();
    assert_eq!(
        by,
        [
            ("round 1 paired".to_string(), "director".to_string()),
            ("round 2 paired".to_string(), "ann".to_string()),
            ("round 3 paired".to_string(), "bo".to_string()),
        ]
    );
    // Who made a change is the change's: the tournament as read keeps no name.
    assert_eq!(Actor::director(None).name(), "director");
}

#[tokio::test]
async fn the_log_pages_the_events_a_filter_keeps() {
    let layer = Layer::new();
    four(&layer).await;
    layer.pair("t", "A", 1).await;
    let owners = FakeOwners::default();
    let ann = Actor::Key("ann".into());
    for pairing in [1, 2] {
        let hand = dawgref_events::HandResult {
            division: "A".into(),
            round: 1,
            pairing,
            result: dawgref_events::Hand::Scores([400, 350]),
            correct: false,
        };
        layer.events.record_result("t", &ann, "", hand, &owners, said("")).await.unwrap();
    }
    layer
        .command("t", "", Command::AddRounds { division: "A".into(), methods: vec![Method::Swiss] })
        .await
        .unwrap();
    let results = LogFilter { kinds: vec![EventKind::Result], ..LogFilter::default() };
    let numbers =
        |page: &[dawgref_events::TournamentEvent]| page.iter().map(|e| e.number).collect::<Vec<_>>();
    let (page, next) = layer.events.log("t", &results, 0, 1).await.unwrap();
    assert_eq!((numbers(&page), next), (vec![2], Some(3)));
    let (page, next) = layer.events.log("t", &results, 3, 1).await.unwrap();
    assert_eq!((numbers(&page), next), (vec![3], None));
    let by_director = LogFilter { by: "director".into(), ..LogFilter::default() };
    let (page, next) = layer.events.log("t", &by_director, 0, 10).await.unwrap();
    assert_eq!((numbers(&page), next), (vec![0, 1, 4], None));
    // Player 4 (Di) is in round 1's first pairing.
    let di = LogFilter { division: "A".into(), player: 4, ..LogFilter::default() };
    let (page, _) = layer.events.log("t", &di, 0, 10).await.unwrap();
    assert_eq!(page.iter().map(|e| e.detail.as_str()).collect::<Vec<_>>(), ["Di 400 – Ann 350"]);
}

/// A second WithdrawPlayer of a player already withdrawn (a new request, not a retry) is refused,
/// as ReenterPlayer refuses its counterpart ("has not withdrawn"), and writes nothing.
#[tokio::test]
async fn withdrawing_a_player_withdrawn_already_is_refused_and_writes_no_second_withdrawal() {
    let layer = Layer::new();
    four(&layer).await;
    let owners = FakeOwners::default();
    layer.events.withdraw("t", &Actor::Root, "w1", "A", 2, &owners, said("")).await.unwrap();
    let events = layer.events_of("t").await.len();
    let again = layer.events.withdraw("t", &Actor::Root, "w2", "A", 2, &owners, said("")).await;
    assert_eq!(
        refused(again),
        rules(
            TournamentError::AlreadyWithdrawn { player: PlayerId(1) },
            "player 2 has withdrawn already: enter them again first"
        )
    );
    assert_eq!(layer.events_of("t").await.len(), events);
}

#[tokio::test]
async fn a_player_added_with_byes_after_a_round_started_has_no_game_for_their_bye_and_the_record_reads_back()
{
    let layer = Layer::new();
    four(&layer).await;
    layer.pair("t", "A", 1).await;
    layer.start("t", "", ("A", 1), &FakeGames::noted()).await.unwrap();
    let add = Command::AddPlayer {
        same_name: false,
        division: "A".into(),
        player: Player::new("Ed", Some(1000)),
        token: None,
        missed: Missed::Byes { spread: 50 },
    };
    layer.command("t", "", add).await.unwrap();
    // Read back from the store by another replica (no cache of its own): the same tournament.
    let other = layer.beside();
    let record = other.record_of("t").await;
    let entry = &record.divisions()[0];
    assert_eq!(entry.lines(RoundId(0)).len(), 3);
    assert!(entry.started(RoundId(0)));
    assert!(entry.game_id(RoundId(0), PairingId(0)).is_some());
    assert_eq!(entry.game_id(RoundId(0), PairingId(2)), None);
    assert_eq!(entry.division(), layer.record_of("t").await.divisions()[0].division());
}

/// Issue 82, item 4: a name a player of the division has is refused unless the director allows
/// it (compared without case and spacing), and AddPlayer asked twice by one request id adds one.
#[tokio::test]
async fn a_name_taken_is_refused_unless_allowed_and_a_retried_late_entry_is_added_once() {
    let layer = Layer::new();
    layer.create("t", &[("A", FOUR, &[Method::Swiss])]).await;
    let add = |name: &str, same_name| Command::AddPlayer {
        division: "A".into(),
        player: Player::new(name, Some(1000)),
        token: None,
        missed: Missed::Absent,
        same_name,
    };
    let taken = layer.events.command("t", &Actor::Root, "", add("bo ", false), said("")).await;
    assert_eq!(
        refused(taken),
        invalid(
            Invalid::SameName { name: "bo".into(), player: 2, at: NameAt::LateEntry },
            "\"bo\": player 2 of the division has that name (a director may allow it)"
        )
    );
    let first = layer.events.command("t", &Actor::Root, "r", add("Bo", true), said("first")).await.unwrap();
    let again = layer.events.command("t", &Actor::Root, "r", add("Bo", true), said("again")).await.unwrap();
    assert_eq!((first.tag.as_str(), again.tag.as_str()), ("first", "first"));
    assert_eq!(layer.record_of("t").await.divisions()[0].division().players().len(), 5);
    let mut same = tournament("u", &[("A", &["Ann", "Bo", "ann"], &[Method::Swiss])]);
    let made = layer.events.create_tournament(&Actor::Root, same.clone()).await.map(|r| r.event_count());
    assert_eq!(
        refused(made),
        invalid(
            Invalid::SameName {
                name: "ann".into(),
                player: 1,
                at: NameAt::NewDivision { division: 0, player: 2 }
            },
            "\"ann\": player 1 of the division has that name (a director may allow it)"
        )
    );
    same.same_names = true;
    layer.events.create_tournament(&Actor::Root, same).await.unwrap();
}

/// A tournament as made, each of whose parts out of bounds is refused naming where it is, and
/// leaves no tournament.
#[tokio::test]
async fn a_tournament_given_out_of_its_bounds_is_refused_naming_where_and_nothing_is_made() {
    let layer = Layer::new();
    let base = || tournament("t", &[("A", FOUR, RR3), ("B", FOUR, RR3)]);
    let bounds = |change: &dyn Fn(&mut NewTournament)| {
        let mut t = base();
        change(&mut t);
        t
    };
    let (factor, fontes) =
        ("0: 1 to 2500 (half the most players a division has)", "2: an odd number of rounds, at most 100");
    let name = "no word of a name starts with a digit (TSH reads it as the rating)";
    let cases: Vec<(NewTournament, Invalid, String)> = vec![
        (
            bounds(&|t| t.divisions[1].name = "A".into()),
            Invalid::DivisionTaken { name: "A".into(), at: DivisionAt::New { index: 1 } },
            "\"A\": the tournament has a division of that name".into(),
        ),
        (
            bounds(&|t| t.divisions[1].methods.clear()),
            Invalid::Rounds { rounds: 0, at: DivisionAt::New { index: 1 } },
            "0 rounds: a division has 1 to 100".into(),
        ),
        (
            bounds(&|t| t.divisions[0].methods = vec![Method::Swiss; 101]),
            Invalid::Rounds { rounds: 101, at: DivisionAt::New { index: 0 } },
            "101 rounds: a division has 1 to 100".into(),
        ),
        (
            bounds(&|t| t.divisions[0].methods[2] = Method::Factor(0)),
            Invalid::Method { round: 2, why: factor.into(), factor: true, at: DivisionAt::New { index: 0 } },
            factor.into(),
        ),
        (
            bounds(&|t| t.divisions[1].methods[0] = Method::InitialFontes(2)),
            Invalid::Method { round: 0, why: fontes.into(), factor: false, at: DivisionAt::New { index: 1 } },
            fontes.into(),
        ),
        (
            bounds(&|t| t.divisions[1].controls.bye_spread = 1001),
            Invalid::Spread { spread: 1001, of: SpreadOf::Bye(DivisionAt::New { index: 1 }) },
            "1001: -1000 to 1000".into(),
        ),
        (
            bounds(&|t| t.divisions[0].controls.forfeit_spread = -1001),
            Invalid::Spread { spread: -1001, of: SpreadOf::Forfeit(DivisionAt::New { index: 0 }) },
            "-1001: -1000 to 1000".into(),
        ),
        (
            bounds(&|t| t.divisions[1].players[2].name = "Di 1.5".into()),
            Invalid::PlayerName { why: name.into(), at: NameAt::NewDivision { division: 1, player: 2 } },
            name.into(),
        ),
    ];
    for (t, kind, words) in cases {
        let made = layer.events.create_tournament(&Actor::Root, t).await;
        assert_eq!(refused(made.map(|r| r.event_count())), invalid(kind, &words));
        assert_eq!(
            refused(layer.events.load("t").await.map(|_| ())),
            Refused::NotFound("no tournament \"t\"".into())
        );
    }
    // At the bounds: made.
    let edge = bounds(&|t| {
        t.divisions[0].controls.bye_spread = 1000;
        t.divisions[0].controls.forfeit_spread = -1000;
        t.divisions[1].methods = vec![Method::RoundRobin; 100];
    });
    assert_eq!(layer.events.create_tournament(&Actor::Root, edge).await.unwrap().event_count(), 1);
}

/// What a `.t` file or what is given beside it holds out of bounds, or a late entry's spread,
/// refused naming where it is; nothing is written.
#[tokio::test]
async fn an_import_or_a_late_entry_out_of_bounds_is_refused_naming_where_and_writes_nothing() {
    let layer = Layer::new();
    four(&layer).await;
    let with = |change: &dyn Fn(&mut Import)| {
        let Command::ImportDivision(mut i) = import("B", 4) else { unreachable!() };
        change(&mut i);
        Command::ImportDivision(i)
    };
    let factor = "0: 1 to 2500 (half the most players a division has)";
    let cases: Vec<(Command, Invalid, String)> = vec![
        (
            with(&|i| i.rounds_to_come = vec![Method::Swiss, Method::Factor(0)]),
            Invalid::Method { round: 1, why: factor.into(), factor: true, at: DivisionAt::Imported },
            factor.into(),
        ),
        (
            with(&|i| i.rounds_to_come = vec![Method::Swiss; 99]),
            Invalid::Rounds { rounds: 101, at: DivisionAt::Imported },
            "101 rounds: a division has 1 to 100".into(),
        ),
        (
            with(&|i| i.controls.bye_spread = 5000),
            Invalid::Spread { spread: 5000, of: SpreadOf::Bye(DivisionAt::Imported) },
            "5000: -1000 to 1000".into(),
        ),
        (
            with(&|i| i.text = TSH.replace("Bo 1400 1 4; 350", "Bo 1400 1 4; 350; bot wizard")),
            Invalid::BotLevel {
                player: 2,
                why: "unknown bot level \"wizard\" (expected weak, greedy, strong or champion)".into(),
            },
            "player 2: unknown bot level \"wizard\" (expected weak, greedy, strong or champion)".into(),
        ),
        (
            Command::AddPlayer {
                division: "A".into(),
                player: Player::new("Ed", None),
                token: None,
                missed: Missed::Byes { spread: 1001 },
                same_name: false,
            },
            Invalid::Spread { spread: 1001, of: SpreadOf::Missed },
            "1001: -1000 to 1000".into(),
        ),
    ];
    for (command, kind, words) in cases {
        assert_eq!(refused(layer.command("t", "", command).await), invalid(kind, &words));
    }
    assert_eq!(layer.record_of("t").await.divisions().len(), 1);
    assert_eq!((layer.version("t").await, layer.events_of("t").await.len()), (1, 1));
}

/// A player is found by their own token as the actor their commands are made by; a director's
/// command by them, or by a game, is refused naming them and writes nothing.
#[tokio::test]
async fn a_player_is_found_by_their_token_and_may_make_no_directors_command() {
    let layer = Layer::new();
    let mut t = tournament("t", &[("A", FOUR, RR3), ("B", FOUR, RR3)]);
    t.divisions[1].tokens[2] = Some(dawgref_host::hash("cy's token"));
    layer.events.create_tournament(&Actor::Root, t).await.unwrap();
    layer.pair("t", "B", 1).await;
    let record = layer.record_of("t").await;
    let (d, player, actor) = record.player_of_token("cy's token").expect("Cy of B");
    assert_eq!((d, player), (record.division("B").unwrap(), PlayerId(2)));
    assert_eq!(actor, Actor::Player { division: "B".into(), player: 3 });
    assert_eq!(actor.name(), "player 3 of B");
    assert_eq!(record.player_of_token("nobody's token").map(|(d, p, _)| (d, p)), None);
    let owners = FakeOwners::default();
    for who in [actor, Actor::Game] {
        let denied = |command: &str| {
            Refused::NotDirector(format!("{} may not {command}: a director's command", who.name()))
        };
        let unpair = Command::UnpairRound { division: "B".into(), round: 1 };
        assert_eq!(
            refused(layer.events.command("t", &who, "", unpair, said("")).await),
            denied("UnpairRound")
        );
        let hand = dawgref_events::HandResult {
            division: "B".into(),
            round: 1,
            pairing: 1,
            result: dawgref_events::Hand::Scores([400, 350]),
            correct: false,
        };
        let result = layer.events.record_result("t", &who, "", hand, &owners, said("")).await;
        assert_eq!(refused(result), denied("RecordResult"));
        let withdrawn = layer.events.withdraw("t", &who, "", "B", 3, &owners, said("")).await;
        assert_eq!(refused(withdrawn), denied("WithdrawPlayer"));
        let games = FakeGames::noted();
        let started = layer.events.start_round("t", &who, "", "B", 1, &owners, &games, said("")).await;
        assert_eq!(refused(started), denied("StartRound"));
        assert!(games.made().is_empty());
        let made = layer.events.create_tournament(&who, tournament("u", &[("A", FOUR, RR3)])).await;
        assert_eq!(refused(made.map(|r| r.event_count())), denied("CreateTournament"));
    }
    assert!(owners.calls().is_empty());
    assert_eq!((layer.version("t").await, layer.events_of("t").await.len()), (2, 2));
}

/// A log's filter naming a player and no division, too many kinds or a kind there is not, is
/// refused naming which.
#[tokio::test]
async fn a_log_filter_naming_what_is_not_there_is_refused_naming_it() {
    let layer = Layer::new();
    four(&layer).await;
    let lone = LogFilter { player: 2, ..LogFilter::default() };
    assert_eq!(
        refused(layer.events.log("t", &lone, 0, 10).await),
        invalid(Invalid::PlayerOfNoDivision { player: 2 }, "2: a player is named in a division")
    );
    let fifth = LogFilter { division: "A".into(), player: 5, ..LogFilter::default() };
    assert_eq!(
        refused(layer.events.log("t", &fifth, 0, 10).await),
        invalid(
            Invalid::NoSuchPlayer { player: 5, players: 4, by: PlayerNamed::Player },
            "5: the division has players 1 to 4"
        )
    );
    let many: Vec<String> = vec!["result".into(); 20];
    assert_eq!(
        refused(EventKind::named(&many).map(|_| ()).map_err(EventsError::from)),
        invalid(Invalid::Kinds { kinds: 20 }, "20 kinds: at most 19")
    );
    let there = EventKind::ALL.map(|k| k.name()).to_vec();
    let words = format!("\"results\": no such kind (there are {})", there.join(", "));
    let wrong = EventKind::named(&["result".into(), "results".into()]).map_err(EventsError::from);
    assert_eq!(
        refused(wrong),
        invalid(Invalid::NoSuchKind { index: 1, name: "results".into(), there }, &words)
    );
    assert_eq!(
        EventKind::named(&["result".into(), "created".into()]).unwrap(),
        [EventKind::Result, EventKind::Created]
    );
}

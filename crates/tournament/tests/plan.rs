//! Changing a division's plan after its start: rounds added and taken off, late entries counted
//! absent or with byes, a withdrawn player entered again, a round unpaired; each refused by name
//! when it cannot be, and each read back from its `.t` file.

use dawgref_tournament::tsh;
use dawgref_tournament::{
    Controls, Division, Error, GameResult, MAX_ROUNDS, Method, Missed, Pairing, Player, PlayerId, Standings,
};

fn field(n: usize, methods: &[Method], controls: Controls) -> Division {
    let players =
        (0..n).map(|i| Player::new(format!("Player {}", (b'A' + i as u8) as char), Some(2000 - i as u32)));
    Division::new("A", players.collect(), methods, controls)
}

fn p(i: u32) -> PlayerId {
    PlayerId(i)
}

fn game(first: u32, second: u32) -> Pairing {
    Pairing::Game { first: p(first), second: p(second), result: None }
}

/// Who meets whom in round `k`'s games, as sorted pairs of 0-based ids.
fn meets(d: &Division, k: usize) -> Vec<[u32; 2]> {
    let mut m: Vec<[u32; 2]> = (d.rounds()[k].pairings.iter().flatten())
        .filter_map(|l| match *l {
            Pairing::Game { first, second, .. } => Some([first.0.min(second.0), first.0.max(second.0)]),
            Pairing::Bye { .. } => None,
        })
        .collect();
    m.sort();
    m
}

/// Four players, round 1 paired by hand and played: A beats B by 100, C beats D by 10.
fn one_round_played(methods: &[Method], controls: Controls) -> Division {
    let mut d = field(4, methods, controls);
    d.set_pairings(0, vec![game(0, 1), game(2, 3)]).unwrap();
    d.record(0, 0, GameResult::Scores([400, 300]), false).unwrap();
    d.record(0, 1, GameResult::Scores([360, 350]), false).unwrap();
    d
}

#[test]
fn rounds_added_are_paired_by_their_methods_and_taken_off_only_while_unpaired() {
    let mut d = one_round_played(&[Method::Manual, Method::Swiss], Controls::default());
    d.add_rounds(&[Method::KingOfTheHill, Method::Random]).unwrap();
    let methods: Vec<Method> = d.rounds().iter().map(|r| r.method).collect();
    assert_eq!(methods, [Method::Manual, Method::Swiss, Method::KingOfTheHill, Method::Random]);
    d.pair(1).unwrap();
    assert_eq!(
        d.remove_rounds(3),
        Err(Error::RoundPaired { round: 2, rounds: 1 }),
        "round 2 is paired: the division keeps it"
    );
    assert_eq!(
        d.remove_rounds(3).unwrap_err().to_string(),
        "round 2 is paired: the division cannot have 1 rounds until it is unpaired"
    );
    assert_eq!(
        d.remove_rounds(4).unwrap_err().to_string(),
        "the division has 4 rounds: taking 4 off would leave none"
    );
    d.remove_rounds(2).unwrap();
    assert_eq!(d.rounds().len(), 2);
    assert_eq!(
        d.add_rounds(&vec![Method::Swiss; MAX_ROUNDS - 1]).unwrap_err().to_string(),
        "the division has 2 rounds: 99 more would pass the most a division has, 100"
    );
    assert_eq!(
        d.add_rounds(&[Method::Factor(0)]).unwrap_err().to_string(),
        "0: 1 to 2500 (half the most players a division has)"
    );
    assert_eq!(d.rounds().len(), 2, "a refused change changes nothing");
}

/// Gibsonization counts the rounds left from the division's count as it is now: A, 2 points
/// ahead of C with 2 rounds left is not uncatchable; with the third round taken off, it is.
#[test]
fn gibsonization_counts_the_rounds_left_after_a_change_of_plan() {
    let controls = Controls { gibson_spread: Some(0), min_placement: 2, ..Controls::default() };
    let methods = [Method::Manual, Method::KingOfTheHill, Method::KingOfTheHill, Method::KingOfTheHill];
    let mut d = field(4, &methods, controls);
    let absent = |i| Pairing::Bye { player: p(i), spread: -50 };
    d.set_pairings(0, vec![game(0, 1), absent(2), absent(3)]).unwrap();
    d.record(0, 0, GameResult::Scores([400, 300]), false).unwrap();
    // A 2 points (+100), then C and D none (-50 each), B none (-100). Round 2 of 4: 3 rounds
    // left, and a lead of 2 is less than 2 x 3.
    let mut kept = d.clone();
    kept.pair(1).unwrap();
    assert_eq!(meets(&kept, 1), [[0, 2], [1, 3]], "King of the Hill: A v C");
    // Two rounds taken off: round 2 is the last; a lead of 2 = 2 x 1, and +150 over C > 0.
    d.remove_rounds(2).unwrap();
    d.pair(1).unwrap();
    assert_eq!(meets(&d, 1), [[0, 3], [1, 2]], "Gibsonized: A meets D, the best-ranked below second place");
}

#[test]
fn a_late_entry_counts_the_rounds_gone_as_absent_or_as_byes_of_a_spread() {
    let methods = [Method::Manual, Method::Swiss];
    let mut absent = one_round_played(&methods, Controls::default());
    let mut byes = absent.clone();
    let late = |name: &str| Player::new(name, Some(1500));
    assert_eq!(absent.add_late_player(late("Eve Late"), Missed::Absent), Ok(p(4)));
    assert_eq!(byes.add_late_player(late("Eve Late"), Missed::Byes { spread: -50 }), Ok(p(4)));
    assert_eq!(absent.rounds()[0].pairings.as_ref().unwrap().len(), 2, "no line for Eve");
    assert_eq!(byes.rounds()[0].pairings.as_ref().unwrap()[2], Pairing::Bye { player: p(4), spread: -50 });
    let (a, b) = (Standings::of(&absent), Standings::of(&byes));
    let eve = |s: &Standings| {
        let r = s.record(p(4));
        (r.win_points, r.losses, r.spread, r.byes, r.played)
    };
    assert_eq!(eve(&a), (0, 0, 0, 0, 0));
    assert_eq!(eve(&b), (0, 1, -50, 0, 1));
    // Round 2 pairs Eve with the rest: five players, so someone has the bye.
    absent.pair(1).unwrap();
    let round_2 = absent.rounds()[1].pairings.as_ref().unwrap();
    assert_eq!(round_2.len(), 3);
    assert!(round_2.iter().any(|l| l.players().any(|q| q == p(4))));
    // Each reads back from its `.t` file: "unpaired" for the absence, a score with no opponent
    // (and no board) for the bye.
    for (d, line) in [(&absent, "Eve Late 1500 0 "), (&byes, "Eve Late 1500 0; -50; p12 0; board 0\n")] {
        let text = tsh::export(d);
        assert!(text.contains(line), "{text}");
        let back = tsh::import("A", &text, d.controls().clone(), &[Method::Swiss]).unwrap();
        assert_eq!(tsh::export(&back), text);
        assert_eq!(Standings::of(&back).records, Standings::of(d).records);
    }
    assert!(tsh::export(&absent).contains("Eve Late 1500 0 "));
    assert!(tsh::export(&absent).lines().last().unwrap().contains("; unpaired 1 0"));
}

#[test]
fn a_withdrawn_player_enters_again_from_the_next_round_paired() {
    let mut d = one_round_played(&[Method::Manual, Method::Swiss, Method::Swiss], Controls::default());
    assert_eq!(
        d.reenter(p(1)).unwrap_err().to_string(),
        "player 2 has not withdrawn: they are paired already"
    );
    assert_eq!(d.reenter(p(7)).unwrap_err().to_string(), "the division has 4 players: there is no player 8");
    d.withdraw(p(3)).unwrap();
    assert_eq!(
        d.withdraw(p(3)).unwrap_err().to_string(),
        "player 4 has withdrawn already: enter them again first"
    );
    d.pair(1).unwrap();
    assert_eq!(d.rounds()[1].pairings.as_ref().unwrap().len(), 2, "two games less D: one game, one bye");
    d.reenter(p(3)).unwrap();
    assert!(!d.players()[3].withdrawn);
    assert!(d.line_of(1, p(3)).is_none(), "round 2, paired while D was out, stands");
    let lines = d.rounds()[1].pairings.clone().unwrap();
    for (k, line) in lines.iter().enumerate() {
        if let Pairing::Game { .. } = line {
            d.record(1, k, GameResult::Scores([400, 390]), false).unwrap();
        }
    }
    d.pair(2).unwrap();
    assert_eq!(d.rounds()[2].pairings.as_ref().unwrap().len(), 2, "four players, two games");
    let text = tsh::export(&d);
    assert!(text.lines().nth(3).unwrap().contains("; unpaired 0 1 0"), "{text}");
    assert!(!text.contains("; off"), "{text}");
}

#[test]
fn only_the_last_round_paired_is_unpaired_and_only_before_a_result() {
    let mut d = one_round_played(&[Method::Manual, Method::Swiss, Method::Swiss], Controls::default());
    assert_eq!(d.unpair(1).unwrap_err().to_string(), "round 2 is not paired yet");
    assert_eq!(d.unpair(5).unwrap_err().to_string(), "the division has 3 rounds: there is no round 6");
    d.pair(1).unwrap();
    let paired = d.rounds()[1].clone();
    assert_eq!(
        d.unpair(0).unwrap_err().to_string(),
        "round 1 is not the last round paired (round 2 is): unpair round 2 first"
    );
    d.unpair(1).unwrap();
    assert_eq!(d.rounds_paired(), 1);
    d.pair(1).unwrap();
    assert_eq!(d.rounds()[1], paired, "paired again as before: the draw is the division's");
    d.record(1, 0, GameResult::Scores([400, 390]), false).unwrap();
    assert_eq!(d.unpair(1).unwrap_err().to_string(), "round 2 has results in: its pairings stand");
    assert_eq!(d.rounds()[1].pairings.as_ref().unwrap().len(), 2);
}

//! Each pairing method's invariants, byes and Gibsonization, the standings' order, and TSH files
//! both ways (with liwords' golden `.t` output as an outside reference for the format).

use dawgref_tournament::ratings::RatingSystem;
use dawgref_tournament::tsh;
use dawgref_tournament::{
    Controls, Division, Error, GameResult, Method, Missed, Pairing, Player, PlayerId, Round, Standings,
};
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};

fn field(n: usize, methods: &[Method], controls: Controls) -> Division {
    let players = (0..n).map(|i| Player::new(format!("Player {}", letter(i)), Some(2000 - i as u32)));
    Division::new("A", players.collect(), methods, controls)
}

fn letter(i: usize) -> String {
    ((b'A' + (i % 26) as u8) as char).to_string().repeat(1 + i / 26)
}

fn p(i: u32) -> PlayerId {
    PlayerId(i)
}

fn game(first: u32, second: u32) -> Pairing {
    Pairing::Game { first: p(first), second: p(second), result: None }
}

/// Who meets whom in a round, as sorted pairs of 0-based ids (a bye: the player alone).
fn meetings(d: &Division, round: usize) -> Vec<Vec<u32>> {
    let mut m: Vec<Vec<u32>> = d.rounds()[round]
        .pairings
        .as_ref()
        .unwrap()
        .iter()
        .map(|l| {
            let mut v: Vec<u32> = l.players().map(|p| p.0).collect();
            v.sort();
            v
        })
        .collect();
    m.sort();
    m
}

/// Every game of `round` played: the first-listed player wins by `margin(first, second)`.
fn play(d: &mut Division, round: usize, margin: impl Fn(PlayerId, PlayerId) -> i32) {
    let lines = d.rounds()[round].pairings.clone().unwrap();
    for (k, line) in lines.iter().enumerate() {
        if let Pairing::Game { first, second, .. } = *line {
            let m = margin(first, second);
            d.record(round, k, GameResult::Scores([400 + m, 400]), false).unwrap();
        }
    }
}

#[test]
fn round_robin_meets_every_pair_once_a_cycle_with_one_bye_each_for_an_odd_count() {
    for n in 2..=13usize {
        let seats = n + n % 2;
        let cycle = seats - 1;
        let mut d = field(n, &vec![Method::RoundRobin; 2 * cycle], Controls::default());
        for round in 0..2 * cycle {
            d.pair(round).unwrap();
        }
        for c in 0..2 {
            let mut met: HashMap<Vec<u32>, usize> = HashMap::new();
            for round in c * cycle..(c + 1) * cycle {
                let lines = meetings(&d, round);
                assert_eq!(
                    lines.iter().map(Vec::len).sum::<usize>(),
                    n,
                    "n {n} round {round}: everyone once"
                );
                for m in lines {
                    *met.entry(m).or_default() += 1;
                }
            }
            let pairs = met.iter().filter(|(m, _)| m.len() == 2).count();
            assert_eq!(pairs, n * (n - 1) / 2, "n {n} cycle {c}: every pair");
            assert!(met.values().all(|&k| k == 1), "n {n} cycle {c}: each once");
            let byes = met.keys().filter(|m| m.len() == 1).count();
            assert_eq!(byes, n % 2 * n, "n {n} cycle {c}: a bye each for an odd count");
        }
    }
}

#[test]
fn a_division_refuses_a_player_meeting_themself_a_name_a_file_cannot_hold_and_one_player_too_many() {
    let mut d = field(4, &[Method::Manual], Controls::default());
    let e = d.set_pairings(0, vec![game(0, 1), game(2, 2), game(3, 3)]).unwrap_err();
    assert_eq!(e.to_string(), "round 1's pairing 2 pairs player 3 with themself");
    assert!(d.rounds()[0].pairings.is_none(), "refused, the round is as it was");
    let e = d.add_player(Player::new("Bo;Baker", Some(1500))).unwrap_err();
    assert!(matches!(e, Error::Name(_)), "{e:?}");
    assert_eq!(d.players().len(), 4);
    while d.players().len() < dawgref_tournament::MAX_PLAYERS {
        d.add_player(Player::new("Filler", Some(1000))).unwrap();
    }
    assert_eq!(d.add_player(Player::new("One More", Some(1000))), Err(Error::Full));
    assert_eq!(d.players().len(), dawgref_tournament::MAX_PLAYERS);
    assert_eq!(
        Method::Factor(0).problem().as_deref(),
        Some("0: 1 to 2500 (half the most players a division has)")
    );
    assert_eq!(
        Method::InitialFontes(2).problem().as_deref(),
        Some("2: an odd number of rounds, at most 100")
    );
    assert_eq!(Method::InitialFontes(3).problem(), None);
}

#[test]
fn swiss_avoids_the_repeat_its_score_groups_would_make() {
    // Round 3 by score groups would be A v B or A v C again: A meets D, B meets C.
    let mut d = field(4, &[Method::Manual, Method::Swiss, Method::Swiss], Controls::default());
    d.set_pairings(0, vec![game(0, 1), game(2, 3)]).unwrap();
    play(&mut d, 0, |_, _| 50);
    d.pair(1).unwrap();
    assert_eq!(meetings(&d, 1), [vec![0, 2], vec![1, 3]], "the winners meet, and the losers");
    // A beats C; B beats D.
    play(&mut d, 1, |first, second| if first.0.min(second.0) == first.0 { 30 } else { -30 });
    let s = Standings::of(&d);
    assert_eq!(s.ranked, [p(0), p(2), p(1), p(3)]);
    d.pair(2).unwrap();
    assert_eq!(meetings(&d, 2), [vec![0, 3], vec![1, 2]]);
}

#[test]
fn king_of_the_hill_pairs_1_v_2_and_3_v_4_by_the_standings() {
    let mut d = field(6, &[Method::Manual, Method::KingOfTheHill], Controls::default());
    d.set_pairings(0, vec![game(0, 5), game(1, 4), game(2, 3)]).unwrap();
    // The higher seeds win, by 10, 20 and 30: D (+30) leads, then E, F.
    for (k, m) in [10, 20, 30].into_iter().enumerate() {
        d.record(0, k, GameResult::Scores([400, 400 + m]), false).unwrap();
    }
    assert_eq!(Standings::of(&d).ranked, [p(3), p(4), p(5), p(0), p(1), p(2)]);
    d.pair(1).unwrap();
    // D v E, F v A (a repeat: King of the Hill pairs by place alone), B v C.
    assert_eq!(meetings(&d, 1), [vec![0, 5], vec![1, 2], vec![3, 4]]);
    // Lines come in the standings' order: the leaders' game first.
    let first_line: Vec<PlayerId> = d.rounds()[1].pairings.as_ref().unwrap()[0].players().collect();
    assert!(first_line.contains(&p(3)) && first_line.contains(&p(4)));
}

#[test]
fn factor_pairs_1_v_1_plus_f_and_the_rest_swiss() {
    let mut d = field(8, &[Method::Factor(2)], Controls::default());
    d.pair(0).unwrap();
    // Seeds 1 v 3, 2 v 4; 5-8 by Swiss (one score group, spread equal): top half v bottom half.
    let m = meetings(&d, 0);
    assert!(m.contains(&vec![0, 2]) && m.contains(&vec![1, 3]), "{m:?}");
    assert_eq!(m.len(), 4);
    let mut too_big = field(4, &[Method::Factor(3)], Controls::default());
    assert!(matches!(too_big.pair(0), Err(Error::Unpairable(m)) if m.contains("factor 3")));
}

#[test]
fn initial_fontes_plays_a_round_robin_in_groups_across_the_field_then_swiss() {
    let mut d = field(8, &[Method::InitialFontes(3); 4], Controls::default());
    for round in 0..3 {
        d.pair(round).unwrap();
        play(&mut d, round, |_, _| 10);
    }
    // Groups of 4 dealt by seed: {A, C, E, G} and {B, D, F, H}; each meets its group's three.
    let mut opponents: Vec<Vec<u32>> = vec![Vec::new(); 8];
    for round in 0..3 {
        for m in meetings(&d, round) {
            opponents[m[0] as usize].push(m[1]);
            opponents[m[1] as usize].push(m[0]);
        }
    }
    for (i, o) in opponents.iter_mut().enumerate() {
        o.sort();
        let group: Vec<u32> = (0..8).filter(|&j| j % 2 == i as u32 % 2 && j != i as u32).collect();
        assert_eq!(*o, group, "player {i}");
    }
    // Round 4 is Swiss: by the standings, with no repeat.
    d.pair(3).unwrap();
    for m in meetings(&d, 3) {
        assert_ne!(m[0] % 2, m[1] % 2, "no repeat: the groups meet");
    }
}

#[test]
fn initial_fontes_with_an_odd_count_gives_byes_within_a_larger_group() {
    let mut d = field(9, &[Method::InitialFontes(3); 3], Controls::default());
    let mut byes = Vec::new();
    let mut met: HashMap<Vec<u32>, usize> = HashMap::new();
    for round in 0..3 {
        d.pair(round).unwrap();
        for m in meetings(&d, round) {
            if m.len() == 1 {
                byes.push(m[0]);
            } else {
                *met.entry(m).or_default() += 1;
            }
        }
    }
    assert_eq!(byes.len(), 3, "a bye a round");
    assert!(met.values().all(|&k| k == 1), "no repeat within the groups: {met:?}");
    let even = field(4, &[Method::InitialFontes(2)], Controls::default());
    let mut even = even;
    assert!(matches!(even.pair(0), Err(Error::Unpairable(m)) if m.contains("odd number of rounds")));
}

/// Four players, three rounds (the last King of the Hill): after two, A has won both (+110);
/// C beat D by 10 in the first round (`played`), or both were absent (a bye of -50 each).
fn gibson_field(gibson: Option<u32>, min_placement: u32, played: bool) -> Division {
    let controls = Controls { gibson_spread: gibson, min_placement, ..Controls::default() };
    let mut d = field(4, &[Method::Manual, Method::Manual, Method::KingOfTheHill], controls);
    let absent = |i| Pairing::Bye { player: p(i), spread: -50 };
    let first = if played { vec![game(0, 1), game(2, 3)] } else { vec![game(0, 1), absent(2), absent(3)] };
    d.set_pairings(0, first).unwrap();
    d.record(0, 0, GameResult::Scores([400, 300]), false).unwrap();
    if played {
        d.record(0, 1, GameResult::Scores([360, 350]), false).unwrap();
    }
    d.set_pairings(1, vec![game(0, 2), absent(1), absent(3)]).unwrap();
    d.record(1, 0, GameResult::Scores([400, 390]), false).unwrap();
    d
}

#[test]
fn a_leader_ahead_by_more_than_two_points_a_round_left_is_gibsonized_whatever_the_spread() {
    // A 4 points; B, C, D none: a lead of 4 > 2 x 1 round left.
    let mut d = gibson_field(Some(10_000), 2, false);
    let s = Standings::of(&d);
    assert_eq!(s.ranked, [p(0), p(2), p(3), p(1)]);
    assert_eq!((s.record(p(0)).win_points, s.record(p(2)).win_points), (4, 0));
    d.pair(2).unwrap();
    // Against the best-ranked player below the minimum placement (2): third place, D.
    assert_eq!(meetings(&d, 2), [vec![0, 3], vec![1, 2]]);
    // Without Gibsonization, King of the Hill: 1 v 2.
    let mut off = gibson_field(None, 2, false);
    off.pair(2).unwrap();
    assert_eq!(meetings(&off, 2), [vec![0, 2], vec![1, 3]]);
}

#[test]
fn a_leader_exactly_two_points_a_round_ahead_is_gibsonized_only_by_a_spread_lead_over_the_gibson_spread() {
    // A 4 points (+110); C 2 (0), D and B none: a lead of 2 = 2 x 1 round left.
    let d = gibson_field(Some(100), 2, true);
    let s = Standings::of(&d);
    assert_eq!(s.ranked, [p(0), p(2), p(3), p(1)]);
    assert_eq!(s.record(p(0)).win_points - s.record(p(2)).win_points, 2);
    assert_eq!(s.record(p(0)).spread - s.record(p(2)).spread, 110);
    // 110 > 100 x 1: Gibsonized, against third place (D).
    let mut over = d.clone();
    over.pair(2).unwrap();
    assert_eq!(meetings(&over, 2), [vec![0, 3], vec![1, 2]]);
    // 110 is not over 110: King of the Hill as usual, A v C.
    let mut level = gibson_field(Some(110), 2, true);
    level.pair(2).unwrap();
    assert_eq!(meetings(&level, 2), [vec![0, 2], vec![1, 3]]);
}

#[test]
fn the_bye_goes_to_the_lowest_ranked_of_those_with_the_fewest_byes() {
    let mut d = field(5, &[Method::Swiss; 3], Controls::default());
    d.pair(0).unwrap();
    assert_eq!(d.line_of(0, p(4)).unwrap().1, &Pairing::Bye { player: p(4), spread: 50 });
    play(&mut d, 0, |_, _| -20);
    // E's bye is a win (+50): E ranks first; the bye goes to the lowest ranked without one.
    let s = Standings::of(&d);
    assert_eq!(s.ranked[0], p(4));
    let lowest_without = *s.ranked.iter().rev().find(|&&x| x != p(4)).unwrap();
    d.pair(1).unwrap();
    assert!(matches!(d.line_of(1, lowest_without).unwrap().1, Pairing::Bye { .. }));
}

#[test]
fn standings_count_byes_and_forfeits_and_rank_by_wins_then_losses_then_spread_then_seed() {
    let controls = Controls { spread_cap: 300, ..Controls::default() };
    let mut d = field(6, &[Method::Manual, Method::Manual], controls);
    d.set_pairings(0, vec![game(0, 1), game(2, 3), game(4, 5)]).unwrap();
    d.record(0, 0, GameResult::Scores([300, 300]), false).unwrap(); // A, B draw
    d.record(0, 1, GameResult::Scores([600, 100]), false).unwrap(); // C +500, capped +300
    d.record(0, 2, GameResult::Forfeit { winner: 1 }, false).unwrap(); // F by forfeit +50
    d.set_pairings(1, vec![game(0, 1), game(2, 4), game(3, 5)]).unwrap();
    d.record(1, 0, GameResult::Scores([380, 380]), false).unwrap(); // A, B draw again
    d.record(1, 1, GameResult::Scores([300, 340]), false).unwrap(); // E beats C by 40
    d.record(1, 2, GameResult::Scores([420, 400]), false).unwrap(); // D beats F by 20
    let s = Standings::of(&d);
    let row = |i: u32| {
        let r = s.record(p(i));
        (r.win_points, r.losses, r.spread)
    };
    assert_eq!(row(2), (2, 1, 260), "C: the cap holds a game to 300");
    assert_eq!(row(5), (2, 1, 30), "F: a forfeit won counts +50");
    assert_eq!(row(4), (2, 1, -10), "E: a forfeit lost counts -50");
    assert_eq!(row(0), (2, 0, 0));
    assert_eq!(row(3), (2, 1, -280));
    // Two draws (no loss) rank above a win and a loss; then spread; A and B level: by seed.
    assert_eq!(s.ranked, [p(0), p(1), p(2), p(5), p(4), p(3)]);
}

#[test]
fn who_goes_first_is_who_has_gone_first_fewer_times() {
    let mut d = field(4, &[Method::RoundRobin; 3], Controls { seed: 9, ..Controls::default() });
    for round in 0..3 {
        d.pair(round).unwrap();
        play(&mut d, round, |_, _| 1);
    }
    // Three games each: the first mover balances to at most 2 - 1.
    let s = Standings::of(&d);
    for i in 0..4 {
        assert!((1..=2).contains(&s.record(p(i)).firsts), "player {i}: {}", s.record(p(i)).firsts);
    }
    // Round 2's games each put a player who went second in round 1 first, where one can.
    let firsts_1: Vec<PlayerId> = d.rounds()[0]
        .pairings
        .as_ref()
        .unwrap()
        .iter()
        .filter_map(|l| match l {
            Pairing::Game { first, .. } => Some(*first),
            _ => None,
        })
        .collect();
    for line in d.rounds()[1].pairings.as_ref().unwrap() {
        if let Pairing::Game { first, second, .. } = line
            && firsts_1.contains(second)
        {
            assert!(firsts_1.contains(first), "{first} went second in round 1 yet second again");
        }
    }
}

#[test]
fn the_same_seed_pairs_the_same_way() {
    let make = |seed| {
        let mut d = field(10, &[Method::Random; 2], Controls { seed, ..Controls::default() });
        d.pair(0).unwrap();
        d.rounds()[0].pairings.clone()
    };
    assert_eq!(make(5), make(5));
    assert_ne!(make(5), make(6));
}

#[test]
fn bad_changes_are_refused_with_what_was_wrong() {
    let mut d = field(4, &[Method::Swiss, Method::Swiss, Method::Manual], Controls::default());
    assert_eq!(d.pair(1), Err(Error::OutOfOrder { round: 2, before: 1 }));
    assert_eq!(d.pair(5), Err(Error::NoSuchRound { round: 6, rounds: 3 }));
    d.pair(0).unwrap();
    assert_eq!(d.pair(0), Err(Error::PairedAlready { round: 1 }));
    assert_eq!(
        d.pair(1).unwrap_err().to_string(),
        "round 2 is paired by the standings, and round 1 has results to come: pairing 1 (Player C – Player A) and 1 more"
    );
    d.record(0, 0, GameResult::Scores([400, 300]), false).unwrap();
    assert_eq!(
        d.record(0, 0, GameResult::Scores([400, 301]), false),
        Err(Error::Finished { round: 1, pairing: 1 })
    );
    d.record(0, 0, GameResult::Scores([400, 301]), true).unwrap();
    assert_eq!(
        d.record(0, 7, GameResult::Scores([1, 0]), false),
        Err(Error::NoSuchPairing { round: 1, pairing: 8, pairings: 2 })
    );
    assert_eq!(
        d.record(0, 1, GameResult::Forfeit { winner: 2 }, false),
        Err(Error::NoSuchSeat { winner: 2 })
    );
    assert_eq!(d.record(1, 0, GameResult::Scores([1, 0]), false), Err(Error::NotPaired { round: 2 }));
    assert_eq!(
        d.set_pairings(1, vec![game(0, 1), game(1, 2)]),
        Err(Error::PairedTwice { player: p(1), round: 2 })
    );
    assert_eq!(d.set_pairings(1, vec![game(0, 1)]), Err(Error::Unpaired { player: p(2), round: 2 }));
    assert_eq!(
        d.set_pairings(1, vec![game(0, 1), game(2, 9)]),
        Err(Error::NoSuchPlayer { player: 10, players: 4 })
    );
    d.withdraw(p(3)).unwrap();
    assert_eq!(d.set_pairings(1, vec![game(0, 1), game(2, 3)]), Err(Error::Withdrawn { player: p(3) }));
    assert_eq!(
        d.set_pairings(1, vec![game(0, 1), game(2, 3)]).unwrap_err().to_string(),
        "player 4 has withdrawn and cannot be paired"
    );
    let mut m = field(2, &[Method::Manual], Controls::default());
    assert_eq!(m.pair(0), Err(Error::Manual { round: 1 }));
}

#[test]
fn a_withdrawn_player_is_paired_no_more() {
    let mut d = field(5, &[Method::Swiss; 2], Controls::default());
    d.pair(0).unwrap();
    play(&mut d, 0, |_, _| 10);
    d.withdraw(p(1)).unwrap();
    d.pair(1).unwrap();
    assert!(d.line_of(1, p(1)).is_none());
    assert_eq!(meetings(&d, 1).len(), 2, "four left: two games, no bye");
}

/// A division with a bye, a forfeit, a capped game and a round paired but not played.
fn played_division() -> Division {
    let controls = Controls { spread_cap: 250, ..Controls::default() };
    let mut d = field(5, &[Method::Swiss; 4], controls);
    for round in 0..3 {
        d.pair(round).unwrap();
        let lines = d.rounds()[round].pairings.clone().unwrap();
        for (k, line) in lines.iter().enumerate() {
            if let Pairing::Game { first, second, .. } = line {
                let result = if round == 1 && k == 0 {
                    GameResult::Forfeit { winner: 1 }
                } else {
                    GameResult::Scores([
                        350 + 37 * first.0 as i32 + 90 * k as i32,
                        330 + 41 * second.0 as i32,
                    ])
                };
                d.record(round, k, result, false).unwrap();
            }
        }
    }
    d.pair(3).unwrap();
    d
}

#[test]
fn tsh_export_then_import_keeps_the_standings_and_the_file() {
    let d = played_division();
    let text = tsh::export(&d);
    let back = tsh::import("A", &text, d.controls().clone(), &[]).unwrap();
    let (a, b) = (Standings::of(&d), Standings::of(&back));
    assert_eq!(a.ranked, b.ranked);
    for i in 0..5 {
        let (x, y) = (a.record(p(i)), b.record(p(i)));
        assert_eq!((x.win_points, x.losses, x.spread), (y.win_points, y.losses, y.spread), "player {i}");
    }
    assert_eq!(tsh::export(&back), text);
    // Four rounds paired, three played: four opponents, three scores (four with round 4's bye),
    // four p12 entries and four boards a line.
    for line in text.lines() {
        let fields: Vec<&str> = line.split(';').collect();
        // Name, scores, p12, board, and a forfeit's own field where the player had one.
        assert!(fields.len() == 4 || fields[4].trim_start().starts_with("forfeit "), "{line}");
        let head: Vec<&str> = fields[0].split_whitespace().collect();
        assert_eq!(head.len(), 2 + 1 + 4, "{line}"); // "Player X", rating, four opponents
        let bye_last = head[6] == "0";
        assert_eq!(fields[1].split_whitespace().count(), if bye_last { 4 } else { 3 }, "{line}");
        assert_eq!(fields[2].split_whitespace().count(), 1 + 4, "{line}");
        assert!(fields[3].starts_with(" board "), "{line}");
        assert_eq!(fields[3].split_whitespace().count(), 1 + 4, "{line}");
    }
}

#[test]
fn tsh_writes_a_known_division_exactly() {
    let mut d = field(3, &[Method::Manual; 2], Controls::default());
    d.set_pairings(0, vec![game(1, 0), Pairing::Bye { player: p(2), spread: 50 }]).unwrap();
    d.record(0, 0, GameResult::Scores([420, 388]), false).unwrap();
    d.set_pairings(1, vec![game(0, 2), Pairing::Bye { player: p(1), spread: 50 }]).unwrap();
    assert_eq!(
        tsh::export(&d),
        "Player A 2000 2 3; 388; p12 2 1; board 1 1\n\
         Player B 1999 1 0; 420 50; p12 1 0; board 1 0\n\
         Player C 1998 0 1; 50; p12 0 2; board 0 1\n"
    );
}

/// liwords' golden TSH output (pkg/tournament/testdata/wtf5-tsh.golden, its CSW division): a file
/// another program wrote, without p12.
const LIWORDS_CSW: &str = "\
jellomochas 1111111 4 3 2 4; 473 561 478 460
xeroexpert 239842 3 4 1 3; 258 251 358 170
curtis_smith 8008 2 1 4 2; 359 294 393 370
nchagti 90 1 2 3 1; 309 437 453 327
";

#[test]
fn tsh_reads_liwords_golden_output() {
    let d = tsh::import("CSW", LIWORDS_CSW, Controls::default(), &[Method::Swiss]).unwrap();
    assert_eq!(d.players()[0].name, "jellomochas");
    assert_eq!(d.players()[1].rating, Some(239842));
    assert_eq!(d.rounds().len(), 5, "four played and one to come");
    let s = Standings::of(&d);
    let names: Vec<&str> = s.ranked.iter().map(|p| d.players()[p.index()].name.as_str()).collect();
    assert_eq!(names, ["jellomochas", "curtis_smith", "nchagti", "xeroexpert"]);
    let rows: Vec<(u32, u32, i64)> = s
        .ranked
        .iter()
        .map(|&p| (s.record(p).win_points / 2, s.record(p).losses, s.record(p).spread))
        .collect();
    assert_eq!(rows, [(4, 0, 684), (2, 2, -26), (2, 2, -51), (0, 4, -607)]);
    // Written back: the same lines, with who went first (taken as the lower number) added.
    let back = tsh::export(&d);
    for (ours, theirs) in back.lines().zip(LIWORDS_CSW.lines()) {
        assert!(ours.starts_with(&format!("{theirs}; p12 ")), "{ours}");
    }
}

#[test]
fn tsh_refuses_a_file_that_does_not_hold_together() {
    let err = |t: &str| tsh::import("X", t, Controls::default(), &[]).unwrap_err().to_string();
    assert_eq!(
        err("Ann 1500 2; 400\nBo 1400 3; 300\nCy 1300 2; 0\n"),
        "line 1: round 1: player 2 does not name player 1 back"
    );
    assert_eq!(err("Ann 1500 2; 400 380\nBo 1400 1; 300\n"), "line 1: 2 scores for 1 rounds");
    assert_eq!(err("Ann; 400\n"), "line 1: no rating after the name");
    assert_eq!(err("Ann 1500 x; 400\n"), "line 1: opponent \"x\" is not a player number");
    assert_eq!(err("Ann 1500 2; 400\nBo 1400 1;\n"), "line 1: round 1: one score of the game with player 2");
    // A line too long to be a player's, or with more rounds than a division has, is refused
    // naming it (issue 72: a 1 MB line had been read as a player of no rounds).
    let long = format!("Ann 1500 2; 400\n{} 1400 1; 300\n", "B".repeat(1 << 20));
    assert_eq!(err(&long), format!("line 2: {} bytes: a line holds at most 16384", (1 << 20) + 12));
    let rounds = format!("Ann 1500{}\n", " 0".repeat(101));
    assert_eq!(err(&rounds), "line 1: 101 rounds: a division has at most 100");
}

/// A `.t` file as TSH reads it: the opponents and scores, and of the `;` fields only TSH's own
/// (`p12`, `board`, `off`, `lifeg`, `newr`); dawgref's (`forfeit`, `unpaired`, `late`, `bot`,
/// `reserved`) dropped, as TSH and the rating bodies' programs skip them.
fn tsh_only(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut fields = line.split(';');
        let head = fields.next().unwrap_or_default();
        let scores = fields.next().unwrap_or_default();
        out.push_str(head);
        out.push(';');
        out.push_str(scores);
        for field in fields {
            let tag = field.split_whitespace().next().unwrap_or_default();
            if ["p12", "board", "off", "lifeg", "newr"].contains(&tag) {
                out.push(';');
                out.push_str(field);
            }
        }
        out.push('\n');
    }
    out
}

/// `d` as TSH counts it: a line with no opponent and a spread of 0 (a bye of 0, or a forfeit
/// where forfeits are worth 0) is no game to TSH, where dawgref counts a draw: the one result a
/// `.t` file's own fields cannot hold (`tsh`'s module doc).
fn as_tsh_reads_it(d: &Division) -> Division {
    let zero_forfeits = d.controls().forfeit_spread == 0;
    let counted = |l: &Pairing| match l {
        Pairing::Bye { spread, .. } => *spread != 0,
        Pairing::Game { result: Some(GameResult::Forfeit { .. }), .. } => !zero_forfeits,
        Pairing::Game { .. } => true,
    };
    let rounds = d.rounds().iter().map(|r| Round {
        method: r.method,
        pairings: r.pairings.as_ref().map(|lines| lines.iter().filter(|l| counted(l)).cloned().collect()),
        // Assigned afresh by `restore` for the lines TSH counts.
        tables: None,
    });
    Division::restore(d.name(), d.players().to_vec(), rounds.collect(), d.controls().clone()).unwrap()
}

/// Each player's wins (as win points: a draw 1, a win 2), losses and spread, by id.
fn records(d: &Division) -> Vec<(u32, u32, i64)> {
    Standings::of(d).records.iter().map(|r| (r.win_points, r.losses, r.spread)).collect()
}

/// A withdrawal, a late entry absent from the rounds gone, a forfeit, a bye, and a game still to
/// be played before results after it: written as TSH writes them (a forfeit and a round in no
/// line with no opponent and the spread they count, ±50 and 0; a score still to come `00`), so
/// that TSH, reading only its own fields, counts what the division counts.
#[test]
fn tsh_reads_a_file_without_dawgrefs_fields_as_the_same_standings() {
    let mut d = field(4, &[Method::Manual; 3], Controls::default());
    d.set_pairings(0, vec![game(0, 1), game(2, 3)]).unwrap();
    d.record(0, 0, GameResult::Scores([400, 350]), false).unwrap(); // A +50; C v D to come
    assert_eq!(d.withdraw(p(1)), Ok(vec![]));
    d.set_pairings(1, vec![game(0, 2), Pairing::Bye { player: p(3), spread: 50 }]).unwrap();
    d.record(1, 0, GameResult::Scores([380, 390]), false).unwrap(); // C +10; D a bye, +50
    assert_eq!(d.add_late_player(Player::new("Player E", Some(1996)), Missed::Absent), Ok(p(4)));
    d.set_pairings(2, vec![game(0, 4), game(2, 3)]).unwrap();
    d.record(2, 0, GameResult::forfeit_by(1), false).unwrap(); // E forfeits to A: ±50
    d.record(2, 1, GameResult::Scores([410, 400]), false).unwrap(); // C +10 over D
    // A 2-1 +90; B 0-1 -50 (withdrawn: rounds 2 and 3 count nothing); C 2-0 +20 (round 1 to
    // come); D 1-1 +40; E 0-1 -50 (rounds 1 and 2 count nothing).
    let expected = [(4, 1, 90), (0, 1, -50), (4, 0, 20), (2, 1, 40), (0, 1, -50)];
    assert_eq!(records(&d), expected);
    let text = tsh::export(&d);
    let theirs = tsh::import("A", &tsh_only(&text), d.controls().clone(), &[]).unwrap();
    assert_eq!(records(&theirs), expected, "{}", tsh_only(&text));
    assert_eq!(
        text,
        "Player A 2000 2 3 0; 400 380 50; p12 1 1 0; board 1 1 1; forfeit 0 0 5/1/1\n\
         Player B 1999 1 0 0; 350 0 0; p12 2 0 0; board 1 0 0; unpaired 0 1 1; off 0\n\
         Player C 1998 4 1 4; 00 390 410; p12 1 2 1; board 2 1 2\n\
         Player D 1997 3 0 3; 00 50 400; p12 2 0 2; board 2 0 2\n\
         Player E 1996 0 0 0; 0 0 -50; p12 0 0 0; board 0 0 1; forfeit 0 0 1/2/0; unpaired 1 1 0\n"
    );
    // With dawgref's fields the file reads back as the same division.
    let back = tsh::import("A", &text, d.controls().clone(), &[]).unwrap();
    assert_eq!(canonical(&back), canonical(&d));
    assert_eq!(tsh::export(&back), text);
    // A file written before scores to come were `00` held the later scores in `late`: it reads
    // as it did.
    let before = text
        .replace("; 00 390 410; p12 1 2 1", "; ; p12 1 2 1; late - 390 410")
        .replace("; 00 50 400; p12 2 0 2", "; ; p12 2 0 2; late - 50 400");
    assert_eq!(tsh::import("A", &before, d.controls().clone(), &[]).unwrap(), back);

    // A bye of 0 is a draw here; TSH counts a round with no opponent and no spread as no game
    // (unless its configuration says `zero_byes_tie`), and no field of its own says otherwise:
    // dawgref's `unpaired 0` keeps the bye for dawgref.
    let mut z = field(3, &[Method::Manual], Controls::default());
    z.set_pairings(0, vec![game(0, 1), Pairing::Bye { player: p(2), spread: 0 }]).unwrap();
    z.record(0, 0, GameResult::Scores([400, 350]), false).unwrap();
    let text = tsh::export(&z);
    assert_eq!(text.lines().nth(2), Some("Player C 1998 0; 0; p12 0; board 0; unpaired 0"));
    let back = tsh::import("A", &text, z.controls().clone(), &[]).unwrap();
    assert_eq!(records(&back)[2], (1, 0, 0), "a draw, with dawgref's field");
    let theirs = tsh::import("A", &tsh_only(&text), z.controls().clone(), &[]).unwrap();
    assert_eq!(records(&theirs)[2], (0, 0, 0), "no game, as TSH reads it");
    assert_eq!(records(&theirs), records(&as_tsh_reads_it(&z)));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// With as many players as twice the rounds, a Swiss division never needs a repeat, and
    /// in its second round everyone meets their own score group or the next.
    #[test]
    fn swiss_makes_no_repeat_and_keeps_to_score_groups(
        half in 3usize..8,
        margins in proptest::collection::vec(-200i32..200, 64),
    ) {
        let n = 2 * half;
        let rounds = half;
        let mut d = field(n, &vec![Method::Swiss; rounds], Controls::default());
        let mut k = 0;
        for round in 0..rounds {
            let standings = Standings::of(&d);
            d.pair(round).unwrap();
            for m in meetings(&d, round) {
                prop_assert_eq!(standings.meetings(p(m[0]), p(m[1])), 0, "round {}: a repeat", round + 1);
                if round == 1 {
                    let mut groups: Vec<u32> = standings.records.iter().map(|r| r.win_points).collect();
                    groups.sort_unstable_by(|a, b| b.cmp(a));
                    groups.dedup();
                    let g = |x: u32| groups.iter().position(|&w| w == standings.record(p(x)).win_points).unwrap();
                    prop_assert!(g(m[0]).abs_diff(g(m[1])) <= 1, "round 2: {:?} more than a group apart", m);
                }
            }
            let lines = d.rounds()[round].pairings.clone().unwrap();
            for (j, line) in lines.iter().enumerate() {
                if matches!(line, Pairing::Game { .. }) {
                    let m = margins[k % margins.len()];
                    k += 1;
                    d.record(round, j, GameResult::Scores([400 + m, 400]), false).unwrap();
                }
            }
        }
    }
}

/// One director's call on a division, as the state machine below draws them.
#[derive(Clone, Debug)]
enum Op {
    Pair,
    /// The director's own pairs for the next round (or to replace the last one's), from a shuffle.
    SetPairings(u64),
    /// A result for the n-th game still to be played (mod their count): scores, or a forfeit.
    Record {
        nth: usize,
        scores: [i32; 2],
        forfeit: Option<usize>,
    },
    /// A played game's result replaced.
    Correct {
        nth: usize,
        scores: [i32; 2],
    },
    Withdraw(u32),
    Add,
    /// A round added at the end, by its method.
    AddRound(Method),
    /// The last n rounds taken off.
    RemoveRounds(usize),
    /// A late entry: absent from the rounds paired, or a bye of this spread in each.
    AddLate(Option<i32>),
    Reenter(u32),
    /// The last round paired unpaired, or (false) the one before it.
    Unpair(bool),
    /// A player's table reserved (from the few tables a small division has, so they clash), or
    /// the reservation taken away.
    Reserve(u32, Option<u32>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::Pair),
        1 => any::<u64>().prop_map(Op::SetPairings),
        6 => (any::<usize>(), [200i32..600, 200i32..600], prop::option::weighted(0.2, 0usize..2))
            .prop_map(|(nth, scores, forfeit)| Op::Record { nth, scores, forfeit }),
        1 => (any::<usize>(), [200i32..600, 200i32..600]).prop_map(|(nth, scores)| Op::Correct { nth, scores }),
        1 => (0u32..14).prop_map(Op::Withdraw),
        1 => Just(Op::Add),
        1 => method().prop_map(Op::AddRound),
        1 => (1usize..3).prop_map(Op::RemoveRounds),
        1 => prop::option::of(-75i32..76).prop_map(Op::AddLate),
        1 => (0u32..14).prop_map(Op::Reenter),
        1 => any::<bool>().prop_map(Op::Unpair),
        1 => (0u32..14, prop::option::of(1u32..6)).prop_map(|(n, t)| Op::Reserve(n, t)),
    ]
}

fn method() -> impl Strategy<Value = Method> {
    prop_oneof![
        Just(Method::Swiss),
        Just(Method::KingOfTheHill),
        Just(Method::RoundRobin),
        Just(Method::Random),
        Just(Method::Manual),
        Just(Method::Factor(1)),
        Just(Method::InitialFontes(1)),
    ]
}

/// Every (round, line) of a game: played (`done`) or to be played.
fn games(d: &Division, done: bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (k, r) in d.rounds().iter().enumerate() {
        for (i, l) in r.pairings.iter().flatten().enumerate() {
            if let Pairing::Game { result, .. } = l
                && result.is_some() == done
            {
                out.push((k, i));
            }
        }
    }
    out
}

fn apply(d: &mut Division, op: &Op) -> Result<(), Error> {
    match *op {
        Op::Pair => d.pair(d.rounds_paired()).map(|_| ()),
        Op::SetPairings(seed) => {
            let mut active: Vec<PlayerId> = d.active().collect();
            let mut x = seed | 1;
            for i in (1..active.len()).rev() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                active.swap(i, (x % (i as u64 + 1)) as usize);
            }
            let mut lines: Vec<Pairing> =
                active.chunks(2).filter(|c| c.len() == 2).map(|c| game(c[0].0, c[1].0)).collect();
            if active.len() % 2 == 1 {
                lines.push(Pairing::Bye { player: active[active.len() - 1], spread: 50 });
            }
            let round = if seed % 3 == 0 { d.rounds_paired().saturating_sub(1) } else { d.rounds_paired() };
            d.set_pairings(round, lines)
        }
        Op::Record { nth, scores, forfeit } => {
            let open = games(d, false);
            if open.is_empty() {
                return Ok(());
            }
            let (k, i) = open[nth % open.len()];
            let result = match forfeit {
                Some(winner) => GameResult::Forfeit { winner },
                None => GameResult::Scores(scores),
            };
            d.record(k, i, result, false)
        }
        Op::Correct { nth, scores } => {
            let done = games(d, true);
            if done.is_empty() {
                return Ok(());
            }
            let (k, i) = done[nth % done.len()];
            d.record(k, i, GameResult::Scores(scores), true)
        }
        Op::Withdraw(n) => d.withdraw(PlayerId(n)).map(|_| ()),
        Op::Add => {
            let n = d.players().len();
            d.add_player(Player::new(format!("Late {}", letter(n)), Some(1200))).map(|_| ())
        }
        Op::AddRound(method) => d.add_rounds(&[method]),
        Op::RemoveRounds(n) => d.remove_rounds(n),
        Op::AddLate(spread) => {
            let n = d.players().len();
            let missed = spread.map_or(Missed::Absent, |spread| Missed::Byes { spread });
            d.add_late_player(Player::new(format!("Late {}", letter(n)), Some(1100)), missed).map(|_| ())
        }
        Op::Reenter(n) => d.reenter(PlayerId(n)),
        Op::Unpair(last) => d.unpair(d.rounds_paired().saturating_sub(if last { 1 } else { 2 })),
        Op::Reserve(n, table) => d.set_reserved_table(PlayerId(n), table),
    }
}

/// The standings recomputed from the results by the rules as written (a win 2 points, a draw
/// 1; a bye with a spread of 0 or more is a bye, a negative one an absence lost; a forfeit
/// ±the forfeit spread), beside the crate's own.
fn recomputed(d: &Division) -> Vec<(u32, u32, i64, u32)> {
    let mut r = vec![(0u32, 0u32, 0i64, 0u32); d.players().len()];
    let mut add = |p: PlayerId, spread: i64, bye: bool| {
        let e = &mut r[p.index()];
        e.0 += if spread > 0 {
            2
        } else if spread == 0 {
            1
        } else {
            0
        };
        e.1 += u32::from(spread < 0);
        e.2 += spread;
        e.3 += u32::from(bye);
    };
    for l in d.rounds().iter().flat_map(|r| r.pairings.iter().flatten()) {
        match *l {
            Pairing::Bye { player, spread } => add(player, i64::from(spread), spread >= 0),
            Pairing::Game { first, second, result: Some(result) } => {
                let s = match result {
                    GameResult::Scores([a, b]) => i64::from(a - b),
                    GameResult::Forfeit { winner: 0 } => i64::from(d.controls().forfeit_spread),
                    GameResult::Forfeit { .. } => -i64::from(d.controls().forfeit_spread),
                };
                add(first, s, false);
                add(second, -s, false);
            }
            Pairing::Game { result: None, .. } => {}
        }
    }
    r
}

/// A division's paired rounds as sets of lines with their tables (a `.t` file keeps who met whom
/// at which table, not the order of a round's lines).
fn canonical(d: &Division) -> Vec<Vec<String>> {
    d.rounds()
        .iter()
        .map_while(|r| Some(r.pairings.as_ref()?.iter().zip(r.tables.as_ref()?)))
        .map(|lines| {
            let mut v: Vec<String> = lines.map(|(l, t)| format!("{l:?} at {t}")).collect();
            v.sort();
            v
        })
        .collect()
}

fn check_invariants(d: &Division) {
    for (k, r) in d.rounds().iter().enumerate() {
        let mut seen = vec![false; d.players().len()];
        for p in r.pairings.iter().flatten().flat_map(|l| l.players()) {
            assert!(!std::mem::replace(&mut seen[p.index()], true), "{p} twice in round {}", k + 1);
        }
        // Tables while paired: one a line, a bye's 0, each game's its own.
        assert_eq!(r.tables.as_ref().map(Vec::len), r.pairings.as_ref().map(Vec::len), "round {}", k + 1);
        let mut tables = HashSet::new();
        for (line, &t) in r.pairings.iter().flatten().zip(r.tables.iter().flatten()) {
            match line {
                Pairing::Bye { .. } => assert_eq!(t, 0, "round {}: a bye at a table", k + 1),
                Pairing::Game { .. } => assert!(t >= 1 && tables.insert(t), "round {}: table {t}", k + 1),
            }
        }
    }
    for (k, i) in games(d, false) {
        let line = &d.rounds()[k].pairings.as_ref().unwrap()[i];
        for p in line.players() {
            assert!(
                !d.players()[p.index()].withdrawn,
                "{p} withdrawn, yet a game to play in round {}",
                k + 1
            );
        }
    }
    let s = Standings::of(d);
    let mine: Vec<(u32, u32, i64, u32)> =
        s.records.iter().map(|r| (r.win_points, r.losses, r.spread, r.byes)).collect();
    assert_eq!(mine, recomputed(d), "standings against a recomputation");
    let text = tsh::export(d);
    let back =
        tsh::import(d.name(), &text, d.controls().clone(), &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
    // Its players but their accounts: the server's binding, as a token is, never in a `.t` file.
    let without_accounts: Vec<Player> =
        d.players().iter().map(|p| Player { account: None, ..p.clone() }).collect();
    assert_eq!(back.players(), without_accounts, "{text}");
    assert_eq!(canonical(&back), canonical(d), "{text}");
    assert_eq!(tsh::export(&back), text);
}

/// The division the state machine below starts from: `n` players (the server's bots where
/// `bots` says, a registered bot's account for every fourth of the rest, lifetime games known
/// for two in three), rated by the system `n` picks (so every system is drawn), forfeits worth 75.
fn start(n: usize, methods: &[Method], bots: &[bool]) -> Division {
    let players = (0..n).map(|i| Player {
        bot: bots[i].then(|| "strong".to_string()),
        lifetime_games: (i % 3 != 0).then_some(i as u32 * 37),
        account: (!bots[i] && i % 4 == 1).then(|| format!("bot-{}", letter(i).to_lowercase())),
        ..Player::new(format!("Player {}", letter(i)), Some(2000 - i as u32))
    });
    let rating_system = RatingSystem::ALL[n % RatingSystem::ALL.len()];
    let controls = Controls { seed: 3, forfeit_spread: 75, rating_system, ..Controls::default() };
    Division::new("A", players.collect(), methods, controls)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Any sequence of a director's calls, each refused or made: a refused one changes nothing,
    /// and after each the division holds together, its standings are its results', and its
    /// `.t` file reads back as the same division (withdrawals, forfeits, byes, bots, who went
    /// first).
    #[test]
    fn any_sequence_of_calls_keeps_the_division_whole_and_its_file_true(
        n in 2usize..11,
        methods in prop::collection::vec(method(), 1..7),
        bots in prop::collection::vec(any::<bool>(), 11),
        ops in prop::collection::vec(op(), 1..40),
    ) {
        let mut d = start(n, &methods, &bots);
        for op in &ops {
            let before = d.clone();
            if apply(&mut d, op).is_err() {
                prop_assert_eq!(&d, &before, "a refused {:?} changed the division", op);
            }
            check_invariants(&d);
            let kept = serde_json::to_string(&d).unwrap();
            prop_assert_eq!(&serde_json::from_str::<Division>(&kept).unwrap(), &d, "kept as {}", kept);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Any division a director's calls make (byes, forfeits, withdrawals, late entries absent or
    /// with byes, corrections, results in out of order, every rating system): its `.t` file with
    /// only TSH's own fields reads as the same standings, each player's wins, losses and spread,
    /// as TSH counts them (a line with no opponent and a spread of 0 no game: `as_tsh_reads_it`).
    #[test]
    fn a_tsh_file_without_dawgrefs_fields_reads_as_the_divisions_standings(
        n in 2usize..11,
        methods in prop::collection::vec(method(), 1..7),
        bots in prop::collection::vec(any::<bool>(), 11),
        ops in prop::collection::vec(op(), 1..40),
    ) {
        let mut d = start(n, &methods, &bots);
        for op in &ops {
            let _ = apply(&mut d, op);
        }
        let text = tsh_only(&tsh::export(&d));
        let theirs =
            tsh::import(d.name(), &text, d.controls().clone(), &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
        prop_assert_eq!(records(&theirs), records(&as_tsh_reads_it(&d)), "{}", text);
    }
}

/// A division kept as text (as the server keeps it) reads back checked: one its methods could not
/// have made is refused, naming what is wrong.
#[test]
fn a_kept_division_that_breaks_its_rules_is_refused_by_name() {
    let mut d = field(4, &[Method::Manual, Method::Manual], Controls::default());
    d.set_pairings(0, vec![game(0, 1), game(2, 3)]).unwrap();
    d.record(0, 1, GameResult::Forfeit { winner: 0 }, false).unwrap();
    let kept = serde_json::to_string(&d).unwrap();
    assert_eq!(serde_json::from_str::<Division>(&kept).unwrap(), d);
    let refused = |from: &str, to: &str| {
        assert!(kept.contains(from), "{kept}");
        let e = serde_json::from_str::<Division>(&kept.replacen(from, to, 1)).unwrap_err();
        e.to_string().split(" at line").next().unwrap_or_default().to_string()
    };
    assert_eq!(refused(r#""second":1"#, r#""second":0"#), "round 1's pairing 1 pairs player 1 with themself");
    assert_eq!(refused(r#""second":1"#, r#""second":2"#), "player 3 is in two pairings of round 1");
    assert_eq!(
        refused(r#""second":1"#, r#""second":9"#),
        "the division has 4 players: there is no player 10"
    );
    assert_eq!(refused(r#""winner":0"#, r#""winner":2"#), "a forfeit's winner is seat 0 or 1, not 2");
    let unpaired =
        serde_json::to_string(&field(4, &[Method::Manual, Method::Manual], Controls::default())).unwrap();
    let (head, tail) = unpaired.rsplit_once(r#""pairings":null"#).unwrap();
    let e = serde_json::from_str::<Division>(&format!(r#"{head}"pairings":[]{tail}"#)).unwrap_err();
    assert!(e.to_string().starts_with("round 2 cannot be paired before round 1"), "{e}");
}

#[test]
fn swiss_round_one_pairs_the_top_half_against_the_bottom_half() {
    let mut d = field(8, &[Method::Swiss], Controls::default());
    d.pair(0).unwrap();
    assert_eq!(meetings(&d, 0), [[0, 4], [1, 5], [2, 6], [3, 7]]);
}

#[test]
fn an_absence_is_a_loss_and_no_bye() {
    let mut d = field(3, &[Method::Manual, Method::Swiss], Controls::default());
    d.set_pairings(0, vec![game(0, 1), Pairing::Bye { player: p(2), spread: -50 }]).unwrap();
    d.record(0, 0, GameResult::Scores([400, 380]), false).unwrap();
    let s = Standings::of(&d);
    assert_eq!((s.record(p(2)).byes, s.record(p(2)).losses, s.record(p(2)).spread), (0, 1, -50));
    // So the next bye is still theirs to have: the lowest ranked of the fewest byes.
    d.pair(1).unwrap();
    assert!(d.rounds()[1].pairings.as_ref().unwrap().contains(&Pairing::Bye { player: p(2), spread: 50 }));
}

#[test]
fn withdrawing_forfeits_the_games_paired_and_not_played() {
    let mut d = field(4, &[Method::Manual; 2], Controls::default());
    d.set_pairings(0, vec![game(0, 1), game(2, 3)]).unwrap();
    d.record(0, 1, GameResult::Scores([400, 300]), false).unwrap();
    assert_eq!(d.withdraw(p(0)), Ok(vec![(0, 0)]));
    assert_eq!(
        d.rounds()[0].pairings.as_ref().unwrap()[0],
        Pairing::Game { first: p(0), second: p(1), result: Some(GameResult::Forfeit { winner: 1 }) }
    );
    assert_eq!(d.set_pairings(0, vec![game(1, 2)]), Err(Error::HasResults { round: 1 }));
}

#[test]
fn tsh_names_it_cannot_hold_are_named() {
    for name in ["Bo;Baker", "#Cy Cole", "Di 1.5", "Ed 1+2", "Fy -3", " ", "\u{feff}Gus"] {
        assert!(tsh::name_problem(name).is_some(), "{name:?}");
    }
    for name in ["Ann Archer", "O'Neil-Smith", "Бо Бейкер", "Ed -"] {
        assert_eq!(tsh::name_problem(name), None, "{name:?}");
    }
    let text = "\u{feff}Ann Archer 1500 2; 400\nBo Baker 1400 1; 300\n";
    let d = tsh::import("A", text, Controls::default(), &[]).unwrap();
    assert_eq!(d.players()[0].name, "Ann Archer");
    let err = tsh::import("A", "Di 1.5 1500 0; 50\n", Controls::default(), &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 1: \"Di 1.5\": no word of a name starts with a digit (TSH reads it as the rating)"
    );
}

/// Who forfeited, by seat, both ways: the seat that showed wins.
#[test]
fn a_forfeit_names_the_seat_that_forfeited() {
    assert_eq!(GameResult::forfeit_by(0), GameResult::Forfeit { winner: 1 });
    assert_eq!(GameResult::forfeit_by(1), GameResult::Forfeit { winner: 0 });
    for seat in [0, 1] {
        assert_eq!(GameResult::forfeit_by(seat).forfeiter(), Some(seat));
    }
    assert_eq!(GameResult::Scores([400, 350]).forfeiter(), None);
}

/// A player's rating is kept as TSH and the wire write it, 0 for an unrated player, so a record
/// written before `None` meant unrated reads the same, and one written now reads back.
#[test]
fn an_unrated_player_is_kept_as_a_rating_of_0_and_read_back_as_none() {
    let unrated = Player::new("New", None);
    let json = serde_json::to_value(&unrated).unwrap();
    assert_eq!(json["rating"], 0);
    assert_eq!(serde_json::from_value::<Player>(json).unwrap(), unrated);
    let rated: Player =
        serde_json::from_str(r#"{"name":"Ann","rating":1500,"withdrawn":false,"bot":null}"#).unwrap();
    assert_eq!(rated, Player::new("Ann", Some(1500)));
}

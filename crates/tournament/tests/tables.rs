//! Tables (TSH's boards): assigned when a round is paired, by hand or by its method, in the
//! order of its lines, a reserved table kept for its player whenever no earlier line has it;
//! byes at none; taken away with the pairings; kept in a stored division (and assigned to one
//! kept before tables were) and in its `.t` file, with the reservations.

use dawgref_tournament::tsh;
use dawgref_tournament::{
    Controls, Division, Error, GameResult, MAX_TABLE, Method, Missed, Pairing, Player, PlayerId,
};
use proptest::prelude::*;
use std::collections::HashSet;

fn field(n: usize, methods: &[Method]) -> Division {
    let players = (0..n).map(|i| Player::new(format!("Player {}", letter(i)), Some(2000 - i as u32)));
    Division::new("A", players.collect(), methods, Controls::default())
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

fn bye(player: u32) -> Pairing {
    Pairing::Bye { player: p(player), spread: 50 }
}

fn tables(d: &Division, round: usize) -> Option<Vec<u32>> {
    d.rounds()[round].tables.clone()
}

/// Seven players by hand: the rule's two passes, a conflict between two reservations of one
/// table, a reservation of a table beyond the round's count, and what a change does to rounds
/// paired before it.
#[test]
fn tables_go_to_reservations_first_then_lowest_first_in_the_order_of_the_lines() {
    let mut d = field(7, &[Method::Manual; 4]);
    d.set_reserved_table(p(5), Some(1)).unwrap();
    d.set_reserved_table(p(2), Some(7)).unwrap();
    d.set_pairings(0, vec![game(0, 1), game(2, 3), game(4, 5), bye(6)]).unwrap();
    // Line 2 keeps C's 7 (tables 4 to 6 empty), line 3 F's 1; line 1 the lowest left, 2.
    assert_eq!(tables(&d, 0), Some(vec![2, 7, 1, 0]));
    assert_eq!((d.table(0, 0), d.table(0, 1), d.table(0, 2)), (Some(2), Some(7), Some(1)));
    assert_eq!(d.table(0, 3), None, "a bye has no table");
    assert_eq!(d.table(0, 4), None, "no line 5");
    assert_eq!(d.table(1, 0), None, "round 2 is not paired");
    assert_eq!(d.table(9, 0), None, "no round 10");

    // A and E both reserve 3, as TSH lets two players: the first line holding one of them
    // takes it; E's line then tries F's 1.
    d.set_reserved_table(p(0), Some(3)).unwrap();
    d.set_reserved_table(p(4), Some(3)).unwrap();
    assert_eq!(tables(&d, 0), Some(vec![2, 7, 1, 0]), "round 1's tables stand");
    d.set_pairings(1, vec![game(0, 1), game(4, 5), game(2, 3), bye(6)]).unwrap();
    assert_eq!(tables(&d, 1), Some(vec![3, 1, 7, 0]));
    // When the two meet, their line has it.
    d.set_pairings(2, vec![game(1, 2), game(4, 0), game(6, 5), bye(3)]).unwrap();
    assert_eq!(tables(&d, 2), Some(vec![7, 3, 1, 0]));
    // E's line meets no free reservation of its own (3 is A's line's, 1 F's): the lowest left.
    d.set_pairings(2, vec![game(0, 1), game(5, 6), game(4, 3), bye(2)]).unwrap();
    assert_eq!(tables(&d, 2), Some(vec![3, 1, 2, 0]), "paired again: assigned afresh");

    // Unpaired: the tables go with the pairings.
    d.unpair(2).unwrap();
    assert_eq!(tables(&d, 2), None);
    d.set_reserved_table(p(0), None).unwrap();
    d.set_pairings(2, vec![game(0, 1), game(5, 6), game(4, 3), bye(2)]).unwrap();
    assert_eq!(tables(&d, 2), Some(vec![2, 1, 3, 0]), "A's reservation taken away, E keeps 3");
    assert_eq!(d.players()[0].reserved_table, None);
    assert_eq!(d.players()[4].reserved_table, Some(3));

    // A late entry's byes in the rounds gone have no table; the games keep theirs.
    d.add_late_player(Player::new("Hal Late", Some(1500)), Missed::Byes { spread: -50 }).unwrap();
    assert_eq!(tables(&d, 0), Some(vec![2, 7, 1, 0, 0]));
    assert_eq!(tables(&d, 2), Some(vec![2, 1, 3, 0, 0]));
}

#[test]
fn a_reserved_table_is_one_to_the_most_tables_and_a_players() {
    let mut d = field(4, &[Method::Swiss]);
    for table in [0, MAX_TABLE + 1] {
        let e = d.set_reserved_table(p(1), Some(table)).unwrap_err();
        assert_eq!(e, Error::NoSuchTable { table });
        assert_eq!(e.to_string(), format!("table {table}: tables are numbered 1 to 5000"));
    }
    assert_eq!(d.set_reserved_table(p(4), Some(1)), Err(Error::NoSuchPlayer { player: 5, players: 4 }));
    assert_eq!(d.players()[1].reserved_table, None, "nothing changed");
    d.set_reserved_table(p(1), Some(MAX_TABLE)).unwrap();
    d.set_reserved_table(p(2), Some(2)).unwrap();
    // Swiss round 1 by seed: A v C, B v D, C's 2 kept; B's 5000 kept over the lowest left.
    d.pair(0).unwrap();
    let at = |player: u32| {
        let (i, _) = d.line_of(0, p(player)).unwrap();
        d.table(0, i).unwrap()
    };
    assert_eq!((at(0), at(1), at(2), at(3)), (2, MAX_TABLE, 2, MAX_TABLE));
}

/// The `.t` file: TSH's `board` field, a player's table each round (0 for a bye), and dawgref's
/// `reserved`; read back as the same tables and reservations.
#[test]
fn tsh_writes_each_rounds_table_and_the_reserved_table_and_reads_them_back() {
    let mut d = field(5, &[Method::Manual; 2]);
    d.set_reserved_table(p(3), Some(4)).unwrap();
    d.set_pairings(0, vec![game(0, 1), game(2, 3), bye(4)]).unwrap();
    d.record(0, 0, GameResult::Scores([420, 388]), false).unwrap();
    d.record(0, 1, GameResult::Scores([350, 351]), false).unwrap();
    d.set_pairings(1, vec![game(3, 4), game(0, 2), bye(1)]).unwrap();
    assert_eq!(tables(&d, 0), Some(vec![1, 4, 0]));
    assert_eq!(tables(&d, 1), Some(vec![4, 1, 0]));
    let text = tsh::export(&d);
    assert_eq!(
        text,
        "Player A 2000 2 3; 420; p12 1 1; board 1 1\n\
         Player B 1999 1 0; 388 50; p12 2 0; board 1 0\n\
         Player C 1998 4 1; 350; p12 1 2; board 4 1\n\
         Player D 1997 3 5; 351; p12 2 1; board 4 4; reserved 4\n\
         Player E 1996 0 4; 50; p12 0 2; board 0 4\n"
    );
    let back = tsh::import("A", &text, Controls::default(), &[]).unwrap();
    assert_eq!(back.players(), d.players());
    assert_eq!(back.players()[3].reserved_table, Some(4));
    // The file's lines come back in player order (A v B, C v D, E's bye; A v C, B's bye, D v E).
    assert_eq!(tables(&back, 0), Some(vec![1, 4, 0]));
    assert_eq!(tables(&back, 1), Some(vec![1, 0, 4]));
    assert_eq!(tsh::export(&back), text);

    // A file without boards (another program's, or TSH's before it showed the pairings) is
    // seated by the rule, with the reservations it holds; a board two games name goes to the
    // first, the other seated by the rule.
    let without = "Ann 1500 2 3; 400 390\n\
                   Bo 1400 1 4; 300 380\n\
                   Cy 1300 4 1; 350 370\n\
                   Di 1200 3 2; 360 360; reserved 1\n";
    let theirs = tsh::import("A", without, Controls::default(), &[]).unwrap();
    assert_eq!(tables(&theirs, 0), Some(vec![2, 1]), "A v B, C v D: Di's 1 kept");
    assert_eq!(tables(&theirs, 1), Some(vec![2, 1]), "A v C, B v D: Di's 1 kept");
    let clash = "Ann 1500 2; 400; board 3\n\
                 Bo 1400 1; 300; board 3\n\
                 Cy 1300 4; 350; board 3\n\
                 Di 1200 3; 360; board 3\n";
    assert_eq!(tables(&tsh::import("A", clash, Controls::default(), &[]).unwrap(), 0), Some(vec![3, 1]));
    let err = |t: &str| tsh::import("X", t, Controls::default(), &[]).unwrap_err().to_string();
    assert_eq!(err("Ann 1500 0; 50; board x\n"), "line 1: board \"x\" is not 0 or a table, 1 to 5000");
    assert_eq!(err("Ann 1500 0; 50; board 5001\n"), "line 1: board \"5001\" is not 0 or a table, 1 to 5000");
    assert_eq!(err("Ann 1500 0; 50; reserved 0\n"), "line 1: reserved \"0\" is not a table, 1 to 5000");
    assert_eq!(err("Ann 1500 0; 50; reserved\n"), "line 1: reserved \"\" is not a table, 1 to 5000");
}

/// A division kept before tables were (no `tables` in its rounds, no `reserved_table` in its
/// players) reads back with its tables assigned; one kept now writes neither where there is none.
#[test]
fn a_division_kept_before_tables_reads_back_with_them() {
    let mut d = field(5, &[Method::Swiss, Method::Swiss]);
    d.pair(0).unwrap();
    let mut kept = serde_json::to_value(&d).unwrap();
    assert!(kept["rounds"][1].get("tables").is_none(), "an unpaired round writes none");
    assert!(kept["players"][0].get("reserved_table").is_none(), "no reservation, none written");
    assert_eq!(kept["rounds"][0]["tables"], serde_json::json!([1, 2, 0]));
    kept["rounds"][0].as_object_mut().unwrap().remove("tables");
    let back: Division = serde_json::from_value(kept).unwrap();
    assert_eq!(tables(&back, 0), Some(vec![1, 2, 0]));
    assert_eq!(back, d);
}

/// A kept division whose tables do not fit its pairings is refused, naming what is wrong.
#[test]
fn a_kept_division_with_tables_that_do_not_fit_is_refused_by_name() {
    let mut d = field(5, &[Method::Manual, Method::Manual]);
    d.set_reserved_table(p(2), Some(3)).unwrap();
    d.set_pairings(0, vec![game(0, 1), game(2, 3), bye(4)]).unwrap();
    let kept = serde_json::to_string(&d).unwrap();
    assert!(kept.contains(r#""tables":[1,3,0]"#), "{kept}");
    let refused = |from: &str, to: &str| {
        assert!(kept.contains(from), "{kept}");
        let e = serde_json::from_str::<Division>(&kept.replacen(from, to, 1)).unwrap_err();
        e.to_string().split(" at line").next().unwrap_or_default().to_string()
    };
    let tables = r#""tables":[1,3,0]"#;
    assert_eq!(refused(tables, r#""tables":[3,3,0]"#), "round 1 has two games at table 3");
    assert_eq!(refused(tables, r#""tables":[1,3,2]"#), "round 1's pairing 3 is a bye, yet has table 2");
    assert_eq!(
        refused(tables, r#""tables":[0,3,0]"#),
        "round 1's pairing 1 has table 0: tables are numbered 1 to 5000"
    );
    assert_eq!(refused(tables, r#""tables":[1,3]"#), "round 1 has 3 lines and 2 tables");
    assert_eq!(
        refused(r#""pairings":null"#, r#""pairings":null,"tables":[]"#),
        "round 2 is not paired, yet has tables"
    );
    assert_eq!(
        refused(r#""reserved_table":3"#, r#""reserved_table":0"#),
        "table 0: tables are numbered 1 to 5000"
    );
}

/// A division with every round paired by its method (a manual round by a shuffle), every game
/// played, and the players' reserved tables as drawn (few tables, so they clash).
fn paired(n: usize, methods: &[Method], reserved: &[Option<u32>], seed: u64) -> Division {
    let mut d = field(n, methods);
    for (i, &table) in reserved.iter().take(n).enumerate() {
        d.set_reserved_table(p(i as u32), table).unwrap();
    }
    let mut x = seed | 1;
    for (k, method) in methods.iter().enumerate() {
        if *method == Method::Manual {
            let mut order: Vec<u32> = (0..n as u32).collect();
            for i in (1..order.len()).rev() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                order.swap(i, (x % (i as u64 + 1)) as usize);
            }
            let mut lines: Vec<Pairing> =
                order.chunks(2).filter(|c| c.len() == 2).map(|c| game(c[0], c[1])).collect();
            lines.extend((n % 2 == 1).then(|| bye(order[n - 1])));
            d.set_pairings(k, lines).unwrap();
        } else {
            d.pair(k).unwrap();
        }
        let lines = d.rounds()[k].pairings.clone().unwrap();
        for (i, line) in lines.iter().enumerate() {
            if let Pairing::Game { first, second, .. } = *line {
                let margin = ((first.0 * 7 + second.0 * 3 + k as u32) % 11) as i32 * 10 - 50;
                d.record(k, i, GameResult::Scores([400 + margin, 400]), false).unwrap();
            }
        }
    }
    d
}

/// Each round's tables as the rule says, checked from what it promises: one a line; a bye 0
/// (and no table); each game's at least 1 and its own; a game's line at its first player's
/// reserved table unless an earlier line has it, else its second player's unless an earlier
/// line has it; the others, in order, at the lowest tables left.
fn check_tables(d: &Division) -> Result<(), TestCaseError> {
    let reserved = |q: PlayerId| d.players()[q.index()].reserved_table;
    for (k, round) in d.rounds().iter().enumerate() {
        let (Some(lines), Some(tables)) = (&round.pairings, &round.tables) else {
            prop_assert!(round.pairings.is_none() && round.tables.is_none(), "round {}", k + 1);
            continue;
        };
        prop_assert_eq!(tables.len(), lines.len());
        let (mut seen, mut kept, mut rest) = (HashSet::new(), HashSet::new(), Vec::new());
        for (i, line) in lines.iter().enumerate() {
            if let Pairing::Bye { .. } = line {
                prop_assert_eq!(tables[i], 0);
                prop_assert_eq!(d.table(k, i), None);
                continue;
            }
            prop_assert!(tables[i] >= 1);
            prop_assert_eq!(d.table(k, i), Some(tables[i]));
            prop_assert!(seen.insert(tables[i]), "round {}: table {} twice", k + 1, tables[i]);
            let earlier = &tables[..i];
            match line.players().filter_map(reserved).find(|t| !earlier.contains(t)) {
                Some(t) => {
                    prop_assert_eq!(tables[i], t, "round {} line {}: a reservation free", k + 1, i + 1);
                    kept.insert(t);
                }
                None => rest.push(tables[i]),
            }
        }
        let lowest: Vec<u32> = (1..).filter(|t| !kept.contains(t)).take(rest.len()).collect();
        prop_assert_eq!(rest, lowest, "round {}: the lowest tables left", k + 1);
    }
    Ok(())
}

/// A paired round's lines with their tables, as a set (a `.t` file keeps who met whom at which
/// table, not the order of a round's lines).
fn lines_at_tables(d: &Division) -> Vec<Vec<String>> {
    (d.rounds().iter())
        .map_while(|r| Some(r.pairings.as_ref()?.iter().zip(r.tables.as_ref()?)))
        .map(|lines| {
            let mut v: Vec<String> = lines.map(|(l, t)| format!("{l:?} at {t}")).collect();
            v.sort();
            v
        })
        .collect()
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Every round paired by its method, any reservations: the tables keep the rule, are the
    /// same when the division is made again, survive its `.t` file (with the reservations) and
    /// are assigned the same to the division kept without them.
    #[test]
    fn every_round_paired_has_the_tables_the_rule_gives_kept_everywhere(
        n in 2usize..17,
        methods in prop::collection::vec(method(), 1..6),
        reserved in prop::collection::vec(prop::option::weighted(0.3, 1u32..9), 16),
        seed in any::<u64>(),
    ) {
        let d = paired(n, &methods, &reserved, seed);
        check_tables(&d)?;
        prop_assert_eq!(&paired(n, &methods, &reserved, seed), &d, "made again, the same");

        let text = tsh::export(&d);
        let back = tsh::import("A", &text, d.controls().clone(), &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
        prop_assert_eq!(back.players(), d.players(), "{}", text);
        prop_assert_eq!(lines_at_tables(&back), lines_at_tables(&d), "{}", text);

        let mut kept = serde_json::to_value(&d).unwrap();
        for round in kept["rounds"].as_array_mut().unwrap() {
            round.as_object_mut().unwrap().remove("tables");
        }
        let old: Division = serde_json::from_value(kept).unwrap();
        prop_assert_eq!(&old, &d, "kept without tables, read back with them");
    }
}

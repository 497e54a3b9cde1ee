//! A division's prizes against a division worked out by hand (each kind, ties, exclusive groups,
//! the reasons nobody takes a prize), the list's checks, and properties over generated divisions
//! against oracles written from TSH's rules as the module states them.

use dawgref_tournament::prizes::{
    self, Award, Claim, Class, Error, MAX_PRIZES, Prize, PrizeKind, PrizeList, Problem, Why, Winner,
};
use dawgref_tournament::statistics::Feat;
use dawgref_tournament::{
    Controls, Division, GameResult, Method, Missed, Pairing, Player, PlayerId, Standings, Statistics,
};
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};

fn p(i: u32) -> PlayerId {
    PlayerId(i)
}

fn game(first: u32, second: u32) -> Pairing {
    Pairing::Game { first: p(first), second: p(second), result: None }
}

/// Ann 1900, Bo 1750, Cy 1600, Di 1450, Ed unrated, Flo 1300; three manual rounds:
/// 1: Ann 450 – Bo 400, Cy 380 – Di 420, Ed 500 – Flo 350;
/// 2: Ann 410 – Cy 430, Bo 520 – Ed 400, Di 300 – Flo 360;
/// 3: Ann 480 – Di 330, Bo 440 – Flo 410, Cy 390 – Ed 460.
/// Standings: Ann 2-1 +180; Bo and Ed 2-1 +100 (tied, Bo first by seed); Cy 1-2 −90;
/// Flo 1-2 −120; Di 1-2 −170.
fn club() -> Division {
    let players = [("Ann", Some(1900)), ("Bo", Some(1750)), ("Cy", Some(1600)), ("Di", Some(1450))];
    let mut players: Vec<Player> = players.iter().map(|&(n, r)| Player::new(n, r)).collect();
    players.push(Player::new("Ed", None));
    players.push(Player::new("Flo", Some(1300)));
    let mut d = Division::new("A", players, &[Method::Manual; 3], Controls::default());
    let rounds = [
        [(0, 1, 450, 400), (2, 3, 380, 420), (4, 5, 500, 350)],
        [(0, 2, 410, 430), (1, 4, 520, 400), (3, 5, 300, 360)],
        [(0, 3, 480, 330), (1, 5, 440, 410), (2, 4, 390, 460)],
    ];
    for (k, lines) in rounds.iter().enumerate() {
        d.set_pairings(k, lines.iter().map(|&(a, b, _, _)| game(a, b)).collect()).unwrap();
        for (i, &(_, _, x, y)) in lines.iter().enumerate() {
            d.record(k, i, GameResult::Scores([x, y]), false).unwrap();
        }
    }
    d
}

fn class(name: &str, at_least: Option<u32>, below: Option<u32>, unrated: bool) -> Class {
    Class { name: name.into(), at_least, below, unrated }
}

fn place(place: u32) -> PrizeKind {
    PrizeKind::Place(place)
}

fn list(prizes: Vec<Prize>) -> PrizeList {
    PrizeList::new(prizes).unwrap()
}

fn awards(list: &PrizeList, d: &Division, bingos: Option<&[Option<u32>]>) -> Vec<Award> {
    prizes::award(list, d, &Standings::of(d), &Statistics::of(d), bingos)
}

fn taken(prize: usize, player: u32, claim: Claim, shared: bool) -> Award {
    Award { prize, winner: Winner::Taken { player: p(player), claim, shared } }
}

fn nobody(prize: usize, why: Why) -> Award {
    Award { prize, winner: Winner::Nobody(why) }
}

fn record(place: u32, win_points: u32, losses: u32, spread: i64) -> Claim {
    Claim::Record { place, win_points, losses, draws: 0, spread }
}

fn feat(round: usize, pairing: usize, player: u32, opponent: u32, score: i32, opponent_score: i32) -> Claim {
    Claim::Game(Feat { round, pairing, player: p(player), opponent: p(opponent), score, opponent_score })
}

/// Places, two classes, the high game, a high loss two share, the most bingos two share, and a
/// place nobody holds; the places and classes in one exclusive group, as NASPA events list them.
fn club_list() -> PrizeList {
    let b = class("Class B", None, Some(1700), true);
    let c = class("Class C", None, Some(1500), false);
    list(vec![
        Prize::new(place(1), "$100").exclusive("main"),
        Prize::new(place(2), "$60").exclusive("main"),
        Prize::new(place(3), "$30").exclusive("main"),
        Prize::new(PrizeKind::ClassPlace { class: b, place: 1 }, "$40").exclusive("main"),
        Prize::new(PrizeKind::ClassPlace { class: c, place: 1 }, "$25"),
        Prize::new(PrizeKind::HighGame, "$20"),
        Prize::new(PrizeKind::HighLoss, "$20"),
        Prize::new(PrizeKind::MostBingos, "$10"),
        Prize::new(place(7), "$5"),
    ])
}

#[test]
fn the_hand_worked_division_s_prizes_go_as_tsh_gives_them() {
    let d = club();
    let bingos = [Some(3), Some(5), Some(2), Some(1), Some(5), Some(0)];
    let got = awards(&club_list(), &d, Some(&bingos));
    assert_eq!(
        got,
        vec![
            // Ann 2-1 +180 is 1st.
            taken(0, 0, record(1, 4, 1, 180), false),
            // Bo and Ed are level at 2-1 +100: both 2nd, sharing 2nd place (no seed breaks it).
            taken(1, 1, record(2, 4, 1, 100), true),
            taken(1, 4, record(2, 4, 1, 100), true),
            // With 2nd shared nobody is 3rd: the 3rd place prize goes to the best placed 3rd or
            // below, Cy, 4th.
            taken(2, 2, record(4, 2, 2, -90), false),
            // Class B (under 1700, and unrated): Ed (1st in it) and Cy (2nd) have taken prizes of
            // the group; Flo, 3rd in it, takes it.
            taken(3, 5, record(3, 2, 2, -120), false),
            // Class C (under 1500, rated): Flo −120 over Di −170. Not exclusive: Flo takes a
            // second prize, as TSH allows.
            taken(4, 5, record(1, 2, 2, -120), false),
            // Bo's 520 against Ed in round 2 (pairing 2).
            taken(5, 1, feat(1, 1, 1, 4, 520, 400), false),
            // The losing scores: Bo 400, Cy 380, Flo 350; Ann 410, Ed 400, Di 300; Di 330, Flo
            // 410, Cy 390. Ann's and Flo's 410 share it, the earlier game first.
            taken(6, 0, feat(1, 0, 0, 2, 410, 430), true),
            taken(6, 5, feat(2, 1, 5, 1, 410, 440), true),
            // Bo and Ed have 5 each: shared, in standings order.
            taken(7, 1, Claim::Bingos(5), true),
            taken(7, 4, Claim::Bingos(5), true),
            nobody(8, Why::NoneAtPlace(7)),
        ]
    );
    assert_eq!(
        prizes::csv(&club_list(), &d, &got),
        "prize,description,value,player,name,achievement,note\n\
         1,1st place,$100,1,Ann,2-1 +180,\n\
         2,2nd place,$60,2,Bo,2-1 +100,shared\n\
         2,2nd place,$60,5,Ed,2-1 +100,shared\n\
         3,3rd place,$30,3,Cy,1-2 -90,\n\
         4,Class B: 1st place,$40,6,Flo,1-2 -120,\n\
         5,Class C: 1st place,$25,6,Flo,1-2 -120,\n\
         6,High game,$20,2,Bo,round 2: 520-400 v Ed,\n\
         7,High loss,$20,1,Ann,round 2: 410-430 v Cy,shared\n\
         7,High loss,$20,6,Flo,round 3: 410-440 v Bo,shared\n\
         8,Most bingos,$10,2,Bo,5 bingos,shared\n\
         8,Most bingos,$10,5,Ed,5 bingos,shared\n\
         9,7th place,$5,,,,no player is placed 7th or below\n"
    );
}

#[test]
fn a_prize_of_an_exclusive_group_passes_over_its_takers_to_the_next_in_line() {
    let d = club();
    let top = class("Top", Some(1900), None, false);
    let l = list(vec![
        Prize::new(place(2), "$60").exclusive("g"),
        // Bo (520) and Ed (500) have taken 2nd: Ann's 480 against Di in round 3 is next.
        Prize::new(PrizeKind::HighGame, "$20").exclusive("g"),
        // Only Ann is rated 1900 or more, and she has taken a prize of the group.
        Prize::new(PrizeKind::ClassPlace { class: top, place: 1 }, "$15").exclusive("g"),
        // Another group passes nobody over.
        Prize::new(PrizeKind::HighGame, "$5").exclusive("h"),
    ]);
    assert_eq!(
        awards(&l, &d, None),
        vec![
            taken(0, 1, record(2, 4, 1, 100), true),
            taken(0, 4, record(2, 4, 1, 100), true),
            taken(1, 0, feat(2, 0, 0, 3, 480, 330), false),
            nobody(2, Why::AllTaken("g".into())),
            taken(3, 1, feat(1, 1, 1, 4, 520, 400), false),
        ]
    );
    assert_eq!(
        Why::AllTaken("g".into()).to_string(),
        "everyone in line for it has taken a prize of exclusive group g"
    );
}

#[test]
fn before_any_result_every_prize_says_why_nobody_takes_it() {
    let lines: Vec<(usize, usize)> = (0..3).flat_map(|k| (0..3).map(move |i| (k, i))).collect();
    let d = club().without_results(&lines);
    let got = awards(&club_list(), &d, None);
    let whys: Vec<String> = got
        .iter()
        .map(|a| match &a.winner {
            Winner::Nobody(why) => why.to_string(),
            Winner::Taken { .. } => panic!("{a:?} taken before any result"),
        })
        .collect();
    let no_games = "no player it is open to has a game with scores";
    assert_eq!(
        whys,
        [
            no_games,
            no_games,
            no_games,
            no_games,
            no_games,
            no_games,
            "no game with scores has been lost",
            "bingo counts are not known (the games were not played on the server)",
            no_games,
        ]
    );
}

#[test]
fn prizes_are_live_the_standings_given_decide_them() {
    // After two rounds (round 3's results held back): Bo 1-1 +70 leads; Ann and Ed 1-1 +30.
    let d = club().without_results(&[(2, 0), (2, 1), (2, 2)]);
    let l = list(vec![Prize::new(place(1), "$100"), Prize::new(place(2), "$60")]);
    assert_eq!(
        awards(&l, &d, None),
        vec![
            taken(0, 1, record(1, 2, 1, 70), false),
            taken(1, 0, record(2, 2, 1, 30), true),
            taken(1, 4, record(2, 2, 1, 30), true),
        ]
    );
}

#[test]
fn bingos_are_awarded_only_when_every_count_that_matters_is_known() {
    let mut d = club();
    let l = list(vec![Prize::new(PrizeKind::MostBingos, "$10")]);
    // Cy's games were not on the server; Flo has no count at all (the list stops short).
    let counts = [Some(3), Some(5), None, Some(1), Some(5)];
    let got = awards(&l, &d, Some(&counts));
    assert_eq!(got, vec![nobody(0, Why::BingosNotKnown(vec![p(2), p(5)]))]);
    assert_eq!(
        Why::BingosNotKnown(vec![p(2), p(5)]).to_string(),
        "bingo counts are not known for player 3, player 6"
    );
    assert_eq!(awards(&l, &d, Some(&[Some(0); 6])), vec![nobody(0, Why::NoBingo)]);
    // A late entry who has played no game needs no count.
    d.add_late_player(Player::new("Gus", Some(1200)), Missed::Absent).unwrap();
    let counts = [Some(3), Some(5), Some(6), Some(1), Some(5), Some(0), None];
    assert_eq!(awards(&l, &d, Some(&counts)), vec![taken(0, 2, Claim::Bingos(6), false)]);
    assert_eq!(Claim::Bingos(1).text(&d), "1 bingo");
}

#[test]
fn a_withdrawn_player_keeps_what_their_games_won() {
    let mut d = club();
    assert_eq!(d.withdraw(p(0)).unwrap(), vec![]);
    let l = list(vec![Prize::new(place(1), "$100"), Prize::new(PrizeKind::HighLoss, "$20")]);
    assert_eq!(
        awards(&l, &d, None),
        vec![
            taken(0, 0, record(1, 4, 1, 180), false),
            taken(1, 0, feat(1, 0, 0, 2, 410, 430), true),
            taken(1, 5, feat(2, 1, 5, 1, 410, 440), true),
        ]
    );
}

#[test]
fn a_draw_counts_a_half_each_way_and_a_bye_or_forfeit_is_no_game() {
    // Ann and Bo draw 400-400; Cy has a bye and then beats Di by forfeit: no game with scores,
    // so no place (TSH's GamesPlayed), whatever the record.
    let players = ["Ann", "Bo", "Cy", "Di"].iter().map(|n| Player::new(*n, Some(1500))).collect();
    let mut d = Division::new("A", players, &[Method::Manual; 2], Controls::default());
    d.set_pairings(
        0,
        vec![
            game(0, 1),
            Pairing::Bye { player: p(2), spread: 50 },
            Pairing::Bye { player: p(3), spread: -50 },
        ],
    )
    .unwrap();
    d.record(0, 0, GameResult::Scores([400, 400]), false).unwrap();
    d.set_pairings(
        1,
        vec![game(2, 3), Pairing::Bye { player: p(0), spread: 0 }, Pairing::Bye { player: p(1), spread: 0 }],
    )
    .unwrap();
    d.record(1, 0, GameResult::forfeit_by(1), false).unwrap();
    let l = list(vec![Prize::new(place(1), "$100"), Prize::new(PrizeKind::HighGame, "$20")]);
    let got = awards(&l, &d, None);
    let draw = Claim::Record { place: 1, win_points: 2, losses: 0, draws: 2, spread: 0 };
    assert_eq!(
        got,
        vec![
            taken(0, 0, draw.clone(), true),
            taken(0, 1, draw.clone(), true),
            // A drawn score is a high game (TSH's highwin would take winning scores only).
            taken(1, 0, feat(0, 0, 0, 1, 400, 400), true),
            taken(1, 1, feat(0, 0, 1, 0, 400, 400), true),
        ]
    );
    assert_eq!(draw.text(&d), "1-1 +0");
    let half = Claim::Record { place: 1, win_points: 3, losses: 0, draws: 1, spread: 12 };
    assert_eq!(half.text(&d), "1.5-0.5 +12");
}

#[test]
fn a_list_is_refused_by_the_prize_that_is_wrong() {
    let refused = |prizes: Vec<Prize>| PrizeList::new(prizes).unwrap_err().to_string();
    let ok = Prize::new(place(1), "$100");
    assert_eq!(
        refused(vec![ok.clone(), Prize::new(place(0), "$5")]),
        "prize 2: place 0: places count from 1"
    );
    assert_eq!(
        refused(vec![Prize::new(place(5001), "$5")]),
        "prize 1: place 5001: a division has at most 5000 players"
    );
    let empty = class("Nobody", Some(1600), Some(1600), false);
    assert_eq!(
        PrizeList::new(vec![
            ok.clone(),
            ok.clone(),
            Prize::new(PrizeKind::ClassPlace { class: empty, place: 1 }, "$5")
        ]),
        Err(Error::Prize {
            number: 3,
            problem: Problem::EmptyClass { name: "Nobody".into(), at_least: 1600, below: 1600 }
        })
    );
    assert_eq!(
        refused(vec![Prize::new(
            PrizeKind::ClassPlace { class: class("Zero", None, Some(1), false), place: 1 },
            "$5"
        )]),
        "prize 1: class Zero: no rating is at least 1 and below 1, and it takes no unrated player"
    );
    // Unrated players alone make a class.
    let newcomers = class("Newcomers", None, Some(1), true);
    assert!(
        PrizeList::new(vec![Prize::new(PrizeKind::ClassPlace { class: newcomers, place: 1 }, "$5")]).is_ok()
    );
    assert_eq!(refused(vec![Prize::new(PrizeKind::HighGame, " ")]), "prize 1: its value is empty");
    assert_eq!(
        refused(vec![Prize::new(PrizeKind::HighGame, "$5\n$6")]),
        "prize 1: its value holds a line break or another control character"
    );
    assert_eq!(
        refused(vec![Prize::new(PrizeKind::HighGame, "x".repeat(101))]),
        "prize 1: its value is 101 characters: at most 100"
    );
    assert_eq!(refused(vec![ok.clone().exclusive("")]), "prize 1: its exclusive group is empty");
    assert_eq!(
        refused(vec![Prize::new(
            PrizeKind::ClassPlace { class: class("", None, None, false), place: 1 },
            "$5"
        )]),
        "prize 1: its class name is empty"
    );
    assert_eq!(
        refused(vec![ok.clone(); MAX_PRIZES + 1]),
        "a division has at most 500 prizes: this list has 501"
    );
    assert!(PrizeList::new(vec![ok.clone(); MAX_PRIZES]).is_ok());

    // Kept and read back as it was; a list written wrong is refused as it is read.
    let kept = serde_json::to_string(&club_list()).unwrap();
    assert_eq!(serde_json::from_str::<PrizeList>(&kept).unwrap(), club_list());
    let bad = r#"[{"kind":{"place":0},"what":"$5"}]"#;
    assert_eq!(
        serde_json::from_str::<PrizeList>(bad).unwrap_err().to_string(),
        "prize 1: place 0: places count from 1"
    );
}

#[test]
fn ordinals_are_as_a_prize_list_writes_them() {
    let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112].map(prizes::ordinal).to_vec();
    assert_eq!(
        got,
        [
            "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th",
            "112th"
        ]
    );
}

// ---- Properties over generated divisions ----

/// One game's result as generated: a forfeit (kind 0), a draw (kind 1) or the scores.
type Result3 = (i32, i32, u8);

/// A division of `ratings.len()` players paired by `method` for `rounds` rounds, each result
/// from `results` in turn, `withdrawals[k]` withdrawn after round `k` (mod the count), and the
/// last round's games from `open` on left to play (live).
fn generated(
    ratings: &[Option<u32>],
    method: Method,
    rounds: usize,
    results: &[Result3],
    withdrawals: &[Option<u32>],
    open: usize,
) -> Division {
    let players = ratings.iter().enumerate().map(|(i, &r)| Player::new(format!("P{i}"), r)).collect();
    let controls = Controls { seed: 7, ..Controls::default() };
    let mut d = Division::new("A", players, &vec![method; rounds], controls);
    let mut next = 0;
    for k in 0..rounds {
        if d.pair(k).is_err() {
            break;
        }
        let lines = d.rounds()[k].pairings.clone().unwrap();
        let games: Vec<usize> = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| matches!(l, Pairing::Game { .. }))
            .map(|(i, _)| i)
            .collect();
        for (j, &i) in games.iter().enumerate() {
            if k + 1 == rounds && j >= open {
                break;
            }
            let (a, b, kind) = results[next % results.len()];
            next += 1;
            let result = match kind {
                0 => GameResult::Forfeit { winner: usize::from(a < b) },
                1 => GameResult::Scores([a, a]),
                _ => GameResult::Scores([a, b]),
            };
            d.record(k, i, result, false).unwrap();
        }
        if let Some(w) = withdrawals.get(k).copied().flatten() {
            let _ = d.withdraw(p(w % ratings.len() as u32));
        }
    }
    d
}

/// Every game with scores as each player saw it: (player, score, opponent's score).
fn sides(d: &Division) -> Vec<(PlayerId, i32, i32)> {
    let mut out = Vec::new();
    for line in d.rounds().iter().flat_map(|r| r.pairings.iter().flatten()) {
        if let Pairing::Game { first, second, result: Some(GameResult::Scores([a, b])) } = *line {
            out.push((first, a, b));
            out.push((second, b, a));
        }
    }
    out
}

/// The takers of prize `i`, or None for nobody.
fn takers(awards: &[Award], i: usize) -> Option<Vec<PlayerId>> {
    let of: Vec<&Award> = awards.iter().filter(|a| a.prize == i).collect();
    match &of[..] {
        [Award { winner: Winner::Nobody(_), .. }] => None,
        _ => Some(
            of.iter()
                .map(|a| match a.winner {
                    Winner::Taken { player, .. } => player,
                    Winner::Nobody(_) => panic!("prize {i}: nobody beside a taker"),
                })
                .collect(),
        ),
    }
}

fn key(s: &Standings, q: PlayerId) -> (u32, i64, i64) {
    let r = s.record(q);
    (r.win_points, -i64::from(r.losses), r.spread)
}

/// TSH's place prize, written from its rules: among `eligible`, each player's place is 1 + those
/// with a strictly better record; the prize for place `n` goes to everyone at the least place
/// that is `n` or more.
fn place_oracle(s: &Standings, eligible: &[PlayerId], n: u32) -> Option<HashSet<PlayerId>> {
    let placed = |q: PlayerId| 1 + eligible.iter().filter(|&&o| key(s, o) > key(s, q)).count() as u32;
    let target = eligible.iter().map(|&q| placed(q)).filter(|&pl| pl >= n).min()?;
    Some(eligible.iter().copied().filter(|&q| placed(q) == target).collect())
}

fn method() -> impl Strategy<Value = Method> {
    prop_oneof![
        Just(Method::Swiss),
        Just(Method::RoundRobin),
        Just(Method::Random),
        Just(Method::KingOfTheHill),
        Just(Method::InitialFontes(1)),
    ]
}

fn results() -> impl Strategy<Value = Vec<Result3>> {
    prop::collection::vec((250i32..560, 250i32..560, 0u8..12), 1..80)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// With no exclusive groups: each place prize goes to the oracle's players (so to the
    /// standings' player at that place when nobody ties there); the high game to everyone who
    /// scored the division's highest score, which is the statistics'; the high loss likewise;
    /// the most bingos to everyone with the most. Every taker is a player, with a game with
    /// scores whether withdrawn or not; the awards are the same computed twice, and their CSV
    /// has a line each and the header.
    #[test]
    fn every_prize_goes_where_tshs_rules_send_it(
        ratings in prop::collection::vec(prop::option::weighted(0.8, 1000u32..2000), 2..11),
        method in method(),
        rounds in 1usize..6,
        results in results(),
        withdrawals in prop::collection::vec(prop::option::weighted(0.15, 0u32..11), 6),
        open in 0usize..6,
        counts in prop::collection::vec(prop::option::weighted(0.9, 0u32..4), 11),
    ) {
        let d = generated(&ratings, method, rounds, &results, &withdrawals, open);
        let (s, stats) = (Standings::of(&d), Statistics::of(&d));
        let n = d.players().len() as u32;
        let mut kinds: Vec<Prize> = (1..=n + 1).map(|k| Prize::new(place(k), format!("${k}"))).collect();
        kinds.push(Prize::new(PrizeKind::HighGame, "$20"));
        kinds.push(Prize::new(PrizeKind::HighLoss, "$20"));
        kinds.push(Prize::new(PrizeKind::MostBingos, "$10"));
        let l = list(kinds);
        let counts = &counts[..ratings.len()];
        let got = prizes::award(&l, &d, &s, &stats, Some(counts));

        let sides = sides(&d);
        let mut games: HashMap<PlayerId, u32> = HashMap::new();
        for &(q, _, _) in &sides {
            *games.entry(q).or_default() += 1;
        }
        let eligible: Vec<PlayerId> = s.ranked.iter().copied().filter(|q| games.contains_key(q)).collect();
        for k in 1..=n + 1 {
            let want = place_oracle(&s, &eligible, k);
            let got_k = takers(&got, k as usize - 1).map(|v| v.into_iter().collect::<HashSet<_>>());
            prop_assert_eq!(&got_k, &want, "place {}", k);
            // Nobody tied at the place, and everyone has played: the standings' player there.
            if eligible.len() == s.ranked.len() && (k as usize) <= s.ranked.len() {
                let at = s.ranked[k as usize - 1];
                if s.ranked.iter().filter(|&&q| key(&s, q) == key(&s, at)).count() == 1 {
                    prop_assert_eq!(got_k, Some(HashSet::from([at])), "place {} untied", k);
                }
            }
        }
        let i = n as usize + 1;
        // High game.
        let high = sides.iter().map(|&(_, a, _)| a).max();
        prop_assert_eq!(high, stats.high_game.map(|f| f.score));
        let want: Option<HashSet<PlayerId>> =
            high.map(|h| sides.iter().filter(|&&(_, a, _)| a == h).map(|&(q, _, _)| q).collect());
        prop_assert_eq!(takers(&got, i).map(|v| v.into_iter().collect()), want);
        // High loss.
        let loss = sides.iter().filter(|&&(_, a, b)| a < b).map(|&(_, a, _)| a).max();
        prop_assert_eq!(loss, stats.high_loss.map(|f| f.score));
        let want: Option<HashSet<PlayerId>> = loss
            .map(|h| sides.iter().filter(|&&(_, a, b)| a == h && a < b).map(|&(q, _, _)| q).collect());
        prop_assert_eq!(takers(&got, i + 1).map(|v| v.into_iter().collect()), want);
        // Most bingos: withheld while a player with games has no count.
        let unknown: Vec<PlayerId> = eligible.iter().copied().filter(|q| counts[q.index()].is_none()).collect();
        let bingo_awards: Vec<&Award> = got.iter().filter(|a| a.prize == i + 2).collect();
        if !unknown.is_empty() {
            let mut unknown = unknown;
            unknown.sort();
            prop_assert_eq!(&bingo_awards[0].winner, &Winner::Nobody(Why::BingosNotKnown(unknown)));
        } else {
            let most = eligible.iter().map(|q| counts[q.index()].unwrap()).max().filter(|&m| m > 0);
            let want: Option<HashSet<PlayerId>> =
                most.map(|m| eligible.iter().copied().filter(|q| counts[q.index()] == Some(m)).collect());
            prop_assert_eq!(takers(&got, i + 2).map(|v| v.into_iter().collect()), want);
        }

        for a in &got {
            if let Winner::Taken { player, claim, shared } = &a.winner {
                prop_assert!(player.index() < d.players().len());
                // Withdrawn or not (TSH passes nobody over for it), a taker has played.
                prop_assert!(games.contains_key(player), "{:?} has no game", a);
                if let Claim::Game(f) = claim {
                    prop_assert_eq!(f.player, *player);
                    let line = &d.rounds()[f.round].pairings.as_ref().unwrap()[f.pairing];
                    prop_assert!(line.players().any(|q| q == *player) && line.players().any(|q| q == f.opponent));
                }
                let of = got.iter().filter(|b| b.prize == a.prize).count();
                prop_assert_eq!(*shared, of > 1);
            }
        }
        prop_assert_eq!(&prizes::award(&l, &d, &s, &stats, Some(counts)), &got);
        prop_assert_eq!(prizes::csv(&l, &d, &got).lines().count(), got.len() + 1);
    }

    /// Places and class prizes in one exclusive group: nobody takes two of the group, and a
    /// class's 1st goes to the best-placed players of the class who have not taken an earlier
    /// prize of the group: every class member with a better record has taken one, and every
    /// member level with the takers and not passed over shares it.
    #[test]
    fn in_an_exclusive_group_a_class_prize_goes_to_the_best_placed_player_not_yet_given_one(
        ratings in prop::collection::vec(prop::option::weighted(0.8, 1000u32..2000), 2..11),
        method in method(),
        rounds in 1usize..6,
        results in results(),
        withdrawals in prop::collection::vec(prop::option::weighted(0.15, 0u32..11), 6),
        open in 0usize..6,
        tops in prop::collection::vec(1000u32..2100, 3),
        places in 1u32..4,
    ) {
        let d = generated(&ratings, method, rounds, &results, &withdrawals, open);
        let (s, stats) = (Standings::of(&d), Statistics::of(&d));
        let classes: Vec<Class> = tops
            .iter()
            .enumerate()
            .map(|(j, &top)| class(&format!("Class {j}"), None, Some(top), j == 0))
            .collect();
        let mut prizes_in: Vec<Prize> = (1..=places).map(|k| Prize::new(place(k), "$").exclusive("main")).collect();
        let first_class = prizes_in.len();
        for c in &classes {
            prizes_in.push(Prize::new(PrizeKind::ClassPlace { class: c.clone(), place: 1 }, "$").exclusive("main"));
        }
        let l = list(prizes_in);
        let got = prizes::award(&l, &d, &s, &stats, None);

        let mut seen = HashSet::new();
        for a in &got {
            if let Winner::Taken { player, .. } = a.winner {
                prop_assert!(seen.insert(player), "{:?} takes a second prize of the group", player);
            }
        }
        let has_games: HashSet<PlayerId> = sides(&d).iter().map(|&(q, _, _)| q).collect();
        for (j, c) in classes.iter().enumerate() {
            let i = first_class + j;
            let earlier: HashSet<PlayerId> = got
                .iter()
                .filter(|a| a.prize < i)
                .filter_map(|a| match a.winner { Winner::Taken { player, .. } => Some(player), _ => None })
                .collect();
            let members: Vec<PlayerId> = s
                .ranked
                .iter()
                .copied()
                .filter(|q| has_games.contains(q) && c.holds(d.players()[q.index()].rating))
                .collect();
            let open_to: Vec<PlayerId> = members.iter().copied().filter(|q| !earlier.contains(q)).collect();
            match takers(&got, i) {
                None => prop_assert!(open_to.is_empty(), "class {}: nobody, yet {:?} could", j, open_to),
                Some(ws) => {
                    let best = key(&s, ws[0]);
                    for &w in &ws {
                        prop_assert!(members.contains(&w) && !earlier.contains(&w));
                        prop_assert_eq!(key(&s, w), best);
                    }
                    for &q in &members {
                        if key(&s, q) > best {
                            prop_assert!(earlier.contains(&q), "class {}: {:?} is better placed", j, q);
                        }
                        if key(&s, q) == best && !earlier.contains(&q) {
                            prop_assert!(ws.contains(&q), "class {}: {:?} is level and left out", j, q);
                        }
                    }
                }
            }
        }
    }
}

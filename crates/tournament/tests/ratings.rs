//! Rating estimates against hand-worked cases from the published rules (../shared/RATINGS.md and
//! the descriptions it cites): each expected figure comes with the arithmetic that gives it.
//! E(a, b) = 1 − 1/(1 + e^(0.0031879·(a − b))) throughout.

use dawgref_tournament::ratings::{RatingSystem, estimates, estimates_by_round, expectation, performance};
use dawgref_tournament::{
    Controls, Division, GameResult, Method, Pairing, Player, PlayerId, zero_is_unrated,
};
use proptest::prelude::*;

/// A player rated `rating` (0: unrated, as the rating bodies' tables write it) with `games`
/// lifetime games (None: unknown).
fn player(name: &str, rating: u32, games: Option<u32>) -> Player {
    Player { lifetime_games: games, ..Player::new(name, zero_is_unrated::read(rating)) }
}

/// A division of `players` with `rounds` manual rounds rated by `system`, whose round `k` (from
/// 0) holds the games `played[k]`: (first, second, first's score, second's score), players from 0.
fn division(
    system: RatingSystem,
    players: Vec<Player>,
    rounds: usize,
    played: &[&[(u32, u32, i32, i32)]],
) -> Division {
    let controls = Controls { rating_system: system, ..Controls::default() };
    let mut d = Division::new("A", players, &vec![Method::Manual; rounds], controls);
    for (k, games) in played.iter().enumerate() {
        let mut lines: Vec<Pairing> = games
            .iter()
            .map(|&(a, b, _, _)| Pairing::Game { first: PlayerId(a), second: PlayerId(b), result: None })
            .collect();
        let paired: Vec<PlayerId> = lines.iter().flat_map(|l| l.players().collect::<Vec<_>>()).collect();
        for p in d.active().filter(|p| !paired.contains(p)).collect::<Vec<_>>() {
            lines.push(Pairing::Bye { player: p, spread: 0 });
        }
        d.set_pairings(k, lines).unwrap();
        for (i, &(_, _, a, b)) in games.iter().enumerate() {
            d.record(k, i, GameResult::Scores([a, b]), false).unwrap();
        }
    }
    d
}

#[test]
fn the_expectation_is_the_published_one() {
    // NASPA's description: a player rated 100 above the other is expected to win 57.9%.
    assert!((expectation(1800.0, 1700.0) - 0.57903).abs() < 5e-6);
    assert_eq!(expectation(1500.0, 1500.0), 0.5);
}

#[test]
fn a_win_over_a_higher_rated_player_with_acceleration_and_feedback() {
    // Ann 1500 beats Bo 1600, both with 100 lifetime games (multiplier 20 under 1800).
    // E(1500, 1600) = 0.42097: Ann's change 20 × (1 − 0.42097) = 11.581; acceleration
    // 11.581 − 5 × 1 game = 6.581 > 0, added: 1500 + 11.581 + 6.581 = 1518.16 → 1518.
    // Bo: 20 × (0 − 0.57903) = −11.581, plus Ann's feedback 6.581/20 = 0.329 a game:
    // 1600 − 11.581 + 0.329 = 1588.75 → 1589.
    let d = division(
        RatingSystem::Nsa2008,
        vec![player("Ann", 1500, Some(100)), player("Bo", 1600, Some(100))],
        3,
        &[&[(0, 1, 420, 380)]],
    );
    assert_eq!(estimates(&d), vec![Some(1518), Some(1589)]);
}

#[test]
fn unknown_lifetime_games_count_as_a_hundred() {
    // As the case above, lifetime games unknown: TSH takes 100, so the same figures.
    let d = division(
        RatingSystem::Nsa2008,
        vec![player("Ann", 1500, None), player("Bo", 1600, None)],
        3,
        &[&[(0, 1, 420, 380)]],
    );
    assert_eq!(estimates(&d), vec![Some(1518), Some(1589)]);
    // With 10 lifetime games each the multiplier is 30: Ann 30 × 0.57903 = 17.371, acceleration
    // 12.371: 1529.74 → 1530; Bo 1600 − 17.371 + 12.371/20 = 1583.25 → 1583.
    let d = division(
        RatingSystem::Nsa2008,
        vec![player("Ann", 1500, Some(10)), player("Bo", 1600, Some(10))],
        3,
        &[&[(0, 1, 420, 380)]],
    );
    assert_eq!(estimates(&d), vec![Some(1530), Some(1583)]);
}

#[test]
fn a_band_crossed_takes_each_part_at_its_own_multiplier() {
    // Cy 1790 beats Di and Ed, both 1900; all 100 lifetime games. E(1790, 1900) = 0.41322, so
    // Cy's excess is 2 − 2 × 0.41322 = 1.17356. At 20 that would end above 1800, where the
    // multiplier is 16: reaching 1800 takes 10/20 = 0.5 of it, the other 0.67356 goes at 16:
    // 1800 + 10.777 = 1810.777 (not 1790 + 23.471). Acceleration 1810.777 − 1790 − 10 = 10.777:
    // 1821.55 → 1822. Di and Ed: 1900 + 16 × (0 − 0.58678) = 1890.61, with feedback
    // 10.777/20 = 0.539: 1891.15 → 1891.
    let d = division(
        RatingSystem::Nsa2008,
        vec![player("Cy", 1790, Some(100)), player("Di", 1900, Some(100)), player("Ed", 1900, Some(100))],
        3,
        &[&[(0, 1, 400, 300)], &[(2, 0, 300, 400)]],
    );
    assert_eq!(estimates(&d), vec![Some(1822), Some(1891), Some(1891)]);
}

#[test]
fn a_newcomer_only_division_settles_by_the_bisection() {
    // Three newcomers, a round robin: Al beats Bea and Cid, Bea beats Cid. Each starts at 1500
    // (no rated opponent), then every pass finds each one's rating r where ΣE(r, opponents'
    // current values) equals the target (Al's 2 of 2 wins counts 95%: 1.9; Cid's 0 counts 5%:
    // 0.1), at least 500, at most the best opponent's value + 400 × the win rate. The first pass
    // gives Al 1900 (1500 + 400 × 2/2, the cap), Bea 1499 (1 win of 2 against two at 1500 is
    // r = 1500, whose bisection ends on the midpoint 1499), Cid 577 (2 × E(r, 1500) = 0.1 at
    // r = 576.4, the last midpoint 577). They settle after 22 passes at 1300, 900 and 500.
    let d = division(
        RatingSystem::Nsa2008,
        vec![player("Al", 0, None), player("Bea", 0, None), player("Cid", 0, None)],
        3,
        &[&[(0, 1, 400, 300)], &[(0, 2, 400, 300)], &[(1, 2, 400, 300)]],
    );
    assert_eq!(estimates(&d), vec![Some(1300), Some(900), Some(500)]);
    // Two newcomers who won one each: both at 1500; 2 × E(r, 1500) = 1 at r = 1500, whose
    // bisection ends on 1499; then against 1499 it ends on 1499: settled.
    let d = division(
        RatingSystem::Nsa2008,
        vec![player("Al", 0, None), player("Bea", 0, None)],
        2,
        &[&[(0, 1, 400, 300)], &[(1, 0, 400, 300)]],
    );
    assert_eq!(estimates(&d), vec![Some(1499), Some(1499)]);
}

#[test]
fn a_sweep_and_a_zero() {
    // Nan, a newcomer, beats three players rated 1500: 3 of 3 counts 2.85; 3 × E(r, 1500) = 2.85
    // at r = 2424, capped at the best opponent 1500 + 400 × 3/3 = 1900. Each 1500 (100 games)
    // loses to a 1900: 1500 − 20 × E(1500, 1900) = 1500 − 20 × 0.21838 = 1495.63 → 1496 (a
    // newcomer gives no feedback).
    let rated = |n| (0..n).map(|i| player(&format!("R{i}"), 1500, Some(100)));
    let sweep: Vec<Player> = std::iter::once(player("Nan", 0, None)).chain(rated(3)).collect();
    let d = division(
        RatingSystem::Nsa2008,
        sweep.clone(),
        3,
        &[&[(0, 1, 400, 300)], &[(0, 2, 400, 300)], &[(0, 3, 400, 300)]],
    );
    assert_eq!(estimates(&d), vec![Some(1900), Some(1496), Some(1496), Some(1496)]);
    // Zed loses all three: 0 counts 0.15; 3 × E(r, 1500) = 0.15 at r = 576.4, the bisection's
    // last midpoint 577. Each 1500 beat a 577: 1500 + 20 × (1 − 0.94990) = 1501.00 → 1501
    // (acceleration 1.002 − 5 is not positive).
    let d = division(
        RatingSystem::Nsa2008,
        sweep,
        3,
        &[&[(0, 1, 300, 400)], &[(0, 2, 300, 400)], &[(0, 3, 300, 400)]],
    );
    assert_eq!(estimates(&d), vec![Some(577), Some(1501), Some(1501), Some(1501)]);
}

#[test]
fn byes_and_forfeits_are_not_rated() {
    let players =
        || vec![player("Ann", 1500, Some(100)), player("Bo", 1600, Some(100)), player("Cy", 1700, None)];
    let played = division(RatingSystem::Nsa2008, players(), 3, &[&[(0, 1, 420, 380)]]);
    // The same game, with Cy's bye, then a round whose one game is a forfeit, and a bye of +50.
    let mut more = played.clone();
    more.set_pairings(
        1,
        vec![
            Pairing::Game { first: PlayerId(2), second: PlayerId(0), result: None },
            Pairing::Bye { player: PlayerId(1), spread: 50 },
        ],
    )
    .unwrap();
    more.record(1, 0, GameResult::Forfeit { winner: 0 }, false).unwrap();
    assert_eq!(estimates(&more), estimates(&played));
    // Cy, rated, played no rated game: the rating going in.
    assert_eq!(estimates(&played), vec![Some(1518), Some(1589), Some(1700)]);
    // A newcomer with no rated game has no estimate.
    let mut none = players();
    none[2].rating = None;
    assert_eq!(estimates(&division(RatingSystem::Nsa2008, none, 3, &[&[(0, 1, 420, 380)]]))[2], None);
}

#[test]
fn a_long_event_is_rated_in_segments() {
    // 17 rounds: two segments (16 < 17 − 1 + 1), split after round int(16/2) + 1 = 9. Ann and Bo
    // (1500, 100 games) meet every round and Ann wins all 17.
    // Segment 1, 9 games: Ann +20 × 4.5 = +90, acceleration 90 − 45 = 45: 1635; Bo −90 + 9
    // games × 45/20 = −69.75: 1430.25 → 1430.
    // Segment 2, 8 games from 1635 and 1430: E(1635, 1430) = 0.65780, Ann's excess 8 × 0.34220 =
    // 2.73757: +54.75, acceleration 54.75 − 40 = 14.75: 1704.50 → 1705 (int(x + 0.5));
    // Bo −54.75 + 8 × 14.75/20 = −48.85: 1381.15 → 1381.
    // (One segment would give 1755 and 1402.)
    let games: Vec<[(u32, u32, i32, i32); 1]> = (0..17).map(|_| [(0, 1, 400, 300)]).collect();
    let played: Vec<&[(u32, u32, i32, i32)]> = games.iter().map(|g| &g[..]).collect();
    let players = vec![player("Ann", 1500, Some(100)), player("Bo", 1500, Some(100))];
    let d = division(RatingSystem::Nsa2008, players, 17, &played);
    assert_eq!(estimates(&d), vec![Some(1705), Some(1381)]);
    // After each round (TSH's `newr`): after round 9, the first segment's figures.
    let by_round = estimates_by_round(&d);
    assert_eq!(by_round[0].len(), 17);
    assert_eq!((by_round[0][8], by_round[1][8]), (Some(1635), Some(1430)));
    assert_eq!((by_round[0][16], by_round[1][16]), (Some(1705), Some(1381)));
}

#[test]
fn the_floor_and_naspa2024_without_it() {
    // Ann and Bo, both rated 1 (100 games); Bo wins. Ann: 1 − 20 × 0.5 = −9; Bo: 1 + 10 = 11,
    // acceleration 10 − 5 = 5: 16, feedback 5/20 = 0.25 to Ann.
    // nsa2008: Ann floored to 1, + 0.25 = 1.25 → 1. naspa2024: −9 + 0.25 = −8.75 → int(−8.25) =
    // −8 (TSH's int truncates toward zero).
    let players = || vec![player("Ann", 1, Some(100)), player("Bo", 1, Some(100))];
    let d = division(RatingSystem::Nsa2008, players(), 3, &[&[(0, 1, 300, 400)]]);
    assert_eq!(estimates(&d), vec![Some(1), Some(16)]);
    let d = division(RatingSystem::Naspa2024, players(), 3, &[&[(0, 1, 300, 400)]]);
    assert_eq!(estimates(&d), vec![Some(-8), Some(16)]);
}

#[test]
fn a_club_event_divides_by_three_and_caps_at_fifty() {
    // Ann 1500 beats Bo 1600 (100 games): 11.581 / 3 = 3.860, no acceleration: 1503.86 → 1504;
    // Bo 1596.14 → 1596.
    let d = division(
        RatingSystem::NaspaClub,
        vec![player("Ann", 1500, Some(100)), player("Bo", 1600, Some(100))],
        3,
        &[&[(0, 1, 420, 380)]],
    );
    assert_eq!(estimates(&d), vec![Some(1504), Some(1596)]);
    // Ann (1500, 10 games: 30) beats a 2000 eight times: 30 × 8 × (1 − 0.16883) = 199.48, / 3 =
    // 66.49: 1566.49 → 1566, capped at 1500 + 50 = 1550. The 2000 (100 games: 10) has the excess
    // 8 × (0 − 0.83117) = −6.6494, which crosses the band: down to 1999 takes 1/10 = 0.1 of it,
    // the other −6.5494 goes at 16: 1894.21; a third of the change −105.79 is −35.26: 1964.74 →
    // 1965.
    let games: Vec<[(u32, u32, i32, i32); 1]> = (0..8).map(|_| [(0, 1, 400, 300)]).collect();
    let played: Vec<&[(u32, u32, i32, i32)]> = games.iter().map(|g| &g[..]).collect();
    let d = division(
        RatingSystem::NaspaClub,
        vec![player("Ann", 1500, Some(10)), player("Top", 2000, Some(100))],
        8,
        &played,
    );
    assert_eq!(estimates(&d), vec![Some(1550), Some(1965)]);
}

#[test]
fn absp_as_tsh_computes_it() {
    // TSH's ABSP example: P1 150, P2 140, P3 130. P1 beats P2 and P3 (round 3 a bye): (140 + 50
    // + 130 + 50) / 2 = 185. P2 loses to P1 (150 − 50), beats P3 (130 + 50): 140. P3 loses to
    // P1 (150, within 130 ± 40, − 50 = 100) and to P2 (140 − 50 = 90): 95.
    let players = vec![player("P1", 150, None), player("P2", 140, None), player("P3", 130, None)];
    let d = division(
        RatingSystem::Absp,
        players,
        3,
        &[&[(0, 1, 400, 350)], &[(0, 2, 450, 300)], &[(1, 2, 350, 300)]],
    );
    assert_eq!(estimates(&d), vec![Some(185), Some(140), Some(95)]);
    // The clamp: a 100 beating a 200 counts the 200 as 100 + 40 = 140: 190; the 200 losing to a
    // 100 counts it as 200 − 40 = 160: 110.
    let d = division(
        RatingSystem::Absp,
        vec![player("Low", 100, None), player("High", 200, None)],
        1,
        &[&[(0, 1, 400, 300)]],
    );
    assert_eq!(estimates(&d), vec![Some(190), Some(110)]);
    // A newcomer beats the 150 and loses to the 130: (150 + 50 + 130 − 50) / 2 = 140; the
    // newcomer's value is not clamped: the 150 gets 140 − 50 = 90, the 130 140 + 50 = 190. A
    // game with a score of 0 is not rated (the 150's against the 130 below).
    let d = division(
        RatingSystem::Absp,
        vec![player("New", 0, None), player("P1", 150, None), player("P3", 130, None)],
        3,
        &[&[(0, 1, 400, 350)], &[(2, 0, 400, 350)], &[(1, 2, 0, 300)]],
    );
    assert_eq!(estimates(&d), vec![Some(140), Some(90), Some(190)]);
    // Floors: a rated player at least 40, a newcomer at least 80.
    let d = division(
        RatingSystem::Absp,
        vec![player("Weak", 50, None), player("New", 0, None), player("Top", 60, None)],
        2,
        &[&[(0, 2, 100, 400)], &[(1, 2, 100, 400)]],
    );
    // Weak: 60 − 50 = 10 → 40. New: 60 − 50 = 10 → 80. Top: (50 + 50 + 80 + 50) / 2 = 115.
    assert_eq!(estimates(&d), vec![Some(40), Some(80), Some(115)]);
}

#[test]
fn no_system_no_estimates_and_a_performance_rating() {
    let d = division(
        RatingSystem::None,
        vec![player("Ann", 1500, None), player("Bo", 1600, None)],
        1,
        &[&[(0, 1, 420, 380)]],
    );
    assert_eq!(estimates(&d), vec![None, None]);
    // 1 win in 2 against 1500 and 1700: ΣE(r) = 1 at r = 1600, where the bisection's midpoints
    // 1500, 2250, 1875, 1687, 1593, 1640, 1616, 1604, 1598, 1601, 1599 end on 1600.
    assert_eq!(performance(1.0, &[1500.0, 1700.0]), Some(1600));
    assert_eq!(performance(0.0, &[]), None);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Estimates depend on the results in, not the order they came in: the same round-robin
    /// results entered in two orders give the same figures, in every system.
    #[test]
    fn estimates_do_not_depend_on_the_order_results_came_in(
        ratings in prop::collection::vec(prop_oneof![Just(0u32), 300u32..2200], 4..9),
        scores in prop::collection::vec((250i32..550, 250i32..550), 64),
        order in any::<u64>(),
        system in prop::sample::select(RatingSystem::ALL.to_vec()),
    ) {
        let n = ratings.len() as u32;
        let players: Vec<Player> = ratings.iter().enumerate()
            .map(|(i, &r)| player(&format!("P{i}"), r, (i % 3 == 0).then_some(i as u32 * 20)))
            .collect();
        let pairs: Vec<(u32, u32)> = (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).collect();
        let rounds = pairs.len().min(20);
        let controls = Controls { rating_system: system, ..Controls::default() };
        let mut base = Division::new("A", players, &vec![Method::Manual; rounds], controls);
        for (k, &(a, b)) in pairs.iter().enumerate().take(rounds) {
            let mut lines = vec![Pairing::Game { first: PlayerId(a), second: PlayerId(b), result: None }];
            for p in (0..n).filter(|&p| p != a && p != b) {
                lines.push(Pairing::Bye { player: PlayerId(p), spread: 0 });
            }
            base.set_pairings(k, lines).unwrap();
        }
        let enter = |keys: Vec<usize>| {
            let mut d = base.clone();
            for k in keys {
                d.record(k, 0, GameResult::Scores([scores[k].0, scores[k].1]), false).unwrap();
            }
            estimates(&d)
        };
        let forward: Vec<usize> = (0..rounds).collect();
        let mut shuffled = forward.clone();
        let mut state = order;
        for i in (1..shuffled.len()).rev() {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            shuffled.swap(i, (state >> 33) as usize % (i + 1));
        }
        prop_assert_eq!(enter(forward), enter(shuffled));
    }
}

//! A division's statistics against figures worked out by hand.

use dawgref_tournament::ratings::{RatingSystem, performance};
use dawgref_tournament::statistics::{Feat, PlayerFigures};
use dawgref_tournament::{Controls, Division, GameResult, Method, Pairing, Player, PlayerId, Statistics};

fn p(i: u32) -> PlayerId {
    PlayerId(i)
}

fn game(first: u32, second: u32) -> Pairing {
    Pairing::Game { first: p(first), second: p(second), result: None }
}

/// Ann 1800, Bo 1700, Cy 1650, Di 1500, three manual rounds:
/// 1: Ann 450 – Bo 380, Cy 390 – Di 410; 2: Ann 400 – Cy 420, Di 350 – Bo 500;
/// 3: Ann – Di, Di forfeits; Bo 360 – Cy 360.
fn club() -> Division {
    let players = [("Ann", 1800), ("Bo", 1700), ("Cy", 1650), ("Di", 1500)];
    let players = players.iter().map(|&(n, r)| Player::new(n, Some(r))).collect();
    let mut d = Division::new("a", players, &[Method::Manual; 3], Controls::default());
    let rounds = [[(0, 1), (2, 3)], [(0, 2), (3, 1)], [(0, 3), (1, 2)]];
    let results = [
        [GameResult::Scores([450, 380]), GameResult::Scores([390, 410])],
        [GameResult::Scores([400, 420]), GameResult::Scores([350, 500])],
        [GameResult::Forfeit { winner: 0 }, GameResult::Scores([360, 360])],
    ];
    for (k, (lines, results)) in rounds.iter().zip(results).enumerate() {
        d.set_pairings(k, lines.iter().map(|&(a, b)| game(a, b)).collect()).unwrap();
        for (i, result) in results.into_iter().enumerate() {
            d.record(k, i, result, false).unwrap();
        }
    }
    d
}

fn figures(games: u32, points: (i64, i64), high: i32, firsts: u32, rating: i32) -> PlayerFigures {
    PlayerFigures {
        games,
        points_for: points.0,
        points_against: points.1,
        high_game: Some(high),
        firsts,
        performance_rating: Some(rating),
    }
}

#[test]
fn a_divisions_records_and_each_players_figures_are_its_games_with_scores() {
    let s = Statistics::of(&club());
    // Five games with scores: the forfeit counts for none of the figures.
    assert_eq!(s.games, 5);
    let feat = |round, pairing, player, opponent, score, opponent_score| Feat {
        round,
        pairing,
        player: p(player),
        opponent: p(opponent),
        score,
        opponent_score,
    };
    // Bo's 500 against Di's 350 (round 2, pairing 2) is the high game and the biggest win (150);
    // with 850 between them, the high combined too (Di moved first).
    assert_eq!(s.high_game, Some(feat(1, 1, 1, 3, 500, 350)));
    assert_eq!(s.biggest_win, Some(feat(1, 1, 1, 3, 500, 350)));
    assert_eq!(s.high_combined, Some(feat(1, 1, 3, 1, 350, 500)));
    // The losing scores: Bo 380, Cy 390, Ann 400, Di 350 (a draw is no loss).
    assert_eq!(s.high_loss, Some(feat(1, 0, 0, 2, 400, 420)));
    // Performance ratings as TSH searches for them (integer bisection over 0..3000, the last
    // midpoint): Ann beat Bo (1700) and lost to Cy (1650): one point of two, 1675 by symmetry,
    // where the search ends on 1676. Bo lost to Ann (1800), beat Di (1500), drew Cy (1650): 1.5
    // of 3, 1650 by symmetry, where it ends on 1650. Di beat Cy (1650) and lost to Bo (1700):
    // 1676. Cy: 1.5 of 3 against 1500, 1800 and 1700, where the sum of expectancies is 1.5 at
    // 1667.29: 1668.
    assert_eq!(
        s.players,
        vec![
            figures(2, (850, 800), 450, 2, 1676),
            figures(3, (1240, 1160), 500, 1, 1650),
            figures(3, (1170, 1170), 420, 1, 1668),
            figures(2, (760, 890), 410, 1, 1676),
        ]
    );
    assert_eq!(s.players[1].average_for(), 1240.0 / 3.0);
    assert_eq!(s.players[3].average_against(), 445.0);
}

#[test]
fn a_division_before_any_result_has_no_records_and_no_performance() {
    let mut d = club();
    d = d.without_results(&[(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]);
    let s = Statistics::of(&d);
    assert_eq!(
        (s.games, s.high_game, s.high_loss, s.high_combined, s.biggest_win),
        (0, None, None, None, None)
    );
    assert_eq!(s.players[0], PlayerFigures::default());
    assert_eq!(s.players[0].average_for(), 0.0);
}

#[test]
fn a_performance_rating_solves_the_expectancy_as_tsh_does() {
    // Two wins of three against 1600s: E = 2/3 where r − 1600 = ln 2 / 0.0031879 = 217.43, the
    // search's last midpoint 1818.
    assert_eq!(performance(2.0, &[1600.0, 1600.0, 1600.0]), Some(1818));
    // A sweep counts 95%: E(r, 1600) + E(r, 1700) = 1.9 at r = 2576.5 (the search: 2577); no
    // wins 5%: 0.1 at 722.
    assert_eq!(performance(2.0, &[1600.0, 1700.0]), Some(2577));
    assert_eq!(performance(0.0, &[1600.0, 1700.0]), Some(722));
    assert_eq!(performance(0.0, &[]), None);
}

#[test]
fn an_unrated_opponent_counts_for_the_averages_and_not_for_the_performance() {
    let players = vec![Player::new("Ann", Some(1800)), Player::new("Newcomer", None)];
    let mut d = Division::new("a", players, &[Method::Manual], Controls::default());
    d.set_pairings(0, vec![game(1, 0)]).unwrap();
    d.record(0, 0, GameResult::Scores([380, 402]), false).unwrap();
    let s = Statistics::of(&d);
    assert_eq!(s.players[0], PlayerFigures { performance_rating: None, ..figures(1, (402, 380), 402, 0, 0) });
    // The newcomer lost to an 1800: no wins count 5%, E(r, 1800) = 0.05 at r = 876.4: 877.
    assert_eq!(s.players[1], figures(1, (380, 402), 380, 1, 877));
}

/// An ABSP division measures performance on the ABSP's scale: each rated game is worth the
/// opponent's rating (clamped to the player's own ±40 where the player is rated) +50 for a win,
/// −50 for a loss, and the performance is the mean over the games, rounded as TSH rounds
/// (`int(x + 0.5)`); not NASPA's expectancy, whose scale a field rated 140–205 is not on.
#[test]
fn an_absp_divisions_performance_ratings_are_the_mean_of_its_game_values() {
    let absp = Controls { rating_system: RatingSystem::Absp, ..Controls::default() };
    let players = [("Ann", 205), ("Bo", 180), ("Cy", 160), ("Di", 140)];
    let players = players.iter().map(|&(n, r)| Player::new(n, Some(r))).collect();
    let mut d = Division::new("a", players, &[Method::Manual; 3], absp.clone());
    let rounds = [[(0, 1), (2, 3)], [(0, 2), (1, 3)], [(0, 3), (1, 2)]];
    let results = [
        [GameResult::Scores([420, 380]), GameResult::Scores([350, 400])],
        [GameResult::Scores([400, 410]), GameResult::Scores([450, 300])],
        [GameResult::Scores([390, 370]), GameResult::Scores([360, 360])],
    ];
    for (k, (lines, results)) in rounds.iter().zip(results).enumerate() {
        d.set_pairings(k, lines.iter().map(|&(a, b)| game(a, b)).collect()).unwrap();
        for (i, result) in results.into_iter().enumerate() {
            d.record(k, i, result, false).unwrap();
        }
    }
    // Ann 205 beat Bo 180 (180, within 165..245: 230), lost to Cy 160 (clamped to 165: 115), beat
    // Di 140 (165: 215): 560 / 3 = 186.67, 187. Bo 180 lost to Ann 205 (within 140..220: 155),
    // beat Di 140 (190), drew Cy 160 (160): 505 / 3 = 168.33, 168. Cy 160 lost to Di 140 (90),
    // beat Ann 205 (clamped to 200: 250), drew Bo 180 (180): 520 / 3 = 173.33, 173. Di 140 beat
    // Cy 160 (within 100..180: 210), lost to Bo 180 (130) and Ann 205 (clamped to 180: 130):
    // 470 / 3 = 156.67, 157.
    let performances = |d: &Division| -> Vec<Option<i32>> {
        Statistics::of(d).players.iter().map(|f| f.performance_rating).collect()
    };
    assert_eq!(performances(&d), [Some(187), Some(168), Some(173), Some(157)]);

    // A newcomer's games are not clamped (no rating of their own to clamp to), an unrated
    // opponent has no rating to count, and a game with a score of 0 the ABSP does not rate.
    // New beat P1 150 (200) and lost to P3 130 (80): 140. P1's games: against New (unrated)
    // and a 0 against P3 (not rated); P3's likewise: no performance.
    let players = vec![Player::new("New", None), Player::new("P1", Some(150)), Player::new("P3", Some(130))];
    let mut d = Division::new("b", players, &[Method::Manual; 3], absp);
    let games = [(0, 1, [400, 350]), (2, 0, [400, 350]), (1, 2, [360, 0])];
    for (k, (a, b, scores)) in games.into_iter().enumerate() {
        let bye = (0..3).find(|&q| q != a && q != b).unwrap();
        d.set_pairings(k, vec![game(a, b), Pairing::Bye { player: p(bye), spread: 50 }]).unwrap();
        d.record(k, 0, GameResult::Scores(scores), false).unwrap();
    }
    assert_eq!(performances(&d), [Some(140), None, None]);
}

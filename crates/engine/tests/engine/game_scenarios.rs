//! Scripted games, one per rule corner: every challenge rule, a challenge after going out, a
//! phony bingo withdrawn, the per-word five-point bonus, triple challenges, the six-zero ending,
//! going out with three seats, and the clocks. Every figure is worked out in the comments.

use crate::common;

use common::{lexicon, rules};
use dawgref_engine::alphabet::Alphabet;
use dawgref_engine::game::{
    Action, ChallengeRule, ClockConfig, EndReason, EventKind, Game, GameConfig, GameError, Verdict,
};
use dawgref_engine::notation::parse_play;
use dawgref_engine::play::Problem;
use dawgref_engine::rack::Rack;
use dawgref_engine::rules::{Ruleset, RulesetKind};
use std::sync::Arc;

fn rack(s: &str) -> Rack {
    Rack::parse(s, Alphabet::english()).unwrap()
}

fn config(rule: ChallengeRule, seats: usize, tiles: Option<&str>) -> GameConfig {
    let mut r: Ruleset = (*rules(RulesetKind::english())).clone();
    if let Some(tiles) = tiles {
        for l in 0..26 {
            r.set_letter_count(l, 0);
        }
        r.blanks = 0;
        for t in rack(tiles).tiles() {
            let l = t.unwrap();
            r.set_letter_count(l, r.letter_count(l) + 1);
        }
    }
    let mut c = GameConfig::new(Arc::new(r), Arc::new(lexicon(RulesetKind::english()).clone()), 1);
    c.challenge = rule;
    c.seats = seats;
    c
}

fn game(rule: ChallengeRule, seats: usize, tiles: Option<&str>, racks: &[&str]) -> Game {
    let mut g = Game::new(config(rule, seats, tiles)).unwrap();
    g.stack_racks(&racks.iter().map(|r| rack(r)).collect::<Vec<_>>()).unwrap();
    g.check_invariants().unwrap();
    g
}

fn play(g: &mut Game, seat: usize, text: &str) -> Result<(), GameError> {
    let r = g.act(seat, Action::Play(parse_play(text, Alphabet::english()).unwrap()), 0);
    g.check_invariants().unwrap();
    r
}

fn kinds(g: &Game) -> Vec<String> {
    g.history()
        .iter()
        .map(|e| {
            let k = format!("{:?}", e.kind);
            let name = k.split([' ', '{', '(']).next().unwrap().to_string();
            format!("{}:{}:{}", e.seat, name, e.points)
        })
        .collect()
}

#[test]
fn single_phony_withdrawn() {
    let mut g = game(ChallengeRule::Single, 2, None, &["ACEGINT", "EEIOUSS"]);
    // GTAC: G2 T1 A1 C3 = 7, doubled on the centre.
    play(&mut g, 0, "8H GTAC").unwrap();
    assert_eq!((g.scores(), g.bag_len()), (&[14, 0][..], 82));
    let v = g.challenge(1, 0).unwrap();
    assert_eq!(v, Verdict { acceptable: false, invalid_words: None });
    assert_eq!(g.scores(), &[0, 0]);
    assert_eq!(g.rack(0).unwrap().to_string(Alphabet::english()), "ACEGINT");
    assert_eq!(g.bag_len(), 86);
    assert!(g.board().is_empty());
    assert_eq!((g.to_move(), g.scoreless_turns()), (1, 1));
    assert_eq!(kinds(&g), ["0:Play:14", "0:Challenged:0", "0:PhonyWithdrawn:-14"]);
    assert_eq!(g.challenge(1, 0), Err(GameError::NothingToChallenge));
    g.check_invariants().unwrap();
}

#[test]
fn verdict_names_words_only_when_the_game_says_so() {
    let mut c = config(ChallengeRule::Single, 2, None);
    c.reveal_invalid_words = true;
    let mut g = Game::new(c).unwrap();
    g.stack_racks(&[rack("ACEGINT"), rack("EEIOUSS")]).unwrap();
    play(&mut g, 0, "8H GTAC").unwrap();
    assert_eq!(g.challenge(1, 0).unwrap().invalid_words, Some(vec!["GTAC".to_string()]));
}

#[test]
fn single_failed_challenge_costs_nothing() {
    let mut g = game(ChallengeRule::Single, 2, None, &["ACEGINT", "EEIOUSS"]);
    play(&mut g, 0, "8H CAT").unwrap(); // (3 + 1 + 1) × 2
    assert_eq!(g.challenge(0, 0), Err(GameError::OwnPlay));
    assert!(g.challenge(1, 0).unwrap().acceptable);
    assert_eq!(g.scores(), &[10, 0]);
    assert_eq!(g.to_move(), 1);
    assert_eq!(kinds(&g), ["0:Play:10", "0:Challenged:0"]);
}

#[test]
fn double_failed_challenge_loses_the_next_turn() {
    let mut g = game(ChallengeRule::Double, 2, None, &["ACEGINT", "EEIOUSS"]);
    play(&mut g, 0, "8H CAT").unwrap();
    assert!(g.challenge(1, 0).unwrap().acceptable);
    assert_eq!(kinds(&g), ["0:Play:10", "0:Challenged:0", "1:TurnLost:0"]);
    assert_eq!((g.to_move(), g.turn(), g.scoreless_turns()), (0, 2, 1));
    assert_eq!(g.act(1, Action::Pass, 0), Err(GameError::NotYourTurn { seat: 1, to_move: 0 }));
}

#[test]
fn five_points_per_word_of_a_three_word_play() {
    let mut g = game(ChallengeRule::FivePoint, 2, None, &["AATTEIO", "EEIOUSS"]);
    play(&mut g, 0, "8H AT").unwrap(); // (1 + 1) × 2 = 4
    g.act(1, Action::Pass, 0).unwrap();
    // TA on row 9: T1 + A1×2 (9I double letter) = 3; AT down column H = 2; TA down column I
    // = 1 + 1×2 = 3. Total 8.
    play(&mut g, 0, "9H TA").unwrap();
    assert_eq!(g.scores(), &[12, 0]);
    assert!(g.challenge(1, 0).unwrap().acceptable);
    // Three words challenged: 3 × 5.
    assert_eq!(g.scores(), &[27, 0]);
    assert_eq!(kinds(&g)[3..], ["0:Challenged:0", "0:ChallengeBonus:15"]);
    assert_eq!(g.to_move(), 1);
}

#[test]
fn ten_points_per_challenge_option() {
    let mut c = config(ChallengeRule::TenPoint, 2, None);
    c.bonus_per_word = false;
    let mut g = Game::new(c).unwrap();
    g.stack_racks(&[rack("AATTEIO"), rack("EEIOUSS")]).unwrap();
    play(&mut g, 0, "8H AT").unwrap();
    g.act(1, Action::Pass, 0).unwrap();
    play(&mut g, 0, "9H TA").unwrap();
    g.challenge(1, 0).unwrap();
    assert_eq!(g.scores(), &[22, 0]);
}

#[test]
fn triple_challenge_decides_the_game() {
    let mut g = game(ChallengeRule::Triple, 2, None, &["ACEGINT", "EEIOUSS"]);
    play(&mut g, 0, "8H GTAC").unwrap();
    g.challenge(1, 0).unwrap();
    let o = g.outcome().unwrap();
    assert_eq!((o.reason, o.winners.clone()), (EndReason::LostChallenge(0), vec![1]));
    assert_eq!(g.act(1, Action::Pass, 0), Err(GameError::GameOver));

    let mut g = game(ChallengeRule::Triple, 2, None, &["ACEGINT", "EEIOUSS"]);
    play(&mut g, 0, "8H CAT").unwrap();
    g.challenge(1, 0).unwrap();
    let o = g.outcome().unwrap();
    assert_eq!(
        (o.reason, o.winners.clone(), o.scores.clone()),
        (EndReason::LostChallenge(1), vec![0], vec![10, 0])
    );
}

#[test]
fn void_refuses_phonies_at_submission() {
    let mut g = game(ChallengeRule::Void, 2, None, &["ACEGINT", "EEIOUSS"]);
    assert_eq!(
        play(&mut g, 0, "8H GTAC"),
        Err(GameError::InvalidPlay(vec![Problem::WordsNotInLexicon { words: vec!["GTAC".into()] }]))
    );
    assert!(g.history().is_empty());
    assert_eq!(g.rack(0).unwrap().to_string(Alphabet::english()), "ACEGINT");
    play(&mut g, 0, "8H CAT").unwrap();
    assert_eq!(g.challenge(1, 0), Err(GameError::ChallengesNotAllowed));
}

#[test]
fn phony_bingo_withdrawn() {
    let mut g = game(ChallengeRule::Double, 2, None, &["ABCDEFG", "EEIOUSS"]);
    // A1 B3 C3×2 (8D double letter) D2 E1 F4 G2 = 19, ×2 on the centre = 38, +50 for seven tiles.
    play(&mut g, 0, "8B ABCDEFG").unwrap();
    assert_eq!(g.scores(), &[88, 0]);
    assert_eq!(g.bingos(), [1, 0]);
    assert!(!g.challenge(1, 0).unwrap().acceptable);
    assert_eq!(g.scores(), &[0, 0]);
    // Withdrawn, it is no bingo.
    assert_eq!(g.bingos(), [0, 0]);
    assert_eq!(kinds(&g), ["0:Play:88", "0:Challenged:0", "0:PhonyWithdrawn:-88"]);
    assert_eq!(g.rack(0).unwrap().to_string(Alphabet::english()), "ABCDEFG");
    assert_eq!(g.to_move(), 1);
}

#[test]
fn a_bingo_challenged_and_good_stands() {
    let mut g = game(ChallengeRule::Single, 2, None, &["AEINRST", "EEIOUSS"]);
    play(&mut g, 0, "8H RETAINS").unwrap();
    assert!(g.challenge(1, 0).unwrap().acceptable);
    assert_eq!(g.bingos(), [1, 0]);
}

/// Ten tiles: seat 0 holds CATQXZJ, seat 1 SOD, the bag is empty from the start.
const SMALL: &str = "CATQXZJSOD";

#[test]
fn challenge_after_going_out() {
    let mut g = game(ChallengeRule::Double, 2, Some(SMALL), &["CATQXZJ", "SOD"]);
    assert_eq!(g.bag_len(), 0);
    play(&mut g, 0, "8H CAT").unwrap(); // 10
    // SOD down from 8K (1 + 1 + 2) and CATS across (3 + 1 + 1 + 1): 10. Seat 1 is out.
    play(&mut g, 1, "K8 SOD").unwrap();
    assert!(g.awaiting_final_challenge());
    assert_eq!(play(&mut g, 0, "7H QI"), Err(GameError::AcceptOrChallenge));
    assert!(g.challenge(0, 0).unwrap().acceptable);
    // The play stands and ends the game: QXZJ = 10 + 8 + 10 + 8 = 36 moves from seat 0 to seat 1.
    let o = g.outcome().unwrap();
    assert_eq!(
        (o.reason, o.scores.clone(), o.winners.clone()),
        (EndReason::WentOut(1), vec![-26, 46], vec![1])
    );
    assert_eq!(
        kinds(&g)[1..],
        ["1:Play:10", "1:Challenged:0", "1:EndRackPoints:36", "0:RackPenalty:-36", "1:GameOver:0"]
    );
    g.check_invariants().unwrap();
}

#[test]
fn phony_going_out_is_withdrawn_and_the_game_goes_on() {
    let mut g = game(ChallengeRule::Single, 2, Some(SMALL), &["CATQXZJ", "SOD"]);
    play(&mut g, 0, "8H CAT").unwrap();
    play(&mut g, 1, "K8 SDO").unwrap();
    assert!(g.awaiting_final_challenge());
    assert!(!g.challenge(0, 0).unwrap().acceptable);
    assert!(!g.awaiting_final_challenge());
    assert_eq!((g.scores(), g.to_move()), (&[10, 0][..], 0));
    assert_eq!(g.rack(1).unwrap().to_string(Alphabet::english()), "DOS");
    g.act(0, Action::Pass, 0).unwrap();
    play(&mut g, 1, "K8 SOD").unwrap();
    // The final pass accepts the play that went out.
    g.act(0, Action::Pass, 0).unwrap();
    let o = g.outcome().unwrap();
    assert_eq!((o.reason, o.scores.clone()), (EndReason::WentOut(1), vec![-26, 46]));
    g.check_invariants().unwrap();
}

#[test]
fn six_scoreless_turns_end_the_game_with_rack_penalties() {
    let mut g = game(ChallengeRule::Single, 2, None, &["AEIOUQZ", "BCDFGHJ"]);
    for turn in 0..6 {
        assert!(!g.is_over());
        g.act(turn % 2, Action::Pass, 0).unwrap();
    }
    // AEIOUQZ = 5 + 10 + 10 = 25; BCDFGHJ = 3 + 3 + 2 + 4 + 2 + 4 + 8 = 26.
    let o = g.outcome().unwrap();
    assert_eq!(
        (o.reason, o.scores.clone(), o.winners.clone()),
        (EndReason::ScorelessTurns, vec![-25, -26], vec![0])
    );
    assert_eq!(kinds(&g)[6..], ["0:RackPenalty:-25", "1:RackPenalty:-26", "1:GameOver:0"]);
    g.check_invariants().unwrap();
}

#[test]
fn exchanges_count_as_scoreless_and_respect_the_limit() {
    let mut g = game(ChallengeRule::Single, 2, None, &["AEIOUQZ", "BCDFGHJ"]);
    assert_eq!(g.act(0, Action::Exchange(rack("QQ")), 0), Err(GameError::NotOnRack("Q".into())));
    assert_eq!(g.act(0, Action::Exchange(Rack::new()), 0), Err(GameError::EmptyExchange));
    g.act(0, Action::Exchange(rack("QZ")), 0).unwrap();
    assert_eq!(g.scoreless_turns(), 1);
    assert_eq!(g.rack(0).unwrap().len(), 7);
    g.check_invariants().unwrap();
    // Below the limit (7 in the bag) an exchange is refused.
    let mut small = game(ChallengeRule::Single, 2, Some(SMALL), &["CATQXZJ", "SOD"]);
    assert_eq!(
        small.act(0, Action::Exchange(rack("Q")), 0),
        Err(GameError::ExchangeNotAllowed { bag: 0, limit: 7 })
    );
}

#[test]
fn going_out_with_three_seats() {
    let mut g = game(ChallengeRule::Single, 3, Some("CATQXZJ"), &["CAT", "QX", "ZJ"]);
    play(&mut g, 0, "8H CAT").unwrap();
    assert!(g.awaiting_final_challenge());
    g.act(1, Action::Pass, 0).unwrap();
    // Seat 0 collects QX (18) and ZJ (18); the others lose their own racks.
    let o = g.outcome().unwrap();
    assert_eq!(
        (o.reason, o.scores.clone(), o.winners.clone()),
        (EndReason::WentOut(0), vec![46, -18, -18], vec![0])
    );
    g.check_invariants().unwrap();
}

#[test]
fn erudit_scoreless_limit_is_twice_the_players() {
    let kind = RulesetKind::erudit();
    let mut c = GameConfig::new(rules(kind), Arc::new(lexicon(kind).clone()), 3);
    c.seats = 3;
    let mut g = Game::new(c).unwrap();
    for turn in 0..5 {
        g.act(turn % 3, Action::Pass, 0).unwrap();
    }
    assert!(!g.is_over());
    g.act(2, Action::Pass, 0).unwrap();
    assert_eq!(g.outcome().unwrap().reason, EndReason::ScorelessTurns);
}

#[test]
fn overtime_costs_ten_points_per_started_minute() {
    let mut c = config(ChallengeRule::Single, 2, Some(SMALL));
    c.clock = Some(ClockConfig {
        initial_ms: 60_000,
        increment_ms: 0,
        max_overtime_ms: 600_000,
        penalty_per_minute: 10,
        per_move: false,
    });
    let mut g = Game::new(c).unwrap();
    g.stack_racks(&[rack("CATQXZJ"), rack("SOD")]).unwrap();
    let cat = Action::Play(parse_play("8H CAT", Alphabet::english()).unwrap());
    g.act(0, cat, 125_000).unwrap(); // 65 s into overtime
    let sod = Action::Play(parse_play("K8 SOD", Alphabet::english()).unwrap());
    g.act(1, sod, 155_000).unwrap();
    g.act(0, Action::Pass, 160_000).unwrap(); // 70 s of overtime: two started minutes
    let o = g.outcome().unwrap();
    assert_eq!(o.scores, vec![10 - 36 - 20, 46]);
    let penalty = g.history().iter().find(|e| matches!(e.kind, EventKind::TimePenalty { .. })).unwrap();
    assert_eq!(
        (penalty.seat, penalty.points, &penalty.kind),
        (0, -20, &EventKind::TimePenalty { overtime_ms: 70_000 })
    );
    g.check_invariants().unwrap();
}

#[test]
fn past_the_overtime_limit_the_game_is_lost() {
    let mut c = config(ChallengeRule::Single, 2, None);
    c.clock = Some(ClockConfig {
        initial_ms: 60_000,
        increment_ms: 0,
        max_overtime_ms: 120_000,
        penalty_per_minute: 10,
        per_move: false,
    });
    let mut g = Game::new(c).unwrap();
    assert!(!g.tick(180_000));
    assert!(g.tick(180_001));
    let o = g.outcome().unwrap();
    assert_eq!((o.reason, o.winners.clone()), (EndReason::OutOfTime(0), vec![1]));
    assert_eq!(g.act(0, Action::Pass, 180_002), Err(GameError::GameOver));
}

#[test]
fn resignation() {
    let mut g = game(ChallengeRule::Single, 2, None, &["ACEGINT", "EEIOUSS"]);
    play(&mut g, 0, "8H CAT").unwrap();
    g.act(0, Action::Resign, 0).unwrap();
    let o = g.outcome().unwrap();
    assert_eq!((o.reason, o.winners.clone()), (EndReason::Resigned(0), vec![1]));
}

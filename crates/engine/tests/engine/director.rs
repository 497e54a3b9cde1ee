//! The director's actions on a game: a pause stops the clocks and every action, an undone turn
//! leaves the game as it was before it (the bag's next draws included), adjustments count, and
//! a result ends the game with its reason.

use crate::common::{lexicon, rules};
use dawgref_engine::bot::{BotLevel, choose_action, play_while};
use dawgref_engine::game::record::write_gcg;
use dawgref_engine::game::{
    Action, ChallengeRule, ClockConfig, DirectorAction, EndReason, EventKind, Game, GameConfig, GameError,
    ResultKind,
};
use dawgref_engine::rules::RulesetKind;
use std::sync::Arc;

fn game(kind: RulesetKind, seed: u64, clock: bool) -> Game {
    let lex = Arc::new(lexicon(kind).clone());
    let mut config = GameConfig::new(rules(kind), lex, seed);
    config.challenge = ChallengeRule::Double;
    if clock {
        config.clock = Some(ClockConfig::tournament());
    }
    Game::new(config).unwrap()
}

/// Everything a player or the bag could tell apart, as text.
fn state(g: &Game) -> String {
    let racks: Vec<String> = (0..g.config().seats).map(|s| format!("{:?}", g.rack(s).unwrap())).collect();
    let clocks =
        g.clocks().map(|c| (0..g.config().seats).map(|s| c.remaining_ms(s, 5_000_000)).collect::<Vec<_>>());
    format!(
        "{:?}|{racks:?}|{:?}|{}|{}|{}|{}|{:?}|{:?}|{}",
        (0..15).map(|r| (0..15).map(|c| g.board().get(r, c)).collect::<Vec<_>>()).collect::<Vec<_>>(),
        g.scores(),
        g.to_move(),
        g.turn(),
        g.bag_len(),
        g.scoreless_turns(),
        g.challengeable().map(|(s, p)| (s, *p)),
        clocks,
        g.is_over()
    )
}

#[test]
fn an_undone_turn_leaves_the_game_as_it_was_and_the_bag_draws_the_same_next() {
    for kind in RulesetKind::classic() {
        for seed in 1..=3 {
            let mut g = game(kind, seed, true);
            let mut now = 0;
            // Some turns in, by strong bots.
            let mut n = 0;
            play_while(&mut g, &[BotLevel::Strong], 1000, |_| {
                n += 1;
                n < 5 + seed
            })
            .unwrap();
            now += 100_000;
            let before = g.clone();
            let seat = g.to_move();
            let action = choose_action(&g, seat, BotLevel::Strong);
            g.act(seat, action.clone(), now).unwrap();
            // A challenge of it too, taken back with it.
            let _ = g.challenge(1 - seat, now + 10);
            g.undo_turn(None, now + 5_000).unwrap();
            g.check_invariants().unwrap();
            let what = format!("{kind} seed {seed}");
            // The clocks: the seat's thinking before the turn stays spent (it acted at `now`); the
            // five seconds since are nobody's.
            let mut expected = before.clone();
            expected.act(seat, action.clone(), now).unwrap();
            assert_eq!(state_without_clocks(&g), state_without_clocks(&before), "{what}");
            let c = g.clocks().unwrap();
            let b = before.clocks().unwrap();
            assert_eq!(
                c.remaining_ms(seat, now + 5_000),
                b.remaining_ms(seat, now),
                "{what}: the mover's clock"
            );
            assert_eq!(c.remaining_ms(1 - seat, now + 5_000), b.remaining_ms(1 - seat, now), "{what}");
            // The same action again draws the same tiles: the game goes on as it did.
            let mut again = g.clone();
            again.act(seat, action.clone(), now + 6_000).unwrap();
            assert_eq!(again.rack(seat), expected.rack(seat), "{what}: the next draw");
            assert_eq!(again.bag_len(), expected.bag_len());
            // The history keeps the turn, marked, and says so.
            let last = g.history().last().unwrap();
            let EventKind::TurnUndone { from } = last.kind else { panic!("{what}: {last:?}") };
            assert_eq!(from, before.history().len());
            assert!(g.history()[from..g.history().len() - 1].iter().all(|e| e.undone));
            // The record leaves the taken-back turn out: it is the record before it, and a note.
            let names = ["a".to_string(), "b".to_string()];
            let record = write_gcg(&g, &names);
            let without: Vec<&str> = record.lines().filter(|l| !l.starts_with("#note director:")).collect();
            assert_eq!(without.join("\n") + "\n", write_gcg(&before, &names), "{what}");
            assert!(record.contains("#note director: the last turn was taken back"));
        }
    }
}

fn state_without_clocks(g: &Game) -> String {
    let s = state(g);
    s.rsplitn(3, '|').nth(2).unwrap_or(&s).to_string()
}

#[test]
fn undoing_twice_takes_back_two_turns_and_nothing_is_undone_before_the_first() {
    let mut g = game(RulesetKind::english(), 9, false);
    assert_eq!(g.undo_turn(None, 0), Err(GameError::NothingToUndo));
    let start = g.clone();
    let mut now = 0;
    for _ in 0..2 {
        now += 1000;
        let seat = g.to_move();
        let action = choose_action(&g, seat, BotLevel::Strong);
        g.act(seat, action, now).unwrap();
    }
    g.direct(DirectorAction::Note("between".into()), None, now + 1).unwrap();
    g.undo_turn(None, now + 2).unwrap();
    g.undo_turn(None, now + 3).unwrap();
    assert_eq!(state(&g), state(&start));
    assert_eq!(g.undo_turn(None, now + 4), Err(GameError::NothingToUndo));
    // The note stays, as do both undo events; the score is as at the start.
    let notes = g.history().iter().filter(|e| matches!(e.kind, EventKind::Note { .. }) && !e.undone).count();
    assert_eq!(notes, 1);
    g.check_invariants().unwrap();
}

#[test]
fn a_pause_stops_both_clocks_and_every_action_until_resumed() {
    let mut g = game(RulesetKind::russian(), 4, true);
    g.direct(DirectorAction::Pause, None, 10_000).unwrap();
    assert!(g.paused());
    assert_eq!(g.next_flag_fall(), None, "no clock runs");
    let c = g.clocks().unwrap();
    let left = c.remaining_ms(0, 10_000);
    assert_eq!(c.remaining_ms(0, 900_000_000), left, "time stands still");
    let seat = g.to_move();
    assert_eq!(g.act(seat, Action::Pass, 20_000), Err(GameError::Paused));
    assert_eq!(g.direct(DirectorAction::Pause, None, 20_000), Err(GameError::AlreadyPaused));
    // Hours later nobody has lost on time.
    assert!(!g.tick(50_000_000));
    g.direct(DirectorAction::Resume, None, 60_000_000).unwrap();
    assert!(!g.paused());
    assert_eq!(g.clocks().unwrap().remaining_ms(seat, 60_001_000), left - 1000);
    g.act(seat, Action::Pass, 60_002_000).unwrap();
    assert_eq!(g.direct(DirectorAction::Resume, None, 60_003_000), Err(GameError::NotPaused));
    g.check_invariants().unwrap();
}

#[test]
fn adjustments_count_and_results_end_the_game_with_their_reason() {
    let mut g = game(RulesetKind::erudit(), 2, true);
    g.direct(DirectorAction::AdjustScore { seat: 1, points: 15, reason: "miscount".into() }, None, 1000)
        .unwrap();
    assert_eq!(g.scores()[1], 15);
    g.direct(DirectorAction::AdjustClock { seat: 0, delta_ms: 60_000, reason: "noise".into() }, None, 1000)
        .unwrap();
    assert_eq!(g.clocks().unwrap().remaining_ms(0, 1000), 25 * 60_000 + 60_000 - 1000);
    let gcg = write_gcg(&g, &["ann".into(), "bob".into()]);
    assert!(gcg.contains("#note director: bob score +15 (miscount), total 15"), "{gcg}");
    assert!(gcg.contains("#note director: ann clock +60000 ms (noise)"), "{gcg}");
    g.check_invariants().unwrap();

    let mut forfeit = g.clone();
    forfeit
        .direct(
            DirectorAction::SetResult(ResultKind::Forfeit { seat: 1, reason: "no show".into() }),
            None,
            2000,
        )
        .unwrap();
    let o = forfeit.outcome().unwrap();
    assert_eq!((o.reason, o.winners.clone()), (EndReason::Forfeit(1), vec![0]));

    let mut judged = g.clone();
    let scores = ResultKind::Adjudicated { scores: vec![300, 280], reason: "power cut".into() };
    judged.direct(DirectorAction::SetResult(scores), None, 2000).unwrap();
    let o = judged.outcome().unwrap();
    assert_eq!(
        (o.reason, o.scores.clone(), o.winners.clone()),
        (EndReason::Adjudicated, vec![300, 280], vec![0])
    );
    judged.check_invariants().unwrap();

    let mut void = g.clone();
    void.direct(DirectorAction::SetResult(ResultKind::Void { reason: "wrong pairing".into() }), None, 2000)
        .unwrap();
    assert!(void.outcome().unwrap().winners.is_empty());
    assert_eq!(void.direct(DirectorAction::Pause, None, 3000), Err(GameError::GameOver));
}

#[test]
fn a_correspondence_clock_gives_each_move_its_day() {
    let lex = Arc::new(lexicon(RulesetKind::english()).clone());
    let mut config = GameConfig::new(rules(RulesetKind::english()), lex, 3);
    let day = 86_400_000;
    config.clock = Some(ClockConfig::per_move(day));
    let mut g = Game::new(config).unwrap();
    g.act(0, Action::Pass, day - 1).unwrap();
    // Seat 1 has a whole day from seat 0's move, and loses one millisecond past it.
    assert_eq!(g.next_flag_fall(), Some(2 * day));
    assert!(!g.tick(2 * day - 1));
    assert!(g.tick(2 * day));
    assert_eq!(g.outcome().unwrap().reason, EndReason::OutOfTime(1));
}

#[test]
fn a_director_keys_actions_carry_its_name_into_the_history_and_the_record() {
    let mut g = game(RulesetKind::english(), 3, true);
    let td = Some("spring-td".to_string());
    g.direct(DirectorAction::Pause, td.clone(), 1000).unwrap();
    g.direct(DirectorAction::Resume, None, 2000).unwrap();
    let seat = g.to_move();
    g.act(seat, Action::Pass, 3000).unwrap();
    g.undo_turn(td.clone(), 4000).unwrap();
    let signed: Vec<(EventKind, Option<String>)> =
        g.history().iter().map(|e| (e.kind.clone(), e.director.clone())).collect();
    assert_eq!(
        signed,
        vec![
            (EventKind::Paused, td.clone()),
            (EventKind::Resumed, None),
            (EventKind::Pass, None),
            (EventKind::TurnUndone { from: 2 }, td.clone()),
        ]
    );
    let gcg = write_gcg(&g, &["ann".into(), "bob".into()]);
    assert!(gcg.contains("#note director (spring-td): game paused\n"), "{gcg}");
    assert!(gcg.contains("#note director: game resumed\n"), "{gcg}");
    assert!(gcg.contains("#note director (spring-td): the last turn was taken back\n"), "{gcg}");
    g.check_invariants().unwrap();
}

#[test]
fn a_game_as_of_any_moment_is_the_game_as_it_stood_then() {
    // Whole games of greedy bots with director actions between turns: the game as of each
    // moment (a broadcast's delayed view) is the game as it was then, its history the events
    // made by then.
    for kind in RulesetKind::classic() {
        for seed in 1..=4 {
            let mut g = game(kind, seed, true);
            let mut seen: Vec<(u64, Game)> = vec![(0, g.clone())];
            play_while(&mut g, &[BotLevel::Greedy], 1_000, |g| {
                seen.push((g.history().last().map_or(0, |e| e.time_ms), g.clone()));
                true
            })
            .unwrap();
            assert!(g.is_over());
            let end = g.history().last().unwrap().time_ms;
            for (at, then) in &seen {
                let past = g.as_of(Some(*at));
                assert_eq!(state(&past), state(then), "{kind:?} seed {seed} at {at} ms");
                assert_eq!(past.history(), then.history(), "{kind:?} seed {seed} at {at} ms");
                // Between two moments, the earlier stands, rebuilt from the same calls (what a
                // reader keeps one rebuild for).
                if *at > 0 && *at < end {
                    assert_eq!(
                        state(&g.as_of(Some(at + 999))),
                        state(then),
                        "{kind:?} seed {seed} at {at}+999 ms"
                    );
                    let calls = g.calls_by(Some(*at));
                    assert_eq!(g.calls_by(Some(at + 999)), calls, "{kind:?} seed {seed} at {at}+999 ms");
                    let rebuilt = g.with_calls(calls.expect("a later event"));
                    assert_eq!(state(&rebuilt), state(then), "{kind:?} seed {seed} at {at} ms");
                }
            }
            assert_eq!(g.as_of(Some(end)).history(), g.history());
            assert_eq!(g.as_of(Some(u64::MAX)).history(), g.history());
            assert_eq!(g.calls_by(Some(u64::MAX)), None, "nothing after: the game itself");
            // A later moment is rebuilt from no fewer calls.
            let calls: Vec<_> = seen.iter().map(|(at, _)| g.calls_by(Some(*at))).collect();
            assert!(
                calls.windows(2).all(|w| w[0] <= w[1] || w[1].is_none()),
                "{kind:?} seed {seed}: {calls:?}"
            );
            // Before anything: the game as it was made.
            assert_eq!(state(&g.as_of(None)), state(&seen[0].1));
            assert!(g.as_of(None).history().is_empty());
        }
    }
}

#[test]
fn a_director_action_shows_as_of_its_time_and_not_before() {
    let mut g = game(RulesetKind::english(), 7, true);
    play_while(&mut g, &[BotLevel::Greedy], 1_000, |g| g.turn() < 4).unwrap();
    let turn_ms = g.history().last().unwrap().time_ms;
    g.direct(
        DirectorAction::AdjustScore { seat: 0, points: 10, reason: "a tile miscounted".into() },
        None,
        turn_ms + 5_000,
    )
    .unwrap();
    let before = g.as_of(Some(turn_ms + 4_999));
    assert_eq!(before.scores()[0] + 10, g.scores()[0]);
    assert_eq!(before.history().len() + 1, g.history().len());
    assert_eq!(g.as_of(Some(turn_ms + 5_000)).scores(), g.scores());
}

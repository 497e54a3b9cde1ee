//! Whole-game review on games whose best play is known: greedy games to a small endgame, then
//! played out by the exact solver (every play best: accuracy 100, nothing lost), or with one
//! pass that throws a won game away (that turn a blunder and a large mistake, and no other). The
//! grades at their bounds. And the record's racks: a line without one, or with fewer tiles than
//! the mover held, is not analysable.

use crate::common::{lexicon, rules};
use dawgref_engine::bot::{BotLevel, play_while};
use dawgref_engine::endgame::{self, Move, Position};
use dawgref_engine::game::{Action, ChallengeRule, Game, GameConfig};
use dawgref_engine::notation::gcg;
use dawgref_engine::review::{self, Class, Grade, Judged, Method, Options};
use dawgref_engine::rules::RulesetKind;
use std::sync::Arc;
use std::time::Duration;

/// A greedy game from `seed` past the empty bag with both racks at most `max_tiles`.
fn small_endgame(kind: RulesetKind, seed: u64, max_tiles: usize) -> Option<Game> {
    let mut config = GameConfig::new(rules(kind), Arc::new(lexicon(kind).clone()), seed);
    config.challenge = ChallengeRule::Void;
    let mut game = Game::new(config).unwrap();
    let small = |g: &Game| g.bag_len() == 0 && (0..2).all(|s| g.rack(s).unwrap().len() <= max_tiles);
    play_while(&mut game, &[BotLevel::Greedy], 1000, |g| !small(g)).unwrap();
    (!game.is_over() && small(&game)).then_some(game)
}

/// The exact endgame's best move for the side to move, and its value.
fn best(game: &Game) -> (Action, i32) {
    let position = Position::from_game(game).unwrap();
    let s = endgame::solve(&position, game.config().lexicon.dawg(), endgame::EndgameLimits::default());
    assert!(s.exact);
    let action = match s.pv.first() {
        Some(Move::Play { play, .. }) => Action::Play(*play),
        _ => Action::Pass,
    };
    (action, s.value)
}

/// Play the game out, each move the solver's best; the turns played so.
fn play_out(game: &mut Game) -> Vec<u32> {
    let mut turns = Vec::new();
    let mut now = 1_000_000;
    while !game.is_over() {
        turns.push(game.turn());
        let (action, _) = best(game);
        now += 1000;
        game.act(game.to_move(), action, now).unwrap();
    }
    turns
}

fn options() -> Options {
    Options { per_turn: Duration::from_secs(20), seed: 1, ..Options::default() }
}

#[test]
fn a_game_played_best_from_the_empty_bag_loses_nothing_and_scores_100() {
    let mut games = 0;
    for kind in RulesetKind::classic() {
        let mut seed = 0;
        while games < 2 * (kind.ordinal() + 1) {
            seed += 1;
            assert!(seed < 300, "{kind}: too few small endgames");
            let Some(mut game) = small_endgame(kind, seed, 4) else { continue };
            let first = game.turn();
            let turns = play_out(&mut game);
            let reviews: Vec<_> =
                turns.iter().map(|&t| review::review_turn(&game, t, true, &options()).unwrap()).collect();
            for r in &reviews {
                assert!(r.analysable && r.exact, "{kind} seed {seed} turn {}", r.turn);
                assert_eq!(r.method, Method::Endgame);
                assert_eq!(
                    (r.lost, r.class, r.grade),
                    (0.0, Class::Best, Grade::None),
                    "{kind} seed {seed} turn {}",
                    r.turn
                );
                // The best play's value is the solver's from the position before the turn.
                let before = game.before_turn(r.turn).unwrap();
                assert_eq!(r.best.equity, f64::from(best(&before).1), "{kind} seed {seed} turn {}", r.turn);
            }
            assert_eq!(reviews.first().map(|r| r.turn), Some(first));
            for s in review::summarize(&game, &reviews) {
                assert_eq!(s.accuracy, 100.0, "{kind} seed {seed}");
                assert_eq!(s.classes[0], s.turns);
                assert_eq!((s.grades[0], s.mistake_index), (s.turns, 0.0));
                assert_eq!(s.mean_lost, 0.0);
            }
            games += 1;
        }
    }
}

#[test]
fn one_pass_that_throws_a_won_game_away_is_the_one_blunder() {
    let kind = RulesetKind::english();
    let mut found = 0;
    let mut seed = 0;
    while found < 2 {
        seed += 1;
        assert!(seed < 400, "too few endgames a pass loses");
        let Some(mut game) = small_endgame(kind, seed, 4) else { continue };
        let me = game.to_move();
        let spread = game.scores()[me] - game.scores()[1 - me];
        let (action, value) = best(&game);
        if spread + value <= 0 || !matches!(action, Action::Play(_)) {
            continue;
        }
        // What passing leaves: the opponent's best from there.
        let mut passed = game.clone();
        passed.act(me, Action::Pass, 2_000_000).unwrap();
        if passed.is_over() || spread - best(&passed).1 >= 0 {
            continue;
        }
        let blunder = game.turn();
        game = passed;
        let turns = [vec![blunder], play_out(&mut game)].concat();
        let reviews: Vec<_> =
            turns.iter().map(|&t| review::review_turn(&game, t, true, &options()).unwrap()).collect();
        let classes: Vec<(u32, Class, Grade)> = reviews.iter().map(|r| (r.turn, r.class, r.grade)).collect();
        // A won game thrown away: a large mistake, whatever the points.
        assert_eq!(classes[0], (blunder, Class::Blunder, Grade::Large), "seed {seed}");
        assert!(
            classes[1..].iter().all(|&(_, c, g)| (c, g) == (Class::Best, Grade::None)),
            "seed {seed}: {classes:?}"
        );
        let first = &reviews[0];
        assert_eq!((first.lost, first.played.win, first.best.win), (1.0, 0.0, 1.0));
        assert!(first.pass_or_exchange_beaten && !first.play_beaten_by_exchange);
        let summary = review::summarize(&game, &reviews);
        assert_eq!(summary[me].classes[4], 1);
        assert_eq!((summary[me].grades[3], summary[me].mistake_index), (1, 1.0));
        assert_eq!((&summary[1 - me].grades[1..], summary[1 - me].mistake_index), (&[0, 0, 0][..], 0.0));
        assert!(summary[me].accuracy < 100.0);
        assert_eq!(summary[1 - me].accuracy, 100.0);
        found += 1;
    }
}

#[test]
fn a_turn_whose_rack_the_record_does_not_show_is_not_analysed() {
    let text = "#player1 a Ann\n#player2 b Bo\n\
                >a: ADEINST 8D DESTAIN +70 70\n\
                >b: - +0 0\n\
                >a: EIP -EIP +0 70\n";
    let record = gcg::parse(text).unwrap();
    let shown = review::racks_shown(&record);
    assert_eq!(shown, [true, false, true]);
    let mut config =
        GameConfig::new(rules(RulesetKind::english()), Arc::new(lexicon(RulesetKind::english()).clone()), 0);
    config.challenge = ChallengeRule::Single;
    let game = dawgref_engine::game::record::import_game(&record, config).unwrap();
    let turns = review::turns(&game);
    assert_eq!(turns, [(0, 0), (1, 1), (2, 0)]);
    let quick = Options { per_turn: Duration::from_millis(100), ..Options::default() };
    let judged: Vec<bool> = turns
        .iter()
        .enumerate()
        .map(|(k, &(t, _))| {
            review::review_turn(&game, t, review::rack_known(Some(&shown), k), &quick).unwrap().analysable
        })
        .collect();
    // The second line shows no rack, the third only three tiles (the bag is not empty).
    assert_eq!(judged, [true, false, false]);
}

#[test]
fn a_mistake_is_graded_by_the_win_percent_or_the_endgame_spread_it_lost_at_magpies_bounds() {
    let graded = |points: f64| Grade::of_win_lost(points);
    let cases = [(0.0, Grade::None), (0.49, Grade::None), (0.5, Grade::Small), (2.99, Grade::Small)];
    let more = [(3.0, Grade::Medium), (6.99, Grade::Medium), (7.0, Grade::Large), (100.0, Grade::Large)];
    for (points, grade) in cases.into_iter().chain(more) {
        assert_eq!(graded(points), grade, "{points} points of win probability lost");
    }
    // A bound reached through floating point is reached: 57% against 50% is 7 points.
    assert_eq!(graded(100.0 * (0.57 - 0.50)), Grade::Large);
    assert_eq!(graded(100.0 * (0.535 - 0.505)), Grade::Medium);
    // An endgame: the spread each leads to, and whether it wins.
    let judged = |spread: f64, win: f64| Judged { action: Action::Pass, score: 0, equity: spread, win };
    let endgame = [
        ((20.0, 1.0), (20.0, 1.0), Grade::None),
        ((20.0, 1.0), (19.5, 1.0), Grade::None),
        ((20.0, 1.0), (19.0, 1.0), Grade::Small),
        ((20.0, 1.0), (13.5, 1.0), Grade::Small),
        ((20.0, 1.0), (13.0, 1.0), Grade::Medium),
        ((20.0, 1.0), (5.5, 1.0), Grade::Medium),
        ((20.0, 1.0), (5.0, 1.0), Grade::Large),
        // Won by the best, drawn or lost by the play made: large, however few the points.
        ((3.0, 1.0), (2.0, 0.5), Grade::Large),
        ((3.0, 1.0), (2.0, 0.0), Grade::Large),
        // Lost either way: by the points alone.
        ((-10.0, 0.0), (-12.0, 0.0), Grade::Small),
        ((-10.0, 0.0), (-30.0, 0.0), Grade::Large),
    ];
    for ((best, best_win), (played, played_win), grade) in endgame {
        let g = Grade::of_endgame(&judged(best, best_win), &judged(played, played_win));
        assert_eq!(g, grade, "best {best} ({best_win}), played {played} ({played_win})");
    }
    assert_eq!(Grade::ALL.map(Grade::weight), [0.0, 0.2, 0.5, 1.0]);
}

//! `dawgref-lab bench endgame`: the endgame solver on the first bag-empty position of seeded
//! strong-bot games: its solve times and exact share, and the spread it gains over the strong
//! bot's play (or, with `--solve-only`, solve times alone, and with `--lines` several lines).

use super::CliResult;
use dawgref::lexicon::Lexicon;
use dawgref::rules::{Ruleset, RulesetKind};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A strong-vs-strong game from `seed` (void challenges: the play that goes out ends the game),
/// stopped at the first turn with the bag empty; `None` if it ended before.
fn bag_empty_game(rules: &Arc<Ruleset>, lexicon: &Arc<Lexicon>, seed: u64) -> Option<dawgref::game::Game> {
    use dawgref::bot::{BotLevel, play_while};
    use dawgref::game::{ChallengeRule, Game, GameConfig};
    let mut config = GameConfig::new(rules.clone(), lexicon.clone(), seed);
    config.challenge = ChallengeRule::Void;
    let mut game = Game::new(config).ok()?;
    play_while(&mut game, &[BotLevel::Strong], 1000, |g| g.bag_len() > 0).ok()?;
    (!game.is_over()).then_some(game)
}

/// Play `game` to its end: a seat for which `solver` says `Some(leaf_playout)` moves by the
/// endgame solver within `budget` (valuing its depth limit by a play-out or not:
/// [`dawgref::endgame::EndgameLimits::leaf_playout`]), any other by the strong bot. The final
/// spread of `seat`.
fn play_endgame(
    mut game: dawgref::game::Game,
    seat: usize,
    solver: impl Fn(usize) -> Option<bool>,
    budget: Duration,
) -> i32 {
    use dawgref::bot::{BotLevel, choose_action};
    use dawgref::budget::Budget;
    use dawgref::endgame::{EndgameLimits, Position, solve};
    let mut now = 1_000_000_000;
    while !game.is_over() {
        now += 1000;
        let to_move = game.to_move();
        let action = match Position::from_game(&game).zip(solver(to_move)) {
            Some((position, leaf_playout)) => {
                let b = EndgameLimits {
                    budget: Budget::until(Instant::now() + budget),
                    leaf_playout,
                    ..EndgameLimits::default()
                };
                solve(&position, game.config().lexicon.dawg(), b).first_action()
            }
            None => choose_action(&game, to_move, BotLevel::Strong),
        };
        if game.act(to_move, action, now).is_err() {
            break;
        }
    }
    game.scores()[seat] - game.scores()[1 - seat]
}

pub fn endgame(positions: u64, seed: u64, kind: RulesetKind, budget_ms: u64) -> CliResult {
    use dawgref::budget::Budget;
    use dawgref::endgame::{EndgameLimits, Position, solve};
    let (rules, lexicon) = crate::setup::ruleset(kind)?;
    let budget = Duration::from_millis(budget_ms);
    let (mut times_ms, mut gains, mut exact, mut nodes, mut seconds) =
        (Vec::new(), Vec::new(), 0u64, 0u64, 0.0);
    let mut g = seed;
    while (times_ms.len() as u64) < positions {
        g += 1;
        let Some(game) = bag_empty_game(&rules, &lexicon, g) else { continue };
        let Some(position) = Position::from_game(&game) else { continue };
        let start = Instant::now();
        let b = EndgameLimits { budget: Budget::until(start + budget), ..EndgameLimits::default() };
        let solution = solve(&position, lexicon.dawg(), b);
        let took = start.elapsed().as_secs_f64();
        times_ms.push(took * 1000.0);
        seconds += took;
        nodes += solution.nodes;
        exact += u64::from(solution.exact);
        let me = game.to_move();
        let with_solver = play_endgame(game.clone(), me, |s| (s == me).then_some(false), budget);
        let static_play = play_endgame(game, me, |_| None, budget);
        gains.push(f64::from(with_solver - static_play));
    }
    times_ms.sort_by(f64::total_cmp);
    let n = gains.len() as f64;
    let mean = gains.iter().sum::<f64>() / n;
    let var = gains.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    println!(
        "{kind}: {positions} bag-empty positions (strong-bot games from seed {}), budget {budget_ms} ms: \
         solved exactly {:.1}%, solve time median {:.1} ms, p90 {:.1} ms, {:.0} positions searched/s; \
         spread gained over the strong bot's play {mean:+.2} ± {:.2} (1 s.e.)",
        seed + 1,
        100.0 * exact as f64 / n,
        crate::setup::percentile(&times_ms, 0.5),
        crate::setup::percentile(&times_ms, 0.9),
        nodes as f64 / seconds.max(1e-9),
        (var / n).sqrt(),
    );
    Ok(ExitCode::SUCCESS)
}

/// Solve times of the first bag-empty position of strong-bot games where the side to move holds
/// a full rack: the share solved exactly within the budget, the distribution, and with `lines`
/// > 1 the time for that many lines against one.
pub fn endgame_solves(
    positions: u64,
    seed: u64,
    kind: RulesetKind,
    budget_ms: u64,
    lines: usize,
    each: bool,
) -> CliResult {
    use dawgref::budget::Budget;
    use dawgref::endgame::{EndgameLimits, PlayableWords, Position, solve};
    let (rules, lexicon) = crate::setup::ruleset(kind)?;
    let budget = Duration::from_millis(budget_ms);
    let bar = dawgref::console::games_bar(positions);
    let (mut times_ms, mut exact, mut nodes, mut ratios) = (Vec::new(), 0u64, 0u64, Vec::new());
    let mut g = seed;
    while (times_ms.len() as u64) < positions {
        g += 1;
        let Some(game) = bag_empty_game(&rules, &lexicon, g) else { continue };
        let Some(position) = Position::from_game(&game) else { continue };
        if position.racks[0].len() < rules.rack_size {
            continue;
        }
        let start = Instant::now();
        let b = EndgameLimits { budget: Budget::until(start + budget), ..EndgameLimits::default() };
        let one = solve(&position, lexicon.dawg(), b);
        let took = start.elapsed().as_secs_f64() * 1000.0;
        times_ms.push(took);
        if each {
            // The solve's small lexicon again, outside its time: how large, and what it cost.
            let pruning = Instant::now();
            let words = PlayableWords::new(&position.board, &position.tiles_to_play(), lexicon.dawg());
            let pruning = pruning.elapsed().as_secs_f64() * 1000.0;
            let me = game.to_move();
            let scores = [game.scores()[me], game.scores()[1 - me]];
            let cgp = dawgref::notation::cgp::write(&dawgref::notation::cgp::from_board(
                &position.board,
                &position.racks,
                &scores,
                position.zeros,
                dawgref::notation::cgp::Ops { lex: Some(lexicon.name().to_string()), ..Default::default() },
            ));
            bar.suspend(|| {
                eprintln!(
                    "seed {g}: {took:.0} ms, {}, depth {}, value {}, {} positions, {} words in {pruning:.1} ms; {cgp}",
                    if one.exact { "exact" } else { "inexact" },
                    one.depth,
                    one.value,
                    one.nodes,
                    words.dawg().word_count(),
                )
            });
        }
        nodes += one.nodes;
        exact += u64::from(one.exact);
        if lines > 1 && one.exact {
            let start = Instant::now();
            let b = EndgameLimits {
                budget: Budget::until(start + budget * 3),
                lines,
                ..EndgameLimits::default()
            };
            let many = solve(&position, lexicon.dawg(), b);
            if many.exact {
                assert_eq!(many.value, one.value, "seed {g}: the first line is the one-line answer");
                ratios.push(start.elapsed().as_secs_f64() * 1000.0 / took.max(1e-3));
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let n = times_ms.len() as f64;
    let mut sorted = times_ms.clone();
    sorted.sort_by(f64::total_cmp);
    let within = |ms: f64| 100.0 * times_ms.iter().filter(|&&t| t <= ms).count() as f64 / n;
    println!(
        "{kind}: {positions} bag-empty positions, full rack to move (strong-bot games from seed {}), budget {budget_ms} ms: \
         exact {:.1}%; time p50 {:.0} ms, p90 {:.0} ms, p95 {:.0} ms, max {:.0} ms; done within 0.1 / 1 / 5 s: {:.0}% / {:.0}% / {:.0}% \
         (exact or not); {:.0} positions searched/s",
        seed + 1,
        100.0 * exact as f64 / n,
        crate::setup::percentile(&sorted, 0.5),
        crate::setup::percentile(&sorted, 0.9),
        crate::setup::percentile(&sorted, 0.95),
        sorted.last().copied().unwrap_or(0.0),
        within(100.0),
        within(1000.0),
        within(5000.0),
        nodes as f64 / (times_ms.iter().sum::<f64>() / 1000.0).max(1e-9),
    );
    if !ratios.is_empty() {
        ratios.sort_by(f64::total_cmp);
        println!(
            "{lines} lines against 1, on the {} positions solved exactly: time ratio median {:.2}x, p90 {:.2}x",
            ratios.len(),
            crate::setup::percentile(&ratios, 0.5),
            crate::setup::percentile(&ratios, 0.9)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The endgame solver valuing its depth limit by a play-out against the solver without it: each
/// bag-empty position of seeded strong-bot games played out twice, the play-out's side moving
/// first once and second once, `budget_ms` a move; its mean spread gain a position and its
/// share of the wins (a position's two games, halved), ± one standard error over positions.
pub fn endgame_playout(
    positions: u64,
    seed: u64,
    kind: RulesetKind,
    budget_ms: u64,
    threads: usize,
) -> CliResult {
    let (rules, lexicon) = crate::setup::ruleset(kind)?;
    let budget = Duration::from_millis(budget_ms);
    let mut games = Vec::new();
    let mut g = seed;
    while (games.len() as u64) < positions {
        g += 1;
        if let Some(game) = bag_empty_game(&rules, &lexicon, g) {
            games.push(game);
        }
    }
    let bar = dawgref::console::games_bar(positions);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<(f64, f64)>> = std::sync::Mutex::new(Vec::new());
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(game) = games.get(i) else { break };
                    let me = game.to_move();
                    let first = play_endgame(game.clone(), me, |s| Some(s == me), budget);
                    let second = play_endgame(game.clone(), 1 - me, |s| Some(s != me), budget);
                    let win = |s: i32| (f64::from(s.signum()) + 1.0) / 2.0;
                    let pair = (f64::from(first + second), (win(first) + win(second)) / 2.0);
                    results.lock().unwrap_or_else(|p| p.into_inner()).push(pair);
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    let results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    let (spread, spread_error) = crate::setup::mean_error(&results.iter().map(|r| r.0).collect::<Vec<_>>());
    let (wins, wins_error) = crate::setup::mean_error(&results.iter().map(|r| r.1).collect::<Vec<_>>());
    let changed = results.iter().filter(|r| r.0 != 0.0).count();
    println!(
        "{kind}: {positions} bag-empty positions (strong-bot games from seed {}), {budget_ms} ms a move, \
         each played from both sides: the solver valuing its depth limit by a play-out gains \
         {spread:+.2} ± {spread_error:.2} a position and wins {:.1}% ± {:.1} of the games; \
         {changed} positions ended otherwise than level; {:.0} s on {threads} threads",
        seed + 1,
        100.0 * wins,
        100.0 * wins_error,
        started.elapsed().as_secs_f64(),
    );
    Ok(ExitCode::SUCCESS)
}

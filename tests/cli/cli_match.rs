//! `dawgref match`: the last line's shape, the same seed giving the same result, a level
//! against itself, and the refusal of an unknown level.

use std::process::Command;

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dawgref")).arg("match").args(args).output().unwrap()
}

#[test]
fn a_match_prints_wins_and_spread_with_standard_errors() {
    let out = run(&["--bots", "strong,greedy", "--games", "20", "--seed", "3", "--ruleset", "russian"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("strong vs greedy: 20 games, strong wins "), "{last}");
    let (_, rest) = last.split_once("strong wins ").unwrap();
    let (win, rest) = rest.split_once("% ± ").unwrap();
    let win: f64 = win.parse().unwrap();
    assert!((0.0..=100.0).contains(&win), "{last}");
    assert!(rest.contains(", mean spread ") && rest.matches(" ± ").count() == 1, "{last}");
    // The same seed plays the same games.
    let again = run(&["--bots", "strong,greedy", "--games", "20", "--seed", "3", "--ruleset", "russian"]);
    assert_eq!(String::from_utf8(again.stdout).unwrap(), text);
}

#[test]
fn a_level_may_play_itself() {
    let out = run(&["--bots", "greedy,greedy", "--games", "4", "--seed", "10"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("greedy vs greedy: 4 games, greedy wins "), "{text}");
}

#[test]
fn an_unknown_level_is_refused() {
    let out = run(&["--bots", "strong,grandmaster", "--games", "2"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("unknown bot level \"grandmaster\""), "{err}");
}

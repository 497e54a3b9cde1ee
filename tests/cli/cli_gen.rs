//! `dawgref gen` and `dawgref selfplay` as a user runs them: exact output for a known position,
//! `--cgp-file` blocks, and self-play positions that `gen` reads back.

use crate::dawgref;

/// A position from greedy self-play (seed 1, move 10); the mover holds LLRRTWZ.
const POSITION: &str = "11KATI/9H3U1/2U5CATGUT1/2N6R3O1/2F6I3Y1/2IT5J3E1/2XI5A3R1/3MIDNOON3S1/3E1EYEN6/3WAVE8/3O11/3R11/3N11/15/15 LLRRTWZ/ 168/297 0 lex en; ld english;";

#[test]
fn gen_prints_best_first() {
    let (code, out, err) = dawgref(&["gen", "--cgp", POSITION, "--top", "3"]);
    assert_eq!(code, 0, "{err}");
    // ZIT from 6B: Z on the triple letter (30) + I + T.
    assert_eq!(out, "6B Z.. 32\n5I W.Z 30\n11C Z.L 28\n");
}

#[test]
fn gen_cgp_file_heads_each_block() {
    let dir = std::env::temp_dir().join(format!("dawgref-cli-gen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("positions.cgp");
    let empty = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 Q/ 0/0 0 lex en;";
    std::fs::write(&file, format!("{POSITION}\n# a comment\n{empty}\n")).unwrap();
    let (code, out, err) =
        dawgref(&["gen", "--cgp-file", file.to_str().unwrap(), "--top", "1", "--mode", "across"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "# 1 1 plays\n6B Z.. 32\n# 3 0 plays\n");
    std::fs::write(&file, "not a cgp\n").unwrap();
    let (code, _, err) = dawgref(&["gen", "--cgp-file", file.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("positions.cgp:1: CGP field 4 at character 9: missing field"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn selfplay_positions_feed_gen() {
    let dir = std::env::temp_dir().join(format!("dawgref-cli-selfplay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("games.cgp");
    let (code, out, err) =
        dawgref(&["selfplay", "--games", "1", "--seed", "1", "--cgp-out", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "game 1 seed 1: 25 moves, 541-373\n");
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.lines().count(), 25);
    assert_eq!(text.lines().nth(9).unwrap(), POSITION);
    // Every position's best play is the move self-play made: gen agrees on the first one.
    let (code, out, _) = dawgref(&["gen", "--cgp", text.lines().next().unwrap(), "--top", "1"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

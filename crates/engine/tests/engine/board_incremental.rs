//! After every placement, the incrementally maintained cross-sets, cross-sums and anchors equal a
//! from-scratch recomputation, in both directions; and the transposed board evaluates every play
//! like the original.

use crate::common;

use common::{Rng, lexicon, rules};
use dawgref_engine::alphabet::{EMPTY, tile};
use dawgref_engine::board::{Board, Direction, NO_CROSS};
use dawgref_engine::play::Play;
use dawgref_engine::rules::RulesetKind;
use dawgref_engine::score::evaluate;

/// A random line of 1-6 new tiles touching the board (or covering the start on an empty board).
/// Letters are drawn from words of the lexicon's alphabet so that cross-sets are often non-trivial.
fn random_placements(board: &Board, rng: &mut Rng, letters: usize) -> Vec<(usize, usize, u8)> {
    let size = board.size();
    let centre = board.rules().start();
    for _ in 0..200 {
        let dir = if rng.below(2) == 0 { Direction::Across } else { Direction::Down };
        let (line, start) = if board.is_empty() {
            (centre.0, centre.1 - rng.below(4))
        } else {
            let (row, col) = loop {
                let (r, c) = (rng.below(size), rng.below(size));
                if board.get(r, c) == EMPTY && board.has_neighbour(r, c) {
                    break (r, c);
                }
            };
            let (line, pos) = dir.from_board(row, col);
            (line, pos.saturating_sub(rng.below(3)))
        };
        let want = 1 + rng.below(6);
        let mut out = Vec::new();
        let mut pos = start;
        while pos < size && out.len() < want {
            let (row, col) = dir.to_board(line, pos);
            if board.get(row, col) == EMPTY {
                let letter = rng.below(letters) as u8;
                out.push((row, col, tile(letter, rng.below(10) == 0)));
            }
            pos += 1;
        }
        let touches = out.iter().any(|&(r, c, _)| board.has_neighbour(r, c) || (r, c) == centre);
        if !out.is_empty() && touches {
            return out;
        }
    }
    Vec::new()
}

fn assert_matches_scratch(board: &Board, dawg: &dawgref_engine::lexicon::Dawg, context: &str) {
    let mut scratch = board.clone();
    scratch.recompute_all(dawg);
    for d in Direction::BOTH {
        for line in 0..board.size() {
            for pos in 0..board.size() {
                assert_eq!(
                    (
                        board.cross_set(d, line, pos),
                        board.cross_sum(d, line, pos),
                        board.is_anchor(d, line, pos)
                    ),
                    (
                        scratch.cross_set(d, line, pos),
                        scratch.cross_sum(d, line, pos),
                        scratch.is_anchor(d, line, pos)
                    ),
                    "{context}: {d:?} line {line} pos {pos}\n{board}"
                );
            }
        }
    }
    assert!(*board == scratch, "{context}");
}

fn run(kind: RulesetKind, games: u64) {
    let lex = lexicon(kind);
    let letters = kind.alphabet().len();
    let mut checked = 0;
    for seed in 0..games {
        let mut rng = Rng(seed);
        let mut board = Board::new(rules(kind));
        for turn in 0..25 {
            let ps = random_placements(&board, &mut rng, letters);
            if ps.is_empty() {
                break;
            }
            // Transposition before placing: evaluate the line as a play both ways.
            let dir = if ps.len() > 1 && ps[0].0 == ps[1].0 { Direction::Across } else { Direction::Down };
            let (line, first) = dir.from_board(ps[0].0, ps[0].1);
            let last = dir.from_board(ps[ps.len() - 1].0, ps[ps.len() - 1].1).1;
            let tiles: Vec<u8> = (first..=last)
                .map(|pos| {
                    let (r, c) = dir.to_board(line, pos);
                    ps.iter().find(|p| (p.0, p.1) == (r, c)).map_or(EMPTY, |p| p.2)
                })
                .collect();
            let (row, col) = dir.to_board(line, first);
            let play = Play::new(dir, row, col, &tiles).unwrap();
            let e = evaluate(&board, &play).unwrap();
            let t = evaluate(&board.transposed(), &play.transposed()).unwrap();
            assert_eq!((e.total, e.bonus, e.words.len()), (t.total, t.bonus, t.words.len()));
            for (a, b) in e.words.iter().zip(&t.words) {
                assert_eq!(
                    (a.tiles.clone(), a.score, a.row, a.col),
                    (b.tiles.clone(), b.score, b.col, b.row)
                );
            }
            board.place(&ps, lex.dawg());
            assert_matches_scratch(&board, lex.dawg(), &format!("seed {seed} turn {turn}"));
            checked += 1;
        }
    }
    assert!(checked > games * 10, "only {checked} placements checked");
}

#[test]
fn english_incremental_equals_scratch() {
    run(RulesetKind::english(), 60);
}

#[test]
fn russian_incremental_equals_scratch() {
    run(RulesetKind::russian(), 30);
}

#[test]
fn erudit_incremental_equals_scratch() {
    run(RulesetKind::erudit(), 30);
}

#[test]
fn super_english_incremental_equals_scratch() {
    run(RulesetKind::by_name("super-english").unwrap(), 30);
}

#[test]
fn empty_board_has_only_the_centre_anchor() {
    let b = Board::new(rules(RulesetKind::english()));
    for d in Direction::BOTH {
        for line in 0..15 {
            let expected = if line == 7 { 1 << 7 } else { 0 };
            assert_eq!(b.anchor_bits(d, line), expected);
        }
    }
    let b = Board::new(rules(RulesetKind::by_name("super-english").unwrap()));
    assert_eq!(b.size(), 21);
    for d in Direction::BOTH {
        for line in 0..21 {
            let expected = if line == 10 { 1 << 10 } else { 0 };
            assert_eq!(b.anchor_bits(d, line), expected);
        }
    }
    assert_eq!(b.cross_set(Direction::Across, 0, 0), (1 << 26) - 1);
    assert_eq!(b.cross_sum(Direction::Across, 0, 0), NO_CROSS);
}

#[test]
fn cross_sets_and_sums_next_to_a_word() {
    // CAT across at 8G: a letter on 7H, above the A, forms ?A down.
    let b = common::board_with(RulesetKind::english(), &["8G CAT"]);
    let a = dawgref_engine::alphabet::Alphabet::english();
    let set = b.cross_set(Direction::Across, 6, 7);
    let letters: String = (0..26u8).filter(|l| set >> l & 1 != 0).map(|l| a.label(l)).collect();
    // ?A two-letter words in the shipped list.
    let expected: String = (0..26u8)
        .filter(|&l| lexicon(RulesetKind::english()).contains(&[l, 0]))
        .map(|l| a.label(l))
        .collect();
    assert_eq!(letters, expected);
    assert_eq!(b.cross_sum(Direction::Across, 6, 7), 1);
    // Beside CAT in the down orientation (line = column, pos = row): ?CAT on the left (none in
    // the shipped list), CAT? on the right (CATS among them).
    let lex = lexicon(RulesetKind::english());
    let (c, t_) = (a.index_of('C').unwrap(), a.index_of('T').unwrap());
    let left: u64 = (0..26u8).filter(|&l| lex.contains(&[l, c, 0, t_])).map(|l| 1u64 << l).sum();
    let right: u64 = (0..26u8).filter(|&l| lex.contains(&[c, 0, t_, l])).map(|l| 1u64 << l).sum();
    assert_eq!(b.cross_set(Direction::Down, 5, 7), left);
    assert_eq!(b.cross_set(Direction::Down, 9, 7), right);
    assert!(right >> a.index_of('S').unwrap() & 1 != 0);
    assert_eq!(b.cross_sum(Direction::Down, 5, 7), 3 + 1 + 1);
    assert!(b.is_anchor(Direction::Across, 6, 7));
    assert!(b.is_anchor(Direction::Down, 7, 6));
    assert!(!b.is_anchor(Direction::Across, 7, 7));
}

/// The same check over legal games: greedy self-play in every ruleset, every position.
#[test]
fn legal_games_incremental_equals_scratch() {
    let kinds = RulesetKind::classic().into_iter().chain(RulesetKind::by_name("super-english"));
    for kind in kinds {
        let lex = lexicon(kind);
        for seed in 0..4 {
            let mut positions = 0;
            dawgref_engine::selfplay::greedy_game(rules(kind), lex.dawg(), seed, |pos, _| {
                assert_matches_scratch(pos.board, lex.dawg(), &format!("{kind} seed {seed}"));
                positions += 1;
            });
            assert!(positions >= 10, "{kind} seed {seed}: {positions} positions");
        }
    }
}

//! The DAWG move generator against a brute-force oracle: try every word of a small lexicon at
//! every square and direction, keep what ValidatePlay accepts. On hundreds of positions from
//! random games in all three rulesets, with and without blanks, the two agree exactly: the same
//! plays with the same scores.

use crate::common;

use common::{Rng, lexicon, rules};
use dawgref_engine::alphabet::{EMPTY, Letter, tile, tile_letter};
use dawgref_engine::board::{Board, Direction};
use dawgref_engine::lexicon::Lexicon;
use dawgref_engine::movegen::{Mode, all_plays};
use dawgref_engine::play::Play;
use dawgref_engine::rack::Rack;
use dawgref_engine::rules::RulesetKind;
use dawgref_engine::validate::validate_play;
use std::collections::BTreeSet;

/// A small lexicon: every two-letter word and every `step`-th longer word up to 8 letters.
fn small_lexicon(kind: RulesetKind, step: usize) -> (Lexicon, Vec<Vec<Letter>>) {
    let full = lexicon(kind);
    let words: Vec<Vec<Letter>> = full
        .dawg()
        .words()
        .into_iter()
        .enumerate()
        .filter(|(i, w)| w.len() == 2 || (w.len() <= 8 && i % step == 0))
        .map(|(_, w)| w)
        .collect();
    let text: String = words.iter().map(|w| kind.alphabet().word_string(w) + "\n").collect();
    let (lex, _) = Lexicon::compile("small", &text, kind.alphabet()).unwrap();
    (lex, words)
}

fn oracle(
    board: &Board,
    rack: &Rack,
    words: &[Vec<Letter>],
    lex: &Lexicon,
    mode: Mode,
) -> BTreeSet<(Play, i32)> {
    let mut out = BTreeSet::new();
    let dirs: &[Direction] = match mode {
        Mode::Across => &[Direction::Across],
        Mode::Down => &[Direction::Down],
        Mode::Both => &Direction::BOTH,
    };
    let size = board.size();
    for &dir in dirs {
        for line in 0..size {
            for start in 0..size {
                if start > 0 && board.at(dir, line, start - 1) != EMPTY {
                    continue;
                }
                for w in words {
                    let end = start + w.len();
                    if end > size || (end < size && board.at(dir, line, end) != EMPTY) {
                        continue;
                    }
                    let mut tiles = Vec::with_capacity(w.len());
                    let mut need = Rack::new();
                    let mut fits = true;
                    for (i, &l) in w.iter().enumerate() {
                        let t = board.at(dir, line, start + i);
                        if t == EMPTY {
                            tiles.push(tile(l, false));
                            need.add(l);
                        } else if tile_letter(t) == l {
                            tiles.push(EMPTY);
                        } else {
                            fits = false;
                            break;
                        }
                    }
                    if !fits || need.is_empty() {
                        continue;
                    }
                    let short: usize = (0..w.len())
                        .map(|i| need.count(w[i]).saturating_sub(rack.count(w[i])) as usize)
                        .sum::<usize>();
                    if short > rack.blanks() as usize * w.len() {
                        continue;
                    }
                    // Every way of covering the new letters with natural tiles and blanks.
                    assign(&mut tiles.clone(), 0, *rack, &mut |tiles| {
                        let (row, col) = dir.to_board(line, start);
                        let play = Play::new(dir, row, col, tiles).unwrap();
                        if let Ok(e) = validate_play(board, rack, &play, lex) {
                            let single_both_ways = mode == Mode::Both
                                && dir == Direction::Down
                                && play.tiles_placed() == 1
                                && play.placements().all(|p| {
                                    (p.col > 0 && board.get(p.row, p.col - 1) != EMPTY)
                                        || (p.col + 1 < size && board.get(p.row, p.col + 1) != EMPTY)
                                });
                            if !single_both_ways {
                                out.insert((play, e.total));
                            }
                        }
                    });
                }
            }
        }
    }
    out
}

fn assign(tiles: &mut Vec<u8>, i: usize, rack: Rack, f: &mut impl FnMut(&[u8])) {
    if i == tiles.len() {
        f(tiles);
        return;
    }
    let t = tiles[i];
    if t == EMPTY {
        return assign(tiles, i + 1, rack, f);
    }
    let l = tile_letter(t);
    let mut r = rack;
    if r.take(l) {
        tiles[i] = tile(l, false);
        assign(tiles, i + 1, r, f);
    }
    let mut r = rack;
    if r.take_blank() {
        tiles[i] = tile(l, true);
        assign(tiles, i + 1, r, f);
    }
    tiles[i] = tile(l, false);
}

fn generated(board: &Board, rack: &Rack, lex: &Lexicon, mode: Mode) -> BTreeSet<(Play, i32)> {
    let plays = all_plays(board, rack, lex.dawg(), mode);
    let set: BTreeSet<(Play, i32)> = plays.iter().map(|p| (p.play, p.score)).collect();
    assert_eq!(set.len(), plays.len(), "the generator reported a play twice");
    set
}

fn bag(kind: RulesetKind, rng: &mut Rng) -> Vec<Option<Letter>> {
    let r = rules(kind);
    let mut bag: Vec<Option<Letter>> = (0..kind.alphabet().len() as Letter)
        .flat_map(|l| std::iter::repeat_n(Some(l), r.letter_count(l) as usize))
        .chain(std::iter::repeat_n(None, r.blanks as usize))
        .collect();
    for i in (1..bag.len()).rev() {
        bag.swap(i, rng.below(i + 1));
    }
    bag
}

fn play_games(kind: RulesetKind, games: u64, step: usize) -> usize {
    let (lex, words) = small_lexicon(kind, step);
    let mut positions = 0;
    let mut with_blank = 0;
    for seed in 0..games {
        let mut rng = Rng(seed * 7919 + kind.ordinal() as u64);
        let mut board = Board::new(rules(kind));
        let mut bag = bag(kind, &mut rng);
        let mut rack = Rack::new();
        for _turn in 0..30 {
            while rack.len() < 7 {
                match bag.pop() {
                    Some(Some(l)) => rack.add(l),
                    Some(None) => rack.add_blank(),
                    None => break,
                }
            }
            if rack.is_empty() {
                break;
            }
            // Every third position also with a blank swapped in, so both cases are common.
            let mut racks = vec![rack];
            if positions % 3 == 0 && rack.blanks() == 0 {
                let mut r = rack;
                if let Some(l) = (0..kind.alphabet().len() as Letter).find(|&l| r.count(l) > 0) {
                    r.take(l);
                    r.add_blank();
                    racks.push(r);
                }
            }
            for r in &racks {
                let expected = oracle(&board, r, &words, &lex, Mode::Both);
                let got = generated(&board, r, &lex, Mode::Both);
                if expected != got {
                    let missing: Vec<_> = expected.difference(&got).take(5).collect();
                    let extra: Vec<_> = got.difference(&expected).take(5).collect();
                    panic!(
                        "{kind} seed {seed} rack {}:\n{board}\nmissing {missing:?}\nextra {extra:?}",
                        r.to_string(kind.alphabet())
                    );
                }
                positions += 1;
                with_blank += (r.blanks() > 0) as usize;
            }
            let plays = all_plays(&board, &rack, lex.dawg(), Mode::Both);
            if plays.is_empty() {
                // Exchange everything.
                bag.extend(rack.tiles());
                rack = Rack::new();
                continue;
            }
            let chosen = plays[rng.below(plays.len().min(8))].play;
            for p in chosen.placements() {
                assert!(rack.take_tile(p.tile));
            }
            let ps: Vec<_> = chosen.placements().map(|p| (p.row, p.col, p.tile)).collect();
            board.place(&ps, lex.dawg());
        }
    }
    assert!(with_blank * 5 > positions, "too few positions with a blank: {with_blank}/{positions}");
    positions
}

#[test]
fn english_matches_brute_force() {
    assert!(play_games(RulesetKind::english(), 8, 150) >= 150);
}

#[test]
fn russian_matches_brute_force() {
    assert!(play_games(RulesetKind::russian(), 6, 40) >= 100);
}

#[test]
fn erudit_matches_brute_force() {
    assert!(play_games(RulesetKind::erudit(), 6, 40) >= 100);
}

/// The 21×21 board: its edges, its start square and its lines of 21 squares.
#[test]
fn super_english_matches_brute_force() {
    let kind = RulesetKind::by_name("super-english").unwrap();
    assert_eq!(kind.definition().size, 21);
    assert!(play_games(kind, 4, 150) >= 80);
}

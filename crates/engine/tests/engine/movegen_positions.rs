//! The generator on real positions with the full English lexicon: hand-checked top plays and
//! counts, scores equal to Evaluate, and the direction modes.

use crate::common;
use dawgref_engine::rules::RulesetKind;

use common::{board_with, lexicon};
use dawgref_engine::alphabet::{Alphabet, EMPTY};
use dawgref_engine::board::Direction;
use dawgref_engine::movegen::{Mode, all_plays, best_play, top_plays};
use dawgref_engine::notation::format_play;
use dawgref_engine::rack::Rack;

use dawgref_engine::score::evaluate;
use std::collections::BTreeSet;

fn rack(s: &str) -> Rack {
    Rack::parse(s, Alphabet::english()).unwrap()
}

#[test]
fn opening_retains() {
    // RETAINS has 11 anagrams in the shipped list (ANESTRI ANTSIER NASTIER RATINES RESIANT
    // RETAINS RETINAS RETSINA STAINER STARNIE STEARIN). Every letter is worth 1, so a bingo
    // through the centre scores (7 + 1) × 2 + 50 = 66 when a letter lands on the 8D/8L double
    // letter (6 of the 7 starting squares), and 7 × 2 + 50 = 64 from 8E; the same down.
    let board = board_with(RulesetKind::english(), &[]);
    let plays = all_plays(&board, &rack("RETAINS"), lexicon(RulesetKind::english()).dawg(), Mode::Both);
    assert_eq!(plays[0].score, 66);
    assert_eq!(plays.iter().filter(|p| p.score == 66).count(), 11 * 6 * 2);
    assert_eq!(plays.iter().filter(|p| p.score == 64).count(), 11 * 2);
    assert!(plays[11 * 6 * 2 + 11 * 2].score < 64);
    // Best first, ties in play order: across before down, then by square, then by tiles.
    assert_eq!(format_play(&plays[0].play, Alphabet::english()), "8B ANESTRI");
    for p in &plays {
        assert_eq!(evaluate(&board, &p.play).unwrap().total, p.score, "{:?}", p.play);
    }
}

#[test]
fn a_lone_q() {
    // With AT at 8H the only Q play is QAT from 8G: 10 + 1 + 1.
    let board = board_with(RulesetKind::english(), &["8H AT"]);
    let plays = all_plays(&board, &rack("Q"), lexicon(RulesetKind::english()).dawg(), Mode::Both);
    let shown: Vec<String> =
        plays.iter().map(|p| format!("{} {}", format_play(&p.play, Alphabet::english()), p.score)).collect();
    assert_eq!(shown, vec!["8G Q.. 12"]);
}

#[test]
fn sinks_agree() {
    let board = board_with(RulesetKind::english(), &["8D WINDY", "E7 AIL"]);
    let dawg = lexicon(RulesetKind::english()).dawg();
    let r = rack("AEQRST?");
    let all = all_plays(&board, &r, dawg, Mode::Both);
    assert!(all.len() > 1000, "{}", all.len());
    assert_eq!(top_plays(&board, &r, dawg, Mode::Both, 25), all[..25].to_vec());
    assert_eq!(best_play(&board, &r, dawg, Mode::Both), Some(all[0]));
    let mut streamed = 0;
    dawgref_engine::movegen::generate(
        &board,
        &r,
        dawg,
        Mode::Both,
        &mut |_: &dawgref_engine::play::Play, _| streamed += 1,
    );
    assert_eq!(streamed, all.len());
    for p in &all {
        assert_eq!(evaluate(&board, &p.play).unwrap().total, p.score, "{:?}", p.play);
    }
}

#[test]
fn across_and_down_make_both() {
    let dawg = lexicon(RulesetKind::english()).dawg();
    for (setup, r) in [
        (vec!["8D WINDY", "E7 AIL"], "AEQRST?"),
        (vec!["8H AT"], "ESTONIA"),
        (vec!["8G CAT", "H9 OX", "10F BOXES"], "DEIRSU?"),
        (vec![], "QUIXOTC"),
    ] {
        let board = board_with(RulesetKind::english(), &setup);
        let r = rack(r);
        let set = |m| {
            all_plays(&board, &r, dawg, m).into_iter().map(|p| (p.play, p.score)).collect::<BTreeSet<_>>()
        };
        let (across, down, both) = (set(Mode::Across), set(Mode::Down), set(Mode::Both));
        assert!(across.iter().all(|p| p.0.dir == Direction::Across));
        assert!(down.iter().all(|p| p.0.dir == Direction::Down));
        let union: BTreeSet<_> = across.union(&down).copied().collect();
        let duplicates: BTreeSet<_> = union.difference(&both).copied().collect();
        assert!(both.is_subset(&union));
        // What Both leaves out is exactly the one-tile down plays that also form an across word.
        for (play, _) in &duplicates {
            assert_eq!((play.dir, play.tiles_placed()), (Direction::Down, 1));
            let p = play.placements().next().unwrap();
            let horizontal = (p.col > 0 && board.get(p.row, p.col - 1) != EMPTY)
                || (p.col < 14 && board.get(p.row, p.col + 1) != EMPTY);
            assert!(horizontal);
        }
        let singles_both_ways = down
            .iter()
            .filter(|(p, _)| p.tiles_placed() == 1)
            .filter(|(p, _)| {
                let q = p.placements().next().unwrap();
                (q.col > 0 && board.get(q.row, q.col - 1) != EMPTY)
                    || (q.col < 14 && board.get(q.row, q.col + 1) != EMPTY)
            })
            .count();
        assert_eq!(duplicates.len(), singles_both_ways);
        assert_eq!(both.len(), across.len() + down.len() - singles_both_ways);
    }
}

//! dawgref against wolges (Andy Kurnia's engine: a GADDAG generator whose best-play search
//! prunes anchors by "shadow play" bounds), in one process, on the same positions, with the same
//! words and the same leave values. English only: wolges has no Russian alphabet.
//!
//! The positions are `dawgref bench movegen`'s (greedy self-play from the seed), kept when the
//! board has tiles and wolges would count tiles in the bag (it switches to endgame valuation by
//! the board's tile count). For each position, the fastest of `--passes` runs of:
//! - every play, unsorted (dawgref `generate` into a reused vector; wolges
//!   `gen_moves_raw_all_unsorted`); the two sets of plays must be identical, play for play;
//! - the best play by score (dawgref `best_by_equity` with a zero leave; wolges
//!   `gen_moves_unfiltered` with `max_gen` 1 and an empty leave table);
//! - the best play by score plus leave (the same, with dawgref's shipped English leave table;
//!   wolges reads the same values from a leave table built here from it, every leave of up to
//!   six tiles), whose equity must agree to wolges's millipoint rounding;
//! - every play ranked by score plus leave, each engine's reference for its best-play search
//!   (dawgref `best_by_equity_full`; wolges `gen_moves_unfiltered` with no `max_gen` limit),
//!   whose best must agree too.
//!
//! Exchanges are left out on both sides. Usage: `cargo run --release -- [--games N] [--seed S]
//! [--passes P]` in this directory.
//!
//! With `--ruleset NAME --words FILE` (any shipped ruleset wolges also has: Catalan and Spanish
//! with their tiles of two letters, Dutch, French, German, Norwegian, Polish, Swedish), the word
//! list is compiled in that ruleset, the positions are its greedy self-play, and on each the two
//! engines' sets of plays must be identical, play for play (square, direction, tiles, blanks),
//! and their best by score equal; every play's time is reported. Leaves are English-only here.

use dawgref_engine::alphabet::Letter;
use dawgref_engine::board::Board;
use dawgref_engine::equity::LeaveModel;
use dawgref_engine::leaves::LeaveTable;
use dawgref_engine::lexicon::{Lexicon, catalog, word_list_text};
use dawgref_engine::movegen::{CollectAll, Mode, best_by_equity, best_by_equity_full, generate};
use dawgref_engine::rack::Rack;
use dawgref_engine::rules::{Ruleset, RulesetKind};
use dawgref_engine::selfplay::greedy_game;
use std::sync::Arc;
use std::time::Instant;
use wolges::{bites, build, game_config, klv, kwg, movegen};

type Error = Box<dyn std::error::Error>;

struct Args {
    games: u64,
    seed: u64,
    passes: usize,
    ruleset: String,
    words: Option<String>,
}

fn args() -> Result<Args, Error> {
    let mut a = Args { games: 100, seed: 1, passes: 3, ruleset: "english".into(), words: None };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--games" => a.games = value.parse()?,
            "--seed" => a.seed = value.parse()?,
            "--passes" => a.passes = value.parse::<usize>()?.max(1),
            "--ruleset" => a.ruleset = value,
            "--words" => a.words = Some(value),
            _ => {
                return Err(format!(
                    "unknown flag {flag} (expected --games, --seed, --passes, --ruleset, --words)"
                )
                .into());
            }
        }
    }
    Ok(a)
}

/// wolges's rack: 0 for the blank, a letter's index + 1 (dawgref's tile byte, as on the board).
fn wolges_rack(rack: &Rack) -> Vec<u8> {
    rack.tiles().map(|t| t.map_or(0, |l| l + 1)).collect()
}

/// wolges's board: the tile bytes row by row, as dawgref's (0 empty, bit 7 a blank).
fn wolges_board(board: &Board) -> Vec<u8> {
    board.grid().to_vec()
}

/// An error unless wolges's board layout is dawgref's: the side, the start square, and every
/// square's letter and word multipliers.
fn same_layout(rules: &Ruleset, config: &game_config::GameConfig) -> Result<(), Error> {
    let layout = config.board_layout();
    let n = rules.size();
    let theirs = (layout.dim().rows as usize, layout.star_row() as usize, layout.star_col() as usize);
    if theirs != (n, rules.start().0, rules.start().1) {
        return Err(
            format!("board: dawgref {n}×{n} starting at {:?}, wolges {theirs:?}", rules.start()).into()
        );
    }
    for (i, p) in layout.premiums().iter().enumerate() {
        let ours = rules.premium(i / n, i % n);
        let ours = (ours.word_multiplier() as i8, ours.letter_multiplier() as i8);
        if ours != (p.word_multiplier, p.tile_multiplier) {
            return Err(format!(
                "square {i}: dawgref {ours:?}, wolges {:?}",
                (p.word_multiplier, p.tile_multiplier)
            )
            .into());
        }
    }
    Ok(())
}

/// The dawgref words as wolges's GADDAG.
fn wolges_kwg(words: &[Vec<Letter>]) -> Result<kwg::Kwg<kwg::Node22>, Error> {
    let mut machine: Vec<bites::Bites> =
        words.iter().map(|w| w.iter().map(|&l| l + 1).collect::<Vec<u8>>()[..].into()).collect();
    machine.sort_unstable();
    let bytes = build::build(build::BuildContent::Gaddawg, build::BuildLayout::Wolges, &machine)?;
    Ok(kwg::Kwg::from_bytes_alloc(&bytes))
}

/// Every leave of one to six tiles the English set can hold, valued by `table`, as wolges's
/// `klv2` file (a DAWG of the sorted leaves, then one f32 per leave in the DAWG's word order).
/// wolges values keeping nothing at 0 and dawgref's table does not (it is what drawing seven
/// fresh tiles is worth), so every value is given relative to the empty leave's: each play's
/// equity is then dawgref's less that constant, and the ranking is the same.
fn wolges_klv(table: &LeaveTable) -> Result<(klv::Klv<kwg::Node22>, usize), Error> {
    let empty = table.value(&Rack::new());
    let mut leaves: Vec<(bites::Bites, f32)> = dawgref_vs_wolges::english_leaves()
        .into_iter()
        .map(|codes| (codes[..].into(), table.value(&dawgref_vs_wolges::rack_of(&codes)) - empty))
        .collect();
    leaves.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let keys: Vec<bites::Bites> = leaves.iter().map(|(k, _)| k.clone()).collect();
    let dawg = build::build(build::BuildContent::DawgOnly, build::BuildLayout::Wolges, &keys)?;
    let mut bin = Vec::with_capacity(8 + dawg.len() + 4 * leaves.len());
    bin.extend_from_slice(&((dawg.len() / 4) as u32).to_le_bytes());
    bin.extend_from_slice(&dawg);
    bin.extend_from_slice(&(leaves.len() as u32).to_le_bytes());
    for (_, v) in &leaves {
        bin.extend_from_slice(&v.to_le_bytes());
    }
    Ok((klv::Klv::from_bytes_alloc(&bin), leaves.len()))
}

/// Timings of one position, µs, the fastest of the passes.
#[derive(Clone, Copy)]
struct Times {
    all: [f64; 2],
    by_score: [f64; 2],
    by_equity: [f64; 2],
    /// Every play ranked by score plus leave (dawgref keeps the best, wolges sorts them all).
    ranked: [f64; 2],
}

/// Whether dawgref's best play (its equity) and wolges's first move agree: no play on either
/// side, or the same equity once `shift` (dawgref's value of the empty leave) is taken off, to
/// wolges's rounding of each leave to a thousandth of a point.
fn agree(ours: Option<f32>, theirs: Option<&movegen::ValuedMove>, shift: f64) -> bool {
    // With no play, wolges answers a pass (an exchange of nothing).
    let theirs = theirs.filter(|m| matches!(m.play, movegen::Play::Place { .. }));
    match (ours, theirs) {
        (None, None) => true,
        (Some(e), Some(m)) => (f64::from(e) - shift - m.equity.as_f64()).abs() <= 0.0015,
        _ => false,
    }
}

/// Time `ours` and `theirs` (µs), in the order `wolges_first` says.
fn timed(wolges_first: bool, mut ours: impl FnMut(), mut theirs: impl FnMut()) -> [f64; 2] {
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        start.elapsed().as_secs_f64() * 1e6
    };
    if wolges_first {
        let t = time(&mut theirs);
        [time(&mut ours), t]
    } else {
        let o = time(&mut ours);
        [o, time(&mut theirs)]
    }
}

/// Keep the faster of each engine's times.
fn fastest(kept: &mut [f64; 2], us: [f64; 2]) {
    kept[0] = kept[0].min(us[0]);
    kept[1] = kept[1].min(us[1]);
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn report(label: &str, times: &[[f64; 2]]) {
    let column = |side: usize| {
        let mut v: Vec<f64> = times.iter().map(|t| t[side]).collect();
        v.sort_by(f64::total_cmp);
        v
    };
    let (ours, theirs) = (column(0), column(1));
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let mut ratios: Vec<f64> = times.iter().map(|t| t[0] / t[1]).collect();
    ratios.sort_by(f64::total_cmp);
    println!(
        "{label:<16} dawgref p50 {:>6.1} p99 {:>7.1} mean {:>6.1} us | wolges p50 {:>6.1} p99 {:>7.1} mean {:>6.1} us \
         | dawgref/wolges: medians {:.2}x, means {:.2}x, median per position {:.2}x",
        percentile(&ours, 0.5),
        percentile(&ours, 0.99),
        mean(&ours),
        percentile(&theirs, 0.5),
        percentile(&theirs, 0.99),
        mean(&theirs),
        percentile(&ours, 0.5) / percentile(&theirs, 0.5),
        mean(&ours) / mean(&theirs),
        percentile(&ratios, 0.5),
    );
}

fn main() -> Result<(), Error> {
    let args = args()?;
    if args.ruleset != "english" {
        return other_ruleset(&args);
    }
    let lexicon = catalog::resolve("en", None)?.lexicon;
    let dawg = lexicon.dawg();
    let rules = Arc::new(Ruleset::new(RulesetKind::english()));
    let table = LeaveTable::shipped(RulesetKind::english());

    let start = Instant::now();
    let kwg = wolges_kwg(&dawg.words())?;
    let (klv_ours, leaves) = wolges_klv(table)?;
    let klv_empty = klv::Klv::<kwg::Node22>::from_bytes_alloc(klv::EMPTY_KLV_BYTES);
    let config = game_config::make_english_game_config();
    let mut generator = movegen::KurniaMoveGenerator::new(&config);
    eprintln!("wolges GADDAG and leave table ({leaves} leaves) built in {:.1?}", start.elapsed());

    // bench movegen's positions, those wolges values as mid-game.
    let mut positions: Vec<(Board, Rack)> = Vec::new();
    let mut seen = 0;
    for g in 0..args.games {
        greedy_game(rules.clone(), dawg, args.seed + g, |pos, _| {
            seen += 1;
            let on_board = pos.board.tile_count() as u32;
            let bag_as_wolges_counts =
                rules.total_tiles() as i64 - i64::from(on_board) - 2 * rules.rack_size as i64;
            if on_board > 0 && bag_as_wolges_counts > 0 {
                positions.push((pos.board.clone(), *pos.rack));
            }
        });
    }
    println!(
        "{} of the {seen} positions of {} greedy games (seed {}): board not empty, tiles in the bag; fastest of {} passes",
        positions.len(),
        args.games,
        args.seed,
        args.passes
    );

    let leave = LeaveModel::shipped(&rules).at(&rules, 50);
    let zero = |_: &Rack| 0.0f32;
    let empty_leave = f64::from(table.value(&Rack::new()));
    let mut times = vec![
        Times {
            all: [f64::INFINITY; 2],
            by_score: [f64::INFINITY; 2],
            by_equity: [f64::INFINITY; 2],
            ranked: [f64::INFINITY; 2]
        };
        positions.len()
    ];
    let mut plays = Vec::with_capacity(4096);
    let mut total_plays = 0usize;
    for pass in 0..args.passes {
        // Each engine runs first on every other pass: the one that runs second finds the caches
        // holding the other's data.
        let wolges_first = pass % 2 == 1;
        for (i, (board, rack)) in positions.iter().enumerate() {
            let t = &mut times[i];
            let tiles = wolges_board(board);
            let wrack = wolges_rack(rack);
            let empty = movegen::BoardSnapshot {
                board_tiles: &tiles,
                game_config: &config,
                kwg: &kwg,
                klv: &klv_empty,
            };
            let valued = movegen::BoardSnapshot {
                board_tiles: &tiles,
                game_config: &config,
                kwg: &kwg,
                klv: &klv_ours,
            };
            let best_of = |generator: &mut movegen::KurniaMoveGenerator, snapshot, max_gen| {
                generator.gen_moves_unfiltered(&movegen::GenMovesParams {
                    board_snapshot: snapshot,
                    rack: &wrack,
                    max_gen,
                    num_exchanges_by_this_player: i16::MAX,
                    always_include_pass: false,
                    dynamic_leaves: None,
                });
            };

            // Every play, into a vector kept between positions.
            fastest(
                &mut t.all,
                every_play(wolges_first, board, rack, dawg, &mut generator, &empty, &wrack, &mut plays),
            );
            if pass == 0 {
                total_plays += same_plays(i, &plays, &generator)?.len();
            }

            // The best by score, then by score and leave.
            for (slot, snapshot, ranking) in [(0, &empty, None), (1, &valued, Some(leave))] {
                let mut ours = None;
                let us = timed(
                    wolges_first,
                    || {
                        ours = match ranking {
                            None => best_by_equity(board, rack, dawg, Mode::Both, zero),
                            Some(l) => best_by_equity(board, rack, dawg, Mode::Both, l),
                        }
                    },
                    || best_of(&mut generator, snapshot, 1),
                );
                fastest(if slot == 0 { &mut t.by_score } else { &mut t.by_equity }, us);
                let shift = if slot == 0 { 0.0 } else { empty_leave };
                if !agree(ours.map(|(e, _)| e), generator.plays.first(), shift) {
                    return Err(format!(
                        "position {i}, {}: dawgref {ours:?}, wolges {:?}",
                        if slot == 0 { "by score" } else { "by score + leave" },
                        generator.plays.first().map(|m| m.equity.as_f64())
                    )
                    .into());
                }
            }

            // Every play ranked by score plus leave, each engine's reference for the best.
            let mut ours = None;
            let us = timed(
                wolges_first,
                || ours = best_by_equity_full(board, rack, dawg, Mode::Both, leave),
                || best_of(&mut generator, &valued, usize::MAX),
            );
            fastest(&mut t.ranked, us);
            if !agree(ours.map(|(e, _)| e), generator.plays.first(), empty_leave) {
                return Err(format!(
                    "position {i}, ranked: dawgref {ours:?}, wolges {:?}",
                    generator.plays.first().map(|m| m.equity.as_f64())
                )
                .into());
            }
        }
    }
    println!("{total_plays} plays in all, the same set from both engines on every position, play for play");
    report("every play", &times.iter().map(|t| t.all).collect::<Vec<_>>());
    report("best by score", &times.iter().map(|t| t.by_score).collect::<Vec<_>>());
    report("best, + leave", &times.iter().map(|t| t.by_equity).collect::<Vec<_>>());
    report("ranked, + leave", &times.iter().map(|t| t.ranked).collect::<Vec<_>>());
    // Each engine's best-first search against its own ranking of every play.
    for (side, name) in [(0, "dawgref"), (1, "wolges")] {
        let median = |f: fn(&Times) -> [f64; 2]| {
            let mut v: Vec<f64> = times.iter().map(|t| f(t)[side]).collect();
            v.sort_by(f64::total_cmp);
            percentile(&v, 0.5)
        };
        let mean =
            |f: fn(&Times) -> [f64; 2]| times.iter().map(|t| f(t)[side]).sum::<f64>() / times.len() as f64;
        println!(
            "{name:<8} best-first (+ leave) over its own ranked generation: medians {:.2}x, means {:.2}x",
            median(|t| t.by_equity) / median(|t| t.ranked),
            mean(|t| t.by_equity) / mean(|t| t.ranked),
        );
    }
    Ok(())
}

/// A play as both engines can write it: down or not, lane, index along it, its tiles (0 a
/// square played through, bit 7 a blank, else the letter's index + 1, which is wolges's tile),
/// and its score in thousandths of a point (wolges's unit).
type Canonical = (bool, i8, i8, Vec<u8>, i32);

/// Every play of both engines, unsorted, timed (µs): dawgref's into `plays` (a vector kept
/// between positions), wolges's into its generator.
#[allow(clippy::too_many_arguments)]
fn every_play(
    wolges_first: bool,
    board: &Board,
    rack: &Rack,
    dawg: &dawgref_engine::lexicon::Dawg,
    generator: &mut movegen::KurniaMoveGenerator,
    snapshot: &movegen::BoardSnapshot<'_, kwg::Node22, kwg::Node22>,
    wrack: &[u8],
    plays: &mut Vec<dawgref_engine::movegen::ScoredPlay>,
) -> [f64; 2] {
    plays.clear();
    let mut sink = CollectAll(std::mem::take(plays));
    let us = timed(
        wolges_first,
        || {
            generate(board, rack, dawg, Mode::Both, &mut sink);
        },
        || generator.gen_moves_raw_all_unsorted(snapshot, wrack, i16::MAX, false),
    );
    *plays = sink.0;
    us
}

/// The two engines' plays on position `i`, set against set: an error naming a play only one
/// found, else dawgref's plays in canonical form, sorted.
fn same_plays(
    i: usize,
    plays: &[dawgref_engine::movegen::ScoredPlay],
    generator: &movegen::KurniaMoveGenerator,
) -> Result<Vec<Canonical>, Error> {
    let mut ours: Vec<Canonical> = plays
        .iter()
        .map(|p| {
            let down = p.play.dir == dawgref_engine::board::Direction::Down;
            let (lane, idx) = if down { (p.play.col, p.play.row) } else { (p.play.row, p.play.col) };
            (down, lane as i8, idx as i8, p.play.tiles().to_vec(), p.score * 1000)
        })
        .collect();
    let mut theirs: Vec<Canonical> = generator
        .plays
        .iter()
        .filter_map(|m| match &m.play {
            movegen::Play::Place { down, lane, idx, word, score } => {
                Some((*down, *lane, *idx, word.to_vec(), *score))
            }
            _ => None,
        })
        .collect();
    ours.sort_unstable();
    theirs.sort_unstable();
    if ours != theirs {
        let only_ours = ours.iter().find(|p| theirs.binary_search(p).is_err());
        let only_theirs = theirs.iter().find(|p| ours.binary_search(p).is_err());
        return Err(format!(
            "position {i}: dawgref {} plays, wolges {}; only dawgref's: {only_ours:?}; only wolges's: {only_theirs:?}",
            ours.len(),
            theirs.len()
        )
        .into());
    }
    Ok(ours)
}

/// Another ruleset: both engines' plays, set against set, and the best by score.
fn other_ruleset(args: &Args) -> Result<(), Error> {
    let kind =
        RulesetKind::by_name(&args.ruleset).ok_or_else(|| format!("unknown ruleset {}", args.ruleset))?;
    let path = args.words.as_ref().ok_or("--words FILE: the word list to compile in that ruleset")?;
    let (text, _) = word_list_text(&std::fs::read(path)?);
    let (lexicon, compiled) =
        Lexicon::compile_up_to(&args.ruleset, &text, kind.alphabet(), kind.definition().size)?;
    eprintln!("{path}: {compiled}");
    let dawg = lexicon.dawg();
    let rules = Arc::new(Ruleset::new(kind));
    let config = match kind.name() {
        "catalan" => game_config::make_catalan_game_config(),
        "dutch" => game_config::make_dutch_game_config(),
        "french" => game_config::make_french_game_config(),
        "german" => game_config::make_german_game_config(),
        "norwegian" => game_config::make_norwegian_game_config(),
        "polish" => game_config::make_polish_game_config(),
        "spanish" => game_config::make_spanish_game_config(),
        "swedish" => game_config::make_swedish_game_config(),
        "super-english" => game_config::make_super_english_game_config(),
        other => return Err(format!("wolges has no {other} game config here").into()),
    };
    same_layout(&rules, &config)?;
    // The same tiles in the same order: wolges tile i + 1 is dawgref letter i.
    let alphabet = kind.alphabet();
    for l in 0..alphabet.len() as Letter {
        let theirs = config.alphabet().of_board(l + 1).unwrap_or("").trim_matches(['[', ']']);
        if theirs != alphabet.label(l) {
            return Err(format!("tile {}: dawgref {}, wolges {theirs}", l + 1, alphabet.label(l)).into());
        }
    }
    let start = Instant::now();
    let kwg = wolges_kwg(&dawg.words())?;
    let klv_empty = klv::Klv::<kwg::Node22>::from_bytes_alloc(klv::EMPTY_KLV_BYTES);
    let mut generator = movegen::KurniaMoveGenerator::new(&config);
    eprintln!("wolges GADDAG built in {:.1?}", start.elapsed());
    let mut positions: Vec<(Board, Rack)> = Vec::new();
    for g in 0..args.games {
        greedy_game(rules.clone(), dawg, args.seed + g, |pos, _| {
            let on_board = pos.board.tile_count() as u32;
            let bag = rules.total_tiles() as i64 - i64::from(on_board) - 2 * rules.rack_size as i64;
            if on_board > 0 && bag > 0 {
                positions.push((pos.board.clone(), *pos.rack));
            }
        });
    }
    let zero = |_: &Rack| 0.0f32;
    let mut all = vec![[f64::INFINITY; 2]; positions.len()];
    let mut by_score = vec![[f64::INFINITY; 2]; positions.len()];
    let (mut total, mut with_digraph) = (0usize, 0usize);
    let mut plays = Vec::with_capacity(4096);
    for pass in 0..args.passes {
        let wolges_first = pass % 2 == 1;
        for (i, (board, rack)) in positions.iter().enumerate() {
            let tiles = wolges_board(board);
            let wrack = wolges_rack(rack);
            let empty = movegen::BoardSnapshot {
                board_tiles: &tiles,
                game_config: &config,
                kwg: &kwg,
                klv: &klv_empty,
            };
            fastest(
                &mut all[i],
                every_play(wolges_first, board, rack, dawg, &mut generator, &empty, &wrack, &mut plays),
            );
            if pass == 0 {
                let ours = same_plays(i, &plays, &generator)?;
                total += ours.len();
                with_digraph += ours
                    .iter()
                    .filter(|p| {
                        p.3.iter().any(|&t| t != 0 && alphabet.label((t & 0x3f) - 1).chars().count() > 1)
                    })
                    .count();
            }
            let mut best = None;
            let us = timed(
                wolges_first,
                || best = best_by_equity(board, rack, dawg, Mode::Both, zero),
                || {
                    generator.gen_moves_unfiltered(&movegen::GenMovesParams {
                        board_snapshot: &empty,
                        rack: &wrack,
                        max_gen: 1,
                        num_exchanges_by_this_player: i16::MAX,
                        always_include_pass: false,
                        dynamic_leaves: None,
                    })
                },
            );
            fastest(&mut by_score[i], us);
            if !agree(best.map(|(e, _)| e), generator.plays.first(), 0.0) {
                return Err(format!(
                    "position {i}, best by score: dawgref {best:?}, wolges {:?}",
                    generator.plays.first().map(|m| m.equity.as_f64())
                )
                .into());
            }
        }
    }
    println!(
        "{}: {} positions of {} greedy games (seed {}); {total} plays, {with_digraph} with a tile of several letters, \
         the same set from both engines on every position; fastest of {} passes",
        kind.name(),
        positions.len(),
        args.games,
        args.seed,
        args.passes
    );
    report("every play", &all);
    report("best by score", &by_score);
    Ok(())
}
